//! The SSD profiles BCW/MIOS uses (§5), against the published numbers their values
//! come from: peak write bandwidth (960 EVO 250 GB 1.5 GB/s; the paper's 660p
//! 0.6 GB/s), the SLC write cache (TurboWrite 13 GB on an empty 960 EVO, 300 MB/s
//! once it is full; the 660p's 6 GB static cache on a full drive and its QLC rate),
//! and the cache's folding (in idle time on the 960 EVO, never in idle time on the
//! 660p). Mechanism: `crates/devices/src/models/ftl/slc_cache.rs`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_devices::{open_device, Command, Device, Payload};
use zonelab_engine::{Ns, GIB, NS_PER_S};

const GB: u64 = 1_000_000_000;
const REQ: u64 = 128 * 1024;

/// Sequential 128 KiB writes with 32 in flight, from `lba` at `t0`, `total` bytes.
/// Returns the time each `mark`-byte segment completed (the last write of it).
fn write_seq(dev: &mut dyn Device, t0: Ns, lba: u64, total: u64, mark: u64) -> Vec<Ns> {
    let bb = dev.info().block_bytes as u64;
    let blocks = (REQ / bb) as u32;
    let mut in_flight: BinaryHeap<Reverse<Ns>> = (0..32).map(|_| Reverse(t0)).collect();
    let mut marks = Vec::new();
    let mut end = t0;
    for i in 0..total.div_ceil(REQ) {
        let Reverse(now) = in_flight.pop().unwrap();
        let cmd = Command::Write {
            lba: lba + i * blocks as u64,
            blocks,
        };
        let done = dev.submit(now, &cmd, Payload::SizeOnly).unwrap().done_ns;
        end = end.max(done);
        in_flight.push(Reverse(done));
        if ((i + 1) * REQ).min(total) / mark > i * REQ / mark {
            marks.push(end);
        }
    }
    marks
}

fn gb_s(bytes: u64, from: Ns, to: Ns) -> f64 {
    bytes as f64 / (to - from) as f64
}

fn counter(dev: &dyn Device, name: &str) -> u64 {
    dev.stats(1).counters[name]
}

/// A drive filled once sequentially (every LBA written), and when the fill ended.
fn full(name: &str) -> (Box<dyn Device>, Ns) {
    let mut dev = open_device(name).unwrap();
    let cap = dev.info().capacity_bytes();
    let end = *write_seq(dev.as_mut(), 0, 0, cap / REQ * REQ, cap / REQ * REQ)
        .last()
        .unwrap();
    (dev, end)
}

#[test]
fn ssd_960evo_peak_write_is_1_5_gb_s() {
    let mut dev = open_device("ssd-960evo").unwrap();
    let t = write_seq(dev.as_mut(), 0, 0, GIB, GIB);
    let rate = gb_s(GIB, 0, t[0]);
    assert!((rate - 1.5).abs() / 1.5 < 0.05, "{rate} GB/s");
}

#[test]
fn ssd_660p_peak_write_is_0_6_gb_s() {
    let mut dev = open_device("ssd-660p").unwrap();
    let t = write_seq(dev.as_mut(), 0, 0, GIB, GIB);
    let rate = gb_s(GIB, 0, t[0]);
    assert!((rate - 0.6).abs() / 0.6 < 0.05, "{rate} GB/s");
}

#[test]
fn ssd_960evo_turbowrite_takes_13_gb_then_writes_at_300_mb_s() {
    // PC Pro's 960 EVO review: the 250 GB model "maxes out at 1,500MB/sec write
    // and drops to 300MB/sec after 13GB has been written" (an empty drive: the
    // 3 GB static and 10 GB dynamic TurboWrite regions).
    let mut dev = open_device("ssd-960evo").unwrap();
    let t = write_seq(dev.as_mut(), 0, 0, 20 * GB, GB);
    let in_cache = gb_s(12 * GB, 0, t[11]);
    assert!(
        (in_cache - 1.5).abs() / 1.5 < 0.05,
        "{in_cache} GB/s in cache"
    );
    let after = gb_s(6 * GB, t[13], t[19]);
    assert!(
        (after - 0.3).abs() / 0.3 < 0.05,
        "{after} GB/s after the cache"
    );
    let cached = counter(dev.as_ref(), "slc_written_bytes");
    assert!(
        (cached as f64 - 13e9).abs() < 0.01 * 13e9,
        "{cached} B went through SLC"
    );
}

#[test]
fn ssd_960evo_full_drive_keeps_the_static_cache_and_folds_it_when_idle() {
    let (mut dev, t_full) = full("ssd-960evo");
    // Full: no free user space, so only the 3 GB static region remains.
    assert_eq!(counter(dev.as_ref(), "slc_capacity_bytes") / GB, 2); // 3 GB in whole program units
    let held = counter(dev.as_ref(), "slc_held_bytes");
    assert!(held > 12 * GB, "{held} B still in SLC after the fill");
    // 10 s idle: folding starts 100 ms after the last command and runs until a
    // command arrives, bounded by the TLC program rate (300 MB/s; the SLC reads and
    // SLC-block erases that folding adds take the rest of the dies' time).
    let probe = Command::Read { lba: 0, blocks: 1 };
    dev.submit(t_full + 10 * NS_PER_S, &probe, Payload::SizeOnly)
        .unwrap();
    let folded = counter(dev.as_ref(), "slc_folded_bytes") as f64;
    let at_tlc_rate = 9.9 * 0.3e9;
    assert!(
        (0.75 * at_tlc_rate..=at_tlc_rate).contains(&folded),
        "{folded} B folded in 10 s of idle time"
    );
    // Once everything is folded the static cache takes writes at 1.5 GB/s again.
    let t1 = t_full + 60 * NS_PER_S;
    let t = write_seq(dev.as_mut(), t1, 0, 2 * GB, 2 * GB);
    let rate = gb_s(2 * GB, t1, t[0]);
    assert!((rate - 1.5).abs() / 1.5 < 0.05, "{rate} GB/s after idling");
}

#[test]
fn ssd_960evo_without_idle_time_a_full_drive_writes_at_the_tlc_rate() {
    let (mut dev, t_full) = full("ssd-960evo");
    // 50 ms later (shorter than the idle time folding waits for): the cache
    // still holds the fill's data, so writes go straight to TLC.
    let t1 = t_full + 50_000_000;
    let t = write_seq(dev.as_mut(), t1, 0, 2 * GB, 2 * GB);
    let rate = gb_s(2 * GB, t1, t[0]);
    assert!((rate - 0.3).abs() / 0.3 < 0.05, "{rate} GB/s");
    assert_eq!(counter(dev.as_ref(), "slc_background_folds"), 0);
}

#[test]
fn ssd_660p_full_drive_never_folds_in_idle_time_and_writes_at_its_qlc_rate() {
    let (mut dev, t_full) = full("ssd-660p");
    assert_eq!(counter(dev.as_ref(), "slc_capacity_bytes") / GB, 5); // 6 GB in whole program units
    let held = counter(dev.as_ref(), "slc_held_bytes");
    // A minute of idle time changes nothing (AnandTech: the 660p keeps data in SLC
    // until room is needed).
    let t1 = t_full + 60 * NS_PER_S;
    let t = write_seq(dev.as_mut(), t1, 0, GB, GB);
    assert_eq!(counter(dev.as_ref(), "slc_background_folds"), 0);
    assert!(counter(dev.as_ref(), "slc_write_path_folds") > 0);
    assert!(held >= 5 * GB);
    // Each new unit folds an old one first: the drive writes at about its QLC rate,
    // 4 dies x 12.5 MB/s = 50 MB/s (ComputerBase measured about 100 MB/s on the
    // 8-die 1 TB model), less the SLC programs and reads folding adds.
    let rate = gb_s(GB, t1, t[0]);
    assert!((0.035..0.05).contains(&rate), "{rate} GB/s");
}
