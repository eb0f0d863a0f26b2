//! The words of a refused command line ([`Usage`]), of a replay token that cannot be
//! replayed ([`TokenError`]), and of any [`InputError`]. The English is what the command
//! line has always printed; the Spanish says the same in whole sentences, flags, commands,
//! fields, paths and names as they are. A refused flag's reasons are in [`flags`], a crash
//! point's and `crosscheck`'s in [`crash`], the bounds a command would go over in
//! [`budget`], and the paths, files and ports in [`paths`].

mod budget;
mod crash;
mod flags;
mod paths;

use super::Lang;
use crate::input::{ChoiceSource, Form, InputError, Refused, Usage};
use crate::scenario::token::{Damage, TokenError};
use std::fmt;

/// `e` in `lang`, as one paragraph.
pub fn input_error(e: &InputError, lang: Lang) -> String {
    match e {
        InputError::Scenario(e) => super::scenario_error(e, lang),
        InputError::Usage(u) => usage(u, lang),
        InputError::Token(t) => token(t, lang),
        InputError::Pinned { path, refused } => {
            let Refused {
                field,
                command,
                refusal,
            } = refused;
            let refusal = input_error(refusal, lang);
            match lang {
                Lang::En => format!(
                    "invalid scenario {path}, field `{field}`: it asks for `{command}`, which \
                     is refused: {refusal}"
                ),
                Lang::Es => format!(
                    "escenario no válido {path}, campo `{field}`: pide `{command}`, que se \
                     rechaza: {refusal}"
                ),
            }
        }
    }
}

/// A refused command line, in `lang`.
pub fn usage(u: &Usage, lang: Lang) -> String {
    match u {
        Usage::OutOfRange {
            flag,
            value,
            min,
            max,
        } => match lang {
            Lang::En => format!("{flag}: {value} is out of range; allowed: {min} to {max}"),
            Lang::Es => format!("{flag}: {value} está fuera de rango; se admite de {min} a {max}"),
        },
        Usage::Unparsed { flag, text, form } => format!("{flag}: {}", unparsed(text, *form, lang)),
        Usage::FlagRefused { flag, why } => format!("{flag}: {}", flags::why(why, lang)),
        Usage::FolderRefuses { flag, folder, why } => flags::folder(flag, folder, *why, lang),
        Usage::Crash { flag, why } => format!("{flag}: {}", crash::why(why, lang)),
        Usage::Budget(b) => budget::words(b, lang),
        Usage::Engine(e) => flags::engine(e, lang),
        Usage::IsAFolder { path, command } => paths::is_a_folder(path, *command, lang),
        Usage::NoSuchPath { path } => paths::no_such_path(path, lang),
        Usage::EmptyFolder { path } => paths::empty_folder(path, lang),
        Usage::CannotReadFolder { path, io } => paths::cannot_read_folder(path, io, lang),
        Usage::CannotWrite {
            flag,
            path,
            act,
            io,
        } => paths::cannot_write(flag, path.as_deref(), *act, io, lang),
        Usage::CannotWriteStdout { io } => paths::cannot_write_stdout(io, lang),
        Usage::CannotListen { port, io } => paths::cannot_listen(*port, io, lang),
        Usage::OutForAFolder { path, command } => paths::out_for_a_folder(path, command, lang),
        Usage::UnknownProtocol { name, known } => match lang {
            Lang::En => {
                format!("--protocol: unknown protocol `{name}`; the built-in protocols are {known}")
            }
            Lang::Es => format!(
                "--protocol: no hay ningún protocolo `{name}`; los protocolos incluidos son \
                 {known}"
            ),
        },
        Usage::NoSuchChoice {
            source,
            choice,
            alternatives,
        } => no_such_choice(*source, *choice, *alternatives, lang),
        Usage::CrosscheckUnfit { name, why } => crash::crosscheck_unfit(name, *why, lang),
        Usage::NoOwnBinary { io } => paths::no_own_binary(io, lang),
    }
}

/// Why `text` is not written as `form`.
fn unparsed(text: &str, form: Form, lang: Lang) -> String {
    match (form, lang) {
        (Form::Choices, Lang::En) => {
            format!("`{text}` is not a list of choices; write e.g. 0,1,1")
        }
        (Form::Choices, Lang::Es) => {
            format!("`{text}` no es una lista de elecciones; escribila, por ejemplo, así: 0,1,1")
        }
        (Form::SeedRange, Lang::En) => {
            format!("`{text}` is not a range; write A..B with A < B (B excluded), e.g. 0..1000")
        }
        (Form::SeedRange, Lang::Es) => format!(
            "`{text}` no es un rango; escribilo como A..B con A < B (B queda afuera), por \
             ejemplo 0..1000"
        ),
    }
}

/// A scheduling choice past its decision's alternatives.
fn no_such_choice(source: ChoiceSource, choice: u32, alternatives: u32, lang: Lang) -> String {
    match (source, lang) {
        (ChoiceSource::Schedule, Lang::En) => {
            format!("--schedule: choice {choice} at a decision with {alternatives} alternatives")
        }
        (ChoiceSource::Token, Lang::En) => format!(
            "the replay token's schedule: choice {choice} at a decision with {alternatives} \
             alternatives"
        ),
        (ChoiceSource::Schedule, Lang::Es) => format!(
            "--schedule: la elección {choice} no existe en una decisión que tiene \
             {alternatives} alternativas (se cuentan desde 0)"
        ),
        (ChoiceSource::Token, Lang::Es) => format!(
            "la planificación del token de repetición: la elección {choice} no existe en una \
             decisión que tiene {alternatives} alternativas (se cuentan desde 0)"
        ),
    }
}

/// Why a token cannot be replayed, in `lang`.
pub fn token(t: &TokenError, lang: Lang) -> String {
    match (t, lang) {
        (TokenError::NotAToken(shown), Lang::En) => format!(
            "`{shown}` is not a replay token; a token starts with `ds1:` and is printed by \
             `delivery-sim sweep` (or by the library's shrinker) for a failing run"
        ),
        (TokenError::NotAToken(shown), Lang::Es) => format!(
            "`{shown}` no es un token de repetición; un token empieza con `ds1:` y lo imprime \
             `delivery-sim sweep` (o el shrinker de la biblioteca) para una corrida que falla"
        ),
        (TokenError::Version(v), Lang::En) => format!(
            "replay token version `{v}` is not supported; this delivery-sim reads `ds1:` \
             tokens (a token from another version of delivery-sim replays with that version)"
        ),
        (TokenError::Version(v), Lang::Es) => format!(
            "la versión `{v}` de token de repetición no está soportada; este delivery-sim lee \
             tokens `ds1:` (un token de otra versión de delivery-sim se repite con esa versión)"
        ),
        (TokenError::Damaged(d), Lang::En) => format!(
            "the replay token is damaged ({}); it was probably cut or changed when it was \
             copied: copy the whole token, from `ds1:` to its last character",
            damage(d, lang)
        ),
        (TokenError::Damaged(d), Lang::Es) => format!(
            "el token de repetición está dañado ({}); seguramente se cortó o cambió al \
             copiarlo: copiá el token entero, desde `ds1:` hasta su último carácter",
            damage(d, lang)
        ),
        (TokenError::Scenario(e), lang) => super::scenario_error(e, lang),
    }
}

/// What is wrong inside a damaged token.
fn damage(d: &Damage, lang: Lang) -> String {
    match (d, lang) {
        (Damage::Character { c, at }, Lang::En) => {
            format!("`{c}` at character {at} is not part of a token")
        }
        (Damage::Character { c, at }, Lang::Es) => {
            format!("`{c}` en el carácter {at} no es parte de un token")
        }
        (Damage::End, Lang::En) => "it does not end where a token can end".to_string(),
        (Damage::End, Lang::Es) => "no termina donde un token puede terminar".to_string(),
        (Damage::Short, Lang::En) => "it is too short".to_string(),
        (Damage::Short, Lang::Es) => "es demasiado corto".to_string(),
        (Damage::Checksum, Lang::En) => "its checksum does not match".to_string(),
        (Damage::Checksum, Lang::Es) => "su suma de control no coincide".to_string(),
        (Damage::NotAReplay { detail }, Lang::En) => {
            format!("its checksum matches but its content is not a replay: {detail}")
        }
        (Damage::NotAReplay { detail }, Lang::Es) => format!(
            "su suma de control coincide pero su contenido no es una repetición: {}",
            super::serde_es::serde_es(detail)
        ),
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&input_error(self, Lang::En))
    }
}

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&usage(self, Lang::En))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Act, Budget, FlagWhy, Io};

    fn both(u: Usage) -> (String, String) {
        (usage(&u, Lang::En), usage(&u, Lang::Es))
    }

    #[test]
    fn the_english_is_the_command_lines_own() {
        let (en, _) = both(Usage::OutOfRange {
            flag: "--depth".into(),
            value: 9,
            min: 1,
            max: 4,
        });
        assert_eq!(en, "--depth: 9 is out of range; allowed: 1 to 4");
        let (en, _) = both(Usage::FlagRefused {
            flag: "--events".into(),
            why: FlagWhy::EventsInFile,
        });
        assert_eq!(
            en,
            "--events: the file sets workload.events; edit the file or use --protocol"
        );
        let (en, _) = both(Usage::CannotWrite {
            flag: "--out".into(),
            path: Some("out/a.svg".into()),
            act: Act::Write,
            io: Io {
                kind: std::io::ErrorKind::NotFound,
                detail: "No such file or directory (os error 2)".into(),
            },
        });
        assert_eq!(
            en,
            "--out: cannot write out/a.svg: No such file or directory (os error 2)"
        );
    }

    #[test]
    fn the_spanish_differs_and_keeps_flags_fields_and_names() {
        let cases = [
            (
                Usage::OutOfRange {
                    flag: "--depth".into(),
                    value: 9,
                    min: 1,
                    max: 4,
                },
                vec!["--depth", "9", "1", "4"],
            ),
            (
                Usage::FlagRefused {
                    flag: "--events".into(),
                    why: FlagWhy::EventsInFile,
                },
                vec!["--events", "workload.events", "--protocol", "editá"],
            ),
            (
                Budget::Schedules {
                    scenario: "inbox".into(),
                    events: 3,
                    depth: 2,
                    estimate: 900,
                    limit: 10,
                    ceiling: 100,
                }
                .into(),
                vec!["`inbox`", "--depth", "--max-schedules", "bajá", "subí"],
            ),
        ];
        for (u, kept) in cases {
            let (en, es) = both(u);
            assert_ne!(en, es);
            for word in kept {
                assert!(es.contains(word), "{word} in {es}");
            }
        }
    }

    /// Each way a replay token is wrong, decoded from a real one and worded.
    #[test]
    fn a_bad_token_says_what_is_wrong() {
        use crate::scenario::token::{decode, encode};
        let scenario =
            crate::scenario::Scenario::from_json(r#"{"protocol": "no-dedup"}"#, "t.json");
        let good = encode(&scenario.unwrap(), &[]);
        let en = |t: &str| token(&decode(t).unwrap_err(), Lang::En);
        let e = en("hello");
        assert!(
            e.contains("`hello` is not a replay token") && e.contains("ds1:"),
            "{e}"
        );
        let e = en(&good.replacen("ds1:", "ds7:", 1));
        assert!(e.contains("version `ds7:` is not supported"), "{e}");
        let e = en(&format!("{}%{}", &good[..20], &good[21..]));
        assert!(
            e.contains("`%` at character 21") && e.contains("damaged"),
            "{e}"
        );
        let es = token(&decode("hello").unwrap_err(), Lang::Es);
        assert!(es.contains("no es un token de repetición"), "{es}");
        // A decoded token whose scenario is invalid names where it was read from.
        let file = "in the replay token";
        let bad =
            crate::scenario::Scenario::from_json(r#"{"protocol": "nope"}"#, file).unwrap_err();
        let e = token(&TokenError::Scenario(bad), Lang::En);
        assert!(
            e.contains("invalid scenario in the replay token")
                && e.contains("unknown protocol `nope`"),
            "{e}"
        );
    }
}
