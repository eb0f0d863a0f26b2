//! The words of a refused statement ([`SqlRefusal`]), of a statement that failed during a
//! run ([`SqlFailure`], a trace's `SqlFailed`), of what a check query gave ([`CheckValue`]),
//! and of a database the engine could not give the load-time check ([`NoDatabase`]).
//!
//! English is the refusal's own text ([`SqlRefusal::english`], kept in the core because a
//! run's trace records and hashes it); Spanish is worded here. The engine's own message is
//! quoted as the engine gave it, in the engine's language («…» in Spanish, as every foreign
//! text is).

use super::Lang;
use crate::model::{
    BrokenTransaction, CheckValue, DialectHint, NoDatabase, RefusalReason, SandboxRule, SqlFailure,
    SqlRefusal,
};

/// Why `r` was refused, in `lang`.
pub(super) fn refusal(r: &SqlRefusal, lang: Lang) -> String {
    match lang {
        Lang::En => r.english(),
        Lang::Es => {
            let hint = match r.hint {
                Some(h) => format!(
                    "; {}; o corré el SQL tal como está en PostgreSQL con `--engine postgres` \
                     (o `store.engine: postgres`)",
                    hint_es(h)
                ),
                None => String::new(),
            };
            reason_es(&r.reason) + &hint
        }
    }
}

/// Why a statement failed during a run, in `lang`: the refusal, and what the engine did
/// to the transaction.
fn failure(f: &SqlFailure, lang: Lang) -> String {
    match lang {
        Lang::En => f.english(),
        Lang::Es => refusal(&f.refusal, lang) + broken_es(f.broken),
    }
}

/// What the engine did to the transaction, in Spanish (the English is part of
/// [`SqlFailure::english`]).
fn broken_es(broken: Option<BrokenTransaction>) -> &'static str {
    match broken {
        None => "",
        Some(BrokenTransaction::RolledBackBySqlite) => {
            " (SQLite ya deshizo toda la transacción por su cuenta)"
        }
        Some(BrokenTransaction::AbortedOnPostgres) => {
            " (PostgreSQL abortó la transacción: toda sentencia falla hasta el ROLLBACK, y el \
             COMMIT la deshace)"
        }
    }
}

impl Lang {
    /// Why a statement failed during a run (a trace's `SqlFailed`), in this language.
    pub fn sql_failure(self, f: &SqlFailure) -> String {
        failure(f, self)
    }

    /// What a check query gave, in this language.
    pub fn check_value(self, v: &CheckValue) -> String {
        match (self, v) {
            (Lang::En, v) => v.english(),
            (Lang::Es, CheckValue::Read(v)) => v.clone(),
            (Lang::Es, CheckValue::Blob { bytes }) => format!("un blob de {bytes} bytes"),
            (Lang::Es, CheckValue::Failed(f)) => failure(f, self),
            (Lang::Es, CheckValue::NotACount { event_id, got }) => format!(
                "{} para {event_id}, que no es un conteo",
                self.check_value(got)
            ),
        }
    }

    /// Why a statement failed during a run, as the story of a run tells it: the engine's
    /// own message quoted after its name (`db`, the product), or the tool's rule.
    pub(crate) fn sql_failure_told(self, db: &str, f: &SqlFailure) -> String {
        match (self, f.is_the_engines()) {
            (Lang::En, true) => format!("{db} says \"{}\"", f.english()),
            (Lang::Es, true) => {
                let said = f.refusal.english();
                format!("{db} dice \"{said}\"{}", broken_es(f.broken))
            }
            (lang, false) => failure(f, lang),
        }
    }
}

/// Why the engine gave no database, in `lang`.
pub(super) fn no_database(n: &NoDatabase, lang: Lang) -> String {
    match (lang, n) {
        (Lang::En, n) => n.english(),
        (Lang::Es, NoDatabase::NoPostgresEngine) => {
            "esta compilación de delivery-sim-core no tiene el motor PostgreSQL: compilala con \
             la feature `postgres` (la línea de comandos siempre la tiene)"
                .to_string()
        }
        (Lang::Es, NoDatabase::Unreachable { message }) => format!("«{message}»"),
        (Lang::Es, NoDatabase::SchemaTaken { name, message }) => format!(
            "en PostgreSQL cada base de datos con nombre es un esquema de la base de la \
             corrida, y el esquema `{name}` no se puede crear («{message}»): ¿`store.schema` \
             crea un esquema con ese nombre? Renombrá uno de los dos"
        ),
    }
}

fn reason_es(r: &RefusalReason) -> String {
    use RefusalReason::*;
    match r {
        Engine {
            engine,
            message,
            sqlstate,
            ..
        } => {
            let code = sqlstate.as_ref().map(|c| format!(" (SQLSTATE {c})"));
            let name = match engine {
                crate::model::Engine::Sqlite => "SQLite",
                crate::model::Engine::Postgres => "PostgreSQL",
            };
            format!("{name} dice: «{message}»{}", code.unwrap_or_default())
        }
        Client { message } => format!("PostgreSQL (el cliente): «{message}»"),
        Sandbox(rule) => rule_es(rule),
        Default { column, rule } => format!("el valor por defecto de {column}: {}", rule_es(rule)),
        NoStatement => "acá no hay ninguna sentencia (¿solo un comentario?)".to_string(),
        SeveralStatements => {
            "más de una sentencia en un mismo texto; dalas como una lista de sentencias".to_string()
        }
        Positional { marker } => {
            let marker = marker.as_deref().unwrap_or("?");
            format!(
                "los parámetros posicionales (`{marker}`) no se enlazan; dales nombre \
                 (`:event_id`, un campo del payload)"
            )
        }
        Unbound { name } => format!(
            "el parámetro {name} no tiene valor: dalo en los parámetros de la llamada, o nombrá \
             un parámetro de la entrega (:event_id, :event_type, :now, :delivery, :consumer) o \
             un campo del payload"
        ),
        TransactionControl { word } => format!(
            "`{word}` es control de transacciones: los pasos \"begin\" y \"commit\" del \
             protocolo abren y terminan la transacción del consumidor"
        ),
        ServerWide { verb, object } => format!(
            "`{verb} {object}` crea un objeto de todo el servidor, que sobreviviría a la \
             corrida; cada corrida empieza desde el esquema del archivo en una base vaciada \
             para ella, así que un esquema puede crear tablas, esquemas, funciones y \
             triggers, no roles, bases de datos ni tablespaces"
        ),
        MachineClock { keyword } => format!(
            "`{keyword}` lee el reloj de la máquina, y cada corrida daría distinto; escribí \
             now() (o clock_timestamp()), que la herramienta convierte en el tiempo virtual de \
             la corrida"
        ),
        MachineFunction { function } => format!(
            "{function}() da lo que dan la máquina o el momento, así que dos corridas con la \
             misma semilla darían distinto; el simulador no puede hacerla determinista"
        ),
        CatalogFunction { function } => format!(
            "pg_catalog.{function}() es la de la máquina; escribí {function}(), que la \
             herramienta hace determinista"
        ),
        NoOwnSchema => "un handler de Rust corre sobre el esquema propio de un escenario \
                        (store.schema, check.effects_per_event); este escenario tiene el \
                        libro contable incorporado"
            .to_string(),
        SchemaRefused {
            in_setup,
            index,
            refusal: inner,
        } => {
            let part = if *in_setup { "setup" } else { "schema" };
            format!("falla store.{part}[{index}]: {}", refusal(inner, Lang::Es))
        }
        NoDatabase(n) => no_database(n, Lang::Es),
    }
}

fn rule_es(r: &SandboxRule) -> String {
    use SandboxRule::*;
    match r {
        Transaction => "las sentencias de transacción son de los pasos `begin` y `commit` del \
                        protocolo, para que los puntos de caída, la recuperación y los \
                        timeouts de commit sepan dónde hay una transacción"
            .to_string(),
        Attach => "ATTACH, DETACH y VACUUM no están permitidos: una sentencia no crea, escribe \
                   ni lee archivos"
            .to_string(),
        Vacuum => "VACUUM no está permitido: reconstruye la base a través de una segunda \
                   (VACUUM INTO escribe un archivo), y una sentencia no crea, escribe ni lee \
                   archivos"
            .to_string(),
        Pragma { name } => format!(
            "PRAGMA {name} no está permitido: un ajuste de la conexión no pasa a un proceso \
             reiniciado, y un pragma puede tocar archivos (se permiten los pragmas de solo \
             lectura del esquema: {})",
            SandboxRule::READ_ONLY_PRAGMAS.join(", ")
        ),
        Temporary => "las tablas, índices, triggers y vistas temporales viven en una \
                      conexión, que un proceso reiniciado no tiene (y las tablas virtuales no \
                      están soportadas); creá una tabla en el esquema"
            .to_string(),
        ConnectionState { function } => format!(
            "{function}() lee el estado de la conexión, que un proceso reiniciado no tiene; \
             leé las filas en su lugar"
        ),
        LoadsCode { function } => {
            format!("{function}() no está permitida: carga código en SQLite")
        }
        Memory { limit_mib } => format!(
            "la sentencia necesitó más de {limit_mib} MiB de memoria, el límite para una \
             sentencia"
        ),
        TemporaryFile => {
            "SQLite pidió un archivo temporal, y una sentencia no escribe archivos".to_string()
        }
        Steps { limit } => format!(
            "interrumpida después de {limit} pasos de la máquina virtual de SQLite, el límite \
             para una sentencia"
        ),
    }
}

fn hint_es(h: DialectHint) -> &'static str {
    use DialectHint::*;
    match h {
        Now => {
            "SQLite no tiene now(): enlazá `:now` (el tiempo virtual de la corrida, un entero) \
             o escribí CURRENT_TIMESTAMP (el reloj de la corrida, determinista)"
        }
        Uuid => {
            "SQLite no tiene función de UUID: escribí lower(hex(randomblob(16))) (sale del \
             flujo aleatorio de la corrida, así que es determinista), o usá el propio \
             :event_id de la entrega"
        }
        SkipLocked => {
            "SQLite no tiene bloqueos de fila (SKIP LOCKED): un solo escritor tiene toda la \
             base, así que sacá la cláusula"
        }
        ForUpdate => {
            "SQLite no tiene bloqueos de fila (FOR UPDATE): la primera escritura de la \
             transacción toma el bloqueo de escritura de toda la base, así que sacá la cláusula"
        }
        ForShare => "SQLite no tiene bloqueos de fila (FOR SHARE): sacá la cláusula",
        OnDuplicateKeyUpdate => {
            "el ON DUPLICATE KEY UPDATE de MySQL se escribe ON CONFLICT (columnas clave) DO \
             UPDATE SET … en SQLite (y en PostgreSQL)"
        }
        InsertIgnore => {
            "el INSERT IGNORE de MySQL se escribe INSERT OR IGNORE en SQLite, o INSERT … ON \
             CONFLICT DO NOTHING (SQLite y PostgreSQL)"
        }
        DoubleColonCast => "SQLite no tiene el cast `::`: escribí CAST(valor AS tipo)",
        Ilike => {
            "SQLite no tiene ILIKE: su LIKE ya ignora mayúsculas y minúsculas en las letras \
             ASCII"
        }
    }
}
