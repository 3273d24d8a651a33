use shapes::{Shape, Shaped};

// `#[shape]` on the struct (an easy slip for `#[shapes]`): its `where` and `given` would be
// dropped without a word.
#[derive(Shaped)]
#[shape(given = "heads", where = "d_model = heads * head_dim")]
struct Attention {
    #[shape("(d_model, heads * head_dim)")]
    w_q: Shape,
}

fn main() {}
