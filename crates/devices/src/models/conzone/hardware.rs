//! The storage complex of ConZone (§3.1, §3.2 "Heterogeneous Media and Extended
//! Timing Model", §4.2): channels × chips, a FIFO command queue per chip, SLC and
//! regular (TLC/QLC) cell latencies (Table 2), the host link, and the device's
//! queue-depth limit. Timing follows NVMeVirt/ConZone: each parallel unit keeps
//! the time it is next free; a read senses on the chip then moves data over the
//! channel; a program moves data over the channel then programs on the chip.
//! Each chip's queue ([`ChipQueue`]) is FIFO, or lets other commands preempt
//! queued migration commands when `flash.preempt_migration` is set (§4.2; the
//! reference's default).

use super::chip_queue::{ChipQueue, OpKind};
use super::config::{Geometry, LOGICAL_PAGE_BYTES};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_engine::{transfer_ns, GapTimeline, Ns};

pub use super::chip_queue::OpKind as Issuer;

/// Which cells an operation touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cells {
    Slc,
    Regular,
}

/// Counters of flash operations, by cell type.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpCounts {
    pub slc_read_pages: u64,
    pub regular_read_pages: u64,
    pub slc_program_pages: u64,
    pub regular_program_pages: u64,
    pub slc_erases: u64,
    pub regular_erases: u64,
    pub map_fetches: u64,
}

/// Chips, channels, host link and the queue-depth limit.
#[derive(Debug)]
pub struct Hardware {
    chips: Vec<ChipQueue>,
    channels: Vec<GapTimeline>,
    /// The host link; a gap timeline, so a transfer ready earlier is not queued
    /// behind one booked further ahead (a held-back write, say).
    link: GapTimeline,
    in_flight: BinaryHeap<Reverse<Ns>>,
    g: Geometry,
    pub ops: OpCounts,
    /// Who issues the commands booked now (firmware sets Gc for SLC GC and
    /// Migration for SLC→regular migration, §4.2).
    pub issuer: OpKind,
    /// The last migration command booked so far ends here (reference
    /// `migrating_etime`, `ssd.c:719-721`).
    migration_end_ns: Ns,
}

impl Hardware {
    pub fn new(g: &Geometry) -> Self {
        Self {
            chips: vec![ChipQueue::default(); g.chips as usize],
            channels: vec![GapTimeline::new(); g.channels as usize],
            link: GapTimeline::new(),
            in_flight: BinaryHeap::new(),
            g: g.clone(),
            ops: OpCounts::default(),
            issuer: OpKind::User,
            migration_end_ns: 0,
        }
    }

    /// When the migrations booked so far end (0 if none), including the delay
    /// preemption has added to queued migration commands.
    pub fn migration_end_ns(&self) -> Ns {
        let queued = self.chips.iter().map(|c| c.migration_end_ns()).max();
        self.migration_end_ns.max(queued.unwrap_or(0))
    }

    /// When every chip has finished every booked command (reference
    /// `ssd_next_idle_time`, `ssd.c:952-975`, which a host flush waits for).
    pub fn idle_at_ns(&self) -> Ns {
        self.chips.iter().map(|c| c.free_ns()).max().unwrap_or(0)
    }

    #[inline]
    fn note_end(&mut self, end: Ns) -> Ns {
        if self.issuer == OpKind::Migration {
            self.migration_end_ns = self.migration_end_ns.max(end);
        }
        end
    }

    #[inline]
    fn channel_of(&self, chip: u32) -> usize {
        (chip % self.g.channels) as usize
    }

    /// Drops channel and chip bookings before `now_ns` (no request is ready
    /// earlier).
    pub fn advance(&mut self, now_ns: Ns) {
        for c in &mut self.channels {
            c.forget_before(now_ns);
        }
        for c in &mut self.chips {
            c.forget_before(now_ns);
        }
        self.link.forget_before(now_ns);
    }

    /// Time a command arriving at `now_ns` starts: at most `queue_depth` commands
    /// are outstanding in the device (§6.1, QD 32); later ones wait for a slot.
    pub fn admit(&mut self, now_ns: Ns) -> Ns {
        while let Some(&Reverse(t)) = self.in_flight.peek() {
            if t > now_ns {
                break;
            }
            self.in_flight.pop();
        }
        if self.in_flight.len() < self.g.queue_depth as usize {
            return now_ns;
        }
        let Reverse(t) = self.in_flight.pop().expect("queue is full so not empty");
        t.max(now_ns)
    }

    /// Records that an admitted command completes at `done_ns`.
    pub fn complete(&mut self, done_ns: Ns) {
        self.in_flight.push(Reverse(done_ns));
    }

    /// Reads `pages` logical pages (within one flash page) from `chip`; returns when
    /// the data is off the channel.
    pub fn read(&mut self, ready_ns: Ns, chip: u32, pages: u64, cells: Cells) -> Ns {
        let t_r = match cells {
            Cells::Slc => {
                self.ops.slc_read_pages += pages;
                self.g.read_slc_ns
            }
            Cells::Regular => {
                self.ops.regular_read_pages += pages;
                self.g.read_regular_ns
            }
        };
        self.read_raw(ready_ns, chip, pages * LOGICAL_PAGE_BYTES, t_r)
    }

    fn read_raw(&mut self, ready_ns: Ns, chip: u32, bytes: u64, t_r: Ns) -> Ns {
        let ch = self.channel_of(chip);
        let (kind, preempt) = (self.issuer, self.g.preempt_migration);
        let (_, sensed) = self.chips[chip as usize].reserve(ready_ns, t_r, kind, preempt);
        let (_, out) =
            self.channels[ch].reserve(sensed, transfer_ns(bytes, self.g.channel_bytes_per_s));
        self.chips[chip as usize].extend(sensed, out, kind, preempt);
        self.note_end(out)
    }

    /// Fetches one 4 KiB mapping-table page from `chip` (the mapping table is kept
    /// in SLC: reference code reads MAP_READ_IO at SLC latency).
    pub fn fetch_map(&mut self, ready_ns: Ns, chip: u32) -> Ns {
        self.ops.map_fetches += 1;
        self.read_raw(ready_ns, chip, LOGICAL_PAGE_BYTES, self.g.read_slc_ns)
    }

    /// Programs `pages` logical pages on `chip` (one program operation).
    pub fn program(&mut self, ready_ns: Ns, chip: u32, pages: u64, cells: Cells) -> Ns {
        let t_prog = match cells {
            Cells::Slc => {
                self.ops.slc_program_pages += pages;
                self.g.program_slc_ns
            }
            Cells::Regular => {
                self.ops.regular_program_pages += pages;
                self.g.program_regular_ns
            }
        };
        let ch = self.channel_of(chip);
        let (_, loaded) = self.channels[ch].reserve(
            ready_ns,
            transfer_ns(pages * LOGICAL_PAGE_BYTES, self.g.channel_bytes_per_s),
        );
        let (kind, preempt) = (self.issuer, self.g.preempt_migration);
        let end = self.chips[chip as usize]
            .reserve(loaded, t_prog, kind, preempt)
            .1;
        self.note_end(end)
    }

    /// Erases one block on `chip`.
    pub fn erase(&mut self, ready_ns: Ns, chip: u32, cells: Cells) -> Ns {
        match cells {
            Cells::Slc => self.ops.slc_erases += 1,
            Cells::Regular => self.ops.regular_erases += 1,
        }
        let (kind, preempt) = (self.issuer, self.g.preempt_migration);
        let end = self.chips[chip as usize]
            .reserve(ready_ns, self.g.erase_ns, kind, preempt)
            .1;
        self.note_end(end)
    }

    /// Moves `bytes` over the host link from `ready_ns`.
    pub fn host_transfer(&mut self, ready_ns: Ns, bytes: u64) -> Ns {
        self.link
            .reserve(ready_ns, transfer_ns(bytes, self.g.link_bytes_per_s))
            .1
    }

    /// Busy fractions (chip, channel, link) over `elapsed_ns`.
    pub fn utilisation(&self, elapsed_ns: Ns) -> (f64, f64, f64) {
        if elapsed_ns == 0 {
            return (0.0, 0.0, 0.0);
        }
        let e = elapsed_ns as f64;
        let chips: Ns = self.chips.iter().map(|c| c.busy_ns()).sum();
        let chans: Ns = self.channels.iter().map(|c| c.busy_ns()).sum();
        (
            chips as f64 / (e * self.chips.len() as f64),
            chans as f64 / (e * self.channels.len() as f64),
            self.link.busy_ns() as f64 / e,
        )
    }
}

/// Page reads of one host read, merged while consecutive pages sit in the same
/// flash page of the same chip and cells and are ready at the same time (one sense
/// serves them all, as ConZone's reference groups a request's pages per flash
/// page); any other page starts a new flash read.
#[derive(Debug, Default)]
pub struct FlashReadBatch {
    pending: Option<PendingRead>,
    done_ns: Ns,
}

#[derive(Debug, Clone, Copy)]
struct PendingRead {
    chip: u32,
    flash_page: u64,
    cells: Cells,
    pages: u64,
    ready_ns: Ns,
}

impl FlashReadBatch {
    /// Starts a batch whose completion is no earlier than `ready_ns`.
    pub fn new(ready_ns: Ns) -> Self {
        Self {
            pending: None,
            done_ns: ready_ns,
        }
    }

    /// Adds one logical page at `flash_page` of `chip`, ready to be read at `ready_ns`.
    pub fn add(
        &mut self,
        hw: &mut Hardware,
        chip: u32,
        flash_page: u64,
        cells: Cells,
        ready_ns: Ns,
    ) {
        if let Some(p) = self.pending.as_mut() {
            if p.chip == chip
                && p.flash_page == flash_page
                && p.cells == cells
                && p.ready_ns == ready_ns
            {
                p.pages += 1;
                return;
            }
        }
        self.issue(hw);
        self.pending = Some(PendingRead {
            chip,
            flash_page,
            cells,
            pages: 1,
            ready_ns,
        });
    }

    /// Issues what is pending; returns when the last flash read of the batch ends.
    pub fn finish(mut self, hw: &mut Hardware) -> Ns {
        self.issue(hw);
        self.done_ns
    }

    fn issue(&mut self, hw: &mut Hardware) {
        if let Some(p) = self.pending.take() {
            self.done_ns = self
                .done_ns
                .max(hw.read(p.ready_ns, p.chip, p.pages, p.cells));
        }
    }
}
