//! Counters behind `docs/mios.md` ("Scale-1 collapse"): what the SSD of a
//! `reproduce mios` run does over time. Wraps the aged SSD in a probe that, every
//! `--every` seconds of virtual time, prints the queue depth (submitted, not yet
//! complete), the window's mean and largest write latency and the FTL's counters
//! (host bytes written, GC bytes copied, free superblocks, SLC cache state).
//!
//!     cargo run --release -p zonelab-experiments --example mios_ssd_probe -- \
//!         node pangu_b mios_e ssd-960evo 1.0 [append|seq] [every_s] [every_writes]
//!     cargo run --release -p zonelab-experiments --example mios_ssd_probe -- \
//!         fio 20 baseline ssd-960evo 1.0 [append|seq] [every_s] [every_writes]
//!
//! Environment: `ZONELAB_MIOS_SEED` (trace seed, default 1), `ZONELAB_MIOS_SSD_DEPTH`
//! (MIOS's SSD dispatch depth, default the paper's 1; `none`: no limit),
//! `ZONELAB_MIOS_NO_READS` (set: drop the trace's reads, an ablation), `ZONELAB_MIOS_L`
//! (MIOS's threshold L for a node run; unset: never redirect for the queue),
//! `ZONELAB_MIOS_TIME_STRETCH` (node mode: arrival times stretched by this factor
//! from the first arrival — the same requests at a lower byte rate, an ablation),
//! `ZONELAB_MIOS_BURST` (`period_ms,on_fraction`: each window's arrivals squeezed into
//! its first `on_fraction`, per-second rates kept — sub-second burstiness, an ablation),
//! `ZONELAB_MIOS_LARGE` (`share,min_kib,max_kib`: that share of the node's writes
//! drawn uniform in that size range, `PanguTrace::with_extra_large_writes`, an
//! ablation), `ZONELAB_MIOS_WAIT_BEHIND_SYNC` (set: writes arriving during a sync wait behind
//! it, `NodeConfig::writes_wait_behind_sync`), `ZONELAB_MIOS_HDD_TIER` (`interval_ms,request_kib`: the HDD tier's own writes,
//! `NodeConfig::hdd_tier_load`, an ablation), `ZONELAB_MIOS_HDD_SET` (comma-separated `key=value` overrides of the `wd100efax`
//! profile used by the node, e.g. `cache.idle_flush_ms=1000000`; the profiling
//! run before it uses the stock drive, as `reproduce mios` does), `ZONELAB_MIOS_SSD_SET`
//! (the same for the aged SSD of `append` runs, e.g. `slc_cache.idle_fold_ms=10`: the
//! drive is aged with the overrides applied).
//!
//! `append` ages the SSD as `reproduce mios` does (sequential fill, then one
//! capacity of the traces' chunk-file appends); `seq` only fills it sequentially.

use zonelab_devices::{
    open_device, open_device_with, Command, Completion, Device, DeviceError, DeviceInfo,
    DeviceStats, Payload, ProfileOverride,
};
use zonelab_engine::{InFlight, Ns, KIB, MIB, NS_PER_S};
use zonelab_experiments::reproduce::{
    mios_aged_ssd_with, mios_pangu_requests_with, mios_squeeze_into_bursts, MIOS_LOG_BYTES,
};
use zonelab_systems::mios::node::{run_node, HddTierLoad, NodeConfig, Policy, UserOp, UserRequest};
use zonelab_systems::mios::{profile, ProfileConfig};
use zonelab_workloads::pangu::find_node;

struct Probe {
    inner: Box<dyn Device>,
    outstanding: InFlight,
    every_ns: Ns,
    next_ns: Ns,
    window_writes: u64,
    window_lat_sum_ns: f64,
    window_lat_max_ns: Ns,
    /// Also sample after this many writes (the device books completions ahead of
    /// the submission time, so a saturated run's story is in the completions).
    every_writes: u64,
    last_done_ns: Ns,
    started: bool,
}

impl Probe {
    fn print_header() {
        println!("t_s\tqueue\twrites\tmean_ms\tmax_ms\tlast_done_s\thost_gb\tgc_copied_gb\tfree_sb\tgc_emerg\tgc_stuck\tslc_held_gb\tslc_direct_gb\tslc_folded_gb\ttrimmed_gb\tmapped_gb\tdie_util");
    }

    fn sample(&mut self, now: Ns) {
        let queue = self.outstanding.outstanding_at(now);
        let st = self.inner.stats(now);
        let c = |k: &str| st.counters.get(k).copied().unwrap_or(0);
        let gb = |b: u64| b as f64 / 1e9;
        println!(
            "{:.1}\t{}\t{}\t{:.3}\t{:.1}\t{:.1}\t{:.2}\t{:.2}\t{}\t{}\t{}\t{:.2}\t{:.2}\t{:.2}\t{:.2}\t{:.2}\t{:.3}",
            now as f64 / 1e9,
            queue,
            self.window_writes,
            self.window_lat_sum_ns / self.window_writes.max(1) as f64 / 1e6,
            self.window_lat_max_ns as f64 / 1e6,
            self.last_done_ns as f64 / 1e9,
            gb(st.host_write_bytes),
            gb(st.gc_copied_bytes),
            c("free_superblocks"),
            c("gc_emergency_runs"),
            c("gc_stuck"),
            gb(c("slc_held_bytes")),
            gb(c("slc_direct_written_bytes")),
            gb(c("slc_folded_bytes")),
            gb(c("trimmed_units") * 4096),
            gb(c("mapped_bytes")),
            st.utilisation.get("die").copied().unwrap_or(0.0),
        );
        self.window_writes = 0;
        self.window_lat_sum_ns = 0.0;
        self.window_lat_max_ns = 0;
    }
}

impl Device for Probe {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        if !self.started {
            self.started = true;
            self.next_ns = now_ns + self.every_ns;
        }
        while now_ns >= self.next_ns {
            let t = self.next_ns;
            self.sample(t);
            self.next_ns += self.every_ns;
        }
        let c = self.inner.submit(now_ns, cmd, payload)?;
        if matches!(cmd, Command::Write { .. }) {
            let lat = c.done_ns - now_ns;
            self.window_writes += 1;
            self.window_lat_sum_ns += lat as f64;
            self.window_lat_max_ns = self.window_lat_max_ns.max(lat);
            self.last_done_ns = c.done_ns;
            if self.window_writes >= self.every_writes {
                self.sample(now_ns);
            }
        }
        self.outstanding.push(c.done_ns);
        Ok(c)
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        self.inner.stats(elapsed_ns)
    }
}

/// `name` filled once sequentially (1 MiB writes), then a second idle.
fn seq_filled(name: &str) -> Result<(Box<dyn Device>, Ns), String> {
    let mut ssd = open_device(name).map_err(|e| e.to_string())?;
    let blocks = (MIB / ssd.info().block_bytes as u64) as u32;
    let mut t = 0;
    for i in 0..ssd.info().capacity_blocks / blocks as u64 {
        let cmd = Command::Write {
            lba: i * blocks as u64,
            blocks,
        };
        t = ssd
            .submit(t, &cmd, Payload::SizeOnly)
            .map_err(|e| e.to_string())?
            .done_ns;
    }
    Ok((ssd, t + NS_PER_S))
}

fn main() -> Result<(), String> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 5 {
        return Err("usage: mios_ssd_probe node|fio <node|interval_us> <policy> <ssd> <scale> [append|seq] [every_s]".into());
    }
    let policy = match a[2].as_str() {
        "baseline" => Policy::SsdOnly,
        "mios_d" => Policy::MiosD,
        "mios_e" => Policy::MiosE,
        "mios_f_only" => Policy::MiosFOnly,
        p => {
            return Err(format!(
                "policy `{p}`: baseline, mios_d, mios_e or mios_f_only"
            ))
        }
    };
    let scale: f64 = a[4].parse().map_err(|_| format!("scale `{}`", a[4]))?;
    let aging = a.get(5).map_or("append", |s| s.as_str());
    let every_s: f64 = a
        .get(6)
        .map_or(Ok(10.0), |s| s.parse())
        .map_err(|_| "every_s")?;
    // Ablation: SSD profile overrides for `append` runs (the drive is aged with them).
    let ssd_set = match std::env::var("ZONELAB_MIOS_SSD_SET") {
        Ok(v) => ProfileOverride::parse_list(&v).map_err(|e| e.to_string())?,
        Err(_) => Vec::new(),
    };
    let (ssd, start) = match aging {
        "append" => mios_aged_ssd_with(&a[3], &ssd_set).map_err(|e| e.to_string())?,
        "seq" => seq_filled(&a[3])?,
        x => return Err(format!("aging `{x}`: append or seq")),
    };
    let cap = ssd.info().capacity_bytes();
    // The trace seed (`reproduce mios --seed`), 1 unless ZONELAB_MIOS_SEED says.
    let seed: u64 = std::env::var("ZONELAB_MIOS_SEED")
        .map_or(Ok(1), |s| s.parse())
        .map_err(|_| "ZONELAB_MIOS_SEED: a number")?;
    let reqs: Vec<UserRequest> = match a[0].as_str() {
        "node" => {
            let node = find_node(&a[1]).ok_or(format!("node `{}`", a[1]))?;
            // Ablation: `share,min_kib,max_kib` of the writes made large (Fig. 9's
            // groups above 256 KiB, which the generator gives C and D none of).
            let extra_large = match std::env::var("ZONELAB_MIOS_LARGE") {
                Ok(v) => {
                    let bad = || {
                        format!("ZONELAB_MIOS_LARGE `{v}`: share,min_kib,max_kib with 0 <= share <= 1 and 4 <= min_kib <= max_kib")
                    };
                    let f: Vec<f64> = v
                        .split(',')
                        .map(|x| x.trim().parse::<f64>())
                        .collect::<Result<_, _>>()
                        .map_err(|_| bad())?;
                    let [share, lo, hi] = f[..] else {
                        return Err(bad());
                    };
                    if !((0.0..=1.0).contains(&share) && lo >= 4.0 && lo <= hi) {
                        return Err(bad());
                    }
                    Some((share, (lo * KIB as f64) as u64, (hi * KIB as f64) as u64))
                }
                Err(_) => None,
            };
            let mut reqs = mios_pangu_requests_with(node, scale, seed, cap, start, extra_large);
            // Ablation: without the trace's reads (what the SSD FIFO waits behind).
            if std::env::var("ZONELAB_MIOS_NO_READS").is_ok() {
                reqs.retain(|q| q.op != UserOp::Read);
            }
            // Ablation: the same requests at a lower byte rate (arrival times
            // stretched by this factor from the first arrival).
            if let Ok(k) = std::env::var("ZONELAB_MIOS_TIME_STRETCH") {
                let k: f64 = k
                    .parse()
                    .map_err(|_| "ZONELAB_MIOS_TIME_STRETCH: a number")?;
                let t0 = reqs.first().map_or(0, |q| q.arrival_ns);
                for q in &mut reqs {
                    q.arrival_ns = t0 + ((q.arrival_ns - t0) as f64 * k) as Ns;
                }
            }
            // Ablation: sub-second burstiness. Each `period_ms` window's arrivals
            // are squeezed, in order, into its first `on_fraction` (per-window
            // counts, hence per-second rates, unchanged; within a burst the rate
            // is 1/on_fraction times the window's).
            if let Ok(v) = std::env::var("ZONELAB_MIOS_BURST") {
                let bad = || format!("ZONELAB_MIOS_BURST `{v}`: period_ms,on_fraction");
                let (p, f) = v.split_once(',').ok_or_else(bad)?;
                let period_ms: f64 = p.trim().parse().map_err(|_| bad())?;
                let on: f64 = f.trim().parse().map_err(|_| bad())?;
                if !(period_ms > 0.0) {
                    return Err(bad());
                }
                mios_squeeze_into_bursts(&mut reqs, (period_ms * 1e6) as Ns, on)
                    .map_err(|e| format!("ZONELAB_MIOS_BURST `{v}`: {e}"))?;
            }
            reqs
        }
        "fio" => {
            let iv: u64 = a[1].parse().map_err(|_| "interval_us")?;
            let n = ((4.0 * scale * 1e6 / iv as f64) as u64).max(100);
            (0..n)
                .map(|i| UserRequest {
                    arrival_ns: start + i * iv * 1_000,
                    op: UserOp::Write,
                    offset_bytes: (i * 32 * KIB) % (cap - 32 * KIB),
                    size_bytes: 32 * KIB,
                })
                .collect()
        }
        m => return Err(format!("mode `{m}`: node or fio")),
    };
    // Ablation: HDD profile overrides, e.g. `cache.idle_flush_ms=1000000` (the
    // buffer never drains in idle time, so every sync writes what BCW wrote).
    let hdd_set = match std::env::var("ZONELAB_MIOS_HDD_SET") {
        Ok(v) => ProfileOverride::parse_list(&v).map_err(|e| e.to_string())?,
        Err(_) => Vec::new(),
    };
    // The profile runs on a drive with the same overrides (its own instance), as
    // `reproduce mios` profiles the node's drive model.
    let mut probe_hdd = open_device_with("wd100efax", &hdd_set).map_err(|e| e.to_string())?;
    let params = profile(probe_hdd.as_mut(), &ProfileConfig::new(64 * KIB))
        .map_err(|e| e.to_string())?
        .params;
    let mut hdd = open_device_with("wd100efax", &hdd_set).map_err(|e| e.to_string())?;
    // L: 1 for fio (§5.4); for a node, `ZONELAB_MIOS_L` (e.g. the run's measured
    // L, so MIOS_D redirects as in `reproduce mios`), else never (MIOS_D = Baseline).
    let l = match std::env::var("ZONELAB_MIOS_L") {
        Ok(v) => v
            .parse()
            .map_err(|_| format!("ZONELAB_MIOS_L `{v}`: a number"))?,
        Err(_) if a[0] == "fio" => 1,
        Err(_) => u32::MAX,
    };
    let mut cfg = NodeConfig::paper(policy, l, params, MIOS_LOG_BYTES);
    // MIOS's SSD dispatch depth (default: the paper's 1, `ssd_dispatch`); `none`
    // passes every request to the drive at once (the ablation).
    if let Ok(d) = std::env::var("ZONELAB_MIOS_SSD_DEPTH") {
        cfg.ssd_dispatch_depth = match d.as_str() {
            "none" => None,
            n => Some(
                n.parse()
                    .map_err(|_| format!("ZONELAB_MIOS_SSD_DEPTH `{n}`: a number or none"))?,
            ),
        };
    }
    if let Ok(v) = std::env::var("ZONELAB_MIOS_SYNC_EXTRA_MS") {
        let ms: f64 = v
            .parse()
            .map_err(|_| format!("ZONELAB_MIOS_SYNC_EXTRA_MS `{v}`: a number"))?;
        cfg.sync_extra_ns = (ms * 1e6) as Ns;
    }
    // Algorithm 2/3 as written: writes arriving during a sync wait behind it
    // (`NodeConfig::writes_wait_behind_sync`).
    if std::env::var("ZONELAB_MIOS_WAIT_BEHIND_SYNC").is_ok() {
        cfg.writes_wait_behind_sync = true;
    }
    // Ablation: the HDD tier's own writes, `interval_ms,request_kib`
    // (`NodeConfig::hdd_tier_load`).
    if let Ok(v) = std::env::var("ZONELAB_MIOS_HDD_TIER") {
        let bad = || format!("ZONELAB_MIOS_HDD_TIER `{v}`: interval_ms,request_kib");
        let (ms, kib) = v.split_once(',').ok_or_else(bad)?;
        let ms: f64 = ms.trim().parse().map_err(|_| bad())?;
        let kib: u64 = kib.trim().parse().map_err(|_| bad())?;
        if !(ms > 0.0) || kib == 0 {
            return Err(bad());
        }
        cfg.hdd_tier_load = Some(HddTierLoad {
            interval_ns: (ms * 1e6) as Ns,
            request_bytes: kib * KIB,
        });
    }
    let mut probe = Probe {
        inner: ssd,
        outstanding: InFlight::new(),
        every_ns: (every_s * 1e9) as Ns,
        next_ns: 0,
        window_writes: 0,
        window_lat_sum_ns: 0.0,
        window_lat_max_ns: 0,
        every_writes: a
            .get(7)
            .map_or(Ok(u64::MAX), |s| s.parse())
            .map_err(|_| "every_writes")?,
        last_done_ns: 0,
        started: false,
    };
    Probe::print_header();
    let r = run_node(&mut probe, hdd.as_mut(), &reqs, &cfg).map_err(|e| e.to_string())?;
    let end = r.duration_ns;
    probe.sample(end);
    println!(
        "# writes {} avg {:.1} us p99 {:.1} us p99.9 {:.1} us; redirected {} ({:.2} GB); SSD {:.2} GB",
        r.writes,
        r.write_latency.mean_ns / 1e3,
        r.write_latency.p99_ns as f64 / 1e3,
        r.write_latency.p999_ns as f64 / 1e3,
        r.hdd_user_write_requests,
        r.hdd_user_write_bytes as f64 / 1e9,
        r.ssd_write_bytes as f64 / 1e9
    );
    let arrivals: u64 = r.ssd_queue_length_counts.iter().sum();
    let mut cum = 0u64;
    let mut quantiles = Vec::new();
    for (len, c) in r.ssd_queue_length_counts.iter().enumerate() {
        cum += c;
        quantiles.push(format!("{len}:{:.4}", cum as f64 / arrivals.max(1) as f64));
        if cum == arrivals {
            break;
        }
    }
    // Fig. 8's "reduction in queue lengths": the mean queue an arrival finds.
    let queue_sum: u64 = r
        .ssd_queue_length_counts
        .iter()
        .enumerate()
        .map(|(len, c)| len as u64 * c)
        .sum();
    println!(
        "# SSD depth {:?}: iostat util {:.1}%, longest queue {}, mean queue at arrival {:.4}, queue CDF {}",
        cfg.ssd_dispatch_depth,
        100.0 * r.ssd_busy_ns as f64 / r.duration_ns.max(1) as f64,
        r.max_ssd_queue_length,
        queue_sum as f64 / arrivals.max(1) as f64,
        quantiles.join(" ")
    );
    let by_len: Vec<String> = r
        .ssd_writes_by_queue_length
        .iter()
        .zip(&r.ssd_write_latency_sum_by_queue_length_ns)
        .enumerate()
        .filter(|(_, (n, _))| **n >= 200)
        .take(30)
        .map(|(len, (n, s))| format!("{len}:{:.0}", s / *n as f64 / 1e3))
        .collect();
    println!(
        "# mean write latency (us) by queue length: {}",
        by_len.join(" ")
    );
    println!(
        "# reads: avg {:.1} us, p99 {:.1} us, max {:.1} us",
        r.read_latency.mean_ns / 1e3,
        r.read_latency.p99_ns as f64 / 1e3,
        r.read_latency.max_ns as f64 / 1e3
    );
    println!(
        "# reads {} (HDD {}), trims {}; HDD padding {:.2} GB, syncs {}, GC runs {}, writes sent back {}",
        r.reads,
        r.hdd_reads,
        r.trims,
        r.hdd_padding_bytes as f64 / 1e9,
        r.hdd_syncs,
        r.hdd_gc_runs,
        r.writes_sent_back
    );
    let sd = &r.hdd_sync_duration;
    println!(
        "# syncs: mean {:.1} ms, p50 {:.1} ms, max {:.1} ms, {:.2} MiB buffered on average (max {:.2}); writes arriving during a sync {}; HDD user writes {} ({} in Mid stages; observed S {}), HDD gross util {:.1}%; HDD tier writes {} ({:.2} GB); user writes on the HDD by observed state F/M/S {:?}, HDD-served p99.9 {:.1} us, SSD-served p99.9 {:.1} us",
        sd.mean_ns / 1e6,
        sd.p50_ns as f64 / 1e6,
        sd.max_ns as f64 / 1e6,
        r.hdd_sync_bytes as f64 / r.hdd_syncs.max(1) as f64 / MIB as f64,
        r.hdd_sync_bytes_max as f64 / MIB as f64,
        r.writes_arriving_during_sync,
        r.hdd_user_write_requests,
        r.hdd_user_writes_in_mid_stages,
        r.hdd_user_writes_observed_s,
        100.0 * r.hdd_gross_utilisation,
        r.hdd_tier_writes,
        r.hdd_tier_bytes as f64 / 1e9,
        r.hdd_user_write_latency_by_observed_state
            .iter()
            .map(|s| s.count)
            .collect::<Vec<_>>(),
        r.hdd_served_write_latency.p999_ns as f64 / 1e3,
        r.ssd_served_write_latency.p999_ns as f64 / 1e3
    );
    Ok(())
}
