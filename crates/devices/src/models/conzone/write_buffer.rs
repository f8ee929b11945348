//! The zoned namespace's write buffers (§3.2 "Conflicting Zone-Write Buffer
//! Mapping", Fig. 4): a few small buffers shared by all open zones. A buffer holds
//! one zone's data, a contiguous run of pages ending at the zone's write pointer.
//! A buffer being flushed is busy until its programs complete (reference code:
//! the buffer is released when the flush finishes); a write that needs it waits.

use super::config::BufferMapping;
use zonelab_engine::Ns;

/// One write buffer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Buffer {
    /// Zone the buffered data belongs to (`None` = empty and unbound).
    pub zone: Option<u32>,
    /// First buffered page, as an offset in the zone.
    pub start: u64,
    /// Buffered pages.
    pub pages: u64,
    /// The buffer's last flush completes at this time.
    pub busy_until_ns: Ns,
    /// The data last written into the buffer finished arriving at this time (a
    /// flush cannot start earlier: the request holding the buffer keeps it busy
    /// until its transfer ends, reference `schedule_internal_operation`).
    pub filled_ns: Ns,
}

impl Buffer {
    #[inline]
    pub fn holds(&self, zone: u32, offset: u64) -> bool {
        self.zone == Some(zone) && offset >= self.start && offset < self.start + self.pages
    }
}

/// What [`WriteBuffers::choose`] decided for a write to a zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Use buffer `idx` (bound to the zone, or empty).
    Use(usize),
    /// Buffer `idx` holds another zone's data: flush it first (a conflict).
    Evict(usize),
}

/// The buffer set and its zone-mapping policy.
#[derive(Debug)]
pub struct WriteBuffers {
    pub buffers: Vec<Buffer>,
    pub capacity_pages: u64,
    mapping: BufferMapping,
}

impl WriteBuffers {
    pub fn new(count: u32, capacity_pages: u64, mapping: BufferMapping) -> Self {
        Self {
            buffers: vec![Buffer::default(); count as usize],
            capacity_pages,
            mapping,
        }
    }

    /// Buffer currently holding data of `zone`, if any.
    pub fn bound(&self, zone: u32) -> Option<usize> {
        self.buffers.iter().position(|b| b.zone == Some(zone))
    }

    /// Picks the buffer for a write to `zone`.
    pub fn choose(&self, zone: u32) -> Choice {
        match self.mapping {
            BufferMapping::Modulo => {
                let idx = (zone % self.buffers.len() as u32) as usize;
                match self.buffers[idx].zone {
                    Some(z) if z != zone => Choice::Evict(idx),
                    _ => Choice::Use(idx),
                }
            }
            BufferMapping::Associative => {
                if let Some(idx) = self.bound(zone) {
                    return Choice::Use(idx);
                }
                // An empty buffer, the one free soonest (reference: wait for a
                // flushing buffer rather than evict another zone's data).
                let empty = self
                    .buffers
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.zone.is_none())
                    .min_by_key(|(i, b)| (b.busy_until_ns, *i))
                    .map(|(i, _)| i);
                if let Some(idx) = empty {
                    return Choice::Use(idx);
                }
                // All hold other zones' data: flush the fullest.
                let fullest = self
                    .buffers
                    .iter()
                    .enumerate()
                    .max_by_key(|(i, b)| (b.pages, std::cmp::Reverse(*i)))
                    .map(|(i, _)| i)
                    .expect("at least one buffer");
                Choice::Evict(fullest)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modulo_conflicts_on_same_parity_and_associative_evicts_the_fullest() {
        let mut m = WriteBuffers::new(2, 96, BufferMapping::Modulo);
        m.buffers[0].zone = Some(0);
        m.buffers[0].pages = 12;
        assert_eq!(m.choose(2), Choice::Evict(0));
        assert_eq!(m.choose(1), Choice::Use(1));
        assert_eq!(m.choose(0), Choice::Use(0));
        let mut a = WriteBuffers::new(2, 96, BufferMapping::Associative);
        a.buffers[0].zone = Some(0);
        a.buffers[0].pages = 12;
        assert_eq!(a.choose(5), Choice::Use(1));
        a.buffers[1].zone = Some(5);
        a.buffers[1].pages = 20;
        assert_eq!(a.choose(0), Choice::Use(0));
        assert_eq!(a.choose(7), Choice::Evict(1));
    }
}
