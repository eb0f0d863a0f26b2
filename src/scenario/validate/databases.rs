//! A scenario's named databases (`store.databases`) as the loader checks them: their
//! names (on PostgreSQL, not a schema the server or the tool keeps), their statements'
//! form, the database each invariant and step names, and a scratch database per database
//! to prepare the statements against.

use super::*;
use crate::model::sql;
use crate::store::{CustomSchema, NamedDatabase, SqlChecker, MAX_DATABASES};

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
                format!(
                    "check.effect says the business effect is the calls to `{service}`, counted \
                     per event as that service saw them, so no query counts it; leave \
                     effects_per_event out (what the consumer commits can still be checked \
                     with check.invariants)"
                ),
            )),
            (effect, None) => Err(self.err(
                "check.effects_per_event",
                match effect {
                    Some(RawEffect::Db(db)) => format!(
                        "check.effect says the business effect lives on `{db}`: say how to \
                         count one event's effects there, for example \"SELECT count(*) FROM \
                         topup WHERE request_id = :event_id\""
                    ),
                    _ => "a scenario with its own schema says how to count an event's \
                          committed effects, as the business would: for example \"SELECT \
                          count(*) FROM reservation WHERE event_id = :event_id\", or {\"sql\": \
                          …, \"db\": …} where the effect lives in one of `store.databases`"
                        .to_string(),
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
                        format!(
                            "check.effect says the business effect lives on `{}`, but \
                             effects_per_event counts on `{}`; count it where it lives (or \
                             leave `db` out here)",
                            raw_effect_db(effect),
                            db_name(&names, db)
                        ),
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
        let checker = SqlChecker::new_on(self.engine, &custom.schema, &custom.setup).map_err(
            |(setup, i, m)| {
                if i == usize::MAX {
                    return self.err("store.engine", m);
                }
                let section = if setup { "store.setup" } else { "store.schema" };
                self.err(format!("{section}[{i}]"), m)
            },
        )?;
        let mut checkers = vec![checker];
        for d in &custom.databases {
            let field = format!("store.databases.{}", d.name);
            let checker = SqlChecker::new_named_on(self.engine, &d.name, &d.schema, &d.setup)
                .map_err(|(setup, i, m)| {
                    if i == usize::MAX {
                        return self.err(&field, m);
                    }
                    let section = if setup { "setup" } else { "schema" };
                    self.err(format!("{field}.{section}[{i}]"), m)
                })?;
            checkers.push(checker);
        }
        Ok(checkers)
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
                format!(
                    "at most {MAX_DATABASES} named databases, this scenario has {}",
                    databases.len()
                ),
            ));
        }
        let mut named = Vec::new();
        for (name, d) in databases {
            let field = format!("store.databases.{name}");
            if !sql::valid_name(name) || name == "main" || name == "temp" {
                return Err(self.err(
                    field,
                    format!(
                        "`{name}` cannot name a database: steps name it in `db`, so it is \
                         lower-case letters, digits and `_`, starting with a letter, at most \
                         40 characters, and not `main` or `temp` (SQLite's own)"
                    ),
                ));
            }
            let reserved = ["run", "ds", "public", "information_schema"];
            if self.engine == crate::store::pg::Engine::Postgres
                && (reserved.contains(&name.as_str()) || name.starts_with("pg_"))
            {
                return Err(self.err(
                    field,
                    format!(
                        "`{name}` cannot name a database on PostgreSQL: each named database is \
                         a schema of the run's database, and `{name}` is a schema PostgreSQL \
                         or the tool keeps (`run`, `ds`, `public`, `information_schema`, \
                         `pg_*`); choose another name"
                    ),
                ));
            }
            if d.schema.is_empty() {
                return Err(self.err(
                    format!("{field}.schema"),
                    "a named database needs its CREATE TABLE statements",
                ));
            }
            for (list, section) in [(&d.schema, "schema"), (&d.setup, "setup")] {
                if list.len() > bounds::MAX_SCHEMA_STATEMENTS {
                    return Err(self.err(
                        format!("{field}.{section}"),
                        format!("at most {} statements", bounds::MAX_SCHEMA_STATEMENTS),
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
                format!(
                    "no database is called `{name}`; the scenario's databases are main{}",
                    names.iter().map(|n| format!(", {n}")).collect::<String>()
                ),
            )),
        }
    }
}

/// The database `check.effect` names (its `db`), for a message.
fn raw_effect_db(effect: Option<&RawEffect>) -> &str {
    match effect {
        Some(RawEffect::Db(db)) => db,
        _ => "main",
    }
}

/// The name of database `db` among `names` (0: `main`), for a message.
fn db_name<'a>(names: &[&'a str], db: u8) -> &'a str {
    match usize::from(db).checked_sub(1) {
        Some(k) => names.get(k).copied().unwrap_or("main"),
        None => "main",
    }
}
