//! The checkpoint readers `Checkpoint::open` adds: raw bytes through `Checkpoint::from_bytes`
//! (zip archives for .npz and PyTorch, .npy, pickles), and structured PyTorch pickles and
//! numpy headers, read back exactly, then mutated.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_checkpoint(data));
