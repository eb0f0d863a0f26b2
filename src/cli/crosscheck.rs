//! `crosscheck FILE`: the simulation against a real consumer process, point by point (see
//! [`crate::crosscheck`]). Loads the scenario, refuses what one real process cannot
//! reproduce (exit 2, with the reason), cross-checks the crash-free run and every single
//! crash point `explore` enumerates, prints the table, and exits 1 if any point differs.

use super::{load, to_json, CliError, Source};
use crate::crosscheck;
use crate::report::crosscheck as report;
use crate::store::CrashModel;
use clap::{Args, ValueEnum};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct CrosscheckArgs {
    #[command(flatten)]
    pub source: Source,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// For tests of crosscheck itself: simulate with a deliberately wrong crash model, so
    /// that the check has something to catch.
    #[arg(long, value_enum, hide = true)]
    pub wrong_model: Option<WrongModel>,
}

/// The wrong crash models the simulated side can be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WrongModel {
    /// A crash keeps the open transaction's writes (commits them) instead of losing them.
    KeepUncommitted,
}

pub fn crosscheck(args: &CrosscheckArgs) -> Result<(String, ExitCode), CliError> {
    let (scenario, _) = load(&args.source)?;
    let name = match &args.source.scenario.file {
        Some(path) => path.display().to_string(),
        None => format!("--protocol {}", scenario.protocol.name),
    };
    if let Some(why) = crosscheck::refusal(&scenario) {
        return Err(CliError::Usage(format!(
            "{name}: crosscheck cannot run this scenario: {why}. It cross-checks one consumer \
             process on the queue broker with a direct producer; `run` and `explore` simulate \
             everything else."
        )));
    }
    let model = match args.wrong_model {
        None => CrashModel::RollBack,
        Some(WrongModel::KeepUncommitted) => CrashModel::KeepUncommitted,
    };
    let exe = std::env::current_exe().map_err(|e| {
        CliError::Usage(format!(
            "crosscheck runs this binary as its consumer process, and cannot find it: {e}"
        ))
    })?;
    let rows: Vec<crosscheck::Checked> = std::iter::once(None)
        .chain(crosscheck::crash_points(&scenario).into_iter().map(Some))
        .map(|point| crate::bench::crosscheck_point(&scenario, point, &exe, model))
        .collect();
    let all_match = rows.iter().all(crosscheck::Checked::matches);
    let out = if args.json {
        to_json(&report::json(&scenario, &name, &rows))
    } else {
        report::text(&scenario, &name, &rows)
    };
    Ok((
        out,
        if all_match {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    ))
}
