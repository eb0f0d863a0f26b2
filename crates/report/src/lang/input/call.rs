//! The words of [`problem::Call`]: what is wrong in the scenario's `call` checks (an
//! external call's form and service, `check.effect`'s service, the calls boundary).

use super::Lang;
use crate::scenario::problem::Call;

pub(super) fn words(p: &Call, lang: Lang) -> String {
    match lang {
        Lang::En => english(p),
        Lang::Es => spanish(p),
    }
}

fn english(p: &Call) -> String {
    match p {
        Call::Named { service } => format!(
            "an external call is named by the service it calls (its crash points are \
             `before:{service}` and `after:{service}`): leave `name` out"
        ),
        Call::SqlAndExternal => "a step is a SQL step {\"name\", \"sql\"} or an external call \
                                 {\"external\"}, not both"
            .to_string(),
        Call::FlowKey { key } => format!(
            "`{key}` means nothing on an external call: the call runs no SQL, keeps no row and \
             cannot be skipped, looped or caught; write the decision in a SQL step before it \
             (a `duplicate_if` there ends the delivery before the call)"
        ),
        Call::InvalidService { service } => format!(
            "`{service}` cannot name a service: it names the step, and crash points write it \
             (`after:{service}`), so it is lower-case letters, digits and `_`, starting with a \
             letter, at most 40 characters"
        ),
        Call::BuiltInName { service } => format!(
            "`{service}` is a built-in step's name, and a crash point must name one step; call \
             the service something else"
        ),
        Call::TooManyNames => "this process has interned too many distinct step names".to_string(),
        Call::NameTaken { name } => format!(
            "`{name}` names both this SQL step and an external call's service; a crash point \
             such as `before:{name}` must name one step, so rename one of them"
        ),
        Call::EffectNotCalled { service, calls } if calls.is_empty() => format!(
            "no step of the protocol calls `{service}`: the protocol calls no external service \
             (a step {{\"external\": \"{service}\"}} would)"
        ),
        Call::EffectNotCalled { service, calls } => format!(
            "no step of the protocol calls `{service}`; it calls {}",
            calls.join(", ")
        ),
        Call::NoCallsBoundary => "the protocol calls no external service besides the business \
                                  effect, so the run has no calls boundary"
            .to_string(),
        Call::ManyCallsBoundaries { services } => format!(
            "the protocol calls {} services ({}), each its own boundary; `call` would not say \
             which (expect the headline verdict, or call one service)",
            services.len(),
            services.join(", ")
        ),
    }
}

fn spanish(p: &Call) -> String {
    match p {
        Call::Named { service } => format!(
            "una llamada externa se nombra por el servicio al que llama (sus puntos de caída \
             son `before:{service}` y `after:{service}`): sacá `name`"
        ),
        Call::SqlAndExternal => "un paso es un paso SQL {\"name\", \"sql\"} o una llamada \
                                 externa {\"external\"}, no las dos cosas"
            .to_string(),
        Call::FlowKey { key } => format!(
            "`{key}` no significa nada en una llamada externa: la llamada no ejecuta SQL, no \
             guarda ninguna fila y no se puede saltear, repetir en un bucle ni capturar; \
             escribí la decisión en un paso SQL anterior (un `duplicate_if` ahí termina la \
             entrega antes de la llamada)"
        ),
        Call::InvalidService { service } => format!(
            "`{service}` no puede ser el nombre de un servicio: nombra el paso, y los puntos de \
             caída lo escriben (`after:{service}`), así que va en minúsculas, dígitos y `_`, \
             empieza con una letra y tiene a lo sumo 40 caracteres"
        ),
        Call::BuiltInName { service } => format!(
            "`{service}` es el nombre de un paso incorporado, y un punto de caída tiene que \
             nombrar un solo paso; ponele otro nombre al servicio"
        ),
        Call::TooManyNames => {
            "este proceso ya registró demasiados nombres distintos de pasos".to_string()
        }
        Call::NameTaken { name } => format!(
            "`{name}` nombra a la vez este paso SQL y el servicio de una llamada externa; un \
             punto de caída como `before:{name}` tiene que nombrar un solo paso, así que \
             renombrá uno de los dos"
        ),
        Call::EffectNotCalled { service, calls } if calls.is_empty() => format!(
            "ningún paso del protocolo llama a `{service}`: el protocolo no llama a ningún \
             servicio externo (un paso {{\"external\": \"{service}\"}} lo haría)"
        ),
        Call::EffectNotCalled { service, calls } => format!(
            "ningún paso del protocolo llama a `{service}`; llama a {}",
            calls.join(", ")
        ),
        Call::NoCallsBoundary => "el protocolo no llama a ningún servicio externo aparte del \
                                  efecto de negocio, así que la corrida no tiene frontera de \
                                  llamadas"
            .to_string(),
        Call::ManyCallsBoundaries { services } => format!(
            "el protocolo llama a {} servicios ({}), cada uno con su propia frontera; `call` no \
             diría cuál (esperá el veredicto principal, o llamá a un solo servicio)",
            services.len(),
            services.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_effect_no_step_calls_names_the_calls_there_are() {
        let none = Call::EffectNotCalled {
            service: "topup".into(),
            calls: vec![],
        };
        assert_eq!(
            words(&none, Lang::En),
            "no step of the protocol calls `topup`: the protocol calls no external service (a \
             step {\"external\": \"topup\"} would)"
        );
        let es = words(&none, Lang::Es);
        assert!(
            es.contains("`topup`") && es.contains("{\"external\": \"topup\"}"),
            "{es}"
        );
        let some = Call::EffectNotCalled {
            service: "topup".into(),
            calls: vec!["bank".into(), "mailer".into()],
        };
        assert_eq!(
            words(&some, Lang::En),
            "no step of the protocol calls `topup`; it calls bank, mailer"
        );
        assert_eq!(
            words(&some, Lang::Es),
            "ningún paso del protocolo llama a `topup`; llama a bank, mailer"
        );
    }

    #[test]
    fn a_step_named_as_a_service_keeps_its_crash_point() {
        let p = Call::NameTaken {
            name: "charge".into(),
        };
        assert_eq!(
            words(&p, Lang::En),
            "`charge` names both this SQL step and an external call's service; a crash point \
             such as `before:charge` must name one step, so rename one of them"
        );
        let es = words(&p, Lang::Es);
        assert_ne!(es, words(&p, Lang::En));
        assert!(
            es.contains("`charge`") && es.contains("`before:charge`"),
            "{es}"
        );
    }
}
