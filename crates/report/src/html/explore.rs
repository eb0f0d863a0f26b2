//! The exploration page: every run of a crash exploration listed with its crashes and
//! outcome, numbered as `explore` numbers them; the failing runs first among those the page
//! tells step by step.

use super::run::worst_tone;
use super::{run_view, status_name, Bi, Page, VerdictView, MAX_SHOWN_RUNS};
use crate::explore::{Exploration, ExploredRun};
use crate::fault::CrashSpec;
use crate::lang::{ExploreLabel, Lang};
use crate::scenario::Scenario;
use crate::text::{outcome_cell, schedule_text};
use crate::view::TellRun;
use crate::Origin;
use serde::Serialize;

/// The most runs an exploration page lists: the first ones, and every failing one up to
/// this many in all. (An exploration may have hundreds of thousands; the terminal's table
/// stops far earlier.)
pub const MAX_LISTED_RUNS: usize = 2_000;

/// The longest run (in trace entries) an exploration page tells: it is run again with its
/// whole trace to be told, beside the runs the exploration keeps (up to 512 MiB). At about
/// 150 bytes an entry, 30 MB. `explain` tells 5,000 entries of any run, and a diagram draws
/// 240 rows, so a longer run would be told no better.
pub const MAX_TOLD_TRACE_ENTRIES: usize = 200_000;

/// The list the exploration page opens on.
#[derive(Clone, Debug, Serialize)]
pub struct Listing {
    /// What was explored, and what became of the runs (the guarantee is the page's
    /// verdict line's).
    pub summary: Bi<Vec<String>>,
    pub runs: Vec<ListedRun>,
    /// How many runs the exploration made (more than listed when it made more than
    /// [`MAX_LISTED_RUNS`]).
    pub total: usize,
}

/// One run of the exploration.
#[derive(Clone, Debug, Serialize)]
pub struct ListedRun {
    /// Its number in `explore`'s table, from 0 for the crash-free run.
    pub number: usize,
    pub schedule: Bi<String>,
    pub outcome: Bi<&'static str>,
    pub tone: &'static str,
    /// The run's verdict: its status (`pass`, `fail`, `unknown`) and status word.
    pub status: &'static str,
    pub status_word: Bi<&'static str>,
    pub once: u64,
    pub lost: u64,
    pub duplicated: u64,
    /// The earlier run whose state after the last crash was the same.
    pub same_as: Option<usize>,
    /// The run the page tells step by step, if it does: an index into the page's runs.
    pub view: Option<usize>,
    /// Its crash points, as `run --crash` takes them.
    pub crashes: Vec<String>,
    pub replay: String,
    pub trace_hash: String,
}

/// The page of `explore --html`: the runs of `x`, the exploration of `scenario` (from
/// `origin`), opening in `lang`, leading with its verdict (with `expect_failures`
/// expectations failed: `None` when it states none). The runs it tells step by step are
/// made again by `tell`, the caller's. With none it tells no run: the listing only, each run with
/// its crash points, for a page that asks for a run's story when it is opened (`serve`'s
/// playground, which runs `run --crash` with them; telling 120 runs up front took most of
/// an exploration's answer).
pub fn explore_page(
    tell: Option<TellRun>,
    scenario: &Scenario,
    x: &Exploration,
    origin: &Origin,
    lang: Lang,
    command: &str,
    expect_failures: Option<usize>,
) -> Page {
    let page = exploration_page(scenario, x, origin, lang, command, tell);
    judged(page, x, expect_failures)
}

/// `page`, leading with the exploration's verdict line, its failed expectations counted
/// (`None`: it states none), as `explore` prints it first.
fn judged(mut page: Page, x: &Exploration, expect_failures: Option<usize>) -> Page {
    page.verdict = Some(VerdictView::of(&x.summary.judgement(expect_failures)));
    page
}

/// The exploration page telling at most [`MAX_SHOWN_RUNS`] runs step by step, made again by
/// `tell` (none: it tells no run).
fn exploration_page(
    scenario: &Scenario,
    x: &Exploration,
    origin: &Origin,
    lang: Lang,
    command: &str,
    tell: Option<TellRun>,
) -> Page {
    let mut page = Page::new(
        "explore",
        lang,
        Bi::of(|_| scenario.name.clone()),
        command.to_string(),
    );
    let (listed, shown) = listed_and_shown(x, tell.map_or(0, |_| MAX_SHOWN_RUNS));
    let views = page.tell_each(&shown, |&i| {
        let run = &x.runs[i];
        full_run(
            tell.expect("a run is told only when the caller tells runs"),
            scenario,
            run,
            &origin.replay_command(scenario.seed, &run.crashes),
        )
    });
    let mut runs = Vec::with_capacity(listed.len());
    for &i in &listed {
        let run = &x.runs[i];
        let replay = origin.replay_command(scenario.seed, &run.crashes);
        let view = shown.binary_search(&i).ok().and_then(|k| views[k]);
        let v = &run.result.verdict;
        let judged = run.result.judgement(None).status;
        runs.push(ListedRun {
            number: i,
            schedule: Bi::of(|l| schedule_text(l, &run.crashes)),
            outcome: Bi::of(|l| outcome_cell(l, &run.result)),
            tone: worst_tone(&run.result),
            status: status_name(judged),
            status_word: Bi::of(|l| l.status(judged)),
            once: v.exactly_once,
            lost: v.lost,
            duplicated: v.duplicated,
            same_as: run.equivalent_to,
            view,
            crashes: run.crashes.iter().map(ToString::to_string).collect(),
            replay,
            trace_hash: run.result.trace.hash_hex(),
        });
    }
    let s = &x.summary;
    page.listing = Some(Listing {
        // The guarantee is the verdict line's, with its status and reasons: never a bare
        // word here, over runs that may have broken something else.
        summary: Bi::of(|l| {
            vec![
                l.explored(s.runs, s.depth),
                format!(
                    "{}{}",
                    l.explore_label(ExploreLabel::Summary),
                    l.explore_summary(s)
                ),
            ]
        }),
        runs,
        total: x.runs.len(),
    });
    page
}

/// The runs of `x` a page lists (the first ones, and every failing one, up to
/// [`MAX_LISTED_RUNS`]) and those of them it tells step by step (at most `cap`, the failing
/// ones first), by index.
fn listed_and_shown(x: &Exploration, cap: usize) -> (Vec<usize>, Vec<usize>) {
    let failing = |r: &ExploredRun| !r.result.failure().is_empty();
    let listed: Vec<usize> = (0..x.runs.len())
        .filter(|&i| i < MAX_LISTED_RUNS / 2 || failing(&x.runs[i]))
        .take(MAX_LISTED_RUNS)
        .collect();
    // A run longer than a page can tell is replayed, not rerun: rerunning it would hold its
    // whole trace beside the exploration's runs.
    let shown: Vec<usize> = told(&listed, |i| failing(&x.runs[i]), cap)
        .into_iter()
        .filter(|&i| x.runs[i].result.trace.len() <= MAX_TOLD_TRACE_ENTRIES)
        .collect();
    (listed, shown)
}

/// Which of the `listed` runs a page tells step by step: the failing ones first, then the
/// others in order, at most `cap`; in listing order.
pub(super) fn told(listed: &[usize], failing: impl Fn(usize) -> bool, cap: usize) -> Vec<usize> {
    let mut told: Vec<usize> = listed
        .iter()
        .copied()
        .filter(|&i| failing(i))
        .chain(listed.iter().copied().filter(|&i| !failing(i)))
        .take(cap)
        .collect();
    told.sort_unstable();
    told
}

/// `run` again with its whole trace (an exploration keeps only what its summary needs).
fn full_run(
    tell: TellRun,
    scenario: &Scenario,
    run: &ExploredRun,
    replay: &str,
) -> super::run::RunView {
    let mut s = scenario.clone();
    s.faults.crash = run.crashes.iter().map(|p| CrashSpec::exactly(*p)).collect();
    s.faults.random_crash = None;
    let (r, told) = tell(&s);
    assert_eq!(
        r.trace.hash_hex(),
        run.result.trace.hash_hex(),
        "an explored run replays to the same trace"
    );
    run_view(&told, &s, &r, replay)
}
