//! What is wrong with a scenario, as data: the checker says which rule a value broke and
//! with which numbers and names, and `report::lang::input` words it in the reader's
//! language. Nothing here is a sentence; a `String` in a problem is a name or a text
//! quoted from the file (a key, a step, SQL) or an engine's own message.
//!
//! The problems are grouped as the checker is: one enum per part of the format, in its own
//! file, so that a rule and its wording are found by the same name on both sides.

mod broker;
mod call;
mod databases;
mod faults;
mod flow;
mod policy;
mod read;
mod setting;
mod sql;
mod store;
mod value;
mod workload;

pub use broker::Broker;
pub use call::Call;
pub use databases::Databases;
pub use faults::Faults;
pub use flow::Flow;
pub use policy::Policy;
pub use read::{Read, Shape};
pub use setting::Setting;
pub use sql::Sql;
pub use store::Store;
pub use value::{Consequence, Value};
pub use workload::Workload;

/// One thing wrong with a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The file could not be read, or is not the format's JSON.
    Read(Read),
    /// A value out of its bounds, or naming what does not exist.
    Value(Value),
    /// A setting that means nothing in the rest of the scenario.
    Setting(Setting),
    Workload(Workload),
    Sql(Sql),
    Faults(Faults),
    Flow(Flow),
    Databases(Databases),
    Policy(Policy),
    Broker(Broker),
    Call(Call),
    Store(Store),
}

macro_rules! part {
    ($($part:ident),*) => {$(
        impl From<$part> for Problem {
            fn from(p: $part) -> Problem {
                Problem::$part(p)
            }
        }
    )*};
}
part!(Read, Value, Setting, Workload, Sql, Faults, Flow, Databases, Policy, Broker, Call, Store);
