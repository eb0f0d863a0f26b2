//! explain: the verdict per boundary and the failure-point table.

use super::*;

impl Lang {
    // ---------------------------------------------------------------- explain: verdict, table

    pub fn verdict_sentence(self, guarantee: &str, once: u64, lost: u64, dup: u64) -> String {
        match self {
            Lang::En => {
                format!("{guarantee}: {once} once, {lost} lost, {dup} duplicated. Per boundary:")
            }
            Lang::Es => format!(
                "{guarantee}: {once} una vez, {}, {}. Por frontera:",
                pl(lost, "perdido", "perdidos"),
                pl(dup, "duplicado", "duplicados")
            ),
        }
    }

    /// The seeds' "recuperación" of a crash.
    pub fn recovery(self, r: &Recovery, c: &Confirmed) -> String {
        let effect_before = c.ledger_rows > 0;
        if !r.redelivered {
            let (en, es) = if effect_before && c.acked {
                (
                    "none needed: resolved; the consumer goes on with other events",
                    "no hace falta: está resuelto; el consumidor sigue con otros eventos",
                )
            } else if c.acked {
                (
                    "none: the broker has the ack and never delivers it again",
                    "ninguna: el broker tiene el ack y no lo vuelve a entregar",
                )
            } else {
                (
                    "none: never delivered again",
                    "ninguna: no se volvió a entregar",
                )
            };
            return self.pick(en, es);
        }
        let (en, es) = match (
            r.new_effects > 0 && effect_before,
            r.new_effects > 0,
            r.duplicate_discarded,
            r.acked_in_the_end,
        ) {
            (true, _, _, true) => (
                "redelivered; applied the effect a second time, then acked",
                "reentrega; aplicó el efecto por segunda vez y envió el ack",
            ),
            (true, _, _, false) => (
                "redelivered; applied the effect a second time, and never acked",
                "reentrega; aplicó el efecto por segunda vez y nunca envió el ack",
            ),
            (false, true, _, true) => (
                "redelivered; retried the transaction, applied the effect and acked",
                "reentrega; reintentó la transacción, aplicó el efecto y envió el ack",
            ),
            (false, true, _, false) => (
                "redelivered; retried the transaction and applied the effect, but never acked",
                "reentrega; reintentó la transacción y aplicó el efecto, pero nunca envió el ack",
            ),
            (false, false, true, true) => (
                "redelivered; recognised the earlier result and acked without another effect",
                "reentrega; reconoció el resultado previo y envió el ack sin otro efecto",
            ),
            (false, false, true, false) => (
                "redelivered; recognised the earlier result, but never acked",
                "reentrega; reconoció el resultado previo, pero nunca envió el ack",
            ),
            (false, false, false, true) => (
                "redelivered; no new effect, acked",
                "reentrega; sin efecto nuevo, con ack",
            ),
            (false, false, false, false) => (
                "redelivered; no new effect, never acked",
                "reentrega; sin efecto nuevo y sin ack",
            ),
        };
        self.pick(en, es)
    }
}
