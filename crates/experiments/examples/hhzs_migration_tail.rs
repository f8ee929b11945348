//! Exp#6 (HHZS Fig. 10): what the slowest reads of P+M wait behind at each
//! migration rate and under each rate limiter (docs/hhzs.md, "Exp#6: what the
//! slowest reads wait behind"). One load to `records` at `scale`, then per
//! (limiter, rate) a closed-and-reopened fork running the workload, as
//! `reproduce hhzs` runs Exp#6. Per run: get and HDD point-read tails, the HDD
//! point reads issued while a migration chunk was in service on the HDD (count,
//! tail), the bytes migrated, the migrations and the time migration chunks kept
//! a device busy.
//!
//! `cargo run --release -p zonelab-experiments --example hhzs_migration_tail --
//!  [scale] [run seed] [records] [operations] [rates MiB/s, e.g. 1,64]
//!  [limiters: h2zone,paced] [HDD profile overrides, `;`-separated]`
//!  (defaults: 0.05 1 the paper's × scale, 5 M × scale, 1,64, h2zone,paced).

use zonelab_engine::RngStreams;
use zonelab_experiments::hhzs_eval::{open_scheme, Scheme};
use zonelab_experiments::hhzs_setup::{positional_arg as arg, HybridSetup, YcsbOps, PAPER_RECORDS};
use zonelab_systems::hhzs::MigrationLimiter;
use zonelab_workloads::ycsb::custom;

fn parse_limiter(s: &str) -> Result<MigrationLimiter, String> {
    match s {
        "h2zone" => Ok(MigrationLimiter::H2ZoneWindow),
        "paced" => Ok(MigrationLimiter::Paced),
        _ => Err(format!("limiter `{s}` is neither `h2zone` nor `paced`")),
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale: f64 = arg(&args, 0, "scale", 0.05)?;
    let seed: u64 = arg(&args, 1, "seed", 1)?;
    let paper_records = ((PAPER_RECORDS as f64 * scale).round() as u64).max(1000);
    let records: u64 = arg(&args, 2, "record count", paper_records)?;
    let ops: u64 = arg(
        &args,
        3,
        "operation count",
        ((5e6 * scale).round() as u64).max(5_000),
    )?;
    let rates: Vec<u64> = args
        .get(4)
        .map_or("1,64", |s| s.as_str())
        .split(',')
        .map(|r| {
            r.parse()
                .map_err(|_| format!("migration rate `{r}` is not a number"))
        })
        .collect::<Result<_, _>>()?;
    let limiters: Vec<MigrationLimiter> = args
        .get(5)
        .map_or("h2zone,paced", |s| s.as_str())
        .split(',')
        .map(parse_limiter)
        .collect::<Result<_, _>>()?;
    let mut setup = HybridSetup::paper(scale);
    if let Some(sets) = args.get(6) {
        for o in sets.split(';').filter(|o| !o.is_empty()) {
            setup
                .hdd_overrides
                .push(zonelab_devices::ProfileOverride::parse(o).map_err(|e| e.to_string())?);
        }
    }
    let mut spec = custom(0.5, 0.9).map_err(|e| e.to_string())?;
    spec.record_count = records;
    spec.operation_count = ops;
    spec.field_count = 1;
    spec.field_length_bytes = setup.options.value_bytes;
    println!(
        "scale {scale}, run seed {seed}: P+M, 50 % reads, α 0.9, {records} records, {ops} ops"
    );
    let mut db = open_scheme(&setup, Scheme::PM)?;
    let load_spec = setup.load_spec(records);
    db.run_ops(
        &mut YcsbOps {
            inner: load_spec.load().map_err(|e| e.to_string())?,
        },
        0,
    )
    .map_err(|e| e.to_string())?;
    println!("| limiter | rate MiB/s | get p99 / p99.9 / p99.99 ms | HDD point reads: p99.9 / p99.99 ms | of them met migration I/O: count, p99.9 / p99.99 ms | MiB migrated | up / down | chunk busy s | run s | ops/s |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &limiter in &limiters {
        for &rate in &rates {
            let mut fork = db.fork_with(db.storage().try_clone().map_err(|e| e.to_string())?);
            fork.reopen().map_err(|e| e.to_string())?;
            fork.storage_mut().set_migration_rate(rate << 20);
            fork.storage_mut().set_migration_limiter(limiter);
            fork.storage_mut().reset_read_stats();
            let m0 = fork.storage().migration_stats();
            let run = spec
                .run(&RngStreams::new(seed))
                .map_err(|e| e.to_string())?;
            let s = fork
                .run_ops(&mut YcsbOps { inner: run }, 0)
                .map_err(|e| e.to_string())?;
            let st = fork.storage();
            let m1 = st.migration_stats();
            let rs = st.read_stats();
            let hdd = rs
                .device_latency
                .get(1)
                .map(|h| h.summary())
                .unwrap_or_default();
            let met = rs
                .device_latency_meeting_migration
                .get(1)
                .map(|h| h.summary())
                .unwrap_or_default();
            let get = s.get_latency.unwrap_or_default();
            println!(
                "| {limiter:?} | {rate} | {:.1} / {:.1} / {:.1} | {:.1} / {:.1} | {} of {}, {:.1} / {:.1} | {} | {} / {} | {:.1} | {:.0} | {:.0} |",
                ms(get.p99_ns),
                ms(get.p999_ns),
                ms(get.p9999_ns),
                ms(hdd.p999_ns),
                ms(hdd.p9999_ns),
                met.count,
                hdd.count,
                ms(met.p999_ns),
                ms(met.p9999_ns),
                (m1.copied_bytes - m0.copied_bytes) >> 20,
                m1.to_ssd - m0.to_ssd,
                m1.to_hdd - m0.to_hdd,
                (m1.chunk_busy_ns - m0.chunk_busy_ns) as f64 / 1e9,
                s.elapsed_s,
                s.ops_per_s
            );
        }
    }
    Ok(())
}
