//! Folding repeated layer names: `model.layers.{0..29}.self_attn.q_proj.weight` for thirty
//! names that differ only in a number and share a dtype and shape.

/// One line of a folded listing: the folded name, how many names it stands for, and the
/// index of the first of them (to look up what they share).
pub struct Folded {
    pub name: String,
    pub count: usize,
    pub first: usize,
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'))
}

/// Folds `names` whose `key`s are equal and whose names differ only in numeric segments, in
/// order of first appearance.
pub fn fold<K: PartialEq>(names: &[&str], key: impl Fn(usize) -> K) -> Vec<Folded> {
    struct Group {
        template: Vec<Option<String>>,
        first: usize,
        numbers: Vec<Vec<usize>>,
    }
    let mut groups: Vec<Group> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let segments: Vec<&str> = name.split('.').collect();
        let template: Vec<Option<String>> = segments
            .iter()
            .map(|s| (!is_number(s)).then(|| (*s).to_owned()))
            .collect();
        let numbers: Vec<usize> = segments
            .iter()
            .filter(|s| is_number(s))
            .filter_map(|s| s.parse().ok())
            .collect();
        let at = groups
            .iter()
            .position(|g| g.template == template && key(g.first) == key(i));
        match at {
            Some(g) if !numbers.is_empty() => groups[g].numbers.push(numbers),
            _ => groups.push(Group {
                template,
                first: i,
                numbers: vec![numbers],
            }),
        }
    }
    let mut out = Vec::new();
    for g in groups {
        let positions = g.template.iter().filter(|t| t.is_none()).count();
        let mut sets: Vec<Vec<usize>> = vec![Vec::new(); positions];
        for n in &g.numbers {
            for (p, v) in n.iter().enumerate() {
                if let Some(set) = sets.get_mut(p) {
                    set.push(*v);
                }
            }
        }
        for s in &mut sets {
            s.sort_unstable();
            s.dedup();
        }
        let product = sets.iter().try_fold(1usize, |a, s| a.checked_mul(s.len()));
        if g.numbers.len() > 1 && product == Some(g.numbers.len()) {
            let mut folded = sets.iter().map(|s| ranges(s));
            let name: Vec<String> = g
                .template
                .iter()
                .map(|t| match t {
                    Some(s) => s.clone(),
                    None => folded.next().unwrap_or_default(),
                })
                .collect();
            out.push(Folded {
                name: name.join("."),
                count: g.numbers.len(),
                first: g.first,
            });
        } else {
            // Not a full grid: each name on its own.
            for n in &g.numbers {
                let mut vals = n.iter();
                let name: Vec<String> = g
                    .template
                    .iter()
                    .map(|t| match t {
                        Some(s) => s.clone(),
                        None => vals.next().map(ToString::to_string).unwrap_or_default(),
                    })
                    .collect();
                out.push(Folded {
                    name: name.join("."),
                    count: 1,
                    first: g.first,
                });
            }
        }
    }
    out
}

/// `{0..29}`, `{0..3,5}`, or a single number as it is.
fn ranges(values: &[usize]) -> String {
    if let [one] = values {
        return one.to_string();
    }
    let mut parts = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let start = values[i];
        let mut end = start;
        while i + 1 < values.len() && values[i + 1] == end + 1 {
            i += 1;
            end = values[i];
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}..{end}")
        });
        i += 1;
    }
    format!("{{{}}}", parts.join(","))
}

/// Names folded with nothing shared but the template (missing or unexpected tensors).
pub fn fold_names(names: &[&str]) -> Vec<String> {
    fold(names, |_| ())
        .into_iter()
        .map(|f| {
            if f.count > 1 {
                format!("{}  ×{}", f.name, f.count)
            } else {
                f.name
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_layers_with_equal_shapes() {
        let names = ["emb", "l.0.w", "l.1.w", "l.2.w", "l.3.w", "norm"];
        let shapes = [1, 2, 2, 2, 3, 4];
        let f = fold(&names, |i| shapes[i]);
        let text: Vec<String> = f
            .iter()
            .map(|f| format!("{} {}", f.name, f.count))
            .collect();
        assert_eq!(text, ["emb 1", "l.{0..2}.w 3", "l.3.w 1", "norm 1"]);
    }

    #[test]
    fn folds_gaps_and_grids() {
        let names = [
            "a.0.e.0", "a.0.e.1", "a.1.e.0", "a.1.e.1", "b.0", "b.2", "b.3",
        ];
        assert_eq!(
            fold_names(&names),
            ["a.{0..1}.e.{0..1}  ×4", "b.{0,2..3}  ×3"]
        );
    }
}
