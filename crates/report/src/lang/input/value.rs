//! The words of [`problem::Value`]: a value out of its bounds, or naming what does not
//! exist.

use super::Lang;
use crate::model::StepActor;
use crate::scenario::problem::{Consequence, Value};

pub(super) fn words(p: &Value, lang: Lang) -> String {
    match (p, lang) {
        (Value::OutOfRange { value, min, max }, Lang::En) => {
            format!("{value} is out of range; allowed: {min} to {max}")
        }
        (Value::OutOfRange { value, min, max }, Lang::Es) => {
            format!("{value} está fuera de rango; se admite de {min} a {max}")
        }
        (Value::NoSuchEvent { event, events }, Lang::En) => format!(
            "event {event} does not exist; events are numbered 0 to {} in publication order",
            events.saturating_sub(1)
        ),
        (Value::NoSuchEvent { event, events }, Lang::Es) => format!(
            "el evento {event} no existe; los eventos se numeran de 0 a {} en orden de \
             publicación",
            events.saturating_sub(1)
        ),
        (Value::DeliveryZero, Lang::En) => {
            "delivery attempts start at 1 (the first delivery)".to_string()
        }
        (Value::DeliveryZero, Lang::Es) => {
            "las entregas se cuentan desde 1 (la primera entrega)".to_string()
        }
        (
            Value::MissingStep {
                step,
                actor,
                protocol,
                steps,
                consequence,
            },
            lang,
        ) => {
            let consequence = consequence_words(consequence, lang);
            match (actor, lang) {
                (Some(actor), Lang::En) => format!(
                    "`{step}` is a step of the {}, which this scenario does not run\
                     {consequence}; `producer.mode` decides it (the producer runs in \
                     commit_then_publish, publish_then_commit and outbox, the relay in outbox; \
                     the email relay runs when the protocol has `enqueue_email`)",
                    actor.name()
                ),
                (Some(actor), Lang::Es) => format!(
                    "`{step}` es un paso del {}, que este escenario no corre{consequence}; lo \
                     decide `producer.mode` (el productor corre en commit_then_publish, \
                     publish_then_commit y outbox, el relay en outbox; el relay de emails corre \
                     cuando el protocolo tiene `enqueue_email`)",
                    actor_es(*actor)
                ),
                (None, Lang::En) => format!(
                    "protocol `{protocol}` has no step `{step}`{consequence}; its steps are \
                     {steps}"
                ),
                (None, Lang::Es) => format!(
                    "el protocolo `{protocol}` no tiene el paso `{step}`{consequence}; sus pasos \
                     son {steps}"
                ),
            }
        }
    }
}

/// The tail that says what a missing step would mean: empty, or `, so …`.
fn consequence_words(c: &Consequence, lang: Lang) -> String {
    match (c, lang) {
        (Consequence::Plain, _) => String::new(),
        (Consequence::InvalidNeverRefused, Lang::En) => {
            ", so an invalid payload is never refused: it is where the consumer refuses it"
                .to_string()
        }
        (Consequence::InvalidNeverRefused, Lang::Es) => {
            ", así que un payload inválido nunca se rechaza: es donde el consumidor lo rechaza"
                .to_string()
        }
        (Consequence::NeverReached { at }, Lang::En) => format!(", so `{at}` is never reached"),
        (Consequence::NeverReached { at }, Lang::Es) => {
            format!(", así que nunca se llega a `{at}`")
        }
        (Consequence::NoCommitTimeout, Lang::En) => ", so no commit can time out".to_string(),
        (Consequence::NoCommitTimeout, Lang::Es) => {
            ", así que ningún commit puede vencer por tiempo".to_string()
        }
    }
}

/// An actor that runs steps, named in Spanish with its article's noun.
pub(super) fn actor_es(actor: StepActor) -> &'static str {
    match actor {
        StepActor::Consumer => "consumidor",
        StepActor::Producer => "productor",
        StepActor::Relay => "relay",
        StepActor::EmailRelay => "relay de emails",
    }
}
