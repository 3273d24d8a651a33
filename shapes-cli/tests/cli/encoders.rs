//! The built-in encoder, encoder–decoder and vision families in Hugging Face names, and
//! checkpoints saved from a task class (the base model under its base_model_prefix, beside
//! the task's head): each on a header written from a published config.json.

use crate::decoders::passes_then_caught;
use crate::models::M;
use crate::support::*;
use crate::{has_line, hf_dir, s};

/// BERT's encoder layers and embeddings under `m`, its LayerNorms' parameters named
/// `norm.0`/`norm.1` (weight and bias, or gamma and beta).
fn bert_body(
    m: &mut M,
    vocab: usize,
    pos: usize,
    types: usize,
    d: usize,
    ff: usize,
    (w, b): (&str, &str),
) {
    let norm = |m: &mut M, name: &str| {
        m.t(&format!("{name}.{w}"), &[d])
            .t(&format!("{name}.{b}"), &[d]);
    };
    m.t("embeddings.word_embeddings.weight", &[vocab, d])
        .t("embeddings.position_embeddings.weight", &[pos, d])
        .t("embeddings.token_type_embeddings.weight", &[types, d]);
    norm(m, "embeddings.LayerNorm");
    m.each("encoder.layer", 12, |l, _| {
        for p in ["query", "key", "value"] {
            l.lin(&format!("attention.self.{p}"), d, d, true);
        }
        l.lin("attention.output.dense", d, d, true);
        norm(l, "attention.output.LayerNorm");
        l.lin("intermediate.dense", ff, d, true)
            .lin("output.dense", d, ff, true);
        norm(l, "output.LayerNorm");
    });
}

#[test]
fn bert_saved_from_bert_for_pre_training() {
    // bert-base-uncased, as its original checkpoint was saved from BertForPreTraining: the
    // model under `bert.` (LayerNorms under their TensorFlow names gamma and beta), the
    // masked-LM head (its decoder tied to the word embeddings) and the next-sentence head.
    let (vocab, d, ff) = (30522, 768, 3072);
    let mut m = M::new();
    m.under("bert", |b| {
        bert_body(b, vocab, 512, 2, d, ff, ("gamma", "beta"));
        b.lin("pooler.dense", d, d, true);
    });
    let t = m
        .t("cls.predictions.bias", &[vocab])
        .lin("cls.predictions.transform.dense", d, d, true)
        .t("cls.predictions.transform.LayerNorm.gamma", &[d])
        .t("cls.predictions.transform.LayerNorm.beta", &[d])
        .lin("cls.seq_relationship", 2, d, true)
        .done();
    let out = passes_then_caught(
        "bert_pretraining",
        &t,
        BERT_CONFIG,
        "cls.predictions.bias",
        &[30000],
        "config `vocab_size` = 30522, but \"cls.predictions.bias\" axis 0 is 30000",
    );
    assert!(
        out.contains(
            "cls.predictions.decoder.weight is tied to bert.embeddings.word_embeddings.weight"
        ),
        "{out}"
    );
    // The next-sentence head has two rows.
    let bad = reshaped(t.clone(), "cls.seq_relationship.weight", &[3, d]);
    let path = hf_dir("bert_pretraining_nsp", &bad, BERT_CONFIG);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("(tensor \"cls.seq_relationship.weight\"): axis 0 expected 2, found 3"),
        "{out}"
    );
    // A head tensor outside the prefix in a base-model layout is not one the spec expects.
    let base: Tensors = bert_base()
        .into_iter()
        .chain([("cls.predictions.bias".to_string(), vec![vocab])])
        .collect();
    let path = hf_dir("bert_base_with_head", &base, BERT_CONFIG);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("unexpected tensors (1):\n  cls.predictions.bias"),
        "{out}"
    );
}

#[test]
fn gpt2_saved_from_gpt2_lm_head_model() {
    // openai-community/gpt2's shapes as GPT2LMHeadModel saves them: under `transformer.`, the
    // head tied to wte (absent from the file).
    let t: Tensors = gpt2_small()
        .into_iter()
        .map(|(n, d)| (format!("transformer.{n}"), d))
        .collect();
    let out = passes_then_caught(
        "gpt2_lm_head",
        &t,
        GPT2_CONFIG,
        "transformer.h.11.mlp.c_proj.weight",
        &[768, 3072],
        "(tensor \"transformer.h.11.mlp.c_proj.weight\"): looks transposed: expected (3072, 768), found (768, 3072)",
    );
    assert!(
        out.contains("lm_head.weight is tied to transformer.wte.weight"),
        "{out}"
    );
}

#[test]
fn roberta_saved_from_roberta_for_masked_lm() {
    // FacebookAI/roberta-base config.json: 12 layers of 12 heads, hidden 768, intermediate
    // 3072, vocab 50265, 514 positions, one token type; RobertaForMaskedLM saves the model
    // under `roberta.` beside its `lm_head`.
    let (vocab, d, ff) = (50265, 768, 3072);
    let mut m = M::new();
    m.under("roberta", |r| {
        bert_body(r, vocab, 514, 1, d, ff, ("weight", "bias"))
    });
    let t = m
        .t("lm_head.bias", &[vocab])
        .lin("lm_head.dense", d, d, true)
        .norm("lm_head.layer_norm", d, true)
        .done();
    let config = r#"{"architectures":["RobertaForMaskedLM"],"model_type":"roberta","hidden_size":768,"num_attention_heads":12,"num_hidden_layers":12,"intermediate_size":3072,"vocab_size":50265,"max_position_embeddings":514,"type_vocab_size":1}"#;
    passes_then_caught(
        "roberta",
        &t,
        config,
        "roberta.embeddings.position_embeddings.weight",
        &[512, 768],
        "config `max_position_embeddings` = 514, but \"roberta.embeddings.position_embeddings.weight\" axis 0 is 512",
    );
    // xlm-roberta-base: the same layout, model_type xlm-roberta, a vocabulary of 250002.
    let config = config
        .replace("RobertaForMaskedLM", "XLMRobertaForMaskedLM")
        .replace("\"roberta\"", "\"xlm-roberta\"")
        .replace("50265", "250002");
    let t: Tensors = t
        .into_iter()
        .map(|(n, mut dims)| {
            if dims.first() == Some(&vocab) {
                dims[0] = 250002;
            }
            (n, dims)
        })
        .collect();
    let path = hf_dir("xlm_roberta", &t, &config);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(has_line(&out, "vocab 250002 config `vocab_size`"), "{out}");
}

/// T5's stacks: `layers` encoder and decoder blocks, gated or ReLU feed-forwards.
fn t5(d: usize, ff: usize, heads: usize, layers: usize, gated: bool, head: bool) -> Tensors {
    let inner = heads * 64;
    let attn = |l: &mut M, a: &str| {
        l.lin(&format!("{a}.q"), inner, d, false)
            .lin(&format!("{a}.k"), inner, d, false)
            .lin(&format!("{a}.v"), inner, d, false)
            .lin(&format!("{a}.o"), d, inner, false);
    };
    let ffn = |l: &mut M, f: &str| {
        if gated {
            l.lin(&format!("{f}.wi_0"), ff, d, false)
                .lin(&format!("{f}.wi_1"), ff, d, false);
        } else {
            l.lin(&format!("{f}.wi"), ff, d, false);
        }
        l.lin(&format!("{f}.wo"), d, ff, false);
    };
    let mut m = M::new();
    m.t("shared.weight", &[32128, d]);
    for stack in ["encoder", "decoder"] {
        m.t(
            &format!("{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"),
            &[32, heads],
        );
        m.each(&format!("{stack}.block"), layers, |b, _| {
            attn(b, "layer.0.SelfAttention");
            b.norm("layer.0.layer_norm", d, false);
            let last = if stack == "decoder" {
                attn(b, "layer.1.EncDecAttention");
                b.norm("layer.1.layer_norm", d, false);
                "layer.2"
            } else {
                "layer.1"
            };
            ffn(b, &format!("{last}.DenseReluDense"));
            b.norm(&format!("{last}.layer_norm"), d, false);
        });
        m.norm(&format!("{stack}.final_layer_norm"), d, false);
    }
    if head {
        m.t("lm_head.weight", &[32128, d]);
    }
    m.done()
}

#[test]
fn t5_small_encoder_decoder() {
    // google-t5/t5-small config.json: d_model 512, d_ff 2048, 8 heads of d_kv 64, 6 layers
    // in each stack, 32 relative-position buckets, a ReLU feed-forward, vocab 32128, the head
    // tied to `shared`.
    let t = t5(512, 2048, 8, 6, false, false);
    let config = r#"{"architectures":["T5ForConditionalGeneration"],"model_type":"t5","d_model":512,"d_ff":2048,"d_kv":64,"num_heads":8,"num_layers":6,"relative_attention_num_buckets":32,"feed_forward_proj":"relu","vocab_size":32128,"is_encoder_decoder":true}"#;
    let out = passes_then_caught(
        "t5_small",
        &t,
        config,
        "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
        &[8, 32],
        "(tensor \"decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight\"): looks transposed: expected (32, 8), found (8, 32)",
    );
    assert!(
        out.contains("lm_head.weight is tied to shared.weight"),
        "{out}"
    );
    // The encoder alone (T5EncoderModel) is a T5 too.
    let encoder: Tensors = t
        .into_iter()
        .filter(|(n, _)| !n.starts_with("decoder."))
        .collect();
    let path = hf_dir("t5_small_encoder", &encoder, config);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn flan_t5_small_gated_with_an_untied_head() {
    // google/flan-t5-small config.json: d_model 512, d_ff 1024, 6 heads of d_kv 64 (384 wide,
    // not d_model), 8 layers in each stack, gated-gelu, untied head, vocab 32128.
    let t = t5(512, 1024, 6, 8, true, true);
    let config = r#"{"architectures":["T5ForConditionalGeneration"],"model_type":"t5","d_model":512,"d_ff":1024,"d_kv":64,"num_heads":6,"num_layers":8,"num_decoder_layers":8,"relative_attention_num_buckets":32,"feed_forward_proj":"gated-gelu","vocab_size":32128,"tie_word_embeddings":false}"#;
    passes_then_caught(
        "flan_t5_small",
        &t,
        config,
        "encoder.block.7.layer.1.DenseReluDense.wi_1.weight",
        &[2048, 512],
        "config `d_ff` = 1024, but \"encoder.block.7.layer.1.DenseReluDense.wi_1.weight\" axis 0 is 2048",
    );
    // Half of a gated feed-forward is not a ReLU one.
    let half: Tensors = t
        .into_iter()
        .filter(|(n, _)| n != "decoder.block.2.layer.2.DenseReluDense.wi_1.weight")
        .collect();
    let path = hf_dir("flan_t5_small_half", &half, config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("missing tensors (1):\n  decoder.block.2.layer.2.DenseReluDense.wi_1.weight"),
        "{out}"
    );
}

#[test]
fn whisper_tiny_encoder_and_decoder() {
    // openai/whisper-tiny config.json: d_model 384, 4 encoder and 4 decoder layers of 6
    // heads, feed-forwards of 1536, 80 mel bins, 1500 source and 448 target positions, vocab
    // 51865; WhisperForConditionalGeneration saves the model under `model.`.
    let (d, ff, vocab) = (384, 1536, 51865);
    let attn = |l: &mut M, a: &str| {
        l.t(&format!("{a}.k_proj.weight"), &[d, d])
            .lin(&format!("{a}.v_proj"), d, d, true)
            .lin(&format!("{a}.q_proj"), d, d, true)
            .lin(&format!("{a}.out_proj"), d, d, true);
    };
    let t = M::new()
        .under("model.encoder", |e| {
            e.t("conv1.weight", &[d, 80, 3])
                .t("conv1.bias", &[d])
                .t("conv2.weight", &[d, d, 3])
                .t("conv2.bias", &[d])
                .t("embed_positions.weight", &[1500, d])
                .each("layers", 4, |l, _| {
                    attn(l, "self_attn");
                    l.norm("self_attn_layer_norm", d, true)
                        .lin("fc1", ff, d, true)
                        .lin("fc2", d, ff, true)
                        .norm("final_layer_norm", d, true);
                })
                .norm("layer_norm", d, true);
        })
        .under("model.decoder", |e| {
            e.t("embed_tokens.weight", &[vocab, d])
                .t("embed_positions.weight", &[448, d])
                .each("layers", 4, |l, _| {
                    attn(l, "self_attn");
                    l.norm("self_attn_layer_norm", d, true);
                    attn(l, "encoder_attn");
                    l.norm("encoder_attn_layer_norm", d, true)
                        .lin("fc1", ff, d, true)
                        .lin("fc2", d, ff, true)
                        .norm("final_layer_norm", d, true);
                })
                .norm("layer_norm", d, true);
        })
        .done();
    let config = r#"{"architectures":["WhisperForConditionalGeneration"],"model_type":"whisper","d_model":384,"encoder_layers":4,"decoder_layers":4,"encoder_attention_heads":6,"decoder_attention_heads":6,"encoder_ffn_dim":1536,"decoder_ffn_dim":1536,"num_mel_bins":80,"max_source_positions":1500,"max_target_positions":448,"vocab_size":51865}"#;
    passes_then_caught(
        "whisper_tiny",
        &t,
        config,
        "model.encoder.conv1.weight",
        &[384, 128, 3],
        "config `num_mel_bins` = 80, but \"model.encoder.conv1.weight\" axis 1 is 128",
    );
}

#[test]
fn vit_saved_from_vit_for_image_classification() {
    // google/vit-base-patch16-224 config.json: hidden 768, 12 layers, intermediate 3072,
    // 224-pixel images in patches of 16 (196 positions and the class token's), 3 channels;
    // ViTForImageClassification saves the model under `vit.` beside a 1000-row classifier.
    let (d, ff) = (768, 3072);
    let t = M::new()
        .under("vit", |v| {
            v.t("embeddings.cls_token", &[1, 1, d])
                .t("embeddings.position_embeddings", &[1, 197, d])
                .t(
                    "embeddings.patch_embeddings.projection.weight",
                    &[d, 3, 16, 16],
                )
                .t("embeddings.patch_embeddings.projection.bias", &[d])
                .each("encoder.layer", 12, |l, _| {
                    for p in ["query", "key", "value"] {
                        l.lin(&format!("attention.attention.{p}"), d, d, true);
                    }
                    l.lin("attention.output.dense", d, d, true)
                        .lin("intermediate.dense", ff, d, true)
                        .lin("output.dense", d, ff, true)
                        .norm("layernorm_before", d, true)
                        .norm("layernorm_after", d, true);
                })
                .norm("layernorm", d, true);
        })
        .lin("classifier", 1000, d, true)
        .done();
    let config = r#"{"architectures":["ViTForImageClassification"],"model_type":"vit","hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"image_size":224,"patch_size":16,"num_channels":3}"#;
    passes_then_caught(
        "vit",
        &t,
        config,
        "vit.embeddings.position_embeddings",
        &[1, 196, 768],
        "(tensor \"vit.embeddings.position_embeddings\"): axis 1 expected grid * grid + 1 = 14 * 14 + 1 = 197, found 196",
    );
}

/// One tower's encoder layers under `prefix`.
fn tower(m: &mut M, prefix: &str, n: usize, d: usize, ff: usize) {
    m.each(prefix, n, |l, _| {
        for p in ["q_proj", "k_proj", "v_proj", "out_proj"] {
            l.lin(&format!("self_attn.{p}"), d, d, true);
        }
        l.norm("layer_norm1", d, true)
            .lin("mlp.fc1", ff, d, true)
            .lin("mlp.fc2", d, ff, true)
            .norm("layer_norm2", d, true);
    });
}

#[test]
fn clip_with_its_two_towers() {
    // openai/clip-vit-base-patch32 config.json: projection_dim 512; text_config hidden 512,
    // intermediate 2048, 12 layers, 77 positions, vocab 49408; vision_config hidden 768,
    // intermediate 3072, 12 layers, 224-pixel images in patches of 32 (49 positions and the
    // class embedding's).
    let (td, vd) = (512, 768);
    let mut m = M::new();
    m.t("logit_scale", &[])
        .t("text_model.embeddings.token_embedding.weight", &[49408, td])
        .t("text_model.embeddings.position_embedding.weight", &[77, td])
        .t("text_model.embeddings.position_ids", &[1, 77]);
    tower(&mut m, "text_model.encoder.layers", 12, td, 2048);
    m.norm("text_model.final_layer_norm", td, true)
        .t("text_projection.weight", &[512, td])
        .t("vision_model.embeddings.class_embedding", &[vd])
        .t(
            "vision_model.embeddings.patch_embedding.weight",
            &[vd, 3, 32, 32],
        )
        .t(
            "vision_model.embeddings.position_embedding.weight",
            &[50, vd],
        )
        .t("vision_model.embeddings.position_ids", &[1, 50])
        .norm("vision_model.pre_layrnorm", vd, true);
    tower(&mut m, "vision_model.encoder.layers", 12, vd, 3072);
    let t = m
        .norm("vision_model.post_layernorm", vd, true)
        .t("visual_projection.weight", &[512, vd])
        .done();
    let config = r#"{"architectures":["CLIPModel"],"model_type":"clip","projection_dim":512,"text_config":{"hidden_size":512,"intermediate_size":2048,"num_attention_heads":8,"num_hidden_layers":12,"max_position_embeddings":77,"vocab_size":49408},"vision_config":{"hidden_size":768,"intermediate_size":3072,"num_attention_heads":12,"num_hidden_layers":12,"image_size":224,"patch_size":32,"num_channels":3}}"#;
    let out = passes_then_caught(
        "clip",
        &t,
        config,
        "visual_projection.weight",
        &[512, 512],
        "config `vision_config.hidden_size` = 768, but \"visual_projection.weight\" axis 1 is 512",
    );
    assert!(
        has_line(&out, "t_d 512 config `text_config.hidden_size`"),
        "{out}"
    );
}

#[test]
fn siglip_with_its_pooling_head() {
    // google/siglip-base-patch16-224 (SigLIP's defaults, which its config.json keeps): text
    // hidden 768, intermediate 3072, 12 layers, 64 positions, vocab 32000; vision hidden 768,
    // intermediate 3072, 12 layers, 224-pixel images in patches of 16 (196 positions, no
    // class token), the attention-pooling head.
    let d = 768;
    let mut m = M::new();
    m.t("logit_scale", &[1])
        .t("logit_bias", &[1])
        .t("text_model.embeddings.token_embedding.weight", &[32000, d])
        .t("text_model.embeddings.position_embedding.weight", &[64, d]);
    tower(&mut m, "text_model.encoder.layers", 12, d, 3072);
    m.norm("text_model.final_layer_norm", d, true)
        .lin("text_model.head", d, d, true)
        .t(
            "vision_model.embeddings.patch_embedding.weight",
            &[d, 3, 16, 16],
        )
        .t("vision_model.embeddings.patch_embedding.bias", &[d])
        .t(
            "vision_model.embeddings.position_embedding.weight",
            &[196, d],
        );
    tower(&mut m, "vision_model.encoder.layers", 12, d, 3072);
    let t = m
        .norm("vision_model.post_layernorm", d, true)
        .under("vision_model.head", |h| {
            h.t("probe", &[1, 1, d])
                .t("attention.in_proj_weight", &[3 * d, d])
                .t("attention.in_proj_bias", &[3 * d])
                .lin("attention.out_proj", d, d, true)
                .norm("layernorm", d, true)
                .lin("mlp.fc1", 3072, d, true)
                .lin("mlp.fc2", d, 3072, true);
        })
        .done();
    let config = r#"{"architectures":["SiglipModel"],"model_type":"siglip","text_config":{"model_type":"siglip_text_model","hidden_size":768,"intermediate_size":3072,"num_hidden_layers":12,"max_position_embeddings":64,"vocab_size":32000},"vision_config":{"model_type":"siglip_vision_model","hidden_size":768,"intermediate_size":3072,"num_hidden_layers":12,"image_size":224,"patch_size":16,"num_channels":3}}"#;
    passes_then_caught(
        "siglip",
        &t,
        config,
        "vision_model.head.attention.in_proj_bias",
        &[768],
        "(tensor \"vision_model.head.attention.in_proj_bias\"): axis 0 expected 3 * v_d = 3 * 768 = 2304, found 768",
    );
}
