//! Which engine a scenario runs on: its `store.engine` and `store.isolation`, or the
//! command line's `--engine` and `--isolation`, which win over the file (a process-wide
//! setting the CLI makes once, before it reads any scenario). What does not run on
//! PostgreSQL yet is refused by name when the file loads, never run on SQLite instead.

use super::schema::RawScenario;
use crate::store::pg::{Engine, Isolation};
use std::sync::Mutex;

static OVERRIDE: Mutex<(Option<Engine>, Option<Isolation>)> = Mutex::new((None, None));

/// Makes every scenario read from now on run on `engine` at `isolation` (each `None`:
/// what the file says).
pub fn override_engine(engine: Option<Engine>, isolation: Option<Isolation>) {
    *OVERRIDE.lock().unwrap_or_else(|e| e.into_inner()) = (engine, isolation);
}

/// The engine and isolation level `raw` runs on.
pub(super) fn of(raw: &RawScenario) -> (Engine, Option<Isolation>) {
    let (engine, isolation) = *OVERRIDE.lock().unwrap_or_else(|e| e.into_inner());
    match engine {
        // SQLite chosen on the command line: the file's PostgreSQL level means nothing.
        Some(Engine::Sqlite) => (Engine::Sqlite, isolation),
        _ => (
            engine.or(raw.store.engine).unwrap_or_default(),
            isolation.or(raw.store.isolation),
        ),
    }
}

/// Whether the command line set the engine or the isolation level.
pub fn overridden() -> (Option<Engine>, Option<Isolation>) {
    *OVERRIDE.lock().unwrap_or_else(|e| e.into_inner())
}
