//! `shapes inspect`: every tensor with repeated layers folded, the format, the metadata that
//! matters, and, when the architecture is recognised, the dims its built-in spec binds.

use std::fmt::Write;

use shapes::report::fold_by;
use shapes::text::{Padded, column_width, escape};
use shapes::{Checkpoint, Spec, spec::Naming, verify::SourceOptions};

use crate::open;

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
/// A file that names no architecture (a safetensors file without its config.json) is
/// recognised by its tensor names.
fn architecture(ckpt: &Checkpoint) -> Option<String> {
    let (name, guessed) = match ckpt.architecture() {
        Some(name) => (name, false),
        None => (Spec::guess(ckpt)?, true),
    };
    let Some(spec) = Spec::builtin(name, Naming::of(ckpt)) else {
        let generic = if Spec::generic(ckpt).is_some() {
            "; `shapes check` runs the generic checks of its format"
        } else {
            ""
        };
        return Some(format!(
            "architecture: {} (no built-in spec{generic})",
            escape(name)
        ));
    };
    let result = spec
        .plan_for(ckpt)
        .verify_source_options(ckpt, SourceOptions::new());
    let how = if guessed {
        ", recognised by its tensor names: no config names one"
    } else {
        ""
    };
    let mut s = format!("architecture: {}{how} ({})\n  ", escape(name), spec.file());
    if guessed && let Err(e) = &result {
        let sets: Vec<String> = spec
            .given()
            .iter()
            .map(|g| format!(" --set {g}=N"))
            .collect();
        let _ = write!(
            s,
            "its sizes need the config ({} error{} without it): give --config config.json, or run `shapes check --arch {name}{}`",
            e.len(),
            if e.len() == 1 { "" } else { "s" },
            sets.concat()
        );
        return Some(s);
    }
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
pub fn text(path: &std::path::Path, ckpt: &Checkpoint) -> String {
    let tensors = ckpt.tensors();
    let keyed = tensors
        .iter()
        .map(|t| (t.name.as_str(), (t.dtype.as_str(), t.shape.dims())));
    let (folded, _) = fold_by(keyed, usize::MAX);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {}, {} tensors",
        escape(&path.display().to_string()),
        ckpt.format_and_files(),
        tensors.len()
    );
    let meta = open::metadata(ckpt);
    if !meta.is_empty() {
        let _ = writeln!(s, "metadata:");
        for (k, v) in meta {
            let _ = writeln!(s, "  {} = {}", escape(&k), escape(&v));
        }
    }
    if let Some(p) = ckpt.config_path() {
        let _ = writeln!(s, "config: {}", escape(&p.display().to_string()));
    }
    if let Some(a) = architecture(ckpt) {
        let _ = writeln!(s, "{a}");
    }
    let rows: Vec<[String; 4]> = folded
        .iter()
        .filter_map(|f| {
            let t = tensors.get(f.first)?;
            Some([
                escape(&f.text).into_owned(),
                escape(&t.dtype).into_owned(),
                dims(t.shape.dims()),
                if f.count > 1 {
                    format!("×{}", f.count)
                } else {
                    String::new()
                },
            ])
        })
        .collect();
    let width = |k: usize| column_width(rows.iter().map(|r| r[k].as_str()));
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let _ = writeln!(s, "tensors:");
    for r in &rows {
        let line = format!(
            "  {}  {}  {}  {}",
            Padded::left(&r[0], w0),
            Padded::left(&r[1], w1),
            Padded::left(&r[2], w2),
            r[3]
        );
        let _ = writeln!(s, "{}", line.trim_end());
    }
    s
}
