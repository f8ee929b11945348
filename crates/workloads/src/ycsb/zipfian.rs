//! YCSB's zipfian family: `ZipfianGenerator`, `ScrambledZipfianGenerator` and
//! `SkewedLatestGenerator`, with their constants, the zeta sum and Gray et al.'s
//! ("Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994) inverse.
//!
//! Follows `core/src/main/java/site/ycsb/generator/ZipfianGenerator.java`,
//! `ScrambledZipfianGenerator.java` and `SkewedLatestGenerator.java`.
//!
//! The formula needs θ ≠ 1 (`alpha = 1/(1-θ)`). It also works for θ > 1: then
//! `alpha < 0` and `eta < 0`, `eta·u − eta + 1 = 1 + |eta|(1−u) ≥ 1`, and
//! `n·(…)^alpha` still rises monotonically with `u` from ≈2 to `n`; ranks 0 and 1 are
//! exact for any θ (`u·zetan < 1` and `< 1 + 0.5^θ`), the rest follows the
//! continuous approximation (tests measure how closely).

use super::generators::next_double;
use super::keys::fnvhash64;
use zonelab_engine::RngStream;

/// YCSB's default zipfian constant (`ZipfianGenerator.ZIPFIAN_CONSTANT`).
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// Item count of the scrambled generator's underlying zipfian
/// (`ScrambledZipfianGenerator.ITEM_COUNT` = 10,000,000,000).
pub const ITEM_COUNT: u64 = 10_000_000_000;
/// Precomputed zeta(ITEM_COUNT, 0.99) (`ScrambledZipfianGenerator.ZETAN`).
pub const ZETAN: f64 = 26.469_028_201_783_02;
/// The constant [`ZETAN`] was computed for (`USED_ZIPFIAN_CONSTANT`).
pub const USED_ZIPFIAN_CONSTANT: f64 = 0.99;

/// zeta(10^10 + 1, 0.9): the sum YCSB's `new ZipfianGenerator(0, ITEM_COUNT, 0.9)`
/// computes (10^10 + 1 terms, `sum += 1 / Math.pow(i + 1, θ)` in `double`, in
/// order), computed once by exactly that loop in Rust's `f64` (bits
/// `0x4056a479030ddf49`; 0.9 is one of the α of HHZS).
pub const ZETAN_SCRAMBLED_0_9: f64 = 90.569_885_982_081_49;
/// zeta(10^10 + 1, 1.2), computed like [`ZETAN_SCRAMBLED_0_9`] (bits
/// `0x40162a94965fac8a`; 1.2 is the other α of HHZS).
pub const ZETAN_SCRAMBLED_1_2: f64 = 5.541_582_440_938_45;

/// Terms summed one by one by [`zeta_fast`] before it switches to the
/// Euler–Maclaurin tail.
pub const ZETA_EXACT_TERMS: u64 = 1 << 20;

/// YCSB's `zetastatic(st, n, θ, initialsum)`: `initialsum + Σ_{i=st}^{n-1} 1/(i+1)^θ`,
/// summed in that order in `f64`, as YCSB does.
pub fn zeta_range(st: u64, n: u64, theta: f64, initialsum: f64) -> f64 {
    let mut sum = initialsum;
    let mut i = st;
    while i < n {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
        i += 1;
    }
    sum
}

/// YCSB's `zetastatic(n, θ)` = Σ_{i=1}^{n} i^-θ, by the same O(n) loop.
pub fn zeta_static(n: u64, theta: f64) -> f64 {
    zeta_range(0, n, theta, 0.0)
}

/// zeta(n, θ) in O(1) for large `n`: the first [`ZETA_EXACT_TERMS`] terms by YCSB's
/// loop, the rest by Euler–Maclaurin (integral, end-point and two derivative
/// corrections; the neglected term is below 1e-30 there). Agrees with YCSB's full
/// loop to ~1.2e-12 (θ = 0.99), 1.8e-13 (0.9) and 4.3e-11 (1.2) relative at
/// n = 10^10 — the difference is the rounding of that f64 loop (tests pin it against [`ZETAN`]); used where YCSB would sum 10^10
/// terms (a scrambled zipfian with θ other than 0.99, 0.9, 1.2).
pub fn zeta_fast(n: u64, theta: f64) -> f64 {
    if n <= ZETA_EXACT_TERMS {
        return zeta_static(n, theta);
    }
    let head = zeta_static(ZETA_EXACT_TERMS, theta);
    let a = (ZETA_EXACT_TERMS + 1) as f64;
    let b = n as f64;
    let f = |x: f64| x.powf(-theta);
    let d1 = |x: f64| -theta * x.powf(-theta - 1.0);
    let d3 = |x: f64| -theta * (theta + 1.0) * (theta + 2.0) * x.powf(-theta - 3.0);
    // ∫_a^b x^-θ dx = a^(1-θ) (e^{(1-θ) ln(b/a)} - 1) / (1-θ), stable near θ = 1.
    let one_m = 1.0 - theta;
    let integral = if one_m.abs() < 1e-300 {
        (b / a).ln()
    } else {
        a.powf(one_m) * (one_m * (b / a).ln()).exp_m1() / one_m
    };
    let tail = integral + (f(a) + f(b)) / 2.0 + (d1(b) - d1(a)) / 12.0 - (d3(b) - d3(a)) / 720.0;
    head + tail
}

/// YCSB's `ZipfianGenerator`: integers in `[base, base + items)`, rank `base` the
/// most popular, P(base + i) = 1/((i+1)^θ · zeta(items, θ)).
#[derive(Debug, Clone)]
pub struct ZipfianGenerator {
    items: u64,
    base: u64,
    theta: f64,
    zeta2theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    countforzeta: u64,
}

impl ZipfianGenerator {
    /// `new ZipfianGenerator(min, max, θ)`: zetan = zetastatic(max − min + 1, θ)
    /// (an O(items) sum, as in YCSB).
    pub fn new(min: u64, max: u64, theta: f64) -> Self {
        let items = max.wrapping_sub(min).wrapping_add(1);
        Self::with_zetan(min, max, theta, zeta_static(items, theta))
    }

    /// `new ZipfianGenerator(items)` = `(0, items − 1, 0.99)`; `items` may be 0
    /// (YCSB's `SkewedLatestGenerator` with one record does that).
    pub fn with_items(items: u64, theta: f64) -> Self {
        Self::build(0, items, theta, zeta_static(items, theta))
    }

    /// `new ZipfianGenerator(min, max, θ, zetan)` with a precomputed zetan.
    pub fn with_zetan(min: u64, max: u64, theta: f64, zetan: f64) -> Self {
        Self::build(min, max.wrapping_sub(min).wrapping_add(1), theta, zetan)
    }

    fn build(base: u64, items: u64, theta: f64, zetan: f64) -> Self {
        let zeta2theta = zeta_static(2, theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2theta / zetan);
        Self {
            items,
            base,
            theta,
            zeta2theta,
            alpha,
            zetan,
            eta,
            countforzeta: items,
        }
    }

    /// Number of items the generator was built for.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// The current zeta(n, θ) (grows when [`Self::next_long`] sees more items).
    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    /// The zipfian constant θ.
    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// `nextLong(itemcount)`: if `itemcount` grew, zetan is extended incrementally
    /// (`zeta(countforzeta, itemcount, θ, zetan)`) and eta recomputed — with the
    /// constructor's `items`, exactly as YCSB does; a smaller `itemcount` keeps the
    /// old zetan (YCSB's `allowitemcountdecrease` is always false). Then Gray's
    /// inverse: `uz = u·zetan`; `uz < 1` → base; `uz < 1 + 0.5^θ` → base + 1;
    /// else `base + (long)(itemcount · (eta·u − eta + 1)^alpha)`.
    pub fn next_long(&mut self, rng: &mut RngStream, itemcount: u64) -> u64 {
        if itemcount > self.countforzeta {
            self.zetan = zeta_range(self.countforzeta, itemcount, self.theta, self.zetan);
            self.countforzeta = itemcount;
            self.eta = (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta))
                / (1.0 - self.zeta2theta / self.zetan);
        }
        let u = next_double(rng);
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        // Java's (long) cast and Rust's `as` both saturate (NaN → 0).
        self.base + (itemcount as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }

    /// `nextValue()` = `nextLong(items)`.
    pub fn next(&mut self, rng: &mut RngStream) -> u64 {
        let items = self.items;
        self.next_long(rng, items)
    }
}

/// YCSB's `ScrambledZipfianGenerator`: a zipfian over [`ITEM_COUNT`] + 1 ranks,
/// scattered over `[min, max]` by `min + fnvhash64(rank) % itemcount`, so the
/// popular items are spread over the key space instead of clustered at `min`.
#[derive(Debug, Clone)]
pub struct ScrambledZipfianGenerator {
    gen: ZipfianGenerator,
    min: u64,
    itemcount: u64,
}

impl ScrambledZipfianGenerator {
    /// `new ScrambledZipfianGenerator(min, max)` (θ = 0.99, zetan = [`ZETAN`]).
    pub fn new(min: u64, max: u64) -> Self {
        Self::with_constant(min, max, ZIPFIAN_CONSTANT)
    }

    /// `new ScrambledZipfianGenerator(min, max, θ)`: the underlying generator is
    /// `new ZipfianGenerator(0, ITEM_COUNT, θ[, ZETAN])` — ITEM_COUNT + 1 items.
    /// For θ = 0.99 zetan is YCSB's [`ZETAN`]; for θ = 0.9 and 1.2 the pinned
    /// [`ZETAN_SCRAMBLED_0_9`] / [`ZETAN_SCRAMBLED_1_2`] (YCSB's own loop, run once);
    /// for other θ [`zeta_fast`] instead of YCSB's 10^10-term loop.
    pub fn with_constant(min: u64, max: u64, theta: f64) -> Self {
        let zetan = if theta == USED_ZIPFIAN_CONSTANT {
            ZETAN
        } else if theta == 0.9 {
            ZETAN_SCRAMBLED_0_9
        } else if theta == 1.2 {
            ZETAN_SCRAMBLED_1_2
        } else {
            zeta_fast(ITEM_COUNT + 1, theta)
        };
        Self {
            gen: ZipfianGenerator::with_zetan(0, ITEM_COUNT, theta, zetan),
            min,
            itemcount: max - min + 1,
        }
    }

    /// The underlying zipfian over ranks.
    pub fn zipfian(&self) -> &ZipfianGenerator {
        &self.gen
    }

    /// `nextValue()`: `min + fnvhash64(rank) % itemcount`. (Java's `Math.abs` can
    /// leave the hash negative for one rank in 2^64 and then YCSB returns a value
    /// below `min`; ZoneLab takes the magnitude so the result stays in range.)
    pub fn next(&mut self, rng: &mut RngStream) -> u64 {
        let rank = self.gen.next(rng);
        self.min + Self::scatter(rank, self.itemcount)
    }

    /// Where rank `rank` lands, as an offset from `min`: `fnvhash64(rank) % itemcount`.
    pub fn scatter(rank: u64, itemcount: u64) -> u64 {
        fnvhash64(rank as i64).unsigned_abs() % itemcount
    }
}

/// YCSB's `SkewedLatestGenerator`: `max − zipfian.nextLong(max)` where `max` is the
/// insert counter's last acknowledged value, so the newest keys are the hottest and
/// the distribution follows inserts. The zipfian is `new ZipfianGenerator(basis.
/// lastValue())` (θ = 0.99, items = last key number at construction).
#[derive(Debug, Clone)]
pub struct SkewedLatestGenerator {
    zipfian: ZipfianGenerator,
}

impl SkewedLatestGenerator {
    /// Built when the insert counter's last value is `basis_last`.
    pub fn new(basis_last: u64) -> Self {
        Self {
            zipfian: ZipfianGenerator::with_items(basis_last, ZIPFIAN_CONSTANT),
        }
    }

    /// Next key number given the counter's current last value.
    pub fn next(&mut self, rng: &mut RngStream, basis_last: u64) -> u64 {
        basis_last.saturating_sub(self.zipfian.next_long(rng, basis_last))
    }

    /// The underlying zipfian (its zetan grows with inserts).
    pub fn zipfian(&self) -> &ZipfianGenerator {
        &self.zipfian
    }
}
