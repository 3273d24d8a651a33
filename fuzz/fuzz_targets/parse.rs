//! Arbitrary bytes as a concrete shape (`Shape::from_str`), a pattern and an expression:
//! no panic, errors inside the input, and print → parse round-trips (both spellings).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_parse(data));
