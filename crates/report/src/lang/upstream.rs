//! explain: the producer, its relay and the email relay.

use super::*;

impl Lang {
    // ---------------------------------------------------------------- explain: upstream

    pub fn publish(
        self,
        ev: &str,
        kind: EventType,
        source: &str,
        target: &str,
        amount: i64,
    ) -> String {
        match (self, kind) {
            (Lang::En, EventType::TransferCreated) => format!(
                "The producer publishes {ev}: TransferCreated, {amount} from {source} to \
                 {target}."
            ),
            (Lang::Es, EventType::TransferCreated) => format!(
                "El productor publica {ev}: TransferCreated, {amount} de {source} a {target}."
            ),
            (Lang::En, EventType::TransferCompleted) => format!(
                "The producer publishes {ev}: TransferCompleted, the completion of a transfer."
            ),
            (Lang::Es, EventType::TransferCompleted) => format!(
                "El productor publica {ev}: TransferCompleted, la finalización de una \
                 transferencia."
            ),
        }
    }

    pub fn publish_minted(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The producer publishes the transfer again under a new event_id, {ev}: to any \
                 inbox, a different event."
            ),
            Lang::Es => format!(
                "El productor vuelve a publicar la transferencia con un event_id nuevo, {ev}: \
                 para cualquier inbox, es otro evento."
            ),
        }
    }

    /// Event `ev` published again with the same `event_id` and another payload, as message
    /// copy `copy`.
    pub fn publish_altered(self, ev: &str, copy: u32) -> String {
        let message = self.ev(ev.trim_start_matches('e').parse().unwrap_or(0), copy);
        match self {
            Lang::En => format!(
                "The producer publishes {ev} again with the same event_id and ANOTHER payload \
                 ({message}): a producer bug."
            ),
            Lang::Es => format!(
                "El productor vuelve a publicar {ev} con el mismo event_id y OTRO payload \
                 ({message}): un bug del productor."
            ),
        }
    }

    /// Event `ev` published again with the same `event_id`: another message, its copy
    /// number `copy`.
    pub fn republish(self, ev: &str, copy: u32) -> String {
        let message = self.ev(ev.trim_start_matches('e').parse().unwrap_or(0), copy);
        match self {
            Lang::En => format!(
                "The producer publishes {ev} again with the same event_id: another message, \
                 {message}."
            ),
            Lang::Es => format!(
                "El productor vuelve a publicar {ev} con el mismo event_id: otro mensaje, \
                 {message}."
            ),
        }
    }

    pub fn with_publish_timeout(self, what: &str) -> String {
        match self {
            Lang::En => format!(
                "{what} It reached the broker, but the confirmation timed out: the producer will \
                 publish again."
            ),
            Lang::Es => format!(
                "{what} Llegó al broker, pero la confirmación venció por timeout: el productor \
                 va a publicar otra vez."
            ),
        }
    }

    /// The producer's (or the outbox relay's) publication reached the broker and its
    /// confirmation did not come back: it publishes again.
    pub fn publish_timeout(self, who: Actor, ev: &str) -> String {
        match (self, who) {
            (Lang::En, Actor::Relay) => format!(
                "The outbox relay gets no confirmation for {ev}'s publication, so it leaves the \
                 row unsent and publishes it again: the broker gets one more copy of {ev}."
            ),
            (Lang::Es, Actor::Relay) => format!(
                "El relay del outbox no recibe confirmación de la publicación de {ev}, así que \
                 deja la fila sin marcar y la publica otra vez: el broker recibe otra copia de {ev}."
            ),
            (Lang::En, _) => format!(
                "The producer gets no confirmation for {ev}'s publication, so it publishes again."
            ),
            (Lang::Es, _) => format!(
                "El productor no recibe confirmación de la publicación de {ev}, así que publica \
                 otra vez."
            ),
        }
    }

    pub fn insert_transfer(self, ev: &str, outbox: bool) -> String {
        match (self, outbox) {
            (Lang::En, true) => format!(
                "The producer opens a transaction and inserts the transfer of {ev} and its \
                 outbox row (not committed yet)."
            ),
            (Lang::En, false) => format!(
                "The producer opens a transaction and inserts the transfer of {ev} (not \
                 committed yet)."
            ),
            (Lang::Es, true) => format!(
                "El productor abre una transacción e inserta la transferencia de {ev} y su fila \
                 de outbox (todavía sin confirmar)."
            ),
            (Lang::Es, false) => format!(
                "El productor abre una transacción e inserta la transferencia de {ev} (todavía \
                 sin confirmar)."
            ),
        }
    }

    pub fn transfer_already_recorded(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The transfer of {ev} was already committed by an earlier attempt: the request is \
                 answered from it, and nothing else is done."
            ),
            Lang::Es => format!(
                "La transferencia de {ev} ya se confirmó en un intento anterior: el pedido se \
                 responde con ella y no se hace nada más."
            ),
        }
    }

    pub fn commit_transfer(self, ev: &str) -> String {
        match self {
            Lang::En => format!("The producer commits the transfer of {ev} (COMMIT)."),
            Lang::Es => format!("El productor confirma la transferencia de {ev} (COMMIT)."),
        }
    }

    pub fn producer_restart(self, retry: bool) -> String {
        match (self, retry) {
            (Lang::En, true) => {
                "The producer restarts; the client retries the request it got no answer for.".into()
            }
            (Lang::En, false) => {
                "The producer restarts; the unanswered request is given up.".into()
            }
            (Lang::Es, true) => {
                "El productor se reinicia; el cliente reintenta el pedido que quedó sin \
                 respuesta."
                    .into()
            }
            (Lang::Es, false) => {
                "El productor se reinicia; el pedido sin respuesta se abandona.".into()
            }
        }
    }

    pub fn relay_idle(self, who: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!("{who} finds its outbox empty and waits."),
            Lang::Es => format!("{who} encuentra su outbox vacío y espera."),
        }
    }

    pub fn relay_publish(self, who: &str, ev: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!(
                "{who} reads the oldest unsent outbox row and publishes {ev}. Until it marks the \
                 row sent, a crash makes it send again."
            ),
            Lang::Es => format!(
                "{who} lee la fila más vieja sin enviar del outbox y publica {ev}. Hasta que \
                 marque la fila como enviada, una caída hace que la envíe otra vez."
            ),
        }
    }

    pub fn send_email(self, who: &str, ev: &str, key: bool) -> String {
        let who = cap(who);
        match (self, key) {
            (Lang::En, true) => format!(
                "{who} hands {ev}'s email to the mail service, with the event_id as idempotency \
                 key: the service sends each key once."
            ),
            (Lang::En, false) => format!(
                "{who} hands {ev}'s email to the mail service, without an idempotency key: the \
                 service sends whatever it is handed."
            ),
            (Lang::Es, true) => format!(
                "{who} le pasa el correo de {ev} al servicio de correo, con el event_id como \
                 clave de idempotencia: el servicio envía cada clave una sola vez."
            ),
            (Lang::Es, false) => format!(
                "{who} le pasa el correo de {ev} al servicio de correo, sin clave de \
                 idempotencia: el servicio envía todo lo que recibe."
            ),
        }
    }

    pub fn mark_sent(self, who: &str, ev: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!("{who} marks the row of {ev} sent."),
            Lang::Es => format!("{who} marca como enviada la fila de {ev}."),
        }
    }

    pub fn relay_restart(self, who: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!("{who} restarts and reads the outbox from its oldest unsent row."),
            Lang::Es => {
                format!("{who} se reinicia y lee el outbox desde su fila más vieja sin enviar.")
            }
        }
    }
}
