//! The `weight_map` of a sharded checkpoint's `model.safetensors.index.json`, read straight
//! into a list: a DeepSeek-V3 index names ~92,000 tensors, and building a
//! `serde_json::Value` of it (a sorted map of every name, a string per shard name) cost more
//! than reading the 163 shard headers it names.

use std::fmt;

use serde::Deserializer;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A `weight_map` entry's value: a shard's file name, or what stands there instead (shown
/// in the error).
pub(super) enum Shard {
    Name(String),
    Other(serde_json::Value),
}

/// The index's `weight_map` entries in file order (a repeated key listed each time), or
/// `None` when the file is JSON but holds no `weight_map` object. The last `weight_map` key
/// counts when the object repeats it, as with any JSON object read here.
pub(super) fn weight_map(bytes: &[u8]) -> Result<Option<Vec<(String, Shard)>>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let map = de.deserialize_any(Top)?;
    de.end()?;
    Ok(map)
}

/// Any JSON value that is not an object: skipped, and read as "no object".
macro_rules! not_an_object {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    };
}

/// The whole file: an object with a `weight_map`, or anything else.
struct Top;

impl<'de> Visitor<'de> for Top {
    type Value = Option<Vec<(String, Shard)>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "weight_map" {
                found = map.next_value_seed(WeightMap)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The `weight_map` value: its entries when it is an object.
struct WeightMap;

impl<'de> de::DeserializeSeed<'de> for WeightMap {
    type Value = Option<Vec<(String, Shard)>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for WeightMap {
    type Value = Option<Vec<(String, Shard)>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(tensor) = map.next_key::<String>()? {
            let shard = match map.next_value::<serde_json::Value>()? {
                serde_json::Value::String(s) => Shard::Name(s),
                other => Shard::Other(other),
            };
            entries.push((tensor, shard));
        }
        Ok(Some(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(json: &str) -> Option<Vec<(String, String)>> {
        let map = weight_map(json.as_bytes()).expect("JSON");
        map.map(|m| {
            m.into_iter()
                .map(|(t, s)| match s {
                    Shard::Name(n) => (t, n),
                    Shard::Other(v) => (t, format!("<{v}>")),
                })
                .collect()
        })
    }

    #[test]
    fn the_entries_come_in_file_order_with_what_is_not_a_name() {
        let got = names(r#"{"metadata":{"total_size":1},"weight_map":{"b":"s2","a":"s1","c":3}}"#);
        let want = [("b", "s2"), ("a", "s1"), ("c", "<3>")];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(t, s)| ((*t).to_owned(), (*s).to_owned()))
            .collect();
        assert_eq!(got, Some(want));
    }

    #[test]
    fn no_weight_map_object_is_none_and_bad_json_an_error() {
        for json in [
            "[1, 2]",
            "3",
            r#""x""#,
            "null",
            r#"{"weight_map": [1]}"#,
            r#"{"metadata": {}}"#,
            "true",
        ] {
            assert!(names(json).is_none(), "{json}");
        }
        assert!(weight_map(br#"{"weight_map": {"a": "s"}"#).is_err());
        assert!(weight_map(br#"{"weight_map": {}} x"#).is_err());
        let last = names(r#"{"weight_map": {"a": "s"}, "weight_map": {"b": "t"}}"#);
        assert_eq!(last, Some(vec![("b".to_owned(), "t".to_owned())]));
    }
}
