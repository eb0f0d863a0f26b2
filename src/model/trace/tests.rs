//! One value of every kind, and the tests that hold the renderers and the encoding to them.

use super::*;
use std::collections::BTreeSet;

/// One value of every variant (and of every sub-case a renderer tells apart), for the
/// tests that hold every renderer and the encoding to all of them.
pub(crate) fn samples() -> Vec<TraceKind> {
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
            message: "CHECK constraint failed: qty >= 0".into(),
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

/// The variant's position in the declaration. The match has no wildcard, so a new
/// variant does not compile until it is numbered here, and then the test below fails
/// until [`samples`] has one.
fn variant(kind: &TraceKind) -> usize {
    use TraceKind::*;
    match kind {
        Received => 0,
        NothingReady => 1,
        Db { .. } => 2,
        StepFailed { .. } => 3,
        InvalidPayload => 4,
        CommitTimeout { .. } => 5,
        AckLost => 6,
        Acked { .. } => 7,
        OutputProduced { .. } => 8,
        ExternalEffectSent => 9,
        RolledBack { .. } => 10,
        Alert { .. } => 11,
        Lookup { .. } => 12,
        Nacked => 13,
        Sleep { .. } => 14,
        Stall { .. } => 15,
        ConsumerRestart => 16,
        Crash { .. } => 17,
        CrashRollback => 18,
        StopRollback => 19,
        Delivered { .. } => 20,
        BrokerDuplicate => 21,
        Visible => 22,
        Requeued => 23,
        LeaseExpired => 24,
        LateReplay => 25,
        DeadLettered { .. } => 26,
        DeadLettersEmpty => 27,
        DeadLetterReplayed => 28,
        OutputsSettled { .. } => 29,
        OutputsDiscarded => 30,
        ConnectionLost { .. } => 31,
        Published { .. } => 32,
        PublishTimedOut { .. } => 33,
        TransferInserted { .. } => 34,
        TransferKnown => 35,
        TransferCommitted => 36,
        Busy { .. } => 37,
        ProducerRestart { .. } => 38,
        OutboxEmpty => 39,
        RelayPublished { .. } => 40,
        EmailSent { .. } => 41,
        MarkedSent { .. } => 42,
        RelayRestart => 43,
        InboxExpired { .. } => 44,
        CleanupBusy => 45,
        Stopped { .. } => 46,
        Healing { .. } => 47,
        SqlFailed { .. } => 48,
        HandlerFailed { .. } => 49,
        Retrying { .. } => 50,
        DeadLetterSent { .. } => 51,
        GaveUp { .. } => 52,
        Skipped { .. } => 53,
        Jumped { .. } => 54,
        LoopLimit { .. } => 55,
        Kept { .. } => 56,
        Caught { .. } => 57,
        Called { .. } => 58,
    }
}
const VARIANTS: usize = 59;

struct Bytes(Vec<u8>);

impl Encoder for Bytes {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

fn encoded(kind: &TraceKind) -> Vec<u8> {
    let mut b = Bytes(Vec::new());
    kind.encode(&mut b);
    b.0
}

#[test]
fn the_samples_cover_every_variant() {
    let seen: BTreeSet<usize> = samples().iter().map(variant).collect();
    assert_eq!(seen, (0..VARIANTS).collect());
}

#[test]
fn distinct_kinds_have_distinct_encodings_and_names() {
    let samples = samples();
    let mut seen = BTreeSet::new();
    for kind in &samples {
        assert!(seen.insert(encoded(kind)), "{kind:?} encodes as another");
    }
    // One name per variant, and no two variants share one.
    let names: BTreeSet<&str> = samples.iter().map(TraceKind::name).collect();
    assert_eq!(names.len(), VARIANTS);
}

#[test]
fn an_encoding_is_not_a_prefix_of_another_kinds() {
    // The entry's fields follow each other with no separator, so an encoding that
    // were a prefix of another could make two traces hash alike.
    let all: Vec<Vec<u8>> = samples().iter().map(encoded).collect();
    for (i, a) in all.iter().enumerate() {
        for (j, b) in all.iter().enumerate() {
            assert!(
                i == j || !b.starts_with(a),
                "{:?} / {:?}",
                samples()[i],
                samples()[j]
            );
        }
    }
}

#[test]
fn every_kind_has_an_action_and_an_english_outcome() {
    for kind in samples() {
        assert!(!kind.action().is_empty(), "{kind:?}");
        assert!(!kind.to_string().is_empty(), "{kind:?}");
    }
}

#[test]
fn an_occurrence_is_encoded_only_past_the_first() {
    // The first occurrence encodes as a step that appears once always did (every golden
    // hash of a protocol without repeats holds); the second is told apart.
    let db = |nth| TraceKind::Db {
        step: Step::Commit,
        nth,
        outcome: DbOutcome::Committed,
    };
    let mut plain = Bytes(Vec::new());
    plain.str("db");
    plain.str("commit");
    assert!(encoded(&db(1)).starts_with(&plain.0));
    assert_ne!(encoded(&db(1)), encoded(&db(2)));
    let mut second = Bytes(Vec::new());
    second.str("db");
    second.str("commit#2");
    assert!(encoded(&db(2)).starts_with(&second.0));
    let failed = |nth| TraceKind::StepFailed {
        step: Step::Commit,
        nth,
    };
    assert_ne!(encoded(&failed(1)), encoded(&failed(2)));
}
