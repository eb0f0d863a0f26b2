//! What can be wrong in the scenario's `sql` checks (`scenario::validate::sql`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sql {}
