//! The CMR disk's DRAM write buffer (`[cache]`, `models/hdd_write_cache.rs`)
//! against BCW/MIOS §3: the fast / mid / slow staircase of sequential QD1 writes
//! (Fig. 1, 3, 4, §3.2), sync, idle drain, reads from the buffer, the smaller
//! buffers of the other drives, and write-through when the cache is off.
//!
//! Paper numbers (WD 10 TB, 64 KB writes, §3.2): L_f 180 µs, L_m 280 µs,
//! L_s 12 ms, T_f 60 ms, T_m 37 ms, W_f 16 MB, W_m 8 MB; ~240 fast 64 KB writes
//! and ~1,200 fast 16 KB writes (§3.1).

use zonelab_devices::models::build;
use zonelab_devices::profile::{find_profile, ProfileSource};
use zonelab_devices::{
    open_device, open_device_with, Command, Device, DeviceStats, Payload, ProfileError,
    ProfileOverride,
};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const US: u64 = 1_000;
const MS: u64 = 1_000_000;

/// A latency at or above this is a slow (S) write. Fast writes take ≤ 0.2 ms,
/// mid writes ≤ ~1.3 ms (a 64 KiB drain plus a track switch); a slow write waits
/// at least a batch's setup (2 ms) plus its own drain.
const SLOW_NS: u64 = 2 * MS;

fn dev(name: &str) -> Box<dyn Device> {
    open_device(name).unwrap()
}

/// Built-in profile `name` with the line `key = …` replaced by `key = value`.
fn dev_with(name: &str, key: &str, value: &str) -> Result<Box<dyn Device>, ProfileError> {
    let text = find_profile(name).unwrap().text;
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{key} =")))
        .expect("key exists");
    let text = text.replace(line, &format!("{key} = {value}"));
    build(&ProfileSource {
        source_name: "test.toml".into(),
        text,
    })
}

/// Built-in profile `name` with `key=value` overrides (keys dotted, e.g.
/// `cache.room_jitter_kib`).
fn dev_over(name: &str, set: &[(&str, &str)]) -> Result<Box<dyn Device>, ProfileError> {
    let set: Vec<ProfileOverride> = set
        .iter()
        .map(|(k, v)| ProfileOverride::parse(&format!("{k}={v}")).unwrap())
        .collect();
    open_device_with(name, &set)
}

/// One write: submitted at `submit_ns`, took `latency_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct W {
    submit_ns: u64,
    latency_ns: u64,
}

impl W {
    fn done_ns(&self) -> u64 {
        self.submit_ns + self.latency_ns
    }
}

/// `count` sequential writes of `size` bytes from `lba`, QD1: each submitted
/// `gap_ns` after the previous one completed, the first at `t0`.
fn seq_writes(
    d: &mut dyn Device,
    t0: u64,
    lba: u64,
    size: u64,
    count: usize,
    gap_ns: u64,
) -> Vec<W> {
    let bb = d.info().block_bytes as u64;
    let blocks = (size / bb) as u32;
    let mut now = t0;
    let mut out = Vec::with_capacity(count);
    for i in 0..count as u64 {
        let c = d
            .submit(
                now,
                &Command::Write {
                    lba: lba + i * blocks as u64,
                    blocks,
                },
                Payload::SizeOnly,
            )
            .unwrap();
        out.push(W {
            submit_ns: now,
            latency_ns: c.done_ns - now,
        });
        now = c.done_ns + gap_ns;
    }
    out
}

fn sync(d: &mut dyn Device, now: u64) -> u64 {
    d.submit(now, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns
}

fn mean(xs: impl Iterator<Item = u64>) -> f64 {
    let (mut n, mut s) = (0u64, 0u128);
    for x in xs {
        n += 1;
        s += x as u128;
    }
    s as f64 / n.max(1) as f64
}

/// The staircase of a run (Fig. 4): F…F S M…M S M…M …
#[derive(Debug)]
struct Staircase {
    fast: usize,
    /// Mean fast latency and the fast stage's duration (first submission to
    /// last fast completion).
    l_f_ns: f64,
    t_f_ns: u64,
    /// The first slow write (its batch starts from an idle platter) and the mean
    /// of the later ones (each batch continuing the previous one).
    first_s_ns: u64,
    l_s_ns: f64,
    /// Mid writes: mean latency, and per complete S-to-S cycle the count and the
    /// stage's duration.
    l_m_ns: f64,
    m_counts: Vec<usize>,
    t_m_ns: Vec<u64>,
    /// Mean of the longest mid write per cycle (track switches).
    max_m_ns: u64,
}

fn staircase(ws: &[W]) -> Staircase {
    let slow: Vec<usize> = (0..ws.len())
        .filter(|&i| ws[i].latency_ns >= SLOW_NS)
        .collect();
    assert!(
        slow.len() >= 3,
        "expected several slow writes, got {}",
        slow.len()
    );
    let fast = slow[0];
    assert!(
        ws[..fast].iter().all(|w| w.latency_ns < MS),
        "every write before the first slow one is fast"
    );
    let mut m_counts = Vec::new();
    let mut t_m_ns = Vec::new();
    for pair in slow.windows(2) {
        let (a, b) = (pair[0] + 1, pair[1]);
        assert!(
            b > a,
            "a slow write is followed by mid writes, not another slow one"
        );
        m_counts.push(b - a);
        t_m_ns.push(ws[b - 1].done_ns() - ws[a].submit_ns);
    }
    let mids = || slow.windows(2).flat_map(|p| ws[p[0] + 1..p[1]].iter());
    Staircase {
        fast,
        l_f_ns: mean(ws[..fast].iter().map(|w| w.latency_ns)),
        t_f_ns: ws[fast - 1].done_ns() - ws[0].submit_ns,
        first_s_ns: ws[slow[0]].latency_ns,
        l_s_ns: mean(slow[1..].iter().map(|&i| ws[i].latency_ns)),
        l_m_ns: mean(mids().map(|w| w.latency_ns)),
        max_m_ns: mids().map(|w| w.latency_ns).max().unwrap(),
        m_counts,
        t_m_ns,
    }
}

/// Writes before the first slow one (all of them fast).
fn fast_run(ws: &[W]) -> usize {
    let n = ws
        .iter()
        .position(|w| w.latency_ns >= SLOW_NS)
        .unwrap_or(ws.len());
    assert!(ws[..n].iter().all(|w| w.latency_ns < MS));
    n
}

/// After a sync at `t0`: `count` sequential QD1 writes of `size` from LBA 0.
fn run_after_sync(d: &mut dyn Device, size: u64, count: usize, gap_ns: u64) -> Vec<W> {
    let t0 = sync(d, 0);
    seq_writes(d, t0, 0, size, count, gap_ns)
}

fn within(measured: f64, paper: f64, tolerance: f64) -> bool {
    (measured / paper - 1.0).abs() <= tolerance
}

fn counter(st: &DeviceStats, name: &str) -> u64 {
    *st.counters
        .get(name)
        .unwrap_or_else(|| panic!("counter {name} missing: {:?}", st.counters))
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

fn us(ns: f64) -> f64 {
    ns / 1e3
}

/// One revolution of a 7,200-rpm disk.
const REV_7200_NS: u64 = 8_333_333;

/// 64 KiB sequential QD1 writes on the WD 10 TB right after a sync, each submitted
/// when the previous one completes (the brief's "continuous" writes).
///
/// Within ±15% of the paper: L_f, L_m, T_m, the number of fast writes (W_f) and of
/// mid writes per cycle (W_m). Misses, asserted as what the mechanism gives and
/// reported: T_f is W_f · L_f / s = 46 ms (paper 60 ms; the paper's own
/// W_f = T_f · s / L_f does not hold for its numbers: 60 ms at 180 µs per 64 KB is
/// 21 MB, not 16 MB — see the next test for the host turnaround that reconciles
/// them), and L_s is one revolution plus the write's drain, ~8.6–10.6 ms at
/// 7,200 rpm (paper 12 ms).
#[test]
fn wd100efax_64k_writes_climb_the_papers_staircase() {
    let mut d = dev("wd100efax");
    let ws = run_after_sync(d.as_mut(), 64 * KIB, 1200, 0);
    let s = staircase(&ws);
    let t_m = mean(s.t_m_ns.iter().copied());
    eprintln!(
        "wd100efax 64 KiB: {} fast, L_f {:.1} us, T_f {:.1} ms, first S {:.2} ms, L_s {:.2} ms, L_m {:.1} us (max {:.2} ms), T_m {:.1} ms, M per cycle {:?}",
        s.fast, us(s.l_f_ns), ms(s.t_f_ns as f64), ms(s.first_s_ns as f64), ms(s.l_s_ns), us(s.l_m_ns), ms(s.max_m_ns as f64), ms(t_m), s.m_counts
    );
    // W_f: the 16 MiB buffer holds 256 writes (paper: "about 240").
    assert!((240..=256).contains(&s.fast), "{}", s.fast);
    assert!(within(s.l_f_ns, 180e3, 0.15), "L_f {}", s.l_f_ns);
    assert!(within(s.l_m_ns, 280e3, 0.15), "L_m {}", s.l_m_ns);
    for &t in &s.t_m_ns {
        assert!(within(t as f64, 37e6, 0.15), "T_m {t}");
    }
    // W_m = 8 MiB per S+M cycle: one slow write and 127 mid writes of 64 KiB.
    assert!(s.m_counts.iter().all(|&m| m == 127), "{:?}", s.m_counts);
    // T_f is the fast writes back to back: W_f · L_f / s.
    assert!(
        within(s.t_f_ns as f64, s.fast as f64 * s.l_f_ns, 0.01),
        "T_f {}",
        s.t_f_ns
    );
    // L_s: a continuing batch misses its sector and waits one revolution, then the
    // write's own 64 KiB drain (and any track switches the mechanics' stream skipped).
    assert!(
        s.l_s_ns >= REV_7200_NS as f64 && s.l_s_ns <= REV_7200_NS as f64 + 2.5e6,
        "L_s {}",
        s.l_s_ns
    );
    // The first batch starts from an idle platter: setup (2 ms) + rotational wait.
    assert!(
        s.first_s_ns >= 2 * MS && s.first_s_ns <= 2 * MS + REV_7200_NS + MS,
        "first S {}",
        s.first_s_ns
    );
    let st = d.stats(ws.last().unwrap().done_ns());
    assert_eq!(counter(&st, "cache_buffered_writes"), 1200);
    assert_eq!(counter(&st, "cache_fast_writes"), 256);
    let slow = ws.iter().filter(|w| w.latency_ns >= SLOW_NS).count() as u64;
    assert_eq!(counter(&st, "cache_blocked_writes"), slow);
    assert_eq!(counter(&st, "cache_throttled_writes"), 1200 - 256 - slow);
    assert_eq!(counter(&st, "cache_flush_batches"), slow);
    assert_eq!(counter(&st, "cache_flushed_bytes"), slow * 8 * MIB);
    assert_eq!(st.media_write_bytes, slow * 8 * MIB);
    assert_eq!(counter(&st, "cache_missed_revolutions"), slow - 1);
}

/// The same run with the host taking 54 µs between a completion and the next
/// submission (60 ms / 256 − 180 µs: the turnaround that makes the paper's T_f,
/// L_f and W_f consistent). The fast stage then lasts the paper's 60 ms, and mid
/// writes shorten by the turnaround since the platter keeps draining meanwhile.
#[test]
fn with_a_host_turnaround_the_fast_stage_lasts_the_papers_60_ms() {
    let mut d = dev("wd100efax");
    let ws = run_after_sync(d.as_mut(), 64 * KIB, 1000, 54 * US);
    let s = staircase(&ws);
    let t_m = mean(s.t_m_ns.iter().copied());
    eprintln!(
        "wd100efax 64 KiB, 54 us host turnaround: {} fast, L_f {:.1} us, T_f {:.1} ms, L_s {:.2} ms, L_m {:.1} us, T_m {:.1} ms",
        s.fast,
        us(s.l_f_ns),
        ms(s.t_f_ns as f64),
        ms(s.l_s_ns),
        us(s.l_m_ns),
        ms(t_m)
    );
    assert_eq!(s.fast, 256);
    assert!(within(s.l_f_ns, 180e3, 0.15), "L_f {}", s.l_f_ns);
    assert!(within(s.t_f_ns as f64, 60e6, 0.15), "T_f {}", s.t_f_ns);
    assert!(within(s.l_m_ns, 280e3, 0.15), "L_m {}", s.l_m_ns);
    assert!(within(t_m, 37e6, 0.15), "T_m {t_m}");
}

/// Small writes (§1: 4 KB F/M 35/55 µs, "mid latency ... for about 40 ms";
/// §3.1: 16 KB F/M 66/135 µs, ~1,200 fast writes): a QD1 stream of them is
/// slower than the platter, so it never waits for room; its Mid state is the
/// host side slowed while a flush batch is on the media (`cache.host_share_while_flushing`,
/// 0.68, calibrated on the 4 KB point only). Each S-to-S cycle is the batch's
/// flush at M latency, then F-latency writes until the buffer is full again,
/// W_m = 8 MiB in all. 16 KiB is a check, not a fit: 97 µs against the paper's
/// 135 µs (the paper's own F/M ratios are 0.64 at 4 KB and 64 KB, 0.49 at
/// 16 KB: no single share fits all three; docs/devices.md).
#[test]
fn small_writes_have_a_mid_state_while_a_batch_flushes() {
    for (size, paper_f_us, paper_m_us, model_m_us, fast_writes) in [
        (4 * KIB, 35.0, 55.0, 55.1, 4096..=4096),
        (16 * KIB, 66.0, 135.0, 97.1, 1_000..=1_200),
    ] {
        let mut d = dev("wd100efax");
        let count = (48 * MIB / size) as usize;
        let ws = run_after_sync(d.as_mut(), size, count, 0);
        let slow: Vec<usize> = (0..ws.len())
            .filter(|&i| ws[i].latency_ns >= SLOW_NS)
            .collect();
        assert!(slow.len() >= 3, "{size}: {} slow writes", slow.len());
        assert!(fast_writes.contains(&slow[0]), "{size}: {} fast", slow[0]);
        let l_f = mean(ws[..slow[0]].iter().map(|w| w.latency_ns));
        assert!(within(l_f, paper_f_us * 1e3, 0.10), "{size}: L_f {l_f}");
        let mid_min = 1.2 * l_f;
        for pair in slow.windows(2) {
            let cycle = &ws[pair[0] + 1..pair[1]];
            // M writes first, then F writes; never interleaved.
            let n_m = cycle
                .iter()
                .position(|w| (w.latency_ns as f64) < mid_min)
                .expect("the cycle ends with F-latency writes");
            assert!(n_m > 0, "{size}: a slow write is followed by mid writes");
            assert!(
                cycle[n_m..].iter().all(|w| (w.latency_ns as f64) < mid_min),
                "{size}: F and M interleave"
            );
            let l_m = mean(cycle[..n_m].iter().map(|w| w.latency_ns));
            eprintln!(
                "wd100efax {size} B: L_f {:.1} us, L_m {:.1} us (paper {paper_m_us}), M for {:.1} ms, {} F after",
                us(l_f),
                us(l_m),
                ms((cycle[n_m - 1].done_ns() - cycle[0].submit_ns) as f64),
                cycle.len() - n_m
            );
            // Median-like: head switches make a few M writes slower.
            assert!(within(l_m, model_m_us * 1e3, 0.08), "{size}: L_m {l_m}");
            // The M part lasts the batch's flush: 8 MiB at 115–235 MB/s plus setup.
            let t_m = cycle[n_m - 1].done_ns() - cycle[0].submit_ns;
            assert!((30 * MS..=45 * MS).contains(&t_m), "{size}: T_m {t_m}");
            // The next S comes after W_m = one batch of host bytes (the S write
            // included).
            assert_eq!((cycle.len() as u64 + 1) * size, 8 * MIB, "{size}");
        }
        // Only the 4 KB point was fitted.
        if size == 4 * KIB {
            let all_m: Vec<u64> = slow
                .windows(2)
                .flat_map(|p| ws[p[0] + 1..p[1]].iter())
                .filter(|w| (w.latency_ns as f64) >= mid_min)
                .map(|w| w.latency_ns)
                .collect();
            let m = mean(all_m.iter().copied());
            assert!(within(m, paper_m_us * 1e3, 0.05), "4 KiB L_m {m}");
        }
    }
}

/// Ablation: without the slowed host side (`host_share_while_flushing = 1.0`)
/// 4 KiB writes show one buffered latency level, F and S only (the model before
/// the Mid state of small writes).
#[test]
fn without_the_slowed_host_side_small_writes_have_no_mid_state() {
    let mut d = dev_with("wd100efax", "host_share_while_flushing", "1.0").unwrap();
    let ws = run_after_sync(d.as_mut(), 4 * KIB, (32 * MIB / (4 * KIB)) as usize, 0);
    let buffered: Vec<u64> = ws
        .iter()
        .map(|w| w.latency_ns)
        .filter(|&l| l < SLOW_NS)
        .collect();
    let (lo, hi) = (
        *buffered.iter().min().unwrap(),
        *buffered.iter().max().unwrap(),
    );
    assert!(ws.iter().any(|w| w.latency_ns >= SLOW_NS));
    // Every buffered write within a few µs of F (head switches aside, which a
    // 4 KiB write never waits for here).
    assert!(hi < lo + 2 * US, "{lo}..{hi}");
}

#[test]
fn sync_after_a_full_buffer_costs_the_flush_and_leaves_the_next_writes_fast() {
    let mut d = dev("wd100efax");
    let ws = run_after_sync(d.as_mut(), 64 * KIB, 256, 0);
    assert!(
        ws.iter().all(|w| w.latency_ns < MS),
        "256 writes fit the 16 MiB buffer"
    );
    let t = ws.last().unwrap().done_ns();
    let done = sync(d.as_mut(), t);
    let cost = done - t;
    eprintln!(
        "wd100efax: sync of a full 16 MiB buffer took {:.1} ms",
        ms(cost as f64)
    );
    // Two 8 MiB batches at ~210 MB/s plus their positioning: ≥ 80 ms, < 120 ms.
    assert!((50 * MS..=120 * MS).contains(&cost), "{cost}");
    let st = d.stats(done);
    assert_eq!(counter(&st, "cache_syncs"), 1);
    assert_eq!(counter(&st, "cache_occupancy_bytes"), 0);
    assert_eq!(st.media_write_bytes, 16 * MIB);
    // Empty again: the next 256 writes are fast and the 257th is slow.
    let next = seq_writes(d.as_mut(), done, 16 * MIB / 512, 64 * KIB, 300, 0);
    assert_eq!(fast_run(&next), 256);
    // A sync with nothing buffered costs one command.
    let mut e = dev("wd100efax");
    assert_eq!(sync(e.as_mut(), 1_000), 1_000 + 28 * US);
}

/// `n` distinct pseudo-random 4 KiB-aligned LBAs spread over the whole disk
/// (a fixed LCG: deterministic).
fn scattered_lbas(d: &dyn Device, n: usize) -> Vec<u64> {
    let slots = d.info().capacity_blocks / 8 - 1;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 11) % slots * 8
        })
        .collect()
}

#[test]
fn a_sync_of_scattered_blocks_pays_a_seek_and_rotation_per_block() {
    // BCW §4.2: "a sync() can take several hundred milliseconds". The model's sync
    // writes what is buffered through the mechanics: 64 scattered 4 KiB blocks
    // cost about 64 × (short seek + rotational wait), not 256 KiB at the media rate.
    const N: usize = 64;
    let mut d = dev("wd100efax");
    let mut now = 0;
    for lba in scattered_lbas(d.as_ref(), N) {
        let c = d
            .submit(now, &Command::Write { lba, blocks: 8 }, Payload::SizeOnly)
            .unwrap();
        assert!(c.done_ns - now < 100 * US, "buffered: F latency");
        now = c.done_ns;
    }
    let before = d.stats(now);
    let done = sync(d.as_mut(), now);
    let cost = done - now;
    let st = d.stats(done);
    let seeks = counter(&st, "seeks") - counter(&before, "seeks");
    let per_block_ns = cost as f64 / N as f64;
    eprintln!(
        "wd100efax: sync of {N} scattered 4 KiB blocks took {:.1} ms ({:.2} ms per block, {seeks} seeks)",
        ms(cost as f64),
        ms(per_block_ns)
    );
    assert_eq!(counter(&st, "cache_sync_bytes"), N as u64 * 4 * KIB);
    assert!(
        seeks as usize >= N - 1,
        "every block is elsewhere: {seeks} seeks"
    );
    // Each block: at least a track-to-track seek (0.8 ms) plus some rotational wait;
    // at most an average seek (8 ms) plus a whole revolution (8.3 ms).
    assert!(
        per_block_ns > 0.8e6 + REV_7200_NS as f64 / 4.0,
        "{per_block_ns} ns per block"
    );
    assert!(
        per_block_ns < 8e6 + REV_7200_NS as f64,
        "{per_block_ns} ns per block"
    );
    // The same bytes written sequentially sync at least 10× faster.
    let mut s = dev("wd100efax");
    let ws = seq_writes(s.as_mut(), 0, 0, 4 * KIB, N, 0);
    let t = ws.last().unwrap().done_ns();
    let seq_cost = sync(s.as_mut(), t) - t;
    assert!(
        cost > 10 * seq_cost,
        "scattered {cost} vs sequential {seq_cost}"
    );
}

#[test]
fn commands_arriving_during_a_sync_wait_for_it() {
    // FLUSH CACHE is non-queued (ATA ACS-3): a write or a read sent while it runs
    // is served after it, then at its usual (fast) latency.
    let mut d = dev("wd100efax");
    let ws = run_after_sync(d.as_mut(), 64 * KIB, 256, 0);
    let t = ws.last().unwrap().done_ns();
    let sync_done = sync(d.as_mut(), t);
    assert!(sync_done - t > 50 * MS, "a full buffer to flush");
    let w = d
        .submit(
            t + MS,
            &Command::Write {
                lba: 16 * MIB / 512,
                blocks: 8,
            },
            Payload::SizeOnly,
        )
        .unwrap();
    assert!(w.done_ns > sync_done, "the write waited for the sync");
    assert!(w.done_ns - sync_done < 100 * US, "then took F latency");
    let r = d
        .submit(
            t + 2 * MS,
            &Command::Read {
                lba: 16 * MIB / 512,
                blocks: 8,
            },
            Payload::SizeOnly,
        )
        .unwrap();
    assert!(r.done_ns > sync_done, "the read waited for the sync");
    // Before the change the write was taken as soon as the sync's first batch
    // freed room (a few ms), long before the sync completed.
}

#[test]
fn an_idle_buffer_drains_in_the_background() {
    let mut d = dev("wd100efax");
    let ws = seq_writes(d.as_mut(), 0, 0, 64 * KIB, 64, 0);
    let t = ws.last().unwrap().done_ns();
    // Right away, a sync has 4 MiB to write.
    let mut busy = dev("wd100efax");
    seq_writes(busy.as_mut(), 0, 0, 64 * KIB, 64, 0);
    assert!(sync(busy.as_mut(), t) - t > 15 * MS);
    // After the idle delay (100 ms) and the drain (~4 MiB at ~210 MB/s, plus
    // positioning), the buffer is empty: a sync costs one command.
    let later = t + 200 * MS;
    assert_eq!(sync(d.as_mut(), later), later + 28 * US);
    let st = d.stats(later);
    assert_eq!(counter(&st, "cache_idle_drains"), 1);
    assert_eq!(counter(&st, "cache_syncs"), 0);
    assert_eq!(counter(&st, "cache_occupancy_bytes"), 0);
    assert_eq!(st.media_write_bytes, 4 * MIB);
    // And the whole buffer is available again.
    let next = seq_writes(d.as_mut(), later + MS, 4 * MIB / 512, 64 * KIB, 300, 0);
    assert_eq!(fast_run(&next), 256);
}

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn read(d: &mut dyn Device, now: u64, lba: u64, bytes: usize) -> (Vec<u8>, u64) {
    let mut out = vec![0u8; bytes];
    let blocks = (bytes / 512) as u32;
    let c = d
        .submit(now, &Command::Read { lba, blocks }, Payload::Read(&mut out))
        .unwrap();
    (out, c.done_ns - now)
}

#[test]
fn reads_see_buffered_and_flushed_data_with_their_payloads() {
    let mut d = dev("wd100efax");
    let len = 64 * KIB as usize;
    let blocks = (len / 512) as u32;
    let (a, b, a2) = (pattern(1, len), pattern(2, len), pattern(3, len));
    let far = 1_000_000_000u64;
    let mut now = d
        .submit(0, &Command::Write { lba: 0, blocks }, Payload::Write(&a))
        .unwrap()
        .done_ns;
    now = sync(d.as_mut(), now);
    now = d
        .submit(
            now,
            &Command::Write { lba: far, blocks },
            Payload::Write(&b),
        )
        .unwrap()
        .done_ns;
    // Buffered: served from DRAM at interface speed (28 us + 64 KiB / 431 MB/s).
    let (got, lat) = read(d.as_mut(), now, far, len);
    assert_eq!(got, b);
    assert!(lat < 200 * US, "{lat}");
    // Flushed: from the platters (positioning costs milliseconds).
    let (got, lat) = read(d.as_mut(), now, 0, len);
    assert_eq!(got, a);
    assert!(lat > MS, "{lat}");
    // A rewrite of flushed data is read back from the buffer.
    now = d
        .submit(
            now + lat,
            &Command::Write { lba: 0, blocks },
            Payload::Write(&a2),
        )
        .unwrap()
        .done_ns;
    let (got, lat) = read(d.as_mut(), now, 0, len);
    assert_eq!(got, a2);
    assert!(lat < 200 * US, "{lat}");
    // Partly buffered: the media serves it, with the newest bytes.
    let (got, _) = read(d.as_mut(), now, blocks as u64 / 2, len);
    assert_eq!(&got[..len / 2], &a2[len / 2..]);
    assert!(got[len / 2..].iter().all(|&x| x == 0));
    let st = d.stats(now);
    assert_eq!(counter(&st, "cache_read_hits"), 2);
    assert_eq!(st.host_read_bytes, 4 * len as u64);
}

/// A read that misses the buffer queues on the actuator behind a flush batch.
#[test]
fn reads_wait_behind_flush_batches() {
    let mut d = dev("wd100efax");
    let ws = run_after_sync(d.as_mut(), 64 * KIB, 257, 0);
    let s = ws.last().unwrap();
    assert!(s.latency_ns >= SLOW_NS, "the 257th write starts a batch");
    // The 8 MiB batch occupies the platters for ~40 ms after its first segment.
    let (_, lat) = read(d.as_mut(), s.done_ns(), 2_000_000_000, 4096);
    assert!(lat > 30 * MS, "{lat}");
    // The same read on an idle disk takes one random access.
    let mut idle = dev("wd100efax");
    let (_, lat_idle) = read(idle.as_mut(), s.done_ns(), 2_000_000_000, 4096);
    assert!(lat_idle < 30 * MS, "{lat_idle}");
}

/// §3.1: 16 MB, 4 MB and 2 MB of buffer: 256, 64 and 32 fast 64 KiB writes, and
/// the same F…F S M…M S alternation with half the buffer per cycle.
#[test]
fn smaller_buffers_give_proportionally_fewer_fast_writes() {
    for (name, buffer_mib, rev_ns) in [
        ("wd100efax", 16, REV_7200_NS),
        ("st8000dm004", 16, 11_111_111),
        ("wd8004fryz", 4, REV_7200_NS),
        ("st4000dm004", 4, 11_111_111),
        ("wd40ezrz", 2, 11_111_111),
    ] {
        let mut d = dev(name);
        let count = (buffer_mib as usize * 16) * 6;
        let ws = run_after_sync(d.as_mut(), 64 * KIB, count, 0);
        let s = staircase(&ws);
        eprintln!(
            "{name}: {} fast, L_f {:.1} us, first S {:.2} ms, L_s {:.2} ms, L_m {:.1} us, M per cycle {:?}",
            s.fast,
            us(s.l_f_ns),
            ms(s.first_s_ns as f64),
            ms(s.l_s_ns),
            us(s.l_m_ns),
            s.m_counts
        );
        assert_eq!(s.fast, buffer_mib as usize * 16, "{name}");
        assert!(
            s.m_counts.iter().all(|&m| m == buffer_mib as usize * 8 - 1),
            "{name}: {:?}",
            s.m_counts
        );
        assert!(
            s.l_s_ns >= rev_ns as f64 && s.l_s_ns <= rev_ns as f64 + 2.5e6,
            "{name}: L_s {}",
            s.l_s_ns
        );
    }
}

/// A mixed run (writes, reads, syncs, idle gaps) twice: identical completions
/// and statistics.
#[test]
fn runs_are_deterministic() {
    let run = || {
        let mut d = dev("wd100efax");
        let mut now = 0u64;
        let mut log = Vec::new();
        let mut x = 12345u64;
        for i in 0..3_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let cmd = match (x >> 33) % 10 {
                0 => Command::Read {
                    lba: (x >> 20) % 1_000_000_000,
                    blocks: 8,
                },
                1 if i % 500 == 0 => Command::Flush,
                _ => Command::Write {
                    lba: i * 128,
                    blocks: 128,
                },
            };
            let c = d.submit(now, &cmd, Payload::SizeOnly).unwrap();
            log.push(c.done_ns);
            now = c.done_ns
                + if (x >> 40).is_multiple_of(50) {
                    150 * MS
                } else {
                    (x >> 45) % (200 * US)
                };
        }
        (log, d.stats(now))
    };
    let (a, sa) = run();
    let (b, sb) = run();
    assert_eq!(a, b);
    assert_eq!(sa, sb);
    assert!(
        counter(&sa, "cache_idle_drains") > 0
            && counter(&sa, "cache_read_hits") + counter(&sa, "cache_flush_batches") > 0
    );
}

/// `enabled = false` and a profile without `[cache]` both write through, exactly
/// as the disk did before the cache.
#[test]
fn a_disabled_cache_writes_through() {
    let text = find_profile("wd100efax").unwrap().text;
    let without = text[..text.find("\n[cache]").unwrap()].to_string();
    let mut plain = build(&ProfileSource {
        source_name: "no-cache.toml".into(),
        text: without,
    })
    .unwrap();
    let mut off = dev_with("wd100efax", "enabled", "false")
        .map_err(|e| e.to_string())
        .unwrap();
    let a = seq_writes(plain.as_mut(), 0, 0, 64 * KIB, 400, 0);
    let b = seq_writes(off.as_mut(), 0, 0, 64 * KIB, 400, 0);
    assert_eq!(a, b);
    // Write-through: the first write waits for the platter (no fast writes), and
    // everything written is on the media when it completes.
    assert!(a[0].latency_ns > MS, "{}", a[0].latency_ns);
    let st = off.stats(b.last().unwrap().done_ns());
    assert_eq!(st.media_write_bytes, 400 * 64 * KIB);
    assert!(
        !st.counters.keys().any(|k| k.starts_with("cache_")),
        "{:?}",
        st.counters
    );
    // Flush costs one command.
    let t = b.last().unwrap().done_ns();
    assert_eq!(sync(off.as_mut(), t), t + 28 * US);
}

#[test]
fn cache_values_are_validated_by_name() {
    let err = dev_with("wd100efax", "buffer_mib", "0").err().unwrap();
    assert_eq!(
        err,
        ProfileError::OutOfRange {
            profile: "test.toml".into(),
            field: "cache.buffer_mib".into(),
            value: "0".into(),
            allowed: "0.0625..=1024".into()
        }
    );
    let err = dev_with("wd100efax", "flush_batch_mib", "32.0")
        .err()
        .unwrap();
    assert_eq!(
        err,
        ProfileError::OutOfRange {
            profile: "test.toml".into(),
            field: "cache.flush_batch_mib".into(),
            value: "32".into(),
            allowed: "0.0625..=16".into()
        }
    );
    let err = dev_with("wd100efax", "interface_mb_s", "nan")
        .err()
        .unwrap();
    assert!(
        matches!(err, ProfileError::OutOfRange { ref field, ref allowed, .. } if field == "cache.interface_mb_s" && allowed == "a finite number"),
        "{err}"
    );
    let err = dev_with("wd100efax", "idle_flush_ms", "-1.0")
        .err()
        .unwrap();
    assert!(
        matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "cache.idle_flush_ms"),
        "{err}"
    );
    let err = dev_with("wd100efax", "flush_setup_ms", "1000.0")
        .err()
        .unwrap();
    assert!(
        matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "cache.flush_setup_ms"),
        "{err}"
    );
    // The host side must keep moving while a batch flushes, and cannot speed up.
    for bad in ["0.0", "1.5", "nan"] {
        let err = dev_with("wd100efax", "host_share_while_flushing", bad)
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("cache.host_share_while_flushing"),
            "{bad}: {err}"
        );
    }
    // The room's spread must leave at least one segment of room.
    for bad in ["-1", "16384", "nan"] {
        let err = dev_over("wd100efax", &[("cache.room_jitter_kib", bad)])
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("cache.room_jitter_kib"),
            "{bad}: {err}"
        );
    }
    let err = dev_over("wd100efax", &[("cache.room_jitter_at", "later")])
        .err()
        .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("later") && msg.contains("both") && !msg.contains('\n'),
        "{msg}"
    );
    let err = dev_with("wd100efax", "enabled", "true\nwrite_back = true")
        .err()
        .unwrap();
    assert!(matches!(err, ProfileError::Parse { .. }), "{err}");
    // Every shipped disk profile loads.
    for name in [
        "wd100efax",
        "wd8004fryz",
        "wd40ezrz",
        "st8000dm004",
        "st4000dm004",
    ] {
        assert!(open_device(name).is_ok(), "{name}");
    }
}

/// Write-through QD1 sequential 1 MiB writes from LBA 0 reach each new drive's
/// datasheet OD rate (the mechanics calibration behind the cache), ±5%.
#[test]
fn write_through_streams_at_the_datasheet_rates() {
    for (name, mb_s) in [
        ("wd8004fryz", 255.0),
        ("wd40ezrz", 175.0),
        ("st8000dm004", 190.0),
        ("st4000dm004", 190.0),
    ] {
        let mut d = dev_with(name, "enabled", "false").unwrap();
        let ws = seq_writes(d.as_mut(), 0, 0, MIB, 128, 0);
        let rate = 128.0 * MIB as f64 / (ws.last().unwrap().done_ns() as f64 / 1e9) / 1e6;
        eprintln!("{name}: write-through {rate:.1} MB/s (datasheet {mb_s})");
        assert!(within(rate, mb_s, 0.05), "{name}: {rate}");
    }
}

/// Fast-stage and Mid-stage write counts of `syncs` buffered-write sequences of
/// 64 KiB QD1 writes on a drive built with `set`, each started by a sync, the
/// log continuing from one sequence to the next.
fn stage_counts(set: &[(&str, &str)], syncs: usize) -> (Vec<usize>, Vec<usize>) {
    let mut d = dev_over("wd100efax", set).unwrap();
    let blocks = 64 * KIB / d.info().block_bytes as u64;
    let (mut now, mut lba) = (0, 0);
    let (mut fast, mut mid) = (Vec::new(), Vec::new());
    for _ in 0..syncs {
        now = sync(d.as_mut(), now);
        // A Fast stage and three Mid stages.
        let ws = seq_writes(d.as_mut(), now, lba, 64 * KIB, 256 + 3 * 128 + 16, 0);
        now = ws.last().unwrap().done_ns();
        lba += ws.len() as u64 * blocks;
        let s = staircase(&ws);
        fast.push(s.fast);
        mid.extend(s.m_counts);
    }
    (fast, mid)
}

/// The spread of the buffer's usable room (`cache.room_jitter_kib`, module docs
/// "Usable room varies"): with 1 MiB, the Fast stage after each sync holds
/// between 15 and 16 MiB (240–256 writes of 64 KiB), varies from sync to sync,
/// and a Mid stage holds W_m ± 1 MiB (111–143 mid writes between two slow ones);
/// the same seed gives the same stages, another seed others; without the spread
/// every Fast stage is the whole buffer and every Mid stage 127 writes.
#[test]
fn the_fast_stage_length_varies_from_sync_to_sync_with_the_room_spread() {
    let jitter = [
        ("cache.room_jitter_kib", "1024"),
        ("cache.jitter_seed", "7"),
    ];
    let (fast, mid) = stage_counts(&jitter, 12);
    eprintln!("fast writes per sequence {fast:?}, mid writes per stage {mid:?}");
    assert!(fast.iter().all(|&n| (240..=256).contains(&n)), "{fast:?}");
    let distinct = |v: &[usize]| v.iter().collect::<std::collections::BTreeSet<_>>().len();
    assert!(distinct(&fast) >= 4, "the Fast stage varies: {fast:?}");
    assert!(mid.iter().all(|&n| (111..=143).contains(&n)), "{mid:?}");
    assert!(
        mid.iter().any(|&n| n < 127) && mid.iter().any(|&n| n > 127),
        "Mid stages end earlier and later than W_m: {mid:?}"
    );
    assert_eq!((fast.clone(), mid.clone()), stage_counts(&jitter, 12));
    let other = stage_counts(
        &[
            ("cache.room_jitter_kib", "1024"),
            ("cache.jitter_seed", "8"),
        ],
        12,
    );
    assert_ne!(other.0, fast, "another seed, other draws");
    let (fixed_fast, fixed_mid) = stage_counts(&[("cache.room_jitter_kib", "0")], 4);
    assert!(fixed_fast.iter().all(|&n| n == 256), "{fixed_fast:?}");
    assert!(fixed_mid.iter().all(|&n| n == 127), "{fixed_mid:?}");
}
