//! The status lines commands write on stderr for people: what was written, what a flag
//! kept from being checked, a crash point never reached. Errors (exit 2) are the loader's
//! and the parser's own words, in English.

use super::Lang;

impl Lang {
    /// What `serve` prints when it is ready: the address to open.
    pub fn serve_listening(self, url: &str) -> String {
        match self {
            Lang::En => format!("delivery-sim serve: open {url} in a browser (Ctrl-C stops it)"),
            Lang::Es => {
                format!("delivery-sim serve: abrí {url} en un navegador (Ctrl-C lo detiene)")
            }
        }
    }

    /// `wrote results/matrix.md and results/matrix.json`.
    pub fn status_wrote(self, paths: &[String]) -> String {
        match self {
            Lang::En => format!("wrote {}", self.list(paths)),
            Lang::Es => format!("escrito {}", self.list(paths)),
        }
    }

    /// A `--crash` point the run never reached.
    pub fn status_crash_never_reached(self, point: &str) -> String {
        match self {
            Lang::En => format!("warning: --crash '{point}' was never reached in this run"),
            Lang::Es => format!("aviso: la corrida nunca llegó a --crash '{point}'"),
        }
    }

    /// The checks a file pins that `run FILE` did not make, because `flags` change its run.
    pub fn status_unmade_checks(self, flags: &[String]) -> String {
        match self {
            Lang::En => format!(
                "note: only the run was checked against the file's expect; the explorations, \
                 interleavings and TTL search it pins were not made, since {} changes the run \
                 they are written for (run the file without it to make them)",
                flags.join(" and ")
            ),
            Lang::Es => format!(
                "nota: solo la corrida se controló contra el expect del archivo; las \
                 exploraciones, intercalaciones y búsqueda de TTL que fija no se hicieron, \
                 porque {} cambia la corrida para la que están escritas (corré el archivo sin \
                 eso para hacerlas)",
                flags.join(" y ")
            ),
        }
    }
}
