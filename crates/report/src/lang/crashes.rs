//! explain: crashes, of the consumer and of the producer's side, and what each leaves confirmed.

use super::*;

impl Lang {
    // ---------------------------------------------------------------- explain: crashes

    /// A crash phase in words. With `several_commits` (a protocol that commits more than
    /// one transaction) the commit is named as the effect's: the instant just after a
    /// first commit is still "before" it.
    pub fn phase(self, p: Phase, several_commits: bool) -> String {
        let commit = match (self, several_commits) {
            (Lang::En, false) => "the commit",
            (Lang::En, true) => "the effect's commit",
            (Lang::Es, false) => "del commit",
            (Lang::Es, true) => "del commit del efecto",
        };
        match (self, p) {
            (Lang::En, Phase::BeforeCommit) => format!("before {commit}"),
            (Lang::Es, Phase::BeforeCommit) => format!("antes {commit}"),
            (Lang::En, Phase::BetweenCommitAndAck) => format!("after {commit}, before the ack"),
            (Lang::Es, Phase::BetweenCommitAndAck) => format!("después {commit}, antes del ack"),
            (Lang::En, Phase::AckAccepted) => "ack accepted".into(),
            (Lang::Es, Phase::AckAccepted) => "ack aceptado".into(),
            (Lang::En, Phase::AckedBeforeCommit) => format!("after the ack, before {commit}"),
            (Lang::Es, Phase::AckedBeforeCommit) => format!("después del ack, antes {commit}"),
        }
    }

    fn cause(self, cause: CrashCause) -> String {
        match (self, cause) {
            (Lang::En, CrashCause::Planned(i)) => format!("planned: faults.crash[{i}]"),
            (Lang::Es, CrashCause::Planned(i)) => format!("planificada: faults.crash[{i}]"),
            (Lang::En, CrashCause::Random) => "random".into(),
            (Lang::Es, CrashCause::Random) => "aleatoria".into(),
        }
    }

    /// A consumer's crash: where, what is confirmed at that instant, and what follows.
    pub fn crash(
        self,
        who: &str,
        point: &str,
        cause: CrashCause,
        phase: Option<&str>,
        confirmed: &str,
        consequence: &str,
    ) -> String {
        let cause = self.cause(cause);
        match self {
            Lang::En => format!(
                "CRASH ({cause}): {who} dies at {point}{}. At this instant the confirmed state \
                 is \"{confirmed}\". {consequence}",
                phase.map_or(String::new(), |p| format!(", {p}"))
            ),
            Lang::Es => format!(
                "CAÍDA ({cause}): {who} muere en {point}{}. En ese instante, el estado \
                 confirmado es «{confirmed}». {consequence}",
                phase.map_or(String::new(), |p| format!(", {p}"))
            ),
        }
    }

    /// The seeds' "estado confirmado" of a crash: the event's committed effect and
    /// identity (inbox row), and whether the broker holds its ack.
    pub fn confirmed(self, c: &Confirmed) -> String {
        let key = (c.ledger_rows > 0, c.inbox_rows > 0, c.acked);
        let (en, es) = match key {
            (false, false, false) => (
                "nothing: no effect, no identity (inbox row), no ack",
                "nada: ni efecto ni identidad (fila de inbox) confirmados, sin ack",
            ),
            (true, true, false) => (
                "the effect and the identity (inbox row); no ack",
                "efecto e identidad (fila de inbox) confirmados; sin ack",
            ),
            (true, true, true) => (
                "the intent is resolved: effect, identity (inbox row) and ack",
                "intención resuelta: efecto, identidad (fila de inbox) y ack",
            ),
            (false, false, true) => (
                "only the ack: the broker already forgot the event, and the database has \
                 nothing of it",
                "solo el ack: el broker ya olvidó el evento y la base no tiene nada de él",
            ),
            (true, false, false) => (
                "the effect, with no identity recorded; no ack",
                "efecto confirmado, sin identidad registrada; sin ack",
            ),
            (true, false, true) => (
                "the intent is resolved: effect and ack (no identity recorded)",
                "intención resuelta: efecto y ack (sin identidad registrada)",
            ),
            (false, true, false) => (
                "only the identity (inbox row): marked processed with no effect; no ack",
                "solo la identidad (fila de inbox): marcado como procesado sin efecto; sin ack",
            ),
            (false, true, true) => (
                "the identity (inbox row) and the ack, with no effect",
                "identidad (fila de inbox) y ack, sin efecto",
            ),
        };
        self.pick(en, es)
    }

    /// What follows from what is confirmed at a crash.
    pub fn crash_consequence(self, ev: &str, effect: bool, inbox: bool, acked: bool) -> String {
        match (self, effect, inbox, acked) {
            (Lang::En, true, _, true) => "The event is resolved: there is nothing to recover, \
                                           and the restarted consumer goes on with other events."
                .into(),
            (Lang::Es, true, _, true) => {
                "El evento está resuelto: no hay nada que recuperar, y el \
                                           consumidor reiniciado sigue con otros eventos."
                    .into()
            }
            (Lang::En, false, _, true) => format!(
                "The broker has the ack and will never deliver {ev} again, but its effect is not \
                 committed: {ev} is lost, and nobody is told."
            ),
            (Lang::Es, false, _, true) => format!(
                "El broker tiene el ack y no va a volver a entregar {ev}, pero su efecto no está \
                 confirmado: {ev} se perdió, y nadie se entera."
            ),
            (Lang::En, true, true, false) => format!(
                "The broker has no ack, so it will deliver {ev} again; the committed inbox row \
                 is what lets the consumer recognise the earlier result."
            ),
            (Lang::Es, true, true, false) => format!(
                "El broker no tiene el ack, así que va a reentregar {ev}; la fila de inbox \
                 confirmada es lo que le permite al consumidor reconocer el resultado previo."
            ),
            (Lang::En, true, false, false) => format!(
                "The broker has no ack, so it will deliver {ev} again, and nothing records that \
                 its effect was applied: unless something recognises it, the redelivery applies \
                 it a second time."
            ),
            (Lang::Es, true, false, false) => format!(
                "El broker no tiene el ack, así que va a reentregar {ev}, y nada registra que su \
                 efecto ya se aplicó: si nada lo reconoce, la reentrega lo aplica por segunda \
                 vez."
            ),
            (Lang::En, false, true, false) => format!(
                "The broker has no ack, so it will deliver {ev} again, but the inbox already \
                 marks it processed although its effect is not there: the redelivery will skip \
                 it."
            ),
            (Lang::Es, false, true, false) => format!(
                "El broker no tiene el ack, así que va a reentregar {ev}, pero el inbox ya lo \
                 marca como procesado aunque su efecto no está: la reentrega lo va a descartar."
            ),
            (Lang::En, false, false, false) => format!(
                "Nothing is lost yet: the broker has no ack, so it will deliver {ev} again, and \
                 the consumer retries from the start."
            ),
            (Lang::Es, false, false, false) => format!(
                "Todavía no se perdió nada: el broker no tiene el ack, así que va a reentregar \
                 {ev}, y el consumidor reintenta desde el principio."
            ),
        }
    }

    /// `db` (SQLite, PostgreSQL) rolls back the open transaction of a consumer that died.
    pub fn crash_rollback(self, who: &str, items: &[String], db: &str) -> String {
        match (self, items.is_empty()) {
            (Lang::En, true) => {
                format!("{db} rolls back {who}'s open transaction; it had written nothing yet.")
            }
            (Lang::Es, true) => format!(
                "{db} revierte la transacción abierta de {who}; todavía no había escrito nada."
            ),
            (Lang::En, false) => format!(
                "{db} rolls back {who}'s open transaction. Gone, as if never written: {}.",
                self.list(items)
            ),
            (Lang::Es, false) => format!(
                "{db} revierte la transacción abierta de {who}. Desaparece, como si nunca se \
                 hubiera escrito: {}.",
                self.list(items)
            ),
        }
    }

    /// A producer's or a relay's crash, and what it leaves behind.
    pub fn side_crash(
        self,
        who: &str,
        point: &str,
        cause: CrashCause,
        left: SideCrash,
        ev: &str,
    ) -> String {
        let cause = self.cause(cause);
        let left = match (self, left) {
            (Lang::En, SideCrash::Unmarked) => format!(
                "It sent {ev} but had not marked its outbox row sent: after its restart it reads \
                 the row again and sends {ev} again, so whoever receives it must recognise it."
            ),
            (Lang::Es, SideCrash::Unmarked) => format!(
                "Envió {ev} pero no había marcado su fila del outbox como enviada: al reiniciarse \
                 vuelve a leer la fila y envía {ev} otra vez, así que quien lo recibe tiene que \
                 reconocerlo."
            ),
            (Lang::En, SideCrash::NothingDurable) => {
                "Nothing of the request is durable yet: its open transaction is rolled back.".into()
            }
            (Lang::Es, SideCrash::NothingDurable) => {
                "Todavía no hay nada durable del pedido: su transacción abierta se revierte.".into()
            }
            (Lang::En, SideCrash::CommittedUnpublished) => format!(
                "The transfer is committed but {ev} is not published: unless the request is \
                 retried, no consumer will ever see it (the dual-write problem)."
            ),
            (Lang::Es, SideCrash::CommittedUnpublished) => format!(
                "La transferencia está confirmada pero {ev} no se publicó: si el pedido no se \
                 reintenta, ningún consumidor lo va a ver (el problema de la doble escritura)."
            ),
            (Lang::En, SideCrash::PublishedUncommitted) => format!(
                "{ev} is published but the transfer is not committed: the consumers will apply a \
                 transfer the producer never recorded, a ghost."
            ),
            (Lang::Es, SideCrash::PublishedUncommitted) => format!(
                "{ev} está publicado pero la transferencia no está confirmada: los consumidores \
                 van a aplicar una transferencia que el productor nunca registró, un fantasma."
            ),
            (Lang::En, SideCrash::OutboxCommitted) => {
                "The transfer and its outbox row are committed together: the relay will publish \
                 the event."
                    .into()
            }
            (Lang::Es, SideCrash::OutboxCommitted) => {
                "La transferencia y su fila de outbox están confirmadas juntas: el relay va a \
                 publicar el evento."
                    .into()
            }
            (Lang::En, SideCrash::Done) => "Its work for this request was done.".into(),
            (Lang::Es, SideCrash::Done) => "Su trabajo para este pedido ya estaba hecho.".into(),
        };
        match self {
            Lang::En => format!(
                "CRASH ({cause}): {who} dies at {point}. {left} It restarts after the restart \
                 delay."
            ),
            Lang::Es => format!(
                "CAÍDA ({cause}): {who} muere en {point}. {left} Se reinicia después de la \
                 demora de reinicio."
            ),
        }
    }

    pub fn side_rollback(self, who: &str) -> String {
        match self {
            Lang::En => format!("SQLite rolls back the open transaction of {who}."),
            Lang::Es => format!("SQLite revierte la transacción abierta {}.", de(who)),
        }
    }

    /// The faulty phase ended at a limit; the healing phase, with every fault off, begins.
    pub fn healing_begins(self, step_limit: bool, steps: u64, ticks: u64) -> String {
        match self {
            Lang::En => format!(
                "The faulty phase ends at its {} limit with work left. The healing phase \
                 begins: every fault is off from here (no crash, no failed step, no lost ack), \
                 for up to {steps} more steps and {ticks} more ticks; whatever is still \
                 unresolved at its end is stuck.",
                if step_limit { "step" } else { "tick" }
            ),
            Lang::Es => format!(
                "La fase con fallas termina en su límite de {} con trabajo pendiente. Empieza \
                 la fase de recuperación: desde aquí no hay ninguna falla (ni caídas, ni pasos \
                 que fallan, ni acks perdidos), durante hasta {steps} pasos y {ticks} ticks \
                 más; lo que siga sin resolver al final queda atascado.",
                if step_limit { "pasos" } else { "ticks" }
            ),
        }
    }

    /// After the last entry `explain` tells: how many more the run had.
    pub fn untold_entries(self, more: usize, cap: usize) -> String {
        match self {
            Lang::En => format!(
                "… and {more} more trace entries, not told here: explain tells at most {cap} \
                 steps. What follows (anomalies, verdict, failure points) covers the whole run; \
                 `run --trace` lists every entry."
            ),
            Lang::Es => format!(
                "… y {more} entradas más de la traza, que no se cuentan acá: explain cuenta \
                 como mucho {cap} pasos. Lo que sigue (anomalías, veredicto, puntos de fallo) \
                 cubre la corrida entera; `run --trace` lista todas las entradas."
            ),
        }
    }

    pub fn run_stopped(self, step_limit: bool) -> String {
        match (self, step_limit) {
            (Lang::En, true) => {
                "The run stops: it reached its step limit before everything was done.".into()
            }
            (Lang::En, false) => {
                "The run stops: it reached its tick limit before everything was done.".into()
            }
            (Lang::Es, true) => {
                "La corrida se detiene: llegó a su límite de pasos antes de terminar todo.".into()
            }
            (Lang::Es, false) => {
                "La corrida se detiene: llegó a su límite de ticks antes de terminar todo.".into()
            }
        }
    }
}
