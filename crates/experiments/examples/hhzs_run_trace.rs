//! Diagnostic for write-heavy HHZS runs (docs/hhzs.md, "Write-heavy runs: where
//! P's gain goes"): per scheme, the load to the paper's record count at `scale`,
//! then one workload on a closed-and-reopened fork (as `reproduce hhzs` runs it),
//! traced in `lines` slices. Each slice prints the SSD's empty zones, its zones
//! held per level (live SSTs), the HDD-resident SSTs per level, the policy's
//! tiering state, the slice's HDD point reads per level and its stall time. The
//! end prints the run's bytes per write class on each device (WAL, L0.., with the
//! SSD share), compaction read bytes, and the bound that placement alone can give
//! over the scheme: HDD reads ÷ (HDD reads − HDD reads at L0–L2).
//!
//! `cargo run --release -p zonelab-experiments --example hhzs_run_trace --
//!  [scale] [run seed] [read %] [alpha] [schemes, e.g. b3,p,hhzs] [lines] [ablation]`
//! with ablation `hdd-from-l3` (P, P+M, HHZS: SSTs of L3 and above always go to
//! the HDD, `WriteGuided::hdd_from_level`) or `ssd-zones=N` (an SSD of N zones
//! instead of the paper's 20, the pool included, as in Exp#5).

use std::collections::BTreeMap;
use zonelab_engine::RngStreams;
use zonelab_experiments::hhzs_eval::{open_scheme, open_scheme_with_policy, Scheme};
use zonelab_experiments::hhzs_setup::{
    positional_arg as arg, HybridSetup, TakeOps, YcsbOps, PAPER_RECORDS,
};
use zonelab_systems::hhzs::{FileClass, WriteGuided};
use zonelab_workloads::ycsb::custom;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale: f64 = arg(&args, 0, "scale", 0.05)?;
    let seed: u64 = arg(&args, 1, "seed", 1)?;
    let read_pct: f64 = arg(&args, 2, "read percentage", 10.0)?;
    let alpha: f64 = arg(&args, 3, "alpha", 0.9)?;
    let schemes: Vec<Scheme> = args
        .get(4)
        .map_or("b3,p,hhzs", |s| s.as_str())
        .split(',')
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let lines: u64 = arg(&args, 5, "lines", 8)?;
    let mut setup = HybridSetup::paper(scale);
    let hdd_from_l3 = match args.get(6).map(String::as_str) {
        None => false,
        Some("hdd-from-l3") => true,
        Some(z) if z.starts_with("ssd-zones=") => {
            setup.ssd_zones = z["ssd-zones=".len()..]
                .parse()
                .ok()
                .filter(|&n: &u32| n >= 4)
                .ok_or_else(|| format!("`{z}`: the SSD needs a whole number of zones ≥ 4"))?;
            false
        }
        Some(other) => {
            return Err(format!(
                "unknown ablation `{other}` (hdd-from-l3, ssd-zones=N)"
            ))
        }
    };
    if !(scale > 0.0) || lines == 0 {
        return Err("scale must be > 0 and lines ≥ 1".into());
    }
    let records = ((PAPER_RECORDS as f64 * scale).round() as u64).max(1000);
    let mut spec = custom(read_pct / 100.0, alpha).map_err(|e| e.to_string())?;
    spec.record_count = records;
    spec.operation_count = ((5e6 * scale).round() as u64).max(5_000);
    spec.field_count = 1;
    spec.field_length_bytes = setup.options.value_bytes;
    println!(
        "scale {scale}, seed {seed}, {read_pct} % reads, alpha {alpha}: {records} records, {} ops, {} SSD zones",
        spec.operation_count, setup.ssd_zones
    );
    for scheme in schemes {
        let write_guided = matches!(scheme, Scheme::P | Scheme::PM | Scheme::Hhzs);
        let mut db = if hdd_from_l3 && write_guided {
            let mut policy = WriteGuided::hhzs(scheme != Scheme::P, scheme == Scheme::Hhzs);
            policy.hdd_from_level = Some(3);
            open_scheme_with_policy(&setup, scheme, Box::new(policy))?
        } else {
            open_scheme(&setup, scheme)?
        };
        let load_spec = setup.load_spec(records);
        db.run_ops(
            &mut YcsbOps {
                inner: load_spec.load().map_err(|e| e.to_string())?,
            },
            0,
        )
        .map_err(|e| e.to_string())?;
        let mut fork = db.fork_with(db.storage().try_clone().map_err(|e| e.to_string())?);
        fork.reopen().map_err(|e| e.to_string())?;
        fork.storage_mut().reset_read_stats();
        let w0: BTreeMap<FileClass, Vec<u64>> = fork.storage().written_by_class().clone();
        let mut run = YcsbOps {
            inner: spec
                .run(&RngStreams::new(seed))
                .map_err(|e| e.to_string())?,
        };
        println!("{}:", scheme.name());
        let every = spec.operation_count.div_ceil(lines);
        let (mut elapsed, mut stalled, mut gets, mut comp_read) = (0.0, 0.0, 0u64, 0u64);
        let mut prev: BTreeMap<(usize, u32), u64> = BTreeMap::new();
        for _ in 0..lines {
            let s = fork
                .run_ops(
                    &mut TakeOps {
                        inner: &mut run,
                        left: every,
                    },
                    0,
                )
                .map_err(|e| e.to_string())?;
            elapsed += s.elapsed_s;
            stalled += s.stopped_s + s.delayed_s;
            gets += s.gets;
            comp_read += s.compaction_read_bytes;
            let st = fork.storage();
            let view = st.view(fork.now_ns());
            let mut ssd = [0u32; 6];
            let mut hdd = [0u32; 6];
            for f in view.ssts.iter().filter(|f| !f.obsolete) {
                let l = (f.level as usize).min(5);
                if f.device == 0 {
                    ssd[l] += f.zones;
                } else {
                    hdd[l] += 1;
                }
            }
            let now: BTreeMap<(usize, u32), u64> = st.read_stats().by_level.clone();
            let hdd_reads: Vec<u64> = (0..5u32)
                .map(|l| {
                    now.get(&(1, l)).copied().unwrap_or(0) - prev.get(&(1, l)).copied().unwrap_or(0)
                })
                .collect();
            prev = now;
            println!(
                "  t {:>7.0} s  stalled {:>5.0} s  ssd empty {:>2} ssd zones L0-5 {ssd:?} hdd SSTs L0-5 {hdd:?}  HDD reads L0-4 {hdd_reads:?}  {}",
                elapsed,
                stalled,
                view.devices[0].empty_zones,
                st.describe_policy(fork.now_ns())
            );
        }
        let st = fork.storage();
        let mut classes = Vec::new();
        for (class, per_dev) in st.written_by_class() {
            let before = w0.get(class);
            let d: Vec<u64> = per_dev
                .iter()
                .enumerate()
                .map(|(i, b)| b - before.and_then(|v| v.get(i)).copied().unwrap_or(0))
                .collect();
            let all: u64 = d.iter().sum();
            if all > 0 {
                classes.push(format!(
                    "{class:?} {:.0} % of {:.2} GiB",
                    100.0 * d[0] as f64 / all as f64,
                    all as f64 / scale / (1u64 << 30) as f64
                ));
            }
        }
        let by_level = &st.read_stats().by_level;
        let hdd_all: u64 = by_level
            .iter()
            .filter(|((d, _), _)| *d == 1)
            .map(|(_, n)| n)
            .sum();
        let hdd_low: u64 = by_level
            .iter()
            .filter(|((d, l), _)| *d == 1 && *l <= 2)
            .map(|(_, n)| n)
            .sum();
        println!(
            "  run {:.0} s, {:.0} ops/s, {} gets, stalled {:.0} s, compaction read {:.2} GiB (paper scale)",
            elapsed,
            spec.operation_count as f64 / elapsed.max(1e-9),
            gets,
            stalled,
            comp_read as f64 / scale / (1u64 << 30) as f64
        );
        println!("  run writes to the SSD: {}", classes.join(", "));
        println!(
            "  HDD reads {hdd_all}, at L0-L2 {hdd_low}; placement bound on this scheme: {:.3}",
            hdd_all as f64 / (hdd_all - hdd_low).max(1) as f64
        );
    }
    Ok(())
}
