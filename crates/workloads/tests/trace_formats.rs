//! Each trace format parses a small sample written to a file; detection; format names.

use std::io::Write;

use zonelab_workloads::trace::{
    DetectError, TraceError, TraceFormat, TraceOp, TraceOptions, TraceReader, TraceRecord,
    CSV_HEADER, FILETIME_TICK_NS,
};

fn sample_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file.flush().unwrap();
    file
}

fn read_file(text: &str, format: TraceFormat, options: TraceOptions) -> Vec<TraceRecord> {
    let file = sample_file(text);
    TraceReader::open(file.path(), format, options)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn rec(time_ns: u64, op: TraceOp, offset_bytes: u64, size_bytes: u64) -> TraceRecord {
    TraceRecord {
        time_ns,
        op,
        offset_bytes,
        size_bytes,
    }
}

const MSR_SAMPLE: &str = "\
128166372003061629,hm,0,Read,3218866176,4096,1331
128166372016382155,hm,0,Write,3680108544,4096,2312
# a comment line

128166372026382245,hm,1,write,3680108544,8192,2312
128166372026382246,hm,0,READ,0,512,17
";

#[test]
fn msr_sample() {
    let records = read_file(MSR_SAMPLE, TraceFormat::Msr, TraceOptions::default());
    assert_eq!(
        records,
        vec![
            rec(0, TraceOp::Read, 3218866176, 4096),
            rec(13_320_526 * 100, TraceOp::Write, 3680108544, 4096),
            rec(23_320_616 * 100, TraceOp::Write, 3680108544, 8192),
            rec(23_320_617 * 100, TraceOp::Read, 0, 512),
        ]
    );
}

#[test]
fn msr_header_is_skipped() {
    let text = format!("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n{MSR_SAMPLE}");
    assert_eq!(
        read_file(&text, TraceFormat::Msr, TraceOptions::default()).len(),
        4
    );
}

#[test]
fn msr_device_filter_selects_one_disk() {
    let options = TraceOptions {
        device: Some(1),
        ..TraceOptions::default()
    };
    let records = read_file(MSR_SAMPLE, TraceFormat::Msr, options);
    // Times are relative to the first record of disk 1.
    assert_eq!(records, vec![rec(0, TraceOp::Write, 3680108544, 8192)]);
    let options = TraceOptions {
        device: Some(7),
        ..TraceOptions::default()
    };
    assert!(read_file(MSR_SAMPLE, TraceFormat::Msr, options).is_empty());
}

#[test]
fn filetime_conversion_is_exact() {
    // 2008-01-01T00:00:00Z as a filetime: the Unix epoch (116444736000000000 ticks)
    // plus 1199145600 s of 10^7 ticks.
    let t0: u64 = 116_444_736_000_000_000 + 1_199_145_600 * 10_000_000;
    assert_eq!(t0, 128_436_192_000_000_000);
    let day_ticks: u64 = 86_400 * 10_000_000;
    let text = format!(
        "{t0},h,0,Read,0,512,0\n{},h,0,Read,0,512,0\n{},h,0,Read,0,512,0\n{},h,0,Read,0,512,0\n",
        t0 + 1,
        t0 + 10_000_000,
        t0 + day_ticks + 7
    );
    let times: Vec<u64> = read_file(&text, TraceFormat::Msr, TraceOptions::default())
        .iter()
        .map(|r| r.time_ns)
        .collect();
    assert_eq!(FILETIME_TICK_NS, 100);
    assert_eq!(times, vec![0, 100, 1_000_000_000, 86_400_000_000_000 + 700]);

    // Near the top of the range: the difference is taken before scaling, so nothing
    // overflows and nothing is rounded.
    let text = format!(
        "{},h,0,Read,0,512,0\n{},h,0,Write,0,512,0\n",
        u64::MAX - 10,
        u64::MAX
    );
    let times: Vec<u64> = read_file(&text, TraceFormat::Msr, TraceOptions::default())
        .iter()
        .map(|r| r.time_ns)
        .collect();
    assert_eq!(times, vec![0, 1_000]);
}

#[test]
fn disksim_sample() {
    let text = "\
0.000000 0 1024 8 1
1.500000 0 2048 16 0
2.25\t0   0 1 0x11
12.3456785 1 4 8 2
";
    let records = read_file(text, TraceFormat::DiskSim, TraceOptions::default());
    assert_eq!(
        records,
        vec![
            rec(0, TraceOp::Read, 1024 * 512, 8 * 512),
            rec(1_500_000, TraceOp::Write, 2048 * 512, 16 * 512),
            rec(2_250_000, TraceOp::Read, 0, 512),
            // 12.3456785 ms rounds half up to whole nanoseconds; flags 0x2 has bit 0 clear.
            rec(12_345_679, TraceOp::Write, 4 * 512, 8 * 512),
        ]
    );
    let only_device_1 = TraceOptions {
        device: Some(1),
        ..TraceOptions::default()
    };
    assert_eq!(
        read_file(text, TraceFormat::DiskSim, only_device_1).len(),
        1
    );
}

#[test]
fn mqsim_sample() {
    // The sample of umn-cris/MQSim traces/README.md, plus a read.
    let text = "\
4851300 1 524288 16 0
4864300 1 524304 16 0
4871300 1 524320 16 1
";
    let records = read_file(text, TraceFormat::Mqsim, TraceOptions::default());
    assert_eq!(
        records,
        vec![
            rec(0, TraceOp::Write, 524288 * 512, 16 * 512),
            rec(13_000, TraceOp::Write, 524304 * 512, 16 * 512),
            rec(20_000, TraceOp::Read, 524320 * 512, 16 * 512),
        ]
    );
}

#[test]
fn plain_csv_sample() {
    let text = format!(
        "\u{feff}{CSV_HEADER}\r\n100,R,0,4096\r\n150,w,4096,8192\n150, T ,0,1048576\n200,read,1,1\n300,Write,2,2\n400,TRIM,3,3\n"
    );
    let records = read_file(&text, TraceFormat::Csv, TraceOptions::default());
    assert_eq!(
        records,
        vec![
            rec(0, TraceOp::Read, 0, 4096),
            rec(50, TraceOp::Write, 4096, 8192),
            rec(50, TraceOp::Trim, 0, 1_048_576),
            rec(100, TraceOp::Read, 1, 1),
            rec(200, TraceOp::Write, 2, 2),
            rec(300, TraceOp::Trim, 3, 3),
        ]
    );
}

#[test]
fn plain_csv_writer_output_reads_back() {
    let records = vec![rec(0, TraceOp::Read, 0, 512), rec(7, TraceOp::Trim, 512, 0)];
    let mut text = format!("{CSV_HEADER}\n").into_bytes();
    for r in &records {
        r.write_csv(&mut text).unwrap();
    }
    assert_eq!(
        String::from_utf8(text.clone()).unwrap(),
        format!("{CSV_HEADER}\n0,R,0,512\n7,T,512,0\n")
    );
    let read: Vec<_> = TraceReader::new(
        &text[..],
        "mem.csv",
        TraceFormat::Csv,
        TraceOptions::default(),
    )
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap();
    assert_eq!(read, records);
}

#[test]
fn alibaba_sample() {
    let text = "\
device_id,opcode,offset,length,timestamp
0,R,126703644672,4096,1577808000000626
1,W,4096,8192,1577808000000700
0,W,0,512,1577808000001626
";
    let all = read_file(text, TraceFormat::Alibaba, TraceOptions::default());
    assert_eq!(
        all,
        vec![
            rec(0, TraceOp::Read, 126703644672, 4096),
            rec(74_000, TraceOp::Write, 4096, 8192),
            rec(1_000_000, TraceOp::Write, 0, 512),
        ]
    );
    let device_1 = TraceOptions {
        device: Some(1),
        ..TraceOptions::default()
    };
    assert_eq!(
        read_file(text, TraceFormat::Alibaba, device_1),
        vec![rec(0, TraceOp::Write, 4096, 8192)]
    );
}

/// Lines in the published Tencent CBS layout (`Timestamp,Offset,Size,IOType,VolumeID`:
/// Unix seconds, 512-byte sectors, `0` read / `1` write), two volumes.
#[test]
fn tencent_sample() {
    let text = "\
1538323199,105352008,584,1,1576
1538323199,8,8,0,7
1538323200,16,16,1,1576
1538323200.5,0,1,0,7
";
    const S: u64 = 1_000_000_000;
    let all = read_file(text, TraceFormat::Tencent, TraceOptions::default());
    assert_eq!(
        all,
        vec![
            rec(0, TraceOp::Write, 105_352_008 * 512, 584 * 512),
            rec(0, TraceOp::Read, 8 * 512, 8 * 512),
            rec(S, TraceOp::Write, 16 * 512, 16 * 512),
            rec(S + S / 2, TraceOp::Read, 0, 512),
        ]
    );
    let volume_7 = TraceOptions {
        device: Some(7),
        ..TraceOptions::default()
    };
    assert_eq!(
        read_file(text, TraceFormat::Tencent, volume_7),
        vec![
            rec(0, TraceOp::Read, 8 * 512, 8 * 512),
            rec(S + S / 2, TraceOp::Read, 0, 512)
        ]
    );
    let with_header = format!("Timestamp,Offset,Size,IOType,VolumeID\n{text}");
    assert_eq!(
        read_file(&with_header, TraceFormat::Tencent, TraceOptions::default()),
        all
    );
}

/// An excerpt in blkparse's default output (blktrace `blkparse_fmt.c`): one write's
/// remap, queue, get-request, plug, insert, unplug, issue and complete events, a read,
/// a flush, a discard, a message event, another device, and the closing summary.
const BLKPARSE_SAMPLE: &str = "\
  8,0    0        1     0.000000000  1234  A  WS 223490 + 8 <- (8,1) 221442
  8,0    0        2     0.000000512  1234  Q  WS 223490 + 8 [kjournald]
  8,0    0        3     0.000002100  1234  G  WS 223490 + 8 [kjournald]
  8,0    0        4     0.000003000  1234  P   N [kjournald]
  8,0    0        5     0.000004000  1234  I  WS 223490 + 8 [kjournald]
  8,0    0        6     0.000005000  1234  U   N [kjournald] 1
  8,0    0        7     0.000006000  1234  D  WS 223490 + 8 [kjournald]
  8,0    1        1     0.000150000     0  C  WS 223490 + 8 [0]
  8,0    0        8     0.001000000  2001  Q   R 1000 + 16 [cat]
  8,16   0        1     0.001000100  2002  D   W 64 + 8 [dd]
  8,0    0        9     0.001000200  2001  G   R 1000 + 16 [cat]
  8,0    0       10     0.001001000  2001  D   R 1000 + 16 [cat]
  8,0    0       11     0.002000000   300  Q FWS 0 + 0 [jbd2/sda1-8]
  8,0    0       12     0.002000100   300  D  FN 0 + 0 [jbd2/sda1-8]
  8,0    0       13     0.003000000   400  D   D 5000 + 2048 [fstrim]
  8,0    1        2     0.003500000     0  C   R 1000 + 16 [0]
  8,0    0       14     0.004000000     0  m   N cfq workload slice:100
CPU0 (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB
 Read Dispatches:        1,        8KiB\t Write Dispatches:        1,        4KiB
Total (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB
Throughput (R/W): 2000KiB/s / 2000KiB/s
Events (8,0): 17 entries
Skips: 0 forward (0 -   0.0%)
";

/// `blkparse` replays the issue (`D`) events with data, `blkparse-queue` the queue (`Q`)
/// ones; the summary ends the records; `--disk` selects `major << 20 | minor`.
#[test]
fn blkparse_sample() {
    let sda = TraceOptions {
        device: Some(8 << 20),
        ..TraceOptions::default()
    };
    assert_eq!(
        read_file(BLKPARSE_SAMPLE, TraceFormat::Blkparse, sda),
        vec![
            rec(0, TraceOp::Write, 223_490 * 512, 8 * 512),
            rec(995_000, TraceOp::Read, 1000 * 512, 16 * 512),
            rec(2_994_000, TraceOp::Trim, 5000 * 512, 2048 * 512),
        ]
    );
    assert_eq!(
        read_file(BLKPARSE_SAMPLE, TraceFormat::BlkparseQueue, sda),
        vec![
            rec(0, TraceOp::Write, 223_490 * 512, 8 * 512),
            rec(999_488, TraceOp::Read, 1000 * 512, 16 * 512),
        ]
    );
    let all_devices = read_file(
        BLKPARSE_SAMPLE,
        TraceFormat::Blkparse,
        TraceOptions::default(),
    );
    assert_eq!(all_devices.len(), 4);
    assert_eq!(
        all_devices[1],
        rec(994_100, TraceOp::Write, 64 * 512, 8 * 512)
    );
    let sdb = TraceOptions {
        device: Some(8 << 20 | 16),
        ..TraceOptions::default()
    };
    assert_eq!(
        read_file(BLKPARSE_SAMPLE, TraceFormat::Blkparse, sdb),
        vec![rec(0, TraceOp::Write, 64 * 512, 8 * 512)]
    );
    assert_eq!(
        TraceFormat::detect_path(sample_file(BLKPARSE_SAMPLE).path()).unwrap(),
        TraceFormat::Blkparse
    );
    assert_eq!(
        "blkparse-queue".parse::<TraceFormat>().unwrap(),
        TraceFormat::BlkparseQueue
    );
}

#[test]
fn detection() {
    use TraceFormat::*;
    let cases: &[(&str, Result<TraceFormat, DetectError>)] = &[
        ("128166372003061629,hm,0,Read,3218866176,4096,1331", Ok(Msr)),
        (
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
            Ok(Msr),
        ),
        ("0,R,126703644672,4096,1577808000000626", Ok(Alibaba)),
        ("device_id,opcode,offset,length,timestamp", Ok(Alibaba)),
        ("1538323199,105352008,584,1,1576", Ok(Tencent)),
        ("1538323199.5,0,8,0,3", Ok(Tencent)),
        ("Timestamp,Offset,Size,IOType,VolumeID", Ok(Tencent)),
        (
            "1538323199,105352008,584,2,1576",
            Err(DetectError::Unrecognized),
        ),
        ("100,W,0,4096", Ok(Csv)),
        ("100,trim,0,4096", Ok(Csv)),
        ("time_ns,op,offset_bytes,size_bytes", Ok(Csv)),
        ("\u{feff}time_ns,op,offset_bytes,size_bytes\r\n", Ok(Csv)),
        ("0.000000 0 1024 8 1", Ok(DiskSim)),
        ("  12.5\t0 1024 8 0x11 ", Ok(DiskSim)),
        ("4851300 1 524288 16 0", Err(DetectError::DiskSimOrMqsim)),
        ("", Err(DetectError::NotARecord)),
        ("   ", Err(DetectError::NotARecord)),
        ("# 0,R,0,1,2", Err(DetectError::NotARecord)),
        ("hello world", Err(DetectError::Unrecognized)),
        ("1,X,0,4096", Err(DetectError::Unrecognized)),
        ("1,2,3", Err(DetectError::Unrecognized)),
        ("1 2 3 4", Err(DetectError::Unrecognized)),
        ("a b c d e", Err(DetectError::Unrecognized)),
    ];
    for (line, expected) in cases {
        assert_eq!(&TraceFormat::detect(line), expected, "line {line:?}");
    }
}

#[test]
fn detection_from_a_file() {
    let file = sample_file("# exported by a tool\n\n  \n0.5 0 0 8 1\n");
    assert_eq!(
        TraceFormat::detect_path(file.path()).unwrap(),
        TraceFormat::DiskSim
    );

    let file = sample_file("# comments only\n\n");
    let error = TraceFormat::detect_path(file.path()).unwrap_err();
    assert!(matches!(error, TraceError::NoRecords { .. }), "{error}");

    let file = sample_file("# x\n4851300 1 524288 16 0\n");
    let error = TraceFormat::detect_path(file.path()).unwrap_err();
    assert_eq!(error.line(), Some(2));
    let text = error.to_string();
    assert!(
        text.contains(":2: cannot detect the trace format: integer arrival times"),
        "{text}"
    );
}

#[test]
fn format_names() {
    for format in TraceFormat::ALL {
        assert_eq!(format.name().parse::<TraceFormat>(), Ok(format));
        assert_eq!(format.to_string(), format.name());
    }
    assert_eq!("MSR".parse::<TraceFormat>(), Ok(TraceFormat::Msr));
    assert_eq!(" DiskSim ".parse::<TraceFormat>(), Ok(TraceFormat::DiskSim));
    let error = "auto".parse::<TraceFormat>().unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"unknown trace format "auto"; expected one of msr, disksim, mqsim, csv, alibaba, tencent"#
    );
}
