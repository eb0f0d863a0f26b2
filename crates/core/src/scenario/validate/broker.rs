//! The `broker` section: the queue's delays and counts, the log's partitions, the
//! dead-letter replay.

use super::*;
use crate::broker::PartitionKey;
use crate::scenario::problem::Broker;

impl Checker<'_> {
    /// The log broker's settings, when `broker.kind` is `log`; the queue's own options and
    /// the queue-only faults are refused with it, and the log's options without it. With
    /// the scenario's `own_schema`, messages are keyed by their event id: the transfer and
    /// account ids are the built-in ledger's, which such a scenario does not have.
    pub(super) fn log(
        &self,
        b: &RawBroker,
        f: &RawFaults,
        own_schema: bool,
    ) -> Result<Option<LogConfig>, ScenarioError> {
        if own_schema
            && matches!(
                b.key,
                Some(PartitionKey::TransferId | PartitionKey::AccountId)
            )
        {
            return Err(self.err("broker.key", Broker::KeyWithOwnSchema));
        }
        if b.kind != Some(BrokerKind::Log) {
            self.refuse_set(
                &[
                    ("broker.partitions", b.partitions.is_some()),
                    ("broker.key", b.key.is_some()),
                    ("broker.commit_every", b.commit_every.is_some()),
                    ("broker.auto_commit", b.auto_commit.is_some()),
                ],
                Broker::LogOnly,
            )?;
            return Ok(None);
        }
        self.refuse_set(
            &[
                (
                    "broker.redelivery_delay_ticks",
                    b.redelivery_delay_ticks.is_some(),
                ),
                ("broker.lease_ticks", b.lease_ticks.is_some()),
                ("broker.stale_ack", b.stale_ack.is_some()),
                ("broker.max_deliveries", b.max_deliveries.is_some()),
                (
                    "broker.replay_dead_letters_at_tick",
                    b.replay_dead_letters_at_tick.is_some(),
                ),
                (
                    "broker.delivery_jitter_ticks",
                    b.delivery_jitter_ticks.is_some(),
                ),
                (
                    "broker.late_redelivery_ticks",
                    b.late_redelivery_ticks.is_some(),
                ),
                ("faults.lose_ack", !f.lose_ack.is_empty()),
                (
                    "faults.duplicate_delivery",
                    !f.duplicate_delivery.is_empty(),
                ),
            ],
            Broker::QueueOnly,
        )?;
        Ok(Some(LogConfig {
            partitions: self.range(
                "broker.partitions",
                b.partitions.unwrap_or(1),
                1,
                bounds::MAX_PARTITIONS,
            )? as usize,
            key: match own_schema {
                true => PartitionKey::EventId,
                false => b.key.unwrap_or_default(),
            },
            commit_every: self.range(
                "broker.commit_every",
                b.commit_every.unwrap_or(1),
                1,
                bounds::MAX_EVENTS as u32,
            )?,
            auto_commit: b.auto_commit.unwrap_or(false),
        }))
    }

    /// `broker.late_redelivery_ticks`, within its bounds.
    pub(super) fn late_redelivery(
        &self,
        broker: &RawBroker,
    ) -> Result<Option<Tick>, ScenarioError> {
        broker
            .late_redelivery_ticks
            .map(|w| {
                self.range(
                    "broker.late_redelivery_ticks",
                    w,
                    1,
                    bounds::MAX_DELAY_TICKS,
                )
            })
            .transpose()
    }

    /// `broker.replay_dead_letters_at_tick`: only with dead letters, and before the end.
    pub(super) fn dead_letter_replay(
        &self,
        broker: &RawBroker,
        limits: &Limits,
        consumer_dead_letters: bool,
    ) -> Result<Option<Tick>, ScenarioError> {
        broker
            .replay_dead_letters_at_tick
            .map(|t| {
                if broker.max_deliveries.is_none() && !consumer_dead_letters {
                    return Err(self.err(
                        "broker.replay_dead_letters_at_tick",
                        Broker::NothingDeadLettered,
                    ));
                }
                if t >= limits.max_ticks {
                    return Err(self.err(
                        "broker.replay_dead_letters_at_tick",
                        Broker::ReplayPastLimit {
                            tick: t,
                            max_ticks: limits.max_ticks,
                        },
                    ));
                }
                self.range(
                    "broker.replay_dead_letters_at_tick",
                    t,
                    1,
                    bounds::MAX_TICKS,
                )
            })
            .transpose()
    }

    /// The broker's configuration, each delay and count within its bounds.
    pub(super) fn broker(
        &self,
        broker: &RawBroker,
        log: Option<LogConfig>,
        replay_dead_letters_at_tick: Option<Tick>,
        late_redelivery_ticks: Option<Tick>,
    ) -> Result<BrokerConfig, ScenarioError> {
        Ok(BrokerConfig {
            redelivery_delay_ticks: self.range(
                "broker.redelivery_delay_ticks",
                broker
                    .redelivery_delay_ticks
                    .unwrap_or(BrokerConfig::default().redelivery_delay_ticks),
                0,
                bounds::MAX_DELAY_TICKS,
            )?,
            max_deliveries: broker
                .max_deliveries
                .map(|m| self.range("broker.max_deliveries", m, 1, bounds::MAX_DELIVERIES))
                .transpose()?,
            lease_ticks: broker
                .lease_ticks
                .map(|l| self.range("broker.lease_ticks", l, 1, bounds::MAX_DELAY_TICKS))
                .transpose()?,
            stale_ack: broker.stale_ack.unwrap_or_default(),
            delivery_jitter_ticks: broker
                .delivery_jitter_ticks
                .map(|j| {
                    self.range(
                        "broker.delivery_jitter_ticks",
                        j,
                        0,
                        bounds::MAX_DELAY_TICKS,
                    )
                })
                .transpose()?,
            log,
            replay_dead_letters_at_tick,
            transactional: broker.transactional.unwrap_or(false),
            late_redelivery_ticks,
        })
    }
}
