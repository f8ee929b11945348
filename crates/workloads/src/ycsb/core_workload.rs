//! YCSB's `CoreWorkload`: the spec (its properties), the presets of
//! `workloads/workload{a..f}`, and the load and run phases as iterators of
//! [`YcsbOp`]s.
//!
//! Follows `core/src/main/java/site/ycsb/workloads/CoreWorkload.java` (`init`,
//! `doInsert`, `doTransaction*`, `nextKeynum`, `createOperationGenerator`) for one
//! client thread with `insertstart = 0`, `insertcount = recordcount`.

use thiserror::Error;
use zonelab_engine::{RngStream, RngStreams};

use super::generators::{
    AcknowledgedCounter, DiscreteGenerator, HotspotGenerator, Throttle, UniformLongGenerator,
};
use super::keys::InsertOrder;
use super::zipfian::{
    ScrambledZipfianGenerator, SkewedLatestGenerator, ZipfianGenerator, ZIPFIAN_CONSTANT,
};

/// How run-phase keys are chosen (`requestdistribution`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RequestDistribution {
    /// `UniformLongGenerator(0, recordcount − 1)` — fixed at start, so keys inserted
    /// during the run are never chosen (as in YCSB).
    Uniform,
    /// `ScrambledZipfianGenerator(0, recordcount + expectednewkeys)` with
    /// `expectednewkeys = (int)(operationcount · insertproportion · 2.0)`; draws above
    /// the last inserted key are redrawn. θ is [`CoreWorkloadSpec::zipfian_constant`]
    /// (YCSB: always 0.99).
    Zipfian,
    /// `SkewedLatestGenerator` over the insert counter (θ = 0.99, as YCSB).
    Latest,
    /// `HotspotIntegerGenerator(0, recordcount − 1, hotspotdatafraction,
    /// hotspotopnfraction)`.
    Hotspot {
        data_fraction: f64,
        opn_fraction: f64,
    },
}

/// How scan lengths are chosen (`scanlengthdistribution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanLengthDistribution {
    /// `UniformLongGenerator(minscanlength, maxscanlength)`.
    Uniform,
    /// `ZipfianGenerator(minscanlength, maxscanlength)` (θ = 0.99).
    Zipfian,
}

/// The properties of YCSB's CoreWorkload that shape the operation stream. Defaults
/// ([`Default`]) are CoreWorkload's own (`readproportion=0.95`, `updateproportion=0.05`,
/// `requestdistribution=uniform`, `maxscanlength=1000`, `insertorder=hashed`,
/// `fieldcount=10`, `fieldlength=100`, …) with `recordcount=operationcount=1000`
/// as in the shipped workload files. Reads read all fields (`readallfields=true`, as
/// every shipped workload); field lengths are constant (`fieldlengthdistribution=constant`).
#[derive(Debug, Clone, PartialEq)]
pub struct CoreWorkloadSpec {
    pub record_count: u64,
    pub operation_count: u64,
    pub read_proportion: f64,
    pub update_proportion: f64,
    pub insert_proportion: f64,
    pub scan_proportion: f64,
    pub read_modify_write_proportion: f64,
    pub request_distribution: RequestDistribution,
    /// θ of the zipfian request distribution (> 0, ≠ 1). YCSB fixes 0.99; other
    /// values are ZoneLab's extension (HHZS uses 0.9 and 1.2).
    pub zipfian_constant: f64,
    pub min_scan_length: u64,
    pub max_scan_length: u64,
    pub scan_length_distribution: ScanLengthDistribution,
    pub insert_order: InsertOrder,
    pub field_count: u64,
    pub field_length_bytes: u64,
    /// `writeallfields`: updates and read-modify-writes write every field (else one).
    pub write_all_fields: bool,
    /// `zeropadding` of key names (YCSB default 1: no padding).
    pub zero_padding: usize,
    /// `-target` in ops/s over all threads; 0 = unthrottled.
    pub target_ops_per_s: u64,
    /// `-threads`, only used to split `target` into per-thread ticks.
    pub threads: u32,
}

impl Default for CoreWorkloadSpec {
    fn default() -> Self {
        Self {
            record_count: 1000,
            operation_count: 1000,
            read_proportion: 0.95,
            update_proportion: 0.05,
            insert_proportion: 0.0,
            scan_proportion: 0.0,
            read_modify_write_proportion: 0.0,
            request_distribution: RequestDistribution::Uniform,
            zipfian_constant: ZIPFIAN_CONSTANT,
            min_scan_length: 1,
            max_scan_length: 1000,
            scan_length_distribution: ScanLengthDistribution::Uniform,
            insert_order: InsertOrder::Hashed,
            field_count: 10,
            field_length_bytes: 100,
            write_all_fields: false,
            zero_padding: 1,
            target_ops_per_s: 0,
            threads: 1,
        }
    }
}

/// A spec property with a value outside what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("ycsb: {property} = {value}: {allowed}")]
pub struct YcsbError {
    /// YCSB's property name.
    pub property: &'static str,
    pub value: String,
    /// What is allowed.
    pub allowed: String,
}

fn bad(property: &'static str, value: impl std::fmt::Display, allowed: &str) -> YcsbError {
    YcsbError {
        property,
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

/// Workload A (update heavy): 50 % read, 50 % update, zipfian.
pub fn workload_a() -> CoreWorkloadSpec {
    CoreWorkloadSpec {
        read_proportion: 0.5,
        update_proportion: 0.5,
        request_distribution: RequestDistribution::Zipfian,
        ..CoreWorkloadSpec::default()
    }
}

/// Workload B (read mostly): 95 % read, 5 % update, zipfian.
pub fn workload_b() -> CoreWorkloadSpec {
    CoreWorkloadSpec {
        read_proportion: 0.95,
        update_proportion: 0.05,
        request_distribution: RequestDistribution::Zipfian,
        ..CoreWorkloadSpec::default()
    }
}

/// Workload C (read only): 100 % read, zipfian.
pub fn workload_c() -> CoreWorkloadSpec {
    CoreWorkloadSpec {
        read_proportion: 1.0,
        update_proportion: 0.0,
        request_distribution: RequestDistribution::Zipfian,
        ..CoreWorkloadSpec::default()
    }
}

/// Workload D (read latest): 95 % read, 5 % insert, latest.
pub fn workload_d() -> CoreWorkloadSpec {
    CoreWorkloadSpec {
        read_proportion: 0.95,
        update_proportion: 0.0,
        insert_proportion: 0.05,
        request_distribution: RequestDistribution::Latest,
        ..CoreWorkloadSpec::default()
    }
}

/// Workload E (short ranges): 95 % scan, 5 % insert, zipfian, scan length uniform
/// in 1..=100.
pub fn workload_e() -> CoreWorkloadSpec {
    CoreWorkloadSpec {
        read_proportion: 0.0,
        update_proportion: 0.0,
        scan_proportion: 0.95,
        insert_proportion: 0.05,
        request_distribution: RequestDistribution::Zipfian,
        max_scan_length: 100,
        scan_length_distribution: ScanLengthDistribution::Uniform,
        ..CoreWorkloadSpec::default()
    }
}

/// Workload F (read-modify-write): 50 % read, 50 % read-modify-write, zipfian.
pub fn workload_f() -> CoreWorkloadSpec {
    CoreWorkloadSpec {
        read_proportion: 0.5,
        update_proportion: 0.0,
        read_modify_write_proportion: 0.5,
        request_distribution: RequestDistribution::Zipfian,
        ..CoreWorkloadSpec::default()
    }
}

/// The preset for a workload letter `a`..`f` (either case).
pub fn workload(letter: char) -> Result<CoreWorkloadSpec, YcsbError> {
    Ok(match letter.to_ascii_lowercase() {
        'a' => workload_a(),
        'b' => workload_b(),
        'c' => workload_c(),
        'd' => workload_d(),
        'e' => workload_e(),
        'f' => workload_f(),
        _ => return Err(bad("workload", letter, "one of a, b, c, d, e, f")),
    })
}

/// A custom read/update mix over a zipfian with constant `alpha`: `read_ratio`
/// reads, `1 − read_ratio` updates (the HHZS-style sweep of read ratio and α).
pub fn custom(read_ratio: f64, alpha: f64) -> Result<CoreWorkloadSpec, YcsbError> {
    if !(0.0..=1.0).contains(&read_ratio) {
        return Err(bad("readproportion", read_ratio, "a ratio in [0, 1]"));
    }
    let spec = CoreWorkloadSpec {
        read_proportion: read_ratio,
        update_proportion: 1.0 - read_ratio,
        request_distribution: RequestDistribution::Zipfian,
        zipfian_constant: alpha,
        ..CoreWorkloadSpec::default()
    };
    spec.validate()?;
    Ok(spec)
}

impl CoreWorkloadSpec {
    /// Checks every property; the error names the property, its value and what is
    /// allowed.
    pub fn validate(&self) -> Result<(), YcsbError> {
        // Key numbers are Java longs; keep room for the run's inserts.
        if self.record_count == 0 || self.record_count > (i64::MAX as u64) / 4 {
            return Err(bad("recordcount", self.record_count, "1 ..= 2^61"));
        }
        if self.operation_count > (i64::MAX as u64) / 4 {
            return Err(bad("operationcount", self.operation_count, "0 ..= 2^61"));
        }
        let props = [
            ("readproportion", self.read_proportion),
            ("updateproportion", self.update_proportion),
            ("insertproportion", self.insert_proportion),
            ("scanproportion", self.scan_proportion),
            (
                "readmodifywriteproportion",
                self.read_modify_write_proportion,
            ),
        ];
        for (name, v) in props {
            if !v.is_finite() || v < 0.0 {
                return Err(bad(name, v, "a finite proportion >= 0"));
            }
        }
        if props.iter().all(|(_, v)| *v <= 0.0) {
            return Err(bad(
                "readproportion",
                self.read_proportion,
                "at least one proportion > 0",
            ));
        }
        let t = self.zipfian_constant;
        if !t.is_finite() || t <= 0.0 || t == 1.0 {
            return Err(bad(
                "zipfianconstant",
                t,
                "finite, > 0 and != 1 (YCSB's formula divides by 1 - theta)",
            ));
        }
        if let RequestDistribution::Hotspot {
            data_fraction,
            opn_fraction,
        } = self.request_distribution
        {
            if !(0.0..=1.0).contains(&data_fraction) {
                return Err(bad(
                    "hotspotdatafraction",
                    data_fraction,
                    "a fraction in [0, 1]",
                ));
            }
            if !(0.0..=1.0).contains(&opn_fraction) {
                return Err(bad(
                    "hotspotopnfraction",
                    opn_fraction,
                    "a fraction in [0, 1]",
                ));
            }
            let h = HotspotGenerator::new(0, self.record_count - 1, data_fraction, opn_fraction);
            let (hot, cold) = h.intervals();
            if (hot == 0 && opn_fraction > 0.0) || (cold == 0 && opn_fraction < 1.0) {
                return Err(bad(
                    "hotspotdatafraction",
                    data_fraction,
                    "a hot and a cold set that are non-empty where drawn from",
                ));
            }
        }
        if self.min_scan_length == 0 {
            return Err(bad("minscanlength", self.min_scan_length, ">= 1"));
        }
        if self.max_scan_length < self.min_scan_length {
            return Err(bad(
                "maxscanlength",
                self.max_scan_length,
                format!(">= minscanlength ({})", self.min_scan_length).as_str(),
            ));
        }
        if self.field_count == 0 {
            return Err(bad("fieldcount", self.field_count, ">= 1"));
        }
        if self.field_length_bytes == 0 {
            return Err(bad("fieldlength", self.field_length_bytes, ">= 1"));
        }
        if self.zero_padding > 20 {
            return Err(bad("zeropadding", self.zero_padding, "0 ..= 20"));
        }
        if self.target_ops_per_s > 0 && self.threads == 0 {
            return Err(bad("threads", self.threads, ">= 1"));
        }
        Ok(())
    }

    /// Bytes of a whole record: `fieldcount × fieldlength` (1,000 by default).
    pub fn record_value_bytes(&self) -> u64 {
        self.field_count * self.field_length_bytes
    }

    /// Bytes an update or read-modify-write writes: one field, or every field with
    /// `writeallfields`. (YCSB's key-value bindings, e.g. RocksDB, merge the fields
    /// into the stored record and rewrite all of it: use [`Self::record_value_bytes`].)
    pub fn update_value_bytes(&self) -> u64 {
        if self.write_all_fields {
            self.record_value_bytes()
        } else {
            self.field_length_bytes
        }
    }

    /// YCSB's `expectednewkeys = (int)(operationcount · insertproportion · 2.0)`.
    pub fn expected_new_keys(&self) -> u64 {
        (self.operation_count as f64 * self.insert_proportion * 2.0) as i32 as u64
    }

    /// The `-target` throttle (`None` when unthrottled).
    pub fn throttle(&self) -> Option<Throttle> {
        Throttle::new(self.target_ops_per_s, self.threads)
    }

    /// The per-thread inter-arrival time of `-target` in virtual ns.
    pub fn inter_arrival_ns(&self) -> Option<u64> {
        self.throttle().map(|t| t.tick_ns())
    }

    /// The load phase (`-load`): an insert of every record.
    pub fn load(&self) -> Result<LoadPhase, YcsbError> {
        self.validate()?;
        Ok(LoadPhase {
            next: 0,
            end: self.record_count,
            value_bytes: self.record_value_bytes(),
        })
    }

    /// The run phase (`-t`): `operationcount` operations drawn from the streams of
    /// `rngs` named `ycsb.run.op`, `ycsb.run.key` and `ycsb.run.scan`.
    pub fn run(&self, rngs: &RngStreams) -> Result<RunPhase, YcsbError> {
        self.validate()?;
        RunPhase::new(self, rngs)
    }
}

/// One YCSB operation; keys are key numbers (see [`super::keys`] for the names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YcsbOp {
    /// Read every field of a record.
    Read { key: u64 },
    /// Write `value_bytes` of fields of an existing record.
    Update { key: u64, value_bytes: u64 },
    /// Insert a new record of `value_bytes`.
    Insert { key: u64, value_bytes: u64 },
    /// Read `len` records in key-name order from the one named by `start_key`.
    Scan { start_key: u64, len: u64 },
    /// Read a record, then write `value_bytes` of its fields.
    ReadModifyWrite { key: u64, value_bytes: u64 },
}

impl YcsbOp {
    /// The (start) key number of the operation.
    pub fn key(&self) -> u64 {
        match *self {
            YcsbOp::Read { key }
            | YcsbOp::Update { key, .. }
            | YcsbOp::Insert { key, .. }
            | YcsbOp::ReadModifyWrite { key, .. } => key,
            YcsbOp::Scan { start_key, .. } => start_key,
        }
    }
}

/// The load phase: `Insert { key: k }` for k in 0..recordcount (`doInsert` with the
/// `keysequence` counter from `insertstart = 0`).
#[derive(Debug, Clone)]
pub struct LoadPhase {
    next: u64,
    end: u64,
    value_bytes: u64,
}

impl Iterator for LoadPhase {
    type Item = YcsbOp;

    fn next(&mut self) -> Option<YcsbOp> {
        if self.next >= self.end {
            return None;
        }
        let key = self.next;
        self.next += 1;
        Some(YcsbOp::Insert {
            key,
            value_bytes: self.value_bytes,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpKind {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

#[derive(Debug, Clone)]
enum KeyChooser {
    Uniform(UniformLongGenerator),
    Zipfian(ScrambledZipfianGenerator),
    Latest(SkewedLatestGenerator),
    Hotspot(HotspotGenerator),
}

#[derive(Debug, Clone)]
enum ScanLength {
    Uniform(UniformLongGenerator),
    Zipfian(ZipfianGenerator),
}

/// The run phase: `operationcount` operations of `doTransaction`. Inserts take the
/// next number of the insert counter (starting at `recordcount`), and `latest` and
/// the zipfian's redraw bound follow it.
#[derive(Debug, Clone)]
pub struct RunPhase {
    remaining: u64,
    ops: DiscreteGenerator<OpKind>,
    keys: KeyChooser,
    scan_len: ScanLength,
    max_scan_length: u64,
    insert_counter: AcknowledgedCounter,
    record_value_bytes: u64,
    update_value_bytes: u64,
    op_rng: RngStream,
    key_rng: RngStream,
    scan_rng: RngStream,
}

impl RunPhase {
    fn new(spec: &CoreWorkloadSpec, rngs: &RngStreams) -> Result<Self, YcsbError> {
        let ops = DiscreteGenerator::new(&[
            (spec.read_proportion, OpKind::Read),
            (spec.update_proportion, OpKind::Update),
            (spec.insert_proportion, OpKind::Insert),
            (spec.scan_proportion, OpKind::Scan),
            (spec.read_modify_write_proportion, OpKind::ReadModifyWrite),
        ])
        .ok_or_else(|| {
            bad(
                "readproportion",
                spec.read_proportion,
                "at least one proportion > 0",
            )
        })?;
        let n = spec.record_count;
        let insert_counter = AcknowledgedCounter::new(n);
        let keys = match spec.request_distribution {
            RequestDistribution::Uniform => {
                KeyChooser::Uniform(UniformLongGenerator::new(0, n - 1))
            }
            RequestDistribution::Zipfian => {
                KeyChooser::Zipfian(ScrambledZipfianGenerator::with_constant(
                    0,
                    n + spec.expected_new_keys(),
                    spec.zipfian_constant,
                ))
            }
            RequestDistribution::Latest => {
                KeyChooser::Latest(SkewedLatestGenerator::new(insert_counter.last_value()))
            }
            RequestDistribution::Hotspot {
                data_fraction,
                opn_fraction,
            } => KeyChooser::Hotspot(HotspotGenerator::new(0, n - 1, data_fraction, opn_fraction)),
        };
        let scan_len = match spec.scan_length_distribution {
            ScanLengthDistribution::Uniform => ScanLength::Uniform(UniformLongGenerator::new(
                spec.min_scan_length,
                spec.max_scan_length,
            )),
            ScanLengthDistribution::Zipfian => ScanLength::Zipfian(ZipfianGenerator::new(
                spec.min_scan_length,
                spec.max_scan_length,
                ZIPFIAN_CONSTANT,
            )),
        };
        Ok(Self {
            remaining: spec.operation_count,
            ops,
            keys,
            scan_len,
            max_scan_length: spec.max_scan_length,
            insert_counter,
            record_value_bytes: spec.record_value_bytes(),
            update_value_bytes: spec.update_value_bytes(),
            op_rng: rngs.stream("ycsb.run.op"),
            key_rng: rngs.stream("ycsb.run.key"),
            scan_rng: rngs.stream("ycsb.run.scan"),
        })
    }

    /// The highest key number inserted so far (`recordcount − 1` before any insert).
    pub fn last_inserted_key(&self) -> u64 {
        self.insert_counter.last_value()
    }

    /// Operations still to come.
    pub fn remaining(&self) -> u64 {
        self.remaining
    }

    /// `nextKeynum()`: draw until the key is not above the last inserted key.
    fn next_keynum(&mut self) -> u64 {
        let last = self.insert_counter.last_value();
        loop {
            let k = match &mut self.keys {
                KeyChooser::Uniform(g) => g.next(&mut self.key_rng),
                KeyChooser::Zipfian(g) => g.next(&mut self.key_rng),
                KeyChooser::Latest(g) => g.next(&mut self.key_rng, last),
                KeyChooser::Hotspot(g) => g.next(&mut self.key_rng),
            };
            if k <= last {
                return k;
            }
        }
    }

    fn next_scan_length(&mut self) -> u64 {
        let len = match &mut self.scan_len {
            ScanLength::Uniform(g) => g.next(&mut self.scan_rng),
            ScanLength::Zipfian(g) => g.next(&mut self.scan_rng),
        };
        // YCSB's zipfian can overshoot by one with probability ~2^-53; clamp.
        len.min(self.max_scan_length)
    }
}

impl Iterator for RunPhase {
    type Item = YcsbOp;

    fn next(&mut self) -> Option<YcsbOp> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let op = match self.ops.next(&mut self.op_rng) {
            OpKind::Read => YcsbOp::Read {
                key: self.next_keynum(),
            },
            OpKind::Update => YcsbOp::Update {
                key: self.next_keynum(),
                value_bytes: self.update_value_bytes,
            },
            OpKind::Insert => YcsbOp::Insert {
                key: self.insert_counter.next_value(),
                value_bytes: self.record_value_bytes,
            },
            OpKind::Scan => {
                let start_key = self.next_keynum();
                YcsbOp::Scan {
                    start_key,
                    len: self.next_scan_length(),
                }
            }
            OpKind::ReadModifyWrite => YcsbOp::ReadModifyWrite {
                key: self.next_keynum(),
                value_bytes: self.update_value_bytes,
            },
        };
        Some(op)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}
