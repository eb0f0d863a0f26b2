//! The trace lines (`run --trace`): each entry's outcome in the reader's language, rendered
//! from its [`TraceKind`]. English is the trace's own wording (`Display` in
//! `model::trace`); Spanish is written here, variant by variant.

use super::*;
use crate::model::trace::event_names;
use crate::model::{
    AckOutcome, Confirmation, DbOutcome, GiveUp, Limit, Publication, Step, TraceKind,
};
use crate::sim::TraceEntry;

impl Lang {
    /// One trace line: tick, actor, action, delivery, and what came of it.
    pub fn trace_entry(self, e: &TraceEntry) -> String {
        match self {
            Lang::En => e.to_string(),
            Lang::Es => e.line(&self.trace_outcome(&e.kind)),
        }
    }

    /// What came of a trace entry, in words.
    pub fn trace_outcome(self, kind: &TraceKind) -> String {
        match self {
            Lang::En => kind.to_string(),
            Lang::Es => es_outcome(kind),
        }
    }
}

/// A database answer, in Spanish.
fn es_db(outcome: DbOutcome) -> &'static str {
    match outcome {
        DbOutcome::Begun => "BEGIN",
        DbOutcome::Found => "fila del inbox encontrada: duplicado",
        DbOutcome::NotFound => "fila del inbox no encontrada",
        DbOutcome::Inserted => "fila del inbox insertada",
        DbOutcome::Duplicate => "falla la restricción UNIQUE: duplicado",
        DbOutcome::Applied => "débito y crédito aplicados",
        DbOutcome::CreditFailed => "débito aplicado, el crédito falla (inyectado)",
        DbOutcome::Committed => "COMMIT",
        DbOutcome::RolledBack => "ROLLBACK",
        DbOutcome::Busy { .. } => "SQLITE_BUSY: otra conexión tiene el lock de escritura; espera",
        DbOutcome::Blocked { .. } => {
            "espera un lock que tiene otra transacción (PostgreSQL encola la sentencia)"
        }
        DbOutcome::AlreadyCompleted => "transferencia ya completada: nada que hacer",
        DbOutcome::Rejected => {
            "rechazado: completa una transferencia que la proyección (todavía) no conoce"
        }
        DbOutcome::BusinessDuplicate => {
            "falla la restricción UNIQUE sobre el transfer_id del ledger: esta transferencia ya \
             se aplicó con otro event_id"
        }
        DbOutcome::EmailQueued => "correo encolado en email_outbox (se confirma con el efecto)",
        DbOutcome::Buffered => {
            "transferencia todavía desconocida: la completion queda en pending_event hasta que \
             se cree"
        }
        DbOutcome::AppliedWithPending => {
            "débito y crédito aplicados, y la completion que esperaba en pending_event"
        }
        DbOutcome::BalancesRead { .. } => {
            "saldos leídos; la escritura, calculada a partir de ellos, va en el próximo turno"
        }
        DbOutcome::StaleSnapshot => {
            "SQLITE_BUSY_SNAPSHOT: escritura sobre un snapshot viejo; la transacción debe hacer \
             rollback"
        }
        DbOutcome::CommitRefused => {
            "COMMIT rechazado: falló una restricción FOREIGN KEY diferida; la transacción sigue \
             abierta y debe hacer rollback"
        }
        DbOutcome::SerializationFailure => {
            "no se pudo serializar el acceso (SQLSTATE 40001); PostgreSQL deshizo la \
             transacción"
        }
        DbOutcome::Deadlock => {
            "deadlock detectado (SQLSTATE 40P01): PostgreSQL canceló esta sentencia y deshizo \
             su transacción"
        }
        DbOutcome::PayloadMismatch => {
            "el inbox tiene este event_id con otro payload: corrupción del productor, no un \
             duplicado"
        }
        DbOutcome::AlertRecorded => "alerta de payload registrada y confirmada",
        DbOutcome::AlertExists => {
            "falla la restricción UNIQUE: este payload ya se alertó; no hay segunda alerta"
        }
        DbOutcome::CommitTimeout => "el COMMIT expiró: el resultado es desconocido",
        DbOutcome::Ran => "ejecutado",
        DbOutcome::RowFound => "devuelve una fila: duplicado",
        DbOutcome::NoChange => "no cambia ninguna fila: duplicado",
        DbOutcome::ConditionHeld => "se cumple su condición duplicate_if: duplicado",
    }
}

fn es_publication(how: Publication) -> String {
    match how {
        Publication::First => "publicado".into(),
        Publication::Again => "republicado (mismo event_id)".into(),
        Publication::Altered {
            amount_minor,
            original_minor,
        } => format!(
            "republicado con el mismo event_id y OTRO payload (amount_minor {amount_minor} en \
             vez de {original_minor}): un bug del productor"
        ),
        Publication::Minted { intent } => format!(
            "publicado con un event_id nuevo para la transferencia de e{intent}: otro evento \
             para cualquier inbox"
        ),
    }
}

fn es_limit(limit: Limit) -> String {
    match limit {
        Limit::Steps(n) => format!("límite de {n} pasos"),
        Limit::Ticks(n) => format!("límite de {n} ticks"),
        Limit::TraceEntries(n) => format!("límite de {n} entradas de traza"),
        Limit::SqlVmSteps(n) => format!("límite de SQL de {n} pasos de máquina virtual"),
    }
}

/// What came of an entry, in Spanish.
fn es_outcome(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        Received => "recibido".into(),
        NothingReady => "nada listo: espera".into(),
        Db { outcome, .. } | RolledBack { outcome } | Alert { outcome } => es_db(*outcome).into(),
        StepFailed { .. } => "falla (inyectado): no se hace nada".into(),
        SqlFailed { failure, .. } => format!("falla: {}", Lang::Es.sql_failure(failure)),
        HandlerFailed { error } => format!("devuelve un error: {error}"),
        Retrying { .. } | DeadLetterSent { .. } | GaveUp { .. } => es_policy(kind),
        Skipped { .. } | Caught { .. } | Kept { .. } | Jumped { .. } | LoopLimit { .. } => {
            es_flow(kind)
        }
        InvalidPayload => {
            "rechazado: el payload es inválido (workload.invalid), no se aplica nada".into()
        }
        CommitTimeout { .. } | Lookup { .. } => es_commit_timeout(kind),
        AckLost => "el ack se pierde en el camino: el consumer cree que lo envió, el broker \
                    nunca lo recibió"
            .into(),
        Acked { outcome, offsets } => match outcome {
            AckOutcome::Accepted if *offsets => {
                "procesado: cuenta para el próximo commit de offset"
            }
            AckOutcome::Accepted => "ack recibido: el broker olvida el mensaje",
            AckOutcome::AlreadyAcked => "ya tenía ack",
            AckOutcome::Stale => "ack viejo ignorado: el mensaje ya se reentregó",
            AckOutcome::StaleAccepted => {
                "ack viejo aceptado: el mensaje queda con ack, lo tenga quien lo tenga"
            }
        }
        .into(),
        OutputProduced { staged: true } => {
            "TransferApplied preparado en la transacción del broker (visible con el ack)".into()
        }
        OutputProduced { staged: false } => {
            "TransferApplied publicado en el tópico de salida (visible enseguida)".into()
        }
        ExternalEffectSent => "enviado (fuera de la base: nunca se deshace)".into(),
        Called { service } => {
            format!("`{service}` llamado (fuera de la base: nunca se deshace)")
        }
        Nacked => "rechazado: el broker lo va a reentregar".into(),
        Sleep { ticks } => format!(
            "un TransferCompleted: duerme {ticks} ticks para darle tiempo a su TransferCreated, \
             con la entrega en la mano"
        ),
        Stall { boundary, ticks } => format!(
            "se detiene en {boundary} durante {ticks} ticks, con su entrega y su transacción"
        ),
        ConsumerRestart => "vuelve a receive".into(),
        Crash { boundary, cause } => match cause {
            CrashCause::Planned(i) => format!("caída en {boundary} (faults.crash[{i}])"),
            CrashCause::Random => format!("caída en {boundary} (aleatoria)"),
        },
        CrashRollback => "la base de datos hace rollback de la transacción abierta".into(),
        StopRollback => "rollback de la transacción abierta".into(),
        _ => es_others(kind),
    }
}

/// A protocol's branches, loops and kept values, in Spanish.
fn es_flow(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        Skipped { .. } => "se salta: su `when` no se cumple".into(),
        Caught { to, rollback, .. } => match rollback {
            true => format!("fallo capturado: revierte y sigue en `{to}`"),
            false => format!("fallo capturado: sigue en `{to}` en la misma transacción"),
        },
        Kept { into, row, .. } => match row {
            Some(row) => format!("guarda `{into}`: {row}"),
            None => format!("guarda `{into}`: ninguna fila (toda columna NULL)"),
        },
        Jumped { to, pass, .. } => format!("goto `{to}` (pasada {pass})"),
        LoopLimit { passes, .. } => format!(
            "falla: un salto atrás más pasaría de las {passes} pasadas que admite una entrega"
        ),
        _ => unreachable!("not a flow entry"),
    }
}

/// A commit that timed out, and the lookup that may follow, in Spanish.
fn es_commit_timeout(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        CommitTimeout {
            nth: _, // On the line's step: `commit#2`.
            fault,
            committed,
            strategy,
        } => format!(
            "el COMMIT expiró (inyectado, faults.commit_timeout[{fault}]): {}; el consumer no \
             puede saberlo, y {}",
            if *committed {
                "SÍ se confirmó, se perdió la respuesta"
            } else {
                "NO se confirmó, la base de datos hizo rollback"
            },
            match strategy {
                CommitTimeoutStrategy::Retry => "reintenta la transacción a ciegas",
                CommitTimeoutStrategy::Abandon => "la da por hecha",
                CommitTimeoutStrategy::Lookup => "busca el event_id antes de decidir",
            }
        ),
        Lookup { outcome } => match outcome {
            DbOutcome::Found => "fila del inbox encontrada: el commit ocurrió; sigue".into(),
            DbOutcome::NotFound => {
                "fila del inbox no encontrada: el commit no ocurrió; repite la transacción".into()
            }
            other => es_db(*other).into(),
        },
        _ => unreachable!("not a commit timeout's entry"),
    }
}

/// An error policy's entries, in Spanish.
fn es_policy(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        Retrying {
            attempt,
            backoff_ticks: 0,
        } => format!("política de errores: reintenta en seguida (intento {attempt})"),
        Retrying {
            attempt,
            backoff_ticks,
        } => format!(
            "política de errores: reintenta tras {backoff_ticks} ticks (intento {attempt}), \
             reteniendo la entrega"
        ),
        DeadLetterSent { outcome } => match outcome {
            AckOutcome::Accepted | AckOutcome::StaleAccepted => {
                "movido a la cola de mensajes muertos".into()
            }
            _ => "dead-letter rechazado: esta entrega ya no es la última del broker".into(),
        },
        GaveUp { then, step, nth } => {
            let step = crate::model::trace::occurrence_name(*step, *nth);
            match then {
                GiveUp::Redeliver => format!(
                    "la política de errores se rinde tras fallar `{step}`: rechaza para reentrega"
                ),
                GiveUp::Ack => format!(
                    "la política de errores se rinde tras fallar `{step}`: confirma (ack) sin \
                     haberlo procesado (el evento se salta)"
                ),
                GiveUp::DeadLetter => format!(
                    "la política de errores se rinde tras fallar `{step}`: a la cola de \
                     mensajes muertos"
                ),
            }
        }
        _ => unreachable!("not an error policy's entry"),
    }
}

/// The broker's, the upstream processes' and the simulator's entries, in Spanish.
fn es_others(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        Delivered { consumer } => format!("en vuelo hacia consumer{consumer}"),
        BrokerDuplicate => "el broker lo va a entregar otra vez (su propio duplicado)".into(),
        Visible => "listo después de su demora de entrega".into(),
        Requeued => "listo para reentrega".into(),
        LeaseExpired => "sin ack pasado su lease: listo otra vez mientras su consumer quizás \
                         sigue trabajando en él"
            .into(),
        LateReplay => "con ack, y listo otra vez al final de la ventana de replay del broker \
                       (broker.late_redelivery_ticks)"
            .into(),
        DeadLettered { deliveries, parked } => format!(
            "a la cola de dead letters después de {deliveries} entregas: {}",
            if *parked {
                "estacionado hasta que se reprocese la cola"
            } else {
                "nunca se vuelve a entregar"
            }
        ),
        DeadLettersEmpty => "la cola de dead letters está vacía: nada que reprocesar".into(),
        DeadLetterReplayed => "vuelve de la cola de dead letters, mismo event_id: listo otra \
                               vez, sus entregas se cuentan de nuevo"
            .into(),
        OutputsSettled { committed: true } => {
            "el ack confirma la transacción del broker: sus salidas se vuelven visibles".into()
        }
        OutputsSettled { committed: false } => {
            "el ack se rechaza: la transacción del broker aborta con sus salidas".into()
        }
        OutputsDiscarded => {
            "la transacción del broker aborta: sus salidas preparadas se descartan".into()
        }
        ConnectionLost {
            consumer,
            rebalance: true,
        } => format!(
            "consumer{consumer} deja el grupo: sus particiones se rebalancean y siguen desde sus \
             offsets confirmados"
        ),
        ConnectionLost { consumer, .. } => {
            format!("las entregas sin ack de consumer{consumer} se van a reentregar")
        }
        _ => es_upstream(kind),
    }
}

/// The producer's, the relays', the retention job's and the simulator's entries.
fn es_upstream(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        Published { .. }
        | PublishTimedOut { .. }
        | TransferInserted { .. }
        | TransferKnown
        | TransferCommitted
        | ProducerRestart { .. } => es_producer(kind),
        Stopped { .. } | Healing { .. } => es_stop(kind),
        Busy { step } => match step {
            Step::CommitTransfer => "SQLITE_BUSY en el COMMIT; espera",
            Step::MarkSent | Step::MarkEmailSent => "SQLITE_BUSY; espera",
            _ => "SQLITE_BUSY: otra conexión tiene el lock de escritura; espera",
        }
        .into(),
        OutboxEmpty => "outbox vacío: espera".into(),
        RelayPublished { row, event, how } => {
            format!("fila {row} del outbox: e{event} {}", es_publication(*how))
        }
        EmailSent {
            row,
            idempotency_key,
        } => format!(
            "fila {row} de correo enviada al servicio de correo, {}",
            if *idempotency_key {
                "con el event_id como clave de idempotencia"
            } else {
                "sin clave de idempotencia"
            }
        ),
        MarkedSent { row, .. } => format!("fila {row} marcada como enviada"),
        RelayRestart => "vuelve; lee el outbox desde su fila no enviada más vieja".into(),
        InboxExpired {
            rows,
            before_tick,
            ttl_ticks,
            events,
        } => format!(
            "borra {rows} fila(s) del inbox procesadas antes de t={before_tick} (TTL {ttl_ticks} \
             ticks): {}",
            event_names(events)
        ),
        CleanupBusy => {
            "SQLITE_BUSY: un consumer tiene el lock de escritura; no se borra nada".into()
        }
        _ => unreachable!("told by es_outcome and es_others"),
    }
}

/// The producer's entries (its transaction, its publications, its restart), in Spanish.
fn es_producer(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        Published {
            event,
            how,
            confirmation,
        } => {
            let how = es_publication(*how);
            match confirmation {
                Confirmation::Direct => how,
                Confirmation::Confirmed => format!("e{event} {how}: confirmado"),
                Confirmation::TimedOut => format!(
                    "e{event} {how}; llegó al broker, pero la confirmación expiró: el \
                     productor publica otra vez"
                ),
            }
        }
        PublishTimedOut { intent } => {
            format!("sin confirmación de la publicación de e{intent}: publica otra vez")
        }
        TransferInserted { outbox: true } => {
            "BEGIN; transferencia y fila del outbox insertadas (sin confirmar)".into()
        }
        TransferInserted { outbox: false } => {
            "BEGIN; transferencia insertada (sin confirmar)".into()
        }
        TransferKnown => "transferencia ya confirmada por un intento anterior: se responde el \
                          pedido con ella, no se hace nada más"
            .into(),
        TransferCommitted => "COMMIT".into(),
        ProducerRestart { retries: true } => {
            "vuelve; el cliente reintenta el pedido que no tuvo respuesta".into()
        }
        ProducerRestart { retries: false } => "vuelve; el pedido sin respuesta se abandona".into(),
        _ => unreachable!("not the producer's entry"),
    }
}

/// The simulator's own entries (a limit reached, the healing phase begun), in Spanish.
fn es_stop(kind: &TraceKind) -> String {
    use TraceKind::*;
    match kind {
        Stopped { limit, healing } => {
            let phase = if *healing {
                " de la fase de recuperación"
            } else {
                ""
            };
            format!("se alcanzó el {}{phase}", es_limit(*limit))
        }
        Healing {
            after,
            steps,
            ticks,
        } => format!(
            "se alcanzó el {} con trabajo pendiente: desde aquí no hay fallas, por hasta \
             {steps} pasos y {ticks} ticks más",
            es_limit(*after)
        ),
        _ => unreachable!("not the simulator's entry"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::samples::samples;

    #[test]
    fn every_kind_is_told_in_spanish_in_other_words() {
        // The database's own keywords read the same in both languages.
        let same = ["BEGIN", "COMMIT", "ROLLBACK"];
        for kind in samples() {
            let (en, es) = (Lang::En.trace_outcome(&kind), Lang::Es.trace_outcome(&kind));
            assert!(!es.is_empty(), "{kind:?}");
            assert!(en != es || same.contains(&es.as_str()), "{kind:?}: {es}");
        }
    }

    #[test]
    fn a_spanish_line_keeps_the_english_layout() {
        let e = TraceEntry {
            tick: 7,
            actor: crate::sim::Actor::Consumer(0),
            kind: TraceKind::AckLost,
            event: Some(1),
            copy: 1,
            delivery: 2,
        };
        let (en, es) = (Lang::En.trace_entry(&e), Lang::Es.trace_entry(&e));
        let prefix = |s: &str| s[..s.find("ack lost").or(s.find("el ack")).unwrap()].to_string();
        assert_eq!(prefix(&en), prefix(&es));
        assert!(
            es.contains("e1 copy1 d2") && es.contains("se pierde"),
            "{es}"
        );
    }
}
