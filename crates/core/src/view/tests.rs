//! The view keeps what the words need and nothing the run did not show: every told entry
//! is the run's own, a state is kept only when it changed, and the facts a sentence reads
//! are the ones the database shows (an ack after the effect's commit, a commit's writes).

use super::*;
use crate::fault::CrashSpec;
use crate::model::{AckOutcome, BoundaryPoint, DbOutcome, Protocol, Step, TraceKind};
use crate::world::{self, InProcess};

fn watched(protocol: &str, crash: Option<&str>) -> (Scenario, RunResult, RunView) {
    let mut s = Scenario::new(Protocol::built_in(protocol).expect("a built-in"));
    s.workload.events = 2;
    s.faults.crash = crash
        .map(|p| CrashSpec::exactly(BoundaryPoint::parse(p).expect("a point")))
        .into_iter()
        .collect();
    let r = world::run(&s);
    let view = watch(&InProcess, &s, &[], &r);
    (s, r, view)
}

#[test]
fn every_entry_is_the_runs_own_and_a_state_is_kept_only_when_it_changed() {
    let (_, r, view) = watched("inbox", Some("after:commit e0 d1"));
    assert_eq!(view.untold, 0);
    let told: Vec<&TraceEntry> = view.steps.iter().map(|s| &s.trace).collect();
    let run: Vec<&TraceEntry> = r.trace.entries().iter().collect();
    assert_eq!(told, run);
    let mut last_broker = None;
    let mut last_database = Some(&view.initial);
    for step in &view.steps {
        for change in &step.changes {
            match change {
                StateChange::Broker(b) => {
                    assert_ne!(last_broker, Some(b), "entry {}", step.entry);
                    last_broker = Some(b);
                }
                StateChange::Database(d) => {
                    assert_ne!(last_database, Some(d), "entry {}", step.entry);
                    last_database = Some(d);
                }
                StateChange::Open(_) => {}
            }
        }
    }
    assert!(last_broker.is_some() && last_database != Some(&view.initial));
}

#[test]
fn an_ack_after_the_commit_sees_the_effect_and_ack_first_does_not() {
    let acks = |protocol: &str| -> Vec<bool> {
        let (_, _, view) = watched(protocol, None);
        (view.steps.iter())
            .filter(|s| {
                let accepted = AckOutcome::Accepted;
                matches!(s.trace.kind, TraceKind::Acked { outcome, .. } if outcome == accepted)
            })
            .map(|s| s.facts.effect_committed)
            .collect()
    };
    assert_eq!(acks("inbox"), [true, true]);
    assert_eq!(acks("ack-first"), [false, false]);
}

#[test]
fn a_commit_carries_what_its_transaction_wrote() {
    let (_, _, view) = watched("inbox", None);
    let commit = (view.steps.iter())
        .find(|s| {
            let committed = (Step::Commit, DbOutcome::Committed);
            matches!(s.trace.kind, TraceKind::Db { step, outcome, .. } if (step, outcome) == committed)
        })
        .expect("a commit");
    let writes = commit.facts.writes.as_ref().expect("its writes");
    assert!(writes.items.contains(&TxItem::Inbox(0)), "{writes:?}");
    assert!(writes.items.contains(&TxItem::Effect(0)), "{writes:?}");
    assert!(!writes.balances.is_empty());
}

#[test]
fn a_list_names_the_first_items_and_counts_the_rest() {
    let items: Vec<usize> = (0..MAX_LISTED + 5).collect();
    let listed = Listed::of(items);
    assert_eq!((listed.items.len(), listed.more), (MAX_LISTED, 5));
    assert_eq!(Listed::of(vec![1, 2]).more, 0);
    let plain = |e: &[usize]| ranged(e.iter().map(|e| (*e, None::<()>)));
    assert_eq!(plain(&[0, 1, 2, 5]), [Ranged::Range(0, 2), Ranged::One(5)]);
    assert_eq!(plain(&[0, 1]), [Ranged::One(0), Ranged::One(1)]);
    assert_eq!(plain(&[usize::MAX, usize::MAX]).len(), 2);
}
