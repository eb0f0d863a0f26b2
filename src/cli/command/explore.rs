//! `explore`: crash schedules to a depth, or interleavings of several consumers, checked
//! against the scenario's `expect`, with a replay command for every failing run.

use crate::cli::*;

/// The hard ceiling on `--max-schedules`.
pub(in crate::cli) const MAX_SCHEDULES_CEILING: u64 = explore::MAX_SCHEDULES;

pub(in crate::cli) fn explore_options(
    scenario: &Scenario,
    depth: usize,
    max_schedules: u64,
) -> Result<explore::ExploreOptions, CliError> {
    within("--depth", depth as u64, 1, explore::MAX_DEPTH as u64)?;
    within("--max-schedules", max_schedules, 1, MAX_SCHEDULES_CEILING)?;
    let explore::Estimate {
        schedules: estimate,
        steps,
        first_level_bytes,
    } = explore::estimate(scenario, depth);
    if estimate > u128::from(max_schedules) {
        return Err(CliError::usage(Budget::Schedules {
            scenario: scenario.name.clone(),
            events: scenario.workload.events,
            depth,
            estimate,
            limit: max_schedules,
            ceiling: MAX_SCHEDULES_CEILING,
        }));
    }
    if first_level_bytes > u128::from(explore::budget::KEPT_RUNS_BYTES) {
        return Err(CliError::usage(Budget::KeptRuns {
            scenario: scenario.name.clone(),
            events: scenario.workload.events,
            depth,
            mib: first_level_bytes >> 20,
            budget_mib: explore::budget::KEPT_RUNS_BYTES >> 20,
        }));
    }
    if steps > bounds::MAX_EXPLORE_STEPS {
        return Err(CliError::usage(Budget::ExploreSteps {
            scenario: scenario.name.clone(),
            depth,
            estimate,
            per_schedule: steps / estimate.max(1),
            steps,
            max: bounds::MAX_EXPLORE_STEPS,
        }));
    }
    Ok(explore::ExploreOptions {
        depth,
        max_schedules,
        ..explore::ExploreOptions::default()
    })
}

/// Explores `scenario` to `depth` and compares the summary with its `expect` (the entry
/// for that depth, else the top-level fields): the failed expectations, or `None` when it
/// states none. What `explore FILE --depth D` does, and the `explore dD` check of `run DIR`.
pub(in crate::cli) fn checked_exploration(
    scenario: &Scenario,
    depth: usize,
    max_schedules: u64,
    prune: bool,
) -> Result<(explore::Exploration, Option<Vec<ExpectationFailure>>), CliError> {
    let options = explore::ExploreOptions {
        prune,
        ..explore_options(scenario, depth, max_schedules)?
    };
    let x = explore::explore(scenario, options);
    let mut failures = scenario
        .expect
        .as_ref()
        .map(|e| explore::failed_expectations(e, &x.summary));
    if x.summary.liveness_failed_runs > 0 {
        failures
            .get_or_insert_with(Vec::new)
            .push(ExpectationFailure::LivenessRuns {
                unfinished: x.summary.liveness_failed_runs,
                runs: x.runs.len() as u64,
            });
    }
    if x.summary.memory_limited {
        failures
            .get_or_insert_with(Vec::new)
            .push(memory_failure(x.runs.len(), Explored::Crashes));
    }
    Ok((x, failures))
}

pub(in crate::cli) fn explore(
    args: &ExploreArgs,
    given: &Given,
) -> Result<(Printed, ExitCode), CliError> {
    if args.isolation_ladder {
        return isolation_ladder(args).map(|(t, c)| (t.into(), c));
    }
    let (mut scenario, origin) = load(&args.source)?;
    flags::check_scenario(given, &scenario)?;
    // The claim is stated for the preemption bound the interleavings use.
    let pinned = (scenario.expect.as_ref())
        .and_then(|e| e.interleavings.as_ref())
        .and_then(|e| e.max_preemptions);
    let bound = (args.max_preemptions.or(pinned)).unwrap_or(explore::DEFAULT_MAX_PREEMPTIONS);
    let claim = args.expect.map(GuaranteeArg::guarantee);
    flags::claim(&mut scenario, claim, args.interleavings.then_some(bound));
    if args.interleavings {
        return interleavings(args, &scenario, &origin).map(|(t, c)| (t.into(), c));
    }
    if args.smallest_safe_ttl {
        return smallest_safe_ttl(args, &scenario, &origin).map(|(t, c)| (t.into(), c));
    }
    interrupt::install();
    let (x, failures) =
        checked_exploration(&scenario, args.depth, args.max_schedules, !args.no_prune)?;
    // The counts of an interrupted exploration are a prefix's: not compared with `expect`.
    let failures = failures.filter(|_| !x.summary.interrupted);
    if let Some(path) = &args.html {
        let failed = failures.as_ref().map(Vec::len);
        explore_html(path, args, &scenario, &x, &origin, failed)?;
    }
    let held = held(&failures);
    let code = if x.summary.interrupted {
        interrupt::exit_code()
    } else {
        code(held)
    };
    if args.json {
        // Written run by run: an exploration may have hundreds of thousands.
        let expect = failures.map(json::ExpectJson::from_failures);
        let write = move |w: &mut dyn Write| {
            serde_json::to_writer_pretty(
                &mut *w,
                &json::Document::new(json::explore_json(&scenario, &x, &origin, expect)),
            )
            .map_err(std::io::Error::other)?;
            writeln!(w)
        };
        return Ok((Printed::Stream(Box::new(write)), code));
    }
    let out = text::explore_text(
        language(args.lang),
        &scenario,
        &x,
        &origin,
        failures.as_deref(),
    );
    Ok((out.into(), code))
}

/// Writes `explore --html`'s page of `x` to `path`, telling its runs again in this process,
/// leading with the verdict with `failed` expectations failed (`None`: the file states none).
fn explore_html(
    path: &Path,
    args: &ExploreArgs,
    scenario: &Scenario,
    x: &explore::Exploration,
    origin: &Origin,
    failed: Option<usize>,
) -> Result<(), CliError> {
    let lang = language(args.lang);
    let command = origin.explore_command(scenario.seed, args.depth);
    let tell = |s: &Scenario| view::run_and_watch(&world::InProcess, s);
    let page = html::explore_page(Some(&tell), scenario, x, origin, lang, &command, failed);
    write_html(path, &page, lang)
}

/// The hard ceiling on `--shrink-runs`.
pub(in crate::cli) const MAX_SHRINK_RUNS: u64 = 1_000_000;

pub(in crate::cli) fn explore_bound(flag: &str, value: u32, max: u32) -> Result<u32, CliError> {
    within(flag, value.into(), 0, max.into())?;
    Ok(value)
}

/// The most scheduling choices `--schedule` takes.
const MAX_SCHEDULE_CHOICES: usize = 100_000;

/// Parses `0,1,1` into scheduling choices.
pub(in crate::cli) fn parse_schedule(text: &str) -> Result<Vec<u32>, CliError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|c| {
            c.trim().parse::<u32>().map_err(|_| {
                CliError::usage(Usage::Unparsed {
                    flag: "--schedule".into(),
                    text: text.to_string(),
                    form: Form::Choices,
                })
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|v| {
            if v.len() > MAX_SCHEDULE_CHOICES {
                Err(CliError::usage(Budget::ScheduleChoices {
                    max: MAX_SCHEDULE_CHOICES,
                }))
            } else {
                Ok(v)
            }
        })
}

/// A replay command with `--schedule` when the schedule departs from the default.
pub(in crate::cli) fn replay_with_schedule(command: String, schedule: &[u32]) -> String {
    match schedule.iter().rposition(|&c| c != 0) {
        None => command,
        Some(last) => {
            let list: Vec<String> = schedule[..=last].iter().map(|c| c.to_string()).collect();
            format!("{command} --schedule {}", list.join(","))
        }
    }
}

/// Enumerates the interleavings of `scenario`'s consumers up to `max_preemptions` (else the
/// bound its `expect.interleavings` pins, else the default) and compares them with its
/// `expect.interleavings` (not with `with_crashes`: the pinned counts are for the
/// interleavings alone): the failed expectations, or `None` when it pins none. What
/// `explore FILE --interleavings` does, and the `interleavings` check of `run DIR`.
pub(in crate::cli) fn checked_interleavings(
    scenario: &Scenario,
    max_preemptions: Option<usize>,
    max_interleavings: u64,
    with_crashes: bool,
) -> Result<(explore::Interleavings, Option<Vec<ExpectationFailure>>), CliError> {
    if scenario.consumers < 2 {
        return Err(CliError::usage(Usage::FlagRefused {
            flag: "--interleavings".into(),
            why: FlagWhy::OneOrder {
                scenario: scenario.name.clone(),
            },
        }));
    }
    let expect = scenario
        .expect
        .as_ref()
        .and_then(|e| e.interleavings.as_ref());
    let max_preemptions = max_preemptions
        .or(expect.and_then(|e| e.max_preemptions))
        .unwrap_or(explore::DEFAULT_MAX_PREEMPTIONS);
    let preemptions_max = bounds::MAX_PREEMPTIONS as u64;
    within(
        "--max-preemptions",
        max_preemptions as u64,
        0,
        preemptions_max,
    )?;
    within(
        "--max-interleavings",
        max_interleavings,
        1,
        MAX_SCHEDULES_CEILING,
    )?;
    interleavings_fit(scenario, max_preemptions, max_interleavings, with_crashes)?;
    let x = explore::interleavings(scenario, max_preemptions, max_interleavings, with_crashes);
    // The expected counts are for the interleavings alone.
    let mut failures = expect
        .filter(|_| !with_crashes)
        .map(|e| explore::failed_interleaving_expectations(e, &x));
    if x.liveness_failed_runs > 0 {
        failures
            .get_or_insert_with(Vec::new)
            .push(ExpectationFailure::LivenessRuns {
                unfinished: x.liveness_failed_runs,
                runs: x.runs.len() as u64,
            });
    }
    if x.memory_limited {
        failures
            .get_or_insert_with(Vec::new)
            .push(memory_failure(x.runs.len(), Explored::Interleavings));
    }
    Ok((x, failures))
}

/// Refuses interleavings whose runs are estimated over `max_interleavings` (with crashes),
/// or whose kept schedules are over the memory budget.
fn interleavings_fit(
    scenario: &Scenario,
    max_preemptions: usize,
    max_interleavings: u64,
    with_crashes: bool,
) -> Result<(), CliError> {
    let (estimate, choices) =
        explore::estimate_interleavings(scenario, max_preemptions, with_crashes);
    if with_crashes && estimate > u128::from(max_interleavings) {
        return Err(CliError::usage(Budget::CrashedInterleavings {
            scenario: scenario.name.clone(),
            estimate,
            max_preemptions,
            limit: max_interleavings,
            ceiling: MAX_SCHEDULES_CEILING,
        }));
    }
    // The runs kept (at most --max-interleavings) each keep their schedule.
    let kept = estimate.min(u128::from(max_interleavings)) * choices;
    if kept > explore::MAX_INTERLEAVING_CHOICES {
        return Err(CliError::usage(Budget::InterleavingChoices {
            scenario: scenario.name.clone(),
            decisions: choices - 1,
            interleavings: estimate.min(u128::from(max_interleavings)),
            kept,
            max: explore::MAX_INTERLEAVING_CHOICES,
        }));
    }
    Ok(())
}

/// The failure of an exploration the memory budget for kept runs stopped after `runs`
/// runs.
pub(in crate::cli) fn memory_failure(runs: usize, exploration: Explored) -> ExpectationFailure {
    ExpectationFailure::Memory {
        runs: runs as u64,
        budget_mib: explore::budget::KEPT_RUNS_BYTES >> 20,
        exploration,
    }
}

pub(in crate::cli) fn interleavings(
    args: &ExploreArgs,
    scenario: &Scenario,
    origin: &Origin,
) -> Result<(String, ExitCode), CliError> {
    let (x, failures) = checked_interleavings(
        scenario,
        args.max_preemptions,
        args.max_interleavings,
        args.with_crashes,
    )?;
    let replays: Vec<String> = x
        .runs
        .iter()
        .map(|r| {
            let crash: Vec<BoundaryPoint> = r.crash.into_iter().collect();
            replay_with_schedule(origin.replay_command(scenario.seed, &crash), &r.schedule)
        })
        .collect();
    let held = held(&failures);
    let out = if args.json {
        to_json(&json::interleavings_json(scenario, &x, &replays, failures))
    } else {
        text::interleavings_text(
            language(args.lang),
            scenario,
            &x,
            &replays,
            failures.as_deref(),
        )
    };
    Ok((out, code(held)))
}
