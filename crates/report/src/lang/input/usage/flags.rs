//! The words of a flag refused where it is given ([`FlagWhy`]), of a flag `run DIR`
//! refuses ([`FolderWhy`]), and of an engine flag that does not fit ([`EngineUse`]).

use super::Lang;
use crate::input::{EngineUse, FlagWhy, FolderWhy};

/// Why a flag means nothing where it is given, after `--flag: `.
pub(super) fn why(why: &FlagWhy, lang: Lang) -> String {
    match lang {
        Lang::En => english(why),
        Lang::Es => spanish(why),
    }
}

fn english(why: &FlagWhy) -> String {
    match why {
        FlagWhy::EventsInFile => {
            "the file sets workload.events; edit the file or use --protocol".to_string()
        }
        FlagWhy::NoShrink => "--no-shrink shrinks no finding; give one or the other".to_string(),
        FlagWhy::OnlyWithDiagram => {
            "only with --diagram, whose drawing it shapes or writes".to_string()
        }
        FlagWhy::LadderChoosesNone => "--isolation-ladder runs the scenario on every engine and \
                                       isolation level; it chooses none"
            .to_string(),
        FlagWhy::OnlyWithInterleavings => {
            "only with --interleavings, whose enumeration it shapes".to_string()
        }
        FlagWhy::CrashOnly => "explores crash schedules, and --interleavings explores the \
                               consumers' orders instead (--with-crashes adds one crash at each \
                               point)"
            .to_string(),
        FlagWhy::TtlSearchStatesNone => "--smallest-safe-ttl searches the smallest TTL with no \
                                         duplicate, and states no guarantee; pin what it should \
                                         find in the file's expect.smallest_safe_ttl"
            .to_string(),
        FlagWhy::OneConsumer { scenario } => format!(
            "`{scenario}` has one consumer, so no tick has a choice between consumers to make; \
             set \"consumers\" to 2 or more"
        ),
        FlagWhy::OneOrder { scenario } => format!(
            "`{scenario}` has one consumer, so its steps have one order; set \"consumers\" to 2 \
             or more"
        ),
        FlagWhy::NoInbox { protocol, steps } => format!(
            "configures the inbox, and protocol `{protocol}` has none (no `insert_inbox` or \
             `check_inbox` step), as store.inbox_ttl_ticks in a file would say; its steps are \
             {steps}"
        ),
        FlagWhy::NoRetention { scenario } => format!(
            "`{scenario}` has no inbox retention; set \"store\": {{\"inbox_ttl_ticks\": N}} (the \
             search starts from N and keeps the cleanup schedule)"
        ),
    }
}

fn spanish(why: &FlagWhy) -> String {
    match why {
        FlagWhy::EventsInFile => {
            "el archivo fija workload.events; editá el archivo o usá --protocol".to_string()
        }
        FlagWhy::NoShrink => "--no-shrink no reduce ningún hallazgo; usá uno o el otro".to_string(),
        FlagWhy::OnlyWithDiagram => {
            "va solo con --diagram, cuyo dibujo ajusta o escribe".to_string()
        }
        FlagWhy::LadderChoosesNone => "--isolation-ladder corre el escenario en cada motor y \
                                       nivel de aislamiento; no elige ninguno"
            .to_string(),
        FlagWhy::OnlyWithInterleavings => {
            "va solo con --interleavings, cuya enumeración ajusta".to_string()
        }
        FlagWhy::CrashOnly => "explora planes de caídas, y --interleavings explora en cambio \
                               los órdenes de los consumidores (--with-crashes agrega una caída \
                               en cada punto)"
            .to_string(),
        FlagWhy::TtlSearchStatesNone => "--smallest-safe-ttl busca el TTL más chico sin \
                                         duplicados, y no afirma ninguna garantía; fijá lo que \
                                         tiene que encontrar en expect.smallest_safe_ttl, en el \
                                         archivo"
            .to_string(),
        FlagWhy::OneConsumer { scenario } => format!(
            "`{scenario}` tiene un solo consumidor, así que en ningún tick hay que elegir entre \
             consumidores; poné \"consumers\" en 2 o más"
        ),
        FlagWhy::OneOrder { scenario } => format!(
            "`{scenario}` tiene un solo consumidor, así que sus pasos tienen un solo orden; poné \
             \"consumers\" en 2 o más"
        ),
        FlagWhy::NoInbox { protocol, steps } => format!(
            "configura el inbox, y el protocolo `{protocol}` no tiene (ningún paso \
             `insert_inbox` ni `check_inbox`), como diría store.inbox_ttl_ticks en un archivo; \
             sus pasos son {steps}"
        ),
        FlagWhy::NoRetention { scenario } => format!(
            "`{scenario}` no tiene retención del inbox; poné \"store\": {{\"inbox_ttl_ticks\": \
             N}} (la búsqueda arranca desde N y mantiene el calendario de limpieza)"
        ),
    }
}

/// `flag` refused by `run DIR` on `folder`, for `why`.
pub(super) fn folder(flag: &str, folder: &str, why: FolderWhy, lang: Lang) -> String {
    let why = folder_why(why, lang);
    match lang {
        Lang::En => format!(
            "{flag} cannot be used with a folder ({folder}): {why}; give one scenario file to \
             use it"
        ),
        Lang::Es => format!(
            "{flag} no se puede usar con una carpeta ({folder}): {why}; para usarlo, dale un \
             solo archivo de escenario"
        ),
    }
}

fn folder_why(why: FolderWhy, lang: Lang) -> &'static str {
    match (why, lang) {
        (FolderWhy::Crash, Lang::En) => {
            "a crash point names an event and a step of one scenario, and would replace the \
             planned crashes every file's expectations are written for"
        }
        (FolderWhy::Crash, Lang::Es) => {
            "un punto de caída nombra un evento y un paso de un escenario, y reemplazaría las \
             caídas planeadas para las que están escritas las expectativas de cada archivo"
        }
        (FolderWhy::Schedule, Lang::En) => "scheduling choices belong to one scenario's consumers",
        (FolderWhy::Schedule, Lang::Es) => {
            "las elecciones de planificación son de los consumidores de un escenario"
        }
        (FolderWhy::Trace, Lang::En) => {
            "the trace of every run of every file is too long to read; the table gives each \
             run's trace hash"
        }
        (FolderWhy::Trace, Lang::Es) => {
            "la traza de cada corrida de cada archivo es demasiado larga para leerla; la tabla \
             da el hash de traza de cada corrida"
        }
        (FolderWhy::InboxTtl, Lang::En) => {
            "each file is run with its own retention policy, which its expectations are \
             written for"
        }
        (FolderWhy::InboxTtl, Lang::Es) => {
            "cada archivo se corre con su propia política de retención, para la que están \
             escritas sus expectativas"
        }
        (FolderWhy::Diagram, Lang::En) => {
            "a diagram draws one run; the table gives each file's verdict"
        }
        (FolderWhy::Diagram, Lang::Es) => {
            "un diagrama dibuja una sola corrida; la tabla da el veredicto de cada archivo"
        }
        (FolderWhy::Html, Lang::En) => {
            "a page tells one run, or an exploration (`explore FILE --html`); the table gives \
             each file's verdict"
        }
        (FolderWhy::Html, Lang::Es) => {
            "una página cuenta una sola corrida, o una exploración (`explore FILE --html`); la \
             tabla da el veredicto de cada archivo"
        }
        (FolderWhy::Seed, Lang::En) => {
            "each file is run with its own seed, which its expectations are written for"
        }
        (FolderWhy::Seed, Lang::Es) => {
            "cada archivo se corre con su propia semilla, para la que están escritas sus \
             expectativas"
        }
        (FolderWhy::Expect, Lang::En) => "each file states its own claim in its expect",
        (FolderWhy::Expect, Lang::Es) => "cada archivo afirma lo suyo en su propio expect",
    }
}

/// An engine flag that does not fit, or PostgreSQL not ready.
pub(super) fn engine(e: &EngineUse, lang: Lang) -> String {
    match (e, lang) {
        (EngineUse::IsolationOnSqlite, Lang::En) => {
            "--isolation sets PostgreSQL's isolation level, and a built-in protocol runs on \
             SQLite unless --engine postgres says otherwise"
                .to_string()
        }
        (EngineUse::IsolationOnSqlite, Lang::Es) => {
            "--isolation fija el nivel de aislamiento de PostgreSQL, y un protocolo incluido \
             corre sobre SQLite salvo que --engine postgres diga otra cosa"
                .to_string()
        }
        (EngineUse::DatabaseUrlOnSqlite { scenario }, Lang::En) => format!(
            "--database-url names a PostgreSQL server, and `{scenario}` runs on SQLite; add \
             --engine postgres (or \"engine\": \"postgres\" in the file's store)"
        ),
        (EngineUse::DatabaseUrlOnSqlite { scenario }, Lang::Es) => format!(
            "--database-url nombra un servidor PostgreSQL, y `{scenario}` corre sobre SQLite; \
             agregá --engine postgres (o \"engine\": \"postgres\" en el store del archivo)"
        ),
        (EngineUse::MatrixOnSqlite { flag }, Lang::En) => format!(
            "{flag} is PostgreSQL's, and the matrix runs on SQLite unless --engine postgres \
             says otherwise"
        ),
        (EngineUse::MatrixOnSqlite { flag }, Lang::Es) => format!(
            "{flag} es de PostgreSQL, y la matriz corre sobre SQLite salvo que --engine \
             postgres diga otra cosa"
        ),
        (EngineUse::NotReady { detail }, Lang::En) => detail.clone(),
        (EngineUse::NotReady { detail }, Lang::Es) => {
            format!("PostgreSQL no está disponible: {detail}")
        }
    }
}
