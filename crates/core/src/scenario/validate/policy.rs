//! `protocol.on_error`: a custom protocol's error policy, its compensating SQL steps
//! checked as the protocol's own are, and what a policy cannot mean refused by field.

use super::*;
use crate::model::{ErrorPolicy, GiveUp, PolicyError, Retry};
use crate::scenario::problem::Policy;

impl Checker<'_> {
    /// `protocol` with the error policy `raw` says; compensating SQL steps are added to
    /// `origins`, so that their statements are prepared with the protocol's.
    pub(super) fn with_error_policy(
        &self,
        protocol: Protocol,
        raw: &RawOnError,
        databases: &[&str],
        origins: &mut Vec<SqlOrigin>,
    ) -> Result<Protocol, ScenarioError> {
        let (policy, defs) = match raw {
            RawOnError::Named(name) => {
                let then = self.give_up("protocol.on_error", name)?;
                let policy = ErrorPolicy {
                    then,
                    ..ErrorPolicy::default()
                };
                (policy, Vec::new())
            }
            RawOnError::Policy(p) => self.policy(p, &protocol, databases, origins)?,
        };
        protocol.with_error_policy(policy, defs).map_err(|e| {
            let field = match &e {
                PolicyError::AckWithoutAck => "protocol.on_error.then".to_string(),
                e => match e.position() {
                    Some(k) => format!("protocol.on_error.steps[{k}]"),
                    None => "protocol.on_error".to_string(),
                },
            };
            self.err(field, Policy::DoesNotFit(e))
        })
    }

    /// A policy written in full: its retries, its compensating steps (with their SQL
    /// definitions) and its `then`.
    fn policy(
        &self,
        p: &RawErrorPolicy,
        protocol: &Protocol,
        databases: &[&str],
        origins: &mut Vec<SqlOrigin>,
    ) -> Result<(ErrorPolicy, Vec<crate::model::SqlStep>), ScenarioError> {
        let retry = match &p.retry {
            None => None,
            Some(r) => Some(self.retry(r)?),
        };
        if p.steps.len() > Protocol::MAX_STEPS {
            return Err(self.err(
                "protocol.on_error.steps",
                Policy::TooManySteps {
                    max: Protocol::MAX_STEPS,
                },
            ));
        }
        let mut defs = Vec::new();
        let mut steps = Vec::new();
        let mut step_db = Vec::new();
        for (k, raw) in p.steps.iter().enumerate() {
            let field = format!("protocol.on_error.steps[{k}]");
            let (step, db) = match raw {
                RawCompensation::Named(name) => (self.named_step(&field, name)?, 0),
                RawCompensation::Sql(c) => {
                    self.compensation_sql(&field, c, protocol, databases, &mut defs, origins)?
                }
            };
            steps.push(step);
            step_db.push(db);
        }
        let then = match &p.then {
            Some(name) => self.give_up("protocol.on_error.then", name)?,
            None => GiveUp::Redeliver,
        };
        if step_db.iter().all(|db| *db == 0) {
            step_db.clear();
        }
        let policy = ErrorPolicy {
            retry,
            steps,
            step_db,
            then,
        };
        Ok((policy, defs))
    }

    /// The policy's retries, each bound checked.
    fn retry(&self, r: &RawRetry) -> Result<Retry, ScenarioError> {
        Ok(Retry {
            times: self.range(
                "protocol.on_error.retry.times",
                r.times,
                1,
                u64::from(ErrorPolicy::MAX_RETRIES),
            )? as u8,
            backoff_ticks: self.range(
                "protocol.on_error.retry.backoff_ticks",
                r.backoff_ticks.unwrap_or(0),
                0,
                bounds::MAX_DELAY_TICKS,
            )?,
        })
    }

    /// A compensating step written as SQL (at `field`): its step and database, its
    /// definition added to `defs`. Its name is its own, not a step of the protocol's.
    fn compensation_sql(
        &self,
        field: &str,
        c: &RawCompensationSql,
        protocol: &Protocol,
        databases: &[&str],
        defs: &mut Vec<crate::model::SqlStep>,
        origins: &mut Vec<SqlOrigin>,
    ) -> Result<(Step, u8), ScenarioError> {
        let raw = RawSqlStep {
            name: c.name.clone(),
            sql: Some(c.sql.clone()),
            external: None,
            duplicate_if: None,
            db: c.db.clone(),
            into: None,
            when: None,
            goto: None,
            on_error: None,
        };
        let raw = &raw;
        let db = self.step_db(field, raw, databases)?;
        let step = self.sql_step(field, raw, db, defs, origins)?;
        if protocol.has(step) {
            return Err(self.err(format!("{field}.name"), Policy::NameOfTheProtocol { step }));
        }
        Ok((step, db))
    }

    /// What ends a failed delivery, by its name.
    fn give_up(&self, field: &str, name: &str) -> Result<GiveUp, ScenarioError> {
        [GiveUp::Redeliver, GiveUp::Ack, GiveUp::DeadLetter]
            .into_iter()
            .find(|g| g.name() == name)
            .ok_or_else(|| {
                let name = name.to_string();
                self.err(field, Policy::UnknownGiveUp { name })
            })
    }

    /// A log has no dead-letter queue to move a record to.
    pub(super) fn policy_fits_broker(
        &self,
        protocol: &Protocol,
        log: bool,
    ) -> Result<(), ScenarioError> {
        if log && protocol.on_error.then == GiveUp::DeadLetter {
            return Err(self.err("protocol.on_error.then", Policy::DeadLetterOnLog));
        }
        Ok(())
    }
}
