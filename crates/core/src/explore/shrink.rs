//! Shrinking: from a failing run to a minimal run that fails the same way.
//!
//! A sweep finds failures in runs of twenty events with crashes drawn from the seed, lost
//! acks and delays; what a person needs is the smallest schedule that still shows the bug.
//! [`shrink`] searches for it greedily, re-running the deterministic simulator for every
//! candidate:
//!
//! 1. the random crashes become planned crashes at the exact points the run hit (the run
//!    records them), so that every later candidate keeps the crashes that matter;
//! 2. then, until nothing changes: remove events (halves first, then smaller runs of them,
//!    renumbering the events that faults name and dropping the faults of removed events),
//!    remove consumers, remove each crash, remove each other fault and republish, reduce
//!    repeat counts and delays (jitter, stalls, a lease, stale acks), and drop scheduling
//!    choices.
//!
//! A candidate is adopted only if it still fails in the same way and is smaller in the
//! order of [`RunSize`]: fewest events, then consumers, crashes, other faults, steps and
//! last the size of what remains (repeat counts, delays, choices). Sizes only decrease, so
//! the search ends; a run budget bounds it too, and the result says whether the budget
//! stopped it. Every candidate is also written as scenario JSON and read back, so a shrunk
//! scenario is always a valid scenario file and a replay token. Nothing is random: the
//! same input gives the same shrunk run.

use crate::fault::{CrashSpec, FaultPlan};
use crate::model::EventIndex;
use crate::scenario::{token, Scenario};
use crate::world::{self, RunOptions, RunResult};
use serde::Serialize;

/// The default run budget of one shrink.
pub const DEFAULT_MAX_RUNS: u64 = 300;

pub use crate::check::failure::{FailureKind, FailureSignature};

/// How big a failing run is, compared field by field in this order: what shrinking
/// minimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub struct RunSize {
    /// Workload events.
    pub events: usize,
    pub consumers: usize,
    /// Crashes that happened in the run.
    pub crashes: usize,
    /// Every other fault of the plan (and a planned crash that never fired, a republish).
    #[serde(rename = "other_faults")]
    pub faults: usize,
    /// Steps the run took.
    pub steps: u64,
    /// What remains: a random-crash rate, repeat counts beyond one, ticks of delays and
    /// stalls, a lease, stale acks accepted, scheduling choices other than the default.
    #[serde(rename = "remaining_detail")]
    pub detail: u64,
}

impl RunSize {
    /// The size of the run `r` of `scenario` with `schedule`.
    pub fn of(scenario: &Scenario, schedule: &[u32], r: &RunResult) -> RunSize {
        let f = &scenario.faults;
        let fired = r.crashes.len();
        let faults = f.crash.len().saturating_sub(fired)
            + f.fail.len()
            + f.stall.len()
            + f.lose_ack.len()
            + f.duplicate_delivery.len()
            + f.commit_timeout.len()
            + f.publish_timeout.len()
            + scenario.workload.republish.len()
            + scenario.workload.republish_altered.len();
        let repeats = f
            .fail
            .iter()
            .map(|x| x.times)
            .chain(f.lose_ack.iter().map(|x| x.times))
            .chain(f.duplicate_delivery.iter().map(|x| x.times))
            .chain(f.publish_timeout.iter().map(|x| x.times))
            .map(|t| u64::from(t.saturating_sub(1)))
            .sum::<u64>();
        let b = &scenario.broker;
        // A random-crash rate is counted by the crashes it caused; it stays in the detail, so
        // that the same crashes planned at their points are a smaller run.
        let detail = repeats
            + u64::from(f.random_crash.is_some())
            + f.stall.iter().map(|s| s.ticks).sum::<u64>()
            + b.delivery_jitter_ticks.unwrap_or(0)
            + u64::from(b.lease_ticks.is_some())
            + u64::from(b.stale_ack != crate::broker::StaleAck::Reject)
            + schedule.iter().filter(|&&c| c != 0).count() as u64;
        RunSize {
            events: scenario.workload.events,
            consumers: scenario.consumers,
            crashes: fired,
            faults,
            steps: r.steps,
            detail,
        }
    }

    /// `1 event, 1 consumer, 1 crash, 0 other faults, 14 steps`.
    pub fn describe(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "{}, {}, {}, {}, {} steps",
            plural(self.events, "event", "events"),
            plural(self.consumers, "consumer", "consumers"),
            plural(self.crashes, "crash", "crashes"),
            plural(self.faults, "other fault", "other faults"),
            self.steps
        )
    }
}

/// How far to shrink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShrinkOptions {
    /// The most simulator runs one shrink may spend (the first and the last included).
    pub max_runs: u64,
}

impl Default for ShrinkOptions {
    fn default() -> Self {
        ShrinkOptions {
            max_runs: DEFAULT_MAX_RUNS,
        }
    }
}

/// A shrunk failing run.
#[derive(Debug)]
pub struct Shrunk {
    /// The smallest scenario found; no description and no expectations.
    pub scenario: Scenario,
    /// Its scheduling choices (empty: the default schedule).
    pub schedule: Vec<u32>,
    /// Its run, with the full trace.
    pub result: RunResult,
    /// How it fails (for [`shrink`], the original run's signature).
    pub signature: FailureSignature,
    /// The size of the run shrinking started from, and of the shrunk run.
    pub original: RunSize,
    pub size: RunSize,
    /// Simulator runs spent.
    pub runs: u64,
    /// Whether the run budget stopped the search before nothing more could be removed.
    pub exhausted: bool,
}

impl Shrunk {
    /// The replay token of the shrunk run.
    pub fn token(&self) -> String {
        token::encode(&self.scenario, &self.schedule)
    }
}

/// Shrinks the run of `scenario` with `schedule` to a minimal run that fails the same way
/// (the same [`FailureSignature`]); `None` if the run does not fail.
pub fn shrink(scenario: &Scenario, schedule: &[u32], options: ShrinkOptions) -> Option<Shrunk> {
    let first = world::run_scheduled(scenario, hash_only(), schedule);
    let signature = first.failure();
    if signature.is_empty() {
        return None;
    }
    let same = |r: &RunResult| r.failure() == signature;
    shrink_from(scenario, schedule, first, options, &same)
}

/// Shrinks the run of `scenario` with `schedule` to a minimal run for which `still_fails`
/// holds (a property of the caller's: "some event is duplicated", "the email boundary is
/// broken"); `None` if it does not hold for the run given. The result's signature is the
/// shrunk run's own.
pub fn shrink_while(
    scenario: &Scenario,
    schedule: &[u32],
    options: ShrinkOptions,
    still_fails: &dyn Fn(&RunResult) -> bool,
) -> Option<Shrunk> {
    let first = world::run_scheduled(scenario, hash_only(), schedule);
    if !still_fails(&first) {
        return None;
    }
    shrink_from(scenario, schedule, first, options, still_fails)
}

fn hash_only() -> RunOptions {
    RunOptions {
        hash_only: true,
        ..RunOptions::default()
    }
}

fn shrink_from(
    scenario: &Scenario,
    schedule: &[u32],
    first: RunResult,
    options: ShrinkOptions,
    still_fails: &dyn Fn(&RunResult) -> bool,
) -> Option<Shrunk> {
    assert!(
        options.max_runs >= 2,
        "a shrink runs at least the first and the last run"
    );
    let mut start = scenario.clone();
    start.description.clear();
    start.description_es.clear();
    start.expect = None;
    let original = RunSize::of(&start, schedule, &first);
    let mut s = Shrinker {
        still_fails,
        // The last run, with the full trace, is kept out of the candidates' budget.
        max_runs: options.max_runs - 1,
        runs: 1,
        exhausted: false,
        best: Best {
            size: original,
            trace_hash: first.trace.hash_hex(),
            scenario: start,
            schedule: trim(schedule),
        },
    };
    s.planned_crashes(&first);
    while !s.exhausted {
        let mut changed = s.events();
        changed |= s.consumers();
        changed |= s.crashes();
        changed |= s.faults();
        changed |= s.details();
        changed |= s.schedule();
        if !changed {
            break;
        }
    }
    let best = s.best;
    let result = world::run_scheduled(&best.scenario, RunOptions::default(), &best.schedule);
    assert_eq!(
        result.trace.hash_hex(),
        best.trace_hash,
        "a run is a pure function of its scenario and schedule"
    );
    let signature = result.failure();
    Some(Shrunk {
        scenario: best.scenario,
        schedule: best.schedule,
        signature,
        original,
        size: best.size,
        result,
        runs: s.runs + 1,
        exhausted: s.exhausted,
    })
}

/// A schedule without its trailing default choices (the same run).
fn trim(schedule: &[u32]) -> Vec<u32> {
    let keep = schedule.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    schedule[..keep].to_vec()
}

struct Best {
    scenario: Scenario,
    schedule: Vec<u32>,
    size: RunSize,
    trace_hash: String,
}

struct Shrinker<'a> {
    still_fails: &'a dyn Fn(&RunResult) -> bool,
    max_runs: u64,
    runs: u64,
    exhausted: bool,
    best: Best,
}

impl Shrinker<'_> {
    /// Runs a candidate and adopts it if it is a valid scenario, still fails, and is
    /// smaller than the best so far.
    fn try_adopt(&mut self, candidate: Scenario, schedule: Vec<u32>) -> bool {
        let schedule = trim(&schedule);
        if candidate == self.best.scenario && schedule == self.best.schedule {
            return false;
        }
        // Only what a scenario file can say: a candidate that breaks a rule of the loader
        // (a crash on a copy never published, an odd lifecycle) is not a scenario.
        let Ok(candidate) = Scenario::from_json(&candidate.to_json_compact(), "a shrink candidate")
        else {
            return false;
        };
        if self.runs >= self.max_runs {
            self.exhausted = true;
            return false;
        }
        self.runs += 1;
        let r = world::run_scheduled(&candidate, hash_only(), &schedule);
        let refused_choice = r
            .decisions
            .iter()
            .zip(&schedule)
            .any(|(d, &c)| c >= d.alternatives);
        if refused_choice || !(self.still_fails)(&r) {
            return false;
        }
        let size = RunSize::of(&candidate, &schedule, &r);
        if size >= self.best.size {
            return false;
        }
        self.best = Best {
            scenario: candidate,
            schedule,
            size,
            trace_hash: r.trace.hash_hex(),
        };
        true
    }

    /// The crashes the first run had, random or planned, as planned crashes at exactly the
    /// points they hit, and no random crashes.
    fn planned_crashes(&mut self, first: &RunResult) {
        let f = &self.best.scenario.faults;
        if f.random_crash.is_none() && f.crash.is_empty() {
            return;
        }
        let mut c = self.best.scenario.clone();
        c.faults.random_crash = None;
        c.faults.crash = first
            .crashes
            .iter()
            .map(|r| CrashSpec::exactly(r.point))
            .collect();
        self.try_adopt(c, self.best.schedule.clone());
    }

    /// Removes runs of events: halves, quarters, … single events (pairs with a lifecycle
    /// workload, which must stay even).
    fn events(&mut self) -> bool {
        let unit = if self.best.scenario.workload.lifecycle {
            2
        } else {
            1
        };
        let mut changed = false;
        let mut chunk = (self.best.scenario.workload.events / 2).max(unit) / unit * unit;
        while chunk >= unit && !self.exhausted {
            let mut from = 0;
            while from < self.best.scenario.workload.events && !self.exhausted {
                let n = self.best.scenario.workload.events;
                let to = (from + chunk).min(n);
                if to - from >= n {
                    break;
                }
                let c = without_events(&self.best.scenario, from, to);
                if self.try_adopt(c, self.best.schedule.clone()) {
                    changed = true;
                } else {
                    from = to;
                }
            }
            chunk = chunk / 2 / unit * unit;
        }
        changed
    }

    fn consumers(&mut self) -> bool {
        let mut changed = false;
        while self.best.scenario.consumers > 1 && !self.exhausted {
            let mut fewer = Vec::from([1]);
            if self.best.scenario.consumers > 2 {
                fewer.push(self.best.scenario.consumers - 1);
            }
            let adopted = fewer.into_iter().any(|n| {
                let mut c = self.best.scenario.clone();
                c.consumers = n;
                self.try_adopt(c, self.best.schedule.clone())
            });
            if !adopted {
                break;
            }
            changed = true;
        }
        changed
    }

    fn crashes(&mut self) -> bool {
        self.remove_each(|f| &mut f.faults.crash)
    }

    fn faults(&mut self) -> bool {
        let mut changed = false;
        if self.best.scenario.faults.random_crash.is_some() {
            let mut c = self.best.scenario.clone();
            c.faults.random_crash = None;
            changed |= self.try_adopt(c, self.best.schedule.clone());
        }
        changed |= self.remove_each(|s| &mut s.faults.fail);
        changed |= self.remove_each(|s| &mut s.faults.stall);
        changed |= self.remove_each(|s| &mut s.faults.lose_ack);
        changed |= self.remove_each(|s| &mut s.faults.duplicate_delivery);
        changed |= self.remove_each(|s| &mut s.faults.commit_timeout);
        changed |= self.remove_each(|s| &mut s.faults.publish_timeout);
        changed |= self.remove_each(|s| &mut s.workload.republish);
        changed |= self.remove_each(|s| &mut s.workload.republish_altered);
        changed
    }

    /// Tries the scenario without each element of one of its lists, one at a time.
    fn remove_each<T>(&mut self, list: impl Fn(&mut Scenario) -> &mut Vec<T>) -> bool {
        let mut changed = false;
        let mut i = 0;
        while !self.exhausted {
            let mut c = self.best.scenario.clone();
            let items = list(&mut c);
            if i >= items.len() {
                break;
            }
            items.remove(i);
            if self.try_adopt(c, self.best.schedule.clone()) {
                changed = true;
            } else {
                i += 1;
            }
        }
        changed
    }

    /// Smaller repeat counts and delays: each candidate changes one value of one fault
    /// (`i` is its index in its list) or of the broker.
    fn details(&mut self) -> bool {
        use crate::broker::StaleAck;
        type Change = fn(&mut Scenario, usize) -> bool;
        let changes: [Change; 9] = [
            |s, i| one_time(s.faults.fail.get_mut(i).map(|x| &mut x.times)),
            |s, i| one_time(s.faults.lose_ack.get_mut(i).map(|x| &mut x.times)),
            |s, i| one_time(s.faults.duplicate_delivery.get_mut(i).map(|x| &mut x.times)),
            |s, i| one_time(s.faults.publish_timeout.get_mut(i).map(|x| &mut x.times)),
            |s, i| halve(s.faults.stall.get_mut(i).map(|x| &mut x.ticks)),
            |s, i| i == 0 && s.broker.delivery_jitter_ticks.take().is_some(),
            |s, i| i == 0 && halve(s.broker.delivery_jitter_ticks.as_mut()),
            |s, i| i == 0 && s.broker.lease_ticks.take().is_some(),
            |s, i| {
                let accept = s.broker.stale_ack != StaleAck::Reject;
                s.broker.stale_ack = StaleAck::Reject;
                i == 0 && accept
            },
        ];
        let mut changed = false;
        for change in changes {
            let f = &self.best.scenario.faults;
            let longest = [
                f.fail.len(),
                f.lose_ack.len(),
                f.duplicate_delivery.len(),
                f.publish_timeout.len(),
                f.stall.len(),
            ]
            .into_iter()
            .max()
            .unwrap_or(0)
            .max(1);
            let mut i = 0;
            while i < longest && !self.exhausted {
                let mut c = self.best.scenario.clone();
                if change(&mut c, i) && self.try_adopt(c, self.best.schedule.clone()) {
                    changed = true;
                    continue; // The same value again: it may shrink further.
                }
                i += 1;
            }
        }
        changed
    }

    /// The default schedule, else each choice back to the default.
    fn schedule(&mut self) -> bool {
        if self.best.schedule.is_empty() {
            return false;
        }
        if self.try_adopt(self.best.scenario.clone(), Vec::new()) {
            return true;
        }
        let mut changed = false;
        for i in 0..self.best.schedule.len() {
            if self.exhausted {
                break;
            }
            if self.best.schedule.get(i).is_some_and(|&c| c != 0) {
                let mut schedule = self.best.schedule.clone();
                schedule[i] = 0;
                changed |= self.try_adopt(self.best.scenario.clone(), schedule);
            }
        }
        changed
    }
}

/// Half the ticks (at least one).
fn halve(ticks: Option<&mut u64>) -> bool {
    match ticks {
        Some(t) if *t > 1 => {
            *t /= 2;
            true
        }
        _ => false,
    }
}

/// One repeat instead of several.
fn one_time(times: Option<&mut u32>) -> bool {
    match times {
        Some(t) if *t > 1 => {
            *t = 1;
            true
        }
        _ => false,
    }
}

/// `scenario` without events `from..to`: later events move down, and every fault that
/// names a removed event goes with it. (Events are drawn from the seed one after another,
/// so the events kept before `from` are unchanged; those after it take the ids and
/// accounts of the positions they move to, which a run that fails the same way does not
/// depend on.)
pub fn without_events(scenario: &Scenario, from: EventIndex, to: EventIndex) -> Scenario {
    assert!(
        from < to && to <= scenario.workload.events,
        "a range of existing events"
    );
    let gone = to - from;
    let keep = |e: EventIndex| !(from..to).contains(&e);
    let moved = |e: EventIndex| if e >= to { e - gone } else { e };
    let mut s = scenario.clone();
    s.workload.events -= gone;
    for list in [
        &mut s.workload.republish,
        &mut s.workload.republish_altered,
        &mut s.workload.invalid,
    ] {
        list.retain(|&e| keep(e));
        list.iter_mut().for_each(|e| *e = moved(*e));
    }
    let f: &mut FaultPlan = &mut s.faults;
    macro_rules! renumber {
        ($list:expr) => {
            $list.retain(|x| x.event.is_none_or(keep));
            $list.iter_mut().for_each(|x| x.event = x.event.map(moved));
        };
    }
    renumber!(f.crash);
    renumber!(f.fail);
    renumber!(f.stall);
    renumber!(f.lose_ack);
    renumber!(f.duplicate_delivery);
    renumber!(f.commit_timeout);
    renumber!(f.publish_timeout);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::sweep::{self, SwarmLimits};
    use crate::model::{Boundary, BoundaryPoint, Protocol, Step};

    fn crashes_only() -> SwarmLimits {
        SwarmLimits {
            max_failures: 0,
            max_republishes: 0,
            max_broker_faults: 0,
            max_jitter_ticks: 0,
            max_stall_ticks: 0,
            ..SwarmLimits::default()
        }
    }

    #[test]
    fn the_signature_is_a_finding_exactly_when_sweep_says_so() {
        let mut s = Scenario::new(Protocol::built_in("ack-first").unwrap());
        s.workload.events = 4;
        for seed in 0..40 {
            let (scenario, _) = sweep::seeded(&s, seed, &SwarmLimits::default());
            let r = world::run(&scenario);
            assert_eq!(r.failure().is_empty(), !sweep::is_finding(&r));
        }
    }

    #[test]
    fn a_no_dedup_duplicate_among_twenty_events_shrinks_to_one_event_and_one_crash() {
        let mut base = Scenario::new(Protocol::built_in("no-dedup").unwrap());
        base.workload.events = 20;
        let finding = sweep::sweep_chunk(&base, 0..64, &crashes_only(), &|| {})
            .into_iter()
            .find(|f| f.result.verdict.duplicated > 0 && f.result.crashes.len() > 1)
            .expect("a duplicate with several crashes");
        let (scenario, _) = sweep::seeded(&base, finding.seed, &crashes_only());
        let shrunk = shrink(&scenario, &[], ShrinkOptions::default()).unwrap();
        assert_eq!(shrunk.signature.to_string(), "duplicated");
        assert_eq!(
            (shrunk.size.events, shrunk.size.crashes),
            (1, 1),
            "{shrunk:?}"
        );
        assert_eq!(shrunk.size.faults, 0);
        assert!(!shrunk.exhausted && shrunk.runs <= DEFAULT_MAX_RUNS);
        assert!(shrunk.original.events == 20 && shrunk.original.crashes > 1);
        assert_eq!(shrunk.result.verdict.duplicated, 1);
        // The crash that duplicates in no-dedup: after the commit, before the ack.
        let c = &shrunk.result.crashes[0].point;
        assert!(c.boundary.step == Step::Commit || c.boundary == Boundary::before(Step::Ack));
        // Deterministic, and the token is the same run.
        let again = shrink(&scenario, &[], ShrinkOptions::default()).unwrap();
        assert_eq!(again.token(), shrunk.token());
        let replay = token::decode(&shrunk.token()).unwrap();
        let r = world::run_scheduled(&replay.scenario, RunOptions::default(), &replay.schedule);
        assert_eq!(r.trace.hash_hex(), shrunk.result.trace.hash_hex());
    }

    #[test]
    fn a_run_that_does_not_fail_has_nothing_to_shrink() {
        let s = Scenario::new(Protocol::built_in("inbox").unwrap());
        assert!(shrink(&s, &[], ShrinkOptions::default()).is_none());
    }

    #[test]
    fn the_budget_stops_the_search_and_says_so() {
        let mut s = Scenario::new(Protocol::built_in("no-dedup").unwrap());
        s.workload.events = 12;
        s.faults.crash = vec![CrashSpec::exactly(BoundaryPoint {
            boundary: Boundary::after(Step::Commit),
            event: 9,
            copy: 0,
            delivery: 1,
        })];
        let shrunk = shrink(&s, &[], ShrinkOptions { max_runs: 4 }).unwrap();
        assert!(shrunk.exhausted);
        assert_eq!(shrunk.runs, 4);
        assert!(shrunk.size < shrunk.original && shrunk.size.events > 1);
        let full = shrink(&s, &[], ShrinkOptions::default()).unwrap();
        assert!(!full.exhausted);
        assert_eq!(full.size.events, 1);
        assert_eq!(full.scenario.faults.crash[0].event, Some(0), "renumbered");
    }

    #[test]
    fn the_same_way_means_the_same_properties_broken() {
        // ack-first with a crash after the ack loses the event; shrinking keeps a loss, and
        // a caller's own property can ask for less.
        let mut s = Scenario::new(Protocol::built_in("ack-first").unwrap());
        s.workload.events = 6;
        s.faults.crash = vec![CrashSpec {
            at: Boundary::after(Step::Ack),
            event: Some(4),
            copy: None,
            delivery: None,
        }];
        s.faults.fail = vec![crate::fault::FailSpec {
            step: Step::Commit,
            nth: None,
            event: Some(1),
            delivery: None,
            times: 3,
            until_tick: None,
        }];
        let shrunk = shrink(&s, &[], ShrinkOptions::default()).unwrap();
        assert_eq!(shrunk.signature, world::run(&s).failure());
        assert_eq!(shrunk.size.events, 1);
        assert!(
            shrunk.scenario.faults.fail.is_empty(),
            "the failure was not needed"
        );
        let lost = |r: &RunResult| r.verdict.lost > 0;
        let by_property = shrink_while(&s, &[], ShrinkOptions::default(), &lost).unwrap();
        assert!(by_property.result.verdict.lost > 0);
        assert_eq!(by_property.size.events, 1);
    }

    #[test]
    fn removing_events_renumbers_the_faults_that_name_them() {
        let mut s = Scenario::new(Protocol::built_in("inbox").unwrap());
        s.workload.events = 6;
        s.workload.republish = vec![1, 4, 5];
        let at = |event| CrashSpec {
            at: Boundary::after(Step::Commit),
            event,
            copy: None,
            delivery: None,
        };
        s.faults.crash = vec![at(Some(1)), at(Some(2)), at(None), at(Some(5))];
        let t = without_events(&s, 1, 3);
        assert_eq!(t.workload.events, 4);
        assert_eq!(t.workload.republish, vec![2, 3]);
        let events: Vec<Option<usize>> = t.faults.crash.iter().map(|c| c.event).collect();
        assert_eq!(events, vec![None, Some(3)]);
    }
}
