//! `meeple replay` on saved games that were edited: every failure names the file and says
//! what is wrong in words.

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap()
}

/// The exit code and what was said on stderr.
fn meeple(args: &[&str]) -> (Option<i32>, String) {
    let out = run(args);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A saved two-player base game.
fn saved(dir: &Path) -> Value {
    let file = dir.join("game.json");
    let (code, stderr) = meeple(&["play", "-q", "--seed", "4", "-o", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, replay: &Value) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, replay.to_string()).unwrap();
    file
}

#[test]
fn an_edited_replay_is_refused_with_its_file_and_reason() {
    let tmp = support::scratch("replays");
    let dir = tmp.path();
    let good = saved(dir);
    let total = good["actions"].as_array().unwrap().len();

    let mut hash = good.clone();
    hash["state_hash"] = json!("0000000000000000");
    let mut refused = good.clone();
    refused["actions"][0] = json!({"type": "place-tile", "pos": {"x": 40, "y": 40}, "rotation": 0});
    // Actions past the end, which name what is not there: told by their numbers, not blanks.
    let mut after = good.clone();
    let actions = after["actions"].as_array_mut().unwrap();
    actions.push(json!({"type": "place-tile", "pos": {"x": 99, "y": 99}, "rotation": 0}));
    let mut offer = after.clone();
    offer["actions"][total] = json!({"type": "expansion", "expansion": 3, "code": 1, "target": {"kind": "none"}});
    let mut choose = after.clone();
    choose["actions"][total] = json!({"type": "choose", "option": 2});
    let mut beyond = good.clone();
    beyond["checkpoints"].as_array_mut().unwrap().push(json!({"actions": 9999, "hash": "00"}));
    let cases = [
        ("hash.json", hash, format!("after {total} actions the state hash is ")),
        ("refused.json", refused, "actions[0] (turn 1: `place base:".to_string()),
        ("after.json", after, format!("actions[{total}] (turn …: `place a tile at (99, 99) turned 0°`) was refused: ")),
        ("offer.json", offer, format!("actions[{total}] (turn …: `expansion 3: action 1`) was refused: ")),
        ("choose.json", choose, format!("actions[{total}] (turn …: `no question: option 2`) was refused: ")),
        (
            "beyond.json",
            beyond,
            format!("the checkpoint after 9999 actions is never reached: the replay has {total} actions"),
        ),
    ];
    for (name, replay, says) in cases {
        let file = write(dir, name, &replay);
        let (code, stderr) = meeple(&["replay", file.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{name}: {stderr}");
        // `…` stands for what the test does not know (the last turn's number).
        let (start, rest) = says.split_once('…').unwrap_or((&says, ""));
        assert!(stderr.starts_with(&format!("{}: {start}", file.display())), "{name}: {stderr}");
        assert!(stderr.contains(rest), "{name}: {stderr}");
    }
    let file = write(dir, "good.json", &good);
    assert_eq!(meeple(&["replay", file.to_str().unwrap()]).0, Some(0));

    // `--seed` over a config's own seed: the replay carries the seed played, and reads back.
    let seeded = dir.join("seeded.json");
    let (code, stderr) = meeple(&["play", "configs/base-c1.toml", "-q", "--seed", "7", "-o", seeded.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = meeple(&["replay", seeded.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_replay_recorded_on_other_files_plays_back_on_these_when_its_states_agree() {
    let tmp = support::scratch("replays-other-rules");
    let dir = tmp.path();
    let good = saved(dir);
    // Recorded with files that differ from these (a tile renamed, say): refused, with the way on.
    let mut other = good.clone();
    other["ruleset"] = json!("0123456789abcdef");
    other.as_object_mut().unwrap().remove("expansion_hashes");
    let file = write(dir, "other.json", &other);
    let path = file.to_str().unwrap();
    let (code, stderr) = meeple(&["replay", path]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("the replay was recorded with ruleset 0123456789abcdef"), "{stderr}");
    assert!(stderr.contains(&format!("; with `--other-rules`, {path} plays back on these rules")), "{stderr}");
    // The game goes as recorded on these files: every state agrees, and it is verified so.
    let out = run(&["replay", path, "--other-rules"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("— verified on these rules, whose files differ from those it was recorded with"), "{said}");
    // So does `meeple play`, which goes on with a saved game (this one is over: it is told).
    let (code, stderr) = meeple(&["play", path, "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    let out = run(&["play", path, "-q", "--other-rules"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (code, stderr) = meeple(&["play", "configs/base.toml", "--other-rules"]);
    assert_eq!((code, stderr.trim()), (Some(2), "--other-rules: only for a saved game to go on with"));
    // A game that goes otherwise is still refused, at its first state that differs.
    let mut diverged = other.clone();
    diverged["checkpoints"][3]["hash"] = json!("0000000000000000");
    let file = write(dir, "diverged.json", &diverged);
    let (code, stderr) = meeple(&["replay", file.to_str().unwrap(), "--other-rules"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("the state hash is"), "{stderr}");
}

#[test]
fn a_replay_that_cannot_be_read_is_bad_input_as_a_config_is() {
    for command in ["replay", "render"] {
        let (code, stderr) = meeple(&[command, "/no/such/game.json"]);
        assert_eq!(code, Some(2), "{command}: {stderr}");
        assert!(stderr.starts_with("/no/such/game.json: cannot read: "), "{command}: {stderr}");
    }
    let (code, stderr) = meeple(&["play", "/no/such/config.toml"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.starts_with("/no/such/config.toml: cannot read: "), "a whole-file problem has no line: {stderr}");
}

#[test]
fn a_finished_game_plays_back_to_its_winner() {
    let dir = support::scratch("replays-winner");
    let file = dir.path().join("game.json");
    let (code, stderr) =
        meeple(&["play", "configs/traders-builders.toml", "-q", "--seed", "3", "-o", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let out = run(&["replay", file.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("— verified\nFinal scores\n"), "{stdout}");
    // The winner named is the player with the top total in the table above it (one-word names).
    let totals: Vec<(&str, i32)> = stdout
        .lines()
        .filter_map(|l| {
            let (left, total) = l.rsplit_once('|')?;
            Some((left.split_whitespace().next()?, total.trim().parse().ok()?))
        })
        .collect();
    assert_eq!(totals.len(), 3, "{stdout}");
    let best = totals.iter().map(|(_, t)| *t).max().unwrap();
    let won: Vec<&str> = totals.iter().filter(|(_, t)| *t == best).map(|(n, _)| *n).collect();
    let title = if won.len() > 1 { "Shared win" } else { "Winner" };
    assert!(stdout.contains(&format!("{title}: {}", won.join(", "))), "{stdout}");
}

#[test]
fn a_saved_game_is_told_again_turn_by_turn_as_it_was_played() {
    let tmp = support::scratch("replay-log");
    let file = tmp.path().join("game.json");
    let file = file.to_str().unwrap();
    let played = run(&["play", "configs/traders-builders.toml", "--seed", "3", "-o", file]);
    assert!(played.status.success(), "{}", String::from_utf8_lossy(&played.stderr));
    let told = run(&["replay", file, "--log"]);
    assert!(told.status.success(), "{}", String::from_utf8_lossy(&told.stderr));
    // The turns, and the setup before them, read the same.
    let turns = |out: &std::process::Output| -> Vec<String> {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines().filter(|l| l.starts_with("turn ") || l.starts_with("setup:")).map(str::to_string).collect()
    };
    let (played, told) = (turns(&played), turns(&told));
    assert!(played.len() > 20, "{played:?}");
    assert_eq!(told, played);
}
