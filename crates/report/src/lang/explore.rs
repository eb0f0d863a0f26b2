//! The words of `explore`'s text in its three modes: crash points (the summary lines, the
//! table of runs, the failing runs), interleavings, and the smallest safe inbox TTL.

use super::{nonzero, Lang};
use crate::explore::Summary;

impl Lang {
    /// `explored   N runs to depth D: …`, after the label.
    pub fn explored(self, runs: u64, depth: usize) -> String {
        match self {
            Lang::En => format!(
                "{runs} runs to depth {depth}: the crash-free run, then every schedule of up to \
                 {depth} crash(es), each crash at a boundary the previous crashes' run reached"
            ),
            Lang::Es => format!(
                "{runs} corridas hasta profundidad {depth}: la corrida sin caídas, después cada \
                 plan de hasta {depth} caída(s), cada una en un borde al que llegó la corrida de \
                 las caídas anteriores"
            ),
        }
    }

    /// Runs equal to an earlier one after their last crash, and the extensions not run.
    pub fn explore_skipped(self, equivalent: u64, pruned: u64) -> String {
        match self {
            Lang::En => format!(
                "skipped    {equivalent} runs had the same state after their last crash as an \
                 earlier run; their {pruned} extensions were not run (the earlier run's were)"
            ),
            Lang::Es => format!(
                "omitidas   {equivalent} corridas tenían, después de su última caída, el mismo \
                 estado que una corrida anterior; sus {pruned} extensiones no se corrieron (las \
                 de la anterior sí)"
            ),
        }
    }

    /// The same, at the last depth, where no run has an extension.
    pub fn explore_same_state(self, equivalent: u64, depth: usize) -> String {
        match self {
            Lang::En => format!(
                "same state {equivalent} runs had the same state after their last crash as an \
                 earlier run (≡ run N below); at depth {depth} none has an extension to skip"
            ),
            Lang::Es => format!(
                "iguales    {equivalent} corridas tenían, después de su última caída, el mismo \
                 estado que una corrida anterior (≡ corrida N abajo); en profundidad {depth} \
                 ninguna tiene extensiones que omitir"
            ),
        }
    }

    pub fn explore_interrupted(self, runs: u64) -> String {
        match self {
            Lang::En => format!(
                "INTERRUPTED  Ctrl-C stopped the exploration after {runs} runs, a prefix of its \
                 schedules in order: the counts above are for those runs only; explore has no \
                 partial resume, rerun the same command for the whole (it is deterministic)"
            ),
            Lang::Es => format!(
                "INTERRUMPIDA  Ctrl-C detuvo la exploración después de {runs} corridas, un \
                 prefijo de sus planes en orden: los conteos de arriba son solo de esas \
                 corridas; explore no se retoma a medias, corré el mismo comando para el total \
                 (es determinista)"
            ),
        }
    }

    pub fn explore_memory_limited(self, runs: u64) -> String {
        match self {
            Lang::En => format!(
                "TRUNCATED  the memory budget for kept runs stopped the exploration after {runs} \
                 runs, before it was complete: the counts above are for those runs only"
            ),
            Lang::Es => format!(
                "TRUNCADA  el presupuesto de memoria de las corridas guardadas detuvo la \
                 exploración después de {runs} corridas, antes de completarla: los conteos de \
                 arriba son solo de esas corridas"
            ),
        }
    }

    pub fn explore_schedule_limited(self) -> &'static str {
        self.choose(
            "TRUNCATED  the schedule limit stopped the exploration before it was complete",
            "TRUNCADA  el límite de planes detuvo la exploración antes de completarla",
        )
    }

    /// The columns of the table of runs: run number, schedule, outcome, once, lost, dup,
    /// acked, trace hash.
    pub fn explore_columns(self) -> [&'static str; 8] {
        match self {
            Lang::En => [
                "run",
                "crash schedule",
                "outcome",
                "once",
                "lost",
                "dup",
                "acked",
                "trace hash",
            ],
            Lang::Es => [
                "corrida",
                "plan de caídas",
                "resultado",
                "una",
                "perd",
                "dup",
                "ack",
                "hash de traza",
            ],
        }
    }

    /// A run's outcome cell, by its guarantee: once, lost, duplicated, or both.
    pub fn explore_outcome(self, lost: bool, duplicated: bool) -> &'static str {
        match (lost, duplicated) {
            (false, false) => self.choose("once", "una vez"),
            (true, false) => self.choose("LOST", "PERDIDO"),
            (false, true) => self.choose("DUPLICATED", "DUPLICADO"),
            (true, true) => self.choose("LOST+DUPLICATED", "PERDIDO+DUPLICADO"),
        }
    }

    pub fn no_crash(self) -> &'static str {
        self.choose("(no crash)", "(sin caída)")
    }

    /// `≡ run N`.
    pub fn same_as_run(self, run: usize) -> String {
        match self {
            Lang::En => format!("≡ run {run}"),
            Lang::Es => format!("≡ corrida {run}"),
        }
    }

    pub fn too_many_runs(self, runs: usize) -> String {
        match self {
            Lang::En => format!("({runs} runs: too many to list; see --json)"),
            Lang::Es => format!("({runs} corridas: demasiadas para listarlas; ver --json)"),
        }
    }

    pub fn failing_runs_header(self) -> &'static str {
        self.choose(
            "failing runs, each with the command that replays it:",
            "corridas que fallan, cada una con el comando que la repite:",
        )
    }

    pub fn and_more(self, more: usize) -> String {
        match self {
            Lang::En => format!("… {more} more (see --json)"),
            Lang::Es => format!("… {more} más (ver --json)"),
        }
    }

    /// The summary line over every run of an exploration, after the guarantee.
    pub fn explore_summary(self, s: &Summary) -> String {
        let (lost, runs, duplicated) = (s.lost_runs, s.runs, s.duplicated_runs);
        let (dead, unacked) = (s.dead_lettered_runs, s.unacked_runs);
        let (unconserved, limited) = (s.unconserved_runs, s.limited_runs);
        let (rejected, pending) = (s.rejected_runs, s.pending_runs);
        let pending = match (self, rejected + pending > 0) {
            (_, false) => String::new(),
            (Lang::En, true) => format!(
                "{rejected} rejected one as out of order, {pending} ended with a completion still \
                 pending; "
            ),
            (Lang::Es, true) => format!(
                "{rejected} rechazaron uno por fuera de orden, {pending} terminaron con una \
                 finalización todavía pendiente; "
            ),
        };
        let stuck = self.choose("left an event stuck", "dejaron un evento atascado");
        let wrong = self.choose(
            "applied an altered copy instead of an event",
            "aplicaron una copia alterada en lugar de un evento",
        );
        let more = nonzero("; ", &[(s.stuck_runs, stuck), (s.wrong_effect_runs, wrong)]);
        match self {
            Lang::En => format!(
                "{lost} of {runs} runs lost an event, {duplicated} duplicated one, {dead} \
                 dead-lettered one; {pending}{unacked} left an event unacked; {unconserved} broke \
                 conservation; {limited} hit a limit{more}"
            ),
            Lang::Es => format!(
                "{lost} de {runs} corridas perdieron un evento, {duplicated} duplicaron uno, \
                 {dead} mandaron uno a la DLQ; {pending}{unacked} dejaron un evento sin ack; \
                 {unconserved} rompieron la conservación; {limited} llegaron a un límite{more}"
            ),
        }
    }

    /// `ledger per intent: exactly-once over all runs (0 of 31 runs broke it)`.
    pub fn explore_scope_line(
        self,
        scope: &str,
        guarantee: &str,
        broken: u64,
        runs: u64,
    ) -> String {
        match self {
            Lang::En => {
                format!("{scope}: {guarantee} over all runs ({broken} of {runs} runs broke it)")
            }
            Lang::Es => format!(
                "{scope}: {guarantee} sobre todas las corridas ({broken} de {runs} corridas la \
                 rompieron)"
            ),
        }
    }

    /// The label of a text line, padded to the column the text starts at.
    pub fn explore_label(self, label: ExploreLabel) -> &'static str {
        use ExploreLabel::*;
        match label {
            Explored => self.choose("explored   ", "explorado  "),
            Summary => self.choose("summary    ", "resumen    "),
            Breaking => self.choose("breaking   ", "rompen     "),
            Searched => self.choose("searched   ", "buscado    "),
            Smallest => self.choose("smallest   ", "menor      "),
            Unsafe => self.choose("unsafe     ", "inseguro   "),
            Boundary => self.choose("boundary   ", "frontera   "),
            Runs => self.choose("runs       ", "corridas   "),
        }
    }

    /// What an interleaving exploration ran, after its label.
    pub fn interleavings_explored(
        self,
        runs: usize,
        consumers: usize,
        with_crashes: bool,
        max_preemptions: usize,
        ending: InterleavingsEnd,
    ) -> String {
        match self {
            Lang::En => format!(
                "{runs} interleavings of {consumers} consumers' steps{}, departing from \
                 round-robin at most {max_preemptions} time(s){}",
                if with_crashes {
                    ", each without a crash and with one crash at every boundary"
                } else {
                    ""
                },
                match ending {
                    InterleavingsEnd::Complete => " (all of them)",
                    InterleavingsEnd::Memory => {
                        " — INCOMPLETE: the memory budget for kept runs stopped it"
                    }
                    InterleavingsEnd::Limit => " — INCOMPLETE: the interleaving limit stopped it",
                }
            ),
            Lang::Es => format!(
                "{runs} intercalaciones de los pasos de {consumers} consumidores{}, apartándose \
                 del round-robin a lo sumo {max_preemptions} {}{}",
                if with_crashes {
                    ", cada una sin caída y con una caída en cada borde"
                } else {
                    ""
                },
                if max_preemptions == 1 { "vez" } else { "veces" },
                match ending {
                    InterleavingsEnd::Complete => " (todas)",
                    InterleavingsEnd::Memory => {
                        " — INCOMPLETA: la detuvo el presupuesto de memoria de las corridas \
                         guardadas"
                    }
                    InterleavingsEnd::Limit => {
                        " — INCOMPLETA: la detuvo el límite de intercalaciones"
                    }
                }
            ),
        }
    }

    /// How many interleavings break the protocol and how, after its label.
    pub fn interleavings_breaking(self, x: &crate::explore::Interleavings) -> String {
        let n = x.runs.len();
        let (breaking, lost, duplicated) = (x.breaking_runs, x.lost_runs, x.duplicated_runs);
        let (rejected, unconserved) = (x.rejected_runs, x.unconserved_runs);
        let pending = match x.pending_runs {
            0 => String::new(),
            p => match self {
                Lang::En => format!(", {p} ended with a completion still pending"),
                Lang::Es => format!(", {p} terminaron con una finalización todavía pendiente"),
            },
        };
        match self {
            Lang::En => format!(
                "{breaking} of {n} interleavings break the protocol: {lost} lost an event, \
                 {duplicated} duplicated one, {rejected} rejected one as out of order, \
                 {unconserved} broke conservation{pending}"
            ),
            Lang::Es => format!(
                "{breaking} de {n} intercalaciones rompen el protocolo: {lost} perdieron un \
                 evento, {duplicated} duplicaron uno, {rejected} rechazaron uno por fuera de \
                 orden, {unconserved} rompieron la conservación{pending}"
            ),
        }
    }

    pub fn breaking_interleavings_header(self) -> &'static str {
        self.choose(
            "breaking interleavings, each with the command that replays it:",
            "intercalaciones que rompen, cada una con el comando que la repite:",
        )
    }

    pub fn lost_update_on(self, account: &str) -> String {
        match self {
            Lang::En => format!("lost update on {account}"),
            Lang::Es => format!("actualización perdida en {account}"),
        }
    }

    /// ` (crash at after:commit e0 d1)`.
    pub fn crashed_at_note(self, point: &str) -> String {
        match self {
            Lang::En => format!(" (crash at {point})"),
            Lang::Es => format!(" (caída en {point})"),
        }
    }

    /// What a TTL search searched, after its label.
    pub fn ttl_searched(self, x: &crate::explore::retention::TtlSearch) -> String {
        let (every, batch) = (x.cleanup_every_ticks, x.cleanup_batch);
        match self {
            Lang::En => format!(
                "the smallest inbox TTL with no duplicated event; {}, cleanup every {every} \
                 ticks in batches of at most {batch}; each TTL verified by the scenario's own \
                 run{}",
                match x.window_ticks {
                    Some(w) => format!("broker replay window {w} ticks after each ack"),
                    None => "no broker replay window".to_string(),
                },
                if x.depth == 0 {
                    String::new()
                } else {
                    format!(" and every schedule of up to {} crash(es)", x.depth)
                }
            ),
            Lang::Es => format!(
                "el menor TTL del inbox sin eventos duplicados; {}, limpieza cada {every} ticks \
                 en tandas de a lo sumo {batch}; cada TTL verificado con la corrida del propio \
                 escenario{}",
                match x.window_ticks {
                    Some(w) =>
                        format!("ventana de reentrega del broker de {w} ticks después de cada ack"),
                    None => "sin ventana de reentrega del broker".to_string(),
                },
                if x.depth == 0 {
                    String::new()
                } else {
                    format!(" y cada plan de hasta {} caída(s)", x.depth)
                }
            ),
        }
    }

    /// The header of the table of TTLs tried.
    pub fn ttl_table_header(self) -> &'static str {
        self.choose(
            "  ttl ticks  verdict  runs  duplicated runs",
            "  ticks ttl  veredicto  corridas  corridas duplicadas",
        )
    }

    pub fn ttl_safe(self, safe: bool) -> &'static str {
        match safe {
            true => self.choose("safe", "seguro"),
            false => self.choose("UNSAFE", "INSEGURO"),
        }
    }

    /// The smallest safe TTL, and why it is the window plus the lag, when it is.
    pub fn ttl_smallest(self, ttl: u64, window: Option<u64>, crashes: bool) -> String {
        let why = match (self, window) {
            (Lang::En, Some(w)) if ttl >= w => format!(
                " = the {w}-tick replay window + {} ticks of lag: the inbox row is written \
                 before the ack the window counts from, the replay is checked after it is \
                 delivered{}",
                ttl - w,
                if crashes {
                    ", and a crash before the ack delays the ack"
                } else {
                    ""
                }
            ),
            (Lang::Es, Some(w)) if ttl >= w => format!(
                " = la ventana de reentrega de {w} ticks + {} ticks de demora: la fila del \
                 inbox se escribe antes del ack desde el que cuenta la ventana, y la reentrega \
                 se controla después de entregarse{}",
                ttl - w,
                if crashes {
                    ", y una caída antes del ack demora el ack"
                } else {
                    ""
                }
            ),
            _ => String::new(),
        };
        format!("{ttl} ticks{why}")
    }

    pub fn ttl_none_safe(self, bound: u64) -> String {
        match self {
            Lang::En => format!(
                "NONE: every TTL up to {bound} ticks duplicates an event (the protocol \
                 duplicates without any help from retention)"
            ),
            Lang::Es => format!(
                "NINGUNO: cada TTL de hasta {bound} ticks duplica un evento (el protocolo \
                 duplica sin ayuda de la retención)"
            ),
        }
    }

    /// `the scenario's own run` or `the run crashing at …`, and what it duplicated.
    pub fn ttl_unsafe(self, ttl: u64, crashes: Option<&str>, events: &str) -> String {
        let who = match (self, crashes) {
            (Lang::En, None) => "the scenario's own run".to_string(),
            (Lang::En, Some(c)) => format!("the run crashing at {c}"),
            (Lang::Es, None) => "la corrida del propio escenario".to_string(),
            (Lang::Es, Some(c)) => format!("la corrida que cae en {c}"),
        };
        match self {
            Lang::En => format!("{ttl} ticks: {who} duplicated {events}"),
            Lang::Es => format!("{ttl} ticks: {who} duplicó {events}"),
        }
    }

    /// Whether both sides of the smallest safe TTL were run.
    pub fn ttl_boundary(self, verified: bool, smallest: Option<u64>) -> String {
        match (self, verified, smallest) {
            (Lang::En, true, Some(0)) => "verified: even TTL 0 is safe".into(),
            (Lang::En, true, Some(t)) => format!("verified: {} unsafe, {t} safe", t - 1),
            (Lang::En, _, _) => "NOT VERIFIED".into(),
            (Lang::Es, true, Some(0)) => "verificada: hasta el TTL 0 es seguro".into(),
            (Lang::Es, true, Some(t)) => format!("verificada: {} inseguro, {t} seguro", t - 1),
            (Lang::Es, _, _) => "NO VERIFICADA".into(),
        }
    }

    pub fn ttl_runs(self, runs: u64, candidates: usize) -> String {
        match self {
            Lang::En => format!("{runs} runs over {candidates} candidate TTLs"),
            Lang::Es => format!("{runs} corridas sobre {candidates} TTL candidatos"),
        }
    }
}

/// The labels of explore's text lines.
#[derive(Clone, Copy, Debug)]
pub enum ExploreLabel {
    Explored,
    Summary,
    Breaking,
    Searched,
    Smallest,
    Unsafe,
    Boundary,
    Runs,
}

/// How an interleaving exploration ended.
#[derive(Clone, Copy, Debug)]
pub enum InterleavingsEnd {
    Complete,
    Memory,
    Limit,
}
