//! The words of `run --diagram`: the legend, the notes that say what the compact view
//! folded or cut, the closing note of each event not processed once, and the status line.
//! Lane names and the words of each row are chosen where the rows are built
//! (`report::diagram`), each as a pair of whole words; SQL keywords, table names, crash
//! points and `e1 d2` delivery names stay as the tool prints them everywhere.

use super::{pl, Lang};
use crate::check::{EventReport, Outcome};
use crate::diagram::Tone;

impl Lang {
    /// The legend's words for a colour.
    pub fn diagram_legend(self, tone: Tone) -> &'static str {
        match tone {
            Tone::Once => self.choose("green = once", "verde = una vez"),
            Tone::Lost => self.choose("red = lost", "rojo = perdido"),
            Tone::Duplicated => self.choose("orange = duplicated", "naranja = duplicado"),
            Tone::Other => self.choose("grey = other outcome", "gris = otro resultado"),
        }
    }

    /// The legend's word for the crash mark.
    pub fn diagram_crash(self) -> &'static str {
        self.choose("crash", "caída")
    }

    /// The Mermaid legend, which has no drawn marks: the colours, then the arrows.
    pub fn diagram_legend_note(self, colours: &str) -> String {
        match self {
            Lang::En => format!(
                "legend: {colours}. x at an arrow end = refused, failed or lost, dashed arrow = \
                 waits for a lock"
            ),
            Lang::Es => format!(
                "referencias: {colours}. x en la punta de una flecha = rechazado, fallido o \
                 perdido, flecha punteada = espera un lock"
            ),
        }
    }

    /// What the compact view left out, in one sentence, if it left anything out.
    pub fn diagram_elision(self, folded: usize, cut: usize, max_rows: usize) -> Option<String> {
        let mut parts = Vec::new();
        if folded > 0 {
            parts.push(match self {
                Lang::En => format!(
                    "compact view: {folded} routine steps of events processed once are folded \
                     into notes (--diagram-detail full draws every step)"
                ),
                Lang::Es => format!(
                    "vista compacta: {folded} pasos de rutina de eventos procesados una vez se \
                     resumen en notas (--diagram-detail full dibuja cada paso)"
                ),
            });
        }
        if cut > 0 {
            parts.push(match self {
                Lang::En => format!("the last {cut} rows are cut (at most {max_rows} rows)"),
                Lang::Es => {
                    format!("se cortan las últimas {cut} filas (a lo sumo {max_rows} filas)")
                }
            });
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// The note that stands for the rows past the cap, cut from tick `first` to `last`.
    pub fn diagram_cut(self, cut: usize, (first, last): (u64, u64), max_rows: usize) -> String {
        match self {
            Lang::En => format!(
                "{cut} more rows not drawn (t={first} to t={last}): a diagram stops at \
                 {max_rows} rows, --trace lists every step"
            ),
            Lang::Es => format!(
                "{cut} filas más sin dibujar (de t={first} a t={last}): un diagrama se corta \
                 en {max_rows} filas, --trace lista cada paso"
            ),
        }
    }

    /// The note of a fold: `e0-e4: 23 routine steps (deliver, BEGIN, …)`.
    pub fn diagram_fold(self, events: &str, steps: usize, verbs: &str) -> String {
        match self {
            Lang::En => format!("{events}: {steps} routine steps ({verbs})"),
            Lang::Es => format!("{events}: {steps} pasos de rutina ({verbs})"),
        }
    }

    /// Events too scattered to list as ranges: `12 events, e0 to e30`.
    pub fn diagram_event_span(self, n: usize, first: usize, last: usize) -> String {
        match self {
            Lang::En => format!("{n} events, e{first} to e{last}"),
            Lang::Es => format!("{n} eventos, de e{first} a e{last}"),
        }
    }

    /// The closing note of an event not processed once: what the committed rows say.
    pub fn diagram_outcome(self, e: &EventReport) -> String {
        let n = e.effects;
        let what = match self {
            Lang::En => {
                let acked = if e.acked { "acked" } else { "not acked" };
                match e.outcome {
                    Outcome::Lost => format!("LOST: no effect committed, {acked}"),
                    Outcome::Duplicated => format!("DUPLICATED: {n} effects committed"),
                    Outcome::DeadLettered => "DEAD-LETTERED: no effect, lost unless the \
                                              dead-letter queue is replayed"
                        .into(),
                    Outcome::Stuck => format!("STUCK: {n} effect(s), still held by the broker"),
                    Outcome::WrongEffect => {
                        "WRONG EFFECT: an altered copy's payload was applied".into()
                    }
                    Outcome::Invalid => {
                        "invalid payload: refused, never applied, as it should be".into()
                    }
                    Outcome::Rejected => "rejected by the projection: out of order".into(),
                    Outcome::SameIntent => {
                        "no effect of its own: its transfer was applied already".into()
                    }
                    Outcome::Unpublished => "never published: the producer died first".into(),
                    Outcome::Pending => "pending: waits for its transfer in pending_event".into(),
                    Outcome::Once => "once".into(),
                }
            }
            Lang::Es => {
                let acked = if e.acked { "con ack" } else { "sin ack" };
                match e.outcome {
                    Outcome::Lost => format!("PERDIDO: ningún efecto confirmado, {acked}"),
                    Outcome::Duplicated => format!("DUPLICADO: {n} efectos confirmados"),
                    Outcome::DeadLettered => "EN LA DLQ: sin efecto, perdido salvo que se \
                                              reinyecte la DLQ"
                        .into(),
                    Outcome::Stuck => format!(
                        "ATASCADO: {}, el broker todavía lo retiene",
                        pl(n, "efecto", "efectos")
                    ),
                    Outcome::WrongEffect => {
                        "EFECTO ERRÓNEO: se aplicó el payload de una copia alterada".into()
                    }
                    Outcome::Invalid => {
                        "payload inválido: rechazado, nunca aplicado, como corresponde".into()
                    }
                    Outcome::Rejected => "rechazado por la proyección: fuera de orden".into(),
                    Outcome::SameIntent => {
                        "sin efecto propio: su transferencia ya se había aplicado".into()
                    }
                    Outcome::Unpublished => "nunca publicado: el productor murió antes".into(),
                    Outcome::Pending => {
                        "pendiente: espera su transferencia en pending_event".into()
                    }
                    Outcome::Once => "una vez".into(),
                }
            }
        };
        format!("e{} {what}", e.event)
    }

    /// The note after the first closing notes, when more events were not processed once.
    pub fn diagram_more_outcomes(self, more: usize) -> String {
        match self {
            Lang::En => {
                format!("and {more} more events not processed once (the text report lists them)")
            }
            Lang::Es => format!(
                "y {more} eventos más no procesados una vez (el reporte de texto los lista)"
            ),
        }
    }

    /// The status line after writing a diagram to `--out`.
    pub fn diagram_wrote(self, path: &str, rows: usize, bytes: usize) -> String {
        match self {
            Lang::En => format!("wrote {path} ({rows} rows, {bytes} bytes)"),
            Lang::Es => format!("escrito {path} ({rows} filas, {bytes} bytes)"),
        }
    }
}
