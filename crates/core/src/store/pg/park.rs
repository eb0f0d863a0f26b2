//! Waiters released one at a time, so that the run stays deterministic when several
//! statements wait for what one transaction holds.
//!
//! When a transaction ends, PostgreSQL wakes every statement that waited for it at once,
//! and those that then want the same row race for it: at READ COMMITTED an `UPDATE`
//! woken by the commit of the row's last writer follows the row to its new version and
//! locks it there (EvalPlanQual), and whichever woken backend gets there first wins. Two
//! runs of the same schedule could then end differently. So before the run sends a
//! statement or terminates a backend (anything that can end a transaction) while two or
//! more of its statements wait, all but one are **parked**: cancelled and rolled back to a
//! savepoint sent just before them, which undoes the statement and nothing else. Once the
//! server has settled, each is sent again, in the order they began to wait, the server
//! settling after each. From the actors' side nothing changed: each still waits, and
//! answers at a later turn.
//!
//! The one kept is the first to wait (it was sent while nothing waited, so without a
//! savepoint, and cannot be parked). A statement is sent after a savepoint only when it
//! is inside a transaction and another statement waits: only then may it have to be
//! parked. Such a statement that fails would abort only its savepoint, where PostgreSQL
//! aborts the whole transaction and releases all its locks at once: so the tool then rolls
//! the transaction back itself, at once ([`RunDb::abort_failed`]), and answers the actor's
//! next statements as PostgreSQL answers in an aborted transaction until it ends it.

use super::session::{count, Answer, DbError, Pending, Ran, Request, RunDb};

/// A statement cancelled while it waited, to be sent again.
pub(super) struct Parked {
    session: usize,
    request: Request,
    waiting_since: Option<u64>,
}

impl RunDb {
    /// Whether any statement of the run waits for a lock.
    pub(super) fn any_blocked(&self) -> bool {
        (0..self.sessions.len()).any(|j| self.blocked(j))
    }

    /// Parks every waiting statement but one (and but `except`'s, about to act), when two
    /// or more wait; returns them in the order they began to wait.
    pub(super) fn park_racers(&mut self, except: usize) -> Vec<Parked> {
        let waiting_since = |p: &Option<Pending>| match p {
            Some(Pending::Running {
                waiting_since: Some(w),
                parkable,
                ..
            }) => Some((*parkable, *w)),
            _ => None,
        };
        let mut waiting: Vec<(bool, u64, usize)> = (self.sessions.iter().enumerate())
            .filter(|(j, s)| *j != except && s.link.is_none())
            .filter_map(|(j, s)| waiting_since(&s.pending).map(|(p, w)| (p, w, j)))
            .collect();
        if waiting.len() < 2 {
            return Vec::new();
        }
        // Kept: the one that cannot be parked, else the first to wait.
        waiting.sort();
        let mut parked = Vec::new();
        for &(parkable, _, j) in &waiting[1..] {
            assert!(parkable, "one waiting statement at most has no savepoint");
            parked.extend(self.park(j));
        }
        parked.sort_by_key(|p| p.waiting_since);
        parked
    }

    /// Cancels session `j`'s waiting statement and undoes it; `None` when it answered
    /// before the cancellation reached it (then its answer stands).
    fn park(&mut self, j: usize) -> Option<Parked> {
        let Some(Pending::Running {
            mut task,
            key,
            request,
            waiting_since,
            ..
        }) = self.sessions[j].pending.take()
        else {
            unreachable!("a parked statement waits")
        };
        let pid = self.sessions[j].pid;
        let joined = super::settle::cancel_and_join(&self.worker, pid, &mut task);
        match joined {
            Ok(Err(e)) if e.code == "57014" => {}
            other => {
                let answer = other.unwrap_or_else(|e| panic!("a statement's task failed: {e}"));
                self.sessions[j].pending = Some(Pending::Answered { key, answer });
                return None;
            }
        }
        if self.sessions[j].in_transaction {
            let client = self.sessions[j]
                .client
                .clone()
                .expect("a connected session");
            let undo = self
                .worker
                .rt
                .block_on(async move { client.simple_query(super::session::UNDO_PARKED).await });
            undo.unwrap_or_else(|e| panic!("undoing a parked statement: {e}"));
        }
        count(|c| c.parked += 1);
        Some(Parked {
            session: j,
            request,
            waiting_since,
        })
    }

    /// Ends session `j`'s transaction, whose statement sent after a savepoint failed, as
    /// PostgreSQL ends a transaction whose statement fails: rolled back, its locks
    /// released (the waiters that could race for them parked first). The actor still
    /// sees it open and failed ([`RunDb::doomed_answer`]) until it ends it.
    pub(super) fn abort_failed(&mut self, j: usize) {
        let parked = self.park_racers(j);
        let s = &mut self.sessions[j];
        s.abort_pending = false;
        s.in_transaction = false;
        s.doomed = true;
        let client = s.client.clone().expect("a connected session");
        let rolled_back = self
            .worker
            .rt
            .block_on(async move { client.simple_query("ROLLBACK").await });
        rolled_back.unwrap_or_else(|e| panic!("rolling back a failed transaction: {e}"));
        self.settle();
        self.unpark(parked);
    }

    /// What PostgreSQL answers in a transaction a failed statement aborted: `COMMIT` and
    /// `ROLLBACK` end it (a `COMMIT` succeeds and commits nothing), anything else fails.
    pub(super) fn doomed_answer(&mut self, j: usize, key: &str) -> Answer {
        if key == "COMMIT" || key == "ROLLBACK" {
            self.sessions[j].doomed = false;
            return Ok(Ran::default());
        }
        Err(DbError {
            code: "25P02".into(),
            message: "current transaction is aborted, commands ignored until end of \
                      transaction block"
                .into(),
        })
    }

    /// Sends the parked statements again, one at a time, the server settled after each.
    pub(super) fn unpark(&mut self, parked: Vec<Parked>) {
        for p in parked {
            self.send(p.session, p.request, p.waiting_since);
            self.settle();
        }
    }
}

/// On a real server (feature `postgres`).
#[cfg(all(test, feature = "postgres-tests"))]
mod tests {
    use super::super::session::{counts, Exec};
    use super::super::{open_run, PgStore};
    use crate::model::DbOutcome;
    use crate::store::{ConsumerDb, CustomSchema, StoreConfig, StoreOp};

    /// Three connections to a table `t (k, v)` holding `rows`, each in a transaction.
    fn three_in_transactions(rows: &str) -> Vec<PgStore> {
        let config = StoreConfig {
            engine: crate::model::Engine::Postgres,
            custom: Some(CustomSchema {
                schema: vec!["CREATE TABLE t (k INT PRIMARY KEY, v BIGINT NOT NULL)".into()],
                setup: vec![format!("INSERT INTO t VALUES {rows}")],
                ..CustomSchema::default()
            }),
            ..StoreConfig::default()
        };
        let events = std::rc::Rc::new(Vec::new());
        let mut s = open_run(&config, &[], 1, 3, events).unwrap();
        for store in &mut s {
            assert_eq!(store.execute(StoreOp::Begin, 1), DbOutcome::Begun);
        }
        s
    }

    #[test]
    fn of_two_statements_waiting_for_one_row_the_first_to_wait_gets_it_every_time() {
        let update = |s: &mut PgStore, who: u8| {
            s.run_statement("u", &format!("UPDATE t SET v = v * 10 + {who} WHERE k = 1"))
        };
        let parked = counts().parked;
        // Without parking, both are woken by the first commit and race for the row's new
        // version: the second wins now and then (a third of the time, measured).
        for round in 0..20 {
            let mut s = three_in_transactions("(1, 0)");
            assert!(matches!(update(&mut s[0], 1), Exec::Answered(Ok(_))));
            assert!(matches!(update(&mut s[1], 2), Exec::Blocked));
            assert!(matches!(update(&mut s[2], 3), Exec::Blocked));
            assert_eq!(s[0].execute(StoreOp::Commit, 2), DbOutcome::Committed);
            assert!(
                matches!(update(&mut s[1], 2), Exec::Answered(Ok(_))),
                "{round}"
            );
            assert!(matches!(update(&mut s[2], 3), Exec::Blocked), "{round}");
            assert_eq!(s[1].execute(StoreOp::Commit, 3), DbOutcome::Committed);
            assert!(
                matches!(update(&mut s[2], 3), Exec::Answered(Ok(_))),
                "{round}"
            );
            assert_eq!(s[2].execute(StoreOp::Commit, 4), DbOutcome::Committed);
            let v = s[0].committed_value("SELECT v FROM t");
            assert_eq!(
                v.as_deref(),
                Some("123"),
                "each update once, in order: {round}"
            );
        }
        assert!(counts().parked >= parked + 20);
    }

    #[test]
    fn a_failed_statement_sent_after_a_savepoint_releases_its_transactions_locks_at_once() {
        let mut s = three_in_transactions("(1, 0), (2, 0)");
        let set = |k: u8| format!("UPDATE t SET v = v + 1 WHERE k = {k}");
        assert!(matches!(
            s[0].run_statement("a", &set(1)),
            Exec::Answered(Ok(_))
        ));
        assert!(matches!(s[1].run_statement("b", &set(1)), Exec::Blocked));
        // Sent while the second waits, so after a savepoint: it holds row 2, then fails.
        assert!(matches!(
            s[2].run_statement("c", &set(2)),
            Exec::Answered(Ok(_))
        ));
        let dup = s[2].run_statement("d", "INSERT INTO t VALUES (2, 0)");
        assert!(matches!(dup, Exec::Answered(Err(e)) if e.is_unique_violation()));
        // As without the savepoint: row 2 is free at once, the transaction is aborted.
        assert!(matches!(
            s[0].run_statement("e", &set(2)),
            Exec::Answered(Ok(_))
        ));
        let next = s[2].run_statement("f", "SELECT 1");
        assert!(matches!(next, Exec::Answered(Err(e)) if e.code == "25P02"));
        assert_eq!(s[2].execute(StoreOp::Commit, 2), DbOutcome::Committed);
        assert_eq!(s[0].execute(StoreOp::Commit, 3), DbOutcome::Committed);
        assert!(matches!(
            s[1].run_statement("b", &set(1)),
            Exec::Answered(Ok(_))
        ));
        assert_eq!(s[1].execute(StoreOp::Commit, 4), DbOutcome::Committed);
        let v = s[0].committed_value("SELECT string_agg(v::text, ',' ORDER BY k) FROM t");
        assert_eq!(
            v.as_deref(),
            Some("2,1"),
            "the failed transaction wrote nothing"
        );
    }

    #[test]
    fn a_rollback_while_others_wait_ends_a_transaction_a_failed_statement_aborted() {
        let mut s = three_in_transactions("(1, 0), (2, 0)");
        // Sent while nothing waits: its failure aborts the transaction, as PostgreSQL does.
        let dup = s[2].run_statement("d", "INSERT INTO t VALUES (2, 0)");
        assert!(matches!(dup, Exec::Answered(Err(e)) if e.is_unique_violation()));
        let set = "UPDATE t SET v = v + 1 WHERE k = 1";
        assert!(matches!(
            s[0].run_statement("a", set),
            Exec::Answered(Ok(_))
        ));
        assert!(matches!(s[1].run_statement("b", set), Exec::Blocked));
        // The rollback, sent while another statement waits, is sent as it is.
        assert_eq!(s[2].execute(StoreOp::Rollback, 2), DbOutcome::RolledBack);
        assert_eq!(s[2].execute(StoreOp::Begin, 3), DbOutcome::Begun);
        let read = s[2].run_statement("e", "SELECT v FROM t WHERE k = 2");
        assert!(matches!(read, Exec::Answered(Ok(_))), "{read:?}");
    }
}
