//! `shapes`: inspect a checkpoint, diff two, or check checkpoints against a spec file or a built-in
//! architecture, from their headers alone. Exit codes: 0 the checkpoints match, 1 one does
//! not, 2 one could not be read or the command is wrong.

#![forbid(unsafe_code)]

mod adapter;
mod diff;
mod inspect;
mod open;
mod spec_cmd;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use shapes::report::{Paint, Report};
use shapes::{
    CheckOptions, Checkpoint, Spec,
    spec::{CheckError, Naming},
};

/// A failure that is not a mismatch: exit code 2.
struct Fail(String);

/// How `shapes check` prints its report.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// For a person: bounded, folded, coloured on a terminal.
    Text,
    /// For CI: every entry, in the schema of shapes-cli/report.schema.json.
    Json,
    /// For code-scanning dashboards: SARIF 2.1.0, tensor names as locations.
    Sarif,
}

/// Check tensor shapes of a checkpoint (safetensors, sharded or not, GGUF, npz, PyTorch zip) from
/// its header, against a spec file or a built-in architecture (22 families, from llama to
/// deepseek_v3, t5, whisper and clip: see `--arch`); an architecture no spec describes gets
/// the generic checks of its format's conventions.
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
    /// Check checkpoints against a spec: every mismatch, missing and unexpected tensor, and
    /// config disagreement. Several paths are checked one by one, each with its own report
    /// and verdict; the exit code is the worst.
    Check {
        /// The checkpoints.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// A spec file (TOML).
        #[arg(long, conflicts_with = "arch")]
        spec: Option<PathBuf>,
        /// A built-in architecture (default: the one the file or its config names): llama
        /// (mistral, qwen2), qwen3, gemma, gemma2, gemma3, phi3, phi, mixtral, qwen2_moe,
        /// qwen3_moe, deepseek_v3, gpt2, gpt_neox, starcoder2, falcon, bert, roberta, t5,
        /// whisper, vit, clip, siglip.
        #[arg(long)]
        arch: Option<String>,
        /// A config.json to read instead of the one beside the file.
        #[arg(long)]
        config: Option<PathBuf>,
        /// The base checkpoint of a PEFT LoRA adapter: PATH is then the adapter's directory
        /// (adapter_config.json, adapter_model.safetensors), checked against it: every
        /// lora_A/lora_B against its base layer and r (rank_pattern included), every module
        /// target_modules names, every adapted module. Without it, an adapter directory is
        /// checked against the base_model_name_or_path of its config when that is a local path.
        #[arg(long, value_name = "BASE_PATH", conflicts_with_all = ["spec", "arch"])]
        base: Option<PathBuf>,
        /// Give a variable's value: `--set heads=9` (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
        sets: Vec<(String, usize)>,
        /// Tensors the spec does not describe are allowed.
        #[arg(long)]
        non_strict: bool,
        /// Print the report as JSON (every entry, whatever their number): `--format json`.
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// How to print the report: text, json (the schema in shapes-cli/report.schema.json;
        /// a check that cannot run is JSON too) or sarif (SARIF 2.1.0).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// List every mismatch, missing and unexpected tensor (by default at most 50 of each,
        /// then a count of the rest).
        #[arg(long)]
        all: bool,
    },
    /// The tensors added, removed and changed (in shape or dtype) from checkpoint A to
    /// checkpoint B, any two formats, repeated layers folded. Exit 0 when both have the same
    /// names with the same shapes: a tensor whose dtype alone differs (a BF16 and an F16
    /// export) is listed but does not change the exit code; 1 when a name or a shape differs;
    /// 2 when a checkpoint cannot be read.
    Diff {
        /// The first checkpoint.
        a: PathBuf,
        /// The second checkpoint.
        b: PathBuf,
        /// Print the diff as JSON (every entry, whatever their number).
        #[arg(long)]
        json: bool,
        /// List every difference (by default at most 50 lines of each kind, then a count of
        /// the rest).
        #[arg(long)]
        all: bool,
    },
    /// Write a spec for a checkpoint (TOML, or `#[derive(Shaped)]` structs with --rust):
    /// repeated blocks folded, sizes named from the config keys that state them, the dtypes
    /// seen. It passes `shapes check --spec` on the checkpoint it was written from.
    Spec {
        /// The checkpoint.
        path: PathBuf,
        /// A config.json to read instead of the one beside the file.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Write to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Write `#[derive(Shaped)]` structs instead of a spec file.
        #[arg(long)]
        rust: bool,
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

/// Whether the arguments ask for a JSON report (`--json`, `--format json`,
/// `--format=json`): what a usage error is then printed as.
fn wants_json(args: &[String]) -> bool {
    args.iter().any(|a| a == "--json" || a == "--format=json")
        || args
            .windows(2)
            .any(|w| w[0] == "--format" && w[1] == "json")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && wants_json(&args) => {
            // A wrong command line is an exit-2 failure like any other: with --json, CI
            // reading stdout gets it in the report's schema.
            let _ = e.print();
            let message = e.render().to_string();
            let v = if args.get(1).is_some_and(|a| a == "diff") {
                shapes::diff::failure_json(message.trim())
            } else {
                shapes::report::failure_json(message.trim(), None, None)
            };
            let _ = write_out(&format!("{v:#}\n"));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let (format, path) = match &cli.command {
        Command::Check {
            json,
            format,
            paths,
            ..
        } => (
            if *json { Format::Json } else { *format },
            match paths.as_slice() {
                [one] => Some(one.display().to_string()),
                _ => None,
            },
        ),
        // `shapes diff` prints its own failures.
        Command::Inspect { .. } | Command::Diff { .. } | Command::Spec { .. } => {
            (Format::Text, None)
        }
    };
    match run(cli.command) {
        Ok(verdict) => ExitCode::from(verdict as u8),
        Err(Fail(e)) => {
            eprintln!("error: {e}");
            // CI reading stdout gets an answer in the report's own schema: what failed.
            let out = match format {
                Format::Text => None,
                Format::Json => Some(shapes::report::failure_json(&e, path.as_deref(), None)),
                Format::Sarif => Some(shapes::report::failure_sarif(&e, path.as_deref())),
            };
            if let Some(v) = out {
                let _ = write_out(&format!("{v:#}\n"));
            }
            ExitCode::from(Verdict::Failed as u8)
        }
    }
}

/// A checkpoint's verdict, worst last: the exit code.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Matches = 0,
    Mismatch = 1,
    Failed = 2,
}

/// What `shapes check` was asked, for every path.
struct CheckArgs {
    base: Option<PathBuf>,
    spec: Option<Spec>,
    arch: Option<String>,
    config: Option<PathBuf>,
    options: CheckOptions,
    all: bool,
}

fn run(command: Command) -> Result<Verdict, Fail> {
    match command {
        Command::Inspect { path, config } => {
            let ckpt = open::open(&path, config.as_deref()).map_err(Fail)?;
            write_out(&inspect::text(&path, &ckpt))?;
            Ok(Verdict::Matches)
        }
        Command::Diff { a, b, json, all } => diff::run(&a, &b, json, all),
        Command::Spec {
            path,
            config,
            output,
            rust,
        } => {
            let args = spec_cmd::SpecArgs {
                path: &path,
                config: config.as_deref(),
                out: output.as_deref(),
                rust,
            };
            if let Some(text) = spec_cmd::run(&args).map_err(Fail)? {
                write_out(&text)?;
            }
            Ok(Verdict::Matches)
        }
        Command::Check {
            paths,
            spec,
            arch,
            config,
            base,
            sets,
            non_strict,
            json,
            format,
            all,
        } => {
            // A spec file is read once, and a bad one stops the run before any checkpoint.
            let spec = match spec {
                Some(file) => Some(Spec::read(&file).map_err(|e| Fail(e.to_string()))?),
                None => None,
            };
            let options = sets.into_iter().fold(
                CheckOptions::new().strict(!non_strict).given_by("--set"),
                |o, (var, value)| o.set(var, value),
            );
            let args = CheckArgs {
                base,
                spec,
                arch,
                config,
                options,
                all,
            };
            check_all(&paths, &args, if json { Format::Json } else { format })
        }
    }
}

/// Checks each path on its own, printing its report (or its error) as it goes; with `--json`,
/// one object for one path and an array for several; with `--format sarif`, one SARIF log
/// with a run for each path. The verdict is the worst.
fn check_all(paths: &[PathBuf], args: &CheckArgs, format: Format) -> Result<Verdict, Fail> {
    let several = paths.len() > 1;
    let mut reports = Vec::new();
    let mut counts = [0usize; 3];
    let mut worst = Verdict::Matches;
    let mut printed = false;
    for path in paths {
        let verdict = match check_one(path, args) {
            Ok(report) => {
                if format == Format::Json {
                    reports.push(report.to_json());
                } else if format == Format::Sarif {
                    reports.push(report.to_sarif());
                } else {
                    let gap = if printed { "\n" } else { "" };
                    write_out(&format!("{gap}{}", render(&report)))?;
                    printed = true;
                }
                if report.ok() {
                    Verdict::Matches
                } else {
                    Verdict::Mismatch
                }
            }
            Err(Fail(e)) => {
                // Name the path, unless the message already starts with it.
                let shown = shapes::text::escape(&path.display().to_string()).into_owned();
                let e = if e.starts_with(&shown) {
                    e
                } else {
                    format!("{shown}: {e}")
                };
                eprintln!("error: {e}");
                match format {
                    Format::Json => {
                        reports.push(shapes::report::failure_json(&e, Some(&shown), None));
                    }
                    Format::Sarif => reports.push(shapes::report::failure_sarif(&e, Some(&shown))),
                    Format::Text => {}
                }
                Verdict::Failed
            }
        };
        counts[verdict as usize] += 1;
        worst = worst.max(verdict);
    }
    if format == Format::Json {
        let v = if several {
            serde_json::Value::Array(reports)
        } else {
            reports.pop().unwrap_or_default()
        };
        write_out(&format!("{v:#}\n"))?;
    } else if format == Format::Sarif {
        write_out(&format!("{:#}\n", sarif_log(reports)))?;
    } else if several {
        write_out(&format!("\n{}\n", summary(&counts)))?;
    }
    Ok(worst)
}

/// One checkpoint: opened, its spec found, checked.
fn check_one(path: &Path, args: &CheckArgs) -> Result<Report, Fail> {
    // An adapter directory is checked against its base unless a spec is asked for.
    let spec_asked = args.spec.is_some() || args.arch.is_some();
    if args.base.is_some() || (!spec_asked && shapes::adapter::Adapter::is_adapter_dir(path)) {
        return Ok(
            adapter::check(path, args.base.as_deref(), args.config.as_deref())?.all(args.all),
        );
    }
    let ckpt = open::open(path, args.config.as_deref()).map_err(Fail)?;
    let found;
    let spec = match &args.spec {
        Some(spec) => spec,
        None => {
            found = load_spec(path, &ckpt, args.arch.as_deref())?;
            &found
        }
    };
    Ok(spec
        .check_with(&ckpt, &args.options)
        .map_err(|e| Fail(check_error(&e)))?
        .all(args.all))
}

/// One SARIF log of the logs of several paths: their runs, in order.
fn sarif_log(logs: Vec<serde_json::Value>) -> serde_json::Value {
    let mut logs = logs.into_iter();
    let Some(mut first) = logs.next() else {
        return serde_json::Value::Null;
    };
    for log in logs {
        if let (Some(runs), serde_json::Value::Object(mut log)) =
            (first.get_mut("runs").and_then(|r| r.as_array_mut()), log)
            && let Some(serde_json::Value::Array(more)) = log.remove("runs")
        {
            runs.extend(more);
        }
    }
    first
}

/// `3 checkpoints: 2 match, 1 does not match`.
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

/// The report's text, coloured on a terminal (never with `NO_COLOR`).
fn render(report: &Report) -> String {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let paint = if !no_color && std::io::stdout().is_terminal() {
        Paint::ANSI
    } else {
        Paint::PLAIN
    };
    report.render(paint)
}

/// The spec of a checkpoint when no spec file is given: a built-in by `--arch`, or the
/// built-in the checkpoint names, or the generic checks of its format.
fn load_spec(path: &Path, ckpt: &Checkpoint, arch: Option<&str>) -> Result<Spec, Fail> {
    let builtins = || Spec::builtin_families().join(", ");
    match arch {
        Some(a) => Spec::builtin(a, Naming::of(ckpt)).ok_or_else(|| {
            Fail(format!(
                "no built-in architecture `{a}`: the built-ins are {}; or give --spec FILE",
                builtins()
            ))
        }),
        // An architecture no spec describes gets the checks its format's conventions allow.
        None => Spec::for_checkpoint(ckpt).or_else(|e| {
            if let Some(generic) = Spec::generic(ckpt) {
                return Ok(generic);
            }
            Err(Fail(match e.named {
                None => format!(
                    "{}: the file names no architecture (no GGUF general.architecture, no config.json model_type): give --spec FILE or --arch NAME ({})",
                    shapes::text::escape(&path.display().to_string()),
                    builtins()
                ),
                Some(named) => format!(
                    "architecture `{}` has no built-in spec (the built-ins are {}) and the file has none of the tensors the generic checks know: give --spec FILE",
                    shapes::text::escape(&named),
                    builtins()
                ),
            }))
        }),
    }
}

/// A check that could not run, in the command's words.
fn check_error(e: &CheckError) -> String {
    match e {
        CheckError::UnknownVariable {
            spec,
            var,
            suggestion,
            variables,
        } => format!(
            "--set {var}: the spec {spec} has no variable `{var}`{}; its variables are {}",
            suggestion
                .as_ref()
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default(),
            variables.join(", ")
        ),
        CheckError::GivenNotStated { var, keys } => format!(
            "`{var}` shows in no tensor's shape and neither the file nor a config.json states it{}: give --config config.json or --set {var}=N",
            if keys.is_empty() {
                String::new()
            } else {
                format!(" (looked for {})", keys.join(", "))
            }
        ),
        CheckError::MisspeltKey { var, key, near } => format!(
            "the spec binds `{var}` from the key `{key}`, which neither the file nor a config.json states, but {near} is stated: a misspelt key leaves `{var}` unchecked against the config; correct the key in the spec's [config], or give the value with --set {var}=N"
        ),
        other => other.to_string(),
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
