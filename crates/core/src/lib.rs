//! The core of delivery-sim: everything a run needs, and nothing that words or shows one.
//! The crates keep the layers apart (issue 36, item 4): a core module cannot reach the
//! report or the command line however its path is written.
//!
//! [`model`] is the vocabulary (events, steps, protocols, guarantees, the typed trace);
//! [`sim`] the deterministic primitives (virtual time, the event queue, seeded randomness).
//! The sans-IO actors build on those two only: the [`broker`], the processes ([`consumer`],
//! [`producer`], [`relay`]) and the [`fault`] injector. None knows a database, the
//! scheduler or a reader's language. The [`store`] is the real database under them: SQLite
//! always, PostgreSQL with the feature `postgres`.
//!
//! Above them: a [`scenario`] (a file read and checked, or built in Rust), the [`world`]
//! that runs one (the scheduler and the one executor), the [`check`]er that judges it by
//! reading the committed database, [`explore`] (every crash schedule to a depth,
//! interleavings, sweeps, the matrix, shrinking) and the [`view`] of a run that every
//! renderer reads. Results are data; the report crate (`delivery-sim-report`) words them.

pub mod broker;
pub mod check;
pub mod consumer;
pub mod explore;
pub mod fault;
pub mod model;
pub mod producer;
pub mod relay;
pub mod scenario;
pub mod sim;
pub mod store;
pub mod view;
pub mod world;
