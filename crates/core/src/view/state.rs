//! The states a told step shows, as data in no language: where each message stands at the
//! broker, what the database has committed, what each open transaction holds beyond it.
//! They are read from the world's snapshots here, once; `report` words them. A list is
//! kept as the reader sees it: events in order, consecutive plain ones as ranges, at most
//! [`MAX_LISTED`] items and a count of the rest, so that two states are told apart exactly
//! when their words differ.

use super::{Reader, TxWrites};
use crate::broker::MessageState;
use crate::model::{CommittedState, EventIndex};
use crate::world::Snapshot;
use std::collections::BTreeMap;

/// At most this many items of one list are named in a state (messages of one state, inbox
/// rows, ledger effects, balances, …); the rest are counted.
pub const MAX_LISTED: usize = 24;

/// At most [`MAX_LISTED`] items, and how many more there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed<T> {
    pub items: Vec<T>,
    pub more: usize,
}

impl<T> Listed<T> {
    /// The first [`MAX_LISTED`] of `items`, the rest counted.
    pub fn of(mut items: Vec<T>) -> Listed<T> {
        let more = items.len().saturating_sub(MAX_LISTED);
        items.truncate(MAX_LISTED);
        Listed { items, more }
    }
}

/// An item of a list in event order: a plain event, a range of consecutive plain events
/// (three or more), or an item with something of its own to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ranged<T> {
    One(EventIndex),
    Range(EventIndex, EventIndex),
    Item(T),
}

/// Items in event order: a plain item (`None`) is its event, and runs of three or more
/// consecutive plain ones are ranges; any other item stands alone.
/// `[0, 1, 2, 5]` → `0–2`, `5`; `[0, 1]` → `0`, `1`.
pub fn ranged<T>(items: impl IntoIterator<Item = (EventIndex, Option<T>)>) -> Vec<Ranged<T>> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let close = |run: &mut Option<(usize, usize)>, out: &mut Vec<Ranged<T>>| {
        if let Some((first, last)) = run.take() {
            match last - first {
                0 => out.push(Ranged::One(first)),
                1 => out.extend([Ranged::One(first), Ranged::One(last)]),
                _ => out.push(Ranged::Range(first, last)),
            }
        }
    };
    for (event, item) in items {
        match item {
            None => match &mut run {
                Some((_, last)) if last.checked_add(1) == Some(event) => *last = event,
                _ => {
                    close(&mut run, &mut out);
                    run = Some((event, event));
                }
            },
            Some(item) => {
                close(&mut run, &mut out);
                out.push(Ranged::Item(item));
            }
        }
    }
    close(&mut run, &mut out);
    out
}

/// Where a message stands, in the order the broker's state lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MessageGroup {
    InFlight,
    Redelivering,
    Ready,
    Acked,
    DeadLettered,
}

/// A message named in the broker's state: any but a plain first publication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NamedMessage {
    pub event: EventIndex,
    pub copy: u32,
    pub at: Option<MessageAt>,
}

/// Where a message in flight or waiting for redelivery is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MessageAt {
    /// Held by `consumer`, its `attempt`-th delivery.
    InFlight { consumer: usize, attempt: u32 },
    /// Visible again at tick `at`.
    Redelivering { at: u64 },
}

/// Every message grouped by state; empty when the broker holds none.
pub type BrokerState = Vec<(MessageGroup, Listed<Ranged<NamedMessage>>)>;

/// A ledger entry worth naming: an event applied other than once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LedgerItem {
    /// Its debits and credits, `n` times each (not once).
    Times(EventIndex, u32),
    /// Only completions, `n` of them.
    Completion(EventIndex, u32),
    /// Debits and credits that do not match.
    Torn {
        event: EventIndex,
        debits: u32,
        credits: u32,
    },
}

/// The accounts' balances: all of them, or for many accounts those not at their opening
/// balance and how many are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Balances {
    All(Vec<(String, i64)>),
    Moved {
        moved: Listed<(String, i64)>,
        unmoved: usize,
    },
}

/// The committed database in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatabaseState {
    /// The transfer schema: inbox rows (an event with `n` rows other than one carries
    /// `n`), ledger effects, balances, and the rejections, pending completions and
    /// payload alerts when there are any.
    Transfers {
        inbox: Listed<Ranged<(EventIndex, u32)>>,
        ledger: Listed<Ranged<LedgerItem>>,
        balances: Balances,
        rejected: Option<Listed<Ranged<()>>>,
        pending: Option<Listed<Ranged<()>>>,
        alerts: Option<Listed<Ranged<()>>>,
    },
    /// A scenario's own schema: rows per table, effects per event (none when the effect is
    /// an external call), and the check queries that broke, each with what it gave.
    Own {
        tables: Vec<(String, i64)>,
        effects: Option<Listed<Ranged<(EventIndex, u32)>>>,
        broken: Vec<(String, crate::model::CheckValue)>,
    },
}

/// One open transaction: whose, for which event, and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenState {
    pub consumer: usize,
    pub event: Option<EventIndex>,
    pub holds: OpenHolds,
}

/// What an open transaction holds, as far as can be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenHolds {
    /// On a server, its writes are not read.
    Unseen,
    NothingYet,
    Written(TxWrites),
}

impl Reader<'_> {
    fn index(&self, id: &str) -> EventIndex {
        self.ids.get(id).copied().unwrap_or(usize::MAX)
    }

    /// Every message grouped by state.
    pub fn broker(&self, s: &Snapshot) -> BrokerState {
        let mut groups: BTreeMap<MessageGroup, Vec<NamedMessage>> = BTreeMap::new();
        for m in &s.messages {
            let (group, at) = match m.state {
                MessageState::InFlight { consumer, attempt } => (
                    MessageGroup::InFlight,
                    Some(MessageAt::InFlight { consumer, attempt }),
                ),
                MessageState::Redelivering { at } => (
                    MessageGroup::Redelivering,
                    Some(MessageAt::Redelivering { at }),
                ),
                MessageState::Ready => (MessageGroup::Ready, None),
                MessageState::Acked { .. } => (MessageGroup::Acked, None),
                MessageState::DeadLettered { .. } => (MessageGroup::DeadLettered, None),
            };
            groups.entry(group).or_default().push(NamedMessage {
                event: m.event,
                copy: m.copy,
                at,
            });
        }
        groups
            .into_iter()
            .map(|(group, mut items)| {
                items.sort();
                let items = items.into_iter().map(|m| {
                    let plain = m.copy == 0 && m.at.is_none();
                    (m.event, (!plain).then_some(m))
                });
                (group, Listed::of(ranged(items)))
            })
            .collect()
    }

    /// The committed database.
    pub fn database(&self, c: &CommittedState) -> DatabaseState {
        if c.custom {
            return self.own_database(c);
        }
        let counted = |n: u32, e: EventIndex| (n != 1).then_some((e, n));
        let mut inbox: Vec<(usize, u32)> = (c.inbox.iter())
            .map(|(id, n)| (self.index(id), *n))
            .collect();
        inbox.sort();
        let inbox = ranged(inbox.iter().map(|&(e, n)| (e, counted(n, e))));
        let mut ledger: Vec<(usize, Option<LedgerItem>)> = (c.ledger.iter())
            .map(|(id, counts)| {
                let e = self.index(id);
                let item = if counts.completions > 0 && counts.debits == 0 {
                    Some(LedgerItem::Completion(e, counts.completions))
                } else if counts.debits != counts.credits {
                    Some(LedgerItem::Torn {
                        event: e,
                        debits: counts.debits,
                        credits: counts.credits,
                    })
                } else {
                    (counts.debits != 1).then_some(LedgerItem::Times(e, counts.debits))
                };
                (e, item)
            })
            .collect();
        ledger.sort_by_key(|(e, item)| (*e, item.is_some()));
        let events = |ids: &mut dyn Iterator<Item = &String>| {
            let mut events: Vec<usize> = ids.map(|id| self.index(id)).collect();
            events.sort_unstable();
            Listed::of(ranged(events.into_iter().map(|e| (e, None::<()>))))
        };
        DatabaseState::Transfers {
            inbox: Listed::of(inbox),
            ledger: Listed::of(ranged(ledger)),
            balances: self.balances(c),
            rejected: (!c.rejected.is_empty()).then(|| events(&mut c.rejected.keys())),
            pending: (!c.pending.is_empty()).then(|| events(&mut c.pending.keys())),
            alerts: (!c.payload_alerts.is_empty())
                .then(|| events(&mut c.payload_alerts.iter().map(|a| &a.event_id))),
        }
    }

    /// Every balance, for a few accounts; for more than [`MAX_LISTED`], only those that are
    /// not at their opening balance, and how many are.
    fn balances(&self, c: &CommittedState) -> Balances {
        let all = c.balances.iter().map(|(a, b)| (a.clone(), *b));
        if c.balances.len() <= MAX_LISTED {
            return Balances::All(all.collect());
        }
        let moved: Vec<(String, i64)> = all
            .filter(|(a, b)| self.opening.get(a.as_str()) != Some(b))
            .collect();
        let unmoved = c.balances.len() - moved.len();
        Balances::Moved {
            moved: Listed::of(moved),
            unmoved,
        }
    }

    /// A scenario's own schema: rows per table, effects per event, invariants broken.
    fn own_database(&self, c: &CommittedState) -> DatabaseState {
        let mut effects: Vec<(usize, Option<(usize, u32)>)> = (c.effects.iter())
            .filter(|(_, n)| **n > 0)
            .map(|(id, n)| {
                let e = self.index(id);
                (e, (*n != 1).then_some((e, *n as u32)))
            })
            .collect();
        effects.sort();
        let broken = (c.invariants.iter())
            .filter(|i| !i.holds)
            .map(|i| (i.sql.clone(), i.value.clone()))
            .collect();
        DatabaseState::Own {
            tables: c.tables.iter().map(|(t, n)| (t.clone(), *n)).collect(),
            effects: (!self.external_effect).then(|| Listed::of(ranged(effects))),
            broken,
        }
    }

    /// One per open transaction, in consumer order.
    pub fn open(&self, s: &Snapshot) -> Vec<OpenState> {
        (s.open.iter())
            .map(|t| OpenState {
                consumer: t.consumer,
                event: t.event,
                holds: match &t.view {
                    None if t.unseen => OpenHolds::Unseen,
                    None => OpenHolds::NothingYet,
                    Some(view) => OpenHolds::Written(self.diff(&s.committed, view)),
                },
            })
            .collect()
    }
}
