//! The `faults` section: planned and random crashes, failed steps, stalls, lost acks, the
//! broker's duplicates, commit and publish timeouts, each checked against the protocol and
//! the workload.

use super::*;
use crate::model::{split_occurrence, PointError};
use crate::scenario::problem::Faults;

impl Checker<'_> {
    pub(super) fn faults(
        &self,
        raw: RawFaults,
        workload: &Workload,
        protocol: &Protocol,
        producer: &ProducerConfig,
    ) -> Result<FaultPlan, ScenarioError> {
        let crash = self.crashes(raw.crash, workload, protocol, producer)?;
        let random_crash = match raw.random_crash {
            None => None,
            Some(r) => Some(RandomCrash {
                per_step_ppm: self.range(
                    "faults.random_crash.per_step_ppm",
                    r.per_step_ppm,
                    0,
                    1_000_000,
                )?,
                max_crashes: self.range(
                    "faults.random_crash.max_crashes",
                    r.max_crashes,
                    0,
                    bounds::MAX_CRASHES,
                )?,
            }),
        };
        self.at_most("faults.fail", raw.fail.len(), bounds::MAX_FAULT_SPECS)?;
        self.at_most("faults.stall", raw.stall.len(), bounds::MAX_FAULT_SPECS)?;
        self.at_most(
            "faults.lose_ack",
            raw.lose_ack.len(),
            bounds::MAX_FAULT_SPECS,
        )?;
        self.at_most(
            "faults.duplicate_delivery",
            raw.duplicate_delivery.len(),
            bounds::MAX_FAULT_SPECS,
        )?;
        self.at_most(
            "faults.publish_timeout",
            raw.publish_timeout.len(),
            bounds::MAX_FAULT_SPECS,
        )?;
        let fail = self.fails(raw.fail, workload, protocol)?;
        let stall = self.stalls(raw.stall, workload, protocol)?;
        let lose_ack = self.delivery_faults("faults.lose_ack", raw.lose_ack, workload)?;
        let duplicate_delivery = self.delivery_faults(
            "faults.duplicate_delivery",
            raw.duplicate_delivery,
            workload,
        )?;
        let commit_timeout = self.commit_timeouts(raw.commit_timeout, workload, protocol)?;
        let mut publish_timeout = Vec::new();
        for (i, f) in raw.publish_timeout.into_iter().enumerate() {
            let field = format!("faults.publish_timeout[{i}]");
            publish_timeout.push(PublishFault {
                event: self.opt_event(&format!("{field}.event"), f.event, workload.events)?,
                times: self.range(
                    &format!("{field}.times"),
                    f.times.unwrap_or(1),
                    1,
                    bounds::MAX_FAIL_TIMES,
                )?,
            });
        }
        Ok(FaultPlan {
            crash,
            random_crash,
            fail,
            stall,
            lose_ack,
            duplicate_delivery,
            commit_timeout,
            publish_timeout,
        })
    }

    /// `faults.crash`: each point a step the run takes, each copy one that is published.
    pub(super) fn crashes(
        &self,
        crashes: Vec<RawCrash>,
        workload: &Workload,
        protocol: &Protocol,
        producer: &ProducerConfig,
    ) -> Result<Vec<CrashSpec>, ScenarioError> {
        // Events minted by a per-attempt identity are numbered after the workload's.
        let crash_events = if producer.identity == Identity::PerAttempt {
            bounds::MAX_EVENTS as usize * 2
        } else {
            workload.events
        };
        if crashes.len() > bounds::MAX_CRASHES as usize {
            return Err(self.err(
                "faults.crash",
                Faults::TooManyCrashes {
                    max: bounds::MAX_CRASHES,
                },
            ));
        }
        let mut crash = Vec::new();
        for (i, c) in crashes.into_iter().enumerate() {
            let mut at = Boundary::parse(&c.at)
                .map_err(|e| self.bad_point(format!("faults.crash[{i}].at"), e, protocol))?;
            at.step = protocol.resolve(at.step);
            if !crate::scenario::runs_step(protocol, producer, at.step) {
                return Err(self.missing_step(
                    format!("faults.crash[{i}].at"),
                    protocol,
                    at.step,
                    Consequence::NeverReached { at: c.at.clone() },
                ));
            }
            if let Some(u) = crate::scenario::missing_occurrence(protocol, at.step, at.nth, &c.at) {
                return Err(self.err(
                    format!("faults.crash[{i}].at"),
                    Faults::Unreached(Box::new(u)),
                ));
            }
            let event =
                self.opt_event(&format!("faults.crash[{i}].event"), c.event, crash_events)?;
            let republished = || workload.republish.iter().chain(&workload.republish_altered);
            let copies = event.map_or(republished().count(), |e| {
                republished().filter(|&&r| r == e).count()
            });
            if let Some(copy) = c
                .copy
                .filter(|_| at.step.actor() == crate::model::StepActor::Consumer)
            {
                if copy as usize > copies {
                    return Err(self.err(
                        format!("faults.crash[{i}].copy"),
                        Faults::CopyNeverPublished { copy, copies },
                    ));
                }
            }
            crash.push(CrashSpec {
                at,
                event,
                copy: c.copy,
                delivery: self.delivery(&format!("faults.crash[{i}].delivery"), c.delivery)?,
            });
        }
        Ok(crash)
    }

    /// `faults.fail`: consumer steps of the protocol, failed a number of times or until a
    /// tick.
    pub(super) fn fails(
        &self,
        fails: Vec<RawFail>,
        workload: &Workload,
        protocol: &Protocol,
    ) -> Result<Vec<FailSpec>, ScenarioError> {
        let mut fail = Vec::new();
        for (i, f) in fails.into_iter().enumerate() {
            let field = format!("faults.fail[{i}].at");
            let (step, nth) = self.failing_step(&field, &f.at, protocol)?;
            if f.times.is_some() && f.until_tick.is_some() {
                return Err(self.err(
                    format!("faults.fail[{i}].until_tick"),
                    Faults::TimesAndUntilTick,
                ));
            }
            fail.push(FailSpec {
                step,
                nth,
                event: self.opt_event(
                    &format!("faults.fail[{i}].event"),
                    f.event,
                    workload.events,
                )?,
                delivery: self.delivery(&format!("faults.fail[{i}].delivery"), f.delivery)?,
                times: self.range(
                    &format!("faults.fail[{i}].times"),
                    f.times.unwrap_or(1),
                    1,
                    bounds::MAX_FAIL_TIMES,
                )?,
                until_tick: f
                    .until_tick
                    .map(|t| {
                        self.range(
                            &format!("faults.fail[{i}].until_tick"),
                            t,
                            1,
                            bounds::MAX_TICKS,
                        )
                    })
                    .transpose()?,
            });
        }
        Ok(fail)
    }

    /// The step (and its occurrence, if written) a `faults.fail` entry at `field` names
    /// with `at`: a consumer step the protocol runs, other than `receive`.
    fn failing_step(
        &self,
        field: &str,
        at: &str,
        protocol: &Protocol,
    ) -> Result<(Step, Option<u8>), ScenarioError> {
        let (name, nth) = split_occurrence(at, at).map_err(|e| self.bad_occurrence(field, e))?;
        let step = Step::parse(name)
            .map(|s| protocol.resolve(s))
            .ok_or_else(|| {
                self.err(
                    field,
                    Faults::UnknownFailStep {
                        at: at.to_string(),
                        own_steps: protocol.own_steps(),
                    },
                )
            })?;
        if step.actor() != crate::model::StepActor::Consumer {
            return Err(self.err(field, Faults::FailNotConsumer { step }));
        }
        if step == Step::Receive {
            return Err(self.err(field, Faults::ReceiveCannotFail));
        }
        if !protocol.runs(step) {
            return Err(self.missing_step(field, protocol, step, Consequence::Plain));
        }
        self.occurrence(field, protocol, step, nth)?;
        Ok((step, nth))
    }

    /// `faults.stall`: boundaries of the protocol's steps, held for some ticks.
    pub(super) fn stalls(
        &self,
        stalls: Vec<RawStall>,
        workload: &Workload,
        protocol: &Protocol,
    ) -> Result<Vec<StallSpec>, ScenarioError> {
        let mut stall = Vec::new();
        for (i, st) in stalls.into_iter().enumerate() {
            let field = format!("faults.stall[{i}]");
            let mut at = Boundary::parse(&st.at)
                .map_err(|e| self.bad_point(format!("{field}.at"), e, protocol))?;
            at.step = protocol.resolve(at.step);
            // The upstream processes' steps are refused for what they are: the relay may well
            // run, and "does not run" would send the user to `producer.mode` for nothing.
            if at.step.actor() != crate::model::StepActor::Consumer {
                return Err(self.err(
                    format!("{field}.at"),
                    Faults::StallNotConsumer { step: at.step },
                ));
            }
            if !protocol.runs(at.step) {
                return Err(self.missing_step(
                    format!("{field}.at"),
                    protocol,
                    at.step,
                    Consequence::Plain,
                ));
            }
            if let Some(u) = crate::scenario::missing_occurrence(protocol, at.step, at.nth, &st.at)
            {
                return Err(self.err(format!("{field}.at"), Faults::Unreached(Box::new(u))));
            }
            stall.push(StallSpec {
                at,
                event: self.opt_event(&format!("{field}.event"), st.event, workload.events)?,
                delivery: self.delivery(&format!("{field}.delivery"), st.delivery)?,
                ticks: self.range(
                    &format!("{field}.ticks"),
                    st.ticks,
                    1,
                    bounds::MAX_DELAY_TICKS,
                )?,
            });
        }
        Ok(stall)
    }

    /// A step's occurrence (`commit#2`) the protocol runs: not more than it repeats it.
    fn occurrence(
        &self,
        field: &str,
        protocol: &Protocol,
        step: Step,
        nth: Option<u8>,
    ) -> Result<(), ScenarioError> {
        let Some(nth) = nth else { return Ok(()) };
        let what = format!("{step}#{nth}");
        match crate::scenario::missing_occurrence(protocol, step, nth, &what) {
            Some(u) => Err(self.err(field, Faults::Unreached(Box::new(u)))),
            None => Ok(()),
        }
    }

    /// `faults.commit_timeout`: only for a protocol that commits.
    pub(super) fn commit_timeouts(
        &self,
        timeouts: Vec<RawCommitTimeout>,
        workload: &Workload,
        protocol: &Protocol,
    ) -> Result<Vec<CommitTimeoutSpec>, ScenarioError> {
        if timeouts.len() > bounds::MAX_CRASHES as usize {
            return Err(self.err(
                "faults.commit_timeout",
                Faults::TooManyCommitTimeouts {
                    max: bounds::MAX_CRASHES,
                },
            ));
        }
        let mut commit_timeout = Vec::new();
        for (i, t) in timeouts.into_iter().enumerate() {
            let field = format!("faults.commit_timeout[{i}]");
            if !protocol.has(Step::Commit) {
                return Err(self.missing_step(
                    field,
                    protocol,
                    Step::Commit,
                    Consequence::NoCommitTimeout,
                ));
            }
            let nth = match &t.at {
                None => None,
                Some(at) => {
                    let field = format!("{field}.at");
                    let (name, nth) =
                        split_occurrence(at, at).map_err(|e| self.bad_occurrence(&field, e))?;
                    if name != "commit" {
                        return Err(self.err(&field, Faults::NotACommit { at: at.clone() }));
                    }
                    self.occurrence(&field, protocol, Step::Commit, nth)?;
                    nth
                }
            };
            commit_timeout.push(CommitTimeoutSpec {
                nth,
                event: self.opt_event(&format!("{field}.event"), t.event, workload.events)?,
                delivery: self.delivery(&format!("{field}.delivery"), t.delivery)?,
                applied: t.applied,
            });
        }
        Ok(commit_timeout)
    }

    pub(super) fn delivery_faults(
        &self,
        name: &str,
        raw: Vec<RawDeliveryFault>,
        workload: &Workload,
    ) -> Result<Vec<DeliveryFault>, ScenarioError> {
        raw.into_iter()
            .enumerate()
            .map(|(i, f)| {
                let field = format!("{name}[{i}]");
                Ok(DeliveryFault {
                    event: self.opt_event(&format!("{field}.event"), f.event, workload.events)?,
                    delivery: self.delivery(&format!("{field}.delivery"), f.delivery)?,
                    times: self.range(
                        &format!("{field}.times"),
                        f.times.unwrap_or(1),
                        1,
                        bounds::MAX_FAIL_TIMES,
                    )?,
                })
            })
            .collect()
    }

    /// At most `max` entries in the list `field`.
    pub(super) fn at_most(&self, field: &str, len: usize, max: usize) -> Result<(), ScenarioError> {
        if len > max {
            return Err(self.err(field, Faults::TooManyEntries { len, max }));
        }
        Ok(())
    }

    /// A crash point at `field` that does not parse, with `protocol`'s own steps when the
    /// list of built-in steps lacks them.
    fn bad_point(&self, field: String, error: PointError, protocol: &Protocol) -> ScenarioError {
        let own_steps = protocol.own_steps();
        self.err(field, Faults::BadPoint { error, own_steps })
    }

    /// A step's occurrence (`commit#x`) at `field` that does not parse.
    fn bad_occurrence(&self, field: &str, error: PointError) -> ScenarioError {
        let own_steps = None;
        self.err(field, Faults::BadPoint { error, own_steps })
    }
}
