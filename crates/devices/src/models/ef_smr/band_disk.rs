//! The SMR disk of the EF-SMR device (MU-RMW §II-A, §IV-A): bands of a 7,200-rpm
//! disk that can only be rewritten whole. The write head is three times the read
//! head, so writing a track destroys the next two: an update inside a band is a
//! read-modify-write (RMW) of the band — read all of it, merge, write it back
//! track by track (§II-A steps 1–3). The timing comes from the foundation's disk
//! mechanics (seek, rotation, zoned transfer rates).

use crate::block_store::BlockStore;
use zonelab_engine::Ns;
use zonelab_media::disk::{DiskMechanics, DiskParams};

/// The SMR disk: `bands` bands of `band_sectors` sectors from the start of the
/// platter. Reads go anywhere; writes only as whole-band read-modify-writes.
pub struct BandDisk {
    mechanics: DiskMechanics,
    pub band_sectors: u32,
    pub bands: u32,
    pub sector_bytes: u32,
    data: Option<BlockStore>,
    pub rmws: u64,
    /// Actuator time of all RMWs (from the band read's start to the write-back's end).
    pub rmw_ns_total: Ns,
    /// Ablation: an RMW takes this long after positioning on the band, instead of
    /// a band read and a band write through the mechanics.
    pub fixed_rmw_ns: Option<Ns>,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

impl BandDisk {
    pub fn new(params: &DiskParams, bands: u32, band_sectors: u32, sector_bytes: u32) -> Self {
        Self {
            mechanics: DiskMechanics::new(params),
            band_sectors,
            bands,
            sector_bytes,
            data: None,
            rmws: 0,
            rmw_ns_total: 0,
            fixed_rmw_ns: None,
            bytes_read: 0,
            bytes_written: 0,
        }
    }

    #[inline]
    pub fn band_of(&self, sector: u32) -> u32 {
        sector / self.band_sectors
    }

    fn band_offset_bytes(&self, band: u32) -> u64 {
        band as u64 * self.band_sectors as u64 * self.sector_bytes as u64
    }

    /// Reads `count` sectors from `sector` on the platter.
    pub fn read(&mut self, ready_ns: Ns, sector: u32, count: u32) -> Ns {
        let bytes = count as u64 * self.sector_bytes as u64;
        self.bytes_read += bytes;
        self.mechanics
            .access(ready_ns, sector as u64 * self.sector_bytes as u64, bytes)
            .done_ns
    }

    /// Copies a sector's bytes from the platter into `out` (zeros if never written).
    pub fn load(&self, sector: u32, out: &mut [u8]) {
        match &self.data {
            Some(d) => d.read(sector as u64, out),
            None => out.fill(0),
        }
    }

    /// Reads `count` sectors from `sector` in one access and copies their bytes
    /// into `out` (`count` sectors long) if given; returns when done.
    pub fn read_into(
        &mut self,
        ready_ns: Ns,
        sector: u32,
        count: u32,
        out: Option<&mut [u8]>,
    ) -> Ns {
        let done = self.read(ready_ns, sector, count);
        if let Some(o) = out {
            match &self.data {
                Some(d) => d.read(sector as u64, o),
                None => o.fill(0),
            }
        }
        done
    }

    /// Read-modify-write of `band`: reads the whole band, merges `updates`
    /// (sector, bytes if payloads are used), writes the band back track by track.
    /// Returns when the write-back completes.
    pub fn rmw(&mut self, ready_ns: Ns, band: u32, updates: &[(u32, Option<Box<[u8]>>)]) -> Ns {
        let offset = self.band_offset_bytes(band);
        let band_bytes = self.band_sectors as u64 * self.sector_bytes as u64;
        let (start, write_done) = match self.fixed_rmw_ns {
            None => {
                let read = self.mechanics.access(ready_ns, offset, band_bytes);
                let write = self.mechanics.access(read.done_ns, offset, band_bytes);
                (read.start_ns, write.done_ns)
            }
            Some(d) => {
                // Position on the band; the host is paused until the cleaning
                // ends, so the actuator's state after it does not matter.
                let at = self
                    .mechanics
                    .access(ready_ns, offset, self.sector_bytes as u64);
                (at.start_ns, at.start_ns + d)
            }
        };
        self.rmw_ns_total += write_done - start;
        for (sector, bytes) in updates {
            debug_assert_eq!(self.band_of(*sector), band, "RMW update outside its band");
            if let Some(b) = bytes {
                let sb = self.sector_bytes;
                self.data
                    .get_or_insert_with(|| BlockStore::new(sb))
                    .put(*sector as u64, b.clone());
            }
        }
        self.rmws += 1;
        self.bytes_read += band_bytes;
        self.bytes_written += band_bytes;
        write_done
    }

    pub fn utilisation(&self, elapsed_ns: Ns) -> f64 {
        self.mechanics.utilisation(elapsed_ns)
    }
}
