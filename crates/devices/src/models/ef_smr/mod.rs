//! EF-SMR disk (`model = "ef-smr"`, MU-RMW §II–§IV): an SMR disk with an embedded
//! NAND flash persistent cache, behind a block interface. All host writes go to the
//! flash cache; the shingled translation layer (STL) — Skylight, PORE or MU-RMW,
//! chosen by `stl.policy` — maps them, serves reads from the cache or the bands,
//! and cleans the cache by read-modify-writing bands when it runs out of space.
//!
//! The hardware ([`hardware`]) is shared: flash page read / program / block erase
//! (0.2 / 1.3 / 1.5 ms in the paper) on `chips × planes_per_chip` parallel units
//! ([`flash_cache`]), 40 MiB bands on a 7,200-rpm disk whose mechanics come from
//! the foundation's disk model ([`band_disk`]). A request's pages are issued
//! together and proceed in parallel where the units allow; a write that needs
//! space waits for the cleaning it triggers, and every request that arrives while
//! a cleaning runs waits for it to end (MU-RMW §IV-B4: cleaning pauses the host),
//! which is what makes worst-case response times.

pub mod band_disk;
pub mod flash_cache;
pub mod hardware;
pub mod mu_rmw;
pub mod pore;
pub mod sector_map;
pub mod skylight;
pub mod stl;

use super::hdd::{validate_mechanics, ControllerSection, MechanicsSection};
use crate::command::{Command, Completion, Payload};
use crate::device::{check_block_range, check_payload, round6, Device, DeviceInfo, DeviceStats};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use hardware::{BandDisk, FlashCache, FlashCacheParams, Hardware};
use serde::Deserialize;
use stl::Stl;
use zonelab_engine::{ms_to_ns, Ns, MIB};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EfSmrProfile {
    pub name: String,
    pub model: String,
    pub description: String,
    pub bands: BandsSection,
    pub mechanics: MechanicsSection,
    pub controller: ControllerSection,
    pub flash_cache: FlashCacheSection,
    pub stl: StlSection,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandsSection {
    /// Logical block (sector) size: the STLs map 4 KiB sectors.
    pub sector_bytes: u32,
    pub band_mib: u64,
    pub band_count: u32,
    /// Capacity of the disk whose mechanics the bands sit on (bands from its start).
    pub disk_capacity_gb: u64,
    /// Ablation only: an RMW takes this long (after positioning on the band)
    /// instead of reading and rewriting the band through the disk mechanics
    /// (MU-RMW §II-B supposes "around 80 ms"; `docs/mu-rmw.md`).
    #[serde(default)]
    pub rmw_fixed_ms: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashCacheSection {
    pub blocks: u32,
    pub pages_per_block: u32,
    pub oob_bytes: u32,
    /// Dies working in parallel (1 if absent).
    #[serde(default = "one")]
    pub chips: u32,
    /// Planes per die working in parallel (1 if absent).
    #[serde(default = "one")]
    pub planes_per_chip: u32,
    pub read_ms: f64,
    pub program_ms: f64,
    pub erase_ms: f64,
}

fn one() -> u32 {
    1
}

/// Which STL runs, and its parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StlSection {
    pub policy: StlPolicy,
    /// Skylight: PC zones the cache is divided into (band b → zone b mod N).
    pub skylight_pc_zones: u32,
    /// PORE: the period length — the sectors evicted per period, and the least
    /// the OPEN region holds when it is chosen.
    pub pore_period_sectors: u32,
    /// PORE: when it evicts (`on-demand`, PORE's own; `open-region` is an ablation).
    #[serde(default)]
    pub pore_eviction: pore::PoreEviction,
    /// Ablation only: MU-RMW keeps every sub-table in controller RAM, so reads and
    /// writes need no OOB read (the paper's future "index cache", unbounded).
    #[serde(default)]
    pub mu_rmw_sub_tables_in_ram: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StlPolicy {
    Skylight,
    Pore,
    MuRmw,
}

impl StlPolicy {
    pub const ALL: [StlPolicy; 3] = [StlPolicy::Skylight, StlPolicy::Pore, StlPolicy::MuRmw];

    pub fn name(self) -> &'static str {
        match self {
            StlPolicy::Skylight => "skylight",
            StlPolicy::Pore => "pore",
            StlPolicy::MuRmw => "mu-rmw",
        }
    }
}

/// The device.
pub struct EfSmr {
    info: DeviceInfo,
    hw: Hardware,
    stl: Box<dyn Stl>,
    command_ns: Ns,
    sector_bytes: u64,
    host_read_bytes: u64,
    host_write_bytes: u64,
}

impl EfSmr {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: EfSmrProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    /// Builds the device from a parsed profile (the reproduce target changes
    /// `stl.policy` to compare STLs on the same hardware).
    pub fn new(p: EfSmrProfile, source_name: &str) -> Result<Self, ProfileError> {
        let v = Validator::new(source_name);
        let b = &p.bands;
        v.check(
            "bands.sector_bytes",
            b.sector_bytes,
            b.sector_bytes == 4096,
            "4096 (the STLs map 4 KiB sectors)",
        )?;
        v.range("bands.band_mib", b.band_mib, 1, 4096)?;
        v.range("bands.band_count", b.band_count, 1, 1 << 20)?;
        let band_bytes = b.band_mib * MIB;
        let bands_bytes = band_bytes * b.band_count as u64;
        v.check(
            "bands.band_count",
            b.band_count,
            bands_bytes < (u32::MAX as u64) * b.sector_bytes as u64,
            "a count whose sectors fit in 32 bits (< 16 TiB)",
        )?;
        v.range("bands.disk_capacity_gb", b.disk_capacity_gb, 1, 100_000)?;
        let disk_bytes = b.disk_capacity_gb * 1_000_000_000;
        v.check(
            "bands.disk_capacity_gb",
            b.disk_capacity_gb,
            disk_bytes >= bands_bytes,
            &format!("at least the bands' {} bytes", bands_bytes),
        )?;
        let (disk_params, command_ns) =
            validate_mechanics(&v, &p.mechanics, &p.controller, disk_bytes)?;
        if let Some(ms) = b.rmw_fixed_ms {
            v.check("bands.rmw_fixed_ms", ms, ms.is_finite(), "a finite number")?;
            v.range("bands.rmw_fixed_ms", ms, 0.001, 100_000.0)?;
        }
        let f = &p.flash_cache;
        for (field, value) in [
            ("flash_cache.read_ms", f.read_ms),
            ("flash_cache.program_ms", f.program_ms),
            ("flash_cache.erase_ms", f.erase_ms),
        ] {
            v.check(field, value, value.is_finite(), "a finite number")?;
        }
        v.range("flash_cache.blocks", f.blocks, 4, 1 << 20)?;
        v.range("flash_cache.pages_per_block", f.pages_per_block, 1, 4096)?;
        v.range("flash_cache.chips", f.chips, 1, 64)?;
        v.range("flash_cache.planes_per_chip", f.planes_per_chip, 1, 16)?;
        let units = f.chips * f.planes_per_chip;
        v.check(
            "flash_cache.pages_per_block",
            f.pages_per_block,
            f.pages_per_block.is_multiple_of(units),
            &format!(
                "a multiple of the {units} parallel units (chips × planes_per_chip), which the pages of a block are striped over"
            ),
        )?;
        v.check(
            "flash_cache.oob_bytes",
            f.oob_bytes,
            f.oob_bytes >= 8 && f.oob_bytes.is_multiple_of(4) && f.oob_bytes <= 64 * 1024,
            "a multiple of 4 in 8..=65536",
        )?;
        v.range("flash_cache.read_ms", f.read_ms, 0.001, 100.0)?;
        v.range("flash_cache.program_ms", f.program_ms, 0.001, 100.0)?;
        v.range("flash_cache.erase_ms", f.erase_ms, 0.001, 1000.0)?;
        let band_sectors = (band_bytes / b.sector_bytes as u64) as u32;
        let oob_slots = f.oob_bytes / 4;
        v.check(
            "flash_cache.oob_bytes",
            f.oob_bytes,
            band_sectors.is_multiple_of(oob_slots),
            &format!("a size whose 4-byte slots divide the {band_sectors} sectors of a band"),
        )?;
        let s = &p.stl;
        v.range(
            "stl.skylight_pc_zones",
            s.skylight_pc_zones,
            1,
            f.blocks / 2,
        )?;
        v.check(
            "stl.skylight_pc_zones",
            s.skylight_pc_zones,
            f.blocks.is_multiple_of(s.skylight_pc_zones),
            &format!("a divisor of the {} flash blocks", f.blocks),
        )?;
        v.range(
            "stl.pore_period_sectors",
            s.pore_period_sectors,
            1,
            band_sectors.saturating_mul(b.band_count),
        )?;

        let flash = FlashCache::new(FlashCacheParams {
            blocks: f.blocks,
            pages_per_block: f.pages_per_block,
            page_bytes: b.sector_bytes,
            oob_bytes: f.oob_bytes,
            chips: f.chips,
            planes_per_chip: f.planes_per_chip,
            read_ns: ms_to_ns(f.read_ms),
            program_ns: ms_to_ns(f.program_ms),
            erase_ns: ms_to_ns(f.erase_ms),
        });
        let mut disk = BandDisk::new(&disk_params, b.band_count, band_sectors, b.sector_bytes);
        disk.fixed_rmw_ns = b.rmw_fixed_ms.map(ms_to_ns);
        let hw = Hardware::new(flash, disk);
        let stl: Box<dyn Stl> = match s.policy {
            StlPolicy::Skylight => Box::new(skylight::Skylight::new(&hw, s.skylight_pc_zones)),
            StlPolicy::Pore => Box::new(pore::Pore::new(
                &hw,
                s.pore_period_sectors as u64,
                s.pore_eviction,
            )),
            StlPolicy::MuRmw => {
                let mut m = mu_rmw::MuRmw::new(&hw);
                m.sub_tables_in_ram = s.mu_rmw_sub_tables_in_ram;
                Box::new(m)
            }
        };
        let info = DeviceInfo {
            name: p.name.clone(),
            model: p.model.clone(),
            description: p.description.clone(),
            block_bytes: b.sector_bytes,
            capacity_blocks: band_sectors as u64 * b.band_count as u64,
            zoned: None,
        };
        Ok(Self {
            info,
            hw,
            stl,
            command_ns,
            sector_bytes: b.sector_bytes as u64,
            host_read_bytes: 0,
            host_write_bytes: 0,
        })
    }

    pub fn stl_name(&self) -> &'static str {
        self.stl.name()
    }

    /// Bytes of controller RAM the STL's mapping uses.
    pub fn mapping_memory_bytes(&self) -> u64 {
        self.stl.mapping_memory_bytes()
    }

    /// Checks the STL's invariants (tests).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.stl.check_invariants(&self.hw)
    }

    pub fn hardware(&self) -> &Hardware {
        &self.hw
    }
}

impl Device for EfSmr {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        check_payload(cmd, &payload, self.info.block_bytes)?;
        // A request that arrives during a cleaning starts when it ends.
        let ready = (now_ns + self.command_ns).max(self.hw.pause_until_ns);
        match *cmd {
            Command::Read { lba, blocks } => {
                check_block_range("read", lba, blocks, self.info.capacity_blocks)?;
                let out = match payload {
                    Payload::Read(o) => Some(o),
                    _ => None,
                };
                let done = self.stl.read(&mut self.hw, ready, lba as u32, blocks, out);
                self.host_read_bytes += blocks as u64 * self.sector_bytes;
                Ok(Completion { done_ns: done, lba })
            }
            Command::Write { lba, blocks } => {
                check_block_range("write", lba, blocks, self.info.capacity_blocks)?;
                let data = match payload {
                    Payload::Write(d) => Some(d),
                    _ => None,
                };
                let done = self
                    .stl
                    .write(&mut self.hw, ready, lba as u32, blocks, data);
                self.host_write_bytes += blocks as u64 * self.sector_bytes;
                Ok(Completion { done_ns: done, lba })
            }
            // The flash cache is persistent: a flush costs a command.
            Command::Flush => Ok(Completion {
                done_ns: ready,
                lba: 0,
            }),
            Command::Trim { .. } | Command::Append { .. } | Command::Zone { .. } => {
                Err(DeviceError::Unsupported {
                    command: cmd.name(),
                    device: self.info.name.clone(),
                })
            }
        }
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        let f = &self.hw.flash;
        let d = &self.hw.disk;
        let page = f.params.page_bytes as u64;
        let mut st = DeviceStats {
            host_read_bytes: self.host_read_bytes,
            host_write_bytes: self.host_write_bytes,
            media_read_bytes: (f.page_reads + f.oob_reads) * page + d.bytes_read,
            // MU-RMW's WAF: all data written (flash programs and band rewrites)
            // over the data the host wrote.
            media_write_bytes: f.page_programs * page + d.bytes_written,
            erases: f.erases,
            gc_runs: self.hw.cleanings,
            ..Default::default()
        };
        if elapsed_ns > 0 {
            st.utilisation.insert(
                "flash".into(),
                round6(f.busy_ns() as f64 / elapsed_ns as f64),
            );
            st.utilisation
                .insert("actuator".into(), round6(d.utilisation(elapsed_ns)));
        }
        let c = &mut st.counters;
        c.insert("rmws".into(), d.rmws);
        c.insert("rmw_ns_total".into(), d.rmw_ns_total);
        c.insert("rmw_cleanings".into(), self.hw.rmw_cleanings);
        c.insert("flash_parallel_units".into(), f.params.units() as u64);
        c.insert("cleanings".into(), self.hw.cleanings);
        c.insert("cleaning_ns_total".into(), self.hw.cleaning_ns_total);
        c.insert("cleaning_ns_max".into(), self.hw.cleaning_ns_max);
        c.insert("flash_page_programs".into(), f.page_programs);
        c.insert("flash_page_reads".into(), f.page_reads);
        c.insert("flash_oob_reads".into(), f.oob_reads);
        c.insert("band_bytes_written".into(), d.bytes_written);
        c.insert(
            "mapping_memory_bytes".into(),
            self.stl.mapping_memory_bytes(),
        );
        st.finish()
    }
}
