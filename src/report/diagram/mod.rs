//! Diagrams of one run: a Mermaid `sequenceDiagram` for Markdown ([`Diagram::mermaid`]) and
//! a standalone SVG with one lane per actor ([`Diagram::svg`]). Both are drawn from one model
//! built here from the run's trace: the lanes, and one row per thing worth drawing (a message
//! from one lane to another, a note, a crash mark, or a fold of routine steps), each tied to
//! the event it concerns so that it is coloured by that event's final outcome.
//!
//! The model is a pure function of the scenario and the run, so the same run gives a
//! byte-identical diagram. Long runs stay readable by folding: in the compact view,
//! consecutive steps of deliveries that went by the book, for events processed once, become
//! one note naming the events, so that what is drawn step by step is what went wrong. A cap
//! on rows bounds the height whatever the run.

mod mermaid;
mod svg;

use crate::check::Outcome;
use crate::model::{ConsumerId, EventIndex, Tick};
use crate::producer::ProducerDatabase;
use crate::scenario::Scenario;
use crate::sim::{Actor, TraceEntry};
use crate::world::RunResult;
use std::collections::{BTreeMap, BTreeSet};

/// How much of the run a diagram draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Every step when the run fits in [`FULL_ROWS`] rows, else compact.
    Auto,
    /// Every step.
    Full,
    /// Routine steps of events processed once are folded into notes.
    Compact,
}

/// The most rows [`Detail::Auto`] draws step by step before it folds routine steps.
pub const FULL_ROWS: usize = 60;

/// The most rows a diagram has: past it the rest of the run is summarised in one note. At
/// about 24 pixels a row this keeps an SVG under 6,000 pixels high.
pub const MAX_ROWS: usize = 240;

/// Fewer consecutive routine rows than this are drawn rather than folded: a fold of one or
/// two rows saves nothing and hides what happened.
const MIN_FOLD_ROWS: usize = 3;

/// A vertical lane (a Mermaid participant), in the order they are drawn, left to right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lane {
    Producer,
    /// The producer's own database (its transfers and outbox), when it is not the
    /// consumer's.
    ProducerDb,
    Relay,
    Broker,
    /// Where the broker parks the messages it gave up on.
    DeadLetters,
    Consumer(ConsumerId),
    Database,
    /// The inbox retention job.
    Cleanup,
    EmailRelay,
    Mail,
}

impl Lane {
    /// The participant's alias: short, no spaces, no Mermaid keyword.
    pub fn alias(self) -> String {
        match self {
            Lane::Producer => "P".into(),
            Lane::ProducerDb => "PDB".into(),
            Lane::Relay => "R".into(),
            Lane::Broker => "B".into(),
            Lane::DeadLetters => "DLQ".into(),
            Lane::Consumer(c) => format!("C{c}"),
            Lane::Database => "DB".into(),
            Lane::Cleanup => "CL".into(),
            Lane::EmailRelay => "ER".into(),
            Lane::Mail => "M".into(),
        }
    }

    /// The name shown at the top of the lane.
    pub fn name(self) -> String {
        match self {
            Lane::Producer => "Producer".into(),
            Lane::ProducerDb => "Producer DB".into(),
            Lane::Relay => "Relay".into(),
            Lane::Broker => "Broker".into(),
            Lane::DeadLetters => "Dead letters".into(),
            Lane::Consumer(c) => format!("Consumer {c}"),
            Lane::Database => "Database".into(),
            Lane::Cleanup => "Inbox cleanup".into(),
            Lane::EmailRelay => "Email relay".into(),
            Lane::Mail => "Mail service".into(),
        }
    }

    /// A stable machine name (`consumer0`), for the SVG's `data-lane` attributes.
    pub fn key(self) -> String {
        match self {
            Lane::Producer => "producer".into(),
            Lane::ProducerDb => "producer-db".into(),
            Lane::Relay => "relay".into(),
            Lane::Broker => "broker".into(),
            Lane::DeadLetters => "dead-letters".into(),
            Lane::Consumer(c) => format!("consumer{c}"),
            Lane::Database => "database".into(),
            Lane::Cleanup => "cleanup".into(),
            Lane::EmailRelay => "email-relay".into(),
            Lane::Mail => "mail".into(),
        }
    }
}

/// The colour class of a row: the final outcome of the event it concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tone {
    Once,
    Lost,
    Duplicated,
    /// Rejected, same intent, unpublished, pending: not an anomaly of delivery, not
    /// "once" either.
    Other,
}

impl Tone {
    fn of(outcome: Outcome) -> Tone {
        match outcome {
            Outcome::Once => Tone::Once,
            // A dead-lettered, stuck or wrongly applied event's own effect is missing.
            Outcome::Lost | Outcome::DeadLettered | Outcome::Stuck | Outcome::WrongEffect => {
                Tone::Lost
            }
            Outcome::Duplicated => Tone::Duplicated,
            Outcome::Rejected
            | Outcome::Invalid
            | Outcome::SameIntent
            | Outcome::Unpublished
            | Outcome::Pending => Tone::Other,
        }
    }

    /// The word the legend uses.
    pub fn name(self) -> &'static str {
        match self {
            Tone::Once => "once",
            Tone::Lost => "lost",
            Tone::Duplicated => "duplicated",
            Tone::Other => "other",
        }
    }

    pub const ALL: [Tone; 4] = [Tone::Once, Tone::Lost, Tone::Duplicated, Tone::Other];

    /// The light background of the rows of an event with this outcome.
    pub fn band_rgb(self) -> (u8, u8, u8) {
        match self {
            Tone::Once => (220, 240, 220),
            Tone::Lost => (250, 210, 210),
            Tone::Duplicated => (255, 224, 178),
            Tone::Other => (228, 228, 228),
        }
    }

    /// The dark colour of the arrows and text of an event with this outcome.
    pub fn ink(self) -> &'static str {
        match self {
            Tone::Once => "#2e7d32",
            Tone::Lost => "#c62828",
            Tone::Duplicated => "#e65100",
            Tone::Other => "#616161",
        }
    }
}

/// The colour of what concerns no event (a restart, a lost connection).
pub const PLAIN_INK: &str = "#263238";

/// How a message is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A request that went through.
    Call,
    /// A request the receiver refused, or that failed or was lost on the way: drawn with a
    /// cross at its end.
    Refused,
    /// A request that has to wait (`SQLITE_BUSY`): drawn dashed.
    Wait,
}

/// What a row draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Message {
        from: Lane,
        to: Lane,
        style: Style,
    },
    /// A note spanning the lanes from `from` to `to` (the same lane for a note over one).
    Note {
        from: Lane,
        to: Lane,
    },
    /// A process died here; the label names the crash point.
    Crash {
        lane: Lane,
    },
    /// `steps` routine rows folded into one note, from `tick` to `last_tick`.
    Fold {
        from: Lane,
        to: Lane,
        steps: usize,
        last_tick: Tick,
    },
}

/// One row of the diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub tick: Tick,
    pub shape: Shape,
    /// Short text: a verb and the delivery it concerns (`ack e1`, `redeliver e1 d2`).
    pub label: String,
    /// The event it concerns, if any.
    pub event: Option<EventIndex>,
    /// The colour: the final outcome of `event` (folds are `Once`; rows without an event
    /// have none).
    pub tone: Option<Tone>,
    /// The verb alone, for naming what a fold holds.
    verb: &'static str,
    /// Whether the step went as the protocol intends (nothing failed, crashed, repeated or
    /// was refused): only such rows may be folded.
    routine: bool,
    /// The delivery it belongs to: (event, copy, delivery attempt).
    delivery: Option<(EventIndex, u32, u32)>,
}

/// A diagram of one run, ready to render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagram {
    /// The scenario's name.
    pub name: String,
    /// The verdict, one line per guarantee boundary.
    pub verdict: Vec<String>,
    pub lanes: Vec<Lane>,
    pub rows: Vec<Row>,
    /// Whether routine steps were folded.
    pub compact: bool,
    /// How many rows the folds stand for.
    pub folded_steps: usize,
    /// How many rows past [`MAX_ROWS`] were left out.
    pub cut_rows: usize,
}

/// Builds the diagram of run `r` of `scenario`.
///
/// Two passes over the trace, neither keeping more than a diagram's rows: the first finds
/// the lanes, the number of rows and which deliveries went by the book; the second draws,
/// folds and cuts row by row. A run of millions of entries takes the memory of
/// [`MAX_ROWS`] rows, not of millions.
pub fn build(scenario: &Scenario, r: &RunResult, detail: Detail) -> Diagram {
    let outcomes: BTreeMap<EventIndex, Outcome> = r
        .verdict
        .events
        .iter()
        .map(|e| (e.event, e.outcome))
        .collect();
    let producer_db = if scenario.producer.database == ProducerDatabase::Shared {
        Lane::Database
    } else {
        Lane::ProducerDb
    };
    let outcomes = &outcomes;
    let rows = move || {
        r.trace.entries().iter().flat_map(move |entry| {
            rows_of(entry, producer_db).into_iter().map(move |mut row| {
                row.tone = row
                    .event
                    .map(|e| outcomes.get(&e).map_or(Tone::Other, |&o| Tone::of(o)));
                row
            })
        })
    };
    let mut lanes: Vec<Lane> = vec![Lane::Producer, Lane::Broker, Lane::Database];
    lanes.extend((0..scenario.consumers.max(1)).map(Lane::Consumer));
    // A delivery is routine when every row of it is: one failed step, crash or repeat
    // shows its whole handling.
    let mut routine: BTreeMap<(EventIndex, u32, u32), bool> = BTreeMap::new();
    let mut count = 0;
    for row in rows() {
        count += 1;
        match row.shape {
            Shape::Message { from, to, .. } | Shape::Note { from, to } => lanes.extend([from, to]),
            Shape::Crash { lane } => lanes.push(lane),
            Shape::Fold { .. } => {}
        }
        if let Some(key) = row.delivery {
            *routine.entry(key).or_insert(true) &= row.routine;
        }
        lanes.sort();
        lanes.dedup();
    }
    let compact = match detail {
        Detail::Full => false,
        Detail::Compact => true,
        Detail::Auto => count > FULL_ROWS,
    };
    let mut kept = Kept::default();
    let mut folder = Folder::default();
    for row in rows() {
        if compact && folder.foldable(&row, &routine) {
            folder.add(row);
        } else {
            folder.flush(&mut kept);
            kept.push(row);
        }
    }
    folder.flush(&mut kept);
    let (mut rows, cut_rows) = kept.finish(&lanes);
    rows.extend(outcome_rows(r, &lanes));
    Diagram {
        name: scenario.name.clone(),
        verdict: r.verdict.boundaries.iter().map(|b| b.describe()).collect(),
        lanes,
        rows,
        compact,
        folded_steps: folder.folded,
        cut_rows,
    }
}

/// The rows a diagram keeps: the first [`MAX_ROWS`], then only how many more came and
/// when.
#[derive(Default)]
struct Kept {
    rows: Vec<Row>,
    /// Rows past the cap: how many, and the ticks of the first and the last.
    cut: usize,
    cut_ticks: (Tick, Tick),
}

impl Kept {
    fn push(&mut self, row: Row) {
        if self.cut == 0 && self.rows.len() < MAX_ROWS {
            self.rows.push(row);
            return;
        }
        if self.cut == 0 {
            // One row too many: the last kept row makes way for the note that says so.
            let last = self.rows.pop().expect("MAX_ROWS rows are kept");
            self.cut = 1;
            self.cut_ticks = (last.tick, last.tick);
        }
        self.cut += 1;
        self.cut_ticks.1 = row.tick;
    }

    /// The rows kept, ending with a note for those cut (if any), and how many were cut.
    fn finish(mut self, lanes: &[Lane]) -> (Vec<Row>, usize) {
        if self.cut > 0 {
            let (first, last) = self.cut_ticks;
            self.rows.push(Row {
                tick: first,
                shape: Shape::Note {
                    from: lanes[0],
                    to: lanes[lanes.len() - 1],
                },
                label: format!(
                    "{} more rows not drawn (t={first} to t={last}): a diagram stops at {MAX_ROWS} rows, --trace lists every step",
                    self.cut,
                ),
                event: None,
                tone: None,
                verb: "cut",
                routine: false,
                delivery: None,
            });
        }
        (self.rows, self.cut)
    }
}

impl Diagram {
    /// The diagram as a Mermaid `sequenceDiagram`.
    pub fn mermaid(&self) -> String {
        mermaid::render(self)
    }

    /// The diagram as a standalone SVG document.
    pub fn svg(&self) -> String {
        svg::render(self)
    }

    /// What the compact view left out, in one sentence, if it left anything out.
    fn elision_text(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.folded_steps > 0 {
            parts.push(format!(
                "compact view: {} routine steps of events processed once are folded into notes \
                 (--diagram-detail full draws every step)",
                self.folded_steps
            ));
        }
        if self.cut_rows > 0 {
            parts.push(format!(
                "the last {} rows are cut (at most {MAX_ROWS} rows)",
                self.cut_rows
            ));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// The legend's sentence for a tone.
fn legend_text(tone: Tone) -> &'static str {
    match tone {
        Tone::Once => "green = once",
        Tone::Lost => "red = lost",
        Tone::Duplicated => "orange = duplicated",
        Tone::Other => "grey = other outcome",
    }
}

/// The most events whose anomaly gets a note of its own at the end of a diagram.
const MAX_OUTCOME_NOTES: usize = 8;

/// The closing notes: what became of each event that was not processed once, over the
/// database whose committed rows decided it.
fn outcome_rows(r: &RunResult, lanes: &[Lane]) -> Vec<Row> {
    let anomalies: Vec<_> = r
        .verdict
        .events
        .iter()
        .filter(|e| e.outcome != Outcome::Once)
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    let over = |lane: Lane| Shape::Note {
        from: lane,
        to: lane,
    };
    for e in anomalies.iter().take(MAX_OUTCOME_NOTES) {
        let n = e.effects;
        let acked = if e.acked { "acked" } else { "not acked" };
        let what = match e.outcome {
            Outcome::Lost => format!("LOST: no effect committed, {acked}"),
            Outcome::Duplicated => format!("DUPLICATED: {n} effects committed"),
            Outcome::DeadLettered => {
                "DEAD-LETTERED: no effect, lost unless the dead-letter queue is replayed".into()
            }
            Outcome::Stuck => format!("STUCK: {n} effect(s), still held by the broker"),
            Outcome::WrongEffect => "WRONG EFFECT: an altered copy's payload was applied".into(),
            Outcome::Invalid => "invalid payload: refused, never applied, as it should be".into(),
            Outcome::Rejected => "rejected by the projection: out of order".into(),
            Outcome::SameIntent => "no effect of its own: its transfer was applied already".into(),
            Outcome::Unpublished => "never published: the producer died first".into(),
            Outcome::Pending => "pending: waits for its transfer in pending_event".into(),
            Outcome::Once => unreachable!("filtered out"),
        };
        rows.push(Row {
            tick: r.end_tick,
            shape: over(Lane::Database),
            label: format!("e{} {what}", e.event),
            event: Some(e.event),
            tone: Some(Tone::of(e.outcome)),
            verb: "outcome",
            routine: false,
            delivery: None,
        });
    }
    if anomalies.len() > MAX_OUTCOME_NOTES {
        rows.push(Row {
            tick: r.end_tick,
            shape: Shape::Note {
                from: lanes[0],
                to: lanes[lanes.len() - 1],
            },
            label: format!(
                "and {} more events not processed once (the text report lists them)",
                anomalies.len() - MAX_OUTCOME_NOTES
            ),
            event: None,
            tone: None,
            verb: "outcome",
            routine: false,
            delivery: None,
        });
    }
    rows
}

/// `e1`, `e1 c1` for a republished copy, with ` d2` from the second delivery attempt on
/// (the first is the rule, so it goes without saying).
fn delivery_label(e: &TraceEntry) -> String {
    let Some(event) = e.event else {
        return String::new();
    };
    let mut s = format!("e{event}");
    if e.copy > 0 {
        s.push_str(&format!(" c{}", e.copy));
    }
    if e.delivery > 1 {
        s.push_str(&format!(" d{}", e.delivery));
    }
    s
}

/// The consumer an outcome names (`in flight to consumer1`), if it names one.
fn named_consumer(outcome: &str) -> Option<ConsumerId> {
    let at = outcome.find("consumer")? + "consumer".len();
    let digits: String = outcome[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// A row under construction: the shape, the verb, what follows the delivery label, and
/// whether it is routine.
struct Draft {
    shape: Shape,
    verb: &'static str,
    suffix: String,
    /// The whole label, when it is not the verb, the delivery and the suffix.
    text: Option<String>,
    routine: bool,
}

fn message(from: Lane, to: Lane, verb: &'static str) -> Draft {
    Draft {
        shape: Shape::Message {
            from,
            to,
            style: Style::Call,
        },
        verb,
        suffix: String::new(),
        text: None,
        routine: true,
    }
}

fn note(from: Lane, to: Lane, verb: &'static str) -> Draft {
    Draft {
        shape: Shape::Note { from, to },
        verb,
        suffix: String::new(),
        text: None,
        routine: false,
    }
}

impl Draft {
    fn style(mut self, style: Style) -> Draft {
        if let Shape::Message { from, to, .. } = self.shape {
            self.shape = Shape::Message { from, to, style };
        }
        self.routine = self.routine && style != Style::Refused;
        self
    }

    fn says(mut self, suffix: impl Into<String>) -> Draft {
        self.suffix = suffix.into();
        self
    }

    fn remarkable(mut self) -> Draft {
        self.routine = false;
        self
    }
}

/// The rows one trace entry is drawn as: none for what is not an interaction (a receive,
/// which the broker's delivery already shows; an idle poll), usually one, two for a
/// duplicate (the refused insert and the note that the duplicate was recognised).
fn rows_of(e: &TraceEntry, producer_db: Lane) -> Vec<Row> {
    let o = e.outcome.as_str();
    let busy = o.starts_with("SQLITE_BUSY");
    let mut drafts: Vec<Draft> = Vec::new();
    let lane = match e.actor {
        Actor::Producer => Lane::Producer,
        Actor::Broker => Lane::Broker,
        Actor::Consumer(c) => Lane::Consumer(c),
        Actor::Relay => Lane::Relay,
        Actor::EmailRelay => Lane::EmailRelay,
        Actor::Cleanup => Lane::Cleanup,
        Actor::Sim => Lane::Producer,
    };
    // The database a process of this lane writes to.
    let db = match e.actor {
        Actor::Producer | Actor::Relay => producer_db,
        _ => Lane::Database,
    };
    match (e.actor, e.action) {
        (_, "receive") | (_, "poll") => {}
        (_, "crash") if o.starts_with("crash at ") => {
            // The crash point exactly as `run --crash` takes it.
            let boundary = o["crash at ".len()..]
                .split(" (")
                .next()
                .unwrap_or_default();
            let point = match e.event {
                Some(event) if e.copy > 0 => {
                    format!(" e{event} copy{} d{}", e.copy, e.delivery)
                }
                Some(event) => format!(" e{event} d{}", e.delivery),
                None => String::new(),
            };
            drafts.push(Draft {
                shape: Shape::Crash { lane },
                verb: "CRASH",
                suffix: String::new(),
                text: Some(format!("CRASH {boundary}{point}")),
                routine: false,
            });
        }
        (_, "crash") => {
            let mut d = note(lane, db, "SQLite rolls back");
            d.text = Some(match e.event {
                Some(_) => format!("SQLite rolls back the transaction of {}", delivery_label(e)),
                None => "SQLite rolls back the open transaction".into(),
            });
            drafts.push(d);
        }
        (_, "restart") => drafts.push(note(lane, lane, "restart")),
        (_, "stop") => drafts.push(note(lane, lane, "stop").says(format!(": {o}"))),
        (Actor::Sim, "heal") => drafts.push(note(lane, lane, "healing").says(format!(": {o}"))),
        (Actor::Sim, _) => drafts.push(note(lane, lane, "run stopped").says(format!(": {o}"))),
        (Actor::Consumer(_), action) => drafts.extend(consumer_rows(action, o, lane, busy)),
        (Actor::Broker, "deliver") if e.delivery > 1 => drafts.extend(broker_rows("redeliver", o)),
        (Actor::Broker, action) => drafts.extend(broker_rows(action, o)),
        (Actor::Producer, "publish") => {
            let d = message(Lane::Producer, Lane::Broker, "publish");
            drafts.push(publish_variant(d, o));
        }
        (Actor::Producer, "insert_transfer") => {
            if o.starts_with("transfer already committed") {
                drafts.push(
                    message(lane, db, "SELECT transfer")
                        .says(": already committed")
                        .remarkable(),
                );
            } else {
                drafts.push(message(lane, db, "BEGIN, INSERT transfer"));
            }
        }
        (Actor::Producer, "commit_transfer") => drafts.push(message(lane, db, "COMMIT transfer")),
        (Actor::Producer, "timeout") => {
            drafts.push(note(lane, lane, "no confirmation for {e}, publish again"))
        }
        (Actor::Relay, "relay_publish") => {
            let d = message(Lane::Relay, Lane::Broker, "publish");
            drafts.push(publish_variant(d, o));
        }
        (Actor::Relay, "mark_sent") | (Actor::EmailRelay, "mark_email_sent") => {
            let d = message(lane, db, "mark sent");
            drafts.push(if busy {
                d.style(Style::Wait).says(": busy, wait")
            } else {
                d
            });
        }
        (Actor::Cleanup, "delete expired") => {
            let d = message(lane, db, "DELETE expired inbox rows");
            drafts.push(if busy {
                d.style(Style::Wait).says(": busy")
            } else {
                // The events whose rows went: the outcome lists them after its last colon.
                let events = o.rsplit(": ").next().unwrap_or_default();
                let n = events.split(", ").count();
                let what = if n <= 4 {
                    events.to_string()
                } else {
                    format!("{n} events")
                };
                d.says(format!(" of {what}")).remarkable()
            });
        }
        (Actor::EmailRelay, "send_email") => {
            let d = message(lane, Lane::Mail, "send email");
            drafts.push(if o.contains("with the event_id as idempotency key") {
                d.says(" with key")
            } else {
                d
            });
        }
        (_, action) => drafts.push(note(lane, lane, "step").says(format!(" {action}: {o}"))),
    }
    let target = delivery_label(e);
    drafts
        .into_iter()
        .map(|d| {
            let label = match (d.text, target.is_empty()) {
                (Some(text), _) => text,
                (None, _) if d.verb.contains("{e}") => {
                    let text = format!("{}{}", d.verb.replace("{e}", &target), d.suffix);
                    text.trim().to_string()
                }
                (None, true) => format!("{}{}", d.verb, d.suffix),
                (None, false) => format!("{} {target}{}", d.verb, d.suffix),
            };
            Row {
                tick: e.tick,
                shape: d.shape,
                label,
                event: e.event,
                tone: None,
                verb: d.verb,
                routine: d.routine,
                delivery: e.event.map(|ev| (ev, e.copy, e.delivery)),
            }
        })
        .collect()
}

/// A publication, marked when it repeats or renames an event.
fn publish_variant(d: Draft, o: &str) -> Draft {
    if o.contains("ANOTHER payload") {
        d.says(" again, OTHER payload").remarkable()
    } else if o.contains("republished") {
        d.says(" again").remarkable()
    } else if o.contains("with a new event_id") {
        d.says(" with a new event_id").remarkable()
    } else {
        d
    }
}

fn consumer_rows(action: &str, o: &str, c: Lane, busy: bool) -> Vec<Draft> {
    let db = Lane::Database;
    let to_db = |verb| message(c, db, verb);
    let wait = |d: Draft| d.style(Style::Wait).says(": busy, wait");
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let duplicate = || note(c, c, "duplicate").says(" recognised");
    let other_payload = || note(c, c, "{e}: same id, other payload, refused");
    match action {
        "begin" => vec![to_db("BEGIN")],
        "insert_inbox" | "check_inbox" => {
            let verb = if action == "insert_inbox" {
                "INSERT inbox"
            } else {
                "SELECT inbox"
            };
            if busy {
                vec![wait(to_db(verb))]
            } else if o.contains("duplicate") {
                vec![refused(to_db(verb), "exists"), duplicate()]
            } else if o.contains("another payload") {
                vec![refused(to_db(verb), "other payload"), other_payload()]
            } else if action == "check_inbox" {
                vec![to_db(verb).says(": none")]
            } else {
                vec![to_db(verb)]
            }
        }
        "apply_effect" => {
            let d = to_db("apply");
            vec![if busy {
                wait(d)
            } else if o.contains("waited in pending_event") {
                d.says(" and its waiting completion").remarkable()
            } else if o.contains("kept in pending_event") {
                d.says(": transfer unknown, kept pending").remarkable()
            } else if o.starts_with("debit and credit applied") {
                d
            } else if o.starts_with("balances read") {
                to_db("read balances")
            } else if o.contains("credit failed") {
                refused(d, "credit fails")
            } else if o.starts_with("rejected") {
                refused(d, "rejected, unknown transfer")
            } else if o.contains("transfer_id") {
                refused(d, "transfer already applied")
            } else if o.contains("SNAPSHOT") {
                refused(d, "stale snapshot")
            } else {
                d.says(format!(": {o}")).remarkable()
            }]
        }
        "commit" => {
            let d = to_db("COMMIT");
            vec![if o.contains("timed out") {
                let what = if o.contains("DID commit") {
                    "timeout, did commit"
                } else {
                    "timeout, did not commit"
                };
                refused(d, what)
            } else {
                d
            }]
        }
        "rollback" => vec![note(c, db, "ROLLBACK")],
        "lookup" => vec![to_db("lookup")
            .says(if o.contains("not found") {
                ": not found"
            } else {
                ": found"
            })
            .remarkable()],
        "alert" => {
            let d = to_db("INSERT alert").remarkable();
            vec![if o.contains("UNIQUE") {
                refused(d, "already alerted")
            } else {
                d
            }]
        }
        "enqueue_email" => vec![to_db("INSERT email")],
        "ack" => {
            let d = message(c, Lane::Broker, "ack");
            vec![if o.starts_with("acked") {
                d
            } else if o.starts_with("processed") {
                d.says(", offset later")
            } else if o.starts_with("ack lost") {
                refused(d, "lost on the way")
            } else if o.starts_with("stale") {
                refused(d, "stale, ignored")
            } else if o.starts_with("failed") {
                refused(d, "fails")
            } else if o.starts_with("already acked") {
                d.says(", already acked").remarkable()
            } else {
                d.says(format!(": {o}")).remarkable()
            }]
        }
        "nack" => vec![message(c, Lane::Broker, "nack").remarkable()],
        "produce_output" => vec![message(c, Lane::Broker, "output")],
        "external_effect" => vec![note(c, c, "external effect").says(", never rolled back")],
        "sleep" => {
            let ticks = o
                .split("sleeps ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .unwrap_or("?");
            vec![note(c, c, "sleep").says(format!(" {ticks} ticks, a completion waits"))]
        }
        "stall" => {
            let ticks = o
                .split(" for ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .unwrap_or("?");
            vec![note(c, c, "stall").says(format!(" for {ticks} ticks"))]
        }
        other => vec![note(c, c, "step").says(format!(" {other}: {o}"))],
    }
}

fn broker_rows(action: &str, o: &str) -> Vec<Draft> {
    let b = Lane::Broker;
    match action {
        "deliver" => {
            let c = Lane::Consumer(named_consumer(o).unwrap_or(0));
            vec![message(b, c, "deliver")]
        }
        "redeliver" => {
            // A redelivery is how a protocol recovers, or duplicates: always drawn.
            let c = Lane::Consumer(named_consumer(o).unwrap_or(0));
            vec![message(b, c, "redeliver").remarkable()]
        }
        "requeue" => vec![note(b, b, "{e} ready for redelivery")],
        "visible" => {
            let mut d = note(b, b, "{e} visible after its delay");
            d.routine = true;
            vec![d]
        }
        "lease expired" => vec![note(b, b, "lease of {e} expired")],
        "connection lost" => {
            let who = named_consumer(o).map_or("a consumer".into(), |c| format!("C{c}"));
            let what = if o.contains("left the group") {
                "left the group: rebalance"
            } else {
                "gone: its unacked redelivered"
            };
            vec![note(b, b, "connection lost").says(format!(": {who} {what}"))]
        }
        "dead-letter" => vec![message(b, Lane::DeadLetters, "dead-letter").remarkable()],
        "dlq replay" => vec![message(Lane::DeadLetters, b, "replay").remarkable()],
        "duplicate" => vec![note(b, b, "broker duplicates")],
        "late replay" => vec![note(b, b, "{e} acked, replayed late")],
        "transaction" => vec![if o.contains("refused") {
            note(b, b, "{e} outputs aborted")
        } else {
            let mut d = note(b, b, "{e} outputs visible");
            d.routine = true;
            d
        }],
        "abort" => vec![note(b, b, "{e} outputs discarded")],
        other => vec![note(b, b, "broker").says(format!(" {other}: {o}"))],
    }
}

/// Folds every run of at least [`MIN_FOLD_ROWS`] consecutive foldable rows into one note:
/// the rows and how many rows the folds stand for.
/// Folds consecutive routine rows of events processed once into one note, row by row: it
/// holds the first few rows of a run of them (fewer than [`MIN_FOLD_ROWS`] are drawn as
/// they are), then only what the note will say.
#[derive(Default)]
struct Folder {
    /// The current run's first rows, until it is long enough to fold.
    first: Vec<Row>,
    /// The current run, once it is long enough to fold.
    fold: Option<Fold>,
    /// How many rows the notes so far stand for.
    folded: usize,
}

/// What the note for a run of routine rows says: its lanes, events, verbs, steps and ticks.
struct Fold {
    from: Lane,
    to: Lane,
    events: BTreeSet<EventIndex>,
    verbs: Vec<&'static str>,
    steps: usize,
    tick: Tick,
    last_tick: Tick,
}

impl Folder {
    fn foldable(&self, row: &Row, routine: &BTreeMap<(EventIndex, u32, u32), bool>) -> bool {
        row.routine && row.tone == Some(Tone::Once) && row.delivery.is_some_and(|k| routine[&k])
    }

    fn add(&mut self, row: Row) {
        match &mut self.fold {
            Some(fold) => fold.add(&row),
            None if self.first.len() + 1 < MIN_FOLD_ROWS => self.first.push(row),
            None => {
                let mut fold = Fold {
                    from: row_lanes(&row).0,
                    to: row_lanes(&row).1,
                    events: BTreeSet::new(),
                    verbs: Vec::new(),
                    steps: 0,
                    tick: self.first.first().map_or(row.tick, |r| r.tick),
                    last_tick: row.tick,
                };
                for r in std::mem::take(&mut self.first) {
                    fold.add(&r);
                }
                fold.add(&row);
                self.fold = Some(fold);
            }
        }
    }

    /// Ends the current run: its note, or its rows when it is too short to fold.
    fn flush(&mut self, kept: &mut Kept) {
        for row in self.first.drain(..) {
            kept.push(row);
        }
        if let Some(fold) = self.fold.take() {
            self.folded += fold.steps;
            kept.push(fold.row());
        }
    }
}

/// The leftmost and rightmost lanes a row spans.
fn row_lanes(row: &Row) -> (Lane, Lane) {
    match row.shape {
        Shape::Message { from, to, .. }
        | Shape::Note { from, to }
        | Shape::Fold { from, to, .. } => (from.min(to), from.max(to)),
        Shape::Crash { lane } => (lane, lane),
    }
}

impl Fold {
    fn add(&mut self, row: &Row) {
        let (from, to) = row_lanes(row);
        self.from = self.from.min(from);
        self.to = self.to.max(to);
        self.events.extend(row.event);
        // A verb with a place for the delivery (`{e} visible`) is named without it.
        let verb = row.verb.trim_start_matches("{e} ");
        if !self.verbs.contains(&verb) {
            self.verbs.push(verb);
        }
        self.steps += 1;
        self.last_tick = row.tick;
    }

    /// One note standing for the run: which events, how many steps, which verbs.
    fn row(self) -> Row {
        let events: Vec<EventIndex> = self.events.into_iter().collect();
        Row {
            tick: self.tick,
            shape: Shape::Fold {
                from: self.from,
                to: self.to,
                steps: self.steps,
                last_tick: self.last_tick,
            },
            label: format!(
                "{}: {} routine steps ({})",
                event_ranges(&events),
                self.steps,
                self.verbs.join(", ")
            ),
            event: None,
            tone: Some(Tone::Once),
            verb: "fold",
            routine: false,
            delivery: None,
        }
    }
}

/// `e0-e4, e6, e8-e19`; past four ranges, `12 events, e0 to e30`.
fn event_ranges(events: &[EventIndex]) -> String {
    let mut ranges: Vec<(EventIndex, EventIndex)> = Vec::new();
    for &e in events {
        match ranges.last_mut() {
            Some((_, hi)) if *hi + 1 == e => *hi = e,
            _ => ranges.push((e, e)),
        }
    }
    if ranges.len() > 4 {
        return format!(
            "{} events, e{} to e{}",
            events.len(),
            events[0],
            events[events.len() - 1]
        );
    }
    ranges
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                format!("e{lo}")
            } else {
                format!("e{lo}-e{hi}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
