//! What a PostgreSQL statement's text says before it runs, read by the fingerprint of a
//! run's state (`world::fingerprint`): whether it keeps state in the session or changes the
//! schema, and whether it may draw random numbers or read the clock. Text only, compiled
//! with or without the engine.

use super::lexer::words;

/// Words that make a step's statement change the schema or keep state in the session
/// beyond its transaction.
const SESSION_WORDS: [&str; 15] = [
    "create",
    "drop",
    "alter",
    "comment",
    "truncate",
    "set",
    "reset",
    "discard",
    "listen",
    "unlisten",
    "notify",
    "prepare",
    "deallocate",
    "declare",
    "load",
];

/// Whether `sql`, a step's statement, may change the schema or leave state in the session
/// (a `set_config`, an advisory lock, a temporary table) that no fingerprint reads.
pub fn keeps_session_state(sql: &str) -> bool {
    let words = words(sql);
    let first = words.first().map(String::as_str).unwrap_or("");
    SESSION_WORDS.contains(&first)
        || words.iter().any(|w| {
            w == "temporary"
                || w == "temp"
                || w == "set_config"
                || w.starts_with("pg_advisory")
                || w.starts_with("pg_try_advisory")
                // Large objects live outside every table the digest reads.
                || w.starts_with("lo_")
        })
}

/// Whether a statement's text may draw random numbers (`random()`, `gen_random_uuid()`),
/// anywhere, function bodies and defaults included.
pub fn may_draw_random(sql: &str) -> bool {
    sql.to_ascii_lowercase().contains("random")
}

/// Whether a statement's text may read the clock: `now()` or any `*timestamp` function,
/// anywhere, function bodies and defaults included (a word found in a string only makes
/// fewer states equivalent, never a wrong one).
pub fn may_read_clock(sql: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    lower.contains("now") || lower.contains("timestamp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_that_keep_session_state_or_change_the_schema_are_named() {
        for sql in [
            "SET search_path = x",
            "CREATE TEMP TABLE t (a int)",
            "SELECT pg_advisory_lock(1)",
            "SELECT set_config('a.b', '1', false)",
            "ALTER TABLE t ADD COLUMN b int",
            "DECLARE c CURSOR FOR SELECT 1",
            "drop trigger t on x",
        ] {
            assert!(keeps_session_state(sql), "{sql}");
        }
        for sql in [
            "INSERT INTO processed_event VALUES (:event_id) ON CONFLICT DO NOTHING",
            "UPDATE account SET balance = balance - 1",
            "SELECT 'set' FROM t -- temp",
        ] {
            assert!(!keeps_session_state(sql), "{sql}");
        }
    }

    #[test]
    fn the_clock_is_read_by_now_and_any_timestamp_function() {
        assert!(may_read_clock("INSERT INTO t VALUES (now())"));
        assert!(may_read_clock("SELECT clock_timestamp()"));
        assert!(may_read_clock(
            "CREATE TABLE t (at TIMESTAMPTZ DEFAULT now())"
        ));
        assert!(!may_read_clock("SELECT count(*) FROM ledger_entry"));
    }
}
