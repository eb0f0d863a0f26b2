//! The actors upstream and beside the consumers: the producer process and the outbox
//! relays (the producer's, and the email relay on the consumer's side). Each runs on its own
//! turns, one step per tick, with crash points before and after every step, like a
//! consumer; a crash loses its volatile state and its open transaction, and it restarts
//! after the consumer's restart delay.
//!
//! Their crash points are named by step (`after:commit_transfer e0 d1`); `e` is the intent
//! (or the event an outbox row is for), `copy` counts earlier publications (or sends) of it,
//! and for the producer `d` is the request's attempt.

use super::crash::Process;
use super::{Occurrence, World, STEP_TICKS};
use crate::model::{
    Boundary, BoundaryPoint, Confirmation, EventIndex, ExternalEffect, Host, Step, Tick, TraceKind,
};
use crate::producer::{ProducerMode, ProducerResult};
use crate::relay::{RelayCommand, RelayKind, RelayResult};
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
        let intent = command.intent;
        let point = |side| BoundaryPoint {
            boundary: side,
            event: intent,
            copy: 0,
            delivery: command.attempt,
        };
        let step = command.step;
        let before = BoundaryPoint {
            copy: self.producer_copy(intent),
            ..point(Boundary::before(step))
        };
        let producer = self.producer.as_ref().expect("checked above");
        if !producer.half_done().past_before && self.side_crash(now, Process::Producer, before) {
            return;
        }
        let outbox = self.scenario.producer.mode == ProducerMode::Outbox;
        let store = self
            .producer_store
            .as_mut()
            .expect("an active producer has a database");
        let (result, kind) = match step {
            Step::InsertTransfer => {
                match store.insert_transfer(&self.events[intent], outbox, now) {
                    TransferWrite::Recorded => {
                        (ProducerResult::Done, TraceKind::TransferInserted { outbox })
                    }
                    TransferWrite::AlreadyRecorded => {
                        (ProducerResult::AlreadyRecorded, TraceKind::TransferKnown)
                    }
                    TransferWrite::Busy => (ProducerResult::Busy, TraceKind::Busy { step }),
                }
            }
            Step::CommitTransfer => {
                if store.commit_transfer() {
                    (ProducerResult::Done, TraceKind::TransferCommitted)
                } else {
                    (ProducerResult::Busy, TraceKind::Busy { step })
                }
            }
            Step::Publish => {
                let (event, how) = self.publish(now, intent);
                self.drain_broker(now);
                let (result, confirmation) = if self.publish_times_out(intent) {
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
        self.record_at(now, Process::Producer, Some(&before), kind);
        let producer = self.producer.as_mut().expect("checked above");
        producer.handle_answer(result);
        if result != ProducerResult::Busy {
            if step == Step::CommitTransfer && outbox {
                self.wake_relay(now, RelayKind::Events);
            }
            // The "after" point of a publish counts the publication it just made.
            let after = BoundaryPoint {
                boundary: Boundary::after(step),
                ..before
            };
            if self.side_crash(now, Process::Producer, after) {
                return;
            }
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
        let kind = self.relays[r].kind;
        let (send, mark) = kind.steps();
        let table = match kind {
            RelayKind::Events => OutboxTable::Events,
            RelayKind::Emails => OutboxTable::Emails,
        };
        let side = Process::Relay(r);
        match command {
            RelayCommand::Send => {
                let Some((row, event)) = self.relay_stores[r].next_unsent(table) else {
                    self.record_at(now, side, None, TraceKind::OutboxEmpty);
                    self.relays[r].handle_answer(RelayResult::Empty);
                    return;
                };
                let point = self.relay_point(r, Boundary::before(send), event);
                if self.side_crash(now, side, point) {
                    return;
                }
                let mut answer = RelayResult::Sent { row, event };
                let sent = match kind {
                    RelayKind::Events => {
                        let (published, how) = self.publish(now, event);
                        self.drain_broker(now);
                        // `faults.publish_timeout`: the broker has the message, the relay
                        // never hears so, and sends the row again.
                        if self.publish_times_out(event) {
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
                self.record_at(now, side, Some(&point), sent);
                if answer == RelayResult::TimedOut {
                    let timed_out = TraceKind::PublishTimedOut { intent: event };
                    self.record_at(now, side, Some(&point), timed_out);
                }
                self.relays[r].handle_answer(answer);
                self.relay_sends[r][event] += 1;
                let after = BoundaryPoint {
                    boundary: Boundary::after(send),
                    ..point
                };
                if self.side_crash(now, side, after) {
                    return;
                }
            }
            RelayCommand::Mark { row, event } => {
                // The mark belongs to the send just made: the same copy number.
                let mut point = self.relay_point(r, Boundary::before(mark), event);
                point.copy -= 1;
                if !self.relays[r].half_done().past_before && self.side_crash(now, side, point) {
                    return;
                }
                if !self.relay_stores[r].mark_sent(table, row) {
                    let busy = TraceKind::Busy { step: mark };
                    self.record_at(now, side, Some(&point), busy);
                    self.relays[r].handle_answer(RelayResult::Busy);
                } else {
                    let marked = TraceKind::MarkedSent { step: mark, row };
                    self.record_at(now, side, Some(&point), marked);
                    self.relays[r].handle_answer(RelayResult::Marked);
                    let after = BoundaryPoint {
                        boundary: Boundary::after(mark),
                        ..point
                    };
                    if self.side_crash(now, side, after) {
                        return;
                    }
                }
            }
        }
        self.queue.push(now + STEP_TICKS, Occurrence::RelayTurn(r));
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

    /// The producer or a relay reached `point`: crashed there if the fault injector says
    /// so (see [`World::boundary`]). Returns whether it crashed.
    fn side_crash(&mut self, now: Tick, side: Process, point: BoundaryPoint) -> bool {
        self.boundary(now, side, point, None)
    }
}
