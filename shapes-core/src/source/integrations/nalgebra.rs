//! nalgebra: every `Matrix<T, R, C, S>` (so `SMatrix`, `DMatrix`, `DVector`, views, …), whose
//! shape is computed from its dimension types and returned as a `[usize; 2]` by value.

use ::nalgebra::{Dim, Matrix, RawStorage};

use crate::source::has_shape::HasShape;

/// The `(rows, cols)` of a nalgebra matrix or vector, statically or dynamically sized, as a
/// `[usize; 2]` by value. A vector is a one-column matrix, so its shape is `(n, 1)`.
/// nalgebra's inherent `shape()` (a tuple) wins in method syntax; write `HasShape::shape(&m)`
/// for this one.
///
/// ```
/// use nalgebra::{DMatrix, DVector, Matrix3x4};
/// use shapes::{Shaped, verify::HasShape};
///
/// #[derive(Shaped)]
/// struct Affine {
///     #[shape("(m, n)")]
///     a: Matrix3x4<f64>,
///     #[shape("(m, 1)")]
///     b: DVector<f64>,
///     #[shape("(n, batch)")]
///     x: DMatrix<f64>,
/// }
///
/// let f = Affine {
///     a: Matrix3x4::zeros(),
///     b: DVector::zeros(3),
///     x: DMatrix::zeros(4, 10),
/// };
/// assert_eq!(HasShape::shape(&f.a), [3, 4]);
/// assert_eq!(f.verify().unwrap().get("batch"), Some(10));
///
/// let bad = Affine { x: DMatrix::zeros(5, 10), ..f };
/// assert!(bad.verify().unwrap_err().to_string().starts_with("Affine.x: axis 0 expected n = 4, found 5"));
/// ```
impl<T, R: Dim, C: Dim, S: RawStorage<T, R, C>> HasShape for Matrix<T, R, C, S> {
    type Dims<'a>
        = [usize; 2]
    where
        Self: 'a;

    #[inline]
    fn shape(&self) -> [usize; 2] {
        let (rows, cols) = Matrix::shape(self);
        [rows, cols]
    }
}

#[cfg(test)]
mod tests {
    use ::nalgebra::{DMatrix, Matrix2x3, SMatrix};

    use crate::source::has_shape::HasShape;
    use crate::verify::{ShapeErrorKind, Shaped};

    #[derive(shapes::Shaped)]
    #[shapes(crate = "crate")]
    struct Gemm {
        #[shape("(m, k)")]
        a: Matrix2x3<f32>,
        #[shape("(k, n)")]
        b: DMatrix<f32>,
        #[shape("(m, n)")]
        c: DMatrix<f32>,
    }

    #[test]
    fn static_and_dynamic_matrices_verify() {
        let g = Gemm {
            a: Matrix2x3::zeros(),
            b: DMatrix::zeros(3, 5),
            c: DMatrix::zeros(2, 5),
        };
        let b = g.verify().unwrap();
        assert_eq!(
            [b.get("m"), b.get("k"), b.get("n")],
            [Some(2), Some(3), Some(5)]
        );
    }

    #[test]
    fn a_wrong_matrix_is_reported() {
        let g = Gemm {
            a: Matrix2x3::zeros(),
            b: DMatrix::zeros(4, 5),
            c: DMatrix::zeros(2, 5),
        };
        let e = g.verify().unwrap_err();
        assert_eq!(e.path.to_string(), "Gemm.b");
        assert_eq!(e.axis, Some(0));
        assert_eq!(e.found(), Some(4));
        assert!(
            matches!(e.kind, ShapeErrorKind::Dim { value: 3, .. }),
            "{e}"
        );
    }

    #[test]
    fn views_have_the_shape_of_what_they_see() {
        let m = SMatrix::<u8, 4, 6>::zeros();
        assert_eq!(HasShape::shape(&m.view((1, 2), (2, 3))), [2, 3]);
        assert_eq!(HasShape::shape(&m.column(5)), [4, 1]);
    }
}
