//! The transfer lifecycle on PostgreSQL (`workload.lifecycle`): a creation records its
//! transfer in `transfer_state`; a completion marks it completed and writes a
//! `completion` ledger row, or, for a transfer the projection does not know, is rejected
//! or buffered (`store.out_of_order`) until its creation releases it, as on SQLite.
//!
//! What differs is what the server answers. At READ COMMITTED a completion does not see
//! a creation that has not committed: it is rejected (or buffered) beside it, where
//! SQLite's single writer would have made one wait for the other; and a buffered
//! completion committed while its creation's transaction reads `pending_event` is not
//! released by it. Those are PostgreSQL's answers, and the checker judges them.

use super::lexer::Literal;
use super::session::Exec;
use super::store::PgStore;
use crate::model::{DbOutcome, Event, Tick};
use crate::store::OutOfOrder;

/// A transfer the projection has seen created; a second creation changes nothing (and
/// waits for an uncommitted first one, then does nothing).
const INSERT_TRANSFER_STATE: &str = "INSERT INTO transfer_state (transfer_id, status)
     VALUES (:transfer_id, 'created') ON CONFLICT (transfer_id) DO NOTHING";
const COMPLETE_TRANSFER: &str = "UPDATE transfer_state SET status = 'completed'
     WHERE transfer_id = :transfer_id AND status = 'created'";
const TRANSFER_KNOWN: &str = "SELECT 1 FROM transfer_state WHERE transfer_id = :transfer_id";
const INSERT_COMPLETION: &str = "INSERT INTO ledger_entry
     (event_id, transfer_id, account, direction, amount_minor, applied_at)
     VALUES (:event_id, :transfer_id, :account, 'completion', 0, :now)";
const INSERT_REJECTED: &str = "INSERT INTO rejected_event
     (event_id, transfer_id, reason, rejected_at)
     VALUES (:event_id, :transfer_id, 'completion of an unknown transfer', :now)";
const INSERT_PENDING: &str = "INSERT INTO pending_event
     (event_id, transfer_id, event_type, buffered_at)
     VALUES (:event_id, :transfer_id, :event_type, :now)";
/// The completions that waited for this transfer take effect: one `completion` row each,
/// in the order they arrived.
const APPLY_PENDING: &str = "INSERT INTO ledger_entry
     (event_id, transfer_id, account, direction, amount_minor, applied_at)
     SELECT event_id, transfer_id, :account, 'completion', 0, :now
     FROM pending_event WHERE transfer_id = :transfer_id ORDER BY seq";
const DELETE_PENDING: &str = "DELETE FROM pending_event WHERE transfer_id = :transfer_id";

impl PgStore {
    /// After a creation's effect: its transfer recorded (statement 4) and, when
    /// completions are buffered, the ones that waited for it released (5 to 7).
    pub(super) fn track_transfer(&mut self, event: &Event, done: u8, now: Tick) -> DbOutcome {
        if done <= 4 {
            let values = self.lifecycle_values(event, now);
            match self.ledger_statement("transfer_state", INSERT_TRANSFER_STATE, &values) {
                Exec::Blocked => return DbOutcome::Blocked { done: 4 },
                Exec::Answered(Ok(_)) => {}
                Exec::Answered(Err(e)) => {
                    return super::store::ledger::unexpected("transfer_state", &e)
                }
            }
        }
        if self.out_of_order == OutOfOrder::Buffer {
            return self.release_pending(event, done, now);
        }
        DbOutcome::Applied
    }

    /// A `TransferCompleted`: its transfer marked completed and a `completion` row (`done`
    /// 1 once the mark took effect), or, for an unknown transfer, a rejection or a buffered
    /// row (`done` 2 once that was decided), each statement resumed where it waited.
    pub(super) fn complete(&mut self, event: &Event, done: u8, now: Tick) -> DbOutcome {
        let values = self.lifecycle_values(event, now);
        let mut step = done;
        if step == 0 {
            match self.ledger_statement("complete", COMPLETE_TRANSFER, &values) {
                Exec::Blocked => return DbOutcome::Blocked { done: 0 },
                Exec::Answered(Ok(ran)) if ran.changed == 1 => step = 1,
                Exec::Answered(Ok(_)) => {
                    // A read waits for no lock: what this transaction sees of the transfer.
                    match self.ledger_statement("transfer_known", TRANSFER_KNOWN, &values) {
                        Exec::Answered(Ok(ran)) if !ran.rows.is_empty() => {
                            return DbOutcome::AlreadyCompleted
                        }
                        Exec::Answered(Ok(_)) => step = 2,
                        Exec::Answered(Err(e)) => {
                            return super::store::ledger::unexpected("transfer_state SELECT", &e)
                        }
                        Exec::Blocked => {
                            unreachable!("a SELECT without FOR UPDATE waits for no lock")
                        }
                    }
                }
                Exec::Answered(Err(e)) => {
                    return super::store::ledger::unexpected("completion", &e)
                }
            }
        }
        let (sql, key, outcome) = match step {
            1 => (INSERT_COMPLETION, "completion_row", DbOutcome::Applied),
            _ if self.out_of_order == OutOfOrder::Buffer => {
                (INSERT_PENDING, "pending", DbOutcome::Buffered)
            }
            _ => (INSERT_REJECTED, "rejected", DbOutcome::Rejected),
        };
        match self.ledger_statement(key, sql, &values) {
            Exec::Blocked => DbOutcome::Blocked { done: step },
            Exec::Answered(Ok(_)) => outcome,
            Exec::Answered(Err(e)) => super::store::ledger::unexpected(key, &e),
        }
    }

    /// After a creation, with buffered completions: those that waited for its transfer
    /// applied, the transfer marked completed, the buffered rows deleted, in the
    /// creation's own transaction (`done` 5, 6 and 7 resume at the one that waited).
    fn release_pending(&mut self, event: &Event, done: u8, now: Tick) -> DbOutcome {
        let values = self.lifecycle_values(event, now);
        if done <= 5 {
            match self.ledger_statement("apply_pending", APPLY_PENDING, &values) {
                Exec::Blocked => return DbOutcome::Blocked { done: 5 },
                Exec::Answered(Ok(ran)) if ran.changed == 0 => return DbOutcome::Applied,
                Exec::Answered(Ok(_)) => {}
                Exec::Answered(Err(e)) => {
                    return super::store::ledger::unexpected("apply_pending", &e)
                }
            }
        }
        if done <= 6 {
            match self.ledger_statement("complete_pending", COMPLETE_TRANSFER, &values) {
                Exec::Blocked => return DbOutcome::Blocked { done: 6 },
                Exec::Answered(Ok(_)) => {}
                Exec::Answered(Err(e)) => {
                    return super::store::ledger::unexpected("complete_pending", &e)
                }
            }
        }
        match self.ledger_statement("delete_pending", DELETE_PENDING, &values) {
            Exec::Blocked => DbOutcome::Blocked { done: 7 },
            Exec::Answered(Ok(_)) => DbOutcome::AppliedWithPending,
            Exec::Answered(Err(e)) => super::store::ledger::unexpected("delete_pending", &e),
        }
    }

    /// The parameters the lifecycle's statements name.
    fn lifecycle_values(&self, event: &Event, now: Tick) -> Vec<(&'static str, Literal)> {
        vec![
            ("event_id", Literal::Text(event.event_id.clone())),
            ("transfer_id", Literal::Text(event.transfer_id.clone())),
            (
                "event_type",
                Literal::Text(event.event_type.as_str().to_string()),
            ),
            ("account", Literal::Text(event.source.clone())),
            ("now", Literal::Integer(now as i64)),
        ]
    }
}
