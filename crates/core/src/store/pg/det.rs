//! What would make a PostgreSQL run differ from one run to the next, made a function of
//! the run's virtual time and seed, or refused when the file loads.
//!
//! Functions: `now()`, `transaction_timestamp()`, `statement_timestamp()`,
//! `clock_timestamp()`, `random()` and `gen_random_uuid()` are shadowed by functions of the
//! same name in schema `ds`, which every connection searches before `pg_catalog` (PostgreSQL
//! searches `pg_catalog` first only when the path does not name it). `now()` is the
//! virtual instant the transaction began (tick 0 = 2026-01-01 00:00:00 UTC, one second per
//! tick, as on SQLite), `clock_timestamp()` the statement's; `random()` draws from a stream
//! seeded by the run's seed and the connection, `gen_random_uuid()` from the same stream.
//! Sequences need nothing: every run starts from a fresh schema, and a sequence advances
//! the same way whatever rolls back.
//!
//! Refused: the SQL keywords that read the real clock and cannot be shadowed
//! (`CURRENT_TIMESTAMP`, `LOCALTIMESTAMP`, `CURRENT_TIME`, `LOCALTIME`, `CURRENT_DATE`),
//! and functions whose answer is the machine's (`timeofday()`, `pg_backend_pid()`,
//! `txid_current()`, `pg_current_xact_id()`, `pg_sleep()`, `inet_server_port()`…), or a
//! built-in called through `pg_catalog.` to get round the shadowing.

use super::lexer::{tokens, Token};
use crate::model::RefusalReason;

/// Installed once in each scratch database.
pub const FUNCTIONS: &str = r#"
CREATE SCHEMA IF NOT EXISTS ds;
CREATE OR REPLACE FUNCTION ds.now() RETURNS timestamptz LANGUAGE sql STABLE AS
  $$ SELECT pg_catalog.to_timestamp(1767225600 + pg_catalog.current_setting('ds.txn')::bigint) $$;
CREATE OR REPLACE FUNCTION ds.transaction_timestamp() RETURNS timestamptz LANGUAGE sql STABLE AS
  $$ SELECT ds.now() $$;
CREATE OR REPLACE FUNCTION ds.statement_timestamp() RETURNS timestamptz LANGUAGE sql STABLE AS
  $$ SELECT pg_catalog.to_timestamp(1767225600 + pg_catalog.current_setting('ds.clock')::bigint) $$;
CREATE OR REPLACE FUNCTION ds.clock_timestamp() RETURNS timestamptz LANGUAGE sql VOLATILE AS
  $$ SELECT ds.statement_timestamp() $$;
CREATE OR REPLACE FUNCTION ds.random() RETURNS double precision LANGUAGE plpgsql VOLATILE AS $$
DECLARE s bigint := pg_catalog.current_setting('ds.rng')::bigint * 48271 % 2147483647;
BEGIN
  PERFORM pg_catalog.set_config('ds.rng', s::text, false);
  RETURN s::double precision / 2147483647;
END $$;
CREATE OR REPLACE FUNCTION ds.gen_random_uuid() RETURNS uuid LANGUAGE sql VOLATILE AS
  $$ SELECT pg_catalog.md5(ds.random()::text || ':' || ds.random()::text)::uuid $$;
"#;

/// The first state of connection `connection`'s random stream in its `incarnation`-th
/// life (a crash ends one), in 1..2^31-1 as the generator (MINSTD) needs.
pub fn rng_seed(seed: u64, connection: u64, incarnation: u64) -> u64 {
    let mut rng = crate::sim::SimRng::new(
        seed,
        crate::sim::Stream::Database {
            db: 0,
            connection: (connection * 64 + incarnation.min(63)) as u16,
        },
    );
    1 + rng.below(2_147_483_646)
}

/// The keywords that read the real clock.
const CLOCK_KEYWORDS: [&str; 5] = [
    "current_timestamp",
    "localtimestamp",
    "current_time",
    "localtime",
    "current_date",
];

/// Functions whose answer depends on the machine or the moment.
const MACHINE_FUNCTIONS: [&str; 12] = [
    "timeofday",
    "pg_backend_pid",
    "txid_current",
    "txid_current_if_assigned",
    "pg_current_xact_id",
    "pg_current_xact_id_if_assigned",
    "pg_sleep",
    "pg_sleep_for",
    "pg_sleep_until",
    "inet_server_port",
    "inet_client_port",
    "pg_postmaster_start_time",
];

/// Why `sql` cannot run deterministically, if it cannot.
pub fn refusal(sql: &str) -> Option<RefusalReason> {
    let toks = tokens(sql);
    for (k, t) in toks.iter().enumerate() {
        let Token::Word(w) = t else { continue };
        let w = w.to_ascii_lowercase();
        if CLOCK_KEYWORDS.contains(&w.as_str()) {
            let keyword = w.to_uppercase();
            return Some(RefusalReason::MachineClock { keyword });
        }
        let called = matches!(toks.get(k + 1), Some(Token::Punct('(')));
        if called && MACHINE_FUNCTIONS.contains(&w.as_str()) {
            return Some(RefusalReason::MachineFunction { function: w });
        }
        if w == "pg_catalog" && matches!(toks.get(k + 1), Some(Token::Punct('.'))) {
            if let Some(Token::Word(f)) = toks.get(k + 2) {
                let f = f.to_ascii_lowercase();
                if SHADOWED.contains(&f.as_str()) {
                    return Some(RefusalReason::CatalogFunction { function: f });
                }
            }
        }
    }
    None
}

/// The built-ins [`FUNCTIONS`] shadows.
const SHADOWED: [&str; 6] = [
    "now",
    "transaction_timestamp",
    "statement_timestamp",
    "clock_timestamp",
    "random",
    "gen_random_uuid",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_keywords_and_machine_functions_are_refused_outside_strings() {
        assert!(refusal("INSERT INTO t VALUES (CURRENT_TIMESTAMP)").is_some());
        assert!(refusal("SELECT current_date").is_some());
        assert!(refusal("SELECT pg_backend_pid()").is_some());
        assert!(refusal("SELECT pg_catalog.now()").is_some());
        assert!(refusal("SELECT 'current_timestamp', \"localtime\" FROM t").is_none());
        assert!(refusal("SELECT now(), random(), gen_random_uuid() -- CURRENT_DATE").is_none());
        assert!(
            refusal("SELECT timeofday FROM t").is_none(),
            "a column, not a call"
        );
    }

    #[test]
    fn each_connection_and_life_draws_its_own_stream() {
        let a = rng_seed(1, 0, 0);
        assert_eq!(a, rng_seed(1, 0, 0));
        assert_ne!(a, rng_seed(1, 1, 0));
        assert_ne!(a, rng_seed(1, 0, 1));
        assert!((1..2_147_483_647).contains(&a));
    }
}
