//! The rows a trace entry becomes: who sends what to whom, and how it is drawn. Each
//! entry is read once, in order.

use super::*;

/// `e1`, `e1 c1` for a republished copy, with ` d2` from the second delivery attempt on
/// (the first is the rule, so it goes without saying).
pub(super) fn delivery_label(e: &TraceEntry) -> String {
    let Some(event) = e.event else {
        return String::new();
    };
    let mut s = format!("e{event}");
    if e.copy > 0 {
        s.push_str(&format!(" c{}", e.copy));
    }
    if e.delivery > 1 {
        s.push_str(&format!(" d{}", e.delivery));
    }
    s
}

/// A row under construction: the shape, the verb, what follows the delivery label, and
/// whether it is routine.
pub(super) struct Draft {
    shape: Shape,
    verb: &'static str,
    suffix: String,
    /// The whole label, when it is not the verb, the delivery and the suffix.
    text: Option<String>,
    routine: bool,
}

pub(super) fn message(from: Lane, to: Lane, verb: &'static str) -> Draft {
    Draft {
        shape: Shape::Message {
            from,
            to,
            style: Style::Call,
        },
        verb,
        suffix: String::new(),
        text: None,
        routine: true,
    }
}

pub(super) fn note(from: Lane, to: Lane, verb: &'static str) -> Draft {
    Draft {
        shape: Shape::Note { from, to },
        verb,
        suffix: String::new(),
        text: None,
        routine: false,
    }
}

impl Draft {
    pub(super) fn style(mut self, style: Style) -> Draft {
        if let Shape::Message { from, to, .. } = self.shape {
            self.shape = Shape::Message { from, to, style };
        }
        self.routine = self.routine && style != Style::Refused;
        self
    }

    pub(super) fn says(mut self, suffix: impl Into<String>) -> Draft {
        self.suffix = suffix.into();
        self
    }

    pub(super) fn remarkable(mut self) -> Draft {
        self.routine = false;
        self
    }
}

/// The rows one trace entry is drawn as: none for what is not an interaction (a receive,
/// which the broker's delivery already shows; an idle poll), usually one, two for a
/// duplicate (the refused insert and the note that the duplicate was recognised).
pub(super) fn rows_of(e: &TraceEntry, producer_db: Lane) -> Vec<Row> {
    let busy = is_busy(&e.kind);
    let mut drafts: Vec<Draft> = Vec::new();
    let lane = match e.actor {
        Actor::Producer => Lane::Producer,
        Actor::Broker => Lane::Broker,
        Actor::Consumer(c) => Lane::Consumer(c),
        Actor::Relay => Lane::Relay,
        Actor::EmailRelay => Lane::EmailRelay,
        Actor::Cleanup => Lane::Cleanup,
        Actor::Sim => Lane::Producer,
    };
    // The database a process of this lane writes to.
    let db = match e.actor {
        Actor::Producer | Actor::Relay => producer_db,
        _ => Lane::Database,
    };
    match (e.actor, &e.kind) {
        (_, TraceKind::Received | TraceKind::NothingReady | TraceKind::OutboxEmpty) => {}
        (_, TraceKind::Crash { boundary, .. }) => {
            // The crash point exactly as `run --crash` takes it.
            let point = match e.event {
                Some(event) if e.copy > 0 => {
                    format!(" e{event} copy{} d{}", e.copy, e.delivery)
                }
                Some(event) => format!(" e{event} d{}", e.delivery),
                None => String::new(),
            };
            drafts.push(Draft {
                shape: Shape::Crash { lane },
                verb: "CRASH",
                suffix: String::new(),
                text: Some(format!("CRASH {boundary}{point}")),
                routine: false,
            });
        }
        (_, TraceKind::CrashRollback) => {
            let mut d = note(lane, db, "SQLite rolls back");
            d.text = Some(match e.event {
                Some(_) => format!("SQLite rolls back the transaction of {}", delivery_label(e)),
                None => "SQLite rolls back the open transaction".into(),
            });
            drafts.push(d);
        }
        (
            _,
            TraceKind::ConsumerRestart
            | TraceKind::ProducerRestart { .. }
            | TraceKind::RelayRestart,
        ) => drafts.push(note(lane, lane, "restart")),
        (_, kind @ (TraceKind::StopRollback | TraceKind::Stopped { .. })) => {
            drafts.push(note(lane, lane, "stop").says(format!(": {kind}")))
        }
        (_, kind @ TraceKind::Healing { .. }) => {
            drafts.push(note(lane, lane, "healing").says(format!(": {kind}")))
        }
        (Actor::Consumer(_), kind) => drafts.extend(consumer_rows(kind, lane, busy)),
        (Actor::Broker, kind) => drafts.extend(broker_rows(kind, e.delivery > 1)),
        (actor, kind) => drafts.extend(upstream_rows(actor, kind, lane, db, busy)),
    }
    let target = delivery_label(e);
    drafts
        .into_iter()
        .map(|d| {
            let label = match (d.text, target.is_empty()) {
                (Some(text), _) => text,
                (None, _) if d.verb.contains("{e}") => {
                    let text = format!("{}{}", d.verb.replace("{e}", &target), d.suffix);
                    text.trim().to_string()
                }
                (None, true) => format!("{}{}", d.verb, d.suffix),
                (None, false) => format!("{} {target}{}", d.verb, d.suffix),
            };
            Row {
                tick: e.tick,
                shape: d.shape,
                label,
                event: e.event,
                tone: None,
                verb: d.verb,
                routine: d.routine,
                delivery: e.event.map(|ev| (ev, e.copy, e.delivery)),
            }
        })
        .collect()
}

/// Whether the entry is a write that had to wait, as the diagram draws it: the write
/// lock held, or a stale snapshot (which SQLite reports as a kind of busy).
fn is_busy(kind: &TraceKind) -> bool {
    kind.is_busy() || kind.db_answer() == Some(DbOutcome::StaleSnapshot)
}

/// The rows of a producer's, a relay's or the retention job's step.
fn upstream_rows(actor: Actor, kind: &TraceKind, lane: Lane, db: Lane, busy: bool) -> Vec<Draft> {
    let mut out = Vec::new();
    match (actor, kind) {
        (Actor::Producer, TraceKind::Published { how, .. }) => {
            let d = message(Lane::Producer, Lane::Broker, "publish");
            out.push(publish_variant(d, *how));
        }
        (Actor::Producer, TraceKind::TransferKnown) => out.push(
            message(lane, db, "SELECT transfer")
                .says(": already committed")
                .remarkable(),
        ),
        (Actor::Producer, TraceKind::TransferInserted { .. })
        | (
            Actor::Producer,
            TraceKind::Busy {
                step: Step::InsertTransfer,
            },
        ) => out.push(message(lane, db, "BEGIN, INSERT transfer")),
        (Actor::Producer, TraceKind::TransferCommitted)
        | (
            Actor::Producer,
            TraceKind::Busy {
                step: Step::CommitTransfer,
            },
        ) => out.push(message(lane, db, "COMMIT transfer")),
        (Actor::Producer, TraceKind::PublishTimedOut { .. }) => {
            out.push(note(lane, lane, "no confirmation for {e}, publish again"))
        }
        (Actor::Relay, TraceKind::RelayPublished { how, .. }) => {
            let d = message(Lane::Relay, Lane::Broker, "publish");
            out.push(publish_variant(d, *how));
        }
        (
            Actor::Relay | Actor::EmailRelay,
            TraceKind::MarkedSent { .. } | TraceKind::Busy { .. },
        ) => {
            let d = message(lane, db, "mark sent");
            out.push(if busy {
                d.style(Style::Wait).says(": busy, wait")
            } else {
                d
            });
        }
        (Actor::Cleanup, TraceKind::CleanupBusy) => out.push(
            message(lane, db, "DELETE expired inbox rows")
                .style(Style::Wait)
                .says(": busy"),
        ),
        (Actor::Cleanup, TraceKind::InboxExpired { events, .. }) => {
            let d = message(lane, db, "DELETE expired inbox rows");
            let what = if events.len() <= 4 {
                crate::model::trace::event_names(events)
            } else {
                format!("{} events", events.len())
            };
            out.push(d.says(format!(" of {what}")).remarkable());
        }
        (
            Actor::EmailRelay,
            TraceKind::EmailSent {
                idempotency_key, ..
            },
        ) => {
            let d = message(lane, Lane::Mail, "send email");
            out.push(if *idempotency_key {
                d.says(" with key")
            } else {
                d
            });
        }
        (_, kind) => out.push(note(lane, lane, "step").says(format!(" {}: {kind}", kind.action()))),
    }
    out
}

/// A publication, marked when it repeats or renames an event.
pub(super) fn publish_variant(d: Draft, how: Publication) -> Draft {
    match how {
        Publication::Altered { .. } => d.says(" again, OTHER payload").remarkable(),
        Publication::Again => d.says(" again").remarkable(),
        Publication::Minted { .. } => d.says(" with a new event_id").remarkable(),
        Publication::First => d,
    }
}

pub(super) fn consumer_rows(kind: &TraceKind, c: Lane, busy: bool) -> Vec<Draft> {
    let db = Lane::Database;
    let to_db = |verb| message(c, db, verb);
    let wait = |d: Draft| d.style(Style::Wait).says(": busy, wait");
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let duplicate = || note(c, c, "duplicate").says(" recognised");
    let other_payload = || note(c, c, "{e}: same id, other payload, refused");
    let answer = kind.db_answer();
    match (kind.action(), kind) {
        ("begin", _) => vec![to_db("BEGIN")],
        (action @ ("insert_inbox" | "check_inbox"), _) => {
            let verb = if action == "insert_inbox" {
                "INSERT inbox"
            } else {
                "SELECT inbox"
            };
            if busy {
                vec![wait(to_db(verb))]
            } else if matches!(answer, Some(DbOutcome::Found | DbOutcome::Duplicate)) {
                vec![refused(to_db(verb), "exists"), duplicate()]
            } else if answer == Some(DbOutcome::PayloadMismatch) {
                vec![refused(to_db(verb), "other payload"), other_payload()]
            } else if action == "check_inbox" {
                vec![to_db(verb).says(": none")]
            } else {
                vec![to_db(verb)]
            }
        }
        ("apply_effect", _) => vec![effect_row(c, kind, busy)],
        (
            name,
            TraceKind::Db {
                step: Step::Sql(_),
                outcome,
                ..
            },
        ) => {
            if busy {
                vec![wait(to_db(name))]
            } else if outcome.is_duplicate() {
                vec![refused(to_db(name), "already processed"), duplicate()]
            } else {
                vec![to_db(name)]
            }
        }
        ("commit", TraceKind::CommitTimeout { committed, .. }) => {
            let what = if *committed {
                "timeout, did commit"
            } else {
                "timeout, did not commit"
            };
            vec![refused(to_db("COMMIT"), what)]
        }
        ("commit", _) => vec![to_db("COMMIT")],
        ("rollback", _) => vec![note(c, db, "ROLLBACK")],
        ("lookup", TraceKind::Lookup { outcome }) => vec![to_db("lookup")
            .says(if *outcome == DbOutcome::NotFound {
                ": not found"
            } else {
                ": found"
            })
            .remarkable()],
        ("alert", TraceKind::Alert { outcome }) => {
            let d = to_db("INSERT alert").remarkable();
            vec![if *outcome == DbOutcome::AlertExists {
                refused(d, "already alerted")
            } else {
                d
            }]
        }
        ("enqueue_email", _) => vec![to_db("INSERT email")],
        ("ack", _) => vec![ack_row(c, kind)],
        ("nack", _) => vec![message(c, Lane::Broker, "nack").remarkable()],
        ("produce_output", _) => vec![message(c, Lane::Broker, "output")],
        ("external_effect", _) => {
            vec![note(c, c, "external effect").says(", never rolled back")]
        }
        (_, TraceKind::Sleep { ticks }) => {
            vec![note(c, c, "sleep").says(format!(" {ticks} ticks, a completion waits"))]
        }
        (_, TraceKind::Stall { ticks, .. }) => {
            vec![note(c, c, "stall").says(format!(" for {ticks} ticks"))]
        }
        (action, kind) => vec![note(c, c, "step").says(format!(" {action}: {kind}"))],
    }
}

/// The row of an `apply_effect`: applied, read, refused, or kept pending.
fn effect_row(c: Lane, kind: &TraceKind, busy: bool) -> Draft {
    let to_db = |verb| message(c, Lane::Database, verb);
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let d = to_db("apply");
    if busy {
        return d.style(Style::Wait).says(": busy, wait");
    }
    let TraceKind::Db { outcome, .. } = kind else {
        return d.says(format!(": {kind}")).remarkable();
    };
    match outcome {
        DbOutcome::AppliedWithPending => d.says(" and its waiting completion").remarkable(),
        DbOutcome::Buffered => d.says(": transfer unknown, kept pending").remarkable(),
        DbOutcome::Applied => d,
        DbOutcome::BalancesRead { .. } => to_db("read balances"),
        DbOutcome::CreditFailed => refused(d, "credit fails"),
        DbOutcome::Rejected => refused(d, "rejected, unknown transfer"),
        DbOutcome::BusinessDuplicate => refused(d, "transfer already applied"),
        // (A stale snapshot is drawn as a wait, above.)
        _ => d.says(format!(": {kind}")).remarkable(),
    }
}

/// The row of an `ack`: accepted, lost, stale or refused.
fn ack_row(c: Lane, kind: &TraceKind) -> Draft {
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let d = message(c, Lane::Broker, "ack");
    match kind {
        TraceKind::Acked {
            outcome: AckOutcome::Accepted,
            offsets: false,
        } => d,
        TraceKind::Acked {
            outcome: AckOutcome::Accepted,
            offsets: true,
        } => d.says(", offset later"),
        TraceKind::AckLost => refused(d, "lost on the way"),
        TraceKind::Acked {
            outcome: AckOutcome::Stale,
            ..
        } => refused(d, "stale, ignored"),
        TraceKind::Acked {
            outcome: AckOutcome::StaleAccepted,
            ..
        } => d.says(", stale, accepted").remarkable(),
        TraceKind::StepFailed { .. } | TraceKind::SqlFailed { .. } => refused(d, "fails"),
        TraceKind::Acked {
            outcome: AckOutcome::AlreadyAcked,
            ..
        } => d.says(", already acked").remarkable(),
        _ => d.says(format!(": {kind}")).remarkable(),
    }
}

pub(super) fn broker_rows(kind: &TraceKind, again: bool) -> Vec<Draft> {
    let b = Lane::Broker;
    match kind {
        // A redelivery is how a protocol recovers, or duplicates: always drawn.
        TraceKind::Delivered { consumer } if again => {
            vec![message(b, Lane::Consumer(*consumer), "redeliver").remarkable()]
        }
        TraceKind::Delivered { consumer } => vec![message(b, Lane::Consumer(*consumer), "deliver")],
        TraceKind::Requeued => vec![note(b, b, "{e} ready for redelivery")],
        TraceKind::Visible => {
            let mut d = note(b, b, "{e} visible after its delay");
            d.routine = true;
            vec![d]
        }
        TraceKind::LeaseExpired => vec![note(b, b, "lease of {e} expired")],
        TraceKind::ConnectionLost {
            consumer,
            rebalance,
        } => {
            let what = if *rebalance {
                "left the group: rebalance"
            } else {
                "gone: its unacked redelivered"
            };
            vec![note(b, b, "connection lost").says(format!(": C{consumer} {what}"))]
        }
        TraceKind::DeadLettered { .. } => {
            vec![message(b, Lane::DeadLetters, "dead-letter").remarkable()]
        }
        TraceKind::DeadLettersEmpty | TraceKind::DeadLetterReplayed => {
            vec![message(Lane::DeadLetters, b, "replay").remarkable()]
        }
        TraceKind::BrokerDuplicate => vec![note(b, b, "broker duplicates")],
        TraceKind::LateReplay => vec![note(b, b, "{e} acked, replayed late")],
        TraceKind::OutputsSettled { committed: false } => vec![note(b, b, "{e} outputs aborted")],
        TraceKind::OutputsSettled { committed: true } => {
            let mut d = note(b, b, "{e} outputs visible");
            d.routine = true;
            vec![d]
        }
        TraceKind::OutputsDiscarded => vec![note(b, b, "{e} outputs discarded")],
        other => vec![note(b, b, "broker").says(format!(" {}: {other}", other.action()))],
    }
}
