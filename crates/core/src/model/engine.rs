//! Which database engine a scenario's store runs on, and on PostgreSQL at which isolation
//! level: plain vocabulary, read by the store (which runs them) and the reports (which
//! name them).

use serde::{Deserialize, Serialize};

/// The database engine a scenario's store runs on.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// SQLite (bundled), in-process: the default.
    #[default]
    Sqlite,
    /// PostgreSQL, on a server the tool starts or a URL names.
    Postgres,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
        }
    }

    /// The product's name, as people read it in narration: `SQLite`, `PostgreSQL`.
    pub fn product(self) -> &'static str {
        match self {
            Engine::Sqlite => "SQLite",
            Engine::Postgres => "PostgreSQL",
        }
    }
}

/// PostgreSQL's transaction isolation level (`default_transaction_isolation` of every
/// connection of a run).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    /// PostgreSQL's default: each statement sees what was committed before it began.
    #[default]
    ReadCommitted,
    /// Snapshot isolation: the transaction sees what was committed before its first
    /// statement; a write to a row changed since fails (40001).
    RepeatableRead,
    /// Serializable snapshot isolation: a transaction whose reads another's writes made
    /// stale fails (40001).
    Serializable,
}

impl Isolation {
    pub const ALL: [Isolation; 3] = [
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
    ];

    /// As PostgreSQL writes it.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }

    /// As the scenario file writes it.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read_committed",
            Isolation::RepeatableRead => "repeatable_read",
            Isolation::Serializable => "serializable",
        }
    }
}
