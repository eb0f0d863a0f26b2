//! The run report (`run`), in both languages: the English is the report as it has always been printed.

use super::*;
use crate::check::Anomaly;
use crate::check::AnomalyKind as K;
use crate::model::Effect;

impl Lang {
    // ---------------------------------------------------------------- the run report
    //
    // The English of these is the run report as it has always been printed (the README and
    // the tests compare it byte for byte); the Spanish says the same.

    pub fn run_label(self, label: RunLabel) -> &'static str {
        let (en, es) = match label {
            RunLabel::Scenario => ("scenario", "escenario"),
            RunLabel::Protocol => ("protocol", "protocolo"),
            RunLabel::Run => ("run", "corrida"),
            RunLabel::Crashes => ("crashes", "caídas"),
            RunLabel::Verdict => ("verdict", "veredicto"),
            RunLabel::Effects => ("effects", "efectos"),
            RunLabel::Boundaries => ("boundaries", "fronteras"),
            RunLabel::Alerts => ("alerts", "alertas"),
            RunLabel::Retention => ("retention", "retención"),
            RunLabel::External => ("external", "externos"),
            RunLabel::Events => ("events", "eventos"),
            RunLabel::Anomalies => ("anomalies", "anomalías"),
            RunLabel::Intent => ("intent", "intención"),
            RunLabel::Trace => ("trace", "traza"),
            RunLabel::Expect => ("expect", "esperado"),
            RunLabel::Checks => ("checks", "controles"),
            RunLabel::Replay => ("replay", "reproducir"),
        };
        match self {
            Lang::En => en,
            Lang::Es => es,
        }
    }

    pub fn stop_text(self, stop: StopReason) -> &'static str {
        match (self, stop) {
            (Lang::En, StopReason::Quiescent) => "nothing left to do",
            (Lang::En, StopReason::StepLimit) => "STEP LIMIT REACHED",
            (Lang::En, StopReason::TickLimit) => "TICK LIMIT REACHED",
            (Lang::Es, StopReason::Quiescent) => "no quedaba nada por hacer",
            (Lang::Es, StopReason::StepLimit) => "SE ALCANZÓ EL LÍMITE DE PASOS",
            (Lang::Es, StopReason::TickLimit) => "SE ALCANZÓ EL LÍMITE DE TICKS",
            (Lang::En, StopReason::TraceLimit) => "TRACE LIMIT REACHED",
            (Lang::Es, StopReason::TraceLimit) => "SE ALCANZÓ EL LÍMITE DE TRAZA",
            (Lang::En, StopReason::SqlLimit) => "SQL LIMIT REACHED",
            (Lang::Es, StopReason::SqlLimit) => "SE ALCANZÓ EL LÍMITE DE SQL",
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn run_line(
        self,
        seed: u64,
        events: usize,
        republished: usize,
        altered: usize,
        steps: u64,
        ticks: u64,
        stop: StopReason,
    ) -> String {
        match self {
            Lang::En => format!(
                "seed {seed}, {events} events ({republished} republished{}), {steps} steps, \
                 {ticks} ticks, stopped: {}",
                match altered {
                    0 => String::new(),
                    n => format!(", {n} with another payload"),
                },
                self.stop_text(stop)
            ),
            Lang::Es => format!(
                "semilla {seed}, {} ({}{}), {}, {ticks} ticks, terminó: {}",
                pl(events as u64, "evento", "eventos"),
                pl(republished as u64, "republicado", "republicados"),
                match altered {
                    0 => String::new(),
                    n => format!(", {n} con otro payload"),
                },
                pl(steps, "paso", "pasos"),
                self.stop_text(stop)
            ),
        }
    }

    pub fn crashes_none(self) -> &'static str {
        match self {
            Lang::En => "none",
            Lang::Es => "ninguna",
        }
    }

    pub fn crash_line(
        self,
        point: &str,
        tick: u64,
        cause: CrashCause,
        rolled_back: bool,
    ) -> String {
        let cause = match (self, cause) {
            (_, CrashCause::Planned(i)) => format!("faults.crash[{i}]"),
            (Lang::En, CrashCause::Random) => "random".into(),
            (Lang::Es, CrashCause::Random) => "aleatoria".into(),
        };
        match (self, rolled_back) {
            (Lang::En, false) => format!("{point} at t={tick} ({cause})"),
            (Lang::En, true) => {
                format!(
                    "{point} at t={tick} ({cause}); the database rolled back the open transaction"
                )
            }
            (Lang::Es, false) => format!("{point} en t={tick} ({cause})"),
            (Lang::Es, true) => {
                format!("{point} en t={tick} ({cause}); la base de datos revirtió la transacción abierta")
            }
        }
    }

    /// `at-most-once: 2 once, 1 lost, 0 duplicated; all acked; balances conserved`, with
    /// the guarantee as given (it may be painted).
    /// The run's effects per event (its guarantee is the verdict line's).
    pub fn effects_line(self, v: &Verdict) -> String {
        let (once, lost, duplicated, [stuck, altered, invalid], [acked, not_acked]) = match self {
            Lang::En => (
                "once",
                format!("{} lost", v.lost),
                format!("{} duplicated", v.duplicated),
                [
                    "stuck (a liveness failure)",
                    "applied with an altered payload",
                    "invalid, refused as they should be",
                ],
                ["all acked", "NOT ALL ACKED"],
            ),
            Lang::Es => (
                "una vez",
                pl(v.lost, "perdido", "perdidos"),
                pl(v.duplicated, "duplicado", "duplicados"),
                [
                    "atascado(s) (una falla de progreso)",
                    "aplicado(s) con un payload alterado",
                    "inválido(s), rechazado(s) como corresponde",
                ],
                ["todos con ack", "NO TODOS CON ACK"],
            ),
        };
        let others = nonzero(
            ", ",
            &[
                (v.stuck, stuck),
                (v.wrong_effects, altered),
                (v.invalid, invalid),
            ],
        );
        format!(
            "{} {once}, {lost}, {duplicated}{others}{}; {}; {}",
            v.exactly_once,
            self.parked_part(v),
            if v.all_acked { acked } else { not_acked },
            self.conservation_part(v)
        )
    }

    /// The events parked or refused, when there are any: dead-lettered (counted as lost),
    /// rejected as out of order, still pending.
    fn parked_part(self, v: &Verdict) -> String {
        match self {
            Lang::En => {
                if v.dead_lettered + v.rejected + v.pending > 0 {
                    format!(
                        ", {} dead-lettered{}, {} rejected as out of order{}",
                        v.dead_lettered,
                        if v.dead_lettered > 0 {
                            " (counted as lost: replaying the dead-letter queue would \
                             recover them, and this scenario does not)"
                        } else {
                            ""
                        },
                        v.rejected,
                        if v.pending > 0 {
                            format!(", {} still pending", v.pending)
                        } else {
                            String::new()
                        }
                    )
                } else {
                    String::new()
                }
            }
            Lang::Es => {
                if v.dead_lettered + v.rejected + v.pending > 0 {
                    format!(
                        ", {} en la DLQ{}, {}{}",
                        v.dead_lettered,
                        if v.dead_lettered > 0 {
                            " (contados como perdidos: reprocesar la DLQ los recuperaría, y \
                             este escenario no lo hace)"
                        } else {
                            ""
                        },
                        pl(
                            v.rejected,
                            "rechazado por llegar fuera de orden",
                            "rechazados por llegar fuera de orden"
                        ),
                        if v.pending > 0 {
                            format!(", {} todavía pendiente(s)", v.pending)
                        } else {
                            String::new()
                        }
                    )
                } else {
                    String::new()
                }
            }
        }
    }

    /// With the scenario's own schema: whether its invariants held, and which did not.
    fn invariants_part(self, v: &Verdict) -> String {
        let broken: Vec<String> = v
            .invariants
            .iter()
            .filter(|i| !i.holds)
            .map(|i| match self {
                Lang::En => format!("`{}` gave {}", i.sql, i.value.english()),
                Lang::Es => format!("`{}` dio {}", i.sql, self.check_value(&i.value)),
            })
            .collect();
        match (self, broken.is_empty()) {
            (Lang::En, true) => "invariants hold".to_string(),
            (Lang::Es, true) => "los invariantes se cumplen".to_string(),
            (Lang::En, false) => format!("INVARIANT BROKEN: {}", broken.join("; ")),
            (Lang::Es, false) => format!("INVARIANTE ROTO: {}", broken.join("; ")),
        }
    }

    /// Whether the balances were conserved, and if not, by how much and where.
    fn conservation_part(self, v: &Verdict) -> String {
        if v.own_schema {
            return self.invariants_part(v);
        }
        let [conserved, not_conserved, units, opening, drifted] = match self {
            Lang::En => [
                "balances conserved",
                "BALANCES NOT CONSERVED",
                "minor units",
                "opening",
                "disagrees with its ledger rows: an update was lost",
            ],
            Lang::Es => [
                "saldos conservados",
                "SALDOS NO CONSERVADOS",
                "unidades menores",
                "apertura",
                "no coincide con sus asientos: se perdió una actualización",
            ],
        };
        if v.conserved {
            return conserved.to_string();
        }
        let drift = match (self, v.drifted_accounts.join(", ")) {
            (_, accounts) if accounts.is_empty() => String::new(),
            (Lang::En, accounts) => format!("; the balance of {accounts} {drifted}"),
            (Lang::Es, accounts) => format!("; el saldo de {accounts} {drifted}"),
        };
        format!(
            "{not_conserved} (total {} {units}, {opening} {}{drift})",
            v.balance_total_minor, v.opening_total_minor
        )
    }

    pub fn alerts_line(self, n: u64) -> String {
        match self {
            Lang::En => format!(
                "{n} payload alert(s): a copy arrived with a known event_id and another payload \
                 (producer corruption); refused, not applied, not counted as a duplicate"
            ),
            Lang::Es => format!(
                "{}: llegó una copia con un event_id conocido y otro payload (corrupción del \
                 productor); rechazada, no aplicada, no contada como duplicado",
                pl(n, "alerta de payload", "alertas de payload")
            ),
        }
    }

    pub fn retention_line(self, ttl: u64, every: u64, batch: u32, deleted: u64) -> String {
        match self {
            Lang::En => format!(
                "inbox TTL {ttl} ticks, cleanup every {every} ticks in batches of at most \
                 {batch}: {deleted} inbox row(s) deleted"
            ),
            Lang::Es => format!(
                "TTL del inbox {ttl} ticks, limpieza cada {every} ticks en lotes de hasta \
                 {batch}: {} borradas",
                pl(deleted, "fila de inbox", "filas de inbox")
            ),
        }
    }

    pub fn external_line(self, n: u64, repeated: &[String]) -> String {
        match self {
            Lang::En => format!(
                "{n} external effect(s), outside the database's guarantee{}",
                if repeated.is_empty() {
                    String::new()
                } else {
                    format!("; sent more than once: {}", repeated.join(", "))
                }
            ),
            Lang::Es => format!(
                "{}, fuera de la garantía de la base{}",
                pl(n, "efecto externo", "efectos externos"),
                if repeated.is_empty() {
                    String::new()
                } else {
                    format!("; enviados más de una vez: {}", repeated.join(", "))
                }
            ),
        }
    }

    pub fn events_header(self) -> &'static str {
        match self {
            Lang::En => "#    event_id                              effects  inbox  acked  outcome",
            Lang::Es => {
                "#    event_id                              efectos  inbox  ack    resultado"
            }
        }
    }

    pub fn yes_no(self, yes: bool) -> &'static str {
        match (self, yes) {
            (Lang::En, true) => "yes",
            (Lang::Es, true) => "sí",
            (_, false) => "NO",
        }
    }

    pub fn external_note(self, n: u32) -> String {
        match self {
            Lang::En => format!(" (external effects: {n})"),
            Lang::Es => format!(" (efectos externos: {n})"),
        }
    }

    pub fn note_amounts(self, amounts: &str) -> String {
        match self {
            Lang::En => format!("amounts {amounts}"),
            Lang::Es => format!("importes {amounts}"),
        }
    }

    pub fn note_alerts(self, n: usize) -> String {
        match self {
            Lang::En => format!("payload alerts: {n}"),
            Lang::Es => format!("alertas de payload: {n}"),
        }
    }

    pub fn note_replays(self, n: u32) -> String {
        match self {
            Lang::En => format!("replayed from the dead-letter queue {n} time(s)"),
            Lang::Es => format!("reprocesado desde la DLQ {}", pl(n, "vez", "veces")),
        }
    }

    pub fn more_events(self, n: usize) -> String {
        match self {
            Lang::En => format!("… {n} more events (see --json)"),
            Lang::Es => format!("… {n} eventos más (ver --json)"),
        }
    }

    pub fn anomalies_none(self) -> &'static str {
        match self {
            Lang::En => "none",
            Lang::Es => "ninguna",
        }
    }

    /// What one anomaly of the run report is, in capitals first: `LOST: no effect
    /// committed, …`.
    /// What anomaly `a` of event `e` is; `effect` is where the effect lives, when the
    /// scenario declares it elsewhere than its main database (`check.effect`).
    pub fn run_anomaly(self, a: Anomaly, effect: Option<crate::model::Effect>) -> String {
        let e = a.event;
        let detail = Lang::detail_of(a.kind, e, a.alert).unwrap_or_default();
        match (self, a.kind) {
            (_, K::Lost | K::Duplicated) if matches!(effect, Some(Effect::External(_))) => {
                self.call_anomaly(a, effect)
            }
            (_, K::Lost | K::Duplicated | K::PayloadMismatch) => self.effect_anomaly(a),
            (Lang::En, K::Pending) => "PENDING: a completion still waiting in pending_event when \
                                      the run ended; no TransferCreated released it (none took \
                                      effect, or, on PostgreSQL, one committed beside it \
                                      without seeing its row)"
                .into(),
            (Lang::Es, K::Pending) => "PENDIENTE: una finalización que seguía esperando en \
                                      pending_event cuando terminó la corrida; ningún \
                                      TransferCreated la liberó (ninguno tuvo efecto o, en \
                                      PostgreSQL, uno confirmó a su lado sin ver su fila)"
                .into(),
            (Lang::En, K::Rejected) => "REJECTED: a completion handled before its transfer's \
                                       creation was committed; the projection refused it and \
                                       the transfer never completes"
                .into(),
            (Lang::Es, K::Rejected) => "RECHAZADO: una finalización procesada antes de que se \
                                       confirmara la creación de su transferencia; la \
                                       proyección la rechazó y la transferencia nunca se \
                                       completa"
                .into(),
            (Lang::En, K::Unpublished) => "UNPUBLISHED: the producer committed its transfer but \
                                          never published it; no consumer can see it"
                .into(),
            (Lang::Es, K::Unpublished) => "NO PUBLICADO: el productor confirmó su transferencia \
                                          pero nunca la publicó; ningún consumidor la puede ver"
                .into(),
            (Lang::En, K::DeadLettered) => format!("DEAD-LETTERED: no effect committed; {detail}"),
            (Lang::Es, K::DeadLettered)
                if crate::model::GaveUpRecord::dead_lettered_last(&e.gave_up, e.deliveries) =>
            {
                "EN LA DLQ: no se confirmó ningún efecto; la política de errores del consumidor \
                 lo mandó a la DLQ (on_error: dead_letter): perdido, salvo que se reprocese la \
                 DLQ, cosa que esta corrida no hizo"
                    .into()
            }
            (Lang::Es, K::DeadLettered) => "EN LA DLQ: no se confirmó ningún efecto; el broker \
                                            lo mandó a la DLQ al llegar a \
                                            broker.max_deliveries entregas: perdido, salvo que \
                                            se reprocese la DLQ, cosa que esta corrida no hizo"
                .into(),
            (Lang::En, K::Stuck) => format!("STUCK: {detail}"),
            (Lang::Es, K::Stuck) => format!(
                "ATASCADO: sin resolver cuando terminó la corrida ({}); el broker todavía lo \
                 retiene: una falla de progreso",
                pl(e.effects, "efecto", "efectos")
            ),
            (Lang::En, K::Invalid) => format!("INVALID: {detail}"),
            (Lang::Es, K::Invalid) => "INVÁLIDO: el escenario declara inválido su payload \
                                      (workload.invalid); el consumidor lo rechazó en cada \
                                      entrega y nunca lo aplicó, como corresponde"
                .into(),
            (Lang::En, K::WrongEffect) => format!("WRONG EFFECT: {detail}"),
            (Lang::Es, K::WrongEffect) => format!(
                "EFECTO ERRÓNEO: se aplicó con el importe {} en lugar del suyo, {}: llegó antes \
                 una copia con el mismo event_id y otro payload",
                e.amounts_minor.first().copied().unwrap_or_default(),
                e.amount_minor
            ),
            (Lang::En, K::Torn) => format!("TORN: half an effect committed ({detail})"),
            (Lang::Es, K::Torn) => {
                let (d, c) = Lang::Es.ledger_rows(e.debits, e.credits);
                format!("PARTIDO: se confirmó medio efecto ({d}, {c})")
            }
            (Lang::En, _) => format!("UNACKED: {detail}"),
            (Lang::Es, _) => format!(
                "SIN ACK: {}",
                match e.unacked_reason {
                    Some(why) => self.unacked_reason(why),
                    None => "quedó sin ack, sin nada más para ejecutar".into(),
                }
            ),
        }
    }

    /// A lost or duplicated effect that is a call to an external service: what the service
    /// saw, not what a database committed.
    fn call_anomaly(self, a: Anomaly, effect: Option<Effect>) -> String {
        let e = a.event;
        let Some(Effect::External(service)) = effect else {
            return self.effect_anomaly(a);
        };
        let acked = match (self, e.acked) {
            (_, false) => "",
            (Lang::En, true) => ", and it is acked: the broker will never deliver it again",
            (Lang::Es, true) => ", y tiene ack: el broker no lo va a volver a entregar",
        };
        match (self, a.kind) {
            (Lang::En, K::Lost) => format!("LOST: `{service}` was never called for it{acked}"),
            (Lang::Es, K::Lost) => format!("PERDIDO: nunca se llamó a `{service}` por él{acked}"),
            (Lang::En, _) => format!("DUPLICATED: `{service}` was called {} times", e.effects),
            (Lang::Es, _) => format!("DUPLICADO: se llamó a `{service}` {} veces", e.effects),
        }
    }

    /// A run anomaly about the event's effect: lost, duplicated, or another payload refused.
    fn effect_anomaly(self, a: Anomaly) -> String {
        let e = a.event;
        let detail = Lang::detail_of(a.kind, e, a.alert);
        match (self, a.kind) {
            (_, K::Lost) => {
                let [label, nothing, half, acked] = match self {
                    Lang::En => [
                        "LOST",
                        "no effect committed",
                        "only half of its transfer committed",
                        ", and it is acked: the broker will never deliver it again",
                    ],
                    Lang::Es => [
                        "PERDIDO",
                        "no se confirmó ningún efecto",
                        "solo se confirmó la mitad de su transferencia",
                        ", y tiene ack: el broker no lo va a volver a entregar",
                    ],
                };
                let committed = if e.effects == 0 { nothing } else { half };
                format!("{label}: {committed}{}", if e.acked { acked } else { "" })
            }
            (Lang::En, K::Duplicated) => format!(
                "DUPLICATED: its effect is committed {} times{}",
                e.effects,
                detail
                    .as_deref()
                    .map_or(String::new(), |d| format!(" ({d})"))
            ),
            (Lang::Es, K::Duplicated) => format!(
                "DUPLICADO: su efecto quedó confirmado {} veces{}",
                e.effects,
                es_duplicate_detail(e)
            ),
            (Lang::En, K::PayloadMismatch) => {
                format!("PAYLOAD MISMATCH: {}", detail.unwrap_or_default())
            }
            (Lang::Es, K::PayloadMismatch) => es_payload_mismatch(a),
            (_, kind) => unreachable!("{kind:?} is not an effect anomaly"),
        }
    }

    pub fn anomaly_line(
        self,
        event: usize,
        event_id: &str,
        what: &str,
        points: &[String],
        gave_up: &[String],
    ) -> String {
        let policy = match (self, gave_up.is_empty()) {
            (_, true) => String::new(),
            (Lang::En, false) => format!("; error policy: {}", gave_up.join("; ")),
            (Lang::Es, false) => format!("; política de errores: {}", gave_up.join("; ")),
        };
        let [event_word, unhit, points_word] = match self {
            Lang::En => ["event", "no crash hit it", "crash points"],
            Lang::Es => ["evento", "ninguna caída lo afectó", "puntos de caída"],
        };
        let hit = if points.is_empty() {
            unhit.to_string()
        } else {
            format!("{points_word}: {}", points.join(", "))
        };
        format!("{event_word} {event} ({event_id}) {what}; {hit}{policy}")
    }

    pub fn intent_line(self, intent: &IntentReport) -> String {
        let events: Vec<String> = intent.events.iter().map(|e| format!("e{e}")).collect();
        let (en, es) = match intent.outcome {
            ScopeOutcome::Lost => (
                "LOST: committed by the producer, its money never moved",
                "PERDIDA: el productor la confirmó, pero su dinero nunca se movió",
            ),
            ScopeOutcome::Duplicated => (
                "DUPLICATED: its money moved more than once",
                "DUPLICADA: su dinero se movió más de una vez",
            ),
            ScopeOutcome::Ghost => (
                "GHOST: its money moved, but the producer never committed the transfer",
                "FANTASMA: su dinero se movió, pero el productor nunca confirmó la transferencia",
            ),
            ScopeOutcome::Stuck => (
                "STUCK: its money has not moved, and the broker still holds its event",
                "ATASCADA: su dinero no se movió, y el broker todavía retiene su evento",
            ),
            ScopeOutcome::WrongEffect | ScopeOutcome::Once | ScopeOutcome::NotApplicable => {
                ("", "")
            }
        };
        match self {
            Lang::En => format!(
                "{} (e{}) {en} ({} time(s)); events published for it: {}",
                intent.transfer_id,
                intent.event,
                intent.effects,
                if events.is_empty() {
                    "none".to_string()
                } else {
                    events.join(", ")
                }
            ),
            Lang::Es => format!(
                "{} (e{}) {es} ({}); eventos publicados para ella: {}",
                intent.transfer_id,
                intent.event,
                pl(intent.effects, "vez", "veces"),
                if events.is_empty() {
                    "ninguno".to_string()
                } else {
                    events.join(", ")
                }
            ),
        }
    }

    pub fn trace_line(self, hash: &str, entries: usize) -> String {
        match self {
            Lang::En => format!("hash {hash} ({entries} entries)"),
            Lang::Es => format!("hash {hash} ({entries} entradas)"),
        }
    }

    pub fn expect_held(self) -> &'static str {
        match self {
            Lang::En => "held",
            Lang::Es => "se cumplió",
        }
    }

    /// How many runs a pinned check made, after its result.
    pub fn check_runs(self, runs: u64) -> String {
        match (self, runs) {
            (Lang::En, 1) => "1 run".into(),
            (Lang::En, n) => format!("{n} runs"),
            (Lang::Es, 1) => "1 corrida".into(),
            (Lang::Es, n) => format!("{n} corridas"),
        }
    }

    pub fn expect_failed(self) -> &'static str {
        match self {
            Lang::En => "FAILED",
            Lang::Es => "NO SE CUMPLIÓ",
        }
    }
}

/// Why an event's effect was committed more than once, in Spanish, when the report knows:
/// its inbox row expired, or a copy with another payload was applied; else nothing.
fn es_duplicate_detail(e: &crate::check::EventReport) -> String {
    if let Some(at) = e.inbox_expired_at {
        format!(
            " (el job de retención borró su fila de inbox en t={at}, así que una entrega \
             posterior no se reconoció como duplicado)"
        )
    } else if e.amounts_differ() {
        let amounts: Vec<String> = e.amounts_minor.iter().map(|a| a.to_string()).collect();
        format!(
            " (importes confirmados {}: se aplicó una copia con el mismo event_id y otro \
             payload)",
            amounts.join(", ")
        )
    } else {
        String::new()
    }
}

/// A payload refused as another for the same event_id, in Spanish: when, what was stored and
/// received, and which of the two was the event's own.
fn es_payload_mismatch(a: Anomaly) -> String {
    let e = a.event;
    let stored = a.alert.map_or("", |p| p.stored_payload.as_str());
    let received = a.alert.map_or("", |p| p.received_payload.as_str());
    let at = e
        .payload_alerts
        .iter()
        .find(|p| p.stored_payload == stored && p.received_payload == received)
        .map_or(0, |p| p.detected_at);
    let genuine = e
        .payload_alerts
        .iter()
        .any(|p| p.stored_payload == stored && p.refused_genuine);
    format!(
        "PAYLOAD DISTINTO: el mismo event_id llegó con otro payload en t={at}: \
         rechazado y alertado, no aplicado; guardado {stored}, recibido {received}{}",
        if genuine {
            " (el rechazado es el payload propio del evento: antes llegó una copia \
             alterada)"
        } else {
            " (el rechazado es una copia alterada)"
        }
    )
}
