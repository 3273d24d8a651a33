//! The `spec` target: spec files (TOML) and small checkpoints written from the bytes, checked
//! through `Spec::from_toml` and `Spec::check_with`.
//!
//! First byte even: the rest is spec text as is (lossy UTF-8), checked against a fixed small
//! header. Odd: a spec written from the bytes (names, `[repeat]`, `{i}` lists, blocks with
//! `rename`, `one_of`, `optional`, `tied`, `given`, `where`, `[config]`, `dtype`, `prefixes`,
//! `ignore`, arithmetic patterns) and a safetensors header of the tensors it describes with
//! sizes from one assignment of its variables (config values in `__metadata__`), then
//! sometimes corrupted (a dim changed, a tensor left out, one added, one transposed), and now
//! and then a line of the spec replaced by bytes.
//!
//! What must hold: no panic; an error names a line and column inside the text and quotes a
//! bounded excerpt; `Debug` of an error reads like its `Display`; a spec that loads checks any
//! header without panicking, its report's text is bounded and free of raw control characters,
//! its JSON and SARIF serialise, and checking twice gives the same report; a plain spec (only
//! tensors and `{i}` lists of plain arithmetic) passes on the checkpoint written from it
//! uncorrupted, and fails on it with one dim changed.

use std::collections::BTreeMap;

use shapes::report::Paint;
use shapes::{CheckOptions, Checkpoint, Spec};

use super::Bytes;

/// Variables, and the config keys that may state them.
const VARS: &[(&str, &str)] = &[
    ("d", "hidden_size"),
    ("heads", "num_attention_heads"),
    ("head_dim", "head_dim"),
    ("n", "num_hidden_layers"),
    ("d_ff", "intermediate_size"),
    ("vocab", "vocab_size"),
    ("e", "num_experts"),
];

const LEAVES: &[&str] = &["weight", "bias", "w", "scale", "emb.weight", "x.y.z"];

/// A dim of a pattern: its text and its value under an assignment of the variables.
#[derive(Clone, Copy)]
enum Atom {
    Var(usize),
    Lit(usize),
    Mul(usize, usize),
    Plus1(usize),
    Twice(usize),
    Half(usize),
}

impl Atom {
    fn from_bytes(b: &mut Bytes<'_>) -> Atom {
        let v = |b: &mut Bytes<'_>| usize::from(b.byte()) % VARS.len();
        match b.byte() % 12 {
            0..=5 => Atom::Var(v(b)),
            6 => Atom::Lit(usize::from(b.byte() % 5)),
            7 | 8 => Atom::Mul(v(b), v(b)),
            9 => Atom::Plus1(v(b)),
            10 => Atom::Twice(v(b)),
            _ => Atom::Half(v(b)),
        }
    }

    /// The variables it uses.
    fn vars(self) -> Vec<usize> {
        match self {
            Atom::Var(i) | Atom::Plus1(i) | Atom::Twice(i) | Atom::Half(i) => vec![i],
            Atom::Lit(_) => vec![],
            Atom::Mul(i, j) => vec![i, j],
        }
    }

    fn text(self) -> String {
        let n = |i: usize| VARS[i].0;
        match self {
            Atom::Var(i) => n(i).to_owned(),
            Atom::Lit(k) => k.to_string(),
            Atom::Mul(i, j) => format!("{} * {}", n(i), n(j)),
            Atom::Plus1(i) => format!("{} + 1", n(i)),
            Atom::Twice(i) => format!("2 * {}", n(i)),
            Atom::Half(i) => format!("{} // 2", n(i)),
        }
    }

    /// The value; `Half` of an odd value has none that divides exactly, so the pattern
    /// would not hold: the caller avoids it by making every value even.
    fn value(self, vals: &[usize]) -> usize {
        match self {
            Atom::Var(i) => vals[i],
            Atom::Lit(k) => k,
            Atom::Mul(i, j) => vals[i] * vals[j],
            Atom::Plus1(i) => vals[i] + 1,
            Atom::Twice(i) => 2 * vals[i],
            Atom::Half(i) => vals[i] / 2,
        }
    }
}

fn pattern_text(atoms: &[Atom]) -> String {
    match atoms {
        [one] => format!("({},)", one.text()),
        _ => format!(
            "({})",
            atoms
                .iter()
                .map(|a| a.text())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn gen_atoms(b: &mut Bytes<'_>) -> Vec<Atom> {
    let rank = usize::from(b.byte() % 4);
    (0..rank).map(|_| Atom::from_bytes(b)).collect()
}

/// What the generator wrote: the spec text, and the tensors a checkpoint of it holds.
struct Written {
    toml: String,
    tensors: Vec<(String, Vec<usize>)>,
    /// Each tensor's pattern, when it is one of plain atoms.
    atoms: Vec<Option<Vec<Atom>>>,
    metadata: Vec<(String, String)>,
    /// Only tensors and `{i}` lists: a checkpoint written from it must pass.
    plain: bool,
}

fn write_spec(b: &mut Bytes<'_>) -> Written {
    // Even values, so that `// 2` divides exactly; 2 to 8.
    let vals: Vec<usize> = VARS
        .iter()
        .map(|_| 2 * (usize::from(b.byte() % 4) + 1))
        .collect();
    let mut top = String::from("name = \"Fuzz\"\n");
    let mut tables = String::new();
    let mut tensors: Vec<(String, Vec<usize>)> = Vec::new();
    let mut atoms_of: Vec<Option<Vec<Atom>>> = Vec::new();
    let mut metadata = Vec::new();
    let mut plain = true;
    let flags = b.byte();
    if flags & 1 != 0 {
        plain = false;
        let v = VARS[usize::from(b.byte()) % VARS.len()].0;
        top.push_str(&format!("given = [\"{v}\"]\n"));
    }
    if flags & 2 != 0 {
        plain = false;
        let clauses = [
            "d = heads * head_dim",
            "heads % 2 = 0",
            "d_ff >= d",
            "n <= 8",
            "e * 2 = d",
        ];
        let c = clauses[usize::from(b.byte()) % clauses.len()];
        top.push_str(&format!("where = [\"{c}\"]\n"));
    }
    if flags & 4 != 0 {
        plain = false;
        top.push_str("dtype = [\"F16\", \"BF16\"]\n");
    }
    if flags & 8 != 0 {
        plain = false;
        top.push_str("prefixes = [\"model\", \"\"]\n");
    }
    if flags & 16 != 0 {
        plain = false;
        top.push_str("ignore = [\"extra.*\"]\n");
    }
    if flags & 32 != 0 {
        plain = false;
        tables.push_str("[config]\n");
        for (i, (var, key)) in VARS.iter().enumerate() {
            if b.byte().is_multiple_of(3) {
                // A key as written, misspelt now and then.
                let key = if b.byte().is_multiple_of(8) {
                    format!("{key}x")
                } else {
                    (*key).to_owned()
                };
                tables.push_str(&format!("{var} = \"{key}\"\n"));
                let stated = if b.byte().is_multiple_of(8) {
                    vals[i] + 1
                } else {
                    vals[i]
                };
                metadata.push(((*key).to_owned(), stated.to_string()));
            }
        }
    }
    // A list has at least one element (an empty one is an error); under `[repeat]` its
    // length is `n`'s value.
    let count = if flags & 64 != 0 {
        tables.push_str("[repeat]\n\"layers\" = \"n\"\n");
        vals[3]
    } else {
        usize::from(b.byte() % 3) + 1
    };
    let mut entries = String::from("[tensors]\n");
    let mut blocks = String::new();
    let n_entries = usize::from(b.byte() % 5) + 1;
    for k in 0..n_entries {
        let atoms = gen_atoms(b);
        let shape: Vec<usize> = atoms.iter().map(|a| a.value(&vals)).collect();
        let kind = b.byte() % 8;
        let leaf = LEAVES[usize::from(b.byte()) % LEAVES.len()];
        match kind {
            // A plain tensor.
            0..=2 => {
                let name = format!("t{k}.{leaf}");
                entries.push_str(&format!("\"{name}\" = \"{}\"\n", pattern_text(&atoms)));
                tensors.push((name, shape));
                atoms_of.push(Some(atoms));
            }
            // A list of layers.
            3 | 4 => {
                let name = format!("layers.{{i}}.t{k}.{leaf}");
                entries.push_str(&format!("\"{name}\" = \"{}\"\n", pattern_text(&atoms)));
                for i in 0..count {
                    tensors.push((format!("layers.{i}.t{k}.{leaf}"), shape.clone()));
                    atoms_of.push(Some(atoms.clone()));
                }
            }
            // An optional tensor, present or not.
            5 => {
                plain = false;
                let name = format!("o{k}.{leaf}");
                entries.push_str(&format!(
                    "\"{name}\" = {{ shape = \"{}\", optional = true }}\n",
                    pattern_text(&atoms)
                ));
                if b.byte().is_multiple_of(2) {
                    tensors.push((name, shape));
                }
            }
            // A block, renamed.
            6 => {
                plain = false;
                let name = format!("b{k}");
                entries.push_str(&format!(
                    "\"{name}\" = {{ block = \"lin{k}\", rename = {{ d_out = \"{}\", d_in = \"d\" }} }}\n",
                    VARS[usize::from(b.byte()) % VARS.len()].0
                ));
                blocks.push_str(&format!(
                    "[blocks.lin{k}]\n\"weight\" = \"(d_out, d_in)\"\n\"bias\" = \"(d_out,)\"\n"
                ));
                let d_out = 2 * (usize::from(b.byte() % 4) + 1);
                tensors.push((format!("{name}.weight"), vec![d_out, vals[0]]));
                tensors.push((format!("{name}.bias"), vec![d_out]));
            }
            // One of two blocks, or a tensor tied to an earlier one.
            _ => {
                plain = false;
                if let Some((to, to_shape)) = tensors.first().cloned()
                    && b.byte().is_multiple_of(2)
                {
                    let name = format!("tied{k}");
                    entries.push_str(&format!(
                        "\"{name}\" = {{ shape = \"{}\", tied = \"{to}\" }}\n",
                        pattern_text(&atoms)
                    ));
                    if b.byte().is_multiple_of(2) {
                        tensors.push((name, to_shape));
                    }
                } else {
                    let name = format!("ffn{k}");
                    entries.push_str(&format!(
                        "\"{name}\" = {{ one_of = [\"mlp{k}\", \"moe{k}\"] }}\n"
                    ));
                    blocks.push_str(&format!(
                        "[blocks.mlp{k}]\n\"up.weight\" = \"(d_ff, d)\"\n[blocks.moe{k}]\n\"experts.up.weight\" = \"(e, d_ff, d)\"\n"
                    ));
                    if b.byte().is_multiple_of(2) {
                        tensors.push((format!("{name}.up.weight"), vec![vals[4], vals[0]]));
                    } else {
                        tensors.push((
                            format!("{name}.experts.up.weight"),
                            vec![vals[6], vals[4], vals[0]],
                        ));
                    }
                }
            }
        }
    }
    let toml = format!("{top}{tables}{entries}{blocks}");
    // Only plain specs compare verdicts, and in those every tensor has its atoms.
    atoms_of.resize(tensors.len(), None);
    Written {
        toml,
        tensors,
        atoms: atoms_of,
        metadata,
        plain,
    }
}

/// A safetensors file of F32 tensors with `metadata`, data included (zeros), and whether all
/// of them are in it: one of over 64 KiB is left out, to keep each run fast.
fn safetensors(tensors: &[(String, Vec<usize>)], metadata: &[(String, String)]) -> (Vec<u8>, bool) {
    let mut entries: Vec<String> = Vec::new();
    if !metadata.is_empty() {
        let m: BTreeMap<&str, &str> = metadata
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        entries.push(format!(
            "\"__metadata__\":{}",
            serde_json::to_string(&m).expect("strings")
        ));
    }
    let mut offset = 0usize;
    let mut all = true;
    let mut seen = std::collections::HashSet::new();
    for (name, dims) in tensors {
        if !seen.insert(name.as_str()) {
            continue;
        }
        let Some(bytes) = dims
            .iter()
            .try_fold(4usize, |acc, &d| acc.checked_mul(d))
            .filter(|&n| n <= 1 << 16)
        else {
            all = false;
            continue;
        };
        entries.push(format!(
            "{}:{{\"dtype\":\"F32\",\"shape\":{:?},\"data_offsets\":[{offset},{}]}}",
            serde_json::to_string(name).expect("a string"),
            dims,
            offset + bytes
        ));
        offset += bytes;
    }
    let json = format!("{{{}}}", entries.join(","));
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    out.resize(out.len() + offset, 0);
    (out, all)
}

/// The fixed header raw spec text is checked against.
fn fixed_header() -> Vec<u8> {
    let t = |n: &str, d: &[usize]| (n.to_owned(), d.to_vec());
    safetensors(
        &[
            t("w", &[2, 3]),
            t("layers.0.w", &[3]),
            t("layers.1.w", &[3]),
            t("embed.weight", &[10, 4]),
            t("model.norm.weight", &[4]),
        ],
        &[("hidden_size".into(), "4".into())],
    )
    .0
}

/// Whether changing the first dim of tensor `i` must be found: its pattern's first dim is a
/// literal, or each of its variables is fixed by another tensor or another axis of this one
/// (a variable that shows once binds to whatever it meets).
fn pinned(atoms: &[Option<Vec<Atom>>], i: usize) -> bool {
    let Some(Some(mine)) = atoms.get(i) else {
        return false;
    };
    let Some(first) = mine.first() else {
        return false;
    };
    // Only a dim that determines its variable pins it: `d`, `d + 1`, `2 * d`; not `d // 2`
    // (4 and 5 both halve to 2) nor `heads * d` (the other factor follows).
    let fixes =
        |x: &Atom, v: usize| matches!(*x, Atom::Var(u) | Atom::Plus1(u) | Atom::Twice(u) if u == v);
    first.vars().into_iter().all(|v| {
        let elsewhere = atoms
            .iter()
            .enumerate()
            .any(|(j, a)| j != i && a.iter().flatten().any(|x| fixes(x, v)));
        elsewhere || mine[1..].iter().any(|x| fixes(x, v))
    })
}

/// The checks on an error of `Spec::from_toml` for `text`.
fn check_spec_error(text: &str, e: &shapes::SpecError) {
    let lines = text.split('\n').count();
    assert!(
        e.line() >= 1 && e.line() <= lines.max(1),
        "line {} of {lines}: {e}",
        e.line()
    );
    assert!(e.column() >= 1, "column {}: {e}", e.column());
    let shown = e.to_string();
    let head = format!("f.toml:{}:{}: ", e.line(), e.column());
    assert!(
        shown.starts_with(&head),
        "{shown:?} does not start with {head:?}"
    );
    assert_eq!(format!("{e:?}"), shown, "Debug reads like Display");
    // The excerpt quotes at most 60 characters on each side of the caret.
    for line in shown.lines().skip(1) {
        assert!(
            line.chars().count() <= 2 * 60 + 16,
            "an excerpt line of {} characters: {line:?}",
            line.chars().count()
        );
    }
}

/// The checks on checking `ckpt` against `spec`; returns whether the report is a pass, and
/// its text.
fn check_report(spec: &Spec, ckpt: &Checkpoint, options: &CheckOptions) -> Option<(bool, String)> {
    let report = match spec.check_with(ckpt, options) {
        Ok(r) => r,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return None;
        }
    };
    let text = report.render(Paint::PLAIN);
    assert_eq!(text, report.to_string(), "Display is the plain rendering");
    assert!(text.len() < 256 * 1024, "{} bytes of report", text.len());
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a raw control character in {text:?}"
    );
    let json = report.to_json();
    let back: serde_json::Value =
        serde_json::from_str(&json.to_string()).expect("the JSON report parses back");
    assert_eq!(back, json);
    let _ = report.to_sarif().to_string();
    let again = spec.check_with(ckpt, options).expect("it checked once");
    assert_eq!(again.render(Paint::PLAIN), text, "checking twice differs");
    Some((report.ok(), text))
}

/// The `spec` target.
pub fn check_spec(data: &[u8]) {
    let mut b = Bytes::new(data);
    let mode = b.byte();
    if mode.is_multiple_of(2) {
        let text = String::from_utf8_lossy(b.rest()).into_owned();
        match Spec::from_toml("f.toml", &text) {
            Err(e) => check_spec_error(&text, &e),
            Ok(spec) => {
                let ckpt = Checkpoint::from_bytes(&fixed_header()).expect("the fixed header");
                check_report(&spec, &ckpt, &CheckOptions::new());
                check_report(&spec, &ckpt, &CheckOptions::new().strict(false));
            }
        }
        return;
    }
    let written = write_spec(&mut b);
    let mut toml = written.toml;
    let mut plain = written.plain;
    // Now and then a line replaced by bytes.
    if b.byte().is_multiple_of(8) {
        plain = false;
        let at = usize::from(b.byte());
        let junk = String::from_utf8_lossy(&b.rest()[..b.rest().len().min(40)]).into_owned();
        let mut lines: Vec<String> = toml.lines().map(str::to_owned).collect();
        if !lines.is_empty() {
            let i = at % lines.len();
            lines[i] = junk;
        }
        toml = lines.join("\n");
    }
    let spec = match Spec::from_toml("f.toml", &toml) {
        Ok(spec) => spec,
        Err(e) => {
            check_spec_error(&toml, &e);
            return;
        }
    };
    let mut tensors = written.tensors;
    let options = match b.byte() % 4 {
        0 => CheckOptions::new().strict(false),
        1 => {
            plain = false;
            let var = VARS[usize::from(b.byte()) % VARS.len()].0;
            CheckOptions::new().set(var, usize::from(b.byte() % 9))
        }
        _ => CheckOptions::new(),
    };
    let (clean, whole) = safetensors(&tensors, &written.metadata);
    plain &= whole;
    let ckpt = Checkpoint::from_bytes(&clean).expect("a header the target wrote");
    let passed = check_report(&spec, &ckpt, &options);
    // The analysis may refuse a spec whose variables show once; one that loads and is plain
    // describes the checkpoint written from it.
    if plain && let Some((passed, text)) = passed {
        assert!(
            passed,
            "the uncorrupted checkpoint fails its plain spec:\n{toml}\n{text}"
        );
    }
    // One corruption.
    let what = b.byte() % 4;
    if tensors.is_empty() {
        return;
    }
    let i = usize::from(b.byte()) % tensors.len();
    let must_fail = plain && what == 0 && pinned(&written.atoms, i);
    let mut changed_dim = false;
    match what {
        0 => {
            if let Some(d) = tensors[i].1.first_mut() {
                *d += 1;
                changed_dim = true;
            }
        }
        1 => {
            tensors.remove(i);
        }
        2 => tensors.push(("extra.t".into(), vec![3])),
        _ => tensors[i].1.reverse(),
    }
    let (corrupted, whole) = safetensors(&tensors, &written.metadata);
    let must_fail = must_fail && whole;
    let ckpt = Checkpoint::from_bytes(&corrupted).expect("a header the target wrote");
    let passed = check_report(&spec, &ckpt, &options);
    if must_fail
        && changed_dim
        && let Some((passed, text)) = passed
    {
        assert!(
            !passed,
            "a changed dim passes its plain spec:\n{toml}\n{text}"
        );
    }
}
