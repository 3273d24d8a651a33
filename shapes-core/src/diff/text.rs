//! A [`Diff`] as text for a person: one headline, then each kind of difference folded across
//! layers (`layers.{0..29}.mlp.up_proj.weight: (1536, 576) → (1537, 576)  ×30`), at most
//! [`MAX_LINES`] lines of each kind before a count of the rest, every name escaped.

use std::fmt::{self, Write};

use super::{Diff, DiffTensor};
use crate::shape::Shape;
use crate::text::escape;
use crate::verify::fold::fold_by;
use crate::verify::names::{MAX_LINES, thousands};

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `F16 (2, 3)`.
fn typed(dtype: &str, shape: &Shape) -> String {
    format!("{} {shape}", escape(dtype))
}

/// Tensors only one side has, each with its dtype and shape.
fn listed(list: &[DiffTensor]) -> Vec<(&str, String)> {
    list.iter()
        .map(|t| (t.name.as_str(), typed(&t.dtype, &t.shape)))
        .collect()
}

impl Diff {
    /// How many lines of each kind are shown.
    fn budget(&self) -> usize {
        if self.all { usize::MAX } else { MAX_LINES }
    }

    /// One kind of difference: a heading, then `(name, what)` pairs folded across layers
    /// where `what` is the same, at most [`budget`](Self::budget) lines, then a count.
    fn section(&self, s: &mut String, heading: &str, entries: &[(&str, String)]) {
        if entries.is_empty() {
            return;
        }
        let _ = writeln!(s, "\n{heading} ({}):", thousands(entries.len()));
        let budget = self.budget();
        let (folded, _) = fold_by(entries.iter().map(|(n, w)| (*n, w)), budget);
        let mut shown = 0usize;
        for f in folded.iter().take(budget) {
            let Some((_, what)) = entries.get(f.first) else {
                continue;
            };
            let count = match f.count {
                1 => String::new(),
                n => format!("  ×{}", thousands(n)),
            };
            let _ = writeln!(s, "  {}: {what}{count}", escape(&f.text));
            shown = shown.saturating_add(f.count);
        }
        if shown < entries.len() {
            let _ = writeln!(s, "  … and {} more", thousands(entries.len() - shown));
        }
    }

    /// The headline: whether the two match in names and shapes, and what differs.
    fn headline(&self, s: &mut String) {
        let reshaped = self.changed.iter().filter(|c| c.shape_changed()).count();
        let retyped = self.changed.len() - reshaped;
        if self.is_empty() {
            let _ = writeln!(
                s,
                "SAME: {} tensors, the same names, shapes and dtypes",
                thousands(self.common)
            );
            return;
        }
        if self.same_shapes() {
            let _ = writeln!(
                s,
                "SAME SHAPES: {} tensors, the same names and shapes; {} differ{} in dtype only",
                thousands(self.common),
                thousands(retyped),
                if retyped == 1 { "s" } else { "" }
            );
            return;
        }
        let mut parts = Vec::new();
        for (n, what) in [
            (self.added.len(), "added"),
            (self.removed.len(), "removed"),
            (reshaped, "reshaped"),
            (retyped, "of another dtype only"),
        ] {
            if n > 0 {
                parts.push(format!("{} {what}", thousands(n)));
            }
        }
        let _ = writeln!(s, "DIFFERENT: {}", parts.join(", "));
        if self.common == 0 && self.a.tensors > 0 && self.b.tensors > 0 {
            let _ = writeln!(
                s,
                "note: no tensor name is in both: names are compared as each file spells them (llama.cpp's GGUF names, blk.0.attn_q.weight, are not Hugging Face's, model.layers.0.self_attn.q_proj.weight)"
            );
        }
    }
}

impl fmt::Display for Diff {
    /// The text `shapes diff` prints: the two checkpoints, the headline, then the removed,
    /// added, reshaped and retyped tensors, each kind folded and bounded.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        for (tag, side) in [("a", &self.a), ("b", &self.b)] {
            let _ = writeln!(
                s,
                "{tag}: {}: {}, {} tensor{}",
                escape(&side.path),
                side.format,
                thousands(side.tensors),
                plural(side.tensors)
            );
        }
        self.headline(&mut s);
        self.section(&mut s, "removed: only in a", &listed(&self.removed));
        self.section(&mut s, "added: only in b", &listed(&self.added));
        let reshaped: Vec<(&str, String)> = self
            .changed
            .iter()
            .filter(|c| c.shape_changed())
            .map(|c| {
                let what = if c.dtype_a == c.dtype_b {
                    format!("{} → {}", c.shape_a, c.shape_b)
                } else {
                    format!(
                        "{} → {}",
                        typed(&c.dtype_a, &c.shape_a),
                        typed(&c.dtype_b, &c.shape_b)
                    )
                };
                (c.name.as_str(), what)
            })
            .collect();
        self.section(&mut s, "reshaped", &reshaped);
        let retyped: Vec<(&str, String)> = self
            .changed
            .iter()
            .filter(|c| !c.shape_changed())
            .map(|c| {
                (
                    c.name.as_str(),
                    format!(
                        "{} → {} {}",
                        escape(&c.dtype_a),
                        escape(&c.dtype_b),
                        c.shape_a
                    ),
                )
            })
            .collect();
        self.section(
            &mut s,
            "dtype changed, same shape (not a shape difference)",
            &retyped,
        );
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use crate::source::Checkpoint;

    use super::Diff;

    /// A safetensors file of F16 tensors, its data zeroed.
    fn safetensors(tensors: &[(String, Vec<usize>, &str)]) -> Vec<u8> {
        let mut entries = Vec::new();
        let mut offset = 0usize;
        for (name, dims, dtype) in tensors {
            let size = if *dtype == "F32" { 4 } else { 2 };
            let bytes = dims.iter().product::<usize>() * size;
            let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
            entries.push(format!(
                r#""{name}":{{"dtype":"{dtype}","shape":[{}],"data_offsets":[{offset},{}]}}"#,
                dims.join(","),
                offset + bytes
            ));
            offset += bytes;
        }
        let json = format!("{{{}}}", entries.join(","));
        let mut f = (json.len() as u64).to_le_bytes().to_vec();
        f.extend_from_slice(json.as_bytes());
        f.resize(f.len() + offset, 0);
        f
    }

    fn layers(
        n: usize,
        width: usize,
        dtype: &'static str,
    ) -> Vec<(String, Vec<usize>, &'static str)> {
        (0..n)
            .map(|i| (format!("layers.{i}.w"), vec![width, 4], dtype))
            .collect()
    }

    #[test]
    fn repeated_layers_fold_into_one_line() {
        let a = Checkpoint::from_bytes(&safetensors(&layers(30, 8, "F16"))).expect("a");
        let b = Checkpoint::from_bytes(&safetensors(&layers(30, 9, "F16"))).expect("b");
        let text = Diff::new(&a, &b).to_string();
        assert!(text.contains("DIFFERENT: 30 reshaped"), "{text}");
        assert!(
            text.contains("  layers.{0..29}.w: (8, 4) → (9, 4)  ×30"),
            "{text}"
        );
    }

    #[test]
    fn a_dtype_only_change_keeps_the_shapes_the_same() {
        let a = Checkpoint::from_bytes(&safetensors(&layers(3, 8, "F16"))).expect("a");
        let b = Checkpoint::from_bytes(&safetensors(&layers(3, 8, "F32"))).expect("b");
        let d = Diff::new(&a, &b);
        assert!(d.same_shapes() && !d.is_empty());
        let text = d.to_string();
        assert!(text.contains("SAME SHAPES: 3 tensors"), "{text}");
        assert!(
            text.contains("  layers.{0..2}.w: F16 → F32 (8, 4)  ×3"),
            "{text}"
        );
    }

    #[test]
    fn the_text_is_bounded_and_all_lifts_the_bound() {
        // Names that do not fold: one line each.
        let a: Vec<(String, Vec<usize>, &str)> = (0..120)
            .map(|i| (format!("t{i}"), vec![2], "F16"))
            .collect();
        let a = Checkpoint::from_bytes(&safetensors(&a)).expect("a");
        let b = Checkpoint::from_bytes(&safetensors(&[])).expect("b");
        let d = Diff::new(&a, &b);
        let text = d.to_string();
        assert!(text.contains("removed: only in a (120):"), "{text}");
        assert!(text.contains("  … and 70 more"), "{text}");
        assert_eq!(text.lines().filter(|l| l.starts_with("  t")).count(), 50);
        let all = d.all(true).to_string();
        assert_eq!(all.lines().filter(|l| l.starts_with("  t")).count(), 120);
        assert!(!all.contains("more"), "{all}");
    }

    #[test]
    fn names_are_escaped() {
        let a = Checkpoint::from_bytes(&safetensors(&[(
            "evil\\u001b]0;x".to_owned(),
            vec![2],
            "F16",
        )]))
        .expect("a");
        let b = Checkpoint::from_bytes(&safetensors(&[])).expect("b");
        let text = Diff::new(&a, &b).to_string();
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(text.contains("evil\\u{1b}]0;x"), "{text}");
    }

    #[test]
    fn a_hundred_thousand_tensors_diff_in_linear_time() {
        let n = 100_000;
        let a: Vec<(String, Vec<usize>, &str)> = (0..n)
            .map(|i| (format!("blocks.{i}.w"), vec![2], "F16"))
            .collect();
        let mut b = a.clone();
        b.reverse();
        if let Some(t) = b.first_mut() {
            t.1 = vec![3];
        }
        let a = Checkpoint::from_bytes(&safetensors(&a)).expect("a");
        let b = Checkpoint::from_bytes(&safetensors(&b)).expect("b");
        let start = std::time::Instant::now();
        let d = Diff::new(&a, &b);
        let text = d.to_string();
        let elapsed = start.elapsed();
        assert_eq!((d.common(), d.changed().len()), (n, 1));
        assert!(text.contains("blocks.99999.w: (2,) → (3,)"), "{text}");
        // Quadratic would be 10^10 comparisons; linear is well under a second even in debug.
        assert!(elapsed.as_secs() < 20, "{elapsed:?}");
    }
}
