//! A parsed spec compiled to a [`Plan`]: names with `{i}` placeholders become repeated groups,
//! every pattern and equation is parsed (an error points into the spec file), and every
//! variable the config binds or the spec says is given must be one the patterns use.

use std::ops::Range;

use crate::expr::{CmpOp, DimExpr};
use crate::verify::{Plan, PlanNode};

use super::{Entry, Parsed, Spec, SpecError, SpecText};

/// A node of the tree the placeholders make.
enum Tree {
    Tensor(usize),
    Repeat {
        prefix: String,
        /// The name up to the placeholder, as the `[repeat]` table keys it.
        full: String,
        children: Vec<Tree>,
    },
}

fn is_placeholder(segment: &str) -> bool {
    segment
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .is_some_and(crate::parse::is_identifier)
}

/// Inserts entry `index`, whose name below this level is `rest`, into `level`.
fn insert(level: &mut Vec<Tree>, index: usize, rest: &str, above: &str) {
    let segments: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('.').collect()
    };
    let Some(p) = segments.iter().position(|s| is_placeholder(s)) else {
        level.push(Tree::Tensor(index));
        return;
    };
    let prefix = segments[..p].join(".");
    let below = segments[p + 1..].join(".");
    let full = join(above, &prefix);
    let here = format!("{full}.{}", segments[p]);
    let found = level.iter_mut().find_map(|t| match t {
        Tree::Repeat {
            prefix: q,
            children,
            ..
        } if *q == prefix => Some(children),
        _ => None,
    });
    match found {
        Some(children) => insert(children, index, &below, &here),
        None => {
            let mut children = Vec::new();
            insert(&mut children, index, &below, &here);
            level.push(Tree::Repeat {
                prefix,
                full,
                children,
            });
        }
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (_, true) => a.to_owned(),
        (true, false) => b.to_owned(),
        (false, false) => format!("{a}.{b}"),
    }
}

/// The name of entry `e` below its innermost placeholder.
fn leaf_name(name: &str) -> &str {
    match name.rfind(".{") {
        Some(i) => {
            let after = &name[i + 1..];
            match after.find("}.") {
                Some(j) => &after[j + 2..],
                None if after.ends_with('}') => "",
                None => name,
            }
        }
        None if is_placeholder(name.split('.').next().unwrap_or("")) => {
            name.split_once('.').map_or("", |(_, r)| r)
        }
        None => name,
    }
}

fn plan_nodes(
    level: &[Tree],
    entries: &[Entry],
    repeats: &[(String, String, Range<usize>)],
    used: &mut [bool],
) -> Vec<PlanNode> {
    level
        .iter()
        .filter_map(|t| match t {
            Tree::Tensor(i) => {
                let e = entries.get(*i)?;
                let leaf = leaf_name(&e.name);
                if let Some((to, key)) = &e.tied {
                    return Some(PlanNode::tied(leaf, e.pattern.clone(), to, key.as_deref()));
                }
                let node = PlanNode::tensor(leaf, e.pattern.clone());
                Some(if e.optional { node.optional() } else { node })
            }
            Tree::Repeat {
                prefix,
                full,
                children,
            } => {
                let count = repeats.iter().position(|(p, _, _)| p == full);
                if let Some(k) = count
                    && let Some(u) = used.get_mut(k)
                {
                    *u = true;
                }
                let count = count
                    .and_then(|k| repeats.get(k))
                    .map(|(_, c, _)| c.as_str());
                let children = plan_nodes(children, entries, repeats, used);
                Some(PlanNode::group(prefix.clone(), children).repeated(count))
            }
        })
        .collect()
}

/// Compiles a parsed spec.
pub(super) fn compile(src: &SpecText<'_>, spec: Parsed) -> Result<Spec, SpecError> {
    let err = |span: &Range<usize>, msg: String| SpecError::span(src.file, src.text, span, msg);
    // Every pattern parsed first, so that an error points at its spot in the file.
    let mut patterns = Vec::with_capacity(spec.entries.len());
    for e in &spec.entries {
        match crate::parse::parse_pattern(&e.pattern) {
            Ok(p) => patterns.push(p),
            Err(p) => {
                let at = e.text_start.map_or(e.span.start, |s| s + p.offset());
                return Err(SpecError::at(
                    src.file,
                    src.text,
                    at,
                    format!("in the pattern of `{}`: {}", e.name, p.message()),
                ));
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for e in &spec.entries {
        if !seen.insert(e.name.as_str()) {
            return Err(err(&e.span, format!("`{}` is listed twice", e.name)));
        }
    }
    // Every clause of every `where` string (`"a = b, c <= 8"` holds two), with its string's
    // position in `spec.wheres`; a string that does not parse is an error at its spot.
    let mut wheres = Vec::with_capacity(spec.wheres.len());
    let mut clauses: Vec<(usize, DimExpr, CmpOp, DimExpr)> = Vec::new();
    for (i, (w, span)) in spec.wheres.iter().enumerate() {
        match crate::parse::parse_constraints(w) {
            Ok(all) => clauses.extend(all.into_iter().map(|(l, op, r, _)| (i, l, op, r))),
            Err(p) => {
                return Err(SpecError::at(
                    src.file,
                    src.text,
                    span.start + 1 + p.offset(),
                    format!("in `where`: {}", p.message()),
                ));
            }
        }
        wheres.push(w.as_str());
    }
    super::analysis::check(src, &spec, &patterns, &clauses)?;
    for t in &spec.tied {
        let span = spec
            .entries
            .iter()
            .find(|e| e.name == t.name)
            .map_or(0..0, |e| e.span.clone());
        if t.name.contains('{') {
            return Err(err(
                &span,
                format!(
                    "`{}`: a tied tensor is named in full, outside repeated blocks",
                    t.name
                ),
            ));
        }
        if !spec.entries.iter().any(|e| e.name == t.to) {
            return Err(err(
                &span,
                format!(
                    "`{}` is tied to `{}`, which the spec does not list",
                    t.name, t.to
                ),
            ));
        }
    }
    let mut tree = Vec::new();
    for (i, e) in spec.entries.iter().enumerate() {
        insert(&mut tree, i, &e.name, "");
    }
    let mut used = vec![false; spec.repeats.len()];
    let nodes = plan_nodes(&tree, &spec.entries, &spec.repeats, &mut used);
    if let Some(k) = used.iter().position(|u| !u)
        && let Some((prefix, _, span)) = spec.repeats.get(k)
    {
        return Err(err(
            span,
            format!(
                "no tensor is named `{prefix}.{{i}}.…`: a [repeat] key is the name up to a placeholder"
            ),
        ));
    }
    let mut plan = Plan::build(&spec.name, &nodes, &wheres).map_err(|e| {
        let span = entry_at(&spec.entries, &e.at).map_or(0..0, |x| x.span.clone());
        err(&span, e.to_string())
    })?;
    for (var, keys, span) in &spec.config {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        plan = plan
            .bind_from(var, &keys)
            .map_err(|e| err(span, e.to_string()))?;
    }
    for (glob, span) in &spec.ignore {
        if glob.is_empty() {
            return Err(err(
                span,
                "an empty `ignore` glob matches nothing: write a tensor name, with `*` for any run of characters and `?` for one".into(),
            ));
        }
    }
    let plan = plan.ignore(spec.ignore.iter().map(|(g, _)| g.clone()));
    Ok(Spec {
        name: spec.name,
        file: src.file.to_owned(),
        plan,
        config: spec
            .config
            .into_iter()
            .map(|(v, keys, _)| (v, keys))
            .collect(),
        given: spec.given.into_iter().map(|(g, _)| g).collect(),
    })
}

/// The entry a plan error at `at` (a tensor's name, or a path under one) is about: the one
/// named `at`, else the one whose name is the longest whole-part prefix of `at`.
fn entry_at<'e>(entries: &'e [Entry], at: &str) -> Option<&'e Entry> {
    if let Some(e) = entries.iter().find(|x| x.name == at) {
        return Some(e);
    }
    entries
        .iter()
        .filter(|x| {
            at.strip_prefix(x.name.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        })
        .max_by_key(|x| x.name.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_names_drop_everything_up_to_the_last_placeholder() {
        assert_eq!(leaf_name("a.{i}.b.c"), "b.c");
        assert_eq!(leaf_name("a.{i}.b.{j}.c"), "c");
        assert_eq!(leaf_name("a.{i}"), "");
        assert_eq!(leaf_name("a.b"), "a.b");
    }

    #[test]
    fn an_error_is_placed_at_its_own_entry_not_a_prefix_of_its_name() {
        let entry = |name: &str, at: usize| Entry {
            name: name.into(),
            pattern: "(n,)".into(),
            optional: false,
            span: at..at + 1,
            text_start: None,
            tied: None,
            owner: 0,
        };
        let entries = [
            entry("t6", 1),
            entry("t64", 2),
            entry("a", 3),
            entry("a.b", 4),
        ];
        assert_eq!(entry_at(&entries, "t64").map(|e| e.span.start), Some(2));
        assert_eq!(entry_at(&entries, "a.b.c").map(|e| e.span.start), Some(4));
        assert!(entry_at(&entries, "t640").is_none());
    }
}
