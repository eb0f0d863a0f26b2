//! The command line: parses arguments (clap), turns them into a validated scenario, runs,
//! prints, and maps the result to an exit code: 0 when expectations held (or there were
//! none), 1 when one failed, 2 for a usage or input error.
//!
//! The checks a command makes (run a scenario and compare with its `expect`, explore it to
//! a depth, enumerate its interleavings) are functions here that `run DIR` ([`folder`])
//! calls for each file too, so a folder is checked exactly as its files are one by one.

mod args;
mod arguments;
mod atomic;
mod command;
mod crosscheck;
mod flags;
mod folder;
mod interrupt;
mod serve;

pub use args::*;
use command::*;
pub use flags::Given;

use crate::check;
use crate::check::{ExpectationFailure, Explored, Judgement};
use crate::explore;
use crate::explore::shrink::{self, ShrinkOptions, Shrunk};
use crate::explore::sweep::{self, SwarmLimits};
use crate::fault::CrashSpec;
use crate::model::{BoundaryPoint, Guarantee, Protocol, StepActor};
use crate::producer::Identity;
use crate::report::folder::FileReport;
use crate::report::input::{
    Act, Budget, ChoiceSource, CrashWhy, EngineUse, FileCommand, FlagWhy, Form, Io, Usage,
};
use crate::report::lang::{Lang, SweepHead};
use crate::report::paint::Paint;
use crate::report::{diagram, explain, html, json, junit, markdown, text, token_command, Origin};
use crate::scenario::token;
use crate::scenario::{bounds, Scenario};
use crate::view;
use crate::world::{self, RunResult};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// An error that ends the command with exit code 2 (see [`InputError`]).
pub use crate::report::input::InputError as CliError;

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
    use clap::{CommandFactory, FromArgMatches};
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let matches = match Cli::command().try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => return arguments::refuse(e, &args),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return arguments::refuse(e, &args),
    };
    let given = flags::Given::of(&matches);
    // Whatever way the command ends (an error, a panic unwinding through here), the
    // PostgreSQL cluster it may have started is stopped and its scratch databases dropped.
    let _server = ServerGuard;
    // Quitting on Ctrl-C stops the server under the runs in progress: what they then fail
    // with is not the command's to report (the handler exits with 130).
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !interrupt::quitting() {
            report(info)
        }
    }));
    match execute(&cli.command, &given) {
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
            let lang = cli.command.lang();
            eprintln!(
                "error: {}",
                crate::report::lang::input::input_error(&e, lang)
            );
            ExitCode::from(2)
        }
    }
}

/// Stops the PostgreSQL server the command started, when dropped.
struct ServerGuard;

impl Drop for ServerGuard {
    fn drop(&mut self) {
        // The Ctrl-C handler is stopping the server and will exit with 130: the command's
        // own end (a result, or a failure the stopped server caused) must not come first.
        while interrupt::quitting() {
            std::thread::park();
        }
        crate::store::pg::server::shutdown();
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

/// Runs a command and returns what to print and the exit code. `given` says which flags
/// the command line gave (a flag with a default may mean nothing where it is given): each
/// is checked against the command before any work, and against the scenario once it is
/// read.
pub fn execute(command: &Command, given: &Given) -> Result<(Printed, ExitCode), CliError> {
    flags::check(command, given)?;
    if let Some(engine) = command.engine() {
        engine.apply();
    }
    // Any command may start a PostgreSQL server, for a file on `"engine": "postgres"`
    // (`serve` for a pasted one): Ctrl-C stops it and removes its directory.
    interrupt::install_for_server();
    let text = |r: Result<(String, ExitCode), CliError>| r.map(|(t, c)| (Printed::Text(t), c));
    match command {
        Command::Protocols(args) => {
            let out = if args.json {
                to_json(&crate::report::protocols::json())
            } else {
                crate::report::protocols::text(language(args.lang))
            };
            Ok((out.into(), ExitCode::SUCCESS))
        }
        Command::Run(args) => run(args, given),
        Command::Explain(args) => text(explain_command(args, given)),
        Command::Explore(args) => explore(args, given),
        Command::Matrix(args) => text(matrix(args)),
        Command::Sweep(args) => text(sweep(args)),
        Command::Crosscheck(args) => text(crosscheck::crosscheck(args)),
        Command::Replay(args) => replay(args),
        Command::Completions(args) => Ok((completions(args.shell).into(), ExitCode::SUCCESS)),
        Command::Serve(args) => text(serve::serve(args)),
        Command::Bench(args) => {
            refuse_out_for_a_folder("bench", &args.out)?;
            let cannot = |path: &Path, e: std::io::Error| {
                CliError::usage(cannot_write("--out-dir", path, Act::Write, e))
            };
            // The folder is made before minutes of measuring, not found missing after.
            if let Some(dir) = &args.out_dir {
                std::fs::create_dir_all(dir).map_err(|e| cannot(dir, e))?;
            }
            let figures = crate::bench::run();
            let report = figures.markdown();
            if let Some(dir) = &args.out_dir {
                let path = dir.join("BENCHMARKS.md");
                atomic::write(&path, report.as_bytes()).map_err(|e| cannot(&path, e))?;
                // A status line, not a result: stderr.
                eprintln!("wrote {}", path.display());
            }
            let out = if args.json { to_json(&figures) } else { report };
            Ok((out.into(), ExitCode::SUCCESS))
        }
    }
}

/// `--out` names a file in every command (`run --diagram`'s drawing, `sweep`'s findings);
/// a command that writes several files into a folder takes `--out-dir`.
fn refuse_out_for_a_folder(command: &str, out: &Option<PathBuf>) -> Result<(), CliError> {
    match out {
        None => Ok(()),
        Some(path) => Err(CliError::usage(Usage::OutForAFolder {
            path: path.display().to_string(),
            command: command.to_string(),
        })),
    }
}

/// Whether the expectations held: there were none, or none failed.
fn held(failures: &Option<Vec<ExpectationFailure>>) -> bool {
    failures.as_ref().is_none_or(|f| f.is_empty())
}

fn code(held: bool) -> ExitCode {
    if held {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// A command's JSON document: `value` after its `schema_version`, pretty, one newline.
fn to_json<T: serde::Serialize>(value: &T) -> String {
    let document = json::Document::new(value);
    let mut s = serde_json::to_string_pretty(&document).expect("report types serialize");
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
    let (scenario, origin) = load_either(source)?;
    engine_fits(source, &scenario)?;
    Ok((scenario, origin))
}

/// The engine flags against the scenario read: `--engine postgres` or `--isolation` on a
/// built-in protocol on SQLite,
/// and `--database-url` on a scenario that runs on SQLite.
fn engine_fits(source: &ScenarioArgs, scenario: &Scenario) -> Result<(), CliError> {
    let e = &source.engine;
    if source.protocol.is_some() && e.isolation.is_some() && e.engine != Some(EngineArg::Postgres) {
        return Err(CliError::usage(EngineUse::IsolationOnSqlite));
    }
    if e.database_url.is_some() && scenario.store.engine == crate::model::Engine::Sqlite {
        return Err(CliError::usage(EngineUse::DatabaseUrlOnSqlite {
            scenario: scenario.name.clone(),
        }));
    }
    Ok(())
}

fn load_either(source: &ScenarioArgs) -> Result<(Scenario, Origin), CliError> {
    match (&source.file, &source.protocol) {
        (Some(path), _) if path.is_dir() => Err(CliError::usage(Usage::IsAFolder {
            path: path.display().to_string(),
            command: FileCommand::OneFile,
        })),
        (Some(path), _) => Ok((
            Scenario::from_file(path)?,
            Origin::File(path.display().to_string()),
        )),
        (None, Some(name)) => {
            let protocol = Protocol::built_in(name).ok_or_else(|| {
                CliError::usage(Usage::UnknownProtocol {
                    name: name.clone(),
                    known: Protocol::built_in_names(),
                })
            })?;
            let events = events_arg("--events", source.events)?;
            let mut s = Scenario::new(protocol);
            s.workload.events = events;
            on_the_chosen_engine(&mut s)?;
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

/// A built-in protocol's scenario on the engine and level the command line chose (a file
/// reads them when it loads); on PostgreSQL, the server is started now, so that a machine
/// without one is told before any work.
fn on_the_chosen_engine(s: &mut Scenario) -> Result<(), CliError> {
    let (engine, isolation) = crate::scenario::engine_overridden();
    if engine == Some(crate::model::Engine::Postgres) {
        s.store.engine = crate::model::Engine::Postgres;
        s.store.isolation = isolation.unwrap_or_default();
        crate::store::pg::ready().map_err(not_ready)?;
    }
    Ok(())
}

fn events_arg(flag: &str, events: u64) -> Result<usize, CliError> {
    Ok(within(flag, events, 1, bounds::MAX_EVENTS)? as usize)
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
    source: ChoiceSource,
) -> Result<(), CliError> {
    match result
        .decisions
        .iter()
        .zip(schedule)
        .find(|(d, &c)| c >= d.alternatives)
    {
        Some((d, &choice)) => Err(CliError::usage(Usage::NoSuchChoice {
            source,
            choice,
            alternatives: d.alternatives,
        })),
        None => Ok(()),
    }
}

/// Writes `content` to `path` whole or not at all: into a temporary file beside it, then
/// renamed over it, so that a reader (a CI job collecting reports) never sees half a file.
fn write_atomically(path: &Path, content: &str, flag: &str) -> Result<(), CliError> {
    atomic::write(path, content.as_bytes())
        .map_err(|e| CliError::usage(cannot_write(flag, path, Act::Write, e)))
}

/// `flag`'s file or folder at `path` that cannot be written or made (`act`).
fn cannot_write(flag: &str, path: &Path, act: Act, e: std::io::Error) -> Usage {
    Usage::CannotWrite {
        flag: flag.to_string(),
        path: Some(path.display().to_string()),
        act,
        io: Io::from(e),
    }
}

/// `value` of `flag` when it is within `min..=max`, else the error naming the bounds: the one
/// check every numeric flag with bounds goes through.
fn within(flag: &str, value: u64, min: u64, max: u64) -> Result<u64, CliError> {
    match (min..=max).contains(&value) {
        true => Ok(value),
        false => Err(CliError::usage(Usage::OutOfRange {
            flag: flag.to_string(),
            value,
            min,
            max,
        })),
    }
}

/// The PostgreSQL server is not ready: its reason, as the engine gives it.
fn not_ready(detail: String) -> CliError {
    CliError::usage(EngineUse::NotReady { detail })
}

/// The completion script for `shell`. clap_complete (4.6.12, the newest) names the bash
/// states of a hyphenated binary's subcommands two ways (clap-rs/clap#6421): the loop
/// builds `delivery__sim__subcmd__run`, the case arms say `delivery__subcmd__sim__subcmd__run`,
/// so no arm ever matched and only subcommand names completed. The arms are renamed to the
/// loop's spelling, which is the binary's name escaped alone (`delivery__sim`), as upstream's
/// fix does.
fn completions(shell: clap_complete::Shell) -> String {
    use clap::CommandFactory;
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "delivery-sim", &mut out);
    let script = String::from_utf8(out).expect("completion scripts are UTF-8");
    match shell {
        clap_complete::Shell::Bash => script.replace("delivery__subcmd__sim", "delivery__sim"),
        _ => script,
    }
}
