//! explain: what the broker does (deliveries, leases, dead letters, replays, transactions).

use super::*;

impl Lang {
    // ---------------------------------------------------------------- explain: the broker

    pub fn deliver(self, ev: &str, consumer: &str, delivery: u32) -> String {
        match (self, delivery) {
            (Lang::En, 0 | 1) => format!(
                "The broker delivers {ev} to {consumer} (delivery 1). The message stays in \
                 flight until {consumer} acks it; if {consumer} dies first, the broker will \
                 deliver it again."
            ),
            (Lang::Es, 0 | 1) => format!(
                "El broker entrega {ev} a {consumer} (entrega 1). El mensaje queda en vuelo \
                 hasta que {consumer} envíe el ack; si {consumer} muere antes, el broker lo va a \
                 reentregar."
            ),
            (Lang::En, d) => {
                format!("The broker delivers {ev} again, to {consumer} (delivery {d}).")
            }
            (Lang::Es, d) => format!("El broker reentrega {ev} a {consumer} (entrega {d})."),
        }
    }

    pub fn broker_duplicate(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The broker will deliver {ev} once more on its own: a duplicate of the broker's, \
                 which at-least-once allows."
            ),
            Lang::Es => format!(
                "El broker va a entregar {ev} una vez más por su cuenta: un duplicado del propio \
                 broker, que at-least-once permite."
            ),
        }
    }

    pub fn requeue(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev} is ready again at the broker: it was never acked, so it will be delivered \
                 again."
            ),
            Lang::Es => format!(
                "{ev} vuelve a estar listo en el broker: nunca recibió ack, así que se va a \
                 reentregar."
            ),
        }
    }

    pub fn visible(self, ev: &str) -> String {
        match self {
            Lang::En => format!("{ev} becomes ready after its delivery delay."),
            Lang::Es => format!("{ev} queda listo después de su demora de entrega."),
        }
    }

    pub fn lease_expired(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev}'s lease expires before any ack: the broker makes it ready again, although \
                 its consumer may still be working on it."
            ),
            Lang::Es => format!(
                "Vence el lease de {ev} antes de cualquier ack: el broker lo vuelve a poner \
                 listo, aunque su consumidor quizá todavía lo esté procesando."
            ),
        }
    }

    pub fn connection_lost(self, who: &str, released: &str) -> String {
        let nothing = released == self.list(&[]);
        match (self, nothing) {
            (Lang::En, true) => {
                format!("The broker notices that {who} is gone; it held nothing without an ack.")
            }
            (Lang::Es, true) => {
                format!("El broker nota que {who} ya no está; no tenía nada sin ack.")
            }
            (Lang::En, false) => format!(
                "The broker notices that {who} is gone: what it held without an ack \
                 ({released}) will be delivered again."
            ),
            (Lang::Es, false) => format!(
                "El broker nota que {who} ya no está: lo que tenía sin ack ({released}) se va a \
                 reentregar."
            ),
        }
    }

    pub fn rebalance(self, who: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} leaves the consumer group: its partitions are rebalanced and resume from \
                 their committed offsets."
            ),
            Lang::Es => format!(
                "{who} sale del grupo de consumidores: sus particiones se rebalancean y siguen \
                 desde sus offsets commiteados."
            ),
        }
    }

    pub fn dead_lettered(self, ev: &str, deliveries: u32, parked: bool) -> String {
        match (self, parked) {
            (Lang::En, true) => format!(
                "After {deliveries} deliveries without an ack, the broker gives up on {ev} and \
                 moves it to the dead-letter queue, where it waits until the queue is replayed."
            ),
            (Lang::En, false) => format!(
                "After {deliveries} deliveries without an ack, the broker gives up on {ev} and \
                 moves it to the dead-letter queue: it is never delivered again."
            ),
            (Lang::Es, true) => format!(
                "Después de {deliveries} entregas sin ack, el broker se rinde con {ev} y lo \
                 mueve a la DLQ, donde espera hasta que se reprocese la cola."
            ),
            (Lang::Es, false) => format!(
                "Después de {deliveries} entregas sin ack, el broker se rinde con {ev} y lo \
                 mueve a la DLQ: no se vuelve a entregar nunca."
            ),
        }
    }

    pub fn dlq_empty(self) -> String {
        self.pick(
            "The dead-letter queue is replayed, but it is empty.",
            "Se reprocesa la DLQ, pero está vacía.",
        )
    }

    pub fn dlq_replayed(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev} comes back from the dead-letter queue with the same event_id: ready again, \
                 its deliveries counted afresh."
            ),
            Lang::Es => format!(
                "{ev} vuelve de la DLQ con el mismo event_id: listo otra vez, con sus entregas \
                 contadas desde cero."
            ),
        }
    }

    pub fn broker_tx_commit(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The ack commits the broker transaction of {ev}: its outputs become visible."
            ),
            Lang::Es => format!(
                "El ack confirma la transacción del broker de {ev}: sus salidas se vuelven \
                 visibles."
            ),
        }
    }

    pub fn broker_tx_refused(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The broker refuses the ack of {ev}, and its transaction aborts with its outputs."
            ),
            Lang::Es => format!(
                "El broker rechaza el ack de {ev}, y su transacción aborta junto con sus salidas."
            ),
        }
    }

    pub fn broker_tx_abort(self, ev: &str) -> String {
        match self {
            Lang::En => {
                format!("The broker transaction of {ev} aborts: its staged outputs are discarded.")
            }
            Lang::Es => format!(
                "La transacción del broker de {ev} aborta: se descartan sus salidas preparadas."
            ),
        }
    }

    /// The limit that stopped a run, as "the … limit" (English) or "su límite de …"
    /// (Spanish) name it.
    pub fn limit_name(self, stop: crate::sim::StopReason) -> &'static str {
        use crate::sim::StopReason as S;
        match stop {
            S::TickLimit => self.choose("tick", "ticks"),
            S::TraceLimit => self.choose("trace", "traza"),
            S::SqlLimit => "SQL",
            S::StepLimit | S::Quiescent => self.choose("step", "pasos"),
        }
    }

    /// Why an event is not acked when the run ends.
    pub fn unacked_reason(self, why: UnackedReason) -> String {
        match (self, why) {
            (Lang::En, UnackedReason::DeadLetteredByPolicy { delivery }) => format!(
                "dead-lettered by the consumer's error policy (on_error: dead_letter) at \
                 delivery {delivery}"
            ),
            (Lang::En, UnackedReason::DeadLetteredByBroker { deliveries }) => {
                format!("dead-lettered after {deliveries} deliveries (broker.max_deliveries)")
            }
            (Lang::En, UnackedReason::Limit { stop }) => format!(
                "the {} limit stopped the run before it was acked",
                self.limit_name(stop)
            ),
            (Lang::En, UnackedReason::NoAckStep) => {
                "in flight forever: the protocol has no ack step".into()
            }
            (_, UnackedReason::Left { state }) => self.left(state),
            (Lang::Es, UnackedReason::Limit { stop }) => format!(
                "la corrida llegó a su límite de {} antes del ack",
                self.limit_name(stop)
            ),
            (Lang::Es, UnackedReason::NoAckStep) => {
                "en vuelo para siempre: el protocolo no tiene paso de ack".into()
            }
            (Lang::Es, UnackedReason::DeadLetteredByPolicy { delivery }) => format!(
                "la política de errores del consumidor lo mandó a la DLQ (on_error: \
                 dead_letter) en la entrega {delivery}"
            ),
            (Lang::Es, UnackedReason::DeadLetteredByBroker { deliveries }) => format!(
                "el broker lo mandó a la DLQ tras {deliveries} entregas (broker.max_deliveries)"
            ),
        }
    }

    /// Where an unacked message was left when nothing more could run. A message in flight
    /// then is one no lease will take back: with `broker.lease_ticks` the lease's end would
    /// still be due, and the run would not be over.
    fn left(self, state: crate::broker::MessageState) -> String {
        use crate::broker::MessageState as M;
        match (self, state) {
            (Lang::En, M::InFlight { consumer, attempt }) => format!(
                "left in flight with consumer{consumer} (delivery {attempt}) with nothing more \
                 to run: no lease ends to redeliver it (broker.lease_ticks)"
            ),
            (Lang::Es, M::InFlight { consumer, attempt }) => format!(
                "quedó en vuelo en consumer{consumer} (entrega {attempt}) sin nada más para \
                 ejecutar: ningún lease vence para reentregarlo (broker.lease_ticks)"
            ),
            (Lang::En, M::Redelivering { at }) => {
                format!("left waiting for a redelivery at t={at} with nothing more to run")
            }
            (Lang::Es, M::Redelivering { at }) => {
                format!("quedó esperando una reentrega en t={at}, sin nada más para ejecutar")
            }
            (Lang::En, M::Ready) => "left ready, undelivered, with nothing more to run".into(),
            (Lang::Es, M::Ready) => "quedó listo sin entregar, sin nada más para ejecutar".into(),
            (Lang::En, _) => "left without an ack, with nothing more to run".into(),
            (Lang::Es, _) => "quedó sin ack, sin nada más para ejecutar".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::MessageState;

    /// A message left unacked is said where it was left, in words (never a Rust value),
    /// and one left in flight says that no lease takes it back.
    #[test]
    fn a_message_left_unacked_is_said_in_words() {
        let in_flight = MessageState::InFlight {
            consumer: 1,
            attempt: 2,
        };
        let en = Lang::En.left(in_flight);
        assert!(
            en.starts_with("left in flight with consumer1 (delivery 2)"),
            "{en}"
        );
        assert!(en.contains("broker.lease_ticks"), "{en}");
        let es = Lang::Es.left(in_flight);
        assert!(
            es.starts_with("quedó en vuelo en consumer1 (entrega 2)"),
            "{es}"
        );
        for state in [
            MessageState::Ready,
            MessageState::Redelivering { at: 7 },
            in_flight,
        ] {
            for l in [Lang::En, Lang::Es] {
                let words = l.left(state);
                assert!(
                    !words.contains('{') && !words.contains("InFlight"),
                    "{words}"
                );
            }
        }
    }
}
