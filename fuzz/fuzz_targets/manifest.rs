//! Any manifest text: validated or refused with located errors, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = std::path::Path::new("fuzz/expansion.toml");
    if let Err(report) = meeple_host::Manifest::parse(path, &text) {
        assert!(report.diagnostics.iter().all(|d| d.line >= 1));
    }
});
