//! The pages: self-contained, their data what the catalogue and the runs say, the script's
//! words all in the catalogue, the matrix page within its size and agreeing with the
//! matrix's own verdicts.

use super::explore as page_explore;
use super::*;
use crate::explore;
use crate::fault::CrashSpec;
use crate::model::{Boundary, BoundaryPoint, Protocol, Step};
use crate::scenario::Scenario;
use crate::world;
use serde_json::Value;

/// The view of `r`, the run of `s`, as the CLI makes it for a page.
fn told(s: &Scenario, r: &world::RunResult) -> crate::view::RunView {
    crate::view::watch(&world::InProcess, s, &[], r)
}

/// A run and its view, as the CLI hands them to a page that asks.
fn tell(s: &Scenario) -> (world::RunResult, crate::view::RunView) {
    crate::view::run_and_watch(&world::InProcess, s)
}

/// The data a page embeds, unpacked as its script unpacks it.
fn data_of(html: &str) -> Value {
    serde_json::from_str(&unpacked(html).expect("a data element")).expect("the page's data is JSON")
}

fn crashed(protocol: &str, point: &str) -> (Scenario, world::RunResult) {
    let mut s = Scenario::new(Protocol::built_in(protocol).expect("a built-in"));
    s.workload.events = 2;
    s.faults.crash = vec![CrashSpec::exactly(
        BoundaryPoint::parse(point).expect("a crash point"),
    )];
    let r = world::run(&s);
    (s, r)
}

#[test]
fn a_page_loads_nothing_from_anywhere() {
    let (s, r) = crashed("ack-first", "after:ack e0 d1");
    let html = run_page(
        &told(&s, &r),
        &s,
        &r,
        "delivery-sim run x",
        Lang::En,
        &r.judgement(None),
    )
    .html();
    for external in ["<link", "src=", "@import", "url(http", "https:", "//cdn"] {
        assert!(!html.contains(external), "{external} in the page");
    }
    // The script can fetch (the playground talks to its server), but the policy of every
    // page but the playground's allows no connection at all.
    let policy = |html: &str| -> String {
        let open = "Content-Security-Policy\" content=\"";
        let start = html.find(open).expect("a policy") + open.len();
        html[start..start + html[start..].find('"').expect("quoted")].to_string()
    };
    assert_eq!(
        policy(&html),
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:;"
    );
    let playground = playground_page(&[("x", "{}")], Lang::En).html();
    assert!(policy(&playground).ends_with("img-src data:; connect-src 'self';"));
    // The only address is the SVG namespace, which names and loads nothing.
    let addresses: Vec<&str> = html.matches("http://").collect();
    assert_eq!(
        html.matches("http://www.w3.org/2000/svg").count(),
        addresses.len()
    );
    assert!(html.contains("Content-Security-Policy") && html.contains("default-src 'none'"));
}

#[test]
fn a_run_page_tells_every_entry_in_both_languages_and_its_diagram_names_them() {
    let (s, r) = crashed("no-dedup", "after:commit e1 d1");
    let page = run_page(
        &told(&s, &r),
        &s,
        &r,
        "delivery-sim run y",
        Lang::Es,
        &r.judgement(None),
    );
    let data = data_of(&page.html());
    assert_eq!(data["lang"], "es");
    let run = &data["runs"][0];
    let steps = run["steps"].as_array().expect("steps");
    assert_eq!(
        steps.len(),
        r.trace.len(),
        "every entry of a short run is told"
    );
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step["entry"], i);
        assert_ne!(step["text"]["en"], step["text"]["es"], "step {i}");
    }
    assert_eq!(run["guarantee"], "at-least-once");
    assert_eq!(run["tone"], "duplicated");
    assert_eq!(run["crashes"][0], "after:commit e1 d1");
    // Each diagram row points at entries the story tells.
    for lang in ["en", "es"] {
        let svg = run["svg"][lang].as_str().expect("an svg");
        assert!(svg.starts_with("<svg"), "inlined without its declaration");
        let firsts: Vec<usize> = svg
            .split("data-first=\"")
            .skip(1)
            .map(|rest| {
                rest[..rest.find('"').expect("quoted")]
                    .parse()
                    .expect("a number")
            })
            .collect();
        assert!(firsts.len() > 10, "{lang}: {} rows", firsts.len());
        assert!(firsts.iter().all(|&f| f < steps.len()));
        assert!(firsts.windows(2).all(|w| w[0] <= w[1]), "in trace order");
    }
    assert_ne!(run["svg"]["en"], run["svg"]["es"]);
    let events = run["events"].as_array().expect("events");
    assert_eq!(events[1]["tone"], "duplicated");
    assert_eq!(events[1]["outcome"]["es"], "DUPLICADO");
    assert_eq!(
        run["failure_points"]["en"].as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn nothing_in_the_data_can_end_the_script_element() {
    let (mut s, r) = crashed("inbox", "after:ack e0 d1");
    s.name = "x</script><script>alert(1)</script><!--".into();
    let html = run_page(
        &told(&s, &r),
        &s,
        &r,
        "delivery-sim run z",
        Lang::En,
        &r.judgement(None),
    )
    .html();
    // The data element's end and the script's own: no third.
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(!html.contains("<!--"));
    assert!(
        html.contains("<title>x&lt;/script&gt;"),
        "the title is escaped"
    );
    assert_eq!(data_of(&html)["runs"][0]["name"], s.name.as_str());
}

#[test]
fn a_page_is_the_same_bytes_every_time() {
    let (s, r) = crashed("inbox", "after:commit e1 d1");
    let page = || {
        run_page(
            &told(&s, &r),
            &s,
            &r,
            "delivery-sim run w",
            Lang::Es,
            &r.judgement(None),
        )
        .html()
    };
    assert_eq!(page(), page());
}

#[test]
fn every_word_the_script_asks_for_is_in_the_catalogue() {
    let key = |rest: &'static str| &rest[..rest.find('"').expect("a quoted key")];
    let js = include_str!("page.js");
    let mut asked: Vec<&str> = js.split("w(\"").skip(1).map(key).collect();
    // The pages' titles are worded in Rust.
    for rust in [include_str!("matrix.rs"), include_str!("mod.rs")] {
        asked.extend(rust.split("html_word(\"").skip(1).map(key));
    }
    assert!(asked.len() > 30, "{asked:?}");
    for lang in [Lang::En, Lang::Es] {
        let words: BTreeMap<_, _> = lang.html_words().into_iter().collect();
        for key in &asked {
            assert!(words.contains_key(key), "{key} is not a word of the pages");
        }
    }
    // And no word of the catalogue is left unused.
    for (key, _) in Lang::En.html_words() {
        assert!(asked.contains(&key), "{key} is never asked for");
    }
    // And a word the script asks for that the catalogue lacks is found.
    let bad = "w(\"no_such_word\")";
    let key = &bad[3..bad.len() - 2];
    assert!(!Lang::En.html_words().iter().any(|(k, _)| *k == key));
}

#[test]
fn the_matrix_page_agrees_with_the_matrix_and_stays_small() {
    let protocols = Protocol::all_built_in();
    let columns = explore::matrix(&protocols, 3, 0, 1);
    let page = matrix_page(&tell, &columns, 3, 0, 1, Lang::En, "delivery-sim matrix");
    let html = page.html();
    assert!(html.len() < 5_000_000, "{} bytes", html.len());
    let m = page.matrix.as_ref().expect("a matrix");
    assert_eq!(m.protocols.len(), protocols.len());
    for (row, at) in m.rows.iter().zip(explore::matrix_rows(&columns)) {
        assert_eq!(row.at, at.to_string());
        for (cell, column) in row.cells.iter().zip(&columns) {
            let own = column.cells.iter().find(|c| c.at == at);
            assert_eq!(
                cell.is_some(),
                own.is_some(),
                "{} {at}",
                column.protocol.name
            );
            let (Some(cell), Some(own)) = (cell, own) else {
                continue;
            };
            assert_eq!(cell.outcome, own.outcome());
            // The run a cell opens crashes there and shows what the cell says.
            let run = &page.runs[cell.run.expect("a 3-event matrix page tells every cell")];
            assert_eq!(run.protocol, column.protocol.name);
            assert!(
                run.crashes[0].starts_with(&format!("{at} ")),
                "{:?}",
                run.crashes
            );
            if own.outcome() == "once" {
                assert_eq!(run.guarantee, "exactly-once", "{} {at}", run.protocol);
            } else {
                assert_ne!(run.guarantee, "exactly-once", "{} {at}", run.protocol);
            }
        }
    }
    let ack_first = m.protocols.iter().position(|p| p.name == "ack-first");
    let after_ack = Boundary::after(Step::Ack).to_string();
    let row = m
        .rows
        .iter()
        .find(|r| r.at == after_ack)
        .expect("after:ack");
    let cell = row.cells[ack_first.expect("ack-first")].as_ref();
    assert_eq!(cell.map(|c| c.outcome), Some("lost"));
}

#[test]
fn an_exploration_page_lists_every_run_and_tells_the_failing_ones() {
    let mut s = Scenario::new(Protocol::built_in("ack-first").expect("a built-in"));
    s.workload.events = 2;
    let x = explore::explore(&s, explore::ExploreOptions::default());
    let origin = crate::Origin::BuiltIn {
        protocol: "ack-first".into(),
        events: 2,
    };
    let page = explore_page(
        Some(&tell),
        &s,
        &x,
        &origin,
        Lang::En,
        "delivery-sim explore",
        None,
    );
    let listing = page.listing.as_ref().expect("a listing");
    assert_eq!(listing.runs.len(), x.runs.len());
    assert_eq!(listing.total, x.runs.len());
    for (listed, run) in listing.runs.iter().zip(&x.runs) {
        let view = listed
            .view
            .map(|v| &page.runs[v])
            .expect("a small exploration is told whole");
        assert_eq!(view.trace_hash, run.result.trace.hash_hex());
        assert_eq!(view.guarantee, run.result.verdict.guarantee.name());
        assert_eq!(listed.lost, run.result.verdict.lost);
    }
}

#[test]
fn a_page_with_more_runs_than_it_tells_tells_the_failing_ones() {
    let listed: Vec<usize> = (0..10).collect();
    let failing = |i: usize| i == 7 || i == 9;
    assert_eq!(page_explore::told(&listed, failing, 3), vec![0, 7, 9]);
    assert_eq!(page_explore::told(&listed, failing, 1), vec![7]);
    assert_eq!(page_explore::told(&listed, |_| false, 2), vec![0, 1]);
    assert_eq!(page_explore::told(&listed, failing, 99), listed);
}

#[test]
fn a_full_page_lists_runs_without_telling_them() {
    let (s, r) = crashed("no-dedup", "after:commit e0 d1");
    let view = run_view(&told(&s, &r), &s, &r, "delivery-sim run v");
    let size = serde_json::to_vec(&view).expect("serialises").len();
    let mut page = Page::new(
        "explore",
        Lang::En,
        Bi::of(|_| String::new()),
        String::new(),
    );
    let mut told = 0;
    while page.tell(|| view.clone()).is_some() {
        told += 1;
        assert!(told <= PAGE_DATA_BYTES / size + 1, "the page never fills");
    }
    assert_eq!(told, PAGE_DATA_BYTES.div_ceil(size));
    assert!(page
        .tell(|| unreachable!("a full page makes no more runs"))
        .is_none());
    // The first run is told whatever its size.
    let mut empty = Page::new("run", Lang::En, Bi::of(|_| String::new()), String::new());
    empty.data_bytes = PAGE_DATA_BYTES;
    assert_eq!(empty.tell(|| view.clone()), Some(0));
}

#[test]
fn both_languages_told_from_one_run_are_each_language_told_alone() {
    for (protocol, point) in [
        ("no-dedup", "after:commit e1 d1"),
        ("inbox", "after:insert_inbox e0 d1"),
        ("ack-first", "after:ack e1 d1"),
    ] {
        let (s, r) = crashed(protocol, point);
        let [en, es] = crate::explain::stories(&told(&s, &r), &s, &r);
        assert_eq!(en, crate::explain::story(&told(&s, &r), &s, &r, Lang::En));
        assert_eq!(es, crate::explain::story(&told(&s, &r), &s, &r, Lang::Es));
    }
}

#[test]
fn runs_told_in_parallel_are_those_told_one_after_another() {
    let (s, r) = crashed("no-dedup", "after:commit e0 d1");
    let view = run_view(&told(&s, &r), &s, &r, "delivery-sim run v");
    let size = serde_json::to_vec(&view).expect("serialises").len();
    let items: Vec<usize> = (0..PAGE_DATA_BYTES / size + 7).collect();
    let new = || {
        Page::new(
            "explore",
            Lang::En,
            Bi::of(|_| String::new()),
            String::new(),
        )
    };
    let mut one_by_one = new();
    let told: Vec<Option<usize>> = items
        .iter()
        .map(|_| one_by_one.tell(|| view.clone()))
        .collect();
    let mut parallel = new();
    assert_eq!(parallel.tell_each(&items, |_| view.clone()), told);
    assert_eq!(parallel.runs.len(), one_by_one.runs.len());
    assert!(told.last() == Some(&None), "the page filled");
}

/// The lead line of a page's data (`word` then `text`) in `lang`.
fn lead(verdict: &Value, lang: &str) -> String {
    format!(
        "{}  {}",
        verdict["word"][lang].as_str().expect("a word"),
        verdict["text"][lang].as_str().expect("a text")
    )
}

#[test]
fn every_page_leads_with_the_verdict_line_its_command_prints_first() {
    let languages = [("en", Lang::En), ("es", Lang::Es)];
    // A run page: the judgement it is given (the command's), on the page and on its run.
    let (s, r) = crashed("no-dedup", "after:commit e1 d1");
    let judgement = r.judgement(Some(2));
    let data = data_of(
        &run_page(
            &told(&s, &r),
            &s,
            &r,
            "delivery-sim run",
            Lang::En,
            &judgement,
        )
        .html(),
    );
    for (code, lang) in languages {
        assert_eq!(lead(&data["verdict"], code), lang.judgement(&judgement));
        assert_eq!(
            lead(&data["runs"][0]["judgement"], code),
            lang.judgement(&judgement)
        );
    }
    assert_eq!(data["verdict"]["status"], "fail");
    assert_eq!(data["verdict"]["word"]["es"], "FALLA");
    // An exploration page: the exploration's, with its failed expectations; each listed
    // run's status is its own verdict's, and the summary names no bare guarantee.
    let mut s = Scenario::new(Protocol::built_in("inbox").expect("a built-in"));
    s.workload.events = 2;
    let x = explore::explore(&s, explore::ExploreOptions::default());
    let origin = crate::Origin::BuiltIn {
        protocol: "inbox".into(),
        events: 2,
    };
    let page = explore_page(
        Some(&tell),
        &s,
        &x,
        &origin,
        Lang::Es,
        "delivery-sim explore",
        Some(1),
    );
    let data = data_of(&page.html());
    let judgement = x.summary.judgement(Some(1));
    for (code, lang) in languages {
        assert_eq!(lead(&data["verdict"], code), lang.judgement(&judgement));
        let summary = data["listing"]["summary"][code].to_string();
        assert!(!summary.contains("exactly-once"), "{summary}");
    }
    assert_eq!(data["verdict"]["status"], "fail", "an expectation failed");
    for (listed, run) in data["listing"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&x.runs)
    {
        let status = super::status_name(run.result.judgement(None).status);
        assert_eq!(listed["status"], status);
        let view = &data["runs"][listed["view"].as_u64().expect("told") as usize];
        assert_eq!(view["judgement"]["status"], status);
    }
    // The matrix page: the matrix's, and each protocol's per depth.
    let columns = explore::matrix(&Protocol::all_built_in(), 2, 0, 1);
    let data =
        data_of(&matrix_page(&tell, &columns, 2, 0, 1, Lang::En, "delivery-sim matrix").html());
    let judgement = explore::matrix_judgement(&columns);
    for (code, lang) in languages {
        assert_eq!(lead(&data["verdict"], code), lang.judgement(&judgement));
    }
    let protocols = data["matrix"]["protocols"].as_array().unwrap();
    for (p, column) in protocols.iter().zip(&columns) {
        let status = super::status_name(column.summaries[0].judgement(None).status);
        assert_eq!(p["statuses"][0], status, "{}", column.protocol.name);
    }
    assert!(protocols.iter().any(|p| p["statuses"][0] == "fail"));
    assert!(protocols.iter().any(|p| p["statuses"][0] == "pass"));
}
