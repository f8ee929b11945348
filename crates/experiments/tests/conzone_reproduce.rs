//! `reproduce conzone` at a small scale: deterministic, and the directions of the
//! paper's findings hold (page-mapping miss rate rises with the read range, hybrid
//! mapping beats page mapping at 1 GiB, write-buffer conflicts cost bandwidth and
//! WAF, MULTIPLE is slower than BITMAP, 4 readers beat 1).

use zonelab_experiments::reproduce::{run_target, NoProgress, RunOptions};
use zonelab_experiments::reproduce_result::ReproduceResult;

fn run() -> ReproduceResult {
    let opts = RunOptions {
        scale: 0.05,
        seed: 7,
        traces_dir: None,
        draws: None,
        cpu_jitter_ppm: None,
    };
    run_target("conzone", &opts, &mut NoProgress).unwrap()
}

fn series(r: &ReproduceResult, fig: &str, name: &str) -> Vec<(f64, f64)> {
    r.figures
        .iter()
        .find(|f| f.id == fig)
        .unwrap_or_else(|| panic!("figure {fig}"))
        .series
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("series {name} of {fig}"))
        .points
        .clone()
}

#[test]
fn conzone_small_scale_is_deterministic_and_keeps_the_papers_directions() {
    let r = run();
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&run()).unwrap()
    );
    let ids: Vec<&str> = r.claims.iter().map(|c| c.id.as_str()).collect();
    for id in [
        "fig9.page_1g_drop",
        "fig9.page_1g_miss_rate",
        "fig9.hybrid_1g_over_page_1g",
        "fig9c.bw_gain_no_conflict",
        "fig9c.waf_reduction_no_conflict",
        "fig12.zonedslc_over_pageslc_bw",
        "fig13.multiple_drop_at_27pct",
        "fig10.insert_block_over_zoned_tps",
        "fig10.update_block_over_zoned_tps",
        "fig11.fs_waf_zoned",
        "fig11.fs_waf_block_adaptive",
        "fig12.zonedslc_over_pageslc_migration",
        "fig12.zonedslc_over_pageslc_direct_erases",
    ] {
        assert!(ids.contains(&id), "{id} missing");
    }
    // Fig. 9(a): page-mapping miss rate rises with the range; hybrid mapping
    // misses only its few compulsory coarse entries (reads start from a cold cache).
    let miss = series(&r, "fig9a_miss_rate", "page mapping");
    assert!(miss[0].1 < miss[1].1 && miss[1].1 < miss[2].1, "{miss:?}");
    let hybrid_miss = series(&r, "fig9a_miss_rate", "hybrid mapping");
    assert!(
        hybrid_miss[2].1 * 10.0 < miss[2].1,
        "{hybrid_miss:?} vs {miss:?}"
    );
    let page = series(&r, "fig9a_kiops", "page mapping");
    let hybrid = series(&r, "fig9a_kiops", "hybrid mapping");
    assert!(page[2].1 < page[0].1);
    assert!(hybrid[2].1 > page[2].1);
    // Fig. 9(c): conflicts cost bandwidth and raise WAF.
    let same = |fig| series(&r, fig, "same parity (conflicts)")[0].1;
    let diff = |fig| series(&r, fig, "different parity")[0].1;
    assert!(diff("fig9c_conflicts_bandwidth") > same("fig9c_conflicts_bandwidth"));
    assert!(diff("fig9c_conflicts_waf") < same("fig9c_conflicts_waf"));
    assert!(diff("fig9c_conflicts") < same("fig9c_conflicts"));
    // Every figure's y axis names one unit (mixed-unit charts are split).
    for f in &r.figures {
        assert!(
            !f.y_label.is_empty() && f.y_label != "value",
            "{}: y label {:?}",
            f.id,
            f.y_label
        );
    }
    // Fig. 13: MULTIPLE never faster than BITMAP, slower once misses occur.
    let b = series(&r, "fig13_kiops", "BITMAP");
    let m = series(&r, "fig13_kiops", "MULTIPLE");
    for (pb, pm) in b.iter().zip(&m) {
        assert!(pm.1 <= pb.1);
    }
    assert!(m.last().unwrap().1 < b.last().unwrap().1);
    // Fig. 12: both SLC policies ran and wrote the same host data.
    let f12 = series(&r, "fig12_bandwidth", "zonedslc");
    assert!(f12[0].1 > 0.0, "{f12:?}");
    // Fig. 10: both setups ran both SQLite tests; zoned storage writes node
    // blocks for its transactions.
    for name in ["zoned", "block"] {
        let tps = series(&r, "fig10a_tps", name);
        assert!(tps.iter().all(|p| p.1 > 0.0), "{name} {tps:?}");
    }
    let zoned_writes = series(&r, "fig10_fs_writes", "zoned");
    assert!(zoned_writes[1].1 > 0.0, "{zoned_writes:?}");
    // Fig. 11: F2FS's zoned cleaning amplifies writes more than block-adaptive.
    let z = series(&r, "fig11a_waf", "zoned");
    let ba = series(&r, "fig11a_waf", "block-adaptive");
    assert!(
        z[0].1 > ba[0].1,
        "FS WAF zoned {z:?} vs block-adaptive {ba:?}"
    );
    // Fig. 8: four sequential readers get more bandwidth than one.
    let z = series(&r, "fig8_seq_bandwidth", "ConZone - Zoned Device");
    assert!(z[3].1 > z[2].1, "{z:?}");
}
