//! The typed view of a `#[derive(Shaped)]` input: fields, how each is reached, its pattern.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use shapes_core::__private;
use shapes_core::expr::{CmpOp, DimExpr, Pattern};
use syn::ext::IdentExt as _;
use syn::{Data, DeriveInput, Fields, GenericArgument, LitStr, PathArguments, Type};

use crate::attr::{self, FieldAttr, StructAttr};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub ident: &'a syn::Ident,
    pub generics: &'a syn::Generics,
    pub fields: Vec<Field>,
    /// Parsed `where` equations (`=`): they may determine variables.
    pub wheres: Vec<WhereClause>,
    /// Parsed `where` comparisons other than `=` (`head_dim <= 256`): checked, never solved.
    pub constraints: Vec<Constraint>,
    /// The names of the `given = "a, b"` keys, each with its attribute string.
    pub given: Vec<(String, LitStr)>,
    /// `config(var = "key | key")` (or a list of strings): each variable, its keys in order,
    /// and where they are written.
    pub config: Vec<(syn::Ident, Vec<String>, Span)>,
    /// `ignore = "glob, glob"`: each pattern with its attribute string.
    pub ignore: Vec<(String, LitStr)>,
}

/// The pattern `(name,)` of a size field, `#[shape(dim = "name")]` on a `usize`: read as a
/// 1-d shape (`HasShape for usize`), it binds or checks `name` in memory; a checkpoint does not
/// hold it, so `verify_source` skips it.
fn size_field(dim: &LitStr, ty: &Type, also: bool) -> syn::Result<Pattern> {
    if also {
        return Err(syn::Error::new(
            dim.span(),
            "a field is a tensor with a pattern, `nested`, or a size with `dim = \"…\"`: one of them",
        ));
    }
    let is_usize = matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("usize"));
    if !is_usize {
        return Err(syn::Error::new_spanned(
            ty,
            "`dim = \"…\"` goes on a `usize` field: the size of one of the struct's variables",
        ));
    }
    let text = dim.value();
    let named = syn::parse_str::<syn::Ident>(&text).is_ok() && !text.starts_with("r#");
    let pattern = named
        .then(|| shapes_core::expr::parse_pattern(&format!("({text},)")).ok())
        .flatten();
    pattern.ok_or_else(|| {
        syn::Error::new(
            dim.span(),
            format!("`dim` names the variable the field holds, like `dim = \"heads\"`; `{text}` is not a name"),
        )
    })
}

/// A `where = "lhs = rhs"` equation: both sides, parsed, and the attribute string.
pub type WhereClause = (DimExpr, DimExpr, LitStr);

/// A `where = "lhs op rhs"` comparison other than `=`: both sides, the operator, and the
/// attribute string.
pub type Constraint = (DimExpr, CmpOp, DimExpr, LitStr);

pub struct Field {
    pub member: syn::Member,
    /// The name used in error paths: `w_q`, or `0` for a tuple field.
    pub name: String,
    pub attr: FieldAttr,
    /// How to get from the field to each tensor (or nested struct) it holds.
    pub access: Access,
    pub kind: Kind,
    /// Whether the leaf type names one of the struct's type or const parameters: it then
    /// gets a `HasShape`/`Shaped` bound, and no compile-time shape check.
    pub contains_generic: bool,
}

impl Field {
    /// Whether the field is a level of error paths and origins: a nested struct (`.block`)
    /// or a list (`.layers[3]`); a single tensor is named by its field info instead.
    pub fn is_path_level(&self) -> bool {
        matches!(self.kind, Kind::Nested) || self.access.has_seq()
    }
}

pub enum Kind {
    /// A tensor field with its parsed pattern.
    Tensor { pattern: Pattern, lit: LitStr },
    /// Nested `Shaped` structs.
    Nested,
}

/// The wrappers between a field and its tensors, read from the field's type.
pub enum Access {
    /// `Option<X>`: checked when `Some`.
    Option(Box<Access>),
    /// `Vec<X>`, `[X; N]`, `&[X]`, `Box<[X]>`: each element checked.
    Seq(Box<Access>),
    /// `Box<X>`, `&X`, `Rc<X>`, `Arc<X>`.
    Deref(Box<Access>),
    /// The tensor (or nested struct) type itself.
    Leaf(Box<Type>),
}

impl Access {
    pub fn leaf(&self) -> &Type {
        match self {
            Access::Option(a) | Access::Seq(a) | Access::Deref(a) => a.leaf(),
            Access::Leaf(t) => t,
        }
    }

    /// Whether the leaf is reached on every check: no `Option` and no collection on the way.
    pub fn is_unconditional(&self) -> bool {
        match self {
            Access::Option(_) | Access::Seq(_) => false,
            Access::Deref(a) => a.is_unconditional(),
            Access::Leaf(_) => true,
        }
    }

    /// For a leaf a run may not reach, how a successful run that binds a variable there first
    /// reaches it: `Some(false)` under `Option`s only, `Some(true)` as the first element of one
    /// list with nothing conditional inside it; `None` otherwise (and for an unconditional
    /// leaf).
    pub fn first_reach(&self) -> Option<bool> {
        match self {
            Access::Option(a) => match a.first_reach() {
                None if a.is_unconditional() => Some(false),
                reach => reach,
            },
            Access::Seq(a) => a.is_unconditional().then_some(true),
            Access::Deref(a) => a.first_reach(),
            Access::Leaf(_) => None,
        }
    }

    pub fn has_seq(&self) -> bool {
        match self {
            Access::Seq(_) => true,
            Access::Option(a) | Access::Deref(a) => a.has_seq(),
            Access::Leaf(_) => false,
        }
    }
}

impl<'a> Input<'a> {
    /// The typed view of a struct, with `#[shapes(...)]` already read by [`attr::struct_attr`]
    /// (its errors are reported here, after the input is known to be a struct).
    pub fn from_syn(
        cx: &Ctxt,
        input: &'a DeriveInput,
        attrs: StructAttr,
        attr_errors: Vec<syn::Error>,
    ) -> Option<Self> {
        let data = match &input.data {
            Data::Struct(s) => s,
            Data::Enum(e) => {
                cx.error_at(
                    e.enum_token.span,
                    "#[derive(Shaped)] works on structs only: an enum's variants have different fields, so there is no one set of shapes to verify",
                );
                return None;
            }
            Data::Union(u) => {
                cx.error_at(
                    u.union_token.span,
                    "#[derive(Shaped)] works on structs only, not unions",
                );
                return None;
            }
        };
        for e in attr_errors {
            cx.syn_error(e);
        }
        let raw: Vec<&syn::Field> = match &data.fields {
            Fields::Named(f) => f.named.iter().collect(),
            Fields::Unnamed(f) => f.unnamed.iter().collect(),
            Fields::Unit => Vec::new(),
        };
        let params = ParamsInScope::new(&input.generics);
        let mut fields = Vec::new();
        for (i, field) in raw.into_iter().enumerate() {
            let attr = attr::field_attr(cx, &field.attrs);
            let Some(span) = attr.span else { continue };
            let (member, name) = match &field.ident {
                // `r#type` is the field `type`: in error paths and in a checkpoint's names (as
                // `#[shapes::check]` names its parameters).
                Some(id) => (syn::Member::Named(id.clone()), id.unraw().to_string()),
                None => (
                    syn::Member::Unnamed(syn::Index {
                        index: i as u32,
                        span,
                    }),
                    i.to_string(),
                ),
            };
            if let Some(dim) = attr.dim.clone() {
                match size_field(
                    &dim,
                    &field.ty,
                    attr.pattern.is_some() || attr.nested.is_some(),
                ) {
                    Ok(pattern) => {
                        fields.push(Field {
                            member,
                            name,
                            contains_generic: false,
                            access: Access::Leaf(Box::new(field.ty.clone())),
                            attr,
                            kind: Kind::Tensor { pattern, lit: dim },
                        });
                    }
                    Err(e) => cx.syn_error(e),
                }
                continue;
            }
            let kind = match (&attr.pattern, attr.nested) {
                (Some(lit), None) => match shapes_core::expr::parse_pattern(&lit.value()) {
                    Ok(pattern) => Kind::Tensor {
                        pattern,
                        lit: lit.clone(),
                    },
                    Err(e) => {
                        cx.error_at(lit.span(), format!("invalid shape pattern: {e}"));
                        continue;
                    }
                },
                (Some(lit), Some(_)) => {
                    cx.error_at(
                        lit.span(),
                        "a field is either a tensor with a pattern or `nested`, not both",
                    );
                    continue;
                }
                (None, Some(_)) => Kind::Nested,
                (None, None) => continue,
            };
            if matches!(kind, Kind::Tensor { .. }) {
                let misplaced = attr
                    .own_scope
                    .or_else(|| attr.renames.first().map(|(inner, _)| inner.span()));
                if let Some(at) = misplaced {
                    cx.error_at(at, "`scope` and `rename` apply to `nested` fields only");
                }
            }
            let nested = matches!(kind, Kind::Nested);
            let access = access_of(&field.ty, nested);
            fields.push(Field {
                member,
                name,
                contains_generic: params.intersects(access.leaf()),
                access,
                attr,
                kind,
            });
        }
        let (wheres, constraints) = parse_wheres(cx, &attrs.wheres);
        let given = comma_list(&attrs.given);
        let ignore = comma_list(&attrs.ignore);
        let config = attrs
            .config
            .iter()
            .map(|(var, lits)| {
                let keys = lits
                    .iter()
                    .flat_map(|lit| {
                        lit.value()
                            .split('|')
                            .map(|k| k.trim().to_owned())
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let span = lits.first().map_or_else(|| var.span(), LitStr::span);
                (var.clone(), keys, span)
            })
            .collect();
        Some(Input {
            ident: &input.ident,
            generics: &input.generics,
            fields,
            wheres,
            constraints,
            given,
            config,
            ignore,
        })
    }

    /// Whether a `nested` field is checked in this struct's scope (not `scope = "own"`): its
    /// struct may then use, bind or solve any of this struct's names.
    pub fn shares_scope_with_nested(&self) -> bool {
        self.fields
            .iter()
            .any(|f| matches!(f.kind, Kind::Nested) && f.attr.own_scope.is_none())
    }
}

/// The names of comma-separated lists (`given = "a, b"`, `ignore = "x.*, y"`), each with
/// its attribute string.
fn comma_list(lits: &[LitStr]) -> Vec<(String, LitStr)> {
    lits.iter()
        .flat_map(|lit| {
            lit.value()
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .map(|s| (s, lit.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The `where = "…"` strings (of the derive or of `#[shapes::check]`) as equations (`=`) and
/// other comparisons, in order; a string that does not parse is an error at it, with a caret.
pub fn parse_wheres(cx: &Ctxt, lits: &[LitStr]) -> (Vec<WhereClause>, Vec<Constraint>) {
    let (mut wheres, mut constraints) = (Vec::new(), Vec::new());
    for lit in lits {
        match __private::parse_constraints(&lit.value()) {
            Ok(all) => {
                for (l, op, r, _) in all {
                    if op == CmpOp::Eq {
                        wheres.push((l, r, lit.clone()));
                    } else {
                        constraints.push((l, op, r, lit.clone()));
                    }
                }
            }
            Err(e) => cx.error_at(lit.span(), format!("invalid where clause: {e}")),
        }
    }
    (wheres, constraints)
}

/// The names of a struct's type and const parameters (thiserror's `ParamsInScope`).
struct ParamsInScope {
    names: Vec<String>,
}

impl ParamsInScope {
    fn new(generics: &syn::Generics) -> Self {
        let names = generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        ParamsInScope { names }
    }

    /// Whether `ty` names one of the parameters anywhere in its tokens.
    fn intersects(&self, ty: &Type) -> bool {
        fn walk(ts: TokenStream, names: &[String]) -> bool {
            ts.into_iter().any(|tt| match tt {
                proc_macro2::TokenTree::Ident(id) => names.contains(&id.to_string()),
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
                _ => false,
            })
        }
        !self.names.is_empty() && walk(ty.to_token_stream(), &self.names)
    }
}

/// Reads the wrappers off a field type. For a nested field, arrays are always collections; for
/// a tensor field, an array whose innermost element is a primitive number is data with a
/// static shape (`[[f32; 4]; 3]`), not a collection.
fn access_of(ty: &Type, nested: bool) -> Access {
    match ty {
        Type::Paren(p) => access_of(&p.elem, nested),
        Type::Group(g) => access_of(&g.elem, nested),
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => Access::Seq(Box::new(access_of(&s.elem, nested))),
            elem => Access::Deref(Box::new(access_of(elem, nested))),
        },
        Type::Array(a) if nested || !is_data_array(ty) => {
            Access::Seq(Box::new(access_of(&a.elem, nested)))
        }
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return Access::Leaf(Box::new(ty.clone()));
            };
            let arg = match &last.arguments {
                PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
                    Some(GenericArgument::Type(t)) => Some(t),
                    _ => None,
                },
                _ => None,
            };
            match (last.ident.to_string().as_str(), arg) {
                ("Option", Some(t)) => Access::Option(Box::new(access_of(t, nested))),
                ("Vec", Some(t)) => Access::Seq(Box::new(access_of(t, nested))),
                ("Box" | "Rc" | "Arc", Some(Type::Slice(s))) => {
                    Access::Seq(Box::new(access_of(&s.elem, nested)))
                }
                ("Box" | "Rc" | "Arc", Some(t)) => Access::Deref(Box::new(access_of(t, nested))),
                _ => Access::Leaf(Box::new(ty.clone())),
            }
        }
        _ => Access::Leaf(Box::new(ty.clone())),
    }
}

const PRIMITIVES: &[&str] = &[
    "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "bool",
];

/// `[E; N]`, `[[E; M]; N]`, … with `E` a primitive number: a data array with a static shape.
pub fn is_data_array(ty: &Type) -> bool {
    match ty {
        Type::Array(a) => match &*a.elem {
            Type::Array(_) => is_data_array(&a.elem),
            Type::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|id| PRIMITIVES.contains(&id.to_string().as_str())),
            _ => false,
        },
        _ => false,
    }
}

pub fn span_of_field(field: &Field) -> Span {
    field.attr.span.unwrap_or_else(Span::call_site)
}
