//! The runs a renderer asks for, behind one seam: [`Runner`].
//!
//! `report` shows more than the run it is given. `explain` and the pages tell a run entry by
//! entry with the state after each one, which a run result does not keep (it would grow with
//! the run), so they watch the same run again; the exploration and matrix pages show the
//! runs their listing names, one at a time, so that a page of 120 runs never holds 120
//! traces. `report` decides *which* runs it needs, never *how* they are run: the CLI (or a
//! test) hands it a `Runner`, and [`InProcess`] is the one every command uses. So the layer
//! that words results executes nothing itself, and the tidy test keeps it so.

use super::{initial_committed, run, run_observed, Observer, RunOptions, RunResult};
use crate::model::{CommittedState, Event};
use crate::scenario::Scenario;

/// Runs on demand, for a renderer. `Sync`, because a page tells its runs a few at a time in
/// parallel (each run still alone on its thread).
pub trait Runner: Sync {
    /// `scenario` with the scheduling choices `script`, told entry by entry to `observer`
    /// with the state right after each one. Only the trace's hash and length are kept: the
    /// observer is what keeps the entries it wants.
    fn watch(&self, scenario: &Scenario, script: &[u32], observer: &mut dyn Observer) -> RunResult;

    /// `scenario` run to the end, its whole trace kept.
    fn run(&self, scenario: &Scenario) -> RunResult;

    /// The committed database a run of `scenario` over `events` starts from, read as the
    /// checker reads it (a scenario's own schema and seed rows included).
    fn initial_committed(&self, scenario: &Scenario, events: &[Event]) -> CommittedState;
}

/// The [`Runner`] that runs worlds in this process, on the scenario's own engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct InProcess;

impl Runner for InProcess {
    fn watch(&self, scenario: &Scenario, script: &[u32], observer: &mut dyn Observer) -> RunResult {
        let options = RunOptions {
            hash_only: true,
            ..RunOptions::default()
        };
        run_observed(scenario, options, script, observer)
    }

    fn run(&self, scenario: &Scenario) -> RunResult {
        run(scenario)
    }

    fn initial_committed(&self, scenario: &Scenario, events: &[Event]) -> CommittedState {
        initial_committed(scenario, events)
    }
}
