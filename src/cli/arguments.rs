//! A command line clap refused, in the reader's language: clap's own English rendering
//! where the reader reads English, else its error's kind and context taken out as an
//! [`ArgumentError`] and worded by `report::lang::input`. Help and version are clap's,
//! in English, whatever the language.

use crate::report::arguments::{ArgumentError, ArgumentFault};
use crate::report::lang::{input, Lang};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;
use std::process::ExitCode;

/// Ends the command for clap's `e`: help and version as clap prints them; an error in
/// `lang` (the `--lang` the arguments give, else the environment's) with exit code 2.
pub(super) fn refuse(e: clap::Error, args: &[OsString]) -> ExitCode {
    let lang = wanted(args, |name| std::env::var(name).ok());
    let shown_by_clap = matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if shown_by_clap || lang == Lang::En {
        e.exit()
    }
    eprintln!("error: {}", input::argument_error(&taken_out(&e), lang));
    ExitCode::from(2)
}

/// The language the raw arguments ask for (`--lang es`, `--lang=es`), else the
/// environment's: the arguments did not parse, so clap cannot say.
fn wanted(args: &[OsString], var: impl Fn(&str) -> Option<String>) -> Lang {
    let mut asked = None;
    for (i, a) in args.iter().enumerate() {
        let a = a.to_string_lossy();
        let value = match a.strip_prefix("--lang=") {
            Some(v) => Some(v.to_string()),
            None if a == "--lang" => args.get(i + 1).map(|v| v.to_string_lossy().into_owned()),
            None => None,
        };
        match value.as_deref() {
            Some("es") => asked = Some(Lang::Es),
            Some("en") => asked = Some(Lang::En),
            _ => {}
        }
    }
    asked.unwrap_or_else(|| Lang::from_env(var))
}

/// The kind and context of clap's error, as data.
fn taken_out(e: &clap::Error) -> ArgumentError {
    let one = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => v.first().cloned(),
        _ => None,
    };
    let many = |kind| match e.get(kind) {
        Some(ContextValue::Strings(v)) => v.clone(),
        Some(ContextValue::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    let arg = || one(ContextKind::InvalidArg).unwrap_or_default();
    let value = || one(ContextKind::InvalidValue).unwrap_or_default();
    let fault = match e.kind() {
        ErrorKind::UnknownArgument => ArgumentFault::UnknownArgument { arg: arg() },
        ErrorKind::InvalidValue if value().is_empty() => ArgumentFault::MissingValue { arg: arg() },
        ErrorKind::InvalidValue => ArgumentFault::InvalidValue {
            arg: arg(),
            value: value(),
            valid: many(ContextKind::ValidValue),
        },
        ErrorKind::ValueValidation => ArgumentFault::Unparsed {
            arg: arg(),
            value: value(),
            reason: std::error::Error::source(e).map_or_else(String::new, |s| s.to_string()),
        },
        ErrorKind::MissingRequiredArgument => ArgumentFault::MissingRequired {
            args: many(ContextKind::InvalidArg),
        },
        ErrorKind::ArgumentConflict => conflict(arg(), many(ContextKind::PriorArg)),
        ErrorKind::InvalidSubcommand => ArgumentFault::UnknownCommand {
            name: one(ContextKind::InvalidSubcommand).unwrap_or_default(),
        },
        ErrorKind::MissingSubcommand => ArgumentFault::MissingCommand {
            name: one(ContextKind::InvalidSubcommand).unwrap_or_default(),
            valid: many(ContextKind::ValidSubcommand),
        },
        ErrorKind::TooManyValues => ArgumentFault::ExtraValue {
            arg: arg(),
            value: value(),
        },
        _ => ArgumentFault::Other {
            said: clap_words(e),
        },
    };
    let suggested = [
        ContextKind::SuggestedArg,
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedValue,
    ]
    .into_iter()
    .flat_map(many)
    .collect();
    let usage = match e.get(ContextKind::Usage) {
        Some(ContextValue::StyledStr(u)) => {
            let u = u.to_string();
            Some(u.strip_prefix("Usage: ").unwrap_or(&u).to_string())
        }
        _ => None,
    };
    ArgumentError {
        fault,
        suggested,
        usage,
    }
}

/// A conflict: with other flags, or with itself (given twice).
fn conflict(arg: String, prior: Vec<String>) -> ArgumentFault {
    match prior.as_slice() {
        [one] if *one == arg => ArgumentFault::Repeated { arg },
        _ => ArgumentFault::Conflict { arg, with: prior },
    }
}

/// clap's own first line, without its `error: ` lead.
fn clap_words(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_language_is_the_last_lang_flag_else_the_environment() {
        let none = |_: &str| None;
        let spanish = |_: &str| Some("es_AR.UTF-8".to_string());
        assert_eq!(wanted(&os(&["run", "--lang", "es"]), none), Lang::Es);
        assert_eq!(
            wanted(&os(&["run", "--lang=es", "--lang", "en"]), none),
            Lang::En
        );
        assert_eq!(wanted(&os(&["run", "--bogus"]), spanish), Lang::Es);
        assert_eq!(wanted(&os(&["run", "--lang", "xx"]), none), Lang::En);
    }

    #[test]
    fn clap_context_is_taken_out_as_data_and_worded_in_spanish() {
        use clap::CommandFactory;
        let refused = |args: &[&str]| {
            let e = super::super::Cli::command()
                .try_get_matches_from(args)
                .unwrap_err();
            input::argument_error(&taken_out(&e), Lang::Es)
        };
        let unknown = refused(&["delivery-sim", "run", "x.json", "--bogus"]);
        assert!(
            unknown.starts_with("argumento inesperado '--bogus'"),
            "{unknown}"
        );
        assert!(unknown.contains("\n\nUso: delivery-sim run"), "{unknown}");
        let value = refused(&["delivery-sim", "run", "x.json", "--lang", "fr"]);
        assert!(
            value.starts_with("valor no válido 'fr' para '--lang <LANG>'")
                && value.contains("[valores posibles: en, es]"),
            "{value}"
        );
        let typo = refused(&["delivery-sim", "explor"]);
        assert!(typo.starts_with("comando desconocido 'explor'"), "{typo}");
        assert!(
            typo.contains("hay parecidos: 'explain', 'explore'"),
            "{typo}"
        );
    }
}
