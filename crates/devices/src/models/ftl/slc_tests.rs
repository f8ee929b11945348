//! Tests of the SLC write cache (`slc_cache.rs`) on tiny profiles: FTL and cache
//! invariants under random writes, trims, GC and idle folding; determinism; SLC-mode
//! reads; profile errors. The cited numbers of the real drives are tested on their
//! profiles in `crates/devices/tests/ssd_profiles.rs`.

use super::tests::{build_text, fill_sequentially, run, text, SMALL};
use crate::command::Command;
use crate::device::Device;
use crate::profile::ProfileError;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{Ns, RngStreams};

/// SMALL (program unit 48 KiB, 32 MiB logical) with an SLC cache of 10 program
/// units static and up to 20 more from free space.
fn slc_text(fold: &str) -> String {
    let idle = if fold == "idle" {
        "idle_fold_ms = 1.0\n"
    } else {
        ""
    };
    format!(
        "{}\n[slc_cache]\nstatic_gb = 0.000492\ndynamic_max_gb = 0.000984\nprogram_us = 200.0\nread_us = 20.0\nfold = \"{fold}\"\n{idle}",
        text(&SMALL)
    )
}

fn random_workload(fold: &str, seed: &str) -> (super::FtlSsd, Ns) {
    let mut dev = build_text(slc_text(fold)).expect("valid profile");
    let mut now = 0;
    fill_sequentially(&mut dev, &mut now);
    let cap = dev.info().capacity_blocks;
    let mut rng = RngStreams::new(5).stream(seed);
    for i in 0..30_000u64 {
        let lba = uniform_below(&mut rng, cap);
        let blocks = (1 + uniform_below(&mut rng, 8)).min(cap - lba) as u32;
        let cmd = match uniform_below(&mut rng, 20) {
            0..=15 => Command::Write { lba, blocks },
            16 | 17 => Command::Read { lba, blocks },
            _ => Command::Trim { lba, blocks },
        };
        // Now and then an idle spell long enough for background folding.
        if i % 500 == 0 {
            now += 50_000_000;
        }
        run(&mut dev, &mut now, cmd);
    }
    run(&mut dev, &mut now, Command::Flush);
    (dev, now)
}

#[test]
fn invariants_hold_with_the_cache_under_random_writes_trims_and_gc() {
    for fold in ["idle", "when-full"] {
        let (dev, now) = random_workload(fold, "slc.invariants");
        dev.check_invariants().unwrap();
        let st = dev.stats(now);
        let c = &st.counters;
        assert!(st.gc_runs > 0, "{fold}: GC never ran");
        assert!(
            c["slc_written_bytes"] > 0 && c["slc_folded_bytes"] > 0,
            "{fold}: {c:?}"
        );
        assert!(c["slc_held_bytes"] <= c["slc_capacity_bytes"].max(c["slc_held_bytes"]));
        if fold == "idle" {
            assert!(c["slc_background_folds"] > 0 && c["slc_write_path_folds"] == 0);
            assert!(c["slc_direct_written_bytes"] > 0, "a full cache writes TLC");
        } else {
            assert!(c["slc_background_folds"] == 0 && c["slc_write_path_folds"] > 0);
        }
        // Media writes count the SLC program and the fold of each unit.
        assert!(st.media_write_bytes >= c["slc_written_bytes"] + c["slc_folded_bytes"]);
    }
}

#[test]
fn runs_with_the_cache_are_deterministic() {
    let go = || {
        let (dev, now) = random_workload("idle", "slc.det");
        (now, dev.stats(now))
    };
    assert_eq!(go(), go());
}

#[test]
fn reads_of_data_still_in_slc_sense_with_the_slc_read_time() {
    let mut dev = build_text(slc_text("idle")).unwrap();
    let mut now = 0;
    // One full program unit (12 units) at LBA 0, flushed: it is in SLC.
    run(&mut dev, &mut now, Command::Write { lba: 0, blocks: 12 });
    run(&mut dev, &mut now, Command::Flush);
    let in_slc = run(&mut dev, &mut now, Command::Read { lba: 0, blocks: 1 });
    // A second of idle time folds it into TLC.
    now += 1_000_000_000;
    let folded = run(&mut dev, &mut now, Command::Read { lba: 0, blocks: 1 });
    assert_eq!(dev.stats(now).counters["slc_background_folds"], 1);
    // TLC tR 50 us vs SLC-mode 20 us, the rest of the read unchanged.
    assert_eq!(folded - in_slc, 30_000, "{in_slc} ns then {folded} ns");
}

#[test]
fn slc_profile_errors_name_the_field() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("idle", "idle_fold_ms = 1.0\n", "", "slc_cache.idle_fold_ms"),
        (
            "when-full",
            "fold = \"when-full\"\n",
            "fold = \"when-full\"\nidle_fold_ms = 5.0\n",
            "slc_cache.idle_fold_ms",
        ),
        (
            "idle",
            "program_us = 200.0",
            "program_us = 2000.0",
            "slc_cache.program_us",
        ),
        (
            "idle",
            "read_us = 20.0",
            "read_us = nan",
            "slc_cache.read_us",
        ),
        (
            "idle",
            "static_gb = 0.000492\ndynamic_max_gb = 0.000984",
            "static_gb = 0.0\ndynamic_max_gb = 0.0",
            "slc_cache.static_gb",
        ),
        (
            "idle",
            "static_gb = 0.000492",
            "static_gb = -1.0",
            "slc_cache.static_gb",
        ),
        (
            "idle",
            "cell_type = \"tlc\"",
            "cell_type = \"slc\"",
            "flash.cell_type",
        ),
    ];
    for (fold, from, to, field) in cases {
        let t = slc_text(fold);
        assert!(t.contains(from), "{from}");
        let err = build_text(t.replace(from, to))
            .err()
            .unwrap_or_else(|| panic!("{to} was accepted"));
        match &err {
            ProfileError::OutOfRange { field: f, .. } => assert_eq!(f, field, "{err}"),
            other => panic!("{to}: unexpected error {other}"),
        }
        assert!(err.to_string().contains(field), "{err}");
    }
    let unknown = build_text(slc_text("idle").replace("[slc_cache]", "[slc_cache]\nsize = 1"))
        .err()
        .unwrap();
    assert!(matches!(unknown, ProfileError::Parse { .. }), "{unknown}");
}
