//! A game stopped by a failing hook: `meeple simulate` names the game and the command that plays
//! it again, and `meeple play` tells the turn it stopped in and saves the replay up to it.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs meeple from the repository's root: its exit code, stdout and stderr.
fn meeple(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// A folder of mods holding `grumpy`, whose script fails whenever a figure is placed, and a
/// config that plays it.
fn grumpy(dir: &Path) -> (PathBuf, PathBuf) {
    let mods = dir.join("mods");
    std::fs::create_dir_all(mods.join("grumpy")).unwrap();
    let manifest = "[expansion]\nid = \"grumpy\"\nname = \"Grumpy\"\nversion = \"0.1.0\"\napi = 1\n\
                    depends = [\"base\"]\n\n[script]\nentry = \"init.luau\"\n";
    std::fs::write(mods.join("grumpy/expansion.toml"), manifest).unwrap();
    let script = "meeple.on(\"figure_placed\", function(view, event, out)\n    error(\"no figures here\")\nend)\n";
    std::fs::write(mods.join("grumpy/init.luau"), script).unwrap();
    let config = dir.join("grumpy.toml");
    std::fs::write(&config, "players = 2\n[[expansions]]\nid = \"grumpy\"\n").unwrap();
    (mods, config)
}

#[test]
fn a_stopped_game_is_named_and_can_be_played_again_up_to_where_it_stopped() {
    let dir = support::scratch("stopped");
    let (mods, config) = grumpy(dir.path());
    let (mods, config) = (mods.to_str().unwrap(), config.to_str().unwrap());

    let (code, _, stderr) = meeple(&["simulate", config, "--mods", mods, "-n", "8", "-j", "1", "--seed", "40"]);
    assert_ne!(code, Some(0), "{stderr}");
    // Random bots place a figure sooner or later in the first game.
    assert!(
        stderr.contains("the game of seed 40 stopped: grumpy: figure_placed: grumpy/init.luau:2: no figures here"),
        "{stderr}"
    );
    // The failing line is told with the error, once, and never on the standard output, which
    // `--json` keeps for its object.
    let (code, stdout, json_err) =
        meeple(&["simulate", config, "--mods", mods, "-n", "8", "-j", "2", "--seed", "40", "--json"]);
    assert_ne!(code, Some(0), "{json_err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(json_err.matches("the failing line: ").count(), 1, "{json_err}");
    assert!(json_err.contains(&format!("the failing line: {mods}/grumpy/init.luau:2\n")), "{json_err}");
    let again = stderr.lines().find_map(|l| l.strip_prefix("to play it again, turn by turn: meeple ")).expect(&stderr);
    assert_eq!(again, format!("play {config} --mods {mods} --seed 40 --bots random"));

    let replay = dir.path().join("stopped.json");
    let mut args: Vec<&str> = again.split(' ').collect();
    args.extend(["-o", replay.to_str().unwrap()]);
    let (code, stdout, stderr) = meeple(&args);
    assert_ne!(code, Some(0), "{stdout}");
    assert!(
        stderr.contains("the game stopped: grumpy: figure_placed: grumpy/init.luau:2: no figures here"),
        "{stderr}"
    );
    let last = stdout.lines().find(|l| l.contains(", whose last action stopped the game: ")).expect(&stdout);
    assert!(last.contains("put a "), "the turn ends with the figure refused: {last}");
    assert!(stdout.contains(&format!("the replay up to it: {}", replay.display())), "{stdout}");
    // Quiet, the game tells that turn alone: where it stopped is still said.
    let (code, quiet, _) = meeple(&[args.as_slice(), &["-q"]].concat());
    assert_ne!(code, Some(0), "{quiet}");
    let turns: Vec<&str> = quiet.lines().filter(|l| l.starts_with("turn ")).collect();
    assert_eq!(turns, [last], "{quiet}");

    // The replay holds the game before the refused action, and plays back: an unfinished game.
    let (code, stdout, stderr) = meeple(&["replay", replay.to_str().unwrap(), "--mods", mods]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("actions (the game is not over)") && !stdout.contains("Winner"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_keeps_the_replay_of_the_game_so_far() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = support::scratch("interrupted");
    let replay = dir.path().join("so-far.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["play", "--seed", "5", "--delay", "100", "-o", replay.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Some turns in, as a person following the game would press it.
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("turn   3 "))).expect("the game reaches turn 3").unwrap();
    let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains(&format!("stopped (Ctrl-C); the replay so far: {}", replay.display())), "{stderr}");
    let (code, stdout, stderr) = meeple(&["replay", replay.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("verified") && stdout.contains("(the game is not over)"), "{stdout}");
}

#[test]
fn a_game_whose_setup_fails_names_the_failing_line() {
    let dir = support::scratch("setup-fails");
    let (mods, config) = grumpy(dir.path());
    let script = "meeple.on(\"setup\", function(view, out)\n    local t = nil\n    return t.y\nend)\n";
    std::fs::write(mods.join("grumpy/init.luau"), script).unwrap();
    let (mods, config) = (mods.to_str().unwrap(), config.to_str().unwrap());
    let (code, stdout, stderr) = meeple(&["play", config, "--mods", mods, "-q"]);
    assert_ne!(code, Some(0), "{stdout}");
    assert!(stderr.contains("cannot start the game: grumpy: setup: grumpy/init.luau:3: "), "{stderr}");
    assert!(stderr.contains(&format!("\nthe failing line: {mods}/grumpy/init.luau:3")), "{stderr}");
}
