//! Template databases, the per-thread pool of connections, database files, and replay.

use super::*;

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
        s.execute(apply(&e, true), 2);
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
        again.execute(apply(&e, true), 6);
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
        assert_eq!(plain.execute(apply(&e, true), 7), DbOutcome::Applied);
        assert_eq!(plain.execute(apply(&second, true), 8), DbOutcome::Applied);
    })
    .join()
    .unwrap();
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
fn replaying_the_logged_statements_rebuilds_the_same_state() {
    let e = event();
    let mut s = store(true);
    s.record_statements();
    s.execute(StoreOp::Begin, 1);
    s.execute(StoreOp::InsertInbox { event: &e }, 2);
    s.execute(apply(&e, true), 3);
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
