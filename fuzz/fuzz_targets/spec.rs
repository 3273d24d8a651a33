//! Spec files (TOML), as bytes or written from the bytes with a checkpoint of what they
//! describe, loaded and checked: errors with their place, bounded reports, a plain spec's
//! own checkpoint passing.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_spec(data));
