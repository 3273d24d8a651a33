//! `#[shapes::check(self)]`: a method's patterns share the variables `self`'s fields bind,
//! read from the first field that binds each (one dim, no verification of the struct), and a
//! mismatch names that field. And `#[shapes::check(where = "…")]`: the derive's constraints
//! on a function's variables.
//!
//! Mismatches are compiled out under `--cfg shapes_no_checks`, like `check::`'s.

use shapes::{Shape, ShapeError, Shaped, check};

#[derive(Shaped)]
struct Embeddings {
    #[shape("(vocab, d_model)")]
    word: Shape,
    #[shape("(max_pos, d_model)")]
    position: Shape,
}

#[derive(Shaped)]
struct Block {
    #[shape("(d_ff, d)")]
    up: Shape,
    #[shape("(d, d_ff)")]
    down: Shape,
}

/// A model whose variables are bound through a nested struct, a renamed one, a `Box`, and
/// some only under an `Option`, a `Vec` or inside arithmetic.
#[derive(Shaped)]
struct Bert {
    #[shape(nested)]
    embeddings: Embeddings,
    #[shape(nested, rename(d = "d_model"))]
    block: Box<Block>,
    #[shape("(heads * head_dim,)")]
    qkv_bias: Shape,
    #[shape("(heads,)")]
    scale: Option<Shape>,
    #[shape("(n_classes, d_model)")]
    heads_out: Vec<Shape>,
}

impl Bert {
    #[check(self)]
    fn forward(&self, #[shape("(batch, seq, d_model)")] x: &Shape) -> Result<usize, ShapeError> {
        Ok(x.dims()[0])
    }

    /// `d_ff` comes from the boxed, renamed block; `batch` is the method's own.
    #[check(self, ret = "(batch, d_ff)")]
    fn expand(&self, #[shape("(batch, d_model)")] x: &Shape, grow: usize) -> Shape {
        Shape::from([x.dims()[0], self.block.up.dims()[0] + grow])
    }

    /// A variable the arguments alone cannot determine (`n` only in `n * d_model`) is
    /// determined with `d_model` read from `self`.
    #[check(self)]
    fn chunks(&self, #[shape("(n * d_model,)")] flat: &Shape) -> usize {
        flat.dims()[0]
    }

    /// A comparison on a variable only `self` binds.
    #[check(self, where = "d_model <= 8", panic)]
    fn small_only(&self, #[shape("(batch, d_model)")] x: &Shape) -> Result<(), ShapeError> {
        let _ = x;
        Ok(())
    }

    /// By value, as `Module::forward` sometimes takes it.
    #[check(self)]
    fn into_width(self, #[shape("(d_model,)")] v: &Shape) -> usize {
        v.dims()[0]
    }
}

fn bert(d_model: usize) -> Bert {
    Bert {
        embeddings: Embeddings {
            word: Shape::from([100, d_model]),
            position: Shape::from([16, d_model]),
        },
        block: Box::new(Block {
            up: Shape::from([4 * d_model, d_model]),
            down: Shape::from([d_model, 4 * d_model]),
        }),
        qkv_bias: Shape::from([d_model]),
        scale: None,
        heads_out: vec![],
    }
}

#[test]
fn the_struct_binds_what_the_method_shares() {
    let m = bert(8);
    let before = shapes::__testing::call_reports();
    assert_eq!(m.forward(&Shape::from([2, 5, 8])), Ok(2));
    assert_eq!(m.expand(&Shape::from([3, 8]), 0), Shape::from([3, 32]));
    assert_eq!(m.chunks(&Shape::from([24])), 24);
    assert!(m.small_only(&Shape::from([1, 8])).is_ok());
    assert_eq!(bert(8).into_width(&Shape::from([8])), 8);
    // Passing calls never leave the fast path.
    assert_eq!(shapes::__testing::call_reports(), before);
}

#[cfg(not(shapes_no_checks))]
#[test]
fn a_mismatch_names_the_field_that_bound_the_variable() {
    let m = bert(384);
    let e = m.forward(&Shape::from([2, 5, 385])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "forward.x: axis 2 expected d_model = 384, found 385\n  \
         d_model = 384 bound by Bert.embeddings.word axis 1\n  \
         shape is (2, 5, 385), pattern (batch, seq, d_model)"
    );
}

#[cfg(not(shapes_no_checks))]
#[test]
fn the_return_value_is_checked_against_the_struct_too() {
    let m = bert(8);
    let e = std::panic::catch_unwind(|| m.expand(&Shape::from([3, 8]), 1))
        .err()
        .and_then(|p| p.downcast::<String>().ok())
        .unwrap();
    assert_eq!(
        *e,
        "expand.return: axis 1 expected d_ff = 32, found 33\n  \
         d_ff = 32 bound by Bert.block.up axis 0\n  \
         shape is (3, 33), pattern (batch, d_ff)"
    );
    // Arithmetic against a variable read from `self`.
    let e = std::panic::catch_unwind(|| m.chunks(&Shape::from([25])))
        .err()
        .and_then(|p| p.downcast::<String>().ok())
        .unwrap();
    assert_eq!(
        *e,
        "chunks.flat: axis 0 n * d_model = 25 has no whole solution (25 / 8 is not exact (remainder 1))\n  \
         d_model = 8 bound by Bert.embeddings.word axis 1\n  \
         shape is (25,), pattern (n * d_model,)"
    );
    let e = std::panic::catch_unwind(|| bert(16).small_only(&Shape::from([1, 16])))
        .err()
        .and_then(|p| p.downcast::<String>().ok())
        .unwrap();
    assert_eq!(
        *e,
        "small_only: where clause fails: d_model <= 8 does not hold: d_model = 16\n  \
         d_model = 16 bound by Bert.embeddings.word axis 1"
    );
}

#[cfg(not(shapes_no_checks))]
#[test]
fn a_struct_that_cannot_be_read_reports_its_own_error() {
    let mut m = bert(8);
    m.embeddings.word = Shape::from([100]);
    let e = m.forward(&Shape::from([2, 5, 8])).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("Bert.embeddings.word: expected 2 dims, found 1"),
        "{e}"
    );
}

#[test]
fn the_binders_are_the_first_unconditional_fields() {
    let origin = |name: &str| {
        let i = Bert::VARS.index_of(name)?;
        let b = <Bert as Shaped>::BINDERS.get(i)?;
        Some(b.origin(Bert::NAME).to_string())
    };
    assert_eq!(
        origin("d_model").as_deref(),
        Some("Bert.embeddings.word axis 1")
    );
    assert_eq!(origin("d_ff").as_deref(), Some("Bert.block.up axis 0"));
    assert_eq!(
        origin("max_pos").as_deref(),
        Some("Bert.embeddings.position axis 0")
    );
    // Only inside arithmetic, under an `Option`, in a `Vec`: no binder.
    for name in ["heads", "head_dim", "n_classes"] {
        assert_eq!(origin(name), None, "{name}");
    }
    let m = bert(8);
    let read = |name: &str| {
        let b = <Bert as Shaped>::BINDERS.get(Bert::VARS.index_of(name)?)?;
        m.read_binder(b)
    };
    assert_eq!(
        (read("d_model"), read("d_ff"), read("vocab")),
        (Some(8), Some(32), Some(100))
    );
}

// ----- `where` on a function -----

#[check(where = "heads % kv_heads = 0, head_dim <= 256")]
fn attention(
    #[shape("(batch, heads, seq, head_dim)")] q: &Shape,
    #[shape("(batch, kv_heads, seq, head_dim)")] k: &Shape,
) -> Result<usize, ShapeError> {
    Ok(q.dims()[1] / k.dims()[1])
}

/// A variable only a `where` equation introduces, read back by the body's caller through the
/// check; and a comparison that waits for the return value.
#[check(ret = "(rows, c_out)", where = "height = rows * window && c_out >= 2")]
fn fold_rows(
    #[shape("(height, c)")] x: &Shape,
    #[shape("(window,)")] w: &Shape,
    rows: usize,
) -> Shape {
    let _ = (x, w);
    Shape::from([rows, x.dims()[1]])
}

#[test]
fn where_clauses_hold_or_name_the_constraint() {
    assert_eq!(
        attention(&Shape::from([1, 8, 4, 64]), &Shape::from([1, 2, 4, 64])),
        Ok(4)
    );
    assert_eq!(
        fold_rows(&Shape::from([12, 3]), &Shape::from([4]), 3),
        Shape::from([3, 3])
    );
    #[cfg(not(shapes_no_checks))]
    {
        let e = attention(&Shape::from([1, 8, 4, 64]), &Shape::from([1, 3, 4, 64])).unwrap_err();
        // The derive's wording of a failed constraint (its tail, "but 0" or ", not 0", is the
        // checker's), then where each variable was bound.
        let text = e.to_string();
        let (first, rest) = text.split_once('\n').unwrap();
        assert!(
            first.starts_with("attention: where clause fails: heads % kv_heads = 8 % 3 = 2"),
            "{text}"
        );
        assert_eq!(
            rest,
            "  heads = 8 bound by attention.q axis 1; kv_heads = 3 bound by attention.k axis 1"
        );
        let e = attention(&Shape::from([1, 8, 4, 512]), &Shape::from([1, 2, 4, 512])).unwrap_err();
        assert!(e.to_string().contains("head_dim <= 256"), "{e}");
        // `rows` is solved from the `where` equation: the return value must agree with it.
        let e = std::panic::catch_unwind(|| fold_rows(&Shape::from([12, 3]), &Shape::from([4]), 4))
            .err()
            .and_then(|p| p.downcast::<String>().ok())
            .unwrap();
        assert_eq!(
            *e,
            "fold_rows.return: axis 0 expected rows = 3, found 4\n  \
             rows = 3 bound by solving fold_rows\n  shape is (4, 3), pattern (rows, c_out)"
        );
        // No whole `rows`: 13 rows in windows of 4.
        let e = std::panic::catch_unwind(|| fold_rows(&Shape::from([13, 3]), &Shape::from([4]), 3))
            .err()
            .and_then(|p| p.downcast::<String>().ok())
            .unwrap();
        assert_eq!(
            *e,
            "fold_rows: rows * window = 13 has no whole solution (13 / 4 is not exact (remainder 1))\n  \
             window = 4 bound by fold_rows.w axis 0"
        );
        // The comparison on a variable of the return value waits for it.
        let e = std::panic::catch_unwind(|| fold_rows(&Shape::from([12, 1]), &Shape::from([4]), 3))
            .err()
            .and_then(|p| p.downcast::<String>().ok())
            .unwrap();
        assert_eq!(
            *e,
            "fold_rows: where clause fails: c_out >= 2 does not hold: c_out = 1\n  \
             c_out = 1 bound by fold_rows.return axis 1"
        );
    }
}
