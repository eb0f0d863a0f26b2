//! The business events the producer publishes: `TransferCreated`, a move of money from
//! one account to another, identified by a stable `event_id`.

use serde::Serialize;

/// The kind of an event, stored in the inbox's `event_type` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Account {
    pub name: String,
    pub initial_balance_minor: i64,
}

/// One published fact: "transfer `transfer_id` moved `amount_minor` from `source` to
/// `target`". The `event_id` is a UUID derived from the run's seed, so it is the same for
/// every run of the same scenario and seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    pub index: usize,
    pub event_id: String,
    pub event_type: EventType,
    pub transfer_id: String,
    pub source: String,
    pub target: String,
    pub amount_minor: i64,
}
