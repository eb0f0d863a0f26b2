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

/// Compares a verdict with what the scenario expects: one failure per expectation that
/// does not hold; empty means it held.
pub fn failed_expectations(expect: &Expect, v: &Verdict) -> Vec<ExpectationFailure> {
    let mut failed = Vec::new();
    if let Some(want) = expect.guarantee.filter(|&g| g != v.guarantee) {
        failed.push(ExpectationFailure::Guarantee {
            over: Coverage::Run,
            want,
            got: v.guarantee,
        });
    }
    for (counted, want, got) in [
        (Counted::Lost, expect.lost, v.lost),
        (Counted::Duplicated, expect.duplicated, v.duplicated),
        (Counted::Rejected, expect.rejected, v.rejected),
        (Counted::Pending, expect.pending, v.pending),
        (
            Counted::PayloadAlerts,
            expect.payload_alerts,
            v.payload_alerts,
        ),
    ] {
        if let Some(want) = want.filter(|&w| w != got) {
            failed.push(ExpectationFailure::Events { counted, want, got });
        }
    }
    push_mismatch(&mut failed, "all_acked", expect.all_acked, v.all_acked);
    push_mismatch(&mut failed, "conserved", expect.conserved, v.conserved);
    for (scope, want) in &expect.boundaries {
        let Some(got) = v.boundaries.iter().find(|b| b.boundary == *scope) else {
            failed.push(ExpectationFailure::MissingBoundary {
                scope: *scope,
                present: Some(v.boundaries.iter().map(|b| b.boundary).collect()),
            });
            continue;
        };
        if let Some(g) = want.guarantee.filter(|&g| g != got.guarantee) {
            failed.push(ExpectationFailure::BoundaryGuarantee {
                want: g,
                observed: *got,
            });
        }
        let name = scope.key();
        push_mismatch(&mut failed, &format!("{name}.lost"), want.lost, got.lost);
        let duplicated = format!("{name}.duplicated");
        push_mismatch(&mut failed, &duplicated, want.duplicated, got.duplicated);
        push_mismatch(&mut failed, &format!("{name}.ghost"), want.ghost, got.ghost);
    }
    failed
}

/// Pushes a [`ExpectationFailure::Field`] when `field` is expected (`want`) and does not
/// hold.
pub fn push_mismatch<T: Into<Value>>(
    failed: &mut Vec<ExpectationFailure>,
    field: &str,
    want: Option<T>,
    got: T,
) {
    let (Some(want), got) = (want.map(Into::into), got.into()) else {
        return;
    };
    if want != got {
        failed.push(ExpectationFailure::Field {
            field: field.to_string(),
            want,
            got,
        });
    }
}
