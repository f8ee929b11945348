//! One store used from several threads at once: each thread writes and reads
//! back its own files; the store stays consistent.

mod common;
use common::*;
use std::sync::Arc;
use zonelab_zonefs::{KIND_SST, KIND_WAL};

#[test]
fn threads_write_and_read_their_own_files_concurrently() {
    let fs = Arc::new(open(None, "hhzs"));
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let fs = Arc::clone(&fs);
            std::thread::spawn(move || {
                let wal = format!("{:06}.log", t);
                let sst = format!("{:06}.sst", 100 + t);
                fs.create(&wal, KIND_WAL, -1).unwrap();
                fs.create(&sst, KIND_SST, t as i32).unwrap();
                let mut expect = Vec::new();
                for i in 0..50u64 {
                    let piece = pattern(t * 1000 + i, 1000 + (i as usize * 37) % 5000);
                    fs.append(&wal, &piece).unwrap();
                    fs.append(&sst, &piece).unwrap();
                    expect.extend_from_slice(&piece);
                    if i % 10 == 0 {
                        fs.sync(&wal).unwrap();
                    }
                }
                fs.close_file(&sst).unwrap();
                assert_eq!(read_all(&fs, &wal), expect);
                assert_eq!(read_all(&fs, &sst), expect);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(fs.list().len(), 8);
    fs.check().unwrap();
}
