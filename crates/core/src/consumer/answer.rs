//! What an answer to the consumer's command does to the delivery in hand: a protocol
//! step's answer moves the protocol on (or hands a failure to the error policy), a
//! clean-up command's answer ends or resumes the policy's handling, and [`Then`] says
//! what follows.

use super::{policy, Action, CommitTimeoutStrategy, Mode, Redo, StepResult, Work};
use crate::model::{DbOutcome, Step};

/// What follows an answer to the consumer's command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Then {
    /// The command is done: a `goto` is followed, then the next step.
    Next,
    /// The delivery is over: the consumer goes back to `receive`.
    Stop,
    /// Nothing happened yet (busy, or the first half of a read-modify-write): the same
    /// command runs again later.
    Wait,
}

/// A protocol step's answer: which occurrence of which step, and what it got.
#[derive(Clone, Copy, Debug)]
pub(super) struct Answered {
    pub(super) step: Step,
    pub(super) nth: u8,
    pub(super) result: StepResult,
}

/// What a protocol step's answer does to the delivery in hand `w`: `again` is where a
/// transaction starts again, `strategy` what a commit timeout does, `compensation` how
/// many compensating steps the error policy has.
pub(super) fn step_answered(
    w: &mut Work,
    a: Answered,
    again: Option<(usize, Option<Redo>)>,
    strategy: CommitTimeoutStrategy,
    compensation: usize,
) -> Then {
    let Answered { step, nth, result } = a;
    match (step, result) {
        (step, StepResult::Failed) => {
            // Also on the duplicate path: if its ack fails, the broker never hears of
            // it, so the delivery must be rejected and redelivered like any failure.
            policy::fail(w, step, nth, compensation);
        }
        (Step::Ack, StepResult::Acked(_)) => {
            w.acked = true;
            if matches!(w.mode, Mode::Duplicate | Mode::PayloadMismatch { .. }) {
                return Then::Stop;
            }
            w.next += 1;
        }
        (Step::Commit, StepResult::Db(DbOutcome::CommitTimeout)) => {
            // Committed or rolled back, the transaction is over either way.
            w.open_transactions -= 1;
            match strategy {
                CommitTimeoutStrategy::Retry => {
                    (w.next, w.redo) = again.expect("a protocol that commits begins");
                }
                CommitTimeoutStrategy::Abandon => w.next += 1,
                CommitTimeoutStrategy::Lookup => w.mode = Mode::LookingUp,
            }
        }
        // SQLite answered busy: nothing happened; the same step runs again later. A
        // read-modify-write effect that has read goes on with its write later too.
        (
            _,
            StepResult::Db(
                DbOutcome::Busy { .. } | DbOutcome::Blocked { .. } | DbOutcome::BalancesRead { .. },
            ),
        ) => return Then::Wait,
        // A write on a stale snapshot: the transaction must go, like after a failure.
        (
            step,
            StepResult::Db(
                DbOutcome::StaleSnapshot
                | DbOutcome::CommitRefused
                | DbOutcome::SerializationFailure
                | DbOutcome::Deadlock,
            ),
        ) => policy::fail(w, step, nth, compensation),
        (step, StepResult::Db(outcome)) => database_step(w, step, nth, outcome, compensation),
        (Step::ProduceOutput, StepResult::Done) => {
            w.produced = true;
            if w.mode == Mode::Normal {
                w.next += 1;
            }
        }
        (Step::ExternalEffect | Step::Call(_), StepResult::Done) => w.next += 1,
        (step, result) => panic!("{:?} answered with {result:?}", Action::Step(step)),
    }
    Then::Next
}

/// What the answer to one of the error policy's clean-up commands (rollback, nack, alert,
/// lookup) does to the delivery in hand `w`; `again` is where a transaction starts again.
pub(super) fn clean_up_answered(
    w: &mut Work,
    action: Action,
    result: StepResult,
    again: Option<(usize, Option<Redo>)>,
) -> Then {
    match (action, result) {
        // Every open transaction is rolled back, on every database; a caught failure
        // then goes on where its handler says.
        (Action::Rollback, StepResult::Db(DbOutcome::RolledBack)) => {
            w.open_transactions = 0;
            if let Mode::Caught { continue_at } = w.mode {
                (w.mode, w.next) = (Mode::Normal, continue_at);
            }
        }
        (Action::Nack, StepResult::Done) => return Then::Stop,
        (
            Action::RecordAlert,
            StepResult::Db(DbOutcome::AlertRecorded | DbOutcome::AlertExists),
        ) => w.mode = Mode::PayloadMismatch { alerted: true },
        (Action::Lookup, StepResult::Db(outcome))
            if !matches!(outcome, DbOutcome::Busy { .. } | DbOutcome::Blocked { .. }) =>
        {
            looked_up(w, outcome, again.expect("a lookup follows a commit"))
        }
        (
            Action::RecordAlert | Action::Lookup,
            StepResult::Db(DbOutcome::Busy { .. } | DbOutcome::Blocked { .. }),
        ) => return Then::Wait,
        (action, result) => panic!("{action:?} answered with {result:?}"),
    }
    Then::Next
}

/// The answer to the lookup after a commit timed out, `again` the transaction the commit
/// closed (where it begins, and what running it again runs).
fn looked_up(w: &mut Work, outcome: DbOutcome, again: (usize, Option<Redo>)) {
    match outcome {
        // The inbox has the event: the commit happened.
        DbOutcome::Found => {
            w.mode = Mode::Normal;
            w.next = again.1.expect("a commit").commit_at + 1;
        }
        // Not there: the commit did not happen; run the transaction again.
        DbOutcome::NotFound => {
            w.mode = Mode::Normal;
            (w.next, w.redo) = again;
        }
        DbOutcome::PayloadMismatch => w.mode = Mode::PayloadMismatch { alerted: false },
        other => panic!("a lookup answered with {other:?}"),
    }
}

/// A database step's outcome: the transaction opens or closes, a failure, a duplicate or a
/// payload mismatch changes the mode; then the next step.
fn database_step(w: &mut Work, step: Step, nth: u8, outcome: DbOutcome, compensation: usize) {
    match outcome {
        DbOutcome::Begun => w.open_transactions += 1,
        DbOutcome::Committed => w.open_transactions -= 1,
        // PostgreSQL answered the COMMIT of a transaction a caught error had aborted with
        // ROLLBACK: nothing of it is committed, and the step fails (as a driver raises).
        DbOutcome::RolledBack if step == Step::Commit => {
            w.open_transactions -= 1;
            policy::fail(w, step, nth, compensation);
        }
        DbOutcome::CreditFailed => policy::fail(w, step, nth, compensation),
        DbOutcome::PayloadMismatch => w.mode = Mode::PayloadMismatch { alerted: false },
        o if o.is_duplicate() => w.mode = Mode::Duplicate,
        _ => {}
    }
    assert!(step.is_database_step(), "{step} is not a database step");
    w.next += 1;
}
