//! The fingerprint of a run's PostgreSQL state, for exploration's pruning (see
//! `sim::fingerprint`): taken only when no connection of the run has a transaction open or
//! a statement in flight, so that everything that decides the rest of the run is either
//! committed (read on the control connection) or a connection's own session state (its
//! random stream, read on it, outside any transaction).
//!
//! What is digested, and why that is enough:
//! - every table (and materialized view) of the run's schemas, `run` and any the file
//!   made, row by row, in the order a query without `ORDER BY`
//!   sees them (a sequential scan: the order a step's `LIMIT 1` would take); on the
//!   built-in ledger, whose reads all order by a column, in that order (or a canonical
//!   one), without the `*_at` columns no step reads (as on SQLite) and without the values
//!   of the identity columns its reads only order by;
//! - every sequence's `last_value` and `is_called` (what `nextval` gives next), except
//!   the ledger's identities;
//! - when any statement may draw random numbers: each connection's life (a crash starts
//!   the next one on a stream of its own) and, when it is connected, where its random
//!   stream (`ds.rng`) stands.
//!
//! What is not, the caller makes sure of (`World::fingerprint` returns `None`): a scenario
//! whose steps change the schema or keep state in the session (`SET`, temporary tables,
//! advisory locks, cursors, prepared statements: [`super::statement::keeps_session_state`]); its schema is
//! then the same in every state, the file's.

use super::session::{Worker, DET_SCHEMA};
use super::PgStore;
use crate::sim::StateHasher;
use std::hash::Hasher as _;
use std::sync::Arc;
use tokio_postgres::{Client, SimpleQueryMessage};

impl PgStore {
    /// Feeds `h` with this connection's session state (when the scenario may draw random
    /// numbers: `random`) and, with `whole`, the run's database; `false` when it cannot be
    /// read without changing the run (a statement in flight, or the connection held by
    /// another process).
    pub fn fingerprint_server(&self, whole: bool, random: bool, h: &mut StateHasher) -> bool {
        let run = self.run.borrow();
        if run.sessions.iter().any(|s| s.pending.is_some()) {
            return false;
        }
        let sessions = (0..self.databases() as u8).map(|db| &run.sessions[self.session(db)]);
        if sessions.clone().any(|s| s.link.is_some()) {
            return false;
        }
        h.section("postgres connection");
        for s in sessions.filter(|_| random) {
            h.value(&s.incarnation);
            h.value(&session_stream(&run.worker, s.client.as_ref()));
        }
        if whole {
            digest_database(&run.worker, self.ledger.is_some(), h);
        }
        true
    }
}

/// Where a connection's random stream stands (`None` while it has no connection: the
/// next one's is its life's).
fn session_stream(worker: &Worker, client: Option<&Arc<Client>>) -> Option<Vec<String>> {
    client.map(|c| {
        let c = Arc::clone(c);
        let got = worker.rt.block_on(async move {
            c.simple_query("SELECT pg_catalog.current_setting('ds.rng')")
                .await
        });
        let got = got.unwrap_or_else(|e| panic!("reading a connection's stream: {e}"));
        cells(&got).into_iter().flatten().collect::<Vec<_>>()
    })
}

/// Every table's rows and every sequence's state in the run's schema. On the built-in
/// ledger, whose identity columns only order its reads, a table with one is digested in
/// its order without its values, and the sequences not at all: a transaction rolled back
/// after an insert spent a number, and changed nothing a step reads.
fn digest_database(worker: &Worker, ledger: bool, h: &mut StateHasher) {
    // Every schema the file's statements may have made tables in, not only `run`.
    let list = format!(
        "SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname), \
         c.relkind, (SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = \
         c.oid AND a.attidentity <> '' ORDER BY a.attnum LIMIT 1) FROM pg_catalog.pg_class c \
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN \
         ('pg_catalog', 'information_schema', '{DET_SCHEMA}') AND n.nspname NOT LIKE \
         'pg\\_%' AND c.relkind IN ('r', 'S', 'm') ORDER BY 1"
    );
    let relations = worker
        .control_statement(&list)
        .unwrap_or_else(|e| panic!("listing the run's tables: {}", e.message));
    let mut batch = String::new();
    let mut read = Vec::new();
    for r in &relations.rows {
        let (Some(name), Some(kind)) = (&r[0], &r[1]) else {
            continue;
        };
        let quoted = name;
        let identity = if ledger { r[2].clone() } else { None };
        batch.push_str(&match (kind.as_str(), &identity) {
            ("S", _) if ledger => continue,
            ("S", _) => format!("SELECT last_value, is_called FROM {quoted};"),
            (_, Some(id)) => format!("SELECT x.* FROM {quoted} AS x ORDER BY x.\"{id}\";"),
            // By the whole row's text: a canonical order of any column types.
            _ if ledger => format!("SELECT x.* FROM {quoted} AS x ORDER BY x::text COLLATE \"C\";"),
            _ => format!("SELECT * FROM {quoted};"),
        });
        read.push((name.as_str(), identity));
    }
    let messages = worker
        .control_batch(&batch)
        .unwrap_or_else(|e| panic!("reading the run's tables: {e}"));
    let mut tables = read.into_iter();
    let mut table = tables.next();
    h.section(table.as_ref().map_or("", |t| t.0));
    for m in &messages {
        match m {
            SimpleQueryMessage::CommandComplete(_) => {
                table = tables.next();
                h.section(table.as_ref().map_or("", |t| t.0));
            }
            SimpleQueryMessage::Row(row) => {
                let identity = table.as_ref().and_then(|t| t.1.as_deref());
                h.write_u8(0xfe);
                for (i, column) in row.columns().iter().enumerate() {
                    let skip = ledger
                        && (column.name().ends_with("_at") || Some(column.name()) == identity);
                    if !skip {
                        h.value(&row.get(i));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The cells of a simple query's rows.
fn cells(messages: &[SimpleQueryMessage]) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for m in messages {
        if let SimpleQueryMessage::Row(row) = m {
            out.extend((0..row.len()).map(|i| row.get(i).map(str::to_string)));
        }
    }
    out
}

#[cfg(all(test, feature = "postgres-tests"))]
mod tests {
    use super::*;

    /// On a real server (feature `postgres`): each part of the state the digest reads
    /// changes it, and reading it changes nothing.
    #[test]
    fn a_row_a_sequence_and_a_connections_stream_each_change_the_digest() {
        use crate::store::ConsumerDb;
        let config = crate::store::StoreConfig {
            engine: crate::model::Engine::Postgres,
            custom: Some(crate::store::CustomSchema {
                schema: vec![
                    "CREATE TABLE t (a INT)".into(),
                    "CREATE SEQUENCE s".into(),
                    "CREATE SCHEMA o".into(),
                    "CREATE TABLE o.t (b INT)".into(),
                ],
                ..Default::default()
            }),
            ..Default::default()
        };
        let events = std::rc::Rc::new(Vec::new());
        let mut stores = super::super::open_run(&config, &[], 1, 1, events).unwrap();
        let store = &mut stores[0];
        let digest = |store: &PgStore| {
            let mut h = StateHasher::default();
            assert!(store.fingerprint_server(true, true, &mut h));
            h.digest()
        };
        let first = digest(store);
        assert_eq!(digest(store), first, "reading changes nothing");
        let worker = store.run.borrow().worker.clone();
        let mut seen = vec![first];
        for change in [
            "INSERT INTO run.t VALUES (1)",
            "SELECT nextval('run.s')",
            "UPDATE run.t SET a = 2",
            "INSERT INTO o.t VALUES (1)",
        ] {
            worker.control_batch(change).unwrap();
            seen.push(digest(store));
        }
        assert!(matches!(
            store.run_statement("k", "SELECT random()"),
            super::super::session::Exec::Answered(Ok(_))
        ));
        seen.push(digest(store));
        assert!(matches!(
            store.run_statement("k2", "SELECT random()"),
            super::super::session::Exec::Answered(Ok(_))
        ));
        seen.push(digest(store));
        // A crash: the next connection draws from a stream of its own.
        store.drop_open_transaction();
        seen.push(digest(store));
        let distinct: std::collections::BTreeSet<_> = seen.iter().collect();
        assert_eq!(distinct.len(), seen.len(), "{seen:?}");
    }
}
