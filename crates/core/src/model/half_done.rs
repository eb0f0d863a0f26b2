//! A step a process began and has not finished: what of it already happened.
//!
//! A step can take more than one turn: SQLite answers busy halfway through a
//! multi-statement step, a read-modify-write reads on one turn and writes on the next, a
//! stall holds a process between a step's "before" boundary and the step itself. What the
//! step already did is the process's volatile state, like the delivery in its hand: it is
//! kept in the process's own struct, and a crash drops it with the rest.

/// What a half-done step already did, so that its next turn resumes it rather than
/// starting it again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HalfDone {
    /// The step passed its "before" boundary: that crash point is not reached again.
    pub past_before: bool,
    /// Statements of a multi-statement step done before SQLite answered busy.
    pub statements_done: u8,
    /// Whether the fault injector told the step to fail, once asked: a retry after busy is
    /// the same step, not asked again (a failure is not used up twice).
    pub decided_fail: Option<bool>,
    /// The balances (source, target) a read-modify-write effect read on its first turn.
    pub balances_read: Option<(i64, i64)>,
}

/// The faults the injector decided for one turn of a step, asked once, before the step is
/// performed. Of these, the process keeps only whether the step fails, for the retries of
/// the same step ([`HalfDone::decided_fail`]); the others are asked again on every turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StepFaults {
    /// The step fails (`faults.fail`): nothing it would do happens, except a credit's
    /// failure, which the effect's own statements decide.
    pub fails: bool,
    /// The commit times out (`faults.commit_timeout`): the fault's index, and whether the
    /// commit is applied. Used up only when the commit really ends (not when busy).
    pub commit_timeout: Option<(usize, bool)>,
    /// The ack is lost on its way to the broker (`faults.lose_ack`).
    pub loses_ack: bool,
    /// The publication reaches the broker and its confirmation is lost
    /// (`faults.publish_timeout`).
    pub publish_times_out: bool,
}
