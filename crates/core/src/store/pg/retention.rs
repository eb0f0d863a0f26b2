//! The inbox retention job on PostgreSQL: a connection of its own to the built-in ledger,
//! deleting expired inbox rows in bounded batches (one autocommitted statement each, as on
//! SQLite), in the order they were inserted.

use super::lexer::Literal;
use super::session::Exec;
use super::store::PgStore;
use crate::model::Tick;
use crate::store::{CleanupDb, CleanupOutcome};

/// At most `:batch` rows older than `:cutoff`, the first inserted first (as SQLite's scan
/// in rowid order takes them), their events in that order.
const DELETE_EXPIRED_INBOX: &str = "WITH gone AS (DELETE FROM processed_event WHERE seq IN \
     (SELECT seq FROM processed_event WHERE processed_at < :cutoff ORDER BY seq LIMIT :batch) \
     RETURNING seq, event_id) SELECT event_id FROM gone ORDER BY seq";

impl CleanupDb for PgStore {
    fn delete_expired_inbox(&mut self, now: Tick, ttl_ticks: Tick, batch: u32) -> CleanupOutcome {
        let cutoff = now as i64 - ttl_ticks as i64;
        let values = [
            ("cutoff", Literal::Integer(cutoff)),
            ("batch", Literal::Integer(i64::from(batch))),
        ];
        // A row a consumer's open transaction locked makes the job wait: its next run waits
        // for that same statement (the rows older than the first run's cutoff).
        match self.ledger_statement("cleanup", DELETE_EXPIRED_INBOX, &values) {
            Exec::Blocked => CleanupOutcome::Busy,
            Exec::Answered(Ok(ran)) => CleanupOutcome::Deleted(
                (ran.rows.into_iter())
                    .filter_map(|r| r.into_iter().next().flatten())
                    .collect(),
            ),
            Exec::Answered(Err(e)) => panic!("inbox cleanup: {}", e.message),
        }
    }

    fn earliest_inbox_row(&mut self) -> Option<Tick> {
        self.committed_value("SELECT min(processed_at) FROM processed_event")
            .and_then(|v| v.parse::<i64>().ok())
            .map(|t| Tick::try_from(t).unwrap_or(0))
    }
}
