//! `explain --json`: the told run as data, in the shape and with the names of every other
//! output (`verdict`, `point`, `confirmed`, `recovery`, `outcome` typed as `run --json` has
//! them), and the told words beside them, in the language asked for.

use super::*;
use crate::check::ExpectationFailure;
use crate::check::Judgement;
use crate::fault::Confirmed;
use crate::json::ExpectJson;
use crate::model::BoundaryPoint;
use serde::Serialize;

/// `explain --json`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ExplainJson {
    /// The verdict on the run (see `check::Judgement`).
    pub verdict: Judgement,
    pub scenario: String,
    pub protocol: String,
    /// The language of the told words (`en` or `es`).
    pub lang: &'static str,
    pub trace_hash: String,
    /// The command that tells the run again.
    pub replay: String,
    /// The committed database before the first step, told.
    pub initial_database: String,
    /// The first trace entries, one told step each, in trace order.
    pub told: Vec<ToldStepJson>,
    /// How many trace entries were not told (past the bound on told entries).
    pub untold: usize,
    /// Every anomaly, told.
    pub anomaly_words: Vec<String>,
    /// The seeds' failure-point table: one per crash.
    pub failure_points: Vec<FailurePointJson>,
    pub expect: Option<ExpectJson>,
}

/// One trace entry, told.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ToldStepJson {
    /// Its index in the run's trace.
    pub entry: usize,
    pub tick: u64,
    pub sentence: String,
    /// Whether something went wrong there (a crash, a refusal, a loss).
    pub alarm: bool,
    /// The states that changed with it, told.
    pub states: Vec<ToldStateJson>,
}

/// One state line under a told step.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ToldStateJson {
    /// `broker`, `database` or `open_transaction`.
    pub of: &'static str,
    pub words: String,
}

/// One crash of the run, as the seeds' table has it: typed, and told.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FailurePointJson {
    pub point: BoundaryPoint,
    pub confirmed: Confirmed,
    pub recovery: Recovery,
    /// The crashed event's outcome.
    pub outcome: crate::check::Outcome,
    /// The row as the table tells it.
    pub told_row: FailurePointWords,
}

/// A failure-point row in words.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FailurePointWords {
    pub point_words: String,
    pub confirmed_words: String,
    pub recovery_words: String,
    pub outcome_words: String,
}

/// `r` told in `lang`, as data.
pub fn explain_json(
    view: &crate::view::RunView,
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
    failures: Option<Vec<ExpectationFailure>>,
    lang: Lang,
) -> ExplainJson {
    let story = story(view, scenario, r, lang);
    let told = (story.steps.into_iter())
        .map(|s| ToldStepJson {
            entry: s.entry,
            tick: s.tick,
            sentence: s.sentence,
            alarm: s.alarm,
            states: (s.states.into_iter())
                .map(|(label, words)| ToldStateJson {
                    of: match label {
                        StateLabel::Broker => "broker",
                        StateLabel::Database => "database",
                        StateLabel::OpenTransaction => "open_transaction",
                    },
                    words,
                })
                .collect(),
        })
        .collect();
    let failure_points = (r.crashes.iter().zip(story.failure_points))
        .map(|(c, words)| FailurePointJson {
            point: c.point,
            confirmed: c.confirmed,
            recovery: Recovery::after(r, c),
            outcome: (r.verdict.event(c.point.event))
                .expect("the report of an event a crash hit is always kept")
                .outcome,
            told_row: FailurePointWords {
                point_words: words.point,
                confirmed_words: words.confirmed,
                recovery_words: words.recovery,
                outcome_words: words.outcome,
            },
        })
        .collect();
    ExplainJson {
        verdict: r.judgement(failures.as_ref().map(Vec::len)),
        scenario: scenario.name.clone(),
        protocol: scenario.protocol.name.clone(),
        lang: lang.code(),
        trace_hash: r.trace.hash_hex(),
        replay: replay.to_string(),
        initial_database: story.initial_database,
        told,
        untold: story.untold,
        anomaly_words: story.anomalies,
        failure_points,
        expect: failures.map(ExpectJson::from_failures),
    }
}
