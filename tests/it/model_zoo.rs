//! A BERT-style and a Llama-style struct, each checked with `verify_source` against a
//! safetensors header this test writes from a published model's shapes: `bert-base-uncased`
//! (as `BertModel` names its parameters) and TinyLlama-1.1B (`LlamaForCausalLM`). The header
//! carries no tensor data. Wrong checkpoints give the right errors.

use shapes::{Bindings, Shaped, verify::SourceOptions};

use crate::common::bert::{self, hf::BertModel};
use crate::common::llama::{self, LlamaForCausalLM};
use crate::common::st_header;

type Tensors = Vec<(String, Vec<usize>)>;

fn set(tensors: &mut Tensors, name: &str, dims: &[usize]) {
    let t = tensors
        .iter_mut()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no tensor {name}"));
    t.1 = dims.to_vec();
}

// ----- BERT -----

fn bert_config() -> Bindings {
    // config.json: num_attention_heads 12 (not visible in any shape).
    Bindings::new().bind("heads", 12)
}

#[test]
fn bert_base_uncased_verifies_from_its_header() {
    let tensors = bert::hf::bert_base_uncased(false);
    assert_eq!(tensors.len(), 199);
    let header = st_header::header(&tensors);
    let b = BertModel::<shapes::Shape>::verify_source_with(&header, bert_config())
        .unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(&str, Option<usize>)> = [
        "vocab",
        "max_pos",
        "type_vocab",
        "d_model",
        "head_dim",
        "d_ff",
        "n_layers",
    ]
    .iter()
    .map(|n| (*n, b.get(n)))
    .collect();
    assert_eq!(
        got,
        [
            ("vocab", Some(30522)),
            ("max_pos", Some(512)),
            ("type_vocab", Some(2)),
            ("d_model", Some(768)),
            ("head_dim", Some(64)),
            ("d_ff", Some(3072)),
            ("n_layers", Some(12)),
        ]
    );
}

#[test]
fn bert_position_ids_buffer_is_optional_but_checked() {
    let mut tensors = bert::hf::bert_base_uncased(true);
    let header = st_header::header(&tensors);
    assert!(BertModel::<shapes::Shape>::verify_source_with(&header, bert_config()).is_ok());
    set(&mut tensors, "embeddings.position_ids", &[1, 514]);
    let err =
        BertModel::<shapes::Shape>::verify_source_with(&st_header::header(&tensors), bert_config())
            .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "BertModel.embeddings.position_ids (tensor \"embeddings.position_ids\"): axis 1 expected max_pos = 512, found 514"
        ),
        "{err}"
    );
}

#[test]
fn bert_with_a_wrong_head_count_or_a_truncated_layer_is_reported() {
    let header = st_header::header(&bert::hf::bert_base_uncased(false));
    // A config claiming 10 heads: 768 is not a multiple of 10.
    let err =
        BertModel::<shapes::Shape>::verify_source_with(&header, Bindings::new().bind("heads", 10))
            .unwrap_err();
    assert!(err.to_string().contains("768 / 10"), "{err}");

    // One layer's FFN saved with the wrong intermediate size.
    let mut tensors = bert::hf::bert_base_uncased(false);
    set(
        &mut tensors,
        "encoder.layer.7.intermediate.dense.weight",
        &[2048, 768],
    );
    let err =
        BertModel::<shapes::Shape>::verify_source_with(&st_header::header(&tensors), bert_config())
            .unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    assert!(
        err.to_string().starts_with(
            "BertModel.layers[7].up_w (tensor \"encoder.layer.7.intermediate.dense.weight\"): axis 0 expected d_ff = 3072, found 2048\n  d_ff = 3072 bound by BertModel.layers[0].up_w axis 0"
        ),
        "{err}"
    );

    // A checkpoint of a BertForPreTraining (everything under `bert.`, plus heads) is all
    // missing and unexpected for BertModel: both lists say so.
    let prefixed: Tensors = bert::hf::bert_base_uncased(false)
        .into_iter()
        .map(|(n, d)| (format!("bert.{n}"), d))
        .collect();
    let err = BertModel::<shapes::Shape>::verify_source_with(
        &st_header::header(&prefixed),
        bert_config(),
    )
    .unwrap_err();
    assert!(
        err.missing_tensors()
            .contains(&"embeddings.word_embeddings.weight")
    );
    assert_eq!(err.unexpected_tensors().len(), 199);
}

// ----- Llama -----

fn llama_config() -> Bindings {
    // TinyLlama-1.1B config.json: num_attention_heads 32.
    Bindings::new().bind("heads", 32)
}

#[test]
fn tinyllama_verifies_from_its_header_with_grouped_query_attention() {
    let tensors = llama::tinyllama_1_1b();
    assert_eq!(tensors.len(), 201);
    let header = st_header::header(&tensors);
    let b = LlamaForCausalLM::<shapes::Shape>::verify_source_with(&header, llama_config())
        .unwrap_or_else(|e| panic!("{e}"));
    for (name, value) in [
        ("vocab", 32000),
        ("d_model", 2048),
        ("head_dim", 64),
        ("kv_heads", 4),
        ("d_ff", 5632),
        ("n_layers", 22),
    ] {
        assert_eq!(b.get(name), Some(value), "{name}");
    }
}

#[test]
fn tied_embeddings_mean_no_lm_head_and_old_rope_buffers_are_checked() {
    let mut tensors = llama::tinyllama_1_1b();
    tensors.retain(|(n, _)| n != "lm_head.weight");
    for i in 0..22 {
        tensors.push((
            format!("model.layers.{i}.self_attn.rotary_emb.inv_freq"),
            vec![32],
        ));
    }
    let header = st_header::header(&tensors);
    let b = LlamaForCausalLM::<shapes::Shape>::verify_source(&header)
        .expect("inv_freq gives head_dim, so heads is solved without the config");
    assert_eq!((b.get("heads"), b.get("kv_heads")), (Some(32), Some(4)));

    set(
        &mut tensors,
        "model.layers.3.self_attn.rotary_emb.inv_freq",
        &[16],
    );
    let err =
        LlamaForCausalLM::<shapes::Shape>::verify_source(&st_header::header(&tensors)).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "LlamaForCausalLM.model.layers[3].self_attn.inv_freq (tensor \"model.layers.3.self_attn.rotary_emb.inv_freq\"): axis 0 expected head_dim / 2 = 64 / 2 = 32, found 16"
        ),
        "{err}"
    );
}

#[test]
fn a_kv_heads_mismatch_names_the_key_projection() {
    let header = st_header::header(&llama::tinyllama_1_1b());
    // A config that says 8 key/value heads (Llama-3-8B's) against TinyLlama's 4.
    let err = LlamaForCausalLM::<shapes::Shape>::verify_source_with(
        &header,
        llama_config().bind("kv_heads", 8),
    )
    .unwrap_err();
    let first = err.first().unwrap();
    assert_eq!(
        first.tensor.as_deref(),
        Some("model.layers.0.self_attn.k_proj.weight")
    );
    assert!(
        first.to_string().starts_with(
            "LlamaForCausalLM.model.layers[0].self_attn.k (tensor \"model.layers.0.self_attn.k_proj.weight\"): axis 0 expected kv_heads * head_dim = 8 * 64 = 512, found 256\n  kv_heads = 8 bound by the caller; head_dim = 64 bound by solving LlamaForCausalLM.model.layers[0].self_attn.q"
        ),
        "{first}"
    );

    // One layer converted with the wrong number of kv heads.
    let mut tensors = llama::tinyllama_1_1b();
    set(
        &mut tensors,
        "model.layers.12.self_attn.v_proj.weight",
        &[512, 2048],
    );
    let err = LlamaForCausalLM::<shapes::Shape>::verify_source_with(
        &st_header::header(&tensors),
        llama_config(),
    )
    .unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    assert!(
        err.to_string().starts_with(
            "LlamaForCausalLM.model.layers[12].self_attn.v (tensor \"model.layers.12.self_attn.v_proj.weight\"): axis 0 expected kv_heads * head_dim = 4 * 64 = 256, found 512"
        ),
        "{err}"
    );

    // A missing layer in the middle: a gap, and non-strict mode still reports it.
    let mut tensors = llama::tinyllama_1_1b();
    tensors.retain(|(n, _)| !n.starts_with("model.layers.5."));
    let err = LlamaForCausalLM::<shapes::Shape>::verify_source_options(
        &st_header::header(&tensors),
        SourceOptions::new().bindings(llama_config()).strict(false),
    )
    .unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    assert!(
        err.to_string()
            .contains("no tensor under model.layers.5 but some under model.layers.{6..21}"),
        "{err}"
    );
}
