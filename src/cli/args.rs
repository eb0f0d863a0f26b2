//! The command line's arguments: every command and flag, as clap parses them. A flag means
//! the same thing in every command that takes it.

use super::*;

pub(super) const EXAMPLES: &str = "\
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
    /// Run one scenario, report what happened to every event, and make every other check
    /// its file pins (explorations, interleavings, smallest safe TTL). Given a folder, run every
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

Given a file, `run` also makes every other check the file's `expect` pins, as with a folder
(unless --seed, --crash, --schedule or --inbox-ttl-ticks change the run, or --diagram draws
it). With a folder, the exit code is 2 if any file is bad input (the others still run), else 1
if any expectation failed, else 0.")]
    #[command(mut_arg("file", |a| a.help("A scenario file (JSON), or a folder of them (every *.json directly in it)")))]
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
    #[command(mut_arg("protocol", |a| a.help("Instead of a file: a built-in protocol with default settings; each seed draws its own faults")))]
    Sweep(SweepArgs),
    /// Every built-in protocol against every single crash point, as a table.
    #[command(after_help = "Examples:
  delivery-sim matrix
  delivery-sim matrix --events 5 --json")]
    Matrix(MatrixArgs),
    /// List the built-in protocols with their steps.
    Protocols(ProtocolsArgs),
    /// Cross-check the simulator's crash model against reality: for the crash-free run
    /// and every single crash point, run the scenario once simulated and once with the
    /// consumer's connection held by a real process on a real SQLite file, killed with
    /// SIGKILL at the crash point; compare the two (the consumer's steps, what was committed
    /// at the crash, the verdict) and time them. One consumer, a direct producer.
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
    /// Serve the classroom page on 127.0.0.1 with a scenario editor: paste or edit a
    /// scenario (the files of scenarios/ are one click away), run it or explore it, and
    /// step through the runs. Loopback only; writes no file; runs until stopped.
    #[command(after_help = "Examples:
  delivery-sim serve                 (then open the address it prints)
  delivery-sim serve --port 0        (any free port)")]
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port to listen on, on 127.0.0.1 only (0: any free port; the address is printed).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// The language the page opens in (default: the environment's, else English); it
    /// switches between English and Spanish.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
}

#[derive(Debug, Args)]
pub struct ProtocolsArgs {
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// The language of the listing (default: the environment's, else English). The JSON is
    /// the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
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
    /// The language of the text report (default: the environment's, else English). The
    /// JSON, and the file --scenario-out writes, are the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
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
    pub out_dir: Option<PathBuf>,
    /// Print the result as JSON (the figures BENCHMARKS.md is written from) instead of
    /// Markdown.
    #[arg(long)]
    pub json: bool,
    /// Refused with a pointer to --out-dir: `--out` names a file in every command.
    #[arg(long, value_name = "DIR", hide = true)]
    pub out: Option<PathBuf>,
}

/// Where the scenario comes from: a file, or a built-in protocol with default settings.
/// One of the two is required, which the usage line shows as `<FILE|--protocol <NAME>>`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("scenario").required(true).args(["file", "protocol"])))]
pub struct ScenarioArgs {
    /// A scenario file (JSON).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Instead of a file: a built-in protocol with default settings and no planned faults.
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    pub protocol: Option<String>,
    /// With --protocol: how many events to publish.
    #[arg(long, requires = "protocol", default_value_t = 3)]
    pub events: u64,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The database engine a scenario runs on, over what its file says.
#[derive(Debug, Args, Default)]
pub struct EngineArgs {
    /// Run the consumers' database on this engine instead of the file's `store.engine`:
    /// sqlite (in-process, the default) or postgres (a private throwaway cluster the tool
    /// starts from the PostgreSQL binaries on the machine, or --database-url's server).
    #[arg(long, value_enum, value_name = "ENGINE")]
    pub engine: Option<EngineArg>,
    /// On PostgreSQL: the isolation level of every connection, instead of the file's
    /// `store.isolation` (default read-committed, as PostgreSQL's).
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub isolation: Option<IsolationArg>,
    /// On PostgreSQL: an existing server to run on instead of a cluster of the tool's own
    /// (also DELIVERY_SIM_DATABASE_URL). The tool creates and drops only databases named
    /// delivery_sim_scratch_*, and touches no other.
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    Sqlite,
    Postgres,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IsolationArg {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl EngineArgs {
    /// Makes every scenario this command reads run as these flags say.
    pub fn apply(&self) {
        use crate::store::pg::{Engine, Isolation};
        let engine = self.engine.map(|e| match e {
            EngineArg::Sqlite => Engine::Sqlite,
            EngineArg::Postgres => Engine::Postgres,
        });
        let isolation = self.isolation.map(|i| match i {
            IsolationArg::ReadCommitted => Isolation::ReadCommitted,
            IsolationArg::RepeatableRead => Isolation::RepeatableRead,
            IsolationArg::Serializable => Isolation::Serializable,
        });
        crate::scenario::override_engine(engine, isolation);
        crate::store::pg::server::use_url(self.database_url.clone());
    }
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
    /// Also write the run (its diagram, its story, its verdict) as one self-contained HTML page to this file: open it in a
    /// browser, offline, to click through it step by step. It opens in --lang's language and
    /// switches between English and Spanish.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write the checks as JUnit XML to this file (one test case per check of each
    /// scenario; written whole or not at all).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Claim this guarantee, as the file's `expect.guarantee` does (and for every check it
    /// pins): exit 1 when the run, or any pinned exploration or interleavings, shows another.
    #[arg(long, value_enum, value_name = "GUARANTEE")]
    pub expect: Option<GuaranteeArg>,
    /// The language of the text report (default: the environment's, else English). The
    /// JSON is the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
}

/// `--expect`: a guarantee claimed on the command line, as `expect.guarantee` in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GuaranteeArg {
    /// Every event's effect committed exactly once.
    ExactlyOnce,
    /// No event lost; some may be duplicated.
    AtLeastOnce,
    /// No event duplicated; some may be lost.
    AtMostOnce,
    /// Events lost and others duplicated.
    #[value(name = "none")]
    NoGuarantee,
}

impl GuaranteeArg {
    pub fn guarantee(self) -> Guarantee {
        match self {
            GuaranteeArg::ExactlyOnce => Guarantee::ExactlyOnce,
            GuaranteeArg::AtLeastOnce => Guarantee::AtLeastOnce,
            GuaranteeArg::AtMostOnce => Guarantee::AtMostOnce,
            GuaranteeArg::NoGuarantee => Guarantee::None,
        }
    }
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

impl LangArg {
    /// The flag's value, as a command line writes it.
    pub fn code(self) -> &'static str {
        match self {
            LangArg::En => "en",
            LangArg::Es => "es",
        }
    }
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
    /// Print the told run as JSON: the verdict and each crash typed as `run --json` has
    /// them, and the told words, in --lang's language.
    #[arg(long)]
    pub json: bool,
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
    #[arg(long)]
    pub max_preemptions: Option<usize>,
    /// With --interleavings: also every single crash point (each interleaving again with
    /// one crash at each boundary the default schedule reached).
    #[arg(long)]
    pub with_crashes: bool,
    /// Instead of one exploration: the interleavings (as --interleavings, shaped by the
    /// same flags) on SQLite and on PostgreSQL at each isolation level, one row each, and
    /// the weakest level at which the protocol holds. The file is read once per engine.
    #[arg(long, conflicts_with_all = ["interleavings", "smallest_safe_ttl", "html", "no_prune", "depth", "expect"])]
    pub isolation_ladder: bool,
    /// Instead of one exploration: search the smallest inbox TTL (store.inbox_ttl_ticks)
    /// for which no run duplicates an event, by bisection over ticks; each TTL is verified
    /// by the scenario's own run and every schedule of up to --depth crashes (0: the own
    /// run only).
    #[arg(long, conflicts_with = "interleavings")]
    pub smallest_safe_ttl: bool,
    /// With --interleavings: the most interleavings to run.
    #[arg(long, default_value_t = explore::DEFAULT_MAX_INTERLEAVINGS)]
    pub max_interleavings: u64,
    /// Claim this guarantee over every run explored (every interleaving with
    /// --interleavings), as the file's `expect.guarantee` does: exit 1 when they show another.
    #[arg(long, value_enum, value_name = "GUARANTEE")]
    pub expect: Option<GuaranteeArg>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the exploration as one self-contained HTML page to this file: every run
    /// listed, and the failing ones first among those it tells step by step. Open it in a
    /// browser, offline; it opens in --lang's language and switches between English and
    /// Spanish. (Crash explorations only.)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["interleavings", "smallest_safe_ttl"])]
    pub html: Option<PathBuf>,
    /// The language of the text report (default: the environment's, else English). The
    /// JSON is the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
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
    /// Print the result as JSON: one document, written as the sweep goes, with each finding
    /// (as --out writes them) and the summary; the progress bar goes to stderr.
    #[arg(long)]
    pub json: bool,
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
    /// The language of the text report (default: the environment's, else English). The
    /// JSON, and the lines --out writes, are the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
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
    /// Also write matrix.md (failure-point tables), matrix.json and matrix.html (the
    /// clickable page of --html) into this directory.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Refused with a pointer to --out-dir: `--out` names a file in every command.
    #[arg(long, value_name = "DIR", hide = true)]
    pub out: Option<PathBuf>,
    /// Also write the matrix (each cell opens its run) as one self-contained HTML page to this file: open it in a
    /// browser, offline, to click through it step by step. It opens in --lang's language and
    /// switches between English and Spanish.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Seed of every run (event ids and accounts).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The language of the printed table (default: the environment's, else English).
    /// matrix.md and the JSON are the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

impl Command {
    /// The engine flags of a command that reads a scenario.
    pub fn engine(&self) -> Option<&EngineArgs> {
        match self {
            Command::Run(a) => Some(&a.source.scenario.engine),
            Command::Explain(a) => Some(&a.source.scenario.engine),
            Command::Explore(a) => Some(&a.source.scenario.engine),
            Command::Sweep(a) => Some(&a.scenario.engine),
            Command::Matrix(a) => Some(&a.engine),
            Command::Crosscheck(a) => Some(&a.source.scenario.engine),
            _ => None,
        }
    }

    /// The language the command's words are read in, its errors included: `--lang`, else
    /// the environment's (a command without `--lang` speaks the environment's).
    pub fn lang(&self) -> crate::report::lang::Lang {
        let asked = match self {
            Command::Run(a) => a.lang,
            Command::Explain(a) => a.lang,
            Command::Explore(a) => a.lang,
            Command::Sweep(a) => a.lang,
            Command::Matrix(a) => a.lang,
            Command::Protocols(a) => a.lang,
            Command::Crosscheck(a) => a.lang,
            Command::Replay(a) => a.lang,
            Command::Serve(a) => a.lang,
            Command::Bench(_) | Command::Completions(_) => None,
        };
        super::language(asked)
    }
}
