//! PostgreSQL as an engine. Without a server: the refusals (no binaries, a PostgreSQL
//! setting on SQLite). With feature `postgres` (which `.ci/run` turns on after installing
//! Debian's postgresql package where its binaries are missing), the tool starting its own
//! throwaway cluster as on a user's machine: every scenario of `scenarios/postgres/` holds
//! and hashes the same in fresh processes, the Camel-style check-then-insert duplicates at
//! read committed and not at serializable, the isolation ladder, and nothing left behind
//! after any command, Ctrl-C included.

use super::support::*;

/// `delivery-sim ARGS` on a machine as if it had no PostgreSQL: `PG_BIN` an empty folder,
/// no URL.
fn without_postgres(args: &[&str]) -> std::process::Output {
    let empty = tempfile::tempdir().unwrap();
    command(env!("CARGO_BIN_EXE_delivery-sim"))
        .args(args)
        .env("PG_BIN", empty.path())
        .env_remove("DELIVERY_SIM_DATABASE_URL")
        .output()
        .unwrap()
}

#[test]
fn postgres_without_binaries_or_url_exits_2_saying_how_to_get_either() {
    let o = without_postgres(&[
        "run",
        "scenarios/postgres/check-then-act-read-committed.json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for needed in [
        "store.engine",
        "apt-get install postgresql",
        "--database-url",
        "PG_BIN",
    ] {
        assert!(err.contains(needed), "{needed} missing from: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_postgres_setting_on_sqlite_is_refused_naming_it() {
    let o = bin(&[
        "run",
        "scenarios/inbox-crash-before-commit.json",
        "--isolation",
        "serializable",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("store.isolation"), "{}", stderr(&o));
    let o = bin(&[
        "run",
        "scenarios/inbox-crash-before-commit.json",
        "--database-url",
        "postgres://nobody@localhost/nothing",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--database-url"), "{}", stderr(&o));
    // An isolation level for a built-in protocol or the matrix on SQLite means nothing.
    for args in [
        &["run", "--protocol", "inbox", "--isolation", "serializable"][..],
        &["matrix", "--depth", "1", "--isolation", "serializable"],
    ] {
        let o = bin(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("--isolation"), "{}", stderr(&o));
    }
}

#[test]
fn the_built_in_ledger_on_postgres_without_a_server_exits_2_before_any_work() {
    for args in [
        &["run", "--protocol", "inbox", "--engine", "postgres"][..],
        &["matrix", "--depth", "1", "--engine", "postgres"],
        &["crosscheck", "--protocol", "inbox", "--engine", "postgres"],
        &[
            "run",
            "scenarios/inbox-exact-duplicate.json",
            "--engine",
            "postgres",
        ],
        // The transfer lifecycle, and the producer with its relay.
        &[
            "explore",
            "scenarios/inbox-lifecycle-buffer-two-consumers.json",
            "--engine",
            "postgres",
        ],
        &[
            "run",
            "scenarios/outbox-relay-crash-inbox-absorbs.json",
            "--engine",
            "postgres",
        ],
    ] {
        let o = without_postgres(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("apt-get install postgresql"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[cfg(feature = "postgres")]
pub(crate) mod server {
    use super::*;

    /// `delivery-sim ARGS` with `TMPDIR` set to `tmp`, so that whatever it leaves behind there
    /// can be seen.
    pub(crate) fn in_tmp(tmp: &std::path::Path, args: &[&str]) -> std::process::Output {
        let mut cmd = command(env!("CARGO_BIN_EXE_delivery-sim"));
        cmd.args(args).env("TMPDIR", tmp);
        cmd.output().expect("the binary runs")
    }

    fn postgres_files() -> Vec<String> {
        let mut files: Vec<String> = std::fs::read_dir(root().join("scenarios/postgres"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|p| {
                format!(
                    "scenarios/postgres/{}",
                    p.file_name().unwrap().to_string_lossy()
                )
            })
            .collect();
        files.sort();
        assert!(files.len() >= 8);
        files
    }

    pub(crate) fn json(o: &std::process::Output) -> serde_json::Value {
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(o)))
    }

    /// Nothing of the tool's is left in `tmp`, and no process names it.
    pub(crate) fn left_nothing(tmp: &std::path::Path) {
        let left: Vec<_> = std::fs::read_dir(tmp)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
        let needle = tmp.to_string_lossy().into_owned();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            assert!(!cmdline.contains(&needle), "still running: {cmdline}");
        }
    }

    #[test]
    fn every_postgres_scenario_holds_and_hashes_the_same_in_fresh_processes() {
        for file in postgres_files() {
            let a = bin(&["run", &file, "--json"]);
            let b = bin(&["run", &file, "--json"]);
            assert_eq!(a.status.code(), Some(0), "{file}: {}", stderr(&a));
            assert_eq!(json(&a)["trace_hash"], json(&b)["trace_hash"], "{file}");
        }
        let o = bin(&["run", "scenarios/postgres/"]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    }

    #[test]
    fn interleavings_with_crashes_are_the_same_in_two_processes_at_once() {
        // Two processes at once, each with its own cluster: a trace that depended on how
        // fast the server aborts a transaction would differ under the load.
        let file = "scenarios/postgres/deadlock-opposite-order.json";
        let args = [
            "explore",
            file,
            "--interleavings",
            "--with-crashes",
            "--json",
        ];
        let spawn = || {
            command(env!("CARGO_BIN_EXE_delivery-sim"))
                .args(args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
        assert_eq!(json(&a), json(&b));
    }

    /// Each point's outcome per protocol, from `matrix --json`.
    fn matrix_points(o: &std::process::Output) -> Vec<(String, String, String)> {
        let m = json(o);
        let mut points = Vec::new();
        for p in m["protocols"].as_array().unwrap() {
            for point in p["points"].as_array().unwrap() {
                points.push((
                    p["name"].as_str().unwrap().to_string(),
                    point["at"].to_string(),
                    point["guarantee"].to_string(),
                ));
            }
        }
        points
    }

    #[test]
    fn the_matrix_on_postgres_shows_every_protocol_as_documented_point_by_point_as_sqlite() {
        let pg = bin(&["matrix", "--depth", "1", "--engine", "postgres", "--json"]);
        assert_eq!(pg.status.code(), Some(0), "{}", stderr(&pg));
        let sqlite = bin(&["matrix", "--depth", "1", "--json"]);
        assert_eq!(json(&pg)["engine"], "postgres");
        assert_eq!(json(&pg)["isolation"], "read_committed");
        assert_eq!(json(&sqlite)["engine"], "sqlite");
        // One crash at a time and one consumer: no concurrency, so each crash point must
        // end as on SQLite; what differs between the engines is concurrency.
        assert_eq!(matrix_points(&pg), matrix_points(&sqlite));
        let text = bin(&[
            "matrix", "--depth", "1", "--engine", "postgres", "--lang", "es",
        ]);
        assert!(
            stdout(&text).contains("en PostgreSQL con aislamiento read committed"),
            "{}",
            stdout(&text)
        );
        assert!(stdout(&text).contains("--engine postgres --seed 0 --crash"));
    }

    #[test]
    fn a_run_on_an_emptied_ledger_hashes_as_on_a_fresh_one() {
        // An exploration's runs reuse the ledger's tables, emptied (the first run of a
        // thread builds them); `run` replays one crash on freshly built tables. With altered
        // copies and alerts, and without the inbox's key (two rows of one event: which one a
        // read takes must not depend on where the server put them).
        for file in [
            "scenarios/inbox-payload-mismatch-alert.json",
            "scenarios/inbox-without-unique-constraint.json",
        ] {
            let x = json(&bin(&["explore", file, "--engine", "postgres", "--json"]));
            let runs = x["runs"].as_array().unwrap();
            let crashed: Vec<&serde_json::Value> = runs
                .iter()
                .filter(|r| r["crash_points"].as_array().is_some_and(|c| c.len() == 1))
                .step_by(4)
                .collect();
            assert!(crashed.len() >= 5, "{file}");
            for r in crashed {
                let point = r["crash_points"][0].as_str().unwrap();
                let run = bin(&[
                    "run", file, "--engine", "postgres", "--crash", point, "--json",
                ]);
                assert_eq!(json(&run)["trace_hash"], r["trace_hash"], "{file} {point}");
            }
        }
    }

    #[test]
    fn the_built_in_check_then_act_races_on_postgres_as_its_isolation_level_says() {
        // check_inbox runs before the transaction: at read committed the second consumer's
        // balance UPDATE waits for the first, then applies again (duplicate); at repeatable
        // read and serializable that UPDATE fails with 40001 where the first committed, and
        // the redelivery finds the inbox row. Some orders still duplicate there: those where
        // the second transaction's snapshot follows the first's commit.
        let file = "scenarios/check-then-act-broker-duplicate-no-constraint.json";
        let o = bin(&["explore", file, "--isolation-ladder", "--json"]);
        let ladder = json(&o);
        let rungs = ladder["rungs"].as_array().unwrap();
        let rung = |isolation: &str| {
            rungs
                .iter()
                .find(|r| r["isolation"] == isolation)
                .map(|r| &r["outcome"])
                .unwrap_or_else(|| panic!("{isolation}: {ladder}"))
        };
        let rc = rung("read_committed");
        assert_eq!(rc["guarantee"], "at-least-once", "{rc}");
        assert_eq!(rc["runs"], rc["breaking_runs"], "{rc}");
        for level in ["repeatable_read", "serializable"] {
            let r = rung(level);
            assert!(
                r["breaking_runs"].as_u64().unwrap() < r["runs"].as_u64().unwrap(),
                "{r}"
            );
        }
        let run = bin(&[
            "run",
            "--protocol",
            "check-then-act",
            "--engine",
            "postgres",
            "--isolation",
            "serializable",
            "--json",
        ]);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    }

    const CAMEL: &str = r#"{
      "name": "camel-jdbc-idempotent-repository", "seed": 3, "consumers": 2,
      "store": {"engine": "postgres", "schema": [
        "CREATE TABLE camel_messageprocessed (processor_name VARCHAR(255), message_id VARCHAR(100), created_at TIMESTAMPTZ DEFAULT now())",
        "CREATE TABLE reservation (event_id UUID NOT NULL, sku TEXT NOT NULL, qty INTEGER NOT NULL)"]},
      "workload": {"events": 1, "payloads": [{"sku": "sku_1", "qty": 2}]},
      "protocol": {"name": "camel-idempotent-consumer", "steps": ["receive", "begin",
        {"name": "contains", "sql": "SELECT COUNT(*) FROM camel_messageprocessed WHERE processor_name = 'orders' AND message_id = :event_id HAVING COUNT(*) > 0", "duplicate_if": "row"},
        {"name": "add", "sql": "INSERT INTO camel_messageprocessed (processor_name, message_id, created_at) VALUES ('orders', :event_id, now())"},
        {"name": "reserve", "sql": "INSERT INTO reservation VALUES (:event_id, :sku, :qty)"},
        "commit", "ack"]},
      "check": {"effects_per_event": "SELECT count(*) FROM reservation WHERE event_id = :event_id"},
      "faults": {"duplicate_delivery": [{"event": 0}]}
    }"#;

    #[test]
    fn the_camel_check_then_insert_duplicates_at_read_committed_not_at_serializable() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "camel.json", CAMEL);
        let x = bin(&["explore", &file, "--interleavings", "--json"]);
        let x = json(&x);
        assert_eq!(x["verdict"]["status"], "fail");
        assert_eq!(x["summary"]["guarantee"], "at-least-once");
        assert_eq!(x["summary"]["breaking_runs"], x["summary"]["runs"]);
        let s = bin(&[
            "explore",
            &file,
            "--interleavings",
            "--isolation",
            "serializable",
            "--json",
        ]);
        let s = json(&s);
        assert_eq!(s["verdict"]["status"], "pass");
        assert_eq!(s["summary"]["guarantee"], "exactly-once");
        // The replay of a failing interleaving runs on PostgreSQL, as it was found.
        let o = bin(&["explore", &file, "--interleavings"]);
        assert!(stdout(&o).contains("delivery-sim run"), "{}", stdout(&o));
    }

    #[test]
    fn a_caught_error_aborts_the_transaction_on_postgres_and_not_on_sqlite() {
        let file = "scenarios/sql-catch-duplicate-and-continue.json";
        let sqlite = json(&bin(&["run", file, "--json"]));
        assert_eq!(sqlite["guarantee"], "at-least-once");
        // PostgreSQL aborted the transaction at the failed claim: the payment after it fails
        // (25P02), nothing is paid twice, and the copy is redelivered until dead-lettered.
        let pg = json(&bin(&["run", file, "--engine", "postgres", "--json"]));
        assert_eq!(pg["duplicated"], 0, "{pg}");
        assert_eq!(pg["all_acked"], false, "{pg}");
        let trace = stdout(&bin(&["run", file, "--engine", "postgres", "--trace"]));
        assert!(trace.contains("SQLSTATE 25P02"), "{trace}");
        // Going on straight to the commit: PostgreSQL answers it with ROLLBACK, which the
        // consumer takes as the commit failing.
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let text = text.replace("\"continue_at\": \"pay\"", "\"continue_at\": \"commit\"");
        let dir = tempfile::tempdir().unwrap();
        let commit = write(dir.path(), "commit.json", &text);
        let trace = stdout(&bin(&["run", &commit, "--engine", "postgres", "--trace"]));
        assert!(
            trace.contains("commit           e0 copy1 d1    ROLLBACK"),
            "{trace}"
        );
    }

    #[test]
    fn the_ladder_names_the_weakest_level_for_c4_and_every_level_for_its_keyed_variant() {
        let ladder = |file: &str| {
            let o = bin(&["explore", file, "--isolation-ladder", "--json"]);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            json(&o)
        };
        let c4 = ladder("scenarios/postgres/check-then-act-read-committed.json");
        let guarantees: Vec<&str> = c4["rungs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["outcome"]["guarantee"].as_str().unwrap())
            .collect();
        assert_eq!(
            guarantees,
            [
                "exactly-once",
                "at-least-once",
                "at-least-once",
                "exactly-once"
            ]
        );
        assert_eq!(c4["weakest_holding"], "serializable");
        assert_eq!(c4["sqlite_differs"], true);
        let keyed = ladder("scenarios/postgres/check-then-act-primary-key.json");
        assert_eq!(keyed["weakest_holding"], "read_committed");
        assert_eq!(keyed["sqlite_differs"], false);
        let text = stdout(&bin(&[
            "explore",
            "scenarios/postgres/check-then-act-read-committed.json",
            "--isolation-ladder",
        ]));
        assert!(text.contains("from serializable up"), "{text}");
        assert!(text.contains("--isolation read-committed"), "{text}");
        // The verdict leads, and it is the file's own rung's (read committed: it
        // duplicates), never the best rung's; the file pins that, so the expectation holds.
        assert!(text.starts_with("verdict    FAIL  at-least-once"), "{text}");
        assert!(text.contains("114  ← the file's own"), "{text}");
        assert!(text.contains("expect     held"), "{text}");
        assert_eq!(c4["verdict"]["status"], "fail", "{c4}");
        assert_eq!(c4["failures"], serde_json::json!([]), "{c4}");
        let home: Vec<bool> = (c4["rungs"].as_array().unwrap().iter())
            .map(|r| r["home"].as_bool().unwrap())
            .collect();
        assert_eq!(home, [false, true, false, false]);
        // Expectations that do not hold for the file's own rung fail the ladder (exit 1).
        let dir = tempfile::tempdir().unwrap();
        let wrong = dir.path().join("wrong.json");
        let mut file: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                root().join("scenarios/postgres/check-then-act-read-committed.json"),
            )
            .unwrap(),
        )
        .unwrap();
        file["expect"]["interleavings"]["guarantee"] = "exactly-once".into();
        std::fs::write(&wrong, file.to_string()).unwrap();
        let o = bin(&["explore", wrong.to_str().unwrap(), "--isolation-ladder"]);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        assert!(stdout(&o).contains("expect"), "{}", stdout(&o));
    }

    #[test]
    fn a_sqlite_pass_that_rests_on_busy_snapshot_says_so() {
        let o = bin(&[
            "explore",
            "scenarios/postgres/check-then-act-read-committed.json",
            "--engine",
            "sqlite",
            "--interleavings",
            "--json",
        ]);
        let v = json(&o);
        assert_eq!(v["verdict"]["status"], "pass");
        let reasons = v["verdict"]["reasons"].to_string();
        assert!(reasons.contains("sqlite_serialized"), "{reasons}");
        let text = stdout(&bin(&[
            "run",
            "scenarios/postgres/check-then-act-read-committed.json",
            "--engine",
            "sqlite",
        ]));
        assert!(
            text.lines().next().unwrap().contains("--isolation-ladder"),
            "{text}"
        );
    }

    #[test]
    fn nothing_is_left_behind_after_any_command() {
        let tmp = tempfile::tempdir().unwrap();
        let file = "scenarios/postgres/select-for-update-serializes.json";
        for args in [
            vec!["run", file],
            vec!["explore", file],
            vec!["explore", file, "--interleavings", "--max-preemptions", "1"],
            vec!["explain", file, "--lang", "es"],
        ] {
            let o = in_tmp(tmp.path(), &args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
            left_nothing(tmp.path());
        }
        // A file PostgreSQL refuses: exit 2, and the cluster it started is gone too.
        let bad = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let path = write(
            bad.path(),
            "bad.json",
            &text.replace("FOR UPDATE", "FOR UPDATE OF nothing"),
        );
        let o = in_tmp(tmp.path(), &["run", &path]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("protocol.steps[2].sql"),
            "{}",
            stderr(&o)
        );
        left_nothing(tmp.path());
    }

    #[test]
    fn crosscheck_on_postgres_agrees_with_a_real_process_killed_by_sigkill() {
        let tmp = tempfile::tempdir().unwrap();
        let built_in = [
            "--protocol",
            "inbox",
            "--events",
            "2",
            "--engine",
            "postgres",
        ];
        for source in [
            &built_in[..],
            &["scenarios/postgres/on-conflict-returning-inbox.json"],
            // A lost COMMIT answer: the crash comes after PostgreSQL committed.
            &["scenarios/postgres/commit-timeout-retry.json"],
        ] {
            let args = [&["crosscheck", "--json"][..], source].concat();
            let o = in_tmp(tmp.path(), &args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stdout(&o));
            let v = json(&o);
            assert_eq!(v["engine"], "postgres");
            assert_eq!(v["summary"]["all_match"], true);
            let runs = v["runs"].as_array().unwrap();
            assert!(runs.len() > 20, "{args:?}: {} runs", runs.len());
            left_nothing(tmp.path());
        }
        // A known-bad model (a crash commits what was open) is caught on PostgreSQL too.
        let args = [
            &["crosscheck", "--json", "--wrong-model", "keep-uncommitted"][..],
            &built_in[..],
        ]
        .concat();
        let o = in_tmp(tmp.path(), &args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = json(&o);
        let differ = (v["runs"].as_array().unwrap().iter())
            .filter(|r| r["match"] == false)
            .count();
        assert!(differ >= 4, "{differ} points differ");
        let text = stdout(&in_tmp(
            tmp.path(),
            &[&["crosscheck", "--lang", "es"][..], &built_in[..]].concat(),
        ));
        assert!(text.contains("conexión a PostgreSQL"), "{text}");
        left_nothing(tmp.path());
    }

    /// What a run came to, as exploration's equivalence must keep it (the verdict, per
    /// boundary and per kind of event outcome, and why the run stopped).
    pub(crate) fn outcome(r: &serde_json::Value) -> String {
        [
            "guarantee",
            "boundaries",
            "lost",
            "duplicated",
            "once",
            "dead_lettered",
            "stuck",
            "all_acked",
            "conserved",
            "stop",
            "rejected",
            "pending",
            "intents",
        ]
        .map(|k| r[k].to_string())
        .join(" ")
    }

    #[test]
    fn pruned_explorations_on_postgres_find_what_every_schedule_finds() {
        let built_in = |p| vec!["--protocol", p, "--events", "2", "--engine", "postgres"];
        for source in [
            vec!["scenarios/postgres/commit-timeout-retry.json"],
            vec!["scenarios/postgres/check-then-act-read-committed.json"],
            built_in("inbox"),
            built_in("check-then-act"),
        ] {
            let args = [&["explore", "--depth", "2", "--json"][..], &source].concat();
            let pruned = json(&bin(&args));
            let whole = json(&bin(&[&args[..], &["--no-prune"]].concat()));
            let runs = |v: &serde_json::Value| v["runs"].as_array().unwrap().clone();
            let (p, w) = (runs(&pruned), runs(&whole));
            assert!(
                pruned["summary"]["equivalent_runs"].as_u64().unwrap() > 0 && p.len() < w.len(),
                "{source:?}: nothing pruned ({} runs of {})",
                p.len(),
                w.len()
            );
            assert_eq!(
                pruned["summary"]["guarantee"], whole["summary"]["guarantee"],
                "{source:?}"
            );
            let classes = |runs: &[serde_json::Value]| {
                runs.iter()
                    .map(outcome)
                    .collect::<std::collections::BTreeSet<_>>()
            };
            assert_eq!(classes(&p), classes(&w), "{source:?}");
            // A schedule both ran ends the same: the server's state is the run's own.
            let by_schedule: std::collections::BTreeMap<String, String> = (w.iter())
                .map(|r| (r["crash_points"].to_string(), outcome(r)))
                .collect();
            for r in &p {
                assert_eq!(
                    by_schedule.get(&r["crash_points"].to_string()),
                    Some(&outcome(r)),
                    "{source:?}"
                );
            }
        }
    }

    #[test]
    fn a_crash_on_postgres_is_rolled_back_by_postgresql_in_every_telling() {
        let file = "scenarios/postgres/on-conflict-returning-inbox.json";
        for (args, said) in [
            (
                vec!["run", file, "--diagram", "mermaid"],
                "PostgreSQL rolls back",
            ),
            (
                vec!["run", file, "--diagram", "mermaid", "--lang", "es"],
                "PostgreSQL hace rollback",
            ),
            (vec!["explain", file], "PostgreSQL rolls back consumer0's"),
        ] {
            let out = stdout(&bin(&args));
            assert!(out.contains(said), "{args:?}: {out}");
            assert!(!out.contains("SQLite"), "{args:?}: {out}");
        }
    }

    #[test]
    fn a_temporary_directory_the_server_account_cannot_enter_is_named() {
        // Only as root does the tool start its server as another account.
        // SAFETY: a plain query of this process's credentials.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        let closed = tempfile::tempdir().unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(closed.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let o = in_tmp(
            closed.path(),
            &["run", "--protocol", "inbox", "--engine", "postgres"],
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("TMPDIR") && err.contains("mode 700"), "{err}");
        left_nothing(closed.path());
    }

    /// `serve`, started with `TMPDIR` at `tmp`, and its port.
    fn serve_in(tmp: &std::path::Path) -> (std::process::Child, u16) {
        use std::io::BufRead;
        let mut child = command(env!("CARGO_BIN_EXE_delivery-sim"))
            .args(["serve", "--port", "0"])
            .env("TMPDIR", tmp)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port: u16 = (line.split("http://127.0.0.1:").nth(1))
            .and_then(|rest| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        (child, port)
    }

    /// Posts `file` to `serve`'s `/api/run`: the status and the body.
    fn serve_run(port: u16, file: &str) -> (Option<u16>, String) {
        let file = std::fs::read(root().join(file)).unwrap();
        let request = crate::serve::post("/api/run", &format!("127.0.0.1:{port}"), &file);
        crate::serve::send(port, &request)
    }

    #[test]
    fn serve_runs_a_pasted_postgres_scenario_and_ctrl_c_removes_its_cluster() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut child, port) = serve_in(tmp.path());
        let (status, body) = serve_run(port, "scenarios/postgres/commit-timeout-retry.json");
        assert_eq!(status, Some(200), "{body}");
        assert!(body.contains("postgres-commit-timeout-retry"), "{body}");
        let clusters = std::fs::read_dir(tmp.path()).unwrap().count();
        assert_eq!(clusters, 1, "the cluster the run started is up");
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        assert_eq!(child.wait().unwrap().code(), Some(130));
        left_nothing(tmp.path());
    }

    /// Runs `sql` on database `db` of the server at `url`: the first column of each row.
    fn on_server(url: &str, db: &str, sql: &str) -> Vec<String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut config: tokio_postgres::Config = url.parse().unwrap();
            config.dbname(db);
            let (client, conn) = config.connect(tokio_postgres::NoTls).await.unwrap();
            let task = tokio::spawn(conn);
            let rows = client.simple_query(sql).await.unwrap();
            drop(client);
            let _ = task.await;
            rows.into_iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                    _ => None,
                })
                .collect()
        })
    }

    #[test]
    fn a_database_url_server_gets_only_scratch_databases_and_gives_the_same_runs() {
        // A server that is not the command's own: serve's cluster, up while serve runs.
        let tmp = tempfile::tempdir().unwrap();
        let (mut child, port) = serve_in(tmp.path());
        assert_eq!(
            serve_run(port, "scenarios/postgres/commit-timeout-retry.json").0,
            Some(200)
        );
        let socket_dir = std::fs::read_dir(tmp.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        let url = format!(
            "postgresql://delivery_sim@/postgres?host={}",
            socket_dir.path().display()
        );
        // The user's own database, which the tool must not touch.
        on_server(&url, "postgres", "CREATE DATABASE users_own");
        on_server(
            &url,
            "users_own",
            "CREATE TABLE t (a int); INSERT INTO t VALUES (7)",
        );
        let file = "scenarios/postgres/check-then-act-read-committed.json";
        let own = json(&bin(&["run", file, "--json"]));
        for args in [
            vec!["run", file, "--json", "--database-url", &url],
            vec![
                "explore",
                file,
                "--interleavings",
                "--json",
                "--database-url",
                &url,
            ],
        ] {
            let o = bin(&args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
            if args[0] == "run" {
                assert_eq!(json(&o)["trace_hash"], own["trace_hash"]);
            }
            let scratch = on_server(
                &url,
                "postgres",
                "SELECT datname FROM pg_database WHERE datname LIKE 'delivery_sim_scratch_%'",
            );
            // serve's own scratch database is there while it runs; the command's are gone.
            assert!(scratch.len() <= 1, "{args:?} left {scratch:?}");
        }
        assert_eq!(on_server(&url, "users_own", "SELECT a FROM t"), ["7"]);
        // With the variable instead of the flag.
        let o = command(env!("CARGO_BIN_EXE_delivery-sim"))
            .args(["run", file, "--json"])
            .env("DELIVERY_SIM_DATABASE_URL", &url)
            .output()
            .unwrap();
        assert_eq!(json(&o)["trace_hash"], own["trace_hash"], "{}", stderr(&o));
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        assert_eq!(child.wait().unwrap().code(), Some(130));
        left_nothing(tmp.path());
    }

    #[test]
    fn a_schema_may_make_schemas_of_its_own_but_not_objects_of_the_whole_server() {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(
            root().join("scenarios/postgres/on-conflict-returning-inbox.json"),
        )
        .unwrap();
        let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
        // Tables outside `run` (a schema of the file's own, and `public`): every run
        // starts without them, and exploration digests them.
        let schema = file["store"]["schema"].as_array_mut().unwrap();
        schema.push("CREATE SCHEMA audit".into());
        schema.push("CREATE TABLE audit.seen (event_id UUID)".into());
        schema.push("CREATE TABLE public.seen (event_id UUID)".into());
        let apply = file["protocol"]["steps"][3]["sql"].as_array_mut().unwrap();
        apply.push("INSERT INTO audit.seen VALUES (:event_id)".into());
        apply.push("INSERT INTO public.seen VALUES (:event_id)".into());
        let path = write(dir.path(), "schemas.json", &file.to_string());
        for args in [vec!["run", &path], vec!["explore", &path, "--depth", "2"]] {
            let o = bin(&args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        }
        for object in [
            "ROLE auditor",
            "DATABASE other",
            "TABLESPACE t LOCATION '/tmp'",
        ] {
            file["store"]["schema"][0] = format!("CREATE {object}").into();
            let path = write(dir.path(), "server.json", &file.to_string());
            let o = bin(&["run", &path]);
            assert_eq!(o.status.code(), Some(2), "{object}: {}", stderr(&o));
            assert!(stderr(&o).contains("store.schema[0]"), "{}", stderr(&o));
            assert!(stderr(&o).contains("whole server"), "{}", stderr(&o));
        }
    }

    #[test]
    fn the_library_api_checks_a_consumer_on_postgres() {
        use delivery_sim::testing::check_guarantee;
        use delivery_sim::{Guarantee, Protocol, Scenario, Scope};
        // A file on PostgreSQL, as a team's test loads it: the same runs as `explore`.
        let file = root().join("scenarios/postgres/commit-timeout-retry.json");
        let s = Scenario::from_file(&file).unwrap();
        let runs = check_guarantee(&s, 2, Scope::LedgerPerEvent, Guarantee::ExactlyOnce);
        let explored = json(&bin(&[
            "explore",
            "scenarios/postgres/commit-timeout-retry.json",
            "--depth",
            "2",
            "--json",
        ]));
        assert_eq!(
            runs.ok().map(|c| c.runs),
            explored["summary"]["runs"].as_u64()
        );
        // A built-in protocol moved to PostgreSQL: its known bug is found there too.
        let mut s = Scenario::new(Protocol::built_in("effect-then-mark").unwrap()).with_events(2);
        s.store.engine = delivery_sim::model::Engine::Postgres;
        let c = check_guarantee(&s, 1, Scope::LedgerPerEvent, Guarantee::ExactlyOnce)
            .expect_err("effect-then-mark duplicates");
        assert_eq!(c.observed, Guarantee::AtLeastOnce);
        assert_eq!(c.crashes.len(), 1);
    }

    #[test]
    fn ctrl_c_stops_the_cluster_and_removes_it() {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = command(env!("CARGO_BIN_EXE_delivery-sim"))
            .args([
                "explore",
                "scenarios/postgres/deadlock-opposite-order.json",
                "--interleavings",
                "--with-crashes",
            ])
            .env("TMPDIR", tmp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Until the cluster is up (its postmaster.pid says so) or the command ended.
        let ready = loop {
            if child.try_wait().unwrap().is_some() {
                break false;
            }
            let up = std::fs::read_dir(tmp.path()).unwrap().flatten().any(|d| {
                let pid = d.path().join("data/postmaster.pid");
                std::fs::read_to_string(pid)
                    .is_ok_and(|t| t.lines().nth(7).map(str::trim) == Some("ready"))
            });
            if up {
                break true;
            }
            std::thread::yield_now();
        };
        assert!(ready, "the command ended before its cluster was up");
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130));
        left_nothing(tmp.path());
    }
}

/// `bench`'s PostgreSQL section measures real runs on the tool's own cluster: every figure
/// is there and counts what a run asks of the server (no speed is asserted).
#[cfg(feature = "postgres")]
#[test]
fn bench_measures_postgres_next_to_sqlite() {
    let f = delivery_sim_cli::bench::postgres_figures(2);
    assert_eq!(f.unavailable, None);
    assert!(f.postgres_runs_per_second > 0.0 && f.sqlite_runs_per_second > 0.0);
    // receive, begin, mark, two inserts, commit per event: at least 5 statements each.
    assert!(f.statements_per_run >= 15.0, "{f:?}");
    assert!(f.blocked_checks_per_run >= 1.0, "{f:?}");
    assert!(f.interleavings > 0, "{f:?}");
    eprintln!("{}", serde_json::to_string_pretty(&f).unwrap());
}
