//! NAND flash array: geometry, cell-type timings and per-channel / per-die
//! timelines. A read occupies the die for tR and then the channel for the data
//! transfer (the die's page register is held until the data is out); a program
//! occupies the channel for the transfer in and then the die for tPROG; an erase
//! occupies the die. Firmware on top decides what to read, program and erase.

use crate::die_queue::{DieOp, DieQueue, DieQueueCounters, DieScheduling, OpId};
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

/// Where host reads' flash time went (see [`FlashArray::host_read_with`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostReadWaits {
    pub reads: u64,
    /// Time from ready until the die started sensing (programs, erases, other
    /// reads, suspend latency ahead of it).
    pub die_wait_ns: Ns,
    /// Time the sensed data waited for its channel.
    pub channel_wait_ns: Ns,
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
    /// With read-first scheduling (`die_queue.rs`), the dies' queues replace `dies`.
    scheduled: Option<Box<Scheduled>>,
    host_read_waits: HostReadWaits,
    /// Program data crosses the channel just before the die can program it,
    /// not when the program is booked (see [`FlashArray::set_just_in_time_transfers`]).
    just_in_time_transfers: bool,
}

#[derive(Debug, Clone)]
struct Scheduled {
    params: DieScheduling,
    queues: Vec<DieQueue>,
    counters: DieQueueCounters,
}

impl FlashArray {
    pub fn new(geometry: FlashGeometry, timings: FlashTimings) -> Self {
        Self {
            channels: vec![GapTimeline::new(); geometry.channels as usize],
            dies: vec![Timeline::new(); geometry.dies() as usize],
            scheduled: None,
            host_read_waits: HostReadWaits::default(),
            just_in_time_transfers: false,
            geometry,
            timings,
        }
    }

    /// Serves host reads first and suspends programs / erases for them as `s`
    /// says (call before any operation is booked). Without it, every die runs
    /// its operations in booking order.
    pub fn set_scheduling(&mut self, s: DieScheduling) {
        self.scheduled = s.read_first.then(|| {
            Box::new(Scheduled {
                params: s,
                queues: vec![DieQueue::new(); self.dies.len()],
                counters: DieQueueCounters::default(),
            })
        });
    }

    /// The die scheduler's counters (all zero without read-first scheduling).
    pub fn scheduling_counters(&self) -> DieQueueCounters {
        self.scheduled
            .as_ref()
            .map_or_else(DieQueueCounters::default, |s| s.counters)
    }

    /// Moves a program's data over the channel so that it arrives when the die
    /// is free to program it, instead of when the program is booked. A die holds
    /// the data of one program in its page registers, so a controller transfers
    /// a queued program's data only when the die is about to take it; booked
    /// early, the transfers of a die's whole program backlog occupy the channel
    /// ahead of reads that would use it first (issue 22: with read-first
    /// scheduling, host reads waited ~390 us per read for the channel on a
    /// replayed trace). Off by default: models calibrated with eager transfers
    /// keep their timing.
    pub fn set_just_in_time_transfers(&mut self, on: bool) {
        self.just_in_time_transfers = on;
    }

    /// Where host reads' time went so far.
    pub fn host_read_waits(&self) -> HostReadWaits {
        self.host_read_waits
    }

    /// The operation booked last on `die`, to ask [`current_end_ns`](Self::current_end_ns)
    /// about later; `None` without read-first scheduling (booked ends never move).
    pub fn last_booked(&self, die: u32) -> Option<OpId> {
        self.scheduled
            .as_ref()
            .map(|s| s.queues[die as usize].last_booked())
    }

    /// When operation `id` on `die` ends now (reads put before it push it back);
    /// `None` once it is over or without read-first scheduling.
    pub fn current_end_ns(&self, die: u32, id: OpId) -> Option<Ns> {
        self.scheduled
            .as_ref()
            .and_then(|s| s.queues[die as usize].end_of(id))
    }

    /// Books `duration_ns` of `op` on `die` in booking order; returns its end.
    #[inline]
    fn book_die(&mut self, ready_ns: Ns, die: u32, duration_ns: Ns, op: DieOp) -> Ns {
        match self.scheduled.as_mut() {
            Some(s) => s.queues[die as usize].book(ready_ns, duration_ns, op).1,
            None => self.dies[die as usize].reserve(ready_ns, duration_ns).1,
        }
    }

    /// Tells the array that no request will be ready before `now_ns` (devices call
    /// it as each host command arrives), so past channel bookings can be dropped.
    pub fn advance(&mut self, now_ns: Ns) {
        for c in &mut self.channels {
            c.forget_before(now_ns);
        }
        if let Some(s) = self.scheduled.as_mut() {
            for q in &mut s.queues {
                q.forget_before(now_ns);
            }
        }
    }

    /// Time the die is next free.
    #[inline]
    pub fn die_free_at_ns(&self, die: u32) -> Ns {
        match self.scheduled.as_ref() {
            Some(s) => s.queues[die as usize].free_at_ns(),
            None => self.dies[die as usize].free_at_ns(),
        }
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
        let sensed = self.book_die(ready_ns, die, read_ns, DieOp::Read);
        let (_, out) =
            self.channels[ch].reserve(sensed, transfer_ns(bytes, self.timings.channel_bytes_per_s));
        match self.scheduled.as_mut() {
            Some(s) => s.queues[die as usize].hold_last_until(out),
            None => self.dies[die as usize].hold_until(out),
        }
        out
    }

    /// A host read: as [`read_with`](Self::read_with), but with read-first
    /// scheduling it goes before programs and erases not yet started on the die
    /// and may suspend the one in progress. Its die and channel waits are added
    /// to [`host_read_waits`](Self::host_read_waits).
    #[inline]
    pub fn host_read_with(&mut self, ready_ns: Ns, die: u32, bytes: u64, read_ns: Ns) -> Ns {
        let xfer_ns = transfer_ns(bytes, self.timings.channel_bytes_per_s);
        let ch = self.geometry.channel_of_die(die) as usize;
        let (sense_start, out) = match self.scheduled.as_mut() {
            None => {
                let (start, sensed) = self.dies[die as usize].reserve(ready_ns, read_ns);
                let (_, out) = self.channels[ch].reserve(sensed, xfer_ns);
                self.dies[die as usize].hold_until(out);
                (start, out)
            }
            Some(s) => {
                let q = &mut s.queues[die as usize];
                let plan = q.plan_read(ready_ns, &s.params);
                let (_, out) = self.channels[ch].reserve(plan.start_ns + read_ns, xfer_ns);
                q.commit_read(plan, out, &s.params, &mut s.counters);
                (plan.start_ns, out)
            }
        };
        let w = &mut self.host_read_waits;
        w.reads += 1;
        w.die_wait_ns += sense_start - ready_ns;
        w.channel_wait_ns += out - (sense_start + read_ns + xfer_ns);
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
        let xfer_ns = transfer_ns(bytes, self.timings.channel_bytes_per_s);
        let send_ns = match self.just_in_time_transfers {
            true => ready_ns.max(self.die_free_at_ns(die).saturating_sub(xfer_ns)),
            false => ready_ns,
        };
        let (_, loaded) = self.channels[ch].reserve(send_ns, xfer_ns);
        self.book_die(loaded, die, program_ns, DieOp::Program)
    }

    /// Erases one block (all planes when multi-plane) on `die`.
    #[inline]
    pub fn erase(&mut self, ready_ns: Ns, die: u32) -> Ns {
        self.book_die(ready_ns, die, self.timings.erase_ns, DieOp::Erase)
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
            die_busy_fraction: match self.scheduled.as_ref() {
                Some(s) => mean(s.queues.iter().map(|q| q.busy_ns()).sum(), s.queues.len()),
                None => mean(self.dies.iter().map(|t| t.busy_ns()).sum(), self.dies.len()),
            },
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
