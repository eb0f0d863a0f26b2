//! A failed expectation, worded: what `expect` asked, and what the run or the exploration
//! showed. The checker gives data ([`ExpectationFailure`]); these are its only sentences.

use super::*;
use crate::check::{Counted, Coverage, ExpectationFailure as F, Explored, LivenessFailure};

impl Lang {
    /// One failed expectation, as the text reports list it under "expect: FAILED".
    pub fn expectation_failure(self, f: &F) -> String {
        match self {
            Lang::En => expectation_en(f),
            Lang::Es => expectation_es(f),
        }
    }

    /// What a failed count was about, as a noun phrase with its count.
    fn counted_events(self, c: Counted, n: u64) -> String {
        let (en, es_one, es_many) = match c {
            Counted::Lost => ("lost event(s)", "evento perdido", "eventos perdidos"),
            Counted::Duplicated => (
                "duplicated event(s)",
                "evento duplicado",
                "eventos duplicados",
            ),
            Counted::Rejected => (
                "rejected event(s)",
                "evento rechazado",
                "eventos rechazados",
            ),
            Counted::Pending => ("pending event(s)", "evento pendiente", "eventos pendientes"),
            Counted::PayloadAlerts => (
                "payload alert(s)",
                "alerta de payload",
                "alertas de payload",
            ),
        };
        match self {
            Lang::En => format!("{n} {en}"),
            Lang::Es => pl(n, es_one, es_many),
        }
    }
}

/// What the memory budget's message tells the reader to lower.
fn lower_en(e: Explored) -> &'static str {
    match e {
        Explored::Crashes => "--depth or the number of events",
        Explored::Interleavings => "--max-preemptions, --max-interleavings or the number of events",
    }
}

fn expectation_en(f: &F) -> String {
    let l = Lang::En;
    match f {
        F::Guarantee { over, want, got } => {
            let over = match over {
                Coverage::Interleavings { complete: true, .. } => " over all interleavings".into(),
                Coverage::Interleavings { runs, .. } => {
                    format!(" over the {runs} interleavings explored")
                }
                Coverage::Run => String::new(),
                _ => " over all runs".into(),
            };
            format!("expected guarantee {want}{over}, observed {got}")
        }
        F::BoundaryGuarantee { want, observed } => format!(
            "expected {}: {want}, observed {}",
            observed.boundary.name(),
            l.describe_scope(observed)
        ),
        F::BoundaryGuaranteeOverRuns { scope, want, got } => {
            format!(
                "expected {}: {want} over all runs, observed {got}",
                scope.name()
            )
        }
        F::Events { counted, want, got } => {
            let want = l.counted_events(*counted, *want);
            format!("expected {want}, observed {got}")
        }
        F::Field { field, want, got } => format!("expected {field} = {want}, observed {got}"),
        F::MissingBoundary {
            scope,
            present: Some(present),
        } => format!(
            "expected a verdict for boundary {}, but this run has none (it has {})",
            scope.key(),
            present
                .iter()
                .map(|s| s.key())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        F::MissingBoundary { scope, .. } => format!(
            "expected boundary {} in the exploration, but its runs have none",
            scope.key()
        ),
        F::NoRunWith { counted, runs } => format!(
            "expected no run with a {} event, observed {runs} run(s)",
            counted_adjective_en(*counted)
        ),
        F::SomeRunWith { counted } => format!(
            "expected some run with a {} event, observed none",
            counted_adjective_en(*counted)
        ),
        F::EveryRunAcked { runs } => {
            format!("expected every run to ack every event, {runs} run(s) did not")
        }
        F::EveryRunConserved { runs } => {
            format!("expected balances conserved in every run, {runs} run(s) broke them")
        }
        F::TtlUnverified => "the boundary was not verified (no safe TTL within the bounds)".into(),
        F::Liveness(why) => liveness_en(why),
        F::LivenessRuns { unfinished, runs } => format!(
            "liveness: {unfinished} of {runs} runs could not finish (an event stuck, or a limit \
             stopped the healing phase); they are listed first among the failing runs, each with \
             the command that replays it"
        ),
        F::Memory {
            runs,
            budget_mib,
            exploration,
        } => format!(
            "limit: the exploration stopped after {runs} runs, at the {budget_mib} MiB its kept \
             runs may take (every command stays within 1 GiB): what it says covers those runs \
             only; lower {}",
            lower_en(*exploration)
        ),
    }
}

fn counted_adjective_en(c: Counted) -> &'static str {
    match c {
        Counted::Lost => "lost",
        Counted::Duplicated => "duplicated",
        Counted::Rejected => "rejected",
        Counted::Pending => "pending",
        Counted::PayloadAlerts => "altered",
    }
}

fn liveness_en(f: &LivenessFailure) -> String {
    let phase = if f.healing_phase {
        " of the healing phase"
    } else {
        ""
    };
    let limit = f.limit.unwrap_or_default();
    let why = match f.stop {
        StopReason::Quiescent => "the run ended with nothing left to run".to_string(),
        StopReason::StepLimit => format!(
            "the step limit{phase} (limits.max_steps = {limit}) stopped the run before it ended \
             by itself"
        ),
        StopReason::TickLimit => format!(
            "the tick limit{phase} (limits.max_ticks = {limit}) stopped the run before it ended \
             by itself"
        ),
        StopReason::TraceLimit => format!(
            "the trace limit ({limit} entries, scenario::bounds::MAX_TRACE_ENTRIES) stopped the \
             run before it ended by itself"
        ),
        StopReason::SqlLimit => format!(
            "the SQL limit ({limit} SQLite virtual-machine steps over the run, \
             scenario::bounds::MAX_RUN_SQL_VM_STEPS) stopped the run before it ended by itself"
        ),
    };
    let which = match stuck_list(Lang::En, f) {
        None => "every event was resolved, but work was still scheduled".to_string(),
        Some(list) => format!(
            "{} event(s) unresolved, still held by the broker: {list}",
            f.stuck_count
        ),
    };
    format!("liveness: {why}; {which}")
}

/// `e1, e2`, or `e1, …, e20, and 5 more`; `None` when no event is unresolved.
fn stuck_list(l: Lang, f: &LivenessFailure) -> Option<String> {
    if f.stuck_count == 0 {
        return None;
    }
    let named: Vec<String> = f.stuck.iter().map(|e| format!("e{e}")).collect();
    let more = f.stuck_count - named.len() as u64;
    Some(match (l, more) {
        (_, 0) => named.join(", "),
        (Lang::En, more) => format!("{}, and {more} more", named.join(", ")),
        (Lang::Es, more) => format!("{} y {more} más", named.join(", ")),
    })
}

fn expectation_es(f: &F) -> String {
    let l = Lang::Es;
    let runs = |n: &u64| pl(*n, "corrida", "corridas");
    match f {
        F::Guarantee { over, want, got } => {
            format!(
                "se esperaba la garantía {want}{}, se observó {got}",
                over_es(*over)
            )
        }
        F::BoundaryGuarantee { want, observed } => format!(
            "se esperaba {}: {want}, se observó {}",
            l.scope(observed.boundary),
            l.describe_scope(observed)
        ),
        F::BoundaryGuaranteeOverRuns { scope, want, got } => format!(
            "se esperaba {}: {want} sobre todas las corridas, se observó {got}",
            l.scope(*scope)
        ),
        F::Events { counted, want, got } => format!(
            "{} {}, se observó {got}",
            if *want == 1 {
                "se esperaba"
            } else {
                "se esperaban"
            },
            l.counted_events(*counted, *want)
        ),
        F::Field { field, want, got } => format!("se esperaba {field} = {want}, se observó {got}"),
        F::MissingBoundary { scope, present } => missing_boundary_es(*scope, present.as_deref()),
        F::NoRunWith { counted, runs: n } => format!(
            "se esperaba que ninguna corrida tuviera un evento {}, se observaron {}",
            counted_adjective_es(*counted),
            runs(n)
        ),
        F::SomeRunWith { counted } => format!(
            "se esperaba alguna corrida con un evento {}, no se observó ninguna",
            counted_adjective_es(*counted)
        ),
        F::EveryRunAcked { runs: n } => {
            format!(
                "se esperaba que cada corrida hiciera ack de cada evento; {} no",
                runs(n)
            )
        }
        F::EveryRunConserved { runs: n } => format!(
            "se esperaban saldos conservados en cada corrida; {} no los conservaron",
            runs(n)
        ),
        F::TtlUnverified => {
            "la frontera no quedó verificada (ningún TTL seguro dentro de los límites)".into()
        }
        F::Liveness(why) => liveness_es(why),
        F::LivenessRuns { unfinished, runs } => format!(
            "vivacidad: {unfinished} de {runs} corridas no pudieron terminar (un evento \
             atascado, o un límite detuvo la fase de recuperación); se listan primero entre las \
             corridas que fallan, cada una con el comando que la repite"
        ),
        F::Memory {
            runs,
            budget_mib,
            exploration,
        } => memory_es(*runs, *budget_mib, *exploration),
    }
}

/// ` sobre todas las corridas`, ` sobre los 12 entrelazados explorados`, or nothing for
/// one run.
fn over_es(over: Coverage) -> String {
    match over {
        Coverage::Interleavings { complete: true, .. } => " sobre todos los entrelazados".into(),
        Coverage::Interleavings { runs, .. } => {
            format!(" sobre los {runs} entrelazados explorados")
        }
        Coverage::Run => String::new(),
        _ => " sobre todas las corridas".into(),
    }
}

fn missing_boundary_es(
    scope: crate::model::Scope,
    present: Option<&[crate::model::Scope]>,
) -> String {
    match present {
        Some(present) => format!(
            "se esperaba un veredicto para la frontera {}, pero esta corrida no la tiene (tiene {})",
            scope.key(),
            present.iter().map(|s| s.key()).collect::<Vec<_>>().join(", ")
        ),
        None => format!(
            "se esperaba la frontera {} en la exploración, pero sus corridas no la tienen",
            scope.key()
        ),
    }
}

fn memory_es(runs: u64, budget_mib: u64, exploration: Explored) -> String {
    format!(
        "límite: la exploración se detuvo tras {runs} corridas, en los {budget_mib} MiB que \
         pueden ocupar sus corridas guardadas (cada comando se queda dentro de 1 GiB): lo que \
         dice cubre solo esas corridas; bajá {}",
        match exploration {
            Explored::Crashes => "--depth o el número de eventos",
            Explored::Interleavings => {
                "--max-preemptions, --max-interleavings o el número de eventos"
            }
        }
    )
}

fn counted_adjective_es(c: Counted) -> &'static str {
    match c {
        Counted::Lost => "perdido",
        Counted::Duplicated => "duplicado",
        Counted::Rejected => "rechazado",
        Counted::Pending => "pendiente",
        Counted::PayloadAlerts => "alterado",
    }
}

fn liveness_es(f: &LivenessFailure) -> String {
    let phase = if f.healing_phase {
        " de la fase de recuperación"
    } else {
        ""
    };
    let limit = f.limit.unwrap_or_default();
    let why = match f.stop {
        StopReason::Quiescent => "la corrida terminó sin nada más para ejecutar".to_string(),
        StopReason::StepLimit => format!(
            "el límite de pasos{phase} (limits.max_steps = {limit}) detuvo la corrida antes de \
             que terminara sola"
        ),
        StopReason::TickLimit => format!(
            "el límite de ticks{phase} (limits.max_ticks = {limit}) detuvo la corrida antes de \
             que terminara sola"
        ),
        StopReason::TraceLimit => format!(
            "el límite de traza ({limit} entradas, scenario::bounds::MAX_TRACE_ENTRIES) detuvo \
             la corrida antes de que terminara sola"
        ),
        StopReason::SqlLimit => format!(
            "el límite de SQL ({limit} pasos de la máquina virtual de SQLite en la corrida, \
             scenario::bounds::MAX_RUN_SQL_VM_STEPS) detuvo la corrida antes de que terminara \
             sola"
        ),
    };
    let which = match stuck_list(Lang::Es, f) {
        None => "todos los eventos quedaron resueltos, pero aún había trabajo programado".into(),
        Some(list) => format!(
            "{} sin resolver, todavía en el broker: {list}",
            pl(f.stuck_count, "evento", "eventos")
        ),
    };
    format!("vivacidad: {why}; {which}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{ScopeVerdict, Value};
    use crate::model::{Guarantee, Scope};
    use crate::sim::StopReason;

    fn en(f: F) -> String {
        Lang::En.expectation_failure(&f)
    }

    fn count(counted: Counted, want: u64, got: u64) -> F {
        F::Events { counted, want, got }
    }

    fn field(name: &str, want: impl Into<Value>, got: impl Into<Value>) -> F {
        F::Field {
            field: name.into(),
            want: want.into(),
            got: got.into(),
        }
    }

    /// The sentences `run` prints under "expect: FAILED", one per kind of failure the
    /// checker gives (its own tests pin which failures a verdict gives).
    #[test]
    fn each_failed_expectation_of_a_run_is_one_english_line() {
        let guarantee = |want, got| F::Guarantee {
            over: Coverage::Run,
            want,
            got,
        };
        let cases = [
            (
                guarantee(Guarantee::ExactlyOnce, Guarantee::AtMostOnce),
                "expected guarantee exactly-once, observed at-most-once",
            ),
            (
                guarantee(Guarantee::ExactlyOnce, Guarantee::None),
                "expected guarantee exactly-once, observed none",
            ),
            (
                count(Counted::Lost, 0, 1),
                "expected 0 lost event(s), observed 1",
            ),
            (
                count(Counted::Duplicated, 2, 1),
                "expected 2 duplicated event(s), observed 1",
            ),
            (
                count(Counted::Rejected, 1, 0),
                "expected 1 rejected event(s), observed 0",
            ),
            (
                count(Counted::Pending, 3, 0),
                "expected 3 pending event(s), observed 0",
            ),
            (
                count(Counted::PayloadAlerts, 1, 0),
                "expected 1 payload alert(s), observed 0",
            ),
            (
                field("all_acked", false, true),
                "expected all_acked = false, observed true",
            ),
            (
                field("ledger_per_event.ghost", 2u64, 0u64),
                "expected ledger_per_event.ghost = 2, observed 0",
            ),
            (
                F::MissingBoundary {
                    scope: Scope::Email,
                    present: Some(vec![Scope::LedgerPerEvent]),
                },
                "expected a verdict for boundary email, but this run has none (it has \
                 ledger_per_event)",
            ),
        ];
        for (failure, sentence) in cases {
            assert_eq!(en(failure), sentence);
        }
        let observed = ScopeVerdict {
            boundary: Scope::LedgerPerEvent,
            effect: None,
            guarantee: Guarantee::AtMostOnce,
            once: 1,
            lost: 1,
            duplicated: 0,
            ghost: 0,
            stuck: 0,
            wrong_effect: 0,
        };
        assert_eq!(
            en(F::BoundaryGuarantee {
                want: Guarantee::ExactlyOnce,
                observed
            }),
            "expected ledger per event: exactly-once, observed ledger per event: \
             at-most-once (1 once, 1 lost)"
        );
    }

    /// A run that could not finish: the limit, and the events still held, twenty named.
    #[test]
    fn a_liveness_failure_names_its_limit_and_the_events_still_held() {
        let held = |stop, limit, stuck: Vec<usize>, stuck_count| {
            en(F::Liveness(LivenessFailure {
                stop,
                healing_phase: false,
                limit,
                stuck,
                stuck_count,
            }))
        };
        assert_eq!(
            held(StopReason::StepLimit, Some(12), vec![1, 3], 2),
            "liveness: the step limit (limits.max_steps = 12) stopped the run before it ended \
             by itself; 2 event(s) unresolved, still held by the broker: e1, e3"
        );
        assert_eq!(
            held(StopReason::TickLimit, Some(500), vec![1, 3], 2),
            "liveness: the tick limit (limits.max_ticks = 500) stopped the run before it ended \
             by itself; 2 event(s) unresolved, still held by the broker: e1, e3"
        );
        assert!(held(StopReason::TraceLimit, Some(2_000_000), vec![1], 1)
            .starts_with("liveness: the trace limit (2000000 entries"));
        assert!(held(StopReason::TickLimit, Some(500), vec![], 0)
            .ends_with("every event was resolved, but work was still scheduled"));
        let named: Vec<usize> = (0..LivenessFailure::NAMED).collect();
        let list: Vec<String> = named.iter().map(|i| format!("e{i}")).collect();
        assert!(
            held(StopReason::StepLimit, Some(12), named.clone(), 25).ends_with(&format!(
                "25 event(s) unresolved, still held by the broker: {}, and 5 more",
                list.join(", ")
            ))
        );
        assert!(
            held(StopReason::StepLimit, Some(12), named, 20).ends_with(&format!(
                "20 event(s) unresolved, still held by the broker: {}",
                list.join(", ")
            ))
        );
    }
}
