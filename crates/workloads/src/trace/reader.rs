//! The streaming reader: one line at a time through a reused buffer, whatever the format.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::blkparse::LineKind;
use super::error::{quote_value, FieldProblem, LineError, TraceError};
use super::{TraceFormat, TraceRecord};

/// The longest line accepted, in bytes (newline excluded). Longer lines are an error,
/// so a file without newlines cannot make the reader hold it all in memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// At most this many other device numbers are remembered for the "device not in
/// the trace" message.
pub const MAX_OTHER_DEVICES: usize = 16;

/// The file buffer size: large reads keep system calls rare.
const READ_BUFFER_BYTES: usize = 1 << 16;

/// How to read a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceOptions {
    /// Keep only the records of this device (MSR `DiskNumber`, DiskSim / MQSim
    /// `device_number`, Alibaba `device_id`, Tencent `VolumeID`, blkparse `major << 20 | minor`),
    /// to replay one disk of a multi-disk trace.
    /// Times are then relative to the first record of that device. The plain CSV format
    /// has no device column, and asking for a device with it is an error.
    pub device: Option<u64>,
    /// Accept records whose time is earlier than the previous record's, instead of
    /// reporting the line as an error. MSR Cambridge traces are sometimes slightly out
    /// of order; with this set such records are yielded in file order with their own
    /// times (never reordered), so consecutive `time_ns` may decrease, and
    /// [`TraceReader::unsorted_records`] counts them. A record earlier than the *first*
    /// record has a negative relative time: it is yielded with `time_ns` 0 (the first
    /// record's time) and also counted by [`TraceReader::before_first_records`]. A
    /// replayer that issues records at max(previous arrival, own time), as
    /// `zonelab replay` does, issues it exactly as it would with its true time.
    pub allow_unsorted: bool,
}

/// Lines of a file, with line numbers, blank and comment lines skipped.
pub(crate) struct LineSource<R> {
    input: R,
    buf: Vec<u8>,
    line: u64,
}

impl LineSource<BufReader<File>> {
    pub(crate) fn open(path: &Path) -> Result<Self, TraceError> {
        let file = File::open(path).map_err(|cause| TraceError::Open {
            path: path.to_path_buf(),
            cause,
        })?;
        Ok(LineSource::new(BufReader::with_capacity(
            READ_BUFFER_BYTES,
            file,
        )))
    }
}

impl<R: BufRead> LineSource<R> {
    pub(crate) fn new(input: R) -> Self {
        LineSource {
            input,
            buf: Vec::with_capacity(256),
            line: 0,
        }
    }

    /// The next line that is neither blank nor a comment, without its line end and
    /// leading/trailing whitespace, with its 1-based number; `None` at end of file.
    pub(crate) fn next_content_line(
        &mut self,
        path: &Path,
    ) -> Result<Option<(u64, &[u8])>, TraceError> {
        // The loop finds the range; the slice is taken after it (a borrow returned
        // from inside the loop would outlive the next iteration's `clear`).
        let range = loop {
            self.buf.clear();
            let read = (&mut self.input)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|cause| TraceError::Read {
                    path: path.to_path_buf(),
                    line: self.line + 1,
                    cause,
                })?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            if self.buf.len() > MAX_LINE_BYTES && self.buf.last() != Some(&b'\n') {
                return Err(TraceError::Line {
                    path: path.to_path_buf(),
                    line: self.line,
                    problem: LineError::TooLong {
                        max_bytes: MAX_LINE_BYTES,
                    },
                });
            }
            let bom = if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                3
            } else {
                0
            };
            let Some(start) = self.buf[bom..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
            else {
                continue; // blank
            };
            let start = bom + start;
            if self.buf[start] == b'#' {
                continue;
            }
            let end = self
                .buf
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map_or(start, |e| e + 1);
            break start..end;
        };
        Ok(Some((self.line, &self.buf[range])))
    }
}

/// Streams the records of a trace file: an iterator of `Result<TraceRecord, TraceError>`
/// that ends after the last record or after the first error.
///
/// See the [module documentation](super) for the formats and the reading rules.
pub struct TraceReader<R = BufReader<File>> {
    lines: LineSource<R>,
    path: PathBuf,
    format: TraceFormat,
    options: TraceOptions,
    /// The first content line may be a header.
    header_possible: bool,
    /// Time (format units) of the first kept record.
    first: Option<u64>,
    /// Time (format units) and line of the previous kept record.
    previous: (u64, u64),
    unsorted: u64,
    before_first: u64,
    /// Device numbers seen on lines a device filter dropped (at most
    /// [`MAX_OTHER_DEVICES`]), for the error when the filter keeps nothing.
    other_devices: std::collections::BTreeSet<u64>,
    records: u64,
    finished: bool,
    /// Placement identifier of the record last yielded.
    last_placement_id: Option<u16>,
}

impl TraceReader<BufReader<File>> {
    /// Opens a trace file.
    pub fn open(
        path: impl AsRef<Path>,
        format: TraceFormat,
        options: TraceOptions,
    ) -> Result<Self, TraceError> {
        let path = path.as_ref();
        check_options(path, format, &options)?;
        let lines = LineSource::open(path)?;
        Ok(TraceReader::with_lines(
            lines,
            path.to_path_buf(),
            format,
            options,
        ))
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Reads a trace from any buffered input; `path` is the name errors show.
    pub fn new(
        input: R,
        path: impl Into<PathBuf>,
        format: TraceFormat,
        options: TraceOptions,
    ) -> Result<Self, TraceError> {
        let path = path.into();
        check_options(&path, format, &options)?;
        Ok(TraceReader::with_lines(
            LineSource::new(input),
            path,
            format,
            options,
        ))
    }

    fn with_lines(
        lines: LineSource<R>,
        path: PathBuf,
        format: TraceFormat,
        options: TraceOptions,
    ) -> Self {
        TraceReader {
            lines,
            path,
            format,
            options,
            header_possible: true,
            first: None,
            previous: (0, 0),
            unsorted: 0,
            before_first: 0,
            other_devices: std::collections::BTreeSet::new(),
            last_placement_id: None,
            records: 0,
            finished: false,
        }
    }

    pub fn format(&self) -> TraceFormat {
        self.format
    }

    pub fn options(&self) -> &TraceOptions {
        &self.options
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The number of the last line read (1-based; 0 before reading).
    pub fn line_number(&self) -> u64 {
        self.lines.line
    }

    /// Records yielded so far.
    pub fn records_read(&self) -> u64 {
        self.records
    }

    /// Records yielded so far whose time is earlier than the previous record's (only
    /// non-zero with [`TraceOptions::allow_unsorted`]).
    pub fn unsorted_records(&self) -> u64 {
        self.unsorted
    }

    /// Records yielded with time 0 because they are earlier than the first record
    /// (only with [`TraceOptions::allow_unsorted`]; also counted as unsorted).
    pub fn before_first_records(&self) -> u64 {
        self.before_first
    }

    /// The placement identifier of the record last yielded (the plain CSV format's
    /// optional `placement_id` column), if it had one.
    pub fn placement_id(&self) -> Option<u16> {
        self.last_placement_id
    }

    /// Device numbers of lines that the device filter dropped, in order (at most
    /// [`MAX_OTHER_DEVICES`] of them): what the trace holds besides the device asked for.
    pub fn other_devices(&self) -> &std::collections::BTreeSet<u64> {
        &self.other_devices
    }

    fn next_record(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        loop {
            let Some((line, content)) = self.lines.next_content_line(&self.path)? else {
                return Ok(None);
            };
            if self.header_possible {
                self.header_possible = false;
                if self.format.is_header(content) {
                    continue;
                }
            }
            match self.format.line_kind(content) {
                LineKind::Record => {}
                LineKind::Skip => continue,
                LineKind::EndOfRecords => return Ok(None),
            }
            let raw = self
                .format
                .parse_line(content)
                .map_err(|problem| TraceError::Line {
                    path: self.path.clone(),
                    line,
                    problem,
                })?;
            if self
                .options
                .device
                .is_some_and(|device| device != raw.device)
            {
                if self.other_devices.len() < MAX_OTHER_DEVICES {
                    self.other_devices.insert(raw.device);
                }
                continue;
            }
            let time_error = |problem| TraceError::Line {
                path: self.path.clone(),
                line,
                problem: LineError::Field {
                    field: self.format.time_field(),
                    value: quote_value(raw.time_field),
                    problem,
                },
            };
            let time_ns = match self.first {
                None => {
                    self.first = Some(raw.time);
                    0
                }
                Some(first_time) => {
                    let (previous_time, previous_line) = self.previous;
                    if raw.time < previous_time {
                        if !self.options.allow_unsorted {
                            return Err(time_error(FieldProblem::Backwards { previous_line }));
                        }
                        self.unsorted += 1;
                    }
                    if raw.time < first_time {
                        // Only reachable with allow_unsorted (the first record is the
                        // earliest otherwise); see `TraceOptions::allow_unsorted`.
                        self.before_first += 1;
                    }
                    raw.time
                        .saturating_sub(first_time)
                        .checked_mul(self.format.time_unit_ns())
                        .ok_or_else(|| time_error(FieldProblem::TimeOverflow))?
                }
            };
            self.previous = (raw.time, line);
            self.records += 1;
            self.last_placement_id = raw.placement_id;
            return Ok(Some(TraceRecord {
                time_ns,
                op: raw.op,
                offset_bytes: raw.offset_bytes,
                size_bytes: raw.size_bytes,
            }));
        }
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        match self.next_record() {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => {
                self.finished = true;
                None
            }
            Err(error) => {
                self.finished = true;
                Some(Err(error))
            }
        }
    }
}

impl<R: BufRead> std::iter::FusedIterator for TraceReader<R> {}

fn check_options(
    path: &Path,
    format: TraceFormat,
    options: &TraceOptions,
) -> Result<(), TraceError> {
    if options.device.is_some() && !format.has_device_column() {
        return Err(TraceError::NoDeviceColumn {
            path: path.to_path_buf(),
            format,
        });
    }
    Ok(())
}
