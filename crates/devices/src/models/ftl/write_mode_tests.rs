//! Tests of write-buffer admission and the `[write_buffer]` modes of `ftl-ssd`
//! (`ftl/write_mode.rs`): sustained writes at the flash's rate, write-through
//! acknowledgement, flush with and without power-loss protection, profile errors.

use super::tests::{build_text, run, text, SMALL};
use super::FtlSsd;
use crate::command::{Command, Payload};
use crate::device::Device;
use crate::profile::ProfileError;
use zonelab_engine::{Ns, MIB};

fn device(section: &str) -> FtlSsd {
    build_text(format!("{}{section}", text(&SMALL))).expect("valid profile")
}

const WRITE_THROUGH: &str = "\n[write_buffer]\nmode = \"write-through\"\n";
const PLP: &str = "\n[write_buffer]\nmode = \"power-loss-protected\"\n";

/// `SMALL` programs 48 KiB units on 4 dies in 1 ms each.
const FLASH_BYTES_PER_S: f64 = 4.0 * 48.0 * 1024.0 / 1e-3;

#[test]
fn admission_holds_sustained_writes_to_the_flash_rate() {
    // 8 MiB of 64 KiB writes all submitted at once (a deep queue): the first
    // 1 MiB fills the buffer at link speed, the rest waits for programs.
    let mut dev = device("");
    let writes = 8 * MIB / (64 * 1024);
    let mut last: Ns = 0;
    let mut first: Ns = Ns::MAX;
    for i in 0..writes {
        let c = dev
            .submit(
                0,
                &Command::Write {
                    lba: i * 16,
                    blocks: 16,
                },
                Payload::SizeOnly,
            )
            .unwrap();
        first = first.min(c.done_ns);
        last = last.max(c.done_ns);
    }
    assert!(
        first < 100_000,
        "the first write is acknowledged from the buffer: {first} ns"
    );
    let flash_bound_ns = (7 * MIB) as f64 / FLASH_BYTES_PER_S * 1e9;
    let ratio = last as f64 / flash_bound_ns;
    assert!(
        (0.9..1.15).contains(&ratio),
        "last acknowledgement {last} ns vs flash-bound {flash_bound_ns:.0} ns"
    );
    let st = dev.stats(last);
    assert!(
        st.counters["write_buffer_stalls"] > 100,
        "{:?}",
        st.counters
    );
}

#[test]
fn write_through_acknowledges_only_programmed_data() {
    let mut wb = device("");
    let mut wt = device(WRITE_THROUGH);
    let (mut a, mut b) = (0, 0);
    let back = run(&mut wb, &mut a, Command::Write { lba: 0, blocks: 1 });
    let through = run(&mut wt, &mut b, Command::Write { lba: 0, blocks: 1 });
    assert!(back < 100_000, "write-back ack {back} ns");
    assert!(
        through >= 1_000_000,
        "write-through ack {through} ns waits for tPROG"
    );
    // The 4 KiB write was padded to a whole program unit (48 KiB).
    let st = wt.stats(b);
    assert_eq!(st.media_write_bytes, 48 * 1024);
    assert_eq!(st.counters["flush_padding_bytes"], 44 * 1024);
    // Nothing is left in the buffer: a flush costs one command.
    assert!(run(&mut wt, &mut b, Command::Flush) < 10_000);
    wt.check_invariants().unwrap();
}

#[test]
fn flush_waits_for_the_buffer_unless_it_is_power_loss_protected() {
    let flush_after_writes = |section: &str| {
        let mut dev = device(section);
        let mut now = 0;
        for i in 0..10 {
            run(
                &mut dev,
                &mut now,
                Command::Write {
                    lba: i * 16,
                    blocks: 16,
                },
            );
        }
        let flush = run(&mut dev, &mut now, Command::Flush);
        (flush, dev.stats(now).counters["flush_padding_bytes"])
    };
    let (volatile, padded) = flush_after_writes("");
    let (plp, plp_padded) = flush_after_writes(PLP);
    assert!(
        volatile >= 1_000_000,
        "volatile flush {volatile} ns waits for programs"
    );
    assert!(padded > 0);
    assert!(plp < 10_000, "protected flush {plp} ns is one command");
    assert_eq!(plp_padded, 0, "a protected flush programs nothing early");
}

#[test]
fn unknown_mode_is_an_error_naming_it() {
    let e = build_text(format!(
        "{}\n[write_buffer]\nmode = \"fua\"\n",
        text(&SMALL)
    ))
    .err()
    .expect("bad mode rejected");
    let msg = e.to_string();
    assert!(matches!(e, ProfileError::Parse { .. }), "{msg}");
    assert!(
        msg.contains("fua") && msg.contains("write-through"),
        "{msg}"
    );
}
