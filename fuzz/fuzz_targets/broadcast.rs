//! Random shapes (decoded from the bytes by `fuzz_checks::Bytes`) through every function of
//! the broadcasting family, each compared against a slow reference.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_broadcast(data));
