//! The deterministic machinery every run stands on: the scheduler's event queue on virtual
//! time, the seeded random streams, and the trace with its hash.
//!
//! Nothing here knows what a broker or a consumer is; the scheduler (`world`, in the root
//! crate) wires the actors to this machinery. Nothing here reads a clock, spawns a thread
//! or iterates a hash map: a run is a pure function of its scenario and seed.

pub mod fingerprint;
pub mod queue;
pub(crate) mod rng;
pub(crate) mod trace;

pub use fingerprint::{Digest, Fingerprint, StateHasher};
pub use queue::EventQueue;
pub use rng::{SimRng, Stream};
pub use trace::{Actor, Trace, TraceEntry};

/// Why the run stopped.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Nothing left to do: every consumer waits and no timer is pending.
    Quiescent,
    /// `limits.max_steps` was reached.
    StepLimit,
    /// `limits.max_ticks` was reached.
    TickLimit,
    /// The trace reached `scenario::bounds::MAX_TRACE_ENTRIES` entries (a memory bound for
    /// runs whose step limit alone would allow a huge trace).
    TraceLimit,
    /// The scenario's statements took `scenario::bounds::MAX_RUN_SQL_VM_STEPS` SQLite
    /// virtual-machine steps in all (a time bound for a statement that runs to its own
    /// budget at every delivery).
    SqlLimit,
}
