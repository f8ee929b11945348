//! `reproduce znsage` at the smallest scale: it runs, is deterministic, and the
//! directions the paper reports and the model reproduces hold — swap on ZNS beats
//! swap on the conventional SSD, ZNSage's page-table update removes GC-induced
//! faults, swapping half the KV cache costs throughput, and the reverse map takes
//! 24 MiB per 4 GiB. (Magnitudes are compared with the paper in results.json and
//! docs/znsage.md, not here.)

use zonelab_experiments::reproduce::{run_target, NoProgress, RunOptions};
use zonelab_experiments::reproduce_result::{Figure, ReproduceResult};

fn run() -> ReproduceResult {
    let opts = RunOptions {
        scale: 0.01,
        seed: 1,
        traces_dir: None,
        draws: None,
        cpu_jitter_ppm: None,
    };
    run_target("znsage", &opts, &mut NoProgress).unwrap()
}

fn fig<'a>(r: &'a ReproduceResult, id: &str) -> &'a Figure {
    r.figures
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("figure {id}"))
}

fn ys(f: &Figure, series: &str) -> Vec<f64> {
    f.series
        .iter()
        .find(|s| s.name.starts_with(series))
        .unwrap_or_else(|| panic!("series {series} in {}", f.id))
        .points
        .iter()
        .map(|p| p.1)
        .collect()
}

#[test]
fn reproduce_znsage_small_scale_directions_and_determinism() {
    let r = run();
    let again = run();
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
    let ids: Vec<&str> = r.claims.iter().map(|c| c.id.as_str()).collect();
    for id in [
        "fig7.bw_spread",
        "fig7.bw_spread_fresh",
        "fig8.znsage_over_znswap_60",
        "fig8.znsage_over_znswap_mean",
        "fig9.drop_95_5",
        "fig9.drop_50_50",
        "gc.faults_avoided",
        "fig8.same_device_min_ratio",
        "fig9.drop_order",
        "rmap.mib_per_4gib",
    ] {
        assert!(ids.contains(&id), "claim {id} missing");
    }
    // The host-cost counters behind the same-device ratio: ZNSwap issues a write
    // request per page swapped out, ZNSage one per 24 pages (the zn540's 96 KiB).
    let req = fig(&r, "requests_per_swap_out");
    for (w, s) in ys(req, "ZNSwap").iter().zip(ys(req, "ZNSage (zn540)")) {
        assert!(
            *w >= 1.0 && s < 0.2,
            "ZNSwap {w} vs ZNSage {s} requests per page"
        );
    }
    let cpu = fig(&r, "block_cpu_per_swap_out");
    for (w, s) in ys(cpu, "ZNSwap").iter().zip(ys(cpu, "ZNSage (zn540)")) {
        assert!(w > &s, "block CPU per page: ZNSwap {w} vs ZNSage {s}");
    }
    for id in ["gc.faults_avoided", "rmap.mib_per_4gib"] {
        let c = r.claims.iter().find(|c| c.id == id).unwrap();
        assert!(c.holds, "{c:?}");
    }
    // Fig. 7: both ZNS back ends move more swap traffic than the conventional SSD.
    let f7 = fig(&r, "fig7_swap_bandwidth");
    let ssd = ys(f7, "swap on conventional SSD");
    for zns in ["ZNSage (sk-hynix-zns)", "ZNSwap"] {
        for (z, s) in ys(f7, zns).iter().zip(&ssd) {
            assert!(z > s, "{zns}: {z} MiB/s vs SSD {s} MiB/s");
        }
    }
    // GC faults: none read the victim zone with the page-table update, some without.
    let gc = ys(fig(&r, "gc_faults"), "read from the victim zone");
    assert_eq!(gc[0], 0.0);
    assert!(gc[1] > 0.0, "{gc:?}");
    // Fig. 9: 50% memory costs throughput on every back end; ZNSage beats the SSD.
    let f9 = fig(&r, "fig9_memcached_ycsb");
    for s in &f9.series {
        let y: Vec<f64> = s.points.iter().map(|p| p.1).collect();
        assert!(y[1] < y[0] && y[3] < y[2], "{}: {y:?}", s.name);
    }
    let zns = ys(f9, "ZNSage");
    let ssd = ys(f9, "swap on conventional SSD");
    assert!(zns[1] > ssd[1] && zns[3] > ssd[3], "{zns:?} vs {ssd:?}");
}
