//! The English of the parse errors a crash point can have ([`PointError`]) and of an
//! occurrence a run never reaches ([`Unreached`]), printed by `--crash` and, through
//! `faults`, by a scenario's crash points. Worded here, beside their Spanish, rather than in
//! `model` and `scenario`, which hold the data only and have no `Display` of their own: a
//! core type's words cannot be given from another crate (the orphan rule), and a reader's
//! language is chosen at the edge.

use crate::model::{PointError, Step};
use crate::scenario::Unreached;
use std::fmt;

/// A crash point that does not parse, in English (the Spanish is `faults::point_es`).
pub(crate) fn point_en(e: &PointError) -> String {
    En(e).to_string()
}

/// An occurrence a run never reaches, in English (the Spanish is `faults::unreached_es`).
pub(crate) fn unreached_en(u: &Unreached) -> String {
    En(u).to_string()
}

/// The English of a core value, written with `write!` like any `Display`.
struct En<'a, T>(&'a T);

/// What the command line's `--crash` and a scenario's `faults.crash[].at` print.
impl fmt::Display for En<'_, PointError> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            PointError::NoSide { text } => write!(
                f,
                "`{text}` is not a crash point; write `before:STEP` or `after:STEP`"
            ),
            PointError::BadSide { side, text } => {
                write!(f, "`{side}` in `{text}` must be `before` or `after`")
            }
            PointError::BadOccurrence { occurrence, text } => write!(
                f,
                "`#{occurrence}` in `{text}` is not an occurrence; a repeated step is \
                 numbered from 1 (`after:commit#2` is the second `commit`)"
            ),
            PointError::UnknownStep { step, text } => write!(
                f,
                "unknown step `{step}` in `{text}`; the steps are {}",
                Step::all_names()
            ),
            PointError::PointShape { text } => write!(
                f,
                "`{text}` is not a crash point; write it as printed by explore, e.g. \
                 `after:commit e0 d1` or `before:ack e2 copy1 d2`"
            ),
            PointError::PointDelivery { text } => {
                write!(f, "in `{text}`: delivery attempts start at d1")
            }
        }
    }
}

impl fmt::Display for En<'_, Unreached> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unreached::Repeats {
                what,
                step,
                protocol,
                count,
                steps,
                attempts,
                last,
            } => {
                write!(
                    f,
                    "`{what}` is never reached: protocol `{protocol}` runs `{step}` "
                )?;
                match count {
                    1 => f.write_str("once")?,
                    n => write!(f, "{n} times")?,
                }
                write!(f, " ({steps})")?;
                match attempts {
                    1 => Ok(()),
                    n if *step == Step::DeadLetter => {
                        write!(f, ", after the last of its {n} attempts")
                    }
                    n => write!(
                        f,
                        " per attempt, {n} attempts at most: `{step}#{last}` is the last"
                    ),
                }
            }
            Unreached::Once { what, step, actor } => write!(
                f,
                "`{what}` is never reached: the {} runs `{step}` once per event",
                actor.name()
            ),
        }
    }
}
