//! delivery-sim: a deterministic, seeded fault-injection simulator for message-delivery
//! semantics.
//!
//! A broker, a consumer and a real SQLite store are state machines driven by one scheduler
//! on virtual time. The simulator crashes the consumer at every step boundary and checks,
//! by counting committed effects per event, which protocols lose events (at-most-once),
//! which duplicate them (at-least-once), and which give one effect per event (effectively
//! once: an insert-first inbox in the same transaction as the effect, acked after commit).
//!
//! This is the library a Rust user's tests depend on: it has no command line and no server
//! (those are the `delivery-sim` binary's, crate `delivery-sim-cli`). Layers, from the core
//! outwards (each depends only on those before it): [`model`] and [`sim`] (vocabulary,
//! queue, randomness, trace); the actors [`broker`], [`consumer`], [`store`] and the
//! [`fault`] injector; [`scenario`]; [`check`]; [`world`] (one run); [`explore`]; [`view`]:
//! these are the crate `delivery-sim-core`. Then [`crosscheck`] (the simulation against a
//! real process, crate `delivery-sim-crosscheck`) and [`report`] (every wording and
//! rendering, crate `delivery-sim-report`). This crate re-exports them all under the same
//! paths, and adds [`testing`]: checks for your own tests, whose counterexamples are worded
//! (which is why it sits above the report, not in the core).

pub mod testing;

// The other crates' layers, under the paths they always had.
pub use delivery_sim_core::{
    broker, check, consumer, explore, fault, model, producer, relay, scenario, sim, store, view,
    world,
};
pub use delivery_sim_crosscheck as crosscheck;
pub use delivery_sim_report as report;

pub use model::handler;
pub use model::{Guarantee, Protocol, Scope, Step};
pub use scenario::Scenario;
pub use world::{run, run_scheduled, run_with, RunOptions, RunResult};
