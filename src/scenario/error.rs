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

/// `text` with its control characters escaped (`\n`, `\u{1b}`): a key or a value quoted
/// from the file may contain them, and the error must stay one line and must not drive the
/// terminal.
struct OneLine<'a>(&'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid scenario {}", OneLine(&self.origin))?;
        if let Some((line, column)) = self.location {
            write!(f, " at line {line}, column {column}")?;
        }
        if let Some(field) = &self.field {
            if !field.is_empty() && field != "." {
                write!(f, ", field `{}`", OneLine(field))?;
            }
        }
        write!(f, ": {}", OneLine(&self.message))
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_from_the_file_are_escaped_so_the_error_stays_one_line() {
        let e = ScenarioError {
            origin: "a\nb.json".into(),
            location: Some((3, 16)),
            field: Some("descriptio\n".into()),
            message: "unknown field `descriptio\n`, or \u{1b}[31mred\u{1b}[0m".into(),
        };
        assert_eq!(
            e.to_string(),
            "invalid scenario a\\nb.json at line 3, column 16, field `descriptio\\n`: unknown \
             field `descriptio\\n`, or \\u{1b}[31mred\\u{1b}[0m"
        );
    }
}
