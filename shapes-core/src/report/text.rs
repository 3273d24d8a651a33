//! A [`Report`] as text for a person: bounded, folded, escaped, and coloured on request.

use std::fmt::{self, Write};

use super::{MAX_SHOWN, Report};
use crate::text::{Padded, column_width, escape};
use crate::verify::fold::fold_by;
use crate::verify::{Bindings, Origin, ShapeErrorKind};

/// How many mismatches are listed in full when one stated value explains them all.
const SHOWN_WHEN_EXPLAINED: usize = 3;

/// Colours for a terminal (ANSI), or none.
///
/// ```
/// use shapes::report::Paint;
/// assert_eq!(Paint::PLAIN.ok("OK"), "OK");
/// assert_eq!(Paint::ANSI.ok("OK"), "\u{1b}[1;32mOK\u{1b}[0m");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paint {
    on: bool,
}

impl Paint {
    /// No colour.
    pub const PLAIN: Paint = Paint { on: false };
    /// ANSI colours.
    pub const ANSI: Paint = Paint { on: true };

    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Success: bold green.
    pub fn ok(self, text: &str) -> String {
        self.paint("1;32", text)
    }
    /// Failure: bold red.
    ///
    /// ```
    /// assert_eq!(shapes::report::Paint::PLAIN.bad("MISMATCH"), "MISMATCH");
    /// ```
    pub fn bad(self, text: &str) -> String {
        self.paint("1;31", text)
    }
    /// A hint: yellow.
    ///
    /// ```
    /// assert_eq!(shapes::report::Paint::ANSI.warn("hint:"), "\u{1b}[33mhint:\u{1b}[0m");
    /// ```
    pub fn warn(self, text: &str) -> String {
        self.paint("33", text)
    }
    /// Less important: dim.
    ///
    /// ```
    /// assert_eq!(shapes::report::Paint::PLAIN.dim("x"), "x");
    /// ```
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
    /// A heading: bold.
    ///
    /// ```
    /// assert_eq!(shapes::report::Paint::PLAIN.bold("x"), "x");
    /// ```
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    crate::verify::names::thousands(n)
}

impl Report {
    /// Where a value came from, in the words of the report's reader: a value given by the
    /// caller is named as the options named it (`--set`).
    fn origin_text(&self, o: &Origin) -> String {
        match (o, self.config_file) {
            (Origin::Given, _) => self.given_by.clone(),
            (Origin::Config { key }, Some(file)) => format!("{file} `{}`", escape(key)),
            _ => escape(&o.to_string()).into_owned(),
        }
    }

    /// The table of bindings: variable, value, where it came from.
    fn table(&self, b: &Bindings) -> String {
        let rows: Vec<[String; 3]> = b
            .iter()
            .map(|x| {
                [
                    escape(&x.name).into_owned(),
                    x.value.to_string(),
                    self.origin_text(&x.origin),
                ]
            })
            .collect();
        let head = ["variable", "value", "bound by"];
        let width = |k: usize| column_width(rows.iter().map(|r| r[k].as_str()).chain([head[k]]));
        let (w0, w1) = (width(0), width(1));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}  {}  {}",
            Padded::left(head[0], w0),
            Padded::right(head[1], w1),
            head[2]
        );
        let _ = writeln!(
            s,
            "{}  {}  {}",
            "-".repeat(w0),
            "-".repeat(w1),
            "-".repeat(head[2].len())
        );
        for r in &rows {
            let _ = writeln!(
                s,
                "{}  {}  {}",
                Padded::left(&r[0], w0),
                Padded::right(&r[1], w1),
                r[2]
            );
        }
        s
    }

    /// How many entries of a kind are shown.
    fn budget(&self) -> usize {
        if self.all { usize::MAX } else { MAX_SHOWN }
    }

    /// Names folded across list indices, one per line, at most [`budget`](Self::budget)
    /// lines, then a count of the rest.
    fn names(&self, s: &mut String, names: &[&str]) {
        let max_groups = if self.all { usize::MAX } else { MAX_SHOWN };
        let (folded, rest) = fold_by(names.iter().map(|n| (*n, ())), max_groups);
        let mut shown = 0;
        for f in folded.iter().take(self.budget()) {
            let text = escape(&f.text);
            let _ = match f.count {
                1 => writeln!(s, "  {text}"),
                n => writeln!(s, "  {text}  ×{n}"),
            };
            shown += f.count;
        }
        let total = folded.iter().map(|f| f.count).sum::<usize>() + rest;
        if shown < total {
            let _ = writeln!(s, "  … and {} more", thousands(total - shown));
        }
    }

    /// The text, coloured with `paint`.
    ///
    /// ```
    /// # let ckpt = shapes::Checkpoint::from_bytes(&{
    /// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    /// #     npy.extend((dict.len() as u16).to_le_bytes());
    /// #     npy.extend(dict.as_bytes());
    /// #     npy.extend([0u8; 8]);
    /// #     npy
    /// # })?;
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"array\" = \"(n,)\"\n")?;
    /// let text = spec.check(&ckpt).render(shapes::report::Paint::ANSI);
    /// assert!(text.contains("\u{1b}[1;32mOK\u{1b}[0m: the checkpoint matches the spec"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render(&self, paint: Paint) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}: {}, {} tensors",
            escape(&self.source),
            self.format,
            self.tensors
        );
        let _ = writeln!(
            s,
            "spec: {} ({})",
            escape(&self.spec_name),
            escape(&self.spec_file)
        );
        if let Some((first, rest)) = self.notes.split_first() {
            let _ = writeln!(s, "{}", paint.warn(&escape(first)));
            for n in rest {
                let _ = writeln!(s, "  checked: {}", escape(n));
            }
        }
        match &self.result {
            Ok(_) if !self.dtypes.is_empty() => {
                let n = self.dtypes.len();
                let _ = writeln!(
                    s,
                    "{}: {n} tensor{} of a dtype the spec does not allow",
                    paint.bad("MISMATCH"),
                    plural(n)
                );
                self.render_dtypes(&mut s, paint);
            }
            Ok(b) => {
                let _ = writeln!(s, "{}: {}", paint.ok("OK"), self.matches);
                for t in b.tied() {
                    let _ = writeln!(s, "{}", paint.dim(&escape(&t.to_string())));
                }
                self.render_warnings(&mut s, paint);
                let _ = writeln!(s);
                s.push_str(&self.table(b));
            }
            Err(errors) => {
                self.render_errors(&mut s, errors, paint);
                self.render_warnings(&mut s, paint);
            }
        }
        s
    }

    /// The tensors a non-strict check allowed: warnings, not silence.
    fn render_warnings(&self, s: &mut String, paint: Paint) {
        let warnings = self.warnings();
        if warnings.is_empty() {
            return;
        }
        let n = warnings.len();
        let _ = writeln!(
            s,
            "\n{} {} tensor{} the spec does not describe (allowed: the check is not strict):",
            paint.warn("warning:"),
            thousands(n),
            plural(n)
        );
        let names: Vec<&str> = warnings.iter().map(String::as_str).collect();
        self.names(s, &names);
    }

    /// The headline of the mismatches one value explains, when no stated value does: a
    /// value bound by a tensor, given by the caller or stated, that two mismatches or more
    /// differ from in the same way. Returns how many mismatches the causes explain.
    fn render_causes(
        &self,
        s: &mut String,
        errors: &crate::verify::ShapeErrors,
        paint: Paint,
    ) -> usize {
        let mismatches: Vec<&crate::verify::ShapeError> = errors.mismatches().collect();
        let causes = crate::verify::causes(&mismatches);
        let mut explained = 0;
        for (c, members) in causes.iter().take(self.budget()) {
            explained += members.len();
            let _ = writeln!(
                s,
                "\n{} {} = {} bound by {}, but {} {} {}",
                paint.bad(&format!("{} errors, one cause:", thousands(members.len()))),
                escape(&c.name),
                c.value,
                self.origin_text(&c.origin),
                thousands(members.len()),
                if members.len() == 1 {
                    "dim is"
                } else {
                    "dims are"
                },
                c.found,
            );
        }
        explained
    }

    fn render_errors(&self, s: &mut String, errors: &crate::verify::ShapeErrors, paint: Paint) {
        let n = errors.len();
        let _ = writeln!(s, "{}: {n} error{}", paint.bad("MISMATCH"), plural(n));
        for d in &self.disagreements {
            let head = paint.bad(&format!(
                "{} error{}, one cause:",
                d.errors,
                plural(d.errors)
            ));
            let _ = if d.by_caller {
                writeln!(
                    s,
                    "\n{head} {} {} = {}, but without it the checkpoint gives {} = {} (bound by {})",
                    escape(&d.source),
                    d.var,
                    d.stated,
                    d.var,
                    d.found,
                    escape(&d.bound_by),
                )
            } else {
                writeln!(
                    s,
                    "\n{head} {} = {}, but the tensors give {} = {} (bound by {})",
                    escape(&d.source),
                    d.stated,
                    d.var,
                    d.found,
                    escape(&d.bound_by),
                )
            };
        }
        let total = errors.mismatches().count();
        let explained = if self.disagreements.is_empty() {
            self.render_causes(s, errors, paint)
        } else {
            0
        };
        // Each text is made, folded and dropped: the fold keeps only the indices that vary.
        let texts = errors.mismatches().map(|e| (self.error_text(e, true), ()));
        let (folded, _) = fold_by(texts, usize::MAX);
        let shown_max = if !self.disagreements.is_empty() || (explained == total && total > 0) {
            SHOWN_WHEN_EXPLAINED
        } else {
            self.budget()
        };
        let mut shown = 0;
        for f in folded.iter().take(shown_max) {
            // Line by line: the message's own lines stay lines, anything else is escaped.
            let mut lines = f.text.lines().map(escape);
            let head = match f.count {
                1 => String::new(),
                k => format!("({} errors) ", thousands(k)),
            };
            if let Some(first) = lines.next() {
                let _ = writeln!(s, "\n{} {head}{first}", paint.bad("-"));
            }
            for l in lines {
                let _ = writeln!(s, "  {l}");
            }
            shown += f.count;
        }
        if total > shown {
            let _ = writeln!(s, "\n… and {} more", thousands(total - shown));
        }
        // A head the config says is not tied, yet absent: its own message, then listed with
        // the missing tensors.
        for e in errors
            .errors()
            .iter()
            .filter(|e| matches!(e.kind, ShapeErrorKind::Untied { .. }))
            .take(self.budget())
        {
            let text = self.error_text(e, true);
            let lines: Vec<_> = text.lines().map(escape).collect();
            let _ = writeln!(s, "\n{} {}", paint.bad("-"), lines.join("\n"));
        }
        let missing = errors.missing_tensors();
        let unexpected = errors.unexpected_tensors();
        if !missing.is_empty() {
            let _ = writeln!(
                s,
                "\n{} ({}):",
                paint.bold("missing tensors"),
                thousands(missing.len())
            );
            self.names(s, &missing);
        }
        if !unexpected.is_empty() {
            let names: Vec<&str> = unexpected.iter().map(String::as_str).collect();
            let _ = writeln!(
                s,
                "\n{} ({}):",
                paint.bold("unexpected tensors"),
                thousands(unexpected.len())
            );
            self.names(s, &names);
        }
        let hints: Vec<(&str, &str)> = errors.suggestions().collect();
        for (m, u) in hints.iter().take(self.budget()) {
            let _ = writeln!(
                s,
                "{} `{}` is missing: did you mean `{}`?",
                paint.warn("hint:"),
                escape(m),
                escape(u)
            );
        }
        if hints.len() > self.budget() {
            let _ = writeln!(
                s,
                "{} … and {} more missing tensors with a close unexpected name",
                paint.warn("hint:"),
                thousands(hints.len() - self.budget())
            );
        }
        self.render_dtypes(s, paint);
        if !self.given.is_empty() {
            let _ = writeln!(s, "\nvalues given before checking:");
            for g in &self.given {
                let _ = writeln!(s, "  {} = {} from {}", g.var, g.value, escape(&g.source));
            }
        }
    }
}

impl Report {
    /// The tensors of a dtype the spec does not allow, folded across layers.
    fn render_dtypes(&self, s: &mut String, paint: Paint) {
        if self.dtypes.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "\n{} ({}):",
            paint.bold("tensors of a dtype the spec does not allow"),
            thousands(self.dtypes.len())
        );
        let texts: Vec<(&str, String)> = self
            .dtypes
            .iter()
            .map(|w| {
                (
                    w.tensor.as_str(),
                    format!("{}, not {}", w.dtype, w.allowed.join(" or ")),
                )
            })
            .collect();
        let (folded, rest) = fold_by(texts.iter().map(|(n, k)| (*n, k)), self.budget());
        let mut shown = 0;
        for f in folded.iter().take(self.budget()) {
            let Some((_, what)) = texts.get(f.first) else {
                continue;
            };
            let count = if f.count > 1 {
                format!("  ×{}", f.count)
            } else {
                String::new()
            };
            let _ = writeln!(s, "  {}: {}{count}", escape(&f.text), escape(what));
            shown += f.count;
        }
        let total = shown
            + rest
            + folded
                .iter()
                .skip(self.budget())
                .map(|f| f.count)
                .sum::<usize>();
        if total > shown {
            let _ = writeln!(s, "  … and {} more", thousands(total - shown));
        }
    }
}

impl fmt::Display for Report {
    /// The text without colour: what `shapes check` prints in a pipe.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Paint::PLAIN))
    }
}
