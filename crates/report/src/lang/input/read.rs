//! The words of [`problem::Read`]: a file that cannot be read as the format's JSON.
//!
//! serde gives its reasons as English text only; in Spanish they are recognised here, the
//! one place that reads them, and said again (see [`serde_es`]); a reason not recognised is
//! quoted as serde wrote it, inside a Spanish sentence.

use super::Lang;
use crate::scenario::problem::{Read, Shape};

/// What an unknown `expect.interleavings.complete` is called now.
const RENAMED_EN: &str = "it is now `truncated`, its opposite, named as the output's \
                          `summary.truncated`: `\"complete\": true` is `\"truncated\": false`";
const RENAMED_ES: &str = "ahora se llama `truncated` y dice lo contrario, como \
                          `summary.truncated` en la salida: `\"complete\": true` es \
                          `\"truncated\": false`";

pub(super) fn words(p: &Read, lang: Lang) -> String {
    match lang {
        Lang::En => english(p),
        Lang::Es => spanish(p),
    }
}

fn english(p: &Read) -> String {
    match p {
        Read::CannotRead { detail, .. } => format!("cannot read the file: {detail}"),
        Read::TooLong { bytes, limit } => format!(
            "{bytes} bytes is over the limit of {limit} bytes for a scenario file, which this \
             line crosses (the largest example is a few kilobytes; every list in a scenario \
             has its own bound)"
        ),
        Read::NotUtf8 { byte } => {
            format!("byte 0x{byte:02x} is not valid UTF-8; a scenario file is UTF-8 JSON")
        }
        Read::Json { message, renamed } => match renamed {
            true => format!("{message}; {RENAMED_EN}"),
            false => message.clone(),
        },
        Read::DuplicateKey { key } => format!(
            "duplicate key `{key}`: this object names it twice and only one value could be \
             used; keep one of them"
        ),
        Read::Shape(Shape::ListForObject) => {
            "a list where the scenario format has an object (`{…}`)".to_string()
        }
    }
}

fn spanish(p: &Read) -> String {
    match p {
        Read::CannotRead { kind, detail } => format!(
            "no se puede leer el archivo: {}",
            super::serde_es::io_es(*kind, detail)
        ),
        Read::TooLong { bytes, limit } => format!(
            "{bytes} bytes pasan el límite de {limit} bytes de un archivo de escenario, y \
             esta línea lo cruza (el ejemplo más grande tiene unos pocos kilobytes; cada \
             lista de un escenario tiene su propio límite)"
        ),
        Read::NotUtf8 { byte } => format!(
            "el byte 0x{byte:02x} no es UTF-8 válido; un archivo de escenario es JSON en UTF-8"
        ),
        Read::Json { message, renamed } => match renamed {
            true => format!("{}; {RENAMED_ES}", super::serde_es::serde_es(message)),
            false => super::serde_es::serde_es(message),
        },
        Read::DuplicateKey { key } => format!(
            "clave repetida `{key}`: este objeto la nombra dos veces y solo uno de los \
             valores podría usarse; dejá uno solo"
        ),
        Read::Shape(Shape::ListForObject) => {
            "una lista donde el formato del escenario tiene un objeto (`{…}`)".to_string()
        }
    }
}
