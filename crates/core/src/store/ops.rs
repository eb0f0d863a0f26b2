//! The operations a process asks of its connection ([`Store::execute`]), and what SQLite's
//! answers mean for the simulation.

use super::*;

/// What a failed statement means for the simulation: lock contention is a scheduling event
/// (wait, or roll back on a stale snapshot); anything else is a bug of ours.
pub(super) fn contention(e: &rusqlite::Error, done: u8) -> Option<DbOutcome> {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_BUSY_SNAPSHOT =>
        {
            Some(DbOutcome::StaleSnapshot)
        }
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) =>
        {
            Some(DbOutcome::Busy { done })
        }
        _ => None,
    }
}

impl Store {
    /// Runs one operation at virtual time `now`. Lock contention comes back as
    /// [`DbOutcome::Busy`] or [`DbOutcome::StaleSnapshot`]; other SQLite errors than the
    /// inbox's unique violation are bugs of the simulator (the schema and statements are
    /// ours), so they panic with the statement that failed.
    pub fn execute(&mut self, op: StoreOp<'_>, now: Tick) -> DbOutcome {
        let rolled_back_by_sqlite = std::mem::take(&mut self.rolled_back_by_sqlite);
        match op {
            StoreOp::Begin => self.transaction_on(0, "BEGIN", DbOutcome::Begun),
            StoreOp::CheckInbox { event } => match self.stored_fingerprint(event) {
                None => DbOutcome::NotFound,
                Some(stored) if stored == payload_fingerprint(&event.payload()) => DbOutcome::Found,
                Some(_) => DbOutcome::PayloadMismatch,
            },
            StoreOp::InsertInbox { event } => self.insert_inbox(event, now),
            StoreOp::ApplyEffect(effect) => self.apply_effect(effect, now),
            StoreOp::RecordPayloadAlert { event } => self.record_alert(event, now),
            StoreOp::Commit => self.transaction_on(0, "COMMIT", DbOutcome::Committed),
            StoreOp::EnqueueEmail { event } => {
                match self.write(
                    outbox::INSERT_EMAIL,
                    &[&event.event_id, &(event.index as i64), &(now as i64)],
                ) {
                    Ok(_) => DbOutcome::EmailQueued,
                    Err(e) => contention(&e, 0)
                        .unwrap_or_else(|| panic!("email_outbox INSERT: unexpected {e:?}")),
                }
            }
            StoreOp::Rollback => {
                let open: Vec<u8> = (0..=self.others.len() as u8)
                    .filter(|db| !self.conn_at(*db).is_autocommit())
                    .collect();
                assert!(
                    !open.is_empty() || rolled_back_by_sqlite,
                    "ROLLBACK outside a transaction"
                );
                for db in open {
                    self.transaction_on(db, "ROLLBACK", DbOutcome::RolledBack);
                }
                DbOutcome::RolledBack
            }
            StoreOp::BeginOn(db) => self.transaction_on(db, "BEGIN", DbOutcome::Begun),
            StoreOp::CommitOn(db) => self.transaction_on(db, "COMMIT", DbOutcome::Committed),
            // SQLite itself rolled the transaction back when its statement failed.
            StoreOp::RollbackOn(db)
                if rolled_back_by_sqlite && self.conn_at(db).is_autocommit() =>
            {
                DbOutcome::RolledBack
            }
            StoreOp::RollbackOn(db) => self.transaction_on(db, "ROLLBACK", DbOutcome::RolledBack),
        }
    }

    /// `BEGIN`, `COMMIT` or `ROLLBACK` on database `db` (0: the main one): `done` when it
    /// ran, else the lock contention that stopped it. A `BEGIN` inside a transaction, or
    /// the others outside one, is a bug of the consumer's bookkeeping.
    fn transaction_on(&mut self, db: u8, sql: &'static str, done: DbOutcome) -> DbOutcome {
        let open = !self.conn_at(db).is_autocommit();
        assert_eq!(
            open,
            sql != "BEGIN",
            "{sql} with a transaction open: {open}"
        );
        let answer = match db {
            0 => self.control(sql),
            _ => self.control_on(db, sql),
        };
        answer.unwrap_or(done)
    }

    /// The inbox `INSERT`: a duplicate is told by the unique constraint, then the stored
    /// payload is read to tell a duplicate from a corruption.
    fn insert_inbox(&mut self, event: &Event, now: Tick) -> DbOutcome {
        let payload = event.payload();
        let fingerprint = payload_fingerprint(&payload);
        let result = self.write(
            INSERT_INBOX,
            &[
                &event.event_id,
                &event.event_type.as_str(),
                &fingerprint,
                &payload,
                &(now as i64),
            ],
        );
        match result {
            Ok(1) => DbOutcome::Inserted,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == ErrorCode::ConstraintViolation =>
            {
                // The constraint said "already there"; only then is the stored
                // payload read, to tell a duplicate from a corruption.
                match self.stored_fingerprint(event) {
                    Some(stored) if stored != fingerprint => DbOutcome::PayloadMismatch,
                    _ => DbOutcome::Duplicate,
                }
            }
            Err(e) => contention(&e, 0).unwrap_or_else(|| panic!("inbox INSERT: unexpected {e:?}")),
            Ok(n) => panic!("inbox INSERT changed {n} rows"),
        }
    }

    /// The business effect: two ledger rows and two balance updates (or, for a
    /// read-modify-write, a read on the first turn and absolute writes on the next), from
    /// statement `done` on when SQLite answered busy halfway.
    fn apply_effect(&mut self, effect: EffectArgs<&Event>, now: Tick) -> DbOutcome {
        let (event, fail_credit, done) = (effect.event, effect.fail_credit, effect.done);
        let (read, track_transfer) = (effect.read, effect.track_transfer);
        if event.event_type == EventType::TransferCompleted {
            return self.complete(event, done, now);
        }
        let rmw = self.effect == EffectMode::ReadModifyWrite;
        let read = match (rmw, read) {
            (true, None) => {
                let mut balances = [0i64; 2];
                for (i, account) in [&event.source, &event.target].into_iter().enumerate() {
                    self.read(SELECT_BALANCE, &[account], |r| {
                        balances[i] = r.get(0)?;
                        Ok(())
                    });
                }
                return DbOutcome::BalancesRead {
                    source: balances[0],
                    target: balances[1],
                };
            }
            (_, read) => read,
        };
        for st in effect_statements(event, done) {
            let (direction, account, delta) = (st.direction, st.account, st.delta);
            if direction == "credit" && fail_credit {
                return DbOutcome::CreditFailed;
            }
            let result = if st.ledger_row {
                self.write(
                    INSERT_LEDGER,
                    &[
                        &event.event_id,
                        &event.transfer_id,
                        &account,
                        &direction,
                        &delta,
                        &(now as i64),
                    ],
                )
            } else {
                match read {
                    // Writes back an absolute value computed from the earlier read.
                    Some(read) => self.write(SET_BALANCE, &[&st.balance_after(read), &account]),
                    None => self.write(UPDATE_BALANCE, &[&delta, &account]),
                }
                .inspect(|&n| assert_eq!(n, 1, "account {account} exists in balance_projection"))
            };
            match result {
                Err(rusqlite::Error::SqliteFailure(f, _))
                    if f.code == ErrorCode::ConstraintViolation && st.ledger_row =>
                {
                    return DbOutcome::BusinessDuplicate;
                }
                Err(e) => {
                    return contention(&e, st.index)
                        .unwrap_or_else(|| panic!("{direction} of {}: {e}", event.event_id))
                }
                Ok(_) => {}
            }
        }
        if track_transfer && done <= 4 {
            if let Err(e) = self.write(INSERT_TRANSFER, &[&event.transfer_id]) {
                return contention(&e, 4).unwrap_or_else(|| panic!("transfer_state INSERT: {e}"));
            }
        }
        if track_transfer && self.out_of_order == OutOfOrder::Buffer {
            return self.release_pending(event, done, now);
        }
        DbOutcome::Applied
    }

    /// The payload alert, committed on its own after the rollback; its unique constraint
    /// keeps a redelivery from recording it twice.
    fn record_alert(&mut self, event: &Event, now: Tick) -> DbOutcome {
        assert!(
            self.conn().is_autocommit(),
            "an alert is committed on its own, after the rollback"
        );
        let payload = event.payload();
        let result = self.write(
            INSERT_ALERT,
            &[
                &event.event_id,
                &payload,
                &payload_fingerprint(&payload),
                &(now as i64),
            ],
        );
        match result {
            Ok(1) => DbOutcome::AlertRecorded,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == ErrorCode::ConstraintViolation =>
            {
                DbOutcome::AlertExists
            }
            Err(e) => contention(&e, 0)
                .unwrap_or_else(|| panic!("payload_alert INSERT: unexpected {e:?}")),
            Ok(n) => panic!("payload_alert INSERT changed {n} rows"),
        }
    }

    /// The payload fingerprint the inbox holds for `event`'s id, if a row is there.
    pub(super) fn stored_fingerprint(&mut self, event: &Event) -> Option<String> {
        let mut stored = None;
        self.read(SELECT_INBOX, &[&event.event_id], |r| {
            stored = Some(r.get(0)?);
            Ok(())
        });
        stored
    }

    /// A `TransferCompleted`: marks its transfer completed and writes a `completion` ledger
    /// row, or records a rejection if the transfer is unknown. `done`: 1 once the status
    /// UPDATE took effect, 2 once the rejection was decided (for retries after busy).
    pub(super) fn complete(&mut self, event: &Event, done: u8, now: Tick) -> DbOutcome {
        let busy = |e: rusqlite::Error, at: u8| {
            contention(&e, at).unwrap_or_else(|| panic!("completion of {}: {e}", event.event_id))
        };
        let mut step = done;
        if step == 0 {
            match self.write(COMPLETE_TRANSFER, &[&event.transfer_id]) {
                Ok(1) => step = 1,
                Ok(_) => {
                    let mut known = false;
                    self.read(TRANSFER_KNOWN, &[&event.transfer_id], |_| {
                        known = true;
                        Ok(())
                    });
                    if known {
                        return DbOutcome::AlreadyCompleted;
                    }
                    step = 2;
                }
                Err(e) => return busy(e, 0),
            }
        }
        if step == 1 {
            return match self.write(
                INSERT_LEDGER,
                &[
                    &event.event_id,
                    &event.transfer_id,
                    &event.source,
                    &"completion",
                    &0i64,
                    &(now as i64),
                ],
            ) {
                Ok(_) => DbOutcome::Applied,
                Err(e) => busy(e, 1),
            };
        }
        if self.out_of_order == OutOfOrder::Buffer {
            return match self.write(
                INSERT_PENDING,
                &[
                    &event.event_id,
                    &event.transfer_id,
                    &event.event_type.as_str(),
                    &(now as i64),
                ],
            ) {
                Ok(_) => DbOutcome::Buffered,
                Err(e) => busy(e, 2),
            };
        }
        match self.write(
            INSERT_REJECTED,
            &[&event.event_id, &event.transfer_id, &(now as i64)],
        ) {
            Ok(_) => DbOutcome::Rejected,
            Err(e) => busy(e, 2),
        }
    }

    /// After a `TransferCreated` with [`OutOfOrder::Buffer`]: applies the completions that
    /// waited in `pending_event` for its transfer (a `completion` row each, the transfer
    /// marked completed) and deletes them, in the creation's own transaction. Three
    /// statements, each atomic: `done` 5, 6 and 7 resume after busy at the one that was
    /// refused (6 and 7 only happen when some completion was waiting).
    pub(super) fn release_pending(&mut self, event: &Event, done: u8, now: Tick) -> DbOutcome {
        let busy = |e: rusqlite::Error, at: u8| {
            contention(&e, at)
                .unwrap_or_else(|| panic!("pending completions of {}: {e}", event.transfer_id))
        };
        if done <= 5 {
            match self.write(
                APPLY_PENDING,
                &[&event.transfer_id, &event.source, &(now as i64)],
            ) {
                Ok(0) => return DbOutcome::Applied,
                Ok(_) => {}
                Err(e) => return busy(e, 5),
            }
        }
        if done <= 6 {
            if let Err(e) = self.write(COMPLETE_TRANSFER, &[&event.transfer_id]) {
                return busy(e, 6);
            }
        }
        match self.write(DELETE_PENDING, &[&event.transfer_id]) {
            Ok(_) => DbOutcome::AppliedWithPending,
            Err(e) => busy(e, 7),
        }
    }

    /// `BEGIN`, `COMMIT` or `ROLLBACK`, prepared once per connection like every statement.
    /// Returns the contention outcome if SQLite answered busy.
    /// `BEGIN`, `COMMIT` or `ROLLBACK` on named database `db` (from 1): `None` when done,
    /// else the lock contention that stopped it.
    fn control_on(&mut self, db: u8, sql: &'static str) -> Option<DbOutcome> {
        match self.conn_at(db).execute_batch(sql) {
            Ok(()) => {
                // A new transaction has written nothing; an ended one has nothing open.
                self.others_wrote[usize::from(db) - 1] = false;
                None
            }
            Err(e) => Some(self.refused(sql, &e)),
        }
    }

    pub(super) fn control(&mut self, sql: &'static str) -> Option<DbOutcome> {
        match self.write(sql, &[]) {
            Ok(_) => None,
            Err(e) => Some(self.refused(sql, &e)),
        }
    }

    /// What SQLite's refusal `e` of transaction statement `sql` means: lock contention, or
    /// a `COMMIT` a deferred foreign key of the scenario's own schema refused (the
    /// transaction stays open). Anything else is a bug of ours.
    fn refused(&self, sql: &str, e: &rusqlite::Error) -> DbOutcome {
        let deferred_key = matches!(e, rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY);
        if sql == "COMMIT" && deferred_key && self.custom.is_some() {
            return DbOutcome::CommitRefused;
        }
        contention(e, 0).unwrap_or_else(|| panic!("{sql}: {e}"))
    }
}
