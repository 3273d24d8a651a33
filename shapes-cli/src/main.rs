//! `shapes`: inspect a checkpoint, or check it against a spec file or a built-in architecture,
//! from its header alone. Exit codes: 0 the checkpoint matches, 1 it does not, 2 it could not
//! be read or the command is wrong.

#![forbid(unsafe_code)]

mod inspect;
mod open;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use shapes::report::{Paint, Report};
use shapes::{CheckError, CheckOptions, Checkpoint, Naming, Spec};

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
            let v = shapes::report::failure_json(message.trim(), None, None);
            let _ = write_out(&format!("{v:#}\n"));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let (format, path) = match &cli.command {
        Command::Check {
            json, format, path, ..
        } => (
            if *json { Format::Json } else { *format },
            Some(path.display().to_string()),
        ),
        Command::Inspect { .. } => (Format::Text, None),
    };
    match run(cli.command) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
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
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<bool, Fail> {
    match command {
        Command::Inspect { path, config } => {
            let ckpt = open::open(&path, config.as_deref()).map_err(Fail)?;
            write_out(&inspect::text(&path, &ckpt))?;
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
            format,
            all,
        } => {
            let ckpt = open::open(&path, config.as_deref()).map_err(Fail)?;
            let spec = load_spec(&path, &ckpt, spec.as_deref(), arch.as_deref())?;
            let options = sets.into_iter().fold(
                CheckOptions::new().strict(!non_strict).given_by("--set"),
                |o, (var, value)| o.set(var, value),
            );
            let report = spec
                .check_with(&ckpt, &options)
                .map_err(|e| Fail(check_error(&e)))?
                .all(all);
            print_report(&report, if json { Format::Json } else { format })?;
            Ok(report.ok())
        }
    }
}

fn print_report(report: &Report, format: Format) -> Result<(), Fail> {
    match format {
        Format::Json => return write_out(&format!("{:#}\n", report.to_json())),
        Format::Sarif => return write_out(&format!("{:#}\n", report.to_sarif())),
        Format::Text => {}
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let paint = if !no_color && std::io::stdout().is_terminal() {
        Paint::ANSI
    } else {
        Paint::PLAIN
    };
    write_out(&report.render(paint))
}

/// The spec: a file, a built-in by `--arch`, or the built-in the checkpoint names.
fn load_spec(
    path: &Path,
    ckpt: &Checkpoint,
    file: Option<&Path>,
    arch: Option<&str>,
) -> Result<Spec, Fail> {
    let builtins = || Spec::builtin_names().join(", ");
    match (file, arch) {
        (Some(file), _) => Spec::read(file).map_err(|e| Fail(e.to_string())),
        (None, Some(a)) => Spec::builtin(a, Naming::of(ckpt)).ok_or_else(|| {
            Fail(format!(
                "no built-in architecture `{a}`: the built-ins are {}; or give --spec FILE",
                builtins()
            ))
        }),
        (None, None) => Spec::for_checkpoint(ckpt).map_err(|e| {
            Fail(match e.named {
                None => format!(
                    "{}: the file names no architecture (no GGUF general.architecture, no config.json model_type): give --spec FILE or --arch NAME ({})",
                    shapes::report::escape(&path.display().to_string()),
                    builtins()
                ),
                Some(named) => format!(
                    "architecture `{}` has no built-in spec (the built-ins are {}): give --spec FILE",
                    shapes::report::escape(&named),
                    builtins()
                ),
            })
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
