//! How many threads run the runs of one scenario at once. A scenario with its own schema
//! may hold megabytes of SQLite memory per run ([`admission::run_bytes`]), and a thread
//! keeps what its allocator was given at its largest: so such a scenario runs on at most
//! as many threads as the SQLite memory budget holds runs of it, whatever the machine's
//! number of cores (results are collected in order, so the number of threads never shows).
//! Runs on the built-in ledger use every thread of the pool.

use crate::scenario::Scenario;
use crate::store::admission;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The most threads that may run `scenario`'s runs at once: `None` for no bound.
pub fn bound(scenario: &Scenario) -> Option<usize> {
    let custom = scenario.store.custom.as_ref()?;
    let run = admission::run_bytes(1 + custom.databases.len());
    Some((admission::SQL_MEMORY_BYTES / run).max(1) as usize)
}

/// Runs `f`, whose parallel work then runs on at most `threads` threads (`None`: the
/// current pool as it is).
pub fn within<R: Send>(threads: Option<usize>, f: impl FnOnce() -> R + Send) -> R {
    match threads {
        Some(n) if n < rayon::current_num_threads() => pool(n).install(f),
        _ => f(),
    }
}

/// A pool of `n` threads, built once per size for the process.
fn pool(n: usize) -> Arc<rayon::ThreadPool> {
    static POOLS: OnceLock<Mutex<BTreeMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let pool = pools.entry(n).or_insert_with(|| {
        Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("delivery-sim-sql-{i}"))
                .build()
                .expect("a thread pool"),
        )
    });
    Arc::clone(pool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_with_more_databases_runs_on_fewer_threads() {
        let load = |text: &str| Scenario::from_json(text, "t.json").unwrap();
        let ledger = load(r#"{"protocol": "inbox"}"#);
        assert_eq!(bound(&ledger), None);
        let one = load(
            r#"{"protocol": {"name": "p", "steps": ["receive", {"name": "w",
                "sql": "INSERT INTO t VALUES (:event_id)"}, "ack"]},
                "store": {"schema": ["CREATE TABLE t (id TEXT)"]},
                "check": {"effects_per_event": "SELECT count(*) FROM t WHERE id = :event_id"}}"#,
        );
        let n = bound(&one).unwrap();
        assert!(n >= 2, "{n}");
        assert!(n as u64 * admission::run_bytes(1) <= admission::SQL_MEMORY_BYTES);
        assert_eq!(within(Some(1), rayon::current_num_threads), 1);
    }
}
