//! explain on a scenario with its own schema (issue 15): its database shown as rows per
//! table and effects per event (as `check.effects_per_event` counts them), what an open
//! transaction changed, and its SQL steps told with their statements.

use super::state::{ranged, times};
use super::*;

/// A statement list longer than this is shortened in a sentence.
const MAX_STATEMENTS_CHARS: usize = 160;

impl Narrator<'_> {
    /// `tables: processed_event 1 row, stock 2 rows · effects: e0, e1 ×2`.
    pub(super) fn own_database_line(&self, c: &CommittedState) -> String {
        let l = self.lang;
        let tables: Vec<String> = c.tables.iter().map(|(t, n)| l.table_rows(t, *n)).collect();
        let index = |id: &str| self.ids.get(id).copied().unwrap_or(usize::MAX);
        let mut effects: Vec<(usize, Option<String>)> = c
            .effects
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(id, n)| {
                let e = index(id);
                (e, (*n != 1).then(|| times(&format!("e{e}"), *n as u32)))
            })
            .collect();
        effects.sort();
        let mut parts = vec![l.db_part_tables(&tables)];
        // An effect that is an external call is not in the database: each call is told
        // where it is made.
        let external =
            (self.scenario.store.custom.as_ref()).is_some_and(|c| c.effect_call.is_some());
        if !external {
            parts.push(l.db_part_effects(&self.listed(ranged(effects))));
        }
        let broken: Vec<String> = c
            .invariants
            .iter()
            .filter(|i| !i.holds)
            .map(|i| format!("`{}` = {}", i.sql, i.value))
            .collect();
        if !broken.is_empty() {
            parts.push(l.db_part_broken(&broken));
        }
        parts.join(" · ")
    }

    /// What an open transaction (`view`) holds beyond `committed`: events whose effect it
    /// adds, and the rows it adds to or removes from each table.
    pub(super) fn own_diff(&self, committed: &CommittedState, view: &CommittedState) -> TxWrites {
        let index = |id: &str| self.ids.get(id).copied();
        let items = view
            .effects
            .iter()
            .filter(|(id, n)| **n > committed.effects.get(*id).copied().unwrap_or(0))
            .filter_map(|(id, _)| index(id).map(TxItem::CountedEffect))
            .collect();
        let rows = view
            .tables
            .iter()
            .map(|(t, n)| (t.clone(), n - committed.tables.get(t).copied().unwrap_or(0)))
            .filter(|(_, delta)| *delta != 0)
            .collect();
        TxWrites {
            items,
            balances: Vec::new(),
            rows,
            unseen: false,
        }
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

    /// What consumer `c`'s open transaction on database `db` wrote: with named databases,
    /// only that database's tables, and the effect only for the main one.
    pub(super) fn writes_of_on(&self, c: usize, before: &Snapshot, db: u8) -> Option<TxWrites> {
        let mut writes = self.writes_of(c, before)?;
        let Some(custom) = self.scenario.store.custom.as_ref() else {
            return Some(writes);
        };
        if custom.databases.is_empty() {
            return Some(writes);
        }
        let db_of_table = |t: &str| {
            let named = custom.databases.iter().position(|d| {
                t.strip_prefix(d.name.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
            });
            named.map_or(0, |k| k as u8 + 1)
        };
        writes.rows.retain(|(t, _)| db_of_table(t) == db);
        if db != 0 {
            writes.items.clear();
        }
        Some(writes)
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
