//! The server: listens on a Unix socket or on 127.0.0.1, runs the handshake and
//! the transmission phase of each client on threads of its own (a reader and a
//! reply writer per connection), all against one emulated device, and ends on a
//! stop request (SIGINT/SIGTERM in the CLI) or, with `once`, when the last
//! client has disconnected. At the end it saves the device and returns its
//! report.

use crate::device::{DeviceConfig, DeviceHandle};
use crate::export::Export;
use crate::handshake::{negotiate, Negotiated};
use crate::replies::{run_writer, ToWriter};
use crate::transmission::Connection;
use std::io::{self, BufReader, BufWriter, ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use zonelab_emulation::EmulationReport;

/// Where to listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// A Unix socket at this path (a stale socket left by a killed server is
    /// replaced; one a live server listens on is an error).
    Unix(PathBuf),
    /// TCP on 127.0.0.1 (loopback only); port 0 picks a free port.
    Tcp(u16),
}

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub device: DeviceConfig,
    pub listen: Listen,
    /// Export name (default: the profile's name).
    pub export_name: Option<String>,
    /// Export a zoned model's conventional zones.
    pub conventional_zones: bool,
    pub read_only: bool,
    /// Export only the first bytes of the device.
    pub size_bytes: Option<u64>,
    /// Stop when the last client has disconnected.
    pub once: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("{0}")]
    Device(#[from] zonelab_emulation::EmulationError),
    #[error("{0}")]
    Export(String),
    #[error("{0}")]
    Listen(String),
}

/// What a finished server reports.
pub struct Served {
    pub report: Option<EmulationReport>,
    pub connections: usize,
    pub requests: u64,
    pub request_errors: u64,
}

/// A connected client socket of either kind.
enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }
    fn shutdown(&self) {
        let _ = match self {
            Stream::Unix(s) => s.shutdown(Shutdown::Both),
            Stream::Tcp(s) => s.shutdown(Shutdown::Both),
        };
    }
}

impl Read for Stream {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(b),
            Stream::Tcp(s) => s.read(b),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(b),
            Stream::Tcp(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.flush(),
            Stream::Tcp(s) => s.flush(),
        }
    }
}

enum Listener {
    Unix(UnixListener, PathBuf),
    Tcp(TcpListener),
}

impl Listener {
    fn bind(listen: &Listen) -> Result<Listener, ServeError> {
        match listen {
            Listen::Unix(path) => {
                remove_stale_socket(path)?;
                let l = UnixListener::bind(path).map_err(|e| {
                    ServeError::Listen(format!("cannot listen on {}: {e}", path.display()))
                })?;
                Ok(Listener::Unix(l, path.clone()))
            }
            Listen::Tcp(port) => {
                let l = TcpListener::bind((Ipv4Addr::LOCALHOST, *port)).map_err(|e| {
                    ServeError::Listen(format!("cannot listen on 127.0.0.1:{port}: {e}"))
                })?;
                Ok(Listener::Tcp(l))
            }
        }
    }

    fn set_nonblocking(&self) -> io::Result<()> {
        match self {
            Listener::Unix(l, _) => l.set_nonblocking(true),
            Listener::Tcp(l) => l.set_nonblocking(true),
        }
    }

    fn accept(&self) -> io::Result<Stream> {
        let s = match self {
            Listener::Unix(l, _) => Stream::Unix(l.accept()?.0),
            Listener::Tcp(l) => {
                let s = l.accept()?.0;
                // proto.md: both sides should disable Nagle.
                s.set_nodelay(true)?;
                Stream::Tcp(s)
            }
        };
        match &s {
            Stream::Unix(u) => u.set_nonblocking(false)?,
            Stream::Tcp(t) => t.set_nonblocking(false)?,
        }
        Ok(s)
    }

    /// The NBD URI clients use (nbdinfo, nbdcopy, fio's nbd engine, qemu-img).
    fn uri(&self, export: &str) -> String {
        match self {
            Listener::Unix(_, p) => format!("nbd+unix:///{export}?socket={}", p.display()),
            Listener::Tcp(l) => {
                let port = l.local_addr().map(|a: SocketAddr| a.port()).unwrap_or(0);
                format!("nbd://127.0.0.1:{port}/{export}")
            }
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Listener::Unix(_, path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A socket file nobody listens on (a killed server's) is removed; a live one
/// or another kind of file is an error.
fn remove_stale_socket(path: &Path) -> Result<(), ServeError> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !meta.file_type().is_socket() {
        return Err(ServeError::Listen(format!(
            "{} exists and is not a socket; choose another --socket path",
            path.display()
        )));
    }
    if UnixStream::connect(path).is_ok() {
        return Err(ServeError::Listen(format!(
            "{} is in use by a running server",
            path.display()
        )));
    }
    std::fs::remove_file(path).map_err(|e| {
        ServeError::Listen(format!(
            "cannot remove stale socket {}: {e}",
            path.display()
        ))
    })
}

/// Opens the device and the listener; `ready` is called with the URI and a
/// one-line description once clients can connect. Serves until `stop` is set
/// (or, with `once`, the last client leaves), then saves the device and returns
/// its report.
pub fn serve(
    cfg: &ServeConfig,
    stop: Arc<AtomicBool>,
    ready: impl FnOnce(&str, &Export),
) -> Result<Served, ServeError> {
    let device = DeviceHandle::open(&cfg.device)?;
    let export = Export::of(
        &device.info(),
        cfg.export_name.as_deref(),
        cfg.conventional_zones,
        cfg.read_only,
        cfg.size_bytes,
    )
    .map_err(ServeError::Export)?;
    let listener = Listener::bind(&cfg.listen)?;
    listener
        .set_nonblocking()
        .map_err(|e| ServeError::Listen(e.to_string()))?;
    ready(&listener.uri(&export.name), &export);

    let active = Arc::new(AtomicUsize::new(0));
    let open_streams: Arc<Mutex<Vec<(usize, Stream)>>> = Arc::default();
    let totals: Arc<Mutex<(u64, u64)>> = Arc::default();
    let mut served = 0usize;
    let device = Arc::new(device);
    let export = Arc::new(export);
    let mut handles = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok(stream) => {
                served += 1;
                let id = served;
                active.fetch_add(1, Ordering::SeqCst);
                if let Ok(c) = stream.try_clone() {
                    open_streams.lock().unwrap().push((id, c));
                }
                let (device, export, active, open_streams, totals) = (
                    device.clone(),
                    export.clone(),
                    active.clone(),
                    open_streams.clone(),
                    totals.clone(),
                );
                handles.push(std::thread::spawn(move || {
                    let (requests, errors) = client(stream, id, &export, &device);
                    let mut t = totals.lock().unwrap();
                    t.0 += requests;
                    t.1 += errors;
                    open_streams.lock().unwrap().retain(|(i, _)| *i != id);
                    active.fetch_sub(1, Ordering::SeqCst);
                }));
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if cfg.once && served > 0 && active.load(Ordering::SeqCst) == 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => eprintln!("zonelab serve: accept: {e}"),
        }
    }
    // Stop: hang up on clients still connected, let their threads end.
    for (_, s) in open_streams.lock().unwrap().iter() {
        s.shutdown();
    }
    for h in handles {
        let _ = h.join();
    }
    drop(listener);
    if let Err(e) = device.sync() {
        eprintln!("zonelab serve: saving the device: {e}");
    }
    let report = device.report();
    let (requests, request_errors) = *totals.lock().unwrap();
    Ok(Served {
        report,
        connections: served,
        requests,
        request_errors,
    })
}

/// One client: handshake, then transmission with a reply writer thread.
/// Returns (requests, error replies).
fn client(stream: Stream, id: usize, export: &Export, device: &DeviceHandle) -> (u64, u64) {
    let who = format!("client {id}");
    let mut hs = match stream.try_clone() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("zonelab serve: {who}: {e}");
            return (0, 0);
        }
    };
    match negotiate(&mut hs, export) {
        Ok(Negotiated::Transmission) => {}
        Ok(Negotiated::Aborted) => return (0, 0),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => return (0, 0),
        Err(e) => {
            eprintln!("zonelab serve: {who}: handshake: {e}");
            stream.shutdown();
            return (0, 0);
        }
    }
    let (tx, rx) = mpsc::channel::<ToWriter>();
    let writer_stream = match stream.try_clone() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("zonelab serve: {who}: {e}");
            return (0, 0);
        }
    };
    let writer = std::thread::spawn(move || run_writer(BufWriter::new(writer_stream), rx));
    let mut conn = Connection {
        export,
        device,
        replies: tx.clone(),
        who: who.clone(),
        stats: Default::default(),
    };
    let mut input = BufReader::new(stream);
    let result = conn.serve(&mut input);
    // Replies already queued still go out at their deadlines.
    let _ = tx.send(ToWriter::Finish);
    drop(tx);
    drop(conn.replies);
    let _ = writer.join();
    if let Err(e) = result {
        if e.kind() != ErrorKind::UnexpectedEof && e.kind() != ErrorKind::ConnectionReset {
            eprintln!("zonelab serve: {who}: {e}");
        }
    }
    input.get_ref().shutdown();
    (conn.stats.requests, conn.stats.errors)
}
