//! Every statement the store runs, as a constant: the names say what each is for, and a
//! test reads them all (see `only_processed_at_is_read_by_a_later_statement`).

pub(super) const INSERT_INBOX: &str = "INSERT INTO processed_event
     (event_id, event_type, payload_fingerprint, payload, processed_at)
     VALUES (?1, ?2, ?3, ?4, ?5)";
pub(super) const SELECT_INBOX: &str =
    "SELECT payload_fingerprint FROM processed_event WHERE event_id = ?1 LIMIT 1";
/// The stored payload is read by the statement itself, from the committed inbox row.
pub(super) const INSERT_ALERT: &str = "INSERT INTO payload_alert
     (event_id, stored_payload, received_payload, received_fingerprint, detected_at)
     VALUES (?1,
             COALESCE((SELECT payload FROM processed_event WHERE event_id = ?1 LIMIT 1), ''),
             ?2, ?3, ?4)";
pub(super) const PAYLOAD_ALERTS: &str =
    "SELECT event_id, stored_payload, received_payload, detected_at
     FROM payload_alert ORDER BY alert_id";
pub(super) const CREDIT_AMOUNTS: &str = "SELECT event_id, amount_minor FROM ledger_entry
     WHERE direction = 'credit' ORDER BY entry_id";
pub(super) const INSERT_LEDGER: &str = "INSERT INTO ledger_entry
     (event_id, transfer_id, account, direction, amount_minor, applied_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
pub(super) const UPDATE_BALANCE: &str =
    "UPDATE balance_projection SET balance_minor = balance_minor + ?1 WHERE account = ?2";
pub(super) const SELECT_BALANCE: &str =
    "SELECT balance_minor FROM balance_projection WHERE account = ?1";
pub(super) const SET_BALANCE: &str =
    "UPDATE balance_projection SET balance_minor = ?1 WHERE account = ?2";
pub(super) const LEDGER_BY_ACCOUNT: &str =
    "SELECT account, SUM(amount_minor) FROM ledger_entry GROUP BY account";
pub(super) const LEDGER_BY_EVENT: &str =
    "SELECT event_id, SUM(direction = 'debit'), SUM(direction = 'credit'),
     SUM(direction = 'completion') FROM ledger_entry GROUP BY event_id";
pub(super) const REJECTED_BY_EVENT: &str =
    "SELECT event_id, COUNT(*) FROM rejected_event GROUP BY event_id";
pub(super) const INSERT_TRANSFER: &str =
    "INSERT OR IGNORE INTO transfer_state (transfer_id, status) VALUES (?1, 'created')";
pub(super) const COMPLETE_TRANSFER: &str = "UPDATE transfer_state SET status = 'completed'
     WHERE transfer_id = ?1 AND status = 'created'";
pub(super) const TRANSFER_KNOWN: &str = "SELECT 1 FROM transfer_state WHERE transfer_id = ?1";
pub(super) const INSERT_REJECTED: &str =
    "INSERT INTO rejected_event (event_id, transfer_id, reason, rejected_at)
     VALUES (?1, ?2, 'completion of an unknown transfer', ?3)";
pub(super) const INSERT_PENDING: &str =
    "INSERT INTO pending_event (event_id, transfer_id, event_type, buffered_at)
     VALUES (?1, ?2, ?3, ?4)";
/// The completions that waited for this transfer take effect: one `completion` row each.
pub(super) const APPLY_PENDING: &str = "INSERT INTO ledger_entry
     (event_id, transfer_id, account, direction, amount_minor, applied_at)
     SELECT event_id, transfer_id, ?2, 'completion', 0, ?3
     FROM pending_event WHERE transfer_id = ?1 ORDER BY rowid";
pub(super) const DELETE_PENDING: &str = "DELETE FROM pending_event WHERE transfer_id = ?1";
pub(super) const PENDING_BY_EVENT: &str =
    "SELECT event_id, COUNT(*) FROM pending_event GROUP BY event_id";
/// The seeds' bounded batch: the oldest-by-rowid rows past the TTL, at most `?2` of them.
pub(super) const DELETE_EXPIRED_INBOX: &str = "DELETE FROM processed_event WHERE rowid IN
     (SELECT rowid FROM processed_event WHERE processed_at < ?1 LIMIT ?2)
     RETURNING event_id";
pub(super) const EARLIEST_INBOX_ROW: &str = "SELECT MIN(processed_at) FROM processed_event";
pub(super) const INBOX_BY_EVENT: &str =
    "SELECT event_id, COUNT(*) FROM processed_event GROUP BY event_id";
pub(super) const LEDGER_ROWS_OF_EVENT: &str =
    "SELECT COUNT(*) FROM ledger_entry WHERE event_id = ?1";
pub(super) const INBOX_ROWS_OF_EVENT: &str =
    "SELECT COUNT(*) FROM processed_event WHERE event_id = ?1";
pub(super) const BALANCES: &str = "SELECT account, balance_minor FROM balance_projection";
