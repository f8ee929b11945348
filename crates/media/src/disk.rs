//! Disk mechanics (written next).
