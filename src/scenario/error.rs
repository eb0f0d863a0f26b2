//! The one error a scenario can have: where it is (file, line and column when the JSON
//! parser knows them, the field path otherwise) and what is wrong, in one paragraph.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file, or `<inline>` for a scenario given as a string.
    pub origin: String,
    /// Line and column (1-based) when the parser reported them.
    pub location: Option<(usize, usize)>,
    /// The field path, e.g. `faults.crash[0].at`, when the error is about one field.
    pub field: Option<String>,
    pub message: String,
}

impl ScenarioError {
    pub fn field(origin: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            origin: origin.to_string(),
            location: None,
            field: Some(field.into()),
            message: message.into(),
        }
    }

    pub fn whole(origin: &str, message: impl Into<String>) -> Self {
        ScenarioError {
            origin: origin.to_string(),
            location: None,
            field: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid scenario {}", self.origin)?;
        if let Some((line, column)) = self.location {
            write!(f, " at line {line}, column {column}")?;
        }
        if let Some(field) = &self.field {
            if !field.is_empty() && field != "." {
                write!(f, ", field `{field}`")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}
