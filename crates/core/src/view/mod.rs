//! A run's view: what each told trace entry found in the world, as data in no language.
//!
//! The trace says what every actor did; it does not say what the database held at that
//! moment, where the other messages stood, or what an open transaction had written. To
//! tell a run (`explain`, the HTML pages), the run is watched again entry by entry
//! ([`watch`], through a [`Runner`]) and, from the snapshot after each entry, the view keeps
//! only what the words need: the states that changed ([`StateChange`]) and the few facts an
//! entry's sentence depends on ([`StepFacts`]). One snapshot is held at a time, so memory
//! grows with what is told, not with the state's size.
//!
//! The view is built here, outside `report`, once per told run; every renderer words the
//! same view in its own language (`report::explain`), and runs nothing.

mod facts;
mod state;
mod tx;

pub use state::*;
pub use tx::{TxItem, TxWrites};

use crate::model::EventIndex;
use crate::scenario::Scenario;
use crate::sim::TraceEntry;
use crate::world::{Observer, RunResult, Runner, Snapshot};
use std::collections::BTreeMap;
use std::rc::Rc;

/// At most this many trace entries are told one by one; the report says how many more the
/// run had, and everything after the steps (anomalies, verdict, failure points) still covers
/// the whole run. A learner reads a few hundred; the cap keeps a run of thousands of events
/// (`MAX_EVENTS`) from telling, and snapshotting, gigabytes.
pub const MAX_TOLD_ENTRIES: usize = 5_000;

/// A run, told: its database before the first step, then one [`StepView`] per told entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunView {
    /// The committed database before the first step.
    pub initial: DatabaseState,
    /// The first [`MAX_TOLD_ENTRIES`] trace entries, in trace order.
    pub steps: Vec<StepView>,
    /// How many entries of the run were not told.
    pub untold: usize,
}

/// One told trace entry: the entry, what its sentence needs from the state around it, and
/// the states that changed with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepView {
    /// Its index in the run's trace (the diagram's rows name the same index).
    pub entry: usize,
    pub trace: TraceEntry,
    pub facts: StepFacts,
    /// The broker, database and open-transaction states that changed, in that order.
    pub changes: Vec<StateChange>,
}

/// A state that changed with an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateChange {
    Broker(BrokerState),
    Database(DatabaseState),
    /// A transaction opened, or one whose holdings changed.
    Open(OpenState),
}

/// What an entry's sentence says that the entry alone does not: read from the state just
/// before it and just after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepFacts {
    /// A consumer's step runs inside a transaction open on the database it runs on.
    pub in_tx: bool,
    /// For a consumer's commit, rollback or crash: what its open transaction held before
    /// (for a commit, on the database it commits).
    pub writes: Option<TxWrites>,
    /// For an effect applied: the amount as the consumer's connection sees it applied (a
    /// copy with another payload carries another amount), when it is recorded.
    pub applied_amount: Option<i64>,
    /// For an ack: the event's effect is committed (ledger rows, a rejection or a counted
    /// effect), so the ack comes after it.
    pub effect_committed: bool,
    /// For a lost connection: the messages it released from flight (event, copy).
    pub released: Vec<(EventIndex, u32)>,
}

/// The view of `r`, the run of `scenario` with scheduling choices `script`, watched again
/// by `runner` entry by entry. Runs are deterministic: the watched run's trace is checked
/// to be `r`'s.
pub fn watch(runner: &dyn Runner, scenario: &Scenario, script: &[u32], r: &RunResult) -> RunView {
    let reader = Reader {
        ids: (r.events.iter())
            .map(|e| (e.event_id.as_str(), e.index))
            .collect(),
        opening: (scenario.workload.accounts().into_iter())
            .map(|a| (a.name, a.initial_balance_minor))
            .collect(),
        external_effect: (scenario.store.custom.as_ref()).is_some_and(|c| c.effect_call.is_some()),
    };
    let before = initial_snapshot(runner, scenario, r);
    let mut watcher = Watcher {
        scenario,
        r,
        broker: reader.broker(&before),
        database: reader.database(&before.committed),
        open: Vec::new(),
        reader,
        before,
        steps: Vec::new(),
    };
    let initial = watcher.database.clone();
    let told = runner.watch(scenario, script, &mut watcher);
    assert_eq!(
        (told.trace.hash_hex(), told.trace.len()),
        (r.trace.hash_hex(), r.trace.len()),
        "the told run is not the run to tell: runs are deterministic"
    );
    RunView {
        initial,
        untold: r.trace.len() - watcher.steps.len(),
        steps: watcher.steps,
    }
}

/// `scenario` run to its end with its whole trace, and that run's view: a run a page tells
/// step by step, as the HTML pages (`report::html` in the root crate) ask for one
/// ([`TellRun`]).
pub fn run_and_watch(runner: &dyn Runner, scenario: &Scenario) -> (RunResult, RunView) {
    let r = runner.run(scenario);
    let view = watch(runner, scenario, &[], &r);
    (r, view)
}

/// What a page that tells runs step by step is handed by its caller: the run of a scenario
/// with its whole trace, and its view ([`run_and_watch`], with the runner the caller
/// picked). A page asks for a run only while it has room for it, so runs are made as it
/// asks, by its caller, never by the page itself.
pub type TellRun<'a> = &'a (dyn Fn(&Scenario) -> (RunResult, RunView) + Sync);

/// The database before the first step: the accounts' opening balances, nothing else (with
/// a scenario's own schema, its set-up's rows).
fn initial_snapshot(runner: &dyn Runner, scenario: &Scenario, r: &RunResult) -> Snapshot {
    let committed = if scenario.store.custom.is_some() {
        runner.initial_committed(scenario, &r.events)
    } else {
        let mut committed = crate::model::CommittedState::default();
        for a in scenario.workload.accounts() {
            committed
                .balances
                .insert(a.name.clone(), a.initial_balance_minor);
        }
        committed
    };
    Snapshot {
        messages: Vec::new(),
        committed: Rc::new(committed),
        open: Vec::new(),
    }
}

/// Reads states from snapshots: it knows the run's events by id and the opening balances.
struct Reader<'a> {
    pub ids: BTreeMap<&'a str, EventIndex>,
    pub opening: BTreeMap<String, i64>,
    /// The scenario's effect is an external call (not in the database).
    pub external_effect: bool,
}

/// Watches a run as it goes (its [`Observer`]): a step per entry, with the states that
/// changed. It keeps the previous entry's snapshot and states, nothing older.
struct Watcher<'a> {
    scenario: &'a Scenario,
    r: &'a RunResult,
    reader: Reader<'a>,
    before: Snapshot,
    broker: BrokerState,
    database: DatabaseState,
    open: Vec<OpenState>,
    steps: Vec<StepView>,
}

impl Observer for Watcher<'_> {
    fn observe(&mut self, entry: &TraceEntry, after: Snapshot) -> bool {
        let facts = self.facts(entry, &after);
        let mut changes = Vec::new();
        if after.messages != self.before.messages {
            let broker = self.reader.broker(&after);
            if broker != self.broker {
                changes.push(StateChange::Broker(broker.clone()));
                self.broker = broker;
            }
        }
        if !Rc::ptr_eq(&after.committed, &self.before.committed) {
            let database = self.reader.database(&after.committed);
            if database != self.database {
                changes.push(StateChange::Database(database.clone()));
                self.database = database;
            }
        }
        let open = self.reader.open(&after);
        for tx in &open {
            if !self.open.contains(tx) {
                changes.push(StateChange::Open(tx.clone()));
            }
        }
        self.open = open;
        self.before = after;
        self.steps.push(StepView {
            entry: self.steps.len(),
            trace: entry.clone(),
            facts,
            changes,
        });
        self.steps.len() < MAX_TOLD_ENTRIES
    }
}

#[cfg(test)]
mod tests;
