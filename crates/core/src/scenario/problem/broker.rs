//! What can be wrong in the scenario's `broker` checks (`scenario::validate::broker`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broker {
    /// A transfer or account partition key with the scenario's own schema.
    KeyWithOwnSchema,
    /// A log broker's option on a queue broker.
    LogOnly,
    /// A queue broker's option (or a queue-only fault) on a log broker.
    QueueOnly,
    /// A dead-letter replay where nothing is ever dead-lettered.
    NothingDeadLettered,
    /// A dead-letter replay at or past the run's tick limit.
    ReplayPastLimit { tick: u64, max_ticks: u64 },
}
