//! [`PlanNode`]: what a spec describes, before it is compiled into a [`Plan`](super::Plan).

use crate::verify::Place;

/// One node of a [`Plan`](super::Plan), as a spec describes it.
///
/// ```
/// use shapes::verify::PlanNode;
/// let layer = PlanNode::group("attn", vec![PlanNode::tensor("q.weight", "(d_model, d_model)")]);
/// let model = vec![
///     PlanNode::tensor("embed.weight", "(vocab, d_model)"),
///     PlanNode::group("layers", vec![layer]).repeated(Some("n_layers")),
/// ];
/// assert_eq!(model.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PlanNode {
    /// A tensor: its name (under the enclosing prefixes) and its pattern.
    Tensor {
        /// The name in the source, joined to the enclosing prefixes with `.`.
        name: String,
        /// The pattern, in the shape language: `(d_model, heads * head_dim)`.
        pattern: String,
        /// Where the pattern is declared (a spec file's entry), for its errors.
        place: Option<Place>,
    },
    /// Tensors under a name prefix, in the same scope (the run-time `#[shape(nested)]`).
    Group {
        /// The prefix (`encoder`, `layers`); empty for none.
        prefix: String,
        /// `Some` for a run `prefix.0`, `prefix.1`, … of the group, with the variable (if
        /// any) that the number of elements binds.
        repeat: Option<Option<String>>,
        /// Whether the group may be absent (an `Option` field): checked only when the source
        /// has some tensor under the prefix.
        optional: bool,
        /// What the group holds.
        children: Vec<PlanNode>,
        /// Where a repeated group is declared (a spec file's `[repeat]` entry), for the errors
        /// about its count.
        place: Option<Place>,
    },
    /// A tensor that a checkpoint may leave out because it shares the weights of another (an
    /// output head tied to the token embedding): when present it is checked like a
    /// [`Tensor`](Self::Tensor); when absent, the absence is allowed unless the checkpoint
    /// states under `key` that the tie is off (`tie_word_embeddings = false`), is reported in
    /// [`Bindings::tied`](crate::Bindings::tied), and the pattern is checked against the shape of `to`.
    Tied {
        /// The name in the source, joined to the enclosing prefixes with `.`.
        name: String,
        /// The pattern.
        pattern: String,
        /// Where the pattern is declared, for its errors.
        place: Option<Place>,
        /// The tensor it is tied to, under the same enclosing prefixes.
        to: String,
        /// The checkpoint key that states whether the tie is on (`tie_word_embeddings`).
        key: Option<String>,
    },
    /// One of several sets of tensors under the current prefix (a dense feed-forward or a
    /// mixture of experts): the alternative the source holds the most tensors of (the first
    /// on a tie) is checked in full; when it holds none, the first alternative is checked
    /// (and reported missing) unless the choice is `optional`. With `leading`, inside a repeated group, an element
    /// whose index is below the value `leading` is given before checking (by the caller or
    /// the checkpoint's config) takes the first alternative and the others the second,
    /// whatever the source holds: DeepSeek-V3's `first_k_dense_replace` dense layers.
    Choice {
        /// The alternatives, each a list of nodes under the current prefix.
        alternatives: Vec<Vec<PlanNode>>,
        /// Whether none may be present.
        optional: bool,
        /// The variable counting the leading elements that take the first alternative.
        leading: Option<String>,
    },
}

impl PlanNode {
    /// A tensor named `name` whose shape matches `pattern`.
    ///
    /// ```
    /// let t = shapes::verify::PlanNode::tensor("w", "(a, b)");
    /// assert!(matches!(t, shapes::verify::PlanNode::Tensor { .. }));
    /// ```
    pub fn tensor(name: impl Into<String>, pattern: impl Into<String>) -> Self {
        PlanNode::Tensor {
            name: name.into(),
            pattern: pattern.into(),
            place: None,
        }
    }

    /// This tensor (tied or not) with its pattern declared at `place`, which its errors name
    /// ([`declared_at`](crate::verify::ShapeErrorDetails::declared_at)); this group with its
    /// repetition declared there, which the errors about its count name; a choice as it is.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Plan, Shape, verify::{Place, PlanNode}};
    /// let w = PlanNode::tensor("w", "(d, 4)").at(Place::at("model.toml", 3, 7));
    /// let plan = Plan::build("M", &[w], &[]).unwrap();
    /// let src = BTreeMap::from([("w".to_string(), Shape::from([2, 5]))]);
    /// let err = plan.verify_source(&src).unwrap_err();
    /// assert_eq!(err.first().unwrap().declared_at, Some(Place::at("model.toml", 3, 7)));
    /// ```
    pub fn at(mut self, at: Place) -> Self {
        if let PlanNode::Tensor { place, .. }
        | PlanNode::Tied { place, .. }
        | PlanNode::Group { place, .. } = &mut self
        {
            *place = Some(at);
        }
        self
    }

    /// A group of `children` under `prefix`, present once.
    ///
    /// ```
    /// let g = shapes::verify::PlanNode::group("mlp", vec![]);
    /// assert!(matches!(g, shapes::verify::PlanNode::Group { repeat: None, optional: false, .. }));
    /// ```
    pub fn group(prefix: impl Into<String>, children: Vec<PlanNode>) -> Self {
        PlanNode::Group {
            prefix: prefix.into(),
            repeat: None,
            optional: false,
            children,
            place: None,
        }
    }

    /// A tensor that may be absent because tied to `to` (a name under the same prefixes),
    /// the tie stated by the checkpoint key `key` when given: see [`PlanNode::Tied`].
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Plan, Shape, verify::PlanNode};
    /// let plan = Plan::build("Lm", &[
    ///     PlanNode::tensor("embed.weight", "(vocab, d_model)"),
    ///     PlanNode::tied("lm_head.weight", "(vocab, d_model)", "embed.weight", Some("tie_word_embeddings")),
    /// ], &[]).unwrap();
    /// let src = BTreeMap::from([("embed.weight".to_string(), Shape::from([100, 8]))]);
    /// let b = plan.verify_source(&src).unwrap();
    /// assert_eq!(b.tied()[0].to_string(), "lm_head.weight is tied to embed.weight (absent from the checkpoint)");
    /// ```
    pub fn tied(
        name: impl Into<String>,
        pattern: impl Into<String>,
        to: impl Into<String>,
        key: Option<&str>,
    ) -> Self {
        PlanNode::Tied {
            name: name.into(),
            pattern: pattern.into(),
            place: None,
            to: to.into(),
            key: key.map(str::to_owned),
        }
    }

    /// One of `alternatives`, the one the source holds most of checked in full: see
    /// [`PlanNode::Choice`]. A layer that must hold either a dense feed-forward or the
    /// tensors of a mixture of experts, and not a mix of the two:
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Plan, Shape, verify::PlanNode};
    /// let ffn = PlanNode::one_of(vec![
    ///     vec![PlanNode::tensor("up.weight", "(d_ff, d)"), PlanNode::tensor("down.weight", "(d, d_ff)")],
    ///     vec![PlanNode::tensor("up_exps.weight", "(e, d_ff, d)"), PlanNode::tensor("down_exps.weight", "(e, d, d_ff)")],
    /// ]);
    /// let plan = Plan::build("M", &[ffn], &[]).unwrap();
    /// let mut moe = BTreeMap::new();
    /// moe.insert("up_exps.weight".to_string(), Shape::from([8, 32, 4]));
    /// moe.insert("down_exps.weight".to_string(), Shape::from([8, 4, 32]));
    /// assert_eq!(plan.verify_source(&moe).unwrap().get("e"), Some(8));
    /// // Half of the experts' tensors: the other half is missing, not silently skipped.
    /// moe.remove("down_exps.weight");
    /// let err = plan.verify_source(&moe).unwrap_err();
    /// assert_eq!(err.missing_tensors(), ["down_exps.weight"]);
    /// ```
    pub fn one_of(alternatives: Vec<Vec<PlanNode>>) -> Self {
        PlanNode::Choice {
            alternatives,
            optional: false,
            leading: None,
        }
    }

    /// This choice with its first alternative taken by the elements of the enclosing
    /// repeated group whose index is below the value of `var`, when `var` is given before
    /// checking: see [`PlanNode::Choice`]. Other nodes are returned as they are.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Bindings, Plan, Shape, verify::{PlanNode, SourceOptions}};
    /// let mlp = PlanNode::one_of(vec![
    ///     vec![PlanNode::tensor("up.weight", "(d_ff, d)")],
    ///     vec![PlanNode::tensor("up_exps.weight", "(e, d_ff_exp, d)")],
    /// ])
    /// .leading("k_dense");
    /// let plan = Plan::build("M", &[PlanNode::group("layers", vec![mlp]).repeated(None)], &[]).unwrap();
    /// let mut src = BTreeMap::new();
    /// src.insert("layers.0.up.weight".to_string(), Shape::from([16, 4]));
    /// src.insert("layers.1.up.weight".to_string(), Shape::from([16, 4]));
    /// // One dense layer stated, two found: layer 1 should hold the experts.
    /// let opts = SourceOptions::new().bindings(Bindings::new().bind("k_dense", 1));
    /// let err = plan.verify_source_options(&src, opts).unwrap_err();
    /// assert_eq!(err.missing_tensors(), ["layers.1.up_exps.weight"]);
    /// ```
    pub fn leading(self, var: &str) -> Self {
        match self {
            PlanNode::Choice {
                alternatives,
                optional,
                ..
            } => PlanNode::Choice {
                alternatives,
                optional,
                leading: Some(var.to_owned()),
            },
            other => other,
        }
    }

    /// This group repeated as `prefix.0`, `prefix.1`, …, the count bound to `count` if given.
    /// A tensor becomes a group of one repeated tensor named by its own name. The source must
    /// hold at least one element (a wrong prefix would otherwise check nothing), unless the
    /// group is also [`optional`](Self::optional), and when `count` is given a value (by
    /// [`SourceOptions::bindings`](crate::verify::SourceOptions::bindings)), exactly that many.
    ///
    /// ```
    /// let g = shapes::verify::PlanNode::group("layers", vec![]).repeated(Some("n_layers"));
    /// assert!(matches!(g, shapes::verify::PlanNode::Group { repeat: Some(Some(_)), .. }));
    /// ```
    pub fn repeated(self, count: Option<&str>) -> Self {
        match self {
            PlanNode::Group {
                prefix,
                optional,
                children,
                place,
                ..
            } => PlanNode::Group {
                prefix,
                repeat: Some(count.map(str::to_owned)),
                optional,
                children,
                place,
            },
            PlanNode::Tensor {
                name,
                pattern,
                place,
            } => named_group(name, pattern, place).repeated(count),
            other @ (PlanNode::Tied { .. } | PlanNode::Choice { .. }) => {
                PlanNode::group("", vec![other]).repeated(count)
            }
        }
    }

    /// This node made optional: checked only when the source has something under its name.
    ///
    /// ```
    /// let t = shapes::verify::PlanNode::tensor("bias", "(d,)").optional();
    /// assert!(matches!(t, shapes::verify::PlanNode::Group { optional: true, .. }));
    /// ```
    pub fn optional(self) -> Self {
        match self {
            PlanNode::Group {
                prefix,
                repeat,
                children,
                place,
                ..
            } => PlanNode::Group {
                prefix,
                repeat,
                optional: true,
                children,
                place,
            },
            PlanNode::Tensor {
                name,
                pattern,
                place,
            } => named_group(name, pattern, place).optional(),
            // Optional already: absent is allowed when tied.
            tied @ PlanNode::Tied { .. } => tied,
            PlanNode::Choice {
                alternatives,
                leading,
                ..
            } => PlanNode::Choice {
                alternatives,
                optional: true,
                leading,
            },
        }
    }
}

/// A tensor as a group under its name holding the tensor unnamed: what a tensor made
/// [`repeated`](PlanNode::repeated) or [`optional`](PlanNode::optional) is.
fn named_group(name: String, pattern: String, place: Option<Place>) -> PlanNode {
    let tensor = PlanNode::Tensor {
        name: String::new(),
        pattern,
        place,
    };
    PlanNode::group(name, vec![tensor])
}
