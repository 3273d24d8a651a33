//! A BERT-style and a Llama-style parameter struct checked against checkpoint headers.
//!
//! ```sh
//! cargo run --example model_zoo
//! ```
//!
//! The headers are written here from published shapes (`bert-base-uncased` as `BertModel`
//! names it, TinyLlama-1.1B as `LlamaForCausalLM` names it) with no tensor data: verifying a
//! checkpoint needs only its header. The structs live in tests/common/{bert,llama}.rs. The
//! config values that no shape shows (the number of attention heads) are pre-bound, as a
//! loader would from config.json.

use shapes::{Bindings, Shape, ShapeErrors, Shaped, checkpoint::SafetensorsHeader};

#[path = "../tests/common/bert.rs"]
#[allow(dead_code)]
mod bert;
#[path = "../tests/common/llama.rs"]
mod llama;
#[path = "../tests/common/st_header.rs"]
#[allow(dead_code)]
mod st_header;

fn report(title: &str, result: Result<Bindings, ShapeErrors>) {
    println!("== {title}");
    match result {
        Ok(b) => print!("OK\n{b}"),
        Err(e) if e.len() > 3 => {
            // The same mistake repeats in every layer: show the first two.
            println!("MISMATCH: {} errors, the first two:", e.len());
            for err in &e.errors()[..2] {
                println!("{err}");
            }
        }
        Err(e) => println!("MISMATCH\n{e}"),
    }
    println!();
}

fn main() {
    let bert = st_header::header(&bert::hf::bert_base_uncased(false));
    report(
        "bert-base-uncased, heads = 12 from config.json",
        bert::hf::BertModel::<Shape>::verify_source_with(&bert, Bindings::new().bind("heads", 12)),
    );

    let tinyllama = llama::tinyllama_1_1b();
    let header = st_header::header(&tinyllama);
    report(
        "TinyLlama-1.1B, heads = 32 from config.json",
        llama::LlamaForCausalLM::<Shape>::verify_source_with(
            &header,
            Bindings::new().bind("heads", 32),
        ),
    );

    // The same checkpoint against a config that says 8 key/value heads.
    report(
        "TinyLlama-1.1B against a config with num_key_value_heads = 8",
        llama::LlamaForCausalLM::<Shape>::verify_source_with(
            &header,
            Bindings::new().bind("heads", 32).bind("kv_heads", 8),
        ),
    );

    // A conversion that dropped the output projection of one layer and added a stray tensor.
    let mut broken: Vec<(String, Vec<usize>)> = tinyllama
        .into_iter()
        .filter(|(n, _)| n != "model.layers.9.self_attn.o_proj.weight")
        .collect();
    broken.push(("model.layers.9.self_attn.o_proj.bias".into(), vec![2048]));
    let header: SafetensorsHeader = st_header::header(&broken);
    report(
        "TinyLlama-1.1B with a missing and an unexpected tensor",
        llama::LlamaForCausalLM::<Shape>::verify_source_with(
            &header,
            Bindings::new().bind("heads", 32),
        ),
    );
}
