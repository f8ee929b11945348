//! Isolates the Fig. 12 miss (docs/conzone.md): the authors' `mot-gc.conf`
//! streams on F2FS over `conzone-plus-qlc`, SLC managed per page vs per zone,
//! with the short and medium streams' update volume swept (× 1 is the paper's
//! 160 MiB each). At × 1 the run writes only a little more than the 896 MiB of
//! SLC; the sweep shows how the zonedslc / pageslc bandwidth ratio and the
//! migration counters move as the SLC is overrun further.
//!
//! Run (take the machine lock):
//!     flock /work/.heavy.lock cargo run --release -p zonelab-experiments \
//!         --example fig12_volume_sweep -- [update scales...]
//! Defaults: × 1, 2, 4.

use zonelab_experiments::reproduce::fig12_volume_point;

fn main() {
    let mut scales: Vec<f64> = std::env::args()
        .skip(1)
        .map(|s| s.parse().expect("update scales must be numbers"))
        .collect();
    if scales.is_empty() {
        scales = vec![1.0, 2.0, 4.0];
    }
    println!("update_x  policy    MiB/s  migrated_MiB  direct_erases  slc_gc_erases  dev_WAF  zoned/page");
    for x in scales {
        let mut bw = [0.0; 2];
        for (i, zoned) in [false, true].into_iter().enumerate() {
            match fig12_volume_point(zoned, x, 1) {
                Ok((mib_s, migrated, direct, gc, waf)) => {
                    bw[i] = mib_s;
                    println!(
                        "{x:>8.1}  {:<8} {mib_s:>6.1} {migrated:>13.1} {direct:>14} {gc:>14} {waf:>8.3} {}",
                        if zoned { "zonedslc" } else { "pageslc" },
                        if zoned {
                            format!("{:>11.3}", bw[1] / bw[0])
                        } else {
                            String::new()
                        }
                    );
                }
                Err(e) => println!("{x:>8.1} error: {e}"),
            }
        }
    }
}
