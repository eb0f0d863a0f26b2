//! Branches and values (issue 35) in words: what explain says when a step keeps a row, is
//! skipped because its condition does not hold, or sends the consumer back to an earlier
//! step, and when a loop reaches its bound.

use super::*;

impl Lang {
    /// `step` kept its row as `into` (`row`: its columns; `None`: no row).
    pub fn flow_kept(self, who: &str, step: &str, into: &str, row: Option<&str>) -> String {
        match (self, row) {
            (Lang::En, Some(row)) => format!(
                "{who} keeps the row {step} read as `{into}`: {row}. Later steps read it as \
                 `{into}.column`."
            ),
            (Lang::En, None) => format!(
                "{step} read no row, so {who} keeps `{into}` empty: every `{into}.column` is \
                 NULL."
            ),
            (Lang::Es, Some(row)) => format!(
                "{who} guarda la fila que leyó {step} como `{into}`: {row}. Los pasos \
                 siguientes la leen como `{into}.columna`."
            ),
            (Lang::Es, None) => format!(
                "{step} no leyó ninguna fila, así que {who} guarda `{into}` vacío: toda \
                 `{into}.columna` es NULL."
            ),
        }
    }

    /// `step` did not run: its condition `when` did not hold.
    pub fn flow_skipped(self, who: &str, ev: &str, step: &str, when: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} skips {step} for {ev}: its condition `{when}` does not hold (a step \
                 that does not run has no crash point)."
            ),
            Lang::Es => format!(
                "{who} se salta {step} para {ev}: su condición `{when}` no se cumple (un paso \
                 que no se ejecuta no tiene punto de caída)."
            ),
        }
    }

    /// After `from`, the consumer goes back to `to`, in pass `pass`.
    pub fn flow_jumped(self, who: &str, ev: &str, (from, to): (&str, &str), pass: u8) -> String {
        match self {
            Lang::En => format!(
                "After {from}, {who} goes back to {to} for {ev} (goto): pass {pass} over the \
                 steps; the crash points of this pass carry the next occurrence numbers."
            ),
            Lang::Es => format!(
                "Tras {from}, {who} vuelve a {to} para {ev} (goto): pasada {pass} por los \
                 pasos; los puntos de caída de esta pasada llevan los números de ocurrencia \
                 siguientes."
            ),
        }
    }

    /// `step` failed and its own handler caught it: rolled back or not, on to `to`.
    pub fn flow_caught(
        self,
        who: &str,
        ev: &str,
        (step, to): (&str, &str),
        rollback: bool,
    ) -> String {
        match (self, rollback) {
            (Lang::En, true) => format!(
                "{step}'s own error handler catches the failure for {ev}: {who} rolls back what \
                 it holds open and goes on at {to}, as a try/catch around the call would."
            ),
            (Lang::En, false) => format!(
                "{step}'s own error handler catches the failure for {ev}: {who} goes on at {to} \
                 in the same transaction. On PostgreSQL that transaction is aborted: every \
                 statement fails until it ends, and its COMMIT rolls it back."
            ),
            (Lang::Es, true) => format!(
                "El manejador de errores propio de {step} captura el fallo de {ev}: {who} \
                 revierte lo que tiene abierto y sigue en {to}, como un try/catch alrededor de \
                 la llamada."
            ),
            (Lang::Es, false) => format!(
                "El manejador de errores propio de {step} captura el fallo de {ev}: {who} sigue \
                 en {to} en la misma transacción. En PostgreSQL esa transacción está abortada: \
                 toda sentencia falla hasta que termina, y su COMMIT la revierte."
            ),
        }
    }

    /// `step` would have gone back once more than the `passes` a delivery may make.
    pub fn flow_loop_limit(self, who: &str, ev: &str, step: &str, passes: u8) -> String {
        match self {
            Lang::En => format!(
                "{who} stops looping on {ev}: one more jump back after {step} would pass the \
                 {passes} passes a delivery may make, so {step} fails and the error policy \
                 takes over."
            ),
            Lang::Es => format!(
                "{who} deja de dar vueltas con {ev}: un salto atrás más tras {step} pasaría de \
                 las {passes} pasadas que admite una entrega, así que {step} falla y decide la \
                 política de errores."
            ),
        }
    }
}
