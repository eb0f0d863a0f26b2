//! The broker: a queue with per-message acknowledgement, like RabbitMQ or SQS, or a
//! Kafka-style partitioned log with committed offsets (`log`).
//!
//! A sans-IO state machine. Every input is a `handle_*` call that takes the current virtual
//! time; anything the broker needs from the outside world (a timer) comes out of
//! [`Broker::poll_output`]. It knows nothing of the consumer's code, the store or the
//! scheduler: it only sees receives, acks, nacks and crash notices.
//!
//! Each message is ready, in flight (delivered, not acked), waiting to be redelivered, or
//! acked. An acked message is never delivered again; an unacked one whose consumer crashed
//! or rejected it becomes ready again after `redelivery_delay_ticks`. With a lease (SQS's
//! visibility timeout), an in-flight message whose lease expires is ready again at once,
//! while its first consumer may still be working on it: two consumers then handle it.
//!
//! After `max_deliveries` a released message is dead-lettered: parked, never delivered
//! again, unless the dead-letter queue is replayed (`replay_dead_letters_at_tick`, what a
//! person does once the bug that poisoned it is fixed): then every dead-lettered message is
//! ready again, the same message with the same event, and its deliveries count afresh
//! towards `max_deliveries` (attempt numbers go on, so every delivery keeps its own name).

pub(crate) mod log;
pub(crate) mod output;

pub use log::{LogBroker, LogConfig, PartitionKey};
pub use output::{OutputRecord, OutputState, OutputTopic};

/// The broker's answers and deliveries are model types (see [`crate::model::Delivery`]).
pub use crate::model::{AckOutcome, Delivery, MessageId};
use crate::model::{ConsumerId, EventIndex, Tick};
use crate::sim::{Fingerprint, StateHasher};
use crate::sim::{SimRng, Stream};
use serde::Serialize;
use std::collections::VecDeque;

/// The broker's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BrokerConfig {
    /// How long an unacked message waits, after its consumer crashed or rejected it, before
    /// it is ready again.
    pub redelivery_delay_ticks: Tick,
    /// After this many deliveries, a message that is released again (crash or rejection)
    /// goes to the dead-letter queue instead of being redelivered. `None`: never.
    pub max_deliveries: Option<u32>,
    /// How long a delivery may stay unacked before the message is visible again (a lease,
    /// or visibility timeout). `None`: until the consumer crashes or rejects it.
    pub lease_ticks: Option<Tick>,
    /// What an ack for an earlier delivery of a message that was delivered again does.
    pub stale_ack: StaleAck,
    /// Each time a message is published or released, it becomes visible after a delay
    /// drawn from 0 to this many ticks, so deliveries can overtake each other. `None`: no
    /// delay, publication order.
    pub delivery_jitter_ticks: Option<Tick>,
    /// `Some`: a Kafka-style log instead of a queue (the queue's options do not apply).
    pub log: Option<LogConfig>,
    /// Consume-produce-commit inside the broker: a consumer's outputs commit atomically with
    /// its ack (see `broker::output`).
    pub transactional: bool,
    /// At this virtual tick every dead-lettered message is made ready again (a replay of the
    /// dead-letter queue). `None`: dead letters stay parked.
    pub replay_dead_letters_at_tick: Option<Tick>,
    /// `Some(W)`: a replay window. The broker delivers every acked message once more, W
    /// ticks after its ack, as a broker that keeps messages W ticks and replays them may.
    pub late_redelivery_ticks: Option<Tick>,
}

/// Whether the broker honours an ack that names an earlier delivery.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StaleAck {
    /// Only the latest delivery's ack counts (RabbitMQ delivery tags, SQS receipt handles).
    #[default]
    Reject,
    /// Any delivery's ack acks the message.
    Accept,
}

impl Default for BrokerConfig {
    fn default() -> Self {
        BrokerConfig {
            redelivery_delay_ticks: 10,
            max_deliveries: None,
            lease_ticks: None,
            stale_ack: StaleAck::Reject,
            delivery_jitter_ticks: None,
            log: None,
            transactional: false,
            replay_dead_letters_at_tick: None,
            late_redelivery_ticks: None,
        }
    }
}

/// Where a message stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum MessageState {
    Ready,
    InFlight {
        consumer: ConsumerId,
        attempt: u32,
    },
    /// Unacked and released (crash or rejection); ready again at `at`.
    Redelivering {
        at: Tick,
    },
    Acked {
        at: Tick,
    },
    /// Released after `max_deliveries` deliveries: parked for a person, never delivered
    /// again unless the dead-letter queue is replayed.
    DeadLettered {
        at: Tick,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Message {
    pub event: EventIndex,
    pub copy: u32,
    pub state: MessageState,
    /// How many times it was delivered.
    pub deliveries: u32,
    /// How many times it was replayed from the dead-letter queue.
    pub dead_letter_replays: u32,
    /// `deliveries` when it was last replayed from the dead-letter queue: only deliveries
    /// since then count towards `max_deliveries`.
    pub deliveries_before_replay: u32,
}

/// Why the broker set a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimerKind {
    /// A released message becomes ready again.
    Redeliver,
    /// The lease of delivery `attempt` ends.
    LeaseExpiry { attempt: u32 },
    /// An acked message comes back once, at the end of the replay window
    /// (`late_redelivery_ticks` after its ack).
    LateRedelivery,
}

impl Message {
    /// A message just published, ready and never delivered.
    pub fn published(event: EventIndex, copy: u32) -> Message {
        Message {
            event,
            copy,
            state: MessageState::Ready,
            deliveries: 0,
            dead_letter_replays: 0,
            deliveries_before_replay: 0,
        }
    }

    /// Delivers this message (`id`) to `consumer`: one more delivery, now in flight.
    fn hand_over(&mut self, id: MessageId, consumer: ConsumerId) -> Delivery {
        self.deliveries += 1;
        self.state = MessageState::InFlight {
            consumer,
            attempt: self.deliveries,
        };
        Delivery {
            message: id,
            event: self.event,
            copy: self.copy,
            attempt: self.deliveries,
        }
    }
}

/// What the broker asks of the outside world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrokerOutput {
    /// Call [`Broker::handle_timer`] for `message` and `kind` at `at`.
    Timer {
        at: Tick,
        message: MessageId,
        kind: TimerKind,
    },
    /// A message became ready; idle consumers may receive.
    Ready { message: MessageId },
    /// A message went to the dead-letter queue.
    DeadLettered { message: MessageId },
    /// Call [`Broker::handle_dead_letter_replay`] at `at`.
    DeadLetterReplayTimer { at: Tick },
}

/// The broker of a run: a queue, or a log.
#[derive(Debug)]
pub enum Broker {
    /// Boxed: the queue carries its random stream and is much the larger of the two.
    Queue(Box<QueueBroker>),
    Log(LogBroker),
}

impl Fingerprint for Broker {
    fn fingerprint(&self, now: Tick, h: &mut StateHasher) {
        match self {
            Broker::Queue(q) => {
                h.section("queue");
                q.fingerprint(now, h);
            }
            Broker::Log(l) => {
                h.section("log");
                l.fingerprint(now, h);
            }
        }
    }
}

/// A message's state, with the instants that decide its future relative to `now`.
fn message_fingerprint(m: &Message, now: Tick, h: &mut StateHasher) {
    let Message {
        event,
        copy,
        state,
        deliveries,
        dead_letter_replays,
        deliveries_before_replay,
    } = m;
    h.value(&(
        event,
        copy,
        deliveries,
        dead_letter_replays,
        deliveries_before_replay,
    ));
    match *state {
        MessageState::Ready => h.value(&0u8),
        MessageState::InFlight { consumer, attempt } => h.value(&(1u8, consumer, attempt)),
        MessageState::Redelivering { at } => {
            h.value(&2u8);
            h.instant(at, now); // Its timer checks it.
        }
        // When it was acked or parked is read by reports only: nothing later depends on it.
        MessageState::Acked { at: _ } => h.value(&3u8),
        MessageState::DeadLettered { at: _ } => h.value(&4u8),
    }
}

/// Outputs not yet drained by the world (a crash can come between a broker call and the
/// drain), with their instants relative to `now`.
fn outputs_fingerprint(outputs: &VecDeque<BrokerOutput>, now: Tick, h: &mut StateHasher) {
    h.value(&outputs.len());
    for o in outputs {
        match *o {
            BrokerOutput::Timer { at, message, kind } => {
                h.value(&(0u8, message, kind));
                h.instant(at, now);
            }
            BrokerOutput::Ready { message } => h.value(&(1u8, message)),
            BrokerOutput::DeadLettered { message } => h.value(&(2u8, message)),
            BrokerOutput::DeadLetterReplayTimer { at } => {
                h.value(&3u8);
                h.instant(at, now);
            }
        }
    }
}

impl Fingerprint for QueueBroker {
    fn fingerprint(&self, now: Tick, h: &mut StateHasher) {
        let QueueBroker {
            config: _, // Configuration: the same for every run of a scenario.
            rng,
            messages,
            late_scheduled,
            duplicated,
            ready,
            outputs,
        } = self;
        rng.fingerprint(now, h);
        h.value(&messages.len());
        for m in messages {
            message_fingerprint(m, now, h);
        }
        h.value(&(late_scheduled, duplicated, ready));
        outputs_fingerprint(outputs, now, h);
    }
}

impl Broker {
    /// The broker `config` describes, for `consumers` consumers; random delays come from the
    /// broker stream of `seed`.
    pub fn new(config: BrokerConfig, seed: u64, consumers: usize) -> Broker {
        match config.log {
            Some(log) => Broker::Log(LogBroker::new(log, consumers)),
            None => Broker::Queue(Box::new(QueueBroker::new(config, seed))),
        }
    }

    /// Publishes `event` (its `copy`-th publication); `key` chooses a log's partition.
    pub fn handle_publish(
        &mut self,
        now: Tick,
        event: EventIndex,
        copy: u32,
        key: &str,
    ) -> MessageId {
        match self {
            Broker::Queue(q) => q.handle_publish(now, event, copy),
            Broker::Log(l) => l.handle_publish(now, event, copy, key),
        }
    }

    pub fn handle_receive(&mut self, now: Tick, consumer: ConsumerId) -> Option<Delivery> {
        match self {
            Broker::Queue(q) => q.handle_receive(now, consumer),
            Broker::Log(l) => l.handle_receive(now, consumer),
        }
    }

    pub fn handle_ack(&mut self, now: Tick, delivery: &Delivery) -> AckOutcome {
        match self {
            Broker::Queue(q) => q.handle_ack(now, delivery),
            Broker::Log(l) => l.handle_ack(now, delivery),
        }
    }

    /// The consumer moves `delivery`'s message to the dead-letter queue itself (an error
    /// policy's `then: dead_letter`). A log has no dead-letter queue (refused when the
    /// scenario loads).
    pub fn handle_dead_letter(&mut self, now: Tick, delivery: &Delivery) -> AckOutcome {
        match self {
            Broker::Queue(q) => q.handle_dead_letter(now, delivery),
            Broker::Log(_) => unreachable!("a log has no dead-letter queue (validated)"),
        }
    }

    /// Where `message` sits on a log (a queue has no such place).
    pub fn log_place(&self, message: MessageId) -> Option<crate::model::LogPlace> {
        match self {
            Broker::Queue(_) => None,
            Broker::Log(l) => Some(l.place_of(message)),
        }
    }

    pub fn handle_nack(&mut self, now: Tick, delivery: &Delivery) {
        match self {
            Broker::Queue(q) => q.handle_nack(now, delivery),
            Broker::Log(l) => l.handle_nack(now, delivery),
        }
    }

    pub fn handle_consumer_crash(&mut self, now: Tick, consumer: ConsumerId) {
        match self {
            Broker::Queue(q) => q.handle_consumer_crash(now, consumer),
            Broker::Log(l) => l.handle_consumer_crash(now, consumer),
        }
    }

    /// A crashed consumer is back (a log rebalances; a queue does not care).
    pub fn handle_consumer_restart(&mut self, now: Tick, consumer: ConsumerId) {
        if let Broker::Log(l) = self {
            l.handle_consumer_restart(now, consumer);
        }
    }

    /// A timer fires (a log sets none).
    pub fn handle_timer(&mut self, now: Tick, message: MessageId, kind: TimerKind) -> bool {
        match self {
            Broker::Queue(q) => q.handle_timer(now, message, kind),
            Broker::Log(_) => false,
        }
    }

    /// The dead-letter queue is replayed: returns the messages made ready again, in id
    /// order (a log has no dead-letter queue).
    pub fn handle_dead_letter_replay(&mut self, now: Tick) -> Vec<MessageId> {
        match self {
            Broker::Queue(q) => q.handle_dead_letter_replay(now),
            Broker::Log(_) => Vec::new(),
        }
    }

    /// The broker delivers `message` again while in flight (a queue's own duplicate).
    pub fn handle_duplicate_delivery(&mut self, now: Tick, message: MessageId) -> bool {
        match self {
            Broker::Queue(q) => q.handle_duplicate_delivery(now, message),
            Broker::Log(_) => false,
        }
    }

    pub fn poll_output(&mut self) -> Option<BrokerOutput> {
        match self {
            Broker::Queue(q) => q.poll_output(),
            Broker::Log(l) => l.poll_output(),
        }
    }

    pub fn messages(&self) -> &[Message] {
        match self {
            Broker::Queue(q) => q.messages(),
            Broker::Log(l) => l.messages(),
        }
    }
}

/// The queue broker.
#[derive(Debug)]
pub struct QueueBroker {
    config: BrokerConfig,
    /// Draws delivery delays; only used with `delivery_jitter_ticks`.
    rng: SimRng,
    messages: Vec<Message>,
    /// Per message: whether its late redelivery was scheduled (it comes back once only).
    late_scheduled: Vec<bool>,
    /// Per message: made ready again by the broker's own duplicate and not received since.
    /// That copy is out of the consumer's hands: an ack of the earlier delivery does not
    /// take it back, so it is delivered.
    duplicated: Vec<bool>,
    ready: VecDeque<MessageId>,
    outputs: VecDeque<BrokerOutput>,
}

impl QueueBroker {
    /// A queue whose random delays come from the broker stream of `seed`.
    pub fn new(config: BrokerConfig, seed: u64) -> QueueBroker {
        let mut outputs = VecDeque::new();
        if let Some(at) = config.replay_dead_letters_at_tick {
            outputs.push_back(BrokerOutput::DeadLetterReplayTimer { at });
        }
        QueueBroker {
            rng: SimRng::new(seed, Stream::Broker),
            config,
            messages: Vec::new(),
            late_scheduled: Vec::new(),
            duplicated: Vec::new(),
            ready: VecDeque::new(),
            outputs,
        }
    }

    /// A producer publishes `event` (its `copy`-th publication). It is ready at once.
    pub fn handle_publish(&mut self, now: Tick, event: EventIndex, copy: u32) -> MessageId {
        let id = self.messages.len();
        self.messages.push(Message::published(event, copy));
        self.late_scheduled.push(false);
        self.duplicated.push(false);
        match self.jitter() {
            0 => {
                self.ready.push_back(id);
                self.outputs.push_back(BrokerOutput::Ready { message: id });
            }
            delay => self.wait_until(now + delay, id),
        }
        id
    }

    /// A delivery delay drawn from `0..=delivery_jitter_ticks` (0 without jitter).
    fn jitter(&mut self) -> Tick {
        match self.config.delivery_jitter_ticks {
            Some(max) => self.rng.below(max + 1),
            None => 0,
        }
    }

    /// `id` waits, not deliverable, until `at`.
    fn wait_until(&mut self, at: Tick, id: MessageId) {
        self.messages[id].state = MessageState::Redelivering { at };
        self.outputs.push_back(BrokerOutput::Timer {
            at,
            message: id,
            kind: TimerKind::Redeliver,
        });
    }

    /// `consumer` asks for the next message; the oldest ready one is put in flight.
    pub fn handle_receive(&mut self, now: Tick, consumer: ConsumerId) -> Option<Delivery> {
        let id = self.ready.pop_front()?;
        let m = &mut self.messages[id];
        assert_eq!(
            m.state,
            MessageState::Ready,
            "only ready messages are queued"
        );
        let delivery = m.hand_over(id, consumer);
        self.duplicated[id] = false;
        if let Some(lease) = self.config.lease_ticks {
            self.outputs.push_back(BrokerOutput::Timer {
                at: now + lease,
                message: id,
                kind: TimerKind::LeaseExpiry {
                    attempt: delivery.attempt,
                },
            });
        }
        Some(delivery)
    }

    pub fn handle_ack(&mut self, now: Tick, delivery: &Delivery) -> AckOutcome {
        let m = &mut self.messages[delivery.message];
        let outcome = match m.state {
            MessageState::Acked { .. } => AckOutcome::AlreadyAcked,
            MessageState::InFlight { attempt, .. } if attempt == delivery.attempt => {
                m.state = MessageState::Acked { at: now };
                AckOutcome::Accepted
            }
            MessageState::DeadLettered { .. } => AckOutcome::Stale,
            // Its lease ended (or the broker duplicated it) but nobody has received it
            // since: the delivery being acked is still the latest, so the ack is good, as
            // an SQS receipt handle stays valid until the message is received again.
            MessageState::Ready
                if m.deliveries == delivery.attempt && !self.duplicated[delivery.message] =>
            {
                self.ready.retain(|&r| r != delivery.message);
                m.state = MessageState::Acked { at: now };
                AckOutcome::Accepted
            }
            _ if self.config.stale_ack == StaleAck::Accept => {
                if m.state == MessageState::Ready {
                    self.ready.retain(|&r| r != delivery.message);
                }
                m.state = MessageState::Acked { at: now };
                AckOutcome::StaleAccepted
            }
            _ => AckOutcome::Stale,
        };
        if matches!(outcome, AckOutcome::Accepted | AckOutcome::StaleAccepted) {
            self.schedule_late_redelivery(now, delivery.message);
        }
        outcome
    }

    /// With a replay window, the first ack of a message schedules its one late redelivery.
    fn schedule_late_redelivery(&mut self, now: Tick, id: MessageId) {
        let Some(window) = self.config.late_redelivery_ticks else {
            return;
        };
        if !std::mem::replace(&mut self.late_scheduled[id], true) {
            self.outputs.push_back(BrokerOutput::Timer {
                at: now + window,
                message: id,
                kind: TimerKind::LateRedelivery,
            });
        }
    }

    /// The consumer moves the delivery's message to the dead-letter queue (a reject without
    /// requeue, a move to an `_error` queue). As with an ack, only the latest delivery of a
    /// message can: a stale one changes nothing.
    pub fn handle_dead_letter(&mut self, now: Tick, delivery: &Delivery) -> AckOutcome {
        let id = delivery.message;
        let m = &mut self.messages[id];
        let current = match m.state {
            MessageState::InFlight { attempt, .. } => attempt == delivery.attempt,
            MessageState::Ready => m.deliveries == delivery.attempt && !self.duplicated[id],
            _ => false,
        };
        if !current {
            return match m.state {
                MessageState::Acked { .. } => AckOutcome::AlreadyAcked,
                _ => AckOutcome::Stale,
            };
        }
        if m.state == MessageState::Ready {
            self.ready.retain(|&r| r != id);
        }
        // No `BrokerOutput::DeadLettered`: that tells of the broker giving up after
        // `max_deliveries`; here the consumer moved it, and its own trace entry says so.
        m.state = MessageState::DeadLettered { at: now };
        AckOutcome::Accepted
    }

    /// The consumer rejects the delivery (its processing failed): redeliver it later.
    pub fn handle_nack(&mut self, now: Tick, delivery: &Delivery) {
        let m = &self.messages[delivery.message];
        if matches!(m.state, MessageState::InFlight { attempt, .. } if attempt == delivery.attempt)
        {
            self.schedule_redelivery(now, delivery.message);
        }
    }

    /// `consumer`'s connection dropped: everything it held unacked is redelivered later.
    pub fn handle_consumer_crash(&mut self, now: Tick, consumer: ConsumerId) {
        let held: Vec<MessageId> = (0..self.messages.len())
            .filter(|&id| {
                matches!(self.messages[id].state,
                    MessageState::InFlight { consumer: c, .. } if c == consumer)
            })
            .collect();
        for id in held {
            self.schedule_redelivery(now, id);
        }
    }

    /// A timer asked for by [`BrokerOutput::Timer`] fires. Returns whether it changed
    /// anything (a lease that ended after its ack changes nothing).
    pub fn handle_timer(&mut self, now: Tick, message: MessageId, kind: TimerKind) -> bool {
        let m = &mut self.messages[message];
        let due = match (kind, m.state) {
            // A message can leave its wait before the timer fires (a stale ack accepted
            // meanwhile) and wait again later: only the timer of its current wait is due.
            (TimerKind::Redeliver, MessageState::Redelivering { at }) => at == now,
            (TimerKind::LeaseExpiry { attempt }, MessageState::InFlight { attempt: a, .. }) => {
                attempt == a
            }
            (TimerKind::LateRedelivery, MessageState::Acked { .. }) => {
                self.config.late_redelivery_ticks.is_some()
            }
            _ => false,
        };
        if due {
            self.make_ready(message);
        }
        due
    }

    /// The broker itself delivers `message` again while it is in flight (an at-least-once
    /// broker's own duplicate): it is ready at once, as if its lease had just ended.
    pub fn handle_duplicate_delivery(&mut self, _now: Tick, message: MessageId) -> bool {
        let in_flight = matches!(self.messages[message].state, MessageState::InFlight { .. });
        if in_flight {
            self.duplicated[message] = true;
            self.make_ready(message);
        }
        in_flight
    }

    /// Every dead-lettered message is ready again, with a fresh count of deliveries towards
    /// `max_deliveries`. Returns them, in id order.
    pub fn handle_dead_letter_replay(&mut self, _now: Tick) -> Vec<MessageId> {
        let dead: Vec<MessageId> = (0..self.messages.len())
            .filter(|&id| matches!(self.messages[id].state, MessageState::DeadLettered { .. }))
            .collect();
        for &id in &dead {
            let m = &mut self.messages[id];
            m.dead_letter_replays += 1;
            m.deliveries_before_replay = m.deliveries;
            self.make_ready(id);
        }
        dead
    }

    fn make_ready(&mut self, message: MessageId) {
        self.messages[message].state = MessageState::Ready;
        self.ready.push_back(message);
        self.outputs.push_back(BrokerOutput::Ready { message });
    }

    pub fn poll_output(&mut self) -> Option<BrokerOutput> {
        self.outputs.pop_front()
    }

    fn schedule_redelivery(&mut self, now: Tick, id: MessageId) {
        let m = &mut self.messages[id];
        if self
            .config
            .max_deliveries
            .is_some_and(|max| m.deliveries - m.deliveries_before_replay >= max)
        {
            m.state = MessageState::DeadLettered { at: now };
            self.outputs
                .push_back(BrokerOutput::DeadLettered { message: id });
            return;
        }
        let at = now + self.config.redelivery_delay_ticks + self.jitter();
        self.wait_until(at, id);
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fingerprint::digest_of;

    fn broker() -> QueueBroker {
        QueueBroker::new(BrokerConfig::default(), 0)
    }

    /// A broker that dead-letters a message released a second time.
    fn two_delivery_broker() -> QueueBroker {
        QueueBroker::new(
            BrokerConfig {
                max_deliveries: Some(2),
                ..BrokerConfig::default()
            },
            0,
        )
    }

    fn drain(b: &mut QueueBroker) -> Vec<BrokerOutput> {
        std::iter::from_fn(|| b.poll_output()).collect()
    }

    #[test]
    fn delivers_in_publication_order_with_attempt_numbers() {
        let mut b = broker();
        b.handle_publish(0, 0, 0);
        b.handle_publish(0, 1, 0);
        assert_eq!(drain(&mut b).len(), 2);
        let d0 = b.handle_receive(1, 0).unwrap();
        assert_eq!((d0.event, d0.attempt), (0, 1));
        let d1 = b.handle_receive(1, 0).unwrap();
        assert_eq!((d1.event, d1.attempt), (1, 1));
        assert_eq!(b.handle_receive(1, 0), None);
    }

    #[test]
    fn an_acked_message_is_never_delivered_again() {
        let mut b = broker();
        b.handle_publish(0, 0, 0);
        let d = b.handle_receive(1, 0).unwrap();
        assert_eq!(b.handle_ack(2, &d), AckOutcome::Accepted);
        assert_eq!(b.handle_ack(3, &d), AckOutcome::AlreadyAcked);
        b.handle_consumer_crash(4, 0);
        b.handle_nack(4, &d);
        drain(&mut b);
        assert_eq!(b.handle_receive(100, 0), None);
        assert_eq!(b.messages()[0].state, MessageState::Acked { at: 2 });
    }

    #[test]
    fn a_crash_redelivers_unacked_messages_after_the_delay() {
        let mut b = broker();
        b.handle_publish(0, 0, 0);
        drain(&mut b);
        let d = b.handle_receive(1, 0).unwrap();
        b.handle_consumer_crash(5, 0);
        assert_eq!(
            drain(&mut b),
            vec![BrokerOutput::Timer {
                at: 15,
                message: 0,
                kind: TimerKind::Redeliver
            }]
        );
        assert_eq!(b.handle_receive(6, 0), None, "not ready before the delay");
        b.handle_timer(15, 0, TimerKind::Redeliver);
        assert_eq!(drain(&mut b), vec![BrokerOutput::Ready { message: 0 }]);
        let again = b.handle_receive(15, 0).unwrap();
        assert_eq!((again.message, again.attempt), (0, 2));
        assert_eq!(
            b.handle_ack(16, &d),
            AckOutcome::Stale,
            "the old attempt's ack is stale"
        );
        assert_eq!(b.handle_ack(16, &again), AckOutcome::Accepted);
    }

    #[test]
    fn a_crash_only_releases_that_consumers_messages() {
        let mut b = broker();
        b.handle_publish(0, 0, 0);
        b.handle_publish(0, 1, 0);
        b.handle_receive(1, 0).unwrap();
        b.handle_receive(1, 1).unwrap();
        drain(&mut b);
        b.handle_consumer_crash(2, 1);
        assert_eq!(
            drain(&mut b),
            vec![BrokerOutput::Timer {
                at: 12,
                message: 1,
                kind: TimerKind::Redeliver
            }]
        );
        assert!(matches!(
            b.messages()[0].state,
            MessageState::InFlight { consumer: 0, .. }
        ));
    }

    #[test]
    fn past_max_deliveries_a_released_message_is_dead_lettered() {
        let mut b = two_delivery_broker();
        b.handle_publish(0, 0, 0);
        b.handle_receive(1, 0).unwrap();
        b.handle_consumer_crash(2, 0);
        drain(&mut b);
        b.handle_timer(12, 0, TimerKind::Redeliver);
        drain(&mut b);
        let second = b.handle_receive(12, 0).unwrap();
        assert_eq!(second.attempt, 2, "one crash is absorbed");
        b.handle_consumer_crash(13, 0);
        assert_eq!(
            drain(&mut b),
            vec![BrokerOutput::DeadLettered { message: 0 }]
        );
        assert_eq!(b.messages()[0].state, MessageState::DeadLettered { at: 13 });
        assert_eq!(b.handle_receive(100, 0), None, "never delivered again");
    }

    #[test]
    fn a_dead_letter_replay_makes_parked_messages_ready_with_a_fresh_budget() {
        let mut b = QueueBroker::new(
            BrokerConfig {
                max_deliveries: Some(1),
                replay_dead_letters_at_tick: Some(100),
                ..BrokerConfig::default()
            },
            0,
        );
        assert_eq!(
            drain(&mut b),
            vec![BrokerOutput::DeadLetterReplayTimer { at: 100 }]
        );
        b.handle_publish(0, 0, 0);
        b.handle_publish(0, 1, 0);
        drain(&mut b);
        let first = b.handle_receive(1, 0).unwrap();
        b.handle_nack(2, &first);
        assert_eq!(
            drain(&mut b),
            vec![BrokerOutput::DeadLettered { message: 0 }]
        );
        assert_eq!(b.handle_dead_letter_replay(50), vec![0]);
        assert_eq!(drain(&mut b), vec![BrokerOutput::Ready { message: 0 }]);
        let other = b.handle_receive(51, 0).unwrap();
        assert_eq!(
            other.event, 1,
            "the replayed message queues behind the ready one"
        );
        let again = b.handle_receive(51, 0).unwrap();
        assert_eq!(
            (again.message, again.attempt),
            (0, 2),
            "the same message, its attempts numbered on"
        );
        assert_eq!(b.messages()[0].dead_letter_replays, 1);
        b.handle_nack(52, &again);
        assert!(
            matches!(b.messages()[0].state, MessageState::DeadLettered { .. }),
            "one fresh delivery, then parked again"
        );
        assert_eq!(b.handle_dead_letter_replay(60), vec![0]);
    }

    #[test]
    fn an_expired_lease_hands_the_message_to_another_consumer_while_the_first_works() {
        let mut b = QueueBroker::new(
            BrokerConfig {
                lease_ticks: Some(5),
                ..BrokerConfig::default()
            },
            0,
        );
        b.handle_publish(0, 0, 0);
        drain(&mut b);
        let first = b.handle_receive(1, 0).unwrap();
        let lease = BrokerOutput::Timer {
            at: 6,
            message: 0,
            kind: TimerKind::LeaseExpiry { attempt: 1 },
        };
        assert_eq!(drain(&mut b), vec![lease]);
        assert!(b.handle_timer(6, 0, TimerKind::LeaseExpiry { attempt: 1 }));
        let second = b.handle_receive(6, 1).unwrap();
        assert_eq!(second.attempt, 2);
        assert_eq!(
            b.handle_ack(7, &first),
            AckOutcome::Stale,
            "rejected by default"
        );
        assert_eq!(b.handle_ack(8, &second), AckOutcome::Accepted);
        assert!(
            !b.handle_timer(11, 0, TimerKind::LeaseExpiry { attempt: 2 }),
            "a lease ending after the ack changes nothing"
        );
    }

    #[test]
    fn an_ack_after_the_lease_ended_is_good_until_the_message_is_received_again() {
        let mut b = QueueBroker::new(
            BrokerConfig {
                lease_ticks: Some(2),
                ..BrokerConfig::default()
            },
            0,
        );
        b.handle_publish(0, 0, 0);
        let first = b.handle_receive(1, 0).unwrap();
        assert!(b.handle_timer(3, 0, TimerKind::LeaseExpiry { attempt: 1 }));
        assert_eq!(b.messages()[0].state, MessageState::Ready);
        assert_eq!(
            b.handle_ack(4, &first),
            AckOutcome::Accepted,
            "nobody received it since: the first delivery is still the latest"
        );
        assert_eq!(b.handle_receive(5, 1), None, "taken out of the ready queue");
        assert_eq!(b.messages()[0].state, MessageState::Acked { at: 4 });
    }

    #[test]
    fn an_ack_does_not_take_back_the_brokers_own_duplicate() {
        // Found by the schema walk (tests/it/fields.rs): once an ack after a lease was
        // taken while nobody had received the message since, the same rule swallowed a
        // duplicate the broker had already decided to deliver.
        let mut b = broker();
        b.handle_publish(0, 0, 0);
        let first = b.handle_receive(0, 0).unwrap();
        assert!(b.handle_duplicate_delivery(0, 0));
        assert_eq!(b.handle_ack(5, &first), AckOutcome::Stale);
        let second = b.handle_receive(6, 1).expect("the duplicate is delivered");
        assert_eq!(second.attempt, 2);
        assert_eq!(b.handle_ack(7, &second), AckOutcome::Accepted);
    }

    #[test]
    fn the_timer_of_a_wait_cut_short_by_a_stale_ack_is_not_due_in_a_later_wait() {
        // Found by the pruning property (seed 13, 512 cases, release): acked (stale,
        // accepted) while waiting out its redelivery delay, replayed, released again: the
        // first wait's timer fires during the second wait, which panicked.
        let mut b = QueueBroker::new(
            BrokerConfig {
                stale_ack: StaleAck::Accept,
                late_redelivery_ticks: Some(1),
                redelivery_delay_ticks: 10,
                ..BrokerConfig::default()
            },
            0,
        );
        b.handle_publish(0, 0, 0);
        let first = b.handle_receive(0, 0).unwrap();
        b.handle_nack(1, &first);
        assert_eq!(b.messages()[0].state, MessageState::Redelivering { at: 11 });
        assert_eq!(b.handle_ack(2, &first), AckOutcome::StaleAccepted);
        assert!(b.handle_timer(3, 0, TimerKind::LateRedelivery));
        let second = b.handle_receive(3, 0).unwrap();
        b.handle_nack(4, &second);
        assert_eq!(b.messages()[0].state, MessageState::Redelivering { at: 14 });
        assert!(
            !b.handle_timer(11, 0, TimerKind::Redeliver),
            "the first wait's timer"
        );
        assert!(b.handle_timer(14, 0, TimerKind::Redeliver));
        assert_eq!(b.messages()[0].state, MessageState::Ready);
    }

    #[test]
    fn a_broker_that_accepts_stale_acks_acks_on_the_first_consumers_word() {
        let mut b = QueueBroker::new(
            BrokerConfig {
                lease_ticks: Some(5),
                stale_ack: StaleAck::Accept,
                ..BrokerConfig::default()
            },
            0,
        );
        b.handle_publish(0, 0, 0);
        let first = b.handle_receive(1, 0).unwrap();
        b.handle_timer(6, 0, TimerKind::LeaseExpiry { attempt: 1 });
        let second = b.handle_receive(6, 1).unwrap();
        assert_eq!(b.handle_ack(7, &first), AckOutcome::StaleAccepted);
        assert_eq!(b.handle_ack(8, &second), AckOutcome::AlreadyAcked);
    }

    #[test]
    fn a_duplicate_delivery_makes_an_in_flight_message_ready_again() {
        let mut b = broker();
        b.handle_publish(0, 0, 0);
        let first = b.handle_receive(1, 0).unwrap();
        assert!(b.handle_duplicate_delivery(1, 0));
        let second = b.handle_receive(2, 1).unwrap();
        assert_eq!((first.attempt, second.attempt), (1, 2));
        b.handle_ack(3, &second);
        assert!(
            !b.handle_duplicate_delivery(4, 0),
            "an acked message is never duplicated"
        );
    }

    #[test]
    fn delivery_jitter_reorders_deliveries_the_same_way_for_the_same_seed() {
        let order = |seed| {
            let mut b = QueueBroker::new(
                BrokerConfig {
                    delivery_jitter_ticks: Some(20),
                    ..BrokerConfig::default()
                },
                seed,
            );
            for e in 0..8 {
                b.handle_publish(0, e, 0);
            }
            let mut timers: Vec<(Tick, MessageId)> = Vec::new();
            while let Some(out) = b.poll_output() {
                if let BrokerOutput::Timer { at, message, .. } = out {
                    timers.push((at, message));
                }
            }
            timers.sort();
            for (at, m) in &timers {
                b.handle_timer(*at, *m, TimerKind::Redeliver);
            }
            let mut delivered = Vec::new();
            while let Some(d) = b.handle_receive(100, 0) {
                delivered.push(d.event);
            }
            delivered
        };
        let a = order(1);
        assert_eq!(a.len(), 8);
        assert_eq!(a, order(1));
        assert_ne!(
            a,
            (0..8).collect::<Vec<_>>(),
            "some deliveries overtake others"
        );
    }

    #[test]
    fn with_a_replay_window_an_acked_message_comes_back_once_after_the_window() {
        let mut b = QueueBroker::new(
            BrokerConfig {
                late_redelivery_ticks: Some(30),
                ..BrokerConfig::default()
            },
            0,
        );
        b.handle_publish(0, 0, 0);
        drain(&mut b);
        let first = b.handle_receive(1, 0).unwrap();
        assert_eq!(b.handle_ack(4, &first), AckOutcome::Accepted);
        let late = BrokerOutput::Timer {
            at: 34,
            message: 0,
            kind: TimerKind::LateRedelivery,
        };
        assert_eq!(drain(&mut b), vec![late]);
        assert_eq!(b.handle_receive(20, 0), None, "acked until the window ends");
        assert!(b.handle_timer(34, 0, TimerKind::LateRedelivery));
        assert_eq!(drain(&mut b), vec![BrokerOutput::Ready { message: 0 }]);
        let again = b.handle_receive(34, 0).unwrap();
        assert_eq!((again.message, again.attempt), (0, 2));
        assert_eq!(b.handle_ack(36, &again), AckOutcome::Accepted);
        assert!(
            drain(&mut b).is_empty(),
            "once only: no second late redelivery"
        );
        assert_eq!(b.messages()[0].state, MessageState::Acked { at: 36 });
    }

    #[test]
    fn without_a_replay_window_an_ack_schedules_nothing() {
        let mut b = broker();
        b.handle_publish(0, 0, 0);
        drain(&mut b);
        let d = b.handle_receive(1, 0).unwrap();
        b.handle_ack(2, &d);
        assert!(drain(&mut b).is_empty());
        assert!(
            !b.handle_timer(40, 0, TimerKind::LateRedelivery),
            "a stray late timer changes nothing"
        );
    }

    #[test]
    fn a_nack_redelivers_like_a_crash() {
        let mut b = broker();
        b.handle_publish(0, 3, 1);
        drain(&mut b);
        let d = b.handle_receive(1, 0).unwrap();
        assert_eq!(d.copy, 1);
        b.handle_nack(2, &d);
        assert_eq!(
            drain(&mut b),
            vec![BrokerOutput::Timer {
                at: 12,
                message: 0,
                kind: TimerKind::Redeliver
            }]
        );
    }

    /// The run's `Broker` hands every input to its queue or its log, and answers for the
    /// log where a log has nothing (no timers, no dead letters, no duplicates of its own).
    #[test]
    fn the_broker_dispatches_to_its_queue_or_answers_for_its_log() {
        let drain = |b: &mut Broker| std::iter::from_fn(|| b.poll_output()).count();
        let mut q = Broker::new(
            BrokerConfig {
                max_deliveries: Some(1),
                ..BrokerConfig::default()
            },
            0,
            1,
        );
        let m = q.handle_publish(0, 0, 0, "k");
        assert_eq!(drain(&mut q), 1, "the publication's output comes through");
        let d = q.handle_receive(1, 0).unwrap();
        assert!(q.handle_duplicate_delivery(1, m), "in flight: duplicated");
        let copy = q.handle_receive(1, 0).unwrap();
        assert_eq!((copy.message, copy.attempt), (m, 2));
        assert_eq!(q.handle_ack(2, &copy), AckOutcome::Accepted);
        assert!(!q.handle_duplicate_delivery(3, m), "acked: not duplicated");
        assert_eq!(q.handle_ack(3, &d), AckOutcome::AlreadyAcked);
        // A second message, dead-lettered by a crash past max_deliveries, then replayed.
        let m2 = q.handle_publish(4, 1, 0, "k");
        let _ = q.handle_receive(4, 0).unwrap();
        q.handle_consumer_crash(5, 0);
        q.handle_consumer_restart(6, 0);
        assert!(matches!(
            q.messages()[m2].state,
            MessageState::DeadLettered { .. }
        ));
        drain(&mut q);
        let before = digest_of(&q, 7);
        assert_eq!(q.handle_dead_letter_replay(7), vec![m2]);
        assert_ne!(digest_of(&q, 7), before);
        assert_eq!(q.messages()[m2].state, MessageState::Ready);
        assert_eq!(q.handle_dead_letter_replay(8), Vec::<MessageId>::new());
        let again = q.handle_receive(8, 0).unwrap();
        q.handle_nack(9, &again);
        assert!(
            matches!(q.messages()[m2].state, MessageState::DeadLettered { .. }),
            "the replay's fresh budget of one delivery is spent"
        );
        assert!(
            !q.handle_timer(19, m2, TimerKind::Redeliver),
            "nothing to redeliver"
        );
        let mut timed = Broker::new(BrokerConfig::default(), 0, 1);
        let m = timed.handle_publish(0, 0, 0, "k");
        let _ = timed.handle_receive(1, 0).unwrap();
        timed.handle_consumer_crash(2, 0);
        assert!(
            timed.handle_timer(12, m, TimerKind::Redeliver),
            "ready again"
        );

        let mut log = Broker::new(
            BrokerConfig {
                log: Some(LogConfig::default()),
                ..BrokerConfig::default()
            },
            0,
            1,
        );
        let m = log.handle_publish(0, 0, 0, "k");
        assert!(drain(&mut log) > 0);
        let d = log.handle_receive(1, 0).unwrap();
        assert!(
            !log.handle_duplicate_delivery(1, m),
            "a log does not duplicate"
        );
        assert!(
            !log.handle_timer(1, m, TimerKind::Redeliver),
            "a log has no timers"
        );
        assert_eq!(log.handle_dead_letter_replay(2), Vec::<MessageId>::new());
        // Its only consumer crashes: no owner, nothing to receive until it restarts.
        log.handle_consumer_crash(2, 0);
        assert_eq!(log.handle_receive(3, 0), None);
        let before = digest_of(&log, 3);
        log.handle_consumer_restart(4, 0);
        assert_ne!(digest_of(&log, 4), before, "the restart rebalanced");
        let again = log.handle_receive(4, 0).unwrap();
        assert_eq!((again.message, again.attempt), (m, 2));
        assert_eq!(log.handle_ack(5, &again), AckOutcome::Accepted);
        assert!(matches!(
            log.messages()[m].state,
            MessageState::Acked { .. }
        ));
        let _ = d;
    }

    #[test]
    fn an_ack_for_a_dead_lettered_message_is_stale_even_when_stale_acks_are_accepted() {
        let mut b = QueueBroker::new(
            BrokerConfig {
                max_deliveries: Some(1),
                stale_ack: StaleAck::Accept,
                ..BrokerConfig::default()
            },
            0,
        );
        b.handle_publish(0, 0, 0);
        let d = b.handle_receive(1, 0).unwrap();
        b.handle_consumer_crash(2, 0);
        assert!(matches!(
            b.messages()[0].state,
            MessageState::DeadLettered { at: 2 }
        ));
        assert_eq!(b.handle_ack(3, &d), AckOutcome::Stale);
        assert!(
            matches!(b.messages()[0].state, MessageState::DeadLettered { .. }),
            "parked for a person, not acked by a late consumer"
        );
    }

    #[test]
    fn jitter_draws_every_delay_from_zero_to_its_maximum_inclusive() {
        let mut b = QueueBroker::new(
            BrokerConfig {
                delivery_jitter_ticks: Some(1),
                ..BrokerConfig::default()
            },
            0,
        );
        let mut delays = std::collections::BTreeSet::new();
        for event in 0..40 {
            b.handle_publish(10, event, 0);
            for out in drain(&mut b) {
                match out {
                    BrokerOutput::Ready { .. } => delays.insert(0),
                    BrokerOutput::Timer { at, .. } => delays.insert(at - 10),
                    other => panic!("a publication outputs {other:?}"),
                };
            }
        }
        assert_eq!(delays.into_iter().collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn a_replayed_dead_letter_gets_a_fresh_delivery_budget() {
        let mut b = two_delivery_broker();
        b.handle_publish(0, 0, 0);
        b.handle_receive(1, 0).unwrap();
        b.handle_consumer_crash(2, 0);
        b.handle_timer(12, 0, TimerKind::Redeliver);
        b.handle_receive(12, 0).unwrap();
        b.handle_consumer_crash(13, 0);
        assert!(matches!(
            b.messages()[0].state,
            MessageState::DeadLettered { .. }
        ));
        assert_eq!(b.handle_dead_letter_replay(20), vec![0]);
        b.handle_receive(20, 0).unwrap();
        b.handle_consumer_crash(21, 0);
        assert_eq!(
            b.messages()[0].state,
            MessageState::Redelivering { at: 31 },
            "one delivery since the replay, of two allowed"
        );
        b.handle_timer(31, 0, TimerKind::Redeliver);
        b.handle_receive(31, 0).unwrap();
        b.handle_consumer_crash(32, 0);
        assert!(matches!(
            b.messages()[0].state,
            MessageState::DeadLettered { at: 32 }
        ));
    }

    #[test]
    fn the_fingerprint_is_the_state_relative_to_now() {
        let crashed_at = |t: Tick| {
            let mut b = broker();
            b.handle_publish(t, 0, 0);
            b.handle_receive(t + 1, 0).unwrap();
            b.handle_consumer_crash(t + 2, 0);
            drain(&mut b);
            b
        };
        let early = crashed_at(0);
        let late = crashed_at(100);
        assert_eq!(
            digest_of(&early, 2),
            digest_of(&late, 102),
            "shifted in time"
        );
        assert_ne!(digest_of(&early, 2), digest_of(&early, 3));
        let mut acked = broker();
        acked.handle_publish(0, 0, 0);
        let d = acked.handle_receive(1, 0).unwrap();
        acked.handle_ack(2, &d);
        assert_ne!(digest_of(&acked, 2), digest_of(&early, 2));
        // When it was acked is history: two brokers acked at different times, seen at
        // the same distance from their publication, are the same.
        let acked_at = |ack: Tick| {
            let mut b = broker();
            b.handle_publish(0, 0, 0);
            let d = b.handle_receive(1, 0).unwrap();
            b.handle_ack(ack, &d);
            drain(&mut b);
            b
        };
        assert_eq!(digest_of(&acked_at(2), 9), digest_of(&acked_at(5), 9));
        // A dead letter, before and after its replay.
        let mut dead = QueueBroker::new(
            BrokerConfig {
                max_deliveries: Some(1),
                ..BrokerConfig::default()
            },
            0,
        );
        dead.handle_publish(0, 0, 0);
        dead.handle_receive(1, 0).unwrap();
        dead.handle_consumer_crash(2, 0);
        let parked = digest_of(&dead, 2);
        dead.handle_dead_letter_replay(3);
        assert_ne!(
            digest_of(&dead, 3),
            parked,
            "replayed: ready again, counted afresh"
        );
    }

    #[test]
    fn the_fingerprint_sees_the_random_stream_and_undrained_outputs() {
        let jittery = || {
            QueueBroker::new(
                BrokerConfig {
                    delivery_jitter_ticks: Some(5),
                    ..BrokerConfig::default()
                },
                0,
            )
        };
        let (mut a, b) = (jittery(), jittery());
        let _ = a.rng.next_u64();
        assert_ne!(digest_of(&a, 0), digest_of(&b, 0), "one draw further");
        let (mut with, mut without) = (broker(), broker());
        with.handle_publish(0, 0, 0);
        without.handle_publish(0, 0, 0);
        drain(&mut without);
        assert_ne!(
            digest_of(&with, 0),
            digest_of(&without, 0),
            "a Ready still to drain"
        );
    }
}
