//! Settling the server after a statement: waiting until every statement of the run in
//! flight has answered or is blocked, as PostgreSQL says, and resolving a deadlock among
//! them by cancelling the statement that began waiting first (see [`super::session`]).

use super::session::{count, Answer, DbError, Pending, RunDb};
use std::future::Future as _;
use std::sync::Arc;
use tokio_postgres::SimpleQueryMessage;

impl RunDb {
    /// Waits until every statement in flight has answered or waits for a lock held by
    /// another of the run's transactions; a cycle of such waits is a deadlock, resolved by
    /// cancelling the statement that began waiting first.
    pub fn settle(&mut self) {
        loop {
            self.settle_waits();
            match (0..self.sessions.len()).find(|&j| self.sessions[j].abort_pending) {
                Some(j) => self.abort_failed(j),
                None => return,
            }
        }
    }

    /// [`RunDb::settle`] until every statement answered or waits.
    fn settle_waits(&mut self) {
        loop {
            let mut answered = false;
            for i in 0..self.sessions.len() {
                if matches!(self.sessions[i].pending, Some(Pending::Running { .. })) {
                    answered |= self.wait(i);
                }
            }
            if answered {
                continue;
            }
            match self.deadlock_victim() {
                Some(v) => self.cancel(v),
                None => return,
            }
        }
    }

    /// Waits for actor `i`'s statement until it answers (true) or PostgreSQL says it is
    /// blocked by another of the run's backends (false).
    fn wait(&mut self, i: usize) -> bool {
        let pid = self.sessions[i].pid;
        let others: Vec<i32> = (self.sessions.iter().enumerate())
            .filter(|(j, s)| *j != i && s.client.is_some())
            .map(|(_, s)| s.pid)
            .collect();
        let control = Arc::clone(&self.worker.control);
        let Some(Pending::Running { task, .. }) = &mut self.sessions[i].pending else {
            unreachable!("waited on a running statement")
        };
        let outcome = self.worker.rt.block_on(async {
            loop {
                let others = format!(
                    "{{{}}}",
                    others
                        .iter()
                        .map(i32::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                );
                let ask = format!(
                    "SELECT pg_catalog.pg_isolation_test_session_is_blocked({pid}, '{others}')"
                );
                count(|c| c.blocked_checks += 1);
                let mut check = Box::pin(control.simple_query(&ask));
                let step = std::future::poll_fn(|cx| {
                    use std::task::Poll;
                    if let Poll::Ready(r) = std::pin::Pin::new(&mut *task).poll(cx) {
                        return Poll::Ready(Wait::Answered(r));
                    }
                    match check.as_mut().poll(cx) {
                        Poll::Ready(Ok(m)) if blocked_answer(&m) => Poll::Ready(Wait::Blocked),
                        Poll::Ready(_) => Poll::Ready(Wait::Again),
                        Poll::Pending => Poll::Pending,
                    }
                })
                .await;
                match step {
                    Wait::Answered(answer) => return Some(answer),
                    Wait::Again => continue,
                    Wait::Blocked => return None,
                }
            }
        });
        match outcome {
            Some(answer) => {
                self.answered(i, answer);
                true
            }
            None => {
                if let Some(Pending::Running { waiting_since, .. }) = &mut self.sessions[i].pending
                {
                    if waiting_since.is_none() {
                        self.waits += 1;
                        *waiting_since = Some(self.waits);
                    }
                }
                false
            }
        }
    }

    fn answered(&mut self, i: usize, joined: Result<Answer, tokio::task::JoinError>) {
        let Some(Pending::Running {
            key,
            deadlock,
            parkable,
            ..
        }) = self.sessions[i].pending.take()
        else {
            unreachable!("answered a running statement")
        };
        let mut answer = joined.unwrap_or_else(|e| {
            Err(DbError {
                code: String::new(),
                message: format!("the statement's task failed: {e}"),
            })
        });
        if deadlock {
            if let Err(e) = &mut answer {
                *e = DbError {
                    code: "40P01".into(),
                    message: "deadlock detected: this transaction waited for a lock held by \
                              a transaction that waited for one of its own; PostgreSQL aborts \
                              the first to wait"
                        .into(),
                };
            }
        }
        // Sent after a savepoint, its failure aborted only the savepoint's work: the
        // transaction is ended as PostgreSQL ends one whose statement failed.
        let savepoint = parkable && self.sessions[i].in_transaction;
        self.sessions[i].abort_pending |= savepoint && answer.is_err();
        self.sessions[i].pending = Some(Pending::Answered { key, answer });
    }

    /// The blocked statement to cancel when the run's blocked statements wait on each
    /// other in a cycle: the one that began waiting first.
    fn deadlock_victim(&mut self) -> Option<usize> {
        let blocked: Vec<usize> = (0..self.sessions.len())
            .filter(|i| self.blocked(*i))
            .collect();
        if blocked.len() < 2 {
            return None;
        }
        // Who each blocked backend waits for, among the run's.
        let mut waits_for = std::collections::BTreeMap::new();
        for &i in &blocked {
            let pid = self.sessions[i].pid;
            let v = self
                .worker
                .control_value(&format!("SELECT pg_catalog.pg_blocking_pids({pid})::text"))
                .ok()
                .flatten()
                .unwrap_or_default();
            let pids: Vec<i32> = v
                .trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .filter_map(|p| p.trim().parse().ok())
                .collect();
            let on: Vec<usize> = (self.sessions.iter().enumerate())
                .filter(|(_, s)| s.client.is_some() && pids.contains(&s.pid))
                .map(|(j, _)| j)
                .collect();
            waits_for.insert(i, on);
        }
        // The blocked sessions on a cycle: those that reach themselves.
        let on_cycle = |start: usize| {
            let mut seen = std::collections::BTreeSet::new();
            let mut stack = waits_for.get(&start).cloned().unwrap_or_default();
            while let Some(j) = stack.pop() {
                if j == start {
                    return true;
                }
                if seen.insert(j) {
                    stack.extend(waits_for.get(&j).cloned().unwrap_or_default());
                }
            }
            false
        };
        let since = |i: usize| match &self.sessions[i].pending {
            Some(Pending::Running { waiting_since, .. }) => waiting_since.unwrap_or(u64::MAX),
            _ => u64::MAX,
        };
        blocked
            .into_iter()
            .filter(|i| on_cycle(*i))
            .min_by_key(|i| since(*i))
    }

    /// Cancels actor `i`'s blocked statement, once, and waits for its answer: a statement
    /// on a cycle of waits cannot be unblocked by anything else, so the cancellation is
    /// what ends it (a second one could reach the backend after it, and cancel whatever
    /// statement it ran next).
    fn cancel(&mut self, i: usize) {
        let pid = self.sessions[i].pid;
        let Some(Pending::Running { task, deadlock, .. }) = &mut self.sessions[i].pending else {
            unreachable!("a deadlock's victim is blocked")
        };
        *deadlock = true;
        let joined = cancel_and_join(&self.worker, pid, task);
        self.answered(i, joined);
    }
}

/// Cancels backend `pid`'s statement, once, and waits for its answer (`task`).
pub(super) fn cancel_and_join(
    worker: &super::session::Worker,
    pid: i32,
    task: &mut tokio::task::JoinHandle<Answer>,
) -> Result<Answer, tokio::task::JoinError> {
    let control = Arc::clone(&worker.control);
    let cancel = format!("SELECT pg_catalog.pg_cancel_backend({pid})");
    worker.rt.block_on(async {
        let _ = control.simple_query(&cancel).await;
        task.await
    })
}

/// Whether the answer to `pg_isolation_test_session_is_blocked` is true.
fn blocked_answer(m: &[SimpleQueryMessage]) -> bool {
    m.iter()
        .any(|m| matches!(m, SimpleQueryMessage::Row(r) if r.get(0) == Some("t")))
}

/// One look at a statement in flight.
enum Wait {
    Answered(Result<Answer, tokio::task::JoinError>),
    Blocked,
    /// Neither answered nor blocked yet: look again.
    Again,
}
