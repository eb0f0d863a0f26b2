//! What can happen in a run, as data: one [`TraceKind`] variant per kind of trace entry,
//! carrying the values that entry is about (the database's answer, the ticks of a stall,
//! the consumer a delivery went to), never a sentence.
//!
//! Everything that tells a trace in words renders it from these variants: the trace line
//! (`Display`, in English), the Spanish line, `explain`'s narration and the diagrams. Nothing
//! reads words back. The trace hash is taken over [`TraceKind::encode`], a canonical byte
//! encoding of the variant and its data, so rewording a sentence changes no hash.

use super::{
    AckOutcome, Boundary, CommitTimeoutStrategy, ConsumerId, CrashCause, DbOutcome, EventIndex,
    GiveUp, Step, Tick,
};

mod encode;
mod english;
/// Test code (under `tests/`, as the tidy rules read it), compiled for other crates' tests
/// too.
#[cfg(any(test, feature = "test-support"))]
#[path = "tests/samples.rs"]
pub mod samples;
#[cfg(test)]
mod tests;

pub use encode::Encoder;

/// What one trace entry says happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceKind {
    // A consumer.
    /// `receive` got a delivery.
    Received,
    /// `receive` found nothing ready; the consumer waits.
    NothingReady,
    /// A step the store answered (`begin`, `insert_inbox`, `commit`, …); `nth` is its
    /// occurrence in the protocol (1 unless the protocol repeats the step).
    Db {
        step: Step,
        nth: u8,
        outcome: DbOutcome,
    },
    /// The fault plan made `step` (its `nth` occurrence) fail before it did anything.
    StepFailed { step: Step, nth: u8 },
    /// `apply_effect` refused a payload the scenario declares invalid.
    InvalidPayload,
    /// The `COMMIT` timed out (the plan's `faults.commit_timeout[fault]`): it did or did not
    /// commit, the consumer cannot tell, and follows `strategy`.
    CommitTimeout {
        /// Which occurrence of `commit` timed out (`commit#2` in a protocol with two).
        nth: u8,
        fault: usize,
        committed: bool,
        strategy: CommitTimeoutStrategy,
    },
    /// The ack was lost on the way: the consumer believes it acked.
    AckLost,
    /// The broker's answer to an ack; `offsets` when the broker is a log (an ack counts
    /// towards the next offset commit).
    Acked { outcome: AckOutcome, offsets: bool },
    /// `produce_output`: staged in the broker transaction, or published at once.
    OutputProduced { staged: bool },
    /// `external_effect`: sent outside the database.
    ExternalEffectSent,
    /// A protocol's `{"external": service}` step: the service was called, outside the
    /// database.
    Called { service: &'static str },
    /// The clean-up `ROLLBACK` after a duplicate or a failure.
    RolledBack { outcome: DbOutcome },
    /// The payload alert, committed on its own.
    Alert { outcome: DbOutcome },
    /// After a commit timeout, the inbox looked up for the event.
    Lookup { outcome: DbOutcome },
    /// The delivery rejected, for the broker to redeliver.
    Nacked,
    /// A `TransferCompleted` received: the consumer sleeps `ticks` holding it.
    Sleep { ticks: Tick },
    /// The plan stalls the consumer at `boundary` for `ticks`.
    Stall { boundary: Boundary, ticks: Tick },
    /// The consumer is back after a crash.
    ConsumerRestart,

    // Any process.
    /// The process crashed at `boundary` (the entry names the point).
    Crash {
        boundary: Boundary,
        cause: CrashCause,
    },
    /// SQLite rolled back the transaction the crashed process held open.
    CrashRollback,
    /// The run stopped with this process's transaction open: rolled back.
    StopRollback,

    // The broker.
    /// A delivery handed to `consumer`.
    Delivered { consumer: ConsumerId },
    /// The broker will deliver the message again of its own accord.
    BrokerDuplicate,
    /// A delayed message became visible.
    Visible,
    /// A released message is ready for redelivery.
    Requeued,
    /// A lease expired with the message unacked.
    LeaseExpired,
    /// An acked message came back at the end of the replay window.
    LateReplay,
    /// The message went to the dead-letter queue after `deliveries` deliveries; `parked`
    /// when the queue is replayed later.
    DeadLettered { deliveries: u32, parked: bool },
    /// The dead-letter queue was replayed and was empty.
    DeadLettersEmpty,
    /// The message came back from the dead-letter queue.
    DeadLetterReplayed,
    /// An ack settled the consumer's broker transaction: committed, or aborted.
    OutputsSettled { committed: bool },
    /// A crash aborted the consumer's broker transaction with its staged outputs.
    OutputsDiscarded,
    /// The broker lost `consumer`'s connection; with a log, the group rebalances.
    ConnectionLost {
        consumer: ConsumerId,
        rebalance: bool,
    },

    // The producer.
    /// `event` was published, as `how` says; `confirmation` says whether the producer
    /// process heard back (a `direct` publication has no process to hear).
    Published {
        event: EventIndex,
        how: Publication,
        confirmation: Confirmation,
    },
    /// A `direct` publication of intent `intent` got no confirmation: published again.
    PublishTimedOut { intent: EventIndex },
    /// `insert_transfer`: the transfer (and its outbox row) written, uncommitted.
    TransferInserted { outbox: bool },
    /// `insert_transfer`: an earlier attempt committed this transfer already.
    TransferKnown,
    /// `commit_transfer` committed.
    TransferCommitted,
    /// A producer's or relay's `step` found the write lock held.
    Busy { step: Step },
    /// The producer is back after a crash; `retries` when the client retries.
    ProducerRestart { retries: bool },

    // The relays.
    /// The outbox has no unsent row.
    OutboxEmpty,
    /// The outbox relay published outbox row `row` as `event`.
    RelayPublished {
        row: i64,
        event: EventIndex,
        how: Publication,
    },
    /// The email relay sent row `row` to the mail service.
    EmailSent { row: i64, idempotency_key: bool },
    /// Row `row` marked sent (`step` is the relay's mark step).
    MarkedSent { step: Step, row: i64 },
    /// A relay is back after a crash.
    RelayRestart,

    // The inbox retention job.
    /// `rows` inbox rows processed before `before_tick` deleted; `events` are theirs.
    InboxExpired {
        rows: u32,
        before_tick: i64,
        ttl_ticks: Tick,
        events: Vec<EventIndex>,
    },
    /// The job found the write lock held.
    CleanupBusy,

    // The simulator.
    /// The run stopped at `limit` (of the healing phase, if `healing`).
    Stopped { limit: Limit, healing: bool },
    /// The faulty phase ended at `after` with work left; the faults are off from here for
    /// up to `steps` more steps and `ticks` more ticks.
    Healing {
        after: Limit,
        steps: u64,
        ticks: Tick,
    },

    // A consumer again (declared last, so that earlier variants keep their numbers).
    /// SQL step `step` (its `nth` occurrence) failed for `failure` (the engine's refusal,
    /// such as a constraint, or a rule of the tool's, such as the statement budget): the
    /// step failed, the consumer rolls back and does not ack.
    SqlFailed {
        step: Step,
        nth: u8,
        failure: super::SqlFailure,
    },
    /// A Rust handler returned `error` for the delivery: the framework rolls back what it
    /// left open and, unless it acked, rejects the delivery.
    HandlerFailed { error: String },
    /// The error policy retries in process: attempt `attempt` of the protocol's steps
    /// starts after `backoff_ticks`, on the same delivery.
    Retrying { attempt: u8, backoff_ticks: Tick },
    /// The consumer moved the delivery's message to the dead-letter queue (the error
    /// policy's `then: dead_letter`); the broker answered as to an ack.
    DeadLetterSent { outcome: AckOutcome },
    /// The error policy gave up on the delivery after step `step` (its `nth` occurrence)
    /// failed: it redelivers, acks or dead-letters, as `then` says.
    GaveUp { then: GiveUp, step: Step, nth: u8 },
    /// SQL step `step` (its `nth` occurrence) did not run: its `when` did not hold.
    Skipped { step: Step, nth: u8 },
    /// SQL step `step` (its `nth` occurrence) kept the first row of its last statement as
    /// `into`: its columns as `column = value`, or `None` when it returned no row.
    Kept {
        step: Step,
        nth: u8,
        into: &'static str,
        row: Option<String>,
    },
    /// After step `from`, its `goto` sent the consumer back to the earlier step `to`, in
    /// pass `pass` over the protocol's steps.
    Jumped { from: Step, to: Step, pass: u8 },
    /// Step `step` (its `nth` occurrence) would have jumped back past the `passes` a
    /// delivery may make: the step fails.
    LoopLimit { step: Step, nth: u8, passes: u8 },
    /// Step `step` (its `nth` occurrence) failed and its own error handler caught it: the
    /// consumer rolled back (`rollback`) or not, and goes on at the later step `to`.
    Caught {
        step: Step,
        nth: u8,
        to: Step,
        rollback: bool,
    },
}

/// What a publication was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Publication {
    /// The event's first publication.
    First,
    /// Another copy, same `event_id` and payload.
    Again,
    /// Another copy with the same `event_id` and another amount (a producer bug).
    Altered {
        amount_minor: i64,
        original_minor: i64,
    },
    /// A new `event_id` for intent `intent`'s transfer (a per-attempt identity).
    Minted { intent: EventIndex },
}

/// Whether the publisher heard the broker's confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirmation {
    /// A `direct` publication: no process waits for it.
    Direct,
    Confirmed,
    TimedOut,
}

/// A limit a run stops at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Steps(u64),
    Ticks(Tick),
    TraceEntries(usize),
    /// SQLite virtual-machine steps of the scenario's statements, over the run.
    SqlVmSteps(u64),
}

/// A step as crash points name its `nth` occurrence: `commit`, `commit#2`.
pub fn occurrence_name(step: Step, nth: u8) -> String {
    match nth {
        0 | 1 => step.name().to_string(),
        n => format!("{}#{n}", step.name()),
    }
}

/// Events as the trace names them, in a list: `e1, e4`.
pub fn event_names(events: &[EventIndex]) -> String {
    let names: Vec<String> = events.iter().map(|e| format!("e{e}")).collect();
    names.join(", ")
}

impl TraceKind {
    /// Which occurrence of its step the entry is about: more than 1 only for a step the
    /// protocol repeats (the trace line says `commit#2`, as its crash points do).
    pub fn occurrence(&self) -> u8 {
        match self {
            TraceKind::Db { nth, .. }
            | TraceKind::StepFailed { nth, .. }
            | TraceKind::SqlFailed { nth, .. }
            | TraceKind::Skipped { nth, .. }
            | TraceKind::Kept { nth, .. }
            | TraceKind::Caught { nth, .. }
            | TraceKind::LoopLimit { nth, .. }
            | TraceKind::CommitTimeout { nth, .. } => *nth,
            _ => 1,
        }
    }

    /// The verb of the trace line: the step's name for a step, else what happened.
    pub fn action(&self) -> &'static str {
        use TraceKind::*;
        match self {
            Received | NothingReady => "receive",
            Db { step, .. }
            | StepFailed { step, .. }
            | SqlFailed { step, .. }
            | Skipped { step, .. }
            | Kept { step, .. }
            | Caught { step, .. }
            | LoopLimit { step, .. }
            | Busy { step }
            | MarkedSent { step, .. } => step.name(),
            InvalidPayload => "apply_effect",
            CommitTimeout { .. } => "commit",
            AckLost | Acked { .. } => "ack",
            OutputProduced { .. } => "produce_output",
            ExternalEffectSent => "external_effect",
            Called { service } => service,
            RolledBack { .. } => "rollback",
            HandlerFailed { .. } => "handler",
            Retrying { .. } => "retry",
            DeadLetterSent { .. } => "dead_letter",
            GaveUp { .. } => "on_error",
            Jumped { .. } => "goto",
            Alert { .. } => "alert",
            Lookup { .. } => "lookup",
            Nacked => "nack",
            Sleep { .. } => "sleep",
            Stall { .. } => "stall",
            ConsumerRestart | ProducerRestart { .. } | RelayRestart => "restart",
            Crash { .. } | CrashRollback => "crash",
            StopRollback | Stopped { .. } => "stop",
            Delivered { .. } => "deliver",
            BrokerDuplicate => "duplicate",
            Visible => "visible",
            Requeued => "requeue",
            LeaseExpired => "lease expired",
            LateReplay => "late replay",
            DeadLettered { .. } => "dead-letter",
            DeadLettersEmpty | DeadLetterReplayed => "dlq replay",
            OutputsSettled { .. } => "transaction",
            OutputsDiscarded => "abort",
            ConnectionLost { .. } => "connection lost",
            Published { .. } => "publish",
            PublishTimedOut { .. } => "timeout",
            TransferInserted { .. } | TransferKnown => "insert_transfer",
            TransferCommitted => "commit_transfer",
            OutboxEmpty => "poll",
            RelayPublished { .. } => "relay_publish",
            EmailSent { .. } => "send_email",
            InboxExpired { .. } | CleanupBusy => "delete expired",
            Healing { .. } => "heal",
        }
    }

    /// The database's answer, for a consumer's entry that carries one (a step, the clean-up
    /// rollback, the alert, the lookup).
    pub fn db_answer(&self) -> Option<DbOutcome> {
        match self {
            TraceKind::Db { outcome, .. }
            | TraceKind::RolledBack { outcome }
            | TraceKind::Alert { outcome }
            | TraceKind::Lookup { outcome } => Some(*outcome),
            _ => None,
        }
    }

    /// Whether the entry is a write that found the lock held (a retry follows).
    pub fn is_busy(&self) -> bool {
        matches!(self, TraceKind::Busy { .. } | TraceKind::CleanupBusy)
            || matches!(
                self.db_answer(),
                Some(DbOutcome::Busy { .. } | DbOutcome::Blocked { .. })
            )
    }
}

impl TraceKind {
    /// The variant's stable name: the first thing its encoding says.
    pub fn name(&self) -> &'static str {
        use TraceKind::*;
        match self {
            Received => "received",
            NothingReady => "nothing_ready",
            Db { .. } => "db",
            StepFailed { .. } => "step_failed",
            SqlFailed { .. } => "sql_failed",
            HandlerFailed { .. } => "handler_failed",
            Retrying { .. } => "retrying",
            DeadLetterSent { .. } => "dead_letter_sent",
            GaveUp { .. } => "gave_up",
            Skipped { .. } => "skipped",
            Kept { .. } => "kept",
            Caught { .. } => "caught",
            Jumped { .. } => "jumped",
            LoopLimit { .. } => "loop_limit",
            InvalidPayload => "invalid_payload",
            CommitTimeout { .. } => "commit_timeout",
            AckLost => "ack_lost",
            Acked { .. } => "acked",
            OutputProduced { .. } => "output_produced",
            ExternalEffectSent => "external_effect_sent",
            Called { .. } => "called",
            RolledBack { .. } => "rolled_back",
            Alert { .. } => "alert",
            Lookup { .. } => "lookup",
            Nacked => "nacked",
            Sleep { .. } => "sleep",
            Stall { .. } => "stall",
            ConsumerRestart => "consumer_restart",
            Crash { .. } => "crash",
            CrashRollback => "crash_rollback",
            StopRollback => "stop_rollback",
            Delivered { .. } => "delivered",
            BrokerDuplicate => "broker_duplicate",
            Visible => "visible",
            Requeued => "requeued",
            LeaseExpired => "lease_expired",
            LateReplay => "late_replay",
            DeadLettered { .. } => "dead_lettered",
            DeadLettersEmpty => "dead_letters_empty",
            DeadLetterReplayed => "dead_letter_replayed",
            OutputsSettled { .. } => "outputs_settled",
            OutputsDiscarded => "outputs_discarded",
            ConnectionLost { .. } => "connection_lost",
            Published { .. } => "published",
            PublishTimedOut { .. } => "publish_timed_out",
            TransferInserted { .. } => "transfer_inserted",
            TransferKnown => "transfer_known",
            TransferCommitted => "transfer_committed",
            Busy { .. } => "busy",
            ProducerRestart { .. } => "producer_restart",
            OutboxEmpty => "outbox_empty",
            RelayPublished { .. } => "relay_published",
            EmailSent { .. } => "email_sent",
            MarkedSent { .. } => "marked_sent",
            RelayRestart => "relay_restart",
            InboxExpired { .. } => "inbox_expired",
            CleanupBusy => "cleanup_busy",
            Stopped { .. } => "stopped",
            Healing { .. } => "healing",
        }
    }
}
