//! PostgreSQL's figures: the built-in 3-event inbox's runs per second on SQLite and on
//! PostgreSQL, and where PostgreSQL's time goes (statements, `is_blocked` questions,
//! backends started, a fresh schema per run). Measured on the tool's own throwaway cluster
//! (or `DELIVERY_SIM_DATABASE_URL`'s server); skipped, saying why, where there is none.

use super::*;
use crate::store::pg::session;

/// The built-in inbox, 3 events, one consumer (`run --protocol inbox`), on `engine`.
fn inbox(engine: crate::model::Engine) -> Scenario {
    let mut s = Scenario::new(crate::model::Protocol::built_in("inbox").expect("built in"));
    s.name = "inbox-3-events".into();
    s.seed = 1;
    s.workload.events = 3;
    s.store.engine = engine;
    s
}

/// PostgreSQL's figures, or why there are none.
pub fn postgres_figures(threads: usize) -> PostgresFigures {
    match measure(threads) {
        Ok(m) => PostgresFigures {
            unavailable: None,
            ..m
        },
        Err(why) => PostgresFigures {
            unavailable: Some(why),
            ..PostgresFigures::default()
        },
    }
}

fn measure(threads: usize) -> Result<PostgresFigures, String> {
    crate::store::pg::ready()?;
    let sqlite = inbox(crate::model::Engine::Sqlite);
    let pg = inbox(crate::model::Engine::Postgres);
    let hashed = RunOptions {
        hash_only: true,
        ..RunOptions::default()
    };
    let sqlite_runs_per_second = per_second(LOOP, || {
        world::run_with(&sqlite, hashed);
    });
    let before = session::counts();
    let start = Instant::now();
    let mut runs = 0u64;
    while runs < 3 || start.elapsed() < LOOP {
        world::run_with(&pg, hashed);
        runs += 1;
    }
    let postgres_runs_per_second = runs as f64 / start.elapsed().as_secs_f64();
    let after = session::counts();
    let per_run = |a: u64, b: u64| (a - b) as f64 / runs as f64;
    let events = Rc::new(pg.sql_events(&pg.events()));
    let accounts = pg.workload.accounts();
    let resets_per_second = per_second(LOOP, || {
        let stores = store::pg::open_run(&pg.store, &accounts, pg.seed, 1, Rc::clone(&events));
        drop(stores.expect("a run's schema"));
    });
    let mut c4 = pg.clone();
    c4.consumers = 2;
    c4.faults.duplicate_delivery = vec![crate::fault::DeliveryFault {
        event: Some(0),
        delivery: None,
        times: 1,
    }];
    let (secs, n) = seconds(|| {
        pool(threads).install(|| explore::interleavings(&c4, 2, 100_000, false).runs.len() as u64)
    });
    Ok(PostgresFigures {
        unavailable: None,
        scenario: pg.name.clone(),
        sqlite_runs_per_second,
        postgres_runs_per_second,
        statements_per_run: per_run(after.statements, before.statements),
        blocked_checks_per_run: per_run(after.blocked_checks, before.blocked_checks),
        backends_per_run: per_run(after.connections, before.connections),
        reused_per_run: per_run(after.reused, before.reused),
        schema_resets_per_second: resets_per_second,
        interleavings: n,
        interleavings_threads: threads,
        interleavings_runs_per_second: n as f64 / secs,
    })
}

use std::rc::Rc;
