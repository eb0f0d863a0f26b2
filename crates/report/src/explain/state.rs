//! The states under a told step, worded: where each message stands at the broker, what the
//! database has committed, and what each open transaction holds beyond it. The states are
//! the run's view's ([`crate::view`]), read from the world there; here they only get words.

use super::*;
use crate::view::{
    Balances, BrokerState, DatabaseState, LedgerItem, Listed, OpenHolds, OpenState, Ranged,
};

impl Narrator<'_> {
    /// The rows a transaction wrote, one phrase each.
    pub(super) fn tx_list(&self, writes: &Option<TxWrites>) -> Vec<String> {
        let l = self.lang;
        if writes.as_ref().is_some_and(|w| w.unseen) {
            return vec![l.tx_unseen()];
        }
        writes.iter().flat_map(|w| self.tx_phrases(w)).collect()
    }

    /// A transaction's rows, one phrase each: its items, then its rows per table.
    fn tx_phrases(&self, w: &TxWrites) -> Vec<String> {
        let l = self.lang;
        let items = w.items.iter().map(|i| l.tx_item(*i));
        items
            .chain(w.rows.iter().map(|(t, d)| l.tx_rows(t, *d)))
            .collect()
    }

    /// Every message grouped by state: `in flight: e1 (consumer0, d1) · ready: e2–e4`.
    pub(super) fn broker_words(&self, s: &BrokerState) -> String {
        let l = self.lang;
        if s.is_empty() {
            return l.broker_empty();
        }
        let named = |m: &crate::view::NamedMessage| {
            let name = l.ev(m.event, m.copy);
            match m.at {
                Some(MessageAt::InFlight { consumer, attempt }) => {
                    format!("{name} (consumer{consumer}, d{attempt})")
                }
                Some(MessageAt::Redelivering { at }) => format!("{name} (t={at})"),
                None => name,
            }
        };
        (s.iter())
            .map(|(group, items)| {
                let items = self.listed(items, |m| ranged_words(m, named)).join(", ");
                format!("{}: {items}", l.message_state(*group as usize))
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// At most [`MAX_LISTED`] items, worded by `word`, then how many more there are.
    pub(super) fn listed<T>(&self, items: &Listed<T>, word: impl Fn(&T) -> String) -> Vec<String> {
        let mut out: Vec<String> = items.items.iter().map(word).collect();
        if items.more > 0 {
            out.push(self.lang.more_items(items.more));
        }
        out
    }

    /// The committed database in one line: inbox rows, ledger effects, balances, and the
    /// rejections and alerts when there are any. Events counted once are written as ranges.
    pub(super) fn database_words(&self, state: &DatabaseState) -> String {
        let l = self.lang;
        let (inbox, ledger, balances, rejected, pending, alerts) = match state {
            DatabaseState::Own {
                tables,
                effects,
                broken,
            } => return self.own_database_words(tables, effects.as_ref(), broken),
            DatabaseState::Transfers {
                inbox,
                ledger,
                balances,
                rejected,
                pending,
                alerts,
            } => (inbox, ledger, balances, rejected, pending, alerts),
        };
        let counted = |&(e, n): &(usize, u32)| times(&format!("e{e}"), n);
        let ledger_item = |item: &LedgerItem| match *item {
            LedgerItem::Times(e, n) => times(&format!("e{e}"), n),
            LedgerItem::Completion(e, n) => l.ledger_completion(e, n),
            LedgerItem::Torn {
                event,
                debits,
                credits,
            } => l.ledger_torn(event, debits, credits),
        };
        let mut parts = vec![
            l.db_part_inbox(&self.listed(inbox, |i| ranged_words(i, counted))),
            l.db_part_ledger(&self.listed(ledger, |i| ranged_words(i, ledger_item))),
            self.balances_words(balances),
        ];
        let events = |list: &Listed<Ranged<()>>| {
            let none = |_: &()| String::new();
            self.listed(list, |i| ranged_words(i, none)).join(", ")
        };
        parts.extend(rejected.as_ref().map(|r| l.db_part_rejected(&events(r))));
        parts.extend(pending.as_ref().map(|p| l.db_part_pending(&events(p))));
        parts.extend(alerts.as_ref().map(|a| l.db_part_alerts(&events(a))));
        parts.join(" · ")
    }

    /// Every balance, or those not at their opening balance and how many are.
    fn balances_words(&self, balances: &Balances) -> String {
        let l = self.lang;
        let show = |(a, b): &(String, i64)| format!("{a} {b}");
        match balances {
            Balances::All(all) => {
                let all: Vec<String> = all.iter().map(show).collect();
                l.db_part_balances(&all.join(", "))
            }
            Balances::Moved { moved, unmoved } => {
                l.db_part_balances_moved(&self.listed(moved, show).join(", "), *unmoved)
            }
        }
    }

    /// One open transaction: whose, for which event, and what it has written.
    pub(super) fn open_words(&self, t: &OpenState) -> String {
        let l = self.lang;
        let who = format!("consumer{}", t.consumer);
        let ev = t.event.map(|e| l.ev(e, 0));
        match &t.holds {
            OpenHolds::Unseen => l.open_unseen(&who, ev.as_deref()),
            OpenHolds::NothingYet => l.open_nothing_yet(&who, ev.as_deref()),
            OpenHolds::Written(w) => {
                let mut items = self.tx_phrases(w);
                if !w.balances.is_empty() {
                    let b: Vec<String> =
                        w.balances.iter().map(|(a, v)| format!("{a} {v}")).collect();
                    items.push(l.tx_balances(&b.join(", ")));
                }
                l.open_written(&who, ev.as_deref(), &items.join(" · "))
            }
        }
    }
}

/// `e1`, or `e1 ×2` when there are two.
pub(super) fn times(name: &str, n: u32) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name} ×{n}")
    }
}

/// An item of a list in event order: `e5`, a range `e2–e4`, or the item's own words.
pub(super) fn ranged_words<T>(item: &Ranged<T>, word: impl Fn(&T) -> String) -> String {
    match item {
        Ranged::One(e) => format!("e{e}"),
        Ranged::Range(first, last) => format!("e{first}–e{last}"),
        Ranged::Item(t) => word(t),
    }
}
