//! The verdict line every command leads with (`check::Judgement`), in both languages:
//! `FAIL  at-least-once (ledger per event, this run): 1 event duplicated`.

use super::*;
use crate::check::{CheckKind, Coverage, Cutoff, FailureKind, Judgement, Reason, Status};
use crate::model::Guarantee;

impl Lang {
    /// `PASS`, `FAIL` or `UNKNOWN`.
    pub fn status(self, s: Status) -> &'static str {
        match (self, s) {
            (Lang::En, Status::Pass) => "PASS",
            (Lang::En, Status::Fail) => "FAIL",
            (Lang::En, Status::Unknown) => "UNKNOWN",
            (Lang::Es, Status::Pass) => "PASA",
            (Lang::Es, Status::Fail) => "FALLA",
            (Lang::Es, Status::Unknown) => "INCIERTO",
        }
    }

    /// The whole verdict on one line: status, guarantee with its scope, reasons.
    pub fn judgement(self, j: &Judgement) -> String {
        let effect = match (self, j.scope.effects_differ) {
            (_, false) => self.scope_on(j.scope.boundary, j.scope.effect),
            (Lang::En, true) => "each file's own effect".to_string(),
            (Lang::Es, true) => "el efecto de cada archivo".to_string(),
        };
        let scope = format!("{effect}, {}", self.coverage(j.scope.over));
        let guarantee = self.observed(j.guarantee);
        let head = format!("{}  {guarantee} ({scope})", self.status(j.status));
        if j.reasons.is_empty() {
            return head;
        }
        let reasons: Vec<String> = (j.reasons.iter())
            .map(|r| self.reason(r, j.scope.over))
            .collect();
        format!("{head}: {}", reasons.join("; "))
    }

    /// The guarantee a verdict observed; with none, that nothing was checked (which is not
    /// `no guarantee`: that one is observed, events lost and duplicated).
    fn observed(self, g: Option<Guarantee>) -> String {
        match (self, g) {
            (Lang::En, Some(Guarantee::None)) => "no guarantee".to_string(),
            (Lang::Es, Some(Guarantee::None)) => "ninguna garantía".to_string(),
            (_, Some(g)) => g.to_string(),
            (Lang::En, None) => "nothing checked".to_string(),
            (Lang::Es, None) => "nada revisado".to_string(),
        }
    }

    /// What a verdict covers: `this run`, `45 runs to depth 1`, ….
    pub fn coverage(self, c: Coverage) -> String {
        match (self, c) {
            (Lang::En, Coverage::Run) => "this run".into(),
            (Lang::Es, Coverage::Run) => "esta corrida".into(),
            (Lang::En, Coverage::Exploration { runs, depth }) => {
                format!("{} to depth {depth}", pl(runs, "run", "runs"))
            }
            (Lang::Es, Coverage::Exploration { runs, depth }) => {
                format!("{} a profundidad {depth}", pl(runs, "corrida", "corridas"))
            }
            (
                Lang::En,
                Coverage::Interleavings {
                    runs,
                    complete: true,
                },
            ) => {
                format!("all {} interleavings", runs)
            }
            (
                Lang::Es,
                Coverage::Interleavings {
                    runs,
                    complete: true,
                },
            ) => {
                format!("las {runs} intercalaciones, todas")
            }
            (Lang::En, Coverage::Interleavings { runs, .. }) => {
                format!("only the {runs} interleavings explored")
            }
            (Lang::Es, Coverage::Interleavings { runs, .. }) => {
                format!("solo las {runs} intercalaciones exploradas")
            }
            (Lang::En, Coverage::TtlSearch { tried }) => pl(tried, "TTL tried", "TTLs tried"),
            (Lang::Es, Coverage::TtlSearch { tried }) => pl(tried, "TTL probado", "TTL probados"),
            (Lang::En, Coverage::Sweep { seeds }) => pl(seeds, "seed", "seeds"),
            (Lang::Es, Coverage::Sweep { seeds }) => pl(seeds, "semilla", "semillas"),
            (Lang::En, Coverage::Crosscheck { points }) => {
                pl(points, "crash point", "crash points")
            }
            (Lang::Es, Coverage::Crosscheck { points }) => {
                pl(points, "punto de caída", "puntos de caída")
            }
            (Lang::En, Coverage::Matrix { protocols, depth }) => {
                format!(
                    "{} to depth {depth}",
                    pl(protocols, "protocol", "protocols")
                )
            }
            (Lang::Es, Coverage::Matrix { protocols, depth }) => {
                format!(
                    "{} a profundidad {depth}",
                    pl(protocols, "protocolo", "protocolos")
                )
            }
            (Lang::En, Coverage::Folder { files }) => pl(files, "file", "files"),
            (Lang::Es, Coverage::Folder { files }) => pl(files, "archivo", "archivos"),
            (Lang::En, Coverage::Checks { checks }) => {
                format!("{} the file pins", pl(checks, "check", "checks"))
            }
            (Lang::Es, Coverage::Checks { checks }) => {
                format!("{} que fija el archivo", pl(checks, "control", "controles"))
            }
        }
    }

    /// One reason, counted in the coverage's unit.
    fn reason(self, r: &Reason, over: Coverage) -> String {
        match *r {
            Reason::Broke { property, count } => self.broke(property, count, over),
            Reason::Expectations { failed } => self.pick(
                &pl(failed, "expectation failed", "expectations failed"),
                &pl(
                    failed,
                    "expectativa no se cumplió",
                    "expectativas no se cumplieron",
                ),
            ),
            Reason::Differs { count } => self.pick(
                &format!(
                    "{} from the real process",
                    pl(count, "point differs", "points differ")
                ),
                &format!(
                    "{} del proceso real",
                    pl(count, "punto difiere", "puntos difieren")
                ),
            ),
            Reason::Incomplete { cutoff } => self.cut_off(cutoff),
            Reason::Unchecked { count } => {
                let who = self.counted(count, over);
                self.pick(
                    &format!("{count} {who} could not be checked (input error)"),
                    &format!(
                        "{count} {who} no se {} revisar (error de entrada)",
                        if count == 1 { "pudo" } else { "pudieron" }
                    ),
                )
            }
            Reason::SqliteSerialized { count } => {
                let (en, es) = match over {
                    Coverage::Run => (pl(count, "time", "times"), pl(count, "vez", "veces")),
                    _ => {
                        let who = self.counted(count, over);
                        (format!("in {count} {who}"), format!("en {count} {who}"))
                    }
                };
                self.pick(
                    &format!(
                        "on SQLite only: SQLite rolled back a writer's stale transaction \
                         (SQLITE_BUSY_SNAPSHOT) {en}, which PostgreSQL at read committed lets \
                         commit; see explore --isolation-ladder"
                    ),
                    &format!(
                        "solo en SQLite: SQLite deshizo la transacción vieja de un escritor \
                         (SQLITE_BUSY_SNAPSHOT) {es}, que PostgreSQL en read committed deja \
                         hacer commit; mirá explore --isolation-ladder"
                    ),
                )
            }
            Reason::Check {
                check,
                status,
                guarantee,
                over,
                ref reasons,
            } => {
                // `explore d1: FAIL at-most-once (30 runs lost an event)`.
                let head = format!(
                    "{}: {} {}",
                    self.check_kind(check),
                    self.status(status),
                    // A check's own guarantee word, as its JSON names it (`none`).
                    guarantee.map_or_else(|| self.observed(None), |g| g.to_string())
                );
                let inner: Vec<String> = reasons.iter().map(|r| self.reason(r, over)).collect();
                if inner.is_empty() {
                    head
                } else {
                    format!("{head} ({})", inner.join(", "))
                }
            }
        }
    }

    /// A pinned check, as `run FILE` lists it: `run`, `explore d2`, `interleavings`, ….
    pub fn check_kind(self, c: CheckKind) -> String {
        match (self, c) {
            (Lang::En, CheckKind::Run) => "run".into(),
            (Lang::Es, CheckKind::Run) => "corrida".into(),
            (_, CheckKind::Explore { depth }) => format!("explore d{depth}"),
            (Lang::En, CheckKind::Interleavings) => "interleavings".into(),
            (Lang::Es, CheckKind::Interleavings) => "intercalaciones".into(),
            (Lang::En, CheckKind::SmallestSafeTtl) => "smallest safe TTL".into(),
            (Lang::Es, CheckKind::SmallestSafeTtl) => "menor TTL seguro".into(),
        }
    }

    fn cut_off(self, c: Cutoff) -> String {
        let (en, es) = match c {
            Cutoff::Limit => (
                "a limit stopped the search before its end",
                "un límite detuvo la búsqueda antes del final",
            ),
            Cutoff::Memory => (
                "the memory budget stopped the search before its end",
                "el presupuesto de memoria detuvo la búsqueda antes del final",
            ),
            Cutoff::Interrupted => ("interrupted before its end", "interrumpida antes del final"),
        };
        self.pick(en, es)
    }

    /// `2 events duplicated` (one run), `3 runs duplicated an event` (many).
    fn broke(self, property: FailureKind, n: u64, over: Coverage) -> String {
        if over == Coverage::Run {
            return self.broke_in_a_run(property, n);
        }
        let who = self.counted(n, over);
        // Spanish puts the event between the verb and the rest: "dejaron un evento atascado".
        let (en, es_one, es_many, es_rest) = match property {
            FailureKind::Lost => ("lost an event", "perdió", "perdieron", ""),
            FailureKind::Duplicated => ("duplicated an event", "duplicó", "duplicaron", ""),
            FailureKind::DeadLettered => (
                "dead-lettered an event",
                "mandó",
                "mandaron",
                " a la cola de mensajes muertos",
            ),
            FailureKind::Stuck => ("left an event stuck", "dejó", "dejaron", " atascado"),
            FailureKind::WrongEffect => (
                "applied an event with another payload",
                "aplicó",
                "aplicaron",
                " con otro payload",
            ),
            FailureKind::Rejected => (
                "rejected an event as out of order",
                "rechazó",
                "rechazaron",
                " por desorden",
            ),
            FailureKind::Unacked => ("left an event unacked", "dejó", "dejaron", " sin ack"),
            FailureKind::Pending => {
                return self.pick(
                    &format!("{n} {who} left a completion pending"),
                    &format!(
                        "{n} {who} {} una completion pendiente",
                        es_verb(n, "dejó", "dejaron")
                    ),
                )
            }
            FailureKind::Unconserved => {
                return self.pick(
                    &format!("{n} {who} broke conservation or an invariant"),
                    &format!(
                        "{n} {who} {} la conservación o un invariante",
                        es_verb(n, "rompió", "rompieron")
                    ),
                )
            }
            FailureKind::Limited => {
                return self.pick(
                    &format!("{n} {who} hit a limit"),
                    &format!("{n} {who} {} a un límite", es_verb(n, "llegó", "llegaron")),
                )
            }
            FailureKind::Broken(scope) => {
                let scope = self.scope(scope);
                return self.pick(
                    &format!("{n} {who} broke the {scope} boundary"),
                    &format!(
                        "{n} {who} {} la frontera de {scope}",
                        es_verb(n, "rompió", "rompieron")
                    ),
                );
            }
        };
        let es = es_verb(n, es_one, es_many);
        self.pick(
            &format!("{n} {who} {en}"),
            &format!("{n} {who} {es} un evento{es_rest}"),
        )
    }

    /// `3 of 62 runs` (`3 de 62 corridas`): a count out of the coverage's whole.
    fn counted(self, n: u64, over: Coverage) -> String {
        let (one, many) = self.units(over);
        let total = match over {
            Coverage::Run => None,
            Coverage::Exploration { runs, .. } | Coverage::Interleavings { runs, .. } => Some(runs),
            Coverage::TtlSearch { tried } => Some(tried),
            Coverage::Sweep { seeds } => Some(seeds),
            Coverage::Crosscheck { points } => Some(points),
            Coverage::Matrix { protocols, .. } => Some(protocols),
            Coverage::Folder { files } => Some(files),
            Coverage::Checks { checks } => Some(checks),
        };
        match total {
            Some(total) => {
                let unit = if total == 1 { one } else { many };
                self.pick(&format!("of {total} {unit}"), &format!("de {total} {unit}"))
            }
            None => (if n == 1 { one } else { many }).to_string(),
        }
    }

    /// The unit of a coverage's counts, singular and plural.
    fn units(self, over: Coverage) -> (&'static str, &'static str) {
        let (en, es) = match over {
            Coverage::Run | Coverage::Exploration { .. } | Coverage::Interleavings { .. } => {
                (("run", "runs"), ("corrida", "corridas"))
            }
            Coverage::TtlSearch { .. } => (("TTL", "TTLs"), ("TTL", "TTL")),
            Coverage::Sweep { .. } => (("seed", "seeds"), ("semilla", "semillas")),
            Coverage::Crosscheck { .. } => (("point", "points"), ("punto", "puntos")),
            Coverage::Matrix { .. } => (("protocol", "protocols"), ("protocolo", "protocolos")),
            Coverage::Folder { .. } => (("file", "files"), ("archivo", "archivos")),
            Coverage::Checks { .. } => (("check", "checks"), ("control", "controles")),
        };
        match self {
            Lang::En => en,
            Lang::Es => es,
        }
    }

    fn broke_in_a_run(self, property: FailureKind, n: u64) -> String {
        let events = |en: &str, es_one: &str, es_many: &str| {
            let en = pl(n, &format!("event {en}"), &format!("events {en}"));
            let es = pl(
                n,
                &format!("evento {es_one}"),
                &format!("eventos {es_many}"),
            );
            self.pick(&en, &es)
        };
        match property {
            FailureKind::Lost => events("lost", "perdido", "perdidos"),
            FailureKind::Duplicated => events("duplicated", "duplicado", "duplicados"),
            FailureKind::DeadLettered => events(
                "dead-lettered",
                "en la cola de mensajes muertos",
                "en la cola de mensajes muertos",
            ),
            FailureKind::Stuck => events("stuck", "atascado", "atascados"),
            FailureKind::WrongEffect => events(
                "applied with another payload",
                "aplicado con otro payload",
                "aplicados con otro payload",
            ),
            FailureKind::Rejected => events(
                "rejected as out of order",
                "rechazado por desorden",
                "rechazados por desorden",
            ),
            FailureKind::Pending => self.pick(
                &pl(n, "completion left pending", "completions left pending"),
                &pl(n, "completion pendiente", "completions pendientes"),
            ),
            FailureKind::Unacked => events("never acked", "sin ack", "sin ack"),
            FailureKind::Unconserved => self.pick(
                "conservation or an invariant broke",
                "se rompió la conservación o un invariante",
            ),
            FailureKind::Limited => self.pick(
                "a limit stopped the run before it ended",
                "un límite detuvo la corrida antes de que terminara",
            ),
            FailureKind::Broken(scope) => {
                let scope = self.scope(scope);
                self.pick(
                    &format!("the {scope} boundary broke"),
                    &format!("se rompió la frontera de {scope}"),
                )
            }
        }
    }
}

/// The Spanish verb for one or many.
fn es_verb(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}
