//! The zone rules engine: validates and applies zoned commands. NVMe ZNS semantics
//! are followed (transition table of NVMe ZNS 1.1 §2.1.1 / Zone Management Send),
//! with ZBC's conventional zones for HM-SMR disks:
//!
//! | action | allowed from | result |
//! |---|---|---|
//! | write / append | empty, implicitly/explicitly open, closed | implicitly open (explicit stays), full at capacity |
//! | open   | empty, implicitly open, closed; explicitly open is a no-op | explicitly open |
//! | close  | implicitly/explicitly open; closed is a no-op | closed (empty if nothing was written) |
//! | finish | empty, open, closed; full is a no-op | full |
//! | reset  | open, closed, full; empty is a no-op | empty |
//!
//! Read-only zones reject writes and management except reads; offline zones reject
//! everything. Opening beyond max-open first closes the least recently written
//! implicitly open zone (as NVMe lets a controller do), and fails if none is.
//!
//! Zone random write areas (`zrwa.rs`, NVMe TP4076), when the namespace has them
//! ([`ZoneSet::enable_zrwa`]): open-zrwa allocates one to an empty, open or closed
//! zone (a free resource and a write pointer on a flush-granularity boundary
//! needed); such a zone takes writes anywhere in its window, commits by explicit
//! (`zrwa_flush`) and implicit flushes, rejects appends, and gives its resource
//! back when it becomes full or empty (finish, reset, a flush to capacity, closing
//! it untouched) or read-only / offline.

use super::state::{ZoneDescriptor, ZoneState, ZoneType};
use super::zrwa::{implicit_flush_blocks, Committed, ZrwaConfig, ZrwaWindow};
use crate::command::Lba;
use crate::error::DeviceError;

/// Shape of a zoned namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneLayout {
    pub zone_count: u32,
    /// Zone size in blocks: a power of two or not.
    pub zone_size_blocks: u64,
    /// Writable blocks per zone, ≤ zone size.
    pub zone_capacity_blocks: u64,
    /// The first `conventional_zones` zones are conventional (random-write).
    pub conventional_zones: u32,
    /// 0 = unlimited.
    pub max_open_zones: u32,
    /// 0 = unlimited.
    pub max_active_zones: u32,
    /// Reads above the write pointer return zeros (NVMe ZNS; ZBC with URSWRZ=1) or fail.
    pub read_unwritten_ok: bool,
}

#[derive(Debug, Clone)]
struct Zone {
    state: ZoneState,
    write_pointer: Lba,
    last_write_seq: u64,
    /// The zone's random write area, when it has one.
    zrwa: Option<Box<ZrwaWindow>>,
}

/// Result of a successful write or append, for the device's media model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneWrite {
    pub zone: u32,
    /// Where the data lands.
    pub lba: Lba,
    /// The write filled the zone to capacity.
    pub filled: bool,
    /// A zone that was implicitly closed to make room under max-open.
    pub implicitly_closed: Option<u32>,
    /// Blocks written for the first time: all of them, except on a zone with a ZRWA
    /// where rewriting an uncommitted block is an overwrite the device absorbs.
    pub fresh_blocks: u32,
    /// Blocks the write pointer moved (the blocks written, or on a zone with a ZRWA
    /// the implicit flush) and how many of those were never written (ZRWA only).
    pub committed: Committed,
    /// The write went to the zone's ZRWA.
    pub zrwa: bool,
}

/// Result of an explicit ZRWA flush.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZrwaFlush {
    pub zone: u32,
    /// The write pointer before the flush.
    pub from_lba: Lba,
    pub committed: Committed,
    /// The flush reached the zone's capacity: the zone is full.
    pub filled: bool,
    /// A zone that was implicitly closed to make room under max-open (flushing a
    /// closed zone opens it, as a write would).
    pub implicitly_closed: Option<u32>,
}

/// All zones of one zoned namespace and its limits.
#[derive(Debug, Clone)]
pub struct ZoneSet {
    layout: ZoneLayout,
    zone_shift: Option<u32>,
    zones: Vec<Zone>,
    open_zones: Vec<u32>,
    active_count: u32,
    write_seq: u64,
    /// The namespace's ZRWA parameters, if it supports ZRWAs.
    zrwa: Option<ZrwaConfig>,
    /// ZRWA resources allocated to zones now.
    zrwa_in_use: u32,
}

impl ZoneSet {
    pub fn new(layout: ZoneLayout) -> Self {
        assert!(
            layout.zone_size_blocks > 0 && layout.zone_capacity_blocks <= layout.zone_size_blocks
        );
        let zone_shift = layout
            .zone_size_blocks
            .is_power_of_two()
            .then(|| layout.zone_size_blocks.trailing_zeros());
        let zones = (0..layout.zone_count)
            .map(|i| Zone {
                state: if i < layout.conventional_zones {
                    ZoneState::NotWritePointer
                } else {
                    ZoneState::Empty
                },
                write_pointer: i as u64 * layout.zone_size_blocks,
                last_write_seq: 0,
                zrwa: None,
            })
            .collect();
        Self {
            layout,
            zone_shift,
            zones,
            open_zones: Vec::new(),
            active_count: 0,
            write_seq: 0,
            zrwa: None,
            zrwa_in_use: 0,
        }
    }

    /// Gives the namespace ZRWA support. The caller (a profile check) ensures the
    /// size is a multiple of the granularity and the zone capacity a multiple of
    /// the granularity, so implicit flushes never pass the capacity.
    pub fn enable_zrwa(&mut self, cfg: ZrwaConfig) {
        assert!(
            cfg.flush_granularity_blocks > 0
                && cfg.size_blocks.is_multiple_of(cfg.flush_granularity_blocks)
                && self
                    .layout
                    .zone_capacity_blocks
                    .is_multiple_of(cfg.flush_granularity_blocks)
        );
        self.zrwa = Some(cfg);
    }

    /// The namespace's ZRWA parameters, if any.
    pub fn zrwa_config(&self) -> Option<&ZrwaConfig> {
        self.zrwa.as_ref()
    }

    /// ZRWA resources allocated now.
    pub fn zrwa_in_use(&self) -> u32 {
        self.zrwa_in_use
    }

    /// Whether `zone` holds a ZRWA.
    pub fn has_zrwa(&self, zone: u32) -> bool {
        self.zones[zone as usize].zrwa.is_some()
    }

    /// Blocks written into `zone`'s ZRWA and not committed yet (0 without one).
    pub fn zrwa_written_blocks(&self, zone: u32) -> u64 {
        self.zones[zone as usize]
            .zrwa
            .as_ref()
            .map_or(0, |w| w.written_blocks())
    }

    /// Whether the block at `lba` of `zone` holds data in the zone's ZRWA.
    pub fn zrwa_holds(&self, zone: u32, lba: Lba) -> bool {
        let z = &self.zones[zone as usize];
        match &z.zrwa {
            Some(w) if lba >= z.write_pointer => w.is_written(lba - z.write_pointer),
            _ => false,
        }
    }

    /// One past the last block of `zone` that holds data: the write pointer, or
    /// beyond it the highest block written into the ZRWA.
    pub fn data_end(&self, zone: u32) -> Lba {
        let z = &self.zones[zone as usize];
        z.write_pointer + z.zrwa.as_ref().map_or(0, |w| w.written_end_offset())
    }

    pub fn layout(&self) -> &ZoneLayout {
        &self.layout
    }

    /// Total addressable blocks (zone count × zone size).
    pub fn capacity_blocks(&self) -> u64 {
        self.layout.zone_count as u64 * self.layout.zone_size_blocks
    }

    pub fn open_count(&self) -> u32 {
        self.open_zones.len() as u32
    }

    pub fn active_count(&self) -> u32 {
        self.active_count
    }

    #[inline]
    pub fn zone_start(&self, zone: u32) -> Lba {
        zone as u64 * self.layout.zone_size_blocks
    }

    /// Zone holding `lba` (power-of-two zone sizes use a shift, others a division).
    #[inline]
    pub fn zone_of(&self, lba: Lba) -> u32 {
        match self.zone_shift {
            Some(s) => (lba >> s) as u32,
            None => (lba / self.layout.zone_size_blocks) as u32,
        }
    }

    pub fn state(&self, zone: u32) -> ZoneState {
        self.zones[zone as usize].state
    }

    pub fn write_pointer(&self, zone: u32) -> Lba {
        self.zones[zone as usize].write_pointer
    }

    fn is_conventional(&self, zone: u32) -> bool {
        zone < self.layout.conventional_zones
    }

    pub fn zone_type(&self, zone: u32) -> ZoneType {
        if self.is_conventional(zone) {
            ZoneType::Conventional
        } else {
            ZoneType::SequentialWriteRequired
        }
    }

    pub fn descriptor(&self, zone: u32) -> ZoneDescriptor {
        let z = &self.zones[zone as usize];
        let conventional = self.is_conventional(zone);
        ZoneDescriptor {
            index: zone,
            zone_type: self.zone_type(zone),
            state: z.state,
            start_lba: self.zone_start(zone),
            size_blocks: self.layout.zone_size_blocks,
            capacity_blocks: if conventional {
                self.layout.zone_size_blocks
            } else {
                self.layout.zone_capacity_blocks
            },
            write_pointer: if conventional {
                u64::MAX
            } else {
                z.write_pointer
            },
            zrwa: z.zrwa.is_some(),
        }
    }

    /// Descriptors of up to `max` zones starting at zone `first`.
    pub fn report(&self, first: u32, max: u32) -> Vec<ZoneDescriptor> {
        let end = first.saturating_add(max).min(self.layout.zone_count);
        (first.min(end)..end).map(|z| self.descriptor(z)).collect()
    }

    fn check_range(&self, command: &'static str, lba: Lba, blocks: u32) -> Result<(), DeviceError> {
        if blocks == 0 {
            return Err(DeviceError::ZeroLength { command, lba });
        }
        let cap = self.capacity_blocks();
        if lba >= cap || cap - lba < blocks as u64 {
            return Err(DeviceError::OutOfRange {
                command,
                lba,
                blocks,
                capacity_blocks: cap,
            });
        }
        Ok(())
    }

    fn zone_at_start(&self, command: &'static str, zone_lba: Lba) -> Result<u32, DeviceError> {
        if zone_lba >= self.capacity_blocks() {
            return Err(DeviceError::OutOfRange {
                command,
                lba: zone_lba,
                blocks: 1,
                capacity_blocks: self.capacity_blocks(),
            });
        }
        let zone = self.zone_of(zone_lba);
        if self.zone_start(zone) != zone_lba {
            return Err(DeviceError::NotZoneStart { lba: zone_lba });
        }
        Ok(zone)
    }

    /// Checks a read: inside the device, inside one zone, zone not offline, and (if
    /// the device does not return unwritten data) below the write pointer.
    pub fn check_read(&self, lba: Lba, blocks: u32) -> Result<u32, DeviceError> {
        self.check_range("read", lba, blocks)?;
        let zone = self.zone_of(lba);
        if self.is_conventional(zone) {
            self.check_conventional_span("read", zone, lba, blocks)?;
            return Ok(zone);
        }
        let end = lba + blocks as u64;
        let zone_end = self.zone_start(zone) + self.layout.zone_size_blocks;
        if end > zone_end {
            return Err(DeviceError::BoundaryCrossed {
                command: "read",
                zone,
                lba,
                blocks,
                capacity_end: zone_end,
            });
        }
        let z = &self.zones[zone as usize];
        match z.state {
            ZoneState::Offline => return Err(DeviceError::Offline { zone }),
            ZoneState::NotWritePointer => return Ok(zone),
            _ => {}
        }
        if !self.layout.read_unwritten_ok && end > z.write_pointer && z.state != ZoneState::Full {
            return Err(DeviceError::UnwrittenRead {
                zone,
                lba,
                write_pointer: z.write_pointer,
            });
        }
        Ok(zone)
    }

    /// Validates and applies a write of `blocks` at `lba`.
    pub fn write(&mut self, lba: Lba, blocks: u32) -> Result<ZoneWrite, DeviceError> {
        self.check_range("write", lba, blocks)?;
        let zone = self.zone_of(lba);
        if self.is_conventional(zone) {
            self.check_conventional_span("write", zone, lba, blocks)?;
            return Ok(ZoneWrite {
                zone,
                lba,
                filled: false,
                implicitly_closed: None,
                fresh_blocks: blocks,
                committed: Committed::default(),
                zrwa: false,
            });
        }
        let wp = self.zones[zone as usize].write_pointer;
        self.check_writable(zone, "write")?;
        if self.zones[zone as usize].zrwa.is_some() {
            return self.write_zrwa(zone, lba, blocks);
        }
        if lba != wp {
            return Err(DeviceError::NotAtWritePointer {
                zone,
                lba,
                write_pointer: wp,
            });
        }
        self.advance(zone, "write", blocks)
    }

    /// Checks a read or write that starts in conventional zone `zone`. ZBC/ZAC put no
    /// zone-boundary constraint on conventional zones, so the request may span several
    /// of them (every one must be online); it may not run on into the first
    /// write-pointer zone (ZBC's WRITE/READ BOUNDARY VIOLATION).
    fn check_conventional_span(
        &self,
        command: &'static str,
        zone: u32,
        lba: Lba,
        blocks: u32,
    ) -> Result<(), DeviceError> {
        let end = lba + blocks as u64;
        let conventional_end = self.zone_start(self.layout.conventional_zones);
        if end > conventional_end {
            return Err(DeviceError::BoundaryCrossed {
                command,
                zone,
                lba,
                blocks,
                capacity_end: conventional_end,
            });
        }
        let last = self.zone_of(end - 1);
        match (zone..=last).find(|&z| self.zones[z as usize].state == ZoneState::Offline) {
            Some(z) => Err(DeviceError::Offline { zone: z }),
            None => Ok(()),
        }
    }

    /// Validates and applies a zone append to the zone starting at `zone_lba`.
    pub fn append(&mut self, zone_lba: Lba, blocks: u32) -> Result<ZoneWrite, DeviceError> {
        if blocks == 0 {
            return Err(DeviceError::ZeroLength {
                command: "append",
                lba: zone_lba,
            });
        }
        let zone = self.zone_at_start("append", zone_lba)?;
        if self.is_conventional(zone) {
            return Err(DeviceError::ConventionalZone {
                command: "append",
                zone,
            });
        }
        self.check_writable(zone, "append")?;
        if self.zones[zone as usize].zrwa.is_some() {
            return Err(DeviceError::ZrwaAppend { zone });
        }
        self.advance(zone, "append", blocks)
    }

    fn check_writable(&self, zone: u32, _command: &'static str) -> Result<(), DeviceError> {
        match self.zones[zone as usize].state {
            ZoneState::Full => Err(DeviceError::ZoneFull { zone }),
            ZoneState::ReadOnly => Err(DeviceError::ReadOnly { zone }),
            ZoneState::Offline => Err(DeviceError::Offline { zone }),
            _ => Ok(()),
        }
    }

    /// Writes `blocks` at the write pointer of a writable zone.
    fn advance(
        &mut self,
        zone: u32,
        command: &'static str,
        blocks: u32,
    ) -> Result<ZoneWrite, DeviceError> {
        let start = self.zone_start(zone);
        let capacity_end = start + self.layout.zone_capacity_blocks;
        let wp = self.zones[zone as usize].write_pointer;
        if wp + blocks as u64 > capacity_end {
            return Err(DeviceError::BoundaryCrossed {
                command,
                zone,
                lba: wp,
                blocks,
                capacity_end,
            });
        }
        let mut implicitly_closed = None;
        match self.zones[zone as usize].state {
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => {}
            from @ (ZoneState::Empty | ZoneState::Closed) => {
                implicitly_closed = self.make_room_to_open(zone, from)?;
                self.set_state(zone, ZoneState::ImplicitlyOpen);
            }
            _ => unreachable!("checked by check_writable"),
        }
        self.write_seq += 1;
        let z = &mut self.zones[zone as usize];
        z.write_pointer += blocks as u64;
        z.last_write_seq = self.write_seq;
        let filled = z.write_pointer == capacity_end;
        if filled {
            self.set_state(zone, ZoneState::Full);
        }
        Ok(ZoneWrite {
            zone,
            lba: wp,
            filled,
            implicitly_closed,
            fresh_blocks: blocks,
            committed: Committed {
                blocks: blocks as u64,
                holes: 0,
            },
            zrwa: false,
        })
    }

    /// A write to a zone with a ZRWA: anywhere in `[wp, wp + 2 × zrwas)` within the
    /// capacity; an implicit flush commits what the write pushes past the ZRWA.
    fn write_zrwa(&mut self, zone: u32, lba: Lba, blocks: u32) -> Result<ZoneWrite, DeviceError> {
        let cfg = self.zrwa.expect("a zone with a ZRWA implies ZRWA support");
        let start = self.zone_start(zone);
        let capacity_end = start + self.layout.zone_capacity_blocks;
        let wp = self.zones[zone as usize].write_pointer;
        let range_end = (wp + 2 * cfg.size_blocks).min(capacity_end);
        let end = lba + blocks as u64;
        if lba < wp || end > wp + 2 * cfg.size_blocks {
            return Err(DeviceError::OutsideZrwa {
                zone,
                lba,
                blocks,
                write_pointer: wp,
                range_end,
            });
        }
        if end > capacity_end {
            return Err(DeviceError::BoundaryCrossed {
                command: "write",
                zone,
                lba,
                blocks,
                capacity_end,
            });
        }
        let implicitly_closed = self.ensure_open(zone)?;
        self.write_seq += 1;
        let seq = self.write_seq;
        let z = &mut self.zones[zone as usize];
        z.last_write_seq = seq;
        let w = z.zrwa.as_mut().expect("checked");
        let fresh = w.mark_written(lba - wp, blocks as u64);
        let committed = w.commit(implicit_flush_blocks(&cfg, end - wp));
        let filled = self.commit_to(zone, wp + committed.blocks);
        Ok(ZoneWrite {
            zone,
            lba,
            filled,
            implicitly_closed,
            fresh_blocks: fresh as u32,
            committed,
            zrwa: true,
        })
    }

    /// Opens an empty or closed zone implicitly for a write or flush (open zones
    /// stay as they are); returns the zone closed to make room, if any.
    fn ensure_open(&mut self, zone: u32) -> Result<Option<u32>, DeviceError> {
        match self.zones[zone as usize].state {
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => Ok(None),
            from @ (ZoneState::Empty | ZoneState::Closed) => {
                let closed = self.make_room_to_open(zone, from)?;
                self.set_state(zone, ZoneState::ImplicitlyOpen);
                Ok(closed)
            }
            _ => unreachable!("checked by check_writable"),
        }
    }

    /// Moves a ZRWA zone's write pointer to `new_wp` (its window already
    /// committed); a zone filled to capacity becomes full and frees its ZRWA.
    /// Returns whether it filled.
    fn commit_to(&mut self, zone: u32, new_wp: Lba) -> bool {
        let capacity_end = self.zone_start(zone) + self.layout.zone_capacity_blocks;
        self.zones[zone as usize].write_pointer = new_wp;
        let filled = new_wp == capacity_end;
        if filled {
            self.set_state(zone, ZoneState::Full);
        }
        filled
    }

    /// Flush Explicit ZRWA Range: commits `zone`'s ZRWA up to and including
    /// `last_lba`. The flushed length must be a multiple of the flush granularity
    /// and `last_lba` inside the ZRWA. Flushing a closed zone opens it implicitly.
    pub fn zrwa_flush(&mut self, last_lba: Lba) -> Result<ZrwaFlush, DeviceError> {
        self.check_range("zrwa-flush", last_lba, 1)?;
        let zone = self.zone_of(last_lba);
        if self.is_conventional(zone) {
            return Err(DeviceError::ConventionalZone {
                command: "zrwa-flush",
                zone,
            });
        }
        let Some(cfg) = self.zrwa else {
            return Err(DeviceError::ZrwaUnsupported { zone });
        };
        match self.zones[zone as usize].state {
            ZoneState::ReadOnly => return Err(DeviceError::ReadOnly { zone }),
            ZoneState::Offline => return Err(DeviceError::Offline { zone }),
            _ => {}
        }
        if self.zones[zone as usize].zrwa.is_none() {
            return Err(DeviceError::NoZrwa {
                zone,
                command: "zrwa-flush",
            });
        }
        let wp = self.zones[zone as usize].write_pointer;
        let capacity_end = self.zone_start(zone) + self.layout.zone_capacity_blocks;
        let window_end = (wp + cfg.size_blocks).min(capacity_end);
        if last_lba < wp || last_lba >= window_end {
            return Err(DeviceError::ZrwaFlushRange {
                zone,
                lba: last_lba,
                write_pointer: wp,
                window_end,
            });
        }
        let blocks = last_lba + 1 - wp;
        if !blocks.is_multiple_of(cfg.flush_granularity_blocks) {
            return Err(DeviceError::ZrwaFlushGranularity {
                zone,
                blocks,
                granularity_blocks: cfg.flush_granularity_blocks,
            });
        }
        let implicitly_closed = self.ensure_open(zone)?;
        let committed = self.zones[zone as usize]
            .zrwa
            .as_mut()
            .expect("checked")
            .commit(blocks);
        let filled = self.commit_to(zone, wp + blocks);
        Ok(ZrwaFlush {
            zone,
            from_lba: wp,
            committed,
            filled,
            implicitly_closed,
        })
    }

    /// Open Zone with ZRWA allocation: the zone becomes explicitly open with a
    /// ZRWA. A zone that has one already is just opened.
    pub fn open_zrwa(&mut self, zone_lba: Lba) -> Result<Option<u32>, DeviceError> {
        let zone = self.zone_at_start("zone-open-zrwa", zone_lba)?;
        if self.is_conventional(zone) {
            return Err(DeviceError::ConventionalZone {
                command: "zone-open-zrwa",
                zone,
            });
        }
        let Some(cfg) = self.zrwa else {
            return Err(DeviceError::ZrwaUnsupported { zone });
        };
        if self.zones[zone as usize].zrwa.is_some() {
            return self.open(zone_lba);
        }
        let state = self.zones[zone as usize].state;
        if !matches!(
            state,
            ZoneState::Empty
                | ZoneState::ImplicitlyOpen
                | ZoneState::ExplicitlyOpen
                | ZoneState::Closed
        ) {
            return Err(self.invalid(zone, "open-zrwa"));
        }
        let written = self.zones[zone as usize].write_pointer - self.zone_start(zone);
        if !written.is_multiple_of(cfg.flush_granularity_blocks) {
            return Err(DeviceError::ZrwaUnaligned {
                zone,
                write_pointer: self.zones[zone as usize].write_pointer,
                granularity_blocks: cfg.flush_granularity_blocks,
            });
        }
        if self.zrwa_in_use >= cfg.resources {
            return Err(DeviceError::NoZrwaResources {
                zone,
                limit: cfg.resources,
            });
        }
        let closed = self.open(zone_lba)?;
        self.zones[zone as usize].zrwa = Some(Box::new(ZrwaWindow::new(&cfg)));
        self.zrwa_in_use += 1;
        Ok(closed)
    }

    /// Frees `zone`'s ZRWA (its uncommitted data is dropped with it).
    fn release_zrwa(&mut self, zone: u32) {
        if self.zones[zone as usize].zrwa.take().is_some() {
            self.zrwa_in_use -= 1;
        }
    }

    /// Ensures a zone in state `from` (empty or closed) may become open: checks
    /// max-active for an empty zone, and frees an open slot under max-open by
    /// closing the least recently written implicitly open zone if necessary.
    fn make_room_to_open(
        &mut self,
        zone: u32,
        from: ZoneState,
    ) -> Result<Option<u32>, DeviceError> {
        if from == ZoneState::Empty
            && self.layout.max_active_zones > 0
            && self.active_count >= self.layout.max_active_zones
        {
            return Err(DeviceError::TooManyActiveZones {
                zone,
                limit: self.layout.max_active_zones,
            });
        }
        if self.layout.max_open_zones == 0 || self.open_count() < self.layout.max_open_zones {
            return Ok(None);
        }
        let victim = self
            .open_zones
            .iter()
            .copied()
            .filter(|&z| self.zones[z as usize].state == ZoneState::ImplicitlyOpen)
            .min_by_key(|&z| (self.zones[z as usize].last_write_seq, z));
        match victim {
            Some(v) => {
                self.set_state(v, ZoneState::Closed);
                Ok(Some(v))
            }
            None => Err(DeviceError::TooManyOpenZones {
                zone,
                limit: self.layout.max_open_zones,
            }),
        }
    }

    /// Moves `zone` to `to`, keeping the open list and active count right.
    fn set_state(&mut self, zone: u32, to: ZoneState) {
        let from = self.zones[zone as usize].state;
        if from.is_open() && !to.is_open() {
            self.open_zones.retain(|&z| z != zone);
        } else if !from.is_open() && to.is_open() {
            self.open_zones.push(zone);
        }
        match (from.is_active(), to.is_active()) {
            (false, true) => self.active_count += 1,
            (true, false) => self.active_count -= 1,
            _ => {}
        }
        if !to.is_active() {
            // A ZRWA belongs to an active zone: full, empty, read-only and offline
            // zones hold none.
            self.release_zrwa(zone);
        }
        self.zones[zone as usize].state = to;
    }

    fn invalid(&self, zone: u32, action: &'static str) -> DeviceError {
        let state = self.zones[zone as usize].state;
        match state {
            ZoneState::Offline => DeviceError::Offline { zone },
            ZoneState::ReadOnly => DeviceError::ReadOnly { zone },
            _ => DeviceError::InvalidTransition {
                zone,
                action,
                state,
            },
        }
    }

    /// Explicitly opens the zone starting at `zone_lba`.
    pub fn open(&mut self, zone_lba: Lba) -> Result<Option<u32>, DeviceError> {
        let zone = self.zone_at_start("zone-open", zone_lba)?;
        if self.is_conventional(zone) {
            return Err(DeviceError::ConventionalZone {
                command: "zone-open",
                zone,
            });
        }
        match self.zones[zone as usize].state {
            ZoneState::ExplicitlyOpen => Ok(None),
            ZoneState::ImplicitlyOpen => {
                self.set_state(zone, ZoneState::ExplicitlyOpen);
                Ok(None)
            }
            from @ (ZoneState::Empty | ZoneState::Closed) => {
                let closed = self.make_room_to_open(zone, from)?;
                self.set_state(zone, ZoneState::ExplicitlyOpen);
                Ok(closed)
            }
            _ => Err(self.invalid(zone, "open")),
        }
    }

    /// Closes the zone starting at `zone_lba`.
    pub fn close(&mut self, zone_lba: Lba) -> Result<(), DeviceError> {
        let zone = self.zone_at_start("zone-close", zone_lba)?;
        if self.is_conventional(zone) {
            return Err(DeviceError::ConventionalZone {
                command: "zone-close",
                zone,
            });
        }
        match self.zones[zone as usize].state {
            ZoneState::Closed => Ok(()),
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => {
                let untouched = self.data_end(zone) == self.zone_start(zone);
                self.set_state(
                    zone,
                    if untouched {
                        ZoneState::Empty
                    } else {
                        ZoneState::Closed
                    },
                );
                Ok(())
            }
            _ => Err(self.invalid(zone, "close")),
        }
    }

    /// Finishes the zone starting at `zone_lba`: the write pointer moves to the end
    /// of its capacity. Returns the blocks the device must treat as padded.
    pub fn finish(&mut self, zone_lba: Lba) -> Result<u64, DeviceError> {
        let zone = self.zone_at_start("zone-finish", zone_lba)?;
        if self.is_conventional(zone) {
            return Err(DeviceError::ConventionalZone {
                command: "zone-finish",
                zone,
            });
        }
        match self.zones[zone as usize].state {
            ZoneState::Full => Ok(0),
            ZoneState::Empty
            | ZoneState::ImplicitlyOpen
            | ZoneState::ExplicitlyOpen
            | ZoneState::Closed => {
                let end = self.zone_start(zone) + self.layout.zone_capacity_blocks;
                let padded = end - self.zones[zone as usize].write_pointer;
                self.zones[zone as usize].write_pointer = end;
                self.set_state(zone, ZoneState::Full);
                Ok(padded)
            }
            _ => Err(self.invalid(zone, "finish")),
        }
    }

    /// Resets the zone starting at `zone_lba`. Returns the blocks that had been
    /// written, up to the last block holding data in a ZRWA (the device
    /// invalidates them).
    pub fn reset(&mut self, zone_lba: Lba) -> Result<u64, DeviceError> {
        let zone = self.zone_at_start("zone-reset", zone_lba)?;
        if self.is_conventional(zone) {
            return Err(DeviceError::ConventionalZone {
                command: "zone-reset",
                zone,
            });
        }
        match self.zones[zone as usize].state {
            ZoneState::Empty => Ok(0),
            ZoneState::ImplicitlyOpen
            | ZoneState::ExplicitlyOpen
            | ZoneState::Closed
            | ZoneState::Full => {
                let start = self.zone_start(zone);
                let written = self.data_end(zone) - start;
                self.zones[zone as usize].write_pointer = start;
                self.set_state(zone, ZoneState::Empty);
                Ok(written)
            }
            _ => Err(self.invalid(zone, "reset")),
        }
    }

    /// Failure injection: the zone becomes read-only (data stays readable).
    /// An offline zone stays offline (NVMe: offline is terminal).
    pub fn set_read_only(&mut self, zone: u32) {
        if !self.is_conventional(zone) && self.zones[zone as usize].state != ZoneState::Offline {
            self.set_state(zone, ZoneState::ReadOnly);
        }
    }

    /// Failure injection: the zone goes offline (nothing is readable).
    pub fn set_offline(&mut self, zone: u32) {
        self.set_state(zone, ZoneState::Offline);
    }
}
