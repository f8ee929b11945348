//! Sends each reply when its request's modelled completion is reached on the
//! wall clock. One writer thread per connection owns the socket's write side
//! and keeps the pending replies in a heap by deadline, so replies can go out
//! of order (proto.md "Transmission": the server may reply out of order),
//! exactly as the model completes them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Write;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use zonelab_emulation::DEFAULT_SPIN_WINDOW;

/// A reply ready to send at `due`.
pub struct Reply {
    pub due: Instant,
    pub bytes: Vec<u8>,
}

pub enum ToWriter {
    Reply(Reply),
    /// Send what is pending (each at its time), then stop.
    Finish,
}

struct Pending {
    due: Instant,
    seq: u64,
    bytes: Vec<u8>,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        (self.due, self.seq) == (o.due, o.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.due, self.seq).cmp(&(o.due, o.seq))
    }
}

/// Runs until `Finish` (or the channel closes) and every pending reply is sent;
/// returns early if the socket fails (the reader then fails too).
pub fn run_writer(mut out: impl Write, inbox: Receiver<ToWriter>) {
    let mut heap: BinaryHeap<Reverse<Pending>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut finishing = false;
    loop {
        let now = Instant::now();
        // Send everything due.
        while heap.peek().is_some_and(|Reverse(p)| p.due <= now) {
            let Reverse(p) = heap.pop().unwrap();
            if out.write_all(&p.bytes).is_err() {
                return;
            }
        }
        if out.flush().is_err() {
            return;
        }
        let next = heap.peek().map(|Reverse(p)| p.due);
        if finishing && next.is_none() {
            return;
        }
        // Wait for the next deadline or a new reply: sleep until the spin window
        // before it (OS sleeps overshoot, as crates/emulation's Pacer measures),
        // then poll.
        let msg = match next {
            None => inbox.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(due) => {
                let left = due.saturating_duration_since(Instant::now());
                if left > DEFAULT_SPIN_WINDOW {
                    inbox.recv_timeout(left - DEFAULT_SPIN_WINDOW)
                } else {
                    match inbox.try_recv() {
                        Ok(m) => Ok(m),
                        Err(std::sync::mpsc::TryRecvError::Empty) => {
                            std::hint::spin_loop();
                            Err(RecvTimeoutError::Timeout)
                        }
                        Err(_) => Err(RecvTimeoutError::Disconnected),
                    }
                }
            }
        };
        match msg {
            Ok(ToWriter::Reply(r)) => {
                heap.push(Reverse(Pending {
                    due: r.due,
                    seq,
                    bytes: r.bytes,
                }));
                seq += 1;
            }
            Ok(ToWriter::Finish) | Err(RecvTimeoutError::Disconnected) => finishing = true,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if finishing {
            // Nothing else will arrive: wait for each pending deadline in turn.
            if let Some(Reverse(p)) = heap.peek() {
                let left = p.due.saturating_duration_since(Instant::now());
                if left > Duration::ZERO {
                    zonelab_emulation::Pacer::default().wait_until(p.due);
                }
            }
        }
    }
}
