//! `explain`: one run told step by step, for a learner, in English or Spanish.
//!
//! The narration watches the run again as it goes, run by the [`crate::world::Runner`] the
//! caller hands it (this module runs no world): each trace entry says what an actor did,
//! and the snapshot after it says where every message stands at the broker, what the
//! database has committed and what each open transaction holds; only the previous entry's
//! state is kept. Each entry becomes a sentence that says what happened and why it
//! matters, followed by the states that changed. The report ends with a plain-words explanation of every
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

use crate::broker::MessageState;
use crate::check::anomalies;
use crate::check::ExpectationFailure;
use crate::check::{Outcome, ScopeOutcome};
use crate::explore::Recovery;
use crate::fault::CrashRecord;
use crate::model::{
    AckOutcome, Boundary, CommittedState, Confirmation, DbOutcome, EventIndex, EventType,
    Guarantee, Limit, Publication, Side, Step, TraceKind,
};
use crate::report::lang::{DupCause, Lang, Phase, SideCrash, StateLabel, TxItem};
use crate::report::paint::Paint;
use crate::scenario::Scenario;
use crate::sim::{Actor, StopReason, TraceEntry};
use crate::world::{self, RunResult, Runner, Snapshot};
pub use json::*;
use sections::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::rc::Rc;

/// Lines are wrapped to this many characters.
const WIDTH: usize = 100;

/// At most this many trace entries are told one by one; the report says how many more the
/// run had, and everything after the steps (anomalies, verdict, failure points) still covers
/// the whole run. A learner reads a few hundred; the cap keeps a run of thousands of events
/// (`MAX_EVENTS`) from printing, and snapshotting, gigabytes.
pub const MAX_TOLD_ENTRIES: usize = 5_000;

/// At most this many items of one list are named in a state line (messages of one state,
/// inbox rows, ledger effects, balances, …); the rest are counted.
pub const MAX_LISTED: usize = 24;

/// The narrated report of `r`, the run of `scenario` with scheduling choices `script`,
/// ending with `replay`, the command that replays it.
///
/// The steps are told from a second run of the same scenario and script, which `runner`
/// runs watched entry by entry (see [`Runner::watch`]): it keeps one snapshot at a time, so
/// memory does not grow with the run's length. Runs are deterministic, and the two traces'
/// hashes are compared to make sure the told run is `r`.
#[allow(clippy::too_many_arguments)]
pub fn explain_text(
    runner: &dyn Runner,
    scenario: &Scenario,
    script: &[u32],
    r: &RunResult,
    replay: &str,
    failures: Option<&[ExpectationFailure]>,
    lang: Lang,
    paint: Paint,
) -> String {
    let story = story(runner, scenario, script, r, lang);
    let judgement = r.judgement(failures.map(<[ExpectationFailure]>::len));
    let mut out = crate::report::text::verdict_line_in(lang, paint, &judgement);
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

/// Tells `r`, the run of `scenario` with scheduling choices `script`, in `lang`.
///
/// The steps are told from a second run of the same scenario and script, which `runner`
/// runs watched entry by entry (see [`Runner::watch`]): it keeps one snapshot at a time.
/// Runs are deterministic, and the two traces' hashes are compared to make sure the told
/// run is `r`.
pub fn story(
    runner: &dyn Runner,
    scenario: &Scenario,
    script: &[u32],
    r: &RunResult,
    lang: Lang,
) -> Story {
    let mut teller = Teller::new(runner, Narrator::new(scenario, r, lang));
    let initial_database = teller.database.clone();
    tell(runner, scenario, script, r, &mut teller);
    teller.into_story(initial_database, r)
}

/// [`story`] in English and in Spanish, told from one run watched by both tellers: the
/// snapshots, most of a story's cost (the database read after every entry), are read
/// once for both languages.
pub fn stories(
    runner: &dyn Runner,
    scenario: &Scenario,
    script: &[u32],
    r: &RunResult,
) -> [Story; 2] {
    let mut both = [Lang::En, Lang::Es].map(|l| Teller::new(runner, Narrator::new(scenario, r, l)));
    let initial = both.each_ref().map(|t| t.database.clone());
    tell(runner, scenario, script, r, &mut Both(&mut both));
    let [en, es] = both;
    let [en_initial, es_initial] = initial;
    [en.into_story(en_initial, r), es.into_story(es_initial, r)]
}

/// Two tellers watching one run, each told every entry with the same snapshot.
struct Both<'t, 'a>(&'t mut [Teller<'a>; 2]);

impl world::Observer for Both<'_, '_> {
    fn observe(&mut self, entry: &TraceEntry, after: Snapshot) -> bool {
        let [first, second] = &mut *self.0;
        let more = first.observe(entry, after.clone());
        // Both tell the same entries, so both want the next one or neither does.
        second.observe(entry, after) && more
    }
}

/// Has `runner` run `scenario` with `script` again, watched by `teller`, and checks that it
/// is the run `r`.
fn tell(
    runner: &dyn Runner,
    scenario: &Scenario,
    script: &[u32],
    r: &RunResult,
    teller: &mut dyn world::Observer,
) {
    let told = runner.watch(scenario, script, teller);
    assert_eq!(
        (told.trace.hash_hex(), told.trace.len()),
        (r.trace.hash_hex(), r.trace.len()),
        "the told run is not the run to tell: runs are deterministic"
    );
}

/// How many entries of `r`, the run of `scenario` with `script`, no specific sentence of the
/// catalogue fits, so that they are told as the trace says them, in English. A test keeps
/// this at zero for every scenario in both languages.
pub fn untold_entries(
    runner: &dyn Runner,
    scenario: &Scenario,
    script: &[u32],
    r: &RunResult,
    lang: Lang,
) -> usize {
    let mut teller = Teller::new(runner, Narrator::new(scenario, r, lang));
    tell(runner, scenario, script, r, &mut teller);
    teller.narrator.fallbacks.get()
}

/// Tells a run entry by entry as it goes (the [`world::Observer`] of `explain`): a step per
/// entry, with the state lines that changed. It keeps the previous entry's state as the
/// lines it told, not as a snapshot.
struct Teller<'a> {
    narrator: Narrator<'a>,
    steps: Vec<ToldStep>,
    /// The previous entry's state: what the narrator compares with (its committed part and
    /// open transactions), and its broker, database and open-transaction lines.
    before: Snapshot,
    broker: String,
    database: String,
    open: Vec<String>,
}

impl<'a> Teller<'a> {
    /// The story told, starting from `initial_database`, of `r`.
    fn into_story(self, initial_database: String, r: &RunResult) -> Story {
        let n = &self.narrator;
        Story {
            initial_database,
            untold: r.trace.len() - self.steps.len(),
            anomalies: anomaly_sentences(n),
            failure_points: failure_points(n),
            steps: self.steps,
        }
    }

    fn new(runner: &dyn Runner, narrator: Narrator<'a>) -> Teller<'a> {
        let before = initial_snapshot(runner, narrator.scenario, narrator.r);
        Teller {
            broker: narrator.broker_line(&before),
            database: narrator.database_line(&before.committed),
            open: Vec::new(),
            narrator,
            steps: Vec::new(),
            before,
        }
    }
}

impl world::Observer for Teller<'_> {
    fn observe(&mut self, entry: &TraceEntry, after: Snapshot) -> bool {
        let (sentence, alarm) = self.narrator.narrate(entry, &self.before, &after);
        let mut states = Vec::new();
        // A line is told when it changed; it is worded again only when its state did
        // (a run of thousands of events would otherwise word thousands of items per step).
        if after.messages != self.before.messages {
            let broker = self.narrator.broker_line(&after);
            if broker != self.broker {
                states.push((StateLabel::Broker, broker.clone()));
                self.broker = broker;
            }
        }
        if !Rc::ptr_eq(&after.committed, &self.before.committed) {
            let database = self.narrator.database_line(&after.committed);
            if database != self.database {
                states.push((StateLabel::Database, database.clone()));
                self.database = database;
            }
        }
        let open = self.narrator.open_lines(&after);
        for line in &open {
            if !self.open.contains(line) {
                states.push((StateLabel::OpenTransaction, line.clone()));
            }
        }
        self.open = open;
        self.before = after;
        self.steps.push(ToldStep {
            entry: self.steps.len(),
            tick: entry.tick,
            sentence,
            alarm,
            states,
        });
        self.steps.len() < MAX_TOLD_ENTRIES
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

/// The database before the first step: the accounts' opening balances, nothing else.
fn initial_snapshot(runner: &dyn Runner, scenario: &Scenario, r: &RunResult) -> Snapshot {
    if scenario.store.custom.is_some() {
        return Snapshot {
            messages: Vec::new(),
            committed: Rc::new(runner.initial_committed(scenario, &r.events)),
            open: Vec::new(),
        };
    }
    let mut committed = CommittedState::default();
    for a in scenario.workload.accounts() {
        committed
            .balances
            .insert(a.name.clone(), a.initial_balance_minor);
    }
    Snapshot {
        messages: Vec::new(),
        committed: Rc::new(committed),
        open: Vec::new(),
    }
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

/// What one open transaction has written beyond the committed state: the rows it added and
/// the balances it changed.
#[derive(Default)]
struct TxWrites {
    /// On a server: the transaction's writes were not read (see
    /// [`crate::world::OpenTransaction::unseen`]); the lists are empty.
    unseen: bool,
    items: Vec<TxItem>,
    balances: Vec<(String, i64)>,
    /// With the scenario's own schema: the rows it added to (or removed from) each table.
    rows: Vec<(String, i64)>,
}

/// Turns trace entries into sentences, remembering what it needs from earlier entries.
struct Narrator<'a> {
    lang: Lang,
    scenario: &'a Scenario,
    r: &'a RunResult,
    ids: BTreeMap<&'a str, EventIndex>,
    /// Every account's opening balance.
    opening: BTreeMap<String, i64>,
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
            ids: r
                .events
                .iter()
                .map(|e| (e.event_id.as_str(), e.index))
                .collect(),
            opening: scenario
                .workload
                .accounts()
                .into_iter()
                .map(|a| (a.name, a.initial_balance_minor))
                .collect(),
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
    use super::state::ranged;

    fn plain(events: &[usize]) -> Vec<(usize, Option<String>)> {
        events.iter().map(|e| (*e, None)).collect()
    }

    #[test]
    fn consecutive_plain_events_are_ranges_and_other_items_stand_alone() {
        assert_eq!(ranged(plain(&[0, 1, 2, 5])), ["e0–e2", "e5"]);
        assert_eq!(ranged(plain(&[0, 1])), ["e0", "e1"]);
        assert_eq!(ranged(plain(&[])), Vec::<String>::new());
        // An item with text of its own breaks a run, and is written as it is.
        let mut items = plain(&[0, 1, 2]);
        items.push((3, Some("e3 ×2".into())));
        items.extend(plain(&[4, 5, 6, 8]));
        assert_eq!(ranged(items), ["e0–e2", "e3 ×2", "e4–e6", "e8"]);
        // The same event twice is named twice; an unknown event (usize::MAX) ends a run
        // without overflowing.
        assert_eq!(ranged(plain(&[3, 3])), ["e3", "e3"]);
        assert_eq!(
            ranged(plain(&[usize::MAX - 1, usize::MAX])),
            [format!("e{}", usize::MAX - 1), format!("e{}", usize::MAX)]
        );
        assert_eq!(ranged(plain(&[usize::MAX, usize::MAX])).len(), 2);
    }
}
