//! `Checkpoint::open` on checkpoints written the way they are shipped (from the shipped
//! fracast checkpoint and from published model shapes), each also corrupted, every error's
//! text asserted; and dims bound from `config.json` / GGUF metadata, tied output heads.

use std::fs;

use shapes::{
    Checkpoint, CheckpointFormat, Plan, ShapeSource,
    checkpoint::ConfigPlace,
    verify::{Origin, PlanNode, SourceOptions},
};

use crate::common::ckpt_files::{self, Gv, TempDir, Tensor};
use crate::common::llama::tinyllama_1_1b;

fn err(path: &std::path::Path) -> String {
    Checkpoint::open(path).unwrap_err().to_string()
}

/// TinyLlama's `config.json`, as transformers writes it.
fn tinyllama_config(tied: bool, ff: usize) -> String {
    serde_json::json!({
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 2048,
        "intermediate_size": ff,
        "num_attention_heads": 32,
        "num_hidden_layers": 22,
        "num_key_value_heads": 4,
        "vocab_size": 32000,
        "tie_word_embeddings": tied,
        "torch_dtype": "bfloat16"
    })
    .to_string()
}

/// A Llama-family plan that binds its dims from either the config or the GGUF metadata.
fn llama_plan(prefix: &str, names: &LlamaNames) -> Plan {
    let layer = vec![
        PlanNode::tensor(names.q, "(heads * head_dim, d_model)"),
        PlanNode::tensor(names.k, "(kv_heads * head_dim, d_model)"),
        PlanNode::tensor(names.v, "(kv_heads * head_dim, d_model)"),
        PlanNode::tensor(names.o, "(d_model, heads * head_dim)"),
        PlanNode::tensor(names.gate, "(d_ff, d_model)"),
        PlanNode::tensor(names.up, "(d_ff, d_model)"),
        PlanNode::tensor(names.down, "(d_model, d_ff)"),
        PlanNode::tensor(names.attn_norm, "(d_model,)"),
        PlanNode::tensor(names.ffn_norm, "(d_model,)"),
    ];
    Plan::build(
        "Llama",
        &[
            PlanNode::group(
                prefix,
                vec![
                    PlanNode::tensor(names.embed, "(vocab, d_model)"),
                    PlanNode::group(names.layers, layer).repeated(Some("n_layers")),
                    PlanNode::tensor(names.norm, "(d_model,)"),
                ],
            ),
            PlanNode::tied(
                names.head,
                "(vocab, d_model)",
                names.head_to,
                Some("tie_word_embeddings"),
            ),
        ],
        &["d_model = heads * head_dim"],
    )
    .unwrap()
    .bind_from("d_model", &["hidden_size", "{arch}.embedding_length"])
    .unwrap()
    .bind_from("d_ff", &["intermediate_size", "{arch}.feed_forward_length"])
    .unwrap()
    .bind_from(
        "heads",
        &["num_attention_heads", "{arch}.attention.head_count"],
    )
    .unwrap()
    .bind_from(
        "kv_heads",
        &["num_key_value_heads", "{arch}.attention.head_count_kv"],
    )
    .unwrap()
    .bind_from("n_layers", &["num_hidden_layers", "{arch}.block_count"])
    .unwrap()
}

struct LlamaNames {
    embed: &'static str,
    layers: &'static str,
    q: &'static str,
    k: &'static str,
    v: &'static str,
    o: &'static str,
    gate: &'static str,
    up: &'static str,
    down: &'static str,
    attn_norm: &'static str,
    ffn_norm: &'static str,
    norm: &'static str,
    head: &'static str,
    head_to: &'static str,
}

const HF: LlamaNames = LlamaNames {
    embed: "embed_tokens.weight",
    layers: "layers",
    q: "self_attn.q_proj.weight",
    k: "self_attn.k_proj.weight",
    v: "self_attn.v_proj.weight",
    o: "self_attn.o_proj.weight",
    gate: "mlp.gate_proj.weight",
    up: "mlp.up_proj.weight",
    down: "mlp.down_proj.weight",
    attn_norm: "input_layernorm.weight",
    ffn_norm: "post_attention_layernorm.weight",
    norm: "norm.weight",
    head: "lm_head.weight",
    head_to: "model.embed_tokens.weight",
};

const GGUF: LlamaNames = LlamaNames {
    embed: "token_embd.weight",
    layers: "blk",
    q: "attn_q.weight",
    k: "attn_k.weight",
    v: "attn_v.weight",
    o: "attn_output.weight",
    gate: "ffn_gate.weight",
    up: "ffn_up.weight",
    down: "ffn_down.weight",
    attn_norm: "attn_norm.weight",
    ffn_norm: "ffn_norm.weight",
    norm: "output_norm.weight",
    head: "output.weight",
    head_to: "token_embd.weight",
};

/// TinyLlama's tensors under GGUF's names.
fn tinyllama_gguf_tensors() -> Vec<Tensor> {
    tinyllama_1_1b()
        .into_iter()
        .map(|(name, dims)| {
            let name = name
                .replace("model.embed_tokens", "token_embd")
                .replace("model.layers.", "blk.")
                .replace("self_attn.q_proj", "attn_q")
                .replace("self_attn.k_proj", "attn_k")
                .replace("self_attn.v_proj", "attn_v")
                .replace("self_attn.o_proj", "attn_output")
                .replace("mlp.gate_proj", "ffn_gate")
                .replace("mlp.up_proj", "ffn_up")
                .replace("mlp.down_proj", "ffn_down")
                .replace("input_layernorm", "attn_norm")
                .replace("post_attention_layernorm", "ffn_norm")
                .replace("model.norm", "output_norm")
                .replace("lm_head", "output");
            (name, dims)
        })
        .collect()
}

fn tinyllama_gguf_meta(ff: u32) -> Vec<(String, Gv)> {
    vec![
        ("general.architecture".into(), Gv::Str("llama".into())),
        ("general.name".into(), Gv::Str("TinyLlama".into())),
        ("llama.embedding_length".into(), Gv::U32(2048)),
        ("llama.feed_forward_length".into(), Gv::U32(ff)),
        ("llama.attention.head_count".into(), Gv::U32(32)),
        ("llama.attention.head_count_kv".into(), Gv::U32(4)),
        ("llama.block_count".into(), Gv::U32(22)),
        (
            "tokenizer.ggml.tokens".into(),
            Gv::StrArray((0..32000).map(|i| format!("tok{i}")).collect()),
        ),
    ]
}

#[test]
fn sharded_llama_binds_its_dims_from_the_config() {
    let dir = TempDir::new("llama-sharded");
    let tensors: Vec<Tensor> = tinyllama_1_1b();
    let shards = ckpt_files::sharded(dir.path(), &tensors, 3);
    fs::write(dir.join("config.json"), tinyllama_config(false, 5632)).unwrap();
    let plan = llama_plan("model", &HF);

    let ckpt = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(ckpt.format(), CheckpointFormat::ShardedSafetensors);
    assert_eq!(ckpt.files().len(), 3);
    assert_eq!(ckpt.tensors().len(), 201);
    assert_eq!(
        ckpt.get("lm_head.weight").map(|t| t.dtype.as_str()),
        Some("F16")
    );
    assert_eq!(ckpt.architecture(), Some("llama"));
    let b = plan.verify_source(&ckpt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.get("d_model"), Some(2048));
    assert_eq!(b.get("head_dim"), Some(64));
    assert_eq!(
        b.origin("kv_heads"),
        Some(Origin::Config {
            key: "num_key_value_heads".into()
        })
    );
    // The same through the index file.
    let by_index = Checkpoint::open(dir.join("model.safetensors.index.json")).unwrap();
    assert_eq!(by_index.tensor_names(), ckpt.tensor_names());

    // A config that disagrees with the tensors: the key is the cause.
    fs::write(dir.join("config.json"), tinyllama_config(false, 4096)).unwrap();
    let e = plan
        .verify_source(&Checkpoint::open(dir.path()).unwrap())
        .unwrap_err();
    let first = e.errors()[0].to_string();
    assert_eq!(
        first,
        "Llama.model.layers[0].mlp.gate_proj.weight: config `intermediate_size` = 4096, but \
         \"model.layers.0.mlp.gate_proj.weight\" axis 0 is 5632\n  d_ff = 4096 bound by config \
         `intermediate_size`\n  shape is (5632, 2048), pattern (d_ff, d_model)"
    );
    assert_eq!(e.len(), 22 * 3);

    // A missing shard, named.
    fs::remove_file(dir.join(&shards[1])).unwrap();
    assert_eq!(
        err(dir.path()),
        format!(
            "{}: shard \"model-00002-of-00003.safetensors\" is missing (67 tensor(s) listed in it, e.g. \"model.layers.10.input_layernorm.weight\")",
            dir.join("model.safetensors.index.json").display()
        )
    );
    let _ = ConfigPlace::ConfigJson;
    let _ = SourceOptions::new();
}

#[test]
fn split_gguf_llama_reads_as_one_source_with_a_tied_output() {
    let dir = TempDir::new("llama-split-gguf");
    let mut tensors = tinyllama_gguf_tensors();
    // llama.cpp leaves `output.weight` out when the output is tied to the embedding.
    tensors.retain(|(n, _)| n != "output.weight");
    let paths = ckpt_files::split_gguf(
        dir.path(),
        "tinyllama",
        &tinyllama_gguf_meta(5632),
        &tensors,
        3,
    );
    let plan = llama_plan("", &GGUF);

    for path in &paths {
        let ckpt = Checkpoint::open(path).unwrap();
        assert_eq!(ckpt.format(), CheckpointFormat::SplitGguf);
        assert_eq!((ckpt.files().len(), ckpt.tensors().len()), (3, 200));
    }
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(
        ckpt.get("token_embd.weight")
            .map(|t| (t.shape.dims(), t.dtype.as_str())),
        Some((&[32000, 2048][..], "F16"))
    );
    let b = plan.verify_source(&ckpt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        b.origin("d_model"),
        Some(Origin::Metadata {
            key: "llama.embedding_length".into()
        })
    );
    assert_eq!(b.get("n_layers"), Some(22));
    assert_eq!(b.tied().len(), 1);
    assert_eq!(
        b.tied()[0].to_string(),
        "output.weight is tied to token_embd.weight (absent from the checkpoint)"
    );
    assert!(
        b.to_string()
            .contains("output.weight is tied to token_embd.weight")
    );

    // Metadata that disagrees with the tensors.
    let bad = TempDir::new("llama-gguf-bad-meta");
    ckpt_files::gguf(
        &bad.join("tinyllama.gguf"),
        &tinyllama_gguf_meta(4096),
        &tensors,
    );
    let e = plan
        .verify_source(&Checkpoint::open(bad.join("tinyllama.gguf")).unwrap())
        .unwrap_err();
    assert_eq!(
        e.errors()[0].to_string(),
        "Llama.blk[0].ffn_gate.weight: metadata `llama.feed_forward_length` = 4096, but \
         \"blk.0.ffn_gate.weight\" axis 0 is 5632\n  d_ff = 4096 bound by metadata \
         `llama.feed_forward_length`\n  shape is (5632, 2048), pattern (d_ff, d_model)"
    );

    // A missing part, and a part whose split.no disagrees with its name.
    fs::rename(&paths[1], dir.join("elsewhere.bin")).unwrap();
    assert_eq!(
        err(&paths[0]),
        format!(
            "{}: part 2 of 3 of tinyllama is missing",
            paths[1].display()
        )
    );
    fs::copy(&paths[2], &paths[1]).unwrap();
    assert_eq!(
        err(&paths[0]),
        format!(
            "{}: the name says part 2 of 3, but split.no = 2 and split.count = 3 (split.no counts from 0)",
            paths[1].display()
        )
    );
}

#[test]
fn an_untied_output_head_that_is_missing_is_an_error() {
    let dir = TempDir::new("llama-untied");
    let mut tensors = tinyllama_1_1b();
    tensors.retain(|(n, _)| n != "lm_head.weight");
    ckpt_files::safetensors(&dir.join("model.safetensors"), &tensors, &[]);
    let plan = llama_plan("model", &HF);
    // Tied by the config: absent is fine, reported.
    fs::write(dir.join("config.json"), tinyllama_config(true, 5632)).unwrap();
    let b = plan
        .verify_source(&Checkpoint::open(dir.path()).unwrap())
        .unwrap();
    assert_eq!(
        b.tied()[0].to_string(),
        "lm_head.weight is tied to model.embed_tokens.weight (config `tie_word_embeddings` = true)"
    );
    // Untied by the config: absent is an error, a missing tensor.
    fs::write(dir.join("config.json"), tinyllama_config(false, 5632)).unwrap();
    let e = plan
        .verify_source(&Checkpoint::open(dir.path()).unwrap())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Llama.lm_head.weight: tensor \"lm_head.weight\" is missing, and config \
         `tie_word_embeddings` = false says it is not tied to \"model.embed_tokens.weight\"\n  \
         pattern (vocab, d_model)"
    );
    assert_eq!(e.missing_tensors(), ["lm_head.weight"]);
}

#[test]
fn a_missing_last_layer_is_caught_by_the_configs_layer_count() {
    let dir = TempDir::new("llama-missing-layer");
    let mut tensors = tinyllama_1_1b();
    tensors.retain(|(n, _)| !n.starts_with("model.layers.21."));
    ckpt_files::sharded(dir.path(), &tensors, 2);
    fs::write(dir.join("config.json"), tinyllama_config(false, 5632)).unwrap();
    let e = llama_plan("model", &HF)
        .verify_source(&Checkpoint::open(dir.path()).unwrap())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Llama.model.layers: expected 22 elements under model.layers.* (n_layers = 22), found \
         21: missing model.layers.21.*\n  n_layers = 22 bound by config `num_hidden_layers`\n  \
         pattern (n_layers,) = the number of elements"
    );
}

/// A small plan over some of fracast's tensors, `d_model` bound from its nested config.
fn fracast_plan() -> Plan {
    Plan::build(
        "Fracast",
        &[
            PlanNode::tensor("core.in_proj.weight", "(d_model, n_in)"),
            PlanNode::tensor("core.block.ffn.up.weight", "(d_up, d_model)"),
            PlanNode::tensor("core.block.ffn.down.weight", "(d_model, d_up / 2)"),
            PlanNode::group(
                "head.fc_blocks",
                vec![PlanNode::tensor("norm.weight", "(d_model,)")],
            )
            .repeated(Some("n_fc")),
        ],
        &[],
    )
    .unwrap()
    .bind_from("d_model", &["model.d_model"])
    .unwrap()
}

fn lenient() -> SourceOptions {
    SourceOptions::new().strict(false)
}

#[test]
fn fracast_sharded_with_an_index_and_its_corruptions() {
    let dir = TempDir::new("fracast-sharded");
    let tensors = ckpt_files::fracast_tensors();
    let shards = ckpt_files::sharded(dir.path(), &tensors, 4);
    fs::write(dir.join("config.json"), ckpt_files::fracast_config()).unwrap();
    let ckpt = Checkpoint::open(dir.join("model.safetensors.index.json")).unwrap();
    assert_eq!((ckpt.files().len(), ckpt.tensors().len()), (4, 47));
    assert_eq!(
        ckpt.metadata().get("format").map(String::as_str),
        Some("pt")
    );
    assert_eq!(
        ckpt.config("model.d_model").unwrap().to_string(),
        "config `model.d_model` = 64"
    );
    let b = fracast_plan()
        .verify_source_options(&ckpt, lenient())
        .unwrap();
    assert_eq!((b.get("d_model"), b.get("n_fc")), (Some(64), Some(2)));

    let index = dir.join("model.safetensors.index.json");
    let original = fs::read_to_string(&index).unwrap();
    let rewrite = |from: &str, to: &str| fs::write(&index, original.replacen(from, to, 1)).unwrap();
    // The index points one tensor at the wrong shard.
    rewrite(
        r#""core.block.dw_bias":"model-00001-of-00004.safetensors""#,
        r#""core.block.dw_bias":"model-00002-of-00004.safetensors""#,
    );
    assert_eq!(
        err(&index),
        format!(
            "{}: tensor \"core.block.dw_bias\" is listed in shard \"model-00002-of-00004.safetensors\", but that shard does not hold it (it is in \"model-00001-of-00004.safetensors\")",
            index.display()
        )
    );
    // The index lists a tensor no shard holds, and leaves one out.
    rewrite(r#""core.block.dw_bias""#, r#""core.block.dw_biass""#);
    assert!(err(&index).contains(
        "tensor \"core.block.dw_biass\" is listed in shard \"model-00001-of-00004.safetensors\", but that shard does not hold it (no shard does)"
    ));
    fs::write(
        &index,
        original.replacen(
            r#""core.block.dw_bias":"model-00001-of-00004.safetensors","#,
            "",
            1,
        ),
    )
    .unwrap();
    assert_eq!(
        err(&index),
        format!(
            "{}: tensor \"core.block.dw_bias\" in shard \"model-00001-of-00004.safetensors\" is not listed in the index",
            index.display()
        )
    );
    // One tensor in two shards.
    fs::write(&index, &original).unwrap();
    let mut second: Vec<Tensor> = tensors[12..24].to_vec();
    second.push(tensors[0].clone());
    ckpt_files::safetensors(&dir.join(&shards[1]), &second, &[]);
    assert_eq!(
        err(&index),
        format!(
            "tensor \"core.block.dw_bias\" is in two files: {} and {}",
            dir.join(&shards[0]).display(),
            dir.join(&shards[1]).display()
        )
    );
    // A corrupted dim, against the config.
    ckpt_files::safetensors(&dir.join(&shards[1]), &tensors[12..24], &[]);
    let mut corrupt = tensors[..12].to_vec();
    for (name, dims) in &mut corrupt {
        if name == "core.in_proj.weight" {
            dims[0] = 63;
        }
    }
    ckpt_files::safetensors(&dir.join(&shards[0]), &corrupt, &[]);
    let e = fracast_plan()
        .verify_source_options(&Checkpoint::open(&index).unwrap(), lenient())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Fracast.core.in_proj.weight: config `model.d_model` = 64, but \"core.in_proj.weight\" \
         axis 0 is 63\n  d_model = 64 bound by config `model.d_model`\n  shape is (63, 7), \
         pattern (d_model, n_in)"
    );
}

#[test]
fn fracast_as_npz_stored_and_deflated_and_as_a_pytorch_zip() {
    let tensors = ckpt_files::fracast_tensors();
    let dir = TempDir::new("fracast-zips");
    fs::write(dir.join("config.json"), ckpt_files::fracast_config()).unwrap();
    let cases = [
        ("stored.npz", CheckpointFormat::Npz),
        ("deflated.npz", CheckpointFormat::Npz),
        ("pytorch_model.bin", CheckpointFormat::PyTorch),
    ];
    ckpt_files::npz(&dir.join("stored.npz"), &tensors, false);
    ckpt_files::npz(&dir.join("deflated.npz"), &tensors, true);
    ckpt_files::pt(&dir.join("pytorch_model.bin"), &tensors);
    for (file, format) in cases {
        let ckpt = Checkpoint::open(dir.join(file)).unwrap();
        assert_eq!(ckpt.format(), format, "{file}");
        let got: Vec<(String, Vec<usize>)> = ckpt
            .tensors()
            .iter()
            .map(|t| (t.name.clone(), t.shape.dims().to_vec()))
            .collect();
        assert_eq!(got, tensors, "{file}");
        assert!(ckpt.tensors().iter().all(|t| t.dtype == "F32"), "{file}");
        assert_eq!(
            fracast_plan()
                .verify_source_options(&ckpt, lenient())
                .unwrap()
                .get("d_model"),
            Some(64)
        );
    }
    // A corrupted dim in each.
    let mut corrupt = tensors.clone();
    corrupt[11].1[0] = 63;
    assert_eq!(corrupt[11].0, "core.in_proj.weight");
    ckpt_files::npz(&dir.join("deflated.npz"), &corrupt, true);
    ckpt_files::pt(&dir.join("pytorch_model.bin"), &corrupt);
    for file in ["deflated.npz", "pytorch_model.bin"] {
        let e = fracast_plan()
            .verify_source_options(&Checkpoint::open(dir.join(file)).unwrap(), lenient())
            .unwrap_err();
        assert!(
            e.to_string().starts_with(
                "Fracast.core.in_proj.weight: config `model.d_model` = 64, but \"core.in_proj.weight\" axis 0 is 63"
            ),
            "{file}: {e}"
        );
    }
    // A single .npy.
    fs::write(dir.join("w.npy"), ckpt_files::npy_bytes(&[3, 4])).unwrap();
    let one = Checkpoint::open(dir.join("w.npy")).unwrap();
    assert_eq!(
        (one.format(), one.shape_of("w")),
        (CheckpointFormat::Npy, Some(&[3, 4][..]))
    );
}

#[test]
fn files_that_are_not_checkpoints_are_clear_errors() {
    let dir = TempDir::new("bad-files");
    let legacy = dir.join("legacy.pt");
    fs::write(
        &legacy,
        b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e",
    )
    .unwrap();
    assert_eq!(
        err(&legacy),
        format!(
            "{}: PyTorch's legacy (pre-1.6, non-zip) format is not read: re-save it with torch.save in a current PyTorch, or convert it to safetensors",
            legacy.display()
        )
    );
    let text = dir.join("notes.txt");
    fs::write(&text, "hello world, not weights").unwrap();
    assert!(err(&text).ends_with("not a checkpoint this reader knows: it starts with \"hello wo\", not a safetensors header, \"GGUF\", a zip archive (.npz, PyTorch) or a numpy header"));
    // A zip that is neither numpy's nor torch's.
    let z = dir.join("other.npz");
    {
        use std::io::Write;
        let mut w = zip::ZipWriter::new(fs::File::create(&z).unwrap());
        w.start_file("readme.txt", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(b"hi").unwrap();
        w.finish().unwrap();
    }
    assert_eq!(
        err(&z),
        format!(
            "{}: a zip archive with no .npy member and no data.pkl: neither numpy's .npz nor PyTorch's",
            z.display()
        )
    );
    // A pickle with an opcode a state dict never uses.
    let p = dir.join("evil.pt");
    {
        use std::io::Write;
        let mut w = zip::ZipWriter::new(fs::File::create(&p).unwrap());
        w.start_file("archive/data.pkl", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00lsi.")
            .unwrap();
        w.finish().unwrap();
    }
    assert_eq!(
        err(&p),
        format!(
            "{}: archive/data.pkl: pickle byte 20: opcode 0x69 is not one a PyTorch state dict uses",
            p.display()
        )
    );
    // A broken config.json beside good weights.
    let d = TempDir::new("bad-config");
    ckpt_files::safetensors(&d.join("model.safetensors"), &[("w".into(), vec![2])], &[]);
    fs::write(d.join("config.json"), "{\"hidden_size\": 7,").unwrap();
    assert!(err(d.path()).starts_with(&format!(
        "{}: malformed JSON: ",
        d.join("config.json").display()
    )));
    let e = Checkpoint::open(d.join("nothing-here")).unwrap_err();
    assert!(format!("{e:?}").starts_with(&format!("{}: ", d.join("nothing-here").display())));
    let empty = TempDir::new("empty");
    assert!(err(empty.path()).ends_with("no weights found: looked for model.safetensors.index.json, *.safetensors, *.gguf, *.bin, *.pt, *.pth, *.npz and *.npy"));
}

#[test]
fn bert_base_in_four_shards_verifies_against_the_derived_struct() {
    use crate::common::bert::hf::{BertModel, bert_base_uncased};
    use shapes::{Shape, Shaped};
    let dir = TempDir::new("bert-sharded");
    ckpt_files::sharded(dir.path(), &bert_base_uncased(false), 4);
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(ckpt.tensors().len(), 199);
    let pre = shapes::Bindings::new().bind("heads", 12);
    let b = BertModel::<Shape>::verify_source_with(&ckpt, pre).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((b.get("d_model"), b.get("n_layers")), (Some(768), Some(12)));
}

/// `LlamaForCausalLM` with its dims bound from the config (`d_ff` and `kv_heads` belong to
/// nested structs) and its output head tied to the embedding.
#[derive(shapes::Shaped)]
#[shapes(config(
    d_model = "hidden_size | {arch}.embedding_length",
    d_ff = "intermediate_size | {arch}.feed_forward_length",
    heads = "num_attention_heads",
    kv_heads = "num_key_value_heads",
    n_layers = "num_hidden_layers"
))]
struct ConfiguredLlama<T> {
    #[shape(nested)]
    model: crate::common::llama::Model<T>,
    #[shape(
        "(vocab, d_model)",
        name = "lm_head.weight",
        tied = "model.embed_tokens.weight",
        tie_key = "tie_word_embeddings"
    )]
    lm_head: Option<T>,
}

#[test]
fn a_derived_struct_binds_from_the_config_and_allows_a_tied_head() {
    use shapes::{Shape, Shaped};
    type M = ConfiguredLlama<Shape>;
    let dir = TempDir::new("llama-derived");
    let mut tensors = tinyllama_1_1b();
    tensors.retain(|(n, _)| n != "lm_head.weight");
    ckpt_files::sharded(dir.path(), &tensors, 2);
    fs::write(dir.join("config.json"), tinyllama_config(true, 5632)).unwrap();
    let b =
        M::verify_source(&Checkpoint::open(dir.path()).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        b.origin("d_ff").map(|o| o.to_string()).as_deref(),
        Some("config `intermediate_size`")
    );
    assert_eq!((b.get("head_dim"), b.get("vocab")), (Some(64), Some(32000)));
    assert_eq!(b.tied()[0].tensor, "lm_head.weight");

    fs::write(dir.join("config.json"), tinyllama_config(true, 4096)).unwrap();
    let e = M::verify_source(&Checkpoint::open(dir.path()).unwrap()).unwrap_err();
    assert_eq!(
        e.errors()[0].to_string(),
        "ConfiguredLlama.model.layers[0].mlp.gate: config `intermediate_size` = 4096, but \
         \"model.layers.0.mlp.gate_proj.weight\" axis 0 is 5632\n  d_ff = 4096 bound by config \
         `intermediate_size`\n  shape is (5632, 2048), pattern (d_ff, d_model)"
    );

    fs::write(dir.join("config.json"), tinyllama_config(false, 5632)).unwrap();
    let e = M::verify_source(&Checkpoint::open(dir.path()).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ConfiguredLlama.lm_head: tensor \"lm_head.weight\" is missing, and config \
         `tie_word_embeddings` = false says it is not tied to \"model.embed_tokens.weight\"\n  \
         pattern (vocab, d_model)"
    );
    // A caller's value wins over the config's.
    let pre = shapes::Bindings::new().bind("d_ff", 5632);
    fs::write(dir.join("config.json"), tinyllama_config(true, 4096)).unwrap();
    let b = M::verify_source_with(&Checkpoint::open(dir.path()).unwrap(), pre)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.origin("d_ff"), Some(Origin::Given));
}
