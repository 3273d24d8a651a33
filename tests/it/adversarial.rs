//! Adversarial input: dims at the top of `usize`, products and sums that overflow, rank 0 and
//! rank 64, a 10 000-dim pattern, a 10 000-field struct, and nesting deep enough to overflow a
//! recursive parser's stack. Each must be an `Err` or the correct answer: never a panic, never
//! a wrapped value.

use shapes::{
    Shape, ShapeErrorKind, ShapeSource, Shaped,
    broadcast::{
        BroadcastErrorKind, NamedShape, are_broadcastable, broadcast_missing_dimensions,
        broadcast_shapes_into, broadcast_to, predict_broadcast_shape, refine_shapes_for_broadcast,
    },
    broadcast_shapes,
    checkpoint::SafetensorsHeader,
    expr::{Expr, Item, Pattern, parse, parse_pattern},
    shape::numel,
    verify::Dims,
};

const MAX: usize = usize::MAX;

// ----- dims near usize::MAX ---------------------------------------------------------------

#[test]
fn broadcasting_at_the_top_of_usize() {
    assert_eq!(broadcast_shapes(&[[MAX, 1], [1, MAX]]).unwrap(), [MAX, MAX]);
    assert_eq!(
        broadcast_shapes(&[[MAX, 1].as_slice(), &[MAX]]).unwrap(),
        [MAX, MAX]
    );
    // MAX and MAX - 1 differ by one: no rounding, no wrap.
    assert!(broadcast_shapes(&[[MAX], [MAX - 1]]).is_err());
    assert!(broadcast_shapes(&[[MAX], [0]]).is_err());
    assert_eq!(broadcast_shapes(&[[1], [0]]).unwrap(), [0]);

    let mut out = [0usize; 2];
    assert_eq!(
        broadcast_shapes_into(&[[MAX, 1], [1, MAX]], &mut out).unwrap(),
        2
    );
    assert_eq!(out, [MAX, MAX]);

    assert!(are_broadcastable(&[MAX, 1], &[MAX]).is_ok());
    assert!(are_broadcastable(&[MAX], &[MAX - 1]).is_err());
    assert!(broadcast_to(&[1], &[MAX]).is_ok());
    assert!(broadcast_to(&[MAX], &[MAX - 1]).is_err());
}

#[test]
fn refine_never_fuses_into_a_wrapped_product() {
    // MAX * 2 would wrap to MAX - 1; the axes stay apart instead.
    let (a, b) = refine_shapes_for_broadcast(&[MAX, 2], &[MAX, 2]).unwrap();
    assert_eq!((a.dims(), b.dims()), (&[MAX, 2][..], &[MAX, 2][..]));
    // Two stretching axes in a row, MAX * 3 overflows: kept apart.
    let (a, b) = refine_shapes_for_broadcast(&[1, MAX, 3], &[5, 1, 1]).unwrap();
    assert_eq!((a.dims(), b.dims()), (&[1, MAX, 3][..], &[5, 1, 1][..]));
    assert_eq!(
        refine_shapes_for_broadcast(&[1 << 33, 1 << 31], &[1, 1]).unwrap(),
        (Shape::from([1 << 33, 1 << 31]), Shape::from([1, 1]))
    );
    // 2^32 * 2^31 fits: fused.
    assert_eq!(
        refine_shapes_for_broadcast(&[1 << 32, 1 << 31], &[1, 1]).unwrap(),
        (Shape::from([1 << 63]), Shape::from([1]))
    );
}

#[test]
fn i64_dims_out_of_range_are_errors() {
    let big = i64::MAX;
    assert_eq!(
        predict_broadcast_shape(&[big, 1], &[1, big]).unwrap(),
        [big as usize, big as usize]
    );
    for bad in [i64::MIN, -1] {
        let err = predict_broadcast_shape(&[2, bad], &[2, 1]).unwrap_err();
        assert!(
            matches!(err.kind(), BroadcastErrorKind::NegativeDim { value, axis: 1, .. } if *value == bad)
        );
    }
}

#[test]
fn numel_is_none_on_overflow_never_wrapped() {
    assert_eq!(numel(&[]), Some(1));
    assert_eq!(numel(&[MAX]), Some(MAX));
    assert_eq!(numel(&[MAX, 1, 1]), Some(MAX));
    assert_eq!(numel(&[MAX, 2]), None);
    assert_eq!(numel(&[1 << 32, 1 << 32]), None);
    assert_eq!(
        numel(&[1 << 32, (1 << 32) - 1]),
        Some((1 << 32) * ((1 << 32) - 1))
    );
    // A zero anywhere makes the count 0, even after an overflowing prefix.
    assert_eq!(numel(&[MAX, MAX, 0]), Some(0));
    assert_eq!(numel(&[0, MAX, MAX]), Some(0));
    assert_eq!(Shape::from([MAX, MAX]).numel(), None);
    // 64 twos: 2^64 overflows by exactly one bit.
    assert_eq!(numel(&[2; 64]), None);
    assert_eq!(numel(&[2; 63]), Some(1 << 63));
}

#[test]
fn numbers_overflowing_usize_are_parse_errors() {
    let max = MAX.to_string();
    let over = "18446744073709551616"; // usize::MAX + 1 on 64-bit targets
    let huge = "9".repeat(400);
    assert_eq!(format!("({max})").parse::<Shape>().unwrap(), [MAX]);
    assert_eq!(
        parse_pattern(&format!("({max},)")).unwrap().as_concrete(),
        Some(Shape::from([MAX]))
    );
    for n in [over, huge.as_str()] {
        let e = format!("({n})").parse::<Shape>().unwrap_err();
        assert_eq!(e.offset(), 1, "{e}");
        assert!(e.to_string().contains("overflows usize"), "{e}");
        for input in [
            format!("({n},)"),
            format!("(a, {n})"),
            format!("(a * {n},)"),
            format!("a[{n}]"),
            format!("a[0:{n}]"),
            format!("X[{n}]"),
            format!("Sz[{n}]"),
            format!("{{ a -> b | (D a = {n}) }}"),
        ] {
            let err = parse(&input).unwrap_err();
            assert!(err.offset() < input.len(), "{input}: {err}");
            assert!(parse_pattern(&input).is_err(), "{input}");
        }
    }
    // Signed slice bounds: isize's range, not usize's.
    assert!(parse(&format!("a[-{}]", isize::MAX)).is_ok());
    assert!(parse(&format!("a[{}]", (isize::MAX as usize) + 1)).is_err());
    assert!(parse(&format!("a[-{}]", (isize::MAX as usize) + 2)).is_err());
    // Superscript axes in the Unicode reduce notation.
    let sup = "⁹".repeat(30);
    assert!(parse(&format!("/{sup}a")).is_err());
}

// ----- overflowing arithmetic in derive-verified structs ----------------------------------

#[derive(Shaped)]
struct Product {
    #[shape("(a,)")]
    a: Shape,
    #[shape("(b,)")]
    b: Shape,
    #[shape("(a * b,)")]
    ab: Shape,
    #[shape("(a + b,)")]
    sum: Shape,
}

fn product(a: usize, b: usize, ab: usize, sum: usize) -> Product {
    Product {
        a: Shape::from([a]),
        b: Shape::from([b]),
        ab: Shape::from([ab]),
        sum: Shape::from([sum]),
    }
}

fn arithmetic_error_on(p: &Product, field: &str) {
    let errs = p.verify_all().unwrap_err();
    let e = errs
        .errors()
        .iter()
        .find(|e| e.path.to_string() == format!("Product.{field}"))
        .unwrap_or_else(|| panic!("no error on {field}: {errs:?}"));
    assert!(
        matches!(e.kind, ShapeErrorKind::Arithmetic { .. }),
        "{field}: {e}"
    );
    assert!(e.to_string().contains("overflow"), "{e}");
}

#[test]
fn derive_overflowing_product_and_sum_are_errors_not_wraps() {
    // The wrapped values: 2^63 * 2 == 0 and (MAX - 1) + 2 == 0 modulo 2^64.
    let half = 1usize << 63;
    arithmetic_error_on(&product(half, 2, half.wrapping_mul(2), half + 2), "ab");
    arithmetic_error_on(
        &product(MAX - 1, 2, MAX - 1, (MAX - 1).wrapping_add(2)),
        "sum",
    );
    arithmetic_error_on(&product(1 << 32, 1 << 32, 0, 1 << 33), "ab");
    // Right at the edge it is fine.
    let ok = product(MAX / 3, 3, (MAX / 3) * 3, MAX / 3 + 3);
    let b = ok.verify().unwrap();
    assert_eq!(b.get("a"), Some(MAX / 3));
    assert_eq!(b.get("b"), Some(3));
}

#[derive(Shaped)]
#[shapes(where = "n = rows * cols")]
struct Flattened {
    #[shape("(rows, cols)")]
    grid: Shape,
    #[shape("(n,)")]
    flat: Shape,
}

fn flattened(rows: usize, cols: usize, n: usize) -> Flattened {
    Flattened {
        grid: Shape::from([rows, cols]),
        flat: Shape::from([n]),
    }
}

#[test]
fn derive_where_equation_overflow_is_an_error() {
    let half = 1usize << 63;
    let err = flattened(half, 2, half.wrapping_mul(2))
        .verify()
        .unwrap_err();
    assert!(
        matches!(
            err.kind,
            ShapeErrorKind::Arithmetic { .. } | ShapeErrorKind::Where { .. }
        ),
        "{err}"
    );
    let good = flattened(1 << 31, 1 << 32, 1 << 63);
    assert_eq!(good.verify().unwrap().get("n"), Some(1 << 63));
}

/// A dim of exactly `usize::MAX` is a real size like any other. Regression: the checker keeps
/// `usize::MAX` in an unbound slot as a sentinel, and once took a `usize::MAX` dim for "already
/// bound", so `(MAX, 2)` with `n = rows * cols` and `n = MAX - 1` (the wrapped product)
/// verified, reporting rows = 2^63 - 1.
#[test]
fn derive_usize_max_dim_is_a_real_value() {
    let err = flattened(MAX, 2, MAX.wrapping_mul(2)).verify().unwrap_err();
    assert!(
        matches!(
            err.kind,
            ShapeErrorKind::Arithmetic { .. } | ShapeErrorKind::Where { .. }
        ),
        "{err}"
    );
    arithmetic_error_on(&product(MAX, 2, MAX.wrapping_mul(2), MAX), "ab");
    arithmetic_error_on(&product(MAX, 1, MAX, MAX.wrapping_add(1)), "sum");
}

#[derive(Shaped)]
struct Solved {
    #[shape("(heads * head_dim,)")]
    fused: Shape,
    #[shape("(heads,)")]
    heads: Shape,
    #[shape("(head_dim - 1,)")]
    less: Shape,
}

#[test]
fn derive_inverted_arithmetic_never_wraps() {
    // head_dim is solved from fused / heads; then head_dim - 1 must not go below zero.
    let zero = Solved {
        fused: Shape::from([0]),
        heads: Shape::from([4]),
        less: Shape::from([MAX]),
    };
    assert!(zero.verify().is_err());
    let big = Solved {
        fused: Shape::from([MAX]),
        heads: Shape::from([1]),
        less: Shape::from([MAX - 1]),
    };
    assert_eq!(big.verify().unwrap().get("head_dim"), Some(MAX));
}

// ----- rank 0 and rank 64 -----------------------------------------------------------------

#[test]
fn rank_zero_everywhere() {
    let scalar = Shape::scalar();
    assert_eq!(
        broadcast_shapes(&[scalar.clone(), scalar.clone()]).unwrap(),
        scalar
    );
    assert_eq!(broadcast_shapes::<Shape>(&[]).unwrap(), scalar);
    assert_eq!(broadcast_shapes_into::<Shape>(&[], &mut []).unwrap(), 0);
    assert!(are_broadcastable(&[], &[]).is_ok());
    assert!(broadcast_to(&[], &[]).is_ok());
    assert!(broadcast_to(&[], &[3, 4]).is_ok());
    assert!(broadcast_to(&[3], &[]).is_err());
    assert_eq!(numel(&[]), Some(1));
    assert_eq!(scalar.to_string(), "()");
    assert_eq!("()".parse::<Shape>().unwrap(), scalar);
    assert_eq!(
        parse_pattern("()").unwrap().as_concrete(),
        Some(scalar.clone())
    );
    assert_eq!(parse("()").unwrap().as_shape(), Some(scalar.clone()));
    let (a, b) =
        broadcast_missing_dimensions(&NamedShape::default(), &NamedShape::default()).unwrap();
    assert!(a.is_empty() && b.is_empty());

    #[derive(Shaped)]
    struct Scalars {
        #[shape("()")]
        loss: Shape,
        #[shape("(*rest)")]
        any: Shape,
    }
    let b = Scalars {
        loss: scalar.clone(),
        any: scalar.clone(),
    }
    .verify()
    .unwrap();
    assert_eq!(b.get_shape("rest"), Some(&scalar));
    let err = Scalars {
        loss: Shape::from([1]),
        any: scalar.clone(),
    }
    .verify()
    .unwrap_err();
    assert!(
        matches!(err.kind, ShapeErrorKind::Rank { expected: 0, .. }),
        "{err}"
    );
}

/// numpy's limit (NPY_MAXDIMS is 64): heap storage, every function, no limit of our own.
#[test]
fn rank_sixty_four_everywhere() {
    let mut a = vec![1usize; 64];
    a[0] = 2;
    a[63] = 3;
    let mut b = vec![2usize; 64];
    b[0] = 1;
    b[63] = 1;
    let out = broadcast_shapes(&[a.as_slice(), &b]).unwrap();
    let mut expected = vec![2usize; 64];
    expected[0] = 2;
    expected[63] = 3;
    assert_eq!(out, expected);
    assert!(!out.is_inline());

    let mut buf = [0usize; 64];
    assert_eq!(
        broadcast_shapes_into(&[a.as_slice(), &b], &mut buf).unwrap(),
        64
    );
    assert_eq!(buf.as_slice(), expected.as_slice());
    let mut short = [0usize; 63];
    let err = broadcast_shapes_into(&[a.as_slice(), &b], &mut short).unwrap_err();
    assert!(matches!(
        err.kind(),
        BroadcastErrorKind::OutputTooSmall {
            rank: 64,
            capacity: 63
        }
    ));

    assert!(are_broadcastable(&a, &b).is_ok());
    assert!(broadcast_to(&a, &expected).is_ok());
    assert!(broadcast_to(&[1; 65], &expected).is_err());
    let (ra, rb) = refine_shapes_for_broadcast(&a, &b).unwrap();
    assert_eq!(
        (ra.dims(), rb.dims()),
        (&[2, 1, 3][..], &[1, 1 << 62, 1][..])
    );
    assert_eq!(numel(&[2; 64]), None);
    assert_eq!(numel(&[1; 64]), Some(1));
    let i: Vec<i64> = a.iter().map(|&d| d as i64).collect();
    assert_eq!(predict_broadcast_shape(&i, &[]).unwrap(), a);

    let shape = Shape::from(expected.clone());
    assert_eq!(shape.to_string().parse::<Shape>().unwrap(), shape);
    let p = parse_pattern(&shape.to_string()).unwrap();
    assert_eq!(p.as_concrete(), Some(shape.clone()));
    assert_eq!(parse_pattern(&p.to_string()).unwrap(), p);

    let names: Vec<String> = (0..64).map(|i| format!("d{i}")).collect();
    let named = NamedShape::new(names.iter().map(|n| (n.as_str(), 7))).unwrap();
    assert_eq!(named.len(), 64);
    let (x, _) = broadcast_missing_dimensions(&named, &NamedShape::default()).unwrap();
    assert_eq!(x, named);
}

#[derive(Shaped)]
struct Rank64 {
    #[shape(
        "(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16, d17, d18, d19, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31, d32, d33, d34, d35, d36, d37, d38, d39, d40, d41, d42, d43, d44, d45, d46, d47, d48, d49, d50, d51, d52, d53, d54, d55, d56, d57, d58, d59, d60, d61, d62, 64)"
    )]
    x: Shape,
    #[shape(
        "(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16, d17, d18, d19, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31, d32, d33, d34, d35, d36, d37, d38, d39, d40, d41, d42, d43, d44, d45, d46, d47, d48, d49, d50, d51, d52, d53, d54, d55, d56, d57, d58, d59, d60, d61, d62, 64)"
    )]
    y: Shape,
    #[shape("(*batch, d62, 64)")]
    z: Shape,
}

#[test]
fn derive_rank_sixty_four() {
    let dims: Vec<usize> = (0..64).map(|i| i + 1).collect();
    let rank64 = |x: &[usize], y: &[usize], z: &[usize]| Rank64 {
        x: Shape::from(x),
        y: Shape::from(y),
        z: Shape::from(z),
    };
    let ok = rank64(&dims, &dims, &dims);
    let b = ok.verify().unwrap();
    assert_eq!(b.get("d0"), Some(1));
    assert_eq!(b.get("d62"), Some(63));
    assert_eq!(b.get_shape("batch").map(Shape::rank), Some(62));

    let mut off = dims.clone();
    off[62] = 65;
    let err = rank64(&dims, &dims, &off).verify().unwrap_err();
    assert_eq!(err.axis, Some(62), "{err}");
    assert_eq!(err.path.to_string(), "Rank64.z");
    let err = rank64(&dims, &off, &dims).verify().unwrap_err();
    assert_eq!(err.path.to_string(), "Rank64.y");
    let err = rank64(&dims[..63], &dims, &dims).verify().unwrap_err();
    assert!(
        matches!(err.kind, ShapeErrorKind::Rank { expected: 64, .. }),
        "{err}"
    );
}

#[test]
fn safetensors_rank_zero_to_the_cap() {
    let max = SafetensorsHeader::MAX_RANK;
    let json = format!(
        r#"{{"s":{{"dtype":"F32","shape":[],"data_offsets":[0,4]}},"t":{{"dtype":"U8","shape":{:?},"data_offsets":[4,4]}},"z":{{"dtype":"U8","shape":{:?},"data_offsets":[4,5]}}}}"#,
        [[0usize; 1], [1; 1]].concat().repeat(max / 2),
        vec![1usize; max],
    );
    let mut file = (json.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(json.as_bytes());
    file.extend_from_slice(&[0; 5]);
    let h = SafetensorsHeader::from_bytes(&file).unwrap();
    assert_eq!(h.shape_of("s"), Some(&[][..]));
    assert_eq!(h.shape_of("t").map(<[usize]>::len), Some(max));
    assert_eq!(h.shape_of("z"), Some(&vec![1; max][..]));

    // One dim more, or five million more, is an error naming the tensor and its rank; the
    // dims past the cap are counted, never stored.
    for rank in [max + 1, 5_000_000] {
        let dims = vec!["1"; rank].join(",");
        let json = format!(r#"{{"w":{{"dtype":"U8","shape":[{dims}],"data_offsets":[0,1]}}}}"#);
        let mut file = (json.len() as u64).to_le_bytes().to_vec();
        file.extend_from_slice(json.as_bytes());
        file.push(0);
        let err = SafetensorsHeader::from_bytes(&file)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"w\"") && err.contains(&format!("has {rank} dims")),
            "{err}"
        );
    }

    // 8 dims of 2^8 = 2^64 elements: the count overflows, an error naming the tensor.
    let json = format!(
        r#"{{"w":{{"dtype":"U8","shape":{:?},"data_offsets":[0,0]}}}}"#,
        [256u64; 8]
    );
    let mut file = (json.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(json.as_bytes());
    let err = SafetensorsHeader::from_bytes(&file).unwrap_err();
    assert!(
        err.to_string().contains("\"w\"") && err.to_string().contains("does not fit"),
        "{err}"
    );
}

// ----- 10 000 dims, 10 000 fields -----------------------------------------------------------

fn wide_pattern_text(n: usize, vars: usize) -> String {
    let dims: Vec<String> = (0..n).map(|i| format!("d{}", i % vars)).collect();
    format!("({})", dims.join(", "))
}

#[test]
fn ten_thousand_dim_pattern_parses_prints_and_round_trips() {
    let text = wide_pattern_text(10_000, 10_000);
    let p = parse_pattern(&text).unwrap();
    assert_eq!(p.items.len(), 10_000);
    assert_eq!(p.to_string(), text);
    assert_eq!(parse_pattern(&p.to_string()).unwrap(), p);
    assert_eq!(parse_pattern(&format!("{p:#}")).unwrap(), p);
    let e = parse(&format!("{text} -> (d0,)")).unwrap();
    assert_eq!(parse(&e.to_string()).unwrap(), e);

    let concrete: Shape = (1..=10_000).collect();
    assert_eq!(concrete.to_string().parse::<Shape>().unwrap(), concrete);
    let p = parse_pattern(&concrete.to_string()).unwrap();
    assert_eq!(p.as_concrete(), Some(concrete.clone()));
    assert_eq!(
        broadcast_shapes(&[concrete.dims(), &[1]]).unwrap(),
        concrete
    );
    assert!(matches!(p.items.last(), Some(Item::Dim(_))));
}

mod wide {
    use shapes::{Shape, Shaped};
    include!("../data/adversarial/wide_pattern.rs");

    #[test]
    fn ten_thousand_dim_pattern_verifies() {
        let dims: Vec<usize> = (0..10_000).map(|i| i % 50 + 1).collect();
        let wide = |all: &[usize]| WidePattern {
            all: Shape::from(all),
        };
        let b = wide(&dims).verify().unwrap();
        assert_eq!(b.len(), 50);
        assert_eq!(b.get("d49"), Some(50));

        let mut off = dims.clone();
        off[7_777] += 1;
        let err = wide(&off).verify().unwrap_err();
        assert_eq!(err.path.to_string(), "WidePattern.all");
        assert_eq!(err.axis, Some(7_777));
        let err = wide(&dims[1..]).verify().unwrap_err();
        assert!(
            matches!(
                err.kind,
                shapes::ShapeErrorKind::Rank {
                    expected: 10_000,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn wide_pattern_file_is_up_to_date() {
        let file = include_str!("../data/adversarial/wide_pattern.rs");
        let want = format!("#[shape(\"{}\")]", super::wide_pattern_text(10_000, 50));
        assert!(
            file.contains(&want),
            "tests/data/adversarial/wide_pattern.rs is stale: its pattern must be {want}"
        );
    }
}

/// Repeats a token list 10 times per `x`: `grow!([x x x x] [f,])` is 10^4 copies of `f,` in a
/// tuple struct, so the macro input stays a few lines while the struct has 10 000 fields.
macro_rules! grow {
    ([] [$($t:tt)*]) => {
        #[derive(Shaped)]
        struct TenThousand($($t)*);
    };
    ([x $($k:ident)*] [$($t:tt)*]) => {
        grow!([$($k)*] [$($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)*]);
    };
}

// `Dims<&[usize]>` (16 bytes) rather than `Shape` (80): 10 000 fields of it fit on a test
// thread's stack even in a debug build.
grow!([x x x x] [#[shape("(batch, n)")] Dims<&'static [usize]>,]);

/// Runs on an 8 MiB stack: measured in a debug build, `verify()` of this struct needs between
/// 2 and 4 MiB (the generated `check_in` is one function with every field's locals in its
/// frame), over the 2 MiB of a spawned thread; the struct is boxed for the same reason.
#[test]
fn ten_thousand_fields_verify() {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let mut s = ten_thousand(&[2, 3]);
            let b = s.verify().unwrap();
            assert_eq!((b.get("batch"), b.get("n")), (Some(2), Some(3)));

            s.9999 = Dims(&[2, 4]);
            let err = s.verify().unwrap_err();
            assert_eq!(err.path.to_string(), "TenThousand.9999");
            assert_eq!(err.axis, Some(1));
            let mut all_bad = ten_thousand(&[7]);
            all_bad.0 = Dims(&[2, 3]);
            assert_eq!(all_bad.verify_all().unwrap_err().len(), 9_999);
        })
        .unwrap()
        .join()
        .expect("verify a 10 000-field struct");
}

fn ten_thousand(dims: &'static [usize]) -> Box<TenThousand> {
    let next = || Dims(dims);
    // A tuple struct of 10 000 fields cannot be built by position in a readable way; build it
    // from the same macro trick as the struct itself.
    macro_rules! build {
        ([] [$($t:tt)*]) => { Box::new(TenThousand($($t)*)) };
        ([x $($k:ident)*] [$($t:tt)*]) => {
            build!([$($k)*] [$($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)* $($t)*])
        };
    }
    build!([x x x x] [next(),])
}

// ----- nesting deep enough to overflow a recursive parser --------------------------------

fn assert_too_deep(input: &str) {
    let err = parse(input).unwrap_err();
    assert!(err.offset() <= input.len());
    assert!(parse_pattern(input).is_err());
}

/// Each input runs on a thread with the 2 MiB stack `std::thread::spawn` gives: an unbounded
/// recursion would overflow it and abort the test binary. Measured in a debug build, the worst
/// of these inputs needs between 512 KiB and 1 MiB with the parser's cap of 128 levels.
#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let inputs: Vec<String> = vec![
        format!("{}a{}", "(".repeat(100_000), ")".repeat(100_000)),
        "(".repeat(100_000),
        format!("({}a{},)", "(".repeat(10_000), ")".repeat(10_000)),
        format!("(1{})", " + (1".repeat(10_000)),
        format!("{}a", "/⁰".repeat(100_000)),
        format!("a{}", "[0]".repeat(100_000)),
        format!(
            "{{ a -> a | {}(D a = 1){} }}",
            "(".repeat(50_000),
            ")".repeat(50_000)
        ),
        format!("(a{},)", " * (a".repeat(10_000)),
        format!("(a{},)", " + a".repeat(10_000)),
        format!("a{}", " -> a".repeat(10_000)),
        format!("{}a", "D ".repeat(10_000)),
        format!("({}a{},)", "D (".repeat(10_000), ")".repeat(10_000)),
        "{".repeat(100_000),
        "[".repeat(100_000),
    ];
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            for input in &inputs {
                let _ = parse(input);
                let _ = parse_pattern(input);
            }
        })
        .unwrap()
        .join()
        .expect("no input overflows a 2 MiB stack");
    // What the cap reports.
    let input = format!("{}a{}", "(".repeat(1000), ")".repeat(1000));
    assert_too_deep(&input);
    let err = parse(&input).unwrap_err();
    assert!(err.expected().contains("less deeply nested"), "{err}");
}

#[test]
fn operator_chains_nest_and_lists_do_not() {
    // An operator chain builds a tree as deep as the chain, so it counts against the cap: 100
    // operators parse and round-trip, 10 000 are an error (the printer and `Drop` recurse too).
    for (open, op, close) in [
        ("(a", " + a", ",)"),
        ("(a", " * a", ",)"),
        ("a", " -> a", ""),
    ] {
        let short = format!("{open}{}{close}", op.repeat(100));
        let e = parse(&short).unwrap();
        assert_eq!(parse(&e.to_string()).unwrap(), e, "{short}");
        let long = format!("{open}{}{close}", op.repeat(10_000));
        let err = parse(&long).unwrap_err();
        assert!(err.expected().contains("less deeply nested"), "{err}");
    }
    // A list is flat: 10 000 items are fine.
    let e: Expr = format!("({})", vec!["a"; 10_000].join(", "))
        .parse()
        .unwrap();
    assert!(matches!(e, Expr::Pattern(Pattern { ref items, .. }) if items.len() == 10_000));
}

#[test]
fn deeply_nested_json_header_is_an_error() {
    let json = format!("{{\"w\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let mut file = (json.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(json.as_bytes());
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let err = SafetensorsHeader::from_bytes(&file).unwrap_err();
            assert!(err.to_string().contains("malformed"), "{err}");
        })
        .unwrap()
        .join()
        .expect("no stack overflow on nested JSON");
}

// ----- memory of the parser's memo (issue: hostile input, finding 5) ------------------------

/// The most bytes live at once while `f` runs (on this thread).
fn peak_bytes<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let mut r = None;
    let info = allocation_counter::measure(|| r = Some(f()));
    (info.bytes_max, r.expect("the closure ran"))
}

/// `levels` size functions of constraints nested around an `n`-item pattern, each inside a
/// pattern the parser first tries, then backtracks from: every `{` atom is memoised.
fn nested_constraints(levels: usize, n: usize) -> String {
    let items = vec!["1"; n].join(", ");
    format!(
        "{}({items}){}",
        "(D { ".repeat(levels),
        " | D a = 1 },)".repeat(levels)
    )
}

#[test]
fn memo_memory_is_linear_in_the_input_not_in_its_depth() {
    let n = 20_000;
    let (one, e1) = peak_bytes(|| parse(&nested_constraints(1, n)));
    let (thirteen, e13) = peak_bytes(|| parse(&nested_constraints(13, n)));
    assert!(e1.is_ok() && e13.is_ok(), "{e1:?} {e13:?}");
    // Thirteen memoised levels held thirteen clones of the pattern; now the finished levels'
    // entries replace the inner ones.
    assert!(
        thirteen < 3 * one,
        "13 levels peak at {thirteen} bytes, 1 level at {one}"
    );
}

// ----- memory of a report of many mismatches (hostile input, third round, finding 6) ---------

/// A safetensors file of `d_ref` `(3,)` and `n` tensors `layers.{i}.w` `(4,)`.
fn many_layers(n: usize) -> Vec<u8> {
    let mut entries =
        vec![r#""d_ref":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}"#.to_owned()];
    entries.extend((0..n).map(|i| {
        let at = 12 + 16 * i;
        format!(
            r#""layers.{i}.w":{{"dtype":"F32","shape":[4],"data_offsets":[{at},{}]}}"#,
            at + 16
        )
    }));
    let header = format!("{{{}}}", entries.join(","));
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    file.resize(file.len() + 12 + 16 * n, 0);
    file
}

#[test]
fn a_recorded_mismatch_costs_a_bounded_few_hundred_bytes() {
    let spec = shapes::Spec::from_toml(
        "m.toml",
        "name = \"M\"\n[repeat]\n\"layers\" = \"n\"\n[tensors]\n\"d_ref\" = \"(d,)\"\n\"layers.{i}.w\" = \"(d,)\"\n",
    )
    .unwrap();
    let n = 20_000;
    let ckpt = shapes::Checkpoint::from_bytes(&many_layers(n)).unwrap();
    let (peak, report) = peak_bytes(|| spec.check(&ckpt));
    assert_eq!(report.errors().map(|e| e.len()), Some(n));
    // Each error once held a provenance list with room for four (a filtered `collect`): about
    // 1.35 KB per error in all. Now the error, its one provenance entry and its strings.
    let per_error = peak / n as u64;
    assert!(per_error < 800, "{per_error} bytes per recorded mismatch");
    // The text is bounded, and every mismatch is counted under its one cause and folded, not
    // only the first hundred thousand.
    let (text_peak, text) = peak_bytes(|| report.to_string());
    assert!(text.len() < 2_000, "{} bytes of text:\n{text}", text.len());
    assert!(text.contains("20,000 errors, one cause"), "{text}");
    assert!(
        text.contains("(20,000 errors) M.layers[{0..19999}].w"),
        "{text}"
    );
    // Folding keeps the indices that vary, not the texts.
    assert!(
        text_peak / (n as u64) < 200,
        "{text_peak} bytes to write the text"
    );
}
