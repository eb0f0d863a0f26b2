//! The consumer's side of an error policy ([`crate::model::ErrorPolicy`]): after a step
//! fails, what it does next (roll back, compensate, retry, give up), and the answers to
//! those commands.
//!
//! A failed ack or dead letter is the broker's side failing, not the handler's: no error
//! handler sees it, so the delivery is rejected for redelivery whatever the policy says,
//! with no compensation and no retry.

use super::{Action, Command, Consumer, Failure, Mode, StepResult, Work};
use crate::model::{DbOutcome, GiveUp, Step};

/// Step `step` (its `nth` occurrence) failed while the delivery was in `w`'s mode.
pub(super) fn fail(w: &mut Work, step: Step, nth: u8, compensation: usize) {
    let broker = matches!(step, Step::Ack | Step::DeadLetter);
    let all = u8::try_from(compensation).expect("bounded by Protocol::MAX_STEPS");
    if w.mode == Mode::Failed && !broker {
        // A compensating step failed: the rest of the compensation is skipped (its
        // transaction is rolled back first), and the policy goes on.
        w.compensated = all;
        return;
    }
    w.mode = Mode::Failed;
    w.failure = Some(Failure { step, nth });
    w.compensated = if broker { all } else { 0 };
}

impl Consumer {
    /// Which attempt at its protocol's steps the delivery in hand is at, in this process
    /// (1 without a delivery).
    pub fn attempt(&self) -> u8 {
        if let Some(h) = &self.handler {
            return h.attempt();
        }
        self.work.map_or(1, |w| w.round)
    }

    /// The occurrence of body step `at` in pass `pass` ([`crate::model::Protocol::occurrence_in`]).
    pub(super) fn nth_at(&self, at: usize, pass: u8) -> u8 {
        let (first, count) = self.occurrences[at];
        first + count * (pass - 1)
    }

    /// What the error policy does next for a failed delivery with no transaction open:
    /// the next compensating step, a retry, or what ends the delivery; `None` when nothing
    /// is left (it acked before the failure, and there is no retry).
    pub(super) fn policy_next(&self, w: Work) -> Option<(Action, u8)> {
        let policy = &self.protocol.on_error;
        let failure = w.failure.expect("a failed delivery knows its failure");
        let k = usize::from(w.compensated);
        if k < policy.steps.len() {
            let at = self.protocol.steps.len() + k;
            return Some((Action::Step(policy.steps[k]), self.nth_at(at, w.pass)));
        }
        let broker = matches!(failure.step, Step::Ack | Step::DeadLetter);
        if !broker && u16::from(w.round) < policy.attempts() && w.pass < self.max_passes {
            return Some((Action::Retry, 1));
        }
        if w.acked {
            return None;
        }
        Some(match policy.then {
            _ if broker => (Action::Nack, 1),
            GiveUp::Redeliver => (Action::Nack, 1),
            GiveUp::Ack => {
                let at = self.protocol.steps.iter().position(|s| *s == Step::Ack);
                let at = at.expect("`then: ack` needs an ack step (validated)");
                (Action::Step(Step::Ack), self.nth_at(at, w.pass))
            }
            GiveUp::DeadLetter => (Action::Step(Step::DeadLetter), 1),
        })
    }

    /// The answer to a command while the delivery is failed: a compensating step, the
    /// retry, or the ack or dead letter that ends it. Returns `false` for what the usual
    /// handling takes (the rollback, the nack) or when the delivery is not failed.
    pub(super) fn policy_answer(&mut self, command: Command, result: StepResult) -> bool {
        let compensation = self.protocol.on_error.steps.len();
        let Some(w) = self.work.as_mut() else {
            return false;
        };
        if w.mode != Mode::Failed || matches!(command.action, Action::Rollback | Action::Nack) {
            return false;
        }
        match (command.action, result) {
            (Action::Retry, StepResult::Done) => {
                w.round += 1;
                w.pass += 1;
                self.results.clear();
                w.next = 1;
                w.mode = Mode::Normal;
                w.failure = None;
                w.compensated = 0;
                w.redo = None;
                w.produced = false;
            }
            (Action::Step(step @ (Step::Ack | Step::DeadLetter)), StepResult::Acked(_)) => {
                w.acked |= step == Step::Ack;
                self.stop();
                return true;
            }
            (Action::Step(step), StepResult::Failed) => fail(w, step, command.nth, compensation),
            (
                Action::Step(_),
                StepResult::Db(DbOutcome::Busy { .. } | DbOutcome::Blocked { .. }),
            ) => return true,
            (
                Action::Step(step),
                StepResult::Db(
                    DbOutcome::StaleSnapshot
                    | DbOutcome::CommitRefused
                    | DbOutcome::SerializationFailure
                    | DbOutcome::Deadlock
                    | DbOutcome::CreditFailed,
                ),
            ) => fail(w, step, command.nth, compensation),
            (Action::Step(_), StepResult::Db(outcome)) => {
                match outcome {
                    DbOutcome::Begun => w.open_transactions += 1,
                    // A compensation's commit that timed out is over, whichever way.
                    DbOutcome::Committed | DbOutcome::CommitTimeout => w.open_transactions -= 1,
                    _ => {}
                }
                w.compensated += 1;
            }
            (action, result) => panic!("{action:?} answered with {result:?} after a failure"),
        }
        self.after_step();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consumer::tests::delivery;
    use crate::consumer::Phase;
    use crate::model::{sql, AckOutcome, ErrorPolicy, Host, Protocol, Retry, SqlStep};
    use DbOutcome::*;

    /// A policy that retries `times` times after `backoff_ticks`, then `then`.
    fn retrying(times: u8, backoff_ticks: u64, then: GiveUp) -> ErrorPolicy {
        ErrorPolicy {
            retry: Some(Retry {
                times,
                backoff_ticks,
            }),
            then,
            ..ErrorPolicy::default()
        }
    }

    fn inbox(policy: ErrorPolicy) -> Consumer {
        let p = Protocol::built_in("inbox").unwrap();
        Consumer::new(p.with_error_policy(policy, Vec::new()).unwrap())
    }

    /// Feeds `answers` and returns each command as `name#nth`, with `!` when it is the
    /// error policy's (it carries the failure).
    fn commands(c: &mut Consumer, answers: &[StepResult]) -> String {
        let mut out = Vec::new();
        for a in answers {
            let command = c.poll_command().expect("a command");
            let mark = if command.failure.is_some() { "!" } else { "" };
            out.push(format!("{}#{}{mark}", command.action.name(), command.nth));
            c.handle_answer(*a);
        }
        out.join(" ")
    }

    fn up_to_a_failed_effect() -> Vec<StepResult> {
        vec![
            StepResult::Received(Some(delivery())),
            StepResult::Db(Begun),
            StepResult::Db(Inserted),
            StepResult::Db(CreditFailed),
            StepResult::Db(RolledBack),
        ]
    }

    #[test]
    fn the_default_policy_rolls_back_and_rejects() {
        let mut c = inbox(ErrorPolicy::default());
        let mut answers = up_to_a_failed_effect();
        answers.push(StepResult::Done);
        assert_eq!(
            commands(&mut c, &answers),
            "receive#1 begin#1 insert_inbox#1 apply_effect#1 rollback#1! nack#1!"
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn ack_on_error_acks_a_delivery_whose_effect_rolled_back() {
        let policy = ErrorPolicy {
            then: GiveUp::Ack,
            ..ErrorPolicy::default()
        };
        let mut c = inbox(policy);
        let mut answers = up_to_a_failed_effect();
        answers.push(StepResult::Acked(AckOutcome::Accepted));
        assert!(commands(&mut c, &answers).ends_with("rollback#1! ack#1!"));
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_retry_runs_the_steps_again_numbered_on_and_then_gives_up() {
        let policy = retrying(1, 3, GiveUp::DeadLetter);
        let mut c = inbox(policy);
        let mut answers = up_to_a_failed_effect();
        answers.extend([
            StepResult::Done,
            StepResult::Db(Begun),
            StepResult::Db(Inserted),
            StepResult::Failed,
            StepResult::Db(RolledBack),
            StepResult::Acked(AckOutcome::Accepted),
        ]);
        assert_eq!(
            commands(&mut c, &answers),
            "receive#1 begin#1 insert_inbox#1 apply_effect#1 rollback#1! retry#1! \
             begin#2 insert_inbox#2 apply_effect#2 rollback#1! dead_letter#1!"
        );
        assert_eq!(c.phase(), Phase::Idle);
        assert_eq!(c.attempt(), 1, "the count went with the delivery");
    }

    #[test]
    fn a_retry_that_succeeds_acks_as_the_delivery_s_one_ack() {
        let policy = retrying(2, 0, GiveUp::Ack);
        let mut c = inbox(policy);
        let mut answers = up_to_a_failed_effect();
        answers.extend([
            StepResult::Done,
            StepResult::Db(Begun),
            StepResult::Db(Inserted),
            StepResult::Db(Applied),
            StepResult::Db(Committed),
            StepResult::Acked(AckOutcome::Accepted),
        ]);
        assert!(commands(&mut c, &answers)
            .ends_with("retry#1! begin#2 insert_inbox#2 apply_effect#2 commit#2 ack#1"));
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_failed_ack_is_rejected_without_compensation_or_retry() {
        let unclaim = sql::intern("unclaim_for_test").unwrap();
        let policy = ErrorPolicy {
            retry: Some(Retry {
                times: 3,
                backoff_ticks: 0,
            }),
            steps: vec![Step::Sql(unclaim)],
            then: GiveUp::Ack,
            ..ErrorPolicy::default()
        };
        let def = SqlStep {
            name: unclaim,
            statements: vec!["DELETE FROM x".into()],
            duplicate_if: None,
            db: 0,
            ..SqlStep::default()
        };
        let p = Protocol::built_in("inbox").unwrap();
        let mut c = Consumer::new(p.with_error_policy(policy, vec![def]).unwrap());
        let answers = [
            StepResult::Received(Some(delivery())),
            StepResult::Db(Begun),
            StepResult::Db(Inserted),
            StepResult::Db(Applied),
            StepResult::Db(Committed),
            StepResult::Failed,
            StepResult::Done,
        ];
        assert!(commands(&mut c, &answers).ends_with("commit#1 ack#1 nack#1!"));
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn compensation_runs_after_the_rollback_and_a_failing_one_is_cut_short() {
        let (a, b) = (
            sql::intern("undo_a").unwrap(),
            sql::intern("undo_b").unwrap(),
        );
        let def = |name| SqlStep {
            name,
            statements: vec!["DELETE FROM x".into()],
            duplicate_if: None,
            db: 0,
            ..SqlStep::default()
        };
        let policy = ErrorPolicy {
            steps: vec![Step::Sql(a), Step::Begin, Step::Sql(b), Step::Commit],
            ..ErrorPolicy::default()
        };
        let p = Protocol::built_in("inbox").unwrap();
        let p = p.with_error_policy(policy, vec![def(a), def(b)]).unwrap();
        let mut c = Consumer::new(p.clone());
        let mut answers = up_to_a_failed_effect();
        answers.extend([Ran, Begun, Ran, Committed].map(StepResult::Db));
        answers.push(StepResult::Done);
        assert!(commands(&mut c, &answers)
            .ends_with("rollback#1! undo_a#1! begin#2! undo_b#1! commit#2! nack#1!"));
        // The compensation's own step fails inside its transaction: rolled back, the rest
        // skipped, and the policy goes on.
        let mut c = Consumer::new(p);
        let mut answers = up_to_a_failed_effect();
        answers.extend([
            StepResult::Db(Ran),
            StepResult::Db(Begun),
            StepResult::Failed,
        ]);
        answers.extend([StepResult::Db(RolledBack), StepResult::Done]);
        assert!(commands(&mut c, &answers)
            .ends_with("undo_a#1! begin#2! undo_b#1! rollback#1! nack#1!"));
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn after_an_ack_a_failure_still_retries_but_has_nothing_to_give_up() {
        let p = Protocol::built_in("ack-first").unwrap();
        let policy = retrying(1, 0, GiveUp::Ack);
        let mut c = Consumer::new(p.with_error_policy(policy, Vec::new()).unwrap());
        let answers = [
            StepResult::Received(Some(delivery())),
            StepResult::Acked(AckOutcome::Accepted),
            StepResult::Db(Begun),
            StepResult::Db(CreditFailed),
            StepResult::Db(RolledBack),
            StepResult::Done,
            StepResult::Acked(AckOutcome::AlreadyAcked),
            StepResult::Db(Begun),
            StepResult::Db(CreditFailed),
            StepResult::Db(RolledBack),
        ];
        assert_eq!(
            commands(&mut c, &answers),
            "receive#1 ack#1 begin#1 apply_effect#1 rollback#1! retry#1! ack#1 begin#2 \
             apply_effect#2 rollback#1!"
        );
        assert_eq!(c.phase(), Phase::Idle, "acked before: nothing left to do");
    }

    #[test]
    fn a_crash_forgets_the_attempt_count() {
        let policy = ErrorPolicy {
            retry: Some(Retry {
                times: 1,
                backoff_ticks: 0,
            }),
            ..ErrorPolicy::default()
        };
        let mut c = inbox(policy);
        let mut answers = up_to_a_failed_effect();
        answers.push(StepResult::Done);
        commands(&mut c, &answers);
        assert_eq!(c.attempt(), 2);
        c.handle_crash();
        c.handle_restart();
        assert_eq!(c.attempt(), 1);
    }
}
