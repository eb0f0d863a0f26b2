//! `run --diagram`: the Mermaid output checked by a structural validator of Mermaid's
//! sequence-diagram grammar (there is no network here for mermaid-cli), the SVG parsed as
//! XML (roxmltree), golden outputs under tests/golden/diagrams/ and the README's diagrams
//! compared with what the binary prints. Regenerate the goldens and docs/diagrams/ with
//! `UPDATE_GOLDEN=1 cargo test golden`.

use super::support::*;
use delivery_sim::report::diagram::{self, Detail};
use delivery_sim::report::lang::Lang;
use delivery_sim::{run, Scenario};
use std::collections::BTreeSet;

/// Mermaid's message arrows, longest first so that a prefix never shadows a longer one.
const ARROWS: [&str; 8] = ["-->>", "->>", "--x", "-x", "--)", "-)", "-->", "->"];

/// Characters that mean something to Mermaid's lexer or to the HTML it renders into.
const FORBIDDEN: [char; 9] = [';', '#', '<', '>', '"', '\'', '%', '`', '\\'];

/// Checks `text` against the part of Mermaid's `sequenceDiagram` grammar a diagram may
/// use: the header, participants with alias-free-of-spaces, messages between declared
/// participants, notes over declared participants, `rect rgb(r, g, b)` blocks closed by
/// `end`, and message text free of Mermaid syntax.
fn validate_mermaid(text: &str) -> Result<(), String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, "sequenceDiagram")) => {}
        other => {
            return Err(format!(
                "the first line is not `sequenceDiagram`: {other:?}"
            ))
        }
    }
    let mut participants: BTreeSet<String> = BTreeSet::new();
    let mut statements = 0;
    let mut depth = 0usize;
    let body_text = |n: usize, t: &str| -> Result<(), String> {
        if t.trim().is_empty() {
            return Err(format!("line {n}: empty text"));
        }
        if let Some(c) = t.chars().find(|c| FORBIDDEN.contains(c) || c.is_control()) {
            return Err(format!("line {n}: forbidden character {c:?} in {t:?}"));
        }
        Ok(())
    };
    let declared = |n: usize, alias: &str, participants: &BTreeSet<String>| {
        if participants.contains(alias) {
            Ok(())
        } else {
            Err(format!("line {n}: undeclared participant {alias:?}"))
        }
    };
    for (i, raw) in lines {
        let n = i + 1;
        let line = raw.trim_start();
        if line.is_empty() {
            return Err(format!("line {n}: blank line"));
        }
        if let Some(rest) = line.strip_prefix("participant ") {
            if statements > 0 {
                return Err(format!("line {n}: participant after the first message"));
            }
            let (alias, name) = rest
                .split_once(" as ")
                .ok_or(format!("line {n}: participant without `as`"))?;
            let alias_ok = alias
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && alias.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !["end", "rect", "note", "box", "loop", "alt", "opt", "par"]
                    .contains(&alias.to_ascii_lowercase().as_str());
            if !alias_ok {
                return Err(format!("line {n}: bad alias {alias:?}"));
            }
            body_text(n, name)?;
            if !participants.insert(alias.to_string()) {
                return Err(format!("line {n}: {alias} declared twice"));
            }
            continue;
        }
        statements += 1;
        if line == "end" {
            depth = depth
                .checked_sub(1)
                .ok_or(format!("line {n}: `end` without a block"))?;
        } else if let Some(rest) = line.strip_prefix("rect ") {
            let inner = rest
                .strip_prefix("rgb(")
                .and_then(|r| r.strip_suffix(')'))
                .ok_or(format!("line {n}: rect without rgb(...)"))?;
            let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
            if parts.len() != 3 || parts.iter().any(|p| p.parse::<u8>().is_err()) {
                return Err(format!("line {n}: bad colour {inner:?}"));
            }
            depth += 1;
        } else if let Some(rest) = line.strip_prefix("Note ") {
            let rest = ["over ", "left of ", "right of "]
                .iter()
                .find_map(|p| rest.strip_prefix(p))
                .ok_or(format!(
                    "line {n}: a note must be over, left of or right of"
                ))?;
            let (who, note) = rest
                .split_once(": ")
                .ok_or(format!("line {n}: a note without text"))?;
            let who: Vec<&str> = who.split(',').collect();
            if who.len() > 2 {
                return Err(format!("line {n}: a note over more than two participants"));
            }
            for alias in who {
                declared(n, alias, &participants)?;
            }
            body_text(n, note)?;
        } else {
            let (head, message) = line
                .split_once(": ")
                .ok_or(format!("line {n}: not a statement: {line:?}"))?;
            let dash = head
                .find('-')
                .ok_or(format!("line {n}: no arrow in {head:?}"))?;
            let (from, rest) = head.split_at(dash);
            let arrow = ARROWS
                .iter()
                .find(|a| rest.starts_with(*a))
                .ok_or(format!("line {n}: unknown arrow in {head:?}"))?;
            let to = &rest[arrow.len()..];
            declared(n, from, &participants)?;
            declared(n, to, &participants)?;
            body_text(n, message)?;
        }
    }
    if participants.is_empty() {
        return Err("no participant".into());
    }
    if depth != 0 {
        return Err(format!("{depth} block(s) not closed by `end`"));
    }
    Ok(())
}

#[test]
fn the_validator_rejects_what_mermaid_rejects() {
    let good = "sequenceDiagram\n    participant A as Alpha\n    participant B as Beta\n    rect rgb(1, 2, 3)\n        A->>B: hi\n        B-xA: no\n        Note over A,B: both\n    end\n";
    assert_eq!(validate_mermaid(good), Ok(()));
    for (bad, why) in [
        (good.replace("sequenceDiagram", "graph TD"), "first line"),
        (good.replace("    end\n", ""), "not closed"),
        (
            good.replace("    end\n", "    end\n    end\n"),
            "without a block",
        ),
        (good.replace("A->>B", "A->>C"), "undeclared"),
        (good.replace("hi", "hi; there"), "forbidden"),
        (good.replace("hi", "#35;"), "forbidden"),
        (good.replace("hi", "<br>"), "forbidden"),
        (good.replace("A->>B", "A=>B"), "arrow"),
        (good.replace("rgb(1, 2, 3)", "rgb(1, 2, 300)"), "colour"),
        (
            good.replace("participant B as", "participant B C as"),
            "alias",
        ),
        (good.replace("Note over", "Note above"), "over"),
    ] {
        let e = validate_mermaid(&bad).expect_err(why);
        assert!(e.contains(why), "{why}: {e}");
    }
}

fn scenario(file: &str) -> Scenario {
    Scenario::from_file(&root().join(file)).expect("a valid scenario")
}

#[test]
fn every_scenario_draws_valid_mermaid_and_well_formed_svg() {
    for file in scenario_files() {
        let s = scenario(&file);
        let r = run(&s);
        let drawings = [Detail::Full, Detail::Compact]
            .into_iter()
            .flat_map(|detail| [(detail, Lang::En), (detail, Lang::Es)]);
        for (detail, lang) in drawings {
            let d = diagram::build(&s, &r, detail, lang);
            let m = d.mermaid();
            if let Err(e) = validate_mermaid(&m) {
                panic!("{file} ({detail:?}, {lang:?}): {e}\n{m}");
            }
            let svg = d.svg();
            let doc = roxmltree::Document::parse(&svg)
                .unwrap_or_else(|e| panic!("{file} ({detail:?}, {lang:?}): SVG is not XML: {e}"));
            check_standalone(&doc, &file);
        }
    }
}

/// The SVG needs nothing from outside: no script, stylesheet, image or foreign object,
/// and no reference but to its own markers.
fn check_standalone(doc: &roxmltree::Document, file: &str) {
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{file}");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg"),
        "{file}"
    );
    for node in doc.descendants().filter(|n| n.is_element()) {
        let name = node.tag_name().name();
        assert!(
            !["script", "style", "image", "foreignObject", "use", "link"].contains(&name),
            "{file}: <{name}>"
        );
        for a in node.attributes() {
            assert!(!a.name().contains("href"), "{file}: {}", a.name());
            if a.value().contains("url(") {
                assert!(a.value().starts_with("url(#head-"), "{file}: {}", a.value());
            }
        }
        if let Some(family) = node.attribute("font-family") {
            assert!(
                ["sans-serif", "monospace"].contains(&family),
                "{file}: {family}"
            );
        }
    }
}

/// The run of `file` drawn as SVG by the binary, parsed.
fn svg_of(file: &str) -> String {
    let o = bin(&["run", file, "--diagram", "svg"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

fn elements<'a>(doc: &'a roxmltree::Document<'a>, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.attribute("class") == Some(class))
        .collect()
}

/// Checks the lanes, the crash mark and the colour of `event` in the SVG of `file`.
fn check_svg(file: &str, event: &str, outcome: &str, ink: &str, band: &str, crash: &str) {
    let svg = svg_of(file);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let lanes: Vec<&str> = elements(&doc, "lane")
        .iter()
        .filter_map(|n| n.attribute("data-lane"))
        .collect();
    assert_eq!(lanes, ["producer", "broker", "consumer0", "database"]);
    let crashes = elements(&doc, "crash");
    assert_eq!(crashes.len(), 1);
    assert_eq!(crashes[0].attribute("data-lane"), Some("consumer0"));
    assert_eq!(crashes[0].attribute("data-event"), Some(event));
    let mark = crashes[0]
        .children()
        .find(|n| n.has_tag_name("path"))
        .expect("a cross");
    assert_eq!(mark.attribute("stroke"), Some("#d50000"));
    let text = crashes[0]
        .children()
        .find(|n| n.has_tag_name("text"))
        .and_then(|n| n.text());
    assert_eq!(text, Some(crash));
    let messages: Vec<_> = elements(&doc, "message")
        .into_iter()
        .filter(|n| n.attribute("data-event") == Some(event))
        .collect();
    assert!(messages.len() >= 3, "{file}");
    for m in &messages {
        assert_eq!(m.attribute("data-outcome"), Some(outcome));
        let line = m.children().find(|n| n.has_tag_name("line")).expect("line");
        assert_eq!(line.attribute("stroke"), Some(ink));
    }
    // The other events were processed once: green.
    let once = elements(&doc, "message")
        .into_iter()
        .find(|n| n.attribute("data-event") == Some("0"))
        .expect("e0");
    assert_eq!(once.attribute("data-outcome"), Some("once"));
    let line = once.children().find(|n| n.has_tag_name("line")).unwrap();
    assert_eq!(line.attribute("stroke"), Some("#2e7d32"));
    let bands: BTreeSet<(&str, &str)> = elements(&doc, "band")
        .iter()
        .map(|n| {
            (
                n.attribute("data-outcome").unwrap(),
                n.attribute("fill").unwrap(),
            )
        })
        .collect();
    assert!(bands.contains(&(outcome, band)), "{bands:?}");
    assert!(bands.contains(&("once", "rgb(220,240,220)")), "{bands:?}");
    let title = doc
        .descendants()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text())
        .unwrap_or_default();
    assert!(title.contains(&format!("1 {outcome}")), "{title}");
}

#[test]
fn the_svg_of_a_lost_event_is_red_with_a_crash_mark_after_the_ack() {
    check_svg(
        "scenarios/ack-first-crash-after-ack.json",
        "1",
        "lost",
        "#c62828",
        "rgb(250,210,210)",
        "CRASH after:ack e1 d1",
    );
}

#[test]
fn the_svg_of_a_duplicated_event_is_orange_with_a_crash_mark_after_the_commit() {
    check_svg(
        "scenarios/no-dedup-crash-between-commit-and-ack.json",
        "1",
        "duplicated",
        "#e65100",
        "rgb(255,224,178)",
        "CRASH after:commit e1 d1",
    );
}

#[test]
fn the_mermaid_of_a_lost_and_a_duplicated_event_colours_them() {
    let lost = stdout(&bin(&[
        "run",
        "scenarios/ack-first-crash-after-ack.json",
        "--diagram",
        "mermaid",
    ]));
    assert!(lost.contains(
        "    rect rgb(250, 210, 210)\n        B->>C0: deliver e1\n        C0->>B: ack e1\n        Note over C0: CRASH after:ack e1 d1\n    end\n"
    ), "{lost}");
    let dup = stdout(&bin(&[
        "run",
        "scenarios/no-dedup-crash-between-commit-and-ack.json",
        "--diagram",
        "mermaid",
    ]));
    assert!(
        dup.contains("    rect rgb(255, 224, 178)\n        Note over B: e1 ready for redelivery\n        B->>C0: redeliver e1 d2\n"),
        "{dup}"
    );
}

#[test]
fn twenty_events_stay_readable() {
    let file = "scenarios/inbox-random-crashes-20-events.json";
    let m = stdout(&bin(&["run", file, "--diagram", "mermaid"]));
    assert!(m.lines().count() <= 100, "{} lines", m.lines().count());
    assert!(m.contains("routine steps of events processed once are folded"));
    let svg = svg_of(file);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let height: u32 = doc
        .root_element()
        .attribute("height")
        .unwrap()
        .parse()
        .unwrap();
    assert!(height <= 2000, "{height} px");
    // Its seed draws four random crashes: every one is drawn.
    assert_eq!(elements(&doc, "crash").len(), 4);
    // In full, every step is drawn.
    let full = stdout(&bin(&[
        "run",
        file,
        "--diagram",
        "mermaid",
        "--diagram-detail",
        "full",
    ]));
    assert!(full.lines().count() > 150);
    assert!(!full.contains("folded"));
}

#[test]
fn out_writes_the_same_bytes_as_stdout_and_runs_repeat_exactly() {
    let file = "scenarios/no-dedup-crash-between-commit-and-ack.json";
    let dir = std::env::temp_dir().join(format!("delivery-sim-diagram-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("d.svg");
    let o = bin(&[
        "run",
        file,
        "--diagram",
        "svg",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("wrote "), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "results on stdout, status on stderr");
    let written = std::fs::read_to_string(&path).unwrap();
    assert_eq!(written, svg_of(file));
    assert_eq!(svg_of(file), svg_of(file));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_diagram_keeps_the_exit_code_of_the_run() {
    // The scenario expects a loss; run without its planned crash, its expectation fails.
    let o = bin(&[
        "run",
        "scenarios/ack-first-crash-after-ack.json",
        "--crash",
        "after:commit e0 d1",
        "--diagram",
        "mermaid",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("sequenceDiagram\n"));
}

#[test]
fn diagram_flags_are_refused_where_they_make_no_sense() {
    let o = bin(&["run", "scenarios/", "--diagram", "mermaid"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--diagram cannot be used with a folder"),
        "{}",
        stderr(&o)
    );
    for args in [
        vec![
            "run",
            "scenarios/inbox-crash-after-ack.json",
            "--out",
            "x.svg",
        ],
        vec![
            "run",
            "scenarios/inbox-crash-after-ack.json",
            "--diagram",
            "svg",
            "--json",
        ],
        vec![
            "run",
            "scenarios/inbox-crash-after-ack.json",
            "--diagram",
            "png",
        ],
    ] {
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let o = bin(&[
        "run",
        "scenarios/inbox-crash-after-ack.json",
        "--diagram",
        "svg",
        "--out",
        "/nonexistent-dir/x.svg",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--out: cannot write"), "{}", stderr(&o));
}

/// The diagrams kept in the repository, each with the arguments that draw it.
const GOLDEN_DIAGRAMS: [(&str, &str, &str); 5] = [
    (
        "tests/golden/diagrams/no-dedup-crash-between-commit-and-ack.mmd",
        "scenarios/no-dedup-crash-between-commit-and-ack.json",
        "mermaid",
    ),
    (
        "tests/golden/diagrams/ack-first-crash-after-ack.svg",
        "scenarios/ack-first-crash-after-ack.json",
        "svg",
    ),
    (
        "tests/golden/diagrams/inbox-random-crashes-20-events.mmd",
        "scenarios/inbox-random-crashes-20-events.json",
        "mermaid",
    ),
    (
        "tests/golden/diagrams/inbox-random-crashes-20-events.svg",
        "scenarios/inbox-random-crashes-20-events.json",
        "svg",
    ),
    // The README shows this one.
    (
        "docs/diagrams/no-dedup-crash-between-commit-and-ack.svg",
        "scenarios/no-dedup-crash-between-commit-and-ack.json",
        "svg",
    ),
];

#[test]
fn golden_diagrams() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (golden, file, format) in GOLDEN_DIAGRAMS {
        let drawn = stdout(&bin(&["run", file, "--diagram", format]));
        let path = root().join(golden);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &drawn).unwrap();
            continue;
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == drawn,
            "{golden} differs from `delivery-sim run {file} --diagram {format}`; if the \
             change is intended, run UPDATE_GOLDEN=1 cargo test golden"
        );
    }
}

#[test]
fn the_readme_shows_the_real_diagrams() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lost = stdout(&bin(&[
        "run",
        "scenarios/ack-first-crash-after-ack.json",
        "--diagram",
        "mermaid",
    ]));
    assert!(
        readme.contains(&format!("```mermaid\n{lost}```")),
        "README's Mermaid diagram is stale: paste the output of `cargo run --release -- run \
         scenarios/ack-first-crash-after-ack.json --diagram mermaid`"
    );
    assert!(
        readme.contains("(docs/diagrams/no-dedup-crash-between-commit-and-ack.svg)"),
        "README shows the committed SVG"
    );
}
