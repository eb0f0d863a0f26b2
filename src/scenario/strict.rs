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
