//! What can be wrong in the scenario's `call` checks (`scenario::validate::call`): an
//! external call's form and service name, `check.effect`'s service, and the calls
//! boundary an expectation names.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// An external call (to `service`) with a `name`.
    Named { service: String },
    /// A step with both `sql` and `external`.
    SqlAndExternal,
    /// An external call with `key`, a key of a SQL step's flow (`into`, `when`, …).
    FlowKey { key: String },
    /// A service name a crash point could not write.
    InvalidService { service: String },
    /// A service named as a built-in step.
    BuiltInName { service: String },
    /// More distinct step names than the process can intern.
    TooManyNames,
    /// A SQL step named as a service the protocol calls.
    NameTaken { name: String },
    /// `check.effect.external` names `service`, which no step calls; `calls` are the
    /// services the protocol calls.
    EffectNotCalled { service: String, calls: Vec<String> },
    /// An expectation of the calls boundary, and no service is called besides the effect.
    NoCallsBoundary,
    /// An expectation of the calls boundary, and several `services` are called.
    ManyCallsBoundaries { services: Vec<String> },
}
