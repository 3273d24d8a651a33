//! Reading a spec's TOML into a [`Spec`]: every key checked, every error at its span, blocks
//! expanded under their prefixes with their renames applied.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::expr::{DimExpr, Item};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Entry, Parsed, SpecError, SpecText, Tied};

type Table<'i> = DeTable<'i>;

struct Cx<'a> {
    src: &'a SpecText<'a>,
}

impl Cx<'_> {
    fn err(&self, span: &Range<usize>, msg: impl Into<String>) -> SpecError {
        SpecError::span(self.src.file, self.src.text, span, msg)
    }

    fn string<'v>(&self, v: &'v Spanned<DeValue<'_>>, what: &str) -> Result<&'v str, SpecError> {
        v.get_ref()
            .as_str()
            .ok_or_else(|| self.err(&v.span(), format!("{what} must be a string")))
    }

    /// A string or a list of strings.
    fn strings(
        &self,
        v: &Spanned<DeValue<'_>>,
        what: &str,
    ) -> Result<Vec<(String, Range<usize>)>, SpecError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(vec![(s.to_string(), v.span())]),
            DeValue::Array(a) => a
                .iter()
                .map(|e| Ok((self.string(e, what)?.to_owned(), e.span())))
                .collect(),
            _ => Err(self.err(
                &v.span(),
                format!("{what} must be a string or a list of strings"),
            )),
        }
    }

    fn table<'v, 'i>(
        &self,
        v: &'v Spanned<DeValue<'i>>,
        what: &str,
    ) -> Result<&'v Table<'i>, SpecError> {
        v.get_ref()
            .as_table()
            .ok_or_else(|| self.err(&v.span(), format!("{what} must be a table")))
    }

    /// Where the text of a string value starts, when it is written without escapes: a
    /// pattern's parse-error offset is counted from there.
    fn text_start(&self, span: &Range<usize>) -> Option<usize> {
        let raw = self.src.text.get(span.clone())?;
        let literal = raw.starts_with('\'') && !raw.starts_with("'''");
        let basic = raw.starts_with('"') && !raw.starts_with("\"\"\"") && !raw.contains('\\');
        (literal || basic).then_some(span.start + 1)
    }
}

/// Parses a spec's text.
pub fn parse(src: &SpecText<'_>) -> Result<Parsed, SpecError> {
    let cx = Cx { src };
    let doc = DeTable::parse(src.text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        SpecError::at(
            src.file,
            src.text,
            at,
            format!("TOML: {}", e.message().trim()),
        )
    })?;
    let doc = doc.get_ref();
    let mut spec = Parsed {
        name: "Model".into(),
        ..Parsed::default()
    };
    let mut tensors = None;
    let mut blocks = None;
    for (k, v) in doc.iter() {
        match k.get_ref().as_ref() {
            "name" => spec.name = cx.string(v, "`name`")?.to_owned(),
            "given" => {
                spec.given = cx.strings(v, "`given`")?;
                for (g, span) in &spec.given {
                    identifier(&cx, g, span, "a given variable")?;
                }
            }
            "where" => spec.wheres = cx.strings(v, "`where`")?,
            "config" => {
                for (var, keys) in cx.table(v, "`config`")?.iter() {
                    identifier(&cx, var.get_ref(), &var.span(), "a variable")?;
                    // A list of keys, or one string with `|` between them: the two spellings
                    // `#[shapes(config(…))]` takes too.
                    let keys: Vec<(String, Range<usize>)> = cx
                        .strings(keys, "a config key")?
                        .into_iter()
                        .flat_map(|(k, span)| {
                            k.split('|')
                                .map(|part| (part.trim().to_owned(), span.clone()))
                                .collect::<Vec<_>>()
                        })
                        .collect();
                    if let Some((_, span)) = keys.iter().find(|(k, _)| k.is_empty()) {
                        return Err(cx.err(
                            span,
                            "a config key cannot be empty: write keys as a list [\"hidden_size\", \"{arch}.embedding_length\"], or in one string separated by `|`",
                        ));
                    }
                    spec.config.push((
                        var.get_ref().to_string(),
                        keys.into_iter().map(|(k, _)| k).collect(),
                        var.span(),
                    ));
                }
            }
            "repeat" => {
                for (prefix, var) in cx.table(v, "`repeat`")?.iter() {
                    let count = cx.string(var, "a count variable")?;
                    identifier(&cx, count, &var.span(), "a count")?;
                    spec.repeats.push((
                        prefix.get_ref().to_string(),
                        count.to_owned(),
                        prefix.span(),
                    ));
                }
            }
            "ignore" => spec.ignore = cx.strings(v, "`ignore`")?,
            "tensors" => tensors = Some(cx.table(v, "`tensors`")?),
            "blocks" => blocks = Some(cx.table(v, "`blocks`")?),
            other => {
                return Err(cx.err(
                    &k.span(),
                    format!(
                        "unknown key `{other}`{}: a spec has {}",
                        near(other, super::TOP_KEYS),
                        super::TOP_KEYS.join(", ")
                    ),
                ));
            }
        }
    }
    let Some(tensors) = tensors else {
        return Err(SpecError::at(
            src.file,
            src.text,
            0,
            "no [tensors] table: a spec lists the tensors it expects",
        ));
    };
    let mut x = Expand {
        cx: &cx,
        blocks,
        spec: &mut spec,
        stack: Vec::new(),
        vars: Default::default(),
        expansions: 0,
        owners: Vec::new(),
    };
    x.table(tensors, "", &[])?;
    Ok(spec)
}

/// ` (did you mean `key`?)` for an unknown key close to one of `keys`.
fn near(key: &str, keys: &[&str]) -> String {
    crate::verify::closest(key, keys)
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

fn identifier(cx: &Cx<'_>, s: &str, span: &Range<usize>, what: &str) -> Result<(), SpecError> {
    if crate::parse::is_identifier(s) {
        Ok(())
    } else {
        Err(cx.err(
            span,
            format!("{what} must be a variable name like \"n_layers\", not {s:?}"),
        ))
    }
}

/// The variables a pattern uses.
pub fn pattern_vars(pattern: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Ok(p) = crate::parse::parse_pattern(pattern) {
        for item in &p.items {
            match item {
                Item::Dim(e) | Item::Broadcast(e) => expr_vars(e, &mut out),
                Item::Variadic(v) => {
                    out.insert(v.as_str().to_owned());
                }
                _ => {}
            }
        }
    }
    out
}

fn expr_vars(e: &DimExpr, out: &mut BTreeSet<String>) {
    match e {
        DimExpr::Var(v) => {
            out.insert(v.as_str().to_owned());
        }
        DimExpr::Bin(_, l, r) => {
            expr_vars(l, out);
            expr_vars(r, out);
        }
        _ => {}
    }
}

/// `pattern` with whole-word variable names replaced by their renames.
fn rename(pattern: &str, renames: &[(String, String)]) -> String {
    if renames.is_empty() {
        return pattern.to_owned();
    }
    let mut out = String::with_capacity(pattern.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match renames.iter().find(|(from, _)| from == word) {
            Some((_, to)) => out.push_str(to),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in pattern.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The most tensors a spec may expand to, blocks within blocks included: a few hundred
/// bytes of blocks that each use the next four times would otherwise expand to millions.
/// The largest published checkpoints hold about 100,000 tensors; a spec lists each tensor
/// kind once, with `{i}` for its layers.
pub(crate) const MAX_SPEC_TENSORS: usize = 100_000;

/// How deep blocks may use blocks.
const MAX_BLOCK_DEPTH: usize = 16;

struct Expand<'a, 'i> {
    cx: &'a Cx<'a>,
    blocks: Option<&'a Table<'i>>,
    spec: &'a mut Parsed,
    /// The blocks being expanded, outermost first: a block may not use itself.
    stack: Vec<String>,
    /// Each block's variables (blocks it uses included), computed once.
    vars: std::collections::HashMap<String, BTreeSet<String>>,
    /// Block expansions so far, bounded by [`MAX_SPEC_TENSORS`] like the tensors.
    expansions: usize,
    /// The blocks met so far, in order: an entry's owner is its block's position plus one.
    owners: Vec<String>,
}

impl<'i> Expand<'_, 'i> {
    fn table(
        &mut self,
        t: &Table<'i>,
        prefix: &str,
        renames: &[(String, String)],
    ) -> Result<(), SpecError> {
        for (k, v) in t.iter() {
            let name = join(prefix, k.get_ref());
            self.entry(&name, k, v, renames)?;
        }
        Ok(())
    }

    fn entry(
        &mut self,
        name: &str,
        key: &Spanned<toml::de::DeString<'i>>,
        v: &Spanned<DeValue<'i>>,
        renames: &[(String, String)],
    ) -> Result<(), SpecError> {
        let cx = self.cx;
        if key.get_ref().is_empty() {
            return Err(cx.err(&key.span(), "an empty tensor name"));
        }
        if let Some(pattern) = v.get_ref().as_str() {
            return self.tensor(name, pattern, v.span(), false, renames);
        }
        let t = v.get_ref().as_table().ok_or_else(|| {
            cx.err(
                &v.span(),
                "a tensor takes a pattern string or a table { shape = \"…\", optional = true } or { block = \"…\" }",
            )
        })?;
        let mut shape = None;
        let mut block = None;
        let mut optional = false;
        let mut tied = None;
        let mut tie_key = None;
        let mut local: Vec<(String, String)> = Vec::new();
        for (k, f) in t.iter() {
            match k.get_ref().as_ref() {
                "shape" => shape = Some((cx.string(f, "`shape`")?, f.span())),
                "block" => block = Some((cx.string(f, "`block`")?, f.span())),
                "optional" => {
                    optional = f
                        .get_ref()
                        .as_bool()
                        .ok_or_else(|| cx.err(&f.span(), "`optional` must be true or false"))?;
                }
                "tied" => tied = Some(cx.string(f, "`tied`")?.to_owned()),
                "tie_key" => tie_key = Some(cx.string(f, "`tie_key`")?.to_owned()),
                "rename" => {
                    for (from, to) in cx.table(f, "`rename`")?.iter() {
                        identifier(cx, from.get_ref(), &from.span(), "a renamed variable")?;
                        let to_s = cx.string(to, "a rename")?;
                        identifier(cx, to_s, &to.span(), "a rename's target")?;
                        local.push((from.get_ref().to_string(), to_s.to_owned()));
                    }
                }
                other => {
                    return Err(cx.err(
                        &k.span(),
                        format!(
                            "unknown key `{other}`{}: a tensor takes shape, optional, tied, tie_key; a block takes block, rename, optional",
                            near(other, super::ENTRY_KEYS)
                        ),
                    ));
                }
            }
        }
        match (shape, block) {
            (Some((pattern, span)), None) => {
                if !local.is_empty() {
                    return Err(cx.err(&v.span(), "`rename` applies to a block, not a tensor"));
                }
                self.tensor(name, pattern, span, optional, renames)?;
                if let Some(to) = tied {
                    if let Some(e) = self.spec.entries.last_mut() {
                        e.tied = Some((to.clone(), tie_key));
                    }
                    self.spec.tied.push(Tied {
                        name: name.to_owned(),
                        to,
                    });
                }
                Ok(())
            }
            (None, Some((block, span))) => {
                if tied.is_some() || tie_key.is_some() {
                    return Err(cx.err(&v.span(), "`tied` applies to a tensor, not a block"));
                }
                self.block(name, block, &span, optional, &local, renames)
            }
            (Some(_), Some((_, span))) => {
                Err(cx.err(&span, "a tensor has either `shape` or `block`, not both"))
            }
            (None, None) => Err(cx.err(&v.span(), "missing `shape = \"(…)\"` or `block = \"…\"`")),
        }
    }

    fn tensor(
        &mut self,
        name: &str,
        pattern: &str,
        span: Range<usize>,
        optional: bool,
        renames: &[(String, String)],
    ) -> Result<(), SpecError> {
        if self.spec.entries.len() >= MAX_SPEC_TENSORS {
            return Err(self.cx.err(
                &span,
                format!("the spec expands to more than {MAX_SPEC_TENSORS} tensors (MAX_SPEC_TENSORS): blocks use blocks too many times"),
            ));
        }
        let text_start = if renames.is_empty() {
            self.cx.text_start(&span)
        } else {
            None
        };
        let owner = match self.stack.last() {
            None => 0,
            Some(block) => match self.owners.iter().position(|b| b == block) {
                Some(k) => k + 1,
                None => {
                    self.owners.push(block.clone());
                    self.owners.len()
                }
            },
        };
        self.spec.entries.push(Entry {
            name: name.to_owned(),
            pattern: rename(pattern, renames),
            optional,
            span,
            text_start,
            tied: None,
            owner,
        });
        Ok(())
    }

    fn block(
        &mut self,
        name: &str,
        block: &str,
        span: &Range<usize>,
        optional: bool,
        local: &[(String, String)],
        outer: &[(String, String)],
    ) -> Result<(), SpecError> {
        let cx = self.cx;
        let body = self
            .blocks
            .and_then(|b| b.iter().find(|(k, _)| k.get_ref() == block))
            .map(|(_, v)| v)
            .ok_or_else(|| cx.err(span, format!("no block `{block}` in [blocks]")))?;
        let body = cx.table(body, "a block")?;
        if self.stack.iter().any(|b| b == block) {
            return Err(cx.err(
                span,
                format!(
                    "block `{block}` uses itself (through {})",
                    self.stack.join(" → ")
                ),
            ));
        }
        if self.stack.len() >= MAX_BLOCK_DEPTH {
            return Err(cx.err(
                span,
                format!("blocks nested more than {MAX_BLOCK_DEPTH} deep"),
            ));
        }
        self.expansions += 1;
        if self.expansions > MAX_SPEC_TENSORS {
            return Err(cx.err(
                span,
                format!("the spec expands blocks more than {MAX_SPEC_TENSORS} times (MAX_SPEC_TENSORS): blocks use blocks too many times"),
            ));
        }
        // Renames name variables of the block: a typo on the left would silently drop a
        // constraint, so it is an error.
        let used = block_vars(block, self.blocks, &mut self.vars, &mut Vec::new());
        for (from, _) in local {
            if !used.contains(from) {
                let known: Vec<&str> = used.iter().map(String::as_str).collect();
                let hint = crate::verify::closest(from, &known)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                return Err(cx.err(
                    span,
                    format!("`rename` names `{from}`, which block `{block}` does not use{hint}"),
                ));
            }
        }
        // The block's own renames first, then the enclosing ones on the result.
        let composed: Vec<(String, String)> = used
            .iter()
            .filter_map(|v| {
                let inner = local
                    .iter()
                    .find(|(f, _)| f == v)
                    .map_or(v.as_str(), |(_, t)| t.as_str());
                let outer_to = outer
                    .iter()
                    .find(|(f, _)| f == inner)
                    .map_or(inner, |(_, t)| t.as_str());
                (outer_to != v).then(|| (v.clone(), outer_to.to_owned()))
            })
            .collect();
        let first = self.spec.entries.len();
        self.stack.push(block.to_owned());
        self.table(body, name, &composed)?;
        self.stack.pop();
        if optional {
            for e in &mut self.spec.entries[first..] {
                e.optional = true;
            }
        }
        Ok(())
    }
}

/// Every variable the tensors of block `name` (and the blocks it uses, under their renames)
/// mention, computed once per block (`memo`); a block on `stack` (one that uses itself, an
/// error the expansion reports) adds nothing.
fn block_vars(
    name: &str,
    blocks: Option<&Table<'_>>,
    memo: &mut std::collections::HashMap<String, BTreeSet<String>>,
    stack: &mut Vec<String>,
) -> BTreeSet<String> {
    if let Some(v) = memo.get(name) {
        return v.clone();
    }
    let body = blocks
        .and_then(|b| b.get(name))
        .and_then(|b| b.get_ref().as_table());
    let Some(body) = body else {
        return BTreeSet::new();
    };
    if stack.iter().any(|b| b == name) || stack.len() > MAX_BLOCK_DEPTH {
        return BTreeSet::new();
    }
    stack.push(name.to_owned());
    let mut out = BTreeSet::new();
    for (_, v) in body.iter() {
        match v.get_ref() {
            DeValue::String(p) => out.extend(pattern_vars(p)),
            DeValue::Table(t) => {
                if let Some(p) = t.get("shape").and_then(|s| s.get_ref().as_str()) {
                    out.extend(pattern_vars(p));
                }
                let Some(inner) = t.get("block").and_then(|b| b.get_ref().as_str()) else {
                    continue;
                };
                let vars = block_vars(inner, blocks, memo, stack);
                let renames: Vec<(String, String)> = t
                    .get("rename")
                    .and_then(|r| r.get_ref().as_table())
                    .map(|r| {
                        r.iter()
                            .filter_map(|(k, v)| {
                                Some((k.get_ref().to_string(), v.get_ref().as_str()?.to_owned()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                for v in vars {
                    let to = renames
                        .iter()
                        .find(|(f, _)| *f == v)
                        .map_or(v.clone(), |(_, t)| t.clone());
                    out.insert(to);
                }
            }
            _ => {}
        }
    }
    stack.pop();
    memo.insert(name.to_owned(), out.clone());
    out
}

fn join(prefix: &str, part: &str) -> String {
    if prefix.is_empty() {
        part.to_owned()
    } else {
        format!("{prefix}.{part}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_that_uses_itself_is_an_error_at_once() {
        let text = "[tensors]\n\"m\" = { block = \"b\" }\n[blocks.b]\n\"w\" = \"(n,)\"\n\"x\" = { block = \"b\" }\n\"y\" = { block = \"b\" }\n\"z\" = { block = \"b\" }\n\"v\" = { block = \"b\" }\n";
        let e = parse(&SpecText {
            file: "s.toml",
            text,
        })
        .unwrap_err();
        assert!(e.message().starts_with("block `b` uses itself"), "{e}");
    }

    #[test]
    fn blocks_that_multiply_are_bounded() {
        // 12 levels, each using the next four times: 4^12 tensors if expanded.
        let mut text = String::from("[tensors]\n\"m\" = { block = \"b0\" }\n");
        for i in 0..12 {
            text.push_str(&format!("[blocks.b{i}]\n"));
            for k in 0..4 {
                text.push_str(&format!("\"p{k}\" = {{ block = \"b{}\" }}\n", i + 1));
            }
        }
        text.push_str("[blocks.b12]\n\"w\" = \"(n,)\"\n");
        let e = parse(&SpecText {
            file: "s.toml",
            text: &text,
        })
        .unwrap_err();
        assert!(e.message().contains("MAX_SPEC_TENSORS"), "{e}");
    }

    #[test]
    fn renames_whole_words_only() {
        let r = vec![("d".to_string(), "d_model".to_string())];
        assert_eq!(
            rename("(d, d_ff, 2 * d)", &r),
            "(d_model, d_ff, 2 * d_model)"
        );
    }
}
