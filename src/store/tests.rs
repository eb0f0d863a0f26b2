//! The store's unit tests.

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
fn the_template_cache_gives_each_configuration_and_set_of_accounts_its_own_database() {
    // Alternating on one thread (one cache): each store gets its own schema, never a
    // cached neighbour's.
    for _ in 0..2 {
        for unique in [true, false] {
            let mut s = store(unique);
            let e = event();
            s.execute(StoreOp::InsertInbox { event: &e }, 1);
            let second = s.execute(StoreOp::InsertInbox { event: &e }, 2);
            let want = if unique {
                DbOutcome::Duplicate
            } else {
                DbOutcome::Inserted
            };
            assert_eq!(second, want, "inbox_unique = {unique}");
        }
    }
    let balances = |accounts: &[Account]| {
        Store::open_in_memory(&StoreConfig::default(), accounts)
            .unwrap()
            .committed_state()
            .balances
    };
    let mut a = accounts();
    assert_eq!(balances(&a)["acc_00002"], 100_000);
    a[1].initial_balance_minor = 7;
    assert_eq!(balances(&a)["acc_00002"], 7, "another opening balance");
    a[1].name = "acc_00009".into();
    let b = balances(&a);
    assert_eq!((b.get("acc_00009"), b.get("acc_00002")), (Some(&7), None));
    // Every name differs, or every balance: still another database.
    let renamed: Vec<Account> = accounts()
        .into_iter()
        .map(|x| Account {
            name: format!("{}x", x.name),
            ..x
        })
        .collect();
    assert!(balances(&renamed).contains_key("acc_00001x"));
    let richer: Vec<Account> = accounts()
        .into_iter()
        .map(|x| Account {
            initial_balance_minor: 5,
            ..x
        })
        .collect();
    assert_eq!(balances(&richer)["acc_00001"], 5);
    a.pop();
    assert_eq!(balances(&a).len(), 1, "fewer accounts");
    assert_eq!(
        balances(&accounts())["acc_00002"],
        100_000,
        "the first again"
    );
}

#[test]
fn an_open_transaction_is_viewed_only_once_it_has_written() {
    let mut s = store(true);
    let e = event();
    assert_eq!(s.open_transaction_view(), None, "no transaction");
    s.execute(StoreOp::Begin, 1);
    assert_eq!(
        s.open_transaction_view(),
        Some(None),
        "BEGIN writes nothing"
    );
    s.execute(StoreOp::InsertInbox { event: &e }, 1);
    let view = s.open_transaction_view().unwrap().unwrap();
    assert_eq!(view.inbox[&e.event_id], 1, "its own write");
    s.execute(StoreOp::Commit, 2);
    assert_eq!(s.open_transaction_view(), None);
    // The next transaction starts unwritten again, and a refused write writes nothing.
    s.execute(StoreOp::Begin, 3);
    assert_eq!(s.open_transaction_view(), Some(None));
    assert_eq!(
        s.execute(StoreOp::InsertInbox { event: &e }, 3),
        DbOutcome::Duplicate
    );
    assert_eq!(s.open_transaction_view(), Some(None), "the insert failed");
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
    assert_eq!(
        s.execute(
            StoreOp::ApplyEffect {
                event: &e,
                fail_credit: false,
                done: 0,
                read: None,
                track_transfer: true,
            },
            2
        ),
        DbOutcome::Applied
    );
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
    s.execute(
        StoreOp::ApplyEffect {
            event: &e,
            fail_credit: false,
            done: 0,
            read: None,
            track_transfer: true,
        },
        3,
    );
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
            StoreOp::ApplyEffect {
                event: &e,
                fail_credit: true,
                done: 0,
                read: None,
                track_transfer: true,
            },
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
fn stores_opened_from_the_same_template_are_independent() {
    let e = event();
    let mut a = store(true);
    a.execute(StoreOp::InsertInbox { event: &e }, 1);
    let mut b = store(true);
    assert!(
        b.committed_state().inbox.is_empty(),
        "a's write did not reach the template"
    );
    assert_eq!(b.committed_state().balances["acc_00001"], 100_000);
    assert_eq!(a.committed_state().inbox.len(), 1);
}

#[test]
fn replaying_the_logged_statements_rebuilds_the_same_state() {
    let e = event();
    let mut s = store(true);
    s.record_statements();
    s.execute(StoreOp::Begin, 1);
    s.execute(StoreOp::InsertInbox { event: &e }, 2);
    s.execute(
        StoreOp::ApplyEffect {
            event: &e,
            fail_credit: false,
            done: 0,
            read: None,
            track_transfer: true,
        },
        3,
    );
    s.execute(StoreOp::Commit, 4);
    s.execute(StoreOp::InsertInbox { event: &e }, 5);
    let expected = s.committed_state();
    let log = s.take_statements();
    assert_eq!(
        log.len(),
        19,
        "BEGIN, INSERT, 2×(INSERT, UPDATE), transfer_state INSERT, COMMIT, INSERT and the \
         read of the stored fingerprint it calls for, 9 reads"
    );
    drop(s); // Its connection goes back to the pool and is reused below.
    let mut raw = store(true);
    assert!(
        raw.committed_state().inbox.is_empty(),
        "a reused connection starts afresh"
    );
    replay_statements(&raw, &log);
    assert_eq!(raw.committed_state(), expected);
}

#[test]
fn a_store_dropped_mid_transaction_leaves_nothing_for_the_next() {
    let e = event();
    let mut a = store(true);
    a.execute(StoreOp::Begin, 1);
    a.execute(StoreOp::InsertInbox { event: &e }, 2);
    drop(a);
    let mut b = store(true);
    assert!(!b.in_transaction());
    assert!(b.committed_state().inbox.is_empty());
}

#[test]
fn a_read_modify_write_effect_writes_what_it_read_plus_the_amount() {
    let e = event();
    let config = StoreConfig {
        effect: EffectMode::ReadModifyWrite,
        ..StoreConfig::default()
    };
    let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
    let op = |read| StoreOp::ApplyEffect {
        event: &e,
        fail_credit: false,
        done: 0,
        read,
        track_transfer: false,
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

#[test]
fn a_completion_needs_its_transfer_and_is_rejected_without_it() {
    let created = event();
    let completed = Event {
        index: 1,
        event_id: "22222222-2222-4222-8222-222222222222".into(),
        event_type: EventType::TransferCompleted,
        ..event()
    };
    let apply = |e| StoreOp::ApplyEffect {
        event: e,
        fail_credit: false,
        done: 0,
        read: None,
        track_transfer: true,
    };
    let mut s = store(true);
    assert_eq!(
        s.execute(apply(&completed), 1),
        DbOutcome::Rejected,
        "unknown transfer"
    );
    assert_eq!(s.execute(apply(&created), 2), DbOutcome::Applied);
    assert_eq!(s.execute(apply(&completed), 3), DbOutcome::Applied);
    assert_eq!(s.execute(apply(&completed), 4), DbOutcome::AlreadyCompleted);
    let c = s.committed_state();
    assert_eq!(c.ledger[&completed.event_id].completions, 1);
    assert_eq!(c.rejected[&completed.event_id], 1);
    assert_eq!(
        c.ledger_sums["acc_00001"], -10_000,
        "a completion moves no money"
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

fn apply(e: &Event) -> StoreOp<'_> {
    StoreOp::ApplyEffect {
        event: e,
        fail_credit: false,
        done: 0,
        read: None,
        track_transfer: true,
    }
}

fn buffering_store() -> Store {
    let config = StoreConfig {
        out_of_order: OutOfOrder::Buffer,
        ..StoreConfig::default()
    };
    Store::open_in_memory(&config, &accounts()).unwrap()
}

#[test]
fn a_buffered_completion_waits_and_is_applied_by_its_creations_transaction() {
    let created = event();
    let completed = completed_of(&created);
    let mut s = buffering_store();
    s.execute(StoreOp::Begin, 1);
    s.execute(StoreOp::InsertInbox { event: &completed }, 2);
    assert_eq!(s.execute(apply(&completed), 3), DbOutcome::Buffered);
    s.execute(StoreOp::Commit, 4);
    let c = s.committed_state();
    assert_eq!(
        c.pending[&completed.event_id], 1,
        "committed with its inbox row"
    );
    assert!(c.rejected.is_empty() && !c.ledger.contains_key(&completed.event_id));

    s.execute(StoreOp::Begin, 5);
    assert_eq!(s.execute(apply(&created), 6), DbOutcome::AppliedWithPending);
    // Rolled back: the pending row is still there, nothing applied.
    s.execute(StoreOp::Rollback, 7);
    assert_eq!(s.committed_state().pending[&completed.event_id], 1);

    s.execute(StoreOp::Begin, 8);
    assert_eq!(s.execute(apply(&created), 9), DbOutcome::AppliedWithPending);
    s.execute(StoreOp::Commit, 10);
    let c = s.committed_state();
    assert!(
        c.pending.is_empty(),
        "the pending row went with the creation"
    );
    assert_eq!(c.ledger[&completed.event_id].completions, 1);
    assert_eq!(c.ledger[&created.event_id].debits, 1);
    assert_eq!(
        s.execute(apply(&completed), 11),
        DbOutcome::AlreadyCompleted,
        "a late copy of the completion finds the transfer completed"
    );
}

#[test]
fn a_creation_with_nothing_pending_is_a_plain_apply_and_reject_mode_never_buffers() {
    let created = event();
    let completed = completed_of(&created);
    let mut s = buffering_store();
    assert_eq!(s.execute(apply(&created), 1), DbOutcome::Applied);
    assert_eq!(s.execute(apply(&completed), 2), DbOutcome::Applied);
    let mut r = store(true);
    assert_eq!(r.execute(apply(&completed), 1), DbOutcome::Rejected);
    assert!(r.committed_state().pending.is_empty());
}

#[test]
fn without_the_inbox_a_completion_buffered_twice_is_applied_twice() {
    let created = event();
    let completed = completed_of(&created);
    let mut s = buffering_store();
    assert_eq!(s.execute(apply(&completed), 1), DbOutcome::Buffered);
    assert_eq!(s.execute(apply(&completed), 2), DbOutcome::Buffered);
    assert_eq!(s.execute(apply(&created), 3), DbOutcome::AppliedWithPending);
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
        stores[1].execute(apply(&other), 2),
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
fn the_database_digest_is_every_committed_row_with_ages_relative_to_now() {
    let e = event();
    let mut early = store(true);
    let mut late = store(true);
    assert_eq!(early.digest(0), late.digest(0));
    early.execute(StoreOp::InsertInbox { event: &e }, 1);
    assert_ne!(early.digest(0), late.digest(0));
    late.execute(StoreOp::InsertInbox { event: &e }, 900);
    assert_eq!(early.digest(5), late.digest(904), "the same ages");
    assert_ne!(early.digest(5), late.digest(905), "other ages");
    // Without retention the inbox's ages play no part, nor any other instant.
    let plain = |s: &Store, now| {
        let mut h = StateHasher::default();
        s.fingerprint_database(now, false, &mut h);
        h.digest()
    };
    assert_eq!(plain(&early, 5), plain(&late, 905));
    // Every table is in it, whatever its name: a balance, a rejection, a row of a
    // table no code here knows of.
    let before = plain(&early, 5);
    early
        .conn()
        .execute_batch("CREATE TABLE added_later (x INTEGER)")
        .unwrap();
    assert_ne!(plain(&early, 5), before, "a new table");
    let empty = plain(&early, 5);
    early
        .conn()
        .execute_batch("INSERT INTO added_later VALUES (1)")
        .unwrap();
    assert_ne!(plain(&early, 5), empty, "a row of it");
    let one = plain(&early, 5);
    early
        .conn()
        .execute_batch(
            "UPDATE balance_projection SET balance_minor = balance_minor + 1 WHERE rowid = 1",
        )
        .unwrap();
    assert_ne!(plain(&early, 5), one, "a balance");
}

/// Instants are left out of the database digest because no statement of a run reads
/// them, except the retention job's `processed_at`: keep it so. Every statement the
/// store runs is a constant in one of its files; an `_at` column may appear only where it
/// is written (an `INSERT`'s column list), in the retention job's statements, or in
/// the checker's read of payload alerts.
#[test]
fn only_processed_at_is_read_by_a_later_statement() {
    let source = [
        include_str!("mod.rs"),
        include_str!("ops.rs"),
        include_str!("outbox.rs"),
        include_str!("read.rs"),
        include_str!("retention.rs"),
        include_str!("schema.rs"),
        include_str!("sql.rs"),
    ]
    .concat();
    let statements = source
        .split("const ")
        .skip(1)
        // A statement may start on the line after its name (`const X: &str =\n    "..."`).
        .filter_map(|c| c.split_once(": &str ="))
        .map(|(name, rest)| (name, rest.trim_start().split("\";").next().unwrap_or("")));
    let mut checked = 0;
    for (name, sql) in statements {
        checked += 1;
        let reads_an_instant = sql
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w.ends_with("_at") && w != "processed_at");
        let writes = sql
            .trim_start_matches('"')
            .trim_start()
            .starts_with("INSERT")
            || sql.contains("CREATE TABLE");
        assert!(
            !reads_an_instant || writes || name == "PAYLOAD_ALERTS",
            "{name} reads an instant column: feed it to the digest (fingerprint_database)"
        );
        if sql.contains("processed_at") && !writes {
            assert!(
                name == "DELETE_EXPIRED_INBOX" || name == "EARLIEST_INBOX_ROW",
                "{name} reads processed_at outside the retention job"
            );
        }
    }
    assert!(checked >= 39, "every statement was found: {checked}");
}

#[test]
fn a_committed_snapshot_is_taken_only_outside_a_transaction() {
    let e = event();
    let mut s = store(true);
    s.execute(StoreOp::InsertInbox { event: &e }, 1);
    let snapshot = s.committed_snapshot().unwrap();
    assert_eq!(snapshot.inbox[&e.event_id], 1);
    assert_eq!(snapshot.balances, s.committed_state().balances);
    s.execute(StoreOp::Begin, 2);
    assert_eq!(s.committed_snapshot(), None);
}

#[test]
fn only_a_pooled_connection_without_a_transaction_goes_back_to_the_idle_pool() {
    // A thread of its own: the pool is per thread.
    std::thread::spawn(|| {
        let idle = || IDLE.with(|i| i.borrow().len());
        IDLE.with(|i| i.borrow_mut().clear());
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap());
        assert_eq!(idle(), 0, "file connections are closed");
        let mut open = store(true);
        open.execute(StoreOp::Begin, 1);
        open.execute(StoreOp::InsertInbox { event: &event() }, 1);
        drop(open);
        assert_eq!(idle(), 1, "rolled back, then pooled");
        let many: Vec<Store> = (0..MAX_IDLE + 2).map(|_| store(true)).collect();
        assert_eq!(idle(), 0, "each open takes an idle connection");
        drop(many);
        assert_eq!(idle(), MAX_IDLE, "the pool keeps at most MAX_IDLE");
        let mut reused = store(true);
        assert!(reused.committed_state().inbox.is_empty(), "afresh");
        assert_eq!(idle(), MAX_IDLE - 1);
    })
    .join()
    .unwrap();
}

#[test]
fn a_connection_reused_for_its_template_is_reset_to_the_templates_rows() {
    // A thread of its own: the pool is per thread.
    std::thread::spawn(|| {
        IDLE.with(|i| i.borrow_mut().clear());
        let fresh = store(true).digest(0);
        let rows = |s: &Store| -> Vec<(String, i64)> {
            let tables: Vec<String> = s
                .conn()
                .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            tables
                .into_iter()
                .map(|t| {
                    let sql = format!("SELECT COUNT(*) FROM \"{t}\"");
                    let n = s.conn().query_row(&sql, [], |r| r.get(0)).unwrap();
                    (t, n)
                })
                .collect()
        };
        let template_rows = rows(&store(true));
        IDLE.with(|i| i.borrow_mut().truncate(1));
        let mut s = store(true);
        assert_eq!(
            IDLE.with(|i| i.borrow().len()),
            0,
            "s has the pooled connection"
        );
        let e = event();
        s.execute(StoreOp::Begin, 1);
        s.execute(StoreOp::InsertInbox { event: &e }, 1);
        s.execute(apply(&e), 2);
        s.execute(StoreOp::Commit, 3);
        s.execute(StoreOp::RecordPayloadAlert { event: &e }, 4);
        assert_eq!(
            s.insert_transfer(&e, true, 5),
            outbox::TransferWrite::Recorded
        );
        assert!(s.commit_transfer());
        assert_ne!(rows(&s), template_rows);
        let changes_at_drop = s.conn().total_changes();
        drop(s);
        let again = store(true);
        assert!(
            again.conn().total_changes() > changes_at_drop,
            "the same connection, emptied by statements (which keeps its prepared \
             statements), not given a new copy of the template"
        );
        assert_eq!(again.digest(0), fresh);
        assert_eq!(
            rows(&again),
            template_rows,
            "every table as in the template"
        );
        drop(again);

        // Rowids start at 1 again, as in a fresh copy.
        let mut again = store(true);
        again.execute(apply(&e), 6);
        let first: i64 = again
            .conn()
            .query_row("SELECT MIN(entry_id) FROM ledger_entry", [], |r| r.get(0))
            .unwrap();
        assert_eq!(first, 1);
        drop(again);

        // A connection last used with another template gets that one's schema: the
        // business key does not follow it.
        IDLE.with(|i| i.borrow_mut().clear());
        drop(
            Store::open_in_memory(
                &StoreConfig {
                    business_key_unique: true,
                    ..StoreConfig::default()
                },
                &accounts(),
            )
            .unwrap(),
        );
        assert_eq!(IDLE.with(|i| i.borrow().len()), 1);
        let mut plain = store(true);
        let second = Event {
            event_id: "another".into(),
            ..event()
        };
        assert_eq!(plain.execute(apply(&e), 7), DbOutcome::Applied);
        assert_eq!(plain.execute(apply(&second), 8), DbOutcome::Applied);
    })
    .join()
    .unwrap();
}

#[test]
#[should_panic(expected = "ROLLBACK")]
fn replaying_a_statement_that_fails_other_than_by_a_constraint_is_a_bug() {
    let s = store(true);
    replay_statements(
        &s,
        &[LoggedStatement {
            sql: "ROLLBACK",
            params: Vec::new(),
            kind: StatementKind::Execute,
        }],
    );
}

#[test]
fn a_single_connection_file_database_is_in_wal_mode_too() {
    let dir = tempfile::tempdir().unwrap();
    let stores = Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 1).unwrap();
    let mode: String = stores[0]
        .conn()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
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
fn committed_credit_amounts_show_an_applied_copy_with_another_payload() {
    let mut s = store(true);
    let e = event();
    let apply = |s: &mut Store, event| {
        s.execute(
            StoreOp::ApplyEffect {
                event,
                fail_credit: false,
                done: 0,
                read: None,
                track_transfer: false,
            },
            1,
        )
    };
    apply(&mut s, &e);
    apply(&mut s, &e.altered(1));
    let c = s.committed_state();
    assert_eq!(c.credit_amounts[&e.event_id], [10_000, 20_000]);
    assert_eq!(
        c.balances.values().sum::<i64>(),
        200_000,
        "each copy moves money consistently"
    );
}

#[test]
fn payload_fingerprints_are_stable_and_tell_payloads_apart() {
    let e = event();
    assert_eq!(payload_fingerprint("a"), "af63dc4c8601ec8c");
    assert_eq!(
        payload_fingerprint(&e.payload()),
        payload_fingerprint(&e.payload())
    );
    assert_ne!(
        payload_fingerprint(&e.payload()),
        payload_fingerprint(&e.altered(1).payload())
    );
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
fn a_file_database_is_created_once_in_wal_mode_and_reopened_with_its_committed_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("consumer.sqlite");
    let config = StoreConfig::default();
    let e = event();
    {
        let mut s = Store::open_file(&path, &config, &accounts()).unwrap();
        assert_eq!(s.execute(StoreOp::Begin, 1), DbOutcome::Begun);
        s.execute(StoreOp::InsertInbox { event: &e }, 2);
        assert_eq!(s.execute(StoreOp::Commit, 3), DbOutcome::Committed);
        let mode: String = s
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = s
            .conn()
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "FULL");
        // Left open: closing the connection rolls it back.
        s.execute(StoreOp::Begin, 4);
        s.execute(
            StoreOp::InsertInbox {
                event: &Event {
                    event_id: "other".into(),
                    ..e.clone()
                },
            },
            5,
        );
    }
    let mut again = Store::open_file(&path, &config, &accounts()).unwrap();
    let state = again.committed_state();
    assert_eq!(state.inbox.get(&e.event_id), Some(&1));
    assert_eq!(state.inbox.len(), 1, "the uncommitted row is gone");
    assert_eq!(state.balances.len(), 2, "the accounts were created once");
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
    assert_eq!(s.execute(apply(&e), 2), DbOutcome::BusinessDuplicate);
    s.execute(StoreOp::Rollback, 3);
    let c = s.committed_state();
    assert!(!c.ledger.contains_key(&e.event_id), "the debit rolled back");
    assert_eq!(c.balances["acc_00001"], 100_000);
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
        let op = StoreOp::ApplyEffect {
            event: &e,
            fail_credit: false,
            done: 0,
            read: None,
            track_transfer,
        };
        assert_eq!(s.execute(op, 1), DbOutcome::Applied);
        assert_eq!(transfers(&s), i64::from(track_transfer), "{track_transfer}");
    }
}
