//! `sweep`: random search over seeds and fault plans, with failures shrunk.

use crate::cli::*;
use crate::explore::threads;

/// Parses `A..B` into a non-empty range of at most [`sweep::MAX_SEEDS`] seeds.
pub(in crate::cli) fn seed_range(text: &str) -> Result<std::ops::Range<u64>, CliError> {
    let usage = || {
        CliError::usage(Usage::Unparsed {
            flag: "--seeds".into(),
            text: text.to_string(),
            form: Form::SeedRange,
        })
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
        return Err(CliError::usage(Budget::Seeds {
            seeds: b - a,
            max: sweep::MAX_SEEDS,
        }));
    }
    Ok(a..b)
}

pub(in crate::cli) fn sweep(args: &SweepArgs) -> Result<(String, ExitCode), CliError> {
    let (scenario, origin) = load_scenario(&args.scenario)?;
    let seeds = seed_range(&args.seeds)?;
    let limits = swarm_limits(args)?;
    let shrink_options = shrink_options(args)?;
    // How many findings to shrink, if any.
    let shrinking = (!args.no_shrink).then_some(args.shrink_findings);
    let lang = language(args.lang);
    if seeds.end - seeds.start == 1 && !args.json {
        // One seed: the full report, which is what a replay command is for.
        return Ok(one_seed(
            &scenario,
            &origin,
            seeds.start,
            &limits,
            shrinking.map(|_| shrink_options),
            lang,
        ));
    }
    let total = seeds.end - seeds.start;
    let mut out = Findings::new(args, total)?;
    interrupt::install();
    let shrinking_with = shrinking.map(|n| (n, shrink_options));
    out.head(&scenario, &seeds, &limits, shrinking_with)?;
    let start = out.sweep(&scenario, &origin, &seeds, &limits, shrinking_with)?;
    if let Some(bar) = &out.bar {
        bar.finish_and_clear();
    }
    let (findings, shrunk_findings) = (out.count, out.shrunk);
    if start < seeds.end {
        // Interrupted: every seed before `start` ran and its findings are written; the
        // resume command runs the rest into the same file.
        let resume = resume_command(
            args,
            &origin,
            start..seeds.end,
            &limits,
            shrinking,
            findings,
        );
        let ran = seeds.start..start;
        let judgement = out.judgement(ran.end - ran.start, true);
        let counts = (ran.end - ran.start, findings, shrunk_findings);
        let summary = tail(args, &judgement, counts, Some(resume.clone()), |written| {
            lang.sweep_interrupted(total, ran, findings, &resume, written)
        });
        return Ok((summary, interrupt::exit_code()));
    }
    let judgement = out.judgement(total, false);
    let summary = tail(
        args,
        &judgement,
        (total, findings, shrunk_findings),
        None,
        |written| lang.sweep_summary(total, findings, shrunk_findings, written),
    );
    Ok((summary, code(findings == 0)))
}

/// The end of a sweep's output: its JSON tail, or its last line (`line` is given the file
/// the findings were written to) and the verdict.
fn tail(
    args: &SweepArgs,
    judgement: &Judgement,
    (ran, findings, shrunk): (u64, u64, u64),
    resume: Option<String>,
    line: impl FnOnce(Option<&str>) -> String,
) -> String {
    if args.json {
        return json_tail(judgement, ran, findings, shrunk, resume);
    }
    let out = args.out.as_ref().map(|p| p.display().to_string());
    let paint = stdout_paint();
    format!(
        "{}\n{}",
        line(out.as_deref()),
        text::verdict_line_in(language(args.lang), paint, judgement)
    )
}

/// `sweep --json` up to its findings: the document's head, its `findings` list opened.
fn json_head(
    scenario: &Scenario,
    seeds: &std::ops::Range<u64>,
    limits: &SwarmLimits,
    shrinking: Option<u64>,
) -> String {
    let head = json::Document::new(json::SweepHead {
        scenario: &scenario.name,
        protocol: &scenario.protocol.name,
        seeds: json::SeedRange {
            start: seeds.start,
            end: seeds.end,
        },
        limits: *limits,
        shrink_findings: shrinking,
    });
    let head = serde_json::to_string(&head).expect("report types serialize");
    // The head is an object: its closing brace gives way to the findings.
    format!(
        "{},\"findings\":[",
        head.strip_suffix('}').expect("an object")
    )
}

/// `sweep --json` after its findings: the list closed, the verdict, the summary, the
/// document closed.
fn json_tail(
    verdict: &Judgement,
    runs: u64,
    findings: u64,
    shrunk: u64,
    resume: Option<String>,
) -> String {
    let summary = json::SweepSummary {
        runs,
        findings,
        shrunk_findings: shrunk,
        interrupted: resume.is_some(),
        resume,
    };
    let summary = serde_json::to_string(&summary).expect("report types serialize");
    let verdict = serde_json::to_string(verdict).expect("report types serialize");
    format!("\n],\"verdict\":{verdict},\"summary\":{summary}}}\n")
}

/// The swarm's limits, each flag checked against its bound.
fn swarm_limits(args: &SweepArgs) -> Result<SwarmLimits, CliError> {
    Ok(SwarmLimits {
        max_crash_ppm: explore_bound("--max-crash-ppm", args.max_crash_ppm, 1_000_000)?,
        max_crashes: explore_bound("--max-crashes", args.max_crashes, bounds::MAX_CRASHES)?,
        max_failures: explore_bound("--max-failures", args.max_failures, 100)?,
        max_republishes: explore_bound("--max-republishes", args.max_republishes, 100)?,
        max_broker_faults: explore_bound("--max-broker-faults", args.max_broker_faults, 100)?,
        max_jitter_ticks: explore_bound("--max-jitter-ticks", args.max_jitter_ticks, 1_000_000)?,
        max_stall_ticks: explore_bound("--max-stall-ticks", args.max_stall_ticks, 1_000_000)?,
    })
}

/// A sweep of one seed: that seed's full report (and its shrunk form, when it fails and
/// `shrink` is given).
fn one_seed(
    scenario: &Scenario,
    origin: &Origin,
    seed: u64,
    limits: &SwarmLimits,
    shrink: Option<ShrinkOptions>,
    lang: Lang,
) -> (String, ExitCode) {
    let (s, plan) = sweep::seeded(scenario, seed, limits);
    let result = world::run(&s);
    let mut out = format!(
        "{}\n",
        lang.sweep_seed_head(seed, &text::plan_text(lang, &plan))
    );
    let replay = origin.sweep_replay_command(seed, limits);
    out.push_str(&text::run_text_in(
        lang,
        stdout_paint(),
        &s,
        &result,
        &replay,
        None,
        &result.judgement(None),
    ));
    let failing = sweep::is_finding(&result);
    if let Some(options) = shrink.filter(|_| failing) {
        let f = sweep::Finding { seed, plan, result };
        let shrunk = sweep::shrink_finding(scenario, &f, limits, options);
        out.push_str(&format!("\n{}\n", text::shrunk_lines(lang, &shrunk)));
    }
    (out, code(!failing))
}

/// The `--out` file findings are written to, one JSON line each.
fn open_out(args: &SweepArgs) -> Result<Option<std::fs::File>, CliError> {
    let Some(path) = &args.out else {
        return Ok(None);
    };
    std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(args.append)
        .truncate(!args.append)
        .open(path)
        .map(Some)
        .map_err(|e| CliError::usage(cannot_write("--out", path, Act::Create, e)))
}

/// The progress bar of a sweep over `total` seeds, drawn on `target`.
fn progress_bar(
    total: u64,
    target: indicatif::ProgressDrawTarget,
    lang: Lang,
) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} runs, {per_sec}, {msg}, ETA {eta}",
        )
        .expect("a valid template"),
    );
    bar.set_message(lang.sweep_findings(0));
    bar
}

/// The command that resumes an interrupted sweep over `rest`, after `findings` findings.
fn resume_command(
    args: &SweepArgs,
    origin: &Origin,
    rest: std::ops::Range<u64>,
    limits: &SwarmLimits,
    shrinking: Option<u64>,
    findings: u64,
) -> String {
    let mut resume = origin.sweep_command(rest, limits);
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
    if args.json {
        // The rest as a document of its own, as this one was printed.
        resume.push_str(" --json");
    }
    if let Some(lang) = args.lang {
        // The rest in the language this part was printed in.
        resume.push_str(&format!(" --lang {}", lang.code()));
    }
    if let Some(path) = &args.out {
        resume.push_str(&format!(
            " --out {} --append",
            crate::report::shell_quote(&path.display().to_string())
        ));
    }
    resume
}

/// `--shrink-runs`, checked against its bounds.
fn shrink_options(args: &SweepArgs) -> Result<ShrinkOptions, CliError> {
    Ok(ShrinkOptions {
        max_runs: within("--shrink-runs", args.shrink_runs, 2, MAX_SHRINK_RUNS)?,
    })
}

/// Where a sweep's findings go: stdout (above the progress bar, when there is one) and the
/// `--out` file; and how many there were.
struct Findings {
    bar: Option<indicatif::ProgressBar>,
    jsonl: Option<std::fs::File>,
    /// `--json`: each finding is an item of the document's `findings`, not text.
    json: bool,
    lang: Lang,
    count: u64,
    shrunk: u64,
    /// What the findings broke: their failure signatures, tallied; and their weakest
    /// guarantee. The sweep's verdict, which it ends with (it streams its findings).
    signatures: Vec<check::FailureSignature>,
    guarantee: crate::model::Guarantee,
    /// Where the scenario's effect lives, when not in its main database: the verdict
    /// names it.
    effect: Option<crate::model::Effect>,
}

impl Findings {
    /// Where `args`' sweep over `total` seeds writes: the `--out` file, and the bar. The
    /// bar, and the findings printed above it, go to stdout, and only when stdout is a
    /// terminal: a pipe gets plain lines, and a redirected stderr cannot swallow findings.
    /// With --json, stdout is the document's, and the bar goes to a terminal's stderr.
    fn new(args: &SweepArgs, total: u64) -> Result<Findings, CliError> {
        use std::io::IsTerminal;
        let lang = language(args.lang);
        let bar = if args.json {
            std::io::stderr()
                .is_terminal()
                .then(|| progress_bar(total, indicatif::ProgressDrawTarget::stderr(), lang))
        } else {
            std::io::stdout()
                .is_terminal()
                .then(|| progress_bar(total, indicatif::ProgressDrawTarget::stdout(), lang))
        };
        Ok(Findings {
            bar,
            jsonl: open_out(args)?,
            json: args.json,
            lang,
            count: 0,
            shrunk: 0,
            signatures: Vec::new(),
            guarantee: crate::model::Guarantee::ExactlyOnce,
            effect: None,
        })
    }

    /// Writes part of the `--json` document to stdout, now.
    fn write_stdout(&self, text: &str) -> Result<(), CliError> {
        let mut stdout = std::io::stdout().lock();
        match write!(stdout, "{text}").and_then(|_| stdout.flush()) {
            Ok(()) => Ok(()),
            // A closed pipe (`| head`) is the reader's choice, not an error of ours.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            Err(e) => Err(CliError::usage(Usage::CannotWriteStdout {
                io: Io::from(e),
            })),
        }
    }

    fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "{line}").and_then(|_| stdout.flush());
            }
        }
    }

    /// The sweep's verdict over its `seeds` (see [`Judgement`]): what its findings broke,
    /// each property with the seeds that broke it; unknown when it was `interrupted`.
    fn judgement(&self, seeds: u64, interrupted: bool) -> Judgement {
        let broken = check::tally_failures(&self.signatures);
        let cutoff = interrupted.then_some(check::Cutoff::Interrupted);
        let over = check::Coverage::Sweep { seeds };
        Judgement::over_runs(self.guarantee, over, &broken, cutoff, None).on(self.effect)
    }

    /// What the sweep starts with: the `--json` document's head, or the line saying what
    /// is swept within which limits.
    fn head(
        &self,
        scenario: &Scenario,
        seeds: &std::ops::Range<u64>,
        limits: &SwarmLimits,
        shrinking: Option<(u64, ShrinkOptions)>,
    ) -> Result<(), CliError> {
        if self.json {
            let shrink_findings = shrinking.map(|(n, _)| n);
            return self.write_stdout(&json_head(scenario, seeds, limits, shrink_findings));
        }
        self.say(&self.lang.sweep_head(&SweepHead {
            seeds: seeds.clone(),
            scenario: &scenario.name,
            protocol: &scenario.protocol.name,
            crash_ppm: limits.max_crash_ppm,
            crashes: limits.max_crashes,
            failures: limits.max_failures,
            republishes: limits.max_republishes,
            broker_faults: limits.max_broker_faults,
            shrinking: shrinking.map(|(n, options)| (n, options.max_runs)),
        }));
        Ok(())
    }

    /// Runs `seeds` chunk by chunk, reporting each chunk's findings (the first `n` shrunk,
    /// with `shrinking`) as it ends, until every seed ran or the sweep is interrupted.
    /// Returns the first seed not run.
    fn sweep(
        &mut self,
        scenario: &Scenario,
        origin: &Origin,
        seeds: &std::ops::Range<u64>,
        limits: &SwarmLimits,
        shrinking: Option<(u64, ShrinkOptions)>,
    ) -> Result<u64, CliError> {
        let mut start = seeds.start;
        while start < seeds.end {
            let end = (start + sweep::CHUNK).min(seeds.end);
            let tick = || self.tick();
            let chunk = sweep::sweep_chunk_until_interrupted(scenario, start..end, limits, &tick);
            // The chunk's findings are shrunk in parallel, each on its own, and printed in
            // seed order.
            let shrink = || {
                (chunk.findings.par_iter().enumerate())
                    .map(|(i, f)| {
                        shrinking
                            .filter(|&(n, _)| self.count + (i as u64) < n)
                            .map(|(_, options)| sweep::shrink_finding(scenario, f, limits, options))
                    })
                    .collect()
            };
            let shrunk: Vec<Option<Shrunk>> = threads::within(threads::bound(scenario), shrink);
            for (f, shrunk) in chunk.findings.iter().zip(shrunk) {
                self.report(scenario, origin, limits, f, shrunk)?;
            }
            start = chunk.done_until;
            if start < end {
                break;
            }
        }
        Ok(start)
    }

    /// One more seed ran.
    fn tick(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Prints finding `f` (shrunk, or with the token that replays it exactly) and writes it
    /// to the `--out` file.
    fn report(
        &mut self,
        scenario: &Scenario,
        origin: &Origin,
        limits: &SwarmLimits,
        f: &sweep::Finding,
        shrunk: Option<Shrunk>,
    ) -> Result<(), CliError> {
        self.count += 1;
        self.signatures.push(f.result.failure());
        self.guarantee =
            crate::model::Guarantee::weakest([self.guarantee, f.result.verdict.guarantee]);
        self.effect = f.result.verdict.effect();
        let replay = origin.sweep_replay_command(f.seed, limits);
        let exact = token::encode(&sweep::finding_scenario(scenario, f, limits), &[]);
        let how = match &shrunk {
            Some(s) => {
                self.shrunk += 1;
                text::shrunk_lines(self.lang, s)
            }
            None => format!("    {}", token_command(&exact)),
        };
        let finding_line = text::finding_line(self.lang, f, &replay);
        let finding = json::finding_json(scenario, f, replay, exact, shrunk.as_ref());
        if self.json {
            let item = serde_json::to_string(&finding).expect("findings serialize");
            let comma = if self.count == 1 { "" } else { "," };
            self.write_stdout(&format!("{comma}\n{item}"))?;
        } else {
            self.say(&format!("{finding_line}\n{how}"));
        }
        if let Some(file) = &mut self.jsonl {
            let line =
                serde_json::to_string(&json::Document::new(finding)).expect("findings serialize");
            writeln!(file, "{line}")
                .and_then(|_| file.flush())
                .map_err(|e| {
                    CliError::usage(Usage::CannotWrite {
                        flag: "--out".into(),
                        path: None,
                        act: Act::Write,
                        io: Io::from(e),
                    })
                })?;
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.lang.sweep_findings(self.count));
        }
        Ok(())
    }
}
