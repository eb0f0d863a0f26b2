//! The email relay on PostgreSQL: a connection of its own to the built-in ledger, reading
//! the oldest unsent row of the consumer's `email_outbox` and marking it sent, each
//! statement alone (autocommit), as on SQLite.

use super::lexer::Literal;
use super::session::Exec;
use super::store::PgStore;
use crate::model::EventIndex;
use crate::store::{OutboxTable, RelayDb};

const NEXT_EMAIL: &str = "SELECT email_id, event_index FROM email_outbox WHERE sent = 0 \
     ORDER BY email_id LIMIT 1";
const MARK_EMAIL: &str = "UPDATE email_outbox SET sent = 1 WHERE email_id = :row";

impl RelayDb for PgStore {
    fn next_unsent(&mut self, table: OutboxTable) -> Option<(i64, EventIndex)> {
        emails_only(table);
        // A read waits for no lock (PostgreSQL reads the committed rows beside any writer).
        let ran = match self.run_statement("next_email", NEXT_EMAIL) {
            Exec::Answered(Ok(ran)) => ran,
            Exec::Answered(Err(e)) => panic!("email_outbox SELECT: {}", e.message),
            Exec::Blocked => panic!("a SELECT of committed rows waited for a lock"),
        };
        let row = ran.rows.into_iter().next()?;
        let int = |i: usize| {
            (row.get(i).cloned().flatten())
                .and_then(|v| v.parse::<i64>().ok())
                .expect("email_outbox's columns are integers")
        };
        Some((int(0), int(1) as EventIndex))
    }

    fn mark_sent(&mut self, table: OutboxTable, row: i64) -> bool {
        emails_only(table);
        let values = [("row", Literal::Integer(row))];
        match self.ledger_statement("mark_email", MARK_EMAIL, &values) {
            // A consumer's transaction holds the row: the relay asks again, and this same
            // statement answers once that transaction ended.
            Exec::Blocked => false,
            Exec::Answered(Ok(ran)) => {
                assert_eq!(ran.changed, 1, "the row the relay read exists");
                true
            }
            Exec::Answered(Err(e)) => panic!("email_outbox UPDATE: {}", e.message),
        }
    }
}

/// The producer's outbox is refused on PostgreSQL when the scenario loads.
fn emails_only(table: OutboxTable) {
    assert_eq!(
        table,
        OutboxTable::Emails,
        "the producer's outbox does not run on PostgreSQL"
    );
}
