//! The `store` section (with the consumer's completion delay): the inbox's constraint and
//! retention, and out-of-order completions.

use super::*;
use crate::scenario::problem::Store;

impl Checker<'_> {
    /// The inbox's settings, refused for a protocol without an inbox.
    pub(super) fn inbox_fields(
        &self,
        store: &RawStore,
        protocol: &Protocol,
    ) -> Result<(), ScenarioError> {
        if !protocol.has_inbox() {
            self.refuse_set(
                &[
                    ("store.inbox_unique", store.inbox_unique.is_some()),
                    ("store.inbox_ttl_ticks", store.inbox_ttl_ticks.is_some()),
                ],
                Store::NoInbox {
                    protocol: protocol.name.clone(),
                    steps: protocol.arrow_list(),
                },
            )?;
        }
        Ok(())
    }

    /// The inbox retention policy, when `store.inbox_ttl_ticks` is given; its schedule and
    /// batch are refused without it.
    pub(super) fn retention(&self, st: &RawStore) -> Result<Option<Retention>, ScenarioError> {
        let Some(ttl) = st.inbox_ttl_ticks else {
            self.refuse_set(
                &[
                    (
                        "store.cleanup_every_ticks",
                        st.cleanup_every_ticks.is_some(),
                    ),
                    ("store.cleanup_batch", st.cleanup_batch.is_some()),
                ],
                Store::CleanupWithoutTtl,
            )?;
            return Ok(None);
        };
        Ok(Some(Retention {
            ttl_ticks: self.range("store.inbox_ttl_ticks", ttl, 0, bounds::MAX_DELAY_TICKS)?,
            cleanup_every_ticks: self.range(
                "store.cleanup_every_ticks",
                st.cleanup_every_ticks
                    .unwrap_or(Retention::DEFAULT_CLEANUP_EVERY_TICKS),
                1,
                bounds::MAX_DELAY_TICKS,
            )?,
            batch: self.range(
                "store.cleanup_batch",
                st.cleanup_batch.unwrap_or(Retention::DEFAULT_BATCH),
                1,
                bounds::MAX_CLEANUP_BATCH,
            )?,
        }))
    }

    /// How completions that arrive before their transfer are handled: both options only
    /// mean something for the lifecycle workload.
    pub(super) fn out_of_order(
        &self,
        st: &RawStore,
        c: &RawConsumer,
        workload: &Workload,
        log: Option<&LogConfig>,
    ) -> Result<(OutOfOrder, u64), ScenarioError> {
        let set = [
            ("store.out_of_order", st.out_of_order.is_some()),
            (
                "consumer.completion_delay_ticks",
                c.completion_delay_ticks.is_some(),
            ),
        ];
        if !workload.lifecycle {
            self.refuse_set(&set, Store::NotLifecycle)?;
        }
        // A log keyed by transfer (or source account) puts a transfer's two events on one
        // partition, read in order by one consumer at a time: a completion never arrives
        // before its creation, so what to do when it does could never happen.
        if log.is_some_and(|l| l.key != crate::broker::PartitionKey::EventId) {
            self.refuse_set(&set, Store::KeyedLogInOrder)?;
        }
        Ok((
            st.out_of_order.unwrap_or_default(),
            self.range(
                "consumer.completion_delay_ticks",
                c.completion_delay_ticks.unwrap_or(0),
                0,
                bounds::MAX_DELAY_TICKS,
            )?,
        ))
    }
}

impl Checker<'_> {
    /// Whether the command line made the scenario run on another engine or isolation level
    /// than its file says.
    pub(super) fn engine_changed(&self, raw: &RawScenario) -> bool {
        let own = raw.store.engine.unwrap_or_default();
        let level = |i: Option<crate::model::Isolation>| i.unwrap_or_default();
        self.engine != own
            || (self.engine == crate::model::Engine::Postgres
                && level(self.isolation) != level(raw.store.isolation))
    }

    /// On PostgreSQL, where every part of a scenario runs: the server reachable (checked
    /// here for the built-in ledger, whose statements no load-time check sends); on
    /// SQLite, `store.isolation` refused (SQLite has one behaviour: a writer at a time).
    pub(super) fn engine_fits(&self, raw: &RawScenario) -> Result<(), ScenarioError> {
        use crate::store::pg::Engine;
        if self.engine == Engine::Sqlite {
            return self.refuse_set(
                &[("store.isolation", self.isolation.is_some())],
                Store::IsolationOnSqlite,
            );
        }
        if raw.store.schema.is_none() {
            // No statement of the file is checked on the server: reach it now, so that a
            // machine without PostgreSQL is told before any work.
            crate::store::pg::ready().map_err(|reason| {
                self.err("store.engine", Store::PostgresUnreachable { reason })
            })?;
        }
        Ok(())
    }
}

/// A value of each parameter a statement may name, as a run binds it: the first event's
/// fields, then each payload's that the first lacks, and the delivery's (PostgreSQL infers
/// a parameter's type from its literal).
pub(super) fn samples(
    seed: u64,
    workload: &Workload,
) -> std::collections::BTreeMap<String, crate::model::SqlValue> {
    let events = workload.events(seed);
    let mut samples = std::collections::BTreeMap::new();
    for e in workload.sql_events(&events) {
        for name in ["event_id", "event_type"] {
            if let Some(v) = e.field(name) {
                samples.entry(name.to_string()).or_insert(v);
            }
        }
        for (k, v) in e.payload {
            samples.entry(k).or_insert(v);
        }
    }
    for p in ["now", "delivery", "consumer", "offset", "partition"] {
        samples.insert(p.to_string(), crate::model::SqlValue::Integer(1));
    }
    let topic = crate::model::sql::LOG_TOPIC;
    let group = crate::model::sql::LOG_GROUP;
    for (p, v) in [("topic", topic), ("group", group)] {
        samples.insert(p.to_string(), crate::model::SqlValue::Text(v.to_string()));
    }
    samples
}
