//! A parsed spec compiled to a [`Plan`]: names with `{i}` placeholders become repeated groups,
//! every pattern and equation is parsed (an error points into the spec file), and every
//! variable the config binds or the spec says is given must be one the patterns use.

use std::ops::Range;

use crate::expr::{CmpOp, DimExpr};
use crate::verify::{Place, Plan, PlanNode};

use super::places::Places;
use super::{ChoiceDef, Entry, Layout, Parsed, Spec, SpecError, SpecText};

/// A node of the tree the placeholders and the choices make.
enum Tree {
    /// An entry, by its index, named below the level it sits in.
    Tensor { index: usize, name: String },
    Repeat {
        prefix: String,
        /// The name up to the placeholder, as the `[repeat]` table keys it.
        full: String,
        children: Vec<Tree>,
    },
    /// A choice (by its index in `Parsed::choices`) used at `leaf` below this level.
    Choice {
        id: usize,
        leaf: String,
        alternatives: Vec<Vec<Tree>>,
    },
}

fn is_placeholder(segment: &str) -> bool {
    segment
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .is_some_and(crate::parse::is_identifier)
}

/// Calls `at` with the level of `level` where the name `rest` (below the name `above`) ends,
/// a repeated group made for each of its placeholders, and its part after the last one.
fn descend(
    level: &mut Vec<Tree>,
    rest: &str,
    above: &str,
    at: &mut dyn FnMut(&mut Vec<Tree>, String),
) {
    let segments: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('.').collect()
    };
    let Some(p) = segments.iter().position(|s| is_placeholder(s)) else {
        return at(level, rest.to_owned());
    };
    let prefix = segments[..p].join(".");
    let below = segments[p + 1..].join(".");
    let full = join(above, &prefix);
    let here = format!("{full}.{}", segments[p]);
    let found = level
        .iter()
        .position(|t| matches!(t, Tree::Repeat { prefix: q, .. } if *q == prefix));
    let found = found.unwrap_or_else(|| {
        level.push(Tree::Repeat {
            prefix,
            full,
            children: Vec::new(),
        });
        level.len() - 1
    });
    if let Some(Tree::Repeat { children, .. }) = level.get_mut(found) {
        descend(children, &below, &here, at);
    }
}

/// `name` below `above` (both full names): what follows `above.`.
fn below<'n>(name: &'n str, above: &str) -> &'n str {
    if above.is_empty() {
        return name;
    }
    match name.strip_prefix(above) {
        Some("") => "",
        Some(rest) => rest.strip_prefix('.').unwrap_or(rest),
        None => name,
    }
}

/// Inserts entry `index`, named `rest` below the full name `above`, inside the choices
/// `choices` (outermost first), into `level`.
fn insert(
    level: &mut Vec<Tree>,
    index: usize,
    rest: &str,
    above: &str,
    choices: &[(usize, usize)],
    defs: &[ChoiceDef],
) {
    let Some(((id, alt), inner)) = choices.split_first() else {
        descend(level, rest, above, &mut |level, name| {
            level.push(Tree::Tensor { index, name });
        });
        return;
    };
    let Some(def) = defs.get(*id) else {
        return;
    };
    let full = join(above, rest);
    descend(level, below(&def.at, above), above, &mut |level, leaf| {
        let found = level
            .iter()
            .position(|t| matches!(t, Tree::Choice { id: c, .. } if c == id));
        let found = found.unwrap_or_else(|| {
            level.push(Tree::Choice {
                id: *id,
                leaf,
                alternatives: (0..def.alternatives).map(|_| Vec::new()).collect(),
            });
            level.len() - 1
        });
        if let Some(Tree::Choice { alternatives, .. }) = level.get_mut(found)
            && let Some(alternative) = alternatives.get_mut(*alt)
        {
            insert(
                alternative,
                index,
                below(&full, &def.at),
                &def.at,
                inner,
                defs,
            );
        }
    });
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (_, true) => a.to_owned(),
        (true, false) => b.to_owned(),
        (false, false) => format!("{a}.{b}"),
    }
}

/// What the tree is compiled with.
struct Parts<'a> {
    entries: &'a [Entry],
    /// Where the entries are written.
    places: &'a Places<'a>,
    repeats: &'a [(String, String, Range<usize>)],
    choices: &'a [ChoiceDef],
}

/// The nodes of `level`, whose full name is `above`.
fn plan_nodes(level: &[Tree], parts: &Parts<'_>, above: &str) -> Vec<PlanNode> {
    level
        .iter()
        .filter_map(|t| match t {
            Tree::Tensor { index, name } => {
                let e = parts.entries.get(*index)?;
                if let Some((to, key)) = &e.tied {
                    // Tied to a name under the same prefixes (checked when compiling).
                    let to = below(to, above);
                    let tied = PlanNode::tied(name, e.pattern.clone(), to, key.as_deref());
                    return Some(tied.at(parts.places.of(e.span.start)));
                }
                let node =
                    PlanNode::tensor(name, e.pattern.clone()).at(parts.places.of(e.span.start));
                Some(if e.optional { node.optional() } else { node })
            }
            Tree::Repeat {
                prefix,
                full,
                children,
            } => {
                let repeat = parts.repeats.iter().find(|(p, _, _)| p == full);
                let count = repeat.map(|(_, c, _)| c.as_str());
                let children = plan_nodes(children, parts, &format!("{full}.{{}}"));
                let group = PlanNode::group(prefix.clone(), children).repeated(count);
                Some(match repeat {
                    Some((_, _, span)) => group.at(parts.places.of(span.start)),
                    None => group,
                })
            }
            Tree::Choice {
                id,
                leaf,
                alternatives,
            } => {
                let def = parts.choices.get(*id)?;
                let here = join(above, leaf);
                let alternatives = alternatives
                    .iter()
                    .map(|a| plan_nodes(a, parts, &here))
                    .collect();
                let mut node = PlanNode::one_of(alternatives);
                if def.optional {
                    node = node.optional();
                }
                if let Some(var) = &def.leading {
                    node = node.leading(var);
                }
                Some(if leaf.is_empty() {
                    node
                } else {
                    PlanNode::group(leaf.clone(), vec![node])
                })
            }
        })
        .collect()
}

/// Every `[repeat]` key names the list of some tensor: `prefix.{i}.…`.
fn check_repeats(
    spec: &Parsed,
    err: &dyn Fn(&Range<usize>, String) -> SpecError,
) -> Result<(), SpecError> {
    for (prefix, _, span) in &spec.repeats {
        let used = spec.entries.iter().any(|e| {
            e.name
                .strip_prefix(prefix.as_str())
                .and_then(|r| r.strip_prefix(".{"))
                .is_some_and(|r| {
                    r.split_once('}')
                        .is_some_and(|(p, _)| crate::parse::is_identifier(p))
                })
        });
        if !used {
            return Err(err(
                span,
                format!(
                    "no tensor is named `{prefix}.{{i}}.…`: a [repeat] key is the name up to a placeholder"
                ),
            ));
        }
    }
    Ok(())
}

/// The spec's names under `prefix`: the `[tensors]` (their ties, choices and repeat keys
/// too) moved under it, the `[head_tensors]` kept where they are (and left out under no
/// prefix, a base class's checkpoint).
fn under(spec: &Parsed, prefix: &str) -> Parsed {
    let base: Vec<&Entry> = spec.entries.iter().filter(|e| !e.head).collect();
    let heads = !prefix.is_empty();
    let is_base = |name: &str| base.iter().any(|e| e.name == name);
    let mut entries = Vec::with_capacity(spec.entries.len());
    for e in &spec.entries {
        if e.head && !heads {
            continue;
        }
        let mut e = e.clone();
        if let Some((to, _)) = &mut e.tied
            && is_base(to)
        {
            *to = join(prefix, to);
        }
        if !e.head {
            e.name = join(prefix, &e.name);
        }
        entries.push(e);
    }
    let starts =
        |e: &Entry, key: &str| e.name.strip_prefix(key).is_some_and(|r| r.starts_with('.'));
    let mut repeats = Vec::new();
    for (key, count, span) in &spec.repeats {
        if spec.entries.iter().any(|e| !e.head && starts(e, key)) {
            repeats.push((join(prefix, key), count.clone(), span.clone()));
        }
        if heads && spec.entries.iter().any(|e| e.head && starts(e, key)) {
            repeats.push((key.clone(), count.clone(), span.clone()));
        }
    }
    let choices = spec
        .choices
        .iter()
        .map(|c| {
            let mut c = c.clone();
            if !c.head {
                c.at = join(prefix, &c.at);
            }
            c
        })
        .collect();
    Parsed {
        entries,
        repeats,
        choices,
        ..spec.clone()
    }
}

/// The plan of `spec` under one prefix, and the names that tell whether a checkpoint is laid
/// out that way.
fn layout(
    spec: &Parsed,
    prefix: &str,
    places: &Places<'_>,
    err: &dyn Fn(&Range<usize>, String) -> SpecError,
) -> Result<Layout, SpecError> {
    let spec = under(spec, prefix);
    let mut tree = Vec::new();
    for (i, e) in spec.entries.iter().enumerate() {
        insert(&mut tree, i, &e.name, "", &e.choices, &spec.choices);
    }
    let parts = Parts {
        entries: &spec.entries,
        places,
        repeats: &spec.repeats,
        choices: &spec.choices,
    };
    let nodes = plan_nodes(&tree, &parts, "");
    let wheres: Vec<(&str, Place)> = (spec.wheres.iter())
        .map(|(w, span)| (w.as_str(), places.of(span.start)))
        .collect();
    let mut plan = Plan::build_at(&spec.name, &nodes, &wheres).map_err(|e| {
        let span = entry_at(&spec.entries, &e.at).map_or(0..0, |x| x.span.clone());
        err(&span, e.to_string())
    })?;
    // A variable only head tensors use is not in the plan of the base class's layout (the
    // analysis made sure every one is used by some tensor).
    for (var, keys, span) in &spec.config {
        if !plan.variables().contains(&var.as_str()) {
            continue;
        }
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        plan = plan
            .bind_from_at(var, &keys, places.of(span.start))
            .map_err(|e| err(span, e.to_string()))?;
    }
    // A dim waiting for a `given` variable the checkpoint does not state says so.
    let given: Vec<&str> = (spec.given.iter())
        .map(|(g, _)| g.as_str())
        .filter(|g| plan.variables().contains(g))
        .collect();
    let plan = plan
        .given(&given)
        .map_err(|e| err(&(0..0), e.to_string()))?;
    // The globs of `ignore` match the checkpoint's names, and under a prefix also the names
    // below it.
    let mut ignore: Vec<String> = spec.ignore.iter().map(|(g, _)| g.clone()).collect();
    if !prefix.is_empty() {
        ignore.extend(spec.ignore.iter().map(|(g, _)| join(prefix, g)));
    }
    let plan = plan.ignore(ignore);
    // The names every checkpoint laid out this way holds: the required tensors outside
    // choices, with the first element of each list.
    let probes = spec
        .entries
        .iter()
        .filter(|e| !e.head && !e.optional && e.tied.is_none() && e.choices.is_empty())
        .map(|e| {
            e.name
                .split('.')
                .map(|s| if is_placeholder(s) { "0" } else { s })
                .collect::<Vec<_>>()
                .join(".")
        })
        .collect();
    let dtypes = spec
        .entries
        .iter()
        .filter_map(|e| Some((e.name.clone(), e.dtype.clone().or(spec.dtype.clone())?)))
        .collect();
    Ok(Layout {
        prefix: prefix.to_owned(),
        plan,
        probes,
        dtypes,
    })
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
    // A name twice is an error, unless in different alternatives of one choice.
    let mut seen = std::collections::BTreeSet::new();
    for e in &spec.entries {
        if !seen.insert((e.name.as_str(), &e.choices)) {
            return Err(err(&e.span, format!("`{}` is listed twice", e.name)));
        }
    }
    // Every clause of every `where` string (`"a = b, c <= 8"` holds two), with its string's
    // position in `spec.wheres`; a string that does not parse is an error at its spot.
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
    }
    // A `first` count is used like a `[repeat]` count: the analysis sees it as one.
    let mut analysed = spec.clone();
    analysed.repeats.extend(
        spec.choices
            .iter()
            .filter_map(|c| Some((String::new(), c.leading.clone()?, c.span.clone()))),
    );
    super::analysis::check(src, &analysed, &patterns, &clauses)?;
    for t in &spec.tied {
        let Some(e) = spec.entries.iter().find(|e| e.name == t.name) else {
            continue;
        };
        if t.name.contains('{') {
            return Err(err(
                &e.span,
                format!(
                    "`{}`: a tied tensor is named in full, outside repeated blocks",
                    t.name
                ),
            ));
        }
        // Inside an optional or one_of block, tied to a tensor under the same name.
        let apart = e.choices.iter().find_map(|(c, _)| {
            let at = &spec.choices.get(*c)?.at;
            (!at.is_empty() && below(&t.to, at) == t.to).then_some(at)
        });
        if let Some(at) = apart {
            return Err(err(
                &e.span,
                format!(
                    "`{}` is tied to `{}`, outside the block used at `{at}` that holds it",
                    t.name, t.to
                ),
            ));
        }
        if !spec.entries.iter().any(|x| x.name == t.to) {
            return Err(err(
                &e.span,
                format!(
                    "`{}` is tied to `{}`, which the spec does not list",
                    t.name, t.to
                ),
            ));
        }
    }
    check_repeats(&spec, &err)?;
    for (glob, span) in &spec.ignore {
        if glob.is_empty() {
            return Err(err(
                span,
                "an empty `ignore` glob matches nothing: write a tensor name, with `*` for any run of characters and `?` for one".into(),
            ));
        }
    }
    let (first, rest) = match spec.prefixes.split_first() {
        None => ("", &[][..]),
        Some(((p, _), rest)) => (p.as_str(), rest),
    };
    let places = Places::new(src.file, src.text);
    let first = layout(&spec, first, &places, &err)?;
    let mut others = Vec::with_capacity(rest.len());
    for (p, _) in rest {
        others.push(layout(&spec, p, &places, &err)?);
    }
    Ok(Spec {
        name: spec.name,
        file: src.file.to_owned(),
        first,
        others,
        config: spec
            .config
            .into_iter()
            .map(|(v, keys, _)| (v, keys))
            .collect(),
        given: spec.given.into_iter().map(|(g, _)| g).collect(),
        notes: Vec::new(),
        lenient: false,
        ignore: spec.ignore.into_iter().map(|(g, _)| g).collect(),
        read: false,
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
    fn names_are_placed_below_their_last_placeholder() {
        let mut level = Vec::new();
        let mut leaves = Vec::new();
        for name in ["a.{i}.b.{j}.c", "a.{i}", "a.b"] {
            descend(&mut level, name, "", &mut |_, leaf| leaves.push(leaf));
        }
        assert_eq!(leaves, ["c", "", "a.b"]);
        assert!(matches!(&level[..], [Tree::Repeat { full, .. }] if full == "a"));
        assert_eq!(below("x.{i}.mlp.up", "x.{i}.mlp"), "up");
        assert_eq!(below("x.{i}", "x.{i}"), "");
        assert_eq!(below("up", ""), "up");
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
            choices: Vec::new(),
            head: false,
            dtype: None,
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
