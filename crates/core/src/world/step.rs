//! The one step every process takes: the consumer's, the producer's and the relays' steps
//! all go through [`World::step`], which passes the step's "before" boundary (unless the
//! step is half done past it), has the step performed, hands the process its answer, and
//! passes its "after" boundary when the step completed. It is where the fault injector is
//! asked about a step: at each boundary whether the process crashes there (then the crash
//! is carried out, `world::crash`) or stalls there, and once before the step is performed
//! what faults the step meets ([`StepFaults`]). What differs between processes (where
//! their points are, what their commands do) is each one's [`ProcessStep`].

use super::crash::Process;
use super::*;

/// One step of one process, as [`World::step`] drives it.
pub(super) trait ProcessStep {
    /// What performing the step gives back, for the process.
    type Answer: Copy;

    /// Whose step it is.
    fn process(&self) -> Process;

    /// What of the step the process already did, as its command said (see [`HalfDone`]):
    /// a step past its "before" boundary does not reach that point again.
    fn resume(&self) -> HalfDone;

    /// The step's "before" boundary point; its "after" point is the same point's other
    /// side (a publication's "after" point counts the publication it just made by name
    /// only: the copy named at "before").
    fn before(&self) -> BoundaryPoint;

    /// The message in hand, for a consumer: a crash there records what the broker holds
    /// of it.
    fn message(&self) -> Option<MessageId> {
        None
    }

    /// What the step asks the fault injector before it is performed, if anything.
    fn query<'s>(&'s self, w: &World, now: Tick) -> Option<StepQuery<'s>>;

    /// Performs the step against the broker, a store or the outside world, meeting
    /// `faults`, and records its trace entries.
    fn perform(&mut self, w: &mut World, now: Tick, faults: StepFaults) -> Self::Answer;

    /// Hands `answer` to the process, with what follows from it. Returns whether the step
    /// completed (then it reaches its "after" boundary): a step answered busy goes on next
    /// turn, and a failed or refused step did not happen.
    fn answer(&mut self, w: &mut World, now: Tick, answer: Self::Answer) -> bool;
}

/// How a step ended: the process's next turn is scheduled by its caller after `Done`
/// only (a crash schedules the restart, a stall the turn after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StepEnd {
    Done,
    Crashed,
    Stalled,
}

impl World<'_> {
    /// One step of a process: before-boundary, perform, answer, after-boundary.
    pub(super) fn step<S: ProcessStep>(&mut self, now: Tick, s: &mut S) -> StepEnd {
        let p = s.process();
        let before = s.before();
        if !s.resume().past_before {
            match self.reach(now, p, before, s.message()) {
                StepEnd::Done => {}
                StepEnd::Stalled => {
                    self.stall_process(p);
                    return StepEnd::Stalled;
                }
                crashed => return crashed,
            }
        }
        let faults = match s.query(self, now) {
            Some(query) => self.faults.step_faults(query),
            None => StepFaults::default(),
        };
        let answer = s.perform(self, now, faults);
        if !s.answer(self, now, answer) {
            return StepEnd::Done;
        }
        let after = BoundaryPoint {
            boundary: before.boundary.opposite(),
            ..before
        };
        self.reach(now, p, after, s.message())
    }

    /// Process `p` reached `point`: crashed there if the fault injector says so, else
    /// stalled there if the plan says so (its next turn comes later, with everything it
    /// holds still held).
    fn reach(
        &mut self,
        now: Tick,
        p: Process,
        point: BoundaryPoint,
        message: Option<MessageId>,
    ) -> StepEnd {
        self.reached(p, point);
        if let Some(cause) = self.faults.crash_at(&point) {
            self.crash(now, p, point, message, cause);
            return StepEnd::Crashed;
        }
        let Some(ticks) = self.faults.stall_at(&point) else {
            return StepEnd::Done;
        };
        let stall = TraceKind::Stall {
            boundary: point.boundary,
            ticks,
        };
        self.record_at(now, p, Some(&point), stall);
        let turn = match p {
            Process::Consumer(c) => Occurrence::ConsumerTurn(c),
            Process::Producer => Occurrence::ProducerTurn,
            Process::Relay(r) => Occurrence::RelayTurn(r),
        };
        self.queue.push(now + ticks, turn);
        StepEnd::Stalled
    }

    /// `p` stalled at its step's "before" boundary: it goes on past it next turn.
    fn stall_process(&mut self, p: Process) {
        match p {
            Process::Consumer(c) => self.consumers[c].handle_stall(),
            Process::Producer => self
                .producer
                .as_mut()
                .expect("a producer steps")
                .handle_stall(),
            Process::Relay(r) => self.relays[r].handle_stall(),
        }
    }
}
