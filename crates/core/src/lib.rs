//! The core of delivery-sim, moved here from the root crate one layer at a time (issue
//! 36, item 4): the crates keep the layers apart, so a core module cannot reach the report
//! or the command line however its path is written.
//!
//! [`model`] is the vocabulary (events, steps, protocols, guarantees, the typed trace);
//! [`sim`] the deterministic primitives (virtual time, the event queue, seeded randomness).
//! The sans-IO actors build on those two only: the [`broker`], the processes ([`consumer`],
//! [`producer`], [`relay`]) and the [`fault`] injector. None knows a database, the
//! scheduler or a reader's language. The [`store`] is the real database under them: SQLite
//! always, PostgreSQL with the feature `postgres`.

pub mod broker;
pub mod consumer;
pub mod fault;
pub mod model;
pub mod producer;
pub mod relay;
pub mod sim;
pub mod store;
