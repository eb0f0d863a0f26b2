//! The command line: parses arguments (clap), turns them into a validated scenario, runs,
//! prints, and maps the result to an exit code: 0 when expectations held (or there were
//! none), 1 when one failed, 2 for a usage or input error.
//!
//! The checks a command makes (run a scenario and compare with its `expect`, explore it to
//! a depth, enumerate its interleavings) are functions here that `run DIR` ([`folder`])
//! calls for each file too, so a folder is checked exactly as its files are one by one.

mod atomic;
mod crosscheck;
mod folder;
mod interrupt;

use crate::check;
use crate::explore;
use crate::explore::shrink::{self, ShrinkOptions, Shrunk};
use crate::explore::sweep::{self, SwarmLimits};
use crate::fault::CrashSpec;
use crate::model::{BoundaryPoint, Protocol, StepActor};
use crate::producer::Identity;
use crate::report::folder::{FileCheck, FileReport, PlainRun};
use crate::report::lang::Lang;
use crate::report::paint::Paint;
use crate::report::{diagram, explain, json, junit, markdown, text, token_command, Origin};
use crate::scenario::token::{self, TokenError};
use crate::scenario::{bounds, Scenario, ScenarioError};
use crate::world::{self, RunResult};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const EXAMPLES: &str = "\
Examples:
  delivery-sim matrix                          every built-in protocol × every crash point
  delivery-sim protocols                       the built-in protocols and their steps
  delivery-sim run scenarios/inbox-crash-between-commit-and-ack.json
  delivery-sim run scenarios/ack-first-crash-after-ack.json --trace
  delivery-sim explain scenarios/ack-first-crash-after-ack.json --lang es
  delivery-sim run scenarios/                  every scenario file, each checked against its expect
  delivery-sim explore scenarios/inbox-random-crashes-20-events.json --json
  delivery-sim run --protocol no-dedup --events 3 --crash 'after:commit e0 d1'
  delivery-sim sweep --protocol no-dedup --events 20 --seeds 0..100   findings, shrunk, with tokens
  delivery-sim replay ds1:…                    the exact run of a token that sweep printed
  delivery-sim run scenarios/ --junit report.xml
  delivery-sim completions bash                a shell completion script

Exit codes: 0 = expectations held (or none given), 1 = an expectation failed,
2 = usage or input error.";

#[derive(Debug, Parser)]
#[command(
    name = "delivery-sim",
    version,
    about = "A deterministic fault-injection simulator for message-delivery semantics: \
             it crashes a consumer at every step boundary and counts committed effects \
             per event in a real SQLite database.",
    after_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one scenario and report what happened to every event. Given a folder, run every
    /// scenario file in it (`*.json`, in name order) and check each against its `expect`:
    /// the run, every pinned exploration depth, the pinned interleavings and the pinned
    /// smallest safe TTL; print one row
    /// per file, the failures with their replay commands, and the totals.
    #[command(after_help = "Examples:
  delivery-sim run scenarios/no-dedup-crash-between-commit-and-ack.json
  delivery-sim run scenarios/inbox-exact-duplicate.json --seed 42 --json
  delivery-sim run --protocol ack-first --crash 'after:ack e1 d1' --trace
  delivery-sim run scenarios/
  delivery-sim run scenarios/ --json

With a folder, the exit code is 2 if any file is bad input (the others still run), else 1
if any expectation failed, else 0.")]
    Run(RunArgs),
    /// Tell one run step by step, for a learner: what each step did and why it matters, the
    /// broker's and the database's state after it (and what an open transaction holds), then
    /// every anomaly in plain words and the run's failure-point table (point of failure,
    /// confirmed state, recovery, outcome). In English or Spanish.
    #[command(after_help = "Examples:
  delivery-sim explain scenarios/inbox-crash-between-commit-and-ack.json
  delivery-sim explain scenarios/ack-first-crash-after-ack.json --lang es
  delivery-sim explain --protocol no-dedup --events 2 --crash 'after:commit e0 d1'

The language is --lang, else the environment's (LC_ALL, LC_MESSAGES, LANG: es* is Spanish),
else English. Colours only on a terminal, and never with NO_COLOR set.")]
    Explain(ExplainArgs),
    /// Run a scenario once per single crash point (every boundary of every step of every
    /// delivery attempt the crash-free run reaches) and summarise.
    #[command(after_help = "Examples:
  delivery-sim explore scenarios/inbox-crash-between-commit-and-ack.json
  delivery-sim explore --protocol effect-then-mark --events 2 --json")]
    Explore(ExploreArgs),
    /// Random fault plans, swarm style: each seed draws its own fault rates, then runs.
    /// Prints each failing seed with its replay command as soon as its chunk ends, shrunk to
    /// a minimal run that fails the same way, with that run's replay token.
    #[command(after_help = "Examples:
  delivery-sim sweep scenarios/inbox-random-crashes-20-events.json --seeds 0..10000
  delivery-sim sweep --protocol no-dedup --events 5 --seeds 0..1000 --out findings.jsonl
  delivery-sim sweep --protocol no-dedup --events 5 --seeds 3..4      (one seed: full report)
  delivery-sim sweep --protocol no-dedup --events 20 --seeds 0..100 --no-shrink

Shrinking spends at most --shrink-runs simulator runs per finding, for the first
--shrink-findings findings; `delivery-sim replay TOKEN` replays a printed token.")]
    Sweep(SweepArgs),
    /// Every built-in protocol against every single crash point, as a table.
    #[command(after_help = "Examples:
  delivery-sim matrix
  delivery-sim matrix --events 5 --json")]
    Matrix(MatrixArgs),
    /// List the built-in protocols with their steps.
    Protocols,
    /// Cross-check the simulator's crash model against reality: for the crash-free run
    /// and every single crash point, run the scenario once simulated and once with a real
    /// consumer process on a real SQLite file, killed with SIGKILL at the crash point;
    /// compare the two (the consumer's steps, what was committed at the crash, the
    /// verdict) and time them. One consumer, the queue broker.
    #[command(after_help = "Examples:
  delivery-sim crosscheck scenarios/crosscheck-inbox-3-events.json
  delivery-sim crosscheck --protocol no-dedup --events 3 --json

Exit codes: 0 = every point matches, 1 = some point differs (both sides are shown),
2 = usage or input error, or a scenario crosscheck cannot run (it says why).")]
    Crosscheck(crosscheck::CrosscheckArgs),
    /// Measure the simulator's speed against raw SQLite, the matrix, explore's growth,
    /// sweep's parallel speed-up, and crosscheck's real runs against simulated ones; print
    /// the figures as Markdown.
    Bench(BenchArgs),
    /// Run the exact run of a replay token (as `sweep` prints for each finding, shrunk) and
    /// report it as `run` does, with the same trace hash. Exit code 1 when the run breaks a
    /// property (as the finding did), 0 when it does not.
    #[command(after_help = "Examples:
  delivery-sim replay ds1:eyJuYW1lIjoi…            (the token as sweep printed it)
  delivery-sim replay ds1:eyJuYW1lIjoi… --trace
  delivery-sim replay ds1:eyJuYW1lIjoi… --scenario-out scenarios/my-regression.json

--scenario-out writes the run as a scenario file whose `expect` pins the failure as
observed: `delivery-sim run` on it exits 0 while the run fails exactly so, and 1 once it
changes (a regression scenario for the bug).")]
    Replay(ReplayArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell).
    #[command(after_help = "Examples:
  delivery-sim completions bash > ~/.local/share/bash-completion/completions/delivery-sim
  delivery-sim completions zsh > ~/.zfunc/_delivery-sim      (with fpath+=~/.zfunc)
  delivery-sim completions fish > ~/.config/fish/completions/delivery-sim.fish")]
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The replay token (starts with `ds1:`).
    #[arg(value_name = "TOKEN")]
    pub token: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print every trace entry before the summary.
    #[arg(long)]
    pub trace: bool,
    /// Also write the run as a scenario file, with an `expect` block pinning the failure as
    /// observed.
    #[arg(long, value_name = "FILE")]
    pub scenario_out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Also write BENCHMARKS.md into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Where the scenario comes from: a file, or a built-in protocol with default settings.
#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// A scenario file (JSON); `run` also takes a folder of them.
    #[arg(value_name = "FILE", required_unless_present = "protocol")]
    pub file: Option<PathBuf>,
    /// Instead of a file: a built-in protocol with default settings and no faults.
    #[arg(long, conflicts_with = "file")]
    pub protocol: Option<String>,
    /// With --protocol: how many events to publish.
    #[arg(long, requires = "protocol", default_value_t = 3)]
    pub events: u64,
}

/// A scenario and, optionally, another seed for it.
#[derive(Debug, Args)]
pub struct Source {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Use this seed instead of the scenario's.
    #[arg(long)]
    pub seed: Option<u64>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub source: Source,
    /// Crash exactly here instead of the scenario's planned and random crashes, written as
    /// explore prints it (e.g. 'after:commit e0 d1'). Repeat for several crashes.
    #[arg(long, value_name = "POINT")]
    pub crash: Vec<String>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print every trace entry before the summary.
    #[arg(long)]
    pub trace: bool,
    /// Use this inbox TTL instead of the scenario's (as `explore --smallest-safe-ttl`
    /// prints it in replay commands); enables retention with the default cleanup schedule
    /// if the scenario has none.
    #[arg(long, value_name = "TICKS")]
    pub inbox_ttl_ticks: Option<u64>,
    /// Scheduling choices for several consumers, as `explore --interleavings` prints them
    /// (e.g. 0,1,1): at the k-th tick where several consumers are due, the k-th number says
    /// which of them steps (0 = the first due; past the list, 0).
    #[arg(long, value_name = "CHOICES")]
    pub schedule: Option<String>,
    /// Instead of the text report, draw the run: `mermaid` prints a Mermaid sequenceDiagram
    /// (paste it into Markdown in a ```mermaid block), `svg` a standalone SVG with one lane
    /// per actor. Each event is coloured by its outcome (once, lost, duplicated).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["json", "trace"])]
    pub diagram: Option<DiagramFormat>,
    /// With --diagram: `full` draws every step; `compact` folds the routine steps of events
    /// processed once into notes; `auto` is compact past 60 rows.
    #[arg(
        long,
        value_enum,
        value_name = "DETAIL",
        default_value = "auto",
        requires = "diagram"
    )]
    pub diagram_detail: DiagramDetail,
    /// With --diagram: write the diagram to this file instead of printing it.
    #[arg(long, value_name = "FILE", requires = "diagram")]
    pub out: Option<PathBuf>,
    /// Also write the checks as JUnit XML to this file (one test case per check of each
    /// scenario; written whole or not at all).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// The language of the text report (default: the environment's, else English). The
    /// JSON is the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
}

/// `run --diagram`: the diagram's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiagramFormat {
    Mermaid,
    Svg,
}

/// `run --diagram-detail`: how much of the run to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiagramDetail {
    Auto,
    Full,
    Compact,
}

/// A report language on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    /// English.
    En,
    /// Spanish (español rioplatense, as the course it comes from).
    Es,
}

/// `explain`: the scenario source, crashes and schedule as `run` takes them.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub source: Source,
    /// Crash exactly here instead of the scenario's planned and random crashes, written as
    /// explore prints it (e.g. 'after:commit e0 d1'). Repeat for several crashes.
    #[arg(long, value_name = "POINT")]
    pub crash: Vec<String>,
    /// Scheduling choices for several consumers, as `run --schedule` takes them.
    #[arg(long, value_name = "CHOICES")]
    pub schedule: Option<String>,
    /// Use this inbox TTL instead of the scenario's, as `run --inbox-ttl-ticks` does.
    #[arg(long, value_name = "TICKS")]
    pub inbox_ttl_ticks: Option<u64>,
    /// The language of the narration (default: the environment's, else English).
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
}

#[derive(Debug, Args)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub source: Source,
    /// The most crashes in one schedule: 1 = one run per single crash point; 2 adds a
    /// second crash at every point the first crash's run reached (its recovery included).
    #[arg(long, default_value_t = 1)]
    pub depth: usize,
    /// Refuse explorations estimated to need more schedules than this.
    #[arg(long, default_value_t = explore::DEFAULT_MAX_SCHEDULES)]
    pub max_schedules: u64,
    /// Run every schedule, also those whose state after their last crash equals an
    /// earlier run's (by default those are reported as `≡` that run and not extended):
    /// the slow, obvious exploration that the pruned one must agree with.
    #[arg(long, conflicts_with_all = ["interleavings", "smallest_safe_ttl"])]
    pub no_prune: bool,
    /// Instead of crash points: every interleaving of the consumers' steps (with the
    /// scenario's own faults), up to --max-preemptions departures from round-robin.
    #[arg(long, conflicts_with = "depth")]
    pub interleavings: bool,
    /// With --interleavings: how many times a schedule may depart from round-robin
    /// (default: the scenario's `expect.interleavings.max_preemptions`, else 2).
    #[arg(long, requires = "interleavings")]
    pub max_preemptions: Option<usize>,
    /// With --interleavings: also every single crash point (each interleaving again with
    /// one crash at each boundary the default schedule reached).
    #[arg(long, requires = "interleavings")]
    pub with_crashes: bool,
    /// Instead of one exploration: search the smallest inbox TTL (store.inbox_ttl_ticks)
    /// for which no run duplicates an event, by bisection over ticks; each TTL is verified
    /// by the scenario's own run and every schedule of up to --depth crashes (0: the own
    /// run only).
    #[arg(long, conflicts_with = "interleavings")]
    pub smallest_safe_ttl: bool,
    /// With --interleavings: the most interleavings to run.
    #[arg(long, default_value_t = explore::DEFAULT_MAX_INTERLEAVINGS, requires = "interleavings")]
    pub max_interleavings: u64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `sweep`: the scenario's protocol, workload, store and broker are used; its faults and
/// republishes are replaced by each seed's draw.
#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// The seeds to run, `A..B` (B excluded).
    #[arg(long, value_name = "A..B")]
    pub seeds: String,
    /// Write each finding as a JSON line to this file, flushed as it is found.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// With --out: add to the file instead of replacing it (to resume an interrupted sweep
    /// into the same file, as its resume command does).
    #[arg(long, requires = "out")]
    pub append: bool,
    /// Each seed's crash probability per step is drawn from 0 to this (parts per million).
    #[arg(long, default_value_t = SwarmLimits::default().max_crash_ppm)]
    pub max_crash_ppm: u32,
    /// Each seed's crash budget is drawn from 0 to this.
    #[arg(long, default_value_t = SwarmLimits::default().max_crashes)]
    pub max_crashes: u32,
    /// Each seed fails 0 to this many steps.
    #[arg(long, default_value_t = SwarmLimits::default().max_failures)]
    pub max_failures: u32,
    /// Each seed republishes 0 to this many events.
    #[arg(long, default_value_t = SwarmLimits::default().max_republishes)]
    pub max_republishes: u32,
    /// Each seed loses 0 to this many acks and has the broker duplicate 0 to this many
    /// deliveries.
    #[arg(long, default_value_t = SwarmLimits::default().max_broker_faults)]
    pub max_broker_faults: u32,
    /// Each seed's broker delays deliveries by up to 0 to this many ticks.
    #[arg(long, default_value_t = SwarmLimits::default().max_jitter_ticks)]
    pub max_jitter_ticks: u32,
    /// Each seed may stall its consumer once for up to this many ticks (with a 50-tick
    /// lease, so that leases expire while a consumer works).
    #[arg(long, default_value_t = SwarmLimits::default().max_stall_ticks)]
    pub max_stall_ticks: u32,
    /// Do not shrink findings (each still gets the replay token of its exact run).
    #[arg(long)]
    pub no_shrink: bool,
    /// The most simulator runs shrinking one finding may spend.
    #[arg(long, default_value_t = shrink::DEFAULT_MAX_RUNS, value_name = "RUNS")]
    pub shrink_runs: u64,
    /// Shrink only the first this many findings; later ones get the token of their exact
    /// run.
    #[arg(long, default_value_t = DEFAULT_SHRINK_FINDINGS, value_name = "N")]
    pub shrink_findings: u64,
}

/// How many findings of one sweep are shrunk by default: enough for every distinct bug a
/// sweep usually finds, few enough that a sweep over a broken protocol (where most seeds
/// fail) does not spend most of its time shrinking the same bug again.
pub const DEFAULT_SHRINK_FINDINGS: u64 = 100;

#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Events per run.
    #[arg(long, default_value_t = 3)]
    pub events: u64,
    /// The most crashes per run: the table shows single crashes; each depth adds a
    /// guarantee row.
    #[arg(long, default_value_t = 2)]
    pub depth: usize,
    /// Also write matrix.md (failure-point tables) and matrix.json into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of every run (event ids and accounts).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// An error that ends the command with exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Token(#[from] TokenError),
}

/// Parses the process arguments, runs, prints, and returns the exit code.
pub fn main() -> ExitCode {
    // `crosscheck`'s consumer process is this binary too, started as `delivery-sim
    // __consumer`; it is no command of the tool, so clap (help, completions) never sees it.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == crate::crosscheck::CHILD_COMMAND)
    {
        return crate::crosscheck::child::main();
    }
    let cli = Cli::parse();
    match execute(&cli.command) {
        Ok((output, code)) => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            // A closed pipe (`| head`) is the reader's choice, not an error of ours.
            let _ = match output {
                Printed::Text(text) => stdout.write_all(text.as_bytes()),
                Printed::Stream(write) => write(&mut stdout),
            }
            .and_then(|_| stdout.flush());
            code
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// What a command prints on stdout: a text made whole, or one written piece by piece, so
/// that a report of hundreds of thousands of runs or a trace of millions of entries is
/// never held whole in memory.
pub enum Printed {
    Text(String),
    Stream(Writer),
}

/// Writes a command's output to stdout, piece by piece.
pub type Writer = Box<dyn FnOnce(&mut dyn Write) -> std::io::Result<()>>;

impl From<String> for Printed {
    fn from(text: String) -> Printed {
        Printed::Text(text)
    }
}

/// Runs a command and returns what to print and the exit code.
pub fn execute(command: &Command) -> Result<(Printed, ExitCode), CliError> {
    let text = |r: Result<(String, ExitCode), CliError>| r.map(|(t, c)| (Printed::Text(t), c));
    match command {
        Command::Protocols => Ok((text::protocols_text().into(), ExitCode::SUCCESS)),
        Command::Run(args) => run(args),
        Command::Explain(args) => text(explain_command(args)),
        Command::Explore(args) => explore(args),
        Command::Matrix(args) => text(matrix(args)),
        Command::Sweep(args) => text(sweep(args)),
        Command::Crosscheck(args) => text(crosscheck::crosscheck(args)),
        Command::Replay(args) => replay(args),
        Command::Completions(args) => {
            use clap::CommandFactory;
            let mut out = Vec::new();
            clap_complete::generate(args.shell, &mut Cli::command(), "delivery-sim", &mut out);
            let script = String::from_utf8(out).expect("completion scripts are UTF-8");
            Ok((script.into(), ExitCode::SUCCESS))
        }
        Command::Bench(args) => {
            let report = crate::bench::run();
            if let Some(dir) = &args.out {
                let path = dir.join("BENCHMARKS.md");
                std::fs::create_dir_all(dir)
                    .and_then(|_| atomic::write(&path, report.as_bytes()))
                    .map_err(|e| {
                        CliError::Usage(format!("--out: cannot write {}: {e}", path.display()))
                    })?;
            }
            Ok((report.into(), ExitCode::SUCCESS))
        }
    }
}

/// Whether the expectations held: there were none, or none failed.
fn held(failures: &Option<Vec<String>>) -> bool {
    failures.as_ref().is_none_or(|f| f.is_empty())
}

fn code(held: bool) -> ExitCode {
    if held {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("report types serialize");
    s.push('\n');
    s
}

fn load(source: &Source) -> Result<(Scenario, Origin), CliError> {
    let (mut scenario, origin) = load_scenario(&source.scenario)?;
    if let Some(seed) = source.seed {
        scenario.seed = seed;
    }
    Ok((scenario, origin))
}

fn load_scenario(source: &ScenarioArgs) -> Result<(Scenario, Origin), CliError> {
    match (&source.file, &source.protocol) {
        (Some(path), _) if path.is_dir() => Err(CliError::Usage(format!(
            "{} is a folder; `run` checks every scenario file in a folder, `explore` and \
             `sweep` take one scenario file",
            path.display()
        ))),
        (Some(path), _) => Ok((
            Scenario::from_file(path)?,
            Origin::File(path.display().to_string()),
        )),
        (None, Some(name)) => {
            let protocol = Protocol::built_in(name).ok_or_else(|| {
                CliError::Usage(format!(
                    "--protocol: unknown protocol `{name}`; the built-in protocols are {}",
                    Protocol::built_in_names()
                ))
            })?;
            let events = events_arg("--events", source.events)?;
            let mut s = Scenario::new(protocol);
            s.workload.events = events;
            Ok((
                s,
                Origin::BuiltIn {
                    protocol: name.clone(),
                    events,
                },
            ))
        }
        (None, None) => unreachable!("clap requires FILE or --protocol"),
    }
}

fn events_arg(flag: &str, events: u64) -> Result<usize, CliError> {
    if events == 0 || events > bounds::MAX_EVENTS {
        return Err(CliError::Usage(format!(
            "{flag}: {events} is out of range; allowed: 1 to {}",
            bounds::MAX_EVENTS
        )));
    }
    Ok(events as usize)
}

fn crash_override(scenario: &Scenario, points: &[String]) -> Result<Vec<BoundaryPoint>, CliError> {
    if points.len() > bounds::MAX_CRASHES as usize {
        return Err(CliError::Usage(format!(
            "--crash: {} crash points is over the limit of {} (as for faults.crash)",
            points.len(),
            bounds::MAX_CRASHES
        )));
    }
    points
        .iter()
        .map(|text| {
            let p =
                BoundaryPoint::parse(text).map_err(|e| CliError::Usage(format!("--crash: {e}")))?;
            if !scenario.runs_step(p.boundary.step)
                && p.boundary.step.actor() != StepActor::Consumer
            {
                return Err(CliError::Usage(format!(
                    "--crash: `{}` is a step of the {}, which this scenario does not run \
                     (see `producer.mode`)",
                    p.boundary.step,
                    p.boundary.step.actor().name()
                )));
            }
            if !scenario.runs_step(p.boundary.step) {
                return Err(CliError::Usage(format!(
                    "--crash: protocol `{}` has no step `{}`; its steps are {}",
                    scenario.protocol.name,
                    p.boundary.step,
                    scenario.protocol.arrow_list()
                )));
            }
            // Events minted by a per-attempt identity are numbered after the workload's.
            let minted = scenario.producer.identity == Identity::PerAttempt;
            if p.event >= scenario.workload.events && !minted {
                return Err(CliError::Usage(format!(
                    "--crash: event e{} does not exist; this scenario has e0 to e{}",
                    p.event,
                    scenario.workload.events - 1
                )));
            }
            Ok(p)
        })
        .collect()
}

/// Runs `scenario` with the scheduling choices `schedule` (empty: the default schedule)
/// and `options`, and compares the run with the scenario's `expect`: the failed
/// expectations, or `None` when it states none. What `run FILE` does, and the `run` check of
/// `run DIR`. A run that a limit stopped fails liveness, an expectation every run has,
/// stated or not.
fn checked_run(
    scenario: &Scenario,
    schedule: &[u32],
    options: world::RunOptions,
) -> (RunResult, Option<Vec<String>>) {
    let result = world::run_scheduled(scenario, options, schedule);
    let failures = run_failures(scenario, &result);
    (result, failures)
}

/// How `result` fails `scenario`: its expectations that did not hold, and its liveness
/// failure, which every scenario expects not to have; `None` when it states nothing and
/// finished. `run` and `explain` judge a run so.
fn run_failures(scenario: &Scenario, result: &RunResult) -> Option<Vec<String>> {
    let mut failures = scenario
        .expect
        .as_ref()
        .map(|e| check::failed_expectations(e, &result.verdict));
    if let Some(stuck) = result.liveness_failure(&scenario.limits) {
        failures.get_or_insert_with(Vec::new).push(stuck);
    }
    failures
}

fn run(args: &RunArgs) -> Result<(Printed, ExitCode), CliError> {
    if let Some(path) = &args.source.scenario.file {
        if path.is_dir() {
            return folder::run_folder(path, args).map(|(t, c)| (t.into(), c));
        }
        if !path.exists() && path.extension().is_none_or(|x| x != "json") {
            // Without the `.json` it may as well have been meant as a folder: say neither
            // was found rather than "cannot read the file".
            return Err(CliError::Usage(format!(
                "{}: no such file or folder; `run` takes a scenario file (.json) or a folder \
                 of them",
                path.display()
            )));
        }
    }
    let (mut scenario, origin) = match load(&args.source) {
        Ok(loaded) => loaded,
        Err(e) => {
            // The CI job that reads the report learns of the bad input from it too.
            if let (Some(junit), Some(path)) = (&args.junit, &args.source.scenario.file) {
                let report = FileReport {
                    path: path.display().to_string(),
                    name: file_name(path),
                    run: None,
                    checks: Vec::new(),
                    error: Some(e.to_string()),
                };
                write_junit(
                    junit,
                    &format!("delivery-sim run {}", path.display()),
                    &[report],
                )?;
            }
            return Err(e);
        }
    };
    ttl_override(&mut scenario, args.inbox_ttl_ticks)?;
    let crashes = crash_override(&scenario, &args.crash)?;
    if !crashes.is_empty() {
        scenario.faults.crash = crashes.iter().map(|p| CrashSpec::exactly(*p)).collect();
        scenario.faults.random_crash = None;
    }
    let schedule = match &args.schedule {
        Some(text) => parse_schedule(text)?,
        None => Vec::new(),
    };
    let (result, failures) = checked_run(&scenario, &schedule, world::RunOptions::default());
    reached(&result, &crashes, &schedule)?;
    let replay = replay_with_schedule(
        with_ttl_flag(
            origin.replay_command(scenario.seed, &crashes),
            args.inbox_ttl_ticks,
        ),
        &schedule,
    );
    if let Some(junit) = &args.junit {
        let (path, name) = match &origin {
            Origin::File(path) => (path.clone(), file_name(Path::new(path))),
            Origin::BuiltIn { .. } => (scenario.name.clone(), scenario.name.clone()),
        };
        let report = FileReport {
            path,
            name,
            run: Some(PlainRun {
                scenario: scenario.name.clone(),
                protocol: scenario.protocol.name.clone(),
                seed: scenario.seed,
                guarantee: result.verdict.guarantee,
                trace_hash: result.trace.hash_hex(),
            }),
            checks: failures
                .iter()
                .map(|f| FileCheck {
                    name: "run".into(),
                    runs: None,
                    failures: f.clone(),
                    replay: replay.clone(),
                })
                .collect(),
            error: None,
        };
        write_junit(junit, &replay, &[report])?;
    }
    let held = held(&failures);
    let mut out = String::new();
    if let Some(format) = args.diagram {
        let detail = match args.diagram_detail {
            DiagramDetail::Auto => diagram::Detail::Auto,
            DiagramDetail::Full => diagram::Detail::Full,
            DiagramDetail::Compact => diagram::Detail::Compact,
        };
        let d = diagram::build(&scenario, &result, detail);
        let drawn = match format {
            DiagramFormat::Mermaid => d.mermaid(),
            DiagramFormat::Svg => d.svg(),
        };
        match &args.out {
            Some(path) => {
                atomic::write(path, drawn.as_bytes()).map_err(|e| {
                    CliError::Usage(format!("--out: cannot write {}: {e}", path.display()))
                })?;
                out.push_str(&format!(
                    "wrote {} ({} rows, {} bytes)\n",
                    path.display(),
                    d.rows.len(),
                    drawn.len()
                ));
            }
            None => out.push_str(&drawn),
        }
    } else if args.json {
        let expect = failures.map(json::ExpectJson::from_failures);
        let mut report = json::run_json(&scenario, &result, &origin, &crashes, expect);
        report.replay = with_ttl_flag(report.replay, args.inbox_ttl_ticks);
        out.push_str(&to_json(&report));
    } else {
        out.push_str(&text::run_text_in(
            language(args.lang),
            stdout_paint(),
            &scenario,
            &result,
            &replay,
            failures.as_deref(),
        ));
        if args.trace {
            return Ok((trace_then(result, out), code(held)));
        }
    }
    Ok((out.into(), code(held)))
}

/// Every trace entry of `result`, one per line, then `report`: written as it goes, since a
/// trace may have millions of entries.
fn trace_then(result: RunResult, report: String) -> Printed {
    Printed::Stream(Box::new(move |w| {
        for entry in result.trace.entries() {
            writeln!(w, "{entry}")?;
        }
        writeln!(w)?;
        w.write_all(report.as_bytes())
    }))
}

/// Checks a run against the `--schedule` and `--crash` it was given: a choice past a
/// decision's alternatives is a usage error; a crash point never reached is a warning.
fn reached(
    result: &RunResult,
    crashes: &[BoundaryPoint],
    schedule: &[u32],
) -> Result<(), CliError> {
    refuse_unknown_choices(result, schedule, "--schedule")?;
    for p in crashes {
        if !result.crashes.iter().any(|c| c.point == *p) {
            eprintln!("warning: --crash '{p}' was never reached in this run");
        }
    }
    Ok(())
}

/// `--lang` if given, else the environment's language, else English.
fn language(arg: Option<LangArg>) -> Lang {
    match arg {
        Some(LangArg::En) => Lang::En,
        Some(LangArg::Es) => Lang::Es,
        None => Lang::from_env(|name| std::env::var(name).ok()),
    }
}

/// Colours when stdout is a terminal and `NO_COLOR` is unset or empty; never in a pipe,
/// so never in tests.
fn stdout_paint() -> Paint {
    use std::io::IsTerminal;
    let no_color = std::env::var_os("NO_COLOR").map(|v| v.to_string_lossy().into_owned());
    Paint::new(Paint::wanted(
        std::io::stdout().is_terminal(),
        no_color.as_deref(),
    ))
}

/// `explain FILE`: one run, narrated.
fn explain_command(args: &ExplainArgs) -> Result<(String, ExitCode), CliError> {
    if let Some(path) = &args.source.scenario.file {
        if path.is_dir() {
            return Err(CliError::Usage(format!(
                "{} is a folder; `explain` tells one run: give it one scenario file",
                path.display()
            )));
        }
    }
    let (mut scenario, origin) = load(&args.source)?;
    ttl_override(&mut scenario, args.inbox_ttl_ticks)?;
    let crashes = crash_override(&scenario, &args.crash)?;
    if !crashes.is_empty() {
        scenario.faults.crash = crashes.iter().map(|p| CrashSpec::exactly(*p)).collect();
        scenario.faults.random_crash = None;
    }
    let schedule = match &args.schedule {
        Some(text) => parse_schedule(text)?,
        None => Vec::new(),
    };
    let result = world::run_scheduled(&scenario, world::RunOptions::default(), &schedule);
    reached(&result, &crashes, &schedule)?;
    let failures = run_failures(&scenario, &result);
    let lang = language(args.lang);
    let run = replay_with_schedule(
        with_ttl_flag(
            origin.replay_command(scenario.seed, &crashes),
            args.inbox_ttl_ticks,
        ),
        &schedule,
    );
    // The same run, told again: the replay command with `explain` and the language.
    let replay = format!(
        "{} --lang {}",
        run.replacen("delivery-sim run ", "delivery-sim explain ", 1),
        match lang {
            Lang::En => "en",
            Lang::Es => "es",
        }
    );
    let out = explain::explain_text(
        &scenario,
        &schedule,
        &result,
        &replay,
        failures.as_deref(),
        lang,
        stdout_paint(),
    );
    Ok((out, code(held(&failures))))
}

/// The hard ceiling on `--max-schedules`.
const MAX_SCHEDULES_CEILING: u64 = explore::MAX_SCHEDULES;

fn explore_options(
    scenario: &Scenario,
    depth: usize,
    max_schedules: u64,
) -> Result<explore::ExploreOptions, CliError> {
    if depth == 0 || depth > explore::MAX_DEPTH {
        return Err(CliError::Usage(format!(
            "--depth: {depth} is out of range; allowed: 1 to {}",
            explore::MAX_DEPTH
        )));
    }
    if max_schedules == 0 || max_schedules > MAX_SCHEDULES_CEILING {
        return Err(CliError::Usage(format!(
            "--max-schedules: {max_schedules} is out of range; allowed: 1 to {MAX_SCHEDULES_CEILING}"
        )));
    }
    let explore::Estimate {
        schedules: estimate,
        steps,
        first_level_bytes,
    } = explore::estimate(scenario, depth);
    if estimate > u128::from(max_schedules) {
        return Err(CliError::Usage(format!(
            "exploring `{}` ({} events) to depth {depth} may need up to {estimate} schedules, \
             over the limit of {max_schedules}; lower --depth or the number of events{}",
            scenario.name,
            scenario.workload.events,
            if max_schedules < MAX_SCHEDULES_CEILING {
                format!(", or raise --max-schedules (at most {MAX_SCHEDULES_CEILING})")
            } else {
                String::new()
            }
        )));
    }
    if first_level_bytes > u128::from(explore::budget::KEPT_RUNS_BYTES) {
        return Err(CliError::Usage(format!(
            "exploring `{}` ({} events) needs at least one run per crash point of the \
             crash-free run, whose runs would take about {} MiB to keep, over the {} MiB an \
             exploration may keep (every command stays within 1 GiB); lower the number of \
             events{}",
            scenario.name,
            scenario.workload.events,
            first_level_bytes >> 20,
            explore::budget::KEPT_RUNS_BYTES >> 20,
            if depth > 1 { " or --depth" } else { "" }
        )));
    }
    if steps > bounds::MAX_EXPLORE_STEPS {
        return Err(CliError::Usage(format!(
            "exploring `{}` to depth {depth} may need up to {estimate} schedules of about {} \
             steps each, {steps} steps in all, over the {} one exploration may take (runs that \
             long usually livelock to their step limit: see `run`); lower --depth, the number \
             of events or limits.max_steps",
            scenario.name,
            steps / estimate.max(1),
            bounds::MAX_EXPLORE_STEPS
        )));
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
fn checked_exploration(
    scenario: &Scenario,
    depth: usize,
    max_schedules: u64,
    prune: bool,
) -> Result<(explore::Exploration, Option<Vec<String>>), CliError> {
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
            .push(liveness_line(x.summary.liveness_failed_runs, x.runs.len()));
    }
    if x.summary.memory_limited {
        failures
            .get_or_insert_with(Vec::new)
            .push(memory_line(x.runs.len(), "--depth or the number of events"));
    }
    Ok((x, failures))
}

/// The failure of an exploration some of whose runs could not finish: every run is
/// expected to, stated or not.
fn liveness_line(failed: u64, runs: usize) -> String {
    format!(
        "liveness: {failed} of {runs} runs could not finish (an event stuck, or a limit \
         stopped the healing phase); they are listed first among the failing runs, each with \
         the command that replays it"
    )
}

fn explore(args: &ExploreArgs) -> Result<(Printed, ExitCode), CliError> {
    let (scenario, origin) = load(&args.source)?;
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
                &json::explore_json(&scenario, &x, &origin, expect),
            )
            .map_err(std::io::Error::other)?;
            writeln!(w)
        };
        return Ok((Printed::Stream(Box::new(write)), code));
    }
    let out = text::explore_text(&scenario, &x, &origin, failures.as_deref());
    Ok((out.into(), code))
}

fn matrix(args: &MatrixArgs) -> Result<(String, ExitCode), CliError> {
    let events = events_arg("--events", args.events)?;
    let protocols = Protocol::all_built_in();
    for p in &protocols {
        let mut s = Scenario::new(p.clone());
        s.workload.events = events;
        s.seed = args.seed;
        // The matrix has no --max-schedules: its columns explore with the most.
        explore_options(&s, args.depth, MAX_SCHEDULES_CEILING)?;
    }
    let columns = explore::matrix(&protocols, events, args.seed, args.depth);
    let limited: Vec<&str> = columns
        .iter()
        .filter(|c| c.summaries.iter().any(|s| s.memory_limited))
        .map(|c| c.protocol.name.as_str())
        .collect();
    let held = columns.iter().all(|c| c.as_documented()) && limited.is_empty();
    let json = json::matrix_json(&columns, events, args.seed, args.depth);
    let mut out = if args.json {
        to_json(&json)
    } else {
        text::matrix_text(&columns, events, args.seed, args.depth)
    };
    if !limited.is_empty() && !args.json {
        out.push_str(&format!(
            "\nTRUNCATED  {}: {}\n",
            limited.join(", "),
            memory_line(0, "--depth or --events").replace(" after 0 runs", "")
        ));
    }
    if let Some(dir) = &args.out {
        let write = |name: &str, content: &str| -> Result<PathBuf, CliError> {
            let path = dir.join(name);
            atomic::write(&path, content.as_bytes()).map_err(|e| {
                CliError::Usage(format!("--out: cannot write {}: {e}", path.display()))
            })?;
            Ok(path)
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::Usage(format!("--out: cannot create {}: {e}", dir.display())))?;
        let md = write(
            "matrix.md",
            &markdown::matrix_markdown(&columns, events, args.seed, args.depth),
        )?;
        let js = write("matrix.json", &to_json(&json))?;
        if !args.json {
            out.push_str(&format!("\nwrote {} and {}\n", md.display(), js.display()));
        }
    }
    Ok((out, code(held)))
}

/// Parses `A..B` into a non-empty range of at most [`sweep::MAX_SEEDS`] seeds.
fn seed_range(text: &str) -> Result<std::ops::Range<u64>, CliError> {
    let usage = || {
        CliError::Usage(format!(
            "--seeds: `{text}` is not a range; write A..B with A < B (B excluded), e.g. 0..1000"
        ))
    };
    let (a, b) = text.split_once("..").ok_or_else(usage)?;
    let (a, b): (u64, u64) = (
        a.parse().map_err(|_| usage())?,
        b.parse().map_err(|_| usage())?,
    );
    if a >= b {
        return Err(usage());
    }
    if b - a > sweep::MAX_SEEDS {
        return Err(CliError::Usage(format!(
            "--seeds: {} seeds (one run each) is over the limit of {}; split the range",
            b - a,
            sweep::MAX_SEEDS
        )));
    }
    Ok(a..b)
}

fn sweep(args: &SweepArgs) -> Result<(String, ExitCode), CliError> {
    use std::io::IsTerminal;
    let (scenario, origin) = load_scenario(&args.scenario)?;
    let seeds = seed_range(&args.seeds)?;
    let limits = SwarmLimits {
        max_crash_ppm: explore_bound("--max-crash-ppm", args.max_crash_ppm, 1_000_000)?,
        max_crashes: explore_bound("--max-crashes", args.max_crashes, bounds::MAX_CRASHES)?,
        max_failures: explore_bound("--max-failures", args.max_failures, 100)?,
        max_republishes: explore_bound("--max-republishes", args.max_republishes, 100)?,
        max_broker_faults: explore_bound("--max-broker-faults", args.max_broker_faults, 100)?,
        max_jitter_ticks: explore_bound("--max-jitter-ticks", args.max_jitter_ticks, 1_000_000)?,
        max_stall_ticks: explore_bound("--max-stall-ticks", args.max_stall_ticks, 1_000_000)?,
    };
    if args.shrink_runs < 2 || args.shrink_runs > MAX_SHRINK_RUNS {
        return Err(CliError::Usage(format!(
            "--shrink-runs: {} is out of range; allowed: 2 to {MAX_SHRINK_RUNS}",
            args.shrink_runs
        )));
    }
    let shrink_options = ShrinkOptions {
        max_runs: args.shrink_runs,
    };
    // How many findings to shrink, if any.
    let shrinking = (!args.no_shrink).then_some(args.shrink_findings);
    if seeds.end - seeds.start == 1 {
        // One seed: the full report, which is what a replay command is for.
        let (s, plan) = sweep::seeded(&scenario, seeds.start, &limits);
        let result = world::run(&s);
        let mut out = format!("sweep seed {}: {}\n", seeds.start, text::plan_text(&plan));
        let replay = origin.sweep_replay_command(seeds.start, &limits);
        out.push_str(&text::run_text(&s, &result, &replay, None));
        let failing = sweep::is_finding(&result);
        if failing && shrinking.is_some() {
            let f = sweep::Finding {
                seed: seeds.start,
                plan,
                result,
            };
            let shrunk = sweep::shrink_finding(&scenario, &f, &limits, shrink_options);
            out.push_str(&format!("\n{}\n", text::shrunk_lines(&shrunk)));
        }
        return Ok((out, code(!failing)));
    }
    let mut jsonl = match &args.out {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .append(args.append)
                .truncate(!args.append)
                .open(path)
                .map_err(|e| {
                    CliError::Usage(format!("--out: cannot create {}: {e}", path.display()))
                })?,
        ),
        None => None,
    };
    interrupt::install();
    let total = seeds.end - seeds.start;
    // The bar, and the findings printed above it, go to stdout, and only when stdout is a
    // terminal: a pipe gets plain lines, and a redirected stderr cannot swallow findings.
    let bar = std::io::stdout().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stdout(),
        );
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} runs, {per_sec}, {msg}, ETA {eta}",
            )
            .expect("a valid template"),
        );
        bar.set_message("0 findings");
        bar
    });
    let say = |line: &str| match &bar {
        Some(bar) => bar.println(line),
        None => {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{line}").and_then(|_| stdout.flush());
        }
    };
    say(&format!(
        "sweeping {} seeds {}..{} of `{}` ({}), swarm limits: crash ≤ {} ppm per step, ≤ {} crashes, \
         ≤ {} failed steps, ≤ {} republishes, ≤ {} lost acks and broker duplicates; {}",
        total,
        seeds.start,
        seeds.end,
        scenario.name,
        scenario.protocol.name,
        limits.max_crash_ppm,
        limits.max_crashes,
        limits.max_failures,
        limits.max_republishes,
        limits.max_broker_faults,
        match shrinking {
            Some(n) => format!(
                "shrinking the first {n} findings, ≤ {} runs each",
                shrink_options.max_runs
            ),
            None => "not shrinking findings".to_string(),
        }
    ));
    let mut findings = 0u64;
    let mut shrunk_findings = 0u64;
    let tick = || {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    };
    let mut start = seeds.start;
    while start < seeds.end {
        let end = (start + sweep::CHUNK).min(seeds.end);
        let chunk = sweep::sweep_chunk_until_interrupted(&scenario, start..end, &limits, &tick);
        let found = chunk.findings;
        // The chunk's findings are shrunk in parallel, each on its own, and printed in seed
        // order.
        let shrunk: Vec<Option<Shrunk>> = found
            .par_iter()
            .enumerate()
            .map(|(i, f)| {
                shrinking
                    .filter(|&n| findings + (i as u64) < n)
                    .map(|_| sweep::shrink_finding(&scenario, f, &limits, shrink_options))
            })
            .collect();
        for (f, shrunk) in found.iter().zip(shrunk) {
            findings += 1;
            let replay = origin.sweep_replay_command(f.seed, &limits);
            let exact = token::encode(&sweep::finding_scenario(&scenario, f, &limits), &[]);
            say(&format!(
                "{}\n{}",
                text::finding_line(f, &replay),
                match &shrunk {
                    Some(s) => {
                        shrunk_findings += 1;
                        text::shrunk_lines(s)
                    }
                    None => format!("    {}", token_command(&exact)),
                }
            ));
            if let Some(file) = &mut jsonl {
                let finding = json::finding_json(&scenario, f, replay, exact, shrunk.as_ref());
                let line = serde_json::to_string(&finding).expect("findings serialize");
                writeln!(file, "{line}")
                    .and_then(|_| file.flush())
                    .map_err(|e| CliError::Usage(format!("--out: cannot write: {e}")))?;
            }
            if let Some(bar) = &bar {
                bar.set_message(format!("{findings} findings"));
            }
        }
        start = chunk.done_until;
        if start < end {
            break;
        }
    }
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if start < seeds.end {
        // Interrupted: every seed before `start` ran and its findings are written; the
        // resume command runs the rest into the same file.
        let mut resume = origin.sweep_command(start..seeds.end, &limits);
        // The resumed sweep shrinks only the findings this one had left to shrink, so that
        // the two together print and write what one uninterrupted sweep would have.
        match shrinking.map(|n| n.saturating_sub(findings)) {
            None | Some(0) => resume.push_str(" --no-shrink"),
            Some(n) if n != DEFAULT_SHRINK_FINDINGS => {
                resume.push_str(&format!(" --shrink-findings {n}"))
            }
            Some(_) => {}
        }
        if !args.no_shrink && args.shrink_runs != shrink::DEFAULT_MAX_RUNS {
            resume.push_str(&format!(" --shrink-runs {}", args.shrink_runs));
        }
        if let Some(path) = &args.out {
            resume.push_str(&format!(
                " --out {} --append",
                crate::report::shell_quote(&path.display().to_string())
            ));
        }
        let summary = format!(
            "interrupted after {} of {total} seeds ({}..{start} ran): {findings} failing so far{}\n\
             resume with: {resume}\n",
            start - seeds.start,
            seeds.start,
            args.out
                .as_ref()
                .map_or(String::new(), |p| format!("; findings written to {}", p.display()))
        );
        return Ok((summary, interrupt::exit_code()));
    }
    let summary = format!(
        "swept {total} seeds: {findings} failing (lost, duplicated, dead-lettered, torn, unacked, limited, or broken at another boundary){}{}\n",
        if shrunk_findings > 0 {
            format!("; {shrunk_findings} shrunk (replay each with `delivery-sim replay TOKEN`)")
        } else {
            String::new()
        },
        args.out
            .as_ref()
            .map_or(String::new(), |p| format!("; findings written to {}", p.display()))
    );
    Ok((summary, code(findings == 0)))
}

/// `replay TOKEN`: the exact run of a token, reported as `run` reports it.
fn replay(args: &ReplayArgs) -> Result<(Printed, ExitCode), CliError> {
    let token::Replay { scenario, schedule } = token::decode(&args.token)?;
    let result = world::run_scheduled(&scenario, world::RunOptions::default(), &schedule);
    refuse_unknown_choices(&result, &schedule, "the replay token's schedule")?;
    let token = args.token.trim();
    let command = token_command(token);
    let failure = result.failure();
    if let Some(path) = &args.scenario_out {
        let mut file = scenario.clone();
        file.description = text::regression_description(&result, &failure, token, &schedule);
        file.expect = Some(check::pinned_expect(
            &result.verdict,
            scenario.workload.republish_altered.len(),
        ));
        let json = file.to_json();
        // What is written must load, and hold against the run it pins.
        let back = Scenario::from_json(&json, &path.display().to_string())?;
        assert!(
            back == file
                && check::failed_expectations(
                    back.expect.as_ref().expect("pinned"),
                    &result.verdict
                )
                .is_empty(),
            "a pinned scenario loads and holds"
        );
        write_atomically(path, &json, "--scenario-out")?;
    }
    let mut out = String::new();
    if args.json {
        let mut j = json::run_json(&scenario, &result, &Origin::File(String::new()), &[], None);
        j.replay = command;
        out.push_str(&to_json(&j));
    } else {
        out.push_str(&text::run_text(&scenario, &result, &command, None));
        if let Some(path) = &args.scenario_out {
            out.push_str(&format!(
                "wrote {} (its expect pins this run: {})\n",
                path.display(),
                failure
            ));
        }
        if args.trace {
            return Ok((trace_then(result, out), code(failure.is_empty())));
        }
    }
    Ok((out.into(), code(failure.is_empty())))
}

/// Writes the JUnit report of `reports` to `path` (`--junit`), atomically.
fn write_junit(path: &Path, name: &str, reports: &[FileReport]) -> Result<(), CliError> {
    write_atomically(path, &junit::junit_xml(name, reports), "--junit")
}

/// A path's file name, for a report row.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A scheduling choice that named no alternative is bad input.
fn refuse_unknown_choices(
    result: &RunResult,
    schedule: &[u32],
    what: &str,
) -> Result<(), CliError> {
    match result
        .decisions
        .iter()
        .zip(schedule)
        .find(|(d, &c)| c >= d.alternatives)
    {
        Some((d, c)) => Err(CliError::Usage(format!(
            "{what}: choice {c} at a decision with {} alternatives",
            d.alternatives
        ))),
        None => Ok(()),
    }
}

/// Writes `content` to `path` whole or not at all: into a temporary file beside it, then
/// renamed over it, so that a reader (a CI job collecting reports) never sees half a file.
fn write_atomically(path: &Path, content: &str, flag: &str) -> Result<(), CliError> {
    atomic::write(path, content.as_bytes())
        .map_err(|e| CliError::Usage(format!("{flag}: cannot write {}: {e}", path.display())))
}

/// The hard ceiling on `--shrink-runs`.
const MAX_SHRINK_RUNS: u64 = 1_000_000;

fn explore_bound(flag: &str, value: u32, max: u32) -> Result<u32, CliError> {
    if value > max {
        return Err(CliError::Usage(format!(
            "{flag}: {value} is out of range; allowed: 0 to {max}"
        )));
    }
    Ok(value)
}

/// Parses `0,1,1` into scheduling choices.
fn parse_schedule(text: &str) -> Result<Vec<u32>, CliError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|c| {
            c.trim().parse::<u32>().map_err(|_| {
                CliError::Usage(format!(
                    "--schedule: `{text}` is not a list of choices; write e.g. 0,1,1"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|v| {
            if v.len() > 100_000 {
                Err(CliError::Usage("--schedule: at most 100000 choices".into()))
            } else {
                Ok(v)
            }
        })
}

/// A replay command with `--schedule` when the schedule departs from the default.
fn replay_with_schedule(command: String, schedule: &[u32]) -> String {
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
fn checked_interleavings(
    scenario: &Scenario,
    max_preemptions: Option<usize>,
    max_interleavings: u64,
    with_crashes: bool,
) -> Result<(explore::Interleavings, Option<Vec<String>>), CliError> {
    if scenario.consumers < 2 {
        return Err(CliError::Usage(format!(
            "--interleavings: `{}` has one consumer, so its steps have one order; set \
             \"consumers\" to 2 or more",
            scenario.name
        )));
    }
    let expect = scenario
        .expect
        .as_ref()
        .and_then(|e| e.interleavings.as_ref());
    let max_preemptions = max_preemptions
        .or(expect.and_then(|e| e.max_preemptions))
        .unwrap_or(explore::DEFAULT_MAX_PREEMPTIONS);
    if max_preemptions > bounds::MAX_PREEMPTIONS {
        return Err(CliError::Usage(format!(
            "--max-preemptions: {max_preemptions} is out of range; allowed: 0 to {}",
            bounds::MAX_PREEMPTIONS
        )));
    }
    if max_interleavings == 0 || max_interleavings > MAX_SCHEDULES_CEILING {
        return Err(CliError::Usage(format!(
            "--max-interleavings: {max_interleavings} is out of range; allowed: 1 to \
             {MAX_SCHEDULES_CEILING}"
        )));
    }
    let (estimate, choices) =
        explore::estimate_interleavings(scenario, max_preemptions, with_crashes);
    if with_crashes && estimate > u128::from(max_interleavings) {
        return Err(CliError::Usage(format!(
            "--interleavings --with-crashes on `{}` may need up to {estimate} runs (every \
             interleaving within {max_preemptions} preemption(s), once per crash point), over \
             the limit of {max_interleavings}; lower --max-preemptions or the number of \
             events, or raise --max-interleavings (at most {MAX_SCHEDULES_CEILING})",
            scenario.name
        )));
    }
    // The runs kept (at most --max-interleavings) each keep their schedule.
    let kept = estimate.min(u128::from(max_interleavings)) * choices;
    if kept > explore::MAX_INTERLEAVING_CHOICES {
        return Err(CliError::Usage(format!(
            "--interleavings on `{}`: its default run makes {} scheduling decisions (a run \
             that long is usually a livelock: see `run`), and up to {} interleavings of it \
             would keep {kept} choices, over the {} this command keeps within its memory \
             budget; lower --max-preemptions, --max-interleavings, limits.max_steps or the \
             number of events",
            scenario.name,
            choices - 1,
            estimate.min(u128::from(max_interleavings)),
            explore::MAX_INTERLEAVING_CHOICES
        )));
    }
    let x = explore::interleavings(scenario, max_preemptions, max_interleavings, with_crashes);
    // The expected counts are for the interleavings alone.
    let mut failures = expect
        .filter(|_| !with_crashes)
        .map(|e| explore::failed_interleaving_expectations(e, &x));
    if x.liveness_failed_runs > 0 {
        failures
            .get_or_insert_with(Vec::new)
            .push(liveness_line(x.liveness_failed_runs, x.runs.len()));
    }
    if x.memory_limited {
        failures.get_or_insert_with(Vec::new).push(memory_line(
            x.runs.len(),
            "--max-preemptions, --max-interleavings or the number of events",
        ));
    }
    Ok((x, failures))
}

/// The failure of an exploration the memory budget for kept runs stopped after `runs`
/// runs; `lower` names what to lower.
fn memory_line(runs: usize, lower: &str) -> String {
    format!(
        "limit: the exploration stopped after {runs} runs, at the {} MiB its kept runs may \
         take (every command stays within 1 GiB): what it says covers those runs only; lower \
         {lower}",
        explore::budget::KEPT_RUNS_BYTES >> 20
    )
}

fn interleavings(
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
        text::interleavings_text(scenario, &x, &replays, failures.as_deref())
    };
    Ok((out, code(held)))
}

/// `command` with `--inbox-ttl-ticks T` when a TTL overrides the scenario's.
/// `--inbox-ttl-ticks`: the scenario with that inbox TTL, retention enabled if needed.
fn ttl_override(scenario: &mut Scenario, ttl: Option<u64>) -> Result<(), CliError> {
    if let Some(ttl) = ttl {
        if ttl > bounds::MAX_DELAY_TICKS {
            return Err(CliError::Usage(format!(
                "--inbox-ttl-ticks: {ttl} is out of range; allowed: 0 to {}",
                bounds::MAX_DELAY_TICKS
            )));
        }
        *scenario = explore::retention::with_ttl(scenario, ttl);
    }
    Ok(())
}

fn with_ttl_flag(command: String, ttl: Option<u64>) -> String {
    match ttl {
        Some(ttl) => format!("{command} --inbox-ttl-ticks {ttl}"),
        None => command,
    }
}

/// Searches `scenario`'s smallest safe inbox TTL, each candidate verified to crash depth
/// `depth` (0: its own run only), and compares the result with its
/// `expect.smallest_safe_ttl`: the failed expectations, or `None` when it pins none. What
/// `explore FILE --smallest-safe-ttl` does, and the `smallest safe TTL` check of `run DIR`.
fn checked_ttl_search(
    scenario: &Scenario,
    depth: usize,
    max_schedules: u64,
) -> Result<(explore::retention::TtlSearch, Option<Vec<String>>), CliError> {
    if scenario.store.retention.is_none() {
        return Err(CliError::Usage(format!(
            "--smallest-safe-ttl: `{}` has no inbox retention; set \"store\": {{\"inbox_ttl_ticks\": \
             N}} (the search starts from N and keeps the cleanup schedule)",
            scenario.name
        )));
    }
    // Depth 0 verifies each TTL by the scenario's own run only; deeper, like `explore`, and
    // the search may explore up to MAX_CANDIDATES times.
    if depth > 0 {
        explore_options(scenario, depth, max_schedules)?;
        let steps = explore::estimate(scenario, depth)
            .steps
            .saturating_mul(explore::retention::MAX_CANDIDATES);
        if steps > bounds::MAX_EXPLORE_STEPS {
            return Err(CliError::Usage(format!(
                "--smallest-safe-ttl on `{}` explores each TTL it tries to depth {depth}, up to \
                 {} of them, about {steps} consumer steps in all, over the {} one command may \
                 take; lower --depth or the number of events",
                scenario.name,
                explore::retention::MAX_CANDIDATES,
                bounds::MAX_EXPLORE_STEPS
            )));
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

fn smallest_safe_ttl(
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
        text::ttl_search_text(scenario, &search, replay.as_deref(), failures.as_deref())
    };
    Ok((out, code(held)))
}
