//! The words of a refused command line ([`Usage`]), of a replay token that cannot be
//! replayed ([`TokenError`]), and of any [`InputError`].

use super::Lang;
use crate::report::input::{InputError, Refused, Usage};
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
pub fn usage(u: &Usage, _lang: Lang) -> String {
    match u {
        Usage::Unworded(text) => text.clone(),
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

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&token(self, Lang::En))
    }
}

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&usage(self, Lang::En))
    }
}
