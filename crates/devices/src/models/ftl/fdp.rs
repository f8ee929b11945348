//! NVMe Flexible Data Placement on the page-mapped FTL (`[fdp]` profile section;
//! TP4146, NVMe Base Specification 2.1 "Flexible Data Placement"; the host's view
//! is in `crate::fdp`).
//!
//! - **Reclaim groups**: the dies split into `reclaim_groups` runs of consecutive
//!   dies (`mapping.rs`); a reclaim unit (RU) is one erase block on every die of a
//!   group, so its size (RUNS) follows from the flash geometry.
//! - **Reclaim unit handles**: each placement handle i of the namespace is
//!   reclaim unit handle (RUH) i, initially or persistently isolated. Every
//!   (reclaim group, handle) has its own write frontier — a host stream with one
//!   open RU — so data written through different handles never shares an RU.
//! - **GC and isolation**: GC moves a victim's valid data into a GC stream of the
//!   victim's group (data never leaves its group): the data of a persistently
//!   isolated handle into that handle's own GC stream, the data of every
//!   initially isolated handle into one GC stream they share (the spec lets
//!   their data mix once GC moves it). [`FdpLayout::allowed`] states the rule;
//!   `Mapping::check_isolation` checks every valid unit against it.
//! - **Writes** without a directive use placement handle 0 of reclaim group 0; a
//!   placement identifier that does not exist does the same and is logged as an
//!   Invalid Placement Identifier event (QEMU's `nvme_do_write` falls back to
//!   handle 0 the same way).
//! - **Statistics and events**: host bytes with metadata written (HBMW), media
//!   bytes with metadata written (MBMW: host and GC programs, padding included),
//!   media bytes erased (MBE); events Reclaim Unit Not Fully Written (a handle
//!   update moved a handle off a partly written RU, as QEMU's `nvme_update_ruh`
//!   logs it), Invalid Placement Identifier, and Media Reallocated (GC moved an
//!   RU's valid data, with the number of LBAs moved).

use super::mapping::{Mapping, StreamSpec};
use crate::fdp::{
    EventCounts, FdpConfig, FdpEvent, FdpEventType, FdpReport, FdpStatistics, RelocatedLbas,
    RuhStatus, RuhType, FDP_EVENT_LOG_ENTRIES,
};
use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use std::collections::VecDeque;
use zonelab_engine::Ns;

/// Most reclaim unit handles (QEMU's `NVME_FDP_MAXPIDS`; tags are one byte).
pub const MAX_HANDLES: usize = 128;

/// `[fdp]`: Flexible Data Placement.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FdpSection {
    /// NRG: reclaim groups (a divisor of the dies).
    pub reclaim_groups: u32,
    /// One entry per reclaim unit handle: "initially-isolated" or
    /// "persistently-isolated".
    pub handles: Vec<RuhType>,
}

impl FdpSection {
    /// Checks the section against the flash's `dies`.
    pub fn validate(&self, v: &Validator<'_>, dies: u32) -> Result<(), ProfileError> {
        v.check(
            "fdp.reclaim_groups",
            self.reclaim_groups,
            self.reclaim_groups >= 1 && dies.is_multiple_of(self.reclaim_groups),
            &format!("a divisor of the {dies} dies"),
        )?;
        v.range("fdp.handles (count)", self.handles.len(), 1, MAX_HANDLES)?;
        Ok(())
    }
}

/// Which mapping stream serves what under FDP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FdpLayout {
    pub groups: u32,
    pub handles: Vec<RuhType>,
    /// Per stream: what it is.
    pub kinds: Vec<StreamKind>,
}

/// What a mapping stream writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// Host writes through `handle` in `group`.
    Host { group: u32, handle: u32 },
    /// GC copies of every initially isolated handle of `group`.
    SharedGc { group: u32 },
    /// GC copies of persistently isolated `handle` of `group`.
    HandleGc { group: u32, handle: u32 },
}

impl FdpLayout {
    /// Host streams first (stream `group × handles + handle`), then per group the
    /// shared GC stream (if a handle is initially isolated) and one GC stream per
    /// persistently isolated handle.
    pub fn new(groups: u32, handles: &[RuhType]) -> Self {
        let n = handles.len() as u32;
        let mut kinds: Vec<StreamKind> = (0..groups)
            .flat_map(|group| (0..n).map(move |handle| StreamKind::Host { group, handle }))
            .collect();
        for group in 0..groups {
            if handles.contains(&RuhType::InitiallyIsolated) {
                kinds.push(StreamKind::SharedGc { group });
            }
            for (h, t) in handles.iter().enumerate() {
                if *t == RuhType::PersistentlyIsolated {
                    kinds.push(StreamKind::HandleGc {
                        group,
                        handle: h as u32,
                    });
                }
            }
        }
        Self {
            groups,
            handles: handles.to_vec(),
            kinds,
        }
    }

    fn find(&self, kind: StreamKind) -> usize {
        self.kinds
            .iter()
            .position(|&k| k == kind)
            .expect("every stream kind the layout routes to exists")
    }

    /// The host stream of (`group`, `handle`).
    #[inline]
    pub fn host_stream(&self, group: u32, handle: u32) -> usize {
        (group * self.handles.len() as u32 + handle) as usize
    }

    /// The mapping's stream specs: groups and GC destinations.
    pub fn stream_specs(&self) -> Vec<StreamSpec> {
        self.kinds
            .iter()
            .map(|&k| {
                let (group, dest) = match k {
                    StreamKind::Host { group, handle } => (
                        group,
                        match self.handles[handle as usize] {
                            RuhType::InitiallyIsolated => StreamKind::SharedGc { group },
                            RuhType::PersistentlyIsolated => StreamKind::HandleGc { group, handle },
                        },
                    ),
                    StreamKind::SharedGc { group } | StreamKind::HandleGc { group, .. } => {
                        (group, k)
                    }
                };
                StreamSpec {
                    group,
                    gc_dest: self.find(dest),
                }
            })
            .collect()
    }

    /// Streams per group (each needs an open RU of its group at times).
    pub fn streams_per_group(&self) -> u32 {
        self.kinds.len() as u32 / self.groups
    }

    /// The isolation rule: may an RU opened by `stream` hold data written through
    /// handle `tag`? (Checked by the tests after every command.)
    #[cfg(test)]
    pub fn allowed(&self, stream: usize, tag: u8) -> bool {
        match self.kinds[stream] {
            StreamKind::Host { handle, .. } | StreamKind::HandleGc { handle, .. } => {
                handle == tag as u32
            }
            StreamKind::SharedGc { .. } => {
                self.handles.get(tag as usize) == Some(&RuhType::InitiallyIsolated)
            }
        }
    }

    /// The (group, handle) a stream writes for, if it is one handle's.
    fn handle_of(&self, stream: usize) -> (u32, Option<u32>) {
        match self.kinds[stream] {
            StreamKind::Host { group, handle } | StreamKind::HandleGc { group, handle } => {
                (group, Some(handle))
            }
            StreamKind::SharedGc { group } => (group, None),
        }
    }
}

/// FDP's state on the device: layout, statistics, event log.
#[derive(Debug, Clone)]
pub struct FdpState {
    pub layout: FdpLayout,
    config: FdpConfig,
    stats: FdpStatistics,
    counts: EventCounts,
    events: VecDeque<FdpEvent>,
    relocated: RelocatedLbas,
}

impl FdpState {
    pub fn new(section: &FdpSection, reclaim_unit_bytes: u64) -> Self {
        let layout = FdpLayout::new(section.reclaim_groups, &section.handles);
        let rgif_bits = 32 - (section.reclaim_groups - 1).leading_zeros();
        let rgif_bits = if section.reclaim_groups == 1 {
            0
        } else {
            rgif_bits
        };
        Self {
            config: FdpConfig {
                reclaim_groups: section.reclaim_groups,
                rgif_bits,
                handles: section.handles.clone(),
                reclaim_unit_bytes,
            },
            layout,
            stats: FdpStatistics::default(),
            counts: EventCounts::default(),
            events: VecDeque::with_capacity(FDP_EVENT_LOG_ENTRIES),
            relocated: RelocatedLbas {
                by_handle: vec![0; (section.reclaim_groups as usize) * section.handles.len()],
                from_shared_gc_units: 0,
            },
        }
    }

    pub fn config(&self) -> &FdpConfig {
        &self.config
    }

    /// The host stream a write with placement identifier `pid` goes to; an
    /// identifier that does not exist goes to handle 0 of group 0 and is logged.
    pub fn stream_for_pid(&mut self, pid: u16, now_ns: Ns) -> usize {
        match self.config.decode(pid) {
            Some((group, handle)) => self.layout.host_stream(group, handle),
            None => {
                self.counts.invalid_placement_identifier += 1;
                self.log(FdpEvent {
                    event: FdpEventType::InvalidPlacementIdentifier,
                    time_ns: now_ns,
                    placement_id: Some(pid),
                    reclaim_group: 0,
                    handle: None,
                    lbas_moved: 0,
                });
                self.layout.host_stream(0, 0)
            }
        }
    }

    /// The handle tag of host stream `stream`.
    pub fn tag_of(&self, stream: usize) -> u8 {
        self.layout.handle_of(stream).1.unwrap_or(0) as u8
    }

    fn log(&mut self, e: FdpEvent) {
        if self.events.len() == FDP_EVENT_LOG_ENTRIES {
            self.events.pop_front();
        }
        self.events.push_back(e);
    }

    pub fn add_host_bytes(&mut self, bytes: u64) {
        self.stats.host_bytes_with_metadata_written += bytes;
    }

    pub fn add_media_bytes(&mut self, bytes: u64) {
        self.stats.media_bytes_with_metadata_written += bytes;
    }

    pub fn add_erased_bytes(&mut self, bytes: u64) {
        self.stats.media_bytes_erased += bytes;
    }

    /// GC emptied an RU opened by `stream`, moving `lbas` logical blocks.
    pub fn media_reallocated(&mut self, stream: usize, lbas: u64, now_ns: Ns) {
        if lbas == 0 {
            return;
        }
        let (group, handle) = self.layout.handle_of(stream);
        match handle {
            Some(h) => {
                let i = group as usize * self.config.handles.len() + h as usize;
                self.relocated.by_handle[i] += lbas;
            }
            None => self.relocated.from_shared_gc_units += lbas,
        }
        self.counts.media_reallocated += 1;
        self.log(FdpEvent {
            event: FdpEventType::MediaReallocated,
            time_ns: now_ns,
            placement_id: None,
            reclaim_group: group,
            handle,
            lbas_moved: lbas,
        });
    }

    /// A handle update left `stream`'s RU not fully written.
    pub fn not_fully_written(&mut self, stream: usize, pid: u16, now_ns: Ns) {
        let (group, handle) = self.layout.handle_of(stream);
        self.counts.reclaim_unit_not_fully_written += 1;
        self.log(FdpEvent {
            event: FdpEventType::ReclaimUnitNotFullyWritten,
            time_ns: now_ns,
            placement_id: Some(pid),
            reclaim_group: group,
            handle,
            lbas_moved: 0,
        });
    }

    pub fn statistics(&self) -> FdpStatistics {
        self.stats
    }

    pub fn event_counts(&self) -> EventCounts {
        self.counts
    }

    /// The host's view; `unit_bytes` is the mapping unit, for the bytes each
    /// handle's reclaim unit can still take.
    pub fn report(&self, map: &Mapping, unit_bytes: u64) -> FdpReport {
        let l = map.layout();
        let mut handles = Vec::new();
        for group in 0..self.config.reclaim_groups {
            for handle in 0..self.config.handles.len() as u32 {
                let stream = self.layout.host_stream(group, handle);
                let available_bytes = match map.open_superblock(stream) {
                    Some(_) => {
                        let staged_room = if map.needs_new_program_unit(stream) {
                            0
                        } else {
                            l.units_per_program_unit - map.staged_units(stream)
                        };
                        (map.unassigned_program_units(stream) as u64
                            * l.units_per_program_unit as u64
                            + staged_room as u64)
                            * unit_bytes
                    }
                    None => self.config.reclaim_unit_bytes,
                };
                handles.push(RuhStatus {
                    placement_id: self.config.pid(group, handle),
                    reclaim_group: group,
                    handle,
                    available_bytes,
                });
            }
        }
        FdpReport {
            config: self.config.clone(),
            statistics: self.stats,
            event_counts: self.counts,
            recent_events: self.events.iter().copied().collect(),
            handles,
            relocated: self.relocated.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RuhType::{InitiallyIsolated as II, PersistentlyIsolated as PI};

    #[test]
    fn gc_routes_keep_persistent_isolation_and_share_initial_isolation() {
        let l = FdpLayout::new(2, &[II, PI, II]);
        // 6 host streams, then per group: shared GC, GC of handle 1.
        assert_eq!(l.kinds.len(), 10);
        let specs = l.stream_specs();
        let host = |g, h| l.host_stream(g, h);
        assert_eq!(specs[host(0, 0)].gc_dest, 6);
        assert_eq!(specs[host(0, 2)].gc_dest, 6);
        assert_eq!(specs[host(0, 1)].gc_dest, 7);
        assert_eq!(specs[host(1, 1)].gc_dest, 9);
        assert_eq!(specs[host(1, 0)].group, 1);
        // GC streams route to themselves.
        assert!((6..10).all(|s| specs[s].gc_dest == s));
        assert!(l.allowed(6, 0) && l.allowed(6, 2) && !l.allowed(6, 1));
        assert!(l.allowed(7, 1) && !l.allowed(7, 0));
        assert!(l.allowed(host(0, 2), 2) && !l.allowed(host(0, 2), 0));
        assert_eq!(l.streams_per_group(), 5);
    }
}
