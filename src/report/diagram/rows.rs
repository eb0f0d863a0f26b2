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

/// The consumer an outcome names (`in flight to consumer1`), if it names one.
pub(super) fn named_consumer(outcome: &str) -> Option<ConsumerId> {
    let at = outcome.find("consumer")? + "consumer".len();
    let digits: String = outcome[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
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
    let o = e.outcome.as_str();
    let busy = o.starts_with("SQLITE_BUSY");
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
    match (e.actor, e.action) {
        (_, "receive") | (_, "poll") => {}
        (_, "crash") if o.starts_with("crash at ") => {
            // The crash point exactly as `run --crash` takes it.
            let boundary = o["crash at ".len()..]
                .split(" (")
                .next()
                .unwrap_or_default();
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
        (_, "crash") => {
            let mut d = note(lane, db, "SQLite rolls back");
            d.text = Some(match e.event {
                Some(_) => format!("SQLite rolls back the transaction of {}", delivery_label(e)),
                None => "SQLite rolls back the open transaction".into(),
            });
            drafts.push(d);
        }
        (_, "restart") => drafts.push(note(lane, lane, "restart")),
        (_, "stop") => drafts.push(note(lane, lane, "stop").says(format!(": {o}"))),
        (Actor::Sim, "heal") => drafts.push(note(lane, lane, "healing").says(format!(": {o}"))),
        (Actor::Sim, _) => drafts.push(note(lane, lane, "run stopped").says(format!(": {o}"))),
        (Actor::Consumer(_), action) => drafts.extend(consumer_rows(action, o, lane, busy)),
        (Actor::Broker, "deliver") if e.delivery > 1 => drafts.extend(broker_rows("redeliver", o)),
        (Actor::Broker, action) => drafts.extend(broker_rows(action, o)),
        (actor, action) => drafts.extend(upstream_rows(actor, action, o, lane, db, busy)),
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

/// The rows of a producer's, a relay's or the retention job's step.
fn upstream_rows(
    actor: Actor,
    action: &str,
    o: &str,
    lane: Lane,
    db: Lane,
    busy: bool,
) -> Vec<Draft> {
    let mut out = Vec::new();
    match (actor, action) {
        (Actor::Producer, "publish") => {
            let d = message(Lane::Producer, Lane::Broker, "publish");
            out.push(publish_variant(d, o));
        }
        (Actor::Producer, "insert_transfer") => {
            if o.starts_with("transfer already committed") {
                out.push(
                    message(lane, db, "SELECT transfer")
                        .says(": already committed")
                        .remarkable(),
                );
            } else {
                out.push(message(lane, db, "BEGIN, INSERT transfer"));
            }
        }
        (Actor::Producer, "commit_transfer") => out.push(message(lane, db, "COMMIT transfer")),
        (Actor::Producer, "timeout") => {
            out.push(note(lane, lane, "no confirmation for {e}, publish again"))
        }
        (Actor::Relay, "relay_publish") => {
            let d = message(Lane::Relay, Lane::Broker, "publish");
            out.push(publish_variant(d, o));
        }
        (Actor::Relay, "mark_sent") | (Actor::EmailRelay, "mark_email_sent") => {
            let d = message(lane, db, "mark sent");
            out.push(if busy {
                d.style(Style::Wait).says(": busy, wait")
            } else {
                d
            });
        }
        (Actor::Cleanup, "delete expired") => {
            let d = message(lane, db, "DELETE expired inbox rows");
            out.push(if busy {
                d.style(Style::Wait).says(": busy")
            } else {
                // The events whose rows went: the outcome lists them after its last colon.
                let events = o.rsplit(": ").next().unwrap_or_default();
                let n = events.split(", ").count();
                let what = if n <= 4 {
                    events.to_string()
                } else {
                    format!("{n} events")
                };
                d.says(format!(" of {what}")).remarkable()
            });
        }
        (Actor::EmailRelay, "send_email") => {
            let d = message(lane, Lane::Mail, "send email");
            out.push(if o.contains("with the event_id as idempotency key") {
                d.says(" with key")
            } else {
                d
            });
        }
        (_, action) => out.push(note(lane, lane, "step").says(format!(" {action}: {o}"))),
    }
    out
}

/// A publication, marked when it repeats or renames an event.
pub(super) fn publish_variant(d: Draft, o: &str) -> Draft {
    if o.contains("ANOTHER payload") {
        d.says(" again, OTHER payload").remarkable()
    } else if o.contains("republished") {
        d.says(" again").remarkable()
    } else if o.contains("with a new event_id") {
        d.says(" with a new event_id").remarkable()
    } else {
        d
    }
}

pub(super) fn consumer_rows(action: &str, o: &str, c: Lane, busy: bool) -> Vec<Draft> {
    let db = Lane::Database;
    let to_db = |verb| message(c, db, verb);
    let wait = |d: Draft| d.style(Style::Wait).says(": busy, wait");
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let duplicate = || note(c, c, "duplicate").says(" recognised");
    let other_payload = || note(c, c, "{e}: same id, other payload, refused");
    match action {
        "begin" => vec![to_db("BEGIN")],
        "insert_inbox" | "check_inbox" => {
            let verb = if action == "insert_inbox" {
                "INSERT inbox"
            } else {
                "SELECT inbox"
            };
            if busy {
                vec![wait(to_db(verb))]
            } else if o.contains("duplicate") {
                vec![refused(to_db(verb), "exists"), duplicate()]
            } else if o.contains("another payload") {
                vec![refused(to_db(verb), "other payload"), other_payload()]
            } else if action == "check_inbox" {
                vec![to_db(verb).says(": none")]
            } else {
                vec![to_db(verb)]
            }
        }
        "apply_effect" => vec![effect_row(c, o, busy)],
        "commit" => {
            let d = to_db("COMMIT");
            vec![if o.contains("timed out") {
                let what = if o.contains("DID commit") {
                    "timeout, did commit"
                } else {
                    "timeout, did not commit"
                };
                refused(d, what)
            } else {
                d
            }]
        }
        "rollback" => vec![note(c, db, "ROLLBACK")],
        "lookup" => vec![to_db("lookup")
            .says(if o.contains("not found") {
                ": not found"
            } else {
                ": found"
            })
            .remarkable()],
        "alert" => {
            let d = to_db("INSERT alert").remarkable();
            vec![if o.contains("UNIQUE") {
                refused(d, "already alerted")
            } else {
                d
            }]
        }
        "enqueue_email" => vec![to_db("INSERT email")],
        "ack" => vec![ack_row(c, o)],
        "nack" => vec![message(c, Lane::Broker, "nack").remarkable()],
        "produce_output" => vec![message(c, Lane::Broker, "output")],
        "external_effect" => vec![note(c, c, "external effect").says(", never rolled back")],
        "sleep" => {
            let ticks = o
                .split("sleeps ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .unwrap_or("?");
            vec![note(c, c, "sleep").says(format!(" {ticks} ticks, a completion waits"))]
        }
        "stall" => {
            let ticks = o
                .split(" for ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .unwrap_or("?");
            vec![note(c, c, "stall").says(format!(" for {ticks} ticks"))]
        }
        other => vec![note(c, c, "step").says(format!(" {other}: {o}"))],
    }
}

/// The row of an `apply_effect`: applied, read, refused, or kept pending.
fn effect_row(c: Lane, o: &str, busy: bool) -> Draft {
    let to_db = |verb| message(c, Lane::Database, verb);
    let wait = |d: Draft| d.style(Style::Wait).says(": busy, wait");
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let d = to_db("apply");
    if busy {
        wait(d)
    } else if o.contains("waited in pending_event") {
        d.says(" and its waiting completion").remarkable()
    } else if o.contains("kept in pending_event") {
        d.says(": transfer unknown, kept pending").remarkable()
    } else if o.starts_with("debit and credit applied") {
        d
    } else if o.starts_with("balances read") {
        to_db("read balances")
    } else if o.contains("credit failed") {
        refused(d, "credit fails")
    } else if o.starts_with("rejected") {
        refused(d, "rejected, unknown transfer")
    } else if o.contains("transfer_id") {
        refused(d, "transfer already applied")
    } else if o.contains("SNAPSHOT") {
        refused(d, "stale snapshot")
    } else {
        d.says(format!(": {o}")).remarkable()
    }
}

/// The row of an `ack`: accepted, lost, stale or refused.
fn ack_row(c: Lane, o: &str) -> Draft {
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let d = message(c, Lane::Broker, "ack");
    if o.starts_with("acked") {
        d
    } else if o.starts_with("processed") {
        d.says(", offset later")
    } else if o.starts_with("ack lost") {
        refused(d, "lost on the way")
    } else if o.starts_with("stale") {
        refused(d, "stale, ignored")
    } else if o.starts_with("failed") {
        refused(d, "fails")
    } else if o.starts_with("already acked") {
        d.says(", already acked").remarkable()
    } else {
        d.says(format!(": {o}")).remarkable()
    }
}

pub(super) fn broker_rows(action: &str, o: &str) -> Vec<Draft> {
    let b = Lane::Broker;
    match action {
        "deliver" => {
            let c = Lane::Consumer(named_consumer(o).unwrap_or(0));
            vec![message(b, c, "deliver")]
        }
        "redeliver" => {
            // A redelivery is how a protocol recovers, or duplicates: always drawn.
            let c = Lane::Consumer(named_consumer(o).unwrap_or(0));
            vec![message(b, c, "redeliver").remarkable()]
        }
        "requeue" => vec![note(b, b, "{e} ready for redelivery")],
        "visible" => {
            let mut d = note(b, b, "{e} visible after its delay");
            d.routine = true;
            vec![d]
        }
        "lease expired" => vec![note(b, b, "lease of {e} expired")],
        "connection lost" => {
            let who = named_consumer(o).map_or("a consumer".into(), |c| format!("C{c}"));
            let what = if o.contains("left the group") {
                "left the group: rebalance"
            } else {
                "gone: its unacked redelivered"
            };
            vec![note(b, b, "connection lost").says(format!(": {who} {what}"))]
        }
        "dead-letter" => vec![message(b, Lane::DeadLetters, "dead-letter").remarkable()],
        "dlq replay" => vec![message(Lane::DeadLetters, b, "replay").remarkable()],
        "duplicate" => vec![note(b, b, "broker duplicates")],
        "late replay" => vec![note(b, b, "{e} acked, replayed late")],
        "transaction" => vec![if o.contains("refused") {
            note(b, b, "{e} outputs aborted")
        } else {
            let mut d = note(b, b, "{e} outputs visible");
            d.routine = true;
            d
        }],
        "abort" => vec![note(b, b, "{e} outputs discarded")],
        other => vec![note(b, b, "broker").says(format!(" {other}: {o}"))],
    }
}
