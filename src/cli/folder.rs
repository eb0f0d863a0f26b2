//! `run DIR`: every scenario file of a folder, each checked as its own commands would check
//! it. For each `*.json` file directly in the folder, in file-name order: the plain run with
//! the scenario's own seed against its `expect` (as `run FILE`), each pinned exploration
//! depth (`expect.explore`, as `explore FILE --depth D`), the pinned interleavings
//! (`expect.interleavings`, as `explore FILE --interleavings`), and the pinned smallest
//! safe TTL (`expect.smallest_safe_ttl`, as `explore FILE --smallest-safe-ttl --depth D`).
//!
//! Files are checked in parallel (rayon) and collected in file-name order before anything
//! is printed, so the output is the same for any number of threads. On a terminal, a
//! progress bar on stderr counts the files checked, and is cleared before the report. A
//! bad file does not stop the others: it is reported as an input error, and the exit code
//! is 2 if any file is bad input, else 1 if any expectation failed, else 0.

use super::{
    checked_exploration, checked_interleavings, checked_run, checked_ttl_search, code, to_json,
    CliError, RunArgs,
};
use crate::check::ExpectationFailure;
use crate::check::{CheckKind, Judgement};
use crate::explore;
use crate::explore::threads;
use crate::model::Guarantee;
use crate::report::checks::FileCheck;
use crate::report::folder::{self, FileReport, FileResult, PlainRun, Totals};
use crate::report::input::{Io, Refused, Usage};
use crate::report::Origin;
use crate::scenario::Scenario;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The most threads the files may be checked on at once: the fewest any of them may run on
/// (see [`threads::bound`]); `None` when no file has its own schema.
fn threads_for(files: &[PathBuf]) -> Option<usize> {
    let load = |path: &PathBuf| {
        let text = std::fs::read_to_string(path).ok()?;
        Scenario::from_json(&text, &path.display().to_string()).ok()
    };
    files
        .iter()
        .filter_map(load)
        .filter_map(|s| threads::bound(&s))
        .min()
}

/// Runs and checks every scenario file of `dir`, and prints the table (or the JSON).
pub(super) fn run_folder(dir: &Path, args: &RunArgs) -> Result<(String, ExitCode), CliError> {
    let files = scenario_files(dir)?;
    let bar = progress_bar(files.len() as u64);
    let check_all = || {
        (files.par_iter())
            .map(|path| {
                let report = check_file(path);
                if let Some(bar) = &bar {
                    bar.inc(1);
                }
                report
            })
            .collect()
    };
    let reports: Vec<FileReport> = threads::within(threads_for(&files), check_all);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let folder = dir.display().to_string();
    let totals = Totals::of(&reports);
    if totals.input_errors > 0 {
        // The paragraphs themselves are in the report; stderr says that there are some, as
        // every other input error of this command does.
        let names: Vec<&str> = reports
            .iter()
            .filter(|r| r.result() == FileResult::InputError)
            .map(|r| r.name.as_str())
            .collect();
        let lang = super::language(args.lang);
        let line = lang.folder_bad_input(
            totals.input_errors,
            totals.scenarios,
            &folder,
            &names.join(", "),
        );
        eprintln!("error: {line}");
    }
    if let Some(junit) = &args.junit {
        super::write_junit(junit, &format!("delivery-sim run {folder}"), &reports)?;
    }
    let out = if args.json {
        to_json(&folder::folder_json(&folder, &reports))
    } else {
        folder::folder_text(super::language(args.lang), &folder, &reports)
    };
    let exit = if totals.input_errors > 0 {
        ExitCode::from(2)
    } else {
        code(totals.failed == 0)
    };
    Ok((out, exit))
}

/// A progress bar over `total` files, on stderr when it is a terminal (a status, not a
/// result: stdout stays the report), cleared when the files are checked.
fn progress_bar(total: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} scenario files, ETA {eta}")
            .expect("a valid template"),
    );
    Some(bar)
}

/// The `*.json` files directly in `dir` (not in its subfolders; hidden files left out, as
/// a shell's `*.json` would), sorted by file name.
fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let cannot = |e: std::io::Error| {
        CliError::usage(Usage::CannotReadFolder {
            path: dir.display().to_string(),
            io: Io::from(e),
        })
    };
    let mut files: Vec<(std::ffi::OsString, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name();
        let path = entry.path();
        let hidden = name.as_encoded_bytes().starts_with(b".");
        if !hidden && path.extension().is_some_and(|x| x == "json") && path.is_file() {
            files.push((name, path));
        }
    }
    if files.is_empty() {
        return Err(CliError::usage(Usage::EmptyFolder {
            path: dir.display().to_string(),
        }));
    }
    files.sort();
    Ok(files.into_iter().map(|(_, path)| path).collect())
}

/// Loads one file and makes every check its `expect` asks for.
fn check_file(path: &Path) -> FileReport {
    let mut report = FileReport {
        path: path.display().to_string(),
        name: path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        run: None,
        checks: Vec::new(),
        error: None,
    };
    let scenario = match Scenario::from_file(path) {
        Ok(s) => s,
        Err(e) => {
            report.error = Some(e.into());
            return report;
        }
    };
    let origin = Origin::File(report.path.clone());
    if let Err(e) = make_checks(&scenario, &origin, &mut report) {
        report.error = Some(CliError::Pinned {
            path: report.path.clone(),
            refused: e,
        });
    }
    report
}

/// The checks of one scenario, pushed onto `report` as they are made; stops at the first
/// that is bad input and says which field asked for it.
fn make_checks(
    scenario: &Scenario,
    origin: &Origin,
    report: &mut FileReport,
) -> Result<(), Refused> {
    let seed = scenario.seed;
    // Files run in parallel, and a run may be as long as the trace limit: only the
    // trace's hash is kept, so that the runs in flight stay small.
    let hash_only = crate::world::RunOptions {
        hash_only: true,
        ..crate::world::RunOptions::default()
    };
    let (result, failures) = checked_run(scenario, &[], hash_only);
    add_run(
        report,
        scenario,
        &result,
        failures,
        origin.replay_command(seed, &[]),
    );
    pinned_checks(scenario, origin, &mut report.checks)
}

/// Puts `scenario`'s plain run `result` in `report`, and its `run` check when there is one
/// (`failures` is `None` only when the scenario states nothing and the run finished; a
/// liveness failure fails a file without `expect` too). `run DIR` and `run FILE` alike.
pub(in crate::cli) fn add_run(
    report: &mut FileReport,
    scenario: &Scenario,
    result: &crate::world::RunResult,
    failures: Option<Vec<ExpectationFailure>>,
    replay: String,
) {
    let failed = failures.as_ref().map(Vec::len);
    report.run = Some(PlainRun {
        scenario: scenario.name.clone(),
        protocol: scenario.protocol.name.clone(),
        seed: scenario.seed,
        guarantee: result.verdict.guarantee,
        trace_hash: result.trace.hash_hex(),
        verdict: result.judgement(failed),
    });
    if let Some(failures) = failures {
        report.checks.push(FileCheck {
            name: "run".into(),
            kind: CheckKind::Run,
            verdict: result.judgement(Some(failures.len())),
            runs: 1,
            guarantee: Some(result.verdict.guarantee),
            failures,
            replay,
        });
    }
}

/// The checks `scenario`'s `expect` pins beyond its plain run, pushed onto `checks` as
/// they are made: each pinned exploration depth from the shallowest, the interleavings,
/// the smallest safe TTL. Stops at the first that is bad input and says which field asked
/// for it. `run DIR` makes them for every file, `run FILE` for its file.
pub(in crate::cli) fn pinned_checks(
    scenario: &Scenario,
    origin: &Origin,
    checks: &mut Vec<FileCheck>,
) -> Result<(), Refused> {
    let Some(expect) = &scenario.expect else {
        return Ok(());
    };
    let seed = scenario.seed;
    let mut depths: Vec<usize> = expect.explore.iter().map(|x| x.depth).collect();
    depths.sort_unstable();
    depths.dedup();
    for depth in depths {
        let (x, failures) =
            checked_exploration(scenario, depth, explore::DEFAULT_MAX_SCHEDULES, true).map_err(
                refused("expect.explore", format!("explore --depth {depth}")),
            )?;
        checks.push(pinned_check(
            CheckKind::Explore { depth },
            &|failed| x.summary.judgement(failed),
            x.summary.runs,
            Some(x.summary.guarantee),
            failures,
            origin.explore_command(seed, depth),
        ));
    }
    if expect.interleavings.is_some() {
        let (x, failures) =
            checked_interleavings(scenario, None, explore::DEFAULT_MAX_INTERLEAVINGS, false)
                .map_err(refused(
                    "expect.interleavings",
                    "explore --interleavings".into(),
                ))?;
        checks.push(pinned_check(
            CheckKind::Interleavings,
            &|failed| x.judgement(failed),
            x.runs.len() as u64,
            Some(x.guarantee),
            failures,
            origin.interleavings_command(seed, x.max_preemptions),
        ));
    }
    if let Some(ttl) = &expect.smallest_safe_ttl {
        let (search, failures) =
            checked_ttl_search(scenario, ttl.depth, explore::DEFAULT_MAX_SCHEDULES).map_err(
                refused(
                    "expect.smallest_safe_ttl",
                    format!("explore --smallest-safe-ttl --depth {}", ttl.depth),
                ),
            )?;
        checks.push(pinned_check(
            CheckKind::SmallestSafeTtl,
            &|failed| search.judgement(failed),
            search.runs,
            None,
            failures,
            origin.ttl_search_command(seed, ttl.depth),
        ));
    }
    Ok(())
}

/// How a pinned check that is bad input is refused: which `field` asked for which
/// `command`, and why.
fn refused(field: &'static str, command: String) -> impl FnOnce(CliError) -> Refused {
    move |e: CliError| Refused {
        field,
        command,
        refusal: Box::new(e),
    }
}

/// The row of a pinned check of `kind`, with its verdict on its `failures`.
fn pinned_check(
    kind: CheckKind,
    verdict: &dyn Fn(Option<usize>) -> Judgement,
    runs: u64,
    guarantee: Option<Guarantee>,
    failures: Option<Vec<ExpectationFailure>>,
    replay: String,
) -> FileCheck {
    let name = crate::report::lang::Lang::En.check_kind(kind);
    // Each check function returns `None` only for a scenario without the expectation it
    // compares with, and every check here is made because the scenario has one.
    assert!(failures.is_some(), "{name}: the scenario pins this check");
    let failures = failures.unwrap_or_default();
    FileCheck {
        name,
        kind,
        verdict: verdict(Some(failures.len())),
        runs,
        guarantee,
        failures,
        replay,
    }
}
