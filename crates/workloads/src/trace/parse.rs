//! Byte-level field splitting and number parsing shared by the formats. Nothing here
//! allocates on the success path: fields are slices of the reader's line buffer.

use super::error::{FieldProblem, LineError};

/// No format has more fields than this; a longer line is still counted exactly.
pub(crate) const MAX_FIELDS: usize = 12;

/// The fields of one line (the first `MAX_FIELDS` of them kept), and how many there were.
pub(crate) struct Fields<'a> {
    items: [&'a [u8]; MAX_FIELDS],
    count: usize,
}

impl<'a> Fields<'a> {
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Field `i`; callers check `count()` first.
    pub(crate) fn get(&self, i: usize) -> &'a [u8] {
        self.items[i]
    }

    /// An error unless there are exactly `layout.len()` fields.
    pub(crate) fn expect(&self, layout: &Layout) -> Result<(), LineError> {
        if self.count == layout.names.len() {
            Ok(())
        } else {
            Err(LineError::FieldCount {
                expected: layout.names.len(),
                found: self.count,
                layout: layout.text,
                separator: layout.separator,
            })
        }
    }
}

/// A format's column layout, for field-count errors.
pub(crate) struct Layout {
    pub(crate) names: &'static [&'static str],
    /// The columns as one line, for messages.
    pub(crate) text: &'static str,
    pub(crate) separator: &'static str,
}

/// Splits on `,`; each field has surrounding spaces and tabs trimmed.
pub(crate) fn split_commas(line: &[u8]) -> Fields<'_> {
    let mut items: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
    let mut count = 0;
    let mut start = 0;
    for (i, &b) in line.iter().enumerate() {
        if b == b',' {
            if count < MAX_FIELDS {
                items[count] = line[start..i].trim_ascii();
            }
            count += 1;
            start = i + 1;
        }
    }
    if count < MAX_FIELDS {
        items[count] = line[start..].trim_ascii();
    }
    Fields {
        items,
        count: count + 1,
    }
}

/// Splits on runs of ASCII whitespace.
pub(crate) fn split_whitespace(line: &[u8]) -> Fields<'_> {
    let mut items: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
    let mut count = 0;
    let mut i = 0;
    let n = line.len();
    while i < n {
        while i < n && line[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        while i < n && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        if count < MAX_FIELDS {
            items[count] = &line[start..i];
        }
        count += 1;
    }
    Fields { items, count }
}

fn all_digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

/// A decimal `u64`: digits only (no sign, no spaces).
#[inline]
pub(crate) fn parse_u64(s: &[u8]) -> Result<u64, FieldProblem> {
    if s.first() == Some(&b'-') {
        return Err(if all_digits(&s[1..]) {
            FieldProblem::Negative
        } else {
            FieldProblem::NotUnsigned
        });
    }
    if s.is_empty() {
        return Err(FieldProblem::NotUnsigned);
    }
    let mut value: u64 = 0;
    for (i, &b) in s.iter().enumerate() {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return Err(FieldProblem::NotUnsigned);
        }
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(digit)))
        {
            Some(v) => value = v,
            None => {
                return Err(if all_digits(&s[i..]) {
                    FieldProblem::TooLarge
                } else {
                    FieldProblem::NotUnsigned
                })
            }
        }
    }
    Ok(value)
}

/// A hexadecimal `u64` with an optional `0x`/`0X` prefix (what C's `%x` reads).
pub(crate) fn parse_hex_u64(s: &[u8]) -> Result<u64, FieldProblem> {
    if s.first() == Some(&b'-') {
        let rest = strip_hex_prefix(&s[1..]);
        return Err(
            if !rest.is_empty() && rest.iter().all(u8::is_ascii_hexdigit) {
                FieldProblem::Negative
            } else {
                FieldProblem::NotHex
            },
        );
    }
    let digits = strip_hex_prefix(s);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
        return Err(FieldProblem::NotHex);
    }
    let mut value: u64 = 0;
    for &b in digits {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b - b'A' + 10,
        };
        value = value
            .checked_mul(16)
            .map(|v| v | u64::from(digit))
            .ok_or(FieldProblem::TooLarge)?;
    }
    Ok(value)
}

fn strip_hex_prefix(s: &[u8]) -> &[u8] {
    match s {
        [b'0', b'x' | b'X', rest @ ..] => rest,
        _ => s,
    }
}

const NS_PER_MS: u64 = 1_000_000;
/// Fractional millisecond digits that are still whole nanoseconds.
const MS_FRACTION_DIGITS_NS: usize = 6;
const NS_PER_S: u64 = 1_000_000_000;
/// Fractional second digits that are still whole nanoseconds.
const S_FRACTION_DIGITS_NS: usize = 9;

/// A non-negative decimal number of milliseconds (`12`, `12.5`, `.5`, `12.`), exactly
/// converted to nanoseconds: no floating point. Digits below a nanosecond are rounded
/// half up (the 7th fractional digit decides).
pub(crate) fn parse_decimal_ms_as_ns(s: &[u8]) -> Result<u64, FieldProblem> {
    parse_decimal_as_ns(s, NS_PER_MS, MS_FRACTION_DIGITS_NS)
}

/// A non-negative decimal number of seconds (`1538323199`, `1538323199.25`), exactly
/// converted to nanoseconds like [`parse_decimal_ms_as_ns`] (the 10th fractional
/// digit rounds).
pub(crate) fn parse_decimal_s_as_ns(s: &[u8]) -> Result<u64, FieldProblem> {
    parse_decimal_as_ns(s, NS_PER_S, S_FRACTION_DIGITS_NS)
}

/// A decimal number of units of `ns_per_unit` nanoseconds, `fraction_digits` being
/// the fractional digits that are whole nanoseconds (`ns_per_unit == 10^fraction_digits`).
fn parse_decimal_as_ns(
    s: &[u8],
    ns_per_unit: u64,
    fraction_digits: usize,
) -> Result<u64, FieldProblem> {
    let (negative, body) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac_part) = match body.iter().position(|&b| b == b'.') {
        Some(dot) => (&body[..dot], &body[dot + 1..]),
        None => (body, &body[body.len()..]),
    };
    let well_formed = (!int_part.is_empty() || !frac_part.is_empty())
        && int_part.iter().all(u8::is_ascii_digit)
        && frac_part.iter().all(u8::is_ascii_digit);
    if !well_formed {
        return Err(FieldProblem::NotDecimal);
    }
    if negative {
        return Err(FieldProblem::Negative);
    }
    let whole_units = if int_part.is_empty() {
        0
    } else {
        parse_u64(int_part)?
    };
    let mut fraction_ns: u64 = 0;
    for i in 0..fraction_digits {
        let digit = frac_part.get(i).map_or(0, |b| u64::from(b - b'0'));
        fraction_ns = fraction_ns * 10 + digit;
    }
    let round_up = frac_part.get(fraction_digits).is_some_and(|&b| b >= b'5');
    whole_units
        .checked_mul(ns_per_unit)
        .and_then(|ns| ns.checked_add(fraction_ns + u64::from(round_up)))
        .ok_or(FieldProblem::ScaledTooLarge {
            unit: "nanoseconds",
        })
}

/// Field `index` as a `u64`, or an error naming the field.
#[inline]
pub(crate) fn u64_field(
    fields: &Fields<'_>,
    index: usize,
    name: &'static str,
) -> Result<u64, LineError> {
    let value = fields.get(index);
    parse_u64(value).map_err(|p| LineError::field_error(name, value, p))
}

/// `count` units of `unit_bytes` (sectors), as bytes, or an error naming the field.
pub(crate) fn scaled_field(
    fields: &Fields<'_>,
    index: usize,
    name: &'static str,
    unit_bytes: u64,
) -> Result<u64, LineError> {
    let value = fields.get(index);
    parse_u64(value)
        .and_then(|v| {
            v.checked_mul(unit_bytes)
                .ok_or(FieldProblem::ScaledTooLarge { unit: "bytes" })
        })
        .map_err(|p| LineError::field_error(name, value, p))
}

/// Checks that `offset + size` is a valid byte address; the error names the size field.
#[inline]
pub(crate) fn check_end(
    fields: &Fields<'_>,
    size_index: usize,
    size_name: &'static str,
    offset_bytes: u64,
    size_bytes: u64,
) -> Result<(), LineError> {
    if offset_bytes.checked_add(size_bytes).is_some() {
        Ok(())
    } else {
        Err(LineError::field_error(
            size_name,
            fields.get(size_index),
            FieldProblem::EndOverflow { offset_bytes },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_integers() {
        assert_eq!(parse_u64(b"0"), Ok(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_u64(b"18446744073709551616"),
            Err(FieldProblem::TooLarge)
        );
        assert_eq!(
            parse_u64(b"184467440737095516160x"),
            Err(FieldProblem::NotUnsigned)
        );
        assert_eq!(parse_u64(b"-3"), Err(FieldProblem::Negative));
        assert_eq!(parse_u64(b"-"), Err(FieldProblem::NotUnsigned));
        assert_eq!(parse_u64(b""), Err(FieldProblem::NotUnsigned));
        assert_eq!(parse_u64(b"+3"), Err(FieldProblem::NotUnsigned));
        assert_eq!(parse_u64(b"1.5"), Err(FieldProblem::NotUnsigned));
        assert_eq!(parse_u64(b"abc"), Err(FieldProblem::NotUnsigned));
    }

    #[test]
    fn hexadecimal_integers() {
        assert_eq!(parse_hex_u64(b"0"), Ok(0));
        assert_eq!(parse_hex_u64(b"1"), Ok(1));
        assert_eq!(parse_hex_u64(b"0x11"), Ok(0x11));
        assert_eq!(parse_hex_u64(b"Ff"), Ok(0xff));
        assert_eq!(parse_hex_u64(b"ffffffffffffffff"), Ok(u64::MAX));
        assert_eq!(
            parse_hex_u64(b"10000000000000000"),
            Err(FieldProblem::TooLarge)
        );
        assert_eq!(parse_hex_u64(b"0x"), Err(FieldProblem::NotHex));
        assert_eq!(parse_hex_u64(b"g"), Err(FieldProblem::NotHex));
        assert_eq!(parse_hex_u64(b"-1"), Err(FieldProblem::Negative));
    }

    #[test]
    fn decimal_milliseconds_are_exact() {
        assert_eq!(parse_decimal_ms_as_ns(b"0"), Ok(0));
        assert_eq!(parse_decimal_ms_as_ns(b"0.000000"), Ok(0));
        assert_eq!(parse_decimal_ms_as_ns(b"12"), Ok(12_000_000));
        assert_eq!(parse_decimal_ms_as_ns(b"12."), Ok(12_000_000));
        assert_eq!(parse_decimal_ms_as_ns(b".5"), Ok(500_000));
        assert_eq!(parse_decimal_ms_as_ns(b"1.000001"), Ok(1_000_001));
        // 0.1 is not exact in binary floating point; here it is.
        assert_eq!(parse_decimal_ms_as_ns(b"0.1"), Ok(100_000));
        assert_eq!(parse_decimal_ms_as_ns(b"12.3456784"), Ok(12_345_678));
        assert_eq!(parse_decimal_ms_as_ns(b"12.3456785"), Ok(12_345_679));
        assert_eq!(
            parse_decimal_ms_as_ns(b"18446744073709"),
            Ok(18_446_744_073_709_000_000)
        );
        assert_eq!(
            parse_decimal_ms_as_ns(b"18446744073710"),
            Err(FieldProblem::ScaledTooLarge {
                unit: "nanoseconds"
            })
        );
        assert_eq!(parse_decimal_ms_as_ns(b"-1.5"), Err(FieldProblem::Negative));
        assert_eq!(parse_decimal_ms_as_ns(b"."), Err(FieldProblem::NotDecimal));
        assert_eq!(parse_decimal_ms_as_ns(b""), Err(FieldProblem::NotDecimal));
        assert_eq!(
            parse_decimal_ms_as_ns(b"1e3"),
            Err(FieldProblem::NotDecimal)
        );
        assert_eq!(
            parse_decimal_ms_as_ns(b"1.2.3"),
            Err(FieldProblem::NotDecimal)
        );
    }

    #[test]
    fn decimal_seconds_are_exact() {
        assert_eq!(
            parse_decimal_s_as_ns(b"1538323199"),
            Ok(1_538_323_199_000_000_000)
        );
        assert_eq!(parse_decimal_s_as_ns(b"0.25"), Ok(250_000_000));
        assert_eq!(parse_decimal_s_as_ns(b"1.0000000015"), Ok(1_000_000_002));
        assert_eq!(
            parse_decimal_s_as_ns(b"18446744074"),
            Err(FieldProblem::ScaledTooLarge {
                unit: "nanoseconds"
            })
        );
        assert_eq!(parse_decimal_s_as_ns(b"-1"), Err(FieldProblem::Negative));
        assert_eq!(parse_decimal_s_as_ns(b"1s"), Err(FieldProblem::NotDecimal));
    }

    #[test]
    fn splitting() {
        let f = split_commas(b" 1, R ,,4");
        assert_eq!(f.count(), 4);
        assert_eq!(f.get(0), b"1");
        assert_eq!(f.get(1), b"R");
        assert_eq!(f.get(2), b"");
        assert_eq!(f.get(3), b"4");
        assert_eq!(split_commas(b"a,b,c,d,e,f,g,h,i,j").count(), 10);
        assert_eq!(split_commas(b"").count(), 1);
        let w = split_whitespace(b"  1.5\t0 8  16 1 ");
        assert_eq!(w.count(), 5);
        assert_eq!(w.get(0), b"1.5");
        assert_eq!(w.get(4), b"1");
        assert_eq!(split_whitespace(b"1 2 3 4 5 6 7 8 9 10 11").count(), 11);
    }
}
