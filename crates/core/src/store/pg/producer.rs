//! The producer's database on PostgreSQL: its `transfer` row and, with the outbox, the
//! outbox row in one transaction, on a connection of its own, in the consumers' schema
//! (`producer.database: "shared"`) or in [`PRODUCER_SCHEMA`], a database of its own.
//!
//! Only the producer writes `transfer`, and its relay only marks committed `outbox`
//! rows, so none of these statements waits for a lock, and none reads what another
//! transaction may change (no serialization failure): the producer's answers are those
//! of SQLite, and a wait or a failure here would be a bug of the tool, said as such.

use super::lexer::Literal;
use super::session::Exec;
use super::store::PgStore;
use crate::model::{DbOutcome, Event, Tick};
use crate::store::{ConsumerDb, ProducerDb, StoreOp, TransferWrite};
use std::collections::BTreeSet;

pub(super) use super::store::ledger::PRODUCER_SCHEMA;

const INSERT_TRANSFER_ROW: &str =
    "INSERT INTO transfer (transfer_id, source, target, amount_minor, created_at)
     VALUES (:transfer_id, :source, :target, :amount, :now)";
const INSERT_OUTBOX: &str = "INSERT INTO outbox (transfer_id, event_index, event_id, created_at)
     VALUES (:transfer_id, :event_index, :event_id, :now)";

impl PgStore {
    /// Makes this connection the producer's (or its relay's) to a database of its own,
    /// [`PRODUCER_SCHEMA`], from its first statement on.
    pub fn use_producer_database(&mut self) {
        let session = self.session(0);
        self.run.borrow_mut().set_schema(session, PRODUCER_SCHEMA);
        self.producer_schema = Some(PRODUCER_SCHEMA);
    }

    /// The producer's table `table`, as the control connection names it.
    fn producer_table(&self, table: &str) -> String {
        match self.producer_schema {
            Some(schema) => format!("{schema}.{table}"),
            None => table.to_string(),
        }
    }

    /// One statement of the producer's, which waits for no lock (see the module).
    fn producer_statement(
        &mut self,
        key: &str,
        sql: &str,
        values: &[(&str, Literal)],
    ) -> Result<(), super::session::DbError> {
        match self.ledger_statement(key, sql, values) {
            Exec::Answered(answer) => answer.map(drop),
            Exec::Blocked => panic!("the producer's {key} waited for a lock: only it writes there"),
        }
    }
}

impl ProducerDb for PgStore {
    fn insert_transfer(&mut self, event: &Event, outbox: bool, now: Tick) -> TransferWrite {
        assert!(!self.in_transaction(), "insert_transfer opens its own");
        assert_eq!(self.execute(StoreOp::Begin, now), DbOutcome::Begun);
        let values = [
            ("transfer_id", Literal::Text(event.transfer_id.clone())),
            ("source", Literal::Text(event.source.clone())),
            ("target", Literal::Text(event.target.clone())),
            ("amount", Literal::Integer(event.amount_minor)),
            ("event_index", Literal::Integer(event.index as i64)),
            ("event_id", Literal::Text(event.event_id.clone())),
            ("now", Literal::Integer(now as i64)),
        ];
        let mut written = self.producer_statement("transfer", INSERT_TRANSFER_ROW, &values);
        if outbox && written.is_ok() {
            written = self.producer_statement("outbox", INSERT_OUTBOX, &values);
        }
        match written {
            Ok(()) => TransferWrite::Recorded,
            // PostgreSQL aborted the transaction: it is rolled back, as on SQLite.
            Err(e) if e.is_unique_violation() => {
                assert_eq!(self.execute(StoreOp::Rollback, now), DbOutcome::RolledBack);
                TransferWrite::AlreadyRecorded
            }
            Err(e) => panic!(
                "the producer's INSERT on PostgreSQL: {} ({})",
                e.message, e.code
            ),
        }
    }

    fn commit_transfer(&mut self) -> bool {
        assert!(self.in_transaction(), "a transfer transaction is open");
        let now = self.now;
        match self.execute(StoreOp::Commit, now) {
            DbOutcome::Committed => true,
            other => panic!("the producer's COMMIT on PostgreSQL: {other:?}"),
        }
    }

    fn committed_transfers(&mut self) -> BTreeSet<String> {
        let sql = format!(
            "SELECT transfer_id FROM {} ORDER BY 1",
            self.producer_table("transfer")
        );
        (self.control_rows(&sql).into_iter())
            .filter_map(|r| r.into_iter().next().flatten())
            .collect()
    }
}

/// On a real server (feature `postgres`).
#[cfg(all(test, feature = "postgres-tests"))]
mod tests {
    use super::*;
    use crate::model::EventType;
    use crate::store::{OutboxTable, RelayDb, StoreConfig};

    #[test]
    fn the_producers_own_database_is_a_schema_apart_and_a_retried_request_finds_its_row() {
        let config = StoreConfig {
            engine: crate::model::Engine::Postgres,
            ..StoreConfig::default()
        };
        let accounts = crate::store::tests::accounts();
        let events = std::rc::Rc::new(Vec::new());
        let mut stores = super::super::open_run(&config, &accounts, 1, 3, events).unwrap();
        let mut relay = stores.pop().unwrap();
        let mut producer = stores.pop().unwrap();
        producer.use_producer_database();
        relay.use_producer_database();
        let e = Event {
            index: 0,
            event_id: "id-0".into(),
            event_type: EventType::TransferCreated,
            transfer_id: "tr_00000".into(),
            source: "acc_00001".into(),
            target: "acc_00002".into(),
            amount_minor: 10,
        };
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
        assert!(!producer.in_transaction(), "and rolled back");
        assert_eq!(producer.committed_transfers().len(), 1);
        // The consumers' schema has a `transfer` of its own, which nothing wrote.
        assert!(stores[0].committed_transfers().is_empty());
    }
}
