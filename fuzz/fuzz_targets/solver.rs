//! A signature from a fixed menu (matmul, add, broadcasting, transpose, reshape, slice, sum,
//! concat, …) applied by `infer_app` to 1–3 shapes decoded from the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_solver(data));
