//! The `protocol`, `workload` and `producer` sections, and the bounds that tie them (the
//! amounts a run can move, the events a per-attempt identity can mint).

use super::*;
use crate::scenario::problem::Workload as WorkloadProblem;

impl Checker<'_> {
    /// The protocol, and where its SQL steps were written; a step's `db` names one of
    /// `databases` (`store.databases`, in name order).
    pub(super) fn protocol(
        &self,
        raw: &RawProtocol,
        databases: &[&str],
    ) -> Result<(Protocol, Vec<super::SqlOrigin>), ScenarioError> {
        let mut origins = Vec::new();
        let protocol = match raw {
            RawProtocol::Named(name) => Protocol::built_in(name).ok_or_else(|| {
                let name = name.clone();
                self.err("protocol", WorkloadProblem::UnknownProtocol { name })
            }),
            RawProtocol::Custom(c) => {
                if c.name.trim().is_empty() {
                    return Err(self.err("protocol.name", WorkloadProblem::NamelessProtocol));
                }
                let mut defs = Vec::new();
                let mut step_db = Vec::new();
                let steps = c
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let field = format!("protocol.steps[{i}]");
                        match s {
                            RawStep::Sql(raw) if raw.external.is_some() => {
                                step_db.push(0);
                                self.call_step(&field, raw)
                            }
                            RawStep::Sql(raw) => {
                                let db = self.step_db(&field, raw, databases)?;
                                step_db.push(db);
                                self.sql_step(&field, raw, db, &mut defs, &mut origins)
                            }
                            RawStep::Named(s) => {
                                step_db.push(0);
                                self.named_step(&field, s)
                            }
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let description = c.description.clone().unwrap_or_default();
                Protocol::with_sql_on(c.name.clone(), description, steps, defs, step_db)
                    .map(|mut p| {
                        p.db_names = databases.iter().map(|d| d.to_string()).collect();
                        p
                    })
                    .map_err(|e| {
                        let field = match e.position() {
                            Some(i) => format!("protocol.steps[{i}]"),
                            None => "protocol.steps".to_string(),
                        };
                        self.err(field, WorkloadProblem::Protocol(e))
                    })
                    .and_then(|p| match &c.on_error {
                        Some(raw) => self.with_error_policy(p, raw, databases, &mut origins),
                        None => Ok(p),
                    })
            }
        }?;
        self.calls_fit(&protocol)?;
        self.gotos_fit(&protocol, &origins)?;
        self.catches_fit(&protocol, &origins)?;
        Ok((protocol, origins))
    }

    /// The step at `field`, written as a built-in step's name.
    pub(super) fn named_step(&self, field: &str, s: &str) -> Result<Step, ScenarioError> {
        Step::ALL
            .into_iter()
            .find(|step| step.name() == s)
            .ok_or_else(|| {
                let name = s.to_string();
                self.err(field, WorkloadProblem::UnknownStep { name })
            })
    }

    /// The database the SQL step at `field` runs on: 0 (the main one) without `db`, else
    /// `k` for the `k`-th of `databases`.
    pub(super) fn step_db(
        &self,
        field: &str,
        raw: &RawSqlStep,
        databases: &[&str],
    ) -> Result<u8, ScenarioError> {
        let Some(name) = &raw.db else { return Ok(0) };
        match databases.iter().position(|d| d == name) {
            Some(k) => Ok(k as u8 + 1),
            None if name == "main" => Ok(0),
            None => Err(self.err(
                format!("{field}.db"),
                WorkloadProblem::NoSuchDatabase {
                    name: name.clone(),
                    databases: databases.iter().map(|d| d.to_string()).collect(),
                },
            )),
        }
    }

    pub(super) fn workload(&self, raw: &RawWorkload) -> Result<Workload, ScenarioError> {
        let d = Workload::default();
        let events = self.range(
            "workload.events",
            raw.events.unwrap_or(d.events as u64),
            1,
            bounds::MAX_EVENTS,
        )? as usize;
        let accounts = self.range(
            "workload.accounts",
            raw.accounts.unwrap_or(d.accounts as u64),
            2,
            bounds::MAX_ACCOUNTS,
        )? as usize;
        let amount_minor = self.range(
            "workload.amount_minor",
            raw.amount_minor.unwrap_or(d.amount_minor),
            1,
            bounds::MAX_AMOUNT_MINOR,
        )?;
        let initial_balance_minor = self.range(
            "workload.initial_balance_minor",
            raw.initial_balance_minor.unwrap_or(d.initial_balance_minor),
            0,
            bounds::MAX_AMOUNT_MINOR,
        )?;
        if raw.republish.len() > bounds::MAX_REPUBLISH {
            return Err(self.err(
                "workload.republish",
                WorkloadProblem::TooManyRepublishes {
                    max: bounds::MAX_REPUBLISH,
                },
            ));
        }
        let republish = self.events_listed("workload.republish", &raw.republish, events)?;
        if raw.republish_altered.len() > bounds::MAX_REPUBLISH {
            return Err(self.err(
                "workload.republish_altered",
                WorkloadProblem::TooManyAlteredRepublishes {
                    max: bounds::MAX_REPUBLISH,
                },
            ));
        }
        let republish_altered =
            self.events_listed("workload.republish_altered", &raw.republish_altered, events)?;
        let mut invalid = self.events_listed("workload.invalid", &raw.invalid, events)?;
        let listed = invalid.len();
        invalid.sort_unstable();
        invalid.dedup();
        if invalid.len() != listed {
            return Err(self.err("workload.invalid", WorkloadProblem::InvalidTwice));
        }
        let lifecycle = raw.lifecycle.unwrap_or(false);
        if lifecycle && events % 2 == 1 {
            return Err(self.err("workload.events", WorkloadProblem::OddLifecycle { events }));
        }
        Ok(Workload {
            events,
            accounts,
            amount_minor,
            initial_balance_minor,
            republish,
            republish_altered,
            invalid,
            lifecycle,
            // Checked with the scenario's own schema, which they belong to.
            payloads: Vec::new(),
            event_type: None,
        })
    }

    /// The events `list` names (the list at `field`), each checked to be one of the
    /// `events` published.
    fn events_listed(
        &self,
        field: &str,
        list: &[u64],
        events: usize,
    ) -> Result<Vec<usize>, ScenarioError> {
        (list.iter().enumerate())
            .map(|(i, &e)| self.event_index(&format!("{field}[{i}]"), e, events))
            .collect()
    }

    /// Balances stay in `i64` whatever happens: one payload's amount is at most
    /// `MAX_AMOUNT_MINOR` (the k-th altered copy of an event carries k + 1 times its
    /// amount), and even if every step of both phases applied the largest payload to one
    /// account, its balance would not overflow. Past that, SQLite would turn the sum into
    /// a REAL and the ledger would no longer be exact.
    pub(super) fn amounts_fit(
        &self,
        workload: &Workload,
        limits: &Limits,
    ) -> Result<(), ScenarioError> {
        let most_altered = (0..workload.events)
            .map(|e| {
                workload
                    .republish_altered
                    .iter()
                    .filter(|&&a| a == e)
                    .count()
            })
            .max()
            .unwrap_or(0) as i128;
        let largest = i128::from(workload.amount_minor) * (most_altered + 1);
        if largest > i128::from(bounds::MAX_AMOUNT_MINOR) {
            return Err(self.err(
                "workload.republish_altered",
                WorkloadProblem::AlteredCopyTooLarge {
                    altered: most_altered,
                    largest,
                    max: bounds::MAX_AMOUNT_MINOR,
                },
            ));
        }
        let worst =
            i128::from(workload.initial_balance_minor) + 2 * i128::from(limits.max_steps) * largest;
        if worst > i128::from(i64::MAX) {
            return Err(self.err(
                "limits.max_steps",
                WorkloadProblem::BalanceOverflow {
                    max_steps: limits.max_steps,
                    largest,
                },
            ));
        }
        Ok(())
    }

    pub(super) fn producer(
        &self,
        raw: &RawProducer,
        workload: &Workload,
    ) -> Result<ProducerConfig, ScenarioError> {
        let d = ProducerConfig::default();
        let config = ProducerConfig {
            mode: raw.mode.unwrap_or(d.mode),
            identity: raw.identity.unwrap_or(d.identity),
            database: raw.database.unwrap_or(d.database),
            retry: raw.retry.unwrap_or(d.retry),
        };
        if config.active() && workload.lifecycle {
            return Err(self.err("workload.lifecycle", WorkloadProblem::LifecycleWithProducer));
        }
        if config.active() && !workload.republish_altered.is_empty() {
            return Err(self.err(
                "workload.republish_altered",
                WorkloadProblem::AlteredWithProducer,
            ));
        }
        if !config.active() {
            self.refuse_set(
                &[
                    ("producer.database", raw.database.is_some()),
                    ("producer.retry", raw.retry.is_some()),
                ],
                WorkloadProblem::DirectProducerSetting,
            )?;
        }
        Ok(config)
    }

    /// Under a per-attempt identity, every publication after an intent's first mints an
    /// event: the faults may not allow more than fit.
    pub(super) fn identity_budget(
        &self,
        producer: &ProducerConfig,
        faults: &FaultPlan,
        workload: &Workload,
    ) -> Result<(), ScenarioError> {
        if producer.identity == Identity::PerAttempt {
            let budget = faults
                .republication_budget(workload.republish.len() + workload.republish_altered.len());
            let room = bounds::MAX_EVENTS * 2 - workload.events as u64;
            if budget > room {
                return Err(self.err(
                    "producer.identity",
                    WorkloadProblem::IdentityBudget {
                        budget,
                        room,
                        events: workload.events,
                        all: bounds::MAX_EVENTS * 2,
                    },
                ));
            }
        }
        Ok(())
    }
}
