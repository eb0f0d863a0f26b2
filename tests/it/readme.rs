//! The README's pasted outputs are real (issue 16, item 4): every console block that runs
//! the binary is run, and each line it shows is a line the command printed. A block may
//! be trimmed: `...` stands for lines left out, and a line ending in `...` for the rest of
//! that line. Timings cannot be pasted true on every machine: crosscheck's lines with a
//! time in them are left out (the README gives its speed as measured ranges). The
//! commands whose whole output a test compares already are named in `CHECKED_ELSEWHERE`.

use super::support::*;

/// Commands whose pasted output another test compares whole, and which it names.
const CHECKED_ELSEWHERE: [(&str, &str); 5] = [
    (
        "matrix",
        "cli::the_readme_shows_the_real_output_of_its_main_command",
    ),
    (
        "run scenarios/no-dedup-crash-between-commit-and-ack.json",
        "cli::the_readme_shows_the_real_output_of_its_main_command",
    ),
    (
        "run scenarios/",
        "run_file::the_readme_shows_real_rows_of_run_dir",
    ),
    (
        "protocols",
        "cli::protocols_lists_each_built_in_with_its_steps",
    ),
    (
        "sweep --protocol no-dedup --events 20",
        "shrink::the_readme_shows_a_real_shrunk_sweep_and_its_replay",
    ),
];

/// The console blocks that run the binary: the command's arguments and the lines shown.
fn blocks(readme: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut found = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line != "```console" {
            continue;
        }
        let command = lines.next().unwrap_or_default();
        let args = command
            .strip_prefix("$ cargo run --release -- ")
            .or_else(|| command.strip_prefix("$ delivery-sim "));
        let body: Vec<String> = lines
            .by_ref()
            .take_while(|l| *l != "```")
            .map(str::to_string)
            .collect();
        if let Some(args) = args.filter(|a| !a.contains('>')) {
            found.push((shell_words(args), body));
        }
    }
    found
}

#[test]
fn every_pasted_output_of_the_binary_is_what_it_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (args, body) in blocks(&readme) {
        let command = args.join(" ");
        // A command that writes a page (`--html`) prints what no other test compares.
        if CHECKED_ELSEWHERE
            .iter()
            .any(|(c, _)| command.starts_with(c))
            && args[0] != "replay"
            && !args.iter().any(|a| a == "--html")
        {
            continue;
        }
        // A command on PostgreSQL needs a server: checked with feature `postgres` (which
        // `.ci/run` turns on after installing one).
        let on_postgres = args.iter().any(|a| {
            a.starts_with("scenarios/postgres/") || a == "postgres" || a == "--isolation-ladder"
        });
        if on_postgres && !cfg!(feature = "postgres") {
            continue;
        }
        // Files the command writes go to a temporary folder, not the checkout.
        let mut args = args.clone();
        for i in 1..args.len() {
            if ["--out", "--scenario-out", "--junit", "--html"].contains(&args[i - 1].as_str()) {
                args[i] = dir.path().join(&args[i]).display().to_string();
            }
        }
        let o = bin(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let printed = format!("{}\n{}", stdout(&o), stderr(&o));
        let printed: Vec<&str> = printed.lines().collect();
        let timed = args[0] == "crosscheck";
        for line in body.iter().filter(|l| l.as_str() != "...") {
            if timed && (line.contains(" ms") || line.contains('×')) {
                continue;
            }
            let real = match line.strip_suffix("...") {
                Some(start) => printed.iter().any(|p| p.starts_with(start)),
                None => printed.contains(&line.as_str()),
            };
            assert!(
                real,
                "README's output of `delivery-sim {command}` is stale: it shows\n{line}\n\
                 which the command does not print:\n{}",
                printed.join("\n")
            );
        }
        checked += 1;
    }
    assert!(checked >= 6, "{checked} blocks checked");
}
