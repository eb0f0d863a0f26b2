//! `replay`: a run from a replay token.

use crate::cli::*;

/// `replay TOKEN`: the exact run of a token, reported as `run` reports it.
pub(in crate::cli) fn replay(args: &ReplayArgs) -> Result<(Printed, ExitCode), CliError> {
    let token::Replay { scenario, schedule } = token::decode(&args.token)?;
    let result = world::run_scheduled(&scenario, world::RunOptions::default(), &schedule);
    refuse_unknown_choices(&result, &schedule, ChoiceSource::Token)?;
    let token = args.token.trim();
    let command = token_command(token);
    let failure = result.failure();
    let lang = language(args.lang);
    if let Some(path) = &args.scenario_out {
        let mut file = scenario.clone();
        file.description = text::regression_description(&result, &failure, token, &schedule);
        file.expect = Some(check::pinned_expect(
            &result.verdict,
            scenario.workload.republish_altered.len(),
        ));
        let json = file.to_json();
        // What is written must load, and hold against the run it pins.
        let back = Scenario::from_json(&json, &path.display().to_string())?;
        assert!(
            back == file
                && check::failed_expectations(
                    back.expect.as_ref().expect("pinned"),
                    &result.verdict
                )
                .is_empty(),
            "a pinned scenario loads and holds"
        );
        write_atomically(path, &json, "--scenario-out")?;
        // A status line, not a result: stderr.
        eprintln!(
            "{}",
            lang.replay_wrote(&path.display().to_string(), &failure)
        );
    }
    let mut out = String::new();
    if args.json {
        let mut j = json::run_json(&scenario, &result, &Origin::File(String::new()), &[], None);
        j.replay = command;
        out.push_str(&to_json(&j));
    } else {
        out.push_str(&text::run_text_in(
            lang,
            stdout_paint(),
            &scenario,
            &result,
            &command,
            None,
            &result.judgement(None),
        ));
        if args.trace {
            return Ok((trace_then(result, lang, out), code(failure.is_empty())));
        }
    }
    Ok((out.into(), code(failure.is_empty())))
}
