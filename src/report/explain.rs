//! `explain`: one run told step by step, for a learner, in English or Spanish.
//!
//! The narration watches the run again as it goes ([`crate::world::run_observed`]): each
//! trace entry says what an actor did, and the snapshot after it says where every message
//! stands at the broker, what the database has committed and what each open transaction
//! holds; only the previous entry's state is kept. Each entry becomes a sentence that says what happened and why it matters, followed
//! by the states that changed. The report ends with a plain-words explanation of every
//! anomaly, the verdict per boundary, and the failure-point table of the run (point of
//! failure, confirmed state, recovery, outcome: the seeds' table), built from the crash
//! records and [`Recovery`], as the matrix builds it.
//!
//! Every sentence comes from the catalogue in [`super::lang`]; this module decides which
//! sentence fits, never how it is worded.

use super::json::anomalies;
use super::lang::{DupCause, Lang, Phase, SideCrash, StateLabel, TxItem};
use super::paint::Paint;
use crate::broker::MessageState;
use crate::check::{Outcome, ScopeOutcome};
use crate::explore::Recovery;
use crate::fault::CrashRecord;
use crate::model::{
    Boundary, CommittedState, DbOutcome, EventIndex, EventType, Guarantee, Side, Step,
};
use crate::scenario::Scenario;
use crate::sim::{Actor, StopReason, TraceEntry};
use crate::world::{self, RunOptions, RunResult, Snapshot};
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
/// The steps are told from a second run of the same scenario and script, watched entry by
/// entry (see [`world::run_observed`]): it keeps one snapshot at a time, so memory does not
/// grow with the run's length. Runs are deterministic, and the two traces' hashes are
/// compared to make sure the told run is `r`.
pub fn explain_text(
    scenario: &Scenario,
    script: &[u32],
    r: &RunResult,
    replay: &str,
    failures: Option<&[String]>,
    lang: Lang,
    paint: Paint,
) -> String {
    let mut out = String::new();
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
    let mut teller = Teller::new(Narrator::new(scenario, r, lang), paint, tick_width);
    teller.out = out;
    let initial = teller.database.clone();
    teller.state(StateLabel::Database, &initial);
    tell(scenario, script, r, &mut teller);
    let (n, mut out) = (teller.narrator, teller.out);
    if teller.told < r.trace.len() {
        out.push_str(&wrap(
            &lang.untold_entries(r.trace.len() - teller.told, MAX_TOLD_ENTRIES),
            "",
            0,
        ));
    }
    anomalies_section(&mut out, &n, paint);
    verdict_section(&mut out, r, lang, paint);
    failure_points(&mut out, &n, paint);
    let _ = writeln!(out);
    match failures {
        None => {}
        Some([]) => {
            let _ = writeln!(out, "{}", paint.good(&lang.expect_held_sentence()));
        }
        Some(failures) => {
            let _ = writeln!(out, "{}", paint.bad(&lang.expect_failed_sentence()));
            for f in failures {
                let _ = writeln!(out, "  - {f}");
            }
        }
    }
    let _ = writeln!(out, "{}", lang.replay_sentence(replay));
    out
}

/// Runs `scenario` with `script` again, watched by `teller`, and checks that it is the run
/// `r`.
fn tell(scenario: &Scenario, script: &[u32], r: &RunResult, teller: &mut Teller<'_>) {
    let options = RunOptions {
        hash_only: true,
        ..RunOptions::default()
    };
    let told = world::run_observed(scenario, options, script, teller);
    assert_eq!(
        (told.trace.hash_hex(), told.trace.len()),
        (r.trace.hash_hex(), r.trace.len()),
        "the told run is not the run to tell: runs are deterministic"
    );
}

/// How many entries of `r`, the run of `scenario` with `script`, no specific sentence of the
/// catalogue fits, so that they are told as the trace says them, in English. A test keeps
/// this at zero for every scenario in both languages.
pub fn untold_entries(scenario: &Scenario, script: &[u32], r: &RunResult, lang: Lang) -> usize {
    let mut teller = Teller::new(Narrator::new(scenario, r, lang), Paint::new(false), 0);
    tell(scenario, script, r, &mut teller);
    teller.narrator.fallbacks.get()
}

/// Tells a run entry by entry as it goes (the [`world::Observer`] of `explain`): a sentence
/// per entry, then the state lines that changed. It keeps the previous entry's state as the
/// lines it printed, not as a snapshot.
struct Teller<'a> {
    narrator: Narrator<'a>,
    paint: Paint,
    tick_width: usize,
    out: String,
    /// Entries told so far.
    told: usize,
    /// The previous entry's state: what the narrator compares with (its committed part and
    /// open transactions), and its broker, database and open-transaction lines.
    before: Snapshot,
    broker: String,
    database: String,
    open: Vec<String>,
}

impl<'a> Teller<'a> {
    fn new(narrator: Narrator<'a>, paint: Paint, tick_width: usize) -> Teller<'a> {
        let before = initial_snapshot(narrator.scenario);
        Teller {
            broker: narrator.broker_line(&before),
            database: narrator.database_line(&before.committed),
            open: Vec::new(),
            narrator,
            paint,
            tick_width,
            out: String::new(),
            told: 0,
            before,
        }
    }

    /// A state line under the current step.
    fn state(&mut self, label: StateLabel, text: &str) {
        let line = state_line(self.narrator.lang, self.paint, self.tick_width, label, text);
        self.out.push_str(&line);
        self.out.push('\n');
    }
}

impl world::Observer for Teller<'_> {
    fn observe(&mut self, entry: &TraceEntry, after: Snapshot) -> bool {
        let (sentence, alarm) = self.narrator.narrate(entry, &self.before, &after);
        let tick_width = self.tick_width;
        let prefix = format!("{:<tick_width$}", format!("t={}", entry.tick));
        let text = wrap(&sentence, &prefix, tick_width);
        self.out.push_str(&if alarm {
            paint_lines(&text, |l| self.paint.bad(l))
        } else {
            text
        });
        // A line is printed when it changed; it is worded again only when its state did
        // (a run of thousands of events would otherwise word thousands of items per step).
        if after.messages != self.before.messages {
            let broker = self.narrator.broker_line(&after);
            if broker != self.broker {
                self.state(StateLabel::Broker, &broker);
                self.broker = broker;
            }
        }
        if !Rc::ptr_eq(&after.committed, &self.before.committed) {
            let database = self.narrator.database_line(&after.committed);
            if database != self.database {
                self.state(StateLabel::Database, &database);
                self.database = database;
            }
        }
        let open = self.narrator.open_lines(&after);
        for line in &open {
            if !self.open.contains(line) {
                self.state(StateLabel::OpenTransaction, line);
            }
        }
        self.open = open;
        self.before = after;
        self.told += 1;
        self.told < MAX_TOLD_ENTRIES
    }
}

/// The scenario, its protocol and the run's set-up, then how to read what follows.
fn header(out: &mut String, scenario: &Scenario, r: &RunResult, lang: Lang) {
    let _ = writeln!(out, "{}{}", pad(lang.label_explain()), scenario.name);
    if !scenario.description.is_empty() {
        out.push_str(&wrap(&scenario.description, &pad(""), 11));
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
            scenario.workload.accounts,
            &planned
        )
    );
    out.push('\n');
    out.push_str(&wrap(&lang.how_to_read(), "", 0));
}

/// The database before the first step: the accounts' opening balances, nothing else.
fn initial_snapshot(scenario: &Scenario) -> Snapshot {
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
/// seeds' table. `None` for a protocol without both steps, or a step of another actor.
pub fn phase(steps: &[Step], at: Boundary) -> Option<Phase> {
    let position = |step: Step| steps.iter().position(|s| *s == step);
    let (commit, ack, here) = (
        position(Step::Commit)?,
        position(Step::Ack)?,
        position(at.step)?,
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
struct TxWrites {
    items: Vec<TxItem>,
    balances: Vec<(String, i64)>,
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
        self.lang.fallback(who, entry.action, &entry.outcome)
    }

    fn ev(&self, entry: &TraceEntry) -> String {
        self.lang.ev(entry.event.unwrap_or(0), entry.copy)
    }

    /// The sentence for one entry, and whether it reports something going wrong (a crash).
    fn narrate(
        &mut self,
        entry: &TraceEntry,
        before: &Snapshot,
        after: &Snapshot,
    ) -> (String, bool) {
        let l = self.lang;
        match entry.actor {
            Actor::Consumer(c) => self.consumer(c, entry, before, after),
            Actor::Broker => (self.broker(entry, before, after), false),
            Actor::Producer if entry.action == "crash" => self.side_crash(entry, before),
            Actor::Producer => (self.producer(entry), false),
            Actor::Relay | Actor::EmailRelay if entry.action == "crash" => {
                self.side_crash(entry, before)
            }
            Actor::Relay | Actor::EmailRelay => (self.relay(entry), false),
            Actor::Cleanup if entry.outcome.starts_with("deleted") => {
                let events = entry.outcome.rsplit("): ").next().unwrap_or("");
                let ttl = self.scenario.store.retention.map_or(0, |r| r.ttl_ticks);
                (l.cleanup_deleted(events, ttl), false)
            }
            Actor::Cleanup => (l.cleanup_busy(), false),
            Actor::Sim if entry.action == "heal" => (
                l.healing_begins(
                    entry.outcome.starts_with("step limit"),
                    self.scenario.limits.max_steps,
                    self.scenario.limits.max_ticks,
                ),
                true,
            ),
            Actor::Sim => (l.run_stopped(entry.outcome.starts_with("step limit")), true),
        }
    }

    fn consumer(
        &mut self,
        c: usize,
        entry: &TraceEntry,
        before: &Snapshot,
        after: &Snapshot,
    ) -> (String, bool) {
        let l = self.lang;
        let who = format!("consumer{c}");
        // The message (`e1 copy1`) for what the broker hands over and takes back; the event
        // (`e1`) for what the database knows.
        let ev = self.ev(entry);
        let base = l.ev(entry.event.unwrap_or(0), 0);
        let o = entry.outcome.as_str();
        let is = |outcome: DbOutcome| o == outcome.describe();
        let in_tx = before.open.iter().any(|t| t.consumer == c);
        let key = (entry.event.unwrap_or(0), entry.copy, entry.delivery);
        if is(DbOutcome::Busy { done: 0 }) || o.starts_with("SQLITE_BUSY:") {
            return (l.busy(&who, entry.action), false);
        }
        if is(DbOutcome::StaleSnapshot) {
            return (l.stale_snapshot(&who), false);
        }
        if o.starts_with("failed (injected)") {
            return (l.step_failed(&who, entry.action, &ev), true);
        }
        if o.starts_with("refused: the payload is invalid") {
            return (l.payload_refused(&who, &ev), true);
        }
        if is(DbOutcome::PayloadMismatch) {
            self.refused.insert(key);
            return (l.payload_mismatch(&who, &base), true);
        }
        let text = match entry.action {
            "receive" if entry.event.is_none() => l.waiting(&who),
            "receive" => l.receive(&who, &ev, entry.delivery),
            "begin" => l.begin(&who, &ev),
            "check_inbox" if is(DbOutcome::Found) => {
                self.discarded.insert(key);
                l.check_found(&who, &base)
            }
            "check_inbox" => l.check_not_found(&who, &base),
            "insert_inbox" if is(DbOutcome::Duplicate) => {
                self.discarded.insert(key);
                l.inbox_duplicate(&who, &base)
            }
            "insert_inbox" if in_tx => {
                l.inbox_inserted(&who, &base, self.scenario.store.inbox_unique)
            }
            "insert_inbox" => l.inbox_inserted_autocommit(&who, &base),
            "apply_effect" => self.effect(c, entry, after, in_tx),
            "commit" if is(DbOutcome::Committed) => {
                let writes = self.writes_of(c, before);
                l.commit(&who, &self.tx_list(&writes))
            }
            "commit" if o.starts_with("COMMIT timed out") => l.commit_timeout(
                &who,
                o.contains("it DID commit"),
                self.scenario.consumer.on_commit_timeout,
            ),
            "rollback" => {
                let writes = self.writes_of(c, before);
                l.rollback(&who, &self.tx_list(&writes))
            }
            "ack" => self.ack(&who, entry, after),
            "nack" => l.nack(&who, &ev),
            "alert" if is(DbOutcome::AlertRecorded) => l.alert_recorded(&who, &base),
            "alert" => l.alert_exists(&who, &base),
            "lookup" if o.starts_with("inbox row found") => l.lookup_found(&who, &base),
            "lookup" => l.lookup_not_found(&who, &base),
            "external_effect" => l.external_effect(&who, &base),
            "enqueue_email" => l.email_queued(&who, &base),
            "produce_output" if o.contains("staged") => l.output_staged(&who, &base),
            "produce_output" => l.output_published(&who, &base),
            "crash" if o.starts_with("crash at") => {
                let writes = self.writes_of(c, before);
                let held = self.tx_list(&writes);
                self.crashed_with.insert(c, held);
                return (self.crash(&who, entry), true);
            }
            "crash" => {
                let held = self.crashed_with.remove(&c).unwrap_or_default();
                return (l.crash_rollback(&who, &held), true);
            }
            "restart" => l.restart(&who),
            "stall" => {
                let ticks = o
                    .split(" for ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                l.stall(&who, &ev, ticks)
            }
            "stop" => return (l.stop_rollback(&who), true),
            "sleep" => {
                let ticks = o
                    .split("sleeps ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                l.sleep(&who, &base, ticks)
            }
            _ => self.fallback(&who, entry),
        };
        (text, false)
    }

    fn effect(&mut self, c: usize, entry: &TraceEntry, after: &Snapshot, in_tx: bool) -> String {
        let l = self.lang;
        let who = format!("consumer{c}");
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        let o = entry.outcome.as_str();
        let is = |outcome: DbOutcome| o == outcome.describe();
        let e = &self.r.events[entry.event.unwrap_or(0)];
        if is(DbOutcome::Applied) && e.event_type == EventType::TransferCompleted {
            return l.completion_applied(&who, &ev, &e.transfer_id, in_tx);
        }
        if is(DbOutcome::Applied) {
            // The amount as applied: a copy with another payload carries another amount.
            let view = after
                .open
                .iter()
                .find(|t| t.consumer == c)
                .and_then(|t| t.view.as_ref())
                .unwrap_or(&after.committed);
            let amount = view
                .credit_amounts
                .get(&e.event_id)
                .and_then(|a| a.last().copied())
                .unwrap_or(e.amount_minor);
            return l.effect_applied(&who, &ev, &e.source, &e.target, amount, in_tx);
        }
        if is(DbOutcome::CreditFailed) {
            return l.credit_failed(&who, &ev);
        }
        if is(DbOutcome::Buffered) {
            return l.effect_buffered(&who, &ev);
        }
        if is(DbOutcome::AppliedWithPending) {
            return l.effect_applied_with_pending(&who, &ev);
        }
        if is(DbOutcome::Rejected) {
            return l.effect_rejected(&who, &ev);
        }
        if is(DbOutcome::BusinessDuplicate) {
            self.discarded
                .insert((entry.event.unwrap_or(0), entry.copy, entry.delivery));
            return l.business_duplicate(&who, &ev);
        }
        if is(DbOutcome::AlreadyCompleted) {
            return l.already_completed(&who, &ev);
        }
        if o.starts_with("balances read") {
            return l.balances_read(&who, &ev);
        }
        self.fallback(&who, entry)
    }

    fn ack(&self, who: &str, entry: &TraceEntry, after: &Snapshot) -> String {
        let l = self.lang;
        let ev = self.ev(entry);
        let o = entry.outcome.as_str();
        if o.starts_with("ack lost") {
            return l.ack_lost(who, &ev);
        }
        if o.starts_with("stale ack ignored") {
            return l.ack_stale(who, &ev);
        }
        if o.starts_with("already acked") {
            return l.ack_already(who, &ev);
        }
        if o.starts_with("stale ack accepted") {
            return l.ack_stale_accepted(who, &ev);
        }
        if o.starts_with("processed:") {
            return l.ack_log(who, &ev);
        }
        let event = entry.event.unwrap_or(0);
        let e = &self.r.events[event];
        let effect = after
            .committed
            .ledger
            .get(&e.event_id)
            .is_some_and(|x| x.debits.max(x.credits).max(x.completions) > 0)
            || after.committed.rejected.contains_key(&e.event_id);
        let key = (event, entry.copy, entry.delivery);
        if self.refused.contains(&key) {
            return l.ack_after_refusal(who, &ev);
        }
        if self.discarded.contains(&key) {
            return l.ack_after_duplicate(who, &ev);
        }
        if effect {
            return l.ack_after_commit(who, &ev);
        }
        let steps = &self.scenario.protocol.steps;
        let position = |step| steps.iter().position(|s| *s == step);
        match (position(Step::Ack), position(Step::Commit)) {
            (Some(a), Some(c)) if a < c => l.ack_before_commit(who, &ev),
            _ => l.ack_without_effect(who, &ev),
        }
    }

    fn crash(&mut self, who: &str, entry: &TraceEntry) -> String {
        let crash = self.next_crash();
        let l = self.lang;
        let phase = phase(&self.scenario.protocol.steps, crash.point.boundary);
        let c = crash.confirmed;
        l.crash(
            who,
            &crash.point.to_string(),
            crash.cause,
            phase,
            &l.confirmed(&c),
            &l.crash_consequence(
                &self.ev(entry),
                c.ledger_rows > 0,
                c.inbox_rows > 0,
                c.acked,
            ),
        )
    }

    fn side_crash(&mut self, entry: &TraceEntry, before: &Snapshot) -> (String, bool) {
        let l = self.lang;
        let who = l.actor(entry.actor);
        if !entry.outcome.starts_with("crash at") {
            let _ = before;
            return (l.side_rollback(&who), true);
        }
        let crash = self.next_crash();
        let left = side_crash_left(self.scenario, crash.point.boundary);
        (
            l.side_crash(
                &who,
                &crash.point.to_string(),
                crash.cause,
                left,
                &l.ev(crash.point.event, 0),
            ),
            true,
        )
    }

    fn next_crash(&mut self) -> CrashRecord {
        let crash = self.r.crashes[self.crashes_seen];
        self.crashes_seen += 1;
        crash
    }

    fn broker(&self, entry: &TraceEntry, before: &Snapshot, after: &Snapshot) -> String {
        let l = self.lang;
        let ev = self.ev(entry);
        let o = entry.outcome.as_str();
        match entry.action {
            "deliver" => {
                let consumer = o
                    .rsplit("consumer")
                    .next()
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(0);
                l.deliver(&ev, &format!("consumer{consumer}"), entry.delivery)
            }
            "duplicate" => l.broker_duplicate(&ev),
            "requeue" => l.requeue(&ev),
            "visible" => l.visible(&ev),
            "lease expired" => l.lease_expired(&ev),
            "late replay" => l.late_replay(&ev),
            "connection lost" => {
                let consumer = o
                    .strip_prefix("consumer")
                    .and_then(|c| c.split(|ch: char| !ch.is_ascii_digit()).next())
                    .unwrap_or("0");
                let who = format!("consumer{consumer}");
                if o.contains("left the group") {
                    return l.rebalance(&who);
                }
                let released: Vec<String> = before
                    .messages
                    .iter()
                    .zip(&after.messages)
                    .filter(|(b, a)| {
                        matches!(b.state, MessageState::InFlight { .. })
                            && !matches!(a.state, MessageState::InFlight { .. })
                    })
                    .map(|(_, a)| l.ev(a.event, a.copy))
                    .collect();
                l.connection_lost(&who, &l.list(&released))
            }
            "dead-letter" => l.dead_lettered(&ev, entry.delivery, o.contains("parked until")),
            "dlq replay" if entry.event.is_none() => l.dlq_empty(),
            "dlq replay" => l.dlq_replayed(&ev),
            "transaction" if o.contains("commits") => l.broker_tx_commit(&ev),
            "transaction" => l.broker_tx_refused(&ev),
            "abort" => l.broker_tx_abort(&ev),
            _ => self.fallback(&l.actor(Actor::Broker), entry),
        }
    }

    /// `e3` from an outcome that starts with it (`e3 published: confirmed`).
    fn leading_event(&self, text: &str) -> Option<String> {
        let rest = text.strip_prefix('e')?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let index: usize = digits.parse().ok()?;
        Some(self.lang.ev(index, 0))
    }

    fn producer(&self, entry: &TraceEntry) -> String {
        let l = self.lang;
        let o = entry.outcome.as_str();
        // A producer's `copy` counts earlier publications of the intent: the event is `e1`.
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        match entry.action {
            "publish" => {
                // A producer process names the event it published first; a direct
                // publication is about the entry's event.
                let published = self.leading_event(o).unwrap_or_else(|| ev.clone());
                let event = &self.r.events[entry.event.unwrap_or(0)];
                let what = if o.contains("new event_id") {
                    l.publish_minted(&published)
                } else if o.contains("ANOTHER payload") {
                    l.publish_altered(&ev, entry.copy)
                } else if o.contains("republished") {
                    l.republish(&l.ev(entry.event.unwrap_or(0), 0), entry.copy)
                } else {
                    l.publish(
                        &published,
                        event.event_type,
                        &event.source,
                        &event.target,
                        event.amount_minor,
                    )
                };
                if o.contains("timed out") {
                    l.with_publish_timeout(&what)
                } else {
                    what
                }
            }
            "timeout" => l.publish_timeout(
                &self
                    .leading_event(o.trim_start_matches("no confirmation for "))
                    .unwrap_or(ev),
            ),
            "insert_transfer" if o.starts_with("BEGIN; transfer and outbox row") => {
                l.insert_transfer(&ev, true)
            }
            "insert_transfer" if o.starts_with("BEGIN;") => l.insert_transfer(&ev, false),
            "insert_transfer" if o.starts_with("transfer already committed") => {
                l.transfer_already_recorded(&ev)
            }
            "commit_transfer" if o == "COMMIT" => l.commit_transfer(&ev),
            "insert_transfer" | "commit_transfer" => {
                l.busy(&l.actor(Actor::Producer), entry.action)
            }
            "restart" => l.producer_restart(o.contains("retries")),
            "stop" => l.side_rollback(&l.actor(Actor::Producer)),
            _ => self.fallback(&l.actor(Actor::Producer), entry),
        }
    }

    fn relay(&self, entry: &TraceEntry) -> String {
        let l = self.lang;
        let o = entry.outcome.as_str();
        let who = l.actor(entry.actor);
        // A relay's `copy` counts earlier sends of the row's event: the event is `e1`.
        let ev = l.ev(entry.event.unwrap_or(0), 0);
        match entry.action {
            "poll" => l.relay_idle(&who),
            "relay_publish" => {
                let published = o
                    .split(": ")
                    .nth(1)
                    .and_then(|rest| self.leading_event(rest))
                    .unwrap_or(ev);
                l.relay_publish(&who, &published)
            }
            "send_email" => l.send_email(
                &who,
                &ev,
                o.contains("idempotency key") && !o.contains("without"),
            ),
            "mark_sent" | "mark_email_sent" if o.starts_with("SQLITE_BUSY") => {
                l.busy(&who, entry.action)
            }
            "mark_sent" | "mark_email_sent" => l.mark_sent(&who, &ev),
            "restart" => l.relay_restart(&who),
            _ => self.fallback(&who, entry),
        }
    }

    /// What consumer `c`'s open transaction had written in `snapshot`.
    fn writes_of(&self, c: usize, snapshot: &Snapshot) -> Option<TxWrites> {
        let tx = snapshot.open.iter().find(|t| t.consumer == c)?;
        let view = tx.view.as_ref()?;
        Some(self.diff(&snapshot.committed, view))
    }

    fn diff(&self, committed: &CommittedState, view: &CommittedState) -> TxWrites {
        let index = |id: &str| self.ids.get(id).copied();
        let mut items = Vec::new();
        for (id, n) in &view.inbox {
            if *n > committed.inbox.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::Inbox));
            }
        }
        for (id, counts) in &view.ledger {
            let was = committed.ledger.get(id).copied().unwrap_or_default();
            let Some(e) = index(id) else { continue };
            let (debit, credit, completion) = (
                counts.debits > was.debits,
                counts.credits > was.credits,
                counts.completions > was.completions,
            );
            match (debit, credit) {
                (true, true) => items.push(TxItem::Effect(e)),
                (true, false) => items.push(TxItem::Debit(e)),
                (false, true) => items.push(TxItem::Credit(e)),
                (false, false) => {}
            }
            if completion {
                items.push(TxItem::Completion(e));
            }
        }
        for (id, n) in &view.rejected {
            if *n > committed.rejected.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::Rejection));
            }
        }
        for (id, n) in &view.pending {
            if *n > committed.pending.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::Pending));
            }
        }
        for (id, n) in &committed.pending {
            if *n > view.pending.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::PendingCleared));
            }
        }
        let balances = view
            .balances
            .iter()
            .filter(|(account, b)| committed.balances.get(*account) != Some(b))
            .map(|(a, b)| (a.clone(), *b))
            .collect();
        TxWrites { items, balances }
    }

    /// The rows a transaction wrote, one phrase each.
    fn tx_list(&self, writes: &Option<TxWrites>) -> Vec<String> {
        writes
            .iter()
            .flat_map(|w| w.items.iter().map(|i| self.lang.tx_item(*i)))
            .collect()
    }

    /// Every message grouped by state: `in flight: e1 (consumer0, d1) · ready: e2–e4`.
    fn broker_line(&self, s: &Snapshot) -> String {
        let l = self.lang;
        let mut groups: BTreeMap<usize, Vec<(usize, u32, Option<String>)>> = BTreeMap::new();
        for m in &s.messages {
            let (order, detail) = match m.state {
                MessageState::InFlight { consumer, attempt } => {
                    (0, Some(format!("consumer{consumer}, d{attempt}")))
                }
                MessageState::Redelivering { at } => (1, Some(format!("t={at}"))),
                MessageState::Ready => (2, None),
                MessageState::Acked { .. } => (3, None),
                MessageState::DeadLettered { .. } => (4, None),
            };
            groups
                .entry(order)
                .or_default()
                .push((m.event, m.copy, detail));
        }
        if groups.is_empty() {
            return l.broker_empty();
        }
        groups
            .into_iter()
            .map(|(order, mut items)| {
                items.sort();
                format!("{}: {}", l.message_state(order), self.messages(&items))
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Messages in event order; runs of plain first publications as ranges (`e2–e4`).
    fn messages(&self, items: &[(usize, u32, Option<String>)]) -> String {
        let items = items.iter().map(|(event, copy, detail)| {
            let plain = *copy == 0 && detail.is_none();
            let name = (!plain).then(|| {
                let name = self.lang.ev(*event, *copy);
                match detail {
                    Some(d) => format!("{name} ({d})"),
                    None => name,
                }
            });
            (*event, name)
        });
        self.listed(ranged(items)).join(", ")
    }

    /// At most [`MAX_LISTED`] of `items`, then how many more there are.
    fn listed(&self, mut items: Vec<String>) -> Vec<String> {
        if items.len() > MAX_LISTED {
            let more = items.len() - MAX_LISTED;
            items.truncate(MAX_LISTED);
            items.push(self.lang.more_items(more));
        }
        items
    }

    /// The committed database in one line: inbox rows, ledger effects, balances, and the
    /// rejections and alerts when there are any. Events counted once are written as ranges.
    fn database_line(&self, c: &CommittedState) -> String {
        let l = self.lang;
        let index = |id: &str| self.ids.get(id).copied().unwrap_or(usize::MAX);
        let mut inbox: Vec<(usize, u32)> = c.inbox.iter().map(|(id, n)| (index(id), *n)).collect();
        inbox.sort();
        let inbox = ranged(
            inbox
                .iter()
                .map(|(e, n)| (*e, (*n != 1).then(|| times(&format!("e{e}"), *n)))),
        );
        let mut ledger: Vec<(usize, Option<String>)> = c
            .ledger
            .iter()
            .map(|(id, counts)| {
                let e = index(id);
                let text = if counts.completions > 0 && counts.debits == 0 {
                    Some(l.ledger_completion(e, counts.completions))
                } else if counts.debits != counts.credits {
                    Some(l.ledger_torn(e, counts.debits, counts.credits))
                } else {
                    (counts.debits != 1).then(|| times(&format!("e{e}"), counts.debits))
                };
                (e, text)
            })
            .collect();
        ledger.sort();
        let ledger = ranged(ledger);
        let mut parts = vec![
            l.db_part_inbox(&self.listed(inbox)),
            l.db_part_ledger(&self.listed(ledger)),
            self.balances_part(c),
        ];
        let events = |ids: &mut dyn Iterator<Item = &String>| -> String {
            let mut events: Vec<usize> = ids.map(|id| index(id)).collect();
            events.sort_unstable();
            self.listed(ranged(events.into_iter().map(|e| (e, None))))
                .join(", ")
        };
        if !c.rejected.is_empty() {
            parts.push(l.db_part_rejected(&events(&mut c.rejected.keys())));
        }
        if !c.pending.is_empty() {
            parts.push(l.db_part_pending(&events(&mut c.pending.keys())));
        }
        if !c.payload_alerts.is_empty() {
            parts
                .push(l.db_part_alerts(&events(&mut c.payload_alerts.iter().map(|a| &a.event_id))));
        }
        parts.join(" · ")
    }

    /// Every balance, for a few accounts; for more than [`MAX_LISTED`], only those that are
    /// not at their opening balance, and how many are.
    fn balances_part(&self, c: &CommittedState) -> String {
        let l = self.lang;
        let show = |(a, b): (&String, &i64)| format!("{a} {b}");
        if c.balances.len() <= MAX_LISTED {
            let all: Vec<String> = c.balances.iter().map(show).collect();
            return l.db_part_balances(&all.join(", "));
        }
        let moved: Vec<String> = c
            .balances
            .iter()
            .filter(|(a, b)| self.opening.get(a.as_str()) != Some(*b))
            .map(show)
            .collect();
        let unmoved = c.balances.len() - moved.len();
        l.db_part_balances_moved(&self.listed(moved).join(", "), unmoved)
    }

    /// One line per open transaction: whose, for which event, and what it has written.
    fn open_lines(&self, s: &Snapshot) -> Vec<String> {
        let l = self.lang;
        s.open
            .iter()
            .map(|t| {
                let who = format!("consumer{}", t.consumer);
                let ev = t.event.map(|e| l.ev(e, 0));
                match &t.view {
                    None => l.open_nothing_yet(&who, ev.as_deref()),
                    Some(view) => {
                        let w = self.diff(&s.committed, view);
                        let mut items: Vec<String> =
                            w.items.iter().map(|i| l.tx_item(*i)).collect();
                        if !w.balances.is_empty() {
                            let b: Vec<String> =
                                w.balances.iter().map(|(a, v)| format!("{a} {v}")).collect();
                            items.push(l.tx_balances(&b.join(", ")));
                        }
                        l.open_written(&who, ev.as_deref(), &items.join(" · "))
                    }
                }
            })
            .collect()
    }
}

/// `e1`, or `e1 ×2` when there are two.
fn times(name: &str, n: u32) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name} ×{n}")
    }
}

/// Items in event order, as text: a plain item (`None`) is its event's name, and runs of
/// consecutive plain ones are ranges (`e2–e4`); any other item is its own text.
/// `[0, 1, 2, 5]` → `e0–e2`, `e5`; `[0, 1]` → `e0`, `e1`.
fn ranged(items: impl IntoIterator<Item = (usize, Option<String>)>) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let close = |run: &mut Option<(usize, usize)>, out: &mut Vec<String>| {
        if let Some((first, last)) = run.take() {
            match last - first {
                0 => out.push(format!("e{first}")),
                1 => out.extend([format!("e{first}"), format!("e{last}")]),
                _ => out.push(format!("e{first}–e{last}")),
            }
        }
    };
    for (event, text) in items {
        match text {
            None => match &mut run {
                Some((_, last)) if last.checked_add(1) == Some(event) => *last = event,
                _ => {
                    close(&mut run, &mut out);
                    run = Some((event, event));
                }
            },
            Some(text) => {
                close(&mut run, &mut out);
                out.push(text);
            }
        }
    }
    close(&mut run, &mut out);
    out
}

/// Per event, what in the trace of `r` made it come again without a crash: expired leases,
/// the broker's own duplicates, lost acks, republications, dead-letter replays, commit
/// timeouts, each once, in that order. One pass over the trace, for every event at once.
fn dup_causes(r: &RunResult) -> BTreeMap<EventIndex, Vec<DupCause>> {
    let mut by_event: BTreeMap<EventIndex, BTreeSet<DupCause>> = BTreeMap::new();
    for e in r.trace.entries() {
        let Some(event) = e.event else { continue };
        let o = e.outcome.as_str();
        let cause = match (e.actor, e.action) {
            (Actor::Broker, "lease expired") => DupCause::LeaseExpired,
            (Actor::Broker, "duplicate") => DupCause::BrokerDuplicate,
            (Actor::Broker, "dlq replay") => DupCause::DeadLetterReplay,
            (Actor::Consumer(_), "ack") if o.starts_with("ack lost") => DupCause::AckLost,
            (Actor::Consumer(_), "commit") if o.starts_with("COMMIT timed out") => {
                DupCause::CommitTimeout
            }
            (_, "publish" | "relay_publish") if o.contains("republished") || e.copy > 0 => {
                DupCause::Republished
            }
            _ => continue,
        };
        by_event.entry(event).or_default().insert(cause);
    }
    by_event
        .into_iter()
        .map(|(event, mut causes)| {
            // A lost ack comes back through the lease that expires for want of it: one cause.
            if causes.contains(&DupCause::AckLost) {
                causes.remove(&DupCause::LeaseExpired);
            }
            (event, causes.into_iter().collect())
        })
        .collect()
}

/// Every anomaly of the verdict, in plain words: why it happened, not only what.
fn anomalies_section(out: &mut String, n: &Narrator<'_>, paint: Paint) {
    let l = n.lang;
    let r = n.r;
    let v = &r.verdict;
    let _ = writeln!(out, "\n{}\n", paint.strong(l.section_anomalies()));
    let mut sentences: Vec<String> = Vec::new();
    let mut causes_by_event = None;
    for a in anomalies(&v.events) {
        let e = v.event(a.event).expect("an anomaly's report is kept");
        let ev = l.ev(a.event, 0);
        let crashes: Vec<&CrashRecord> = r
            .crashes
            .iter()
            .filter(|c| c.point.event == a.event)
            .collect();
        let sentence = match a.kind {
            "lost" => {
                if let Some(c) = crashes
                    .iter()
                    .find(|c| c.confirmed.acked && c.confirmed.ledger_rows == 0)
                {
                    l.lost_acked_first(&ev, &c.point.to_string())
                } else if let Some(c) = crashes
                    .iter()
                    .find(|c| c.confirmed.inbox_rows > 0 && c.confirmed.ledger_rows == 0)
                {
                    l.lost_marked_first(&ev, &c.point.to_string())
                } else if e.torn {
                    l.lost_torn(&ev, e.debits, e.credits)
                } else {
                    l.lost_other(&ev, e.acked)
                }
            }
            "duplicated" if e.inbox_expired_at.is_some() => {
                l.duplicated_after_expiry(&ev, e.inbox_expired_at.unwrap_or(0), e.effects)
            }
            "duplicated" => {
                let mut s = match crashes
                    .iter()
                    .find(|c| c.confirmed.ledger_rows > 0 && !c.confirmed.acked)
                {
                    Some(c) => l.duplicated_after_crash(&ev, &c.point.to_string(), e.effects),
                    None => {
                        let causes = causes_by_event
                            .get_or_insert_with(|| dup_causes(r))
                            .get(&a.event)
                            .cloned()
                            .unwrap_or_default();
                        if e.deliveries <= 1 && causes.contains(&DupCause::CommitTimeout) {
                            l.duplicated_by_commit_timeout(&ev, e.effects)
                        } else {
                            let causes: Vec<String> =
                                causes.into_iter().map(|c| l.dup_cause(c)).collect();
                            l.duplicated_delivered_twice(&ev, e.deliveries, e.effects, &causes)
                        }
                    }
                };
                if e.amounts_minor.windows(2).any(|w| w[0] != w[1]) {
                    let amounts: Vec<String> =
                        e.amounts_minor.iter().map(|a| a.to_string()).collect();
                    s.push(' ');
                    s.push_str(&l.duplicated_amounts(&amounts.join(", ")));
                }
                s
            }
            "dead_lettered" => l.dead_lettered_anomaly(&ev, e.deliveries),
            "pending" => l.pending_anomaly(&ev),
            "rejected" => l.rejected_anomaly(&ev),
            "unpublished" => l.unpublished_anomaly(&ev),
            "payload_mismatch" => l.payload_anomaly(
                &ev,
                a.stored_payload.as_deref().unwrap_or(""),
                a.received_payload.as_deref().unwrap_or(""),
            ),
            // A torn event that is lost was told with the loss.
            "torn" if e.outcome == Outcome::Lost => continue,
            "torn" => l.torn_anomaly(&ev, e.debits, e.credits),
            _ => {
                let has_ack = n.scenario.protocol.has(Step::Ack);
                l.unacked_anomaly(&ev, r.stop, has_ack)
            }
        };
        sentences.push(sentence);
    }
    for intent in &v.intents {
        let events: Vec<String> = intent.events.iter().map(|e| l.ev(*e, 0)).collect();
        let s = match intent.outcome {
            ScopeOutcome::Lost => l.intent_lost(&intent.transfer_id),
            ScopeOutcome::Duplicated => l.intent_duplicated(
                &intent.transfer_id,
                intent.effects,
                &l.list(&events),
                events.len() > 1,
            ),
            ScopeOutcome::Ghost => l.intent_ghost(&intent.transfer_id),
            ScopeOutcome::Stuck => l.intent_stuck(&intent.transfer_id),
            ScopeOutcome::WrongEffect | ScopeOutcome::Once | ScopeOutcome::NotApplicable => {
                continue
            }
        };
        sentences.push(s);
    }
    let several_events = v.intents.iter().any(|i| i.events.len() > 1);
    for b in v.boundaries.iter().skip(1) {
        if b.guarantee != Guarantee::ExactlyOnce {
            sentences.push(l.boundary_anomaly(b, several_events));
        }
    }
    if !v.drifted_accounts.is_empty() {
        sentences.push(l.lost_update(&v.drifted_accounts));
    }
    if r.stop != StopReason::Quiescent {
        sentences.push(l.stopped_anomaly(r.stop == StopReason::StepLimit));
    }
    if sentences.is_empty() {
        out.push_str(&paint_lines(&wrap(&l.no_anomalies(), "", 0), |line| {
            paint.good(line)
        }));
    }
    for s in sentences {
        out.push_str(&paint_lines(&wrap(&s, "- ", 2), |line| paint.bad(line)));
    }
}

fn verdict_section(out: &mut String, r: &RunResult, l: Lang, paint: Paint) {
    let v = &r.verdict;
    let _ = writeln!(out, "\n{}\n", paint.strong(l.section_verdict()));
    let g = v.guarantee.name();
    let g = if v.guarantee == Guarantee::ExactlyOnce {
        paint.good(g)
    } else {
        paint.bad(g)
    };
    let _ = writeln!(
        out,
        "{}",
        l.verdict_sentence(&g, v.exactly_once, v.lost, v.duplicated)
    );
    for b in &v.boundaries {
        let _ = writeln!(out, "  {}", l.describe_scope(b));
    }
}

/// The seeds' table for this run: one block per crash.
fn failure_points(out: &mut String, n: &Narrator<'_>, paint: Paint) {
    let l = n.lang;
    let r = n.r;
    let _ = writeln!(out, "\n{}\n", paint.strong(l.section_failure_points()));
    if r.crashes.is_empty() {
        out.push_str(&wrap(&l.no_failure_points(), "", 0));
        return;
    }
    let labels = l.failure_point_labels();
    let width = labels.iter().map(|s| s.chars().count()).max().unwrap_or(0) + 2;
    for (i, c) in r.crashes.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let outcome = r
            .verdict
            .event(c.point.event)
            .expect("the report of an event a crash hit is always kept")
            .outcome;
        let point = match phase(&n.scenario.protocol.steps, c.point.boundary) {
            Some(p) => format!("{} ({})", c.point, l.phase(p)),
            None => c.point.to_string(),
        };
        let outcome_text = l.outcome(outcome);
        let outcome_text = if outcome == Outcome::Once {
            paint.good(&outcome_text)
        } else {
            paint.bad(&outcome_text)
        };
        let recovery = Recovery::after(r, c);
        for (label, value) in labels.iter().zip([
            point,
            l.confirmed(&c.confirmed),
            l.recovery(&recovery, &c.confirmed),
            outcome_text,
        ]) {
            let prefix = format!("  {label:<width$}");
            out.push_str(&wrap(&value, &prefix, width + 2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ranged;

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
