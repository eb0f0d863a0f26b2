//! The parameters of [`StoreOp::ApplyEffect`] as one value, which each engine's
//! `apply_effect` (SQLite's and PostgreSQL's) and `crosscheck`'s wire take as it is.

use super::StoreOp;
use crate::model::Event;

/// The parameters of a [`StoreOp::ApplyEffect`] as one value, the event borrowed (`&Event`,
/// what each engine's `apply_effect` takes) or owned (`Event`, what `crosscheck` sends over
/// the wire): the five fields are listed here once rather than in every engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EffectArgs<E> {
    pub event: E,
    /// The debit runs and the credit fails (the seeds' "applyCredit fails").
    pub fail_credit: bool,
    /// Statements of it that already ran before SQLite answered busy (outside a
    /// transaction each statement commits on its own, so a retry must not repeat them).
    pub done: u8,
    /// With [`super::EffectMode::ReadModifyWrite`]: the (source, target) balances read on
    /// the step's first turn; `None` on that first turn.
    pub read: Option<(i64, i64)>,
    /// Record the transfer in `transfer_state` (the lifecycle workload needs it; the plain
    /// workload skips the statement).
    pub track_transfer: bool,
}

impl<E: std::borrow::Borrow<Event>> EffectArgs<E> {
    /// The same effect with the event made by `f` (from borrowed to owned, for the wire).
    pub fn map<F>(self, f: impl FnOnce(E) -> F) -> EffectArgs<F> {
        EffectArgs {
            event: f(self.event),
            fail_credit: self.fail_credit,
            done: self.done,
            read: self.read,
            track_transfer: self.track_transfer,
        }
    }

    /// The operation that applies it, borrowing its event.
    pub fn op(&self) -> StoreOp<'_> {
        StoreOp::ApplyEffect(EffectArgs {
            event: self.event.borrow(),
            fail_credit: self.fail_credit,
            done: self.done,
            read: self.read,
            track_transfer: self.track_transfer,
        })
    }
}
