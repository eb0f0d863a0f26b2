//! What can be wrong in a protocol's error policy (`scenario::validate::policy`).

use crate::model::{PolicyError, Step};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The policy does not fit its protocol.
    DoesNotFit(PolicyError),
    /// More compensating steps than a protocol may have.
    TooManySteps { max: usize },
    /// A compensating SQL step named as a step of the protocol.
    NameOfTheProtocol { step: Step },
    /// A named policy, as written, that is none of the known ones.
    UnknownGiveUp { name: String },
    /// `dead_letter` on a log broker.
    DeadLetterOnLog,
}
