//! One value of every trace kind (and of every sub-case a renderer tells apart): what the
//! tests hold every renderer and the encoding to, here and in the crates that word a
//! trace (`test-support`).

use super::*;

/// One value of every variant (and of every sub-case a renderer tells apart), for the
/// tests that hold every renderer and the encoding to all of them.
pub fn samples() -> Vec<TraceKind> {
    use TraceKind::*;
    let commit = Boundary::after(Step::Commit);
    let db = |step, outcome| Db {
        step,
        nth: 1,
        outcome,
    };
    let mut out = vec![
        Received,
        NothingReady,
        StepFailed {
            step: Step::Begin,
            nth: 1,
        },
        InvalidPayload,
        SqlFailed {
            step: Step::Sql(crate::model::sql::intern("reserve").expect("room")),
            nth: 1,
            failure: crate::model::SqlFailure::of(crate::model::SqlRefusal::of(
                crate::model::RefusalReason::Engine {
                    engine: crate::model::Engine::Sqlite,
                    message: "CHECK constraint failed: qty >= 0".into(),
                    sqlstate: None,
                    quoted: false,
                },
            )),
        },
        HandlerFailed {
            error: "not today".into(),
        },
        Skipped {
            step: Step::Sql(crate::model::sql::intern("create").expect("room")),
            nth: 2,
        },
        Caught {
            step: Step::Sql(crate::model::sql::intern("load").expect("room")),
            nth: 1,
            to: Step::Ack,
            rollback: true,
        },
        Caught {
            step: Step::Sql(crate::model::sql::intern("load").expect("room")),
            nth: 2,
            to: Step::Commit,
            rollback: false,
        },
        Kept {
            step: Step::Sql(crate::model::sql::intern("load").expect("room")),
            nth: 1,
            into: crate::model::sql::intern("state").expect("room"),
            row: Some("found = 1, delivered_at = NULL".into()),
        },
        Kept {
            step: Step::Sql(crate::model::sql::intern("load").expect("room")),
            nth: 2,
            into: crate::model::sql::intern("state").expect("room"),
            row: None,
        },
        Jumped {
            from: Step::Sql(crate::model::sql::intern("create").expect("room")),
            to: Step::Sql(crate::model::sql::intern("load").expect("room")),
            pass: 2,
        },
        LoopLimit {
            step: Step::Sql(crate::model::sql::intern("create").expect("room")),
            nth: 127,
            passes: 127,
        },
        Retrying {
            attempt: 2,
            backoff_ticks: 0,
        },
        Retrying {
            attempt: 3,
            backoff_ticks: 10,
        },
        DeadLetterSent {
            outcome: AckOutcome::Accepted,
        },
        DeadLetterSent {
            outcome: AckOutcome::Stale,
        },
        GaveUp {
            then: GiveUp::Redeliver,
            step: Step::ApplyEffect,
            nth: 1,
        },
        GaveUp {
            then: GiveUp::Ack,
            step: Step::ApplyEffect,
            nth: 2,
        },
        GaveUp {
            then: GiveUp::DeadLetter,
            step: Step::Commit,
            nth: 3,
        },
        AckLost,
        OutputProduced { staged: true },
        OutputProduced { staged: false },
        ExternalEffectSent,
        Called { service: "topup" },
        Nacked,
        Sleep { ticks: 5 },
        Stall {
            boundary: commit,
            ticks: 7,
        },
        ConsumerRestart,
        Crash {
            boundary: commit,
            cause: CrashCause::Planned(0),
        },
        Crash {
            boundary: commit,
            cause: CrashCause::Random,
        },
        CrashRollback,
        StopRollback,
        Delivered { consumer: 1 },
        BrokerDuplicate,
        Visible,
        Requeued,
        LeaseExpired,
        LateReplay,
        DeadLettered {
            deliveries: 3,
            parked: true,
        },
        DeadLettered {
            deliveries: 3,
            parked: false,
        },
        DeadLettersEmpty,
        DeadLetterReplayed,
        OutputsSettled { committed: true },
        OutputsSettled { committed: false },
        OutputsDiscarded,
        ConnectionLost {
            consumer: 0,
            rebalance: true,
        },
        ConnectionLost {
            consumer: 0,
            rebalance: false,
        },
        PublishTimedOut { intent: 2 },
        TransferInserted { outbox: true },
        TransferInserted { outbox: false },
        TransferKnown,
        TransferCommitted,
        Busy {
            step: Step::InsertTransfer,
        },
        Busy {
            step: Step::CommitTransfer,
        },
        Busy {
            step: Step::MarkSent,
        },
        ProducerRestart { retries: true },
        ProducerRestart { retries: false },
        OutboxEmpty,
        EmailSent {
            row: 4,
            idempotency_key: true,
        },
        EmailSent {
            row: 4,
            idempotency_key: false,
        },
        MarkedSent {
            step: Step::MarkEmailSent,
            row: 4,
        },
        RelayRestart,
        InboxExpired {
            rows: 2,
            before_tick: -3,
            ttl_ticks: 10,
            events: vec![0, 1],
        },
        CleanupBusy,
        Healing {
            after: Limit::Steps(100),
            steps: 100,
            ticks: 1000,
        },
    ];
    for strategy in [
        CommitTimeoutStrategy::Retry,
        CommitTimeoutStrategy::Abandon,
        CommitTimeoutStrategy::Lookup,
    ] {
        for committed in [true, false] {
            for nth in [1, 2] {
                out.push(CommitTimeout {
                    nth,
                    fault: 1,
                    committed,
                    strategy,
                });
            }
        }
    }
    for outcome in [
        AckOutcome::Accepted,
        AckOutcome::AlreadyAcked,
        AckOutcome::Stale,
        AckOutcome::StaleAccepted,
    ] {
        for offsets in [true, false] {
            out.push(Acked { outcome, offsets });
        }
    }
    for outcome in DB_OUTCOMES {
        out.push(db(Step::ApplyEffect, outcome));
        out.push(RolledBack { outcome });
        out.push(Alert { outcome });
        out.push(Lookup { outcome });
    }
    for how in [
        Publication::First,
        Publication::Again,
        Publication::Altered {
            amount_minor: 5,
            original_minor: 4,
        },
        Publication::Minted { intent: 0 },
    ] {
        for confirmation in [
            Confirmation::Direct,
            Confirmation::Confirmed,
            Confirmation::TimedOut,
        ] {
            out.push(Published {
                event: 3,
                how,
                confirmation,
            });
        }
        out.push(RelayPublished {
            row: 1,
            event: 3,
            how,
        });
    }
    for limit in [
        Limit::Steps(9),
        Limit::Ticks(9),
        Limit::TraceEntries(9),
        Limit::SqlVmSteps(9),
    ] {
        for healing in [true, false] {
            out.push(Stopped { limit, healing });
        }
    }
    out
}

/// Every database answer.
const DB_OUTCOMES: [DbOutcome; 26] = [
    DbOutcome::CommitRefused,
    DbOutcome::Deadlock,
    DbOutcome::SerializationFailure,
    DbOutcome::Begun,
    DbOutcome::Found,
    DbOutcome::NotFound,
    DbOutcome::Inserted,
    DbOutcome::Duplicate,
    DbOutcome::Applied,
    DbOutcome::CreditFailed,
    DbOutcome::Committed,
    DbOutcome::RolledBack,
    DbOutcome::Busy { done: 1 },
    DbOutcome::Blocked { done: 1 },
    DbOutcome::StaleSnapshot,
    DbOutcome::BalancesRead {
        source: 1,
        target: 2,
    },
    DbOutcome::AlreadyCompleted,
    DbOutcome::Rejected,
    DbOutcome::BusinessDuplicate,
    DbOutcome::EmailQueued,
    DbOutcome::PayloadMismatch,
    DbOutcome::AlertRecorded,
    DbOutcome::AlertExists,
    DbOutcome::CommitTimeout,
    DbOutcome::Buffered,
    DbOutcome::AppliedWithPending,
];
