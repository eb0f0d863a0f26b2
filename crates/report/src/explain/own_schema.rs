//! explain on a scenario with its own schema (issue 15): its database shown as rows per
//! table and effects per event (as `check.effects_per_event` counts them), what an open
//! transaction changed, and its SQL steps told with their statements.

use super::state::{ranged_words, times};
use super::*;
use crate::view::{Listed, Ranged};

/// A statement list longer than this is shortened in a sentence.
const MAX_STATEMENTS_CHARS: usize = 160;

impl Narrator<'_> {
    /// `tables: processed_event 1 row, stock 2 rows · effects: e0, e1 ×2`: the rows per
    /// table, the effects per event (none when the effect is an external call, told where
    /// each call is made), and the invariants that broke.
    pub(super) fn own_database_words(
        &self,
        tables: &[(String, i64)],
        effects: Option<&Listed<Ranged<(usize, u32)>>>,
        broken: &[(String, crate::model::CheckValue)],
    ) -> String {
        let l = self.lang;
        let tables: Vec<String> = tables.iter().map(|(t, n)| l.table_rows(t, *n)).collect();
        let mut parts = vec![l.db_part_tables(&tables)];
        let counted = |&(e, n): &(usize, u32)| times(&format!("e{e}"), n);
        if let Some(effects) = effects {
            parts.push(l.db_part_effects(&self.listed(effects, |i| ranged_words(i, counted))));
        }
        if !broken.is_empty() {
            parts.push(l.db_part_broken(broken));
        }
        parts.join(" · ")
    }

    /// The database the `nth` `step` runs on (0: the main one).
    pub(super) fn db_of(&self, step: Step, nth: u8) -> u8 {
        self.scenario.protocol.db_of(step, nth)
    }

    /// The name of the named database `entry`'s step runs on; `None` for the main one.
    pub(super) fn db_name(&self, entry: &TraceEntry) -> Option<&str> {
        let TraceKind::Db { step, nth, .. } = entry.kind else {
            return None;
        };
        let db = self.db_of(step, nth);
        let custom = self.scenario.store.custom.as_ref()?;
        (db != 0).then(|| custom.db_name(db))
    }

    /// A SQL step the store answered: what it ran, or that it said "already processed".
    pub(super) fn sql_step(
        &mut self,
        c: usize,
        entry: &TraceEntry,
        name: &str,
        outcome: DbOutcome,
        in_tx: bool,
    ) -> String {
        let l = self.lang;
        let who = format!("consumer{c}");
        let base = l.ev(entry.event.unwrap_or(0), 0);
        let verb = entry.verb();
        if outcome.is_duplicate() {
            self.discarded
                .insert((entry.event.unwrap_or(0), entry.copy, entry.delivery));
            return l.sql_duplicate(&who, &verb, &base, outcome);
        }
        let statements = self.scenario.protocol.sql_step(name).statements.join("; ");
        let statements = match statements.char_indices().nth(MAX_STATEMENTS_CHARS) {
            Some((i, _)) => format!("{}…", &statements[..i]),
            None => statements,
        };
        l.sql_ran(&who, &verb, &base, &statements, in_tx)
    }

    /// The seeds' "estado confirmado" of a crash: with the scenario's own schema, only its
    /// effect and the ack (its SQL keeps the identity wherever it does).
    pub(super) fn confirmed(&self, c: &crate::fault::Confirmed) -> String {
        match &self.scenario.store.custom {
            Some(custom) => match custom.effect() {
                Some(crate::model::Effect::External(service)) => {
                    self.lang.confirmed_call(service, c.ledger_rows, c.acked)
                }
                _ => self.lang.confirmed_own(c.ledger_rows > 0, c.acked),
            },
            None => self.lang.confirmed(c),
        }
    }

    /// The payload of event `e` as the scenario's SQL sees it: `qty=2, sku=sku_1`.
    pub(super) fn own_payload(&self, e: usize) -> (String, String) {
        let events = self.scenario.sql_events(&self.r.events[e..=e]);
        let event = &events[0];
        let fields: Vec<String> = event
            .payload
            .iter()
            .map(|(k, v)| match v {
                crate::model::SqlValue::Integer(i) => format!("{k}={i}"),
                crate::model::SqlValue::Text(s) => format!("{k}={s}"),
            })
            .collect();
        (event.event_type.clone(), fields.join(", "))
    }
}
