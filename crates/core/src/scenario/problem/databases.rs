//! What can be wrong in the scenario's `databases` checks (`scenario::validate::databases`):
//! where the business effect is counted, the named databases' names and statements, and
//! building each database to prepare the statements against.

use crate::model::{NoDatabase, SqlRefusal};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Databases {
    /// `check.effects_per_event` given where `check.effect` says the effect is the calls
    /// to `service`.
    EffectIsCalls { service: String },
    /// No `check.effects_per_event`, and `check.effect` says the effect lives on `db`.
    NoEffectsQueryOn { db: String },
    /// No `check.effects_per_event` in a scenario with its own schema.
    NoEffectsQuery,
    /// `check.effects_per_event` counts on database `counted`, and `check.effect` says the
    /// effect lives on `effect`.
    EffectElsewhere { effect: String, counted: String },
    /// A schema or setup statement failed as the database was built: the engine's refusal,
    /// or the sandbox's.
    SchemaFails { reason: SqlRefusal },
    /// The engine could not give the check a database (PostgreSQL unreachable, or a named
    /// database's schema not made).
    NoScratchDatabase { reason: NoDatabase },
    /// More than `max` named databases.
    TooMany { count: usize, max: usize },
    /// A database name a step's `db` could not write, or SQLite's own.
    InvalidName { name: String },
    /// A database name that is a schema PostgreSQL or the tool keeps.
    ReservedOnPostgres { name: String },
    /// A named database without schema statements.
    NoSchema,
    /// A `db` naming no database; `names` are the named ones (besides `main`).
    NoSuchDatabase { name: String, names: Vec<String> },
}
