//! Host LBA format over the FTL's 4 KiB mapping unit (issue 22, item 3).
//!
//! `capacity.block_bytes = 512` formats the drive with 512-byte LBAs emulated on
//! 4 KiB mapping units ("512e"; MQSim addresses its drive in 512-byte sectors,
//! `SECTOR_SIZE_IN_BYTE` in `src/ssd/SSD_Defs.h`, over page-level mapping). A
//! request then covers whole units and, at its ends, parts of units:
//! - a **sub-block read** reads the covering unit's flash page (one tR and the
//!   transfer of the whole unit), and only the requested sectors cross PCIe;
//! - a **sub-block write** is a read-modify-write inside the drive: the unit's old
//!   data is read from flash (unless it is unmapped — zeros — or still in the
//!   write buffer, merged in DRAM), merged with the new sectors, and the whole
//!   unit is written; the write is acknowledged once the merge read is in, and
//!   the unit takes a whole unit of buffer space and of flash;
//! - a **trim** deallocates only the units it covers whole (deallocation is
//!   advisory in NVMe; a partial unit keeps its data).
//!
//! `capacity.block_bytes = 4096` (the default format) maps LBA = unit. Native
//! 512-byte mapping (a map entry per sector) is not modelled: no current SSD
//! maps below 4 KiB, and it would need an 8× larger map.

/// The LBA size relative to the mapping unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LbaFormat {
    sectors_per_unit: u64,
}

/// The part of one unit a request covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnitSpan {
    pub unit: u64,
    /// First sector of the unit the request covers.
    pub first_sector: u64,
    pub sectors: u64,
    /// Sectors of the request before this unit's part (its offset in the request).
    pub request_offset: u64,
}

impl UnitSpan {
    /// The request covers only part of the unit.
    #[inline]
    pub fn is_partial(&self, f: LbaFormat) -> bool {
        self.sectors < f.sectors_per_unit
    }
}

impl LbaFormat {
    pub fn new(lba_bytes: u64, unit_bytes: u64) -> Self {
        debug_assert!(unit_bytes.is_multiple_of(lba_bytes));
        Self {
            sectors_per_unit: unit_bytes / lba_bytes,
        }
    }

    /// LBAs are smaller than the mapping unit.
    #[inline]
    pub fn is_emulated(self) -> bool {
        self.sectors_per_unit > 1
    }

    #[inline]
    pub fn sectors_per_unit(self) -> u64 {
        self.sectors_per_unit
    }

    /// First unit and number of units `blocks` LBAs from `lba` touch.
    #[inline]
    pub fn units(self, lba: u64, blocks: u32) -> (u64, u64) {
        let first = lba / self.sectors_per_unit;
        let end = (lba + blocks as u64).div_ceil(self.sectors_per_unit);
        (first, end - first)
    }

    /// The part of unit `unit` that `blocks` LBAs from `lba` cover.
    #[inline]
    pub fn span(self, lba: u64, blocks: u32, unit: u64) -> UnitSpan {
        let unit_start = unit * self.sectors_per_unit;
        let from = lba.max(unit_start);
        let to = (lba + blocks as u64).min(unit_start + self.sectors_per_unit);
        UnitSpan {
            unit,
            first_sector: from - unit_start,
            sectors: to - from,
            request_offset: from - lba,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_the_request_exactly_once() {
        let f = LbaFormat::new(512, 4096);
        // Sectors 2..21: unit 0 from sector 2 (6), unit 1 whole (8), unit 2 (5).
        assert_eq!(f.units(2, 19), (0, 3));
        let spans: Vec<_> = (0..3).map(|u| f.span(2, 19, u)).collect();
        assert_eq!((spans[0].first_sector, spans[0].sectors), (2, 6));
        assert_eq!((spans[1].first_sector, spans[1].sectors), (0, 8));
        assert_eq!((spans[2].first_sector, spans[2].sectors), (0, 5));
        assert_eq!(
            spans.iter().map(|s| s.request_offset).collect::<Vec<_>>(),
            [0, 6, 14]
        );
        assert!(spans[0].is_partial(f) && !spans[1].is_partial(f) && spans[2].is_partial(f));
        // Inside one unit.
        let one = f.span(9, 3, 1);
        assert_eq!(
            (one.first_sector, one.sectors, one.request_offset),
            (1, 3, 0)
        );
        assert_eq!(f.units(9, 3), (1, 1));
    }

    #[test]
    fn four_kib_lbas_are_units() {
        let f = LbaFormat::new(4096, 4096);
        assert!(!f.is_emulated());
        assert_eq!(f.units(5, 3), (5, 3));
        assert!(!f.span(5, 3, 6).is_partial(f));
    }
}
