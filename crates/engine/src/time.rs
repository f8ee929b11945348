//! Virtual time: a `u64` count of nanoseconds that only the engine advances.

/// Virtual time or a duration, in nanoseconds.
pub type Ns = u64;

pub const NS_PER_US: Ns = 1_000;
pub const NS_PER_MS: Ns = 1_000_000;
pub const NS_PER_S: Ns = 1_000_000_000;

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * KIB;
pub const GIB: u64 = 1024 * MIB;
pub const TIB: u64 = 1024 * GIB;

/// Nanoseconds needed to move `bytes` at `bytes_per_s`, rounded up so that a
/// transfer never takes zero time.
#[inline]
pub fn transfer_ns(bytes: u64, bytes_per_s: u64) -> Ns {
    debug_assert!(bytes_per_s > 0);
    ((bytes as u128 * NS_PER_S as u128).div_ceil(bytes_per_s as u128)) as Ns
}

/// Converts a MiB/s figure (as papers and datasheets give it) to bytes/s.
#[inline]
pub fn mib_s_to_bytes_per_s(mib_s: f64) -> u64 {
    (mib_s * MIB as f64).round() as u64
}

/// Converts a microsecond figure to nanoseconds.
#[inline]
pub fn us_to_ns(us: f64) -> Ns {
    (us * NS_PER_US as f64).round() as Ns
}

/// Converts a millisecond figure to nanoseconds.
#[inline]
pub fn ms_to_ns(ms: f64) -> Ns {
    (ms * NS_PER_MS as f64).round() as Ns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_time_rounds_up_and_scales() {
        assert_eq!(transfer_ns(MIB, MIB), NS_PER_S);
        assert_eq!(transfer_ns(1, NS_PER_S * 10), 1);
        assert_eq!(transfer_ns(4096, 4096 * 1000), NS_PER_MS);
    }
}
