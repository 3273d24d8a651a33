//! What `shapes check` prints: a report for a person (colour on a terminal) or JSON for CI.

use std::fmt::Write;

use serde_json::{Value, json};
use shapes::{Bindings, Origin, ShapeSource};

use crate::check::Outcome;
use crate::fold::fold_names;
use crate::open::Opened;
use crate::style::Style;

/// How many mismatches are listed in full when one config value explains them all.
const SHOWN_WHEN_EXPLAINED: usize = 3;

fn origin_text(o: &Origin, var: &str, out: &Outcome) -> String {
    match o {
        Origin::Given => out
            .given
            .iter()
            .find(|g| g.var == var)
            .map_or_else(|| o.to_string(), |g| g.source.clone()),
        _ => o.to_string(),
    }
}

/// An error's text with each given value's source in place of "the caller".
fn given_sources(text: &str, out: &Outcome) -> String {
    let mut text = text.to_owned();
    for g in out.given.iter().filter(|g| g.source != "--set") {
        let from = format!("{} = {} bound by the caller", g.var, g.value);
        let to = format!("{} = {} from {}", g.var, g.value, g.source);
        text = text.replace(&from, &to);
    }
    text
}

/// The table of bindings: variable, value, where it came from.
pub fn table(b: &Bindings, out: &Outcome) -> String {
    let rows: Vec<[String; 3]> = b
        .iter()
        .map(|x| {
            [
                x.name.to_string(),
                x.value.to_string(),
                origin_text(&x.origin, &x.name, out),
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
        opened.header.tensor_names().len()
    );
    let _ = writeln!(s, "spec: {} ({})", out.spec_name, out.spec_file);
    for t in &out.untied_missing {
        let _ = writeln!(
            s,
            "{} `{}` is missing, and {} = false says it is not tied",
            style.bad("error:"),
            t.0,
            t.1
        );
    }
    match &out.result {
        Ok(b) if out.untied_missing.is_empty() => {
            let _ = writeln!(s, "{}: the checkpoint matches the spec", style.ok("OK"));
            for (t, to) in &out.tied {
                let _ = writeln!(s, "{}", style.dim(&format!("{t}: absent, tied to {to}")));
            }
            let _ = writeln!(s);
            s.push_str(&table(b, out));
        }
        Ok(_) => {
            let _ = writeln!(s, "{}", style.bad("MISMATCH"));
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
                let text = given_sources(&e.to_string(), out);
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
        "tensors": opened.header.tensor_names().len(),
        "spec": { "name": out.spec_name, "file": out.spec_file },
        "ok": out.ok(),
        "given": out.given.iter().map(|g| json!({
            "variable": g.var, "value": g.value, "source": g.source,
        })).collect::<Vec<_>>(),
        "tied": out.tied.iter().map(|(t, to)| json!({ "tensor": t, "tied_to": to })).collect::<Vec<_>>(),
        "untied_missing": out.untied_missing.iter().map(|(t, k)| json!({ "tensor": t, "key": k })).collect::<Vec<_>>(),
    });
    match &out.result {
        Ok(b) => {
            report["bindings"] = b
                .iter()
                .map(|x| {
                    json!({
                        "variable": x.name,
                        "value": value_json(&x.value),
                        "bound_by": origin_text(&x.origin, &x.name, out),
                    })
                })
                .collect();
        }
        Err(errors) => {
            let missing = errors.missing_tensors();
            let unexpected = errors.unexpected_tensors();
            report["errors"] = errors
                .mismatches()
                .map(|e| {
                    json!({
                        "path": e.path.to_string(),
                        "tensor": e.tensor,
                        "axis": e.axis,
                        "message": given_sources(&e.to_string(), out),
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
