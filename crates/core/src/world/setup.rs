//! A run's set-up: the world built from its scenario, and the database connections each
//! process needs, opened on one in-memory database or, when several connections share it,
//! on files in a private temporary directory.

use super::*;
use crate::scenario::SideProcesses;
use crate::store::admission::{self, Ticket};
use crate::store::{CleanupDb, ProducerDb, RelayDb};

impl<'s> World<'s> {
    /// The world of one run of `scenario` before its first step: every process and its
    /// connections, the broker, the fault injector, and empty records.
    pub(super) fn new(
        scenario: &'s Scenario,
        options: RunOptions,
        script: &'s [u32],
        observer: Option<&'s mut dyn Observer>,
        consumer_db: Option<Box<dyn ConsumerDb + 's>>,
    ) -> World<'s> {
        let accounts = scenario.workload.accounts();
        let events = scenario.events();
        let sql_events = Rc::new(scenario.sql_events(&events));
        let Connections {
            mut stores,
            cleanup_store,
            relays,
            relay_stores,
            producer_store,
            dir,
            memory,
        } = Connections::open(scenario, &accounts, consumer_db, &sql_events);
        prepare_stores(&mut stores, scenario, &options, &sql_events);
        World {
            producer: producer_of(scenario, &events),
            consumers: consumers(scenario, &sql_events),
            producer_store,
            relay_sends: vec![vec![0; events.len()]; relays.len()],
            relays,
            relay_stores,
            intent_publications: vec![0; events.len()],
            producer_names: ProducerNames::new(events.len()),
            copies: vec![0; events.len()],
            identity_rng: SimRng::new(scenario.seed, crate::sim::Stream::Identity),
            outputs: OutputTopic::new(scenario.broker.transactional),
            events,
            sql_events: Rc::clone(&sql_events),
            altered: BTreeMap::new(),
            reached_seen: None,
            accounts,
            broker: Broker::new(scenario.broker.clone(), scenario.seed, scenario.consumers),
            handler_sql: scenario
                .protocol
                .handler
                .as_ref()
                .map(|_| handler_sql::HandlerSql::new(scenario)),
            stores,
            cleanup_store,
            inbox_expired_at: vec![None; scenario.workload.events],
            inbox_rows_deleted: 0,
            stale_snapshots: 0,
            _dir: dir,
            _memory: memory,
            faults: FaultInjector::new(scenario.faults.clone(), scenario.seed),
            healed: None,
            phase: PhaseLimits::default(),
            queue: EventQueue::default(),
            trace: Trace::new(!options.hash_only),
            crashes: Vec::new(),
            external_effects: Vec::new(),
            reached: Vec::new(),
            steps: 0,
            scenario,
            script,
            decisions: Vec::new(),
            options,
            crash_states: Vec::new(),
            watch: observer.map(snapshot::Watch::new),
            duplicates_discarded: vec![0; scenario.workload.events],
            gave_up: Vec::new(),
        }
    }
}

impl ProducerNames {
    /// No request being numbered yet, and no copy number used, for `intents` intents.
    fn new(intents: usize) -> ProducerNames {
        ProducerNames {
            request: None,
            floor: vec![0; intents],
            used: vec![None; intents],
        }
    }
}

/// Hands each consumer's local connection the events its SQL reads and its own random
/// seed, and has consumer 0's record its statements when `options` ask for them.
fn prepare_stores(
    stores: &mut [Box<dyn ConsumerDb + '_>],
    scenario: &Scenario,
    options: &RunOptions,
    sql_events: &Rc<Vec<SqlEvent>>,
) {
    for (c, store) in stores.iter_mut().enumerate() {
        if let Some(store) = store.local_mut() {
            store.set_sql_events(Rc::clone(sql_events));
            store.seed_sql(scenario.seed, c as u16);
        }
    }
    if options.record_statements {
        if let Some(store) = stores[0].local_mut() {
            store.record_statements();
        }
    }
}

/// The producer, when the scenario has one, with its intents: every event, then the
/// republications the workload asks for.
fn producer_of(scenario: &Scenario, events: &[Event]) -> Option<Producer> {
    let producer = &scenario.producer;
    producer.active().then(|| {
        let intents = events
            .iter()
            .map(|e| e.index)
            .chain(scenario.workload.republish.iter().copied())
            .collect();
        Producer::new(producer, intents)
    })
}

/// The scenario's consumers, each running its protocol (or its Rust handler, which sees
/// the events as `sql_events`).
fn consumers(scenario: &Scenario, sql_events: &Rc<Vec<SqlEvent>>) -> Vec<Consumer> {
    (0..scenario.consumers)
        .map(|c| {
            let consumer = Consumer::new(scenario.protocol.clone())
                .with_commit_timeout_strategy(scenario.consumer.on_commit_timeout);
            match &scenario.protocol.handler {
                Some(factory) => consumer.with_handler(factory.clone(), Rc::clone(sql_events), c),
                None => consumer,
            }
        })
        .collect()
}

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
        let email_relay = scenario.protocol.has(Step::EnqueueEmail);
        let retention = scenario.store.retention.is_some();
        let extra = side_connections(scenario);
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
        let mut connections = Connections {
            stores: stores
                .into_iter()
                .map(|s| Box::new(s) as Box<dyn ConsumerDb>)
                .collect(),
            cleanup_store: retention.then(|| {
                Box::new(others.next().expect("opened for the cleanup job")) as Box<dyn CleanupDb>
            }),
            relays: Vec::new(),
            relay_stores: Vec::new(),
            producer_store: None,
            dir,
            memory,
        };
        if email_relay {
            connections.relays.push(Relay::new(RelayKind::Emails));
            connections
                .relay_stores
                .push(Box::new(others.next().expect("opened for the email relay"))
                    as Box<dyn RelayDb>);
        }
        if scenario.producer.active() {
            connections.open_producer(scenario, accounts, others);
        }
        connections
    }

    /// Opens the producer's connection and, with an outbox, its relay's: on the consumers'
    /// database (the connections `shared` left over from it) when the producer shares it,
    /// else on a database file of its own.
    fn open_producer(
        &mut self,
        scenario: &Scenario,
        accounts: &[Account],
        shared: std::vec::IntoIter<Store>,
    ) {
        let producer = &scenario.producer;
        let outbox = producer.mode == ProducerMode::Outbox;
        let mut own = if producer.database == ProducerDatabase::Shared {
            shared.collect::<Vec<_>>()
        } else {
            // Its own database: a file of its own when the relay needs a second
            // connection to it.
            let d = self.dir.get_or_insert_with(private_tempdir);
            let path = d.path().join("producer");
            std::fs::create_dir(&path).expect("a fresh directory");
            let config = crate::store::StoreConfig::default();
            Store::open_shared(&path, &config, accounts, 1 + usize::from(outbox))
                .expect("the producer's database file")
        };
        if outbox {
            self.relays.push(Relay::new(RelayKind::Events));
            self.relay_stores
                .push(Box::new(own.pop().expect("opened for the relay")) as Box<dyn RelayDb>);
        }
        self.producer_store =
            Some(Box::new(own.pop().expect("opened for the producer")) as Box<dyn ProducerDb>);
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
        connections.open_postgres(scenario, sides, accounts, sql_events);
        connections
    }

    /// Opens a run's connections on a fresh schema: the consumers' first, each side
    /// process's after them.
    #[cfg(feature = "postgres")]
    fn open_postgres(
        &mut self,
        scenario: &Scenario,
        sides: SideProcesses,
        accounts: &[Account],
        sql_events: &Rc<Vec<SqlEvent>>,
    ) {
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
            self.cleanup_store = Some(Box::new(next(false)));
        }
        if sides.email_relay {
            self.relays.push(Relay::new(RelayKind::Emails));
            self.relay_stores.push(Box::new(next(false)));
        }
        if sides.producer {
            self.producer_store = Some(Box::new(next(sides.own_database)));
        }
        if sides.event_relay {
            self.relays.push(Relay::new(RelayKind::Events));
            self.relay_stores.push(Box::new(next(sides.own_database)));
        }
        self.stores = (stores.into_iter())
            .map(|s| Box::new(s) as Box<dyn ConsumerDb>)
            .collect();
    }

    /// A build without the engine: a scenario on PostgreSQL is refused when its file loads
    /// (`store::pg::ready`), so only one built in Rust gets here, and it stops as a run
    /// whose server cannot be reached does, saying why.
    #[cfg(not(feature = "postgres"))]
    fn open_postgres(
        &mut self,
        _: &Scenario,
        _: SideProcesses,
        _: &[Account],
        _: &Rc<Vec<SqlEvent>>,
    ) {
        let why = crate::store::pg::ready().unwrap_err();
        panic!("the run's PostgreSQL database: {why}");
    }
}

/// How many connections to the consumers' database a run needs besides the consumers':
/// the retention job's, the email relay's, and the producer's and its relay's when the
/// producer shares the file.
fn side_connections(scenario: &Scenario) -> usize {
    let producer = &scenario.producer;
    let outbox = producer.mode == ProducerMode::Outbox;
    let shared_producer = producer.active() && producer.database == ProducerDatabase::Shared;
    usize::from(scenario.store.retention.is_some())
        + usize::from(scenario.protocol.has(Step::EnqueueEmail))
        + usize::from(shared_producer) * (1 + usize::from(outbox))
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
