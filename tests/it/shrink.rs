//! Shrunk findings, replay tokens, regression scenarios, JUnit reports and shell
//! completions, through the binary.

use super::support::*;
use delivery_sim::scenario::token;
use delivery_sim::{Protocol, Scenario};
use serde_json::Value;
use std::path::Path;

/// A sweep with crashes drawn from the seed and no other fault.
const CRASHES_ONLY: [&str; 10] = [
    "--max-failures",
    "0",
    "--max-republishes",
    "0",
    "--max-broker-faults",
    "0",
    "--max-jitter-ticks",
    "0",
    "--max-stall-ticks",
    "0",
];

fn findings(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn token_of(line: &str) -> &str {
    let start = line.find("ds1:").expect("a token");
    line[start..].split_whitespace().next().unwrap()
}

/// The acceptance of issue 6: a sweep that finds a `no-dedup` duplicate among 20 events
/// and random crashes shrinks it to one event and one crash, and its replay token
/// reproduces the same trace hash.
#[test]
fn a_no_dedup_duplicate_among_20_events_shrinks_to_one_event_and_one_crash_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("findings.jsonl");
    let mut args = vec![
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "20",
        "--seeds",
        "0..64",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(CRASHES_ONLY);
    let o = bin(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let printed = stdout(&o);
    assert!(printed.contains("shrinking the first 100 findings, ≤ 300 runs each"));
    let all = findings(&out);
    // A duplicate the sweep found with several crashes among its 20 events.
    let f = all
        .iter()
        .find(|f| f["duplicated"].as_u64() > Some(0) && f["crashes"].as_array().unwrap().len() > 1)
        .expect("a duplicate with several crashes");
    let shrunk = &f["shrunk"];
    assert_eq!(shrunk["failure"], serde_json::json!(["duplicated"]));
    assert_eq!(shrunk["original"]["events"], 20);
    assert_eq!(shrunk["size"]["events"], 1);
    assert_eq!(shrunk["size"]["crashes"], 1);
    assert_eq!(shrunk["size"]["other_faults"], 0);
    assert_eq!(shrunk["exhausted"], false);
    let runs = shrunk["runs"].as_u64().unwrap();
    assert!((2..=300).contains(&runs), "{runs}");
    assert_eq!(shrunk["scenario_file"]["workload"]["events"], 1);
    assert_eq!(
        shrunk["scenario_file"]["faults"]["crash"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // The printed line says the same, and its token is the JSON's.
    let seed = f["seed"].as_u64().unwrap();
    let block = printed
        .split(&format!("seed {seed}: "))
        .nth(1)
        .expect("the finding is printed");
    assert!(
        block.contains("shrunk to 1 event, 1 consumer, 1 crash, 0 other faults"),
        "{block}"
    );
    let token = shrunk["token"].as_str().unwrap();
    assert_eq!(token_of(block), token);
    // The token is the shrunk run: the same trace hash, as JSON and as text.
    let replay = bin(&["replay", token, "--json"]);
    assert_eq!(replay.status.code(), Some(1), "the run still fails");
    let j = json(&replay);
    assert_eq!(j["trace_hash"], shrunk["trace_hash"]);
    assert_eq!(j["duplicated"], 1);
    assert_eq!(j["events"], 1);
    assert_eq!(j["crashes"].as_array().unwrap().len(), 1);
    assert_eq!(j["replay"], format!("delivery-sim replay {token}"));
    let text = stdout(&bin(&["replay", token]));
    assert!(text.contains(&format!(
        "trace      hash {}",
        j["trace_hash"].as_str().unwrap()
    )));
    // The finding's own token is its exact, unshrunk run.
    let exact = json(&bin(&["replay", f["token"].as_str().unwrap(), "--json"]));
    assert_eq!(exact["trace_hash"], f["trace_hash"]);
    assert_eq!(exact["events"], 20);
}

#[test]
fn without_shrinking_each_finding_prints_the_token_of_its_exact_run() {
    let mut args = vec![
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "6",
        "--seeds",
        "0..40",
        "--no-shrink",
    ];
    args.extend(CRASHES_ONLY);
    let o = bin(&args);
    let printed = stdout(&o);
    assert!(printed.contains("not shrinking findings"), "{printed}");
    assert!(!printed.contains("shrunk"), "{printed}");
    let line = printed
        .lines()
        .find(|l| l.contains("delivery-sim replay ds1:"))
        .expect("a finding with a token");
    let sweep_cmd: Vec<String> = printed
        .lines()
        .take_while(|l| *l != line)
        .last()
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    // The token and the sweep's own replay command are the same run.
    let by_token = json(&bin(&["replay", token_of(line), "--json"]));
    let args: Vec<&str> = sweep_cmd[1..].iter().map(String::as_str).collect();
    let by_sweep = stdout(&bin(&args));
    assert!(
        by_sweep.contains(by_token["trace_hash"].as_str().unwrap()),
        "{by_sweep}"
    );
    // The one-seed sweep shrinks too.
    assert!(by_sweep.contains("    shrunk to 1 event"), "{by_sweep}");
}

#[test]
fn a_replayed_token_becomes_a_regression_scenario_that_run_passes() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Scenario::new(Protocol::built_in("ack-first").unwrap());
    s.seed = 3;
    s.workload.events = 2;
    s.faults.crash = vec![delivery_sim::fault::CrashSpec::exactly(
        delivery_sim::model::BoundaryPoint::parse("after:ack e1 d1").unwrap(),
    )];
    let token = token::encode(&s, &[]);
    let file = dir.path().join("found.json");
    let o = bin(&["replay", &token, "--scenario-out", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "the run loses an event");
    assert!(
        stderr(&o).contains("its expect pins this run: lost"),
        "{}",
        stderr(&o)
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let description = written["description"].as_str().unwrap();
    assert!(description.contains("Regression scenario"), "{description}");
    assert!(description.contains("e1 lost"), "{description}");
    assert!(description.contains(&token), "{description}");
    assert_eq!(written["expect"]["lost"], 1);
    assert_eq!(written["expect"]["guarantee"], "at-most-once");
    let run = bin(&["run", file.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert!(stdout(&run).contains("expect     held"));
    // The scenario file is the token's run.
    let by_file = json(&bin(&["run", file.to_str().unwrap(), "--json"]));
    let by_token = json(&bin(&["replay", &token, "--json"]));
    assert_eq!(by_file["trace_hash"], by_token["trace_hash"]);
    // Written whole: nothing else is left in the folder.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn every_scenario_file_replays_from_its_token_with_the_same_trace_hash() {
    for file in scenario_files() {
        let s = Scenario::from_file(&root().join(&file)).unwrap();
        let by_token = json(&bin(&["replay", &token::encode(&s, &[]), "--json"]));
        assert_eq!(by_token["trace_hash"], fresh_process_hash(&file), "{file}");
    }
}

#[test]
fn a_token_with_scheduling_choices_replays_them_and_refuses_impossible_ones() {
    let file = "scenarios/inbox-lease-expiry-two-consumers.json";
    let s = Scenario::from_file(&root().join(file)).unwrap();
    let by_run = json(&bin(&["run", file, "--schedule", "1", "--json"]));
    let by_token = json(&bin(&["replay", &token::encode(&s, &[1]), "--json"]));
    assert_eq!(by_token["trace_hash"], by_run["trace_hash"]);
    let o = bin(&["replay", &token::encode(&s, &[9])]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("choice 9 at a decision with 2 alternatives"),
        "{}",
        stderr(&o)
    );
    let o = bin(&["run", file, "--schedule", "5,5"]);
    assert_eq!(o.status.code(), Some(2), "no panic: {}", stderr(&o));
}

#[test]
fn a_bad_token_is_an_input_error() {
    let good = token::encode(&Scenario::new(Protocol::built_in("inbox").unwrap()), &[]);
    let mut changed = good.clone();
    let i = good.len() / 2;
    let c = if &good[i..=i] == "A" { "B" } else { "A" };
    changed.replace_range(i..=i, c);
    for (token, says) in [
        (
            "scenarios/inbox-exact-duplicate.json",
            "is not a replay token",
        ),
        ("ds9:abcdef", "version `ds9:` is not supported"),
        (&good[..good.len() - 3], "damaged"),
        (&changed, "its checksum does not match"),
        ("ds1:abc$def", "`$` at character 8 is not part of a token"),
    ] {
        let o = bin(&["replay", token]);
        assert_eq!(o.status.code(), Some(2), "{token}");
        let e = stderr(&o);
        assert!(e.starts_with("error: ") && e.contains(says), "{token}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
}

fn junit(path: &Path) -> (String, Vec<(String, String, Option<String>)>) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let cases = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| {
            let bad = c
                .children()
                .find(|n| n.has_tag_name("failure") || n.has_tag_name("error"))
                .map(|n| format!("{}: {}", n.tag_name().name(), n.text().unwrap_or("")));
            (
                c.attribute("classname").unwrap().to_string(),
                c.attribute("name").unwrap().to_string(),
                bad,
            )
        })
        .collect();
    (text.clone(), cases)
}

#[test]
fn run_writes_junit_for_a_folder_with_one_case_per_check() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("scenarios");
    std::fs::create_dir(&folder).unwrap();
    for name in [
        "ack-first-crash-after-ack.json",
        "autocommit-read-modify-write-lost-update.json",
        "inbox-crash-before-commit.json",
    ] {
        std::fs::copy(root().join("scenarios").join(name), folder.join(name)).unwrap();
    }
    std::fs::write(folder.join("plain.json"), r#"{"protocol": "inbox"}"#).unwrap();
    let xml = dir.path().join("report.xml");
    let o = bin(&[
        "run",
        folder.to_str().unwrap(),
        "--junit",
        xml.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let report = json(&o);
    let checks: usize = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["checks"].as_array().unwrap().len().max(1))
        .sum();
    let (text, cases) = junit(&xml);
    assert_eq!(cases.len(), checks);
    assert!(cases.iter().all(|c| c.2.is_none()));
    assert!(text.contains(&format!("tests=\"{checks}\" failures=\"0\" errors=\"0\"")));
    let names: Vec<String> = cases.iter().map(|c| format!("{} {}", c.0, c.1)).collect();
    for case in [
        "ack-first-crash-after-ack.json explore d2",
        "autocommit-read-modify-write-lost-update.json interleavings",
        "inbox-crash-before-commit.json run",
        "plain.json run",
    ] {
        assert!(names.iter().any(|n| n == case), "{case}: {names:?}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temporary left"
    );
}

#[test]
fn junit_reports_failed_expectations_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("s & <more>");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(
        scenarios.join("wrong.json"),
        r#"{"name": "wrong \"one\"", "protocol": "no-dedup", "faults": {"crash": [{"at": "after:commit", "event": 0}]},
            "expect": {"duplicated": 0, "guarantee": "exactly-once"}}"#,
    )
    .unwrap();
    std::fs::write(scenarios.join("bad.json"), r#"{"protocol": "nope"}"#).unwrap();
    std::fs::copy(
        root().join("scenarios/inbox-exact-duplicate.json"),
        scenarios.join("good.json"),
    )
    .unwrap();
    let xml = dir.path().join("junit.xml");
    let o = bin(&[
        "run",
        scenarios.to_str().unwrap(),
        "--junit",
        xml.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "a bad file");
    let (text, cases) = junit(&xml);
    assert!(text.contains("failures=\"1\" errors=\"1\""), "{text}");
    let failed = cases.iter().find(|c| c.0 == "wrong.json").unwrap();
    let failure = failed.2.as_ref().unwrap();
    assert!(
        failure.starts_with("failure: expected guarantee exactly-once"),
        "{failure}"
    );
    assert!(
        failure.contains("expected 0 duplicated event(s), observed 1"),
        "{failure}"
    );
    assert!(failure.contains("repeat: delivery-sim run '"), "{failure}");
    let bad = cases.iter().find(|c| c.0 == "bad.json").unwrap();
    assert_eq!(bad.1, "load");
    assert!(bad.2.as_ref().unwrap().contains("unknown protocol `nope`"));
    assert!(cases.iter().any(|c| c.0 == "good.json" && c.2.is_none()));
    // One file, and one bad file: its case says why.
    let one = dir.path().join("one.xml");
    let o = bin(&[
        "run",
        scenarios.join("wrong.json").to_str().unwrap(),
        "--junit",
        one.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let (_, cases) = junit(&one);
    assert_eq!(cases.len(), 1);
    assert!(cases[0]
        .2
        .as_ref()
        .unwrap()
        .contains("expected 0 duplicated"));
    let o = bin(&[
        "run",
        scenarios.join("bad.json").to_str().unwrap(),
        "--junit",
        one.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let (_, cases) = junit(&one);
    assert!(cases[0]
        .2
        .as_ref()
        .unwrap()
        .starts_with("error: invalid scenario"));
    // A place that cannot be written is an input error, not a panic.
    let o = bin(&[
        "run",
        "scenarios/inbox-exact-duplicate.json",
        "--junit",
        dir.path().join("no/such/dir/x.xml").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--junit: cannot write"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn completions_for_each_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish"] {
        let o = bin(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let script = stdout(&o);
        assert!(script.len() > 1000, "{shell}: {script}");
        for sub in ["run", "explore", "sweep", "matrix", "replay", "completions"] {
            assert!(script.contains(sub), "{shell} lacks {sub}");
        }
        assert!(
            script.contains("scenario-out") && script.contains("junit"),
            "{shell}"
        );
    }
    let o = bin(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_readme_shows_a_real_shrunk_sweep_and_its_replay() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut args = vec![
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "20",
        "--seeds",
        "9..16",
    ];
    args.extend(CRASHES_ONLY);
    let sweep = stdout(&bin(&args));
    assert!(
        readme.contains(&format!(
            "$ cargo run --release -- {}\n{sweep}```",
            args.join(" ")
        )),
        "README's sweep output is stale: paste the output of `cargo run --release -- {}`",
        args.join(" ")
    );
    let token = token_of(sweep.lines().rfind(|l| l.contains("ds1:")).unwrap());
    let replay = stdout(&bin(&["replay", token]));
    assert!(
        readme.contains(&format!(
            "$ cargo run --release -- replay {token}\n{replay}```"
        )),
        "README's replay output is stale"
    );
}
