//! Tests of 512-byte LBAs on the FTL's 4 KiB units (`ftl/lba_format.rs`):
//! sub-block reads read the covering page, sub-block writes read-modify-write
//! (counted, timed), partial trims keep data, bytes survive GC against a
//! sector-level reference model, determinism, profile errors.

use super::tests::{build_text, run, text, MINI, SMALL};
use super::FtlSsd;
use crate::command::{Command, Payload};
use crate::device::Device;
use crate::profile::ProfileError;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{Ns, RngStreams};

const SECTOR: usize = 512;

fn with_512_lbas(profile: String) -> FtlSsd {
    build_text(profile.replace("block_bytes = 4096", "block_bytes = 512")).expect("valid profile")
}

#[test]
fn a_sub_block_read_reads_the_covering_page() {
    let mut dev = with_512_lbas(text(&SMALL));
    assert_eq!(dev.info().block_bytes, 512);
    assert_eq!(dev.info().capacity_blocks, 32 * 1024 * 2);
    let mut now = 0;
    run(&mut dev, &mut now, Command::Write { lba: 0, blocks: 96 });
    run(&mut dev, &mut now, Command::Flush);
    let before = dev.stats(now);
    // One sector, 2 sectors into unit 0: the whole 4 KiB unit comes off flash.
    let lat = run(&mut dev, &mut now, Command::Read { lba: 2, blocks: 1 });
    assert!(lat >= 50_000, "flash read {lat} ns");
    let st = dev.stats(now);
    assert_eq!(st.host_read_bytes - before.host_read_bytes, 512);
    assert_eq!(st.media_read_bytes - before.media_read_bytes, 4096);
    assert_eq!(st.counters["sub_block_read_units"], 1);
    // 4 KiB at sector 2 straddles two units: both are read.
    run(&mut dev, &mut now, Command::Read { lba: 2, blocks: 8 });
    let st2 = dev.stats(now);
    assert_eq!(st2.media_read_bytes - st.media_read_bytes, 8192);
    assert_eq!(st2.counters["sub_block_read_units"], 3);
}

#[test]
fn a_sub_block_write_is_a_read_modify_write_when_its_unit_is_on_flash() {
    let mut dev = with_512_lbas(text(&SMALL));
    let mut now = 0;
    // Units 0..12 programmed (one 48 KiB program unit), then idle.
    run(&mut dev, &mut now, Command::Write { lba: 0, blocks: 96 });
    run(&mut dev, &mut now, Command::Flush);
    now += 10_000_000;
    let aligned = run(&mut dev, &mut now, Command::Write { lba: 8, blocks: 8 });
    let before = dev.stats(now);
    let partial = run(&mut dev, &mut now, Command::Write { lba: 19, blocks: 2 });
    let st = dev.stats(now);
    assert!(
        partial >= aligned + 50_000,
        "RMW write {partial} ns vs aligned {aligned} ns (tR 50 us)"
    );
    assert_eq!(st.counters["sub_block_rmw_units"], 1);
    assert_eq!(st.counters["sub_block_write_units"], 1);
    assert_eq!(st.media_read_bytes - before.media_read_bytes, 4096);
    // Into a unit still in the write buffer: merged in DRAM, no flash read.
    let buffered = run(&mut dev, &mut now, Command::Write { lba: 9, blocks: 1 });
    assert!(buffered < 50_000, "merge in DRAM {buffered} ns");
    // Into an unmapped unit: the rest is zeros, no flash read.
    run(
        &mut dev,
        &mut now,
        Command::Write {
            lba: 4001,
            blocks: 3,
        },
    );
    // Into a unit whose program is still running: the buffer still holds it.
    run(
        &mut dev,
        &mut now,
        Command::Write {
            lba: 800,
            blocks: 96,
        },
    );
    let in_flight = run(
        &mut dev,
        &mut now,
        Command::Write {
            lba: 803,
            blocks: 1,
        },
    );
    assert!(
        in_flight < 50_000,
        "merge with a unit being programmed {in_flight} ns"
    );
    let st2 = dev.stats(now);
    assert_eq!(st2.counters["sub_block_write_units"], 4);
    assert_eq!(st2.counters["sub_block_rmw_units"], 1);
    assert_eq!(st2.media_read_bytes, st.media_read_bytes);
    dev.check_invariants().unwrap();
}

#[test]
fn a_partial_trim_keeps_the_unit() {
    let mut dev = with_512_lbas(text(&SMALL));
    let mut now = 0;
    run(&mut dev, &mut now, Command::Write { lba: 0, blocks: 24 });
    // Sectors 4..20: unit 1 whole, units 0 and 2 partly.
    run(&mut dev, &mut now, Command::Trim { lba: 4, blocks: 16 });
    assert_eq!(dev.stats(now).counters["trimmed_units"], 1);
}

/// Random sector-granular writes, trims and reads with bytes on a tiny drive
/// (GC runs), checked against a per-sector reference; returns a digest of the
/// latencies.
fn payload_run(seed: u64) -> u128 {
    let mut dev = with_512_lbas(text(&MINI));
    let cap = dev.info().capacity_blocks;
    let mut model = vec![0u8; cap as usize * SECTOR];
    let mut rng = RngStreams::new(seed).stream("lba512.payload");
    let mut now: Ns = 0;
    let mut digest: u128 = 0;
    for step in 0..4_000u64 {
        let lba = uniform_below(&mut rng, cap);
        let blocks = (1 + uniform_below(&mut rng, 20)).min(cap - lba) as u32;
        let range = lba as usize * SECTOR..(lba as usize + blocks as usize) * SECTOR;
        let c = match uniform_below(&mut rng, 10) {
            0..=5 => {
                let data: Vec<u8> = (0..range.len())
                    .map(|i| (step as usize * 31 + i) as u8)
                    .collect();
                model[range].copy_from_slice(&data);
                dev.submit(now, &Command::Write { lba, blocks }, Payload::Write(&data))
            }
            6 => {
                // Whole units covered read back as zeros afterwards.
                let first = lba.div_ceil(8) as usize * 8;
                let end = ((lba + blocks as u64) / 8) as usize * 8;
                if end > first {
                    model[first * SECTOR..end * SECTOR].fill(0);
                }
                dev.submit(now, &Command::Trim { lba, blocks }, Payload::SizeOnly)
            }
            _ => {
                let mut out = vec![0xAAu8; range.len()];
                let c = dev.submit(now, &Command::Read { lba, blocks }, Payload::Read(&mut out));
                assert!(
                    out == model[range],
                    "step {step}: sectors {lba}+{blocks} differ"
                );
                c
            }
        }
        .unwrap();
        digest = digest
            .wrapping_mul(31)
            .wrapping_add((c.done_ns - now) as u128);
        now = c.done_ns;
    }
    dev.check_invariants().unwrap();
    let st = dev.stats(now);
    assert!(
        st.gc_runs > 0 && st.counters["sub_block_rmw_units"] > 0,
        "{:?}",
        st.counters
    );
    digest
}

#[test]
fn sector_bytes_survive_rmw_and_gc_and_runs_are_deterministic() {
    assert_eq!(payload_run(5), payload_run(5));
}

#[test]
fn other_lba_sizes_are_rejected_naming_the_field() {
    let e = build_text(text(&SMALL).replace("block_bytes = 4096", "block_bytes = 1024"))
        .err()
        .expect("1024-byte LBAs rejected");
    match e {
        ProfileError::OutOfRange {
            ref field,
            ref allowed,
            ..
        } => {
            assert_eq!(field, "capacity.block_bytes");
            assert!(allowed.contains("512"), "{e}");
        }
        other => panic!("expected OutOfRange, got {other}"),
    }
}
