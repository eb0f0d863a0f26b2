//! Crash points. A boundary is an instant just before or just after one protocol step
//! (`before:commit`, `after:commit`); a boundary point pins it to one delivery of one
//! event, which is what a single crash in a run hits and what `explore` enumerates.

use super::{EventIndex, Step};
use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    Before,
    After,
}

/// `before:STEP` or `after:STEP`. `after:commit` is the seeds' "between commit and ack"
/// when the protocol acks right after committing.
///
/// A step a protocol runs more than once (two transactions, two commits) is numbered by
/// occurrence: `after:commit` is the first `commit` of a delivery, `after:commit#2` the
/// second. `nth` is that number, 1 for every step that appears once, and is written only
/// when it is more than 1, so a protocol without repeats names its points as it always did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Boundary {
    pub side: Side,
    pub step: Step,
    pub nth: u8,
}

impl Boundary {
    pub fn before(step: Step) -> Boundary {
        Boundary {
            side: Side::Before,
            step,
            nth: 1,
        }
    }

    pub fn after(step: Step) -> Boundary {
        Boundary {
            side: Side::After,
            step,
            nth: 1,
        }
    }

    /// The same boundary at the `nth` occurrence of its step.
    pub fn nth(self, nth: u8) -> Boundary {
        Boundary { nth, ..self }
    }

    /// The other side of the same step.
    pub fn opposite(self) -> Boundary {
        let side = match self.side {
            Side::Before => Side::After,
            Side::After => Side::Before,
        };
        Boundary { side, ..self }
    }

    /// Parses `before:STEP` / `after:STEP`, with `#N` after a repeated step's name
    /// (`after:commit#2`); the error says what is wrong, as a [`PointError`].
    pub fn parse(text: &str) -> Result<Boundary, PointError> {
        let (side, step) = text.split_once(':').ok_or_else(|| PointError::NoSide {
            text: text.to_string(),
        })?;
        let side = match side {
            "before" => Side::Before,
            "after" => Side::After,
            other => {
                return Err(PointError::BadSide {
                    side: other.to_string(),
                    text: text.to_string(),
                })
            }
        };
        let (step, nth) = split_occurrence(step, text)?;
        let nth = nth.unwrap_or(1);
        let step = Step::parse(step).ok_or_else(|| PointError::UnknownStep {
            step: step.to_string(),
            text: text.to_string(),
        })?;
        Ok(Boundary { side, step, nth })
    }

    /// Both boundaries of every step of `steps`, in execution order, a repeated step
    /// numbered by occurrence.
    pub fn all_of(steps: &[Step]) -> Vec<Boundary> {
        (0..steps.len())
            .flat_map(|i| {
                let nth = occurrence(steps, i);
                [
                    Boundary::before(steps[i]).nth(nth),
                    Boundary::after(steps[i]).nth(nth),
                ]
            })
            .collect()
    }
}

impl Boundary {
    /// The index in `steps` of the step this boundary is at (its `nth` occurrence).
    pub fn index_in(self, steps: &[Step]) -> Option<usize> {
        steps
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == self.step)
            .nth(usize::from(self.nth).checked_sub(1)?)
            .map(|(i, _)| i)
    }
}

/// `commit#2` as (`commit`, `Some(2)`), `commit` as (`commit`, `None`); `text` is the
/// whole field, for the error.
pub fn split_occurrence<'a>(
    name: &'a str,
    text: &str,
) -> Result<(&'a str, Option<u8>), PointError> {
    match name.split_once('#') {
        None => Ok((name, None)),
        Some((step, n)) => match n.parse::<u8>() {
            Ok(n) if n >= 1 => Ok((step, Some(n))),
            _ => Err(PointError::BadOccurrence {
                occurrence: n.to_string(),
                text: text.to_string(),
            }),
        },
    }
}

/// Why a text is not a crash point (a boundary, or a point as `explore` prints it), or
/// not a step with its occurrence. Each variant holds the text as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointError {
    /// No `:` between the side and the step.
    NoSide { text: String },
    /// A side other than `before` and `after`.
    BadSide { side: String, text: String },
    /// What follows `#` is not an occurrence numbered from 1 (up to 255).
    BadOccurrence { occurrence: String, text: String },
    /// A step name no step has.
    UnknownStep { step: String, text: String },
    /// A point not shaped as `explore` prints it (`after:commit e0 d1`).
    PointShape { text: String },
    /// A point whose delivery attempt is 0 (or past the largest).
    PointDelivery { text: String },
}

/// Which occurrence of its step `steps[index]` is: 1 for the first.
pub fn occurrence(steps: &[Step], index: usize) -> u8 {
    let n = steps[..=index]
        .iter()
        .filter(|s| **s == steps[index])
        .count();
    u8::try_from(n).expect("a protocol has fewer than 256 steps")
}

impl fmt::Display for Boundary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::Before => "before",
            Side::After => "after",
        };
        write!(f, "{side}:{}", self.step)?;
        if self.nth > 1 {
            write!(f, "#{}", self.nth)?;
        }
        Ok(())
    }
}

impl Serialize for Boundary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl schemars::JsonSchema for Boundary {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Boundary".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(before|after):[^\\s#]+(#[0-9]+)?$",
            "description": "A step boundary: `before:STEP` or `after:STEP`, `#N` for the \
                N-th occurrence of a repeated step (`after:commit#2`)."
        })
    }
}

/// A boundary reached while handling one delivery: event `event`, publication `copy`
/// (0 = the original, 1 = the first republish, …) and delivery attempt `delivery`
/// (1 = first). A protocol runs each step (each occurrence of a repeated one) once per
/// delivery, so a point names one instant of a run; the one exception is a consumer that runs its transaction again after a commit
/// timeout, and then the point names the first time the delivery reached the boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoundaryPoint {
    pub boundary: Boundary,
    pub event: EventIndex,
    pub copy: u32,
    pub delivery: u32,
}

impl fmt::Display for BoundaryPoint {
    /// `after:commit e0 d1`, or `after:commit e0 copy1 d1` for a republished copy.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} e{}", self.boundary, self.event)?;
        if self.copy > 0 {
            write!(f, " copy{}", self.copy)?;
        }
        write!(f, " d{}", self.delivery)
    }
}

impl BoundaryPoint {
    /// Parses the text [`fmt::Display`] prints: `after:commit e0 d1` or
    /// `after:commit e0 copy1 d1`.
    pub fn parse(text: &str) -> Result<BoundaryPoint, PointError> {
        let shape = || PointError::PointShape {
            text: text.to_string(),
        };
        let parts: Vec<&str> = text.split_whitespace().collect();
        let (at, event, copy, delivery) = match parts.as_slice() {
            [at, e, d] => (*at, *e, None, *d),
            [at, e, c, d] => (*at, *e, Some(*c), *d),
            _ => return Err(shape()),
        };
        let number = |part: &str, prefix: &str| -> Result<u64, PointError> {
            part.strip_prefix(prefix)
                .and_then(|n| n.parse().ok())
                .ok_or_else(shape)
        };
        let delivery = number(delivery, "d")?;
        if delivery == 0 || delivery > u64::from(u32::MAX) {
            return Err(PointError::PointDelivery {
                text: text.to_string(),
            });
        }
        Ok(BoundaryPoint {
            boundary: Boundary::parse(at)?,
            event: usize::try_from(number(event, "e")?).map_err(|_| shape())?,
            copy: match copy {
                Some(c) => u32::try_from(number(c, "copy")?).map_err(|_| shape())?,
                None => 0,
            },
            delivery: delivery as u32,
        })
    }
}

impl Serialize for BoundaryPoint {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl schemars::JsonSchema for BoundaryPoint {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BoundaryPoint".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(before|after):[^\\s#]+(#[0-9]+)? e[0-9]+( copy[0-9]+)? d[0-9]+$",
            "description": "A crash point as `run --crash` takes it: a boundary, the event, \
                the publication (`copyN`, absent for the original) and the delivery attempt \
                (`after:commit e0 d1`, `after:commit e0 copy1 d2`)."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_parse_and_print_the_same_text() {
        for text in [
            "before:commit",
            "after:ack",
            "after:insert_inbox",
            "after:commit#2",
        ] {
            assert_eq!(Boundary::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            Boundary::parse("before:commit#1").unwrap(),
            Boundary::before(Step::Commit)
        );
        assert_eq!(
            Boundary::parse("after:commit#3").unwrap(),
            Boundary::after(Step::Commit).nth(3)
        );
    }

    #[test]
    fn repeated_steps_are_numbered_by_occurrence() {
        use Step::*;
        let steps = crate::model::MARK_OWN_TRANSACTION;
        let names: Vec<String> = Boundary::all_of(&steps)
            .iter()
            .map(|b| b.to_string())
            .collect();
        assert_eq!(names[6..8], ["before:commit", "after:commit"]);
        assert_eq!(names[8..10], ["before:begin#2", "after:begin#2"]);
        assert_eq!(names[12..14], ["before:commit#2", "after:commit#2"]);
        assert_eq!(occurrence(&steps, 6), 2);
        assert_eq!(Boundary::after(Commit).nth(2).index_in(&steps), Some(6));
        assert_eq!(Boundary::after(Commit).index_in(&steps), Some(3));
        assert_eq!(Boundary::after(Commit).nth(3).index_in(&steps), None);
        assert_eq!(Boundary::after(Commit).nth(0).index_in(&steps), None);
        assert_eq!(occurrence(&steps, 3), 1);
    }

    #[test]
    fn bad_boundaries_say_what_is_wrong() {
        let text = |s: &str| s.to_string();
        assert_eq!(
            Boundary::parse("commit"),
            Err(PointError::NoSide {
                text: text("commit")
            })
        );
        assert_eq!(
            Boundary::parse("during:commit"),
            Err(PointError::BadSide {
                side: text("during"),
                text: text("during:commit")
            })
        );
        for (bad, occurrence) in [
            ("after:commit#0", "0"),
            ("after:commit#", ""),
            ("after:commit#x", "x"),
            ("after:commit#300", "300"),
        ] {
            let e = Boundary::parse(bad).unwrap_err();
            let want = PointError::BadOccurrence {
                occurrence: text(occurrence),
                text: text(bad),
            };
            assert_eq!(e, want, "{bad}");
        }
        let e = Boundary::parse("after:comit").unwrap_err();
        assert_eq!(
            e,
            PointError::UnknownStep {
                step: text("comit"),
                text: text("after:comit")
            }
        );
        assert!(format!("{e:?}").contains("comit"), "{e:?}");
    }

    #[test]
    fn points_parse_what_they_print() {
        for text in ["after:commit e0 d1", "before:ack e12 copy2 d3"] {
            assert_eq!(BoundaryPoint::parse(text).unwrap().to_string(), text);
        }
        let shape = |text: &str| PointError::PointShape {
            text: text.to_string(),
        };
        for (bad, why) in [
            ("after:commit", shape("after:commit")),
            ("after:commit x0 d1", shape("after:commit x0 d1")),
            (
                "after:commit e0 d0",
                PointError::PointDelivery {
                    text: "after:commit e0 d0".into(),
                },
            ),
            (
                "after:comit e0 d1",
                PointError::UnknownStep {
                    step: "comit".into(),
                    text: "after:comit".into(),
                },
            ),
        ] {
            assert_eq!(BoundaryPoint::parse(bad), Err(why), "{bad}");
        }
    }

    #[test]
    fn points_name_copy_only_when_republished() {
        let p = BoundaryPoint {
            boundary: Boundary::after(Step::Commit),
            event: 2,
            copy: 0,
            delivery: 1,
        };
        assert_eq!(p.to_string(), "after:commit e2 d1");
        assert_eq!(
            BoundaryPoint { copy: 1, ..p }.to_string(),
            "after:commit e2 copy1 d1"
        );
    }
}

/// Why the consumer crashed where it did. In JSON always an object with a `kind`:
/// `{"kind": "planned", "index": 0}` or `{"kind": "random"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(into = "CrashCauseJson")]
#[schemars(with = "CrashCauseJson")]
pub enum CrashCause {
    /// The plan's `crash[i]`.
    Planned(usize),
    /// A random crash drawn from the seed.
    Random,
}

/// [`CrashCause`] as JSON writes it.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum CrashCauseJson {
    /// The scenario's `faults.crash[index]` (or the `index`-th `--crash`).
    Planned { index: usize },
    /// A random crash drawn from the seed (`faults.random_crash`).
    Random,
}

impl From<CrashCause> for CrashCauseJson {
    fn from(c: CrashCause) -> CrashCauseJson {
        match c {
            CrashCause::Planned(index) => CrashCauseJson::Planned { index },
            CrashCause::Random => CrashCauseJson::Random,
        }
    }
}
