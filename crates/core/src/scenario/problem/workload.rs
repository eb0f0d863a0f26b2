//! What can be wrong in the scenario's `protocol`, `workload` and `producer` sections
//! (`scenario::validate::workload`).

use crate::model::ProtocolError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Workload {
    /// A protocol name, as written, that is no built-in protocol.
    UnknownProtocol { name: String },
    /// A custom protocol with a blank name.
    NamelessProtocol,
    /// The steps are not a protocol.
    Protocol(ProtocolError),
    /// A step name, as written, that is no built-in step.
    UnknownStep { name: String },
    /// A step's `db`, as written, naming no database; `databases` are the scenario's
    /// own (`store.databases`), besides the main one.
    NoSuchDatabase {
        name: String,
        databases: Vec<String>,
    },
    /// More republishes than the bound.
    TooManyRepublishes { max: usize },
    /// More altered republishes than the bound.
    TooManyAlteredRepublishes { max: usize },
    /// An invalid event listed twice.
    InvalidTwice,
    /// An odd number of events with `lifecycle`.
    OddLifecycle { events: usize },
    /// An altered copy whose amount is past what a payload may carry.
    AlteredCopyTooLarge {
        altered: i128,
        largest: i128,
        max: i64,
    },
    /// Steps enough to take a balance past 64 bits.
    BalanceOverflow { max_steps: u64, largest: i128 },
    /// `lifecycle` with a producer process.
    LifecycleWithProducer,
    /// Altered copies with a producer process.
    AlteredWithProducer,
    /// A producer process's setting with the `direct` producer.
    DirectProducerSetting,
    /// More events minted under `per_attempt` than fit beside the workload's.
    IdentityBudget {
        budget: u64,
        room: u64,
        events: usize,
        all: u64,
    },
}
