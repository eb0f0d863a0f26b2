//! Where a process meets a step boundary: the point is recorded as reached and, when the
//! fault injector says so (asked by `World::step`), a crash is carried out
//! the same way for every process: its volatile state dropped (`Host::handle_crash`), its
//! open transaction rolled back by the database, what the database and the broker confirm
//! recorded, and its restart scheduled; the restart is here too.

use super::*;
use crate::model::CrashCause;

/// A process of the run: whose boundary a crash point is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Process {
    Consumer(ConsumerId),
    Producer,
    /// A relay, by its index in the world's relays (events or emails).
    Relay(usize),
}

impl World<'_> {
    /// The trace's name for `p`.
    pub(super) fn actor_of(&self, p: Process) -> Actor {
        match p {
            Process::Consumer(c) => Actor::Consumer(c),
            Process::Producer => Actor::Producer,
            Process::Relay(r) => match self.relays[r].kind {
                RelayKind::Events => Actor::Relay,
                RelayKind::Emails => Actor::EmailRelay,
            },
        }
    }

    /// Records an entry of process `p` about `point` (its event, copy and attempt).
    pub(super) fn record_at(
        &mut self,
        now: Tick,
        p: Process,
        point: Option<&BoundaryPoint>,
        kind: TraceKind,
    ) {
        let actor = self.actor_of(p);
        self.record_point(now, actor, point, kind);
    }

    /// Records an entry of `actor` about `point` (its event, copy and attempt).
    fn record_point(
        &mut self,
        now: Tick,
        actor: Actor,
        point: Option<&BoundaryPoint>,
        kind: TraceKind,
    ) {
        self.push_entry(TraceEntry {
            tick: now,
            actor,
            kind,
            event: point.map(|p| p.event),
            copy: point.map_or(0, |p| p.copy),
            delivery: point.map_or(0, |p| p.delivery),
        });
    }

    /// Process `p` reached `point`: recorded as a crash point reached (once: after a
    /// consumer's retry some boundaries come again; only the first is a crash point).
    pub(super) fn reached(&mut self, p: Process, point: BoundaryPoint) {
        let again = matches!(p, Process::Consumer(_))
            && self
                .reached_seen
                .as_mut()
                .is_some_and(|seen| !seen.insert(point));
        if !again && self.healed.is_none() {
            self.reached.push(point);
        }
    }

    /// Process `p` crashes at `point` (for a consumer, with the delivery of `message` in
    /// hand), for `cause`: the crash carried out and recorded, its restart scheduled.
    pub(super) fn crash(
        &mut self,
        now: Tick,
        p: Process,
        point: BoundaryPoint,
        message: Option<MessageId>,
        cause: CrashCause,
    ) {
        let dropped_transaction = self.crash_process(p);
        let confirmed = self.confirmed(p, &point, message);
        let crash = TraceKind::Crash {
            boundary: point.boundary,
            cause,
        };
        self.record_at(now, p, Some(&point), crash);
        if dropped_transaction {
            self.record_at(now, p, Some(&point), TraceKind::CrashRollback);
        }
        if let Process::Consumer(c) = p {
            self.disconnect(now, c, &point);
        }
        self.crashes.push(CrashRecord {
            tick: now,
            point,
            cause,
            dropped_transaction,
            confirmed,
        });
        self.queue.push(
            now + self.scenario.consumer.restart_delay_ticks,
            Occurrence::Restart(p),
        );
        self.record_crash_state(now);
    }

    /// Process `p` starts again after its crash, empty ([`Host::handle_restart`]), and takes
    /// its first turn (a consumer rejoins the broker first).
    pub(super) fn restart(&mut self, now: Tick, p: Process) {
        let (restarted, turn) = match p {
            Process::Consumer(c) => {
                self.consumers[c].handle_restart();
                self.broker.handle_consumer_restart(now, c);
                (
                    TraceKind::ConsumerRestart,
                    Some(Occurrence::ConsumerTurn(c)),
                )
            }
            Process::Producer => {
                let producer = self.producer.as_mut().expect("only a producer restarts");
                producer.handle_restart();
                let turn = producer.poll_command().map(|_| Occurrence::ProducerTurn);
                let retries = self.scenario.producer.retry;
                (TraceKind::ProducerRestart { retries }, turn)
            }
            Process::Relay(r) => {
                self.relays[r].handle_restart();
                (TraceKind::RelayRestart, Some(Occurrence::RelayTurn(r)))
            }
        };
        self.record_at(now, p, None, restarted);
        if let Some(turn) = turn {
            self.queue.push(now, turn);
        }
    }

    /// The crash itself: `p` loses its volatile state, and SQLite rolls back the
    /// transaction its connection held open. Returns whether there was one.
    fn crash_process(&mut self, p: Process) -> bool {
        match p {
            Process::Consumer(c) => {
                self.consumers[c].handle_crash();
                self.stores[c].drop_open_transaction()
            }
            Process::Producer => {
                self.producer.as_mut().expect("a producer").handle_crash();
                self.producer_store
                    .as_mut()
                    .expect("a producer database")
                    .drop_open_transaction()
            }
            Process::Relay(r) => {
                self.relays[r].handle_crash();
                false
            }
        }
    }

    /// What the database and the broker confirm about `point`'s event right after the
    /// crash: a consumer's own connection (its transaction gone) and its delivery's
    /// message; for another process, the consumers' database unless a consumer's
    /// transaction is open on the connection that would read it (it would see its own
    /// uncommitted rows), and any copy of the event acked.
    fn confirmed(
        &mut self,
        p: Process,
        point: &BoundaryPoint,
        message: Option<MessageId>,
    ) -> Confirmed {
        let event_id = self.events[point.event].event_id.clone();
        let (ledger_rows, inbox_rows, acked) = match p {
            Process::Consumer(c) => {
                let (ledger, inbox) = self.stores[c].event_rows(&event_id);
                let m = message.expect("a consumer's crash point has its delivery");
                let acked = matches!(self.broker.messages()[m].state, MessageState::Acked { .. });
                (ledger, inbox, acked)
            }
            Process::Producer | Process::Relay(_) => {
                let (ledger, inbox) = if self.stores[0].in_transaction() {
                    (0, 0)
                } else {
                    self.stores[0].event_rows(&event_id)
                };
                let acked = self.broker.messages().iter().any(|m| {
                    m.event == point.event && matches!(m.state, MessageState::Acked { .. })
                });
                (ledger, inbox, acked)
            }
        };
        // An effect that is an external call is confirmed once the service has it.
        // Compared as text: interning the service (`CustomSchema::effect`) would take a lock
        // at every crash.
        let call = (self.scenario.store.custom.as_ref()).and_then(|c| c.effect_call.as_deref());
        let ledger_rows = match call {
            Some(service) => (self.external_effects.iter())
                .filter(|x| x.event == point.event && x.call == Some(service))
                .count() as u32,
            None => ledger_rows,
        };
        Confirmed {
            ledger_rows,
            inbox_rows,
            acked,
        }
    }

    /// Consumer `c`'s connection to the broker is gone: its broker transaction aborts and
    /// its unacked deliveries go back (or, with a log, its partitions are rebalanced).
    fn disconnect(&mut self, now: Tick, c: ConsumerId, point: &BoundaryPoint) {
        if self.outputs.handle_abort(c) > 0 {
            self.record_point(now, Actor::Broker, Some(point), TraceKind::OutputsDiscarded);
        }
        self.broker.handle_consumer_crash(now, c);
        let lost = TraceKind::ConnectionLost {
            consumer: c,
            rebalance: self.scenario.broker.log.is_some(),
        };
        self.record(now, Actor::Broker, None, lost);
    }

    /// Records the state right after a crash at `now`, when exploring.
    pub(super) fn record_crash_state(&mut self, now: Tick) {
        if self.options.fingerprints {
            let state = CrashState {
                digest: self.fingerprint(now),
                tick: now,
                steps: self.steps,
                trace_entries: self.trace.len(),
            };
            self.crash_states.push(state);
        }
    }
}
