//! What a simulated and a real run are compared on (the consumer's lines, the points
//! reached, what each crash confirmed, the verdict), and every difference between them.

use super::*;

/// One line of the consumer's trace, as both sides record it (rendered from the typed
/// entry, for the report and its JSON).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Line {
    pub tick: Tick,
    pub action: String,
    pub event: Option<EventIndex>,
    pub copy: u32,
    pub delivery: u32,
    pub outcome: String,
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let target = match self.event {
            Some(e) if self.copy > 0 => format!("e{e} copy{} d{}", self.copy, self.delivery),
            Some(e) => format!("e{e} d{}", self.delivery),
            None => String::new(),
        };
        write!(
            f,
            "t={:<4} {:<15} {:<9} {}",
            self.tick, self.action, target, self.outcome
        )
    }
}

/// What one run, simulated or real, is compared on.
#[derive(Clone, Debug)]
pub struct Observation {
    /// The consumer's steps and what came of them, in order.
    pub lines: Vec<Line>,
    /// Every boundary the consumer reached.
    pub reached: Vec<BoundaryPoint>,
    pub crashes: Vec<CrashRecord>,
    pub stop: StopReason,
    /// What the run broke (see `RunResult::failure`).
    pub failure: crate::check::FailureSignature,
    pub end_tick: Tick,
    pub steps: u64,
    pub verdict: Verdict,
}

/// One difference between the simulated and the real run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Difference {
    /// What differs (`verdict.events[0].effects`, `consumer trace line 7`, …).
    pub what: String,
    pub simulated: String,
    pub real: String,
}

/// Every difference between a simulated and a real run (none: they match).
pub fn compare(sim: &Observation, real: &Observation) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut differ = |what: String, simulated: String, real: String| {
        if simulated != real {
            out.push(Difference {
                what,
                simulated,
                real,
            });
        }
    };
    differ(
        "stop reason".into(),
        format!("{:?}", sim.stop),
        format!("{:?}", real.stop),
    );
    differ(
        "steps".into(),
        sim.steps.to_string(),
        real.steps.to_string(),
    );
    differ(
        "end tick".into(),
        sim.end_tick.to_string(),
        real.end_tick.to_string(),
    );
    let n = sim.crashes.len().max(real.crashes.len());
    for i in 0..n {
        let show = |c: Option<&CrashRecord>| match c {
            None => "no crash".to_string(),
            Some(c) => format!(
                "at t={} {}: transaction open {}, confirmed {} (ledger rows {}, inbox rows {})",
                c.tick,
                c.point,
                if c.dropped_transaction { "yes" } else { "no" },
                c.confirmed.describe(),
                c.confirmed.ledger_rows,
                c.confirmed.inbox_rows
            ),
        };
        differ(
            format!("crash {i}"),
            show(sim.crashes.get(i)),
            show(real.crashes.get(i)),
        );
    }
    if let Some(i) = first_difference(&sim.reached, &real.reached) {
        let show = |r: &[BoundaryPoint]| {
            r.get(i)
                .map_or("(no more points)".to_string(), |p| p.to_string())
        };
        differ(
            format!("crash points reached, #{i}"),
            show(&sim.reached),
            show(&real.reached),
        );
    }
    // Both runs are the same executor's, so every line must be the same, word for word: a
    // difference is the database (or the crash) answering otherwise.
    if let Some(i) = first_difference(&sim.lines, &real.lines) {
        let show = |l: &[Line]| {
            l.get(i)
                .map_or("(the trace ends)".to_string(), |l| l.to_string())
        };
        differ(
            format!("consumer trace, line {}", i + 1),
            show(&sim.lines),
            show(&real.lines),
        );
    }
    let (sv, rv) = (
        serde_json::to_value(&sim.verdict).expect("verdicts serialize"),
        serde_json::to_value(&real.verdict).expect("verdicts serialize"),
    );
    let mut leaves = Vec::new();
    json_differences("verdict", &sv, &rv, &mut leaves);
    for (path, s, r) in leaves {
        differ(path, s, r);
    }
    out
}

pub(super) fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))
}

/// The paths at which two JSON values differ, with both sides as compact JSON.
pub(super) fn json_differences(
    path: &str,
    a: &serde_json::Value,
    b: &serde_json::Value,
    out: &mut Vec<(String, String, String)>,
) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let missing = Value::Null;
                json_differences(
                    &format!("{path}.{k}"),
                    x.get(k).unwrap_or(&missing),
                    y.get(k).unwrap_or(&missing),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                json_differences(&format!("{path}[{i}]"), u, v, out);
            }
        }
        _ if a != b => out.push((path.to_string(), a.to_string(), b.to_string())),
        _ => {}
    }
}
