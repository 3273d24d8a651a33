//! A `.npy` header's `descr`: the dtype numpy would build from it (`descr_to_dtype`), as its
//! name and size, or why numpy would refuse it.
//!
//! A type string is `[<>|=]` and a kind with a size (`f4`, `S5`, `M8[ns]`), or a one-letter
//! code (`f`, `d`, `?`); a list is a structured dtype of `(name, descr)` and `(name, descr,
//! shape)` fields, padding fields (`''` of a void type) counted in its size. Object dtypes
//! are refused, as `np.load(allow_pickle=False)` refuses them. Sizes are those of x86-64
//! Linux, the platform numpy's `<f16` (long double) and `<c32` exist on.

use super::npy_literal::Lit;
use crate::text::quoted;

/// A dtype: its name (safetensors' spelling where there is one, else as written) and the
/// bytes of one element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Dtype {
    pub(super) name: String,
    pub(super) itemsize: usize,
}

/// The most bytes one element may take: far past any real dtype, so that sizes and their
/// products stay exact.
const MAX_ITEMSIZE: usize = 1 << 40;

/// The dtype `descr` describes, or why numpy refuses it.
pub(super) fn dtype(descr: &Lit) -> Result<Dtype, String> {
    match descr {
        Lit::Str(s) => typestr(s),
        Lit::List(fields) => structured(fields),
        _ => Err(format!(
            "npy header's descr is not a valid dtype descriptor: {}",
            describe(descr)
        )),
    }
}

fn describe(lit: &Lit) -> String {
    match lit {
        Lit::Str(s) => quoted(s).to_string(),
        Lit::Int(_) => "an integer".into(),
        Lit::Tuple(_) => "a tuple (a sub-array dtype, not read)".into(),
        _ => "neither a type string nor a list of fields".into(),
    }
}

fn invalid(s: &str) -> String {
    format!(
        "npy header's descr is not a valid dtype descriptor: {}",
        quoted(s)
    )
}

/// A type string: `<f4`, `|S5`, `<M8[ns]`, `f`.
fn typestr(s: &str) -> Result<Dtype, String> {
    let code = s.strip_prefix(['<', '>', '|', '=']).unwrap_or(s);
    let mut chars = code.chars();
    let Some(kind) = chars.next() else {
        return Err(invalid(s));
    };
    let rest = chars.as_str();
    // A datetime's unit: `M8[ns]`, `m8[10ms]`, `M8` (generic).
    let (size, unit) = match rest.split_once('[') {
        Some((size, unit)) if matches!(kind, 'M' | 'm') => (size, Some(unit)),
        _ => (rest, None),
    };
    if let Some(unit) = unit {
        let unit = unit.strip_suffix(']').ok_or_else(|| invalid(s))?;
        let unit = unit.trim_start_matches(|c: char| c.is_ascii_digit());
        let units = [
            "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as",
        ];
        if !units.contains(&unit) {
            return Err(invalid(s));
        }
    }
    let n: Option<usize> = if size.is_empty() {
        None
    } else if size.bytes().all(|b| b.is_ascii_digit()) {
        Some(size.parse().map_err(|_| invalid(s))?)
    } else {
        return Err(invalid(s));
    };
    let itemsize = match (kind, n) {
        ('?', None) | ('b' | 'B', None) | ('b', Some(1)) => 1,
        ('h' | 'H' | 'e', None) => 2,
        ('i' | 'I' | 'f', None) => 4,
        ('l' | 'L' | 'q' | 'Q' | 'p' | 'P' | 'd' | 'F', None) => 8,
        ('g' | 'D', None) => 16,
        ('G', None) => 32,
        ('i' | 'u', Some(k @ (1 | 2 | 4 | 8))) => k,
        ('f', Some(k @ (2 | 4 | 8 | 16))) => k,
        ('c', Some(k @ (8 | 16 | 32))) => k,
        ('S' | 'a' | 'V', Some(k)) => k,
        ('S' | 'V', None) => 0,
        ('U', Some(k)) => k.checked_mul(4).ok_or_else(|| invalid(s))?,
        ('U', None) => 0,
        ('M' | 'm', Some(8) | None) => 8,
        ('O', Some(8) | None) => return Err(object()),
        _ => return Err(invalid(s)),
    };
    if itemsize > MAX_ITEMSIZE {
        return Err(invalid(s));
    }
    let name = match (kind, itemsize) {
        ('f' | 'e', 2) => "F16",
        ('f', 4) => "F32",
        ('f' | 'd', 8) => "F64",
        ('i' | 'b', 1) if kind == 'i' || n.is_none() => "I8",
        ('i' | 'h', 2) => "I16",
        ('i', 4) => "I32",
        ('i' | 'l' | 'q', 8) => "I64",
        ('u' | 'B', 1) => "U8",
        ('u' | 'H', 2) => "U16",
        ('u' | 'I', 4) => "U32",
        ('u' | 'L' | 'Q', 8) => "U64",
        ('b', 1) | ('?', _) => "BOOL",
        ('c' | 'F', 8) => "C64",
        ('c' | 'D', 16) => "C128",
        _ => s,
    };
    Ok(Dtype {
        name: name.to_owned(),
        itemsize,
    })
}

fn object() -> String {
    "npy header's descr is an object dtype, which numpy loads only with allow_pickle=True \
     (running the pickle's code): not read"
        .into()
}

/// A structured dtype: its fields' sizes added up, padding included; field names unique.
fn structured(fields: &[Lit]) -> Result<Dtype, String> {
    let mut names: Vec<&str> = Vec::new();
    let mut itemsize = 0usize;
    for field in fields {
        let (Lit::Tuple(parts) | Lit::List(parts)) = field else {
            return Err("npy header's descr has a field that is not a tuple".into());
        };
        let (name, descr, shape) = match parts.as_slice() {
            [name, descr] => (name, descr, None),
            [name, descr, shape] => (name, descr, Some(shape)),
            _ => {
                return Err(
                    "npy header's descr has a field that is not (name, type) or (name, type, shape)"
                        .into(),
                );
            }
        };
        let dt = dtype(descr)?;
        let count = match shape {
            None => 1,
            Some(Lit::Int(Some(n))) => usize::try_from(*n).map_err(|_| bad_shape())?,
            Some(Lit::Tuple(dims)) => dims.iter().try_fold(1usize, |acc, d| match d {
                Lit::Int(Some(n)) => usize::try_from(*n)
                    .ok()
                    .and_then(|n| acc.checked_mul(n))
                    .ok_or_else(bad_shape),
                _ => Err(bad_shape()),
            })?,
            Some(_) => return Err(bad_shape()),
        };
        let size = dt
            .itemsize
            .checked_mul(count)
            .filter(|&n| n <= MAX_ITEMSIZE)
            .ok_or_else(bad_shape)?;
        // A padding field: an unnamed void, counted in the size only.
        let void = matches!(descr, Lit::Str(s) if s.trim_start_matches(['<', '>', '|', '=']).starts_with('V'));
        let is_pad = matches!(name, Lit::Str(n) if n.is_empty()) && void;
        if !is_pad {
            let new: Vec<&str> = match name {
                Lit::Str(n) => vec![n.as_str()],
                Lit::Tuple(t) => match t.as_slice() {
                    [Lit::Str(title), Lit::Str(n)] => vec![title.as_str(), n.as_str()],
                    [Lit::None, Lit::Str(n)] => vec![n.as_str()],
                    _ => return Err(bad_name()),
                },
                _ => return Err(bad_name()),
            };
            for n in new {
                if names.contains(&n) {
                    return Err(format!(
                        "npy header's descr names the field {} twice",
                        quoted(n)
                    ));
                }
                names.push(n);
            }
        }
        itemsize = itemsize
            .checked_add(size)
            .filter(|&n| n <= MAX_ITEMSIZE)
            .ok_or_else(bad_shape)?;
    }
    Ok(Dtype {
        name: "structured".to_owned(),
        itemsize,
    })
}

fn bad_shape() -> String {
    "npy header's descr has a field whose shape is not a size or a tuple of sizes".into()
}

fn bad_name() -> String {
    "npy header's descr has a field whose name is not a string or a (title, name) pair".into()
}
