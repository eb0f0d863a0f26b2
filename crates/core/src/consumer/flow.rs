//! The consumer's side of branches and values (issue 35): the rows its SQL steps keep
//! (`into`), the steps it skips because their `when` does not hold, the `goto` that sends
//! it back to an earlier step, and the bound on such loops.
//!
//! All of it is decided from the consumer's own state, with no I/O. What it decided is
//! kept as trace entries ([`TraceKind::Kept`], `Skipped`, `Jumped`, `LoopLimit`,
//! `Caught`) until the executor records them.

use super::{policy, Consumer, Mode};
use crate::model::named::Row;
use crate::model::{DbOutcome, Step, TraceKind};

impl Consumer {
    /// What SQL step `step` ran into (its outcome was `Ran`): its last statement's first
    /// row (`None`: no row), stored under its `into` name; with `duplicate_if: {"when"}`,
    /// whether the event was processed before ([`DbOutcome::ConditionHeld`]).
    pub fn kept(&mut self, step: &'static str, row: Option<Row>) -> DbOutcome {
        let def = self.protocol.sql_step(step);
        if let Some(into) = def.into {
            let nth = self.work.map_or(1, |w| self.nth(w));
            self.flow.push(TraceKind::Kept {
                step: Step::Sql(step),
                nth,
                into,
                row: row.as_ref().map(crate::model::named::show_row),
            });
            self.results.store(into, row);
        }
        match &def.duplicate_when {
            Some(c) if c.holds(&self.results) => DbOutcome::ConditionHeld,
            _ => DbOutcome::Ran,
        }
    }

    /// The results kept for the delivery in hand, which its statements may bind.
    pub fn results(&self) -> &crate::model::NamedResults {
        &self.results
    }

    /// What the consumer decided on its own since the last call.
    pub fn take_flow(&mut self) -> Vec<TraceKind> {
        std::mem::take(&mut self.flow)
    }

    /// Skips the steps ahead whose `when` does not hold, each once.
    pub(super) fn skip_unmet(&mut self) {
        loop {
            let Some(w) = self.work else { return };
            if w.mode != Mode::Normal {
                return;
            }
            let Some(Step::Sql(name)) = self.protocol.steps.get(w.next).copied() else {
                return;
            };
            match &self.protocol.sql_step(name).when {
                Some(c) if !c.holds(&self.results) => {}
                _ => return,
            }
            let nth = self.nth_at(w.next, w.pass);
            self.flow.push(TraceKind::Skipped {
                step: Step::Sql(name),
                nth,
            });
            self.work.as_mut().expect("working").next += 1;
            self.skip_to_redone_step();
        }
    }

    /// The failure of a protocol step with its own error handler (`on_error` on the
    /// step): caught, the consumer rolls back or not and goes on at the later step the
    /// handler names. Returns whether it caught `result`.
    pub(super) fn catch(&mut self, command: super::Command, result: super::StepResult) -> bool {
        use super::StepResult as R;
        let Some(w) = self.work else { return false };
        let (super::Action::Step(step @ Step::Sql(name)), Mode::Normal) = (command.action, w.mode)
        else {
            return false;
        };
        let failed = matches!(
            result,
            R::Failed
                | R::Db(
                    DbOutcome::StaleSnapshot
                        | DbOutcome::SerializationFailure
                        | DbOutcome::Deadlock
                        | DbOutcome::CreditFailed
                )
        );
        let Some(catch) = self.protocol.sql_step(name).catch.filter(|_| failed) else {
            return false;
        };
        let position = self
            .protocol
            .steps
            .iter()
            .position(|s| s.name() == catch.continue_at);
        let to_at = position.expect("a handler goes on at a step of the protocol (validated)");
        let to = self.protocol.steps[to_at];
        // A stale snapshot, a serialization failure or a deadlock leaves nothing to keep:
        // the transaction must go whatever the handler says.
        let rollback =
            catch.rollback || !matches!(result, R::Failed | R::Db(DbOutcome::CreditFailed));
        self.flow.push(TraceKind::Caught {
            step,
            nth: command.nth,
            to,
            rollback,
        });
        let w = self.work.as_mut().expect("working");
        match rollback && w.open_transactions > 0 {
            true => w.mode = Mode::Caught { continue_at: to_at },
            false => w.next = to_at,
        }
        true
    }

    /// After the protocol step at `ran_at` completed as usual: its `goto`, if it has one,
    /// sends the delivery back to the earlier step it names, in a new pass; past the
    /// passes a delivery may make, the step fails instead (its error policy decides).
    pub(super) fn follow_goto(&mut self, ran_at: Option<usize>) {
        let (Some(at), Some(w)) = (ran_at, self.work) else {
            return;
        };
        if w.mode != Mode::Normal || w.next != at + 1 {
            return;
        }
        let Step::Sql(name) = self.protocol.steps[at] else {
            return;
        };
        let Some(target) = self.protocol.sql_step(name).goto else {
            return;
        };
        let position = self.protocol.steps.iter().position(|s| s.name() == target);
        let to_at = position.expect("a goto names a step of the protocol (validated)");
        let to = self.protocol.steps[to_at];
        let (step, nth) = (Step::Sql(name), self.nth_at(at, w.pass));
        let compensation = self.protocol.on_error.steps.len();
        let passes = self.max_passes;
        let w = self.work.as_mut().expect("working");
        if w.pass >= passes {
            self.flow.push(TraceKind::LoopLimit { step, nth, passes });
            policy::fail(w, step, nth, compensation);
            return;
        }
        w.next = to_at;
        w.pass += 1;
        w.redo = None;
        let pass = w.pass;
        self.flow.push(TraceKind::Jumped {
            from: step,
            to,
            pass,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consumer::tests::delivery;
    use crate::consumer::{Phase, StepResult};
    use crate::model::handler::Value;
    use crate::model::{sql, Condition, Host, Protocol, SqlStep};

    fn sql_step(name: &str) -> SqlStep {
        SqlStep {
            name: sql::intern(name).unwrap(),
            statements: vec!["SELECT 1 AS n".into()],
            ..SqlStep::default()
        }
    }

    /// receive, load (into state), create (when state.n is null, goto load), apply (when
    /// state.n = 1), ack.
    fn looping() -> Consumer {
        let load = SqlStep {
            into: sql::intern("state"),
            ..sql_step("flow_load")
        };
        let create = SqlStep {
            when: Some(Condition::parse("state.n is null").unwrap()),
            goto: Some(load.name),
            ..sql_step("flow_create")
        };
        let apply = SqlStep {
            when: Some(Condition::parse("state.n = 1").unwrap()),
            duplicate_when: None,
            ..sql_step("flow_apply")
        };
        let steps = vec![
            Step::Receive,
            Step::Sql(load.name),
            Step::Sql(create.name),
            Step::Sql(apply.name),
            Step::Ack,
        ];
        let p = Protocol::with_sql("flow", "", steps, vec![load, create, apply]).unwrap();
        Consumer::new(p)
    }

    fn row(n: Option<i64>) -> Option<Row> {
        n.map(|n| vec![("n".to_string(), Value::Integer(n))])
    }

    /// Runs the next command, answering `Ran` and keeping `kept` for a step with `into`;
    /// returns the command as `name#nth`.
    fn step(c: &mut Consumer, kept: Option<Option<i64>>) -> String {
        let command = c.poll_command().unwrap();
        let crate::consumer::Action::Step(s) = command.action else {
            panic!("{command:?}")
        };
        let answer = match s {
            Step::Receive => StepResult::Received(Some(delivery())),
            Step::Ack => StepResult::Acked(crate::model::AckOutcome::Accepted),
            Step::Sql(name) => {
                let outcome = match kept {
                    Some(r) => c.kept(name, row(r)),
                    None => DbOutcome::Ran,
                };
                StepResult::Db(outcome)
            }
            other => panic!("{other}"),
        };
        c.handle_answer(answer);
        format!("{s}#{}", command.nth)
    }

    #[test]
    fn a_loop_goes_back_skips_what_does_not_hold_and_numbers_each_pass() {
        let mut c = looping();
        let mut seen = vec![step(&mut c, None), step(&mut c, Some(None))];
        // No row: `create` runs, and jumps back to `load`.
        seen.push(step(&mut c, None));
        assert_eq!(
            c.take_flow()[1..],
            [TraceKind::Jumped {
                from: Step::parse("flow_create").unwrap(),
                to: Step::parse("flow_load").unwrap(),
                pass: 2
            }]
        );
        // The row now: `create` is skipped, `apply` runs.
        seen.push(step(&mut c, Some(Some(1))));
        seen.push(step(&mut c, None));
        seen.push(step(&mut c, None));
        assert_eq!(
            seen.join(" "),
            "receive#1 flow_load#1 flow_create#1 flow_load#2 flow_apply#2 ack#1"
        );
        assert!(matches!(
            c.take_flow()[..],
            [
                TraceKind::Kept { nth: 2, .. },
                TraceKind::Skipped { nth: 2, .. }
            ]
        ));
        assert_eq!(c.phase(), Phase::Idle);
        assert!(c.results().is_empty(), "a delivery's results go with it");
    }

    #[test]
    fn a_loop_that_never_ends_fails_at_its_bound() {
        let mut c = looping();
        step(&mut c, None);
        let mut loops = 0;
        while c.poll_command().is_some_and(|cmd| cmd.failure.is_none()) {
            step(&mut c, Some(None));
            loops += 1;
            assert!(loops < 1000, "bounded");
        }
        let flow = c.take_flow();
        assert!(
            matches!(flow.last(), Some(TraceKind::LoopLimit { passes, .. }) if *passes == c.max_passes),
            "{flow:?}"
        );
        let cmd = c.poll_command().unwrap();
        assert_eq!(cmd.action, crate::consumer::Action::Nack);
    }

    #[test]
    fn a_crash_forgets_the_results() {
        let mut c = looping();
        step(&mut c, None);
        step(&mut c, Some(Some(1)));
        assert!(!c.results().is_empty());
        c.handle_crash();
        assert!(c.results().is_empty());
    }
}
