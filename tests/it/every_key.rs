//! No declared check is dropped: every key `#[derive(Shaped)]`, `#[shapes::check]` and a spec
//! file accept changes a verdict. Each test sets a key, then leaves it out (or gives it
//! another value), on the same shapes, and the two verdicts differ. The lists of keys are
//! read from what the macros and the spec reader say they accept (the compile errors of an
//! unknown key, `SPEC_TOP_KEYS`, `SPEC_ENTRY_KEYS`), so a new key without a test here fails.

use std::collections::BTreeMap;

use shapes::{Bindings, Checkpoint, Shape, ShapeError, Shaped, Spec, check, verify::SourceOptions};

use crate::common::ckpt_files::{TempDir, safetensors};

fn s<const N: usize>(dims: [usize; N]) -> Shape {
    Shape::from(dims)
}

fn src(tensors: &[(&str, &[usize])]) -> BTreeMap<String, Shape> {
    tensors
        .iter()
        .map(|(n, d)| (n.to_string(), Shape::new(d)))
        .collect()
}

/// A checkpoint of `tensors` with `config` as its config.json.
fn ckpt(tag: &str, tensors: &[(&str, &[usize])], config: &str) -> (TempDir, Checkpoint) {
    let dir = TempDir::new(tag);
    let t: Vec<(String, Vec<usize>)> = tensors
        .iter()
        .map(|(n, d)| (n.to_string(), d.to_vec()))
        .collect();
    safetensors(&dir.join("model.safetensors"), &t, &[]);
    std::fs::write(dir.join("config.json"), config).expect("config");
    let c = Checkpoint::open(dir.join("model.safetensors")).expect("opens");
    (dir, c)
}

/// The keys a compile error lists after "expected", each the identifier a backquoted item
/// starts with; "a pattern string" is the key `pattern`.
fn keys_in(stderr: &str) -> Vec<String> {
    let line = stderr.lines().next().expect("an error line");
    let listed = line.split("expected ").nth(1).expect("a list of keys");
    let mut keys: Vec<String> = listed
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|item| {
            item.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect();
    if listed.starts_with("a pattern string") {
        keys.insert(0, "pattern".into());
    }
    keys
}

fn ui_case(name: &str) -> String {
    let path = format!(
        "{}/tests/ui/cases/{name}.stderr",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).expect("the UI case's expected error")
}

/// The keys covered below, by attribute.
const FIELD_KEYS: &[&str] = &[
    "pattern", "nested", "scope", "rename", "name", "prefix", "count", "min", "tied", "tie_key",
    "dim",
];
const STRUCT_KEYS: &[&str] = &["where", "given", "config", "ignore", "crate"];
const CHECK_KEYS: &[&str] = &[
    "self",
    "ret",
    "where",
    "debug_only",
    "panic",
    "map_err",
    "crate",
    "trace",
    "each_let",
];
const SPEC_TOP: &[&str] = &[
    "name",
    "given",
    "where",
    "config",
    "repeat",
    "ignore",
    "prefixes",
    "dtype",
    "tensors",
    "head_tensors",
    "blocks",
];
const SPEC_ENTRY: &[&str] = &[
    "shape", "optional", "dtype", "tied", "tie_key", "block", "one_of", "first", "rename",
];

#[test]
fn every_key_the_macros_and_spec_files_accept_is_covered_here() {
    let sorted = |k: &[&str]| {
        let mut v: Vec<String> = k.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    let listed = |case: &str| {
        let mut v = keys_in(&ui_case(case));
        v.sort();
        v
    };
    assert_eq!(listed("attr_unknown_field_key"), sorted(FIELD_KEYS));
    assert_eq!(listed("attr_unknown_struct_key"), sorted(STRUCT_KEYS));
    assert_eq!(listed("check_unknown_key"), sorted(CHECK_KEYS));
    assert_eq!(sorted(shapes::spec::TOP_KEYS), sorted(SPEC_TOP));
    assert_eq!(sorted(shapes::spec::ENTRY_KEYS), sorted(SPEC_ENTRY));
}

// ----- #[shape(...)] on a field -----

#[derive(Shaped)]
struct Inner {
    #[shape("(n,)")]
    b: Shape,
}

#[derive(Shaped)]
struct InnerM {
    #[shape("(m,)")]
    b: Shape,
}

#[test]
fn field_keys_pattern_nested_scope_rename() {
    #[derive(Shaped)]
    struct WithPattern {
        #[shape("(n, n)")]
        w: Shape,
    }
    #[derive(Shaped)]
    #[allow(dead_code)]
    struct WithoutPattern {
        #[shape("(k,)")]
        x: Shape,
        w: Shape,
    }
    let with = WithPattern { w: s([2, 3]) }.verify();
    let without = WithoutPattern {
        x: s([1]),
        w: s([2, 3]),
    }
    .verify();
    assert!(with.is_err() && without.is_ok());

    #[derive(Shaped)]
    struct Nested {
        #[shape("(n,)")]
        a: Shape,
        #[shape(nested)]
        inner: Inner,
    }
    #[derive(Shaped)]
    #[allow(dead_code)]
    struct NotNested {
        #[shape("(n,)")]
        a: Shape,
        inner: Inner,
    }
    let inner = || Inner { b: s([4]) };
    assert!(
        Nested {
            a: s([3]),
            inner: inner()
        }
        .verify()
        .is_err()
    );
    assert!(
        NotNested {
            a: s([3]),
            inner: inner()
        }
        .verify()
        .is_ok()
    );

    #[derive(Shaped)]
    struct Own {
        #[shape("(n,)")]
        a: Shape,
        #[shape(nested, scope = "own")]
        inner: Inner,
    }
    assert!(
        Own {
            a: s([3]),
            inner: inner()
        }
        .verify()
        .is_ok()
    );

    #[derive(Shaped)]
    struct Renamed {
        #[shape("(n,)")]
        a: Shape,
        #[shape(nested, rename(m = "n"))]
        inner: InnerM,
    }
    #[derive(Shaped)]
    struct Unrenamed {
        #[shape("(n,)")]
        a: Shape,
        #[shape(nested)]
        inner: InnerM,
    }
    let inner = || InnerM { b: s([4]) };
    assert!(
        Renamed {
            a: s([3]),
            inner: inner()
        }
        .verify()
        .is_err()
    );
    assert!(
        Unrenamed {
            a: s([3]),
            inner: inner()
        }
        .verify()
        .is_ok()
    );
}

#[test]
fn field_keys_name_prefix_count_min() {
    #[derive(Shaped)]
    struct Named {
        #[shape("(n,)", name = "w.weight")]
        w: Shape,
    }
    #[derive(Shaped)]
    struct Unnamed {
        #[shape("(n,)")]
        w: Shape,
    }
    let header = src(&[("w.weight", &[3])]);
    assert!(Named::verify_source(&header).is_ok());
    assert!(Unnamed::verify_source(&header).is_err());

    #[derive(Shaped)]
    struct Prefixed {
        #[shape(nested, prefix = "enc")]
        inner: Inner,
    }
    #[derive(Shaped)]
    struct Unprefixed {
        #[shape(nested)]
        inner: Inner,
    }
    let header = src(&[("enc.b", &[3])]);
    assert!(Prefixed::verify_source(&header).is_ok());
    assert!(Unprefixed::verify_source(&header).is_err());

    #[derive(Shaped)]
    struct Counted {
        #[shape("(n_layers,)")]
        ids: Shape,
        #[shape(nested, count = "n_layers")]
        layers: Vec<Inner>,
    }
    #[derive(Shaped)]
    struct Uncounted {
        #[shape("(n_layers,)")]
        ids: Shape,
        #[shape(nested)]
        layers: Vec<Inner>,
    }
    let layers = || vec![Inner { b: s([4]) }, Inner { b: s([4]) }];
    assert!(
        Counted {
            ids: s([3]),
            layers: layers()
        }
        .verify()
        .is_err()
    );
    assert!(
        Uncounted {
            ids: s([3]),
            layers: layers()
        }
        .verify()
        .is_ok()
    );

    #[derive(Shaped)]
    struct AtLeastNone {
        #[shape("(n,)")]
        w: Shape,
        #[shape(nested, min = 0)]
        layers: Vec<Inner>,
    }
    #[derive(Shaped)]
    struct AtLeastOne {
        #[shape("(n,)")]
        w: Shape,
        #[shape(nested)]
        layers: Vec<Inner>,
    }
    let header = src(&[("w", &[3])]);
    assert!(AtLeastNone::verify_source(&header).is_ok());
    assert!(AtLeastOne::verify_source(&header).is_err());
}

#[test]
fn field_key_dim() {
    // A `usize` field holding the size of `heads`: bound with the tensors in memory, and not a
    // checkpoint's tensor.
    #[derive(Shaped)]
    struct Attention {
        #[shape("(heads * head_dim, d)")]
        wq: Shape,
        #[shape(dim = "heads")]
        num_heads: usize,
        #[shape(dim = "head_dim")]
        head_dim: usize,
    }
    let ok = Attention {
        wq: Shape::from([12, 5]),
        num_heads: 3,
        head_dim: 4,
    };
    let b = ok.verify().unwrap();
    assert_eq!((b.get("heads"), b.get("head_dim")), (Some(3), Some(4)));
    let wrong = Attention { num_heads: 4, ..ok };
    let e = wrong.verify().unwrap_err().to_string();
    assert!(e.contains("wq"), "{e}");
    let header = src(&[("wq", &[12, 5])]);
    let e = Attention::verify_source(&header).unwrap_err().to_string();
    assert!(!e.contains("num_heads"), "{e}");
}

#[test]
fn field_keys_tied_and_tie_key() {
    // The head's pattern is checked against the embedding it is tied to, and here it is
    // the embedding's transpose.
    #[derive(Shaped)]
    struct Tied {
        #[shape("(v, d)")]
        embed: Shape,
        #[shape("(d, v)", tied = "embed")]
        head: Option<Shape>,
    }
    #[derive(Shaped)]
    struct Untied {
        #[shape("(v, d)")]
        embed: Shape,
        #[shape("(d, v)")]
        head: Option<Shape>,
    }
    let header = src(&[("embed", &[10, 4])]);
    assert!(Tied::verify_source(&header).is_err());
    assert!(Untied::verify_source(&header).is_ok());

    #[derive(Shaped)]
    struct Keyed {
        #[shape("(v, d)")]
        embed: Shape,
        #[shape("(v, d)", tied = "embed", tie_key = "tie_word_embeddings")]
        head: Option<Shape>,
    }
    #[derive(Shaped)]
    struct Unkeyed {
        #[shape("(v, d)")]
        embed: Shape,
        #[shape("(v, d)", tied = "embed")]
        head: Option<Shape>,
    }
    let (_dir, c) = ckpt(
        "tie-key",
        &[("embed", &[10, 4])],
        r#"{"tie_word_embeddings": false}"#,
    );
    assert!(Keyed::verify_source(&c).is_err());
    assert!(Unkeyed::verify_source(&c).is_ok());
}

// ----- #[shapes(...)] on the struct -----

#[test]
fn struct_keys_where_given_config_ignore_crate() {
    #[derive(Shaped)]
    #[shapes(where = "n = 2")]
    struct Where {
        #[shape("(n,)")]
        w: Shape,
    }
    #[derive(Shaped)]
    struct NoWhere {
        #[shape("(n,)")]
        w: Shape,
    }
    assert!(Where { w: s([3]) }.verify().is_err());
    assert!(NoWhere { w: s([3]) }.verify().is_ok());

    // `given`: the caller's value is checked; without it, `verify()` says to pass it.
    #[derive(Shaped)]
    #[shapes(given = "heads")]
    struct Given {
        #[shape("(heads * head_dim,)")]
        w: Shape,
    }
    let g = Given { w: s([12]) };
    assert!(g.verify_with(Bindings::new().bind("heads", 3)).is_ok());
    assert!(g.verify_with(Bindings::new().bind("heads", 5)).is_err());
    assert!(g.verify().is_err());

    #[derive(Shaped)]
    #[shapes(config(n = "width"))]
    struct Config {
        #[shape("(n,)")]
        w: Shape,
    }
    let (_dir, c) = ckpt("config-key", &[("w", &[4])], r#"{"width": 5}"#);
    assert!(Config::verify_source(&c).is_err());
    assert!(NoWhere::verify_source(&c).is_ok());

    #[derive(Shaped)]
    #[shapes(ignore = "pooler.*")]
    struct Ignore {
        #[shape("(n,)")]
        w: Shape,
    }
    let header = src(&[("w", &[3]), ("pooler.dense.weight", &[3, 3])]);
    assert!(Ignore::verify_source(&header).is_ok());
    assert!(NoWhere::verify_source(&header).is_err());

    // `crate`: generated code finds the library through the path given; a path that does
    // not lead to it would not compile, so the verdict is that this one verifies.
    mod lib {
        pub use shapes::*;
    }
    #[derive(Shaped)]
    #[shapes(crate = "lib", where = "n = 2")]
    struct Crate {
        #[shape("(n,)")]
        w: Shape,
    }
    assert!(Crate { w: s([3]) }.verify().is_err());
    assert!(Crate { w: s([2]) }.verify().is_ok());
}

// ----- #[shapes::check(...)] -----

#[check(ret = "(n,)")]
fn with_ret(#[shape("(n,)")] x: &Shape) -> Result<Shape, ShapeError> {
    Ok(Shape::from([x.dims()[0] + 1]))
}

#[check]
fn without_ret(#[shape("(n,)")] x: &Shape) -> Result<Shape, ShapeError> {
    Ok(Shape::from([x.dims()[0] + 1]))
}

#[check(where = "n = 2")]
fn with_where(#[shape("(n,)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

#[check(panic)]
fn with_panic(#[shape("(n, n)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

#[check]
fn without_panic(#[shape("(n, n)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

fn mapped(e: ShapeError) -> String {
    format!("mapped: {e}")
}

#[check(map_err = "mapped")]
fn with_map_err(#[shape("(n, n)")] x: &Shape) -> Result<usize, String> {
    Ok(x.dims()[0])
}

#[check(debug_only)]
fn with_debug_only(#[shape("(n, n)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

mod renamed_lib {
    pub use shapes::*;
}

#[check(crate = "renamed_lib")]
fn with_crate(#[shape("(n, n)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

// `trace` reports where the body's shapes are lost, as `deprecated` warnings at each place
// (allowed here, so the build passes; checks run as without it).
#[check(trace)]
#[allow(deprecated)]
fn with_trace(#[shape("(n, n)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

/// A tensor whose `t()` forgets to transpose: a wrong shape only a run can show.
struct Tensor(Shape);

impl shapes::verify::HasShape for Tensor {
    type Dims<'a> = &'a [usize];
    fn shape(&self) -> &[usize] {
        self.0.dims()
    }
}

impl Tensor {
    fn t(&self) -> Result<Tensor, ShapeError> {
        Ok(Tensor(self.0.clone()))
    }
}

// `each_let`: the tracked `let y` is (d, n), checked when it runs (debug builds).
#[check(each_let)]
fn with_each_let(#[shape("(n, d)")] x: &Tensor) -> Result<usize, ShapeError> {
    let y = x.t()?;
    Ok(y.0.dims()[0])
}

#[check]
fn without_each_let(#[shape("(n, d)")] x: &Tensor) -> Result<usize, ShapeError> {
    let y = x.t()?;
    Ok(y.0.dims()[0])
}

#[derive(Shaped)]
struct Model {
    #[shape("(d,)")]
    norm: Shape,
}

impl Model {
    #[check(self)]
    fn shared(&self, #[shape("(d,)")] x: &Shape) -> Result<usize, ShapeError> {
        Ok(x.dims()[0])
    }

    #[check]
    fn own(&self, #[shape("(d,)")] x: &Shape) -> Result<usize, ShapeError> {
        Ok(x.dims()[0])
    }
}

#[test]
fn check_keys() {
    let x = s([3]);
    assert!(with_ret(&x).is_err() && without_ret(&x).is_ok());
    assert!(with_where(&x).is_err() && without_ret(&x).is_ok());
    let bad = s([2, 3]);
    assert!(std::panic::catch_unwind(|| with_panic(&bad)).is_err());
    assert!(matches!(
        std::panic::catch_unwind(|| without_panic(&bad)),
        Ok(Err(_))
    ));
    let e = with_map_err(&bad).unwrap_err();
    assert!(e.starts_with("mapped: with_map_err.x: axis 1"), "{e}");
    assert!(
        without_panic(&bad)
            .unwrap_err()
            .to_string()
            .starts_with("without_panic.x")
    );
    // `debug_only` checks in a build with debug assertions only: `cargo test --release`
    // shows the other verdict.
    assert_eq!(with_debug_only(&bad).is_err(), cfg!(debug_assertions));
    assert!(with_crate(&bad).is_err() && with_crate(&s([2, 2])).is_ok());
    let m = Model { norm: s([4]) };
    assert!(m.shared(&x).is_err() && m.own(&x).is_ok());
    // `trace`: with warnings denied, the build of a traced body fails at each place a shape
    // is lost (an opaque call, a loop's reassignment); without the key it has no warning.
    assert!(with_trace(&bad).is_err() && with_trace(&s([2, 2])).is_ok());
    let t = Tensor(s([2, 3]));
    assert!(without_each_let(&t).is_ok());
    let checked = cfg!(debug_assertions) && shapes::__private::CHECKS;
    match with_each_let(&t) {
        Err(e) => {
            assert!(checked);
            assert!(e.to_string().starts_with("with_each_let.y (line "), "{e}");
        }
        Ok(_) => assert!(!checked),
    }
    let traced = ui_case("flow_trace");
    assert_eq!(traced.matches("shape tracking lost").count(), 2, "{traced}");
    assert!(
        traced.contains("`opaque(x)` is not in the vocabulary"),
        "{traced}"
    );
}

// ----- spec files -----

fn plan_verdict(text: &str, header: &BTreeMap<String, Shape>) -> bool {
    let spec = Spec::from_toml("s.toml", text).expect("a valid spec");
    spec.plan()
        .verify_source_options(header, SourceOptions::new().ignore(spec.ignored().to_vec()))
        .is_ok()
}

#[test]
fn spec_top_keys() {
    let header = src(&[("w", &[3])]);
    // `name` is the root of error paths.
    let named =
        Spec::from_toml("s.toml", "name = \"Tiny\"\n[tensors]\n\"w\" = \"(2,)\"\n").expect("valid");
    let e = named.plan().verify_source(&header).unwrap_err();
    assert!(e.to_string().starts_with("Tiny.w"), "{e}");
    let unnamed = Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(2,)\"\n").expect("valid");
    let e = unnamed.plan().verify_source(&header).unwrap_err();
    assert!(e.to_string().starts_with("Model.w"), "{e}");

    assert!(!plan_verdict(
        "where = [\"n = 2\"]\n[tensors]\n\"w\" = \"(n,)\"\n",
        &header
    ));
    assert!(plan_verdict("[tensors]\n\"w\" = \"(n,)\"\n", &header));

    let header2 = src(&[("w", &[3]), ("pooler.dense.weight", &[3, 3])]);
    assert!(plan_verdict(
        "ignore = [\"pooler.*\"]\n[tensors]\n\"w\" = \"(n,)\"\n",
        &header2
    ));
    assert!(!plan_verdict("[tensors]\n\"w\" = \"(n,)\"\n", &header2));

    let layers = src(&[("ids", &[3]), ("layers.0.w", &[1]), ("layers.1.w", &[1])]);
    let repeated = "[repeat]\n\"layers\" = \"n\"\n[tensors]\n\"ids\" = \"(n,)\"\n\"layers.{i}.w\" = \"(1,)\"\n";
    assert!(!plan_verdict(repeated, &layers));
    assert!(plan_verdict(
        "[tensors]\n\"ids\" = \"(n,)\"\n\"layers.{i}.w\" = \"(1,)\"\n",
        &layers
    ));

    // `tensors` is what is checked: a spec without it is an error, not a spec that passes.
    assert!(Spec::from_toml("s.toml", "name = \"M\"\n").is_err());
    // `blocks`: a tensor that uses one is checked by its patterns.
    let blocks = "[tensors]\n\"x\" = { block = \"b\" }\n[blocks.b]\n\"w\" = \"(2,)\"\n";
    assert!(!plan_verdict(blocks, &src(&[("x.w", &[3])])));
    assert!(Spec::from_toml("s.toml", "[tensors]\n\"x\" = { block = \"b\" }\n").is_err());

    // `given` and `config` need the checkpoint's config.
    let (_dir, c) = ckpt("spec-config", &[("w", &[4])], r#"{"width": 5}"#);
    let with = Spec::from_toml(
        "s.toml",
        "[config]\nn = \"width\"\n[tensors]\n\"w\" = \"(n,)\"\n",
    )
    .expect("valid");
    let without = Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(n,)\"\n").expect("valid");
    assert!(!with.check(&c).ok() && without.check(&c).ok());
    let given = Spec::from_toml(
        "s.toml",
        "given = [\"heads\"]\n[tensors]\n\"w\" = \"(heads * head_dim,)\"\n",
    )
    .expect("valid");
    let options = shapes::CheckOptions::new();
    assert!(given.check_with(&c, &options).is_err());
    assert!(
        given
            .check_with(&c, &options.clone().set("heads", 2))
            .is_ok_and(|r| r.ok())
    );
    assert!(
        !given
            .check_with(&c, &options.set("heads", 3))
            .is_ok_and(|r| r.ok())
    );
}

#[test]
fn spec_entry_keys() {
    let shape = |key: &str| format!("[tensors]\n\"w\" = {{ {key} = \"(2,)\" }}\n");
    assert!(!plan_verdict(&shape("shape"), &src(&[("w", &[3])])));
    assert!(Spec::from_toml("s.toml", &shape("shap")).is_err());

    let header = src(&[("w", &[3])]);
    let optional = "[tensors]\n\"w\" = \"(n,)\"\n\"b\" = { shape = \"(n,)\", optional = true }\n";
    assert!(plan_verdict(optional, &header));
    assert!(!plan_verdict(&optional.replace("true", "false"), &header));

    let embed = src(&[("embed", &[10, 4])]);
    let tied =
        "[tensors]\n\"embed\" = \"(v, d)\"\n\"head\" = { shape = \"(v, d)\", tied = \"embed\" }\n";
    assert!(plan_verdict(tied, &embed));
    assert!(!plan_verdict(
        "[tensors]\n\"embed\" = \"(v, d)\"\n\"head\" = \"(v, d)\"\n",
        &embed
    ));

    let (_dir, c) = ckpt("spec-tie-key", &[("embed", &[10, 4])], r#"{"tie": false}"#);
    let keyed = Spec::from_toml(
        "s.toml",
        "[tensors]\n\"embed\" = \"(v, d)\"\n\"head\" = { shape = \"(v, d)\", tied = \"embed\", tie_key = \"tie\" }\n",
    )
    .expect("valid");
    let unkeyed = Spec::from_toml("s.toml", tied).expect("valid");
    assert!(!keyed.check(&c).ok() && unkeyed.check(&c).ok());

    let blocks = |use_: &str| {
        format!("[tensors]\n\"a\" = \"(n,)\"\n\"x\" = {{ {use_} }}\n[blocks.b]\n\"w\" = \"(m,)\"\n")
    };
    let header = src(&[("a", &[3]), ("x.w", &[4])]);
    assert!(plan_verdict(&blocks("block = \"b\""), &header));
    assert!(!plan_verdict(
        &blocks("block = \"b\", rename = { m = \"n\" }"),
        &header
    ));
    assert!(Spec::from_toml("s.toml", &blocks("blok = \"b\"")).is_err());
}

#[test]
fn spec_layout_keys() {
    // `prefixes`: the tensors under `bert.` are the spec's.
    let task = src(&[("bert.w", &[3])]);
    assert!(plan_verdict(
        "prefixes = [\"bert\"]\n[tensors]\n\"w\" = \"(n,)\"\n",
        &task
    ));
    assert!(!plan_verdict("[tensors]\n\"w\" = \"(n,)\"\n", &task));

    // `head_tensors`: a tensor outside the prefix is described.
    let with_head = src(&[("m.w", &[3]), ("h", &[3])]);
    assert!(plan_verdict(
        "prefixes = [\"m\", \"\"]\n[tensors]\n\"w\" = \"(n,)\"\n[head_tensors]\n\"h\" = \"(n,)\"\n",
        &with_head
    ));
    assert!(!plan_verdict(
        "prefixes = [\"m\", \"\"]\n[tensors]\n\"w\" = \"(n,)\"\n",
        &with_head
    ));

    // `dtype`, at the top and on a tensor: the checkpoint's tensors are F16.
    let (_dir, c) = ckpt("spec-dtype", &[("w", &[3])], "{}");
    let verdict = |text: &str| {
        Spec::from_toml("s.toml", text)
            .expect("valid")
            .check(&c)
            .ok()
    };
    assert!(!verdict("dtype = \"BF16\"\n[tensors]\n\"w\" = \"(n,)\"\n"));
    assert!(!verdict(
        "[tensors]\n\"w\" = { shape = \"(n,)\", dtype = \"BF16\" }\n"
    ));
    assert!(verdict("[tensors]\n\"w\" = { shape = \"(n,)\" }\n"));

    // `one_of`: either block, where `block` takes one.
    let blocks = "[blocks.a]\n\"w\" = \"(n,)\"\n[blocks.b]\n\"v\" = \"(n,)\"\n";
    let header = src(&[("x.v", &[3])]);
    assert!(plan_verdict(
        &format!("[tensors]\n\"x\" = {{ one_of = [\"a\", \"b\"] }}\n{blocks}"),
        &header
    ));
    assert!(!plan_verdict(
        &format!("[tensors]\n\"x\" = {{ block = \"a\" }}\n{blocks}"),
        &header
    ));

    // `first`: the config says the first element takes the first block.
    let (_dir2, c2) = ckpt(
        "spec-first",
        &[("l.0.v", &[3]), ("l.1.v", &[3])],
        r#"{"k_dense": 1}"#,
    );
    let first = Spec::from_toml(
        "s.toml",
        &format!(
            "[config]\nk = \"k_dense\"\n[tensors]\n\"l.{{i}}\" = {{ one_of = [\"a\", \"b\"], first = \"k\" }}\n{blocks}"
        ),
    )
    .expect("valid");
    let by_content = Spec::from_toml(
        "s.toml",
        &format!("[tensors]\n\"l.{{i}}\" = {{ one_of = [\"a\", \"b\"] }}\n{blocks}"),
    )
    .expect("valid");
    assert!(!first.check(&c2).ok() && by_content.check(&c2).ok());
}
