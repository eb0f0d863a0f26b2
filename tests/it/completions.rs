//! Shell completions that complete (issue 16, item 3): the bash script is sourced in a real
//! bash, its function called as bash calls it on a TAB, and `COMPREPLY` read back.

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

#[test]
fn bash_completes_flags_and_their_values_after_a_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("delivery-sim.bash");
    std::fs::write(&script, stdout(&bin(&["completions", "bash"]))).unwrap();
    let cases: [(&[&str], &[&str]); 5] = [
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
    for (words, expected) in cases {
        assert_eq!(complete(&script, words), expected, "{words:?}");
    }
}
