//! `meeple play --human SEAT`: a person plays a seat from the terminal.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Plays `args` in a fresh folder with `typed` as standard input.
fn play(name: &str, config: &str, args: &[&str], typed: &str) -> (Output, String, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("meeple-human-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("game.toml"), config).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(&dir)
        .args(["play", "game.toml", "-o", "game.json"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(typed.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, text, dir)
}

const SHORT: &str = "players = [\"Ann\", \"Bob\"]\nseed = 3\ntile_limit = 6\n";

#[test]
fn a_person_plays_a_whole_game_by_numbers_and_its_replay_plays_back() {
    // Always the first choice: the first square in reading order, its first rotation, and then
    // the first figure action listed.
    let (out, text, dir) = play("whole", SHORT, &["--human", "1"], &"1\n".repeat(40));
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.starts_with("meeple · Carcassonne C3 · Ann (you), Bob (random) · seed 3"), "{text}");
    // The start tile (base:D: city north, road west to east) drawn in the middle of the board.
    assert!(text.contains("   0  a  ---"), "{text}");
    // The placement numbered 1 is the one Ann's turn then tells.
    let first = text.lines().find(|l| l.contains("[1] ") && l.contains("°")).unwrap();
    let square = first.trim_start()[2..].split(':').next().unwrap().to_string();
    let degrees = first.split("[1] ").nth(1).unwrap().split(' ').next().unwrap().to_string();
    let told = text.lines().find(|l| l.contains("turn   1 · Ann: ")).unwrap();
    assert!(told.contains(&format!("at {square} turned {degrees}")), "{first}\n{told}");
    assert!(text.contains("Replay written to game.json"), "{text}");

    let replayed = Command::new(env!("CARGO_BIN_EXE_meeple")).current_dir(&dir).args(["replay", "game.json"]).output();
    let replayed = replayed.unwrap();
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stdout));
}

#[test]
fn a_wrong_answer_is_asked_again_and_q_stops_with_the_replay_kept() {
    let (out, text, dir) = play("quit", SHORT, &["--human", "1"], "north\n99\nb\nq\n");
    assert!(out.status.success(), "{text}");
    assert!(text.contains("`north`: type a number from 1 to"), "{text}");
    assert!(text.contains("`99`: type a number from 1 to"), "{text}");
    assert!(text.contains("stopped at turn 1; the replay so far: game.json"), "{text}");
    assert!(dir.join("game.json").exists());
}

#[test]
fn input_that_ends_ends_the_game_where_it_stands() {
    let (out, text, _) = play("eof", SHORT, &["--human", "2"], "");
    assert!(out.status.success(), "{text}");
    // Bob's first turn is turn 2: Ann's bot played turn 1.
    assert!(text.contains("turn   1 · Ann: place"), "{text}");
    assert!(text.contains("the input ended at turn 2; the replay so far: game.json"), "{text}");
}

#[test]
fn a_seat_beyond_the_players_is_refused() {
    let (out, text, _) = play("seat", SHORT, &["--human", "3"], "");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--human 3: the game has 2 players"), "{text}{err}");
}
