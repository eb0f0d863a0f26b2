//! The trace of a run: one entry per thing that happened (a step, a broker action, a
//! database outcome, a crash), in the order the scheduler ran them, and its hash.
//!
//! The hash is FNV-1a (64 bit) over a canonical text rendering of the entries that this
//! module defines. It depends on neither `Hash` implementations nor serde's output nor the
//! platform, so a hash printed today can be compared with one printed on another machine
//! or after a dependency upgrade.

use crate::model::{ConsumerId, EventIndex, Tick};
use serde::Serialize;
use std::fmt::{self, Write as _};

/// Who did it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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

/// One line of the trace. `event`/`copy`/`delivery` say which delivery it concerns, when it
/// concerns one; `outcome` is what came of it (a database outcome, a broker state change).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceEntry {
    pub tick: Tick,
    pub actor: Actor,
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<EventIndex>,
    pub copy: u32,
    pub delivery: u32,
    pub outcome: String,
}

impl fmt::Display for TraceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = match self.event {
            Some(e) => {
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
            None => String::new(),
        };
        write!(
            f,
            "t={:<5} {:<10} {:<16} {:<14} {}",
            self.tick,
            self.actor.to_string(),
            self.action,
            target,
            self.outcome
        )
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
    scratch: String,
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
            scratch: String::new(),
        }
    }

    pub fn record(&mut self, entry: TraceEntry) {
        self.scratch.clear();
        // The canonical form: fields separated by `|`, one entry per line. Changing it changes
        // every golden hash, so it is written out here rather than derived from `Display`.
        let _ = writeln!(
            self.scratch,
            "{}|{}|{}|{}|{}|{}|{}",
            entry.tick,
            entry.actor,
            entry.action,
            entry.event.map_or(-1, |e| e as i64),
            entry.copy,
            entry.delivery,
            entry.outcome
        );
        for b in self.scratch.bytes() {
            self.hash ^= u64::from(b);
            self.hash = self.hash.wrapping_mul(FNV_PRIME);
        }
        self.len += 1;
        if self.keep {
            self.entries.push(entry);
        }
    }

    /// The entries, if this trace keeps them (empty otherwise).
    /// The bytes this trace holds on the heap: its entries (with their outcomes) and the
    /// buffer it formats them in.
    pub fn heap_bytes(&self) -> u64 {
        use crate::model::heap;
        heap(self.entries.capacity(), std::mem::size_of::<TraceEntry>())
            + self
                .entries
                .iter()
                .map(|e| heap(e.outcome.capacity(), 1))
                .sum::<u64>()
            + heap(self.scratch.capacity(), 1)
    }

    /// Frees the buffer entries are formatted in (a finished run records no more).
    pub fn shrink(&mut self) {
        self.scratch = String::new();
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

    fn entry(tick: Tick, outcome: &str) -> TraceEntry {
        TraceEntry {
            tick,
            actor: Actor::Consumer(0),
            action: "commit",
            event: Some(1),
            copy: 0,
            delivery: 1,
            outcome: outcome.to_string(),
        }
    }

    #[test]
    fn the_hash_is_pinned_and_sensitive_to_every_field() {
        let mut t = Trace::default();
        assert_eq!(t.hash_hex(), "cbf29ce484222325");
        t.record(entry(3, "committed"));
        let one = t.hash_hex();
        assert_eq!(one, GOLDEN_ONE);
        let mut other = Trace::default();
        other.record(entry(4, "committed"));
        assert_ne!(other.hash_hex(), one);
        let mut other = Trace::default();
        other.record(entry(3, "rolled back"));
        assert_ne!(other.hash_hex(), one);
    }
    // Computed independently: FNV-1a 64 of "3|consumer0|commit|1|0|1|committed\n".
    const GOLDEN_ONE: &str = "64adde020c47e585";

    #[test]
    fn a_trace_that_keeps_nothing_has_the_same_hash_and_length() {
        let mut kept = Trace::new(true);
        let mut hashed = Trace::new(false);
        for t in 0..3 {
            kept.record(entry(t, "committed"));
            hashed.record(entry(t, "committed"));
        }
        assert_eq!(kept.hash_hex(), hashed.hash_hex());
        assert_eq!((kept.len(), hashed.len()), (3, 3));
        assert!(hashed.entries().is_empty());
    }

    #[test]
    fn display_names_the_delivery() {
        let e = entry(3, "committed");
        let s = e.to_string();
        assert!(
            s.contains("consumer0") && s.contains("e1 d1") && s.contains("committed"),
            "{s}"
        );
    }
}
