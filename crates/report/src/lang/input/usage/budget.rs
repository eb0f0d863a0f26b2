//! The words of a command that would go over the tool's bounds ([`Budget`]): what it would
//! take, the bound, and which flag or field lowers it.

use super::Lang;
use crate::input::Budget;

pub(super) fn words(b: &Budget, lang: Lang) -> String {
    match b {
        Budget::Schedules {
            scenario,
            events,
            depth,
            estimate,
            limit,
            ceiling,
        } => schedules(
            scenario,
            (*events, *depth, *estimate),
            (*limit, *ceiling),
            lang,
        ),
        Budget::KeptRuns {
            scenario,
            events,
            depth,
            mib,
            budget_mib,
        } => kept_runs(scenario, (*events, *depth), (*mib, *budget_mib), lang),
        Budget::ExploreSteps {
            scenario,
            depth,
            estimate,
            per_schedule,
            steps,
            max,
        } => explore_steps(
            scenario,
            *depth,
            (*estimate, *per_schedule, *steps, *max),
            lang,
        ),
        Budget::CrashedInterleavings {
            scenario,
            estimate,
            max_preemptions,
            limit,
            ceiling,
        } => crashed(
            scenario,
            (*estimate, *max_preemptions),
            (*limit, *ceiling),
            lang,
        ),
        Budget::InterleavingChoices {
            scenario,
            decisions,
            interleavings,
            kept,
            max,
        } => choices(scenario, (*decisions, *interleavings, *kept, *max), lang),
        Budget::TtlSearchSteps {
            scenario,
            depth,
            candidates,
            steps,
            max,
        } => ttl_search(scenario, *depth, (*candidates, *steps, *max), lang),
        Budget::CrosscheckSteps {
            name,
            runs,
            steps,
            estimate,
            max,
        } => crosscheck(name, (*runs, *steps, *estimate, *max), lang),
        Budget::Seeds { seeds, max } => self::seeds(*seeds, *max, lang),
        Budget::ScheduleChoices { max } => match lang {
            Lang::En => format!("--schedule: at most {max} choices"),
            Lang::Es => format!("--schedule: a lo sumo {max} elecciones"),
        },
    }
}

/// `--seeds` over `max` seeds.
fn seeds(seeds: u64, max: u64, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "--seeds: {seeds} seeds (one run each) is over the limit of {max}; split the range"
        ),
        Lang::Es => format!(
            "--seeds: {seeds} semillas (una corrida cada una) pasan el límite de {max}; partí \
             el rango"
        ),
    }
}

/// An exploration of `scenario` that may need `estimate` schedules, over `limit`.
fn schedules(
    scenario: &str,
    (events, depth, estimate): (usize, usize, u128),
    (limit, ceiling): (u64, u64),
    lang: Lang,
) -> String {
    match lang {
        Lang::En => format!(
            "exploring `{scenario}` ({events} events) to depth {depth} may need up to {estimate} \
             schedules, over the limit of {limit}; lower --depth or the number of events{}",
            if limit < ceiling {
                format!(", or raise --max-schedules (at most {ceiling})")
            } else {
                String::new()
            }
        ),
        Lang::Es => format!(
            "explorar `{scenario}` ({events} eventos) hasta profundidad {depth} puede necesitar \
             hasta {estimate} planes, más que el límite de {limit}; bajá --depth o el número de \
             eventos{}",
            if limit < ceiling {
                format!(", o subí --max-schedules (a lo sumo {ceiling})")
            } else {
                String::new()
            }
        ),
    }
}

/// An exploration whose first level's runs would take `mib` MiB, over `budget_mib`.
fn kept_runs(
    scenario: &str,
    (events, depth): (usize, usize),
    (mib, budget_mib): (u128, u64),
    lang: Lang,
) -> String {
    match lang {
        Lang::En => format!(
            "exploring `{scenario}` ({events} events) needs at least one run per crash point of \
             the crash-free run, whose runs would take about {mib} MiB to keep, over the \
             {budget_mib} MiB an exploration may keep (every command stays within 1 GiB); lower \
             the number of events{}",
            if depth > 1 { " or --depth" } else { "" }
        ),
        Lang::Es => format!(
            "explorar `{scenario}` ({events} eventos) necesita al menos una corrida por cada \
             punto de caída de la corrida sin caídas, y guardar esas corridas ocuparía unos \
             {mib} MiB, más que los {budget_mib} MiB que puede guardar una exploración (todo \
             comando se mantiene dentro de 1 GiB); bajá el número de eventos{}",
            if depth > 1 { " o --depth" } else { "" }
        ),
    }
}

/// An exploration that may take `steps` steps, over `max`.
fn explore_steps(
    scenario: &str,
    depth: usize,
    (estimate, per_schedule, steps, max): (u128, u128, u128, u128),
    lang: Lang,
) -> String {
    match lang {
        Lang::En => format!(
            "exploring `{scenario}` to depth {depth} may need up to {estimate} schedules of \
             about {per_schedule} steps each, {steps} steps in all, over the {max} one \
             exploration may take (runs that long usually livelock to their step limit: see \
             `run`); lower --depth, the number of events or limits.max_steps"
        ),
        Lang::Es => format!(
            "explorar `{scenario}` hasta profundidad {depth} puede necesitar hasta {estimate} \
             planes de unos {per_schedule} pasos cada uno, {steps} pasos en total, más que los \
             {max} que puede llevar una exploración (las corridas tan largas suelen quedar en \
             un livelock hasta su límite de pasos: mirá `run`); bajá --depth, el número de \
             eventos o limits.max_steps"
        ),
    }
}

/// `--interleavings --with-crashes` that may need `estimate` runs, over `limit`.
fn crashed(
    scenario: &str,
    (estimate, max_preemptions): (u128, usize),
    (limit, ceiling): (u64, u64),
    lang: Lang,
) -> String {
    match lang {
        Lang::En => format!(
            "--interleavings --with-crashes on `{scenario}` may need up to {estimate} runs \
             (every interleaving within {max_preemptions} preemption(s), once per crash point), \
             over the limit of {limit}; lower --max-preemptions or the number of events, or \
             raise --max-interleavings (at most {ceiling})"
        ),
        Lang::Es => format!(
            "--interleavings --with-crashes sobre `{scenario}` puede necesitar hasta {estimate} \
             corridas (cada intercalación que se aparta del round-robin a lo sumo \
             {max_preemptions} {}, una vez por cada punto de caída), más que el límite de \
             {limit}; bajá --max-preemptions o el número de eventos, o subí \
             --max-interleavings (a lo sumo {ceiling})",
            if max_preemptions == 1 { "vez" } else { "veces" }
        ),
    }
}

/// `--interleavings` that would keep `kept` scheduling choices, over `max`.
fn choices(
    scenario: &str,
    (decisions, interleavings, kept, max): (u128, u128, u128, u128),
    lang: Lang,
) -> String {
    match lang {
        Lang::En => format!(
            "--interleavings on `{scenario}`: its default run makes {decisions} scheduling \
             decisions (a run that long is usually a livelock: see `run`), and up to \
             {interleavings} interleavings of it would keep {kept} choices, over the {max} this \
             command keeps within its memory budget; lower --max-preemptions, \
             --max-interleavings, limits.max_steps or the number of events"
        ),
        Lang::Es => format!(
            "--interleavings sobre `{scenario}`: su corrida por defecto toma {decisions} \
             decisiones de planificación (una corrida tan larga suele ser un livelock: mirá \
             `run`), y hasta {interleavings} intercalaciones suyas guardarían {kept} elecciones, \
             más que las {max} que este comando guarda dentro de su presupuesto de memoria; \
             bajá --max-preemptions, --max-interleavings, limits.max_steps o el número de \
             eventos"
        ),
    }
}

/// `--smallest-safe-ttl` that would take `steps` consumer steps, over `max`.
fn ttl_search(
    scenario: &str,
    depth: usize,
    (candidates, steps, max): (u128, u128, u128),
    lang: Lang,
) -> String {
    match lang {
        Lang::En => format!(
            "--smallest-safe-ttl on `{scenario}` explores each TTL it tries to depth {depth}, up \
             to {candidates} of them, about {steps} consumer steps in all, over the {max} one \
             command may take; lower --depth or the number of events"
        ),
        Lang::Es => format!(
            "--smallest-safe-ttl sobre `{scenario}` explora hasta profundidad {depth} cada TTL \
             que prueba, hasta {candidates} de ellos, unos {steps} pasos del consumidor en \
             total, más que los {max} que puede llevar un comando; bajá --depth o el número de \
             eventos"
        ),
    }
}

/// `crosscheck` on `name` that would take `estimate` steps in real processes, over `max`.
fn crosscheck(
    name: &str,
    (runs, steps, estimate, max): (u128, u64, u128, u128),
    lang: Lang,
) -> String {
    match lang {
        Lang::En => format!(
            "{name}: cross-checking {runs} points of about {steps} consumer steps each is about \
             {estimate} steps in real processes on a synced file, over the {max} one crosscheck \
             may take (some ten minutes); lower the number of events"
        ),
        Lang::Es => format!(
            "{name}: contrastar {runs} puntos de unos {steps} pasos del consumidor cada uno son \
             unos {estimate} pasos en procesos reales sobre un archivo sincronizado, más que los \
             {max} que puede llevar un crosscheck (unos diez minutos); bajá el número de eventos"
        ),
    }
}
