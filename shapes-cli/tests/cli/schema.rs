//! The JSON Schema of `shapes check --json` (`shapes-cli/report.schema.json`) and a validator
//! for the part of JSON Schema it uses: `type` (one or several), `enum`, `minimum`,
//! `required`, `properties`, `additionalProperties: false`, `items` and `$ref` to `$defs`.
//! Any other keyword in the schema is an error, so the schema cannot say more than is
//! checked. Every `--json` output the tests produce is validated (`support::shapes`).

use serde_json::Value;

/// The schema, as shipped.
pub fn schema() -> Value {
    let text = include_str!("../../report.schema.json");
    serde_json::from_str(text).expect("report.schema.json is JSON")
}

/// Keywords that say nothing to check.
const ANNOTATIONS: &[&str] = &["$schema", "$id", "$defs", "title", "description"];

/// Keywords the validator checks.
const CHECKED: &[&str] = &[
    "type",
    "enum",
    "minimum",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "$ref",
];

/// Every way `value` breaks `schema` (empty when it is valid), each with its JSON path.
pub fn errors(schema: &Value, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, schema, value, "$", &mut out);
    out
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check(root: &Value, schema: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    let Some(s) = schema.as_object() else {
        out.push(format!("{at}: the schema here is not an object"));
        return;
    };
    for key in s.keys() {
        if !CHECKED.contains(&key.as_str()) && !ANNOTATIONS.contains(&key.as_str()) {
            out.push(format!(
                "{at}: the schema uses `{key}`, which this validator does not check"
            ));
        }
    }
    if let Some(r) = s.get("$ref") {
        let target = r
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(|name| root.get("$defs")?.get(name));
        match target {
            Some(t) => check(root, t, v, at, out),
            None => out.push(format!("{at}: unresolved $ref {r}")),
        }
    }
    if let Some(t) = s.get("type") {
        let allowed: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = type_of(v);
        let ok = allowed.contains(&actual) || (actual == "integer" && allowed.contains(&"number"));
        if !ok {
            out.push(format!("{at}: a {actual}, not {}", allowed.join(" or ")));
            return;
        }
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(v)
    {
        out.push(format!(
            "{at}: {v} is none of {}",
            Value::Array(options.clone())
        ));
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        out.push(format!("{at}: {n} is below the minimum {min}"));
    }
    if let Value::Object(fields) = v {
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = r.as_str()
                && !fields.contains_key(name)
            {
                out.push(format!("{at}: the key `{name}` is missing"));
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, fv) in fields {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, fv, &format!("{at}.{k}"), out),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    out.push(format!("{at}: the key `{k}` is not in the schema"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(is)) = (v, s.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check(root, is, item, &format!("{at}[{i}]"), out);
        }
    }
}

#[test]
fn the_validator_finds_each_kind_of_breach() {
    let schema: Value = serde_json::json!({
        "type": "object",
        "required": ["a", "b"],
        "additionalProperties": false,
        "properties": {
            "a": { "type": ["integer", "null"], "minimum": 1 },
            "b": { "type": "array", "items": { "$ref": "#/$defs/c" } }
        },
        "$defs": { "c": { "type": "string", "enum": ["x", "y"] } }
    });
    let valid = serde_json::json!({ "a": null, "b": ["x", "y"] });
    assert_eq!(errors(&schema, &valid), Vec::<String>::new());
    for (bad, expected) in [
        (serde_json::json!({ "a": 1 }), "$: the key `b` is missing"),
        (
            serde_json::json!({ "a": 1, "b": [], "z": 0 }),
            "$: the key `z` is not in the schema",
        ),
        (
            serde_json::json!({ "a": "1", "b": [] }),
            "$.a: a string, not integer or null",
        ),
        (
            serde_json::json!({ "a": 0, "b": [] }),
            "$.a: 0 is below the minimum 1",
        ),
        (
            serde_json::json!({ "a": 1.5, "b": [] }),
            "$.a: a number, not integer or null",
        ),
        (
            serde_json::json!({ "a": 1, "b": ["z"] }),
            "$.b[0]: \"z\" is none of [\"x\",\"y\"]",
        ),
        (serde_json::json!([]), "$: a array, not object"),
    ] {
        assert_eq!(errors(&schema, &bad), [expected], "{bad}");
    }
    let unknown = serde_json::json!({ "type": "string", "pattern": "x" });
    assert_eq!(
        errors(&unknown, &serde_json::json!("x")),
        ["$: the schema uses `pattern`, which this validator does not check"]
    );
    let dangling = serde_json::json!({ "$ref": "#/$defs/nothing" });
    assert_eq!(
        errors(&dangling, &serde_json::json!(1)),
        ["$: unresolved $ref \"#/$defs/nothing\""]
    );
}

#[test]
fn the_schema_uses_only_what_the_validator_checks_and_rejects_a_report_without_a_key() {
    let schema = schema();
    // Every subschema is reached by validating documents that use every branch: the
    // reports the other tests produce. Here, a failure document and one with a key gone.
    let ok = shapes::report::failure_json("no such file", None, None);
    assert_eq!(errors(&schema, &ok), Vec::<String>::new());
    let mut broken = ok.clone();
    broken.as_object_mut().map(|o| o.remove("warnings"));
    assert_eq!(
        errors(&schema, &broken),
        ["$: the key `warnings` is missing"]
    );
    // The annotations aside, the schema's keywords are the checked ones.
    fn walk(v: &Value, out: &mut Vec<String>) {
        if let Value::Object(o) = v {
            for (k, sub) in o {
                if !CHECKED.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str()) {
                    out.push(k.clone());
                }
                if k == "properties" || k == "$defs" {
                    for s in sub.as_object().into_iter().flat_map(|m| m.values()) {
                        walk(s, out);
                    }
                } else {
                    walk(sub, out);
                }
            }
        }
    }
    let mut unknown = Vec::new();
    walk(&schema, &mut unknown);
    assert_eq!(unknown, Vec::<String>::new());
}
