//! The layout the architecture promises, kept true: no import cycle between the modules of one
//! folder (a parent and its child modules excepted), and no library file over 700 lines
//! without its inline tests. Read from the sources as text: `crate::a::b`, `super::x` and
//! `self::x` paths, resolved to the modules they name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a library source file holds, its inline tests left out.
const MAX_FILE_LINES: usize = 700;

/// The library crates' source folders.
const CRATES: &[&str] = &[
    "shapes-core/src",
    "shapes-derive/src",
    "src",
    "shapes-cli/src",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every `.rs` file under `dir`, with its module path (`verify::checker` for
/// `verify/checker/mod.rs`; empty for `lib.rs`/`main.rs`).
fn modules(dir: &Path) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a source folder") {
            let p = entry.expect("an entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = p.strip_prefix(dir).expect("under the folder");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&p).expect("a source file");
            out.push((parts, text));
        }
    }
    out
}

/// The text before the inline tests.
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i])
}

/// The code of `text`: its comments (and so its doc links, which import nothing) left out.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The path at the start of `text` (`a::b::c`), as its segments, and where it ends.
fn leading_path(text: &str) -> (Vec<&str>, usize) {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(text.len());
    let path = text[..end].split("::").filter(|s| !s.is_empty()).collect();
    (path, end)
}

/// The paths of the use tree at the start of `text`, each after `prefix`: the tree's own
/// path, and for a group (`a::{b, c::{d}}`) each path in it (`a::b`, `a::c`, `a::c::d`).
fn use_paths<'t>(prefix: &[&'t str], text: &'t str, out: &mut Vec<Vec<&'t str>>) {
    let (path, end) = leading_path(text);
    let mut full = prefix.to_vec();
    full.extend(path);
    out.push(full.clone());
    let Some(inner) = text[end..].strip_prefix('{') else {
        return;
    };
    let (mut depth, mut item) = (0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            '}' | ',' if depth == 0 => {
                use_paths(&full, inner[item..i].trim_start(), out);
                if c == '}' {
                    return;
                }
                item = i + 1;
            }
            _ => {}
        }
    }
}

/// The module paths `text` (of module `at`) refers to, each cut to the longest known module.
fn references(at: &[String], text: &str, known: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(start) {
            let begin = from + i;
            from = begin + start.len();
            if begin > 0 && (bytes[begin - 1].is_ascii_alphanumeric() || bytes[begin - 1] == b'_') {
                continue;
            }
            let mut paths = Vec::new();
            use_paths(&[], &text[begin..], &mut paths);
            for path in paths {
                let mut base: Vec<String> = match path.first().copied() {
                    Some("crate") => Vec::new(),
                    _ => at.to_vec(),
                };
                let mut rest = &path[1..];
                if path.first() == Some(&"super") {
                    base.pop();
                    while rest.first() == Some(&"super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                }
                let mut best = base.clone();
                for part in rest {
                    base.push((*part).to_owned());
                    if known.contains(&base) {
                        best = base.clone();
                    } else {
                        break;
                    }
                }
                out.insert(best);
            }
        }
    }
    out
}

/// The cycles among the children of each module: groups of sibling modules that import each
/// other, each as its members' paths.
fn cycles(dir: &Path) -> Vec<Vec<String>> {
    let mods = modules(dir);
    let known: BTreeSet<Vec<String>> = mods.iter().map(|(m, _)| m.clone()).collect();
    // Edges between siblings: a module's subtree referring to another sibling's subtree.
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (at, text) in &mods {
        if at.last().is_some_and(|m| m == "tests") {
            continue; // a file of tests
        }
        for target in references(at, &code(without_tests(text)), &known) {
            // The first level where `at` and `target` part: those two siblings.
            let common = at.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common >= at.len() || common >= target.len() {
                continue; // a parent and its descendant
            }
            let from = at[..=common].to_vec();
            let to = target[..=common].to_vec();
            edges.entry(from).or_default().insert(to);
        }
    }
    // Tarjan's strongly connected components.
    struct State<'e> {
        edges: &'e BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<Vec<String>, usize>,
        low: BTreeMap<Vec<String>, usize>,
        stack: Vec<Vec<String>>,
        out: Vec<Vec<String>>,
    }
    fn visit(s: &mut State<'_>, v: &Vec<String>) {
        let n = s.index.len();
        s.index.insert(v.clone(), n);
        s.low.insert(v.clone(), n);
        s.stack.push(v.clone());
        let next: Vec<Vec<String>> = s.edges.get(v).into_iter().flatten().cloned().collect();
        for w in &next {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                let done = w == *v;
                comp.push(w.join("::"));
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges: &edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    let nodes: Vec<Vec<String>> = edges.keys().cloned().collect();
    for v in &nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_module_imports_a_module_that_imports_it() {
    for krate in CRATES {
        let found = cycles(&root().join(krate));
        assert!(found.is_empty(), "{krate}: import cycles {found:?}");
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let dir = std::env::temp_dir().join(format!("shapes-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a; mod b;").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod c; use crate::b::X;").unwrap();
    std::fs::write(dir.join("a/c.rs"), "use super::super::a::Y;").unwrap();
    std::fs::write(dir.join("b.rs"), "use crate::a::c::Z;").unwrap();
    let found = cycles(&dir);
    // Through a group import too.
    std::fs::write(dir.join("b.rs"), "use crate::{d::{E, F}, a::c::Z};").unwrap();
    let grouped = cycles(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found, [vec!["a".to_string(), "b".to_string()]]);
    assert_eq!(grouped, found);
}

#[test]
fn no_library_file_is_over_700_lines_without_its_tests() {
    let mut over = Vec::new();
    for krate in CRATES {
        for (module, text) in modules(&root().join(krate)) {
            if module.last().is_some_and(|m| m == "tests") {
                continue; // a file of tests
            }
            let lines = without_tests(&text).lines().count();
            if lines > MAX_FILE_LINES {
                over.push(format!("{krate}/{}: {lines} lines", module.join("/")));
            }
        }
    }
    assert!(over.is_empty(), "{over:?}");
}
