//! Each command's help is its own (issue 16, item 2): it names only flags the command
//! accepts (or another command's, named with it), a scenario command's usage line shows
//! both ways to give the scenario, and the FILE and --protocol texts say what that command
//! does with them.

use super::support::*;

const COMMANDS: [&str; 10] = [
    "run",
    "explain",
    "explore",
    "sweep",
    "matrix",
    "protocols",
    "crosscheck",
    "bench",
    "replay",
    "completions",
];

/// The commands that take a scenario file or a built-in protocol.
const SCENARIO_COMMANDS: [&str; 5] = ["run", "explain", "explore", "sweep", "crosscheck"];

fn help(command: &str) -> String {
    let o = bin(&[command, "--help"]);
    assert_eq!(o.status.code(), Some(0), "{command}: {}", stderr(&o));
    stdout(&o)
}

/// The long flags listed under the help's "Options:".
fn options(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix("-h, ").unwrap_or(l);
            let l = if l.len() > 4 && l.as_bytes()[0] == b'-' && &l[2..4] == ", " {
                &l[4..]
            } else {
                l
            };
            l.strip_prefix("--").map(|rest| {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                format!("--{name}")
            })
        })
        .collect()
}

/// Every `--flag` the text mentions, with the text just before it.
fn mentions(help: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = help;
    let mut offset = 0;
    while let Some(at) = rest.find("--") {
        let start = offset + at;
        let name: String = help[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            let before = help[..start].chars().rev().take(24).collect::<String>();
            found.push((format!("--{name}"), before.chars().rev().collect()));
        }
        offset = start + 2 + name.len();
        rest = &help[offset..];
    }
    found
}

#[test]
fn every_flag_a_help_names_is_the_commands_own_or_named_with_its_command() {
    for command in COMMANDS {
        let text = help(command);
        let own = options(&text);
        assert!(own.contains(&"--help".to_string()), "{command}: {own:?}");
        for (flag, before) in mentions(&text) {
            let other = COMMANDS
                .iter()
                .any(|c| *c != command && before.ends_with(&format!("`{c} ")));
            assert!(
                own.contains(&flag) || other,
                "`{command} --help` names {flag}, which `{command}` does not accept \
                 (after {before:?})"
            );
        }
    }
}

#[test]
fn a_scenario_commands_usage_and_file_help_say_what_it_takes() {
    for command in SCENARIO_COMMANDS {
        let text = help(command);
        assert!(
            text.contains("<FILE|--protocol <NAME>>"),
            "{command}: the usage line shows both ways\n{text}"
        );
        // Without arguments: the error's usage line too.
        let o = bin(&[command]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("<FILE|--protocol <NAME>>"),
            "{}",
            stderr(&o)
        );
        let file_help = text
            .lines()
            .skip_while(|l| l.trim() != "[FILE]")
            .nth(1)
            .or_else(|| text.lines().find(|l| l.trim_start().starts_with("[FILE]")))
            .unwrap_or_else(|| panic!("{command}: no FILE help\n{text}"))
            .to_string();
        assert_eq!(
            file_help.contains("folder"),
            command == "run",
            "{command}: {file_help}"
        );
        let protocol_help = text
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("--protocol"))
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            protocol_help.contains("no planned faults"),
            command != "sweep",
            "{command}: {protocol_help}"
        );
    }
}

/// Every visible flag of every command: (command, long name, value name, help).
fn flags() -> Vec<(String, String, Option<String>, String)> {
    use clap::CommandFactory;
    let cli = delivery_sim_cli::cli::Cli::command();
    let mut out = Vec::new();
    for sub in cli.get_subcommands() {
        for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
            let Some(long) = arg.get_long() else { continue };
            out.push((
                sub.get_name().to_string(),
                long.to_string(),
                arg.get_value_names()
                    .and_then(|v| v.first())
                    .map(|v| v.to_string()),
                arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
            ));
        }
    }
    out
}

#[test]
fn a_flag_means_the_same_thing_in_every_command() {
    let flags = flags();
    // One value name per flag, whichever command has it: `--out` is a file everywhere,
    // `--out-dir` a folder, `--seed` a seed.
    let mut seen: std::collections::BTreeMap<&str, (&str, &Option<String>)> = Default::default();
    for (command, long, value, _) in &flags {
        if let Some((first, v)) = seen.insert(long, (command, value)) {
            assert_eq!(
                v, value,
                "--{long}: {first} and {command} name its value differently"
            );
        }
    }
    assert_eq!(seen["out"].1.as_deref(), Some("FILE"));
    assert_eq!(seen["out-dir"].1.as_deref(), Some("DIR"));
    // Every command that prints results prints them as JSON on request, with one help.
    for command in [
        "run",
        "explore",
        "sweep",
        "matrix",
        "crosscheck",
        "replay",
        "protocols",
        "bench",
    ] {
        let json = flags
            .iter()
            .find(|(c, l, _, _)| c == command && l == "json")
            .unwrap_or_else(|| panic!("{command} has no --json"));
        assert!(
            json.3.starts_with("Print the result as JSON"),
            "{command}: {}",
            json.3
        );
    }
    // Every command that prints text for people speaks both languages, with one value name.
    for command in [
        "run",
        "explain",
        "explore",
        "sweep",
        "matrix",
        "crosscheck",
        "replay",
        "protocols",
    ] {
        assert!(
            flags.iter().any(|(c, l, _, _)| c == command && l == "lang"),
            "{command} has no --lang"
        );
    }
    assert_eq!(seen["lang"].1.as_deref(), Some("LANG"));
    // `--out` for a folder is refused with the flag that takes one.
    let o = bin(&["matrix", "--out", "somewhere"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--out-dir DIR"), "{}", stderr(&o));
}
