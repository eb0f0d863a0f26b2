//! `explain` and `--lang`: the narrated run reads as the seeds' lesson in both languages
//! (checked sentence by sentence on the seeds' three failure points, for `ack-first` and
//! `inbox`), narration never changes a run, every trace entry of every scenario has its own
//! sentence in both languages, and a golden file per language shows reviewers the text.
//! Regenerate the golden files with `UPDATE_GOLDEN=1 cargo test golden_explain`.

use super::support::*;
use delivery_sim::report::explain::{untold_entries, MAX_TOLD_ENTRIES};
use delivery_sim::report::lang::Lang;
use delivery_sim::sim::TraceEntry;
use delivery_sim::world::{run_observed, Observer, Snapshot};
use delivery_sim::{run, RunOptions, Scenario};
use std::process::Output;

/// Runs the binary with `args` and the environment variables `env` (the locale variables
/// are cleared first, so that the machine's locale never leaks in).
fn bin_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = command(env!("CARGO_BIN_EXE_delivery-sim"));
    cmd.args(args).envs(env.iter().copied());
    cmd.output().expect("the binary runs")
}

fn explain(file: &str, lang: &str) -> String {
    let o = bin_env(&["explain", file, "--lang", lang], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

/// The failure-point block of an explanation (the last section), with its lines joined, so
/// that a phrase wrapped over two lines still matches.
fn failure_points(text: &str, heading: &str) -> String {
    let block = text
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("no `{heading}` section in:\n{text}"));
    block.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn joined(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn assert_contains(text: &str, needles: &[&str]) {
    for n in needles {
        assert!(text.contains(n), "missing `{n}` in:\n{text}");
    }
}

const EN_TABLE: &str = "Failure points of this run";
const ES_TABLE: &str = "Puntos de fallo de esta corrida";

#[test]
fn inbox_crash_before_commit_nothing_confirmed_retry() {
    let file = "scenarios/inbox-crash-before-commit.json";
    let en = explain(file, "en");
    assert_contains(
        &failure_points(&en, EN_TABLE),
        &[
            "point of failure before:commit e1 d1 (before the commit)",
            "confirmed state nothing: no effect, no identity (inbox row), no ack",
            "recovery redelivered; retried the transaction, applied the effect and acked",
            "outcome once",
        ],
    );
    assert_contains(
        &joined(&en),
        &[
            "SQLite rolls back consumer0's open transaction. Gone, as if never written: the \
             inbox row for e1 and the debit and credit for e1.",
            "Nothing is lost yet: the broker has no ack, so it will deliver e1 again",
            "Nothing: every event's effect is committed exactly once",
        ],
    );
    let es = explain(file, "es");
    assert_contains(
        &failure_points(&es, ES_TABLE),
        &[
            "punto del fallo before:commit e1 d1 (antes del commit)",
            "estado confirmado nada: ni efecto ni identidad (fila de inbox) confirmados, sin ack",
            "recuperación reentrega; reintentó la transacción, aplicó el efecto y envió el ack",
            "resultado una vez",
        ],
    );
    assert_contains(
        &joined(&es),
        &[
            "SQLite revierte la transacción abierta de consumer0. Desaparece, como si nunca se \
             hubiera escrito: la fila de inbox de e1 y el débito y el crédito de e1.",
            "Todavía no se perdió nada: el broker no tiene el ack, así que va a reentregar e1",
        ],
    );
}

#[test]
fn inbox_crash_between_commit_and_ack_recognises_the_earlier_result() {
    let file = "scenarios/inbox-crash-between-commit-and-ack.json";
    let en = explain(file, "en");
    assert_contains(
        &failure_points(&en, EN_TABLE),
        &[
            "point of failure after:commit e1 d1 (after the commit, before the ack)",
            "confirmed state the effect and the identity (inbox row); no ack",
            "recovery redelivered; recognised the earlier result and acked without another \
             effect",
            "outcome once",
        ],
    );
    assert_contains(
        &joined(&en),
        &[
            "the unique constraint refuses it: e1 was processed before",
            "consumer0 acks e1 without applying it again: the earlier result stands",
        ],
    );
    let es = explain(file, "es");
    assert_contains(
        &failure_points(&es, ES_TABLE),
        &[
            "punto del fallo after:commit e1 d1 (después del commit, antes del ack)",
            "estado confirmado efecto e identidad (fila de inbox) confirmados; sin ack",
            "recuperación reentrega; reconoció el resultado previo y envió el ack sin otro \
             efecto",
            "resultado una vez",
        ],
    );
    assert_contains(
        &joined(&es),
        &[
            "la restricción única lo rechaza: e1 ya se procesó",
            "la fila de inbox confirmada es lo que le permite al consumidor reconocer el \
             resultado previo",
        ],
    );
}

#[test]
fn inbox_crash_after_ack_is_resolved() {
    let file = "scenarios/inbox-crash-after-ack.json";
    let en = explain(file, "en");
    assert_contains(
        &failure_points(&en, EN_TABLE),
        &[
            "point of failure after:ack e1 d1 (ack accepted)",
            "confirmed state the intent is resolved: effect, identity (inbox row) and ack",
            "recovery none needed: resolved; the consumer goes on with other events",
            "outcome once",
        ],
    );
    let es = explain(file, "es");
    assert_contains(
        &failure_points(&es, ES_TABLE),
        &[
            "punto del fallo after:ack e1 d1 (ack aceptado)",
            "estado confirmado intención resuelta: efecto, identidad (fila de inbox) y ack",
            "recuperación no hace falta: está resuelto; el consumidor sigue con otros eventos",
            "resultado una vez",
        ],
    );
}

#[test]
fn ack_first_crash_after_ack_loses_the_event_and_says_why() {
    let file = "scenarios/ack-first-crash-after-ack.json";
    let en = explain(file, "en");
    assert_contains(
        &joined(&en),
        &[
            "consumer0 acks e1 BEFORE its effect is committed",
            "Event e1 was acked before its effect committed; the crash after the ack (at \
             after:ack e1 d1) lost it",
        ],
    );
    assert_contains(
        &failure_points(&en, EN_TABLE),
        &[
            "point of failure after:ack e1 d1 (after the ack, before the commit)",
            "confirmed state only the ack",
            "recovery none: the broker has the ack and never delivers it again",
            "outcome LOST",
        ],
    );
    let es = explain(file, "es");
    assert_contains(
        &joined(&es),
        &[
            "consumer0 envía el ack de e1 ANTES de que su efecto esté confirmado",
            "El evento e1 se confirmó (ack) antes de que su efecto se confirmara; la caída \
             después del ack (en after:ack e1 d1) lo perdió",
        ],
    );
    assert_contains(
        &failure_points(&es, ES_TABLE),
        &[
            "estado confirmado solo el ack",
            "recuperación ninguna: el broker tiene el ack y no lo vuelve a entregar",
            "resultado PERDIDO",
        ],
    );
}

#[test]
fn ack_first_crash_before_commit_rolls_back_an_acked_event() {
    let file = "scenarios/ack-first-crash-before-commit.json";
    let en = joined(&explain(file, "en"));
    assert_contains(
        &en,
        &[
            "point of failure before:commit e1 d1 (after the ack, before the commit)",
            "Gone, as if never written: the debit and credit for e1.",
            "the crash after the ack (at before:commit e1 d1) lost it",
            "outcome LOST",
        ],
    );
    let es = joined(&explain(file, "es"));
    assert_contains(
        &es,
        &[
            "punto del fallo before:commit e1 d1 (después del ack, antes del commit)",
            "Desaparece, como si nunca se hubiera escrito: el débito y el crédito de e1.",
            "la caída después del ack (en before:commit e1 d1) lo perdió",
            "resultado PERDIDO",
        ],
    );
}

#[test]
fn ack_first_crash_after_commit_is_resolved_by_luck() {
    let file = "scenarios/ack-first-crash-after-commit.json";
    let en = failure_points(&explain(file, "en"), EN_TABLE);
    assert_contains(
        &en,
        &[
            "confirmed state the intent is resolved: effect and ack",
            "recovery none needed: resolved",
            "outcome once",
        ],
    );
    let es = failure_points(&explain(file, "es"), ES_TABLE);
    assert_contains(
        &es,
        &[
            "estado confirmado intención resuelta: efecto y ack",
            "resultado una vez",
        ],
    );
}

#[test]
fn explain_states_the_broker_and_the_database_after_each_step() {
    let en = explain("scenarios/inbox-crash-between-commit-and-ack.json", "en");
    // The broker after the crash: e1 waits for its redelivery.
    assert!(
        en.contains("broker     waiting for redelivery: e1 (t=20) · ready: e2 · acked: e0"),
        "{en}"
    );
    // The open transaction before its commit, then the committed rows.
    assert!(
        en.contains("open tx    consumer0 (e1), not committed: the inbox row for e1 · the debit and credit for e1"),
        "{en}"
    );
    assert!(
        en.contains("database   inbox: e0, e1 · ledger: e0, e1 · balances:"),
        "{en}"
    );
    let es = explain("scenarios/inbox-crash-between-commit-and-ack.json", "es");
    assert!(
        es.contains("broker     esperando reentrega: e1 (t=20) · listos: e2 · con ack: e0"),
        "{es}"
    );
    assert!(
        es.contains("base       inbox: e0, e1 · asientos: e0, e1 · saldos:"),
        "{es}"
    );
}

#[test]
fn explain_takes_the_run_flags_and_a_duplicate_reads_as_one() {
    let o = bin_env(
        &[
            "explain",
            "--protocol",
            "no-dedup",
            "--events",
            "2",
            "--crash",
            "after:commit e0 d1",
            "--lang",
            "en",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = joined(&stdout(&o));
    assert_contains(
        &text,
        &[
            "Event e0's effect committed, then the crash at after:commit e0 d1 came before the \
             ack; the broker delivered it again and nothing recognised the earlier result, so \
             its effect is committed 2 times.",
            "confirmed state the effect, with no identity recorded; no ack",
            "recovery redelivered; applied the effect a second time, then acked",
            "outcome DUPLICATED",
            "Replay it: delivery-sim explain --protocol no-dedup --events 2 --seed 0 --crash \
             'after:commit e0 d1' --lang en",
        ],
    );
}

#[test]
fn the_language_comes_from_the_flag_then_the_environment_then_english() {
    let file = "scenarios/inbox-crash-after-ack.json";
    let default = stdout(&bin_env(&["explain", file], &[]));
    assert!(default.contains("Step by step"), "{default}");
    let spanish = stdout(&bin_env(&["explain", file], &[("LANG", "es_AR.UTF-8")]));
    assert!(spanish.contains("Paso a paso"), "{spanish}");
    let overridden = stdout(&bin_env(
        &["explain", file],
        &[("LANG", "es_AR.UTF-8"), ("LC_ALL", "en_US.UTF-8")],
    ));
    assert!(overridden.contains("Step by step"), "{overridden}");
    let flag = stdout(&bin_env(
        &["explain", file, "--lang", "en"],
        &[("LANG", "es_AR.UTF-8")],
    ));
    assert_eq!(flag, default, "--lang wins over the environment");
}

#[test]
fn run_lang_es_prints_the_report_in_spanish_and_english_stays_the_default() {
    let file = "scenarios/ack-first-crash-after-ack.json";
    let en = bin_env(&["run", file], &[]);
    let es = bin_env(&["run", file, "--lang", "es"], &[]);
    assert_eq!(en.status.code(), Some(0));
    assert_eq!(es.status.code(), Some(0));
    let (en, es) = (stdout(&en), stdout(&es));
    // The verdict leads, and says what broke in each check the file pins.
    assert!(
        en.starts_with(
            "verdict    FAIL  at-most-once (ledger per event, 3 checks the file pins): run: \
             FAIL at-most-once (1 event lost); explore d1: FAIL at-most-once (18 of 31 runs \
             lost an event)"
        ),
        "{en}"
    );
    assert!(
        en.contains("effects    2 once, 1 lost, 0 duplicated"),
        "{en}"
    );
    assert!(en.contains("expect     held"), "{en}");
    assert_contains(
        &es,
        &[
            "veredicto  FALLA  at-most-once (asientos por evento, 3 controles que fija el \
             archivo): corrida: FALLA at-most-once (1 evento perdido); explore d1: FALLA \
             at-most-once (18 de 31 corridas perdieron un evento)",
            "efectos    2 una vez, 1 perdido, 0 duplicados; todos con ack; saldos \
             conservados",
            "fronteras  asientos por evento: at-most-once (2 una vez, 1 perdido)",
            "anomalías  evento 1 (",
            "PERDIDO: no se confirmó ningún efecto, y tiene ack: el broker no lo va a volver a \
             entregar; puntos de caída: after:ack e1 d1",
            "esperado   se cumplió",
            "reproducir delivery-sim run scenarios/ack-first-crash-after-ack.json --seed 7",
        ],
    );
    // The trace hash does not depend on the language.
    let hash = |t: &str| {
        t.lines()
            .find(|l| l.contains("hash "))
            .and_then(|l| l.split_whitespace().nth(2))
            .map(str::to_string)
    };
    assert_eq!(hash(&en), hash(&es));
    // An environment in Spanish turns the run report Spanish too; --lang en wins.
    let env_es = stdout(&bin_env(&["run", file], &[("LANG", "es_ES.UTF-8")]));
    assert_eq!(env_es, es);
    let flag_en = stdout(&bin_env(
        &["run", file, "--lang", "en"],
        &[("LANG", "es_ES.UTF-8")],
    ));
    assert_eq!(flag_en, en);
}

#[test]
fn a_failed_expectation_is_said_in_both_languages_and_exits_1() {
    // The scenario expects a loss; crashing elsewhere loses nothing.
    let args = [
        "scenarios/ack-first-crash-after-ack.json",
        "--crash",
        "after:commit e1 d1",
    ];
    for (command, lang, needle) in [
        ("run", "en", "expect     FAILED"),
        ("run", "es", "esperado   NO SE CUMPLIÓ"),
        ("explain", "en", "The scenario's expectations FAILED:"),
        (
            "explain",
            "es",
            "Las expectativas del escenario NO se cumplieron:",
        ),
    ] {
        let mut all = vec![command];
        all.extend(args);
        all.extend(["--lang", lang]);
        let o = bin_env(&all, &[]);
        assert_eq!(o.status.code(), Some(1), "{command} {lang}");
        assert!(
            stdout(&o).contains(needle),
            "{command} {lang}: {}",
            stdout(&o)
        );
    }
}

#[test]
fn piped_output_has_no_colours_even_with_no_color_unset() {
    for args in [
        vec!["explain", "scenarios/ack-first-crash-after-ack.json"],
        vec!["run", "scenarios/ack-first-crash-after-ack.json"],
    ] {
        let o = bin_env(&args, &[]);
        assert!(
            !o.stdout.contains(&0x1b),
            "escape codes in a pipe: {args:?}"
        );
    }
}

#[test]
fn explain_refuses_a_folder_and_an_unknown_language() {
    let o = bin_env(&["explain", "scenarios/"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a folder"), "{}", stderr(&o));
    let o = bin_env(
        &[
            "explain",
            "scenarios/inbox-crash-after-ack.json",
            "--lang",
            "fr",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--lang"), "{}", stderr(&o));
}

/// An observer that counts what it is told, and stops listening after `listen` entries.
struct Counting {
    listen: usize,
    told: usize,
}

impl Observer for Counting {
    fn observe(&mut self, _: &TraceEntry, _: Snapshot) -> bool {
        self.told += 1;
        self.told < self.listen
    }
}

#[test]
fn narration_never_changes_a_run_and_tells_every_entry_in_both_languages() {
    for file in scenario_files() {
        let s = Scenario::from_file(&root().join(&file)).expect("valid scenario");
        let plain = run(&s);
        // Watched to the end, and watched for a while only: the run is the same.
        for listen in [usize::MAX, 3] {
            let mut watch = Counting { listen, told: 0 };
            let told = run_observed(&s, RunOptions::default(), &[], &mut watch);
            assert_eq!(
                plain.trace.hash_hex(),
                told.trace.hash_hex(),
                "{file}: narration changed the run"
            );
            assert_eq!(plain.verdict, told.verdict, "{file}");
            assert_eq!(watch.told, plain.trace.len().min(listen), "{file}");
        }
        let view = delivery_sim::view::watch(&delivery_sim::world::InProcess, &s, &[], &plain);
        for lang in [Lang::En, Lang::Es] {
            assert_eq!(
                untold_entries(&view, &s, &plain, lang),
                0,
                "{file}: an entry has no sentence of its own in {lang:?}"
            );
        }
    }
}

/// A run of thousands of events is told up to [`MAX_TOLD_ENTRIES`] entries, with how many
/// more there were; the verdict still covers every event, and state lines name at most a
/// few items of a list (ranges of consecutive events, the balances that moved) and count
/// the rest.
#[test]
fn a_long_run_is_told_up_to_a_cap_and_its_lists_are_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.json");
    std::fs::write(
        &file,
        r#"{"name": "long", "seed": 3, "protocol": "no-dedup",
            "workload": {"events": 1200, "accounts": 200},
            "faults": {"random_crash": {"per_step_ppm": 20000, "max_crashes": 30}}}"#,
    )
    .unwrap();
    let o = bin_env(&["explain", file.to_str().unwrap(), "--lang", "en"], &[]);
    let text = stdout(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let s = Scenario::from_file(&file).unwrap();
    let r = run(&s);
    assert!(r.trace.len() > MAX_TOLD_ENTRIES, "the run is long enough");
    let told = text.lines().filter(|l| l.starts_with("t=")).count();
    assert_eq!(told, MAX_TOLD_ENTRIES, "one paragraph per told entry");
    let more = format!(
        "… and {} more trace entries, not told here: explain tells at most {MAX_TOLD_ENTRIES}",
        r.trace.len() - MAX_TOLD_ENTRIES
    );
    assert!(text.contains(&more), "{more}");
    let verdict = format!("{} once, {} lost", r.verdict.exactly_once, r.verdict.lost);
    assert!(text.contains(&verdict), "the verdict covers the whole run");
    // Lists: ranges, at most 24 items then a count, and only the balances that moved.
    assert!(
        text.contains("ready: e0–e1199"),
        "a range of ready messages"
    );
    assert!(text.contains("balances: all 200 at their opening balance"));
    assert!(
        text.contains(" more (the other"),
        "the balances that moved, cut short"
    );
    let es = stdout(&bin_env(
        &["explain", file.to_str().unwrap(), "--lang", "es"],
        &[],
    ));
    assert!(es.contains("saldos: las 200 cuentas, en su saldo inicial"));
    assert!(es.contains(&format!(
        "… y {} entradas más de la traza",
        r.trace.len() - MAX_TOLD_ENTRIES
    )));
}

/// Two explanations in each language, pinned so that a reviewer sees the text and any
/// change to it shows up as a diff: the inbox recognising a redelivery, and ack-first
/// losing an event.
#[test]
fn golden_explain_in_english_and_spanish() {
    for scenario in [
        "inbox-crash-between-commit-and-ack",
        "ack-first-crash-after-ack",
    ] {
        for lang in ["en", "es"] {
            let actual = explain(&format!("scenarios/{scenario}.json"), lang);
            let golden = format!("tests/golden/explain-{scenario}.{lang}.txt");
            let path = root().join(&golden);
            if std::env::var_os("UPDATE_GOLDEN").is_some() {
                std::fs::write(&path, &actual).unwrap();
                continue;
            }
            let expected = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                expected, actual,
                "{golden} changed; if that is intended, run UPDATE_GOLDEN=1 cargo test golden"
            );
        }
    }
}

/// The README's two excerpts are cut from what `explain` prints: each piece between `…`
/// lines is in the golden file of its run and language, verbatim.
#[test]
fn the_readme_explain_excerpts_are_real_output() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for (scenario, lang) in [
        ("inbox-crash-between-commit-and-ack", "en"),
        ("ack-first-crash-after-ack", "es"),
    ] {
        let command = format!("explain scenarios/{scenario}.json --lang {lang}`");
        let block = readme
            .split(&command)
            .nth(1)
            .and_then(|rest| rest.split("```text\n").nth(1))
            .and_then(|rest| rest.split("```\n").next())
            .unwrap_or_else(|| panic!("README has no excerpt after `{command}`"));
        let golden = std::fs::read_to_string(
            root().join(format!("tests/golden/explain-{scenario}.{lang}.txt")),
        )
        .unwrap();
        for piece in block.split("…\n").filter(|p| !p.trim().is_empty()) {
            assert!(
                golden.contains(piece),
                "README's excerpt of `{scenario}` ({lang}) is stale:\n{piece}"
            );
        }
    }
}
