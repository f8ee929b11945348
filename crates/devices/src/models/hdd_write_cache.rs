//! The DRAM write buffer of a conventional disk: BCW/MIOS §3's buffered writes
//! (fast / mid / slow, Fig. 1, 3, 4), as a mechanism on top of [`HddCore`].
//!
//! Only part of a drive's DRAM buffers writes (§3.1: 16 MB on the WD 10 TB and the
//! Seagate 8 TB, 4 MB on the WD 8 TB and the Seagate 4 TB, 2 MB on the WD 4 TB).
//! The model:
//!
//! - **Acceptance.** A write is cut into segments of at most [`SEGMENT_BYTES`].
//!   Each segment needs that much room in the buffer; once it has room, it moves
//!   over the host interface (`interface_mb_s`). The host sees the completion when
//!   the last segment is in the buffer, after the controller's per-command
//!   overhead (`controller.command_us`), which overlaps any wait for room.
//!   Writes are accepted in arrival order (one interface).
//! - **Flushing.** Nothing goes to the platters while the buffer has room (§4.2:
//!   "when ADW does not reach W_f, the physical disk operation is not yet
//!   triggered"). The first write that finds the buffer full starts a flush
//!   batch: the oldest buffered data, up to `flush_batch_mib`, in LBA order. A
//!   batch costs `flush_setup_ms` of firmware time and is then written through the
//!   disk mechanics, one media access per segment, so it occupies the actuator
//!   (reads queue behind it) and positions, rotates and streams as the mechanics
//!   say. A segment's room is released when its data is on the platter.
//! - **Missed revolution.** A batch that continues exactly where the platter last
//!   wrote has missed the next sector (the firmware took longer than a sector to
//!   start it), so it waits for the sector to come round again: one revolution.
//!   The mechanics would treat a restart within a revolution as an unbroken
//!   stream (their stand-in for a write cache, which this model now is), so the
//!   batch ends the mechanics' stream first (`DiskMechanics::end_stream`): the
//!   write then waits, as rotational wait, for its sector to come round. A batch
//!   that starts later than that (after an idle spell, or behind a read)
//!   positions through the mechanics as usual.
//! - **The staircase emerges.** After a sync the buffer is empty: writes are fast
//!   (F: command overhead + interface transfer) until `buffer_mib` is used. The
//!   next write finds no room and waits for a batch's setup, positioning and its
//!   own size on the platter (S). While the batch drains, each write waits for
//!   its size to be written, i.e. writes are accepted at the media rate (M). When
//!   the batch is done the buffer is full again and the next batch's start gives
//!   the next S: F…F S M…M S M…M, with `flush_batch_mib` (W_m) per S+M cycle.
//!   Mid writes need a host that writes faster than the platter drains (at QD1
//!   on the WD 10 TB: 16 KiB writes and up); slower streams see F…F S F…F S.
//! - **Host side slowed while the media writes** (the Mid state of small
//!   writes). A drive's buffer memory and controller serve two ports: the host
//!   interface and the disk formatter that streams a flush batch to the
//!   platters. While a batch is on the media the formatter must be fed on time
//!   (a late sector costs a revolution), so the buffer manager gives it its
//!   time slices first and the host side gets the rest (time-sliced buffer
//!   arbitration among host interface, disk formatter and microprocessor, as in
//!   US patent 6,530,000, "Methods and systems for arbitrating access to a disk
//!   controller buffer memory by allocating various amounts of times to
//!   different accessing units"). So while a batch is under way (from its start
//!   to its last media write) a host command's overhead and its transfer into
//!   the buffer take `1 / host_share_while_flushing` as long. That is why small
//!   writes have a Mid state although a QD1 stream of them is slower than the
//!   platter and never waits for room (BCW §1: 4 KB F/M 35/55 µs; §3.1: 16 KB
//!   66/135 µs), and why a Mid stage lasts as long as a batch's flush (§1: 4 KB
//!   mid writes "for about 40 ms", 8 MB at ~210 MB/s): when the batch is done
//!   the buffer has room again, so a stream slower than the platter continues
//!   at F latency until the buffer is full and the next batch gives the next S
//!   (S M…M F…F S, W_m bytes per cycle as before). A stream faster than the
//!   platter (64 KiB at QD1) is throttled by the room the batch frees, as
//!   described above, and the slowed host side does not show.
//!   `1.0` (the default) turns the slow-down off.
//! - **Usable room varies** (`room_jitter_kib`, 0 = off). The room the drive
//!   gives to host writes is not always the same: each time a batch is started
//!   for room, and after each sync, it is drawn afresh, uniform in
//!   `[buffer − jitter, buffer]` (a seeded stream, `jitter_seed`: runs stay
//!   byte-identical). A write that finds the drawn room used up starts a batch
//!   (or waits for one under way) as it does at a full buffer. So a Fast stage
//!   holds between `buffer − jitter` and `buffer` bytes and a Mid stage
//!   `batch ± jitter`, and a host that counts bytes (BCW's ADW against a
//!   profiled W_f, W_m) sometimes meets the S one or more writes before it
//!   expects it. The paper says its drive does this — "slow writes may be
//!   triggered in advance by user requests or PF writes" (§4.2) — and its §4.1
//!   test of the predictor (100 GB of 128 KB writes, a sync per GB) finds 0.5 %
//!   of F and 1.9 % of M predictions wrong, which a drive whose stages are fixed
//!   in bytes cannot give (100 / 100 %). What the firmware does is not published
//!   (§3.1: the DRAM is shared with read-ahead, ECC, remapping and prefetch
//!   buffers; "generally proprietary"), so the spread is a draw whose size is
//!   calibrated on §4.1's F figure (the profile says how); the §4.1 accuracies
//!   are then a calibration, not evidence (docs/mios.md, "Eighth session:
//!   the drive's usable room varies").
//!   A spread that only moved the *trigger* (a batch started before the buffer
//!   is full, the room unchanged) could only delay the S, never bring it early.
//! - **Idle drain.** When no write has completed for `idle_flush_ms`, the drive
//!   flushes everything in the background, batch after batch; a new write stops
//!   the drain after the batch in progress (§3.1: "after an idle period, the HDD
//!   buffer may become empty implicitly").
//! - **Sync** (`Command::Flush`): every buffered byte is flushed in batches; the
//!   command completes when the last one is on the platter. Its cost emerges from
//!   what is buffered: sequential data streams at the media rate (16 MiB ≈ 80 ms),
//!   scattered blocks pay a seek and rotational wait each (tests/hdd_write_cache.rs).
//!   FLUSH CACHE (EXT) is a non-queued ATA command (ACS-3 §7.10, §7.11: the device
//!   reports completion only when the cache is on the media; a non-queued command
//!   cannot overlap others): commands that arrive during a sync wait for it.
//! - **Reads** of a range held entirely in the buffer are served from it
//!   (command overhead + interface transfer); any other read goes to the
//!   mechanics, behind flushes already under way.

use super::hdd::HddCore;
use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use std::collections::VecDeque;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{ms_to_ns, transfer_ns, Ns, RngStream, RngStreams, KIB, MIB};

/// Largest unit the buffer accepts and flushes at once (one media access per
/// segment). Assumption: a typical DRAM-buffer segment; large host writes are
/// accepted piecewise as room frees, as a SATA drive paces DMA data.
pub const SEGMENT_BYTES: u64 = 64 * KIB;

/// `[cache]` profile section of a conventional disk.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSection {
    /// `false`: writes go straight to the media (write-through).
    pub enabled: bool,
    /// DRAM usable for buffering writes (MiB).
    pub buffer_mib: f64,
    /// Data written to the platters per flush batch (MiB).
    pub flush_batch_mib: f64,
    /// Firmware time to start a batch (ms).
    pub flush_setup_ms: f64,
    /// Host interface rate into the buffer (MB/s, 10^6 bytes).
    pub interface_mb_s: f64,
    /// Time without writes after which the buffer drains in the background (ms).
    pub idle_flush_ms: f64,
    /// Share of the host side's speed (command overhead and interface transfer)
    /// left while a flush batch is on the media (module docs); 1.0 when absent.
    #[serde(default = "full_host_share")]
    pub host_share_while_flushing: f64,
    /// Spread of the room writes may fill (KiB below `buffer_mib`; module docs,
    /// "Usable room varies"); 0 when absent (always the whole buffer).
    #[serde(default)]
    pub room_jitter_kib: f64,
    /// Seed of the room draws.
    #[serde(default)]
    pub jitter_seed: u64,
    /// Which events draw a new room (ablation; `both` when absent).
    #[serde(default)]
    pub room_jitter_at: RoomDrawAt,
}

/// When the usable room is drawn afresh (module docs, "Usable room varies").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoomDrawAt {
    /// At every sync and every batch started for room.
    #[default]
    Both,
    /// Only at syncs: Fast stages vary, Mid stages hold `batch` each.
    Sync,
    /// Only at batches started for room: the Fast stage after a sync is the
    /// whole buffer, Mid stages vary.
    Batch,
}

fn full_host_share() -> f64 {
    1.0
}

/// Validated cache parameters in base units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteCacheParams {
    pub buffer_bytes: u64,
    pub batch_bytes: u64,
    pub setup_ns: Ns,
    pub interface_bytes_per_s: u64,
    pub idle_flush_ns: Ns,
    /// [`CacheSection::host_share_while_flushing`] in parts per million.
    pub host_share_ppm: u32,
    /// [`CacheSection::room_jitter_kib`] in bytes (whole blocks).
    pub room_jitter_bytes: u64,
    pub jitter_seed: u64,
    pub room_draw_at: RoomDrawAt,
}

impl CacheSection {
    /// Range-checks the section; `None` when the cache is disabled (the other
    /// values are checked all the same, so a disabled section stays valid when
    /// switched on).
    pub fn validate(
        &self,
        v: &Validator<'_>,
        block_bytes: u32,
    ) -> Result<Option<WriteCacheParams>, ProfileError> {
        for (field, value) in [
            ("cache.buffer_mib", self.buffer_mib),
            ("cache.flush_batch_mib", self.flush_batch_mib),
            ("cache.flush_setup_ms", self.flush_setup_ms),
            ("cache.interface_mb_s", self.interface_mb_s),
            ("cache.idle_flush_ms", self.idle_flush_ms),
            (
                "cache.host_share_while_flushing",
                self.host_share_while_flushing,
            ),
            ("cache.room_jitter_kib", self.room_jitter_kib),
        ] {
            // NaN passes every comparison; reject it by name first.
            v.check(field, value, value.is_finite(), "a finite number")?;
        }
        let min_mib = SEGMENT_BYTES as f64 / MIB as f64;
        // Up to 1 GiB: more DRAM than any disk carries.
        v.range("cache.buffer_mib", self.buffer_mib, min_mib, 1024.0)?;
        v.range(
            "cache.flush_batch_mib",
            self.flush_batch_mib,
            min_mib,
            self.buffer_mib,
        )?;
        v.range("cache.flush_setup_ms", self.flush_setup_ms, 0.0, 100.0)?;
        // Up to a 24 Gb/s SAS link.
        v.range("cache.interface_mb_s", self.interface_mb_s, 1.0, 2_400.0)?;
        v.range("cache.idle_flush_ms", self.idle_flush_ms, 0.0, 600_000.0)?;
        // Above 0 (the host side must move at all); 1.0: no slow-down.
        v.range(
            "cache.host_share_while_flushing",
            self.host_share_while_flushing,
            0.01,
            1.0,
        )?;
        // The room stays at least one segment.
        let max_jitter_kib = (self.buffer_mib * 1024.0 - (SEGMENT_BYTES / KIB) as f64).max(0.0);
        v.range(
            "cache.room_jitter_kib",
            self.room_jitter_kib,
            0.0,
            max_jitter_kib,
        )?;
        if !self.enabled {
            return Ok(None);
        }
        let bb = block_bytes as u64;
        let bytes = |mib: f64| ((mib * MIB as f64).round() as u64 / bb * bb).max(SEGMENT_BYTES);
        Ok(Some(WriteCacheParams {
            buffer_bytes: bytes(self.buffer_mib),
            batch_bytes: bytes(self.flush_batch_mib),
            setup_ns: ms_to_ns(self.flush_setup_ms),
            interface_bytes_per_s: (self.interface_mb_s * 1e6).round() as u64,
            idle_flush_ns: ms_to_ns(self.idle_flush_ms),
            host_share_ppm: (self.host_share_while_flushing * 1e6).round() as u32,
            room_jitter_bytes: (self.room_jitter_kib * KIB as f64).round() as u64 / bb * bb,
            jitter_seed: self.jitter_seed,
            room_draw_at: self.room_jitter_at,
        }))
    }
}

/// Buffered data not yet handed to the mechanics.
#[derive(Debug, Clone, Copy)]
struct Dirty {
    lba: u64,
    blocks: u32,
    bytes: u64,
    /// When the data is entirely in the buffer (end of its interface transfer).
    ready_ns: Ns,
}

/// Data of a batch: in the buffer until `released_ns`, when it is on the platter.
#[derive(Debug, Clone, Copy)]
struct Flushing {
    lba: u64,
    blocks: u32,
    bytes: u64,
    released_ns: Ns,
}

/// Where the last media write of a flush ended, to detect a batch that continues
/// it: (end offset in bytes, when its last byte passed the head, the mechanics'
/// access count right after it).
#[derive(Debug, Clone, Copy)]
struct StreamEnd {
    end_offset: u64,
    media_done_ns: Ns,
    accesses: u64,
}

/// How a write got its room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum WriteKind {
    /// Room on arrival.
    Fast,
    /// Waited for room freed by a batch already under way.
    Throttled,
    /// Waited for a new batch to start.
    Blocked,
}

/// What the cache did (reported in [`crate::DeviceStats::counters`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheCounters {
    /// Writes acknowledged from the buffer.
    pub buffered_writes: u64,
    /// … of which found room at once.
    pub fast_writes: u64,
    /// … of which waited for room from a batch under way.
    pub throttled_writes: u64,
    /// … of which waited for a new batch to start.
    pub blocked_writes: u64,
    pub flush_batches: u64,
    pub flushed_bytes: u64,
    /// Flush commands that had to wait for buffered data to reach the platters.
    pub syncs: u64,
    /// Bytes the syncs found in the buffer (buffered or in a batch not yet on the
    /// platters): what they had to write before completing.
    pub sync_bytes: u64,
    pub idle_drains: u64,
    pub read_hits: u64,
    pub read_hit_bytes: u64,
    /// Batches that had to wait for their first sector to come round.
    pub missed_revolutions: u64,
    /// Sum of the drawn reserves (bytes of the buffer withheld from writes),
    /// one per draw; `room_draws` of them.
    pub room_reserve_bytes: u64,
    pub room_draws: u64,
}

/// A disk's write buffer. Drive it with non-decreasing `now_ns`.
#[derive(Debug, Clone)]
pub struct HddWriteCache {
    p: WriteCacheParams,
    block_bytes: u64,
    dirty: VecDeque<Dirty>,
    dirty_bytes: u64,
    /// In release order (release times never decrease).
    flushing: VecDeque<Flushing>,
    flushing_bytes: u64,
    /// When the last scheduled batch is on the platter.
    flush_busy_until_ns: Ns,
    /// Start of the run of back-to-back batches that ends at
    /// `flush_busy_until_ns`: the media is busy flushing in between.
    flush_busy_from_ns: Ns,
    /// The interface is busy moving write data until then.
    interface_free_ns: Ns,
    /// The last sync completes then; no command is served before (non-queued).
    sync_done_ns: Ns,
    last_write_done_ns: Ns,
    /// An idle drain is under way.
    draining: bool,
    stream_end: Option<StreamEnd>,
    /// Writes may fill `buffer_bytes − reserve_bytes` (module docs, "Usable
    /// room varies").
    reserve_bytes: u64,
    room_rng: RngStream,
    counters: CacheCounters,
    scratch: Vec<Dirty>,
    spans: Vec<(u64, u64)>,
}

impl HddWriteCache {
    pub fn new(p: WriteCacheParams, block_bytes: u32) -> Self {
        assert!(
            p.buffer_bytes >= SEGMENT_BYTES + p.room_jitter_bytes
                && p.batch_bytes >= SEGMENT_BYTES
                && p.interface_bytes_per_s > 0
                && p.host_share_ppm > 0
                && p.host_share_ppm <= 1_000_000
        );
        let mut cache = Self {
            p,
            block_bytes: block_bytes as u64,
            dirty: VecDeque::new(),
            dirty_bytes: 0,
            flushing: VecDeque::new(),
            flushing_bytes: 0,
            flush_busy_until_ns: 0,
            flush_busy_from_ns: 0,
            interface_free_ns: 0,
            sync_done_ns: 0,
            last_write_done_ns: 0,
            draining: false,
            stream_end: None,
            reserve_bytes: 0,
            room_rng: RngStreams::new(p.jitter_seed).stream("hdd.cache.room"),
            counters: CacheCounters::default(),
            scratch: Vec::new(),
            spans: Vec::new(),
        };
        if cache.p.room_draw_at != RoomDrawAt::Batch {
            cache.draw_room_level();
        }
        cache
    }

    /// Draws the room writes may fill until the next draw (module docs).
    fn draw_room_level(&mut self) {
        let j = self.p.room_jitter_bytes;
        if j == 0 {
            return;
        }
        let steps = j / self.block_bytes + 1;
        self.reserve_bytes = uniform_below(&mut self.room_rng, steps) * self.block_bytes;
        self.counters.room_reserve_bytes += self.reserve_bytes;
        self.counters.room_draws += 1;
    }

    /// Bytes the buffer holds before the next batch is due.
    fn usable_bytes(&self) -> u64 {
        self.p.buffer_bytes - self.reserve_bytes
    }

    pub fn params(&self) -> &WriteCacheParams {
        &self.p
    }

    pub fn counters(&self) -> CacheCounters {
        self.counters
    }

    /// Bytes written by the host that no flush batch has taken yet: only in the
    /// buffer (batches under way already count as platter writes).
    pub fn dirty_bytes(&self) -> u64 {
        self.dirty_bytes
    }

    /// Bytes in the buffer at `t_ns` (not before the last submitted command; as
    /// far as that command brought the cache up to date).
    pub fn occupancy_bytes(&self, t_ns: Ns) -> u64 {
        self.dirty_bytes
            + self
                .flushing
                .iter()
                .filter(|f| f.released_ns > t_ns)
                .map(|f| f.bytes)
                .sum::<u64>()
    }

    /// A host write of `blocks` at `lba` arriving at `now_ns`; returns when the
    /// host sees it complete.
    pub fn write(&mut self, core: &mut HddCore, now_ns: Ns, lba: u64, blocks: u32) -> Ns {
        self.advance(core, now_ns);
        // Host activity ends an idle drain (the batch under way completes).
        self.draining = false;
        let seg_blocks = (SEGMENT_BYTES / self.block_bytes) as u32;
        // A write arriving during a sync is taken when the sync completes.
        let start_ns = self.after_sync_ns(now_ns);
        let mut cursor =
            (start_ns + self.host_side_ns(core.command_ns, start_ns)).max(self.interface_free_ns);
        let mut kind = WriteKind::Fast;
        let mut done_blocks = 0;
        while done_blocks < blocks {
            let n = seg_blocks.min(blocks - done_blocks);
            let bytes = n as u64 * self.block_bytes;
            let (room_ns, new_batch) = self.room_at(core, bytes, cursor);
            if room_ns > cursor {
                kind = kind.max(if new_batch {
                    WriteKind::Blocked
                } else {
                    WriteKind::Throttled
                });
            }
            cursor = room_ns + self.host_transfer_ns(bytes, room_ns);
            self.dirty.push_back(Dirty {
                lba: lba + done_blocks as u64,
                blocks: n,
                bytes,
                ready_ns: cursor,
            });
            self.dirty_bytes += bytes;
            done_blocks += n;
        }
        self.interface_free_ns = cursor;
        self.last_write_done_ns = cursor;
        let c = &mut self.counters;
        c.buffered_writes += 1;
        match kind {
            WriteKind::Fast => c.fast_writes += 1,
            WriteKind::Throttled => c.throttled_writes += 1,
            WriteKind::Blocked => c.blocked_writes += 1,
        }
        debug_assert!(self.dirty_bytes <= self.p.buffer_bytes);
        cursor
    }

    /// Flush (sync) arriving at `now_ns`: writes every buffered byte to the
    /// platters; returns when the last one is there.
    pub fn sync(&mut self, core: &mut HddCore, now_ns: Ns) -> Ns {
        self.advance(core, now_ns);
        self.counters.sync_bytes += self.occupancy_bytes(now_ns);
        // Non-queued: it starts once write data already accepted is in the buffer.
        let t = now_ns.max(self.interface_free_ns).max(self.sync_done_ns) + core.command_ns;
        while let Some(front) = self.dirty.front() {
            let start = t.max(self.flush_busy_until_ns).max(front.ready_ns);
            self.schedule_batch(core, start);
        }
        let done = t.max(self.flush_busy_until_ns);
        if done > t {
            self.counters.syncs += 1;
        }
        // Nothing else is served until the flush completes (module docs, "Sync").
        self.sync_done_ns = done;
        // A new buffered-write sequence: its Fast stage gets a new room.
        match self.p.room_draw_at {
            RoomDrawAt::Both | RoomDrawAt::Sync => self.draw_room_level(),
            RoomDrawAt::Batch => self.reserve_bytes = 0,
        }
        done
    }

    /// When a command arriving at `now_ns` can start: after a sync under way.
    pub fn after_sync_ns(&self, now_ns: Ns) -> Ns {
        now_ns.max(self.sync_done_ns)
    }

    /// A read arriving at `now_ns` (brings the cache up to then first):
    /// `Some(completion)` when the whole range is in the buffer, `None` when it
    /// must go to the media.
    pub fn read_hit(
        &mut self,
        core: &mut HddCore,
        now_ns: Ns,
        lba: u64,
        blocks: u32,
    ) -> Option<Ns> {
        self.advance(core, now_ns);
        // A read arriving during a sync waits for it (non-queued flush).
        let now_ns = self.after_sync_ns(now_ns);
        if !self.covers(now_ns, lba, blocks) {
            return None;
        }
        let bytes = blocks as u64 * self.block_bytes;
        self.counters.read_hits += 1;
        self.counters.read_hit_bytes += bytes;
        Some(
            now_ns
                + self.host_side_ns(core.command_ns, now_ns)
                + self.host_transfer_ns(bytes, now_ns),
        )
    }

    /// Whether a flush batch is on the media at `t_ns` (from its start, setup
    /// included, to its last media write).
    fn media_busy_at(&self, t_ns: Ns) -> bool {
        self.flush_busy_from_ns <= t_ns && t_ns < self.flush_busy_until_ns
    }

    /// Host-side work of `ns` at full speed, starting at `t_ns`: longer while
    /// the media is flushing (module docs, "Host side slowed").
    fn host_side_ns(&self, ns: Ns, t_ns: Ns) -> Ns {
        if self.p.host_share_ppm >= 1_000_000 || !self.media_busy_at(t_ns) {
            return ns;
        }
        ((ns as u128 * 1_000_000).div_ceil(self.p.host_share_ppm as u128)) as Ns
    }

    /// Interface transfer of `bytes` into (or out of) the buffer starting at `t_ns`.
    fn host_transfer_ns(&self, bytes: u64, t_ns: Ns) -> Ns {
        self.host_side_ns(transfer_ns(bytes, self.p.interface_bytes_per_s), t_ns)
    }

    /// Brings the cache up to `now_ns`: forgets data that reached the platters
    /// and starts the background batches (idle drain) due by then.
    pub fn advance(&mut self, core: &mut HddCore, now_ns: Ns) {
        while let Some(front) = self.dirty.front() {
            let start = if self.draining {
                self.flush_busy_until_ns.max(front.ready_ns)
            } else {
                (self.last_write_done_ns + self.p.idle_flush_ns)
                    .max(self.flush_busy_until_ns)
                    .max(front.ready_ns)
            };
            if start > now_ns {
                break;
            }
            if !self.draining {
                self.draining = true;
                self.counters.idle_drains += 1;
            }
            self.schedule_batch(core, start);
        }
        if self.dirty.is_empty() {
            self.draining = false;
        }
        while let Some(f) = self.flushing.front() {
            if f.released_ns > now_ns {
                break;
            }
            self.flushing_bytes -= f.bytes;
            self.flushing.pop_front();
        }
    }

    /// When `need` bytes of room are free, looking from `from_ns` (≥ the last
    /// `advance`), starting batches as needed; also whether a batch was started.
    fn room_at(&mut self, core: &mut HddCore, need: u64, from_ns: Ns) -> (Ns, bool) {
        debug_assert!(need <= self.p.buffer_bytes);
        let mut started = false;
        loop {
            // Bytes still in the buffer at `from_ns`; `flushing` is in release order.
            let released_by_from: u64 = self
                .flushing
                .iter()
                .take_while(|f| f.released_ns <= from_ns)
                .map(|f| f.bytes)
                .sum();
            let occupied = self.dirty_bytes + self.flushing_bytes - released_by_from;
            let usable = self.usable_bytes();
            if occupied + need <= usable {
                return (from_ns, started);
            }
            let mut excess = occupied + need - usable;
            for f in self
                .flushing
                .iter()
                .skip_while(|f| f.released_ns <= from_ns)
            {
                if f.bytes >= excess {
                    return (f.released_ns, started);
                }
                excess -= f.bytes;
            }
            // What is under way does not free enough: start the next batch.
            let Some(front) = self.dirty.front() else {
                // Unreachable: the buffer holds more than `capacity − need`,
                // so either batches or buffered data account for it.
                debug_assert!(false, "write cache: no room and nothing to flush");
                return (from_ns.max(self.flush_busy_until_ns), started);
            };
            let start = from_ns.max(self.flush_busy_until_ns).max(front.ready_ns);
            self.schedule_batch(core, start);
            started = true;
            // The room until the next batch is drawn afresh.
            match self.p.room_draw_at {
                RoomDrawAt::Both | RoomDrawAt::Batch => self.draw_room_level(),
                RoomDrawAt::Sync => self.reserve_bytes = 0,
            }
        }
    }

    /// Starts a batch at `start_ns` (the flush engine is free and the oldest
    /// buffered segment is in the buffer by then): the oldest data up to the batch
    /// size, written in LBA order through the mechanics.
    fn schedule_batch(&mut self, core: &mut HddCore, start_ns: Ns) {
        let mut batch = std::mem::take(&mut self.scratch);
        batch.clear();
        let mut bytes = 0;
        while let Some(&d) = self.dirty.front() {
            let fits = batch.is_empty() || bytes + d.bytes <= self.p.batch_bytes;
            if d.ready_ns > start_ns || !fits {
                break;
            }
            batch.push(d);
            bytes += d.bytes;
            self.dirty.pop_front();
        }
        assert!(
            !batch.is_empty(),
            "write cache: a batch was started with nothing to write"
        );
        self.dirty_bytes -= bytes;
        // Stable: overlapping rewrites keep their order.
        batch.sort_by_key(|d| d.lba);
        if start_ns > self.flush_busy_until_ns {
            // The media was idle in between: a new busy run starts.
            self.flush_busy_from_ns = start_ns;
        }
        let ready = start_ns + self.p.setup_ns;
        let rotation = core.mech.geometry().rotation_ns();
        let bb = self.block_bytes;
        let mut last_done = self.flush_busy_until_ns;
        for (i, d) in batch.iter().enumerate() {
            let offset = d.lba * bb;
            if i == 0 {
                if let Some(s) = self.stream_end {
                    let continues = s.end_offset == offset
                        && s.accesses == core.mech.counters().accesses
                        && ready + core.command_ns <= s.media_done_ns + rotation;
                    if continues {
                        // Missed revolution: see the module docs.
                        core.mech.end_stream();
                        self.counters.missed_revolutions += 1;
                    }
                }
            }
            // `write_media` adds the controller's command overhead: the firmware's
            // cost per media command.
            let done = core.write_media(ready, d.lba, d.blocks);
            debug_assert!(done >= last_done);
            last_done = done;
            self.flushing.push_back(Flushing {
                lba: d.lba,
                blocks: d.blocks,
                bytes: d.bytes,
                released_ns: done,
            });
            self.flushing_bytes += d.bytes;
            self.stream_end = Some(StreamEnd {
                end_offset: offset + d.bytes,
                media_done_ns: done,
                accesses: core.mech.counters().accesses,
            });
        }
        self.flush_busy_until_ns = last_done;
        self.counters.flush_batches += 1;
        self.counters.flushed_bytes += bytes;
        self.scratch = batch;
    }

    /// Whether `[lba, lba + blocks)` is entirely in the buffer at `t_ns`.
    fn covers(&mut self, t_ns: Ns, lba: u64, blocks: u32) -> bool {
        if self.dirty.is_empty() && self.flushing.is_empty() {
            return false;
        }
        let (lo, hi) = (lba, lba + blocks as u64);
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        let held = self.dirty.iter().map(|d| (d.lba, d.blocks)).chain(
            self.flushing
                .iter()
                .filter(|f| f.released_ns > t_ns)
                .map(|f| (f.lba, f.blocks)),
        );
        for (s_lba, s_blocks) in held {
            let (s, e) = (s_lba, s_lba + s_blocks as u64);
            if s < hi && e > lo {
                spans.push((s.max(lo), e.min(hi)));
            }
        }
        spans.sort_unstable();
        let mut reached = lo;
        for &(s, e) in &spans {
            if s > reached {
                break;
            }
            reached = reached.max(e);
        }
        self.spans = spans;
        reached >= hi
    }

    /// Adds the cache's counters (prefixed `cache_`) and its occupancy at
    /// `elapsed_ns` to `counters` (as far as the last command brought the cache
    /// up to date: an idle drain due later starts at the next command).
    pub fn report(&self, elapsed_ns: Ns, counters: &mut std::collections::BTreeMap<String, u64>) {
        let c = &self.counters;
        for (name, value) in [
            ("cache_buffered_writes", c.buffered_writes),
            ("cache_fast_writes", c.fast_writes),
            ("cache_throttled_writes", c.throttled_writes),
            ("cache_blocked_writes", c.blocked_writes),
            ("cache_flush_batches", c.flush_batches),
            ("cache_flushed_bytes", c.flushed_bytes),
            ("cache_syncs", c.syncs),
            ("cache_sync_bytes", c.sync_bytes),
            ("cache_idle_drains", c.idle_drains),
            ("cache_read_hits", c.read_hits),
            ("cache_missed_revolutions", c.missed_revolutions),
            ("cache_room_reserve_bytes", c.room_reserve_bytes),
            ("cache_room_draws", c.room_draws),
            ("cache_occupancy_bytes", self.occupancy_bytes(elapsed_ns)),
        ] {
            counters.insert(name.into(), value);
        }
    }
}
