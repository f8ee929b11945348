//! Every malformed-line case names the right line and field, in one line of text.

use zonelab_workloads::trace::{
    FieldProblem, LineError, TraceError, TraceFormat, TraceOptions, TraceReader, TraceRecord,
    MAX_LINE_BYTES,
};

fn read(
    text: &str,
    format: TraceFormat,
    options: TraceOptions,
) -> Result<Vec<TraceRecord>, TraceError> {
    TraceReader::new(text.as_bytes(), "trace.csv", format, options)?.collect()
}

fn error_of(text: &str, format: TraceFormat) -> TraceError {
    error_with(text, format, TraceOptions::default())
}

fn error_with(text: &str, format: TraceFormat, options: TraceOptions) -> TraceError {
    let error = read(text, format, options).expect_err("the trace should be rejected");
    let message = error.to_string();
    assert!(!message.contains('\n'), "not one line: {message}");
    assert!(message.starts_with("trace.csv:"), "{message}");
    error
}

/// Asserts the error is about `field` on `line` with `problem`.
fn assert_field(error: &TraceError, line: u64, field: &str, problem: FieldProblem) {
    assert_eq!(error.line(), Some(line), "{error}");
    let line_error = error
        .line_error()
        .unwrap_or_else(|| panic!("not a line error: {error}"));
    assert_eq!(line_error.field(), Some(field), "{error}");
    assert_eq!(line_error.field_problem(), Some(&problem), "{error}");
}

fn assert_field_count(error: &TraceError, line: u64, expected: usize, found: usize) {
    assert_eq!(error.line(), Some(line), "{error}");
    match error.line_error() {
        Some(LineError::FieldCount {
            expected: e,
            found: f,
            ..
        }) => assert_eq!((*e, *f), (expected, found), "{error}"),
        _ => panic!("not a field-count error: {error}"),
    }
}

#[test]
fn the_documented_example_message() {
    let mut text = String::from("time_ns,op,offset_bytes,size_bytes\n# comment\n\n");
    for i in 0..13 {
        text.push_str(&format!("{i},W,0,4096\n"));
    }
    text.push_str("20,W,4096,abc\n");
    let error = error_of(&text, TraceFormat::Csv);
    assert_eq!(
        error.to_string(),
        r#"trace.csv:17: field size_bytes: "abc" is not an unsigned integer"#
    );
    assert_field(&error, 17, "size_bytes", FieldProblem::NotUnsigned);
}

#[test]
fn plain_csv_malformed_lines() {
    use FieldProblem::*;
    let csv = TraceFormat::Csv;
    assert_field_count(&error_of("# c\n0,W,0,4096\n\n1,W,0\n", csv), 4, 4, 3);
    // A fifth column is the optional FDP placement identifier; six are too many.
    assert_field_count(&error_of("0,W,0,4096,9,1\n", csv), 1, 4, 6);
    assert_field(
        &error_of("0,W,0,4096,70000\n", csv),
        1,
        "placement_id",
        AboveMax { max: 65535 },
    );
    assert_field_count(&error_of("0 W 0 4096\n", csv), 1, 4, 1);
    assert_field(
        &error_of("0,W,0,4096\nx1,W,0,4096\n", csv),
        2,
        "time_ns",
        NotUnsigned,
    );
    assert_field(
        &error_of("0,X,0,4096\n", csv),
        1,
        "op",
        BadOp {
            expected: "R, W, T, read, write or trim",
        },
    );
    assert_field(
        &error_of("0,W,-4096,4096\n", csv),
        1,
        "offset_bytes",
        Negative,
    );
    assert_field(&error_of("0,W,0,-1\n", csv), 1, "size_bytes", Negative);
    assert_field(
        &error_of("0,W,18446744073709551616,1\n", csv),
        1,
        "offset_bytes",
        TooLarge,
    );
    assert_field(
        &error_of("18446744073709551616,W,0,1\n", csv),
        1,
        "time_ns",
        TooLarge,
    );
    assert_field(
        &error_of("0,W,1.5,1\n", csv),
        1,
        "offset_bytes",
        NotUnsigned,
    );
    assert_field(&error_of("0,W,,1\n", csv), 1, "offset_bytes", NotUnsigned);
    assert_field(
        &error_of("0,W,18446744073709551614,4\n", csv),
        1,
        "size_bytes",
        EndOverflow {
            offset_bytes: u64::MAX - 1,
        },
    );
    // A header is only accepted as the first non-comment line.
    assert_field(
        &error_of("0,W,0,1\ntime_ns,op,offset_bytes,size_bytes\n", csv),
        2,
        "time_ns",
        NotUnsigned,
    );
}

#[test]
fn backwards_time_is_an_error_naming_both_lines() {
    let text = "100,W,0,1\n200,W,0,1\n# c\n150,W,0,1\n";
    let error = error_of(text, TraceFormat::Csv);
    assert_field(
        &error,
        4,
        "time_ns",
        FieldProblem::Backwards { previous_line: 2 },
    );
    assert_eq!(
        error.to_string(),
        "trace.csv:4: field time_ns: \"150\" is earlier than the previous record's time (line 2); \
         the trace is not sorted by time"
    );
}

#[test]
fn allow_unsorted_keeps_records_in_file_order() {
    let options = TraceOptions {
        allow_unsorted: true,
        ..TraceOptions::default()
    };
    let text = "\
128166372003061629,hm,0,Read,0,4096,1
128166372003061639,hm,0,Read,0,4096,1
128166372003061634,hm,0,Read,0,4096,1
128166372003061649,hm,0,Read,0,4096,1
";
    let mut reader =
        TraceReader::new(text.as_bytes(), "msr.csv", TraceFormat::Msr, options).unwrap();
    let times: Vec<u64> = reader.by_ref().map(|r| r.unwrap().time_ns).collect();
    assert_eq!(times, vec![0, 1_000, 500, 2_000]);
    assert_eq!(reader.unsorted_records(), 1);
    assert_eq!(reader.records_read(), 4);

    // Without the option the same trace is rejected at line 3.
    let error = error_of(text, TraceFormat::Msr);
    assert_field(
        &error,
        3,
        "Timestamp",
        FieldProblem::Backwards { previous_line: 2 },
    );

    // Earlier than the first record: kept at time 0 (its relative time would be
    // negative) and counted.
    let text = "\
128166372003061629,hm,0,Read,0,4096,1
128166372003061639,hm,0,Read,0,4096,1
128166372003061628,hm,0,Read,0,4096,1
";
    let mut reader =
        TraceReader::new(text.as_bytes(), "msr.csv", TraceFormat::Msr, options).unwrap();
    let times: Vec<u64> = reader.by_ref().map(|r| r.unwrap().time_ns).collect();
    assert_eq!(times, vec![0, 1_000, 0]);
    assert_eq!(reader.unsorted_records(), 1);
    assert_eq!(reader.before_first_records(), 1);
}

#[test]
fn order_is_checked_among_the_selected_device_only() {
    let text = "0,R,0,512,1000\n1,R,0,512,500\n0,R,0,512,2000\n";
    let device_0 = TraceOptions {
        device: Some(0),
        ..TraceOptions::default()
    };
    assert_eq!(read(text, TraceFormat::Alibaba, device_0).unwrap().len(), 2);
    let error = error_of(text, TraceFormat::Alibaba);
    assert_field(
        &error,
        2,
        "timestamp",
        FieldProblem::Backwards { previous_line: 1 },
    );
}

#[test]
fn lines_of_other_devices_are_still_checked() {
    let text = "0,R,0,512,1000\n1,R,zero,512,1001\n";
    let device_0 = TraceOptions {
        device: Some(0),
        ..TraceOptions::default()
    };
    let error = error_with(text, TraceFormat::Alibaba, device_0);
    assert_field(&error, 2, "offset", FieldProblem::NotUnsigned);
}

#[test]
fn relative_time_overflow() {
    let text = format!("0,h,0,Read,0,1,0\n{},h,0,Read,0,1,0\n", u64::MAX);
    let error = error_of(&text, TraceFormat::Msr);
    assert_field(&error, 2, "Timestamp", FieldProblem::TimeOverflow);
}

#[test]
fn msr_malformed_lines() {
    use FieldProblem::*;
    let msr = TraceFormat::Msr;
    let good = "128166372003061629,hm,0,Read,0,4096,1\n";
    assert_field_count(
        &error_of(&format!("{good}128166372003061630,hm,0,Read,0,4096\n"), msr),
        2,
        7,
        6,
    );
    assert_field(
        &error_of("128166372003061629,hm,0,Flush,0,4096,1\n", msr),
        1,
        "Type",
        BadOp {
            expected: "Read or Write",
        },
    );
    assert_field(
        &error_of("128166372003061629,hm,zero,Read,0,4096,1\n", msr),
        1,
        "DiskNumber",
        NotUnsigned,
    );
    assert_field(
        &error_of("128166372003061629,hm,0,Read,0,-4096,1\n", msr),
        1,
        "Size",
        Negative,
    );
    assert_field(
        &error_of(
            "128166372003061629,hm,0,Read,99999999999999999999,1,1\n",
            msr,
        ),
        1,
        "Offset",
        TooLarge,
    );
    assert_field(
        &error_of("2008-01-01,hm,0,Read,0,4096,1\n", msr),
        1,
        "Timestamp",
        NotUnsigned,
    );
}

#[test]
fn disksim_malformed_lines() {
    use FieldProblem::*;
    let ds = TraceFormat::DiskSim;
    assert_field_count(&error_of("0.0 0 0 8\n", ds), 1, 5, 4);
    assert_field_count(&error_of("0.0 0 0 8 1 extra\n", ds), 1, 5, 6);
    assert_field(&error_of("0.0 0 0 8 zz\n", ds), 1, "flags", NotHex);
    assert_field(
        &error_of("abc 0 0 8 1\n", ds),
        1,
        "arrival_time_ms",
        NotDecimal,
    );
    assert_field(
        &error_of("1e3 0 0 8 1\n", ds),
        1,
        "arrival_time_ms",
        NotDecimal,
    );
    assert_field(
        &error_of("-1.5 0 0 8 1\n", ds),
        1,
        "arrival_time_ms",
        Negative,
    );
    assert_field(
        &error_of("18446744073710 0 0 8 1\n", ds),
        1,
        "arrival_time_ms",
        ScaledTooLarge {
            unit: "nanoseconds",
        },
    );
    assert_field(
        &error_of("0.0 -1 0 8 1\n", ds),
        1,
        "device_number",
        Negative,
    );
    assert_field(
        &error_of("0.0 0 36028797018963968 8 1\n", ds),
        1,
        "start_sector",
        ScaledTooLarge { unit: "bytes" },
    );
    assert_field(
        &error_of("0.0 0 0 8.5 1\n", ds),
        1,
        "size_sectors",
        NotUnsigned,
    );
    assert_field(
        &error_of("0.0 0 36028797018963967 1 1\n", ds),
        1,
        "size_sectors",
        EndOverflow {
            offset_bytes: 36028797018963967 * 512,
        },
    );
    assert_field(
        &error_of("2.0 0 0 8 1\n1.999999 0 0 8 1\n", ds),
        2,
        "arrival_time_ms",
        Backwards { previous_line: 1 },
    );
}

#[test]
fn mqsim_malformed_lines() {
    use FieldProblem::*;
    let mq = TraceFormat::Mqsim;
    assert_field(
        &error_of("0 1 0 8 2\n", mq),
        1,
        "type",
        BadOp {
            expected: "0 (write) or 1 (read)",
        },
    );
    assert_field(
        &error_of("1.5 1 0 8 0\n", mq),
        1,
        "arrival_time_ns",
        NotUnsigned,
    );
    assert_field_count(&error_of("0,1,0,8,0\n", mq), 1, 5, 1);
}

#[test]
fn alibaba_malformed_lines() {
    use FieldProblem::*;
    let ali = TraceFormat::Alibaba;
    assert_field(
        &error_of("0,X,0,4096,1\n", ali),
        1,
        "opcode",
        BadOp { expected: "R or W" },
    );
    assert_field(
        &error_of("0,R,0,4096,soon\n", ali),
        1,
        "timestamp",
        NotUnsigned,
    );
    assert_field(
        &error_of("0,R,0,99999999999999999999,1\n", ali),
        1,
        "length",
        TooLarge,
    );
    assert_field(&error_of("-1,R,0,4096,1\n", ali), 1, "device_id", Negative);
    assert_field_count(&error_of("0,R,0,4096\n", ali), 1, 5, 4);
}

#[test]
fn tencent_malformed_lines() {
    use FieldProblem::*;
    let tc = TraceFormat::Tencent;
    let good = "1538323199,105352008,584,1,1576\n";
    // The whole message names the file, the 1-based line and the field.
    let error = error_of(&format!("{good}{good}1538323200,8,8,W,1576\n"), tc);
    assert_eq!(
        error.to_string(),
        r#"trace.csv:3: field IOType: "W" is not a valid operation; expected 0 (read) or 1 (write)"#
    );
    assert_field(
        &error,
        3,
        "IOType",
        BadOp {
            expected: "0 (read) or 1 (write)",
        },
    );
    assert_field(
        &error_of(&format!("{good}soon,0,8,1,1\n"), tc),
        2,
        "Timestamp",
        NotDecimal,
    );
    assert_field(&error_of("1,-8,8,1,1\n", tc), 1, "Offset", Negative);
    assert_field(
        &error_of("1,0,36028797018963968,1,1\n", tc),
        1,
        "Size",
        ScaledTooLarge { unit: "bytes" },
    );
    assert_field(&error_of("1,0,8,1,vol\n", tc), 1, "VolumeID", NotUnsigned);
    assert_field(
        &error_of(&format!("{good}1538323198,0,8,1,1576\n"), tc),
        2,
        "Timestamp",
        Backwards { previous_line: 1 },
    );
    assert_field_count(&error_of("1538323199,0,8,1\n", tc), 1, 5, 4);
}

#[test]
fn long_values_are_quoted_shortened() {
    let long = "9".repeat(300);
    let error = error_of(&format!("0,W,{long},1\n"), TraceFormat::Csv);
    let message = error.to_string();
    assert!(message.len() < 200, "{message}");
    assert!(message.contains('…'), "{message}");
}

#[test]
fn control_characters_are_escaped_in_messages() {
    let error = error_of("0,\u{7}\u{1b}[31m,0,1\n", TraceFormat::Csv);
    let message = error.to_string();
    assert!(!message.chars().any(char::is_control), "{message:?}");
}

#[test]
fn too_long_lines_are_rejected() {
    let text = format!("0,W,0,1\n{}\n", "#".repeat(MAX_LINE_BYTES + 10));
    let error = error_of(&text, TraceFormat::Csv);
    assert_eq!(error.line(), Some(2));
    assert_eq!(
        error.line_error(),
        Some(&LineError::TooLong {
            max_bytes: MAX_LINE_BYTES
        })
    );
    // Exactly the limit is fine.
    let text = format!("0,W,0,1\n{}\n1,W,0,1\n", "#".repeat(MAX_LINE_BYTES));
    assert_eq!(
        read(&text, TraceFormat::Csv, TraceOptions::default())
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn the_reader_ends_after_an_error() {
    let text = "0,W,0,1\nbad\n2,W,0,1\n";
    let mut reader = TraceReader::new(
        text.as_bytes(),
        "t.csv",
        TraceFormat::Csv,
        TraceOptions::default(),
    )
    .unwrap();
    assert!(reader.next().unwrap().is_ok());
    assert!(reader.next().unwrap().is_err());
    assert!(reader.next().is_none());
    assert!(reader.next().is_none());
}

#[test]
fn unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.csv");
    let error = TraceReader::open(&missing, TraceFormat::Csv, TraceOptions::default())
        .err()
        .expect("opening a missing file fails");
    let message = error.to_string();
    assert!(matches!(error, TraceError::Open { .. }));
    assert!(
        message.starts_with(&format!("{}: cannot open trace file: ", missing.display())),
        "{message}"
    );
    assert!(message.contains("os error"), "{message}");
    assert!(!message.contains('\n'));
    assert_eq!(error.path(), missing.as_path());

    let error = TraceFormat::detect_path(&missing).unwrap_err();
    assert!(matches!(error, TraceError::Open { .. }), "{error}");

    // A directory opens on Unix but cannot be read: the read error names line 1.
    if let Ok(reader) = TraceReader::open(dir.path(), TraceFormat::Csv, TraceOptions::default()) {
        let error = reader.into_iter().next().unwrap().unwrap_err();
        assert!(matches!(error, TraceError::Read { line: 1, .. }), "{error}");
        assert!(
            error.to_string().contains(":1: cannot read trace file: "),
            "{error}"
        );
    }
}

#[test]
fn a_device_filter_needs_a_device_column() {
    let options = TraceOptions {
        device: Some(0),
        ..TraceOptions::default()
    };
    let error = TraceReader::new(&b"0,W,0,1\n"[..], "t.csv", TraceFormat::Csv, options)
        .err()
        .unwrap();
    assert_eq!(
        error.to_string(),
        "t.csv: a device filter was given, but the csv trace format has no device column"
    );
}

#[test]
fn blkparse_malformed_lines() {
    use FieldProblem::*;
    let bp = TraceFormat::Blkparse;
    let good = "  8,0    0        7     0.000006000  1234  D  WS 223490 + 8 [kjournald]\n";
    let error = error_of(&format!("{good}8,0 0 8 0.1 12 D W 100 8\n"), bp);
    assert_eq!(
        error.to_string(),
        "trace.csv:2: expected 10 whitespace-separated fields \
         (dev cpu seq time pid action rwbs sector + blocks [comm]), found 9"
    );
    assert_field_count(&error, 2, 10, 9);
    assert_field(
        &error_of(&format!("{good}8,0 0 8 0.1 12 D W 100 - 8 [x]\n"), bp),
        2,
        "+",
        Malformed {
            expected: "`+` between sector and blocks",
        },
    );
    assert_field(
        &error_of(&format!("{good}8,0 0 8 soon 12 D W 100 + 8 [x]\n"), bp),
        2,
        "time",
        NotDecimal,
    );
    assert_field(
        &error_of(&format!("{good}8,0 0 8 0.1 12 D W 100 + eight [x]\n"), bp),
        2,
        "blocks",
        NotUnsigned,
    );
    // A line that is neither an event nor blkparse's summary is an error, not skipped.
    assert_field_count(&error_of(&format!("{good}Reads Queued: 5\n"), bp), 2, 10, 3);
    assert_field(
        &error_of(&format!("{good}8,0 0 8 0.0000001 12 D W 100 + 8 [x]\n"), bp),
        2,
        "time",
        Backwards { previous_line: 1 },
    );
}
