//! Checkpoint files the tests write: safetensors and GGUF headers with published model shapes,
//! the data section left sparse (`set_len`), since `shapes` never reads tensor data.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory under the target dir for one test.
pub fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a temp dir");
    d
}

/// Runs the binary; returns (exit code, stdout, stderr). Every JSON report it prints (`--json`,
/// `--format json`) is validated against `report.schema.json`, and its `exit` key against the
/// exit code.
pub fn shapes(args: &[&str]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_shapes"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the shapes binary runs");
    let (code, out, err) = (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    );
    let json = args.contains(&"--json") || args.windows(2).any(|w| w == ["--format", "json"]);
    if json && args.first() == Some(&"check") {
        let v: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {out}\n{err}"));
        // Several paths print an array of reports, one for each, the exit code the worst.
        let reports = match &v {
            serde_json::Value::Array(many) => many.clone(),
            one => vec![one.clone()],
        };
        for r in &reports {
            let breaches = crate::schema::errors(&crate::schema::schema(), r);
            assert!(breaches.is_empty(), "{args:?}: {breaches:#?}\n{out}");
        }
        let worst = reports.iter().filter_map(|r| r["exit"].as_i64()).max();
        assert_eq!(
            worst,
            Some(i64::from(code)),
            "{args:?}: the exit key and the exit code differ"
        );
        JSON_VALIDATED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    (code, out, err)
}

/// How many JSON reports [`shapes`] validated in this test binary.
pub static JSON_VALIDATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub type Tensors = Vec<(String, Vec<usize>)>;

/// Writes a safetensors file of F16 tensors (position-index buffers I64, as transformers
/// saves them), the data left sparse.
pub fn write_safetensors(path: &Path, tensors: &[(String, Vec<usize>)]) {
    write_safetensors_typed(path, tensors, &|name| {
        if name.ends_with("position_ids") {
            "I64"
        } else {
            "F16"
        }
    });
}

/// The bytes one element of `dtype` takes.
fn dtype_size(dtype: &str) -> usize {
    match dtype {
        "F8_E4M3" | "F8_E5M2" | "U8" | "I8" | "BOOL" => 1,
        "F16" | "BF16" | "I16" | "U16" => 2,
        "F32" | "I32" | "U32" => 4,
        _ => 8,
    }
}

/// Writes a safetensors file whose tensors have the dtypes `dtype` gives by name (data left
/// sparse).
pub fn write_safetensors_typed(
    path: &Path,
    tensors: &[(String, Vec<usize>)],
    dtype: &dyn Fn(&str) -> &'static str,
) {
    let mut entries = Vec::with_capacity(tensors.len());
    let mut offset = 0usize;
    for (name, dims) in tensors {
        let dt = dtype(name);
        let bytes = dims.iter().product::<usize>() * dtype_size(dt);
        let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
        entries.push(format!(
            r#""{name}":{{"dtype":"{dt}","shape":[{}],"data_offsets":[{offset},{}]}}"#,
            dims.join(","),
            offset + bytes
        ));
        offset += bytes;
    }
    let json = format!("{{{}}}", entries.join(","));
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    let f = std::fs::File::create(path).expect("create");
    use std::io::Write;
    (&f).write_all(&out).expect("write");
    f.set_len((out.len() + offset) as u64).expect("set_len");
}

/// A GGUF metadata value.
pub enum Meta {
    U32(u32),
    Str(String),
    /// An array of `n` strings `tok{i}` (a vocabulary).
    Tokens(usize),
}

fn gguf_str(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

/// Writes a GGUF v3 file of F16 tensors with `meta`; shapes are given row-major and written
/// in ggml order. `pad_to` grows the file (sparse) to that many bytes at least.
pub fn write_gguf(
    path: &Path,
    meta: &[(String, Meta)],
    tensors: &[(String, Vec<usize>)],
    pad_to: u64,
) {
    let mut f = b"GGUF".to_vec();
    f.extend(3u32.to_le_bytes());
    f.extend((tensors.len() as u64).to_le_bytes());
    f.extend((meta.len() as u64).to_le_bytes());
    for (k, v) in meta {
        gguf_str(&mut f, k);
        match v {
            Meta::U32(n) => {
                f.extend(4u32.to_le_bytes());
                f.extend(n.to_le_bytes());
            }
            Meta::Str(s) => {
                f.extend(8u32.to_le_bytes());
                gguf_str(&mut f, s);
            }
            Meta::Tokens(n) => {
                f.extend(9u32.to_le_bytes());
                f.extend(8u32.to_le_bytes());
                f.extend((*n as u64).to_le_bytes());
                for i in 0..*n {
                    gguf_str(&mut f, &format!("tok{i}"));
                }
            }
        }
    }
    let mut offset = 0u64;
    for (name, dims) in tensors {
        gguf_str(&mut f, name);
        f.extend((dims.len() as u32).to_le_bytes());
        for d in dims.iter().rev() {
            f.extend((*d as u64).to_le_bytes());
        }
        f.extend(1u32.to_le_bytes()); // F16
        f.extend(offset.to_le_bytes());
        let bytes = dims.iter().product::<usize>() as u64 * 2;
        offset = (offset + bytes).next_multiple_of(32);
    }
    let data_start = (f.len() as u64).next_multiple_of(32);
    f.resize(data_start as usize, 0);
    let file = std::fs::File::create(path).expect("create");
    use std::io::Write;
    (&file).write_all(&f).expect("write");
    file.set_len((data_start + offset).max(pad_to))
        .expect("set_len");
}

/// The sizes of a Llama-family decoder.
#[derive(Clone, Copy)]
pub struct Llama {
    pub vocab: usize,
    pub d: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub ff: usize,
    pub tied: bool,
    pub qkv_bias: bool,
}

/// SmolLM-135M (HuggingFaceTB/SmolLM-135M, LlamaForCausalLM): vocab 49152, hidden 576, 30
/// layers, 9 query heads and 3 key/value heads of 64, intermediate 1536, tied embeddings.
pub const SMOLLM_135M: Llama = Llama {
    vocab: 49152,
    d: 576,
    layers: 30,
    heads: 9,
    kv_heads: 3,
    head_dim: 64,
    ff: 1536,
    tied: true,
    qkv_bias: false,
};

/// Qwen2-0.5B (Qwen/Qwen2-0.5B): vocab 151936, hidden 896, 24 layers, 14 query heads and 2
/// key/value heads of 64, intermediate 4864, q/k/v biases, tied embeddings.
pub const QWEN2_0_5B: Llama = Llama {
    vocab: 151936,
    d: 896,
    layers: 24,
    heads: 14,
    kv_heads: 2,
    head_dim: 64,
    ff: 4864,
    tied: true,
    qkv_bias: true,
};

impl Llama {
    /// The Hugging Face names and shapes.
    pub fn hf(&self) -> Tensors {
        let m = self;
        let mut t = vec![("model.embed_tokens.weight".to_string(), vec![m.vocab, m.d])];
        for i in 0..m.layers {
            let l = format!("model.layers.{i}");
            let (q, kv) = (m.heads * m.head_dim, m.kv_heads * m.head_dim);
            t.push((format!("{l}.self_attn.q_proj.weight"), vec![q, m.d]));
            t.push((format!("{l}.self_attn.k_proj.weight"), vec![kv, m.d]));
            t.push((format!("{l}.self_attn.v_proj.weight"), vec![kv, m.d]));
            if m.qkv_bias {
                t.push((format!("{l}.self_attn.q_proj.bias"), vec![q]));
                t.push((format!("{l}.self_attn.k_proj.bias"), vec![kv]));
                t.push((format!("{l}.self_attn.v_proj.bias"), vec![kv]));
            }
            t.push((format!("{l}.self_attn.o_proj.weight"), vec![m.d, q]));
            t.push((format!("{l}.mlp.gate_proj.weight"), vec![m.ff, m.d]));
            t.push((format!("{l}.mlp.up_proj.weight"), vec![m.ff, m.d]));
            t.push((format!("{l}.mlp.down_proj.weight"), vec![m.d, m.ff]));
            t.push((format!("{l}.input_layernorm.weight"), vec![m.d]));
            t.push((format!("{l}.post_attention_layernorm.weight"), vec![m.d]));
        }
        t.push(("model.norm.weight".to_string(), vec![m.d]));
        if !m.tied {
            t.push(("lm_head.weight".to_string(), vec![m.vocab, m.d]));
        }
        t
    }

    /// Its config.json.
    pub fn config(&self, model_type: &str) -> String {
        format!(
            r#"{{"architectures":["LlamaForCausalLM"],"model_type":"{model_type}","hidden_size":{},"intermediate_size":{},"num_attention_heads":{},"num_key_value_heads":{},"num_hidden_layers":{},"vocab_size":{},"tie_word_embeddings":{}}}"#,
            self.d, self.ff, self.heads, self.kv_heads, self.layers, self.vocab, self.tied
        )
    }

    /// The GGUF names and shapes (row-major).
    pub fn gguf(&self) -> Tensors {
        let m = self;
        let mut t = vec![("token_embd.weight".to_string(), vec![m.vocab, m.d])];
        for i in 0..m.layers {
            let l = format!("blk.{i}");
            let (q, kv) = (m.heads * m.head_dim, m.kv_heads * m.head_dim);
            t.push((format!("{l}.attn_norm.weight"), vec![m.d]));
            t.push((format!("{l}.attn_q.weight"), vec![q, m.d]));
            t.push((format!("{l}.attn_k.weight"), vec![kv, m.d]));
            t.push((format!("{l}.attn_v.weight"), vec![kv, m.d]));
            if m.qkv_bias {
                t.push((format!("{l}.attn_q.bias"), vec![q]));
                t.push((format!("{l}.attn_k.bias"), vec![kv]));
                t.push((format!("{l}.attn_v.bias"), vec![kv]));
            }
            t.push((format!("{l}.attn_output.weight"), vec![m.d, q]));
            t.push((format!("{l}.ffn_norm.weight"), vec![m.d]));
            t.push((format!("{l}.ffn_gate.weight"), vec![m.ff, m.d]));
            t.push((format!("{l}.ffn_up.weight"), vec![m.ff, m.d]));
            t.push((format!("{l}.ffn_down.weight"), vec![m.d, m.ff]));
        }
        t.push(("output_norm.weight".to_string(), vec![m.d]));
        if !m.tied {
            t.push(("output.weight".to_string(), vec![m.vocab, m.d]));
        }
        t
    }

    /// Its GGUF metadata for architecture `arch`, the vocabulary as a token list.
    pub fn gguf_meta(&self, arch: &str) -> Vec<(String, Meta)> {
        let m = self;
        vec![
            ("general.architecture".into(), Meta::Str(arch.into())),
            (format!("{arch}.embedding_length"), Meta::U32(m.d as u32)),
            (format!("{arch}.block_count"), Meta::U32(m.layers as u32)),
            (
                format!("{arch}.feed_forward_length"),
                Meta::U32(m.ff as u32),
            ),
            (
                format!("{arch}.attention.head_count"),
                Meta::U32(m.heads as u32),
            ),
            (
                format!("{arch}.attention.head_count_kv"),
                Meta::U32(m.kv_heads as u32),
            ),
            ("tokenizer.ggml.tokens".into(), Meta::Tokens(m.vocab)),
        ]
    }
}

/// GPT-2 small (openai-community/gpt2, GPT2Model names): vocab 50257, 1024 positions, 768
/// wide, 12 layers of 12 heads, d_ff 3072, with the causal-mask buffers older files saved.
pub fn gpt2_small() -> Tensors {
    let (vocab, ctx, d, layers) = (50257, 1024, 768, 12);
    let mut t = vec![
        ("wte.weight".to_string(), vec![vocab, d]),
        ("wpe.weight".to_string(), vec![ctx, d]),
    ];
    for i in 0..layers {
        let l = format!("h.{i}");
        t.push((format!("{l}.ln_1.weight"), vec![d]));
        t.push((format!("{l}.ln_1.bias"), vec![d]));
        t.push((format!("{l}.attn.bias"), vec![1, 1, ctx, ctx]));
        t.push((format!("{l}.attn.c_attn.weight"), vec![d, 3 * d]));
        t.push((format!("{l}.attn.c_attn.bias"), vec![3 * d]));
        t.push((format!("{l}.attn.c_proj.weight"), vec![d, d]));
        t.push((format!("{l}.attn.c_proj.bias"), vec![d]));
        t.push((format!("{l}.ln_2.weight"), vec![d]));
        t.push((format!("{l}.ln_2.bias"), vec![d]));
        t.push((format!("{l}.mlp.c_fc.weight"), vec![d, 4 * d]));
        t.push((format!("{l}.mlp.c_fc.bias"), vec![4 * d]));
        t.push((format!("{l}.mlp.c_proj.weight"), vec![4 * d, d]));
        t.push((format!("{l}.mlp.c_proj.bias"), vec![d]));
    }
    t.push(("ln_f.weight".to_string(), vec![d]));
    t.push(("ln_f.bias".to_string(), vec![d]));
    t
}

pub const GPT2_CONFIG: &str = r#"{"architectures":["GPT2LMHeadModel"],"model_type":"gpt2","n_embd":768,"n_head":12,"n_layer":12,"n_positions":1024,"n_inner":null,"vocab_size":50257}"#;

/// bert-base-uncased (BertModel names): vocab 30522, 512 positions, 2 token types, 768 wide,
/// 12 layers of 12 heads, intermediate 3072.
pub fn bert_base() -> Tensors {
    let (vocab, pos, types, d, ff, layers) = (30522, 512, 2, 768, 3072, 12);
    let mut t: Tensors = vec![
        ("embeddings.word_embeddings.weight".into(), vec![vocab, d]),
        ("embeddings.position_embeddings.weight".into(), vec![pos, d]),
        (
            "embeddings.token_type_embeddings.weight".into(),
            vec![types, d],
        ),
        ("embeddings.LayerNorm.weight".into(), vec![d]),
        ("embeddings.LayerNorm.bias".into(), vec![d]),
    ];
    for i in 0..layers {
        let l = format!("encoder.layer.{i}");
        for m in ["query", "key", "value"] {
            t.push((format!("{l}.attention.self.{m}.weight"), vec![d, d]));
            t.push((format!("{l}.attention.self.{m}.bias"), vec![d]));
        }
        t.push((format!("{l}.attention.output.dense.weight"), vec![d, d]));
        t.push((format!("{l}.attention.output.dense.bias"), vec![d]));
        t.push((format!("{l}.attention.output.LayerNorm.weight"), vec![d]));
        t.push((format!("{l}.attention.output.LayerNorm.bias"), vec![d]));
        t.push((format!("{l}.intermediate.dense.weight"), vec![ff, d]));
        t.push((format!("{l}.intermediate.dense.bias"), vec![ff]));
        t.push((format!("{l}.output.dense.weight"), vec![d, ff]));
        t.push((format!("{l}.output.dense.bias"), vec![d]));
        t.push((format!("{l}.output.LayerNorm.weight"), vec![d]));
        t.push((format!("{l}.output.LayerNorm.bias"), vec![d]));
    }
    t.push(("pooler.dense.weight".into(), vec![d, d]));
    t.push(("pooler.dense.bias".into(), vec![d]));
    t
}

pub const BERT_CONFIG: &str = r#"{"architectures":["BertForMaskedLM"],"model_type":"bert","hidden_size":768,"num_attention_heads":12,"num_hidden_layers":12,"intermediate_size":3072,"vocab_size":30522,"max_position_embeddings":512,"type_vocab_size":2}"#;

/// `tensors` with `name`'s shape replaced.
pub fn reshaped(mut tensors: Tensors, name: &str, dims: &[usize]) -> Tensors {
    for (n, d) in &mut tensors {
        if n == name {
            *d = dims.to_vec();
        }
    }
    tensors
}

/// `tensors` with `from` renamed to `to`.
pub fn renamed(mut tensors: Tensors, from: &str, to: &str) -> Tensors {
    for (n, _) in &mut tensors {
        if n == from {
            *n = to.to_owned();
        }
    }
    tensors
}
