//! Key naming: YCSB's `Utils.fnvhash64` and `CoreWorkload.buildKeyName`.
//!
//! Follows `core/src/main/java/site/ycsb/Utils.java` (`hash`, `fnvhash64`) and
//! `core/src/main/java/site/ycsb/workloads/CoreWorkload.java` (`buildKeyName`).

/// FNV-64 offset basis, as `Utils.FNV_OFFSET_BASIS_64` (0xCBF29CE484222325).
pub const FNV_OFFSET_BASIS_64: u64 = 0xCBF2_9CE4_8422_2325;
/// FNV-64 prime, as `Utils.FNV_PRIME_64` (1099511628211).
pub const FNV_PRIME_64: u64 = 1_099_511_628_211;

/// The fixed key size ZoneLab's YCSB uses for size-only simulation: `"user"` plus
/// the key number zero-padded to 20 digits (YCSB's `zeropadding=20`) is exactly
/// 24 bytes, the key size of the HHZS / db_bench YCSB setups.
pub const KEY_BYTES: usize = 24;

/// Digits of the zero padding that makes [`key_24`] exactly [`KEY_BYTES`] long.
const KEY_24_ZERO_PADDING: usize = KEY_BYTES - 4;

/// YCSB's `Utils.fnvhash64(long)`, bit for bit: FNV-1a (xor, then multiply) over the
/// 8 bytes of the two's-complement `long`, low byte first (`val & 0xff`, then an
/// arithmetic `val >> 8`), wrapping 64-bit arithmetic, and finally `Math.abs` —
/// which, as in Java, leaves `i64::MIN` negative.
pub fn fnvhash64(val: i64) -> i64 {
    let mut val = val;
    let mut hashval = FNV_OFFSET_BASIS_64 as i64;
    for _ in 0..8 {
        let octet = val & 0x00ff;
        val >>= 8; // arithmetic shift, like Java's `>>` on a long
        hashval ^= octet;
        hashval = hashval.wrapping_mul(FNV_PRIME_64 as i64);
    }
    hashval.wrapping_abs()
}

/// Whether load-phase keys are inserted in hashed or in numeric order
/// (`insertorder=hashed|ordered`; YCSB's default is `hashed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertOrder {
    /// The key of record number `k` is `"user" + fnvhash64(k)`.
    Hashed,
    /// The key of record number `k` is `"user" + k`.
    Ordered,
}

/// The signed number that appears in the key string of key number `keynum`
/// (`Utils.hash(keynum)` when hashed). Negative only in Java's `Math.abs(MIN_VALUE)`
/// corner, which `Long.toString` prints with a minus sign, as here.
pub fn key_value(keynum: u64, order: InsertOrder) -> i64 {
    match order {
        InsertOrder::Hashed => fnvhash64(keynum as i64),
        InsertOrder::Ordered => keynum as i64,
    }
}

/// Appends YCSB's key name for `keynum` to `out`: `"user"`, then `'0'`s up to
/// `zeropadding` digits, then the (hashed) number — `CoreWorkload.buildKeyName`.
pub fn write_key_name(out: &mut String, keynum: u64, zeropadding: usize, order: InsertOrder) {
    let mut buf = [0u8; 20];
    let digits = decimal_i64(key_value(keynum, order), &mut buf);
    let fill = zeropadding.saturating_sub(digits.len());
    out.push_str("user");
    for _ in 0..fill {
        out.push('0');
    }
    // Digits and '-' are ASCII.
    out.extend(digits.iter().map(|&b| b as char));
}

/// YCSB's key name for `keynum` (`CoreWorkload.buildKeyName(keynum, zeropadding,
/// orderedinserts)`), e.g. `build_key_name(0, 1, Hashed)` = `"user6284781860667377211"`.
pub fn build_key_name(keynum: u64, zeropadding: usize, order: InsertOrder) -> String {
    let mut s = String::with_capacity(KEY_BYTES);
    write_key_name(&mut s, keynum, zeropadding, order);
    s
}

/// The 24-byte key of `keynum`: YCSB's key name with `zeropadding=20`. Every
/// non-negative `long` has at most 19 digits, so the result is always exactly
/// [`KEY_BYTES`] long, and byte order equals YCSB's key order with that padding.
pub fn key_24(keynum: u64, order: InsertOrder) -> [u8; KEY_BYTES] {
    let value = key_value(keynum, order);
    let mut out = [b'0'; KEY_BYTES];
    out[..4].copy_from_slice(b"user");
    let mut buf = [0u8; 20];
    let bytes = decimal_i64(value, &mut buf);
    debug_assert!(bytes.len() <= KEY_24_ZERO_PADDING);
    out[KEY_BYTES - bytes.len()..].copy_from_slice(bytes);
    out
}

/// Decimal text of `v` (like Java's `Long.toString`) in `buf`, without allocating;
/// returns the used tail of `buf` (at most 20 bytes: `-9223372036854775808`).
fn decimal_i64(v: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut n = v.unsigned_abs();
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    &buf[at..]
}
