//! Diagnostic (issue 14, sixth session; docs/hhzs.md "The load at larger SSDs"): what
//! HHZS, P+M and P do during the YCSB load (Exp#1 load, Exp#5 Fig. 9(a)) at a given
//! number of SSD zones — load time, write stalls, migrations (count, bytes, the level
//! of each moved SST, when), SSD cache admissions, and the share of each class's
//! bytes written to the SSD.
//! `cargo run --release -p zonelab-experiments --example hhzs_load_ssd_size -- [scale] [zones,...] [schemes,...] [lines]`
//! e.g. `-- 0.05 20,40,60,80 p,p+m,hhzs 10`. With `lines` > 0, the migration
//! counters and the policy's tiering state are printed that many times over the load.
//! A fifth argument `h2zone-capacity-guard` runs P+M and HHZS with H2Zone's guard
//! on capacity migration (the lowest-priority movable SSD SST moves only if it sits
//! above the tiering level, or at it over its reservation,
//! `WriteGuided::h2zone_capacity_guard`), or `rate-mibs=R` runs them with a
//! migration rate of R MiB/s instead of the paper's 4 (how much of HHZS's load
//! gain over P the rate limit holds back).
//! The fifth argument is a comma-separated list; besides the two above it takes
//! `limiter=paced` (evenly spaced chunks instead of H2Zone's per-second window),
//! `plan-every-tick` (no H2Zone 16-s planning gate) and `no-capacity-migration`
//! (issue 14, seventh session: what each part of migration does to the load),
//! `no-capacity-delay` (no H2Zone 32-s start delay of capacity migration) and
//! `priority=paper` / `priority=h2zone` (§3.4's priority order alone, or H2Zone's
//! with "not trivially moved is better" before the read rate, instead of the
//! default that applies that rule only where read rates tie) (issue 14, eighth
//! session), or `priority=moved-first` (the placebo: the rule reversed where read
//! rates tie; issue 14, eighth session) or `priority=newest-down` (ties to the
//! newest SST instead of the oldest).

use zonelab_experiments::hhzs_eval::{open_scheme, open_scheme_with_policy, Scheme};
use zonelab_experiments::hhzs_setup::{HybridSetup, TakeOps, YcsbOps, PAPER_RECORDS};
use zonelab_systems::hhzs::{MigrationLimiter, MigrationPlanning, PriorityOrder, WriteGuided};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scale: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0.05);
    let zones: Vec<u32> = args
        .get(2)
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![20, 40, 60, 80]);
    let schemes: Vec<Scheme> = args
        .get(3)
        .map(|s| s.split(',').map(|x| x.parse().expect("scheme")).collect())
        .unwrap_or_else(|| vec![Scheme::P, Scheme::PM, Scheme::Hhzs]);
    let lines: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (mut guard, mut rate_mibs) = (false, None::<u64>);
    let (mut paced, mut every_tick, mut no_capacity) = (false, false, false);
    let (mut no_delay, mut order) = (false, None::<PriorityOrder>);
    for ablation in args
        .get(5)
        .map(|a| a.split(',').collect())
        .unwrap_or(vec![])
    {
        match ablation {
            "h2zone-capacity-guard" => guard = true,
            "limiter=paced" => paced = true,
            "plan-every-tick" => every_tick = true,
            "no-capacity-migration" => no_capacity = true,
            "no-capacity-delay" => no_delay = true,
            p if p.starts_with("priority=") => match p["priority=".len()..].parse() {
                Ok(o) => order = Some(o),
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(2);
                }
            },
            r if r.starts_with("rate-mibs=") => {
                rate_mibs = Some(r["rate-mibs=".len()..].parse().expect("rate-mibs=R"))
            }
            other => {
                eprintln!("unknown ablation `{other}` (h2zone-capacity-guard, rate-mibs=R, limiter=paced, plan-every-tick, no-capacity-migration, no-capacity-delay, priority=paper, priority=h2zone, priority=moved-first, priority=newest-down)");
                std::process::exit(2);
            }
        }
    }
    let records = (PAPER_RECORDS as f64 * scale) as u64;
    let gib = |b: u64| b as f64 / scale / (1u64 << 30) as f64;
    for &z in &zones {
        for &scheme in &schemes {
            let mut setup = HybridSetup::paper(scale);
            setup.ssd_zones = z;
            let migrates = matches!(scheme, Scheme::PM | Scheme::Hhzs);
            let mut db = if (guard || no_capacity || order.is_some()) && migrates {
                let mut policy = WriteGuided::hhzs(true, scheme == Scheme::Hhzs);
                policy.h2zone_capacity_guard = guard;
                policy.no_capacity_migration = no_capacity;
                policy.priority_order = order.unwrap_or_default();
                open_scheme_with_policy(&setup, scheme, Box::new(policy)).expect("open")
            } else {
                open_scheme(&setup, scheme).expect("open")
            };
            if let Some(r) = rate_mibs.filter(|_| migrates) {
                db.storage_mut().set_migration_rate(r << 20);
            }
            if paced && migrates {
                db.storage_mut()
                    .set_migration_limiter(MigrationLimiter::Paced);
            }
            if no_delay && migrates {
                db.storage_mut().set_capacity_migration_delay_ns(0);
            }
            if every_tick && migrates {
                db.storage_mut()
                    .set_migration_planning(MigrationPlanning::EveryTick);
            }
            let spec = setup.load_spec(records);
            let mut load = YcsbOps {
                inner: spec.load().expect("spec"),
            };
            let chunks = lines.max(1);
            let every = records.div_ceil(chunks);
            let (mut elapsed, mut delayed, mut stopped, mut ops) = (0.0, 0.0, 0.0, 0u64);
            for k in 1..=chunks {
                let s = db
                    .run_ops(
                        &mut TakeOps {
                            inner: &mut load,
                            left: every,
                        },
                        0,
                    )
                    .expect("load");
                elapsed += s.elapsed_s;
                delayed += s.delayed_s;
                stopped += s.stopped_s;
                ops += s.ops;
                if lines > 0 {
                    let store = db.storage();
                    let m = store.migration_stats();
                    let view = store.view(db.now_ns());
                    eprintln!(
                        "  {z} {} {:>3}% t={:.0}s down {} up {} copied {:.1} GiB cancelled {} ssd free {} {}",
                        scheme.name(),
                        100 * k / chunks,
                        db.now_ns() as f64 / 1e9,
                        m.to_hdd,
                        m.to_ssd,
                        gib(m.copied_bytes),
                        m.cancelled,
                        view.devices[0].free_zones,
                        store.describe_policy(db.now_ns())
                    );
                }
            }
            let store = db.storage();
            let m = store.migration_stats();
            let cache = store
                .cache_stats()
                .map(|(c, n, b)| {
                    format!(
                        "admitted {} entries {n} bytes {:.2} GiB",
                        c.admitted,
                        gib(b)
                    )
                })
                .unwrap_or_else(|| "-".into());
            let mut shares = Vec::new();
            for (class, per_dev) in store.written_by_class() {
                let all: u64 = per_dev.iter().sum();
                shares.push(format!(
                    "{class:?} {:.0}%/{:.0}",
                    100.0 * per_dev[0] as f64 / all.max(1) as f64,
                    gib(all)
                ));
            }
            let t = store.traffic();
            println!(
                "zones {z:>2} {:<5} load {:>8.0} s {:>8.0} ops/s delayed {:>6.0} s stopped {:>5.0} s | migr down {} up {} copied {:.1} GiB cancelled {} | cache {cache} | SSD written {:.0} GiB read {:.0} GiB, HDD written {:.0} GiB read {:.0} GiB",
                scheme.name(),
                elapsed,
                ops as f64 / elapsed,
                delayed,
                stopped,
                m.to_hdd,
                m.to_ssd,
                gib(m.copied_bytes),
                m.cancelled,
                gib(t[0].written_bytes),
                gib(t[0].read_bytes),
                gib(t[1].written_bytes),
                gib(t[1].read_bytes),
            );
            let hdd = store.device_stats(1, db.now_ns());
            let c = |k: &str| hdd.counters.get(k).copied().unwrap_or(0) as f64 / 1e9;
            println!(
                "    HDD actuator utilisation {:.3}, seek {:.0} s, rotation {:.0} s, transfer {:.0} s, seeks {}",
                hdd.utilisation.get("actuator").copied().unwrap_or(0.0),
                c("seek_ns"),
                c("rotational_wait_ns"),
                c("transfer_ns"),
                hdd.counters.get("seeks").copied().unwrap_or(0)
            );
            let (granted, refused) = store.planning_rounds();
            println!(
                "    migration chunks busy {:.0} s; planning rounds granted {granted} refused {refused}",
                m.chunk_busy_ns as f64 / 1e9
            );
            println!(
                "    written to the SSD (share / GiB): {}",
                shares.join(", ")
            );
            if migrates {
                println!("    policy: {}", store.describe_policy(db.now_ns()));
            }
            let counts: Vec<String> = store
                .placement_counts()
                .iter()
                .map(|(l, c)| format!("L{l} {}/{}/{}", c.ssd, c.hdd_by_rule, c.hdd_ssd_full))
                .collect();
            println!(
                "    SSTs SSD / HDD by rule / HDD SSD full: {}",
                counts.join(", ")
            );
        }
    }
}
