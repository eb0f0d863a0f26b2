//! What every process of a run is to the executor: a sans-IO state machine that says what
//! it wants done next, takes the answer, and holds all of its volatile state itself.
//!
//! The split is stateright's: a process's own struct is everything a crash loses (the
//! delivery or request or row in hand, a step half done: [`HalfDone`](super::HalfDone)); what survives is
//! elsewhere (committed rows in the store, messages in the broker). So a crash is one call,
//! [`Host::handle_crash`], and a restart another; the executor (`world`) performs the
//! commands, asks the fault injector at the boundaries, and never keeps a process's state
//! for it.

/// A process the executor drives: the consumer, the producer, a relay.
pub trait Host {
    /// What the process wants done.
    type Command;
    /// What the executor answers after doing it.
    type Answer;

    /// The next command, or `None` while the process waits (for work, or a restart). A
    /// command carries what of its step is already done, when the step takes more than one
    /// turn: the executor resumes the step from the command, never from the process's
    /// fields.
    fn poll_command(&self) -> Option<Self::Command>;

    /// The answer to the command [`Host::poll_command`] last returned. The process updates
    /// its own half-done step from it: a step answered busy goes on next turn, past its
    /// "before" boundary; any other answer ends the step.
    fn handle_answer(&mut self, answer: Self::Answer);

    /// The step in hand stopped at its "before" boundary (a stall): its next turn goes on
    /// past that boundary, holding everything it holds now.
    fn handle_stall(&mut self);

    /// The process dies: all of its volatile state is lost, the step in hand included.
    fn handle_crash(&mut self);

    /// The process starts again, empty.
    fn handle_restart(&mut self);
}
