//! What can be wrong in the scenario's `call` checks (`scenario::validate::call`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {}
