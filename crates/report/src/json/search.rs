//! The JSON of the searches beyond one exploration: `explore --interleavings --json` and
//! `explore --smallest-safe-ttl --json`, their counts named as an exploration's.

use super::*;
use crate::check::ExpectationFailure;

/// One interleaving in `explore --interleavings --json`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct InterleavingJson {
    /// The crash injected in this run (with `--with-crashes`; empty without), as explore
    /// writes a run's crash points.
    pub crash_points: Vec<BoundaryPoint>,
    /// The scheduling choices, as `run --schedule` takes them.
    pub schedule: Vec<u32>,
    pub guarantee: Guarantee,
    pub lost: u64,
    pub duplicated: u64,
    pub rejected: u64,
    pub pending: u64,
    pub all_acked: bool,
    pub conserved: bool,
    pub trace_hash: String,
    pub replay: String,
}

/// The summary over every interleaving, named as an exploration's [`Summary`] names its
/// counts.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct InterleavingsSummary {
    /// Interleavings run.
    pub runs: u64,
    /// Whether `--max-interleavings`, the memory budget or an interruption stopped the
    /// enumeration before every interleaving was run.
    pub truncated: bool,
    /// Whether the memory budget for kept runs stopped it (a failure).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memory_limited: bool,
    /// Runs that broke any property (lost, duplicated, unacked, unconserved, …).
    pub breaking_runs: u64,
    pub lost_runs: u64,
    pub duplicated_runs: u64,
    pub dead_lettered_runs: u64,
    pub stuck_runs: u64,
    pub wrong_effect_runs: u64,
    /// Runs that could not finish (an event stuck, or a limit stopped the healing phase).
    pub liveness_failed_runs: u64,
    pub rejected_runs: u64,
    pub pending_runs: u64,
    pub unacked_runs: u64,
    pub unconserved_runs: u64,
    /// Runs a limit stopped before they ended by themselves.
    pub limited_runs: u64,
    /// The weakest guarantee over every interleaving.
    pub guarantee: Guarantee,
}

/// `explore --interleavings --json`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct InterleavingsJson {
    /// The verdict over every interleaving run (see `check::Judgement`).
    pub verdict: crate::check::Judgement,
    pub scenario: String,
    pub protocol: String,
    pub consumers: usize,
    pub max_preemptions: usize,
    pub with_crashes: bool,
    pub runs: Vec<InterleavingJson>,
    pub summary: InterleavingsSummary,
    pub expect: Option<ExpectJson>,
}

pub fn interleavings_json(
    scenario: &Scenario,
    x: &Interleavings,
    replays: &[String],
    failures: Option<Vec<ExpectationFailure>>,
) -> InterleavingsJson {
    InterleavingsJson {
        verdict: x.judgement(failures.as_ref().map(Vec::len)),
        scenario: scenario.name.clone(),
        protocol: scenario.protocol.name.clone(),
        consumers: scenario.consumers,
        max_preemptions: x.max_preemptions,
        with_crashes: x.with_crashes,
        runs: x
            .runs
            .iter()
            .zip(replays)
            .map(|(r, replay)| {
                let v = &r.result.verdict;
                InterleavingJson {
                    crash_points: r.crash.into_iter().collect(),
                    schedule: r.schedule.to_vec(),
                    guarantee: v.guarantee,
                    lost: v.lost,
                    duplicated: v.duplicated,
                    rejected: v.rejected,
                    pending: v.pending,
                    all_acked: v.all_acked,
                    conserved: v.conserved,
                    trace_hash: r.result.trace.hash_hex(),
                    replay: replay.clone(),
                }
            })
            .collect(),
        summary: interleavings_summary(x),
        expect: failures.map(ExpectJson::from_failures),
    }
}

/// The counts over every interleaving, named and counted as an exploration's.
fn interleavings_summary(x: &Interleavings) -> InterleavingsSummary {
    let count = |f: &dyn Fn(&crate::world::RunResult) -> bool| {
        x.runs.iter().filter(|r| f(&r.result)).count() as u64
    };
    InterleavingsSummary {
        runs: x.runs.len() as u64,
        truncated: !x.complete,
        memory_limited: x.memory_limited,
        breaking_runs: x.breaking_runs,
        lost_runs: x.lost_runs,
        duplicated_runs: x.duplicated_runs,
        dead_lettered_runs: count(&|r| r.verdict.dead_lettered > 0),
        stuck_runs: count(&|r| r.verdict.stuck > 0),
        wrong_effect_runs: count(&|r| r.verdict.wrong_effects > 0),
        liveness_failed_runs: x.liveness_failed_runs,
        rejected_runs: x.rejected_runs,
        pending_runs: x.pending_runs,
        unacked_runs: count(&|r| !r.verdict.all_acked),
        unconserved_runs: x.unconserved_runs,
        limited_runs: count(&|r| r.stop != StopReason::Quiescent),
        guarantee: x.guarantee,
    }
}

/// `explore --smallest-safe-ttl --json`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TtlSearchJson {
    /// The verdict on the search (see `check::Judgement`).
    pub verdict: crate::check::Judgement,
    pub scenario: String,
    pub protocol: String,
    #[serde(flatten)]
    pub search: TtlSearch,
    pub summary: TtlSummary,
    /// The command replaying the largest unsafe TTL's failing run.
    pub replay: Option<String>,
    pub expect: Option<ExpectJson>,
}

/// The counts over every TTL tried, named as an exploration's summary names them.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TtlSummary {
    /// Runs over every TTL tried.
    pub runs: u64,
    /// Runs that duplicated an event, over every TTL tried.
    pub duplicated_runs: u64,
    /// The guarantee of the verdict: exactly-once when a safe TTL was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarantee: Option<Guarantee>,
}

pub fn ttl_search_json(
    scenario: &Scenario,
    search: &TtlSearch,
    replay: Option<String>,
    expect: Option<ExpectJson>,
) -> TtlSearchJson {
    let verdict = search.judgement(expect.as_ref().map(|e| e.failures.len()));
    let summary = TtlSummary {
        runs: search.runs,
        duplicated_runs: search.candidates.iter().map(|c| c.duplicated_runs).sum(),
        guarantee: verdict.guarantee,
    };
    TtlSearchJson {
        verdict,
        summary,
        scenario: scenario.name.clone(),
        protocol: scenario.protocol.name.clone(),
        search: search.clone(),
        replay,
        expect,
    }
}

/// `explore --isolation-ladder --json`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct LadderJson {
    pub scenario: String,
    /// The expectations that failed (the file's, for its own rung) and the rungs whose runs
    /// could not finish: empty when the file's expectations held, absent when it states
    /// none and every rung finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<Vec<super::FailureJson>>,
    #[serde(flatten)]
    pub ladder: crate::explore::ladder::Ladder,
    /// The weakest PostgreSQL level at which no interleaving broke the protocol.
    pub weakest_holding: Option<crate::model::Isolation>,
    /// Whether SQLite's answer differs from PostgreSQL's at read committed.
    pub sqlite_differs: bool,
}

impl LadderJson {
    pub fn new(
        scenario: &str,
        ladder: &crate::explore::ladder::Ladder,
        failures: Option<Vec<ExpectationFailure>>,
    ) -> LadderJson {
        LadderJson {
            scenario: scenario.to_string(),
            failures: failures.as_deref().map(super::failures_json),
            ladder: ladder.clone(),
            weakest_holding: ladder.weakest_holding(),
            sqlite_differs: ladder.sqlite_misleads(),
        }
    }
}
