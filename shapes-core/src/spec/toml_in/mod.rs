//! Reading a spec's TOML into a [`Spec`]: every key checked, every error at its span, blocks
//! expanded under their prefixes with their renames applied.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::expr::{DimExpr, Item};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

mod expand;

use self::expand::Expand;
use super::{Parsed, SpecError, SpecText};

pub(super) type Table<'i> = DeTable<'i>;

pub(super) struct Cx<'a> {
    pub src: &'a SpecText<'a>,
}

impl Cx<'_> {
    pub fn err(&self, span: &Range<usize>, msg: impl Into<String>) -> SpecError {
        SpecError::span(self.src.file, self.src.text, span, msg)
    }

    pub fn string<'v>(
        &self,
        v: &'v Spanned<DeValue<'_>>,
        what: &str,
    ) -> Result<&'v str, SpecError> {
        v.get_ref()
            .as_str()
            .ok_or_else(|| self.err(&v.span(), format!("{what} must be a string")))
    }

    /// A string or a list of strings.
    pub fn strings(
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

    pub fn table<'v, 'i>(
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
    pub fn text_start(&self, span: &Range<usize>) -> Option<usize> {
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
    let mut heads = None;
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
            "prefixes" => spec.prefixes = cx.strings(v, "`prefixes`")?,
            "dtype" => spec.dtype = Some(dtypes(&cx, v)?),
            "tensors" => tensors = Some(cx.table(v, "`tensors`")?),
            "head_tensors" => heads = Some((cx.table(v, "`head_tensors`")?, k.span())),
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
    if let Some((_, span)) = &heads
        && !spec.prefixes.iter().any(|(p, _)| !p.is_empty())
    {
        return Err(cx.err(
            span,
            "[head_tensors] are the tensors a task class adds outside its base model's prefix: they need `prefixes = [\"…\", \"\"]`",
        ));
    }
    let mut x = Expand::new(&cx, blocks, &mut spec);
    x.table(tensors, "", &[])?;
    if let Some((heads, _)) = heads {
        x.head = true;
        x.table(heads, "", &[])?;
    }
    Ok(spec)
}

/// A `dtype`: a dtype or a list of them, each as safetensors writes it (`BF16`, `F8_E4M3`).
pub(super) fn dtypes(cx: &Cx<'_>, v: &Spanned<DeValue<'_>>) -> Result<Vec<String>, SpecError> {
    let list = cx.strings(v, "`dtype`")?;
    if list.is_empty() {
        return Err(cx.err(&v.span(), "`dtype` lists at least one dtype"));
    }
    for (d, span) in &list {
        let ok = !d.is_empty()
            && d.bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if !ok {
            return Err(cx.err(
                span,
                format!(
                    "{d:?} is not a dtype as checkpoints spell them: write `{}` (BF16, F16, F32, F8_E4M3, I64, …)",
                    d.to_ascii_uppercase()
                ),
            ));
        }
    }
    Ok(list.into_iter().map(|(d, _)| d).collect())
}

/// ` (did you mean `key`?)` for an unknown key close to one of `keys`.
pub(super) fn near(key: &str, keys: &[&str]) -> String {
    crate::verify::closest(key, keys)
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

pub(super) fn identifier(
    cx: &Cx<'_>,
    s: &str,
    span: &Range<usize>,
    what: &str,
) -> Result<(), SpecError> {
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
