//! PyTorch state-dict pickles whose dicts and tensors are shared through the memo, read back
//! against a reference that expands the sharing as `torch.load` does, checked in a zip
//! against their storages' data members, then mutated; and the hostile shape (dicts holding
//! the level below twice, 21 to 60 levels) refused by the tensor limit.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_checks.rs"]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::check_pickle(data));
