//! `shapes inspect`: every tensor with repeated layers folded, the format, the metadata that
//! matters, and, when the architecture is recognised, the dims its built-in spec binds.

use std::fmt::Write;

use shapes::SourceOptions;

use crate::arch;
use crate::fold::fold;
use crate::open::Opened;
use crate::spec::{self, SpecText};

/// The dims `inspect` shows first, in this order, when the spec binds them.
const HEADLINE: &[&str] = &[
    "d_model", "heads", "kv_heads", "head_dim", "n_layers", "d_ff", "vocab",
];

fn dims(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(ToString::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// The architecture line: what the built-in spec binds on this file, or why it does not fit.
fn architecture(opened: &Opened) -> Option<String> {
    let name = opened.architecture()?;
    let Some((shown, text)) = arch::find(&name, opened.is_gguf()) else {
        return Some(format!("architecture: {name} (no built-in spec)"));
    };
    let compiled = spec::compile(&SpecText { file: &shown, text }).ok()?;
    let result = compiled
        .plan
        .verify_source_options(opened, SourceOptions::new());
    let mut s = format!("architecture: {name} ({shown})\n  ");
    match result {
        Ok(b) => {
            let mut parts: Vec<String> = HEADLINE
                .iter()
                .filter_map(|v| Some(format!("{v} = {}", b.get(v)?)))
                .collect();
            if !b.tied().is_empty() {
                parts.push("tied embeddings".into());
            }
            s.push_str(&parts.join(", "));
        }
        Err(e) => {
            let _ = write!(
                s,
                "does not match the built-in spec ({} error{}): run `shapes check` for the report",
                e.len(),
                if e.len() == 1 { "" } else { "s" }
            );
        }
    }
    Some(s)
}

/// The listing.
pub fn text(opened: &Opened) -> String {
    let tensors = opened.tensors();
    let names: Vec<&str> = tensors.iter().map(|t| t.name).collect();
    let folded = fold(&names, |i| (tensors[i].dtype, tensors[i].shape));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {}, {} tensors",
        opened.path.display(),
        opened.format(),
        tensors.len()
    );
    let meta = opened.metadata();
    if !meta.is_empty() {
        let _ = writeln!(s, "metadata:");
        for (k, v) in meta {
            let _ = writeln!(s, "  {k} = {v}");
        }
    }
    if let Some((path, _)) = opened.config_json() {
        let _ = writeln!(s, "config: {}", path.display());
    }
    if let Some(a) = architecture(opened) {
        let _ = writeln!(s, "{a}");
    }
    let rows: Vec<[String; 4]> = folded
        .iter()
        .map(|f| {
            let t = &tensors[f.first];
            [
                f.name.clone(),
                t.dtype.to_owned(),
                dims(t.shape),
                if f.count > 1 {
                    format!("×{}", f.count)
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    let w0 = rows.iter().map(|r| r[0].chars().count()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r[1].chars().count()).max().unwrap_or(0);
    let w2 = rows.iter().map(|r| r[2].chars().count()).max().unwrap_or(0);
    let _ = writeln!(s, "tensors:");
    for r in &rows {
        let line = format!("  {:<w0$}  {:<w1$}  {:<w2$}  {}", r[0], r[1], r[2], r[3]);
        let _ = writeln!(s, "{}", line.trim_end());
    }
    s
}
