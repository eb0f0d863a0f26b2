//! An occurrence of a step that a run never reaches (`after:commit#3` in a protocol with
//! two commits), as data: the scenario checker refuses it in a crash point or a fault, and
//! `run --crash` on the command line.

use crate::model::{Boundary, Protocol, Step, StepActor};

/// Why a run never reaches an occurrence of a step it runs. `what` is the text the user
/// wrote (`after:commit#3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unreached {
    /// The consumer's protocol runs the step fewer times than the occurrence numbers.
    Repeats {
        what: String,
        step: Step,
        protocol: String,
        /// How many times one attempt runs the step.
        count: usize,
        /// The protocol's steps, as `receive → begin → …`.
        steps: String,
        /// The attempts the error policy allows (1 without retries).
        attempts: u16,
        /// The last occurrence a delivery reaches, over all its attempts.
        last: usize,
    },
    /// Another actor's step, which runs once per event.
    Once {
        what: String,
        step: Step,
        actor: StepActor,
    },
}

/// Why a run never reaches the `nth` occurrence of `step` although it runs the step: the
/// protocol does not repeat it that often (`commit#3` with two commits), or the step is
/// another actor's, whose steps do not repeat. `what` is the text the user wrote
/// (`after:commit#3`). `None` when the occurrence exists.
pub fn missing_occurrence(
    protocol: &Protocol,
    step: Step,
    nth: u8,
    what: &str,
) -> Option<Unreached> {
    let boundary = Boundary::before(step).nth(nth);
    let reached = match step.actor() {
        StepActor::Consumer => protocol.has_boundary(boundary),
        _ => nth == 1,
    };
    if reached {
        return None;
    }
    let count = protocol
        .body_count(step)
        .max(usize::from(step == Step::DeadLetter));
    let attempts = protocol.on_error.attempts();
    Some(match step.actor() {
        StepActor::Consumer => Unreached::Repeats {
            what: what.to_string(),
            step,
            protocol: protocol.name.clone(),
            count,
            steps: protocol.arrow_list(),
            attempts,
            last: count + protocol.round_offset(step) * usize::from(attempts - 1),
        },
        actor => Unreached::Once {
            what: what.to_string(),
            step,
            actor,
        },
    })
}
