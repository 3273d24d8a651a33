//! `shapes`: inspect a checkpoint, or check checkpoints against a spec file or a built-in
//! architecture, from their headers alone. Exit codes: 0 the checkpoints match, 1 one does
//! not, 2 one could not be read or the command is wrong.

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
use crate::spec::Compiled;
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
    /// Check checkpoints against a spec, each on its own: every mismatch, missing and
    /// unexpected tensor, and config disagreement. The exit code is the worst verdict's.
    Check {
        /// The checkpoints, each checked on its own (a pre-commit hook passes several).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
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
        /// Print the report as JSON (an array of reports when several paths are given).
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
        Ok(verdict) => ExitCode::from(verdict as u8),
        Err(Fail(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(Verdict::Failed as u8)
        }
    }
}

/// The outcome of one checkpoint, ordered from best to worst; its value is the exit code, and
/// a run of several exits with the worst.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Matches = 0,
    Mismatch = 1,
    Failed = 2,
}

/// The options of `shapes check` that apply to every path.
struct CheckArgs {
    spec: Option<PathBuf>,
    arch: Option<String>,
    config: Option<PathBuf>,
    sets: Vec<(String, usize)>,
    strict: bool,
}

fn run(command: Command) -> Result<Verdict, Fail> {
    match command {
        Command::Inspect { path, config } => {
            let opened = open::open(&path, config.as_deref()).map_err(Fail)?;
            write_out(&inspect::text(&opened))?;
            Ok(Verdict::Matches)
        }
        Command::Check {
            paths,
            spec,
            arch,
            config,
            sets,
            non_strict,
            json,
        } => {
            let args = CheckArgs {
                spec,
                arch,
                config,
                sets,
                strict: !non_strict,
            };
            check_all(&paths, &args, json)
        }
    }
}

/// Checks each path on its own and prints its report as soon as it is done; a path that
/// cannot be read or checked is reported on stderr and the others are still checked. A spec
/// file (`--spec`) is compiled once, and one that cannot be read or compiled stops the run,
/// since it would fail every path alike. One path prints what it always did; several print a
/// summary line after the reports, or with `--json` an array of reports (a path that could not
/// be checked is `{"path", "ok": false, "error"}`).
fn check_all(paths: &[PathBuf], args: &CheckArgs, json: bool) -> Result<Verdict, Fail> {
    let several = paths.len() > 1;
    let style = Style::detect();
    let mut spec_file: Option<(String, Compiled)> = None;
    let mut reports = Vec::new();
    let mut counts = [0usize; 3];
    let mut worst = Verdict::Matches;
    let mut printed = false;
    for path in paths {
        let opened = open::open(path, args.config.as_deref()).map_err(Fail);
        if let (Ok(opened), Some(spec), None) = (&opened, &args.spec, &spec_file) {
            spec_file = Some(check::load_spec(opened, Some(spec), None)?);
        }
        let checked = opened.and_then(|opened| {
            let outcome = match &spec_file {
                Some((file, compiled)) => {
                    check::run(&opened, file.clone(), compiled, &args.sets, args.strict)?
                }
                None => {
                    let (file, compiled) = check::load_spec(&opened, None, args.arch.as_deref())?;
                    check::run(&opened, file, &compiled, &args.sets, args.strict)?
                }
            };
            Ok((opened, outcome))
        });
        let verdict = match checked {
            Ok((opened, outcome)) => {
                if json {
                    reports.push(report::json(&opened, &outcome));
                } else {
                    let gap = if printed { "\n" } else { "" };
                    write_out(&format!("{gap}{}", report::text(&opened, &outcome, style)))?;
                    printed = true;
                }
                if outcome.ok() {
                    Verdict::Matches
                } else {
                    Verdict::Mismatch
                }
            }
            Err(fail) if !several => return Err(fail),
            Err(Fail(e)) => {
                // Name the path, unless the reader's message already starts with it.
                let shown = path.display().to_string();
                let e = if e.starts_with(&shown) {
                    e
                } else {
                    format!("{shown}: {e}")
                };
                eprintln!("error: {e}");
                if json {
                    reports.push(serde_json::json!({ "path": shown, "ok": false, "error": e }));
                }
                Verdict::Failed
            }
        };
        counts[verdict as usize] += 1;
        worst = worst.max(verdict);
    }
    if json {
        let v = if several {
            serde_json::Value::Array(reports)
        } else {
            reports.pop().unwrap_or_default()
        };
        let text = serde_json::to_string_pretty(&v).map_err(|e| Fail(e.to_string()))?;
        write_out(&format!("{text}\n"))?;
    } else if several {
        write_out(&format!("\n{}\n", summary(&counts)))?;
    }
    Ok(worst)
}

/// "3 checkpoints: 1 matches, 1 does not match, 1 could not be checked" (zero counts left
/// out).
fn summary(counts: &[usize; 3]) -> String {
    let total: usize = counts.iter().sum();
    let parts: Vec<String> = [
        (counts[0], "matches", "match"),
        (counts[1], "does not match", "do not match"),
        (counts[2], "could not be checked", "could not be checked"),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
    .collect();
    format!("{total} checkpoints: {}", parts.join(", "))
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
