//! The checker's unit tests.

mod boundaries;
mod expectations;
mod liveness;
mod outcomes;

use super::*;
use crate::model::LedgerCounts;

/// `expect.guarantee` of one run, wanted and observed (`report::lang` words these; its
/// tests pin the sentences).
fn guarantee(want: Guarantee, got: Guarantee) -> ExpectationFailure {
    ExpectationFailure::Guarantee {
        over: Coverage::Run,
        want,
        got,
    }
}

/// A count of events of one run, wanted and observed.
fn count(counted: Counted, want: u64, got: u64) -> ExpectationFailure {
    ExpectationFailure::Events { counted, want, got }
}

/// A field of `expect` compared as it is written.
fn field(name: &str, want: impl Into<Value>, got: impl Into<Value>) -> ExpectationFailure {
    ExpectationFailure::Field {
        field: name.to_string(),
        want: want.into(),
        got: got.into(),
    }
}

/// The checker's input as a test builds it: `Case::new` is a quiet end (nothing crashed,
/// nothing discarded, no retention) of the inbox protocol over one account of 100, and a
/// test states only what differs, with `..Case::new(…)`.
struct Case<'a> {
    events: &'a [Event],
    committed: &'a CommittedState,
    messages: &'a [Message],
    scopes: ScopeInputs<'a>,
    accounts: Vec<Account>,
    protocol: Protocol,
    crashes: &'a [CrashRecord],
    external_effects: &'a [ExternalEffect],
    /// `None`: no delivery of any event was recognised as processed.
    duplicates_discarded: Option<&'a [u32]>,
    inbox_expired_at: &'a [Option<Tick>],
    stop: StopReason,
    invalid: &'a [bool],
    effect: Option<Effect>,
}

impl<'a> Case<'a> {
    fn new(
        events: &'a [Event],
        committed: &'a CommittedState,
        messages: &'a [Message],
    ) -> Case<'a> {
        Case {
            events,
            committed,
            messages,
            scopes: ScopeInputs {
                intents: events.len(),
                ..ScopeInputs::default()
            },
            accounts: vec![Account {
                name: "acc_00001".into(),
                initial_balance_minor: 100,
            }],
            protocol: Protocol::built_in("inbox").unwrap(),
            crashes: &[],
            external_effects: &[],
            duplicates_discarded: None,
            inbox_expired_at: &[],
            stop: StopReason::Quiescent,
            invalid: &[],
            effect: None,
        }
    }

    fn check(&self) -> Verdict {
        let none_discarded = vec![0; self.events.len()];
        check(&Observed {
            effect: self.effect,
            scopes: self.scopes,
            events: self.events,
            accounts: &self.accounts,
            protocol: &self.protocol,
            committed: self.committed,
            messages: self.messages,
            crashes: self.crashes,
            external_effects: self.external_effects,
            duplicates_discarded: self.duplicates_discarded.unwrap_or(&none_discarded),
            gave_up: &[],
            inbox_expired_at: self.inbox_expired_at,
            stop: self.stop,
            invalid: self.invalid,
        })
    }
}

fn event(index: usize) -> Event {
    Event {
        index,
        event_id: format!("id-{index}"),
        event_type: EventType::TransferCreated,
        transfer_id: format!("tr_{index:05}"),
        source: "acc_00001".into(),
        target: "acc_00002".into(),
        amount_minor: 10,
    }
}

fn acked(event: usize) -> Message {
    Message {
        event,
        copy: 0,
        state: MessageState::Acked { at: 1 },
        deliveries: 1,
        dead_letter_replays: 0,
        deliveries_before_replay: 0,
    }
}

/// Checks a committed ledger of (debits, credits) per event, all acked, with balances
/// that sum to `balance_total`.
fn verdict(ledger: &[(u32, u32)], balance_total: i64) -> Verdict {
    let events: Vec<Event> = (0..ledger.len()).map(event).collect();
    let mut committed = CommittedState::default();
    for (i, (debits, credits)) in ledger.iter().enumerate() {
        committed.ledger.insert(
            format!("id-{i}"),
            LedgerCounts {
                debits: *debits,
                credits: *credits,
                completions: 0,
            },
        );
    }
    committed.balances.insert("acc_00001".into(), balance_total);
    let messages: Vec<Message> = (0..ledger.len()).map(acked).collect();
    Case {
        ..Case::new(&events, &committed, &messages)
    }
    .check()
}

/// `verdict`, with the broker's messages, the stop reason and the protocol given.
fn verdict_with(
    ledger: &[(u32, u32)],
    messages: &[Message],
    stop: StopReason,
    protocol: &str,
) -> Verdict {
    let events: Vec<Event> = (0..ledger.len()).map(event).collect();
    let mut committed = CommittedState::default();
    for (i, (debits, credits)) in ledger.iter().enumerate() {
        committed.ledger.insert(
            format!("id-{i}"),
            LedgerCounts {
                debits: *debits,
                credits: *credits,
                completions: 0,
            },
        );
    }
    committed.balances.insert("acc_00001".into(), 100);
    let scopes = ScopeInputs {
        intents: events.len(),
        ..ScopeInputs::default()
    };
    observe(&events, &committed, messages, scopes, protocol, stop, &[])
}

/// The verdict on `events` (one account, no crashes, no external effects) with these
/// committed rows, messages, boundaries, protocol, stop and invalid flags.
fn observe(
    events: &[Event],
    committed: &CommittedState,
    messages: &[Message],
    scopes: ScopeInputs<'_>,
    protocol: &str,
    stop: StopReason,
    invalid: &[bool],
) -> Verdict {
    Case {
        scopes,
        protocol: Protocol::built_in(protocol).unwrap(),
        stop,
        invalid,
        ..Case::new(events, committed, messages)
    }
    .check()
}

/// `observe` for the inbox, quiescent.
fn judged(
    events: &[Event],
    committed: &CommittedState,
    messages: &[Message],
    scopes: ScopeInputs<'_>,
    invalid: &[bool],
) -> Verdict {
    let stop = StopReason::Quiescent;
    observe(events, committed, messages, scopes, "inbox", stop, invalid)
}

fn message(event: usize, state: MessageState, deliveries: u32) -> Message {
    Message {
        event,
        copy: 0,
        state,
        deliveries,
        dead_letter_replays: 0,
        deliveries_before_replay: 0,
    }
}
