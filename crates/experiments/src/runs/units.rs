//! Parsing of sizes ("4k", "1MiB", "2g") and durations ("10s", "500ms") as fio
//! users write them. Size suffixes are binary (k = KiB), as in fio.

/// Parses a byte size: a number with an optional k/m/g/t suffix (KiB, MiB, ... also
/// accepted; case-insensitive).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let digits_end = lower
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (num, suffix) = lower.split_at(digits_end);
    if num.is_empty() {
        return Err(format!(
            "`{s}` is not a size (examples: 4096, 4k, 1MiB, 2g)"
        ));
    }
    let n: u64 = num.parse().map_err(|_| format!("`{s}` is too large"))?;
    let mult: u64 = match suffix {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "`{s}` has an unknown size suffix `{suffix}` (use k, m, g or t)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{s}` is too large"))
}

/// Parses a virtual duration into nanoseconds: a number with ns/us/ms/s/m/h.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let num_end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(num_end);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (examples: 500ms, 10s, 2m)"))?;
    let mult = match suffix {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "" | "s" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => {
            return Err(format!(
                "`{s}` has an unknown time unit `{suffix}` (use ns, us, ms, s, m or h)"
            ))
        }
    };
    let ns = n * mult;
    if !ns.is_finite() || ns <= 0.0 || ns > u64::MAX as f64 {
        return Err(format!("`{s}` is not a positive duration"));
    }
    Ok(ns.round() as u64)
}

/// A virtual duration in a readable unit ("59.1 us", "8.68 ms"), for messages and
/// the CLI's tables.
pub fn fmt_ns(ns: u64) -> String {
    match ns {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{:.1} us", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.2} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", ns as f64 / 1e9),
    }
}

/// A size or duration option given as a number or as text (`4096`, `"4k"`,
/// `"100ms"`): numbers mean what the same digits mean on the command line (bytes,
/// seconds).
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum UnitArg {
    Int(u64),
    Float(f64),
    Text(String),
}

impl UnitArg {
    pub fn text(s: &str) -> Self {
        UnitArg::Text(s.to_string())
    }

    fn as_text(&self) -> String {
        match self {
            UnitArg::Int(n) => n.to_string(),
            UnitArg::Float(x) => x.to_string(),
            UnitArg::Text(s) => s.clone(),
        }
    }

    pub fn bytes(&self) -> Result<u64, String> {
        parse_size(&self.as_text())
    }

    pub fn ns(&self) -> Result<u64, String> {
        parse_duration_ns(&self.as_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert!(parse_size("abc").is_err());
        assert!(parse_size("4x").is_err());
        assert!(parse_size("99999999999t").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("10s"), Ok(10_000_000_000));
        assert_eq!(parse_duration_ns("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration_ns("1.5us"), Ok(1_500));
        assert!(parse_duration_ns("-1s").is_err());
        assert!(parse_duration_ns("10 parsecs").is_err());
        assert!(parse_duration_ns("0s").is_err());
    }

    #[test]
    fn numbers_mean_what_their_digits_mean_on_the_command_line() {
        assert_eq!(UnitArg::Int(4096).bytes(), Ok(4096));
        assert_eq!(UnitArg::text("4k").bytes(), Ok(4096));
        assert_eq!(UnitArg::Int(30).ns(), Ok(30_000_000_000));
        assert_eq!(UnitArg::Float(0.5).ns(), Ok(500_000_000));
        assert!(UnitArg::Float(1.5).bytes().is_err());
    }
}
