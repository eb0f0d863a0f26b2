//! The binary on every scenario file, and the acceptance checks of the simulator core.

use super::support::*;
use serde_json::Value;

/// Every file's plain run, in process (the binary runs them all in
/// [`every_scenario_file_holds_everything_it_pins`], where `run` makes every check a file
/// pins): the fields the file pins are the run's.
#[test]
fn every_scenario_runs_and_holds_its_expectations() {
    for file in scenario_files() {
        let s = delivery_sim::Scenario::from_file(&root().join(&file)).unwrap();
        let v = delivery_sim::run(&s).verdict;
        let spec: Value =
            serde_json::from_str(&std::fs::read_to_string(root().join(&file)).unwrap()).unwrap();
        let expect = &spec["expect"];
        let out = serde_json::json!({"guarantee": v.guarantee, "lost": v.lost,
            "duplicated": v.duplicated, "all_acked": v.all_acked, "conserved": v.conserved});
        assert_eq!(out["guarantee"], expect["guarantee"], "{file}");
        for field in ["lost", "duplicated", "all_acked", "conserved"] {
            if !expect[field].is_null() {
                assert_eq!(out[field], expect[field], "{file}: {field}");
            }
        }
        let failed = delivery_sim::check::failed_expectations(s.expect.as_ref().unwrap(), &v);
        assert!(failed.is_empty(), "{file}: {failed:?}");
    }
}

/// `run scenarios/ --json`, once: every file holds every check it pins (the plain run, each
/// pinned exploration depth, the interleavings, the smallest safe TTL), and the folder run
/// makes exactly those checks. The explorations assert in the simulator itself that each
/// schedule's crashes all fired, in order; the JSON of single explorations is checked
/// below on a file at depths 1 and 2. One process for every file: the checks run in
/// parallel and nothing is run twice (`.ci/run` repeats it in release).
#[test]
fn every_scenario_file_holds_everything_it_pins() {
    let (code, out, err) = scenarios_folder_run();
    assert_eq!(*code, Some(0), "{out}{err}");
    let files = scenario_files();
    let entries = out["scenarios"].as_array().unwrap();
    assert_eq!(entries.len(), files.len());
    let n = files.len();
    assert_eq!(
        out["totals"],
        serde_json::json!({"scenarios": n, "held": n, "failed": 0, "input_errors": 0})
    );
    for (entry, file) in entries.iter().zip(&files) {
        assert_eq!(entry["file"], file.as_str());
        assert_eq!(entry["result"], "ok", "{file}: {entry}");
        let spec: Value =
            serde_json::from_str(&std::fs::read_to_string(root().join(file)).unwrap()).unwrap();
        let expect = &spec["expect"];
        // The file's guarantee is over every check it pins; the run's is the run check's.
        let checks = entry["checks"].as_array().unwrap();
        assert_eq!(checks[0]["guarantee"], expect["guarantee"], "{file}");
        assert_eq!(entry["guarantee"], weakest(checks), "{file}");
        for pinned in expect["explore"].as_array().unwrap() {
            let name = format!("explore d{}", pinned["depth"]);
            let check = checks.iter().find(|c| c["name"] == name.as_str()).unwrap();
            if !pinned["guarantee"].is_null() {
                assert_eq!(check["guarantee"], pinned["guarantee"], "{file}: {name}");
            }
        }
        let mut depths: Vec<u64> = expect["explore"]
            .as_array()
            .expect("every scenario pins its exploration")
            .iter()
            .map(|x| x["depth"].as_u64().unwrap())
            .collect();
        assert!(depths.contains(&1), "{file} pins depth 1");
        depths.sort_unstable();
        depths.dedup();
        let mut wanted: Vec<String> = vec!["run".into()];
        wanted.extend(depths.iter().map(|d| format!("explore d{d}")));
        if expect["interleavings"].is_null() {
            assert_eq!(
                spec["consumers"].as_u64().unwrap_or(1),
                1,
                "{file} pins its interleavings"
            );
        } else {
            wanted.push("interleavings".into());
        }
        if !expect["smallest_safe_ttl"].is_null() {
            wanted.push("smallest safe TTL".into());
        }
        let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, wanted, "{file}");
        for check in checks {
            assert_eq!(check["failures"], serde_json::json!([]), "{file}: {check}");
            if check["name"] == "interleavings" {
                assert_eq!(check["runs"], expect["interleavings"]["runs"], "{file}");
            } else if check["name"] != "run" {
                assert!(check["runs"].as_u64().unwrap() >= 1, "{file}: {check}");
            }
        }
        assert_eq!(
            checks[0]["replay"],
            format!("delivery-sim run {file} --seed {}", spec["seed"]),
            "{file}"
        );
    }
}

/// The weakest of the guarantees the `checks` (JSON) show: what holds of all of them.
fn weakest(checks: &[Value]) -> &'static str {
    let shown = |g: &str| checks.iter().any(|c| c["guarantee"] == g);
    let loses = shown("at-most-once") || shown("none");
    let duplicates = shown("at-least-once") || shown("none");
    match (loses, duplicates) {
        (false, false) => "exactly-once",
        (false, true) => "at-least-once",
        (true, false) => "at-most-once",
        (true, true) => "none",
    }
}

#[test]
fn an_explorations_json_lists_the_baseline_first_then_each_schedule_with_its_crashes() {
    let file = "scenarios/inbox-max-deliveries-one-crash-absorbed.json";
    for depth in ["1", "2"] {
        let out = json(&bin(&["explore", file, "--depth", depth, "--json"]));
        let runs = out["runs"].as_array().unwrap();
        assert_eq!(runs.len() as u64, out["summary"]["runs"].as_u64().unwrap());
        assert!(
            runs[0]["crash_points"].as_array().unwrap().is_empty(),
            "baseline first"
        );
        let mut deepest = 0;
        for r in &runs[1..] {
            let points = r["crash_points"].as_array().unwrap();
            assert!(!points.is_empty() && points.len() <= depth.parse().unwrap());
            deepest = deepest.max(points.len());
            let fired: Vec<&Value> = r["crashes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| &c["point"])
                .collect();
            assert_eq!(
                fired,
                points.iter().collect::<Vec<_>>(),
                "the crashes fired"
            );
        }
        assert_eq!(deepest.to_string(), depth);
    }
}

#[test]
fn depth_2_finds_the_dead_letter_that_depth_1_cannot() {
    let file = "scenarios/inbox-max-deliveries-one-crash-absorbed.json";
    let d1 = json(&bin(&["explore", file, "--json"]));
    assert_eq!(d1["summary"]["dead_lettered_runs"], 0);
    assert_eq!(d1["summary"]["unacked_runs"], 0);
    let d2 = json(&bin(&["explore", file, "--depth", "2", "--json"]));
    assert!(d2["summary"]["dead_lettered_runs"].as_u64().unwrap() > 0);
    let dead = d2["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["dead_lettered"].as_u64().unwrap() > 0)
        .unwrap();
    let points = dead["crash_points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "it takes two crashes");
    let event = |p: &Value| {
        p.as_str()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(event(&points[0]), event(&points[1]), "on the same event");
    assert!(dead["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["kind"] == "dead_lettered"));
}

#[test]
fn explore_output_does_not_depend_on_the_thread_count() {
    let run = |threads: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_delivery-sim"));
        cmd.args([
            "explore",
            "scenarios/inbox-every-fault-kind.json",
            "--depth",
            "2",
            "--json",
        ])
        .current_dir(root());
        match threads {
            Some(n) => cmd.env("RAYON_NUM_THREADS", n),
            None => cmd.env_remove("RAYON_NUM_THREADS"),
        };
        cmd.output().unwrap().stdout
    };
    let one = run(Some("1"));
    assert!(!one.is_empty());
    assert_eq!(one, run(Some("3")));
    assert_eq!(one, run(None));
}

#[test]
fn an_exploration_over_its_bound_is_refused_with_the_estimate() {
    let o = bin(&[
        "explore",
        "--protocol",
        "inbox",
        "--events",
        "50",
        "--depth",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("may need up to") && err.contains("over the limit of 1000000"),
        "{err}"
    );
    let o = bin(&["explore", "--protocol", "inbox", "--depth", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--depth: 5 is out of range; allowed: 1 to 4"));
}

#[test]
fn the_matrix_shows_what_each_built_in_protocol_guarantees() {
    let o = bin(&["matrix", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = json(&o);
    let guarantee = |name: &str| {
        let p = out["protocols"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} in matrix"));
        (
            p["guarantee"].as_str().unwrap().to_string(),
            p["lost_runs"].as_u64().unwrap(),
            p["duplicated_runs"].as_u64().unwrap(),
        )
    };
    for lossy in ["ack-first", "inbox-ack-first", "mark-then-effect"] {
        let (g, lost, dup) = guarantee(lossy);
        assert_eq!((g.as_str(), dup), ("at-most-once", 0), "{lossy}");
        assert!(lost > 0, "{lossy} shows losses");
    }
    for dupy in ["no-dedup", "effect-then-mark"] {
        let (g, lost, dup) = guarantee(dupy);
        assert_eq!((g.as_str(), lost), ("at-least-once", 0), "{dupy}");
        assert!(dup > 0, "{dupy} shows duplicates");
    }
    let (g, lost, dup) = guarantee("inbox");
    assert_eq!((g.as_str(), lost, dup), ("exactly-once", 0, 0));
    let inbox = out["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "inbox")
        .unwrap();
    for point in inbox["points"].as_array().unwrap() {
        assert_eq!(
            point["guarantee"], "exactly-once",
            "inbox at {}",
            point["at"]
        );
    }
}

#[test]
fn the_matrix_table_names_the_seeds_three_failure_points() {
    let o = bin(&["matrix"]);
    assert_eq!(o.status.code(), Some(0));
    let table = stdout(&o);
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("row {name} in\n{table}"))
            .split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
    };
    // Columns: ack-first no-dedup mark-then-effect effect-then-mark check-then-act inbox inbox-ack-first
    assert_eq!(
        row("before:commit"),
        ["LOST", "once", "LOST", "once", "once", "once", "LOST"]
    );
    assert_eq!(
        row("after:commit"),
        [
            "once",
            "DUPLICATED",
            "once",
            "DUPLICATED",
            "once",
            "once",
            "once"
        ]
    );
    assert_eq!(
        row("after:ack"),
        ["LOST", "once", "once", "once", "once", "once", "LOST"]
    );
}

#[test]
fn a_custom_protocol_that_acks_before_commit_is_caught_by_explore_at_the_point_that_breaks_it() {
    let o = bin(&["explore", "scenarios/custom-ack-before-commit.json"]);
    let out = stdout(&o);
    assert!(out.contains("after:ack e0 d1 → e0 lost"), "{out}");
    assert!(out.contains("before:commit e0 d1 → e0 lost"), "{out}");
    assert!(
        out.contains("delivery-sim run scenarios/custom-ack-before-commit.json --seed 7 --crash 'after:ack e0 d1'"),
        "{out}"
    );
}

#[test]
fn the_printed_replay_command_reproduces_the_failing_run() {
    let explored = json(&bin(&[
        "explore",
        "scenarios/custom-ack-before-commit.json",
        "--json",
    ]));
    let failing = explored["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["lost"].as_u64().unwrap() > 0)
        .expect("a failing run");
    let point = failing["crash_points"][0].as_str().unwrap();
    let replay = bin(&[
        "run",
        "scenarios/custom-ack-before-commit.json",
        "--seed",
        "7",
        "--crash",
        point,
        "--json",
    ]);
    let replayed = json(&replay);
    assert_eq!(replayed["trace_hash"], failing["trace_hash"]);
    assert_eq!(replayed["lost"], failing["lost"]);
}

#[test]
fn the_same_scenario_and_seed_give_identical_output() {
    for args in [
        vec![
            "run",
            "scenarios/inbox-random-crashes-20-events.json",
            "--trace",
        ],
        vec![
            "run",
            "scenarios/no-dedup-crash-between-commit-and-ack.json",
            "--json",
        ],
        vec!["explore", "scenarios/inbox-exact-duplicate.json"],
    ] {
        let a = bin(&args);
        let b = bin(&args);
        assert_eq!(a.stdout, b.stdout, "{args:?}");
        assert_eq!(a.status.code(), b.status.code());
    }
}

#[test]
fn a_different_seed_gives_a_different_run() {
    let a = json(&bin(&[
        "run",
        "scenarios/inbox-random-crashes-20-events.json",
        "--json",
    ]));
    let b = json(&bin(&[
        "run",
        "scenarios/inbox-random-crashes-20-events.json",
        "--seed",
        "8",
        "--json",
    ]));
    assert_ne!(a["trace_hash"], b["trace_hash"]);
    assert_eq!(b["guarantee"], "exactly-once");
}

#[test]
fn a_failed_expectation_exits_1_and_says_which() {
    // Run a lossy scenario but claim it is exactly-once.
    let dir = std::env::temp_dir().join(format!("delivery-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("wrong-claim.json");
    std::fs::write(
        &file,
        r#"{"protocol": "ack-first", "faults": {"crash": [{"at": "after:ack", "event": 0}]},
            "expect": {"guarantee": "exactly-once", "lost": 0}}"#,
    )
    .unwrap();
    let o = bin(&["run", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("expect     FAILED"), "{out}");
    assert!(
        out.contains("expected guarantee exactly-once, observed at-most-once"),
        "{out}"
    );
    assert!(
        out.contains("expected 0 lost event(s), observed 1"),
        "{out}"
    );
    assert!(out.contains("crash points: after:ack e0 d1"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_names_every_anomalous_event_and_its_crash_point() {
    let o = bin(&[
        "run",
        "scenarios/no-dedup-crash-between-commit-and-ack.json",
    ]);
    let out = stdout(&o);
    assert!(out.contains("event 1 ("), "{out}");
    assert!(
        out.contains("DUPLICATED: its effect is committed 2 times"),
        "{out}"
    );
    assert!(out.contains("crash points: after:commit e1 d1"), "{out}");
    assert!(out.contains("trace      hash "), "{out}");
}

#[test]
fn protocols_lists_each_built_in_with_its_steps() {
    let out = stdout(&bin(&["protocols"]));
    assert!(
        out.contains("inbox             Insert-first inbox"),
        "{out}"
    );
    assert!(out.contains("steps: receive → begin → insert_inbox → apply_effect → commit → ack"));
    for name in [
        "ack-first",
        "no-dedup",
        "mark-then-effect",
        "effect-then-mark",
        "check-then-act",
        "inbox-ack-first",
    ] {
        assert!(out.contains(name), "{name}");
    }
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("$ delivery-sim protocols\n{out}```")),
        "README's protocols output is stale: paste `delivery-sim protocols`"
    );
}

#[test]
fn help_shows_examples() {
    let out = stdout(&bin(&["--help"]));
    assert!(
        out.contains("Examples:") && out.contains("delivery-sim matrix"),
        "{out}"
    );
}

#[test]
fn the_readme_scenario_example_is_a_real_scenario_file() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let file =
        std::fs::read_to_string(root().join("scenarios/inbox-every-fault-kind.json")).unwrap();
    assert!(
        readme.contains(&format!("```json\n{file}```")),
        "README's scenario example differs from scenarios/inbox-every-fault-kind.json"
    );
}

#[test]
fn every_failing_matrix_cell_replays_to_the_same_failure() {
    let out = json(&bin(&["matrix", "--json"]));
    let mut replayed = 0;
    for p in out["protocols"].as_array().unwrap() {
        for point in p["points"].as_array().unwrap() {
            let Some(cmd) = point["replay"].as_str() else {
                assert_eq!(
                    point["guarantee"], "exactly-once",
                    "only failing cells have a replay"
                );
                continue;
            };
            let words = shell_words(cmd);
            assert_eq!(words[0], "delivery-sim");
            let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
            args.push("--json");
            let run = json(&bin(&args));
            // The cell's guarantee says what its first failing run broke, as the run does.
            let g = point["guarantee"].as_str().unwrap();
            assert_eq!(
                run["lost"].as_u64().unwrap() > 0,
                g == "at-most-once" || g == "none",
                "{cmd}"
            );
            assert_eq!(
                run["duplicated"].as_u64().unwrap() > 0,
                g == "at-least-once" || g == "none",
                "{cmd}"
            );
            replayed += 1;
        }
    }
    assert_eq!(replayed, 24, "the failing cells of the 3-event matrix");
}

#[test]
fn the_readme_shows_the_real_output_of_its_main_command() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let matrix = stdout(&bin(&["matrix"]));
    assert!(
        readme.contains(&format!("$ cargo run --release -- matrix\n{matrix}```")),
        "README's matrix output is stale: paste the output of `cargo run --release -- matrix`"
    );
    let run = stdout(&bin(&[
        "run",
        "scenarios/no-dedup-crash-between-commit-and-ack.json",
    ]));
    assert!(readme.contains(&run), "README's run output is stale");
}

#[test]
fn the_committed_results_are_what_the_code_generates() {
    let dir = std::env::temp_dir().join(format!("delivery-sim-results-{}", std::process::id()));
    let o = bin(&["matrix", "--out-dir", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for name in ["matrix.md", "matrix.json"] {
        let fresh = std::fs::read_to_string(dir.join(name)).unwrap();
        let committed = std::fs::read_to_string(root().join("results").join(name)).unwrap();
        assert!(
            fresh == committed,
            "results/{name} is stale: run `cargo run --release -- matrix --out-dir results/`"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_results_table_reads_like_the_seeds_failure_point_table() {
    let md = std::fs::read_to_string(root().join("results/matrix.md")).unwrap();
    // The seeds' three failure points for the inbox protocol: before the commit nothing is
    // confirmed and the retry applies it; between commit and ack the effect and the
    // identity are confirmed and the redelivery is recognised; after the ack it is resolved.
    for row in [
        "| `before:commit` | e0, e1, e2 | nothing | redelivered; applied the effect, acked | once |",
        "| `after:commit` | e0, e1, e2 | effect + inbox row | redelivered; recognised it as processed, no new effect, acked | once |",
        "| `after:ack` | e0, e1, e2 | effect + inbox row + ack | none needed: effect committed and acked | once |",
    ] {
        let inbox = md.split("## `inbox`").nth(1).unwrap().split("## ").next().unwrap();
        assert!(inbox.contains(row), "missing from the inbox table: {row}");
    }
}

fn with_threads(args: &[&str], threads: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_delivery-sim"))
        .args(args)
        .current_dir(root())
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap()
}

#[test]
fn sweep_finds_duplicates_in_no_dedup_writes_them_as_json_lines_and_each_replays() {
    let dir = std::env::temp_dir().join(format!("delivery-sim-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_file = dir.join("findings.jsonl");
    let args = [
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "4",
        "--seeds",
        "0..300",
        "--out",
        out_file.to_str().unwrap(),
    ];
    let o = bin(&args);
    assert_eq!(
        o.status.code(),
        Some(1),
        "findings mean an expectation failed"
    );
    let printed = stdout(&o);
    let lines = std::fs::read_to_string(&out_file).unwrap();
    let findings: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!findings.is_empty());
    assert!(findings
        .iter()
        .all(|f| f["duplicated"].as_u64().unwrap() > 0 || f["all_acked"] == false));
    assert_eq!(
        printed.matches("\nseed ").count() + usize::from(printed.starts_with("seed ")),
        findings.len(),
        "one printed line per finding: {printed}"
    );
    let seeds: Vec<u64> = findings
        .iter()
        .map(|f| f["seed"].as_u64().unwrap())
        .collect();
    assert!(seeds.windows(2).all(|w| w[0] < w[1]), "in seed order");
    // The replay command of a finding reproduces its run exactly.
    let first = &findings[0];
    let replay = shell_words(first["replay"].as_str().unwrap());
    let replay_args: Vec<&str> = replay[1..].iter().map(String::as_str).collect();
    let again = bin(&replay_args);
    assert_eq!(again.status.code(), Some(1));
    assert!(stdout(&again).contains(first["trace_hash"].as_str().unwrap()));
    // The same findings, whatever the thread count.
    let one = with_threads(&args[..8], "1");
    let three = with_threads(&args[..8], "3");
    assert_eq!(one.stdout, three.stdout);
    assert_eq!(one.stdout, bin(&args[..8]).stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sweep_finds_nothing_wrong_with_inbox() {
    let o = bin(&[
        "sweep",
        "scenarios/inbox-random-crashes-20-events.json",
        "--seeds",
        "0..300",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("swept 300 seeds: 0 failing"));
}

#[test]
fn sweep_refuses_bad_ranges_and_limits() {
    for (args, says) in [
        (vec!["--seeds", "5..5"], "not a range"),
        (vec!["--seeds", "x..9"], "not a range"),
        (vec!["--seeds", "0..20000000"], "over the limit of 10000000"),
        (
            vec!["--seeds", "0..9", "--max-crash-ppm", "2000000"],
            "allowed: 0 to 1000000",
        ),
    ] {
        let mut all = vec!["sweep", "--protocol", "inbox"];
        all.extend(args);
        let o = bin(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(stderr(&o).contains(says), "{all:?}: {}", stderr(&o));
    }
}

#[test]
fn matrix_output_does_not_depend_on_the_thread_count() {
    let one = with_threads(&["matrix", "--json"], "1");
    assert_eq!(one.status.code(), Some(0));
    assert_eq!(one.stdout, with_threads(&["matrix", "--json"], "2").stdout);
    assert_eq!(one.stdout, bin(&["matrix", "--json"]).stdout);
}

#[test]
fn the_constraint_decides_not_the_if() {
    // The seeds' concurrency case: the same interleavings break check-then-act without the
    // unique constraint, and none break it with the constraint or the inbox protocol.
    let count = |file: &str| {
        let out = json(&bin(&["explore", file, "--interleavings", "--json"]));
        (
            out["summary"]["runs"].as_u64().unwrap(),
            out["summary"]["breaking_runs"].as_u64().unwrap(),
        )
    };
    let (total, broken) = count("scenarios/check-then-act-lease-expiry-no-constraint.json");
    assert!(total > 1 && broken > 0);
    let (same_total, none) = count("scenarios/check-then-act-lease-expiry-with-constraint.json");
    assert_eq!(
        (same_total, none),
        (total, 0),
        "same interleavings, all safe"
    );
    assert_eq!(
        count("scenarios/inbox-lease-expiry-two-consumers.json").1,
        0
    );
    // And crashes alone never break check-then-act with one consumer.
    let single = json(&bin(&[
        "explore",
        "scenarios/check-then-act-crash-between-commit-and-ack.json",
        "--depth",
        "2",
        "--json",
    ]));
    assert_eq!(single["summary"]["duplicated_runs"], 0);
}

#[test]
fn a_breaking_interleaving_replays_with_its_schedule() {
    let file = "scenarios/check-then-act-broker-duplicate-no-constraint.json";
    let whole = bin(&["explore", file, "--interleavings", "--json"]);
    let out = json(&whole);
    let runs = out["runs"].as_array().unwrap();
    let safe = runs
        .iter()
        .find(|r| r["duplicated"] == 0)
        .expect("some interleaving is safe");
    let broken = runs
        .iter()
        .find(|r| r["duplicated"].as_u64().unwrap() > 0)
        .unwrap();
    for r in [safe, broken] {
        let words = shell_words(r["replay"].as_str().unwrap());
        let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        args.push("--json");
        let replayed = json(&bin(&args));
        assert_eq!(replayed["trace_hash"], r["trace_hash"], "{}", r["replay"]);
        assert_eq!(replayed["duplicated"], r["duplicated"]);
    }
    let one = with_threads(&["explore", file, "--interleavings", "--json"], "1");
    assert_eq!(one.stdout, whole.stdout);
}

#[test]
fn expect_interleavings_truncated_is_checked_both_ways() {
    let file = "scenarios/inbox-lease-expiry-two-consumers.json";
    let o = bin(&["explore", file, "--interleavings"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The same file claiming a truncated enumeration fails on exactly that field.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    assert!(text.contains("\"truncated\": false"));
    let wrong = write(
        dir.path(),
        "wrong.json",
        &text.replace("\"truncated\": false", "\"truncated\": true"),
    );
    let o = bin(&["explore", &wrong, "--interleavings"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("truncated"), "{}", stdout(&o));
}

#[test]
fn interleavings_need_two_consumers() {
    let o = bin(&[
        "explore",
        "scenarios/inbox-crash-before-commit.json",
        "--interleavings",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has one consumer"), "{}", stderr(&o));
}

#[test]
fn interleavings_with_crash_points_keep_the_inbox_safe_and_break_check_then_act() {
    let count = |file: &str| {
        let out = json(&bin(&[
            "explore",
            file,
            "--interleavings",
            "--with-crashes",
            "--json",
        ]));
        assert_eq!(out["summary"]["truncated"], false);
        (
            out["summary"]["runs"].as_u64().unwrap(),
            out["summary"]["breaking_runs"].as_u64().unwrap(),
        )
    };
    let (runs, broken) = count("scenarios/inbox-lease-expiry-two-consumers.json");
    assert!(runs > 82, "more than the interleavings alone");
    assert_eq!(broken, 0);
    let (_, broken) = count("scenarios/check-then-act-lease-expiry-no-constraint.json");
    assert!(broken > 0);
}

/// A temporary folder holding `files` (name, content).
fn folder_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    dir
}

const GOOD: &str = r#"{"protocol": "inbox", "seed": 3,
    "faults": {"crash": [{"at": "after:commit", "event": 1}]},
    "expect": {"guarantee": "exactly-once", "lost": 0, "duplicated": 0,
               "explore": [{"depth": 1, "guarantee": "exactly-once", "lost_runs": 0},
                           {"depth": 2, "guarantee": "exactly-once", "duplicated_runs": 0}]}}"#;

/// Claims that a lossy protocol is exactly-once.
const WRONG: &str = r#"{"protocol": "ack-first", "faults": {"crash": [{"at": "after:ack", "event": 0}]},
    "expect": {"guarantee": "exactly-once", "lost": 0}}"#;

#[test]
fn run_dir_json_lists_every_file_in_name_order_with_its_checks_and_its_runs_own_hash() {
    let two_consumers =
        std::fs::read_to_string(root().join("scenarios/inbox-lease-expiry-two-consumers.json"))
            .unwrap();
    let dir = folder_of(&[
        ("c.json", WRONG),
        ("a.json", &two_consumers),
        ("b.json", GOOD),
    ]);
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let o = bin(&["run", dir.path().to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = json(&o);
    let entries = out["scenarios"].as_array().unwrap();
    let listed: Vec<&str> = entries
        .iter()
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [at("a.json"), at("b.json"), at("c.json")]);
    let results: Vec<&str> = entries
        .iter()
        .map(|s| s["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["ok", "ok", "failed"]);
    assert_eq!(
        out["totals"],
        serde_json::json!({"scenarios": 3, "held": 2, "failed": 1, "input_errors": 0})
    );
    let names = |entry: &Value| -> Vec<String> {
        entry["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&entries[0]).last().unwrap(), "interleavings");
    assert_eq!(names(&entries[1]), ["run", "explore d1", "explore d2"]);
    assert_eq!(names(&entries[2]), ["run"]);
    for (entry, file) in entries.iter().zip(&listed) {
        let alone = json(&bin(&["run", file, "--json"]));
        assert_eq!(entry["trace_hash"], alone["trace_hash"], "{file}");
        assert_eq!(entry["guarantee"], alone["guarantee"], "{file}");
        assert_eq!(entry["protocol"], alone["protocol"], "{file}");
    }
    // Each check's replay command is the command that makes it alone, with the same result.
    for check in entries[0]["checks"].as_array().unwrap() {
        let replay = shell_words(check["replay"].as_str().unwrap());
        let o = bin(&replay[1..].iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(o.status.code(), Some(0), "{replay:?}: {}", stdout(&o));
    }
}

#[test]
fn run_dir_output_does_not_depend_on_the_thread_count() {
    let dir = folder_of(&[("a.json", GOOD), ("b.json", WRONG), ("c.json", GOOD)]);
    let path = dir.path().to_str().unwrap();
    for args in [vec!["run", path], vec!["run", path, "--json"]] {
        let one = with_threads(&args, "1");
        assert_eq!(one.status.code(), Some(1));
        assert_eq!(one.stdout, with_threads(&args, "3").stdout, "{args:?}");
    }
}

#[test]
fn run_dir_with_a_wrong_expectation_exits_1_names_it_and_prints_its_replay() {
    let dir = folder_of(&[("good.json", GOOD), ("wrong-claim.json", WRONG)]);
    let path = dir.path().to_str().unwrap();
    let o = bin(&["run", path]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let row = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}:\n{out}"))
            .to_string()
    };
    assert!(row("good.json").ends_with("  ok"), "{out}");
    assert!(
        row("wrong-claim.json")
            .ends_with("FAILED run: expected guarantee exactly-once, observed at-most-once"),
        "{out}"
    );
    let wrong = dir.path().join("wrong-claim.json");
    let wrong = wrong.to_str().unwrap();
    assert!(out.contains(&format!("\n{wrong} FAILED\n  run\n")), "{out}");
    assert!(
        out.contains("    - expected 0 lost event(s), observed 1\n"),
        "{out}"
    );
    let replay = format!("delivery-sim run {wrong} --seed 0");
    assert!(out.contains(&format!("    replay  {replay}\n")), "{out}");
    assert!(out.ends_with("\n2 scenarios: 1 held, 1 failed, 0 input errors\n"));
    // The replay command is the file's own `run`, which fails the same way.
    let again = bin(&shell_words(&replay)[1..]
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert_eq!(again.status.code(), Some(1));

    let out = json(&bin(&["run", path, "--json"]));
    let wrong_entry = &out["scenarios"][1];
    assert_eq!(wrong_entry["result"], "failed");
    assert_eq!(wrong_entry["checks"][0]["replay"], replay);
    let failures = wrong_entry["checks"][0]["failures"].as_array().unwrap();
    let lost = serde_json::json!({
        "expectation": "events",
        "counted": "lost",
        "want": 0,
        "got": 1,
        "message": "expected 0 lost event(s), observed 1"
    });
    assert!(failures.contains(&lost), "{failures:?}");
    assert_eq!(out["totals"]["failed"], 1);
}

#[test]
fn run_dir_with_a_wrong_pinned_exploration_fails_that_check() {
    let wrong_depth_2 = GOOD.replace(r#""duplicated_runs": 0"#, r#""runs": 1"#);
    let dir = folder_of(&[("pinned.json", &wrong_depth_2)]);
    let path = dir.path().to_str().unwrap();
    let o = bin(&["run", path]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAILED explore d2: expected runs = 1, observed "),
        "{out}"
    );
    let file = dir.path().join("pinned.json");
    let replay = format!(
        "delivery-sim explore {} --seed 3 --depth 2",
        file.to_str().unwrap()
    );
    assert!(out.contains(&replay), "{out}");
    let again = bin(&shell_words(&replay)[1..]
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert_eq!(
        again.status.code(),
        Some(1),
        "the replay fails the same way"
    );
}

#[test]
fn run_dir_with_a_bad_file_exits_2_and_still_reports_the_good_ones() {
    let dir = folder_of(&[
        ("a-good.json", GOOD),
        ("b-bad.json", "{\"protocol\": \"inbox\",\n \"attempts\": 3}"),
        ("c-wrong.json", WRONG),
        ("notes.txt", "not a scenario"),
    ]);
    std::fs::create_dir(dir.path().join("sub.json")).unwrap();
    let path = dir.path().to_str().unwrap();
    let o = bin(&["run", path]);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a bad file wins over a failure: {out}"
    );
    assert!(stderr(&o).contains("b-bad.json"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("  ")).collect();
    assert!(rows[1].trim_start().starts_with("a-good.json") && rows[1].ends_with("  ok"));
    assert!(rows[2].trim_start().starts_with("b-bad.json") && rows[2].ends_with("  input error"));
    assert!(rows[3].trim_start().starts_with("c-wrong.json") && rows[3].contains("FAILED"));
    assert!(
        out.contains("unknown field `attempts`") && out.contains("line 2"),
        "the file's own error paragraph: {out}"
    );
    assert!(
        !out.contains("notes.txt") && !out.contains("sub.json"),
        "{out}"
    );
    assert!(
        out.ends_with("\n3 scenarios: 1 held, 1 failed, 1 input error\n"),
        "{out}"
    );
    let o = bin(&["run", path, "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let out = json(&o);
    assert_eq!(out["scenarios"][1]["result"], "input_error");
    assert!(out["scenarios"][1]["error"]
        .as_str()
        .unwrap()
        .contains("unknown field `attempts`"));
    assert_eq!(out["scenarios"][0]["result"], "ok");
}

/// A folder whose every file is bad input checked nothing: its verdict names no guarantee,
/// in the text (both languages) and in the JSON, where `exactly-once` over no run would read
/// as a result.
#[test]
fn a_folder_of_bad_files_says_no_guarantee() {
    let dir = folder_of(&[("a.json", "{\"name\": 3}"), ("b.json", "nope")]);
    let path = dir.path().to_str().unwrap();
    let o = bin(&["run", path]);
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let head = out.lines().next().unwrap();
    assert!(
        head.contains("UNKNOWN  nothing checked (ledger per event, 2 files)"),
        "{head}"
    );
    assert!(!out.contains("exactly-once"), "{out}");
    let o = bin(&["run", path, "--lang", "es"]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("INCIERTO  nada revisado"),
        "{out}"
    );
    let o = bin(&["run", path, "--json"]);
    let out = json(&o);
    assert_eq!(out["verdict"]["status"], "unknown");
    assert!(out["verdict"].get("guarantee").is_none(), "{out}");
    // One good file beside them: its guarantee, over the files, still unknown.
    let dir = folder_of(&[("a.json", "nope"), ("b.json", GOOD)]);
    let o = bin(&["run", dir.path().to_str().unwrap(), "--json"]);
    let out = json(&o);
    assert_eq!(out["verdict"]["status"], "unknown");
    assert_eq!(out["verdict"]["guarantee"], "exactly-once");
}

#[test]
fn run_dir_refuses_one_file_flags_empty_and_missing_folders() {
    let dir = folder_of(&[("a.json", GOOD)]);
    let path = dir.path().to_str().unwrap();
    for (flag, value) in [
        ("--crash", Some("after:commit e0 d1")),
        ("--schedule", Some("0,1")),
        ("--trace", None),
        ("--seed", Some("5")),
    ] {
        let mut args = vec!["run", path, flag];
        args.extend(value);
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(2), "{flag}");
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("error: {flag} cannot be used with a folder")),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = bin(&["run", path, "--protocol", "inbox"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    let empty = folder_of(&[("readme.txt", "no scenario here")]);
    let o = bin(&["run", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("holds no scenario file (*.json)"),
        "{}",
        stderr(&o)
    );

    let o = bin(&["run", "no-such-folder/"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no-such-folder/: no such file or folder"),
        "{}",
        stderr(&o)
    );

    let o = bin(&["explore", "scenarios/"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a folder"), "{}", stderr(&o));
}

/// Per-boundary verdicts are in both outputs: the text names each boundary with its
/// guarantee, the JSON lists them, the ledger per event first.
#[test]
fn every_boundary_has_its_verdict_in_text_and_json() {
    let file = "scenarios/inbox-email-crash-before-commit.json";
    let text = stdout(&bin(&["run", file]));
    assert!(
        text.contains("boundaries ledger per event: exactly-once (3 once)\n           email: at-least-once (2 once, 1 duplicated)\n"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&bin(&["run", file, "--json"]))).unwrap();
    let boundaries = json["boundaries"].as_array().unwrap();
    assert_eq!(boundaries[0]["boundary"], "ledger_per_event");
    assert_eq!(boundaries[1]["boundary"], "email");
    assert_eq!(boundaries[1]["guarantee"], "at-least-once");
    assert_eq!(boundaries[1]["duplicated"], 1);

    let file = "scenarios/producer-commit-then-publish-crash-loses-intent.json";
    let text = stdout(&bin(&["run", file]));
    assert!(
        text.contains("ledger per intent: at-most-once (2 once, 1 lost)"),
        "{text}"
    );
    assert!(text.contains("intent     tr_00001 (e1) LOST"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&bin(&["run", file, "--json"]))).unwrap();
    assert_eq!(json["boundaries"][1]["boundary"], "ledger_per_intent");
    assert_eq!(json["intents"][1]["outcome"], "lost");
    assert_eq!(json["intents"][1]["committed"], true);
    assert_eq!(json["event_reports"][1]["outcome"], "unpublished");
}

/// A pinned boundary that does not hold fails the run with exit 1 and says which.
#[test]
fn a_wrong_boundary_expectation_fails_and_names_the_boundary() {
    let text = std::fs::read_to_string(
        root().join("scenarios/inbox-email-outbox-without-key-duplicates.json"),
    )
    .unwrap();
    let wrong = text.replace(
        r#""guarantee": "at-least-once",
        "lost": 0,
        "duplicated": 1"#,
        r#""guarantee": "exactly-once",
        "lost": 0,
        "duplicated": 1"#,
    );
    assert_ne!(wrong, text, "the expectation to corrupt is in the file");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wrong.json");
    std::fs::write(&path, wrong).unwrap();
    let out = bin(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("expected email: exactly-once, observed email: at-least-once"));
}

/// The scenarios of `scenarios/liveness/` fail liveness on purpose: each run exits 1 with
/// its pinned verdict held and only the liveness line failed, and so does `explain`, and
/// `explore`, which lists the run first with its replay command.
#[test]
fn the_liveness_scenarios_exit_1_on_liveness_alone_in_every_command() {
    let dir = root().join("scenarios/liveness");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let file = path.display().to_string();
        let o = bin(&["run", &file, "--json"]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let failures = j["expect"]["failures"].as_array().unwrap();
        assert_eq!(failures.len(), 1, "{file}: {failures:?}");
        assert_eq!(
            failures[0]["expectation"], "liveness",
            "{file}: {failures:?}"
        );
        assert!(
            failures[0]["message"]
                .as_str()
                .unwrap()
                .starts_with("liveness: "),
            "{file}: {failures:?}"
        );
        assert!(j["stuck"].as_u64().unwrap() > 0, "{file}");
        let o = bin(&["explain", &file]);
        assert_eq!(o.status.code(), Some(1), "explain {file}");
        let o = bin(&["explore", &file, "--depth", "1"]);
        assert_eq!(o.status.code(), Some(1), "explore {file}");
        let out = stdout(&o);
        let listed = out
            .split("failing runs, each with the command that replays it:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{out}"));
        assert!(listed.contains("delivery-sim run "), "{out}");
        assert!(out.contains("liveness: "), "{out}");
    }
}

/// The explore table numbers its runs, so that `≡ run N` can be looked up; at the last
/// depth, equivalent runs have nothing skipped and the text says so, not "0 extensions".
#[test]
fn the_explore_table_numbers_the_runs_its_equivalences_refer_to() {
    let out = stdout(&bin(&[
        "explore",
        "scenarios/inbox-crash-before-commit.json",
    ]));
    assert!(!out.contains("their 0 extensions"), "{out}");
    assert!(out.contains("\nsame state "), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("crash schedule"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        rows[0].trim_start().starts_with("run  crash schedule"),
        "{}",
        rows[0]
    );
    let number = |row: &str| {
        row.split_whitespace()
            .next()
            .unwrap()
            .parse::<usize>()
            .unwrap()
    };
    let mut referred = 0;
    for (i, row) in rows[1..].iter().enumerate() {
        assert_eq!(number(row), i, "{row}");
        if let Some((_, n)) = row.split_once("≡ run ") {
            let n: usize = n.trim().parse().unwrap();
            assert!(n < i, "{row}: an earlier run");
            referred += 1;
        }
    }
    assert!(referred > 0);
    let d2 = stdout(&bin(&[
        "explore",
        "scenarios/inbox-crash-before-commit.json",
        "--depth",
        "2",
    ]));
    assert!(
        d2.contains("\nskipped    ") && d2.contains(" extensions were not run"),
        "{d2}"
    );
}
