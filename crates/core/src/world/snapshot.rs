//! Snapshots for narration (`explain`): in a run given an [`Observer`], the state of the
//! broker and the database right after every trace entry, handed to the observer with the
//! entry and then dropped, so that a report can say what each step changed while the run
//! keeps one snapshot at a time, whatever its length.
//!
//! Everything is read through the actors' own queries: the broker's messages, and the
//! store's committed-state queries (the store stays the only module that touches SQLite).
//! A snapshot never changes the run: the committed state is read through a connection with
//! no transaction open, and an open transaction is read only once it has written (see
//! [`crate::store::Store::open_transaction_view`]). Without an observer nothing here runs,
//! and once the observer has had enough, nothing more is read.

use super::World;
use crate::broker::Message;
use crate::model::{ConsumerId, Event, EventIndex};
use crate::scenario::Scenario;
use crate::sim::TraceEntry;
use crate::store::{merge_parts, CommittedState, DatabaseView, Store};
use std::rc::Rc;

/// Who watches a narrated run: told every trace entry, with the state right after it, as
/// the run goes (see [`super::run_observed`]).
pub trait Observer {
    /// One entry and the state right after it, the observer's to keep. Returns whether the
    /// observer wants the next entries; once it says no, the run takes no more snapshots.
    fn observe(&mut self, entry: &TraceEntry, after: Snapshot) -> bool;
}

/// A run's observer, and what it needs between two entries.
pub(super) struct Watch<'o> {
    observer: &'o mut dyn Observer,
    /// Whether the observer still wants entries.
    listening: bool,
    /// The committed state of the last snapshot: still true while every consumer is inside
    /// a transaction (see [`World::observe`]), and then shared with the next snapshot.
    committed: Rc<CommittedState>,
    /// Every connection's change mark when `committed` was read (empty before the first
    /// read): while they are the same, so is the committed state.
    marks: Vec<(u64, bool)>,
    /// With named databases: each database's part of `committed` (the main one first), kept
    /// while no connection to it is outside a transaction to read it again.
    parts: Vec<CommittedState>,
}

impl<'o> Watch<'o> {
    /// Tells the observer `entry` and the state right after it: the broker's `messages`, the
    /// committed state last read, and the `open` transactions.
    fn tell(&mut self, entry: &TraceEntry, messages: &[Message], open: Vec<OpenTransaction>) {
        let after = Snapshot {
            messages: messages.to_vec(),
            committed: Rc::clone(&self.committed),
            open,
        };
        self.listening = self.observer.observe(entry, after);
    }

    pub(super) fn new(observer: &'o mut dyn Observer) -> Watch<'o> {
        Watch {
            observer,
            listening: true,
            committed: Rc::default(),
            marks: Vec::new(),
            parts: Vec::new(),
        }
    }
}

/// The state right after one trace entry.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Every message the broker holds, in publication order, with its state.
    pub messages: Vec<Message>,
    /// The consumers' database as committed: what a reader outside every transaction sees
    /// (shared by consecutive snapshots while it does not change).
    pub committed: Rc<CommittedState>,
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
    /// The databases it has a transaction open on: 0 is the main one, `k` the `k`-th of
    /// `store.databases` (each has its own transactions).
    pub databases: Vec<u8>,
    /// On a server (PostgreSQL): the transaction is open and what it wrote is not read
    /// (`view` is `None` then, which does not mean "nothing written"). A read inside it
    /// could take its snapshot early, or a lock, and change the run.
    pub unseen: bool,
}

impl World<'_> {
    /// Tells the observer, if there is one and it still listens, about `entry` (just
    /// recorded or about to be: the state is the same) and the state after it.
    pub(super) fn observe(&mut self, entry: &TraceEntry) {
        let Some(watch) = self.watch.as_mut().filter(|w| w.listening) else {
            return;
        };
        if self
            .stores
            .iter()
            .any(|s| s.local().is_some_and(|s| s.named_databases() > 0))
        {
            return self.observe_named(entry);
        }
        if self.stores.iter().all(|s| s.local().is_none()) {
            return self.observe_remote(entry);
        }
        // Only a commit changes what this reads (the ledger, the inbox, the balances, the
        // alerts): nothing to read again while no connection wrote or ended a transaction.
        // A connection that just committed has no transaction open; so when every one is
        // inside a transaction, nothing changed since the last snapshot either. The retention
        // job's connection reads too, when every consumer is inside a transaction and the
        // job has just deleted rows.
        // Every connection counts, those to other databases too: a needless read is cheap,
        // a missed one would tell a stale state.
        let marks: Vec<(u64, bool)> = self
            .stores
            .iter()
            .filter_map(|s| s.local())
            .chain(self.cleanup_store.iter().filter_map(|c| c.local()))
            .chain(self.relay_stores.iter().filter_map(|r| r.local()))
            .chain(self.producer_store.iter().filter_map(|p| p.local()))
            .map(Store::change_mark)
            .collect();
        if marks != watch.marks {
            if let Some(committed) = self
                .stores
                .iter_mut()
                .filter_map(|s| s.local_mut())
                .chain(self.cleanup_store.iter_mut().filter_map(|c| c.local_mut()))
                .find_map(|s| s.committed_snapshot())
            {
                watch.committed = Rc::new(committed);
                watch.marks = marks;
            }
        }
        let mut open = Vec::new();
        for (c, store) in self.stores.iter_mut().enumerate() {
            let Some(store) = store.local_mut() else {
                continue; // Snapshots are taken of simulated runs only.
            };
            if let Some(view) = store.open_transaction_view() {
                open.push(OpenTransaction {
                    consumer: c,
                    event: self.consumers[c].delivery().map(|d| d.event),
                    view,
                    databases: vec![0],
                    unseen: false,
                });
            }
        }
        watch.tell(entry, self.broker.messages(), open);
    }
}

impl World<'_> {
    /// [`World::observe`] on a server (PostgreSQL): the committed state read again while
    /// no consumer has a transaction open (a read then waits for no lock a consumer's
    /// statement holds, and sees what the next transaction will); an open transaction is
    /// shown open, its writes unread ([`OpenTransaction::unseen`]).
    fn observe_remote(&mut self, entry: &TraceEntry) {
        let Some(watch) = self.watch.as_mut() else {
            return;
        };
        if !self.stores.iter().any(|s| s.in_transaction()) {
            watch.committed = Rc::new(self.stores[0].committed_state());
        }
        let open = (self.stores.iter().enumerate())
            .filter(|(_, s)| s.in_transaction())
            .map(|(c, s)| OpenTransaction {
                consumer: c,
                event: self.consumers[c].delivery().map(|d| d.event),
                view: None,
                databases: s.open_databases(),
                unseen: true,
            })
            .collect();
        watch.tell(entry, self.broker.messages(), open);
    }

    /// [`World::observe`] for a scenario with named databases: each database is read on
    /// its own, its committed part through a connection outside a transaction there (or
    /// kept from the last read while there is none), each consumer's open transactions
    /// through its own connections where they have written.
    fn observe_named(&mut self, entry: &TraceEntry) {
        let Some(watch) = self.watch.as_mut() else {
            return;
        };
        let mut locals: Vec<&mut Store> = self
            .stores
            .iter_mut()
            .filter_map(|s| s.local_mut())
            .collect();
        let databases = locals
            .iter()
            .map(|s| s.named_databases())
            .max()
            .unwrap_or(0);
        watch
            .parts
            .resize(usize::from(databases) + 1, CommittedState::default());
        for db in 0..=databases {
            if let Some(part) = locals.iter_mut().find_map(|s| s.committed_part(db)) {
                watch.parts[usize::from(db)] = part;
            }
        }
        watch.committed = Rc::new(merge_parts(&watch.parts));
        let mut open = Vec::new();
        for (c, store) in locals.into_iter().enumerate() {
            let views: Vec<DatabaseView> =
                (0..=databases).map(|db| store.open_view_part(db)).collect();
            if views.iter().all(|v| matches!(v, DatabaseView::Committed)) {
                continue;
            }
            let written = views.iter().any(|v| matches!(v, DatabaseView::Written(_)));
            let databases = (0..=databases)
                .filter(|db| !matches!(views[usize::from(*db)], DatabaseView::Committed))
                .collect();
            let view = written.then(|| {
                let parts = views
                    .iter()
                    .zip(&watch.parts)
                    .map(|(v, committed)| match v {
                        DatabaseView::Written(part) => &**part,
                        _ => committed,
                    });
                merge_parts(parts)
            });
            open.push(OpenTransaction {
                consumer: c,
                event: self.consumers[c].delivery().map(|d| d.event),
                view,
                databases,
                unseen: false,
            });
        }
        watch.tell(entry, self.broker.messages(), open);
    }
}

/// What the consumers' database of `scenario` holds before the first step, read as the
/// checker reads it (for a scenario with its own schema: its setup's rows), for a narration
/// to start from. Nothing is committed in a database that cannot be opened.
pub fn initial_committed(scenario: &Scenario, events: &[Event]) -> CommittedState {
    if scenario.store.engine == crate::model::Engine::Postgres {
        return initial_on_postgres(scenario, events);
    }
    match Store::open_in_memory(&scenario.store, &[]) {
        Ok(mut store) => {
            store.set_sql_events(Rc::new(scenario.sql_events(events)));
            store.committed_state()
        }
        Err(_) => CommittedState::default(),
    }
}

/// On PostgreSQL: the database built afresh on the server, as a run starts, and read as
/// the checker reads.
#[cfg(feature = "postgres")]
fn initial_on_postgres(scenario: &Scenario, events: &[Event]) -> CommittedState {
    let sql_events = Rc::new(scenario.sql_events(events));
    let stores = crate::store::pg::open_run(&scenario.store, &[], scenario.seed, 1, sql_events);
    match stores.ok().and_then(|mut s| s.pop()) {
        Some(mut store) => crate::store::ConsumerDb::committed_state(&mut store),
        None => CommittedState::default(),
    }
}

/// A build without the engine opens no PostgreSQL database: nothing is committed.
#[cfg(not(feature = "postgres"))]
fn initial_on_postgres(_: &Scenario, _: &[Event]) -> CommittedState {
    CommittedState::default()
}
