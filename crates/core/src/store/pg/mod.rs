//! PostgreSQL as a second real engine (`store.engine: "postgres"`): a scenario's own schema
//! and SQL steps, written in PostgreSQL's dialect, run on a real server at the isolation
//! level the scenario names, one backend per consumer.
//!
//! - [`wire`]: where the server is, a connection, one simple query and its answer.
//! - [`server`]: the server (a throwaway cluster the tool starts, or a URL) and its scratch
//!   databases.
//! - [`session`]: a run's connections, each statement settled before the next (answered,
//!   or blocked on another transaction's lock as PostgreSQL says), deadlocks resolved, a
//!   crash a terminated backend; [`settle`]: waiting for the server to be quiescent after
//!   a statement; [`link`]: a connection held by another process (crosscheck's).
//! - [`store`]: [`PgStore`], a consumer's connection as the world's executor sees it
//!   ([`super::ConsumerDb`]), with the built-in protocols' ledger and the handler's
//!   statements on it (`store::ledger`, `store::handler`).
//! - [`checker`]: the load-time check, each statement prepared by PostgreSQL.
//! - [`digest`]: the run's state fingerprinted for exploration's pruning.
//! - [`det`] and [`lexer`]: the clock, random numbers and UUIDs made the run's, and the
//!   statement text's parameters; `statement`: what a statement's text says before it
//!   runs; `budget`: how many connections a process may hold.
//!
//! Only those four are compiled without the feature `postgres` (SQLite's statements are
//! read with the same lexer); the rest is the engine, and needs the feature.

#[cfg(not(feature = "postgres"))]
mod absent;
#[cfg(not(feature = "postgres"))]
pub use absent::{ready, PgChecker};
pub(crate) mod budget;
#[cfg(feature = "postgres")]
pub(crate) mod checker;
#[cfg(feature = "postgres")]
mod counts;
pub mod det;
#[cfg(feature = "postgres")]
pub(crate) mod digest;
pub mod lexer;
#[cfg(feature = "postgres")]
mod lifecycle;
#[cfg(feature = "postgres")]
pub mod link;
#[cfg(feature = "postgres")]
mod park;
#[cfg(feature = "postgres")]
mod producer;
#[cfg(feature = "postgres")]
mod relay;
#[cfg(feature = "postgres")]
mod retention;
#[cfg(feature = "postgres")]
pub mod server;
#[cfg(feature = "postgres")]
pub mod session;
#[cfg(feature = "postgres")]
mod settle;
pub(crate) mod statement;
#[cfg(feature = "postgres")]
mod store;
#[cfg(feature = "postgres")]
mod wire;

#[cfg(feature = "postgres")]
pub use checker::PgChecker;
#[cfg(feature = "postgres")]
pub use store::{open_run, PgStore};

/// The engine and isolation level are the model's vocabulary (reports name them too).
pub use crate::model::{Engine, Isolation};

#[cfg(feature = "postgres")]
/// Whether this thread can reach PostgreSQL (the tool's own cluster, started now, or the
/// URL's server): the one-paragraph message of why not.
pub fn ready() -> Result<(), String> {
    session::worker().map(drop)
}
