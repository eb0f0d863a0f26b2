//! The facts a told entry's sentence needs from the state around it ([`StepFacts`]), read
//! from the snapshots before and after it.

use super::{StepFacts, Watcher};
use crate::broker::MessageState;
use crate::model::{DbOutcome, Step, TraceKind};
use crate::sim::{Actor, TraceEntry};
use crate::world::Snapshot;

impl Watcher<'_> {
    /// What `entry`'s sentence needs, with `after` the state right after it.
    pub(super) fn facts(&self, entry: &TraceEntry, after: &Snapshot) -> StepFacts {
        match (entry.actor, &entry.kind) {
            (Actor::Consumer(c), _) => self.consumer_facts(c, entry, after),
            (Actor::Broker, TraceKind::ConnectionLost { .. }) => StepFacts {
                released: (self.before.messages.iter())
                    .zip(&after.messages)
                    .filter(|(b, a)| {
                        matches!(b.state, MessageState::InFlight { .. })
                            && !matches!(a.state, MessageState::InFlight { .. })
                    })
                    .map(|(_, a)| (a.event, a.copy))
                    .collect(),
                ..StepFacts::default()
            },
            _ => StepFacts::default(),
        }
    }

    fn consumer_facts(&self, c: usize, entry: &TraceEntry, after: &Snapshot) -> StepFacts {
        let before = &self.before;
        let protocol = &self.scenario.protocol;
        let db = match entry.kind {
            TraceKind::Db { step, nth, .. } => protocol.db_of(step, nth),
            _ => 0,
        };
        let in_tx = (before.open.iter()).any(|t| t.consumer == c && t.databases.contains(&db));
        let writes = match entry.kind {
            TraceKind::RolledBack { .. } | TraceKind::Crash { .. } => {
                self.reader.writes_of(c, before)
            }
            TraceKind::Db {
                step: Step::Commit,
                outcome: DbOutcome::Committed,
                ..
            } => (self.reader).writes_of_on(self.scenario, c, before, db),
            _ => None,
        };
        let event = || &self.r.events[entry.event.unwrap_or(0)];
        let applied_amount = match entry.kind {
            TraceKind::Db {
                step: Step::ApplyEffect,
                outcome: DbOutcome::Applied,
                ..
            } => {
                let view = (after.open.iter())
                    .find(|t| t.consumer == c)
                    .and_then(|t| t.view.as_ref())
                    .unwrap_or(&after.committed);
                let amounts = view.credit_amounts.get(&event().event_id);
                amounts.and_then(|a| a.last().copied())
            }
            _ => None,
        };
        let effect_committed = match entry.kind {
            TraceKind::Acked { .. } | TraceKind::AckLost => {
                let (id, committed) = (&event().event_id, &after.committed);
                committed
                    .ledger
                    .get(id)
                    .is_some_and(|x| x.debits.max(x.credits).max(x.completions) > 0)
                    || committed.rejected.contains_key(id)
                    || committed.effects.get(id).is_some_and(|n| *n > 0)
            }
            _ => false,
        };
        StepFacts {
            in_tx,
            writes,
            applied_amount,
            effect_committed,
            released: Vec::new(),
        }
    }
}
