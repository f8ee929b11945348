//! The result of `zonelab reproduce <target>`: claims compared with a paper and the
//! figures (series of points) behind them. Serialised to `results.json`, which must
//! be byte-identical across runs with the same seed: no wall-clock data here.

use serde::Serialize;

/// One claim from a paper, compared with what this run measured.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Claim {
    /// Stable id, e.g. `zn540.seq_read_mib_s`.
    pub id: String,
    pub description: String,
    /// The paper's value.
    pub paper: f64,
    /// This run's value.
    pub measured: f64,
    pub unit: String,
    /// Tolerance used for `holds`, as a fraction of `paper` (0.05 = ±5%).
    pub tolerance: f64,
    pub holds: bool,
    /// When `measured` is the median of several draws (e.g. loads stopped at
    /// several end points): the smallest and largest draw and their number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// How `holds` was judged, so a claim can be judged again on another
    /// measurement (the median of several draws, [`Claim::judged_on`]).
    #[serde(skip)]
    check: Check,
}

/// The test behind a claim's `holds`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Check {
    /// Within ±`tolerance` of `paper`.
    Within,
    /// In the paper's range `[lo, hi]` (kept exact: `paper`/`tolerance` are rounded).
    InRange { lo: f64, hi: f64 },
    /// At least `paper`.
    AtLeast,
}

/// The range of the draws behind a median.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Spread {
    pub min: f64,
    pub max: f64,
    pub draws: usize,
    /// Every draw, in draw order (paired draws of two schemes share an index).
    pub values: Vec<f64>,
}

/// The median of `values` (the mean of the middle two for an even count; 0 for none).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

impl Claim {
    /// Records the draws behind a median `measured` (does not change `holds`).
    pub fn with_spread(mut self, draws: &[f64]) -> Self {
        if draws.len() > 1 {
            let min = draws.iter().copied().fold(f64::INFINITY, f64::min);
            let max = draws.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            self.spread = Some(Spread {
                min: round_sig(min),
                max: round_sig(max),
                draws: draws.len(),
                values: draws.iter().map(|&v| round_sig(v)).collect(),
            });
        }
        self
    }

    /// The same claim judged on `measured` instead (e.g. the median of several
    /// draws): same id, paper value and test; no spread.
    pub fn judged_on(&self, measured: f64) -> Self {
        let (id, description, unit) = (&self.id, &self.description, &self.unit);
        match self.check {
            Check::Within => {
                Self::within(id, description, self.paper, measured, unit, self.tolerance)
            }
            Check::InRange { lo, hi } => Self::in_range(id, description, lo, hi, measured, unit),
            Check::AtLeast => Self::at_least(id, description, self.paper, measured, unit),
        }
    }
}

impl Claim {
    /// A claim that holds when `measured` is within ±`tolerance` (fraction) of `paper`.
    pub fn within(
        id: &str,
        description: &str,
        paper: f64,
        measured: f64,
        unit: &str,
        tolerance: f64,
    ) -> Self {
        let holds = paper != 0.0 && ((measured - paper) / paper).abs() <= tolerance;
        Self {
            id: id.to_string(),
            description: description.to_string(),
            paper,
            measured: round_sig(measured),
            unit: unit.to_string(),
            tolerance,
            holds,
            spread: None,
            check: Check::Within,
        }
    }
}

impl Claim {
    /// A claim that holds when `measured` lies in the paper's range `[lo, hi]`
    /// (reported as its midpoint with the half-width as tolerance).
    pub fn in_range(
        id: &str,
        description: &str,
        lo: f64,
        hi: f64,
        measured: f64,
        unit: &str,
    ) -> Self {
        let mid = (lo + hi) / 2.0;
        Self {
            id: id.to_string(),
            description: description.to_string(),
            paper: round_sig(mid),
            measured: round_sig(measured),
            unit: unit.to_string(),
            tolerance: round_sig((hi - lo) / 2.0 / mid),
            holds: measured >= lo && measured <= hi,
            spread: None,
            check: Check::InRange { lo, hi },
        }
    }
}

impl Claim {
    /// A direction claim: holds when `measured` ≥ `bound` (e.g. "HHZS beats B3":
    /// a throughput ratio of at least 1). Reported with the bound as the paper's
    /// value and no tolerance.
    pub fn at_least(id: &str, description: &str, bound: f64, measured: f64, unit: &str) -> Self {
        Self {
            id: id.to_string(),
            description: description.to_string(),
            paper: bound,
            measured: round_sig(measured),
            unit: unit.to_string(),
            tolerance: 0.0,
            holds: measured >= bound,
            spread: None,
            check: Check::AtLeast,
        }
    }
}

/// A plotted series: named (x, y) points.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// How a figure is drawn.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FigureKind {
    Line,
    /// One bar per series point; x values are category indices into `categories`.
    Bar,
}

/// A figure: one or more series sharing axes.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Figure {
    /// Stable id, also the CSV file name (`<id>.csv`).
    pub id: String,
    pub title: String,
    pub kind: FigureKind,
    pub x_label: String,
    pub y_label: String,
    /// Category names for bar figures (empty for line figures).
    pub categories: Vec<String>,
    pub series: Vec<Series>,
}

impl Figure {
    /// A bar figure: one bar per series point, x values index `categories`.
    pub fn bar(
        id: &str,
        title: &str,
        x_label: &str,
        y_label: &str,
        categories: Vec<String>,
        series: Vec<Series>,
    ) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            kind: FigureKind::Bar,
            x_label: x_label.into(),
            y_label: y_label.into(),
            categories,
            series,
        }
    }

    /// A line figure.
    pub fn line(id: &str, title: &str, x_label: &str, y_label: &str, series: Vec<Series>) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            kind: FigureKind::Line,
            x_label: x_label.into(),
            y_label: y_label.into(),
            categories: Vec::new(),
            series,
        }
    }
}

/// Everything `results.json` holds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReproduceResult {
    pub target: String,
    pub scale: f64,
    pub seed: u64,
    pub version: String,
    pub claims: Vec<Claim>,
    pub figures: Vec<Figure>,
    /// Free-form notes the target wants in the report (e.g. why a claim misses).
    pub notes: Vec<String>,
}

/// Rounds to 6 significant digits so JSON stays readable and stable.
pub fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let digits = 6 - 1 - x.abs().log10().floor() as i32;
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_judged_on_another_measurement_keeps_its_test() {
        let w = Claim::within("w", "d", 100.0, 104.0, "x", 0.05);
        assert!(w.holds);
        let w2 = w.judged_on(106.0);
        assert_eq!((w2.measured, w2.holds, w2.tolerance), (106.0, false, 0.05));
        assert_eq!((w2.id.as_str(), w2.description.as_str()), ("w", "d"));
        // The range test uses the exact bounds, not the rounded midpoint/tolerance.
        let r = Claim::in_range("r", "", 0.0, 10.0, 12.0, "%");
        assert!(!r.holds);
        assert!(r.judged_on(10.0).holds);
        assert!(!r.judged_on(-0.1).holds);
        let a = Claim::at_least("a", "", 1.0, 0.99, "x");
        assert!(!a.holds);
        assert!(a.judged_on(1.0).holds);
        assert_eq!(a.judged_on(1.0).tolerance, 0.0);
    }

    #[test]
    fn claim_holds_within_tolerance_only() {
        assert!(Claim::within("a", "", 100.0, 104.9, "x", 0.05).holds);
        assert!(!Claim::within("a", "", 100.0, 105.1, "x", 0.05).holds);
        assert!(!Claim::within("a", "", 100.0, 94.0, "x", 0.05).holds);
    }

    #[test]
    fn rounding_keeps_six_significant_digits() {
        assert_eq!(round_sig(1039.61234), 1039.61);
        assert_eq!(round_sig(0.000123456789), 0.000123457);
    }
}
