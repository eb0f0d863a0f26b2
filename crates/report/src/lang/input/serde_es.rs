//! serde's, serde_json's and the operating system's reasons, said in Spanish.
//!
//! These libraries give a reason only as English text (serde's `de::Error` is built from
//! `Display`), so this is the one place that reads their words: each known form is
//! recognised and said again, the names and values it quotes kept as written; a form not
//! known is quoted whole after a Spanish lead, so nothing is lost and nothing is guessed.

use std::io::ErrorKind;

/// The operating system's reason for not reading a file, in Spanish where its kind says
/// it; else its own words, quoted.
pub(super) fn io_es(kind: ErrorKind, detail: &str) -> String {
    match kind {
        ErrorKind::NotFound => "no existe".to_string(),
        ErrorKind::PermissionDenied => "no hay permiso para leerlo".to_string(),
        ErrorKind::IsADirectory => "es una carpeta, no un archivo".to_string(),
        _ => format!("el sistema responde «{detail}»"),
    }
}

/// serde's or serde_json's `message`, in Spanish.
pub(super) fn serde_es(message: &str) -> String {
    data(message)
        .or_else(|| syntax(message))
        .or_else(|| ours(message))
        .unwrap_or_else(|| format!("el lector de JSON no acepta el texto: «{message}»"))
}

/// serde's data errors: a field, a variant, a type or a value the format does not have.
fn data(m: &str) -> Option<String> {
    if let Some(rest) = m.strip_prefix("unknown field ") {
        let (name, expected) = split_expected(rest);
        return Some(format!(
            "campo desconocido {name}; {}",
            choices(expected, "campos")
        ));
    }
    if let Some(rest) = m.strip_prefix("unknown variant ") {
        let (name, expected) = split_expected(rest);
        return Some(format!(
            "valor desconocido {name}; {}",
            choices(expected, "valores")
        ));
    }
    if let Some(name) = m.strip_prefix("missing field ") {
        return Some(format!("falta el campo {name}, que es obligatorio"));
    }
    if let Some(name) = m.strip_prefix("duplicate field ") {
        return Some(format!("el campo {name} aparece dos veces"));
    }
    if let Some(rest) = m.strip_prefix("invalid type: ") {
        let (found, expected) = rest.split_once(", expected ")?;
        return Some(format!(
            "tipo equivocado: el archivo tiene {} y el formato espera {}",
            unexpected(found),
            expecting(expected)
        ));
    }
    if let Some(rest) = m.strip_prefix("invalid value: ") {
        let (found, expected) = rest.split_once(", expected ")?;
        return Some(format!(
            "valor no válido: el archivo tiene {} y el formato espera {}",
            unexpected(found),
            expecting(expected)
        ));
    }
    if let Some(rest) = m.strip_prefix("invalid length ") {
        let (length, expected) = rest.split_once(", expected ")?;
        // A derived struct read from a list: the file has a list where an object belongs.
        if let Some(name) = expected.strip_prefix("struct ") {
            let name = name.split(" with ").next().unwrap_or(name);
            return Some(format!(
                "una lista donde el formato tiene un objeto {{…}} ({name}); escribí sus campos \
                 como un objeto"
            ));
        }
        return Some(format!(
            "largo no válido: {length} elementos, y el formato espera {}",
            expecting(expected)
        ));
    }
    if let Some(rest) = m.strip_prefix("data did not match any variant of untagged enum ") {
        return Some(format!(
            "el valor no tiene ninguna de las formas que el formato admite acá ({rest})"
        ));
    }
    None
}

/// `` `name`, expected one of `a`, `b` `` split into the name and what follows "expected".
fn split_expected(rest: &str) -> (&str, Option<&str>) {
    match rest.split_once(", expected ") {
        Some((name, expected)) => (name, Some(expected)),
        None => match rest.split_once(", there are no ") {
            Some((name, _)) => (name, None),
            None => (rest, None),
        },
    }
}

/// What serde lists after "expected": `` one of `a`, `b`, `c` ``, `` `a` or `b` `` or
/// one `` `a` ``.
fn choices(expected: Option<&str>, what: &str) -> String {
    match expected {
        None => format!("acá no hay {what} posibles"),
        Some(e) => match (e.strip_prefix("one of "), e.split_once("` or `")) {
            (Some(list), _) => format!("los {what} posibles son {list}"),
            (None, Some((a, b))) => format!("los {what} posibles son {a}` o `{b}"),
            (None, None) => format!("el único posible es {e}"),
        },
    }
}

/// serde's `Unexpected`, as it prints it: `` integer `5` ``, `string "x"`, `map`, ….
fn unexpected(found: &str) -> String {
    let words = [
        ("boolean ", "el booleano "),
        ("integer ", "el entero "),
        ("floating point ", "el número "),
        ("string ", "el texto "),
        ("character ", "el carácter "),
    ];
    for (en, es) in words {
        if let Some(value) = found.strip_prefix(en) {
            return format!("{es}{value}");
        }
    }
    match found {
        "map" => "un objeto".to_string(),
        "sequence" => "una lista".to_string(),
        "null" | "unit value" => "null".to_string(),
        other => format!("«{other}»"),
    }
}

/// What a visitor expects, as serde prints it: a Rust type's, a derive's or one of the
/// format's own (`a built-in protocol name (a string) or an object {"name", "steps"}`).
fn expecting(expected: &str) -> String {
    let known = [
        ("a boolean", "true o false"),
        ("a string", "un texto entre comillas"),
        ("a borrowed string", "un texto entre comillas"),
        ("a sequence", "una lista"),
        ("a map", "un objeto"),
        ("u8", "un entero de 0 a 255"),
        ("u16", "un entero de 0 a 65535"),
        ("u32", "un entero no negativo (hasta 4294967295)"),
        ("u64", "un entero no negativo"),
        ("usize", "un entero no negativo"),
        ("i64", "un entero"),
        ("i32", "un entero"),
        ("f64", "un número"),
        ("any JSON value", "un valor JSON"),
        (
            "a text, or one per language {\"en\", \"es\"}",
            "un texto, o uno por idioma {\"en\", \"es\"}",
        ),
        (
            "a built-in protocol name (a string) or an object {\"name\", \"steps\"}",
            "el nombre de un protocolo incorporado (un texto) o un objeto {\"name\", \"steps\"}",
        ),
        (
            "a query (a string) or {\"sql\", \"db\"} for one on a named database",
            "una consulta (un texto) o {\"sql\", \"db\"} para una sobre una base nombrada",
        ),
        (
            "\"begin\", \"commit\" or a SQL step {\"name\", \"sql\"}",
            "\"begin\", \"commit\" o un paso SQL {\"name\", \"sql\"}",
        ),
        (
            "\"unique_violation\", \"row\", \"no_change\", or {\"when\": \"<condition>\"}",
            "\"unique_violation\", \"row\", \"no_change\" o {\"when\": \"<condición>\"}",
        ),
    ];
    if let Some((_, es)) = known.iter().find(|(en, _)| *en == expected) {
        return es.to_string();
    }
    if let Some(name) = expected.strip_prefix("struct ") {
        return format!("un objeto {{…}} ({name})");
    }
    if let Some(values) = expected.strip_prefix("one of ") {
        return format!("uno de {values}");
    }
    format!("«{expected}»")
}

/// serde_json's syntax errors: the text is not JSON.
fn syntax(m: &str) -> Option<String> {
    let said = match m {
        "EOF while parsing a value" => "el archivo termina donde falta un valor",
        "EOF while parsing an object" => "el archivo termina antes de cerrar un objeto (`}`)",
        "EOF while parsing a list" => "el archivo termina antes de cerrar una lista (`]`)",
        "EOF while parsing a string" => "el archivo termina antes de cerrar un texto (`\"`)",
        "expected value" => "acá se esperaba un valor JSON",
        "expected `,` or `}`" => "acá se esperaba `,` o `}`",
        "expected `,` or `]`" => "acá se esperaba `,` o `]`",
        "expected `:`" => "acá se esperaba `:`",
        "expected ident" => "acá se esperaba `true`, `false` o `null`",
        "trailing characters" => "hay texto después del final del JSON",
        "trailing comma" => "sobra una coma antes del cierre",
        "key must be a string" => "una clave tiene que ser un texto entre comillas",
        "invalid number" => "un número no válido",
        "number out of range" => "un número fuera del rango que JSON puede leer",
        "invalid escape" => "una secuencia de escape no válida",
        "invalid unicode code point" => "un punto de código Unicode no válido",
        "control character (\\u0000-\\u001F) found while parsing a string" => {
            "un carácter de control (\\u0000-\\u001F) dentro de un texto; escribilo con escape"
        }
        "lone leading surrogate in hex escape" => "un sustituto Unicode sin su pareja",
        "unexpected end of hex escape" => "un escape `\\u` incompleto",
        "recursion limit exceeded" => "demasiados niveles anidados",
        "EOF while parsing" => "el archivo termina antes de tiempo",
        _ => return None,
    };
    Some(said.to_string())
}

/// The format's own messages, sent through serde's text channel by its deserializers.
fn ours(m: &str) -> Option<String> {
    if let Some(name) = m.strip_prefix("unknown step ") {
        return Some(format!("paso desconocido {name}"));
    }
    let known = [
        (
            "give one of {\"db\": \"<database>\"} (the effect is rows of that database) or \
             {\"external\": \"<service>\"} (the effect is the calls to that service)",
            "dá uno de {\"db\": \"<base>\"} (el efecto son filas de esa base) o \
             {\"external\": \"<servicio>\"} (el efecto son las llamadas a ese servicio)",
        ),
        (
            "expected an object {\"depth\", \"runs\", \"guarantee\", \"lost_runs\", \
             \"duplicated_runs\", \"dead_lettered_runs\", \"rejected_runs\", \"pending_runs\", \
             \"unacked_runs\", \"unconserved_runs\"} or a list of them",
            "se esperaba un objeto {\"depth\", \"runs\", \"guarantee\", \"lost_runs\", \
             \"duplicated_runs\", \"dead_lettered_runs\", \"rejected_runs\", \"pending_runs\", \
             \"unacked_runs\", \"unconserved_runs\"} o una lista de ellos",
        ),
    ];
    known
        .iter()
        .find(|(en, _)| *en == m)
        .map(|(_, es)| es.to_string())
}
