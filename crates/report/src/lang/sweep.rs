//! The words of `sweep`: a seed's fault plan, a finding, its shrunk form, and the lines a
//! sweep starts and ends with. Step names, crash points, `e1` and the commands stay as the
//! tool prints them everywhere; the findings' JSON is the same in every language.

use super::{pl, Lang};
use crate::check::{FailureKind, FailureSignature};
use crate::explore::shrink::RunSize;

/// What a sweep starts with: what it sweeps, within which limits, shrinking what.
pub struct SweepHead<'a> {
    pub seeds: std::ops::Range<u64>,
    pub scenario: &'a str,
    pub protocol: &'a str,
    pub crash_ppm: u32,
    pub crashes: u32,
    pub failures: u32,
    pub republishes: u32,
    pub broker_faults: u32,
    /// How many findings are shrunk, and the runs each may take.
    pub shrinking: Option<(u64, u64)>,
}

impl Lang {
    /// `crashes 12.0% per step, at most 3`.
    pub fn plan_crashes(self, percent: f64, max: u32) -> String {
        match self {
            Lang::En => format!("crashes {percent:.1}% per step, at most {max}"),
            Lang::Es => format!("caídas {percent:.1}% por paso, a lo sumo {max}"),
        }
    }

    /// `fails apply_effect e1 ×2`.
    pub fn plan_fails(self, step: &str, event: &str, times: u32) -> String {
        format!("{} {step}{event} ×{times}", self.choose("fails", "falla"))
    }

    pub fn plan_republishes(self, events: &str) -> String {
        format!("{} {events}", self.choose("republishes", "republica"))
    }

    pub fn plan_stall(self, ticks: u64, at: &str, event: usize) -> String {
        match self {
            Lang::En => format!("stalls {ticks} ticks at {at} e{event}"),
            Lang::Es => format!("se detiene {ticks} ticks en {at} e{event}"),
        }
    }

    pub fn plan_jitter(self, ticks: u64) -> String {
        let delayed = self.choose("deliveries delayed up to", "entregas demoradas hasta");
        format!("{delayed} {ticks} ticks")
    }

    pub fn plan_stale_acks(self) -> &'static str {
        self.choose("stale acks accepted", "acks vencidos aceptados")
    }

    pub fn plan_lose_ack(self, event: usize) -> String {
        let loses = self.choose("loses the ack of", "pierde el ack de");
        format!("{loses} e{event}")
    }

    pub fn plan_broker_duplicate(self, event: usize) -> String {
        let duplicates = self.choose("broker duplicates", "el broker duplica");
        format!("{duplicates} e{event}")
    }

    pub fn plan_no_fault(self) -> &'static str {
        self.choose("no fault drawn", "ninguna falla sorteada")
    }

    /// How a run fails, in one word or two.
    pub fn failure_kind(self, k: FailureKind) -> String {
        match self {
            Lang::En => k.to_string(),
            Lang::Es => match k {
                FailureKind::Lost => "perdido".into(),
                FailureKind::Duplicated => "duplicado".into(),
                FailureKind::DeadLettered => "en la DLQ".into(),
                FailureKind::Stuck => "atascado".into(),
                FailureKind::WrongEffect => "efecto erróneo".into(),
                FailureKind::Rejected => "rechazado".into(),
                FailureKind::Pending => "pendiente".into(),
                FailureKind::Unconserved => "saldos no conservados".into(),
                FailureKind::Unacked => "sin ack".into(),
                FailureKind::Limited => "limitado".into(),
                FailureKind::Broken(scope) => format!("{} roto", self.scope(scope)),
            },
        }
    }

    /// `duplicated, unacked`; `nothing` for a run that does not fail.
    pub fn failure_signature(self, s: &FailureSignature) -> String {
        if s.0.is_empty() {
            return self.choose("nothing", "nada").into();
        }
        let words: Vec<String> = s.0.iter().map(|&k| self.failure_kind(k)).collect();
        words.join(", ")
    }

    /// `1 event, 1 consumer, 1 crash, 0 other faults, 34 steps`.
    pub fn run_size(self, s: &RunSize) -> String {
        let n = |n: usize| n as u64;
        match self {
            Lang::En => s.describe(),
            Lang::Es => format!(
                "{}, {}, {}, {}, {} pasos",
                pl(n(s.events), "evento", "eventos"),
                pl(n(s.consumers), "consumer", "consumers"),
                pl(n(s.crashes), "caída", "caídas"),
                pl(n(s.faults), "otra falla", "otras fallas"),
                s.steps
            ),
        }
    }

    /// `no crash`, `1 crash`, `3 crashes`.
    pub fn crash_count(self, n: usize) -> String {
        match (self, n) {
            (Lang::En, 0) => "no crash".into(),
            (Lang::Es, 0) => "ninguna caída".into(),
            (Lang::En, n) => pl(n as u64, "crash", "crashes"),
            (Lang::Es, n) => pl(n as u64, "caída", "caídas"),
        }
    }

    /// A finding's marks after an event's outcome.
    pub fn finding_torn(self) -> &'static str {
        self.choose(" (torn)", " (a medias)")
    }

    pub fn finding_unacked(self) -> &'static str {
        self.choose(" (unacked)", " (sin ack)")
    }

    /// The first line of a shrunk finding.
    pub fn shrunk_line(
        self,
        (size, from): (&str, &str),
        runs: u64,
        exhausted: bool,
        signature: &str,
        crashes: &[String],
    ) -> String {
        let budget = match exhausted {
            true => self.choose(
                ", the budget (a smaller run may exist)",
                ", todo el presupuesto (puede existir una corrida más chica)",
            ),
            false => "",
        };
        let crashes = match crashes.is_empty() {
            true => String::new(),
            false => {
                let (at, then) = (
                    self.choose("crash at", "caída en"),
                    self.choose("then", "después"),
                );
                format!("; {at} {}", crashes.join(&format!(", {then} ")))
            }
        };
        match self {
            Lang::En => format!(
                "shrunk to {size} in {runs} runs{budget} (from {from}): {signature}{crashes}"
            ),
            Lang::Es => format!(
                "reducido a {size} en {runs} corridas{budget} (desde {from}): {signature}{crashes}"
            ),
        }
    }

    /// The head of `sweep --seed N`'s report.
    pub fn sweep_seed_head(self, seed: u64, plan: &str) -> String {
        match self {
            Lang::En => format!("sweep seed {seed}: {plan}"),
            Lang::Es => format!("sweep, semilla {seed}: {plan}"),
        }
    }

    /// The line a sweep starts with.
    pub fn sweep_head(self, h: &SweepHead) -> String {
        let (n, from, to) = (h.seeds.end - h.seeds.start, h.seeds.start, h.seeds.end);
        let (name, protocol) = (h.scenario, h.protocol);
        let (ppm, crashes, failures) = (h.crash_ppm, h.crashes, h.failures);
        let (republishes, broker) = (h.republishes, h.broker_faults);
        let shrinking = match (self, h.shrinking) {
            (Lang::En, Some((n, runs))) => {
                format!("shrinking the first {n} findings, ≤ {runs} runs each")
            }
            (Lang::Es, Some((n, runs))) => {
                format!("se reducen los primeros {n} hallazgos, ≤ {runs} corridas cada uno")
            }
            (_, None) => self
                .choose("not shrinking findings", "sin reducir hallazgos")
                .into(),
        };
        match self {
            Lang::En => format!(
                "sweeping {n} seeds {from}..{to} of `{name}` ({protocol}), swarm limits: crash \
                 ≤ {ppm} ppm per step, ≤ {crashes} crashes, ≤ {failures} failed steps, ≤ \
                 {republishes} republishes, ≤ {broker} lost acks and broker duplicates; \
                 {shrinking}"
            ),
            Lang::Es => format!(
                "sweep de {n} semillas {from}..{to} de `{name}` ({protocol}), límites del \
                 enjambre: caída ≤ {ppm} ppm por paso, ≤ {crashes} caídas, ≤ {failures} pasos \
                 fallidos, ≤ {republishes} republicaciones, ≤ {broker} acks perdidos y \
                 duplicados del broker; {shrinking}"
            ),
        }
    }

    /// The line a finished sweep ends with.
    pub fn sweep_summary(
        self,
        total: u64,
        findings: u64,
        shrunk: u64,
        out: Option<&str>,
    ) -> String {
        match self {
            Lang::En => format!(
                "swept {total} seeds: {findings} failing (lost, duplicated, dead-lettered, torn, \
                 unacked, limited, or broken at another boundary){}{}",
                if shrunk > 0 {
                    format!("; {shrunk} shrunk (replay each with `delivery-sim replay TOKEN`)")
                } else {
                    String::new()
                },
                out.map_or(String::new(), |p| format!("; findings written to {p}"))
            ),
            Lang::Es => format!(
                "{total} semillas barridas: {findings} con fallas (perdidos, duplicados, en la \
                 DLQ, a medias, sin ack, limitados o rotos en otro límite){}{}",
                if shrunk > 0 {
                    format!(
                        "; {shrunk} reducidos (repetí cada uno con `delivery-sim replay TOKEN`)"
                    )
                } else {
                    String::new()
                },
                out.map_or(String::new(), |p| format!("; hallazgos escritos en {p}"))
            ),
        }
    }

    /// The lines an interrupted sweep ends with: what ran, and the command that resumes it.
    pub fn sweep_interrupted(
        self,
        total: u64,
        ran: std::ops::Range<u64>,
        findings: u64,
        resume: &str,
        out: Option<&str>,
    ) -> String {
        let (n, from, to) = (ran.end - ran.start, ran.start, ran.end);
        match self {
            Lang::En => format!(
                "interrupted after {n} of {total} seeds ({from}..{to} ran): {findings} failing \
                 so far{}\nresume with: {resume}",
                out.map_or(String::new(), |p| format!("; findings written to {p}"))
            ),
            Lang::Es => format!(
                "interrumpido después de {n} de {total} semillas (corrieron {from}..{to}): \
                 {findings} con fallas hasta ahora{}\nse retoma con: {resume}",
                out.map_or(String::new(), |p| format!("; hallazgos escritos en {p}"))
            ),
        }
    }

    /// The progress bar's message.
    pub fn sweep_findings(self, n: u64) -> String {
        match self {
            Lang::En => format!("{n} findings"),
            Lang::Es => format!("{n} hallazgos"),
        }
    }

    /// The status line of `replay --scenario-out`.
    pub fn replay_wrote(self, path: &str, failure: &FailureSignature) -> String {
        let failure = self.failure_signature(failure);
        match self {
            Lang::En => format!("wrote {path} (its expect pins this run: {failure})"),
            Lang::Es => format!("escrito {path} (su expect fija esta corrida: {failure})"),
        }
    }
}
