//! The values SQL statements bind and return: an event's payload field as a parameter
//! ([`SqlValue`]), and any value a handler passes or a query returns ([`Value`]).

use serde::{Deserialize, Serialize};

/// A value of an event's payload, bound to a statement's parameter: what JSON and SQLite
/// share without loss (no floating point: money is counted in minor units).
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(untagged)]
pub enum SqlValue {
    Integer(i64),
    Text(String),
}

/// A SQL value, as a parameter or as a column of a row a query returned.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// Equal values are the same value: a `Real` is compared bit for bit, so that a replay
/// that passes the same NaN asks for the same call.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits(),
            (Value::Null, Value::Null) => true,
            (Value::Integer(a), Value::Integer(b)) => a == b,
            (Value::Text(a), Value::Text(b)) => a == b,
            (Value::Blob(a), Value::Blob(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Integer(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}

impl From<SqlValue> for Value {
    fn from(v: SqlValue) -> Value {
        match v {
            SqlValue::Integer(i) => Value::Integer(i),
            SqlValue::Text(s) => Value::Text(s),
        }
    }
}
