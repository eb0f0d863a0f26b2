//! The message catalogue: every sentence `explain` writes, and the Spanish run report, in
//! English and in Spanish.
//!
//! Both languages are written, not translated word by word: each message is a whole
//! sentence per language (no fragments glued across languages), so that each reads as its
//! own language does. The Spanish is that of the course the simulator comes from
//! (rioplatense, with voseo where it speaks to the reader, and the course's terms: inbox,
//! ack, commit, reentrega, efecto, evento, transacción). Identifiers (`consumer0`, `e1`,
//! step names, SQL keywords, guarantee names) stay as the tool prints them everywhere.
//!
//! The language comes from `--lang`, else from the environment (`LC_ALL`, then
//! `LC_MESSAGES`, then `LANG`, as POSIX orders them: `es…` is Spanish), else English.

use super::json::Anomaly;
use crate::check::{EventReport, IntentReport, Outcome, ScopeOutcome, ScopeVerdict, Verdict};
use crate::consumer::CommitTimeoutStrategy;
use crate::explore::Recovery;
use crate::fault::{Confirmed, CrashCause};
use crate::model::{EventType, Scope};
use crate::sim::{Actor, StopReason};

/// A language of the reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    #[default]
    En,
    Es,
}

/// Where a crash point stands between the protocol's commit and ack: the rows of the seeds'
/// table ("Antes del commit", "Después del commit, antes del ack", "Ack aceptado"), and the
/// one an ack-first protocol adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    BeforeCommit,
    BetweenCommitAndAck,
    AckAccepted,
    AckedBeforeCommit,
}

/// The state lines printed under a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateLabel {
    Broker,
    Database,
    OpenTransaction,
}

/// The labels of the run report's left column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunLabel {
    Scenario,
    Protocol,
    Run,
    Crashes,
    Verdict,
    Boundaries,
    Alerts,
    Retention,
    External,
    Events,
    Anomalies,
    Intent,
    Trace,
    Expect,
    Replay,
}

/// Why an event was delivered (or processed) more than once without a crash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DupCause {
    LeaseExpired,
    BrokerDuplicate,
    AckLost,
    Republished,
    DeadLetterReplay,
    CommitTimeout,
}

/// What a producer's or relay's crash leaves behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideCrash {
    /// A relay sent a row and did not mark it sent.
    Unmarked,
    /// A producer's request has nothing durable.
    NothingDurable,
    /// A dual write committed the transfer and did not publish.
    CommittedUnpublished,
    /// A dual write published and did not commit.
    PublishedUncommitted,
    /// An outbox producer committed the transfer with its outbox row.
    OutboxCommitted,
    /// Nothing is half done.
    Done,
}

/// One thing an open transaction wrote (or a commit made durable), about event `.0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxItem {
    Inbox(usize),
    /// Both the debit and the credit.
    Effect(usize),
    Debit(usize),
    Credit(usize),
    Completion(usize),
    Rejection(usize),
    /// A completion kept in `pending_event`.
    Pending(usize),
    /// A completion taken out of `pending_event` (it took effect).
    PendingCleared(usize),
}

/// `n one` or `n many`.
/// `, 2 stuck, 1 invalid` (with `sep` ", "): each count that is not zero, with its words.
pub(crate) fn nonzero(sep: &str, counts: &[(u64, &str)]) -> String {
    counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{sep}{n} {what}"))
        .collect()
}

fn pl(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Spanish "de" before a name, contracted with its article: `del productor`.
fn de(who: &str) -> String {
    match who.strip_prefix("el ") {
        Some(rest) => format!("del {rest}"),
        None => format!("de {who}"),
    }
}

/// The first letter in upper case, unless the text starts with an identifier
/// (`consumer0`), which keeps its spelling.
fn cap(s: &str) -> String {
    if s.starts_with("consumer") {
        return s.to_string();
    }
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

impl Lang {
    /// `en` or `es` (case-insensitive), as `--lang` takes them.
    pub fn parse(text: &str) -> Option<Lang> {
        match text.to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "es" => Some(Lang::Es),
            _ => None,
        }
    }

    /// The language the environment asks for: the first of `LC_ALL`, `LC_MESSAGES` and
    /// `LANG` that is set and not empty decides; `es…` (`es_AR.UTF-8`) is Spanish, anything
    /// else English. `var` reads a variable (the process environment, or a test's).
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Lang {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|name| var(name))
            .find(|value| !value.is_empty());
        match locale {
            Some(l) if l.to_ascii_lowercase().starts_with("es") => Lang::Es,
            _ => Lang::En,
        }
    }

    fn pick(self, en: &str, es: &str) -> String {
        match self {
            Lang::En => en.to_string(),
            Lang::Es => es.to_string(),
        }
    }

    // ---------------------------------------------------------------- shared words

    /// How an event (and a republished copy of it) is named.
    pub fn ev(self, event: usize, copy: u32) -> String {
        match (self, copy) {
            (_, 0) => format!("e{event}"),
            (Lang::En, c) => format!("e{event} copy{c}"),
            (Lang::Es, c) => format!("e{event} copia{c}"),
        }
    }

    /// `a`, `a and b`, `a, b and c`; `nothing` for none.
    pub fn list(self, items: &[String]) -> String {
        let and = self.pick(" and ", " y ");
        match items {
            [] => self.pick("nothing", "nada"),
            [one] => one.clone(),
            [init @ .., last] => format!("{}{and}{last}", init.join(", ")),
        }
    }

    pub fn actor(self, actor: Actor) -> String {
        match (self, actor) {
            (_, Actor::Consumer(c)) => format!("consumer{c}"),
            (Lang::En, Actor::Producer) => "the producer".into(),
            (Lang::Es, Actor::Producer) => "el productor".into(),
            (Lang::En, Actor::Broker) => "the broker".into(),
            (Lang::Es, Actor::Broker) => "el broker".into(),
            (Lang::En, Actor::Relay) => "the outbox relay".into(),
            (Lang::Es, Actor::Relay) => "el relay del outbox".into(),
            (Lang::En, Actor::EmailRelay) => "the email relay".into(),
            (Lang::Es, Actor::EmailRelay) => "el relay de correos".into(),
            (Lang::En, Actor::Cleanup) => "the retention job".into(),
            (Lang::Es, Actor::Cleanup) => "el job de retención".into(),
            (Lang::En, Actor::Sim) => "the simulator".into(),
            (Lang::Es, Actor::Sim) => "el simulador".into(),
        }
    }

    /// An event's outcome, as the tables print it.
    pub fn outcome(self, o: Outcome) -> String {
        let (en, es) = match o {
            Outcome::Once => ("once", "una vez"),
            Outcome::Lost => ("LOST", "PERDIDO"),
            Outcome::Duplicated => ("DUPLICATED", "DUPLICADO"),
            Outcome::DeadLettered => ("DEAD-LETTERED (lost)", "EN LA DLQ (perdido)"),
            Outcome::Stuck => ("STUCK", "ATASCADO"),
            Outcome::WrongEffect => ("WRONG EFFECT", "EFECTO ERRÓNEO"),
            Outcome::Invalid => ("invalid (refused)", "inválido (rechazado)"),
            Outcome::Rejected => ("REJECTED", "RECHAZADO"),
            Outcome::Unpublished => ("UNPUBLISHED", "NO PUBLICADO"),
            Outcome::SameIntent => (
                "same intent (business key)",
                "misma intención (clave de negocio)",
            ),
            Outcome::Pending => ("PENDING", "PENDIENTE"),
        };
        self.pick(en, es)
    }

    pub fn scope(self, s: Scope) -> String {
        match self {
            Lang::En => s.name().to_string(),
            Lang::Es => match s {
                Scope::LedgerPerEvent => "asientos por evento",
                Scope::LedgerPerIntent => "asientos por intención",
                Scope::Email => "correo",
                Scope::OutputTopic => "topic de salida",
            }
            .to_string(),
        }
    }

    /// `ledger per event: at-least-once (2 once, 1 duplicated)`.
    pub fn describe_scope(self, b: &ScopeVerdict) -> String {
        match self {
            Lang::En => b.describe(),
            Lang::Es => {
                let mut parts = vec![format!("{} una vez", b.once)];
                for (n, one, many) in [
                    (b.lost, "perdido", "perdidos"),
                    (b.duplicated, "duplicado", "duplicados"),
                    (b.ghost, "fantasma", "fantasmas"),
                    (b.stuck, "atascado", "atascados"),
                    (b.wrong_effect, "efecto erróneo", "efectos erróneos"),
                ] {
                    if n > 0 {
                        parts.push(pl(n, one, many));
                    }
                }
                format!(
                    "{}: {} ({})",
                    self.scope(b.boundary),
                    b.guarantee,
                    parts.join(", ")
                )
            }
        }
    }

    // ---------------------------------------------------------------- explain: frame

    pub fn label_explain(self) -> &'static str {
        match self {
            Lang::En => "scenario",
            Lang::Es => "escenario",
        }
    }

    pub fn label_protocol(self) -> &'static str {
        match self {
            Lang::En => "protocol",
            Lang::Es => "protocolo",
        }
    }

    pub fn label_run(self) -> &'static str {
        match self {
            Lang::En => "run",
            Lang::Es => "corrida",
        }
    }

    pub fn run_setup(
        self,
        seed: u64,
        events: usize,
        consumers: usize,
        accounts: usize,
        crashes: &[String],
    ) -> String {
        let (events, consumers, accounts) = (events as u64, consumers as u64, accounts as u64);
        match self {
            Lang::En => format!(
                "seed {seed}, {}, {}, {}; {}",
                pl(events, "event", "events"),
                pl(consumers, "consumer", "consumers"),
                pl(accounts, "account", "accounts"),
                if crashes.is_empty() {
                    "no crash".to_string()
                } else {
                    format!("crashes: {}", crashes.join(", "))
                }
            ),
            Lang::Es => format!(
                "semilla {seed}, {}, {}, {}; {}",
                pl(events, "evento", "eventos"),
                pl(consumers, "consumidor", "consumidores"),
                pl(accounts, "cuenta", "cuentas"),
                if crashes.is_empty() {
                    "sin caídas".to_string()
                } else {
                    format!("caídas: {}", crashes.join(", "))
                }
            ),
        }
    }

    pub fn how_to_read(self) -> String {
        self.pick(
            "How to read it: t is virtual time, one tick per step. e1 is event number 1 (events \
             are numbered from 0) and d2 its second delivery. Amounts and balances are in minor \
             units (cents). Under each step, the lines \"broker\", \"database\" and \"open tx\" \
             show the state right after it, whenever it changed: where each message stands at \
             the broker, what the database has committed, and what an open transaction has \
             written but not committed.",
            "Cómo leerlo: t es el tiempo virtual, un tick por paso. e1 es el evento número 1 (los \
             eventos se numeran desde 0) y d2, su segunda entrega. Importes y saldos están en \
             unidades menores (centavos). Debajo de cada paso, las líneas \"broker\", \"base\" y \
             \"tx abierta\" muestran el estado justo después, cada vez que cambia: dónde está \
             cada mensaje en el broker, qué tiene confirmado la base y qué escribió una \
             transacción abierta que todavía no se confirmó.",
        )
    }

    pub fn section_steps(self) -> &'static str {
        match self {
            Lang::En => "Step by step",
            Lang::Es => "Paso a paso",
        }
    }

    pub fn section_anomalies(self) -> &'static str {
        match self {
            Lang::En => "What went wrong",
            Lang::Es => "Qué salió mal",
        }
    }

    pub fn section_verdict(self) -> &'static str {
        match self {
            Lang::En => "Verdict",
            Lang::Es => "Veredicto",
        }
    }

    pub fn section_failure_points(self) -> &'static str {
        match self {
            Lang::En => {
                "Failure points of this run (point of failure, confirmed state, recovery, outcome)"
            }
            Lang::Es => {
                "Puntos de fallo de esta corrida (punto del fallo, estado confirmado, \
                 recuperación, resultado)"
            }
        }
    }

    pub fn failure_point_labels(self) -> [&'static str; 4] {
        match self {
            Lang::En => ["point of failure", "confirmed state", "recovery", "outcome"],
            Lang::Es => [
                "punto del fallo",
                "estado confirmado",
                "recuperación",
                "resultado",
            ],
        }
    }

    pub fn no_failure_points(self) -> String {
        self.pick(
            "No crash in this run, so there is no failure point to show. Add one with --crash, \
             for example --crash 'after:commit e1 d1' (explore lists every point).",
            "En esta corrida no hubo caídas, así que no hay puntos de fallo para mostrar. \
             Agregá uno con --crash, por ejemplo --crash 'after:commit e1 d1' (explore lista \
             todos los puntos).",
        )
    }

    pub fn state_label(self, label: StateLabel) -> &'static str {
        match (self, label) {
            (_, StateLabel::Broker) => "broker",
            (Lang::En, StateLabel::Database) => "database",
            (Lang::Es, StateLabel::Database) => "base",
            (Lang::En, StateLabel::OpenTransaction) => "open tx",
            (Lang::Es, StateLabel::OpenTransaction) => "tx abierta",
        }
    }

    pub fn expect_held_sentence(self) -> String {
        self.pick(
            "The scenario's expectations held.",
            "Las expectativas del escenario se cumplieron.",
        )
    }

    pub fn expect_failed_sentence(self) -> String {
        self.pick(
            "The scenario's expectations FAILED:",
            "Las expectativas del escenario NO se cumplieron:",
        )
    }

    pub fn replay_sentence(self, command: &str) -> String {
        match self {
            Lang::En => format!("Replay it: {command}"),
            Lang::Es => format!("Para repetirla: {command}"),
        }
    }

    // ---------------------------------------------------------------- explain: state lines

    /// The name of a message state, in the order the broker line lists them.
    pub fn message_state(self, order: usize) -> &'static str {
        match (self, order) {
            (Lang::En, 0) => "in flight",
            (Lang::Es, 0) => "en vuelo",
            (Lang::En, 1) => "waiting for redelivery",
            (Lang::Es, 1) => "esperando reentrega",
            (Lang::En, 2) => "ready",
            (Lang::Es, 2) => "listos",
            (Lang::En, 3) => "acked",
            (Lang::Es, 3) => "con ack",
            (Lang::En, _) => "dead-lettered",
            (Lang::Es, _) => "en la DLQ",
        }
    }

    pub fn broker_empty(self) -> String {
        self.pick("no message yet", "todavía no hay mensajes")
    }

    pub fn db_part_inbox(self, events: &[String]) -> String {
        match (self, events.is_empty()) {
            (Lang::En, true) => "inbox: empty".into(),
            (Lang::Es, true) => "inbox: vacío".into(),
            (_, false) => format!("inbox: {}", events.join(", ")),
        }
    }

    pub fn db_part_ledger(self, events: &[String]) -> String {
        match (self, events.is_empty()) {
            (Lang::En, true) => "ledger: empty".into(),
            (Lang::Es, true) => "asientos: ninguno".into(),
            (Lang::En, false) => format!("ledger: {}", events.join(", ")),
            (Lang::Es, false) => format!("asientos: {}", events.join(", ")),
        }
    }

    pub fn db_part_balances(self, balances: &str) -> String {
        match self {
            Lang::En => format!("balances: {balances}"),
            Lang::Es => format!("saldos: {balances}"),
        }
    }

    /// The balances of many accounts: those not at their opening balance (`moved`, maybe
    /// empty), and how many are.
    pub fn db_part_balances_moved(self, moved: &str, unmoved: usize) -> String {
        match (self, moved.is_empty()) {
            (Lang::En, true) => format!("balances: all {unmoved} at their opening balance"),
            (Lang::Es, true) => format!("saldos: las {unmoved} cuentas, en su saldo inicial"),
            (Lang::En, false) => {
                format!("balances: {moved} (the other {unmoved} at their opening balance)")
            }
            (Lang::Es, false) => {
                format!("saldos: {moved} (las otras {unmoved} cuentas, en su saldo inicial)")
            }
        }
    }

    /// The end of a list cut short: how many items it does not name.
    pub fn more_items(self, more: usize) -> String {
        match self {
            Lang::En => format!("… {more} more"),
            Lang::Es => format!("… {more} más"),
        }
    }

    pub fn db_part_rejected(self, events: &str) -> String {
        match self {
            Lang::En => format!("rejected: {events}"),
            Lang::Es => format!("rechazados: {events}"),
        }
    }

    pub fn db_part_pending(self, events: &str) -> String {
        match self {
            Lang::En => format!("pending: {events}"),
            Lang::Es => format!("pendientes: {events}"),
        }
    }

    pub fn db_part_alerts(self, events: &str) -> String {
        match self {
            Lang::En => format!("payload alerts: {events}"),
            Lang::Es => format!("alertas de payload: {events}"),
        }
    }

    /// A `TransferCompleted`'s ledger row(s).
    pub fn ledger_completion(self, event: usize, n: u32) -> String {
        match (self, n) {
            (Lang::En, 1) => format!("e{event} (completion)"),
            (Lang::Es, 1) => format!("e{event} (completada)"),
            (Lang::En, n) => format!("e{event} (completion ×{n})"),
            (Lang::Es, n) => format!("e{event} (completada ×{n})"),
        }
    }

    /// An event with a debit and no credit, or the reverse.
    pub fn ledger_torn(self, event: usize, debits: u32, credits: u32) -> String {
        match self {
            Lang::En => format!(
                "e{event} ({}, {})",
                pl(debits, "debit", "debits"),
                pl(credits, "credit", "credits")
            ),
            Lang::Es => format!(
                "e{event} ({}, {})",
                pl(debits, "débito", "débitos"),
                pl(credits, "crédito", "créditos")
            ),
        }
    }

    pub fn tx_item(self, item: TxItem) -> String {
        match (self, item) {
            (Lang::En, TxItem::Inbox(e)) => format!("the inbox row for e{e}"),
            (Lang::Es, TxItem::Inbox(e)) => format!("la fila de inbox de e{e}"),
            (Lang::En, TxItem::Effect(e)) => format!("the debit and credit for e{e}"),
            (Lang::Es, TxItem::Effect(e)) => format!("el débito y el crédito de e{e}"),
            (Lang::En, TxItem::Debit(e)) => format!("a debit for e{e} without its credit"),
            (Lang::Es, TxItem::Debit(e)) => format!("un débito de e{e} sin su crédito"),
            (Lang::En, TxItem::Credit(e)) => format!("a credit for e{e} without its debit"),
            (Lang::Es, TxItem::Credit(e)) => format!("un crédito de e{e} sin su débito"),
            (Lang::En, TxItem::Completion(e)) => format!("the completion of e{e}'s transfer"),
            (Lang::Es, TxItem::Completion(e)) => {
                format!("la marca de transferencia completada de e{e}")
            }
            (Lang::En, TxItem::Rejection(e)) => format!("the rejection of e{e}"),
            (Lang::Es, TxItem::Rejection(e)) => format!("el rechazo de e{e}"),
            (Lang::En, TxItem::Pending(e)) => format!("e{e} kept in pending_event"),
            (Lang::Es, TxItem::Pending(e)) => format!("e{e} guardado en pending_event"),
            (Lang::En, TxItem::PendingCleared(e)) => format!("e{e} taken out of pending_event"),
            (Lang::Es, TxItem::PendingCleared(e)) => format!("e{e} sacado de pending_event"),
        }
    }

    pub fn tx_balances(self, balances: &str) -> String {
        match self {
            Lang::En => format!("balances {balances}"),
            Lang::Es => format!("saldos {balances}"),
        }
    }

    pub fn open_nothing_yet(self, who: &str, event: Option<&str>) -> String {
        let whose = event.map_or(who.to_string(), |e| format!("{who} ({e})"));
        match self {
            Lang::En => format!("{whose}: open, nothing written yet"),
            Lang::Es => format!("{whose}: abierta, todavía sin escrituras"),
        }
    }

    pub fn open_written(self, who: &str, event: Option<&str>, items: &str) -> String {
        let whose = event.map_or(who.to_string(), |e| format!("{who} ({e})"));
        match self {
            Lang::En => format!("{whose}, not committed: {items}"),
            Lang::Es => format!("{whose}, sin confirmar: {items}"),
        }
    }

    // ---------------------------------------------------------------- explain: the consumer

    pub fn waiting(self, who: &str) -> String {
        match self {
            Lang::En => {
                format!("{who} asks the broker for a message; nothing is ready, so it waits.")
            }
            Lang::Es => {
                format!("{who} le pide un mensaje al broker; no hay nada listo, así que espera.")
            }
        }
    }

    pub fn receive(self, who: &str, ev: &str, delivery: u32) -> String {
        match (self, delivery) {
            (Lang::En, 0 | 1) => format!("{who} receives {ev}."),
            (Lang::Es, 0 | 1) => format!("{who} recibe {ev}."),
            (Lang::En, d) => format!(
                "{who} receives {ev} again (delivery {d}): the broker delivers again what it \
                 has no ack for."
            ),
            (Lang::Es, d) => format!(
                "{who} recibe {ev} otra vez (entrega {d}): el broker reentrega lo que no tiene \
                 con ack."
            ),
        }
    }

    pub fn begin(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} opens a transaction for {ev} (BEGIN). Nothing it writes from here on is \
                 durable until COMMIT; a crash before that rolls it all back."
            ),
            Lang::Es => format!(
                "{who} abre una transacción para {ev} (BEGIN). Nada de lo que escriba desde acá \
                 es durable hasta el COMMIT; una caída antes lo revierte todo."
            ),
        }
    }

    pub fn check_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev} up in the inbox and finds it: already processed, so it skips \
                 the effect."
            ),
            Lang::Es => format!(
                "{who} busca {ev} en el inbox y lo encuentra: ya se procesó, así que saltea el \
                 efecto."
            ),
        }
    }

    pub fn check_not_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev} up in the inbox: not there, so it will process it. This is a \
                 read, not a constraint: between this check and the insert, nothing stops \
                 another consumer from deciding the same."
            ),
            Lang::Es => format!(
                "{who} busca {ev} en el inbox: no está, así que lo va a procesar. Es una \
                 lectura, no una restricción: entre esta verificación y el INSERT, nada impide \
                 que otro consumidor decida lo mismo."
            ),
        }
    }

    pub fn inbox_duplicate(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} tries to insert {ev}'s event_id into the inbox, and the unique \
                 constraint refuses it: {ev} was processed before. The consumer recognises the \
                 earlier result and discards this copy, with no second effect."
            ),
            Lang::Es => format!(
                "{who} intenta insertar el event_id de {ev} en el inbox y la restricción única \
                 lo rechaza: {ev} ya se procesó. El consumidor reconoce el resultado previo y \
                 descarta esta copia, sin un segundo efecto."
            ),
        }
    }

    /// The inbox INSERT inside the transaction, with (`unique`) or without the unique
    /// constraint that makes it recognise a redelivery.
    pub fn inbox_inserted(self, who: &str, ev: &str, unique: bool) -> String {
        match (self, unique) {
            (Lang::En, true) => format!(
                "{who} inserts {ev}'s event_id into the inbox, inside the transaction. The \
                 unique constraint on event_id is what will recognise a redelivery."
            ),
            (Lang::Es, true) => format!(
                "{who} inserta el event_id de {ev} en el inbox, dentro de la transacción. La \
                 restricción única sobre event_id es la que va a reconocer una reentrega."
            ),
            (Lang::En, false) => format!(
                "{who} inserts {ev}'s event_id into the inbox, inside the transaction. This \
                 inbox has no unique constraint on event_id: nothing stops a second row for the \
                 same event."
            ),
            (Lang::Es, false) => format!(
                "{who} inserta el event_id de {ev} en el inbox, dentro de la transacción. Este \
                 inbox no tiene restricción única sobre event_id: nada impide una segunda fila \
                 para el mismo evento."
            ),
        }
    }

    pub fn inbox_inserted_autocommit(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} inserts {ev}'s event_id into the inbox with no transaction open: the mark \
                 commits at once, before the effect exists. A crash now leaves {ev} marked \
                 processed without its effect."
            ),
            Lang::Es => format!(
                "{who} inserta el event_id de {ev} en el inbox sin una transacción abierta: la \
                 marca se confirma en el acto, antes de que exista el efecto. Una caída ahora \
                 deja a {ev} marcado como procesado sin su efecto."
            ),
        }
    }

    pub fn effect_applied(
        self,
        who: &str,
        ev: &str,
        source: &str,
        target: &str,
        amount: i64,
        in_transaction: bool,
    ) -> String {
        match (self, in_transaction) {
            (Lang::En, true) => format!(
                "{who} applies {ev}'s effect in the transaction: it debits {amount} from \
                 {source} and credits it to {target}. Not committed yet."
            ),
            (Lang::Es, true) => format!(
                "{who} aplica el efecto de {ev} en la transacción: debita {amount} de {source} \
                 y se lo acredita a {target}. Todavía sin confirmar."
            ),
            (Lang::En, false) => format!(
                "{who} applies {ev}'s effect with no transaction open: it debits {amount} from \
                 {source} and credits it to {target}, each statement committed on its own."
            ),
            (Lang::Es, false) => format!(
                "{who} aplica el efecto de {ev} sin una transacción abierta: debita {amount} de \
                 {source} y se lo acredita a {target}, y cada sentencia se confirma por su \
                 cuenta."
            ),
        }
    }

    pub fn completion_applied(
        self,
        who: &str,
        ev: &str,
        transfer: &str,
        in_transaction: bool,
    ) -> String {
        match (self, in_transaction) {
            (Lang::En, true) => format!(
                "{who} applies {ev}: it marks transfer {transfer} completed, in the transaction. \
                 Not committed yet."
            ),
            (Lang::Es, true) => format!(
                "{who} aplica {ev}: marca la transferencia {transfer} como completada, dentro de \
                 la transacción. Todavía sin confirmar."
            ),
            (Lang::En, false) => format!(
                "{who} applies {ev}: it marks transfer {transfer} completed, committed at once."
            ),
            (Lang::Es, false) => format!(
                "{who} aplica {ev}: marca la transferencia {transfer} como completada, y se \
                 confirma en el acto."
            ),
        }
    }

    pub fn effect_buffered(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} does not know {ev}'s transfer yet, so it keeps the completion in \
                 pending_event, in the transaction: it takes effect when the creation arrives."
            ),
            Lang::Es => format!(
                "{who} todavía no conoce la transferencia de {ev}, así que guarda la \
                 finalización en pending_event, dentro de la transacción: tiene efecto cuando \
                 llegue la creación."
            ),
        }
    }

    pub fn effect_applied_with_pending(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} applies {ev}'s effect (debit and credit) and, with it, the completion \
                 that waited in pending_event for this transfer."
            ),
            Lang::Es => format!(
                "{who} aplica el efecto de {ev} (débito y crédito) y, junto con él, la \
                 finalización que esperaba en pending_event a esta transferencia."
            ),
        }
    }

    pub fn sleep(self, who: &str, ev: &str, ticks: u64) -> String {
        match self {
            Lang::En => format!(
                "{who} sleeps {ticks} ticks before applying {ev}, a TransferCompleted, hoping \
                 its TransferCreated arrives first, and holds the delivery meanwhile. A sleep \
                 turns a race into a slower race."
            ),
            Lang::Es => format!(
                "{who} duerme {ticks} ticks antes de aplicar {ev}, un TransferCompleted, con la \
                 esperanza de que su TransferCreated llegue antes, y mientras tanto retiene la \
                 entrega. Un sleep convierte una condición de carrera en una condición de \
                 carrera lenta."
            ),
        }
    }

    pub fn cleanup_deleted(self, events: &str, ttl: u64) -> String {
        match self {
            Lang::En => format!(
                "The retention job deletes the inbox rows older than its TTL ({ttl} ticks): \
                 {events}. From now on, a redelivery of those events is no longer recognised."
            ),
            Lang::Es => format!(
                "El job de retención borra las filas de inbox más viejas que su TTL ({ttl} \
                 ticks): {events}. Desde ahora, una reentrega de esos eventos ya no se reconoce."
            ),
        }
    }

    pub fn cleanup_busy(self) -> String {
        self.pick(
            "The retention job finds the write lock held by a consumer and deletes nothing \
             this time.",
            "El job de retención encuentra el lock de escritura tomado por un consumidor y esta \
             vez no borra nada.",
        )
    }

    pub fn late_replay(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev} was acked, but the broker makes it ready again at the end of its replay \
                 window (broker.late_redelivery_ticks): a late redelivery."
            ),
            Lang::Es => format!(
                "{ev} tenía ack, pero el broker lo vuelve a poner listo al final de su ventana \
                 de replay (broker.late_redelivery_ticks): una reentrega tardía."
            ),
        }
    }

    pub fn credit_failed(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} applies {ev}'s effect: the debit runs, the credit fails (an injected \
                 failure)."
            ),
            Lang::Es => format!(
                "{who} aplica el efecto de {ev}: el débito se ejecuta y el crédito falla (una \
                 falla inyectada)."
            ),
        }
    }

    pub fn effect_rejected(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The projection rejects {ev} for {who}: it completes a transfer the projection \
                 does not know yet (the completion arrived before the creation). The rejection \
                 is recorded."
            ),
            Lang::Es => format!(
                "La proyección rechaza {ev} para {who}: completa una transferencia que todavía \
                 no conoce (la finalización llegó antes que la creación). El rechazo queda \
                 registrado."
            ),
        }
    }

    pub fn business_duplicate(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The ledger's business key refuses {ev} for {who}: its transfer was already \
                 applied under another event_id. One effect per intent."
            ),
            Lang::Es => format!(
                "La clave de negocio del ledger rechaza {ev} para {who}: su transferencia ya se \
                 aplicó con otro event_id. Un efecto por intención."
            ),
        }
    }

    pub fn already_completed(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{ev}'s transfer is already completed: {who} has nothing to do."),
            Lang::Es => format!(
                "La transferencia de {ev} ya está completada: {who} no tiene nada que hacer."
            ),
        }
    }

    pub fn balances_read(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} reads the balances for {ev}; the write computed from them comes on its \
                 next turn, and another consumer may write in between (a lost update waiting to \
                 happen)."
            ),
            Lang::Es => format!(
                "{who} lee los saldos para {ev}; la escritura calculada a partir de ellos viene \
                 en su próximo turno, y otro consumidor puede escribir en el medio (una \
                 actualización perdida esperando a ocurrir)."
            ),
        }
    }

    /// The COMMIT, with what it made durable.
    pub fn commit(self, who: &str, items: &[String]) -> String {
        match (self, items.is_empty()) {
            (Lang::En, true) => format!("{who} commits (COMMIT) a transaction that wrote nothing."),
            (Lang::Es, true) => {
                format!("{who} hace COMMIT de una transacción que no escribió nada.")
            }
            (Lang::En, false) => format!(
                "{who} commits (COMMIT). Durable from now on, all together: {}.",
                self.list(items)
            ),
            (Lang::Es, false) => format!(
                "{who} hace COMMIT. Desde ahora es durable, todo junto: {}.",
                self.list(items)
            ),
        }
    }

    pub fn commit_timeout(
        self,
        who: &str,
        committed: bool,
        strategy: CommitTimeoutStrategy,
    ) -> String {
        match self {
            Lang::En => format!(
                "{who}'s COMMIT times out: {}. The consumer cannot tell which, and {}.",
                if committed {
                    "it did commit, and the answer was lost"
                } else {
                    "it did not commit, and SQLite rolled back"
                },
                match strategy {
                    CommitTimeoutStrategy::Retry => "retries the transaction blindly",
                    CommitTimeoutStrategy::Abandon => "treats it as done",
                    CommitTimeoutStrategy::Lookup => "looks the event_id up before deciding",
                }
            ),
            Lang::Es => format!(
                "El COMMIT de {who} vence por timeout: {}. El consumidor no puede saber cuál de \
                 las dos cosas pasó, y {}.",
                if committed {
                    "sí se confirmó, y se perdió la respuesta"
                } else {
                    "no se confirmó, y SQLite revirtió"
                },
                match strategy {
                    CommitTimeoutStrategy::Retry => "reintenta la transacción a ciegas",
                    CommitTimeoutStrategy::Abandon => "lo da por hecho",
                    CommitTimeoutStrategy::Lookup => {
                        "busca el event_id en el inbox antes de decidir"
                    }
                }
            ),
        }
    }

    pub fn rollback(self, who: &str, items: &[String]) -> String {
        match (self, items.is_empty()) {
            (Lang::En, true) => {
                format!("{who} rolls back its transaction (ROLLBACK); it had written nothing.")
            }
            (Lang::Es, true) => {
                format!("{who} hace ROLLBACK de su transacción; no había escrito nada.")
            }
            (Lang::En, false) => format!(
                "{who} rolls back its transaction (ROLLBACK). Gone, as if never written: {}.",
                self.list(items)
            ),
            (Lang::Es, false) => format!(
                "{who} hace ROLLBACK de su transacción. Desaparece, como si nunca se hubiera \
                 escrito: {}.",
                self.list(items)
            ),
        }
    }

    pub fn ack_lost(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev}, but the ack is lost on the way: the consumer believes it is \
                 done, while the broker never heard it and will deliver {ev} again."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev}, pero el ack se pierde en el camino: el consumidor \
                 cree que terminó, mientras que el broker nunca lo recibió y va a reentregar \
                 {ev}."
            ),
        }
    }

    pub fn ack_stale(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} too late: the broker already delivered it again (its lease \
                 expired), so it ignores this stale ack."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} tarde: el broker ya lo reentregó (venció su lease), \
                 así que ignora este ack viejo."
            ),
        }
    }

    pub fn ack_already(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{who} acks {ev}, which is already acked: nothing changes."),
            Lang::Es => format!("{who} envía el ack de {ev}, que ya tenía ack: no cambia nada."),
        }
    }

    pub fn ack_stale_accepted(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} after its lease expired, and the broker accepts it: the message \
                 is acked, whoever else holds it."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} después de que venció su lease, y el broker lo \
                 acepta: el mensaje queda con ack, lo tenga quien lo tenga."
            ),
        }
    }

    pub fn ack_log(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => {
                format!("{who} marks {ev} processed: it counts towards the next offset commit.")
            }
            Lang::Es => format!(
                "{who} marca {ev} como procesado: cuenta para el próximo commit del offset."
            ),
        }
    }

    pub fn ack_after_duplicate(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} without applying it again: the earlier result stands, and the \
                 broker forgets the message."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} sin aplicarlo de nuevo: vale el resultado previo, y \
                 el broker olvida el mensaje."
            ),
        }
    }

    pub fn ack_after_refusal(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev}, the refused copy: the broker forgets it, and the alert stays \
                 for a person to look at."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev}, la copia rechazada: el broker la olvida, y la \
                 alerta queda para que la revise una persona."
            ),
        }
    }

    pub fn ack_after_commit(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} after its effect committed: the broker forgets the message, \
                 and {ev} is resolved."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} después del commit de su efecto: el broker olvida el \
                 mensaje y {ev} queda resuelto."
            ),
        }
    }

    pub fn ack_before_commit(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} acks {ev} BEFORE its effect is committed: from now on the broker \
                 considers it done and will never deliver it again. If {who} dies before its \
                 COMMIT, {ev} is lost."
            ),
            Lang::Es => format!(
                "{who} envía el ack de {ev} ANTES de que su efecto esté confirmado: desde ahora \
                 el broker lo da por terminado y no lo va a volver a entregar. Si {who} muere \
                 antes de su COMMIT, {ev} se pierde."
            ),
        }
    }

    pub fn ack_without_effect(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{who} acks {ev}: the broker forgets the message."),
            Lang::Es => format!("{who} envía el ack de {ev}: el broker olvida el mensaje."),
        }
    }

    pub fn nack(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!("{who} rejects {ev} (nack): the broker will deliver it again."),
            Lang::Es => format!("{who} rechaza {ev} (nack): el broker lo va a reentregar."),
        }
    }

    pub fn payload_mismatch(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The inbox already holds {ev}'s event_id with another payload: this is not a \
                 duplicate but a corruption by the producer. {who} refuses the copy."
            ),
            Lang::Es => format!(
                "El inbox ya tiene el event_id de {ev} con otro payload: no es un duplicado sino \
                 una corrupción del productor. {who} rechaza la copia."
            ),
        }
    }

    pub fn alert_recorded(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} records a payload alert for {ev} and commits it: someone has to look at \
                 the producer."
            ),
            Lang::Es => format!(
                "{who} registra una alerta de payload para {ev} y la confirma: alguien tiene que \
                 revisar el productor."
            ),
        }
    }

    pub fn alert_exists(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} tries to record the payload alert for {ev} again, and its unique \
                 constraint refuses it: one alert per received payload."
            ),
            Lang::Es => format!(
                "{who} intenta registrar otra vez la alerta de payload de {ev}, y su restricción \
                 única lo impide: una alerta por payload recibido."
            ),
        }
    }

    pub fn lookup_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev}'s event_id up in the inbox: found, so the commit did happen; \
                 it goes on."
            ),
            Lang::Es => format!(
                "{who} busca el event_id de {ev} en el inbox: está, así que el commit sí \
                 ocurrió; sigue adelante."
            ),
        }
    }

    pub fn lookup_not_found(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} looks {ev}'s event_id up in the inbox: not found, so the commit did not \
                 happen; it runs the transaction again."
            ),
            Lang::Es => format!(
                "{who} busca el event_id de {ev} en el inbox: no está, así que el commit no \
                 ocurrió; vuelve a ejecutar la transacción."
            ),
        }
    }

    pub fn external_effect(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} sends {ev}'s email straight to the mail service. That is outside the \
                 database: neither a rollback nor a crash can take it back."
            ),
            Lang::Es => format!(
                "{who} envía el correo de {ev} directamente al servicio de correo. Eso está \
                 fuera de la base: ni un rollback ni una caída lo pueden deshacer."
            ),
        }
    }

    pub fn email_queued(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} queues {ev}'s email in email_outbox, in the same transaction as the \
                 effect: the email relay sends it only if the effect commits."
            ),
            Lang::Es => format!(
                "{who} encola el correo de {ev} en email_outbox, en la misma transacción que el \
                 efecto: el relay de correos lo envía solo si el efecto se confirma."
            ),
        }
    }

    pub fn output_staged(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} produces TransferApplied for {ev} inside the broker transaction: it \
                 becomes visible only when the ack commits that transaction."
            ),
            Lang::Es => format!(
                "{who} produce TransferApplied para {ev} dentro de la transacción del broker: se \
                 vuelve visible solo cuando el ack confirma esa transacción."
            ),
        }
    }

    pub fn output_published(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} publishes TransferApplied for {ev} to the output topic, visible at once: \
                 a crash before the ack cannot take it back."
            ),
            Lang::Es => format!(
                "{who} publica TransferApplied para {ev} en el topic de salida, visible en el \
                 acto: una caída antes del ack no lo puede deshacer."
            ),
        }
    }

    pub fn restart(self, who: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} restarts with nothing in hand: it asks the broker for the next message."
            ),
            Lang::Es => format!(
                "{who} se reinicia sin nada en la mano: le pide al broker el próximo mensaje."
            ),
        }
    }

    pub fn stall(self, who: &str, ev: &str, ticks: u64) -> String {
        match self {
            Lang::En => format!(
                "{who} stalls for {ticks} ticks on {ev}, still holding its delivery and its \
                 transaction (its lease may expire meanwhile)."
            ),
            Lang::Es => format!(
                "{who} se frena {ticks} ticks con {ev}, todavía con su entrega y su transacción \
                 (mientras tanto puede vencer su lease)."
            ),
        }
    }

    pub fn stop_rollback(self, who: &str) -> String {
        match self {
            Lang::En => {
                format!("The run stops with {who}'s transaction open: SQLite rolls it back.")
            }
            Lang::Es => format!(
                "La corrida termina con la transacción de {who} abierta: SQLite la revierte."
            ),
        }
    }

    pub fn busy(self, who: &str, action: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!(
                "{who} tries {action}, but SQLite answers busy: another connection holds the \
                 write lock. Nothing happened; it waits and retries."
            ),
            Lang::Es => format!(
                "{who} intenta {action}, pero SQLite responde busy: otra conexión tiene el lock \
                 de escritura. No pasó nada; espera y reintenta."
            ),
        }
    }

    pub fn stale_snapshot(self, who: &str) -> String {
        match self {
            Lang::En => format!(
                "SQLite refuses {who}'s write: its snapshot is older than another connection's \
                 commit (SQLITE_BUSY_SNAPSHOT). The transaction must roll back."
            ),
            Lang::Es => format!(
                "SQLite rechaza la escritura de {who}: su snapshot es más viejo que el commit de \
                 otra conexión (SQLITE_BUSY_SNAPSHOT). La transacción tiene que revertirse."
            ),
        }
    }

    pub fn step_failed(self, who: &str, action: &str, ev: &str) -> String {
        match self {
            Lang::En => {
                format!("{who}'s {action} on {ev} fails (an injected failure): nothing is done.")
            }
            Lang::Es => format!(
                "Falla el paso {action} de {who} con {ev} (una falla inyectada): no se hace nada."
            ),
        }
    }

    /// The consumer refuses an invalid payload (`workload.invalid`) before applying it.
    pub fn payload_refused(self, who: &str, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} refuses {ev}: its payload is invalid (workload.invalid), so nothing is \
                 applied; the delivery is rejected, as it will be every time."
            ),
            Lang::Es => format!(
                "{who} rechaza {ev}: su payload es inválido (workload.invalid), así que no se \
                 aplica nada; la entrega se rechaza, como cada vez."
            ),
        }
    }

    /// An entry no other message describes: said as the trace says it.
    pub fn fallback(self, who: &str, action: &str, outcome: &str) -> String {
        format!("{}: {action} ({outcome}).", cap(who))
    }

    // ---------------------------------------------------------------- explain: crashes

    pub fn phase(self, p: Phase) -> &'static str {
        match (self, p) {
            (Lang::En, Phase::BeforeCommit) => "before the commit",
            (Lang::Es, Phase::BeforeCommit) => "antes del commit",
            (Lang::En, Phase::BetweenCommitAndAck) => "after the commit, before the ack",
            (Lang::Es, Phase::BetweenCommitAndAck) => "después del commit, antes del ack",
            (Lang::En, Phase::AckAccepted) => "ack accepted",
            (Lang::Es, Phase::AckAccepted) => "ack aceptado",
            (Lang::En, Phase::AckedBeforeCommit) => "after the ack, before the commit",
            (Lang::Es, Phase::AckedBeforeCommit) => "después del ack, antes del commit",
        }
    }

    fn cause(self, cause: CrashCause) -> String {
        match (self, cause) {
            (Lang::En, CrashCause::Planned(i)) => format!("planned: faults.crash[{i}]"),
            (Lang::Es, CrashCause::Planned(i)) => format!("planificada: faults.crash[{i}]"),
            (Lang::En, CrashCause::Random) => "random".into(),
            (Lang::Es, CrashCause::Random) => "aleatoria".into(),
        }
    }

    /// A consumer's crash: where, what is confirmed at that instant, and what follows.
    pub fn crash(
        self,
        who: &str,
        point: &str,
        cause: CrashCause,
        phase: Option<Phase>,
        confirmed: &str,
        consequence: &str,
    ) -> String {
        let cause = self.cause(cause);
        match self {
            Lang::En => format!(
                "CRASH ({cause}): {who} dies at {point}{}. At this instant the confirmed state \
                 is \"{confirmed}\". {consequence}",
                phase.map_or(String::new(), |p| format!(", {}", self.phase(p)))
            ),
            Lang::Es => format!(
                "CAÍDA ({cause}): {who} muere en {point}{}. En ese instante, el estado \
                 confirmado es «{confirmed}». {consequence}",
                phase.map_or(String::new(), |p| format!(", {}", self.phase(p)))
            ),
        }
    }

    /// The seeds' "estado confirmado" of a crash: the event's committed effect and
    /// identity (inbox row), and whether the broker holds its ack.
    pub fn confirmed(self, c: &Confirmed) -> String {
        let key = (c.ledger_rows > 0, c.inbox_rows > 0, c.acked);
        let (en, es) = match key {
            (false, false, false) => (
                "nothing: no effect, no identity (inbox row), no ack",
                "nada: ni efecto ni identidad (fila de inbox) confirmados, sin ack",
            ),
            (true, true, false) => (
                "the effect and the identity (inbox row); no ack",
                "efecto e identidad (fila de inbox) confirmados; sin ack",
            ),
            (true, true, true) => (
                "the intent is resolved: effect, identity (inbox row) and ack",
                "intención resuelta: efecto, identidad (fila de inbox) y ack",
            ),
            (false, false, true) => (
                "only the ack: the broker already forgot the event, and the database has \
                 nothing of it",
                "solo el ack: el broker ya olvidó el evento y la base no tiene nada de él",
            ),
            (true, false, false) => (
                "the effect, with no identity recorded; no ack",
                "efecto confirmado, sin identidad registrada; sin ack",
            ),
            (true, false, true) => (
                "the intent is resolved: effect and ack (no identity recorded)",
                "intención resuelta: efecto y ack (sin identidad registrada)",
            ),
            (false, true, false) => (
                "only the identity (inbox row): marked processed with no effect; no ack",
                "solo la identidad (fila de inbox): marcado como procesado sin efecto; sin ack",
            ),
            (false, true, true) => (
                "the identity (inbox row) and the ack, with no effect",
                "identidad (fila de inbox) y ack, sin efecto",
            ),
        };
        self.pick(en, es)
    }

    /// What follows from what is confirmed at a crash.
    pub fn crash_consequence(self, ev: &str, effect: bool, inbox: bool, acked: bool) -> String {
        match (self, effect, inbox, acked) {
            (Lang::En, true, _, true) => "The event is resolved: there is nothing to recover, \
                                           and the restarted consumer goes on with other events."
                .into(),
            (Lang::Es, true, _, true) => {
                "El evento está resuelto: no hay nada que recuperar, y el \
                                           consumidor reiniciado sigue con otros eventos."
                    .into()
            }
            (Lang::En, false, _, true) => format!(
                "The broker has the ack and will never deliver {ev} again, but its effect is not \
                 committed: {ev} is lost, and nobody is told."
            ),
            (Lang::Es, false, _, true) => format!(
                "El broker tiene el ack y no va a volver a entregar {ev}, pero su efecto no está \
                 confirmado: {ev} se perdió, y nadie se entera."
            ),
            (Lang::En, true, true, false) => format!(
                "The broker has no ack, so it will deliver {ev} again; the committed inbox row \
                 is what lets the consumer recognise the earlier result."
            ),
            (Lang::Es, true, true, false) => format!(
                "El broker no tiene el ack, así que va a reentregar {ev}; la fila de inbox \
                 confirmada es lo que le permite al consumidor reconocer el resultado previo."
            ),
            (Lang::En, true, false, false) => format!(
                "The broker has no ack, so it will deliver {ev} again, and nothing records that \
                 its effect was applied: unless something recognises it, the redelivery applies \
                 it a second time."
            ),
            (Lang::Es, true, false, false) => format!(
                "El broker no tiene el ack, así que va a reentregar {ev}, y nada registra que su \
                 efecto ya se aplicó: si nada lo reconoce, la reentrega lo aplica por segunda \
                 vez."
            ),
            (Lang::En, false, true, false) => format!(
                "The broker has no ack, so it will deliver {ev} again, but the inbox already \
                 marks it processed although its effect is not there: the redelivery will skip \
                 it."
            ),
            (Lang::Es, false, true, false) => format!(
                "El broker no tiene el ack, así que va a reentregar {ev}, pero el inbox ya lo \
                 marca como procesado aunque su efecto no está: la reentrega lo va a descartar."
            ),
            (Lang::En, false, false, false) => format!(
                "Nothing is lost yet: the broker has no ack, so it will deliver {ev} again, and \
                 the consumer retries from the start."
            ),
            (Lang::Es, false, false, false) => format!(
                "Todavía no se perdió nada: el broker no tiene el ack, así que va a reentregar \
                 {ev}, y el consumidor reintenta desde el principio."
            ),
        }
    }

    pub fn crash_rollback(self, who: &str, items: &[String]) -> String {
        match (self, items.is_empty()) {
            (Lang::En, true) => {
                format!("SQLite rolls back {who}'s open transaction; it had written nothing yet.")
            }
            (Lang::Es, true) => format!(
                "SQLite revierte la transacción abierta de {who}; todavía no había escrito nada."
            ),
            (Lang::En, false) => format!(
                "SQLite rolls back {who}'s open transaction. Gone, as if never written: {}.",
                self.list(items)
            ),
            (Lang::Es, false) => format!(
                "SQLite revierte la transacción abierta de {who}. Desaparece, como si nunca se \
                 hubiera escrito: {}.",
                self.list(items)
            ),
        }
    }

    /// A producer's or a relay's crash, and what it leaves behind.
    pub fn side_crash(
        self,
        who: &str,
        point: &str,
        cause: CrashCause,
        left: SideCrash,
        ev: &str,
    ) -> String {
        let cause = self.cause(cause);
        let left = match (self, left) {
            (Lang::En, SideCrash::Unmarked) => format!(
                "It sent {ev} but had not marked its outbox row sent: after its restart it reads \
                 the row again and sends {ev} again, so whoever receives it must recognise it."
            ),
            (Lang::Es, SideCrash::Unmarked) => format!(
                "Envió {ev} pero no había marcado su fila del outbox como enviada: al reiniciarse \
                 vuelve a leer la fila y envía {ev} otra vez, así que quien lo recibe tiene que \
                 reconocerlo."
            ),
            (Lang::En, SideCrash::NothingDurable) => {
                "Nothing of the request is durable yet: its open transaction is rolled back.".into()
            }
            (Lang::Es, SideCrash::NothingDurable) => {
                "Todavía no hay nada durable del pedido: su transacción abierta se revierte.".into()
            }
            (Lang::En, SideCrash::CommittedUnpublished) => format!(
                "The transfer is committed but {ev} is not published: unless the request is \
                 retried, no consumer will ever see it (the dual-write problem)."
            ),
            (Lang::Es, SideCrash::CommittedUnpublished) => format!(
                "La transferencia está confirmada pero {ev} no se publicó: si el pedido no se \
                 reintenta, ningún consumidor lo va a ver (el problema de la doble escritura)."
            ),
            (Lang::En, SideCrash::PublishedUncommitted) => format!(
                "{ev} is published but the transfer is not committed: the consumers will apply a \
                 transfer the producer never recorded, a ghost."
            ),
            (Lang::Es, SideCrash::PublishedUncommitted) => format!(
                "{ev} está publicado pero la transferencia no está confirmada: los consumidores \
                 van a aplicar una transferencia que el productor nunca registró, un fantasma."
            ),
            (Lang::En, SideCrash::OutboxCommitted) => {
                "The transfer and its outbox row are committed together: the relay will publish \
                 the event."
                    .into()
            }
            (Lang::Es, SideCrash::OutboxCommitted) => {
                "La transferencia y su fila de outbox están confirmadas juntas: el relay va a \
                 publicar el evento."
                    .into()
            }
            (Lang::En, SideCrash::Done) => "Its work for this request was done.".into(),
            (Lang::Es, SideCrash::Done) => "Su trabajo para este pedido ya estaba hecho.".into(),
        };
        match self {
            Lang::En => format!(
                "CRASH ({cause}): {who} dies at {point}. {left} It restarts after the restart \
                 delay."
            ),
            Lang::Es => format!(
                "CAÍDA ({cause}): {who} muere en {point}. {left} Se reinicia después de la \
                 demora de reinicio."
            ),
        }
    }

    pub fn side_rollback(self, who: &str) -> String {
        match self {
            Lang::En => format!("SQLite rolls back the open transaction of {who}."),
            Lang::Es => format!("SQLite revierte la transacción abierta {}.", de(who)),
        }
    }

    /// The faulty phase ended at a limit; the healing phase, with every fault off, begins.
    pub fn healing_begins(self, step_limit: bool, steps: u64, ticks: u64) -> String {
        match self {
            Lang::En => format!(
                "The faulty phase ends at its {} limit with work left. The healing phase \
                 begins: every fault is off from here (no crash, no failed step, no lost ack), \
                 for up to {steps} more steps and {ticks} more ticks; whatever is still \
                 unresolved at its end is stuck.",
                if step_limit { "step" } else { "tick" }
            ),
            Lang::Es => format!(
                "La fase con fallas termina en su límite de {} con trabajo pendiente. Empieza \
                 la fase de recuperación: desde aquí no hay ninguna falla (ni caídas, ni pasos \
                 que fallan, ni acks perdidos), durante hasta {steps} pasos y {ticks} ticks \
                 más; lo que siga sin resolver al final queda atascado.",
                if step_limit { "pasos" } else { "ticks" }
            ),
        }
    }

    /// After the last entry `explain` tells: how many more the run had.
    pub fn untold_entries(self, more: usize, cap: usize) -> String {
        match self {
            Lang::En => format!(
                "… and {more} more trace entries, not told here: explain tells at most {cap} \
                 steps. What follows (anomalies, verdict, failure points) covers the whole run; \
                 `run --trace` lists every entry."
            ),
            Lang::Es => format!(
                "… y {more} entradas más de la traza, que no se cuentan acá: explain cuenta \
                 como mucho {cap} pasos. Lo que sigue (anomalías, veredicto, puntos de fallo) \
                 cubre la corrida entera; `run --trace` lista todas las entradas."
            ),
        }
    }

    pub fn run_stopped(self, step_limit: bool) -> String {
        match (self, step_limit) {
            (Lang::En, true) => {
                "The run stops: it reached its step limit before everything was done.".into()
            }
            (Lang::En, false) => {
                "The run stops: it reached its tick limit before everything was done.".into()
            }
            (Lang::Es, true) => {
                "La corrida se detiene: llegó a su límite de pasos antes de terminar todo.".into()
            }
            (Lang::Es, false) => {
                "La corrida se detiene: llegó a su límite de ticks antes de terminar todo.".into()
            }
        }
    }

    // ---------------------------------------------------------------- explain: the broker

    pub fn deliver(self, ev: &str, consumer: &str, delivery: u32) -> String {
        match (self, delivery) {
            (Lang::En, 0 | 1) => format!(
                "The broker delivers {ev} to {consumer} (delivery 1). The message stays in \
                 flight until {consumer} acks it; if {consumer} dies first, the broker will \
                 deliver it again."
            ),
            (Lang::Es, 0 | 1) => format!(
                "El broker entrega {ev} a {consumer} (entrega 1). El mensaje queda en vuelo \
                 hasta que {consumer} envíe el ack; si {consumer} muere antes, el broker lo va a \
                 reentregar."
            ),
            (Lang::En, d) => {
                format!("The broker delivers {ev} again, to {consumer} (delivery {d}).")
            }
            (Lang::Es, d) => format!("El broker reentrega {ev} a {consumer} (entrega {d})."),
        }
    }

    pub fn broker_duplicate(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The broker will deliver {ev} once more on its own: a duplicate of the broker's, \
                 which at-least-once allows."
            ),
            Lang::Es => format!(
                "El broker va a entregar {ev} una vez más por su cuenta: un duplicado del propio \
                 broker, que at-least-once permite."
            ),
        }
    }

    pub fn requeue(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev} is ready again at the broker: it was never acked, so it will be delivered \
                 again."
            ),
            Lang::Es => format!(
                "{ev} vuelve a estar listo en el broker: nunca recibió ack, así que se va a \
                 reentregar."
            ),
        }
    }

    pub fn visible(self, ev: &str) -> String {
        match self {
            Lang::En => format!("{ev} becomes ready after its delivery delay."),
            Lang::Es => format!("{ev} queda listo después de su demora de entrega."),
        }
    }

    pub fn lease_expired(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev}'s lease expires before any ack: the broker makes it ready again, although \
                 its consumer may still be working on it."
            ),
            Lang::Es => format!(
                "Vence el lease de {ev} antes de cualquier ack: el broker lo vuelve a poner \
                 listo, aunque su consumidor quizá todavía lo esté procesando."
            ),
        }
    }

    pub fn connection_lost(self, who: &str, released: &str) -> String {
        let nothing = released == self.list(&[]);
        match (self, nothing) {
            (Lang::En, true) => {
                format!("The broker notices that {who} is gone; it held nothing without an ack.")
            }
            (Lang::Es, true) => {
                format!("El broker nota que {who} ya no está; no tenía nada sin ack.")
            }
            (Lang::En, false) => format!(
                "The broker notices that {who} is gone: what it held without an ack \
                 ({released}) will be delivered again."
            ),
            (Lang::Es, false) => format!(
                "El broker nota que {who} ya no está: lo que tenía sin ack ({released}) se va a \
                 reentregar."
            ),
        }
    }

    pub fn rebalance(self, who: &str) -> String {
        match self {
            Lang::En => format!(
                "{who} leaves the consumer group: its partitions are rebalanced and resume from \
                 their committed offsets."
            ),
            Lang::Es => format!(
                "{who} sale del grupo de consumidores: sus particiones se rebalancean y siguen \
                 desde sus offsets commiteados."
            ),
        }
    }

    pub fn dead_lettered(self, ev: &str, deliveries: u32, parked: bool) -> String {
        match (self, parked) {
            (Lang::En, true) => format!(
                "After {deliveries} deliveries without an ack, the broker gives up on {ev} and \
                 moves it to the dead-letter queue, where it waits until the queue is replayed."
            ),
            (Lang::En, false) => format!(
                "After {deliveries} deliveries without an ack, the broker gives up on {ev} and \
                 moves it to the dead-letter queue: it is never delivered again."
            ),
            (Lang::Es, true) => format!(
                "Después de {deliveries} entregas sin ack, el broker se rinde con {ev} y lo \
                 mueve a la DLQ, donde espera hasta que se reprocese la cola."
            ),
            (Lang::Es, false) => format!(
                "Después de {deliveries} entregas sin ack, el broker se rinde con {ev} y lo \
                 mueve a la DLQ: no se vuelve a entregar nunca."
            ),
        }
    }

    pub fn dlq_empty(self) -> String {
        self.pick(
            "The dead-letter queue is replayed, but it is empty.",
            "Se reprocesa la DLQ, pero está vacía.",
        )
    }

    pub fn dlq_replayed(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "{ev} comes back from the dead-letter queue with the same event_id: ready again, \
                 its deliveries counted afresh."
            ),
            Lang::Es => format!(
                "{ev} vuelve de la DLQ con el mismo event_id: listo otra vez, con sus entregas \
                 contadas desde cero."
            ),
        }
    }

    pub fn broker_tx_commit(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The ack commits the broker transaction of {ev}: its outputs become visible."
            ),
            Lang::Es => format!(
                "El ack confirma la transacción del broker de {ev}: sus salidas se vuelven \
                 visibles."
            ),
        }
    }

    pub fn broker_tx_refused(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The broker refuses the ack of {ev}, and its transaction aborts with its outputs."
            ),
            Lang::Es => format!(
                "El broker rechaza el ack de {ev}, y su transacción aborta junto con sus salidas."
            ),
        }
    }

    pub fn broker_tx_abort(self, ev: &str) -> String {
        match self {
            Lang::En => {
                format!("The broker transaction of {ev} aborts: its staged outputs are discarded.")
            }
            Lang::Es => format!(
                "La transacción del broker de {ev} aborta: se descartan sus salidas preparadas."
            ),
        }
    }

    // ---------------------------------------------------------------- explain: upstream

    pub fn publish(
        self,
        ev: &str,
        kind: EventType,
        source: &str,
        target: &str,
        amount: i64,
    ) -> String {
        match (self, kind) {
            (Lang::En, EventType::TransferCreated) => format!(
                "The producer publishes {ev}: TransferCreated, {amount} from {source} to \
                 {target}."
            ),
            (Lang::Es, EventType::TransferCreated) => format!(
                "El productor publica {ev}: TransferCreated, {amount} de {source} a {target}."
            ),
            (Lang::En, EventType::TransferCompleted) => format!(
                "The producer publishes {ev}: TransferCompleted, the completion of a transfer."
            ),
            (Lang::Es, EventType::TransferCompleted) => format!(
                "El productor publica {ev}: TransferCompleted, la finalización de una \
                 transferencia."
            ),
        }
    }

    pub fn publish_minted(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The producer publishes the transfer again under a new event_id, {ev}: to any \
                 inbox, a different event."
            ),
            Lang::Es => format!(
                "El productor vuelve a publicar la transferencia con un event_id nuevo, {ev}: \
                 para cualquier inbox, es otro evento."
            ),
        }
    }

    /// Event `ev` published again with the same `event_id` and another payload, as message
    /// copy `copy`.
    pub fn publish_altered(self, ev: &str, copy: u32) -> String {
        let message = self.ev(ev.trim_start_matches('e').parse().unwrap_or(0), copy);
        match self {
            Lang::En => format!(
                "The producer publishes {ev} again with the same event_id and ANOTHER payload \
                 ({message}): a producer bug."
            ),
            Lang::Es => format!(
                "El productor vuelve a publicar {ev} con el mismo event_id y OTRO payload \
                 ({message}): un bug del productor."
            ),
        }
    }

    /// Event `ev` published again with the same `event_id`: another message, its copy
    /// number `copy`.
    pub fn republish(self, ev: &str, copy: u32) -> String {
        let message = self.ev(ev.trim_start_matches('e').parse().unwrap_or(0), copy);
        match self {
            Lang::En => format!(
                "The producer publishes {ev} again with the same event_id: another message, \
                 {message}."
            ),
            Lang::Es => format!(
                "El productor vuelve a publicar {ev} con el mismo event_id: otro mensaje, \
                 {message}."
            ),
        }
    }

    pub fn with_publish_timeout(self, what: &str) -> String {
        match self {
            Lang::En => format!(
                "{what} It reached the broker, but the confirmation timed out: the producer will \
                 publish again."
            ),
            Lang::Es => format!(
                "{what} Llegó al broker, pero la confirmación venció por timeout: el productor \
                 va a publicar otra vez."
            ),
        }
    }

    pub fn publish_timeout(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The producer gets no confirmation for {ev}'s publication, so it publishes again."
            ),
            Lang::Es => format!(
                "El productor no recibe confirmación de la publicación de {ev}, así que publica \
                 otra vez."
            ),
        }
    }

    pub fn insert_transfer(self, ev: &str, outbox: bool) -> String {
        match (self, outbox) {
            (Lang::En, true) => format!(
                "The producer opens a transaction and inserts the transfer of {ev} and its \
                 outbox row (not committed yet)."
            ),
            (Lang::En, false) => format!(
                "The producer opens a transaction and inserts the transfer of {ev} (not \
                 committed yet)."
            ),
            (Lang::Es, true) => format!(
                "El productor abre una transacción e inserta la transferencia de {ev} y su fila \
                 de outbox (todavía sin confirmar)."
            ),
            (Lang::Es, false) => format!(
                "El productor abre una transacción e inserta la transferencia de {ev} (todavía \
                 sin confirmar)."
            ),
        }
    }

    pub fn transfer_already_recorded(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "The transfer of {ev} was already committed by an earlier attempt: the request is \
                 answered from it, and nothing else is done."
            ),
            Lang::Es => format!(
                "La transferencia de {ev} ya se confirmó en un intento anterior: el pedido se \
                 responde con ella y no se hace nada más."
            ),
        }
    }

    pub fn commit_transfer(self, ev: &str) -> String {
        match self {
            Lang::En => format!("The producer commits the transfer of {ev} (COMMIT)."),
            Lang::Es => format!("El productor confirma la transferencia de {ev} (COMMIT)."),
        }
    }

    pub fn producer_restart(self, retry: bool) -> String {
        match (self, retry) {
            (Lang::En, true) => {
                "The producer restarts; the client retries the request it got no answer for.".into()
            }
            (Lang::En, false) => {
                "The producer restarts; the unanswered request is given up.".into()
            }
            (Lang::Es, true) => {
                "El productor se reinicia; el cliente reintenta el pedido que quedó sin \
                 respuesta."
                    .into()
            }
            (Lang::Es, false) => {
                "El productor se reinicia; el pedido sin respuesta se abandona.".into()
            }
        }
    }

    pub fn relay_idle(self, who: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!("{who} finds its outbox empty and waits."),
            Lang::Es => format!("{who} encuentra su outbox vacío y espera."),
        }
    }

    pub fn relay_publish(self, who: &str, ev: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!(
                "{who} reads the oldest unsent outbox row and publishes {ev}. Until it marks the \
                 row sent, a crash makes it send again."
            ),
            Lang::Es => format!(
                "{who} lee la fila más vieja sin enviar del outbox y publica {ev}. Hasta que \
                 marque la fila como enviada, una caída hace que la envíe otra vez."
            ),
        }
    }

    pub fn send_email(self, who: &str, ev: &str, key: bool) -> String {
        let who = cap(who);
        match (self, key) {
            (Lang::En, true) => format!(
                "{who} hands {ev}'s email to the mail service, with the event_id as idempotency \
                 key: the service sends each key once."
            ),
            (Lang::En, false) => format!(
                "{who} hands {ev}'s email to the mail service, without an idempotency key: the \
                 service sends whatever it is handed."
            ),
            (Lang::Es, true) => format!(
                "{who} le pasa el correo de {ev} al servicio de correo, con el event_id como \
                 clave de idempotencia: el servicio envía cada clave una sola vez."
            ),
            (Lang::Es, false) => format!(
                "{who} le pasa el correo de {ev} al servicio de correo, sin clave de \
                 idempotencia: el servicio envía todo lo que recibe."
            ),
        }
    }

    pub fn mark_sent(self, who: &str, ev: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!("{who} marks the row of {ev} sent."),
            Lang::Es => format!("{who} marca como enviada la fila de {ev}."),
        }
    }

    pub fn relay_restart(self, who: &str) -> String {
        let who = cap(who);
        match self {
            Lang::En => format!("{who} restarts and reads the outbox from its oldest unsent row."),
            Lang::Es => {
                format!("{who} se reinicia y lee el outbox desde su fila más vieja sin enviar.")
            }
        }
    }

    // ---------------------------------------------------------------- explain: anomalies

    pub fn no_anomalies(self) -> String {
        self.pick(
            "Nothing: every event's effect is committed exactly once, and every event is acked.",
            "Nada: el efecto de cada evento quedó confirmado exactamente una vez y todos los \
             eventos tienen ack.",
        )
    }

    pub fn lost_acked_first(self, ev: &str, point: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was acked before its effect committed; the crash after the ack (at \
                 {point}) lost it: the broker will never deliver it again, and the database has \
                 no trace of it."
            ),
            Lang::Es => format!(
                "El evento {ev} se confirmó (ack) antes de que su efecto se confirmara; la caída \
                 después del ack (en {point}) lo perdió: el broker no lo va a volver a entregar y \
                 la base no tiene rastro de él."
            ),
        }
    }

    pub fn lost_marked_first(self, ev: &str, point: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was marked processed in the inbox before its effect committed; after \
                 the crash at {point}, the redelivery found the mark and skipped the effect, so \
                 the effect never happened."
            ),
            Lang::Es => format!(
                "El evento {ev} quedó marcado como procesado en el inbox antes de que su efecto \
                 se confirmara; después de la caída en {point}, la reentrega encontró la marca y \
                 salteó el efecto, así que el efecto nunca ocurrió."
            ),
        }
    }

    pub fn lost_torn(self, ev: &str, debits: u32, credits: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} is lost: only half of its transfer committed ({}, {}).",
                pl(debits, "debit", "debits"),
                pl(credits, "credit", "credits")
            ),
            Lang::Es => format!(
                "El evento {ev} se perdió: solo se confirmó la mitad de su transferencia ({}, {}).",
                pl(debits, "débito", "débitos"),
                pl(credits, "crédito", "créditos")
            ),
        }
    }

    pub fn lost_other(self, ev: &str, acked: bool) -> String {
        match (self, acked) {
            (Lang::En, true) => format!(
                "Event {ev} has no committed effect, and it is acked: the broker will never \
                 deliver it again."
            ),
            (Lang::En, false) => format!("Event {ev} has no committed effect."),
            (Lang::Es, true) => format!(
                "El evento {ev} no tiene ningún efecto confirmado, y tiene ack: el broker no lo \
                 va a volver a entregar."
            ),
            (Lang::Es, false) => {
                format!("El evento {ev} no tiene ningún efecto confirmado.")
            }
        }
    }

    pub fn duplicated_after_crash(self, ev: &str, point: &str, effects: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev}'s effect committed, then the crash at {point} came before the ack; \
                 the broker delivered it again and nothing recognised the earlier result, so its \
                 effect is committed {effects} times."
            ),
            Lang::Es => format!(
                "El efecto del evento {ev} se confirmó y la caída en {point} llegó antes del ack; \
                 el broker lo reentregó y nada reconoció el resultado previo, así que su efecto \
                 quedó confirmado {effects} veces."
            ),
        }
    }

    /// A duplicate with no crash between its commit and its ack: `causes` are why it was
    /// delivered again (from [`Lang::dup_cause`], joined), empty when the trace does not say.
    pub fn duplicated_delivered_twice(
        self,
        ev: &str,
        deliveries: u32,
        effects: u32,
        causes: &[String],
    ) -> String {
        let causes = if causes.is_empty() {
            self.pick(
                "a lost ack, a broker duplicate, a republication or an expired lease",
                "un ack perdido, un duplicado del broker, una republicación o un lease vencido",
            )
        } else {
            self.list(causes)
        };
        match self {
            Lang::En => format!(
                "Event {ev} was delivered {} ({causes}), and nothing recognised the earlier \
                 result: its effect is committed {effects} times.",
                pl(deliveries, "time", "times")
            ),
            Lang::Es => format!(
                "El evento {ev} se entregó {} ({causes}) y nada reconoció el resultado previo: \
                 su efecto quedó confirmado {effects} veces.",
                pl(deliveries, "vez", "veces")
            ),
        }
    }

    /// A duplicate made by running a transaction again after a COMMIT that timed out but
    /// had committed.
    pub fn duplicated_by_commit_timeout(self, ev: &str, effects: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev}'s COMMIT timed out although it had committed; the consumer ran the \
                 transaction again, and nothing recognised the earlier result: its effect is \
                 committed {effects} times."
            ),
            Lang::Es => format!(
                "El COMMIT del evento {ev} venció por timeout aunque se había confirmado; el \
                 consumidor volvió a ejecutar la transacción y nada reconoció el resultado \
                 previo: su efecto quedó confirmado {effects} veces."
            ),
        }
    }

    /// Why an event was delivered again, as a clause of [`Lang::duplicated_delivered_twice`].
    pub fn dup_cause(self, cause: DupCause) -> String {
        let (en, es) = match cause {
            DupCause::LeaseExpired => (
                "its lease expired while a consumer still held it",
                "venció su lease mientras un consumidor todavía lo tenía",
            ),
            DupCause::BrokerDuplicate => (
                "the broker delivered it twice on its own",
                "el broker lo entregó dos veces por su cuenta",
            ),
            DupCause::AckLost => (
                "an ack was lost on the way",
                "un ack se perdió en el camino",
            ),
            DupCause::Republished => (
                "it was published more than once",
                "se publicó más de una vez",
            ),
            DupCause::DeadLetterReplay => (
                "it was replayed from the dead-letter queue",
                "se reprocesó desde la DLQ",
            ),
            DupCause::CommitTimeout => (
                "a COMMIT timed out and the transaction ran again",
                "un COMMIT venció por timeout y la transacción se ejecutó otra vez",
            ),
        };
        self.pick(en, es)
    }

    pub fn duplicated_amounts(self, amounts: &str) -> String {
        match self {
            Lang::En => format!(
                "The committed amounts differ ({amounts}): a copy with the same event_id and \
                 another payload was applied."
            ),
            Lang::Es => format!(
                "Los importes confirmados difieren ({amounts}): se aplicó una copia con el mismo \
                 event_id y otro payload."
            ),
        }
    }

    pub fn dead_lettered_anomaly(self, ev: &str, deliveries: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was delivered {deliveries} times without an ack \
                 (broker.max_deliveries), and the broker parked it in the dead-letter queue: it \
                 has no effect, but it is not a silent loss; someone has to look at it, or \
                 replay it."
            ),
            Lang::Es => format!(
                "El evento {ev} se entregó {deliveries} veces sin ack (broker.max_deliveries) y \
                 el broker lo estacionó en la DLQ: no tiene efecto, pero no es una pérdida \
                 silenciosa; alguien tiene que revisarlo, o reprocesarlo."
            ),
        }
    }

    pub fn pending_anomaly(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} (a TransferCompleted) is still waiting in pending_event: its \
                 transfer was never created, so it is neither lost nor done."
            ),
            Lang::Es => format!(
                "El evento {ev} (un TransferCompleted) sigue esperando en pending_event: su \
                 transferencia nunca se creó, así que no está perdido ni terminado."
            ),
        }
    }

    pub fn duplicated_after_expiry(self, ev: &str, at: u64, effects: u32) -> String {
        match self {
            Lang::En => format!(
                "The retention job deleted event {ev}'s inbox row at t={at}; a later delivery \
                 was no longer recognised, so its effect is committed {effects} times. The TTL \
                 was shorter than the time in which the broker may deliver it again."
            ),
            Lang::Es => format!(
                "El job de retención borró la fila de inbox del evento {ev} en t={at}; una \
                 entrega posterior ya no se reconoció, así que su efecto quedó confirmado \
                 {effects} veces. El TTL era más corto que el tiempo en el que el broker lo \
                 puede volver a entregar."
            ),
        }
    }

    pub fn rejected_anomaly(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} (a TransferCompleted) arrived before the event that creates its \
                 transfer; the projection rejected it and recorded the rejection, so that \
                 transfer never completes."
            ),
            Lang::Es => format!(
                "El evento {ev} (un TransferCompleted) llegó antes que el evento que crea su \
                 transferencia; la proyección lo rechazó y registró el rechazo, así que esa \
                 transferencia nunca se completa."
            ),
        }
    }

    pub fn unpublished_anomaly(self, ev: &str) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} was never published: the producer committed its transfer and crashed \
                 before publishing, so no consumer ever saw it."
            ),
            Lang::Es => format!(
                "El evento {ev} nunca se publicó: el productor confirmó su transferencia y se \
                 cayó antes de publicar, así que ningún consumidor lo vio."
            ),
        }
    }

    pub fn payload_anomaly(self, ev: &str, stored: &str, received: &str) -> String {
        match self {
            Lang::En => format!(
                "A copy of event {ev} arrived with the same event_id and another payload (stored \
                 {stored}, received {received}): the inbox refused it and recorded an alert. It \
                 was not applied, and it does not count as a duplicate."
            ),
            Lang::Es => format!(
                "Llegó una copia del evento {ev} con el mismo event_id y otro payload (guardado \
                 {stored}, recibido {received}): el inbox la rechazó y registró una alerta. No se \
                 aplicó, y no cuenta como duplicado."
            ),
        }
    }

    pub fn torn_anomaly(self, ev: &str, debits: u32, credits: u32) -> String {
        match self {
            Lang::En => format!(
                "Event {ev} is torn: {} and {} committed, so the balances no longer add up.",
                pl(debits, "debit", "debits"),
                pl(credits, "credit", "credits")
            ),
            Lang::Es => format!(
                "El evento {ev} quedó partido: se confirmaron {} y {}, así que los saldos ya no \
                 cierran.",
                pl(debits, "débito", "débitos"),
                pl(credits, "crédito", "créditos")
            ),
        }
    }

    pub fn unacked_anomaly(self, ev: &str, stop: StopReason, has_ack: bool) -> String {
        match (self, stop, has_ack) {
            (Lang::En, StopReason::StepLimit, _) => {
                format!("Event {ev} was never acked: the run stopped at its step limit first.")
            }
            (Lang::En, StopReason::TickLimit, _) => {
                format!("Event {ev} was never acked: the run stopped at its tick limit first.")
            }
            (Lang::Es, StopReason::StepLimit, _) => format!(
                "El evento {ev} nunca recibió ack: antes, la corrida se detuvo por su límite de \
                 pasos."
            ),
            (Lang::Es, StopReason::TickLimit, _) => format!(
                "El evento {ev} nunca recibió ack: antes, la corrida se detuvo por su límite de \
                 ticks."
            ),
            (Lang::En, StopReason::TraceLimit, _) => {
                format!("Event {ev} was never acked: the run stopped at its trace limit first.")
            }
            (Lang::Es, StopReason::TraceLimit, _) => format!(
                "El evento {ev} nunca recibió ack: antes, la corrida se detuvo por su límite de \
                 traza."
            ),
            (Lang::En, StopReason::Quiescent, false) => format!(
                "Event {ev} was never acked: the protocol has no ack step, so it stays in flight \
                 forever."
            ),
            (Lang::Es, StopReason::Quiescent, false) => format!(
                "El evento {ev} nunca recibió ack: el protocolo no tiene un paso de ack, así que \
                 queda en vuelo para siempre."
            ),
            (Lang::En, StopReason::Quiescent, true) => {
                format!("Event {ev} was left without an ack, with nothing more to run.")
            }
            (Lang::Es, StopReason::Quiescent, true) => {
                format!("El evento {ev} quedó sin ack, sin nada más para ejecutar.")
            }
        }
    }

    pub fn intent_lost(self, transfer: &str) -> String {
        match self {
            Lang::En => format!(
                "Transfer {transfer} was committed by the producer, but its money never moved."
            ),
            Lang::Es => format!(
                "El productor confirmó la transferencia {transfer}, pero su dinero nunca se movió."
            ),
        }
    }

    /// An intent whose money moved more than once, through `events`; `distinct`: they are
    /// several events (different `event_id`s), not one event applied twice.
    pub fn intent_duplicated(
        self,
        transfer: &str,
        effects: u32,
        events: &str,
        distinct: bool,
    ) -> String {
        match (self, distinct) {
            (Lang::En, true) => format!(
                "Transfer {transfer}'s money moved {effects} times: it was published as {events}, \
                 different event_ids, and an inbox recognises event_ids, not intents."
            ),
            (Lang::Es, true) => format!(
                "El dinero de la transferencia {transfer} se movió {effects} veces: se publicó \
                 como {events}, con event_ids distintos, y un inbox reconoce event_ids, no \
                 intenciones."
            ),
            (Lang::En, false) => format!(
                "Transfer {transfer}'s money moved {effects} times, through {events}: the same \
                 duplicate, seen per intent."
            ),
            (Lang::Es, false) => format!(
                "El dinero de la transferencia {transfer} se movió {effects} veces, a través de \
                 {events}: el mismo duplicado, visto por intención."
            ),
        }
    }

    pub fn intent_stuck(self, transfer: &str) -> String {
        match self {
            Lang::En => format!(
                "Transfer {transfer}'s money has not moved, and the broker still holds its \
                 event: the run ended before anything resolved it, a liveness failure."
            ),
            Lang::Es => format!(
                "El dinero de la transferencia {transfer} no se movió, y el broker todavía \
                 retiene su evento: la corrida terminó sin que nada lo resolviera, una falla \
                 de progreso."
            ),
        }
    }

    pub fn intent_ghost(self, transfer: &str) -> String {
        match self {
            Lang::En => format!(
                "Transfer {transfer}'s money moved, but the producer never committed the \
                 transfer: a ghost event, published before its transaction committed."
            ),
            Lang::Es => format!(
                "El dinero de la transferencia {transfer} se movió, pero el productor nunca \
                 confirmó la transferencia: un evento fantasma, publicado antes de que su \
                 transacción se confirmara."
            ),
        }
    }

    /// A boundary beyond the ledger per event that is not exactly-once, and why that can be;
    /// `several_events`: some intent was published as several events.
    pub fn boundary_anomaly(self, b: &ScopeVerdict, several_events: bool) -> String {
        let describe = cap(&self.describe_scope(b));
        let why = match (self, b.boundary) {
            (_, Scope::LedgerPerIntent | Scope::LedgerPerEvent) if !several_events => {
                return format!("{describe}.");
            }
            (Lang::En, Scope::LedgerPerIntent | Scope::LedgerPerEvent) => {
                "An inbox protects each event_id; the producer decides how many events one \
                 intent becomes."
            }
            (Lang::Es, Scope::LedgerPerIntent | Scope::LedgerPerEvent) => {
                "Un inbox protege cada event_id; el productor decide en cuántos eventos se \
                 convierte una intención."
            }
            (Lang::En, Scope::Email) => {
                "The email leaves the database's transaction, so the ledger's guarantee does not \
                 cover it."
            }
            (Lang::Es, Scope::Email) => {
                "El correo sale de la transacción de la base, así que la garantía del ledger no \
                 lo cubre."
            }
            (Lang::En, Scope::OutputTopic) => {
                "An output published outside the broker's transaction is not taken back by a \
                 crash."
            }
            (Lang::Es, Scope::OutputTopic) => {
                "Una salida publicada fuera de la transacción del broker no se deshace con una \
                 caída."
            }
        };
        format!("{describe}. {why}")
    }

    pub fn lost_update(self, accounts: &[String]) -> String {
        let list = self.list(accounts);
        match (self, accounts.len()) {
            (Lang::En, 1) => format!(
                "The balances do not add up: the balance of {list} disagrees with its ledger \
                 rows, because an update was lost (two writers read the same balance)."
            ),
            (Lang::En, _) => format!(
                "The balances do not add up: the balances of {list} disagree with their ledger \
                 rows, because updates were lost (two writers read the same balance)."
            ),
            (Lang::Es, 1) => format!(
                "Los saldos no cierran: el saldo de {list} no coincide con sus asientos, porque \
                 se perdió una actualización (dos escritores leyeron el mismo saldo)."
            ),
            (Lang::Es, _) => format!(
                "Los saldos no cierran: los saldos de {list} no coinciden con sus asientos, \
                 porque se perdieron actualizaciones (dos escritores leyeron el mismo saldo)."
            ),
        }
    }

    pub fn stopped_anomaly(self, step_limit: bool) -> String {
        match (self, step_limit) {
            (Lang::En, true) => "The run stopped at its step limit before it was done.".into(),
            (Lang::En, false) => "The run stopped at its tick limit before it was done.".into(),
            (Lang::Es, true) => {
                "La corrida se detuvo por su límite de pasos antes de terminar.".into()
            }
            (Lang::Es, false) => {
                "La corrida se detuvo por su límite de ticks antes de terminar.".into()
            }
        }
    }

    // ---------------------------------------------------------------- explain: verdict, table

    pub fn verdict_sentence(self, guarantee: &str, once: u64, lost: u64, dup: u64) -> String {
        match self {
            Lang::En => {
                format!("{guarantee}: {once} once, {lost} lost, {dup} duplicated. Per boundary:")
            }
            Lang::Es => format!(
                "{guarantee}: {once} una vez, {}, {}. Por frontera:",
                pl(lost, "perdido", "perdidos"),
                pl(dup, "duplicado", "duplicados")
            ),
        }
    }

    /// The seeds' "recuperación" of a crash.
    pub fn recovery(self, r: &Recovery, c: &Confirmed) -> String {
        let effect_before = c.ledger_rows > 0;
        if !r.redelivered {
            let (en, es) = if effect_before && c.acked {
                (
                    "none needed: resolved; the consumer goes on with other events",
                    "no hace falta: está resuelto; el consumidor sigue con otros eventos",
                )
            } else if c.acked {
                (
                    "none: the broker has the ack and never delivers it again",
                    "ninguna: el broker tiene el ack y no lo vuelve a entregar",
                )
            } else {
                (
                    "none: never delivered again",
                    "ninguna: no se volvió a entregar",
                )
            };
            return self.pick(en, es);
        }
        let (en, es) = match (
            r.new_effects > 0 && effect_before,
            r.new_effects > 0,
            r.duplicate_discarded,
            r.acked_in_the_end,
        ) {
            (true, _, _, true) => (
                "redelivered; applied the effect a second time, then acked",
                "reentrega; aplicó el efecto por segunda vez y envió el ack",
            ),
            (true, _, _, false) => (
                "redelivered; applied the effect a second time, and never acked",
                "reentrega; aplicó el efecto por segunda vez y nunca envió el ack",
            ),
            (false, true, _, true) => (
                "redelivered; retried the transaction, applied the effect and acked",
                "reentrega; reintentó la transacción, aplicó el efecto y envió el ack",
            ),
            (false, true, _, false) => (
                "redelivered; retried the transaction and applied the effect, but never acked",
                "reentrega; reintentó la transacción y aplicó el efecto, pero nunca envió el ack",
            ),
            (false, false, true, true) => (
                "redelivered; recognised the earlier result and acked without another effect",
                "reentrega; reconoció el resultado previo y envió el ack sin otro efecto",
            ),
            (false, false, true, false) => (
                "redelivered; recognised the earlier result, but never acked",
                "reentrega; reconoció el resultado previo, pero nunca envió el ack",
            ),
            (false, false, false, true) => (
                "redelivered; no new effect, acked",
                "reentrega; sin efecto nuevo, con ack",
            ),
            (false, false, false, false) => (
                "redelivered; no new effect, never acked",
                "reentrega; sin efecto nuevo y sin ack",
            ),
        };
        self.pick(en, es)
    }
}

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
            RunLabel::Boundaries => ("boundaries", "fronteras"),
            RunLabel::Alerts => ("alerts", "alertas"),
            RunLabel::Retention => ("retention", "retención"),
            RunLabel::External => ("external", "externos"),
            RunLabel::Events => ("events", "eventos"),
            RunLabel::Anomalies => ("anomalies", "anomalías"),
            RunLabel::Intent => ("intent", "intención"),
            RunLabel::Trace => ("trace", "traza"),
            RunLabel::Expect => ("expect", "esperado"),
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
                format!("{point} at t={tick} ({cause}); SQLite rolled back the open transaction")
            }
            (Lang::Es, false) => format!("{point} en t={tick} ({cause})"),
            (Lang::Es, true) => {
                format!("{point} en t={tick} ({cause}); SQLite revirtió la transacción abierta")
            }
        }
    }

    /// `at-most-once: 2 once, 1 lost, 0 duplicated; all acked; balances conserved`, with
    /// the guarantee as given (it may be painted).
    pub fn verdict_line(self, v: &Verdict, guarantee: &str) -> String {
        match self {
            Lang::En => format!(
                "{guarantee}: {} once, {} lost, {} duplicated{}{}; {}; {}",
                v.exactly_once,
                v.lost,
                v.duplicated,
                nonzero(
                    ", ",
                    &[
                        (v.stuck, "stuck (a liveness failure)"),
                        (v.wrong_effects, "applied with an altered payload"),
                        (v.invalid, "invalid, refused as they should be"),
                    ]
                ),
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
                },
                if v.all_acked {
                    "all acked"
                } else {
                    "NOT ALL ACKED"
                },
                if v.conserved {
                    "balances conserved".to_string()
                } else {
                    format!(
                        "BALANCES NOT CONSERVED (total {} minor units, opening {}{})",
                        v.balance_total_minor,
                        v.opening_total_minor,
                        if v.drifted_accounts.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "; the balance of {} disagrees with its ledger rows: an update \
                                 was lost",
                                v.drifted_accounts.join(", ")
                            )
                        }
                    )
                }
            ),
            Lang::Es => format!(
                "{guarantee}: {} una vez, {}, {}{}{}; {}; {}",
                v.exactly_once,
                pl(v.lost, "perdido", "perdidos"),
                pl(v.duplicated, "duplicado", "duplicados"),
                nonzero(
                    ", ",
                    &[
                        (v.stuck, "atascado(s) (una falla de progreso)"),
                        (v.wrong_effects, "aplicado(s) con un payload alterado"),
                        (v.invalid, "inválido(s), rechazado(s) como corresponde"),
                    ]
                ),
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
                },
                if v.all_acked {
                    "todos con ack"
                } else {
                    "NO TODOS CON ACK"
                },
                if v.conserved {
                    "saldos conservados".to_string()
                } else {
                    format!(
                        "SALDOS NO CONSERVADOS (total {} unidades menores, apertura {}{})",
                        v.balance_total_minor,
                        v.opening_total_minor,
                        if v.drifted_accounts.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "; el saldo de {} no coincide con sus asientos: se perdió una \
                                 actualización",
                                v.drifted_accounts.join(", ")
                            )
                        }
                    )
                }
            ),
        }
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
    pub fn run_anomaly(self, a: &Anomaly, e: &EventReport) -> String {
        let detail = a.detail.as_deref().unwrap_or("");
        match (self, a.kind) {
            (Lang::En, "lost") => format!(
                "LOST: {}{}",
                if a.effects == 0 {
                    "no effect committed"
                } else {
                    "only half of its transfer committed"
                },
                if e.acked {
                    ", and it is acked: the broker will never deliver it again"
                } else {
                    ""
                }
            ),
            (Lang::Es, "lost") => format!(
                "PERDIDO: {}{}",
                if a.effects == 0 {
                    "no se confirmó ningún efecto"
                } else {
                    "solo se confirmó la mitad de su transferencia"
                },
                if e.acked {
                    ", y tiene ack: el broker no lo va a volver a entregar"
                } else {
                    ""
                }
            ),
            (Lang::En, "duplicated") => format!(
                "DUPLICATED: its effect is committed {} times{}",
                a.effects,
                a.detail
                    .as_deref()
                    .map_or(String::new(), |d| format!(" ({d})"))
            ),
            (Lang::Es, "duplicated") => format!(
                "DUPLICADO: su efecto quedó confirmado {} veces{}",
                a.effects,
                if let Some(at) = e.inbox_expired_at {
                    format!(
                        " (el job de retención borró su fila de inbox en t={at}, así que una \
                         entrega posterior no se reconoció como duplicado)"
                    )
                } else if a.detail.is_some() {
                    let amounts: Vec<String> =
                        e.amounts_minor.iter().map(|a| a.to_string()).collect();
                    format!(
                        " (importes confirmados {}: se aplicó una copia con el mismo event_id y \
                         otro payload)",
                        amounts.join(", ")
                    )
                } else {
                    String::new()
                }
            ),
            (Lang::En, "payload_mismatch") => format!("PAYLOAD MISMATCH: {detail}"),
            (Lang::Es, "payload_mismatch") => {
                let stored = a.stored_payload.as_deref().unwrap_or("");
                let received = a.received_payload.as_deref().unwrap_or("");
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
            (Lang::En, "pending") => "PENDING: a completion still waiting in pending_event when \
                                      the run ended; its TransferCreated never took effect"
                .into(),
            (Lang::Es, "pending") => "PENDIENTE: una finalización que seguía esperando en \
                                      pending_event cuando terminó la corrida; su \
                                      TransferCreated nunca tuvo efecto"
                .into(),
            (Lang::En, "rejected") => "REJECTED: a completion that arrived before its transfer \
                                       was created; the projection refused it and the transfer \
                                       never completes"
                .into(),
            (Lang::Es, "rejected") => "RECHAZADO: una finalización que llegó antes de que se \
                                       creara su transferencia; la proyección la rechazó y la \
                                       transferencia nunca se completa"
                .into(),
            (Lang::En, "unpublished") => "UNPUBLISHED: the producer committed its transfer but \
                                          never published it; no consumer can see it"
                .into(),
            (Lang::Es, "unpublished") => "NO PUBLICADO: el productor confirmó su transferencia \
                                          pero nunca la publicó; ningún consumidor la puede ver"
                .into(),
            (Lang::En, "dead_lettered") => format!("DEAD-LETTERED: no effect committed; {detail}"),
            (Lang::Es, "dead_lettered") => "EN LA DLQ: no se confirmó ningún efecto; el broker \
                                            lo mandó a la DLQ al llegar a \
                                            broker.max_deliveries entregas: perdido, salvo que \
                                            se reprocese la DLQ, cosa que esta corrida no hizo"
                .into(),
            (Lang::En, "stuck") => format!("STUCK: {detail}"),
            (Lang::Es, "stuck") => format!(
                "ATASCADO: sin resolver cuando terminó la corrida ({}); el broker todavía lo \
                 retiene: una falla de progreso",
                pl(e.effects, "efecto", "efectos")
            ),
            (Lang::En, "invalid") => format!("INVALID: {detail}"),
            (Lang::Es, "invalid") => "INVÁLIDO: el escenario declara inválido su payload \
                                      (workload.invalid); el consumidor lo rechazó en cada \
                                      entrega y nunca lo aplicó, como corresponde"
                .into(),
            (Lang::En, "wrong_effect") => format!("WRONG EFFECT: {detail}"),
            (Lang::Es, "wrong_effect") => format!(
                "EFECTO ERRÓNEO: se aplicó con el importe {} en lugar del suyo, {}: llegó antes \
                 una copia con el mismo event_id y otro payload",
                e.amounts_minor.first().copied().unwrap_or_default(),
                e.amount_minor
            ),
            (Lang::En, "torn") => format!("TORN: half an effect committed ({detail})"),
            (Lang::Es, "torn") => format!(
                "PARTIDO: se confirmó medio efecto ({}, {})",
                pl(e.debits, "débito", "débitos"),
                pl(e.credits, "crédito", "créditos")
            ),
            (Lang::En, _) => format!("UNACKED: {detail}"),
            (Lang::Es, _) => format!(
                "SIN ACK: {}",
                if detail.starts_with("the step limit") {
                    "la corrida llegó a su límite de pasos antes del ack"
                } else if detail.starts_with("the tick limit") {
                    "la corrida llegó a su límite de ticks antes del ack"
                } else if detail.starts_with("in flight forever") {
                    "en vuelo para siempre: el protocolo no tiene paso de ack"
                } else {
                    "quedó sin ack, sin nada más para ejecutar"
                }
            ),
        }
    }

    pub fn anomaly_line(
        self,
        event: usize,
        event_id: &str,
        what: &str,
        points: &[String],
    ) -> String {
        match self {
            Lang::En => format!(
                "event {event} ({event_id}) {what}; {}",
                if points.is_empty() {
                    "no crash hit it".to_string()
                } else {
                    format!("crash points: {}", points.join(", "))
                }
            ),
            Lang::Es => format!(
                "evento {event} ({event_id}) {what}; {}",
                if points.is_empty() {
                    "ninguna caída lo afectó".to_string()
                } else {
                    format!("puntos de caída: {}", points.join(", "))
                }
            ),
        }
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

    pub fn expect_failed(self) -> &'static str {
        match self {
            Lang::En => "FAILED",
            Lang::Es => "NO SE CUMPLIÓ",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_environment_decides_the_language_in_posix_order() {
        assert_eq!(Lang::from_env(env(&[])), Lang::En);
        assert_eq!(Lang::from_env(env(&[("LANG", "es_AR.UTF-8")])), Lang::Es);
        assert_eq!(Lang::from_env(env(&[("LANG", "C.UTF-8")])), Lang::En);
        // LC_ALL overrides LC_MESSAGES, which overrides LANG; an empty one does not count.
        assert_eq!(
            Lang::from_env(env(&[("LC_ALL", "en_US"), ("LANG", "es_ES")])),
            Lang::En
        );
        assert_eq!(
            Lang::from_env(env(&[("LC_MESSAGES", "es_MX"), ("LANG", "en_GB")])),
            Lang::Es
        );
        assert_eq!(
            Lang::from_env(env(&[("LC_ALL", ""), ("LANG", "es")])),
            Lang::Es
        );
        assert_eq!(Lang::parse("ES"), Some(Lang::Es));
        assert_eq!(Lang::parse("fr"), None);
    }

    #[test]
    fn lists_join_in_each_language() {
        let items: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(Lang::En.list(&items), "a, b and c");
        assert_eq!(Lang::Es.list(&items), "a, b y c");
        assert_eq!(Lang::Es.list(&items[..1]), "a");
        assert_eq!(Lang::En.list(&[]), "nothing");
    }

    #[test]
    fn the_confirmed_state_reads_as_the_seeds_table() {
        let c = |ledger_rows, inbox_rows, acked| Confirmed {
            ledger_rows,
            inbox_rows,
            acked,
        };
        assert!(Lang::Es
            .confirmed(&c(0, 0, false))
            .starts_with("nada: ni efecto ni identidad"));
        assert!(Lang::Es
            .confirmed(&c(2, 1, false))
            .starts_with("efecto e identidad (fila de inbox) confirmados"));
        assert!(Lang::Es
            .confirmed(&c(2, 1, true))
            .starts_with("intención resuelta"));
        assert!(Lang::En
            .confirmed(&c(0, 0, true))
            .starts_with("only the ack"));
    }
}
