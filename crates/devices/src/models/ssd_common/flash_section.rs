//! The `[flash]` profile section of SSD models: geometry and cell timings.

use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use zonelab_engine::{us_to_ns, KIB};
use zonelab_media::flash::{CellType, FlashGeometry, FlashTimings};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashSection {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes_per_die: u32,
    pub pages_per_block: u32,
    pub page_kib: u32,
    pub cell_type: CellType,
    pub read_us: f64,
    pub program_us: f64,
    pub erase_us: f64,
    pub channel_mb_s: f64,
}

impl FlashSection {
    /// Checks every field; errors name `flash.<field>`.
    pub fn validate(&self, v: &Validator<'_>) -> Result<(), ProfileError> {
        // TOML allows `nan`, which every range comparison would let through.
        for (field, value) in [
            ("flash.read_us", self.read_us),
            ("flash.program_us", self.program_us),
            ("flash.erase_us", self.erase_us),
            ("flash.channel_mb_s", self.channel_mb_s),
        ] {
            v.check(field, value, !value.is_nan(), "a number")?;
        }
        v.range("flash.channels", self.channels, 1, 64)?;
        v.range("flash.dies_per_channel", self.dies_per_channel, 1, 64)?;
        v.range("flash.planes_per_die", self.planes_per_die, 1, 16)?;
        v.check(
            "flash.page_kib",
            self.page_kib,
            self.page_kib.is_power_of_two() && (4..=64).contains(&self.page_kib),
            "a power of two in 4..=64",
        )?;
        let bits = self.cell_type.bits_per_cell();
        v.check(
            "flash.pages_per_block",
            self.pages_per_block,
            self.pages_per_block >= bits
                && self.pages_per_block.is_multiple_of(bits)
                && self.pages_per_block <= 1 << 16,
            &format!(
                "a multiple of {bits} (pages per one-shot program of {:?} cells) in {bits}..=65536",
                self.cell_type
            ),
        )?;
        v.range("flash.read_us", self.read_us, 0.1, 10_000.0)?;
        v.range("flash.program_us", self.program_us, 1.0, 100_000.0)?;
        v.range("flash.erase_us", self.erase_us, 1.0, 100_000.0)?;
        v.range("flash.channel_mb_s", self.channel_mb_s, 1.0, 100_000.0)?;
        Ok(())
    }

    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }

    pub fn geometry(&self, blocks_per_plane: u32) -> FlashGeometry {
        FlashGeometry {
            channels: self.channels,
            dies_per_channel: self.dies_per_channel,
            planes_per_die: self.planes_per_die,
            blocks_per_plane,
            pages_per_block: self.pages_per_block,
            page_bytes: self.page_kib * KIB as u32,
            cell_type: self.cell_type,
        }
    }

    pub fn timings(&self) -> FlashTimings {
        FlashTimings {
            read_ns: us_to_ns(self.read_us),
            program_ns: us_to_ns(self.program_us),
            erase_ns: us_to_ns(self.erase_us),
            channel_bytes_per_s: (self.channel_mb_s * 1e6) as u64,
        }
    }
}
