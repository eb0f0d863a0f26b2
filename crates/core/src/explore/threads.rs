//! How many threads run the runs of one scenario at once. A scenario with its own schema
//! may hold megabytes of SQLite memory per run (`store::admission::run_bytes`), and a thread
//! keeps what its allocator was given at its largest: so such a scenario runs on at most
//! as many threads as the SQLite memory budget holds runs of it, whatever the machine's
//! number of cores (results are collected in order, so the number of threads never shows).
//! Runs on the built-in ledger use every thread of the pool.

use crate::scenario::Scenario;
use crate::store::admission;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The most threads that may run `scenario`'s runs at once: `None` for no bound. On
/// PostgreSQL each thread holds connections of its own (its control connection, a run's
/// one per consumer and database and the side jobs', and the idle ones kept for the next
/// run), and the server takes so many clients only: as many threads as
/// `store::pg::budget::max_threads` says.
pub fn bound(scenario: &Scenario) -> Option<usize> {
    let databases = scenario
        .store
        .custom
        .as_ref()
        .map(|c| 1 + c.databases.len());
    let memory =
        databases.map(|d| (admission::SQL_MEMORY_BYTES / admission::run_bytes(d)).max(1) as usize);
    // A run's sessions: each consumer's per database, and the side processes' (the
    // retention job, the relays, the producer).
    let sessions = scenario.consumers * databases.unwrap_or(1) + scenario.side_processes().count();
    let postgres = (scenario.store.engine == crate::model::Engine::Postgres)
        .then(|| crate::store::pg::budget::max_threads(sessions));
    match (memory, postgres) {
        (Some(m), Some(p)) => Some(m.min(p)),
        (m, p) => m.or(p),
    }
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

    #[test]
    fn a_postgres_scenario_runs_on_as_many_threads_as_the_server_takes_clients() {
        // Loaded on SQLite and moved (loading on PostgreSQL would ask for the server).
        let on_postgres = |text: &str| {
            let mut s = Scenario::from_json(text, "t.json").unwrap();
            s.store.engine = crate::model::Engine::Postgres;
            s
        };
        let few = on_postgres(r#"{"protocol": "inbox"}"#);
        let many = on_postgres(r#"{"protocol": "inbox", "consumers": 8}"#);
        let (f, m) = (bound(&few).unwrap(), bound(&many).unwrap());
        assert!(f > m && m >= 1, "{f} {m}");
        for (threads, consumers) in [(f, 1), (m, 8)] {
            let clients = threads * crate::store::pg::budget::clients_per_thread(consumers);
            assert!(
                clients <= crate::store::pg::budget::CLIENT_BUDGET,
                "{clients}"
            );
        }
    }
}
