//! explain: what a consumer's steps say, step by step.

use super::*;

impl Lang {
    // ---------------------------------------------------------------- explain: the consumer

    pub fn waiting(self, who: &str) -> String {
        match self {
            Lang::En => {
                format!("{who} asks the broker for a message; nothing is ready, so it waits.")
            }
            Lang::Es => {
                format!("{who} le pide un mensaje al broker; no hay nada listo, así que espera.")
            }
        }
    }

    pub fn receive(self, who: &str, ev: &str, delivery: u32) -> String {
        match (self, delivery) {
            (Lang::En, 0 | 1) => format!("{who} receives {ev}."),
            (Lang::Es, 0 | 1) => format!("{who} recibe {ev}."),
            (Lang::En, d) => format!(
                "{who} receives {ev} again (delivery {d}): the broker delivers again what it \
                 has no ack for."
            ),
            (Lang::Es, d) => format!(
                "{who} recibe {ev} otra vez (entrega {d}): el broker reentrega lo que no tiene \
                 con ack."
            ),
        }
    }

    pub fn begin(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} opens a transaction for {ev} (BEGIN). Nothing it writes from here on is \
                 durable until COMMIT; a crash before that rolls it all back."
            ),
            Lang::Es => format!(
                "{who} abre una transacción para {ev} (BEGIN). Nada de lo que escriba desde acá \
                 es durable hasta el COMMIT; una caída antes lo revierte todo."
            ),
        }
    }

    /// `BEGIN` on one of the scenario's named databases: a transaction of its own.
    pub fn begin_on(self, who: &str, ev: &str, db: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} opens a transaction on database {db} for {ev} (BEGIN). It is a \
                 transaction of its own: it commits or rolls back apart from any other \
                 database's."
            ),
            Lang::Es => format!(
                "{who} abre una transacción en la base {db} para {ev} (BEGIN). Es una \
                 transacción aparte: se confirma o se revierte sin las de otra base."
            ),
        }
    }

    pub fn check_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev} up in the inbox and finds it: already processed, so it skips \
                 the effect."
            ),
            Lang::Es => format!(
                "{who} busca {ev} en el inbox y lo encuentra: ya se procesó, así que saltea el \
                 efecto."
            ),
        }
    }

    pub fn check_not_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev} up in the inbox: not there, so it will process it. This is a \
                 read, not a constraint: between this check and the insert, nothing stops \
                 another consumer from deciding the same."
            ),
            Lang::Es => format!(
                "{who} busca {ev} en el inbox: no está, así que lo va a procesar. Es una \
                 lectura, no una restricción: entre esta verificación y el INSERT, nada impide \
                 que otro consumidor decida lo mismo."
            ),
        }
    }

    pub fn inbox_duplicate(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} tries to insert {ev}'s event_id into the inbox, and the unique \
                 constraint refuses it: {ev} was processed before. The consumer recognises the \
                 earlier result and discards this copy, with no second effect."
            ),
            Lang::Es => format!(
                "{who} intenta insertar el event_id de {ev} en el inbox y la restricción única \
                 lo rechaza: {ev} ya se procesó. El consumidor reconoce el resultado previo y \
                 descarta esta copia, sin un segundo efecto."
            ),
        }
    }

    /// The inbox INSERT inside the transaction, with (`unique`) or without the unique
    /// constraint that makes it recognise a redelivery.
    pub fn inbox_inserted(self, who: &str, ev: &str, unique: bool) -> String {
        match (self, unique) {
            (Lang::En, true) => format!(
                "{who} inserts {ev}'s event_id into the inbox, inside the transaction. The \
                 unique constraint on event_id is what will recognise a redelivery."
            ),
            (Lang::Es, true) => format!(
                "{who} inserta el event_id de {ev} en el inbox, dentro de la transacción. La \
                 restricción única sobre event_id es la que va a reconocer una reentrega."
            ),
            (Lang::En, false) => format!(
                "{who} inserts {ev}'s event_id into the inbox, inside the transaction. This \
                 inbox has no unique constraint on event_id: nothing stops a second row for the \
                 same event."
            ),
            (Lang::Es, false) => format!(
                "{who} inserta el event_id de {ev} en el inbox, dentro de la transacción. Este \
                 inbox no tiene restricción única sobre event_id: nada impide una segunda fila \
                 para el mismo evento."
            ),
        }
    }

    pub fn inbox_inserted_autocommit(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} inserts {ev}'s event_id into the inbox with no transaction open: the mark \
                 commits at once, before the effect exists. A crash now leaves {ev} marked \
                 processed without its effect."
            ),
            Lang::Es => format!(
                "{who} inserta el event_id de {ev} en el inbox sin una transacción abierta: la \
                 marca se confirma en el acto, antes de que exista el efecto. Una caída ahora \
                 deja a {ev} marcado como procesado sin su efecto."
            ),
        }
    }

    pub fn effect_applied(
        self,
        who: &str,
        ev: &str,
        source: &str,
        target: &str,
        amount: i64,
        in_transaction: bool,
    ) -> String {
        match (self, in_transaction) {
            (Lang::En, true) => format!(
                "{who} applies {ev}'s effect in the transaction: it debits {amount} from \
                 {source} and credits it to {target}. Not committed yet."
            ),
            (Lang::Es, true) => format!(
                "{who} aplica el efecto de {ev} en la transacción: debita {amount} de {source} \
                 y se lo acredita a {target}. Todavía sin confirmar."
            ),
            (Lang::En, false) => format!(
                "{who} applies {ev}'s effect with no transaction open: it debits {amount} from \
                 {source} and credits it to {target}, each statement committed on its own."
            ),
            (Lang::Es, false) => format!(
                "{who} aplica el efecto de {ev} sin una transacción abierta: debita {amount} de \
                 {source} y se lo acredita a {target}, y cada sentencia se confirma por su \
                 cuenta."
            ),
        }
    }

    pub fn completion_applied(
        self,
        who: &str,
        ev: &str,
        transfer: &str,
        in_transaction: bool,
    ) -> String {
        match (self, in_transaction) {
            (Lang::En, true) => format!(
                "{who} applies {ev}: it marks transfer {transfer} completed, in the transaction. \
                 Not committed yet."
            ),
            (Lang::Es, true) => format!(
                "{who} aplica {ev}: marca la transferencia {transfer} como completada, dentro de \
                 la transacción. Todavía sin confirmar."
            ),
            (Lang::En, false) => format!(
                "{who} applies {ev}: it marks transfer {transfer} completed, committed at once."
            ),
            (Lang::Es, false) => format!(
                "{who} aplica {ev}: marca la transferencia {transfer} como completada, y se \
                 confirma en el acto."
            ),
        }
    }

    pub fn effect_buffered(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} does not know {ev}'s transfer yet, so it keeps the completion in \
                 pending_event, in the transaction: it takes effect when the creation arrives."
            ),
            Lang::Es => format!(
                "{who} todavía no conoce la transferencia de {ev}, así que guarda la \
                 finalización en pending_event, dentro de la transacción: tiene efecto cuando \
                 llegue la creación."
            ),
        }
    }

    pub fn effect_applied_with_pending(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} applies {ev}'s effect (debit and credit) and, with it, the completion \
                 that waited in pending_event for this transfer."
            ),
            Lang::Es => format!(
                "{who} aplica el efecto de {ev} (débito y crédito) y, junto con él, la \
                 finalización que esperaba en pending_event a esta transferencia."
            ),
        }
    }

    pub fn sleep(self, who: &str, ev: &str, ticks: u64) -> String {
        match self {
            Lang::En => format!(
                "{who} sleeps {ticks} ticks before applying {ev}, a TransferCompleted, hoping \
                 its TransferCreated arrives first, and holds the delivery meanwhile. A sleep \
                 turns a race into a slower race."
            ),
            Lang::Es => format!(
                "{who} duerme {ticks} ticks antes de aplicar {ev}, un TransferCompleted, con la \
                 esperanza de que su TransferCreated llegue antes, y mientras tanto retiene la \
                 entrega. Un sleep convierte una condición de carrera en una condición de \
                 carrera lenta."
            ),
        }
    }

    pub fn cleanup_deleted(self, events: &str, ttl: u64) -> String {
        match self {
            Lang::En => format!(
                "The retention job deletes the inbox rows older than its TTL ({ttl} ticks): \
                 {events}. From now on, a redelivery of those events is no longer recognised."
            ),
            Lang::Es => format!(
                "El job de retención borra las filas de inbox más viejas que su TTL ({ttl} \
                 ticks): {events}. Desde ahora, una reentrega de esos eventos ya no se reconoce."
            ),
        }
    }

    pub fn cleanup_busy(self) -> String {
        self.pick(
            "The retention job finds the write lock held by a consumer and deletes nothing \
             this time.",
            "El job de retención encuentra el lock de escritura tomado por un consumidor y esta \
             vez no borra nada.",
        )
    }

    pub fn late_replay(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev} was acked, but the broker makes it ready again at the end of its replay \
                 window (broker.late_redelivery_ticks): a late redelivery."
            ),
            Lang::Es => format!(
                "{ev} tenía ack, pero el broker lo vuelve a poner listo al final de su ventana \
                 de replay (broker.late_redelivery_ticks): una reentrega tardía."
            ),
        }
    }

    pub fn credit_failed(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} applies {ev}'s effect: the debit runs, the credit fails (an injected \
                 failure)."
            ),
            Lang::Es => format!(
                "{who} aplica el efecto de {ev}: el débito se ejecuta y el crédito falla (una \
                 falla inyectada)."
            ),
        }
    }

    pub fn effect_rejected(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The projection rejects {ev} for {who}: it completes a transfer the projection \
                 does not know yet (the completion arrived before the creation). The rejection \
                 is recorded."
            ),
            Lang::Es => format!(
                "La proyección rechaza {ev} para {who}: completa una transferencia que todavía \
                 no conoce (la finalización llegó antes que la creación). El rechazo queda \
                 registrado."
            ),
        }
    }

    pub fn business_duplicate(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The ledger's business key refuses {ev} for {who}: its transfer was already \
                 applied under another event_id. One effect per intent."
            ),
            Lang::Es => format!(
                "La clave de negocio del ledger rechaza {ev} para {who}: su transferencia ya se \
                 aplicó con otro event_id. Un efecto por intención."
            ),
        }
    }

    pub fn already_completed(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{ev}'s transfer is already completed: {who} has nothing to do."),
            Lang::Es => format!(
                "La transferencia de {ev} ya está completada: {who} no tiene nada que hacer."
            ),
        }
    }

    pub fn balances_read(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} reads the balances for {ev}; the write computed from them comes on its \
                 next turn, and another consumer may write in between (a lost update waiting to \
                 happen)."
            ),
            Lang::Es => format!(
                "{who} lee los saldos para {ev}; la escritura calculada a partir de ellos viene \
                 en su próximo turno, y otro consumidor puede escribir en el medio (una \
                 actualización perdida esperando a ocurrir)."
            ),
        }
    }

    /// The COMMIT, with what it made durable.
    pub fn commit(self, who: &str, items: &[String]) -> String {
        match (self, items.is_empty()) {
            (Lang::En, true) => format!("{who} commits (COMMIT) a transaction that wrote nothing."),
            (Lang::Es, true) => {
                format!("{who} hace COMMIT de una transacción que no escribió nada.")
            }
            (Lang::En, false) => format!(
                "{who} commits (COMMIT). Durable from now on, all together: {}.",
                self.list(items)
            ),
            (Lang::Es, false) => format!(
                "{who} hace COMMIT. Desde ahora es durable, todo junto: {}.",
                self.list(items)
            ),
        }
    }

    /// The `COMMIT` on one of the scenario's named databases: durable there, and only
    /// there.
    pub fn commit_on(self, who: &str, items: &[String], db: &str) -> String {
        match (self, items.is_empty()) {
            (Lang::En, true) => {
                format!("{who} commits (COMMIT) on database {db} a transaction that wrote nothing.")
            }
            (Lang::Es, true) => format!(
                "{who} hace COMMIT en la base {db} de una transacción que no escribió nada."
            ),
            (Lang::En, false) => format!(
                "{who} commits on database {db} (COMMIT). Durable from now on, in {db} only: \
                 {}. Nothing in another database is part of this commit.",
                self.list(items)
            ),
            (Lang::Es, false) => format!(
                "{who} hace COMMIT en la base {db}. Desde ahora es durable, solo en {db}: {}. \
                 Nada de otra base es parte de este COMMIT.",
                self.list(items)
            ),
        }
    }

    pub fn commit_timeout(
        self,
        who: &str,
        committed: bool,
        strategy: CommitTimeoutStrategy,
    ) -> String {
        match self {
            Lang::En => format!(
                "{who}'s COMMIT times out: {}. The consumer cannot tell which, and {}.",
                if committed {
                    "it did commit, and the answer was lost"
                } else {
                    "it did not commit, and the database rolled it back"
                },
                match strategy {
                    CommitTimeoutStrategy::Retry => "retries the transaction blindly",
                    CommitTimeoutStrategy::Abandon => "treats it as done",
                    CommitTimeoutStrategy::Lookup => "looks the event_id up before deciding",
                }
            ),
            Lang::Es => format!(
                "El COMMIT de {who} vence por timeout: {}. El consumidor no puede saber cuál de \
                 las dos cosas pasó, y {}.",
                if committed {
                    "sí se confirmó, y se perdió la respuesta"
                } else {
                    "no se confirmó, y la base de datos revirtió"
                },
                match strategy {
                    CommitTimeoutStrategy::Retry => "reintenta la transacción a ciegas",
                    CommitTimeoutStrategy::Abandon => "lo da por hecho",
                    CommitTimeoutStrategy::Lookup => {
                        "busca el event_id en el inbox antes de decidir"
                    }
                }
            ),
        }
    }

    pub fn rollback(self, who: &str, items: &[String]) -> String {
        match (self, items.is_empty()) {
            (Lang::En, true) => {
                format!("{who} rolls back its transaction (ROLLBACK); it had written nothing.")
            }
            (Lang::Es, true) => {
                format!("{who} hace ROLLBACK de su transacción; no había escrito nada.")
            }
            (Lang::En, false) => format!(
                "{who} rolls back its transaction (ROLLBACK). Gone, as if never written: {}.",
                self.list(items)
            ),
            (Lang::Es, false) => format!(
                "{who} hace ROLLBACK de su transacción. Desaparece, como si nunca se hubiera \
                 escrito: {}.",
                self.list(items)
            ),
        }
    }

    pub fn ack_lost(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev}, but the ack is lost on the way: the consumer believes it is \
                 done, while the broker never heard it and will deliver {ev} again."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev}, pero el ack se pierde en el camino: el consumidor \
                 cree que terminó, mientras que el broker nunca lo recibió y va a reentregar \
                 {ev}."
            ),
        }
    }

    pub fn ack_stale(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} too late: the broker already delivered it again (its lease \
                 expired), so it ignores this stale ack."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} tarde: el broker ya lo reentregó (venció su lease), \
                 así que ignora este ack viejo."
            ),
        }
    }

    pub fn ack_already(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{who} acks {ev}, which is already acked: nothing changes."),
            Lang::Es => format!("{who} envía el ack de {ev}, que ya tenía ack: no cambia nada."),
        }
    }

    pub fn ack_stale_accepted(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} after its lease expired, and the broker accepts it: the message \
                 is acked, whoever else holds it."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} después de que venció su lease, y el broker lo \
                 acepta: el mensaje queda con ack, lo tenga quien lo tenga."
            ),
        }
    }

    pub fn ack_log(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => {
                format!("{who} marks {ev} processed: it counts towards the next offset commit.")
            }
            Lang::Es => format!(
                "{who} marca {ev} como procesado: cuenta para el próximo commit del offset."
            ),
        }
    }

    pub fn ack_after_duplicate(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} without applying it again: the earlier result stands, and the \
                 broker forgets the message."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} sin aplicarlo de nuevo: vale el resultado previo, y \
                 el broker olvida el mensaje."
            ),
        }
    }

    pub fn ack_after_refusal(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev}, the refused copy: the broker forgets it, and the alert stays \
                 for a person to look at."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev}, la copia rechazada: el broker la olvida, y la \
                 alerta queda para que la revise una persona."
            ),
        }
    }

    pub fn ack_after_commit(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} after its effect committed: the broker forgets the message, \
                 and {ev} is resolved."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} después del commit de su efecto: el broker olvida el \
                 mensaje y {ev} queda resuelto."
            ),
        }
    }

    pub fn ack_before_commit(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} BEFORE its effect is committed: from now on the broker \
                 considers it done and will never deliver it again. If {who} dies before its \
                 COMMIT, {ev} is lost."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} ANTES de que su efecto esté confirmado: desde ahora \
                 el broker lo da por terminado y no lo va a volver a entregar. Si {who} muere \
                 antes de su COMMIT, {ev} se pierde."
            ),
        }
    }

    pub fn ack_without_effect(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{who} acks {ev}: the broker forgets the message."),
            Lang::Es => format!("{who} envía el ack de {ev}: el broker olvida el mensaje."),
        }
    }

    pub fn nack(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{who} rejects {ev} (nack): the broker will deliver it again."),
            Lang::Es => format!("{who} rechaza {ev} (nack): el broker lo va a reentregar."),
        }
    }

    pub fn payload_mismatch(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The inbox already holds {ev}'s event_id with another payload: this is not a \
                 duplicate but a corruption by the producer. {who} refuses the copy."
            ),
            Lang::Es => format!(
                "El inbox ya tiene el event_id de {ev} con otro payload: no es un duplicado sino \
                 una corrupción del productor. {who} rechaza la copia."
            ),
        }
    }

    pub fn alert_recorded(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} records a payload alert for {ev} and commits it: someone has to look at \
                 the producer."
            ),
            Lang::Es => format!(
                "{who} registra una alerta de payload para {ev} y la confirma: alguien tiene que \
                 revisar el productor."
            ),
        }
    }

    pub fn alert_exists(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} tries to record the payload alert for {ev} again, and its unique \
                 constraint refuses it: one alert per received payload."
            ),
            Lang::Es => format!(
                "{who} intenta registrar otra vez la alerta de payload de {ev}, y su restricción \
                 única lo impide: una alerta por payload recibido."
            ),
        }
    }

    pub fn lookup_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev}'s event_id up in the inbox: found, so the commit did happen; \
                 it goes on."
            ),
            Lang::Es => format!(
                "{who} busca el event_id de {ev} en el inbox: está, así que el commit sí \
                 ocurrió; sigue adelante."
            ),
        }
    }

    pub fn lookup_not_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev}'s event_id up in the inbox: not found, so the commit did not \
                 happen; it runs the transaction again."
            ),
            Lang::Es => format!(
                "{who} busca el event_id de {ev} en el inbox: no está, así que el commit no \
                 ocurrió; vuelve a ejecutar la transacción."
            ),
        }
    }

    pub fn external_effect(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} sends {ev}'s email straight to the mail service. That is outside the \
                 database: neither a rollback nor a crash can take it back."
            ),
            Lang::Es => format!(
                "{who} envía el correo de {ev} directamente al servicio de correo. Eso está \
                 fuera de la base: ni un rollback ni una caída lo pueden deshacer."
            ),
        }
    }

    pub fn email_queued(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} queues {ev}'s email in email_outbox, in the same transaction as the \
                 effect: the email relay sends it only if the effect commits."
            ),
            Lang::Es => format!(
                "{who} encola el correo de {ev} en email_outbox, en la misma transacción que el \
                 efecto: el relay de correos lo envía solo si el efecto se confirma."
            ),
        }
    }

    pub fn output_staged(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} produces TransferApplied for {ev} inside the broker transaction: it \
                 becomes visible only when the ack commits that transaction."
            ),
            Lang::Es => format!(
                "{who} produce TransferApplied para {ev} dentro de la transacción del broker: se \
                 vuelve visible solo cuando el ack confirma esa transacción."
            ),
        }
    }

    pub fn output_published(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} publishes TransferApplied for {ev} to the output topic, visible at once: \
                 a crash before the ack cannot take it back."
            ),
            Lang::Es => format!(
                "{who} publica TransferApplied para {ev} en el topic de salida, visible en el \
                 acto: una caída antes del ack no lo puede deshacer."
            ),
        }
    }

    pub fn restart(self, who: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} restarts with nothing in hand: it asks the broker for the next message."
            ),
            Lang::Es => format!(
                "{who} se reinicia sin nada en la mano: le pide al broker el próximo mensaje."
            ),
        }
    }

    pub fn stall(self, who: &str, ev: &str, ticks: u64) -> String {
        match self {
            Lang::En => format!(
                "{who} stalls for {ticks} ticks on {ev}, still holding its delivery and its \
                 transaction (its lease may expire meanwhile)."
            ),
            Lang::Es => format!(
                "{who} se frena {ticks} ticks con {ev}, todavía con su entrega y su transacción \
                 (mientras tanto puede vencer su lease)."
            ),
        }
    }

    /// The run ended with a transaction open; `db` (the engine) rolls it back.
    pub fn stop_rollback(self, who: &str, db: &str) -> String {
        match self {
            Lang::En => {
                format!("The run stops with {who}'s transaction open: {db} rolls it back.")
            }
            Lang::Es => {
                format!("La corrida termina con la transacción de {who} abierta: {db} la revierte.")
            }
        }
    }

    pub fn blocked(self, who: &str, action: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!(
                "{who} tries {action}, and PostgreSQL makes the statement wait: another \
                 transaction holds a lock it needs. It answers once that transaction commits or \
                 rolls back."
            ),
            Lang::Es => format!(
                "{who} intenta {action}, y PostgreSQL hace esperar la sentencia: otra \
                 transacción tiene un lock que necesita. Responde cuando esa transacción haga \
                 commit o rollback."
            ),
        }
    }

    pub fn busy(self, who: &str, action: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!(
                "{who} tries {action}, but SQLite answers busy: another connection holds the \
                 write lock. Nothing happened; it waits and retries."
            ),
            Lang::Es => format!(
                "{who} intenta {action}, pero SQLite responde busy: otra conexión tiene el lock \
                 de escritura. No pasó nada; espera y reintenta."
            ),
        }
    }

    pub fn stale_snapshot(self, who: &str) -> String {
        match self {
            Lang::En => format!(
                "SQLite refuses {who}'s write: its snapshot is older than another connection's \
                 commit (SQLITE_BUSY_SNAPSHOT). The transaction must roll back."
            ),
            Lang::Es => format!(
                "SQLite rechaza la escritura de {who}: su snapshot es más viejo que el commit de \
                 otra conexión (SQLITE_BUSY_SNAPSHOT). La transacción tiene que revertirse."
            ),
        }
    }

    pub fn step_failed(self, who: &str, action: &str, ev: &str) -> String {
        match self {
            Lang::En => {
                format!("{who}'s {action} on {ev} fails (an injected failure): nothing is done.")
            }
            Lang::Es => format!(
                "Falla el paso {action} de {who} con {ev} (una falla inyectada): no se hace nada."
            ),
        }
    }

    /// The consumer refuses an invalid payload (`workload.invalid`) before applying it.
    pub fn payload_refused(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} refuses {ev}: its payload is invalid (workload.invalid), so nothing is \
                 applied; the delivery is rejected, as it will be every time."
            ),
            Lang::Es => format!(
                "{who} rechaza {ev}: su payload es inválido (workload.invalid), así que no se \
                 aplica nada; la entrega se rechaza, como cada vez."
            ),
        }
    }

    /// An entry no other message describes: said as the trace says it.
    pub fn fallback(self, who: &str, action: &str, outcome: &str) -> String {
        format!("{}: {action} ({outcome}).", cap(who))
    }
}
