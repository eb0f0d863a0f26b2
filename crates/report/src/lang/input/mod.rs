//! The words of an input error: a scenario's [`Problem`] and where it is, in English and
//! in Spanish. [`scenario_error`] words one in the reader's language; the core's error
//! types have no `Display` (their words are chosen here, at the edge).

mod arguments;
mod broker;
mod call;
mod databases;
mod faults;
mod flow;
mod points;
mod policy;
#[cfg(test)]
#[path = "tests/policy.rs"]
mod policy_refusals;
mod read;
mod refusal;
#[cfg(test)]
#[path = "tests/scenario.rs"]
mod scenario_tests;
mod serde_es;
mod setting;
mod sql;
mod store;
mod usage;
mod value;
mod workload;

pub use arguments::argument_error;
pub(crate) use points::{point_en, unreached_en};
pub use usage::{input_error, token, usage};

use super::Lang;
use crate::scenario::problem::Problem;
use crate::scenario::ScenarioError;
use std::fmt;

/// `e` as one line in `lang`: the file, where in it, and what is wrong.
pub fn scenario_error(e: &ScenarioError, lang: Lang) -> String {
    let mut out = String::new();
    let origin = OneLine(&e.origin);
    out += &match lang {
        Lang::En => format!("invalid scenario {origin}"),
        Lang::Es => format!("escenario no válido {origin}"),
    };
    if let Some((line, column)) = e.location {
        out += &match lang {
            Lang::En => format!(" at line {line}, column {column}"),
            Lang::Es => format!(" en la línea {line}, columna {column}"),
        };
    }
    if let Some(field) = e.field.as_deref().filter(|f| !f.is_empty() && *f != ".") {
        let field = OneLine(field);
        out += &match lang {
            Lang::En => format!(", field `{field}`"),
            Lang::Es => format!(", campo `{field}`"),
        };
    }
    out + &format!(": {}", OneLine(&problem(&e.problem, lang)))
}

/// What is wrong, in `lang`.
pub fn problem(p: &Problem, lang: Lang) -> String {
    match p {
        Problem::Read(p) => read::words(p, lang),
        Problem::Value(p) => value::words(p, lang),
        Problem::Setting(p) => setting::words(p, lang),
        Problem::Workload(p) => workload::words(p, lang),
        Problem::Sql(p) => sql::words(p, lang),
        Problem::Faults(p) => faults::words(p, lang),
        Problem::Flow(p) => flow::words(p, lang),
        Problem::Databases(p) => databases::words(p, lang),
        Problem::Policy(p) => policy::words(p, lang),
        Problem::Broker(p) => broker::words(p, lang),
        Problem::Call(p) => call::words(p, lang),
        Problem::Store(p) => store::words(p, lang),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_from_the_file_are_escaped_so_the_error_stays_one_line() {
        let e = ScenarioError {
            origin: "a\nb.json".into(),
            location: Some((3, 16)),
            field: Some("descriptio\n".into()),
            problem: Box::new(
                crate::scenario::problem::Read::Json {
                    message: "unknown field `descriptio\n`, or \u{1b}[31mred\u{1b}[0m".into(),
                    renamed: false,
                }
                .into(),
            ),
        };
        assert_eq!(
            scenario_error(&e, Lang::En),
            "invalid scenario a\\nb.json at line 3, column 16, field `descriptio\\n`: unknown \
             field `descriptio\\n`, or \\u{1b}[31mred\\u{1b}[0m"
        );
    }
}
