//! The trace of a run: one entry per thing that happened (a step, a broker action, a
//! database outcome, a crash), in the order the scheduler ran them, and its hash.
//!
//! The hash is FNV-1a (64 bit) over a canonical byte encoding of the entries: the tick,
//! the actor, the delivery, then the kind as [`crate::model::trace::Encoder`] documents.
//! It depends on neither `Hash` implementations nor serde's output nor the platform nor
//! any wording, so a hash printed today can be compared with one printed on another
//! machine, after a dependency upgrade or after a sentence was reworded.

use crate::model::trace::Encoder;
use crate::model::{ConsumerId, EventIndex, Tick, TraceKind};
use serde::Serialize;
use std::fmt;

/// Who did it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    Producer,
    Broker,
    Consumer(ConsumerId),
    /// The producer's outbox relay.
    Relay,
    /// The consumer side's email relay.
    EmailRelay,
    /// The inbox retention job, on its own connection.
    Cleanup,
    Sim,
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::Producer => f.write_str("producer"),
            Actor::Broker => f.write_str("broker"),
            Actor::Consumer(id) => write!(f, "consumer{id}"),
            Actor::Relay => f.write_str("relay"),
            Actor::EmailRelay => f.write_str("email-relay"),
            Actor::Cleanup => f.write_str("cleanup"),
            Actor::Sim => f.write_str("sim"),
        }
    }
}

/// One entry of the trace: at `tick`, `actor` did what `kind` says. `event`/`copy`/
/// `delivery` say which delivery (or crash point) it concerns, when it concerns one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    pub tick: Tick,
    pub actor: Actor,
    pub kind: TraceKind,
    pub event: Option<EventIndex>,
    pub copy: u32,
    pub delivery: u32,
}

impl TraceEntry {
    /// The verb of its line (`commit`, `lease expired`).
    pub fn action(&self) -> &'static str {
        self.kind.action()
    }

    /// The verb as the line writes it: a repeated step with its occurrence (`commit#2`).
    pub fn verb(&self) -> std::borrow::Cow<'static, str> {
        match self.kind.occurrence() {
            1 => self.action().into(),
            nth => format!("{}#{nth}", self.action()).into(),
        }
    }
}

impl Actor {
    /// The actor's part of the canonical encoding.
    fn encode(self, e: &mut impl Encoder) {
        let (name, id) = match self {
            Actor::Producer => ("producer", 0),
            Actor::Broker => ("broker", 0),
            Actor::Consumer(c) => ("consumer", c as u64),
            Actor::Relay => ("relay", 0),
            Actor::EmailRelay => ("email_relay", 0),
            Actor::Cleanup => ("cleanup", 0),
            Actor::Sim => ("sim", 0),
        };
        e.str(name);
        e.u64(id);
    }
}

/// FNV-1a, 64 bit, fed the canonical encoding.
struct Fnv(u64);

impl Encoder for Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }
}

/// Writes the canonical encoding of `entry`: tick, actor, event (`u64::MAX` for none),
/// copy, delivery, kind.
pub fn encode_entry(entry: &TraceEntry, e: &mut impl Encoder) {
    e.u64(entry.tick);
    entry.actor.encode(e);
    e.u64(entry.event.map_or(u64::MAX, |v| v as u64));
    e.u64(u64::from(entry.copy));
    e.u64(u64::from(entry.delivery));
    entry.kind.encode(e);
}

impl TraceEntry {
    /// The delivery it concerns, as the trace line names it: `e1 copy1 d2`.
    pub fn target(&self) -> String {
        let Some(e) = self.event else {
            return String::new();
        };
        let mut t = format!("e{e}");
        if self.copy > 0 {
            t.push_str(&format!(" copy{}", self.copy));
        }
        // Attempt 0 means "not delivered yet" (a publish): there is no attempt to name.
        if self.delivery > 0 {
            t.push_str(&format!(" d{}", self.delivery));
        }
        t
    }

    /// The trace line, with `outcome` (what came of it, in some language) at its end.
    pub fn line(&self, outcome: &dyn fmt::Display) -> String {
        let mut out = String::new();
        let _ = self.write_line(&mut out, outcome);
        out
    }

    fn write_line(&self, w: &mut dyn fmt::Write, outcome: &dyn fmt::Display) -> fmt::Result {
        let verb = self.verb();
        write!(
            w,
            "t={:<5} {:<10} {:<16} {:<14} {}",
            self.tick,
            self.actor.to_string(),
            verb,
            self.target(),
            outcome
        )
    }
}

/// The trace line in English, the trace's own wording.
impl fmt::Display for TraceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_line(f, &self.kind)
    }
}

/// The trace of one run, with a running hash so that the hash is available even when the
/// entries are not kept.
#[derive(Clone, Debug)]
pub struct Trace {
    entries: Vec<TraceEntry>,
    /// Whether entries are kept, or only hashed (exploration keeps thousands of runs).
    keep: bool,
    len: usize,
    hash: u64,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Default for Trace {
    fn default() -> Self {
        Trace::new(true)
    }
}

impl Trace {
    /// A trace that keeps its entries (`keep`) or only their hash.
    pub fn new(keep: bool) -> Trace {
        Trace {
            entries: Vec::new(),
            keep,
            len: 0,
            hash: FNV_OFFSET,
        }
    }

    pub fn record(&mut self, entry: TraceEntry) {
        let mut fnv = Fnv(self.hash);
        encode_entry(&entry, &mut fnv);
        self.hash = fnv.0;
        self.len += 1;
        if self.keep {
            self.entries.push(entry);
        }
    }

    /// The bytes this trace holds on the heap: its entries (with the event lists of the
    /// retention job's).
    pub fn heap_bytes(&self) -> u64 {
        use crate::model::heap;
        heap(self.entries.capacity(), std::mem::size_of::<TraceEntry>())
            + self
                .entries
                .iter()
                .map(|e| match &e.kind {
                    TraceKind::InboxExpired { events, .. } => {
                        heap(events.capacity(), std::mem::size_of::<EventIndex>())
                    }
                    _ => 0,
                })
                .sum::<u64>()
    }

    /// Frees what a finished run no longer needs (it records no more).
    pub fn shrink(&mut self) {
        self.entries.shrink_to_fit();
    }

    pub fn entries(&self) -> &[TraceEntry] {
        &self.entries
    }

    /// How many entries were recorded, kept or not.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The hash as 16 lowercase hex digits.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DbOutcome, Step};

    fn entry(tick: Tick, outcome: DbOutcome) -> TraceEntry {
        TraceEntry {
            tick,
            actor: Actor::Consumer(0),
            kind: TraceKind::Db {
                nth: 1,
                step: Step::Commit,
                outcome,
            },
            event: Some(1),
            copy: 0,
            delivery: 1,
        }
    }

    #[test]
    fn the_hash_is_pinned_and_sensitive_to_every_field() {
        let mut t = Trace::default();
        assert_eq!(t.hash_hex(), "cbf29ce484222325");
        t.record(entry(3, DbOutcome::Committed));
        let one = t.hash_hex();
        assert_eq!(one, GOLDEN_ONE);
        let variants = [
            TraceEntry {
                tick: 4,
                ..entry(3, DbOutcome::Committed)
            },
            entry(3, DbOutcome::RolledBack),
            TraceEntry {
                actor: Actor::Consumer(1),
                ..entry(3, DbOutcome::Committed)
            },
            TraceEntry {
                event: None,
                ..entry(3, DbOutcome::Committed)
            },
            TraceEntry {
                copy: 1,
                ..entry(3, DbOutcome::Committed)
            },
            TraceEntry {
                delivery: 2,
                ..entry(3, DbOutcome::Committed)
            },
        ];
        for other in variants {
            let mut t = Trace::default();
            t.record(other.clone());
            assert_ne!(t.hash_hex(), one, "{other:?}");
        }
    }
    // Computed independently (Python): FNV-1a 64 over u64le(3) "consumer\0" u64le(0)
    // u64le(1) u64le(0) u64le(1) "db\0" "commit\0" "committed\0".
    const GOLDEN_ONE: &str = "ef9cdb7fc364df2d";

    #[test]
    fn a_trace_that_keeps_nothing_has_the_same_hash_and_length() {
        let mut kept = Trace::new(true);
        let mut hashed = Trace::new(false);
        for t in 0..3 {
            kept.record(entry(t, DbOutcome::Committed));
            hashed.record(entry(t, DbOutcome::Committed));
        }
        assert_eq!(kept.hash_hex(), hashed.hash_hex());
        assert_eq!((kept.len(), hashed.len()), (3, 3));
        assert!(hashed.entries().is_empty());
    }

    #[test]
    fn display_names_the_delivery() {
        let s = entry(3, DbOutcome::Committed).to_string();
        assert!(
            s.contains("consumer0") && s.contains("commit") && s.contains("e1 d1"),
            "{s}"
        );
        assert!(s.ends_with("COMMIT"), "{s}");
    }
}
