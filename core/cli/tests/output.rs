//! What the program writes when its output cannot be: a closed pipe, a full disk.

mod support;

use std::process::{Command, Stdio};

fn meeple() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_meeple"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    c
}

#[test]
fn a_reader_that_goes_away_stops_the_printing_not_the_replay() {
    let dir = support::scratch("output-pipe");
    let replay = dir.path().join("game.json");
    let mut child = meeple()
        .args(["play", "--seed", "5", "-o"])
        .arg(&replay)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // as `meeple play | head -1` does, at once
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "nothing to say: {}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&replay).expect("the replay is written");
    assert!(text.contains("\"state_hash\""));
}

#[test]
fn a_stdout_that_cannot_be_written_is_an_error_once_the_work_is_done() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let dir = support::scratch("output-full");
    let replay = dir.path().join("game.json");
    let out = meeple().args(["play", "--seed", "5", "-o"]).arg(&replay).stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("<stdout>: No space left"), "{out:?}");
    assert!(replay.exists(), "the replay is written all the same");
}

#[test]
fn a_full_stderr_does_not_turn_an_error_into_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let out = meeple().args(["play", "/no/such/config.toml"]).stderr(full).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "the error's own exit code, not a panic's 101");
}

#[test]
fn a_log_written_to_a_pipe_is_plain_text() {
    let out = meeple().args(["-v", "simulate", "-n", "1"]).output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("INFO") && log.contains("ruleset built"), "{log}");
    assert!(!log.contains('\x1b'), "no colour codes outside a terminal: {log:?}");
}

#[test]
fn a_drawing_goes_to_the_standard_output_for_a_dash() {
    let out = meeple().args(["tiles", "scripts/template/tiles.toml", "-o", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"), "{svg:.200}");
    assert!(!std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../-")).exists(), "no file named -");
}
