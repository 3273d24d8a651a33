//! `.npy`/`.npz` files differential against numpy 2.x's verdicts (`tests/data/
//! npy_verdicts.jsonl`): a row changed in ways that keep numpy's verdict keeps the reader's,
//! then random changes never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_npy(data));
