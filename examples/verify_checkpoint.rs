//! The main job: verify a real checkpoint against its model struct before loading it.
//!
//! ```sh
//! cargo run --example verify_checkpoint                    # the shipped fracast-0 checkpoint
//! cargo run --example verify_checkpoint -- --corrupt       # a copy with one tensor's shape changed
//! cargo run --example verify_checkpoint -- other.safetensors
//! ```
//!
//! Only the safetensors header is read (8 bytes of length, then JSON): no tensor data. The
//! struct in tests/common/fracast.rs describes all 47 tensors with patterns written from
//! fracast_config.json; the bindings are printed as a table with the config's value beside
//! each, and any mismatch is reported with the field path, the tensor name, the axis, the
//! expected value and where each variable involved was bound.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use shapes::{Bindings, Shaped, checkpoint::SafetensorsHeader};

#[path = "../tests/common/fracast.rs"]
#[allow(dead_code)] // from_tensors is for tests/it/fracast_weights.rs
mod fracast;

use fracast::Fracast;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => verify(&fracast::checkpoint()),
        [flag] if flag == "--corrupt" => corrupt_copy().and_then(|path| {
            println!("(verifying a copy with head.fc_blocks.1.dw_weight reshaped from (64, 1, 3) to (64, 1, 4))\n");
            let r = verify(&path);
            // Best effort: a leftover temp file is harmless.
            let _ = std::fs::remove_file(&path);
            r
        }),
        [path] if !path.starts_with('-') => verify(Path::new(path)),
        _ => Err("usage: verify_checkpoint [--corrupt | FILE.safetensors]".into()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Verifies `path`'s header; `Ok(false)` when the checkpoint does not match the struct.
fn verify(path: &Path) -> Result<bool, String> {
    let start = Instant::now();
    let header =
        SafetensorsHeader::read_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let read = start.elapsed();
    let start = Instant::now();
    let result = Fracast::<shapes::Shape>::verify_source(&header);
    let checked = start.elapsed();
    println!(
        "{}: {} tensors, header {} bytes (read in {read:.0?}), verified in {checked:.0?}",
        path.display(),
        header.tensors().len(),
        header.header_len()
    );
    match result {
        Ok(bindings) => {
            println!("OK: the checkpoint matches Fracast<T>\n");
            print_table(&bindings)?;
            Ok(true)
        }
        Err(errors) => {
            println!("MISMATCH: the checkpoint does not match Fracast<T>\n");
            // `{:#}`: each error also names the line that declares its pattern.
            println!("{errors:#}");
            if !errors.missing_tensors().is_empty() {
                println!("\nmissing tensors: {}", errors.missing_tensors().join(", "));
            }
            if !errors.unexpected_tensors().is_empty() {
                println!(
                    "unexpected tensors: {}",
                    errors.unexpected_tensors().join(", ")
                );
            }
            Ok(false)
        }
    }
}

/// name | value | config | bound by
fn print_table(bindings: &Bindings) -> Result<(), String> {
    let path = fracast::config();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("config: {e}"))?;
    let config = fracast::config_values(&json)?;
    let rows: Vec<[String; 4]> = bindings
        .iter()
        .map(|b| {
            let expected = config.iter().find(|(n, _)| *n == b.name).map(|(_, v)| *v);
            let cfg = match (expected, bindings.get(&b.name)) {
                (Some(v), Some(got)) if v == got => format!("{v} ok"),
                (Some(v), _) => format!("{v} DIFFERS"),
                (None, _) => "-".into(),
            };
            [
                b.name.to_string(),
                b.value.to_string(),
                cfg,
                b.origin.to_string(),
            ]
        })
        .collect();
    let header = ["variable", "value", "config", "bound by"];
    let widths: Vec<usize> = (0..4)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 4]| {
        format!(
            "{:<w0$}  {:>w1$}  {:<w2$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        )
    };
    println!("{}", line(header));
    println!(
        "{}",
        line([
            "-".repeat(widths[0]).as_str(),
            &"-".repeat(widths[1]),
            &"-".repeat(widths[2]),
            "--------"
        ])
    );
    for r in &rows {
        println!("{}", line([&r[0], &r[1], &r[2], &r[3]]));
    }
    Ok(())
}

/// A copy of the shipped checkpoint whose `head.fc_blocks.1.dw_weight` claims shape
/// (64, 1, 4) instead of (64, 1, 3), written to a temp file. The header is rewritten (with the data
/// offsets that shape needs) and the data section padded accordingly, so the file is a valid
/// safetensors file that merely does not match the model.
fn corrupt_copy() -> Result<PathBuf, String> {
    let checkpoint = fracast::checkpoint();
    let bytes = std::fs::read(&checkpoint).map_err(|e| format!("{}: {e}", checkpoint.display()))?;
    let len_bytes: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or("checkpoint shorter than 8 bytes")?;
    let header_len = usize::try_from(u64::from_le_bytes(len_bytes)).map_err(|e| e.to_string())?;
    let json_end = 8usize
        .checked_add(header_len)
        .ok_or("header length overflows")?;
    let json = bytes
        .get(8..json_end)
        .ok_or("header runs past the end of the file")?;
    let data = &bytes[json_end..];
    let mut header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(json).map_err(|e| format!("header JSON: {e}"))?;

    // Lay the tensors out again in offset order, giving the corrupted one its new size.
    let target = "head.fc_blocks.1.dw_weight";
    let mut order: Vec<(String, u64, u64)> = header
        .iter()
        .filter(|(k, _)| *k != "__metadata__")
        .map(|(k, v)| {
            let o = &v["data_offsets"];
            (
                k.clone(),
                o[0].as_u64().unwrap_or(0),
                o[1].as_u64().unwrap_or(0),
            )
        })
        .collect();
    order.sort_by_key(|(_, start, _)| *start);
    let mut new_data = Vec::with_capacity(data.len() + 64 * 2 * 4);
    for (name, start, end) in order {
        let (start, end) = (start as usize, end as usize);
        let chunk = data
            .get(start..end)
            .ok_or(format!("{name}: offsets past the data"))?;
        let from = new_data.len();
        new_data.extend_from_slice(chunk);
        let entry = header.get_mut(&name).ok_or("entry vanished")?;
        if name == target {
            entry["shape"] = serde_json::json!([64, 1, 4]);
            new_data.resize(from + 64 * 4 * 4, 0);
        }
        entry["data_offsets"] = serde_json::json!([from, new_data.len()]);
    }
    let json = serde_json::to_vec(&header).map_err(|e| e.to_string())?;
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&json);
    out.extend_from_slice(&new_data);
    let path = std::env::temp_dir().join(format!(
        "fracast_corrupt_{}.safetensors",
        std::process::id()
    ));
    std::fs::write(&path, out).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
