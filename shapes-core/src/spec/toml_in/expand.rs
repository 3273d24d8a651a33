//! A spec's `[tensors]` (and `[head_tensors]`) expanded: every block used under its prefix
//! with its renames applied, every `one_of` and optional block recorded as a choice whose
//! alternatives' tensors know which alternative they belong to.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use toml::Spanned;
use toml::de::DeValue;

use super::{Cx, Table, dtypes, identifier, pattern_vars};
use crate::spec::{ChoiceDef, Entry, Parsed, SpecError, Tied};

/// `pattern` with whole-word variable names replaced by their renames.
pub(super) fn rename(pattern: &str, renames: &[(String, String)]) -> String {
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

/// Names as written, each with where.
type Named = Vec<(String, Range<usize>)>;

/// What a tensor's table says, before it is told apart as a tensor, a block or a choice.
#[derive(Default)]
struct Fields<'v> {
    shape: Option<(&'v str, Range<usize>)>,
    block: Option<(&'v str, Range<usize>)>,
    one_of: Option<(Named, Range<usize>)>,
    first: Option<(String, Range<usize>)>,
    optional: bool,
    tied: Option<String>,
    tie_key: Option<String>,
    rename: Vec<(String, String)>,
    dtype: Option<Vec<String>>,
}

pub(super) struct Expand<'a, 'i> {
    cx: &'a Cx<'a>,
    blocks: Option<&'a Table<'i>>,
    spec: &'a mut Parsed,
    /// The blocks being expanded, outermost first: a block may not use itself.
    stack: Vec<String>,
    /// The choices being expanded, outermost first, each with the alternative at hand.
    choices: Vec<(usize, usize)>,
    /// Each block's variables (blocks it uses included), computed once.
    vars: HashMap<String, BTreeSet<String>>,
    /// Block expansions so far, bounded by [`MAX_SPEC_TENSORS`] like the tensors.
    expansions: usize,
    /// Whether `[head_tensors]` are being expanded.
    pub head: bool,
    /// The `dtype` of the innermost block use that states one.
    dtype: Option<Vec<String>>,
    /// The blocks met so far, in order: an entry's owner is its block's position plus one.
    owners: Vec<String>,
}

impl<'a, 'i> Expand<'a, 'i> {
    pub fn new(cx: &'a Cx<'a>, blocks: Option<&'a Table<'i>>, spec: &'a mut Parsed) -> Self {
        Expand {
            cx,
            blocks,
            spec,
            stack: Vec::new(),
            choices: Vec::new(),
            vars: HashMap::new(),
            expansions: 0,
            head: false,
            dtype: None,
            owners: Vec::new(),
        }
    }

    pub fn table(
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

    fn fields<'v>(&self, t: &'v Table<'i>) -> Result<Fields<'v>, SpecError> {
        let cx = self.cx;
        let mut out = Fields::default();
        for (k, f) in t.iter() {
            match k.get_ref().as_ref() {
                "shape" => out.shape = Some((cx.string(f, "`shape`")?, f.span())),
                "block" => out.block = Some((cx.string(f, "`block`")?, f.span())),
                "one_of" => {
                    let blocks = match f.get_ref() {
                        DeValue::Array(a) if a.len() >= 2 => cx.strings(f, "`one_of`")?,
                        _ => {
                            return Err(cx.err(
                                &f.span(),
                                "`one_of` takes a list of two or more block names",
                            ));
                        }
                    };
                    out.one_of = Some((blocks, f.span()));
                }
                "first" => {
                    let var = cx.string(f, "`first`")?;
                    identifier(cx, var, &f.span(), "`first`")?;
                    out.first = Some((var.to_owned(), f.span()));
                }
                "optional" => {
                    out.optional = f
                        .get_ref()
                        .as_bool()
                        .ok_or_else(|| cx.err(&f.span(), "`optional` must be true or false"))?;
                }
                "dtype" => out.dtype = Some(dtypes(cx, f)?),
                "tied" => out.tied = Some(cx.string(f, "`tied`")?.to_owned()),
                "tie_key" => out.tie_key = Some(cx.string(f, "`tie_key`")?.to_owned()),
                "rename" => {
                    for (from, to) in cx.table(f, "`rename`")?.iter() {
                        identifier(cx, from.get_ref(), &from.span(), "a renamed variable")?;
                        let to_s = cx.string(to, "a rename")?;
                        identifier(cx, to_s, &to.span(), "a rename's target")?;
                        out.rename
                            .push((from.get_ref().to_string(), to_s.to_owned()));
                    }
                }
                other => {
                    return Err(cx.err(
                        &k.span(),
                        format!(
                            "unknown key `{other}`{}: a tensor takes shape, optional, dtype, tied, tie_key; a block takes block (or one_of, first), rename, optional, dtype",
                            super::near(other, super::super::ENTRY_KEYS)
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn entry(
        &mut self,
        name: &str,
        key: &Spanned<toml::de::DeString<'i>>,
        v: &Spanned<DeValue<'i>>,
        renames: &[(String, String)],
    ) -> Result<(), SpecError> {
        let cx = self.cx;
        if let Some(pattern) = v.get_ref().as_str() {
            if key.get_ref().is_empty() {
                return Err(cx.err(&key.span(), "an empty tensor name"));
            }
            return self.tensor(name, pattern, v.span(), false, renames);
        }
        if let DeValue::Array(uses) = v.get_ref() {
            // Several blocks used under one name (the same layer's optional biases and its
            // choice of feed-forward, both at no name of their own).
            for u in uses {
                let ok = u
                    .get_ref()
                    .as_table()
                    .is_some_and(|t| t.get("shape").is_none());
                if !ok {
                    return Err(cx.err(
                        &u.span(),
                        "a list under one name holds block uses: { block = \"…\" } or { one_of = [\"…\", \"…\"] }",
                    ));
                }
                self.entry(name, key, u, renames)?;
            }
            return Ok(());
        }
        let t = v.get_ref().as_table().ok_or_else(|| {
            cx.err(
                &v.span(),
                "a tensor takes a pattern string or a table { shape = \"…\", optional = true } or { block = \"…\" }",
            )
        })?;
        let f = self.fields(t)?;
        if f.shape.is_some() && key.get_ref().is_empty() {
            return Err(cx.err(&key.span(), "an empty tensor name"));
        }
        if f.first.is_some() && f.one_of.as_ref().is_none_or(|(b, _)| b.len() != 2) {
            let span = f.first.as_ref().map_or(v.span(), |(_, s)| s.clone());
            return Err(cx.err(
                &span,
                "`first` goes with `one_of` of two blocks: the first block for the leading elements, the second for the rest",
            ));
        }
        let not_tensor = |what: &str| {
            cx.err(
                &v.span(),
                format!("{what} applies to a block, not a tensor"),
            )
        };
        match (f.shape, f.block, f.one_of) {
            (Some((pattern, span)), None, None) => {
                if !f.rename.is_empty() {
                    return Err(not_tensor("`rename`"));
                }
                self.tensor(name, pattern, span, f.optional, renames)?;
                if let Some(e) = self.spec.entries.last_mut()
                    && f.dtype.is_some()
                {
                    e.dtype = f.dtype;
                }
                if let Some(to) = f.tied {
                    if let Some(e) = self.spec.entries.last_mut() {
                        e.tied = Some((to.clone(), f.tie_key));
                    }
                    self.spec.tied.push(Tied {
                        name: name.to_owned(),
                        to,
                    });
                }
                Ok(())
            }
            (None, Some((block, span)), None) => {
                if f.tied.is_some() || f.tie_key.is_some() {
                    return Err(cx.err(&v.span(), "`tied` applies to a tensor, not a block"));
                }
                let outer = self.enter_dtype(f.dtype);
                let r = if f.optional {
                    // An optional block is all or nothing: a choice of one, which may be absent.
                    let blocks = [(block.to_owned(), span.clone())];
                    self.choice(name, &blocks, &span, true, None, &f.rename, renames)
                } else {
                    self.block(name, block, &span, &f.rename, renames)
                };
                self.dtype = outer;
                r
            }
            (None, None, Some((blocks, span))) => {
                if f.tied.is_some() || f.tie_key.is_some() {
                    return Err(cx.err(&v.span(), "`tied` applies to a tensor, not a block"));
                }
                let first = f.first.map(|(var, _)| rename(&var, renames));
                let outer = self.enter_dtype(f.dtype);
                let r = self.choice(name, &blocks, &span, f.optional, first, &f.rename, renames);
                self.dtype = outer;
                r
            }
            (None, None, None) => Err(cx.err(
                &v.span(),
                "missing `shape = \"(…)\"`, `block = \"…\"` or `one_of = [\"…\", \"…\"]`",
            )),
            _ => Err(cx.err(
                &v.span(),
                "a tensor has one of `shape`, `block` or `one_of`, not several",
            )),
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
            choices: self.choices.clone(),
            head: self.head,
            dtype: self.dtype.clone(),
            owner,
        });
        Ok(())
    }

    /// Makes `dtype` (when given) the one the tensors expanded next have; returns the one
    /// to restore after.
    fn enter_dtype(&mut self, dtype: Option<Vec<String>>) -> Option<Vec<String>> {
        match dtype {
            Some(d) => self.dtype.replace(d),
            None => self.dtype.clone(),
        }
    }

    /// A `one_of` of `blocks` (or an optional block, a choice of one) used under `name`.
    #[allow(clippy::too_many_arguments)]
    fn choice(
        &mut self,
        name: &str,
        blocks: &[(String, Range<usize>)],
        span: &Range<usize>,
        optional: bool,
        leading: Option<String>,
        local: &[(String, String)],
        outer: &[(String, String)],
    ) -> Result<(), SpecError> {
        let cx = self.cx;
        // A rename applies to every alternative: it must name a variable one of them uses.
        let mut used = BTreeSet::new();
        for (block, _) in blocks {
            used.extend(block_vars(
                block,
                self.blocks,
                &mut self.vars,
                &mut Vec::new(),
            ));
        }
        check_renames(cx, local, &used, span, &blocks_text(blocks))?;
        let id = self.spec.choices.len();
        self.spec.choices.push(ChoiceDef {
            at: name.to_owned(),
            alternatives: blocks.len(),
            optional,
            leading,
            span: span.clone(),
            head: self.head,
        });
        for (k, (block, block_span)) in blocks.iter().enumerate() {
            self.choices.push((id, k));
            let r = self.block(name, block, block_span, local, outer);
            self.choices.pop();
            r?;
        }
        Ok(())
    }

    fn block(
        &mut self,
        name: &str,
        block: &str,
        span: &Range<usize>,
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
        check_renames(
            cx,
            local,
            &used,
            span,
            &format!("block `{block}` does not use"),
        )?;
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
        self.stack.push(block.to_owned());
        let r = self.table(body, name, &composed);
        self.stack.pop();
        r
    }
}

fn blocks_text(blocks: &[(String, Range<usize>)]) -> String {
    let names: Vec<String> = blocks.iter().map(|(b, _)| format!("`{b}`")).collect();
    format!("none of the blocks {} uses", names.join(", "))
}

/// Every rename of `local` names a variable of `used`; `what` says which blocks do not use
/// it ("block `mlp` does not use").
fn check_renames(
    cx: &Cx<'_>,
    local: &[(String, String)],
    used: &BTreeSet<String>,
    span: &Range<usize>,
    what: &str,
) -> Result<(), SpecError> {
    for (from, _) in local {
        if !used.contains(from) {
            let known: Vec<&str> = used.iter().map(String::as_str).collect();
            let hint = crate::verify::closest(from, &known)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            return Err(cx.err(span, format!("`rename` names `{from}`, which {what}{hint}")));
        }
    }
    Ok(())
}

/// Every variable the tensors of block `name` (and the blocks it uses, under their renames)
/// mention, computed once per block (`memo`); a block on `stack` (one that uses itself, an
/// error the expansion reports) adds nothing.
fn block_vars(
    name: &str,
    blocks: Option<&Table<'_>>,
    memo: &mut HashMap<String, BTreeSet<String>>,
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
                let mut inner: Vec<&str> = Vec::new();
                if let Some(b) = t.get("block").and_then(|b| b.get_ref().as_str()) {
                    inner.push(b);
                }
                if let Some(a) = t.get("one_of").and_then(|b| b.get_ref().as_array()) {
                    inner.extend(a.iter().filter_map(|b| b.get_ref().as_str()));
                }
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
                if let Some(first) = t.get("first").and_then(|f| f.get_ref().as_str()) {
                    out.insert(first.to_owned());
                }
                for b in inner {
                    for v in block_vars(b, blocks, memo, stack) {
                        let to = renames
                            .iter()
                            .find(|(f, _)| *f == v)
                            .map_or(v.clone(), |(_, t)| t.clone());
                        out.insert(to);
                    }
                }
            }
            _ => {}
        }
    }
    stack.pop();
    memo.insert(name.to_owned(), out.clone());
    out
}

/// `part` under `prefix` (an empty part is the prefix itself: a block used at no name).
pub(super) fn join(prefix: &str, part: &str) -> String {
    match (prefix.is_empty(), part.is_empty()) {
        (true, _) => part.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix}.{part}"),
    }
}

#[cfg(test)]
mod tests;
