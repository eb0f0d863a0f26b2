//! A consumer whose work is a Rust [`Handler`] rather than a list of steps: each call the
//! handler makes through its [`Context`] becomes the consumer's next command, and the
//! answer goes back into the record the handler is replayed from (see
//! [`crate::model::handler`]).
//!
//! The framework around the handler is a real consumer's: it receives, runs the handler,
//! and when the handler returns it rolls back a transaction left open and, after an error
//! and no ack, rejects the delivery so that the broker redelivers it. A crash drops the
//! handler and the delivery; the restarted process builds a new handler.

use super::{Action, Command, Failure, Phase, StepResult};
use crate::model::handler::{
    Answer, Call, Context, Handler, HandlerFactory, SqlError, SqlErrorKind,
};
use crate::model::{DbOutcome, Delivery, ErrorPolicy, GiveUp, HalfDone, LogPlace, SqlEvent, Step};
use std::rc::Rc;

/// What a handler's `commit` answers when PostgreSQL rolled back an aborted transaction at
/// its COMMIT: a statement in it had failed, and the handler went on.
const ROLLED_BACK_AT_COMMIT: &str = "current transaction is aborted: PostgreSQL rolled it \
                                     back at COMMIT, since a statement in it had failed";

/// The consumer's volatile state when it runs a handler.
pub(super) struct HandlerConsumer {
    factory: HandlerFactory,
    /// Every event's identity and payload, for the handler's context (configuration).
    events: Rc<Vec<SqlEvent>>,
    id: usize,
    /// The handler between deliveries: what a delivery's handling starts from.
    live: Box<dyn Handler>,
    pub(super) phase: Phase,
    work: Option<Work>,
    pub(super) half_done: HalfDone,
    /// The answer to the pending SQL call, handed over by the executor with the outcome.
    reply: Option<Answer>,
    /// The error the handler just returned, for the executor's trace.
    pub(super) returned: Option<(Delivery, String)>,
    /// Where the record being received sits on a log, handed over by the executor with the
    /// delivery.
    pub(super) log: Option<LogPlace>,
    /// What the framework does when the handler returns an error (configuration; no
    /// compensating steps: the handler's own code compensates).
    pub(super) policy: ErrorPolicy,
}

struct Work {
    delivery: Delivery,
    /// The handler as the delivery found it: every replay starts from a copy.
    at_start: Box<dyn Handler>,
    record: Vec<(Call, Answer)>,
    next: Next,
    in_transaction: bool,
    acked: bool,
    /// On a log broker, where the delivery's record sits.
    log: Option<LogPlace>,
    /// Which attempt at the delivery this is in this process (the error policy's retries).
    round: u8,
    /// The steps the calls of the earlier attempts were, so that a retry's crash points
    /// number on (`after:claim#2`).
    earlier: Vec<Step>,
    /// The handler's failure the error policy is handling: the step of its last call.
    failure: Option<Failure>,
}

#[derive(Clone, Debug, PartialEq)]
enum Next {
    Call(Call),
    /// The handler returned with a transaction open (rolled back) or with an error.
    Rollback {
        failed: bool,
    },
    Nack,
    /// The error policy runs the handler again on the same delivery.
    Retry,
    /// The error policy ends the delivery with an ack or a dead letter.
    GiveUp(Step),
}

impl Clone for HandlerConsumer {
    fn clone(&self) -> Self {
        HandlerConsumer {
            factory: self.factory.clone(),
            events: Rc::clone(&self.events),
            id: self.id,
            live: self.live.clone_handler(),
            phase: self.phase,
            work: self.work.as_ref().map(|w| Work {
                delivery: w.delivery,
                at_start: w.at_start.clone_handler(),
                record: w.record.clone(),
                next: w.next.clone(),
                in_transaction: w.in_transaction,
                acked: w.acked,
                log: w.log,
                round: w.round,
                earlier: w.earlier.clone(),
                failure: w.failure,
            }),
            half_done: self.half_done,
            reply: self.reply.clone(),
            returned: self.returned.clone(),
            log: self.log,
            policy: self.policy.clone(),
        }
    }
}

impl std::fmt::Debug for HandlerConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandlerConsumer")
            .field("id", &self.id)
            .field("phase", &self.phase)
            .field("next", &self.work.as_ref().map(|w| &w.next))
            .finish()
    }
}

impl HandlerConsumer {
    pub(super) fn new(factory: HandlerFactory, events: Rc<Vec<SqlEvent>>, id: usize) -> Self {
        HandlerConsumer {
            live: factory.make(),
            factory,
            events,
            id,
            phase: Phase::Idle,
            work: None,
            half_done: HalfDone::default(),
            reply: None,
            returned: None,
            log: None,
            policy: ErrorPolicy::default(),
        }
    }

    /// Which attempt at the delivery in hand this is (1 without one).
    pub(super) fn attempt(&self) -> u8 {
        self.work.as_ref().map_or(1, |w| w.round)
    }

    pub(super) fn delivery(&self) -> Option<Delivery> {
        self.work.as_ref().map(|w| w.delivery)
    }

    /// The SQL call the consumer waits on, for the executor to run.
    pub(super) fn pending_call(&self) -> Option<&Call> {
        match &self.work.as_ref()?.next {
            Next::Call(call @ Call::Sql { .. }) => Some(call),
            _ => None,
        }
    }

    pub(super) fn set_reply(&mut self, answer: Answer) {
        self.reply = Some(answer);
    }

    pub(super) fn poll_command(&self) -> Option<Command> {
        let w = match self.phase {
            Phase::Waiting | Phase::Down => return None,
            Phase::Idle => {
                return Some(Command {
                    action: Action::Step(Step::Receive),
                    delivery: None,
                    nth: 1,
                    failure: None,
                    resume: self.half_done,
                })
            }
            Phase::Working => self
                .work
                .as_ref()
                .expect("working means holding a delivery"),
        };
        let (action, nth) = match &w.next {
            Next::Call(call) => match call.step() {
                Some(step) => (Action::Step(step), occurrence_of(w, step)),
                None => (Action::Rollback, 1),
            },
            Next::Rollback { .. } => (Action::Rollback, 1),
            Next::Nack => (Action::Nack, 1),
            Next::Retry => (Action::Retry, 1),
            Next::GiveUp(step) => (Action::Step(*step), occurrence_of(w, *step)),
        };
        let failure = match w.next {
            Next::Call(_) => None,
            _ => w.failure,
        };
        Some(Command {
            action,
            delivery: Some(w.delivery),
            nth,
            failure,
            resume: self.half_done,
        })
    }

    pub(super) fn handle_answer(&mut self, result: StepResult) {
        if self.phase == Phase::Idle {
            return self.handle_received(result);
        }
        let reply = self.reply.take();
        let w = self.work.as_mut().expect("working");
        match (&w.next, result) {
            // SQLite answered busy: nothing happened; the same call runs again later.
            (_, StepResult::Db(DbOutcome::Busy { .. } | DbOutcome::Blocked { .. })) => return,
            (Next::Nack, StepResult::Done) => return self.stop(),
            (Next::Rollback { failed }, StepResult::Db(DbOutcome::RolledBack)) => {
                w.in_transaction = false;
                if *failed && !w.acked {
                    w.next = after_failure(&self.policy, w);
                } else {
                    self.stop();
                }
                return;
            }
            (Next::Retry | Next::GiveUp(_), result) => return self.policy_answer(result),
            (Next::Call(_), _) => {}
            (next, result) => panic!("{next:?} answered with {result:?}"),
        }
        let answer = call_answer(w, reply, result);
        let Next::Call(call) = std::mem::replace(&mut w.next, Next::Nack) else {
            unreachable!("an answer to a call")
        };
        w.record.push((call, answer));
        self.run_handler();
    }

    /// The answer to `receive`: a delivery starts the handler on it; nothing received, the
    /// consumer waits for a message.
    fn handle_received(&mut self, result: StepResult) {
        match result {
            StepResult::Received(Some(delivery)) => {
                self.phase = Phase::Working;
                self.work = Some(Work {
                    delivery,
                    at_start: self.live.clone_handler(),
                    record: Vec::new(),
                    next: Next::Nack, // Replaced by the first run just below.
                    in_transaction: false,
                    acked: false,
                    log: self.log.take(),
                    round: 1,
                    earlier: Vec::new(),
                    failure: None,
                });
                self.run_handler();
            }
            StepResult::Received(None) => self.phase = Phase::Waiting,
            other => panic!("receive answered with {other:?}"),
        }
    }

    /// Runs the handler from the start of the delivery, every recorded call answered from
    /// the record, until it asks for a new call or returns.
    fn run_handler(&mut self) {
        let w = self.work.as_mut().expect("working");
        let event = &self.events[w.delivery.event];
        let mut handler = w.at_start.clone_handler();
        let mut ctx = Context::new(event, w.delivery.attempt, self.id, w.log, &w.record);
        let result = handler.handle(&mut ctx);
        let (wanted, diverged) = ctx.into_parts();
        if let Some((recorded, asked)) = diverged {
            panic!(
                "the handler is not deterministic: replaying delivery {} of {}, it asked for \
                 {asked:?} where it had asked for {recorded:?}; a handler must be a function \
                 of its state and of its calls' answers (no clock, randomness or I/O of its \
                 own)",
                w.delivery.attempt, event.event_id
            );
        }
        if let Some(call) = wanted {
            w.next = Next::Call(call);
            return;
        }
        // The handler returned: its state is what the next delivery starts from.
        self.live = handler;
        let failed = result.is_err();
        if let Err(e) = result {
            self.returned = Some((w.delivery, e.to_string()));
            w.failure = Some(last_call(w));
        }
        if w.in_transaction {
            w.next = Next::Rollback { failed };
        } else if failed && !w.acked {
            w.next = after_failure(&self.policy, w);
        } else {
            self.stop();
        }
    }

    /// The answer to the error policy's retry, or to the ack or dead letter that ends the
    /// delivery.
    fn policy_answer(&mut self, result: StepResult) {
        let w = self.work.as_mut().expect("working");
        match (&w.next, result) {
            (Next::Retry, StepResult::Done) => {
                w.earlier
                    .extend(w.record.drain(..).filter_map(|(c, _)| c.step()));
                w.round += 1;
                w.failure = None;
                w.at_start = self.live.clone_handler();
                self.run_handler();
            }
            (Next::GiveUp(_), StepResult::Acked(_)) => self.stop(),
            // The broker's side failed (a fault on the ack or the dead letter): no error
            // handler sees that; the delivery is rejected for redelivery.
            (Next::GiveUp(_), StepResult::Failed) => w.next = Next::Nack,
            (next, result) => panic!("{next:?} answered with {result:?}"),
        }
    }

    fn stop(&mut self) {
        self.work = None;
        self.phase = Phase::Idle;
    }

    pub(super) fn handle_crash(&mut self) {
        assert_ne!(self.phase, Phase::Down, "a dead consumer cannot crash");
        self.work = None;
        self.reply = None;
        self.returned = None;
        self.half_done = HalfDone::default();
        self.live = self.factory.make();
        self.phase = Phase::Down;
    }
}

fn failed(kind: SqlErrorKind, message: &str) -> Answer {
    Answer::Failed(SqlError {
        kind,
        message: message.to_string(),
    })
}

/// Which occurrence of `step` in this delivery the next call is (1 for the first): the
/// calls of earlier attempts count.
fn occurrence_of(w: &Work, step: Step) -> u8 {
    let now = (w.record.iter()).filter(|(c, _)| c.step() == Some(step));
    let before = w.earlier.iter().filter(|s| **s == step).count() + now.count();
    u8::try_from(before + 1).unwrap_or(u8::MAX)
}

/// The step a failed handler failed at: its last call's (the one whose error it
/// returned, as a rule), or `receive` when it made none.
fn last_call(w: &Work) -> Failure {
    let step = (w.record.iter().rev())
        .find_map(|(c, _)| c.step())
        .unwrap_or(Step::Receive);
    let nth = occurrence_of(w, step).saturating_sub(1).max(1);
    Failure { step, nth }
}

/// What the framework does after the handler's error (its transaction rolled back): run
/// it again while the policy's attempts last, then reject, ack or dead-letter.
fn after_failure(policy: &ErrorPolicy, w: &Work) -> Next {
    if u16::from(w.round) < policy.attempts() && w.round < u8::MAX {
        return Next::Retry;
    }
    match policy.then {
        GiveUp::Redeliver => Next::Nack,
        GiveUp::Ack => Next::GiveUp(Step::Ack),
        GiveUp::DeadLetter => Next::GiveUp(Step::DeadLetter),
    }
}

/// What the handler's SQL call `w.next` is answered, from the executor's `result` (and
/// `reply`, the rows or count a statement gave): an error the handler sees as an exception
/// for a failure, a refusal or a lost commit; the call's result otherwise.
fn call_answer(w: &mut Work, reply: Option<Answer>, result: StepResult) -> Answer {
    match (&w.next, result) {
        (Next::Call(_), StepResult::Failed) => failed(
            SqlErrorKind::Injected,
            "the scenario's fault plan made this step fail; nothing happened",
        ),
        (Next::Call(_), StepResult::Db(DbOutcome::StaleSnapshot)) => failed(
            SqlErrorKind::Other,
            "database is locked (a write on a snapshot another connection changed)",
        ),
        (Next::Call(_), StepResult::Db(DbOutcome::SerializationFailure)) => failed(
            SqlErrorKind::Other,
            "could not serialize access due to read/write dependencies among transactions",
        ),
        (Next::Call(_), StepResult::Db(DbOutcome::CommitRefused)) => failed(
            SqlErrorKind::Other,
            "FOREIGN KEY constraint failed (a deferred one, at COMMIT)",
        ),
        // A SQL call's answer, or SQLite's refusal of a `begin` inside a transaction or a
        // `commit` outside one.
        (Next::Call(_), StepResult::Db(DbOutcome::Ran)) => {
            reply.expect("the executor hands over the answer with `Ran`")
        }
        (Next::Call(Call::Begin), StepResult::Db(DbOutcome::Begun)) => {
            w.in_transaction = true;
            Answer::Done
        }
        (Next::Call(Call::Commit), StepResult::Db(DbOutcome::Committed)) => {
            w.in_transaction = false;
            Answer::Done
        }
        (Next::Call(Call::Commit), StepResult::Db(DbOutcome::RolledBack)) => {
            w.in_transaction = false;
            failed(SqlErrorKind::Other, ROLLED_BACK_AT_COMMIT)
        }
        (Next::Call(Call::Commit), StepResult::Db(DbOutcome::CommitTimeout)) => {
            w.in_transaction = false;
            failed(
                SqlErrorKind::CommitTimeout,
                "commit timed out: the transaction may or may not be committed",
            )
        }
        (Next::Call(Call::Rollback), StepResult::Db(DbOutcome::RolledBack)) => {
            w.in_transaction = false;
            Answer::Done
        }
        (Next::Call(Call::Ack), StepResult::Acked(_)) => {
            w.acked = true;
            Answer::Done
        }
        (Next::Call(Call::ExternalEffect), StepResult::Done) => Answer::Done,
        (next, result) => panic!("{next:?} answered with {result:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::handler::{HandlerError, Value};
    use crate::model::Protocol;
    use crate::model::{AckOutcome, Host, SqlValue};

    /// Claims the event, then acks; counts the deliveries it finished (volatile state).
    #[derive(Clone, Default)]
    struct Claim {
        finished: u32,
    }

    impl Handler for Claim {
        fn handle(&mut self, ctx: &mut Context<'_>) -> Result<(), HandlerError> {
            ctx.begin()?;
            let qty = ctx.field("qty").and_then(|v| v.as_i64()).unwrap_or(0);
            let sql = "INSERT INTO t VALUES (:event_id, :q)";
            match ctx.execute("claim", sql, &[("q", Value::Integer(qty))]) {
                Err(HandlerError::Sql(e)) if e.is_unique_violation() => {
                    ctx.rollback()?;
                    return ctx.ack();
                }
                other => other?,
            };
            ctx.commit()?;
            self.finished += 1;
            ctx.ack()
        }
    }

    fn consumer() -> crate::consumer::Consumer {
        let events = Rc::new(vec![SqlEvent {
            event_id: "evt-0".into(),
            event_type: "OrderPlaced".into(),
            payload: vec![("qty".into(), SqlValue::Integer(2))],
        }]);
        let protocol = Protocol::handler("claim", Claim::default);
        let factory = protocol.handler.clone().unwrap();
        crate::consumer::Consumer::new(protocol).with_handler(factory, events, 0)
    }

    fn delivery(attempt: u32) -> Delivery {
        Delivery {
            message: 0,
            event: 0,
            copy: 0,
            attempt,
        }
    }

    fn next(c: &crate::consumer::Consumer) -> (Action, u8) {
        let command = c.poll_command().expect("a command");
        (command.action, command.nth)
    }

    #[test]
    fn each_call_is_the_next_command_and_its_answer_resumes_the_handler() {
        let mut c = consumer();
        assert_eq!(next(&c), (Action::Step(Step::Receive), 1));
        c.handle_answer(StepResult::Received(Some(delivery(1))));
        assert_eq!(next(&c), (Action::Step(Step::Begin), 1));
        c.handle_answer(StepResult::Db(DbOutcome::Begun));
        let claim = Step::Sql(crate::model::sql::intern("claim").unwrap());
        assert_eq!(next(&c), (Action::Step(claim), 1));
        let Some(Call::Sql { params, .. }) = c.pending_call() else {
            panic!("a SQL call")
        };
        assert_eq!(params, &[("q".to_string(), Value::Integer(2))]);
        // Busy: nothing happened, the same call waits.
        c.handle_answer(StepResult::Db(DbOutcome::Busy { done: 0 }));
        assert_eq!(next(&c), (Action::Step(claim), 1));
        c.set_reply(Answer::Changed(1));
        c.handle_answer(StepResult::Db(DbOutcome::Ran));
        assert_eq!(next(&c), (Action::Step(Step::Commit), 1));
        c.handle_answer(StepResult::Db(DbOutcome::Committed));
        assert_eq!(next(&c), (Action::Step(Step::Ack), 1));
        c.handle_answer(StepResult::Acked(AckOutcome::Accepted));
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_unique_violation_goes_to_the_handler_which_rolls_back_and_acks() {
        let mut c = consumer();
        c.handle_answer(StepResult::Received(Some(delivery(2))));
        c.handle_answer(StepResult::Db(DbOutcome::Begun));
        c.set_reply(Answer::Failed(SqlError {
            kind: SqlErrorKind::UniqueViolation,
            message: "UNIQUE constraint failed: t.id".into(),
        }));
        c.handle_answer(StepResult::Db(DbOutcome::Ran));
        assert_eq!(next(&c), (Action::Rollback, 1));
        c.handle_answer(StepResult::Db(DbOutcome::RolledBack));
        assert_eq!(next(&c), (Action::Step(Step::Ack), 1));
    }

    #[test]
    fn an_error_rolls_back_then_nacks_and_a_crash_drops_the_handler() {
        let mut c = consumer();
        c.handle_answer(StepResult::Received(Some(delivery(1))));
        c.handle_answer(StepResult::Db(DbOutcome::Begun));
        // The fault plan fails the claim: the handler propagates it.
        c.handle_answer(StepResult::Failed);
        let (d, error) = c
            .take_returned_error()
            .expect("the handler returned an error");
        assert_eq!(d, delivery(1));
        assert!(error.contains("fault plan"), "{error}");
        assert_eq!(next(&c), (Action::Rollback, 1));
        c.handle_answer(StepResult::Db(DbOutcome::RolledBack));
        assert_eq!(next(&c), (Action::Nack, 1));
        c.handle_answer(StepResult::Done);
        assert_eq!(c.phase(), Phase::Idle);
        // Mid-delivery, a crash loses the delivery; the restart receives again.
        c.handle_answer(StepResult::Received(Some(delivery(2))));
        c.handle_crash();
        assert_eq!(c.poll_command(), None);
        c.handle_restart();
        assert_eq!(next(&c), (Action::Step(Step::Receive), 1));
    }
}
