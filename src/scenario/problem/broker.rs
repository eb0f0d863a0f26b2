//! What can be wrong in the scenario's `broker` checks (`scenario::validate::broker`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broker {}
