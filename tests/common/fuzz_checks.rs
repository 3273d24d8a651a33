//! The checks the fuzz targets run, shared with `tests/it/fuzz_replay.rs` so that the normal
//! test suite replays the committed seed corpus through exactly the same code.
//!
//! A module of the `it` test binary (`tests/common/mod.rs`), and included with `#[path]` by
//! each target in `fuzz/fuzz_targets/`.
//! Every check takes raw bytes and decodes them itself (no `arbitrary` dependency), so a corpus
//! file means the same thing to the fuzzer and to the test. A failed check panics: that is what
//! libFuzzer reports as a crash, and what makes the replay test fail.
//!
//! The references here are deliberately slow and obvious: they restate numpy's rules axis by
//! axis instead of sharing any code with the library.
#![allow(dead_code)]

use std::io::Read;

use shapes::{
    Shape, ShapeSource,
    broadcast::{
        BroadcastErrorKind, NamedShape, NamedStrategy, are_broadcastable,
        broadcast_missing_dimensions, broadcast_named, broadcast_shapes_into, broadcast_to,
        predict_broadcast_shape, refine_shapes_for_broadcast,
    },
    broadcast_shapes,
    checkpoint::{GgufHeader, GgufType, GgufValue, SafetensorsHeader},
    expr::{Expr, Pattern, parse, parse_pattern},
    shape::numel,
};

#[path = "fuzz_checks/npy.rs"]
mod npy;
#[path = "fuzz_checks/pickle.rs"]
mod pickle;
#[path = "fuzz_checks/spec.rs"]
mod spec;

// Each fuzz target uses one of them.
#[allow(unused_imports)]
pub use npy::check_npy;
#[allow(unused_imports)]
pub use pickle::check_pickle;
#[allow(unused_imports)]
pub use spec::check_spec;

// ----- a byte reader --------------------------------------------------------------------------

/// Reads the fuzzer's bytes as a stream of decisions; past the end every read is 0, so any
/// input, even empty, decodes to something.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    pub fn u64(&mut self) -> u64 {
        let mut v = [0u8; 8];
        for b in &mut v {
            *b = self.byte();
        }
        u64::from_le_bytes(v)
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// A dim, biased towards the values where broadcasting has cases: 1, 0, small sizes that
    /// collide often, and sizes at the top of `usize`.
    pub fn dim(&mut self) -> usize {
        let tag = self.byte();
        match tag {
            0x00..=0x4f => 1,
            0x50..=0x5f => 0,
            0x60..=0xdf => usize::from(tag % 4) + 2,
            0xe0..=0xef => usize::MAX - usize::from(tag & 0x0f),
            0xf0..=0xf7 => usize::from(tag & 0x07) + 6,
            _ => self.u64() as usize,
        }
    }

    /// A shape: usually rank 0..=9 (around [`shapes::shape::INLINE_RANK`]), sometimes up to 72 (heap
    /// storage, numpy's limit of 64 and past it).
    pub fn shape(&mut self) -> Shape {
        let r = self.byte();
        let rank = if r >= 0xf8 {
            9 + usize::from(r - 0xf8) * 9
        } else {
            usize::from(r % 10)
        };
        (0..rank).map(|_| self.dim()).collect()
    }

    /// Zero to five shapes.
    pub fn shapes(&mut self) -> Vec<Shape> {
        let n = self.byte() % 6;
        (0..n).map(|_| self.shape()).collect()
    }
}

// ----- references -------------------------------------------------------------------------

/// numpy's rule, restated: align on the right, a missing dim is 1, per axis all sizes that are
/// not 1 must be equal, and the result is that size (1 when there is none).
pub fn reference_broadcast(shapes: &[Shape]) -> Option<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![0usize; rank];
    for from_end in 0..rank {
        let mut size = 1usize;
        for s in shapes {
            if from_end < s.len() {
                let d = s[s.len() - 1 - from_end];
                if d == 1 {
                    continue;
                }
                if size != 1 && size != d {
                    return None;
                }
                size = d;
            }
        }
        out[rank - 1 - from_end] = size;
    }
    Some(out)
}

/// numpy's `broadcast_to`, restated: `to` has at least `from`'s rank, and each of `from`'s dims
/// equals the aligned dim of `to` or is 1.
pub fn reference_broadcast_to(from: &[usize], to: &[usize]) -> bool {
    if from.len() > to.len() {
        return false;
    }
    (0..from.len()).all(|i| {
        let f = from[from.len() - 1 - i];
        let t = to[to.len() - 1 - i];
        f == t || f == 1
    })
}

/// The element count, restated: 0 when any dim is 0, else the product if it fits.
pub fn reference_numel(dims: &[usize]) -> Option<usize> {
    if dims.contains(&0) {
        return Some(0);
    }
    let mut n: u128 = 1;
    for &d in dims {
        n = n.checked_mul(d as u128)?;
        if n > usize::MAX as u128 {
            return None;
        }
    }
    Some(n as usize)
}

/// Named dims as plain pairs.
type Named = Vec<(String, usize)>;

/// Named broadcasting, restated from its documentation.
fn reference_named(
    a: &[(String, usize)],
    b: &[(String, usize)],
    stretch: bool,
) -> Option<(Named, Named)> {
    let lookup =
        |s: &[(String, usize)], name: &str| s.iter().find(|(n, _)| n == name).map(|&(_, d)| d);
    let mut shared = Vec::new();
    for (name, x) in a {
        if let Some(y) = lookup(b, name) {
            let size = if *x == y {
                *x
            } else if stretch && *x == 1 {
                y
            } else if stretch && y == 1 {
                *x
            } else {
                return None;
            };
            shared.push((name.clone(), size));
        }
    }
    let side = |own: &[(String, usize)], other: &[(String, usize)]| {
        let mut out: Vec<(String, usize)> = own
            .iter()
            .map(|(n, d)| (n.clone(), lookup(&shared, n).unwrap_or(*d)))
            .collect();
        for (n, d) in other {
            if lookup(own, n).is_none() {
                out.push((n.clone(), *d));
            }
        }
        out
    };
    Some((side(a, b), side(b, a)))
}

fn named_pairs(s: &NamedShape) -> Vec<(String, usize)> {
    s.iter().map(|(n, d)| (n.to_owned(), d)).collect()
}

// ----- the parser ---------------------------------------------------------------------------

/// Arbitrary bytes as a concrete shape, a pattern and an expression: never a panic, errors
/// point inside the input, and whatever parses prints (both spellings) to text that parses back
/// to the same value.
pub fn check_parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let s: &str = &text;

    match s.parse::<Shape>() {
        Ok(shape) => {
            let printed = shape.to_string();
            assert_eq!(printed.parse::<Shape>().ok(), Some(shape.clone()), "{s:?}");
            // A concrete shape is a pattern too, with the same dims.
            let p = parse_pattern(s);
            assert_eq!(
                p.as_ref().ok().and_then(Pattern::as_concrete),
                Some(shape.clone()),
                "{s:?} is a Shape but as a pattern gives {p:?}"
            );
        }
        Err(e) => {
            assert!(e.offset() <= s.len(), "{s:?}: {e}");
            let _ = e.to_string();
        }
    }

    match parse_pattern(s) {
        Ok(p) => {
            for printed in [p.to_string(), format!("{p:#}")] {
                assert_eq!(
                    parse_pattern(&printed).as_ref(),
                    Ok(&p),
                    "{s:?} printed as {printed:?}"
                );
            }
        }
        Err(e) => check_parse_error(s, &e),
    }

    match parse(s) {
        Ok(e) => {
            for printed in [e.to_string(), format!("{e:#}")] {
                assert_eq!(
                    parse(&printed).as_ref(),
                    Ok(&e),
                    "{s:?} printed as {printed:?}"
                );
            }
            let _ = Expr::as_shape(&e);
        }
        Err(e) => check_parse_error(s, &e),
    }
}

fn check_parse_error(s: &str, e: &shapes::expr::ParseError) {
    assert!(
        e.offset() <= s.len(),
        "{s:?}: offset {} past the end",
        e.offset()
    );
    assert!(
        s.is_char_boundary(e.offset()),
        "{s:?}: offset {} inside a character",
        e.offset()
    );
    assert_eq!(e.input(), s);
    assert!(!e.expected().is_empty(), "{s:?}: {e}");
    let _ = e.to_string();
}

// ----- broadcasting -----------------------------------------------------------------------

/// Every function of the broadcasting family against the references above.
pub fn check_broadcast(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let shapes = bytes.shapes();
    let expected = reference_broadcast(&shapes);

    // broadcast_shapes: the numpy rule.
    let owned = broadcast_shapes(&shapes);
    match (&owned, &expected) {
        (Ok(got), Some(want)) => assert_eq!(got.dims(), &want[..], "{shapes:?}"),
        (Err(_), None) => {}
        _ => panic!("broadcast_shapes({shapes:?}) = {owned:?}, reference {expected:?}"),
    }

    // broadcast_shapes_into == broadcast_shapes, with a buffer of exactly the rank, a longer
    // one whose tail must stay untouched, and a too-short one.
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let sentinel = 0xdead_beef_usize;
    let mut buf = vec![sentinel; rank + 3];
    let into = broadcast_shapes_into(&shapes, &mut buf);
    match (&into, &owned) {
        (Ok(r), Ok(o)) => {
            assert_eq!(*r, rank);
            assert_eq!(&buf[..rank], o.dims(), "{shapes:?}");
            assert!(buf[rank..].iter().all(|&x| x == sentinel), "{shapes:?}");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{shapes:?}"),
        _ => panic!("broadcast_shapes_into {into:?} but broadcast_shapes {owned:?} for {shapes:?}"),
    }
    let mut exact = vec![sentinel; rank];
    assert_eq!(
        broadcast_shapes_into(&shapes, &mut exact).ok(),
        owned.as_ref().ok().map(|_| rank)
    );
    if rank > 0 {
        let mut short = vec![0usize; rank - 1];
        let err = broadcast_shapes_into(&shapes, &mut short).unwrap_err();
        assert!(
            matches!(err.kind(), BroadcastErrorKind::OutputTooSmall { .. }),
            "{shapes:?}: {err}"
        );
    }

    // Every input broadcasts to the result.
    if let Ok(out) = &owned {
        for s in &shapes {
            assert!(broadcast_to(s, out).is_ok(), "{s:?} to {out:?}");
        }
    }

    // Pairwise: are_broadcastable, broadcast_to, refine, predict, named.
    for a in &shapes {
        for b in &shapes {
            check_pair(a, b);
        }
    }
    if shapes.len() < 2 {
        let a = shapes.first().cloned().unwrap_or_default();
        check_pair(&a, &Shape::scalar());
    }

    // numel and Shape's text form.
    for s in &shapes {
        assert_eq!(numel(s), reference_numel(s), "{s:?}");
        assert_eq!(s.numel(), reference_numel(s), "{s:?}");
        assert_eq!(s.to_string().parse::<Shape>().as_ref(), Ok(s));
    }

    check_named(&mut bytes, &shapes);
}

fn check_pair(a: &Shape, b: &Shape) {
    let pair = [a.clone(), b.clone()];
    let expected = reference_broadcast(&pair);

    let ab = are_broadcastable(a, b);
    assert_eq!(
        ab.is_ok(),
        expected.is_some(),
        "are_broadcastable({a:?}, {b:?}) = {ab:?}"
    );
    assert_eq!(
        are_broadcastable(b, a).is_ok(),
        ab.is_ok(),
        "symmetry {a:?} {b:?}"
    );

    let to = broadcast_to(a, b);
    assert_eq!(
        to.is_ok(),
        reference_broadcast_to(a, b),
        "broadcast_to({a:?}, {b:?}) = {to:?}"
    );

    // refine: an error exactly when the pair does not broadcast; otherwise two shapes of one
    // rank >= 1 that broadcast to a shape with the original element count, with no axis where
    // both are 1 (unless that is the only axis).
    let refined = refine_shapes_for_broadcast(a, b);
    match (&refined, &expected) {
        (Ok((ra, rb)), Some(full)) => {
            assert_eq!(ra.len(), rb.len(), "{a:?} {b:?} -> {ra:?} {rb:?}");
            assert!(!ra.is_empty());
            assert!(ra.len() <= full.len().max(1), "{a:?} {b:?} -> {ra:?}");
            let rfull = reference_broadcast(&[ra.clone(), rb.clone()])
                .unwrap_or_else(|| panic!("refined {ra:?} {rb:?} of {a:?} {b:?} do not broadcast"));
            assert_eq!(
                reference_numel(&rfull),
                reference_numel(full),
                "{a:?} {b:?} -> {ra:?} {rb:?}"
            );
            if ra.len() > 1 {
                assert!(
                    ra.iter().zip(rb.iter()).all(|(&x, &y)| !(x == 1 && y == 1)),
                    "{a:?} {b:?} -> {ra:?} {rb:?}"
                );
            }
        }
        (Err(_), None) => {}
        _ => panic!("refine({a:?}, {b:?}) = {refined:?}, reference {expected:?}"),
    }

    // predict_broadcast_shape on i64 dims: a dim above i64::MAX wraps to a negative value here
    // on purpose, which must be an error.
    let ia: Vec<i64> = a.iter().map(|&d| d as i64).collect();
    let ib: Vec<i64> = b.iter().map(|&d| d as i64).collect();
    let predicted = predict_broadcast_shape(&ia, &ib);
    let negative = ia.iter().chain(&ib).any(|&d| d < 0);
    match (&predicted, negative, &expected) {
        (Err(_), true, _) => {}
        (Ok(got), false, Some(want)) => assert_eq!(got.dims(), &want[..]),
        (Err(_), false, None) => {}
        _ => panic!("predict({ia:?}, {ib:?}) = {predicted:?}, reference {expected:?}"),
    }
}

fn check_named(bytes: &mut Bytes<'_>, shapes: &[Shape]) {
    const NAMES: [&str; 6] = ["a", "b", "c", "batch", "é", ""];
    let mut named = Vec::new();
    for s in shapes.iter().take(3) {
        let pairs: Vec<(String, usize)> = s
            .iter()
            .take(8)
            .map(|&d| (NAMES[usize::from(bytes.byte()) % NAMES.len()].to_owned(), d))
            .collect();
        let duplicate = pairs
            .iter()
            .enumerate()
            .any(|(i, (n, _))| pairs[..i].iter().any(|(m, _)| m == n));
        match NamedShape::new(pairs.clone()) {
            Ok(ns) => {
                assert!(!duplicate, "{pairs:?} accepted with a duplicate name");
                assert_eq!(named_pairs(&ns), pairs);
                assert_eq!(
                    ns.shape().dims(),
                    &pairs.iter().map(|p| p.1).collect::<Vec<_>>()[..]
                );
                named.push(ns);
            }
            Err(e) => {
                assert!(duplicate, "{pairs:?} rejected: {e}");
                assert!(matches!(e.kind(), BroadcastErrorKind::DuplicateName { .. }));
            }
        }
    }
    for a in &named {
        for b in &named {
            for (strategy, stretch) in [
                (NamedStrategy::MissingDimensions, false),
                (NamedStrategy::StretchOnes, true),
            ] {
                let got = broadcast_named(a, b, strategy);
                let want = reference_named(&named_pairs(a), &named_pairs(b), stretch);
                match (&got, &want) {
                    (Ok((x, y)), Some((wx, wy))) => {
                        assert_eq!((&named_pairs(x), &named_pairs(y)), (wx, wy), "{a:?} {b:?}");
                    }
                    (Err(e), None) => {
                        assert!(matches!(e.kind(), BroadcastErrorKind::NameConflict { .. }));
                    }
                    _ => panic!(
                        "broadcast_named({a:?}, {b:?}, {strategy:?}) = {got:?}, reference {want:?}"
                    ),
                }
            }
            assert_eq!(
                broadcast_missing_dimensions(a, b),
                broadcast_named(a, b, NamedStrategy::MissingDimensions)
            );
        }
    }
}

// ----- safetensors headers ------------------------------------------------------------------

/// A reader that hands out at most `chunk` bytes per `read`, as a socket or pipe may.
struct Trickle<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The `safetensors_header` target: the first byte picks raw bytes (even) or a mutated valid
/// file (odd); the rest is the input.
pub fn check_safetensors(data: &[u8]) {
    match data.split_first() {
        Some((mode, rest)) if mode % 2 == 1 => check_safetensors_structured(rest),
        Some((_, rest)) => check_safetensors_bytes(rest),
        None => check_safetensors_bytes(data),
    }
}

/// Raw bytes as a safetensors file: never a panic, whatever is accepted is consistent, and the
/// answer agrees with the `safetensors` crate's (see [`check_against_upstream`]).
pub fn check_safetensors_bytes(data: &[u8]) {
    check_readers_agree(
        data,
        SafetensorsHeader::from_bytes,
        |r, len| SafetensorsHeader::read(r, len),
        check_header_invariants,
        |h| h.tensors().to_vec(),
    );
    check_against_upstream(data);
}

/// The `safetensors` crate (0.8) as an oracle on the same bytes: what this reader accepts, it
/// accepts too, with the same tensors (dtype, shape, offsets) and metadata; what it accepts
/// and this reader refuses is one of the documented, deliberate differences (a tensor name
/// twice, which it silently resolves to one of the two; a dim or element count past `i64`; a
/// rank over `MAX_RANK`; a field other than dtype, shape and data_offsets).
pub fn check_against_upstream(data: &[u8]) {
    use shapes::checkpoint::SafetensorsError as E;
    let ours = SafetensorsHeader::from_bytes(data);
    let theirs = safetensors::SafeTensors::read_metadata(data);
    // `deserialize` is `read_metadata` and a slice of the data: the same verdict.
    assert_eq!(
        theirs.is_ok(),
        safetensors::SafeTensors::deserialize(data).is_ok()
    );
    type Row = (String, String, Vec<usize>, (u64, u64));
    match (&ours, &theirs) {
        (Ok(h), Ok((_, meta))) => {
            let mut want: Vec<Row> = meta
                .tensors()
                .into_iter()
                .map(|(name, t)| {
                    let (s, e) = t.data_offsets;
                    let offsets = (s as u64, e as u64);
                    (name, format!("{:?}", t.dtype), t.shape.clone(), offsets)
                })
                .collect();
            let mut got: Vec<Row> = h
                .tensors()
                .iter()
                .map(|t| {
                    let dtype = format!("{:?}", t.dtype);
                    (
                        t.name.clone(),
                        dtype,
                        t.shape.dims().to_vec(),
                        t.data_offsets,
                    )
                })
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "the safetensors crate reads other tensors");
            let theirs: std::collections::BTreeMap<String, String> = meta
                .metadata()
                .clone()
                .unwrap_or_default()
                .into_iter()
                .collect();
            assert_eq!(
                h.metadata(),
                &theirs,
                "the safetensors crate reads other metadata"
            );
        }
        (Ok(_), Err(e)) => panic!("accepted a file the safetensors crate refuses: {e}"),
        (Err(ours), Ok(_)) => {
            let deliberate = match ours {
                E::DuplicateName(_) | E::ShapeOverflow { .. } | E::TooManyDims { .. } => true,
                E::Json(m) => m.contains("unknown field"),
                _ => false,
            };
            assert!(
                deliberate,
                "refused a file the safetensors crate accepts, not a documented difference: {ours}"
            );
        }
        (Err(_), Err(_)) => {}
    }
}

/// What every header reader must show on raw bytes `data`: whatever `from_bytes` accepts
/// satisfies `invariants` (with the file length), so does whatever `read(.., None)` accepts
/// (without it); `read(.., None)` accepts at least what `from_bytes` does (it checks less)
/// and reads the same `summary` from the same bytes; and a reader returning 3 bytes at a
/// time gives `from_bytes`'s answer, error message included.
fn check_readers_agree<H, E: std::fmt::Display, S: PartialEq + std::fmt::Debug>(
    data: &[u8],
    from_bytes: impl Fn(&[u8]) -> Result<H, E>,
    read: impl Fn(&mut dyn Read, Option<u64>) -> Result<H, E>,
    invariants: impl Fn(&H, Option<u64>),
    summary: impl Fn(&H) -> S,
) {
    let whole = from_bytes(data);
    if let Ok(h) = &whole {
        invariants(h, Some(data.len() as u64));
    }
    let streamed = read(&mut { data }, None);
    if let Ok(h) = &streamed {
        invariants(h, None);
    }
    if let Ok(w) = &whole {
        let s = streamed
            .as_ref()
            .unwrap_or_else(|e| panic!("from_bytes accepted, read(None) rejected: {e}"));
        assert_eq!(summary(w), summary(s));
    }
    // Short reads change nothing.
    let trickled = read(&mut Trickle { data, chunk: 3 }, Some(data.len() as u64));
    assert_eq!(
        trickled.as_ref().map(&summary).map_err(|e| e.to_string()),
        whole.as_ref().map(&summary).map_err(|e| e.to_string())
    );
}

fn check_header_invariants(h: &SafetensorsHeader, file_len: Option<u64>) {
    let names = h.tensor_names();
    assert_eq!(names.len(), h.tensors().len());
    for t in h.tensors() {
        assert_eq!(h.get(&t.name), Some(t), "first entry named {:?}", t.name);
        assert_eq!(h.shape_of(&t.name), Some(t.shape.dims()));
        let (start, end) = t.data_offsets;
        assert!(start <= end, "{t:?}");
        let n = t
            .shape
            .numel()
            .expect("an accepted shape has an element count") as u128;
        let bytes = (n * t.dtype.bitsize() as u128).div_ceil(8);
        assert_eq!(u128::from(end - start), bytes, "{t:?}");
        if let Some(len) = file_len {
            assert!(
                8 + h.header_len() + end <= len,
                "{t:?} past the end of a {len}-byte file"
            );
        }
    }
}

const DTYPES: [(&str, u32); 12] = [
    ("F32", 32),
    ("F16", 16),
    ("BF16", 16),
    ("F64", 64),
    ("I8", 8),
    ("U8", 8),
    ("I64", 64),
    ("U32", 32),
    ("BOOL", 8),
    ("F8_E4M3", 8),
    ("F4", 4),
    ("F6_E2M3", 6),
];

/// A valid safetensors file built from the bytes, the tensors it holds, then mutated: the
/// valid file must be read back exactly; every mutation must be an error or a consistent header.
pub fn check_safetensors_structured(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let n = bytes.byte() % 5;
    let names = [
        "w",
        "bias",
        "layer.0.attn.q_proj.weight",
        "a\"b\\c",
        "ü∑",
        "__x",
    ];
    let mut json = String::from("{");
    let mut expected: Vec<(String, Shape)> = Vec::new();
    let mut offset: u64 = 0;
    if bytes.byte().is_multiple_of(3) {
        json.push_str(r#""__metadata__":{"format":"pt","k":"v"}"#);
    }
    for i in 0..n {
        let base = names[usize::from(bytes.byte()) % names.len()];
        let name = format!("{base}{i}");
        let (dtype, bits) = DTYPES[usize::from(bytes.byte()) % DTYPES.len()];
        let rank = usize::from(bytes.byte() % 5);
        let mut shape: Shape = (0..rank).map(|_| usize::from(bytes.byte() % 7)).collect();
        if !(shape.numel().unwrap_or(0) as u64 * u64::from(bits)).is_multiple_of(8) {
            // Sub-byte dtypes fill whole bytes (the safetensors crate refuses a partial one).
            shape = shape.iter().copied().chain([8]).collect();
        }
        let numel = shape.numel().unwrap_or(0) as u64;
        let len = (numel * u64::from(bits)).div_ceil(8);
        if json.len() > 1 {
            json.push(',');
        }
        let quoted = serde_json_string(&name);
        json.push_str(&format!(
            r#"{quoted}:{{"dtype":"{dtype}","shape":{:?},"data_offsets":[{offset},{}]}}"#,
            shape.dims(),
            offset + len
        ));
        offset += len;
        expected.push((name, shape));
    }
    json.push('}');
    let padding = usize::from(bytes.byte() % 4);
    json.push_str(&" ".repeat(padding));
    let mut file = (json.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(json.as_bytes());
    file.extend(std::iter::repeat_n(0u8, offset as usize));

    let h = SafetensorsHeader::from_bytes(&file)
        .unwrap_or_else(|e| panic!("a valid file is rejected: {e}\n{json}"));
    let got: Vec<(String, Shape)> = h
        .tensors()
        .iter()
        .map(|t| (t.name.clone(), t.shape.clone()))
        .collect();
    assert_eq!(got, expected, "{json}");
    check_safetensors_bytes(&file);

    // Mutations, driven by the rest of the bytes.
    let mut mutated = file.clone();
    let steps = bytes.byte() % 8;
    for _ in 0..steps {
        if mutated.is_empty() {
            break;
        }
        let at = (bytes.u64() % mutated.len() as u64) as usize;
        match bytes.byte() % 7 {
            0 => mutated[at] = bytes.byte(),
            1 => mutated[at] ^= 1 << (bytes.byte() % 8),
            2 => mutated.truncate(at),
            3 => {
                let b = *b"0123456789-,:[]{}\"e.";
                mutated.insert(at, b[usize::from(bytes.byte()) % b.len()]);
            }
            4 => {
                mutated.remove(at);
            }
            5 => {
                // Rewrite the length field.
                let len = bytes.u64() % (mutated.len() as u64 + 16);
                if mutated.len() >= 8 {
                    mutated[..8].copy_from_slice(&len.to_le_bytes());
                }
            }
            _ => {
                // Overwrite a digit with a long number (overflowing u64 or usize products).
                let big = b"18446744073709551615";
                let end = (at + big.len()).min(mutated.len());
                mutated[at..end].copy_from_slice(&big[..end - at]);
            }
        }
    }
    check_safetensors_bytes(&mutated);
}

fn serde_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ----- GGUF headers -------------------------------------------------------------------------

/// The `gguf_header` target: the first byte picks raw bytes (even) or a mutated valid GGUF v3
/// file (odd); the rest is the input.
pub fn check_gguf(data: &[u8]) {
    match data.split_first() {
        Some((mode, rest)) if mode % 2 == 1 => check_gguf_structured(rest),
        Some((_, rest)) => check_gguf_bytes(rest),
        None => check_gguf_bytes(data),
    }
}

/// A header as plain data, for comparing two reads (`GgufValue` holds floats, so compare the
/// `Debug` text: a NaN read twice prints the same).
fn gguf_summary(h: &GgufHeader) -> String {
    format!(
        "v{} align {} data {} meta {:?} tensors {:?}",
        h.version(),
        h.alignment(),
        h.data_offset(),
        h.metadata(),
        h.tensors()
    )
}

/// Raw bytes as a GGUF file: never a panic; whatever is accepted is self-consistent; and
/// `from_bytes`, `read(.., None)` and a reader returning 3 bytes at a time agree. Without the
/// file length the reader checks less (no extents, no bytes-left bounds), so it accepts at
/// least as much.
pub fn check_gguf_bytes(data: &[u8]) {
    check_readers_agree(
        data,
        GgufHeader::from_bytes,
        |r, len| GgufHeader::read(r, len),
        check_gguf_invariants,
        gguf_summary,
    );
}

fn check_gguf_invariants(h: &GgufHeader, file_len: Option<u64>) {
    assert!((1..=3).contains(&h.version()), "version {}", h.version());
    let align = h.alignment();
    assert!(align.is_power_of_two(), "alignment {align}");
    assert_eq!(
        h.data_offset() % align,
        0,
        "data offset {}",
        h.data_offset()
    );
    // magic + version + two counts (u32 in v1).
    let least = if h.version() == 1 { 16 } else { 24 };
    assert!(h.data_offset() >= least, "data offset {}", h.data_offset());
    match h.meta("general.alignment") {
        None => assert_eq!(align, GgufHeader::DEFAULT_ALIGNMENT),
        Some(v) => assert_eq!(v.as_u64(), Some(align)),
    }

    for (i, (k, v)) in h.metadata().iter().enumerate() {
        assert!(
            h.metadata()[..i].iter().all(|(k2, _)| k2 != k),
            "duplicate key {k:?} accepted"
        );
        assert_eq!(
            h.meta(k).map(|x| format!("{x:?}")),
            Some(format!("{v:?}")),
            "{k:?}"
        );
        check_gguf_value(v, 0);
    }

    let names = h.tensor_names();
    assert_eq!(names.len(), h.tensors().len());
    for (i, t) in h.tensors().iter().enumerate() {
        assert_eq!(names[i], t.name);
        assert_eq!(h.get(&t.name), Some(t), "first entry named {:?}", t.name);
        assert_eq!(h.shape_of(&t.name), Some(t.shape.dims()));
        assert!(t.shape.len() <= GgufHeader::MAX_DIMS, "{t:?}");
        let n = t
            .shape
            .numel()
            .expect("an accepted shape has an element count");
        assert!(i64::try_from(n).is_ok(), "{t:?}: {n} elements");
        assert_eq!(t.offset % align, 0, "{t:?} misaligned ({align})");
        if let Some((block, block_bytes)) = t.ggml_type.block() {
            let inner = t.shape.dims().last().copied().unwrap_or(1) as u64;
            assert_eq!(inner % block, 0, "{t:?}: a partial block");
            if let Some(len) = file_len {
                let end = u128::from(h.data_offset())
                    + u128::from(t.offset)
                    + (n as u128) / u128::from(block) * u128::from(block_bytes);
                assert!(end <= u128::from(len), "{t:?} past the end of {len} bytes");
            }
        }
    }
}

fn check_gguf_value(v: &GgufValue, depth: usize) {
    assert!(
        depth <= GgufHeader::MAX_ARRAY_DEPTH + 1,
        "nested {depth} deep"
    );
    let _ = (v.as_u64(), v.as_i64(), v.as_f64(), v.as_str(), v.as_bool());
    if let Some(u) = v.as_usize() {
        assert_eq!(v.as_u64(), Some(u as u64));
    }
    if let Some(a) = v.as_array() {
        assert_eq!(v.value_type(), GgufType::Array);
        if let Some(values) = a.values() {
            assert_eq!(values.len() as u64, a.len(), "{a:?}");
            assert!(a.len() <= GgufHeader::MAX_KEPT_ARRAY_LEN, "{}", a.len());
            for x in values {
                assert_eq!(x.value_type(), a.elem_type(), "{a:?}");
                check_gguf_value(x, depth + 1);
            }
        }
    }
}

/// (ggml type code, elements per block): a few plain and block-quantised types.
const GGML: [(u32, u64); 8] = [
    (0, 1),
    (1, 1),
    (30, 1),
    (24, 1),
    (8, 32),
    (2, 32),
    (12, 256),
    (39, 32),
];

fn gguf_string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

/// A valid GGUF v3 file built from the bytes (metadata of every scalar type, strings, arrays,
/// maybe `general.alignment`; tensors of plain and quantised types at aligned offsets, with
/// their data), read back exactly; then mutated, which must be an error or a consistent header.
pub fn check_gguf_structured(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let mut f = b"GGUF".to_vec();
    f.extend(3u32.to_le_bytes());
    let n_tensors = u64::from(bytes.byte() % 5);
    let n_kv_extra = bytes.byte() % 6;
    let alignment = match bytes.byte() % 6 {
        0 => Some(1u64),
        1 => Some(8),
        2 => Some(64),
        3 => Some(32),
        _ => None,
    };
    let n_kv = u64::from(n_kv_extra) + u64::from(alignment.is_some()) + 1;
    f.extend(n_tensors.to_le_bytes());
    f.extend(n_kv.to_le_bytes());

    let mut keys: Vec<String> = Vec::new();
    gguf_string(&mut f, "general.architecture");
    f.extend(8u32.to_le_bytes());
    gguf_string(&mut f, "llama");
    keys.push("general.architecture".into());
    if let Some(a) = alignment {
        gguf_string(&mut f, "general.alignment");
        // u32, as llama.cpp writes it, or u64.
        if bytes.byte().is_multiple_of(2) {
            f.extend(4u32.to_le_bytes());
            f.extend((a as u32).to_le_bytes());
        } else {
            f.extend(10u32.to_le_bytes());
            f.extend(a.to_le_bytes());
        }
        keys.push("general.alignment".into());
    }
    for i in 0..n_kv_extra {
        let key = format!("llama.k{i}");
        gguf_string(&mut f, &key);
        keys.push(key);
        let ty = u32::from(bytes.byte() % 13);
        f.extend(ty.to_le_bytes());
        gguf_value(&mut f, ty, &mut bytes, 0);
    }

    let align = alignment.unwrap_or(GgufHeader::DEFAULT_ALIGNMENT);
    let mut expected: Vec<(String, Shape, u32, u64)> = Vec::new();
    let mut offset = 0u64;
    for i in 0..n_tensors {
        let name = format!("blk.{i}.w");
        let (code, block) = GGML[usize::from(bytes.byte()) % GGML.len()];
        let (_, block_bytes) = shapes::checkpoint::GgmlType(code)
            .block()
            .expect("a known type");
        let rank = usize::from(bytes.byte() % 5);
        // ggml order: innermost first; the innermost a whole number of blocks.
        let mut ggml_dims: Vec<u64> = (0..rank).map(|_| u64::from(bytes.byte() % 4)).collect();
        if let Some(d0) = ggml_dims.first_mut() {
            *d0 *= block;
        } else if block > 1 {
            // A scalar is one element: not a whole block.
            ggml_dims.push(block);
        }
        gguf_string(&mut f, &name);
        f.extend((ggml_dims.len() as u32).to_le_bytes());
        for d in &ggml_dims {
            f.extend(d.to_le_bytes());
        }
        f.extend(code.to_le_bytes());
        f.extend(offset.to_le_bytes());
        let shape: Shape = ggml_dims.iter().rev().map(|&d| d as usize).collect();
        let numel: u64 = ggml_dims.iter().product();
        expected.push((name, shape, code, offset));
        offset = (offset + numel / block * block_bytes).next_multiple_of(align);
    }
    let data_offset = (f.len() as u64).next_multiple_of(align);
    f.resize((data_offset + offset) as usize, 0);

    let h = GgufHeader::from_bytes(&f).unwrap_or_else(|e| panic!("a valid file is rejected: {e}"));
    let got: Vec<(String, Shape, u32, u64)> = h
        .tensors()
        .iter()
        .map(|t| (t.name.clone(), t.shape.clone(), t.ggml_type.0, t.offset))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(
        h.metadata()
            .iter()
            .map(|(k, _)| k.clone())
            .collect::<Vec<_>>(),
        keys
    );
    assert_eq!(h.alignment(), align);
    assert_eq!(h.data_offset(), data_offset);
    assert_eq!(h.architecture(), Some("llama"));
    check_gguf_bytes(&f);

    // Mutations, driven by the rest of the bytes.
    let mut mutated = f;
    let steps = bytes.byte() % 8;
    for _ in 0..steps {
        if mutated.is_empty() {
            break;
        }
        let at = (bytes.u64() % mutated.len() as u64) as usize;
        match bytes.byte() % 7 {
            0 => mutated[at] = bytes.byte(),
            1 => mutated[at] ^= 1 << (bytes.byte() % 8),
            2 => mutated.truncate(at),
            3 => {
                let b = bytes.byte();
                mutated.insert(at, b);
            }
            4 => {
                mutated.remove(at);
            }
            5 => {
                // A length, count or dim: a u64 biased to the edges.
                let v = match bytes.byte() % 4 {
                    0 => u64::MAX - u64::from(bytes.byte()),
                    1 => 1u64 << (bytes.byte() % 64),
                    2 => u64::from(bytes.byte()),
                    _ => bytes.u64(),
                };
                let end = (at + 8).min(mutated.len());
                mutated[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
            }
            _ => {
                // A value type or ggml type code.
                let v = u32::from(bytes.byte() % 48);
                let end = (at + 4).min(mutated.len());
                mutated[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
            }
        }
    }
    check_gguf_bytes(&mutated);
}

/// One metadata value of type `ty` (a `gguf_metadata_value_type` code), its bytes from `bytes`.
fn gguf_value(out: &mut Vec<u8>, ty: u32, bytes: &mut Bytes<'_>, depth: usize) {
    match ty {
        0 | 1 => out.push(bytes.byte()),
        7 => out.push(bytes.byte() % 2),
        2 | 3 => out.extend([bytes.byte(), bytes.byte()]),
        4..=6 => out.extend((bytes.u64() as u32).to_le_bytes()),
        10..=12 => out.extend(bytes.u64().to_le_bytes()),
        8 => {
            const S: [&str; 5] = ["", "llama", "ü∑", "a\"b", "tok"];
            gguf_string(out, S[usize::from(bytes.byte()) % S.len()]);
        }
        _ => {
            // An array: of a scalar type, strings, or (shallowly) arrays.
            let elem = if depth < 2 {
                u32::from(bytes.byte() % 10)
            } else {
                u32::from(bytes.byte() % 9)
            };
            let len = u64::from(bytes.byte() % 5);
            out.extend(elem.to_le_bytes());
            out.extend(len.to_le_bytes());
            for _ in 0..len {
                gguf_value(out, elem, bytes, depth + 1);
            }
        }
    }
}

// ----- the solver ---------------------------------------------------------------------------

/// The function signatures the `solver` target applies: (name, signature, arity).
pub const SIGNATURES: [(&str, &str, usize); 16] = [
    ("matmul", "(a, b) -> (b, c) -> (a, c)", 2),
    ("add", "a -> a -> a", 2),
    ("broadcast_add", "a -> b -> (a || b)", 2),
    ("transpose", "a -> T^(1 0) a", 1),
    ("swap", "(a, b) -> (b, a)", 1),
    ("reshape", "{ a -> b -> b | (prod a = prod b) }", 2),
    ("slice", "a -> a[0:2]", 1),
    ("slice_step", "(a, b) -> (a, b)[::2, 1]", 1),
    ("sum", "a -> /^0 a", 1),
    ("sum_last", "a -> /^1 a", 1),
    ("concat", "a -> b -> a :{0}: b", 2),
    ("concat_cols", "(a, b) -> (a, c) -> (a, b + c)", 2),
    (
        "batched_matmul",
        "(*batch, s, d) -> (d, e) -> (*batch, s, e)",
        2,
    ),
    (
        "conv",
        "(b, c, h, w) -> (b, (h + 2*1 - 3) // 1 + 1, (w + 2*1 - 3) // 1 + 1, c * 9)",
        1,
    ),
    ("split", "(4 * d,) -> (d,)", 1),
    (
        "bilinear",
        "{ a -> b -> c -> ((a || b) || c) | D a <= 3 }",
        3,
    ),
];

/// Bytes → a signature from [`SIGNATURES`] and 1–3 argument shapes (dims biased as for
/// broadcasting; now and then an argument with variables) → `infer_app`: no panic; with all
/// arguments concrete and the function fully applied an `Ok` is concrete; for matmul, add and
/// broadcasting the answer is the reference's.
pub fn check_solver(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let (name, sig, arity) = SIGNATURES[usize::from(bytes.byte()) % SIGNATURES.len()];
    let f = parse(sig).unwrap_or_else(|e| panic!("{sig}: {e}"));
    let n_args = usize::from(bytes.byte() % 3) + 1;
    let mut shapes = Vec::new();
    let mut args = Vec::new();
    let mut all_concrete = true;
    for _ in 0..n_args {
        let s = small_rank_shape(&mut bytes);
        let tag = bytes.byte();
        if tag >= 0xf0 && !s.is_empty() {
            // Some dims replaced by variables (shared names across arguments on purpose).
            const VARS: [&str; 4] = ["a", "x", "y", "c1"];
            let items: Vec<String> = s
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    if (tag >> (i % 4)) & 1 == 1 {
                        VARS[(usize::from(tag) + i) % VARS.len()].to_owned()
                    } else {
                        d.to_string()
                    }
                })
                .collect();
            let text = format!("({},)", items.join(", "));
            args.push(parse(&text).unwrap_or_else(|e| panic!("{text}: {e}")));
            all_concrete = false;
        } else {
            args.push(Expr::shape(s.dims()));
        }
        shapes.push(s);
    }

    let got = shapes::solve::infer_app(&f, &args);
    let printed = match &got {
        Ok(e) => e.to_string(),
        Err(e) => e.to_string(),
    };
    let _ = printed;
    if !all_concrete || n_args != arity {
        return;
    }
    if let Ok(out) = &got {
        assert!(
            out.as_shape().is_some(),
            "{name} {sig} on {shapes:?} gave a non-concrete {out}"
        );
    }
    let reference: Option<Vec<usize>> = match name {
        "matmul" => {
            let (a, b) = (&shapes[0], &shapes[1]);
            (a.len() == 2 && b.len() == 2 && a[1] == b[0]).then(|| vec![a[0], b[1]])
        }
        "add" => (shapes[0] == shapes[1]).then(|| shapes[0].dims().to_vec()),
        "broadcast_add" => reference_broadcast(&shapes),
        _ => return,
    };
    let got = got.as_ref().ok().and_then(Expr::as_shape);
    assert_eq!(
        got.as_ref().map(|s| s.dims().to_vec()),
        reference,
        "{name} {sig} on {shapes:?}"
    );
}

/// A shape of rank 0..=4 (rank 5 now and then), dims biased as [`Bytes::dim`].
fn small_rank_shape(bytes: &mut Bytes<'_>) -> Shape {
    let r = bytes.byte();
    let rank = if r >= 0xfc { 5 } else { usize::from(r % 5) };
    (0..rank).map(|_| bytes.dim()).collect()
}

// ----- checkpoint readers (PyTorch pickle, numpy header, Checkpoint::from_bytes) -------------

/// The checkpoint readers: the first byte picks the mode. 0 mod 3: raw bytes through
/// `Checkpoint::from_bytes` (zip archives, npy, pickles inside, safetensors, GGUF). 1 mod 3: a
/// PyTorch state-dict pickle built from the bytes, read back exactly, then mutated. 2 mod 3:
/// a `.npy` header built from the bytes, read back exactly, then mutated.
pub fn check_checkpoint(data: &[u8]) {
    match data.split_first() {
        Some((mode, rest)) if mode % 3 == 1 => check_pickle_structured(rest),
        Some((mode, rest)) if mode % 3 == 2 => check_npy_structured(rest),
        Some((_, rest)) => check_checkpoint_bytes(rest),
        None => check_checkpoint_bytes(data),
    }
}

/// Never a panic; whatever is accepted is self-consistent: names unique and found by
/// `shape_of`, element counts that fit `i64`.
pub fn check_checkpoint_bytes(data: &[u8]) {
    if let Ok(c) = shapes::Checkpoint::from_bytes(data) {
        let mut names = std::collections::HashSet::new();
        for t in c.tensors() {
            assert!(names.insert(t.name.as_str()), "duplicate {:?}", t.name);
            assert_eq!(c.shape_of(&t.name), Some(t.shape.dims()));
            let n = t.shape.numel().expect("an element count that fits");
            assert!(i64::try_from(n).is_ok());
        }
    } else if let Err(e) = shapes::Checkpoint::from_bytes(data) {
        assert!(e.to_string().starts_with("<memory>"), "{e}");
        assert_eq!(format!("{e:?}"), e.to_string());
    }
}

fn small_name(bytes: &mut Bytes<'_>) -> String {
    let len = usize::from(bytes.byte() % 12) + 1;
    (0..len)
        .map(|_| char::from(b"abcxyz._019"[usize::from(bytes.byte()) % 11]))
        .collect()
}

fn small_dims(bytes: &mut Bytes<'_>) -> Vec<usize> {
    let rank = usize::from(bytes.byte() % 5);
    (0..rank).map(|_| usize::from(bytes.byte() % 9)).collect()
}

/// The pickle `torch.save` writes for these tensors (protocol 2, `OrderedDict`,
/// `_rebuild_tensor_v2`, persistent ids), with `memo_bin` choosing BINPUT or LONG_BINPUT.
pub fn torch_state_dict_pickle(tensors: &[(String, Vec<usize>)], long_memo: bool) -> Vec<u8> {
    fn unicode(p: &mut Vec<u8>, s: &str) {
        p.push(b'X');
        p.extend((s.len() as u32).to_le_bytes());
        p.extend(s.as_bytes());
    }
    let mut memo = 0u32;
    let mut put = |p: &mut Vec<u8>| {
        if long_memo {
            p.push(b'r');
            p.extend(memo.to_le_bytes());
        } else {
            p.push(b'q');
            p.push(memo as u8);
        }
        memo += 1;
    };
    let mut p = vec![0x80, 2];
    p.extend(b"ccollections\nOrderedDict\n");
    put(&mut p);
    p.extend([b')', b'R']);
    put(&mut p);
    p.push(b'(');
    for (key, (name, dims)) in tensors.iter().enumerate() {
        unicode(&mut p, name);
        p.extend(b"ctorch._utils\n_rebuild_tensor_v2\n");
        put(&mut p);
        p.extend([b'(', b'(']);
        unicode(&mut p, "storage");
        p.extend(b"ctorch\nHalfStorage\n");
        put(&mut p);
        unicode(&mut p, &key.to_string());
        unicode(&mut p, "cpu");
        p.push(b'J');
        p.extend((dims.iter().product::<usize>() as i32).to_le_bytes());
        p.extend([b't', b'Q', b'K', 0, b'(']);
        for d in dims {
            p.push(b'K');
            p.push(*d as u8);
        }
        p.extend([b't', b')', 0x89, b'N', b't', b'R']);
        put(&mut p);
    }
    p.extend([b'u', b'.']);
    p
}

pub fn check_pickle_structured(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let n = usize::from(bytes.byte() % 6);
    let mut tensors: Vec<(String, Vec<usize>)> = Vec::new();
    for _ in 0..n {
        let name = small_name(&mut bytes);
        let dims = small_dims(&mut bytes);
        // A later tensor of the same name replaces the earlier one in a dict; keep them unique.
        if !tensors.iter().any(|(t, _)| *t == name) {
            tensors.push((name, dims));
        }
    }
    let long = bytes.byte() % 2 == 1;
    let mut pickle = torch_state_dict_pickle(&tensors, long);
    let read = shapes::__testing::checkpoint_fuzz::pickle_tensors(&pickle)
        .unwrap_or_else(|e| panic!("a valid pickle refused: {e}"));
    let got: Vec<(String, Vec<usize>)> = read
        .iter()
        .map(|(n, s, d)| {
            assert_eq!(d, "F16");
            (n.clone(), s.dims().to_vec())
        })
        .collect();
    assert_eq!(got, tensors);
    // Mutations: never a panic; what is accepted is sane.
    while !pickle.is_empty() {
        let at = bytes.u64() as usize % pickle.len();
        let b = bytes.byte();
        if b == 0 {
            break;
        }
        pickle[at] = b;
        if let Ok(ts) = shapes::__testing::checkpoint_fuzz::pickle_tensors(&pickle) {
            for (_, s, _) in ts {
                assert!(s.numel().is_some_and(|n| i64::try_from(n).is_ok()));
            }
        }
    }
    let rest = bytes.rest();
    let _ = shapes::__testing::checkpoint_fuzz::pickle_tensors(rest);
}

pub fn check_npy_structured(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let dims = small_dims(&mut bytes);
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let version = 1 + bytes.byte() % 3;
    let dict = format!("{{'descr': '<i8', 'fortran_order': True, 'shape': {shape}, }}   \n");
    let mut npy = b"\x93NUMPY".to_vec();
    npy.extend([version, 0]);
    if version == 1 {
        npy.extend((dict.len() as u16).to_le_bytes());
    } else {
        npy.extend((dict.len() as u32).to_le_bytes());
    }
    npy.extend(dict.as_bytes());
    let (dtype, s) = shapes::__testing::checkpoint_fuzz::npy_header(&npy)
        .unwrap_or_else(|e| panic!("a valid header refused: {e}"));
    assert_eq!((dtype.as_str(), s.dims()), ("I64", dims.as_slice()));
    while !npy.is_empty() {
        let at = bytes.u64() as usize % npy.len();
        let b = bytes.byte();
        if b == 0 {
            break;
        }
        npy[at] = b;
        if let Ok((_, s)) = shapes::__testing::checkpoint_fuzz::npy_header(&npy) {
            assert!(s.rank() <= 64);
        }
    }
}

// ----- the solver, free-form ------------------------------------------------------------------

/// Writes a random expression of the shape language (ASCII spelling) into `out`, every
/// construct reachable: patterns with arithmetic, variadics, broadcastable dims and sizes of
/// other shapes, arrows, constraints, transposes, reductions, `Repeat`, concatenation,
/// broadcasting and slicing. `depth` bounds the nesting, so the text stays far below the
/// parser's cap and most of it parses.
fn gen_expr(b: &mut Bytes<'_>, depth: u32, out: &mut String) {
    let leaf = depth == 0 || b.rest().is_empty();
    match if leaf { b.byte() % 3 } else { b.byte() % 14 } {
        0 => gen_pattern(b, depth, out),
        1 => out.push_str(gen_name(b)),
        2 => out.push_str(&gen_int(b).to_string()),
        3 => {
            out.push('(');
            gen_expr(b, depth - 1, out);
            out.push_str(" -> ");
            gen_expr(b, depth - 1, out);
            out.push(')');
        }
        4 => {
            out.push_str("{ ");
            gen_expr(b, depth - 1, out);
            out.push_str(" | ");
            gen_pred(b, depth - 1, out);
            out.push_str(" }");
        }
        5 => {
            out.push_str("T^(");
            let n = b.byte() % 5;
            let axes: Vec<String> = (0..n).map(|_| (b.byte() % 6).to_string()).collect();
            out.push_str(&axes.join(" "));
            out.push_str(") ");
            gen_atomic(b, depth - 1, out);
        }
        6 => {
            out.push_str("/^");
            gen_axis(b, out);
            out.push(' ');
            gen_atomic(b, depth - 1, out);
        }
        7 => {
            out.push_str("Repeat^");
            gen_axis(b, out);
            out.push_str("{[");
            let n = b.byte() % 4;
            let counts: Vec<String> = (0..n).map(|_| gen_int(b).to_string()).collect();
            out.push_str(&counts.join(" "));
            out.push_str("]} ");
            gen_atomic(b, depth - 1, out);
        }
        8 => {
            out.push('(');
            gen_atomic(b, depth - 1, out);
            out.push_str(&format!(" :{{{}}}: ", b.byte() % 4));
            gen_atomic(b, depth - 1, out);
            out.push(')');
        }
        9 => {
            out.push('(');
            gen_expr(b, depth - 1, out);
            out.push_str(" || ");
            gen_expr(b, depth - 1, out);
            out.push(')');
        }
        10 => {
            gen_atomic(b, depth - 1, out);
            out.push('[');
            let n = b.byte() % 4;
            let idx: Vec<String> = (0..n.max(1)).map(|_| gen_index(b)).collect();
            out.push_str(&idx.join(", "));
            out.push(']');
        }
        11 => {
            let f = ["D ", "prod ", "sum "][usize::from(b.byte() % 3)];
            out.push_str(f);
            gen_atomic(b, depth - 1, out);
        }
        12 => {
            out.push('[');
            let n = b.byte() % 3;
            let idx: Vec<String> = (0..n.max(1)).map(|_| gen_index(b)).collect();
            out.push_str(&idx.join(", "));
            out.push(']');
        }
        _ => {
            let (kw, n) = if b.byte().is_multiple_of(2) {
                ("X", 6)
            } else {
                ("Sz", 200)
            };
            let len = b.byte() % 5;
            let items: Vec<String> = (0..len).map(|_| (b.byte() % n).to_string()).collect();
            out.push_str(&format!("{kw}[{}]", items.join(" ")));
        }
    }
}

/// An expression that needs no parentheses as a prefix operator's operand.
fn gen_atomic(b: &mut Bytes<'_>, depth: u32, out: &mut String) {
    if b.byte().is_multiple_of(2) {
        gen_pattern(b, depth, out);
    } else {
        out.push('(');
        gen_expr(b, depth, out);
        out.push(')');
    }
}

fn gen_name(b: &mut Bytes<'_>) -> &'static str {
    ["a", "b", "c", "x", "y", "n"][usize::from(b.byte() % 6)]
}

/// A size, biased towards the small values and the edges (0, 1, near `usize::MAX`, 2^40).
fn gen_int(b: &mut Bytes<'_>) -> usize {
    match b.byte() {
        0..=0xbf => usize::from(b.byte() % 8),
        0xc0..=0xdf => 1 << (b.byte() % 64),
        0xe0..=0xef => usize::MAX - usize::from(b.byte() % 4),
        _ => b.u64() as usize,
    }
}

fn gen_axis(b: &mut Bytes<'_>, out: &mut String) {
    match b.byte() % 5 {
        0 => out.push('='),
        n => out.push_str(&(n - 1).to_string()),
    }
}

fn gen_index(b: &mut Bytes<'_>) -> String {
    let signed = |b: &mut Bytes<'_>| {
        let v = gen_int(b);
        if b.byte().is_multiple_of(4) {
            format!("-{v}")
        } else {
            v.to_string()
        }
    };
    match b.byte() % 4 {
        0 => signed(b),
        1 => format!("{}:{}", signed(b), signed(b)),
        2 => format!(":{}", signed(b)),
        _ => format!("{}::{}", signed(b), signed(b)),
    }
}

fn gen_pattern(b: &mut Bytes<'_>, depth: u32, out: &mut String) {
    out.push('(');
    let n = b.byte() % 5;
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        match b.byte() % 8 {
            0 => out.push('_'),
            1 => out.push_str("..."),
            2 => {
                out.push('*');
                out.push_str(gen_name(b));
            }
            3 => {
                out.push('#');
                out.push_str(gen_name(b));
            }
            _ => gen_dim(b, depth, out),
        }
    }
    if n == 1 {
        out.push(',');
    }
    out.push(')');
}

fn gen_dim(b: &mut Bytes<'_>, depth: u32, out: &mut String) {
    let leaf = depth == 0 || b.rest().is_empty();
    match if leaf { b.byte() % 2 } else { b.byte() % 6 } {
        0 => out.push_str(&gen_int(b).to_string()),
        1 => out.push_str(gen_name(b)),
        2 => {
            out.push('(');
            gen_dim(b, depth - 1, out);
            out.push_str([" + ", " - ", " * ", " / ", " // ", " % "][usize::from(b.byte() % 6)]);
            gen_dim(b, depth - 1, out);
            out.push(')');
        }
        3 => {
            out.push_str(gen_name(b));
            out.push_str(&format!("[{}]", b.byte() % 3));
        }
        4 => {
            let f = ["D ", "prod ", "sum "][usize::from(b.byte() % 3)];
            out.push_str(f);
            gen_atomic(b, depth - 1, out);
        }
        _ => {
            out.push_str(gen_name(b));
            out.push_str(" * ");
            out.push_str(&gen_int(b).to_string());
        }
    }
}

fn gen_pred(b: &mut Bytes<'_>, depth: u32, out: &mut String) {
    let leaf = depth == 0 || b.rest().is_empty();
    match if leaf { 0 } else { b.byte() % 4 } {
        0 => {
            if b.byte().is_multiple_of(3) {
                out.push_str("all ");
                gen_atomic(b, depth.saturating_sub(1), out);
            } else {
                gen_dim(b, depth.saturating_sub(1), out);
            }
            out.push_str([" = ", " != ", " < ", " <= ", " > ", " >= "][usize::from(b.byte() % 6)]);
            gen_dim(b, depth.saturating_sub(1), out);
        }
        1 => {
            out.push_str("K ");
            gen_atomic(b, depth - 1, out);
            out.push_str(" ~ K ");
            gen_atomic(b, depth - 1, out);
        }
        n => {
            out.push('(');
            gen_pred(b, depth - 1, out);
            out.push_str(if n == 2 { " && " } else { " || " });
            gen_pred(b, depth - 1, out);
            out.push(')');
        }
    }
}

/// The `solver_free` target: a function and one to three arguments written from the bytes in
/// the whole language (not a fixed menu: `Repeat`, arithmetic with huge sizes, constraints,
/// slices with extreme steps), then `infer_app` and `unify` on them. No panic, no unbounded
/// allocation; an answer prints to text that parses back to the same expression.
pub fn check_solver_free(data: &[u8]) {
    let mut b = Bytes::new(data);
    let depth = u32::from(b.byte() % 5) + 1;
    let mut texts = Vec::new();
    let n = usize::from(b.byte() % 3) + 2;
    for _ in 0..n {
        let mut s = String::new();
        gen_expr(&mut b, depth, &mut s);
        texts.push(s);
    }
    let exprs: Vec<Expr> = texts.iter().filter_map(|t| parse(t).ok()).collect();
    let Some((f, args)) = exprs.split_first() else {
        return;
    };
    if let Ok(out) = shapes::solve::infer_app(f, args) {
        check_solver_answer(&out, &texts);
    }
    if let [x, y, ..] = exprs.as_slice()
        && let Ok(s) = shapes::solve::unify(x, y)
    {
        let _ = format!("{s:?}");
        let _ = s.apply(x).eval();
    }
}

fn check_solver_answer(out: &Expr, texts: &[String]) {
    for text in [out.to_string(), format!("{out:#}")] {
        let back = parse(&text).unwrap_or_else(|e| panic!("{texts:?} gave {text}: {e}"));
        assert_eq!(&back, out, "{texts:?} gave {text}");
    }
}
