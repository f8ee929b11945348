//! Target `mu-rmw-sensitivity`: the `mu-rmw` experiment (all ten look-alike or real
//! traces under all three STLs) again under variants of the setup, to show which
//! assumption each claim depends on. Each variant's five claims are reported with
//! its name as prefix (`chips2.fig6...`), and a note says on how many traces
//! MU-RMW beats both baselines. Variants:
//!
//! - `chips1` (the `mu-rmw` setup), `chips2`, `chips4`: flash dies working in
//!   parallel (`[flash_cache] chips`);
//! - `rmw80ms`: every band RMW takes the "around 80 ms" MU-RMW §II-B supposes,
//!   instead of a band read and write through the disk mechanics (~0.4 s);
//! - `sizes-mix`: look-alike requests of 4–64 KiB instead of one sector;
//! - `zipf-0.5`, `uniform`: updates' popularity less skewed than YCSB's 0.99;
//! - `pore-period-x0.125`, `pore-period-x2`: PORE's period an eighth of a PC zone
//!   (one band's worth of the cache / 8) and the whole cache;
//! - `pore-open-region`, `pore-open-region-x0.125`: PORE writes back its whole OPEN
//!   region at every cleaning (MU-RMW's wording of PORE, not PORE's code), with a
//!   period of one and of an eighth of a PC zone;
//! - `mu-rmw-tables-in-ram`: MU-RMW reads its sub-tables without OOB reads (all
//!   cached in RAM; not MU-RMW), to isolate what the OOB reads cost.

use super::mu_rmw::{claims, mu_rmw_wins};
use super::mu_rmw_runs::{run_all, Measured, Setup};
use super::{ProgressSink, ReproduceError, RunOptions, Target};
use crate::reproduce_result::{round_sig, Claim, Figure, FigureKind, ReproduceResult, Series};
use zonelab_devices::models::ef_smr::StlPolicy;
use zonelab_workloads::synth::{LookalikeOptions, RequestSizes, MSR_TABLE_I};

/// (name, how the variant changes the paper's setup).
fn variants(base: Setup) -> Vec<(&'static str, Setup)> {
    vec![
        ("chips1", base),
        (
            "chips2",
            Setup {
                chips: Some(2),
                ..base
            },
        ),
        (
            "chips4",
            Setup {
                chips: Some(4),
                ..base
            },
        ),
        (
            "rmw80ms",
            Setup {
                rmw_fixed_ms: Some(80.0),
                ..base
            },
        ),
        (
            "sizes-mix",
            Setup {
                lookalike: LookalikeOptions {
                    sizes: RequestSizes::Mix,
                    ..base.lookalike
                },
                ..base
            },
        ),
        (
            "zipf-0.5",
            Setup {
                lookalike: LookalikeOptions {
                    popularity_theta: 0.5,
                    ..base.lookalike
                },
                ..base
            },
        ),
        (
            "uniform",
            Setup {
                lookalike: LookalikeOptions {
                    popularity_theta: 0.0,
                    ..base.lookalike
                },
                ..base
            },
        ),
        (
            "pore-period-x0.125",
            Setup {
                pore_period_zones: 0.125,
                ..base
            },
        ),
        (
            "pore-period-x2",
            Setup {
                pore_period_zones: 2.0,
                ..base
            },
        ),
        (
            "pore-open-region",
            Setup {
                pore_evicts_open_region: true,
                ..base
            },
        ),
        (
            "mu-rmw-tables-in-ram",
            Setup {
                mu_rmw_sub_tables_in_ram: true,
                ..base
            },
        ),
        (
            "pore-open-region-x0.125",
            Setup {
                pore_evicts_open_region: true,
                pore_period_zones: 0.125,
                ..base
            },
        ),
    ]
}

pub struct MuRmwSensitivityTarget;

impl Target for MuRmwSensitivityTarget {
    fn name(&self) -> &'static str {
        "mu-rmw-sensitivity"
    }

    fn description(&self) -> &'static str {
        "MU-RMW's claims under 1/2/4 flash chips, an 80 ms RMW, other request sizes and update skews, PORE period/eviction variants and MU-RMW sub-tables in RAM"
    }

    fn run(
        &self,
        opts: &RunOptions,
        progress: &mut dyn ProgressSink,
    ) -> Result<ReproduceResult, ReproduceError> {
        let base = Setup::paper(opts.scale, opts.traces_dir.is_some());
        let variants = variants(base);
        let total = (variants.len() * MSR_TABLE_I.len() * StlPolicy::ALL.len()) as u64;
        let mut step = 0;
        let mut all: Vec<(&str, Vec<[Measured; 3]>)> = Vec::new();
        for (name, setup) in &variants {
            let m = run_all(*setup, opts.seed, opts.traces_dir.as_deref(), |label| {
                progress.step(step, total, &format!("{name}: {label}"));
                step += 1;
            })?;
            all.push((name, m));
        }
        progress.step(total, total, "done");
        let mut claim_list: Vec<Claim> = Vec::new();
        let mut notes = Vec::new();
        for (name, m) in &all {
            for mut c in claims(m) {
                c.id = format!("{name}.{}", c.id);
                c.description = format!("{name}: {}", c.description);
                claim_list.push(c);
            }
            notes.push(format!(
                "{name}: MU-RMW lower than both baselines on {} / {} / {} of {} traces (avg RT / WAF / WCRT); MU-RMW did RMWs on {} traces.",
                mu_rmw_wins(m, |x| x.avg_rt_ns),
                mu_rmw_wins(m, |x| x.waf),
                mu_rmw_wins(m, |x| x.wcrt_ns),
                m.len(),
                m.iter().filter(|t| t[2].rmws > 0).count()
            ));
        }
        let names: Vec<String> = MSR_TABLE_I.iter().map(|p| p.name.to_string()).collect();
        let fig = |id: &str, title: &str, y: &str, f: &dyn Fn(&Measured) -> f64| Figure {
            id: id.to_string(),
            title: title.to_string(),
            kind: FigureKind::Bar,
            x_label: "trace".to_string(),
            y_label: y.to_string(),
            categories: names.clone(),
            series: all
                .iter()
                .flat_map(|(variant, m)| {
                    ["Skylight", "PORE", "MU-RMW"]
                        .iter()
                        .enumerate()
                        .map(move |(si, stl)| Series {
                            name: format!("{stl}, {variant}"),
                            points: m
                                .iter()
                                .enumerate()
                                .map(|(ti, t)| (ti as f64, round_sig(f(&t[si]))))
                                .collect(),
                        })
                })
                .collect(),
        };
        let figures = vec![
            fig("avg_response_time", "Average response time", "ms", &|x| {
                x.avg_rt_ns / 1e6
            }),
            fig("waf", "Write amplification factor", "WAF", &|x| x.waf),
            fig(
                "worst_case_response_time",
                "Worst-case response time",
                "ms",
                &|x| x.wcrt_ns / 1e6,
            ),
        ];
        Ok(ReproduceResult {
            target: self.name().to_string(),
            scale: opts.scale,
            seed: opts.seed,
            version: env!("CARGO_PKG_VERSION").to_string(),
            claims: claim_list,
            figures,
            notes,
        })
    }
}
