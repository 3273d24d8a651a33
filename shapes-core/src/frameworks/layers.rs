//! What the framework layer types (`candle_nn::Linear`, `burn_nn::LayerNorm`, …) share: their
//! `Shaped` impls, written once by [`layer!`] from a description of each layer's tensors.
//!
//! A layer is a struct of tensors whose patterns use plain variables only (`(d_out, d_in)`), so
//! its checks are the ones `#[derive(Shaped)]` generates for such a field: a rank check, then
//! one `var_is` per axis, in memory from the value; by name from a checkpoint, each tensor is a
//! field of the one description a derived struct emits (`Shaped::DESCRIPTION`). The
//! variable names are the same across frameworks for the same concept (see the table on
//! [`Shaped`](crate::verify::Shaped)'s impls in the module docs of each framework).

use crate::source::HasShape;
use crate::verify::{FieldInfo, ScopeChecks, SlotMap};

/// The checks of one tensor of a layer in memory: `vars[i]` is the local variable of axis `i`,
/// `known[i]` whether an earlier tensor of the layer bound it for sure ([`known_before`]); the
/// map adds what the struct holding the layer knows bound (a parent's `d_model`).
#[inline(always)]
pub(super) fn check_value<C: ScopeChecks, T: HasShape + ?Sized, const R: usize>(
    cx: &mut C,
    map: &SlotMap,
    info: &'static FieldInfo,
    vars: [u8; R],
    known: [bool; R],
    value: &T,
) {
    let s = value.shape();
    let slots = vars.map(|v| map.get(usize::from(v)));
    let known = core::array::from_fn(|i| known[i] || map.is_known(usize::from(vars[i])));
    cx.plain_tensor(info, s.as_ref(), slots, known);
}

/// For each of `vars` (the variables of the layer's tensor `k`, axis by axis), whether a tensor
/// before it that every layer has binds it: `tensors` lists each tensor's variables and whether
/// it is required. A bias's width after its weight is known, and costs one comparison.
pub(super) const fn known_before<const R: usize>(
    tensors: &[(&[u8], bool)],
    k: usize,
    vars: [u8; R],
) -> [bool; R] {
    let mut known = [false; R];
    let mut axis = 0;
    while axis < R {
        let mut j = 0;
        while j < k && j < tensors.len() {
            let (earlier, required) = tensors[j];
            let mut i = 0;
            while required && i < earlier.len() {
                if earlier[i] == vars[axis] {
                    known[axis] = true;
                }
                i += 1;
            }
            j += 1;
        }
        axis += 1;
    }
    known
}

/// `impl Shaped` for a layer type, from its variables and its tensors:
///
/// ```text
/// layer! {
///     candle_nn::Linear, "Linear", [d_out, d_in],
///     weight(required): "(d_out, d_in)" [d_out, d_in] = |l| Some(l.weight()),
///     bias(optional): "(d_out,)" [d_out] = |l| l.bias(),
/// }
/// ```
///
/// Each tensor: its name (as the framework saves it), whether a layer may lack it (and, for
/// a framework whose layout is not PyTorch's, how PyTorch saves it: `torch = …`, a
/// [`TorchLayout`]), its pattern text (what errors print; a test checks it against the
/// variable list), the variable of each axis, and how to reach it from the layer
/// (`Option<&T>`).
macro_rules! layer {
    (
        $ty:ty, $name:literal, [$($var:ident),+ $(,)?],
        $( $tensor:ident ($presence:ident $(, torch = $torch:expr)?) : $pattern:literal [$($axis:ident),+] = |$l:ident| $get:expr ),+ $(,)?
    ) => {
        impl $crate::verify::Shaped for $ty {
            const VARS: $crate::verify::VarTable =
                $crate::verify::VarTable::new()$(.with(stringify!($var)))+;
            const NAME: &'static str = $name;

            // The first required tensor binds each variable (a bias may be absent).
            const BINDERS: &'static $crate::verify::Binders = &{
                #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
                enum Member { $($tensor),+ }
                let mut b = $crate::verify::Binders::listed();
                $(
                    b = if layer!(@optional $presence) {
                        b.may_dims(&Self::VARS, &[$(stringify!($axis)),+])
                    } else {
                        b.dims(
                            &Self::VARS,
                            &[$(stringify!($axis)),+],
                            stringify!($tensor),
                            Member::$tensor as u16,
                        )
                    };
                )+
                b
            };

            #[inline]
            fn read_binder(&self, binder: &$crate::verify::Binder) -> Option<usize> {
                #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
                enum Member { $($tensor),+ }
                let $crate::verify::Binder::Dim { member, axis, .. } = *binder else {
                    return None;
                };
                $(
                    if member == Member::$tensor as u16 {
                        let $l = self;
                        let t = $get?;
                        let s = $crate::source::HasShape::shape(t);
                        return s.as_ref().get(usize::from(axis)).copied();
                    }
                )+
                None
            }

            #[inline]
            fn check_in<C: $crate::verify::ScopeChecks>(
                &self,
                cx: &mut C,
                map: &$crate::verify::SlotMap,
            ) {
                #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
                enum Var { $($var),+ }
                #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
                enum Member { $($tensor),+ }
                // Each tensor's variables, and whether every layer has it.
                const TENSORS: &[(&[u8], bool)] =
                    &[$((&[$(Var::$axis as u8),+], !layer!(@optional $presence))),+];
                $({
                    static INFO: $crate::verify::FieldInfo = $crate::verify::FieldInfo::at(
                        stringify!($tensor),
                        $pattern,
                        file!(),
                        line!(),
                        column!(),
                    );
                    const VARS: [u8; layer!(@count $($axis)+)] = [$(Var::$axis as u8),+];
                    let $l = self;
                    match $get {
                        Some(t) => $crate::frameworks::layers::check_value(
                            cx,
                            map,
                            &INFO,
                            VARS,
                            const {
                                $crate::frameworks::layers::known_before(
                                    TENSORS,
                                    Member::$tensor as usize,
                                    VARS,
                                )
                            },
                            t,
                        ),
                        None => $crate::hint::unlikely(),
                    }
                })+
            }

            // Read by name, each tensor is a field of the one description a derived struct
            // emits, run by the same interpreter; an optional one is under an `Option`.
            const DESCRIPTION: Option<&'static $crate::verify::Description> = {
                #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
                enum Var { $($var),+ }
                Some(&$crate::verify::Description {
                    nodes: &[$(
                        $crate::verify::Node::Field(&$crate::verify::FieldNode::tensor(
                            stringify!($tensor),
                            stringify!($tensor),
                            if layer!(@optional $presence) {
                                &[$crate::verify::Wrap::Option]
                            } else {
                                &[]
                            },
                            stringify!($tensor),
                            $pattern,
                            &[$($crate::verify::ItemOp::Var(Var::$axis as u8)),+],
                            None,
                        )
                        .torch(layer!(@torch $($torch)?))
                        .at(file!(), line!(), column!()))
                    ),+],
                    wheres: &[],
                    where_infos: &[],
                    given: &[],
                    config: &[],
                    config_places: &[],
                    ignore: &[],
                })
            };

            fn check_source_in(
                cx: &mut $crate::verify::Checker,
                map: &$crate::verify::SlotMap,
                src: &mut $crate::verify::SourceCx<'_>,
            ) {
                if let Some(d) = Self::DESCRIPTION {
                    $crate::verify::run_description(cx, map, src, d);
                }
            }
        }

        #[cfg(test)]
        impl $crate::frameworks::layers::Described for $ty {
            const TENSORS: &'static [(&'static str, &'static str, &'static [&'static str])] = &[
                $((stringify!($tensor), $pattern, &[$(stringify!($axis)),+])),+
            ];
        }
    };
    (@count $($x:ident)+) => { 0 $(+ layer!(@one $x))+ };
    (@one $x:ident) => { 1 };
    (@torch) => { $crate::verify::TorchLayout::Same };
    (@torch $torch:expr) => { $torch };
    (@optional optional) => { true };
    (@optional required) => { false };
}
pub(super) use layer;

/// A layer's tensors as [`layer!`] was given them, for the test that each pattern text says
/// what the checks do.
#[cfg(test)]
pub(super) trait Described {
    /// `(name, pattern text, variable of each axis)`.
    const TENSORS: &'static [(&'static str, &'static str, &'static [&'static str])];
}

/// Checks that every pattern text of `L` parses to exactly its listed variables, axis by axis,
/// and that its forward contract (`crate::forwards`), if it has one, knows its variables.
#[cfg(test)]
pub(super) fn assert_described<L: Described + crate::verify::Shaped>() {
    if let Some(f) = crate::forwards::forward_of(L::NAME) {
        let mut declared = L::VARS.names().to_vec();
        declared.sort_unstable();
        let mut listed = f.vars.to_vec();
        listed.sort_unstable();
        assert_eq!(
            declared,
            listed,
            "{}: the forward contract's variables",
            L::NAME
        );
    }
    use crate::expr::{DimExpr, Item};
    for (name, text, vars) in L::TENSORS {
        let pattern = crate::parse::parse_pattern(text)
            .unwrap_or_else(|e| panic!("{name}: pattern {text} does not parse: {e}"));
        let found: Vec<&str> = pattern
            .items
            .iter()
            .map(|item| match item {
                Item::Dim(DimExpr::Var(v)) => v.as_str(),
                other => panic!("{name}: {other:?} is not a plain variable"),
            })
            .collect();
        assert_eq!(&found, vars, "{name}: pattern {text}");
    }
}

#[cfg(test)]
mod tests {
    use super::known_before;

    #[test]
    fn a_variable_of_an_earlier_required_tensor_is_known() {
        // weight (d_out, d_in) required, bias (d_out,) optional, scale (d_in,) required.
        const T: &[(&[u8], bool)] = &[(&[0, 1], true), (&[0], false), (&[1], true)];
        assert_eq!(known_before(T, 0, [0, 1]), [false, false]);
        assert_eq!(known_before(T, 1, [0]), [true]);
        // An optional tensor binds nothing for sure: `d_out` after only the bias is unknown.
        const U: &[(&[u8], bool)] = &[(&[0], false), (&[0, 1], true)];
        assert_eq!(known_before(U, 1, [0, 1]), [false, false]);
        assert_eq!(known_before(T, 2, [1]), [true]);
    }
}
