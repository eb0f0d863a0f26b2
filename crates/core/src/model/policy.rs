//! Error policies (issue 35): what a consumer does when a step of its protocol fails, named
//! after what message frameworks do. The default is what the tool always did: roll back and
//! reject, so that the broker redelivers. A framework may instead swallow the error and ack
//! (the event is gone), retry in process a few times first, move the message to a
//! dead-letter queue, or run compensating steps after the rollback (delete the idempotency
//! key it claimed in a transaction of its own).
//!
//! A policy is plain data of the protocol; the consumer (`crate::consumer`) follows it.

use super::{Step, Tick};
use serde::{Deserialize, Serialize};

/// What ends a delivery whose step failed for good (after any in-process retries).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum GiveUp {
    /// Reject the delivery: the broker redelivers it (and, past the broker's
    /// `max_deliveries`, dead-letters it). Nothing is lost by the consumer.
    #[default]
    Redeliver,
    /// Ack the delivery as if it had been processed ("log and skip", an offset committed
    /// after the error handler gave up): the broker forgets it, whatever the failed step
    /// left undone.
    Ack,
    /// Move the message to the dead-letter queue (a `_error` queue, a reject without
    /// requeue): parked for a person until the queue is replayed.
    DeadLetter,
}

impl GiveUp {
    pub fn name(self) -> &'static str {
        match self {
            GiveUp::Redeliver => "redeliver",
            GiveUp::Ack => "ack",
            GiveUp::DeadLetter => "dead_letter",
        }
    }
}

/// In-process retries: after a failure (and its rollback and compensation), the consumer
/// runs its protocol again from the first step after `receive`, on the same delivery,
/// `times` times at most, each after `backoff_ticks`. The count lives in the process: a
/// crash forgets it, as a framework's in-memory retry count is forgotten.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub struct Retry {
    pub times: u8,
    #[serde(skip_serializing_if = "is_zero")]
    pub backoff_ticks: Tick,
}

fn is_zero(t: &Tick) -> bool {
    *t == 0
}

/// A protocol's error policy. After a step fails the consumer rolls back every open
/// transaction, runs `steps` (the compensation, each step with crash points of its own),
/// then retries if `retry` has attempts left, else does what `then` says.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ErrorPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
    /// Compensating steps, run after the rollback of every failed attempt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// The database each compensating step runs on (see `Protocol::step_db`); empty: the
    /// main one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub step_db: Vec<u8>,
    pub then: GiveUp,
}

impl ErrorPolicy {
    /// The most in-process retries a policy may ask for.
    pub const MAX_RETRIES: u8 = 100;

    /// Whether this is the policy every protocol had before policies existed (roll back,
    /// reject, nothing else): its runs trace exactly as they always did.
    pub fn is_default(&self) -> bool {
        *self == ErrorPolicy::default()
    }

    /// How many times the protocol's steps may run for one delivery in one process: the
    /// first attempt and every retry.
    pub fn attempts(&self) -> u16 {
        1 + u16::from(self.retry.map_or(0, |r| r.times))
    }

    /// The database compensating step `k` runs on.
    pub fn db_at(&self, k: usize) -> u8 {
        self.step_db.get(k).copied().unwrap_or(0)
    }
}

/// Why an error policy does not fit its protocol. `position` is the index into the
/// policy's `steps` the error is about, if it is about one. Worded by
/// `report::lang::input`, where the scenario checker's errors are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyError {
    /// Compensating step `at` is neither a SQL step nor `begin` / `commit`.
    NotCompensation { at: usize, step: Step },
    /// A `commit` among the compensating steps with no `begin` before it.
    CommitWithoutBegin { at: usize },
    /// A `begin` among the compensating steps never committed, or nested on its database.
    UnbalancedBegin { at: usize },
    /// `then: ack` in a protocol without an `ack` step.
    AckWithoutAck,
    /// A step repeated by the retries past the occurrences a crash point can number.
    TooManyOccurrences {
        step: Step,
        count: usize,
        attempts: u16,
        total: usize,
        max: usize,
    },
}

impl PolicyError {
    pub fn position(&self) -> Option<usize> {
        match self {
            PolicyError::NotCompensation { at, .. }
            | PolicyError::CommitWithoutBegin { at }
            | PolicyError::UnbalancedBegin { at } => Some(*at),
            PolicyError::AckWithoutAck | PolicyError::TooManyOccurrences { .. } => None,
        }
    }
}

use super::Protocol;

impl Protocol {
    /// The same protocol with error policy `policy`, whose compensating SQL steps are
    /// defined by `defs` (added to the protocol's own definitions).
    pub fn with_error_policy(
        mut self,
        policy: ErrorPolicy,
        defs: Vec<super::SqlStep>,
    ) -> Result<Protocol, PolicyError> {
        check_compensation(&policy)?;
        if policy.then == GiveUp::Ack && !self.has(Step::Ack) {
            return Err(PolicyError::AckWithoutAck);
        }
        let attempts = policy.attempts();
        self.sql.extend(defs);
        self.on_error = policy;
        let max = usize::from(u8::MAX);
        for step in self.body_steps() {
            let count = self.body_count(step);
            let total = count * usize::from(attempts);
            if total > max {
                return Err(PolicyError::TooManyOccurrences {
                    step,
                    count,
                    attempts,
                    total,
                    max,
                });
            }
        }
        Ok(self)
    }

    /// Whether a delivery may run `step`: a step of the protocol, of its compensation, or
    /// the dead letter its policy ends with.
    pub fn runs(&self, step: Step) -> bool {
        self.body_steps().any(|s| s == step)
            || (step == Step::DeadLetter && self.on_error.then == GiveUp::DeadLetter)
    }

    /// The steps one attempt may run, in order: the protocol's, then its compensation
    /// (positions from `steps.len()` on).
    pub fn body_steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.steps.iter().chain(&self.on_error.steps).copied()
    }

    /// Step `at` of [`Protocol::body_steps`].
    pub fn body_step(&self, at: usize) -> Step {
        match at.checked_sub(self.steps.len()) {
            None => self.steps[at],
            Some(k) => self.on_error.steps[k],
        }
    }

    /// The database step `at` of [`Protocol::body_steps`] runs on.
    pub fn body_db_at(&self, at: usize) -> u8 {
        match at.checked_sub(self.steps.len()) {
            None => self.db_at(at),
            Some(k) => self.on_error.db_at(k),
        }
    }

    /// How many times `step` appears in one attempt's steps.
    pub fn body_count(&self, step: Step) -> usize {
        self.body_steps().filter(|s| *s == step).count()
    }

    /// Which occurrence of its step body step `at` is in attempt `round` (from 1): the
    /// occurrences of an attempt follow those of the one before, as if every earlier
    /// attempt had run all its steps, so that the number names one place and one attempt.
    /// The steps a delivery runs once (`receive`, `ack`, `produce_output`) keep their
    /// number: a retry's ack is the delivery's ack, and the trace names it `ack`.
    pub fn occurrence_in(&self, at: usize, round: u8) -> u8 {
        let step = self.body_step(at);
        let own = self
            .body_steps()
            .take(at + 1)
            .filter(|s| *s == step)
            .count();
        let n = own + self.round_offset(step) * usize::from(round.max(1) - 1);
        u8::try_from(n).expect("bounded by Protocol::with_error_policy")
    }

    /// How much an attempt adds to the occurrence numbers of `step` (see
    /// [`Protocol::occurrence_in`]).
    pub fn round_offset(&self, step: Step) -> usize {
        match step {
            Step::Receive | Step::Ack | Step::ProduceOutput => 0,
            step => self.body_count(step),
        }
    }

    /// How many passes over its steps one delivery may make in one process: one per
    /// attempt and, with a `goto`, one more per jump back, as long as every occurrence
    /// number still fits a crash point's (255).
    pub fn max_passes(&self) -> u8 {
        let widest = self.body_steps().map(|s| self.round_offset(s)).max();
        let fit = usize::from(u8::MAX) / widest.unwrap_or(1).max(1);
        let loops = self.sql.iter().any(|d| d.goto.is_some());
        let passes = match loops {
            true => fit,
            false => usize::from(self.on_error.attempts()).min(fit),
        };
        u8::try_from(passes).unwrap_or(u8::MAX).max(1)
    }

    /// The position in [`Protocol::body_steps`] of the `nth` occurrence of `step` (in any
    /// pass), or `None` if no pass runs it that often.
    pub fn body_position(&self, step: Step, nth: u8) -> Option<usize> {
        let count = self.body_count(step);
        let n = usize::from(nth).checked_sub(1)?;
        let most = count + self.round_offset(step) * usize::from(self.max_passes() - 1);
        if n >= most {
            return None;
        }
        self.body_steps()
            .enumerate()
            .filter(|(_, s)| *s == step)
            .nth(n % count)
            .map(|(at, _)| at)
    }
}

/// Compensating steps are SQL steps, with `begin` and `commit` paired per database.
fn check_compensation(policy: &ErrorPolicy) -> Result<(), PolicyError> {
    let mut open: std::collections::BTreeMap<u8, usize> = Default::default();
    for (at, step) in policy.steps.iter().enumerate() {
        let db = policy.db_at(at);
        match step {
            Step::Sql(_) => {}
            Step::Begin if open.contains_key(&db) => {
                return Err(PolicyError::UnbalancedBegin { at })
            }
            Step::Begin => {
                open.insert(db, at);
            }
            Step::Commit => {
                if open.remove(&db).is_none() {
                    return Err(PolicyError::CommitWithoutBegin { at });
                }
            }
            step => return Err(PolicyError::NotCompensation { at, step: *step }),
        }
    }
    match open.values().min() {
        Some(at) => Err(PolicyError::UnbalancedBegin { at: *at }),
        None => Ok(()),
    }
}

/// A delivery an error policy gave up on, as the checker is told: which, after which
/// failed step, and what the policy did (a lost event names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub struct GaveUpRecord {
    pub event: super::EventIndex,
    pub copy: u32,
    pub delivery: u32,
    pub step: Step,
    pub nth: u8,
    pub then: GiveUp,
}

impl GaveUpRecord {
    /// Whether the last of `records` (one message's, in order) moved it to the dead-letter
    /// queue at its last delivery, `deliveries`: then the consumer's error policy parked
    /// it, not the broker's `max_deliveries`.
    pub fn dead_lettered_last(records: &[GaveUpRecord], deliveries: u32) -> bool {
        records
            .last()
            .is_some_and(|g| g.then == GiveUp::DeadLetter && g.delivery == deliveries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Boundary, Protocol};

    fn inbox_with(policy: ErrorPolicy) -> Result<Protocol, PolicyError> {
        Protocol::built_in("inbox")
            .unwrap()
            .with_error_policy(policy, Vec::new())
    }

    fn retrying(times: u8) -> ErrorPolicy {
        ErrorPolicy {
            retry: Some(Retry {
                times,
                backoff_ticks: 0,
            }),
            ..ErrorPolicy::default()
        }
    }

    #[test]
    fn an_attempt_numbers_on_from_the_one_before_except_the_once_steps() {
        let p = inbox_with(retrying(2)).unwrap();
        // receive, begin, insert_inbox, apply_effect, commit, ack
        assert_eq!(p.occurrence_in(1, 1), 1);
        assert_eq!(p.occurrence_in(1, 3), 3);
        assert_eq!(
            p.occurrence_in(5, 3),
            1,
            "the ack is the delivery's one ack"
        );
        assert!(p.has_boundary(Boundary::before(Step::Begin).nth(3)));
        assert!(!p.has_boundary(Boundary::before(Step::Begin).nth(4)));
        assert!(!p.has_boundary(Boundary::before(Step::Ack).nth(2)));
        assert!(!p.has_boundary(Boundary::before(Step::DeadLetter)));
        let dead = inbox_with(ErrorPolicy {
            then: GiveUp::DeadLetter,
            ..ErrorPolicy::default()
        })
        .unwrap();
        assert!(dead.has_boundary(Boundary::before(Step::DeadLetter)));
        assert!(dead.runs(Step::DeadLetter) && !p.runs(Step::DeadLetter));
    }

    #[test]
    fn a_repeated_step_maps_back_to_its_place_in_every_attempt() {
        let steps = crate::model::MARK_OWN_TRANSACTION.to_vec();
        let p = Protocol::new("two", "", steps)
            .unwrap()
            .with_error_policy(retrying(1), Vec::new())
            .unwrap();
        // Two commits per attempt: commit#3 is the second attempt's first.
        assert_eq!(
            p.body_position(Step::Commit, 3),
            p.body_position(Step::Commit, 1)
        );
        assert_eq!(p.body_position(Step::Commit, 4), Some(6));
        assert_eq!(p.body_position(Step::Commit, 5), None);
    }

    #[test]
    fn policies_that_cannot_mean_anything_are_refused() {
        let sql = crate::model::sql::intern("undo_for_policy_test").unwrap();
        let with_steps = |steps: Vec<Step>| {
            inbox_with(ErrorPolicy {
                steps,
                ..ErrorPolicy::default()
            })
        };
        assert_eq!(
            with_steps(vec![Step::ApplyEffect]),
            Err(PolicyError::NotCompensation {
                at: 0,
                step: Step::ApplyEffect
            })
        );
        assert_eq!(
            with_steps(vec![Step::Commit]),
            Err(PolicyError::CommitWithoutBegin { at: 0 })
        );
        assert_eq!(
            with_steps(vec![Step::Begin, Step::Sql(sql)]),
            Err(PolicyError::UnbalancedBegin { at: 0 })
        );
        let no_ack = Protocol::new("no-ack", "", vec![Step::Receive, Step::ApplyEffect]).unwrap();
        let ack = ErrorPolicy {
            then: GiveUp::Ack,
            ..ErrorPolicy::default()
        };
        assert_eq!(
            no_ack.with_error_policy(ack, Vec::new()),
            Err(PolicyError::AckWithoutAck)
        );
        let mut long = vec![Step::Receive, Step::ApplyEffect];
        long.extend([Step::ExternalEffect; 60]);
        let long = Protocol::new("long", "", long).unwrap();
        assert!(matches!(
            long.with_error_policy(retrying(4), Vec::new()),
            Err(PolicyError::TooManyOccurrences { total: 300, .. })
        ));
    }
}
