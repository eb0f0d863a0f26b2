//! What can be wrong in the scenario's `faults` checks (`scenario::validate::faults`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Faults {}
