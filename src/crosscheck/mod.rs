//! The cross-check of the crash model against reality: the same scenario, crash point by
//! crash point, run once in the simulator and once with a real consumer process on a real
//! SQLite file that is killed with SIGKILL at the crash point.
//!
//! The simulator's claim is that a crashed consumer loses its open transaction and keeps
//! what it committed. Here the parent process plays the broker (the same sans-IO
//! [`Broker`], in memory, never crashing), the producer and the clock; the consumer is a
//! child process (the binary's hidden `__consumer` mode, [`child`]) that runs the same
//! [`crate::consumer::Consumer`] against a database file in WAL mode with
//! `synchronous=FULL`, and talks to the parent over pipes ([`wire`]). At the crash point
//! the child says it is there and blocks; the parent kills it (SIGKILL: no destructor, no
//! clean-up, the transaction left open), starts a new child, which opens the file and
//! recovers as SQLite does, and goes on. At the end the parent reads the file through the
//! store's committed-state queries and applies the same checker.
//!
//! The parent drives virtual time exactly as the simulation's world does for one consumer
//! (a tick per step, the restart delay, the broker's redelivery timers), so the two runs
//! must agree on everything: the consumer's steps and the database's answers, the points
//! reached, what was committed at each crash, and the verdict. [`compare`] lists every
//! difference. Only what one process against one file can reproduce is cross-checked: one
//! consumer, the queue broker, a direct producer ([`refusal`] says why anything else is
//! refused).
//!
//! This module reads no clock: the caller times [`simulate`] and [`real`] from outside.

pub mod child;
mod compare;
mod process;
pub mod wire;

pub use compare::*;
use process::ChildProcess;

use crate::broker::{
    AckOutcome, Broker, BrokerOutput, Delivery, MessageId, MessageState, OutputState, OutputTopic,
    TimerKind,
};
use crate::check::{self, Verdict};
use crate::explore;
use crate::fault::{Confirmed, CrashCause, CrashRecord, CrashSpec, FaultInjector};
use crate::model::{
    Account, Boundary, BoundaryPoint, Event, EventIndex, EventType, ExternalEffect, Side, Step,
    Tick, TraceKind,
};
use crate::producer::Identity;
use crate::scenario::Scenario;
use crate::sim::{Actor, EventQueue, StopReason};
use crate::store::{CrashModel, EffectMode, Store, StoreError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use wire::{FromChild, Setup, ToChild, WireAck, WireError};

/// The hidden subcommand that runs the consumer process.
pub const CHILD_COMMAND: &str = "__consumer";

/// Why `crosscheck` cannot reproduce `scenario` with one real process, if it cannot.
pub fn refusal(s: &Scenario) -> Option<String> {
    let why = if s.consumers != 1 {
        format!(
            "it has {} consumers; crosscheck runs one consumer process (the interleavings of \
             several real processes are the operating system's choice, not a schedule that \
             can be replayed)",
            s.consumers
        )
    } else if s.broker.log.is_some() {
        "it uses the log broker (`broker.kind: log`); crosscheck plays the queue broker".into()
    } else if s.producer.active() {
        "it runs a producer process (`producer.mode`); crosscheck publishes directly and runs \
         only the consumer for real"
            .into()
    } else if s.producer.identity == Identity::PerAttempt {
        "its producer mints a new event_id per attempt (`producer.identity: per_attempt`); \
         crosscheck publishes each event under its own id"
            .into()
    } else if s.protocol.has(Step::EnqueueEmail) {
        "its protocol has `enqueue_email`, which needs the email relay, a second process on \
         the database"
            .into()
    } else if s.store.effect == EffectMode::ReadModifyWrite {
        "its effect is a read-modify-write (`store.effect`), a step spread over two turns; \
         crosscheck runs atomic effects"
            .into()
    } else if !s.faults.commit_timeout.is_empty() {
        "it has commit timeouts (`faults.commit_timeout`), which need the network between \
         the consumer and its database; crosscheck has none"
            .into()
    } else if s.store.retention.is_some() {
        "it runs the inbox retention job (`store.inbox_ttl_ticks`), a second connection on \
         its own schedule; crosscheck's consumer is the only process on the file"
            .into()
    } else if !s.faults.stall.is_empty() {
        "it stalls the consumer (`faults.stall`); crosscheck's consumer never pauses".into()
    } else if !s.workload.invalid.is_empty() {
        "it declares invalid payloads (`workload.invalid`), which the simulated consumer \
         refuses before applying; crosscheck's child process has no such validation"
            .into()
    } else {
        return None;
    };
    Some(why)
}

/// Every single crash point `explore` enumerates for `scenario` at depth 1, in its order.
pub fn crash_points(scenario: &Scenario) -> Vec<BoundaryPoint> {
    explore::single_crash_points(scenario)
        .runs
        .iter()
        .skip(1)
        .map(|r| r.crashes[0])
        .collect()
}

/// `scenario` with exactly one planned crash at `point` (none for `None`) and no random
/// crashes: what each cross-checked run is.
pub fn with_crash(scenario: &Scenario, point: Option<BoundaryPoint>) -> Scenario {
    let mut s = scenario.clone();
    s.faults.crash = point.into_iter().map(CrashSpec::exactly).collect();
    s.faults.random_crash = None;
    s
}

/// Runs `scenario` with a crash at `point` in the simulator, with the crash model `model`
/// (only a test sets the wrong one).
pub fn simulate(
    scenario: &Scenario,
    point: Option<BoundaryPoint>,
    model: CrashModel,
) -> Observation {
    let mut s = with_crash(scenario, point);
    s.store.crash_model = model;
    let result = crate::world::run(&s);
    let lines = result
        .trace
        .entries()
        .iter()
        .filter(|e| e.actor == Actor::Consumer(0))
        .map(|e| Line {
            tick: e.tick,
            action: e.action().to_string(),
            event: e.event,
            copy: e.copy,
            delivery: e.delivery,
            // The cause of a crash is the simulator's bookkeeping; the real side was killed,
            // so both say where only.
            outcome: match e.kind {
                TraceKind::Crash { boundary, .. } => format!("crash at {boundary}"),
                ref kind => kind.to_string(),
            },
        })
        .collect();
    Observation {
        lines,
        reached: result.reached,
        crashes: result.crashes,
        stop: result.stop,
        end_tick: result.end_tick,
        steps: result.steps,
        verdict: result.verdict,
    }
}

/// A verdict in a few words: `exactly-once (3 once)`, `at-least-once (2 once, 1
/// duplicated)`.
pub fn outcome(v: &Verdict) -> String {
    let mut parts = vec![format!("{} once", v.exactly_once)];
    for (n, what) in [
        (v.lost, "lost"),
        (v.duplicated, "duplicated"),
        (v.dead_lettered, "dead-lettered"),
        (v.rejected, "rejected"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    format!("{} ({})", v.guarantee, parts.join(", "))
}

/// One cross-checked point: both runs, their differences, and how long each took (measured
/// by the caller, from outside).
#[derive(Debug)]
pub struct Checked {
    /// The crash point (`None`: the crash-free run).
    pub point: Option<BoundaryPoint>,
    pub simulated: Observation,
    /// The real run, or why it could not be carried out (which counts as a mismatch).
    pub real: Result<Observation, String>,
    pub differences: Vec<Difference>,
    pub simulated_seconds: f64,
    pub real_seconds: f64,
}

impl Checked {
    /// Whether the real run happened and showed no difference.
    pub fn matches(&self) -> bool {
        self.real.is_ok() && self.differences.is_empty()
    }

    /// Keeps what the report reads of a point whose traces it does not print (a match, or
    /// a mismatch past the first [`MAX_DETAILED_MISMATCHES`]): the outcomes, the
    /// differences and the timings; so that a cross-check of hundreds of points does not
    /// hold hundreds of traces.
    pub fn slim(&mut self) {
        for o in std::iter::once(&mut self.simulated).chain(self.real.as_mut().ok()) {
            o.lines = Vec::new();
            o.reached = Vec::new();
            o.verdict.slim();
        }
    }
}

/// How many mismatching points keep both consumer traces for the report.
pub const MAX_DETAILED_MISMATCHES: usize = 16;

/// The most consumer steps one cross-check may take in real processes, estimated up front
/// (points × steps of the crash-free run): each real step is a statement on a file synced
/// to disk, a few thousand a second, so this is some ten minutes.
pub const MAX_REAL_STEPS: u128 = 2_000_000;

/// Why a real run could not be carried out (never a difference of outcome: those are
/// [`Difference`]s).
#[derive(Debug, thiserror::Error)]
pub enum RealError {
    #[error("could not start the consumer process {exe}: {error}")]
    Spawn { exe: PathBuf, error: std::io::Error },
    #[error("talking to the consumer process: {0}")]
    Wire(#[from] WireError),
    #[error("the consumer process broke the protocol: {0}")]
    Protocol(String),
    #[error("the database file: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Runs `scenario` for real with a SIGKILL at `point` (none for `None`): the consumer is
/// `exe __consumer`, a child process, on a database file in a private temporary directory
/// that is removed when this returns, whatever happened (the children are killed first).
pub fn real(
    scenario: &Scenario,
    point: Option<BoundaryPoint>,
    exe: &Path,
) -> Result<Observation, RealError> {
    // Declared first, dropped last: every child is dead before the directory goes.
    let dir = tempfile::Builder::new()
        .prefix("delivery-sim-crosscheck-")
        .tempdir()?;
    let s = with_crash(scenario, point);
    let db = dir.path().join("consumer.sqlite");
    let accounts = s.workload.accounts();
    // The parent creates the file (schema and opening balances), as a deployment would
    // before its consumer starts; it is closed before the first child opens it.
    drop(Store::open_file(&db, &s.store, &accounts)?);
    let driver = Driver::new(&s, exe, db, accounts);
    driver.run()
}

/// What the parent's scheduler runs: the same occurrences as the world's, for one consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Occurrence {
    ConsumerTurn,
    ConsumerRestart,
    BrokerTimer(MessageId, TimerKind),
    DeadLetterReplay,
}

/// The parent of a real run: broker, producer, clock and fault plan.
struct Driver<'s> {
    scenario: &'s Scenario,
    exe: &'s Path,
    setup: Setup,
    db: PathBuf,
    accounts: Vec<Account>,
    events: Vec<Event>,
    altered: BTreeMap<(EventIndex, u32), Event>,
    copies: Vec<u32>,
    broker: Broker,
    faults: FaultInjector,
    queue: EventQueue<Occurrence>,
    outputs: OutputTopic,
    child: Option<ChildProcess>,
    lines: Vec<Line>,
    reached: Vec<BoundaryPoint>,
    crashes: Vec<CrashRecord>,
    external_effects: Vec<ExternalEffect>,
    duplicates_discarded: Vec<u32>,
    steps: u64,
}

impl<'s> Driver<'s> {
    fn new(s: &'s Scenario, exe: &'s Path, db: PathBuf, accounts: Vec<Account>) -> Driver<'s> {
        let events = s.events();
        Driver {
            setup: Setup {
                db: db.clone(),
                protocol_name: s.protocol.name.clone(),
                steps: s.protocol.steps.iter().map(|p| p.name().into()).collect(),
                store: s.store.clone(),
                accounts: accounts.clone(),
                track_transfer: s.workload.lifecycle,
            },
            scenario: s,
            exe,
            db,
            accounts,
            copies: vec![0; events.len()],
            duplicates_discarded: vec![0; events.len()],
            events,
            altered: BTreeMap::new(),
            broker: Broker::new(s.broker.clone(), s.seed, 1),
            faults: FaultInjector::new(s.faults.clone(), s.seed),
            queue: EventQueue::default(),
            outputs: OutputTopic::new(s.broker.transactional),
            child: None,
            lines: Vec::new(),
            reached: Vec::new(),
            crashes: Vec::new(),
            external_effects: Vec::new(),
            steps: 0,
        }
    }

    fn line(&mut self, tick: Tick, action: &str, d: Option<Delivery>, outcome: String) {
        self.lines.push(Line {
            tick,
            action: action.to_string(),
            event: d.map(|d| d.event),
            copy: d.map_or(0, |d| d.copy),
            delivery: d.map_or(0, |d| d.attempt),
            outcome,
        });
    }

    fn child(&mut self) -> &mut ChildProcess {
        self.child
            .as_mut()
            .expect("the consumer process is up while it takes turns")
    }

    fn run(mut self) -> Result<Observation, RealError> {
        self.child = Some(ChildProcess::spawn(self.exe, &self.setup)?);
        self.publish_all()?;
        self.queue.push(0, Occurrence::ConsumerTurn);
        let limits = self.scenario.limits;
        let mut now = 0;
        let stop = loop {
            let Some((at, occurrence)) = self.queue.pop() else {
                break StopReason::Quiescent;
            };
            if at > limits.max_ticks {
                break StopReason::TickLimit;
            }
            now = at;
            match occurrence {
                Occurrence::ConsumerTurn => {
                    if self.steps >= limits.max_steps {
                        break StopReason::StepLimit;
                    }
                    if self.child.is_some() {
                        self.turn(now)?;
                    }
                }
                Occurrence::ConsumerRestart => {
                    // A new process: it opens the file the killed one left behind.
                    self.child = Some(ChildProcess::spawn(self.exe, &self.setup)?);
                    self.broker.handle_consumer_restart(now, 0);
                    self.line(now, "restart", None, "back to receive".into());
                    self.queue.push(now, Occurrence::ConsumerTurn);
                }
                Occurrence::DeadLetterReplay => {
                    self.broker.handle_dead_letter_replay(now);
                }
                Occurrence::BrokerTimer(m, kind) => {
                    self.broker.handle_timer(now, m, kind);
                }
            }
            self.drain_broker(now)?;
        };
        if let Some(mut child) = self.child.take() {
            let rolled_back = child.close()?;
            if stop != StopReason::Quiescent && rolled_back {
                self.line(now, "stop", None, "open transaction rolled back".into());
            }
        }
        let committed =
            Store::open_file(&self.db, &self.scenario.store, &self.accounts)?.committed_state();
        let s = self.scenario;
        let outputs = self.outputs.committed_per_event(self.events.len());
        let verdict = check::check(&check::Observed {
            invalid: &[], // Refused above: no invalid payloads here.
            scopes: check::ScopeInputs {
                intents: s.workload.events,
                per_intent: s.reports_intents(),
                business_key: s.store.business_key_unique,
                committed_intents: None,
                email: (s.protocol.has(Step::ExternalEffect) || s.protocol.has(Step::EnqueueEmail))
                    .then_some(s.email.idempotency_key),
                outputs: s
                    .protocol
                    .has(Step::ProduceOutput)
                    .then_some(outputs.as_slice()),
            },
            events: &self.events,
            accounts: &self.accounts,
            protocol: &s.protocol,
            committed: &committed,
            messages: self.broker.messages(),
            crashes: &self.crashes,
            external_effects: &self.external_effects,
            duplicates_discarded: &self.duplicates_discarded,
            // Retention is refused: no inbox row ever expires here.
            inbox_expired_at: &[],
            stop,
        });
        Ok(Observation {
            lines: self.lines,
            reached: self.reached,
            crashes: self.crashes,
            stop,
            end_tick: now,
            steps: self.steps,
            verdict,
        })
    }

    /// The direct producer, as the world's: every event at tick 0, then the exact
    /// republishes, then the altered ones, each publication repeated as often as it times
    /// out.
    fn publish_all(&mut self) -> Result<(), RealError> {
        let w = &self.scenario.workload;
        let intents = w.events;
        let exact = w.republish.len();
        let mut alterations = vec![0u32; intents];
        let order: Vec<EventIndex> = (0..intents)
            .chain(w.republish.iter().copied())
            .chain(w.republish_altered.iter().copied())
            .collect();
        for (i, intent) in order.into_iter().enumerate() {
            if i >= intents + exact {
                alterations[intent] += 1;
                let altered = self.events[intent].altered(alterations[intent]);
                self.altered.insert((intent, self.copies[intent]), altered);
            }
            self.publish(intent);
            while self.faults.publish_times_out(intent) {
                self.publish(intent);
            }
        }
        self.drain_broker(0)
    }

    fn publish(&mut self, event: EventIndex) {
        let copy = self.copies[event];
        self.copies[event] += 1;
        let key = self.events[event].transfer_id.clone();
        self.broker.handle_publish(0, event, copy, &key);
    }

    fn drain_broker(&mut self, now: Tick) -> Result<(), RealError> {
        while let Some(out) = self.broker.poll_output() {
            match out {
                BrokerOutput::Timer { at, message, kind } => {
                    self.queue.push(at, Occurrence::BrokerTimer(message, kind))
                }
                BrokerOutput::DeadLetterReplayTimer { at } => {
                    self.queue.push(at, Occurrence::DeadLetterReplay)
                }
                BrokerOutput::DeadLettered { .. } => {}
                BrokerOutput::Ready { .. } => {
                    // A crashed consumer is down until its restart: nobody to tell.
                    if let Some(child) = &mut self.child {
                        child.send(&ToChild::Ready)?;
                        match child.recv()? {
                            FromChild::WantsTurn { wants: true } => {
                                self.queue.push(now, Occurrence::ConsumerTurn)
                            }
                            FromChild::WantsTurn { wants: false } => {}
                            other => {
                                return Err(RealError::Protocol(format!(
                                    "expected wants_turn, got {other:?}"
                                )))
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// One turn of the consumer process, answering what it asks until the turn ends or
    /// the process is killed at its crash point.
    fn turn(&mut self, now: Tick) -> Result<(), RealError> {
        self.child().send(&ToChild::Turn { now })?;
        // The delivery this turn received, if it was a `receive` that got one.
        let mut received = None;
        loop {
            match self.child().recv()? {
                FromChild::Receive => {
                    let answer = match self.broker.handle_receive(now, 0) {
                        Some(d) => {
                            received = Some(d);
                            if self.faults.duplicates_delivery(&d) {
                                self.broker.handle_duplicate_delivery(now, d.message);
                            }
                            let event = self
                                .altered
                                .get(&(d.event, d.copy))
                                .unwrap_or(&self.events[d.event])
                                .clone();
                            ToChild::Delivery {
                                delivery: Some(d.into()),
                                event: Some(event),
                            }
                        }
                        None => ToChild::Delivery {
                            delivery: None,
                            event: None,
                        },
                    };
                    self.child().send(&answer)?;
                }
                FromChild::Reached {
                    boundary,
                    delivery,
                    in_transaction,
                } => {
                    let boundary = Boundary::parse(&boundary).map_err(RealError::Protocol)?;
                    let d = Delivery::from(delivery);
                    let point = d.point(boundary);
                    self.reached.push(point);
                    if let Some(cause) = self.faults.crash_at(&point) {
                        self.steps += 1;
                        return self.crash(now, point, cause, d, in_transaction);
                    }
                    // The world asks whether a step fails right after its "before" boundary.
                    let fail = boundary.side == Side::Before
                        && boundary.step != Step::Receive
                        && self.faults.fails(boundary.step, &d, now);
                    self.child().send(&ToChild::Go { fail })?;
                }
                FromChild::Performed {
                    action,
                    delivery,
                    outcome,
                    duplicate,
                } => {
                    let d = delivery.map(Delivery::from);
                    if duplicate {
                        let d = d.expect("a duplicate names its delivery");
                        self.duplicates_discarded[d.event] += 1;
                    }
                    self.line(now, &action, d, outcome);
                }
                FromChild::Ack { delivery } => {
                    let d = Delivery::from(delivery);
                    let (outcome, text) = if self.faults.loses_ack(&d) {
                        self.outputs.handle_abort(0);
                        (
                            AckOutcome::Accepted,
                            "ack lost on the way: the consumer believes it acked, the broker \
                             never heard it",
                        )
                    } else {
                        let outcome = self.broker.handle_ack(now, &d);
                        match outcome {
                            AckOutcome::Accepted | AckOutcome::StaleAccepted => {
                                self.outputs.handle_ack_accepted(0)
                            }
                            AckOutcome::Stale | AckOutcome::AlreadyAcked => {
                                self.outputs.handle_abort(0)
                            }
                        };
                        let text = match outcome {
                            AckOutcome::Accepted => "acked: the broker forgets the message",
                            AckOutcome::AlreadyAcked => "already acked",
                            AckOutcome::Stale => {
                                "stale ack ignored: the message was delivered again"
                            }
                            AckOutcome::StaleAccepted => {
                                "stale ack accepted: the message is acked, whoever else holds it"
                            }
                        };
                        (outcome, text)
                    };
                    self.line(now, "ack", Some(d), text.into());
                    self.child().send(&ToChild::Acked {
                        outcome: WireAck::from(outcome),
                    })?;
                }
                FromChild::Nack { delivery } => {
                    let d = Delivery::from(delivery);
                    self.broker.handle_nack(now, &d);
                    self.outputs.handle_abort(0);
                    self.line(
                        now,
                        "nack",
                        Some(d),
                        "rejected: the broker will redeliver".into(),
                    );
                }
                FromChild::External { delivery } => {
                    let d = Delivery::from(delivery);
                    self.external_effects.push(ExternalEffect {
                        tick: now,
                        event: d.event,
                        copy: d.copy,
                        delivery: d.attempt,
                    });
                    self.line(
                        now,
                        "external_effect",
                        Some(d),
                        "sent (outside the database: never rolled back)".into(),
                    );
                }
                FromChild::Produce { delivery } => {
                    let d = Delivery::from(delivery);
                    let text = match self.outputs.handle_produce(0, d.event) {
                        OutputState::Staged => {
                            "TransferApplied staged in the broker transaction (visible at the ack)"
                        }
                        _ => "TransferApplied published to the output topic (visible at once)",
                    };
                    self.line(now, "produce_output", Some(d), text.into());
                }
                FromChild::TurnEnd { stale, waiting } => {
                    if !stale {
                        self.steps += 1;
                        if !waiting {
                            let delay = self.completion_delay(now, received);
                            self.queue.push(now + 1 + delay, Occurrence::ConsumerTurn);
                        }
                    }
                    return Ok(());
                }
                other => {
                    return Err(RealError::Protocol(format!(
                        "unexpected {other:?} during a turn"
                    )))
                }
            }
        }
    }

    /// With `consumer.completion_delay_ticks`, as the world: a consumer that just received
    /// a `TransferCompleted` sleeps before processing it. Returns the ticks it sleeps.
    fn completion_delay(&mut self, now: Tick, received: Option<Delivery>) -> Tick {
        let delay = self.scenario.consumer.completion_delay_ticks;
        match received {
            Some(d)
                if delay > 0 && self.events[d.event].event_type == EventType::TransferCompleted =>
            {
                self.line(
                    now,
                    "sleep",
                    Some(d),
                    format!(
                        "a TransferCompleted: sleeps {delay} ticks to give its TransferCreated \
                         time, holding the delivery"
                    ),
                );
                delay
            }
            _ => 0,
        }
    }

    /// The consumer process is blocked at `point`: SIGKILL it, see what the file kept, and
    /// let the broker redeliver what it held.
    fn crash(
        &mut self,
        now: Tick,
        point: BoundaryPoint,
        cause: CrashCause,
        d: Delivery,
        in_transaction: bool,
    ) -> Result<(), RealError> {
        let mut child = self.child.take().expect("a crash kills a running process");
        child.kill()?;
        drop(child);
        // What survived, read as the next process will: opening the file recovers it.
        let (ledger_rows, inbox_rows) =
            Store::open_file(&self.db, &self.scenario.store, &self.accounts)?
                .event_rows(&self.events[d.event].event_id);
        let confirmed = Confirmed {
            ledger_rows,
            inbox_rows,
            acked: matches!(
                self.broker.messages()[d.message].state,
                MessageState::Acked { .. }
            ),
        };
        self.line(
            now,
            "crash",
            Some(d),
            format!("crash at {}", point.boundary),
        );
        if in_transaction {
            self.line(
                now,
                "crash",
                Some(d),
                "open transaction rolled back by SQLite".into(),
            );
        }
        self.outputs.handle_abort(0);
        self.broker.handle_consumer_crash(now, 0);
        self.crashes.push(CrashRecord {
            tick: now,
            point,
            cause,
            dropped_transaction: in_transaction,
            confirmed,
        });
        self.queue.push(
            now + self.scenario.consumer.restart_delay_ticks,
            Occurrence::ConsumerRestart,
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Protocol;

    fn scenario(protocol: &str) -> Scenario {
        Scenario::new(Protocol::built_in(protocol).unwrap()).with_events(2)
    }

    #[test]
    fn one_consumer_on_the_queue_broker_is_accepted_and_the_rest_refused_with_a_reason() {
        assert_eq!(refusal(&scenario("inbox")), None);
        let two = scenario("inbox").with_consumers(2);
        assert!(refusal(&two).unwrap().contains("2 consumers"));
        let mut log = scenario("inbox");
        log.broker.log = Some(crate::broker::LogConfig::default());
        assert!(refusal(&log).unwrap().contains("log broker"));
        let mut rmw = scenario("no-dedup");
        rmw.store.effect = EffectMode::ReadModifyWrite;
        assert!(refusal(&rmw).unwrap().contains("read-modify-write"));
        let mut ttl = scenario("inbox");
        ttl.store.retention = Some(crate::store::Retention::with_ttl(50));
        assert!(refusal(&ttl).unwrap().contains("retention"));
    }

    #[test]
    fn the_points_are_explores_single_crash_points_in_its_order() {
        let s = scenario("inbox");
        let points = crash_points(&s);
        let explored = explore::single_crash_points(&s);
        assert_eq!(points.len() as u64 + 1, explored.summary.runs);
        // Two boundaries per step, per delivery of the crash-free run.
        assert_eq!(points.len(), 2 * 2 * s.protocol.steps.len());
        assert_eq!(points[0].to_string(), "before:receive e0 d1");
    }

    #[test]
    fn a_simulated_observation_keeps_the_consumer_lines_and_names_crashes_by_place() {
        let s = scenario("inbox");
        let p = BoundaryPoint::parse("after:apply_effect e0 d1").unwrap();
        let o = simulate(&s, Some(p), CrashModel::RollBack);
        let crash: Vec<&Line> = o.lines.iter().filter(|l| l.action == "crash").collect();
        assert_eq!(crash[0].outcome, "crash at after:apply_effect");
        assert_eq!(crash[1].outcome, "open transaction rolled back by SQLite");
        assert!(o.lines.iter().any(|l| l.action == "restart"));
        assert_eq!(compare(&o, &o.clone()), Vec::new());
    }

    #[test]
    fn the_wrong_model_keeps_what_the_crash_interrupted_and_compare_says_where() {
        let s = scenario("inbox");
        let p = BoundaryPoint::parse("before:commit e0 d1").unwrap();
        let right = simulate(&s, Some(p), CrashModel::RollBack);
        let wrong = simulate(&s, Some(p), CrashModel::KeepUncommitted);
        assert_eq!(right.crashes[0].confirmed.ledger_rows, 0);
        assert_eq!(wrong.crashes[0].confirmed.ledger_rows, 2);
        let differences = compare(&right, &wrong);
        let what: Vec<&str> = differences.iter().map(|d| d.what.as_str()).collect();
        assert!(what.contains(&"crash 0"), "{what:?}");
        assert!(
            what.contains(&"verdict.events[0].duplicates_discarded"),
            "{what:?}"
        );
        assert!(what.iter().any(|w| w.starts_with("consumer trace")));
        // Outside a transaction the two models agree.
        let p = BoundaryPoint::parse("after:commit e0 d1").unwrap();
        let (a, b) = (
            simulate(&s, Some(p), CrashModel::RollBack),
            simulate(&s, Some(p), CrashModel::KeepUncommitted),
        );
        assert_eq!(compare(&a, &b), Vec::new());
    }

    #[test]
    fn outcomes_are_short() {
        let s = scenario("no-dedup");
        let p = BoundaryPoint::parse("after:commit e1 d1").unwrap();
        let o = simulate(&s, Some(p), CrashModel::RollBack);
        assert_eq!(outcome(&o.verdict), "at-least-once (1 once, 1 duplicated)");
    }
}
