//! What the consumers' database has committed, as the business would read it back with SQL:
//! a model type, filled by the store ([`crate::store::Store::committed_state`]) and read by
//! the checker and the reports, which so never reach the store themselves.

use super::Tick;
use serde::Serialize;
use std::collections::BTreeMap;

/// Debit and credit rows of one event in the committed ledger.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LedgerCounts {
    pub debits: u32,
    pub credits: u32,
    /// `completion` rows: a `TransferCompleted` that took effect.
    pub completions: u32,
}

/// What is committed, read back with SQL as the business would read it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CommittedState {
    /// Per `event_id`: its debit and credit rows.
    pub ledger: BTreeMap<String, LedgerCounts>,
    /// Per `event_id`: its inbox rows (more than one only without the unique constraint).
    pub inbox: BTreeMap<String, u32>,
    pub balances: BTreeMap<String, i64>,
    /// Per account: the sum of its ledger rows (what its balance moved by, per the ledger).
    pub ledger_sums: BTreeMap<String, i64>,
    /// Per `event_id`: how many times the projection rejected it.
    pub rejected: BTreeMap<String, u32>,
    /// Per `event_id`: its rows still waiting in `pending_event`.
    pub pending: BTreeMap<String, u32>,
    /// Per `event_id`: the amount of each of its committed credit rows, in commit order
    /// (a copy with another payload that was applied shows as another amount).
    pub credit_amounts: BTreeMap<String, Vec<i64>>,
    /// Every `payload_alert` row, in the order they were recorded.
    pub payload_alerts: Vec<PayloadAlertRow>,
    /// Per `transfer_id`: its debit and credit rows, whatever events carried them (the
    /// business intent's view).
    pub ledger_by_transfer: BTreeMap<String, LedgerCounts>,
    /// Whether the database is the scenario's own schema (`store.schema`): then `effects`
    /// and `invariants` are what is judged, and the ledger fields above stay empty.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub custom: bool,
    /// Per `event_id`: its committed effects, as the scenario's `check.effects_per_event`
    /// counts them.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub effects: BTreeMap<String, i64>,
    /// The scenario's `check.invariants`, each with what it gave.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<InvariantResult>,
    /// With the scenario's own schema: the rows of each of its tables (what `explain`
    /// shows of the database).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tables: BTreeMap<String, i64>,
}

/// What one check query of the scenario gave on the committed database.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct InvariantResult {
    /// The query, as the scenario wrote it.
    pub sql: String,
    /// Whether it gave true (a non-zero integer).
    pub holds: bool,
    /// What it gave: a value, or why it gave none. The JSON carries its English text
    /// (`0`, `NULL`, the engine's message), as it always has.
    #[schemars(with = "String")]
    pub value: CheckValue,
}

/// What a check query gave on the committed database, as data: `report::lang` words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckValue {
    /// The first column of its first row, as SQL writes it (`0`, `NULL`, `'many'`, `1.5`).
    Read(String),
    /// A blob of `bytes` bytes.
    Blob { bytes: usize },
    /// The query failed.
    Failed(super::SqlFailure),
    /// `check.effects_per_event` gave `got` for event `event_id`, which is not a count (a
    /// non-negative integer): the event's effects are unknown.
    NotACount {
        event_id: String,
        got: Box<CheckValue>,
    },
}

impl CheckValue {
    /// The value's fixed English text, which the JSON reports carry (see
    /// [`InvariantResult::value`]).
    pub fn english(&self) -> String {
        match self {
            CheckValue::Read(v) => v.clone(),
            CheckValue::Blob { bytes } => format!("a blob of {bytes} bytes"),
            CheckValue::Failed(f) => f.english(),
            CheckValue::NotACount { event_id, got } => {
                format!("{} for {event_id}, not a count", got.english())
            }
        }
    }
}

impl Serialize for CheckValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.english())
    }
}

/// One committed `payload_alert` row: the same `event_id` arrived with another payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PayloadAlertRow {
    pub event_id: String,
    /// The payload the inbox row holds (what was processed).
    pub stored_payload: String,
    /// The payload of the copy that was refused.
    pub received_payload: String,
    /// Virtual time of the alert.
    pub detected_at: Tick,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Engine, RefusalReason, SqlFailure, SqlRefusal};

    #[test]
    fn a_check_value_is_serialized_as_the_english_text_the_json_always_carried() {
        let failed = CheckValue::Failed(SqlFailure::of(SqlRefusal::of(RefusalReason::Engine {
            engine: Engine::Sqlite,
            message: "malformed JSON".into(),
            sqlstate: None,
            quoted: false,
        })));
        let not_a_count = CheckValue::NotACount {
            event_id: "e-1".into(),
            got: Box::new(CheckValue::Read("'many'".into())),
        };
        let as_json = |value: CheckValue| {
            let r = InvariantResult {
                sql: "SELECT 1".into(),
                holds: false,
                value,
            };
            serde_json::to_value(r).unwrap()["value"].clone()
        };
        assert_eq!(as_json(failed), "malformed JSON");
        assert_eq!(as_json(not_a_count), "'many' for e-1, not a count");
        assert_eq!(as_json(CheckValue::Blob { bytes: 3 }), "a blob of 3 bytes");
    }
}
