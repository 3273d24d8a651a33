//! GGUF metadata values: [`GgufType`], [`GgufValue`] and [`GgufArray`], with lossless
//! accessors.

/// The type of a GGUF metadata value (`gguf_metadata_value_type`).
///
/// ```
/// use shapes::checkpoint::{GgufType, GgufValue};
/// assert_eq!(GgufValue::U32(4096).value_type(), GgufType::U32);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the variants are the type names themselves
pub enum GgufType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    Bool,
    String,
    Array,
    U64,
    I64,
    F64,
}

impl GgufType {
    pub(super) fn from_code(code: u32) -> Option<Self> {
        use GgufType::*;
        Some(match code {
            0 => U8,
            1 => I8,
            2 => U16,
            3 => I16,
            4 => U32,
            5 => I32,
            6 => F32,
            7 => Bool,
            8 => String,
            9 => Array,
            10 => U64,
            11 => I64,
            12 => F64,
            _ => return None,
        })
    }

    /// On-disk size of a fixed-size value; `None` for strings and arrays.
    pub(super) fn fixed_size(self) -> Option<u64> {
        use GgufType::*;
        match self {
            U8 | I8 | Bool => Some(1),
            U16 | I16 => Some(2),
            U32 | I32 | F32 => Some(4),
            U64 | I64 | F64 => Some(8),
            String | Array => None,
        }
    }
}

/// A GGUF metadata value, typed as the file stores it.
///
/// The accessors convert where that is lossless: [`as_u64`](Self::as_u64) and
/// [`as_usize`](Self::as_usize) take any integer type with a non-negative value, so a
/// `llama.embedding_length` written as `u32` by one converter and `u64` by another reads the
/// same.
///
/// ```
/// use shapes::checkpoint::GgufValue;
/// assert_eq!(GgufValue::U32(4096).as_usize(), Some(4096));
/// assert_eq!(GgufValue::I32(-1).as_usize(), None);
/// assert_eq!(GgufValue::String("llama".into()).as_str(), Some("llama"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)] // each variant holds the value of the type it names
pub enum GgufValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    /// A string (invalid UTF-8 is replaced with U+FFFD, as llama.cpp tolerates it).
    String(String),
    Array(GgufArray),
}

impl GgufValue {
    /// The value's GGUF type.
    ///
    /// ```
    /// use shapes::checkpoint::{GgufType, GgufValue};
    /// assert_eq!(GgufValue::Bool(true).value_type(), GgufType::Bool);
    /// ```
    pub fn value_type(&self) -> GgufType {
        match self {
            GgufValue::U8(_) => GgufType::U8,
            GgufValue::I8(_) => GgufType::I8,
            GgufValue::U16(_) => GgufType::U16,
            GgufValue::I16(_) => GgufType::I16,
            GgufValue::U32(_) => GgufType::U32,
            GgufValue::I32(_) => GgufType::I32,
            GgufValue::U64(_) => GgufType::U64,
            GgufValue::I64(_) => GgufType::I64,
            GgufValue::F32(_) => GgufType::F32,
            GgufValue::F64(_) => GgufType::F64,
            GgufValue::Bool(_) => GgufType::Bool,
            GgufValue::String(_) => GgufType::String,
            GgufValue::Array(_) => GgufType::Array,
        }
    }

    /// Any integer with a non-negative value, as `u64`.
    ///
    /// ```
    /// use shapes::checkpoint::GgufValue;
    /// assert_eq!(GgufValue::I64(32).as_u64(), Some(32));
    /// assert_eq!(GgufValue::F32(32.0).as_u64(), None);
    /// ```
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            GgufValue::U8(v) => Some(v.into()),
            GgufValue::U16(v) => Some(v.into()),
            GgufValue::U32(v) => Some(v.into()),
            GgufValue::U64(v) => Some(v),
            GgufValue::I8(v) => u64::try_from(v).ok(),
            GgufValue::I16(v) => u64::try_from(v).ok(),
            GgufValue::I32(v) => u64::try_from(v).ok(),
            GgufValue::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Any integer with a value that fits in `usize` (a dim, a layer count, …).
    ///
    /// ```
    /// assert_eq!(shapes::checkpoint::GgufValue::U64(22).as_usize(), Some(22));
    /// ```
    pub fn as_usize(&self) -> Option<usize> {
        self.as_u64().and_then(|v| usize::try_from(v).ok())
    }

    /// Any integer that fits in `i64`.
    ///
    /// ```
    /// assert_eq!(shapes::checkpoint::GgufValue::I8(-3).as_i64(), Some(-3));
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            GgufValue::I8(v) => Some(v.into()),
            GgufValue::I16(v) => Some(v.into()),
            GgufValue::I32(v) => Some(v.into()),
            GgufValue::I64(v) => Some(v),
            _ => self.as_u64().and_then(|v| i64::try_from(v).ok()),
        }
    }

    /// A float, or an integer converted to `f64` (`rope.freq_base`, `rms_norm_eps`, …).
    ///
    /// ```
    /// assert_eq!(shapes::checkpoint::GgufValue::F32(1e-5).as_f64(), Some(1e-5f32 as f64));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            GgufValue::F32(v) => Some(v.into()),
            GgufValue::F64(v) => Some(v),
            _ => self
                .as_i64()
                .map(|v| v as f64)
                .or_else(|| self.as_u64().map(|v| v as f64)),
        }
    }

    /// A string value.
    ///
    /// ```
    /// assert_eq!(shapes::checkpoint::GgufValue::Bool(true).as_str(), None);
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            GgufValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// A boolean value.
    ///
    /// ```
    /// assert_eq!(shapes::checkpoint::GgufValue::Bool(true).as_bool(), Some(true));
    /// ```
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            GgufValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// An array value.
    ///
    /// ```
    /// assert!(shapes::checkpoint::GgufValue::U8(1).as_array().is_none());
    /// ```
    pub fn as_array(&self) -> Option<&GgufArray> {
        match self {
            GgufValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// A GGUF metadata array: its element type and length always, its elements when the array is
/// small.
///
/// Elements are kept for arrays of scalars or strings with at most
/// [`GgufHeader::MAX_KEPT_ARRAY_LEN`](super::GgufHeader::MAX_KEPT_ARRAY_LEN) elements, while
/// the file's kept elements stay within
/// [`GgufHeader::MAX_KEPT_ELEMENTS`](super::GgufHeader::MAX_KEPT_ELEMENTS); per-layer settings (head counts and the like) fit. Large
/// arrays, the tokenizer's vocabulary and merges above all, are skipped over without being
/// stored: a shape check does not need them, and `len()` still gives the vocabulary size.
///
/// ```
/// use shapes::checkpoint::{GgufArray, GgufType, GgufValue};
/// # fn vocab(a: &GgufArray) -> u64 { a.len() }
/// let a = GgufArray::new(GgufType::U32, vec![GgufValue::U32(32), GgufValue::U32(8)]);
/// assert_eq!(a.len(), 2);
/// assert_eq!(a.values().map(|v| v.len()), Some(2));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GgufArray {
    pub(super) elem_type: GgufType,
    pub(super) len: u64,
    pub(super) values: Option<Vec<GgufValue>>,
}

impl GgufArray {
    /// An array holding `values`, whose elements are all of type `elem_type`.
    ///
    /// ```
    /// let a = shapes::checkpoint::GgufArray::new(shapes::checkpoint::GgufType::Bool, vec![]);
    /// assert!(a.is_empty());
    /// ```
    pub fn new(elem_type: GgufType, values: Vec<GgufValue>) -> Self {
        GgufArray {
            elem_type,
            len: values.len() as u64,
            values: Some(values),
        }
    }

    /// The elements' type.
    ///
    /// ```
    /// let a = shapes::checkpoint::GgufArray::new(shapes::checkpoint::GgufType::I32, vec![]);
    /// assert_eq!(a.elem_type(), shapes::checkpoint::GgufType::I32);
    /// ```
    pub fn elem_type(&self) -> GgufType {
        self.elem_type
    }

    /// The number of elements in the file (whether or not they were kept).
    ///
    /// ```
    /// let a = shapes::checkpoint::GgufArray::new(shapes::checkpoint::GgufType::U8, vec![shapes::checkpoint::GgufValue::U8(1)]);
    /// assert_eq!(a.len(), 1);
    /// ```
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array has no elements.
    ///
    /// ```
    /// assert!(shapes::checkpoint::GgufArray::new(shapes::checkpoint::GgufType::U8, vec![]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements, or `None` when the array was too large to keep (see the type's docs).
    ///
    /// ```
    /// let a = shapes::checkpoint::GgufArray::new(shapes::checkpoint::GgufType::U8, vec![shapes::checkpoint::GgufValue::U8(7)]);
    /// assert_eq!(a.values(), Some(&[shapes::checkpoint::GgufValue::U8(7)][..]));
    /// ```
    pub fn values(&self) -> Option<&[GgufValue]> {
        self.values.as_deref()
    }
}
