//! The words of [`problem::Policy`]: what is wrong in a protocol's error policy
//! (`protocol.on_error`), with the reasons a policy does not fit its protocol
//! ([`PolicyError`]).

use super::Lang;
use crate::model::PolicyError;
use crate::scenario::problem::Policy;

pub(super) fn words(p: &Policy, lang: Lang) -> String {
    match lang {
        Lang::En => english(p),
        Lang::Es => spanish(p),
    }
}

fn english(p: &Policy) -> String {
    match p {
        Policy::DoesNotFit(e) => does_not_fit_en(e),
        Policy::TooManySteps { max } => format!("at most {max} compensating steps"),
        Policy::NameOfTheProtocol { step } => format!(
            "`{step}` is a step of the protocol itself; a compensating step needs a name of \
             its own, so that its crash points name it alone"
        ),
        Policy::UnknownGiveUp { name } => format!(
            "unknown error policy `{name}`; a failed delivery is redelivered (`redeliver`, the \
             default), acked and so skipped (`ack`), or moved to the dead-letter queue \
             (`dead_letter`); retries and compensating steps are written as an object \
             {{\"retry\": {{\"times\": 2}}, \"steps\": [...], \"then\": \"ack\"}}"
        ),
        Policy::DeadLetterOnLog => "`dead_letter` needs a queue broker: a log broker has no \
                                    dead-letter queue (a Kafka dead-letter topic is a \
                                    publication followed by an offset commit; write the \
                                    publication as a SQL step and use `then: ack`)"
            .to_string(),
    }
}

fn spanish(p: &Policy) -> String {
    match p {
        Policy::DoesNotFit(e) => does_not_fit_es(e),
        Policy::TooManySteps { max } => format!("como mucho {max} pasos compensatorios"),
        Policy::NameOfTheProtocol { step } => format!(
            "`{step}` es un paso del propio protocolo; un paso compensatorio necesita un nombre \
             propio, para que sus puntos de caída lo nombren solo a él"
        ),
        Policy::UnknownGiveUp { name } => format!(
            "política de error desconocida `{name}`; una entrega fallida se reentrega \
             (`redeliver`, el valor por defecto), se confirma con ack y así se saltea (`ack`), \
             o va a la cola de dead letters (`dead_letter`); los reintentos y los pasos \
             compensatorios se escriben como un objeto {{\"retry\": {{\"times\": 2}}, \
             \"steps\": [...], \"then\": \"ack\"}}"
        ),
        Policy::DeadLetterOnLog => "`dead_letter` necesita un broker de cola: un broker de log \
                                    no tiene cola de dead letters (un topic de dead letters de \
                                    Kafka es una publicación seguida de un commit del offset; \
                                    escribí la publicación como un paso SQL y usá `then: ack`)"
            .to_string(),
    }
}

/// Why the policy does not fit its protocol, in English.
fn does_not_fit_en(e: &PolicyError) -> String {
    match e {
        PolicyError::NotCompensation { step, .. } => format!(
            "`{step}` cannot compensate: a compensating step is a SQL step the scenario \
             writes, or `begin` / `commit` around them"
        ),
        PolicyError::CommitWithoutBegin { at } => {
            format!("`commit` at {at} has no `begin` before it among the compensating steps")
        }
        PolicyError::UnbalancedBegin { at } => format!(
            "`begin` at {at} opens a transaction the compensating steps never commit (or one \
             inside another on the same database)"
        ),
        PolicyError::AckWithoutAck => "`then: ack` needs an `ack` step in the protocol: a \
                                       protocol that never acks cannot ack on an error either"
            .to_string(),
        PolicyError::TooManyOccurrences {
            step,
            count,
            attempts,
            total,
            max,
        } => format!(
            "`{step}` runs {count} times in one attempt and {attempts} attempts are allowed: \
             {total} occurrences in one delivery, more than the {max} a crash point can \
             number (`after:{step}#{max}`); retry fewer times"
        ),
    }
}

/// Why the policy does not fit its protocol, in Spanish.
fn does_not_fit_es(e: &PolicyError) -> String {
    match e {
        PolicyError::NotCompensation { step, .. } => format!(
            "`{step}` no puede compensar: un paso compensatorio es un paso SQL que escribe el \
             escenario, o `begin` / `commit` alrededor de esos pasos"
        ),
        PolicyError::CommitWithoutBegin { at } => format!(
            "el `commit` en la posición {at} no tiene un `begin` antes entre los pasos \
             compensatorios"
        ),
        PolicyError::UnbalancedBegin { at } => format!(
            "el `begin` en la posición {at} abre una transacción a la que los pasos \
             compensatorios nunca le hacen commit (o una dentro de otra en la misma base)"
        ),
        PolicyError::AckWithoutAck => "`then: ack` necesita un paso `ack` en el protocolo: un \
                                       protocolo que nunca hace ack tampoco puede hacerlo ante \
                                       un error"
            .to_string(),
        PolicyError::TooManyOccurrences {
            step,
            count,
            attempts,
            total,
            max,
        } => format!(
            "`{step}` corre {count} veces por intento y se permiten {attempts} intentos: \
             {total} ocurrencias en una entrega, más de las {max} que puede numerar un punto \
             de caída (`after:{step}#{max}`); poné menos reintentos"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Step;

    #[test]
    fn an_unknown_policy_keeps_the_names_and_the_json_in_both_languages() {
        let p = Policy::UnknownGiveUp {
            name: "skip".into(),
        };
        assert_eq!(
            words(&p, Lang::En),
            "unknown error policy `skip`; a failed delivery is redelivered (`redeliver`, the \
             default), acked and so skipped (`ack`), or moved to the dead-letter queue \
             (`dead_letter`); retries and compensating steps are written as an object \
             {\"retry\": {\"times\": 2}, \"steps\": [...], \"then\": \"ack\"}"
        );
        let es = words(&p, Lang::Es);
        assert_ne!(es, words(&p, Lang::En));
        for kept in [
            "`skip`",
            "`redeliver`",
            "`dead_letter`",
            "{\"retry\": {\"times\": 2}, \"steps\": [...], \"then\": \"ack\"}",
        ] {
            assert!(es.contains(kept), "{es}");
        }
    }

    #[test]
    fn a_policy_that_does_not_fit_is_worded_from_its_error() {
        let p = Policy::DoesNotFit(PolicyError::TooManyOccurrences {
            step: Step::ExternalEffect,
            count: 60,
            attempts: 5,
            total: 300,
            max: 255,
        });
        assert_eq!(
            words(&p, Lang::En),
            "`external_effect` runs 60 times in one attempt and 5 attempts are allowed: 300 \
             occurrences in one delivery, more than the 255 a crash point can number \
             (`after:external_effect#255`); retry fewer times"
        );
        let es = words(&p, Lang::Es);
        assert!(es.contains("(`after:external_effect#255`)"), "{es}");
        assert!(es.contains("poné menos reintentos"), "{es}");
    }
}
