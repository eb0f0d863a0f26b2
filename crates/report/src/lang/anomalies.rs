//! explain: every anomaly in plain words, and why it happened.

use super::*;

impl Lang {
    // ---------------------------------------------------------------- explain: anomalies

    pub fn no_anomalies(self) -> String {
        self.pick(
            "Nothing: every event's effect is committed exactly once, and every event is acked.",
            "Nada: el efecto de cada evento quedó confirmado exactamente una vez y todos los \
             eventos tienen ack.",
        )
    }

    pub fn lost_acked_first(self, ev: &str, point: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was acked before its effect committed; the crash after the ack (at \
                 {point}) lost it: the broker will never deliver it again, and the database has \
                 no trace of it."
            ),
            Lang::Es => format!(
                "El evento {ev} se confirmó (ack) antes de que su efecto se confirmara; la caída \
                 después del ack (en {point}) lo perdió: el broker no lo va a volver a entregar y \
                 la base no tiene rastro de él."
            ),
        }
    }

    pub fn lost_marked_first(self, ev: &str, point: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was marked processed in the inbox before its effect committed; after \
                 the crash at {point}, the redelivery found the mark and skipped the effect, so \
                 the effect never happened."
            ),
            Lang::Es => format!(
                "El evento {ev} quedó marcado como procesado en el inbox antes de que su efecto \
                 se confirmara; después de la caída en {point}, la reentrega encontró la marca y \
                 salteó el efecto, así que el efecto nunca ocurrió."
            ),
        }
    }

    pub fn lost_torn(self, ev: &str, debits: u32, credits: u32) -> String {
        let (d, c) = self.ledger_rows(debits, credits);
        match self {
            Lang::En => format!("Event {ev} is lost: only half of its transfer committed ({d}, {c})."),
            Lang::Es => format!(
                "El evento {ev} se perdió: solo se confirmó la mitad de su transferencia ({d}, {c})."
            ),
        }
    }

    pub fn lost_other(self, ev: &str, acked: bool) -> String {
        match (self, acked) {
            (Lang::En, true) => format!(
                "Event {ev} has no committed effect, and it is acked: the broker will never \
                 deliver it again."
            ),
            (Lang::En, false) => format!("Event {ev} has no committed effect."),
            (Lang::Es, true) => format!(
                "El evento {ev} no tiene ningún efecto confirmado, y tiene ack: el broker no lo \
                 va a volver a entregar."
            ),
            (Lang::Es, false) => {
                format!("El evento {ev} no tiene ningún efecto confirmado.")
            }
        }
    }

    /// The external call that is the business effect was never made for `ev`.
    pub fn call_never_made(self, ev: &str, service: &str, acked: bool) -> String {
        match (self, acked) {
            (Lang::En, true) => format!(
                "`{service}` was never called for event {ev}, and it is acked: the broker will \
                 not deliver it again."
            ),
            (Lang::En, false) => format!("`{service}` was never called for event {ev}."),
            (Lang::Es, true) => format!(
                "Nunca se llamó a `{service}` por el evento {ev}, y tiene ack: el broker no lo \
                 va a volver a entregar."
            ),
            (Lang::Es, false) => format!("Nunca se llamó a `{service}` por el evento {ev}."),
        }
    }

    /// The call reached the service, then a crash before the ack; the redelivery called again.
    pub fn call_again_after_crash(
        self,
        ev: &str,
        service: &str,
        point: &str,
        calls: u32,
    ) -> String {
        match self {
            Lang::En => format!(
                "`{service}` was called for event {ev}, then the crash at {point} came before \
                 the ack. A rollback cannot take a call back; the broker delivered {ev} again, \
                 nothing recognised the earlier call, and `{service}` was called {calls} times."
            ),
            Lang::Es => format!(
                "Se llamó a `{service}` por el evento {ev} y la caída en {point} llegó antes \
                 del ack. Un rollback no puede deshacer una llamada; el broker reentregó {ev}, \
                 nada reconoció la llamada previa y se llamó a `{service}` {calls} veces."
            ),
        }
    }

    /// The call made again on a later delivery with no crash between call and ack.
    pub fn call_delivered_twice(
        self,
        ev: &str,
        service: &str,
        deliveries: u32,
        calls: u32,
        causes: &[String],
    ) -> String {
        let causes = match causes {
            [] => self.pick(
                "a lost ack, a broker duplicate, a republication or an expired lease",
                "un ack perdido, un duplicado del broker, una republicación o un lease vencido",
            ),
            _ => self.list(causes),
        };
        match self {
            Lang::En => format!(
                "Event {ev} was delivered {} ({causes}), and nothing recognised the earlier \
                 call: `{service}` was called {calls} times.",
                pl(deliveries, "time", "times")
            ),
            Lang::Es => format!(
                "El evento {ev} se entregó {} ({causes}) y nada reconoció la llamada previa: \
                 se llamó a `{service}` {calls} veces.",
                pl(deliveries, "vez", "veces")
            ),
        }
    }

    pub fn duplicated_after_crash(self, ev: &str, point: &str, effects: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev}'s effect committed, then the crash at {point} came before the ack; \
                 the broker delivered it again and nothing recognised the earlier result, so its \
                 effect is committed {effects} times."
            ),
            Lang::Es => format!(
                "El efecto del evento {ev} se confirmó y la caída en {point} llegó antes del ack; \
                 el broker lo reentregó y nada reconoció el resultado previo, así que su efecto \
                 quedó confirmado {effects} veces."
            ),
        }
    }

    /// A duplicate with no crash between its commit and its ack: `causes` are why it was
    /// delivered again (from [`Lang::dup_cause`], joined), empty when the trace does not say.
    pub fn duplicated_delivered_twice(
        self,
        ev: &str,
        deliveries: u32,
        effects: u32,
        causes: &[String],
    ) -> String {
        let causes = if causes.is_empty() {
            self.pick(
                "a lost ack, a broker duplicate, a republication or an expired lease",
                "un ack perdido, un duplicado del broker, una republicación o un lease vencido",
            )
        } else {
            self.list(causes)
        };
        match self {
            Lang::En => format!(
                "Event {ev} was delivered {} ({causes}), and nothing recognised the earlier \
                 result: its effect is committed {effects} times.",
                pl(deliveries, "time", "times")
            ),
            Lang::Es => format!(
                "El evento {ev} se entregó {} ({causes}) y nada reconoció el resultado previo: \
                 su efecto quedó confirmado {effects} veces.",
                pl(deliveries, "vez", "veces")
            ),
        }
    }

    /// A duplicate made by running a transaction again after a COMMIT that timed out but
    /// had committed.
    pub fn duplicated_by_commit_timeout(self, ev: &str, effects: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev}'s COMMIT timed out although it had committed; the consumer ran the \
                 transaction again, and nothing recognised the earlier result: its effect is \
                 committed {effects} times."
            ),
            Lang::Es => format!(
                "El COMMIT del evento {ev} venció por timeout aunque se había confirmado; el \
                 consumidor volvió a ejecutar la transacción y nada reconoció el resultado \
                 previo: su efecto quedó confirmado {effects} veces."
            ),
        }
    }

    /// Why an event was delivered again, as a clause of [`Lang::duplicated_delivered_twice`].
    pub fn dup_cause(self, cause: DupCause) -> String {
        let (en, es) = match cause {
            DupCause::LeaseExpired => (
                "its lease expired while a consumer still held it",
                "venció su lease mientras un consumidor todavía lo tenía",
            ),
            DupCause::BrokerDuplicate => (
                "the broker delivered it twice on its own",
                "el broker lo entregó dos veces por su cuenta",
            ),
            DupCause::AckLost => (
                "an ack was lost on the way",
                "un ack se perdió en el camino",
            ),
            DupCause::Republished => (
                "it was published more than once",
                "se publicó más de una vez",
            ),
            DupCause::DeadLetterReplay => (
                "it was replayed from the dead-letter queue",
                "se reprocesó desde la DLQ",
            ),
            DupCause::CommitTimeout => (
                "a COMMIT timed out and the transaction ran again",
                "un COMMIT venció por timeout y la transacción se ejecutó otra vez",
            ),
        };
        self.pick(en, es)
    }

    pub fn duplicated_amounts(self, amounts: &str) -> String {
        match self {
            Lang::En => format!(
                "The committed amounts differ ({amounts}): a copy with the same event_id and \
                 another payload was applied."
            ),
            Lang::Es => format!(
                "Los importes confirmados difieren ({amounts}): se aplicó una copia con el mismo \
                 event_id y otro payload."
            ),
        }
    }

    pub fn dead_lettered_anomaly(self, ev: &str, deliveries: u32, by_policy: bool) -> String {
        match (self, by_policy) {
            (Lang::En, true) => format!(
                "Event {ev}'s last delivery failed, and the consumer's error policy moved it to \
                 the dead-letter queue (on_error: dead_letter): it has no effect, but it is not a \
                 silent loss; someone has to look at it, or replay it."
            ),
            (Lang::Es, true) => format!(
                "La última entrega del evento {ev} falló, y la política de errores del \
                 consumidor lo mandó a la DLQ (on_error: dead_letter): no tiene efecto, pero no \
                 es una pérdida silenciosa; alguien tiene que revisarlo, o reprocesarlo."
            ),
            _ => self.dead_lettered_by_broker(ev, deliveries),
        }
    }

    fn dead_lettered_by_broker(self, ev: &str, deliveries: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was delivered {deliveries} times without an ack \
                 (broker.max_deliveries), and the broker parked it in the dead-letter queue: it \
                 has no effect, but it is not a silent loss; someone has to look at it, or \
                 replay it."
            ),
            Lang::Es => format!(
                "El evento {ev} se entregó {deliveries} veces sin ack (broker.max_deliveries) y \
                 el broker lo estacionó en la DLQ: no tiene efecto, pero no es una pérdida \
                 silenciosa; alguien tiene que revisarlo, o reprocesarlo."
            ),
        }
    }

    pub fn pending_anomaly(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} (a TransferCompleted) is still waiting in pending_event: no \
                 creation of its transfer released it (none took effect, or, on PostgreSQL at \
                 read committed, one committed beside it without seeing its row), so it is \
                 neither lost nor done."
            ),
            Lang::Es => format!(
                "El evento {ev} (un TransferCompleted) sigue esperando en pending_event: \
                 ninguna creación de su transferencia lo liberó (ninguna tuvo efecto o, en \
                 PostgreSQL con read committed, una confirmó a su lado sin ver su fila), así \
                 que no está perdido ni terminado."
            ),
        }
    }

    pub fn duplicated_after_expiry(self, ev: &str, at: u64, effects: u32) -> String {
        match self {
            Lang::En => format!(
                "The retention job deleted event {ev}'s inbox row at t={at}; a later delivery \
                 was no longer recognised, so its effect is committed {effects} times. The TTL \
                 was shorter than the time in which the broker may deliver it again."
            ),
            Lang::Es => format!(
                "El job de retención borró la fila de inbox del evento {ev} en t={at}; una \
                 entrega posterior ya no se reconoció, así que su efecto quedó confirmado \
                 {effects} veces. El TTL era más corto que el tiempo en el que el broker lo \
                 puede volver a entregar."
            ),
        }
    }

    pub fn rejected_anomaly(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} (a TransferCompleted) was handled before the creation of its \
                 transfer was committed; the projection rejected it and recorded the \
                 rejection, so that transfer never completes."
            ),
            Lang::Es => format!(
                "El evento {ev} (un TransferCompleted) se procesó antes de que se confirmara \
                 la creación de su transferencia; la proyección lo rechazó y registró el \
                 rechazo, así que esa transferencia nunca se completa."
            ),
        }
    }

    pub fn unpublished_anomaly(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was never published: the producer committed its transfer and crashed \
                 before publishing, so no consumer ever saw it."
            ),
            Lang::Es => format!(
                "El evento {ev} nunca se publicó: el productor confirmó su transferencia y se \
                 cayó antes de publicar, así que ningún consumidor lo vio."
            ),
        }
    }

    pub fn payload_anomaly(self, ev: &str, stored: &str, received: &str) -> String {
        match self {
            Lang::En => format!(
                "A copy of event {ev} arrived with the same event_id and another payload (stored \
                 {stored}, received {received}): the inbox refused it and recorded an alert. It \
                 was not applied, and it does not count as a duplicate."
            ),
            Lang::Es => format!(
                "Llegó una copia del evento {ev} con el mismo event_id y otro payload (guardado \
                 {stored}, recibido {received}): el inbox la rechazó y registró una alerta. No se \
                 aplicó, y no cuenta como duplicado."
            ),
        }
    }

    pub fn torn_anomaly(self, ev: &str, debits: u32, credits: u32) -> String {
        let (d, c) = self.ledger_rows(debits, credits);
        match self {
            Lang::En => format!(
                "Event {ev} is torn: {d} and {c} committed, so the balances no longer add up."
            ),
            Lang::Es => format!(
                "El evento {ev} quedó partido: se confirmaron {d} y {c}, así que los saldos ya no \
                 cierran."
            ),
        }
    }

    pub fn unacked_anomaly(self, ev: &str, stop: StopReason, has_ack: bool) -> String {
        match (self, stop, has_ack) {
            (
                Lang::En,
                StopReason::StepLimit | StopReason::TickLimit | StopReason::TraceLimit,
                _,
            ) => {
                let limit = self.limit_name(stop);
                format!("Event {ev} was never acked: the run stopped at its {limit} limit first.")
            }
            (
                Lang::Es,
                StopReason::StepLimit | StopReason::TickLimit | StopReason::TraceLimit,
                _,
            ) => {
                let limit = self.limit_name(stop);
                format!(
                    "El evento {ev} nunca recibió ack: antes, la corrida se detuvo por su límite \
                     de {limit}."
                )
            }
            (Lang::En, StopReason::SqlLimit, _) => format!(
                "Event {ev} was never acked: the run stopped at its SQL limit first (its \
                 statements took as many SQLite virtual-machine steps as a run may)."
            ),
            (Lang::Es, StopReason::SqlLimit, _) => format!(
                "El evento {ev} nunca recibió ack: antes, la corrida se detuvo por su límite de \
                 SQL (sus sentencias usaron todos los pasos de la máquina virtual de SQLite que \
                 una corrida puede usar)."
            ),
            (Lang::En, StopReason::Quiescent, false) => format!(
                "Event {ev} was never acked: the protocol has no ack step, so it stays in flight \
                 forever."
            ),
            (Lang::Es, StopReason::Quiescent, false) => format!(
                "El evento {ev} nunca recibió ack: el protocolo no tiene un paso de ack, así que \
                 queda en vuelo para siempre."
            ),
            (Lang::En, StopReason::Quiescent, true) => {
                format!("Event {ev} was left without an ack, with nothing more to run.")
            }
            (Lang::Es, StopReason::Quiescent, true) => {
                format!("El evento {ev} quedó sin ack, sin nada más para ejecutar.")
            }
        }
    }

    pub fn intent_lost(self, transfer: &str) -> String {
        match self {
            Lang::En => format!(
                "Transfer {transfer} was committed by the producer, but its money never moved."
            ),
            Lang::Es => format!(
                "El productor confirmó la transferencia {transfer}, pero su dinero nunca se movió."
            ),
        }
    }

    /// An intent whose money moved more than once, through `events`; `distinct`: they are
    /// several events (different `event_id`s), not one event applied twice.
    pub fn intent_duplicated(
        self,
        transfer: &str,
        effects: u32,
        events: &str,
        distinct: bool,
    ) -> String {
        match (self, distinct) {
            (Lang::En, true) => format!(
                "Transfer {transfer}'s money moved {effects} times: it was published as {events}, \
                 different event_ids, and an inbox recognises event_ids, not intents."
            ),
            (Lang::Es, true) => format!(
                "El dinero de la transferencia {transfer} se movió {effects} veces: se publicó \
                 como {events}, con event_ids distintos, y un inbox reconoce event_ids, no \
                 intenciones."
            ),
            (Lang::En, false) => format!(
                "Transfer {transfer}'s money moved {effects} times, through {events}: the same \
                 duplicate, seen per intent."
            ),
            (Lang::Es, false) => format!(
                "El dinero de la transferencia {transfer} se movió {effects} veces, a través de \
                 {events}: el mismo duplicado, visto por intención."
            ),
        }
    }

    pub fn intent_stuck(self, transfer: &str) -> String {
        match self {
            Lang::En => format!(
                "Transfer {transfer}'s money has not moved, and the broker still holds its \
                 event: the run ended before anything resolved it, a liveness failure."
            ),
            Lang::Es => format!(
                "El dinero de la transferencia {transfer} no se movió, y el broker todavía \
                 retiene su evento: la corrida terminó sin que nada lo resolviera, una falla \
                 de progreso."
            ),
        }
    }

    pub fn intent_ghost(self, transfer: &str) -> String {
        match self {
            Lang::En => format!(
                "Transfer {transfer}'s money moved, but the producer never committed the \
                 transfer: a ghost event, published before its transaction committed."
            ),
            Lang::Es => format!(
                "El dinero de la transferencia {transfer} se movió, pero el productor nunca \
                 confirmó la transferencia: un evento fantasma, publicado antes de que su \
                 transacción se confirmara."
            ),
        }
    }

    /// A boundary beyond the ledger per event that is not exactly-once, and why that can be;
    /// `several_events`: some intent was published as several events.
    pub fn boundary_anomaly(self, b: &ScopeVerdict, several_events: bool) -> String {
        let describe = cap(&self.describe_scope(b));
        let why = match (self, b.boundary) {
            (_, Scope::LedgerPerIntent | Scope::LedgerPerEvent) if !several_events => {
                return format!("{describe}.");
            }
            (Lang::En, Scope::LedgerPerIntent | Scope::LedgerPerEvent) => {
                "An inbox protects each event_id; the producer decides how many events one \
                 intent becomes."
            }
            (Lang::Es, Scope::LedgerPerIntent | Scope::LedgerPerEvent) => {
                "Un inbox protege cada event_id; el productor decide en cuántos eventos se \
                 convierte una intención."
            }
            (Lang::En, Scope::Email) => {
                "The email leaves the database's transaction, so the ledger's guarantee does not \
                 cover it."
            }
            (Lang::Es, Scope::Email) => {
                "El correo sale de la transacción de la base, así que la garantía del ledger no \
                 lo cubre."
            }
            (Lang::En, Scope::Call) => {
                "The call reaches the other service at once and a rollback does not take it \
                 back, so the database's guarantee does not cover it."
            }
            (Lang::Es, Scope::Call) => {
                "La llamada llega al otro servicio en el acto y un rollback no la deshace, así \
                 que la garantía de la base no la cubre."
            }
            (Lang::En, Scope::OutputTopic) => {
                "An output published outside the broker's transaction is not taken back by a \
                 crash."
            }
            (Lang::Es, Scope::OutputTopic) => {
                "Una salida publicada fuera de la transacción del broker no se deshace con una \
                 caída."
            }
        };
        format!("{describe}. {why}")
    }

    pub fn lost_update(self, accounts: &[String]) -> String {
        let list = self.list(accounts);
        match (self, accounts.len()) {
            (Lang::En, 1) => format!(
                "The balances do not add up: the balance of {list} disagrees with its ledger \
                 rows, because an update was lost (two writers read the same balance)."
            ),
            (Lang::En, _) => format!(
                "The balances do not add up: the balances of {list} disagree with their ledger \
                 rows, because updates were lost (two writers read the same balance)."
            ),
            (Lang::Es, 1) => format!(
                "Los saldos no cierran: el saldo de {list} no coincide con sus asientos, porque \
                 se perdió una actualización (dos escritores leyeron el mismo saldo)."
            ),
            (Lang::Es, _) => format!(
                "Los saldos no cierran: los saldos de {list} no coinciden con sus asientos, \
                 porque se perdieron actualizaciones (dos escritores leyeron el mismo saldo)."
            ),
        }
    }

    pub fn stopped_anomaly(self, step_limit: bool) -> String {
        match (self, step_limit) {
            (Lang::En, true) => "The run stopped at its step limit before it was done.".into(),
            (Lang::En, false) => "The run stopped at its tick limit before it was done.".into(),
            (Lang::Es, true) => {
                "La corrida se detuvo por su límite de pasos antes de terminar.".into()
            }
            (Lang::Es, false) => {
                "La corrida se detuvo por su límite de ticks antes de terminar.".into()
            }
        }
    }
}
