//! The text of `explore --isolation-ladder`: one row per engine and level.

use super::*;
use crate::check::ExpectationFailure;
use crate::explore::ladder::{Ladder, RungOutcome};

pub fn ladder_text(
    l: Lang,
    name: &str,
    ladder: &Ladder,
    failures: Option<&[ExpectationFailure]>,
) -> String {
    let mut out = verdict_line_in(l, Paint::OFF, &ladder.verdict);
    out.push_str(&l.ladder_head(name, ladder.weakest_holding(), ladder.rungs.len()));
    out.push('\n');
    out.push_str(&l.ladder_scope(ladder.max_preemptions, ladder.with_crashes));
    if ladder.sqlite_misleads() {
        out.push_str(l.sqlite_differs());
    }
    let [engine, isolation, guarantee, runs, breaking] = l.ladder_columns();
    out.push_str(&format!(
        "\n{engine:<10} {isolation:<22} {guarantee:<14} {runs:>8} {breaking:>8}\n"
    ));
    for rung in &ladder.rungs {
        let level = match rung.isolation {
            Some(i) => l.isolation(i),
            None => l.one_writer(),
        };
        let head = format!("{:<10} {level:<22} ", l.engine_name(rung.engine));
        let home = if rung.home { l.home_rung() } else { "" };
        match &rung.outcome {
            RungOutcome::NotRun { reason } => {
                out.push_str(&format!("{head}{}{home}\n", l.not_run(reason)));
            }
            RungOutcome::Explored {
                guarantee,
                runs,
                breaking_runs,
                complete,
                first_breaking,
            } => {
                let _ = writeln!(
                    out,
                    "{head}{:<14} {runs:>8} {breaking_runs:>8}{}{home}",
                    guarantee.name(),
                    if *complete { "" } else { l.incomplete_rung() }
                );
                if let Some(cmd) = first_breaking {
                    let _ = writeln!(out, "{:<11}{} {cmd}", "", l.first_breaking());
                }
            }
        }
    }
    expectation_lines_in(l, Paint::OFF, &mut out, failures);
    out
}
