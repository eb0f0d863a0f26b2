//! A scenario's named databases (`store.databases`) as narration reads them: each is a
//! database of its own, with its own transactions, so what is committed and what an open
//! transaction has written are read per database. A connection is read only where the
//! read cannot change the run: outside a transaction, or inside one that has written
//! (a read in a transaction that has not written yet would give it its snapshot early; see
//! [`Store::open_transaction_view`]).

use super::*;

/// What one of a connection's databases shows a narration.
#[derive(Clone, Debug)]
pub enum DatabaseView {
    /// No transaction is open on it: it sees the committed rows (not read here; the
    /// committed state has them).
    Committed,
    /// A transaction is open and has written nothing yet: not read.
    OpenUnwritten,
    /// A transaction is open and has written: the committed rows plus its own writes.
    Written(Box<CommittedState>),
}

impl Store {
    /// How many named databases the store has connections to.
    pub fn named_databases(&self) -> u8 {
        self.others.len() as u8
    }

    /// Database `db`'s part of the committed state (see [`Store::committed_snapshot`]),
    /// read through this connection, or `None` while it has a transaction open there.
    pub fn committed_part(&mut self, db: u8) -> Option<CommittedState> {
        if !self.conn_at(db).is_autocommit() {
            return None;
        }
        Some(self.read_part(db))
    }

    /// What this connection's transaction on database `db` shows (see [`DatabaseView`]).
    pub fn open_view_part(&mut self, db: u8) -> DatabaseView {
        if self.conn_at(db).is_autocommit() {
            return DatabaseView::Committed;
        }
        let wrote = match usize::from(db).checked_sub(1) {
            None => self.wrote_in_transaction,
            Some(k) => self.others_wrote[k],
        };
        if !wrote {
            return DatabaseView::OpenUnwritten;
        }
        DatabaseView::Written(Box::new(self.read_part(db)))
    }

    fn read_part(&mut self, db: u8) -> CommittedState {
        let log = self.log.take();
        let mut state = CommittedState::default();
        self.read_custom_on(Some(db), &mut state);
        self.log = log;
        state
    }
}

/// The parts of database `0..` merged into one state, in database order.
pub fn merge_parts<'a>(parts: impl IntoIterator<Item = &'a CommittedState>) -> CommittedState {
    let mut state = CommittedState::default();
    for part in parts {
        state.custom |= part.custom;
        state.tables.extend(part.tables.clone());
        state.effects.extend(part.effects.clone());
        state.invariants.extend(part.invariants.iter().cloned());
    }
    state
}
