//! How much SQLite memory the runs of a scenario with its own schema may hold at once,
//! whatever the number of threads: each such run is admitted with a ticket for the most
//! its databases and statements may take ([`run_bytes`]), and waits while the tickets
//! out would pass [`SQL_MEMORY_BYTES`]. Admission decides only when a run starts, never
//! what it does, so the results are the same for any number of threads.
//!
//! Runs on the built-in ledger need no ticket: their databases are bounded by the
//! workload's bounds and hold a few megabytes.

use super::memory::STATEMENT_MEMORY_BYTES;
use super::sandbox::MAX_DATABASE_BYTES;
use std::cell::Cell;
use std::sync::{Condvar, Mutex};

/// The SQLite memory every admitted run together may hold: a quarter of the 1 GiB every
/// command stays within (explorations keep half for their runs' results).
pub const SQL_MEMORY_BYTES: u64 = 256 << 20;

/// The most one run of a scenario with `databases` databases (the main one and the named
/// ones) may hold: per database its in-memory copy, which SQLite may grow to twice the
/// database's bound, plus the memory of the statement running. (The templates the copies
/// are made from are shared by every run, within a bound of their own:
/// `store::schema::SHARED_TEMPLATES_BYTES`.)
pub fn run_bytes(databases: usize) -> u64 {
    let database = MAX_DATABASE_BYTES as u64;
    databases as u64 * 2 * database + STATEMENT_MEMORY_BYTES as u64
}

/// The tickets out, and the condition a waiting run waits on.
struct Admission {
    out: Mutex<u64>,
    returned: Condvar,
}

static ADMISSION: Admission = Admission::new();

thread_local! {
    /// Tickets this thread holds: a run started inside another's lifetime on one thread
    /// (a narration's second run, an estimate's baseline) is admitted at once, so that a
    /// thread never waits for itself.
    static HELD: Cell<u32> = const { Cell::new(0) };
}

/// A run's admission; dropping it returns the memory to the others.
#[derive(Debug)]
pub struct Ticket {
    bytes: u64,
    admission: &'static Admission,
}

impl std::fmt::Debug for Admission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Admission")
    }
}

/// Admits a run that may hold `bytes`, waiting while the runs admitted already hold too
/// much. A run asking for more than the whole budget waits until it is alone.
pub fn admit(bytes: u64) -> Ticket {
    ADMISSION.admit(bytes)
}

impl Admission {
    const fn new() -> Admission {
        Admission {
            out: Mutex::new(0),
            returned: Condvar::new(),
        }
    }

    /// Whether a run asking for `bytes` on this thread would wait now.
    #[cfg(test)]
    fn would_wait(&self, bytes: u64) -> bool {
        let out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        HELD.with(Cell::get) == 0 && *out + bytes.min(SQL_MEMORY_BYTES) > SQL_MEMORY_BYTES
    }

    fn admit(&'static self, bytes: u64) -> Ticket {
        let bytes = bytes.min(SQL_MEMORY_BYTES);
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if HELD.with(Cell::get) == 0 {
            while *out + bytes > SQL_MEMORY_BYTES {
                out = self.returned.wait(out).unwrap_or_else(|e| e.into_inner());
            }
        }
        *out += bytes;
        HELD.with(|h| h.set(h.get() + 1));
        Ticket {
            bytes,
            admission: self,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut out = (self.admission.out.lock()).unwrap_or_else(|e| e.into_inner());
        *out -= self.bytes;
        HELD.with(|h| h.set(h.get() - 1));
        self.admission.returned.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_waits_for_room_and_a_thread_never_waits_for_itself() {
        static OWN: Admission = Admission::new();
        let big = SQL_MEMORY_BYTES / 2 + 1;
        let elsewhere = |bytes| std::thread::scope(|s| s.spawn(|| OWN.would_wait(bytes)).join());
        assert!(!elsewhere(big).unwrap(), "an empty budget admits at once");
        let first = OWN.admit(big);
        assert!(
            elsewhere(big).unwrap(),
            "a second big run waits for the first"
        );
        assert!(
            !elsewhere(SQL_MEMORY_BYTES / 4).unwrap(),
            "a small one fits beside it"
        );
        assert!(
            !OWN.would_wait(big),
            "the first run's thread is not kept waiting"
        );
        drop(OWN.admit(big));
        drop(first);
        assert!(!elsewhere(big).unwrap(), "the memory is back");
        assert!(
            !elsewhere(10 * SQL_MEMORY_BYTES).unwrap(),
            "a run larger than the budget runs alone"
        );
    }
}
