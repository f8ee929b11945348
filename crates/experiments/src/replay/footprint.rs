//! The footprint of a trace: the 1 MiB chunks of a device its records touch, and a
//! fill of them, for `zonelab replay --precondition footprint` (a read-mostly trace
//! on a fresh SSD would otherwise read never-written blocks, which cost no flash
//! access).

use super::{Converter, RecordSource, ReplayError, ReplayOptions};
use zonelab_devices::{Command, Device, DeviceError, Payload};
use zonelab_engine::Ns;

/// The 1 MiB chunks of the device that a trace touches (after widening to blocks
/// and folding, as the replay will issue them): what `--precondition footprint`
/// writes before the replay.
pub struct Footprint {
    pub chunk_bytes: u64,
    /// One bit per chunk.
    chunks: Vec<u64>,
}

/// Size of a footprint chunk: 1 MiB, the request size of a sequential fill. A
/// bitmap of 1 MiB chunks of a 14 TB disk is 1.7 MB.
pub const FOOTPRINT_CHUNK_BYTES: u64 = zonelab_engine::MIB;

impl Footprint {
    /// Reads `reader` to its end (honouring `opts.limit` and `opts.fold_to_capacity`)
    /// and marks the chunks its records touch.
    pub fn of_trace<S: RecordSource>(
        device: &dyn Device,
        reader: &mut S,
        opts: &ReplayOptions,
    ) -> Result<Footprint, ReplayError> {
        let bb = device.info().block_bytes as u64;
        let chunk_blocks = (FOOTPRINT_CHUNK_BYTES / bb).max(1);
        let chunk_count = device.info().capacity_blocks.div_ceil(chunk_blocks);
        let mut chunks = vec![0u64; chunk_count.div_ceil(64) as usize];
        let mut conv = Converter::new(device, opts, reader.source_name());
        while let Some((_, cmd, _, _)) = conv.next(reader)? {
            if let Command::Read { lba, blocks }
            | Command::Write { lba, blocks }
            | Command::Trim { lba, blocks } = cmd
            {
                let last = (lba + blocks as u64 - 1).min(device.info().capacity_blocks - 1);
                for c in lba / chunk_blocks..=last / chunk_blocks {
                    chunks[(c / 64) as usize] |= 1 << (c % 64);
                }
            }
        }
        Ok(Footprint {
            chunk_bytes: chunk_blocks * bb,
            chunks,
        })
    }

    /// Indices of the chunks touched, in order.
    pub fn chunks(&self) -> impl Iterator<Item = u64> + '_ {
        self.chunks.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits & (1 << b) != 0)
                .map(move |b| w as u64 * 64 + b)
        })
    }

    /// Bytes the footprint covers.
    pub fn bytes(&self) -> u64 {
        self.chunks
            .iter()
            .map(|w| w.count_ones() as u64)
            .sum::<u64>()
            * self.chunk_bytes
    }

    /// Writes every touched chunk once, in address order, one request at a time
    /// from `start_ns` (a block device: on a zoned device these writes are not at
    /// write pointers). Returns when the last write completed.
    pub fn fill(&self, device: &mut dyn Device, start_ns: Ns) -> Result<Ns, DeviceError> {
        let bb = device.info().block_bytes as u64;
        let capacity = device.info().capacity_blocks;
        let chunk_blocks = self.chunk_bytes / bb;
        let mut now = start_ns;
        for c in self.chunks() {
            let lba = c * chunk_blocks;
            let blocks = chunk_blocks.min(capacity - lba) as u32;
            now = device
                .submit(now, &Command::Write { lba, blocks }, Payload::SizeOnly)?
                .done_ns;
        }
        Ok(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::GeneratedTrace;
    use zonelab_workloads::trace::{TraceOp, TraceRecord};

    #[test]
    fn the_footprint_holds_the_chunks_a_trace_touches() {
        let dev = zonelab_devices::open_device("ssd-conventional").unwrap();
        let records = [
            TraceRecord {
                time_ns: 0,
                op: TraceOp::Read,
                offset_bytes: 3 * FOOTPRINT_CHUNK_BYTES - 512,
                size_bytes: 1024, // spans chunks 2 and 3
            },
            TraceRecord {
                time_ns: 1,
                op: TraceOp::Write,
                offset_bytes: 9 * FOOTPRINT_CHUNK_BYTES,
                size_bytes: 0, // skipped: touches nothing
            },
        ];
        let mut source = GeneratedTrace {
            name: "t".into(),
            records: records.into_iter(),
            count: 0,
        };
        let f = Footprint::of_trace(dev.as_ref(), &mut source, &ReplayOptions::default()).unwrap();
        assert_eq!(f.chunks().collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(f.bytes(), 2 * FOOTPRINT_CHUNK_BYTES);
    }
}
