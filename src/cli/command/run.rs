//! `run`: one scenario run (with crash points given on the command line, if any), checked
//! against its `expect`, printed as a report, a trace or a diagram; and every other check
//! the file pins (explorations, interleavings, smallest safe TTL), as `run DIR` makes them.

use crate::cli::*;
use crate::report::checks::FileCheck;

/// The crash points `--crash` gives, each checked against `scenario`.
pub(in crate::cli) fn crash_override(
    scenario: &Scenario,
    points: &[String],
) -> Result<Vec<BoundaryPoint>, CliError> {
    if points.len() > bounds::MAX_CRASHES as usize {
        return Err(crash_refused(CrashWhy::TooMany {
            count: points.len(),
            max: bounds::MAX_CRASHES,
        }));
    }
    points
        .iter()
        .map(|text| crash_point(scenario, text).map_err(crash_refused))
        .collect()
}

/// `--crash` refused for `why`.
fn crash_refused(why: CrashWhy) -> CliError {
    CliError::usage(Usage::Crash {
        flag: "--crash".into(),
        why,
    })
}

/// The crash point `text`, if `scenario` can reach it.
fn crash_point(scenario: &Scenario, text: &str) -> Result<BoundaryPoint, CrashWhy> {
    let protocol = &scenario.protocol;
    let mut p = BoundaryPoint::parse(text).map_err(|detail| CrashWhy::Unparsed {
        detail,
        steps: (!protocol.sql.is_empty()).then(|| protocol.arrow_list()),
    })?;
    p.boundary.step = protocol.resolve(p.boundary.step);
    let step = p.boundary.step;
    if !scenario.runs_step(step) && step.actor() != StepActor::Consumer {
        let actor = step.actor();
        return Err(CrashWhy::OtherActor { step, actor });
    }
    if !scenario.runs_step(step) {
        return Err(CrashWhy::NoStep {
            protocol: protocol.name.clone(),
            step,
            steps: protocol.arrow_list(),
        });
    }
    let b = p.boundary;
    let what = b.to_string();
    if let Some(detail) = crate::scenario::missing_occurrence(protocol, b.step, b.nth, &what) {
        return Err(CrashWhy::NeverReached { detail });
    }
    // Events minted by a per-attempt identity are numbered after the workload's.
    let minted = scenario.producer.identity == Identity::PerAttempt;
    if p.event >= scenario.workload.events && !minted {
        return Err(CrashWhy::NoEvent {
            event: p.event,
            last: scenario.workload.events - 1,
        });
    }
    Ok(p)
}

/// Runs `scenario` with the scheduling choices `schedule` (empty: the default schedule)
/// and `options`, and compares the run with the scenario's `expect`: the failed
/// expectations, or `None` when it states none. What `run FILE` does, and the `run` check of
/// `run DIR`. A run that a limit stopped fails liveness, an expectation every run has,
/// stated or not.
pub(in crate::cli) fn checked_run(
    scenario: &Scenario,
    schedule: &[u32],
    options: world::RunOptions,
) -> (RunResult, Option<Vec<ExpectationFailure>>) {
    let result = world::run_scheduled(scenario, options, schedule);
    let failures = run_failures(scenario, &result);
    (result, failures)
}

/// How `result` fails `scenario`: its expectations that did not hold, and its liveness
/// failure, which every scenario expects not to have; `None` when it states nothing and
/// finished. `run` and `explain` judge a run so.
pub(in crate::cli) fn run_failures(
    scenario: &Scenario,
    result: &RunResult,
) -> Option<Vec<ExpectationFailure>> {
    let mut failures = scenario
        .expect
        .as_ref()
        .map(|e| check::failed_expectations(e, &result.verdict));
    if let Some(stuck) = result.liveness_failure(&scenario.limits) {
        failures
            .get_or_insert_with(Vec::new)
            .push(ExpectationFailure::Liveness(stuck));
    }
    failures
}

/// What `run` and `explain` take from the command line over the file: `--inbox-ttl`,
/// `--crash` (replacing the file's crashes, planned and random) and `--schedule`. Returns
/// the crash points and the schedule.
pub(in crate::cli) fn overrides(
    scenario: &mut Scenario,
    ttl: Option<u64>,
    crash: &[String],
    schedule: Option<&str>,
) -> Result<(Vec<BoundaryPoint>, Vec<u32>), CliError> {
    ttl_override(scenario, ttl)?;
    let crashes = crash_override(scenario, crash)?;
    if !crashes.is_empty() {
        scenario.faults.crash = crashes.iter().map(|p| CrashSpec::exactly(*p)).collect();
        scenario.faults.random_crash = None;
    }
    let schedule = schedule
        .map(parse_schedule)
        .transpose()?
        .unwrap_or_default();
    Ok((crashes, schedule))
}

/// A run as `run` and `explain` take it: the command line's overrides applied, the run
/// checked against the scenario, its `--crash` and `--schedule` held to what it reached,
/// and the command that replays it.
pub(in crate::cli) struct OverriddenRun {
    pub result: RunResult,
    pub failures: Option<Vec<ExpectationFailure>>,
    pub crashes: Vec<BoundaryPoint>,
    pub schedule: Vec<u32>,
    pub replay: String,
}

pub(in crate::cli) fn overridden_run(
    scenario: &mut Scenario,
    origin: &Origin,
    ttl: Option<u64>,
    crash: &[String],
    schedule: Option<&str>,
    lang: Lang,
) -> Result<OverriddenRun, CliError> {
    let (crashes, schedule) = overrides(scenario, ttl, crash, schedule)?;
    let (result, failures) = checked_run(scenario, &schedule, world::RunOptions::default());
    reached(&result, &crashes, &schedule, lang)?;
    let replay = replay_with_schedule(
        with_ttl_flag(origin.replay_command(scenario.seed, &crashes), ttl),
        &schedule,
    );
    Ok(OverriddenRun {
        result,
        failures,
        crashes,
        schedule,
        replay,
    })
}

/// `run DIR` when the path is a folder, a refusal when it is neither a folder nor a
/// scenario file; `None` for a scenario file (or no path).
fn run_path(args: &RunArgs) -> Option<Result<(Printed, ExitCode), CliError>> {
    let path = args.source.scenario.file.as_ref()?;
    if path.is_dir() {
        return Some(folder::run_folder(path, args).map(|(t, c)| (t.into(), c)));
    }
    if !path.exists() && path.extension().is_none_or(|x| x != "json") {
        // Without the `.json` it may as well have been meant as a folder: say neither
        // was found rather than "cannot read the file".
        return Some(Err(CliError::usage(Usage::NoSuchPath {
            path: path.display().to_string(),
        })));
    }
    None
}

pub(in crate::cli) fn run(args: &RunArgs, given: &Given) -> Result<(Printed, ExitCode), CliError> {
    if let Some(done) = run_path(args) {
        return done;
    }
    let (mut scenario, origin) = match load_scenario(&args.source.scenario) {
        Ok(loaded) => loaded,
        Err(e) => return Err(junit_of_bad_input(args, e)?),
    };
    flags::check_scenario(given, &scenario)?;
    let claim = args.expect.map(GuaranteeArg::guarantee);
    flags::claim(&mut scenario, claim, None);
    // The file as written, for the checks it pins beyond the run (the overrides below
    // change the run, not what the file pins).
    let changed_by = run_changed_by(args, &scenario);
    // A diagram draws one run: the drawing is the output, and only the run is checked.
    let as_written = (changed_by.is_empty() && args.diagram.is_none()).then(|| scenario.clone());
    if let Some(seed) = args.source.seed {
        scenario.seed = seed;
    }
    let mut run = overridden_run(
        &mut scenario,
        &origin,
        args.inbox_ttl_ticks,
        &args.crash,
        args.schedule.as_deref(),
        language(args.lang),
    )?;
    // The replay command repeats the claim, so that it fails as this command does.
    run.replay = with_claim(run.replay, claim);
    note_unmade_checks(&scenario, &changed_by, language(args.lang));
    let report = run_report(&scenario, &origin, &run.result, &run.failures, &run.replay);
    let checks = file_checks(args, as_written.as_ref(), report, &origin, &run.replay)?;
    let judgement = {
        let of_run = run.result.judgement(run.failures.as_ref().map(Vec::len));
        crate::report::checks::file_judgement(&of_run, checks.as_deref().unwrap_or(&[]))
    };
    if let Some(path) = &args.html {
        // The page leads with the verdict line printed first below.
        let lang = language(args.lang);
        let told = view::watch(&world::InProcess, &scenario, &run.schedule, &run.result);
        let page = html::run_page(&told, &scenario, &run.result, &run.replay, lang, &judgement);
        write_html(path, &page, lang)?;
    }
    let held = match &checks {
        Some(checks) => checks.iter().all(|c| c.failures.is_empty()),
        None => held(&run.failures),
    };
    let printed = print_run(args, &scenario, &origin, run, checks, judgement)?;
    Ok((printed, code(held)))
}

/// What `run` prints of a run: its diagram, its JSON report, or its text report (after
/// its trace, with `--trace`).
fn print_run(
    args: &RunArgs,
    scenario: &Scenario,
    origin: &Origin,
    run: OverriddenRun,
    checks: Option<Vec<FileCheck>>,
    judgement: Judgement,
) -> Result<Printed, CliError> {
    let mut out = String::new();
    if let Some(format) = args.diagram {
        out.push_str(&draw(args, format, scenario, &run.result)?);
    } else if args.json {
        let expect = run.failures.map(json::ExpectJson::from_failures);
        let mut report = json::run_json(scenario, &run.result, origin, &run.crashes, expect);
        report.replay = with_ttl_flag(report.replay, args.inbox_ttl_ticks);
        report.checks = checks;
        report.verdict = judgement;
        out.push_str(&to_json(&report));
    } else {
        out.push_str(&run_text(
            args,
            scenario,
            &run.result,
            &run.replay,
            run.failures.as_deref(),
            checks.as_deref(),
            &judgement,
        ));
        if args.trace {
            return Ok(trace_then(run.result, language(args.lang), out));
        }
    }
    Ok(out.into())
}

/// The checks of the file as written (`None` when the run was changed from it): the run's
/// and every other one the file pins, made here since a pinned check that is bad input
/// refuses the command; the JUnit report, which lists them, is written first.
fn file_checks(
    args: &RunArgs,
    as_written: Option<&Scenario>,
    mut report: FileReport,
    origin: &Origin,
    replay: &str,
) -> Result<Option<Vec<FileCheck>>, CliError> {
    let refused = as_written
        .and_then(|written| folder::pinned_checks(written, origin, &mut report.checks).err())
        .map(|refused| CliError::Pinned {
            path: report.path.clone(),
            refused,
        });
    // A pinned check that is bad input is an error case of the report, as in `run DIR`.
    report.error.clone_from(&refused);
    if let Some(junit) = &args.junit {
        write_junit(junit, replay, std::slice::from_ref(&report))?;
    }
    if let Some(e) = refused {
        return Err(e);
    }
    Ok(as_written.map(|_| report.checks))
}

/// The text report of a run, with the table of the file's checks when it pins more than
/// the run.
fn run_text(
    args: &RunArgs,
    scenario: &Scenario,
    result: &RunResult,
    replay: &str,
    failures: Option<&[ExpectationFailure]>,
    checks: Option<&[FileCheck]>,
    judgement: &Judgement,
) -> String {
    let mut out = text::run_text_in(
        language(args.lang),
        stdout_paint(),
        scenario,
        result,
        replay,
        failures,
        judgement,
    );
    if let Some(checks) = checks.filter(|c| c.len() > 1) {
        out.push_str(&text::checks_text_in(
            language(args.lang),
            stdout_paint(),
            checks,
        ));
    }
    out
}

/// `command` with `--expect GUARANTEE` when a claim was made on the command line.
pub(in crate::cli) fn with_claim(command: String, claim: Option<Guarantee>) -> String {
    match claim {
        Some(g) => format!("{command} --expect {g}"),
        None => command,
    }
}

/// Every trace entry of `result`, one per line, then `report`: written as it goes, since a
/// trace may have millions of entries.
pub(in crate::cli) fn trace_then(result: RunResult, lang: Lang, report: String) -> Printed {
    Printed::Stream(Box::new(move |w| {
        for entry in result.trace.entries() {
            writeln!(w, "{}", lang.trace_entry(entry))?;
        }
        writeln!(w)?;
        w.write_all(report.as_bytes())
    }))
}

/// `e`, the file's bad input, after writing it to the `--junit` report if one is asked
/// for: the CI job that reads the report learns of the bad input from it too.
fn junit_of_bad_input(args: &RunArgs, e: CliError) -> Result<CliError, CliError> {
    if let (Some(junit), Some(path)) = (&args.junit, &args.source.scenario.file) {
        let report = FileReport {
            path: path.display().to_string(),
            name: file_name(path),
            run: None,
            checks: Vec::new(),
            error: Some(e.clone()),
        };
        write_junit(
            junit,
            &format!("delivery-sim run {}", path.display()),
            &[report],
        )?;
    }
    Ok(e)
}

/// The flags that change the run a file's pins are written for (`scenario` is the file as
/// written): another `--seed`, `--crash`, `--schedule`, `--inbox-ttl-ticks`. With any,
/// `run FILE` checks only the run; without, every check the file pins, as `run DIR` does
/// (unless it draws a diagram, which is of one run).
fn run_changed_by(args: &RunArgs, scenario: &Scenario) -> Vec<&'static str> {
    let changed = [
        (
            args.source.seed.is_some_and(|s| s != scenario.seed),
            "--seed",
        ),
        (!args.crash.is_empty(), "--crash"),
        (args.schedule.is_some(), "--schedule"),
        (args.inbox_ttl_ticks.is_some(), "--inbox-ttl-ticks"),
    ];
    changed.iter().filter(|c| c.0).map(|c| c.1).collect()
}

/// Says on stderr which pinned checks `flags` kept `run FILE` from making, if any.
fn note_unmade_checks(scenario: &Scenario, flags: &[&str], lang: Lang) {
    let pins_more = scenario.expect.as_ref().is_some_and(|e| {
        !e.explore.is_empty() || e.interleavings.is_some() || e.smallest_safe_ttl.is_some()
    });
    if pins_more && !flags.is_empty() {
        let flags: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
        eprintln!("{}", lang.status_unmade_checks(&flags));
    }
}

/// Checks a run against the `--schedule` and `--crash` it was given: a choice past a
/// decision's alternatives is a usage error; a crash point never reached is a warning.
pub(in crate::cli) fn reached(
    result: &RunResult,
    crashes: &[BoundaryPoint],
    schedule: &[u32],
    lang: Lang,
) -> Result<(), CliError> {
    refuse_unknown_choices(result, schedule, ChoiceSource::Schedule)?;
    for p in crashes {
        if !result.crashes.iter().any(|c| c.point == *p) {
            eprintln!("{}", lang.status_crash_never_reached(&p.to_string()));
        }
    }
    Ok(())
}

/// The report of one run of a file (or a built-in scenario), as `run DIR` makes it for a
/// file: its plain run and `run` check; the other checks are added after.
fn run_report(
    scenario: &Scenario,
    origin: &Origin,
    result: &RunResult,
    failures: &Option<Vec<ExpectationFailure>>,
    replay: &str,
) -> FileReport {
    let (path, name) = match &origin {
        Origin::File(path) => (path.clone(), file_name(Path::new(path))),
        Origin::BuiltIn { .. } => (scenario.name.clone(), scenario.name.clone()),
    };
    let mut report = FileReport {
        path,
        name,
        run: None,
        checks: Vec::new(),
        error: None,
    };
    folder::add_run(
        &mut report,
        scenario,
        result,
        failures.clone(),
        replay.to_string(),
    );
    report
}

/// The run's diagram, drawn in `format`: the text itself, or a line saying which `--out`
/// file it was written to.
fn draw(
    args: &RunArgs,
    format: DiagramFormat,
    scenario: &Scenario,
    result: &RunResult,
) -> Result<String, CliError> {
    let detail = match args.diagram_detail {
        DiagramDetail::Auto => diagram::Detail::Auto,
        DiagramDetail::Full => diagram::Detail::Full,
        DiagramDetail::Compact => diagram::Detail::Compact,
    };
    let lang = language(args.lang);
    let d = diagram::build(scenario, result, detail, lang);
    let drawn = match format {
        DiagramFormat::Mermaid => d.mermaid(),
        DiagramFormat::Svg => d.svg(),
    };
    Ok(match &args.out {
        Some(path) => {
            atomic::write(path, drawn.as_bytes())
                .map_err(|e| CliError::usage(cannot_write("--out", path, Act::Write, e)))?;
            // A status line, not a result: stderr. stdout stays empty.
            eprintln!(
                "{}",
                lang.diagram_wrote(&path.display().to_string(), d.rows.len(), drawn.len())
            );
            String::new()
        }
        None => drawn,
    })
}
