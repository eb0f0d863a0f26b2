//! The words of `protocols`: each built-in protocol's description, and the listing's
//! labels. The English descriptions are the protocol files' own (`protocols/*.json`, which
//! must read as a user's protocol and so carry no translation); the Spanish ones are here.

use super::Lang;
use crate::model::BuiltIn;

impl Lang {
    /// What built-in protocol `b` does and what it gives.
    pub fn built_in_description(self, b: &BuiltIn) -> String {
        let es = match b.name.as_str() {
            "ack-first" => {
                "Hace ack al recibir y después procesa: una caída después del ack pierde el \
                 evento (at-most-once)."
            }
            "no-dedup" => {
                "Procesa, hace commit y después ack, sin inbox: una caída entre el commit y el \
                 ack duplica el efecto (at-least-once)."
            }
            "mark-then-effect" => {
                "Marca el evento en el inbox en su propia transacción y después aplica el \
                 efecto: una caída entre las dos pierde el evento."
            }
            "effect-then-mark" => {
                "Consulta el inbox, aplica el efecto y hace commit, y después lo marca aparte: \
                 una caída antes de la marca duplica el efecto."
            }
            "check-then-act" => {
                "Hace SELECT en el inbox antes de actuar y marca en la transacción del efecto: \
                 seguro ante caídas, con carreras bajo concurrencia."
            }
            "inbox" => {
                "Inbox insert-first en la misma transacción que el efecto, ack después del \
                 commit: un efecto por evento (effectively-once)."
            }
            "inbox-ack-first" => {
                "La transacción del inbox bien hecha, pero con el ack antes: una caída después \
                 del ack igual pierde el evento."
            }
            _ => return b.description.clone(),
        };
        self.pick(&b.description, es)
    }

    /// `steps: ` and `under single crashes: `, the listing's labels.
    pub fn protocols_labels(self) -> (&'static str, &'static str) {
        match self {
            Lang::En => ("steps", "under single crashes"),
            Lang::Es => ("pasos", "ante caídas únicas"),
        }
    }

    /// The note after the listing: how a scenario defines its own protocol.
    pub fn protocols_custom(self, steps: &str) -> String {
        match self {
            Lang::En => format!(
                "A scenario may define its own: \"protocol\": {{\"name\": \"...\", \"steps\": \
                 [...]}}, with steps from\n{steps}."
            ),
            Lang::Es => format!(
                "Un escenario puede definir el suyo: \"protocol\": {{\"name\": \"...\", \
                 \"steps\": [...]}}, con pasos de\n{steps}."
            ),
        }
    }
}
