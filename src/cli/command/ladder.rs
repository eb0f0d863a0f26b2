//! `explore --isolation-ladder`: the file read and its interleavings run once per engine
//! and isolation level (see [`crate::explore::ladder`]).

use crate::cli::*;
use crate::explore::ladder::{Ladder, Rung, RungOutcome};

pub(in crate::cli) fn isolation_ladder(args: &ExploreArgs) -> Result<(String, ExitCode), CliError> {
    let mut rungs = Vec::new();
    let mut name = String::new();
    let mut bound = explore::DEFAULT_MAX_PREEMPTIONS;
    for (engine, isolation) in Ladder::engines() {
        crate::scenario::override_engine(Some(engine), isolation);
        let outcome = match load(&args.source) {
            Err(CliError::Scenario(e)) => RungOutcome::NotRun {
                reason: e.to_string(),
            },
            Err(e) => return Err(e),
            Ok((scenario, origin)) => {
                name.clone_from(&scenario.name);
                let (x, _) = checked_interleavings(
                    &scenario,
                    args.max_preemptions,
                    args.max_interleavings,
                    args.with_crashes,
                )?;
                bound = x.max_preemptions;
                let first_breaking =
                    x.runs
                        .iter()
                        .find(|r| !r.result.failure().is_empty())
                        .map(|r| {
                            let crash: Vec<BoundaryPoint> = r.crash.into_iter().collect();
                            replay_with_schedule(
                                origin.replay_command(scenario.seed, &crash),
                                &r.schedule,
                            )
                        });
                RungOutcome::Explored {
                    guarantee: x.guarantee,
                    runs: x.runs.len() as u64,
                    breaking_runs: x.breaking_runs,
                    complete: x.complete,
                    first_breaking,
                }
            }
        };
        rungs.push(Rung {
            engine,
            isolation,
            outcome,
        });
    }
    crate::scenario::override_engine(None, None);
    let ladder = Ladder {
        max_preemptions: bound,
        with_crashes: args.with_crashes,
        rungs,
    };
    let out = if args.json {
        to_json(&json::LadderJson::new(&name, &ladder))
    } else {
        text::ladder_text(language(args.lang), &name, &ladder)
    };
    // The ladder compares; it states no expectation. A rung whose runs could not finish is
    // a liveness failure, as in every exploration.
    Ok((out, ExitCode::SUCCESS))
}
