//! The broker's output topic: messages consumers produce downstream (`TransferApplied`),
//! and, with `transactional`, the broker-side exactly-once some brokers offer: a consumer's
//! outputs and its ack commit together, atomically, inside the broker, or not at all.
//!
//! The point of modelling it is its boundary. The broker's transaction covers what the
//! broker holds (the outputs and the consumed position); the consumer's database effect is
//! outside it, so a crash between the database commit and the broker commit still repeats
//! the database effect on redelivery, while the output topic shows the message once.

use crate::model::{ConsumerId, EventIndex};
use serde::Serialize;

/// Where an output message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputState {
    /// Produced inside an open broker transaction: invisible to readers until it commits.
    Staged,
    /// Visible to downstream readers.
    Committed,
    /// Its transaction aborted (the consumer crashed or its ack was refused): never visible.
    Aborted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub struct OutputRecord {
    pub event: EventIndex,
    pub consumer: ConsumerId,
    pub state: OutputState,
}

/// The output topic, sans-IO like the rest of the broker.
#[derive(Clone, Debug, Default)]
pub struct OutputTopic {
    transactional: bool,
    records: Vec<OutputRecord>,
}

impl crate::sim::Fingerprint for OutputTopic {
    fn fingerprint(&self, _now: crate::model::Tick, h: &mut crate::sim::StateHasher) {
        let OutputTopic {
            transactional: _, // Configuration: the same for every run of a scenario.
            records,
        } = self;
        h.value(records);
    }
}

impl OutputTopic {
    pub fn new(transactional: bool) -> OutputTopic {
        OutputTopic {
            transactional,
            records: Vec::new(),
        }
    }

    /// A consumer produces an output for `event`; returns its state (staged in a
    /// transaction, or committed at once without one).
    pub fn handle_produce(&mut self, consumer: ConsumerId, event: EventIndex) -> OutputState {
        let state = if self.transactional {
            OutputState::Staged
        } else {
            OutputState::Committed
        };
        self.records.push(OutputRecord {
            event,
            consumer,
            state,
        });
        state
    }

    /// The consumer's ack was accepted: with a transactional broker, its staged outputs
    /// commit with it. Returns how many did.
    pub fn handle_ack_accepted(&mut self, consumer: ConsumerId) -> usize {
        self.settle(consumer, OutputState::Committed)
    }

    /// The consumer's transaction ends without an accepted ack (a crash, a refused ack, a
    /// rejection): its staged outputs are discarded. Returns how many were.
    pub fn handle_abort(&mut self, consumer: ConsumerId) -> usize {
        self.settle(consumer, OutputState::Aborted)
    }

    fn settle(&mut self, consumer: ConsumerId, to: OutputState) -> usize {
        let mut n = 0;
        for r in &mut self.records {
            if r.consumer == consumer && r.state == OutputState::Staged {
                r.state = to;
                n += 1;
            }
        }
        n
    }

    /// Committed outputs per event, for the first `events` events.
    pub fn committed_per_event(&self, events: usize) -> Vec<u32> {
        let mut out = vec![0; events];
        for r in &self.records {
            if r.state == OutputState::Committed {
                out[r.event] += 1;
            }
        }
        out
    }

    pub fn records(&self) -> &[OutputRecord] {
        &self.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_transaction_an_output_is_visible_at_once_and_survives_a_crash() {
        let mut t = OutputTopic::new(false);
        assert_eq!(t.handle_produce(0, 0), OutputState::Committed);
        assert_eq!(t.handle_abort(0), 0);
        t.handle_produce(0, 0); // redelivered after the crash: produced again
        assert_eq!(t.committed_per_event(1), [2]);
    }

    #[test]
    fn a_transactional_output_commits_with_the_ack_or_not_at_all() {
        let mut t = OutputTopic::new(true);
        assert_eq!(t.handle_produce(0, 0), OutputState::Staged);
        assert_eq!(t.committed_per_event(1), [0], "invisible while staged");
        assert_eq!(t.handle_abort(0), 1, "the crash aborts it");
        t.handle_produce(1, 0);
        t.handle_produce(0, 1);
        assert_eq!(t.handle_ack_accepted(1), 1, "only consumer 1's outputs");
        assert_eq!(t.committed_per_event(2), [1, 0]);
    }

    #[test]
    fn the_topic_keeps_every_record_in_order_aborted_ones_included() {
        // The report draws the output lane from these records, so an aborted output must
        // stay listed (it was produced, then discarded) rather than vanish.
        let mut t = OutputTopic::new(true);
        t.handle_produce(0, 0);
        t.handle_abort(0);
        t.handle_produce(1, 0);
        t.handle_ack_accepted(1);
        t.handle_produce(0, 1);
        let record = |event, consumer, state| OutputRecord {
            event,
            consumer,
            state,
        };
        assert_eq!(
            t.records(),
            [
                record(0, 0, OutputState::Aborted),
                record(0, 1, OutputState::Committed),
                record(1, 0, OutputState::Staged),
            ]
        );
    }
}
