//! The broadcasting family against other libraries' own test suites, case by case.
//!
//! The cases live in `tests/data/conformance/*.jsonl`, one JSON object per line:
//!
//! - `numpy_broadcast_shapes.jsonl`, `stdlib_broadcast_shapes.jsonl`: `{"shapes", "result",
//!   "source"}`, where a `null` result means the library raises (numpy) or returns `null`
//!   (stdlib-js), and we must return an `Err`;
//! - `numpy_broadcast_to.jsonl`: `{"from", "to", "ok", "source"}`;
//! - `refine_shapes_for_broadcast.jsonl`: `{"shape1", "shape2", "refined1", "refined2",
//!   "refined_out", "note"}` (Ascend TBE's documented examples and hand-checked cases).
//!
//! Every test reads every line, asserts it read as many cases as the file has lines (so an
//! empty or truncated file cannot pass), and lists every failing case with its source before
//! failing, rather than stopping at the first.

use std::fmt::Write as _;

use serde_json::Value;
use shapes::{
    Shape,
    broadcast::{
        BroadcastErrorKind, are_broadcastable, broadcast_shapes_into, broadcast_to,
        predict_broadcast_shape, refine_shapes_for_broadcast,
    },
    broadcast_shapes,
};

/// One parsed line of a conformance file, with its 1-based line number.
struct Case {
    line: usize,
    value: Value,
}

impl Case {
    fn field(&self, key: &str) -> &Value {
        self.value
            .get(key)
            .unwrap_or_else(|| panic!("line {}: no field {key:?} in {}", self.line, self.value))
    }

    /// Where the case comes from: its `source`, else its `note`.
    fn origin(&self) -> String {
        let text = self
            .value
            .get("source")
            .or_else(|| self.value.get("note"))
            .and_then(Value::as_str)
            .unwrap_or("(no source)");
        format!("line {}: {text}", self.line)
    }
}

/// Reads every line of `tests/data/conformance/<name>`; panics on a line that is not JSON.
fn read_cases(name: &str) -> Vec<Case> {
    let path = format!(
        "{}/tests/data/conformance/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let lines = text.lines().count();
    let cases: Vec<Case> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| Case {
            line: i + 1,
            value: serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{path}:{}: not JSON: {e}", i + 1)),
        })
        .collect();
    assert!(lines > 0, "{path} is empty");
    assert_eq!(
        cases.len(),
        lines,
        "{path}: read {} cases from {lines} lines (blank lines?)",
        cases.len()
    );
    cases
}

/// A JSON array of integers as dims. A negative (or non-integer) dim cannot be a `usize`: that
/// is an `Err` with the offending value, which the callers count as "rejected".
fn dims(v: &Value) -> Result<Vec<usize>, String> {
    let arr = v.as_array().ok_or_else(|| format!("not an array: {v}"))?;
    arr.iter()
        .map(|d| {
            d.as_i64()
                .and_then(|d| usize::try_from(d).ok())
                .ok_or_else(|| format!("dim {d} is not a usize"))
        })
        .collect()
}

/// A JSON array of shapes.
fn shape_list(v: &Value) -> Vec<Vec<usize>> {
    v.as_array()
        .unwrap_or_else(|| panic!("shapes is not an array: {v}"))
        .iter()
        .map(|s| dims(s).unwrap_or_else(|e| panic!("bad shape {s}: {e}")))
        .collect()
}

fn fmt_shapes(shapes: &[Vec<usize>]) -> String {
    let parts: Vec<String> = shapes.iter().map(|s| Shape::new(s).to_string()).collect();
    parts.join(", ")
}

fn report(file: &str, total: usize, failures: &[String]) {
    if !failures.is_empty() {
        let mut msg = format!("{file}: {} of {total} cases fail:\n", failures.len());
        for f in failures {
            let _ = writeln!(msg, "  - {f}");
        }
        panic!("{msg}");
    }
}

/// Checks one `broadcast_shapes` case and everything that must agree with it; returns what is
/// wrong, if anything.
fn check_broadcast_shapes_case(case: &Case) -> Vec<String> {
    let shapes = shape_list(case.field("shapes"));
    let expected: Option<Vec<usize>> = match case.field("result") {
        Value::Null => None,
        r => Some(dims(r).unwrap_or_else(|e| panic!("{}: bad result: {e}", case.origin()))),
    };
    let what = format!("{} [{}]", case.origin(), fmt_shapes(&shapes));
    let mut problems = Vec::new();

    let owned = broadcast_shapes(&shapes);
    match (&owned, &expected) {
        (Ok(got), Some(want)) if got == want => {}
        (Err(_), None) => {}
        (got, want) => problems.push(format!(
            "{what}: broadcast_shapes gave {got:?}, expected {}",
            want.as_ref()
                .map_or("an error".to_owned(), |w| Shape::new(w).to_string())
        )),
    }

    // `broadcast_shapes_into` with room to spare: the same answer, and the tail untouched.
    const SENTINEL: usize = 0xdead;
    let mut buf = vec![SENTINEL; shapes.iter().map(Vec::len).max().unwrap_or(0) + 3];
    let into = broadcast_shapes_into(&shapes, &mut buf);
    match (&into, &owned) {
        (Ok(rank), Ok(shape)) if buf[..*rank] == shape[..] => {}
        (Err(a), Err(b)) if a == b => {}
        (into, owned) => problems.push(format!(
            "{what}: broadcast_shapes_into gave {into:?} (buffer {buf:?}), broadcast_shapes gave {owned:?}"
        )),
    }
    if let Ok(rank) = into
        && buf[rank..].iter().any(|&d| d != SENTINEL)
    {
        problems.push(format!(
            "{what}: broadcast_shapes_into wrote past the rank: {buf:?}"
        ));
    }

    // Every input broadcasts to the result (numpy's `broadcast_to` of each operand).
    if let Ok(out) = &owned {
        for s in &shapes {
            if let Err(e) = broadcast_to(s, out) {
                problems.push(format!("{what}: broadcast_to({s:?}, {out}) failed: {e}"));
            }
        }
    }

    // Two-shape cases also through the pairwise entry points.
    if let [a, b] = shapes.as_slice() {
        if are_broadcastable(a, b).is_ok() != expected.is_some() {
            problems.push(format!(
                "{what}: are_broadcastable gave {:?}",
                are_broadcastable(a, b)
            ));
        }
        let to_i64 =
            |s: &[usize]| -> Vec<i64> { s.iter().map(|&d| i64::try_from(d).unwrap()).collect() };
        let predicted = predict_broadcast_shape(&to_i64(a), &to_i64(b));
        if predicted.as_ref().ok() != owned.as_ref().ok() {
            problems.push(format!(
                "{what}: predict_broadcast_shape gave {predicted:?}, broadcast_shapes {owned:?}"
            ));
        }
    }

    // An error is `Incompatible` and points at an axis where two inputs really disagree.
    if let Err(e) = &owned {
        match e.kind() {
            BroadcastErrorKind::Incompatible {
                lhs_input,
                rhs_input,
                axis_from_end,
                lhs_dim,
                rhs_dim,
                ..
            } => {
                let at = |i: usize| {
                    let s = &shapes[i];
                    s.len().checked_sub(*axis_from_end).map(|j| s[j])
                };
                let ok = lhs_dim != rhs_dim
                    && *lhs_dim != 1
                    && *rhs_dim != 1
                    && at(*lhs_input) == Some(*lhs_dim)
                    && at(*rhs_input) == Some(*rhs_dim);
                if !ok {
                    problems.push(format!("{what}: misleading error {e:?}"));
                }
            }
            other => problems.push(format!("{what}: unexpected error kind {other:?}")),
        }
    }
    problems
}

fn run_broadcast_shapes_file(file: &str) {
    let cases = read_cases(file);
    let failures: Vec<String> = cases.iter().flat_map(check_broadcast_shapes_case).collect();
    report(file, cases.len(), &failures);
}

#[test]
fn numpy_broadcast_shapes() {
    run_broadcast_shapes_file("numpy_broadcast_shapes.jsonl");
}

#[test]
fn stdlib_broadcast_shapes() {
    run_broadcast_shapes_file("stdlib_broadcast_shapes.jsonl");
}

#[test]
fn numpy_broadcast_to() {
    let file = "numpy_broadcast_to.jsonl";
    let cases = read_cases(file);
    let mut failures = Vec::new();
    for case in &cases {
        let expected_ok = case
            .field("ok")
            .as_bool()
            .unwrap_or_else(|| panic!("{}: `ok` is not a bool", case.origin()));
        // numpy's suite includes targets such as `(-1,)`. Our API takes `&[usize]`, so a
        // negative dim cannot even be passed: it is rejected at the conversion
        // (`usize::try_from` in `dims`), and that rejection is this case's error.
        let result: Result<(), String> = dims(case.field("from"))
            .and_then(|from| Ok((from, dims(case.field("to"))?)))
            .and_then(|(from, to)| broadcast_to(&from, &to).map_err(|e| e.to_string()));
        if result.is_ok() != expected_ok {
            failures.push(format!(
                "{}: broadcast_to({}, {}) gave {result:?}, expected {}",
                case.origin(),
                case.field("from"),
                case.field("to"),
                if expected_ok { "Ok" } else { "an error" }
            ));
        }
    }
    report(file, cases.len(), &failures);
}

#[test]
fn refine_shapes_for_broadcast_cases() {
    let file = "refine_shapes_for_broadcast.jsonl";
    let cases = read_cases(file);
    let mut failures = Vec::new();
    let get = |case: &Case, key: &str| {
        dims(case.field(key)).unwrap_or_else(|e| panic!("{}: {key}: {e}", case.origin()))
    };
    for case in &cases {
        let (a, b) = (get(case, "shape1"), get(case, "shape2"));
        let want1 = get(case, "refined1");
        let want2 = get(case, "refined2");
        let want_out = get(case, "refined_out");
        let what = format!(
            "{} [{} with {}]",
            case.origin(),
            Shape::new(&a),
            Shape::new(&b)
        );
        match refine_shapes_for_broadcast(&a, &b) {
            Err(e) => failures.push(format!("{what}: refine failed: {e}")),
            Ok((r1, r2)) => {
                if r1 != want1 || r2 != want2 {
                    failures.push(format!(
                        "{what}: refined to ({r1}, {r2}), expected ({}, {})",
                        Shape::new(&want1),
                        Shape::new(&want2)
                    ));
                }
                match broadcast_shapes(&[&r1, &r2]) {
                    Ok(out) if out == want_out => {}
                    got => failures.push(format!(
                        "{what}: broadcast_shapes(refined) gave {got:?}, expected {}",
                        Shape::new(&want_out)
                    )),
                }
                // The refinement describes the same loop: same element count as the original.
                let original = broadcast_shapes(&[&a, &b]).map(|s| s.numel());
                if original != Ok(shapes::shape::numel(&want_out)) {
                    failures.push(format!(
                        "{what}: element count {original:?} vs refined_out's {:?}",
                        shapes::shape::numel(&want_out)
                    ));
                }
            }
        }
    }
    report(file, cases.len(), &failures);
}
