//! Where a pattern is declared, carried from its source to the error about it: the
//! `#[shape("…")]` string of a derived field (in memory and read by name), a `count`, a
//! `#[shapes::check]` pattern, a spec file's entry (a framework layer's is in `frameworks.rs`);
//! and where a `where`, a `[repeat]` count and a config key are declared.

use std::collections::BTreeMap;

use shapes::verify::{HasShape, Place};
use shapes::{Checkpoint, Shape, ShapeError, Shaped, Spec, check};

use crate::common::ckpt_files::{TempDir, safetensors};

fn s<const N: usize>(dims: [usize; N]) -> Shape {
    Shape::from(dims)
}

/// The line of this constant; the struct below is written at fixed offsets from it.
const PROJ_LINE: u32 = line!();
#[derive(Shaped)]
struct Proj {
    #[shape("(d, 4 * d)")]
    w: Shape,
    #[shape("(d,)")]
    b: Shape,
    #[shape("(k,)", count = "n")]
    heads: Vec<Shape>,
}

fn proj(b: usize, heads: usize) -> Proj {
    Proj {
        w: s([2, 8]),
        b: s([b]),
        heads: vec![s([3]); heads],
    }
}

/// The place of the string literal, the column of its opening quote.
fn at(line: u32, column: u32) -> Option<Place> {
    Some(Place::at(file!(), line, column))
}

#[test]
fn a_derived_fields_error_names_the_attribute_that_declares_its_pattern() {
    let e = proj(3, 1).verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Proj.b");
    assert_eq!(e.declared_at, at(PROJ_LINE + 5, 13));
    // `Display` is unchanged; `{:#}` adds the place as a last line.
    assert!(!e.to_string().contains("declared at"), "{e}");
    assert_eq!(
        format!("{e:#}"),
        format!("{e}\n  declared at {}:{}:13", file!(), PROJ_LINE + 5)
    );
    // A `count` is declared by its own attribute, and its errors name it.
    let counted = proj(2, 2)
        .verify_with(shapes::Bindings::new().bind("n", 3))
        .unwrap_err();
    assert_eq!(counted.path.to_string(), "Proj.heads");
    assert_eq!(counted.declared_at, at(PROJ_LINE + 7, 29));
}

#[test]
fn read_by_name_the_same_error_names_the_same_place() {
    let mut src = BTreeMap::new();
    src.insert("w".to_string(), s([2, 8]));
    src.insert("b".to_string(), s([3]));
    src.insert("heads.0".to_string(), s([3]));
    let errors = Proj::verify_source(&src).unwrap_err();
    let e = errors.first().expect("one error");
    assert_eq!(e.path.to_string(), "Proj.b");
    assert_eq!(e.declared_at, at(PROJ_LINE + 5, 13));
    assert_eq!(e.declared_at, proj(3, 1).verify().unwrap_err().declared_at);
}

/// A stand-in for a tensor type: only its shape matters here.
struct Tensor(Shape);

impl HasShape for Tensor {
    type Dims<'a> = &'a [usize];
    fn shape(&self) -> &[usize] {
        self.0.dims()
    }
}

const MATMUL_LINE: u32 = line!();
#[check]
fn matmul(#[shape("(n, k)")] x: &Tensor, #[shape("(k, m)")] w: &Tensor) -> Result<(), ShapeError> {
    let _ = (x, w);
    Ok(())
}

#[test]
fn a_checked_functions_error_names_the_parameters_pattern() {
    let e = matmul(&Tensor(s([2, 3])), &Tensor(s([4, 5]))).unwrap_err();
    assert_eq!(e.path.to_string(), "matmul.w");
    assert_eq!(e.declared_at, at(MATMUL_LINE + 2, 50));
}

const SPEC: &str =
    "name = \"M\"\n[tensors]\n\"w\" = \"(d, 4 * d)\"\n\"b\" = { shape = \"(d,)\" }\n";

#[test]
fn a_spec_files_error_names_the_entry_and_the_report_prints_it() {
    let dir = TempDir::new("declared-at");
    let file = dir.join("m.toml");
    std::fs::write(&file, SPEC).unwrap();
    let spec = Spec::read(&file).unwrap();
    let shown = file.display().to_string();
    let mut src = BTreeMap::new();
    src.insert("w".to_string(), s([2, 8]));
    src.insert("b".to_string(), s([3]));
    let errors = spec.plan().verify_source(&src).unwrap_err();
    let e = errors.first().expect("one error");
    assert_eq!(e.path.to_string(), "M.b");
    let place = e.declared_at.expect("a place");
    assert_eq!(
        (place.file, place.line, place.column),
        (shown.as_str(), 4, 17)
    );

    // The report: a line in the text, an object in the JSON, a related location in SARIF.
    safetensors(
        &dir.join("model.safetensors"),
        &[("w".into(), vec![2, 8]), ("b".into(), vec![3])],
        &[],
    );
    let ckpt = Checkpoint::open(dir.join("model.safetensors")).unwrap();
    let report = spec.check(&ckpt);
    let text = report.to_string();
    let line = format!("    shape is (3,), pattern (d,)\n    declared at {shown}:4:17\n");
    assert!(text.contains(&line), "{text}");
    let json = report.to_json();
    let declared = &json["errors"][0]["declared_at"];
    assert_eq!(
        (&declared["file"], &declared["line"], &declared["column"]),
        (&shown.as_str().into(), &4.into(), &17.into())
    );
    let sarif = report.to_sarif();
    let related = &sarif["runs"][0]["results"][0]["relatedLocations"][0]["physicalLocation"];
    assert_eq!(related["artifactLocation"]["uri"], shown.as_str());
    assert_eq!(related["region"]["startLine"], 4);
    assert_eq!(related["region"]["startColumn"], 17);

    // A spec from a string names no file to open: its report's text and SARIF leave the place
    // out, its JSON keeps it.
    let report = Spec::from_toml("m.toml", SPEC).unwrap().check(&ckpt);
    assert!(!report.to_string().contains("declared at"), "{report}");
    assert_eq!(report.to_json()["errors"][0]["declared_at"]["line"], 4);
    let sarif = report.to_sarif();
    assert!(
        sarif["runs"][0]["results"][0]
            .get("relatedLocations")
            .is_none()
    );
}

/// A built-in spec's entries are placed in its text, which no viewer can open: the JSON names
/// the place, the text and SARIF do not.
#[test]
fn a_built_in_specs_error_names_its_line_but_sarif_no_file() {
    let spec = Spec::builtin("llama", shapes::spec::Naming::HuggingFace).unwrap();
    let dir = TempDir::new("declared-at-builtin");
    safetensors(
        &dir.join("model.safetensors"),
        &[
            ("model.embed_tokens.weight".into(), vec![16, 8]),
            ("lm_head.weight".into(), vec![16, 9]),
        ],
        &[],
    );
    let report = spec.check(&Checkpoint::open(dir.path()).unwrap());
    let json = report.to_json();
    let errors = json["errors"].as_array().expect("errors");
    let placed = errors
        .iter()
        .find(|e| e["declared_at"].is_object())
        .unwrap_or_else(|| panic!("no error names its place: {json:#}"));
    let file = placed["declared_at"]["file"].as_str().unwrap_or_default();
    assert!(file.starts_with("<built-in llama"), "{file}");
    assert!(placed["declared_at"]["line"].as_u64().unwrap_or(0) > 0);
    assert!(!report.to_string().contains("declared at"), "{report}");
    let sarif = report.to_sarif();
    assert!(
        sarif["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .all(|r| r.get("relatedLocations").is_none()),
        "{sarif:#}"
    );
}

const FUSED_LINE: u32 = line!();
#[derive(Shaped)]
#[shapes(where = "up = 2 * hidden")]
struct Fused {
    #[shape("(up,)")]
    gate_up: Shape,
    #[shape("(hidden,)")]
    down: Shape,
}

#[test]
fn a_where_clauses_error_names_the_where_that_states_it() {
    let bad = Fused {
        gate_up: s([190]),
        down: s([96]),
    };
    let e = bad.verify().unwrap_err();
    assert!(e.to_string().contains("where clause fails"), "{e}");
    assert_eq!(e.declared_at, at(FUSED_LINE + 2, 18));
    let mut src = BTreeMap::new();
    src.insert("gate_up".to_string(), s([190]));
    src.insert("down".to_string(), s([96]));
    let errors = Fused::verify_source(&src).unwrap_err();
    assert_eq!(errors.first().map(|e| e.declared_at), Some(e.declared_at));

    // A spec file's `where` names its line too.
    let text = "name = \"F\"\nwhere = [\"up = 2 * hidden\"]\n[tensors]\n\"gate_up\" = \"(up,)\"\n\"down\" = \"(hidden,)\"\n";
    let spec = Spec::from_toml("f.toml", text).unwrap();
    let errors = spec.plan().verify_source(&src).unwrap_err();
    let e = errors.first().expect("one error");
    assert!(e.to_string().contains("where clause fails"), "{e}");
    assert_eq!(e.declared_at, Some(Place::at("f.toml", 2, 10)));
}

/// A spec's repeated block: an error about its count names the `[repeat]` entry.
#[test]
fn a_count_error_names_the_repeat_entry() {
    let text =
        "name = \"M\"\n[repeat]\n\"layers\" = \"n\"\n[tensors]\n\"layers.{i}.w\" = \"(d,)\"\n";
    let spec = Spec::from_toml("r.toml", text).unwrap();
    let mut src = BTreeMap::new();
    src.insert("layers.0.w".to_string(), s([4]));
    src.insert("layers.1.w".to_string(), s([4]));
    let options =
        shapes::verify::SourceOptions::new().bindings(shapes::Bindings::new().bind("n", 3));
    let errors = spec
        .plan()
        .verify_source_options(&src, options)
        .unwrap_err();
    let e = errors.first().expect("one error");
    assert!(e.to_string().contains("expected 3 elements"), "{e}");
    assert_eq!(e.declared_at, Some(Place::at("r.toml", 3, 1)));
}

const SISE_LINE: u32 = line!();
#[derive(Shaped)]
#[shapes(config(d_ff = "intermediate_sise"))]
struct Misspelt {
    #[shape("(d_ff, d_model)", name = "up.weight")]
    up: Shape,
}

/// A misspelt config key (the error that keeps a variable from going unchecked in silence)
/// names the `config(…)` that declares the key, in a derived struct and in a spec file alike.
#[test]
fn a_misspelt_config_keys_error_names_where_the_key_is_declared() {
    let dir = TempDir::new("declared-at-config");
    let up = ("up.weight".to_string(), vec![64, 16]);
    safetensors(&dir.join("model.safetensors"), &[up], &[]);
    std::fs::write(dir.join("config.json"), r#"{"intermediate_size": 48}"#).unwrap();
    let ckpt = Checkpoint::open(dir.join("model.safetensors")).unwrap();
    let errors = Misspelt::verify_source(&ckpt).unwrap_err();
    let e = errors.first().expect("one error");
    assert!(e.to_string().contains("`intermediate_sise`"), "{e}");
    assert_eq!(e.declared_at, at(SISE_LINE + 2, 24));

    let file = dir.join("misspelt.toml");
    let text = "name = \"M\"\n[config]\nd_ff = \"intermediate_sise\"\n[tensors]\n\"up.weight\" = \"(d_ff, d_model)\"\n";
    std::fs::write(&file, text).unwrap();
    let report = Spec::read(&file).unwrap().check(&ckpt);
    let json = report.to_json();
    let e = (json["errors"].as_array().expect("errors").iter())
        .find(|e| e["kind"] == "config_key")
        .unwrap_or_else(|| panic!("no config key error: {json:#}"));
    assert_eq!(
        (&e["declared_at"]["line"], &e["declared_at"]["column"]),
        (&3.into(), &1.into()),
        "{e:#}"
    );
    let want = format!("declared at {}:3:1", file.display());
    assert!(report.to_string().contains(&want), "{report}");
}

/// Several errors: `{:#}` of the list names each one's place, `{}` none.
#[test]
fn several_errors_under_the_alternate_form_name_each_place() {
    let errors = proj(3, 2)
        .verify_all_with(shapes::Bindings::new().bind("n", 3))
        .unwrap_err();
    assert_eq!(errors.len(), 2, "{errors}");
    assert!(!errors.to_string().contains("declared at"), "{errors}");
    let text = format!("{errors:#}");
    for line in [PROJ_LINE + 5, PROJ_LINE + 7] {
        let place = format!("declared at {}:{line}:", file!());
        assert!(text.contains(&place), "{place} in {text}");
    }
}
