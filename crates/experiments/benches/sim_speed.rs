//! Simulator speed: simulated requests per second of wall time, per core.
//! - sequential 4 KiB zone writes on `zn540` (target ≥ 2 M requests/s);
//! - random 4 KiB writes on `ssd-conventional` with GC active (target ≥ 1 M/s);
//! - random 4 KiB writes on a full `ssd-660p`, its SLC cache folding in the write
//!   path (the `ftl-ssd` SLC cache, issue #21; same target);
//! - random 4 KiB writes on `zn540-fdp` through four FDP placement handles (one
//!   per job) with GC active (issue #20; same target).
//! - random 4 KiB reads and writes (50/50) on an aged `ssd-mqsim`, GC active, the
//!   2 MiB mapping cache missing and programs suspended for reads (issue #22;
//!   same target).
//!
//! Run: `cargo bench -p zonelab-experiments --bench sim_speed`. Results go to
//! docs/PERFORMANCE.md with machine and date.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use zonelab_devices::{open_device, Device};
use zonelab_experiments::bench::{run_bench, BenchOptions, PlacementIds};
use zonelab_workloads::job::{JobSpec, RwMode};

const REQUESTS: u64 = 1_000_000;

fn zns_sequential_zone_writes(c: &mut Criterion) {
    let mut g = c.benchmark_group("zn540");
    g.throughput(Throughput::Elements(REQUESTS));
    g.sample_size(10);
    g.bench_function("seq_zone_write_4k_qd1", |b| {
        b.iter(|| {
            let mut dev = open_device("zn540").expect("built-in profile");
            let spec = JobSpec {
                rw: RwMode::Write,
                block_size_bytes: 4096,
                io_size_bytes: Some(REQUESTS * 4096),
                ..JobSpec::default()
            };
            let r =
                run_bench(dev.as_mut(), &spec, &BenchOptions::default(), None).expect("bench runs");
            assert_eq!(r.ops, REQUESTS);
        })
    });
    g.finish();
}

/// A built-in profile filled sequentially and then overwritten with 4 KiB random
/// writes over half its capacity, so GC is active in whatever is timed next.
fn aged_device(profile: &str) -> Box<dyn Device> {
    let mut aged = open_device(profile).expect("built-in profile");
    let capacity = aged.info().capacity_bytes();
    let fill = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 1 << 20,
        iodepth: 8,
        ..JobSpec::default()
    };
    run_bench(aged.as_mut(), &fill, &BenchOptions::default(), None).expect("fill");
    let age = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 4096,
        iodepth: 32,
        io_size_bytes: Some(capacity / 2),
        ..JobSpec::default()
    };
    run_bench(aged.as_mut(), &age, &BenchOptions::default(), None).expect("age");
    aged
}

fn ftl_random_writes_with_gc(c: &mut Criterion) {
    let mut g = c.benchmark_group("ssd-conventional");
    g.sample_size(10);
    // Precondition once (fill the drive and overwrite it so GC is active), then time
    // a further stretch of random writes on a clone of the aged device state.
    let mut aged = aged_device("ssd-conventional");
    g.throughput(Throughput::Elements(REQUESTS));
    g.bench_function("rand_write_4k_qd32_gc_active", |b| {
        let mut seed = 1;
        b.iter(|| {
            seed += 1;
            let gc_runs_before = aged.stats(0).gc_runs;
            let spec = JobSpec {
                rw: RwMode::RandWrite,
                block_size_bytes: 4096,
                iodepth: 32,
                io_size_bytes: Some(REQUESTS * 4096),
                ..JobSpec::default()
            };
            let r = run_bench(
                aged.as_mut(),
                &spec,
                &BenchOptions {
                    seed,
                    ..BenchOptions::default()
                },
                None,
            )
            .expect("bench runs");
            assert!(
                r.device_stats.gc_runs > gc_runs_before,
                "GC must be active while timed"
            );
        })
    });
    g.finish();
}

fn ftl_slc_cache_writes(c: &mut Criterion) {
    let mut g = c.benchmark_group("ssd-660p");
    g.sample_size(10);
    // A full drive: its 6 GB static SLC cache is full, so every program unit that
    // enters it first folds the oldest one into QLC.
    let mut full = open_device("ssd-660p").expect("built-in profile");
    let fill = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 1 << 20,
        iodepth: 8,
        ..JobSpec::default()
    };
    run_bench(full.as_mut(), &fill, &BenchOptions::default(), None).expect("fill");
    g.throughput(Throughput::Elements(REQUESTS));
    g.bench_function("rand_write_4k_qd32_slc_folding", |b| {
        let mut seed = 1;
        b.iter(|| {
            seed += 1;
            let folds_before = full.stats(0).counters["slc_write_path_folds"];
            let spec = JobSpec {
                rw: RwMode::RandWrite,
                block_size_bytes: 4096,
                iodepth: 32,
                io_size_bytes: Some(REQUESTS * 4096),
                ..JobSpec::default()
            };
            let r = run_bench(
                full.as_mut(),
                &spec,
                &BenchOptions {
                    seed,
                    ..BenchOptions::default()
                },
                None,
            )
            .expect("bench runs");
            assert!(
                r.device_stats.counters["slc_write_path_folds"] > folds_before,
                "the SLC cache must fold while timed"
            );
        })
    });
    g.finish();
}

fn ftl_fdp_writes_with_gc(c: &mut Criterion) {
    let mut g = c.benchmark_group("zn540-fdp");
    g.sample_size(10);
    // Four tenants (jobs), each with its own region and placement handle; filled,
    // then aged with half a capacity of random writes so GC is active.
    let mut aged = open_device("zn540-fdp").expect("built-in profile");
    let capacity = aged.info().capacity_bytes();
    let placed = BenchOptions {
        placement_ids: PlacementIds::new(&[0, 1, 2, 3]).expect("four identifiers"),
        ..BenchOptions::default()
    };
    let fill = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 1 << 20,
        iodepth: 2,
        numjobs: 4,
        ..JobSpec::default()
    };
    run_bench(aged.as_mut(), &fill, &placed, None).expect("fill");
    let random = |io_bytes: u64| JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 4096,
        iodepth: 8,
        numjobs: 4,
        io_size_bytes: Some(io_bytes / 4),
        ..JobSpec::default()
    };
    run_bench(aged.as_mut(), &random(capacity / 2), &placed, None).expect("age");
    g.throughput(Throughput::Elements(REQUESTS));
    g.bench_function("rand_write_4k_qd32_4_handles_gc_active", |b| {
        let mut seed = 1;
        b.iter(|| {
            seed += 1;
            let gc_runs_before = aged.stats(0).gc_runs;
            let r = run_bench(
                aged.as_mut(),
                &random(REQUESTS * 4096),
                &BenchOptions { seed, ..placed },
                None,
            )
            .expect("bench runs");
            assert_eq!(r.ops, REQUESTS);
            assert!(
                r.device_stats.gc_runs > gc_runs_before,
                "GC must be active while timed"
            );
        })
    });
    g.finish();
}

fn ftl_map_cache_and_suspension(c: &mut Criterion) {
    let mut g = c.benchmark_group("ssd-mqsim");
    g.sample_size(10);
    let mut aged = aged_device("ssd-mqsim");
    g.throughput(Throughput::Elements(REQUESTS));
    g.bench_function("rand_rw_4k_qd32_gc_map_cache_suspend", |b| {
        let mut seed = 1;
        b.iter(|| {
            seed += 1;
            let before = aged.stats(0);
            let spec = JobSpec {
                rw: RwMode::RandRw,
                rwmixread_percent: 50,
                block_size_bytes: 4096,
                iodepth: 32,
                io_size_bytes: Some(REQUESTS * 4096),
                ..JobSpec::default()
            };
            let r = run_bench(
                aged.as_mut(),
                &spec,
                &BenchOptions {
                    seed,
                    ..BenchOptions::default()
                },
                None,
            )
            .expect("bench runs");
            let (now, was) = (&r.device_stats, &before);
            assert!(now.gc_runs > was.gc_runs, "GC must be active while timed");
            assert!(
                now.counters["map_cache_misses"] > was.counters["map_cache_misses"],
                "the mapping cache must miss while timed"
            );
            assert!(
                now.counters["program_suspends"] > was.counters["program_suspends"],
                "programs must be suspended while timed"
            );
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    zns_sequential_zone_writes,
    ftl_random_writes_with_gc,
    ftl_slc_cache_writes,
    ftl_fdp_writes_with_gc,
    ftl_map_cache_and_suspension
);
criterion_main!(benches);
