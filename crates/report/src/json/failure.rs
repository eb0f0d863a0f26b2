//! Failed expectations as every JSON document writes them: the checker's typed data, and
//! the English sentence `run` prints for each.

use crate::check::ExpectationFailure;
use crate::lang::Lang;
use serde::Serialize;

/// One failed expectation: the checker's data (`failed` names the kind; `field`, `want`,
/// `got`, … what it compared), and `message`, the sentence `run` prints for it in English
/// (`--lang es` words the text reports; JSON keeps one language for its logs).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FailureJson {
    #[serde(flatten)]
    pub failure: ExpectationFailure,
    pub message: String,
}

/// The failures as JSON writes them.
pub fn failures_json(failures: &[ExpectationFailure]) -> Vec<FailureJson> {
    failures
        .iter()
        .map(|f| FailureJson {
            failure: f.clone(),
            message: Lang::En.expectation_failure(f),
        })
        .collect()
}

/// Serializes a list of failures as [`failures_json`] (for `#[serde(serialize_with)]`).
pub fn serialize_failures<S: serde::Serializer>(
    failures: &[ExpectationFailure],
    s: S,
) -> Result<S::Ok, S::Error> {
    failures_json(failures).serialize(s)
}
