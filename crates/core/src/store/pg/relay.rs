//! The relays on PostgreSQL: a connection of its own to the outbox it drains (the
//! consumer's `email_outbox` in the ledger, or the producer's `outbox` in the producer's
//! database), reading the oldest unsent row and marking it sent, each statement alone
//! (autocommit), as on SQLite.

use super::lexer::Literal;
use super::session::Exec;
use super::store::PgStore;
use crate::model::EventIndex;
use crate::store::{OutboxTable, RelayDb};

const NEXT_EMAIL: &str = "SELECT email_id, event_index FROM email_outbox WHERE sent = 0 \
     ORDER BY email_id LIMIT 1";
const MARK_EMAIL: &str = "UPDATE email_outbox SET sent = 1 WHERE email_id = :row";
const NEXT_OUTBOX: &str = "SELECT outbox_id, event_index FROM outbox WHERE sent = 0 \
     ORDER BY outbox_id LIMIT 1";
const MARK_OUTBOX: &str = "UPDATE outbox SET sent = 1 WHERE outbox_id = :row";

/// The statements that read and mark `table`'s rows.
fn statements(table: OutboxTable) -> (&'static str, &'static str) {
    match table {
        OutboxTable::Emails => (NEXT_EMAIL, MARK_EMAIL),
        OutboxTable::Events => (NEXT_OUTBOX, MARK_OUTBOX),
    }
}

impl RelayDb for PgStore {
    fn next_unsent(&mut self, table: OutboxTable) -> Option<(i64, EventIndex)> {
        // A read waits for no lock (PostgreSQL reads the committed rows beside any writer).
        let ran = match self.run_statement("next_row", statements(table).0) {
            Exec::Answered(Ok(ran)) => ran,
            Exec::Answered(Err(e)) => panic!("{table:?} SELECT: {}", e.message),
            Exec::Blocked => panic!("a SELECT of committed rows waited for a lock"),
        };
        let row = ran.rows.into_iter().next()?;
        let int = |i: usize| {
            (row.get(i).cloned().flatten())
                .and_then(|v| v.parse::<i64>().ok())
                .expect("an outbox's columns are integers")
        };
        Some((int(0), int(1) as EventIndex))
    }

    fn mark_sent(&mut self, table: OutboxTable, row: i64) -> bool {
        let values = [("row", Literal::Integer(row))];
        match self.ledger_statement("mark_row", statements(table).1, &values) {
            // A consumer's transaction holds the row: the relay asks again, and this same
            // statement answers once that transaction ended.
            Exec::Blocked => false,
            Exec::Answered(Ok(ran)) => {
                assert_eq!(ran.changed, 1, "the row the relay read exists");
                true
            }
            Exec::Answered(Err(e)) => panic!("{table:?} UPDATE: {}", e.message),
        }
    }
}
