//! An SSD's write buffer (DRAM, power-loss protected or not): a write is acknowledged once its bytes
//! are admitted here, and its space is released only when the program unit holding
//! the data completes on flash. When the host writes faster than the flash (and GC)
//! can program, admission waits for releases, so sustained writes become
//! flash-bound and GC pauses show up as host write latency.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_engine::Ns;

/// Bytes held until their program completes. Releases are kept in a min-heap of
/// (time, bytes); its size is bounded by the buffer's program units in flight, so
/// after warm-up no request allocates.
#[derive(Debug, Clone)]
pub struct WriteBuffer {
    capacity_bytes: u64,
    held_bytes: u64,
    releases: BinaryHeap<Reverse<(Ns, u64)>>,
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
        let mut t = now_ns;
        loop {
            while let Some(&Reverse((at, b))) = self.releases.peek() {
                if at > t {
                    break;
                }
                self.releases.pop();
                self.held_bytes -= b;
            }
            if self.held_bytes + bytes <= self.capacity_bytes {
                self.held_bytes += bytes;
                return t;
            }
            match self.releases.peek() {
                Some(&Reverse((at, _))) => t = at,
                None => {
                    self.held_bytes += bytes;
                    return t;
                }
            }
        }
    }

    /// `bytes` leave the buffer at `at_ns` (their program completes then).
    pub fn release_at(&mut self, at_ns: Ns, bytes: u64) {
        if bytes > 0 {
            self.releases.push(Reverse((at_ns, bytes)));
        }
    }

    /// Latest pending release: when everything admitted so far is on flash.
    pub fn drained_at_ns(&self) -> Ns {
        self.releases.iter().map(|r| r.0 .0).max().unwrap_or(0)
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
}
