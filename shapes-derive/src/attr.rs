//! `#[shape(...)]` and `#[shapes(...)]`: attribute syntax into plain data, errors collected.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitStr, Token};

use crate::ctxt::Ctxt;

/// What `#[shape(...)]` on a field says.
#[derive(Default)]
pub struct FieldAttr {
    /// The pattern string, as written.
    pub pattern: Option<LitStr>,
    /// `nested`: the field holds `Shaped` structs checked in this struct's scope.
    pub nested: Option<Span>,
    /// `scope = "own"`: each nested struct is checked in a scope of its own.
    pub own_scope: Option<Span>,
    /// `rename(inner = "outer", …)`: a nested struct's variable `inner` is this struct's `outer`.
    pub renames: Vec<(LitStr, LitStr)>,
    /// `name = "…"`: the tensor's name in a checkpoint (`verify_source`), instead of the
    /// field's name.
    pub name: Option<LitStr>,
    /// `prefix = "…"`: the nested structs' tensor names are under this prefix in a checkpoint,
    /// instead of under the field's name.
    pub prefix: Option<LitStr>,
    /// `count = "n_layers"`: the variable bound to the number of elements of a `Vec`, array or
    /// slice field.
    pub count: Option<LitStr>,
    /// `min = 2`: in a checkpoint, a collection field has at least this many elements (1
    /// when not given).
    pub min: Option<syn::LitInt>,
    /// `tied = "…"`: an `Option` tensor that a checkpoint may leave out because it shares the
    /// weights of the tensor of this name (under the same prefixes).
    pub tied: Option<LitStr>,
    /// `tie_key = "…"`: the checkpoint key that states whether the tie is on.
    pub tie_key: Option<LitStr>,
    /// `dim = "heads"`: a `usize` field holding the size of the struct's variable `heads`.
    pub dim: Option<LitStr>,
    /// The attribute itself, for errors about it as a whole.
    pub span: Option<Span>,
}

/// What `#[shapes(...)]` on the struct says.
#[derive(Default)]
pub struct StructAttr {
    /// `where = "lhs = rhs"` equations.
    pub wheres: Vec<LitStr>,
    /// `given = "a, b"`: variables the caller binds through `verify_with`.
    pub given: Vec<LitStr>,
    /// `crate = "path"`: where the `shapes` crate is.
    pub crate_path: Option<syn::Path>,
    /// `config(var = "key | key", …)` or `config(var = ["key", "key"])`: variables bound
    /// from checkpoint keys, each with its strings.
    pub config: Vec<(Ident, Vec<LitStr>)>,
    /// `ignore = "glob, glob"`: checkpoint tensors `verify_source` neither needs nor reports.
    pub ignore: Vec<LitStr>,
}

const FIELD_KEYS: &str = "a pattern string, `nested`, `scope = \"own\"`, `rename(inner = \"outer\")`, `name = \"…\"`, `prefix = \"…\"`, `count = \"…\"`, `min = …`, `tied = \"…\"`, `tie_key = \"…\"`, `dim = \"…\"`";
const STRUCT_KEYS: &str = "`where = \"…\"`, `given = \"…\"`, `config(var = \"key | key\")`, `ignore = \"…\"`, `crate = \"…\"`";

pub fn field_attr(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttr {
    let mut out = FieldAttr::default();
    // Rule: a field's attribute is `#[shape]`; `#[shapes]` is the struct's, and on a field it
    // would check nothing.
    for attr in attrs.iter().filter(|a| a.path().is_ident("shapes")) {
        cx.error_spanned(
            attr,
            "#[shapes(...)] is the struct's attribute; a field takes #[shape(...)] (singular): a pattern string like #[shape(\"(batch, d_model)\")], or `nested`",
        );
    }
    for attr in attrs.iter().filter(|a| a.path().is_ident("shape")) {
        if out.span.is_some() {
            cx.error_spanned(attr, "duplicate #[shape] attribute: put everything in one");
            continue;
        }
        out.span = Some(span_of(attr));
        if !matches!(attr.meta, syn::Meta::List(_)) {
            cx.error_spanned(
                attr,
                "#[shape] needs an argument: a pattern string like #[shape(\"(batch, d_model)\")], or `nested`",
            );
            continue;
        }
        if let Err(e) = attr.parse_args_with(|input: ParseStream| parse_field_args(input, &mut out))
        {
            cx.syn_error(e);
        } else if out.pattern.is_none() && out.nested.is_none() && out.dim.is_none() {
            cx.error_spanned(
                attr,
                "#[shape(...)] needs a pattern string like \"(batch, d_model)\", or `nested`",
            );
        }
    }
    out
}

fn span_of(attr: &Attribute) -> Span {
    use syn::spanned::Spanned;
    attr.span()
}

fn parse_field_args(input: ParseStream, out: &mut FieldAttr) -> syn::Result<()> {
    while !input.is_empty() {
        if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            if out.pattern.is_some() {
                return Err(syn::Error::new(
                    lit.span(),
                    "a field has one pattern string",
                ));
            }
            out.pattern = Some(lit);
        } else if input.peek(syn::Lit) {
            let lit: syn::Lit = input.parse()?;
            return Err(syn::Error::new(
                lit.span(),
                "expected the pattern as a string literal, e.g. #[shape(\"(batch, d_model)\")]",
            ));
        } else {
            let key: Ident = input
                .parse()
                .map_err(|e| syn::Error::new(e.span(), format!("expected {FIELD_KEYS}")))?;
            match key.to_string().as_str() {
                "nested" => out.nested = Some(key.span()),
                "scope" => {
                    input.parse::<Token![=]>()?;
                    let v: LitStr = input.parse()?;
                    match v.value().as_str() {
                        "own" => out.own_scope = Some(v.span()),
                        "shared" => {}
                        _ => {
                            return Err(syn::Error::new(
                                v.span(),
                                "scope is \"shared\" (the default: nested variables are this struct's) or \"own\" (each nested struct has its own)",
                            ));
                        }
                    }
                }
                "rename" => {
                    let content;
                    syn::parenthesized!(content in input);
                    while !content.is_empty() {
                        let inner: Ident = content.parse()?;
                        content.parse::<Token![=]>()?;
                        let outer: LitStr = content.parse()?;
                        out.renames
                            .push((LitStr::new(&inner.to_string(), inner.span()), outer));
                        if !content.is_empty() {
                            content.parse::<Token![,]>()?;
                        }
                    }
                }
                "min" => {
                    input.parse::<Token![=]>()?;
                    let v: syn::LitInt = input.parse().map_err(|e| {
                        syn::Error::new(
                            e.span(),
                            "`min` takes a number of elements, like `min = 1`",
                        )
                    })?;
                    if out.min.is_some() {
                        return Err(syn::Error::new(key.span(), "`min` is given twice"));
                    }
                    v.base10_parse::<usize>()?;
                    out.min = Some(v);
                }
                "name" | "prefix" | "count" | "tied" | "tie_key" | "dim" => {
                    input.parse::<Token![=]>()?;
                    let v: LitStr = input.parse()?;
                    let slot = match key.to_string().as_str() {
                        "name" => &mut out.name,
                        "prefix" => &mut out.prefix,
                        "tied" => &mut out.tied,
                        "tie_key" => &mut out.tie_key,
                        "dim" => &mut out.dim,
                        _ => &mut out.count,
                    };
                    if slot.is_some() {
                        return Err(syn::Error::new(
                            key.span(),
                            format!("`{key}` is given twice"),
                        ));
                    }
                    *slot = Some(v);
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown key `{other}` in #[shape(...)]; expected {FIELD_KEYS}"),
                    ));
                }
            }
        }
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(())
}

/// Reads `#[shapes(...)]`, before anything else: the fallback impl of a failed derive needs the
/// crate path too. The errors are handed back rather than reported, because they only count for
/// a struct: an enum or a union gets the one error that says why it cannot derive `Shaped`.
pub fn struct_attr(attrs: &[Attribute]) -> (StructAttr, Vec<syn::Error>) {
    let mut out = StructAttr::default();
    let mut errors = Vec::new();
    // Rule: the struct's attribute is `#[shapes]`; `#[shape]` is a field's, and on the struct
    // its `where`, `given` and `config` would be dropped without a word.
    for attr in attrs.iter().filter(|a| a.path().is_ident("shape")) {
        errors.push(syn::Error::new_spanned(
            attr,
            "#[shape(...)] describes a field; on the struct, write #[shapes(...)] (plural), which takes `where`, `given`, `config`, `ignore` and `crate`",
        ));
    }
    for attr in attrs.iter().filter(|a| a.path().is_ident("shapes")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("where") {
                out.wheres.push(meta.value()?.parse()?);
            } else if meta.path.is_ident("given") {
                out.given.push(meta.value()?.parse()?);
            } else if meta.path.is_ident("config") {
                meta.parse_nested_meta(|inner| {
                    let Some(var) = inner.path.get_ident().cloned() else {
                        return Err(inner.error(
                            "expected a variable name, as in config(d_model = \"hidden_size\")",
                        ));
                    };
                    let value = inner.value()?;
                    // One string with `|` between the keys, or a list of strings: the two
                    // spellings spec files take too.
                    let keys = if value.peek(syn::token::Bracket) {
                        let content;
                        syn::bracketed!(content in value);
                        let list = content.parse_terminated(|i| i.parse::<LitStr>(), Token![,])?;
                        list.into_iter().collect()
                    } else {
                        vec![value.parse::<LitStr>()?]
                    };
                    out.config.push((var, keys));
                    Ok(())
                })?;
            } else if meta.path.is_ident("ignore") {
                out.ignore.push(meta.value()?.parse()?);
            } else if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                out.crate_path = Some(lit.parse()?);
            } else {
                let key = meta
                    .path
                    .get_ident()
                    .map_or_else(|| "?".to_owned(), ToString::to_string);
                return Err(meta.error(format!(
                    "unknown key `{key}` in #[shapes(...)]; expected {STRUCT_KEYS}"
                )));
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    (out, errors)
}
