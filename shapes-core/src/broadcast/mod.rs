//! The broadcasting family: numpy's N-ary rule, an allocation-free variant, `i64` shapes,
//! one-directional `broadcast_to`, TBE's kernel refinement, and broadcasting by dim name.

mod error;
mod named;
mod numpy;
mod refine;

pub use error::{BroadcastError, BroadcastErrorKind};
pub use named::{NamedShape, NamedStrategy, broadcast_missing_dimensions, broadcast_named};
pub use numpy::{
    are_broadcastable, broadcast_shapes, broadcast_shapes_into, broadcast_to,
    predict_broadcast_shape,
};
pub use refine::refine_shapes_for_broadcast;
