//! Any tileset text: validated or refused with located errors, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(report) = meeple_core::tileset::Tileset::parse("fuzz.toml", &text) {
        assert!(report.diagnostics.iter().all(|d| d.file == "fuzz.toml" && d.line >= 1));
    }
});
