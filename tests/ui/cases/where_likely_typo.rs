use shapes::{Shape, Shaped};

// A name only a `where` clause uses is fine when the clause determines it; beside a much-used
// name it is close to, it is a likely typo.
#[derive(Shaped)]
#[shapes(where = "d_model = heads * head_dm")]
struct S {
    #[shape("(d_model, heads * head_dim)")]
    x: Shape,
    #[shape("(heads, head_dim)")]
    y: Shape,
}

fn main() {}
