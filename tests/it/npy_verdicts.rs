//! The `.npy`/`.npz` reader against numpy 2.x's own verdicts: `tests/data/npy_verdicts.jsonl`,
//! written by `tests/data/npy_verdicts.py` from `np.load(path, allow_pickle=False)` on each
//! case (every member read for an `.npz`). The reader accepts what numpy reads, with the same
//! names and shapes, and refuses what numpy refuses, except on the rows marked `differs`,
//! where it must still differ (so a stale reason is noticed).

use shapes::Checkpoint;

/// One row of the table.
pub struct Verdict {
    pub case: String,
    pub file: Vec<u8>,
    /// numpy's arrays (name, shape, dtype as numpy spells it), or `None` when it refused.
    pub numpy: Option<Vec<(String, Vec<usize>, String)>>,
    pub differs: Option<String>,
}

pub fn verdicts() -> Vec<Verdict> {
    let text = include_str!("../data/npy_verdicts.jsonl");
    text.lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).expect("a JSON row");
            let hex = row["file"].as_str().expect("file");
            let file = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                .collect();
            let numpy = row["numpy"]["ok"].as_bool().expect("ok").then(|| {
                row["numpy"]["arrays"]
                    .as_array()
                    .expect("arrays")
                    .iter()
                    .map(|a| {
                        let shape = a["shape"].as_array().expect("shape");
                        (
                            a["name"].as_str().expect("name").to_owned(),
                            shape
                                .iter()
                                .map(|d| d.as_u64().expect("dim") as usize)
                                .collect(),
                            a["dtype"].as_str().expect("dtype").to_owned(),
                        )
                    })
                    .collect()
            });
            Verdict {
                case: row["case"].as_str().expect("case").to_owned(),
                file,
                numpy,
                differs: row["differs"].as_str().map(str::to_owned),
            }
        })
        .collect()
}

/// numpy's spelling of a dtype in the reader's, where the reader renames it.
fn reader_dtype(numpy: &str) -> Option<&'static str> {
    Some(match numpy.trim_start_matches(['<', '>', '|', '=']) {
        "f2" => "F16",
        "f4" => "F32",
        "f8" => "F64",
        "i1" => "I8",
        "i2" => "I16",
        "i4" => "I32",
        "i8" => "I64",
        "u1" => "U8",
        "u2" => "U16",
        "u4" => "U32",
        "u8" => "U64",
        "b1" => "BOOL",
        "c8" => "C64",
        "c16" => "C128",
        _ => return None,
    })
}

#[test]
fn the_reader_agrees_with_numpy_on_every_case_but_the_documented_ones() {
    let rows = verdicts();
    assert!(rows.len() > 100, "{} rows", rows.len());
    let mut disagreements = Vec::new();
    for v in &rows {
        let ours = Checkpoint::from_bytes(&v.file);
        let agree = match (&ours, &v.numpy) {
            (Ok(c), Some(arrays)) => {
                let got: Vec<(String, Vec<usize>)> = c
                    .tensors()
                    .iter()
                    .map(|t| (t.name.clone(), t.shape.dims().to_vec()))
                    .collect();
                let want: Vec<(String, Vec<usize>)> = arrays
                    .iter()
                    .map(|(n, s, _)| (n.clone(), s.clone()))
                    .collect();
                assert_eq!(got, want, "{}: names and shapes", v.case);
                for (t, (_, _, dtype)) in c.tensors().iter().zip(arrays) {
                    if let Some(name) = reader_dtype(dtype) {
                        assert_eq!(t.dtype, name, "{}: dtype", v.case);
                    }
                }
                true
            }
            (Err(_), None) => true,
            _ => false,
        };
        match (&v.differs, agree) {
            (None, false) => disagreements.push(format!(
                "{}: numpy {}, the reader {:?}",
                v.case,
                if v.numpy.is_some() {
                    "reads it"
                } else {
                    "refuses it"
                },
                ours.map(|c| c.tensors().len())
            )),
            (Some(reason), true) => disagreements.push(format!(
                "{}: documented as a difference ({reason}) but the reader agrees",
                v.case
            )),
            _ => {}
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
