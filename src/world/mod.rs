//! One simulated run: the producer, the broker, the consumers and their store connections
//! wired to the scheduler on virtual time, with the fault injector deciding at every step
//! boundary.
//!
//! This is the only module that knows all the actors. It turns each consumer's commands
//! into calls on the broker and its store connection, feeds the answers back, records every
//! step in the trace, takes the scheduling decisions when several consumers are due at
//! once, and stops when nothing is left to do or a limit is reached. At the end the checker
//! reads the committed database.

use crate::broker::{
    AckOutcome, Broker, BrokerOutput, Delivery, MessageId, MessageState, PartitionKey, TimerKind,
};
use crate::check::{self, Verdict};
use crate::consumer::{Action, CommitTimeoutStrategy, Consumer, StepResult};
use crate::fault::{Confirmed, CrashCause, CrashRecord, FaultInjector};
use crate::model::{
    Account, Boundary, BoundaryPoint, ConsumerId, Event, EventIndex, EventType, ExternalEffect,
    Step, Tick,
};
use crate::scenario::{bounds, Scenario};
use crate::sim::{
    Actor, Digest, EventQueue, Fingerprint, StateHasher, StopReason, Trace, TraceEntry,
};
use crate::store::{CleanupOutcome, DbOutcome, LoggedStatement, Store, StoreOp};
use crate::{
    broker::OutputTopic,
    producer::{Identity, Producer, ProducerDatabase, ProducerMode},
    relay::{Relay, RelayKind},
    sim::SimRng,
};

mod snapshot;
mod upstream;
pub use snapshot::{Observer, OpenTransaction, Snapshot};
use std::collections::{BTreeMap, BTreeSet};

/// How long one consumer step takes, in ticks.
const STEP_TICKS: Tick = 1;

/// What the scheduler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Occurrence {
    ConsumerTurn(ConsumerId),
    ConsumerRestart(ConsumerId),
    BrokerTimer(MessageId, TimerKind),
    ProducerTurn,
    ProducerRestart,
    RelayTurn(usize),
    RelayRestart(usize),
    /// The broker's dead-letter queue is replayed.
    DeadLetterReplay,
    /// A run of the inbox retention job.
    Cleanup,
}

/// The event as delivery `d` carries it: the altered payload for an altered republish, the
/// generated event otherwise. (A function of the two fields rather than a method, so that
/// the store can be borrowed mutably next to it.)
fn payload<'a>(
    altered: &'a BTreeMap<(EventIndex, u32), Event>,
    events: &'a [Event],
    d: &Delivery,
) -> &'a Event {
    altered.get(&(d.event, d.copy)).unwrap_or(&events[d.event])
}

/// Everything a run produced.
#[derive(Debug)]
pub struct RunResult {
    pub events: Vec<Event>,
    pub trace: Trace,
    pub crashes: Vec<CrashRecord>,
    pub external_effects: Vec<ExternalEffect>,
    /// Every boundary a consumer reached, in order: the candidates for a crash.
    pub reached: Vec<BoundaryPoint>,
    pub steps: u64,
    pub end_tick: Tick,
    pub stop: StopReason,
    /// Where a limit stopped the faulty phase and the healing phase began, if one did.
    pub healed: Option<Heal>,
    pub verdict: Verdict,
    /// With [`RunOptions::fingerprints`]: the whole simulation's state right after each
    /// crash. Two runs with equal digests after their last crash have the same future,
    /// shifted in time, as long as no limit cuts either short.
    pub crash_states: Vec<CrashState>,
    /// With [`RunOptions::record_statements`]: every statement sent to SQLite, in order.
    pub statements: Vec<LoggedStatement>,
    /// Every scheduling decision, in order (none with one consumer).
    pub decisions: Vec<Decision>,
    /// Inbox rows the retention job deleted (0 without retention).
    pub inbox_rows_deleted: u64,
}

impl RunResult {
    /// The properties this run breaks: the one definition every command uses (see
    /// [`check::failure`]).
    pub fn failure(&self) -> check::FailureSignature {
        check::FailureSignature::of(&self.verdict, self.stop)
    }

    /// Keeps what a summary of many runs (an exploration, interleavings, a sweep) reports of
    /// this run, in memory that does not grow with the run's events or length: the verdict
    /// slimmed (every count, the boundaries, the reports of crashed and anomalous events:
    /// see [`check::Verdict::slim`]), the crashes and crash states, the trace's hash and
    /// length. The generated events, the boundaries reached, the scheduling decisions, the
    /// external effects and the statements are dropped: a run is extended from its reached
    /// points and decisions before it is slimmed.
    pub fn slim(&mut self) {
        self.verdict.slim();
        self.trace.shrink();
        self.events = Vec::new();
        self.reached = Vec::new();
        self.decisions = Vec::new();
        self.external_effects = Vec::new();
        self.statements = Vec::new();
    }

    /// About how many bytes keeping this run costs: its own size and what it holds on the
    /// heap (see [`check::Verdict::heap_bytes`]).
    pub fn kept_bytes(&self) -> u64 {
        use crate::model::heap;
        use std::mem::size_of;
        size_of::<RunResult>() as u64
            + self.verdict.heap_bytes()
            + self.trace.heap_bytes()
            + heap(self.events.capacity(), size_of::<Event>())
            + self.events.iter().map(|e| e.heap_bytes()).sum::<u64>()
            + heap(self.crashes.capacity(), size_of::<CrashRecord>())
            + heap(
                self.external_effects.capacity(),
                size_of::<ExternalEffect>(),
            )
            + heap(self.reached.capacity(), size_of::<BoundaryPoint>())
            + heap(self.crash_states.capacity(), size_of::<CrashState>())
            + heap(self.statements.capacity(), size_of::<LoggedStatement>())
            + heap(self.decisions.capacity(), size_of::<Decision>())
    }

    /// This run's liveness failure, in words, if it has one.
    pub fn liveness_failure(&self, limits: &crate::scenario::Limits) -> Option<String> {
        check::liveness_failure(self.stop, self.healed.is_some(), limits, &self.verdict)
    }
}

/// Where the faulty phase ended and the healing phase, with every fault off, began.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Heal {
    pub tick: Tick,
    pub steps: u64,
    /// The limit that ended the faulty phase.
    pub after: StopReason,
}

/// Where one phase of a run stops: absolute step and tick counts.
#[derive(Clone, Copy, Debug, Default)]
struct PhaseLimits {
    max_steps: u64,
    max_ticks: Tick,
}

/// What numbers the producer's crash points (see `World::producer_copy`).
#[derive(Debug)]
struct ProducerNames {
    /// The request whose points are being numbered.
    request: Option<usize>,
    /// Per intent: the lowest copy number its current request may use.
    floor: Vec<u32>,
    /// Per intent: the highest copy number any of its requests used.
    used: Vec<Option<u32>>,
}

/// The state right after one crash, for exploration's equivalence check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrashState {
    /// The digest of everything that decides the rest of the run, times relative to the
    /// crash; `None` when it cannot be taken (a connection held an open transaction).
    pub digest: Option<Digest>,
    /// Where the run stood against its limits: two runs with the same digest have the
    /// same future only while neither reaches a limit the other does not.
    pub tick: Tick,
    pub steps: u64,
    pub trace_entries: usize,
}

/// What a run records beyond what every run records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Record a state fingerprint after every crash (for exploration's equivalence check).
    pub fingerprints: bool,
    /// Keep only the trace's hash and length, not its entries.
    pub hash_only: bool,
    /// Keep every SQL statement the run sent to SQLite (for the raw-SQLite baseline).
    pub record_statements: bool,
    /// Run the retention job at every one of its ticks, even those where it can find
    /// nothing to delete: the slow obvious way its fast-forward is checked against (see
    /// `World::idle_cleanup_next`). Off, the run is the same, only faster.
    pub every_cleanup_tick: bool,
}

/// Runs `scenario` to the end and checks it.
pub fn run(scenario: &Scenario) -> RunResult {
    run_with(scenario, RunOptions::default())
}

/// Runs `scenario` to the end with `options` and checks it.
pub fn run_with(scenario: &Scenario, options: RunOptions) -> RunResult {
    World::new(scenario, options, &[], None).run()
}

/// Runs `scenario` taking, at its k-th scheduling decision, alternative `script[k]` (0 past
/// the end of the script): how interleavings are enumerated.
pub fn run_scheduled(scenario: &Scenario, options: RunOptions, script: &[u32]) -> RunResult {
    World::new(scenario, options, script, None).run()
}

/// Runs `scenario` as [`run_scheduled`] does, telling `observer` every trace entry with a
/// [`Snapshot`] of the state right after it (for `explain`). The run is the same as without
/// an observer: snapshots only read, and the same trace hash says so.
pub fn run_observed(
    scenario: &Scenario,
    options: RunOptions,
    script: &[u32],
    observer: &mut dyn Observer,
) -> RunResult {
    World::new(scenario, options, script, Some(observer)).run()
}

/// A scheduling decision: several consumers could take a step at the same tick; one did
/// (`chosen`, an index into them in queue order) and the others waited a tick. A script's
/// choice that names no alternative (`chosen >= alternatives`) is recorded as given and run
/// as 0, for the caller to refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Decision {
    pub chosen: u32,
    pub alternatives: u32,
}

struct World<'s> {
    scenario: &'s Scenario,
    script: &'s [u32],
    decisions: Vec<Decision>,
    options: RunOptions,
    crash_states: Vec<CrashState>,
    /// The observer of a narrated run (see [`run_observed`]).
    watch: Option<snapshot::Watch<'s>>,
    /// Per event: how many deliveries were recognised as already processed.
    duplicates_discarded: Vec<u32>,
    events: Vec<Event>,
    /// The payload of each altered republish, by (event, copy): the same `event_id` with
    /// another payload. Every other message carries its event as generated.
    altered: BTreeMap<(EventIndex, u32), Event>,
    /// Once a consumer runs a transaction again after a commit timeout, the boundaries it
    /// passes a second time are not new crash points: the set of points reached so far,
    /// built then (and only then, so that runs without a retry pay nothing).
    reached_seen: Option<BTreeSet<BoundaryPoint>>,
    /// The accounts and opening balances, built once: the store's set-up and the checker
    /// both need them.
    accounts: Vec<Account>,
    broker: Broker,
    consumers: Vec<Consumer>,
    /// One connection per consumer (all to the same database when there are several).
    stores: Vec<Store>,
    /// The retention job's own connection to the same database, with retention.
    cleanup_store: Option<Store>,
    /// Per event: when the retention job first deleted its inbox row.
    inbox_expired_at: Vec<Option<Tick>>,
    inbox_rows_deleted: u64,
    /// Per consumer: statements of a multi-statement step already done before SQLite
    /// answered busy, and whether the step now being retried already passed its "before"
    /// boundary.
    busy_progress: Vec<u8>,
    /// Per consumer: the pending step already passed its "before" boundary (it was busy,
    /// or the consumer stalled there).
    past_before: Vec<bool>,
    /// Per consumer: whether the pending step was told to fail, once asked.
    decided_fail: Vec<Option<bool>>,
    /// Per consumer: the balances a read-modify-write effect read on its first turn.
    balances_read: Vec<Option<(i64, i64)>>,
    faults: FaultInjector,
    /// Set when the healing phase began: from then on no fault fires and no boundary is a
    /// crash point.
    healed: Option<Heal>,
    /// The limits of the phase running.
    phase: PhaseLimits,
    queue: EventQueue<Occurrence>,
    trace: Trace,
    crashes: Vec<CrashRecord>,
    external_effects: Vec<ExternalEffect>,
    reached: Vec<BoundaryPoint>,
    steps: u64,
    /// The producer process, unless the producer is `direct`.
    producer: Option<Producer>,
    /// The producer's connection (to its own database, or to the consumers').
    producer_store: Option<Store>,
    /// The producer's pending step passed its "before" boundary (it was busy).
    producer_past_before: bool,
    /// The outbox relays (events, emails) and their connections.
    relays: Vec<Relay>,
    relay_stores: Vec<Store>,
    relay_past_before: Vec<bool>,
    /// Per relay, per event: how many times it sent that event.
    relay_sends: Vec<Vec<u32>>,
    /// Per workload event (intent): how many times it was published.
    intent_publications: Vec<u32>,
    /// How the producer's crash points are numbered, so that no two share a name.
    producer_names: ProducerNames,
    /// Per event: publications of its `event_id` so far (the broker's copy numbers).
    copies: Vec<u32>,
    /// `event_id`s minted under a per-attempt identity.
    identity_rng: SimRng,
    outputs: OutputTopic,
    /// The database files' directory, deleted when the run ends; declared after every store
    /// so that the connections close first.
    _dir: Option<tempfile::TempDir>,
}

/// A directory for a run's database files, readable by this user only (tempfile creates
/// directories with the default mode otherwise), under the system's temporary directory
/// (`TMPDIR`), deleted when the run ends.
fn private_tempdir() -> tempfile::TempDir {
    let mut builder = tempfile::Builder::new();
    builder.prefix("delivery-sim-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    builder
        .tempdir()
        .expect("a temporary directory for the database")
}

impl<'s> World<'s> {
    fn new(
        scenario: &'s Scenario,
        options: RunOptions,
        script: &'s [u32],
        observer: Option<&'s mut dyn Observer>,
    ) -> World<'s> {
        let accounts = scenario.workload.accounts();
        let n = scenario.consumers;
        let producer = &scenario.producer;
        let outbox = producer.mode == ProducerMode::Outbox;
        let shared_producer = producer.active() && producer.database == ProducerDatabase::Shared;
        let email_relay = scenario.protocol.has(Step::EnqueueEmail);
        // Connections to the consumers' database: theirs, the email relay's, and the
        // producer's and its relay's when the producer shares the file.
        // The retention job has a connection of its own too.
        let retention = scenario.store.retention.is_some();
        let extra = usize::from(retention)
            + usize::from(email_relay)
            + usize::from(shared_producer) * (1 + usize::from(outbox));
        let mut dir = None;
        let mut stores = if n + extra == 1 {
            vec![Store::open_in_memory(&scenario.store, &accounts)
                .expect("an in-memory SQLite database can always be created")]
        } else {
            // Several connections need real multi-connection locking: a database file.
            let d = dir.get_or_insert_with(private_tempdir);
            Store::open_shared(d.path(), &scenario.store, &accounts, n + extra)
                .expect("a database file in a fresh temporary directory")
        };
        let mut others = stores.split_off(n).into_iter();
        let cleanup_store = retention.then(|| others.next().expect("opened for the cleanup job"));
        let mut relays = Vec::new();
        let mut relay_stores = Vec::new();
        if email_relay {
            relays.push(Relay::new(RelayKind::Emails));
            relay_stores.push(others.next().expect("opened for the email relay"));
        }
        let producer_store = if !producer.active() {
            None
        } else {
            let mut own = if shared_producer {
                others.collect::<Vec<_>>()
            } else {
                // Its own database: a file of its own when the relay needs a second
                // connection to it.
                let d = dir.get_or_insert_with(private_tempdir);
                let path = d.path().join("producer");
                std::fs::create_dir(&path).expect("a fresh directory");
                let config = crate::store::StoreConfig::default();
                Store::open_shared(&path, &config, &accounts, 1 + usize::from(outbox))
                    .expect("the producer's database file")
            };
            if outbox {
                relays.push(Relay::new(RelayKind::Events));
                relay_stores.push(own.pop().expect("opened for the relay"));
            }
            Some(own.pop().expect("opened for the producer"))
        };
        let events = scenario.events();
        if options.record_statements {
            stores[0].record_statements();
        }
        World {
            producer: producer.active().then(|| {
                let intents = events
                    .iter()
                    .map(|e| e.index)
                    .chain(scenario.workload.republish.iter().copied())
                    .collect();
                Producer::new(producer, intents)
            }),
            producer_store,
            producer_past_before: false,
            relay_past_before: vec![false; relays.len()],
            relay_sends: vec![vec![0; events.len()]; relays.len()],
            relays,
            relay_stores,
            intent_publications: vec![0; events.len()],
            producer_names: ProducerNames {
                request: None,
                floor: vec![0; events.len()],
                used: vec![None; events.len()],
            },
            copies: vec![0; events.len()],
            identity_rng: SimRng::new(scenario.seed, crate::sim::Stream::Identity),
            outputs: OutputTopic::new(scenario.broker.transactional),
            events,
            altered: BTreeMap::new(),
            reached_seen: None,
            accounts,
            broker: Broker::new(scenario.broker.clone(), scenario.seed, n),
            consumers: (0..n)
                .map(|_| {
                    Consumer::new(scenario.protocol.clone())
                        .with_commit_timeout_strategy(scenario.consumer.on_commit_timeout)
                })
                .collect(),
            stores,
            cleanup_store,
            inbox_expired_at: vec![None; scenario.workload.events],
            inbox_rows_deleted: 0,
            busy_progress: vec![0; n],
            past_before: vec![false; n],
            decided_fail: vec![None; n],
            balances_read: vec![None; n],
            _dir: dir,
            faults: FaultInjector::new(scenario.faults.clone(), scenario.seed),
            healed: None,
            phase: PhaseLimits::default(),
            queue: EventQueue::default(),
            trace: Trace::new(!options.hash_only),
            crashes: Vec::new(),
            external_effects: Vec::new(),
            reached: Vec::new(),
            steps: 0,
            scenario,
            script,
            decisions: Vec::new(),
            options,
            crash_states: Vec::new(),
            watch: observer.map(snapshot::Watch::new),
            duplicates_discarded: vec![0; scenario.workload.events],
        }
    }

    fn record(
        &mut self,
        tick: Tick,
        actor: Actor,
        action: &'static str,
        d: Option<&Delivery>,
        outcome: String,
    ) {
        self.push_entry(TraceEntry {
            tick,
            actor,
            action,
            event: d.map(|d| d.event),
            copy: d.map_or(0, |d| d.copy),
            delivery: d.map_or(0, |d| d.attempt),
            outcome,
        });
    }

    /// Records `entry` in the trace, after telling the observer (if any) about it.
    fn push_entry(&mut self, entry: TraceEntry) {
        self.observe(&entry);
        self.trace.record(entry);
    }

    fn run(mut self) -> RunResult {
        if self.producer.is_some() {
            self.queue.push(0, Occurrence::ProducerTurn);
        } else {
            self.publish_all();
        }
        for r in 0..self.relays.len() {
            self.queue.push(0, Occurrence::RelayTurn(r));
        }
        for c in 0..self.consumers.len() {
            self.queue.push(0, Occurrence::ConsumerTurn(c));
        }
        if let Some(r) = self.scenario.store.retention {
            self.queue.push(r.cleanup_every_ticks, Occurrence::Cleanup);
        }
        let limits = self.scenario.limits;
        let mut now = 0;
        let faulty = PhaseLimits {
            max_steps: limits.max_steps,
            max_ticks: limits.max_ticks,
        };
        let mut stop = self.run_phase(&mut now, faulty);
        if matches!(stop, StopReason::StepLimit | StopReason::TickLimit) {
            stop = self.heal(&mut now, stop);
        }
        if stop != StopReason::Quiescent {
            let phase = if self.healed.is_some() {
                " of the healing phase"
            } else {
                ""
            };
            let what = match stop {
                StopReason::StepLimit => {
                    format!("step limit {}{phase} reached", limits.max_steps)
                }
                StopReason::TraceLimit => {
                    format!("trace limit {} entries reached", bounds::MAX_TRACE_ENTRIES)
                }
                _ => format!("tick limit {}{phase} reached", limits.max_ticks),
            };
            self.record(now, Actor::Sim, "stop", None, what);
            if let Some(store) = &mut self.producer_store {
                if store.drop_open_transaction() {
                    self.record(
                        now,
                        Actor::Producer,
                        "stop",
                        None,
                        "open transaction rolled back".into(),
                    );
                }
            }
            for c in 0..self.stores.len() {
                if self.stores[c].drop_open_transaction() {
                    self.record(
                        now,
                        Actor::Consumer(c),
                        "stop",
                        None,
                        "open transaction rolled back".into(),
                    );
                }
            }
        }
        let committed = self.stores[0].committed_state();
        let intents = self.scenario.workload.events;
        let committed_intents = self
            .producer_store
            .as_mut()
            .map(|s| s.committed_transfers());
        let outputs = self.outputs.committed_per_event(self.events.len());
        // Empty (none is) unless the scenario declares invalid payloads.
        let invalid: Vec<bool> = if self.scenario.workload.invalid.is_empty() {
            Vec::new()
        } else {
            (0..self.events.len()).map(|e| self.is_invalid(e)).collect()
        };
        let verdict = check::check(&check::Observed {
            invalid: &invalid,
            scopes: check::ScopeInputs {
                intents,
                per_intent: self.scenario.reports_intents(),
                business_key: self.scenario.store.business_key_unique,
                committed_intents: committed_intents.as_ref(),
                email: (self.scenario.protocol.has(Step::ExternalEffect)
                    || self.scenario.protocol.has(Step::EnqueueEmail))
                .then_some(self.scenario.email.idempotency_key),
                outputs: self
                    .scenario
                    .protocol
                    .has(Step::ProduceOutput)
                    .then_some(outputs.as_slice()),
            },
            events: &self.events,
            accounts: &self.accounts,
            protocol: &self.scenario.protocol,
            committed: &committed,
            messages: self.broker.messages(),
            crashes: &self.crashes,
            external_effects: &self.external_effects,
            duplicates_discarded: &self.duplicates_discarded,
            inbox_expired_at: &self.inbox_expired_at,
            stop,
        });
        RunResult {
            events: self.events,
            trace: self.trace,
            crashes: self.crashes,
            external_effects: self.external_effects,
            reached: self.reached,
            steps: self.steps,
            end_tick: now,
            stop,
            healed: self.healed,
            verdict,
            crash_states: self.crash_states,
            statements: self.stores[0].take_statements(),
            decisions: self.decisions,
            inbox_rows_deleted: self.inbox_rows_deleted,
        }
    }

    /// Runs occurrences in time order until none is left or a limit of `phase` is
    /// reached; the occurrence a limit stopped stays queued, for the healing phase.
    fn run_phase(&mut self, now: &mut Tick, phase: PhaseLimits) -> StopReason {
        self.phase = phase;
        loop {
            let Some((at, next)) = self.queue.peek() else {
                return StopReason::Quiescent;
            };
            assert!(at >= *now, "virtual time never goes back");
            if at > phase.max_ticks {
                return StopReason::TickLimit;
            }
            if self.trace.len() >= bounds::MAX_TRACE_ENTRIES {
                return StopReason::TraceLimit;
            }
            let takes_a_step = matches!(
                next,
                Occurrence::ConsumerTurn(_) | Occurrence::ProducerTurn | Occurrence::RelayTurn(_)
            );
            if takes_a_step && self.steps >= phase.max_steps {
                *now = at;
                return StopReason::StepLimit;
            }
            let (at, occurrence) = self.queue.pop().expect("peeked");
            *now = at;
            self.perform_occurrence(at, occurrence);
            self.drain_broker(at);
        }
    }

    /// The faulty phase stopped at `why`, a step or tick limit: every fault is switched
    /// off and the run goes on, as a system whose faults have stopped, for as many steps
    /// and ticks again. What is still unresolved at the end of this phase is stuck.
    fn heal(&mut self, now: &mut Tick, why: StopReason) -> StopReason {
        self.faults.heal();
        self.healed = Some(Heal {
            tick: *now,
            steps: self.steps,
            after: why,
        });
        let limits = self.scenario.limits;
        self.record(
            *now,
            Actor::Sim,
            "heal",
            None,
            format!(
                "{} reached with work left: every fault is off from here, for up to {} more \
                 steps and {} more ticks",
                match why {
                    StopReason::StepLimit => format!("step limit {}", limits.max_steps),
                    _ => format!("tick limit {}", limits.max_ticks),
                },
                limits.max_steps,
                limits.max_ticks
            ),
        );
        let healing = PhaseLimits {
            max_steps: self.steps.saturating_add(limits.max_steps),
            max_ticks: now.saturating_add(limits.max_ticks),
        };
        self.run_phase(now, healing)
    }

    /// Performs one occurrence at `now`.
    fn perform_occurrence(&mut self, now: Tick, occurrence: Occurrence) {
        match occurrence {
            Occurrence::ConsumerTurn(c) => {
                let c = self.choose(now, c);
                self.turn(now, c);
            }
            Occurrence::ConsumerRestart(c) => {
                self.consumers[c].handle_restart();
                self.broker.handle_consumer_restart(now, c);
                self.record(
                    now,
                    Actor::Consumer(c),
                    "restart",
                    None,
                    "back to receive".into(),
                );
                self.queue.push(now, Occurrence::ConsumerTurn(c));
            }
            Occurrence::DeadLetterReplay => {
                let replayed = self.broker.handle_dead_letter_replay(now);
                if replayed.is_empty() {
                    self.record(
                        now,
                        Actor::Broker,
                        "dlq replay",
                        None,
                        "the dead-letter queue is empty: nothing to replay".into(),
                    );
                }
                for m in replayed {
                    let d = self.message_ref(m);
                    self.record(
                        now,
                        Actor::Broker,
                        "dlq replay",
                        Some(&d),
                        "back from the dead-letter queue, same event_id: ready again, its \
                         deliveries counted afresh"
                            .into(),
                    );
                }
            }
            Occurrence::ProducerTurn => self.producer_turn(now),
            Occurrence::RelayTurn(r) => self.relay_turn(now, r),
            Occurrence::ProducerRestart => self.producer_restart(now),
            Occurrence::RelayRestart(r) => self.relay_restart(now, r),
            Occurrence::BrokerTimer(m, kind) => {
                if self.broker.handle_timer(now, m, kind) {
                    let d = self.message_ref(m);
                    let (action, what) = match kind {
                        TimerKind::Redeliver if d.attempt == 0 => {
                            ("visible", "ready after its delivery delay")
                        }
                        TimerKind::Redeliver => ("requeue", "ready for redelivery"),
                        TimerKind::LeaseExpiry { .. } => (
                            "lease expired",
                            "unacked past its lease: ready again while its consumer may \
                             still be working on it",
                        ),
                        TimerKind::LateRedelivery => (
                            "late replay",
                            "acked, and ready again at the end of the broker's replay \
                             window (broker.late_redelivery_ticks)",
                        ),
                    };
                    self.record(now, Actor::Broker, action, Some(&d), what.into());
                }
            }
            Occurrence::Cleanup => self.cleanup(now),
        }
    }

    /// One run of the inbox retention job: a bounded `DELETE` of rows older than the TTL,
    /// on its own connection. It runs again `cleanup_every_ticks` later (the next tick after
    /// a full batch, which may have left more behind), but only while something else is
    /// pending: alone, it would keep the run alive forever.
    fn cleanup(&mut self, now: Tick) {
        let r = self
            .scenario
            .store
            .retention
            .expect("the job is scheduled only with retention");
        let store = self
            .cleanup_store
            .as_mut()
            .expect("retention opens the job's connection");
        let next = match store.delete_expired_inbox(now, r.ttl_ticks, r.batch) {
            CleanupOutcome::Deleted(ids) if ids.is_empty() => self.idle_cleanup_next(now, r),
            CleanupOutcome::Deleted(ids) => {
                let n = ids.len() as u32;
                self.inbox_rows_deleted += u64::from(n);
                let mut names = Vec::new();
                for id in &ids {
                    if let Some(e) = self.events.iter().position(|e| &e.event_id == id) {
                        self.inbox_expired_at[e].get_or_insert(now);
                        names.push(format!("e{e}"));
                    }
                }
                self.record(
                    now,
                    Actor::Cleanup,
                    "delete expired",
                    None,
                    format!(
                        "deleted {n} inbox row(s) processed before t={} (TTL {} ticks): {}",
                        now as i64 - r.ttl_ticks as i64,
                        r.ttl_ticks,
                        names.join(", ")
                    ),
                );
                if n == r.batch {
                    now + 1
                } else {
                    now + r.cleanup_every_ticks
                }
            }
            CleanupOutcome::Busy => {
                self.record(
                    now,
                    Actor::Cleanup,
                    "delete expired",
                    None,
                    "SQLITE_BUSY: a consumer holds the write lock; nothing deleted".into(),
                );
                now + r.cleanup_every_ticks
            }
        };
        if !self.queue.is_empty() {
            self.queue.push(next, Occurrence::Cleanup);
        }
    }

    /// When the retention job, having found nothing to delete at `now`, runs next. Every
    /// `cleanup_every_ticks` by the book; but until the next other occurrence nothing else
    /// happens, so the database and its locks stay as they are, and a run of the job finds
    /// something only once a row's TTL has passed: the runs before both record nothing and
    /// change nothing, and are skipped. The job goes on at the first of its ticks at or
    /// after the next other occurrence (where it would be then anyway, after it in the
    /// queue as it would be), or where a row can expire, whichever comes first; never past
    /// the phase's tick limit, where the run stops after the job's last tick before it, as
    /// it would. A test runs scenarios both ways ([`RunOptions::every_cleanup_tick`]).
    fn idle_cleanup_next(&mut self, now: Tick, r: crate::store::Retention) -> Tick {
        let every = r.cleanup_every_ticks;
        let first = now + every;
        if self.options.every_cleanup_tick {
            return first;
        }
        let Some((other, _)) = self.queue.peek() else {
            return first;
        };
        // The first of the job's ticks at or after `t`.
        let grid = |t: Tick| now + every * t.saturating_sub(now).div_ceil(every).max(1);
        let mut next = grid(other);
        let store = self.cleanup_store.as_mut().expect("retention opens it");
        if let Some(earliest) = store.earliest_inbox_row() {
            // A row goes once `processed_at < tick - ttl`.
            next = next.min(grid(earliest.saturating_add(r.ttl_ticks).saturating_add(1)));
        }
        if next > self.phase.max_ticks {
            // The job's last tick within the limit, if there is one after `now`.
            let last = now + every * (self.phase.max_ticks.saturating_sub(now) / every);
            next = last.max(first);
        }
        next
    }

    /// Several consumers may be due to step at tick `now`: one steps, the others wait a tick.
    /// Which one is a scheduling decision, taken from the script (the first in queue order
    /// by default, which makes consumers alternate). Returns the consumer that steps.
    fn choose(&mut self, now: Tick, first: ConsumerId) -> ConsumerId {
        if self.consumers[first].poll_command().is_none() {
            return first; // A stale turn: nothing to decide.
        }
        let consumers = &self.consumers;
        let mut due = vec![first];
        let others = self.queue.take_at(now, |o| {
            matches!(o, Occurrence::ConsumerTurn(c)
                if *c != first && consumers[*c].poll_command().is_some())
        });
        for o in others {
            let Occurrence::ConsumerTurn(c) = o else {
                unreachable!("only turns are taken")
            };
            if !due.contains(&c) {
                due.push(c);
            }
        }
        if due.len() == 1 {
            return first;
        }
        let k = self.decisions.len();
        let requested = self.script.get(k).copied().unwrap_or(0);
        // A script is input (`--schedule`, a replay token): a choice naming no alternative
        // is recorded as asked, so that the caller can refuse it, and run as the default.
        self.decisions.push(Decision {
            chosen: requested,
            alternatives: due.len() as u32,
        });
        let chosen = if (requested as usize) < due.len() {
            requested
        } else {
            0
        };
        // The others wait a tick, queued before the chosen one's next turn.
        for (i, &c) in due.iter().enumerate() {
            if i != chosen as usize {
                self.queue
                    .push(now + STEP_TICKS, Occurrence::ConsumerTurn(c));
            }
        }
        due[chosen as usize]
    }

    /// A `direct` producer: every event is published at tick 0, then the republished
    /// copies, then the altered ones (same `event_id`, another payload: a producer bug),
    /// each publication timing out as many times as the plan says.
    fn publish_all(&mut self) {
        let intents = self.scenario.workload.events;
        let exact = self.scenario.workload.republish.len();
        let mut alterations = vec![0u32; intents];
        let order: Vec<EventIndex> = (0..intents)
            .chain(self.scenario.workload.republish.iter().copied())
            .chain(self.scenario.workload.republish_altered.iter().copied())
            .collect();
        for (i, intent) in order.into_iter().enumerate() {
            if i >= intents + exact {
                alterations[intent] += 1;
                let altered = self.events[intent].altered(alterations[intent]);
                self.altered.insert((intent, self.copies[intent]), altered);
            }
            self.publish_recorded(intent);
            while self.faults.publish_times_out(intent) {
                self.record(
                    0,
                    Actor::Producer,
                    "timeout",
                    None,
                    format!("no confirmation for e{intent}'s publication: publishing again"),
                );
                self.publish_recorded(intent);
            }
        }
        self.drain_broker(0);
    }

    /// A `direct` publication at tick 0, with its own trace line.
    fn publish_recorded(&mut self, intent: EventIndex) {
        let (event, what) = self.publish(0, intent);
        let d = Delivery {
            attempt: 0,
            ..self.message_ref(self.broker.messages().len() - 1)
        };
        debug_assert_eq!(d.event, event);
        self.record(0, Actor::Producer, "publish", Some(&d), what);
    }

    /// Publishes intent `intent`'s event: the same `event_id` every time under a stable
    /// identity; under a per-attempt identity every publication after the first mints a
    /// new event (same transfer, new `event_id`). Returns the event published and what
    /// happened, for the publisher's trace line.
    fn publish(&mut self, now: Tick, intent: EventIndex) -> (EventIndex, String) {
        let first = self.intent_publications[intent] == 0;
        self.intent_publications[intent] += 1;
        // An altered copy is the producer bug "same event_id, another payload": it keeps
        // the id whatever the identity policy.
        let altered = self.altered.contains_key(&(intent, self.copies[intent]));
        let event = if !first && !altered && self.scenario.producer.identity == Identity::PerAttempt
        {
            self.mint(intent)
        } else {
            intent
        };
        let copy = self.copies[event];
        self.copies[event] += 1;
        let e = &self.events[event];
        let key = match self.scenario.broker.log.map(|l| l.key) {
            Some(PartitionKey::AccountId) => e.source.clone(),
            Some(PartitionKey::EventId) => e.event_id.clone(),
            Some(PartitionKey::TransferId) | None => e.transfer_id.clone(),
        };
        self.broker.handle_publish(now, event, copy, &key);
        let what = if event != intent {
            format!(
                "published with a new event_id for e{intent}'s transfer {}: a different event \
                 to any inbox",
                e.transfer_id
            )
        } else if copy == 0 {
            "published".into()
        } else if let Some(altered) = self.altered.get(&(event, copy)) {
            format!(
                "republished with the same event_id and ANOTHER payload (amount_minor {} \
                 instead of {}): a producer bug",
                altered.amount_minor, e.amount_minor
            )
        } else {
            "republished (same event_id)".into()
        };
        (event, what)
    }

    /// A new event for intent `intent`'s transfer with a fresh `event_id`, numbered after
    /// every event so far.
    fn mint(&mut self, intent: EventIndex) -> EventIndex {
        // Validation keeps the workload's events plus this budget within twice MAX_EVENTS.
        let workload = &self.scenario.workload;
        let republished = workload.republish.len() + workload.republish_altered.len();
        let budget = self.scenario.faults.republication_budget(republished);
        assert!(
            (self.events.len() - workload.events) < budget as usize,
            "minted events are bounded by the republication budget ({budget})"
        );
        let index = self.events.len();
        let event = Event {
            index,
            event_id: self.identity_rng.uuid(),
            ..self.events[intent].clone()
        };
        self.events.push(event);
        self.copies.push(0);
        self.duplicates_discarded.push(0);
        self.inbox_expired_at.push(None);
        for sends in &mut self.relay_sends {
            sends.push(0);
        }
        index
    }

    /// Whether `event`'s payload is one the scenario declares invalid (`workload.invalid`):
    /// a workload event listed there, or an event minted for one (same transfer, same type).
    fn is_invalid(&self, event: EventIndex) -> bool {
        let invalid = &self.scenario.workload.invalid;
        if invalid.is_empty() {
            return false;
        }
        let intents = self.scenario.workload.events;
        let intent = if event < intents {
            Some(event)
        } else {
            let e = &self.events[event];
            self.events[..intents]
                .iter()
                .position(|w| w.transfer_id == e.transfer_id && w.event_type == e.event_type)
        };
        intent.is_some_and(|i| invalid.binary_search(&i).is_ok())
    }

    /// A delivery-shaped reference to a message, for the trace (attempt = deliveries so far).
    fn message_ref(&self, m: MessageId) -> Delivery {
        let msg = &self.broker.messages()[m];
        Delivery {
            message: m,
            event: msg.event,
            copy: msg.copy,
            attempt: msg.deliveries,
        }
    }

    fn drain_broker(&mut self, now: Tick) {
        while let Some(out) = self.broker.poll_output() {
            match out {
                BrokerOutput::Timer { at, message, kind } => {
                    self.queue.push(at, Occurrence::BrokerTimer(message, kind))
                }
                BrokerOutput::DeadLettered { message } => {
                    let d = self.message_ref(message);
                    let outcome = if self.scenario.broker.replay_dead_letters_at_tick.is_some() {
                        format!(
                            "dead-lettered after {} deliveries: parked until the dead-letter \
                             queue is replayed",
                            d.attempt
                        )
                    } else {
                        format!(
                            "dead-lettered after {} deliveries: never delivered again",
                            d.attempt
                        )
                    };
                    self.record(now, Actor::Broker, "dead-letter", Some(&d), outcome);
                }
                BrokerOutput::DeadLetterReplayTimer { at } => {
                    self.queue.push(at, Occurrence::DeadLetterReplay)
                }
                BrokerOutput::Ready { .. } => {
                    for c in 0..self.consumers.len() {
                        if self.consumers[c].handle_message_ready() {
                            self.queue.push(now, Occurrence::ConsumerTurn(c));
                        }
                    }
                }
            }
        }
    }

    /// One consumer step: the fault injector may crash it just before or just after.
    fn turn(&mut self, now: Tick, c: ConsumerId) {
        let Some(command) = self.consumers[c].poll_command() else {
            return; // Waiting or down: a stale turn.
        };
        self.steps += 1;
        let actor = Actor::Consumer(c);
        let step = match command.action {
            Action::Step(step) => step,
            Action::Rollback => {
                let outcome = self.stores[c].execute(StoreOp::Rollback, now);
                self.record(
                    now,
                    actor,
                    "rollback",
                    command.delivery.as_ref(),
                    outcome.describe().into(),
                );
                self.consumers[c].handle_result(StepResult::Db(outcome));
                self.queue
                    .push(now + STEP_TICKS, Occurrence::ConsumerTurn(c));
                return;
            }
            Action::RecordAlert | Action::Lookup => {
                let d = command
                    .delivery
                    .expect("an alert or a lookup names its delivery");
                let event = payload(&self.altered, &self.events, &d);
                let (op, name) = match command.action {
                    Action::RecordAlert => (StoreOp::RecordPayloadAlert { event }, "alert"),
                    _ => (StoreOp::CheckInbox { event }, "lookup"),
                };
                let outcome = self.stores[c].execute(op, now);
                let text = match outcome {
                    DbOutcome::Found => "inbox row found: the commit happened; go on",
                    DbOutcome::NotFound => {
                        "inbox row not found: the commit did not happen; run the transaction again"
                    }
                    o => o.describe(),
                };
                self.record(now, actor, name, Some(&d), text.into());
                self.consumers[c].handle_result(StepResult::Db(outcome));
                self.queue
                    .push(now + STEP_TICKS, Occurrence::ConsumerTurn(c));
                return;
            }
            Action::Nack => {
                let d = command.delivery.expect("a nack names its delivery");
                self.broker.handle_nack(now, &d);
                self.outputs.handle_abort(c);
                self.record(
                    now,
                    actor,
                    "nack",
                    Some(&d),
                    "rejected: the broker will redeliver".into(),
                );
                self.consumers[c].handle_result(StepResult::Done);
                self.queue
                    .push(now + STEP_TICKS, Occurrence::ConsumerTurn(c));
                return;
            }
        };
        // `receive` has no delivery until the broker hands one over; its "before" boundary is
        // the instant the delivery is on the wire and the consumer has not yet seen it.
        let delivery = match command.delivery {
            Some(d) => d,
            None => match self.broker.handle_receive(now, c) {
                Some(d) => {
                    self.record(
                        now,
                        Actor::Broker,
                        "deliver",
                        Some(&d),
                        format!("in flight to consumer{c}"),
                    );
                    if self.faults.duplicates_delivery(&d)
                        && self.broker.handle_duplicate_delivery(now, d.message)
                    {
                        self.record(
                            now,
                            Actor::Broker,
                            "duplicate",
                            Some(&d),
                            "the broker will deliver it again (its own duplicate)".into(),
                        );
                    }
                    d
                }
                None => {
                    self.record(now, actor, "receive", None, "nothing ready: waiting".into());
                    self.consumers[c].handle_result(StepResult::Received(None));
                    return;
                }
            },
        };
        // A step retried after `SQLITE_BUSY`, or resumed after a stall, passed its "before"
        // boundary already.
        if !std::mem::take(&mut self.past_before[c]) {
            if self.crash_point(now, c, Boundary::before(step), &delivery) {
                return;
            }
            if self.stall(now, c, Boundary::before(step), &delivery) {
                self.past_before[c] = true;
                return;
            }
        }
        let (result, outcome) = self.perform(now, c, step, &delivery);
        if result == StepResult::Db(DbOutcome::Committed) {
            self.wake_relay(now, RelayKind::Emails);
        }
        if matches!(result, StepResult::Db(o) if o.is_duplicate()) {
            self.duplicates_discarded[delivery.event] += 1;
        }
        self.record(now, actor, step.name(), Some(&delivery), outcome);
        self.consumers[c].handle_result(result);
        if let StepResult::Db(DbOutcome::Busy { done }) = result {
            self.busy_progress[c] = done;
            self.past_before[c] = true;
        } else if let StepResult::Db(DbOutcome::BalancesRead { source, target }) = result {
            // The first half of a read-modify-write: the step goes on next turn, and other
            // consumers may write in between.
            self.balances_read[c] = Some((source, target));
            self.past_before[c] = true;
        } else {
            self.busy_progress[c] = 0;
            self.decided_fail[c] = None;
            self.balances_read[c] = None;
            let completed = !matches!(
                result,
                StepResult::Failed | StepResult::Db(DbOutcome::StaleSnapshot)
            );
            if completed {
                if self.crash_point(now, c, Boundary::after(step), &delivery) {
                    return;
                }
                if self.stall(now, c, Boundary::after(step), &delivery) {
                    return;
                }
            }
        }
        let delay = self.completion_delay(now, c, step, &delivery);
        self.queue
            .push(now + STEP_TICKS + delay, Occurrence::ConsumerTurn(c));
    }

    /// With `consumer.completion_delay_ticks`: a consumer that just received a
    /// `TransferCompleted` sleeps that long before processing it, holding the delivery,
    /// "to give the TransferCreated time". Returns the ticks it sleeps.
    fn completion_delay(&mut self, now: Tick, c: ConsumerId, step: Step, d: &Delivery) -> Tick {
        let delay = self.scenario.consumer.completion_delay_ticks;
        if step != Step::Receive
            || delay == 0
            || self.events[d.event].event_type != EventType::TransferCompleted
        {
            return 0;
        }
        self.record(
            now,
            Actor::Consumer(c),
            "sleep",
            Some(d),
            format!(
                "a TransferCompleted: sleeps {delay} ticks to give its TransferCreated time, \
                 holding the delivery"
            ),
        );
        delay
    }

    /// Performs one protocol step against the broker, the store or the outside world.
    fn perform(
        &mut self,
        now: Tick,
        c: ConsumerId,
        step: Step,
        d: &Delivery,
    ) -> (StepResult, String) {
        if step == Step::Receive {
            return (StepResult::Received(Some(*d)), "received".into());
        }
        // A step retried after `SQLITE_BUSY` was already asked whether it fails.
        let fails = match self.decided_fail[c] {
            Some(fails) => fails,
            None => {
                let fails = self.faults.fails(step, d, now);
                self.decided_fail[c] = Some(fails);
                fails
            }
        };
        if fails && step != Step::ApplyEffect {
            return (StepResult::Failed, "failed (injected): nothing done".into());
        }
        if step == Step::ApplyEffect && self.is_invalid(d.event) {
            return (
                StepResult::Failed,
                "refused: the payload is invalid (workload.invalid), nothing applied".into(),
            );
        }
        let event = payload(&self.altered, &self.events, d);
        let db = |outcome: DbOutcome| (StepResult::Db(outcome), outcome.describe().to_string());
        match step {
            Step::Receive => unreachable!("handled above"),
            Step::Begin => db(self.stores[c].execute(StoreOp::Begin, now)),
            Step::CheckInbox => db(self.stores[c].execute(StoreOp::CheckInbox { event }, now)),
            Step::InsertInbox => db(self.stores[c].execute(StoreOp::InsertInbox { event }, now)),
            Step::ApplyEffect => db(self.stores[c].execute(
                StoreOp::ApplyEffect {
                    event,
                    fail_credit: fails,
                    done: self.busy_progress[c],
                    read: self.balances_read[c],
                    track_transfer: self.scenario.workload.lifecycle,
                },
                now,
            )),
            Step::Commit => match self.faults.commit_timeout(d) {
                None => db(self.stores[c].execute(StoreOp::Commit, now)),
                Some((i, applied)) => {
                    let op = if applied {
                        StoreOp::Commit
                    } else {
                        StoreOp::Rollback
                    };
                    match self.stores[c].execute(op, now) {
                        // Busy (or anything but done): nothing happened yet; the timeout
                        // waits for the commit that really ends the transaction.
                        other @ DbOutcome::Busy { .. } | other @ DbOutcome::StaleSnapshot => {
                            db(other)
                        }
                        _ => {
                            self.faults.fire_commit_timeout(i);
                            if self.scenario.consumer.on_commit_timeout
                                != CommitTimeoutStrategy::Abandon
                                && self.reached_seen.is_none()
                            {
                                self.reached_seen = Some(self.reached.iter().copied().collect());
                            }
                            (
                                StepResult::Db(DbOutcome::CommitTimeout),
                                format!(
                                    "COMMIT timed out (injected, faults.commit_timeout[{i}]): {}; \
                                     the consumer cannot tell, and {}",
                                    if applied {
                                        "it DID commit, the answer was lost"
                                    } else {
                                        "it did NOT commit, SQLite rolled back"
                                    },
                                    match self.scenario.consumer.on_commit_timeout {
                                        CommitTimeoutStrategy::Retry => {
                                            "retries the transaction blindly"
                                        }
                                        CommitTimeoutStrategy::Abandon => "treats it as done",
                                        CommitTimeoutStrategy::Lookup => {
                                            "looks the event_id up before deciding"
                                        }
                                    }
                                ),
                            )
                        }
                    }
                }
            },
            Step::Ack if self.faults.loses_ack(d) => {
                // The broker never heard the ack, so its transaction does not commit.
                self.outputs.handle_abort(c);
                (
                    StepResult::Acked(AckOutcome::Accepted),
                    "ack lost on the way: the consumer believes it acked, the broker never \
                     heard it"
                        .into(),
                )
            }
            Step::Ack => {
                let outcome = self.broker.handle_ack(now, d);
                let settled = match outcome {
                    AckOutcome::Accepted | AckOutcome::StaleAccepted => {
                        self.outputs.handle_ack_accepted(c)
                    }
                    AckOutcome::Stale | AckOutcome::AlreadyAcked => self.outputs.handle_abort(c),
                };
                if settled > 0 {
                    let what =
                        if matches!(outcome, AckOutcome::Accepted | AckOutcome::StaleAccepted) {
                            "the ack commits the broker transaction: its outputs become visible"
                        } else {
                            "the ack is refused: the broker transaction aborts with its outputs"
                        };
                    self.record(now, Actor::Broker, "transaction", Some(d), what.into());
                }
                let text = match outcome {
                    AckOutcome::Accepted if self.scenario.broker.log.is_some() => {
                        "processed: counts towards the next offset commit"
                    }
                    AckOutcome::Accepted => "acked: the broker forgets the message",
                    AckOutcome::AlreadyAcked => "already acked",
                    AckOutcome::Stale => "stale ack ignored: the message was delivered again",
                    AckOutcome::StaleAccepted => {
                        "stale ack accepted: the message is acked, whoever else holds it"
                    }
                };
                (StepResult::Acked(outcome), text.into())
            }
            Step::EnqueueEmail => db(self.stores[c].execute(StoreOp::EnqueueEmail { event }, now)),
            Step::ProduceOutput => {
                let text = match self.outputs.handle_produce(c, d.event) {
                    crate::broker::OutputState::Staged => {
                        "TransferApplied staged in the broker transaction (visible at the ack)"
                    }
                    _ => "TransferApplied published to the output topic (visible at once)",
                };
                (StepResult::Done, text.into())
            }
            Step::InsertTransfer
            | Step::CommitTransfer
            | Step::Publish
            | Step::RelayPublish
            | Step::MarkSent
            | Step::SendEmail
            | Step::MarkEmailSent => unreachable!("{step} is not a consumer step (validated)"),
            Step::ExternalEffect => {
                self.external_effects.push(ExternalEffect {
                    tick: now,
                    event: d.event,
                    copy: d.copy,
                    delivery: d.attempt,
                });
                (
                    StepResult::Done,
                    "sent (outside the database: never rolled back)".into(),
                )
            }
        }
    }

    /// Stalls consumer `c` at `boundary` if the plan says so: its next turn comes `ticks`
    /// later, with everything it holds still held. Returns whether it stalled.
    fn stall(&mut self, now: Tick, c: ConsumerId, boundary: Boundary, d: &Delivery) -> bool {
        let point = BoundaryPoint {
            boundary,
            event: d.event,
            copy: d.copy,
            delivery: d.attempt,
        };
        let Some(ticks) = self.faults.stall_at(&point) else {
            return false;
        };
        self.record(
            now,
            Actor::Consumer(c),
            "stall",
            Some(d),
            format!("stalls at {boundary} for {ticks} ticks, holding its delivery and transaction"),
        );
        self.queue.push(now + ticks, Occurrence::ConsumerTurn(c));
        true
    }

    /// Records that `boundary` was reached and crashes the consumer there if the fault
    /// injector says so. Returns whether it crashed.
    fn crash_point(&mut self, now: Tick, c: ConsumerId, boundary: Boundary, d: &Delivery) -> bool {
        let point = BoundaryPoint {
            boundary,
            event: d.event,
            copy: d.copy,
            delivery: d.attempt,
        };
        // After a retry some boundaries come again; only the first is a crash point.
        let again = self
            .reached_seen
            .as_mut()
            .is_some_and(|seen| !seen.insert(point));
        if !again && self.healed.is_none() {
            self.reached.push(point);
        }
        let Some(cause) = self.faults.crash_at(&point) else {
            return false;
        };
        let dropped_transaction = self.stores[c].drop_open_transaction();
        let (ledger_rows, inbox_rows) = self.stores[c].event_rows(&self.events[d.event].event_id);
        let confirmed = Confirmed {
            ledger_rows,
            inbox_rows,
            acked: matches!(
                self.broker.messages()[d.message].state,
                MessageState::Acked { .. }
            ),
        };
        let why = match cause {
            CrashCause::Planned(i) => format!("crash at {boundary} (faults.crash[{i}])"),
            CrashCause::Random => format!("crash at {boundary} (random)"),
        };
        self.record(now, Actor::Consumer(c), "crash", Some(d), why);
        if dropped_transaction {
            self.record(
                now,
                Actor::Consumer(c),
                "crash",
                Some(d),
                "open transaction rolled back by SQLite".into(),
            );
        }
        self.consumers[c].handle_crash();
        if self.outputs.handle_abort(c) > 0 {
            self.record(
                now,
                Actor::Broker,
                "abort",
                Some(d),
                "the broker transaction aborts: its staged outputs are discarded".into(),
            );
        }
        self.past_before[c] = false;
        self.decided_fail[c] = None;
        self.busy_progress[c] = 0;
        self.balances_read[c] = None;
        self.broker.handle_consumer_crash(now, c);
        self.record(
            now,
            Actor::Broker,
            "connection lost",
            None,
            if self.scenario.broker.log.is_some() {
                format!(
                    "consumer{c} left the group: its partitions are rebalanced and resume from \
                     their committed offsets"
                )
            } else {
                format!("consumer{c}'s unacked deliveries will be redelivered")
            },
        );
        self.crashes.push(CrashRecord {
            tick: now,
            point,
            cause,
            dropped_transaction,
            confirmed,
        });
        self.queue.push(
            now + self.scenario.consumer.restart_delay_ticks,
            Occurrence::ConsumerRestart(c),
        );
        self.record_crash_state(now);
        true
    }

    /// Records the state right after a crash at `now`, when exploring.
    fn record_crash_state(&mut self, now: Tick) {
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

    /// The digest of everything that decides the rest of the run, with times relative to
    /// `now`, or `None` while a connection holds an open transaction (its snapshot and its
    /// uncommitted writes are SQLite's state, not ours to read without changing them).
    ///
    /// Every field of the world is named below: a field added later does not compile until
    /// it is fed or said to be history, configuration or output.
    fn fingerprint(&self, now: Tick) -> Option<Digest> {
        let World {
            scenario,
            script,
            decisions,
            options: _,      // How the run records, not what it does.
            crash_states: _, // Output.
            watch: _,        // An observer only reads.
            duplicates_discarded,
            events,
            altered,
            reached_seen,
            accounts: _, // Configuration: the same for every run of a scenario.
            broker,
            consumers,
            stores,
            cleanup_store,
            inbox_expired_at,
            inbox_rows_deleted: _, // A count for the report; the rows are in the database.
            busy_progress,
            past_before,
            decided_fail,
            balances_read,
            faults,
            // The fault injector, emptied at the heal, says what healing changes; the
            // limits it moves are checked apart (a healed run is never a stand-in).
            healed: _,
            phase: _, // The limits, which exploration checks apart.
            queue,
            trace: _,   // History; its length is a limit, which exploration checks apart.
            crashes: _, // History: the report's crash list and confirmed states.
            external_effects,
            reached: _, // History: the points before the crash are not its extensions.
            steps: _,   // A limit, which exploration checks apart.
            producer,
            producer_store,
            producer_past_before,
            relays,
            relay_stores,
            relay_past_before,
            relay_sends,
            intent_publications,
            producer_names,
            copies,
            identity_rng,
            outputs,
            _dir: _,
        } = self;
        let mut connections = stores
            .iter()
            .chain(cleanup_store)
            .chain(producer_store)
            .chain(relay_stores);
        if connections.any(|s| s.in_transaction()) {
            return None;
        }
        let mut h = StateHasher::default();
        #[cfg(test)]
        {
            h.omit_lose_ack_budget = scenario.name == OMIT_LOSE_ACK_BUDGET;
        }
        h.section("database");
        stores[0].fingerprint_database(now, scenario.store.retention.is_some(), &mut h);
        if let Some(store) = producer_store {
            h.section("producer database");
            store.fingerprint_database(now, false, &mut h);
        }
        h.section("broker");
        broker.fingerprint(now, &mut h);
        h.section("queue");
        queue.fingerprint(now, &mut h);
        h.section("consumers");
        for c in consumers {
            c.fingerprint(now, &mut h);
        }
        h.value(&(busy_progress, past_before, decided_fail, balances_read));
        h.section("faults");
        faults.fingerprint(now, &mut h);
        h.section("producer");
        h.value(&producer.is_some());
        if let Some(p) = producer {
            p.fingerprint(now, &mut h);
        }
        h.value(producer_past_before);
        h.section("relays");
        for r in relays {
            r.fingerprint(now, &mut h);
        }
        h.value(&(relay_past_before, relay_sends, intent_publications, copies));
        let ProducerNames {
            request,
            floor,
            used,
        } = producer_names;
        h.value(&(request, floor, used));
        identity_rng.fingerprint(now, &mut h);
        h.section("outputs");
        outputs.fingerprint(now, &mut h);
        h.section("events");
        h.value(&(events, altered, duplicates_discarded, reached_seen));
        // When a row expired is for the report; whether it did is read by the checker.
        let expired: Vec<bool> = inbox_expired_at.iter().map(Option::is_some).collect();
        h.value(&expired);
        // The checker counts effects per event and copy; when each happened is history.
        let effects: Vec<(EventIndex, u32, u32)> = external_effects
            .iter()
            .map(|x| (x.event, x.copy, x.delivery))
            .collect();
        h.value(&effects);
        // A scripted run takes its next decision from where it stands in the script.
        h.value(&script.get(decisions.len()..));
        Some(h.digest())
    }
}

/// Test only: a scenario of this name is fingerprinted without the lose-ack budget, the
/// deliberately broken fingerprint that shows the pruned-equals-unpruned property can fail.
#[cfg(test)]
pub(crate) const OMIT_LOSE_ACK_BUDGET: &str = "test: fingerprint without the lose-ack budget";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_database_directory_is_private_and_removed_with_the_run() {
        let dir = private_tempdir();
        let path = dir.path().to_path_buf();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "owner only");
        }
        std::fs::write(path.join("delivery-sim.sqlite"), b"x").unwrap();
        drop(dir);
        assert!(!path.exists());
    }
}
