//! explain's frame: headings, labels, how to read the steps, and the state lines under them.

use super::*;

impl Lang {
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
                "seed {seed}, {}, {}{}; {}",
                pl(events, "event", "events"),
                pl(consumers, "consumer", "consumers"),
                if accounts == 0 {
                    String::new()
                } else {
                    format!(", {}", pl(accounts, "account", "accounts"))
                },
                if crashes.is_empty() {
                    "no crash".to_string()
                } else {
                    format!("crashes: {}", crashes.join(", "))
                }
            ),
            Lang::Es => format!(
                "semilla {seed}, {}, {}{}; {}",
                pl(events, "evento", "eventos"),
                pl(consumers, "consumidor", "consumidores"),
                if accounts == 0 {
                    String::new()
                } else {
                    format!(", {}", pl(accounts, "cuenta", "cuentas"))
                },
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
        let (d, c) = self.ledger_rows(debits, credits);
        format!("e{event} ({d}, {c})")
    }

    pub fn tx_item(self, item: TxItem) -> String {
        match (self, item) {
            (Lang::En, TxItem::Inbox(e)) => format!("the inbox row for e{e}"),
            (Lang::Es, TxItem::Inbox(e)) => format!("la fila de inbox de e{e}"),
            (Lang::En, TxItem::Effect(e)) => format!("the debit and credit for e{e}"),
            (Lang::Es, TxItem::Effect(e)) => format!("el débito y el crédito de e{e}"),
            (Lang::En, TxItem::CountedEffect(e)) => format!("the effect of e{e}"),
            (Lang::Es, TxItem::CountedEffect(e)) => format!("el efecto de e{e}"),
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

    /// An open transaction on PostgreSQL, whose writes the tool does not read.
    pub fn open_unseen(self, who: &str, event: Option<&str>) -> String {
        let whose = event.map_or(who.to_string(), |e| format!("{who} ({e})"));
        match self {
            Lang::En => format!(
                "{whose}: open; on PostgreSQL its uncommitted writes are not read (a read inside \
                 it could change what it sees)"
            ),
            Lang::Es => format!(
                "{whose}: abierta; en PostgreSQL no se leen sus escrituras sin confirmar (leer \
                 dentro de ella podría cambiar lo que ve)"
            ),
        }
    }

    /// What an open transaction on PostgreSQL holds, unread, when it commits or goes.
    pub fn tx_unseen(self) -> String {
        self.choose(
            "whatever it wrote since BEGIN (not read on PostgreSQL)",
            "todo lo que escribió desde el BEGIN (no se lee en PostgreSQL)",
        )
        .to_string()
    }

    pub fn open_written(self, who: &str, event: Option<&str>, items: &str) -> String {
        let whose = event.map_or(who.to_string(), |e| format!("{who} ({e})"));
        match self {
            Lang::En => format!("{whose}, not committed: {items}"),
            Lang::Es => format!("{whose}, sin confirmar: {items}"),
        }
    }
}
