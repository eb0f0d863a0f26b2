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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Boundary {
    pub side: Side,
    pub step: Step,
}

impl Boundary {
    pub fn before(step: Step) -> Boundary {
        Boundary {
            side: Side::Before,
            step,
        }
    }

    pub fn after(step: Step) -> Boundary {
        Boundary {
            side: Side::After,
            step,
        }
    }

    /// Parses `before:STEP` / `after:STEP`; the error says what is allowed.
    pub fn parse(text: &str) -> Result<Boundary, String> {
        let (side, step) = text.split_once(':').ok_or_else(|| {
            format!("`{text}` is not a crash point; write `before:STEP` or `after:STEP`")
        })?;
        let side = match side {
            "before" => Side::Before,
            "after" => Side::After,
            other => return Err(format!("`{other}` in `{text}` must be `before` or `after`")),
        };
        let step = Step::parse(step).ok_or_else(|| {
            format!(
                "unknown step `{step}` in `{text}`; the steps are {}",
                Step::all_names()
            )
        })?;
        Ok(Boundary { side, step })
    }

    /// Both boundaries of every step of `steps`, in execution order.
    pub fn all_of(steps: &[Step]) -> Vec<Boundary> {
        steps
            .iter()
            .flat_map(|s| [Boundary::before(*s), Boundary::after(*s)])
            .collect()
    }
}

impl fmt::Display for Boundary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::Before => "before",
            Side::After => "after",
        };
        write!(f, "{side}:{}", self.step)
    }
}

impl Serialize for Boundary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A boundary reached while handling one delivery: event `event`, publication `copy`
/// (0 = the original, 1 = the first republish, …) and delivery attempt `delivery`
/// (1 = first). A protocol runs each step once per delivery, so a point names one instant
/// of a run; the one exception is a consumer that runs its transaction again after a commit
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
    pub fn parse(text: &str) -> Result<BoundaryPoint, String> {
        let shape = || {
            format!(
                "`{text}` is not a crash point; write it as printed by explore, \
                 e.g. `after:commit e0 d1` or `before:ack e2 copy1 d2`"
            )
        };
        let parts: Vec<&str> = text.split_whitespace().collect();
        let (at, event, copy, delivery) = match parts.as_slice() {
            [at, e, d] => (*at, *e, None, *d),
            [at, e, c, d] => (*at, *e, Some(*c), *d),
            _ => return Err(shape()),
        };
        let number = |part: &str, prefix: &str| -> Result<u64, String> {
            part.strip_prefix(prefix)
                .and_then(|n| n.parse().ok())
                .ok_or_else(shape)
        };
        let delivery = number(delivery, "d")?;
        if delivery == 0 || delivery > u64::from(u32::MAX) {
            return Err(format!("in `{text}`: delivery attempts start at d1"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_parse_and_print_the_same_text() {
        for text in ["before:commit", "after:ack", "after:insert_inbox"] {
            assert_eq!(Boundary::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn bad_boundaries_say_what_is_allowed() {
        assert!(Boundary::parse("commit")
            .unwrap_err()
            .contains("before:STEP"));
        assert!(Boundary::parse("during:commit")
            .unwrap_err()
            .contains("`before` or `after`"));
        let e = Boundary::parse("after:comit").unwrap_err();
        assert!(
            e.contains("unknown step `comit`") && e.contains("insert_inbox"),
            "{e}"
        );
    }

    #[test]
    fn points_parse_what_they_print() {
        for text in ["after:commit e0 d1", "before:ack e12 copy2 d3"] {
            assert_eq!(BoundaryPoint::parse(text).unwrap().to_string(), text);
        }
        for bad in [
            "after:commit",
            "after:commit e0 d0",
            "after:commit x0 d1",
            "after:comit e0 d1",
        ] {
            assert!(BoundaryPoint::parse(bad).is_err(), "{bad}");
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

/// Why the consumer crashed where it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CrashCause {
    /// The plan's `crash[i]`.
    Planned(usize),
    /// A random crash drawn from the seed.
    Random,
}
