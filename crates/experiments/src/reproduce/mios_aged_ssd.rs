//! The aged SSDs every `reproduce mios` run starts from (§5's drives "as the
//! workloads find them"), built once per process and cloned for each run.
//!
//! Aging writes two capacities (128 GiB on the 64 GiB scaled drives, 500 GB on Fig.
//! 15's 250 GB 960 EVO) and gives the same drive for every node, policy and seed.
//! The runs of a draw and the draws themselves run on short-lived threads
//! (`parallel::map_in_order`), so a per-thread cache aged the same drive again in
//! every thread; this cache is shared by all threads, and a thread that asks for a
//! drive being aged waits for it instead of aging it too. A clone shares the aged
//! drive's page maps until a run writes them (`ftl/cow_array.rs`), so a run
//! copies only the parts of the maps it touches.

use super::ReproduceError;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use zonelab_devices::models::ftl_ssd::FtlSsd;
use zonelab_devices::profile::{find_profile, model_of};
use zonelab_devices::profile_overrides::apply_overrides;
use zonelab_devices::{Command, Device, Payload, ProfileOverride};
use zonelab_engine::{MIB, NS_PER_S};
use zonelab_workloads::pangu::chunk_file_bytes;

/// One aged drive and when the workload may start on it, or why it could not be
/// built (kept as text: every thread waiting for it gets the same error).
type Aged = Result<(FtlSsd, u64), String>;

/// Aged drives by profile name and overrides.
static AGED_SSDS: Mutex<BTreeMap<String, Arc<OnceLock<Aged>>>> = Mutex::new(BTreeMap::new());

/// A `name` SSD aged as the workloads find it: filled once sequentially (every LBA
/// written), then one capacity more written in the Pangu-like traces' own pattern —
/// 1 MiB appends taking the 64 chunk files in turn (SNIA PTS-style
/// workload-dependent preconditioning) — so its FTL is in the steady state of
/// append workloads (GC victims hold little valid data) rather than in the
/// transient right after a fill, when every closed superblock is fully valid and
/// GC must copy until the appends have emptied whole superblocks (with the 64 GiB
/// scaled drives that transient is a scale artifact: a real 250-512 GB drive's
/// spare area outlasts it). Then a second of idle time. Returns the drive and when
/// the workload may start. Built once per process and cloned for every run
/// ([`forget_aged_ssds`] frees them).
pub fn aged_ssd(name: &str) -> Result<(Box<dyn Device>, u64), ReproduceError> {
    aged_ssd_with(name, &[])
}

/// [`aged_ssd`] of the profile `name` with `overrides` applied (e.g. its capacity).
pub fn aged_ssd_with(
    name: &str,
    overrides: &[ProfileOverride],
) -> Result<(Box<dyn Device>, u64), ReproduceError> {
    let key = std::iter::once(name.to_string())
        .chain(overrides.iter().map(|o| o.to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let slot = AGED_SSDS
        .lock()
        .expect("no thread panics holding the aged-SSD map")
        .entry(key)
        .or_default()
        .clone();
    match slot.get_or_init(|| age_ssd(name, overrides)) {
        Ok((ssd, start)) => Ok((Box::new(ssd.clone()), *start)),
        Err(e) => Err(ReproduceError::Run(e.clone())),
    }
}

/// Frees the aged drives (up to ~1 GB each); `reproduce mios` calls it when done,
/// so the targets after it in `reproduce all` do not carry them.
pub fn forget_aged_ssds() {
    AGED_SSDS
        .lock()
        .expect("no thread panics holding the aged-SSD map")
        .clear();
}

fn age_ssd(name: &str, overrides: &[ProfileOverride]) -> Aged {
    let src = find_profile(name)
        .and_then(|src| apply_overrides(&src, overrides))
        .map_err(|e| e.to_string())?;
    let model = model_of(&src).map_err(|e| e.to_string())?;
    if model != "ftl-ssd" {
        return Err(format!(
            "profile `{}`: aging needs an FTL SSD (model `ftl-ssd`), not model `{model}`",
            src.source_name
        ));
    }
    let mut ssd = FtlSsd::from_profile(&src).map_err(|e| e.to_string())?;
    let bb = ssd.info().block_bytes as u64;
    let blocks = (MIB / bb) as u32;
    let n = ssd.info().capacity_blocks / blocks as u64;
    let capacity_bytes = ssd.info().capacity_bytes();
    let mut t = 0;
    let mut write = |t: u64, lba: u64| {
        ssd.submit(t, &Command::Write { lba, blocks }, Payload::SizeOnly)
            .map(|c| c.done_ns)
            .map_err(|e| e.to_string())
    };
    for i in 0..n {
        t = write(t, i * blocks as u64)?;
    }
    let file_bytes = chunk_file_bytes(capacity_bytes);
    let files = capacity_bytes / file_bytes;
    let mut cursor = vec![0u64; files as usize];
    for i in 0..n {
        let f = (i % files) as usize;
        if cursor[f] + MIB > file_bytes {
            cursor[f] = 0;
        }
        t = write(t, (f as u64 * file_bytes + cursor[f]) / bb)?;
        cursor[f] += MIB;
    }
    Ok((ssd, t + NS_PER_S))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 960 EVO-like profile small enough to age in a test.
    fn small_960evo() -> Vec<ProfileOverride> {
        vec![ProfileOverride::new("capacity.capacity_mib", toml::Value::Integer(6144)).unwrap()]
    }

    #[test]
    fn threads_asking_at_once_share_one_aging_and_get_the_same_drive() {
        let overrides = small_960evo();
        // Each thread reports its copy's bytes written and start time (a drive is
        // not `Send`, so the copies stay on their threads).
        let copies: Vec<(u64, u64, u64)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..3)
                .map(|_| {
                    scope.spawn(|| {
                        let (d, start) = aged_ssd_with("ssd-960evo", &overrides).unwrap();
                        let s = d.stats(0);
                        (s.host_write_bytes, d.info().capacity_bytes(), start)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let key = format!("ssd-960evo {}", overrides[0]);
        assert!(AGED_SSDS
            .lock()
            .unwrap()
            .get(&key)
            .is_some_and(|s| s.get().is_some()));
        // Aged once: every copy has the same history (two capacities written).
        let (written, capacity_bytes, start) = copies[0];
        assert_eq!(written, 2 * (capacity_bytes / MIB) * MIB);
        assert!(copies.iter().all(|&c| c == copies[0]), "{copies:?}");
        // A copy is a copy: writing to one leaves the cached drive as it was.
        let (mut first, _) = aged_ssd_with("ssd-960evo", &overrides).unwrap();
        first
            .submit(
                start,
                &Command::Write { lba: 0, blocks: 8 },
                Payload::SizeOnly,
            )
            .unwrap();
        let (again, _) = aged_ssd_with("ssd-960evo", &overrides).unwrap();
        assert_eq!(again.stats(0).host_write_bytes, written);
    }

    #[test]
    fn a_profile_that_is_not_an_ftl_ssd_is_a_clean_error() {
        let e = aged_ssd("wd100efax").err().expect("an HDD cannot be aged");
        assert!(
            e.to_string()
                .contains("aging needs an FTL SSD (model `ftl-ssd`), not model"),
            "{e}"
        );
    }
}
