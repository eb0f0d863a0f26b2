//! What can be wrong in the scenario's `flow` checks (`scenario::validate::flow`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {}
