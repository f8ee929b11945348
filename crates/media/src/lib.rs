//! ZoneLab media (DESIGN.md layer 2): the physical building blocks devices are made
//! of. A NAND flash array (channels, dies, planes, blocks, pages, cell-type timings,
//! program units) and magnetic disk mechanics (seek curve, rotation, zoned
//! recording). Each shared resource keeps a [`zonelab_engine::Timeline`]; callers
//! reserve them and get completion times, so contention emerges.

pub mod die_queue;
pub mod disk;
pub mod flash;
