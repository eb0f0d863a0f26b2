//! The committed JSON Schemas (`docs/schema/`) against real outputs of the binary: every
//! scenario file validates against the scenario file's schema, every command's `--json`
//! against its output's, and a field renamed anywhere in an output fails validation.
//!
//! `cargo test` validates `run DIR` over every scenario file and one invocation of each
//! other command and mode; with `DS_SCHEMA_EVERY_FILE=1` (`.ci/run`, in release) every
//! command runs on every scenario file it accepts.

use crate::support::{self, bin, json, root, scenario_files, stdout};
use serde_json::Value;

/// The validator of `docs/schema/NAME.schema.json`.
pub fn validator(name: &str) -> jsonschema::Validator {
    let path = root().join(format!("docs/schema/{name}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::meta::validate(&schema).unwrap_or_else(|e| panic!("{name}: not a schema: {e}"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every way `value` breaks the schema, as `path: message` lines.
pub fn errors(v: &jsonschema::Validator, value: &Value) -> Vec<String> {
    v.iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[track_caller]
fn assert_valid(schema: &str, what: &str, value: &Value) {
    let errors = errors(&validator(schema), value);
    assert!(
        errors.is_empty(),
        "{what} does not validate against {schema}.schema.json:\n{}",
        errors.join("\n")
    );
}

/// Every object in `value` (depth first) with the path to it: the places a field can be
/// renamed.
fn objects(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(o) => {
            if !o.is_empty() {
                out.push(at.clone());
            }
            for (k, v) in o {
                objects(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                objects(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// `value` with the first field of the object at `pointer` renamed (`x` → `x_renamed`).
fn renamed(value: &Value, pointer: &str) -> Value {
    let mut v = value.clone();
    let object = v
        .pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .unwrap();
    let (key, field) = object
        .iter()
        .next()
        .map(|(k, f)| (k.clone(), f.clone()))
        .unwrap();
    object.remove(&key);
    object.insert(format!("{key}_renamed"), field);
    v
}

/// The output validates, and renaming one field of any of its objects (the top level, and
/// up to `samples` nested ones spread over the document) does not.
#[track_caller]
fn assert_valid_and_strict(schema: &str, what: &str, value: &Value, samples: usize) {
    assert_valid(schema, what, value);
    let v = validator(schema);
    let mut places = Vec::new();
    objects(value, String::new(), &mut places);
    let step = (places.len() / samples.max(1)).max(1);
    for place in places.iter().step_by(step) {
        assert!(
            !errors(&v, &renamed(value, place)).is_empty(),
            "{what}: a field renamed in the object at `{place}` still validates against \
             {schema}.schema.json"
        );
    }
}

/// Runs the binary and returns its JSON output; the exit code is the command's to give
/// (0 or 1), never a usage error.
fn output(args: &[&str]) -> Value {
    let o = bin(args);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{args:?}: {:?}\n{}",
        o.status,
        support::stderr(&o)
    );
    json(&o)
}

#[test]
fn every_scenario_file_validates_and_a_misspelt_field_does_not() {
    let v = validator("scenario");
    for file in scenario_files() {
        let spec = support::spec(&file);
        let errors = errors(&v, &spec);
        assert!(errors.is_empty(), "{file}:\n{}", errors.join("\n"));
    }
    // What the loader accepts in another form than the files use, the schema accepts.
    let mut one = support::spec("scenarios/inbox-crash-between-commit-and-ack.json");
    let first = one["expect"]["explore"][0].clone();
    assert!(first.is_object(), "the file pins a list of depths");
    one["expect"]["explore"] = first;
    delivery_sim::scenario::Scenario::from_json(&one.to_string(), "one.json").unwrap();
    let errors_one = errors(&v, &one);
    assert!(errors_one.is_empty(), "{}", errors_one.join("\n"));
    // A field the loader refuses is refused by the schema too, at any depth.
    let spec = support::spec("scenarios/inbox-retention-ttl-covers-crashes.json");
    let mut places = Vec::new();
    objects(&spec, String::new(), &mut places);
    assert!(places.len() > 3, "{places:?}");
    for place in places {
        let wrong = renamed(&spec, &place);
        assert!(
            !errors(&v, &wrong).is_empty(),
            "renamed at `{place}`: still valid"
        );
        support::refused(&wrong);
    }
}

#[test]
fn run_dir_validates_over_every_scenario_file() {
    let (_, out, _) = support::scenarios_folder_run();
    assert_valid_and_strict("run-folder", "run scenarios/ --json", out, 40);
}

#[test]
fn run_and_replay_validate() {
    for file in [
        "scenarios/inbox-retention-ttl-covers-crashes.json",
        "scenarios/autocommit-read-modify-write-lost-update.json",
        "scenarios/ack-first-crash-after-ack.json",
    ] {
        let out = output(&["run", file, "--json"]);
        assert!(
            out["checks"].is_array(),
            "{file}: run FILE lists its checks"
        );
        assert_valid_and_strict("run", file, &out, 30);
    }
    let sweep = output(&[
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "2",
        "--seeds",
        "0..3",
        "--json",
        "--shrink-findings",
        "1",
    ]);
    let finding = &sweep["findings"][0];
    for token in [&finding["token"], &finding["shrunk"]["token"]] {
        let out = output(&["replay", token.as_str().unwrap(), "--json"]);
        assert_valid_and_strict("run", "replay --json", &out, 30);
    }
}

#[test]
fn explore_in_every_mode_validates() {
    let file = "scenarios/inbox-crash-between-commit-and-ack.json";
    for depth in ["1", "2"] {
        let out = output(&["explore", file, "--depth", depth, "--json"]);
        assert_valid_and_strict("explore", &format!("explore --depth {depth}"), &out, 30);
    }
    let out = output(&[
        "explore",
        "--protocol",
        "ack-first",
        "--events",
        "2",
        "--json",
        "--no-prune",
    ]);
    assert_valid_and_strict("explore", "explore --no-prune", &out, 30);
    let file = "scenarios/autocommit-read-modify-write-lost-update.json";
    let out = output(&[
        "explore",
        file,
        "--interleavings",
        "--with-crashes",
        "--json",
    ]);
    assert_eq!(
        out["summary"]["runs"],
        out["runs"].as_array().unwrap().len()
    );
    assert_valid_and_strict("explore-interleavings", "explore --interleavings", &out, 30);
    let file = "scenarios/inbox-retention-ttl-shorter-than-window.json";
    let out = output(&["explore", file, "--smallest-safe-ttl", "--json"]);
    assert_valid_and_strict("explore-smallest-safe-ttl", file, &out, 30);
}

#[test]
fn matrix_sweep_crosscheck_and_protocols_validate() {
    let out = output(&["matrix", "--events", "1", "--depth", "1", "--json"]);
    assert_valid_and_strict("matrix", "matrix --json", &out, 30);

    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("findings.jsonl");
    let args = [
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "3",
        "--seeds",
        "0..6",
        "--shrink-findings",
        "2",
        "--json",
        "--out",
        lines.to_str().unwrap(),
    ];
    let out = output(&args);
    let findings = out["findings"].as_array().unwrap();
    assert!(findings.len() > 2, "{out}");
    assert_eq!(out["summary"]["findings"], findings.len());
    assert!(findings[0]["shrunk"]["scenario_file"].is_object());
    assert_valid_and_strict("sweep", "sweep --json", &out, 40);
    // The --out file holds the same findings, one document per line.
    let text = std::fs::read_to_string(&lines).unwrap();
    for (line, finding) in text.lines().zip(findings) {
        let mut line: Value = serde_json::from_str(line).unwrap();
        assert_valid_and_strict("sweep-finding", "a line of sweep --out", &line, 20);
        line.as_object_mut().unwrap().remove("schema_version");
        assert_eq!(&line, finding);
    }
    assert_eq!(text.lines().count(), findings.len());

    let out = output(&[
        "crosscheck",
        "--protocol",
        "inbox",
        "--events",
        "1",
        "--json",
    ]);
    assert_valid_and_strict("crosscheck", "crosscheck --json", &out, 20);

    let out = output(&["protocols", "--json"]);
    assert_eq!(out["protocols"].as_array().unwrap().len(), 7, "{out}");
    assert_valid_and_strict("protocols", "protocols --json", &out, 10);
}

#[test]
fn every_document_says_its_schema_version() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/schema/run.schema.json")).unwrap(),
    )
    .unwrap();
    let version = &schema["$defs"]["SchemaVersion"]["const"];
    let out = json(&bin(&["run", "--protocol", "inbox", "--json"]));
    assert_eq!(&out["schema_version"], version);
    let wrong = {
        let mut o = out.clone();
        o["schema_version"] = (version.as_u64().unwrap() + 1).into();
        o
    };
    assert!(!errors(&validator("run"), &wrong).is_empty());
    let text = stdout(&bin(&["run", "--protocol", "inbox", "--json"]));
    assert!(text.starts_with("{\n  \"schema_version\": "), "{text}");
}

/// `DS_SCHEMA_EVERY_FILE=1`: every command's `--json` on every scenario file it accepts.
#[test]
fn with_ds_schema_every_file_every_command_validates_on_every_file() {
    if std::env::var_os("DS_SCHEMA_EVERY_FILE").is_none() {
        return;
    }
    for file in scenario_files() {
        let spec = support::spec(&file);
        let mut runs: Vec<(&str, Vec<&str>)> = vec![
            ("run", vec!["run", &file, "--json"]),
            ("explore", vec!["explore", &file, "--json"]),
            ("sweep", vec!["sweep", &file, "--seeds", "0..4", "--json"]),
        ];
        if spec["consumers"].as_u64().unwrap_or(1) > 1 {
            runs.push((
                "explore-interleavings",
                vec!["explore", &file, "--interleavings", "--json"],
            ));
        }
        if spec["store"]["inbox_ttl_ticks"].is_u64() {
            runs.push((
                "explore-smallest-safe-ttl",
                vec![
                    "explore",
                    &file,
                    "--smallest-safe-ttl",
                    "--depth",
                    "0",
                    "--json",
                ],
            ));
        }
        runs.push(("crosscheck", vec!["crosscheck", &file, "--json"]));
        for (schema, args) in runs {
            let o = bin(&args);
            match o.status.code() {
                Some(0 | 1) => assert_valid(schema, &format!("{args:?}"), &json(&o)),
                // Refused for this file (crosscheck's one consumer, explore's bounds): the
                // refusal is tested elsewhere.
                Some(2) => {}
                other => panic!("{args:?}: {other:?}\n{}", support::stderr(&o)),
            }
        }
    }
}

/// An interrupted `sweep --json` still prints one whole document: the findings so far and
/// a summary that says so, with the command that resumes it.
#[cfg(unix)]
#[test]
fn an_interrupted_sweep_still_prints_a_valid_document() {
    use std::io::{BufRead, Read};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_delivery-sim"))
        .args(["sweep", "--protocol", "no-dedup", "--events", "5"])
        .args(["--seeds", "0..10000000", "--json", "--no-shrink"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    // The first finding is written when its chunk ends: interrupt then.
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "ended early: {text}"
        );
        text.push_str(&line);
        if line.starts_with("{\"seed\"") {
            break;
        }
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    reader.read_to_string(&mut text).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let out: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(out["summary"]["interrupted"], true);
    assert!(out["summary"]["resume"]
        .as_str()
        .unwrap()
        .contains("--json"));
    assert_valid("sweep", "an interrupted sweep --json", &out);
}

#[test]
fn explain_validates() {
    for (file, lang) in [
        ("scenarios/ack-first-crash-after-ack.json", "en"),
        ("scenarios/inbox-crash-between-commit-and-ack.json", "es"),
    ] {
        let out = output(&["explain", file, "--json", "--lang", lang]);
        assert_eq!(out["lang"], lang, "{file}");
        assert!(
            out["failure_points"]
                .as_array()
                .is_some_and(|p| !p.is_empty()),
            "{file}"
        );
        assert_valid_and_strict("explain", file, &out, 30);
    }
}

/// The shape of a property in a schema: its type, the definition it refers to, or the shape
/// of its items; `null` left out of a nullable one.
fn shape(v: &Value) -> String {
    if let Some(r) = v.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap().to_string();
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(list) = v.get(key).and_then(Value::as_array) {
            let shapes: Vec<String> = (list.iter().map(shape)).filter(|s| s != "null").collect();
            return shapes.join("|");
        }
    }
    match &v["type"] {
        Value::Array(types) => {
            let types: Vec<&str> = (types.iter().filter_map(Value::as_str))
                .filter(|t| *t != "null")
                .collect();
            match types.as_slice() {
                ["array"] => format!("[{}]", shape(&v["items"])),
                _ => types.join("|"),
            }
        }
        Value::String(t) if t == "array" => format!("[{}]", shape(&v["items"])),
        Value::String(t) => t.clone(),
        _ => "any".into(),
    }
}

/// Every (property name, shape, where) of an output schema, its definitions included; the
/// scenario file's own types (`Raw…`, `…Expect`, which a finding embeds as the file's
/// format) are the input's vocabulary, checked by the scenario schema.
fn properties(schema: &Value, file: &str, out: &mut Vec<(String, String, String)>) {
    fn walk(v: &Value, at: &str, out: &mut Vec<(String, String, String)>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    for (name, p) in props {
                        out.push((name.clone(), shape(p), at.to_string()));
                    }
                }
                for (k, child) in o {
                    if k != "$defs" {
                        walk(child, at, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, at, out)),
            _ => {}
        }
    }
    walk(schema, file, out);
    for (name, def) in schema["$defs"].as_object().into_iter().flatten() {
        let input = name.starts_with("Raw") || name.ends_with("Expect") || name == "ScenarioFile";
        if !(input || name == "OneOrMany") {
            walk(def, &format!("{file}#{name}"), out);
        }
    }
}

/// What a shape says to a reader: words (`text`); a flag of one item, a count or a list of
/// many (`many`: `dead_lettered` is a flag on an event and a count on a run, `runs` a list
/// in a document and a count in its summary, as a scenario file pins `expect.explore.runs`);
/// or a typed value (an enum or an object: one document's `summary` is not another's).
fn kind(shape: &str) -> &'static str {
    match shape {
        "string" => "text",
        "boolean" | "integer" | "number" => "many",
        s if s.starts_with('[') => "many",
        _ => "typed",
    }
}

/// One name, one kind of shape, across every output schema (issue 33, item 3): `confirmed`
/// is never words here and an object there, `at` never a string here and a boundary there;
/// and one name per list of a type (`protocol_steps`, never also `steps`). Two names of one
/// concept (`once` and `exactly_once`) are refused by name.
#[test]
fn every_output_schema_names_and_shapes_each_concept_one_way() {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(root().join("docs/schema")).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if file == "scenario.schema.json" {
            continue;
        }
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        properties(&schema, &file, &mut all);
    }
    let clashes = concept_clashes(&all);
    assert!(clashes.is_empty(), "{}", clashes.join("\n"));
    // The test catches each kind of clash, made up.
    let made_up = |name: &str, shape: &str| {
        let mut broken = all.clone();
        broken.push((name.into(), shape.into(), "made-up".into()));
        concept_clashes(&broken)
    };
    assert!(
        !made_up("confirmed", "string").is_empty(),
        "words where an object is"
    );
    assert!(
        !made_up("steps", "[Step]").is_empty(),
        "a second name for the protocol's steps"
    );
    assert!(
        !made_up("exactly_once", "integer").is_empty(),
        "a second name for once"
    );
}

/// Every way `all` names or shapes one concept two ways, as lines saying where.
fn concept_clashes(all: &[(String, String, String)]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut kinds: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    let mut lists: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (name, shape, at) in all {
        kinds
            .entry(name)
            .or_default()
            .entry(kind(shape))
            .or_insert(at);
        let typed_list = shape.starts_with('[') && shape[1..2].chars().all(char::is_uppercase);
        if typed_list {
            lists.entry(shape).or_default().insert(name);
        }
    }
    let mut clashes: Vec<String> = (kinds.iter())
        .filter(|(_, k)| k.len() > 1)
        .map(|(name, k)| format!("`{name}` is shaped several ways: {k:?}"))
        .collect();
    clashes.extend(
        (lists.iter())
            .filter(|(_, names)| names.len() > 1)
            .map(|(shape, names)| format!("{shape} is named several ways: {names:?}")),
    );
    // Two names of one concept.
    for (one, other) in [
        ("once", "exactly_once"),
        ("wrong_effect", "wrong_effects"),
        ("shrunk_findings", "shrunk_count"),
    ] {
        if kinds.contains_key(one) && kinds.contains_key(other) {
            clashes.push(format!("`{one}` and `{other}` name one concept"));
        }
    }
    clashes
}
