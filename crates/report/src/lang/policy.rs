//! Error policies (issue 35) in words: what explain says of a retry, a dead letter and a
//! policy giving up, and how an anomaly names the failure a policy gave up on.

use super::*;
use crate::model::{GaveUpRecord, GiveUp, Tick};

impl Lang {
    /// The error policy retries the delivery in process.
    pub fn policy_retry(self, who: &str, ev: &str, attempt: u8, backoff_ticks: Tick) -> String {
        match (self, backoff_ticks) {
            (Lang::En, 0) => format!(
                "{who}'s error policy retries {ev} in process, at once: attempt {attempt} of its \
                 steps, on the same delivery."
            ),
            (Lang::En, t) => format!(
                "{who}'s error policy retries {ev} in process after {t} ticks: attempt {attempt} \
                 of its steps, on the same delivery, which it holds meanwhile (its lease keeps \
                 running)."
            ),
            (Lang::Es, 0) => format!(
                "La política de errores de {who} reintenta {ev} en el proceso, en seguida: \
                 intento {attempt} de sus pasos, sobre la misma entrega."
            ),
            (Lang::Es, t) => format!(
                "La política de errores de {who} reintenta {ev} en el proceso tras {t} ticks: \
                 intento {attempt} de sus pasos, sobre la misma entrega, que retiene mientras \
                 tanto (su lease sigue corriendo)."
            ),
        }
    }

    /// The consumer moved the delivery's message to the dead-letter queue (`moved`), or
    /// tried to with a delivery the broker no longer considers its latest.
    pub fn policy_dead_letter(self, who: &str, ev: &str, moved: bool) -> String {
        match (self, moved) {
            (Lang::En, true) => format!(
                "{who} moves {ev} to the dead-letter queue: the broker parks it, and only a \
                 replay of the queue brings it back."
            ),
            (Lang::En, false) => format!(
                "{who} tries to move {ev} to the dead-letter queue, but the broker has handed \
                 it out again since: nothing changes."
            ),
            (Lang::Es, true) => format!(
                "{who} mueve {ev} a la cola de mensajes muertos: el broker lo estaciona, y sólo \
                 una reproducción de la cola lo trae de vuelta."
            ),
            (Lang::Es, false) => format!(
                "{who} intenta mover {ev} a la cola de mensajes muertos, pero el broker ya lo \
                 volvió a entregar: no cambia nada."
            ),
        }
    }

    /// The error policy gave up on the delivery after `step` failed.
    pub fn policy_gave_up(self, who: &str, ev: &str, step: &str, then: GiveUp) -> String {
        match (self, then) {
            (Lang::En, GiveUp::Ack) => format!(
                "{who}'s error policy gives up on {ev} after `{step}` failed, and acks it: the \
                 broker forgets an event whose effect never committed. Nothing will redo it."
            ),
            (Lang::En, GiveUp::DeadLetter) => format!(
                "{who}'s error policy gives up on {ev} after `{step}` failed: it is parked in \
                 the dead-letter queue."
            ),
            (Lang::En, GiveUp::Redeliver) => format!(
                "{who}'s error policy gives up on {ev} after `{step}` failed: it is left to the \
                 broker to deliver again."
            ),
            (Lang::Es, GiveUp::Ack) => format!(
                "La política de errores de {who} se rinde con {ev} después de que falló \
                 `{step}`, y le da ack: el broker olvida un evento cuyo efecto nunca se \
                 confirmó. Nada lo va a rehacer."
            ),
            (Lang::Es, GiveUp::DeadLetter) => format!(
                "La política de errores de {who} se rinde con {ev} después de que falló \
                 `{step}`: queda estacionado en la cola de mensajes muertos."
            ),
            (Lang::Es, GiveUp::Redeliver) => format!(
                "La política de errores de {who} se rinde con {ev} después de que falló \
                 `{step}`: queda en manos del broker volver a entregarlo."
            ),
        }
    }

    /// A delivery an error policy gave up on, as an anomaly line names it.
    pub fn gave_up(self, g: &GaveUpRecord) -> String {
        let step = crate::model::trace::occurrence_name(g.step, g.nth);
        let at = format!("e{} d{}", g.event, g.delivery);
        match (self, g.then) {
            (Lang::En, GiveUp::Ack) => {
                format!("`{step}` failed ({at}) and was acked anyway (on_error: ack)")
            }
            (Lang::En, GiveUp::DeadLetter) => {
                format!("`{step}` failed ({at}) and was dead-lettered (on_error: dead_letter)")
            }
            (Lang::En, GiveUp::Redeliver) => {
                format!("`{step}` failed ({at}) and was rejected for redelivery")
            }
            (Lang::Es, GiveUp::Ack) => {
                format!("`{step}` falló ({at}) y se confirmó igualmente (on_error: ack)")
            }
            (Lang::Es, GiveUp::DeadLetter) => format!(
                "`{step}` falló ({at}) y se mandó a la cola de mensajes muertos (on_error: \
                 dead_letter)"
            ),
            (Lang::Es, GiveUp::Redeliver) => {
                format!("`{step}` falló ({at}) y se rechazó para reentrega")
            }
        }
    }
}
