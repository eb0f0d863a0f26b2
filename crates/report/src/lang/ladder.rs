//! The words of `explore --isolation-ladder`.

use super::{pl, Lang};
use crate::model::{Engine, Isolation};

impl Lang {
    /// The ladder's first line.
    pub fn ladder_head(self, name: &str, weakest: Option<Isolation>, rungs: usize) -> String {
        match (self, weakest) {
            (Lang::En, Some(i)) => format!(
                "ladder     `{name}` holds on PostgreSQL from {} up (the weakest of the {rungs} \
                 rungs below at which no interleaving broke it)",
                self.isolation(i)
            ),
            (Lang::En, None) => format!(
                "ladder     `{name}` holds at no PostgreSQL isolation level: at each, some \
                 interleaving broke it (or could not run)"
            ),
            (Lang::Es, Some(i)) => format!(
                "escalera  `{name}` se cumple en PostgreSQL desde {} (el nivel más débil de los \
                 {rungs} escalones de abajo en el que ningún entrelazado lo rompió)",
                self.isolation(i)
            ),
            (Lang::Es, None) => format!(
                "escalera  `{name}` no se cumple en ningún nivel de aislamiento de PostgreSQL: \
                 en cada uno algún entrelazado lo rompió (o no pudo correr)"
            ),
        }
    }

    /// The mark of the rung the file itself runs on, which the verdict line is about.
    pub fn home_rung(self) -> &'static str {
        self.choose("  ← the file's own", "  ← el del archivo")
    }

    /// How the ladder was explored.
    pub fn ladder_scope(self, max_preemptions: usize, with_crashes: bool) -> String {
        let crashes = match (self, with_crashes) {
            (Lang::En, true) => ", each also with one crash at every point",
            (Lang::Es, true) => ", cada uno también con una caída en cada punto",
            _ => "",
        };
        match self {
            Lang::En => format!(
                "explored   on each engine and level: every interleaving of the consumers' \
                 steps departing from round-robin at most {max_preemptions} time(s){crashes}\n"
            ),
            Lang::Es => format!(
                "explorado  en cada motor y nivel: cada entrelazado de los pasos de los \
                 consumidores que se aparta del round-robin a lo sumo {}{crashes}\n",
                pl(max_preemptions as u64, "vez", "veces")
            ),
        }
    }

    pub fn ladder_columns(self) -> [&'static str; 5] {
        match self {
            Lang::En => ["engine", "isolation", "guarantee", "runs", "breaking"],
            Lang::Es => ["motor", "aislamiento", "garantía", "corridas", "rompen"],
        }
    }

    pub fn engine_name(self, e: Engine) -> &'static str {
        e.name()
    }

    pub fn isolation(self, i: Isolation) -> &'static str {
        i.sql()
    }

    /// SQLite has no isolation level to choose.
    pub fn one_writer(self) -> &'static str {
        match self {
            Lang::En => "one writer at a time",
            Lang::Es => "un escritor a la vez",
        }
    }

    pub fn not_run(self, reason: &str) -> String {
        match self {
            Lang::En => format!("not run: {reason}"),
            Lang::Es => format!("no corre: {reason}"),
        }
    }

    pub fn first_breaking(self) -> &'static str {
        match self {
            Lang::En => "first breaking run:",
            Lang::Es => "primera corrida que rompe:",
        }
    }

    pub fn incomplete_rung(self) -> &'static str {
        match self {
            Lang::En => " (not every interleaving ran: a limit stopped it)",
            Lang::Es => " (no corrieron todos los entrelazados: los cortó un límite)",
        }
    }

    /// SQLite's answer is not PostgreSQL's.
    pub fn sqlite_differs(self) -> &'static str {
        match self {
            Lang::En => {
                "warning    SQLite's answer is not PostgreSQL's at read committed: SQLite lets \
                 one writer commit and fails a second writer's stale transaction \
                 (SQLITE_BUSY_SNAPSHOT), where PostgreSQL lets both commit; judge the protocol \
                 on the engine and level it runs on\n"
            }
            Lang::Es => {
                "aviso      la respuesta de SQLite no es la de PostgreSQL en read committed: \
                 SQLite deja hacer commit a un escritor y hace fallar la transacción vieja del \
                 segundo (SQLITE_BUSY_SNAPSHOT), donde PostgreSQL deja que ambos hagan commit; \
                 juzgá el protocolo en el motor y el nivel en que corre\n"
            }
        }
    }
}
