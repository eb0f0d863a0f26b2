//! explain on a scenario with its own schema (issue 15): its SQL steps, its tables and its
//! effects as `check.effects_per_event` counts them, in both languages.

use super::*;
use crate::model::DbOutcome;

impl Lang {
    /// `who` ran SQL step `step` for `ev`: `statements` are what it sent.
    pub fn sql_ran(self, who: &str, step: &str, ev: &str, statements: &str, in_tx: bool) -> String {
        match (self, in_tx) {
            (Lang::En, true) => {
                format!("{who} runs {step} for {ev}, in its open transaction: {statements}.")
            }
            (Lang::Es, true) => format!(
                "{who} ejecuta {step} para {ev}, dentro de su transacción abierta: {statements}."
            ),
            (Lang::En, false) => format!(
                "{who} runs {step} for {ev}, outside any transaction (each statement commits \
                 on its own): {statements}."
            ),
            (Lang::Es, false) => format!(
                "{who} ejecuta {step} para {ev}, fuera de toda transacción (cada sentencia se \
                 confirma sola): {statements}."
            ),
        }
    }

    /// SQL step `step` said `ev` was processed before (its `duplicate_if`).
    pub fn sql_duplicate(self, who: &str, step: &str, ev: &str, outcome: DbOutcome) -> String {
        let (en, es) = match outcome {
            DbOutcome::RowFound => ("returns a row", "devuelve una fila"),
            DbOutcome::NoChange => ("changes no row", "no cambia ninguna fila"),
            DbOutcome::ConditionHeld => (
                "finds its condition holding",
                "encuentra que se cumple su condición",
            ),
            _ => (
                "hits a UNIQUE constraint",
                "choca con una restricción UNIQUE",
            ),
        };
        match self {
            Lang::En => format!(
                "{who}'s {step} {en}: {ev} was processed before (duplicate_if). {who} will roll \
                 back what it holds open and ack without applying anything."
            ),
            Lang::Es => format!(
                "El paso {step} de {who} {es}: {ev} ya se procesó (duplicate_if). {who} va a \
                 revertir lo que tenga abierto y hacer ack sin aplicar nada."
            ),
        }
    }

    /// SQL step `step` failed for `ev`: the database's (`engine`'s) refusal, or a rule of
    /// the tool's.
    pub fn sql_failed(
        self,
        who: &str,
        step: &str,
        ev: &str,
        engine: crate::model::Engine,
        failure: &crate::model::SqlFailure,
    ) -> String {
        let why = self.sql_failure_told(engine.product(), failure);
        match self {
            Lang::En => format!(
                "{who}'s {step} on {ev} fails: {why}. {who} will roll back and reject the \
                 delivery, so that the broker delivers it again."
            ),
            Lang::Es => format!(
                "Falla el paso {step} de {who} con {ev}: {why}. {who} va a hacer rollback y \
                 rechazar la entrega, para que el broker la reentregue."
            ),
        }
    }

    /// The producer publishes `ev` of type `kind` with payload `payload` (`sku=sku_1, qty=2`).
    pub fn publish_own(self, ev: &str, kind: &str, payload: &str) -> String {
        let payload = if payload.is_empty() {
            String::new()
        } else {
            format!(" ({payload})")
        };
        match self {
            Lang::En => format!("The producer publishes {ev}: {kind}{payload}."),
            Lang::Es => format!("El productor publica {ev}: {kind}{payload}."),
        }
    }

    /// The database line of a scenario with its own schema: rows per table, then effects.
    pub fn db_part_tables(self, tables: &[String]) -> String {
        self.pick("tables: ", "tablas: ") + &self.or_none(tables, ("none", "ninguna"))
    }

    pub fn db_part_effects(self, events: &[String]) -> String {
        self.pick("effects: ", "efectos: ") + &self.or_none(events, ("none", "ninguno"))
    }

    /// `items` joined with commas, or the word for none.
    fn or_none(self, items: &[String], (en, es): (&str, &str)) -> String {
        match items {
            [] => self.pick(en, es),
            items => items.join(", "),
        }
    }

    /// The check queries that broke, each with what it gave (`` `sql` = value ``).
    pub fn db_part_broken(self, broken: &[(String, crate::model::CheckValue)]) -> String {
        let each: Vec<String> = (broken.iter())
            .map(|(sql, value)| format!("`{sql}` = {}", self.check_value(value)))
            .collect();
        self.pick("INVARIANT BROKEN: ", "INVARIANTE ROTO: ") + &each.join("; ")
    }

    /// `reservation 2 rows`.
    pub fn table_rows(self, table: &str, rows: i64) -> String {
        match (self, rows) {
            (Lang::En, 1) => format!("{table} 1 row"),
            (Lang::En, n) => format!("{table} {n} rows"),
            (Lang::Es, 1) => format!("{table} 1 fila"),
            (Lang::Es, n) => format!("{table} {n} filas"),
        }
    }

    /// What an open transaction changed in a table: `+1 row in reservation`.
    pub fn tx_rows(self, table: &str, delta: i64) -> String {
        let sign = if delta > 0 { "+" } else { "" };
        match (self, delta.abs()) {
            (Lang::En, 1) => format!("{sign}{delta} row in {table}"),
            (Lang::En, _) => format!("{sign}{delta} rows in {table}"),
            (Lang::Es, 1) => format!("{sign}{delta} fila en {table}"),
            (Lang::Es, _) => format!("{sign}{delta} filas en {table}"),
        }
    }

    /// A protocol's external call (`{"external": service}`) made for `ev`.
    pub fn called(self, who: &str, service: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} calls `{service}` for {ev}. The call reaches the service at once, \
                 outside the database: neither a rollback nor a crash can take it back."
            ),
            Lang::Es => format!(
                "{who} llama a `{service}` por {ev}. La llamada llega al servicio en el acto, \
                 fuera de la base: ni un rollback ni una caída la pueden deshacer."
            ),
        }
    }

    /// The confirmed state at a crash when the effect is the calls to `service`: how many
    /// the service has had for the event, and the ack.
    pub fn confirmed_call(self, service: &str, calls: u32, acked: bool) -> String {
        let ack = match (self, acked) {
            (Lang::En, true) => "acked",
            (Lang::En, false) => "no ack",
            (Lang::Es, true) => "con ack",
            (Lang::Es, false) => "sin ack",
        };
        match (self, calls) {
            (Lang::En, 0) => format!("`{service}` not called yet, {ack}"),
            (Lang::En, 1) => format!("`{service}` called once (it cannot be taken back), {ack}"),
            (Lang::En, n) => format!("`{service}` called {n} times, {ack}"),
            (Lang::Es, 0) => format!("`{service}` todavía sin llamar, {ack}"),
            (Lang::Es, 1) => format!("`{service}` llamado una vez (no se puede deshacer), {ack}"),
            (Lang::Es, n) => format!("`{service}` llamado {n} veces, {ack}"),
        }
    }

    /// The confirmed state at a crash, with the scenario's own schema: its effect as
    /// `check.effects_per_event` counts it, and the ack (the identity is whatever its SQL
    /// keeps, which the checker does not read).
    pub fn confirmed_own(self, effect: bool, acked: bool) -> String {
        let (en, es) = match (effect, acked) {
            (false, false) => (
                "no effect committed (as check.effects_per_event counts it), no ack",
                "ningún efecto confirmado (según check.effects_per_event), sin ack",
            ),
            (true, false) => (
                "the effect is committed (as check.effects_per_event counts it); no ack",
                "el efecto está confirmado (según check.effects_per_event); sin ack",
            ),
            (true, true) => (
                "the intent is resolved: effect committed and acked",
                "intención resuelta: efecto confirmado y ack",
            ),
            (false, true) => (
                "only the ack: the broker already forgot the event, and no effect is committed",
                "solo el ack: el broker ya olvidó el evento, y no hay efecto confirmado",
            ),
        };
        self.pick(en, es)
    }
}
