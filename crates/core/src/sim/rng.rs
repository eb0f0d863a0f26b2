//! Seeded randomness. Every random choice of a run comes from a ChaCha8 stream derived from
//! the run's seed and a fixed stream number per component, so adding draws in one component
//! never shifts another's, and the same seed gives the same choices on every platform.
//!
//! We derive the key and reduce ranges ourselves rather than through `rand`'s helpers:
//! ChaCha's output is fixed by its specification, while a library's range-sampling
//! algorithm may change between versions, which would change every trace hash.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The components that draw random numbers, each with its own stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Event ids, accounts chosen for each transfer.
    Workload,
    /// Random crash plans.
    Faults,
    /// A sweep's per-seed fault rates (swarm testing).
    Swarm,
    /// The broker's delivery delays.
    Broker,
    /// `event_id`s minted for republications under a per-attempt identity.
    Identity,
    /// SQLite's `random()` and `randomblob()` on connection `connection` of a run to
    /// database `db` (0: the main one), drawn by a scenario's own statements.
    Database { db: u8, connection: u16 },
    /// The same functions in a check query, from the start for each query.
    Checks,
}

impl Stream {
    fn number(self) -> u64 {
        match self {
            Stream::Workload => 1,
            Stream::Faults => 2,
            Stream::Swarm => 3,
            Stream::Broker => 4,
            Stream::Identity => 5,
            Stream::Checks => 6,
            Stream::Database { db, connection } => {
                1 << 32 | u64::from(db) << 16 | u64::from(connection)
            }
        }
    }
}

/// A component's random stream.
#[derive(Clone, Debug)]
pub struct SimRng(ChaCha8Rng);

impl SimRng {
    pub fn new(seed: u64, stream: Stream) -> SimRng {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(stream.number());
        SimRng(rng)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// How far the stream has been drawn (ChaCha's word position): the same stream at the
    /// same position draws the same values from there on.
    pub fn position(&self) -> u128 {
        self.0.get_word_pos()
    }

    /// Moves the stream to `position` (see [`SimRng::position`]).
    pub fn set_position(&mut self, position: u128) {
        self.0.set_word_pos(position);
    }

    /// A uniform draw in `0..n` (Lemire's widening multiply; the bias for `n` far below
    /// 2^64 is negligible and, more importantly, the mapping is fixed forever).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0) has no value to return");
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// True with probability `ppm` parts per million.
    pub fn chance_ppm(&mut self, ppm: u32) -> bool {
        assert!(ppm <= 1_000_000, "a probability is at most 1,000,000 ppm");
        self.below(1_000_000) < u64::from(ppm)
    }

    /// A version-4 UUID built from 16 random bytes, as text.
    pub fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "{}-{}-{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        )
    }
}

impl crate::sim::Fingerprint for SimRng {
    fn fingerprint(&self, _now: crate::model::Tick, h: &mut crate::sim::StateHasher) {
        let SimRng(rng) = self;
        // Its key, stream number and how many words it has given: two generators in the
        // same position draw the same values from now on.
        h.value(&(rng.get_seed(), rng.get_stream(), rng.get_word_pos()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_is_the_streams_position() {
        use crate::sim::fingerprint::digest_of;
        let mut a = SimRng::new(7, Stream::Broker);
        let b = SimRng::new(7, Stream::Broker);
        assert_eq!(digest_of(&a, 0), digest_of(&b, 5), "time plays no part");
        a.next_u64();
        assert_ne!(digest_of(&a, 0), digest_of(&b, 0), "one draw further");
        assert_ne!(
            digest_of(&SimRng::new(7, Stream::Faults), 0),
            digest_of(&b, 0),
            "another stream"
        );
    }

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u64> = (0..4)
            .map(|_| SimRng::new(7, Stream::Workload).next_u64())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut w = SimRng::new(7, Stream::Workload);
        let mut f = SimRng::new(7, Stream::Faults);
        assert_ne!(w.next_u64(), f.next_u64());
        assert_ne!(
            SimRng::new(7, Stream::Workload).next_u64(),
            SimRng::new(8, Stream::Workload).next_u64()
        );
    }

    #[test]
    fn the_stream_is_pinned_across_versions_and_platforms() {
        // If this changes, every golden trace hash changes with it: it must not, short of a
        // deliberate, documented decision.
        let mut r = SimRng::new(0, Stream::Workload);
        assert_eq!(r.uuid(), GOLDEN_UUID);
    }
    const GOLDEN_UUID: &str = "2b8f4bb3-7983-46ca-9130-d47c4f8d4ed1";

    #[test]
    fn below_stays_in_range_and_ppm_extremes_are_exact() {
        let mut r = SimRng::new(1, Stream::Faults);
        for n in [1, 2, 3, 10, 1_000_000] {
            for _ in 0..100 {
                assert!(r.below(n) < n);
            }
        }
        assert!((0..1000).all(|_| !r.chance_ppm(0)));
        assert!((0..1000).all(|_| r.chance_ppm(1_000_000)));
    }

    #[test]
    fn uuids_are_version_4_shaped() {
        let u = SimRng::new(3, Stream::Workload).uuid();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
    }
}
