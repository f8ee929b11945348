//! NAND flash array: geometry, cell-type timings and per-channel / per-die
//! timelines. A read occupies the die for tR and then the channel for the data
//! transfer (the die's page register is held until the data is out); a program
//! occupies the channel for the transfer in and then the die for tPROG; an erase
//! occupies the die. Firmware on top decides what to read, program and erase.

use serde::{Deserialize, Serialize};
use zonelab_engine::{transfer_ns, GapTimeline, Ns, Timeline};

/// NAND cell type. Bits per cell set how many pages one-shot programming writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

/// Physical layout of the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlashGeometry {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub cell_type: CellType,
}

impl FlashGeometry {
    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }

    /// Bytes one program operation writes on one die: page × bits per cell (one-shot
    /// programming of all pages of a word line) × planes (multi-plane program).
    pub fn program_unit_bytes(&self) -> u64 {
        self.page_bytes as u64 * self.cell_type.bits_per_cell() as u64 * self.planes_per_die as u64
    }

    /// Bytes in one block of one plane.
    pub fn block_bytes(&self) -> u64 {
        self.page_bytes as u64 * self.pages_per_block as u64
    }

    pub fn raw_bytes(&self) -> u64 {
        self.block_bytes()
            * self.blocks_per_plane as u64
            * self.planes_per_die as u64
            * self.dies() as u64
    }

    /// Die index `d` sits on channel `d % channels`: consecutive dies spread over
    /// channels, as controllers stripe them.
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die % self.channels
    }
}

/// Operation latencies of the array's cells and its channel bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlashTimings {
    pub read_ns: Ns,
    pub program_ns: Ns,
    pub erase_ns: Ns,
    pub channel_bytes_per_s: u64,
}

/// Per-resource busy time, for utilisation reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FlashUtilisation {
    pub channel_busy_fraction: f64,
    pub die_busy_fraction: f64,
}

/// The array's resources. Firmware calls `read`, `program` and `erase` with the time
/// the operation is ready and gets the time it completes.
#[derive(Debug, Clone)]
pub struct FlashArray {
    pub geometry: FlashGeometry,
    pub timings: FlashTimings,
    /// Channels fill gaps: a die's data moves whenever the channel is idle.
    channels: Vec<GapTimeline>,
    /// Dies run their operations in the order they are booked (a per-die queue).
    dies: Vec<Timeline>,
}

impl FlashArray {
    pub fn new(geometry: FlashGeometry, timings: FlashTimings) -> Self {
        Self {
            channels: vec![GapTimeline::new(); geometry.channels as usize],
            dies: vec![Timeline::new(); geometry.dies() as usize],
            geometry,
            timings,
        }
    }

    /// Tells the array that no request will be ready before `now_ns` (devices call
    /// it as each host command arrives), so past channel bookings can be dropped.
    pub fn advance(&mut self, now_ns: Ns) {
        for c in &mut self.channels {
            c.forget_before(now_ns);
        }
    }

    /// Time the die is next free.
    #[inline]
    pub fn die_free_at_ns(&self, die: u32) -> Ns {
        self.dies[die as usize].free_at_ns()
    }

    /// Reads `bytes` (at most one page per plane) from `die`: tR on the die, then the
    /// transfer on its channel. Returns the time the data is off the channel.
    #[inline]
    pub fn read(&mut self, ready_ns: Ns, die: u32, bytes: u64) -> Ns {
        self.read_with(ready_ns, die, bytes, self.timings.read_ns)
    }

    /// As [`read`](Self::read) with an explicit tR (e.g. SLC-mode blocks in a
    /// TLC array).
    #[inline]
    pub fn read_with(&mut self, ready_ns: Ns, die: u32, bytes: u64, read_ns: Ns) -> Ns {
        let ch = self.geometry.channel_of_die(die) as usize;
        let (_, sensed) = self.dies[die as usize].reserve(ready_ns, read_ns);
        let (_, out) =
            self.channels[ch].reserve(sensed, transfer_ns(bytes, self.timings.channel_bytes_per_s));
        self.dies[die as usize].hold_until(out);
        out
    }

    /// Programs `bytes` (at most one program unit) on `die`: transfer in over the
    /// channel, then tPROG on the die. Returns the time the program completes.
    #[inline]
    pub fn program(&mut self, ready_ns: Ns, die: u32, bytes: u64) -> Ns {
        self.program_with(ready_ns, die, bytes, self.timings.program_ns)
    }

    /// As [`program`](Self::program) with an explicit tPROG (e.g. SLC-mode blocks
    /// in a TLC array).
    #[inline]
    pub fn program_with(&mut self, ready_ns: Ns, die: u32, bytes: u64, program_ns: Ns) -> Ns {
        let ch = self.geometry.channel_of_die(die) as usize;
        let (_, loaded) = self.channels[ch].reserve(
            ready_ns,
            transfer_ns(bytes, self.timings.channel_bytes_per_s),
        );
        let (_, done) = self.dies[die as usize].reserve(loaded, program_ns);
        done
    }

    /// Erases one block (all planes when multi-plane) on `die`.
    #[inline]
    pub fn erase(&mut self, ready_ns: Ns, die: u32) -> Ns {
        self.dies[die as usize]
            .reserve(ready_ns, self.timings.erase_ns)
            .1
    }

    /// Moves data between two dies through the controller (GC copy): read on the
    /// source, program on the destination. Returns when the program completes.
    #[inline]
    pub fn copy(&mut self, ready_ns: Ns, from_die: u32, to_die: u32, bytes: u64) -> Ns {
        let read_done = self.read(ready_ns, from_die, bytes);
        self.program(read_done, to_die, bytes)
    }

    /// Mean busy fraction of channels and dies over `elapsed_ns`.
    pub fn utilisation(&self, elapsed_ns: Ns) -> FlashUtilisation {
        if elapsed_ns == 0 {
            return FlashUtilisation::default();
        }
        let mean = |busy: Ns, n: usize| busy as f64 / (n as f64 * elapsed_ns as f64);
        FlashUtilisation {
            channel_busy_fraction: mean(
                self.channels.iter().map(|t| t.busy_ns()).sum(),
                self.channels.len(),
            ),
            die_busy_fraction: mean(self.dies.iter().map(|t| t.busy_ns()).sum(), self.dies.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array() -> FlashArray {
        FlashArray::new(
            FlashGeometry {
                channels: 2,
                dies_per_channel: 2,
                planes_per_die: 2,
                blocks_per_plane: 8,
                pages_per_block: 4,
                page_bytes: 16 * 1024,
                cell_type: CellType::Tlc,
            },
            FlashTimings {
                read_ns: 50_000,
                program_ns: 1_000_000,
                erase_ns: 3_500_000,
                channel_bytes_per_s: 1_000_000_000,
            },
        )
    }

    #[test]
    fn program_unit_is_page_times_bits_times_planes() {
        assert_eq!(array().geometry.program_unit_bytes(), 96 * 1024);
    }

    #[test]
    fn reads_on_one_die_serialise_and_on_two_dies_overlap() {
        let mut a = array();
        let xfer = transfer_ns(4096, 1_000_000_000);
        let first = a.read(0, 0, 4096);
        assert_eq!(first, 50_000 + xfer);
        let second = a.read(0, 0, 4096);
        assert_eq!(second, first + 50_000 + xfer);
        // Die 1 is on channel 1: fully parallel with die 0.
        assert_eq!(a.read(0, 1, 4096), 50_000 + xfer);
        // Die 2 shares channel 0 with die 0: its tR overlaps, its transfer queues.
        let third = a.read(0, 2, 4096);
        assert!(third >= 50_000 + xfer);
    }

    #[test]
    fn program_transfers_then_programs() {
        let mut a = array();
        let xfer = transfer_ns(96 * 1024, 1_000_000_000);
        assert_eq!(a.program(0, 3, 96 * 1024), xfer + 1_000_000);
        assert_eq!(a.erase(0, 3), xfer + 1_000_000 + 3_500_000);
        let u = a.utilisation(10_000_000);
        assert!(u.die_busy_fraction > 0.0 && u.die_busy_fraction < 1.0);
    }
}
