//! What `shapes check` prints: a report for a person (colour on a terminal) or JSON for CI.

use std::fmt::Write;

use serde_json::{Value, json};
use shapes::{Bindings, Origin, ShapeErrorKind, ShapeSource};

use crate::check::Outcome;
use crate::fold::fold_names;
use crate::open::Opened;
use crate::style::Style;

/// How many mismatches are listed in full when one config value explains them all.
const SHOWN_WHEN_EXPLAINED: usize = 3;

fn origin_text(o: &Origin) -> String {
    match o {
        Origin::Given => "--set".into(),
        _ => o.to_string(),
    }
}

/// The table of bindings: variable, value, where it came from.
pub fn table(b: &Bindings) -> String {
    let rows: Vec<[String; 3]> = b
        .iter()
        .map(|x| {
            [
                x.name.to_string(),
                x.value.to_string(),
                origin_text(&x.origin),
            ]
        })
        .collect();
    let head = ["variable", "value", "bound by"];
    let w0 = rows
        .iter()
        .map(|r| r[0].chars().count())
        .chain([head[0].len()])
        .max()
        .unwrap_or(0);
    let w1 = rows
        .iter()
        .map(|r| r[1].chars().count())
        .chain([head[1].len()])
        .max()
        .unwrap_or(0);
    let mut s = String::new();
    let _ = writeln!(s, "{:<w0$}  {:>w1$}  {}", head[0], head[1], head[2]);
    let _ = writeln!(
        s,
        "{}  {}  {}",
        "-".repeat(w0),
        "-".repeat(w1),
        "-".repeat(head[2].len())
    );
    for r in &rows {
        let _ = writeln!(s, "{:<w0$}  {:>w1$}  {}", r[0], r[1], r[2]);
    }
    s
}

/// "Did you mean": each missing tensor with the closest unexpected name, when close.
fn suggestions(missing: &[&str], unexpected: &[String]) -> Vec<(String, String)> {
    let pool: Vec<&str> = unexpected.iter().map(String::as_str).collect();
    missing
        .iter()
        .filter_map(|m| Some((m.to_string(), shapes::__private::closest(m, &pool)?)))
        .collect()
}

/// The report for a person.
pub fn text(opened: &Opened, out: &Outcome, style: Style) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {}, {} tensors",
        opened.path.display(),
        opened.format(),
        opened.tensor_names().len()
    );
    let _ = writeln!(s, "spec: {} ({})", out.spec_name, out.spec_file);
    match &out.result {
        Ok(b) => {
            let _ = writeln!(s, "{}: the checkpoint matches the spec", style.ok("OK"));
            for t in b.tied() {
                let _ = writeln!(s, "{}", style.dim(&t.to_string()));
            }
            let _ = writeln!(s);
            s.push_str(&table(b));
        }
        Err(errors) => {
            let n = errors.len();
            let _ = writeln!(
                s,
                "{}: {n} error{}",
                style.bad("MISMATCH"),
                if n == 1 { "" } else { "s" }
            );
            for d in &out.disagreements {
                let _ = writeln!(
                    s,
                    "\n{} {} = {}, but the tensors give {} = {} (bound by {})",
                    style.bad(&format!(
                        "{} error{}, one cause:",
                        d.errors,
                        if d.errors == 1 { "" } else { "s" }
                    )),
                    d.source,
                    d.stated,
                    d.var,
                    d.found,
                    d.bound_by,
                );
            }
            let mismatches: Vec<_> = errors.mismatches().collect();
            let shown = if out.disagreements.is_empty() {
                mismatches.len()
            } else {
                SHOWN_WHEN_EXPLAINED
            };
            for e in mismatches.iter().take(shown) {
                let text = e.to_string();
                let mut lines = text.lines();
                if let Some(first) = lines.next() {
                    let _ = writeln!(s, "\n{} {first}", style.bad("-"));
                }
                for l in lines {
                    let _ = writeln!(s, "  {l}");
                }
            }
            if mismatches.len() > shown {
                let _ = writeln!(s, "\n… and {} more", mismatches.len() - shown);
            }
            // A head the config says is not tied, yet absent: its own message, then listed
            // with the missing tensors.
            for e in errors
                .errors()
                .iter()
                .filter(|e| matches!(e.kind, ShapeErrorKind::Untied { .. }))
            {
                let _ = writeln!(s, "\n{} {e}", style.bad("-"));
            }
            let missing = errors.missing_tensors();
            let unexpected = errors.unexpected_tensors();
            if !missing.is_empty() {
                let _ = writeln!(
                    s,
                    "\n{} ({}):",
                    style.bold("missing tensors"),
                    missing.len()
                );
                for m in fold_names(&missing) {
                    let _ = writeln!(s, "  {m}");
                }
            }
            if !unexpected.is_empty() {
                let names: Vec<&str> = unexpected.iter().map(String::as_str).collect();
                let _ = writeln!(
                    s,
                    "\n{} ({}):",
                    style.bold("unexpected tensors"),
                    unexpected.len()
                );
                for m in fold_names(&names) {
                    let _ = writeln!(s, "  {m}");
                }
            }
            for (m, u) in suggestions(&missing, unexpected) {
                let _ = writeln!(
                    s,
                    "{} `{m}` is missing: did you mean `{u}`?",
                    style.warn("hint:")
                );
            }
            if !out.given.is_empty() {
                let _ = writeln!(s, "\nvalues given before checking:");
                for g in &out.given {
                    let _ = writeln!(s, "  {} = {} from {}", g.var, g.value, g.source);
                }
            }
        }
    }
    s
}

fn value_json(v: &shapes::Value) -> Value {
    match v {
        shapes::Value::Size(n) => json!(n),
        shapes::Value::Shape(s) => json!(s.dims()),
    }
}

/// The report as JSON.
pub fn json(opened: &Opened, out: &Outcome) -> Value {
    let mut report = json!({
        "path": opened.path.display().to_string(),
        "format": opened.format(),
        "tensors": opened.tensor_names().len(),
        "spec": { "name": out.spec_name, "file": out.spec_file },
        "ok": out.ok(),
        "given": out.given.iter().map(|g| json!({
            "variable": g.var, "value": g.value, "source": g.source,
        })).collect::<Vec<_>>(),
    });
    match &out.result {
        Ok(b) => {
            report["tied"] = b
                .tied()
                .iter()
                .map(|t| json!({ "tensor": t.tensor, "tied_to": t.to }))
                .collect();
            report["bindings"] = b
                .iter()
                .map(|x| {
                    json!({
                        "variable": x.name,
                        "value": value_json(&x.value),
                        "bound_by": origin_text(&x.origin),
                    })
                })
                .collect();
        }
        Err(errors) => {
            let missing = errors.missing_tensors();
            let unexpected = errors.unexpected_tensors();
            report["errors"] = errors
                .errors()
                .iter()
                .filter(|e| {
                    !matches!(
                        e.kind,
                        ShapeErrorKind::Missing { .. } | ShapeErrorKind::Unexpected { .. }
                    )
                })
                .map(|e| {
                    json!({
                        "path": e.path.to_string(),
                        "tensor": e.tensor,
                        "axis": e.axis,
                        "message": e.to_string(),
                    })
                })
                .collect();
            report["missing"] = json!(missing);
            report["unexpected"] = json!(unexpected);
            report["suggestions"] = suggestions(&missing, unexpected)
                .into_iter()
                .map(|(m, u)| json!({ "missing": m, "did_you_mean": u }))
                .collect();
            report["config_disagreements"] = out
                .disagreements
                .iter()
                .map(|d| {
                    json!({
                        "variable": d.var, "stated": d.stated, "source": d.source,
                        "found": d.found, "bound_by": d.bound_by,
                    })
                })
                .collect();
        }
    }
    report
}
