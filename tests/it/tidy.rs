//! Tidy checks: invariants of ARCHITECTURE.md that the compiler does not check by itself,
//! checked by reading the source.

use crate::support::root;
use std::path::{Path, PathBuf};

pub(crate) fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The places a state fingerprint is taken: every `Fingerprint` implementation, the
/// world's and the store's.
fn fingerprint_sites(text: &str) -> Vec<usize> {
    [
        "Fingerprint for ",
        "fn fingerprint(",
        "fn fingerprint_database(",
        "fn fingerprint_digest(",
    ]
    .iter()
    .flat_map(|needle| text.match_indices(needle).map(|(i, _)| i))
    .collect()
}

/// **Exploration Invariant: a fingerprint sees every field.** Each one starts by
/// destructuring `self` with every field named (no `..`), or by matching `self` (an enum,
/// which the compiler makes exhaustive): a field added to a component does not compile
/// until its author decides, where the fingerprint is taken, whether it decides the future.
#[test]
fn every_fingerprint_destructures_its_whole_component() {
    let mut checked = 0;
    for (file, text) in source_texts() {
        for site in fingerprint_sites(&text) {
            let rest = &text[site..];
            // The trait's own declaration has no body to check.
            if rest.starts_with("fn fingerprint(&self, now: Tick, h: &mut StateHasher);") {
                continue;
            }
            let destructure = rest.find("= self;");
            let matched = rest.find("match self");
            let end = rest.find("\n}\n").unwrap_or(rest.len());
            let name = format!("{file}:{}", text[..site].lines().count() + 1);
            match (destructure, matched) {
                (Some(d), m) if m.is_none_or(|m| d < m) && d < end => {
                    let pattern = &rest[rest[..d].rfind("let ").expect("a let") + 4..d];
                    assert!(
                        !pattern.contains(".."),
                        "{name}: the fingerprint's destructure leaves fields out with `..`"
                    );
                }
                (_, Some(m)) if m < end => {}
                _ => panic!("{name}: a fingerprint that does not destructure or match `self`"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} fingerprints found");
}

/// ARCHITECTURE.md's "one definition of a failed run": a failure signature is built in
/// `check::failure` and, for a run, by `RunResult::failure` only; and no other module judges
/// a run by its stop reason (`stop != StopReason::Quiescent`) to decide that it failed.
#[test]
fn a_failed_run_is_defined_in_one_place() {
    let allowed_signature = ["src/world/mod.rs"];
    let mut built = 0;
    for (rel, text) in source_texts() {
        if text.contains("FailureSignature::of(") {
            assert!(
                allowed_signature.contains(&rel.as_str()),
                "{rel}: builds a failure signature itself; call RunResult::failure()"
            );
            built += 1;
        }
        // The checker's own unacked reasons, the world's loop and the reports' wording read
        // the stop reason to describe it; judging a failure by it is for check::failure.
        for (i, line) in text.lines().enumerate() {
            let judges = line.contains("stop != StopReason::Quiescent")
                && (line.contains("||") || line.contains("FailureKind") || line.contains("kinds"));
            assert!(
                !judges || rel == "src/check/failure.rs",
                "{rel}:{}: judges a run's failure by its stop reason outside check::failure",
                i + 1
            );
        }
    }
    assert_eq!(
        built, 1,
        "the signature of a run is built by RunResult::failure"
    );
}

/// Every source file of the library, the root crate's `src/` and each crate's under
/// `crates/`, by its module's path (`src/model/trace/mod.rs`, wherever the crate holding
/// `model` is; a crate's own `lib.rs` by its real path), with its text. The rules are
/// about modules: module names are one namespace across the crates, so they read the same
/// as before the modules moved.
pub(crate) fn source_texts() -> Vec<(String, String)> {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    for krate in std::fs::read_dir(root().join("crates")).unwrap() {
        sources(&krate.unwrap().path().join("src"), &mut files);
    }
    let mut texts: Vec<(String, String)> = (files.into_iter())
        .map(|f| (module_path(&f), std::fs::read_to_string(&f).unwrap()))
        .collect();
    texts.sort();
    texts
}

/// The path `file` is known by in the rules: relative to the repository, with the core's
/// and the library's `crates/{core,library}/src/` read as `src/` (their `lib.rs` excepted:
/// the root crate has one too), and a crate that is one module, `crates/NAME/src/`, read
/// as `src/NAME/` (its `lib.rs` as `src/NAME/mod.rs`).
fn module_path(file: &Path) -> String {
    let rel = file.strip_prefix(root()).unwrap().display().to_string();
    let Some((krate, inside)) = rel
        .strip_prefix("crates/")
        .and_then(|r| r.split_once("/src/"))
    else {
        return rel;
    };
    match (krate, inside) {
        ("core" | "library", "lib.rs") => rel,
        ("core" | "library", inside) => format!("src/{inside}"),
        (module, "lib.rs") => format!("src/{module}/mod.rs"),
        (module, inside) => format!("src/{module}/{inside}"),
    }
}

/// Whether `attrs` hold `#[cfg(test)]`: the item is test code, which the rules leave out.
pub(crate) fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Whether the source file at `rel` is a test file (`tests.rs`, or under a `tests/` folder).
pub(crate) fn is_test_file(rel: &str) -> bool {
    rel.ends_with("/tests.rs") || rel.contains("/tests/")
}

/// The code of `text`, without comments (line comments and doc comments): what the rules
/// below read, so that prose naming a module is no import of it.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where a file's production code ends: where its test module begins, if it has one.
fn production_end(lines: &[&str]) -> usize {
    lines
        .windows(2)
        .position(|w| w[0].starts_with("#[cfg(test)]") && w[1].starts_with("mod "))
        .unwrap_or(lines.len())
}

/// The top-level module a source file belongs to (`src/broker/log.rs` → `broker`).
fn module_of(rel: &str) -> &str {
    let rest = rel.trim_start_matches("src/");
    rest.split(['/', '.']).next().unwrap_or(rest)
}

/// The crate modules `text` names in code (`crate::store::…` → `store`, and `sim::queue`
/// as `sim::queue`, the scheduler's own part of `sim`).
fn crate_paths(text: &str) -> Vec<String> {
    let code = code(text);
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name == "sim" && (rest.starts_with("sim::queue") || rest.starts_with("sim::EventQueue"))
        {
            out.push("sim::queue".to_string());
        } else {
            out.push(name);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// **Architecture Invariant: actors never import each other or the scheduler.** The
/// actors and their answers' givers (`consumer`, `producer`, `relay`, `broker`, `fault`,
/// `store`) name no crate module but `model` and `sim`'s primitives (not its scheduler).
fn actor_import_violations(files: &[(String, String)]) -> Vec<String> {
    const ACTORS: [&str; 6] = ["consumer", "producer", "relay", "broker", "fault", "store"];
    let mut out = Vec::new();
    for (rel, text) in files {
        let module = module_of(rel);
        if !ACTORS.contains(&module) {
            continue;
        }
        for path in crate_paths(text) {
            if path != "model" && path != "sim" && path != module {
                out.push(format!("{rel}: actor `{module}` imports `crate::{path}`"));
            }
        }
    }
    out
}

/// **Architecture Invariant: the core crate depends on no layer outside it.** Cargo refuses
/// the core a dependency on the root crate (a cycle); this holds it to the libraries a
/// simulation needs: no other crate of ours, no command line or server, and the async
/// runtime only as the optional PostgreSQL engine's.
fn core_dependency_violations(manifest: &str) -> Vec<String> {
    const ALLOWED: [&str; 12] = [
        "base64",
        "libc",
        "rand_chacha",
        "rayon",
        "rusqlite",
        "schemars",
        "serde",
        "serde_json",
        "serde_path_to_error",
        "serde_with",
        "tempfile",
        "thiserror",
    ];
    let optional = ["tokio", "tokio-postgres"];
    dependency_violations("core", manifest, (&ALLOWED, &[]), &optional)
}

/// **Architecture Invariant: the library a user's tests depend on has no command line.**
/// `delivery-sim` (crates/library) is our three library crates and `testing`'s proptest:
/// no clap, no server, no progress bar; the binary crate at the root has those.
fn library_dependency_violations(manifest: &str) -> Vec<String> {
    let ours = [
        "delivery-sim-core",
        "delivery-sim-crosscheck",
        "delivery-sim-report",
    ];
    dependency_violations("library", manifest, (&[], &ours), &["proptest"])
}

/// The `[dependencies]` of `manifest` outside what `krate` may have: `allowed` from the
/// registry and `ours` by path, and `optional` ones only behind a feature.
fn dependency_violations(
    krate: &str,
    manifest: &str,
    (allowed, ours): (&[&str], &[&str]),
    optional: &[&str],
) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        let Some((name, spec)) = line.split_once('=').filter(|_| in_dependencies) else {
            continue;
        };
        let name = name.trim();
        if name.starts_with('#') {
            continue;
        }
        let by_path = spec.contains("path");
        let ok = if by_path {
            ours.contains(&name)
        } else {
            allowed.contains(&name)
                || (optional.contains(&name) && spec.contains("optional = true"))
        };
        if !ok {
            out.push(format!("the {krate} crate depends on `{name}`"));
        }
    }
    out
}

/// **Architecture Invariant: the store is the only module that touches SQLite**, **`report`
/// never reaches the store**, and **every connection is opened by `store::connect`** (on
/// the tool's VFS: the virtual clock, no temporary file, the counting allocator).
fn sqlite_violations(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let code = code(text);
        let module = module_of(rel);
        if module != "store" && (code.contains("rusqlite::") || code.contains("use rusqlite")) {
            out.push(format!("{rel}: uses rusqlite outside `store`"));
        }
        let lines: Vec<&str> = code.lines().collect();
        let production = lines[..production_end(&lines)].join("\n");
        if rel != "src/store/connect.rs" && production.contains("Connection::open") {
            out.push(format!(
                "{rel}: opens a connection outside `store::connect`"
            ));
        }
        if module == "report" && crate_paths(text).iter().any(|p| p == "store") {
            out.push(format!("{rel}: `report` reaches the store"));
        }
    }
    out
}

#[test]
fn the_core_crate_needs_no_outer_layer() {
    let manifest = std::fs::read_to_string(root().join("crates/core/Cargo.toml")).unwrap();
    let v = core_dependency_violations(&manifest);
    assert!(v.is_empty(), "{v:#?}");
    assert!(
        manifest.contains("[dependencies]\nrand_chacha"),
        "the section is read"
    );
    // The check catches what it is for: a command-line library, a crate of ours by path,
    // the async runtime made unconditional.
    let bad = "[dependencies]\nserde = \"1\"\nclap = \"4\"\ndelivery-sim = { path = \"../..\" }\n\
               tokio = { version = \"1\" }\ntokio-postgres = { version = \"0.7\", optional = true }\n\
               [dev-dependencies]\nproptest = \"1\"\n";
    assert_eq!(
        core_dependency_violations(bad),
        [
            "the core crate depends on `clap`",
            "the core crate depends on `delivery-sim`",
            "the core crate depends on `tokio`"
        ]
    );
}

#[test]
fn the_library_has_no_command_line() {
    let manifest = std::fs::read_to_string(root().join("crates/library/Cargo.toml")).unwrap();
    let v = library_dependency_violations(&manifest);
    assert!(v.is_empty(), "{v:#?}");
    assert!(
        manifest.contains("delivery-sim-report"),
        "the section is read"
    );
    // The check catches what it is for: a command-line library, the binary crate by path,
    // proptest made unconditional.
    let bad = "[dependencies]\ndelivery-sim-core = { path = \"../core\" }\nclap = \"4\"\n\
               delivery-sim-cli = { path = \"../..\" }\nproptest = \"1\"\n";
    assert_eq!(
        library_dependency_violations(bad),
        [
            "the library crate depends on `clap`",
            "the library crate depends on `delivery-sim-cli`",
            "the library crate depends on `proptest`"
        ]
    );
}

/// **Architecture Invariant: one executor.** Only `world` drives processes: outside it (and
/// outside each actor's own module), no code creates a process, the broker or the fault
/// injector, asks the injector for a crash, or hands a process an answer. `crosscheck` in
/// particular runs `world` and has no step logic of its own.
fn executor_violations(files: &[(String, String)]) -> Vec<String> {
    const DRIVERS: [&str; 6] = ["world", "consumer", "producer", "relay", "broker", "fault"];
    const DRIVING: [&str; 8] = [
        "FaultInjector::new",
        ".crash_at(",
        "Consumer::new",
        "Producer::new",
        "Relay::new",
        "Broker::new",
        ".handle_answer(",
        ".handle_crash(",
    ];
    let mut out = Vec::new();
    for (rel, text) in files {
        if DRIVERS.contains(&module_of(rel))
            || rel.ends_with("/tests.rs")
            || rel.contains("/tests/")
        {
            continue;
        }
        // Production code only: a unit test may drive an actor by hand.
        let lines: Vec<&str> = text.lines().collect();
        let code = code(&lines[..production_end(&lines)].join("\n"));
        for word in DRIVING {
            if code.contains(word) {
                out.push(format!("{rel}: `{word}` outside the executor"));
            }
        }
    }
    out
}

#[test]
fn only_the_world_drives_processes() {
    let v = executor_violations(&source_texts());
    assert!(v.is_empty(), "{v:#?}");
}

/// **Determinism Invariant: a run is a pure function of (scenario, seed).** No hash map or
/// set (their iteration order is random), no clock and no unseeded random number in the
/// simulation code: everything but the CLI, the reports and the benchmarks (which time
/// runs from outside), and lines marked `determinism-ok` with the reason.
fn determinism_violations(files: &[(String, String)]) -> Vec<String> {
    const OUTSIDE: [&str; 4] = ["cli", "report", "bench", "main"];
    const FORBIDDEN: [&str; 6] = [
        "HashMap",
        "HashSet",
        "Instant::now",
        "SystemTime::now",
        "thread_rng",
        "StdRng",
    ];
    let mut out = Vec::new();
    for (rel, text) in files {
        if OUTSIDE.contains(&module_of(rel)) {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            if line.contains("determinism-ok") {
                continue;
            }
            let code = code(line);
            for word in FORBIDDEN {
                if code.contains(word) {
                    out.push(format!("{rel}:{}: `{word}` in simulation code", i + 1));
                }
            }
        }
    }
    out
}

/// **PostgreSQL Invariant: nothing on the server is decided by a timer.** Whether a
/// statement is blocked is PostgreSQL's answer (`pg_isolation_test_session_is_blocked`),
/// never a wait that ran out: no sleep, no timeout and no timer in `store::pg`, but the
/// server's start-up, whose lines say `start-up-ok` with the reason.
fn timer_violations(files: &[(String, String)]) -> Vec<String> {
    const FORBIDDEN: [&str; 5] = [
        "sleep(",
        "timeout(",
        "tokio::time",
        "Instant::",
        "Duration::",
    ];
    let mut out = Vec::new();
    for (rel, text) in files
        .iter()
        .filter(|(rel, _)| rel.starts_with("src/store/pg/"))
    {
        for (i, line) in text.lines().enumerate() {
            if line.contains("start-up-ok") {
                continue;
            }
            let code = code(line);
            for word in FORBIDDEN.iter().filter(|w| code.contains(*w)) {
                out.push(format!("{rel}:{}: `{word}` decides by a timer", i + 1));
            }
        }
    }
    out
}

#[test]
fn postgres_decides_nothing_by_a_timer() {
    let v = timer_violations(&source_texts());
    assert!(v.is_empty(), "{v:#?}");
}

/// The most lines of production code a source file may have (its `#[cfg(test)] mod`, and
/// files named `tests.rs` or under a `tests/` folder, excluded), and a function (outside
/// tests).
const MAX_FILE_LINES: usize = 800;
const MAX_FUNCTION_LINES: usize = 80;

/// **Architecture Invariant: files and functions stay readable.** No production source file
/// over [`MAX_FILE_LINES`] lines and no function over [`MAX_FUNCTION_LINES`] (counted from
/// its `fn` line to its closing brace at the same indentation), with no exception.
fn size_violations(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        if rel.ends_with("/tests.rs") || rel.contains("/tests/") {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        let end = production_end(&lines);
        let mut over = Vec::new();
        if end > MAX_FILE_LINES {
            over.push(format!("{rel}: {end} lines of production code"));
        }
        for (i, line) in lines[..end].iter().enumerate() {
            let trimmed = line.trim_start();
            let indent = &line[..line.len() - trimmed.len()];
            let is_fn = trimmed.starts_with("fn ")
                || (trimmed.starts_with("pub") && trimmed.contains(" fn "))
                || trimmed.starts_with("const fn ");
            if !is_fn || trimmed.ends_with(';') {
                continue;
            }
            let close = format!("{indent}}}");
            let Some(len) = lines[i..end].iter().position(|l| *l == close) else {
                continue;
            };
            if len + 1 > MAX_FUNCTION_LINES {
                let signature = &trimmed[trimmed.find("fn ").unwrap_or(0)..];
                let name = signature.split(['(', '<']).next().unwrap_or(signature);
                over.push(format!("{rel}:{}: `{name}` is {} lines", i + 1, len + 1));
            }
        }
        out.extend(over);
    }
    out
}

#[test]
fn files_and_functions_stay_small() {
    let v = size_violations(&source_texts());
    assert!(v.is_empty(), "{v:#?}");
}

#[test]
fn actors_import_only_the_model_and_the_simulation_primitives() {
    let v = actor_import_violations(&source_texts());
    assert!(v.is_empty(), "{v:#?}");
}

#[test]
fn only_the_store_touches_sqlite_and_reports_never_reach_it() {
    let v = sqlite_violations(&source_texts());
    assert!(v.is_empty(), "{v:#?}");
}

#[test]
fn simulation_code_has_no_hash_iteration_clock_or_unseeded_randomness() {
    let v = determinism_violations(&source_texts());
    assert!(v.is_empty(), "{v:#?}");
}

/// Each rule catches a deliberate violation (and not the same words in a comment).
#[test]
fn each_tidy_rule_catches_a_violation() {
    // The sizes follow the ceilings, so lowering one keeps the self-test true.
    let long_fn = format!("`fn long` is {} lines", MAX_FUNCTION_LINES + 2);
    let long_file = format!("{} lines of production code", MAX_FILE_LINES + 1);
    let file = |rel: &str, text: &str| vec![(rel.to_string(), text.to_string())];
    let bad = [
        (
            actor_import_violations(&file("src/consumer/mod.rs", "use crate::store::Store;")),
            "actor `consumer` imports `crate::store`",
        ),
        (
            actor_import_violations(&file(
                "src/broker/log.rs",
                "let q: crate::sim::queue::EventQueue<u8>;",
            )),
            "imports `crate::sim::queue`",
        ),
        (
            actor_import_violations(&file(
                "src/relay/mod.rs",
                "fn f(w: &crate::world::RunResult) {}",
            )),
            "imports `crate::world`",
        ),
        (
            executor_violations(&file(
                "src/crosscheck/mod.rs",
                "let f = FaultInjector::new(plan, 7);",
            )),
            "`FaultInjector::new` outside the executor",
        ),
        (
            executor_violations(&file(
                "src/crosscheck/child.rs",
                "consumer.handle_answer(r);",
            )),
            "`.handle_answer(` outside the executor",
        ),
        (
            timer_violations(&file(
                "src/store/pg/session.rs",
                "std::thread::sleep(std::time::Duration::from_millis(10));",
            )),
            "decides by a timer",
        ),
        (
            sqlite_violations(&file("src/check/mod.rs", "use rusqlite::Connection;")),
            "uses rusqlite outside `store`",
        ),
        (
            sqlite_violations(&file("src/report/text.rs", "use crate::store::Store;")),
            "`report` reaches the store",
        ),
        (
            sqlite_violations(&file(
                "src/store/schema.rs",
                "let c = Connection::open_in_memory()?;",
            )),
            "opens a connection outside `store::connect`",
        ),
        (
            determinism_violations(&file(
                "src/world/mod.rs",
                "let m = std::collections::HashMap::new();",
            )),
            "`HashMap` in simulation code",
        ),
        (
            determinism_violations(&file(
                "src/sim/queue.rs",
                "let t = std::time::Instant::now();",
            )),
            "`Instant::now` in simulation code",
        ),
        (
            size_violations(&file(
                "src/world/mod.rs",
                &("fn long() {\n".to_string()
                    + &"    step();\n".repeat(MAX_FUNCTION_LINES)
                    + "}\n"),
            )),
            long_fn.as_str(),
        ),
        (
            size_violations(&file(
                "src/check/mod.rs",
                &"// a line\n".repeat(MAX_FILE_LINES + 1),
            )),
            long_file.as_str(),
        ),
    ];
    for (found, expected) in bad {
        assert!(
            found.iter().any(|v| v.contains(expected)),
            "expected `{expected}`, found {found:?}"
        );
    }
    let fine = [
        actor_import_violations(&file(
            "src/consumer/mod.rs",
            "//! Unlike [`crate::store`].\nuse crate::model::Step;",
        )),
        sqlite_violations(&file("src/store/mod.rs", "use rusqlite::Connection;")),
        determinism_violations(&file(
            "src/cli/mod.rs",
            "let t = std::time::Instant::now();",
        )),
        determinism_violations(&file("src/world/mod.rs", "// no HashMap: order matters")),
        executor_violations(&file(
            "src/world/crash.rs",
            "self.consumers[c].handle_crash();",
        )),
        executor_violations(&file(
            "src/crosscheck/mod.rs",
            "#[cfg(test)]\nmod tests {\n    let c = Consumer::new(p);\n}",
        )),
    ];
    for found in fine {
        assert!(found.is_empty(), "{found:?}");
    }
}
