//! The consumer: runs a protocol's steps, one at a time, for each delivery it receives.
//!
//! A sans-IO state machine, a [`Host`]: [`Host::poll_command`] says what it wants to do
//! next (a protocol step, or the rollback/nack that cleans up after a duplicate or a
//! failure); whoever drives it performs that against the broker or the store and hands the
//! answer to [`Host::handle_answer`]. It never touches SQLite, the broker or a clock
//! itself, which is what lets the simulator stop it at any boundary.
//!
//! After a step reports a duplicate (the inbox row exists), the consumer rolls back any open
//! transaction and acks, if its protocol acks at all and has not yet. After a step fails,
//! it rolls back and, unless it already acked, rejects the delivery so that the broker
//! redelivers it. A crash loses everything volatile; on restart it goes back to `receive`.
//!
//! After a step reports the same `event_id` with another payload (a producer's corruption),
//! it rolls back, records a payload alert in its own committed statement, and acks: the
//! original was processed, the corrupt copy must not be. After a `COMMIT` that timed out
//! it cannot know whether the commit happened, and follows its [`CommitTimeoutStrategy`].

mod answer;
mod flow;
mod handler;
mod policy;

use crate::model::handler::{Answer, Call, HandlerFactory};
pub use crate::model::CommitTimeoutStrategy;
use crate::model::{
    AckOutcome, DbOutcome, Delivery, HalfDone, Host, NamedResults, Protocol, SqlEvent, Step,
    StepFaults,
};
use answer::{clean_up_answered, step_answered, Answered, Then};
use handler::HandlerConsumer;
use std::rc::Rc;

/// What the consumer wants done next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// A step of its protocol: a crash point on both sides.
    Step(Step),
    /// Clean-up: roll back the open transaction after a duplicate or a failure.
    Rollback,
    /// Clean-up: reject the delivery after a failure so the broker redelivers it.
    Nack,
    /// After a payload mismatch (and its rollback): record the alert, committed on its own.
    RecordAlert,
    /// After a commit timeout, with [`CommitTimeoutStrategy::Lookup`]: `SELECT` the inbox
    /// for the event.
    Lookup,
    /// The error policy retries in process: after its backoff, the protocol's steps run
    /// again on the same delivery.
    Retry,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Step(s) => s.name(),
            Action::Rollback => "rollback",
            Action::Nack => "nack",
            Action::RecordAlert => "record_alert",
            Action::Lookup => "lookup",
            Action::Retry => "retry",
        }
    }
}

/// The next action and the delivery it is about (none for `receive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    pub action: Action,
    pub delivery: Option<Delivery>,
    /// For a protocol step, which occurrence of its step it is (1 unless the protocol
    /// repeats the step: the second `commit` is 2); its crash points carry it.
    pub nth: u8,
    /// The failed step the error policy is handling, when this command is the policy's
    /// (a rollback, a compensating step, a retry, the ack, nack or dead letter that ends
    /// the delivery).
    pub failure: Option<Failure>,
    /// What of this step is already done, when the step takes more than one turn: the
    /// executor resumes the step from it (see [`HalfDone`]).
    pub resume: HalfDone,
}

/// A step that failed, and which occurrence of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Failure {
    pub step: Step,
    pub nth: u8,
}

/// The answer to a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepResult {
    /// `receive`: the delivery, or none ready.
    Received(Option<Delivery>),
    /// A database step's outcome.
    Db(DbOutcome),
    Acked(AckOutcome),
    /// The step was told to fail (an injected fault): nothing it would do happened.
    Failed,
    /// A step with nothing to report (`external_effect`, `nack`).
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Mode {
    Normal,
    /// The event was processed before: roll back, ack, stop.
    Duplicate,
    /// A step failed: roll back, reject, stop.
    Failed,
    /// The inbox holds the event with another payload: roll back, record the alert (once
    /// `alerted`), ack, stop.
    PayloadMismatch {
        alerted: bool,
    },
    /// The commit timed out: look the event up before deciding.
    LookingUp,
    /// A step's own error handler caught its failure: roll back, then go on at step
    /// `continue_at` of the protocol.
    Caught {
        continue_at: usize,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Work {
    delivery: Delivery,
    /// Index of the next protocol step.
    next: usize,
    /// How many transactions are open: one per database at most (the main one and each
    /// of `store.databases`), so more than one only with named databases.
    open_transactions: u8,
    acked: bool,
    /// `produce_output` ran for this delivery.
    produced: bool,
    mode: Mode,
    /// While a transaction whose commit timed out runs again: which.
    redo: Option<Redo>,
    /// Which attempt at the protocol's steps this is in this process: 1, then one more for
    /// every retry of the error policy.
    round: u8,
    /// Which pass over the protocol's steps this is: 1, then one more for every retry and
    /// every `goto` taken; the occurrence numbers of a pass follow the pass before's.
    pass: u8,
    /// After a failure: the failed step, and how many compensating steps ran since.
    failure: Option<Failure>,
    compensated: u8,
}

/// A transaction run again after its commit timed out (a retry, or a lookup that did not
/// find the event): only its database's steps from its `begin` to its `commit`; the
/// other databases' steps in between ran once, and their transactions stay as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Redo {
    /// The database of the transaction.
    db: u8,
    /// The position of its `commit` in the protocol.
    commit_at: usize,
}

/// The consumer's volatile state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Will `receive` on its next turn.
    Idle,
    /// Asked to receive and nothing was ready: waits for the broker's "ready".
    Waiting,
    /// Handling a delivery.
    Working,
    /// Crashed; waits for a restart.
    Down,
}

#[derive(Clone, Debug)]
pub struct Consumer {
    protocol: Protocol,
    /// Which occurrence of its step each step of an attempt is (`commit#2`) in the first
    /// attempt, and how many times its step appears in one attempt, worked out once: every
    /// command asks for it ([`Protocol::occurrence_in`]).
    occurrences: Vec<(u8, u8)>,
    on_commit_timeout: CommitTimeoutStrategy,
    phase: Phase,
    work: Option<Work>,
    /// The step in hand, if it took more than one turn: what of it already happened.
    half_done: HalfDone,
    /// A Rust handler instead of the protocol's steps, with all of its own state.
    handler: Option<Box<HandlerConsumer>>,
    /// The results its SQL steps kept (`into`) for the delivery in hand.
    results: NamedResults,
    /// What it decided on its own since the executor last asked (steps skipped, jumps).
    flow: Vec<crate::model::TraceKind>,
    /// How many passes one delivery may make ([`Protocol::max_passes`]).
    max_passes: u8,
}

impl crate::sim::Fingerprint for Consumer {
    fn fingerprint(&self, _now: crate::model::Tick, h: &mut crate::sim::StateHasher) {
        let Consumer {
            protocol: _,          // Configuration: the same for every run of a scenario.
            occurrences: _,       // Configuration, from the protocol.
            on_commit_timeout: _, // Configuration.
            phase,
            work,
            half_done,
            // A handler's state is opaque: exploration never prunes a run of one
            // (`explore::explore` runs every schedule), so it needs no digest.
            handler: _,
            results,
            flow: _,       // Drained by the executor after every turn.
            max_passes: _, // Configuration.
        } = self;
        h.value(&(phase, work, half_done));
        if !results.is_empty() {
            h.value(results);
        }
    }
}

impl Consumer {
    pub fn new(protocol: Protocol) -> Consumer {
        let body = protocol.steps.len() + protocol.on_error.steps.len();
        let occurrences = (0..body)
            .map(|at| {
                let count = protocol.round_offset(protocol.body_step(at));
                let count = u8::try_from(count).expect("bounded by Protocol::MAX_STEPS");
                (protocol.occurrence_in(at, 1), count)
            })
            .collect();
        Consumer {
            max_passes: protocol.max_passes(),
            protocol,
            occurrences,
            on_commit_timeout: CommitTimeoutStrategy::default(),
            phase: Phase::Idle,
            work: None,
            half_done: HalfDone::default(),
            handler: None,
            results: NamedResults::default(),
            flow: Vec::new(),
        }
    }

    /// The same consumer, running a Rust handler built by `factory` instead of the
    /// protocol's steps; `events` gives the handler each delivery's event, `id` is the
    /// consumer's.
    pub fn with_handler(
        mut self,
        factory: HandlerFactory,
        events: Rc<Vec<SqlEvent>>,
        id: usize,
    ) -> Consumer {
        let mut handler = HandlerConsumer::new(factory, events, id);
        handler.policy = self.protocol.on_error.clone();
        self.handler = Some(Box::new(handler));
        self
    }

    /// The SQL call a handler waits on, for the executor to run (`None` for a consumer
    /// that runs steps, or a handler waiting on anything else).
    pub fn pending_call(&self) -> Option<&Call> {
        self.handler.as_ref()?.pending_call()
    }

    /// Whether this consumer runs a Rust handler.
    pub fn is_handler(&self) -> bool {
        self.handler.is_some()
    }

    /// The error a handler returned since the last call, with its delivery, once.
    pub fn take_returned_error(&mut self) -> Option<(Delivery, String)> {
        self.handler.as_mut()?.returned.take()
    }

    /// Where the record about to be received sits on a log, for a handler's context
    /// (`ctx.offset()`); handed over with the delivery, ignored by a consumer of steps.
    pub fn set_log_place(&mut self, place: Option<crate::model::LogPlace>) {
        if let Some(h) = self.handler.as_mut() {
            h.log = place;
        }
    }

    /// The answer to the handler's pending SQL call, given with the outcome `Ran`.
    pub fn set_reply(&mut self, answer: Answer) {
        self.handler
            .as_mut()
            .expect("only a handler waits on a SQL call")
            .set_reply(answer);
    }

    /// The same consumer, following `strategy` after a commit timeout.
    pub fn with_commit_timeout_strategy(mut self, strategy: CommitTimeoutStrategy) -> Consumer {
        self.on_commit_timeout = strategy;
        self
    }

    /// The clean-up after a duplicate, a failure, a payload mismatch or a commit timeout:
    /// roll back first, then (output and) ack, follow the error policy, alert or look up;
    /// with the occurrence of the step it is.
    fn recovery(&self, mode: Mode, w: Work) -> (Action, u8) {
        let compensating = (1..self.protocol.on_error.steps.len()).contains(&w.compensated.into());
        match mode {
            // Halfway through the compensation, an open transaction is the compensation's.
            Mode::Failed if compensating => self
                .policy_next(w)
                .expect("a compensation goes on to its end"),
            _ if w.open_transactions > 0 => (Action::Rollback, 1),
            // The event's result is recorded already; its output is derived from the event,
            // so it is emitted again, in this delivery's broker transaction, before the ack
            // confirms it.
            Mode::Duplicate if self.protocol.has(Step::ProduceOutput) && !w.produced => {
                (Action::Step(Step::ProduceOutput), 1)
            }
            Mode::Duplicate => (Action::Step(Step::Ack), 1),
            Mode::Failed => self
                .policy_next(w)
                .expect("a failure with nothing left to do has stopped"),
            Mode::PayloadMismatch { alerted: false } => (Action::RecordAlert, 1),
            Mode::PayloadMismatch { alerted: true } => (Action::Step(Step::Ack), 1),
            Mode::LookingUp => (Action::Lookup, 1),
            Mode::Caught { .. } => unreachable!("rolled back, it goes on as usual"),
            Mode::Normal => unreachable!("normal work runs the protocol's next step"),
        }
    }

    /// The occurrence of the protocol step in hand, in the attempt in hand.
    fn nth(&self, w: Work) -> u8 {
        self.nth_at(w.next, w.pass)
    }

    /// When the step in hand is a `commit` (one that timed out, until the lookup decides):
    /// where the transaction it closes begins, and what running it again runs.
    fn transaction_again(&self) -> Option<(usize, Option<Redo>)> {
        let commit_at = self.work?.next;
        (self.protocol.steps.get(commit_at) == Some(&Step::Commit)).then(|| {
            let redo = Redo {
                db: self.protocol.db_at(commit_at),
                commit_at,
            };
            (self.begin_before(commit_at), Some(redo))
        })
    }

    /// The `begin` that opened the transaction whose `commit` is at `commit_at`: the last
    /// one before it on the same database (transactions do not nest on one database).
    fn begin_before(&self, commit_at: usize) -> usize {
        let db = self.protocol.db_at(commit_at);
        (0..commit_at)
            .rev()
            .find(|at| self.protocol.steps[*at] == Step::Begin && self.protocol.db_at(*at) == db)
            .expect("a valid protocol begins what it commits")
    }

    /// The phase of whichever runs the deliveries: the steps or the handler.
    fn phase_mut(&mut self) -> &mut Phase {
        match &mut self.handler {
            Some(h) => &mut h.phase,
            None => &mut self.phase,
        }
    }

    pub fn phase(&self) -> Phase {
        match &self.handler {
            Some(h) => h.phase,
            None => self.phase,
        }
    }

    /// The delivery in hand, if any.
    pub fn delivery(&self) -> Option<Delivery> {
        match &self.handler {
            Some(h) => h.delivery(),
            None => self.work.map(|w| w.delivery),
        }
    }

    /// The answer to `receive`: a delivery to work on, or nothing ready (wait).
    fn received(&mut self, result: StepResult) {
        match result {
            StepResult::Received(Some(delivery)) => {
                self.phase = Phase::Working;
                self.work = Some(Work {
                    delivery,
                    next: 1,
                    open_transactions: 0,
                    acked: false,
                    produced: false,
                    mode: Mode::Normal,
                    redo: None,
                    round: 1,
                    pass: 1,
                    failure: None,
                    compensated: 0,
                });
                self.results.clear();
                self.skip_unmet();
                self.finish_if_done();
            }
            StepResult::Received(None) => self.phase = Phase::Waiting,
            other => panic!("receive answered with {other:?}"),
        }
    }

    /// A duplicate whose protocol never acks, or that acked already, has nothing left to do;
    /// a failure after an ack has nothing to reject.
    fn after_step(&mut self) {
        let w = self.work.expect("working");
        match w.mode {
            Mode::Duplicate
                if w.open_transactions == 0 && (w.acked || !self.protocol.has(Step::Ack)) =>
            {
                self.stop()
            }
            Mode::PayloadMismatch { alerted: true } if w.acked || !self.protocol.has(Step::Ack) => {
                self.stop()
            }
            Mode::Failed if w.open_transactions == 0 && self.policy_next(w).is_none() => {
                self.stop()
            }
            _ => {
                self.skip_to_redone_step();
                self.skip_unmet();
                self.finish_if_done()
            }
        }
    }

    /// While a transaction runs again, its next step is the next one on its database
    /// (the other databases' steps between its `begin` and its `commit` are not run
    /// again); past its `commit`, the protocol goes on as usual.
    fn skip_to_redone_step(&mut self) {
        let protocol = &self.protocol;
        let Some(w) = self.work.as_mut() else { return };
        let Some(redo) = w.redo else { return };
        if w.mode != Mode::Normal {
            return;
        }
        while w.next < redo.commit_at && !redone(protocol, w.next, redo.db) {
            w.next += 1;
        }
        if w.next > redo.commit_at {
            w.redo = None;
        }
    }

    fn finish_if_done(&mut self) {
        let w = self.work.expect("working");
        if w.mode == Mode::Normal && w.next == self.protocol.steps.len() {
            assert_eq!(
                w.open_transactions, 0,
                "a valid protocol commits what it begins"
            );
            self.stop();
        }
    }

    fn stop(&mut self) {
        self.work = None;
        self.phase = Phase::Idle;
        self.results.clear();
    }

    /// The broker has a message ready: a waiting consumer will receive on its next turn.
    /// Returns whether the consumer wants a turn.
    pub fn handle_message_ready(&mut self) -> bool {
        let phase = self.phase_mut();
        if *phase == Phase::Waiting {
            *phase = Phase::Idle;
            true
        } else {
            false
        }
    }
}

impl Consumer {
    /// The answers taken apart from the protocol's steps: the delivery `receive` brought,
    /// the error policy's commands, a failure a step's own handler catches. Returns
    /// whether `result` was one of them.
    fn answered_apart(&mut self, command: Command, result: StepResult) -> bool {
        if command.action == Action::Step(Step::Receive) {
            self.received(result);
            return true;
        }
        if self.policy_answer(command, result) {
            return true;
        }
        if self.catch(command, result) {
            self.after_step();
            return true;
        }
        false
    }

    /// The answer to `command`, the protocol's command last returned by
    /// [`Host::poll_command`].
    fn answer(&mut self, command: Command, result: StepResult) {
        if self.answered_apart(command, result) {
            return;
        }
        let ran_at = self.work.filter(|w| w.mode == Mode::Normal).map(|w| w.next);
        let again = self.transaction_again();
        let strategy = self.on_commit_timeout;
        let compensation = self.protocol.on_error.steps.len();
        let w = self.work.as_mut().expect("working");
        let then = match command.action {
            Action::Step(step) => {
                let answered = Answered {
                    step,
                    nth: command.nth,
                    result,
                };
                step_answered(w, answered, again, strategy, compensation)
            }
            action => clean_up_answered(w, action, result, again),
        };
        match then {
            Then::Next => {
                self.follow_goto(ran_at);
                self.after_step();
            }
            Then::Stop => self.stop(),
            Then::Wait => {}
        }
    }

    /// The executor asked the fault injector about the protocol step in hand: the
    /// consumer keeps with the step whether it fails, so that a retry after busy is the
    /// same step, not asked again (the other faults are asked on every turn).
    pub fn handle_faults(&mut self, faults: StepFaults) {
        self.half_done_mut().decided_fail = Some(faults.fails);
    }

    fn half_done_mut(&mut self) -> &mut HalfDone {
        match &mut self.handler {
            Some(h) => &mut h.half_done,
            None => &mut self.half_done,
        }
    }
}

impl Host for Consumer {
    type Command = Command;
    type Answer = StepResult;

    /// What the consumer will do on its next turn, or `None` when it waits (for a message
    /// or a restart).
    fn poll_command(&self) -> Option<Command> {
        if let Some(h) = &self.handler {
            return h.poll_command();
        }
        match self.phase {
            Phase::Waiting | Phase::Down => None,
            Phase::Idle => Some(Command {
                action: Action::Step(Step::Receive),
                delivery: None,
                nth: 1,
                failure: None,
                resume: self.half_done,
            }),
            Phase::Working => {
                let w = self.work.expect("working means holding a delivery");
                let (action, nth) = match w.mode {
                    Mode::Normal => (Action::Step(self.protocol.steps[w.next]), self.nth(w)),
                    mode => self.recovery(mode, w),
                };
                Some(Command {
                    action,
                    delivery: Some(w.delivery),
                    nth,
                    failure: w.failure,
                    resume: self.half_done,
                })
            }
        }
    }

    /// The answer to the command last returned by [`Host::poll_command`]; the answer to a
    /// protocol step also moves the step's half-done state on ([`follow`]). A `receive`
    /// that got nothing performed nothing, and the policy's clean-up commands (rollback,
    /// nack, alert, lookup, retry) are not protocol steps: neither touches it.
    fn handle_answer(&mut self, result: StepResult) {
        let command = self
            .poll_command()
            .expect("a result answers a command the consumer issued");
        let performed =
            result != StepResult::Received(None) && matches!(command.action, Action::Step(_));
        match &mut self.handler {
            Some(h) => h.handle_answer(result),
            None => self.answer(command, result),
        }
        if performed {
            follow(self.half_done_mut(), result);
        }
    }

    fn handle_stall(&mut self) {
        self.half_done_mut().past_before = true;
    }

    /// The process dies: the delivery in hand and all volatile state are lost.
    fn handle_crash(&mut self) {
        if let Some(h) = &mut self.handler {
            return h.handle_crash();
        }
        assert_ne!(self.phase, Phase::Down, "a dead consumer cannot crash");
        self.work = None;
        self.results.clear();
        self.half_done = HalfDone::default();
        self.phase = Phase::Down;
    }

    /// The process starts again, empty, and goes back to `receive`.
    fn handle_restart(&mut self) {
        let phase = self.phase_mut();
        assert_eq!(*phase, Phase::Down, "only a crashed consumer restarts");
        *phase = Phase::Idle;
    }
}

/// A protocol step's half-done state after its answer: busy (or blocked) halfway through
/// its statements, it goes on next turn from the first statement not done; the first half
/// of a read-modify-write goes on next turn with the balances it read (other consumers may
/// write in between); both are past their "before" boundary and keep the faults decided.
/// Any other answer ends the step.
fn follow(half_done: &mut HalfDone, result: StepResult) {
    match result {
        StepResult::Db(DbOutcome::Busy { done } | DbOutcome::Blocked { done }) => {
            half_done.statements_done = done;
            half_done.past_before = true;
        }
        StepResult::Db(DbOutcome::BalancesRead { source, target }) => {
            half_done.balances_read = Some((source, target));
            half_done.past_before = true;
        }
        _ => *half_done = HalfDone::default(),
    }
}

/// Whether step `at` is one a transaction on database `db` runs again: a database step
/// on that database.
fn redone(protocol: &Protocol, at: usize, db: u8) -> bool {
    protocol.steps[at].is_database_step() && protocol.db_at(at) == db
}

#[cfg(test)]
mod tests {
    use super::*;
    use Step::*;

    pub(super) fn delivery() -> Delivery {
        Delivery {
            message: 0,
            event: 0,
            copy: 0,
            attempt: 1,
        }
    }

    fn consumer(name: &str) -> Consumer {
        Consumer::new(Protocol::built_in(name).unwrap())
    }

    /// Feeds `results` one by one and returns the actions the consumer asked for.
    fn drive(c: &mut Consumer, results: &[StepResult]) -> Vec<&'static str> {
        let mut actions = Vec::new();
        for r in results {
            actions.push(c.poll_command().expect("a command").action.name());
            c.handle_answer(*r);
        }
        actions
    }

    #[test]
    fn inbox_runs_its_steps_in_order_and_goes_back_to_receive() {
        let mut c = consumer("inbox");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::Inserted),
                StepResult::Db(DbOutcome::Applied),
                StepResult::Db(DbOutcome::Committed),
                StepResult::Acked(AckOutcome::Accepted),
            ],
        );
        assert_eq!(
            actions,
            [
                "receive",
                "begin",
                "insert_inbox",
                "apply_effect",
                "commit",
                "ack"
            ]
        );
        assert_eq!(c.phase(), Phase::Idle);
        assert_eq!(c.poll_command().unwrap().action, Action::Step(Receive));
    }

    #[test]
    fn a_duplicate_rolls_back_then_acks_without_the_effect() {
        let mut c = consumer("inbox");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::Duplicate),
                StepResult::Db(DbOutcome::RolledBack),
                StepResult::Acked(AckOutcome::Accepted),
            ],
        );
        assert_eq!(
            actions,
            ["receive", "begin", "insert_inbox", "rollback", "ack"]
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_duplicate_after_an_ack_has_nothing_left_to_do() {
        let mut c = consumer("inbox-ack-first");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Acked(AckOutcome::Accepted),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::Duplicate),
                StepResult::Db(DbOutcome::RolledBack),
            ],
        );
        assert_eq!(
            actions,
            ["receive", "ack", "begin", "insert_inbox", "rollback"]
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_failed_effect_rolls_back_and_rejects_for_redelivery() {
        let mut c = consumer("inbox");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::Inserted),
                StepResult::Db(DbOutcome::CreditFailed),
                StepResult::Db(DbOutcome::RolledBack),
                StepResult::Done,
            ],
        );
        assert_eq!(
            actions,
            [
                "receive",
                "begin",
                "insert_inbox",
                "apply_effect",
                "rollback",
                "nack"
            ]
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_failure_after_the_ack_is_simply_dropped() {
        let mut c = consumer("ack-first");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Acked(AckOutcome::Accepted),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Failed,
                StepResult::Db(DbOutcome::RolledBack),
            ],
        );
        assert_eq!(
            actions,
            ["receive", "ack", "begin", "apply_effect", "rollback"]
        );
        assert_eq!(
            c.phase(),
            Phase::Idle,
            "no nack: the broker already forgot it"
        );
    }

    #[test]
    fn a_failed_ack_on_the_duplicate_path_rejects_for_redelivery() {
        // Found by the property test (proptest-regressions/properties.txt): the ack that
        // follows a duplicate can fail too.
        let mut c = consumer("inbox");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::Duplicate),
                StepResult::Db(DbOutcome::RolledBack),
                StepResult::Failed,
                StepResult::Done,
            ],
        );
        assert_eq!(
            actions,
            [
                "receive",
                "begin",
                "insert_inbox",
                "rollback",
                "ack",
                "nack"
            ]
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn busy_repeats_the_step_and_a_stale_snapshot_rolls_back_and_rejects() {
        let mut c = consumer("inbox");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::Busy { done: 0 }),
                StepResult::Db(DbOutcome::StaleSnapshot),
                StepResult::Db(DbOutcome::RolledBack),
                StepResult::Done,
            ],
        );
        assert_eq!(
            actions,
            [
                "receive",
                "begin",
                "insert_inbox",
                "insert_inbox",
                "rollback",
                "nack"
            ]
        );
    }

    #[test]
    fn a_payload_mismatch_rolls_back_records_an_alert_and_acks() {
        let mut c = consumer("inbox");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::PayloadMismatch),
                StepResult::Db(DbOutcome::RolledBack),
                StepResult::Db(DbOutcome::Busy { done: 0 }),
                StepResult::Db(DbOutcome::AlertExists),
                StepResult::Acked(AckOutcome::Accepted),
            ],
        );
        assert_eq!(
            actions,
            [
                "receive",
                "begin",
                "insert_inbox",
                "rollback",
                "record_alert",
                "record_alert",
                "ack"
            ],
            "never applied; the alert is retried after busy, and an existing one is enough"
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_payload_mismatch_found_by_a_read_needs_no_rollback() {
        let mut c = consumer("check-then-act");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::PayloadMismatch),
                StepResult::Db(DbOutcome::AlertRecorded),
                StepResult::Acked(AckOutcome::Accepted),
            ],
        );
        assert_eq!(actions, ["receive", "check_inbox", "record_alert", "ack"]);
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_payload_mismatch_after_the_ack_stops_once_alerted() {
        let mut c = consumer("inbox-ack-first");
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Acked(AckOutcome::Accepted),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::PayloadMismatch),
                StepResult::Db(DbOutcome::RolledBack),
                StepResult::Db(DbOutcome::AlertRecorded),
            ],
        );
        assert_eq!(
            actions,
            [
                "receive",
                "ack",
                "begin",
                "insert_inbox",
                "rollback",
                "record_alert"
            ]
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    fn with(name: &str, strategy: CommitTimeoutStrategy) -> Consumer {
        consumer(name).with_commit_timeout_strategy(strategy)
    }

    /// Receive, begin, insert, apply, then a commit that times out.
    fn up_to_a_commit_timeout() -> Vec<StepResult> {
        vec![
            StepResult::Received(Some(delivery())),
            StepResult::Db(DbOutcome::Begun),
            StepResult::Db(DbOutcome::Inserted),
            StepResult::Db(DbOutcome::Applied),
            StepResult::Db(DbOutcome::CommitTimeout),
        ]
    }

    #[test]
    fn after_a_commit_timeout_retry_runs_the_transaction_again_from_begin() {
        let mut c = with("inbox", CommitTimeoutStrategy::Retry);
        let mut results = up_to_a_commit_timeout();
        results.extend([
            StepResult::Db(DbOutcome::Begun),
            StepResult::Db(DbOutcome::Duplicate),
            StepResult::Db(DbOutcome::RolledBack),
            StepResult::Acked(AckOutcome::Accepted),
        ]);
        let actions = drive(&mut c, &results);
        assert_eq!(
            &actions[4..],
            ["commit", "begin", "insert_inbox", "rollback", "ack"],
            "the retry's inbox INSERT recognises the commit that did happen"
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn after_a_commit_timeout_abandon_goes_on_as_if_committed() {
        let mut c = with("inbox", CommitTimeoutStrategy::Abandon);
        let mut results = up_to_a_commit_timeout();
        results.push(StepResult::Acked(AckOutcome::Accepted));
        let actions = drive(&mut c, &results);
        assert_eq!(&actions[4..], ["commit", "ack"]);
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn after_a_commit_timeout_lookup_acks_if_found_and_retries_if_not() {
        let mut found = with("inbox", CommitTimeoutStrategy::Lookup);
        let mut results = up_to_a_commit_timeout();
        results.extend([
            StepResult::Db(DbOutcome::Found),
            StepResult::Acked(AckOutcome::Accepted),
        ]);
        assert_eq!(
            &drive(&mut found, &results)[4..],
            ["commit", "lookup", "ack"]
        );
        assert_eq!(found.phase(), Phase::Idle);

        let mut absent = with("inbox", CommitTimeoutStrategy::Lookup);
        let mut results = up_to_a_commit_timeout();
        results.extend([
            StepResult::Db(DbOutcome::NotFound),
            StepResult::Db(DbOutcome::Begun),
            StepResult::Db(DbOutcome::Inserted),
            StepResult::Db(DbOutcome::Applied),
            StepResult::Db(DbOutcome::Committed),
            StepResult::Acked(AckOutcome::Accepted),
        ]);
        assert_eq!(
            &drive(&mut absent, &results)[4..],
            [
                "commit",
                "lookup",
                "begin",
                "insert_inbox",
                "apply_effect",
                "commit",
                "ack"
            ]
        );
        assert_eq!(absent.phase(), Phase::Idle);
    }

    /// The seeds' anti-pattern with explicit transactions: the mark commits on its own,
    /// then the effect in a second transaction.
    fn two_transactions(strategy: CommitTimeoutStrategy) -> Consumer {
        let steps = crate::model::MARK_OWN_TRANSACTION.to_vec();
        Consumer::new(Protocol::new("mark-own-transaction", "", steps).unwrap())
            .with_commit_timeout_strategy(strategy)
    }

    /// Feeds `answers` and returns each command the consumer gave, as `name#nth`.
    fn numbered(c: &mut Consumer, answers: &[StepResult]) -> Vec<String> {
        let mut commands = Vec::new();
        for a in answers {
            let command = c.poll_command().expect("a command");
            commands.push(format!("{}#{}", command.action.name(), command.nth));
            c.handle_answer(*a);
        }
        commands
    }

    #[test]
    fn a_repeated_step_is_numbered_by_occurrence() {
        use DbOutcome::*;
        let mut c = two_transactions(CommitTimeoutStrategy::Retry);
        let answers = [Begun, Inserted, Committed, Begun, Applied, Committed].map(StepResult::Db);
        let mut all = vec![StepResult::Received(Some(delivery()))];
        all.extend(answers);
        all.push(StepResult::Acked(AckOutcome::Accepted));
        assert_eq!(
            numbered(&mut c, &all).join(" "),
            "receive#1 begin#1 insert_inbox#1 commit#1 begin#2 apply_effect#1 commit#2 ack#1"
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_duplicate_in_the_first_transaction_acks_without_the_second() {
        // The redelivery after a crash between the two commits: the mark is there, so the
        // consumer discards the event and acks; its effect never runs (the event is lost).
        let mut c = two_transactions(CommitTimeoutStrategy::Retry);
        let answers = [
            StepResult::Received(Some(delivery())),
            StepResult::Db(DbOutcome::Begun),
            StepResult::Db(DbOutcome::Duplicate),
            StepResult::Db(DbOutcome::RolledBack),
            StepResult::Acked(AckOutcome::Accepted),
        ];
        assert_eq!(
            numbered(&mut c, &answers).join(" "),
            "receive#1 begin#1 insert_inbox#1 rollback#1 ack#1"
        );
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn a_commit_timeout_reruns_the_transaction_its_commit_closes() {
        use DbOutcome::*;
        let first = [Begun, Inserted, Committed, Begun, Applied, CommitTimeout].map(StepResult::Db);
        let upto = |c: &mut Consumer| {
            let mut all = vec![StepResult::Received(Some(delivery()))];
            all.extend(first);
            numbered(c, &all)
        };
        // Retry: the second transaction again, from its own `begin`, not the first one's.
        let mut retry = two_transactions(CommitTimeoutStrategy::Retry);
        upto(&mut retry);
        let again = [Begun, Applied, Committed].map(StepResult::Db);
        assert_eq!(
            numbered(&mut retry, &again).join(" "),
            "begin#2 apply_effect#1 commit#2"
        );
        // Lookup: not found means the second transaction again; found, the step after it.
        let mut absent = two_transactions(CommitTimeoutStrategy::Lookup);
        upto(&mut absent);
        assert_eq!(
            numbered(
                &mut absent,
                &[StepResult::Db(NotFound), StepResult::Db(Begun)]
            )
            .join(" "),
            "lookup#1 begin#2"
        );
        let mut found = two_transactions(CommitTimeoutStrategy::Lookup);
        upto(&mut found);
        assert_eq!(
            numbered(
                &mut found,
                &[
                    StepResult::Db(Found),
                    StepResult::Acked(AckOutcome::Accepted)
                ]
            )
            .join(" "),
            "lookup#1 ack#1"
        );
        assert_eq!(found.phase(), Phase::Idle);
    }

    #[test]
    fn a_commit_timeout_as_the_last_step_ends_the_delivery_when_found() {
        // inbox-ack-first commits last: once the lookup finds the row there is nothing left.
        let mut c = with("inbox-ack-first", CommitTimeoutStrategy::Lookup);
        let actions = drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Acked(AckOutcome::Accepted),
                StepResult::Db(DbOutcome::Begun),
                StepResult::Db(DbOutcome::Inserted),
                StepResult::Db(DbOutcome::Applied),
                StepResult::Db(DbOutcome::CommitTimeout),
                StepResult::Db(DbOutcome::Found),
            ],
        );
        assert_eq!(actions.last(), Some(&"lookup"));
        assert_eq!(c.phase(), Phase::Idle);
    }

    #[test]
    fn nothing_ready_means_waiting_until_the_broker_says_so() {
        let mut c = consumer("no-dedup");
        c.handle_answer(StepResult::Received(None));
        assert_eq!(c.poll_command(), None);
        assert!(c.handle_message_ready());
        assert!(
            !c.handle_message_ready(),
            "only a waiting consumer needs waking"
        );
        assert_eq!(c.poll_command().unwrap().action, Action::Step(Receive));
    }

    #[test]
    fn a_crash_forgets_the_delivery_and_a_restart_receives_again() {
        let mut c = consumer("no-dedup");
        drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
            ],
        );
        c.handle_crash();
        assert_eq!(
            (c.phase(), c.delivery(), c.poll_command()),
            (Phase::Down, None, None)
        );
        c.handle_restart();
        assert_eq!(c.poll_command().unwrap().action, Action::Step(Receive));
    }

    #[test]
    fn a_crash_drops_a_half_done_step_with_the_rest() {
        let mut c = consumer("no-dedup");
        drive(
            &mut c,
            &[
                StepResult::Received(Some(delivery())),
                StepResult::Db(DbOutcome::Begun),
            ],
        );
        c.handle_faults(StepFaults::default());
        c.handle_answer(StepResult::Db(DbOutcome::Busy { done: 1 }));
        c.handle_answer(StepResult::Db(DbOutcome::BalancesRead {
            source: 100,
            target: 0,
        }));
        assert_eq!(
            resume(&c),
            HalfDone {
                past_before: true,
                statements_done: 1,
                decided_fail: Some(false),
                balances_read: Some((100, 0)),
            }
        );
        c.handle_crash();
        c.handle_restart();
        assert_eq!(resume(&c), HalfDone::default());
    }

    /// What of the step in hand the consumer's next command says is already done.
    fn resume(c: &Consumer) -> HalfDone {
        c.poll_command().expect("the consumer has a command").resume
    }

    /// The consumer moves its half-done step on from the executor's answers: busy keeps
    /// the step (past its "before" boundary, with the faults decided), a stall passes the
    /// boundary, a `receive` that got nothing and a clean-up command leave it alone, and
    /// any other answer to a protocol step ends it.
    #[test]
    fn the_half_done_step_follows_the_answers() {
        let mut c = consumer("no-dedup");
        c.handle_stall();
        c.handle_answer(StepResult::Received(None));
        assert!(c.handle_message_ready());
        assert!(resume(&c).past_before, "nothing received, nothing done");
        c.handle_answer(StepResult::Received(Some(delivery())));
        assert_eq!(resume(&c), HalfDone::default());
        c.handle_answer(StepResult::Db(DbOutcome::Begun));
        c.handle_faults(StepFaults {
            fails: true,
            ..StepFaults::default()
        });
        c.handle_answer(StepResult::Db(DbOutcome::Blocked { done: 0 }));
        assert_eq!(
            (resume(&c).past_before, resume(&c).decided_fail),
            (true, Some(true))
        );
        c.handle_answer(StepResult::Failed);
        assert_eq!(resume(&c), HalfDone::default());
        assert_eq!(c.poll_command().unwrap().action, Action::Rollback);
        c.handle_stall();
        c.handle_answer(StepResult::Db(DbOutcome::RolledBack));
        assert!(resume(&c).past_before, "a rollback is not a protocol step");
    }
}
