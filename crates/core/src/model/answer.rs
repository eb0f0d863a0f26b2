//! The answers an actor receives, as model types: the delivery a consumer holds, what the
//! broker said of its ack, what the database said of a step. They live here, not with the
//! broker and the store that give them, so that the actors (`consumer`, `producer`,
//! `relay`) import neither: whoever drives an actor turns broker and store calls into
//! these.

use super::{Boundary, BoundaryPoint, EventIndex};
use serde::Serialize;

/// The index of a message in publication order. A republished event is a new message.
pub type MessageId = usize;

/// What a consumer receives: the event, which publication of it, and the attempt number
/// (1 for the first delivery of this message).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub struct Delivery {
    pub message: MessageId,
    pub event: EventIndex,
    pub copy: u32,
    pub attempt: u32,
}

impl Delivery {
    /// The crash point at `boundary` of this delivery.
    pub fn point(&self, boundary: Boundary) -> BoundaryPoint {
        BoundaryPoint {
            boundary,
            event: self.event,
            copy: self.copy,
            delivery: self.attempt,
        }
    }
}

/// What became of an ack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    Accepted,
    /// The message was acked before; nothing changes.
    AlreadyAcked,
    /// The ack names an attempt after which the message was delivered again (or released
    /// to the dead-letter queue, or for redelivery); it was ignored.
    Stale,
    /// The ack names an earlier attempt, and the broker (`stale_ack: accept`) took it.
    StaleAccepted,
}

impl AckOutcome {
    /// The outcome's stable identifier, for the trace hash.
    pub fn name(self) -> &'static str {
        match self {
            AckOutcome::Accepted => "accepted",
            AckOutcome::AlreadyAcked => "already_acked",
            AckOutcome::Stale => "stale",
            AckOutcome::StaleAccepted => "stale_accepted",
        }
    }
}

/// What the database answered.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DbOutcome {
    Begun,
    /// `check_inbox` found the event: already processed.
    Found,
    NotFound,
    Inserted,
    /// The inbox `INSERT` hit the unique constraint: already processed.
    Duplicate,
    Applied,
    /// The debit ran, the credit failed (injected).
    CreditFailed,
    Committed,
    RolledBack,
    /// `SQLITE_BUSY`: another connection holds the write lock. Nothing of the statement
    /// happened; `done` earlier statements of the same step did. Wait and retry.
    Busy {
        done: u8,
    },
    /// `SQLITE_BUSY_SNAPSHOT`: a write in a transaction whose snapshot is older than
    /// another connection's commit. The transaction must be rolled back.
    StaleSnapshot,
    /// PostgreSQL: the statement waits for a lock another transaction of the run holds
    /// (as the server itself says). It is queued on the server and answers once that
    /// transaction ends; `done` earlier statements of the same step ran. The actor asks
    /// again at its next turn.
    Blocked {
        done: u8,
    },
    /// Read-modify-write, first turn: the balances the write will be computed from.
    BalancesRead {
        source: i64,
        target: i64,
    },
    /// A `TransferCompleted` for a transfer that is already completed: nothing to do.
    AlreadyCompleted,
    /// A `TransferCompleted` for a transfer the projection does not know: recorded in
    /// `rejected_event`, no effect.
    Rejected,
    /// The ledger's business key (`transfer_id`) already has this transfer: another event
    /// carried the same intent. Nothing of the effect happened.
    BusinessDuplicate,
    /// The email to send is in `email_outbox`, in the open transaction.
    EmailQueued,
    /// The inbox already holds this `event_id` with another payload (found by the inbox
    /// `INSERT`'s unique violation or by `check_inbox`): a producer's corruption, not a
    /// duplicate. Nothing was written.
    PayloadMismatch,
    /// The `payload_alert` row was written and committed.
    AlertRecorded,
    /// The alert's unique constraint failed: this received payload was alerted before.
    AlertExists,
    /// Not an answer of SQLite but of the network between it and the consumer: the
    /// `COMMIT` timed out, and the consumer cannot tell whether it happened. The world
    /// gives it when the fault plan says so, after committing or rolling back for real.
    CommitTimeout,
    /// A `TransferCompleted` for a transfer the projection does not know, with
    /// `store::OutOfOrder::Buffer`: kept in `pending_event`, no effect yet.
    Buffered,
    /// A `TransferCreated` applied, and with it the completion that waited in
    /// `pending_event` for it.
    AppliedWithPending,
    /// A SQL step's statements ran, and none said "already processed".
    Ran,
    /// A SQL step with `duplicate_if: row` returned a row: already processed.
    RowFound,
    /// A SQL step with `duplicate_if: no_change` changed no row: already processed.
    NoChange,
    /// A SQL step's `duplicate_if: {"when": …}` held on the results kept so far: already
    /// processed.
    ConditionHeld,
    /// SQLite refused the `COMMIT`: a deferred foreign key constraint of a scenario's own
    /// schema failed. The transaction is still open; like a stale snapshot, it must roll
    /// back, and the delivery fails.
    CommitRefused,
    /// PostgreSQL refused the `COMMIT` with a serialization failure (SQLSTATE 40001): a
    /// concurrent transaction's writes made what this one read stale. PostgreSQL rolled it
    /// back; the delivery fails and is redelivered.
    SerializationFailure,
    /// PostgreSQL cancelled the statement to break a deadlock (SQLSTATE 40P01): this
    /// transaction waited for a lock another one held while that one waited for this one's.
    /// PostgreSQL rolled it back; the delivery fails and is redelivered.
    Deadlock,
}

impl DbOutcome {
    /// The outcome's stable identifier (`inserted`, `busy`): what the trace hash encodes,
    /// so that rewording [`DbOutcome::describe`] changes no hash.
    pub fn name(self) -> &'static str {
        match self {
            DbOutcome::Begun => "begun",
            DbOutcome::Found => "found",
            DbOutcome::NotFound => "not_found",
            DbOutcome::Inserted => "inserted",
            DbOutcome::Duplicate => "duplicate",
            DbOutcome::Applied => "applied",
            DbOutcome::CreditFailed => "credit_failed",
            DbOutcome::Committed => "committed",
            DbOutcome::RolledBack => "rolled_back",
            DbOutcome::Busy { .. } => "busy",
            DbOutcome::Blocked { .. } => "blocked",
            DbOutcome::StaleSnapshot => "stale_snapshot",
            DbOutcome::BalancesRead { .. } => "balances_read",
            DbOutcome::AlreadyCompleted => "already_completed",
            DbOutcome::Rejected => "rejected",
            DbOutcome::BusinessDuplicate => "business_duplicate",
            DbOutcome::EmailQueued => "email_queued",
            DbOutcome::PayloadMismatch => "payload_mismatch",
            DbOutcome::AlertRecorded => "alert_recorded",
            DbOutcome::AlertExists => "alert_exists",
            DbOutcome::CommitTimeout => "commit_timeout",
            DbOutcome::Buffered => "buffered",
            DbOutcome::AppliedWithPending => "applied_with_pending",
            DbOutcome::Ran => "ran",
            DbOutcome::RowFound => "row_found",
            DbOutcome::NoChange => "no_change",
            DbOutcome::ConditionHeld => "condition_held",
            DbOutcome::CommitRefused => "commit_refused",
            DbOutcome::SerializationFailure => "serialization_failure",
            DbOutcome::Deadlock => "deadlock",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            DbOutcome::Begun => "BEGIN",
            DbOutcome::Found => "inbox row found: duplicate",
            DbOutcome::NotFound => "inbox row not found",
            DbOutcome::Inserted => "inbox row inserted",
            DbOutcome::Duplicate => "UNIQUE constraint failed: duplicate",
            DbOutcome::Applied => "debit and credit applied",
            DbOutcome::CreditFailed => "debit applied, credit failed (injected)",
            DbOutcome::Committed => "COMMIT",
            DbOutcome::RolledBack => "ROLLBACK",
            DbOutcome::Busy { .. } => "SQLITE_BUSY: another connection holds the write lock; wait",
            DbOutcome::Blocked { .. } => {
                "waits for a lock another transaction holds (PostgreSQL queues the statement)"
            }
            DbOutcome::AlreadyCompleted => "transfer already completed: nothing to do",
            DbOutcome::Rejected => {
                "rejected: completion of a transfer the projection does not know (yet)"
            }
            DbOutcome::BusinessDuplicate => {
                "UNIQUE constraint failed on the ledger's transfer_id: this transfer was \
                 already applied under another event_id"
            }
            DbOutcome::EmailQueued => "email queued in email_outbox (commits with the effect)",
            DbOutcome::Buffered => {
                "transfer not known yet: completion kept in pending_event until it is created"
            }
            DbOutcome::AppliedWithPending => {
                "debit and credit applied, and the completion that waited in pending_event"
            }
            DbOutcome::BalancesRead { .. } => {
                "balances read; the write, computed from them, comes next turn"
            }
            DbOutcome::StaleSnapshot => {
                "SQLITE_BUSY_SNAPSHOT: write on a stale snapshot; the transaction must roll back"
            }
            DbOutcome::PayloadMismatch => {
                "the inbox holds this event_id with another payload: producer corruption, \
                 not a duplicate"
            }
            DbOutcome::AlertRecorded => "payload alert recorded and committed",
            DbOutcome::AlertExists => {
                "UNIQUE constraint failed: this payload was alerted before; no second alert"
            }
            DbOutcome::CommitTimeout => "COMMIT timed out: the outcome is unknown",
            DbOutcome::Ran => "ran",
            DbOutcome::RowFound => "a row returned: duplicate",
            DbOutcome::NoChange => "no row changed: duplicate",
            DbOutcome::ConditionHeld => "its duplicate_if condition holds: duplicate",
            DbOutcome::CommitRefused => {
                "COMMIT refused: FOREIGN KEY constraint failed (a deferred one); the \
                 transaction is still open and must roll back"
            }
            DbOutcome::SerializationFailure => {
                "could not serialize access (SQLSTATE 40001); PostgreSQL rolled the transaction \
                 back"
            }
            DbOutcome::Deadlock => {
                "deadlock detected (SQLSTATE 40P01): PostgreSQL cancelled this statement and \
                 rolled its transaction back"
            }
        }
    }

    /// Whether the outcome says the event was processed before.
    pub fn is_duplicate(self) -> bool {
        matches!(
            self,
            DbOutcome::Found
                | DbOutcome::Duplicate
                | DbOutcome::BusinessDuplicate
                | DbOutcome::RowFound
                | DbOutcome::NoChange
                | DbOutcome::ConditionHeld
        )
    }
}
