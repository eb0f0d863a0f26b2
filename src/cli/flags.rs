//! Every flag checked against its command and its scenario, in one place, before any work
//! starts: a flag that means nothing where it is given is refused (exit 2), naming the flag
//! and why, as a scenario field that means nothing is. A flag accepted and ignored would
//! make a user believe they tested something they did not.
//!
//! Which flags were given is read from clap's matches ([`Given`]), not from the parsed
//! values: a flag with a default (`--events 3`, `--shrink-runs`) is given only when the
//! command line says it. clap's own `requires` is not enough: it lets `explore FILE
//! --depth 2 --max-interleavings 5` and `run FILE --events 5` through.
//!
//! [`check`] runs before a command reads its scenario, [`check_scenario`] once it has it
//! and before it runs anything.

use super::*;
use crate::report::input::{FlagWhy, FolderWhy, Usage};
use clap::parser::ValueSource;
use std::collections::BTreeSet;

/// The flags (clap's argument ids, as the `Args` fields are named) given on the command
/// line of the subcommand.
#[derive(Clone, Debug, Default)]
pub struct Given(BTreeSet<String>);

impl Given {
    /// The flags given to the subcommand of `matches`.
    pub fn of(matches: &clap::ArgMatches) -> Given {
        let Some((_, sub)) = matches.subcommand() else {
            return Given::default();
        };
        let given = (sub.ids())
            .filter(|id| sub.value_source(id.as_str()) == Some(ValueSource::CommandLine))
            .map(|id| id.as_str().to_string())
            .collect();
        Given(given)
    }

    /// Whether the flag of argument `id` was given.
    pub fn has(&self, id: &str) -> bool {
        self.0.contains(id)
    }

    /// The first of `ids` given, if any.
    fn any<'a>(&self, ids: &[&'a str]) -> Option<&'a str> {
        ids.iter().copied().find(|id| self.has(id))
    }
}

/// `--max-interleavings` for the argument id `max_interleavings`.
fn flag(id: &str) -> String {
    format!("--{}", id.replace('_', "-"))
}

fn refuse(id: &str, why: FlagWhy) -> Result<(), CliError> {
    Err(CliError::usage(Usage::FlagRefused {
        flag: flag(id),
        why,
    }))
}

/// The rules that need no scenario: a flag against its command and the other flags.
pub(in crate::cli) fn check(command: &Command, given: &Given) -> Result<(), CliError> {
    let file_given = |s: &ScenarioArgs| s.file.is_some();
    let events = |s: &ScenarioArgs| match file_given(s) && given.has("events") {
        true => refuse("events", FlagWhy::EventsInFile),
        false => Ok(()),
    };
    match command {
        Command::Run(args) => {
            events(&args.source.scenario)?;
            match args.source.scenario.file.as_deref() {
                Some(dir) if dir.is_dir() => one_file_flags(dir, given),
                _ => run_flags(given),
            }
        }
        Command::Explain(args) => events(&args.source.scenario),
        Command::Explore(args) => {
            events(&args.source.scenario)?;
            explore_flags(args, given)
        }
        Command::Sweep(args) => {
            events(&args.scenario)?;
            if args.no_shrink {
                if let Some(id) = given.any(&["shrink_runs", "shrink_findings"]) {
                    return refuse(id, FlagWhy::NoShrink);
                }
            }
            Ok(())
        }
        Command::Crosscheck(args) => events(&args.source.scenario),
        _ => Ok(()),
    }
}

/// `run FILE` and `run --protocol`: the diagram's options need a diagram.
fn run_flags(given: &Given) -> Result<(), CliError> {
    if !given.has("diagram") {
        if let Some(id) = given.any(&["diagram_detail", "out"]) {
            return refuse(id, FlagWhy::OnlyWithDiagram);
        }
    }
    Ok(())
}

/// `explore`: each mode's flags, refused in the other modes.
fn explore_flags(args: &ExploreArgs, given: &Given) -> Result<(), CliError> {
    let interleavings_only = ["max_interleavings", "max_preemptions", "with_crashes"];
    if args.isolation_ladder {
        if let Some(id) = given.any(&["engine", "isolation"]) {
            return refuse(id, FlagWhy::LadderChoosesNone);
        }
        return Ok(());
    }
    if !args.interleavings {
        if let Some(id) = given.any(&interleavings_only) {
            return refuse(id, FlagWhy::OnlyWithInterleavings);
        }
    }
    if args.interleavings {
        let crash_only = ["depth", "max_schedules", "no_prune", "html"];
        if let Some(id) = given.any(&crash_only) {
            return refuse(id, FlagWhy::CrashOnly);
        }
    }
    if args.smallest_safe_ttl && given.has("expect") {
        return refuse("expect", FlagWhy::TtlSearchStatesNone);
    }
    Ok(())
}

/// `run DIR`: the flags that choose how one scenario runs would apply to every file, whose
/// expectations were written for its own seed, faults and schedule.
fn one_file_flags(dir: &Path, given: &Given) -> Result<(), CliError> {
    let rules = [
        ("crash", FolderWhy::Crash),
        ("schedule", FolderWhy::Schedule),
        ("trace", FolderWhy::Trace),
        ("inbox_ttl_ticks", FolderWhy::InboxTtl),
        ("diagram", FolderWhy::Diagram),
        ("html", FolderWhy::Html),
        ("seed", FolderWhy::Seed),
        ("expect", FolderWhy::Expect),
    ];
    match rules.iter().find(|(id, _)| given.has(id)) {
        Some(&(id, why)) => Err(CliError::usage(Usage::FolderRefuses {
            flag: flag(id),
            folder: dir.display().to_string(),
            why,
        })),
        None => Ok(()),
    }
}

/// The rules that need the scenario: a flag that its scenario gives nothing to act on.
pub(in crate::cli) fn check_scenario(given: &Given, scenario: &Scenario) -> Result<(), CliError> {
    if given.has("schedule") && scenario.consumers < 2 {
        let scenario = scenario.name.clone();
        return refuse("schedule", FlagWhy::OneConsumer { scenario });
    }
    let protocol = &scenario.protocol;
    if given.has("inbox_ttl_ticks") && !protocol.has_inbox() {
        let why = FlagWhy::NoInbox {
            protocol: protocol.name.clone(),
            steps: protocol.arrow_list(),
        };
        return refuse("inbox_ttl_ticks", why);
    }
    Ok(())
}

/// The claim of `--expect`, stated for every check a scenario's file pins, as
/// `expect.guarantee` is: the run's, each pinned exploration depth's and the pinned
/// interleavings'. `max_preemptions` is the bound an `explore --interleavings` uses: the
/// claim is stated for it.
pub(in crate::cli) fn claim(
    scenario: &mut Scenario,
    claim: Option<Guarantee>,
    max_preemptions: Option<usize>,
) {
    let Some(g) = claim else { return };
    let expect = scenario.expect.get_or_insert_with(Default::default);
    expect.guarantee = Some(g);
    for x in &mut expect.explore {
        x.guarantee = Some(g);
    }
    match max_preemptions {
        // `explore --interleavings`: the claim is stated for the bound it uses.
        Some(bound) => {
            let pinned = expect.interleavings.take().unwrap_or_default();
            // Counts pinned for another bound say nothing about this one.
            let pinned_bound = pinned
                .max_preemptions
                .unwrap_or(explore::DEFAULT_MAX_PREEMPTIONS);
            let mut x = match pinned_bound == bound {
                true => pinned,
                false => Default::default(),
            };
            x.max_preemptions = Some(bound);
            x.guarantee = Some(g);
            expect.interleavings = Some(x);
        }
        None => {
            if let Some(x) = &mut expect.interleavings {
                x.guarantee = Some(g);
            }
        }
    }
}
