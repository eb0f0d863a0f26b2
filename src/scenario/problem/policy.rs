//! What can be wrong in the scenario's `policy` checks (`scenario::validate::policy`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Policy {}
