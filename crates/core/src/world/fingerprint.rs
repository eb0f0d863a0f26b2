//! The world's state fingerprint: every component's own, for exploration's equivalence
//! check (see `sim::fingerprint`).

use super::*;

impl World<'_> {
    /// The digest of everything that decides the rest of the run, with times relative to
    /// `now`, or `None` while a connection holds an open transaction (its snapshot and its
    /// uncommitted writes are SQLite's state, not ours to read without changing them).
    ///
    /// Every field of the world is named below: a field added later does not compile until
    /// it is fed or said to be history, configuration or output.
    pub(super) fn fingerprint(&self, now: Tick) -> Option<Digest> {
        // A Rust handler's state is opaque (its fields are the team's): with no digest, no
        // schedule is taken as equivalent to another, so every one is run.
        if self.scenario.protocol.handler.is_some() {
            return None;
        }
        // PostgreSQL's state is the server's: digested when no step changes the schema or
        // keeps state in its session (see `store::pg::digest`), else every schedule is run.
        let postgres = self.scenario.store.engine == crate::model::Engine::Postgres;
        // Nor the retention job's, the relays' or the producer's on PostgreSQL: the
        // ledger's digest there leaves instants and identity values out, where an inbox
        // row's age decides what the job deletes and an outbox row's id is the row a relay
        // marks.
        let side_jobs = self.scenario.store.retention.is_some()
            || self.scenario.protocol.has(Step::EnqueueEmail)
            || self.scenario.producer.active();
        if postgres && (!postgres_digestible(self.scenario) || side_jobs) {
            return None;
        }
        if !postgres && self.stores.iter().any(|s| s.local().is_none()) {
            return None;
        }
        // Nor are the rows of a scenario's named databases digested: no schedule of such a
        // run stands in for another either.
        if self
            .scenario
            .store
            .custom
            .as_ref()
            .is_some_and(|c| !c.databases.is_empty())
        {
            return None;
        }
        if self.stores.iter().any(|s| s.in_transaction())
            || self.producer_store.iter().any(|s| s.in_transaction())
            || self.relay_stores.iter().any(|s| s.in_transaction())
            || self.cleanup_store.iter().any(|s| s.in_transaction())
        {
            return None;
        }
        self.fingerprint_digest(now)
    }

    /// The digest itself, once no connection holds an open transaction.
    fn fingerprint_digest(&self, now: Tick) -> Option<Digest> {
        let World {
            scenario,
            script,
            decisions,
            options: _,      // How the run records, not what it does.
            crash_states: _, // Output.
            watch: _,        // An observer only reads.
            duplicates_discarded,
            gave_up: _, // In `fingerprint_observations`, with what else the checker reads.
            events,
            sql_events: _,  // Configuration: the same for every run of a scenario.
            handler_sql: _, // A cache of verdicts on statements (and no digest with a handler).
            altered,
            reached_seen,
            accounts: _, // Configuration: the same for every run of a scenario.
            broker,
            consumers,
            stores,
            cleanup_store: _, // Its connection: the rows are in `stores[0]`'s database.
            inbox_expired_at: _, // In `fingerprint_observations`.
            inbox_rows_deleted: _, // A count for the report; the rows are in the database.
            stale_snapshots: _, // A count for the verdict's caveat.
            faults,
            // The fault injector, emptied at the heal, says what healing changes; the
            // limits it moves are checked apart (a healed run is never a stand-in).
            healed: _,
            phase: _, // The limits, which exploration checks apart.
            queue,
            trace: _,   // History; its length is a limit, which exploration checks apart.
            crashes: _, // History: the report's crash list and confirmed states.
            external_effects: _, // In `fingerprint_observations`.
            reached: _, // History: the points before the crash are not its extensions.
            steps: _,   // A limit, which exploration checks apart.
            producer: _, // In `fingerprint_upstream`, with the relays.
            producer_store,
            relays: _,              // In `fingerprint_upstream`.
            relay_stores: _,        // Connections to databases fed above.
            relay_sends: _,         // In `fingerprint_upstream`.
            intent_publications: _, // In `fingerprint_upstream`.
            producer_names: _,      // In `fingerprint_upstream`.
            copies: _,              // In `fingerprint_upstream`.
            identity_rng: _,        // In `fingerprint_upstream`.
            outputs,
            _dir: _,
            _memory: _, // Admission: when the run started, not what it does.
        } = self;
        let mut h = hasher(scenario);
        fingerprint_stores(scenario, stores, producer_store.as_deref(), now, &mut h)?;
        h.section("broker");
        broker.fingerprint(now, &mut h);
        h.section("queue");
        queue.fingerprint(now, &mut h);
        h.section("consumers");
        for c in consumers {
            c.fingerprint(now, &mut h);
        }
        h.section("faults");
        faults.fingerprint(now, &mut h);
        self.fingerprint_upstream(now, &mut h);
        h.section("outputs");
        outputs.fingerprint(now, &mut h);
        h.section("events");
        h.value(&(events, altered, duplicates_discarded, reached_seen));
        self.fingerprint_observations(&mut h);
        // A scripted run takes its next decision from where it stands in the script.
        h.value(&script.get(decisions.len()..));
        Some(h.digest())
    }

    /// The producer and the relays, with what they keep of each intent: how far each relay
    /// sent it, how often it was published, its copies and their names.
    fn fingerprint_upstream(&self, now: Tick, h: &mut StateHasher) {
        h.section("producer");
        h.value(&self.producer.is_some());
        if let Some(p) = &self.producer {
            p.fingerprint(now, h);
        }
        h.section("relays");
        for r in &self.relays {
            r.fingerprint(now, h);
        }
        h.value(&(&self.relay_sends, &self.intent_publications, &self.copies));
        self.producer_names.fingerprint(now, h);
        self.identity_rng.fingerprint(now, h);
    }

    /// What the checker reads besides the databases and the broker, as far as it decides
    /// a verdict (not when things happened).
    fn fingerprint_observations(&self, h: &mut StateHasher) {
        // Only an error policy gives up; the digest of every other run stays as it was.
        if !self.gave_up.is_empty() {
            h.value(&self.gave_up);
        }
        // When a row expired is for the report; whether it did is read by the checker.
        let expired: Vec<bool> = self.inbox_expired_at.iter().map(Option::is_some).collect();
        h.value(&expired);
        // The checker counts effects per event and copy; when each happened is history.
        let effects: Vec<(EventIndex, u32, u32)> = self
            .external_effects
            .iter()
            .map(|x| (x.event, x.copy, x.delivery))
            .collect();
        h.value(&effects);
        // Which service each went to, when a protocol calls named services (each is a
        // boundary of its own); the digest of every other run stays as it was.
        if self.external_effects.iter().any(|x| x.call.is_some()) {
            let calls: Vec<&str> = (self.external_effects.iter())
                .map(|x| x.call.unwrap_or(""))
                .collect();
            h.value(&calls);
        }
    }
}

/// The hasher of `scenario`'s digests.
#[cfg(not(test))]
fn hasher(_scenario: &Scenario) -> StateHasher {
    StateHasher::default()
}

/// The hasher of `scenario`'s digests: in tests, one that leaves out what the scenario's
/// name asks it to, for the tests that show the omission caught.
#[cfg(test)]
fn hasher(scenario: &Scenario) -> StateHasher {
    let mut h = StateHasher::default();
    h.omit_lose_ack_budget = scenario.name == OMIT_LOSE_ACK_BUDGET;
    h.omit_schema = scenario.name == OMIT_SCHEMA;
    h
}

/// The databases: the server's on PostgreSQL, else the consumers' and the producer's
/// files; `None` when the server cannot be read without changing the run.
fn fingerprint_stores(
    scenario: &Scenario,
    stores: &[Box<dyn ConsumerDb + '_>],
    producer_store: Option<&(dyn ProducerDb + '_)>,
    now: Tick,
    h: &mut StateHasher,
) -> Option<()> {
    if scenario.store.engine == crate::model::Engine::Postgres {
        return fingerprint_postgres(scenario, stores, now, h).then_some(());
    }
    let producer_store = producer_store.and_then(|p| p.local());
    fingerprint_databases(scenario, stores, producer_store, now, h);
    Some(())
}

/// Whether a run of `scenario` on PostgreSQL can be fingerprinted: none of its steps'
/// statements changes the schema or keeps state in the session.
fn postgres_digestible(scenario: &Scenario) -> bool {
    !(scenario.protocol.sql.iter())
        .flat_map(|s| s.statements.iter())
        .any(|sql| crate::store::pg::statement::keeps_session_state(sql))
}

/// On PostgreSQL: the run's database and each connection's session state, and the instant
/// when any statement of the scenario may read the clock; `false` when the server cannot
/// be read without changing the run.
fn fingerprint_postgres(
    scenario: &Scenario,
    stores: &[Box<dyn ConsumerDb + '_>],
    now: Tick,
    h: &mut StateHasher,
) -> bool {
    use crate::store::pg::statement::{may_draw_random, may_read_clock};
    let any = |f: fn(&str) -> bool| {
        scenario.store.custom.as_ref().is_some_and(|c| {
            let sql = (c.schema.iter().chain(&c.setup))
                .chain(std::iter::once(&c.effects_per_event))
                .chain(&c.invariants);
            let steps = (scenario.protocol.sql.iter()).flat_map(|s| s.statements.iter());
            sql.chain(steps).any(|s| f(s))
        })
    };
    h.value(&any(may_read_clock).then_some(now));
    let random = any(may_draw_random);
    h.section("database");
    (stores.iter().enumerate()).all(|(i, s)| s.fingerprint_server(i == 0, random, h))
}

/// The consumers' database (its schema and rows, and each connection's random stream) and
/// the producer's.
fn fingerprint_databases(
    scenario: &Scenario,
    stores: &[Box<dyn ConsumerDb + '_>],
    producer_store: Option<&Store>,
    now: Tick,
    h: &mut StateHasher,
) {
    // All is relative to `now`, but a scenario's statement that may read the clock (as
    // SQLite reported when the file loaded) makes the instant state.
    let reads_clock = scenario
        .store
        .custom
        .as_ref()
        .is_some_and(|c| c.reads_clock);
    h.value(&reads_clock.then_some(now));
    h.section("database");
    fn local<'a>(s: &'a (dyn ConsumerDb + '_)) -> &'a Store {
        s.local()
            .expect("fingerprints are taken of simulated runs, whose store is in-process")
    }
    let retention = scenario.store.retention.is_some();
    local(stores[0].as_ref()).fingerprint_database(now, retention, h);
    // Each consumer's connection draws its own random numbers.
    for s in &stores[1..] {
        h.value(&local(s.as_ref()).sql_rng_positions());
    }
    if let Some(store) = producer_store {
        h.section("producer database");
        store.fingerprint_database(now, false, h);
    }
}

impl Fingerprint for ProducerNames {
    fn fingerprint(&self, _now: Tick, h: &mut StateHasher) {
        let ProducerNames {
            request,
            floor,
            used,
        } = self;
        h.value(&(request, floor, used));
    }
}
