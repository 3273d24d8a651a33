//! The derive and the spec loader accept and reject the same descriptions, for the same
//! reason, in the same words: generated descriptions (tensors with patterns over names that
//! look like typos of one another, `given` names, `where` clauses) are written both as a
//! `#[derive(Shaped)]` struct, expanded here, and as a spec file, loaded by
//! `shapes_core`'s `Spec::from_toml`. The verdicts must agree, and the first error's text must
//! be the same once each front end's own words are set aside ("field" and "tensor", how each
//! declares a name given: the `Words` of `shapes_core`'s rules).

use proc_macro2::{TokenStream, TokenTree};

/// Names a description draws from, then the slips of some of them, drawn less often.
const NAMES: &[&str] = &["d_model", "heads", "head_dim", "seq", "n", "batch"];
const SLIPS: &[&str] = &["d_modle", "head_dmi", "sqe"];

/// A small deterministic generator (xorshift), so that a failure names its seed.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A name: now and then a slip of another, or `_x`, which only binds.
    fn name(&mut self) -> &'static str {
        match self.below(20) {
            0 => "_x",
            1 | 2 => self.slip(),
            _ => self.plain(),
        }
    }

    /// A name to declare or compare: now and then a slip.
    fn plain(&mut self) -> &'static str {
        if self.below(20) == 0 {
            self.slip()
        } else {
            NAMES[self.below(NAMES.len())]
        }
    }

    fn slip(&mut self) -> &'static str {
        SLIPS[self.below(SLIPS.len())]
    }
}

/// A description: patterns, `given` names, `where` clauses.
#[derive(Debug)]
struct Description {
    patterns: Vec<String>,
    given: Vec<&'static str>,
    wheres: Vec<String>,
}

fn description(g: &mut Gen) -> Description {
    let patterns = (0..1 + g.below(4))
        .map(|_| {
            let items: Vec<String> = (0..1 + g.below(3))
                .enumerate()
                .map(|(i, _)| match g.below(20) {
                    0..=11 => g.name().to_owned(),
                    12..=15 => format!("{} * {}", g.plain(), g.plain()),
                    16 | 17 => (1 + g.below(4)).to_string(),
                    18 if i == 0 => format!("*{}", g.plain()),
                    _ => "_".to_owned(),
                })
                .collect();
            match items.as_slice() {
                [one] => format!("({one},)"),
                _ => format!("({})", items.join(", ")),
            }
        })
        .collect();
    // Mostly none: a given name no pattern uses is the commonest error.
    let mut given: Vec<&'static str> = (0..[0, 0, 0, 1, 2][g.below(5)])
        .map(|_| g.plain())
        .collect();
    given.sort_unstable();
    given.dedup();
    let wheres = (0..[0, 0, 1, 2][g.below(4)])
        .map(|_| match g.below(2) {
            0 => format!("{} = {} * {}", g.plain(), g.plain(), g.plain()),
            _ => format!("{} <= {}", g.plain(), g.plain()),
        })
        .collect();
    Description {
        patterns,
        given,
        wheres,
    }
}

/// The description as a struct, expanded by the derive: its errors' messages, in order.
fn derive_errors(d: &Description) -> Vec<String> {
    let mut attrs = String::new();
    if !d.given.is_empty() {
        attrs += &format!("#[shapes(given = \"{}\")]", d.given.join(", "));
    }
    if !d.wheres.is_empty() {
        attrs += &format!("#[shapes(where = \"{}\")]", d.wheres.join(", "));
    }
    let fields: String = (d.patterns.iter().enumerate())
        .map(|(i, p)| format!("#[shape(\"{p}\")] f{i}: Shape,"))
        .collect();
    let input: syn::DeriveInput = syn::parse_str(&format!("{attrs} struct M {{ {fields} }}"))
        .unwrap_or_else(|e| panic!("{d:?} does not parse as Rust: {e}"));
    let mut out = Vec::new();
    compile_errors(super::derive(&input), &mut out);
    out
}

/// The messages of the `compile_error!`s in `tokens`.
fn compile_errors(tokens: TokenStream, out: &mut Vec<String>) {
    let mut after_name = false;
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => after_name = i == "compile_error",
            TokenTree::Punct(p) if p.as_char() == '!' && after_name => {}
            TokenTree::Group(g) if after_name => {
                if let Ok(lit) = syn::parse2::<syn::LitStr>(g.stream()) {
                    out.push(lit.value());
                }
                after_name = false;
            }
            TokenTree::Group(g) => compile_errors(g.stream(), out),
            _ => after_name = false,
        }
    }
}

/// The description as a spec file, loaded: its error's message.
fn spec_error(d: &Description) -> Option<String> {
    let quoted = |v: &[String]| {
        let items: Vec<String> = v.iter().map(|s| format!("\"{s}\"")).collect();
        format!("[{}]", items.join(", "))
    };
    let given: Vec<String> = d.given.iter().map(|g| (*g).to_owned()).collect();
    let mut text = String::from("name = \"M\"\n");
    if !given.is_empty() {
        text += &format!("given = {}\n", quoted(&given));
    }
    if !d.wheres.is_empty() {
        text += &format!("where = {}\n", quoted(&d.wheres));
    }
    text += "[tensors]\n";
    for (i, p) in d.patterns.iter().enumerate() {
        text += &format!("\"f{i}\" = \"{p}\"\n");
    }
    shapes_core::Spec::from_toml("parity.toml", &text)
        .err()
        .map(|e| e.message().to_owned())
}

/// A message with each front end's own words set aside: what the derive calls a field the
/// spec calls a tensor, and the advice on declaring a name given ends the message.
fn common(message: &str) -> String {
    let mut m = message.replace("field", "tensor");
    for advice in [
        "declare it with #[shapes(given",
        "declare it with given = [",
        "Bind one through `verify_with`",
        "Declare one with given = [",
    ] {
        if let Some(at) = m.find(advice) {
            m.truncate(at);
        }
    }
    m
}

/// 3,000 descriptions: about 70% rejected, by each of the five rules of `shapes_core`'s
/// `rules.rs` (a given name no pattern uses and a name only compared most often, a variadic
/// used as a dim least), the rest accepted.
#[test]
fn the_derive_and_the_spec_loader_agree_on_generated_descriptions() {
    let (mut rejected, mut runs) = (0, 0);
    for seed in 1..=3_000u64 {
        let mut g = Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let d = description(&mut g);
        let derived = derive_errors(&d);
        let spec = spec_error(&d);
        assert_eq!(
            derived.first().map(|m| common(m)),
            spec.as_deref().map(common),
            "seed {seed}: {d:#?}\nthe derive: {derived:#?}\nthe spec loader: {spec:?}"
        );
        runs += 1;
        rejected += usize::from(spec.is_some());
    }
    // Both verdicts are generated in numbers.
    assert!(
        rejected > runs / 5 && rejected < runs * 4 / 5,
        "{rejected} of {runs} rejected"
    );
}
