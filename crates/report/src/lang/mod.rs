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

use crate::check::{IntentReport, Outcome, ScopeOutcome, ScopeVerdict, UnackedReason, Verdict};
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
    /// The verdict line every report leads with (`check::Judgement`).
    Verdict,
    /// The run's effects per event: once, lost, duplicated, acked, conserved.
    Effects,
    Boundaries,
    Alerts,
    Retention,
    External,
    Events,
    Anomalies,
    Intent,
    Trace,
    Expect,
    /// What `run FILE` checked beyond the run: the explorations, interleavings and TTL
    /// search the file pins.
    Checks,
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

pub use crate::view::TxItem;

/// `n one` or `n many`.
/// `, 2 stuck, 1 invalid` (with `sep` ", "): each count that is not zero, with its words.
pub(crate) fn nonzero(sep: &str, counts: &[(u64, &str)]) -> String {
    counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{sep}{n} {what}"))
        .collect()
}

impl Lang {
    /// `1 debit` and `2 credits`: an event's committed ledger rows, counted.
    fn ledger_rows(self, debits: u32, credits: u32) -> (String, String) {
        match self {
            Lang::En => (
                pl(debits, "debit", "debits"),
                pl(credits, "credit", "credits"),
            ),
            Lang::Es => (
                pl(debits, "débito", "débitos"),
                pl(credits, "crédito", "créditos"),
            ),
        }
    }
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
    /// The scenario's own description in this language: its Spanish one under `es` when
    /// the file gives one, else the one it has.
    pub fn description(self, scenario: &crate::scenario::Scenario) -> &str {
        match self {
            Lang::Es if !scenario.description_es.is_empty() => &scenario.description_es,
            _ => &scenario.description,
        }
    }

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

    /// The language as `--lang` names it: `en` or `es`.
    pub fn code(self) -> &'static str {
        self.choose("en", "es")
    }

    /// [`Lang::pick`] for words known at compile time: no allocation.
    pub(crate) fn choose(self, en: &'static str, es: &'static str) -> &'static str {
        match self {
            Lang::En => en,
            Lang::Es => es,
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
                Scope::Call => "llamadas a un servicio",
            }
            .to_string(),
        }
    }

    /// The boundary, naming where the effect lives when not in the main database:
    /// `effects on `api` per event`, `calls to `topup` per event`.
    pub fn scope_on(self, s: Scope, effect: Option<crate::model::Effect>) -> String {
        use crate::model::Effect;
        match (self, effect, s) {
            (_, None, _) => self.scope(s),
            (Lang::En, Some(Effect::Db(db)), _) => format!("effects on `{db}` per event"),
            (Lang::Es, Some(Effect::Db(db)), _) => format!("efectos en `{db}` por evento"),
            (Lang::En, Some(Effect::External(call)), Scope::Call) => format!("calls to `{call}`"),
            (Lang::Es, Some(Effect::External(call)), Scope::Call) => {
                format!("llamadas a `{call}`")
            }
            (Lang::En, Some(Effect::External(call)), _) => format!("calls to `{call}` per event"),
            (Lang::Es, Some(Effect::External(call)), _) => {
                format!("llamadas a `{call}` por evento")
            }
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
                    self.scope_on(b.boundary, b.effect),
                    b.guarantee,
                    parts.join(", ")
                )
            }
        }
    }
}

mod anomalies;
mod broker;
mod consumer;
mod crashes;
mod crosscheck;
mod detail;
mod diagram;
mod expect;
mod explore;
pub use explore::{ExploreLabel, InterleavingsEnd};
mod flow;
mod folder;
mod frame;
mod html;
pub mod input;
mod ladder;
mod matrix;
mod policy;
mod protocols;
mod run;
mod serve;
pub use serve::{JobRefusal, ServeRefusal};
mod sql;
mod status;
mod sweep;
pub use sweep::SweepHead;
mod judgement;
mod trace;
mod upstream;
mod verdict;

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
