//! The model both parity tests check two ways: as this `#[derive(Shaped)]` struct, and as a
//! run-time `Plan` (tests/it/plan_parity.rs) or a spec file (shapes-cli's parity test) with
//! the same patterns. Read by name only, so no field is ever constructed.

use shapes::{Shape, Shaped};

#[derive(Shaped)]
#[allow(dead_code)]
pub struct Layer {
    #[shape("(d_ff, d_model)")]
    up: Shape,
    #[shape("(d_model, d_ff)")]
    down: Shape,
    #[shape("(d_ff,)")]
    bias: Option<Shape>,
}

#[derive(Shaped)]
#[shapes(given = "heads", where = "d_model = heads * head_dim")]
#[allow(dead_code)]
pub struct Model {
    #[shape("(vocab, d_model)")]
    embed: Shape,
    #[shape("(heads * head_dim, d_model)")]
    proj: Shape,
    #[shape("(*batch, d_model)")]
    scale: Shape,
    #[shape(nested, count = "n_layers")]
    layers: Vec<Layer>,
}
