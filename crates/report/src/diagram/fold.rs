//! Keeping a diagram readable: routine deliveries folded into one row per run of them, and
//! at most `MAX_ROWS` rows kept, the ones that matter first.

use super::*;

/// The rows a diagram keeps: the first [`MAX_ROWS`], then only how many more came and
/// when.
#[derive(Default)]
pub(super) struct Kept {
    pub(super) rows: Vec<Row>,
    /// Rows past the cap: how many, and the ticks of the first and the last.
    pub(super) cut: usize,
    pub(super) cut_ticks: (Tick, Tick),
    /// The trace entries of the rows cut, first and last.
    pub(super) cut_entries: Option<(usize, usize)>,
}

impl Kept {
    pub(super) fn push(&mut self, row: Row) {
        if self.cut == 0 && self.rows.len() < MAX_ROWS {
            self.rows.push(row);
            return;
        }
        if self.cut == 0 {
            // One row too many: the last kept row makes way for the note that says so.
            let last = self.rows.pop().expect("MAX_ROWS rows are kept");
            self.cut = 1;
            self.cut_ticks = (last.tick, last.tick);
            self.cut_entries = last.entries;
        }
        self.cut += 1;
        self.cut_ticks.1 = row.tick;
        self.cut_entries = span(self.cut_entries, row.entries);
    }

    /// The rows kept, ending with a note for those cut (if any), and how many were cut.
    pub(super) fn finish(mut self, lanes: &[Lane], lang: Lang) -> (Vec<Row>, usize) {
        if self.cut > 0 {
            let (first, last) = self.cut_ticks;
            self.rows.push(Row {
                tick: first,
                shape: Shape::Note {
                    from: lanes[0],
                    to: lanes[lanes.len() - 1],
                },
                label: lang.diagram_cut(self.cut, (first, last), MAX_ROWS),
                event: None,
                tone: None,
                verb: "cut",
                routine: false,
                delivery: None,
                entries: self.cut_entries,
            });
        }
        (self.rows, self.cut)
    }
}

/// Folds every run of at least [`MIN_FOLD_ROWS`] consecutive foldable rows into one note:
/// the rows and how many rows the folds stand for.
/// Folds consecutive routine rows of events processed once into one note, row by row: it
/// holds the first few rows of a run of them (fewer than [`MIN_FOLD_ROWS`] are drawn as
/// they are), then only what the note will say.
#[derive(Default)]
pub(super) struct Folder {
    /// The current run's first rows, until it is long enough to fold.
    pub(super) first: Vec<Row>,
    /// The current run, once it is long enough to fold.
    pub(super) fold: Option<Fold>,
    /// How many rows the notes so far stand for.
    pub(super) folded: usize,
}

/// What the note for a run of routine rows says: its lanes, events, verbs, steps and ticks.
pub(super) struct Fold {
    pub(super) from: Lane,
    pub(super) to: Lane,
    pub(super) events: BTreeSet<EventIndex>,
    pub(super) verbs: Vec<&'static str>,
    pub(super) steps: usize,
    pub(super) tick: Tick,
    pub(super) last_tick: Tick,
    pub(super) entries: Option<(usize, usize)>,
}

impl Folder {
    pub(super) fn foldable(
        &self,
        row: &Row,
        routine: &BTreeMap<(EventIndex, u32, u32), bool>,
    ) -> bool {
        row.routine && row.tone == Some(Tone::Once) && row.delivery.is_some_and(|k| routine[&k])
    }

    pub(super) fn add(&mut self, row: Row) {
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
                    entries: None,
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
    pub(super) fn flush(&mut self, kept: &mut Kept, lang: Lang) {
        for row in self.first.drain(..) {
            kept.push(row);
        }
        if let Some(fold) = self.fold.take() {
            self.folded += fold.steps;
            kept.push(fold.row(lang));
        }
    }
}

/// The leftmost and rightmost lanes a row spans.
pub(super) fn row_lanes(row: &Row) -> (Lane, Lane) {
    match row.shape {
        Shape::Message { from, to, .. }
        | Shape::Note { from, to }
        | Shape::Fold { from, to, .. } => (from.min(to), from.max(to)),
        Shape::Crash { lane } => (lane, lane),
    }
}

impl Fold {
    pub(super) fn add(&mut self, row: &Row) {
        let (from, to) = row_lanes(row);
        self.from = self.from.min(from);
        self.to = self.to.max(to);
        self.events.extend(row.event);
        // A verb with a place for the delivery (`{e} visible`) is named without it.
        let verb = row
            .verb
            .trim_start_matches("{e}: ")
            .trim_start_matches("{e} ");
        if !self.verbs.contains(&verb) {
            self.verbs.push(verb);
        }
        self.steps += 1;
        self.last_tick = row.tick;
        self.entries = span(self.entries, row.entries);
    }

    /// One note standing for the run: which events, how many steps, which verbs.
    pub(super) fn row(self, lang: Lang) -> Row {
        let events: Vec<EventIndex> = self.events.into_iter().collect();
        Row {
            tick: self.tick,
            shape: Shape::Fold {
                from: self.from,
                to: self.to,
                steps: self.steps,
                last_tick: self.last_tick,
            },
            label: lang.diagram_fold(
                &event_ranges(&events, lang),
                self.steps,
                &self.verbs.join(", "),
            ),
            event: None,
            tone: Some(Tone::Once),
            verb: "fold",
            routine: false,
            delivery: None,
            entries: self.entries,
        }
    }
}

/// The entries from the first of `a` to the last of `b`, either of which may be unknown.
fn span(a: Option<(usize, usize)>, b: Option<(usize, usize)>) -> Option<(usize, usize)> {
    match (a, b) {
        (Some((first, _)), Some((_, last))) => Some((first, last)),
        (a, b) => a.or(b),
    }
}

/// `e0-e4, e6, e8-e19`; past four ranges, `12 events, e0 to e30`.
pub(super) fn event_ranges(events: &[EventIndex], lang: Lang) -> String {
    let mut ranges: Vec<(EventIndex, EventIndex)> = Vec::new();
    for &e in events {
        match ranges.last_mut() {
            Some((_, hi)) if *hi + 1 == e => *hi = e,
            _ => ranges.push((e, e)),
        }
    }
    if ranges.len() > 4 {
        return lang.diagram_event_span(events.len(), events[0], events[events.len() - 1]);
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
