//! `--html FILE` on `run`, `explore` and `matrix` (and `matrix --out-dir`): the page is
//! written beside the usual output, holds the very runs the command reports, opens in
//! `--lang`'s language, and is refused where it has no meaning.

use super::support::*;
use delivery_sim::report::html::unpacked;
use serde_json::Value;

/// The verdict line a page leads with, in `lang` (`en` or `es`), as the command prints it
/// after its label.
fn lead(data: &Value, lang: &str) -> String {
    let v = &data["verdict"];
    format!(
        "{}  {}",
        v["word"][lang].as_str().unwrap(),
        v["text"][lang].as_str().unwrap()
    )
}

/// `o`'s first line is the verdict line `lead`, after its label.
fn leads_with(o: &std::process::Output, lead: &str) {
    let out = stdout(o);
    let first = out.lines().next().unwrap_or("");
    assert!(
        first.ends_with(lead) && first.len() - lead.len() <= 11,
        "{first}\n{lead}"
    );
}

/// The data of the page written at `path`.
fn page(path: &std::path::Path) -> Value {
    let html = std::fs::read_to_string(path).expect("the page was written");
    assert!(html.starts_with("<!DOCTYPE html>"));
    serde_json::from_str(&unpacked(&html).expect("a page's data")).expect("JSON")
}

#[test]
fn run_html_writes_the_run_it_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.html");
    let file = "scenarios/no-dedup-crash-between-commit-and-ack.json";
    let o = bin(&["run", file, "--html", out.to_str().unwrap(), "--lang", "es"]);
    let plain = bin(&["run", file, "--json"]);
    assert_eq!(o.status.code(), plain.status.code());
    assert!(
        stdout(&o).contains("veredicto"),
        "the report is printed too"
    );
    assert!(stderr(&o).starts_with("escrito "), "{}", stderr(&o));
    let data = page(&out);
    assert_eq!(data["kind"], "run");
    assert_eq!(data["lang"], "es");
    let run = &data["runs"][0];
    let report = json(&plain);
    assert_eq!(run["trace_hash"], report["trace_hash"]);
    assert_eq!(run["guarantee"], report["guarantee"]);
    assert_eq!(run["replay"], report["replay"]);
    // The page leads with the line the command prints first (here over the checks the
    // file pins), in both languages.
    leads_with(&o, &lead(&data, "es"));
    leads_with(&bin(&["run", file]), &lead(&data, "en"));
    assert_eq!(data["verdict"]["status"], report["verdict"]["status"]);
    assert_eq!(run["judgement"], data["verdict"]);
}

#[test]
fn explore_html_lists_the_runs_explore_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("explore.html");
    let args = ["explore", "--protocol", "effect-then-mark", "--events", "2"];
    let o = bin(&[&args[..], &["--html", out.to_str().unwrap()]].concat());
    let reported = bin(&[&args[..], &["--json"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let data = page(&out);
    leads_with(&o, &lead(&data, "en"));
    assert_eq!(data["verdict"]["status"], "fail");
    let listing = &data["listing"]["runs"];
    let runs = json(&reported)["runs"].as_array().expect("runs").clone();
    assert_eq!(listing.as_array().map(Vec::len), Some(runs.len()));
    for (listed, run) in listing.as_array().unwrap().iter().zip(&runs) {
        assert_eq!(listed["replay"], run["replay"]);
        let view = &data["runs"][listed["view"].as_u64().expect("told") as usize];
        assert_eq!(view["trace_hash"], run["trace_hash"]);
    }
    assert!(listing
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["tone"] == "duplicated"));
}

#[test]
fn matrix_html_and_out_dir_write_the_clickable_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.html");
    let args = ["matrix", "--events", "2", "--depth", "1"];
    let o = bin(&[&args[..], &["--html", out.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let data = page(&out);
    assert_eq!(data["kind"], "matrix");
    leads_with(&o, &lead(&data, "en"));
    assert_eq!(
        data["matrix"]["protocols"].as_array().map(Vec::len),
        Some(7)
    );
    let o = bin(&[&args[..], &["--out-dir", dir.path().to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("matrix.html"), "{}", stderr(&o));
    // The committed page opens in English whatever the language asked.
    let same = page(&dir.path().join("matrix.html"));
    assert_eq!(same["lang"], "en");
    assert_eq!(same["runs"], data["runs"]);
}

#[test]
fn html_is_refused_where_it_has_no_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.html");
    let out = out.to_str().unwrap();
    for (args, says) in [
        (vec!["run", "scenarios", "--html", out], "--html"),
        (
            vec![
                "explore",
                "scenarios/inbox-broker-duplicate-two-consumers.json",
                "--interleavings",
                "--html",
                out,
            ],
            "--html",
        ),
        (
            vec![
                "run",
                "--protocol",
                "inbox",
                "--html",
                "/nonexistent-dir/x.html",
            ],
            "--html: cannot write /nonexistent-dir/x.html",
        ),
    ] {
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    assert!(!dir.path().join("x.html").exists());
}

#[test]
fn the_committed_matrix_page_is_the_size_the_readme_states() {
    let size = std::fs::metadata(root().join("results/matrix.html"))
        .expect("results/matrix.html is committed")
        .len();
    assert!(
        size < 5_000_000,
        "the 3-event matrix page is under 5 MB: {size}"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let stated = format!(
        "The 3-event matrix page is about {:.2} MB.",
        size as f64 / 1e6
    );
    assert!(
        readme.replace('\n', " ").contains(&stated),
        "README should say: {stated}"
    );
}

/// Every scenario file's run makes a page: every entry told (up to the cap) in both
/// languages, and every row of both diagrams tied to an entry of the run.
#[test]
fn every_scenario_file_makes_a_run_page() {
    use delivery_sim::report::explain::{story, MAX_TOLD_ENTRIES};
    use delivery_sim::report::html::run_view;
    use delivery_sim::report::lang::Lang;
    use delivery_sim::scenario::Scenario;
    use serde_json::json;
    let files = scenario_files();
    assert!(files.len() > 80, "{} files", files.len());
    for file in files {
        let s = Scenario::from_file(&root().join(&file)).expect("valid scenario");
        let (r, told) = delivery_sim::view::run_and_watch(&delivery_sim::world::InProcess, &s);
        let view = serde_json::to_value(run_view(&told, &s, &r, "replay")).unwrap();
        let steps = view["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), r.trace.len().min(MAX_TOLD_ENTRIES), "{file}");
        // The page tells both languages from one run: each as `explain` tells it alone.
        for (i, lang) in ["en", "es"].into_iter().enumerate() {
            let l = [Lang::En, Lang::Es][i];
            let alone = story(&told, &s, &r, l);
            let told: Vec<&Value> = steps.iter().map(|step| &step["text"][lang]).collect();
            let sentences: Vec<&str> = alone.steps.iter().map(|t| t.sentence.as_str()).collect();
            assert_eq!(told, sentences, "{file} {lang}");
            assert_eq!(
                view["initial"][lang], alone.initial_database,
                "{file} {lang}"
            );
            assert_eq!(
                view["anomalies"][lang],
                json!(alone.anomalies),
                "{file} {lang}"
            );
        }
        assert_eq!(view["trace_hash"], r.trace.hash_hex(), "{file}");
        for lang in ["en", "es"] {
            let svg = view["svg"][lang].as_str().expect("an svg");
            for rest in svg.split("data-last=\"").skip(1) {
                let last: usize = rest[..rest.find('"').unwrap()].parse().unwrap();
                assert!(last < r.trace.len(), "{file} {lang}: row of entry {last}");
            }
        }
    }
}
