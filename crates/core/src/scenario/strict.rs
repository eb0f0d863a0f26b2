//! The rules of the JSON text itself that serde's typed pass does not enforce everywhere:
//! no object names the same key twice. serde's derived structs refuse a repeated field, but
//! a map (`expect.boundaries`) would keep the last value silently, so a scenario whose
//! author wrote one expectation twice would check only one of them. This pass walks the
//! text once more, untyped, and refuses any repeated key, with its path and position.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::BTreeSet;
use std::fmt;

/// Any JSON value, whose objects have been checked for repeated keys.
struct Unique;

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueVisitor)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Unique;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_str<E>(self, _: &str) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_unit<E>(self) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_none<E>(self) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Unique, D::Error> {
        Unique::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Unique, A::Error> {
        while seq.next_element::<Unique>()?.is_some() {}
        Ok(Unique)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Unique, A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(DuplicateKey(key)));
            }
            map.next_value::<Unique>()?;
        }
        Ok(Unique)
    }
}

/// The message of a repeated key; [`duplicate_key_of`] recognises it again to name the
/// key in the field path.
struct DuplicateKey(String);

const PREFIX: &str = "duplicate key `";
const SUFFIX: &str =
    "`: this object names it twice and only one value could be used; keep one of them";

impl fmt::Display for DuplicateKey {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{PREFIX}{}{SUFFIX}", self.0)
    }
}

/// The key a message produced by [`DuplicateKey`] names.
pub fn duplicate_key_of(message: &str) -> Option<&str> {
    message.strip_prefix(PREFIX)?.split(SUFFIX).next()
}

/// Walks `text` and refuses the first object that repeats a key.
pub fn unique_keys(text: &str) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize::<_, Unique>(de).map(|_| ())
}

/// Where the scenario gives a list for an object: serde's derived structs also read a JSON
/// array as the struct's fields in order (`"faults": []` would be "no faults"), which the
/// file's schema does not allow. The value is walked along the schema derived from the
/// very types the loader reads (`file_schema`): every value whose schema is an object
/// (and is not also a list) must be one. The path of the first that is not, in the
/// loader's path syntax.
pub(super) fn list_for_an_object(value: &serde_json::Value) -> Option<String> {
    static SCHEMA: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    let schema = SCHEMA.get_or_init(|| super::file_schema().to_value());
    let defs = &schema["$defs"];
    walk(value, schema, defs, String::new())
}

/// [`list_for_an_object`] at `path`, `value` against `schema` (its `$ref`s in `defs`).
fn walk(
    value: &serde_json::Value,
    schema: &serde_json::Value,
    defs: &serde_json::Value,
    path: String,
) -> Option<String> {
    use serde_json::Value;
    let schema = resolve(schema, defs);
    if value.is_array() && takes_an_object_not_a_list(schema, defs) {
        return Some(if path.is_empty() { ".".into() } else { path });
    }
    let field = |key: &str| match path.is_empty() {
        true => key.to_string(),
        false => format!("{path}.{key}"),
    };
    let alternatives = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema[*k].as_array());
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let property = &schema["properties"][k];
            let under = match property.is_null() {
                true => &schema["additionalProperties"],
                false => property,
            };
            let found = (!under.is_null()).then(|| walk(v, under, defs, field(k)));
            found.flatten().or_else(|| {
                // An untagged enum: the alternatives that are objects.
                alternatives.clone().flatten().find_map(|alt| {
                    let alt = resolve(alt, defs);
                    let p = &alt["properties"][k];
                    (!p.is_null()).then(|| walk(v, p, defs, field(k))).flatten()
                })
            })
        }),
        Value::Array(items) => items.iter().enumerate().find_map(|(i, v)| {
            let item = match schema["items"].is_null() {
                true => alternatives
                    .clone()
                    .flatten()
                    .map(|a| &resolve(a, defs)["items"])
                    .find(|i| !i.is_null())?,
                false => &schema["items"],
            };
            walk(v, item, defs, format!("{path}[{i}]"))
        }),
        _ => None,
    }
}

/// `schema` with its `$ref` followed (one level: the derived schema refers to `$defs`).
fn resolve<'s>(
    schema: &'s serde_json::Value,
    defs: &'s serde_json::Value,
) -> &'s serde_json::Value {
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(name) => &defs[name],
        None => schema,
    }
}

/// Whether `schema` admits an object and no list.
fn takes_an_object_not_a_list(schema: &serde_json::Value, defs: &serde_json::Value) -> bool {
    let types = |s: &serde_json::Value| -> Vec<String> {
        match &s["type"] {
            serde_json::Value::String(t) => vec![t.clone()],
            serde_json::Value::Array(ts) => ts
                .iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut all = types(schema);
    for k in ["anyOf", "oneOf"] {
        for alt in schema[k].as_array().into_iter().flatten() {
            all.extend(types(resolve(alt, defs)));
        }
    }
    all.iter().any(|t| t == "object") && !all.iter().any(|t| t == "array")
}
