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
        .join("scenarios")
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
    let d = build(&s, &r, Detail::Auto);
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
    let d = build(&s, &r, Detail::Full);
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
    let d = build(&s, &r, Detail::Full);
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
    let d = build(&s, &r, Detail::Full);
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
    let full = build(&s, &r, Detail::Full);
    let compact = build(&s, &r, Detail::Compact);
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
    let d = build(&s, &r, Detail::Auto);
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
    let d = build(&s, &r, Detail::Full);
    assert_eq!(d.rows.len(), MAX_ROWS);
    assert!(d.cut_rows > 0);
    let last = d.rows.last().expect("rows");
    assert!(last.label.contains("more rows not drawn"), "{}", last.label);
    assert!(d.elision_text().expect("says so").contains("rows are cut"));
}

#[test]
fn the_lanes_follow_the_actors_of_the_scenario() {
    let (s, r) = scenario_file("outbox-relay-crash-inbox-absorbs");
    let d = build(&s, &r, Detail::Full);
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
    let d = build(&s, &r, Detail::Full);
    assert!(d.lanes.contains(&Lane::Consumer(1)));
    let (s, r) = scenario_file("inbox-max-deliveries-two-crashes-dead-letter");
    let d = build(&s, &r, Detail::Full);
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
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
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
        let d = build(&s, &r, Detail::Full);
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
    let (a, b) = (build(&s, &r, Detail::Auto), build(&s2, &r2, Detail::Auto));
    assert_eq!(a.mermaid(), b.mermaid());
    assert_eq!(a.svg(), b.svg());
}

#[test]
fn event_ranges_are_short() {
    assert_eq!(event_ranges(&[0, 1, 2, 4, 6, 7]), "e0-e2, e4, e6-e7");
    assert_eq!(event_ranges(&[3]), "e3");
    assert_eq!(
        event_ranges(&[0, 2, 4, 6, 8, 9]),
        "6 events, e0 to e9",
        "past four ranges"
    );
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
    let d = build(&s, &r, Detail::Auto);
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
