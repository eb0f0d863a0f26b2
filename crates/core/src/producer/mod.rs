//! The producer: the service that records each transfer in its own database and publishes
//! its event, in one of the ways the course compares.
//!
//! A sans-IO state machine and a [`Host`], like the consumer. It works through the
//! workload's intents (one transfer request each) in order; [`Host::poll_command`] says
//! which step it wants next for which intent, whoever drives it performs that against the
//! producer's database or the broker and answers with [`Host::handle_answer`]. A crash
//! loses the request in hand and the open transaction; with `retry` the client, having had
//! no answer, sends the same request again after the restart.
//!
//! - `direct`: the event is simply in the broker from the start (no producer database);
//!   every earlier scenario uses it.
//! - `commit_then_publish` and `publish_then_commit`: the dual write. A crash between the
//!   two loses the intent (committed, never published) or leaves a ghost event (published,
//!   rolled back).
//! - `outbox`: the event is written to an outbox table in the transfer's own transaction; a
//!   relay ([`crate::relay`]) publishes committed rows and marks them sent.

use crate::model::{EventIndex, HalfDone, Host, Step};
use serde::{Deserialize, Serialize};

/// How the producer gets an event from its database to the broker.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ProducerMode {
    /// No producer process: every event is in the broker at tick 0.
    #[default]
    Direct,
    /// Dual write: commit the transfer, then publish.
    CommitThenPublish,
    /// Dual write: publish, then commit the transfer.
    PublishThenCommit,
    /// Transactional outbox: the event row commits with the transfer; a relay publishes it.
    Outbox,
}

impl ProducerMode {
    pub fn name(self) -> &'static str {
        match self {
            ProducerMode::Direct => "direct",
            ProducerMode::CommitThenPublish => "commit_then_publish",
            ProducerMode::PublishThenCommit => "publish_then_commit",
            ProducerMode::Outbox => "outbox",
        }
    }

    /// The producer's steps for one request, in order (none for `direct`).
    pub fn steps(self) -> &'static [Step] {
        match self {
            ProducerMode::Direct => &[],
            ProducerMode::CommitThenPublish => {
                &[Step::InsertTransfer, Step::CommitTransfer, Step::Publish]
            }
            ProducerMode::PublishThenCommit => {
                &[Step::InsertTransfer, Step::Publish, Step::CommitTransfer]
            }
            ProducerMode::Outbox => &[Step::InsertTransfer, Step::CommitTransfer],
        }
    }
}

/// Where an event's identity comes from.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Identity {
    /// One `event_id` per intent, reused by every publication of it: a consumer's inbox
    /// recognises a republished event.
    #[default]
    Stable,
    /// A fresh `event_id` at every publication (a retried request, a relay that mints ids
    /// when it publishes): each is a new event to the inbox, though the intent is one.
    PerAttempt,
}

/// Which database file holds the producer's tables.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ProducerDatabase {
    /// A database of its own, as a separate service would have.
    #[default]
    Own,
    /// The consumer's database file (its own connection): one service writing and
    /// consuming.
    Shared,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ProducerConfig {
    pub mode: ProducerMode,
    pub identity: Identity,
    pub database: ProducerDatabase,
    /// After a producer crash the client retries the request it got no answer for.
    pub retry: bool,
}

impl Default for ProducerConfig {
    fn default() -> Self {
        ProducerConfig {
            mode: ProducerMode::Direct,
            identity: Identity::Stable,
            database: ProducerDatabase::Own,
            retry: true,
        }
    }
}

impl ProducerConfig {
    /// Whether a producer process runs at all.
    pub fn active(&self) -> bool {
        self.mode != ProducerMode::Direct
    }
}

/// What the producer wants done next: `step` for intent `intent`, in the request's
/// `attempt`-th try (1 = first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProducerCommand {
    pub step: Step,
    pub intent: EventIndex,
    pub attempt: u32,
    /// What of this step is already done (a step answered busy, or stalled at its "before"
    /// boundary, goes on past that boundary).
    pub resume: HalfDone,
}

/// The answer to a producer command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProducerResult {
    /// The step did what it says.
    Done,
    /// `insert_transfer` found the transfer already committed: the request is answered
    /// from what is stored, and nothing more is done for it.
    AlreadyRecorded,
    /// SQLite answered busy: nothing happened; the same step runs again later.
    Busy,
    /// `publish` reached the broker but the confirmation did not reach the producer: it
    /// publishes again.
    Timeout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    Working,
    Down,
    Finished,
}

/// The producer's volatile state.
#[derive(Clone, Debug)]
pub struct Producer {
    mode: ProducerMode,
    retry: bool,
    intents: Vec<EventIndex>,
    /// Position in `intents`.
    next: usize,
    /// Index of the next step of the current request.
    step: usize,
    attempt: u32,
    /// Whether the request in hand has had any step answered (so a crash interrupts it).
    started: bool,
    phase: Phase,
    /// The step in hand, if SQLite answered busy to it: what of it already happened.
    half_done: HalfDone,
}

impl crate::sim::Fingerprint for Producer {
    fn fingerprint(&self, _now: crate::model::Tick, h: &mut crate::sim::StateHasher) {
        let Producer {
            mode: _,  // Configuration: the same for every run of a scenario.
            retry: _, // Configuration.
            intents,
            next,
            step,
            attempt,
            started,
            phase,
            half_done,
        } = self;
        h.value(&(intents, next, step, attempt, started, phase, half_done));
    }
}

impl Producer {
    /// A producer for the requests `intents` (workload events, in order).
    pub fn new(config: &ProducerConfig, intents: Vec<EventIndex>) -> Producer {
        assert!(config.active(), "a direct producer has no process");
        let phase = if intents.is_empty() {
            Phase::Finished
        } else {
            Phase::Working
        };
        Producer {
            mode: config.mode,
            retry: config.retry,
            intents,
            next: 0,
            step: 0,
            attempt: 1,
            started: false,
            phase,
            half_done: HalfDone::default(),
        }
    }

    /// The position of the request in hand among all requests (0 = the first).
    pub fn request(&self) -> usize {
        self.next
    }

    /// Whether every request has been handled.
    pub fn finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    fn next_request(&mut self) {
        self.next += 1;
        self.step = 0;
        self.attempt = 1;
        self.started = false;
        if self.next == self.intents.len() {
            self.phase = Phase::Finished;
        }
    }
}

impl Host for Producer {
    type Command = ProducerCommand;
    type Answer = ProducerResult;

    fn poll_command(&self) -> Option<ProducerCommand> {
        (self.phase == Phase::Working).then(|| ProducerCommand {
            step: self.mode.steps()[self.step],
            intent: self.intents[self.next],
            attempt: self.attempt,
            resume: self.half_done,
        })
    }

    /// A step answered busy goes on next turn, past its "before" boundary; any other
    /// answer ends it.
    fn handle_answer(&mut self, result: ProducerResult) {
        let command = self.poll_command().expect("a result answers a command");
        self.started = true;
        self.half_done = HalfDone {
            past_before: result == ProducerResult::Busy,
            ..HalfDone::default()
        };
        match result {
            ProducerResult::Busy | ProducerResult::Timeout => {} // The same step again.
            ProducerResult::AlreadyRecorded => {
                assert_eq!(command.step, Step::InsertTransfer);
                self.next_request();
            }
            ProducerResult::Done => {
                self.step += 1;
                if self.step == self.mode.steps().len() {
                    self.next_request();
                }
            }
        }
    }

    /// The process dies, losing the request in hand (if it had started one; a crash right
    /// after a request's last step interrupts nothing).
    fn handle_crash(&mut self) {
        assert_ne!(self.phase, Phase::Down, "a dead producer cannot crash");
        self.half_done = HalfDone::default();
        self.phase = Phase::Down;
    }

    /// The process is back. With `retry`, the client sends the interrupted request again
    /// (from its first step); without, that request is given up and the next one comes.
    fn handle_restart(&mut self) {
        assert_eq!(self.phase, Phase::Down, "only a crashed producer restarts");
        if self.next == self.intents.len() {
            self.phase = Phase::Finished;
            return;
        }
        self.phase = Phase::Working;
        if !self.started {
            return;
        }
        if self.retry {
            self.step = 0;
            self.started = false;
            self.attempt += 1;
        } else {
            self.next_request();
        }
    }

    fn handle_stall(&mut self) {
        self.half_done.past_before = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn producer(mode: ProducerMode, retry: bool) -> Producer {
        let config = ProducerConfig {
            mode,
            retry,
            ..ProducerConfig::default()
        };
        Producer::new(&config, vec![0, 1])
    }

    fn steps(p: &mut Producer, results: &[ProducerResult]) -> Vec<(Step, EventIndex, u32)> {
        results
            .iter()
            .map(|r| {
                let c = p.poll_command().expect("a command");
                p.handle_answer(*r);
                (c.step, c.intent, c.attempt)
            })
            .collect()
    }

    #[test]
    fn a_dual_write_runs_its_steps_per_request_in_order() {
        use ProducerResult::Done;
        let mut p = producer(ProducerMode::CommitThenPublish, true);
        let got = steps(&mut p, &[Done; 6]);
        assert_eq!(
            got.iter().map(|s| (s.0.name(), s.1)).collect::<Vec<_>>(),
            [
                ("insert_transfer", 0),
                ("commit_transfer", 0),
                ("publish", 0),
                ("insert_transfer", 1),
                ("commit_transfer", 1),
                ("publish", 1),
            ]
        );
        assert!(p.finished() && p.poll_command().is_none());
    }

    #[test]
    fn a_crash_with_retry_starts_the_same_request_again_as_a_new_attempt() {
        use ProducerResult::*;
        let mut p = producer(ProducerMode::PublishThenCommit, true);
        steps(&mut p, &[Done, Done]); // insert, publish
        p.handle_crash();
        assert_eq!(p.poll_command(), None, "down");
        p.handle_restart();
        let c = p.poll_command().unwrap();
        assert_eq!((c.step, c.intent, c.attempt), (Step::InsertTransfer, 0, 2));
        // The retried request finds its transfer committed: answered, nothing published.
        p.handle_answer(AlreadyRecorded);
        assert_eq!(p.poll_command().unwrap().intent, 1);
    }

    #[test]
    fn a_crash_between_requests_interrupts_nothing() {
        use ProducerResult::Done;
        let mut p = producer(ProducerMode::Outbox, true);
        steps(&mut p, &[Done, Done]);
        p.handle_crash();
        p.handle_restart();
        let c = p.poll_command().unwrap();
        assert_eq!((c.step, c.intent, c.attempt), (Step::InsertTransfer, 1, 1));
        steps(&mut p, &[Done, Done]);
        p.handle_crash();
        p.handle_restart();
        assert!(
            p.finished(),
            "a crash after the last request leaves nothing to do"
        );
    }

    #[test]
    fn a_crash_without_retry_gives_the_request_up() {
        let mut p = producer(ProducerMode::Outbox, false);
        p.handle_answer(ProducerResult::Done);
        p.handle_crash();
        p.handle_restart();
        let c = p.poll_command().unwrap();
        assert_eq!((c.step, c.intent, c.attempt), (Step::InsertTransfer, 1, 1));
    }

    #[test]
    fn busy_and_timeout_repeat_the_step() {
        use ProducerResult::*;
        let mut p = producer(ProducerMode::CommitThenPublish, true);
        let got = steps(&mut p, &[Busy, Done, Done, Timeout, Done]);
        let names: Vec<_> = got.iter().map(|s| s.0.name()).collect();
        assert_eq!(
            names,
            [
                "insert_transfer",
                "insert_transfer",
                "commit_transfer",
                "publish",
                "publish"
            ]
        );
    }
}
