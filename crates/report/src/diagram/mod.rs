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

mod fold;
mod mermaid;
mod rows;
mod svg;

use fold::*;
use rows::*;

use crate::check::Outcome;
use crate::lang::Lang;
use crate::model::{
    AckOutcome, ConsumerId, DbOutcome, EventIndex, Publication, Step, Tick, TraceKind,
};
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
    pub fn name(self, l: Lang) -> String {
        let w = |en, es| l.choose(en, es).to_string();
        match self {
            Lane::Producer => w("Producer", "Productor"),
            Lane::ProducerDb => w("Producer DB", "Base del productor"),
            Lane::Relay => "Relay".into(),
            Lane::Broker => "Broker".into(),
            Lane::DeadLetters => w("Dead letters", "DLQ"),
            Lane::Consumer(c) => format!("Consumer {c}"),
            Lane::Database => w("Database", "Base de datos"),
            Lane::Cleanup => w("Inbox cleanup", "Limpieza del inbox"),
            Lane::EmailRelay => w("Email relay", "Relay de correos"),
            Lane::Mail => w("Mail service", "Servicio de correo"),
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
    pub(crate) fn of(outcome: Outcome) -> Tone {
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
    /// The trace entries it stands for, first and last (indices into the run's trace): one
    /// for a step, a range for a fold or a cut; `None` for the closing notes.
    pub entries: Option<(usize, usize)>,
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
    /// The language of every label.
    pub lang: Lang,
}

/// Builds the diagram of run `r` of `scenario`, labelled in `lang`.
///
/// Two passes over the trace, neither keeping more than a diagram's rows: the first finds
/// the lanes, the number of rows and which deliveries went by the book; the second draws,
/// folds and cuts row by row. A run of millions of entries takes the memory of
/// [`MAX_ROWS`] rows, not of millions.
pub fn build(scenario: &Scenario, r: &RunResult, detail: Detail, lang: Lang) -> Diagram {
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
        r.trace
            .entries()
            .iter()
            .enumerate()
            .flat_map(move |(i, entry)| {
                rows_of(entry, producer_db, scenario.store.engine, lang)
                    .into_iter()
                    .map(move |mut row| {
                        row.tone = row
                            .event
                            .map(|e| outcomes.get(&e).map_or(Tone::Other, |&o| Tone::of(o)));
                        row.entries = Some((i, i));
                        row
                    })
            })
    };
    let Survey {
        lanes,
        routine,
        count,
    } = survey(rows(), scenario.consumers);
    let compact = match detail {
        Detail::Full => false,
        Detail::Compact => true,
        Detail::Auto => count > FULL_ROWS,
    };
    let (kept, folded_steps) = keep_or_fold(rows(), compact, &routine, lang);
    let (mut rows, cut_rows) = kept.finish(&lanes, lang);
    rows.extend(outcome_rows(r, &lanes, lang));
    Diagram {
        name: scenario.name.clone(),
        verdict: r
            .verdict
            .boundaries
            .iter()
            .map(|b| lang.describe_scope(b))
            .collect(),
        lanes,
        rows,
        compact,
        folded_steps,
        cut_rows,
        lang,
    }
}

/// What the first pass over a diagram's rows finds.
struct Survey {
    /// The lanes the rows touch (every consumer's among them), in order.
    lanes: Vec<Lane>,
    /// Per delivery, whether it is routine: every row of it is, as one failed step, crash
    /// or repeat shows its whole handling.
    routine: BTreeMap<(EventIndex, u32, u32), bool>,
    /// How many rows there are.
    count: usize,
}

/// The first pass over `rows`, of a run with `consumers` consumers.
fn survey(rows: impl Iterator<Item = Row>, consumers: usize) -> Survey {
    let mut lanes: Vec<Lane> = vec![Lane::Producer, Lane::Broker, Lane::Database];
    lanes.extend((0..consumers.max(1)).map(Lane::Consumer));
    let mut routine: BTreeMap<(EventIndex, u32, u32), bool> = BTreeMap::new();
    let mut count = 0;
    for row in rows {
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
    Survey {
        lanes,
        routine,
        count,
    }
}

/// The second pass over `rows`: each kept or, when `compact` and it is a routine row of a
/// `routine` delivery of an event processed once, folded into a note with its neighbours.
/// Returns the kept rows (the notes among them) and how many rows the notes stand for.
fn keep_or_fold(
    rows: impl Iterator<Item = Row>,
    compact: bool,
    routine: &BTreeMap<(EventIndex, u32, u32), bool>,
    lang: Lang,
) -> (Kept, usize) {
    let mut kept = Kept::default();
    let mut folder = Folder::default();
    for row in rows {
        if compact && folder.foldable(&row, routine) {
            folder.add(row);
        } else {
            folder.flush(&mut kept, lang);
            kept.push(row);
        }
    }
    folder.flush(&mut kept, lang);
    (kept, folder.folded)
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
        self.lang
            .diagram_elision(self.folded_steps, self.cut_rows, MAX_ROWS)
    }
}

/// The most events whose anomaly gets a note of its own at the end of a diagram.
const MAX_OUTCOME_NOTES: usize = 8;

/// The closing notes: what became of each event that was not processed once, over the
/// database whose committed rows decided it.
fn outcome_rows(r: &RunResult, lanes: &[Lane], lang: Lang) -> Vec<Row> {
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
        rows.push(Row {
            tick: r.end_tick,
            shape: over(Lane::Database),
            label: lang.diagram_outcome(e),
            event: Some(e.event),
            tone: Some(Tone::of(e.outcome)),
            verb: "outcome",
            routine: false,
            delivery: None,
            entries: None,
        });
    }
    if anomalies.len() > MAX_OUTCOME_NOTES {
        rows.push(Row {
            tick: r.end_tick,
            shape: Shape::Note {
                from: lanes[0],
                to: lanes[lanes.len() - 1],
            },
            label: lang.diagram_more_outcomes(anomalies.len() - MAX_OUTCOME_NOTES),
            event: None,
            tone: None,
            verb: "outcome",
            routine: false,
            delivery: None,
            entries: None,
        });
    }
    rows
}

#[cfg(test)]
mod tests;
