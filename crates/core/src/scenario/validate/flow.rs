//! Branches and values in a protocol (issue 35): a SQL step's `into`, `when`,
//! `duplicate_if: {"when"}` and `goto`, checked when the file loads.
//!
//! The checker refuses, each time naming the step and the field:
//! - a condition that does not parse;
//! - a named result no earlier step keeps, or a column its row does not have;
//! - an `into` whose last statement returns no rows;
//! - a `goto` to a later step, to a step written twice, or to no step of the protocol;
//! - a loop that would run a delivery's once-only steps again, or leave a transaction open.

use super::*;
use crate::model::{sql, Condition, SqlStep};
use crate::scenario::problem::Flow;
use std::collections::BTreeMap;

/// The results kept so far, in the order the steps are first written: each `into` name,
/// with the position of the step that keeps it (in [`SqlOrigin`] order) and its columns
/// (empty when the engine could not say them before a run).
#[derive(Default)]
pub(super) struct Kept {
    results: BTreeMap<String, (usize, Vec<String>)>,
}

impl Kept {
    pub(super) fn keep(&mut self, name: &str, at: usize, columns: Vec<String>) {
        self.results
            .entry(name.to_string())
            .or_insert((at, columns));
    }
}

impl Checker<'_> {
    /// `def` with the flow `raw` gives it: its `into`, `when`, `duplicate_if: {"when"}` and
    /// `goto`, each parsed (a bad one is refused at its field).
    pub(super) fn flow_of(
        &self,
        field: &str,
        raw: &RawSqlStep,
        mut def: SqlStep,
    ) -> Result<SqlStep, ScenarioError> {
        let name = |key: &str, value: &str| {
            if !sql::valid_name(value) {
                return Err(self.err(
                    format!("{field}.{key}"),
                    Flow::BadName {
                        value: value.to_string(),
                    },
                ));
            }
            sql::intern(value).ok_or_else(|| self.err(format!("{field}.{key}"), Flow::TooManyNames))
        };
        let condition = |key: &str, text: &str| {
            Condition::parse(text).map_err(|error| {
                self.err(
                    format!("{field}.{key}"),
                    Flow::BadCondition {
                        condition: text.trim().to_string(),
                        error,
                    },
                )
            })
        };
        def.into = raw.into.as_deref().map(|v| name("into", v)).transpose()?;
        def.goto = raw.goto.as_deref().map(|v| name("goto", v)).transpose()?;
        def.when = raw
            .when
            .as_deref()
            .map(|v| condition("when", v))
            .transpose()?;
        if let Some(RawDuplicateIf::When(w)) = &raw.duplicate_if {
            def.duplicate_when = Some(condition("duplicate_if.when", &w.when)?);
        }
        if let Some(c) = &raw.on_error {
            def.catch = Some(crate::model::Catch {
                rollback: c.rollback.unwrap_or(true),
                continue_at: name("on_error.continue_at", &c.continue_at)?,
            });
        }
        Ok(def)
    }

    /// Statement parameter `p` of the SQL step at origin `at`, written `result.column`:
    /// a column of a result an earlier step keeps.
    pub(super) fn kept_parameter(
        &self,
        field: &str,
        p: &str,
        at: usize,
        kept: &Kept,
    ) -> Result<(), ScenarioError> {
        let (result, column) = p.split_once('.').expect("a result's column");
        self.kept_column(field, &format!(":{p}"), (result, column), at, false, kept)
    }

    /// The named results `def`'s conditions read, at origin `at`: `when` reads what earlier
    /// steps kept; `duplicate_if: {"when"}` also what the step itself keeps.
    pub(super) fn conditions_fit(
        &self,
        origin: &SqlOrigin,
        def: &SqlStep,
        at: usize,
        kept: &Kept,
    ) -> Result<(), ScenarioError> {
        let conditions = [
            ("when", def.when.as_ref(), false),
            ("duplicate_if.when", def.duplicate_when.as_ref(), true),
        ];
        for (key, condition, itself) in conditions {
            let Some(c) = condition else { continue };
            let field = format!("{}.{key}", origin.step);
            for (result, column) in c.columns() {
                let written = format!("{result}.{column}");
                self.kept_column(&field, &written, (&result, &column), at, itself, kept)?;
            }
        }
        Ok(())
    }

    fn kept_column(
        &self,
        field: &str,
        written: &str,
        (result, column): (&str, &str),
        at: usize,
        itself: bool,
        kept: &Kept,
    ) -> Result<(), ScenarioError> {
        let Some((by, columns)) = kept.results.get(result) else {
            return Err(self.err(
                field,
                Flow::UnknownResult {
                    written: written.to_string(),
                    result: result.to_string(),
                    known: kept.results.keys().cloned().collect(),
                },
            ));
        };
        if *by > at || (*by == at && !itself) {
            return Err(self.err(
                field,
                Flow::KeptLater {
                    written: written.to_string(),
                    result: result.to_string(),
                },
            ));
        }
        if !columns.is_empty() && !columns.iter().any(|c| c == column) {
            return Err(self.err(
                field,
                Flow::NoSuchColumn {
                    result: result.to_string(),
                    column: column.to_string(),
                    columns: columns.clone(),
                },
            ));
        }
        Ok(())
    }

    /// `into` keeps the first row of the step's last statement, which must return rows.
    pub(super) fn kept_row_fits(
        &self,
        origin: &SqlOrigin,
        def: &SqlStep,
        last: &crate::store::StatementShape,
    ) -> Result<(), ScenarioError> {
        if def.into.is_some() && last.columns == 0 {
            return Err(self.err(format!("{}.into", origin.step), Flow::IntoWithoutRows));
        }
        Ok(())
    }

    /// Every `goto` of `protocol` goes back to an earlier step written once, over a
    /// stretch that holds none of a delivery's once-only steps and leaves every
    /// transaction as it found it.
    pub(super) fn gotos_fit(
        &self,
        protocol: &Protocol,
        origins: &[SqlOrigin],
    ) -> Result<(), ScenarioError> {
        for o in origins {
            let def = protocol.sql_step(o.name);
            let Some(target) = def.goto else { continue };
            let field = format!("{}.goto", o.step);
            let targets = positions(protocol, target);
            let &[to_at] = targets.as_slice() else {
                let target = target.to_string();
                let why = match targets.len() {
                    0 => Flow::GotoNowhere { target },
                    times => Flow::GotoAmbiguous { target, times },
                };
                return Err(self.err(field, why));
            };
            for at in positions(protocol, o.name) {
                self.loop_fits(protocol, &field, (to_at, at), target)?;
            }
        }
        Ok(())
    }

    /// Every step's own error handler goes on at a later step written once, where the
    /// transactions are as the handler leaves them: none open after a rollback, the same
    /// as after the step without one.
    pub(super) fn catches_fit(
        &self,
        protocol: &Protocol,
        origins: &[SqlOrigin],
    ) -> Result<(), ScenarioError> {
        for o in origins {
            let Some(catch) = protocol.sql_step(o.name).catch else {
                continue;
            };
            let field = format!("{}.on_error.continue_at", o.step);
            let target = catch.continue_at;
            let targets = positions(protocol, target);
            let &[to_at] = targets.as_slice() else {
                let target = target.to_string();
                return Err(self.err(field, Flow::ContinueNotOnce { target }));
            };
            for at in positions(protocol, o.name) {
                let target = target.to_string();
                if to_at <= at {
                    return Err(self.err(&field, Flow::ContinueNotAfter { target }));
                }
                let after = match catch.rollback {
                    true => Vec::new(),
                    false => open_before(protocol, at + 1),
                };
                if open_before(protocol, to_at) != after {
                    let rollback = catch.rollback;
                    return Err(self.err(&field, Flow::ContinueTransactions { target, rollback }));
                }
            }
        }
        Ok(())
    }

    /// The loop from step `at` back to `to_at`.
    fn loop_fits(
        &self,
        protocol: &Protocol,
        field: &str,
        (to_at, at): (usize, usize),
        target: &str,
    ) -> Result<(), ScenarioError> {
        let target = target.to_string();
        if to_at > at {
            return Err(self.err(field, Flow::GotoForward { target, at: to_at }));
        }
        let once = [Step::Receive, Step::Ack, Step::ProduceOutput];
        if let Some(s) = protocol.steps[to_at..=at].iter().find(|s| once.contains(s)) {
            let step = *s;
            return Err(self.err(field, Flow::LoopRunsOnceStep { target, step }));
        }
        if open_before(protocol, to_at) != open_before(protocol, at + 1) {
            return Err(self.err(field, Flow::LoopUnbalanced { target }));
        }
        Ok(())
    }
}

/// Where `protocol`'s steps named `name` stand.
fn positions(protocol: &Protocol, name: &str) -> Vec<usize> {
    (protocol.steps.iter().enumerate())
        .filter(|(_, s)| s.name() == name)
        .map(|(i, _)| i)
        .collect()
}

/// The databases with a transaction open before step `at` of `protocol`.
fn open_before(protocol: &Protocol, at: usize) -> Vec<u8> {
    let mut open = Vec::new();
    for (i, s) in protocol.steps[..at].iter().enumerate() {
        let db = protocol.db_at(i);
        match s {
            Step::Begin => open.push(db),
            Step::Commit => open.retain(|d| *d != db),
            _ => {}
        }
    }
    open.sort_unstable();
    open
}
