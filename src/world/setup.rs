//! A run's set-up: the database connections each process needs, opened on one in-memory
//! database or, when several connections share it, on files in a private temporary
//! directory.

use super::*;
use crate::store::admission::{self, Ticket};
use crate::store::{CleanupDb, ProducerDb, RelayDb};

/// Every connection of a run, and the directory their files live in.
pub(super) struct Connections<'s> {
    /// One per consumer, to the consumers' database.
    pub stores: Vec<Box<dyn ConsumerDb + 's>>,
    /// The retention job's, with retention.
    pub cleanup_store: Option<Box<dyn CleanupDb + 's>>,
    /// The relays (emails, then events) and a connection each.
    pub relays: Vec<Relay>,
    pub relay_stores: Vec<Box<dyn RelayDb + 's>>,
    /// The producer's, unless it is `direct`.
    pub producer_store: Option<Box<dyn ProducerDb + 's>>,
    /// The database files' directory, when there are files.
    pub dir: Option<tempfile::TempDir>,
    /// With a scenario's own schema, the run's admission: the SQLite memory it may hold.
    pub memory: Option<Ticket>,
}

impl<'s> Connections<'s> {
    /// Opens the connections `scenario` needs, on databases holding `accounts`; with
    /// `consumer_db`, that is consumer 0's, and the only one to the consumers' database.
    pub fn open(
        scenario: &Scenario,
        accounts: &[Account],
        consumer_db: Option<Box<dyn ConsumerDb + 's>>,
        sql_events: &Rc<Vec<SqlEvent>>,
    ) -> Connections<'s> {
        if scenario.store.engine == crate::store::pg::Engine::Postgres {
            return Connections::on_postgres(scenario, accounts, consumer_db, sql_events);
        }
        // Admitted before a database is opened: the memory is held until the run ends.
        let memory = (scenario.store.custom.as_ref())
            .map(|c| admission::admit(admission::run_bytes(1 + c.databases.len())));
        let n = scenario.consumers;
        let producer = &scenario.producer;
        let outbox = producer.mode == ProducerMode::Outbox;
        let shared_producer = producer.active() && producer.database == ProducerDatabase::Shared;
        let email_relay = scenario.protocol.has(Step::EnqueueEmail);
        // Connections to the consumers' database: theirs, the email relay's, and the
        // producer's and its relay's when the producer shares the file.
        // The retention job has a connection of its own too.
        let retention = scenario.store.retention.is_some();
        let extra = usize::from(retention)
            + usize::from(email_relay)
            + usize::from(shared_producer) * (1 + usize::from(outbox));
        let mut dir = None;
        if let Some(db) = consumer_db {
            assert_eq!(
                n + extra,
                1,
                "a given connection is the database's only one"
            );
            return Connections {
                stores: vec![db],
                cleanup_store: None,
                relays: Vec::new(),
                relay_stores: Vec::new(),
                producer_store: None,
                dir,
                memory,
            };
        }
        let mut stores = if n + extra == 1 {
            vec![Store::open_in_memory(&scenario.store, accounts)
                .expect("an in-memory SQLite database can always be created")]
        } else {
            // Several connections need real multi-connection locking: a database file.
            let d = dir.get_or_insert_with(private_tempdir);
            Store::open_shared(d.path(), &scenario.store, accounts, n + extra)
                .expect("a database file in a fresh temporary directory")
        };
        let mut others = stores.split_off(n).into_iter();
        let cleanup_store = retention.then(|| {
            Box::new(others.next().expect("opened for the cleanup job")) as Box<dyn CleanupDb>
        });
        let mut relays = Vec::new();
        let mut relay_stores = Vec::new();
        if email_relay {
            relays.push(Relay::new(RelayKind::Emails));
            relay_stores
                .push(Box::new(others.next().expect("opened for the email relay"))
                    as Box<dyn RelayDb>);
        }
        let producer_store = if !producer.active() {
            None
        } else {
            let mut own = if shared_producer {
                others.collect::<Vec<_>>()
            } else {
                // Its own database: a file of its own when the relay needs a second
                // connection to it.
                let d = dir.get_or_insert_with(private_tempdir);
                let path = d.path().join("producer");
                std::fs::create_dir(&path).expect("a fresh directory");
                let config = crate::store::StoreConfig::default();
                Store::open_shared(&path, &config, accounts, 1 + usize::from(outbox))
                    .expect("the producer's database file")
            };
            if outbox {
                relays.push(Relay::new(RelayKind::Events));
                relay_stores
                    .push(Box::new(own.pop().expect("opened for the relay")) as Box<dyn RelayDb>);
            }
            Some(Box::new(own.pop().expect("opened for the producer")) as Box<dyn ProducerDb>)
        };
        Connections {
            stores: stores
                .into_iter()
                .map(|s| Box::new(s) as Box<dyn ConsumerDb>)
                .collect(),
            cleanup_store,
            relays,
            relay_stores,
            producer_store,
            dir,
            memory,
        }
    }
}

impl<'s> Connections<'s> {
    /// The connections to a fresh schema on PostgreSQL (what else a scenario may have,
    /// PostgreSQL refuses when the file loads), or the one given (crosscheck's, on a
    /// schema it built).
    fn on_postgres(
        scenario: &Scenario,
        accounts: &[Account],
        consumer_db: Option<Box<dyn ConsumerDb + 's>>,
        sql_events: &Rc<Vec<SqlEvent>>,
    ) -> Self {
        let mut connections = Connections {
            stores: Vec::new(),
            cleanup_store: None,
            relays: Vec::new(),
            relay_stores: Vec::new(),
            producer_store: None,
            dir: None,
            memory: None,
        };
        let sides = scenario.side_processes();
        if let Some(db) = consumer_db {
            assert_eq!(
                scenario.consumers + sides.count(),
                1,
                "a given connection is the only one"
            );
            connections.stores.push(db);
            return connections;
        }
        let mut stores = crate::store::pg::open_run(
            &scenario.store,
            accounts,
            scenario.seed,
            scenario.consumers + sides.count(),
            Rc::clone(sql_events),
        )
        .unwrap_or_else(|e| panic!("the run's PostgreSQL database: {e}"));
        // The other processes' connections come after the consumers', which keep their
        // numbers (and their random streams): the retention job's, the email relay's, the
        // producer's, its relay's.
        let mut others = stores.split_off(scenario.consumers).into_iter();
        let mut next = |own_database: bool| {
            let mut store = others.next().expect("opened for a side process");
            if own_database {
                store.use_producer_database();
            }
            store
        };
        if sides.retention {
            connections.cleanup_store = Some(Box::new(next(false)));
        }
        if sides.email_relay {
            connections.relays.push(Relay::new(RelayKind::Emails));
            connections.relay_stores.push(Box::new(next(false)));
        }
        if sides.producer {
            connections.producer_store = Some(Box::new(next(sides.own_database)));
        }
        if sides.event_relay {
            connections.relays.push(Relay::new(RelayKind::Events));
            connections
                .relay_stores
                .push(Box::new(next(sides.own_database)));
        }
        connections.stores = (stores.into_iter())
            .map(|s| Box::new(s) as Box<dyn ConsumerDb>)
            .collect();
        connections
    }
}

/// A directory for a run's database files, readable by this user only (tempfile creates
/// directories with the default mode otherwise), under the system's temporary directory
/// (`TMPDIR`), deleted when the run ends.
fn private_tempdir() -> tempfile::TempDir {
    let mut builder = tempfile::Builder::new();
    builder.prefix("delivery-sim-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    builder
        .tempdir()
        .expect("a temporary directory for the database")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_database_directory_is_private_and_removed_with_the_run() {
        let dir = private_tempdir();
        let path = dir.path().to_path_buf();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "owner only");
        }
        std::fs::write(path.join("delivery-sim.sqlite"), b"x").unwrap();
        drop(dir);
        assert!(!path.exists());
    }
}
