//! What a command refuses as input, as data: a scenario's problem, a flag or a path the
//! command line gave, a replay token, or a check a file pins that is refused as the
//! command it stands for. `lang::input` words each in the reader's language; `Display` is
//! the English, for JSON, JUnit and a library caller.
//!
//! The command line builds these and the reports render them; they live here, below both,
//! so that a folder's report can keep a file's refusal typed until it is printed.

mod usage;

pub use usage::*;

use crate::scenario::token::TokenError;
use crate::scenario::ScenarioError;

/// An error that ends a command with exit code 2, or marks one file of a folder as bad
/// input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    Scenario(ScenarioError),
    /// Boxed: a `Result` carrying it stays small on the happy path.
    Usage(Box<Usage>),
    Token(TokenError),
    /// A check the file at `path` pins is refused.
    Pinned {
        path: String,
        refused: Refused,
    },
}

/// A check a file's `expect` pins (`field`) stands for `command`, which is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub field: &'static str,
    pub command: String,
    pub refusal: Box<InputError>,
}

impl From<ScenarioError> for InputError {
    fn from(e: ScenarioError) -> InputError {
        InputError::Scenario(e)
    }
}

impl From<TokenError> for InputError {
    fn from(e: TokenError) -> InputError {
        InputError::Token(e)
    }
}

impl From<Usage> for InputError {
    fn from(u: Usage) -> InputError {
        InputError::Usage(Box::new(u))
    }
}

impl std::error::Error for InputError {}

impl InputError {
    /// A refused command line.
    pub fn usage(u: impl Into<Usage>) -> InputError {
        InputError::Usage(Box::new(u.into()))
    }
}
