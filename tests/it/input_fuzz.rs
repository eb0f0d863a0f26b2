//! Mutated scenario files, in process and through the real binary: every scenario of
//! `scenarios/` is mutated (a field removed, retyped, set to an edge or out-of-range number,
//! a key written twice, a value nested deeply, the text truncated, bytes that are not UTF-8
//! inserted, a subtree replaced by arbitrary JSON) and loaded. Each input either loads and
//! then runs without panicking (within clamped limits), or is refused with one line naming
//! the file and a location or a field. No input panics the loader or a run.
//!
//! The cases are drawn with a fixed proptest seed (as `properties.rs` does), so CI checks
//! the same inputs every time; `PROPTEST_RNG_SEED=N` draws others. The `cargo fuzz` target
//! in `fuzz/` searches the same loader without a budget of cases.

use super::support::*;
use delivery_sim::scenario::problem::{Problem, Read};
use delivery_sim::{run, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

fn config(cases: u32) -> ProptestConfig {
    fixed_proptest(
        cases,
        "proptest-regressions/input_fuzz.txt",
        0x0bad_f00d_5eed,
    )
}

/// The scenario files as parsed JSON, in name order.
fn scenarios() -> Vec<(String, Value)> {
    scenario_files()
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(root().join(&f)).unwrap();
            (f, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// A path into a JSON value: object keys and array indices.
#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                prefix.push(Seg::Key(k.clone()));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(Seg::Index(i));
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn at<'v>(v: &'v mut Value, path: &[Seg]) -> &'v mut Value {
    path.iter().fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get_mut(k.as_str()).unwrap(),
        Seg::Index(i) => v.get_mut(*i).unwrap(),
    })
}

/// What is done to a scenario.
#[derive(Clone, Debug)]
enum Mutation {
    /// Remove the field (or array element) at the path.
    Remove,
    /// Replace the value with one of another type.
    Retype(Value),
    /// Replace the value with this number, written as is (it may be out of every range:
    /// `18446744073709551616`, `1e999`, `-0`).
    Number(&'static str),
    /// Write the first key of the object at (or containing) the path twice.
    DuplicateKey,
    /// Wrap the value in this many arrays.
    Nest(usize),
    /// Replace the value with an arbitrary JSON value.
    Arbitrary(Value),
    /// Cut the text at this fraction (per mille) of its length.
    Truncate(u16),
    /// Insert bytes that are not UTF-8 at this fraction (per mille) of the text.
    NotUtf8(u16, &'static [u8]),
    /// Rename the key at the path (control characters, quotes and backslashes included:
    /// the fuzz target found a newline in a key breaking the one-line error).
    RenameKey(String),
}

impl Mutation {
    fn kind(&self) -> &'static str {
        match self {
            Mutation::Remove => "remove a field",
            Mutation::Retype(_) => "retype a value",
            Mutation::Number(_) => "edge or out-of-range number",
            Mutation::DuplicateKey => "duplicate key",
            Mutation::Nest(_) => "deep nesting",
            Mutation::Arbitrary(_) => "arbitrary JSON subtree",
            Mutation::Truncate(_) => "truncation",
            Mutation::NotUtf8(..) => "non-UTF-8 bytes",
            Mutation::RenameKey(_) => "renamed key",
        }
    }
}

/// Numbers at and past the bounds and the integer types' edges.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "-0",
    "0.5",
    "1e3",
    "1000",
    "1001",
    "10000",
    "10001",
    "1000000",
    "1000001",
    "1000000000",
    "1000000001",
    "10000000",
    "10000001",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "1e999",
    "-1e999",
];

const NOT_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xc0\xaf",
    b"\x80",
];

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z_:0-9 ]{0,12}".prop_map(Value::from),
        Just(Value::from("after:commit")),
        Just(Value::from("inbox")),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => Just(Mutation::Remove),
        3 => prop::sample::select(vec![
            Value::Null,
            Value::Bool(true),
            Value::from("text"),
            Value::from(-1),
            Value::from(1.5),
            Value::Array(vec![]),
            Value::Object(Default::default()),
            Value::from("after:ack"),
        ])
        .prop_map(Mutation::Retype),
        4 => prop::sample::select(NUMBERS).prop_map(Mutation::Number),
        2 => Just(Mutation::DuplicateKey),
        1 => prop::sample::select(vec![10usize, 126, 127, 128, 129, 1_000, 100_000])
            .prop_map(Mutation::Nest),
        2 => arbitrary_json().prop_map(Mutation::Arbitrary),
        1 => (0u16..1000).prop_map(Mutation::Truncate),
        1 => (0u16..1000, prop::sample::select(NOT_UTF8)).prop_map(|(at, b)| Mutation::NotUtf8(at, b)),
        1 => "[a-z_\\n\\t\\r\\x1b\\x00\"\\\\é]{0,12}".prop_map(Mutation::RenameKey),
    ]
}

/// A JSON value's text, with `marker` (a string value) replaced by `raw` and the object at
/// `dup` (if any) writing its first key twice.
fn render(v: &Value, dup: Option<&[Seg]>, out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            let mut first = true;
            if dup.is_some_and(|d| d.is_empty()) {
                if let Some((k, child)) = m.iter().next() {
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    render(child, None, out);
                    first = false;
                }
            }
            for (k, child) in m {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                let sub = dup.and_then(|d| match d.first() {
                    Some(Seg::Key(dk)) if dk == k => Some(&d[1..]),
                    _ => None,
                });
                render(child, sub, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, child) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let sub = dup.and_then(|d| match d.first() {
                    Some(Seg::Index(di)) if *di == i => Some(&d[1..]),
                    _ => None,
                });
                render(child, sub, out);
            }
            out.push(']');
        }
        leaf => out.push_str(&serde_json::to_string(leaf).unwrap()),
    }
}

const MARKER: &str = "\u{1}raw\u{1}";

/// The mutated file's bytes.
fn mutate(scenario: &Value, pick: prop::sample::Index, m: &Mutation) -> Vec<u8> {
    let mut v = scenario.clone();
    let mut all = Vec::new();
    paths(&v, &mut Vec::new(), &mut all);
    let path = pick.get(&all).clone();
    let text = |v: &Value, dup: Option<&[Seg]>| {
        let mut out = String::new();
        render(v, dup, &mut out);
        out
    };
    match m {
        Mutation::Remove => {
            let (last, parent) = path.split_last().unwrap();
            match (at(&mut v, parent), last) {
                (Value::Object(o), Seg::Key(k)) => {
                    o.remove(k);
                }
                (Value::Array(a), Seg::Index(i)) => {
                    a.remove(*i);
                }
                _ => unreachable!(),
            }
            text(&v, None).into_bytes()
        }
        Mutation::RenameKey(name) => {
            let (last, parent) = path.split_last().unwrap();
            if let (Value::Object(o), Seg::Key(k)) = (at(&mut v, parent), last) {
                let value = o.remove(k).unwrap();
                o.insert(name.clone(), value);
            }
            text(&v, None).into_bytes()
        }
        Mutation::Retype(new) | Mutation::Arbitrary(new) => {
            *at(&mut v, &path) = new.clone();
            text(&v, None).into_bytes()
        }
        Mutation::Number(raw) => {
            *at(&mut v, &path) = Value::from(MARKER);
            let marker = serde_json::to_string(MARKER).unwrap();
            text(&v, None).replace(&marker, raw).into_bytes()
        }
        Mutation::Nest(depth) => {
            let inner = std::mem::take(at(&mut v, &path));
            *at(&mut v, &path) = Value::from(MARKER);
            let marker = serde_json::to_string(MARKER).unwrap();
            let nested = format!(
                "{}{}{}",
                "[".repeat(*depth),
                serde_json::to_string(&inner).unwrap(),
                "]".repeat(*depth)
            );
            text(&v, None).replace(&marker, &nested).into_bytes()
        }
        Mutation::DuplicateKey => {
            // The object at the path, or the one that contains it.
            let mut target = path.clone();
            while !at(&mut v, &target).is_object() {
                target.pop();
            }
            text(&v, Some(&target)).into_bytes()
        }
        Mutation::Truncate(per_mille) => {
            let t = text(&v, None);
            let mut cut = t.len() * usize::from(*per_mille) / 1000;
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t.as_bytes()[..cut].to_vec()
        }
        Mutation::NotUtf8(per_mille, bytes) => {
            let t = text(&v, None).into_bytes();
            let at = t.len() * usize::from(*per_mille) / 1000;
            let mut out = t[..at].to_vec();
            out.extend_from_slice(bytes);
            out.extend_from_slice(&t[at..]);
            out
        }
    }
}

/// Loads `bytes` as the file `origin` would be (through `from_file` when they are not
/// UTF-8), catching panics.
fn load(bytes: &[u8], dir: &std::path::Path) -> Result<Result<Scenario, String>, String> {
    let origin = "mutant.json";
    let outcome = catch_unwind(AssertUnwindSafe(|| match std::str::from_utf8(bytes) {
        Ok(text) => Scenario::from_json(text, origin),
        Err(_) => {
            let path = dir.join(origin);
            std::fs::write(&path, bytes).unwrap();
            Scenario::from_file(&path).map_err(|mut e| {
                e.origin = origin.to_string();
                e
            })
        }
    }))
    .map_err(|_| "the loader panicked".to_string())?;
    Ok(outcome.map_err(|e| {
        let line = en(&e);
        assert!(
            e.location.is_some() || e.field.as_deref().is_some_and(|f| !f.is_empty()),
            "the error names no location and no field: {line}"
        );
        line
    }))
}

/// The refusal is one line naming the file, a location or a field, and a reason.
fn check_refusal(line: &str) -> Result<(), TestCaseError> {
    prop_assert!(!line.contains('\n'), "one line: {line}");
    prop_assert!(
        line.starts_with("invalid scenario mutant.json"),
        "names the file: {line}"
    );
    prop_assert!(
        line.contains(" at line ") || line.contains(", field `"),
        "names a location or a field: {line}"
    );
    prop_assert!(
        line.split(": ")
            .nth(1)
            .is_some_and(|m| !m.trim().is_empty()),
        "says why: {line}"
    );
    Ok(())
}

/// Runs a loaded mutant with its limits clamped (a mutant may legally ask for ten million
/// steps; the step and tick limits themselves are what is under test there).
fn run_clamped(mut s: Scenario) -> Result<(), String> {
    s.limits.max_steps = s.limits.max_steps.min(20_000);
    s.limits.max_ticks = s.limits.max_ticks.min(2_000_000);
    catch_unwind(AssertUnwindSafe(|| {
        let r = run(&s);
        // The faulty phase and the healing phase have max_steps each.
        assert!(r.steps <= 2 * s.limits.max_steps);
    }))
    .map_err(|_| format!("the run of a loaded mutant panicked: {s:?}"))
}

#[derive(Default)]
struct Tally {
    loaded: u64,
    refused: u64,
}

fn report(what: &str, tally: &BTreeMap<&'static str, Tally>) {
    let (l, r): (u64, u64) = tally
        .values()
        .fold((0, 0), |(l, r), t| (l + t.loaded, r + t.refused));
    eprintln!("{what}: {} cases, {l} loaded (and ran), {r} refused", l + r);
    for (kind, t) in tally {
        eprintln!(
            "  {kind:<28} {:>4} loaded {:>4} refused",
            t.loaded, t.refused
        );
    }
}

#[test]
fn mutated_scenarios_load_or_are_refused_with_a_location_and_never_panic() {
    let scenarios = scenarios();
    let dir = tempfile::tempdir().unwrap();
    let tally: RefCell<BTreeMap<&'static str, Tally>> = RefCell::default();
    // What the loader accepts, the committed scenario schema accepts: an editor checking
    // files against it never flags a file the tool runs.
    let schema = crate::schema::validator("scenario");
    let mut runner = TestRunner::new(config(4096));
    runner
        .run(
            &(0..scenarios.len(), any::<prop::sample::Index>(), mutation()),
            |(file, pick, m)| {
                let bytes = mutate(&scenarios[file].1, pick, &m);
                let loaded = load(&bytes, dir.path()).map_err(TestCaseError::fail)?;
                let mut tally = tally.borrow_mut();
                let t = tally.entry(m.kind()).or_default();
                match loaded {
                    Ok(s) => {
                        t.loaded += 1;
                        let value: Value = serde_json::from_slice(&bytes).expect("it loaded");
                        let errors = crate::schema::errors(&schema, &value);
                        prop_assert!(errors.is_empty(), "loaded, yet {errors:?}");
                        run_clamped(s).map_err(TestCaseError::fail)?;
                    }
                    Err(line) => {
                        t.refused += 1;
                        check_refusal(&line)?;
                    }
                }
                Ok(())
            },
        )
        .unwrap();
    let tally = tally.into_inner();
    report("in process", &tally);
    // Every kind of mutation was drawn, and both outcomes happen: a test that only ever
    // refused (or only loaded) would not be testing what it says.
    assert_eq!(tally.len(), 9, "every kind of mutation was drawn");
    assert!(tally.values().map(|t| t.loaded).sum::<u64>() > 100);
    assert!(tally.values().map(|t| t.refused).sum::<u64>() > 100);
}

#[test]
fn the_binary_exits_0_1_or_2_on_mutated_scenarios_with_one_paragraph_and_no_panic() {
    let scenarios = scenarios();
    let dir = tempfile::tempdir().unwrap();
    let tally: RefCell<BTreeMap<&'static str, Tally>> = RefCell::default();
    let mut runner = TestRunner::new(config(48));
    runner
        .run(
            &(0..scenarios.len(), any::<prop::sample::Index>(), mutation()),
            |(file, pick, m)| {
                let bytes = mutate(&scenarios[file].1, pick, &m);
                // The binary runs a loaded mutant with its own limits: skip the ones that
                // could legally run for minutes (their loading is tested in process).
                if let Ok(Ok(s)) = load(&bytes, dir.path()) {
                    if s.limits.max_steps > 200_000 || s.workload.events > 200 {
                        return Ok(());
                    }
                }
                let path = dir.path().join("mutant.json");
                std::fs::write(&path, &bytes).unwrap();
                let path = path.display().to_string();
                let o = bin(&["run", &path]);
                let err = String::from_utf8_lossy(&o.stderr).to_string();
                prop_assert!(!err.contains("panicked"), "{err}");
                let mut tally = tally.borrow_mut();
                let t = tally.entry(m.kind()).or_default();
                match o.status.code() {
                    Some(0 | 1) => {
                        t.loaded += 1;
                        prop_assert!(!o.stdout.is_empty());
                    }
                    Some(2) => {
                        t.refused += 1;
                        prop_assert!(o.stdout.is_empty());
                        prop_assert_eq!(err.trim_end().lines().count(), 1, "{}", err);
                        let line = err.trim_end().strip_prefix("error: ").unwrap_or(&err);
                        check_refusal(&line.replace(&path, "mutant.json"))?;
                    }
                    other => prop_assert!(false, "exit code {other:?}: {err}"),
                }
                Ok(())
            },
        )
        .unwrap();
    let tally = tally.into_inner();
    report("through the binary", &tally);
    assert!(tally.values().map(|t| t.loaded + t.refused).sum::<u64>() >= 24);
}

#[test]
fn a_repeated_key_is_refused_even_where_serde_would_keep_the_last() {
    // `expect.boundaries` is a map: serde alone would check only the second expectation.
    let text = r#"{"protocol": "inbox",
      "expect": {"boundaries": {"ledger_per_event": {"lost": 0},
                                "ledger_per_event": {"lost": 1}}}}"#;
    let e = Scenario::from_json(text, "dup.json").unwrap_err();
    assert_eq!(
        e.field.as_deref(),
        Some("expect.boundaries.ledger_per_event")
    );
    assert_eq!(e.location.map(|l| l.0), Some(3));
    assert_eq!(
        *e.problem,
        Problem::Read(Read::DuplicateKey {
            key: "ledger_per_event".into()
        }),
        "{e:?}"
    );
    // A struct field written twice is refused by serde itself, with its path.
    let e = Scenario::from_json(r#"{"protocol": "inbox", "seed": 1, "seed": 2}"#, "d.json")
        .unwrap_err();
    assert!(en(&e).contains("duplicate field `seed`"), "{e:?}");
    // A repeated key inside a custom protocol, and at the top level.
    let e = Scenario::from_json(
        r#"{"protocol": {"name": "p", "name": "q", "steps": ["receive"]}}"#,
        "p.json",
    )
    .unwrap_err();
    assert!(en(&e).contains("`name`"), "{e:?}");
}

#[test]
fn a_file_that_is_not_utf8_is_refused_at_its_first_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.json");
    std::fs::write(
        &path,
        b"{\n  \"protocol\": \"inbox\",\n  \"name\": \"caf\xe9\"\n}\n",
    )
    .unwrap();
    let e = Scenario::from_file(&path).unwrap_err();
    assert_eq!(e.location, Some((3, 15)), "{e:?}");
    assert_eq!(
        *e.problem,
        Problem::Read(Read::NotUtf8 { byte: 0xe9 }),
        "{e:?}"
    );
    let o = bin(&["run", &path.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("at line 3, column 15"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn deep_nesting_and_huge_files_are_refused_without_exhausting_the_stack_or_memory() {
    let deep = format!(
        "{{\"protocol\": \"inbox\", \"name\": {}1{}}}",
        "[".repeat(1_000_000),
        "]".repeat(1_000_000)
    );
    // Over the size bound: refused before parsing.
    let e = Scenario::from_json(&deep, "deep.json").unwrap_err();
    assert!(
        matches!(
            *e.problem,
            Problem::Read(Read::TooLong {
                limit: 1_048_576,
                ..
            })
        ),
        "{e:?}"
    );
    // Under it, the typed parse refuses the first array where a string belongs, and
    // serde_json's recursion limit (128) bounds any untyped walk, so no nesting reaches the
    // stack's end; either way the error has a position.
    for (name, value) in [
        ("name", "[".repeat(100_000)),
        ("expect", "{\"boundaries\":".repeat(50_000)),
    ] {
        let deep = format!("{{\"protocol\": \"inbox\", \"{name}\": {value}");
        let e = Scenario::from_json(&deep, "deep.json").unwrap_err();
        assert!(e.location.is_some(), "{e:?}");
    }
    let e = serde_json::from_str::<serde_json::Value>(&"[".repeat(200)).unwrap_err();
    assert!(e.to_string().contains("recursion limit"), "{e}");
    // The file is not read whole: a 2 MiB file is refused after its first mebibyte.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.json");
    let mut huge = b"{\"protocol\": \"inbox\", \"description\": \"".to_vec();
    huge.resize(2 << 20, b'a');
    std::fs::write(&path, &huge).unwrap();
    let o = bin(&["run", &path.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "at line 1, column 1048577: 1048577 bytes is over the limit of 1048576 bytes"
        ),
        "{}",
        stderr(&o)
    );
}
