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
