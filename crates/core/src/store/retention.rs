//! The inbox retention job's statements: deleting expired inbox rows in bounded batches,
//! and finding the oldest row left; [`CleanupDb`], the job's connection as the world's
//! executor sees it, on SQLite ([`Store`]) or PostgreSQL (`pg::PgStore`).

use super::*;

/// The retention job's connection to the consumers' database (a connection like a
/// consumer's: whether it is inside a transaction, and the local store behind it).
pub trait CleanupDb: ConsumerDb {
    /// Deletes at most `batch` inbox rows whose `processed_at` is more than `ttl_ticks`
    /// before `now`, in one autocommitted statement: the events whose rows went.
    fn delete_expired_inbox(&mut self, now: Tick, ttl_ticks: Tick, batch: u32) -> CleanupOutcome;

    /// The earliest `processed_at` of any committed inbox row, `None` when there is none.
    fn earliest_inbox_row(&mut self) -> Option<Tick>;
}

impl CleanupDb for Store {
    fn delete_expired_inbox(&mut self, now: Tick, ttl_ticks: Tick, batch: u32) -> CleanupOutcome {
        Store::delete_expired_inbox(self, now, ttl_ticks, batch)
    }

    fn earliest_inbox_row(&mut self) -> Option<Tick> {
        Store::earliest_inbox_row(self)
    }
}

impl Store {
    /// The cleanup job, at virtual time `now`: deletes at most `batch` inbox rows whose
    /// `processed_at` is more than `ttl_ticks` ago, in one autocommitted statement (the
    /// seeds' bounded batch). Returns how many it deleted, or busy if another connection
    /// holds the write lock.
    /// (`RETURNING` names the events whose rows went, for the report.)
    pub fn delete_expired_inbox(
        &mut self,
        now: Tick,
        ttl_ticks: Tick,
        batch: u32,
    ) -> CleanupOutcome {
        assert!(
            self.conn().is_autocommit(),
            "the cleanup job runs no transaction"
        );
        let cutoff = now as i64 - ttl_ticks as i64;
        let params: [&dyn ToSql; 2] = [&cutoff, &i64::from(batch)];
        self.remember(DELETE_EXPIRED_INBOX, &params, StatementKind::Query);
        let deleted = (|| {
            let mut stmt = self.conn().prepare_cached(DELETE_EXPIRED_INBOX)?;
            let mut rows = stmt.query(&params[..])?;
            let mut ids = Vec::new();
            while let Some(r) = rows.next()? {
                ids.push(r.get(0)?);
            }
            Ok(ids)
        })();
        match deleted {
            Ok(ids) => CleanupOutcome::Deleted(ids),
            Err(e) => match contention(&e, 0) {
                Some(_) => CleanupOutcome::Busy,
                None => panic!("inbox cleanup: {e}"),
            },
        }
    }

    /// For the cleanup job: the earliest `processed_at` of any inbox row, through this
    /// connection (outside any transaction), or `None` when the inbox is empty. Tells when
    /// the job can next find a row to delete. Not logged with the run's statements.
    pub fn earliest_inbox_row(&mut self) -> Option<Tick> {
        assert!(
            self.conn().is_autocommit(),
            "the cleanup job runs no transaction"
        );
        let earliest: Option<i64> = self
            .conn()
            .prepare_cached(EARLIEST_INBOX_ROW)
            .and_then(|mut stmt| stmt.query_row([], |r| r.get(0)))
            .unwrap_or_else(|e| panic!("earliest inbox row: {e}"));
        earliest.map(|t| Tick::try_from(t).unwrap_or(0))
    }
}
