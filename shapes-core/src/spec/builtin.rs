//! The built-in architectures: spec files shipped inside the library, one per naming scheme
//! (Hugging Face, GGUF), chosen by name or by what a checkpoint says it is.

use std::fmt;

use super::Spec;
use crate::source::{Checkpoint, CheckpointFormat};

/// The naming scheme of a checkpoint's tensors.
///
/// ```
/// use shapes::spec::Naming;
/// assert_eq!(Naming::Gguf.to_string(), "GGUF names");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Naming {
    /// `model.layers.0.self_attn.q_proj.weight`: how transformers saves a model.
    HuggingFace,
    /// `blk.0.attn_q.weight`: how llama.cpp's converters name tensors in a GGUF file.
    Gguf,
}

impl Naming {
    /// The scheme a checkpoint's tensors follow: GGUF's for GGUF files, else Hugging Face's.
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.gguf")?;
    /// assert_eq!(shapes::spec::Naming::of(&c), shapes::spec::Naming::Gguf);
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn of(ckpt: &Checkpoint) -> Naming {
        match ckpt.format() {
            CheckpointFormat::Gguf | CheckpointFormat::SplitGguf => Naming::Gguf,
            _ => Naming::HuggingFace,
        }
    }
}

impl fmt::Display for Naming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Naming::HuggingFace => "Hugging Face names",
            Naming::Gguf => "GGUF names",
        })
    }
}

/// A built-in spec: its name, the names that select it, and its texts.
struct Builtin {
    name: &'static str,
    /// config.json `model_type`s and GGUF `general.architecture` values it serves.
    aliases: &'static [&'static str],
    /// config.json `architectures` class-name prefixes (`LlamaForCausalLM`).
    classes: &'static [&'static str],
    hf: &'static str,
    /// The spec in GGUF names, when llama.cpp converts the architecture.
    gguf: Option<&'static str>,
}

macro_rules! spec {
    ($file:literal) => {
        include_str!(concat!("../../specs/", $file))
    };
}

/// Every built-in: Hugging Face names, and GGUF names where llama.cpp converts the family
/// (the GGUF file's `general.architecture` is one of the aliases). Mixtral's and RoBERTa's
/// GGUF files declare `llama` and `bert`: their GGUF spec is that one.
const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "llama",
        aliases: &["llama", "mistral", "qwen2"],
        classes: &["Llama", "Mistral", "Qwen2For", "Qwen2Model"],
        hf: spec!("llama.toml"),
        gguf: Some(spec!("llama.gguf.toml")),
    },
    Builtin {
        name: "qwen3",
        aliases: &["qwen3"],
        classes: &["Qwen3For", "Qwen3Model"],
        hf: spec!("qwen3.toml"),
        gguf: Some(spec!("qwen3.gguf.toml")),
    },
    Builtin {
        name: "gemma",
        aliases: &["gemma"],
        classes: &["GemmaFor", "GemmaModel"],
        hf: spec!("gemma.toml"),
        gguf: Some(spec!("gemma.gguf.toml")),
    },
    Builtin {
        name: "gemma2",
        aliases: &["gemma2"],
        classes: &["Gemma2"],
        hf: spec!("gemma2.toml"),
        gguf: Some(spec!("gemma2.gguf.toml")),
    },
    Builtin {
        name: "gemma3",
        aliases: &["gemma3", "gemma3_text"],
        classes: &["Gemma3"],
        hf: spec!("gemma3.toml"),
        gguf: Some(spec!("gemma3.gguf.toml")),
    },
    Builtin {
        name: "phi3",
        aliases: &["phi3"],
        classes: &["Phi3"],
        hf: spec!("phi3.toml"),
        gguf: Some(spec!("phi3.gguf.toml")),
    },
    Builtin {
        name: "phi",
        aliases: &["phi", "phi2"],
        classes: &["PhiFor", "PhiModel"],
        hf: spec!("phi.toml"),
        gguf: Some(spec!("phi2.gguf.toml")),
    },
    Builtin {
        name: "mixtral",
        aliases: &["mixtral"],
        classes: &["Mixtral"],
        hf: spec!("mixtral.toml"),
        gguf: Some(spec!("llama.gguf.toml")),
    },
    Builtin {
        name: "qwen2_moe",
        aliases: &["qwen2_moe", "qwen2moe"],
        classes: &["Qwen2Moe"],
        hf: spec!("qwen2_moe.toml"),
        gguf: Some(spec!("qwen2moe.gguf.toml")),
    },
    Builtin {
        name: "qwen3_moe",
        aliases: &["qwen3_moe", "qwen3moe"],
        classes: &["Qwen3Moe"],
        hf: spec!("qwen3_moe.toml"),
        gguf: Some(spec!("qwen3moe.gguf.toml")),
    },
    Builtin {
        name: "deepseek_v3",
        aliases: &["deepseek_v3", "deepseek2"],
        classes: &["DeepseekV3"],
        hf: spec!("deepseek_v3.toml"),
        gguf: Some(spec!("deepseek2.gguf.toml")),
    },
    Builtin {
        name: "gpt2",
        aliases: &["gpt2"],
        classes: &["GPT2"],
        hf: spec!("gpt2.toml"),
        gguf: Some(spec!("gpt2.gguf.toml")),
    },
    Builtin {
        name: "gpt_neox",
        aliases: &["gpt_neox", "gptneox"],
        classes: &["GPTNeoX"],
        hf: spec!("gpt_neox.toml"),
        gguf: Some(spec!("gptneox.gguf.toml")),
    },
    Builtin {
        name: "starcoder2",
        aliases: &["starcoder2"],
        classes: &["Starcoder2"],
        hf: spec!("starcoder2.toml"),
        gguf: Some(spec!("starcoder2.gguf.toml")),
    },
    Builtin {
        name: "falcon",
        aliases: &["falcon", "refinedweb", "refinedwebmodel"],
        classes: &["Falcon", "RWFor"],
        hf: spec!("falcon.toml"),
        gguf: Some(spec!("falcon.gguf.toml")),
    },
    Builtin {
        name: "bert",
        aliases: &["bert"],
        classes: &["Bert"],
        hf: spec!("bert.toml"),
        gguf: Some(spec!("bert.gguf.toml")),
    },
    Builtin {
        name: "roberta",
        aliases: &["roberta", "xlm-roberta"],
        classes: &["Roberta", "XLMRoberta"],
        hf: spec!("roberta.toml"),
        gguf: Some(spec!("bert.gguf.toml")),
    },
    Builtin {
        name: "t5",
        aliases: &["t5", "t5encoder"],
        classes: &["T5"],
        hf: spec!("t5.toml"),
        gguf: Some(spec!("t5.gguf.toml")),
    },
    Builtin {
        name: "whisper",
        aliases: &["whisper"],
        classes: &["Whisper"],
        hf: spec!("whisper.toml"),
        gguf: None,
    },
    Builtin {
        name: "vit",
        aliases: &["vit"],
        classes: &["ViT"],
        hf: spec!("vit.toml"),
        gguf: None,
    },
    Builtin {
        name: "clip",
        aliases: &["clip"],
        classes: &["CLIPModel"],
        hf: spec!("clip.toml"),
        gguf: None,
    },
    Builtin {
        name: "siglip",
        aliases: &["siglip"],
        classes: &["SiglipModel"],
        hf: spec!("siglip.toml"),
        gguf: None,
    },
];

/// The built-in that serves `arch`: by name or alias, else by the longest class-name prefix
/// (`Qwen2MoeForCausalLM` is not a `Qwen2For…`).
fn find(arch: &str) -> Option<&'static Builtin> {
    let lower = arch.to_ascii_lowercase();
    if let Some(b) = BUILTINS
        .iter()
        .find(|b| b.name == lower || b.aliases.contains(&lower.as_str()))
    {
        return Some(b);
    }
    BUILTINS
        .iter()
        .filter_map(|b| {
            let longest = b
                .classes
                .iter()
                .filter(|c| arch.starts_with(*c))
                .map(|c| c.len())
                .max()?;
            Some((b, longest))
        })
        .max_by_key(|(_, n)| *n)
        .map(|(b, _)| b)
}

/// No built-in spec fits a checkpoint: it names no architecture, or one with no built-in spec.
///
/// ```
/// let e = shapes::spec::UnknownArchitecture { named: Some("mamba".into()) };
/// assert!(e.to_string().starts_with("architecture `mamba` has no built-in spec (the built-ins are llama, qwen3, gemma, "));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct UnknownArchitecture {
    /// The architecture the checkpoint names, if any.
    pub named: Option<String>,
}

impl fmt::Display for UnknownArchitecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let builtins = Spec::builtin_families().join(", ");
        match &self.named {
            Some(a) => write!(
                f,
                "architecture `{a}` has no built-in spec (the built-ins are {builtins})"
            ),
            None => write!(
                f,
                "the checkpoint names no architecture (no GGUF general.architecture, no config.json model_type or architectures; the built-ins are {builtins})"
            ),
        }
    }
}

impl fmt::Debug for UnknownArchitecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for UnknownArchitecture {}

impl Spec {
    /// The built-in families, one name each (`llama` serves mistral and qwen2 too).
    ///
    /// ```
    /// let families = shapes::Spec::builtin_families();
    /// assert!(families.len() >= 20);
    /// assert!(families.contains(&"deepseek_v3") && !families.contains(&"mistral"));
    /// ```
    pub fn builtin_families() -> Vec<&'static str> {
        BUILTINS.iter().map(|b| b.name).collect()
    }

    /// Whether the family `arch` belongs to has a spec in GGUF names.
    ///
    /// ```
    /// assert!(shapes::Spec::has_gguf_names("mixtral"));
    /// assert!(!shapes::Spec::has_gguf_names("whisper"));
    /// ```
    pub fn has_gguf_names(arch: &str) -> bool {
        find(arch).is_some_and(|b| b.gguf.is_some())
    }

    /// The names [`builtin`](Self::builtin) takes.
    ///
    /// ```
    /// assert!(shapes::Spec::builtin_names().contains(&"mistral"));
    /// ```
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTINS
            .iter()
            .flat_map(|b| b.aliases.iter().copied())
            .collect()
    }

    /// The built-in spec for `arch` (a name, a `model_type`, a GGUF architecture or a class
    /// name such as `LlamaForCausalLM`) in the naming scheme `naming`.
    ///
    /// ```
    /// use shapes::{Spec, spec::Naming};
    /// let spec = Spec::builtin("MistralForCausalLM", Naming::Gguf).unwrap();
    /// assert_eq!(spec.file(), "<built-in llama, GGUF names>");
    /// assert!(Spec::builtin("mamba", Naming::Gguf).is_none());
    /// ```
    pub fn builtin(arch: &str, naming: Naming) -> Option<Spec> {
        let b = find(arch)?;
        let text = match naming {
            Naming::HuggingFace => b.hf,
            Naming::Gguf => b.gguf?,
        };
        let shown = format!("<built-in {}, {naming}>", b.name);
        // The built-in texts are tested to compile (`every_builtin_compiles`).
        Spec::from_toml(&shown, text).ok()
    }

    /// The built-in spec for the architecture `ckpt` names (GGUF `general.architecture`, or
    /// its config's `model_type` or `architectures`), in its naming scheme.
    ///
    /// ```no_run
    /// let ckpt = shapes::Checkpoint::open("SmolLM2-135M.Q8_0.gguf")?;
    /// let spec = shapes::Spec::for_checkpoint(&ckpt)?;
    /// assert_eq!(spec.name(), "Llama");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_checkpoint(ckpt: &Checkpoint) -> Result<Spec, UnknownArchitecture> {
        let named = ckpt.architecture();
        named
            .and_then(|a| Spec::builtin(a, Naming::of(ckpt)))
            .ok_or_else(|| UnknownArchitecture {
                named: named.map(str::to_owned),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_compiles() {
        let mut errors = Vec::new();
        for b in BUILTINS {
            let texts = [(Naming::HuggingFace, Some(b.hf)), (Naming::Gguf, b.gguf)];
            for (naming, text) in texts.into_iter().filter_map(|(n, t)| Some((n, t?))) {
                let shown = format!("<built-in {}, {naming}>", b.name);
                if let Err(e) = Spec::from_toml(&shown, text) {
                    errors.push(e.to_string());
                }
            }
        }
        assert!(errors.is_empty(), "{}", errors.join("\n\n"));
    }
}
