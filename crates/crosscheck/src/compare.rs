//! What a simulated and a real run are compared on (the consumer's lines, the points
//! reached, what each crash confirmed, the verdict), and every difference between them.

use super::*;

/// One line of the consumer's trace, as both sides record it: compared as the typed entry,
/// worded by the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub tick: Tick,
    pub action: &'static str,
    pub event: Option<EventIndex>,
    pub copy: u32,
    pub delivery: u32,
    pub kind: crate::model::TraceKind,
}

impl Line {
    /// The line with its outcome worded as `outcome`: `t=6    commit  e0 d1     committed`.
    pub fn with_outcome(&self, outcome: &str) -> String {
        let target = match self.event {
            Some(e) if self.copy > 0 => format!("e{e} copy{} d{}", self.copy, self.delivery),
            Some(e) => format!("e{e} d{}", self.delivery),
            None => String::new(),
        };
        format!(
            "t={:<4} {:<15} {:<9} {outcome}",
            self.tick, self.action, target
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

/// One difference between the simulated and the real run: where, and what each side had
/// there (`None`: that side has nothing there, its list being shorter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    Stop {
        simulated: StopReason,
        real: StopReason,
    },
    Steps {
        simulated: u64,
        real: u64,
    },
    EndTick {
        simulated: Tick,
        real: Tick,
    },
    /// The `index`th crash (from 0).
    Crash {
        index: usize,
        simulated: Option<CrashRecord>,
        real: Option<CrashRecord>,
    },
    /// The first crash point reached differently, the `index`th (from 0).
    Reached {
        index: usize,
        simulated: Option<BoundaryPoint>,
        real: Option<BoundaryPoint>,
    },
    /// The first consumer trace line that differs, the `index`th (from 0).
    TraceLine {
        index: usize,
        simulated: Option<Line>,
        real: Option<Line>,
    },
    /// A value of the verdicts, at its JSON path (`verdict.events[0].effects`), as compact
    /// JSON on each side.
    Verdict {
        path: String,
        simulated: String,
        real: String,
    },
}

/// Every difference between a simulated and a real run (none: they match).
pub fn compare(sim: &Observation, real: &Observation) -> Vec<Difference> {
    let mut out = Vec::new();
    if sim.stop != real.stop {
        out.push(Difference::Stop {
            simulated: sim.stop,
            real: real.stop,
        });
    }
    if sim.steps != real.steps {
        out.push(Difference::Steps {
            simulated: sim.steps,
            real: real.steps,
        });
    }
    if sim.end_tick != real.end_tick {
        out.push(Difference::EndTick {
            simulated: sim.end_tick,
            real: real.end_tick,
        });
    }
    for index in 0..sim.crashes.len().max(real.crashes.len()) {
        let (s, r) = (sim.crashes.get(index), real.crashes.get(index));
        if s != r {
            out.push(Difference::Crash {
                index,
                simulated: s.cloned(),
                real: r.cloned(),
            });
        }
    }
    if let Some(index) = first_difference(&sim.reached, &real.reached) {
        out.push(Difference::Reached {
            index,
            simulated: sim.reached.get(index).copied(),
            real: real.reached.get(index).copied(),
        });
    }
    // Both runs are the same executor's, so every line must be the same entry: a difference
    // is the database (or the crash) answering otherwise.
    if let Some(index) = first_difference(&sim.lines, &real.lines) {
        out.push(Difference::TraceLine {
            index,
            simulated: sim.lines.get(index).cloned(),
            real: real.lines.get(index).cloned(),
        });
    }
    let (sv, rv) = (
        serde_json::to_value(&sim.verdict).expect("verdicts serialize"),
        serde_json::to_value(&real.verdict).expect("verdicts serialize"),
    );
    let mut leaves = Vec::new();
    json_differences("verdict", &sv, &rv, &mut leaves);
    for (path, simulated, real) in leaves {
        out.push(Difference::Verdict {
            path,
            simulated,
            real,
        });
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
