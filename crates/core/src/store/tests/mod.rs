//! The store's unit tests.

mod lifecycle;
mod named;
mod read;
mod templates;

use super::*;
use crate::model::EventType;

pub(in crate::store) fn accounts() -> Vec<Account> {
    ["acc_00001", "acc_00002"]
        .iter()
        .map(|n| Account {
            name: n.to_string(),
            initial_balance_minor: 100_000,
        })
        .collect()
}

fn event() -> Event {
    Event {
        index: 0,
        event_id: "11111111-1111-4111-8111-111111111111".into(),
        event_type: EventType::TransferCreated,
        transfer_id: "tr_00000".into(),
        source: "acc_00001".into(),
        target: "acc_00002".into(),
        amount_minor: 10_000,
    }
}

fn store(unique: bool) -> Store {
    Store::open_in_memory(
        &StoreConfig {
            inbox_unique: unique,
            ..StoreConfig::default()
        },
        &accounts(),
    )
    .unwrap()
}

#[test]
fn lock_contention_is_a_scheduling_outcome_and_anything_else_is_not() {
    let failure = |code| rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None);
    assert_eq!(
        contention(&failure(rusqlite::ffi::SQLITE_BUSY_SNAPSHOT), 3),
        Some(DbOutcome::StaleSnapshot)
    );
    assert_eq!(
        contention(&failure(rusqlite::ffi::SQLITE_BUSY), 3),
        Some(DbOutcome::Busy { done: 3 })
    );
    assert_eq!(
        contention(&failure(rusqlite::ffi::SQLITE_LOCKED), 0),
        Some(DbOutcome::Busy { done: 0 })
    );
    assert_eq!(
        contention(&failure(rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE), 0),
        None
    );
    assert_eq!(contention(&rusqlite::Error::InvalidQuery, 0), None);
}

#[test]
fn the_second_inbox_insert_is_a_duplicate_by_constraint() {
    let mut s = store(true);
    let e = event();
    assert_eq!(
        s.execute(StoreOp::InsertInbox { event: &e }, 1),
        DbOutcome::Inserted
    );
    assert_eq!(
        s.execute(StoreOp::InsertInbox { event: &e }, 2),
        DbOutcome::Duplicate
    );
    assert_eq!(s.committed_state().inbox[&e.event_id], 1);
}

#[test]
fn without_the_constraint_the_insert_never_sees_a_duplicate() {
    let mut s = store(false);
    let e = event();
    assert_eq!(
        s.execute(StoreOp::InsertInbox { event: &e }, 1),
        DbOutcome::Inserted
    );
    assert_eq!(
        s.execute(StoreOp::InsertInbox { event: &e }, 2),
        DbOutcome::Inserted
    );
    assert_eq!(s.committed_state().inbox[&e.event_id], 2);
}

#[test]
fn a_committed_effect_moves_money_and_writes_two_ledger_rows() {
    let mut s = store(true);
    let e = event();
    s.execute(StoreOp::Begin, 1);
    assert_eq!(s.execute(apply(&e, true), 2), DbOutcome::Applied);
    s.execute(StoreOp::Commit, 3);
    let c = s.committed_state();
    assert_eq!(
        c.ledger[&e.event_id],
        LedgerCounts {
            debits: 1,
            credits: 1,
            completions: 0
        }
    );
    assert_eq!(c.balances["acc_00001"], 90_000);
    assert_eq!(c.balances["acc_00002"], 110_000);
}

#[test]
fn a_crash_drops_the_open_transaction_and_keeps_what_was_committed() {
    let mut s = store(true);
    let e = event();
    s.execute(StoreOp::InsertInbox { event: &e }, 1); // autocommits
    s.execute(StoreOp::Begin, 2);
    s.execute(apply(&e, true), 3);
    assert!(s.drop_open_transaction());
    assert!(!s.drop_open_transaction(), "nothing left to drop");
    let c = s.committed_state();
    assert!(c.ledger.is_empty());
    assert_eq!(c.inbox[&e.event_id], 1);
    assert_eq!(c.balances["acc_00001"], 100_000);
}

#[test]
fn a_failed_credit_outside_a_transaction_leaves_a_torn_effect() {
    let mut s = store(true);
    let e = event();
    assert_eq!(
        s.execute(
            StoreOp::ApplyEffect(EffectArgs {
                event: &e,
                fail_credit: true,
                done: 0,
                read: None,
                track_transfer: true,
            }),
            1
        ),
        DbOutcome::CreditFailed
    );
    let c = s.committed_state();
    assert_eq!(
        c.ledger[&e.event_id],
        LedgerCounts {
            debits: 1,
            credits: 0,
            completions: 0
        }
    );
    assert_eq!(c.balances.values().sum::<i64>(), 190_000);
}

#[test]
fn a_read_modify_write_effect_writes_what_it_read_plus_the_amount() {
    let e = event();
    let config = StoreConfig {
        effect: EffectMode::ReadModifyWrite,
        ..StoreConfig::default()
    };
    let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
    let op = |read| {
        StoreOp::ApplyEffect(EffectArgs {
            event: &e,
            fail_credit: false,
            done: 0,
            read,
            track_transfer: false,
        })
    };
    let read = s.execute(op(None), 1);
    assert_eq!(
        read,
        DbOutcome::BalancesRead {
            source: 100_000,
            target: 100_000
        }
    );
    // Values read earlier (stale, say) are written back as they are: that is the bug
    // a read-modify-write has under concurrency.
    assert_eq!(s.execute(op(Some((50_000, 70_000))), 2), DbOutcome::Applied);
    let c = s.committed_state();
    assert_eq!(c.balances["acc_00001"], 40_000);
    assert_eq!(c.balances["acc_00002"], 80_000);
    assert_eq!(
        c.ledger_sums["acc_00001"], -10_000,
        "the ledger says what really moved"
    );
}

fn completed_of(created: &Event) -> Event {
    Event {
        index: 1,
        event_id: "22222222-2222-4222-8222-222222222222".into(),
        event_type: EventType::TransferCompleted,
        ..created.clone()
    }
}

/// The effect on its first turn: nothing done yet, nothing read, no failure.
pub(in crate::store) fn apply(e: &Event, track_transfer: bool) -> StoreOp<'_> {
    StoreOp::ApplyEffect(EffectArgs {
        event: e,
        fail_credit: false,
        done: 0,
        read: None,
        track_transfer,
    })
}

fn buffering_store() -> Store {
    let config = StoreConfig {
        out_of_order: OutOfOrder::Buffer,
        ..StoreConfig::default()
    };
    Store::open_in_memory(&config, &accounts()).unwrap()
}

#[test]
fn an_inbox_insert_blocked_by_another_writer_is_busy_not_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let mut stores =
        Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap();
    let e = event();
    stores[0].execute(StoreOp::Begin, 1);
    assert_eq!(
        stores[0].execute(StoreOp::InsertInbox { event: &e }, 1),
        DbOutcome::Inserted
    );
    stores[1].execute(StoreOp::Begin, 2);
    let other = Event {
        event_id: "other".into(),
        ..event()
    };
    assert_eq!(
        stores[1].execute(StoreOp::InsertInbox { event: &other }, 2),
        DbOutcome::Busy { done: 0 }
    );
}

#[test]
fn an_effect_or_an_alert_blocked_by_another_writer_is_busy_not_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let mut stores = Store::open_shared(
        dir.path(),
        &StoreConfig {
            business_key_unique: true,
            ..StoreConfig::default()
        },
        &accounts(),
        2,
    )
    .unwrap();
    let e = event();
    stores[0].execute(StoreOp::Begin, 1);
    stores[0].execute(StoreOp::InsertInbox { event: &e }, 1);
    let other = Event {
        event_id: "other".into(),
        transfer_id: "tr_00009".into(),
        ..event()
    };
    stores[1].execute(StoreOp::Begin, 2);
    assert_eq!(
        stores[1].execute(apply(&other, true), 2),
        DbOutcome::Busy { done: 0 },
        "the ledger insert waits for the lock; it is no business duplicate"
    );
    stores[1].execute(StoreOp::Rollback, 2);
    assert_eq!(
        stores[1].execute(StoreOp::RecordPayloadAlert { event: &other }, 3),
        DbOutcome::Busy { done: 0 },
        "the alert insert waits for the lock; no alert exists"
    );
}

#[test]
fn the_same_event_id_with_another_payload_is_a_mismatch_not_a_duplicate() {
    let mut s = store(true);
    let e = event();
    let altered = e.altered(1);
    assert_eq!(
        s.execute(StoreOp::InsertInbox { event: &e }, 1),
        DbOutcome::Inserted
    );
    assert_eq!(
        s.execute(StoreOp::InsertInbox { event: &e }, 2),
        DbOutcome::Duplicate,
        "the same payload is a plain duplicate"
    );
    let mismatch = s.execute(StoreOp::InsertInbox { event: &altered }, 3);
    assert_eq!(mismatch, DbOutcome::PayloadMismatch);
    assert!(!mismatch.is_duplicate(), "never counted as a duplicate");
    assert_eq!(
        s.execute(StoreOp::CheckInbox { event: &e }, 4),
        DbOutcome::Found
    );
    assert_eq!(
        s.execute(StoreOp::CheckInbox { event: &altered }, 5),
        DbOutcome::PayloadMismatch,
        "a read finds the corruption too"
    );
    assert_eq!(s.committed_state().inbox[&e.event_id], 1);
}

#[test]
fn a_payload_alert_is_committed_once_per_received_payload_with_both_payloads() {
    let mut s = store(true);
    let e = event();
    s.execute(StoreOp::InsertInbox { event: &e }, 1);
    let (twice, thrice) = (e.altered(1), e.altered(2));
    let alert = |s: &mut Store, event, now| s.execute(StoreOp::RecordPayloadAlert { event }, now);
    assert_eq!(alert(&mut s, &twice, 2), DbOutcome::AlertRecorded);
    assert_eq!(
        alert(&mut s, &twice, 3),
        DbOutcome::AlertExists,
        "a redelivery of the same corrupt copy"
    );
    assert_eq!(alert(&mut s, &thrice, 4), DbOutcome::AlertRecorded);
    let c = s.committed_state();
    assert_eq!(c.payload_alerts.len(), 2);
    let first = &c.payload_alerts[0];
    assert_eq!(first.event_id, e.event_id);
    assert_eq!(first.stored_payload, e.payload());
    assert_eq!(first.received_payload, twice.payload());
    assert!(first.received_payload.contains("\"amount_minor\":20000"));
    assert_eq!(first.detected_at, 2);
    assert_eq!(c.payload_alerts[1].received_payload, thrice.payload());
}

#[test]
fn the_inbox_row_carries_virtual_time() {
    let mut s = store(true);
    let e = event();
    s.execute(StoreOp::InsertInbox { event: &e }, 42);
    let at: i64 = s
        .conn()
        .query_row("SELECT processed_at FROM processed_event", [], |r| r.get(0))
        .unwrap();
    assert_eq!(at, 42);
}

#[test]
fn a_crash_rolls_the_open_transaction_back_and_the_wrong_model_keeps_it() {
    let e = event();
    for (model, kept) in [(CrashModel::RollBack, 0), (CrashModel::KeepUncommitted, 1)] {
        let config = StoreConfig {
            crash_model: model,
            ..StoreConfig::default()
        };
        let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
        s.execute(StoreOp::Begin, 1);
        s.execute(StoreOp::InsertInbox { event: &e }, 2);
        assert!(s.drop_open_transaction());
        assert!(!s.drop_open_transaction(), "nothing open any more");
        assert_eq!(s.event_rows(&e.event_id), (0, kept), "{model:?}");
    }
}

#[test]
fn the_business_key_guards_each_leg_and_a_credit_row_alone_is_a_business_duplicate() {
    // The simulator always writes a transfer's debit before its credit, so a business
    // key violation normally comes from the debit. A credit row already there on its
    // own (written by another system sharing the ledger) must be refused the same way,
    // not taken for a bug.
    let config = StoreConfig {
        business_key_unique: true,
        ..StoreConfig::default()
    };
    let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
    let e = event();
    s.conn()
        .execute(
            INSERT_LEDGER,
            rusqlite::params!["elsewhere", e.transfer_id, e.target, "credit", 1, 0],
        )
        .unwrap();
    s.execute(StoreOp::Begin, 1);
    assert_eq!(s.execute(apply(&e, true), 2), DbOutcome::BusinessDuplicate);
    s.execute(StoreOp::Rollback, 3);
    let c = s.committed_state();
    assert!(!c.ledger.contains_key(&e.event_id), "the debit rolled back");
    assert_eq!(c.balances["acc_00001"], 100_000);
}
