//! Snapshots for narration (`explain`): with [`super::RunOptions::narrate`], the state of
//! the broker and the database right after every trace entry, so that a report can say
//! what each step changed.
//!
//! Everything is read through the actors' own queries: the broker's messages, and the
//! store's committed-state queries (the store stays the only module that touches SQLite).
//! A snapshot never changes the run: the committed state is read through a connection with
//! no transaction open, and an open transaction is read only once it has written (see
//! [`crate::store::Store::open_transaction_view`]). Without `narrate` nothing here runs.

use super::World;
use crate::broker::Message;
use crate::model::{ConsumerId, EventIndex};
use crate::store::CommittedState;

/// The state right after one trace entry.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Every message the broker holds, in publication order, with its state.
    pub messages: Vec<Message>,
    /// The consumers' database as committed: what a reader outside every transaction sees.
    pub committed: CommittedState,
    /// The consumers with a transaction open, in consumer order.
    pub open: Vec<OpenTransaction>,
}

/// One consumer's open transaction.
#[derive(Clone, Debug)]
pub struct OpenTransaction {
    pub consumer: ConsumerId,
    /// The event of the delivery the consumer holds, if it still holds one.
    pub event: Option<EventIndex>,
    /// What the consumer's connection sees (the committed rows plus its own uncommitted
    /// writes), or `None` while the transaction has written nothing.
    pub view: Option<CommittedState>,
}

impl World<'_> {
    /// Records the state after the trace entry just recorded, when narrating.
    pub(super) fn snapshot(&mut self) {
        if !self.options.narrate {
            return;
        }
        // Only a consumer's commit changes what this reads (the ledger, the inbox, the
        // balances, the alerts), and a connection that just committed has no transaction
        // open; so when every consumer is inside a transaction, nothing changed since the
        // last snapshot.
        let committed = self
            .stores
            .iter_mut()
            .find_map(|s| s.committed_snapshot())
            .or_else(|| self.snapshots.last().map(|s| s.committed.clone()))
            .unwrap_or_default();
        let mut open = Vec::new();
        for (c, store) in self.stores.iter_mut().enumerate() {
            if let Some(view) = store.open_transaction_view() {
                open.push(OpenTransaction {
                    consumer: c,
                    event: self.consumers[c].delivery().map(|d| d.event),
                    view,
                });
            }
        }
        self.snapshots.push(Snapshot {
            messages: self.broker.messages().to_vec(),
            committed,
            open,
        });
    }
}
