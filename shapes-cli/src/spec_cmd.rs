//! `shapes spec`: a spec written from a checkpoint (the library's `Spec::infer`), as TOML or
//! as `#[derive(Shaped)]` structs, to standard output or to a file.

use std::path::Path;

use shapes::Spec;

/// What `shapes spec` was asked.
pub struct SpecArgs<'a> {
    pub path: &'a Path,
    pub config: Option<&'a Path>,
    pub out: Option<&'a Path>,
    pub rust: bool,
}

/// The spec's text for `args.path`, written to `args.out` when given: `Ok(Some(text))` is
/// for standard output.
pub fn run(args: &SpecArgs<'_>) -> Result<Option<String>, String> {
    let ckpt = crate::open::open(args.path, args.config)?;
    let inferred = Spec::infer(&ckpt).map_err(|e| {
        format!(
            "{}: {e}",
            shapes::text::escape(&args.path.display().to_string())
        )
    })?;
    let text = if args.rust {
        inferred.to_rust()
    } else {
        inferred.to_toml()
    };
    match args.out {
        Some(file) => {
            std::fs::write(file, &text).map_err(|e| {
                format!(
                    "-o {}: {e}",
                    shapes::text::escape(&file.display().to_string())
                )
            })?;
            Ok(None)
        }
        None => Ok(Some(text)),
    }
}
