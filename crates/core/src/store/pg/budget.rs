//! How many connections a process's runs may hold on a PostgreSQL server, and so how many
//! threads may run on it at once: arithmetic only, compiled with or without the engine, so
//! that exploration bounds its threads the same way in every build.

/// The most idle connections a worker keeps.
pub(super) const MAX_IDLE: usize = 8;

/// The clients a process's runs may hold on the server at once: within a default
/// server's `max_connections` (100, 3 of them kept for superusers), whether the tool's
/// own cluster (200) or a user's server behind `--database-url`.
pub const CLIENT_BUDGET: usize = 90;

/// The clients one thread holds at most: its control connection, a run's `sessions` (one
/// per consumer and database), and the idle ones it keeps for the next run.
pub fn clients_per_thread(sessions: usize) -> usize {
    1 + sessions + MAX_IDLE
}

/// The most threads whose runs of `sessions` connections each fit [`CLIENT_BUDGET`] (at
/// least one).
pub fn max_threads(sessions: usize) -> usize {
    (CLIENT_BUDGET / clients_per_thread(sessions)).max(1)
}
