//! `crosscheck FILE`: the simulation against a real consumer process, point by point (see
//! [`crate::crosscheck`]). Loads the scenario, refuses what one real process cannot
//! reproduce (exit 2, with the reason), cross-checks the crash-free run and every single
//! crash point `explore` enumerates, prints the table, and exits 1 if any point differs.

use super::{language, load, to_json, CliError, LangArg, Source};
use crate::crosscheck;
use crate::report::crosscheck as report;
use crate::report::input::{Budget, Io, Usage};
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
    /// The language of the text report (default: the environment's, else English). The
    /// JSON is the same in every language.
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<LangArg>,
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
    let (scenario, origin) = load(&args.source)?;
    let name = match &args.source.scenario.file {
        Some(path) => path.display().to_string(),
        None => format!("--protocol {}", scenario.protocol.name),
    };
    if let Some(why) = crosscheck::refusal(&scenario) {
        return Err(CliError::usage(Usage::CrosscheckUnfit { name, why }));
    }
    let model = match args.wrong_model {
        None => CrashModel::RollBack,
        Some(WrongModel::KeepUncommitted) => CrashModel::KeepUncommitted,
    };
    let exe = std::env::current_exe()
        .map_err(|e| CliError::usage(Usage::NoOwnBinary { io: Io::from(e) }))?;
    // The points are the crash-free run's boundaries: counted before they are explored.
    let run = crate::world::run(&crosscheck::with_crash(&scenario, None));
    let (runs, steps) = (run.reached.len() as u128 + 1, run.steps);
    let estimate = runs * (u128::from(steps) + 1);
    if estimate > crosscheck::MAX_REAL_STEPS {
        return Err(CliError::usage(Budget::CrosscheckSteps {
            name,
            runs,
            steps,
            estimate,
            max: crosscheck::MAX_REAL_STEPS,
        }));
    }
    let points = crosscheck::crash_points(&scenario);
    let mut detailed = 0;
    let rows: Vec<crosscheck::Checked> = std::iter::once(None)
        .chain(points.into_iter().map(Some))
        .map(|point| {
            let mut row = crate::bench::crosscheck_point(&scenario, point, &exe, model);
            if row.matches() || detailed == crosscheck::MAX_DETAILED_MISMATCHES {
                row.slim();
            } else {
                detailed += 1;
            }
            row
        })
        .collect();
    let all_match = rows.iter().all(crosscheck::Checked::matches);
    let out = if args.json {
        to_json(&report::json(&scenario, &origin, &rows))
    } else {
        report::text(language(args.lang), &scenario, &name, &rows)
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
