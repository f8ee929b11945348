//! Target `devices`: HHZS Table 1 (§2.2) — the ZN540 ZNS SSD and the ST14000NM0007
//! HM-SMR HDD measured as the paper did, with fio-like jobs at queue depth 1:
//! sequential reads and writes with 1 MiB requests, random 4 KiB reads.

use super::{ProgressSink, ReproduceError, RunOptions, Target};
use crate::bench::{precondition, run_bench, BenchOptions};
use crate::reproduce_result::{Claim, Figure, FigureKind, ReproduceResult, Series};
use zonelab_devices::open_device;
use zonelab_engine::{GIB, MIB};
use zonelab_workloads::job::{JobSpec, RwMode};

pub struct DevicesTable1;

/// Tolerance the issue sets for calibration claims.
const TOLERANCE: f64 = 0.05;

struct Measurement {
    device: &'static str,
    metric: &'static str,
    description: &'static str,
    paper: f64,
    unit: &'static str,
    rw: RwMode,
    bs_bytes: u64,
    /// Bytes moved at scale 1.
    io_bytes_at_scale_1: u64,
    /// Region the job covers at scale 1 (`None`: the whole device); read regions are
    /// written first, since reads of unwritten blocks never reach the media.
    region_bytes_at_scale_1: Option<u64>,
    /// Smallest region whatever the scale (a zone's worth, so reads spread over dies).
    min_region_bytes: u64,
}

const MEASUREMENTS: &[Measurement] = &[
    Measurement {
        device: "zn540",
        metric: "seq_read_mib_s",
        description: "ZN540 sequential read, 1 MiB, QD1 (HHZS Table 1)",
        paper: 1039.6,
        unit: "MiB/s",
        rw: RwMode::Read,
        bs_bytes: MIB,
        io_bytes_at_scale_1: 8 * GIB,
        region_bytes_at_scale_1: Some(16 * GIB),
        min_region_bytes: 2 * GIB,
    },
    Measurement {
        device: "zn540",
        metric: "seq_write_mib_s",
        description: "ZN540 sequential write, 1 MiB, QD1 (HHZS Table 1)",
        paper: 1002.8,
        unit: "MiB/s",
        rw: RwMode::Write,
        bs_bytes: MIB,
        io_bytes_at_scale_1: 8 * GIB,
        region_bytes_at_scale_1: Some(16 * GIB),
        min_region_bytes: 2 * GIB,
    },
    Measurement {
        device: "zn540",
        metric: "rand_read_iops",
        description: "ZN540 random 4 KiB reads, QD1 (HHZS Table 1)",
        paper: 16928.3,
        unit: "IOPS",
        rw: RwMode::RandRead,
        bs_bytes: 4096,
        io_bytes_at_scale_1: 4 * GIB,
        region_bytes_at_scale_1: Some(16 * GIB),
        min_region_bytes: 2 * GIB,
    },
    Measurement {
        device: "st14000nm0007",
        metric: "seq_read_mib_s",
        description: "ST14000NM0007 sequential read, 1 MiB, QD1 (HHZS Table 1)",
        paper: 210.0,
        unit: "MiB/s",
        rw: RwMode::Read,
        bs_bytes: MIB,
        io_bytes_at_scale_1: 4 * GIB,
        region_bytes_at_scale_1: Some(4 * GIB),
        min_region_bytes: GIB,
    },
    Measurement {
        device: "st14000nm0007",
        metric: "seq_write_mib_s",
        description: "ST14000NM0007 sequential write, 1 MiB, QD1 (HHZS Table 1)",
        paper: 210.0,
        unit: "MiB/s",
        rw: RwMode::Write,
        bs_bytes: MIB,
        io_bytes_at_scale_1: 4 * GIB,
        region_bytes_at_scale_1: Some(4 * GIB),
        min_region_bytes: GIB,
    },
    Measurement {
        device: "st14000nm0007",
        metric: "rand_read_iops",
        description: "ST14000NM0007 random 4 KiB reads, QD1 (HHZS Table 1)",
        paper: 115.0,
        unit: "IOPS",
        rw: RwMode::RandRead,
        bs_bytes: 4096,
        io_bytes_at_scale_1: 80 * MIB,
        region_bytes_at_scale_1: None,
        min_region_bytes: 0,
    },
];

impl Target for DevicesTable1 {
    fn name(&self) -> &'static str {
        "devices"
    }

    fn description(&self) -> &'static str {
        "HHZS Table 1: ZN540 and ST14000NM0007 at QD1 (sequential 1 MiB, random 4 KiB reads)"
    }

    fn run(
        &self,
        opts: &RunOptions,
        progress: &mut dyn ProgressSink,
    ) -> Result<ReproduceResult, ReproduceError> {
        let (scale, seed) = (opts.scale, opts.seed);
        let mut claims = Vec::new();
        let total = MEASUREMENTS.len() as u64;
        for (i, m) in MEASUREMENTS.iter().enumerate() {
            progress.step(i as u64, total, &format!("{}.{}", m.device, m.metric));
            let mut device =
                open_device(m.device).map_err(|e| ReproduceError::Run(e.to_string()))?;
            // At least 64 requests, whatever the scale.
            let io =
                ((m.io_bytes_at_scale_1 as f64 * scale) as u64 / m.bs_bytes).max(64) * m.bs_bytes;
            let region = m
                .region_bytes_at_scale_1
                .map(|r| ((r as f64 * scale) as u64).max(m.min_region_bytes));
            // Sequential jobs start at the first sequential-write-required zone (an
            // HM-SMR disk's first zones are conventional).
            let info = device.info();
            let offset = match (&info.zoned, region) {
                (Some(z), Some(_)) => {
                    z.conventional_zones as u64 * z.zone_size_blocks * info.block_bytes as u64
                }
                _ => 0,
            };
            let spec = JobSpec {
                rw: m.rw,
                block_size_bytes: m.bs_bytes,
                iodepth: 1,
                numjobs: 1,
                offset_bytes: offset,
                size_bytes: region,
                io_size_bytes: Some(io),
                ..JobSpec::default()
            };
            let fail = |e: crate::bench::BenchError| {
                ReproduceError::Run(format!("{}.{}: {e}", m.device, m.metric))
            };
            let mut opts = BenchOptions {
                seed,
                ..BenchOptions::default()
            };
            if matches!(m.rw, RwMode::Read | RwMode::RandRead) {
                opts.start_ns = precondition(device.as_mut(), &spec, &opts).map_err(fail)?;
            }
            let r = run_bench(device.as_mut(), &spec, &opts, None).map_err(fail)?;
            let measured = if m.unit == "IOPS" {
                r.iops
            } else {
                r.throughput_mib_s
            };
            claims.push(Claim::within(
                &format!("{}.{}", m.device, m.metric),
                m.description,
                m.paper,
                measured,
                m.unit,
                TOLERANCE,
            ));
        }
        progress.step(total, total, "done");
        let ratio = Figure {
            id: "measured_over_paper".to_string(),
            title: "ZoneLab / paper, HHZS Table 1 (1.0 = exact; claims hold within 0.95-1.05)"
                .to_string(),
            kind: FigureKind::Bar,
            x_label: "measurement".to_string(),
            y_label: "measured / paper".to_string(),
            categories: claims.iter().map(|c| c.id.clone()).collect(),
            series: vec![Series {
                name: "zonelab / paper".to_string(),
                points: claims
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (i as f64, c.measured / c.paper))
                    .collect(),
            }],
        };
        let figures = vec![
            figure(
                &claims,
                "seq_throughput",
                "Sequential throughput, 1 MiB, QD1",
                "MiB/s",
                |c| c.unit == "MiB/s",
            ),
            ratio,
        ];
        Ok(ReproduceResult {
            target: self.name().to_string(),
            scale,
            seed,
            version: env!("CARGO_PKG_VERSION").to_string(),
            claims,
            figures,
            notes: vec![
                "Each measurement is a `zonelab bench` job at queue depth 1 on a fresh device; read jobs first write their region once (sequential 1 MiB writes), since reads of unwritten blocks never reach the media.".to_string(),
                "At scale 1 the SSD jobs cover a 16 GiB region (8 zones) and move 8 GiB (sequential) or 4 GiB (random); the HDD sequential jobs cover 4 GiB from the first sequential zone; HDD random reads span the whole disk, as fio's default region does.".to_string(),
            ],
        })
    }
}

/// A bar figure of paper vs measured for the claims selected by `pick`.
fn figure(
    claims: &[Claim],
    id: &str,
    title: &str,
    unit: &str,
    pick: impl Fn(&Claim) -> bool,
) -> Figure {
    let chosen: Vec<&Claim> = claims.iter().filter(|c| pick(c)).collect();
    let series = |name: &str, f: &dyn Fn(&Claim) -> f64| Series {
        name: name.to_string(),
        points: chosen
            .iter()
            .enumerate()
            .map(|(i, c)| (i as f64, f(c)))
            .collect(),
    };
    Figure {
        id: id.to_string(),
        title: title.to_string(),
        kind: FigureKind::Bar,
        x_label: "measurement".to_string(),
        y_label: unit.to_string(),
        categories: chosen.iter().map(|c| c.id.clone()).collect(),
        series: vec![
            series("paper", &|c| c.paper),
            series("zonelab", &|c| c.measured),
        ],
    }
}
