//! What the reports show of a scenario file's checks, as data in no language: the text
//! report, JUnit and the JSON read the same values and word them each in their own way
//! (`report::lang`), so none of them takes its data from another's output.

use crate::check::{CheckKind, ExpectationFailure, Judgement};
use crate::model::Guarantee;
use serde::Serialize;

/// One check of one scenario file against its `expect`.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FileCheck {
    /// `run`, `explore dD` (the `expect.explore` entry for depth D), or `interleavings`.
    pub name: String,
    /// Which check it is (its `name`, as data).
    #[serde(skip)]
    #[schemars(skip)]
    pub kind: CheckKind,
    /// The check's own verdict, from everything it checked.
    pub verdict: Judgement,
    /// How many runs the check made: 1 for `run`, the runs of an exploration, the
    /// interleavings enumerated, the runs over every TTL a search tried.
    pub runs: u64,
    /// The guarantee the check's runs showed, all of them together (none for the smallest
    /// safe TTL search, whose runs are at many TTLs).
    pub guarantee: Option<Guarantee>,
    /// The expectations that failed; empty when they all held.
    #[serde(serialize_with = "crate::json::failure::serialize_failures")]
    #[schemars(with = "Vec<crate::json::failure::FailureJson>")]
    pub failures: Vec<ExpectationFailure>,
    /// The command that repeats this check alone.
    pub replay: String,
}

/// The verdict over a scenario file (`run FILE`, a row of `run DIR`): its plain run's
/// (`run`) and every other check's together; the run's alone when it pins nothing else.
pub fn file_judgement(run: &Judgement, checks: &[FileCheck]) -> Judgement {
    let others: Vec<(CheckKind, &Judgement)> = (checks.iter())
        .filter(|c| c.kind != CheckKind::Run)
        .map(|c| (c.kind, &c.verdict))
        .collect();
    if others.is_empty() {
        return run.clone();
    }
    let all: Vec<(CheckKind, &Judgement)> = std::iter::once((CheckKind::Run, run))
        .chain(others)
        .collect();
    Judgement::of_checks(&all)
}
