//! A failed expectation as data: which field of `expect` (or which property every run owes,
//! such as finishing) did not hold, what was wanted and what was observed. The checker and
//! the explorers build these; `report::lang` words them in the reader's language, and JSON
//! emits them as they are.

use super::*;

/// A count, a flag or a guarantee of `expect`, or what a run or an exploration showed for
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Value {
    Count(u64),
    Flag(bool),
    Guarantee(Guarantee),
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Count(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Flag(b)
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Count(n) => write!(f, "{n}"),
            Value::Flag(b) => write!(f, "{b}"),
            Value::Guarantee(g) => write!(f, "{g}"),
        }
    }
}

/// What a count of one run, or of runs, was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    Lost,
    Duplicated,
    Rejected,
    Pending,
    PayloadAlerts,
}

/// What an exploration stopped short of for lack of memory: which bounds to lower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Explored {
    /// A crash exploration (`--depth`).
    Crashes,
    /// An interleaving exploration (`--max-preemptions`, `--max-interleavings`).
    Interleavings,
}

/// One expectation that did not hold. Every scenario expects its runs to finish, stated or
/// not: a run that cannot is a failure here too ([`ExpectationFailure::Liveness`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "expectation", rename_all = "snake_case")]
pub enum ExpectationFailure {
    /// `expect.guarantee` (or the exploration's, or the interleavings').
    /// `over`: one run (`run`), every run of an exploration, or the interleavings
    /// explored (all of them when `complete`).
    Guarantee {
        over: Coverage,
        #[schemars(with = "Value")]
        want: Guarantee,
        #[schemars(with = "Value")]
        got: Guarantee,
    },
    /// `expect.boundaries.<scope>.guarantee` in one run; `observed` is that boundary's
    /// verdict.
    BoundaryGuarantee {
        #[schemars(with = "Value")]
        want: Guarantee,
        observed: ScopeVerdict,
    },
    /// `expect.explore[].boundaries.<scope>.guarantee`: the weakest over the runs.
    BoundaryGuaranteeOverRuns {
        scope: Scope,
        #[schemars(with = "Value")]
        want: Guarantee,
        #[schemars(with = "Value")]
        got: Guarantee,
    },
    /// A count of events of one run (`expect.lost`, `expect.payload_alerts`, …).
    Events {
        counted: Counted,
        #[schemars(with = "Value")]
        want: u64,
        #[schemars(with = "Value")]
        got: u64,
    },
    /// A field compared as it is written: `all_acked`, `ledger_per_event.ghost`, `runs`,
    /// `smallest_safe_ttl.ticks`, … (`field` is its path in `expect`).
    Field {
        field: String,
        want: Value,
        got: Value,
    },
    /// A boundary expected that the run (`present`: the boundaries it has) or the
    /// exploration (`present`: none listed) does not have.
    MissingBoundary {
        scope: Scope,
        present: Option<Vec<Scope>>,
    },
    /// `expect.lost`/`duplicated` of 0 over an exploration: `runs` runs had one.
    NoRunWith { counted: Counted, runs: u64 },
    /// `expect.lost`/`duplicated` above 0 over an exploration: no run had one.
    SomeRunWith { counted: Counted },
    /// `expect.all_acked` over an exploration: `runs` runs left an event unacked.
    EveryRunAcked { runs: u64 },
    /// `expect.conserved` over an exploration: `runs` runs broke conservation.
    EveryRunConserved { runs: u64 },
    /// `expect.smallest_safe_ttl`: no safe TTL within the bounds, so none was verified.
    TtlUnverified,
    /// A run that could not finish.
    Liveness(LivenessFailure),
    /// Runs of an exploration that could not finish (`unfinished` of `runs`).
    LivenessRuns { unfinished: u64, runs: u64 },
    /// An exploration the memory budget for kept runs stopped after `runs` runs.
    Memory {
        runs: u64,
        budget_mib: u64,
        exploration: Explored,
    },
}

/// Why a run could not finish: what stopped it, and the events still unresolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LivenessFailure {
    /// What stopped the run (`quiescent`: it ended by itself with events stuck).
    pub stop: StopReason,
    /// Whether the limit was the healing phase's.
    pub healing_phase: bool,
    /// The limit's value, when a limit stopped it.
    pub limit: Option<u64>,
    /// The events unresolved and still held by the broker: at most
    /// [`LivenessFailure::NAMED`] of them.
    pub stuck: Vec<EventIndex>,
    /// How many are unresolved in all.
    pub stuck_count: u64,
}

impl LivenessFailure {
    /// How many unresolved events are named.
    pub const NAMED: usize = 20;
}
