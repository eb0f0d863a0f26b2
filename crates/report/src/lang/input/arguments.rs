//! The words of an [`ArgumentError`]: a command line the parser refused, with the
//! suggestion and the usage line clap found.

use super::Lang;
use crate::arguments::{ArgumentError, ArgumentFault};

/// `e` as the lines printed after `error: `.
pub fn argument_error(e: &ArgumentError, lang: Lang) -> String {
    let mut out = fault(&e.fault, lang);
    let quoted: Vec<String> = e.suggested.iter().map(|s| format!("'{s}'")).collect();
    out += &match (quoted.as_slice(), lang) {
        ([], _) => String::new(),
        ([one], Lang::En) => format!("\n\n  tip: a similar one exists: {one}"),
        ([one], Lang::Es) => format!("\n\n  sugerencia: existe uno parecido: {one}"),
        (many, Lang::En) => format!("\n\n  tip: some similar ones exist: {}", many.join(", ")),
        (many, Lang::Es) => format!("\n\n  sugerencia: hay parecidos: {}", many.join(", ")),
    };
    if let Some(usage) = &e.usage {
        out += &match lang {
            Lang::En => format!("\n\nUsage: {usage}"),
            Lang::Es => format!("\n\nUso: {usage}"),
        };
    }
    out + match lang {
        Lang::En => "\n\nFor more information, try '--help'.",
        Lang::Es => "\n\nPara más información, probá '--help' (la ayuda está en inglés).",
    }
}

fn fault(f: &ArgumentFault, lang: Lang) -> String {
    use ArgumentFault as F;
    match (f, lang) {
        (F::UnknownArgument { arg }, Lang::En) => format!("unexpected argument '{arg}' found"),
        (F::UnknownArgument { arg }, Lang::Es) => format!("argumento inesperado '{arg}'"),
        (F::MissingValue { arg }, Lang::En) => {
            format!("a value is required for '{arg}' but none was supplied")
        }
        (F::MissingValue { arg }, Lang::Es) => {
            format!("'{arg}' necesita un valor y no se dio ninguno")
        }
        (F::InvalidValue { arg, value, valid }, _) => invalid(arg, value, valid, lang),
        (F::Unparsed { arg, value, reason }, Lang::En) => {
            format!("invalid value '{value}' for '{arg}': {reason}")
        }
        (F::Unparsed { arg, value, reason }, Lang::Es) => {
            format!("valor no válido '{value}' para '{arg}': «{reason}»")
        }
        (F::MissingRequired { args }, Lang::En) => format!(
            "the following required arguments were not provided:{}",
            listed(args)
        ),
        (F::MissingRequired { args }, Lang::Es) => {
            format!("faltan estos argumentos obligatorios:{}", listed(args))
        }
        (F::Conflict { arg, with }, Lang::En) => {
            format!("the argument '{arg}' cannot be used with{}", others(with))
        }
        (F::Conflict { arg, with }, Lang::Es) => {
            format!("el argumento '{arg}' no se puede usar con{}", others(with))
        }
        (F::Repeated { arg }, Lang::En) => {
            format!("the argument '{arg}' cannot be used multiple times")
        }
        (F::Repeated { arg }, Lang::Es) => {
            format!("el argumento '{arg}' no se puede dar más de una vez")
        }
        (F::UnknownCommand { name }, Lang::En) => format!("unrecognized subcommand '{name}'"),
        (F::UnknownCommand { name }, Lang::Es) => format!("comando desconocido '{name}'"),
        (F::MissingCommand { name, valid }, Lang::En) => format!(
            "'{name}' requires a subcommand but one was not provided{}",
            values("subcommands", valid)
        ),
        (F::MissingCommand { name, valid }, Lang::Es) => format!(
            "'{name}' necesita un comando y no se dio ninguno{}",
            values("comandos", valid)
        ),
        (F::ExtraValue { arg, value }, Lang::En) => {
            format!("unexpected value '{value}' for '{arg}' found; no more were expected")
        }
        (F::ExtraValue { arg, value }, Lang::Es) => {
            format!("valor de más '{value}' para '{arg}'; no se esperaban más")
        }
        (F::Other { said }, Lang::En) => said.clone(),
        (F::Other { said }, Lang::Es) => format!("el lector de argumentos dice: «{said}»"),
    }
}

/// A value not among the possible ones (or none given).
fn invalid(arg: &str, value: &str, valid: &[String], lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "invalid value '{value}' for '{arg}'{}",
            values("possible values", valid)
        ),
        Lang::Es => format!(
            "valor no válido '{value}' para '{arg}'{}",
            values("valores posibles", valid)
        ),
    }
}

/// `\n  [name: a, b]`, or nothing for no values.
fn values(name: &str, valid: &[String]) -> String {
    match valid.is_empty() {
        true => String::new(),
        false => format!("\n  [{name}: {}]", valid.join(", ")),
    }
}

/// Each argument on its own indented line.
fn listed(args: &[String]) -> String {
    args.iter().map(|a| format!("\n  {a}")).collect()
}

/// The arguments a flag conflicts with: one quoted, several listed.
fn others(with: &[String]) -> String {
    match with {
        [one] => format!(" '{one}'"),
        many => format!(":{}", listed(many)),
    }
}
