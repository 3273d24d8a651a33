//! PEFT LoRA adapters checked against their base checkpoint before anything is loaded:
//! [`Adapter::open`] reads a directory's `adapter_config.json` and the header of its
//! `adapter_model.safetensors` (or `.bin`), and [`Adapter::check`] holds every adapter tensor
//! to its base layer and rank, every module `target_modules` names to its pair of tensors,
//! and every adapted module to the base, into the one [`Report`] the `shapes` command prints
//! (text, JSON, SARIF).
//!
//! PEFT saves `base_model.model.<module>.lora_A.weight` as `(r, in_features)` and
//! `….lora_B.weight` as `(out_features, r)` for a base weight `<module>.weight` of
//! `(out_features, in_features)`; `lora_embedding_A` `(r, num_embeddings)` and
//! `lora_embedding_B` `(embedding_dim, r)` for an embedding; DoRA's `lora_magnitude_vector`
//! `(out_features,)`; a module of `modules_to_save` in full, as `base_model.model.<module>.weight`.
//! `r` is `rank_pattern`'s for a module one of its keys matches (a regular expression matched
//! against the end of the module's name after a `.`, as PEFT matches it), else `r`.
//! `target_modules` is a list (a module whose name is one of them or ends with `.` and one of
//! them) or a regular expression the whole name matches, read as Python's `re` reads it
//! (look-ahead included); for a pattern that does not compile, and for `all-linear`, modules
//! are checked only by the tensors present, and the report says so.

mod check;
mod config;
mod error;
mod regex;

use std::path::{Path, PathBuf};

use self::config::Config;
use crate::report::{Disagreement, Given, Report};
use crate::source::Checkpoint;
use crate::verify::{Bindings, Origin, ShapeErrors};

pub use self::error::AdapterError;

/// The largest `adapter_config.json` read: 16 MiB.
const MAX_CONFIG_BYTES: u64 = 1 << 24;

/// A PEFT LoRA adapter: its `adapter_config.json` and the header of its weights.
///
/// ```
/// use shapes::Checkpoint;
/// use shapes::adapter::Adapter;
///
/// fn safetensors(path: &std::path::Path, tensors: &[(&str, [usize; 2])]) {
///     let mut json = Vec::new();
///     let mut at = 0;
///     for (name, [a, b]) in tensors {
///         json.push(format!(r#""{name}":{{"dtype":"F32","shape":[{a},{b}],"data_offsets":[{at},{}]}}"#, at + a * b * 4));
///         at += a * b * 4;
///     }
///     let json = format!("{{{}}}", json.join(","));
///     let mut f = (json.len() as u64).to_le_bytes().to_vec();
///     f.extend(json.as_bytes());
///     f.resize(f.len() + at, 0);
///     std::fs::write(path, f).unwrap();
/// }
/// # let dir = std::env::temp_dir().join(format!("shapes-doc-adapter-{}", std::process::id()));
/// # std::fs::create_dir_all(dir.join("base")).unwrap();
/// # std::fs::create_dir_all(dir.join("lora")).unwrap();
/// safetensors(&dir.join("base/model.safetensors"), &[("layers.0.q.weight", [64, 32])]);
/// safetensors(&dir.join("lora/adapter_model.safetensors"), &[
///     ("base_model.model.layers.0.q.lora_A.weight", [8, 64]),
///     ("base_model.model.layers.0.q.lora_B.weight", [64, 8]),
/// ]);
/// std::fs::write(dir.join("lora/adapter_config.json"), r#"{"peft_type": "LORA", "r": 8, "target_modules": ["q"]}"#).unwrap();
///
/// let base = Checkpoint::open(dir.join("base/model.safetensors"))?;
/// let report = Adapter::open(dir.join("lora"))?.check(&base);
/// assert!(!report.ok());
/// assert!(report.to_string().contains(
///     "size mismatch for lora_A: (8, 64) where the base layer layers.0.q.weight is (64, 32) and r = 8 (`r`), so lora_A must be (8, 32)"
/// ));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Adapter {
    dir: PathBuf,
    config: Config,
    weights: Checkpoint,
}

impl Adapter {
    /// Whether `path` is a directory holding an `adapter_config.json`.
    ///
    /// ```
    /// assert!(!shapes::adapter::Adapter::is_adapter_dir("/nonexistent"));
    /// ```
    pub fn is_adapter_dir(path: impl AsRef<Path>) -> bool {
        path.as_ref().join("adapter_config.json").is_file()
    }

    /// Reads the adapter in `dir`: its `adapter_config.json` (a LoRA config whose `r` is a
    /// whole number ≥ 1) and the header of `adapter_model.safetensors`, else of
    /// `adapter_model.bin`.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("shapes-doc-adapter-open-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("adapter_config.json"), r#"{"r": 0}"#).unwrap();
    /// let e = shapes::adapter::Adapter::open(&dir).unwrap_err();
    /// assert!(e.to_string().ends_with("adapter_config.json: `r` is 0: a LoRA rank is at least 1"));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<Adapter, AdapterError> {
        let dir = dir.as_ref();
        let file = dir.join("adapter_config.json");
        if !file.is_file() {
            return Err(AdapterError::NotAnAdapter(dir.to_path_buf()));
        }
        // A config is a few kilobytes: a larger file is not one, and is not read whole.
        let len = std::fs::metadata(&file).map_or(0, |m| m.len());
        if len > MAX_CONFIG_BYTES {
            return Err(AdapterError::config(
                &file,
                format!(
                    "{len} bytes: an adapter_config.json is a few kilobytes (at most {MAX_CONFIG_BYTES} read)"
                ),
            ));
        }
        let text = std::fs::read_to_string(&file)
            .map_err(|e| AdapterError::config(&file, e.to_string()))?;
        let config = Config::parse(&file, &text)?;
        let weights = ["adapter_model.safetensors", "adapter_model.bin"]
            .iter()
            .map(|w| dir.join(w))
            .find(|w| w.is_file())
            .ok_or_else(|| AdapterError::NoWeights(dir.to_path_buf()))?;
        let weights = Checkpoint::open(&weights).map_err(AdapterError::Weights)?;
        Ok(Adapter {
            dir: dir.to_path_buf(),
            config,
            weights,
        })
    }

    /// The rank `r` the config states.
    ///
    /// ```no_run
    /// let a = shapes::adapter::Adapter::open("my-lora")?;
    /// println!("r = {}", a.r());
    /// # Ok::<(), shapes::adapter::AdapterError>(())
    /// ```
    pub fn r(&self) -> usize {
        self.config.r
    }

    /// The adapter's tensors.
    ///
    /// ```no_run
    /// let a = shapes::adapter::Adapter::open("my-lora")?;
    /// println!("{} tensors", a.weights().tensors().len());
    /// # Ok::<(), shapes::adapter::AdapterError>(())
    /// ```
    pub fn weights(&self) -> &Checkpoint {
        &self.weights
    }

    /// `base_model_name_or_path` from the config, when it names a path that exists: as
    /// written, else relative to the adapter's directory. A Hub id (`meta-llama/Llama-3-8B`)
    /// that is no local path gives `None`, and so does a config that names none.
    ///
    /// ```no_run
    /// let a = shapes::adapter::Adapter::open("my-lora")?;
    /// if let Some(base) = a.local_base() { println!("base: {}", base.display()); }
    /// # Ok::<(), shapes::adapter::AdapterError>(())
    /// ```
    pub fn local_base(&self) -> Option<PathBuf> {
        let named = Path::new(self.config.base.as_deref()?);
        [named.to_path_buf(), self.dir.join(named)]
            .into_iter()
            .find(|p| p.exists())
    }

    /// `base_model_name_or_path` as the config states it.
    ///
    /// ```no_run
    /// let a = shapes::adapter::Adapter::open("my-lora")?;
    /// println!("{:?}", a.base_name());
    /// # Ok::<(), shapes::adapter::AdapterError>(())
    /// ```
    pub fn base_name(&self) -> Option<&str> {
        self.config.base.as_deref()
    }

    /// Checks the adapter against `base`, the checkpoint it was trained on: every mismatch
    /// reads like the error `load_state_dict` would raise, naming the base layer and `r`;
    /// the tensors `target_modules` asks for and the adapter lacks are listed as missing.
    /// On success the bindings hold `r` and each `rank_pattern` rank.
    ///
    /// ```no_run
    /// let base = shapes::Checkpoint::open("Llama-3.2-1B")?;
    /// let report = shapes::adapter::Adapter::open("my-lora")?.check(&base);
    /// println!("{report}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(&self, base: &Checkpoint) -> Report {
        let found = check::check(&self.config, &self.weights, base);
        let file = self.config.file.display().to_string();
        let mut given = vec![Given {
            var: "r".into(),
            value: self.config.r,
            source: "adapter_config.json `r`".into(),
            keys: vec!["r".into()],
        }];
        let mut bindings =
            Bindings::new().bind_from("r", self.config.r, Origin::Config { key: "r".into() });
        for p in &self.config.rank_pattern {
            let var = format!("r[{}]", p.key);
            let key = format!("rank_pattern.{}", p.key);
            bindings = bindings.bind_from(var.clone(), p.r, Origin::Config { key: key.clone() });
            given.push(Given {
                var,
                value: p.r,
                source: format!("adapter_config.json `{key}`"),
                keys: vec![key],
            });
        }
        // One rank in every wrong tensor, against the config's: the one cause.
        let disagreements = found
            .other_rank
            .iter()
            .map(|o| Disagreement {
                var: "r".into(),
                stated: o.stated,
                source: format!("adapter_config.json {}", o.stated_in),
                found: o.found,
                bound_by: o.first.clone(),
                errors: o.count,
                by_caller: false,
            })
            .collect();
        let result = if found.errors.is_empty() {
            Ok(bindings)
        } else {
            Err(ShapeErrors::from(found.errors))
        };
        let name = format!(
            "LoRA adapter of {} ({} modules)",
            base.path().display(),
            found.modules
        );
        Report::new(
            &self.weights,
            (&name, &file, &found.notes),
            given,
            result,
            disagreements,
            "adapter_config.json",
        )
        .with_words("the adapter fits its base", "adapter_config.json")
    }
}
