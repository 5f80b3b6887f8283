//! Command-line values that cannot be right are refused before any work, with exit code 2.

mod support;

use std::process::Command;

/// Runs meeple from the repository's root; the exit code and stderr.
fn run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn counts_and_durations_must_make_sense() {
    for (args, says) in [
        (&["simulate", "--games", "0"][..], "'--games <GAMES>': expected a whole number, at least 1"),
        (&["simulate", "--jobs", "0"], "'--jobs <JOBS>': expected a whole number, at least 1"),
        (&["simulate", "-n", "99999999999999999999999"], "at least 1; 99999999999999999999999 is too large"),
        (&["play", "--delay", "600001"], "is not in 0..=600000"),
        (&["bench", "--seconds", "inf"], "more than 0 and at most 86400"),
        (&["bench", "--seconds", "0"], "more than 0 and at most 86400"),
        (&["bench", "--seconds", "nan"], "more than 0 and at most 86400"),
        // A replay carries its seed in its config, which holds a TOML integer.
        (&["play", "--seed", "9223372036854775808"], "is not in 0..=9223372036854775807"),
        (&["simulate", "--seed", "18446744073709551615"], "is not in 0..=9223372036854775807"),
        (
            &["simulate", "--seed", "9223372036854775807", "-n", "2"],
            "the last game's seed would pass 9223372036854775807",
        ),
        (
            &["play", "--bots", "greedy,random,random", "-o", "/dev/null"],
            "--bots names 3 bots, but the game has 2 players",
        ),
    ] {
        let (code, stderr) = run(args, &[]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn the_options_of_listen_are_refused_with_stdio() {
    for option in [
        &["--db", "games.sqlite"][..],
        &["--max-connections", "8"],
        &["--max-per-address", "8"],
        &["--request-timeout", "5"],
    ] {
        let args = [&["serve", "--stdio"][..], option].concat();
        let (code, stderr) = run(&args, &[]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("'--stdio' cannot be used with '{}", option[0])), "{args:?}: {stderr}");
    }
    let (code, stderr) = run(&["serve", "--stdio"], &[]);
    assert_eq!(code, Some(0), "the defaults are no options given: {stderr}");
}

#[test]
fn a_folder_of_mods_that_is_not_there_is_named() {
    let (code, stderr) = run(&["--mods", "no/such/mods", "simulate", "-n", "1"], &[]);
    assert_eq!((code, stderr.trim()), (Some(2), "--mods: no/such/mods: no such folder"));
    let (code, stderr) = run(&["simulate", "-n", "1"], &[("MEEPLE_MODS", "tests/mods:no/such/mods")]);
    assert_eq!((code, stderr.trim()), (Some(2), "MEEPLE_MODS: no/such/mods: no such folder"));
    let (code, stderr) = run(&["--mods", "tests/mods", "simulate", "-n", "1"], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // A folder holding no mod is played without, and said so.
    let (code, stderr) = run(&["--mods", "docs", "simulate", "-n", "1"], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "warning: --mods: docs: holds no expansion (no expansion.toml in it or in a folder directly inside it)"
    );
}

#[test]
fn a_saved_game_given_for_a_config_is_named_as_one() {
    let dir = support::scratch("saved");
    let saved = dir.path().join("saved.json");
    let saved = saved.to_str().unwrap();
    let (code, stderr) = run(&["play", "--seed", "7", "-q", "-o", saved], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // `play` goes on with it (here, a game already over); others name it.
    let (code, stderr) = run(&["play", saved, "-q"], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = run(&["simulate", saved, "-n", "1"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr.trim(),
        format!(
            "{saved}:1:1: this is JSON (it starts with `{{`), not TOML\n\
             {saved} is a saved game: `meeple play {saved}` goes on with it, `meeple replay {saved}` plays it back"
        )
    );
    // Another file is told in a screenful, not line by line.
    let (code, stderr) = run(&["simulate", "README.md", "-n", "1"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 21, "{stderr}");
    assert!(stderr.trim_end().ends_with("more lines (is this a TOML file?)"), "{stderr}");
}

#[test]
fn a_path_of_the_tour_tried_from_another_folder_points_at_meeples_own() {
    // A folder of its own: the temporary folder itself may hold the source tree.
    let elsewhere = support::scratch("elsewhere");
    let run_there = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_meeple")).current_dir(elsewhere.path()).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let root = meeple_host::paths::normalise(concat!(env!("CARGO_MANIFEST_DIR"), "/../..").as_ref());
    let root = root.display();
    let (code, stderr) = run_there(&["play", "configs/base.toml", "-q"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.ends_with(&format!("; meeple's own is {root}/configs/base.toml\n")), "{stderr}");
    // A scenario path that is not there is a mistyped argument, not a failed scenario.
    let (code, stderr) = run_there(&["test", "plugins/tollkeepers", "no/such/scenarios"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            format!("plugins/tollkeepers: no such file or folder; meeple's own is {root}/plugins/tollkeepers").as_str(),
            "no/such/scenarios: no such file or folder"
        ]
    );
}

#[test]
fn a_place_to_write_or_read_that_cannot_serve_is_refused_before_the_game() {
    // `core` is a folder, and `Cargo.toml` a file: neither can hold the replay.
    for (args, says) in [
        (&["play", "-q", "-o", "core"][..], "-o core: is a folder; give the file to write"),
        (&["play", "-q", "-o", "Cargo.toml/game.json"], "-o Cargo.toml/game.json: Cargo.toml is a file, not a folder"),
        // A folder of no scenarios is not a test run that passed.
        (&["test", "docs"], "docs: no scenario files (`*.toml`) under it"),
        (
            &["test", "plugins/fixtures/noop"],
            "plugins/fixtures/noop: no scenario files (`*.toml`) in its tests/ folder",
        ),
    ] {
        let (code, stderr) = run(args, &[]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
