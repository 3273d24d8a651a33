//! `#[derive(Shaped)]`: semantics, errors and their wording.

use shapes::{
    Bindings, Shape, ShapeErrorKind, Shaped,
    verify::{Dims, Origin},
};

fn s<const N: usize>(dims: [usize; N]) -> Shape {
    Shape::from(dims)
}

#[derive(Shaped)]
#[shapes(given = "heads")]
struct Attention<T> {
    #[shape("(d_model, heads * head_dim)")]
    w_q: T,
    #[shape("(d_model, kv_heads * head_dim)")]
    w_k: T,
    #[shape("(heads * head_dim,)")]
    b_q: Option<T>,
}

#[derive(Shaped)]
#[shapes(where = "d_model = heads * head_dim")]
struct Model<T> {
    #[shape("(vocab, d_model)")]
    embed: T,
    #[shape(nested)]
    layers: Vec<Attention<T>>,
    #[shape("(*batch, seq)")]
    tokens: T,
}

fn attention(d: usize, q: usize, k: usize) -> Attention<Shape> {
    Attention {
        w_q: s([d, q]),
        w_k: s([d, k]),
        b_q: Some(s([q])),
    }
}

fn model(layers: Vec<Attention<Shape>>) -> Model<Shape> {
    Model {
        embed: s([1000, 768]),
        layers,
        tokens: s([2, 3, 128]),
    }
}

#[test]
fn a_nested_model_verifies_with_a_prebound_config_value() {
    let m = model(vec![attention(768, 768, 256), attention(768, 768, 256)]);
    let b = m
        .verify_with(Bindings::new().bind("heads", 12))
        .expect("consistent model");
    assert_eq!(b.get("d_model"), Some(768));
    assert_eq!(b.get("vocab"), Some(1000));
    assert_eq!(b.get("heads"), Some(12));
    assert_eq!(b.get("head_dim"), Some(64));
    assert_eq!(b.get("kv_heads"), Some(4));
    assert_eq!(b.get("seq"), Some(128));
    assert_eq!(b.get_shape("batch"), Some(&s([2, 3])));
    assert_eq!(b.origin("heads"), Some(Origin::Given));
    assert_eq!(
        b.origin("d_model").map(|o| o.to_string()),
        Some("Model.embed axis 1".to_string())
    );
    assert_eq!(
        b.origin("head_dim").map(|o| o.to_string()),
        Some("solving Model.layers[0].w_q".to_string())
    );
}

#[test]
fn without_the_config_value_the_products_stay_unsolved() {
    let m = model(vec![attention(768, 768, 256)]);
    let errs = m.verify_all().unwrap_err();
    assert!(
        errs.errors()
            .iter()
            .all(|e| matches!(e.kind, ShapeErrorKind::Unsolved { .. })),
        "{errs}"
    );
    let first = errs.first().unwrap().to_string();
    assert!(
        first.starts_with("Model.layers[0].w_q: axis 1 cannot check heads * head_dim: heads, head_dim are never bound by any field"),
        "{first}"
    );
}

#[test]
fn mismatch_names_path_axis_expectation_provenance_and_shape() {
    let m = model(vec![
        attention(768, 768, 256),
        attention(768, 768, 256),
        attention(768, 768, 256),
        attention(768, 512, 256),
    ]);
    let err = m
        .verify_with(Bindings::new().bind("heads", 12))
        .unwrap_err();
    assert_eq!(err.path.to_string(), "Model.layers[3].w_q");
    assert_eq!(err.axis, Some(1));
    assert_eq!(err.found(), Some(512));
    assert_eq!(
        err.to_string(),
        "Model.layers[3].w_q: axis 1 expected heads * head_dim = 12 * 64 = 768, found 512\n  \
         heads = 12 bound by the caller; head_dim = 64 bound by solving Model.layers[0].w_q\n  \
         shape is (768, 512), pattern (d_model, heads * head_dim)"
    );
}

#[test]
fn verify_all_reports_every_mismatch_in_declaration_order() {
    let mut bad = attention(768, 768, 256);
    bad.b_q = Some(s([700]));
    let m = Model {
        embed: s([1000, 768]),
        layers: vec![attention(768, 768, 256), attention(512, 768, 256), bad],
        tokens: s([2, 3, 128]),
    };
    let errs = m
        .verify_all_with(Bindings::new().bind("heads", 12))
        .unwrap_err();
    let paths: Vec<String> = errs.errors().iter().map(|e| e.path.to_string()).collect();
    assert_eq!(
        paths,
        [
            "Model.layers[1].w_q",
            "Model.layers[1].w_k",
            "Model.layers[2].b_q"
        ]
    );
    // And the same list again: deterministic.
    let again = m
        .verify_all_with(Bindings::new().bind("heads", 12))
        .unwrap_err();
    assert_eq!(errs, again);
    // The two mismatches with one cause (d_model) come first, under it.
    assert!(
        errs.to_string().starts_with(
            "3 shape errors:\n- 2 mismatches, one cause: d_model is 768, bound by Model.embed axis 1, but 512 in:\n    Model.layers[1].w_q axis 0\n    Model.layers[1].w_k axis 0\n- Model.layers[2].b_q: axis 0"
        ),
        "{errs}"
    );
}

#[test]
fn none_is_skipped_some_is_checked() {
    let mut a = attention(8, 8, 4);
    a.b_q = None;
    let b = a.verify_with(Bindings::new().bind("heads", 2)).unwrap();
    assert_eq!(b.get("head_dim"), Some(4));
    a.b_q = Some(s([9]));
    let e = a.verify_with(Bindings::new().bind("heads", 2)).unwrap_err();
    assert_eq!(e.path.to_string(), "Attention.b_q");
}

#[derive(Shaped)]
struct OutOfOrder {
    // Uses `d` before any field binds it: waits for a second pass.
    #[shape("(4 * d,)")]
    fused: Shape,
    #[shape("(d, d)")]
    square: Shape,
}

#[test]
fn order_independent_and_inverts_one_unknown() {
    let ok = OutOfOrder {
        fused: s([3072]),
        square: s([768, 768]),
    };
    assert_eq!(ok.verify().unwrap().get("d"), Some(768));
    // Solved first from the product when it is alone: 4 * d = 3072.
    #[derive(Shaped)]
    struct Alone {
        #[shape("(4 * d,)")]
        fused: Shape,
        #[shape("(d,)")]
        bias: Shape,
    }
    let b = Alone {
        fused: s([3072]),
        bias: s([768]),
    }
    .verify()
    .unwrap();
    assert_eq!(b.get("d"), Some(768));
    let e = Alone {
        fused: s([3070]),
        bias: s([768]),
    }
    .verify()
    .unwrap_err();
    assert!(
        matches!(e.kind, ShapeErrorKind::Dim { value: 3072, .. }),
        "{e}"
    );
}

#[test]
fn inexact_solution_is_its_own_error() {
    // `d` is determined by the product alone, and 3070 is not a multiple of 4.
    #[derive(Shaped)]
    struct Fused {
        #[shape("(4 * d,)")]
        fused: Shape,
    }
    let e = Fused { fused: s([3070]) }.verify().unwrap_err();
    assert!(matches!(e.kind, ShapeErrorKind::Arithmetic { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "Fused.fused: axis 0 4 * d = 3070 has no whole solution (3070 / 4 is not exact (remainder 2))\n  shape is (3070,), pattern (4 * d,)"
    );
}

#[test]
fn exact_division_must_be_exact() {
    #[derive(Shaped)]
    struct Sharded {
        #[shape("(vocab, d)")]
        full: Shape,
        #[shape("(vocab / tp, d)")]
        shard: Shape,
        #[shape("(tp,)")]
        ranks: Shape,
    }
    let ok = Sharded {
        full: s([32000, 8]),
        shard: s([8000, 8]),
        ranks: s([4]),
    };
    assert_eq!(ok.verify().unwrap().get("tp"), Some(4));
    let bad = Sharded {
        full: s([32001, 8]),
        shard: s([8000, 8]),
        ranks: s([4]),
    };
    let e = bad.verify().unwrap_err();
    assert!(matches!(e.kind, ShapeErrorKind::Arithmetic { .. }), "{e}");
    assert!(e.to_string().contains("32001 / 4 is not exact"), "{e}");
}

#[test]
fn convolution_arithmetic_with_floor_division() {
    #[derive(Shaped)]
    #[shapes(given = "p, s")]
    struct Conv {
        #[shape("(n, c, h, w)")]
        input: Shape,
        #[shape("(o, c, k, k)")]
        kernel: Shape,
        #[shape("(n, o, (h + 2*p - k) // s + 1, (w + 2*p - k) // s + 1)")]
        output: Shape,
    }
    let conv = Conv {
        input: s([8, 3, 32, 32]),
        kernel: s([16, 3, 3, 3]),
        output: s([8, 16, 16, 16]),
    };
    let pre = || Bindings::new().bind("p", 1).bind("s", 2);
    assert!(conv.verify_with(pre()).is_ok());
    let bad = Conv {
        output: s([8, 16, 15, 16]),
        ..conv
    };
    let e = bad.verify_with(pre()).unwrap_err();
    assert_eq!(e.axis, Some(2));
    assert!(
        e.to_string()
            .starts_with("Conv.output: axis 2 expected (h + 2 * p - k) // s + 1 = (32 + 2 * 1 - 3) // 2 + 1 = 16, found 15"),
        "{e}"
    );
}

#[test]
fn rank_literal_and_variadic_mismatches_have_their_own_kinds() {
    #[derive(Shaped)]
    struct Mixed {
        #[shape("(*batch, 3)")]
        rgb: Shape,
        #[shape("(*batch, h, w)")]
        mask: Shape,
        #[shape("(h, w)")]
        map: Shape,
    }
    let ok = Mixed {
        rgb: s([2, 5, 3]),
        mask: s([2, 5, 7, 9]),
        map: s([7, 9]),
    };
    let b = ok.verify().unwrap();
    assert_eq!(b.get_shape("batch"), Some(&s([2, 5])));

    let rank = Mixed {
        map: s([7, 9, 1]),
        ..ok.clone_shapes()
    };
    let e = rank.verify().unwrap_err();
    assert!(
        matches!(
            e.kind,
            ShapeErrorKind::Rank {
                expected: 2,
                at_least: false
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "Mixed.map: expected 2 dims, found 3\n  shape is (7, 9, 1), pattern (h, w)"
    );

    let lit = Mixed {
        rgb: s([2, 5, 4]),
        ..ok.clone_shapes()
    };
    let e = lit.verify().unwrap_err();
    assert!(
        matches!(e.kind, ShapeErrorKind::Literal { expected: 3 }),
        "{e}"
    );

    let var = Mixed {
        mask: s([2, 6, 7, 9]),
        ..ok.clone_shapes()
    };
    let e = var.verify().unwrap_err();
    assert!(matches!(e.kind, ShapeErrorKind::Variadic { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("Mixed.mask: axis 0 expected *batch = (2, 5), found (2, 6)"),
        "{e}"
    );

    let short = Mixed {
        rgb: s([]),
        ..ok.clone_shapes()
    };
    let e = short.verify().unwrap_err();
    assert!(
        matches!(
            e.kind,
            ShapeErrorKind::Rank {
                expected: 1,
                at_least: true
            }
        ),
        "{e}"
    );

    impl Mixed {
        fn clone_shapes(&self) -> Mixed {
            Mixed {
                rgb: self.rgb.clone(),
                mask: self.mask.clone(),
                map: self.map.clone(),
            }
        }
    }
}

#[test]
fn wildcards_ellipsis_and_broadcastable_dims() {
    #[derive(Shaped)]
    struct Loose {
        #[shape("(_, c)")]
        a: Shape,
        #[shape("(..., c)")]
        b: Shape,
        #[shape("(#c, #3)")]
        bias: Shape,
    }
    let ok = Loose {
        a: s([9, 4]),
        b: s([1, 2, 3, 4]),
        bias: s([1, 3]),
    };
    assert_eq!(ok.verify().unwrap().get("c"), Some(4));
    let ok1 = Loose {
        bias: s([4, 1]),
        ..ok
    };
    assert!(ok1.verify().is_ok());
    let bad = Loose {
        a: s([9, 4]),
        b: s([4]),
        bias: s([5, 1]),
    };
    let e = bad.verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Loose.bias");
    assert_eq!(e.axis, Some(0));
}

#[test]
fn collections_boxes_references_and_tuple_structs() {
    #[derive(Shaped)]
    struct Heads<'a> {
        #[shape("(d, d)")]
        each: Vec<Shape>,
        #[shape("(d,)")]
        arr: [Shape; 2],
        #[shape("(d,)")]
        boxed: Box<Shape>,
        #[shape("(d,)")]
        borrowed: &'a Shape,
        #[shape("(d,)")]
        maybe: Vec<Option<Shape>>,
    }
    let r = s([4]);
    let h = Heads {
        each: vec![s([4, 4]), s([4, 4]), s([4, 5])],
        arr: [s([4]), s([4])],
        boxed: Box::new(s([4])),
        borrowed: &r,
        maybe: vec![None, Some(s([3]))],
    };
    let errs = h.verify_all().unwrap_err();
    let paths: Vec<String> = errs.errors().iter().map(|e| e.path.to_string()).collect();
    assert_eq!(paths, ["Heads.each[2]", "Heads.maybe[1]"]);

    #[derive(Shaped)]
    struct Pair(
        #[shape("(n, m)")] Shape,
        #[shape("(m, n)")] Dims<[usize; 2]>,
    );
    assert!(Pair(s([2, 3]), Dims([3, 2])).verify().is_ok());
    let e = Pair(s([2, 3]), Dims([2, 3])).verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Pair.1");
}

#[test]
fn static_arrays_have_a_shape() {
    #[derive(Shaped)]
    struct Fixed {
        #[shape("(3, n)")]
        m: [[f32; 4]; 3],
        #[shape("(n,)")]
        v: [f64; 4],
    }
    let f = Fixed {
        m: [[0.0; 4]; 3],
        v: [0.0; 4],
    };
    assert_eq!(f.verify().unwrap().get("n"), Some(4));
}

/// Regression: the compile-time check of a static array's shape indexed past the end when a
/// trailing `...` or `*rest` covered no dims, so a matching pattern failed to compile.
#[test]
fn static_arrays_with_an_empty_trailing_rest_compile() {
    #[derive(Shaped)]
    struct Rest {
        #[shape("(3, ...)")]
        a: [f32; 3],
        #[shape("(2, 2, *rest)")]
        b: [[f64; 2]; 2],
        #[shape("(k, *tail)")]
        c: [u8; 5],
    }
    let r = Rest {
        a: [0.0; 3],
        b: [[0.0; 2]; 2],
        c: [0; 5],
    };
    let b = r.verify().unwrap();
    assert_eq!(b.get("k"), Some(5));
    assert_eq!(b.get_shape("tail").map(|s| s.rank()), Some(0));
    assert_eq!(b.get_shape("rest").map(|s| s.rank()), Some(0));
}

#[test]
fn own_scope_and_rename_for_nested_structs() {
    #[derive(Shaped)]
    struct Conv {
        #[shape("(c_out, c_in, 3, 3)")]
        w: Shape,
    }
    #[derive(Shaped)]
    struct Cnn {
        // Each layer has its own channels: own scope.
        #[shape(nested, scope = "own")]
        layers: Vec<Conv>,
    }
    let cnn = Cnn {
        layers: vec![
            Conv {
                w: s([16, 3, 3, 3]),
            },
            Conv {
                w: s([32, 16, 3, 3]),
            },
            Conv {
                w: s([32, 16, 5, 3]),
            },
        ],
    };
    let e = cnn.verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Cnn.layers[2].w");
    assert_eq!(e.axis, Some(2));

    // An own-scope field after a tensor field: its errors are under its own name only.
    #[derive(Shaped)]
    struct Stem {
        #[shape("(c,)")]
        scale: Shape,
        #[shape(nested, scope = "own")]
        conv: Conv,
    }
    let stem = Stem {
        scale: s([3]),
        conv: Conv { w: s([16, 3, 3]) },
    };
    let e = stem.verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Stem.conv.w");

    #[derive(Shaped)]
    struct Norm {
        #[shape("(d,)")]
        gamma: Shape,
    }
    #[derive(Shaped)]
    struct Block {
        #[shape("(d_model, d_model)")]
        proj: Shape,
        // The norm's `d` is this struct's `d_model`.
        #[shape(nested, rename(d = "d_model"))]
        norm: Norm,
    }
    let ok = Block {
        proj: s([8, 8]),
        norm: Norm { gamma: s([8]) },
    };
    assert_eq!(ok.verify().unwrap().get("d_model"), Some(8));
    let bad = Block {
        proj: s([8, 8]),
        norm: Norm { gamma: s([9]) },
    };
    // The pattern is written in this struct's names, as the explanation is: `Norm`'s `(d,)`
    // is `(d_model,)` here.
    let e = bad.verify().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Block.norm.gamma: axis 0 expected d_model = 8, found 9\n  d_model = 8 bound by Block.proj axis 0\n  shape is (9,), pattern (d_model,)"
    );
}

/// A nested field's renames apply to the errors under it, in each element of a list of it,
/// and end with it: a sibling after it writes its pattern in its own names, in memory and
/// read by name.
#[test]
fn renames_apply_under_their_field_only() {
    #[derive(Shaped)]
    struct Norm {
        #[shape("(d,)")]
        gamma: Shape,
    }
    #[derive(Shaped)]
    struct Block {
        #[shape("(d_model, d)")]
        proj: Shape,
        #[shape(nested, rename(d = "d_model"))]
        norms: Vec<Norm>,
        #[shape(nested)]
        plain: Norm,
    }
    let block = |second: usize, plain: usize| Block {
        proj: s([8, 4]),
        norms: vec![Norm { gamma: s([8]) }, Norm { gamma: s([second]) }],
        plain: Norm { gamma: s([plain]) },
    };
    assert!(block(8, 4).verify().is_ok());
    let e = block(9, 4).verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Block.norms[1].gamma");
    assert_eq!(e.pattern.as_deref(), Some("(d_model,)"));
    let e = block(8, 5).verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Block.plain.gamma");
    assert_eq!(e.pattern.as_deref(), Some("(d,)"));

    let header = |second: usize, plain: usize| {
        std::collections::BTreeMap::from([
            ("proj".to_string(), s([8, 4])),
            ("norms.0.gamma".to_string(), s([8])),
            ("norms.1.gamma".to_string(), s([second])),
            ("plain.gamma".to_string(), s([plain])),
        ])
    };
    assert!(Block::verify_source(&header(8, 4)).is_ok());
    let patterns = |h| -> Vec<Option<String>> {
        let errors = Block::verify_source(&h).unwrap_err();
        errors
            .errors()
            .iter()
            .map(|e| e.pattern.as_deref().map(str::to_owned))
            .collect()
    };
    assert_eq!(patterns(header(9, 4)), [Some("(d_model,)".to_string())]);
    assert_eq!(patterns(header(8, 5)), [Some("(d,)".to_string())]);
}

#[test]
fn where_clause_failure_reads_as_an_equation() {
    #[derive(Shaped)]
    #[shapes(where = "d_model = heads * head_dim")]
    struct Cfg {
        #[shape("(d_model,)")]
        a: Shape,
        #[shape("(heads,)")]
        b: Shape,
        #[shape("(head_dim,)")]
        c: Shape,
    }
    let e = Cfg {
        a: s([768]),
        b: s([12]),
        c: s([60]),
    }
    .verify()
    .unwrap_err();
    assert!(matches!(e.kind, ShapeErrorKind::Where { .. }), "{e}");
    assert!(
        e.to_string().starts_with(
            "Cfg: where clause fails: d_model = 768 but heads * head_dim = 12 * 60 = 720"
        ),
        "{e}"
    );
}

#[test]
fn prebinding_an_unknown_name_is_an_error_with_a_suggestion() {
    let a = attention(8, 8, 4);
    let e = a.verify_with(Bindings::new().bind("head", 2)).unwrap_err();
    assert!(
        matches!(e.kind, ShapeErrorKind::UnknownBinding { .. }),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "Attention: pre-bound variable \"head\" is not used by any field (did you mean \"heads\"?)"
    );
}

#[test]
fn bindings_print_as_a_table() {
    let m = model(vec![attention(768, 768, 256)]);
    let b = m.verify_with(Bindings::new().bind("heads", 12)).unwrap();
    let table = b.to_string();
    assert!(
        table.contains("vocab       1000  bound by Model.embed axis 0"),
        "{table}"
    );
    assert!(
        table.contains("batch     (2, 3)  bound by Model.tokens axis 0"),
        "{table}"
    );
}

/// Derived code checks a variable that an earlier check bound for sure with one comparison
/// (`var_bound`); every mismatch must still be caught, `usize::MAX` included.
#[derive(Shaped)]
struct Square {
    #[shape("(n, n)")]
    a: Shape,
    #[shape("(n,)")]
    b: Shape,
    #[shape("(n, m)")]
    c: Option<Shape>,
    #[shape("(m,)")]
    d: Shape,
}

#[test]
fn later_uses_of_a_bound_variable_still_catch_every_mismatch() {
    const MAX: usize = usize::MAX;
    let square = |a: Shape, b: Shape, c: Option<Shape>, d: Shape| Square { a, b, c, d };

    let ok = square(s([MAX, MAX]), s([MAX]), None, s([5]));
    let b = ok.verify().unwrap();
    assert_eq!((b.get("n"), b.get("m")), (Some(MAX), Some(5)));

    // The second use within one pattern.
    let e = square(s([3, MAX]), s([3]), None, s([5]))
        .verify()
        .unwrap_err();
    assert_eq!(
        (e.path.to_string(), e.axis),
        ("Square.a".to_string(), Some(1))
    );
    let e = square(s([MAX, 3]), s([MAX]), None, s([5]))
        .verify()
        .unwrap_err();
    assert_eq!(
        (e.path.to_string(), e.axis),
        ("Square.a".to_string(), Some(1))
    );

    // A later field.
    let e = square(s([MAX, MAX]), s([3]), None, s([5]))
        .verify()
        .unwrap_err();
    assert_eq!(
        (e.path.to_string(), e.axis),
        ("Square.b".to_string(), Some(0))
    );
    let e = square(s([3, 3]), s([MAX]), None, s([5]))
        .verify()
        .unwrap_err();
    assert_eq!(
        (e.path.to_string(), e.axis),
        ("Square.b".to_string(), Some(0))
    );

    // After an `Option`: `m` is bound only when it is `Some`.
    let b = square(s([3, 3]), s([3]), None, s([MAX])).verify().unwrap();
    assert_eq!(b.get("m"), Some(MAX));
    let e = square(s([3, 3]), s([3]), Some(s([3, 4])), s([MAX]))
        .verify()
        .unwrap_err();
    assert_eq!(
        (e.path.to_string(), e.axis),
        ("Square.d".to_string(), Some(0))
    );
    assert!(e.to_string().contains("expected m = 4"), "{e}");
}

#[test]
fn a_rank_error_at_the_first_use_comes_first() {
    let bad = Square {
        a: s([3]),
        b: s([4]),
        c: None,
        d: s([5]),
    };
    let e = bad.verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Square.a");
    assert!(matches!(e.kind, ShapeErrorKind::Rank { .. }), "{e}");
    let all = bad.verify_all().unwrap_err();
    assert_eq!(all.errors().len(), 1, "{all}");
    assert_eq!(all.errors()[0].path.to_string(), "Square.a");
}

#[test]
fn binding_over_verified_bindings_replaces_the_value() {
    let m = model(vec![attention(768, 768, 256)]);
    let verified = m.verify_with(Bindings::new().bind("heads", 12)).unwrap();
    assert_eq!(
        verified,
        m.verify_with(Bindings::new().bind("heads", 12)).unwrap()
    );
    let names: Vec<_> = verified.iter().map(|b| b.name).collect();

    let b = verified
        .clone()
        .bind("vocab", 5)
        .bind("extra", 1)
        .bind_shape("batch", [7]);
    assert_ne!(b, verified);
    assert_eq!(b.len(), verified.len() + 1);
    assert_eq!(b.get("vocab"), Some(5));
    assert_eq!(b.origin("vocab"), Some(Origin::Given));
    assert_eq!(b.get_shape("batch"), Some(&s([7])));
    assert_eq!(b.get("batch"), None);
    assert_eq!(b.get("extra"), Some(1));
    // Replaced in place: the verified names keep their order, the new one comes last.
    let after: Vec<_> = b.iter().map(|x| x.name).collect();
    assert_eq!(after[..names.len()], names[..]);
    assert_eq!(after.last().map(|n| n.as_ref()), Some("extra"));
    assert_eq!(b.iter().len(), b.len());
    assert!(format!("{b:?}").contains("extra"));

    // The sub-shape replaced by a size.
    let b = b.bind("batch", 2);
    assert_eq!((b.get("batch"), b.get_shape("batch")), (Some(2), None));
}

#[derive(Shaped)]
struct Leaf {
    #[shape("(d, e)")]
    w: Shape,
}

#[derive(Shaped)]
struct Grid {
    #[shape(nested)]
    cells: Vec<Vec<Leaf>>,
}

#[derive(Shaped)]
struct L3 {
    #[shape(nested)]
    grid: Grid,
}

#[derive(Shaped)]
struct L2 {
    #[shape(nested)]
    inner: Box<L3>,
}

#[derive(Shaped)]
struct L1 {
    #[shape(nested)]
    inner: L2,
    #[shape("(e,)")]
    bias: Shape,
}

#[derive(Shaped)]
struct Gated {
    #[shape("(n,)")]
    mask: Option<Shape>,
    #[shape("(n, d)")]
    w: Shape,
    #[shape(nested)]
    leaf: Leaf,
    #[shape("(d,)")]
    tail: Shape,
}

/// An origin is the first dim that bound the variable, whether the checker recorded its path
/// (`n` after an `Option` that may bind it) or read it from the binders' table (`d`, `e`:
/// nothing before their binder can bind them); and a failed check names the same.
#[test]
fn origins_name_the_first_dim_that_bound_each_variable() {
    let gated = |mask: Option<usize>, n: usize, d: usize| Gated {
        mask: mask.map(|m| s([m])),
        w: s([n, d]),
        leaf: Leaf { w: s([d, 5]) },
        tail: s([d]),
    };
    let origin = |b: &Bindings, name: &str| b.origin(name).map(|o| o.to_string());
    let b = gated(Some(3), 3, 4).verify().unwrap();
    assert_eq!(origin(&b, "n").as_deref(), Some("Gated.mask axis 0"));
    assert_eq!(origin(&b, "d").as_deref(), Some("Gated.w axis 1"));
    assert_eq!(origin(&b, "e").as_deref(), Some("Gated.leaf.w axis 1"));
    let b = gated(None, 3, 4).verify().unwrap();
    assert_eq!(origin(&b, "n").as_deref(), Some("Gated.w axis 0"));
    assert_eq!(b.get("e"), Some(5));

    let e = gated(Some(2), 3, 4).verify().unwrap_err().to_string();
    assert!(e.contains("bound by Gated.mask axis 0"), "{e}");
    let mut bad = gated(None, 3, 4);
    bad.leaf.w = s([6, 5]);
    let e = bad.verify().unwrap_err().to_string();
    assert!(
        e.contains("Gated.leaf.w") && e.contains("bound by Gated.w axis 1"),
        "{e}"
    );
    // The binder's rank differs, so its dims are not read: `d` is bound by the next dim.
    let mut bad = gated(None, 3, 4);
    (bad.w, bad.tail) = (s([3]), s([6]));
    let all = bad.verify_all().unwrap_err().to_string();
    assert!(
        all.contains("Gated.tail") && all.contains("bound by Gated.leaf.w axis 0"),
        "{all}"
    );
}

#[test]
fn origins_and_errors_keep_deep_paths() {
    let leaf = |d: usize| Leaf { w: s([d, 8]) };
    let l1 = |cells: Vec<Vec<Leaf>>, bias: usize| L1 {
        inner: L2 {
            inner: Box::new(L3 {
                grid: Grid { cells },
            }),
        },
        bias: s([bias]),
    };
    let ok = l1(vec![vec![], vec![leaf(4), leaf(4)]], 8);
    let b = ok.verify().unwrap();
    assert_eq!(
        b.origin("d").map(|o| o.to_string()).as_deref(),
        Some("L1.inner.inner.grid.cells[1][0].w axis 0")
    );
    assert_eq!(
        b.origin("e").map(|o| o.to_string()).as_deref(),
        Some("L1.inner.inner.grid.cells[1][0].w axis 1")
    );

    let bad = l1(vec![vec![leaf(4)], vec![leaf(4), leaf(5)]], 9);
    let all = bad.verify_all().unwrap_err();
    let paths: Vec<String> = all.errors().iter().map(|e| e.path.to_string()).collect();
    assert_eq!(paths, ["L1.inner.inner.grid.cells[1][1].w", "L1.bias"]);
    assert!(
        all.errors()[0]
            .to_string()
            .contains("bound by L1.inner.inner.grid.cells[0][0].w axis 0"),
        "{all}"
    );
}
