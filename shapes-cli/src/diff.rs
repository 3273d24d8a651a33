//! `shapes diff A B`: the tensors added, removed, reshaped and retyped between two
//! checkpoints, each opened as `shapes check` opens it. The comparison, its text and its JSON
//! are the library's (`shapes::diff`).

use std::path::Path;

use shapes::diff::{Diff, failure_json};

use crate::{Fail, Verdict, open, write_out};

/// Diffs `a` against `b`, printing the diff (text, or JSON with `json`): 0 for the same names
/// and shapes (dtypes may differ), 1 otherwise, 2 when one cannot be read.
pub fn run(a: &Path, b: &Path, json: bool, all: bool) -> Result<Verdict, Fail> {
    let opened = open::open(a, None).and_then(|a| Ok((a, open::open(b, None)?)));
    let (a, b) = match opened {
        Ok(both) => both,
        Err(e) => {
            eprintln!("error: {e}");
            if json {
                write_out(&format!("{:#}\n", failure_json(&e)))?;
            }
            return Ok(Verdict::Failed);
        }
    };
    let diff = Diff::new(&a, &b).all(all);
    if json {
        write_out(&format!("{:#}\n", diff.to_json()))?;
    } else {
        write_out(&diff.to_string())?;
    }
    Ok(if diff.same_shapes() {
        Verdict::Matches
    } else {
        Verdict::Mismatch
    })
}
