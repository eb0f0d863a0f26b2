//! A relay: the process that drains an outbox table. It reads the oldest unsent row,
//! sends it on (the producer's relay publishes an event to the broker; the email relay
//! hands an email to the mail service), then marks the row sent.
//!
//! A sans-IO state machine. Its two steps are crash points: a crash after sending and
//! before marking sends the same row again after the restart, which is why whatever
//! receives from a relay must recognise a repeat (the consumer's inbox by `event_id`, the
//! mail service by an idempotency key). The relay reads only committed rows, through its
//! own connection, so it never sends something whose transaction rolls back.

use crate::model::{EventIndex, HalfDone, Host, Step};

/// Which outbox a relay drains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RelayKind {
    /// The producer's `outbox`, to the broker.
    Events,
    /// The consumer's `email_outbox`, to the mail service.
    Emails,
}

impl RelayKind {
    /// The relay's (send, mark) steps.
    pub fn steps(self) -> (Step, Step) {
        match self {
            RelayKind::Events => (Step::RelayPublish, Step::MarkSent),
            RelayKind::Emails => (Step::SendEmail, Step::MarkEmailSent),
        }
    }
}

/// What the relay wants done next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayCommand {
    pub action: RelayAction,
    /// What of this step is already done (a mark answered busy, or a step stalled at its
    /// "before" boundary, goes on past that boundary).
    pub resume: HalfDone,
}

/// The relay's two steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayAction {
    /// Read the oldest unsent row and send it.
    Send,
    /// Mark row `row` (for event `event`) sent.
    Mark { row: i64, event: EventIndex },
}

/// The answer to a relay command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayResult {
    /// `Send`: row `row`, for event `event`, was sent.
    Sent { row: i64, event: EventIndex },
    /// `Send`: no unsent row; the relay waits to be woken.
    Empty,
    /// `Send`: row `row` reached the broker, but its confirmation timed out: the row stays
    /// unsent, and the relay sends it again (a duplicate the consumer must recognise).
    TimedOut,
    /// `Mark`: done.
    Marked,
    /// SQLite answered busy: the same command again later.
    Busy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    Idle,
    Waiting,
    Holding { row: i64, event: EventIndex },
    Down,
}

#[derive(Clone, Debug)]
pub struct Relay {
    pub kind: RelayKind,
    phase: Phase,
    /// The step in hand, if SQLite answered busy to it: what of it already happened.
    half_done: HalfDone,
}

impl crate::sim::Fingerprint for Relay {
    fn fingerprint(&self, _now: crate::model::Tick, h: &mut crate::sim::StateHasher) {
        let Relay {
            kind,
            phase,
            half_done,
        } = self;
        h.value(&(kind, phase, half_done));
    }
}

impl Relay {
    pub fn new(kind: RelayKind) -> Relay {
        Relay {
            kind,
            phase: Phase::Idle,
            half_done: HalfDone::default(),
        }
    }

    /// The step the next command is, for crash points.
    pub fn next_step(&self) -> Option<Step> {
        let (send, mark) = self.kind.steps();
        self.poll_command().map(|c| match c.action {
            RelayAction::Send => send,
            RelayAction::Mark { .. } => mark,
        })
    }

    /// New rows were committed. Returns whether the relay wants a turn.
    pub fn handle_wake(&mut self) -> bool {
        if self.phase == Phase::Waiting {
            self.phase = Phase::Idle;
            true
        } else {
            false
        }
    }
}

impl Host for Relay {
    type Command = RelayCommand;
    type Answer = RelayResult;

    /// The next command, or `None` while waiting for rows or a restart.
    fn poll_command(&self) -> Option<RelayCommand> {
        let action = match self.phase {
            Phase::Idle => RelayAction::Send,
            Phase::Holding { row, event } => RelayAction::Mark { row, event },
            Phase::Waiting | Phase::Down => return None,
        };
        Some(RelayCommand {
            action,
            resume: self.half_done,
        })
    }

    /// A mark answered busy goes on next turn, past its "before" boundary; any other
    /// answer ends the step.
    fn handle_answer(&mut self, result: RelayResult) {
        let command = self.poll_command().expect("a result answers a command");
        self.half_done = HalfDone {
            past_before: result == RelayResult::Busy,
            ..HalfDone::default()
        };
        self.phase = match (command.action, result) {
            (_, RelayResult::Busy) => self.phase,
            (RelayAction::Send, RelayResult::Sent { row, event }) => Phase::Holding { row, event },
            (RelayAction::Send, RelayResult::Empty) => Phase::Waiting,
            (RelayAction::Send, RelayResult::TimedOut) => Phase::Idle,
            (RelayAction::Mark { .. }, RelayResult::Marked) => Phase::Idle,
            (action, result) => panic!("{action:?} answered with {result:?}"),
        };
    }

    /// The process dies: the row in hand is forgotten (it is still unsent in the table).
    fn handle_crash(&mut self) {
        assert_ne!(self.phase, Phase::Down, "a dead relay cannot crash");
        self.half_done = HalfDone::default();
        self.phase = Phase::Down;
    }

    /// The process is back and starts from the table again.
    fn handle_restart(&mut self) {
        assert_eq!(self.phase, Phase::Down, "only a crashed relay restarts");
        self.phase = Phase::Idle;
    }

    fn handle_stall(&mut self) {
        self.half_done.past_before = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relay_sends_marks_and_waits_when_the_table_is_empty() {
        let mut r = Relay::new(RelayKind::Events);
        assert_eq!(r.next_step(), Some(Step::RelayPublish));
        r.handle_answer(RelayResult::Sent { row: 7, event: 2 });
        assert_eq!(
            r.poll_command().map(|c| c.action),
            Some(RelayAction::Mark { row: 7, event: 2 })
        );
        assert_eq!(r.next_step(), Some(Step::MarkSent));
        r.handle_answer(RelayResult::Marked);
        r.handle_answer(RelayResult::Empty);
        assert_eq!(r.poll_command(), None);
        assert!(r.handle_wake());
        assert!(!r.handle_wake(), "already awake");
    }

    #[test]
    fn a_crash_between_send_and_mark_sends_the_row_again() {
        let mut r = Relay::new(RelayKind::Emails);
        r.handle_answer(RelayResult::Sent { row: 1, event: 0 });
        r.handle_crash();
        assert_eq!(r.poll_command(), None);
        r.handle_restart();
        assert_eq!(r.poll_command().map(|c| c.action), Some(RelayAction::Send));
        assert_eq!(r.next_step(), Some(Step::SendEmail));
    }
}
