//! Checking a checkpoint from its header against loading it: `SafetensorsHeader::read_path`
//! plus a shape lookup for every tensor, against `std::fs::read` of the whole file and the
//! `safetensors` crate's `SafeTensors::deserialize`, in the same run; and `GgufHeader::read_path`
//! on a TinyLlama-shaped GGUF file.
//!
//! `cargo bench -p shapes-benches --bench checkpoint`
//!
//! The files are generated once into the system temp dir:
//! - `shapes-bench-bert-base-3l-f16.safetensors`, about 91 MB: BERT-base's real tensor names
//!   and shapes (`bert-base-uncased`: vocab 30522, d_model 768, FFN 3072, 512 positions,
//!   pooler), in F16, with the embeddings, the pooler and the first 3 of the 12 encoder layers
//!   (55 tensors). The full model is 440 MB in F32; the header-only benchmark
//!   `header_only_bert_base_12l_199_tensors` parses the full 199-tensor header from memory.
//! - `shapes-bench-tinyllama-shaped.gguf`: TinyLlama-1.1B's 201 tensors (Q4_K/Q6_K/F32 as in a
//!   Q4_K_M file) and its metadata, with its 32000-token vocabulary, scores and token types;
//!   the data section is a sparse hole (only the header is ever read).
//!
//! `SHAPES_BENCH_SAFETENSORS=/path/model.safetensors` and `SHAPES_BENCH_GGUF=/path/model.gguf`
//! use real files instead.
//!
//! The `checkpoint_open` group times `Checkpoint::open` + a plan's `verify_source` (dims bound
//! from the config or the GGUF metadata) against reading the same files' bytes, in the same
//! run, on files written into a temp dir in its setup: a BERT-base checkpoint in 4 F16 shards
//! with its index and `config.json` (199 tensors, 220 MB), and a 100 MB GGUF whose metadata
//! holds a 50k-token vocabulary (tokens, scores, merges) with a tied output.
//!
//! Whole-file reads here come from the page cache (the file was just written or read), so they
//! measure memory bandwidth, not a disk: a cold read from an SSD or a network drive is slower,
//! and the header path's advantage larger.

use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use shapes::{
    Checkpoint, Plan, ShapeSource,
    checkpoint::{GgufHeader, SafetensorsHeader},
    verify::PlanNode,
};

#[path = "../tests/common/ckpt_files.rs"]
mod ckpt_files;

const VOCAB: usize = 30522;
const D: usize = 768;
const FF: usize = 3072;

/// BERT-base's parameters (`bert-base-uncased` names and shapes), with `layers` encoder layers.
fn bert_base(layers: usize) -> Vec<(String, Vec<usize>)> {
    let mut t: Vec<(String, Vec<usize>)> = Vec::new();
    let mut add = |name: String, shape: &[usize]| t.push((name, shape.to_vec()));
    let e = "bert.embeddings";
    add(format!("{e}.word_embeddings.weight"), &[VOCAB, D]);
    add(format!("{e}.position_embeddings.weight"), &[512, D]);
    add(format!("{e}.token_type_embeddings.weight"), &[2, D]);
    add(format!("{e}.LayerNorm.weight"), &[D]);
    add(format!("{e}.LayerNorm.bias"), &[D]);
    for i in 0..layers {
        let l = format!("bert.encoder.layer.{i}");
        for m in ["query", "key", "value"] {
            add(format!("{l}.attention.self.{m}.weight"), &[D, D]);
            add(format!("{l}.attention.self.{m}.bias"), &[D]);
        }
        add(format!("{l}.attention.output.dense.weight"), &[D, D]);
        add(format!("{l}.attention.output.dense.bias"), &[D]);
        add(format!("{l}.attention.output.LayerNorm.weight"), &[D]);
        add(format!("{l}.attention.output.LayerNorm.bias"), &[D]);
        add(format!("{l}.intermediate.dense.weight"), &[FF, D]);
        add(format!("{l}.intermediate.dense.bias"), &[FF]);
        add(format!("{l}.output.dense.weight"), &[D, FF]);
        add(format!("{l}.output.dense.bias"), &[D]);
        add(format!("{l}.output.LayerNorm.weight"), &[D]);
        add(format!("{l}.output.LayerNorm.bias"), &[D]);
    }
    add("bert.pooler.dense.weight".into(), &[D, D]);
    add("bert.pooler.dense.bias".into(), &[D]);
    t
}

/// A safetensors header (length + JSON, padded to 8 bytes like the `safetensors` crate does)
/// and the data size it describes.
fn safetensors_header(
    tensors: &[(String, Vec<usize>)],
    dtype: &str,
    elem: usize,
) -> (Vec<u8>, usize) {
    let mut json = String::from(r#"{"__metadata__":{"format":"pt"}"#);
    let mut offset = 0;
    for (name, shape) in tensors {
        let bytes = shape.iter().product::<usize>() * elem;
        let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
        json.push_str(&format!(
            r#","{name}":{{"dtype":"{dtype}","shape":[{}],"data_offsets":[{offset},{}]}}"#,
            dims.join(","),
            offset + bytes
        ));
        offset += bytes;
    }
    json.push('}');
    while (8 + json.len()) % 8 != 0 {
        json.push(' ');
    }
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    (out, offset)
}

/// Whether the file at `path` was written by this bench as it is now: same length, same header.
fn is_current(path: &Path, header: &[u8], len: u64) -> bool {
    use std::io::Read;
    let Ok(mut f) = File::open(path) else {
        return false;
    };
    let mut head = vec![0; header.len()];
    f.metadata().is_ok_and(|m| m.len() == len) && f.read_exact(&mut head).is_ok() && head == header
}

fn bench_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(name)
}

/// The ~91 MB BERT-base (3 layers, F16) file, written once.
fn bert_file() -> PathBuf {
    let path = bench_file("shapes-bench-bert-base-3l-f16.safetensors");
    let (header, data_len) = safetensors_header(&bert_base(3), "F16", 2);
    let want = (header.len() + data_len) as u64;
    if is_current(&path, &header, want) {
        return path;
    }
    let mut f = std::io::BufWriter::new(File::create(&path).expect("create the bench file"));
    f.write_all(&header).unwrap();
    let chunk: Vec<u8> = (0..1 << 20)
        .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut left = data_len;
    while left > 0 {
        let n = left.min(chunk.len());
        f.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    f.flush().unwrap();
    path
}

// ----- a GGUF writer --------------------------------------------------------------------------

fn gguf_str(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

fn gguf_kv_u32(out: &mut Vec<u8>, key: &str, v: u32) {
    gguf_str(out, key);
    out.extend(4u32.to_le_bytes());
    out.extend(v.to_le_bytes());
}

/// TinyLlama-1.1B's GGUF header (Q4_K_M types) with its tokenizer arrays, data a sparse hole.
fn gguf_file() -> PathBuf {
    let path = bench_file("shapes-bench-tinyllama-shaped.gguf");
    let (vocab, d, kv, ff, layers) = (32000u64, 2048u64, 256u64, 5632u64, 22);
    // (name, row-major dims, ggml type, bytes)
    let mut tensors: Vec<(String, Vec<u64>, u32)> =
        vec![("token_embd.weight".into(), vec![vocab, d], 12)];
    for i in 0..layers {
        let b = |s: &str| format!("blk.{i}.{s}.weight");
        tensors.push((b("attn_norm"), vec![d], 0));
        tensors.push((b("attn_q"), vec![d, d], 12));
        tensors.push((b("attn_k"), vec![kv, d], 12));
        tensors.push((b("attn_v"), vec![kv, d], 14));
        tensors.push((b("attn_output"), vec![d, d], 12));
        tensors.push((b("ffn_norm"), vec![d], 0));
        tensors.push((b("ffn_gate"), vec![ff, d], 12));
        tensors.push((b("ffn_up"), vec![ff, d], 12));
        tensors.push((b("ffn_down"), vec![d, ff], 14));
    }
    tensors.push(("output_norm.weight".into(), vec![d], 0));
    tensors.push(("output.weight".into(), vec![vocab, d], 14));

    let mut h = b"GGUF".to_vec();
    h.extend(3u32.to_le_bytes());
    h.extend((tensors.len() as u64).to_le_bytes());
    h.extend(15u64.to_le_bytes()); // metadata pairs: 2 strings, 9 u32, 1 f32, 3 arrays
    gguf_str(&mut h, "general.architecture");
    h.extend(8u32.to_le_bytes());
    gguf_str(&mut h, "llama");
    gguf_str(&mut h, "general.name");
    h.extend(8u32.to_le_bytes());
    gguf_str(&mut h, "tinyllama_tinyllama-1.1b-chat-v1.0");
    for (k, v) in [
        ("llama.context_length", 2048),
        ("llama.embedding_length", d as u32),
        ("llama.block_count", layers as u32),
        ("llama.feed_forward_length", ff as u32),
        ("llama.rope.dimension_count", 64),
        ("llama.attention.head_count", 32),
        ("llama.attention.head_count_kv", 4),
        ("general.file_type", 15),
        ("tokenizer.ggml.bos_token_id", 1),
    ] {
        gguf_kv_u32(&mut h, k, v);
    }
    gguf_str(&mut h, "llama.attention.layer_norm_rms_epsilon");
    h.extend(6u32.to_le_bytes());
    h.extend(1e-5f32.to_le_bytes());
    // The tokenizer: 32000 token strings, scores and types, as a llama.cpp conversion has.
    gguf_str(&mut h, "tokenizer.ggml.tokens");
    h.extend(9u32.to_le_bytes());
    h.extend(8u32.to_le_bytes());
    h.extend(vocab.to_le_bytes());
    for i in 0..vocab {
        gguf_str(&mut h, &format!("▁tok{i}"));
    }
    gguf_str(&mut h, "tokenizer.ggml.scores");
    h.extend(9u32.to_le_bytes());
    h.extend(6u32.to_le_bytes());
    h.extend(vocab.to_le_bytes());
    for i in 0..vocab {
        h.extend((-(i as f32)).to_le_bytes());
    }
    gguf_str(&mut h, "tokenizer.ggml.token_type");
    h.extend(9u32.to_le_bytes());
    h.extend(5u32.to_le_bytes());
    h.extend(vocab.to_le_bytes());
    for _ in 0..vocab {
        h.extend(1i32.to_le_bytes());
    }
    let mut offset = 0u64;
    for (name, dims, ty) in &tensors {
        gguf_str(&mut h, name);
        h.extend((dims.len() as u32).to_le_bytes());
        for d in dims.iter().rev() {
            h.extend(d.to_le_bytes());
        }
        h.extend(ty.to_le_bytes());
        h.extend(offset.to_le_bytes());
        let (block, bytes) = match ty {
            0 => (1, 4),
            12 => (256, 144),
            _ => (256, 210),
        };
        offset = (offset + dims.iter().product::<u64>() / block * bytes).next_multiple_of(32);
    }
    h.resize(h.len().next_multiple_of(32), 0);
    let want = h.len() as u64 + offset;
    if is_current(&path, &h, want) {
        return path;
    }
    let mut f = File::create(&path).expect("create the bench file");
    f.write_all(&h).unwrap();
    f.set_len(want).unwrap();
    path
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).map(PathBuf::from)
}

fn describe(path: &Path) -> String {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    format!("{} ({:.1} MB)", path.display(), len as f64 / 1e6)
}

fn checkpoint(c: &mut Criterion) {
    let st_path = env_path("SHAPES_BENCH_SAFETENSORS").unwrap_or_else(bert_file);
    let header = SafetensorsHeader::read_path(&st_path).expect("a valid safetensors file");
    eprintln!(
        "safetensors: {}, {} tensors",
        describe(&st_path),
        header.tensors().len()
    );
    let bytes = std::fs::read(&st_path).unwrap();
    let names: Vec<String> = header
        .tensor_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    // The two paths agree before anything is timed.
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    for n in &names {
        assert_eq!(st.tensor(n).unwrap().shape(), header.shape_of(n).unwrap());
    }

    let mut g = c.benchmark_group("checkpoint");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("safetensors_header_and_every_shape", |b| {
        b.iter(|| {
            let h = SafetensorsHeader::read_path(black_box(&st_path)).unwrap();
            let mut total = 0usize;
            for name in h.tensor_names() {
                total += h.shape_of(name).map_or(0, <[usize]>::len);
            }
            total
        })
    });
    g.bench_function("read_whole_file", |b| {
        b.iter(|| std::fs::read(black_box(&st_path)).unwrap().len())
    });
    g.bench_function("safetensors_crate_deserialize_read_bytes", |b| {
        b.iter(|| {
            safetensors::SafeTensors::deserialize(black_box(&bytes))
                .unwrap()
                .len()
        })
    });
    g.bench_function("read_whole_file_and_deserialize", |b| {
        b.iter(|| {
            let bytes = std::fs::read(black_box(&st_path)).unwrap();
            safetensors::SafeTensors::deserialize(&bytes).unwrap().len()
        })
    });
    drop(bytes);

    // The full BERT-base header (12 layers, 199 tensors, F32: 440 MB of data not written),
    // parsed from memory: what the header path costs at the real model's tensor count.
    let (full, _) = safetensors_header(&bert_base(12), "F32", 4);
    g.bench_function("header_only_bert_base_12l_199_tensors", |b| {
        b.iter(|| {
            SafetensorsHeader::read(black_box(&full[..]), None)
                .unwrap()
                .tensors()
                .len()
        })
    });

    let gguf_path = env_path("SHAPES_BENCH_GGUF").unwrap_or_else(gguf_file);
    let gh = GgufHeader::read_path(&gguf_path).expect("a valid GGUF file");
    eprintln!(
        "gguf: {}, {} tensors, {} header bytes",
        describe(&gguf_path),
        gh.tensors().len(),
        gh.data_offset()
    );
    g.bench_function("gguf_header_and_every_shape", |b| {
        b.iter(|| {
            let h = GgufHeader::read_path(black_box(&gguf_path)).unwrap();
            let mut total = 0usize;
            for name in h.tensor_names() {
                total += h.shape_of(name).map_or(0, <[usize]>::len);
            }
            total
        })
    });
    g.finish();
}

/// BERT-base's plan, its dims bound from the config.
fn bert_plan() -> Plan {
    let layer = vec![
        PlanNode::tensor("attention.self.query.weight", "(d_model, d_model)"),
        PlanNode::tensor("attention.self.query.bias", "(d_model,)"),
        PlanNode::tensor("attention.self.key.weight", "(d_model, d_model)"),
        PlanNode::tensor("attention.self.key.bias", "(d_model,)"),
        PlanNode::tensor("attention.self.value.weight", "(d_model, d_model)"),
        PlanNode::tensor("attention.self.value.bias", "(d_model,)"),
        PlanNode::tensor("attention.output.dense.weight", "(d_model, d_model)"),
        PlanNode::tensor("attention.output.dense.bias", "(d_model,)"),
        PlanNode::tensor("attention.output.LayerNorm.weight", "(d_model,)"),
        PlanNode::tensor("attention.output.LayerNorm.bias", "(d_model,)"),
        PlanNode::tensor("intermediate.dense.weight", "(d_ff, d_model)"),
        PlanNode::tensor("intermediate.dense.bias", "(d_ff,)"),
        PlanNode::tensor("output.dense.weight", "(d_model, d_ff)"),
        PlanNode::tensor("output.dense.bias", "(d_model,)"),
        PlanNode::tensor("output.LayerNorm.weight", "(d_model,)"),
        PlanNode::tensor("output.LayerNorm.bias", "(d_model,)"),
    ];
    let embeddings = vec![
        PlanNode::tensor("word_embeddings.weight", "(vocab, d_model)"),
        PlanNode::tensor("position_embeddings.weight", "(max_pos, d_model)"),
        PlanNode::tensor("token_type_embeddings.weight", "(types, d_model)"),
        PlanNode::tensor("LayerNorm.weight", "(d_model,)"),
        PlanNode::tensor("LayerNorm.bias", "(d_model,)"),
    ];
    Plan::build(
        "Bert",
        &[PlanNode::group(
            "bert",
            vec![
                PlanNode::group("embeddings", embeddings),
                PlanNode::group("encoder.layer", layer).repeated(Some("n_layers")),
                PlanNode::tensor("pooler.dense.weight", "(d_model, d_model)"),
                PlanNode::tensor("pooler.dense.bias", "(d_model,)"),
            ],
        )],
        &[],
    )
    .and_then(|p| p.bind_from("d_model", &["hidden_size"]))
    .and_then(|p| p.bind_from("d_ff", &["intermediate_size"]))
    .and_then(|p| p.bind_from("n_layers", &["num_hidden_layers"]))
    .and_then(|p| p.bind_from("vocab", &["vocab_size"]))
    .unwrap()
}

/// A Llama-architecture plan for GGUF names, its dims bound from the metadata, the output
/// tied to the embedding.
fn gguf_plan() -> Plan {
    let layer = vec![
        PlanNode::tensor("attn_q.weight", "(d_model, d_model)"),
        PlanNode::tensor("attn_k.weight", "(d_model, d_model)"),
        PlanNode::tensor("attn_v.weight", "(d_model, d_model)"),
        PlanNode::tensor("attn_output.weight", "(d_model, d_model)"),
        PlanNode::tensor("ffn_gate.weight", "(d_ff, d_model)"),
        PlanNode::tensor("ffn_up.weight", "(d_ff, d_model)"),
        PlanNode::tensor("ffn_down.weight", "(d_model, d_ff)"),
        PlanNode::tensor("attn_norm.weight", "(d_model,)"),
        PlanNode::tensor("ffn_norm.weight", "(d_model,)"),
    ];
    Plan::build(
        "Gguf",
        &[
            PlanNode::tensor("token_embd.weight", "(vocab, d_model)"),
            PlanNode::group("blk", layer).repeated(Some("n_layers")),
            PlanNode::tensor("output_norm.weight", "(d_model,)"),
            PlanNode::tied(
                "output.weight",
                "(vocab, d_model)",
                "token_embd.weight",
                None,
            ),
        ],
        &[],
    )
    .and_then(|p| p.bind_from("d_model", &["{arch}.embedding_length"]))
    .and_then(|p| p.bind_from("d_ff", &["{arch}.feed_forward_length"]))
    .and_then(|p| p.bind_from("n_layers", &["{arch}.block_count"]))
    .unwrap()
}

fn checkpoint_open(c: &mut Criterion) {
    use ckpt_files::Gv;
    let bert_dir = ckpt_files::TempDir::new("bench-bert-4-shards");
    let shards = ckpt_files::sharded(bert_dir.path(), &bert_base(12), 4);
    let config = r#"{"model_type":"bert","hidden_size":768,"intermediate_size":3072,"num_hidden_layers":12,"num_attention_heads":12,"vocab_size":30522}"#;
    std::fs::write(bert_dir.join("config.json"), config).unwrap();
    let shard_paths: Vec<PathBuf> = shards.iter().map(|s| bert_dir.join(s)).collect();
    let bert = bert_plan();

    let gguf_dir = ckpt_files::TempDir::new("bench-gguf-50k-vocab");
    let (vocab, d, ff, layers) = (50_257usize, 768usize, 3072usize, 2usize);
    let mut tensors: Vec<ckpt_files::Tensor> = vec![("token_embd.weight".into(), vec![vocab, d])];
    for i in 0..layers {
        for (n, dims) in [
            ("attn_q", vec![d, d]),
            ("attn_k", vec![d, d]),
            ("attn_v", vec![d, d]),
            ("attn_output", vec![d, d]),
            ("ffn_gate", vec![ff, d]),
            ("ffn_up", vec![ff, d]),
            ("ffn_down", vec![d, ff]),
            ("attn_norm", vec![d]),
            ("ffn_norm", vec![d]),
        ] {
            tensors.push((format!("blk.{i}.{n}.weight"), dims));
        }
    }
    tensors.push(("output_norm.weight".into(), vec![d]));
    let meta: Vec<(String, Gv)> = vec![
        ("general.architecture".into(), Gv::Str("llama".into())),
        ("llama.embedding_length".into(), Gv::U32(d as u32)),
        ("llama.feed_forward_length".into(), Gv::U32(ff as u32)),
        ("llama.block_count".into(), Gv::U32(layers as u32)),
        ("llama.attention.head_count".into(), Gv::U32(12)),
        ("tokenizer.ggml.model".into(), Gv::Str("gpt2".into())),
        (
            "tokenizer.ggml.tokens".into(),
            Gv::StrArray((0..vocab).map(|i| format!("token{i}")).collect()),
        ),
        (
            "tokenizer.ggml.scores".into(),
            Gv::F32Array((0..vocab).map(|i| i as f32).collect()),
        ),
        (
            "tokenizer.ggml.merges".into(),
            Gv::StrArray((0..50_000).map(|i| format!("t{i} k{i}")).collect()),
        ),
    ];
    let gguf_path = gguf_dir.join("model.gguf");
    ckpt_files::gguf(&gguf_path, &meta, &tensors);
    let gguf = gguf_plan();
    eprintln!(
        "checkpoint_open: BERT-base in 4 shards ({:.0} MB), GGUF {}",
        shard_paths
            .iter()
            .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
            .sum::<u64>() as f64
            / 1e6,
        describe(&gguf_path)
    );
    // Both verify before anything is timed.
    let b = bert
        .verify_source(&Checkpoint::open(bert_dir.path()).unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.get("n_layers"), Some(12));
    let b = gguf
        .verify_source(&Checkpoint::open(&gguf_path).unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.tied().len(), 1);

    let mut g = c.benchmark_group("checkpoint_open");
    g.warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("bert_4_shards_open_and_verify", |b| {
        b.iter(|| {
            let ckpt = Checkpoint::open(black_box(bert_dir.path())).unwrap();
            bert.verify_source(&ckpt).unwrap().len()
        })
    });
    g.bench_function("bert_4_shards_read_bytes", |b| {
        b.iter(|| {
            shard_paths
                .iter()
                .map(|p| std::fs::read(black_box(p)).unwrap().len())
                .sum::<usize>()
        })
    });
    g.bench_function("gguf_100mb_50k_vocab_open_and_verify", |b| {
        b.iter(|| {
            let ckpt = Checkpoint::open(black_box(&gguf_path)).unwrap();
            gguf.verify_source(&ckpt).unwrap().len()
        })
    });
    g.bench_function("gguf_100mb_50k_vocab_read_bytes", |b| {
        b.iter(|| std::fs::read(black_box(&gguf_path)).unwrap().len())
    });
    g.finish();
}

criterion_group!(benches, checkpoint, checkpoint_open);
criterion_main!(benches);
