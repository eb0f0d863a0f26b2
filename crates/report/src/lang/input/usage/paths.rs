//! The words of a path that is not what the command takes, and of a file, a folder, the
//! standard output or a port the operating system refused ([`Io`]). The system's own
//! message is English (or the system's language): the English quotes it as it is, the
//! Spanish says the common refusals itself and quotes the others.

use super::Lang;
use crate::input::{Act, FileCommand, Io};
use std::io::ErrorKind;

/// What the operating system answered, in `lang`.
fn os(io: &Io, lang: Lang) -> String {
    match (lang, io.kind) {
        (Lang::En, _) => io.detail.clone(),
        (Lang::Es, ErrorKind::NotFound) => "no existe".to_string(),
        (Lang::Es, ErrorKind::PermissionDenied) => "no hay permiso".to_string(),
        (Lang::Es, ErrorKind::AddrInUse) => "ya está en uso".to_string(),
        (Lang::Es, _) => format!("el sistema responde «{}»", io.detail),
    }
}

pub(super) fn is_a_folder(path: &str, command: FileCommand, lang: Lang) -> String {
    match (command, lang) {
        (FileCommand::Explain, Lang::En) => {
            format!("{path} is a folder; `explain` tells one run: give it one scenario file")
        }
        (FileCommand::Explain, Lang::Es) => format!(
            "{path} es una carpeta; `explain` cuenta una sola corrida: dale un archivo de \
             escenario"
        ),
        (FileCommand::OneFile, Lang::En) => format!(
            "{path} is a folder; `run` checks every scenario file in a folder, `explore` and \
             `sweep` take one scenario file"
        ),
        (FileCommand::OneFile, Lang::Es) => format!(
            "{path} es una carpeta; `run` controla cada archivo de escenario de una carpeta, \
             `explore` y `sweep` toman un solo archivo de escenario"
        ),
    }
}

pub(super) fn no_such_path(path: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "{path}: no such file or folder; `run` takes a scenario file (.json) or a folder \
             of them"
        ),
        Lang::Es => format!(
            "{path}: no existe ese archivo ni esa carpeta; `run` toma un archivo de escenario \
             (.json) o una carpeta de archivos de escenario"
        ),
    }
}

pub(super) fn empty_folder(path: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "the folder {path} holds no scenario file (*.json); give a folder of scenario \
             files, or one scenario file"
        ),
        Lang::Es => format!(
            "la carpeta {path} no tiene ningún archivo de escenario (*.json); dale una carpeta \
             de archivos de escenario, o un solo archivo de escenario"
        ),
    }
}

pub(super) fn cannot_read_folder(path: &str, io: &Io, lang: Lang) -> String {
    let os = os(io, lang);
    match lang {
        Lang::En => format!("cannot read the folder {path}: {os}"),
        Lang::Es => format!("no se puede leer la carpeta {path}: {os}"),
    }
}

pub(super) fn cannot_write(
    flag: &str,
    path: Option<&str>,
    act: Act,
    io: &Io,
    lang: Lang,
) -> String {
    let os = os(io, lang);
    let verb = match (act, lang) {
        (Act::Write, Lang::En) => "cannot write",
        (Act::Create, Lang::En) => "cannot create",
        (Act::Write, Lang::Es) => "no se puede escribir",
        (Act::Create, Lang::Es) => "no se puede crear",
    };
    match path {
        Some(path) => format!("{flag}: {verb} {path}: {os}"),
        None => format!("{flag}: {verb}: {os}"),
    }
}

pub(super) fn cannot_write_stdout(io: &Io, lang: Lang) -> String {
    let os = os(io, lang);
    match lang {
        Lang::En => format!("cannot write to stdout: {os}"),
        Lang::Es => format!("no se puede escribir en la salida estándar: {os}"),
    }
}

pub(super) fn cannot_listen(port: u16, io: &Io, lang: Lang) -> String {
    let os = os(io, lang);
    match lang {
        Lang::En => format!("--port: cannot listen on 127.0.0.1:{port}: {os}"),
        Lang::Es => format!("--port: no se puede escuchar en 127.0.0.1:{port}: {os}"),
    }
}

pub(super) fn out_for_a_folder(path: &str, command: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "--out {path}: `{command}` writes its files into a folder, which it takes as \
             `--out-dir DIR`; `--out` names one file, in every command that has it"
        ),
        Lang::Es => format!(
            "--out {path}: `{command}` escribe sus archivos en una carpeta, que toma como \
             `--out-dir DIR`; `--out` nombra un solo archivo, en todos los comandos que lo \
             tienen"
        ),
    }
}

pub(super) fn no_own_binary(io: &Io, lang: Lang) -> String {
    let os = os(io, lang);
    match lang {
        Lang::En => {
            format!("crosscheck runs this binary as its consumer process, and cannot find it: {os}")
        }
        Lang::Es => format!(
            "crosscheck corre este mismo binario como su proceso consumidor, y no lo encuentra: \
             {os}"
        ),
    }
}
