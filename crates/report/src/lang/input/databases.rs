//! The words of [`problem::Databases`]: what is wrong in the scenario's `databases`
//! checks (where the effect is counted, the named databases, building each one).
//!
//! A statement that failed as a database was built carries its typed refusal, worded in
//! `refusal`; the engine's own message inside it is quoted as the engine gave it.

use super::refusal::{no_database, refusal};
use super::Lang;
use crate::scenario::problem::Databases;

pub(super) fn words(p: &Databases, lang: Lang) -> String {
    match lang {
        Lang::En => english(p),
        Lang::Es => spanish(p),
    }
}

fn english(p: &Databases) -> String {
    match p {
        Databases::EffectIsCalls { service } => format!(
            "check.effect says the business effect is the calls to `{service}`, counted per \
             event as that service saw them, so no query counts it; leave effects_per_event \
             out (what the consumer commits can still be checked with check.invariants)"
        ),
        Databases::NoEffectsQueryOn { db } => format!(
            "check.effect says the business effect lives on `{db}`: say how to count one \
             event's effects there, for example \"SELECT count(*) FROM topup WHERE request_id \
             = :event_id\""
        ),
        Databases::NoEffectsQuery => "a scenario with its own schema says how to count an \
                                      event's committed effects, as the business would: for \
                                      example \"SELECT count(*) FROM reservation WHERE \
                                      event_id = :event_id\", or {\"sql\": …, \"db\": …} where \
                                      the effect lives in one of `store.databases`"
            .to_string(),
        Databases::EffectElsewhere { effect, counted } => format!(
            "check.effect says the business effect lives on `{effect}`, but effects_per_event \
             counts on `{counted}`; count it where it lives (or leave `db` out here)"
        ),
        Databases::SchemaFails { reason } => refusal(reason, Lang::En),
        Databases::NoScratchDatabase { reason } => no_database(reason, Lang::En),
        Databases::TooMany { count, max } => {
            format!("at most {max} named databases, this scenario has {count}")
        }
        Databases::InvalidName { name } => format!(
            "`{name}` cannot name a database: steps name it in `db`, so it is lower-case \
             letters, digits and `_`, starting with a letter, at most 40 characters, and not \
             `main` or `temp` (SQLite's own)"
        ),
        Databases::ReservedOnPostgres { name } => format!(
            "`{name}` cannot name a database on PostgreSQL: each named database is a schema of \
             the run's database, and `{name}` is a schema PostgreSQL or the tool keeps (`run`, \
             `ds`, `public`, `information_schema`, `pg_*`); choose another name"
        ),
        Databases::NoSchema => "a named database needs its CREATE TABLE statements".to_string(),
        Databases::NoSuchDatabase { name, names } => format!(
            "no database is called `{name}`; the scenario's databases are main{}",
            with_main(names)
        ),
    }
}

fn spanish(p: &Databases) -> String {
    match p {
        Databases::EffectIsCalls { service } => format!(
            "check.effect dice que el efecto de negocio son las llamadas a `{service}`, \
             contadas por evento como las vio ese servicio, así que ninguna consulta lo cuenta; \
             sacá effects_per_event (lo que el consumidor commitea se puede seguir chequeando \
             con check.invariants)"
        ),
        Databases::NoEffectsQueryOn { db } => format!(
            "check.effect dice que el efecto de negocio vive en `{db}`: decí cómo contar ahí \
             los efectos de un evento, por ejemplo \"SELECT count(*) FROM topup WHERE \
             request_id = :event_id\""
        ),
        Databases::NoEffectsQuery => "un escenario con esquema propio dice cómo contar los \
                                      efectos commiteados de un evento, como los contaría el \
                                      negocio: por ejemplo \"SELECT count(*) FROM reservation \
                                      WHERE event_id = :event_id\", o {\"sql\": …, \"db\": …} \
                                      si el efecto vive en una de `store.databases`"
            .to_string(),
        Databases::EffectElsewhere { effect, counted } => format!(
            "check.effect dice que el efecto de negocio vive en `{effect}`, pero \
             effects_per_event cuenta en `{counted}`; contalo donde vive (o sacá `db` de acá)"
        ),
        Databases::SchemaFails { reason } => format!(
            "esta sentencia falla al armar la base de datos: {}",
            refusal(reason, Lang::Es)
        ),
        Databases::NoScratchDatabase { reason } => format!(
            "el motor no pudo darle al chequeo una base de datos donde preparar las \
             sentencias: {}",
            no_database(reason, Lang::Es)
        ),
        Databases::TooMany { count, max } => format!(
            "se admiten a lo sumo {max} bases de datos con nombre, y este escenario tiene \
             {count}"
        ),
        Databases::InvalidName { name } => format!(
            "`{name}` no puede ser el nombre de una base de datos: los pasos la nombran en \
             `db`, así que va en minúsculas, dígitos y `_`, empieza con una letra, tiene a lo \
             sumo 40 caracteres y no es `main` ni `temp` (las de SQLite)"
        ),
        Databases::ReservedOnPostgres { name } => format!(
            "`{name}` no puede ser el nombre de una base de datos en PostgreSQL: cada base de \
             datos con nombre es un esquema de la base de la corrida, y `{name}` es un esquema \
             que usan PostgreSQL o la herramienta (`run`, `ds`, `public`, \
             `information_schema`, `pg_*`); elegí otro nombre"
        ),
        Databases::NoSchema => {
            "una base de datos con nombre necesita sus sentencias CREATE TABLE".to_string()
        }
        Databases::NoSuchDatabase { name, names } => format!(
            "ninguna base de datos se llama `{name}`; las bases de datos del escenario son \
             main{}",
            with_main(names)
        ),
    }
}

/// The named databases after `main`: `, ledger, bank`.
fn with_main(names: &[String]) -> String {
    names.iter().map(|n| format!(", {n}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Engine, NoDatabase, RefusalReason, SqlRefusal};

    #[test]
    fn an_unknown_database_is_told_with_the_databases_there_are() {
        let p = Databases::NoSuchDatabase {
            name: "bnak".into(),
            names: vec!["bank".into(), "ledger".into()],
        };
        assert_eq!(
            words(&p, Lang::En),
            "no database is called `bnak`; the scenario's databases are main, bank, ledger"
        );
        let es = words(&p, Lang::Es);
        assert_ne!(es, words(&p, Lang::En));
        assert!(
            es.contains("`bnak`") && es.ends_with("main, bank, ledger"),
            "{es}"
        );
    }

    #[test]
    fn a_reserved_name_names_the_schemas_postgresql_keeps() {
        let p = Databases::ReservedOnPostgres {
            name: "public".into(),
        };
        assert!(words(&p, Lang::En).starts_with(
            "`public` cannot name a database on PostgreSQL: each named database is a schema"
        ));
        let es = words(&p, Lang::Es);
        assert!(es.starts_with("`public` no puede ser el nombre"), "{es}");
        assert!(
            es.contains("`information_schema`, `pg_*`); elegí otro nombre"),
            "{es}"
        );
    }

    #[test]
    fn the_engines_message_is_quoted_as_given() {
        let reason = SqlRefusal::of(RefusalReason::Engine {
            engine: Engine::Sqlite,
            message: "near \"CREAT\": syntax error".into(),
            sqlstate: None,
            quoted: true,
        });
        let p = Databases::SchemaFails { reason };
        assert_eq!(
            words(&p, Lang::En),
            "SQLite says: near \"CREAT\": syntax error"
        );
        assert_eq!(
            words(&p, Lang::Es),
            "esta sentencia falla al armar la base de datos: SQLite dice: «near \"CREAT\": \
             syntax error»"
        );
    }

    #[test]
    fn a_database_the_engine_could_not_give_is_worded_in_each_language() {
        let p = Databases::NoScratchDatabase {
            reason: NoDatabase::SchemaTaken {
                name: "billing".into(),
                message: "schema \"billing\" already exists".into(),
            },
        };
        let en = words(&p, Lang::En);
        assert!(
            en.starts_with("on PostgreSQL each named database is a schema"),
            "{en}"
        );
        let es = words(&p, Lang::Es);
        assert!(
            es.contains("el esquema `billing` no se puede crear («schema"),
            "{es}"
        );
        assert!(es.ends_with("Renombrá uno de los dos"), "{es}");
        let p = Databases::NoScratchDatabase {
            reason: NoDatabase::NoPostgresEngine,
        };
        assert!(words(&p, Lang::Es).contains("la feature `postgres`"));
    }
}
