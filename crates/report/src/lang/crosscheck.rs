//! The words of `crosscheck`'s text report: its head, the table's header and cells, the
//! summary and the blocks of points that do not match, with what differs between the two
//! runs (the comparer gives it as data). The JSON is the same in every language: English.

use super::Lang;
use crate::check::Verdict;
use crate::fault::CrashRecord;
use crate::model::BoundaryPoint;
use crate::sim::StopReason;
use delivery_sim_crosscheck::{Difference, Line};

impl Lang {
    /// The report's head: what is cross-checked, and how the real runs are made (on
    /// PostgreSQL, `postgres` names the isolation level).
    pub fn crosscheck_head(
        self,
        origin: &str,
        (protocol, arrows): (&str, &str),
        (events, seed): (usize, u64),
        postgres: Option<crate::model::Isolation>,
    ) -> String {
        let real = match (self, postgres) {
            (Lang::En, None) => "the consumer is a child process on a SQLite file (WAL, \
                 synchronous=FULL), killed with SIGKILL at the crash point and restarted on the \
                 same file"
                .to_string(),
            (Lang::En, Some(level)) => format!(
                "the consumer is a child process holding its connection to PostgreSQL (at {}), \
                 killed with SIGKILL at the crash point, so that PostgreSQL rolls back what it \
                 had open as for any client that vanished, and restarted on a new connection \
                 (the simulated crash terminates the backend instead)",
                level.sql()
            ),
            (Lang::Es, None) => "el consumer es un proceso hijo sobre un archivo SQLite (WAL, \
                 synchronous=FULL), matado con SIGKILL en el punto de falla y reiniciado sobre \
                 el mismo archivo"
                .to_string(),
            (Lang::Es, Some(level)) => format!(
                "el consumer es un proceso hijo que tiene su conexión a PostgreSQL (con \
                 aislamiento {}), matado con SIGKILL en el punto de falla, así PostgreSQL \
                 deshace lo que tenía abierto como con cualquier cliente que desaparece, y \
                 reiniciado con una conexión nueva (la caída simulada termina el backend)",
                level.sql()
            ),
        };
        match self {
            Lang::En => format!(
                "crosscheck {origin}: protocol {protocol} ({arrows}), {events} events, seed \
                 {seed}\nReal runs: {real}; the parent plays the broker and the clock."
            ),
            Lang::Es => format!(
                "crosscheck {origin}: protocolo {protocol} ({arrows}), {events} eventos, \
                 semilla {seed}\nCorridas reales: {real}; el padre hace de broker y de reloj."
            ),
        }
    }

    /// The table's column names.
    pub fn crosscheck_header(self) -> [&'static str; 7] {
        match self {
            Lang::En => [
                "crash point",
                "simulated",
                "real",
                "match",
                "sim ms",
                "real ms",
                "ratio",
            ],
            Lang::Es => [
                "punto de falla",
                "simulado",
                "real",
                "igual",
                "ms sim",
                "ms real",
                "razón",
            ],
        }
    }

    /// The crash point cell of the crash-free run.
    pub fn crosscheck_no_crash(self) -> &'static str {
        self.choose("(no crash)", "(sin caída)")
    }

    /// The real cell of a point whose real process could not run.
    pub fn crosscheck_could_not_run(self) -> &'static str {
        self.choose("(could not run)", "(no se pudo correr)")
    }

    /// The match cell.
    pub fn crosscheck_yes_no(self, matches: bool) -> &'static str {
        match matches {
            true => self.choose("yes", "sí"),
            false => "NO",
        }
    }

    /// A run's outcome: `exactly-once (3 once)`.
    pub fn crosscheck_outcome(self, v: &Verdict) -> String {
        let counts = [
            (v.lost, "lost", "perdido", "perdidos"),
            (v.duplicated, "duplicated", "duplicado", "duplicados"),
            (v.dead_lettered, "dead-lettered", "en la DLQ", "en la DLQ"),
            (v.rejected, "rejected", "rechazado", "rechazados"),
        ];
        let mut parts = vec![match self {
            Lang::En => format!("{} once", v.exactly_once),
            Lang::Es => format!("{} una vez", v.exactly_once),
        }];
        for (n, en, one, many) in counts.into_iter().filter(|c| c.0 > 0) {
            parts.push(match self {
                Lang::En => format!("{n} {en}"),
                Lang::Es => format!("{n} {}", if n == 1 { one } else { many }),
            });
        }
        format!("{} ({})", v.guarantee, parts.join(", "))
    }

    /// How many runs match.
    pub fn crosscheck_matched(self, matched: usize, runs: usize) -> String {
        let points = runs.saturating_sub(1);
        match self {
            Lang::En => format!(
                "{matched} of {runs} runs match (the crash-free run and {points} single crash \
                 points)."
            ),
            Lang::Es => format!(
                "{matched} de {runs} corridas coinciden (la corrida sin caídas y {points} \
                 puntos de una caída)."
            ),
        }
    }

    /// The mean wall time of a run on each side.
    pub fn crosscheck_timing(self, sim_ms: f64, real_ms: f64, ratio: f64) -> String {
        match self {
            Lang::En => format!(
                "Wall time per run: simulated {sim_ms:.3} ms, real {real_ms:.2} ms; the \
                 simulation is {ratio:.0}× faster."
            ),
            Lang::Es => format!(
                "Tiempo real por corrida: simulada {sim_ms:.3} ms, real {real_ms:.2} ms; la \
                 simulación es {ratio:.0}× más rápida."
            ),
        }
    }

    /// The head of a block of a point that does not match.
    pub fn crosscheck_mismatch(self, point: &str) -> String {
        match self {
            Lang::En => format!("MISMATCH at {point}:"),
            Lang::Es => format!("NO COINCIDE en {point}:"),
        }
    }

    pub fn crosscheck_not_carried_out(self, error: &str) -> String {
        match self {
            Lang::En => format!("the real run could not be carried out: {error}"),
            Lang::Es => format!("la corrida real no se pudo hacer: {error}"),
        }
    }

    /// `simulated: ` and `real:      `, aligned.
    pub fn crosscheck_sides(self) -> (&'static str, &'static str) {
        match self {
            Lang::En => ("simulated: ", "real:      "),
            Lang::Es => ("simulada: ", "real:     "),
        }
    }

    pub fn crosscheck_traces_not_kept(self, kept: usize) -> String {
        match self {
            Lang::En => format!("(traces not kept: the first {kept} mismatches keep theirs)"),
            Lang::Es => {
                format!("(trazas no guardadas: las guardan las primeras {kept} diferencias)")
            }
        }
    }

    /// The title of one side's consumer trace.
    pub fn crosscheck_trace_title(self, simulated: bool) -> &'static str {
        match simulated {
            true => self.choose("simulated consumer trace:", "traza del consumer simulado:"),
            false => self.choose("real consumer trace:", "traza del consumer real:"),
        }
    }
}

impl Lang {
    /// A difference between the simulated and the real run: what differs, and what each
    /// side had there.
    pub fn crosscheck_difference(self, d: &Difference) -> [String; 3] {
        let en = self == Lang::En;
        let crash = |c: &Option<CrashRecord>| self.crosscheck_crash(c.as_ref());
        let point = |p: &Option<BoundaryPoint>| match p {
            Some(p) => p.to_string(),
            None => self
                .choose("(no more points)", "(no hay más puntos)")
                .into(),
        };
        let line = |l: &Option<Line>| self.crosscheck_line(l.as_ref());
        let stop = |s: StopReason| match self {
            Lang::En => format!("{s:?}"),
            Lang::Es => self.stop_text(s).to_string(),
        };
        match d {
            Difference::Stop { simulated, real } => [
                self.choose("stop reason", "motivo de parada").into(),
                stop(*simulated),
                stop(*real),
            ],
            Difference::Steps { simulated, real } => [
                self.choose("steps", "pasos").into(),
                simulated.to_string(),
                real.to_string(),
            ],
            Difference::EndTick { simulated, real } => [
                self.choose("end tick", "tick final").into(),
                simulated.to_string(),
                real.to_string(),
            ],
            Difference::Crash {
                index,
                simulated,
                real,
            } => [
                format!("{} {index}", self.choose("crash", "caída")),
                crash(simulated),
                crash(real),
            ],
            Difference::Reached {
                index,
                simulated,
                real,
            } => [
                match en {
                    true => format!("crash points reached, #{index}"),
                    false => format!("puntos de caída alcanzados, #{index}"),
                },
                point(simulated),
                point(real),
            ],
            Difference::TraceLine {
                index,
                simulated,
                real,
            } => [
                match en {
                    true => format!("consumer trace, line {}", index + 1),
                    false => format!("traza del consumer, línea {}", index + 1),
                },
                line(simulated),
                line(real),
            ],
            Difference::Verdict {
                path,
                simulated,
                real,
            } => [path.clone(), simulated.clone(), real.clone()],
        }
    }

    /// A crash as a difference shows it: when, where, and what it confirmed.
    fn crosscheck_crash(self, c: Option<&CrashRecord>) -> String {
        let Some(c) = c else {
            return self.choose("no crash", "sin caída").into();
        };
        match self {
            Lang::En => format!(
                "at t={} {}: transaction open {}, confirmed {} (ledger rows {}, inbox rows {})",
                c.tick,
                c.point,
                if c.dropped_transaction { "yes" } else { "no" },
                c.confirmed.describe(),
                c.confirmed.ledger_rows,
                c.confirmed.inbox_rows
            ),
            Lang::Es => format!(
                "en t={} {}: transacción abierta {}, confirmado: {} (filas de asientos {}, filas \
                 de inbox {})",
                c.tick,
                c.point,
                if c.dropped_transaction { "sí" } else { "no" },
                self.confirmed(&c.confirmed),
                c.confirmed.ledger_rows,
                c.confirmed.inbox_rows
            ),
        }
    }

    /// One line of a consumer trace in a cross-check (`(the trace ends)` past its end).
    pub fn crosscheck_line(self, l: Option<&Line>) -> String {
        match l {
            Some(l) => l.with_outcome(&self.trace_outcome(&l.kind)),
            None => self.choose("(the trace ends)", "(la traza termina)").into(),
        }
    }
}
