//! The words of [`problem::Setting`]: settings that mean nothing in the rest of the
//! scenario.

use super::Lang;
use crate::scenario::problem::Setting;

pub(super) fn words(p: &Setting, lang: Lang) -> String {
    match (p, lang) {
        (Setting::TransactionalLog, Lang::En) => {
            "a transactional broker is modelled for the queue broker only; remove \
             `broker.kind: log` or `broker.transactional`"
                .to_string()
        }
        (Setting::TransactionalLog, Lang::Es) => {
            "el broker transaccional está modelado solo para el broker de cola; sacá \
             `broker.kind: log` o `broker.transactional`"
                .to_string()
        }
        (Setting::TransactionalWithoutOutput { protocol, steps }, Lang::En) => format!(
            "protocol `{protocol}` has no `produce_output` step, so the broker transaction \
             would have nothing in it; its steps are {steps}"
        ),
        (Setting::TransactionalWithoutOutput { protocol, steps }, Lang::Es) => format!(
            "el protocolo `{protocol}` no tiene el paso `produce_output`, así que la \
             transacción del broker no tendría nada adentro; sus pasos son {steps}"
        ),
        (Setting::EmailKeyWithoutEmail { protocol, steps }, Lang::En) => format!(
            "protocol `{protocol}` sends no email (no `external_effect` or `enqueue_email` \
             step); its steps are {steps}"
        ),
        (Setting::EmailKeyWithoutEmail { protocol, steps }, Lang::Es) => format!(
            "el protocolo `{protocol}` no manda ningún email (no tiene paso \
             `external_effect` ni `enqueue_email`); sus pasos son {steps}"
        ),
        (Setting::DepthPinnedTwice { depth, first }, Lang::En) => format!(
            "depth {depth} is already pinned by expect.explore[{first}]; one entry per \
             depth, or one of them would never be checked"
        ),
        (Setting::DepthPinnedTwice { depth, first }, Lang::Es) => format!(
            "la profundidad {depth} ya la fija expect.explore[{first}]; una entrada por \
             profundidad, o una de ellas nunca se comprobaría"
        ),
    }
}
