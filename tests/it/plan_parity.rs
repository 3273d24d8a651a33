//! A plan built at run time (`shapes::Plan`, what spec files compile to) and a
//! `#[derive(Shaped)]` struct with the same patterns are checked by the same checker: on the
//! same sources they give the same bindings and the same error texts.

use std::collections::BTreeMap;

use shapes::{
    Bindings, Plan, Shape, Shaped,
    verify::{PlanNode, SourceOptions},
};

use crate::common::parity_model::Model;

fn plan() -> Plan {
    Plan::build(
        "Model",
        &[
            PlanNode::tensor("embed", "(vocab, d_model)"),
            PlanNode::tensor("proj", "(heads * head_dim, d_model)"),
            PlanNode::tensor("scale", "(*batch, d_model)"),
            PlanNode::group(
                "layers",
                vec![
                    PlanNode::tensor("up", "(d_ff, d_model)"),
                    PlanNode::tensor("down", "(d_model, d_ff)"),
                    PlanNode::tensor("bias", "(d_ff,)").optional(),
                ],
            )
            .repeated(Some("n_layers")),
        ],
        &["d_model = heads * head_dim"],
    )
    .unwrap()
}

fn source(edit: impl FnOnce(&mut BTreeMap<String, Shape>)) -> BTreeMap<String, Shape> {
    let mut src = BTreeMap::new();
    src.insert("embed".to_string(), Shape::from([100, 64]));
    src.insert("proj".to_string(), Shape::from([64, 64]));
    src.insert("scale".to_string(), Shape::from([2, 3, 64]));
    for i in 0..3 {
        src.insert(format!("layers.{i}.up"), Shape::from([256, 64]));
        src.insert(format!("layers.{i}.down"), Shape::from([64, 256]));
    }
    src.insert("layers.1.bias".to_string(), Shape::from([256]));
    edit(&mut src);
    src
}

fn both(
    src: &BTreeMap<String, Shape>,
    options: impl Fn() -> SourceOptions,
) -> (Result<Bindings, String>, Result<Bindings, String>) {
    let derived = Model::verify_source_options(src, options()).map_err(|e| e.to_string());
    let planned = plan()
        .verify_source_options(src, options())
        .map_err(|e| e.to_string());
    (derived, planned)
}

fn pre() -> SourceOptions {
    SourceOptions::new().bindings(Bindings::new().bind("heads", 4))
}

/// Bindings compared by what a user reads: every variable's value and where it was bound.
fn readable(b: &Bindings) -> Vec<String> {
    let mut out: Vec<String> = b
        .iter()
        .map(|x| format!("{} = {:?} from {:?}", x.name, x.value, x.origin.to_string()))
        .collect();
    out.sort();
    out
}

#[test]
fn a_good_checkpoint_gives_the_same_bindings() {
    let src = source(|_| {});
    let (derived, planned) = both(&src, pre);
    let (derived, planned) = (derived.unwrap(), planned.unwrap());
    assert_eq!(readable(&derived), readable(&planned));
    assert_eq!(planned.get("head_dim"), Some(16));
    assert_eq!(planned.get("n_layers"), Some(3));
    assert_eq!(
        planned.get_shape("batch").map(|s| s.to_string()),
        Some("(2, 3)".to_string())
    );
}

#[test]
fn every_kind_of_error_reads_the_same() {
    type Edit = Box<dyn Fn(&mut BTreeMap<String, Shape>)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            "a dim",
            Box::new(|s| {
                s.insert("layers.2.down".into(), Shape::from([64, 255]));
            }),
        ),
        (
            "a rank",
            Box::new(|s| {
                s.insert("embed".into(), Shape::from([100]));
            }),
        ),
        (
            "the where clause",
            Box::new(|s| {
                s.insert("proj".into(), Shape::from([60, 64]));
            }),
        ),
        (
            "a missing tensor",
            Box::new(|s| {
                s.remove("layers.0.up");
            }),
        ),
        (
            "an unexpected tensor",
            Box::new(|s| {
                s.insert("layers.0.extra".into(), Shape::from([1]));
            }),
        ),
        (
            "a gap in the layers",
            Box::new(|s| {
                s.remove("layers.1.up");
                s.remove("layers.1.down");
                s.remove("layers.1.bias");
            }),
        ),
        (
            "an optional tensor",
            Box::new(|s| {
                s.insert("layers.1.bias".into(), Shape::from([255]));
            }),
        ),
        (
            "a variadic's rank",
            Box::new(|s| {
                s.insert("scale".into(), Shape::from([0usize; 0]));
            }),
        ),
    ];
    for (what, edit) in cases {
        let src = source(edit);
        let (derived, planned) = both(&src, pre);
        let (derived, planned) = (derived.unwrap_err(), planned.unwrap_err());
        assert_eq!(derived, planned, "{what}");
    }
}

#[test]
fn pre_bound_and_non_strict_options_act_the_same() {
    let src = source(|s| {
        s.insert("optimizer.step".into(), Shape::from([1]));
    });
    let lax = || pre().strict(false);
    let (derived, planned) = both(&src, lax);
    assert_eq!(readable(&derived.unwrap()), readable(&planned.unwrap()));
    let wrong = || SourceOptions::new().bindings(Bindings::new().bind("heads", 5));
    let (derived, planned) = both(&src, wrong);
    assert!(derived.is_err());
    assert_eq!(derived.unwrap_err(), planned.unwrap_err());
}

#[test]
fn a_bad_spec_is_an_error_naming_the_tensor() {
    let err = Plan::build(
        "M",
        &[PlanNode::group(
            "layers",
            vec![PlanNode::tensor("w", "(a, D b)")],
        )],
        &[],
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "layers.w: `D` (rank of a shape) cannot be checked against a tensor: use arithmetic on names and numbers"
    );
    // Comparisons are constraints; a list of them must be well formed.
    assert!(Plan::build("M", &[], &["a >= 3, a % 2 = 0"]).is_ok());
    let err = Plan::build("M", &[], &["a >= 3,"]).unwrap_err();
    assert!(
        err.to_string().starts_with("where \"a >= 3,\": expected"),
        "{err}"
    );
}

/// Two `where` clauses whose arithmetic fails once `b = 0` is bound.
#[derive(Shaped, Debug)]
#[shapes(where = "a % b = 0, a // b >= 1")]
struct DivByZero {
    #[shape("(a, b)")]
    w: Shape,
}

#[test]
fn a_where_clause_that_divides_by_zero_is_named_once_with_its_operator() {
    let src = BTreeMap::from([("w".to_string(), Shape::from([3, 0]))]);
    let plan = Plan::build(
        "DivByZero",
        &[PlanNode::tensor("w", "(a, b)")],
        &["a % b = 0, a // b >= 1"],
    )
    .unwrap();
    let planned = plan.verify_source(&src).unwrap_err().to_string();
    let derived = DivByZero::verify_source(&src).unwrap_err().to_string();
    let modulo =
        "DivByZero: where clause fails: a % b = 0 cannot be checked: 3 is taken modulo zero";
    let divided =
        "DivByZero: where clause fails: a // b >= 1 cannot be checked: 3 is divided by zero";
    let bound = "a = 3 bound by DivByZero.w axis 0; b = 0 bound by DivByZero.w axis 1";
    let expected = format!("2 shape errors:\n- {modulo}\n    {bound}\n- {divided}\n    {bound}");
    assert_eq!(planned, expected);
    assert_eq!(derived, expected);
    // In memory: the first error alone.
    let m = DivByZero {
        w: Shape::from([3, 0]),
    };
    assert_eq!(
        m.verify().unwrap_err().to_string(),
        format!("{modulo}\n  {bound}")
    );
    // The llama spec's clause with `kv_heads = 0` bound from a tensor.
    let gqa = Plan::build(
        "Llama",
        &[PlanNode::tensor("k", "(kv_heads, heads)")],
        &["heads % kv_heads = 0"],
    )
    .unwrap();
    let src = BTreeMap::from([("k".to_string(), Shape::from([0, 2]))]);
    let e = gqa.verify_source(&src).unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(
        e.to_string().starts_with(
            "Llama: where clause fails: heads % kv_heads = 0 cannot be checked: 2 is taken modulo zero\n"
        ),
        "{e}"
    );
}
