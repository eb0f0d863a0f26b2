//! What an open transaction holds beyond the committed state, as data: the rows it added,
//! the balances it changed, and with a scenario's own schema the rows per table.

use super::Reader;
use crate::model::CommittedState;
use crate::world::Snapshot;

/// One thing an open transaction wrote (or a commit made durable), about event `.0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxItem {
    Inbox(usize),
    /// Both the debit and the credit.
    Effect(usize),
    Debit(usize),
    Credit(usize),
    Completion(usize),
    Rejection(usize),
    /// A completion kept in `pending_event`.
    Pending(usize),
    /// A completion taken out of `pending_event` (it took effect).
    PendingCleared(usize),
    /// With the scenario's own schema: an effect as `check.effects_per_event` counts it.
    CountedEffect(usize),
}

/// What one open transaction has written beyond the committed state: the rows it added and
/// the balances it changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxWrites {
    /// On a server: the transaction's writes were not read (see
    /// [`crate::world::OpenTransaction::unseen`]); the lists are empty.
    pub unseen: bool,
    pub items: Vec<TxItem>,
    pub balances: Vec<(String, i64)>,
    /// With the scenario's own schema: the rows it added to (or removed from) each table.
    pub rows: Vec<(String, i64)>,
}

impl Reader<'_> {
    /// What consumer `c`'s open transaction had written in `snapshot`.
    pub fn writes_of(&self, c: usize, snapshot: &Snapshot) -> Option<TxWrites> {
        let tx = snapshot.open.iter().find(|t| t.consumer == c)?;
        if tx.unseen {
            return Some(TxWrites {
                unseen: true,
                ..TxWrites::default()
            });
        }
        let view = tx.view.as_ref()?;
        Some(self.diff(&snapshot.committed, view))
    }

    /// What consumer `c`'s open transaction on database `db` wrote: with named databases,
    /// only that database's tables, and the effect only for the main one.
    pub fn writes_of_on(
        &self,
        scenario: &crate::scenario::Scenario,
        c: usize,
        before: &Snapshot,
        db: u8,
    ) -> Option<TxWrites> {
        let mut writes = self.writes_of(c, before)?;
        let Some(custom) = scenario.store.custom.as_ref() else {
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

    /// What a transaction that sees `view` holds beyond `committed`.
    pub fn diff(&self, committed: &CommittedState, view: &CommittedState) -> TxWrites {
        if committed.custom {
            return self.own_diff(committed, view);
        }
        let index = |id: &str| self.ids.get(id).copied();
        let mut items = Vec::new();
        for (id, n) in &view.inbox {
            if *n > committed.inbox.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::Inbox));
            }
        }
        for (id, counts) in &view.ledger {
            let was = committed.ledger.get(id).copied().unwrap_or_default();
            let Some(e) = index(id) else { continue };
            let (debit, credit, completion) = (
                counts.debits > was.debits,
                counts.credits > was.credits,
                counts.completions > was.completions,
            );
            match (debit, credit) {
                (true, true) => items.push(TxItem::Effect(e)),
                (true, false) => items.push(TxItem::Debit(e)),
                (false, true) => items.push(TxItem::Credit(e)),
                (false, false) => {}
            }
            if completion {
                items.push(TxItem::Completion(e));
            }
        }
        let added = |new: &std::collections::BTreeMap<String, u32>,
                     old: &std::collections::BTreeMap<String, u32>,
                     item: fn(usize) -> TxItem,
                     items: &mut Vec<TxItem>| {
            for (id, n) in new {
                if *n > old.get(id).copied().unwrap_or(0) {
                    items.extend(index(id).map(item));
                }
            }
        };
        added(
            &view.rejected,
            &committed.rejected,
            TxItem::Rejection,
            &mut items,
        );
        added(
            &view.pending,
            &committed.pending,
            TxItem::Pending,
            &mut items,
        );
        added(
            &committed.pending,
            &view.pending,
            TxItem::PendingCleared,
            &mut items,
        );
        let balances = (view.balances.iter())
            .filter(|(account, b)| committed.balances.get(*account) != Some(b))
            .map(|(a, b)| (a.clone(), *b))
            .collect();
        TxWrites {
            items,
            balances,
            rows: Vec::new(),
            unseen: false,
        }
    }

    /// What an open transaction (`view`) holds beyond `committed` with a scenario's own
    /// schema: events whose effect it adds, and the rows it adds to or removes from each
    /// table.
    fn own_diff(&self, committed: &CommittedState, view: &CommittedState) -> TxWrites {
        let index = |id: &str| self.ids.get(id).copied();
        let items = (view.effects.iter())
            .filter(|(id, n)| **n > committed.effects.get(*id).copied().unwrap_or(0))
            .filter_map(|(id, _)| index(id).map(TxItem::CountedEffect))
            .collect();
        let rows = (view.tables.iter())
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
}
