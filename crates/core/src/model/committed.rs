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
    /// What it gave, as text (`0`, `NULL`, or SQLite's error).
    pub value: String,
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
