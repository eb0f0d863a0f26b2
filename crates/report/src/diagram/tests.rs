//! Unit tests of the diagram model and its two renderings.

use super::*;
use crate::fault::CrashSpec;
use crate::model::{BoundaryPoint, Protocol};
use crate::world;

/// A run of built-in `protocol` with `events` events and one crash at `point`.
fn crashed(protocol: &str, events: usize, point: &str) -> (Scenario, RunResult) {
    let mut s = Scenario::new(Protocol::built_in(protocol).expect("a built-in protocol"));
    s.workload.events = events;
    s.faults.crash = vec![CrashSpec::exactly(
        BoundaryPoint::parse(point).expect("a crash point"),
    )];
    let r = world::run(&s);
    (s, r)
}

fn scenario_file(name: &str) -> (Scenario, RunResult) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(format!("{name}.json"));
    let s = Scenario::from_file(&path).expect("a valid scenario");
    let r = world::run(&s);
    (s, r)
}

fn rows_of_event(d: &Diagram, event: EventIndex) -> Vec<&Row> {
    d.rows.iter().filter(|r| r.event == Some(event)).collect()
}

#[test]
fn a_lost_event_is_red_and_its_crash_names_the_point() {
    let (s, r) = crashed("ack-first", 3, "after:ack e1 d1");
    let d = build(&s, &r, Detail::Auto, Lang::En);
    assert!(!d.compact, "a 3-event run is drawn in full");
    let e1 = rows_of_event(&d, 1);
    assert!(e1.iter().all(|r| r.tone == Some(Tone::Lost)), "{e1:?}");
    let crash = e1
        .iter()
        .find(|r| matches!(r.shape, Shape::Crash { .. }))
        .expect("a crash row");
    assert_eq!(
        crash.shape,
        Shape::Crash {
            lane: Lane::Consumer(0)
        }
    );
    assert_eq!(crash.label, "CRASH after:ack e1 d1");
    let last = d.rows.last().expect("rows");
    assert_eq!(last.label, "e1 LOST: no effect committed, acked");
    assert_eq!(last.tone, Some(Tone::Lost));
    // The events processed once are green.
    assert!(rows_of_event(&d, 0)
        .iter()
        .all(|r| r.tone == Some(Tone::Once)));
    // The ack goes from the consumer to the broker, before any database step of e1.
    let labels: Vec<&str> = e1.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "publish e1",
            "deliver e1",
            "ack e1",
            "CRASH after:ack e1 d1",
            "e1 LOST: no effect committed, acked"
        ]
    );
}

#[test]
fn a_duplicated_event_is_orange_and_its_redelivery_is_drawn() {
    let (s, r) = crashed("no-dedup", 3, "after:commit e1 d1");
    let d = build(&s, &r, Detail::Full, Lang::En);
    let e1 = rows_of_event(&d, 1);
    assert!(e1.iter().all(|r| r.tone == Some(Tone::Duplicated)));
    let labels: Vec<&str> = e1.iter().map(|r| r.label.as_str()).collect();
    assert!(labels.contains(&"redeliver e1 d2"), "{labels:?}");
    assert_eq!(
        labels.iter().filter(|l| l.starts_with("COMMIT e1")).count(),
        2,
        "both commits are drawn: {labels:?}"
    );
    assert_eq!(
        d.rows.last().map(|r| r.label.as_str()),
        Some("e1 DUPLICATED: 2 effects committed")
    );
    // A commit goes from the consumer to the database.
    let commit = e1
        .iter()
        .find(|r| r.label == "COMMIT e1")
        .expect("a commit");
    assert_eq!(
        commit.shape,
        Shape::Message {
            from: Lane::Consumer(0),
            to: Lane::Database,
            style: Style::Call
        }
    );
}

#[test]
fn receives_and_idle_polls_are_not_drawn_and_every_other_entry_is() {
    let (s, r) = crashed("no-dedup", 3, "after:commit e1 d1");
    let d = build(&s, &r, Detail::Full, Lang::En);
    let skipped = r
        .trace
        .entries()
        .iter()
        .filter(|e| e.action() == "receive" || e.action() == "poll")
        .count();
    // One row per other entry, and the closing note of e1.
    assert_eq!(d.rows.len(), r.trace.len() - skipped + 1);
    assert!(d.rows.iter().all(|r| !r.label.contains("receive")));
}

#[test]
fn a_duplicate_recognised_by_the_inbox_is_a_refused_insert_and_a_note() {
    let (s, r) = scenario_file("inbox-crash-between-commit-and-ack");
    let d = build(&s, &r, Detail::Full, Lang::En);
    let i = d
        .rows
        .iter()
        .position(|r| r.label == "INSERT inbox e1 d2: exists")
        .expect("the refused insert");
    assert!(matches!(
        d.rows[i].shape,
        Shape::Message {
            style: Style::Refused,
            ..
        }
    ));
    assert_eq!(d.rows[i + 1].label, "duplicate e1 d2 recognised");
    assert!(d.rows.iter().any(|r| r.label == "ROLLBACK e1 d2"));
}

#[test]
fn compact_folds_only_routine_steps_of_events_processed_once() {
    let (s, r) = crashed("no-dedup", 12, "after:commit e5 d1");
    let full = build(&s, &r, Detail::Full, Lang::En);
    let compact = build(&s, &r, Detail::Compact, Lang::En);
    assert!(compact.compact && compact.folded_steps > 0);
    assert!(compact.rows.len() < full.rows.len());
    // Every row of the duplicated event is still there, one by one.
    assert_eq!(rows_of_event(&full, 5), rows_of_event(&compact, 5));
    // The folds plus the rows drawn account for every row of the full view.
    let folds = compact
        .rows
        .iter()
        .filter(|r| matches!(r.shape, Shape::Fold { .. }))
        .count();
    assert_eq!(
        compact.rows.len() - folds + compact.folded_steps,
        full.rows.len()
    );
    let publish = &compact.rows[0];
    assert_eq!(publish.label, "e0-e4: 5 routine steps (publish)");
}

#[test]
fn auto_folds_a_long_run_and_keeps_its_crashes() {
    let (s, r) = scenario_file("inbox-random-crashes-20-events");
    let d = build(&s, &r, Detail::Auto, Lang::En);
    assert!(d.compact);
    let crashes = d
        .rows
        .iter()
        .filter(|r| matches!(r.shape, Shape::Crash { .. }))
        .count();
    assert_eq!(crashes, r.crashes.len());
    assert!(d.rows.len() <= FULL_ROWS, "{} rows", d.rows.len());
}

#[test]
fn a_diagram_never_has_more_than_the_row_cap() {
    let mut s = Scenario::new(Protocol::built_in("inbox").expect("built in"));
    s.workload.events = 100;
    let r = world::run(&s);
    let d = build(&s, &r, Detail::Full, Lang::En);
    assert_eq!(d.rows.len(), MAX_ROWS);
    assert!(d.cut_rows > 0);
    let last = d.rows.last().expect("rows");
    assert!(last.label.contains("more rows not drawn"), "{}", last.label);
    assert!(d.elision_text().expect("says so").contains("rows are cut"));
}

#[test]
fn the_lanes_follow_the_actors_of_the_scenario() {
    let (s, r) = scenario_file("outbox-relay-crash-inbox-absorbs");
    let d = build(&s, &r, Detail::Full, Lang::En);
    assert_eq!(
        d.lanes,
        [
            Lane::Producer,
            Lane::ProducerDb,
            Lane::Relay,
            Lane::Broker,
            Lane::Consumer(0),
            Lane::Database
        ]
    );
    let (s, r) = scenario_file("inbox-lease-expiry-two-consumers");
    let d = build(&s, &r, Detail::Full, Lang::En);
    assert!(d.lanes.contains(&Lane::Consumer(1)));
    let (s, r) = scenario_file("inbox-max-deliveries-two-crashes-dead-letter");
    let d = build(&s, &r, Detail::Full, Lang::En);
    assert!(d.rows.iter().any(|r| r.shape
        == Shape::Message {
            from: Lane::Broker,
            to: Lane::DeadLetters,
            style: Style::Call
        }));
    // Dead-lettered and never replayed: its effect is missing, drawn as a loss.
    assert_eq!(d.rows.last().map(|r| r.tone), Some(Some(Tone::Lost)));
}

#[test]
fn every_trace_action_of_every_scenario_has_a_drawing() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let liveness = dir.join("liveness");
    let mut files: Vec<_> = [dir, liveness]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("scenarios/"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for path in files {
        let s = Scenario::from_file(&path).expect("valid");
        let r = world::run(&s);
        let d = build(&s, &r, Detail::Full, Lang::En);
        for row in &d.rows {
            assert!(
                row.verb != "step" && row.verb != "broker",
                "{}: no drawing for `{}`; add one in rows_of",
                path.display(),
                row.label
            );
        }
    }
}

#[test]
fn the_same_run_gives_the_same_bytes() {
    let (s, r) = crashed("ack-first", 3, "after:ack e1 d1");
    let (s2, r2) = crashed("ack-first", 3, "after:ack e1 d1");
    let (a, b) = (
        build(&s, &r, Detail::Auto, Lang::En),
        build(&s2, &r2, Detail::Auto, Lang::En),
    );
    assert_eq!(a.mermaid(), b.mermaid());
    assert_eq!(a.svg(), b.svg());
}

#[test]
fn event_ranges_are_short() {
    assert_eq!(
        event_ranges(&[0, 1, 2, 4, 6, 7], Lang::En),
        "e0-e2, e4, e6-e7"
    );
    assert_eq!(event_ranges(&[3], Lang::En), "e3");
    assert_eq!(
        event_ranges(&[0, 2, 4, 6, 8, 9], Lang::En),
        "6 events, e0 to e9",
        "past four ranges"
    );
    assert_eq!(
        event_ranges(&[0, 2, 4, 6, 8, 9], Lang::Es),
        "6 eventos, de e0 a e9"
    );
    assert_eq!(event_ranges(&[0, 1, 2, 4], Lang::Es), "e0-e2, e4");
}

#[test]
fn mermaid_text_is_cleaned_of_syntax() {
    assert_eq!(
        mermaid::clean("a;b #1 <x> \"q\" 'r' 50% {c} `d` e&f\tg"),
        "a,b \u{FF03}1 x q r 50 c d e and f g"
    );
}

#[test]
fn a_scenario_name_with_syntax_characters_cannot_break_either_diagram() {
    let (mut s, r) = crashed("ack-first", 3, "after:ack e1 d1");
    s.name = "evil; name # <b>\"x\"</b> & 'y' %%".into();
    let d = build(&s, &r, Detail::Auto, Lang::En);
    let m = d.mermaid();
    let title = m.lines().find(|l| l.contains("evil")).expect("the title");
    assert!(
        !title.contains([';', '#', '<', '>', '"', '\'', '%']),
        "{title}"
    );
    let svg = d.svg();
    assert!(svg.contains("evil, name # &lt;b&gt;") || svg.contains("evil; name # &lt;b&gt;"));
    assert!(!svg.contains("<b>"));
}

/// Every scenario file's run and a few runs that fold, cut and crash, each with its
/// diagram in both languages.
fn runs_to_draw_in_both_languages() -> Vec<(String, Scenario, RunResult, Detail)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut paths: Vec<_> = [dir.clone(), dir.join("liveness")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("scenarios/"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let mut runs = Vec::new();
    for path in paths {
        let s = Scenario::from_file(&path).expect("valid");
        let name = path.display().to_string();
        for detail in [Detail::Full, Detail::Compact] {
            let r = world::run(&s);
            runs.push((name.clone(), s.clone(), r, detail));
        }
    }
    for (protocol, point) in [
        ("no-dedup", "after:commit e5 d1"),
        ("ack-first", "after:ack e1 d1"),
    ] {
        let (s, r) = crashed(protocol, 12, point);
        runs.push((format!("{protocol} {point}"), s, r, Detail::Compact));
    }
    let mut s = Scenario::new(Protocol::built_in("inbox").expect("built in"));
    s.workload.events = 100;
    let r = world::run(&s);
    runs.push(("inbox, 100 events".into(), s, r, Detail::Full));
    runs
}

/// The words of a label that no language changes: names with digits (`e1`, `d2`, `t=40`),
/// crash points and numbers.
fn label_skeleton(label: &str) -> Vec<String> {
    label
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "():,;".contains(c)))
        .filter(|w| {
            w.chars().any(|c| c.is_ascii_digit())
                || w.starts_with("before:")
                || w.starts_with("after:")
        })
        .map(str::to_string)
        .collect()
}

/// English words of the diagrams that Spanish labels must not contain.
const ENGLISH: &[&str] = &[
    "the",
    "and",
    "of",
    "with",
    "for",
    "to",
    "its",
    "is",
    "are",
    "not",
    "again",
    "deliver",
    "redeliver",
    "publish",
    "apply",
    "recognised",
    "exists",
    "expired",
    "lost",
    "busy",
    "wait",
    "stale",
    "ignored",
    "fails",
    "rows",
    "steps",
    "events",
    "routine",
    "effects",
    "committed",
    "acked",
    "legend",
    "green",
    "red",
    "orange",
    "grey",
    "crash",
    "database",
    "producer",
    "lease of",
    "outputs",
    "ready",
    "rolls",
    "already",
    "restart",
    "duplicate",
    "duplicated",
    "once",
    "other",
    "waits",
    "view",
    "drawn",
    "more",
];

fn english_words_in(text: &str) -> Vec<&'static str> {
    // Crash points (`after:publish`) and flags (`--trace`) are the tool's own names.
    let text: String = text
        .split_whitespace()
        .filter(|w| !w.starts_with("before:") && !w.starts_with("after:") && !w.starts_with("--"))
        .collect::<Vec<_>>()
        .join(" ");
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
        .map(str::to_lowercase)
        .collect();
    ENGLISH
        .iter()
        .copied()
        .filter(|w| {
            let mut parts = w.split(' ');
            let first = parts.next().expect("a word");
            words.iter().any(|x| x == first)
                && (w.split(' ').count() == 1 || text.to_lowercase().contains(w))
        })
        .collect()
}

#[test]
fn every_diagram_speaks_spanish_with_the_same_rows() {
    for (name, s, r, detail) in runs_to_draw_in_both_languages() {
        let en = build(&s, &r, detail, Lang::En);
        let es = build(&s, &r, detail, Lang::Es);
        assert_eq!(en.lanes, es.lanes, "{name}");
        assert_eq!(
            (en.compact, en.folded_steps, en.cut_rows),
            (es.compact, es.folded_steps, es.cut_rows),
            "{name}"
        );
        assert_eq!(en.rows.len(), es.rows.len(), "{name}");
        for (a, b) in en.rows.iter().zip(&es.rows) {
            let same = (a.tick, a.shape, a.event, a.tone, a.routine, a.delivery);
            assert_eq!(
                same,
                (b.tick, b.shape, b.event, b.tone, b.routine, b.delivery),
                "{name}: {} / {}",
                a.label,
                b.label
            );
            assert_eq!(
                label_skeleton(&a.label),
                label_skeleton(&b.label),
                "{name}: {} / {}",
                a.label,
                b.label
            );
            let english = english_words_in(&b.label);
            assert!(english.is_empty(), "{name}: {english:?} in {:?}", b.label);
        }
        // The lane heads, the legend and the notes of both renderings.
        for drawn in [es.mermaid(), es.svg()] {
            let text: String = drawn
                .lines()
                .filter(|l| !l.contains("<path") && !l.contains("<marker"))
                .map(|l| {
                    // The SVG's attribute names and values are English by design; its text
                    // is what people read.
                    if l.starts_with('<') {
                        svg_texts(l)
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            let text = text.replace("sequenceDiagram", "").replace("Note over", "");
            let english = english_words_in(&text);
            assert!(english.is_empty(), "{name}: {english:?} in\n{text}");
        }
    }
}

/// The text content of the `<text>` and `<title>` elements on one line of an SVG.
fn svg_texts(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('>') {
        rest = &rest[open + 1..];
        let end = rest.find('<').unwrap_or(rest.len());
        out.push_str(&rest[..end]);
        out.push(' ');
        rest = &rest[end..];
    }
    out
}
