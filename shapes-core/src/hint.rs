//! [`unlikely`]: the one hint to the compiler that the checks' success path is the one to lay
//! out straight.

/// Marks the path that calls it as rarely taken: a check's failure, a layer's absent bias.
/// The compiler then lays the success path out as one straight run of not-taken branches
/// and puts the rare paths after it (measured on BERT's layer loop: each rare path laid out
/// in between cost a taken branch or two per tensor). `std::hint::cold_path` does this from
/// Rust 1.95; a call of a `#[cold]` function is how it is done before.
#[cold]
#[inline]
pub(crate) fn unlikely() {}
