//! No flag silently ignored (issue 33, item 2): every flag of every subcommand, read from
//! clap's command tree (not a hand list), has a proof here that it acts: an invocation
//! whose output (stdout, stderr, exit code, the files it writes) changes when the flag is
//! added, or an invocation refused with exit 2 naming the flag. A new flag without a proof
//! fails [`every_flag_of_every_subcommand_has_a_proof`].
//!
//! What "changes" means leaves out the flag's own echo: the flag's text is removed from
//! the output before the comparison, so a flag that is only repeated in a replay line
//! (`--schedule 1,0,1` on a scenario with one consumer, once) proves nothing. The last
//! test shows that each proof fails for a binary that accepts the flag and ignores it.

use super::support::*;
use clap::CommandFactory;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

/// A scenario with two consumers and few interleavings.
const TWO: &str =
    r#"{"name": "two", "protocol": "inbox", "consumers": 2, "workload": {"events": 2}}"#;
/// A scenario file whose run, with one consumer, pins explorations.
const FILE: &str = "@scenarios/no-dedup-crash-between-commit-and-ack.json";
/// The replay token of the README's shrunk sweep finding.
const TOKEN: &str = "ds1:eyJzY2VuYXJpbyI6eyJuYW1lIjoibm8tZGVkdXAtc2VlZDE1LXNocnVuayIsInNlZWQiOjE1LCJwcm90b2NvbCI6Im5vLWRlZHVwIiwid29ya2xvYWQiOnsiZXZlbnRzIjoxfSwiZmF1bHRzIjp7ImNyYXNoIjpbeyJhdCI6ImFmdGVyOmNvbW1pdCIsImV2ZW50IjowLCJjb3B5IjowLCJkZWxpdmVyeSI6MX1dfX19WKkJsA";

/// How a flag is shown to act.
#[derive(Clone, Copy)]
enum Proof {
    /// `base` and `base` + `flag` give different outputs.
    Changes {
        base: &'static [&'static str],
        flag: &'static [&'static str],
    },
    /// The same, comparing only what the runs found (a sweep's lines after its head,
    /// which echoes its limits).
    ChangesFindings {
        base: &'static [&'static str],
        flag: &'static [&'static str],
    },
    /// `serve`: the first line it prints (the port masked) differs, the server then
    /// stopped.
    ChangesFirstLine {
        base: &'static [&'static str],
        flag: &'static [&'static str],
    },
    /// Refused: exit 2, and stderr names the flag.
    Refused(&'static [&'static str]),
    /// A flag that must be given: the command without it is refused, naming it.
    Required(&'static [&'static str]),
    /// Acts only after minutes of work (`bench`), with what it does.
    Slow(&'static str),
}

const RUN: &[&str] = &["run", "--protocol", "no-dedup"];
const RUN_CRASHED: &[&str] = &[
    "run",
    "--protocol",
    "no-dedup",
    "--crash",
    "after:commit e0 d1",
];
const EXPLAIN: &[&str] = &["explain", "--protocol", "no-dedup"];
const EXPLORE: &[&str] = &["explore", "--protocol", "no-dedup"];
const INTERLEAVINGS: &[&str] = &["explore", TWO, "--interleavings"];
const SWEEP: &[&str] = &[
    "sweep",
    "--protocol",
    "no-dedup",
    "--events",
    "2",
    "--seeds",
    "0..6",
];
const MATRIX: &[&str] = &["matrix", "--events", "1", "--depth", "1"];
const CROSSCHECK: &[&str] = &["crosscheck", "--protocol", "no-dedup", "--events", "1"];
const REPLAY: &[&str] = &["replay", TOKEN];

use Proof::*;

/// One proof per (subcommand, flag id).
const PROOFS: &[(&str, &str, Proof)] = &[
    ("run", "protocol", Refused(&["run", FILE, "--protocol", "inbox"])),
    ("run", "events", Refused(&["run", FILE, "--events", "5"])),
    ("run", "seed", Changes { base: RUN, flag: &["--seed", "3"] }),
    ("run", "crash", Changes { base: RUN, flag: &["--crash", "after:commit e0 d1"] }),
    ("run", "json", Changes { base: RUN, flag: &["--json"] }),
    ("run", "trace", Changes { base: RUN, flag: &["--trace"] }),
    ("run", "inbox_ttl_ticks", Changes { base: &["run", "--protocol", "inbox"], flag: &["--inbox-ttl-ticks", "5"] }),
    ("run", "schedule", Changes { base: &["run", TWO], flag: &["--schedule", "1"] }),
    ("run", "diagram", Changes { base: RUN, flag: &["--diagram", "mermaid"] }),
    ("run", "diagram_detail", Changes { base: &["run", "--protocol", "inbox", "--events", "12", "--diagram", "mermaid"], flag: &["--diagram-detail", "full"] }),
    ("run", "out", Changes { base: &["run", "--protocol", "no-dedup", "--diagram", "svg"], flag: &["--out", "d.svg"] }),
    ("run", "html", Changes { base: RUN, flag: &["--html", "p.html"] }),
    ("run", "junit", Changes { base: RUN, flag: &["--junit", "j.xml"] }),
    ("run", "expect", Changes { base: RUN_CRASHED, flag: &["--expect", "exactly-once"] }),
    ("run", "lang", Changes { base: RUN, flag: &["--lang", "es"] }),
    ("run", "engine", Changes { base: &["run", FILE], flag: &["--engine", "postgres"] }),
    ("run", "isolation", Refused(&["run", "--protocol", "inbox", "--isolation", "serializable"])),
    ("run", "database_url", Refused(&["run", "--protocol", "inbox", "--database-url", "postgres://x@localhost/y"])),
    ("explain", "protocol", Refused(&["explain", FILE, "--protocol", "inbox"])),
    ("explain", "events", Refused(&["explain", FILE, "--events", "5"])),
    ("explain", "engine", Changes { base: &["explain", FILE], flag: &["--engine", "postgres"] }),
    ("explain", "isolation", Refused(&["explain", "--protocol", "inbox", "--isolation", "serializable"])),
    ("explain", "database_url", Refused(&["explain", "--protocol", "inbox", "--database-url", "postgres://x@localhost/y"])),
    ("explain", "seed", Changes { base: EXPLAIN, flag: &["--seed", "3"] }),
    ("explain", "crash", Changes { base: EXPLAIN, flag: &["--crash", "after:commit e0 d1"] }),
    ("explain", "schedule", Changes { base: &["explain", TWO], flag: &["--schedule", "1"] }),
    ("explain", "inbox_ttl_ticks", Changes { base: &["explain", "--protocol", "inbox"], flag: &["--inbox-ttl-ticks", "5"] }),
    ("explain", "json", Changes { base: EXPLAIN, flag: &["--json"] }),
    ("explain", "lang", Changes { base: EXPLAIN, flag: &["--lang", "es"] }),
    ("explore", "protocol", Refused(&["explore", FILE, "--protocol", "inbox"])),
    ("explore", "events", Refused(&["explore", FILE, "--events", "5"])),
    ("explore", "engine", Changes { base: &["explore", FILE, "--depth", "1"], flag: &["--engine", "postgres"] }),
    ("explore", "isolation", Refused(&["explore", "--protocol", "inbox", "--isolation", "serializable"])),
    ("explore", "database_url", Refused(&["explore", "--protocol", "inbox", "--database-url", "postgres://x@localhost/y"])),
    ("explore", "seed", Changes { base: EXPLORE, flag: &["--seed", "3"] }),
    ("explore", "depth", Changes { base: EXPLORE, flag: &["--depth", "2"] }),
    ("explore", "max_schedules", Refused(&["explore", "--protocol", "no-dedup", "--depth", "2", "--max-schedules", "1"])),
    ("explore", "no_prune", Changes { base: &["explore", "--protocol", "no-dedup", "--depth", "2"], flag: &["--no-prune"] }),
    ("explore", "interleavings", Changes { base: &["explore", TWO], flag: &["--interleavings"] }),
    ("explore", "max_preemptions", Changes { base: INTERLEAVINGS, flag: &["--max-preemptions", "0"] }),
    ("explore", "with_crashes", Changes { base: INTERLEAVINGS, flag: &["--with-crashes"] }),
    ("explore", "smallest_safe_ttl", Refused(&["explore", "--protocol", "inbox", "--smallest-safe-ttl"])),
    ("explore", "max_interleavings", Changes { base: INTERLEAVINGS, flag: &["--max-interleavings", "1"] }),
    ("explore", "isolation_ladder", Changes { base: &["explore", TWO], flag: &["--isolation-ladder"] }),
    ("explore", "expect", Changes { base: EXPLORE, flag: &["--expect", "exactly-once"] }),
    ("explore", "json", Changes { base: EXPLORE, flag: &["--json"] }),
    ("explore", "html", Changes { base: EXPLORE, flag: &["--html", "p.html"] }),
    ("explore", "lang", Changes { base: EXPLORE, flag: &["--lang", "es"] }),
    ("sweep", "protocol", Refused(&["sweep", FILE, "--seeds", "0..2", "--protocol", "inbox"])),
    ("sweep", "events", Refused(&["sweep", FILE, "--seeds", "0..2", "--events", "5"])),
    ("sweep", "engine", Changes { base: &["sweep", FILE, "--seeds", "0..1"], flag: &["--engine", "postgres"] }),
    ("sweep", "isolation", Refused(&["sweep", "--protocol", "inbox", "--seeds", "0..1", "--isolation", "serializable"])),
    ("sweep", "database_url", Refused(&["sweep", "--protocol", "inbox", "--seeds", "0..1", "--database-url", "postgres://x@localhost/y"])),
    ("sweep", "seeds", Required(&["sweep", "--protocol", "no-dedup"])),
    ("sweep", "out", Changes { base: SWEEP, flag: &["--out", "f.jsonl"] }),
    ("sweep", "append", Refused(&["sweep", "--protocol", "no-dedup", "--seeds", "0..2", "--append"])),
    ("sweep", "max_crash_ppm", ChangesFindings { base: SWEEP, flag: &["--max-crash-ppm", "0"] }),
    ("sweep", "max_crashes", ChangesFindings { base: SWEEP, flag: &["--max-crashes", "0"] }),
    ("sweep", "max_failures", ChangesFindings { base: SWEEP, flag: &["--max-failures", "0"] }),
    ("sweep", "max_republishes", ChangesFindings { base: SWEEP, flag: &["--max-republishes", "0"] }),
    ("sweep", "max_broker_faults", ChangesFindings { base: SWEEP, flag: &["--max-broker-faults", "0"] }),
    ("sweep", "max_jitter_ticks", ChangesFindings { base: SWEEP, flag: &["--max-jitter-ticks", "0"] }),
    ("sweep", "max_stall_ticks", ChangesFindings { base: SWEEP, flag: &["--max-stall-ticks", "0"] }),
    ("sweep", "json", Changes { base: SWEEP, flag: &["--json"] }),
    ("sweep", "no_shrink", ChangesFindings { base: SWEEP, flag: &["--no-shrink"] }),
    ("sweep", "shrink_runs", ChangesFindings { base: SWEEP, flag: &["--shrink-runs", "1"] }),
    ("sweep", "shrink_findings", ChangesFindings { base: SWEEP, flag: &["--shrink-findings", "1"] }),
    ("sweep", "lang", Changes { base: SWEEP, flag: &["--lang", "es"] }),
    ("matrix", "events", Changes { base: &["matrix", "--depth", "1"], flag: &["--events", "1"] }),
    ("matrix", "depth", Changes { base: &["matrix", "--events", "1"], flag: &["--depth", "1"] }),
    ("matrix", "out_dir", Changes { base: MATRIX, flag: &["--out-dir", "r"] }),
    ("matrix", "out", Refused(&["matrix", "--events", "1", "--depth", "1", "--out", "r"])),
    ("matrix", "html", Changes { base: MATRIX, flag: &["--html", "m.html"] }),
    ("matrix", "seed", Changes { base: MATRIX, flag: &["--seed", "3"] }),
    ("matrix", "lang", Changes { base: MATRIX, flag: &["--lang", "es"] }),
    ("matrix", "json", Changes { base: MATRIX, flag: &["--json"] }),
    // On PostgreSQL the table says so (or, on a machine without it, exit 2 says how to
    // get it): the output changes either way.
    ("matrix", "engine", Changes { base: MATRIX, flag: &["--engine", "postgres"] }),
    ("matrix", "isolation", Refused(&["matrix", "--events", "1", "--depth", "1", "--isolation", "serializable"])),
    ("matrix", "database_url", Refused(&["matrix", "--events", "1", "--depth", "1", "--database-url", "postgres://x@localhost/y"])),
    ("protocols", "json", Changes { base: &["protocols"], flag: &["--json"] }),
    ("protocols", "lang", Changes { base: &["protocols"], flag: &["--lang", "es"] }),
    ("crosscheck", "protocol", Refused(&["crosscheck", FILE, "--protocol", "inbox"])),
    ("crosscheck", "events", Refused(&["crosscheck", FILE, "--events", "2"])),
    ("crosscheck", "engine", Changes { base: &["crosscheck", FILE], flag: &["--engine", "postgres"] }),
    ("crosscheck", "isolation", Refused(&["crosscheck", "--protocol", "inbox", "--isolation", "serializable"])),
    ("crosscheck", "database_url", Refused(&["crosscheck", "--protocol", "inbox", "--database-url", "postgres://x@localhost/y"])),
    ("crosscheck", "seed", Changes { base: CROSSCHECK, flag: &["--seed", "3"] }),
    ("crosscheck", "json", Changes { base: CROSSCHECK, flag: &["--json"] }),
    ("crosscheck", "lang", Changes { base: CROSSCHECK, flag: &["--lang", "es"] }),
    ("crosscheck", "wrong_model", Changes { base: CROSSCHECK, flag: &["--wrong-model", "keep-uncommitted"] }),
    ("replay", "json", Changes { base: REPLAY, flag: &["--json"] }),
    ("replay", "trace", Changes { base: REPLAY, flag: &["--trace"] }),
    ("replay", "scenario_out", Changes { base: REPLAY, flag: &["--scenario-out", "s.json"] }),
    ("replay", "lang", Changes { base: REPLAY, flag: &["--lang", "es"] }),
    ("serve", "port", Refused(&["serve", "--port", "{busy}"])),
    ("serve", "lang", ChangesFirstLine { base: &["serve", "--port", "0"], flag: &["--lang", "es"] }),
    ("bench", "out_dir", Refused(&["bench", "--out-dir", "/proc/delivery-sim-cannot-be-here"])),
    ("bench", "out", Refused(&["bench", "--out", "x"])),
    // `bench` measures for minutes: more than a test may take. Its one flag that acts only
    // after the measuring is named here with why, and the test allows it for `bench` alone.
    ("bench", "json", Slow("prints the figures as JSON instead of Markdown, after minutes of measuring; docs/schema/bench.schema.json is the shape")),
];

/// Every flag (an argument with a long name) of every subcommand, as (subcommand, id).
fn clap_flags() -> Vec<(String, String)> {
    let cli = delivery_sim_cli::cli::Cli::command();
    let mut out = Vec::new();
    for sub in cli.get_subcommands() {
        for arg in sub.get_arguments() {
            let id = arg.get_id().as_str();
            if arg.get_long().is_some() && id != "help" && id != "version" {
                out.push((sub.get_name().to_string(), id.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_flag_of_every_subcommand_has_a_proof() {
    let flags = clap_flags();
    assert!(flags.len() > 70, "{flags:?}");
    let proved: Vec<(String, String)> = (PROOFS.iter())
        .map(|(c, f, _)| (c.to_string(), f.to_string()))
        .collect();
    let missing: Vec<_> = flags.iter().filter(|f| !proved.contains(f)).collect();
    let stale: Vec<_> = proved.iter().filter(|p| !flags.contains(p)).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "flags without a proof that they act: {missing:?}; proofs of no flag: {stale:?}"
    );
    let slow: Vec<_> = (PROOFS.iter())
        .filter(|(c, _, p)| matches!(p, Slow(why) if *c != "bench" || why.len() < 20))
        .collect();
    assert!(
        slow.is_empty(),
        "only bench takes minutes: {:?}",
        slow.len()
    );
}

/// What an invocation printed and wrote: exit code, stdout, stderr, and each file it left
/// in its working folder.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    files: BTreeMap<String, usize>,
}

/// Runs invocations, each in a fresh working folder, remembering each output: a proof
/// tried again (by the test of an ignored flag) costs nothing.
struct Runner {
    seen: Mutex<BTreeMap<Vec<String>, Seen>>,
    busy_port: u16,
}

impl Runner {
    fn run(&self, args: &[String]) -> Seen {
        if let Some(seen) = self.seen.lock().unwrap().get(args) {
            return seen.clone();
        }
        let dir = tempfile::tempdir().unwrap();
        let resolved: Vec<String> = args.iter().map(|a| self.resolve(a, dir.path())).collect();
        let o = match args[0] == "serve" {
            true => serve_until_listening(&resolved),
            false => (command(env!("CARGO_BIN_EXE_delivery-sim")).args(&resolved))
                .current_dir(dir.path())
                .output()
                .expect("the binary runs"),
        };
        let files = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().len() as usize,
                )
            })
            .collect();
        let seen = Seen {
            code: o.status.code(),
            stdout: untimed(&stdout(&o)),
            stderr: untimed(&stderr(&o)),
            files,
        };
        self.seen
            .lock()
            .unwrap()
            .insert(args.to_vec(), seen.clone());
        seen
    }

    /// `@path`: a file of the checkout; `{...}`: a scenario written into `dir`; `{busy}`: a
    /// port something listens on.
    fn resolve(&self, arg: &str, dir: &Path) -> String {
        if let Some(path) = arg.strip_prefix('@') {
            return root().join(path).display().to_string();
        }
        if arg == "{busy}" {
            return self.busy_port.to_string();
        }
        if arg.starts_with('{') {
            // Named relative to the working folder: the output names it the same in every
            // run.
            write(dir, "scenario.json", arg);
            return "scenario.json".into();
        }
        arg.to_string()
    }

    /// `serve`'s first line, its port masked.
    fn first_line(&self, args: &[String]) -> String {
        let o = serve_until_listening(args);
        let line = stdout(&o);
        line.chars().filter(|c| !c.is_ascii_digit()).collect()
    }
}

/// `serve ARGS`: its output up to the line that says where it listens, then stopped (exit
/// code `None`); or, refused, its whole output.
fn serve_until_listening(args: &[String]) -> std::process::Output {
    use std::io::{BufRead, Read};
    let mut child = command(env!("CARGO_BIN_EXE_delivery-sim"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let out = child.stdout.take().unwrap();
    std::io::BufReader::new(out).read_line(&mut line).unwrap();
    if !line.is_empty() {
        // Listening: it would serve until stopped.
        child.kill().unwrap();
    }
    let status = child.wait().unwrap();
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    std::process::Output {
        status,
        stdout: line.into_bytes(),
        stderr,
    }
}

/// Whether `text` names flag `long` (`--out` is not named by `--out-dir`).
fn names(text: &str, long: &str) -> bool {
    text.match_indices(long).any(|(at, _)| {
        let next = text[at + long.len()..].chars().next();
        !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// Crosscheck's timings differ from run to run: their lines are left out.
fn untimed(text: &str) -> String {
    (text.lines())
        .filter(|l| !l.contains(" ms") && !l.contains('×') && !l.contains("µs"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// `seen` without the flag's own text (an echo of it, or a hint to use it): what a flag
/// that is only echoed leaves.
fn without_echo(mut seen: Seen, flag: &[&str]) -> Seen {
    let echo = flag.join(" ");
    seen.stdout = seen.stdout.replace(&echo, "");
    seen.stderr = seen.stderr.replace(&echo, "");
    seen
}

/// A sweep's findings: its lines after the head.
fn findings(seen: &Seen) -> String {
    seen.stdout.lines().skip(1).collect::<Vec<_>>().join("\n")
}

/// Whether `proof` of flag `id` holds; `ignoring` simulates a binary that accepts the flag
/// and ignores it (its words are removed from the command line before the run).
fn holds(runner: &Runner, id: &str, proof: Proof, ignoring: bool) -> Result<(), String> {
    let long = format!("--{}", id.replace('_', "-"));
    let drop_flag = |args: Vec<String>| -> Vec<String> {
        if !ignoring {
            return args;
        }
        let at = args
            .iter()
            .position(|a| *a == long)
            .expect("the flag is given");
        let takes_value = args.get(at + 1).is_some_and(|v| !v.starts_with("--"));
        let mut args = args;
        args.drain(at..at + 1 + usize::from(takes_value));
        args
    };
    let pair = |base: &[&str], flag: &[&str]| {
        let with = drop_flag([strings(base), strings(flag)].concat());
        let (b, w) = (runner.run(&strings(base)), runner.run(&with));
        (without_echo(b, flag), without_echo(w, flag))
    };
    match proof {
        Changes { base, flag } => {
            let (b, w) = pair(base, flag);
            (b != w)
                .then_some(())
                .ok_or_else(|| format!("same output with {flag:?}: {w:?}"))
        }
        ChangesFindings { base, flag } => {
            let (b, w) = pair(base, flag);
            (findings(&b) != findings(&w))
                .then_some(())
                .ok_or_else(|| format!("same findings with {flag:?}: {}", w.stdout))
        }
        ChangesFirstLine { base, flag } => {
            let b = runner.first_line(&strings(base));
            let w = runner.first_line(&drop_flag([strings(base), strings(flag)].concat()));
            (b != w)
                .then_some(())
                .ok_or_else(|| format!("same first line with {flag:?}: {w}"))
        }
        Slow(_) => unreachable!("not tried"),
        Refused(args) | Required(args) => {
            let args = match proof {
                Refused(_) => drop_flag(strings(args)),
                _ => strings(args),
            };
            let seen = runner.run(&args);
            (seen.code == Some(2) && names(&seen.stderr, &long))
                .then_some(())
                .ok_or_else(|| format!("not refused naming {long}: {seen:?}"))
        }
    }
}

/// Tries every proof on two threads (the machine's cores), in the order of the table.
fn try_all(runner: &Runner, ignoring: bool) -> Vec<(String, Result<(), String>)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(&(command, id, proof)) = PROOFS.get(i) else {
                    break;
                };
                let ignorable = !matches!(proof, Required(_)) && command != "bench";
                if matches!(proof, Slow(_)) || (ignoring && !ignorable) {
                    continue;
                }
                let result = holds(runner, id, proof, ignoring);
                results
                    .lock()
                    .unwrap()
                    .push((i, format!("{command} --{id}"), result));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _, _)| *i);
    results.into_iter().map(|(_, name, r)| (name, r)).collect()
}

fn runner() -> (Runner, std::net::TcpListener) {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let runner = Runner {
        seen: Mutex::new(BTreeMap::new()),
        busy_port: busy.local_addr().unwrap().port(),
    };
    (runner, busy)
}

/// Every flag acts where its proof says, and each proof fails for a binary that accepts the
/// flag and ignores it: the walk would catch a flag made to do nothing.
#[test]
fn every_flag_acts_and_the_walk_catches_one_that_does_not() {
    let (runner, _busy) = runner();
    let failed: Vec<_> = (try_all(&runner, false).into_iter())
        .filter_map(|(name, r)| r.err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let unnoticed: Vec<_> = (try_all(&runner, true).into_iter())
        .filter(|(_, r)| r.is_ok())
        .map(|(name, _)| name)
        .collect();
    assert!(
        unnoticed.is_empty(),
        "proofs that still hold with the flag ignored: {unnoticed:?}"
    );
}
