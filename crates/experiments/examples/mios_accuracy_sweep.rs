//! The §4.1 predictor-accuracy test (100 GB of 128 KiB writes to the WD 10 TB, a
//! sync per GiB, scaled) for several spreads of the drive's usable write room
//! (`cache.room_jitter_kib`, `models/hdd_write_cache.rs`) and seeds of its
//! draws: the sweep behind docs/mios.md ("Eighth session: the drive's usable
//! room varies").
//! Prints, per spread and seed, the share of F / M / S predictions that were
//! right (the paper's 99.5 / 98.1 / 60.3 %), the Fast stage's profiled W_f and the
//! user-visible counts: F predictions that met S, M predictions that met S.
//!
//!     cargo run --release -p zonelab-experiments --example mios_accuracy_sweep -- \
//!         0.1 0,256,512,1024,2048 1,2,3

use zonelab_devices::{open_device_with, ProfileOverride};
use zonelab_systems::mios::{accuracy_experiment, AccuracyConfig};

fn list<T: std::str::FromStr>(s: &str, what: &str) -> Result<Vec<T>, String> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse()
                .map_err(|_| format!("{what} `{x}`: a number"))
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() != 3 {
        return Err("usage: mios_accuracy_sweep SCALE JITTER_KIB,... SEED,...".into());
    }
    let scale: f64 = a[0]
        .parse()
        .map_err(|_| format!("scale `{}`: a number", a[0]))?;
    let jitters: Vec<f64> = list(&a[1], "jitter")?;
    let seeds: Vec<u64> = list(&a[2], "seed")?;
    let cfg = AccuracyConfig::scaled(scale)?;
    println!("jitter_kib,seed,w_f_bytes,w_m_bytes,prec_f,prec_m,prec_s,f_pred_met_s,m_pred_met_s,confusion");
    for &j in &jitters {
        for &seed in &seeds {
            let set = [
                ProfileOverride::parse(&format!("cache.room_jitter_kib={j}"))?,
                ProfileOverride::parse(&format!("cache.jitter_seed={seed}"))?,
            ];
            let mut d = open_device_with("wd100efax", &set)?;
            let r = accuracy_experiment(d.as_mut(), &cfg, &mut |_, _| {})?;
            let p = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.2}", 100.0 * v));
            println!(
                "{j},{seed},{},{},{},{},{},{},{},{:?}",
                r.params.w_f_bytes,
                r.params.w_m_bytes,
                p(r.f.precision),
                p(r.m.precision),
                p(r.s.precision),
                r.confusion[0][2],
                r.confusion[1][2],
                r.confusion
            );
        }
    }
    Ok(())
}
