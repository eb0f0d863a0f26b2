//! The tables around the consumer's own: the producer's `transfer` and `outbox`, the
//! consumer's `email_outbox`, and the ledger's optional business key.
//!
//! The producer's database may be its own file or the consumer's (a scenario option); the
//! schema is the same everywhere, so either works. Outbox rows are read by a relay, a
//! separate process with its own connection, so that it never sees a row of a transaction
//! that has not committed: that is what makes an outbox safe where a dual write is not.

use super::{contention, DbOutcome, Store};
use crate::model::{Event, EventIndex, Tick};
use rusqlite::ErrorCode;
use std::collections::BTreeSet;

pub(super) const SCHEMA: &str = "
    CREATE TABLE transfer (
        transfer_id  TEXT PRIMARY KEY,
        source       TEXT NOT NULL,
        target       TEXT NOT NULL,
        amount_minor INTEGER NOT NULL,
        created_at   INTEGER NOT NULL
    );
    CREATE TABLE outbox (
        outbox_id   INTEGER PRIMARY KEY,
        transfer_id TEXT NOT NULL,
        event_index INTEGER NOT NULL,
        event_id    TEXT NOT NULL,
        sent        INTEGER NOT NULL DEFAULT 0,
        created_at  INTEGER NOT NULL
    );
    CREATE TABLE email_outbox (
        email_id    INTEGER PRIMARY KEY,
        event_id    TEXT NOT NULL,
        event_index INTEGER NOT NULL,
        sent        INTEGER NOT NULL DEFAULT 0,
        created_at  INTEGER NOT NULL
    );";

/// One transfer moves money once: a second debit (or credit) row for the same `transfer_id`
/// violates this index, whichever `event_id` carries it.
pub(super) const BUSINESS_KEY: &str = "
    CREATE UNIQUE INDEX ledger_business_key ON ledger_entry (transfer_id, direction)
        WHERE direction IN ('debit', 'credit');";

pub(super) const INSERT_EMAIL: &str =
    "INSERT INTO email_outbox (event_id, event_index, created_at) VALUES (?1, ?2, ?3)";
pub(super) const LEDGER_BY_TRANSFER: &str =
    "SELECT transfer_id, SUM(direction = 'debit'), SUM(direction = 'credit'),
     SUM(direction = 'completion') FROM ledger_entry GROUP BY transfer_id";
const INSERT_TRANSFER_ROW: &str =
    "INSERT INTO transfer (transfer_id, source, target, amount_minor, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5)";
const INSERT_OUTBOX: &str =
    "INSERT INTO outbox (transfer_id, event_index, event_id, created_at) VALUES (?1, ?2, ?3, ?4)";
const NEXT_OUTBOX: &str =
    "SELECT outbox_id, event_index FROM outbox WHERE sent = 0 ORDER BY outbox_id LIMIT 1";
const NEXT_EMAIL: &str =
    "SELECT email_id, event_index FROM email_outbox WHERE sent = 0 ORDER BY email_id LIMIT 1";
const MARK_OUTBOX: &str = "UPDATE outbox SET sent = 1 WHERE outbox_id = ?1";
const MARK_EMAIL: &str = "UPDATE email_outbox SET sent = 1 WHERE email_id = ?1";
const TRANSFERS: &str = "SELECT transfer_id FROM transfer";

/// A relay's connection, as the world's executor sees it: the outbox it drains, on SQLite
/// ([`Store`]) or PostgreSQL (`pg::PgStore`, the consumer's email outbox).
pub trait RelayDb: super::ConsumerDb {
    /// The oldest unsent row of `table`: its id and the event it is for.
    fn next_unsent(&mut self, table: OutboxTable) -> Option<(i64, EventIndex)>;

    /// Marks an outbox row sent (autocommit): `false` when the database made it wait
    /// (nothing happened yet; the relay asks again).
    fn mark_sent(&mut self, table: OutboxTable, row: i64) -> bool;
}

/// The producer's connection, as the world's executor sees it: its transfer (and outbox
/// row) written in one transaction, on SQLite ([`Store`]) or PostgreSQL
/// (`pg::PgStore`).
pub trait ProducerDb: super::ConsumerDb {
    /// `BEGIN`, the transfer row and, with `outbox`, its outbox row carrying
    /// `event.event_id`. A transfer that already exists rolls back.
    fn insert_transfer(&mut self, event: &Event, outbox: bool, now: Tick) -> TransferWrite;

    /// `COMMIT`: `true` once committed, `false` if the database made it wait (the
    /// transaction stays open; retry).
    fn commit_transfer(&mut self) -> bool;

    /// The transfers committed in the producer's database: the business intents.
    fn committed_transfers(&mut self) -> BTreeSet<String>;
}

impl ProducerDb for Store {
    fn insert_transfer(&mut self, event: &Event, outbox: bool, now: Tick) -> TransferWrite {
        Store::insert_transfer(self, event, outbox, now)
    }

    fn commit_transfer(&mut self) -> bool {
        Store::commit_transfer(self)
    }

    fn committed_transfers(&mut self) -> BTreeSet<String> {
        Store::committed_transfers(self)
    }
}

impl RelayDb for Store {
    fn next_unsent(&mut self, table: OutboxTable) -> Option<(i64, EventIndex)> {
        Store::next_unsent(self, table)
    }

    fn mark_sent(&mut self, table: OutboxTable, row: i64) -> bool {
        Store::mark_sent(self, table, row)
    }
}

/// An outbox a relay drains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutboxTable {
    /// The producer's `outbox`: events to publish.
    Events,
    /// The consumer's `email_outbox`: emails to send.
    Emails,
}

/// What the producer's `insert_transfer` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransferWrite {
    /// The transfer (and its outbox row) are written in the open transaction.
    Recorded,
    /// The transfer is already committed (an earlier attempt of the same request got that
    /// far): an idempotent API answers with the stored result and writes nothing.
    AlreadyRecorded,
    /// `SQLITE_BUSY`: another connection holds the write lock; nothing was written and no
    /// transaction is open. Retry later.
    Busy,
}

impl Store {
    /// The producer's `insert_transfer`: `BEGIN`, the transfer row and, with `outbox`, its
    /// outbox row carrying `event.event_id`. A transfer that already exists rolls back.
    pub fn insert_transfer(&mut self, event: &Event, outbox: bool, now: Tick) -> TransferWrite {
        assert!(self.conn().is_autocommit(), "insert_transfer opens its own");
        assert_eq!(
            self.control("BEGIN"),
            None,
            "a deferred BEGIN takes no lock"
        );
        let result = self.write(
            INSERT_TRANSFER_ROW,
            &[
                &event.transfer_id,
                &event.source,
                &event.target,
                &event.amount_minor,
                &(now as i64),
            ],
        );
        let answer = match result {
            Ok(_) if !outbox => return TransferWrite::Recorded,
            Ok(_) => self
                .write(
                    INSERT_OUTBOX,
                    &[
                        &event.transfer_id,
                        &(event.index as i64),
                        &event.event_id,
                        &(now as i64),
                    ],
                )
                .map(|_| TransferWrite::Recorded),
            Err(e) => Err(e),
        };
        let answer = match answer {
            Ok(written) => return written,
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == ErrorCode::ConstraintViolation =>
            {
                TransferWrite::AlreadyRecorded
            }
            Err(e) => match contention(&e, 0) {
                Some(DbOutcome::Busy { .. }) => TransferWrite::Busy,
                _ => panic!("transfer INSERT: unexpected {e:?}"),
            },
        };
        assert_eq!(self.control("ROLLBACK"), None, "ROLLBACK is never busy");
        answer
    }

    /// The producer's `commit_transfer`: `true` once committed, `false` if SQLite answered
    /// busy (the transaction stays open; retry).
    pub fn commit_transfer(&mut self) -> bool {
        assert!(
            !self.conn().is_autocommit(),
            "a transfer transaction is open"
        );
        self.control("COMMIT").is_none()
    }

    /// The oldest unsent row of `table`: its id and the event it is for.
    pub fn next_unsent(&mut self, table: OutboxTable) -> Option<(i64, EventIndex)> {
        let sql = match table {
            OutboxTable::Events => NEXT_OUTBOX,
            OutboxTable::Emails => NEXT_EMAIL,
        };
        let mut row = None;
        self.read(sql, &[], |r| {
            row = Some((r.get(0)?, r.get::<_, i64>(1)? as EventIndex));
            Ok(())
        });
        row
    }

    /// Marks an outbox row sent (autocommit). `false` if SQLite answered busy.
    pub fn mark_sent(&mut self, table: OutboxTable, row: i64) -> bool {
        let sql = match table {
            OutboxTable::Events => MARK_OUTBOX,
            OutboxTable::Emails => MARK_EMAIL,
        };
        match self.write(sql, &[&row]) {
            Ok(n) => {
                assert_eq!(n, 1, "the row the relay read exists");
                true
            }
            Err(e) => match contention(&e, 0) {
                Some(DbOutcome::Busy { .. }) => false,
                _ => panic!("outbox UPDATE: unexpected {e:?}"),
            },
        }
    }

    /// The transfers committed in this (producer's) database: the business intents.
    pub fn committed_transfers(&mut self) -> BTreeSet<String> {
        assert!(self.conn().is_autocommit(), "committed state only");
        let mut out = BTreeSet::new();
        self.read(TRANSFERS, &[], |r| {
            out.insert(r.get(0)?);
            Ok(())
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType;
    use crate::store::tests::{accounts, apply};
    use crate::store::StoreConfig;

    fn event(index: usize, event_id: &str) -> Event {
        Event {
            index,
            event_id: event_id.into(),
            event_type: EventType::TransferCreated,
            transfer_id: "tr_00000".into(),
            source: "acc_00001".into(),
            target: "acc_00002".into(),
            amount_minor: 10,
        }
    }

    #[test]
    fn an_outbox_row_is_visible_to_the_relay_only_after_commit() {
        let dir = tempfile::tempdir().unwrap();
        let mut conns =
            Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap();
        let (producer, relay) = conns.split_at_mut(1);
        let (producer, relay) = (&mut producer[0], &mut relay[0]);
        let e = event(0, "id-0");
        assert_eq!(
            producer.insert_transfer(&e, true, 1),
            TransferWrite::Recorded
        );
        assert_eq!(relay.next_unsent(OutboxTable::Events), None, "uncommitted");
        assert!(producer.commit_transfer());
        assert_eq!(relay.next_unsent(OutboxTable::Events), Some((1, 0)));
        assert!(relay.mark_sent(OutboxTable::Events, 1));
        assert_eq!(relay.next_unsent(OutboxTable::Events), None);
        assert_eq!(
            producer.insert_transfer(&e, true, 2),
            TransferWrite::AlreadyRecorded,
            "a retried request finds its transfer"
        );
        assert!(!producer.in_transaction());
        assert_eq!(producer.committed_transfers().len(), 1);
    }

    #[test]
    fn the_business_key_refuses_a_second_event_for_the_same_transfer() {
        let config = StoreConfig {
            business_key_unique: true,
            ..StoreConfig::default()
        };
        let mut s = Store::open_in_memory(&config, &accounts()).unwrap();
        let (first, second) = (event(0, "id-0"), event(1, "id-1"));
        assert_eq!(s.execute(apply(&first, false), 1), DbOutcome::Applied);
        assert_eq!(
            s.execute(apply(&second, false), 2),
            DbOutcome::BusinessDuplicate
        );
        let c = s.committed_state();
        assert_eq!(c.ledger_by_transfer["tr_00000"].debits, 1);
        assert!(!c.ledger.contains_key("id-1"));
    }

    #[test]
    fn without_the_business_key_two_events_move_the_money_twice() {
        let mut s = Store::open_in_memory(&StoreConfig::default(), &accounts()).unwrap();
        for (i, id) in ["id-0", "id-1"].into_iter().enumerate() {
            let e = event(i, id);
            let op = apply(&e, false);
            assert_eq!(s.execute(op, 1), DbOutcome::Applied);
        }
        assert_eq!(s.committed_state().ledger_by_transfer["tr_00000"].debits, 2);
    }

    #[test]
    fn without_the_outbox_a_transfer_writes_no_outbox_row() {
        for outbox in [false, true] {
            let mut s = Store::open_in_memory(&StoreConfig::default(), &accounts()).unwrap();
            let e = event(0, "id-0");
            assert_eq!(s.insert_transfer(&e, outbox, 1), TransferWrite::Recorded);
            assert!(s.commit_transfer());
            assert_eq!(
                s.next_unsent(OutboxTable::Events).is_some(),
                outbox,
                "outbox: {outbox}"
            );
        }
    }

    #[test]
    fn a_transfer_blocked_by_another_writer_is_busy_not_already_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let mut conns =
            Store::open_shared(dir.path(), &StoreConfig::default(), &accounts(), 2).unwrap();
        let (first, second) = conns.split_at_mut(1);
        let (first, second) = (&mut first[0], &mut second[0]);
        let other = Event {
            transfer_id: "tr_00009".into(),
            ..event(1, "id-1")
        };
        assert_eq!(
            first.insert_transfer(&other, true, 1),
            TransferWrite::Recorded
        );
        let e = event(0, "id-0");
        assert_eq!(
            second.insert_transfer(&e, true, 2),
            TransferWrite::Busy,
            "the write lock is held: the transfer is not known to exist"
        );
        assert!(!second.in_transaction(), "the busy attempt rolled back");
        assert!(first.commit_transfer());
        assert_eq!(second.insert_transfer(&e, true, 3), TransferWrite::Recorded);
    }

    #[test]
    fn the_outbox_state_tells_committed_changes_apart_and_ignores_times() {
        // The explorer prunes runs whose states are equal: a transfer recorded or an
        // outbox row sent must change the state, and the tick it happened at must not.
        let open = || Store::open_in_memory(&StoreConfig::default(), &accounts()).unwrap();
        let (mut early, mut late) = (open(), open());
        let empty = early.digest(0);
        let e = event(0, "id-0");
        for (store, now) in [(&mut early, 1), (&mut late, 7)] {
            assert_eq!(
                store.insert_transfer(&e, true, now),
                TransferWrite::Recorded
            );
            assert!(store.commit_transfer());
        }
        let recorded = early.digest(0);
        assert_ne!(recorded, empty);
        assert_eq!(recorded, late.digest(0), "times are not part of it");
        assert!(early.mark_sent(OutboxTable::Events, 1));
        assert_ne!(early.digest(0), recorded, "sent or not");
        assert_eq!(
            early.committed_transfers(),
            BTreeSet::from(["tr_00000".to_string()])
        );
    }
}
