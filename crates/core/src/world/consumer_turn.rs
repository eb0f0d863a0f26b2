//! A consumer's turn: its next command got ready (the broker's delivery, for a `receive`)
//! and taken by `World::step` as a `ConsumerStep`, which performs it against the broker,
//! its store connection or the outside world; and the error policy's clean-up commands
//! (rollback, alert, lookup, nack, retry), which are no protocol steps and have no crash
//! points.

use super::crash::Process;
use super::step::{ProcessStep, StepEnd};
use super::*;
use crate::consumer::Command;
use crate::model::GiveUp;
use crate::store::EffectArgs;

impl World<'_> {
    /// One consumer turn: a clean-up command, or a protocol step through `World::step`
    /// (the fault injector may crash or stall it just before or just after).
    pub(super) fn turn(&mut self, now: Tick, c: ConsumerId) {
        let Some(command) = self.consumers[c].poll_command() else {
            return; // Waiting or down: a stale turn.
        };
        self.steps += 1;
        let Action::Step(step) = command.action else {
            self.clean_up(now, c, command);
            return;
        };
        // `receive` has no delivery until the broker hands one over; its "before" boundary is
        // the instant the delivery is on the wire and the consumer has not yet seen it.
        let delivery = match command.delivery {
            Some(d) => d,
            None => match self.receive(now, c) {
                Some(d) => {
                    let place = self.broker.log_place(d.message);
                    self.consumers[c].set_log_place(place);
                    d
                }
                None => return,
            },
        };
        let mut s = ConsumerStep {
            c,
            step,
            command,
            delivery,
        };
        if self.step(now, &mut s) != StepEnd::Done {
            return;
        }
        let delay = self.completion_delay(now, c, step, &delivery);
        self.queue
            .push(now + STEP_TICKS + delay, Occurrence::ConsumerTurn(c));
    }

    /// One of the clean-up actions that are not protocol steps (rollback, alert, lookup,
    /// nack): no crash point on either side.
    fn clean_up(&mut self, now: Tick, c: ConsumerId, command: crate::consumer::Command) {
        let actor = Actor::Consumer(c);
        let mut backoff_ticks = 0;
        let result = match command.action {
            Action::Step(step) => unreachable!("{step} is a protocol step"),
            // A handler's rollback with no transaction open (it never began, or SQLite
            // rolled it back itself) rolls back nothing.
            Action::Rollback
                if self.consumers[c].is_handler() && !self.stores[c].in_transaction() =>
            {
                let outcome = DbOutcome::RolledBack;
                let rolled_back = TraceKind::RolledBack { outcome };
                self.record(now, actor, command.delivery.as_ref(), rolled_back);
                StepResult::Db(outcome)
            }
            Action::Rollback => {
                let outcome = self.stores[c].execute(StoreOp::Rollback, now);
                let rolled_back = TraceKind::RolledBack { outcome };
                self.record(now, actor, command.delivery.as_ref(), rolled_back);
                StepResult::Db(outcome)
            }
            Action::RecordAlert | Action::Lookup => {
                let d = command
                    .delivery
                    .expect("an alert or a lookup names its delivery");
                let event = payload(&self.altered, &self.events, &d);
                let alert = command.action == Action::RecordAlert;
                let op = if alert {
                    StoreOp::RecordPayloadAlert { event }
                } else {
                    StoreOp::CheckInbox { event }
                };
                let outcome = self.stores[c].execute(op, now);
                let kind = if alert {
                    TraceKind::Alert { outcome }
                } else {
                    TraceKind::Lookup { outcome }
                };
                self.record(now, actor, Some(&d), kind);
                StepResult::Db(outcome)
            }
            Action::Nack => {
                let d = command.delivery.expect("a nack names its delivery");
                self.broker.handle_nack(now, &d);
                self.outputs.handle_abort(c);
                self.record(now, actor, Some(&d), TraceKind::Nacked);
                self.gave_up(now, c, &command, &d);
                StepResult::Done
            }
            Action::Retry => {
                let d = command.delivery.expect("a retry names its delivery");
                let retry = self.scenario.protocol.on_error.retry;
                backoff_ticks = retry.expect("a policy that retries").backoff_ticks;
                // A broker transaction of the failed attempt aborts; the retry opens its own.
                self.outputs.handle_abort(c);
                // The steps a delivery runs once (its ack) come again in the retry: only
                // their first boundaries are crash points.
                if self.reached_seen.is_none() {
                    self.reached_seen = Some(self.reached.iter().copied().collect());
                }
                let attempt = self.consumers[c].attempt() + 1;
                let kind = TraceKind::Retrying {
                    attempt,
                    backoff_ticks,
                };
                self.record(now, actor, Some(&d), kind);
                StepResult::Done
            }
        };
        self.consumers[c].handle_answer(result);
        self.record_handler_error(now, c);
        if let Some(d) = command.delivery {
            self.record_flow(now, c, &d);
        }
        self.queue.push(
            now + STEP_TICKS + backoff_ticks,
            Occurrence::ConsumerTurn(c),
        );
    }

    /// After the error policy's last command for a delivery (a nack, an ack or a dead
    /// letter after a failure): the trace and the checker are told what it gave up on.
    /// The default policy (reject for redelivery) records nothing, as before policies.
    fn gave_up(&mut self, now: Tick, c: ConsumerId, command: &Command, d: &Delivery) {
        let policy = &self.scenario.protocol.on_error;
        let Some(failure) = command.failure else {
            return;
        };
        if policy.is_default() {
            return;
        }
        let then = match command.action {
            Action::Step(Step::Ack) => GiveUp::Ack,
            Action::Step(Step::DeadLetter) => GiveUp::DeadLetter,
            _ => GiveUp::Redeliver,
        };
        let kind = TraceKind::GaveUp {
            then,
            step: failure.step,
            nth: failure.nth,
        };
        self.record(now, Actor::Consumer(c), Some(d), kind);
        self.gave_up.push(GaveUpRecord {
            event: d.event,
            copy: d.copy,
            delivery: d.attempt,
            step: failure.step,
            nth: failure.nth,
            then,
        });
    }

    /// What the consumer decided on its own with its last answer (steps skipped, a jump
    /// back, a loop at its bound), in the trace.
    fn record_flow(&mut self, now: Tick, c: ConsumerId, d: &Delivery) {
        for kind in self.consumers[c].take_flow() {
            self.record(now, Actor::Consumer(c), Some(d), kind);
        }
    }

    /// The error a Rust handler returned with its last answer, if it did, in the trace.
    fn record_handler_error(&mut self, now: Tick, c: ConsumerId) {
        if let Some((d, error)) = self.consumers[c].take_returned_error() {
            let kind = TraceKind::HandlerFailed { error };
            self.record(now, Actor::Consumer(c), Some(&d), kind);
        }
    }

    /// The broker's side of `receive`: the delivery it hands consumer `c` (and whether it
    /// will deliver it again on its own), or none ready, which the consumer is told.
    fn receive(&mut self, now: Tick, c: ConsumerId) -> Option<Delivery> {
        let Some(d) = self.broker.handle_receive(now, c) else {
            self.record(now, Actor::Consumer(c), None, TraceKind::NothingReady);
            self.consumers[c].handle_answer(StepResult::Received(None));
            return None;
        };
        self.record(
            now,
            Actor::Broker,
            Some(&d),
            TraceKind::Delivered { consumer: c },
        );
        if self.faults.duplicates_delivery(&d)
            && self.broker.handle_duplicate_delivery(now, d.message)
        {
            self.record(now, Actor::Broker, Some(&d), TraceKind::BrokerDuplicate);
        }
        Some(d)
    }

    /// With `consumer.completion_delay_ticks`: a consumer that just received a
    /// `TransferCompleted` sleeps that long before processing it, holding the delivery,
    /// "to give the TransferCreated time". Returns the ticks it sleeps.
    pub(super) fn completion_delay(
        &mut self,
        now: Tick,
        c: ConsumerId,
        step: Step,
        d: &Delivery,
    ) -> Tick {
        let delay = self.scenario.consumer.completion_delay_ticks;
        if step != Step::Receive
            || delay == 0
            || self.events[d.event].event_type != EventType::TransferCompleted
        {
            return 0;
        }
        let sleep = TraceKind::Sleep { ticks: delay };
        self.record(now, Actor::Consumer(c), Some(d), sleep);
        delay
    }

    /// Performs one protocol step against the broker, the store or the outside world,
    /// meeting the faults the injector decided for it.
    pub(super) fn perform(
        &mut self,
        now: Tick,
        c: ConsumerId,
        command: &Command,
        d: &Delivery,
        faults: StepFaults,
    ) -> (StepResult, TraceKind) {
        let Action::Step(step) = command.action else {
            unreachable!("only a protocol step is performed")
        };
        let nth = command.nth;
        if step == Step::Receive {
            return (StepResult::Received(Some(*d)), TraceKind::Received);
        }
        if let Some(ended) = self.refused_or_failed(c, step, nth, d, faults) {
            return ended;
        }
        let event = payload(&self.altered, &self.events, d);
        if let Some(op) = store_op(self.scenario, command, event, faults.fails) {
            let outcome = self.stores[c].execute(op, now);
            let kind = TraceKind::Db { step, nth, outcome };
            return (StepResult::Db(outcome), kind);
        }
        match step {
            Step::Receive
            | Step::Begin
            | Step::CheckInbox
            | Step::InsertInbox
            | Step::ApplyEffect
            | Step::EnqueueEmail => unreachable!("a store operation, performed above"),
            Step::Commit => self.commit(now, c, nth, faults.commit_timeout),
            Step::Ack => self.ack(now, c, d, faults.loses_ack),
            Step::DeadLetter => {
                let outcome = self.broker.handle_dead_letter(now, d);
                // A broker transaction of this delivery aborts: its outputs never show.
                self.outputs.handle_abort(c);
                (
                    StepResult::Acked(outcome),
                    TraceKind::DeadLetterSent { outcome },
                )
            }
            Step::ProduceOutput => {
                let staged = matches!(
                    self.outputs.handle_produce(c, d.event),
                    crate::broker::OutputState::Staged
                );
                (StepResult::Done, TraceKind::OutputProduced { staged })
            }
            Step::InsertTransfer
            | Step::CommitTransfer
            | Step::Publish
            | Step::RelayPublish
            | Step::MarkSent
            | Step::SendEmail
            | Step::MarkEmailSent => unreachable!("{step} is not a consumer step (validated)"),
            Step::Sql(name) => {
                let done = command.resume.statements_done;
                self.sql_step(now, c, name, nth, d, done)
            }
            Step::ExternalEffect | Step::Call(_) => self.external(now, step, d),
        }
    }

    /// The step ends before it is performed: the handler misused its connection, the
    /// fault plan made it fail (a credit's failure excepted: the effect's own statements
    /// decide it), or its payload is invalid. The consumer keeps whether it fails with the
    /// step, so that a retry after `SQLITE_BUSY` is asked with it (`decided`).
    fn refused_or_failed(
        &mut self,
        c: ConsumerId,
        step: Step,
        nth: u8,
        d: &Delivery,
        faults: StepFaults,
    ) -> Option<(StepResult, TraceKind)> {
        self.consumers[c].handle_faults(faults);
        if let Some(refused) = self.handler_misuse(c, step, nth) {
            return Some(refused);
        }
        if faults.fails && step != Step::ApplyEffect {
            return Some((StepResult::Failed, TraceKind::StepFailed { step, nth }));
        }
        if step == Step::ApplyEffect && self.is_invalid(d.event) {
            return Some((StepResult::Failed, TraceKind::InvalidPayload));
        }
        None
    }

    /// An external effect sent, or a named service called: recorded as the outside world
    /// saw it, never rolled back.
    fn external(&mut self, now: Tick, step: Step, d: &Delivery) -> (StepResult, TraceKind) {
        let call = match step {
            Step::Call(service) => Some(service),
            _ => None,
        };
        self.external_effects.push(ExternalEffect {
            call,
            tick: now,
            event: d.event,
            copy: d.copy,
            delivery: d.attempt,
        });
        let sent = match call {
            Some(service) => TraceKind::Called { service },
            None => TraceKind::ExternalEffectSent,
        };
        (StepResult::Done, sent)
    }

    /// A SQL step: the handler's pending call, or the protocol's step `name` from its
    /// statement `statements_done` on (earlier ones ran before SQLite answered busy).
    fn sql_step(
        &mut self,
        now: Tick,
        c: ConsumerId,
        name: &'static str,
        nth: u8,
        d: &Delivery,
        statements_done: u8,
    ) -> (StepResult, TraceKind) {
        if let Some(call) = self.consumers[c].pending_call().cloned() {
            return self.handler_call(now, c, nth, d, call);
        }
        let step = Step::Sql(name);
        let named = Some(self.consumers[c].results());
        let binding = super::binding(&self.sql_events, &self.broker, now, c, d, named);
        let sql = self.scenario.protocol.sql_step(name);
        match self.stores[c].execute_sql(sql, &binding, statements_done) {
            Ok(ran) => {
                // The consumer keeps the row (`into`) and judges `duplicate_if: {"when"}`.
                let outcome = match ran.outcome {
                    DbOutcome::Ran if sql.into.is_some() || sql.duplicate_when.is_some() => {
                        self.consumers[c].kept(name, ran.row)
                    }
                    outcome => outcome,
                };
                (
                    StepResult::Db(outcome),
                    TraceKind::Db { step, nth, outcome },
                )
            }
            Err(failure) => (
                StepResult::Failed,
                TraceKind::SqlFailed { step, nth, failure },
            ),
        }
    }

    /// `commit`, with the commit timeout the plan may inject (`timeout`: the fault's index,
    /// and whether the commit is applied): the transaction ends (or not) and the consumer
    /// is not told which.
    fn commit(
        &mut self,
        now: Tick,
        c: ConsumerId,
        nth: u8,
        timeout: Option<(usize, bool)>,
    ) -> (StepResult, TraceKind) {
        let db = |outcome: DbOutcome| {
            let step = Step::Commit;
            (
                StepResult::Db(outcome),
                TraceKind::Db { step, nth, outcome },
            )
        };
        // The database whose transaction this commit closes: the main one, or a named one.
        let on = self.scenario.protocol.db_of(Step::Commit, nth);
        let commit = match on {
            0 => StoreOp::Commit,
            on => StoreOp::CommitOn(on),
        };
        match timeout {
            None => db(self.stores[c].execute(commit, now)),
            Some((i, applied)) => {
                // Not applied: this transaction alone is rolled back, not another database's.
                let op = if applied {
                    commit
                } else {
                    StoreOp::RollbackOn(on)
                };
                match self.stores[c].execute(op, now) {
                    // Busy (or anything but done): nothing happened yet; the timeout
                    // waits for the commit that really ends the transaction.
                    other @ (DbOutcome::Busy { .. }
                    | DbOutcome::Blocked { .. }
                    | DbOutcome::StaleSnapshot
                    | DbOutcome::CommitRefused
                    | DbOutcome::SerializationFailure
                    | DbOutcome::Deadlock) => db(other),
                    _ => {
                        self.faults.fire_commit_timeout(i);
                        if self.scenario.consumer.on_commit_timeout
                            != CommitTimeoutStrategy::Abandon
                            && self.reached_seen.is_none()
                        {
                            self.reached_seen = Some(self.reached.iter().copied().collect());
                        }
                        let timeout = TraceKind::CommitTimeout {
                            nth,
                            fault: i,
                            committed: applied,
                            strategy: self.scenario.consumer.on_commit_timeout,
                        };
                        (StepResult::Db(DbOutcome::CommitTimeout), timeout)
                    }
                }
            }
        }
    }

    /// `ack`, which the plan may lose on the way (`lost`); a broker transaction commits or
    /// aborts with it.
    fn ack(
        &mut self,
        now: Tick,
        c: ConsumerId,
        d: &Delivery,
        lost: bool,
    ) -> (StepResult, TraceKind) {
        if lost {
            // The broker never heard the ack, so its transaction does not commit.
            self.outputs.handle_abort(c);
            return (StepResult::Acked(AckOutcome::Accepted), TraceKind::AckLost);
        }
        let outcome = self.broker.handle_ack(now, d);
        let settled = match outcome {
            AckOutcome::Accepted | AckOutcome::StaleAccepted => self.outputs.handle_ack_accepted(c),
            AckOutcome::Stale | AckOutcome::AlreadyAcked => self.outputs.handle_abort(c),
        };
        if settled > 0 {
            let committed = matches!(outcome, AckOutcome::Accepted | AckOutcome::StaleAccepted);
            let settled = TraceKind::OutputsSettled { committed };
            self.record(now, Actor::Broker, Some(d), settled);
        }
        let offsets = self.scenario.broker.log.is_some();
        (
            StepResult::Acked(outcome),
            TraceKind::Acked { outcome, offsets },
        )
    }
}

/// Whether a step's answer says it happened, whole: it then reaches its "after" boundary.
/// Busy, blocked and the first half of a read-modify-write go on next turn; a failed or
/// refused step did not happen.
fn completes(result: StepResult) -> bool {
    !matches!(
        result,
        StepResult::Failed
            | StepResult::Db(
                DbOutcome::Busy { .. }
                    | DbOutcome::Blocked { .. }
                    | DbOutcome::BalancesRead { .. }
                    | DbOutcome::StaleSnapshot
                    | DbOutcome::CommitRefused
                    | DbOutcome::SerializationFailure
                    | DbOutcome::Deadlock
            )
    )
}

/// A consumer's protocol step with `delivery` in hand, as [`World::step`] drives it.
struct ConsumerStep {
    c: ConsumerId,
    step: Step,
    command: Command,
    delivery: Delivery,
}

impl ProcessStep for ConsumerStep {
    type Answer = StepResult;

    fn process(&self) -> Process {
        Process::Consumer(self.c)
    }

    fn resume(&self) -> HalfDone {
        self.command.resume
    }

    fn before(&self) -> BoundaryPoint {
        let boundary = Boundary::before(self.step).nth(self.command.nth);
        self.delivery.point(boundary)
    }

    fn message(&self) -> Option<MessageId> {
        Some(self.delivery.message)
    }

    fn query<'s>(&'s self, _: &World, now: Tick) -> Option<StepQuery<'s>> {
        (self.step != Step::Receive).then_some(StepQuery::Consumer {
            step: self.step,
            nth: self.command.nth,
            delivery: &self.delivery,
            now,
            decided: self.command.resume.decided_fail,
        })
    }

    fn perform(&mut self, w: &mut World, now: Tick, faults: StepFaults) -> StepResult {
        let (c, step, d) = (self.c, self.step, &self.delivery);
        let (result, kind) = w.perform(now, c, &self.command, d, faults);
        if result == StepResult::Db(DbOutcome::Committed) {
            w.wake_relay(now, RelayKind::Emails);
        }
        if result == StepResult::Db(DbOutcome::StaleSnapshot) {
            w.stale_snapshots += 1;
        }
        if matches!(result, StepResult::Db(o) if o.is_duplicate()) {
            w.duplicates_discarded[d.event] += 1;
        }
        w.record(now, Actor::Consumer(c), Some(d), kind);
        if matches!(step, Step::Ack | Step::DeadLetter) {
            w.gave_up(now, c, &self.command, d);
        }
        result
    }

    fn answer(&mut self, w: &mut World, now: Tick, result: StepResult) -> bool {
        w.consumers[self.c].handle_answer(result);
        w.record_handler_error(now, self.c);
        w.record_flow(now, self.c, &self.delivery);
        completes(result)
    }
}

/// The store operation `command`'s step is, when it is one (`begin`, the inbox's check and
/// insert, the effect, the e-mail outbox row), on `event`'s payload as delivered; the store
/// answers it alone. An effect goes on from what its command says it already did.
fn store_op<'e>(
    scenario: &Scenario,
    command: &Command,
    event: &'e Event,
    fails: bool,
) -> Option<StoreOp<'e>> {
    let Action::Step(step) = command.action else {
        return None;
    };
    Some(match step {
        Step::Begin => match scenario.protocol.db_of(step, command.nth) {
            0 => StoreOp::Begin,
            on => StoreOp::BeginOn(on),
        },
        Step::CheckInbox => StoreOp::CheckInbox { event },
        Step::InsertInbox => StoreOp::InsertInbox { event },
        Step::ApplyEffect => StoreOp::ApplyEffect(EffectArgs {
            event,
            fail_credit: fails,
            done: command.resume.statements_done,
            read: command.resume.balances_read,
            track_transfer: scenario.workload.lifecycle,
        }),
        Step::EnqueueEmail => StoreOp::EnqueueEmail { event },
        _ => return None,
    })
}
