// What `#[shapes::check]` on an `impl` block and `dim = "…"` on a field accept.

#[path = "../support/candle.rs"]
mod candle;

use candle::Tensor;
use shapes::Shaped;

#[derive(Shaped)]
struct Sizes {
    #[shape("(heads, d)")]
    w: Tensor,
    // A size is a `usize`.
    #[shape(dim = "heads")]
    heads: u32,
    // A size names one variable.
    #[shape(dim = "2 * d")]
    twice: usize,
    // A field is a tensor, `nested` or a size.
    #[shape("(d,)", dim = "d")]
    both: usize,
}

#[derive(Shaped)]
struct Model {
    #[shape("(d,)")]
    w: Tensor,
}

// The options of the checks go on the methods.
#[shapes::check(ret = "(d,)")]
impl Model {}

trait Named {}

// The impl's type is the struct's path.
#[shapes::check]
impl Named for &'static Model {}

// The struct does not derive `Shaped`: its declarations cannot be read.
struct Plain;

#[shapes::check]
impl Plain {}

fn main() {}
