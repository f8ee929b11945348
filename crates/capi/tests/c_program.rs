//! Compiles `tests/c/smoke.c` with the system C compiler (`$CC`, else `cc`)
//! against the libzonelab shared library cargo built for this test, runs it, and
//! checks it passed. The program opens zn540, writes at the write pointer, reads
//! the bytes back, checks the error codes and messages of a write off the write
//! pointer and of a bad profile name, and reopens a backing file.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding `libzonelab.so`: the test binary lives in
/// `<target>/<profile>/deps`, next to the library cargo built for this test run;
/// `<target>/<profile>` has a copy only after a `cargo build` (possibly an older
/// one), so `deps` comes first.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        if dir.join("libzonelab.so").exists() {
            return dir.to_path_buf();
        }
    }
    panic!(
        "libzonelab.so not found next to {}; build it with cargo build -p zonelab-capi",
        deps.display()
    );
}

#[test]
fn c_program_uses_the_device_api() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("smoke");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/smoke.c"))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lzonelab")
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(
        out.status.success(),
        "compiling smoke.c failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // cargo's LD_LIBRARY_PATH for tests may name a directory with an older copy
    // of the library, and it takes precedence over the rpath: point it here.
    let run = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &lib)
        .arg(tmp.path().join("zn540.img"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "smoke failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        run.status
    );
    assert!(stdout.ends_with("ok\n"), "{stdout}");
    assert!(
        stdout.contains("write off the write pointer: -5 \"zone"),
        "{stdout}"
    );
}
