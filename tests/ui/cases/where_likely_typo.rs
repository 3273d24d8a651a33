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

// A name only a comparison uses is bound by nothing: `d_modle >= 1` checks no field.
#[derive(Shaped)]
#[shapes(where = "d_model % heads = 0, d_modle >= 1")]
struct T {
    #[shape("(d_model, heads)")]
    x: Shape,
    #[shape("(heads, d_model)")]
    y: Shape,
}

fn main() {}
