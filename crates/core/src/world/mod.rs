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
use crate::fault::{Confirmed, CrashRecord, FaultInjector, StepQuery};
use crate::model::{
    Account, Boundary, BoundaryPoint, Confirmation, ConsumerId, Event, EventIndex, EventType,
    ExternalEffect, GaveUpRecord, HalfDone, Host, Limit, Publication, SqlBinding, SqlEvent, Step,
    StepFaults, Tick, TraceKind,
};
use crate::scenario::{bounds, Scenario};
use crate::sim::{
    Actor, Digest, EventQueue, Fingerprint, StateHasher, StopReason, Trace, TraceEntry,
};
use crate::store::{
    CleanupDb, CleanupOutcome, ConsumerDb, DbOutcome, LoggedStatement, ProducerDb, RelayDb, Store,
    StoreOp,
};
use crate::{
    broker::OutputTopic,
    producer::{Identity, Producer, ProducerDatabase, ProducerMode},
    relay::{Relay, RelayKind},
    sim::SimRng,
};

mod cleanup;
mod consumer_turn;
mod crash;
mod fingerprint;
mod handler_sql;
mod publish;
mod runner;
mod setup;
mod snapshot;
mod step;
mod upstream;
use crash::Process;
pub use runner::{InProcess, Runner};
pub use snapshot::{initial_committed, Observer, OpenTransaction, Snapshot};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// How long one consumer step takes, in ticks.
const STEP_TICKS: Tick = 1;

/// What the scheduler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Occurrence {
    ConsumerTurn(ConsumerId),
    BrokerTimer(MessageId, TimerKind),
    ProducerTurn,
    RelayTurn(usize),
    /// A crashed process starts again.
    Restart(Process),
    /// The broker's dead-letter queue is replayed.
    DeadLetterReplay,
    /// A run of the inbox retention job.
    Cleanup,
}

/// What a statement of consumer `c`'s step on delivery `d` binds at `now`: the event as the
/// scenario's SQL sees it, the delivery's parameters, and the results earlier steps kept
/// (`named`), when the statement may name them.
fn binding<'a>(
    sql_events: &'a [SqlEvent],
    broker: &Broker,
    now: Tick,
    c: ConsumerId,
    d: &Delivery,
    named: Option<&'a crate::model::NamedResults>,
) -> SqlBinding<'a> {
    SqlBinding {
        event: &sql_events[d.event],
        now,
        delivery: d.attempt,
        consumer: c,
        log: broker.log_place(d.message),
        named,
    }
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
    /// How many times SQLite answered a consumer's write `SQLITE_BUSY_SNAPSHOT` (its
    /// transaction stale: rolled back), which PostgreSQL at read committed never does.
    pub stale_snapshots: u64,
    /// The SQLite virtual-machine steps the scenario's own statements took (0 on the
    /// built-in ledger): the run's SQL cost, which exploration estimates count.
    pub sql_vm_steps: u64,
}

impl RunResult {
    /// The properties this run breaks: the one definition every command uses (see
    /// [`check::failure`]).
    pub fn failure(&self) -> check::FailureSignature {
        check::FailureSignature::of(&self.verdict, self.stop)
    }

    /// The run's verdict line (see [`check::Judgement`]), its failed expectations counted
    /// (`None`: it stated none).
    pub fn judgement(&self, expect_failures: Option<usize>) -> check::Judgement {
        let mut j = check::Judgement::of_run(&self.verdict, &self.failure(), expect_failures);
        j.caveat_sqlite_serialized(self.stale_snapshots);
        j
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
    pub fn liveness_failure(
        &self,
        limits: &crate::scenario::Limits,
    ) -> Option<check::LivenessFailure> {
        check::liveness_failure(self.stop, self.healed.is_some(), limits, &self.verdict)
    }
}

/// Where the faulty phase ended and the healing phase, with every fault off, began.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
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
    World::new(scenario, options, &[], None, None).run()
}

/// Runs `scenario` with consumer 0's connection to the consumers' database being `db`
/// instead of one the world opens: how `crosscheck` runs the simulator's executor against a
/// real process on a file. Only a scenario whose consumers' database has that one
/// connection can run so (one consumer, no relay or job on it: `crosscheck::refusal`), and
/// nothing that reads the store in-process (fingerprints, snapshots) is asked for.
pub fn run_on(scenario: &Scenario, db: Box<dyn ConsumerDb + '_>) -> RunResult {
    World::new(scenario, RunOptions::default(), &[], None, Some(db)).run()
}

/// Runs `scenario` taking, at its k-th scheduling decision, alternative `script[k]` (0 past
/// the end of the script): how interleavings are enumerated.
pub fn run_scheduled(scenario: &Scenario, options: RunOptions, script: &[u32]) -> RunResult {
    World::new(scenario, options, script, None, None).run()
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
    World::new(scenario, options, script, Some(observer), None).run()
}

/// A scheduling decision: several consumers could take a step at the same tick; one did
/// (`chosen`, an index into them in queue order) and the others waited a tick. A script's
/// choice that names no alternative (`chosen >= alternatives`) is recorded as given and run
/// as 0, for the caller to refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
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
    /// The deliveries an error policy gave up on (a non-default policy only).
    gave_up: Vec<GaveUpRecord>,
    events: Vec<Event>,
    /// The events as the scenario's SQL sees them (empty fields without a custom schema).
    sql_events: Rc<Vec<SqlEvent>>,
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
    /// With a Rust handler: its statements' load-time check, done once per statement.
    handler_sql: Option<handler_sql::HandlerSql>,
    /// One connection per consumer, to the consumers' database (the same database when
    /// there are several).
    stores: Vec<Box<dyn ConsumerDb + 's>>,
    /// The retention job's own connection to the same database, with retention.
    cleanup_store: Option<Box<dyn CleanupDb + 's>>,
    /// Per event: when the retention job first deleted its inbox row.
    inbox_expired_at: Vec<Option<Tick>>,
    inbox_rows_deleted: u64,
    /// See [`RunResult::stale_snapshots`].
    stale_snapshots: u64,
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
    producer_store: Option<Box<dyn ProducerDb + 's>>,
    /// The outbox relays (events, emails) and their connections.
    relays: Vec<Relay>,
    relay_stores: Vec<Box<dyn RelayDb + 's>>,
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
    /// The run's admission (see `store::admission`), returned once its connections closed.
    _memory: Option<crate::store::admission::Ticket>,
}

impl<'s> World<'s> {
    fn record(&mut self, tick: Tick, actor: Actor, d: Option<&Delivery>, kind: TraceKind) {
        self.push_entry(TraceEntry {
            tick,
            actor,
            kind,
            event: d.map(|d| d.event),
            copy: d.map_or(0, |d| d.copy),
            delivery: d.map_or(0, |d| d.attempt),
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
            self.record_stop(now, stop);
        }
        let verdict = self.check(stop);
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
            statements: self.stores[0]
                .local_mut()
                .map(Store::take_statements)
                .unwrap_or_default(),
            decisions: self.decisions,
            inbox_rows_deleted: self.inbox_rows_deleted,
            stale_snapshots: self.stale_snapshots,
            sql_vm_steps: self.stores.iter().map(|s| s.sql_vm_steps()).sum(),
        }
    }

    /// Says which limit stopped the run, and rolls back the transactions it left open.
    fn record_stop(&mut self, now: Tick, stop: StopReason) {
        let limit = match stop {
            StopReason::StepLimit => Limit::Steps(self.scenario.limits.max_steps),
            StopReason::TraceLimit => Limit::TraceEntries(bounds::MAX_TRACE_ENTRIES),
            StopReason::SqlLimit => Limit::SqlVmSteps(bounds::MAX_RUN_SQL_VM_STEPS),
            StopReason::TickLimit | StopReason::Quiescent => {
                Limit::Ticks(self.scenario.limits.max_ticks)
            }
        };
        let healing = self.healed.is_some();
        self.record(now, Actor::Sim, None, TraceKind::Stopped { limit, healing });
        if let Some(store) = &mut self.producer_store {
            if store.drop_open_transaction() {
                self.record(now, Actor::Producer, None, TraceKind::StopRollback);
            }
        }
        for c in 0..self.stores.len() {
            if self.stores[c].drop_open_transaction() {
                self.record(now, Actor::Consumer(c), None, TraceKind::StopRollback);
            }
        }
    }

    /// The verdict on the run, from the committed database and what the broker holds.
    fn check(&mut self, stop: StopReason) -> Verdict {
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
        let effect = (self.scenario.store.custom.as_ref()).and_then(|c| c.effect());
        // Every service the protocol calls has its boundary, but the one that is the
        // business effect: that one is the verdict per event.
        let calls: Vec<&'static str> = (self.scenario.protocol.calls().into_iter())
            .filter(|c| effect != Some(crate::model::Effect::External(c)))
            .collect();
        check::check(&check::Observed {
            effect,
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
                calls: &calls,
            },
            events: &self.events,
            accounts: &self.accounts,
            protocol: &self.scenario.protocol,
            committed: &committed,
            messages: self.broker.messages(),
            crashes: &self.crashes,
            external_effects: &self.external_effects,
            duplicates_discarded: &self.duplicates_discarded,
            gave_up: &self.gave_up,
            inbox_expired_at: &self.inbox_expired_at,
            stop,
        })
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
            if self.sql_budget_spent() {
                return StopReason::SqlLimit;
            }
        }
    }

    /// Whether the scenario's statements took the run's budget of SQLite virtual-machine
    /// steps: the run stops there, as at a step limit (the healing phase would spend it
    /// no less).
    fn sql_budget_spent(&self) -> bool {
        self.scenario.store.custom.is_some()
            && self.stores.iter().map(|s| s.sql_vm_steps()).sum::<u64>()
                >= bounds::MAX_RUN_SQL_VM_STEPS
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
        let after = match why {
            StopReason::StepLimit => Limit::Steps(limits.max_steps),
            _ => Limit::Ticks(limits.max_ticks),
        };
        let healing = TraceKind::Healing {
            after,
            steps: limits.max_steps,
            ticks: limits.max_ticks,
        };
        self.record(*now, Actor::Sim, None, healing);
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
            Occurrence::Restart(p) => self.restart(now, p),
            Occurrence::DeadLetterReplay => {
                let replayed = self.broker.handle_dead_letter_replay(now);
                if replayed.is_empty() {
                    self.record(now, Actor::Broker, None, TraceKind::DeadLettersEmpty);
                }
                for m in replayed {
                    let d = self.message_ref(m);
                    self.record(now, Actor::Broker, Some(&d), TraceKind::DeadLetterReplayed);
                }
            }
            Occurrence::ProducerTurn => self.producer_turn(now),
            Occurrence::RelayTurn(r) => self.relay_turn(now, r),
            Occurrence::BrokerTimer(m, kind) => {
                if self.broker.handle_timer(now, m, kind) {
                    let d = self.message_ref(m);
                    let what = match kind {
                        TimerKind::Redeliver if d.attempt == 0 => TraceKind::Visible,
                        TimerKind::Redeliver => TraceKind::Requeued,
                        TimerKind::LeaseExpiry { .. } => TraceKind::LeaseExpired,
                        TimerKind::LateRedelivery => TraceKind::LateReplay,
                    };
                    self.record(now, Actor::Broker, Some(&d), what);
                }
            }
            Occurrence::Cleanup => self.cleanup(now),
        }
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

    fn drain_broker(&mut self, now: Tick) {
        while let Some(out) = self.broker.poll_output() {
            match out {
                BrokerOutput::Timer { at, message, kind } => {
                    self.queue.push(at, Occurrence::BrokerTimer(message, kind))
                }
                BrokerOutput::DeadLettered { message } => {
                    let d = self.message_ref(message);
                    let dead = TraceKind::DeadLettered {
                        deliveries: d.attempt,
                        parked: self.scenario.broker.replay_dead_letters_at_tick.is_some(),
                    };
                    self.record(now, Actor::Broker, Some(&d), dead);
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
}

/// Test only: a scenario of this name is fingerprinted without the lose-ack budget, the
/// deliberately broken fingerprint that shows the pruned-equals-unpruned property can fail.
#[cfg(test)]
pub(crate) const OMIT_LOSE_ACK_BUDGET: &str = "test: fingerprint without the lose-ack budget";

/// A scenario named so is fingerprinted without its database's schema (see
/// `StateHasher::omit_schema`).
#[cfg(test)]
pub(crate) const OMIT_SCHEMA: &str = "test: fingerprint without the schema";
