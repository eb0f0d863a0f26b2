//! The words of [`problem::Sql`]: what is wrong in the scenario's `sql` checks (a SQL
//! step's form and name, a statement, the scenario's own schema, parameters, checks and
//! payloads).
//!
//! A statement the store's checker refuses carries its typed refusal, worded in `refusal`;
//! the engine's own message inside it is quoted as the engine gave it.

use super::Lang;
use crate::model::sql::{DELIVERY_PARAMETERS, LOG_PARAMETERS};
use crate::model::DuplicateIf;
use crate::scenario::problem::Sql;

pub(super) fn words(p: &Sql, lang: Lang) -> String {
    match lang {
        Lang::En => english(p),
        Lang::Es => spanish(p),
    }
}

/// A step's form, name and transaction, and a statement's text, in English.
fn english(p: &Sql) -> String {
    match p {
        Sql::NeitherSqlNorExternal => "a step object is a SQL step {\"name\", \"sql\"} or an \
                                       external call {\"external\": \"<service>\"}; this one \
                                       has neither `sql` nor `external`"
            .to_string(),
        Sql::StatementCount { count, max } => {
            format!("a SQL step has 1 to {max} statements, this one {count}")
        }
        Sql::InvalidStepName { name } => format!(
            "`{name}` cannot name a step: crash points write it (`after:{name}`), so it is \
             lower-case letters, digits and `_`, starting with a letter, at most 40 characters"
        ),
        Sql::BuiltInStepName { name } => format!(
            "`{name}` is a built-in step's name, and a crash point must name one step; call \
             this SQL step something else (`begin` and `commit` are the built-in steps, \
             written as \"begin\" and \"commit\")"
        ),
        Sql::TooManyStepNames => {
            "this process has interned too many distinct SQL step names".to_string()
        }
        Sql::DefinedDifferently { name, first } => format!(
            "SQL step `{name}` is defined differently at {first}; a repeated step repeats its \
             definition, another step needs another name"
        ),
        Sql::TransactionStepFlow { step } => format!(
            "`{step}` opens or closes the transaction: it keeps no result, says nothing of \
             duplicates and always runs where it stands"
        ),
        Sql::TransactionNotDeferred { words } => format!(
            "`{words}` is not supported: a transaction begins with SQLite's deferred BEGIN \
             (written \"BEGIN\", \"BEGIN TRANSACTION\", \"BEGIN DEFERRED\" or \"begin\"), \
             which takes the write lock at the first write; an IMMEDIATE or EXCLUSIVE \
             transaction, which takes it at once, is not modelled"
        ),
        Sql::TransactionStepName { step } => format!(
            "a transaction is opened and closed by the built-in steps `begin` and `commit` (so \
             that crash points, recovery and commit timeouts know where it is); name this step \
             `{step}` or write \"{step}\""
        ),
        Sql::EmptyStatement => "an empty statement".to_string(),
        Sql::StatementTooLong { bytes, limit } => {
            format!("{bytes} bytes is over the limit of {limit} bytes for one statement")
        }
        Sql::TooManyStatements { max } => format!("at most {max} statements"),
        _ => english_schema(p),
    }
}

/// The scenario's own schema against the built-in ledger, and its check queries, in
/// English.
fn english_schema(p: &Sql) -> String {
    match p {
        Sql::EffectsNameNoParameter => "it names no parameter, so it counts the same for every \
                                        event; count one event's effects (`WHERE event_id = \
                                        :event_id`, or a payload field)"
            .to_string(),
        Sql::EffectsNotZero { value, event } => format!(
            "it gives {value} for e{event} before any delivery (on the schema and setup alone); \
             an event's count must start at 0, or a lost event would look processed"
        ),
        Sql::StepWithoutSchema { step } => format!(
            "SQL step `{step}` runs on the scenario's own schema: give `store.schema` (its \
             CREATE TABLE statements) and `check.effects_per_event`; the built-in ledger is \
             written by the built-in steps only"
        ),
        Sql::NeedsOwnSchema => "belongs to a scenario with its own schema (`store.schema`); the \
                                built-in ledger has its own events and checks"
            .to_string(),
        Sql::LedgerStep { step } => format!(
            "`{step}` writes the built-in ledger, which a scenario with its own schema does not \
             have; write it as a SQL step on your tables"
        ),
        Sql::LedgerSetting => "configures the built-in ledger (its inbox, accounts, transfers, \
                               producer or emails), and this scenario has its own schema \
                               (`store.schema`); express it in your SQL steps and checks \
                               instead"
            .to_string(),
        Sql::CheckColumns { columns } => format!(
            "a check is a query giving one value (a SELECT with one column); this statement \
             gives {columns} columns"
        ),
        Sql::CheckWrites => "a check is a query giving one value (a SELECT with one column); \
                             this statement writes"
            .to_string(),
        Sql::Unprepared { sql, reason } => {
            format!("`{sql}`: {}", super::refusal::refusal(reason, Lang::En))
        }
        _ => english_parameters(p),
    }
}

/// Parameters, `duplicate_if` and payloads, in English.
fn english_parameters(p: &Sql) -> String {
    match p {
        Sql::LogParameterOnQueue { parameter } => format!(
            "`:{parameter}` is a record's place on a log (`broker.kind: log`): a queue's \
             message has no partition, offset, topic or group"
        ),
        Sql::UnknownParameter {
            parameter,
            known,
            in_step,
        } => format!(
            "unknown parameter `:{parameter}`; the parameters are {}{} the fields of every \
             payload in `workload.payloads`{}",
            colons(known),
            if *in_step { "," } else { " and" },
            if *in_step {
                ", and the columns of the results earlier steps keep (`:claim.count`, after a \
                 step with `\"into\": \"claim\"`)"
            } else {
                ""
            }
        ),
        Sql::DuplicateIfSeveral => "`duplicate_if` judges one statement, and this step has \
                                    several; put the statement that tells a duplicate in a \
                                    step of its own"
            .to_string(),
        Sql::DuplicateIfUntold { rule } => {
            let why = match rule {
                DuplicateIf::Row => "returns no rows",
                DuplicateIf::UniqueViolation => "writes nothing",
                DuplicateIf::NoChange => "inserts, updates or deletes no rows itself",
            };
            format!("`{}` cannot be told by a statement that {why}", rule.name())
        }
        Sql::TooManyPayloads { max } => format!("at most {max} payloads"),
        Sql::TooManyPayloadFields { max } => format!("at most {max} fields"),
        Sql::PayloadFieldName { name } => format!(
            "`{name}` cannot be a parameter: a field is a letter then letters, digits and `_`, \
             and not one of {}, {}",
            DELIVERY_PARAMETERS.join(", "),
            LOG_PARAMETERS.join(", ")
        ),
        Sql::PayloadValue => "a payload field is an integer or a string (amounts in minor \
                              units: no floating point)"
            .to_string(),
        Sql::EventTypeLength { max } => {
            format!("an event type is a name of 1 to {max} characters")
        }
        _ => unreachable!("told by english and english_schema"),
    }
}

/// A step's form, name and transaction, and a statement's text, in Spanish.
fn spanish(p: &Sql) -> String {
    match p {
        Sql::NeitherSqlNorExternal => "un paso escrito como objeto es un paso SQL {\"name\", \
                                       \"sql\"} o una llamada externa {\"external\": \
                                       \"<servicio>\"}; este no tiene ni `sql` ni `external`"
            .to_string(),
        Sql::StatementCount { count, max } => {
            format!("un paso SQL tiene de 1 a {max} sentencias, y este tiene {count}")
        }
        Sql::InvalidStepName { name } => format!(
            "`{name}` no puede ser el nombre de un paso: los puntos de caída lo escriben \
             (`after:{name}`), así que va en minúsculas, dígitos y `_`, empieza con una letra \
             y tiene a lo sumo 40 caracteres"
        ),
        Sql::BuiltInStepName { name } => format!(
            "`{name}` es el nombre de un paso incorporado, y un punto de caída tiene que nombrar \
             un solo paso; ponele otro nombre a este paso SQL (los pasos incorporados son \
             `begin` y `commit`, escritos \"begin\" y \"commit\")"
        ),
        Sql::TooManyStepNames => {
            "este proceso ya registró demasiados nombres distintos de pasos SQL".to_string()
        }
        Sql::DefinedDifferently { name, first } => format!(
            "el paso SQL `{name}` está definido de otra manera en {first}; un paso repetido \
             repite su definición, y otro paso necesita otro nombre"
        ),
        Sql::TransactionStepFlow { step } => format!(
            "`{step}` abre o cierra la transacción: no guarda ningún resultado, no dice nada de \
             duplicados y siempre se ejecuta donde está"
        ),
        Sql::TransactionNotDeferred { words } => format!(
            "`{words}` no está soportado: una transacción empieza con el BEGIN diferido de \
             SQLite (escrito \"BEGIN\", \"BEGIN TRANSACTION\", \"BEGIN DEFERRED\" o \
             \"begin\"), que toma el lock de escritura en la primera escritura; una transacción \
             IMMEDIATE o EXCLUSIVE, que lo toma de entrada, no está modelada"
        ),
        Sql::TransactionStepName { step } => format!(
            "una transacción la abren y la cierran los pasos incorporados `begin` y `commit` \
             (así los puntos de caída, la recuperación y los commits que vencen por tiempo \
             saben dónde está); llamá a este paso `{step}` o escribí \"{step}\""
        ),
        Sql::EmptyStatement => "una sentencia vacía".to_string(),
        Sql::StatementTooLong { bytes, limit } => {
            format!("{bytes} bytes pasan el límite de {limit} bytes de una sentencia")
        }
        Sql::TooManyStatements { max } => format!("a lo sumo {max} sentencias"),
        _ => spanish_schema(p),
    }
}

/// The scenario's own schema against the built-in ledger, and its check queries, in
/// Spanish.
fn spanish_schema(p: &Sql) -> String {
    match p {
        Sql::EffectsNameNoParameter => "no nombra ningún parámetro, así que cuenta lo mismo para \
                                        todos los eventos; contá los efectos de un evento \
                                        (`WHERE event_id = :event_id`, o un campo del payload)"
            .to_string(),
        Sql::EffectsNotZero { value, event } => format!(
            "da {value} para e{event} antes de cualquier entrega (solo con el esquema y el \
             setup); la cuenta de un evento tiene que empezar en 0, o un evento perdido \
             parecería procesado"
        ),
        Sql::StepWithoutSchema { step } => format!(
            "el paso SQL `{step}` corre sobre el esquema propio del escenario: poné \
             `store.schema` (sus sentencias CREATE TABLE) y `check.effects_per_event`; el \
             ledger incorporado lo escriben solo los pasos incorporados"
        ),
        Sql::NeedsOwnSchema => "es de un escenario con esquema propio (`store.schema`); el \
                                ledger incorporado tiene sus propios eventos y chequeos"
            .to_string(),
        Sql::LedgerStep { step } => format!(
            "`{step}` escribe en el ledger incorporado, que un escenario con esquema propio no \
             tiene; escribilo como un paso SQL sobre tus tablas"
        ),
        Sql::LedgerSetting => "configura el ledger incorporado (su inbox, las cuentas, las \
                               transferencias, el productor o los emails), y este escenario \
                               tiene esquema propio (`store.schema`); expresalo en tus pasos \
                               SQL y tus chequeos"
            .to_string(),
        Sql::CheckColumns { columns } => format!(
            "un chequeo es una consulta que da un solo valor (un SELECT de una columna); esta \
             sentencia da {columns} columnas"
        ),
        Sql::CheckWrites => "un chequeo es una consulta que da un solo valor (un SELECT de una \
                             columna); esta sentencia escribe"
            .to_string(),
        Sql::Unprepared { sql, reason } => format!(
            "`{sql}` no se puede preparar: {}",
            super::refusal::refusal(reason, Lang::Es)
        ),
        _ => spanish_parameters(p),
    }
}

/// Parameters, `duplicate_if` and payloads, in Spanish.
fn spanish_parameters(p: &Sql) -> String {
    match p {
        Sql::LogParameterOnQueue { parameter } => format!(
            "`:{parameter}` es el lugar de un registro en un log (`broker.kind: log`): el \
             mensaje de una cola no tiene partición, offset, tópico ni grupo"
        ),
        Sql::UnknownParameter {
            parameter,
            known,
            in_step,
        } => format!(
            "parámetro desconocido `:{parameter}`; los parámetros son {}{} los campos que tiene \
             todo payload de `workload.payloads`{}",
            colons(known),
            if *in_step { "," } else { " y" },
            if *in_step {
                ", y las columnas de los resultados que guardan los pasos anteriores \
                 (`:claim.count`, después de un paso con `\"into\": \"claim\"`)"
            } else {
                ""
            }
        ),
        Sql::DuplicateIfSeveral => "`duplicate_if` juzga una sola sentencia, y este paso tiene \
                                    varias; poné la sentencia que reconoce un duplicado en un \
                                    paso aparte"
            .to_string(),
        Sql::DuplicateIfUntold { rule } => {
            let why = match rule {
                DuplicateIf::Row => "no devuelve filas",
                DuplicateIf::UniqueViolation => "no escribe nada",
                DuplicateIf::NoChange => "no inserta, actualiza ni borra filas ella misma",
            };
            format!("una sentencia que {why} no puede decir `{}`", rule.name())
        }
        Sql::TooManyPayloads { max } => format!("a lo sumo {max} payloads"),
        Sql::TooManyPayloadFields { max } => format!("a lo sumo {max} campos"),
        Sql::PayloadFieldName { name } => format!(
            "`{name}` no puede ser un parámetro: un campo es una letra seguida de letras, \
             dígitos y `_`, y no es ninguno de {}, {}",
            DELIVERY_PARAMETERS.join(", "),
            LOG_PARAMETERS.join(", ")
        ),
        Sql::PayloadValue => "un campo del payload es un entero o un texto (los montos van en \
                              unidades menores: nada de punto flotante)"
            .to_string(),
        Sql::EventTypeLength { max } => {
            format!("un tipo de evento es un nombre de 1 a {max} caracteres")
        }
        _ => unreachable!("told by spanish and spanish_schema"),
    }
}

/// Parameter names as a statement writes them: `:event_id, :delivery`.
fn colons(names: &[String]) -> String {
    (names.iter())
        .map(|n| format!(":{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DialectHint, Engine, RefusalReason, SandboxRule, SqlRefusal, Step};

    #[test]
    fn a_failed_step_credits_the_engine_only_with_its_own_message() {
        use crate::model::{BrokenTransaction, SqlFailure};
        let mut budget = SqlFailure::of(SqlRefusal::of(SandboxRule::Steps { limit: 9 }));
        budget.broken = Some(BrokenTransaction::RolledBackBySqlite);
        let told =
            |l: Lang, f: &SqlFailure| l.sql_failed("consumer0", "reserve", "e1", Engine::Sqlite, f);
        let en = told(Lang::En, &budget);
        let es = told(Lang::Es, &budget);
        assert!(!en.contains("SQLite says"), "{en}");
        assert!(!es.contains("SQLite dice"), "{es}");
        assert!(es.contains("interrumpida después de 9 pasos"), "{es}");
        assert!(es.contains("SQLite ya deshizo toda la transacción"), "{es}");
        assert!(
            !es.contains("interrupted") && !es.contains("rolled"),
            "{es}"
        );
        let check = SqlFailure::of(SqlRefusal::of(RefusalReason::Engine {
            engine: Engine::Sqlite,
            message: "CHECK constraint failed: qty >= 0".into(),
            sqlstate: None,
            quoted: false,
        }));
        assert_eq!(
            told(Lang::En, &check),
            "consumer0's reserve on e1 fails: SQLite says \"CHECK constraint failed: qty >= 0\". \
             consumer0 will roll back and reject the delivery, so that the broker delivers it \
             again."
        );
        assert!(
            told(Lang::Es, &check).contains("SQLite dice \"CHECK constraint failed: qty >= 0\"."),
            "{}",
            told(Lang::Es, &check)
        );
    }

    #[test]
    fn an_unknown_parameter_is_told_with_the_parameters_there_are() {
        let p = Sql::UnknownParameter {
            parameter: "amount".into(),
            known: vec!["event_id".into(), "event_type".into()],
            in_step: false,
        };
        assert_eq!(
            words(&p, Lang::En),
            "unknown parameter `:amount`; the parameters are :event_id, :event_type and the \
             fields of every payload in `workload.payloads`"
        );
        let es = words(&p, Lang::Es);
        assert_ne!(es, words(&p, Lang::En));
        for quoted in [
            "`:amount`",
            ":event_id, :event_type y",
            "`workload.payloads`",
        ] {
            assert!(es.contains(quoted), "{es}");
        }
    }

    #[test]
    fn a_transaction_step_keeps_its_name_in_both_languages() {
        let p = Sql::TransactionStepName { step: Step::Begin };
        assert_eq!(
            words(&p, Lang::En),
            "a transaction is opened and closed by the built-in steps `begin` and `commit` (so \
             that crash points, recovery and commit timeouts know where it is); name this step \
             `begin` or write \"begin\""
        );
        let es = words(&p, Lang::Es);
        assert!(
            es.starts_with("una transacción la abren y la cierran"),
            "{es}"
        );
        assert!(
            es.contains("llamá a este paso `begin` o escribí \"begin\""),
            "{es}"
        );
    }

    #[test]
    fn the_checkers_refusal_is_worded_and_the_engines_message_quoted() {
        let reason = SqlRefusal::of(RefusalReason::Engine {
            engine: Engine::Sqlite,
            message: "no such column: nosuch".into(),
            sqlstate: None,
            quoted: false,
        });
        let p = Sql::Unprepared {
            sql: "SELECT nosuch FROM t".into(),
            reason,
        };
        assert_eq!(
            words(&p, Lang::En),
            "`SELECT nosuch FROM t`: no such column: nosuch"
        );
        assert_eq!(
            words(&p, Lang::Es),
            "`SELECT nosuch FROM t` no se puede preparar: SQLite dice: «no such column: nosuch»"
        );
        // The tool's own rules and hints are Spanish under `--lang es`.
        let p = Sql::Unprepared {
            sql: "SELECT * FROM t FOR UPDATE".into(),
            reason: SqlRefusal {
                reason: RefusalReason::Sandbox(SandboxRule::Transaction),
                hint: Some(DialectHint::ForUpdate),
            },
        };
        let es = words(&p, Lang::Es);
        assert!(es.contains("son de los pasos `begin` y `commit`"), "{es}");
        assert!(
            es.contains("SQLite no tiene bloqueos de fila (FOR UPDATE)"),
            "{es}"
        );
        assert!(es.ends_with("o corré el SQL tal como está en PostgreSQL con `--engine postgres` (o `store.engine: postgres`)"), "{es}");
    }
}
