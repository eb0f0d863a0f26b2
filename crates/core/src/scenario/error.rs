//! The one error a scenario can have: where it is (file, line and column when the JSON
//! parser knows them, the field path otherwise) and what is wrong, as a typed
//! [`Problem`]. `report::lang::input::scenario_error` words it in the reader's language,
//! at the command line's edge; its `Display` here is only the data (where, and the problem
//! as Rust prints it), so that a Rust caller can pass it on with `?`.

use super::problem::Problem;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file, or `<inline>` for a scenario given as a string.
    pub origin: String,
    /// Line and column (1-based) when the parser reported them.
    pub location: Option<(usize, usize)>,
    /// The field path, e.g. `faults.crash[0].at`, when the error is about one field.
    pub field: Option<String>,
    /// Boxed: a `Result` carrying it stays small on the happy path.
    pub problem: Box<Problem>,
}

impl ScenarioError {
    pub fn field(origin: &str, field: impl Into<String>, problem: impl Into<Problem>) -> Self {
        ScenarioError {
            origin: origin.to_string(),
            location: None,
            field: Some(field.into()),
            problem: Box::new(problem.into()),
        }
    }

    pub fn whole(origin: &str, problem: impl Into<Problem>) -> Self {
        ScenarioError {
            origin: origin.to_string(),
            location: None,
            field: None,
            problem: Box::new(problem.into()),
        }
    }
}

/// `file:line:column: field: Problem` with the parts that are known: the data, not a
/// sentence (the sentences are `report::lang`'s, in either language).
impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some((line, column)) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {:?}", self.problem)
    }
}

impl std::error::Error for ScenarioError {}
