use shapes::{Shape, check};

// `panic` makes a `Result` function panic; this one panics on a mismatch already.
#[check(panic)]
fn f(#[shape("(n, n)")] x: &Shape) -> usize {
    x.dims()[0]
}

fn main() {}
