use shapes::{Shape, check};

// `sqe` beside `seq`: each used once, neither checks anything, so a mask of another length
// would pass.
#[check]
fn attend(#[shape("(batch, seq, d)")] ids: &Shape, #[shape("(batch, sqe)")] mask: &Shape) {}

fn main() {}
