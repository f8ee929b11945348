//! An SSD's write buffer (DRAM, power-loss protected or not): a write is acknowledged once its bytes
//! are admitted here, and its space is released only when the program unit holding
//! the data completes on flash. When the host writes faster than the flash (and GC)
//! can program, admission waits for releases, so sustained writes become
//! flash-bound and GC pauses show up as host write latency.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_engine::Ns;

/// A release whose time may still move: the die and id of the program it waits
/// for (read-first scheduling pushes queued programs back; `die_queue.rs`).
pub type ReleaseTag = Option<(u32, u64)>;

/// Tag field of an untracked release.
const UNTRACKED: u32 = u32::MAX;

/// Bytes held until their program completes. Releases are kept in a min-heap of
/// (time, bytes, die, program id); its size is bounded by the buffer's program
/// units in flight, so after warm-up no request allocates. A tracked release is
/// checked again when it comes due: if its program has been pushed back since,
/// it moves to the program's new end (times only ever move later).
#[derive(Debug, Clone)]
pub struct WriteBuffer {
    capacity_bytes: u64,
    held_bytes: u64,
    releases: BinaryHeap<Reverse<(Ns, u64, u32, u64)>>,
}

impl WriteBuffer {
    pub fn new(capacity_bytes: u64) -> Self {
        Self {
            capacity_bytes,
            held_bytes: 0,
            releases: BinaryHeap::new(),
        }
    }

    /// Earliest time ≥ `now_ns` at which `bytes` fit; the space is then taken. A
    /// request larger than the whole buffer is admitted once the buffer is empty.
    pub fn admit(&mut self, now_ns: Ns, bytes: u64) -> Ns {
        self.admit_with(now_ns, bytes, |_, _| None)
    }

    /// As [`admit`](Self::admit); `current_end(die, id)` tells when a tracked
    /// release's program ends now (`None`: as booked, or over).
    pub fn admit_with(
        &mut self,
        now_ns: Ns,
        bytes: u64,
        current_end: impl Fn(u32, u64) -> Option<Ns>,
    ) -> Ns {
        let mut t = now_ns;
        loop {
            while let Some(&Reverse((at, b, die, id))) = self.releases.peek() {
                if at > t {
                    break;
                }
                self.releases.pop();
                if die != UNTRACKED {
                    if let Some(end) = current_end(die, id).filter(|&e| e > at) {
                        self.releases.push(Reverse((end, b, die, id)));
                        continue;
                    }
                }
                self.held_bytes -= b;
            }
            if self.held_bytes + bytes <= self.capacity_bytes {
                self.held_bytes += bytes;
                return t;
            }
            match self.releases.peek() {
                Some(&Reverse((at, ..))) => t = at,
                None => {
                    self.held_bytes += bytes;
                    return t;
                }
            }
        }
    }

    /// `bytes` leave the buffer at `at_ns` (their program completes then).
    pub fn release_at(&mut self, at_ns: Ns, bytes: u64) {
        self.release_tagged(at_ns, bytes, None);
    }

    /// As [`release_at`](Self::release_at), for the program `tag` names.
    pub fn release_tagged(&mut self, at_ns: Ns, bytes: u64, tag: ReleaseTag) {
        if bytes > 0 {
            let (die, id) = tag.unwrap_or((UNTRACKED, 0));
            self.releases.push(Reverse((at_ns, bytes, die, id)));
        }
    }

    /// Latest pending release: when everything admitted so far is on flash.
    pub fn drained_at_ns(&self) -> Ns {
        self.drained_at_with(|_, _| None)
    }

    /// As [`drained_at_ns`](Self::drained_at_ns), tracked releases at their
    /// programs' current ends.
    pub fn drained_at_with(&self, current_end: impl Fn(u32, u64) -> Option<Ns>) -> Ns {
        self.releases
            .iter()
            .map(|r| {
                let (at, _, die, id) = r.0;
                match die {
                    UNTRACKED => at,
                    _ => current_end(die, id).map_or(at, |e| e.max(at)),
                }
            })
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admission_waits_for_releases() {
        let mut b = WriteBuffer::new(100);
        assert_eq!(b.admit(0, 60), 0);
        b.release_at(50, 60);
        assert_eq!(b.admit(10, 30), 10);
        // 90 held; 20 more must wait for the release at 50.
        assert_eq!(b.admit(20, 20), 50);
        // Oversized requests are admitted once everything pending has drained.
        b.release_at(70, 50);
        assert_eq!(b.admit(60, 500), 70);
        assert_eq!(b.drained_at_ns(), 0);
    }

    #[test]
    fn a_pushed_back_program_holds_its_bytes_longer() {
        let mut b = WriteBuffer::new(100);
        assert_eq!(b.admit(0, 100), 0);
        // Booked to end at 50; read-first scheduling has since moved it to 80.
        b.release_tagged(50, 100, Some((3, 7)));
        let moved = |die: u32, id: u64| (die == 3 && id == 7).then_some(80);
        assert_eq!(b.drained_at_with(moved), 80);
        assert_eq!(b.admit_with(10, 10, moved), 80);
    }
}
