//! The words of a crash point given on the command line that the scenario cannot reach
//! ([`CrashWhy`]), and of a scenario `crosscheck` cannot run with one real process
//! ([`Unfit`]).
//!
//! A point that cannot be parsed, or an occurrence of a step that is never reached, is
//! worded as a scenario's `faults.crash[].at` is (`lang::input::faults`).

use super::super::{point_en, unreached_en};
use super::Lang;
use crate::input::CrashWhy;
use delivery_sim_crosscheck::Unfit;

/// Why a crash point is refused, after `--crash: `.
pub(super) fn why(why: &CrashWhy, lang: Lang) -> String {
    match (why, lang) {
        (CrashWhy::TooMany { count, max }, Lang::En) => {
            format!("{count} crash points is over the limit of {max} (as for faults.crash)")
        }
        (CrashWhy::TooMany { count, max }, Lang::Es) => {
            format!("{count} puntos de caída pasan el límite de {max} (como en faults.crash)")
        }
        (CrashWhy::Unparsed { detail, steps }, Lang::En) => match steps {
            Some(steps) => format!("{} (this protocol's steps: {steps})", point_en(detail)),
            None => point_en(detail),
        },
        (CrashWhy::Unparsed { detail, steps }, Lang::Es) => {
            let detail = super::super::faults::point_es(detail);
            match steps {
                Some(steps) => format!("{detail} (los pasos de este protocolo: {steps})"),
                None => detail,
            }
        }
        (CrashWhy::OtherActor { step, actor }, Lang::En) => format!(
            "`{step}` is a step of the {}, which this scenario does not run (see \
             `producer.mode`)",
            actor.name()
        ),
        (CrashWhy::OtherActor { step, actor }, Lang::Es) => format!(
            "`{step}` es un paso del {}, que este escenario no corre (mirá `producer.mode`)",
            super::super::value::actor_es(*actor)
        ),
        (
            CrashWhy::NoStep {
                protocol,
                step,
                steps,
            },
            Lang::En,
        ) => format!("protocol `{protocol}` has no step `{step}`; its steps are {steps}"),
        (
            CrashWhy::NoStep {
                protocol,
                step,
                steps,
            },
            Lang::Es,
        ) => format!("el protocolo `{protocol}` no tiene el paso `{step}`; sus pasos son {steps}"),
        (CrashWhy::NeverReached { detail }, Lang::En) => unreached_en(detail),
        (CrashWhy::NeverReached { detail }, Lang::Es) => super::super::faults::unreached_es(detail),
        (CrashWhy::NoEvent { event, last }, Lang::En) => {
            format!("event e{event} does not exist; this scenario has e0 to e{last}")
        }
        (CrashWhy::NoEvent { event, last }, Lang::Es) => {
            format!("el evento e{event} no existe; este escenario tiene de e0 a e{last}")
        }
    }
}

/// `crosscheck` refusing `name` (a path, or `--protocol P`) for `why`.
pub(super) fn crosscheck_unfit(name: &str, why: Unfit, lang: Lang) -> String {
    let why = unfit(why, lang);
    match lang {
        Lang::En => format!(
            "{name}: crosscheck cannot run this scenario: {why}. It cross-checks one consumer \
             whose database connection is a real process, with a direct producer; `run` and \
             `explore` simulate everything else."
        ),
        Lang::Es => format!(
            "{name}: crosscheck no puede correr este escenario: {why}. Contrasta un solo \
             consumidor cuya conexión a la base de datos es un proceso real, con un productor \
             directo; `run` y `explore` simulan todo lo demás."
        ),
    }
}

fn unfit(why: Unfit, lang: Lang) -> String {
    match (why, lang) {
        (Unfit::Consumers(n), Lang::En) => format!(
            "it has {n} consumers; crosscheck runs one consumer process (the interleavings of \
             several real processes are the operating system's choice, not a schedule that \
             can be replayed)"
        ),
        (Unfit::Consumers(n), Lang::Es) => format!(
            "tiene {n} consumidores; crosscheck corre un solo proceso consumidor (las \
             intercalaciones de varios procesos reales las elige el sistema operativo, no son \
             un plan que se pueda repetir)"
        ),
        (Unfit::Producer, Lang::En) => "it runs a producer process (`producer.mode`); \
                                        crosscheck publishes directly and runs only the \
                                        consumer's connection for real"
            .to_string(),
        (Unfit::Producer, Lang::Es) => "corre un proceso productor (`producer.mode`); \
                                        crosscheck publica directamente y solo corre de verdad \
                                        la conexión del consumidor"
            .to_string(),
        (Unfit::EmailRelay, Lang::En) => "its protocol has `enqueue_email`, which needs the \
                                          email relay, a second process on the database"
            .to_string(),
        (Unfit::EmailRelay, Lang::Es) => "su protocolo tiene `enqueue_email`, que necesita el \
                                          relay de emails, un segundo proceso sobre la base de \
                                          datos"
            .to_string(),
        (Unfit::Retention, Lang::En) => "it runs the inbox retention job \
                                         (`store.inbox_ttl_ticks`), a second connection on its \
                                         own schedule; crosscheck's consumer is the only process \
                                         on the file"
            .to_string(),
        (Unfit::Retention, Lang::Es) => "corre el job de retención del inbox \
                                         (`store.inbox_ttl_ticks`), una segunda conexión con su \
                                         propio calendario; el consumidor de crosscheck es el \
                                         único proceso sobre el archivo"
            .to_string(),
    }
}
