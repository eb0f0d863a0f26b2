//! The report of `run DIR` (and the checks of `run FILE`): one row per scenario file (its
//! protocol, the guarantee over every check it pins, the checks made, the plain run's
//! trace hash and the result), then each failure with the command that repeats the
//! failing check, then the totals; as text, and as one JSON document for programs.
//!
//! The checks themselves are made by the command line with the same functions as `run
//! FILE`, `explore FILE --depth D` and `explore FILE --interleavings`; this module only
//! reads their outcomes, in the order it is given them (file-name order).

use super::input::InputError;
use super::lang::Lang;
use crate::check::{Coverage, ExpectationFailure, Judgement, Reason};
use crate::checks::{file_judgement, FileCheck};
use crate::model::Guarantee;
use crate::paint::Paint;
use serde::Serialize;
use std::fmt::Write as _;

/// The scenario's plain run, as `run FILE` makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainRun {
    pub scenario: String,
    pub protocol: String,
    pub seed: u64,
    pub guarantee: Guarantee,
    pub trace_hash: String,
    /// The plain run's own verdict.
    pub verdict: Judgement,
}

/// Everything `run DIR` found about one scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// The path the file was read from (the folder joined with its name).
    pub path: String,
    /// The file's name, without the folder.
    pub name: String,
    /// Absent when the file itself is bad input.
    pub run: Option<PlainRun>,
    /// The checks made, in order: `run`, each pinned depth from the shallowest, then
    /// `interleavings`. Empty when the scenario has no `expect`.
    pub checks: Vec<FileCheck>,
    /// Why the file, or one of its checks, is bad input; the checks after it were not
    /// made.
    pub error: Option<InputError>,
}

/// The result of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileResult {
    /// Every check's expectations held (or the scenario states none).
    Ok,
    /// Some expectation failed.
    Failed,
    /// The file, or a check it asks for, is bad input.
    InputError,
}

impl FileReport {
    pub fn result(&self) -> FileResult {
        if self.error.is_some() {
            FileResult::InputError
        } else if self.checks.iter().any(|c| !c.failures.is_empty()) {
            FileResult::Failed
        } else {
            FileResult::Ok
        }
    }

    /// The guarantee over everything the file pins: the weakest of the plain run's and of
    /// every check's. An exploration that loses an event makes the file at-most-once even
    /// when its crash-free run is exactly-once.
    pub fn guarantee(&self) -> Option<Guarantee> {
        let run = self.run.as_ref()?;
        Some(Guarantee::weakest(
            std::iter::once(run.guarantee).chain(self.checks.iter().filter_map(|c| c.guarantee)),
        ))
    }

    /// The verdict over everything the file pins (see [`file_judgement`]); none for a
    /// file that is bad input.
    pub fn verdict(&self) -> Option<Judgement> {
        let run = self.run.as_ref()?;
        Some(file_judgement(&run.verdict, &self.checks))
    }

    /// What the file's runs broke: every property any of its checks (its run first) gives
    /// as a reason.
    fn broken(&self) -> std::collections::BTreeSet<crate::check::FailureKind> {
        let run = self.run.iter().map(|r| &r.verdict);
        (run.chain(self.checks.iter().map(|c| &c.verdict)))
            .flat_map(|j| j.reasons.iter())
            .filter_map(|r| match r {
                Reason::Broke { property, .. } => Some(*property),
                _ => None,
            })
            .collect()
    }

    /// The first failing check and its first failed expectation.
    fn first_failure(&self) -> Option<(&FileCheck, &ExpectationFailure)> {
        self.checks
            .iter()
            .find_map(|c| c.failures.first().map(|f| (c, f)))
    }
}

/// How many files held, failed, and were bad input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Totals {
    pub scenarios: usize,
    pub held: usize,
    pub failed: usize,
    pub input_errors: usize,
}

impl Totals {
    pub fn of(files: &[FileReport]) -> Totals {
        let mut t = Totals {
            scenarios: files.len(),
            ..Totals::default()
        };
        for f in files {
            match f.result() {
                FileResult::Ok => t.held += 1,
                FileResult::Failed => t.failed += 1,
                FileResult::InputError => t.input_errors += 1,
            }
        }
        t
    }
}

/// The verdict over a folder: the weakest guarantee of its files, each property with the
/// files whose runs broke it, and the files whose expectations failed.
pub fn folder_judgement(files: &[FileReport]) -> Judgement {
    let mut broken: std::collections::BTreeMap<crate::check::FailureKind, u64> = Default::default();
    for f in files {
        for property in f.broken() {
            *broken.entry(property).or_default() += 1;
        }
    }
    let broken: Vec<_> = broken.into_iter().collect();
    let guarantee = Guarantee::weakest(files.iter().filter_map(FileReport::guarantee));
    let over = Coverage::Folder {
        files: files.len() as u64,
    };
    let totals = Totals::of(files);
    let failed = (files.iter().flat_map(|f| &f.checks))
        .map(|c| c.failures.len())
        .sum();
    let judgement = Judgement::over_runs(guarantee, over, &broken, None, Some(failed));
    let effects = (files.iter()).filter_map(|f| Some(f.run.as_ref()?.verdict.scope.effect));
    judgement
        .on_each(effects)
        .with_unchecked(totals.input_errors, files.len() - totals.input_errors)
}

/// The totals line, e.g. `43 scenarios: 43 held, 0 failed, 0 input errors`.
pub fn totals_line(lang: Lang, t: &Totals) -> String {
    lang.folder_totals(t.scenarios, t.held, t.failed, t.input_errors)
}

/// The text report of `run DIR` on the files of `folder`, in the order given, in `lang`.
/// The expectations' failures are the checker's own sentences, as `run FILE` prints them.
pub fn folder_text(lang: Lang, folder: &str, files: &[FileReport]) -> String {
    let mut out = super::text::verdict_line_in(lang, Paint::OFF, &folder_judgement(files));
    out.push('\n');
    let _ = writeln!(out, "{}\n", lang.folder_intro(folder, files.len()));
    let rows: Vec<[String; 7]> = files.iter().map(|f| folder_row(lang, f)).collect();
    let header = lang.folder_header();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut String, cells: [&str; 7]| {
        out.push(' ');
        for (i, cell) in cells.iter().enumerate() {
            // The last column is not padded, so no line ends in spaces.
            if i + 1 == cells.len() {
                let _ = write!(out, " {cell}");
            } else {
                let _ = write!(out, " {cell:<width$} ", width = widths[i]);
            }
        }
        out.push('\n');
    };
    line(&mut out, header);
    for row in &rows {
        line(&mut out, row.each_ref().map(String::as_str));
    }
    for f in files {
        file_details(&mut out, lang, f);
    }
    let _ = writeln!(out, "\n{}", totals_line(lang, &Totals::of(files)));
    out
}

/// The row of file `f` in the table of `run DIR`: its name, verdict, protocol, guarantee,
/// checks, trace hash and result (its first failure, if any).
fn folder_row(lang: Lang, f: &FileReport) -> [String; 7] {
    let dash = || "-".to_string();
    let checks = if f.checks.is_empty() && f.error.is_none() {
        lang.folder_no_expect().to_string()
    } else if f.checks.is_empty() {
        dash()
    } else {
        f.checks
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let result = match (f.result(), f.first_failure()) {
        (FileResult::Failed, Some((check, failure))) => {
            let line = lang.expectation_failure(failure);
            format!("{} {}: {line}", lang.expect_failed(), check.name)
        }
        (FileResult::InputError, _) => lang.folder_input_error().to_string(),
        _ => "ok".to_string(),
    };
    let verdict = f.verdict().map(|j| lang.status(j.status).to_string());
    [
        f.name.clone(),
        verdict.unwrap_or_else(dash),
        f.run.as_ref().map_or_else(dash, |r| r.protocol.clone()),
        f.guarantee().map_or_else(dash, |g| g.to_string()),
        checks,
        f.run.as_ref().map_or_else(dash, |r| r.trace_hash.clone()),
        result,
    ]
}

/// What follows the table for file `f`: every failure of each failed check with its replay
/// command, or why the file is bad input; nothing for a file that held.
fn file_details(out: &mut String, lang: Lang, f: &FileReport) {
    match f.result() {
        FileResult::Ok => {}
        FileResult::Failed => {
            let _ = writeln!(out, "\n{} {}", f.path, lang.expect_failed());
            for c in f.checks.iter().filter(|c| !c.failures.is_empty()) {
                let _ = writeln!(out, "  {}", c.name);
                for failure in &c.failures {
                    let _ = writeln!(out, "    - {}", lang.expectation_failure(failure));
                }
                let _ = writeln!(out, "    {}  {}", lang.folder_replay(), c.replay);
            }
        }
        FileResult::InputError => {
            let _ = writeln!(out, "\n{} {}", f.path, lang.folder_input_error());
            if let Some(e) = &f.error {
                let _ = writeln!(out, "  {}", super::lang::input::input_error(e, lang));
            }
        }
    }
}

/// One scenario file in `run DIR --json`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FileJson<'a> {
    pub file: &'a str,
    /// The verdict over everything the file pins ([`FileReport::verdict`]).
    pub verdict: Option<Judgement>,
    pub result: FileResult,
    pub scenario: Option<&'a str>,
    pub protocol: Option<&'a str>,
    pub seed: Option<u64>,
    /// The guarantee over everything the file pins ([`FileReport::guarantee`]); each
    /// check gives its own.
    pub guarantee: Option<Guarantee>,
    /// The plain run's trace hash.
    pub trace_hash: Option<&'a str>,
    pub checks: &'a [FileCheck],
    /// Why the file is bad input, in English: a program reads `result`, a person this.
    pub error: Option<String>,
}

/// `run DIR --json`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FolderJson<'a> {
    /// The verdict over every file ([`folder_judgement`]).
    pub verdict: Judgement,
    pub folder: &'a str,
    pub scenarios: Vec<FileJson<'a>>,
    pub totals: Totals,
}

pub fn folder_json<'a>(folder: &'a str, files: &'a [FileReport]) -> FolderJson<'a> {
    FolderJson {
        verdict: folder_judgement(files),
        folder,
        scenarios: files
            .iter()
            .map(|f| FileJson {
                file: &f.path,
                verdict: f.verdict(),
                result: f.result(),
                scenario: f.run.as_ref().map(|r| r.scenario.as_str()),
                protocol: f.run.as_ref().map(|r| r.protocol.as_str()),
                seed: f.run.as_ref().map(|r| r.seed),
                guarantee: f.guarantee(),
                trace_hash: f.run.as_ref().map(|r| r.trace_hash.as_str()),
                checks: &f.checks,
                error: f.error.as_ref().map(InputError::to_string),
            })
            .collect(),
        totals: Totals::of(files),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::CheckKind;

    /// An exploration to depth 1 that duplicated in 3 runs when it has failed expectations.
    fn explored(failed: usize) -> Judgement {
        let over = Coverage::Exploration { runs: 31, depth: 1 };
        if failed == 0 {
            return Judgement::new(Guarantee::ExactlyOnce, over, vec![]);
        }
        let broke = Reason::Broke {
            property: crate::check::FailureKind::Duplicated,
            count: 3,
        };
        let expectations = Reason::Expectations {
            failed: failed as u64,
        };
        Judgement::new(Guarantee::AtLeastOnce, over, vec![broke, expectations])
    }

    fn file(name: &str, failures: &[ExpectationFailure], error: Option<&str>) -> FileReport {
        FileReport {
            path: format!("dir/{name}"),
            name: name.into(),
            run: error.is_none().then(|| PlainRun {
                scenario: name.trim_end_matches(".json").into(),
                protocol: "inbox".into(),
                seed: 7,
                guarantee: Guarantee::ExactlyOnce,
                trace_hash: "0123456789abcdef".into(),
                verdict: Judgement::new(Guarantee::ExactlyOnce, Coverage::Run, vec![]),
            }),
            checks: if error.is_some() {
                Vec::new()
            } else {
                vec![
                    FileCheck {
                        name: "run".into(),
                        kind: CheckKind::Run,
                        verdict: Judgement::new(Guarantee::ExactlyOnce, Coverage::Run, vec![]),
                        runs: 1,
                        guarantee: Some(Guarantee::ExactlyOnce),
                        failures: Vec::new(),
                        replay: format!("delivery-sim run dir/{name} --seed 7"),
                    },
                    FileCheck {
                        name: "explore d1".into(),
                        kind: CheckKind::Explore { depth: 1 },
                        verdict: explored(failures.len()),
                        runs: 31,
                        // A failing exploration here also duplicates: the file's guarantee
                        // is the weakest of its checks'.
                        guarantee: Some(if failures.is_empty() {
                            Guarantee::ExactlyOnce
                        } else {
                            Guarantee::AtLeastOnce
                        }),
                        failures: failures.to_vec(),
                        replay: format!("delivery-sim explore dir/{name} --seed 7 --depth 1"),
                    },
                ]
            },
            error: error.map(|message| {
                let problem = crate::scenario::problem::Read::Json {
                    message: message.into(),
                    renamed: false,
                };
                let path = format!("dir/{name}");
                crate::scenario::ScenarioError::whole(&path, problem).into()
            }),
        }
    }

    #[test]
    fn the_table_names_each_file_and_the_details_name_each_failure() {
        let files = [
            file("a.json", &[], None),
            file(
                "b.json",
                &[
                    ExpectationFailure::Field {
                        field: "runs".into(),
                        want: 30u64.into(),
                        got: 31u64.into(),
                    },
                    ExpectationFailure::TtlUnverified,
                ],
                None,
            ),
            file("c.json", &[], Some("bad")),
        ];
        let text = folder_text(Lang::En, "dir/", &files);
        assert_eq!(
            text,
            "verdict    FAIL  at-least-once (ledger per event, 3 files): 1 of 3 files duplicated an \
             event; 2 expectations failed; 1 of 3 files could not be checked (input error)

run dir/: 3 scenario files, each run with its own seed and checked against its \
             expect (the run, every pinned exploration depth, the pinned interleavings and \
             smallest safe TTL)

  file    verdict  protocol  guarantee      checks           trace hash        result
  a.json  PASS     inbox     exactly-once   run, explore d1  0123456789abcdef  ok
  b.json  FAIL     inbox     at-least-once  run, explore d1  0123456789abcdef  FAILED explore d1: expected runs = 30, observed 31
  c.json  -        -         -              -                -                 input error

dir/b.json FAILED
  explore d1
    - expected runs = 30, observed 31
    - the boundary was not verified (no safe TTL within the bounds)
    replay  delivery-sim explore dir/b.json --seed 7 --depth 1

dir/c.json input error
  invalid scenario dir/c.json: bad

3 scenarios: 1 held, 1 failed, 1 input error
"
        );
        // In Spanish, every word of the tool's own; identifiers, hashes and commands as
        // they are.
        let es = folder_text(Lang::Es, "dir/", &files);
        for words in [
            "3 archivos de escenario",
            "  archivo  veredicto  protocolo  garantía       controles        hash de traza     resultado\n",
            "veredicto  FALLA  at-least-once (asientos por evento, 3 archivos): 1 de 3 archivos duplicó un evento",
            "NO SE CUMPLIÓ explore d1: se esperaba runs = 30, se observó 31",
            "    - la frontera no quedó verificada (ningún TTL seguro dentro de los límites)\n",
            "error de entrada",
            "dir/b.json NO SE CUMPLIÓ\n",
            "    repetir  delivery-sim explore dir/b.json --seed 7 --depth 1\n",
            "3 escenarios: 1 se cumplió, 1 no se cumplió, 1 error de entrada\n",
        ] {
            assert!(es.contains(words), "{words:?} in\n{es}");
        }
        for english in ["FAILED", "input error", "held", "scenario file", "replay "] {
            assert!(!es.contains(english), "{english:?} in\n{es}");
        }
        let json = serde_json::to_value(folder_json("dir/", &files)).unwrap();
        assert_eq!(
            json["totals"],
            serde_json::json!({"scenarios": 3, "held": 1, "failed": 1, "input_errors": 1})
        );
        assert_eq!(json["scenarios"][1]["result"], "failed");
        assert_eq!(json["scenarios"][1]["checks"][1]["runs"], 31);
        assert_eq!(json["scenarios"][1]["guarantee"], "at-least-once");
        assert_eq!(
            json["scenarios"][1]["checks"][0]["guarantee"],
            "exactly-once"
        );
        assert_eq!(json["scenarios"][2]["result"], "input_error");
        assert!(json["scenarios"][2].get("trace_hash").is_none());
    }
}
