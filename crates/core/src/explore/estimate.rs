//! The up-front estimate of an exploration: how many schedules, how many consumer steps,
//! how much memory its first level keeps.

use super::*;

/// What an exploration to some depth may need, estimated up front from the crash-free run
/// (see [`estimate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// An upper bound on its schedules.
    pub schedules: u128,
    /// The consumer steps they may take.
    pub steps: u128,
    /// The memory its first level's runs take, at the least (see
    /// [`budget::first_level_bytes`]).
    pub first_level_bytes: u128,
}

/// Estimates an exploration of `scenario` to `depth`, from the boundaries the crash-free run
/// reaches: each crash can add at most one more delivery's worth of boundaries, so level k
/// has at most `points × (points + per_delivery)^(k-1)` schedules; each is as long as the
/// crash-free run plus one delivery's worth of steps per crash.
pub fn estimate(scenario: &Scenario, depth: usize) -> Estimate {
    let base = without_crashes(scenario);
    let baseline = world::run_with(&base, explore_run(&base));
    let points = baseline.reached.len() as u128;
    let per_delivery = 2 * scenario.protocol.steps.len() as u128;
    let mut level = points;
    let mut schedules = 1 + level;
    for _ in 1..depth {
        level = level.saturating_mul(points + per_delivery);
        schedules = schedules.saturating_add(level);
    }
    // A scenario's own SQL costs time too: its statements' virtual-machine steps, counted
    // in consumer steps of the same time.
    let sql = u128::from(baseline.sql_vm_steps / VM_STEPS_PER_STEP);
    let per_run =
        u128::from(baseline.steps) + sql + (depth * scenario.protocol.steps.len()) as u128;
    Estimate {
        schedules,
        steps: schedules
            .saturating_mul(per_run)
            .saturating_mul(step_cost(&scenario.faults)),
        first_level_bytes: budget::first_level_bytes(baseline, 1 + points, depth > 1),
    }
}

/// SQLite virtual-machine steps that take as long as one consumer step (measured: a
/// consumer step of the inbox takes about a microsecond; SQLite runs some 200 million
/// virtual-machine steps a second).
pub const VM_STEPS_PER_STEP: u64 = 200;

/// What one consumer step costs, in steps of a scenario with a short fault plan: every
/// boundary asks each list of the plan whether one of its faults matches, so a plan of
/// thousands of faults makes each step slower (measured: about 50 times, with 1,000 of each
/// kind). Estimates multiply by it, so that their bound is one of time.
pub fn step_cost(plan: &crate::fault::FaultPlan) -> u128 {
    let faults = plan.crash.len()
        + plan.fail.len()
        + plan.stall.len()
        + plan.lose_ack.len()
        + plan.duplicate_delivery.len()
        + plan.commit_timeout.len()
        + plan.publish_timeout.len();
    1 + faults as u128 / 100
}

/// An upper bound on the schedules of an exploration to `depth` (see [`estimate`]).
pub fn estimate_schedules(scenario: &Scenario, depth: usize) -> u128 {
    estimate(scenario, depth).schedules
}
