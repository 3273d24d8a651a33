//! `verify_source`: the derive's checks run against shapes read by name from a checkpoint
//! header or a map, with PyTorch-style missing / unexpected reporting.

use std::collections::BTreeMap;

use shapes::{
    Bindings, Shape, ShapeErrorKind, Shaped,
    checkpoint::SafetensorsHeader,
    verify::{FieldPath, Origin, Segment, SourceOptions},
};

use crate::common::st_header;

#[derive(Shaped)]
#[shapes(given = "heads")]
struct Attn<T> {
    #[shape("(heads * head_dim, d_model)", name = "query.weight")]
    q: T,
    #[shape("(kv_heads * head_dim, d_model)", name = "key.weight")]
    k: T,
    #[shape("(heads * head_dim,)", name = "query.bias")]
    q_b: Option<T>,
}

#[derive(Shaped)]
struct Layer<T> {
    #[shape(nested, prefix = "attention.self")]
    attn: Attn<T>,
    #[shape("(d_model,)", name = "norm.weight")]
    norm: T,
}

#[derive(Shaped)]
struct Encoder<T> {
    #[shape(nested, prefix = "layer", count = "n_layers")]
    layers: Vec<Layer<T>>,
}

#[derive(Shaped)]
struct Model<T> {
    #[shape("(vocab, d_model)", name = "embeddings.word_embeddings.weight")]
    embed: T,
    #[shape(nested, prefix = "encoder")]
    encoder: Encoder<T>,
    #[shape("(d_model, d_model)")]
    head: Option<T>,
}

type Src = BTreeMap<String, Shape>;

fn put(src: &mut Src, name: &str, dims: &[usize]) {
    src.insert(name.to_string(), Shape::new(dims));
}

/// vocab 50, d_model 16, heads 4 (pre-bound), head_dim 4, kv_heads 2.
fn checkpoint(layers: &[usize]) -> Src {
    let mut s = Src::new();
    put(&mut s, "embeddings.word_embeddings.weight", &[50, 16]);
    for i in layers {
        let p = format!("encoder.layer.{i}");
        put(
            &mut s,
            &format!("{p}.attention.self.query.weight"),
            &[16, 16],
        );
        put(&mut s, &format!("{p}.attention.self.key.weight"), &[8, 16]);
        put(&mut s, &format!("{p}.attention.self.query.bias"), &[16]);
        put(&mut s, &format!("{p}.norm.weight"), &[16]);
    }
    s
}

fn heads() -> Bindings {
    Bindings::new().bind("heads", 4)
}

#[test]
fn renamed_prefixed_nested_names_and_discovered_layer_count() {
    let src = checkpoint(&[0, 1, 2]);
    let b = Model::<Shape>::verify_source_with(&src, heads()).expect("consistent checkpoint");
    assert_eq!(b.get("vocab"), Some(50));
    assert_eq!(b.get("d_model"), Some(16));
    assert_eq!(b.get("head_dim"), Some(4));
    assert_eq!(b.get("kv_heads"), Some(2));
    assert_eq!(b.get("n_layers"), Some(3));
    assert_eq!(
        b.origin("n_layers"),
        Some(Origin::Field {
            path: FieldPath::new(
                "Model",
                &[Segment::Field("encoder"), Segment::Field("layers")]
            ),
            axis: 0,
        })
    );
    assert_eq!(
        b.origin("vocab"),
        Some(Origin::Field {
            path: FieldPath::new("Model", &[Segment::Field("embed")]),
            axis: 0,
        })
    );
}

#[test]
fn same_checker_as_verify_in_memory() {
    // The same facts in memory give the same values, including the element count.
    let layer = || Layer {
        attn: Attn {
            q: Shape::from([16, 16]),
            k: Shape::from([8, 16]),
            q_b: Some(Shape::from([16])),
        },
        norm: Shape::from([16]),
    };
    let m = Model {
        embed: Shape::from([50, 16]),
        encoder: Encoder {
            layers: vec![layer(), layer(), layer()],
        },
        head: None,
    };
    let mem = m.verify_with(heads()).unwrap();
    let src = Model::<Shape>::verify_source_with(&checkpoint(&[0, 1, 2]), heads()).unwrap();
    for b in mem.iter() {
        assert_eq!(src.value(&b.name), Some(b.value.clone()), "{}", b.name);
        assert_eq!(src.origin(&b.name), Some(b.origin.clone()), "{}", b.name);
    }
    assert_eq!(mem.len(), src.len());
    assert_eq!(mem.get("n_layers"), Some(3));
}

#[test]
fn layer_count_can_be_pre_bound_and_conflicts_are_reported() {
    let src = checkpoint(&[0, 1, 2]);
    let ok = Model::<Shape>::verify_source_with(&src, heads().bind("n_layers", 3)).unwrap();
    assert_eq!(ok.origin("n_layers"), Some(Origin::Given));

    let err = Model::<Shape>::verify_source_with(&src, heads().bind("n_layers", 4)).unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    let e = &err.errors()[0];
    assert_eq!(e.path.to_string(), "Model.encoder.layers");
    assert_eq!(
        e.to_string(),
        "Model.encoder.layers: expected 4 elements under encoder.layer.* (n_layers = 4), found 3: missing encoder.layer.3.*\n  n_layers = 4 bound by the caller\n  pattern (n_layers,) = the number of elements"
    );
    // The same conflict in memory.
    let m = Encoder::<Shape> { layers: Vec::new() };
    let e = m
        .verify_with(Bindings::new().bind("n_layers", 2))
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("Encoder.layers: axis 0 expected n_layers = 2, found 0"),
        "{e}"
    );
}

#[test]
fn a_gap_in_the_layers_is_reported_and_later_layers_are_unexpected() {
    let src = checkpoint(&[0, 1, 3]);
    let err = Model::<Shape>::verify_source_with(&src, heads()).unwrap_err();
    let gap = err
        .errors()
        .iter()
        .find(|e| matches!(e.kind, ShapeErrorKind::Gap { .. }))
        .expect("a gap error");
    assert_eq!(
        gap.kind,
        ShapeErrorKind::Gap {
            prefix: "encoder.layer".into(),
            index: 2,
            later: vec![3],
        }
    );
    assert_eq!(gap.path.to_string(), "Model.encoder.layers");
    assert!(
        gap.to_string().contains(
            "no tensor under encoder.layer.2 but some under encoder.layer.3: the elements must be numbered 0, 1, 2, … without gaps, so only the first 2 were checked"
        ),
        "{gap}"
    );
    // Layer 3 was not checked, so strict mode lists its tensors as unexpected.
    assert_eq!(err.unexpected_tensors().len(), 4);
    assert!(
        err.unexpected_tensors()
            .iter()
            .all(|n| n.starts_with("encoder.layer.3."))
    );
}

#[test]
fn missing_and_unexpected_are_two_lists_plus_the_mismatches() {
    let mut src = checkpoint(&[0, 1]);
    src.remove("encoder.layer.1.norm.weight");
    src.remove("embeddings.word_embeddings.weight");
    put(&mut src, "encoder.layer.1.norm.bias", &[16]);
    put(&mut src, "pooler.dense.weight", &[16, 16]);
    put(
        &mut src,
        "encoder.layer.0.attention.self.key.weight",
        &[6, 16],
    );
    let err = Model::<Shape>::verify_source_with(&src, heads()).unwrap_err();
    assert_eq!(
        err.missing_tensors(),
        [
            "embeddings.word_embeddings.weight",
            "encoder.layer.1.norm.weight"
        ]
    );
    assert_eq!(
        err.unexpected_tensors(),
        ["encoder.layer.1.norm.bias", "pooler.dense.weight"]
    );
    let mismatches: Vec<String> = err.mismatches().map(|e| e.to_string()).collect();
    // kv_heads is bound by layer 0 (6 / 4 has no whole solution) — the one real mismatch.
    assert_eq!(mismatches.len(), 1, "{err}");
    assert!(
        mismatches[0].starts_with(
            "Model.encoder.layers[0].attn.k (tensor \"encoder.layer.0.attention.self.key.weight\"): axis 0 "
        ),
        "{}",
        mismatches[0]
    );
    // A missing tensor names its field path as well as its name.
    let missing = err
        .errors()
        .iter()
        .find(|e| matches!(e.kind, ShapeErrorKind::Missing { .. }))
        .unwrap();
    assert_eq!(
        missing.to_string(),
        "Model.embed: tensor \"embeddings.word_embeddings.weight\" is missing from the source\n  pattern (vocab, d_model)"
    );
    let text = err.to_string();
    assert!(text.starts_with("4 shape errors:"), "{text}");
    assert!(text.contains(
        "Model: the source has 2 tensor(s) the struct does not describe: encoder.layer.1.norm.bias, pooler.dense.weight"
    ));
}

#[test]
fn non_strict_mode_ignores_unexpected_tensors_only() {
    let mut src = checkpoint(&[0, 1]);
    put(&mut src, "pooler.dense.weight", &[16, 16]);
    let strict = Model::<Shape>::verify_source_with(&src, heads()).unwrap_err();
    assert_eq!(strict.unexpected_tensors(), ["pooler.dense.weight"]);
    assert_eq!(strict.len(), 1);

    let opts = SourceOptions::new().bindings(heads()).strict(false);
    let b = Model::<Shape>::verify_source_options(&src, opts.clone()).unwrap();
    assert_eq!(b.get("n_layers"), Some(2));

    src.remove("encoder.layer.0.norm.weight");
    let err = Model::<Shape>::verify_source_options(&src, opts).unwrap_err();
    assert_eq!(err.missing_tensors(), ["encoder.layer.0.norm.weight"]);
    assert!(err.unexpected_tensors().is_empty());
}

#[test]
fn absent_option_fields_are_none_and_present_ones_are_checked() {
    let mut src = checkpoint(&[0]);
    src.remove("encoder.layer.0.attention.self.query.bias");
    let b = Model::<Shape>::verify_source_with(&src, heads()).unwrap();
    assert_eq!(b.get("d_model"), Some(16));

    put(&mut src, "head", &[16, 16]);
    assert!(Model::<Shape>::verify_source_with(&src, heads()).is_ok());
    put(&mut src, "head", &[16, 15]);
    let err = Model::<Shape>::verify_source_with(&src, heads()).unwrap_err();
    let e = err.first().unwrap();
    assert_eq!(e.path.to_string(), "Model.head");
    assert_eq!(e.tensor.as_deref(), Some("head"));
    assert_eq!((e.axis, e.found()), (Some(1), Some(15)));
    assert!(
        e.to_string().starts_with(
            "Model.head (tensor \"head\"): axis 1 expected d_model = 16, found 15\n  d_model = 16 bound by Model.embed axis 1\n  shape is (16, 15), pattern (d_model, d_model)"
        ),
        "{e}"
    );
}

#[test]
fn error_display_names_the_tensor_and_the_field_path() {
    let mut src = checkpoint(&[0, 1, 2]);
    put(
        &mut src,
        "encoder.layer.2.attention.self.query.weight",
        &[12, 16],
    );
    let err = Model::<Shape>::verify_source_with(&src, heads()).unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with(
            "Model.encoder.layers[2].attn.q (tensor \"encoder.layer.2.attention.self.query.weight\"): axis 0 expected heads * head_dim = 4 * 4 = 16, found 12"
        ),
        "{text}"
    );
    assert!(text.contains("head_dim = 4 bound by solving Model.encoder.layers[0].attn.q"));
    assert!(text.contains("shape is (12, 16), pattern (heads * head_dim, d_model)"));
}

#[derive(Shaped)]
struct Flat<T> {
    #[shape("(n, d)", count = "n_heads")]
    heads: Vec<T>,
    #[shape(nested, prefix = "")]
    norm: Norm<T>,
    #[shape(nested, prefix = "blocks", scope = "own")]
    blocks: Vec<Norm<T>>,
}

#[derive(Shaped)]
struct Norm<T> {
    #[shape("(d,)", name = "ln.weight")]
    w: T,
    #[shape("(d,)", name = "ln.bias")]
    b: T,
}

#[test]
fn vec_of_tensors_empty_prefix_and_own_scope() {
    let mut src = Src::new();
    put(&mut src, "heads.0", &[3, 8]);
    put(&mut src, "heads.1", &[3, 8]);
    put(&mut src, "ln.weight", &[8]);
    put(&mut src, "ln.bias", &[8]);
    // Each block has its own `d`.
    put(&mut src, "blocks.0.ln.weight", &[4]);
    put(&mut src, "blocks.0.ln.bias", &[4]);
    put(&mut src, "blocks.1.ln.weight", &[5]);
    put(&mut src, "blocks.1.ln.bias", &[5]);
    let b = Flat::<Shape>::verify_source(&src).unwrap();
    assert_eq!(
        (b.get("n_heads"), b.get("n"), b.get("d")),
        (Some(2), Some(3), Some(8))
    );

    put(&mut src, "heads.1", &[3, 9]);
    put(&mut src, "blocks.1.ln.bias", &[6]);
    let err = Flat::<Shape>::verify_source(&src).unwrap_err();
    let texts: Vec<String> = err.errors().iter().map(|e| e.to_string()).collect();
    assert_eq!(texts.len(), 2, "{err}");
    assert!(
        texts[0].starts_with("Flat.heads[1] (tensor \"heads.1\"): axis 1 expected d = 8, found 9"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].starts_with(
            "Flat.blocks[1].b (tensor \"blocks.1.ln.bias\"): axis 0 expected d = 5, found 6"
        ),
        "{}",
        texts[1]
    );
}

#[test]
fn reads_a_safetensors_header() {
    // The reader checks each tensor's byte span against its dtype and shape, so the file
    // carries (zeroed) data.
    let h = header_with_data(&[
        ("embeddings.word_embeddings.weight", &[50, 16]),
        ("encoder.layer.0.attention.self.query.weight", &[16, 16]),
        ("encoder.layer.0.attention.self.key.weight", &[8, 16]),
        ("encoder.layer.0.norm.weight", &[16]),
    ]);
    let b = Model::<Shape>::verify_source_with(&h, heads()).unwrap();
    assert_eq!((b.get("n_layers"), b.get("kv_heads")), (Some(1), Some(2)));
}

/// A safetensors file (as bytes, then parsed) with F32 tensors of these shapes.
fn header_with_data(tensors: &[(&str, &[usize])]) -> SafetensorsHeader {
    let (mut file, data_len) = st_header::header_bytes_of(tensors, "F32", 4);
    file.resize(file.len() + data_len, 0);
    SafetensorsHeader::from_bytes(&file).expect("well-formed header")
}
