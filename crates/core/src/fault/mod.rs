//! Faults: the plan of what goes wrong in a run, and the injector that decides, at each step
//! boundary, whether the consumer crashes there, a step fails, or a commit's answer is lost.
//!
//! Faults are inputs to the simulation, never `Err`s: a crash is a transition of the
//! consumer, a failed step is an answer the consumer must handle. Random faults draw from
//! the run's fault stream only, so a plan's randomness never disturbs the workload's.

pub use crate::model::CrashCause;
use crate::model::{Boundary, BoundaryPoint, Delivery, EventIndex, Side, Step, StepFaults, Tick};
use crate::sim::rng::{SimRng, Stream};
use serde::Serialize;

/// A crash at a named boundary, optionally only for one event, one publication of it, and
/// one delivery attempt. It fires once, at the first boundary it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CrashSpec {
    pub at: Boundary,
    pub event: Option<EventIndex>,
    pub copy: Option<u32>,
    pub delivery: Option<u32>,
}

impl CrashSpec {
    /// The spec that hits exactly `point`.
    pub fn exactly(point: BoundaryPoint) -> CrashSpec {
        CrashSpec {
            at: point.boundary,
            event: Some(point.event),
            copy: Some(point.copy),
            delivery: Some(point.delivery),
        }
    }

    pub fn matches(&self, p: &BoundaryPoint) -> bool {
        self.at == p.boundary
            && self.event.is_none_or(|e| e == p.event)
            && self.copy.is_none_or(|c| c == p.copy)
            && self.delivery.is_none_or(|d| d == p.delivery)
    }
}

/// Crashes drawn from the seed: each protocol step is hit with probability
/// `per_step_ppm` parts per million (then before or after it, half and half), at most
/// `max_crashes` times in the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RandomCrash {
    pub per_step_ppm: u32,
    pub max_crashes: u32,
}

/// A step that returns an error instead of completing, `times` times, or (with
/// `until_tick`) every time it runs before that virtual tick: a poison message, until the
/// bug is fixed at `until_tick`. For `apply_effect` the debit runs and the credit fails, as
/// in the seeds' "applyCredit fails".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FailSpec {
    pub step: Step,
    /// Only the `nth` occurrence of a step the protocol repeats (`commit#2`); `None`:
    /// every occurrence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nth: Option<u8>,
    pub event: Option<EventIndex>,
    pub delivery: Option<u32>,
    /// How many times it fails; ignored with `until_tick`.
    pub times: u32,
    /// `Some(t)`: fails on every match before tick `t`, however many, and never after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_tick: Option<Tick>,
}

/// The `COMMIT` of a delivery times out: the consumer never learns whether it happened.
/// With `applied` it did (SQLite committed, the answer was lost); without, it did not (the
/// transaction was rolled back). It fires once, at the first commit it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CommitTimeoutSpec {
    /// Only the `nth` commit of a protocol that commits more than once; `None`: any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nth: Option<u8>,
    pub event: Option<EventIndex>,
    pub delivery: Option<u32>,
    pub applied: bool,
}

/// A consumer that stops for `ticks` at a boundary without crashing (a long GC pause, a
/// slow disk): it keeps its delivery and its open transaction, and its lease may expire
/// meanwhile. It fires once, at the first boundary it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StallSpec {
    pub at: Boundary,
    pub event: Option<EventIndex>,
    pub delivery: Option<u32>,
    pub ticks: Tick,
}

/// A fault that hits one delivery's message at the broker, `times` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DeliveryFault {
    pub event: Option<EventIndex>,
    pub delivery: Option<u32>,
    pub times: u32,
}

impl DeliveryFault {
    fn matches(&self, d: &Delivery) -> bool {
        self.event.is_none_or(|e| e == d.event) && self.delivery.is_none_or(|a| a == d.attempt)
    }
}

/// Everything that goes wrong in a run, except republishes (which are workload).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FaultPlan {
    pub crash: Vec<CrashSpec>,
    pub random_crash: Option<RandomCrash>,
    pub fail: Vec<FailSpec>,
    pub stall: Vec<StallSpec>,
    /// Acks lost on the way: the consumer believes it acked, the broker never hears it.
    pub lose_ack: Vec<DeliveryFault>,
    /// The broker delivers the message again while the first delivery is in flight.
    pub duplicate_delivery: Vec<DeliveryFault>,
    /// Commits whose answer is lost.
    pub commit_timeout: Vec<CommitTimeoutSpec>,
    /// A producer's publish reaches the broker but its confirmation is lost: the producer
    /// sees a timeout and publishes again.
    pub publish_timeout: Vec<PublishFault>,
}

impl FaultPlan {
    /// The most publications beyond one per intent that a run with this plan and
    /// `republished` republish entries (`workload.republish` and `republish_altered`) can
    /// make: one per republish entry, per planned crash and per random crash (a
    /// producer retries the request it got no answer for; a relay sends again the row it
    /// had not marked), and per publish timeout (the producer publishes again). The healing
    /// phase injects nothing. Under a per-attempt identity each is a new event, so this
    /// bounds the events a run mints.
    pub fn republication_budget(&self, republished: usize) -> u64 {
        let timeouts: u64 = self
            .publish_timeout
            .iter()
            .map(|f| u64::from(f.times))
            .sum();
        republished as u64
            + self.crash.len() as u64
            + self.random_crash.map_or(0, |r| u64::from(r.max_crashes))
            + timeouts
    }
}

/// A fault on the producer's publication of one intent's event, `times` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PublishFault {
    pub event: Option<EventIndex>,
    pub times: u32,
}

/// A crash that happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CrashRecord {
    pub tick: Tick,
    pub point: BoundaryPoint,
    pub cause: CrashCause,
    /// Whether SQLite rolled back an open transaction because of it.
    pub dropped_transaction: bool,
    /// What was durable for the crashed delivery's event right after the crash.
    pub confirmed: Confirmed,
}

/// The confirmed state of one event at an instant: its committed rows and whether the
/// broker holds an ack for the delivery. This is the seeds' "estado confirmado".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Confirmed {
    pub ledger_rows: u32,
    pub inbox_rows: u32,
    pub acked: bool,
}

impl Confirmed {
    /// `nothing`, or what is there: `effect + inbox row + ack`, `inbox row`, …
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.ledger_rows > 0 {
            parts.push("effect");
        }
        if self.inbox_rows > 0 {
            parts.push("inbox row");
        }
        if self.acked {
            parts.push("ack");
        }
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(" + ")
        }
    }
}

/// What a step asks the fault injector ([`FaultInjector::step_faults`]).
#[derive(Clone, Copy, Debug)]
pub enum StepQuery<'a> {
    /// The `nth` occurrence of a consumer's protocol `step`, with `delivery` in hand, at
    /// tick `now`; `decided` is whether it fails, when a turn of the same step was asked
    /// already.
    Consumer {
        step: Step,
        nth: u8,
        delivery: &'a Delivery,
        now: Tick,
        decided: Option<bool>,
    },
    /// A publication of intent (or event) `event`: the producer's `publish`, the events
    /// relay's send.
    Publish { event: EventIndex },
}

/// Applies a [`FaultPlan`] during one run.
#[derive(Debug)]
pub struct FaultInjector {
    plan: FaultPlan,
    fired: Vec<bool>,
    fails_left: Vec<u32>,
    stalls_fired: Vec<bool>,
    lose_ack_left: Vec<u32>,
    duplicate_left: Vec<u32>,
    publish_timeout_left: Vec<u32>,
    timeouts_fired: Vec<bool>,
    random_crashes: u32,
    /// A random crash drawn for the "after" side of the step now running.
    pending_after: Option<BoundaryPoint>,
    rng: SimRng,
}

impl FaultInjector {
    pub fn new(plan: FaultPlan, seed: u64) -> FaultInjector {
        FaultInjector {
            fired: vec![false; plan.crash.len()],
            fails_left: plan.fail.iter().map(|f| f.times).collect(),
            stalls_fired: vec![false; plan.stall.len()],
            lose_ack_left: plan.lose_ack.iter().map(|f| f.times).collect(),
            duplicate_left: plan.duplicate_delivery.iter().map(|f| f.times).collect(),
            publish_timeout_left: plan.publish_timeout.iter().map(|f| f.times).collect(),
            timeouts_fired: vec![false; plan.commit_timeout.len()],
            random_crashes: 0,
            pending_after: None,
            rng: SimRng::new(seed, Stream::Faults),
            plan,
        }
    }

    /// The healing phase begins: no fault of the plan fires any more (and none is left to
    /// fingerprint).
    pub fn heal(&mut self) {
        *self = FaultInjector::new(FaultPlan::default(), 0);
    }

    /// Called at every boundary the consumer reaches; says whether it crashes there.
    /// Planned crashes take precedence; random draws happen once per step, at its
    /// "before" boundary, so the number of draws does not depend on where crashes land.
    pub fn crash_at(&mut self, point: &BoundaryPoint) -> Option<CrashCause> {
        if point.boundary.side == Side::Before {
            self.pending_after = None;
            if let Some(rc) = self.plan.random_crash {
                if self.rng.chance_ppm(rc.per_step_ppm) && self.random_crashes < rc.max_crashes {
                    let after = self.rng.below(2) == 1;
                    if after {
                        self.pending_after = Some(BoundaryPoint {
                            boundary: point.boundary.opposite(),
                            ..*point
                        });
                    } else if self.planned(point).is_none() {
                        self.random_crashes += 1;
                        return Some(CrashCause::Random);
                    }
                }
            }
        }
        if let Some(i) = self.planned(point) {
            self.fired[i] = true;
            return Some(CrashCause::Planned(i));
        }
        if point.boundary.side == Side::After && self.pending_after.take() == Some(*point) {
            self.random_crashes += 1;
            return Some(CrashCause::Random);
        }
        None
    }

    fn planned(&self, point: &BoundaryPoint) -> Option<usize> {
        (0..self.plan.crash.len()).find(|&i| !self.fired[i] && self.plan.crash[i].matches(point))
    }

    /// The faults of one turn of a step, all asked here, once: for a consumer's step,
    /// whether it fails (unless `decided` already, on a retry after busy), whether its
    /// commit times out and, when it does not fail, whether its ack is lost; for a
    /// publication, whether its confirmation times out.
    pub fn step_faults(&mut self, q: StepQuery) -> StepFaults {
        match q {
            StepQuery::Consumer {
                step,
                nth,
                delivery,
                now,
                decided,
            } => {
                let fails = decided.unwrap_or_else(|| self.fails(step, nth, delivery, now));
                StepFaults {
                    fails,
                    commit_timeout: (step == Step::Commit)
                        .then(|| self.commit_timeout(delivery, nth))
                        .flatten(),
                    loses_ack: step == Step::Ack && !fails && self.loses_ack(delivery),
                    publish_times_out: false,
                }
            }
            StepQuery::Publish { event } => StepFaults {
                publish_times_out: self.publish_times_out(event),
                ..StepFaults::default()
            },
        }
    }

    /// Whether the `nth` occurrence of `step` in `delivery` fails at tick `now` (and uses
    /// up one of its failures if so; a failure `until_tick` is never used up, only
    /// outlived).
    fn fails(&mut self, step: Step, nth: u8, delivery: &Delivery, now: Tick) -> bool {
        let hit = self.plan.fail.iter().enumerate().find(|(i, f)| {
            f.until_tick.map_or(self.fails_left[*i] > 0, |t| now < t)
                && f.step == step
                && f.nth.is_none_or(|n| n == nth)
                && f.event.is_none_or(|e| e == delivery.event)
                && f.delivery.is_none_or(|d| d == delivery.attempt)
        });
        match hit {
            Some((i, f)) => {
                if f.until_tick.is_none() {
                    self.fails_left[i] -= 1;
                }
                true
            }
            None => false,
        }
    }

    /// The commit timeout planned for the `nth` commit of `d`, if one is left: its index
    /// and whether the commit is applied. Nothing is used up until
    /// [`Self::fire_commit_timeout`] (a commit that SQLite answers busy has not happened
    /// yet).
    fn commit_timeout(&self, d: &Delivery, nth: u8) -> Option<(usize, bool)> {
        (0..self.plan.commit_timeout.len())
            .find(|&i| {
                let t = &self.plan.commit_timeout[i];
                !self.timeouts_fired[i]
                    && t.nth.is_none_or(|n| n == nth)
                    && t.event.is_none_or(|e| e == d.event)
                    && t.delivery.is_none_or(|a| a == d.attempt)
            })
            .map(|i| (i, self.plan.commit_timeout[i].applied))
    }

    /// Commit timeout `i` happened.
    pub fn fire_commit_timeout(&mut self, i: usize) {
        assert!(!self.timeouts_fired[i], "a commit timeout fires once");
        self.timeouts_fired[i] = true;
    }

    /// Whether the consumer stalls at `point`, and for how long.
    pub fn stall_at(&mut self, point: &BoundaryPoint) -> Option<Tick> {
        let i = (0..self.plan.stall.len()).find(|&i| {
            let s = &self.plan.stall[i];
            !self.stalls_fired[i]
                && s.at == point.boundary
                && s.event.is_none_or(|e| e == point.event)
                && s.delivery.is_none_or(|d| d == point.delivery)
        })?;
        self.stalls_fired[i] = true;
        Some(self.plan.stall[i].ticks)
    }

    /// Whether the ack of `d` is lost on the way to the broker.
    fn loses_ack(&mut self, d: &Delivery) -> bool {
        use_up(&self.plan.lose_ack, &mut self.lose_ack_left, d)
    }

    /// Whether the broker delivers `d`'s message again right after delivering `d`.
    pub fn duplicates_delivery(&mut self, d: &Delivery) -> bool {
        use_up(&self.plan.duplicate_delivery, &mut self.duplicate_left, d)
    }

    /// Whether the producer's publication of intent `event`'s event times out (it reached
    /// the broker; the confirmation did not come back).
    fn publish_times_out(&mut self, event: EventIndex) -> bool {
        let hit = (0..self.plan.publish_timeout.len()).find(|&i| {
            self.publish_timeout_left[i] > 0
                && self.plan.publish_timeout[i]
                    .event
                    .is_none_or(|e| e == event)
        });
        if let Some(i) = hit {
            self.publish_timeout_left[i] -= 1;
        }
        hit.is_some()
    }
}

/// What is left of the plan: the faults that can still fire, in plan order (a fault is
/// always the first one left that matches, so the order of those left is what decides),
/// with what each has left, and the random stream's position. Faults used up or outlived
/// are left out: they fire no more, so two runs that used up different ones have the same
/// future.
/// The step failures still to come: counted ones with failures left, and ones that fail
/// until a tick not yet reached (fed by how long that still is).
fn fail_faults(fail: &[FailSpec], fails_left: &[u32], now: Tick, h: &mut crate::sim::StateHasher) {
    for (spec, left) in fail.iter().zip(fails_left) {
        let FailSpec {
            step,
            nth,
            event,
            delivery,
            times: _,
            until_tick,
        } = spec;
        match until_tick {
            // Fails on every match before `t`: what decides is how long that still is.
            Some(t) if *t > now => {
                h.value(&(step, nth, event, delivery));
                h.instant(*t, now);
            }
            Some(_) => {}
            None if *left > 0 => h.value(&(step, nth, event, delivery, left)),
            None => {}
        }
    }
}

impl crate::sim::Fingerprint for FaultInjector {
    fn fingerprint(&self, now: Tick, h: &mut crate::sim::StateHasher) {
        let FaultInjector {
            plan,
            fired,
            fails_left,
            stalls_fired,
            lose_ack_left,
            duplicate_left,
            publish_timeout_left,
            timeouts_fired,
            random_crashes,
            pending_after,
            rng,
        } = self;
        let FaultPlan {
            crash,
            random_crash,
            fail,
            stall,
            lose_ack,
            duplicate_delivery,
            commit_timeout,
            publish_timeout,
        } = plan;
        h.section("crash");
        unfired(crash, fired, h, crash_key);
        h.section("random");
        h.value(&(
            random_crash.map(|r| (r.per_step_ppm, r.max_crashes)),
            random_crashes,
        ));
        h.value(pending_after);
        rng.fingerprint(now, h);
        h.section("fail");
        fail_faults(fail, fails_left, now, h);
        h.section("stall");
        unfired(stall, stalls_fired, h, stall_key);
        h.section("lose_ack");
        #[cfg(any(test, feature = "test-support"))]
        let lose_ack_left: &[u32] = if h.omit_lose_ack_budget {
            &[] // The deliberately broken fingerprint of `explore::tests`.
        } else {
            lose_ack_left
        };
        delivery_faults(lose_ack, lose_ack_left, h);
        h.section("duplicate_delivery");
        delivery_faults(duplicate_delivery, duplicate_left, h);
        h.section("commit_timeout");
        unfired(commit_timeout, timeouts_fired, h, commit_timeout_key);
        h.section("publish_timeout");
        for (spec, left) in publish_timeout.iter().zip(publish_timeout_left) {
            let PublishFault { event, times: _ } = spec;
            if *left > 0 {
                h.value(&(event, left));
            }
        }
    }
}

/// The planned faults of one kind that have not fired, each by what `key` takes of it (all
/// of it: `key` destructures the whole spec, so a field added to one does not compile until
/// its author decides here whether it decides the future).
fn unfired<T, K: std::hash::Hash>(
    specs: &[T],
    fired: &[bool],
    h: &mut crate::sim::StateHasher,
    key: impl Fn(&T) -> K,
) {
    for (spec, fired) in specs.iter().zip(fired) {
        if !fired {
            h.value(&key(spec));
        }
    }
}

/// A planned crash, whole, as its fingerprint takes it.
fn crash_key(
    CrashSpec {
        at,
        event,
        copy,
        delivery,
    }: &CrashSpec,
) -> impl std::hash::Hash {
    (*at, *event, *copy, *delivery)
}

/// A planned stall, whole, as its fingerprint takes it.
fn stall_key(
    StallSpec {
        at,
        event,
        delivery,
        ticks,
    }: &StallSpec,
) -> impl std::hash::Hash {
    (*at, *event, *delivery, *ticks)
}

/// A planned commit timeout, whole, as its fingerprint takes it.
fn commit_timeout_key(
    CommitTimeoutSpec {
        nth,
        event,
        delivery,
        applied,
    }: &CommitTimeoutSpec,
) -> impl std::hash::Hash {
    (*nth, *event, *delivery, *applied)
}

/// The delivery faults with times left, and how many.
fn delivery_faults(faults: &[DeliveryFault], left: &[u32], h: &mut crate::sim::StateHasher) {
    for (spec, left) in faults.iter().zip(left) {
        let DeliveryFault {
            event,
            delivery,
            times: _,
        } = spec;
        if *left > 0 {
            h.value(&(event, delivery, left));
        }
    }
}

/// Uses up one of the first matching fault's remaining times.
fn use_up(faults: &[DeliveryFault], left: &mut [u32], d: &Delivery) -> bool {
    match (0..faults.len()).find(|&i| left[i] > 0 && faults[i].matches(d)) {
        Some(i) => {
            left[i] -= 1;
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(b: Boundary, event: usize, delivery: u32) -> BoundaryPoint {
        BoundaryPoint {
            boundary: b,
            event,
            copy: 0,
            delivery,
        }
    }

    #[test]
    fn a_planned_crash_fires_once_at_the_first_match() {
        let plan = FaultPlan {
            crash: vec![CrashSpec {
                at: Boundary::after(Step::Commit),
                event: None,
                copy: None,
                delivery: Some(1),
            }],
            ..Default::default()
        };
        let mut f = FaultInjector::new(plan, 1);
        assert_eq!(
            f.crash_at(&point(Boundary::before(Step::Commit), 0, 1)),
            None
        );
        assert_eq!(
            f.crash_at(&point(Boundary::after(Step::Commit), 0, 1)),
            Some(CrashCause::Planned(0))
        );
        assert_eq!(
            f.crash_at(&point(Boundary::after(Step::Commit), 1, 1)),
            None
        );
    }

    #[test]
    fn crash_specs_filter_on_event_copy_and_delivery() {
        let spec = CrashSpec {
            at: Boundary::before(Step::Ack),
            event: Some(2),
            copy: Some(1),
            delivery: None,
        };
        let p = BoundaryPoint {
            boundary: Boundary::before(Step::Ack),
            event: 2,
            copy: 1,
            delivery: 3,
        };
        assert!(spec.matches(&p));
        assert!(!spec.matches(&BoundaryPoint { copy: 0, ..p }));
        assert!(!spec.matches(&BoundaryPoint { event: 1, ..p }));
        assert!(CrashSpec::exactly(p).matches(&p));
        assert!(!CrashSpec::exactly(p).matches(&BoundaryPoint { delivery: 2, ..p }));
    }

    #[test]
    fn random_crashes_respect_their_cap_and_the_seed() {
        let plan = FaultPlan {
            random_crash: Some(RandomCrash {
                per_step_ppm: 1_000_000,
                max_crashes: 3,
            }),
            ..Default::default()
        };
        let run = |seed| {
            let mut f = FaultInjector::new(plan.clone(), seed);
            let mut hits = Vec::new();
            for i in 0..20 {
                for b in [
                    Boundary::before(Step::Commit),
                    Boundary::after(Step::Commit),
                ] {
                    if f.crash_at(&point(b, i, 1)).is_some() {
                        hits.push((i, b));
                    }
                }
            }
            hits
        };
        assert_eq!(run(5).len(), 3, "every step is hit until the cap");
        assert_eq!(run(5), run(5), "same seed, same crashes");
    }

    #[test]
    fn failures_are_used_up() {
        let plan = FaultPlan {
            fail: vec![FailSpec {
                step: Step::ApplyEffect,
                nth: None,
                event: Some(0),
                delivery: None,
                times: 2,
                until_tick: None,
            }],
            ..Default::default()
        };
        let mut f = FaultInjector::new(plan, 0);
        let d = Delivery {
            message: 0,
            event: 0,
            copy: 0,
            attempt: 1,
        };
        assert!(!f.fails(Step::Commit, 1, &d, 0));
        assert!(!f.fails(Step::ApplyEffect, 1, &Delivery { event: 1, ..d }, 0));
        assert!(f.fails(Step::ApplyEffect, 1, &d, 0));
        assert!(f.fails(Step::ApplyEffect, 1, &d, 0));
        assert!(!f.fails(Step::ApplyEffect, 1, &d, 0));
    }

    #[test]
    fn a_poison_failure_fails_every_time_until_its_fix() {
        let plan = FaultPlan {
            fail: vec![FailSpec {
                step: Step::Ack,
                nth: None,
                event: Some(1),
                delivery: None,
                times: 1,
                until_tick: Some(50),
            }],
            ..Default::default()
        };
        let mut f = FaultInjector::new(plan, 0);
        let d = Delivery {
            message: 1,
            event: 1,
            copy: 0,
            attempt: 1,
        };
        for (attempt, now) in [(1, 3), (2, 14), (3, 25), (4, 49)] {
            assert!(
                f.fails(Step::Ack, 1, &Delivery { attempt, ..d }, now),
                "t={now}"
            );
        }
        assert!(
            !f.fails(Step::Ack, 1, &Delivery { attempt: 5, ..d }, 50),
            "fixed"
        );
        assert!(!f.fails(Step::Ack, 1, &Delivery { event: 0, ..d }, 3));
    }

    #[test]
    fn a_commit_timeout_is_found_without_being_used_up_and_fires_once() {
        let plan = FaultPlan {
            commit_timeout: vec![
                CommitTimeoutSpec {
                    nth: None,
                    event: Some(0),
                    delivery: None,
                    applied: true,
                },
                CommitTimeoutSpec {
                    nth: None,
                    event: Some(1),
                    delivery: Some(2),
                    applied: false,
                },
            ],
            ..Default::default()
        };
        let mut f = FaultInjector::new(plan, 0);
        let d = Delivery {
            message: 0,
            event: 0,
            copy: 0,
            attempt: 1,
        };
        assert_eq!(f.commit_timeout(&d, 1), Some((0, true)));
        assert_eq!(
            f.commit_timeout(&d, 1),
            Some((0, true)),
            "not used up by asking"
        );
        f.fire_commit_timeout(0);
        assert_eq!(f.commit_timeout(&d, 1), None);
        let e1 = Delivery { event: 1, ..d };
        assert_eq!(f.commit_timeout(&e1, 1), None, "only the second delivery");
        assert_eq!(
            f.commit_timeout(&Delivery { attempt: 2, ..e1 }, 1),
            Some((1, false))
        );
    }
}
