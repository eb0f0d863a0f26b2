//! The words of `run DIR`'s text report: its opening line, the table's header and cells,
//! the failure blocks and the totals.

use super::Lang;

impl Lang {
    /// The line `run DIR` opens with.
    pub fn folder_intro(self, folder: &str, files: usize) -> String {
        match (self, files) {
            (Lang::En, n) => format!(
                "run {folder}: {n} scenario file{}, each run with its own seed and checked \
                 against its expect (the run, every pinned exploration depth, the pinned \
                 interleavings and smallest safe TTL)",
                if n == 1 { "" } else { "s" }
            ),
            (Lang::Es, n) => format!(
                "run {folder}: {n} archivo{} de escenario, cada uno corrido con su propia \
                 semilla y controlado contra su expect (la corrida, cada profundidad de \
                 exploración fijada, las intercalaciones y el TTL seguro más chico fijados)",
                if n == 1 { "" } else { "s" }
            ),
        }
    }

    /// The table's column names.
    pub fn folder_header(self) -> [&'static str; 7] {
        match self {
            Lang::En => [
                "file",
                "verdict",
                "protocol",
                "guarantee",
                "checks",
                "trace hash",
                "result",
            ],
            Lang::Es => [
                "archivo",
                "veredicto",
                "protocolo",
                "garantía",
                "controles",
                "hash de traza",
                "resultado",
            ],
        }
    }

    /// The checks cell of a file without `expect`.
    pub fn folder_no_expect(self) -> &'static str {
        self.choose("(no expect)", "(sin expect)")
    }

    /// The result of a file that is bad input.
    pub fn folder_input_error(self) -> &'static str {
        self.choose("input error", "error de entrada")
    }

    /// The status line of `run DIR` when some files are bad input: how many, of how many,
    /// and which (the paragraphs themselves are in the report).
    pub fn folder_bad_input(self, bad: usize, files: usize, folder: &str, names: &str) -> String {
        match self {
            Lang::En => format!(
                "{bad} of {files} scenario files in {folder} could not be checked (bad input): \
                 {names}"
            ),
            Lang::Es => format!(
                "{bad} de {files} archivos de escenario de {folder} no se pudieron revisar \
                 (error de entrada): {names}"
            ),
        }
    }

    /// The label before a failing check's replay command.
    pub fn folder_replay(self) -> &'static str {
        self.choose("replay", "repetir")
    }

    /// `43 scenarios: 43 held, 0 failed, 0 input errors`.
    pub fn folder_totals(
        self,
        scenarios: usize,
        held: usize,
        failed: usize,
        errors: usize,
    ) -> String {
        let s =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match self {
            Lang::En => format!(
                "{}: {held} held, {failed} failed, {}",
                s(scenarios, "scenario", "scenarios"),
                s(errors, "input error", "input errors")
            ),
            Lang::Es => format!(
                "{}: {held} se {}, {failed} no se {}, {}",
                s(scenarios, "escenario", "escenarios"),
                if held == 1 { "cumplió" } else { "cumplieron" },
                if failed == 1 {
                    "cumplió"
                } else {
                    "cumplieron"
                },
                s(errors, "error de entrada", "errores de entrada")
            ),
        }
    }
}
