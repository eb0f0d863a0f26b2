//! `serve`'s jobs: the runs and explorations its requests ask for, each made on a thread of
//! tokio's blocking pool, off the thread that accepts connections and makes the cheap
//! answers (the page, the refusals), which therefore never wait for a job. At most
//! [`MAX_JOBS`] are under way at once; a request past them is answered 503 with
//! `Retry-After` at once, rather than queued behind minutes of work.
//!
//! A job's answer depends on its request only: a run is a pure function of its scenario
//! and seed, an exploration's runs are put in order whatever the threads that made them,
//! and the memory admission of SQL runs decides when a run starts, never what it does.
//!
//! For tests only: with [`TEST_HOLD_VAR`] in the environment, each job, once it holds its
//! place among the [`MAX_JOBS`], says so on stderr and waits for a line on stdin (or its
//! end) before it works, so that a test can hold jobs under way for as long as it needs
//! and release them, without a clock.

use super::{Reply, MAX_DEPTH, MAX_EVENTS, MAX_EXPLORE_STEPS, MAX_SCHEDULES, MAX_STEPS};
use crate::cli::*;
use crate::report::html::{self as pages, Page};
use crate::report::input::Usage;
use crate::report::lang::input::{input_error, scenario_error};
use crate::report::lang::{JobRefusal, ServeRefusal};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The most jobs under way at once. An exploration already runs its runs on every core
/// (rayon), so more jobs at once would only share the same cores, each taking longer, and
/// hold more memory; two let a short run go on beside a long exploration.
pub const MAX_JOBS: usize = 2;

/// What a 503 answers in `Retry-After`: a served run takes well under a second, an
/// exploration a few.
pub const RETRY_AFTER_SECONDS: u32 = 2;

/// Test-only: when set, every job waits for a line on stdin before it works (see above).
pub const TEST_HOLD_VAR: &str = "DELIVERY_SIM_TEST_HOLD_JOBS";

/// What a request asks the server to make.
#[derive(Clone, Copy, Debug)]
pub(super) enum Job {
    /// `POST /api/run`: one run, told.
    Run,
    /// `POST /api/explore?depth=D`: an exploration, listed.
    Explore,
    /// `POST /api/story?crash=P&crash=Q`: one run of an exploration, told.
    Story,
}

/// The jobs under way.
pub(super) struct Jobs {
    running: Arc<AtomicUsize>,
    /// Whether jobs wait for a line on stdin ([`TEST_HOLD_VAR`]).
    hold: bool,
}

/// One job's place among the [`MAX_JOBS`], given back when dropped.
pub(super) struct Permit {
    running: Arc<AtomicUsize>,
    hold: bool,
}

impl Jobs {
    pub(super) fn new(hold: bool) -> Jobs {
        Jobs {
            running: Arc::default(),
            hold,
        }
    }

    /// A place for one more job, unless [`MAX_JOBS`] are under way.
    pub(super) fn start(&self) -> Option<Permit> {
        self.running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_JOBS).then_some(n + 1)
            })
            .ok()?;
        Some(Permit {
            running: Arc::clone(&self.running),
            hold: self.hold,
        })
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Permit {
    /// Waits for a line on stdin when jobs are held ([`TEST_HOLD_VAR`]), having said so.
    fn held(&self) {
        if self.hold {
            eprintln!("delivery-sim serve: a job waits for a line on stdin ({TEST_HOLD_VAR})");
            let _ = std::io::stdin().read_line(&mut String::new());
        }
    }
}

/// Makes `job` for a request with `query` and `body`: the reply, a page's data or an
/// error, in `lang` (the page itself is in English).
pub(super) fn answer(permit: &Permit, job: Job, query: &str, body: &[u8], lang: Lang) -> Reply {
    permit.held();
    let Ok(text) = std::str::from_utf8(body) else {
        return Reply::error(400, lang.serve_refusal(ServeRefusal::NotUtf8));
    };
    let page = match job {
        Job::Run => served_run(text, lang),
        Job::Explore => depth(query, lang).and_then(|d| served_exploration(text, d, lang)),
        Job::Story => served_story(text, query, lang),
    };
    match page {
        Ok(page) => Reply::page(&page),
        Err(message) => Reply::error(400, message),
    }
}

fn depth(query: &str, lang: Lang) -> Result<usize, String> {
    let value = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("depth="))
        .unwrap_or("1");
    match value.parse::<usize>() {
        Ok(d) if (1..=MAX_DEPTH).contains(&d) => Ok(d),
        _ => Err(refused(
            lang,
            JobRefusal::Depth {
                value,
                max: MAX_DEPTH,
            },
        )),
    }
}

/// A job's refusal, in `lang`.
fn refused(lang: Lang, why: JobRefusal<'_>) -> String {
    lang.serve_refusal(ServeRefusal::Job(why))
}

/// The editor's scenario, validated as a file is, then held to the server's bounds.
fn scenario(text: &str, lang: Lang) -> Result<Scenario, String> {
    let s = Scenario::from_json(text, "scenario.json").map_err(|e| scenario_error(&e, lang))?;
    if s.workload.events > MAX_EVENTS {
        let why = JobRefusal::Events {
            events: s.workload.events,
            max: MAX_EVENTS,
            cli_max: bounds::MAX_EVENTS,
        };
        return Err(refused(lang, why));
    }
    if s.limits.max_steps > MAX_STEPS {
        let why = JobRefusal::Steps {
            steps: s.limits.max_steps,
            max: MAX_STEPS,
        };
        return Err(refused(lang, why));
    }
    Ok(s)
}

/// The replay command of a served run: the editor's text saved as `scenario.json`.
fn origin() -> Origin {
    Origin::File("scenario.json".into())
}

/// The run of the scenario in `text`, judged with its expectations as `run FILE` judges
/// it (the explorations a file may pin beside its run are not made: the playground's
/// *Explore* makes one).
fn served_run(text: &str, lang: Lang) -> Result<Page, String> {
    let s = scenario(text, lang)?;
    let (result, failures) = checked_run(&s, &[], world::RunOptions::default());
    let replay = origin().replay_command(s.seed, &[]);
    let judgement = result.judgement(failures.as_ref().map(Vec::len));
    Ok(run_page(&s, &result, &replay, &judgement))
}

/// The page of `result`, the run of `s` that `replay` replays, leading with `judgement`.
fn run_page(s: &Scenario, result: &world::RunResult, replay: &str, judgement: &Judgement) -> Page {
    let told = crate::view::watch(&world::InProcess, s, &[], result);
    pages::run_page(&told, s, result, replay, Lang::En, judgement)
}

fn served_exploration(text: &str, depth: usize, lang: Lang) -> Result<Page, String> {
    let s = scenario(text, lang)?;
    let options = explore_options(&s, depth, MAX_SCHEDULES).map_err(|e| {
        let why = JobRefusal::Exploration {
            refusal: &input_error(&e, lang),
            max_schedules: MAX_SCHEDULES,
        };
        refused(lang, why)
    })?;
    let estimate = explore::estimate(&s, depth);
    if estimate.steps > MAX_EXPLORE_STEPS {
        let why = JobRefusal::ExploreSteps {
            depth,
            steps: estimate.steps,
            max: MAX_EXPLORE_STEPS,
        };
        return Err(refused(lang, why));
    }
    // What `explore FILE --depth D` does: the exploration, held to the file's `expect`.
    let (x, failures) = checked_exploration(&s, depth, options.max_schedules, true)
        .map_err(|e| input_error(&e, lang))?;
    let command = origin().explore_command(s.seed, depth);
    let failed = failures.as_ref().map(Vec::len);
    // The listing only: each run's story is asked for when it is opened.
    Ok(pages::explore_page(
        None,
        &s,
        &x,
        &origin(),
        Lang::En,
        &command,
        failed,
    ))
}

/// The run of an exploration of the scenario in `text` that crashes at the `crash` points
/// of `query` (none: the crash-free run): the scenario's own planned and random crashes
/// replaced by these, as an exploration runs it. Its replay command is the one the
/// exploration's listing gives it.
fn served_story(text: &str, query: &str, lang: Lang) -> Result<Page, String> {
    let mut s = scenario(text, lang)?;
    let points = query_values(query, "crash", lang)?;
    let crashes = crash_override(&s, &points).map_err(|e| input_error(&in_query(e), lang))?;
    s.faults.crash = crashes.iter().map(|p| CrashSpec::exactly(*p)).collect();
    s.faults.random_crash = None;
    let result = world::run(&s);
    let replay = origin().replay_command(s.seed, &crashes);
    // Judged as the exploration judged it: the run alone, no expectation.
    Ok(run_page(&s, &result, &replay, &result.judgement(None)))
}

/// A crash point refused as the query's `crash`, which the command line's `--crash` is.
fn in_query(e: CliError) -> CliError {
    match e {
        CliError::Usage(u) => match *u {
            Usage::Crash { why, .. } => CliError::usage(Usage::Crash {
                flag: "crash".into(),
                why,
            }),
            other => CliError::usage(other),
        },
        e => e,
    }
}

/// The values `key` takes in a query string, percent-decoded (`+` is a space).
fn query_values(query: &str, key: &str, lang: Lang) -> Result<Vec<String>, String> {
    query
        .split('&')
        .filter_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
        .map(|value| {
            percent_decoded(value)
                .ok_or_else(|| refused(lang, JobRefusal::NotPercentEncoded { key, value }))
        })
        .collect()
}

fn percent_decoded(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}
