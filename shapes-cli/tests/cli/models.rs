//! A small builder for the tensor lists the architecture tests write: names and shapes as a
//! family's code creates them, each model written from its published config.json values.

use crate::support::{Meta, Tensors};

/// Tensors being listed, under a name prefix.
#[derive(Default)]
pub struct M {
    pub t: Tensors,
    prefix: String,
}

impl M {
    pub fn new() -> M {
        M::default()
    }

    fn name(&self, name: &str) -> String {
        match (self.prefix.is_empty(), name.is_empty()) {
            (true, _) => name.to_owned(),
            (false, true) => self.prefix.clone(),
            (false, false) => format!("{}.{name}", self.prefix),
        }
    }

    /// A tensor.
    pub fn t(&mut self, name: &str, dims: &[usize]) -> &mut Self {
        let name = self.name(name);
        self.t.push((name, dims.to_vec()));
        self
    }

    /// A linear layer `name` from `inp` to `out`: `name.weight` (out, in), and `name.bias`.
    pub fn lin(&mut self, name: &str, out: usize, inp: usize, bias: bool) -> &mut Self {
        self.t(&format!("{name}.weight"), &[out, inp]);
        if bias {
            self.t(&format!("{name}.bias"), &[out]);
        }
        self
    }

    /// A norm `name` over `d`: `name.weight`, and `name.bias` for a LayerNorm.
    pub fn norm(&mut self, name: &str, d: usize, bias: bool) -> &mut Self {
        self.t(&format!("{name}.weight"), &[d]);
        if bias {
            self.t(&format!("{name}.bias"), &[d]);
        }
        self
    }

    /// `n` elements `prefix.0`, `prefix.1`, … each listed by `f` (given its index).
    pub fn each(&mut self, prefix: &str, n: usize, mut f: impl FnMut(&mut M, usize)) -> &mut Self {
        for i in 0..n {
            let mut sub = M {
                t: Vec::new(),
                prefix: self.name(&format!("{prefix}.{i}")),
            };
            f(&mut sub, i);
            self.t.extend(sub.t);
        }
        self
    }

    /// The tensors listed by `f` under `prefix`.
    pub fn under(&mut self, prefix: &str, f: impl FnOnce(&mut M)) -> &mut Self {
        let mut sub = M {
            t: Vec::new(),
            prefix: self.name(prefix),
        };
        f(&mut sub);
        self.t.extend(sub.t);
        self
    }

    pub fn done(&mut self) -> Tensors {
        std::mem::take(&mut self.t)
    }
}

/// GGUF metadata: `general.architecture = arch`, each `{arch}.key` as a u32, and a token
/// list of `vocab` entries.
pub fn gguf_meta(arch: &str, keys: &[(&str, usize)], vocab: usize) -> Vec<(String, Meta)> {
    let mut meta = vec![("general.architecture".to_string(), Meta::Str(arch.into()))];
    for (k, v) in keys {
        let v = u32::try_from(*v).expect("a u32 key");
        meta.push((format!("{arch}.{k}"), Meta::U32(v)));
    }
    meta.push(("tokenizer.ggml.tokens".into(), Meta::Tokens(vocab)));
    meta
}
