//! The fio-like job generator (`JobSpec::streams`, `JobStream::next_step`), checked by
//! applying every generated step to a real device model: zoned writes land at the
//! write pointer, move zone to zone and wrap with resets; random zoned writes respect
//! `max_open_zones`; block-device requests stay in the region and are aligned;
//! `numjobs` splits the region; the default I/O size is one pass; mixes, seeds, and
//! every `JobError` path.

use std::collections::BTreeSet;
use zonelab_devices::models::build;
use zonelab_devices::profile::ProfileSource;
use zonelab_devices::zoned::{ZoneState, ZoneType};
use zonelab_devices::{open_device, Command, Device, Lba, Payload};
use zonelab_engine::{Ns, RngStreams};
use zonelab_workloads::job::{reset_command, JobError, JobSpec, JobStream, RwMode, Step};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The zn540 profile with a small zone layout: `zone_count` zones of `size_mib`
/// MiB with `cap_mib` MiB capacity, max-open = max-active = `max_open`.
fn small_zns(zone_count: u32, size_mib: u64, cap_mib: u64, max_open: u32) -> Box<dyn Device> {
    let text: String = include_str!("../../../profiles/zn540.toml")
        .lines()
        .map(|l| {
            let key = l.split('=').next().unwrap_or("").trim();
            match key {
                "zone_count" => format!("zone_count = {zone_count}"),
                "zone_size_mib" => format!("zone_size_mib = {size_mib}"),
                "zone_capacity_mib" => format!("zone_capacity_mib = {cap_mib}"),
                "max_open_zones" => format!("max_open_zones = {max_open}"),
                "max_active_zones" => format!("max_active_zones = {max_open}"),
                _ => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    build(&ProfileSource {
        source_name: "small-zns".into(),
        text,
    })
    .expect("small ZNS profile builds")
}

/// The ssd-conventional profile shrunk to 2 GiB with 12 MiB superblocks (fast to
/// build, still enough spare superblocks for its GC watermarks).
fn small_ssd() -> Box<dyn Device> {
    let text: String = include_str!("../../../profiles/ssd-conventional.toml")
        .lines()
        .map(|l| {
            let key = l.split('=').next().unwrap_or("").trim();
            match key {
                "capacity_mib" => "capacity_mib = 2048".to_string(),
                "pages_per_block" => "pages_per_block = 12".to_string(),
                _ => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    build(&ProfileSource {
        source_name: "small-ssd".into(),
        text,
    })
    .expect("small SSD profile builds")
}

fn streams(spec: &JobSpec, dev: &dyn Device, seed: u64) -> Vec<JobStream> {
    spec.streams(dev, &RngStreams::new(seed))
        .expect("valid job")
}

fn one_stream(spec: &JobSpec, dev: &dyn Device, seed: u64) -> JobStream {
    let mut s = streams(spec, dev, seed);
    assert_eq!(s.len(), 1);
    s.pop().unwrap()
}

fn zone_size(dev: &dyn Device) -> u64 {
    dev.info().zoned.as_ref().unwrap().zone_size_blocks
}

fn zone_cap(dev: &dyn Device) -> u64 {
    dev.info().zoned.as_ref().unwrap().zone_capacity_blocks
}

fn bb(dev: &dyn Device) -> u64 {
    dev.info().block_bytes as u64
}

fn lba_blocks(cmd: &Command) -> (Lba, u64) {
    match *cmd {
        Command::Read { lba, blocks }
        | Command::Write { lba, blocks }
        | Command::Trim { lba, blocks } => (lba, blocks as u64),
        other => panic!("unexpected command {other:?}"),
    }
}

/// Submits a step to the device at `*now` (its reset first), QD1, and advances
/// `*now` to the completion. Before a zoned write, checks it is at the write pointer.
fn apply(dev: &mut dyn Device, now: &mut Ns, step: &Step) {
    if let Some(zone_lba) = step.reset_zone_first {
        let c = dev
            .submit(*now, &reset_command(zone_lba), Payload::SizeOnly)
            .unwrap_or_else(|e| panic!("reset of zone at {zone_lba}: {e}"));
        *now = c.done_ns;
    }
    if let (Command::Write { lba, .. }, Some(z)) = (step.cmd, dev.info().zoned.clone()) {
        let zone = (lba / z.zone_size_blocks) as u32;
        let d = dev.report_zones(zone, 1).unwrap()[0];
        if d.zone_type == ZoneType::SequentialWriteRequired {
            assert_eq!(
                lba, d.write_pointer,
                "write to zone {zone} not at its write pointer ({d:?})"
            );
        }
    }
    let c = dev
        .submit(*now, &step.cmd, Payload::SizeOnly)
        .unwrap_or_else(|e| panic!("{:?}: {e}", step.cmd));
    *now = c.done_ns;
}

/// All steps of a stream (bounded, so a runaway stream fails instead of hanging).
fn drain(s: &mut JobStream, max_steps: usize) -> Vec<Step> {
    let mut out = Vec::new();
    while let Some(st) = s.next_step() {
        out.push(st);
        assert!(
            out.len() <= max_steps,
            "stream did not end within {max_steps} steps"
        );
    }
    assert!(!s.has_more());
    out
}

fn err_option(r: Result<Vec<JobStream>, JobError>) -> (&'static str, String) {
    match r {
        Ok(_) => panic!("expected a JobError"),
        Err(e @ JobError::BadOption { option, .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("`{option}`")),
                "message names the option: {msg}"
            );
            (option, msg)
        }
    }
}

// ---------------------------------------------------------------------------
// Sequential zoned writes
// ---------------------------------------------------------------------------

#[test]
fn sequential_zoned_writes_follow_the_write_pointer_and_wrap_a_two_zone_region_three_times() {
    let mut dev = open_device("zn540").unwrap();
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    assert_eq!(cap * b, 1077 * MIB);
    // Region: zones 4 and 5; three passes. 8 MiB does not divide 1,077 MiB, so each
    // zone ends with a short write.
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 8 * MIB,
        offset_bytes: 4 * size * b,
        size_bytes: Some(2 * size * b),
        io_size_bytes: Some(3 * 2 * cap * b),
        ..JobSpec::default()
    };
    let mut s = one_stream(&spec, &*dev, 1);
    let steps = drain(&mut s, 10_000);
    let mut now = 0;
    let mut zone_order: Vec<u64> = Vec::new();
    let mut resets: Vec<u64> = Vec::new();
    let mut bytes = 0;
    let mut short_writes = 0;
    for st in &steps {
        if let Some(r) = st.reset_zone_first {
            assert_eq!(r % size, 0, "reset at a zone start");
            let zone = r / size;
            // A wrap resets a zone the job filled, never one it is still writing.
            assert_eq!(
                dev.report_zones(zone as u32, 1).unwrap()[0].state,
                ZoneState::Full
            );
            resets.push(zone);
        }
        let Command::Write { lba, blocks } = st.cmd else {
            panic!("a write job writes: {:?}", st.cmd)
        };
        let zone = lba / size;
        assert!(
            lba + blocks as u64 <= zone * size + cap,
            "write crosses the zone capacity"
        );
        if (blocks as u64) * b < 8 * MIB {
            short_writes += 1;
            assert_eq!(
                lba + blocks as u64,
                zone * size + cap,
                "only a zone's last write is short"
            );
        }
        if zone_order.last() != Some(&zone) {
            zone_order.push(zone);
        }
        bytes += blocks as u64 * b;
        apply(&mut *dev, &mut now, st);
    }
    assert_eq!(zone_order, vec![4, 5, 4, 5, 4, 5]);
    assert_eq!(
        resets,
        vec![4, 5, 4, 5],
        "each dirty zone is reset when the job wraps to it"
    );
    assert_eq!(short_writes, 6);
    assert_eq!(bytes, 3 * 2 * cap * b);
    for z in [4, 5] {
        assert_eq!(dev.report_zones(z, 1).unwrap()[0].state, ZoneState::Full);
    }
    assert_eq!(dev.report_zones(3, 1).unwrap()[0].state, ZoneState::Empty);
    assert_eq!(dev.report_zones(6, 1).unwrap()[0].state, ZoneState::Empty);
}

#[test]
fn sequential_zoned_writes_reset_zones_that_already_hold_data() {
    let mut dev = small_zns(8, 4, 3, 4);
    let (size, b) = (zone_size(&*dev), bb(&*dev));
    let mut now = 0;
    // Someone else left zone 1 partially written.
    now = dev
        .submit(
            now,
            &Command::Write {
                lba: size,
                blocks: 10,
            },
            Payload::SizeOnly,
        )
        .unwrap()
        .done_ns;
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 256 * KIB,
        offset_bytes: size * b,
        size_bytes: Some(2 * size * b),
        ..JobSpec::default()
    };
    let mut s = one_stream(&spec, &*dev, 1);
    let steps = drain(&mut s, 1_000);
    assert_eq!(
        steps[0].reset_zone_first,
        Some(size),
        "a dirty zone is reset before the job writes it"
    );
    assert_eq!(
        steps[0].cmd,
        Command::Write {
            lba: size,
            blocks: 64
        }
    );
    assert_eq!(
        steps
            .iter()
            .filter(|s| s.reset_zone_first.is_some())
            .count(),
        1
    );
    for st in &steps {
        apply(&mut *dev, &mut now, st);
    }
}

#[test]
fn sequential_writes_on_hm_smr_skip_the_conventional_zones() {
    let mut dev = open_device("st14000nm0007").unwrap();
    let z = dev.info().zoned.clone().unwrap();
    assert_eq!(z.conventional_zones, 524);
    let b = bb(&*dev);
    // A region from LBA 0 over the 524 conventional zones and the first two
    // sequential ones: only the sequential zones are written, and one pass is
    // their capacity.
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 16 * MIB,
        size_bytes: Some(526 * 256 * MIB),
        ..JobSpec::default()
    };
    let mut s = one_stream(&spec, &*dev, 1);
    let steps = drain(&mut s, 1_000);
    let mut now = 0;
    let mut zones = BTreeSet::new();
    for st in &steps {
        let (lba, _) = lba_blocks(&st.cmd);
        zones.insert(lba / z.zone_size_blocks);
        apply(&mut *dev, &mut now, st);
    }
    assert_eq!(zones, BTreeSet::from([524, 525]));
    assert_eq!(steps.len() as u64, 2 * 256 / 16);
    assert_eq!(
        steps
            .iter()
            .map(|s| s.cmd.data_blocks() as u64 * b)
            .sum::<u64>(),
        2 * 256 * MIB
    );
}

// ---------------------------------------------------------------------------
// Random zoned writes
// ---------------------------------------------------------------------------

/// Runs a random-write job to its end on `dev`, checking after every step that at
/// most `max_open` zones are open or partially written (the device's open and
/// active zones), that every reset is of a zone the job filled, and that the device
/// accepts everything. Returns (resets, distinct zones written, steps).
fn run_random_writes(
    dev: &mut dyn Device,
    spec: &JobSpec,
    max_open: usize,
    max_steps: usize,
) -> (usize, BTreeSet<u64>, usize) {
    let size = zone_size(dev);
    let zone_count = dev.info().zoned.as_ref().unwrap().zone_count;
    let mut s = one_stream(spec, dev, 7);
    let mut now = 0;
    let mut resets = 0;
    let mut written = BTreeSet::new();
    let mut steps = 0;
    let mut max_seen = 0;
    while let Some(st) = s.next_step() {
        steps += 1;
        assert!(
            steps <= max_steps,
            "stream did not end within {max_steps} steps"
        );
        if let Some(r) = st.reset_zone_first {
            let d = dev.report_zones((r / size) as u32, 1).unwrap()[0];
            assert_eq!(
                d.state,
                ZoneState::Full,
                "step {steps}: reset of zone {} which the job has not filled: {d:?}",
                d.index
            );
            resets += 1;
        }
        let (lba, _) = lba_blocks(&st.cmd);
        written.insert(lba / size);
        apply(dev, &mut now, &st);
        let all = dev.report_zones(0, zone_count).unwrap();
        let open = all.iter().filter(|d| d.state.is_open()).count();
        let active = all.iter().filter(|d| d.state.is_active()).count();
        assert!(
            open <= max_open && active <= max_open,
            "step {steps}: {open} open, {active} active zones (limit {max_open})"
        );
        max_seen = max_seen.max(active);
    }
    assert_eq!(
        max_seen, max_open,
        "the job keeps max_open_zones zones in use"
    );
    (resets, written, steps)
}

#[test]
fn random_zoned_writes_keep_max_open_zones_and_wrap_without_device_errors() {
    // 12 zones of 3 MiB capacity, 64 KiB writes (48 per zone), three passes.
    let mut dev = small_zns(16, 4, 3, 4);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 64 * KIB,
        offset_bytes: 2 * size * b,
        size_bytes: Some(12 * size * b),
        io_size_bytes: Some(3 * 12 * cap * b),
        ..JobSpec::default()
    };
    // Default max_open_zones: the device's limit (4), capped at 8.
    let (resets, written, steps) = run_random_writes(&mut *dev, &spec, 4, 10_000);
    assert_eq!(steps as u64, 3 * 12 * cap * b / (64 * KIB));
    assert_eq!(written, (2..14).collect::<BTreeSet<u64>>());
    assert!(
        resets >= 2 * 12 - 4,
        "wrapping resets the filled zones ({resets} resets)"
    );
}

#[test]
fn random_zoned_writes_with_max_open_zones_equal_to_the_region_zone_count() {
    // Every zone of the region is open at once: wrapping must not take a zone the
    // job is still filling.
    let mut dev = small_zns(8, 4, 3, 4);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 64 * KIB,
        offset_bytes: size * b,
        size_bytes: Some(3 * size * b),
        io_size_bytes: Some(4 * 3 * cap * b),
        max_open_zones: Some(3),
        ..JobSpec::default()
    };
    let (resets, written, _) = run_random_writes(&mut *dev, &spec, 3, 10_000);
    assert_eq!(written, BTreeSet::from([1, 2, 3]));
    assert!(resets >= 3 * 3 - 3);
}

#[test]
fn random_zoned_writes_on_zn540_at_the_device_max_open_limit() {
    let mut dev = open_device("zn540").unwrap();
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 16 * MIB,
        size_bytes: Some(16 * size * b),
        io_size_bytes: Some(2 * 16 * cap * b),
        max_open_zones: Some(14),
        ..JobSpec::default()
    };
    let (resets, written, _) = run_random_writes(&mut *dev, &spec, 14, 10_000);
    assert_eq!(written.len(), 16);
    assert!(resets >= 16 - 14);
}

#[test]
fn random_zoned_writes_default_to_at_most_eight_open_zones() {
    let mut dev = open_device("zn540").unwrap();
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 32 * MIB,
        size_bytes: Some(10 * size * b),
        io_size_bytes: Some(10 * cap * b),
        ..JobSpec::default()
    };
    run_random_writes(&mut *dev, &spec, 8, 10_000);
}

#[test]
fn random_zoned_mixed_job_reads_inside_the_zones_and_writes_at_the_write_pointer() {
    let mut dev = small_zns(8, 4, 3, 4);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let spec = JobSpec {
        rw: RwMode::RandRw,
        block_size_bytes: 16 * KIB,
        offset_bytes: 2 * size * b,
        size_bytes: Some(4 * size * b),
        io_size_bytes: Some(3 * 4 * cap * b),
        rwmixread_percent: 40,
        ..JobSpec::default()
    };
    let mut s = one_stream(&spec, &*dev, 3);
    let steps = drain(&mut s, 100_000);
    let mut now = 0;
    let mut reads = 0;
    for st in &steps {
        let (lba, n) = lba_blocks(&st.cmd);
        let zone = lba / size;
        assert!(
            (2..6).contains(&zone),
            "{:?} outside the region's zones",
            st.cmd
        );
        assert!(
            lba + n <= zone * size + cap,
            "{:?} beyond the zone capacity",
            st.cmd
        );
        if matches!(st.cmd, Command::Read { .. }) {
            reads += 1;
        }
        apply(&mut *dev, &mut now, st);
    }
    let frac = reads as f64 / steps.len() as f64;
    assert!((0.35..0.45).contains(&frac), "read fraction {frac}");
}

// ---------------------------------------------------------------------------
// Block devices
// ---------------------------------------------------------------------------

#[test]
fn block_device_random_requests_stay_in_the_region_and_are_aligned() {
    let mut dev = small_ssd();
    let b = bb(&*dev);
    let (off, size, bs) = (3 * MIB, 5 * MIB, 12 * KIB);
    let spec = JobSpec {
        rw: RwMode::RandRw,
        block_size_bytes: bs,
        offset_bytes: off,
        size_bytes: Some(size),
        io_size_bytes: Some(20 * MIB),
        ..JobSpec::default()
    };
    let mut s = one_stream(&spec, &*dev, 5);
    let steps = drain(&mut s, 10_000);
    let mut now = 0;
    let mut seen = BTreeSet::new();
    for st in &steps {
        assert_eq!(st.reset_zone_first, None);
        let (lba, n) = lba_blocks(&st.cmd);
        let (start, end) = (lba * b, (lba + n) * b);
        assert_eq!(end - start, bs);
        assert!(
            start >= off && end <= off + size,
            "{:?} outside [{off}, {})",
            st.cmd,
            off + size
        );
        assert_eq!(
            (start - off) % bs,
            0,
            "{:?} not aligned to the block size from the offset",
            st.cmd
        );
        seen.insert(start);
        apply(&mut *dev, &mut now, st);
    }
    // Requests are whole: the last one may go past io_size (1,707 × 12 KiB).
    assert_eq!(steps.len() as u64, (20 * MIB).div_ceil(bs));
    // 426 slots, 1,707 draws: almost all of them are hit.
    assert!(
        seen.len() > 400,
        "random offsets spread over the region ({} distinct)",
        seen.len()
    );
}

#[test]
fn block_device_sequential_requests_walk_the_region_and_wrap() {
    let dev = small_ssd();
    let b = bb(&*dev);
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 64 * KIB,
        offset_bytes: MIB,
        size_bytes: Some(MIB),
        io_size_bytes: Some(2 * MIB + 128 * KIB),
        ..JobSpec::default()
    };
    let mut s = one_stream(&spec, &*dev, 1);
    let lbas: Vec<u64> = drain(&mut s, 100)
        .iter()
        .map(|st| lba_blocks(&st.cmd).0 * b)
        .collect();
    let expected: Vec<u64> = (0..34).map(|i| MIB + (i % 16) * 64 * KIB).collect();
    assert_eq!(lbas, expected);
}

#[test]
fn numjobs_split_the_region_into_disjoint_parts() {
    let dev = small_ssd();
    let b = bb(&*dev);
    let (off, size) = (MIB, 8 * MIB);
    let spec = JobSpec {
        rw: RwMode::RandRead,
        block_size_bytes: 4 * KIB,
        numjobs: 4,
        offset_bytes: off,
        size_bytes: Some(size),
        ..JobSpec::default()
    };
    let mut ss = streams(&spec, &*dev, 9);
    assert_eq!(ss.len(), 4);
    let part = size / 4;
    for (j, s) in ss.iter_mut().enumerate() {
        let lo = off + j as u64 * part;
        let steps = drain(s, 10_000);
        assert_eq!(
            steps.len() as u64,
            part / (4 * KIB),
            "job {j}: one pass over its part by default"
        );
        for st in &steps {
            let (lba, n) = lba_blocks(&st.cmd);
            assert!(
                lba * b >= lo && (lba + n) * b <= lo + part,
                "job {j}: {:?} outside its part",
                st.cmd
            );
        }
    }
}

/// Runs all `streams` to their end on `dev`, interleaved round-robin as concurrent
/// jobs would be, checking after every step that the device's open and active zones
/// stay within `limit`. Returns the zones each job wrote.
fn run_jobs_interleaved(
    dev: &mut dyn Device,
    mut ss: Vec<JobStream>,
    limit: usize,
) -> Vec<BTreeSet<u64>> {
    let size = zone_size(dev);
    let zone_count = dev.info().zoned.as_ref().unwrap().zone_count;
    let mut zones_of = vec![BTreeSet::new(); ss.len()];
    let mut now = 0;
    let mut live = true;
    while live {
        live = false;
        for (j, s) in ss.iter_mut().enumerate() {
            if let Some(st) = s.next_step() {
                live = true;
                zones_of[j].insert(lba_blocks(&st.cmd).0 / size);
                apply(dev, &mut now, &st);
                let all = dev.report_zones(0, zone_count).unwrap();
                let open = all.iter().filter(|d| d.state.is_open()).count();
                let active = all.iter().filter(|d| d.state.is_active()).count();
                assert!(
                    open <= limit && active <= limit,
                    "{open} open, {active} active zones (limit {limit})"
                );
            }
        }
    }
    zones_of
}

#[test]
fn concurrent_zoned_write_jobs_share_the_device_open_zone_limit() {
    let mut dev = open_device("zn540").unwrap();
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    // Two random writers over 24 zones (12 each), default max_open_zones: together
    // they must stay within the device's 14 active zones.
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 32 * MIB,
        numjobs: 2,
        size_bytes: Some(24 * size * b),
        io_size_bytes: Some(12 * cap * b),
        ..JobSpec::default()
    };
    let ss = streams(&spec, &*dev, 3);
    let zones = run_jobs_interleaved(&mut *dev, ss, 8);
    assert!(zones[0].iter().all(|&z| z < 12) && zones[1].iter().all(|&z| (12..24).contains(&z)));

    // max_open_zones is the limit over all the jobs, as fio's: 14 over 3 jobs.
    let mut dev = open_device("zn540").unwrap();
    let spec = JobSpec {
        numjobs: 3,
        size_bytes: Some(30 * size * b),
        io_size_bytes: Some(10 * cap * b),
        max_open_zones: Some(14),
        ..spec
    };
    let ss = streams(&spec, &*dev, 3);
    run_jobs_interleaved(&mut *dev, ss, 14);

    // 14 sequential writers fit; each keeps one zone open.
    let mut dev = open_device("zn540").unwrap();
    let spec = JobSpec {
        rw: RwMode::Write,
        numjobs: 14,
        size_bytes: Some(14 * size * b),
        io_size_bytes: Some(64 * MIB),
        ..spec
    };
    let ss = streams(&spec, &*dev, 3);
    run_jobs_interleaved(&mut *dev, ss, 14);
}

#[test]
fn numjobs_on_a_zoned_device_write_disjoint_zones_concurrently() {
    let mut dev = small_zns(16, 4, 3, 8);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    // 3 jobs over 9 zones: 3 whole zones each; two passes each; 6 open zones in all
    // (2 per job).
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 128 * KIB,
        numjobs: 3,
        size_bytes: Some(9 * size * b),
        io_size_bytes: Some(2 * 3 * cap * b),
        max_open_zones: Some(6),
        ..JobSpec::default()
    };
    let ss = streams(&spec, &*dev, 2);
    let zones = run_jobs_interleaved(&mut *dev, ss, 6);
    assert_eq!(
        zones,
        vec![
            BTreeSet::from([0, 1, 2]),
            BTreeSet::from([3, 4, 5]),
            BTreeSet::from([6, 7, 8])
        ]
    );
}

// ---------------------------------------------------------------------------
// Stop rule, mixes, seeds
// ---------------------------------------------------------------------------

#[test]
fn default_io_size_is_one_pass_over_the_region() {
    // Block device: the region, rounded down to whole requests.
    let dev = small_ssd();
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 12 * KIB,
        offset_bytes: MIB,
        size_bytes: Some(MIB),
        ..JobSpec::default()
    };
    let steps = drain(&mut one_stream(&spec, &*dev, 1), 1_000);
    assert_eq!(steps.len() as u64, MIB / (12 * KIB));

    // Zoned device: zones × zone capacity, not the zones' address space.
    let dev = small_zns(8, 4, 3, 4);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    for rw in [
        RwMode::Write,
        RwMode::RandWrite,
        RwMode::Read,
        RwMode::RandRead,
    ] {
        let spec = JobSpec {
            rw,
            block_size_bytes: 256 * KIB,
            offset_bytes: size * b,
            size_bytes: Some(3 * size * b),
            ..JobSpec::default()
        };
        let steps = drain(&mut one_stream(&spec, &*dev, 1), 1_000);
        let bytes: u64 = steps.iter().map(|s| s.cmd.data_blocks() as u64 * b).sum();
        assert_eq!(bytes, 3 * cap * b, "{rw:?}");
    }

    // With a runtime and no io size the job does not run out.
    let spec = JobSpec {
        rw: RwMode::RandRead,
        block_size_bytes: 4 * KIB,
        size_bytes: Some(MIB),
        runtime_ns: Some(1),
        ..JobSpec::default()
    };
    let mut s = one_stream(&spec, &*dev, 1);
    for _ in 0..10_000 {
        assert!(s.next_step().is_some());
    }
}

#[test]
fn sequential_zoned_reads_cover_each_zone_capacity_in_order() {
    let dev = small_zns(8, 4, 3, 4);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let spec = JobSpec {
        rw: RwMode::Read,
        block_size_bytes: MIB,
        offset_bytes: 2 * size * b,
        size_bytes: Some(2 * size * b),
        ..JobSpec::default()
    };
    let lbas: Vec<u64> = drain(&mut one_stream(&spec, &*dev, 1), 100)
        .iter()
        .map(|s| lba_blocks(&s.cmd).0)
        .collect();
    let step = MIB / b;
    assert_eq!(cap, 3 * step);
    assert_eq!(
        lbas,
        vec![
            2 * size,
            2 * size + step,
            2 * size + 2 * step,
            3 * size,
            3 * size + step,
            3 * size + 2 * step
        ]
    );
}

#[test]
fn zoned_reads_of_jobs_with_unaligned_parts_stay_in_their_parts() {
    // 3 jobs over 4 zones: parts of 4/3 zones, not zone-aligned.
    let mut dev = small_zns(8, 4, 3, 4);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let region = 4 * size * b;
    let bs = 64 * KIB;
    let part = region / 3 / bs * bs;
    let mut now = 0;
    for rw in [RwMode::RandRead, RwMode::Read] {
        let spec = JobSpec {
            rw,
            block_size_bytes: bs,
            numjobs: 3,
            size_bytes: Some(region),
            io_size_bytes: Some(4 * MIB),
            ..JobSpec::default()
        };
        for (j, s) in streams(&spec, &*dev, 4).iter_mut().enumerate() {
            let (lo, hi) = (j as u64 * part, (j as u64 + 1) * part);
            for st in drain(s, 1_000) {
                let (lba, n) = lba_blocks(&st.cmd);
                let zone = lba / size;
                assert!(
                    lba * b >= lo && (lba + n) * b <= hi,
                    "{rw:?} job {j}: {:?} outside its part [{lo}, {hi})",
                    st.cmd
                );
                assert!(
                    lba + n <= zone * size + cap,
                    "{rw:?} job {j}: {:?} beyond the zone capacity",
                    st.cmd
                );
                apply(&mut *dev, &mut now, &st);
            }
        }
    }
}

#[test]
fn zoned_reads_of_a_region_inside_one_zone_stay_in_the_region() {
    let mut dev = small_zns(8, 4, 3, 4);
    let (size, cap, b) = (zone_size(&*dev), zone_cap(&*dev), bb(&*dev));
    let mut now = 0;
    // The first MiB of the last zone; then the last half of the last zone (partly
    // beyond its capacity); then the 2 MiB from the middle of zone 2 to the middle of
    // zone 3.
    for (off, len) in [
        (7 * size * b, MIB),
        (7 * size * b + size * b / 2, size * b / 2),
        (2 * size * b + 3 * MIB / 2, 2 * MIB),
    ] {
        for rw in [RwMode::RandRead, RwMode::Read] {
            let spec = JobSpec {
                rw,
                block_size_bytes: 64 * KIB,
                offset_bytes: off,
                size_bytes: Some(len),
                io_size_bytes: Some(4 * MIB),
                ..JobSpec::default()
            };
            let steps = drain(&mut one_stream(&spec, &*dev, 8), 1_000);
            assert!(!steps.is_empty());
            for st in &steps {
                let (lba, n) = lba_blocks(&st.cmd);
                let zone = lba / size;
                assert!(
                    lba * b >= off && (lba + n) * b <= off + len,
                    "{rw:?} {:?} outside [{off}, {})",
                    st.cmd,
                    off + len
                );
                assert!(
                    lba + n <= zone * size + cap,
                    "{rw:?} {:?} beyond the zone capacity",
                    st.cmd
                );
                apply(&mut *dev, &mut now, st);
            }
        }
    }
    // A read region with nothing readable (only the gap between capacity and size).
    let spec = JobSpec {
        rw: RwMode::RandRead,
        offset_bytes: (size + cap) * b,
        size_bytes: Some((size - cap) * b),
        ..JobSpec::default()
    };
    let (option, _) = err_option(spec.streams(&*dev, &RngStreams::new(1)));
    assert_eq!(option, "size");
}

#[test]
fn rwmixread_proportions_hold() {
    let dev = small_ssd();
    for (rw, pct) in [
        (RwMode::RandRw, 30),
        (RwMode::RandRw, 90),
        (RwMode::ReadWrite, 50),
        (RwMode::RandRw, 0),
        (RwMode::ReadWrite, 100),
    ] {
        let spec = JobSpec {
            rw,
            block_size_bytes: 4 * KIB,
            size_bytes: Some(16 * MIB),
            io_size_bytes: Some(20_000 * 4 * KIB),
            rwmixread_percent: pct,
            ..JobSpec::default()
        };
        let steps = drain(&mut one_stream(&spec, &*dev, 11), 20_000);
        assert_eq!(steps.len(), 20_000);
        let reads = steps
            .iter()
            .filter(|s| matches!(s.cmd, Command::Read { .. }))
            .count();
        let frac = reads as f64 / steps.len() as f64 * 100.0;
        assert!(
            (frac - pct as f64).abs() < 1.5,
            "{rw:?} rwmixread={pct}: {frac:.2}% reads"
        );
    }
    // Pure modes ignore rwmixread.
    for (rw, read) in [
        (RwMode::Read, true),
        (RwMode::RandRead, true),
        (RwMode::Write, false),
        (RwMode::RandWrite, false),
    ] {
        let spec = JobSpec {
            rw,
            size_bytes: Some(MIB),
            rwmixread_percent: 50,
            ..JobSpec::default()
        };
        assert!(
            drain(&mut one_stream(&spec, &*dev, 1), 1_000)
                .iter()
                .all(|s| matches!(s.cmd, Command::Read { .. }) == read),
            "{rw:?}"
        );
    }
}

#[test]
fn same_seed_same_sequence_other_seed_other_sequence() {
    let seq = |dev: &dyn Device, spec: &JobSpec, seed: u64| -> Vec<Step> {
        streams(spec, dev, seed)
            .iter_mut()
            .flat_map(|s| drain(s, 100_000))
            .collect()
    };
    let ssd = small_ssd();
    let zns = small_zns(8, 4, 3, 4);
    let b = bb(&*zns);
    let block = JobSpec {
        rw: RwMode::RandRw,
        block_size_bytes: 4 * KIB,
        numjobs: 2,
        size_bytes: Some(64 * MIB),
        io_size_bytes: Some(4 * MIB),
        ..JobSpec::default()
    };
    let zoned = JobSpec {
        rw: RwMode::RandRw,
        block_size_bytes: 64 * KIB,
        size_bytes: Some(6 * zone_size(&*zns) * b),
        ..JobSpec::default()
    };
    for (dev, spec) in [(&*ssd, &block), (&*zns, &zoned)] {
        let a = seq(dev, spec, 42);
        assert!(a.len() > 100);
        assert_eq!(a, seq(dev, spec, 42), "same seed, same steps");
        assert_ne!(a, seq(dev, spec, 43), "another seed, other steps");
    }
    // Jobs of one run draw from different streams.
    let ss = streams(&block, &*ssd, 42);
    let mut it = ss.into_iter();
    let (mut j0, mut j1) = (it.next().unwrap(), it.next().unwrap());
    let part = 32 * MIB / bb(&*ssd);
    let o0: Vec<u64> = drain(&mut j0, 10_000)
        .iter()
        .map(|s| lba_blocks(&s.cmd).0)
        .collect();
    let o1: Vec<u64> = drain(&mut j1, 10_000)
        .iter()
        .map(|s| lba_blocks(&s.cmd).0 - part)
        .collect();
    assert_ne!(o0, o1, "job 1 is not job 0 shifted");
}

#[test]
fn rw_modes_parse_as_fio_names() {
    for (s, m) in [
        ("read", RwMode::Read),
        ("write", RwMode::Write),
        ("randread", RwMode::RandRead),
        ("randwrite", RwMode::RandWrite),
        ("readwrite", RwMode::ReadWrite),
        ("rw", RwMode::ReadWrite),
        ("randrw", RwMode::RandRw),
    ] {
        assert_eq!(s.parse::<RwMode>(), Ok(m));
    }
    let e = "trim".parse::<RwMode>().unwrap_err();
    assert!(e.contains("`trim`") && e.contains("randrw"), "{e}");
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[test]
fn every_bad_option_is_an_error_naming_the_option() {
    let ssd = small_ssd();
    let zns = small_zns(8, 4, 3, 4);
    let smr = open_device("st14000nm0007").unwrap();
    let (size, b) = (zone_size(&*zns), bb(&*zns));
    let ssd_cap = ssd.info().capacity_bytes();
    let zns_cap = zns.info().capacity_bytes();
    let rngs = RngStreams::new(1);
    let d = JobSpec::default;
    let w = || JobSpec {
        rw: RwMode::Write,
        ..JobSpec::default()
    };
    let cases: Vec<(&str, &dyn Device, JobSpec, &str)> = vec![
        (
            "bs 0",
            &*ssd,
            JobSpec {
                block_size_bytes: 0,
                ..d()
            },
            "bs",
        ),
        (
            "bs not a multiple of the block",
            &*ssd,
            JobSpec {
                block_size_bytes: 6 * KIB,
                ..d()
            },
            "bs",
        ),
        (
            "bs larger than the zone capacity",
            &*zns,
            JobSpec {
                block_size_bytes: 4 * MIB,
                ..w()
            },
            "bs",
        ),
        ("iodepth 0", &*ssd, JobSpec { iodepth: 0, ..d() }, "iodepth"),
        ("numjobs 0", &*ssd, JobSpec { numjobs: 0, ..d() }, "numjobs"),
        (
            "rwmixread 101",
            &*ssd,
            JobSpec {
                rw: RwMode::RandRw,
                rwmixread_percent: 101,
                ..d()
            },
            "rwmixread",
        ),
        (
            "offset at the end",
            &*ssd,
            JobSpec {
                offset_bytes: ssd_cap,
                ..d()
            },
            "offset",
        ),
        (
            "offset beyond",
            &*ssd,
            JobSpec {
                offset_bytes: ssd_cap + 4 * KIB,
                ..d()
            },
            "offset",
        ),
        (
            "offset unaligned",
            &*ssd,
            JobSpec {
                offset_bytes: 512,
                ..d()
            },
            "offset",
        ),
        (
            "size beyond",
            &*ssd,
            JobSpec {
                offset_bytes: MIB,
                size_bytes: Some(ssd_cap),
                ..d()
            },
            "size",
        ),
        (
            "size 0",
            &*ssd,
            JobSpec {
                size_bytes: Some(0),
                ..d()
            },
            "size",
        ),
        (
            "size below one request per job",
            &*ssd,
            JobSpec {
                size_bytes: Some(8 * KIB),
                numjobs: 4,
                ..d()
            },
            "size",
        ),
        (
            "zoned: size beyond",
            &*zns,
            JobSpec {
                size_bytes: Some(zns_cap + size * b),
                ..w()
            },
            "size",
        ),
        (
            "zoned write region inside one zone",
            &*zns,
            JobSpec {
                offset_bytes: size * b / 2,
                size_bytes: Some(size * b),
                ..w()
            },
            "size",
        ),
        (
            "zoned random write region with no whole zone",
            &*zns,
            JobSpec {
                rw: RwMode::RandWrite,
                size_bytes: Some(MIB),
                ..d()
            },
            "size",
        ),
        (
            "zoned mixed region with no whole zone",
            &*zns,
            JobSpec {
                rw: RwMode::RandRw,
                size_bytes: Some(MIB),
                ..d()
            },
            "size",
        ),
        (
            "SMR write region only conventional",
            &*smr,
            JobSpec {
                size_bytes: Some(524 * 256 * MIB),
                ..w()
            },
            "size",
        ),
        (
            "max_open_zones above the device",
            &*zns,
            JobSpec {
                rw: RwMode::RandWrite,
                max_open_zones: Some(5),
                ..d()
            },
            "max_open_zones",
        ),
        (
            "max_open_zones below numjobs",
            &*zns,
            JobSpec {
                rw: RwMode::RandWrite,
                numjobs: 3,
                max_open_zones: Some(2),
                ..d()
            },
            "max_open_zones",
        ),
        (
            "max_open_zones 0",
            &*zns,
            JobSpec {
                rw: RwMode::Write,
                max_open_zones: Some(0),
                ..d()
            },
            "max_open_zones",
        ),
        (
            "more zoned writers than open zones",
            &*zns,
            JobSpec { numjobs: 5, ..w() },
            "numjobs",
        ),
    ];
    for (what, dev, spec, option) in cases {
        let (got, msg) = err_option(spec.streams(dev, &rngs));
        assert_eq!(got, option, "{what}: {msg}");
    }
    // The limits themselves are accepted.
    for (dev, spec) in [
        (
            &*zns,
            JobSpec {
                rw: RwMode::RandWrite,
                max_open_zones: Some(4),
                ..d()
            },
        ),
        (
            &*zns,
            JobSpec {
                rw: RwMode::RandWrite,
                numjobs: 4,
                max_open_zones: Some(4),
                ..d()
            },
        ),
        (
            &*zns,
            JobSpec {
                rw: RwMode::RandRead,
                numjobs: 8,
                max_open_zones: Some(1),
                ..d()
            },
        ),
        (
            &*zns,
            JobSpec {
                block_size_bytes: 3 * MIB,
                ..w()
            },
        ),
        (
            &*ssd,
            JobSpec {
                rw: RwMode::RandRw,
                rwmixread_percent: 100,
                ..d()
            },
        ),
        (
            &*ssd,
            JobSpec {
                offset_bytes: ssd_cap - 4 * KIB,
                ..d()
            },
        ),
        (
            &*ssd,
            JobSpec {
                size_bytes: Some(ssd_cap),
                ..d()
            },
        ),
        (
            &*smr,
            JobSpec {
                size_bytes: Some(525 * 256 * MIB),
                ..w()
            },
        ),
        (
            &*smr,
            JobSpec {
                rw: RwMode::RandRead,
                size_bytes: Some(256 * MIB),
                ..d()
            },
        ),
    ] {
        spec.streams(dev, &rngs)
            .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
    }
}
