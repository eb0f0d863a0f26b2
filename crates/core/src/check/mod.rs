//! The checker: at the end of a run it reads the committed database, as the business would,
//! and says what happened to every event.
//!
//! Effects are counted from the ledger, never from the consumer's own account of what it
//! did: 0 effects is a lost event, 1 is once, more is duplicated. It also checks
//! conservation (balances sum to the opening total; each event's debit and credit are
//! both there or neither), counts external effects separately (they are outside the
//! database's guarantee), and checks liveness (every event acked when the run ended, or why
//! not).
//!
//! Payload alerts (the same `event_id` with another payload, refused by the inbox) are read
//! from their committed table and reported on their own, per event, with both payloads:
//! never counted as duplicates discarded, never dropped. A copy with another payload that
//! was applied (no inbox) shows as a duplicated effect whose amounts differ.

use crate::broker::{Message, MessageState};
use crate::fault::CrashRecord;
use crate::model::{
    Account, BoundaryPoint, CommittedState, Effect, Event, EventIndex, EventType, ExternalEffect,
    GaveUpRecord, Guarantee, PayloadAlertRow, Protocol, Scope, Step, Tick,
};
use crate::scenario::Expect;
use crate::sim::StopReason;
use serde::Serialize;

mod anomaly;
mod boundaries;
mod expectations;
mod expected;
pub mod failure;
mod judgement;
mod outcome;
mod verdict;

pub use anomaly::{anomalies, Anomaly};
use boundaries::*;
pub use expectations::{failed_expectations, pinned_expect, push_mismatch};
pub use expected::{Counted, ExpectationFailure, Explored, LivenessFailure, Value};
pub use failure::{liveness_failure, FailureKind, FailureSignature};
pub use judgement::*;
pub use outcome::{check, Observed};
pub use verdict::*;

#[cfg(test)]
mod tests;
