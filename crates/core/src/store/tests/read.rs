//! Reading committed state: views of open transactions, the digest, instant columns.

use super::*;

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
        include_str!("../mod.rs"),
        include_str!("../ops.rs"),
        include_str!("../outbox.rs"),
        include_str!("../read.rs"),
        include_str!("../retention.rs"),
        include_str!("../schema.rs"),
        include_str!("../sql.rs"),
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
fn committed_credit_amounts_show_an_applied_copy_with_another_payload() {
    let mut s = store(true);
    let e = event();
    s.execute(apply(&e, false), 1);
    s.execute(apply(&e.altered(1), false), 1);
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
