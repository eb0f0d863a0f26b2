//! What can be wrong in the scenario's `store` checks (`scenario::validate::store`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Store {}
