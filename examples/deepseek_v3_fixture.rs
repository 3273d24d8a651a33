//! Writes a DeepSeek-V3-shaped checkpoint as deepseek-ai/DeepSeek-V3 publishes it (163 shards
//! named by `model.safetensors.index.json`, 91,991 tensors, FP8 with block scales, and its
//! config.json), headers only: the ~690 GB of data are sparse, so it costs a few megabytes of
//! disk. This is the checkpoint the scale figures in CHANGELOG.md were measured on:
//!
//! ```text
//! cargo run --release -p shapes-examples --example deepseek_v3_fixture -- /tmp/dsv3
//! /usr/bin/time -v target/release/shapes check /tmp/dsv3
//! /usr/bin/time -v target/release/shapes check /tmp/dsv3 --arch llama --set head_dim=128
//! ```

#[path = "../tests/common/deepseek.rs"]
mod deepseek;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .ok_or("usage: deepseek_v3_fixture DIR (an empty or new directory)")?;
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let layout = deepseek::Layout::PUBLISHED;
    let tensors = layout.tensors();
    layout.write(&dir, &tensors, 163);
    println!("{}: {} tensors in 163 shards", dir.display(), tensors.len());
    Ok(())
}
