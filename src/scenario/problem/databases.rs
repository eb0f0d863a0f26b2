//! What can be wrong in the scenario's `databases` checks (`scenario::validate::databases`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Databases {}
