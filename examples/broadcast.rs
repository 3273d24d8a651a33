//! numpy's broadcasting rule on the examples of stdlib-js's `broadcast-shapes` documentation,
//! printed as a table: the inputs, then the result or the error we report.
//!
//! `cargo run --example broadcast`

use shapes::{Shape, broadcast::broadcast_shapes_into, broadcast_shapes};

/// stdlib-js's documented examples (`@stdlib/ndarray/base/broadcast-shapes`, `lib/main.js`),
/// plus a few of its and numpy's error cases.
const CASES: &[&[&[usize]]] = &[
    &[&[8, 1, 6, 1], &[7, 1, 5]],
    &[&[5, 4], &[1]],
    &[&[5, 4], &[4]],
    &[&[15, 3, 5], &[15, 1, 5]],
    &[&[15, 3, 5], &[3, 5]],
    &[&[15, 3, 5], &[3, 1]],
    &[&[8, 1, 1, 6, 1], &[1, 7, 1, 5], &[8, 4, 1, 6, 5]],
    &[&[8, 1, 1, 6, 1], &[0]],
    &[&[8, 1, 1, 6, 1], &[8, 0, 1, 6, 1]],
    &[&[8, 8, 1, 6, 1], &[8, 0, 1, 6, 1]],
    &[&[8, 0, 1, 6, 1], &[8, 8, 1, 6, 1]],
    &[&[]],
    &[&[], &[]],
    &[],
    &[&[3, 2, 1], &[]],
    &[&[3], &[4]],
    &[&[2, 3], &[2]],
    &[&[1, 2], &[3, 1], &[3, 2], &[10, 5]],
];

fn main() {
    let inputs: Vec<String> = CASES
        .iter()
        .map(|shapes| {
            if shapes.is_empty() {
                "shapes: (none)".to_owned()
            } else {
                let list: Vec<String> = shapes.iter().map(|s| Shape::new(s).to_string()).collect();
                format!("shapes: {}", list.join(", "))
            }
        })
        .collect();
    let width = inputs.iter().map(String::len).max().unwrap_or(0);

    for (shapes, input) in CASES.iter().zip(&inputs) {
        let outcome = match broadcast_shapes(shapes) {
            Ok(out) => out.to_string(),
            Err(e) => format!("error: {e}"),
        };
        println!("{input:<width$} => {outcome}");
    }

    // The same without allocating: the result goes into a caller's buffer.
    let mut out = [0usize; 8];
    let rank = broadcast_shapes_into(&[[8, 1, 6, 1].as_slice(), &[7, 1, 5]], &mut out)
        .expect("documented example broadcasts");
    println!();
    println!(
        "broadcast_shapes_into: (8, 1, 6, 1), (7, 1, 5) => {:?} in a buffer of {}",
        &out[..rank],
        out.len()
    );
}
