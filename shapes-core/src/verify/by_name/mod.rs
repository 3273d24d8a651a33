//! Checking by name: [`SourceCx`], the source side of `verify_source` (the same checker as
//! `verify()`, with shapes read by name from a [`ShapeSource`], a checkpoint header, instead of
//! from field values), and its [`SourceOptions`].
//!
//! The derive generates `check_source_in`, which walks the struct's fields like `check_in` but
//! asks a [`SourceCx`] for each tensor by its checkpoint name: the field's name (or its
//! `name = "…"`), under the prefixes of the nested structs it sits in (joined with `.`), with
//! list elements numbered `prefix.0`, `prefix.1`, …. The `SourceCx` also remembers which
//! tensors were asked for, so that what the struct does not describe can be reported the way
//! PyTorch's `load_state_dict(strict=True)` does: missing keys, unexpected keys, and the shape
//! mismatches.

mod torch_layout;

use std::collections::HashMap;

pub use self::torch_layout::TorchLayout;

use super::bindings::{Bindings, Tie};
use super::checker::Checker;
use super::error::{ShapeError, ShapeErrorDetails, ShapeErrorKind, ShapeErrors};
use super::path::{FieldPath, Origin};
use super::plan::Place;
use super::vars::Slot;
use crate::source::{ConfigValue, ShapeSource};

/// A variable bound from the first of `keys` that a checkpoint states (its `config.json`, its
/// metadata): what `#[shapes(config(d_model = "hidden_size | {arch}.embedding_length"))]` and
/// [`Plan::bind_from`](crate::Plan::bind_from) declare. `{arch}` in a key stands for the
/// checkpoint's architecture (GGUF `general.architecture`, `model_type` in a config).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigKey {
    /// The variable.
    pub var: &'static str,
    /// The keys, tried in order.
    pub keys: &'static [&'static str],
}

/// `keys` (a nested struct's config keys) with their variables renamed into the scope of the
/// struct that holds it (`rename(inner = "outer")` pairs): what a derived struct's
/// `config_keys` does for each nested field in its scope.
#[doc(hidden)]
pub fn rename_config(keys: &mut [ConfigKey], renames: &[(&'static str, &'static str)]) {
    for k in keys {
        k.var = super::vars::rename(k.var, renames);
    }
}

/// `pre` with every variable of `keys` that `pre` leaves unbound bound to the value `src`
/// states under the first of its keys it has, with the key as the origin. A key whose value
/// is not a size is an error about the struct `root`, and so is a variable none of whose
/// keys `src` states while it states a key a slip away from one of them (a misspelt key,
/// which would leave the variable unchecked against the config): both before any tensor is
/// checked.
pub(crate) fn stated(
    pre: &Bindings,
    keys: &[(ConfigKey, Place)],
    src: &dyn ShapeSource,
    root: &'static str,
) -> Result<Bindings, ShapeErrors> {
    let mut out = pre.clone();
    let mut errors = Vec::new();
    // An error about a key names where it is declared.
    let error = |place: Place, kind| {
        let mut e = ShapeErrorDetails::new(FieldPath::new(root, &[]), kind);
        e.declared_at = place.is_known().then_some(place);
        ShapeError::from(e)
    };
    for (k, place) in keys {
        if pre.value(k.var).is_some() {
            continue;
        }
        let Some(entry) = k.keys.iter().find_map(|key| src.config(key)) else {
            let near = k
                .keys
                .iter()
                .find_map(|key| Some((*key, src.config_near(key)?)));
            if let Some((key, near)) = near {
                let kind = ShapeErrorKind::ConfigKey {
                    variable: k.var.to_owned(),
                    key: key.to_owned(),
                    near,
                };
                errors.push(error(*place, kind));
            }
            continue;
        };
        match entry.value {
            ConfigValue::Size(n) => {
                out = out.bind_from(k.var, n, Origin::stated(entry.place, &entry.key));
            }
            _ => errors.push(error(
                *place,
                ShapeErrorKind::Source {
                    detail: format!("{entry}, which should state `{}`, is not a size", k.var),
                },
            )),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(ShapeErrors::from(errors))
    }
}

/// How `verify_source_options` treats the checkpoint: pre-bound values, whether tensors the
/// struct does not describe are errors, and which tensors to ignore.
///
/// ```
/// use shapes::{Bindings, verify::SourceOptions};
/// let opts = SourceOptions::new().bindings(Bindings::new().bind("heads", 12)).strict(false);
/// assert!(!opts.is_strict());
/// assert_eq!(opts.pre().get("heads"), Some(12));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceOptions {
    pre: Bindings,
    strict: bool,
    ignore: Vec<String>,
}

impl Default for SourceOptions {
    fn default() -> Self {
        SourceOptions {
            pre: Bindings::new(),
            strict: true,
            ignore: Vec::new(),
        }
    }
}

impl SourceOptions {
    /// Strict (unexpected tensors are errors), nothing pre-bound.
    ///
    /// ```
    /// assert!(shapes::verify::SourceOptions::new().is_strict());
    /// ```
    pub fn new() -> Self {
        SourceOptions::default()
    }

    /// With `strict` false, tensors in the source that the struct does not describe are
    /// allowed (PyTorch's `strict=False`): not errors, but still reported, as warnings
    /// ([`Bindings::allowed_unexpected`], [`ShapeErrors::allowed_unexpected`]). Missing
    /// tensors and mismatches are still errors. To leave known extra tensors out of both,
    /// [`ignore`](Self::ignore) them.
    ///
    /// ```
    /// assert!(!shapes::verify::SourceOptions::new().strict(false).is_strict());
    /// ```
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Tensors of the source that the struct does not describe and that are neither errors
    /// nor warnings: globs over the full names, where `*` matches any run of characters
    /// (dots included) and `?` one character (Hugging Face's
    /// `_keys_to_ignore_on_load_unexpected`). Strictness stays on for every other tensor.
    /// Adds to the globs given before, and to the struct's own
    /// (`#[shapes(ignore = "…")]`).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Shape, Shaped, verify::SourceOptions};
    ///
    /// #[derive(Shaped)]
    /// struct Linear { #[shape("(d_out, d_in)")] weight: Shape }
    ///
    /// let src = HashMap::from([
    ///     ("weight".to_string(), Shape::from([4, 3])),
    ///     ("position_ids".to_string(), Shape::from([1, 512])),
    ///     ("scale".to_string(), Shape::from([4])),
    /// ]);
    /// let e = Linear::verify_source_options(&src, SourceOptions::new().ignore(["position_ids"])).unwrap_err();
    /// assert_eq!(e.unexpected_tensors(), ["scale"]);
    /// assert!(Linear::verify_source_options(&src, SourceOptions::new().ignore(["position_ids", "sc?le"])).is_ok());
    /// ```
    pub fn ignore<I, S>(mut self, globs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.ignore.extend(globs.into_iter().map(Into::into));
        self
    }

    /// The globs of the tensors ignored.
    ///
    /// ```
    /// assert_eq!(shapes::verify::SourceOptions::new().ignore(["pooler.*"]).ignored(), ["pooler.*"]);
    /// ```
    pub fn ignored(&self) -> &[String] {
        &self.ignore
    }

    /// Values bound before verifying (from a config), as in `verify_with`.
    ///
    /// ```
    /// let o = shapes::verify::SourceOptions::new().bindings(shapes::Bindings::new().bind("d", 4));
    /// assert_eq!(o.pre().get("d"), Some(4));
    /// ```
    pub fn bindings(mut self, pre: Bindings) -> Self {
        self.pre = pre;
        self
    }

    /// Whether unexpected tensors are errors.
    ///
    /// ```
    /// assert!(shapes::verify::SourceOptions::default().is_strict());
    /// ```
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// The pre-bound values.
    ///
    /// ```
    /// assert!(shapes::verify::SourceOptions::new().pre().is_empty());
    /// ```
    pub fn pre(&self) -> &Bindings {
        &self.pre
    }
}

/// The number of names above which a source's names are hashed for [`SourceCx::tensor`].
const HASHED_FROM: usize = 256;

/// The source side of one `verify_source` run: the source, the current name prefix, and which
/// tensors were asked for. Generated code drives it; not a public API.
pub struct SourceCx<'s> {
    pub(super) src: &'s dyn ShapeSource,
    /// The source's names, sorted, so prefixes are ranges.
    names: Vec<&'s str>,
    /// Whether `names[i]` was asked for by the struct.
    used: Vec<bool>,
    /// Each name's index in `names`, for a source of more than [`HASHED_FROM`] names: a
    /// binary search compares long shared prefixes (`model.layers.…`) many times over.
    index: HashMap<&'s str, usize>,
    /// The current name: the prefixes joined with `.`.
    prefix: String,
    /// The tensors asked for whose PyTorch layout differs, by full name.
    pub(super) torch: std::collections::BTreeMap<String, TorchLayout>,
    /// The globs of the tensors to ignore that the structs checked registered, each under
    /// the name the struct was read at ([`ignore_here`](Self::ignore_here)).
    ignored: Vec<String>,
}

impl<'s> SourceCx<'s> {
    pub(crate) fn new(src: &'s dyn ShapeSource) -> Self {
        let names = crate::source::sorted_names(src);
        let used = vec![false; names.len()];
        let index = if names.len() > HASHED_FROM {
            names.iter().enumerate().map(|(i, n)| (*n, i)).collect()
        } else {
            HashMap::new()
        };
        SourceCx {
            src,
            names,
            used,
            index,
            prefix: String::new(),
            torch: Default::default(),
            ignored: Vec::new(),
        }
    }

    /// The source being read.
    pub(crate) fn source(&self) -> &'s dyn ShapeSource {
        self.src
    }

    /// Registers a struct's `#[shapes(ignore = "…")]` globs, which are about the names under
    /// the struct: under the current name (a nested struct's prefix) when there is one.
    pub fn ignore_here(&mut self, globs: &'static [&'static str]) {
        for g in globs {
            let glob = if self.prefix.is_empty() {
                (*g).to_owned()
            } else {
                format!("{}.{g}", self.prefix)
            };
            if !self.ignored.contains(&glob) {
                self.ignored.push(glob);
            }
        }
    }

    /// Notes that the tensor named by the current name is saved by PyTorch as `torch` says.
    #[inline]
    pub fn note_torch(&mut self, torch: TorchLayout) {
        if torch != TorchLayout::Same && !self.torch.contains_key(&self.prefix) {
            self.torch.insert(self.prefix.clone(), torch);
        }
    }

    /// Appends a name part (`encoder`, `attention.self.query.weight`) to the current name;
    /// returns the mark that [`pop`](Self::pop) restores. An empty part adds nothing.
    ///
    /// Out of line, like `push_index` and `pop`: derived `check_source_in` calls them at
    /// every nested field, and inlined, `String`'s growth and char-boundary checks were most
    /// of that function's code.
    #[inline(never)]
    pub fn push(&mut self, part: &str) -> usize {
        let mark = self.prefix.len();
        if !part.is_empty() {
            if !self.prefix.is_empty() {
                self.prefix.push('.');
            }
            self.prefix.push_str(part);
        }
        mark
    }

    /// Appends a list index: `encoder.layer` becomes `encoder.layer.3`.
    #[inline(never)]
    pub fn push_index(&mut self, index: usize) -> usize {
        use std::fmt::Write;
        let mark = self.prefix.len();
        if !self.prefix.is_empty() {
            self.prefix.push('.');
        }
        // Writing to a String cannot fail.
        let _ = write!(self.prefix, "{index}");
        mark
    }

    /// Restores the name to what it was at `mark`.
    #[inline(never)]
    pub fn pop(&mut self, mark: usize) {
        self.prefix.truncate(mark);
    }

    /// The sorted names that start with `start`.
    fn range(&self, start: &str) -> std::ops::Range<usize> {
        let from = self.names.partition_point(|n| *n < start);
        // ok: `partition_point` returns at most `self.names.len()`.
        let len = self.names[from..]
            .iter()
            .take_while(|n| n.starts_with(start))
            .count();
        from..from + len
    }

    /// The shape of the tensor named by the current name, marking it as used; a missing
    /// tensor is an error on the current field.
    #[inline]
    pub fn tensor(&mut self, cx: &mut Checker) -> Option<&'s [usize]> {
        match self.src.shape_of(&self.prefix) {
            Some(dims) => {
                let at = if self.index.is_empty() {
                    self.names.binary_search(&self.prefix.as_str()).ok()
                } else {
                    self.index.get(self.prefix.as_str()).copied()
                };
                if let Some(i) = at {
                    self.used[i] = true; // ok: `used` has one flag per name (made together).
                }
                Some(dims)
            }
            None => {
                let name = &self.prefix;
                cx.source_error(|| ShapeErrorKind::Missing {
                    tensor: name.clone(),
                    suggestion: None,
                });
                None
            }
        }
    }

    /// Whether the source has the tensor named by the current name or any tensor under it
    /// (`name.…`): how an `Option` field is told to be `Some`.
    pub fn present(&self) -> bool {
        if self.prefix.is_empty() {
            return !self.names.is_empty();
        }
        // ok: `range` yields indices into `self.names`.
        self.range(&self.prefix).any(|i| {
            self.names[i]
                .get(self.prefix.len()..)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    }

    /// The number of list elements under the current name: the length of the run `name.0`,
    /// `name.1`, … for which some tensor exists (`name.{i}` itself, or `name.{i}.…`). Later
    /// indices after a gap are reported as an error on the current field, and so are fewer
    /// than `min` elements (a prefix that matches nothing is then named, with the closest
    /// name the source has in its place).
    pub fn count(&mut self, cx: &mut Checker, min: usize) -> usize {
        let mut indices: Vec<usize> = Vec::new();
        let start = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}.", self.prefix)
        };
        let range = self.range(&start);
        let mut i = range.start;
        let mut run = String::new();
        while i < range.end {
            // ok: `i` is within `range`, over `self.names`, and that name starts with
            // `start`, so `start.len()` is a char boundary within it.
            let rest = &self.names[i][start.len()..];
            let digits = rest.split('.').next().unwrap_or("");
            // Only canonical indices: `3`, not `03` or `+3`.
            let canonical = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits == "0" || !digits.starts_with('0'));
            if let (true, Ok(index)) = (canonical, digits.parse::<usize>()) {
                indices.push(index);
            }
            // The names under `start` + `digits` + `.` are the next ones (sorted), with at
            // most some whose part goes on past `digits` with a character before `.` (not
            // an index): all below `start` + `digits` + `/` (`/` follows `.`), skipped in one
            // search, so a list costs its length, not the number of tensors in it.
            run.clear();
            run.push_str(&start);
            run.push_str(digits);
            run.push('/');
            // ok: `i < range.end <= self.names.len()`.
            let after = self.names[i + 1..range.end].partition_point(|n| *n < run.as_str());
            i = i + 1 + after;
        }
        indices.sort_unstable();
        indices.dedup();
        let mut n = 0;
        while indices.get(n) == Some(&n) {
            n += 1;
        }
        if n < indices.len() {
            let prefix = &self.prefix;
            let later = &indices[n..]; // ok: `n < indices.len()`, checked just above.
            cx.source_error(|| ShapeErrorKind::Gap {
                prefix: prefix.clone(),
                index: n,
                later: later.to_vec(),
            });
        }
        if n < min {
            cx.source_error(|| ShapeErrorKind::Count {
                prefix: self.prefix.clone(),
                expected: min,
                at_least: true,
                variable: None,
                found: n,
                suggestion: if n == 0 { self.near_prefix() } else { None },
            });
        }
        n
    }

    /// The name the source has in the current name's place (same parent, last part within a
    /// typo's distance), when the current name has nothing under it: `encoder.layer` for
    /// `encoder.layers`.
    fn near_prefix(&self) -> Option<String> {
        let (parent, last) = match self.prefix.rfind('.') {
            Some(dot) => (self.prefix.get(..=dot)?, self.prefix.get(dot + 1..)?),
            None => ("", self.prefix.as_str()),
        };
        // ok: `range` yields indices into `self.names`.
        let mut parts: Vec<&str> = self
            .range(parent)
            .filter_map(|i| self.names[i].get(parent.len()..)?.split('.').next())
            .filter(|p| !p.is_empty() && *p != last)
            .collect();
        // Sorted names put equal parts side by side; a bounded number of distinct ones is
        // compared (an error path, but a hostile source can have millions).
        parts.dedup();
        parts.truncate(MAX_NEAR_PARTS);
        let best = super::suggest::closest(last, &parts)?;
        Some(format!("{parent}{best}"))
    }

    /// Binds the list length `n` to the variable at `slot` (a `count = "…"` attribute), with
    /// the current field as its origin; when the variable already has a value (given by the
    /// caller or bound by a field), `n` must be that value, and a list with more or fewer
    /// elements is reported with the elements missing.
    pub fn bind_count(&mut self, cx: &mut Checker, slot: Slot, n: usize) {
        cx.count(slot, n, &self.prefix);
    }

    /// For a tensor that is absent from the source but declared tied to `to` (a name under
    /// the prefix that was current at `parent`, a [`prefix_mark`](Self::prefix_mark)), whose
    /// tie the source may state under `key` (`tie_word_embeddings`): decides whether the
    /// absence is allowed.
    ///
    /// When the source states the tie is off (`false` or `0`), records an error and returns
    /// `false`. When `to` is absent too, records the tensor as missing and returns `false`.
    /// Otherwise records the tie in the bindings, makes `to` the current name (the caller's
    /// [`pop`](Self::pop) restores it) and returns `true`: the caller then checks the absent
    /// tensor's pattern against the shape of the one it shares.
    pub fn tie(&mut self, cx: &mut Checker, parent: usize, to: &str, key: Option<&str>) -> bool {
        let stated = key.and_then(|k| self.src.config(k));
        let untied = matches!(
            stated.as_ref().map(|e| &e.value),
            Some(ConfigValue::Bool(false) | ConfigValue::Size(0))
        );
        let tensor = self.prefix.clone();
        self.prefix.truncate(parent);
        self.push(to);
        let target = self.prefix.clone();
        if untied {
            let stated = stated.map(|e| e.to_string()).unwrap_or_default();
            cx.source_error(|| ShapeErrorKind::Untied {
                tensor,
                to: target,
                stated,
            });
            return false;
        }
        if self.src.shape_of(&target).is_none() {
            cx.source_error(|| ShapeErrorKind::Missing {
                tensor,
                suggestion: None,
            });
            return false;
        }
        cx.note_tie(Tie {
            tensor,
            to: target,
            stated,
        });
        true
    }

    /// The error count before a tensor's checks (see [`tag`](Self::tag)).
    #[inline]
    pub fn mark(&self, cx: &Checker) -> usize {
        cx.error_count()
    }

    /// Names the current tensor in every dim error recorded since `start`.
    #[inline]
    pub fn tag(&self, cx: &mut Checker, start: usize) {
        if cx.error_count() > start {
            self.tag_cold(cx, start);
        }
    }

    #[cold]
    #[inline(never)]
    fn tag_cold(&self, cx: &mut Checker, start: usize) {
        for e in cx.errors_since(start) {
            if e.tensor.is_none() && !matches!(e.kind, ShapeErrorKind::Missing { .. }) {
                e.tensor = Some(self.prefix.clone());
            }
        }
    }

    /// The outcome of checking the struct (or plan) `root` against this source: `result`,
    /// with the source's tensors nobody asked for and no glob of `ignore` matches (PyTorch's
    /// "unexpected keys") an error listing them when `strict`, and warnings otherwise.
    pub(crate) fn report(
        &self,
        root: &'static str,
        result: Result<Bindings, Vec<ShapeError>>,
        strict: bool,
        ignore: &[&str],
    ) -> Result<Bindings, ShapeErrors> {
        let mut result = result;
        let mut ignore = ignore.to_vec();
        ignore.extend(self.ignored.iter().map(String::as_str));
        let unexpected = self.unexpected(&ignore);
        if let Err(errors) = &mut result {
            suggest_for_missing(errors, &unexpected);
        }
        if !strict {
            return match result {
                Ok(mut b) => {
                    b.set_allowed_unexpected(unexpected);
                    Ok(b)
                }
                Err(errors) => Err(ShapeErrors::from(errors).with_allowed_unexpected(unexpected)),
            };
        }
        if unexpected.is_empty() {
            return result.map_err(ShapeErrors::from);
        }
        let error = ShapeErrorDetails::new(
            FieldPath::new(root, &[]),
            ShapeErrorKind::Unexpected {
                tensors: unexpected,
            },
        );
        let mut errors = result.err().unwrap_or_default();
        errors.push(error.into());
        Err(ShapeErrors::from(errors))
    }

    /// The current name's length, which [`pop`](Self::pop) restores.
    pub fn prefix_mark(&self) -> usize {
        self.prefix.len()
    }

    /// How many names [`unexpected`](Self::unexpected) lists, without listing them.
    #[cfg(feature = "spec")]
    pub(crate) fn unexpected_count(&self, ignore: &[&str]) -> usize {
        let mut ignore = ignore.to_vec();
        ignore.extend(self.ignored.iter().map(String::as_str));
        (self.names.iter().zip(&self.used))
            .filter(|(n, used)| !**used && !super::glob::ignored(&ignore, n))
            .count()
    }

    /// The names nobody asked for and no glob of `ignore` matches, in sorted order.
    fn unexpected(&self, ignore: &[&str]) -> Vec<String> {
        self.names
            .iter()
            .zip(&self.used)
            .filter(|(n, used)| !**used && !super::glob::ignored(ignore, n))
            .map(|(n, _)| (*n).to_owned())
            .collect()
    }
}

/// The most distinct names compared with a list prefix that matches nothing.
const MAX_NEAR_PARTS: usize = 4_096;

/// The most missing tensors given a "did you mean", and the most names each is compared with:
/// a report about a hostile checkpoint stays linear in its size.
const MAX_SUGGESTED: usize = 1_000;
const MAX_CANDIDATES: usize = 64;

/// The last two parts of a name (`mlp.up_proj.weight` → `up_proj.weight`), the key that finds a
/// tensor under a wrong prefix.
fn tail(name: &str) -> &str {
    let mut dots = name.rmatch_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next()) {
        (Some(_), Some(i)) => name.get(i + 1..).unwrap_or(name),
        _ => name,
    }
}

/// Gives each missing tensor the closest of the `unexpected` names (sorted) that is in the same
/// place (same parent, a renamed key) or ends the same way (a wrong prefix), if one is close.
fn suggest_for_missing(errors: &mut [ShapeError], unexpected: &[String]) {
    if unexpected.is_empty() {
        return;
    }
    let mut by_tail: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for u in unexpected {
        let same = by_tail.entry(tail(u)).or_default();
        if same.len() < MAX_CANDIDATES {
            same.push(u);
        }
    }
    let missing = errors.iter_mut().filter_map(|e| match &mut e.kind {
        ShapeErrorKind::Missing { tensor, suggestion } => Some((tensor, suggestion)),
        _ => None,
    });
    for (tensor, suggestion) in missing.take(MAX_SUGGESTED) {
        // The names under the same parent (a renamed key), then under the grandparent (a
        // renamed module: `model.norm.weight` saved as `model.nrm.weight`), each a bounded
        // run of the sorted names.
        let parent = tensor
            .rfind('.')
            .map_or("", |i| tensor.get(..=i).unwrap_or(""));
        let grandparent = parent
            .strip_suffix('.')
            .and_then(|p| p.rfind('.'))
            .map_or("", |i| tensor.get(..=i).unwrap_or(""));
        let mut candidates: Vec<&str> = Vec::new();
        let prefixes = if grandparent == parent {
            &[parent][..]
        } else {
            &[parent, grandparent][..]
        };
        for prefix in prefixes {
            let from = unexpected.partition_point(|u| u.as_str() < *prefix);
            candidates.extend(
                unexpected
                    .get(from..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|u| u.starts_with(prefix))
                    .take(MAX_CANDIDATES)
                    .map(String::as_str),
            );
        }
        if let Some(same) = by_tail.get(tail(tensor)) {
            candidates.extend(same);
        }
        *suggestion = super::suggest::closest(tensor, &candidates);
    }
}
