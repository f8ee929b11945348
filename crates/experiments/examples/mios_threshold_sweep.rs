//! Counters behind `docs/mios.md` ("issue 21, sixth session"): how much of a node's
//! data MIOS_D redirects as a function of the threshold L (Fig. 10(b)), the load
//! and the HDD (Table 4). For each L it runs the node's Pangu-like trace on the aged
//! SSD of `reproduce mios` with MIOS_D, and prints the share of writes arriving with
//! l(t) > L in the Baseline run and in the MIOS_D run, the writes and bytes
//! redirected, the padding and BCW's time per stage.
//!
//!     cargo run --release -p zonelab-experiments --example mios_threshold_sweep -- \
//!         pangu_b 0.1 wd100efax 1,2,3,4,6,8 [load_k] [seed]
//!
//! `load_k`: arrival times divided by k from the first arrival (the same requests at
//! k times the rate, as `reproduce mios`'s load sweep; default 1).
//! `ZONELAB_MIOS_LOOP_MAX` (ablation): mid/slow pairs per BCW sequence before its
//! sync (default the paper's 10, §5.1).
//! `ZONELAB_MIOS_HDD_SET` (sensitivity): comma-separated `FIELD=VALUE` overrides of
//! the HDD profile, as the CLI's `--set` (e.g. `cache.flush_batch_mib=2`), applied to
//! the profiling and to the node run alike (docs/mios.md, "4 TB drives' buffers").

use zonelab_devices::{open_device_with, ProfileOverride};
use zonelab_engine::KIB;
use zonelab_experiments::reproduce::{mios_aged_ssd, mios_pangu_requests, MIOS_LOG_BYTES};
use zonelab_systems::mios::node::{run_node, NodeConfig, NodeResult, Policy, UserRequest};
use zonelab_systems::mios::{profile, ProfileConfig};
use zonelab_workloads::pangu::find_node;

fn share_above(r: &NodeResult, l: u32) -> f64 {
    let total: u64 = r.ssd_queue_length_counts.iter().sum();
    let above: u64 = r.ssd_queue_length_counts.iter().skip(l as usize + 1).sum();
    100.0 * above as f64 / total.max(1) as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 4 {
        return Err("usage: mios_threshold_sweep NODE SCALE HDD L1,L2,... [LOAD_K] [SEED]".into());
    }
    let node = find_node(&a[0]).ok_or_else(|| format!("unknown node '{}'", a[0]))?;
    let scale: f64 = a[1].parse().map_err(|_| format!("bad scale '{}'", a[1]))?;
    let hdd = a[2].as_str();
    let ls: Vec<u32> = a[3]
        .split(',')
        .map(|s| s.parse().map_err(|_| format!("bad L '{s}'")))
        .collect::<Result<_, _>>()?;
    let k: u64 = a
        .get(4)
        .map_or(Ok(1), |s| s.parse())
        .map_err(|_| "bad load_k")?;
    let seed: u64 = a
        .get(5)
        .map_or(Ok(1), |s| s.parse())
        .map_err(|_| "bad seed")?;
    let hdd_set = match std::env::var("ZONELAB_MIOS_HDD_SET") {
        Ok(v) => ProfileOverride::parse_list(&v).map_err(|e| e.to_string())?,
        Err(_) => Vec::new(),
    };
    let params = {
        let mut h = open_device_with(hdd, &hdd_set)?;
        profile(h.as_mut(), &ProfileConfig::new(64 * KIB))?.params
    };
    let run = |cfg: &NodeConfig| -> Result<NodeResult, Box<dyn std::error::Error>> {
        let (mut s, start) = mios_aged_ssd("ssd-960evo")?;
        let mut h = open_device_with(hdd, &hdd_set)?;
        let mut reqs: Vec<UserRequest> =
            mios_pangu_requests(node, scale, seed, s.info().capacity_bytes(), start);
        if k > 1 {
            let t0 = reqs.first().map_or(0, |q| q.arrival_ns);
            for q in &mut reqs {
                q.arrival_ns = t0 + (q.arrival_ns - t0) / k;
            }
        }
        Ok(run_node(s.as_mut(), h.as_mut(), &reqs, cfg)?)
    };
    let base = run(&NodeConfig::paper(
        Policy::SsdOnly,
        1,
        params,
        MIOS_LOG_BYTES,
    ))?;
    println!(
        "# {} scale {scale} load x{k} seed {seed} {hdd}{} (64 KiB profile: W_f {:.1} MiB, W_m {:.1} MiB, L_m {:.0} us, L_s {:.2} ms, T_m {:.2} ms): Baseline {} writes, {:.2} GB, avg {:.1} us",
        node.name,
        if hdd_set.is_empty() {
            String::new()
        } else {
            let set: Vec<String> = hdd_set.iter().map(|o| o.to_string()).collect();
            format!(" with {}", set.join(", "))
        },
        params.w_f_bytes as f64 / (1 << 20) as f64,
        params.w_m_bytes as f64 / (1 << 20) as f64,
        params.l_m_ns as f64 / 1e3,
        params.l_s_ns as f64 / 1e6,
        params.t_m_ns as f64 / 1e6,
        base.writes,
        base.ssd_write_bytes as f64 / 1e9,
        base.write_latency.mean_ns / 1e3
    );
    println!("L\tbase_arr_above_L_pct\tmiosd_arr_above_L_pct\tredir_writes\tredir_writes_pct\tredir_gb\tredir_bytes_pct\tredir_mean_kib\tpadding_gb\tsyncs\tfast_pct\tmid_pct\tslow_pct\tsync_pct\tavg_us\tp99_us\tkept_sync\tkept_slow\tkept_pred_s\tkept_other");
    let loop_max: Option<u32> = match std::env::var("ZONELAB_MIOS_LOOP_MAX") {
        Ok(v) => Some(
            v.parse()
                .map_err(|_| format!("bad ZONELAB_MIOS_LOOP_MAX '{v}'"))?,
        ),
        Err(_) => None,
    };
    for &l in &ls {
        let mut cfg = NodeConfig::paper(Policy::MiosD, l, params, MIOS_LOG_BYTES);
        if let Some(n) = loop_max {
            cfg.loop_max = n;
        }
        let r = run(&cfg)?;
        let t: u64 = r.bcw_stage_time_ns.iter().sum::<u64>().max(1);
        let st = |i: usize| 100.0 * r.bcw_stage_time_ns[i] as f64 / t as f64;
        println!(
            "{l}\t{:.2}\t{:.2}\t{}\t{:.2}\t{:.3}\t{:.2}\t{:.1}\t{:.2}\t{}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{}\t{}\t{}\t{}",
            share_above(&base, l),
            share_above(&r, l),
            r.hdd_user_write_requests,
            100.0 * r.hdd_user_write_requests as f64 / r.writes.max(1) as f64,
            r.hdd_user_write_bytes as f64 / 1e9,
            100.0 * r.hdd_user_write_bytes as f64 / base.ssd_write_bytes.max(1) as f64,
            r.hdd_user_write_bytes as f64 / r.hdd_user_write_requests.max(1) as f64 / 1024.0,
            r.hdd_padding_bytes as f64 / 1e9,
            r.hdd_syncs,
            st(0),
            st(1),
            st(2),
            st(3),
            r.write_latency.mean_ns / 1e3,
            r.write_latency.p99_ns as f64 / 1e3,
            r.congested_writes_kept_on_ssd[0],
            r.congested_writes_kept_on_ssd[1],
            r.congested_writes_kept_on_ssd[2],
            r.congested_writes_kept_on_ssd[3]
        );
    }
    Ok(())
}
