//! `explain`: a run told step by step, in the reader's language.

use crate::cli::*;

/// `explain FILE`: one run, narrated.
pub(in crate::cli) fn explain_command(
    args: &ExplainArgs,
    given: &Given,
) -> Result<(String, ExitCode), CliError> {
    if let Some(path) = &args.source.scenario.file {
        if path.is_dir() {
            return Err(CliError::usage(Usage::IsAFolder {
                path: path.display().to_string(),
                command: FileCommand::Explain,
            }));
        }
    }
    let (mut scenario, origin) = load(&args.source)?;
    flags::check_scenario(given, &scenario)?;
    let OverriddenRun {
        result,
        failures,
        schedule,
        replay: run,
        ..
    } = overridden_run(
        &mut scenario,
        &origin,
        args.inbox_ttl_ticks,
        &args.crash,
        args.schedule.as_deref(),
        language(args.lang),
    )?;
    let lang = language(args.lang);
    // The same run, told again: the replay command with `explain` and the language.
    let replay = format!(
        "{} --lang {}",
        run.replacen("delivery-sim run ", "delivery-sim explain ", 1),
        lang.code()
    );
    // The run watched again, entry by entry: what the words need of each state.
    let view = view::watch(&world::InProcess, &scenario, &schedule, &result);
    if args.json {
        let told = explain::explain_json(&view, &scenario, &result, &replay, failures, lang);
        let code = code(told.expect.as_ref().is_none_or(|e| e.failures.is_empty()));
        return Ok((to_json(&told), code));
    }
    let out = explain::explain_text(
        &view,
        &scenario,
        &result,
        &replay,
        failures.as_deref(),
        lang,
        stdout_paint(),
    );
    Ok((out, code(held(&failures))))
}
