//! Tidy checks: invariants of ARCHITECTURE.md that the compiler does not check by itself,
//! checked by reading the source.

use crate::support::root;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The places a state fingerprint is taken: every `Fingerprint` implementation, the
/// world's and the store's.
fn fingerprint_sites(text: &str) -> Vec<usize> {
    [
        "Fingerprint for ",
        "fn fingerprint(",
        "fn fingerprint_database(",
    ]
    .iter()
    .flat_map(|needle| text.match_indices(needle).map(|(i, _)| i))
    .collect()
}

/// **Exploration Invariant: a fingerprint sees every field.** Each one starts by
/// destructuring `self` with every field named (no `..`), or by matching `self` (an enum,
/// which the compiler makes exhaustive): a field added to a component does not compile
/// until its author decides, where the fingerprint is taken, whether it decides the future.
#[test]
fn every_fingerprint_destructures_its_whole_component() {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for site in fingerprint_sites(&text) {
            let rest = &text[site..];
            // The trait's own declaration has no body to check.
            if rest.starts_with("fn fingerprint(&self, now: Tick, h: &mut StateHasher);") {
                continue;
            }
            let destructure = rest.find("= self;");
            let matched = rest.find("match self");
            let end = rest.find("\n}\n").unwrap_or(rest.len());
            let name = format!("{}:{}", file.display(), text[..site].lines().count() + 1);
            match (destructure, matched) {
                (Some(d), m) if m.is_none_or(|m| d < m) && d < end => {
                    let pattern = &rest[rest[..d].rfind("let ").expect("a let") + 4..d];
                    assert!(
                        !pattern.contains(".."),
                        "{name}: the fingerprint's destructure leaves fields out with `..`"
                    );
                }
                (_, Some(m)) if m < end => {}
                _ => panic!("{name}: a fingerprint that does not destructure or match `self`"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} fingerprints found");
}

/// ARCHITECTURE.md's "one definition of a failed run": a failure signature is built in
/// `check::failure` and, for a run, by `RunResult::failure` only; and no other module judges
/// a run by its stop reason (`stop != StopReason::Quiescent`) to decide that it failed.
#[test]
fn a_failed_run_is_defined_in_one_place() {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    let allowed_signature = ["src/world/mod.rs"];
    let mut built = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let rel = file.strip_prefix(root()).unwrap().display().to_string();
        if text.contains("FailureSignature::of(") {
            assert!(
                allowed_signature.contains(&rel.as_str()),
                "{rel}: builds a failure signature itself; call RunResult::failure()"
            );
            built += 1;
        }
        // The checker's own unacked reasons, the world's loop and the reports' wording read
        // the stop reason to describe it; judging a failure by it is for check::failure.
        for (i, line) in text.lines().enumerate() {
            let judges = line.contains("stop != StopReason::Quiescent")
                && (line.contains("||") || line.contains("FailureKind") || line.contains("kinds"));
            assert!(
                !judges || rel == "src/check/failure.rs",
                "{rel}:{}: judges a run's failure by its stop reason outside check::failure",
                i + 1
            );
        }
    }
    assert_eq!(
        built, 1,
        "the signature of a run is built by RunResult::failure"
    );
}
