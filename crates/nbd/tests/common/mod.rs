//! A minimal NBD client for the tests (fixed newstyle, simple replies), written
//! from proto.md independently of the server's code paths, and a helper that
//! runs the server on a temporary Unix socket.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use zonelab_nbd::{serve, DeviceConfig, Listen, ServeConfig, Served};

pub const IHAVEOPT: u64 = 0x4948_4156_454F_5054;
pub const OPT_EXPORT_NAME: u32 = 1;
pub const OPT_ABORT: u32 = 2;
pub const OPT_LIST: u32 = 3;
pub const OPT_INFO: u32 = 6;
pub const OPT_GO: u32 = 7;
pub const OPT_STRUCTURED_REPLY: u32 = 8;
pub const REP_ACK: u32 = 1;
pub const REP_SERVER: u32 = 2;
pub const REP_INFO: u32 = 3;
pub const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
pub const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;
pub const CMD_READ: u16 = 0;
pub const CMD_WRITE: u16 = 1;
pub const CMD_DISC: u16 = 2;
pub const CMD_FLUSH: u16 = 3;
pub const CMD_TRIM: u16 = 4;
pub const CMD_WRITE_ZEROES: u16 = 6;
pub const FLAG_FUA: u16 = 1;

/// A server running on a temporary socket in a thread.
pub struct TestServer {
    pub socket: PathBuf,
    pub uri: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<Served, String>>>,
}

impl TestServer {
    pub fn start(
        dir: &Path,
        device: &str,
        tweak: impl FnOnce(&mut ServeConfig),
    ) -> Result<TestServer, String> {
        let socket = dir.join(format!("{}.sock", device.replace('/', "_")));
        let mut cfg = ServeConfig {
            device: DeviceConfig {
                device: device.to_string(),
                backing: None,
                time_dilation: 1.0,
            },
            listen: Listen::Unix(socket.clone()),
            export_name: None,
            conventional_zones: false,
            read_only: false,
            size_bytes: Some(64 << 20),
            once: false,
        };
        tweak(&mut cfg);
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            serve(&cfg, s, |uri, _| tx.send(uri.to_string()).unwrap()).map_err(|e| e.to_string())
        });
        match rx.recv() {
            Ok(uri) => Ok(TestServer {
                socket,
                uri,
                stop,
                thread: Some(thread),
            }),
            Err(_) => Err(match thread.join().unwrap() {
                Err(e) => e,
                Ok(_) => "server ended before it was ready".into(),
            }),
        }
    }

    /// Stops the server and returns what it served.
    pub fn stop(mut self) -> Served {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap().unwrap()
    }
}

/// The directory of a config's Unix socket (tests keep files next to it).
pub trait ListenDir {
    fn listen_dir(&self) -> PathBuf;
}

impl ListenDir for ServeConfig {
    fn listen_dir(&self) -> PathBuf {
        match &self.listen {
            Listen::Unix(p) => p.parent().unwrap().to_path_buf(),
            Listen::Tcp(_) => std::env::temp_dir(),
        }
    }
}

pub struct Client {
    pub s: UnixStream,
    pub size: u64,
    pub flags: u16,
    /// (min, preferred, max) if the server sent NBD_INFO_BLOCK_SIZE.
    pub block_size: Option<(u32, u32, u32)>,
    next_cookie: u64,
}

fn rd_u16(s: &mut impl Read) -> u16 {
    let mut b = [0; 2];
    s.read_exact(&mut b).unwrap();
    u16::from_be_bytes(b)
}
fn rd_u32(s: &mut impl Read) -> u32 {
    let mut b = [0; 4];
    s.read_exact(&mut b).unwrap();
    u32::from_be_bytes(b)
}
fn rd_u64(s: &mut impl Read) -> u64 {
    let mut b = [0; 8];
    s.read_exact(&mut b).unwrap();
    u64::from_be_bytes(b)
}

/// Connects and reads the server's greeting; sends client flags.
pub fn greet(socket: &Path, client_flags: u32) -> UnixStream {
    let mut s = UnixStream::connect(socket).unwrap();
    assert_eq!(rd_u64(&mut s), 0x4e42_444d_4147_4943, "NBDMAGIC");
    assert_eq!(rd_u64(&mut s), IHAVEOPT);
    let hs = rd_u16(&mut s);
    assert_eq!(hs & 1, 1, "fixed newstyle");
    s.write_all(&client_flags.to_be_bytes()).unwrap();
    s
}

pub fn send_option(s: &mut UnixStream, option: u32, data: &[u8]) {
    let mut m = IHAVEOPT.to_be_bytes().to_vec();
    m.extend_from_slice(&option.to_be_bytes());
    m.extend_from_slice(&(data.len() as u32).to_be_bytes());
    m.extend_from_slice(data);
    s.write_all(&m).unwrap();
}

/// One option reply: (option, type, data).
pub fn read_option_reply(s: &mut UnixStream) -> (u32, u32, Vec<u8>) {
    assert_eq!(rd_u64(s), 0x0003_e889_0455_65a9, "option reply magic");
    let option = rd_u32(s);
    let kind = rd_u32(s);
    let len = rd_u32(s);
    let mut data = vec![0; len as usize];
    s.read_exact(&mut data).unwrap();
    (option, kind, data)
}

pub fn go_data(name: &str, infos: &[u16]) -> Vec<u8> {
    let mut d = (name.len() as u32).to_be_bytes().to_vec();
    d.extend_from_slice(name.as_bytes());
    d.extend_from_slice(&(infos.len() as u16).to_be_bytes());
    for i in infos {
        d.extend_from_slice(&i.to_be_bytes());
    }
    d
}

impl Client {
    /// NBD_OPT_GO asking for the block size; Err((reply type, message)).
    pub fn go(socket: &Path, name: &str) -> Result<Client, (u32, String)> {
        let mut s = greet(socket, 3);
        send_option(&mut s, OPT_GO, &go_data(name, &[3]));
        let mut c = Client {
            s,
            size: 0,
            flags: 0,
            block_size: None,
            next_cookie: 1,
        };
        loop {
            let (opt, kind, data) = read_option_reply(&mut c.s);
            assert_eq!(opt, OPT_GO);
            match kind {
                REP_INFO => match u16::from_be_bytes([data[0], data[1]]) {
                    0 => {
                        c.size = u64::from_be_bytes(data[2..10].try_into().unwrap());
                        c.flags = u16::from_be_bytes([data[10], data[11]]);
                    }
                    3 => {
                        let v = |i: usize| u32::from_be_bytes(data[i..i + 4].try_into().unwrap());
                        c.block_size = Some((v(2), v(6), v(10)));
                    }
                    _ => {}
                },
                REP_ACK => return Ok(c),
                err => return Err((err, String::from_utf8_lossy(&data).into_owned())),
            }
        }
    }

    /// The old NBD_OPT_EXPORT_NAME ending (no zeroes negotiated if `no_zeroes`).
    pub fn export_name(socket: &Path, name: &str, no_zeroes: bool) -> std::io::Result<Client> {
        let mut s = greet(socket, if no_zeroes { 3 } else { 1 });
        send_option(&mut s, OPT_EXPORT_NAME, name.as_bytes());
        let mut b = [0u8; 10];
        s.read_exact(&mut b)?;
        if !no_zeroes {
            let mut z = [0u8; 124];
            s.read_exact(&mut z)?;
            assert_eq!(z, [0u8; 124]);
        }
        Ok(Client {
            s,
            size: u64::from_be_bytes(b[..8].try_into().unwrap()),
            flags: u16::from_be_bytes([b[8], b[9]]),
            block_size: None,
            next_cookie: 1,
        })
    }

    /// Sends a request without waiting; returns its cookie.
    pub fn send(&mut self, kind: u16, flags: u16, offset: u64, len: u32, data: &[u8]) -> u64 {
        let cookie = self.next_cookie;
        self.next_cookie += 1;
        let mut m = 0x2560_9513u32.to_be_bytes().to_vec();
        m.extend_from_slice(&flags.to_be_bytes());
        m.extend_from_slice(&kind.to_be_bytes());
        m.extend_from_slice(&cookie.to_be_bytes());
        m.extend_from_slice(&offset.to_be_bytes());
        m.extend_from_slice(&len.to_be_bytes());
        m.extend_from_slice(data);
        self.s.write_all(&m).unwrap();
        cookie
    }

    /// Reads one simple reply: (cookie, error); `data_len` bytes follow a
    /// successful read reply (the caller knows which cookie is a read).
    pub fn recv_header(&mut self) -> (u64, u32) {
        assert_eq!(rd_u32(&mut self.s), 0x6744_6698, "simple reply magic");
        let error = rd_u32(&mut self.s);
        (rd_u64(&mut self.s), error)
    }

    pub fn recv_data(&mut self, len: usize) -> Vec<u8> {
        let mut d = vec![0; len];
        self.s.read_exact(&mut d).unwrap();
        d
    }

    /// A request and its reply: (error, data for reads).
    pub fn call(
        &mut self,
        kind: u16,
        flags: u16,
        offset: u64,
        len: u32,
        data: &[u8],
    ) -> (u32, Vec<u8>) {
        let cookie = self.send(kind, flags, offset, len, data);
        let (got, error) = self.recv_header();
        assert_eq!(got, cookie);
        let data = if kind == CMD_READ && error == 0 {
            self.recv_data(len as usize)
        } else {
            Vec::new()
        };
        (error, data)
    }

    pub fn write(&mut self, offset: u64, data: &[u8]) -> u32 {
        self.call(CMD_WRITE, 0, offset, data.len() as u32, data).0
    }

    pub fn read(&mut self, offset: u64, len: u32) -> (u32, Vec<u8>) {
        self.call(CMD_READ, 0, offset, len, &[])
    }

    pub fn disconnect(mut self) {
        self.send(CMD_DISC, 0, 0, 0, &[]);
        // The server closes the connection: reads end.
        let mut rest = Vec::new();
        let _ = self.s.read_to_end(&mut rest);
        assert!(rest.is_empty(), "no reply to NBD_CMD_DISC");
    }
}

/// Deterministic test bytes.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1] ^ seed)
        .collect()
}
