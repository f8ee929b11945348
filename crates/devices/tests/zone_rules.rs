//! Zone rules: the NVMe ZNS / ZBC state machine of `ZoneSet` (every allowed and
//! forbidden transition, write-pointer rules, max-open / max-active limits), a
//! property test against an independent reference model, and the same rules seen
//! through a whole device (`zn540`).

use proptest::prelude::*;
use zonelab_devices::command::{Command, Payload, ZoneAction};
use zonelab_devices::zoned::zrwa::Committed;
use zonelab_devices::zoned::{ZoneDescriptor, ZoneLayout, ZoneSet, ZoneState, ZoneType, ZoneWrite};
use zonelab_devices::{open_device, Device, DeviceError};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn layout(
    zone_count: u32,
    size: u64,
    cap: u64,
    conventional: u32,
    max_open: u32,
    max_active: u32,
) -> ZoneLayout {
    ZoneLayout {
        zone_count,
        zone_size_blocks: size,
        zone_capacity_blocks: cap,
        conventional_zones: conventional,
        max_open_zones: max_open,
        max_active_zones: max_active,
        read_unwritten_ok: true,
    }
}

fn all(set: &ZoneSet) -> Vec<ZoneDescriptor> {
    set.report(0, set.layout().zone_count)
}

/// `open_count()` / `active_count()` agree with the states `report` shows, and the
/// limits hold.
fn assert_counts_consistent(set: &ZoneSet) {
    let d = all(set);
    let open = d.iter().filter(|z| z.state.is_open()).count() as u32;
    let active = d.iter().filter(|z| z.state.is_active()).count() as u32;
    assert_eq!(
        set.open_count(),
        open,
        "open_count() disagrees with report: {d:?}"
    );
    assert_eq!(
        set.active_count(),
        active,
        "active_count() disagrees with report: {d:?}"
    );
    let l = set.layout();
    if l.max_open_zones > 0 {
        assert!(
            open <= l.max_open_zones,
            "{open} open zones > max-open {}",
            l.max_open_zones
        );
    }
    if l.max_active_zones > 0 {
        assert!(
            active <= l.max_active_zones,
            "{active} active zones > max-active {}",
            l.max_active_zones
        );
    }
}

// ---------------------------------------------------------------------------
// 1. The transition table
// ---------------------------------------------------------------------------

/// Zone under test in the table-driven tests, and the table's layout: zone size 16,
/// capacity 12, no limits.
const TZ: u32 = 1;
const TSIZE: u64 = 16;
const TCAP: u64 = 12;
const TSTART: u64 = TZ as u64 * TSIZE;

fn table_layout() -> ZoneLayout {
    layout(4, TSIZE, TCAP, 0, 0, 0)
}

#[derive(Debug, Clone, Copy)]
enum Start {
    Empty,
    ImplicitlyOpen,
    /// Explicitly opened, nothing written.
    ExplicitlyOpenEmpty,
    /// Explicitly opened, then written (stays explicitly open).
    ExplicitlyOpenWritten,
    Closed,
    FullByWrite,
    FullByFinish,
    ReadOnly,
    Offline,
}

#[derive(Debug, Clone, Copy)]
enum Action {
    WriteAtWp,
    Append,
    Open,
    Close,
    Finish,
    Reset,
    Read,
}

const ACTIONS: [Action; 7] = [
    Action::WriteAtWp,
    Action::Append,
    Action::Open,
    Action::Close,
    Action::Finish,
    Action::Reset,
    Action::Read,
];

fn setup(start: Start) -> ZoneSet {
    let mut s = ZoneSet::new(table_layout());
    let st = TSTART;
    match start {
        Start::Empty => {}
        Start::ImplicitlyOpen => {
            s.write(st, 2).unwrap();
        }
        Start::ExplicitlyOpenEmpty => {
            s.open(st).unwrap();
        }
        Start::ExplicitlyOpenWritten => {
            s.open(st).unwrap();
            s.write(st, 2).unwrap();
        }
        Start::Closed => {
            s.write(st, 2).unwrap();
            s.close(st).unwrap();
        }
        Start::FullByWrite => {
            s.write(st, 2).unwrap();
            s.write(st + 2, (TCAP - 2) as u32).unwrap();
        }
        Start::FullByFinish => {
            s.write(st, 2).unwrap();
            assert_eq!(s.finish(st).unwrap(), TCAP - 2);
        }
        Start::ReadOnly => {
            s.write(st, 2).unwrap();
            s.set_read_only(TZ);
        }
        Start::Offline => {
            s.write(st, 2).unwrap();
            s.set_offline(TZ);
        }
    }
    assert_counts_consistent(&s);
    s
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Ret {
    Write(ZoneWrite),
    Open(Option<u32>),
    Close,
    Finish(u64),
    Reset(u64),
    Read(u32),
}

fn apply(s: &mut ZoneSet, action: Action) -> Result<Ret, DeviceError> {
    match action {
        Action::WriteAtWp => s.write(s.write_pointer(TZ), 2).map(Ret::Write),
        Action::Append => s.append(TSTART, 2).map(Ret::Write),
        Action::Open => s.open(TSTART).map(Ret::Open),
        Action::Close => s.close(TSTART).map(|()| Ret::Close),
        Action::Finish => s.finish(TSTART).map(Ret::Finish),
        Action::Reset => s.reset(TSTART).map(Ret::Reset),
        Action::Read => s.check_read(TSTART, 1).map(Ret::Read),
    }
}

#[derive(Debug, Clone)]
enum Expect {
    /// Succeeds; the zone ends in this state with its write pointer this many
    /// blocks past the zone start.
    To(ZoneState, u64),
    Fail(DeviceError),
}

fn to(state: ZoneState, wp_off: u64) -> Expect {
    Expect::To(state, wp_off)
}

fn invalid(action: &'static str, state: ZoneState) -> Expect {
    Expect::Fail(DeviceError::InvalidTransition {
        zone: TZ,
        action,
        state,
    })
}

fn table() -> Vec<(Start, [Expect; 7])> {
    use ZoneState::*;
    let full = || Expect::Fail(DeviceError::ZoneFull { zone: TZ });
    let ro = || Expect::Fail(DeviceError::ReadOnly { zone: TZ });
    let off = || Expect::Fail(DeviceError::Offline { zone: TZ });
    // Columns in ACTIONS order: write at WP (2 blocks), append (2), open, close,
    // finish, reset, read. Expect::To gives the state and WP offset afterwards.
    vec![
        (
            Start::Empty,
            [
                to(ImplicitlyOpen, 2),
                to(ImplicitlyOpen, 2),
                to(ExplicitlyOpen, 0),
                invalid("close", Empty),
                to(Full, TCAP),
                to(Empty, 0),
                to(Empty, 0),
            ],
        ),
        (
            Start::ImplicitlyOpen,
            [
                to(ImplicitlyOpen, 4),
                to(ImplicitlyOpen, 4),
                to(ExplicitlyOpen, 2),
                to(Closed, 2),
                to(Full, TCAP),
                to(Empty, 0),
                to(ImplicitlyOpen, 2),
            ],
        ),
        (
            Start::ExplicitlyOpenEmpty,
            [
                to(ExplicitlyOpen, 2),
                to(ExplicitlyOpen, 2),
                to(ExplicitlyOpen, 0),
                to(Empty, 0),
                to(Full, TCAP),
                to(Empty, 0),
                to(ExplicitlyOpen, 0),
            ],
        ),
        (
            Start::ExplicitlyOpenWritten,
            [
                to(ExplicitlyOpen, 4),
                to(ExplicitlyOpen, 4),
                to(ExplicitlyOpen, 2),
                to(Closed, 2),
                to(Full, TCAP),
                to(Empty, 0),
                to(ExplicitlyOpen, 2),
            ],
        ),
        (
            Start::Closed,
            [
                to(ImplicitlyOpen, 4),
                to(ImplicitlyOpen, 4),
                to(ExplicitlyOpen, 2),
                to(Closed, 2),
                to(Full, TCAP),
                to(Empty, 0),
                to(Closed, 2),
            ],
        ),
        (
            Start::FullByWrite,
            [
                full(),
                full(),
                invalid("open", Full),
                invalid("close", Full),
                to(Full, TCAP),
                to(Empty, 0),
                to(Full, TCAP),
            ],
        ),
        (
            Start::FullByFinish,
            [
                full(),
                full(),
                invalid("open", Full),
                invalid("close", Full),
                to(Full, TCAP),
                to(Empty, 0),
                to(Full, TCAP),
            ],
        ),
        (
            Start::ReadOnly,
            [ro(), ro(), ro(), ro(), ro(), ro(), to(ReadOnly, 2)],
        ),
        (
            Start::Offline,
            [off(), off(), off(), off(), off(), off(), off()],
        ),
    ]
}

#[test]
fn transition_table_every_state_times_every_action() {
    let mut checked = 0;
    for (start, expects) in table() {
        for (action, expect) in ACTIONS.iter().copied().zip(expects.iter()) {
            let mut s = setup(start);
            let before = all(&s);
            let old = s.descriptor(TZ);
            let old_wp_off = old.write_pointer - TSTART;
            let ctx = format!("{start:?} × {action:?}");
            let got = apply(&mut s, action);
            match (expect, got) {
                (Expect::Fail(e), Err(g)) => {
                    assert_eq!(&g, e, "{ctx}: wrong error");
                    assert_eq!(
                        all(&s),
                        before,
                        "{ctx}: a rejected command changed the zones"
                    );
                }
                (Expect::Fail(e), Ok(r)) => panic!("{ctx}: expected {e:?}, got Ok({r:?})"),
                (Expect::To(_, _), Err(g)) => panic!("{ctx}: expected success, got {g:?}"),
                (Expect::To(state, wp_off), Ok(r)) => {
                    let d = s.descriptor(TZ);
                    assert_eq!(d.state, *state, "{ctx}: resulting state");
                    assert_eq!(
                        d.write_pointer,
                        TSTART + wp_off,
                        "{ctx}: resulting write pointer"
                    );
                    // Return values.
                    match r {
                        Ret::Write(w) => {
                            assert_eq!(
                                w,
                                ZoneWrite {
                                    zone: TZ,
                                    lba: TSTART + old_wp_off,
                                    filled: false,
                                    implicitly_closed: None,
                                    fresh_blocks: (wp_off - old_wp_off) as u32,
                                    committed: Committed {
                                        blocks: wp_off - old_wp_off,
                                        holes: 0
                                    },
                                    zrwa: false,
                                },
                                "{ctx}"
                            );
                        }
                        Ret::Open(victim) => assert_eq!(victim, None, "{ctx}"),
                        Ret::Finish(padded) => {
                            assert_eq!(padded, wp_off - old_wp_off, "{ctx}: padded blocks")
                        }
                        Ret::Reset(written) => {
                            assert_eq!(written, old_wp_off, "{ctx}: reset returns blocks written")
                        }
                        Ret::Read(zone) => assert_eq!(zone, TZ, "{ctx}"),
                        Ret::Close => {}
                    }
                    // Other zones untouched.
                    for (a, b) in before.iter().zip(all(&s).iter()) {
                        if a.index != TZ {
                            assert_eq!(a, b, "{ctx}: another zone changed");
                        }
                    }
                }
            }
            assert_counts_consistent(&s);
            assert_eq!(
                s.open_count(),
                s.state(TZ).is_open() as u32,
                "{ctx}: open count"
            );
            assert_eq!(
                s.active_count(),
                s.state(TZ).is_active() as u32,
                "{ctx}: active count"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 9 * 7);
}

#[test]
fn close_of_open_zone_with_nothing_written_goes_to_empty() {
    let mut s = ZoneSet::new(table_layout());
    s.open(TSTART).unwrap();
    assert_eq!((s.open_count(), s.active_count()), (1, 1));
    s.close(TSTART).unwrap();
    assert_eq!(s.state(TZ), ZoneState::Empty);
    assert_eq!(s.write_pointer(TZ), TSTART);
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    // Closing it again is now an invalid transition (empty cannot be closed).
    assert_eq!(
        s.close(TSTART),
        Err(DeviceError::InvalidTransition {
            zone: TZ,
            action: "close",
            state: ZoneState::Empty
        })
    );
}

#[test]
fn finish_from_empty_pads_whole_capacity() {
    let mut s = ZoneSet::new(table_layout());
    assert_eq!(s.finish(TSTART), Ok(TCAP));
    let d = s.descriptor(TZ);
    assert_eq!((d.state, d.write_pointer), (ZoneState::Full, TSTART + TCAP));
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    // Finish of a full zone is a no-op.
    assert_eq!(s.finish(TSTART), Ok(0));
    assert_eq!(s.descriptor(TZ), d);
    // Reset returns what the zone held (the padding counts) and empties it.
    assert_eq!(s.reset(TSTART), Ok(TCAP));
    assert_eq!(s.reset(TSTART), Ok(0), "reset of an empty zone is a no-op");
    assert_eq!(
        s.descriptor(TZ),
        ZoneSet::new(table_layout()).descriptor(TZ)
    );
}

#[test]
fn open_of_explicitly_open_and_close_of_closed_are_noops() {
    let mut s = ZoneSet::new(table_layout());
    s.open(TSTART).unwrap();
    let d = all(&s);
    assert_eq!(s.open(TSTART), Ok(None));
    assert_eq!(all(&s), d);
    s.write(TSTART, 3).unwrap();
    s.close(TSTART).unwrap();
    let d = all(&s);
    assert_eq!(s.close(TSTART), Ok(()));
    assert_eq!(all(&s), d);
    assert_eq!((s.open_count(), s.active_count()), (0, 1));
}

#[test]
fn writes_reaching_capacity_make_the_zone_full_and_release_it() {
    for explicit in [false, true] {
        for use_append in [false, true] {
            let mut s = ZoneSet::new(table_layout());
            if explicit {
                s.open(TSTART).unwrap();
            }
            let first = s.write(TSTART, 5).unwrap();
            assert!(!first.filled);
            let w = if use_append {
                s.append(TSTART, (TCAP - 5) as u32)
            } else {
                s.write(TSTART + 5, (TCAP - 5) as u32)
            }
            .unwrap();
            assert_eq!(
                w,
                ZoneWrite {
                    zone: TZ,
                    lba: TSTART + 5,
                    filled: true,
                    implicitly_closed: None,
                    fresh_blocks: (TCAP - 5) as u32,
                    committed: Committed {
                        blocks: TCAP - 5,
                        holes: 0
                    },
                    zrwa: false,
                }
            );
            assert_eq!(s.state(TZ), ZoneState::Full);
            assert_eq!(s.write_pointer(TZ), TSTART + TCAP);
            assert_eq!(
                (s.open_count(), s.active_count()),
                (0, 0),
                "explicit={explicit} append={use_append}"
            );
        }
    }
}

#[test]
fn read_only_and_offline_injection_release_resources() {
    let mut s = ZoneSet::new(layout(4, 16, 12, 0, 2, 3));
    s.write(16, 1).unwrap();
    s.open(32).unwrap();
    s.write(48, 1).unwrap(); // closes zone 1 implicitly (max-open 2)
    assert_eq!(s.state(1), ZoneState::Closed);
    assert_eq!((s.open_count(), s.active_count()), (2, 3));
    s.set_read_only(1); // closed → read-only
    assert_eq!((s.open_count(), s.active_count()), (2, 2));
    s.set_offline(2); // explicitly open → offline
    assert_eq!((s.open_count(), s.active_count()), (1, 1));
    s.set_read_only(3); // implicitly open → read-only
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    assert_counts_consistent(&s);
    // Read-only data stays readable; offline data does not.
    assert_eq!(s.check_read(16, 1), Ok(1));
    assert_eq!(s.check_read(32, 1), Err(DeviceError::Offline { zone: 2 }));
}

// --- conventional zones ----------------------------------------------------

fn conventional_layout() -> ZoneLayout {
    layout(4, 16, 12, 1, 1, 1)
}

#[test]
fn conventional_zone_accepts_random_writes() {
    let mut s = ZoneSet::new(conventional_layout());
    let d0 = s.descriptor(0);
    assert_eq!(
        d0,
        ZoneDescriptor {
            index: 0,
            zone_type: ZoneType::Conventional,
            state: ZoneState::NotWritePointer,
            start_lba: 0,
            size_blocks: 16,
            capacity_blocks: 16,
            write_pointer: u64::MAX,
            zrwa: false,
        }
    );
    assert_eq!(s.zone_type(1), ZoneType::SequentialWriteRequired);
    for (lba, n) in [(5u64, 2u32), (0, 1), (5, 2), (15, 1), (3, 1), (0, 16)] {
        let w = s.write(lba, n).unwrap();
        assert_eq!(
            w,
            ZoneWrite {
                zone: 0,
                lba,
                filled: false,
                implicitly_closed: None,
                fresh_blocks: n,
                committed: Committed::default(),
                zrwa: false,
            }
        );
        assert_eq!(
            s.descriptor(0),
            d0,
            "a conventional zone has no state or write pointer"
        );
    }
    // Conventional zones use no open/active resources: max-open 1 still lets one
    // sequential zone open.
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
    s.write(16, 1).unwrap();
    assert_eq!((s.open_count(), s.active_count()), (1, 1));
    // Reads anywhere in it are fine, even when the device rejects unwritten reads.
    let mut strict = conventional_layout();
    strict.read_unwritten_ok = false;
    let s2 = ZoneSet::new(strict);
    assert_eq!(s2.check_read(0, 16), Ok(0));
    // But a write may not cross into the next zone.
    assert_eq!(
        s.write(15, 2),
        Err(DeviceError::BoundaryCrossed {
            command: "write",
            zone: 0,
            lba: 15,
            blocks: 2,
            capacity_end: 16
        })
    );
    assert_eq!(
        s.write(3, 0),
        Err(DeviceError::ZeroLength {
            command: "write",
            lba: 3
        })
    );
}

#[test]
fn conventional_zone_rejects_zone_commands() {
    let mut s = ZoneSet::new(conventional_layout());
    let before = all(&s);
    let conv = |command| DeviceError::ConventionalZone { command, zone: 0 };
    assert_eq!(s.append(0, 1), Err(conv("append")));
    assert_eq!(s.open(0), Err(conv("zone-open")));
    assert_eq!(s.close(0), Err(conv("zone-close")));
    assert_eq!(s.finish(0), Err(conv("zone-finish")));
    assert_eq!(s.reset(0), Err(conv("zone-reset")));
    assert_eq!(all(&s), before);
    // set_read_only does not apply to conventional zones.
    s.set_read_only(0);
    assert_eq!(s.state(0), ZoneState::NotWritePointer);
}

#[test]
fn offline_conventional_zone_rejects_writes() {
    let mut s = ZoneSet::new(conventional_layout());
    s.set_offline(0);
    assert_eq!(s.state(0), ZoneState::Offline);
    assert_eq!(s.check_read(0, 1), Err(DeviceError::Offline { zone: 0 }));
    assert_eq!(s.write(0, 1), Err(DeviceError::Offline { zone: 0 }));
}

#[test]
fn offline_is_terminal() {
    let mut s = ZoneSet::new(table_layout());
    s.write(TSTART, 2).unwrap();
    s.set_offline(TZ);
    s.set_read_only(TZ);
    assert_eq!(s.state(TZ), ZoneState::Offline);
    assert_eq!(
        s.check_read(TSTART, 1),
        Err(DeviceError::Offline { zone: TZ })
    );
}

#[test]
fn read_only_zone_can_go_offline() {
    let mut s = ZoneSet::new(table_layout());
    s.write(TSTART, 2).unwrap();
    s.set_read_only(TZ);
    s.set_offline(TZ);
    assert_eq!(s.state(TZ), ZoneState::Offline);
    assert_eq!(
        s.check_read(TSTART, 1),
        Err(DeviceError::Offline { zone: TZ })
    );
    assert_counts_consistent(&s);
}

// ---------------------------------------------------------------------------
// 2. Write-pointer rules
// ---------------------------------------------------------------------------

#[test]
fn write_not_at_write_pointer() {
    let mut s = ZoneSet::new(table_layout());
    // Ahead of the write pointer of an empty zone.
    assert_eq!(
        s.write(TSTART + 1, 1),
        Err(DeviceError::NotAtWritePointer {
            zone: TZ,
            lba: TSTART + 1,
            write_pointer: TSTART
        })
    );
    s.write(TSTART, 4).unwrap();
    // Behind it (overwrite) and ahead of it.
    for lba in [TSTART, TSTART + 3, TSTART + 5, TSTART + TCAP - 1] {
        let before = all(&s);
        assert_eq!(
            s.write(lba, 1),
            Err(DeviceError::NotAtWritePointer {
                zone: TZ,
                lba,
                write_pointer: TSTART + 4
            })
        );
        assert_eq!(all(&s), before);
    }
    // In the gap between capacity and size: still "not at the write pointer".
    assert_eq!(
        s.write(TSTART + TCAP, 1),
        Err(DeviceError::NotAtWritePointer {
            zone: TZ,
            lba: TSTART + TCAP,
            write_pointer: TSTART + 4
        })
    );
    // Closed zones too.
    s.close(TSTART).unwrap();
    assert_eq!(
        s.write(TSTART + 2, 1),
        Err(DeviceError::NotAtWritePointer {
            zone: TZ,
            lba: TSTART + 2,
            write_pointer: TSTART + 4
        })
    );
    assert_eq!(s.state(TZ), ZoneState::Closed);
    assert_counts_consistent(&s);
}

#[test]
fn write_crossing_zone_capacity() {
    let mut s = ZoneSet::new(table_layout());
    s.write(TSTART, 10).unwrap();
    let before = all(&s);
    let cap_end = TSTART + TCAP;
    assert_eq!(
        s.write(TSTART + 10, 3),
        Err(DeviceError::BoundaryCrossed {
            command: "write",
            zone: TZ,
            lba: TSTART + 10,
            blocks: 3,
            capacity_end: cap_end
        })
    );
    assert_eq!(
        s.append(TSTART, 3),
        Err(DeviceError::BoundaryCrossed {
            command: "append",
            zone: TZ,
            lba: TSTART + 10,
            blocks: 3,
            capacity_end: cap_end
        })
    );
    // Even one that would stay inside the zone size but not the capacity.
    const { assert!(TSTART + 10 + 6 <= TSTART + TSIZE) }; // the layout makes this case possible
    assert!(matches!(
        s.write(TSTART + 10, 6),
        Err(DeviceError::BoundaryCrossed { .. })
    ));
    // And one crossing into the next zone.
    assert!(matches!(
        s.write(TSTART + 10, 8),
        Err(DeviceError::BoundaryCrossed { .. })
    ));
    assert_eq!(all(&s), before);
    // Exactly to capacity is fine.
    assert!(s.write(TSTART + 10, 2).unwrap().filled);
    // An empty zone: a write larger than capacity fails and leaves it empty (no
    // open/active resource taken).
    let mut s = ZoneSet::new(table_layout());
    assert!(matches!(
        s.write(TSTART, (TCAP + 1) as u32),
        Err(DeviceError::BoundaryCrossed { .. })
    ));
    assert!(matches!(
        s.append(TSTART, (TCAP + 1) as u32),
        Err(DeviceError::BoundaryCrossed { .. })
    ));
    assert_eq!(s.state(TZ), ZoneState::Empty);
    assert_eq!((s.open_count(), s.active_count()), (0, 0));
}

#[test]
fn write_to_full_zone() {
    let mut s = ZoneSet::new(table_layout());
    s.write(TSTART, TCAP as u32).unwrap();
    for lba in [TSTART + TCAP, TSTART, TSTART + 1] {
        assert_eq!(s.write(lba, 1), Err(DeviceError::ZoneFull { zone: TZ }));
    }
    assert_eq!(s.append(TSTART, 1), Err(DeviceError::ZoneFull { zone: TZ }));
    // Finished zones are full too.
    s.finish(0).unwrap();
    assert_eq!(s.write(TCAP, 1), Err(DeviceError::ZoneFull { zone: 0 }));
}

#[test]
fn zero_length_requests() {
    let mut s = ZoneSet::new(table_layout());
    assert_eq!(
        s.write(TSTART, 0),
        Err(DeviceError::ZeroLength {
            command: "write",
            lba: TSTART
        })
    );
    assert_eq!(
        s.append(TSTART, 0),
        Err(DeviceError::ZeroLength {
            command: "append",
            lba: TSTART
        })
    );
    assert_eq!(
        s.check_read(TSTART, 0),
        Err(DeviceError::ZeroLength {
            command: "read",
            lba: TSTART
        })
    );
    assert_eq!(s.state(TZ), ZoneState::Empty);
}

#[test]
fn requests_beyond_the_device() {
    let mut s = ZoneSet::new(table_layout());
    let total = 4 * TSIZE;
    assert_eq!(s.capacity_blocks(), total);
    let oor = |command, lba, blocks| {
        Err::<(), _>(DeviceError::OutOfRange {
            command,
            lba,
            blocks,
            capacity_blocks: total,
        })
    };
    assert_eq!(s.write(total, 1).map(|_| ()), oor("write", total, 1));
    assert_eq!(
        s.write(total + 100, 1).map(|_| ()),
        oor("write", total + 100, 1)
    );
    assert_eq!(s.write(u64::MAX, 1).map(|_| ()), oor("write", u64::MAX, 1));
    assert_eq!(
        s.write(total - 1, u32::MAX).map(|_| ()),
        oor("write", total - 1, u32::MAX)
    );
    assert_eq!(s.check_read(total, 1).map(|_| ()), oor("read", total, 1));
    assert_eq!(
        s.check_read(total - 2, 3).map(|_| ()),
        oor("read", total - 2, 3)
    );
    for r in [
        s.append(total, 1).map(|_| ()),
        s.open(total).map(|_| ()),
        s.close(total),
        s.finish(total).map(|_| ()),
        s.reset(total).map(|_| ()),
    ] {
        assert!(
            matches!(r, Err(DeviceError::OutOfRange { lba, .. }) if lba == total),
            "{r:?}"
        );
    }
    assert!(all(&s).iter().all(|d| d.state == ZoneState::Empty));
}

#[test]
fn zone_commands_need_a_zone_start() {
    let mut s = ZoneSet::new(table_layout());
    for lba in [1, TSTART + 1, TSTART + TCAP, TSTART + TSIZE - 1] {
        let e = Err(DeviceError::NotZoneStart { lba });
        assert_eq!(s.append(lba, 1).map(|_| ()), e);
        assert_eq!(s.open(lba).map(|_| ()), e);
        assert_eq!(s.close(lba), e);
        assert_eq!(s.finish(lba).map(|_| ()), e);
        assert_eq!(s.reset(lba).map(|_| ()), e);
    }
    assert!(all(&s).iter().all(|d| d.state == ZoneState::Empty));
}

#[test]
fn append_returns_where_data_landed_and_advances_wp() {
    let mut s = ZoneSet::new(table_layout());
    let mut expect = TSTART;
    for n in [1u32, 3, 2, 5] {
        let w = s.append(TSTART, n).unwrap();
        assert_eq!(w.lba, expect);
        assert_eq!(w.zone, TZ);
        expect += n as u64;
        assert_eq!(s.write_pointer(TZ), expect);
        assert_eq!(w.filled, expect == TSTART + TCAP);
    }
    // Appends and writes at the WP interleave.
    s.write(expect, 0).unwrap_err();
    assert_eq!(s.write(expect, 1).unwrap().lba, expect);
    assert_eq!(s.state(TZ), ZoneState::Full);
}

#[test]
fn zone_capacity_below_zone_size() {
    let mut s = ZoneSet::new(table_layout());
    assert_eq!(s.descriptor(TZ).capacity_blocks, TCAP);
    assert_eq!(s.descriptor(TZ).size_blocks, TSIZE);
    // Reads between capacity and size are allowed (they return zeros on a device
    // that reads unwritten blocks), in any state.
    assert_eq!(s.check_read(TSTART + TCAP, (TSIZE - TCAP) as u32), Ok(TZ));
    s.write(TSTART, TCAP as u32).unwrap();
    assert_eq!(s.check_read(TSTART + TCAP, (TSIZE - TCAP) as u32), Ok(TZ));
    assert_eq!(s.check_read(TSTART, TSIZE as u32), Ok(TZ));
    // Writes there are not.
    assert_eq!(
        s.write(TSTART + TCAP, 1),
        Err(DeviceError::ZoneFull { zone: TZ })
    );
    // Reads may not cross the zone (size) boundary.
    assert_eq!(
        s.check_read(TSTART + TSIZE - 1, 2),
        Err(DeviceError::BoundaryCrossed {
            command: "read",
            zone: TZ,
            lba: TSTART + TSIZE - 1,
            blocks: 2,
            capacity_end: TSTART + TSIZE
        })
    );
    // The next zone starts at the zone size, not the capacity.
    assert_eq!(s.zone_of(TSTART + TCAP), TZ);
    assert_eq!(s.zone_of(TSTART + TSIZE), TZ + 1);
    assert_eq!(s.write(TSTART + TSIZE, 1).unwrap().zone, TZ + 1);
}

#[test]
fn read_unwritten_not_ok() {
    let mut l = table_layout();
    l.read_unwritten_ok = false;
    let mut s = ZoneSet::new(l);
    assert_eq!(
        s.check_read(TSTART, 1),
        Err(DeviceError::UnwrittenRead {
            zone: TZ,
            lba: TSTART,
            write_pointer: TSTART
        })
    );
    s.write(TSTART, 4).unwrap();
    assert_eq!(s.check_read(TSTART, 4), Ok(TZ));
    assert_eq!(s.check_read(TSTART + 3, 1), Ok(TZ));
    assert_eq!(
        s.check_read(TSTART + 3, 2),
        Err(DeviceError::UnwrittenRead {
            zone: TZ,
            lba: TSTART + 3,
            write_pointer: TSTART + 4
        })
    );
    assert_eq!(
        s.check_read(TSTART + 6, 1),
        Err(DeviceError::UnwrittenRead {
            zone: TZ,
            lba: TSTART + 6,
            write_pointer: TSTART + 4
        })
    );
    // Still readable when closed or read-only.
    s.close(TSTART).unwrap();
    assert_eq!(s.check_read(TSTART, 4), Ok(TZ));
    s.set_read_only(TZ);
    assert_eq!(s.check_read(TSTART, 4), Ok(TZ));
    assert!(matches!(
        s.check_read(TSTART + 4, 1),
        Err(DeviceError::UnwrittenRead { .. })
    ));
    // A finished zone is readable up to its capacity (the padding counts as written).
    s.finish(0).unwrap();
    assert_eq!(s.check_read(0, TCAP as u32), Ok(0));
    // With read_unwritten_ok the same reads succeed.
    let s = ZoneSet::new(table_layout());
    assert_eq!(s.check_read(TSTART + 6, 1), Ok(TZ));
}

/// The same scenario, with LBAs computed from the zone size, on power-of-two and
/// non-power-of-two zone sizes; returns each zone's (state, wp - start) at the end.
fn pow2_scenario(size: u64) -> Vec<(ZoneState, u64)> {
    const CAP: u64 = 10;
    let mut s = ZoneSet::new(layout(5, size, CAP, 1, 2, 3));
    let st = |z: u64| z * size;
    // zone_of at every boundary.
    for z in 1..5u64 {
        assert_eq!(s.zone_of(st(z) - 1), (z - 1) as u32, "size {size}");
        assert_eq!(s.zone_of(st(z)), z as u32, "size {size}");
        assert_eq!(s.zone_start(z as u32), st(z));
    }
    assert_eq!(s.capacity_blocks(), 5 * size);
    // Conventional zone 0: random writes, zone commands rejected.
    s.write(3, 2).unwrap();
    s.write(size - 1, 1).unwrap();
    assert!(matches!(
        s.write(size - 1, 2),
        Err(DeviceError::BoundaryCrossed { zone: 0, .. })
    ));
    assert_eq!(
        s.reset(0),
        Err(DeviceError::ConventionalZone {
            command: "zone-reset",
            zone: 0
        })
    );
    // Sequential zones.
    assert_eq!(s.write(st(1), 4).unwrap().lba, st(1));
    assert_eq!(
        s.write(st(1) + 5, 1),
        Err(DeviceError::NotAtWritePointer {
            zone: 1,
            lba: st(1) + 5,
            write_pointer: st(1) + 4
        })
    );
    assert_eq!(s.append(st(1), 3).unwrap().lba, st(1) + 4);
    assert_eq!(
        s.append(st(1) + 1, 3).unwrap_err(),
        DeviceError::NotZoneStart { lba: st(1) + 1 }
    );
    assert_eq!(
        s.append(st(1), 4).unwrap_err(),
        DeviceError::BoundaryCrossed {
            command: "append",
            zone: 1,
            lba: st(1) + 7,
            blocks: 4,
            capacity_end: st(1) + CAP
        }
    );
    assert_eq!(s.write(st(2), 1).unwrap().implicitly_closed, None);
    // Zone 1 is the least recently written: a third open closes it.
    assert_eq!(s.write(st(3), 1).unwrap().implicitly_closed, Some(1));
    assert_eq!(
        s.write(st(4), 1),
        Err(DeviceError::TooManyActiveZones { zone: 4, limit: 3 })
    );
    assert_eq!(s.finish(st(2)), Ok(CAP - 1));
    assert_eq!(s.write(st(4), 1).unwrap().implicitly_closed, None);
    let w = s.write(st(1) + 7, 3).unwrap();
    assert!(w.filled);
    assert_eq!(w.implicitly_closed, Some(3));
    assert!(matches!(
        s.write(st(1) + 10, 1),
        Err(DeviceError::ZoneFull { zone: 1 })
    ));
    assert_eq!(s.check_read(st(1) + CAP, (size - CAP) as u32), Ok(1));
    assert!(matches!(
        s.check_read(st(1) + size - 1, 2),
        Err(DeviceError::BoundaryCrossed { .. })
    ));
    assert_eq!(s.reset(st(1)), Ok(CAP));
    assert_eq!(s.close(st(4)), Ok(()));
    assert_counts_consistent(&s);
    // Descriptors are laid out at multiples of the zone size.
    for d in all(&s) {
        assert_eq!(d.start_lba, d.index as u64 * size);
        assert_eq!(d.size_blocks, size);
    }
    (1..5)
        .map(|z| (s.state(z), s.write_pointer(z) - st(z as u64)))
        .collect()
}

#[test]
fn non_power_of_two_zone_size_behaves_like_power_of_two() {
    let pow2 = pow2_scenario(16);
    assert_eq!(
        pow2,
        vec![
            (ZoneState::Empty, 0),
            (ZoneState::Full, 10),
            (ZoneState::Closed, 1),
            (ZoneState::Closed, 1)
        ]
    );
    for size in [12, 11, 24, 1000] {
        assert_eq!(pow2_scenario(size), pow2, "zone size {size}");
    }
    assert_eq!(pow2_scenario(1024), pow2);
}

// ---------------------------------------------------------------------------
// 3. Limits
// ---------------------------------------------------------------------------

#[test]
fn max_open_closes_least_recently_written_implicitly_open_zone() {
    let mut s = ZoneSet::new(layout(8, 16, 16, 0, 3, 0));
    for z in 1..=3u64 {
        assert_eq!(s.write(z * 16, 1).unwrap().implicitly_closed, None);
    }
    // Write zone 1 again: zone 2 is now the least recently written.
    s.write(16 + 1, 1).unwrap();
    assert_eq!(s.open_count(), 3);
    let w = s.write(4 * 16, 1).unwrap();
    assert_eq!(w.implicitly_closed, Some(2));
    assert_eq!(s.state(2), ZoneState::Closed);
    assert_eq!(s.state(4), ZoneState::ImplicitlyOpen);
    assert_eq!((s.open_count(), s.active_count()), (3, 4));
    // Next victim is zone 3 (written before 1 and 4), for an append as well.
    let w = s.append(5 * 16, 2).unwrap();
    assert_eq!(w.implicitly_closed, Some(3));
    assert_eq!(w.lba, 5 * 16);
    // Re-opening the closed zone 2 by a write closes the next LRU: zone 1.
    let w = s.write(2 * 16 + 1, 1).unwrap();
    assert_eq!(w.implicitly_closed, Some(1));
    assert_eq!(s.state(2), ZoneState::ImplicitlyOpen);
    // An explicit open also makes room (victim returned by open), here zone 4.
    assert_eq!(s.open(6 * 16), Ok(Some(4)));
    assert_eq!(s.state(6), ZoneState::ExplicitlyOpen);
    assert_eq!((s.open_count(), s.active_count()), (3, 6));
    assert_counts_consistent(&s);
    // Opening an already implicitly open zone explicitly needs no room.
    assert_eq!(s.open(5 * 16), Ok(None));
    assert_eq!(s.open_count(), 3);
}

#[test]
fn explicitly_open_zones_are_never_implicitly_closed() {
    let mut s = ZoneSet::new(layout(8, 16, 16, 0, 3, 0));
    s.open(16).unwrap();
    s.open(32).unwrap();
    s.write(48, 1).unwrap(); // the only implicitly open zone, written last
    s.write(16, 1).unwrap(); // explicit zones written more recently don't matter:
    s.write(32, 1).unwrap(); // the victim must be the implicit one.
    assert_eq!(s.write(64, 1).unwrap().implicitly_closed, Some(3));
    // Open now: zones 1 and 2 explicitly, zone 4 implicitly. Make zone 4 explicit
    // too: no implicitly open zone is left to close.
    s.open(64).unwrap();
    let before = all(&s);
    assert_eq!(
        s.write(80, 1),
        Err(DeviceError::TooManyOpenZones { zone: 5, limit: 3 })
    );
    assert_eq!(
        s.append(80, 1),
        Err(DeviceError::TooManyOpenZones { zone: 5, limit: 3 })
    );
    assert_eq!(
        s.open(80),
        Err(DeviceError::TooManyOpenZones { zone: 5, limit: 3 })
    );
    // A closed zone can't be reopened either.
    assert_eq!(
        s.write(48 + 1, 1),
        Err(DeviceError::TooManyOpenZones { zone: 3, limit: 3 })
    );
    assert_eq!(
        s.open(48),
        Err(DeviceError::TooManyOpenZones { zone: 3, limit: 3 })
    );
    assert_eq!(all(&s), before, "failed opens change nothing");
    assert_counts_consistent(&s);
    // Writes to zones already open are unaffected.
    s.write(17, 1).unwrap();
    // Closing, finishing or resetting an open zone frees a slot.
    for (i, free) in [Action::Close, Action::Finish, Action::Reset]
        .into_iter()
        .enumerate()
    {
        let mut t = s.clone();
        match free {
            Action::Close => t.close(32).unwrap(),
            Action::Finish => {
                t.finish(32).unwrap();
            }
            _ => {
                t.reset(32).unwrap();
            }
        }
        assert_eq!(t.open_count(), 2, "case {i}");
        assert_eq!(t.open(80), Ok(None), "case {i}");
        assert_counts_consistent(&t);
    }
}

#[test]
fn max_active_counts_closed_zones() {
    let mut s = ZoneSet::new(layout(8, 16, 12, 0, 2, 3));
    s.write(16, 1).unwrap();
    s.write(32, 1).unwrap();
    s.close(16).unwrap();
    assert_eq!((s.open_count(), s.active_count()), (1, 2));
    s.write(48, 1).unwrap();
    assert_eq!((s.open_count(), s.active_count()), (2, 3));
    let too_many = |zone| Err::<(), _>(DeviceError::TooManyActiveZones { zone, limit: 3 });
    let before = all(&s);
    assert_eq!(s.write(64, 1).map(|_| ()), too_many(4));
    assert_eq!(s.append(64, 1).map(|_| ()), too_many(4));
    assert_eq!(s.open(64).map(|_| ()), too_many(4));
    assert_eq!(all(&s), before);
    // Closed zones still count: close everything, still no room.
    s.close(32).unwrap();
    s.close(48).unwrap();
    assert_eq!((s.open_count(), s.active_count()), (0, 3));
    assert_eq!(s.write(64, 1).map(|_| ()), too_many(4));
    assert_eq!(s.open(64).map(|_| ()), too_many(4));
    // But an active (closed) zone can be reopened: it needs no new active slot.
    assert!(s.write(17, 1).is_ok());
    assert_eq!(s.open(32), Ok(None));
    assert_eq!((s.open_count(), s.active_count()), (2, 3));
    // And with max-open reached too, reopening zone 3 implicitly closes zone 1.
    assert_eq!(s.write(49, 1).unwrap().implicitly_closed, Some(1));
    // Finishing releases an active slot.
    assert_eq!(s.finish(16), Ok(12 - 2));
    assert_eq!(s.active_count(), 2);
    assert_eq!(s.write(64, 1).unwrap().implicitly_closed, Some(3));
    assert_eq!(s.active_count(), 3);
    assert_eq!(s.write(80, 1).map(|_| ()), too_many(5));
    // Resetting releases one.
    assert_eq!(s.reset(48), Ok(2));
    assert_eq!(s.active_count(), 2);
    assert!(s.write(80, 1).is_ok());
    assert_eq!(s.write(96, 1).map(|_| ()), too_many(6));
    // Finishing an empty zone takes no active slot.
    assert_eq!(s.finish(112), Ok(12));
    assert_eq!(s.active_count(), 3);
    assert_counts_consistent(&s);
}

#[test]
fn explicit_open_then_close_empty_releases_active() {
    let mut s = ZoneSet::new(layout(8, 16, 12, 0, 2, 2));
    s.open(16).unwrap();
    s.open(32).unwrap();
    assert_eq!(
        s.open(48),
        Err(DeviceError::TooManyActiveZones { zone: 3, limit: 2 })
    );
    s.close(16).unwrap(); // nothing written: back to empty
    assert_eq!(s.state(1), ZoneState::Empty);
    assert_eq!((s.open_count(), s.active_count()), (1, 1));
    assert_eq!(s.open(48), Ok(None));
    assert_counts_consistent(&s);
}

#[test]
fn unlimited_when_limits_are_zero() {
    let mut s = ZoneSet::new(layout(64, 4, 4, 0, 0, 0));
    for z in 0..64u64 {
        assert_eq!(s.write(z * 4, 1).unwrap().implicitly_closed, None);
    }
    assert_eq!((s.open_count(), s.active_count()), (64, 64));
}

#[test]
fn max_open_without_max_active() {
    let mut s = ZoneSet::new(layout(8, 4, 4, 0, 1, 0));
    for z in 0..8u32 {
        let w = s.write(z as u64 * 4, 1).unwrap();
        assert_eq!(w.implicitly_closed, z.checked_sub(1));
        assert_eq!((s.open_count(), s.active_count()), (1, z + 1));
    }
}

// ---------------------------------------------------------------------------
// 4. Property test against a reference model
// ---------------------------------------------------------------------------

/// Error kinds, independent of the crate's field values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ZeroLength,
    OutOfRange,
    NotAtWritePointer,
    ZoneFull,
    BoundaryCrossed,
    TooManyOpen,
    TooManyActive,
    InvalidTransition,
    ReadOnly,
    Offline,
    NotZoneStart,
    Conventional,
    UnwrittenRead,
    /// Anything a zone set should never return.
    Other,
}

fn kind(e: &DeviceError) -> Kind {
    match e {
        DeviceError::ZeroLength { .. } => Kind::ZeroLength,
        DeviceError::OutOfRange { .. } => Kind::OutOfRange,
        DeviceError::NotAtWritePointer { .. } => Kind::NotAtWritePointer,
        DeviceError::ZoneFull { .. } => Kind::ZoneFull,
        DeviceError::BoundaryCrossed { .. } => Kind::BoundaryCrossed,
        DeviceError::TooManyOpenZones { .. } => Kind::TooManyOpen,
        DeviceError::TooManyActiveZones { .. } => Kind::TooManyActive,
        DeviceError::InvalidTransition { .. } => Kind::InvalidTransition,
        DeviceError::ReadOnly { .. } => Kind::ReadOnly,
        DeviceError::Offline { .. } => Kind::Offline,
        DeviceError::NotZoneStart { .. } => Kind::NotZoneStart,
        DeviceError::ConventionalZone { .. } => Kind::Conventional,
        DeviceError::UnwrittenRead { .. } => Kind::UnwrittenRead,
        _ => Kind::Other,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Out {
    Write {
        zone: u32,
        lba: u64,
        filled: bool,
        closed: Option<u32>,
    },
    Opened(Option<u32>),
    Done,
    Blocks(u64),
    Read(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RState {
    Conventional,
    Empty,
    ImpOpen,
    ExpOpen,
    Closed,
    Full,
    ReadOnly,
    Offline,
}

#[derive(Debug, Clone, Copy)]
struct RZone {
    st: RState,
    wp: u64,
    last_write: u64,
}

/// A plain reference implementation of the transition table in
/// `zoned/zone_set.rs`, written separately from it.
#[derive(Debug, Clone)]
struct Model {
    size: u64,
    cap: u64,
    conv: u32,
    max_open: u32,
    max_active: u32,
    unwritten_ok: bool,
    zones: Vec<RZone>,
    clock: u64,
}

impl Model {
    fn new(l: &ZoneLayout) -> Self {
        let zones = (0..l.zone_count)
            .map(|i| RZone {
                st: if i < l.conventional_zones {
                    RState::Conventional
                } else {
                    RState::Empty
                },
                wp: i as u64 * l.zone_size_blocks,
                last_write: 0,
            })
            .collect();
        Model {
            size: l.zone_size_blocks,
            cap: l.zone_capacity_blocks,
            conv: l.conventional_zones,
            max_open: l.max_open_zones,
            max_active: l.max_active_zones,
            unwritten_ok: l.read_unwritten_ok,
            zones,
            clock: 0,
        }
    }

    fn total(&self) -> u64 {
        self.zones.len() as u64 * self.size
    }
    fn start(&self, z: usize) -> u64 {
        z as u64 * self.size
    }
    fn n_open(&self) -> u32 {
        self.zones
            .iter()
            .filter(|z| matches!(z.st, RState::ImpOpen | RState::ExpOpen))
            .count() as u32
    }
    fn n_active(&self) -> u32 {
        self.zones
            .iter()
            .filter(|z| matches!(z.st, RState::ImpOpen | RState::ExpOpen | RState::Closed))
            .count() as u32
    }

    fn in_device(&self, lba: u64, n: u32) -> bool {
        lba < self.total() && lba + n as u64 <= self.total()
    }

    /// Zone management / append target: must be a zone start of a sequential zone.
    fn target(&self, zone_lba: u64) -> Result<usize, Kind> {
        if zone_lba >= self.total() {
            return Err(Kind::OutOfRange);
        }
        if !zone_lba.is_multiple_of(self.size) {
            return Err(Kind::NotZoneStart);
        }
        let z = (zone_lba / self.size) as usize;
        if (z as u32) < self.conv {
            return Err(Kind::Conventional);
        }
        Ok(z)
    }

    /// An empty or closed zone is about to open: check max-active (empty only) and
    /// max-open (closing the least recently written implicitly open zone).
    fn make_room(&mut self, z: usize) -> Result<Option<u32>, Kind> {
        if self.zones[z].st == RState::Empty
            && self.max_active != 0
            && self.n_active() >= self.max_active
        {
            return Err(Kind::TooManyActive);
        }
        if self.max_open != 0 && self.n_open() >= self.max_open {
            let mut victim: Option<usize> = None;
            for (i, zone) in self.zones.iter().enumerate() {
                if zone.st == RState::ImpOpen
                    && victim.is_none_or(|v| zone.last_write < self.zones[v].last_write)
                {
                    victim = Some(i);
                }
            }
            let v = victim.ok_or(Kind::TooManyOpen)?;
            self.zones[v].st = RState::Closed;
            return Ok(Some(v as u32));
        }
        Ok(None)
    }

    fn not_writable(st: RState) -> Option<Kind> {
        match st {
            RState::Full => Some(Kind::ZoneFull),
            RState::ReadOnly => Some(Kind::ReadOnly),
            RState::Offline => Some(Kind::Offline),
            _ => None,
        }
    }

    fn bad_state(st: RState) -> Kind {
        match st {
            RState::ReadOnly => Kind::ReadOnly,
            RState::Offline => Kind::Offline,
            _ => Kind::InvalidTransition,
        }
    }

    /// Writes `n` blocks at the write pointer of a writable zone.
    fn put(&mut self, z: usize, n: u32) -> Result<Out, Kind> {
        let end = self.start(z) + self.cap;
        let at = self.zones[z].wp;
        if at + n as u64 > end {
            return Err(Kind::BoundaryCrossed);
        }
        let mut closed = None;
        if matches!(self.zones[z].st, RState::Empty | RState::Closed) {
            closed = self.make_room(z)?;
            self.zones[z].st = RState::ImpOpen;
        }
        self.clock += 1;
        let zone = &mut self.zones[z];
        zone.wp += n as u64;
        zone.last_write = self.clock;
        let filled = zone.wp == end;
        if filled {
            zone.st = RState::Full;
        }
        Ok(Out::Write {
            zone: z as u32,
            lba: at,
            filled,
            closed,
        })
    }

    fn write(&mut self, lba: u64, n: u32) -> Result<Out, Kind> {
        if n == 0 {
            return Err(Kind::ZeroLength);
        }
        if !self.in_device(lba, n) {
            return Err(Kind::OutOfRange);
        }
        let z = (lba / self.size) as usize;
        if self.zones[z].st == RState::Conventional {
            if lba + n as u64 > self.start(z) + self.size {
                return Err(Kind::BoundaryCrossed);
            }
            return Ok(Out::Write {
                zone: z as u32,
                lba,
                filled: false,
                closed: None,
            });
        }
        if let Some(k) = Self::not_writable(self.zones[z].st) {
            return Err(k);
        }
        if lba != self.zones[z].wp {
            return Err(Kind::NotAtWritePointer);
        }
        self.put(z, n)
    }

    fn append(&mut self, zone_lba: u64, n: u32) -> Result<Out, Kind> {
        if n == 0 {
            return Err(Kind::ZeroLength);
        }
        let z = self.target(zone_lba)?;
        if let Some(k) = Self::not_writable(self.zones[z].st) {
            return Err(k);
        }
        self.put(z, n)
    }

    fn open(&mut self, zone_lba: u64) -> Result<Out, Kind> {
        let z = self.target(zone_lba)?;
        match self.zones[z].st {
            RState::ExpOpen => Ok(Out::Opened(None)),
            RState::ImpOpen => {
                self.zones[z].st = RState::ExpOpen;
                Ok(Out::Opened(None))
            }
            RState::Empty | RState::Closed => {
                let closed = self.make_room(z)?;
                self.zones[z].st = RState::ExpOpen;
                Ok(Out::Opened(closed))
            }
            st => Err(Self::bad_state(st)),
        }
    }

    fn close(&mut self, zone_lba: u64) -> Result<Out, Kind> {
        let z = self.target(zone_lba)?;
        match self.zones[z].st {
            RState::Closed => Ok(Out::Done),
            RState::ImpOpen | RState::ExpOpen => {
                let nothing_written = self.zones[z].wp == self.start(z);
                self.zones[z].st = if nothing_written {
                    RState::Empty
                } else {
                    RState::Closed
                };
                Ok(Out::Done)
            }
            st => Err(Self::bad_state(st)),
        }
    }

    fn finish(&mut self, zone_lba: u64) -> Result<Out, Kind> {
        let z = self.target(zone_lba)?;
        match self.zones[z].st {
            RState::Full => Ok(Out::Blocks(0)),
            RState::Empty | RState::ImpOpen | RState::ExpOpen | RState::Closed => {
                let end = self.start(z) + self.cap;
                let padded = end - self.zones[z].wp;
                self.zones[z].wp = end;
                self.zones[z].st = RState::Full;
                Ok(Out::Blocks(padded))
            }
            st => Err(Self::bad_state(st)),
        }
    }

    fn reset(&mut self, zone_lba: u64) -> Result<Out, Kind> {
        let z = self.target(zone_lba)?;
        match self.zones[z].st {
            RState::Empty => Ok(Out::Blocks(0)),
            RState::ImpOpen | RState::ExpOpen | RState::Closed | RState::Full => {
                let written = self.zones[z].wp - self.start(z);
                self.zones[z].wp = self.start(z);
                self.zones[z].st = RState::Empty;
                Ok(Out::Blocks(written))
            }
            st => Err(Self::bad_state(st)),
        }
    }

    fn read(&self, lba: u64, n: u32) -> Result<Out, Kind> {
        if n == 0 {
            return Err(Kind::ZeroLength);
        }
        if !self.in_device(lba, n) {
            return Err(Kind::OutOfRange);
        }
        let z = (lba / self.size) as usize;
        let end = lba + n as u64;
        if end > self.start(z) + self.size {
            return Err(Kind::BoundaryCrossed);
        }
        match self.zones[z].st {
            RState::Offline => Err(Kind::Offline),
            RState::Conventional | RState::Full => Ok(Out::Read(z as u32)),
            _ if !self.unwritten_ok && end > self.zones[z].wp => Err(Kind::UnwrittenRead),
            _ => Ok(Out::Read(z as u32)),
        }
    }

    fn inject(&mut self, z: usize, offline: bool) {
        if self.zones[z].st == RState::Conventional {
            return; // not injected on conventional zones in this test
        }
        self.zones[z].st = if offline {
            RState::Offline
        } else {
            RState::ReadOnly
        };
    }

    fn descriptors(&self) -> Vec<ZoneDescriptor> {
        self.zones
            .iter()
            .enumerate()
            .map(|(i, z)| {
                let conv = z.st == RState::Conventional;
                ZoneDescriptor {
                    index: i as u32,
                    zone_type: if conv {
                        ZoneType::Conventional
                    } else {
                        ZoneType::SequentialWriteRequired
                    },
                    state: match z.st {
                        RState::Conventional => ZoneState::NotWritePointer,
                        RState::Empty => ZoneState::Empty,
                        RState::ImpOpen => ZoneState::ImplicitlyOpen,
                        RState::ExpOpen => ZoneState::ExplicitlyOpen,
                        RState::Closed => ZoneState::Closed,
                        RState::Full => ZoneState::Full,
                        RState::ReadOnly => ZoneState::ReadOnly,
                        RState::Offline => ZoneState::Offline,
                    },
                    start_lba: self.start(i),
                    size_blocks: self.size,
                    capacity_blocks: if conv { self.size } else { self.cap },
                    write_pointer: if conv { u64::MAX } else { z.wp },
                    zrwa: false,
                }
            })
            .collect()
    }
}

/// Where a zone command or append is aimed.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// Zone index (may be one past the last zone).
    Zone(u32),
    /// Any LBA (usually not a zone start).
    Lba(u64),
}

#[derive(Debug, Clone, Copy)]
enum Op {
    /// Write at the zone's write pointer (conventional zone: at `off` in it).
    WriteAtWp {
        zone: u32,
        off: u64,
        blocks: u32,
    },
    WriteAt {
        lba: u64,
        blocks: u32,
    },
    Append {
        target: Target,
        blocks: u32,
    },
    Open(Target),
    Close(Target),
    Finish(Target),
    Reset(Target),
    Read {
        lba: u64,
        blocks: u32,
    },
    /// Failure injection on a sequential zone.
    Inject {
        zone: u32,
        offline: bool,
    },
}

const P_ZONES: u32 = 6;

fn target_strategy(span: u64) -> impl Strategy<Value = Target> {
    prop_oneof![
        6 => (0..=P_ZONES).prop_map(Target::Zone),
        1 => (0..span + 4).prop_map(Target::Lba),
    ]
}

/// `span`: the largest device size of the layouts tested (zone size × zones).
fn op_strategy(span: u64) -> impl Strategy<Value = Op> {
    // Mostly small writes (so zones fill step by step), some up to beyond the
    // zone size (crossing capacity, size and the device's end), some zero.
    let blocks = prop_oneof![6 => 1u32..=3, 3 => 0u32..=10];
    prop_oneof![
        12 => (0..P_ZONES, 0u64..64, blocks.clone()).prop_map(|(zone, off, blocks)| Op::WriteAtWp { zone, off, blocks }),
        3 => (0..span + 4, blocks.clone()).prop_map(|(lba, blocks)| Op::WriteAt { lba, blocks }),
        6 => (target_strategy(span), blocks.clone()).prop_map(|(target, blocks)| Op::Append { target, blocks }),
        3 => target_strategy(span).prop_map(Op::Open),
        3 => target_strategy(span).prop_map(Op::Close),
        2 => target_strategy(span).prop_map(Op::Finish),
        3 => target_strategy(span).prop_map(Op::Reset),
        4 => (0..span + 4, blocks).prop_map(|(lba, blocks)| Op::Read { lba, blocks }),
        1 => (1..P_ZONES, any::<bool>()).prop_map(|(zone, offline)| Op::Inject { zone, offline }),
    ]
}

fn out_of<T>(r: Result<T, DeviceError>, f: impl FnOnce(T) -> Out) -> Result<Out, Kind> {
    r.map(f).map_err(|e| kind(&e))
}

fn check_invariants(s: &ZoneSet, m: &Model) -> Result<(), TestCaseError> {
    let l = *s.layout();
    let d = all(s);
    prop_assert_eq!(
        &d,
        &m.descriptors(),
        "zone descriptors differ from the reference model"
    );
    prop_assert_eq!(s.open_count(), m.n_open(), "open_count");
    prop_assert_eq!(s.active_count(), m.n_active(), "active_count");
    prop_assert!(
        s.open_count() <= l.max_open_zones,
        "open {} > max-open",
        s.open_count()
    );
    prop_assert!(
        s.active_count() <= l.max_active_zones,
        "active {} > max-active",
        s.active_count()
    );
    prop_assert!(s.open_count() <= s.active_count());
    for z in d
        .iter()
        .filter(|z| z.zone_type == ZoneType::SequentialWriteRequired)
    {
        let cap_end = z.start_lba + z.capacity_blocks;
        prop_assert!(
            z.write_pointer >= z.start_lba && z.write_pointer <= cap_end,
            "wp out of zone: {:?}",
            z
        );
        if !matches!(z.state, ZoneState::ReadOnly | ZoneState::Offline) {
            prop_assert_eq!(
                z.state == ZoneState::Full,
                z.write_pointer == cap_end,
                "Full iff wp at capacity: {:?}",
                z
            );
            if z.state == ZoneState::Empty {
                prop_assert_eq!(
                    z.write_pointer,
                    z.start_lba,
                    "empty zone with data: {:?}",
                    z
                );
            }
            if matches!(z.state, ZoneState::Closed | ZoneState::ImplicitlyOpen) {
                prop_assert!(
                    z.write_pointer > z.start_lba,
                    "closed/implicitly open zone without data: {:?}",
                    z
                );
            }
            prop_assert!(z.state != ZoneState::NotWritePointer);
        }
    }
    for z in d.iter().filter(|z| z.zone_type == ZoneType::Conventional) {
        prop_assert_eq!(z.write_pointer, u64::MAX);
    }
    Ok(())
}

/// Runs `ops` on a `ZoneSet` and the reference model side by side. Failure
/// injection ops are skipped unless `inject` (read-only / offline zones stay so for
/// good, so most sequences run without them).
fn run_against_model(l: ZoneLayout, ops: &[Op], inject: bool) -> Result<(), TestCaseError> {
    let mut s = ZoneSet::new(l);
    let mut m = Model::new(&l);
    check_invariants(&s, &m)?;
    for (step, op) in ops.iter().enumerate() {
        match *op {
            Op::Inject { .. } if !inject => continue,
            // Offline is terminal; `offline_is_terminal` covers that case on its own.
            Op::Inject {
                zone,
                offline: false,
            } if m.zones[zone as usize].st == RState::Offline => continue,
            _ => {}
        }
        let zlba = |t: Target| match t {
            Target::Zone(z) => z as u64 * l.zone_size_blocks,
            Target::Lba(lba) => lba,
        };
        let before = all(&s);
        let (got, want) = match *op {
            Op::WriteAtWp { zone, off, blocks } => {
                let lba = if zone < l.conventional_zones {
                    zone as u64 * l.zone_size_blocks + off % l.zone_size_blocks
                } else {
                    m.zones[zone as usize].wp
                };
                let got = out_of(s.write(lba, blocks), |w| Out::Write {
                    zone: w.zone,
                    lba: w.lba,
                    filled: w.filled,
                    closed: w.implicitly_closed,
                });
                (got, m.write(lba, blocks))
            }
            Op::WriteAt { lba, blocks } => {
                let got = out_of(s.write(lba, blocks), |w| Out::Write {
                    zone: w.zone,
                    lba: w.lba,
                    filled: w.filled,
                    closed: w.implicitly_closed,
                });
                (got, m.write(lba, blocks))
            }
            Op::Append { target, blocks } => {
                let a = zlba(target);
                let got = out_of(s.append(a, blocks), |w| Out::Write {
                    zone: w.zone,
                    lba: w.lba,
                    filled: w.filled,
                    closed: w.implicitly_closed,
                });
                (got, m.append(a, blocks))
            }
            Op::Open(t) => (out_of(s.open(zlba(t)), Out::Opened), m.open(zlba(t))),
            Op::Close(t) => (out_of(s.close(zlba(t)), |()| Out::Done), m.close(zlba(t))),
            Op::Finish(t) => (out_of(s.finish(zlba(t)), Out::Blocks), m.finish(zlba(t))),
            Op::Reset(t) => (out_of(s.reset(zlba(t)), Out::Blocks), m.reset(zlba(t))),
            Op::Read { lba, blocks } => (
                out_of(s.check_read(lba, blocks), Out::Read),
                m.read(lba, blocks),
            ),
            Op::Inject { zone, offline } => {
                if offline {
                    s.set_offline(zone);
                } else {
                    s.set_read_only(zone);
                }
                m.inject(zone as usize, offline);
                (Ok(Out::Done), Ok(Out::Done))
            }
        };
        prop_assert_eq!(got, want, "step {}: {:?} (layout {:?})", step, op, l);
        if got.is_err() {
            prop_assert_eq!(
                &all(&s),
                &before,
                "step {}: rejected {:?} changed the zones",
                step,
                op
            );
        }
        check_invariants(&s, &m)
            .map_err(|e| TestCaseError::fail(format!("step {step}: {op:?}: {e}")))?;
    }
    Ok(())
}

fn prop_layout(size: u64, cap: u64, read_unwritten_ok: bool) -> ZoneLayout {
    ZoneLayout {
        read_unwritten_ok,
        ..layout(P_ZONES, size, cap, 1, 2, 3)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn prop_matches_reference_pow2(
        ops in prop::collection::vec(op_strategy(8 * P_ZONES as u64), 1..150),
        strict in any::<bool>(),
        inject in prop::bool::weighted(0.3),
    ) {
        run_against_model(prop_layout(8, 6, !strict), &ops, inject)?;
    }

    #[test]
    fn prop_matches_reference_non_pow2(
        ops in prop::collection::vec(op_strategy(10 * P_ZONES as u64), 1..150),
        size in prop_oneof![Just(7u64), Just(10), Just(6)],
        strict in any::<bool>(),
        inject in prop::bool::weighted(0.3),
    ) {
        run_against_model(prop_layout(size, 6, !strict), &ops, inject)?;
    }
}

// ---------------------------------------------------------------------------
// 5. Through the device
// ---------------------------------------------------------------------------

fn zn540() -> Box<dyn Device> {
    open_device("zn540").expect("zn540 profile")
}

struct Geo {
    bb: usize,
    zone_size: u64,
    zone_cap: u64,
    zones: u32,
}

fn geo(d: &dyn Device) -> Geo {
    let z = d.info().zoned.clone().expect("zn540 is zoned");
    Geo {
        bb: d.info().block_bytes as usize,
        zone_size: z.zone_size_blocks,
        zone_cap: z.zone_capacity_blocks,
        zones: z.zone_count,
    }
}

fn report(d: &dyn Device) -> Vec<ZoneDescriptor> {
    let g = geo(d);
    d.report_zones(0, g.zones).unwrap()
}

fn pattern(blocks: usize, bb: usize, seed: u8) -> Vec<u8> {
    (0..blocks * bb)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ ((i / bb) as u8))
        .collect()
}

#[test]
fn device_geometry_matches_profile() {
    let d = zn540();
    let g = geo(&*d);
    assert_eq!(g.bb, 4096);
    assert_eq!(g.zones, 3688);
    assert_eq!(g.zone_size, 2048 * 256);
    assert_eq!(g.zone_cap, 1077 * 256);
    let r = report(&*d);
    assert_eq!(r.len(), 3688);
    assert!(r.iter().all(|z| z.state == ZoneState::Empty
        && z.write_pointer == z.start_lba
        && z.zone_type == ZoneType::SequentialWriteRequired));
    assert_eq!(d.report_zones(3686, 10).unwrap().len(), 2);
}

#[test]
fn device_write_not_at_wp_is_rejected_and_changes_nothing() {
    let mut d = zn540();
    let g = geo(&*d);
    let z1 = g.zone_size;
    let mut t = 0;
    t = d
        .submit(t, &Command::Write { lba: z1, blocks: 8 }, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    let before = report(&*d);
    let stats_before = d.stats(t);
    for lba in [z1 + 4, z1 + 9, z1, 1, 2 * z1 + 3] {
        let zone = (lba / g.zone_size) as u32;
        let wp = before[zone as usize].write_pointer;
        let e = d
            .submit(t, &Command::Write { lba, blocks: 1 }, Payload::SizeOnly)
            .unwrap_err();
        assert_eq!(
            e,
            DeviceError::NotAtWritePointer {
                zone,
                lba,
                write_pointer: wp
            }
        );
        // With a payload too.
        let data = pattern(1, g.bb, 7);
        let e2 = d
            .submit(t, &Command::Write { lba, blocks: 1 }, Payload::Write(&data))
            .unwrap_err();
        assert_eq!(e2, e);
    }
    assert_eq!(report(&*d), before);
    assert_eq!(d.stats(t), stats_before);
    // Other rule violations through the device.
    assert_eq!(
        d.submit(
            t,
            &Command::Zone {
                action: ZoneAction::Open,
                zone_lba: z1 + 1
            },
            Payload::SizeOnly
        ),
        Err(DeviceError::NotZoneStart { lba: z1 + 1 })
    );
    assert!(matches!(
        d.submit(
            t,
            &Command::Write {
                lba: z1 + 8,
                blocks: (g.zone_cap - 7) as u32
            },
            Payload::SizeOnly
        ),
        Err(DeviceError::BoundaryCrossed { zone: 1, .. })
    ));
    assert_eq!(report(&*d), before);
}

#[test]
fn device_append_returns_increasing_lbas() {
    let mut d = zn540();
    let g = geo(&*d);
    let zone_lba = 5 * g.zone_size;
    let mut t = 0;
    let mut expect = zone_lba;
    for n in [1u32, 8, 3, 256, 2] {
        let c = d
            .submit(
                t,
                &Command::Append {
                    zone_lba,
                    blocks: n,
                },
                Payload::SizeOnly,
            )
            .unwrap();
        assert_eq!(c.lba, expect);
        assert!(c.done_ns >= t);
        t = c.done_ns;
        expect += n as u64;
        assert_eq!(d.report_zones(5, 1).unwrap()[0].write_pointer, expect);
    }
    assert_eq!(
        d.report_zones(5, 1).unwrap()[0].state,
        ZoneState::ImplicitlyOpen
    );
}

#[test]
fn device_payload_round_trip() {
    let mut d = zn540();
    let g = geo(&*d);
    let z2 = 2 * g.zone_size;
    let mut t = 0;
    let a = pattern(3, g.bb, 1);
    t = d
        .submit(
            t,
            &Command::Write { lba: z2, blocks: 3 },
            Payload::Write(&a),
        )
        .unwrap()
        .done_ns;
    let b = pattern(5, g.bb, 2);
    let c = d
        .submit(
            t,
            &Command::Append {
                zone_lba: z2,
                blocks: 5,
            },
            Payload::Write(&b),
        )
        .unwrap();
    assert_eq!(c.lba, z2 + 3);
    t = c.done_ns;
    let mut out = vec![0xAAu8; 8 * g.bb];
    t = d
        .submit(
            t,
            &Command::Read { lba: z2, blocks: 8 },
            Payload::Read(&mut out),
        )
        .unwrap()
        .done_ns;
    assert_eq!(&out[..3 * g.bb], &a[..]);
    assert_eq!(&out[3 * g.bb..], &b[..]);
    // A sub-range, and a read reaching above the write pointer (zeros there).
    let mut out = vec![0xAAu8; 4 * g.bb];
    d.submit(
        t,
        &Command::Read {
            lba: z2 + 6,
            blocks: 4,
        },
        Payload::Read(&mut out),
    )
    .unwrap();
    assert_eq!(&out[..2 * g.bb], &b[3 * g.bb..]);
    assert!(out[2 * g.bb..].iter().all(|&x| x == 0));
    // Size-only reads of the same range succeed too.
    d.submit(t, &Command::Read { lba: z2, blocks: 8 }, Payload::SizeOnly)
        .unwrap();
}

#[test]
fn device_wrong_payload_length() {
    let mut d = zn540();
    let g = geo(&*d);
    let before = report(&*d);
    let short = vec![0u8; g.bb - 1];
    assert_eq!(
        d.submit(
            0,
            &Command::Write { lba: 0, blocks: 1 },
            Payload::Write(&short)
        ),
        Err(DeviceError::PayloadSize {
            command: "write",
            expected_bytes: g.bb as u64,
            got_bytes: g.bb as u64 - 1
        })
    );
    let long = vec![0u8; 3 * g.bb];
    assert_eq!(
        d.submit(
            0,
            &Command::Append {
                zone_lba: 0,
                blocks: 2
            },
            Payload::Write(&long)
        ),
        Err(DeviceError::PayloadSize {
            command: "append",
            expected_bytes: 2 * g.bb as u64,
            got_bytes: 3 * g.bb as u64
        })
    );
    let mut buf = vec![0u8; g.bb];
    assert_eq!(
        d.submit(
            0,
            &Command::Read { lba: 0, blocks: 2 },
            Payload::Read(&mut buf)
        ),
        Err(DeviceError::PayloadSize {
            command: "read",
            expected_bytes: 2 * g.bb as u64,
            got_bytes: g.bb as u64
        })
    );
    // Right length, wrong direction.
    assert!(matches!(
        d.submit(
            0,
            &Command::Write { lba: 0, blocks: 1 },
            Payload::Read(&mut buf)
        ),
        Err(DeviceError::PayloadSize { .. })
    ));
    assert_eq!(
        report(&*d),
        before,
        "a rejected payload must not move the write pointer"
    );
    assert_eq!(d.stats(0).host_write_bytes, 0);
}

#[test]
fn device_trim_is_unsupported() {
    let mut d = zn540();
    assert_eq!(
        d.submit(0, &Command::Trim { lba: 0, blocks: 1 }, Payload::SizeOnly),
        Err(DeviceError::Unsupported {
            command: "trim",
            device: "zn540".into()
        })
    );
}

#[test]
fn device_reset_then_read_returns_zeros() {
    let mut d = zn540();
    let g = geo(&*d);
    let z3 = 3 * g.zone_size;
    let mut t = 0;
    let a = pattern(4, g.bb, 9);
    t = d
        .submit(
            t,
            &Command::Write { lba: z3, blocks: 4 },
            Payload::Write(&a),
        )
        .unwrap()
        .done_ns;
    let mut out = vec![0u8; 4 * g.bb];
    t = d
        .submit(
            t,
            &Command::Read { lba: z3, blocks: 4 },
            Payload::Read(&mut out),
        )
        .unwrap()
        .done_ns;
    assert_eq!(out, a);
    t = d
        .submit(
            t,
            &Command::Zone {
                action: ZoneAction::Reset,
                zone_lba: z3,
            },
            Payload::SizeOnly,
        )
        .unwrap()
        .done_ns;
    let z = d.report_zones(3, 1).unwrap()[0];
    assert_eq!((z.state, z.write_pointer), (ZoneState::Empty, z3));
    let mut out = vec![0xFFu8; 4 * g.bb];
    t = d
        .submit(
            t,
            &Command::Read { lba: z3, blocks: 4 },
            Payload::Read(&mut out),
        )
        .unwrap()
        .done_ns;
    assert!(out.iter().all(|&x| x == 0), "data survived a zone reset");
    // New data written after the reset reads back.
    let b = pattern(2, g.bb, 42);
    t = d
        .submit(
            t,
            &Command::Write { lba: z3, blocks: 2 },
            Payload::Write(&b),
        )
        .unwrap()
        .done_ns;
    let mut out = vec![0u8; 4 * g.bb];
    d.submit(
        t,
        &Command::Read { lba: z3, blocks: 4 },
        Payload::Read(&mut out),
    )
    .unwrap();
    assert_eq!(&out[..2 * g.bb], &b[..]);
    assert!(out[2 * g.bb..].iter().all(|&x| x == 0));
}

#[test]
fn device_open_limit_and_finish() {
    let mut d = zn540();
    let g = geo(&*d);
    let zone_lba = |z: u64| z * g.zone_size;
    let t = 0;
    for z in 0..14 {
        d.submit(
            t,
            &Command::Zone {
                action: ZoneAction::Open,
                zone_lba: zone_lba(z),
            },
            Payload::SizeOnly,
        )
        .unwrap();
    }
    let before = report(&*d);
    assert_eq!(
        d.submit(
            t,
            &Command::Zone {
                action: ZoneAction::Open,
                zone_lba: zone_lba(14)
            },
            Payload::SizeOnly
        ),
        Err(DeviceError::TooManyActiveZones {
            zone: 14,
            limit: 14
        })
    );
    assert_eq!(
        d.submit(
            t,
            &Command::Write {
                lba: zone_lba(14),
                blocks: 1
            },
            Payload::SizeOnly
        ),
        Err(DeviceError::TooManyActiveZones {
            zone: 14,
            limit: 14
        })
    );
    assert_eq!(report(&*d), before);
    // Finish one: it becomes full, and a new zone may open.
    d.submit(
        t,
        &Command::Write {
            lba: zone_lba(0),
            blocks: 3,
        },
        Payload::SizeOnly,
    )
    .unwrap();
    d.submit(
        t,
        &Command::Zone {
            action: ZoneAction::Finish,
            zone_lba: zone_lba(0),
        },
        Payload::SizeOnly,
    )
    .unwrap();
    let z0 = d.report_zones(0, 1).unwrap()[0];
    assert_eq!((z0.state, z0.write_pointer), (ZoneState::Full, g.zone_cap));
    assert_eq!(
        d.submit(
            t,
            &Command::Write {
                lba: g.zone_cap,
                blocks: 1
            },
            Payload::SizeOnly
        ),
        Err(DeviceError::ZoneFull { zone: 0 })
    );
    d.submit(
        t,
        &Command::Write {
            lba: zone_lba(14),
            blocks: 1,
        },
        Payload::SizeOnly,
    )
    .unwrap();
    let st = d.stats(1);
    assert_eq!(st.counters["open_zones"], 14);
    assert_eq!(st.counters["active_zones"], 14);
    assert_eq!(st.zone_finishes, 1);
}
