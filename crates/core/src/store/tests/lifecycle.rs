//! Completions out of order, the lifecycle table, and inbox retention.

use super::*;

#[test]
fn a_completion_needs_its_transfer_and_is_rejected_without_it() {
    let created = event();
    let completed = Event {
        index: 1,
        event_id: "22222222-2222-4222-8222-222222222222".into(),
        event_type: EventType::TransferCompleted,
        ..event()
    };
    let mut s = store(true);
    assert_eq!(
        s.execute(apply(&completed, true), 1),
        DbOutcome::Rejected,
        "unknown transfer"
    );
    assert_eq!(s.execute(apply(&created, true), 2), DbOutcome::Applied);
    assert_eq!(s.execute(apply(&completed, true), 3), DbOutcome::Applied);
    assert_eq!(
        s.execute(apply(&completed, true), 4),
        DbOutcome::AlreadyCompleted
    );
    let c = s.committed_state();
    assert_eq!(c.ledger[&completed.event_id].completions, 1);
    assert_eq!(c.rejected[&completed.event_id], 1);
    assert_eq!(
        c.ledger_sums["acc_00001"], -10_000,
        "a completion moves no money"
    );
}

#[test]
fn a_buffered_completion_waits_and_is_applied_by_its_creations_transaction() {
    let created = event();
    let completed = completed_of(&created);
    let mut s = buffering_store();
    s.execute(StoreOp::Begin, 1);
    s.execute(StoreOp::InsertInbox { event: &completed }, 2);
    assert_eq!(s.execute(apply(&completed, true), 3), DbOutcome::Buffered);
    s.execute(StoreOp::Commit, 4);
    let c = s.committed_state();
    assert_eq!(
        c.pending[&completed.event_id], 1,
        "committed with its inbox row"
    );
    assert!(c.rejected.is_empty() && !c.ledger.contains_key(&completed.event_id));

    s.execute(StoreOp::Begin, 5);
    assert_eq!(
        s.execute(apply(&created, true), 6),
        DbOutcome::AppliedWithPending
    );
    // Rolled back: the pending row is still there, nothing applied.
    s.execute(StoreOp::Rollback, 7);
    assert_eq!(s.committed_state().pending[&completed.event_id], 1);

    s.execute(StoreOp::Begin, 8);
    assert_eq!(
        s.execute(apply(&created, true), 9),
        DbOutcome::AppliedWithPending
    );
    s.execute(StoreOp::Commit, 10);
    let c = s.committed_state();
    assert!(
        c.pending.is_empty(),
        "the pending row went with the creation"
    );
    assert_eq!(c.ledger[&completed.event_id].completions, 1);
    assert_eq!(c.ledger[&created.event_id].debits, 1);
    assert_eq!(
        s.execute(apply(&completed, true), 11),
        DbOutcome::AlreadyCompleted,
        "a late copy of the completion finds the transfer completed"
    );
}

#[test]
fn a_creation_with_nothing_pending_is_a_plain_apply_and_reject_mode_never_buffers() {
    let created = event();
    let completed = completed_of(&created);
    let mut s = buffering_store();
    assert_eq!(s.execute(apply(&created, true), 1), DbOutcome::Applied);
    assert_eq!(s.execute(apply(&completed, true), 2), DbOutcome::Applied);
    let mut r = store(true);
    assert_eq!(r.execute(apply(&completed, true), 1), DbOutcome::Rejected);
    assert!(r.committed_state().pending.is_empty());
}

#[test]
fn without_the_inbox_a_completion_buffered_twice_is_applied_twice() {
    let created = event();
    let completed = completed_of(&created);
    let mut s = buffering_store();
    assert_eq!(s.execute(apply(&completed, true), 1), DbOutcome::Buffered);
    assert_eq!(s.execute(apply(&completed, true), 2), DbOutcome::Buffered);
    assert_eq!(
        s.execute(apply(&created, true), 3),
        DbOutcome::AppliedWithPending
    );
    assert_eq!(
        s.committed_state().ledger[&completed.event_id].completions,
        2
    );
}

#[test]
fn the_cleanup_deletes_rows_older_than_the_ttl_in_bounded_batches() {
    let mut s = store(true);
    let ids: Vec<Event> = (0..5)
        .map(|i| Event {
            event_id: format!("id-{i}"),
            ..event()
        })
        .collect();
    for (i, e) in ids.iter().enumerate() {
        s.execute(StoreOp::InsertInbox { event: e }, i as Tick * 10);
    }
    // At t=35 with a TTL of 10, rows stamped before t=25 are expired: 0, 10 and 20.
    let deleted =
        |ids: &[&str]| CleanupOutcome::Deleted(ids.iter().map(|i| i.to_string()).collect());
    assert_eq!(
        s.delete_expired_inbox(35, 10, 2),
        deleted(&["id-0", "id-1"])
    );
    assert_eq!(s.delete_expired_inbox(35, 10, 2), deleted(&["id-2"]));
    assert_eq!(s.delete_expired_inbox(35, 10, 2), deleted(&[]));
    let left: Vec<String> = s.committed_state().inbox.into_keys().collect();
    assert_eq!(left, ["id-3", "id-4"]);
    // The ages of what is left decide what goes next: part of the state.
    let mut older = s.digest(35);
    assert_ne!(older, s.digest(36));
    assert_eq!(older, s.digest(35));
    older = s.digest(36);
    assert_ne!(older, s.digest(35));
    // A row exactly TTL old is kept; one tick older is not.
    assert_eq!(s.delete_expired_inbox(40, 10, 10), deleted(&[]));
    assert_eq!(s.delete_expired_inbox(41, 10, 10), deleted(&["id-3"]));
    // Before the TTL has passed since t=0, nothing can be old enough.
    let mut fresh = store(true);
    fresh.execute(StoreOp::InsertInbox { event: &ids[0] }, 0);
    assert_eq!(fresh.delete_expired_inbox(3, 10, 10), deleted(&[]));
}

#[test]
fn the_cleanup_is_busy_while_a_consumer_holds_the_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let mut stores =
        Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap();
    let e = event();
    stores[0].execute(StoreOp::InsertInbox { event: &e }, 0);
    stores[0].execute(StoreOp::Begin, 20);
    stores[0].execute(
        StoreOp::InsertInbox {
            event: &Event {
                event_id: "other".into(),
                ..event()
            },
        },
        21,
    );
    assert_eq!(
        stores[1].delete_expired_inbox(30, 10, 10),
        CleanupOutcome::Busy
    );
    stores[0].execute(StoreOp::Commit, 22);
    assert_eq!(
        stores[1].delete_expired_inbox(30, 10, 10),
        CleanupOutcome::Deleted(vec![e.event_id.clone()])
    );
    assert_eq!(stores[0].committed_state().inbox.len(), 1);
}

#[test]
fn a_transfer_state_row_is_written_only_when_the_lifecycle_needs_it() {
    let transfers = |s: &Store| -> i64 {
        s.conn()
            .query_row("SELECT COUNT(*) FROM transfer_state", [], |r| r.get(0))
            .unwrap()
    };
    for track_transfer in [false, true] {
        let mut s = store(true);
        let e = event();
        let op = apply(&e, track_transfer);
        assert_eq!(s.execute(op, 1), DbOutcome::Applied);
        assert_eq!(transfers(&s), i64::from(track_transfer), "{track_transfer}");
    }
}
