//! The words of [`problem::Faults`]: what is wrong in the scenario's `faults` checks, with
//! the crash points ([`PointError`]) and unreached occurrences ([`Unreached`]) they refuse.
//! The English of those two is their `Display`, in `points`; the Spanish is said here.

use super::value::actor_es;
use super::Lang;
use crate::model::{PointError, Step, StepActor};
use crate::scenario::problem::Faults;
use crate::scenario::Unreached;

pub(super) fn words(p: &Faults, lang: Lang) -> String {
    match lang {
        Lang::En => english(p),
        Lang::Es => spanish(p),
    }
}

fn english(p: &Faults) -> String {
    match p {
        Faults::TooManyCrashes { max } => format!("at most {max} planned crashes"),
        Faults::TooManyCommitTimeouts { max } => format!("at most {max} commit timeouts"),
        Faults::TooManyEntries { len, max } => format!(
            "{len} entries is over the limit of {max}; each is checked at every step \
             boundary (scenario::bounds)"
        ),
        Faults::BadPoint { error, own_steps } => {
            format!("{}{}", super::point_en(error), hint_en(own_steps))
        }
        Faults::Unreached(u) => super::unreached_en(u),
        Faults::CopyNeverPublished { copy, copies } => format!(
            "copy {copy} is never published: 0 is the original and the workload republishes \
             this event {copies} time(s)"
        ),
        Faults::TimesAndUntilTick => "give `times` (fails that many times) or `until_tick` \
                                      (fails every time until that tick, a poison message \
                                      until its fix), not both"
            .to_string(),
        Faults::UnknownFailStep { at, own_steps } => format!(
            "unknown step `{at}`; the steps are {}{}",
            Step::allowed_names(),
            hint_en(own_steps)
        ),
        Faults::FailNotConsumer { step } => format!(
            "only consumer steps can be told to fail; `{step}` is the {}'s (crash it with \
             `faults.crash`, or time its publication out with `faults.publish_timeout`)",
            step.actor().name()
        ),
        Faults::ReceiveCannotFail => {
            "`receive` cannot fail; to lose a delivery on the wire, crash at `before:receive`"
                .to_string()
        }
        Faults::StallNotConsumer { step } => format!(
            "only consumer steps can be stalled; `{step}` is the {}'s (crash it with \
             `faults.crash`)",
            step.actor().name()
        ),
        Faults::NotACommit { at } => {
            format!("`{at}` is not a commit; write `commit` or `commit#N`")
        }
    }
}

fn spanish(p: &Faults) -> String {
    match p {
        Faults::TooManyCrashes { max } => format!("como mucho {max} caídas planificadas"),
        Faults::TooManyCommitTimeouts { max } => {
            format!("como mucho {max} timeouts de commit")
        }
        Faults::TooManyEntries { len, max } => format!(
            "{len} entradas pasan el límite de {max}; cada una se revisa antes y después de \
             cada paso (scenario::bounds)"
        ),
        Faults::BadPoint { error, own_steps } => {
            format!("{}{}", point_es(error), hint_es(own_steps))
        }
        Faults::Unreached(u) => unreached_es(u),
        Faults::CopyNeverPublished { copy, copies } => format!(
            "la copia {copy} nunca se publica: 0 es la original y `workload` republica este \
             evento {}",
            match copies {
                1 => "una vez".to_string(),
                n => format!("{n} veces"),
            }
        ),
        Faults::TimesAndUntilTick => "poné `times` (falla esa cantidad de veces) o \
                                      `until_tick` (falla todas las veces hasta ese tick, un \
                                      mensaje envenenado hasta que se arregla), no los dos"
            .to_string(),
        Faults::UnknownFailStep { at, own_steps } => format!(
            "paso desconocido `{at}`; los pasos son {}{}",
            Step::allowed_names(),
            hint_es(own_steps)
        ),
        Faults::FailNotConsumer { step } => format!(
            "solo los pasos del consumidor pueden fallar a pedido; `{step}` es del {} (para \
             que caiga usá `faults.crash`, o para que su publicación venza por tiempo, \
             `faults.publish_timeout`)",
            actor_es(step.actor())
        ),
        Faults::ReceiveCannotFail => "`receive` no puede fallar; para perder una entrega en \
                                      el camino, poné una caída en `before:receive`"
            .to_string(),
        Faults::StallNotConsumer { step } => format!(
            "solo se pueden demorar los pasos del consumidor; `{step}` es del {} (para que \
             caiga ahí, usá `faults.crash`)",
            actor_es(step.actor())
        ),
        Faults::NotACommit { at } => {
            format!("`{at}` no es un commit; escribí `commit` o `commit#N`")
        }
    }
}

/// What an unknown step's error adds when the protocol has SQL steps, whose names the list
/// of built-in steps lacks.
fn hint_en(own_steps: &Option<String>) -> String {
    match own_steps {
        Some(steps) => format!(" (this protocol's steps: {steps})"),
        None => String::new(),
    }
}

fn hint_es(own_steps: &Option<String>) -> String {
    match own_steps {
        Some(steps) => format!(" (los pasos de este protocolo: {steps})"),
        None => String::new(),
    }
}

/// A crash point that does not parse, in Spanish.
pub(super) fn point_es(e: &PointError) -> String {
    match e {
        PointError::NoSide { text } => {
            format!("`{text}` no es un punto de caída; escribí `before:STEP` o `after:STEP`")
        }
        PointError::BadSide { side, text } => {
            format!("`{side}` en `{text}` tiene que ser `before` o `after`")
        }
        PointError::BadOccurrence { occurrence, text } => format!(
            "`#{occurrence}` en `{text}` no es una ocurrencia; un paso repetido se numera desde \
             1 (`after:commit#2` es el segundo `commit`)"
        ),
        PointError::UnknownStep { step, text } => format!(
            "paso desconocido `{step}` en `{text}`; los pasos son {}",
            all_names_es()
        ),
        PointError::PointShape { text } => format!(
            "`{text}` no es un punto de caída; escribilo como lo imprime explore, por ejemplo \
             `after:commit e0 d1` o `before:ack e2 copy1 d2`"
        ),
        PointError::PointDelivery { text } => {
            format!("en `{text}`: los intentos de entrega empiezan en d1")
        }
    }
}

/// Every step name a crash point may use, with its actor when not the consumer's (what
/// `Step::all_names` lists in English).
fn all_names_es() -> String {
    let name = |s: Step| match s.actor() {
        StepActor::Consumer => s.name().to_string(),
        actor => format!("{} ({})", s.name(), actor_es(actor)),
    };
    Step::ALL
        .into_iter()
        .map(name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An occurrence a run never reaches, in Spanish.
pub(super) fn unreached_es(u: &Unreached) -> String {
    match u {
        Unreached::Repeats {
            what,
            step,
            protocol,
            count,
            steps,
            attempts,
            last,
        } => {
            let times = match count {
                1 => "una vez".to_string(),
                n => format!("{n} veces"),
            };
            let tail = match attempts {
                1 => String::new(),
                n if *step == Step::DeadLetter => {
                    format!(", después del último de sus {n} intentos")
                }
                n => format!(
                    " por intento, con {n} intentos como mucho: `{step}#{last}` es la última"
                ),
            };
            format!(
                "nunca se llega a `{what}`: el protocolo `{protocol}` corre `{step}` {times} \
                 ({steps}){tail}"
            )
        }
        Unreached::Once { what, step, actor } => format!(
            "nunca se llega a `{what}`: el {} corre `{step}` una vez por evento",
            actor_es(*actor)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_crash_point_keeps_its_text_and_the_protocols_steps_in_both_languages() {
        let p = Faults::BadPoint {
            error: PointError::BadOccurrence {
                occurrence: "x".into(),
                text: "after:commit#x".into(),
            },
            own_steps: Some("receive → claim → ack".into()),
        };
        assert_eq!(
            words(&p, Lang::En),
            "`#x` in `after:commit#x` is not an occurrence; a repeated step is numbered from 1 \
             (`after:commit#2` is the second `commit`) (this protocol's steps: receive → \
             claim → ack)"
        );
        let es = words(&p, Lang::Es);
        assert_ne!(es, words(&p, Lang::En));
        for kept in [
            "`#x`",
            "`after:commit#x`",
            "`after:commit#2`",
            "receive → claim → ack",
        ] {
            assert!(es.contains(kept), "{es}");
        }
    }

    #[test]
    fn a_step_of_another_actor_is_named_with_its_actor_in_each_language() {
        let p = Faults::FailNotConsumer {
            step: Step::Publish,
        };
        assert_eq!(
            words(&p, Lang::En),
            "only consumer steps can be told to fail; `publish` is the producer's (crash it \
             with `faults.crash`, or time its publication out with `faults.publish_timeout`)"
        );
        let es = words(&p, Lang::Es);
        assert!(es.contains("`publish` es del productor"), "{es}");
        assert!(es.contains("`faults.publish_timeout`"), "{es}");
    }

    #[test]
    fn an_unreached_occurrence_says_how_often_the_step_runs() {
        let p = Faults::Unreached(Box::new(Unreached::Repeats {
            what: "after:commit#3".into(),
            step: Step::Commit,
            protocol: "two".into(),
            count: 2,
            steps: "receive → begin → commit → begin → commit → ack".into(),
            attempts: 2,
            last: 4,
        }));
        assert_eq!(
            words(&p, Lang::En),
            "`after:commit#3` is never reached: protocol `two` runs `commit` 2 times (receive \
             → begin → commit → begin → commit → ack) per attempt, 2 attempts at most: \
             `commit#4` is the last"
        );
        assert_eq!(
            words(&p, Lang::Es),
            "nunca se llega a `after:commit#3`: el protocolo `two` corre `commit` 2 veces \
             (receive → begin → commit → begin → commit → ack) por intento, con 2 intentos \
             como mucho: `commit#4` es la última"
        );
    }
}
