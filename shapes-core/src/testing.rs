//! Hooks for this workspace's own tests, doctests, benchmarks and fuzz targets, named through
//! `::shapes::__testing`: a counter of slow-path calls, the reference checker, the byte-level
//! readers the fuzz targets drive, and helpers whose doctests document them. Neither
//! generated code nor users need any of it (`__private` holds what generated code calls).
//! Not a public API: anything here may change in any release.

pub use crate::parse::{caret, parse_equation};
#[cfg(feature = "checkpoint")]
pub use crate::source::checkpoint_fuzz;
pub use crate::verify_impl::{
    AtBinders, CHECKS, StructCx, call_reports, close_names, closest, glob_match, ignored, one_slip,
    run_items, typo_shaped, verify_general,
};
