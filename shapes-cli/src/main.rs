//! `shapes`: inspect a checkpoint, or check it against a spec file or a built-in architecture,
//! from its header alone. Exit codes: 0 the checkpoint matches, 1 it does not, 2 it could not
//! be read or the command is wrong.

#![forbid(unsafe_code)]

mod arch;
mod check;
mod fold;
mod inspect;
mod open;
mod report;
mod spec;
mod style;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::check::Fail;
use crate::style::Style;

/// Check tensor shapes of a checkpoint (safetensors, sharded or not, GGUF, npz, PyTorch zip) from
/// its header, against a spec file or a built-in architecture (llama, mistral, qwen2, gpt2,
/// bert).
#[derive(Parser)]
#[command(name = "shapes", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every tensor (repeated layers folded), the format, the metadata, and the dims of
    /// a recognised architecture.
    Inspect {
        /// The checkpoint.
        path: PathBuf,
        /// A config.json to read instead of the one beside the file.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Check a checkpoint against a spec: every mismatch, missing and unexpected tensor, and
    /// config disagreement.
    Check {
        /// The checkpoint.
        path: PathBuf,
        /// A spec file (TOML).
        #[arg(long, conflicts_with = "arch")]
        spec: Option<PathBuf>,
        /// A built-in architecture (default: the one the file or its config names).
        #[arg(long)]
        arch: Option<String>,
        /// A config.json to read instead of the one beside the file.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Give a variable's value: `--set heads=9` (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
        sets: Vec<(String, usize)>,
        /// Tensors the spec does not describe are allowed.
        #[arg(long)]
        non_strict: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn parse_set(s: &str) -> Result<(String, usize), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found {s:?}"))?;
    let v = v
        .trim()
        .parse()
        .map_err(|_| format!("{k}: {v:?} is not a whole number"))?;
    Ok((k.trim().to_owned(), v))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Fail(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<bool, Fail> {
    match command {
        Command::Inspect { path, config } => {
            let opened = open::open(&path, config.as_deref()).map_err(Fail)?;
            write_out(&inspect::text(&opened))?;
            Ok(true)
        }
        Command::Check {
            path,
            spec,
            arch,
            config,
            sets,
            non_strict,
            json,
        } => {
            let opened = open::open(&path, config.as_deref()).map_err(Fail)?;
            let (file, compiled) = check::load_spec(&opened, spec.as_deref(), arch.as_deref())?;
            let outcome = check::run(&opened, file, &compiled, &sets, !non_strict)?;
            if json {
                let v = report::json(&opened, &outcome);
                let text = serde_json::to_string_pretty(&v).map_err(|e| Fail(e.to_string()))?;
                write_out(&format!("{text}\n"))?;
            } else {
                write_out(&report::text(&opened, &outcome, Style::detect()))?;
            }
            Ok(outcome.ok())
        }
    }
}

/// Writes `text` to standard output. A reader that stops early (`shapes inspect … | head`) is
/// not an error: `print!` would panic on the closed pipe.
fn write_out(text: &str) -> Result<(), Fail> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Fail(format!("writing the output: {e}")))
        }
        _ => Ok(()),
    }
}
