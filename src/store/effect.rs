//! The parameters of [`StoreOp::ApplyEffect`] as one value, so that each engine's
//! `apply_effect` (SQLite's and PostgreSQL's) and `crosscheck`'s wire take the same five
//! fields instead of listing them again.

use super::StoreOp;
use crate::model::Event;

/// The parameters of a [`StoreOp::ApplyEffect`] as one value, the event borrowed (`&Event`,
/// what each engine's `apply_effect` takes) or owned (`Event`, what `crosscheck` sends over
/// the wire): the five fields are listed here once rather than in every engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EffectArgs<E> {
    pub event: E,
    pub fail_credit: bool,
    pub done: u8,
    pub read: Option<(i64, i64)>,
    pub track_transfer: bool,
}

impl<'a> EffectArgs<&'a Event> {
    /// The parameters of `op`, which is a [`StoreOp::ApplyEffect`] (any other is a bug).
    pub fn of(op: StoreOp<'a>) -> Self {
        match op {
            StoreOp::ApplyEffect {
                event,
                fail_credit,
                done,
                read,
                track_transfer,
            } => EffectArgs {
                event,
                fail_credit,
                done,
                read,
                track_transfer,
            },
            other => panic!("{other:?} is not an ApplyEffect"),
        }
    }
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
        StoreOp::ApplyEffect {
            event: self.event.borrow(),
            fail_credit: self.fail_credit,
            done: self.done,
            read: self.read,
            track_transfer: self.track_transfer,
        }
    }
}
