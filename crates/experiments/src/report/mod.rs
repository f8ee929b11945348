//! HTML report (being written).
