//! Shell completions that complete (issue 16, item 3), each in its real shell: the bash
//! script is sourced in bash, its function called as bash calls it on a TAB, and
//! `COMPREPLY` read back; fish answers `complete -C LINE`; zsh runs interactively in a
//! pseudo-terminal with the line typed and a TAB (tests/shells/zsh-complete.zsh). zsh and
//! fish are not on every machine: their tests are behind the `shells` feature, which
//! `.ci/run` turns on after installing them.

use crate::support::{bin, command, stdout};

/// What bash offers for the command line `words`, the cursor on the last word.
fn complete(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let (cur, prev) = (words[cword], words[cword - 1]);
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={cword}\n_delivery__sim delivery-sim '{cur}' \
         '{prev}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" ")
    );
    let out = command("bash")
        .arg("-c")
        .arg(program)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out).lines().map(str::to_string).collect()
}

/// The command lines every shell's completion is tried on, and what it must offer.
const CASES: [(&[&str], &[&str]); 5] = [
    (&["delivery-sim", "ru"], &["run"]),
    (
        &["delivery-sim", "run", "--diag"],
        &["--diagram", "--diagram-detail"],
    ),
    (
        &["delivery-sim", "run", "--diagram", ""],
        &["mermaid", "svg"],
    ),
    (&["delivery-sim", "explain", "--lang", ""], &["en", "es"]),
    (
        &["delivery-sim", "sweep", "--max-c"],
        &["--max-crash-ppm", "--max-crashes"],
    ),
];

#[test]
fn bash_completes_flags_and_their_values_after_a_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("delivery-sim.bash");
    std::fs::write(&script, stdout(&bin(&["completions", "bash"]))).unwrap();
    for (words, expected) in CASES {
        assert_eq!(complete(&script, words), expected, "{words:?}");
    }
}

/// The candidates a shell printed, one per line, blank lines left out, sorted (each
/// shell orders them its own way).
#[cfg(feature = "shells")]
fn candidates(out: &std::process::Output, shell: &str) -> Vec<String> {
    assert!(
        out.status.success(),
        "{shell}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<String> = stdout(out)
        .lines()
        // fish prints a description after a TAB.
        .map(|l| l.split('\t').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    lines.sort();
    lines
}

#[cfg(feature = "shells")]
fn sorted(expected: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Writes `delivery-sim completions SHELL` to `file_name`, and asks `ask` (given the
/// script and a command line) for each case's candidates, which must be the expected ones.
#[cfg(feature = "shells")]
fn assert_completes(
    shell: &str,
    file_name: &str,
    ask: impl Fn(&std::path::Path, &str) -> std::process::Output,
) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join(file_name);
    std::fs::write(&script, stdout(&bin(&["completions", shell]))).unwrap();
    for (words, expected) in CASES {
        let line = words.join(" ");
        let out = ask(&script, &line);
        assert_eq!(candidates(&out, shell), sorted(expected), "{line:?}");
    }
}

#[cfg(feature = "shells")]
#[test]
fn fish_completes_flags_and_their_values_after_a_subcommand() {
    assert_completes("fish", "delivery-sim.fish", |script, line| {
        let program = format!("source '{}'; complete -C '{line}'", script.display());
        command("fish")
            .arg("-c")
            .arg(program)
            .output()
            .expect("fish runs")
    });
}

#[cfg(feature = "shells")]
#[test]
fn zsh_completes_flags_and_their_values_after_a_subcommand() {
    let capture = crate::support::root().join("tests/shells/zsh-complete.zsh");
    assert_completes("zsh", "_delivery-sim", |script, line| {
        // `timeout`: a completion that never ends must fail the test, not hang it.
        command("timeout")
            .args(["60", "zsh", "-f"])
            .arg(&capture)
            .arg(script)
            .arg(line)
            .output()
            .expect("zsh runs")
    });
}
