//! A scenario's `expect` against a verdict: which expectations failed, and the `expect`
//! that pins a verdict as observed.

use super::*;

/// The expectations that pin `v` as observed: the guarantee, the counts, the acks,
/// conservation, and every boundary's verdict. A scenario with this `expect` holds while its
/// run comes out exactly so; [`failed_expectations`] finds nothing against `v`.
pub fn pinned_expect(v: &Verdict, altered_republishes: usize) -> Expect {
    Expect {
        guarantee: Some(v.guarantee),
        lost: Some(v.lost),
        duplicated: Some(v.duplicated),
        rejected: Some(v.rejected),
        // Only a workload with altered copies can have alerts (and may pin them).
        payload_alerts: (altered_republishes > 0).then_some(v.payload_alerts),
        all_acked: Some(v.all_acked),
        conserved: Some(v.conserved),
        boundaries: v
            .boundaries
            .iter()
            .skip(1)
            .map(|b| {
                (
                    b.boundary,
                    crate::scenario::ScopeExpect {
                        guarantee: Some(b.guarantee),
                        lost: Some(b.lost),
                        duplicated: Some(b.duplicated),
                        ghost: Some(b.ghost),
                    },
                )
            })
            .collect(),
        ..Expect::default()
    }
}

/// Compares a verdict with what the scenario expects. Returns one line per failed
/// expectation; empty means it held.
pub fn failed_expectations(expect: &Expect, v: &Verdict) -> Vec<String> {
    let mut failed = Vec::new();
    if let Some(g) = expect.guarantee {
        if g != v.guarantee {
            failed.push(format!("expected guarantee {g}, observed {}", v.guarantee));
        }
    }
    for (what, want, got) in [
        ("lost", expect.lost, v.lost),
        ("duplicated", expect.duplicated, v.duplicated),
        ("rejected", expect.rejected, v.rejected),
        ("pending", expect.pending, v.pending),
    ] {
        if let Some(want) = want {
            if want != got {
                failed.push(format!("expected {want} {what} event(s), observed {got}"));
            }
        }
    }
    if let Some(want) = expect.payload_alerts {
        if want != v.payload_alerts {
            failed.push(format!(
                "expected {want} payload alert(s), observed {}",
                v.payload_alerts
            ));
        }
    }
    push_mismatches(
        &mut failed,
        &[
            ("all_acked", expect.all_acked, v.all_acked),
            ("conserved", expect.conserved, v.conserved),
        ],
    );
    for (scope, want) in &expect.boundaries {
        let Some(got) = v.boundaries.iter().find(|b| b.boundary == *scope) else {
            failed.push(format!(
                "expected a verdict for boundary {}, but this run has none (it has {})",
                scope.key(),
                v.boundaries
                    .iter()
                    .map(|b| b.boundary.key())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        if let Some(g) = want.guarantee {
            if g != got.guarantee {
                failed.push(format!(
                    "expected {}: {g}, observed {}",
                    scope.name(),
                    got.describe()
                ));
            }
        }
        let name = scope.key();
        push_mismatches(
            &mut failed,
            &[
                (&format!("{name}.lost"), want.lost, got.lost),
                (
                    &format!("{name}.duplicated"),
                    want.duplicated,
                    got.duplicated,
                ),
                (&format!("{name}.ghost"), want.ghost, got.ghost),
            ],
        );
    }
    failed
}

/// For each `(name, expected, observed)` with an expectation that does not hold, pushes
/// `expected NAME = X, observed Y`.
pub fn push_mismatches<T: PartialEq + Copy + std::fmt::Display>(
    failed: &mut Vec<String>,
    items: &[(&str, Option<T>, T)],
) {
    for &(what, want, got) in items {
        if let Some(want) = want {
            if want != got {
                failed.push(format!("expected {what} = {want}, observed {got}"));
            }
        }
    }
}
