//! The spec reader's expansion: choices, block uses, dtypes, and its bounds.
use super::*;
use crate::spec::SpecText;
use crate::spec::toml_in::parse;

fn parsed(text: &str) -> Result<Parsed, SpecError> {
    parse(&SpecText {
        file: "s.toml",
        text,
    })
}

#[test]
fn a_block_that_uses_itself_is_an_error_at_once() {
    let text = "[tensors]\n\"m\" = { block = \"b\" }\n[blocks.b]\n\"w\" = \"(n,)\"\n\"x\" = { block = \"b\" }\n\"y\" = { block = \"b\" }\n\"z\" = { block = \"b\" }\n\"v\" = { block = \"b\" }\n";
    let e = parse(&SpecText {
        file: "s.toml",
        text,
    })
    .unwrap_err();
    assert!(e.message().starts_with("block `b` uses itself"), "{e}");
}

#[test]
fn blocks_that_multiply_are_bounded() {
    // 12 levels, each using the next four times: 4^12 tensors if expanded.
    let mut text = String::from("[tensors]\n\"m\" = { block = \"b0\" }\n");
    for i in 0..12 {
        text.push_str(&format!("[blocks.b{i}]\n"));
        for k in 0..4 {
            text.push_str(&format!("\"p{k}\" = {{ block = \"b{}\" }}\n", i + 1));
        }
    }
    text.push_str("[blocks.b12]\n\"w\" = \"(n,)\"\n");
    let e = parse(&SpecText {
        file: "s.toml",
        text: &text,
    })
    .unwrap_err();
    assert!(e.message().contains("MAX_SPEC_TENSORS"), "{e}");
}

#[test]
fn renames_whole_words_only() {
    let r = vec![("d".to_string(), "d_model".to_string())];
    assert_eq!(
        rename("(d, d_ff, 2 * d)", &r),
        "(d_model, d_ff, 2 * d_model)"
    );
}

#[test]
fn a_one_of_records_each_alternative_of_its_tensors() {
    let p = parsed(
        "[tensors]\n\"l.{i}\" = { block = \"layer\" }\n[blocks.layer]\n\"norm\" = \"(d,)\"\n\"\" = { one_of = [\"dense\", \"moe\"], first = \"k\" }\n[blocks.dense]\n\"up\" = \"(f, d)\"\n[blocks.moe]\n\"up_exps\" = \"(e, f, d)\"\n",
    )
    .unwrap();
    let names: Vec<(&str, &[(usize, usize)])> = p
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.choices.as_slice()))
        .collect();
    assert_eq!(
        names,
        [
            ("l.{i}.norm", &[][..]),
            ("l.{i}.up", &[(0, 0)][..]),
            ("l.{i}.up_exps", &[(0, 1)][..])
        ]
    );
    let c = &p.choices[0];
    assert_eq!(
        (c.at.as_str(), c.alternatives, c.optional),
        ("l.{i}", 2, false)
    );
    assert_eq!(c.leading.as_deref(), Some("k"));
}

#[test]
fn an_optional_block_is_a_choice_of_one() {
    let p = parsed("[tensors]\n\"head\" = { block = \"b\", optional = true }\n[blocks.b]\n\"w\" = \"(n,)\"\n\"v\" = \"(n,)\"\n").unwrap();
    assert!(
        p.entries
            .iter()
            .all(|e| !e.optional && e.choices == [(0, 0)])
    );
    assert!(p.choices[0].optional);
}

#[test]
fn one_of_and_first_are_checked_where_written() {
    let e = parsed("[tensors]\n\"x\" = { one_of = [\"a\"] }\n").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("s.toml:2:18: `one_of` takes a list of two or more"),
        "{e}"
    );
    let e = parsed(
        "[tensors]\n\"x\" = { block = \"a\", first = \"k\" }\n[blocks.a]\n\"w\" = \"(n,)\"\n",
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("`first` goes with `one_of` of two blocks"),
        "{e}"
    );
    let e = parsed("[tensors]\n\"x\" = { one_of = [\"a\", \"b\"], rename = { m = \"n\" } }\n[blocks.a]\n\"w\" = \"(n,)\"\n[blocks.b]\n\"v\" = \"(n,)\"\n").unwrap_err();
    assert!(
        e.to_string().contains(
            "`rename` names `m`, which none of the blocks `a`, `b` uses (did you mean `n`?)"
        ),
        "{e}"
    );
    let e = parsed("[tensors]\n\"\" = \"(n,)\"\n").unwrap_err();
    assert!(e.to_string().contains("an empty tensor name"), "{e}");
    let e = parsed("[tensors]\n\"w\" = \"(n,)\"\n[head_tensors]\n\"h\" = \"(n,)\"\n").unwrap_err();
    assert!(e.to_string().contains("they need `prefixes"), "{e}");
}

#[test]
fn a_dtype_on_a_block_use_applies_to_its_tensors_unless_they_say_otherwise() {
    let p = parsed("dtype = \"BF16\"\n[tensors]\n\"a\" = \"(n,)\"\n\"q\" = { block = \"fp8\", dtype = \"F8_E4M3\" }\n[blocks.fp8]\n\"weight\" = \"(n, n)\"\n\"scale\" = { shape = \"(n,)\", dtype = [\"F32\"] }\n").unwrap();
    let dtypes: Vec<(&str, Option<Vec<String>>)> = p
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.dtype.clone()))
        .collect();
    assert_eq!(
        dtypes,
        [
            ("a", None),
            ("q.weight", Some(vec!["F8_E4M3".to_string()])),
            ("q.scale", Some(vec!["F32".to_string()])),
        ]
    );
    assert_eq!(p.dtype, Some(vec!["BF16".to_string()]));
    let e = parsed("[tensors]\n\"w\" = { shape = \"(n,)\", dtype = \"bf16\" }\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("\"bf16\" is not a dtype as checkpoints spell them: write `BF16`"),
        "{e}"
    );
}

#[test]
fn a_list_under_one_name_holds_block_uses_only() {
    let p = parsed("[tensors]\n\"l.{i}\" = { block = \"layer\" }\n[blocks.layer]\n\"\" = [{ block = \"bias\", optional = true }, { one_of = [\"a\", \"b\"] }]\n[blocks.bias]\n\"q.bias\" = \"(n,)\"\n[blocks.a]\n\"up\" = \"(f, n)\"\n[blocks.b]\n\"up_exps\" = \"(e, f, n)\"\n").unwrap();
    let at: Vec<&str> = p.choices.iter().map(|c| c.at.as_str()).collect();
    assert_eq!(at, ["l.{i}", "l.{i}"]);
    assert_eq!(p.entries.len(), 3);
    let e = parsed("[tensors]\n\"\" = [{ shape = \"(n,)\" }]\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("a list under one name holds block uses"),
        "{e}"
    );
    let e = parsed("[tensors]\n\"x\" = [\"(n,)\"]\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("a list under one name holds block uses"),
        "{e}"
    );
}

#[test]
fn a_tied_tensor_inside_a_block_used_at_a_name_is_tied_under_it() {
    let spec = crate::Spec::from_toml(
        "s.toml",
        "[tensors]\n\"emb\" = \"(v, d)\"\n\"dec\" = { block = \"d\", optional = true }\n[blocks.d]\n\"head\" = { shape = \"(v, d)\", tied = \"emb\" }\n",
    )
    .unwrap_err();
    assert!(
        spec.to_string()
            .contains("`dec.head` is tied to `emb`, outside the block used at `dec` that holds it"),
        "{spec}"
    );
}
