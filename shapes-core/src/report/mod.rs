//! What a check of a checkpoint found, for a person and for CI: [`Report`], the one report the
//! library returns ([`Spec::check`](crate::Spec::check)) and the `shapes` command prints. Its
//! `Display` is bounded (at most [`MAX_SHOWN`] entries of each kind, repeated layers folded,
//! then a count of the rest) and its [`to_json`](Report::to_json) carries every entry.
//!
//! Also here: [`fold_by`], which folds names that differ only in list indices
//! (`layers.{0..29}.mlp.up_proj.weight`). Every name read from a file goes through
//! [`text::escape`](crate::text::escape) before it is printed.

mod json;
mod sarif;
mod text;

use crate::source::Checkpoint;
use crate::verify::{Bindings, ShapeErrors};

pub use self::json::{SCHEMA_VERSION, failure_json};
pub use self::sarif::failure_sarif;
pub use self::text::Paint;
pub use crate::verify::fold::{Folded, MAX_GROUPS, fold_by};

/// The most entries of each kind (mismatches, missing and unexpected names, hints) the text
/// of a report shows before counting the rest; [`Report::all`] shows everything.
pub const MAX_SHOWN: usize = 50;

/// A value given before checking: stated by the checkpoint, or given by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    /// The variable.
    pub var: String,
    /// Its value.
    pub value: usize,
    /// Where it came from: ``config `hidden_size` ``, ``metadata `llama.block_count` ``,
    /// `--set`.
    pub source: String,
    /// The keys the spec binds it from (empty for a value given by the caller).
    pub keys: Vec<String>,
}

/// A value the checkpoint states that the tensors contradict: checking without it passes,
/// with another value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The variable.
    pub var: String,
    /// The value stated.
    pub stated: usize,
    /// Where it is stated (``config `intermediate_size` ``).
    pub source: String,
    /// The value the tensors give.
    pub found: usize,
    /// The tensor that binds it when the stated value is left out.
    pub bound_by: String,
    /// How many errors the check with the stated value has.
    pub errors: usize,
    /// Whether the value was given by the caller (`--set`) rather than stated by the
    /// checkpoint: checking without it passes.
    pub by_caller: bool,
}

/// A tensor whose dtype is not one its spec allows (`dtype = ["BF16", "F16"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongDtype {
    /// The tensor.
    pub tensor: String,
    /// Its dtype in the checkpoint.
    pub dtype: String,
    /// The dtypes the spec allows it.
    pub allowed: Vec<String>,
}

/// What checking a checkpoint against a [`Spec`](crate::Spec) found: the checkpoint (its path, format and
/// tensor count), the spec, the values given before checking, the outcome, and the stated
/// values the tensors contradict, each named as the one cause of the mismatches it makes.
///
/// ```
/// use shapes::{Checkpoint, Spec};
/// # let npy = {
/// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
/// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
/// #     npy.extend((dict.len() as u16).to_le_bytes());
/// #     npy.extend(dict.as_bytes());
/// #     npy.extend([0u8; 24]);
/// #     npy
/// # };
/// let ckpt = Checkpoint::from_bytes(&npy)?;
/// let spec = Spec::from_toml("s.toml", "[tensors]\n\"array\" = \"(n, n)\"\n")?;
/// let report = spec.check(&ckpt);
/// assert!(!report.ok());
/// assert_eq!(report.to_string(), "\
/// <memory>: numpy .npy, 1 tensors
/// spec: Model (s.toml)
/// MISMATCH: 1 error
///
/// - Model.array (tensor \"array\"): axis 1 expected n = 2, found 3
///     n = 2 bound by Model.array axis 0
///     shape is (2, 3), pattern (n, n)
/// ");
/// assert_eq!(report.to_json()["errors"][0]["axis"], 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Report {
    source: String,
    format: String,
    tensors: usize,
    spec_name: String,
    spec_file: String,
    notes: Vec<String>,
    given: Vec<Given>,
    given_by: String,
    result: Result<Bindings, ShapeErrors>,
    disagreements: Vec<Disagreement>,
    dtypes: Vec<WrongDtype>,
    /// The variables bound from keys the checkpoint states none of, with the keys.
    not_found: Vec<(String, Vec<String>)>,
    all: bool,
    /// What was checked against what, in the verdict: `the checkpoint matches the spec`.
    pub(crate) matches: &'static str,
    /// The file config keys are read from, when not config.json: `adapter_config.json`.
    pub(crate) config_file: Option<&'static str>,
    /// Whether the places of the spec's patterns are in a file read from disk, which the text
    /// and SARIF then point at (JSON carries them whatever their file).
    places: bool,
}

impl Report {
    /// The report of checking `ckpt` against the spec named `spec` (its name, its file, and
    /// its notes on which checks ran).
    pub(crate) fn new(
        ckpt: &Checkpoint,
        spec: (&str, &str, &[String]),
        given: Vec<Given>,
        result: Result<Bindings, ShapeErrors>,
        disagreements: Vec<Disagreement>,
        given_by: &str,
    ) -> Report {
        Report {
            source: ckpt.path().display().to_string(),
            format: ckpt.format_and_files(),
            tensors: ckpt.tensors().len(),
            spec_name: spec.0.to_owned(),
            spec_file: spec.1.to_owned(),
            notes: spec.2.to_vec(),
            given,
            given_by: given_by.to_owned(),
            result,
            disagreements,
            dtypes: Vec::new(),
            not_found: Vec::new(),
            all: false,
            matches: "the checkpoint matches the spec",
            config_file: None,
            places: false,
        }
    }

    /// This report with the places of its errors' patterns in a file read from disk
    /// (`places`): its text names them (`declared at llama.toml:14:28`) and its SARIF points
    /// at them.
    pub(crate) fn with_places(mut self, places: bool) -> Report {
        self.places = places;
        self
    }

    /// The verdict's words and the file config keys come from, for a report that is not of
    /// a checkpoint against a spec (an adapter against its base).
    pub(crate) fn with_words(mut self, matches: &'static str, config_file: &'static str) -> Report {
        self.matches = matches;
        self.config_file = Some(config_file);
        self
    }

    pub(crate) fn with_dtypes(mut self, dtypes: Vec<WrongDtype>) -> Report {
        self.dtypes = dtypes;
        self
    }

    pub(crate) fn with_not_found(mut self, not_found: Vec<(String, Vec<String>)>) -> Report {
        self.not_found = not_found;
        self
    }

    /// How the report's errors are worded: in the command's words (`--set` for a value given
    /// before checking, spec-file advice).
    pub(crate) fn words(&self) -> crate::verify::ErrorWords<'_> {
        crate::verify::ErrorWords {
            caller: &self.given_by,
            absent_list: "mark its tensors `optional = true` in the spec; or check that the spec (--spec, --arch) is the one for this checkpoint",
            give: if self.given_by.starts_with("--") {
                crate::verify::Give::Flag(&self.given_by)
            } else {
                crate::verify::Give::CheckOptions
            },
            declared: false,
        }
    }

    /// An error's text in the report's words: for the text (`declared`), with the line that
    /// names where its pattern is declared in a spec file read from disk; without for JSON
    /// and SARIF, which carry the place as data.
    pub(crate) fn error_text(&self, e: &crate::verify::ShapeError, declared: bool) -> String {
        let words = crate::verify::ErrorWords {
            declared: declared && self.places,
            ..self.words()
        };
        crate::verify::InWords(e, &words).to_string()
    }

    /// The source's tensors the spec does not describe that a non-strict check allowed:
    /// warnings, sorted.
    ///
    /// ```
    /// # let ckpt = shapes::Checkpoint::from_bytes(&{
    /// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    /// #     npy.extend((dict.len() as u16).to_le_bytes());
    /// #     npy.extend(dict.as_bytes());
    /// #     npy.extend([0u8; 8]);
    /// #     npy
    /// # })?;
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"other\" = { shape = \"(n,)\", optional = true }\n")?;
    /// let report = spec.check_with(&ckpt, &shapes::CheckOptions::new().strict(false))?;
    /// assert!(report.ok());
    /// assert_eq!(report.warnings(), ["array"]);
    /// assert!(report.to_string().contains("warning: 1 tensor the spec does not describe"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn warnings(&self) -> &[String] {
        match &self.result {
            Ok(b) => b.allowed_unexpected(),
            Err(e) => e.allowed_unexpected(),
        }
    }

    /// The variables the spec binds from config keys that the checkpoint states none of,
    /// each with the keys looked up: they are checked by the tensors alone.
    ///
    /// ```
    /// # let ckpt = shapes::Checkpoint::from_bytes(&{
    /// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    /// #     npy.extend((dict.len() as u16).to_le_bytes());
    /// #     npy.extend(dict.as_bytes());
    /// #     npy.extend([0u8; 8]);
    /// #     npy
    /// # })?;
    /// let spec = shapes::Spec::from_toml("s.toml", "[config]\nn = \"width\"\n[tensors]\n\"array\" = \"(n,)\"\n")?;
    /// let report = spec.check(&ckpt);
    /// assert_eq!(report.not_found(), [("n".to_string(), vec!["width".to_string()])]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn not_found(&self) -> &[(String, Vec<String>)] {
        &self.not_found
    }

    /// The same report, whose text shows every entry (`shapes check --all`) instead of at
    /// most [`MAX_SHOWN`] of each kind.
    ///
    /// ```
    /// # let ckpt = shapes::Checkpoint::from_bytes(&{
    /// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    /// #     npy.extend((dict.len() as u16).to_le_bytes());
    /// #     npy.extend(dict.as_bytes());
    /// #     npy.extend([0u8; 8]);
    /// #     npy
    /// # })?;
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"array\" = \"(n,)\"\n")?;
    /// let report = spec.check(&ckpt).all(true);
    /// assert!(report.ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn all(mut self, all: bool) -> Report {
        self.all = all;
        self
    }

    /// Whether the checkpoint matches the spec: every shape, and every dtype the spec states.
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("model.gguf")?;
    /// let ok = shapes::Spec::for_checkpoint(&ckpt)?.check(&ckpt).ok();
    /// # let _ = ok;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ok(&self) -> bool {
        self.result.is_ok() && self.dtypes.is_empty()
    }

    /// The tensors whose dtype the spec does not allow.
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("model.safetensors")?;
    /// let report = shapes::Spec::for_checkpoint(&ckpt)?.check(&ckpt);
    /// for w in report.wrong_dtypes() { println!("{}: {} (allowed: {:?})", w.tensor, w.dtype, w.allowed); }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wrong_dtypes(&self) -> &[WrongDtype] {
        &self.dtypes
    }

    /// The bindings, when the checkpoint's shapes match.
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("model.gguf")?;
    /// let report = shapes::Spec::for_checkpoint(&ckpt)?.check(&ckpt);
    /// println!("{:?}", report.bindings().and_then(|b| b.get("d_model")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bindings(&self) -> Option<&Bindings> {
        self.result.as_ref().ok()
    }

    /// The errors, when it does not.
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("model.gguf")?;
    /// let report = shapes::Spec::for_checkpoint(&ckpt)?.check(&ckpt);
    /// println!("{}", report.errors().map_or(0, |e| e.len()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn errors(&self) -> Option<&ShapeErrors> {
        self.result.as_ref().err()
    }

    /// The values given before checking, stated by the checkpoint or by the caller.
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("model.gguf")?;
    /// let report = shapes::Spec::for_checkpoint(&ckpt)?.check(&ckpt);
    /// for g in report.given() { println!("{} = {} from {}", g.var, g.value, g.source); }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn given(&self) -> &[Given] {
        &self.given
    }

    /// What the spec says about the checks (for the generic checks of an architecture no
    /// spec describes: that it is not recognised, and which checks ran).
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("model.gguf")?;
    /// if let Some(spec) = shapes::Spec::generic(&ckpt) {
    ///     for n in spec.check(&ckpt).notes() { println!("{n}"); }
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The stated values the tensors contradict.
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("model.gguf")?;
    /// let report = shapes::Spec::for_checkpoint(&ckpt)?.check(&ckpt);
    /// for d in report.disagreements() { println!("{} is stated {}, found {}", d.var, d.stated, d.found); }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disagreements(&self) -> &[Disagreement] {
        &self.disagreements
    }
}
