//! [`HasShape`]: anything whose shape can be read.

use crate::shape::Shape;

/// A value with a tensor shape: a tensor type of an ML crate, a [`Shape`], a fixed-size array of
/// numbers.
///
/// `shape` returns its dims through an associated type, so a type that stores its shape
/// returns a borrowed slice and a type that computes it (burn's `Tensor::dims`, nalgebra's
/// `(rows, cols)`) returns an array by value: neither allocates.
///
/// # Which types are tensors
///
/// A `Vec<f32>` could be read as data of shape `(len,)` or as a list of scalars; to keep field
/// types unambiguous, `shapes` never treats `Vec` or slices as data. Implemented here:
/// - [`Shape`] and [`Dims`] (a newtype for a plain `[usize; N]` / `Vec<usize>` / `&[usize]`
///   that *is* a shape);
/// - fixed-size arrays of numbers, `[E; N]`, `[[E; M]; N]`, … up to rank 4, whose shape the
///   compiler knows (`[[f32; 4]; 3]` has shape `(3, 4)`), where `E` is a primitive number or
///   `bool`;
/// - `&T`, `&mut T`, `Box<T>`, `Rc<T>`, `Arc<T>` of a `HasShape`;
/// - behind features: ndarray's `ArrayBase`, candle's `Tensor`, burn's `Tensor`, nalgebra's
///   `Matrix`, safetensors' `TensorView`.
///
/// In a `#[derive(Shaped)]` struct, `Option<T>`, `Vec<T>`, `[T; N]` and slices of tensors are
/// handled by the derive (each element is checked), not through this trait.
///
/// ```
/// use shapes::{Shape, verify::{Dims, HasShape}};
///
/// assert_eq!(Shape::from([2, 3]).shape().as_ref(), &[2, 3]);
/// assert_eq!(Dims([4usize, 5]).shape().as_ref(), &[4, 5]);
/// let m = [[0.0f32; 4]; 3];
/// assert_eq!(m.shape().as_ref(), &[3, 4]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor type: `shapes` cannot read its shape (`HasShape`)",
    label = "not a tensor: a pattern is checked against a tensor's shape",
    note = "a field of a `#[derive(Shaped)]` struct that holds a layer or a struct of tensors (`candle_nn::Linear`, your own `Block`) takes `#[shape(nested)]` (with `rename(…)` to map its variables), not a pattern",
    note = "a tensor type gets `HasShape` from the feature of its crate: `candle`, `burn`, `ndarray`, `nalgebra`, `safetensors`"
)]
pub trait HasShape {
    /// How the dims are handed out: a borrowed slice or an owned array.
    type Dims<'a>: AsRef<[usize]>
    where
        Self: 'a;

    /// The dims, outermost first.
    fn shape(&self) -> Self::Dims<'_>;
}

/// The dims `shape` hands out, as a slice: what derived code calls on the value of
/// [`HasShape::shape`] (one short call rather than a fully qualified `AsRef`, per field).
///
/// ```
/// use shapes::verify::HasShape;
/// let s = shapes::Shape::from([2, 3]);
/// assert_eq!(shapes::__private::dims(&s.shape()), &[2, 3]);
/// ```
#[inline(always)]
pub fn dims<D: AsRef<[usize]> + ?Sized>(shape: &D) -> &[usize] {
    shape.as_ref()
}

impl HasShape for Shape {
    type Dims<'a> = &'a [usize];
    #[inline]
    fn shape(&self) -> &[usize] {
        self.dims()
    }
}

/// A plain list of dims used as a shape: `Dims([768, 3072])`, `Dims(vec![2, 3])`.
///
/// ```
/// use shapes::verify::{Dims, HasShape};
/// assert_eq!(Dims(vec![2usize, 3]).shape().as_ref(), &[2, 3]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Dims<D>(pub D);

impl<D: AsRef<[usize]>> HasShape for Dims<D> {
    type Dims<'a>
        = &'a [usize]
    where
        D: 'a;
    #[inline]
    fn shape(&self) -> &[usize] {
        self.0.as_ref()
    }
}

/// A size, read as the 1-d shape `(n,)`: what lets a `usize` field of a derived struct hold
/// one of its variables (`#[shape(dim = "heads")] num_heads: usize`), checked and bound with
/// the tensors' dims by `verify()`.
///
/// ```
/// use shapes::verify::HasShape;
/// assert_eq!(12usize.shape(), [12]);
/// ```
impl HasShape for usize {
    type Dims<'a> = [usize; 1];
    #[inline]
    fn shape(&self) -> [usize; 1] {
        [*self]
    }
}

macro_rules! forward {
    ($($ty:ty),*) => {$(
        impl<T: HasShape + ?Sized> HasShape for $ty {
            type Dims<'a> = T::Dims<'a> where Self: 'a;
            #[inline]
            fn shape(&self) -> Self::Dims<'_> {
                (**self).shape()
            }
        }
    )*};
}

forward!(&T, &mut T, Box<T>, std::rc::Rc<T>, std::sync::Arc<T>);

/// A primitive element of a fixed-size data array (`[[f32; 4]; 3]`).
pub trait Element: Copy {}

macro_rules! element {
    ($($t:ty),*) => {$( impl Element for $t {} )*};
}
element!(
    f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool
);

impl<E: Element, const N: usize> HasShape for [E; N] {
    type Dims<'a>
        = [usize; 1]
    where
        E: 'a;
    #[inline]
    fn shape(&self) -> [usize; 1] {
        [N]
    }
}

impl<E: Element, const N: usize, const M: usize> HasShape for [[E; M]; N] {
    type Dims<'a>
        = [usize; 2]
    where
        E: 'a;
    #[inline]
    fn shape(&self) -> [usize; 2] {
        [N, M]
    }
}

impl<E: Element, const N: usize, const M: usize, const K: usize> HasShape for [[[E; K]; M]; N] {
    type Dims<'a>
        = [usize; 3]
    where
        E: 'a;
    #[inline]
    fn shape(&self) -> [usize; 3] {
        [N, M, K]
    }
}

impl<E: Element, const N: usize, const M: usize, const K: usize, const L: usize> HasShape
    for [[[[E; L]; K]; M]; N]
{
    type Dims<'a>
        = [usize; 4]
    where
        E: 'a;
    #[inline]
    fn shape(&self) -> [usize; 4] {
        [N, M, K, L]
    }
}

/// The shape of a fixed-size array type, known at compile time (used by the derive's
/// compile-time checks of `#[shape]` attributes on array fields).
pub trait StaticShape {
    /// The dims.
    const DIMS: &'static [usize];
}

impl<E: Element, const N: usize> StaticShape for [E; N] {
    const DIMS: &'static [usize] = &[N];
}

impl<E: Element, const N: usize, const M: usize> StaticShape for [[E; M]; N] {
    const DIMS: &'static [usize] = &[N, M];
}

impl<E: Element, const N: usize, const M: usize, const K: usize> StaticShape for [[[E; K]; M]; N] {
    const DIMS: &'static [usize] = &[N, M, K];
}

impl<E: Element, const N: usize, const M: usize, const K: usize, const L: usize> StaticShape
    for [[[[E; L]; K]; M]; N]
{
    const DIMS: &'static [usize] = &[N, M, K, L];
}
