//! State fingerprints: a 128-bit digest of everything that decides the rest of a run, for
//! exploration's equivalence check.
//!
//! Every component feeds its own state through [`Fingerprint::fingerprint`], and every
//! implementation starts with an exhaustive destructure of `self` (no `..`): a field added
//! to a component does not compile until its author says, in that function, whether it
//! decides the future (fed) or is history or constant (named with `_` and a comment). A
//! tidy test (`tests/it/tidy.rs`) keeps every implementation in that shape.
//!
//! Instants are fed relative to the moment of the fingerprint ([`StateHasher::instant`]):
//! two states equal up to a shift in time have the same future, shifted, except where a
//! limit on ticks, steps or trace entries cuts one of them short, which exploration checks
//! separately (`explore::prune`). Leaving an instant absolute is always sound, only less
//! useful; leaving out something that decides the future is a wrong verdict.
//!
//! The digest is two SipHash-1-3 streams with fixed, different keys over the same bytes:
//! 128 bits, so the chance that two of a million different states collide is about
//! 10^-27. No equality is ever decided by anything shorter.

use crate::model::Tick;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The digest of a state.
pub type Digest = u128;

/// Something whose state can be fingerprinted.
pub trait Fingerprint {
    /// Feeds everything of `self` that decides the rest of the run, with instants relative
    /// to `now`.
    fn fingerprint(&self, now: Tick, h: &mut StateHasher);
}

/// Collects a state's bytes into two independent 64-bit hashes.
#[derive(Clone, Debug)]
pub struct StateHasher {
    low: DefaultHasher,
    high: DefaultHasher,
    /// Test only: leave the lose-ack budget out, to show that the pruned-equals-unpruned
    /// property catches a fingerprint with a field missing.
    #[cfg(any(test, feature = "test-support"))]
    pub omit_lose_ack_budget: bool,
    /// Test only: leave the database's schema out (its triggers, indexes and views), to
    /// show that the same property catches it.
    #[cfg(any(test, feature = "test-support"))]
    pub omit_schema: bool,
}

impl Default for StateHasher {
    fn default() -> Self {
        let mut high = DefaultHasher::new();
        // A different starting state makes the second stream independent of the first.
        high.write(b"delivery-sim: the high half of a state digest");
        StateHasher {
            low: DefaultHasher::new(),
            high,
            #[cfg(any(test, feature = "test-support"))]
            omit_lose_ack_budget: false,
            #[cfg(any(test, feature = "test-support"))]
            omit_schema: false,
        }
    }
}

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.low.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        self.low.write(bytes);
        self.high.write(bytes);
    }
}

impl StateHasher {
    /// Feeds a value (its `Hash`, which for the model's types is derived from every field).
    pub fn value<T: Hash + ?Sized>(&mut self, v: &T) {
        v.hash(self);
    }

    /// A label between components, so that one component's bytes cannot run into the
    /// next one's and read the same.
    pub fn section(&mut self, name: &str) {
        self.write(name.as_bytes());
        self.write_u8(0xff);
    }

    /// An instant, fed as its distance from `now` (negative for the past).
    pub fn instant(&mut self, at: Tick, now: Tick) {
        self.write_i128(i128::from(at) - i128::from(now));
    }

    /// The 128-bit digest of everything fed so far.
    pub fn digest(&self) -> Digest {
        (u128::from(self.high.finish()) << 64) | u128::from(self.low.finish())
    }
}

/// The digest of one component alone (tests compare components this way).
#[cfg(any(test, feature = "test-support"))]
pub fn digest_of<T: Fingerprint + ?Sized>(value: &T, now: Tick) -> Digest {
    let mut h = StateHasher::default();
    value.fingerprint(now, &mut h);
    h.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_are_relative_and_values_are_not() {
        let at = |at: Tick, now: Tick| {
            let mut h = StateHasher::default();
            h.instant(at, now);
            h.digest()
        };
        assert_eq!(at(12, 10), at(102, 100), "the same distance ahead");
        assert_ne!(at(12, 10), at(13, 10));
        assert_ne!(at(8, 10), at(12, 10), "past and future differ");
        let value = |v: u64| {
            let mut h = StateHasher::default();
            h.value(&v);
            h.digest()
        };
        assert_ne!(value(1), value(2));
    }

    #[test]
    fn the_two_halves_are_different_streams() {
        let mut h = StateHasher::default();
        h.value(&42u64);
        let d = h.digest();
        assert_ne!((d >> 64) as u64, d as u64);
    }

    #[test]
    fn sections_separate_components() {
        let mut a = StateHasher::default();
        a.section("ab");
        a.section("c");
        let mut b = StateHasher::default();
        b.section("a");
        b.section("bc");
        assert_ne!(a.digest(), b.digest());
    }
}
