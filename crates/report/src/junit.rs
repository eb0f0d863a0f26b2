//! JUnit XML for CI systems: `run FILE --junit PATH` and `run DIR --junit PATH`. One
//! `testsuite` per scenario file, one `testcase` per check of it (`run`, each pinned
//! `explore dD`, `interleavings`; a scenario without expectations is one passing `run`
//! case); a failed check is a `failure` whose text lists the failed expectations and the
//! command that repeats the check; a file that is bad input is an `error`.
//!
//! The report has no timings: they would make it differ from one run to the next, and
//! every other output of the simulator is byte-identical for the same input. Text is
//! escaped for XML, and characters XML 1.0 cannot carry are dropped.

use super::folder::{FileReport, FileResult};
use super::lang::Lang;
use super::xml::{attr, text};
use std::fmt::Write as _;

/// The JUnit document for `reports` (in the order given), named `name` (the command).
pub fn junit_xml(name: &str, reports: &[FileReport]) -> String {
    let cases: Vec<Vec<Case>> = reports.iter().map(cases).collect();
    let count = |f: fn(&Case) -> bool| cases.iter().flatten().filter(|c| f(c)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        attr(name),
        count(|_| true),
        count(|c| matches!(c.outcome, Some(Bad::Failure(..)))),
        count(|c| matches!(c.outcome, Some(Bad::Error(..)))),
    );
    for (report, cases) in reports.iter().zip(&cases) {
        let n = |f: fn(&Case) -> bool| cases.iter().filter(|c| f(c)).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" file=\"{}\">",
            attr(&report.name),
            cases.len(),
            n(|c| matches!(c.outcome, Some(Bad::Failure(..)))),
            n(|c| matches!(c.outcome, Some(Bad::Error(..)))),
            attr(&report.path),
        );
        if let Some(run) = &report.run {
            out.push_str("    <properties>\n");
            for (key, value) in [
                ("scenario", run.scenario.clone()),
                ("protocol", run.protocol.clone()),
                ("seed", run.seed.to_string()),
                (
                    "guarantee",
                    report.guarantee().expect("a report with a run").to_string(),
                ),
                ("trace_hash", run.trace_hash.clone()),
            ] {
                let _ = writeln!(
                    out,
                    "      <property name=\"{key}\" value=\"{}\"/>",
                    attr(&value)
                );
            }
            out.push_str("    </properties>\n");
        }
        for case in cases {
            let open = format!(
                "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\"",
                attr(&report.name),
                attr(&case.name),
                attr(&report.path)
            );
            match &case.outcome {
                None => {
                    let _ = writeln!(out, "{open}/>");
                }
                Some(bad) => {
                    let (tag, kind, message, body) = match bad {
                        Bad::Failure(m, b) => ("failure", "expectation", m, b),
                        Bad::Error(m, b) => ("error", "input error", m, b),
                    };
                    let _ = writeln!(
                        out,
                        "{open}>\n      <{tag} message=\"{}\" type=\"{kind}\">{}</{tag}>\n    </testcase>",
                        attr(message),
                        text(body)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

struct Case {
    name: String,
    outcome: Option<Bad>,
}

/// A failed check (message, text) or bad input (message, text).
enum Bad {
    Failure(String, String),
    Error(String, String),
}

fn cases(report: &FileReport) -> Vec<Case> {
    let mut cases: Vec<Case> = report
        .checks
        .iter()
        .map(|c| Case {
            name: c.name.clone(),
            outcome: (!c.failures.is_empty()).then(|| {
                // JUnit is read by CI tools, in English.
                let words: Vec<String> = (c.failures.iter())
                    .map(|f| Lang::En.expectation_failure(f))
                    .collect();
                Bad::Failure(
                    format!("{} expectation(s) failed: {}", words.len(), words[0]),
                    format!("{}\nrepeat: {}", words.join("\n"), c.replay),
                )
            }),
        })
        .collect();
    if cases.is_empty() && report.run.is_some() {
        // No expectations: the run itself is the one case, and it ran.
        cases.push(Case {
            name: "run".into(),
            outcome: None,
        });
    }
    if let Some(e) = &report.error {
        debug_assert_eq!(report.result(), FileResult::InputError);
        cases.push(Case {
            name: if report.run.is_some() {
                "checks".into()
            } else {
                "load".into()
            },
            outcome: Some(Bad::Error(e.to_string(), e.to_string())),
        });
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckKind, Coverage, ExpectationFailure, Judgement};
    use crate::checks::FileCheck;
    use crate::folder::PlainRun;
    use crate::model::Guarantee;

    fn report(name: &str, checks: Vec<FileCheck>, error: Option<&str>) -> FileReport {
        FileReport {
            path: format!("dir/{name}"),
            name: name.into(),
            run: error.is_none().then(|| PlainRun {
                scenario: "s".into(),
                protocol: "inbox".into(),
                seed: 7,
                guarantee: Guarantee::ExactlyOnce,
                trace_hash: "00ff".into(),
                verdict: Judgement::new(Guarantee::ExactlyOnce, Coverage::Run, vec![]),
            }),
            checks,
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
    fn cases_failures_and_errors_are_counted_and_escaped() {
        let check = |name: &str, failures: &[&str]| FileCheck {
            name: name.into(),
            kind: CheckKind::Run,
            verdict: Judgement::new(Guarantee::ExactlyOnce, Coverage::Run, vec![]),
            runs: 1,
            guarantee: None,
            failures: (failures.iter())
                .map(|f| ExpectationFailure::Field {
                    field: f.to_string(),
                    want: 3u64.into(),
                    got: 4u64.into(),
                })
                .collect(),
            replay: "delivery-sim run 'a&b.json' --seed 7".into(),
        };
        let xml = junit_xml(
            "delivery-sim run dir/",
            &[
                report(
                    "a&b.json",
                    vec![
                        check("run", &[]),
                        check("explore d1", &["<runs> \"x\"\u{1b}"]),
                    ],
                    None,
                ),
                report("plain.json", vec![], None),
                report("bad.json", vec![], Some("`x` < 1")),
            ],
        );
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"delivery-sim run dir/\" tests=\"4\" failures=\"1\" errors=\"1\">"), "{xml}");
        assert!(xml.contains("name=\"a&amp;b.json\""), "{xml}");
        assert!(xml.contains("message=\"1 expectation(s) failed: expected &lt;runs&gt; &quot;x&quot; = 3, observed 4\""), "{xml}");
        assert!(
            xml.contains("repeat: delivery-sim run 'a&amp;b.json' --seed 7</failure>"),
            "{xml}"
        );
        assert!(!xml.contains('\u{1b}'), "control characters are dropped");
        assert!(xml
            .contains("<testcase classname=\"plain.json\" name=\"run\" file=\"dir/plain.json\"/>"));
        assert!(xml.contains("name=\"load\""), "{xml}");
        assert!(xml.contains(
            "<error message=\"invalid scenario dir/bad.json: `x` &lt; 1\" type=\"input error\">"
        ));
        assert!(xml.ends_with("</testsuites>\n"));
    }
}
