//! [`PlanNode`]: what a spec describes, before it is compiled into a [`Plan`](super::Plan).

/// One node of a [`Plan`](super::Plan), as a spec describes it.
///
/// ```
/// use shapes::PlanNode;
/// let layer = PlanNode::group("attn", vec![PlanNode::tensor("q.weight", "(d_model, d_model)")]);
/// let model = vec![
///     PlanNode::tensor("embed.weight", "(vocab, d_model)"),
///     PlanNode::group("layers", vec![layer]).repeated(Some("n_layers")),
/// ];
/// assert_eq!(model.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanNode {
    /// A tensor: its name (under the enclosing prefixes) and its pattern.
    Tensor {
        /// The name in the source, joined to the enclosing prefixes with `.`.
        name: String,
        /// The pattern, in the shape language: `(d_model, heads * head_dim)`.
        pattern: String,
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
        /// The tensor it is tied to, under the same enclosing prefixes.
        to: String,
        /// The checkpoint key that states whether the tie is on (`tie_word_embeddings`).
        key: Option<String>,
    },
}

impl PlanNode {
    /// A tensor named `name` whose shape matches `pattern`.
    ///
    /// ```
    /// let t = shapes::PlanNode::tensor("w", "(a, b)");
    /// assert!(matches!(t, shapes::PlanNode::Tensor { .. }));
    /// ```
    pub fn tensor(name: impl Into<String>, pattern: impl Into<String>) -> Self {
        PlanNode::Tensor {
            name: name.into(),
            pattern: pattern.into(),
        }
    }

    /// A group of `children` under `prefix`, present once.
    ///
    /// ```
    /// let g = shapes::PlanNode::group("mlp", vec![]);
    /// assert!(matches!(g, shapes::PlanNode::Group { repeat: None, optional: false, .. }));
    /// ```
    pub fn group(prefix: impl Into<String>, children: Vec<PlanNode>) -> Self {
        PlanNode::Group {
            prefix: prefix.into(),
            repeat: None,
            optional: false,
            children,
        }
    }

    /// A tensor that may be absent because tied to `to` (a name under the same prefixes),
    /// the tie stated by the checkpoint key `key` when given: see [`PlanNode::Tied`].
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Plan, PlanNode, Shape};
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
            to: to.into(),
            key: key.map(str::to_owned),
        }
    }

    /// This group repeated as `prefix.0`, `prefix.1`, …, the count bound to `count` if given.
    /// A tensor becomes a group of one repeated tensor named by its own name. The source must
    /// hold at least one element (a wrong prefix would otherwise check nothing), unless the
    /// group is also [`optional`](Self::optional), and when `count` is given a value (by
    /// [`SourceOptions::bindings`](crate::SourceOptions::bindings)), exactly that many.
    ///
    /// ```
    /// let g = shapes::PlanNode::group("layers", vec![]).repeated(Some("n_layers"));
    /// assert!(matches!(g, shapes::PlanNode::Group { repeat: Some(Some(_)), .. }));
    /// ```
    pub fn repeated(self, count: Option<&str>) -> Self {
        let count = Some(count.map(str::to_owned));
        match self {
            PlanNode::Group {
                prefix,
                optional,
                children,
                ..
            } => PlanNode::Group {
                prefix,
                repeat: count,
                optional,
                children,
            },
            PlanNode::Tensor { name, pattern } => PlanNode::Group {
                prefix: name,
                repeat: count,
                optional: false,
                children: vec![PlanNode::tensor("", pattern)],
            },
            tied @ PlanNode::Tied { .. } => PlanNode::Group {
                prefix: String::new(),
                repeat: count,
                optional: false,
                children: vec![tied],
            },
        }
    }

    /// This node made optional: checked only when the source has something under its name.
    ///
    /// ```
    /// let t = shapes::PlanNode::tensor("bias", "(d,)").optional();
    /// assert!(matches!(t, shapes::PlanNode::Group { optional: true, .. }));
    /// ```
    pub fn optional(self) -> Self {
        match self {
            PlanNode::Group {
                prefix,
                repeat,
                children,
                ..
            } => PlanNode::Group {
                prefix,
                repeat,
                optional: true,
                children,
            },
            PlanNode::Tensor { name, pattern } => PlanNode::Group {
                prefix: name,
                repeat: None,
                optional: true,
                children: vec![PlanNode::tensor("", pattern)],
            },
            // Optional already: absent is allowed when tied.
            tied @ PlanNode::Tied { .. } => tied,
        }
    }
}
