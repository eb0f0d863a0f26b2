//! `--smallest-safe-ttl` and `--inbox-ttl`: the retention TTL search and override.

use crate::cli::*;

/// `command` with `--inbox-ttl-ticks T` when a TTL overrides the scenario's.
/// `--inbox-ttl-ticks`: the scenario with that inbox TTL, retention enabled if needed.
pub(in crate::cli) fn ttl_override(
    scenario: &mut Scenario,
    ttl: Option<u64>,
) -> Result<(), CliError> {
    if let Some(ttl) = ttl {
        within("--inbox-ttl-ticks", ttl, 0, bounds::MAX_DELAY_TICKS)?;
        *scenario = explore::retention::with_ttl(scenario, ttl);
    }
    Ok(())
}

pub(in crate::cli) fn with_ttl_flag(command: String, ttl: Option<u64>) -> String {
    match ttl {
        Some(ttl) => format!("{command} --inbox-ttl-ticks {ttl}"),
        None => command,
    }
}

/// Searches `scenario`'s smallest safe inbox TTL, each candidate verified to crash depth
/// `depth` (0: its own run only), and compares the result with its
/// `expect.smallest_safe_ttl`: the failed expectations, or `None` when it pins none. What
/// `explore FILE --smallest-safe-ttl` does, and the `smallest safe TTL` check of `run DIR`.
pub(in crate::cli) fn checked_ttl_search(
    scenario: &Scenario,
    depth: usize,
    max_schedules: u64,
) -> Result<
    (
        explore::retention::TtlSearch,
        Option<Vec<ExpectationFailure>>,
    ),
    CliError,
> {
    if scenario.store.retention.is_none() {
        return Err(CliError::usage(Usage::FlagRefused {
            flag: "--smallest-safe-ttl".into(),
            why: FlagWhy::NoRetention {
                scenario: scenario.name.clone(),
            },
        }));
    }
    // Depth 0 verifies each TTL by the scenario's own run only; deeper, like `explore`, and
    // the search may explore up to MAX_CANDIDATES times.
    if depth > 0 {
        explore_options(scenario, depth, max_schedules)?;
        let steps = explore::estimate(scenario, depth)
            .steps
            .saturating_mul(explore::retention::MAX_CANDIDATES);
        if steps > bounds::MAX_EXPLORE_STEPS {
            return Err(CliError::usage(Budget::TtlSearchSteps {
                scenario: scenario.name.clone(),
                depth,
                candidates: explore::retention::MAX_CANDIDATES,
                steps,
                max: bounds::MAX_EXPLORE_STEPS,
            }));
        }
    }
    let search = explore::retention::smallest_safe_ttl(scenario, depth);
    let failures = scenario
        .expect
        .as_ref()
        .and_then(|e| e.smallest_safe_ttl.as_ref())
        .map(|e| explore::retention::failed_ttl_expectations(e, &search));
    Ok((search, failures))
}

pub(in crate::cli) fn smallest_safe_ttl(
    args: &ExploreArgs,
    scenario: &Scenario,
    origin: &Origin,
) -> Result<(String, ExitCode), CliError> {
    let (search, failures) = checked_ttl_search(scenario, args.depth, args.max_schedules)?;
    let replay = search.largest_unsafe_failure().map(|(ttl, failing)| {
        with_ttl_flag(
            origin.replay_command(scenario.seed, &failing.crash_points),
            Some(ttl),
        )
    });
    let held = held(&failures);
    let out = if args.json {
        to_json(&json::ttl_search_json(
            scenario,
            &search,
            replay,
            failures.map(json::ExpectJson::from_failures),
        ))
    } else {
        text::ttl_search_text(
            language(args.lang),
            scenario,
            &search,
            replay.as_deref(),
            failures.as_deref(),
        )
    };
    Ok((out, code(held)))
}
