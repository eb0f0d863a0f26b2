//! The business events the producer publishes: `TransferCreated`, a move of money from
//! one account to another, identified by a stable `event_id`.

use serde::{Deserialize, Serialize};

/// The kind of an event, stored in the inbox's `event_type` column.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum EventType {
    /// Moves the money and records the transfer as created.
    TransferCreated,
    /// Marks a created transfer completed; the projection rejects it for a transfer it does
    /// not know, which is what makes this workload sensitive to order.
    TransferCompleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::TransferCreated => "TransferCreated",
            EventType::TransferCompleted => "TransferCompleted",
        }
    }
}

/// An account of the balance projection, with the balance it starts the run with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Account {
    pub name: String,
    pub initial_balance_minor: i64,
}

/// One published fact: "transfer `transfer_id` moved `amount_minor` from `source` to
/// `target`". The `event_id` is a UUID derived from the run's seed, so it is the same for
/// every run of the same scenario and seed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Event {
    pub index: usize,
    pub event_id: String,
    pub event_type: EventType,
    pub transfer_id: String,
    pub source: String,
    pub target: String,
    pub amount_minor: i64,
}

impl Event {
    /// The event's payload as the producer serialises it: every field but the identity, in
    /// a fixed order, so that equal payloads are equal text. The inbox stores it (and its
    /// fingerprint) so that a copy with the same `event_id` and another payload is caught.
    /// The bytes its strings hold on the heap.
    pub fn heap_bytes(&self) -> u64 {
        [
            &self.event_id,
            &self.transfer_id,
            &self.source,
            &self.target,
        ]
        .iter()
        .map(|s| super::heap(s.capacity(), 1))
        .sum()
    }

    pub fn payload(&self) -> String {
        format!(
            "{{\"event_type\":\"{}\",\"transfer_id\":\"{}\",\"source\":\"{}\",\"target\":\"{}\",\"amount_minor\":{}}}",
            self.event_type.as_str(),
            self.transfer_id,
            self.source,
            self.target,
            self.amount_minor
        )
    }

    /// The event as a buggy producer republishes it the `k`-th time (k ≥ 1): the same
    /// `event_id` with another payload, its amount multiplied by k + 1. Each altered copy
    /// of one event differs from the original and from every other altered copy.
    pub fn altered(&self, k: u32) -> Event {
        assert!(k >= 1, "copy 0 of an alteration is the original");
        Event {
            amount_minor: self.amount_minor * (i64::from(k) + 1),
            ..self.clone()
        }
    }
}
