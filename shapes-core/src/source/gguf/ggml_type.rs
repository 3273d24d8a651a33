//! [`GgmlType`]: a tensor's ggml type code, with the block sizes of the types ggml defines.

use std::fmt;

/// A ggml tensor type code (`ggml_type`), e.g. 0 = `F32`, 1 = `F16`, 12 = `Q4_K`.
///
/// Kept as the raw code so that a file with a type newer than this crate still reads: only
/// its byte-size check is skipped.
///
/// ```
/// use shapes::checkpoint::GgmlType;
/// assert_eq!(GgmlType(12).name(), Some("Q4_K"));
/// assert_eq!(GgmlType(12).block(), Some((256, 144)));
/// assert_eq!(GgmlType(12).to_string(), "Q4_K");
/// assert_eq!(GgmlType(999).to_string(), "ggml type 999");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GgmlType(pub u32);

/// (code, name, elements per block, bytes per block), from ggml.c's `type_traits`.
const GGML_TYPES: &[(u32, &str, u64, u64)] = &[
    (0, "F32", 1, 4),
    (1, "F16", 1, 2),
    (2, "Q4_0", 32, 18),
    (3, "Q4_1", 32, 20),
    (6, "Q5_0", 32, 22),
    (7, "Q5_1", 32, 24),
    (8, "Q8_0", 32, 34),
    (9, "Q8_1", 32, 36),
    (10, "Q2_K", 256, 84),
    (11, "Q3_K", 256, 110),
    (12, "Q4_K", 256, 144),
    (13, "Q5_K", 256, 176),
    (14, "Q6_K", 256, 210),
    (15, "Q8_K", 256, 292),
    (16, "IQ2_XXS", 256, 66),
    (17, "IQ2_XS", 256, 74),
    (18, "IQ3_XXS", 256, 98),
    (19, "IQ1_S", 256, 50),
    (20, "IQ4_NL", 32, 18),
    (21, "IQ3_S", 256, 110),
    (22, "IQ2_S", 256, 82),
    (23, "IQ4_XS", 256, 136),
    (24, "I8", 1, 1),
    (25, "I16", 1, 2),
    (26, "I32", 1, 4),
    (27, "I64", 1, 8),
    (28, "F64", 1, 8),
    (29, "IQ1_M", 256, 56),
    (30, "BF16", 1, 2),
    (34, "TQ1_0", 256, 54),
    (35, "TQ2_0", 256, 66),
    (39, "MXFP4", 32, 17),
];

impl GgmlType {
    fn traits(self) -> Option<&'static (u32, &'static str, u64, u64)> {
        GGML_TYPES.iter().find(|t| t.0 == self.0)
    }

    /// The type's name in ggml, when this crate knows the code.
    ///
    /// ```
    /// assert_eq!(shapes::checkpoint::GgmlType(30).name(), Some("BF16"));
    /// ```
    pub fn name(self) -> Option<&'static str> {
        self.traits().map(|t| t.1)
    }

    /// `(elements per block, bytes per block)`, when this crate knows the code.
    ///
    /// ```
    /// assert_eq!(shapes::checkpoint::GgmlType(0).block(), Some((1, 4)));
    /// assert_eq!(shapes::checkpoint::GgmlType(8).block(), Some((32, 34)));
    /// ```
    pub fn block(self) -> Option<(u64, u64)> {
        self.traits().map(|t| (t.2, t.3))
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "ggml type {}", self.0),
        }
    }
}
