//! PostgreSQL when the core is built without the feature `postgres`: the engine is not
//! there, and every way in says so. A scenario on `store.engine: "postgres"` is refused
//! when it loads (its checker cannot be built), as it would be on a machine without a
//! server, with a message that names the missing feature.

use crate::model::{NoDatabase, SqlEvent, SqlRefusal, SqlValue};
use crate::store::{SchemaProblem, StatementShape};

/// Why nothing PostgreSQL can run in this build.
const NOT_BUILT: &str = "this build of delivery-sim-core has no PostgreSQL engine: build it \
                         with the feature `postgres` (the command line always has it)";

/// Whether this thread can reach PostgreSQL: never, in this build.
pub fn ready() -> Result<(), String> {
    Err(NOT_BUILT.to_string())
}

/// The load-time checker on PostgreSQL, which this build cannot make: no value of it
/// exists, so its methods are never called.
pub enum PgChecker {}

impl PgChecker {
    pub fn new(_schema: &[String], _setup: &[String]) -> Result<PgChecker, SchemaProblem> {
        Err(SchemaProblem::NoDatabase(NoDatabase::NoPostgresEngine))
    }

    pub fn named(
        _name: &str,
        _schema: &[String],
        _setup: &[String],
    ) -> Result<PgChecker, SchemaProblem> {
        Err(SchemaProblem::NoDatabase(NoDatabase::NoPostgresEngine))
    }

    pub fn of_run() -> Result<PgChecker, String> {
        Err(NOT_BUILT.to_string())
    }

    pub fn prepare(&self, _sql: &str) -> Result<StatementShape, SqlRefusal> {
        match *self {}
    }

    pub fn set_samples(&self, _samples: std::collections::BTreeMap<String, SqlValue>) {
        match *self {}
    }

    pub fn value_before_any_delivery(&self, _sql: &str, _event: &SqlEvent) -> String {
        match *self {}
    }

    pub fn apply(&self, _change: &str) {
        match *self {}
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Engine, NoDatabase};
    use crate::store::{SchemaProblem, SqlChecker};

    #[test]
    fn every_way_in_says_the_engine_is_not_built() {
        let why = super::ready().unwrap_err();
        assert!(why.contains("feature `postgres`"), "{why}");
        let Err(problem) = SqlChecker::new_on(Engine::Postgres, &[], &[]) else {
            panic!("a PostgreSQL checker without the engine");
        };
        let missing = SchemaProblem::NoDatabase(NoDatabase::NoPostgresEngine);
        assert_eq!(problem, missing);
        assert_eq!(SqlChecker::of_postgres_run().err(), Some(why));
        // SQLite is unaffected.
        assert!(SqlChecker::new_on(Engine::Sqlite, &[], &[]).is_ok());
    }
}
