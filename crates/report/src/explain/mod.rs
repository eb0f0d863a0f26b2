//! `explain`: one run told step by step, for a learner, in English or Spanish.
//!
//! The narration words the run's view ([`crate::view::RunView`], built by the caller from
//! a second, watched run: this module runs no world): each told trace entry says what an
//! actor did, and the view says where every message stands at the broker, what the
//! database has committed and what each open transaction holds. Each entry becomes a
//! sentence that says what happened and why it matters, followed by the states that
//! changed. The report ends with a plain-words explanation of every
//! anomaly, the verdict per boundary, and the failure-point table of the run (point of
//! failure, confirmed state, recovery, outcome: the seeds' table), built from the crash
//! records and [`Recovery`], as the matrix builds it.
//!
//! Every sentence comes from the catalogue in [`super::lang`]; this module decides which
//! sentence fits, never how it is worded.

mod json;
mod narrate;
mod own_schema;
mod sections;
mod state;

use crate::check::anomalies;
use crate::check::ExpectationFailure;
use crate::check::{Outcome, ScopeOutcome};
use crate::explore::Recovery;
use crate::fault::CrashRecord;
use crate::lang::{DupCause, Lang, Phase, SideCrash, StateLabel};
use crate::model::{
    AckOutcome, Boundary, Confirmation, DbOutcome, EventIndex, EventType, Guarantee, Limit,
    Publication, Side, Step, TraceKind,
};
use crate::paint::Paint;
use crate::scenario::Scenario;
use crate::sim::{Actor, StopReason, TraceEntry};
use crate::view::{MessageAt, RunView, StateChange, StepFacts, StepView, TxWrites};
pub use crate::view::{MAX_LISTED, MAX_TOLD_ENTRIES};
use crate::world::RunResult;
pub use json::*;
use sections::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Lines are wrapped to this many characters.
const WIDTH: usize = 100;

/// The narrated report of `r`, the run of `scenario` whose view is `view` (see
/// [`crate::view::watch`]), ending with `replay`, the command that replays it.
#[allow(clippy::too_many_arguments)]
pub fn explain_text(
    view: &RunView,
    scenario: &Scenario,
    r: &RunResult,
    replay: &str,
    failures: Option<&[ExpectationFailure]>,
    lang: Lang,
    paint: Paint,
) -> String {
    let story = story(view, scenario, r, lang);
    let judgement = r.judgement(failures.map(<[ExpectationFailure]>::len));
    let mut out = crate::text::verdict_line_in(lang, paint, &judgement);
    header(&mut out, scenario, r, lang);
    let tick_width = r
        .trace
        .entries()
        .iter()
        .map(|e| e.tick.to_string().len())
        .max()
        .unwrap_or(1)
        + 4;
    let _ = writeln!(out, "\n{}\n", paint.strong(lang.section_steps()));
    let state = |out: &mut String, label: StateLabel, text: &str| {
        out.push_str(&state_line(lang, paint, tick_width, label, text));
        out.push('\n');
    };
    state(&mut out, StateLabel::Database, &story.initial_database);
    for step in &story.steps {
        let prefix = format!("{:<tick_width$}", format!("t={}", step.tick));
        let text = wrap(&step.sentence, &prefix, tick_width);
        out.push_str(&if step.alarm {
            paint_lines(&text, |l| paint.bad(l))
        } else {
            text
        });
        for (label, text) in &step.states {
            state(&mut out, *label, text);
        }
    }
    if story.untold > 0 {
        out.push_str(&wrap(
            &lang.untold_entries(story.untold, MAX_TOLD_ENTRIES),
            "",
            0,
        ));
    }
    anomalies_text(&mut out, lang, &story.anomalies, paint);
    verdict_section(&mut out, r, lang, paint);
    failure_points_text(&mut out, lang, &story.failure_points, paint);
    let _ = writeln!(out);
    match failures {
        None => {}
        Some([]) => {
            let _ = writeln!(out, "{}", paint.good(&lang.expect_held_sentence()));
        }
        Some(failures) => {
            let _ = writeln!(out, "{}", paint.bad(&lang.expect_failed_sentence()));
            for f in failures {
                let _ = writeln!(out, "  - {}", lang.expectation_failure(f));
            }
        }
    }
    let _ = writeln!(out, "{}", lang.replay_sentence(replay));
    out
}

/// One run told in `lang`, as data: what [`explain_text`] prints, and what the HTML pages
/// show step by step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Story {
    /// The committed database before the first step.
    pub initial_database: String,
    /// The first [`MAX_TOLD_ENTRIES`] trace entries, one step each, in trace order.
    pub steps: Vec<ToldStep>,
    /// How many entries of the run were not told.
    pub untold: usize,
    /// Every anomaly of the verdict in plain words; empty when there is none.
    pub anomalies: Vec<String>,
    /// The seeds' table of the run: one per crash.
    pub failure_points: Vec<FailurePoint>,
}

/// One trace entry, told: what happened, and the states that changed with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToldStep {
    /// Its index in the run's trace (the diagram's rows name the same index).
    pub entry: usize,
    pub tick: crate::model::Tick,
    pub sentence: String,
    /// Whether it is where something went wrong (a crash, a refusal, a loss).
    pub alarm: bool,
    /// The broker, database and open-transaction lines that changed, in that order.
    pub states: Vec<(StateLabel, String)>,
}

/// One crash of a run, as the seeds' table shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailurePoint {
    /// The crash point, with where it stands between commit and ack.
    pub point: String,
    pub confirmed: String,
    pub recovery: String,
    /// The crashed event's outcome, in words.
    pub outcome: String,
    pub once: bool,
}

/// Tells `r`, the run of `scenario` whose view is `view`, in `lang`.
pub fn story(view: &RunView, scenario: &Scenario, r: &RunResult, lang: Lang) -> Story {
    let mut narrator = Narrator::new(scenario, r, lang);
    let steps = view.steps.iter().map(|s| narrator.tell(s)).collect();
    Story {
        initial_database: narrator.database_words(&view.initial),
        steps,
        untold: view.untold,
        anomalies: anomaly_sentences(&narrator),
        failure_points: failure_points(&narrator),
    }
}

/// [`story`] in English and in Spanish, from the one view.
pub fn stories(view: &RunView, scenario: &Scenario, r: &RunResult) -> [Story; 2] {
    [Lang::En, Lang::Es].map(|l| story(view, scenario, r, l))
}

/// How many entries of `r`, the run of `scenario` whose view is `view`, no specific sentence
/// of the catalogue fits, so that they are told as the trace says them, in English. A test
/// keeps this at zero for every scenario in both languages.
pub fn untold_entries(view: &RunView, scenario: &Scenario, r: &RunResult, lang: Lang) -> usize {
    let mut narrator = Narrator::new(scenario, r, lang);
    for step in &view.steps {
        narrator.tell(step);
    }
    narrator.fallbacks.get()
}

impl Narrator<'_> {
    /// One step of the view, told: its sentence, and the states that changed, worded.
    fn tell(&mut self, step: &StepView) -> ToldStep {
        let (sentence, alarm) = self.narrate(&step.trace, &step.facts);
        let states = (step.changes.iter())
            .map(|change| match change {
                StateChange::Broker(b) => (StateLabel::Broker, self.broker_words(b)),
                StateChange::Database(d) => (StateLabel::Database, self.database_words(d)),
                StateChange::Open(o) => (StateLabel::OpenTransaction, self.open_words(o)),
            })
            .collect();
        ToldStep {
            entry: step.entry,
            tick: step.trace.tick,
            sentence,
            alarm,
            states,
        }
    }
}

/// The scenario, its protocol and the run's set-up, then how to read what follows.
fn header(out: &mut String, scenario: &Scenario, r: &RunResult, lang: Lang) {
    let _ = writeln!(out, "{}{}", pad(lang.label_explain()), scenario.name);
    let description = lang.description(scenario);
    if !description.is_empty() {
        out.push_str(&wrap(description, &pad(""), 11));
    }
    let _ = writeln!(
        out,
        "{}{}: {}",
        pad(lang.label_protocol()),
        scenario.protocol.name,
        scenario.protocol.arrow_list()
    );
    let planned: Vec<String> = r.crashes.iter().map(|c| c.point.to_string()).collect();
    let _ = writeln!(
        out,
        "{}{}",
        pad(lang.label_run()),
        lang.run_setup(
            scenario.seed,
            r.events.len(),
            scenario.consumers,
            // A scenario with its own schema has no accounts.
            if scenario.store.custom.is_some() {
                0
            } else {
                scenario.workload.accounts
            },
            &planned
        )
    );
    out.push('\n');
    out.push_str(&wrap(&lang.how_to_read(), "", 0));
}

fn pad(label: &str) -> String {
    format!("{label:<11}")
}

/// `label` and `text` indented under a step, wrapped.
fn state_line(lang: Lang, paint: Paint, indent: usize, label: StateLabel, text: &str) -> String {
    let prefix = format!("{}{:<11}", " ".repeat(indent), lang.state_label(label));
    let wrapped = wrap(text, &prefix, indent + 11);
    let wrapped = wrapped.trim_end_matches('\n');
    paint_lines(wrapped, |l| paint.dim(l))
}

fn paint_lines(text: &str, f: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(&f(line));
        out.push('\n');
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

/// Wraps `text` to [`WIDTH`] characters: the first line starts with `prefix`, the others
/// with `indent` spaces. Ends with a newline.
fn wrap(text: &str, prefix: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut line = prefix.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let len = line.chars().count();
        if !empty && len + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// Where the crash point stands between the protocol's commit and ack: the rows of the
/// seeds' table. The commit is the one that commits the effect (a protocol may commit more
/// than one transaction). `None` for a protocol without both, or a step of another actor.
pub fn phase(protocol: &crate::model::Protocol, at: Boundary) -> Option<Phase> {
    let steps = &protocol.steps;
    let (commit, ack, here) = (
        protocol.effect_commit()?,
        steps.iter().position(|s| *s == Step::Ack)?,
        at.index_in(steps)?,
    );
    let p = 2 * here + usize::from(at.side == Side::After);
    let committed = p > 2 * commit;
    let acked = p > 2 * ack;
    Some(match (committed, acked) {
        (false, false) => Phase::BeforeCommit,
        (true, false) => Phase::BetweenCommitAndAck,
        (true, true) => Phase::AckAccepted,
        (false, true) => Phase::AckedBeforeCommit,
    })
}

/// [`phase`] in words.
pub fn phase_words(l: Lang, protocol: &crate::model::Protocol, at: Boundary) -> Option<String> {
    let several_commits = protocol
        .steps
        .iter()
        .filter(|s| **s == Step::Commit)
        .count()
        > 1;
    phase(protocol, at).map(|p| l.phase(p, several_commits))
}

/// What a producer's or relay's crash at `at` leaves half done.
fn side_crash_left(scenario: &Scenario, at: Boundary) -> SideCrash {
    let done = |step: Step| -> bool {
        let steps = scenario.producer.mode.steps();
        let (Some(i), Some(here)) = (
            steps.iter().position(|s| *s == step),
            steps.iter().position(|s| *s == at.step),
        ) else {
            return false;
        };
        2 * here + usize::from(at.side == Side::After) > 2 * i
    };
    match (at.side, at.step) {
        (Side::After, Step::RelayPublish | Step::SendEmail)
        | (Side::Before, Step::MarkSent | Step::MarkEmailSent) => SideCrash::Unmarked,
        (_, Step::RelayPublish | Step::SendEmail | Step::MarkSent | Step::MarkEmailSent) => {
            SideCrash::Done
        }
        _ => match (
            done(Step::CommitTransfer),
            done(Step::Publish),
            scenario.producer.mode == crate::producer::ProducerMode::Outbox,
        ) {
            (true, _, true) => SideCrash::OutboxCommitted,
            (false, false, _) => SideCrash::NothingDurable,
            (true, false, false) => SideCrash::CommittedUnpublished,
            (false, true, _) => SideCrash::PublishedUncommitted,
            (true, true, _) => SideCrash::Done,
        },
    }
}

/// Turns trace entries into sentences, remembering what it needs from earlier entries.
struct Narrator<'a> {
    lang: Lang,
    scenario: &'a Scenario,
    r: &'a RunResult,
    /// How many crash entries were narrated: the index of the next crash record.
    crashes_seen: usize,
    /// Deliveries `(event, copy, attempt)` recognised as processed before.
    discarded: BTreeSet<(EventIndex, u32, u32)>,
    /// Deliveries refused for carrying a known `event_id` with another payload.
    refused: BTreeSet<(EventIndex, u32, u32)>,
    /// Entries no specific sentence fits, told as the trace says them: a test keeps this
    /// empty for every scenario.
    fallbacks: std::cell::Cell<usize>,
    /// Per consumer: what its open transaction held when it crashed. The world rolls the
    /// transaction back before it records the crash, so the entry that tells the rollback
    /// reads it from here.
    crashed_with: BTreeMap<usize, Vec<String>>,
}

impl<'a> Narrator<'a> {
    fn new(scenario: &'a Scenario, r: &'a RunResult, lang: Lang) -> Narrator<'a> {
        Narrator {
            lang,
            scenario,
            r,
            crashes_seen: 0,
            discarded: BTreeSet::new(),
            refused: BTreeSet::new(),
            fallbacks: std::cell::Cell::new(0),
            crashed_with: BTreeMap::new(),
        }
    }

    fn fallback(&self, who: &str, entry: &TraceEntry) -> String {
        self.fallbacks.set(self.fallbacks.get() + 1);
        self.lang
            .fallback(who, entry.action(), &self.lang.trace_outcome(&entry.kind))
    }

    fn ev(&self, entry: &TraceEntry) -> String {
        self.lang.ev(entry.event.unwrap_or(0), entry.copy)
    }
}

#[cfg(test)]
mod tests {
    use super::state::ranged_words;
    use crate::view::ranged;

    fn words(items: Vec<(usize, Option<String>)>) -> Vec<String> {
        (ranged(items).iter())
            .map(|i| ranged_words(i, String::clone))
            .collect()
    }

    fn plain(events: &[usize]) -> Vec<(usize, Option<String>)> {
        events.iter().map(|e| (*e, None)).collect()
    }

    #[test]
    fn consecutive_plain_events_are_ranges_and_other_items_stand_alone() {
        assert_eq!(words(plain(&[0, 1, 2, 5])), ["e0–e2", "e5"]);
        assert_eq!(words(plain(&[0, 1])), ["e0", "e1"]);
        assert_eq!(words(plain(&[])), Vec::<String>::new());
        // An item with text of its own breaks a run, and is written as it is.
        let mut items = plain(&[0, 1, 2]);
        items.push((3, Some("e3 ×2".into())));
        items.extend(plain(&[4, 5, 6, 8]));
        assert_eq!(words(items), ["e0–e2", "e3 ×2", "e4–e6", "e8"]);
        // The same event twice is named twice; an unknown event (usize::MAX) ends a run
        // without overflowing.
        assert_eq!(words(plain(&[3, 3])), ["e3", "e3"]);
        assert_eq!(
            words(plain(&[usize::MAX - 1, usize::MAX])),
            [format!("e{}", usize::MAX - 1), format!("e{}", usize::MAX)]
        );
        assert_eq!(words(plain(&[usize::MAX, usize::MAX])).len(), 2);
    }
}
