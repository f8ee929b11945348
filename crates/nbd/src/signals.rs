//! SIGINT and SIGTERM stop the server cleanly (it saves the device and prints
//! its report): they are blocked in every thread and one thread waits for them
//! with `sigwait`, then sets the stop flag the accept loop polls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it
/// starts afterwards) and starts a thread that sets `stop` when one arrives.
/// Call it before starting other threads.
pub fn stop_on_signals(stop: Arc<AtomicBool>) -> std::io::Result<()> {
    // SAFETY: plain libc calls on a sigset_t we own; no memory is shared.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        let rc = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if rc != 0 {
            return Err(std::io::Error::from_raw_os_error(rc));
        }
        set
    };
    std::thread::Builder::new()
        .name("zonelab-signals".into())
        .spawn(move || loop {
            let mut sig: libc::c_int = 0;
            // SAFETY: `set` is initialised above; `sig` is a valid out-pointer.
            if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                stop.store(true, Ordering::SeqCst);
            }
        })?;
    Ok(())
}
