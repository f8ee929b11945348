//! Tests of read-first die scheduling and program/erase suspension on the
//! `ftl-ssd` model (`[scheduling]`, `ftl/scheduling.rs`, `media/die_queue.rs`):
//! the read tail under a write backlog with and without, counters, FTL
//! invariants under GC, determinism, profile errors.

use super::tests::{build_text, fill_sequentially, run, text, SMALL};
use super::FtlSsd;
use crate::command::{Command, Payload};
use crate::device::Device;
use crate::profile::ProfileError;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{LatencyHistogram, Ns, RngStreams};

const FIFO: &str = "";
/// First-come first-served, with the `[scheduling]` counters reported.
const FIFO_COUNTED: &str = "\n[scheduling]\nread_first = false\n";
const READ_FIRST: &str = "\n[scheduling]\nread_first = true\n";
const SUSPEND: &str = "\n[scheduling]\nread_first = true\nprogram_suspend_us = 100.0\nerase_suspend_us = 700.0\nresume_us = 10.0\nmax_suspends_per_op = 2\n";

fn device(scheduling: &str) -> FtlSsd {
    build_text(format!("{}{scheduling}", text(&SMALL))).expect("valid profile")
}

/// Half the drive written, then 64 KiB writes every 300 us (a little faster
/// than the 4 dies program 1-ms units of 48 KiB: a backlog builds, bounded by
/// the run's length) with a 4 KiB read 100 us after each; returns the reads'
/// latency histogram and the device. (An unbounded open-loop overload books
/// programs ever further ahead; see docs/devices.md for that limit.)
fn read_tail_under_backlog(scheduling: &str, rounds: u64) -> (LatencyHistogram, FtlSsd, Ns) {
    let mut dev = device(scheduling);
    let mut now = 0;
    let half = dev.info().capacity_blocks / 2;
    let mut lba = 0;
    while lba < half {
        run(&mut dev, &mut now, Command::Write { lba, blocks: 64 });
        lba += 64;
    }
    let cap = dev.info().capacity_blocks;
    let mut rng = RngStreams::new(3).stream("sched.backlog");
    let mut reads = LatencyHistogram::new();
    let mut last_done = now;
    for _ in 0..rounds {
        let lba = uniform_below(&mut rng, half - 16);
        let w = dev
            .submit(now, &Command::Write { lba, blocks: 16 }, Payload::SizeOnly)
            .unwrap();
        let at = now + 100_000;
        let lba = uniform_below(&mut rng, half);
        let r = dev
            .submit(at, &Command::Read { lba, blocks: 1 }, Payload::SizeOnly)
            .unwrap();
        reads.record(r.done_ns - at);
        last_done = last_done.max(w.done_ns).max(r.done_ns);
        now += 300_000;
    }
    let _ = cap;
    (reads, dev, last_done)
}

/// Per-read means of where a read's time went (`[scheduling]` counters).
fn read_waits_us(c: &std::collections::BTreeMap<String, u64>) -> (f64, f64, f64) {
    let n = c["host_flash_reads"].max(1) as f64;
    let us = |k: &str| c[k] as f64 / n / 1e3;
    (
        us("read_die_wait_ns"),
        us("read_channel_wait_ns"),
        us("read_link_wait_ns"),
    )
}

#[test]
fn read_first_and_suspension_cut_the_read_tail_under_a_write_backlog() {
    let (fifo, dev_fifo, end_fifo) = read_tail_under_backlog(FIFO_COUNTED, 1500);
    let (first, dev_first, end_first) = read_tail_under_backlog(READ_FIRST, 1500);
    let (suspend, dev_suspend, end) = read_tail_under_backlog(SUSPEND, 1500);
    let (f, r, s) = (
        fifo.quantile_ns(0.99),
        first.quantile_ns(0.99),
        suspend.quantile_ns(0.99),
    );
    let waits = [
        read_waits_us(&dev_fifo.stats(end_fifo).counters),
        read_waits_us(&dev_first.stats(end_first).counters),
        read_waits_us(&dev_suspend.stats(end).counters),
    ];
    eprintln!("read p99 ns FIFO {f} read-first {r} suspend {s}; mean waits us (die, channel, link) {waits:?}");
    // FIFO: a read waits for the die's whole backlog (many 1-ms programs).
    assert!(f > 10_000_000, "FIFO p99 {f} ns");
    assert!(
        waits[0].0 > 1_000.0,
        "FIFO reads wait on the dies: {waits:?}"
    );
    // Read-first: the program in progress (1 ms), a few reads and GC work ahead.
    assert!(
        r < 5_000_000 && r * 10 < f,
        "read-first p99 {r} vs FIFO {f}"
    );
    // Suspension: the 100-us suspend latency instead of the program's rest.
    assert!(s < r, "suspend p99 {s} vs read-first {r}");
    let mean = |h: &LatencyHistogram| h.summary().mean_ns;
    assert!(mean(&suspend) < mean(&first) && mean(&first) < mean(&fifo));
    // Nothing but the dies holds reads back: the link and channels add little.
    for w in &waits[1..] {
        assert!(w.1 < 100.0 && w.2 < 100.0, "channel/link waits {waits:?}");
    }
    let c1 = &dev_first.stats(end_first).counters;
    assert!(c1["reads_ahead_of_programs"] > 0, "{c1:?}");
    assert_eq!(c1["program_suspends"], 0);
    let c2 = &dev_suspend.stats(end).counters;
    assert!(c2["program_suspends"] > 0, "{c2:?}");
    assert_eq!(
        c2["resume_overhead_ns"],
        10_000 * (c2["program_suspends"] + c2["erase_suspends"])
    );
}

#[test]
fn fifo_reports_no_scheduling_counters() {
    let (_, dev, end) = read_tail_under_backlog(FIFO, 50);
    assert!(!dev.stats(end).counters.contains_key("program_suspends"));
}

#[test]
fn die_work_is_conserved_sustained_writes_keep_their_rate() {
    // Reads inserted ahead of programs delay them, they do not drop them: the
    // time to drain the same writes grows by at most the reads' die time.
    let drain = |scheduling: &str| {
        let (_, mut dev, end) = read_tail_under_backlog(scheduling, 1000);
        let mut now = end;
        run(&mut dev, &mut now, Command::Flush);
        (now, dev.stats(now).media_write_bytes)
    };
    let (fifo_ns, fifo_bytes) = drain(FIFO);
    let (sus_ns, sus_bytes) = drain(SUSPEND);
    // GC placement follows die timing (least-busy allocation), so GC copies
    // differ a little between the runs; the host's programs are the same.
    assert!(
        fifo_bytes.abs_diff(sus_bytes) * 20 < fifo_bytes,
        "flash work FIFO {fifo_bytes} vs suspend {sus_bytes}"
    );
    let diff = fifo_ns.abs_diff(sus_ns);
    assert!(
        diff * 20 < fifo_ns,
        "drain time FIFO {fifo_ns} vs suspend {sus_ns}"
    );
}

#[test]
fn invariants_and_determinism_with_suspension_and_gc() {
    let once = || {
        let mut dev = device(SUSPEND);
        let mut now = 0;
        fill_sequentially(&mut dev, &mut now);
        let cap = dev.info().capacity_blocks;
        let mut rng = RngStreams::new(9).stream("sched.gc");
        let mut sum: u128 = 0;
        // QD1: writes are acknowledged from the buffer while their programs
        // (and GC) run on, so reads find programs and erases to suspend.
        for _ in 0..20_000 {
            let lba = uniform_below(&mut rng, cap);
            let blocks = (1 + uniform_below(&mut rng, 8)).min(cap - lba) as u32;
            let cmd = match uniform_below(&mut rng, 10) {
                0..=5 => Command::Write { lba, blocks },
                _ => Command::Read { lba, blocks },
            };
            sum += run(&mut dev, &mut now, cmd) as u128;
        }
        run(&mut dev, &mut now, Command::Flush);
        dev.check_invariants().unwrap();
        let st = dev.stats(now);
        assert!(st.gc_runs > 0 && st.counters["program_suspends"] > 0);
        (sum, format!("{:?}", st.counters))
    };
    assert_eq!(once(), once(), "same inputs, same output");
}

#[test]
fn profile_errors_name_the_field() {
    let bad = |section: &str, field: &str| {
        let e = build_text(format!("{}{section}", text(&SMALL))).err();
        match e {
            Some(ProfileError::OutOfRange { field: f, .. }) => assert_eq!(f, field, "{section}"),
            other => panic!("{section}: expected an error naming {field}, got {other:?}"),
        }
    };
    bad(
        "\n[scheduling]\nread_first = false\nprogram_suspend_us = 100.0\n",
        "scheduling.read_first",
    );
    bad(
        "\n[scheduling]\nread_first = true\nerase_suspend_us = -1.0\n",
        "scheduling.erase_suspend_us",
    );
    bad(
        "\n[scheduling]\nread_first = true\nprogram_suspend_us = 100.0\nmax_suspends_per_op = 0\n",
        "scheduling.max_suspends_per_op",
    );
    let typo = build_text(format!(
        "{}\n[scheduling]\nread_first = true\nsuspend_us = 1.0\n",
        text(&SMALL)
    ));
    assert!(typo.is_err());
}
