//! The ZNS interface of target `placement` (docs/placement.md): the same flash as
//! `zn540-fdp` behind the `zns-ssd` model, one zone per reclaim unit (a block on
//! every die, as many zones as the FTL has superblocks, so the host gets the
//! flash the FTL had including its over-provisioning), and the host-side layer a
//! ZNS user must write:
//!
//! - a **sequential tenant** (a log) owns a circular run of zones: logical offset
//!   `o` of its range lives at offset `o mod capacity` of its `o / capacity`-th
//!   zone, and the host resets a zone when its log wraps into it, so the log's
//!   zones die whole (CacheLib's BlockCache on ZNS: a region per zone);
//! - the **random tenants** share a host log-structured layer over the remaining
//!   zones (the pool): writes are appended to an open zone, a page map finds each
//!   logical block, and host GC keeps [`RESERVE_ZONES`] zones free by taking the
//!   full zone with the fewest valid blocks (greedy, as the FTL's GC), reading its
//!   valid blocks and appending them to a separate GC zone (the FTL's host/GC
//!   frontier split), then resetting it.
//!
//! Write amplification therefore moves to the host: the device writes each block
//! it is given once, and the layer's GC copies are the WAF.

use super::placement_runs::{profile_text, Interface, SEQ_BLOCKS};
use zonelab_devices::models::build;
use zonelab_devices::profile::ProfileSource;
use zonelab_devices::{Command, Device, Payload, ZoneAction};
use zonelab_engine::Ns;

/// Free pool zones the host layer keeps (the FTL's `trigger_free_superblocks` 2
/// plus its `reclaim_free_superblocks` 1: GC runs until 3 are free).
const RESERVE_ZONES: usize = 3;
const NO_SLOT: u32 = u32::MAX;

/// The `zns-ssd` profile with the flash and controller of the scaled `zn540-fdp`
/// profile, `zones` zones of one reclaim unit (`zone_blocks` 4 KiB blocks)
/// striped over all dies.
pub fn zns_profile_text(scale: f64, zones: u64, zone_blocks: u64) -> String {
    let ftl = profile_text(Interface::Conventional, scale);
    let flash_at = ftl.find("[flash]").expect("zn540-fdp has [flash]");
    let ftl_at = ftl.find("[ftl]").expect("zn540-fdp has [ftl]");
    let dies = flash_dies(&ftl);
    let zone_kib = zone_blocks * 4;
    format!(
        "name = \"zn540-fdp-zns\"\nmodel = \"zns-ssd\"\ndescription = \"zn540-fdp's flash behind a ZNS interface (target placement)\"\n\n\
         [zones]\nblock_bytes = 4096\nzone_count = {zones}\nzone_size_mib = 1\nzone_capacity_mib = 1\n\
         zone_size_kib = {zone_kib}\nzone_capacity_kib = {zone_kib}\nmax_open_zones = 14\nmax_active_zones = 14\n\
         zone_stripe_dies = {dies}\n\n{}",
        &ftl[flash_at..ftl_at]
    )
}

fn flash_dies(profile: &str) -> u64 {
    let field = |name: &str| -> u64 {
        profile
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim_start().strip_prefix('='))
            .and_then(|v| v.split('#').next())
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("zn540-fdp profile has {name}"))
    };
    field("channels") * field("dies_per_channel")
}

/// Where a tenant's data goes on the zoned device.
enum Placement {
    /// A log over zones `first_zone..first_zone + zones`.
    Log { first_zone: u64 },
    /// The shared host log-structured layer.
    Random,
}

/// The ZNS device with the host layer in front of it.
pub struct ZnsHost {
    dev: Box<dyn Device>,
    zone_size: u64,
    zone_cap: u64,
    tenants: Vec<(u64, Placement)>,
    /// Random layer: logical block -> pool slot (`zone * zone_cap + offset`).
    map: Vec<u32>,
    /// Pool slot -> logical block (or `NO_SLOT`).
    owner: Vec<u32>,
    valid: Vec<u32>,
    /// Pool zones written to capacity (GC candidates).
    full: Vec<bool>,
    free: Vec<u64>,
    host_zone: Option<(u64, u64)>,
    gc_zone: Option<(u64, u64)>,
    /// Blocks the host layer's GC copied.
    pub gc_copied_blocks: u64,
}

impl ZnsHost {
    /// Builds the device and lays `tenants` (first logical block, blocks,
    /// sequential?) out on it; `ftl_superblocks` zones of `ru_blocks` blocks.
    pub fn new(
        scale: f64,
        ftl_superblocks: u64,
        ru_blocks: u64,
        logical_blocks: u64,
        tenants: &[(u64, u64, bool)],
    ) -> Result<Self, String> {
        let dev = build(&ProfileSource {
            source_name: format!("zn540-fdp-zns (scale {scale})"),
            text: zns_profile_text(scale, ftl_superblocks, ru_blocks),
        })
        .map_err(|e| e.to_string())?;
        let z = dev.info().zoned.clone().expect("zns-ssd is zoned");
        let mut next_zone = 0;
        let mut placed = Vec::new();
        for &(first, blocks, sequential) in tenants {
            if sequential {
                placed.push((
                    first,
                    Placement::Log {
                        first_zone: next_zone,
                    },
                ));
                next_zone += blocks.div_ceil(z.zone_capacity_blocks);
            } else {
                placed.push((first, Placement::Random));
            }
        }
        let zones = z.zone_count as u64;
        let random_blocks: u64 = tenants.iter().filter(|t| !t.2).map(|t| t.1).sum();
        let pool = zones.saturating_sub(next_zone);
        if pool * z.zone_capacity_blocks
            < random_blocks + (RESERVE_ZONES as u64 + 2) * z.zone_capacity_blocks
        {
            return Err(format!(
                "zns: {pool} zones left for {random_blocks} blocks of random data (too few)"
            ));
        }
        let pool_slots = (zones * z.zone_capacity_blocks) as usize;
        Ok(Self {
            dev,
            zone_size: z.zone_size_blocks,
            zone_cap: z.zone_capacity_blocks,
            tenants: placed,
            map: vec![NO_SLOT; logical_blocks as usize],
            owner: vec![NO_SLOT; pool_slots],
            valid: vec![0; zones as usize],
            full: vec![false; zones as usize],
            free: (next_zone..zones).rev().collect(),
            host_zone: None,
            gc_zone: None,
            gc_copied_blocks: 0,
        })
    }

    pub fn device(&self) -> &dyn Device {
        self.dev.as_ref()
    }

    /// The logical space the tenants write (the FTL's capacity).
    pub fn logical_blocks(&self) -> u64 {
        self.map.len() as u64
    }

    /// Tenant `t`'s write `cmd` (a logical write in its range) at `now`; returns
    /// when it completes.
    pub fn write(&mut self, now: Ns, t: usize, cmd: &Command) -> Result<Ns, String> {
        let Command::Write { lba, blocks } = *cmd else {
            return Err(format!("zns host: {} is not a write", cmd.name()));
        };
        match self.tenants[t].1 {
            Placement::Log { first_zone } => {
                let off = lba - self.tenants[t].0;
                let zone = first_zone + off / self.zone_cap;
                let in_zone = off % self.zone_cap;
                let zone_lba = zone * self.zone_size;
                let mut at = now;
                if in_zone == 0 {
                    at = self.submit(at, &reset(zone_lba))?;
                }
                self.submit(
                    at,
                    &Command::Write {
                        lba: zone_lba + in_zone,
                        blocks,
                    },
                )
            }
            Placement::Random => {
                let mut done = now;
                for b in lba..lba + blocks as u64 {
                    done = done.max(self.random_write(now, b)?);
                }
                Ok(done)
            }
        }
    }

    fn submit(&mut self, at: Ns, cmd: &Command) -> Result<Ns, String> {
        self.dev
            .submit(at, cmd, Payload::SizeOnly)
            .map(|c| c.done_ns)
            .map_err(|e| format!("zns {}: {e}", cmd.name()))
    }

    /// One logical block of the random layer: appended to the host zone (after
    /// host GC, if the pool needs a zone and is at its reserve).
    fn random_write(&mut self, now: Ns, lpn: u64) -> Result<Ns, String> {
        let mut at = now;
        if self.host_zone.is_none() {
            while self.free.len() <= RESERVE_ZONES {
                at = self.collect_one(at)?;
            }
            self.host_zone = Some((self.take_free()?, 0));
        }
        let (zone, off) = self.host_zone.expect("opened above");
        let slot = zone * self.zone_cap + off;
        let done = self.submit(
            at,
            &Command::Write {
                lba: zone * self.zone_size + off,
                blocks: 1,
            },
        )?;
        self.remap(lpn, slot);
        self.host_zone = self.advance(zone, off);
        Ok(done)
    }

    /// The zone's next offset, or none once it is full (then a GC candidate).
    fn advance(&mut self, zone: u64, off: u64) -> Option<(u64, u64)> {
        if off + 1 == self.zone_cap {
            self.full[zone as usize] = true;
            None
        } else {
            Some((zone, off + 1))
        }
    }

    fn take_free(&mut self) -> Result<u64, String> {
        self.free
            .pop()
            .ok_or_else(|| "zns host: no free zone left".to_string())
    }

    fn remap(&mut self, lpn: u64, slot: u64) {
        let old = self.map[lpn as usize];
        if old != NO_SLOT {
            self.owner[old as usize] = NO_SLOT;
            self.valid[old as usize / self.zone_cap as usize] -= 1;
        }
        self.map[lpn as usize] = slot as u32;
        self.owner[slot as usize] = lpn as u32;
        self.valid[(slot / self.zone_cap) as usize] += 1;
    }

    /// Host GC of one victim: the full pool zone with the fewest valid blocks;
    /// its valid blocks are read (one read per run of valid blocks) and appended
    /// to the GC zone in requests of up to 128 KiB, then it is reset.
    fn collect_one(&mut self, now: Ns) -> Result<Ns, String> {
        let victim = (0..self.full.len())
            .filter(|&z| self.full[z])
            .min_by_key(|&z| (self.valid[z], z))
            .ok_or_else(|| "zns host: no zone to collect".to_string())? as u64;
        let first = victim * self.zone_cap;
        let mut at = now;
        let mut moved = Vec::with_capacity(self.valid[victim as usize] as usize);
        let mut off = 0;
        while off < self.zone_cap {
            if self.owner[(first + off) as usize] == NO_SLOT {
                off += 1;
                continue;
            }
            let start = off;
            while off < self.zone_cap && self.owner[(first + off) as usize] != NO_SLOT {
                moved.push(self.owner[(first + off) as usize]);
                off += 1;
            }
            let read = Command::Read {
                lba: victim * self.zone_size + start,
                blocks: (off - start) as u32,
            };
            at = at.max(self.submit(now, &read)?);
        }
        let mut i = 0;
        while i < moved.len() {
            let (zone, off) = match self.gc_zone {
                Some(z) => z,
                None => (self.take_free()?, 0),
            };
            let n = (moved.len() - i)
                .min((self.zone_cap - off) as usize)
                .min(SEQ_BLOCKS as usize);
            let write = Command::Write {
                lba: zone * self.zone_size + off,
                blocks: n as u32,
            };
            at = self.submit(at, &write)?;
            for (k, &lpn) in moved[i..i + n].iter().enumerate() {
                self.remap(lpn as u64, zone * self.zone_cap + off + k as u64);
            }
            self.gc_zone = self.advance(zone, off + n as u64 - 1);
            i += n;
        }
        self.gc_copied_blocks += moved.len() as u64;
        debug_assert_eq!(self.valid[victim as usize], 0);
        self.full[victim as usize] = false;
        at = self.submit(at, &reset(victim * self.zone_size))?;
        self.free.insert(0, victim);
        Ok(at)
    }
}

fn reset(zone_lba: u64) -> Command {
    Command::Zone {
        action: ZoneAction::Reset,
        zone_lba,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_engine::rng::uniform_below;
    use zonelab_engine::RngStreams;

    /// The random layer's map and reverse map agree, valid counts match, and
    /// host GC ran; the device accepted every command (its zone rules would
    /// refuse a write off a write pointer).
    #[test]
    fn random_layer_keeps_its_maps_consistent_through_host_gc() {
        let zone = 768; // blocks per zone: one reclaim unit at scale 0.02
        let zones = 40;
        let logical = 32 * zone;
        // One log tenant of 8 zones' worth, one random tenant of 16 zones' worth.
        let layout = [(0, 8 * zone, true), (8 * zone, 16 * zone, false)];
        let mut h = ZnsHost::new(0.02, zones, zone, logical, &layout).unwrap();
        let mut rng = RngStreams::new(1).stream("zns-test");
        let mut now = 0;
        for i in 0..(120 * zone) {
            let (t, lba) = if i % 3 == 0 {
                (0, (i / 3 * 32) % (8 * zone))
            } else {
                (1, 8 * zone + uniform_below(&mut rng, 16 * zone))
            };
            let blocks = if t == 0 { 32 } else { 1 };
            now = h.write(now, t, &Command::Write { lba, blocks }).unwrap();
        }
        assert!(h.gc_copied_blocks > 0, "host GC ran");
        let mut mapped = 0;
        for (lpn, &slot) in h.map.iter().enumerate() {
            if slot != NO_SLOT {
                assert_eq!(h.owner[slot as usize], lpn as u32);
                mapped += 1;
            }
        }
        assert_eq!(h.valid.iter().map(|&v| v as u64).sum::<u64>(), mapped);
        assert!(h.free.len() >= RESERVE_ZONES - 1);
    }

    #[test]
    fn too_few_zones_for_the_random_data_is_an_error() {
        let layout = [(0, 8 * 768, true), (8 * 768, 30 * 768, false)];
        let err = ZnsHost::new(0.02, 40, 768, 38 * 768, &layout)
            .err()
            .expect("too small");
        assert!(err.contains("too few"), "{err}");
    }
}
