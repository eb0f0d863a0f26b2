//! A Kafka-style log: partitions of ordered messages, a partition key, a consumer group
//! with each partition owned by one consumer, and committed offsets.
//!
//! There is no per-message ack: a consumer reads each of its partitions in order, and
//! what it has processed is recorded by committing an offset — after every message, every
//! K messages, or automatically when a message is handed over (before processing, which is
//! at-most-once). A consumer that crashes loses its uncommitted position: its partitions go
//! to the surviving consumers (a rebalance), which resume from the last committed offset,
//! so the whole uncommitted batch is delivered again. When the consumer restarts, the
//! partitions are rebalanced again.

use super::{AckOutcome, BrokerOutput, Delivery, Message, MessageId, MessageState};
use crate::model::{ConsumerId, EventIndex, Tick};
use serde::Serialize;
use std::collections::VecDeque;

/// What decides a message's partition.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PartitionKey {
    /// Both events of a transfer land in the same partition, in order.
    #[default]
    TransferId,
    /// Every event of a source account lands in the same partition.
    AccountId,
    /// The event's own id: events of one transfer scatter over partitions (a wrong key
    /// for anything that needs order).
    EventId,
}

/// The log's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LogConfig {
    pub partitions: usize,
    pub key: PartitionKey,
    /// Commit the offset after every K processed messages (1: after each).
    pub commit_every: u32,
    /// Commit the offset when a message is handed over, before it is processed.
    pub auto_commit: bool,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            partitions: 1,
            key: PartitionKey::TransferId,
            commit_every: 1,
            auto_commit: false,
        }
    }
}

/// The partition of `key` among `partitions`: FNV-1a, so it is the same on every platform.
pub fn partition_of(key: &str, partitions: usize) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash % partitions as u64) as usize
}

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
struct Partition {
    /// Message ids in offset order.
    log: Vec<MessageId>,
    /// The committed offset: everything before it is done for good.
    committed: usize,
    /// The next offset its owner reads.
    position: usize,
    /// The offset handed over and not yet processed, if any.
    in_flight: Option<usize>,
    /// Messages processed since the last commit.
    uncommitted: u32,
    owner: Option<ConsumerId>,
}

#[derive(Debug)]
pub struct LogBroker {
    config: LogConfig,
    consumers: usize,
    alive: Vec<bool>,
    partitions: Vec<Partition>,
    messages: Vec<Message>,
    /// For each message, its partition and offset.
    place: Vec<(usize, usize)>,
    outputs: VecDeque<BrokerOutput>,
}

impl LogBroker {
    pub fn new(config: LogConfig, consumers: usize) -> LogBroker {
        assert!(config.partitions >= 1 && consumers >= 1 && config.commit_every >= 1);
        let mut log = LogBroker {
            config,
            consumers,
            alive: vec![true; consumers],
            partitions: vec![Partition::default(); config.partitions],
            messages: Vec::new(),
            place: Vec::new(),
            outputs: VecDeque::new(),
        };
        log.rebalance();
        log
    }

    /// Assigns partition p to the (p mod n)-th live consumer, in id order. A partition
    /// that changes owner resumes from its committed offset; its old owner's work on it is
    /// fenced off (its later commit is stale).
    fn rebalance(&mut self) {
        let live: Vec<ConsumerId> = (0..self.consumers).filter(|&c| self.alive[c]).collect();
        for (p, part) in self.partitions.iter_mut().enumerate() {
            let owner = (!live.is_empty()).then(|| live[p % live.len()]);
            if owner != part.owner {
                part.owner = owner;
                part.position = part.committed;
                part.in_flight = None;
                part.uncommitted = 0;
                for &id in &part.log[part.committed..] {
                    self.messages[id].state = MessageState::Ready;
                }
                if let Some(&first) = part.log.get(part.committed) {
                    self.outputs
                        .push_back(BrokerOutput::Ready { message: first });
                }
            }
        }
    }

    pub fn handle_publish(
        &mut self,
        _now: Tick,
        event: EventIndex,
        copy: u32,
        key: &str,
    ) -> MessageId {
        let id = self.messages.len();
        let p = partition_of(key, self.config.partitions);
        self.messages.push(Message::published(event, copy));
        self.place.push((p, self.partitions[p].log.len()));
        self.partitions[p].log.push(id);
        self.outputs.push_back(BrokerOutput::Ready { message: id });
        id
    }

    /// The consumer polls: the next message of the first of its partitions that has one
    /// and nothing in flight. An idle poll commits what the consumer has processed.
    pub fn handle_receive(&mut self, now: Tick, consumer: ConsumerId) -> Option<Delivery> {
        let p = (0..self.partitions.len()).find(|&p| {
            let part = &self.partitions[p];
            part.owner == Some(consumer)
                && part.in_flight.is_none()
                && part.position < part.log.len()
        });
        let Some(p) = p else {
            for p in 0..self.partitions.len() {
                let part = &self.partitions[p];
                if part.owner == Some(consumer) && part.in_flight.is_none() {
                    self.commit(now, p);
                }
            }
            return None;
        };
        let part = &mut self.partitions[p];
        let offset = part.position;
        part.position += 1;
        part.in_flight = Some(offset);
        let id = part.log[offset];
        let delivery = self.messages[id].hand_over(id, consumer);
        if self.config.auto_commit {
            self.commit(now, p);
        }
        Some(delivery)
    }

    /// Commits partition `p` up to its owner's position (all handed over, none in flight).
    fn commit(&mut self, now: Tick, p: usize) {
        let part = &mut self.partitions[p];
        let upto = part.in_flight.map_or(part.position, |o| {
            if self.config.auto_commit {
                o + 1
            } else {
                o
            }
        });
        // A commit never goes back: the position and the message in flight are never
        // behind the committed offset (a rebalance resets the position to it).
        assert!(upto >= part.committed, "partition {p} commits backwards");
        for offset in part.committed..upto {
            self.messages[part.log[offset]].state = MessageState::Acked { at: now };
        }
        part.committed = upto;
        part.uncommitted = 0;
    }

    /// The consumer finished `delivery`: it counts towards the next commit.
    pub fn handle_ack(&mut self, now: Tick, delivery: &Delivery) -> AckOutcome {
        let (p, offset) = self.place[delivery.message];
        let part = &mut self.partitions[p];
        let m = &self.messages[delivery.message];
        let current = part.in_flight == Some(offset)
            && matches!(m.state, MessageState::InFlight { attempt, .. } if attempt == delivery.attempt)
            || (self.config.auto_commit && part.in_flight == Some(offset));
        if !current {
            return if matches!(m.state, MessageState::Acked { .. }) {
                AckOutcome::AlreadyAcked
            } else {
                AckOutcome::Stale
            };
        }
        part.in_flight = None;
        part.uncommitted += 1;
        if part.uncommitted >= self.config.commit_every {
            self.commit(now, p);
        }
        AckOutcome::Accepted
    }

    /// The partition and offset of `message`.
    pub fn place_of(&self, message: MessageId) -> crate::model::LogPlace {
        let (p, offset) = self.place[message];
        crate::model::LogPlace {
            partition: u32::try_from(p).expect("at most MAX_PARTITIONS"),
            offset: offset as u64,
        }
    }

    /// The consumer gave up on `delivery`: it is read again from the same offset.
    pub fn handle_nack(&mut self, _now: Tick, delivery: &Delivery) {
        let (p, offset) = self.place[delivery.message];
        let part = &mut self.partitions[p];
        if part.in_flight == Some(offset) {
            part.in_flight = None;
            part.position = offset;
            if !matches!(
                self.messages[delivery.message].state,
                MessageState::Acked { .. }
            ) {
                self.messages[delivery.message].state = MessageState::Ready;
            }
            self.outputs.push_back(BrokerOutput::Ready {
                message: delivery.message,
            });
        }
    }

    /// The consumer died: its partitions go to the others, from their committed offsets.
    pub fn handle_consumer_crash(&mut self, _now: Tick, consumer: ConsumerId) {
        self.alive[consumer] = false;
        for part in &mut self.partitions {
            if part.owner == Some(consumer) {
                part.owner = None; // Forces a reset in `rebalance`, even to the same owner.
            }
        }
        self.rebalance();
    }

    /// The consumer is back: the partitions are spread again.
    pub fn handle_consumer_restart(&mut self, _now: Tick, consumer: ConsumerId) {
        self.alive[consumer] = true;
        self.rebalance();
    }

    pub fn poll_output(&mut self) -> Option<BrokerOutput> {
        self.outputs.pop_front()
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }
}

impl crate::sim::Fingerprint for LogBroker {
    fn fingerprint(&self, now: Tick, h: &mut crate::sim::StateHasher) {
        let LogBroker {
            config: _,    // Configuration: the same for every run of a scenario.
            consumers: _, // Configuration.
            alive,
            partitions,
            messages,
            place,
            outputs,
        } = self;
        h.value(&(alive, place));
        h.value(&partitions.len());
        for part in partitions {
            let Partition {
                log,
                committed,
                position,
                in_flight,
                uncommitted,
                owner,
            } = part;
            h.value(&(log, committed, position, in_flight, uncommitted, owner));
        }
        h.value(&messages.len());
        for m in messages {
            super::message_fingerprint(m, now, h);
        }
        super::outputs_fingerprint(outputs, now, h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(partitions: usize, consumers: usize, commit_every: u32) -> LogBroker {
        LogBroker::new(
            LogConfig {
                partitions,
                commit_every,
                ..LogConfig::default()
            },
            consumers,
        )
    }

    /// One partition, one consumer, and the offset committed when a message is handed over.
    fn auto_commit_log() -> LogBroker {
        LogBroker::new(
            LogConfig {
                auto_commit: true,
                ..LogConfig::default()
            },
            1,
        )
    }

    #[test]
    fn one_partition_is_read_in_order_one_message_at_a_time() {
        let mut b = log(1, 1, 1);
        for e in 0..3 {
            b.handle_publish(0, e, 0, "same-key");
        }
        let d0 = b.handle_receive(1, 0).unwrap();
        assert_eq!(b.handle_receive(1, 0), None, "the next waits for the first");
        assert_eq!(b.handle_ack(2, &d0), AckOutcome::Accepted);
        assert_eq!(b.handle_receive(3, 0).unwrap().event, 1);
    }

    #[test]
    fn a_crash_redelivers_the_whole_uncommitted_batch() {
        let mut b = log(1, 1, 3);
        for e in 0..3 {
            b.handle_publish(0, e, 0, "k");
        }
        for t in 0..2 {
            let d = b.handle_receive(t, 0).unwrap();
            b.handle_ack(t, &d);
        }
        b.handle_consumer_crash(5, 0);
        b.handle_consumer_restart(6, 0);
        let again = b.handle_receive(7, 0).unwrap();
        assert_eq!(
            (again.event, again.attempt),
            (0, 2),
            "back to the committed offset"
        );
    }

    #[test]
    fn committing_each_message_redelivers_only_the_one_in_flight() {
        let mut b = log(1, 1, 1);
        for e in 0..3 {
            b.handle_publish(0, e, 0, "k");
        }
        let d = b.handle_receive(0, 0).unwrap();
        b.handle_ack(1, &d);
        b.handle_receive(2, 0).unwrap();
        b.handle_consumer_crash(3, 0);
        b.handle_consumer_restart(4, 0);
        assert_eq!(b.handle_receive(5, 0).unwrap().event, 1);
        assert!(matches!(b.messages()[0].state, MessageState::Acked { .. }));
    }

    #[test]
    fn auto_commit_acks_on_hand_over_so_a_crash_loses_the_message() {
        let mut b = auto_commit_log();
        b.handle_publish(0, 0, 0, "k");
        b.handle_publish(0, 1, 0, "k");
        b.handle_receive(1, 0).unwrap();
        b.handle_consumer_crash(2, 0);
        b.handle_consumer_restart(3, 0);
        assert_eq!(
            b.handle_receive(4, 0).unwrap().event,
            1,
            "event 0 is never read again"
        );
    }

    #[test]
    fn a_crash_moves_partitions_to_the_survivor_and_fences_the_old_owner() {
        let mut b = log(2, 2, 1);
        let keys = ["a", "b", "c", "d", "e", "f"];
        let k0 = keys.iter().find(|k| partition_of(k, 2) == 0).unwrap();
        let k1 = keys.iter().find(|k| partition_of(k, 2) == 1).unwrap();
        b.handle_publish(0, 0, 0, k0);
        b.handle_publish(0, 1, 0, k1);
        let d0 = b.handle_receive(1, 0).unwrap();
        let d1 = b.handle_receive(1, 1).unwrap();
        assert_eq!((d0.event, d1.event), (0, 1), "one partition each");
        b.handle_consumer_crash(2, 1);
        assert_eq!(
            b.handle_ack(3, &d0),
            AckOutcome::Accepted,
            "partition 0 stayed with 0"
        );
        let moved = b.handle_receive(4, 0).unwrap();
        assert_eq!(
            (moved.event, moved.attempt),
            (1, 2),
            "partition 1 moved over, from its commit"
        );
        b.handle_consumer_restart(5, 1);
        assert_eq!(
            b.handle_ack(6, &moved),
            AckOutcome::Stale,
            "fenced: partition 1 went back"
        );
        assert_eq!(
            b.handle_ack(6, &d1),
            AckOutcome::Stale,
            "the crashed owner's delivery too"
        );
    }

    #[test]
    fn partitioning_is_stable() {
        assert_eq!(partition_of("tr_00001", 4), partition_of("tr_00001", 4));
        let spread: std::collections::BTreeSet<usize> = (0..50)
            .map(|i| partition_of(&format!("tr_{i:05}"), 4))
            .collect();
        assert_eq!(spread.len(), 4);
    }

    #[test]
    fn an_idle_poll_commits_the_pollers_own_partitions_and_no_others() {
        // Two partitions, one per consumer; a commit only on an idle poll. In a consumer
        // group each member commits its own assignment: consumer 0 running out of work
        // says nothing about what consumer 1 has processed.
        let mut b = log(2, 2, 100);
        let key_of = |p: usize| {
            (0..100)
                .map(|i| format!("tr_{i:05}"))
                .find(|k| partition_of(k, 2) == p)
                .expect("a key for each of two partitions among 100")
        };
        b.handle_publish(0, 0, 0, &key_of(0));
        b.handle_publish(0, 1, 0, &key_of(1));
        for consumer in [0, 1] {
            let d = b.handle_receive(1, consumer).unwrap();
            assert_eq!(d.event, consumer, "partition p belongs to consumer p");
            assert_eq!(b.handle_ack(2, &d), AckOutcome::Accepted);
        }
        let acked = |b: &LogBroker| {
            b.messages()
                .iter()
                .map(|m| matches!(m.state, MessageState::Acked { .. }))
                .collect::<Vec<_>>()
        };
        assert_eq!(acked(&b), [false, false], "processed, not yet committed");
        assert_eq!(b.handle_receive(3, 0), None);
        assert_eq!(
            acked(&b),
            [true, false],
            "consumer 0 committed its own only"
        );
        assert_eq!(b.handle_receive(4, 1), None);
        assert_eq!(acked(&b), [true, true]);
    }

    #[test]
    fn an_ack_from_an_earlier_attempt_is_stale_even_while_its_offset_is_in_flight_again() {
        let mut b = log(1, 1, 1);
        b.handle_publish(0, 0, 0, "k");
        let first = b.handle_receive(1, 0).unwrap();
        b.handle_consumer_crash(2, 0);
        b.handle_consumer_restart(3, 0);
        let second = b.handle_receive(4, 0).unwrap();
        assert_eq!((second.event, second.attempt), (0, 2));
        assert_eq!(
            b.handle_ack(5, &first),
            AckOutcome::Stale,
            "the same offset is in flight, but for another attempt"
        );
        assert_eq!(b.handle_ack(6, &second), AckOutcome::Accepted);
    }

    #[test]
    fn under_auto_commit_the_ack_of_the_message_in_hand_frees_its_partition() {
        let mut b = auto_commit_log();
        b.handle_publish(0, 0, 0, "k");
        b.handle_publish(0, 1, 0, "k");
        let d = b.handle_receive(1, 0).unwrap();
        assert!(
            matches!(b.messages()[0].state, MessageState::Acked { at: 1 }),
            "committed when handed over"
        );
        assert_eq!(b.handle_receive(2, 0), None, "the next waits for the ack");
        assert_eq!(b.handle_ack(3, &d), AckOutcome::Accepted);
        assert_eq!(b.handle_receive(4, 0).unwrap().event, 1);
    }

    #[test]
    fn a_nack_hands_the_same_offset_over_again_and_a_nack_out_of_turn_does_nothing() {
        let mut b = log(1, 1, 1);
        b.handle_publish(0, 0, 0, "k");
        b.handle_publish(0, 1, 0, "k");
        let d = b.handle_receive(1, 0).unwrap();
        while b.poll_output().is_some() {}
        b.handle_nack(2, &d);
        assert_eq!(b.messages()[0].state, MessageState::Ready);
        assert_eq!(
            b.poll_output(),
            Some(BrokerOutput::Ready { message: d.message })
        );
        let again = b.handle_receive(3, 0).unwrap();
        assert_eq!((again.event, again.attempt), (0, 2));
        assert_eq!(b.handle_ack(4, &again), AckOutcome::Accepted);
        b.handle_nack(5, &d);
        assert!(matches!(
            b.messages()[0].state,
            MessageState::Acked { at: 4 }
        ));
        assert_eq!(b.poll_output(), None, "nothing to read again");
        assert_eq!(b.handle_receive(6, 0).unwrap().event, 1);

        // Under auto-commit the message was committed when handed over: a nack reads it
        // again, and it stays committed.
        let mut a = auto_commit_log();
        a.handle_publish(0, 0, 0, "k");
        let d = a.handle_receive(1, 0).unwrap();
        a.handle_nack(2, &d);
        assert!(matches!(
            a.messages()[0].state,
            MessageState::Acked { at: 1 }
        ));
        assert_eq!(a.handle_receive(3, 0).unwrap().attempt, 2);
    }
}
