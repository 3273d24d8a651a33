//! What a failed verification reports: every public error's `Debug` reads like its `Display`,
//! paths of any depth, raw field names, bounded texts, collections that match nothing, counts,
//! and the grouping of errors that share a cause.

use std::collections::BTreeMap;
use std::error::Error;

use shapes::{
    Bindings, Plan, Shape, ShapeErrorKind, Shaped,
    verify::{PlanNode, SourceOptions},
};

type Src = BTreeMap<String, Shape>;

fn put(src: &mut Src, name: &str, dims: &[usize]) {
    src.insert(name.to_string(), Shape::new(dims));
}

/// `Debug` is `Display`, and a `Box<dyn Error>` (what `fn main() -> Result<(), Box<dyn Error>>`
/// prints with `{:?}`) shows the message.
fn reads_like_display<E: Error + 'static>(e: E) -> String {
    let text = e.to_string();
    assert_eq!(format!("{e:?}"), text);
    let boxed: Box<dyn Error> = Box::new(e);
    assert_eq!(format!("{boxed:?}"), text);
    text
}

#[test]
fn debug_of_a_parse_error_is_its_message() {
    let text = reads_like_display(shapes::expr::parse("(a b)").unwrap_err());
    assert!(text.starts_with("expected ',' or ')'"), "{text}");
}

#[test]
fn debug_of_a_parse_shape_error_is_its_message() {
    let text = reads_like_display("(2, x)".parse::<Shape>().unwrap_err());
    assert!(text.starts_with("invalid shape \"(2, x)\""), "{text}");
}

#[test]
fn debug_of_a_broadcast_error_is_its_message() {
    let e = shapes::broadcast_shapes(&[[2usize, 3], [4, 3]]).unwrap_err();
    let text = reads_like_display(e);
    assert!(
        text.starts_with("cannot broadcast (2, 3) with (4, 3)"),
        "{text}"
    );
}

#[test]
fn debug_of_an_infer_error_and_its_kind_is_the_message() {
    let f = shapes::expr::parse("a -> a -> a").unwrap();
    let args = [
        shapes::expr::parse("(2, 2)").unwrap(),
        shapes::expr::parse("(2, 3)").unwrap(),
    ];
    let e = shapes::solve::infer_app(&f, &args).unwrap_err();
    reads_like_display(e.kind().clone());
    let text = reads_like_display(e);
    assert!(text.contains("2 ≠ 3"), "{text}");
}

#[test]
fn debug_of_an_arith_failure_is_its_message() {
    assert_eq!(
        reads_like_display(shapes::expr::ArithFailure::DivisionByZero),
        "divides by zero"
    );
}

#[test]
fn debug_of_header_errors_is_the_message() {
    let text =
        reads_like_display(shapes::checkpoint::SafetensorsHeader::from_bytes(b"abc").unwrap_err());
    assert!(text.starts_with("not a safetensors file"), "{text}");
    let text =
        reads_like_display(shapes::checkpoint::GgufHeader::from_bytes(b"GGML....").unwrap_err());
    assert!(text.starts_with("not a GGUF file"), "{text}");
}

#[test]
fn debug_of_a_plan_error_is_its_message() {
    let e = shapes::Plan::build("M", &[shapes::verify::PlanNode::tensor("w", "(a b)")], &[])
        .unwrap_err();
    assert!(reads_like_display(e).starts_with("w: expected"));
}

#[derive(Shaped)]
struct Pair {
    #[shape("(n, d)")]
    a: Shape,
    #[shape("(n, d)")]
    b: Shape,
}

#[test]
fn debug_of_shape_error_and_shape_errors_is_the_message() {
    let p = Pair {
        a: Shape::from([2, 3]),
        b: Shape::from([4, 5]),
    };
    let text = reads_like_display(p.verify().unwrap_err());
    assert!(
        text.starts_with("Pair.b: axis 0 expected n = 2, found 4"),
        "{text}"
    );
    let text = reads_like_display(p.verify_all().unwrap_err());
    assert!(text.starts_with("2 shape errors:"), "{text}");
}

// ----- raw field names -----

#[derive(Shaped)]
struct Raw {
    #[shape("(n,)")]
    r#type: Shape,
    #[shape("(n, d)")]
    r#match: Option<Shape>,
}

#[test]
fn a_raw_field_name_is_looked_up_and_reported_without_its_prefix() {
    let mut src = Src::new();
    put(&mut src, "type", &[3]);
    put(&mut src, "match", &[3, 4]);
    let b = Raw::verify_source(&src).expect("`type` and `match` are found");
    assert_eq!((b.get("n"), b.get("d")), (Some(3), Some(4)));

    put(&mut src, "match", &[5, 4]);
    let err = Raw::verify_source(&src).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Raw.match (tensor \"match\"): axis 0 expected n = 3, found 5\n  n = 3 bound by Raw.type axis 0"),
        "{err}"
    );
    let m = Raw {
        r#type: Shape::from([3]),
        r#match: Some(Shape::from([2, 1])),
    };
    assert!(
        m.verify()
            .unwrap_err()
            .to_string()
            .starts_with("Raw.match: axis 0")
    );
}

// ----- paths deeper than the checker's inline storage -----

macro_rules! chain {
    ($leaf:ident; $first:ident $(, $rest:ident)*) => {
        chain!(@build $leaf; $first $(, $rest)*);
    };
    (@build $leaf:ident; $name:ident, $next:ident $(, $rest:ident)*) => {
        #[derive(Shaped)]
        struct $name {
            #[shape(nested)]
            inner: Vec<$next>,
        }
        chain!(@build $leaf; $next $(, $rest)*);
    };
    (@build $leaf:ident; $name:ident) => {
        #[derive(Shaped)]
        struct $name {
            #[shape(nested)]
            inner: $leaf,
        }
    };
}

#[derive(Shaped)]
struct Deepest {
    #[shape("(d,)")]
    w: Shape,
    #[shape("(d,)")]
    b: Shape,
}

// Ten levels of `Vec` fields: twenty path levels (a field and an index each), then the leaf.
chain!(Deepest; D0, D1, D2, D3, D4, D5, D6, D7, D8, D9, D10);

fn deep(b: usize) -> D0 {
    macro_rules! wrap {
        ($v:expr; $($t:ident),*) => {{
            let v = $v;
            $( let v = $t { inner: vec![v] }; )*
            v
        }};
    }
    let leaf = D10 {
        inner: Deepest {
            w: Shape::from([4]),
            b: Shape::from([b]),
        },
    };
    wrap!(leaf; D9, D8, D7, D6, D5, D4, D3, D2, D1, D0)
}

#[test]
fn a_path_twenty_levels_deep_is_named_whole() {
    assert!(deep(4).verify().is_ok());
    let e = deep(5).verify().unwrap_err();
    let path = "D0.inner[0].inner[0].inner[0].inner[0].inner[0].inner[0].inner[0].inner[0].inner[0].inner[0].inner";
    assert_eq!(e.path.segments().len(), 22);
    assert_eq!(
        e.to_string(),
        format!(
            "{path}.b: axis 0 expected d = 4, found 5\n  d = 4 bound by {path}.w axis 0\n  shape is (5,), pattern (d,)"
        )
    );
    let b = deep(4).verify().unwrap();
    assert_eq!(
        b.origin("d").unwrap().to_string(),
        format!("{path}.w axis 0")
    );
}

// ----- collections that match nothing, minimums and required counts -----

#[derive(Shaped)]
struct Block {
    #[shape("(d, d)")]
    w: Shape,
}

#[derive(Shaped)]
struct Encoder {
    #[shape("(vocab, d)")]
    embed: Shape,
    #[shape(nested, count = "n_layers")]
    layers: Vec<Block>,
}

#[derive(Shaped)]
struct MaybeBlocks {
    #[shape("(vocab, d)")]
    embed: Shape,
    #[shape(nested, prefix = "layers")]
    blocks: Option<Vec<Block>>,
}

#[derive(Shaped)]
struct AnyBlocks {
    #[shape("(vocab, d)")]
    embed: Shape,
    #[shape(nested, prefix = "layers", min = 0, count = "n")]
    blocks: Vec<Block>,
}

#[derive(Shaped)]
struct TwoBlocks {
    #[shape("(vocab, d)")]
    embed: Shape,
    #[shape(nested, prefix = "layers", min = 2)]
    blocks: Vec<Block>,
}

/// `embed` and `{prefix}.{i}.w` for each i.
fn blocks(prefix: &str, n: usize) -> Src {
    let mut s = Src::new();
    put(&mut s, "embed", &[10, 4]);
    for i in 0..n {
        put(&mut s, &format!("{prefix}.{i}.w"), &[4, 4]);
    }
    s
}

const NOT_STRICT: fn() -> SourceOptions = || SourceOptions::new().strict(false);

#[test]
fn a_collection_whose_prefix_matches_nothing_is_an_error_even_when_not_strict() {
    let src = blocks("layer", 3);
    let err = Encoder::verify_source_options(&src, NOT_STRICT()).unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    let e = err.first().unwrap();
    assert!(matches!(
        e.kind,
        ShapeErrorKind::Count {
            found: 0,
            expected: 1,
            at_least: true,
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "Encoder.layers: expected at least 1 element under layers.*, found none (did you mean \"layer\"?); if the list may be absent, declare it `Option<Vec<_>>` or `min = 0`\n  pattern (n_layers,) = the number of elements"
    );
    // The right prefix passes.
    assert_eq!(
        Encoder::verify_source(&blocks("layers", 3))
            .unwrap()
            .get("n_layers"),
        Some(3)
    );
}

#[test]
fn an_optional_collection_or_min_zero_may_be_absent() {
    let src = blocks("layer", 0);
    assert!(MaybeBlocks::verify_source(&src).is_ok());
    assert_eq!(AnyBlocks::verify_source(&src).unwrap().get("n"), Some(0));
    // Present, an optional collection is checked like any other.
    let mut bad = blocks("layers", 2);
    put(&mut bad, "layers.1.w", &[5, 4]);
    let err = MaybeBlocks::verify_source(&bad).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "MaybeBlocks.blocks[1].w (tensor \"layers.1.w\"): axis 0 expected d = 4, found 5"
        ),
        "{err}"
    );
}

#[test]
fn a_minimum_count_is_required() {
    assert!(TwoBlocks::verify_source(&blocks("layers", 2)).is_ok());
    let err = TwoBlocks::verify_source(&blocks("layers", 1)).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("TwoBlocks.blocks: expected at least 2 elements under layers.*, found 1"),
        "{err}"
    );
}

#[test]
fn a_given_count_reports_the_missing_last_layers() {
    let given = |n| SourceOptions::new().bindings(Bindings::new().bind("n_layers", n));
    assert!(Encoder::verify_source_options(&blocks("layers", 6), given(6)).is_ok());
    let err = Encoder::verify_source_options(&blocks("layers", 5), given(6)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Encoder.layers: expected 6 elements under layers.* (n_layers = 6), found 5: missing layers.5.*\n  n_layers = 6 bound by the caller\n  pattern (n_layers,) = the number of elements"
    );
    let err = Encoder::verify_source_options(&blocks("layers", 3), given(6)).unwrap_err();
    assert!(
        err.to_string()
            .contains("found 3: missing layers.3.* to layers.5.*"),
        "{err}"
    );
    let err = Encoder::verify_source_options(&blocks("layers", 7), given(6)).unwrap_err();
    assert!(
        err.to_string()
            .contains("found 7: layers.6.* and later are more than expected"),
        "{err}"
    );
}

fn plan(optional: bool) -> Plan {
    let layers =
        PlanNode::group("layers", vec![PlanNode::tensor("w", "(d, d)")]).repeated(Some("n_layers"));
    let layers = if optional { layers.optional() } else { layers };
    Plan::build(
        "Encoder",
        &[PlanNode::tensor("embed", "(vocab, d)"), layers],
        &[],
    )
    .unwrap()
}

#[test]
fn a_plan_follows_the_same_rules_as_the_derive() {
    let src = blocks("layer", 3);
    let opts = NOT_STRICT();
    let derived = Encoder::verify_source_options(&src, opts.clone()).unwrap_err();
    let planned = plan(false).verify_source_options(&src, opts).unwrap_err();
    assert_eq!(planned.to_string(), derived.to_string());
    assert!(plan(true).verify_source(&blocks("layer", 0)).is_ok());

    let given = SourceOptions::new().bindings(Bindings::new().bind("n_layers", 6));
    let derived = Encoder::verify_source_options(&blocks("layers", 5), given.clone()).unwrap_err();
    let planned = plan(false)
        .verify_source_options(&blocks("layers", 5), given)
        .unwrap_err();
    assert_eq!(planned.to_string(), derived.to_string());
}

// ----- grouping: one cause, folded names, transposed shapes -----

#[derive(Shaped)]
#[shapes(given = "d_ff")]
struct Mlp {
    #[shape("(d_ff, d)")]
    up: Shape,
    #[shape("(d, d_ff)")]
    down: Shape,
}

#[derive(Shaped)]
struct Stack {
    #[shape("(vocab, d)")]
    embed: Shape,
    #[shape(nested, prefix = "layers")]
    mlps: Vec<Mlp>,
}

fn stack(n: usize, d_ff: usize) -> Src {
    let mut s = Src::new();
    put(&mut s, "embed", &[10, 4]);
    for i in 0..n {
        put(&mut s, &format!("layers.{i}.up"), &[d_ff, 4]);
        put(&mut s, &format!("layers.{i}.down"), &[4, d_ff]);
    }
    s
}

#[test]
fn mismatches_with_one_cause_are_grouped_under_it() {
    let config = Bindings::new().bind("d_ff", 16);
    assert!(Stack::verify_source_with(&stack(12, 16), config.clone()).is_ok());
    let err = Stack::verify_source_with(&stack(12, 12), config).unwrap_err();
    assert_eq!(err.len(), 24);
    assert_eq!(
        err.to_string(),
        "24 shape errors:\n- 24 mismatches, one cause: d_ff is 16, bound by the caller, but 12 in:\n    \
         Stack.mlps[{0..11}].up (tensor \"layers.{0..11}.up\") axis 0\n    \
         Stack.mlps[{0..11}].down (tensor \"layers.{0..11}.down\") axis 1"
    );
}

#[test]
fn missing_and_unexpected_names_fold_across_layers() {
    let mut src = stack(6, 16);
    for i in 0..6 {
        src.remove(&format!("layers.{i}.down"));
        put(&mut src, &format!("layers.{i}.down_proj"), &[4, 16]);
    }
    put(&mut src, "pooler", &[4]);
    let err = Stack::verify_source(&src).unwrap_err();
    assert_eq!(err.missing_tensors().len(), 6);
    assert_eq!(
        err.to_string(),
        "7 shape errors:\n\
         - (6 errors) Stack.mlps[{0..5}].down: tensor \"layers.{0..5}.down\" is missing from the source (did you mean \"layers.{0..5}.down_proj\"?)\n    \
         pattern (d, d_ff)\n\
         - Stack: the source has 7 tensor(s) the struct does not describe: layers.{0..5}.down_proj, pooler"
    );
}

#[test]
fn a_reversed_shape_is_one_transposed_error() {
    let mut src = stack(2, 16);
    put(&mut src, "layers.1.up", &[4, 16]);
    let err = Stack::verify_source(&src).unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    let e = err.first().unwrap();
    assert_eq!(
        e.kind,
        ShapeErrorKind::Transposed {
            expected: Shape::from([16, 4])
        }
    );
    assert_eq!(
        e.to_string(),
        "Stack.mlps[1].up (tensor \"layers.1.up\"): looks transposed: expected (16, 4), found (4, 16), its reverse\n  \
         d_ff = 16 bound by Stack.mlps[0].up axis 0; d = 4 bound by Stack.embed axis 1\n  \
         shape is (4, 16), pattern (d_ff, d)"
    );
}

// ----- bounded texts -----

#[derive(Shaped)]
struct Wide {
    #[shape("(d,)")]
    norm: Shape,
    #[shape("(d,)")]
    layers: Vec<Shape>,
}

#[test]
fn an_all_bad_list_of_100k_layers_prints_a_few_lines() {
    let m = Wide {
        norm: Shape::from([4]),
        layers: (0..100_000).map(|i| Shape::from([5 + i % 2])).collect(),
    };
    let err = m.verify_all().unwrap_err();
    assert_eq!(err.len(), 100_000);
    let text = err.to_string();
    assert!(text.len() < 2_000, "{} bytes", text.len());
    assert!(
        text.starts_with(
            "100,000 shape errors:\n- 50,000 mismatches, one cause: d is 4, bound by Wide.norm axis 0, but 5 in:\n    Wide.layers[{0,2,4,6,8,10,12,14,…,99998}] axis 0\n- 50,000 mismatches, one cause: d is 4, bound by Wide.norm axis 0, but 6 in:\n    Wide.layers[{1,3,5,7,9,11,13,15,…,99999}] axis 0"
        ),
        "{text}"
    );
}

#[test]
fn two_hundred_thousand_unexpected_tensors_print_a_bounded_line() {
    let mut src = Src::new();
    put(&mut src, "norm", &[4]);
    put(&mut src, "layers.0", &[4]);
    for i in 0..200_000u32 {
        // Names without a list index: nothing folds.
        put(
            &mut src,
            &format!("extra_{:08x}", i.wrapping_mul(2_654_435_761)),
            &[1],
        );
    }
    let err = Wide::verify_source(&src).unwrap_err();
    assert_eq!(err.unexpected_tensors().len(), 200_000);
    let text = err.to_string();
    assert!(text.len() < 2_000, "{} bytes", text.len());
    assert!(text.ends_with(", … and 199,950 more"), "{text}");
}

#[test]
fn a_3_mb_bad_pattern_prints_a_bounded_message() {
    let long = "a".repeat(3_000_000);
    let err = shapes::expr::parse(&format!("({long} b)")).unwrap_err();
    let text = err.to_string();
    assert!(text.len() < 400, "{} bytes", text.len());
    assert_eq!(err.offset(), 3_000_002);
    assert!(
        text.ends_with(&format!(
            "\n  …{} b)\n  {}^",
            "a".repeat(59),
            " ".repeat(61)
        )),
        "{text}"
    );

    let err = shapes::expr::parse(&format!("(a {long})")).unwrap_err();
    let text = err.to_string();
    assert!(text.len() < 400, "{} bytes", text.len());
    assert!(err.found().ends_with('…'), "{}", err.found());
}

#[derive(Shaped)]
struct Prefixed {
    #[shape("(vocab, d)", name = "model.embed_tokens.weight")]
    embed: Shape,
    #[shape("(d,)", name = "model.norm.weight")]
    norm: Shape,
}

#[test]
fn a_missing_tensor_under_a_wrong_prefix_gets_a_did_you_mean() {
    let mut src = Src::new();
    put(&mut src, "embed_tokens.weight", &[10, 4]);
    put(&mut src, "model.norm.weight", &[4]);
    // Not strict: the unexpected name is not an error, and still the hint.
    let err = Prefixed::verify_source_options(&src, NOT_STRICT()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Prefixed.embed: tensor \"model.embed_tokens.weight\" is missing from the source (did you mean \"embed_tokens.weight\"?)\n  pattern (vocab, d)"
    );
    assert!(err.unexpected_tensors().is_empty());
}

#[derive(Shaped)]
#[shapes(given = "heads")]
struct Heads {
    #[shape("(heads * head_dim,)")]
    q: Shape,
}

#[test]
fn no_whole_solution_says_where_each_known_variable_was_bound() {
    let m = Heads {
        q: Shape::from([3070]),
    };
    let e = m.verify_with(Bindings::new().bind("heads", 4)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Heads.q: axis 0 heads * head_dim = 3070 has no whole solution (3070 / 4 is not exact (remainder 2))\n  \
         heads = 4 bound by the caller\n  \
         shape is (3070,), pattern (heads * head_dim,)"
    );
}

#[test]
fn a_reversed_shape_in_memory_is_one_transposed_error_too() {
    let m = Stack {
        embed: Shape::from([10, 4]),
        mlps: vec![Mlp {
            up: Shape::from([4, 16]),
            down: Shape::from([4, 16]),
        }],
    };
    let e = m.verify_with(Bindings::new().bind("d_ff", 16)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Stack.mlps[0].up: looks transposed: expected (16, 4), found (4, 16), its reverse\n  \
         d_ff = 16 bound by the caller; d = 4 bound by Stack.embed axis 1\n  \
         shape is (4, 16), pattern (d_ff, d)"
    );
}

#[test]
fn many_unexpected_names_are_grouped_by_prefix() {
    let mut src = Src::new();
    put(&mut src, "norm", &[4]);
    put(&mut src, "layers.0", &[4]);
    for i in 0..3_000 {
        put(&mut src, &format!("vision_tower.patch_{i:04x}_embed"), &[1]);
    }
    put(&mut src, "lm_head.weight", &[4, 4]);
    let err = Wide::verify_source(&src).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Wide: the source has 3,001 tensor(s) the struct does not describe: lm_head.weight, vision_tower.* (3,000 tensors)"
    );
}
