//! The built-in architectures: spec files shipped inside the binary, one per naming scheme
//! (Hugging Face, GGUF), chosen by name or by what the file or its config says it is.

/// A built-in spec: its name, the names that select it, and its two texts.
struct Builtin {
    name: &'static str,
    /// GGUF `general.architecture` values and config.json `model_type`s it serves.
    aliases: &'static [&'static str],
    /// config.json `architectures` class-name prefixes (`LlamaForCausalLM`).
    classes: &'static [&'static str],
    hf: &'static str,
    gguf: &'static str,
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "llama",
        aliases: &["llama", "mistral", "qwen2"],
        classes: &["Llama", "Mistral", "Qwen2"],
        hf: include_str!("../specs/llama.toml"),
        gguf: include_str!("../specs/llama.gguf.toml"),
    },
    Builtin {
        name: "gpt2",
        aliases: &["gpt2"],
        classes: &["GPT2"],
        hf: include_str!("../specs/gpt2.toml"),
        gguf: include_str!("../specs/gpt2.gguf.toml"),
    },
    Builtin {
        name: "bert",
        aliases: &["bert"],
        classes: &["Bert"],
        hf: include_str!("../specs/bert.toml"),
        gguf: include_str!("../specs/bert.gguf.toml"),
    },
];

/// The names `--arch` takes.
pub fn names() -> Vec<&'static str> {
    BUILTINS
        .iter()
        .flat_map(|b| b.aliases.iter().copied())
        .collect()
}

/// The built-in spec for `arch` (a name, a `model_type`, a GGUF architecture or a class
/// name) in the naming scheme of the file: `(shown name, text)`.
pub fn find(arch: &str, gguf: bool) -> Option<(String, &'static str)> {
    let lower = arch.to_ascii_lowercase();
    let b = BUILTINS.iter().find(|b| {
        b.name == lower
            || b.aliases.contains(&lower.as_str())
            || b.classes.iter().any(|c| arch.starts_with(c))
    })?;
    let (scheme, text) = if gguf {
        ("GGUF names", b.gguf)
    } else {
        ("Hugging Face names", b.hf)
    };
    Some((format!("<built-in {}, {scheme}>", b.name), text))
}
