//! The broadcasting family: numpy's N-ary rule ([`broadcast_shapes`]), an allocation-free
//! variant ([`broadcast_shapes_into`]), `i64` shapes ([`predict_broadcast_shape`]), the
//! two-way test ([`are_broadcastable`]), one-directional [`broadcast_to`], TBE's kernel
//! refinement ([`refine_shapes_for_broadcast`]), and broadcasting by dim name
//! ([`NamedShape`], [`broadcast_named`], [`broadcast_missing_dimensions`]).

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
