//! [`Shape`]: an owned tensor shape with inline storage, and its companions: the error of
//! parsing one ([`ParseShapeError`]), the printer of a slice of dims ([`DisplayDims`]), the
//! element count ([`numel`]) and the rank kept inline ([`INLINE_RANK`]).

use core::fmt;
use core::ops::{Deref, DerefMut};
use core::str::FromStr;

use smallvec::SmallVec;

/// How many dims a [`Shape`] holds without touching the heap.
///
/// Eight covers every tensor in common models (rank ≤ 6 is the documented promise; 8 leaves
/// room for batch and group axes) while keeping a `Shape` at 72 bytes.
pub const INLINE_RANK: usize = 8;

/// An owned tensor shape: a list of dim sizes, outermost first (row-major, like numpy).
///
/// Up to [`INLINE_RANK`] dims are stored inline, so building, cloning and returning a shape of
/// rank ≤ 8 never allocates. A `Shape` dereferences to `[usize]`, so every slice method works on
/// it, and it compares equal to slices, arrays and vectors with the same dims.
///
/// # Display and parsing
///
/// A shape prints like a Python tuple: `(8, 7, 6, 5)`, `(5,)` for rank 1 and `()` for a scalar.
/// The trailing comma of rank 1 keeps the printed form unambiguous next to a parenthesised
/// arithmetic expression such as `(5)`; [`FromStr`] accepts both `(5,)` and `(5)`, surrounding
/// white space, and a trailing comma at any rank, so `s.to_string().parse()` always gives `s`
/// back.
///
/// ```
/// use shapes::Shape;
///
/// let s = Shape::from([8, 7, 6, 5]);
/// assert_eq!(s.to_string(), "(8, 7, 6, 5)");
/// assert_eq!(s, [8, 7, 6, 5]);
/// assert_eq!(s.rank(), 4);
/// assert_eq!(s.numel(), Some(8 * 7 * 6 * 5));
/// assert_eq!(Shape::from([5]).to_string(), "(5,)");
/// assert_eq!(Shape::scalar().to_string(), "()");
/// assert_eq!("(5)".parse::<Shape>().unwrap(), [5]);
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    dims: SmallVec<[usize; INLINE_RANK]>,
}

impl Shape {
    /// The shape of a scalar: rank 0, `()`.
    ///
    /// ```
    /// assert!(shapes::Shape::scalar().is_empty());
    /// ```
    pub const fn scalar() -> Self {
        Shape {
            dims: SmallVec::new_const(),
        }
    }

    /// A shape with the given dims (the same as `Shape::from(dims)`).
    ///
    /// ```
    /// assert_eq!(shapes::Shape::new(&[2, 3]), [2, 3]);
    /// ```
    pub fn new(dims: &[usize]) -> Self {
        Shape {
            dims: SmallVec::from_slice(dims),
        }
    }

    /// The first `rank` dims of `buf`, stored inline (`rank <= INLINE_RANK`).
    #[inline]
    pub(crate) fn from_inline(buf: [usize; INLINE_RANK], rank: usize) -> Self {
        Shape {
            dims: SmallVec::from_buf_and_len(buf, rank.min(INLINE_RANK)),
        }
    }

    /// The number of dims (0 for a scalar).
    ///
    /// ```
    /// assert_eq!(shapes::Shape::from([2, 3, 4]).rank(), 3);
    /// ```
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The dims as a slice.
    ///
    /// ```
    /// assert_eq!(shapes::Shape::from([2, 3]).dims(), &[2, 3]);
    /// ```
    #[inline]
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The number of elements, or `None` when the product overflows `usize`. A scalar has 1.
    ///
    /// ```
    /// use shapes::Shape;
    /// assert_eq!(Shape::from([2, 3, 4]).numel(), Some(24));
    /// assert_eq!(Shape::scalar().numel(), Some(1));
    /// assert_eq!(Shape::from([usize::MAX, 2]).numel(), None);
    /// ```
    pub fn numel(&self) -> Option<usize> {
        numel(&self.dims)
    }

    /// The size of axis `axis`, counting from the end when negative (`-1` is the last axis);
    /// `None` when out of range.
    ///
    /// ```
    /// let s = shapes::Shape::from([2, 3, 4]);
    /// assert_eq!(s.dim(0), Some(2));
    /// assert_eq!(s.dim(-1), Some(4));
    /// assert_eq!(s.dim(3), None);
    /// assert_eq!(s.dim(-4), None);
    /// ```
    pub fn dim(&self, axis: isize) -> Option<usize> {
        let rank = self.dims.len();
        let index = if axis < 0 {
            rank.checked_sub(axis.unsigned_abs())?
        } else {
            axis.unsigned_abs()
        };
        self.dims.get(index).copied()
    }

    /// Appends a dim.
    ///
    /// ```
    /// let mut s = shapes::Shape::scalar();
    /// s.push(3);
    /// assert_eq!(s, [3]);
    /// ```
    pub fn push(&mut self, dim: usize) {
        self.dims.push(dim);
    }

    /// Appends every dim of `dims`.
    ///
    /// ```
    /// let mut s = shapes::Shape::from([1]);
    /// s.extend_from_slice(&[2, 3]);
    /// assert_eq!(s, [1, 2, 3]);
    /// ```
    pub fn extend_from_slice(&mut self, dims: &[usize]) {
        self.dims.extend_from_slice(dims);
    }

    /// Whether the dims live inline (true for every rank ≤ [`INLINE_RANK`]).
    ///
    /// ```
    /// assert!(shapes::Shape::from([1, 2, 3, 4, 5, 6]).is_inline());
    /// ```
    pub fn is_inline(&self) -> bool {
        !self.dims.spilled()
    }

    /// The dims as a `Vec`.
    ///
    /// ```
    /// assert_eq!(shapes::Shape::from([2, 3]).to_vec(), vec![2, 3]);
    /// ```
    pub fn to_vec(&self) -> Vec<usize> {
        self.dims.to_vec()
    }
}

/// The product of `dims`, or `None` on overflow; 1 for no dims.
///
/// ```
/// assert_eq!(shapes::shape::numel(&[2, 3]), Some(6));
/// assert_eq!(shapes::shape::numel(&[]), Some(1));
/// assert_eq!(shapes::shape::numel(&[usize::MAX, 2]), None);
/// ```
pub fn numel(dims: &[usize]) -> Option<usize> {
    // A zero anywhere makes the product zero even when a prefix would overflow.
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

impl Deref for Shape {
    type Target = [usize];
    #[inline]
    fn deref(&self) -> &[usize] {
        &self.dims
    }
}

impl DerefMut for Shape {
    fn deref_mut(&mut self) -> &mut [usize] {
        &mut self.dims
    }
}

impl AsRef<[usize]> for Shape {
    #[inline]
    fn as_ref(&self) -> &[usize] {
        &self.dims
    }
}

impl core::borrow::Borrow<[usize]> for Shape {
    fn borrow(&self) -> &[usize] {
        &self.dims
    }
}

impl From<&[usize]> for Shape {
    fn from(dims: &[usize]) -> Self {
        Shape::new(dims)
    }
}

impl From<&mut [usize]> for Shape {
    fn from(dims: &mut [usize]) -> Self {
        Shape::new(dims)
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(dims: [usize; N]) -> Self {
        Shape::new(&dims)
    }
}

impl<const N: usize> From<&[usize; N]> for Shape {
    fn from(dims: &[usize; N]) -> Self {
        Shape::new(dims)
    }
}

impl From<Vec<usize>> for Shape {
    fn from(dims: Vec<usize>) -> Self {
        Shape {
            dims: SmallVec::from_vec(dims),
        }
    }
}

impl From<&Vec<usize>> for Shape {
    fn from(dims: &Vec<usize>) -> Self {
        Shape::new(dims)
    }
}

impl From<&Shape> for Shape {
    fn from(shape: &Shape) -> Self {
        shape.clone()
    }
}

impl From<Shape> for Vec<usize> {
    fn from(shape: Shape) -> Self {
        shape.dims.into_vec()
    }
}

impl FromIterator<usize> for Shape {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        Shape {
            dims: iter.into_iter().collect(),
        }
    }
}

impl Extend<usize> for Shape {
    fn extend<I: IntoIterator<Item = usize>>(&mut self, iter: I) {
        self.dims.extend(iter);
    }
}

impl<'a> IntoIterator for &'a Shape {
    type Item = &'a usize;
    type IntoIter = core::slice::Iter<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.dims.iter()
    }
}

impl PartialEq<[usize]> for Shape {
    fn eq(&self, other: &[usize]) -> bool {
        self.dims.as_slice() == other
    }
}

impl PartialEq<&[usize]> for Shape {
    fn eq(&self, other: &&[usize]) -> bool {
        self.dims.as_slice() == *other
    }
}

impl<const N: usize> PartialEq<[usize; N]> for Shape {
    fn eq(&self, other: &[usize; N]) -> bool {
        self.dims.as_slice() == other.as_slice()
    }
}

impl<const N: usize> PartialEq<&[usize; N]> for Shape {
    fn eq(&self, other: &&[usize; N]) -> bool {
        self.dims.as_slice() == other.as_slice()
    }
}

impl PartialEq<Vec<usize>> for Shape {
    fn eq(&self, other: &Vec<usize>) -> bool {
        self.dims.as_slice() == other.as_slice()
    }
}

impl PartialEq<Shape> for [usize] {
    fn eq(&self, other: &Shape) -> bool {
        self == other.dims.as_slice()
    }
}

impl PartialEq<Shape> for &[usize] {
    fn eq(&self, other: &Shape) -> bool {
        *self == other.dims.as_slice()
    }
}

impl<const N: usize> PartialEq<Shape> for [usize; N] {
    fn eq(&self, other: &Shape) -> bool {
        self.as_slice() == other.dims.as_slice()
    }
}

impl PartialEq<Shape> for Vec<usize> {
    fn eq(&self, other: &Shape) -> bool {
        self.as_slice() == other.dims.as_slice()
    }
}

/// Writes `dims` as a tuple: `(2, 3)`, `(5,)`, `()`.
pub(crate) fn fmt_dims(dims: &[usize], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("(")?;
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{d}")?;
    }
    if dims.len() == 1 {
        f.write_str(",")?;
    }
    f.write_str(")")
}

/// A `Display` adapter for a plain dim slice, printing like [`Shape`].
///
/// ```
/// assert_eq!(shapes::shape::DisplayDims(&[5]).to_string(), "(5,)");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DisplayDims<'a>(pub &'a [usize]);

impl fmt::Display for DisplayDims<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_dims(self.0, f)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_dims(&self.dims, f)
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape{self}")
    }
}

/// Why a string is not a concrete shape; see [`Shape`]'s `FromStr`.
///
/// ```
/// let err = "(2, x)".parse::<shapes::Shape>().unwrap_err();
/// assert_eq!(err.offset(), 4);
/// assert!(err.to_string().contains("expected a dim size"));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid shape {input:?} at byte {offset}: {message}")]
pub struct ParseShapeError {
    input: String,
    offset: usize,
    message: &'static str,
}

impl ParseShapeError {
    /// The byte offset in the input where parsing failed.
    ///
    /// ```
    /// assert_eq!("(1,,2)".parse::<shapes::Shape>().unwrap_err().offset(), 3);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl FromStr for Shape {
    type Err = ParseShapeError;

    /// Parses a concrete shape: `(2, 3)`, `(5,)`, `(5)`, `()`, with optional white space.
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let err = |offset: usize, message: &'static str| ParseShapeError {
            input: input.to_owned(),
            offset,
            message,
        };
        let bytes = input.as_bytes();
        let mut pos = 0;
        let skip_ws = |pos: &mut usize| {
            // ok: `*pos < bytes.len()` is checked first.
            while *pos < bytes.len() && bytes[*pos].is_ascii_whitespace() {
                *pos += 1;
            }
        };
        skip_ws(&mut pos);
        if bytes.get(pos) != Some(&b'(') {
            return Err(err(pos, "expected '('"));
        }
        pos += 1;
        let mut shape = Shape::scalar();
        loop {
            skip_ws(&mut pos);
            match bytes.get(pos) {
                Some(b')') => {
                    pos += 1;
                    break;
                }
                Some(b) if b.is_ascii_digit() => {
                    let start = pos;
                    let mut value: usize = 0;
                    while let Some(&b) = bytes.get(pos).filter(|b| b.is_ascii_digit()) {
                        value = value
                            .checked_mul(10)
                            .and_then(|v| v.checked_add(usize::from(b - b'0')))
                            .ok_or_else(|| err(start, "dim size overflows usize"))?;
                        pos += 1;
                    }
                    shape.push(value);
                    skip_ws(&mut pos);
                    match bytes.get(pos) {
                        Some(b',') => pos += 1,
                        Some(b')') => {}
                        _ => return Err(err(pos, "expected ',' or ')'")),
                    }
                }
                None => return Err(err(pos, "expected ')'")),
                Some(_) => return Err(err(pos, "expected a dim size (a non-negative integer)")),
            }
        }
        skip_ws(&mut pos);
        if pos != bytes.len() {
            return Err(err(pos, "unexpected input after ')'"));
        }
        Ok(shape)
    }
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for ParseShapeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_round_trips() {
        for dims in [&[][..], &[5], &[2, 3], &[8, 7, 6, 5], &[0, usize::MAX]] {
            let s = Shape::from(dims);
            assert_eq!(s.to_string().parse::<Shape>().unwrap(), s);
        }
    }

    #[test]
    fn parse_accepts_documented_forms() {
        assert_eq!("()".parse::<Shape>().unwrap(), Shape::scalar());
        assert_eq!(" ( 5 ) ".parse::<Shape>().unwrap(), [5]);
        assert_eq!("(5,)".parse::<Shape>().unwrap(), [5]);
        assert_eq!("(2,3,)".parse::<Shape>().unwrap(), [2, 3]);
    }

    #[test]
    fn parse_rejects_with_offsets() {
        let cases = [
            ("", 0),
            ("2, 3", 0),
            ("(", 1),
            ("(2", 2),
            ("(2 3)", 3),
            ("(,)", 1),
            ("(1,,2)", 3),
            ("(2) x", 4),
            ("(-1)", 1),
            ("(99999999999999999999999)", 1),
        ];
        for (input, offset) in cases {
            let e = input.parse::<Shape>().unwrap_err();
            assert_eq!(e.offset(), offset, "{input:?}: {e}");
        }
    }

    #[test]
    fn inline_up_to_inline_rank() {
        assert!(Shape::from([1; INLINE_RANK]).is_inline());
        assert!(!Shape::from([1; INLINE_RANK + 1]).is_inline());
    }

    #[test]
    fn equality_with_slices_arrays_vecs() {
        let s = Shape::from(vec![1, 2]);
        assert_eq!(s, [1, 2]);
        assert_eq!([1, 2], s);
        assert_eq!(s, vec![1, 2]);
        assert_eq!(vec![1, 2], s);
        assert_eq!(s, &[1usize, 2][..]);
        assert_eq!(&[1usize, 2][..], s);
        assert_ne!(s, [2, 1]);
    }

    #[test]
    fn numel_handles_zero_before_overflow() {
        assert_eq!(numel(&[usize::MAX, usize::MAX, 0]), Some(0));
    }
}
