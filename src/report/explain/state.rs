//! The states after an entry: where each message stands at the broker, what the database
//! has committed, and what each open transaction holds beyond it.

use super::*;

impl Narrator<'_> {
    /// What consumer `c`'s open transaction had written in `snapshot`.
    pub(super) fn writes_of(&self, c: usize, snapshot: &Snapshot) -> Option<TxWrites> {
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

    pub(super) fn diff(&self, committed: &CommittedState, view: &CommittedState) -> TxWrites {
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
        for (id, n) in &view.rejected {
            if *n > committed.rejected.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::Rejection));
            }
        }
        for (id, n) in &view.pending {
            if *n > committed.pending.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::Pending));
            }
        }
        for (id, n) in &committed.pending {
            if *n > view.pending.get(id).copied().unwrap_or(0) {
                items.extend(index(id).map(TxItem::PendingCleared));
            }
        }
        let balances = view
            .balances
            .iter()
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

    /// The rows a transaction wrote, one phrase each.
    pub(super) fn tx_list(&self, writes: &Option<TxWrites>) -> Vec<String> {
        let rows = |w: &TxWrites| -> Vec<String> {
            let rows = w.rows.iter();
            rows.map(|(t, d)| self.lang.tx_rows(t, *d)).collect()
        };
        if writes.as_ref().is_some_and(|w| w.unseen) {
            return vec![self.lang.tx_unseen()];
        }
        writes
            .iter()
            .flat_map(|w| {
                let items = w.items.iter().map(|i| self.lang.tx_item(*i));
                items.chain(rows(w))
            })
            .collect()
    }

    /// Every message grouped by state: `in flight: e1 (consumer0, d1) · ready: e2–e4`.
    pub(super) fn broker_line(&self, s: &Snapshot) -> String {
        let l = self.lang;
        let mut groups: BTreeMap<usize, Vec<(usize, u32, Option<String>)>> = BTreeMap::new();
        for m in &s.messages {
            let (order, detail) = match m.state {
                MessageState::InFlight { consumer, attempt } => {
                    (0, Some(format!("consumer{consumer}, d{attempt}")))
                }
                MessageState::Redelivering { at } => (1, Some(format!("t={at}"))),
                MessageState::Ready => (2, None),
                MessageState::Acked { .. } => (3, None),
                MessageState::DeadLettered { .. } => (4, None),
            };
            groups
                .entry(order)
                .or_default()
                .push((m.event, m.copy, detail));
        }
        if groups.is_empty() {
            return l.broker_empty();
        }
        groups
            .into_iter()
            .map(|(order, mut items)| {
                items.sort();
                format!("{}: {}", l.message_state(order), self.messages(&items))
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Messages in event order; runs of plain first publications as ranges (`e2–e4`).
    pub(super) fn messages(&self, items: &[(usize, u32, Option<String>)]) -> String {
        let items = items.iter().map(|(event, copy, detail)| {
            let plain = *copy == 0 && detail.is_none();
            let name = (!plain).then(|| {
                let name = self.lang.ev(*event, *copy);
                match detail {
                    Some(d) => format!("{name} ({d})"),
                    None => name,
                }
            });
            (*event, name)
        });
        self.listed(ranged(items)).join(", ")
    }

    /// At most [`MAX_LISTED`] of `items`, then how many more there are.
    pub(super) fn listed(&self, mut items: Vec<String>) -> Vec<String> {
        if items.len() > MAX_LISTED {
            let more = items.len() - MAX_LISTED;
            items.truncate(MAX_LISTED);
            items.push(self.lang.more_items(more));
        }
        items
    }

    /// The committed database in one line: inbox rows, ledger effects, balances, and the
    /// rejections and alerts when there are any. Events counted once are written as ranges.
    pub(super) fn database_line(&self, c: &CommittedState) -> String {
        if c.custom {
            return self.own_database_line(c);
        }
        let l = self.lang;
        let index = |id: &str| self.ids.get(id).copied().unwrap_or(usize::MAX);
        let mut inbox: Vec<(usize, u32)> = c.inbox.iter().map(|(id, n)| (index(id), *n)).collect();
        inbox.sort();
        let inbox = ranged(
            inbox
                .iter()
                .map(|(e, n)| (*e, (*n != 1).then(|| times(&format!("e{e}"), *n)))),
        );
        let mut ledger: Vec<(usize, Option<String>)> = c
            .ledger
            .iter()
            .map(|(id, counts)| {
                let e = index(id);
                let text = if counts.completions > 0 && counts.debits == 0 {
                    Some(l.ledger_completion(e, counts.completions))
                } else if counts.debits != counts.credits {
                    Some(l.ledger_torn(e, counts.debits, counts.credits))
                } else {
                    (counts.debits != 1).then(|| times(&format!("e{e}"), counts.debits))
                };
                (e, text)
            })
            .collect();
        ledger.sort();
        let ledger = ranged(ledger);
        let mut parts = vec![
            l.db_part_inbox(&self.listed(inbox)),
            l.db_part_ledger(&self.listed(ledger)),
            self.balances_part(c),
        ];
        let events = |ids: &mut dyn Iterator<Item = &String>| -> String {
            let mut events: Vec<usize> = ids.map(|id| index(id)).collect();
            events.sort_unstable();
            self.listed(ranged(events.into_iter().map(|e| (e, None))))
                .join(", ")
        };
        if !c.rejected.is_empty() {
            parts.push(l.db_part_rejected(&events(&mut c.rejected.keys())));
        }
        if !c.pending.is_empty() {
            parts.push(l.db_part_pending(&events(&mut c.pending.keys())));
        }
        if !c.payload_alerts.is_empty() {
            parts
                .push(l.db_part_alerts(&events(&mut c.payload_alerts.iter().map(|a| &a.event_id))));
        }
        parts.join(" · ")
    }

    /// Every balance, for a few accounts; for more than [`MAX_LISTED`], only those that are
    /// not at their opening balance, and how many are.
    pub(super) fn balances_part(&self, c: &CommittedState) -> String {
        let l = self.lang;
        let show = |(a, b): (&String, &i64)| format!("{a} {b}");
        if c.balances.len() <= MAX_LISTED {
            let all: Vec<String> = c.balances.iter().map(show).collect();
            return l.db_part_balances(&all.join(", "));
        }
        let moved: Vec<String> = c
            .balances
            .iter()
            .filter(|(a, b)| self.opening.get(a.as_str()) != Some(*b))
            .map(show)
            .collect();
        let unmoved = c.balances.len() - moved.len();
        l.db_part_balances_moved(&self.listed(moved).join(", "), unmoved)
    }

    /// One line per open transaction: whose, for which event, and what it has written.
    pub(super) fn open_lines(&self, s: &Snapshot) -> Vec<String> {
        let l = self.lang;
        s.open
            .iter()
            .map(|t| {
                let who = format!("consumer{}", t.consumer);
                let ev = t.event.map(|e| l.ev(e, 0));
                match &t.view {
                    None if t.unseen => l.open_unseen(&who, ev.as_deref()),
                    None => l.open_nothing_yet(&who, ev.as_deref()),
                    Some(view) => {
                        let w = self.diff(&s.committed, view);
                        let mut items: Vec<String> =
                            w.items.iter().map(|i| l.tx_item(*i)).collect();
                        items.extend(w.rows.iter().map(|(t, d)| l.tx_rows(t, *d)));
                        if !w.balances.is_empty() {
                            let b: Vec<String> =
                                w.balances.iter().map(|(a, v)| format!("{a} {v}")).collect();
                            items.push(l.tx_balances(&b.join(", ")));
                        }
                        l.open_written(&who, ev.as_deref(), &items.join(" · "))
                    }
                }
            })
            .collect()
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

/// Items in event order, as text: a plain item (`None`) is its event's name, and runs of
/// consecutive plain ones are ranges (`e2–e4`); any other item is its own text.
/// `[0, 1, 2, 5]` → `e0–e2`, `e5`; `[0, 1]` → `e0`, `e1`.
pub(super) fn ranged(items: impl IntoIterator<Item = (usize, Option<String>)>) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let close = |run: &mut Option<(usize, usize)>, out: &mut Vec<String>| {
        if let Some((first, last)) = run.take() {
            match last - first {
                0 => out.push(format!("e{first}")),
                1 => out.extend([format!("e{first}"), format!("e{last}")]),
                _ => out.push(format!("e{first}–e{last}")),
            }
        }
    };
    for (event, text) in items {
        match text {
            None => match &mut run {
                Some((_, last)) if last.checked_add(1) == Some(event) => *last = event,
                _ => {
                    close(&mut run, &mut out);
                    run = Some((event, event));
                }
            },
            Some(text) => {
                close(&mut run, &mut out);
                out.push(text);
            }
        }
    }
    close(&mut run, &mut out);
    out
}
