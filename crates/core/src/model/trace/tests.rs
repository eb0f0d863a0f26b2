//! The tests that hold the encoding and the English outcomes to every trace kind
//! ([`super::samples`]).

use super::samples::samples;
use super::*;
use std::collections::BTreeSet;

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
