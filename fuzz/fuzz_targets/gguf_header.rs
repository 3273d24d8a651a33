//! The GGUF header reader on raw bytes (first byte even) and on valid GGUF v3 files built
//! from the bytes and then mutated (first byte odd).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_gguf(data));
