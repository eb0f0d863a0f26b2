//! The words of [`problem::Broker`]: what is wrong in the scenario's `broker` section.

use super::Lang;
use crate::scenario::problem::Broker;

pub(super) fn words(p: &Broker, lang: Lang) -> String {
    match (p, lang) {
        (Broker::KeyWithOwnSchema, Lang::En) => {
            "a scenario with its own schema (`store.schema`) has no transfer or account ids to \
             partition by (they are the built-in ledger's); its messages are keyed by \
             `event_id`, the default here"
                .to_string()
        }
        (Broker::KeyWithOwnSchema, Lang::Es) => {
            "un escenario con su propio esquema (`store.schema`) no tiene ids de transferencia \
             ni de cuenta por los que particionar (son del ledger que trae la herramienta); sus \
             mensajes se particionan por `event_id`, el valor por defecto acá"
                .to_string()
        }
        (Broker::LogOnly, Lang::En) => "applies to `\"kind\": \"log\"` brokers only".to_string(),
        (Broker::LogOnly, Lang::Es) => "vale solo para brokers `\"kind\": \"log\"`".to_string(),
        (Broker::QueueOnly, Lang::En) => {
            "applies to queue brokers only; a log has offsets, not per-message acks".to_string()
        }
        (Broker::QueueOnly, Lang::Es) => {
            "vale solo para brokers de cola; un log tiene offsets, no un ack por mensaje"
                .to_string()
        }
        (Broker::NothingDeadLettered, Lang::En) => {
            "nothing is ever dead-lettered without `broker.max_deliveries` or an error policy \
             that dead-letters (`protocol.on_error.then: dead_letter`); set one of them"
                .to_string()
        }
        (Broker::NothingDeadLettered, Lang::Es) => {
            "nada va a dead letter sin `broker.max_deliveries` o una política de error que \
             mande a dead letter (`protocol.on_error.then: dead_letter`); poné uno de los dos"
                .to_string()
        }
        (Broker::ReplayPastLimit { tick, max_ticks }, Lang::En) => format!(
            "{tick} is not before the run's tick limit (limits.max_ticks = {max_ticks}); the \
             replay would never happen"
        ),
        (Broker::ReplayPastLimit { tick, max_ticks }, Lang::Es) => format!(
            "{tick} no es anterior al límite de ticks de la corrida (limits.max_ticks = \
             {max_ticks}); el replay nunca llegaría a pasar"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_problems_in_both_languages() {
        let late = Broker::ReplayPastLimit {
            tick: 900,
            max_ticks: 500,
        };
        assert_eq!(
            words(&late, Lang::En),
            "900 is not before the run's tick limit (limits.max_ticks = 500); the replay would \
             never happen"
        );
        assert!(words(&late, Lang::Es).starts_with("900 no es anterior"));
        assert!(words(&late, Lang::Es).contains("(limits.max_ticks = 500)"));
        assert_eq!(
            words(&Broker::LogOnly, Lang::En),
            "applies to `\"kind\": \"log\"` brokers only"
        );
        let es = words(&Broker::LogOnly, Lang::Es);
        assert!(es.contains("`\"kind\": \"log\"`"), "{es}");
        assert_ne!(es, words(&Broker::LogOnly, Lang::En));
    }
}
