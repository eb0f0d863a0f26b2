//! The actors upstream and beside the consumers: the producer process and the outbox
//! relays (the producer's, and the email relay on the consumer's side). Each runs on its own
//! turns, one step per tick, taken by `World::step` like a consumer's, with crash points
//! before and after every step; here is each one's own part of a step (`ProducerStep`,
//! `RelayStep`: where its points are, what its commands do). A crash loses its volatile
//! state and its open transaction, and it restarts after the consumer's restart delay.
//!
//! Their crash points are named by step (`after:commit_transfer e0 d1`); `e` is the intent
//! (or the event an outbox row is for), `copy` counts earlier publications (or sends) of it,
//! and for the producer `d` is the request's attempt.

use super::crash::Process;
use super::step::{ProcessStep, StepEnd};
use super::{Occurrence, World, STEP_TICKS};
use crate::fault::StepQuery;
use crate::model::{
    Boundary, BoundaryPoint, Confirmation, EventIndex, ExternalEffect, HalfDone, Host, Step,
    StepFaults, Tick, TraceKind,
};
use crate::producer::{ProducerCommand, ProducerMode, ProducerResult};
use crate::relay::{RelayAction, RelayKind, RelayResult};
use crate::store::{OutboxTable, TransferWrite};

impl World<'_> {
    /// The copy number that names the producer's next crash point for `intent`: its
    /// publications so far, as a republished copy is named, but never a number an earlier
    /// request of the same intent already used. (A request that died without publishing
    /// left the count where it was; the next request's points would otherwise have the
    /// same names as its, and a crash planned at one would fire at the other.)
    fn producer_copy(&mut self, intent: EventIndex) -> u32 {
        let request = self
            .producer
            .as_ref()
            .map_or(0, crate::producer::Producer::request);
        let names = &mut self.producer_names;
        if names.request != Some(request) {
            names.request = Some(request);
            names.floor[intent] = names.used[intent].map_or(0, |u| u + 1);
        }
        let copy = self.intent_publications[intent].max(names.floor[intent]);
        names.used[intent] = Some(names.used[intent].map_or(copy, |u| u.max(copy)));
        copy
    }

    /// One producer step, with its crash points.
    pub(super) fn producer_turn(&mut self, now: Tick) {
        let Some(command) = self.producer.as_ref().and_then(|p| p.poll_command()) else {
            return;
        };
        self.steps += 1;
        let before = BoundaryPoint {
            boundary: Boundary::before(command.step),
            event: command.intent,
            copy: self.producer_copy(command.intent),
            delivery: command.attempt,
        };
        if self.step(now, &mut ProducerStep { command, before }) != StepEnd::Done {
            return;
        }
        if self
            .producer
            .as_ref()
            .is_some_and(|p| p.poll_command().is_some())
        {
            self.queue.push(now + STEP_TICKS, Occurrence::ProducerTurn);
        }
    }

    /// One relay step, with its crash points.
    pub(super) fn relay_turn(&mut self, now: Tick, r: usize) {
        let Some(command) = self.relays[r].poll_command() else {
            return;
        };
        self.steps += 1;
        let (send, mark) = self.relays[r].kind.steps();
        let resume = command.resume;
        let mut s = match command.action {
            RelayAction::Send => {
                let table = self.outbox(r);
                let Some((row, event)) = self.relay_stores[r].next_unsent(table) else {
                    self.record_at(now, Process::Relay(r), None, TraceKind::OutboxEmpty);
                    self.relays[r].handle_answer(RelayResult::Empty);
                    return;
                };
                let before = self.relay_point(r, Boundary::before(send), event);
                RelayStep {
                    r,
                    row,
                    mark: false,
                    before,
                    resume,
                }
            }
            RelayAction::Mark { row, event } => {
                // The mark belongs to the send just made: the same copy number.
                let mut before = self.relay_point(r, Boundary::before(mark), event);
                before.copy -= 1;
                RelayStep {
                    r,
                    row,
                    mark: true,
                    before,
                    resume,
                }
            }
        };
        if self.step(now, &mut s) == StepEnd::Done {
            self.queue.push(now + STEP_TICKS, Occurrence::RelayTurn(r));
        }
    }

    /// The outbox table relay `r` reads.
    fn outbox(&self, r: usize) -> OutboxTable {
        match self.relays[r].kind {
            RelayKind::Events => OutboxTable::Events,
            RelayKind::Emails => OutboxTable::Emails,
        }
    }

    /// Relay `r` sends outbox row `row` (for the event of `point`): publishes it (its
    /// confirmation lost when `times_out`), or sends its email.
    fn relay_send(
        &mut self,
        now: Tick,
        r: usize,
        row: i64,
        point: &BoundaryPoint,
        times_out: bool,
    ) -> RelayResult {
        let (side, event) = (Process::Relay(r), point.event);
        let mut answer = RelayResult::Sent { row, event };
        let sent = match self.relays[r].kind {
            RelayKind::Events => {
                let (published, how) = self.publish(now, event);
                self.drain_broker(now);
                // `faults.publish_timeout`: the broker has the message, the relay never
                // hears so, and sends the row again.
                if times_out {
                    answer = RelayResult::TimedOut;
                }
                TraceKind::RelayPublished {
                    row,
                    event: published,
                    how,
                }
            }
            RelayKind::Emails => {
                self.external_effects.push(ExternalEffect {
                    call: None,
                    tick: now,
                    event,
                    copy: self.relay_sends[r][event],
                    delivery: 0,
                });
                TraceKind::EmailSent {
                    row,
                    idempotency_key: self.scenario.email.idempotency_key,
                }
            }
        };
        self.record_at(now, side, Some(point), sent);
        if answer == RelayResult::TimedOut {
            let timed_out = TraceKind::PublishTimedOut { intent: event };
            self.record_at(now, side, Some(point), timed_out);
        }
        answer
    }

    fn relay_point(&self, r: usize, boundary: Boundary, event: EventIndex) -> BoundaryPoint {
        BoundaryPoint {
            boundary,
            event,
            copy: self.relay_sends[r][event],
            delivery: 1,
        }
    }

    /// New rows were committed to `kind`'s outbox: its relay, if waiting, takes a turn.
    pub(super) fn wake_relay(&mut self, now: Tick, kind: RelayKind) {
        for r in 0..self.relays.len() {
            if self.relays[r].kind == kind && self.relays[r].handle_wake() {
                self.queue.push(now, Occurrence::RelayTurn(r));
            }
        }
    }
}

/// A producer's step, as [`World::step`] drives it.
struct ProducerStep {
    command: ProducerCommand,
    before: BoundaryPoint,
}

impl ProcessStep for ProducerStep {
    type Answer = ProducerResult;

    fn process(&self) -> Process {
        Process::Producer
    }

    fn resume(&self) -> HalfDone {
        self.command.resume
    }

    fn before(&self) -> BoundaryPoint {
        self.before
    }

    fn query<'s>(&'s self, _: &World, _: Tick) -> Option<StepQuery<'s>> {
        let event = self.command.intent;
        (self.command.step == Step::Publish).then_some(StepQuery::Publish { event })
    }

    fn perform(&mut self, w: &mut World, now: Tick, faults: StepFaults) -> ProducerResult {
        let (intent, step) = (self.command.intent, self.command.step);
        let outbox = w.scenario.producer.mode == ProducerMode::Outbox;
        let store = w
            .producer_store
            .as_mut()
            .expect("an active producer has a database");
        let (result, kind) = match step {
            Step::InsertTransfer => match store.insert_transfer(&w.events[intent], outbox, now) {
                TransferWrite::Recorded => {
                    (ProducerResult::Done, TraceKind::TransferInserted { outbox })
                }
                TransferWrite::AlreadyRecorded => {
                    (ProducerResult::AlreadyRecorded, TraceKind::TransferKnown)
                }
                TransferWrite::Busy => (ProducerResult::Busy, TraceKind::Busy { step }),
            },
            Step::CommitTransfer => {
                if store.commit_transfer() {
                    (ProducerResult::Done, TraceKind::TransferCommitted)
                } else {
                    (ProducerResult::Busy, TraceKind::Busy { step })
                }
            }
            Step::Publish => {
                let (event, how) = w.publish(now, intent);
                w.drain_broker(now);
                let (result, confirmation) = if faults.publish_times_out {
                    (ProducerResult::Timeout, Confirmation::TimedOut)
                } else {
                    (ProducerResult::Done, Confirmation::Confirmed)
                };
                let published = TraceKind::Published {
                    event,
                    how,
                    confirmation,
                };
                (result, published)
            }
            other => unreachable!("{other} is not a producer step"),
        };
        w.record_at(now, Process::Producer, Some(&self.before), kind);
        result
    }

    fn answer(&mut self, w: &mut World, now: Tick, result: ProducerResult) -> bool {
        let producer = w.producer.as_mut().expect("a producer steps");
        producer.handle_answer(result);
        if result == ProducerResult::Busy {
            return false;
        }
        let outbox = w.scenario.producer.mode == ProducerMode::Outbox;
        if self.command.step == Step::CommitTransfer && outbox {
            w.wake_relay(now, RelayKind::Events);
        }
        true
    }
}

/// A relay's step (a send, or the mark of the row just sent), as [`World::step`] drives it.
struct RelayStep {
    r: usize,
    row: i64,
    mark: bool,
    before: BoundaryPoint,
    resume: HalfDone,
}

impl ProcessStep for RelayStep {
    type Answer = RelayResult;

    fn process(&self) -> Process {
        Process::Relay(self.r)
    }

    fn resume(&self) -> HalfDone {
        self.resume
    }

    fn before(&self) -> BoundaryPoint {
        self.before
    }

    fn query<'s>(&'s self, w: &World, _: Tick) -> Option<StepQuery<'s>> {
        let publishes = !self.mark && w.relays[self.r].kind == RelayKind::Events;
        let event = self.before.event;
        publishes.then_some(StepQuery::Publish { event })
    }

    fn perform(&mut self, w: &mut World, now: Tick, faults: StepFaults) -> RelayResult {
        let (r, row, side) = (self.r, self.row, Process::Relay(self.r));
        let (_, mark) = w.relays[r].kind.steps();
        if self.mark {
            let table = w.outbox(r);
            if !w.relay_stores[r].mark_sent(table, row) {
                let busy = TraceKind::Busy { step: mark };
                w.record_at(now, side, Some(&self.before), busy);
                return RelayResult::Busy;
            }
            let marked = TraceKind::MarkedSent { step: mark, row };
            w.record_at(now, side, Some(&self.before), marked);
            return RelayResult::Marked;
        }
        w.relay_send(now, r, row, &self.before, faults.publish_times_out)
    }

    fn answer(&mut self, w: &mut World, _now: Tick, answer: RelayResult) -> bool {
        w.relays[self.r].handle_answer(answer);
        if self.mark {
            return answer == RelayResult::Marked;
        }
        w.relay_sends[self.r][self.before.event] += 1;
        true
    }
}
