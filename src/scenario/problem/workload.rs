//! What can be wrong in the scenario's `workload` checks (`scenario::validate::workload`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Workload {}
