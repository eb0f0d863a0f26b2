//! `--lang es|en` on the commands that print text for people beyond `run FILE` and
//! `explain`: the words change, the table, the numbers, the identifiers and the files
//! written do not; without `--lang`, the environment's language is used.

use super::support::*;

/// The words of `text` that must not change between languages: numbers, crash points,
/// paths, trace hashes, replay commands' arguments.
fn skeleton(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|l| l.split_whitespace())
        .filter(|w| {
            w.chars().any(|c| c.is_ascii_digit() || c == '/')
                || w.starts_with("before:")
                || w.starts_with("after:")
        })
        .map(|w| {
            let w = w.trim_matches(|c: char| "():,;".contains(c));
            // `the 50-tick window` says `de 50 ticks` in Spanish.
            w.trim_end_matches("-tick").to_string()
        })
        .collect()
}

/// `args` run twice, in English and with `--lang es`: both exit with `code`; their stdouts.
fn en_es(args: &[&str], code: i32) -> (String, String) {
    let en = bin(args);
    let es = bin(&[args, &["--lang", "es"]].concat());
    assert_eq!(en.status.code(), Some(code), "{args:?}: {}", stderr(&en));
    assert_eq!(es.status.code(), Some(code), "{args:?}: {}", stderr(&es));
    (stdout(&en), stdout(&es))
}

#[test]
fn matrix_speaks_spanish_with_the_same_cells_and_files() {
    let args = ["matrix", "--events", "2", "--depth", "1"];
    let (en, es) = en_es(&args, 0);
    assert!(
        es.contains("punto de falla") && es.contains("garantía, profundidad 1"),
        "{es}"
    );
    assert!(
        es.contains("cada protocolo incluido mostró la garantía"),
        "{es}"
    );
    for english in [
        "crash point",
        "LOST",
        "DUPLICATED",
        "to replay",
        "runs, depth",
    ] {
        assert!(!es.contains(english), "{english:?} in\n{es}");
    }
    assert!(!es.split_whitespace().any(|w| w == "once"), "{es}");
    // Same rows, and the same cell in every row once the words are mapped.
    let mapped = es
        .replace("una vez", "once")
        .replace("PERDIDO", "LOST")
        .replace("DUPLICADO", "DUPLICATED");
    let rows = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("before:") || l.starts_with("after:"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(rows(&mapped), rows(&en));
    // The same numbers in the summary rows, and the same replay commands.
    let numbers = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.contains(", ") && !l.contains(':'))
            .flat_map(skeleton)
            .collect()
    };
    assert_eq!(numbers(&es), numbers(&en));
    let replays = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("  delivery-sim run"))
            .map(str::to_string)
            .collect()
    };
    assert!(!replays(&en).is_empty());
    assert_eq!(replays(&es), replays(&en));
    // The environment's language is the default; --lang wins over it.
    let mut cmd = command(env!("CARGO_BIN_EXE_delivery-sim"));
    let from_env = cmd.args(args).env("LANG", "es_AR.UTF-8").output().unwrap();
    assert_eq!(stdout(&from_env), es);
    let mut cmd = command(env!("CARGO_BIN_EXE_delivery-sim"));
    let forced = cmd
        .args(args)
        .args(["--lang", "en"])
        .env("LANG", "es_AR.UTF-8")
        .output()
        .unwrap();
    assert_eq!(stdout(&forced), en);
    // The files are the same in every language: results/ must not depend on the machine.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("en"), dir.path().join("es"));
    bin(&[&args[..], &["--out-dir", a.to_str().unwrap()]].concat());
    let written = bin(&[
        &args[..],
        &["--lang", "es", "--out-dir", b.to_str().unwrap()],
    ]
    .concat());
    // The status line speaks the report's language too.
    assert!(
        stderr(&written).starts_with("escrito ") && stderr(&written).contains(" y "),
        "{}",
        stderr(&written)
    );
    for name in ["matrix.md", "matrix.json"] {
        assert_eq!(
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn run_dir_speaks_spanish_with_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "ack-first-crash-after-ack.json",
        "inbox-crash-between-commit-and-ack.json",
    ] {
        std::fs::copy(root().join("scenarios").join(name), dir.path().join(name)).unwrap();
    }
    std::fs::write(
        dir.path().join("z-bad.json"),
        "{\"protocol\": \"inbox\", \"sed\": 1}",
    )
    .unwrap();
    let folder = dir.path().to_str().unwrap();
    let en = bin(&["run", folder]);
    let es = bin(&["run", folder, "--lang", "es"]);
    assert_eq!(en.status.code(), Some(2));
    assert_eq!(es.status.code(), Some(2));
    let (en, es) = (stdout(&en), stdout(&es));
    assert!(
        es.contains("archivo") && es.contains("hash de traza"),
        "{es}"
    );
    assert!(es.contains("3 escenarios: 2 se cumplieron, 0 no se cumplieron, 1 error de entrada"));
    assert!(!es.contains("held") && !es.contains("input error"), "{es}");
    assert_eq!(skeleton(&es), skeleton(&en));
}

#[test]
fn explore_speaks_spanish_in_every_mode_with_the_same_runs() {
    for args in [
        vec![
            "explore",
            "scenarios/inbox-crash-between-commit-and-ack.json",
            "--depth",
            "2",
        ],
        vec!["explore", "--protocol", "no-dedup", "--events", "2"],
        vec![
            "explore",
            "scenarios/check-then-act-lease-expiry-no-constraint.json",
            "--interleavings",
        ],
        vec![
            "explore",
            "scenarios/inbox-retention-ttl-shorter-than-window.json",
            "--smallest-safe-ttl",
            "--depth",
            "0",
        ],
    ] {
        let en = bin(&args);
        let es = bin(&[&args[..], &["--lang", "es"]].concat());
        assert_eq!(en.status.code(), es.status.code(), "{args:?}");
        let (en, es) = (stdout(&en), stdout(&es));
        // The same runs, crash points, hashes, counts and replay commands.
        assert_eq!(skeleton(&es), skeleton(&en), "{args:?}\n{es}");
        for english in [
            "explored ",
            "summary ",
            "failing runs",
            "crash schedule",
            "trace hash",
            "over all",
            "smallest ",
            "breaking ",
            " held",
        ] {
            assert!(!es.contains(english), "{args:?}: {english:?} in\n{es}");
        }
        assert!(es.starts_with("veredicto  "), "{args:?}\n{es}");
        assert!(
            es.contains("escenario  ") && es.contains("resumen    ")
                || es.contains("menor      ")
                || es.contains("rompen     "),
            "{args:?}\n{es}"
        );
    }
}

#[test]
fn diagrams_speak_spanish_with_the_same_arrows() {
    let file = "scenarios/inbox-crash-between-commit-and-ack.json";
    let args = ["run", file, "--diagram", "mermaid"];
    let (en, es) = en_es(&args, 0);
    assert!(es.contains("participant DB as Base de datos"), "{es}");
    assert!(es.contains("B->>C0: reentrega e1 d2"), "{es}");
    assert!(
        es.contains("Note over C0: CAÍDA after:commit e1 d1"),
        "{es}"
    );
    for english in [
        "Database",
        "legend",
        "deliver",
        "publish",
        "recognised",
        "CRASH",
    ] {
        assert!(!es.contains(english), "{english:?} in\n{es}");
    }
    // The same lanes, arrows and notes, in the same order, over the same deliveries.
    let arrows = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| {
                let head = l.split(": ").next().unwrap_or(l).trim().to_string();
                let names: Vec<&str> = l
                    .split_whitespace()
                    .filter(|w| w.starts_with('e') && w[1..].parse::<u32>().is_ok())
                    .collect();
                format!("{head} {}", names.join(" "))
            })
            .filter(|l| !l.starts_with("participant"))
            .collect()
    };
    assert_eq!(arrows(&es), arrows(&en));
    assert_eq!(skeleton(&es), skeleton(&en));
    // LANG decides without --lang; the status line of --out speaks it too, on stderr.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.svg");
    let mut cmd = command(env!("CARGO_BIN_EXE_delivery-sim"));
    let o = cmd
        .args([
            "run",
            file,
            "--diagram",
            "svg",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("LANG", "es_AR.UTF-8")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).starts_with("escrito "), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains(">caída</text>") && svg.contains(">Productor</text>"));
}

#[test]
fn sweep_and_replay_speak_spanish_with_the_same_findings() {
    let args = [
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "2",
        "--seeds",
        "0..3",
    ];
    let (en, es) = en_es(&args, 1);
    assert!(es.starts_with("sweep de 3 semillas 0..3"), "{es}");
    assert!(
        es.contains("semilla 0: ") && es.contains("reducido a "),
        "{es}"
    );
    assert!(es.contains("3 semillas barridas: 3 con fallas"), "{es}");
    // The commands (`--seeds`) are the tool's own words.
    let words: String = es
        .lines()
        .filter(|l| !l.trim_start().starts_with("delivery-sim "))
        .collect();
    for english in [
        "sweeping",
        "seeds",
        "failing",
        "shrunk",
        "crash ",
        "duplicated",
        "fails ",
        "runs",
    ] {
        assert!(!words.contains(english), "{english:?} in\n{es}");
    }
    let commands = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.trim_start().starts_with("delivery-sim "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(commands(&en).len(), 6, "{en}");
    assert_eq!(commands(&es), commands(&en));
    assert_eq!(skeleton(&es), skeleton(&en));
    // One seed: its whole run report, in Spanish too.
    let one = bin(&[
        "sweep",
        "--protocol",
        "no-dedup",
        "--events",
        "2",
        "--seeds",
        "1..2",
        "--lang",
        "es",
    ]);
    assert!(
        stdout(&one).starts_with("sweep, semilla 1: "),
        "{}",
        stdout(&one)
    );
    assert!(stdout(&one).contains("reducido a "), "{}", stdout(&one));
    // A finding's token replayed, in both languages: the same run, other words.
    let token = commands(&en)
        .iter()
        .find_map(|l| {
            l.trim()
                .strip_prefix("delivery-sim replay ")
                .map(str::to_string)
        })
        .expect("a shrunk finding's token");
    let (ren, res) = (
        bin(&["replay", &token]),
        bin(&["replay", &token, "--lang", "es"]),
    );
    assert_eq!(ren.status.code(), res.status.code());
    let (ren, res) = (stdout(&ren), stdout(&res));
    assert_ne!(ren, res);
    assert_eq!(skeleton(&res), skeleton(&ren));
    assert!(res.contains("DUPLICADO"), "{res}");
    assert!(!res.contains("DUPLICATED"), "{res}");
}

#[test]
fn crosscheck_speaks_spanish_with_the_same_points() {
    let args = ["crosscheck", "--protocol", "inbox", "--events", "1"];
    let (en, es) = en_es(&args, 0);
    assert!(
        es.contains("punto de falla") && es.contains("(sin caída)"),
        "{es}"
    );
    for english in [
        "crash point",
        "simulated",
        "runs match",
        "Wall time",
        " yes ",
        " once",
    ] {
        assert!(!es.contains(english), "{english:?} in\n{es}");
    }
    // The same points, in the same order, with the same outcomes once the words are mapped.
    let rows = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("before:") || l.starts_with("after:"))
            .map(|l| {
                let cells: Vec<&str> = l.split("  ").filter(|c| !c.is_empty()).collect();
                cells[..4]
                    .join("|")
                    .replace("una vez", "once")
                    .replace("sí", "yes")
            })
            .collect()
    };
    assert!(!rows(&en).is_empty());
    assert_eq!(rows(&es), rows(&en));
}

#[test]
fn status_lines_on_stderr_speak_the_language_too() {
    let o = bin(&[
        "run",
        "--protocol",
        "inbox",
        "--crash",
        "after:commit e0 d2",
        "--lang",
        "es",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("aviso: la corrida nunca llegó a --crash 'after:commit e0 d2'"),
        "{}",
        stderr(&o)
    );
    let o = bin(&[
        "run",
        "--protocol",
        "inbox",
        "--crash",
        "after:commit e0 d2",
    ]);
    assert!(stderr(&o).contains("warning: --crash 'after:commit e0 d2' was never reached"));
}
