//! `include/zonelab.h` is what cbindgen generates from the sources
//! (`cbindgen.toml`). Regenerate after an API change with
//! `ZONELAB_BLESS_HEADER=1 cargo test -p zonelab-capi --test header`.

use std::path::Path;

#[test]
fn header_matches_cbindgen_output() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let header = crate_dir.join("include/zonelab.h");
    if std::env::var_os("ZONELAB_BLESS_HEADER").is_some() {
        std::fs::write(&header, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&header).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/zonelab.h is out of date; regenerate it with \
         ZONELAB_BLESS_HEADER=1 cargo test -p zonelab-capi --test header"
    );
    // The API the C test uses is all there.
    for name in [
        "zl_open",
        "zl_close",
        "zl_report_zones",
        "zl_append",
        "zl_last_error_message",
        "ZL_ERR_NOT_AT_WRITE_POINTER",
        "typedef struct ZlDevice ZlDevice",
    ] {
        assert!(generated.contains(name), "{name} missing from the header");
    }
}
