//! `self`'s fields as a checked method's body sees them, read from the struct's own
//! declarations (handed over by `#[shapes::check]` on the `impl` block; see `self_facts`):
//!
//! - a tensor field is a tensor of its pattern's shape (`Some` of one under an `Option`);
//! - a size field (`#[shape(dim = "heads")] num_heads: usize`) is the size `heads`;
//! - a `nested` field holding a framework layer (`Linear`, `Embedding`, `LayerNorm`,
//!   `RmsNorm`) is that layer, its forward contract (`shapes_core::forwards`) in the struct's
//!   names through the field's `rename(…)`;
//! - a `nested` field holding a struct of the user's declared in the same module of the same
//!   file (`neighbours`, through `val::MethodsOf`) is that struct's checked methods, their contracts in this struct's
//!   names through the field's `rename(…)` (none shared for `scope = "own"`);
//! - the struct's `where` equations are facts of the method too.
//!
//! Only a method that shares the struct's variables (`#[shapes::check(self)]`) reads them:
//! elsewhere the struct's `d_model` and the method's are two variables, and the rule that
//! distinct variables are distinct dims would call them different. Anything else (a list of
//! layers, a struct declared elsewhere, a field under a type parameter) is unknown.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use shapes_core::expr::{DimExpr, Item};

use super::contract::{Contract, rename_pattern, renamed};
use super::origins::Origins;
use super::pattern_dims;
use super::val::{Layer, MethodsOf, Val};
use crate::analysis::dim_vars;
use crate::ast::{Access, Input, Kind};
use crate::ctxt::Ctxt;

/// What a method knows of its struct: each field's value, the `where` equations, the
/// variables its declarations name, and the checked methods of the same `impl` block.
#[derive(Default)]
pub struct SelfFacts {
    /// The struct's name.
    name: String,
    /// Each field, by its name (`0` for a tuple field).
    fields: BTreeMap<String, Val>,
    /// The struct's `where` equations.
    pub wheres: Vec<(DimExpr, DimExpr)>,
    /// The variables the struct's own declarations name (a nested struct of the user's may
    /// add more, which a contract then reads as the callee's own: never wrong, only less).
    vars: BTreeSet<String>,
    /// The checked methods of the `impl` block, by name.
    methods: BTreeMap<String, Contract>,
    /// Where each of the struct's variables comes from, for the errors.
    origins: Origins,
}

impl SelfFacts {
    /// The facts of the struct `input` declares, or none when its declarations do not read
    /// (the derive reports those errors at the struct).
    /// `neighbours` are the items beside it in its module, whose checked methods a field
    /// holding one of its structs offers.
    pub fn from_struct(
        input: &syn::DeriveInput,
        neighbours: Option<&dyn MethodsOf>,
    ) -> Option<SelfFacts> {
        let cx = Ctxt::new();
        let (attrs, attr_errors) = crate::attr::struct_attr(&input.attrs);
        let facts =
            Input::from_syn(&cx, input, attrs, attr_errors).map(|view| read(&view, neighbours));
        cx.check().ok()?;
        facts
    }

    /// The struct's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The variables the struct's own declarations name.
    pub fn vars(&self) -> &BTreeSet<String> {
        &self.vars
    }

    /// The value of the field `name`, if it is known.
    pub fn field(&self, name: &str) -> Option<&Val> {
        self.fields.get(name)
    }

    /// Where the struct's variables come from (a field, a layer's variable, the `where`).
    pub fn origins(&self) -> &Origins {
        &self.origins
    }

    /// With the checked methods of the `impl` block.
    pub fn with_methods(mut self, methods: BTreeMap<String, Contract>) -> Self {
        self.methods = methods;
        self
    }

    /// The contract of the checked method `name` of the same `impl` block.
    pub fn method(&self, name: &str) -> Option<&Contract> {
        self.methods.get(name)
    }

    /// Whether `var`, in `contract`, is the struct's variable rather than the method's own.
    pub fn is_shared(&self, contract: &Contract, var: &str) -> bool {
        contract.shares_self && self.vars.contains(var)
    }
}

fn read(view: &Input<'_>, neighbours: Option<&dyn MethodsOf>) -> SelfFacts {
    let mut fields = BTreeMap::new();
    let mut origins = Origins::default();
    for f in &view.fields {
        if f.contains_generic {
            continue;
        }
        let at = match &f.member {
            syn::Member::Named(id) => format!("`self.{id}`"),
            syn::Member::Unnamed(i) => format!("`self.{}`", i.index),
        };
        // The field's `rename(…)`: (the nested struct's name, this struct's).
        let renames: Vec<(String, String)> = f
            .attr
            .renames
            .iter()
            .map(|(inner, outer)| (inner.value(), outer.value()))
            .collect();
        match &f.kind {
            Kind::Tensor { pattern, .. } if f.attr.dim.is_some() => {
                origins.note_pattern(pattern, &at);
            }
            Kind::Tensor { pattern, .. } => {
                origins.note_pattern(pattern, &format!("the pattern of {at}"));
            }
            Kind::Nested => note_layer(&mut origins, f.access.leaf(), &renames, &at),
        }
        let val = match &f.kind {
            // A size field: `(heads,)`'s one dim is the size it holds.
            Kind::Tensor { pattern, .. } if f.attr.dim.is_some() => {
                match pattern_dims(pattern).and_then(|d| d.into_iter().next()) {
                    Some(d) => Val::Size(d),
                    None => continue,
                }
            }
            Kind::Tensor { pattern, .. } => Val::Tensor(pattern_dims(pattern)),
            Kind::Nested => {
                let shared = f.attr.own_scope.is_none();
                let leaf = f.access.leaf();
                match layer(leaf, &renames).filter(|_| shared) {
                    Some(l) => Val::Layer(l),
                    None => match neighbours.and_then(|n| n.methods_of(leaf, &renames, shared)) {
                        Some(m) => {
                            for v in &m.shared {
                                origins.note(v, &format!("{at} (a {})", m.ty));
                            }
                            Val::Struct(Rc::new(m))
                        }
                        None => match leaf {
                            syn::Type::Path(p) if forward_of_path(p).is_none() => {
                                match p.path.segments.last() {
                                    Some(s) => Val::Unread(s.ident.to_string()),
                                    None => continue,
                                }
                            }
                            _ => continue,
                        },
                    },
                }
            }
        };
        let val = match &f.access {
            a if a.is_unconditional() => val,
            Access::Option(inner) if inner.is_unconditional() => Val::Some(Box::new(val)),
            _ => continue,
        };
        let name = match &f.member {
            syn::Member::Named(id) => id.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        fields.insert(name, val);
    }
    let wheres: Vec<(DimExpr, DimExpr)> = view
        .wheres
        .iter()
        .map(|(l, r, _)| (l.clone(), r.clone()))
        .collect();
    let mut vars = BTreeSet::new();
    for val in fields.values() {
        val_vars(val, &mut vars);
    }
    for (l, r) in &wheres {
        for v in dim_vars(l).into_iter().chain(dim_vars(r)) {
            vars.insert(v.to_owned());
            origins.note(v, "the struct's `where`");
        }
    }
    SelfFacts {
        name: view.ident.to_string(),
        fields,
        wheres,
        vars,
        methods: BTreeMap::new(),
        origins,
    }
}

/// The variables of a layer field, each from the layer's own variable it renames.
fn note_layer(origins: &mut Origins, ty: &syn::Type, renames: &[(String, String)], at: &str) {
    let syn::Type::Path(p) = ty else {
        return;
    };
    let Some(forward) = forward_of_path(p) else {
        return;
    };
    for inner in forward.vars {
        let outer = renamed(renames, inner);
        origins.note(&outer, &format!("{at} (a {}'s {inner})", forward.layer));
    }
}

/// The variables of a field's value (a layer's batch variable is its own, not the struct's).
fn val_vars(val: &Val, out: &mut BTreeSet<String>) {
    match val {
        Val::Tensor(Some(dims)) => {
            for d in dims.iter().flatten() {
                out.extend(dim_vars(d).into_iter().map(str::to_owned));
            }
        }
        Val::Size(Some(d)) => out.extend(dim_vars(d).into_iter().map(str::to_owned)),
        Val::Some(inner) => val_vars(inner, out),
        Val::Layer(l) => {
            for item in l.input.items.iter().chain(&l.output.items) {
                if let Item::Dim(d) = item {
                    out.extend(dim_vars(d).into_iter().map(str::to_owned));
                }
            }
        }
        _ => {}
    }
}

/// The forward of a field of type `ty`, renamed by `renames`, if `ty` is a layer with a
/// contract and every rename names one of its variables (another type of the same name is
/// not read as the framework's).
fn layer(ty: &syn::Type, renames: &[(String, String)]) -> Option<Layer> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let forward = forward_of_path(p)?;
    if renames
        .iter()
        .any(|(inner, _)| !forward.vars.contains(&inner.as_str()))
    {
        return None;
    }
    let rename = |v: &str| renamed(renames, v);
    let pattern = |text| shapes_core::expr::parse_pattern(text).ok();
    Some(Layer {
        kind: forward.layer,
        input: rename_pattern(&pattern(forward.input)?, &rename),
        output: rename_pattern(&pattern(forward.output)?, &rename),
    })
}

/// The forward contract a type path names, if it is a framework layer's.
fn forward_of_path(p: &syn::TypePath) -> Option<&'static shapes_core::forwards::Forward> {
    shapes_core::forwards::forward_of(&p.path.segments.last()?.ident.to_string())
}
