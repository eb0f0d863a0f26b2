//! One run as a page shows it: its diagram, its story step by step with the state under each
//! step, its verdict, each event's outcome, its failure-point table and its replay command,
//! every text in both languages.

use super::{Bi, Page, VerdictView};
use crate::check::Judgement;
use crate::diagram::{self, Detail, Tone};
use crate::explain::{self, FailurePoint};
use crate::lang::{Lang, StateLabel};
use crate::scenario::Scenario;
use crate::world::RunResult;
use serde::Serialize;

/// One run, ready to show.
#[derive(Clone, Debug, Serialize)]
pub struct RunView {
    /// The scenario's name.
    pub name: String,
    pub protocol: String,
    /// The crash points the run injected, as `run --crash` takes them.
    pub crashes: Vec<String>,
    /// The run's guarantee over every boundary, and the tone its cells take.
    pub guarantee: String,
    pub tone: &'static str,
    /// The run's verdict line, which its view leads with.
    pub judgement: VerdictView,
    /// The verdict sentence, then one line per guarantee boundary.
    pub verdict: Bi<Vec<String>>,
    /// The tool's own SVG diagram, without its XML declaration, to inline.
    pub svg: Bi<String>,
    /// The committed database before the first step.
    pub initial: Bi<String>,
    pub steps: Vec<StepView>,
    /// What the page says when the run has more entries than it tells.
    pub untold: Option<Bi<String>>,
    pub anomalies: Bi<Vec<String>>,
    /// The failure-point table's column names, and one row per crash.
    pub failure_labels: Bi<[&'static str; 4]>,
    pub failure_points: Bi<Vec<[String; 4]>>,
    /// Whether each crash's event ended processed once (its row's colour).
    pub failure_once: Vec<bool>,
    pub events: Vec<EventView>,
    pub replay: String,
    pub trace_hash: String,
}

/// One trace entry, told.
#[derive(Clone, Debug, Serialize)]
pub struct StepView {
    /// Its index in the trace: the diagram's rows carry the same in `data-first` and
    /// `data-last`.
    pub entry: usize,
    pub tick: u64,
    pub alarm: bool,
    pub text: Bi<String>,
    /// The state lines that changed, a label and a text each: per language, since a line
    /// is told when its wording changed.
    pub states: Bi<Vec<[String; 2]>>,
}

/// What became of one event.
#[derive(Clone, Debug, Serialize)]
pub struct EventView {
    pub event: String,
    pub outcome: Bi<String>,
    pub tone: &'static str,
    pub effects: u32,
    pub deliveries: u32,
    pub acked: bool,
}

/// `r`, the run of `scenario` whose view is `told` (see [`crate::view::watch`]), ready to
/// show; `replay` is the command that replays it. `r` must keep its trace (not a slim
/// result).
pub fn run_view(
    told: &crate::view::RunView,
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
) -> RunView {
    let [en, es] = explain::stories(told, scenario, r);
    let stories = Bi { en, es };
    // One run, one cap: both languages tell the same entries.
    assert_eq!(stories.en.steps.len(), stories.es.steps.len());
    let v = &r.verdict;
    let steps = stories
        .en
        .steps
        .iter()
        .zip(&stories.es.steps)
        .map(|(en, es)| StepView {
            entry: en.entry,
            tick: en.tick,
            alarm: en.alarm,
            text: Bi {
                en: en.sentence.clone(),
                es: es.sentence.clone(),
            },
            states: Bi {
                en: state_lines(Lang::En, &en.states),
                es: state_lines(Lang::Es, &es.states),
            },
        })
        .collect();
    RunView {
        name: scenario.name.clone(),
        protocol: scenario.protocol.name.clone(),
        crashes: r.crashes.iter().map(|c| c.point.to_string()).collect(),
        guarantee: v.guarantee.name().to_string(),
        tone: worst_tone(r),
        judgement: VerdictView::of(&r.judgement(None)),
        verdict: Bi::of(|l| verdict_lines(l, r)),
        svg: Bi::of(|l| inline_svg(&diagram::build(scenario, r, Detail::Auto, l).svg())),
        initial: Bi::of(|l| stories.get(l).initial_database.clone()),
        steps,
        untold: (stories.en.untold > 0).then(|| {
            Bi::of(|l| l.untold_entries(stories.get(l).untold, explain::MAX_TOLD_ENTRIES))
        }),
        anomalies: Bi::of(|l| stories.get(l).anomalies.clone()),
        failure_labels: Bi::of(|l| l.failure_point_labels()),
        failure_points: Bi::of(|l| stories.get(l).failure_points.iter().map(row).collect()),
        failure_once: stories.en.failure_points.iter().map(|p| p.once).collect(),
        events: v
            .events
            .iter()
            .map(|e| EventView {
                event: format!("e{}", e.event),
                outcome: Bi::of(|l| l.outcome(e.outcome)),
                tone: Tone::of(e.outcome).name(),
                effects: e.effects,
                deliveries: e.deliveries,
                acked: e.acked,
            })
            .collect(),
        replay: replay.to_string(),
        trace_hash: r.trace.hash_hex(),
    }
}

/// The colour of a run: the worst outcome of its events (lost before duplicated).
pub(super) fn worst_tone(r: &RunResult) -> &'static str {
    r.verdict
        .events
        .iter()
        .map(|e| Tone::of(e.outcome))
        .filter(|t| *t != Tone::Once)
        .min()
        .unwrap_or(Tone::Once)
        .name()
}

/// The verdict sentence, then one line per guarantee boundary, as `explain` prints them.
fn verdict_lines(l: Lang, r: &RunResult) -> Vec<String> {
    let v = &r.verdict;
    let mut lines =
        vec![l.verdict_sentence(v.guarantee.name(), v.exactly_once, v.lost, v.duplicated)];
    lines.extend(v.boundaries.iter().map(|b| l.describe_scope(b)));
    lines
}

fn state_lines(l: Lang, states: &[(StateLabel, String)]) -> Vec<[String; 2]> {
    states
        .iter()
        .map(|(label, text)| [l.state_label(*label).to_string(), text.clone()])
        .collect()
}

fn row(p: &FailurePoint) -> [String; 4] {
    [
        p.point.clone(),
        p.confirmed.clone(),
        p.recovery.clone(),
        p.outcome.clone(),
    ]
}

/// An SVG document as an element to inline in HTML: without its XML declaration.
fn inline_svg(svg: &str) -> String {
    svg.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .unwrap_or(svg)
        .to_string()
}

/// The page of one run: `run --html`, leading with `judgement`, the verdict line the
/// command prints first (the run's, with its expectations and the checks its file pins);
/// `told` is its view (see [`crate::view::watch`]).
pub fn run_page(
    told: &crate::view::RunView,
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
    lang: Lang,
    judgement: &Judgement,
) -> Page {
    let mut page = Page::new(
        "run",
        lang,
        Bi::of(|_| scenario.name.clone()),
        replay.to_string(),
    );
    let verdict = VerdictView::of(judgement);
    page.tell(|| RunView {
        judgement: verdict.clone(),
        ..run_view(told, scenario, r, replay)
    });
    page.verdict = Some(verdict);
    page
}
