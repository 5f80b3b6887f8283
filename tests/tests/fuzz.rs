//! A short bounded run of the fuzz targets' inputs (`fuzz/`): random and mutated requests,
//! configs, manifests and tilesets. Every one is answered or refused with a located error; none
//! panics, and the protocol session and its game go on.

use meeple_protocol::Session;
use proptest::prelude::*;
use std::cell::RefCell;

/// Valid inputs the mutations start from.
const REQUESTS: [&str; 4] = [
    r#"{"id":1,"cmd":"act","game":"g1","index":0}"#,
    r#"{"cmd":"act","game":"g1","action":{"type":"place-tile","pos":{"x":0,"y":1},"rotation":2}}"#,
    r#"{"cmd":"create","config":"players = 3\nseed = 2\n","seed":5}"#,
    r#"{"cmd":"undo","game":"g1"}"#,
];

fn seed_file(path: &str) -> String {
    std::fs::read_to_string(meeple_tests::repo().join(path)).unwrap()
}

/// A valid text with a stretch replaced by other bytes.
fn mutated(base: String) -> impl Strategy<Value = String> {
    let len = base.len();
    (0..len.max(1), 0..24usize, proptest::collection::vec(any::<u8>(), 0..12)).prop_map(move |(at, cut, bytes)| {
        let mut b = base.clone().into_bytes();
        let end = (at + cut).min(b.len());
        let at = at.min(end);
        b.splice(at..end, bytes);
        String::from_utf8_lossy(&b).into_owned()
    })
}

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new({
        let mut s = Session::new(meeple_tests::test_mods());
        s.handle_line(r#"{"cmd":"create","seed":1}"#);
        s
    });
}

fn check_request(line: &str) {
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        let reply: serde_json::Value = serde_json::from_str(&s.handle_line(line)).expect("a JSON reply");
        assert!(reply["ok"].is_boolean(), "{line} → {reply}");
        if reply["ok"] == false {
            assert!(reply["error"]["code"].is_string() && reply["error"]["message"].is_string());
        }
        let state: serde_json::Value = serde_json::from_str(&s.handle_line(r#"{"cmd":"state","game":"g1"}"#)).unwrap();
        assert_eq!(state["ok"], true, "the game survives {line}");
    });
}

fn located(report: &meeple_toml::Report, file: &str) -> bool {
    !report.diagnostics.is_empty()
        && report.diagnostics.iter().all(|d| d.file.ends_with(file) && d.line >= 1 && d.col >= 1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn protocol_lines(line in prop_oneof![
        ".{0,80}",
        mutated(REQUESTS[0].to_string()),
        mutated(REQUESTS[1].to_string()),
        mutated(REQUESTS[2].to_string()),
        mutated(REQUESTS[3].to_string()),
    ]) {
        check_request(&line);
    }

    #[test]
    fn configs(text in prop_oneof![".{0,60}", mutated(seed_file("configs/traders-builders-tollkeepers.toml"))]) {
        if let Err(report) = meeple_host::GameConfig::parse("fuzz.toml", &text) {
            prop_assert!(located(&report, "fuzz.toml"), "{report}");
        }
    }

    #[test]
    fn manifests(text in mutated(seed_file("scripts/traders-builders/expansion.toml"))) {
        if let Err(report) = meeple_host::Manifest::parse(std::path::Path::new("fuzz/expansion.toml"), &text) {
            prop_assert!(located(&report, "expansion.toml"), "{report}");
        }
    }

    #[test]
    fn tilesets(text in mutated(seed_file("tilesets/tollkeepers.toml"))) {
        if let Err(report) = meeple_core::tileset::Tileset::parse("fuzz.toml", &text) {
            prop_assert!(located(&report, "fuzz.toml"), "{report}");
        }
    }
}
