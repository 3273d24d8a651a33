//! Free-form expressions of the whole shape language (not a fixed menu) written from the
//! bytes, through `infer_app` and `unify`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_solver_free(data));
