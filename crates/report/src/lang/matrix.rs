//! The words of `matrix`'s printed table: its opening line, row and cell labels, the legend,
//! and the closing verdict on the documented guarantees. (`matrix.md` and the JSON stay in
//! English, so that the committed results do not depend on the machine's language.)

use super::Lang;

impl Lang {
    /// The line the matrix opens with.
    pub fn matrix_intro(self, protocols: usize, depth: usize, events: usize, seed: u64) -> String {
        match self {
            Lang::En => format!(
                "delivery-sim matrix: {protocols} protocols × every crash point, single crashes \
                 and up to {depth} per run; {events} events per run, seed {seed}"
            ),
            Lang::Es => format!(
                "delivery-sim matrix: {protocols} protocolos × cada punto de falla, caídas de a \
                 una y hasta {depth} por corrida; {events} eventos por corrida, semilla {seed}"
            ),
        }
    }

    /// What follows the introduction of a matrix that ran on PostgreSQL.
    pub fn on_postgres(self, isolation: crate::model::Isolation) -> String {
        let level = isolation.sql();
        match self {
            Lang::En => format!("; on PostgreSQL at {level}"),
            Lang::Es => format!("; en PostgreSQL con aislamiento {level}"),
        }
    }

    /// The first column's header.
    pub fn matrix_crash_point(self) -> &'static str {
        self.choose("crash point", "punto de falla")
    }

    /// A cell: `once`, `lost`, `duplicated`, or both, as [`crate::explore::MatrixCell`]
    /// names its outcome.
    pub fn matrix_cell(self, outcome: &str) -> &'static str {
        match (self, outcome) {
            (Lang::En, "once") => "once",
            (Lang::En, "lost") => "LOST",
            (Lang::En, "duplicated") => "DUPLICATED",
            (Lang::En, _) => "LOST+DUP",
            (Lang::Es, "once") => "una vez",
            (Lang::Es, "lost") => "PERDIDO",
            (Lang::Es, "duplicated") => "DUPLICADO",
            (Lang::Es, _) => "PERD+DUP",
        }
    }

    /// The widest cell, which every column is at least as wide as.
    pub fn matrix_widest_cell(self) -> usize {
        ["once", "lost", "duplicated", "both"]
            .map(|o| self.matrix_cell(o).chars().count())
            .into_iter()
            .max()
            .unwrap_or(0)
    }

    pub fn matrix_runs_row(self, depth: usize) -> String {
        match self {
            Lang::En => format!("runs, depth {depth}"),
            Lang::Es => format!("corridas, profundidad {depth}"),
        }
    }

    pub fn matrix_verdict_row(self, depth: usize) -> String {
        match self {
            Lang::En => format!("verdict, depth {depth}"),
            Lang::Es => format!("veredicto, profundidad {depth}"),
        }
    }

    pub fn matrix_guarantee_row(self, depth: usize) -> String {
        match self {
            Lang::En => format!("guarantee, depth {depth}"),
            Lang::Es => format!("garantía, profundidad {depth}"),
        }
    }

    /// What the cells mean.
    pub fn matrix_legend(self) -> &'static str {
        self.choose(
            "once = every event's effect committed exactly once; LOST = some event has no committed\n\
             effect; DUPLICATED = some event's effect committed twice; · = the protocol has no such\n\
             step. A cell covers every event and delivery attempt crashed once at that boundary;\n\
             the run then recovers. Depth 2 adds a second crash at every point the first crash's\n\
             run reached, its recovery included.\n",
            "una vez = el efecto de cada evento quedó confirmado exactamente una vez; PERDIDO = algún\n\
             evento no tiene efecto confirmado; DUPLICADO = el efecto de algún evento quedó\n\
             confirmado dos veces; · = el protocolo no tiene ese paso. Una celda cubre cada evento y\n\
             cada intento de entrega caído una vez en ese borde; después la corrida se recupera. La\n\
             profundidad 2 agrega una segunda caída en cada punto al que llegó la corrida de la\n\
             primera, su recuperación incluida.\n",
        )
    }

    pub fn matrix_replay_header(self) -> &'static str {
        self.choose(
            "to replay the first failing run of each failing cell:",
            "para repetir la primera corrida que falla de cada celda que falla:",
        )
    }

    pub fn matrix_as_documented(self) -> &'static str {
        self.choose(
            "every built-in protocol showed the guarantee it is documented to have.",
            "cada protocolo incluido mostró la garantía que tiene documentada.",
        )
    }

    /// `exactly-once at depth 1`.
    pub fn matrix_shown(self, guarantee: &str, depth: usize) -> String {
        match self {
            Lang::En => format!("{guarantee} at depth {depth}"),
            Lang::Es => format!("{guarantee} en profundidad {depth}"),
        }
    }

    pub fn matrix_mismatch(self, protocol: &str, documented: &str, shown: &str) -> String {
        match self {
            Lang::En => {
                format!("MISMATCH: {protocol} is documented as {documented} but showed {shown}")
            }
            Lang::Es => format!(
                "NO COINCIDE: {protocol} está documentado como {documented} pero mostró {shown}"
            ),
        }
    }
}
