//! Seeded RNG streams, one per component. Each stream's seed is derived from the
//! run's master seed and the component's name, so adding a component (or drawing
//! more numbers in one) never perturbs the numbers another component sees.

use rand::RngCore;
use rand_pcg::Pcg64Mcg;

/// A factory of named, independent, reproducible random streams.
#[derive(Debug, Clone, Copy)]
pub struct RngStreams {
    master_seed: u64,
}

/// One component's random stream (PCG-64 MCG: small, fast, reproducible).
pub type RngStream = Pcg64Mcg;

impl RngStreams {
    pub fn new(master_seed: u64) -> Self {
        Self { master_seed }
    }

    pub fn master_seed(&self) -> u64 {
        self.master_seed
    }

    /// The stream for component `name` (e.g. "bench.job0", "ssd.gc").
    pub fn stream(&self, name: &str) -> RngStream {
        let mixed = splitmix64(self.master_seed ^ fnv1a_64(name.as_bytes()));
        let hi = splitmix64(mixed);
        let lo = splitmix64(hi);
        Pcg64Mcg::new(((hi as u128) << 64) | lo as u128 | 1)
    }
}

/// FNV-1a, 64 bit: a stable hash of a component name (std's hasher is not stable
/// across releases).
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser: spreads nearby seeds over the whole space.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Uniform integer in `[0, bound)` without modulo bias worth noticing for
/// simulation purposes (Lemire's multiply-shift).
#[inline]
pub fn uniform_below(rng: &mut RngStream, bound: u64) -> u64 {
    debug_assert!(bound > 0);
    ((rng.next_u64() as u128 * bound as u128) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let s = RngStreams::new(42);
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream("x");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = s.stream("x");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
    }

    #[test]
    fn different_names_or_seeds_give_different_streams() {
        let s = RngStreams::new(42);
        assert_ne!(s.stream("x").next_u64(), s.stream("y").next_u64());
        assert_ne!(
            s.stream("x").next_u64(),
            RngStreams::new(43).stream("x").next_u64()
        );
    }

    #[test]
    fn fnv_matches_reference_vectors() {
        assert_eq!(fnv1a_64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn uniform_below_stays_in_range() {
        let mut r = RngStreams::new(1).stream("u");
        for _ in 0..10_000 {
            assert!(uniform_below(&mut r, 7) < 7);
        }
    }
}
