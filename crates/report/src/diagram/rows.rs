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
/// The rows of trace entry `e`; `engine` names the database that rolls back a crashed
/// process's transaction.
pub(super) fn rows_of(
    e: &TraceEntry,
    producer_db: Lane,
    engine: crate::model::Engine,
    l: Lang,
) -> Vec<Row> {
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
        (_, TraceKind::Crash { .. } | TraceKind::CrashRollback) => {
            drafts.push(crash_row(e, (lane, db), engine, l))
        }
        (
            _,
            TraceKind::ConsumerRestart
            | TraceKind::ProducerRestart { .. }
            | TraceKind::RelayRestart,
        ) => drafts.push(note(lane, lane, l.choose("restart", "reinicio"))),
        (_, kind @ (TraceKind::StopRollback | TraceKind::Stopped { .. })) => drafts.push(
            note(lane, lane, l.choose("stop", "parada"))
                .says(format!(": {}", l.trace_outcome(kind))),
        ),
        (_, kind @ TraceKind::Healing { .. }) => drafts.push(
            note(lane, lane, l.choose("healing", "recuperación"))
                .says(format!(": {}", l.trace_outcome(kind))),
        ),
        (Actor::Consumer(_), kind) => drafts.extend(consumer_rows(kind, lane, busy, l)),
        (Actor::Broker, kind) => drafts.extend(broker_rows(kind, e.delivery > 1, l)),
        (actor, kind) => drafts.extend(upstream_rows(actor, kind, (lane, db), busy, l)),
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
                entries: None,
            }
        })
        .collect()
}

/// The row of a crash (named by its point exactly as `run --crash` takes it) or of the
/// rollback the database (`engine`) does for the process that died.
fn crash_row(
    e: &TraceEntry,
    (lane, db): (Lane, Lane),
    engine: crate::model::Engine,
    l: Lang,
) -> Draft {
    if let TraceKind::Crash { boundary, .. } = &e.kind {
        let point = match e.event {
            Some(event) if e.copy > 0 => {
                format!(" e{event} copy{} d{}", e.copy, e.delivery)
            }
            Some(event) => format!(" e{event} d{}", e.delivery),
            None => String::new(),
        };
        return Draft {
            shape: Shape::Crash { lane },
            verb: "CRASH",
            suffix: String::new(),
            text: Some(format!("{} {boundary}{point}", l.choose("CRASH", "CAÍDA"))),
            routine: false,
        };
    }
    use crate::model::Engine;
    let verb = match (engine, l) {
        (Engine::Sqlite, Lang::En) => "SQLite rolls back",
        (Engine::Sqlite, Lang::Es) => "SQLite hace rollback",
        (Engine::Postgres, Lang::En) => "PostgreSQL rolls back",
        (Engine::Postgres, Lang::Es) => "PostgreSQL hace rollback",
    };
    let mut d = note(lane, db, verb);
    d.text = Some(match (l, e.event) {
        (Lang::En, Some(_)) => format!("{verb} the transaction of {}", delivery_label(e)),
        (Lang::Es, Some(_)) => format!("{verb} de la transacción de {}", delivery_label(e)),
        (Lang::En, None) => format!("{verb} the open transaction"),
        (Lang::Es, None) => format!("{verb} de la transacción abierta"),
    });
    d
}

/// Whether the entry is a write that had to wait, as the diagram draws it: the write
/// lock held, or a stale snapshot (which SQLite reports as a kind of busy).
fn is_busy(kind: &TraceKind) -> bool {
    kind.is_busy() || kind.db_answer() == Some(DbOutcome::StaleSnapshot)
}

/// The rows of a producer's, a relay's or the retention job's step; `lanes` is the
/// process's own lane and the database it writes to.
fn upstream_rows(
    actor: Actor,
    kind: &TraceKind,
    (lane, db): (Lane, Lane),
    busy: bool,
    l: Lang,
) -> Vec<Draft> {
    if actor == Actor::Producer {
        if let Some(d) = producer_row(kind, (lane, db), l) {
            return vec![d];
        }
    }
    let mut out = Vec::new();
    let w = |en, es| l.choose(en, es);
    match (actor, kind) {
        (Actor::Relay, TraceKind::RelayPublished { how, .. }) => {
            let d = message(Lane::Relay, Lane::Broker, w("publish", "publica"));
            out.push(publish_variant(d, *how, l));
        }
        (
            Actor::Relay | Actor::EmailRelay,
            TraceKind::MarkedSent { .. } | TraceKind::Busy { .. },
        ) => {
            let d = message(lane, db, w("mark sent", "marca enviado"));
            out.push(if busy {
                d.style(Style::Wait)
                    .says(w(": busy, wait", ": ocupada, espera"))
            } else {
                d
            });
        }
        (Actor::Cleanup, TraceKind::CleanupBusy) => out.push(
            message(
                lane,
                db,
                w(
                    "DELETE expired inbox rows",
                    "DELETE filas vencidas del inbox",
                ),
            )
            .style(Style::Wait)
            .says(w(": busy", ": ocupada")),
        ),
        (Actor::Cleanup, TraceKind::InboxExpired { events, .. }) => {
            let d = message(
                lane,
                db,
                w(
                    "DELETE expired inbox rows",
                    "DELETE filas vencidas del inbox",
                ),
            );
            let what = if events.len() <= 4 {
                crate::model::trace::event_names(events)
            } else {
                format!("{} {}", events.len(), w("events", "eventos"))
            };
            out.push(d.says(format!(" {} {what}", w("of", "de"))).remarkable());
        }
        (
            Actor::EmailRelay,
            TraceKind::EmailSent {
                idempotency_key, ..
            },
        ) => {
            let d = message(lane, Lane::Mail, w("send email", "envía correo"));
            out.push(if *idempotency_key {
                d.says(w(" with key", " con clave"))
            } else {
                d
            });
        }
        (_, kind) => out.push(note(lane, lane, "step").says(format!(
            " {}: {}",
            kind.action(),
            l.trace_outcome(kind)
        ))),
    }
    out
}

/// The row of a producer's step, if it has one of its own.
fn producer_row(kind: &TraceKind, (lane, db): (Lane, Lane), l: Lang) -> Option<Draft> {
    let w = |en, es| l.choose(en, es);
    Some(match kind {
        TraceKind::Published { how, .. } => {
            let d = message(Lane::Producer, Lane::Broker, w("publish", "publica"));
            publish_variant(d, *how, l)
        }
        TraceKind::TransferKnown => message(lane, db, "SELECT transfer")
            .says(w(": already committed", ": ya confirmada"))
            .remarkable(),
        TraceKind::TransferInserted { .. }
        | TraceKind::Busy {
            step: Step::InsertTransfer,
        } => message(lane, db, "BEGIN, INSERT transfer"),
        TraceKind::TransferCommitted
        | TraceKind::Busy {
            step: Step::CommitTransfer,
        } => message(lane, db, "COMMIT transfer"),
        TraceKind::PublishTimedOut { .. } => note(
            lane,
            lane,
            w(
                "no confirmation for {e}, publish again",
                "sin confirmación de {e}, publica de nuevo",
            ),
        ),
        _ => return None,
    })
}

/// A publication, marked when it repeats or renames an event.
pub(super) fn publish_variant(d: Draft, how: Publication, l: Lang) -> Draft {
    let w = |en, es| l.choose(en, es);
    match how {
        Publication::Altered { .. } => d
            .says(w(" again, OTHER payload", " de nuevo, OTRO payload"))
            .remarkable(),
        Publication::Again => d.says(w(" again", " de nuevo")).remarkable(),
        Publication::Minted { .. } => d
            .says(w(" with a new event_id", " con un event_id nuevo"))
            .remarkable(),
        Publication::First => d,
    }
}

pub(super) fn consumer_rows(kind: &TraceKind, c: Lane, busy: bool, l: Lang) -> Vec<Draft> {
    let w = |en, es| l.choose(en, es);
    let db = Lane::Database;
    let to_db = |verb| message(c, db, verb);
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    match (kind.action(), kind) {
        ("begin", _) => vec![to_db("BEGIN")],
        (action @ ("insert_inbox" | "check_inbox"), _) => inbox_rows(action, kind, c, busy, l),
        ("apply_effect", _) => vec![effect_row(c, kind, busy, l)],
        (
            name,
            TraceKind::Db {
                step: Step::Sql(_),
                outcome,
                ..
            },
        ) => sql_rows(name, *outcome, c, busy, l),
        (name, TraceKind::StepFailed { .. } | TraceKind::SqlFailed { .. })
            if !matches!(name, "ack" | "dead_letter") =>
        {
            vec![refused(to_db(name), w("fails", "falla"))]
        }
        (
            _,
            TraceKind::Retrying { .. }
            | TraceKind::DeadLetterSent { .. }
            | TraceKind::GaveUp { .. },
        ) => policy_rows(kind, c, l),
        (
            name,
            TraceKind::Kept { .. }
            | TraceKind::Caught { .. }
            | TraceKind::Skipped { .. }
            | TraceKind::Jumped { .. }
            | TraceKind::LoopLimit { .. },
        ) => flow_rows(name, kind, c, l),
        ("commit", TraceKind::CommitTimeout { committed, .. }) => {
            let what = if *committed {
                w("timeout, did commit", "timeout, el commit se hizo")
            } else {
                w("timeout, did not commit", "timeout, el commit no se hizo")
            };
            vec![refused(to_db("COMMIT"), what)]
        }
        ("commit", _) => vec![to_db("COMMIT")],
        ("rollback", _) => vec![note(c, db, "ROLLBACK")],
        ("lookup", TraceKind::Lookup { outcome }) => vec![lookup_row(*outcome, c, l)],
        ("alert", TraceKind::Alert { outcome }) => vec![alert_row(*outcome, c, l)],
        ("enqueue_email", _) => vec![to_db("INSERT email")],
        ("ack", _) => vec![ack_row(c, kind, l)],
        ("nack", _) => vec![message(c, Lane::Broker, "nack").remarkable()],
        ("produce_output", _) => vec![message(c, Lane::Broker, w("output", "salida"))],
        ("external_effect", _) | (_, TraceKind::Called { .. }) => vec![external_row(c, kind, l)],
        (_, TraceKind::Sleep { ticks }) => vec![sleep_row(*ticks, c, l)],
        (_, TraceKind::Stall { ticks, .. }) => vec![stall_row(*ticks, c, l)],
        (action, kind) => {
            vec![note(c, c, "step").says(format!(" {action}: {}", l.trace_outcome(kind)))]
        }
    }
}

/// The rows of a scenario's own SQL step: done, waiting on a busy database, or refused as
/// already processed (with the note that the duplicate was recognised).
fn sql_rows(name: &'static str, outcome: DbOutcome, c: Lane, busy: bool, l: Lang) -> Vec<Draft> {
    let w = |en, es| l.choose(en, es);
    let d = message(c, Lane::Database, name);
    if busy {
        vec![d
            .style(Style::Wait)
            .says(w(": busy, wait", ": ocupada, espera"))]
    } else if outcome.is_duplicate() {
        vec![
            d.style(Style::Refused)
                .says(format!(": {}", w("already processed", "ya procesado"))),
            duplicate_note(c, l),
        ]
    } else {
        vec![d]
    }
}

/// The row of a `lookup`: whether it found the row.
fn lookup_row(outcome: DbOutcome, c: Lane, l: Lang) -> Draft {
    let w = |en, es| l.choose(en, es);
    message(c, Lane::Database, w("lookup", "consulta"))
        .says(if outcome == DbOutcome::NotFound {
            w(": not found", ": no encontrado")
        } else {
            w(": found", ": encontrado")
        })
        .remarkable()
}

/// The row of an `alert`: inserted, or refused as already raised.
fn alert_row(outcome: DbOutcome, c: Lane, l: Lang) -> Draft {
    let d = message(c, Lane::Database, "INSERT alert").remarkable();
    if outcome == DbOutcome::AlertExists {
        let why = l.choose("already alerted", "alerta ya registrada");
        d.style(Style::Refused).says(format!(": {why}"))
    } else {
        d
    }
}

/// The note of a consumer's sleep, which a completion waits out.
fn sleep_row(ticks: Tick, c: Lane, l: Lang) -> Draft {
    note(c, c, l.choose("sleep", "duerme")).says(match l {
        Lang::En => format!(" {ticks} ticks, a completion waits"),
        Lang::Es => format!(" {ticks} ticks, una completion espera"),
    })
}

/// The note of a consumer's stall.
fn stall_row(ticks: Tick, c: Lane, l: Lang) -> Draft {
    note(c, c, l.choose("stall", "se detiene")).says(match l {
        Lang::En => format!(" for {ticks} ticks"),
        Lang::Es => format!(" durante {ticks} ticks"),
    })
}

/// The rows of a consumer's own decisions: a kept row, a skipped step, a jump back, a loop
/// at its bound.
fn flow_rows(name: &'static str, kind: &TraceKind, c: Lane, l: Lang) -> Vec<Draft> {
    let w = |en, es| l.choose(en, es);
    match kind {
        TraceKind::Kept { into, row, .. } => vec![note(c, c, into).says(match row {
            Some(row) => format!(" = {row}"),
            None => w(" = no row", " = sin fila").to_string(),
        })],
        TraceKind::Skipped { .. } => vec![note(c, c, name)
            .style(Style::Refused)
            .says(w(": skipped (when)", ": se salta (when)"))],
        TraceKind::Caught { to, .. } => vec![note(c, c, name)
            .style(Style::Refused)
            .says(match l {
                Lang::En => format!(": caught, on to {to}"),
                Lang::Es => format!(": capturado, sigue en {to}"),
            })
            .remarkable()],
        TraceKind::Jumped { to, pass, .. } => vec![note(c, c, "goto")
            .says(match l {
                Lang::En => format!(" {to}, pass {pass}"),
                Lang::Es => format!(" {to}, pasada {pass}"),
            })
            .remarkable()],
        TraceKind::LoopLimit { passes, .. } => {
            let why = match l {
                Lang::En => format!("loop past {passes} passes"),
                Lang::Es => format!("bucle de más de {passes} pasadas"),
            };
            vec![note(c, c, name)
                .style(Style::Refused)
                .says(format!(": {why}"))]
        }
        _ => unreachable!("not a flow entry"),
    }
}

/// The rows of an error policy's entries: a retry, a dead letter, giving up.
fn policy_rows(kind: &TraceKind, c: Lane, l: Lang) -> Vec<Draft> {
    let w = |en, es| l.choose(en, es);
    match kind {
        TraceKind::Retrying { attempt, .. } => vec![note(c, c, w("retry", "reintento"))
            .says(match l {
                Lang::En => format!(", attempt {attempt}"),
                Lang::Es => format!(", intento {attempt}"),
            })
            .remarkable()],
        TraceKind::DeadLetterSent { outcome } => {
            let d = message(c, Lane::Broker, "dead-letter").remarkable();
            vec![match outcome {
                AckOutcome::Accepted | AckOutcome::StaleAccepted => d,
                _ => d
                    .style(Style::Refused)
                    .says(w(": stale, ignored", ": vencido, ignorado")),
            }]
        }
        TraceKind::GaveUp { then, .. } => {
            let what = match then {
                crate::model::GiveUp::Ack => w(": acked unprocessed", ": ack sin procesar"),
                crate::model::GiveUp::DeadLetter => w(": dead-lettered", ": a la DLQ"),
                crate::model::GiveUp::Redeliver => w(": redelivery", ": reentrega"),
            };
            vec![note(c, c, w("gives up", "se rinde"))
                .says(what)
                .remarkable()]
        }
        _ => unreachable!("not an error policy's entry"),
    }
}

/// The note that a duplicate was recognised.
fn duplicate_note(c: Lane, l: Lang) -> Draft {
    note(c, c, l.choose("duplicate", "duplicado")).says(l.choose(" recognised", " reconocido"))
}

/// The rows of an inbox insert or check: done, waiting, or refused as a duplicate or as
/// the same id with another payload.
fn inbox_rows(action: &str, kind: &TraceKind, c: Lane, busy: bool, l: Lang) -> Vec<Draft> {
    let w = |en, es| l.choose(en, es);
    let verb = if action == "insert_inbox" {
        "INSERT inbox"
    } else {
        "SELECT inbox"
    };
    let d = message(c, Lane::Database, verb);
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let answer = kind.db_answer();
    if busy {
        vec![d
            .style(Style::Wait)
            .says(w(": busy, wait", ": ocupada, espera"))]
    } else if matches!(answer, Some(DbOutcome::Found | DbOutcome::Duplicate)) {
        vec![refused(d, w("exists", "ya existe")), duplicate_note(c, l)]
    } else if answer == Some(DbOutcome::PayloadMismatch) {
        let why = w(
            "{e}: same id, other payload, refused",
            "{e}: mismo id, otro payload, rechazado",
        );
        vec![
            refused(d, w("other payload", "otro payload")),
            note(c, c, why),
        ]
    } else if action == "check_inbox" {
        vec![d.says(w(": none", ": no está"))]
    } else {
        vec![d]
    }
}

/// The row of an `apply_effect`: applied, read, refused, or kept pending.
fn effect_row(c: Lane, kind: &TraceKind, busy: bool, l: Lang) -> Draft {
    let w = |en, es| l.choose(en, es);
    let to_db = |verb| message(c, Lane::Database, verb);
    let refused = |d: Draft, why: &str| d.style(Style::Refused).says(format!(": {why}"));
    let d = to_db(w("apply", "aplica"));
    if busy {
        return d
            .style(Style::Wait)
            .says(w(": busy, wait", ": ocupada, espera"));
    }
    let TraceKind::Db { outcome, .. } = kind else {
        return d.says(format!(": {}", l.trace_outcome(kind))).remarkable();
    };
    match outcome {
        DbOutcome::AppliedWithPending => d
            .says(w(
                " and its waiting completion",
                " y la completion que esperaba",
            ))
            .remarkable(),
        DbOutcome::Buffered => d
            .says(w(
                ": transfer unknown, kept pending",
                ": transferencia desconocida, queda pendiente",
            ))
            .remarkable(),
        DbOutcome::Applied => d,
        DbOutcome::BalancesRead { .. } => to_db(w("read balances", "lee saldos")),
        DbOutcome::CreditFailed => refused(d, w("credit fails", "el crédito falla")),
        DbOutcome::Rejected => refused(
            d,
            w(
                "rejected, unknown transfer",
                "rechazado, transferencia desconocida",
            ),
        ),
        DbOutcome::BusinessDuplicate => refused(
            d,
            w("transfer already applied", "transferencia ya aplicada"),
        ),
        // (A stale snapshot is drawn as a wait, above.)
        _ => d.says(format!(": {}", l.trace_outcome(kind))).remarkable(),
    }
}

/// The row of an `ack`: accepted, lost, stale or refused.
fn ack_row(c: Lane, kind: &TraceKind, l: Lang) -> Draft {
    let w = |en, es| l.choose(en, es);
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
        } => d.says(w(", offset later", ", offset después")),
        TraceKind::AckLost => refused(d, w("lost on the way", "se pierde en el camino")),
        TraceKind::Acked {
            outcome: AckOutcome::Stale,
            ..
        } => refused(d, w("stale, ignored", "vencido, ignorado")),
        TraceKind::Acked {
            outcome: AckOutcome::StaleAccepted,
            ..
        } => d
            .says(w(", stale, accepted", ", vencido, aceptado"))
            .remarkable(),
        TraceKind::StepFailed { .. } | TraceKind::SqlFailed { .. } => {
            refused(d, w("fails", "falla"))
        }
        TraceKind::Acked {
            outcome: AckOutcome::AlreadyAcked,
            ..
        } => d.says(w(", already acked", ", ya tenía ack")).remarkable(),
        _ => d.says(format!(": {}", l.trace_outcome(kind))).remarkable(),
    }
}

pub(super) fn broker_rows(kind: &TraceKind, again: bool, l: Lang) -> Vec<Draft> {
    let w = |en, es| l.choose(en, es);
    let b = Lane::Broker;
    match kind {
        // A redelivery is how a protocol recovers, or duplicates: always drawn.
        TraceKind::Delivered { consumer } if again => {
            vec![message(b, Lane::Consumer(*consumer), w("redeliver", "reentrega")).remarkable()]
        }
        TraceKind::Delivered { consumer } => {
            vec![message(
                b,
                Lane::Consumer(*consumer),
                w("deliver", "entrega"),
            )]
        }
        TraceKind::ConnectionLost {
            consumer,
            rebalance,
        } => {
            let what = match (l, rebalance) {
                (Lang::En, true) => "left the group: rebalance",
                (Lang::En, false) => "gone: its unacked redelivered",
                (Lang::Es, true) => "dejó el grupo: rebalanceo",
                (Lang::Es, false) => "se fue: lo que no tenía ack se reentrega",
            };
            vec![note(b, b, w("connection lost", "conexión perdida"))
                .says(format!(": C{consumer} {what}"))]
        }
        TraceKind::DeadLettered { .. } => {
            vec![message(b, Lane::DeadLetters, w("dead-letter", "a la DLQ")).remarkable()]
        }
        TraceKind::DeadLettersEmpty | TraceKind::DeadLetterReplayed => {
            vec![message(Lane::DeadLetters, b, w("replay", "reinyecta")).remarkable()]
        }
        other => vec![queue_note(other, l).unwrap_or_else(|| {
            note(b, b, "broker").says(format!(" {}: {}", other.action(), l.trace_outcome(other)))
        })],
    }
}

/// A note the broker makes about its own queue (a message ready again, visible, expired,
/// duplicated or replayed late, a delivery's outputs settled or discarded), or `None`.
fn queue_note(kind: &TraceKind, l: Lang) -> Option<Draft> {
    let w = |en, es| l.choose(en, es);
    let (verb, routine) = match kind {
        TraceKind::Requeued => (
            w("{e} ready for redelivery", "{e} listo para reentrega"),
            false,
        ),
        TraceKind::Visible => (
            w("{e} visible after its delay", "{e} visible tras su demora"),
            true,
        ),
        TraceKind::LeaseExpired => (w("lease of {e} expired", "vence el lease de {e}"), false),
        TraceKind::BrokerDuplicate => (w("broker duplicates", "el broker duplica"), false),
        TraceKind::LateReplay => (
            w("{e} acked, replayed late", "{e} con ack, repetido tarde"),
            false,
        ),
        TraceKind::OutputsSettled { committed: false } => {
            (w("{e} outputs aborted", "{e}: salidas abortadas"), false)
        }
        TraceKind::OutputsSettled { committed: true } => {
            (w("{e} outputs visible", "{e}: salidas visibles"), true)
        }
        TraceKind::OutputsDiscarded => (
            w("{e} outputs discarded", "{e}: salidas descartadas"),
            false,
        ),
        _ => return None,
    };
    let mut d = note(Lane::Broker, Lane::Broker, verb);
    d.routine = routine;
    Some(d)
}

/// An external effect sent, or a named service called: a note on the consumer, since
/// nothing takes it back.
fn external_row(c: Lane, kind: &TraceKind, l: Lang) -> Draft {
    let w = |en, es| l.choose(en, es);
    let never = w(", never rolled back", ", sin rollback posible");
    match kind {
        TraceKind::Called { service } => {
            note(c, c, w("call", "llama a")).says(format!(" {service}{never}"))
        }
        _ => note(c, c, w("external effect", "efecto externo")).says(never),
    }
}
