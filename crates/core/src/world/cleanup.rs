//! The inbox retention job: its runs, and the fast-forward over the ticks where it can
//! find nothing to delete.

use super::*;

impl World<'_> {
    /// One run of the inbox retention job: a bounded `DELETE` of rows older than the TTL,
    /// on its own connection. It runs again `cleanup_every_ticks` later (the next tick after
    /// a full batch, which may have left more behind), but only while something else is
    /// pending: alone, it would keep the run alive forever.
    pub(super) fn cleanup(&mut self, now: Tick) {
        let r = self
            .scenario
            .store
            .retention
            .expect("the job is scheduled only with retention");
        let store = self
            .cleanup_store
            .as_mut()
            .expect("retention opens the job's connection");
        let next = match store.delete_expired_inbox(now, r.ttl_ticks, r.batch) {
            CleanupOutcome::Deleted(ids) if ids.is_empty() => self.idle_cleanup_next(now, r),
            CleanupOutcome::Deleted(ids) => {
                let n = ids.len() as u32;
                self.inbox_rows_deleted += u64::from(n);
                let mut events = Vec::new();
                for id in &ids {
                    if let Some(e) = self.events.iter().position(|e| &e.event_id == id) {
                        self.inbox_expired_at[e].get_or_insert(now);
                        events.push(e);
                    }
                }
                let expired = TraceKind::InboxExpired {
                    rows: n,
                    before_tick: now as i64 - r.ttl_ticks as i64,
                    ttl_ticks: r.ttl_ticks,
                    events,
                };
                self.record(now, Actor::Cleanup, None, expired);
                if n == r.batch {
                    now + 1
                } else {
                    now + r.cleanup_every_ticks
                }
            }
            CleanupOutcome::Busy => {
                self.record(now, Actor::Cleanup, None, TraceKind::CleanupBusy);
                now + r.cleanup_every_ticks
            }
        };
        if !self.queue.is_empty() {
            self.queue.push(next, Occurrence::Cleanup);
        }
    }

    /// When the retention job, having found nothing to delete at `now`, runs next. Every
    /// `cleanup_every_ticks` by the book; but until the next other occurrence nothing else
    /// happens, so the database and its locks stay as they are, and a run of the job finds
    /// something only once a row's TTL has passed: the runs before both record nothing and
    /// change nothing, and are skipped. The job goes on at the first of its ticks at or
    /// after the next other occurrence (where it would be then anyway, after it in the
    /// queue as it would be), or where a row can expire, whichever comes first; never past
    /// the phase's tick limit, where the run stops after the job's last tick before it, as
    /// it would. A test runs scenarios both ways ([`RunOptions::every_cleanup_tick`]).
    pub(super) fn idle_cleanup_next(&mut self, now: Tick, r: crate::store::Retention) -> Tick {
        let every = r.cleanup_every_ticks;
        let first = now + every;
        if self.options.every_cleanup_tick {
            return first;
        }
        let Some((other, _)) = self.queue.peek() else {
            return first;
        };
        // The first of the job's ticks at or after `t`.
        let grid = |t: Tick| now + every * t.saturating_sub(now).div_ceil(every).max(1);
        let mut next = grid(other);
        let store = self.cleanup_store.as_mut().expect("retention opens it");
        if let Some(earliest) = store.earliest_inbox_row() {
            // A row goes once `processed_at < tick - ttl`.
            next = next.min(grid(earliest.saturating_add(r.ttl_ticks).saturating_add(1)));
        }
        if next > self.phase.max_ticks {
            // The job's last tick within the limit, if there is one after `now`.
            let last = now + every * (self.phase.max_ticks.saturating_sub(now) / every);
            next = last.max(first);
        }
        next
    }
}
