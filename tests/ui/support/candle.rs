//! A stand-in for candle's `Tensor` in the `flow_*` compile-fail cases: candle's method names
//! and signatures, no arithmetic (the cases are never run). `#[shapes::check]` reads a body's
//! syntax only, so a case needs a body that type-checks, not candle itself, which trybuild
//! would compile once more for this package (see the package's Cargo.toml).
#![allow(dead_code)]

use shapes::verify::HasShape;

#[derive(Debug)]
pub struct Error;

impl From<shapes::ShapeError> for Error {
    fn from(_: shapes::ShapeError) -> Self {
        Error
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// An axis counted from the end, as candle's `D`.
pub enum D {
    Minus1,
    Minus2,
    Minus(usize),
}

pub trait Dim {}
impl Dim for usize {}
impl Dim for D {}

#[derive(Clone, Debug)]
pub struct Tensor {
    dims: Vec<usize>,
}

impl HasShape for Tensor {
    type Dims<'a> = &'a [usize];
    fn shape(&self) -> &[usize] {
        &self.dims
    }
}

impl Tensor {
    fn same(&self) -> Result<Tensor> {
        Ok(self.clone())
    }
    pub fn matmul(&self, _: &Tensor) -> Result<Tensor> {
        self.same()
    }
    pub fn broadcast_matmul(&self, _: &Tensor) -> Result<Tensor> {
        self.same()
    }
    pub fn broadcast_add(&self, _: &Tensor) -> Result<Tensor> {
        self.same()
    }
    pub fn broadcast_mul(&self, _: &Tensor) -> Result<Tensor> {
        self.same()
    }
    pub fn t(&self) -> Result<Tensor> {
        self.same()
    }
    pub fn transpose<A: Dim, B: Dim>(&self, _: A, _: B) -> Result<Tensor> {
        self.same()
    }
    pub fn reshape<S>(&self, _: S) -> Result<Tensor> {
        self.same()
    }
    pub fn contiguous(&self) -> Result<Tensor> {
        self.same()
    }
    pub fn gelu(&self) -> Result<Tensor> {
        self.same()
    }
    pub fn silu(&self) -> Result<Tensor> {
        self.same()
    }
    pub fn unsqueeze<A: Dim>(&self, _: A) -> Result<Tensor> {
        self.same()
    }
    pub fn narrow<A: Dim>(&self, _: A, _: usize, _: usize) -> Result<Tensor> {
        self.same()
    }
    pub fn dim<A: Dim>(&self, _: A) -> Result<usize> {
        Ok(self.dims.len())
    }
    pub fn dims3(&self) -> Result<(usize, usize, usize)> {
        Ok((0, 0, 0))
    }
    pub fn dims4(&self) -> Result<(usize, usize, usize, usize)> {
        Ok((0, 0, 0, 0))
    }
    pub fn cat(parts: &[&Tensor], _: usize) -> Result<Tensor> {
        parts.first().map_or(Err(Error), |t| t.same())
    }
    pub fn stack(parts: &[&Tensor], _: usize) -> Result<Tensor> {
        parts.first().map_or(Err(Error), |t| t.same())
    }
    pub fn permute<P>(&self, _: P) -> Result<Tensor> {
        self.same()
    }
}

impl std::ops::Add<Tensor> for &Tensor {
    type Output = Result<Tensor>;
    fn add(self, _: Tensor) -> Result<Tensor> {
        self.same()
    }
}

impl std::ops::Mul<Tensor> for &Tensor {
    type Output = Result<Tensor>;
    fn mul(self, _: Tensor) -> Result<Tensor> {
        self.same()
    }
}

impl std::ops::Div<f64> for Tensor {
    type Output = Result<Tensor>;
    fn div(self, _: f64) -> Result<Tensor> {
        self.same()
    }
}

pub mod ops {
    use super::{Result, Tensor};

    pub fn softmax_last_dim(x: &Tensor) -> Result<Tensor> {
        Ok(x.clone())
    }
}

/// Stand-ins for `candle_nn`'s layers: the same names, their weights declared with
/// `#[derive(Shaped)]` in the variables of the real ones (what a model's `rename(…)` names).
pub mod nn {
    use super::{Result, Tensor};

    pub trait Module {
        fn forward(&self, xs: &Tensor) -> Result<Tensor>;
    }

    #[derive(shapes::Shaped)]
    pub struct Linear {
        #[shape("(d_out, d_in)")]
        weight: Tensor,
    }

    #[derive(shapes::Shaped)]
    pub struct LayerNorm {
        #[shape("(d_model,)")]
        weight: Tensor,
    }

    #[derive(shapes::Shaped)]
    pub struct RmsNorm {
        #[shape("(d_model,)")]
        weight: Tensor,
    }

    impl Module for Linear {
        fn forward(&self, xs: &Tensor) -> Result<Tensor> {
            Ok(xs.clone())
        }
    }

    impl Module for LayerNorm {
        fn forward(&self, xs: &Tensor) -> Result<Tensor> {
            Ok(xs.clone())
        }
    }

    impl Module for RmsNorm {
        fn forward(&self, xs: &Tensor) -> Result<Tensor> {
            Ok(xs.clone())
        }
    }
}
