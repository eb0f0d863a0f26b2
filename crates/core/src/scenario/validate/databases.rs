//! A scenario's named databases (`store.databases`) as the loader checks them: their
//! names (on PostgreSQL, not a schema the server or the tool keeps), their statements'
//! form, the database each invariant and step names, and a scratch database per database
//! to prepare the statements against.

use super::*;
use crate::model::sql;
use crate::scenario::problem::{Databases, Sql};
use crate::store::{CustomSchema, NamedDatabase, SchemaProblem, SqlChecker, MAX_DATABASES};

impl Checker<'_> {
    /// `check.effects_per_event` and the database it reads, or, when `check.effect` says
    /// the effect is the calls to an external service, no query and that service.
    pub(super) fn effects_query(
        &self,
        raw: &RawScenario,
        named: &[NamedDatabase],
        protocol: &Protocol,
    ) -> Result<(String, u8, Option<String>), ScenarioError> {
        let names: Vec<&str> = named.iter().map(|d| d.name.as_str()).collect();
        let check = raw.check.as_ref();
        let effect = check.and_then(|c| c.effect.as_ref());
        let query = check.and_then(|c| c.effects_per_event.as_ref());
        match (effect, query) {
            (Some(RawEffect::External(service)), None) => {
                Ok((String::new(), 0, Some(self.effect_call(service, protocol)?)))
            }
            (Some(RawEffect::External(service)), Some(_)) => Err(self.err(
                "check.effects_per_event",
                Databases::EffectIsCalls {
                    service: service.clone(),
                },
            )),
            (effect, None) => Err(self.err(
                "check.effects_per_event",
                match effect {
                    Some(RawEffect::Db(db)) => Databases::NoEffectsQueryOn { db: db.clone() },
                    _ => Databases::NoEffectsQuery,
                },
            )),
            (effect, Some(q)) => {
                let declared = match effect {
                    Some(RawEffect::Db(db)) => {
                        Some(self.database_index("check.effect.db", db, &names)?)
                    }
                    _ => None,
                };
                let (sql, db) = match q {
                    RawQuery::Main(sql) => (sql.clone(), declared.unwrap_or(0)),
                    RawQuery::On(q) => {
                        let field = "check.effects_per_event.db";
                        (q.sql.clone(), self.database_index(field, &q.db, &names)?)
                    }
                };
                match declared {
                    Some(d) if d != db => Err(self.err(
                        "check.effects_per_event.db",
                        Databases::EffectElsewhere {
                            effect: raw_effect_db(effect).to_string(),
                            counted: db_name(&names, db).to_string(),
                        },
                    )),
                    _ => Ok((sql, db, None)),
                }
            }
        }
    }

    /// `check.invariants`, and the database each reads (empty when all read the main one).
    pub(super) fn invariants(
        &self,
        raw: &RawScenario,
        named: &[NamedDatabase],
    ) -> Result<(Vec<String>, Vec<u8>), ScenarioError> {
        let names: Vec<&str> = named.iter().map(|d| d.name.as_str()).collect();
        let mut invariants = Vec::new();
        let mut invariants_db = Vec::new();
        let listed = raw.check.as_ref().map_or(&[][..], |c| &c.invariants);
        for (i, q) in listed.iter().enumerate() {
            let (sql, db) = match q {
                RawQuery::Main(sql) => (sql.clone(), 0),
                RawQuery::On(q) => {
                    let field = format!("check.invariants[{i}].db");
                    (q.sql.clone(), self.database_index(&field, &q.db, &names)?)
                }
            };
            invariants.push(sql);
            invariants_db.push(db);
        }
        if invariants_db.iter().all(|db| *db == 0) {
            invariants_db.clear();
        }
        Ok((invariants, invariants_db))
    }

    /// A scratch database per database of `custom` (the main one first), built from its
    /// schema and setup; the first statement that fails is named.
    pub(super) fn checkers(&self, custom: &CustomSchema) -> Result<Vec<SqlChecker>, ScenarioError> {
        let checker = SqlChecker::new_on(self.engine, &custom.schema, &custom.setup)
            .map_err(|p| self.schema_problem("store.engine", "store.", p))?;
        let mut checkers = vec![checker];
        for d in &custom.databases {
            let field = format!("store.databases.{}", d.name);
            let checker = SqlChecker::new_named_on(self.engine, &d.name, &d.schema, &d.setup)
                .map_err(|p| self.schema_problem(&field, &format!("{field}."), p))?;
            checkers.push(checker);
        }
        Ok(checkers)
    }

    /// `problem` building a database's schema as an error: at `whole` when the engine gave
    /// no database, else at the statement (`{prefix}schema[i]` or `{prefix}setup[i]`).
    fn schema_problem(&self, whole: &str, prefix: &str, problem: SchemaProblem) -> ScenarioError {
        match problem {
            SchemaProblem::NoDatabase(reason) => {
                self.err(whole, Databases::NoScratchDatabase { reason })
            }
            SchemaProblem::Statement {
                in_setup,
                index,
                refusal: reason,
            } => {
                let section = if in_setup { "setup" } else { "schema" };
                let field = format!("{prefix}{section}[{index}]");
                self.err(field, Databases::SchemaFails { reason })
            }
        }
    }

    /// `store.databases`, in name order, their names and statements checked for form (each
    /// schema is built when the caller prepares the statements against it).
    pub(super) fn named_databases(
        &self,
        raw: &RawScenario,
    ) -> Result<Vec<NamedDatabase>, ScenarioError> {
        let databases = &raw.store.databases;
        if databases.len() > MAX_DATABASES {
            return Err(self.err(
                "store.databases",
                Databases::TooMany {
                    count: databases.len(),
                    max: MAX_DATABASES,
                },
            ));
        }
        let mut named = Vec::new();
        for (name, d) in databases {
            let field = format!("store.databases.{name}");
            if !sql::valid_name(name) || name == "main" || name == "temp" {
                let name = name.clone();
                return Err(self.err(field, Databases::InvalidName { name }));
            }
            let reserved = ["run", "ds", "public", "information_schema"];
            if self.engine == crate::store::pg::Engine::Postgres
                && (reserved.contains(&name.as_str()) || name.starts_with("pg_"))
            {
                let name = name.clone();
                return Err(self.err(field, Databases::ReservedOnPostgres { name }));
            }
            if d.schema.is_empty() {
                return Err(self.err(format!("{field}.schema"), Databases::NoSchema));
            }
            for (list, section) in [(&d.schema, "schema"), (&d.setup, "setup")] {
                if list.len() > bounds::MAX_SCHEMA_STATEMENTS {
                    return Err(self.err(
                        format!("{field}.{section}"),
                        Sql::TooManyStatements {
                            max: bounds::MAX_SCHEMA_STATEMENTS,
                        },
                    ));
                }
                for (i, s) in list.iter().enumerate() {
                    self.statement_text(&format!("{field}.{section}[{i}]"), s)?;
                }
            }
            named.push(NamedDatabase {
                name: name.clone(),
                schema: d.schema.clone(),
                setup: d.setup.clone(),
            });
        }
        Ok(named)
    }

    /// The index of database `name` among `names` (0: `main`), for a query's `db`.
    fn database_index(&self, field: &str, name: &str, names: &[&str]) -> Result<u8, ScenarioError> {
        if name == "main" {
            return Ok(0);
        }
        match names.iter().position(|n| *n == name) {
            Some(k) => Ok(k as u8 + 1),
            None => Err(self.err(
                field,
                Databases::NoSuchDatabase {
                    name: name.to_string(),
                    names: names.iter().map(|n| n.to_string()).collect(),
                },
            )),
        }
    }
}

/// The database `check.effect` names (its `db`), for a problem.
fn raw_effect_db(effect: Option<&RawEffect>) -> &str {
    match effect {
        Some(RawEffect::Db(db)) => db,
        _ => "main",
    }
}

/// The name of database `db` among `names` (0: `main`), for a problem.
fn db_name<'a>(names: &[&'a str], db: u8) -> &'a str {
    match usize::from(db).checked_sub(1) {
        Some(k) => names.get(k).copied().unwrap_or("main"),
        None => "main",
    }
}
