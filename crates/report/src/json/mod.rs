//! The JSON contract: the shapes every `--json` prints (`run`, `explore` in its three modes,
//! `matrix`, `sweep`, `replay`, `crosscheck`; `run DIR` in [`super::folder`]). One concept
//! has one shape everywhere: crash points are `crash_points` lists of `after:commit e0 d1`
//! strings, a crash's `cause` is an object with a `kind`, faults are written as a scenario
//! file writes them, the guarantee over many runs is in a `summary`. Every document starts
//! with `schema_version`; its JSON Schema, derived from these types, is committed under
//! `docs/schema/` ([`super::schema`]). Field names are part of the interface: adding a field
//! keeps the version, renaming or removing one, or changing its meaning, bumps it.

mod search;
pub use search::*;

use super::lang::Lang;
use super::Origin;
pub mod failure;
use crate::check::{AnomalyKind, ExpectationFailure};
use crate::check::{EventReport, IntentReport, ScopeVerdict};
use crate::explore::retention::TtlSearch;
use crate::explore::shrink::{FailureSignature, RunSize, Shrunk};
use crate::explore::sweep::{Finding, SwarmLimits, SwarmPlan};
use crate::explore::{Exploration, Interleavings, MatrixColumn, PointRow, Summary};
use crate::fault::CrashRecord;
use crate::model::{BoundaryPoint, Guarantee, Step};
use crate::scenario::Scenario;
use crate::sim::StopReason;
use crate::world::RunResult;
pub use failure::{failures_json, serialize_failures, FailureJson};
use serde::Serialize;

/// The version of the JSON vocabulary, the first field of every document a command prints.
pub const SCHEMA_VERSION: u32 = 2;

/// [`SCHEMA_VERSION`], written as the number and described as that constant in the schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemaVersion;

impl Serialize for SchemaVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(SCHEMA_VERSION)
    }
}

impl schemars::JsonSchema for SchemaVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SchemaVersion".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "const": SCHEMA_VERSION,
            "description": "The version of the JSON vocabulary: renaming or removing a field, \
                or changing its meaning, bumps it; adding a field does not."
        })
    }
}

/// A document a command prints: `schema_version` first, then the command's own fields.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Document<T> {
    pub schema_version: SchemaVersion,
    #[serde(flatten)]
    pub body: T,
}

impl<T> Document<T> {
    pub fn new(body: T) -> Document<T> {
        Document {
            schema_version: SchemaVersion,
            body,
        }
    }
}

/// One anomaly of one event. An event may have several (lost and unacked, say).
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Anomaly {
    pub event_id: String,
    pub event: usize,
    pub kind: AnomalyKind,
    pub effects: u32,
    pub crash_points: Vec<BoundaryPoint>,
    /// The deliveries of the event an error policy gave up on after a failed step
    /// (acked, dead-lettered or rejected): what lost it when no crash did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gave_up: Vec<crate::model::GaveUpRecord>,
    pub detail: Option<String>,
    /// `payload_mismatch`: the payload the inbox holds.
    pub stored_payload: Option<String>,
    /// `payload_mismatch`: the payload of the refused copy.
    pub received_payload: Option<String>,
}

/// The anomalies of every event, with their details in English (JSON keeps one language;
/// the text reports word each anomaly in theirs).
pub fn anomalies(events: &[EventReport]) -> Vec<Anomaly> {
    let json = |a: crate::check::Anomaly| {
        let e = a.event;
        let (stored_payload, received_payload) = a
            .alert
            .map(|p| (p.stored_payload.clone(), p.received_payload.clone()))
            .unzip();
        Anomaly {
            event_id: e.event_id.clone(),
            event: e.event,
            kind: a.kind,
            effects: e.effects,
            crash_points: e.crash_points.clone(),
            gave_up: e.gave_up.clone(),
            detail: Lang::detail_of(a.kind, e, a.alert),
            stored_payload,
            received_payload,
        }
    };
    crate::check::anomalies(events)
        .into_iter()
        .map(json)
        .collect()
}

/// Whether the scenario's expectations held, and which did not.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ExpectJson {
    pub held: bool,
    pub failures: Vec<FailureJson>,
}

impl ExpectJson {
    pub fn from_failures(failures: Vec<ExpectationFailure>) -> ExpectJson {
        ExpectJson {
            held: failures.is_empty(),
            failures: failures_json(&failures),
        }
    }
}

/// `run --json`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RunJson {
    /// The verdict, from everything checked (see `check::Judgement`).
    pub verdict: crate::check::Judgement,
    pub scenario: String,
    pub protocol: String,
    pub protocol_steps: Vec<Step>,
    pub seed: u64,
    pub events: usize,
    pub lost: u64,
    pub duplicated: u64,
    /// Events whose effect is committed exactly once (`once`, as every output counts them).
    #[serde(rename = "once")]
    pub exactly_once: u64,
    /// Of the lost events, those the broker dead-lettered.
    pub dead_lettered: u64,
    /// Events not resolved when the run ended: a liveness failure.
    pub stuck: u64,
    /// Events applied with an altered copy's payload instead of their own (`wrong_effect`,
    /// as the failure kind and the boundaries name it).
    #[serde(rename = "wrong_effect")]
    pub wrong_effects: u64,
    /// Events declared invalid (`workload.invalid`) that correctly ended with no effect.
    pub invalid: u64,
    pub rejected: u64,
    /// Committed payload alerts: copies with a known `event_id` and another payload.
    pub payload_alerts: u64,
    /// Completions still buffered in `pending_event` at the end.
    pub pending: u64,
    pub guarantee: Guarantee,
    /// The verdict per guarantee boundary, the ledger per event first: what this run's
    /// guarantee covers, and what it does not.
    pub boundaries: Vec<ScopeVerdict>,
    /// Per business intent, when the scenario judges intents.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub intents: Vec<IntentReport>,
    pub all_acked: bool,
    pub conserved: bool,
    /// Inbox rows the retention job deleted.
    pub inbox_rows_deleted: u64,
    pub crashes: Vec<CrashRecord>,
    pub steps: u64,
    pub end_tick: u64,
    pub stop: StopReason,
    /// Where a limit stopped the faulty phase and the healing phase, every fault off,
    /// began; absent when the faulty phase ended by itself.
    pub healed: Option<crate::world::Heal>,
    pub trace_hash: String,
    pub anomalies: Vec<Anomaly>,
    pub event_reports: Vec<EventReport>,
    /// In a summary of many runs (`explore`, `--interleavings`, `sweep` findings): how
    /// many event reports, intent reports and drifted accounts a run does not list, beyond
    /// those of the events its crashes hit and a few anomalous ones; the counts above cover
    /// them all. Absent when nothing is left out.
    #[serde(skip_serializing_if = "crate::check::Omitted::is_empty")]
    pub omitted: crate::check::Omitted,
    pub expect: Option<ExpectJson>,
    /// `run FILE`: every check its file pins, made as `run DIR` makes them (the run, each
    /// exploration depth, the interleavings, the smallest safe TTL); absent when a flag
    /// (`--seed` another seed, `--crash`, `--schedule`, `--inbox-ttl-ticks`) changed the
    /// run, and in the runs listed by other commands.
    pub checks: Option<Vec<crate::checks::FileCheck>>,
    pub replay: String,
}

pub fn run_json(
    scenario: &Scenario,
    result: &RunResult,
    origin: &Origin,
    crash_override: &[BoundaryPoint],
    expect: Option<ExpectJson>,
) -> RunJson {
    let v = &result.verdict;
    let failed = expect.as_ref().map(|e| e.failures.len());
    RunJson {
        verdict: result.judgement(failed),
        scenario: scenario.name.clone(),
        protocol: scenario.protocol.name.clone(),
        protocol_steps: scenario.protocol.steps.clone(),
        seed: scenario.seed,
        events: v.event_count(),
        lost: v.lost,
        duplicated: v.duplicated,
        exactly_once: v.exactly_once,
        dead_lettered: v.dead_lettered,
        stuck: v.stuck,
        wrong_effects: v.wrong_effects,
        invalid: v.invalid,
        rejected: v.rejected,
        payload_alerts: v.payload_alerts,
        pending: v.pending,
        guarantee: v.guarantee,
        boundaries: v.boundaries.clone(),
        intents: v.intents.clone(),
        all_acked: v.all_acked,
        conserved: v.conserved,
        inbox_rows_deleted: result.inbox_rows_deleted,
        crashes: result.crashes.clone(),
        steps: result.steps,
        end_tick: result.end_tick,
        stop: result.stop,
        healed: result.healed,
        trace_hash: result.trace.hash_hex(),
        anomalies: anomalies(&v.events),
        event_reports: v.events.clone(),
        omitted: v.omitted,
        expect,
        checks: None,
        replay: origin.replay_command(scenario.seed, crash_override),
    }
}

/// One run of `explore --json`: its crash point (empty for the crash-free run) and the run
/// fields.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ExploredRunJson {
    pub crash_points: Vec<BoundaryPoint>,
    /// The index (in `runs`) of an earlier run with the same state after the last crash.
    pub equivalent_to: Option<usize>,
    #[serde(flatten)]
    pub run: RunJson,
}

/// `explore --json`. Its runs are made one at a time as they are written (an exploration
/// may have hundreds of thousands): write it with [`serde_json::to_writer`].
#[serde_with::skip_serializing_none]
#[derive(Serialize, schemars::JsonSchema)]
pub struct ExploreJson<'a> {
    /// The verdict over every run (see `check::Judgement`).
    pub verdict: crate::check::Judgement,
    pub scenario: &'a str,
    pub protocol: &'a str,
    #[schemars(with = "Vec<ExploredRunJson>")]
    pub runs: ExploredRunsJson<'a>,
    pub summary: Summary,
    pub expect: Option<ExpectJson>,
}

/// The runs of an exploration as JSON, each made when it is written.
pub struct ExploredRunsJson<'a> {
    scenario: &'a Scenario,
    exploration: &'a Exploration,
    origin: &'a Origin,
}

impl Serialize for ExploredRunsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.exploration.runs.iter().map(|r| ExploredRunJson {
            crash_points: r.crashes.clone(),
            equivalent_to: r.equivalent_to,
            run: run_json(self.scenario, &r.result, self.origin, &r.crashes, None),
        }))
    }
}

pub fn explore_json<'a>(
    scenario: &'a Scenario,
    exploration: &'a Exploration,
    origin: &'a Origin,
    expect: Option<ExpectJson>,
) -> ExploreJson<'a> {
    ExploreJson {
        verdict: (exploration.summary).judgement(expect.as_ref().map(|e| e.failures.len())),
        scenario: &scenario.name,
        protocol: &scenario.protocol.name,
        runs: ExploredRunsJson {
            scenario,
            exploration,
            origin,
        },
        summary: exploration.summary,
        expect,
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MatrixPointJson {
    pub at: crate::model::Boundary,
    /// Over the runs crashed at this boundary, as every output names a guarantee.
    pub guarantee: Guarantee,
    pub runs: u64,
    pub once: u64,
    pub lost: u64,
    pub duplicated: u64,
    /// The command replaying the first failing run at this boundary, if any failed.
    pub replay: Option<String>,
    /// The confirmed state after the crash, the recovery and the outcome, per group of
    /// events that behaved alike.
    pub rows: Vec<PointRow>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MatrixProtocolJson {
    /// The verdict over its runs at the matrix's depth (see `check::Judgement`).
    pub verdict: crate::check::Judgement,
    pub name: String,
    pub protocol_steps: Vec<Step>,
    /// Over single crashes, as `runs`, `lost_runs` and `duplicated_runs`.
    pub guarantee: Guarantee,
    pub expected_guarantee: Option<Guarantee>,
    pub runs: u64,
    pub lost_runs: u64,
    pub duplicated_runs: u64,
    /// The summary at each depth explored, 1 first.
    pub depths: Vec<Summary>,
    pub points: Vec<MatrixPointJson>,
}

/// `matrix --json`, and `results/matrix.json`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct MatrixJson {
    /// The verdict over every protocol (see `crate::explore::matrix_judgement`).
    pub verdict: crate::check::Judgement,
    /// The engine the consumers' database ran on.
    pub engine: crate::model::Engine,
    /// On PostgreSQL: the isolation level of every connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<crate::model::Isolation>,
    pub events: usize,
    pub seed: u64,
    pub depth: usize,
    pub protocols: Vec<MatrixProtocolJson>,
}

/// How to rebuild one of the matrix's scenarios from the command line.
pub fn matrix_origin(column: &MatrixColumn, events: usize) -> Origin {
    Origin::BuiltIn {
        protocol: column.protocol.name.clone(),
        events,
    }
}

pub fn matrix_json(columns: &[MatrixColumn], events: usize, seed: u64, depth: usize) -> MatrixJson {
    MatrixJson {
        verdict: crate::explore::matrix_judgement(columns),
        engine: columns.first().map_or_else(Default::default, |c| c.engine),
        isolation: columns.first().and_then(|c| c.isolation),
        events,
        seed,
        depth,
        protocols: columns
            .iter()
            .map(|c| MatrixProtocolJson {
                verdict: (c.summaries.last())
                    .expect("a depth of at least 1")
                    .judgement(Some(usize::from(!c.as_documented()))),
                name: c.protocol.name.clone(),
                protocol_steps: c.protocol.steps.clone(),
                guarantee: c.single().guarantee,
                expected_guarantee: c.protocol.known_crash_guarantee(),
                runs: c.single().runs,
                lost_runs: c.single().lost_runs,
                duplicated_runs: c.single().duplicated_runs,
                depths: c.summaries.clone(),
                points: c
                    .cells
                    .iter()
                    .map(|cell| MatrixPointJson {
                        at: cell.at,
                        guarantee: Guarantee::from_anomalies(cell.lost > 0, cell.duplicated > 0),
                        runs: cell.runs,
                        once: cell.once,
                        lost: cell.lost,
                        duplicated: cell.duplicated,
                        replay: cell
                            .first_failure
                            .map(|p| matrix_origin(c, events).replay_command(seed, &[p])),
                        rows: cell.rows.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// One line of a sweep's `--out` file (JSON Lines).
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FindingJson<'a> {
    pub seed: u64,
    pub scenario: &'a str,
    pub protocol: &'a str,
    pub guarantee: Guarantee,
    pub lost: u64,
    pub duplicated: u64,
    pub dead_lettered: u64,
    pub all_acked: bool,
    pub conserved: bool,
    pub stop: StopReason,
    pub crashes: &'a [CrashRecord],
    pub plan: &'a SwarmPlan,
    pub anomalies: Vec<Anomaly>,
    pub trace_hash: String,
    pub replay: String,
    /// The properties the run broke (`lost`, `duplicated`, `unacked`, …).
    pub failure: FailureSignature,
    /// The replay token of this exact run.
    pub token: String,
    /// The minimal run that fails the same way, when the finding was shrunk.
    pub shrunk: Option<ShrunkJson>,
}

/// `sweep --json`, before its findings: what was swept within which limits.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SweepHead<'a> {
    pub scenario: &'a str,
    pub protocol: &'a str,
    /// The seeds asked for: `start` included, `end` excluded.
    /// The seeds swept (`seeds` is their count where a verdict covers them).
    #[serde(rename = "seed_range")]
    pub seeds: SeedRange,
    /// The ranges each seed drew its faults from.
    pub limits: SwarmLimits,
    /// How many findings are shrunk (the first ones); absent with `--no-shrink`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrink_findings: Option<u64>,
}

/// A range of seeds, `start` included, `end` excluded (`--seeds START..END`).
#[derive(Clone, Copy, Debug, Serialize, schemars::JsonSchema)]
pub struct SeedRange {
    pub start: u64,
    pub end: u64,
}

/// `sweep --json`, after its findings.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SweepSummary {
    /// Seeds run: all of them, or, when interrupted, those before `resume`'s.
    pub runs: u64,
    pub findings: u64,
    /// Findings shrunk (each finding's own `shrunk` is what it was shrunk to).
    pub shrunk_findings: u64,
    /// Whether an interruption (Ctrl-C) stopped the sweep; `resume` runs the rest.
    pub interrupted: bool,
    pub resume: Option<String>,
}

/// `sweep --json`: one document, written as the sweep goes (the head, each finding as it is
/// found, the summary), so that a sweep of millions of seeds is never held in memory.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SweepJson<'a> {
    #[serde(flatten)]
    pub head: SweepHead<'a>,
    /// The failing seeds, in seed order.
    pub findings: Vec<FindingJson<'a>>,
    /// The verdict over every seed swept (written after the findings it is made of).
    pub verdict: crate::check::Judgement,
    pub summary: SweepSummary,
}

/// A shrunk failing run: how far it shrank, and the run itself as a token and as a
/// scenario file.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ShrunkJson {
    pub failure: FailureSignature,
    pub original: RunSize,
    pub size: RunSize,
    /// Simulator runs the shrink spent.
    pub runs: u64,
    /// Whether the run budget stopped the shrink (a smaller run may exist).
    pub exhausted: bool,
    pub crashes: Vec<CrashRecord>,
    pub schedule: Vec<u32>,
    pub trace_hash: String,
    pub token: String,
    pub replay: String,
    /// The shrunk scenario, as a scenario file would hold it (`scenario` is a name in every
    /// other output).
    #[serde(rename = "scenario_file")]
    #[schemars(with = "crate::scenario::ScenarioFileJson")]
    pub scenario: serde_json::Value,
}

impl ShrunkJson {
    pub fn of(s: &Shrunk) -> ShrunkJson {
        let token = s.token();
        ShrunkJson {
            failure: s.signature.clone(),
            original: s.original,
            size: s.size,
            runs: s.runs,
            exhausted: s.exhausted,
            crashes: s.result.crashes.clone(),
            schedule: s.schedule.clone(),
            trace_hash: s.result.trace.hash_hex(),
            replay: super::token_command(&token),
            token,
            scenario: serde_json::from_str(&s.scenario.to_json()).expect("written JSON parses"),
        }
    }
}

/// One sweep finding as a JSON line: `replay` is the sweep command of its seed, `token` the
/// replay token of its exact run, `shrunk` its shrunk run if it was shrunk.
pub fn finding_json<'a>(
    scenario: &'a Scenario,
    f: &'a Finding,
    replay: String,
    token: String,
    shrunk: Option<&Shrunk>,
) -> FindingJson<'a> {
    let v = &f.result.verdict;
    FindingJson {
        failure: f.result.failure(),
        token,
        shrunk: shrunk.map(ShrunkJson::of),
        seed: f.seed,
        scenario: &scenario.name,
        protocol: &scenario.protocol.name,
        guarantee: v.guarantee,
        lost: v.lost,
        duplicated: v.duplicated,
        dead_lettered: v.dead_lettered,
        all_acked: v.all_acked,
        conserved: v.conserved,
        stop: f.result.stop,
        crashes: &f.result.crashes,
        plan: &f.plan,
        anomalies: anomalies(&v.events),
        trace_hash: f.result.trace.hash_hex(),
        replay,
    }
}
