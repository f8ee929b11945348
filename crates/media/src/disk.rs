//! Magnetic disk mechanics: geometry with zoned recording, the seek curve, platter
//! rotation in virtual time, and the actuator's [`Timeline`]. A device model asks
//! [`DiskMechanics::access`] to move bytes at a byte offset and gets the time the
//! transfer completes; queueing behind earlier requests, seeks, head switches and
//! rotational waits all follow from the geometry and the clock.
//!
//! Model (after DiskSim's disk module):
//! - **Geometry.** `heads` surfaces; `recording_zones` bands from the outer to the
//!   inner diameter, each with the same number of cylinders. A track of band `z`
//!   holds `rate_z × rotation` bytes (rounded down to whole sectors), where `rate_z`
//!   falls linearly from the outer to the inner media rate. Logical bytes fill
//!   tracks in order: track `k` is on cylinder `k / heads`, head `k % heads`
//!   (cylinder-major, DiskSim's classic layout; no serpentine). The stroke covers
//!   only the cylinders the capacity needs.
//! - **Seek curve.** DiskSim's three-point model: `seek(0) = 0`,
//!   `seek(1) = single-cylinder`, otherwise `a·√d + b·d + c` fitted through
//!   (1, single), (cylinders/3, average) and (cylinders−1, full stroke).
//! - **Rotation.** The platter angle is `(t + spindle phase) mod rotation` for
//!   absolute virtual time `t`. The spindle phase is 0 unless a caller sets it
//!   ([`DiskMechanics::set_spindle_phase_ns`]): the drive's spindle and the host's
//!   clock run from independent crystals (tens of ppm apart), so where the platter
//!   stands at a given host time is neither controlled nor repeatable between real
//!   runs; a seeded phase is how an experiment draws it. A byte's angular position
//!   is its offset in the track plus a per-track skew equal to the cumulative switch
//!   time of the tracks before it (a head switch, or `max(head switch, seek(1))`
//!   into the next cylinder), so a transfer that runs
//!   off the end of a track continues on the next one after exactly the switch time
//!   and loses no rotation.
//! - **Positioning.** A cylinder change costs the seek (a head change overlaps
//!   it); a head change on the same cylinder costs `head_switch_ns`; then the head
//!   waits for the first byte to come round.
//! - **Sequential streaming.** Real drives keep a sequential stream going with
//!   read-ahead (reads) and the write cache (writes): when the host issues the next
//!   request right after the previous one completed (QD1), the media never stopped.
//!   So a request that starts exactly where the previous media transfer ended and
//!   is ready no later than one rotation after it ended continues the stream: its
//!   transfer runs from the previous media end, with no seek or rotational wait,
//!   and completes at the later of that transfer's end and the request's arrival
//!   (data read ahead before the request arrived is returned at once). QD1
//!   sequential throughput therefore equals the media rate. The read-ahead window
//!   is one rotation; a later request repositions normally.
//! - **The drive's read buffer.** A read ([`DiskMechanics::access_read`]) that
//!   starts inside the last transfer's bytes is served from the drive's buffer
//!   for that part, and only its bytes past the stream's end come from the media,
//!   as a continuation of the stream. Drives keep what they last transferred in
//!   their segmented cache and keep reading ahead (read look-ahead, on by
//!   default: the SCSI caching mode page's DRA bit is 0, ATA's read look-ahead
//!   feature is enabled), so re-reading a sector just read costs no rotation.
//!   Direct-I/O readers hit this all the time: a 4,157-byte RocksDB data block
//!   is read as whole 4 KiB pages, so consecutive blocks' reads share a page.
//!   Only data a read brought in counts: after a write (or a flush of the write
//!   cache) the exact rule holds, so write-side timings are unchanged.

use zonelab_engine::{Ns, Timeline, NS_PER_S};

/// Parameters of a disk's mechanics, in base units. Check them with
/// [`DiskParams::validate`] before building a [`DiskMechanics`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskParams {
    pub capacity_bytes: u64,
    pub rpm: u32,
    /// Recording surfaces (one head each).
    pub heads: u32,
    /// Recording bands (zoned bit recording), outer to inner.
    pub recording_zones: u32,
    /// Physical sector; a track holds a whole number of them.
    pub sector_bytes: u32,
    /// Media rate on an outer-band track (bytes/s while a track passes the head).
    pub outer_bytes_per_s: u64,
    /// Media rate on an inner-band track.
    pub inner_bytes_per_s: u64,
    pub head_switch_ns: Ns,
    pub single_cylinder_seek_ns: Ns,
    pub average_seek_ns: Ns,
    pub full_stroke_seek_ns: Ns,
}

/// A [`DiskParams`] value outside what the model supports: the field (as named in
/// [`DiskParams`]), its value and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskParamError {
    pub field: &'static str,
    pub value: String,
    pub allowed: String,
}

impl std::fmt::Display for DiskParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "disk parameter `{}` = {} is out of range (allowed: {})",
            self.field, self.value, self.allowed
        )
    }
}

impl std::error::Error for DiskParamError {}

/// Fewest cylinders the three-point seek fit needs (1 < cylinders/3 < cylinders−1).
pub const MIN_CYLINDERS: u64 = 6;

impl DiskParams {
    /// One revolution, rounded to the nanosecond.
    pub fn rotation_ns(&self) -> Ns {
        (60 * NS_PER_S + self.rpm as u64 / 2) / self.rpm as u64
    }

    /// Checks every value and the relations between them (rates, seek times, a
    /// geometry the seek fit can use, a monotone seek curve).
    pub fn validate(&self) -> Result<(), DiskParamError> {
        let err = |field: &'static str, value: String, allowed: &str| {
            Err(DiskParamError {
                field,
                value,
                allowed: allowed.to_string(),
            })
        };
        if self.capacity_bytes == 0 {
            return err("capacity_bytes", self.capacity_bytes.to_string(), "> 0");
        }
        if !(1_000..=30_000).contains(&self.rpm) {
            return err("rpm", self.rpm.to_string(), "1000..=30000");
        }
        if !(1..=256).contains(&self.heads) {
            return err("heads", self.heads.to_string(), "1..=256");
        }
        if !(1..=1_000).contains(&self.recording_zones) {
            return err(
                "recording_zones",
                self.recording_zones.to_string(),
                "1..=1000",
            );
        }
        if !self.sector_bytes.is_power_of_two() || !(512..=65_536).contains(&self.sector_bytes) {
            return err(
                "sector_bytes",
                self.sector_bytes.to_string(),
                "a power of two in 512..=65536",
            );
        }
        if self.outer_bytes_per_s == 0 {
            return err(
                "outer_bytes_per_s",
                self.outer_bytes_per_s.to_string(),
                "> 0",
            );
        }
        if self.inner_bytes_per_s == 0 || self.inner_bytes_per_s > self.outer_bytes_per_s {
            return err(
                "inner_bytes_per_s",
                self.inner_bytes_per_s.to_string(),
                "1..=outer_bytes_per_s",
            );
        }
        let inner_track =
            self.inner_bytes_per_s as u128 * self.rotation_ns() as u128 / NS_PER_S as u128;
        if inner_track < self.sector_bytes as u128 {
            return err(
                "inner_bytes_per_s",
                self.inner_bytes_per_s.to_string(),
                "a rate at which an inner track holds at least one sector",
            );
        }
        if self.head_switch_ns >= self.rotation_ns() {
            return err(
                "head_switch_ns",
                self.head_switch_ns.to_string(),
                "less than one rotation",
            );
        }
        if self.single_cylinder_seek_ns > self.average_seek_ns {
            return err(
                "single_cylinder_seek_ns",
                self.single_cylinder_seek_ns.to_string(),
                "at most average_seek_ns",
            );
        }
        if self.average_seek_ns > self.full_stroke_seek_ns {
            return err(
                "average_seek_ns",
                self.average_seek_ns.to_string(),
                "at most full_stroke_seek_ns",
            );
        }
        let cylinders = DiskGeometry::new(self).cylinders();
        if cylinders < MIN_CYLINDERS {
            return err(
                "capacity_bytes",
                self.capacity_bytes.to_string(),
                &format!("enough for at least {MIN_CYLINDERS} cylinders with this geometry (got {cylinders})"),
            );
        }
        let curve = SeekCurve::fit(
            cylinders,
            self.single_cylinder_seek_ns,
            self.average_seek_ns,
            self.full_stroke_seek_ns,
        );
        if !curve.is_monotone() {
            return err(
                "average_seek_ns",
                self.average_seek_ns.to_string(),
                "a value for which a·√d + b·d + c through (1, single), (cylinders/3, average), (cylinders−1, full) never decreases",
            );
        }
        Ok(())
    }
}

/// One recording band: consecutive tracks of equal size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RecordingZone {
    first_byte: u64,
    first_track: u64,
    tracks: u64,
    track_bytes: u64,
}

/// Where a byte lies: its track, its offset in the track, the track's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackPos {
    pub track: u64,
    pub offset_bytes: u64,
    pub track_bytes: u64,
    /// Index of the recording band.
    pub band: u32,
}

/// Layout of bytes on tracks, cylinders and heads, and the rotational skew.
#[derive(Debug, Clone)]
pub struct DiskGeometry {
    capacity_bytes: u64,
    rotation_ns: Ns,
    heads: u64,
    head_switch_ns: Ns,
    cylinder_switch_ns: Ns,
    bands: Vec<RecordingZone>,
    tracks: u64,
}

impl DiskGeometry {
    /// Lays out `p.capacity_bytes` over equal-cylinder bands; the last band holds
    /// only the tracks the capacity needs.
    pub fn new(p: &DiskParams) -> Self {
        assert!(
            p.rpm > 0
                && p.heads > 0
                && p.recording_zones > 0
                && p.sector_bytes > 0
                && p.capacity_bytes > 0
        );
        let rotation_ns = p.rotation_ns();
        let n = p.recording_zones as u64;
        let sector = p.sector_bytes as u64;
        let track_bytes: Vec<u64> = (0..n)
            .map(|z| {
                let drop = if n == 1 {
                    0
                } else {
                    (p.outer_bytes_per_s - p.inner_bytes_per_s) as u128 * z as u128
                        / (n - 1) as u128
                };
                let rate = p.outer_bytes_per_s as u128 - drop;
                let bytes = (rate * rotation_ns as u128 / NS_PER_S as u128) as u64;
                (bytes / sector * sector).max(sector)
            })
            .collect();
        let heads = p.heads as u64;
        let bytes_per_cylinder_all_bands: u128 =
            track_bytes.iter().map(|&b| b as u128 * heads as u128).sum();
        let cylinders_per_band =
            (p.capacity_bytes as u128).div_ceil(bytes_per_cylinder_all_bands) as u64;
        let tracks_per_band = cylinders_per_band * heads;
        let mut bands = Vec::with_capacity(n as usize);
        let (mut first_byte, mut first_track) = (0u64, 0u64);
        for &tb in &track_bytes {
            if first_byte >= p.capacity_bytes {
                break;
            }
            let tracks = tracks_per_band.min((p.capacity_bytes - first_byte).div_ceil(tb));
            bands.push(RecordingZone {
                first_byte,
                first_track,
                tracks,
                track_bytes: tb,
            });
            first_byte += tracks * tb;
            first_track += tracks;
        }
        let cylinder_switch_ns = p.head_switch_ns.max(p.single_cylinder_seek_ns);
        Self {
            capacity_bytes: p.capacity_bytes,
            rotation_ns,
            heads,
            head_switch_ns: p.head_switch_ns,
            cylinder_switch_ns,
            bands,
            tracks: first_track,
        }
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    pub fn rotation_ns(&self) -> Ns {
        self.rotation_ns
    }

    pub fn heads(&self) -> u32 {
        self.heads as u32
    }

    /// Tracks holding data.
    pub fn tracks(&self) -> u64 {
        self.tracks
    }

    /// Cylinders holding data (the actuator's stroke).
    pub fn cylinders(&self) -> u64 {
        self.tracks.div_ceil(self.heads)
    }

    /// Recording bands that hold data.
    pub fn bands(&self) -> u32 {
        self.bands.len() as u32
    }

    /// Bytes on one track of band `band`.
    pub fn band_track_bytes(&self, band: u32) -> u64 {
        self.bands[band as usize].track_bytes
    }

    #[inline]
    pub fn cylinder_of(&self, track: u64) -> u64 {
        track / self.heads
    }

    #[inline]
    pub fn head_of(&self, track: u64) -> u32 {
        (track % self.heads) as u32
    }

    /// Track, offset in track and track size of byte `offset` (< capacity).
    #[inline]
    pub fn locate(&self, offset_bytes: u64) -> TrackPos {
        debug_assert!(offset_bytes < self.capacity_bytes);
        let band = self.bands.partition_point(|b| b.first_byte <= offset_bytes) - 1;
        let b = &self.bands[band];
        let in_band = offset_bytes - b.first_byte;
        TrackPos {
            track: b.first_track + in_band / b.track_bytes,
            offset_bytes: in_band % b.track_bytes,
            track_bytes: b.track_bytes,
            band: band as u32,
        }
    }

    /// Time to go from the end of `track` to the start of `track + 1` while
    /// streaming: a head switch, or a cylinder switch into the next cylinder.
    #[inline]
    pub fn switch_after_ns(&self, track: u64) -> Ns {
        if (track + 1).is_multiple_of(self.heads) {
            self.cylinder_switch_ns
        } else {
            self.head_switch_ns
        }
    }

    /// Angular position (as a time within one rotation) of the first byte of
    /// `track`: the cumulative switch time of all tracks before it.
    #[inline]
    pub fn skew_ns(&self, track: u64) -> Ns {
        let cylinder_switches = track / self.heads;
        let head_switches = track - cylinder_switches;
        let total = head_switches as u128 * self.head_switch_ns as u128
            + cylinder_switches as u128 * self.cylinder_switch_ns as u128;
        (total % self.rotation_ns as u128) as Ns
    }

    /// Time, from the track's first byte, until byte `offset` of a track of
    /// `track_bytes` passes the head.
    #[inline]
    fn in_track_ns(&self, offset_bytes: u64, track_bytes: u64) -> Ns {
        (offset_bytes as u128 * self.rotation_ns as u128 / track_bytes as u128) as Ns
    }

    /// Angular position of a byte (as a time within one rotation): the byte is
    /// under the head at every time `t` with `t mod rotation == phase_ns`.
    #[inline]
    pub fn phase_ns(&self, pos: TrackPos) -> Ns {
        (self.skew_ns(pos.track) + self.in_track_ns(pos.offset_bytes, pos.track_bytes))
            % self.rotation_ns
    }

    /// Media time to transfer `len_bytes` from `pos` once the head is there, with
    /// track/cylinder switches; also the last track touched and the switch count.
    fn transfer_span(&self, pos: TrackPos, len_bytes: u64) -> (Ns, u64, u64) {
        debug_assert!(len_bytes > 0);
        let mut band = pos.band as usize;
        let mut track = pos.track;
        let mut offset = pos.offset_bytes;
        let mut track_bytes = pos.track_bytes;
        let mut remaining = len_bytes;
        let mut t: Ns = 0;
        let mut switches = 0;
        loop {
            let avail = track_bytes - offset;
            if remaining <= avail {
                t += self.in_track_ns(offset + remaining, track_bytes)
                    - self.in_track_ns(offset, track_bytes);
                return (t, track, switches);
            }
            t += self.rotation_ns - self.in_track_ns(offset, track_bytes);
            remaining -= avail;
            t += self.switch_after_ns(track);
            switches += 1;
            track += 1;
            offset = 0;
            let b = &self.bands[band];
            if track >= b.first_track + b.tracks {
                band += 1;
                track_bytes = self.bands[band].track_bytes;
            }
        }
    }

    /// Sustained media rate (bytes/s) of a long sequential transfer in band
    /// `band`: one track per rotation plus the switch to the next track.
    pub fn sustained_bytes_per_s(&self, band: u32) -> f64 {
        let tb = self.bands[band as usize].track_bytes as f64;
        let per_cylinder_switch_ns = ((self.heads - 1) * self.head_switch_ns
            + self.cylinder_switch_ns) as f64
            / self.heads as f64;
        tb * NS_PER_S as f64 / (self.rotation_ns as f64 + per_cylinder_switch_ns)
    }
}

/// DiskSim's three-point seek curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeekCurve {
    a: f64,
    b: f64,
    c: f64,
    single_ns: Ns,
    cylinders: u64,
}

impl SeekCurve {
    /// Fits `a·√d + b·d + c` through (1, single), (cylinders/3, average) and
    /// (cylinders−1, full). Needs at least [`MIN_CYLINDERS`] cylinders.
    pub fn fit(cylinders: u64, single_ns: Ns, average_ns: Ns, full_ns: Ns) -> Self {
        assert!(
            cylinders >= MIN_CYLINDERS,
            "seek fit needs at least {MIN_CYLINDERS} cylinders"
        );
        let xs = [1.0, (cylinders / 3) as f64, (cylinders - 1) as f64];
        let ys = [single_ns as f64, average_ns as f64, full_ns as f64];
        // Rows (√x, x, 1); Cramer's rule on the 3×3 system.
        let m = xs.map(|x| [x.sqrt(), x, 1.0]);
        let det3 = |r: [[f64; 3]; 3]| {
            r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
                - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
                + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0])
        };
        let d = det3(m);
        let with_col = |col: usize| {
            let mut r = m;
            for (row, y) in r.iter_mut().zip(ys) {
                row[col] = y;
            }
            det3(r) / d
        };
        Self {
            a: with_col(0),
            b: with_col(1),
            c: with_col(2),
            single_ns,
            cylinders,
        }
    }

    /// Seek time over `distance` cylinders.
    #[inline]
    pub fn seek_ns(&self, distance: u64) -> Ns {
        match distance {
            0 => 0,
            1 => self.single_ns,
            d => {
                let x = d as f64;
                (self.a * x.sqrt() + self.b * x + self.c).round().max(0.0) as Ns
            }
        }
    }

    /// The curve never decreases over 1..cylinders. Its slope `a/(2√d) + b` is
    /// monotone in `d`, so checking both ends suffices.
    pub fn is_monotone(&self) -> bool {
        let slope = |d: f64| self.a / (2.0 * d.sqrt()) + self.b;
        let last = (self.cylinders - 1) as f64;
        slope(1.0) >= -1e-9 && slope(last) >= -1e-9 && self.seek_ns(2) >= self.single_ns
    }
}

/// What one access did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskAccess {
    /// When the actuator began serving the request (after queueing); for a
    /// streamed request, the end of the previous media transfer.
    pub start_ns: Ns,
    /// When the first byte passed the head.
    pub media_start_ns: Ns,
    /// When the last byte passed the head.
    pub media_done_ns: Ns,
    /// When the data is transferred as far as the request is concerned: the later
    /// of `media_done_ns` and the request's arrival.
    pub done_ns: Ns,
    pub seek_ns: Ns,
    pub rotational_wait_ns: Ns,
    /// Continued a sequential stream (no positioning).
    pub streamed: bool,
}

/// Running counts of what the mechanics did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskCounters {
    pub accesses: u64,
    /// Positionings that moved the actuator to another cylinder.
    pub seeks: u64,
    /// Positionings that only switched heads.
    pub head_switches: u64,
    /// Track/cylinder switches inside transfers.
    pub track_switches: u64,
    /// Accesses that continued a sequential stream.
    pub streamed: u64,
    /// Reads served wholly from the drive's buffer (no media access).
    pub buffer_hits: u64,
    pub seek_ns: Ns,
    pub rotational_wait_ns: Ns,
    pub transfer_ns: Ns,
}

/// A disk's mechanics with its actuator timeline and stream state.
#[derive(Debug, Clone)]
pub struct DiskMechanics {
    geometry: DiskGeometry,
    seek: SeekCurve,
    actuator: Timeline,
    /// Track the head is on.
    head_track: u64,
    /// First byte of the last transfer: after a read the drive's buffer holds
    /// `stream_start_offset..stream_end_offset` while the stream is valid.
    stream_start_offset: u64,
    /// The last transfer was a read ([`Self::access_read`]).
    stream_is_read: bool,
    /// Byte after the last one transferred, and when it passed the head.
    stream_end_offset: u64,
    stream_end_ns: Ns,
    stream_valid: bool,
    /// Platter angle (as a time within one rotation) at virtual time 0.
    spindle_phase_ns: Ns,
    counters: DiskCounters,
}

impl DiskMechanics {
    /// Builds the mechanics. `p` must pass [`DiskParams::validate`] (a device
    /// validates its profile first); invalid parameters panic here.
    pub fn new(p: &DiskParams) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid disk parameters: {e}");
        }
        let geometry = DiskGeometry::new(p);
        let seek = SeekCurve::fit(
            geometry.cylinders(),
            p.single_cylinder_seek_ns,
            p.average_seek_ns,
            p.full_stroke_seek_ns,
        );
        Self {
            geometry,
            seek,
            actuator: Timeline::new(),
            head_track: 0,
            stream_start_offset: 0,
            stream_is_read: false,
            stream_end_offset: 0,
            stream_end_ns: 0,
            stream_valid: false,
            spindle_phase_ns: 0,
            counters: DiskCounters::default(),
        }
    }

    pub fn geometry(&self) -> &DiskGeometry {
        &self.geometry
    }

    pub fn seek_curve(&self) -> &SeekCurve {
        &self.seek
    }

    pub fn counters(&self) -> DiskCounters {
        self.counters
    }

    /// Time the actuator is next free.
    pub fn actuator_free_at_ns(&self) -> Ns {
        self.actuator.free_at_ns()
    }

    /// Actuator busy fraction over `elapsed_ns` (seeking, waiting for rotation,
    /// transferring, reading ahead).
    pub fn utilisation(&self, elapsed_ns: Ns) -> f64 {
        if elapsed_ns == 0 {
            0.0
        } else {
            (self.actuator.busy_ns() as f64 / elapsed_ns as f64).min(1.0)
        }
    }

    /// Positioning time from the current track to `track`.
    #[inline]
    /// The head arrives over the track at `arrive_ns`: waits for the sector to come
    /// round, then transfers. Returns (rotational wait, media start, media done).
    fn rotate_and_transfer(&self, arrive_ns: Ns, pos: TrackPos, xfer_ns: Ns) -> (Ns, Ns, Ns) {
        let rotation = self.geometry.rotation_ns;
        let phase = self.geometry.phase_ns(pos);
        let angle = (arrive_ns % rotation + self.spindle_phase_ns) % rotation;
        let wait = (phase + rotation - angle) % rotation;
        let media_start = arrive_ns + wait;
        (wait, media_start, media_start + xfer_ns)
    }

    /// Counts one positioning (seek and/or head switch, then rotational wait).
    fn count_positioning(&mut self, seeked: bool, head_switched: bool, seek_ns: Ns, wait_ns: Ns) {
        let c = &mut self.counters;
        if seeked {
            c.seeks += 1;
            c.seek_ns += seek_ns;
        }
        if head_switched {
            c.head_switches += 1;
        }
        c.rotational_wait_ns += wait_ns;
    }

    /// Counts one access's media transfer.
    fn count_transfer(&mut self, track_switches: u64, xfer_ns: Ns) {
        let c = &mut self.counters;
        c.accesses += 1;
        c.track_switches += track_switches;
        c.transfer_ns += xfer_ns;
    }

    fn position_ns(&self, track: u64) -> (Ns, bool, bool) {
        self.position_from_ns(self.head_track, track)
    }

    /// Positioning time from track `from` to track `to`.
    #[inline]
    fn position_from_ns(&self, from: u64, track: u64) -> (Ns, bool, bool) {
        let g = &self.geometry;
        let distance = g.cylinder_of(track).abs_diff(g.cylinder_of(from));
        let head_change = g.head_of(track) != g.head_of(from);
        let switch = if head_change { g.head_switch_ns } else { 0 };
        if distance > 0 {
            (self.seek.seek_ns(distance).max(switch), true, false)
        } else {
            (switch, false, head_change)
        }
    }

    /// Ends the sequential stream: the next access positions and waits for its
    /// sector even if it starts where the last transfer ended. A drive-side cache
    /// that restarts writing after a pause (a flush batch) has missed the next
    /// sector and waits for it to come round, which this models.
    /// Sets where the platter stands relative to the host's clock: from now on the
    /// angle at time `t` is `(t + phase_ns) mod rotation`. Ends a running stream
    /// (its next byte no longer passes the head when the stream expected) if the
    /// phase changes.
    pub fn set_spindle_phase_ns(&mut self, phase_ns: Ns) {
        let phase_ns = phase_ns % self.geometry.rotation_ns;
        if phase_ns != self.spindle_phase_ns {
            self.spindle_phase_ns = phase_ns;
            self.stream_valid = false;
        }
    }

    /// The platter angle at virtual time 0 (see [`Self::set_spindle_phase_ns`]).
    pub fn spindle_phase_ns(&self) -> Ns {
        self.spindle_phase_ns
    }

    pub fn end_stream(&mut self) {
        self.stream_valid = false;
    }

    /// The track holding byte `offset_bytes`.
    pub fn track_of(&self, offset_bytes: u64) -> u64 {
        self.geometry.locate(offset_bytes).track
    }

    /// Transfers `len_bytes` from byte `offset_bytes` ahead of accesses already
    /// booked: a host scheduler dispatched it into the slot starting at `slot_ns`
    /// (never before `ready_ns`), where the access before the slot leaves the head
    /// on `from_track`. The booked work after the slot is pushed back by the
    /// returned shift — this access's span from the slot, plus, when the first
    /// pushed-back access continued a sequential stream (`resumes_stream_at_track`),
    /// the positioning back to that stream and half a rotation (the mean
    /// rotational wait): the inserted access broke the stream. The actuator's free
    /// time and the stream's end move back by the shift; the head position and
    /// stream of the last booked access are unchanged (it still ends the queue).
    /// Completion times already returned for the pushed-back accesses are not
    /// revised (the reservation model answers at submission; see
    /// `zonelab_devices::models::hdd_queue`).
    pub fn access_ahead(
        &mut self,
        ready_ns: Ns,
        slot_ns: Ns,
        from_track: u64,
        offset_bytes: u64,
        len_bytes: u64,
        resumes_stream_at_track: Option<u64>,
    ) -> (DiskAccess, Ns) {
        assert!(
            len_bytes > 0
                && offset_bytes < self.geometry.capacity_bytes
                && self.geometry.capacity_bytes - offset_bytes >= len_bytes
        );
        let pos = self.geometry.locate(offset_bytes);
        let (xfer_ns, end_track, switches) = self.geometry.transfer_span(pos, len_bytes);
        let rotation = self.geometry.rotation_ns;
        let start = ready_ns.max(slot_ns);
        let (position, seeked, head_switched) = self.position_from_ns(from_track, pos.track);
        let (wait, media_start, media_done) =
            self.rotate_and_transfer(start + position, pos, xfer_ns);
        let resume_ns = resumes_stream_at_track
            .map_or(0, |t| self.position_from_ns(end_track, t).0 + rotation / 2);
        let busy = media_done - start + resume_ns;
        let shift = media_done - slot_ns + resume_ns;
        self.actuator.push_back(shift, busy);
        self.stream_end_ns += shift;
        self.count_positioning(seeked, head_switched, position, wait);
        self.count_transfer(switches, xfer_ns);
        let access = DiskAccess {
            start_ns: start,
            media_start_ns: media_start,
            media_done_ns: media_done,
            done_ns: media_done,
            seek_ns: position,
            rotational_wait_ns: wait,
            streamed: false,
        };
        (access, shift)
    }

    /// Transfers `len_bytes` from byte `offset_bytes`, the request being ready at
    /// `ready_ns`. Requests queue on the actuator in call order. A write, or any
    /// access whose direction the caller does not know: only a request starting
    /// exactly at the stream's end continues it.
    pub fn access(&mut self, ready_ns: Ns, offset_bytes: u64, len_bytes: u64) -> DiskAccess {
        self.access_inner(ready_ns, offset_bytes, len_bytes, false)
    }

    /// A read: like [`Self::access`], but a read starting inside the last (read)
    /// transfer's bytes is served from the drive's buffer up to the stream's end
    /// and continues the stream past it (module docs, "The drive's read buffer").
    pub fn access_read(&mut self, ready_ns: Ns, offset_bytes: u64, len_bytes: u64) -> DiskAccess {
        self.access_inner(ready_ns, offset_bytes, len_bytes, true)
    }

    fn access_inner(
        &mut self,
        ready_ns: Ns,
        offset_bytes: u64,
        len_bytes: u64,
        from_buffer: bool,
    ) -> DiskAccess {
        assert!(
            len_bytes > 0
                && offset_bytes < self.geometry.capacity_bytes
                && self.geometry.capacity_bytes - offset_bytes >= len_bytes
        );
        let rotation = self.geometry.rotation_ns;
        let in_window = self.stream_valid && ready_ns <= self.stream_end_ns + rotation;
        let starts_in_buffer = from_buffer
            && self.stream_is_read
            && self.stream_start_offset <= offset_bytes
            && offset_bytes < self.stream_end_offset;
        let end_offset = offset_bytes + len_bytes;
        if in_window && starts_in_buffer && end_offset <= self.stream_end_offset {
            // Every byte is in the drive's buffer: no media access, the stream and
            // the head stay as they are.
            self.counters.buffer_hits += 1;
            self.counters.accesses += 1;
            let done = ready_ns.max(self.stream_end_ns);
            return DiskAccess {
                start_ns: ready_ns,
                media_start_ns: done,
                media_done_ns: done,
                done_ns: done,
                seek_ns: 0,
                rotational_wait_ns: 0,
                streamed: true,
            };
        }
        let streamed = in_window && (offset_bytes == self.stream_end_offset || starts_in_buffer);
        // A streamed request reads from the media only what lies past the stream's
        // end (a read starting inside the buffer takes the rest from it).
        let media_offset = if streamed {
            self.stream_end_offset
        } else {
            offset_bytes
        };
        let pos = self.geometry.locate(media_offset);
        let (xfer_ns, end_track, switches) =
            self.geometry.transfer_span(pos, end_offset - media_offset);
        let access = if streamed {
            // The media kept going (read-ahead / write cache) since the last
            // transfer ended; the actuator was busy all along.
            let media_start = self.stream_end_ns;
            let media_done = media_start + xfer_ns;
            self.actuator.hold_until(media_done);
            self.counters.streamed += 1;
            DiskAccess {
                start_ns: media_start,
                media_start_ns: media_start,
                media_done_ns: media_done,
                done_ns: media_done.max(ready_ns),
                seek_ns: 0,
                rotational_wait_ns: 0,
                streamed: true,
            }
        } else {
            let start = ready_ns.max(self.actuator.free_at_ns());
            let (position, seeked, head_switched) = self.position_ns(pos.track);
            let (wait, media_start, media_done) =
                self.rotate_and_transfer(start + position, pos, xfer_ns);
            self.actuator.reserve(start, media_done - start);
            self.count_positioning(seeked, head_switched, position, wait);
            DiskAccess {
                start_ns: start,
                media_start_ns: media_start,
                media_done_ns: media_done,
                done_ns: media_done,
                seek_ns: position,
                rotational_wait_ns: wait,
                streamed: false,
            }
        };
        self.count_transfer(switches, xfer_ns);
        self.head_track = end_track;
        self.stream_start_offset = offset_bytes;
        self.stream_is_read = from_buffer;
        self.stream_end_offset = end_offset;
        self.stream_end_ns = access.media_done_ns;
        self.stream_valid = self.stream_end_offset < self.geometry.capacity_bytes;
        access
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_engine::{ms_to_ns, MIB};

    /// A small 7,200-rpm disk: 2 heads, 4 bands, 100 → 50 MB/s.
    fn params() -> DiskParams {
        DiskParams {
            capacity_bytes: 256 * MIB,
            rpm: 7_200,
            heads: 2,
            recording_zones: 4,
            sector_bytes: 4096,
            outer_bytes_per_s: 100_000_000,
            inner_bytes_per_s: 50_000_000,
            head_switch_ns: ms_to_ns(1.0),
            single_cylinder_seek_ns: ms_to_ns(0.8),
            average_seek_ns: ms_to_ns(4.0),
            full_stroke_seek_ns: ms_to_ns(8.0),
        }
    }

    #[test]
    fn seek_curve_passes_through_the_three_points_and_is_monotone() {
        let c = SeekCurve::fit(300_000, ms_to_ns(0.5), ms_to_ns(4.3), ms_to_ns(9.0));
        assert_eq!(c.seek_ns(0), 0);
        assert_eq!(c.seek_ns(1), ms_to_ns(0.5));
        assert!(c.seek_ns(100_000).abs_diff(ms_to_ns(4.3)) <= 1);
        assert!(c.seek_ns(299_999).abs_diff(ms_to_ns(9.0)) <= 1);
        assert!(c.is_monotone());
        let distances: Vec<u64> = (0..300).chain((300..300_000).step_by(97)).collect();
        for w in distances.windows(2) {
            assert!(
                c.seek_ns(w[1]) >= c.seek_ns(w[0]),
                "seek({}) < seek({})",
                w[1],
                w[0]
            );
        }
    }

    #[test]
    fn an_average_too_close_to_full_stroke_makes_a_non_monotone_curve_and_is_rejected() {
        let c = SeekCurve::fit(300_000, ms_to_ns(0.5), ms_to_ns(8.9), ms_to_ns(9.0));
        assert!(!c.is_monotone());
        let mut p = params();
        p.average_seek_ns = ms_to_ns(7.99);
        assert_eq!(p.validate().unwrap_err().field, "average_seek_ns");
        p.average_seek_ns = ms_to_ns(9.0);
        assert_eq!(p.validate().unwrap_err().field, "average_seek_ns");
    }

    #[test]
    fn tracks_shrink_linearly_from_outer_to_inner_and_map_cylinder_major() {
        let p = params();
        let g = DiskGeometry::new(&p);
        let rot = p.rotation_ns();
        assert_eq!(rot, 8_333_333);
        // 100 MB/s × 8.33 ms = 833,333 bytes → 203 sectors of 4 KiB.
        assert_eq!(g.band_track_bytes(0), 203 * 4096);
        // 50 MB/s × 8.33 ms = 416,666 bytes → 101 sectors.
        assert_eq!(g.band_track_bytes(3), 101 * 4096);
        let steps: Vec<u64> = (0..3)
            .map(|z| g.band_track_bytes(z) - g.band_track_bytes(z + 1))
            .collect();
        assert!(
            steps.iter().all(|&s| s.abs_diff(steps[0]) <= 4096),
            "{steps:?}"
        );
        let tb = g.band_track_bytes(0);
        assert_eq!(
            g.locate(0),
            TrackPos {
                track: 0,
                offset_bytes: 0,
                track_bytes: tb,
                band: 0
            }
        );
        let p1 = g.locate(tb + 5);
        assert_eq!((p1.track, p1.offset_bytes), (1, 5));
        assert_eq!((g.cylinder_of(1), g.head_of(1)), (0, 1));
        assert_eq!((g.cylinder_of(2), g.head_of(2)), (1, 0));
        // Every byte maps inside the layout; the last one on the last track.
        let last = g.locate(p.capacity_bytes - 1);
        assert_eq!(last.track, g.tracks() - 1);
        assert!(last.offset_bytes < last.track_bytes);
        assert!(g.cylinders() >= MIN_CYLINDERS);
        // Band boundaries: the first byte of band 1 starts a track.
        let b1 = g.bands[1];
        assert_eq!(
            g.locate(b1.first_byte),
            TrackPos {
                track: b1.first_track,
                offset_bytes: 0,
                track_bytes: b1.track_bytes,
                band: 1
            }
        );
        assert_eq!(g.locate(b1.first_byte - 1).band, 0);
    }

    #[test]
    fn skew_makes_the_next_track_start_exactly_one_switch_after_the_previous_ends() {
        let p = params();
        let g = DiskGeometry::new(&p);
        let rot = g.rotation_ns();
        for k in 0..50 {
            let end_of_k = (g.skew_ns(k) + rot) % rot;
            let next = g.skew_ns(k + 1);
            assert_eq!((end_of_k + g.switch_after_ns(k)) % rot, next, "track {k}");
        }
        // Into the next cylinder the switch is max(head switch, single-cylinder seek).
        assert_eq!(g.switch_after_ns(0), ms_to_ns(1.0));
        assert_eq!(g.switch_after_ns(1), ms_to_ns(1.0));
    }

    #[test]
    fn rotation_sets_the_wait_for_a_sector() {
        let mut d = DiskMechanics::new(&params());
        let rot = d.geometry().rotation_ns();
        // Head on track 0 at time 0; byte 0 of track 0 has phase 0: no wait.
        let a = d.access(0, 0, 4096);
        assert_eq!(
            (a.seek_ns, a.rotational_wait_ns, a.media_start_ns),
            (0, 0, 0)
        );
        let xfer = a.media_done_ns;
        // Reading it again straight away: not a stream continuation, so the head
        // waits for the sector to come round again.
        let b = d.access(a.done_ns, 0, 4096);
        assert!(!b.streamed);
        assert_eq!(b.rotational_wait_ns, rot - xfer);
        assert_eq!(b.media_start_ns, rot);
        // A sector half a track away, from idle at a rotation boundary: half a
        // rotation of wait (same track, no seek).
        let tb = d.geometry().band_track_bytes(0);
        let half = (tb / 2 / 4096) * 4096;
        let c = d.access(10 * rot, half, 4096);
        let expect = (half as u128 * rot as u128 / tb as u128) as Ns;
        assert_eq!(c.rotational_wait_ns, expect);
    }

    #[test]
    fn a_read_overlapping_the_last_read_comes_from_the_buffer_and_streams_on() {
        let mut d = DiskMechanics::new(&params());
        let rot = d.geometry().rotation_ns();
        // Direct-I/O reads of consecutive 4,157-byte blocks share a 4 KiB page:
        // [0, 8192) then [4096, 12288). The shared page is in the drive's buffer
        // and only [8192, 12288) comes from the media, continuing the stream.
        let a = d.access_read(0, 0, 8192);
        let b = d.access_read(a.done_ns, 4096, 8192);
        assert!(b.streamed);
        assert_eq!(b.media_start_ns, a.media_done_ns);
        assert_eq!(b.rotational_wait_ns, 0);
        let page_ns = a.media_done_ns - a.media_start_ns;
        assert!(
            b.media_done_ns - b.media_start_ns < page_ns,
            "one new page only"
        );
        // A read wholly inside the buffer needs no media at all.
        let c = d.access_read(b.done_ns, 8192, 4096);
        assert_eq!(c.done_ns, b.done_ns);
        assert_eq!(d.counters().buffer_hits, 1);
        // The plain access (a write, or a caller that does not say) keeps the
        // exact rule: the same overlap waits for the sector to come round.
        let mut w = DiskMechanics::new(&params());
        let a = w.access(0, 0, 8192);
        let b = w.access(a.done_ns, 4096, 8192);
        assert!(!b.streamed);
        assert!(b.rotational_wait_ns > rot / 2, "{}", b.rotational_wait_ns);
        // And data a write left behind is not read back from the buffer.
        let r = w.access_read(b.done_ns, 4096, 4096);
        assert!(!r.streamed);
    }

    #[test]
    fn the_spindle_phase_shifts_every_rotational_wait_and_ends_the_stream() {
        let mut d = DiskMechanics::new(&params());
        let rot = d.geometry().rotation_ns();
        let quarter = rot / 4;
        // Byte 0 of track 0 is under the head at t mod rot == 0 with phase 0; with
        // the platter a quarter turn ahead it comes round three quarters later.
        d.set_spindle_phase_ns(quarter + 5 * rot);
        assert_eq!(d.spindle_phase_ns(), quarter);
        let a = d.access(0, 0, 4096);
        assert_eq!(a.rotational_wait_ns, rot - quarter);
        // A sequential follow-up streams, until the phase moves.
        let b = d.access(a.done_ns, 4096, 4096);
        assert!(b.streamed);
        d.set_spindle_phase_ns(quarter);
        let c = d.access(b.done_ns, 8192, 4096);
        assert!(c.streamed, "the same phase again changes nothing");
        d.set_spindle_phase_ns(0);
        let e = d.access(c.done_ns, 12288, 4096);
        assert!(!e.streamed);
    }

    #[test]
    fn a_transfer_across_tracks_loses_no_rotation() {
        let mut d = DiskMechanics::new(&params());
        let g = d.geometry().clone();
        let tb = g.band_track_bytes(0);
        let a = d.access(0, 0, 3 * tb);
        // Three full tracks: three rotations plus two switches (head 0→1, then
        // cylinder 0→1).
        assert_eq!(
            a.media_done_ns - a.media_start_ns,
            3 * g.rotation_ns() + g.switch_after_ns(0) + g.switch_after_ns(1)
        );
        assert_eq!(d.counters().track_switches, 2);
    }

    #[test]
    fn a_non_streamed_request_at_the_next_track_waits_only_for_the_switch() {
        let mut d = DiskMechanics::new(&params());
        let g = d.geometry().clone();
        let tb = g.band_track_bytes(0);
        let a = d.access(0, 0, tb);
        // Pretend another request broke the stream by reading the same track
        // elsewhere; then come back at the track's end time + k rotations.
        d.stream_valid = false;
        let b = d.access(a.media_done_ns + 3 * g.rotation_ns(), tb, 4096);
        assert!(!b.streamed);
        assert_eq!(b.seek_ns, g.switch_after_ns(0));
        assert_eq!(b.rotational_wait_ns, 0);
    }

    #[test]
    fn qd1_sequential_streaming_runs_at_the_media_rate() {
        let p = params();
        let mut d = DiskMechanics::new(&p);
        let req = MIB;
        let overhead = 50_000; // the host/controller turn-around between requests
        let mut now = 0;
        let first = d.access(now, 0, req);
        now = first.done_ns + overhead;
        let t0 = first.done_ns;
        let n = 40;
        for i in 1..=n {
            let a = d.access(now, i * req, req);
            assert!(a.streamed, "request {i}");
            assert_eq!(a.seek_ns + a.rotational_wait_ns, 0);
            now = a.done_ns + overhead;
        }
        let rate = (n * req) as f64 * NS_PER_S as f64 / (now - overhead - t0) as f64;
        let expected = d.geometry().sustained_bytes_per_s(0);
        assert!(
            (rate / expected - 1.0).abs() < 0.01,
            "rate {rate} expected {expected}"
        );
        // A gap longer than a rotation ends the stream.
        let late = d.access(now + 2 * d.geometry().rotation_ns(), (n + 1) * req, req);
        assert!(!late.streamed);
        assert!(d.utilisation(late.done_ns) > 0.9);
    }

    #[test]
    fn requests_queue_on_the_actuator() {
        let mut d = DiskMechanics::new(&params());
        let a = d.access(0, 100 * MIB, 4096);
        let b = d.access(0, 10 * MIB, 4096);
        assert!(b.start_ns == a.done_ns && b.done_ns > a.done_ns);
        assert!(a.seek_ns > 0 && d.counters().seeks == 2);
        let u = d.utilisation(b.done_ns);
        assert!((u - 1.0).abs() < 1e-9, "{u}");
    }

    #[test]
    fn validation_names_the_field() {
        let mut p = params();
        p.inner_bytes_per_s = 200_000_000;
        assert_eq!(p.validate().unwrap_err().field, "inner_bytes_per_s");
        let mut p = params();
        p.capacity_bytes = 4 * MIB;
        assert_eq!(p.validate().unwrap_err().field, "capacity_bytes");
        let mut p = params();
        p.rpm = 10;
        assert_eq!(p.validate().unwrap_err().field, "rpm");
        assert!(params().validate().is_ok());
    }
}
