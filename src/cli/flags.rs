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

fn refuse(id: &str, why: &str) -> Result<(), CliError> {
    Err(CliError::usage(format!("{}: {why}", flag(id))))
}

/// The rules that need no scenario: a flag against its command and the other flags.
pub(in crate::cli) fn check(command: &Command, given: &Given) -> Result<(), CliError> {
    let file_given = |s: &ScenarioArgs| s.file.is_some();
    let events = |s: &ScenarioArgs| match file_given(s) && given.has("events") {
        true => refuse(
            "events",
            "the file sets workload.events; edit the file or use --protocol",
        ),
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
                    return refuse(id, "--no-shrink shrinks no finding; give one or the other");
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
            return refuse(id, "only with --diagram, whose drawing it shapes or writes");
        }
    }
    Ok(())
}

/// `explore`: each mode's flags, refused in the other modes.
fn explore_flags(args: &ExploreArgs, given: &Given) -> Result<(), CliError> {
    let interleavings_only = ["max_interleavings", "max_preemptions", "with_crashes"];
    if args.isolation_ladder {
        if let Some(id) = given.any(&["engine", "isolation"]) {
            return refuse(
                id,
                "--isolation-ladder runs the scenario on every engine and isolation level; it \
                 chooses none",
            );
        }
        return Ok(());
    }
    if !args.interleavings {
        if let Some(id) = given.any(&interleavings_only) {
            return refuse(id, "only with --interleavings, whose enumeration it shapes");
        }
    }
    if args.interleavings {
        let crash_only = ["depth", "max_schedules", "no_prune", "html"];
        if let Some(id) = given.any(&crash_only) {
            return refuse(
                id,
                "explores crash schedules, and --interleavings explores the consumers' \
                 orders instead (--with-crashes adds one crash at each point)",
            );
        }
    }
    if args.smallest_safe_ttl && given.has("expect") {
        return refuse(
            "expect",
            "--smallest-safe-ttl searches the smallest TTL with no duplicate, and states no \
             guarantee; pin what it should find in the file's expect.smallest_safe_ttl",
        );
    }
    Ok(())
}

/// `run DIR`: the flags that choose how one scenario runs would apply to every file, whose
/// expectations were written for its own seed, faults and schedule.
fn one_file_flags(dir: &Path, given: &Given) -> Result<(), CliError> {
    let rules = [
        (
            "crash",
            "a crash point names an event and a step of one scenario, and would replace the \
             planned crashes every file's expectations are written for",
        ),
        (
            "schedule",
            "scheduling choices belong to one scenario's consumers",
        ),
        (
            "trace",
            "the trace of every run of every file is too long to read; the table gives each \
             run's trace hash",
        ),
        (
            "inbox_ttl_ticks",
            "each file is run with its own retention policy, which its expectations are \
             written for",
        ),
        (
            "diagram",
            "a diagram draws one run; the table gives each file's verdict",
        ),
        (
            "html",
            "a page tells one run, or an exploration (`explore FILE --html`); the table gives \
             each file's verdict",
        ),
        (
            "seed",
            "each file is run with its own seed, which its expectations are written for",
        ),
        ("expect", "each file states its own claim in its expect"),
    ];
    match rules.iter().find(|(id, _)| given.has(id)) {
        Some((id, why)) => Err(CliError::usage(format!(
            "{} cannot be used with a folder ({}): {why}; give one scenario file to use it",
            flag(id),
            dir.display()
        ))),
        None => Ok(()),
    }
}

/// The rules that need the scenario: a flag that its scenario gives nothing to act on.
pub(in crate::cli) fn check_scenario(given: &Given, scenario: &Scenario) -> Result<(), CliError> {
    if given.has("schedule") && scenario.consumers < 2 {
        return refuse(
            "schedule",
            &format!(
                "`{}` has one consumer, so no tick has a choice between consumers to make; \
                 set \"consumers\" to 2 or more",
                scenario.name
            ),
        );
    }
    let protocol = &scenario.protocol;
    if given.has("inbox_ttl_ticks") && !protocol.has_inbox() {
        return refuse(
            "inbox_ttl_ticks",
            &format!(
                "configures the inbox, and protocol `{}` has none (no `insert_inbox` or \
                 `check_inbox` step), as store.inbox_ttl_ticks in a file would say; its steps \
                 are {}",
                protocol.name,
                protocol.arrow_list()
            ),
        );
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
