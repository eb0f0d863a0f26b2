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
//!   statement text's parameters.

pub mod checker;
mod counts;
pub mod det;
pub mod digest;
pub mod lexer;
mod lifecycle;
pub mod link;
mod park;
mod producer;
mod relay;
mod retention;
pub mod server;
pub mod session;
mod settle;
mod store;
mod wire;

pub use checker::PgChecker;
pub use store::{open_run, PgStore};

/// The engine and isolation level are the model's vocabulary (reports name them too).
pub use crate::model::{Engine, Isolation};

/// Whether this thread can reach PostgreSQL (the tool's own cluster, started now, or the
/// URL's server): the one-paragraph message of why not.
pub fn ready() -> Result<(), String> {
    session::worker().map(drop)
}
