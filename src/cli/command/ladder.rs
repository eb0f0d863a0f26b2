//! `explore --isolation-ladder`: the file read and its interleavings run once per engine
//! and isolation level (see [`crate::explore::ladder`]).

use crate::cli::*;
use crate::explore::ladder::{Ladder, Rung, RungOutcome};

pub(in crate::cli) fn isolation_ladder(args: &ExploreArgs) -> Result<(String, ExitCode), CliError> {
    let mut rungs = Vec::new();
    let mut name = String::new();
    let mut bound = explore::DEFAULT_MAX_PREEMPTIONS;
    // The file's own engine and level: its expectations are about them.
    let (own, _) = load(&args.source)?;
    let home = (
        own.store.engine,
        (own.store.engine == crate::model::Engine::Postgres).then_some(own.store.isolation),
    );
    let mut verdict = None;
    let mut failures: Option<Vec<ExpectationFailure>> = None;
    for (engine, isolation) in Ladder::engines() {
        crate::scenario::override_engine(Some(engine), isolation);
        let outcome = match load(&args.source) {
            Err(CliError::Scenario(e)) => RungOutcome::NotRun {
                reason: crate::report::lang::input::scenario_error(&e, language(args.lang)),
            },
            Err(e) => return Err(e),
            Ok((scenario, origin)) => {
                name.clone_from(&scenario.name);
                let (x, failed) = checked_interleavings(
                    &scenario,
                    args.max_preemptions,
                    args.max_interleavings,
                    args.with_crashes,
                )?;
                bound = x.max_preemptions;
                // Another rung's expectations were dropped when it loaded (the file's are
                // about its own engine); its liveness and memory failures remain.
                if let Some(f) = &failed {
                    failures
                        .get_or_insert_with(Vec::new)
                        .extend(f.iter().cloned());
                }
                if (engine, isolation) == home {
                    verdict = Some(x.judgement(failed.as_ref().map(Vec::len)));
                }
                explored(&x, &scenario, &origin)
            }
        };
        rungs.push(Rung {
            engine,
            isolation,
            home: (engine, isolation) == home,
            outcome,
        });
    }
    crate::scenario::override_engine(None, None);
    let verdict = verdict.expect("the file loads on its own engine, so its rung ran");
    let held = held(&failures);
    let ladder = Ladder {
        verdict,
        max_preemptions: bound,
        with_crashes: args.with_crashes,
        rungs,
    };
    let out = if args.json {
        to_json(&json::LadderJson::new(&name, &ladder, failures))
    } else {
        text::ladder_text(language(args.lang), &name, &ladder, failures.as_deref())
    };
    // Exit 1 when the file's expectations for its own rung failed, or a rung's runs could
    // not finish (liveness, memory), as in every exploration.
    Ok((out, code(held)))
}

/// A rung whose interleavings ran: its guarantee and counts, and the command replaying the
/// first run that broke a property, if one did.
fn explored(x: &explore::Interleavings, scenario: &Scenario, origin: &Origin) -> RungOutcome {
    let first_breaking = x
        .runs
        .iter()
        .find(|r| !r.result.failure().is_empty())
        .map(|r| {
            let crash: Vec<BoundaryPoint> = r.crash.into_iter().collect();
            replay_with_schedule(origin.replay_command(scenario.seed, &crash), &r.schedule)
        });
    RungOutcome::Explored {
        guarantee: x.guarantee,
        runs: x.runs.len() as u64,
        breaking_runs: x.breaking_runs,
        complete: x.complete,
        first_breaking,
    }
}
