//! `meeple play --watch`: a script, manifest or tileset edited while a game runs is reloaded
//! between turns and the game so far replayed on it; one that no longer loads leaves the game
//! on its old rules; one that changes what only a new game takes (the bag, an action the game so
//! far took) starts a new game; one broken at the start is waited on.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The game's length: about ten turns pass while the test edits, at 150 ms a turn.
const TILES: u32 = 50;

const MANIFEST: &str = r#"[expansion]
id = "watched"
name = "Watched"
version = "0.1.0"
api = 1
depends = ["base"]

[editions.default]

[script]
entry = "init.luau"
"#;

/// A script that logs its version at every turn's end.
fn script(version: &str) -> String {
    format!("meeple.on(\"turn_end\", function(view, ev, out)\n    out:log(\"{version}\")\nend)\n")
}

/// A folder of the test's own holding the watched mod, version 1, and a game of it.
fn scratch(name: &str) -> TempDir {
    let tmp = support::scratch(&format!("watch-{name}"));
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("mods/watched")).unwrap();
    std::fs::write(dir.join("mods/watched/expansion.toml"), MANIFEST).unwrap();
    std::fs::write(dir.join("mods/watched/init.luau"), script("version 1")).unwrap();
    std::fs::write(dir.join("game.toml"), config(4, "[\"Ann\", \"Bob\"]")).unwrap();
    tmp
}

/// Replaces a file at once, as editors do, so that a reload never reads half of it.
fn edit(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Starts `meeple play --watch` on the game in `dir`.
fn play(dir: &Path) -> (Running, Output) {
    play_with(dir, &[])
}

/// [`play`], with more arguments.
fn play_with(dir: &Path, more: &[&str]) -> (Running, Output) {
    let child = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["play", "game.toml", "--mods", "mods", "--watch", "--delay", "150", "-o", "game.json"])
        .args(more)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut child = Running(child);
    let out = Output::of(&mut child.0);
    (child, out)
}

/// The running game, ended if the test fails first.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The game's lines, as they come.
struct Output {
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Output {
    fn of(child: &mut Child) -> Output {
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Output { lines, seen: Vec::new() }
    }

    /// The next line.
    fn next(&mut self) -> String {
        match self.lines.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => {
                self.seen.push(line.clone());
                line
            }
            Err(_) => panic!("no next line; the game said:\n{}", self.seen.join("\n")),
        }
    }

    /// Waits for a line that contains `text`, and returns it.
    fn wait_for(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    panic!("no line with `{text}`; the game said:\n{}", self.seen.join("\n"))
                }
            }
        }
    }
}

#[test]
fn edited_rules_are_reloaded_between_turns_and_broken_ones_are_refused() {
    let tmp = scratch("edits");
    let dir = tmp.path();
    let (mut child, mut out) = play(dir);
    let script_file = dir.join("mods/watched/init.luau");
    let first = out.wait_for("version 1");
    assert!(first.starts_with("turn   1 · "), "what turn_end did is told on its turn's line: {first}");

    edit(&script_file, &script("version 2"));
    let reloaded = out.wait_for("reloaded");
    assert!(reloaded.starts_with("reloaded mods/watched/init.luau and replayed "), "{reloaded}");
    out.wait_for("version 2");

    edit(&script_file, "local x = = 1\n");
    let refused = out.wait_for("not reloaded");
    assert!(refused.starts_with("not reloaded (mods/watched/init.luau): "), "{refused}");
    assert!(refused.contains("init.luau:1"), "the problem is located: {refused}");
    out.wait_for("version 2"); // the old rules play on
    edit(&script_file, &script("version 2"));
    out.wait_for("reloaded mods/watched/init.luau and replayed");

    // The manifest is watched too: an option it adds reaches the script.
    let with_option =
        format!("{MANIFEST}\n[options.word]\ntype = \"enum\"\nvalues = [\"three\"]\ndefault = \"three\"\n");
    edit(&dir.join("mods/watched/expansion.toml"), &with_option);
    out.wait_for("reloaded mods/watched/expansion.toml and replayed");
    edit(&script_file, &script("version 2").replace("\"version 2\"", "\"version \" .. meeple.options.word"));
    out.wait_for("version three");

    let status = child.0.wait().unwrap();
    out.wait_for("Winner");
    assert!(status.success());
    let replay: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("game.json")).unwrap()).unwrap();
    assert_eq!(replay["config"]["players"], serde_json::json!(["Ann", "Bob"]), "the game's own config");
}

fn read_replay(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The game's config with another seed or number of players.
fn config(seed: u64, players: &str) -> String {
    format!("players = {players}\nseed = {seed}\ntile_limit = {TILES}\n\n[[expansions]]\nid = \"watched\"\n")
}

/// The line that tells a new game started because of `why`.
fn new_game(files: &str, why: &str) -> String {
    format!("reloaded {files}; {why}, which only a new game takes: this game ends here and a new one starts")
}

#[test]
fn a_change_only_a_new_game_takes_starts_one_and_later_edits_reload_into_it() {
    let tmp = scratch("new-game");
    let dir = tmp.path();
    let (mut child, mut out) = play(dir);
    let script_file = dir.join("mods/watched/init.luau");
    out.wait_for("version 1");

    // Another seed would make the game so far another game: a new one starts, with that seed.
    edit(&dir.join("game.toml"), &config(5, "[\"Ann\", \"Bob\"]"));
    assert_eq!(out.wait_for("reloaded game.toml"), new_game("game.toml", "the seed in game.toml changed"));
    // The game it replaced is kept, beside where the new game's replay goes.
    assert_eq!(out.next(), "the replay of the game that ended: game.replaced-1.json");
    assert!(out.wait_for("meeple · ").ends_with(" · seed 5"), "the new game's header");
    let ended = read_replay(&dir.join("game.replaced-1.json"));
    assert_eq!(
        (&ended["config"]["seed"], &ended["config"]["players"]),
        (&4.into(), &serde_json::json!(["Ann", "Bob"]))
    );
    assert!(ended["actions"].as_array().is_some_and(|a| !a.is_empty()), "the game so far: {ended}");
    let replayed = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["replay", "--mods", "mods", "game.replaced-1.json"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&replayed.stdout);
    assert!(replayed.status.success(), "{said}{}", String::from_utf8_lossy(&replayed.stderr));
    let hash = ended["state_hash"].as_str().unwrap();
    assert!(said.contains(&format!("final state hash {hash} — verified")), "the same game: {said}");
    let first = out.wait_for("version 1");
    assert!(first.starts_with("turn   1 · "), "{first}");
    // The script is still reloaded, into the new game.
    edit(&script_file, &script("version 2"));
    out.wait_for("reloaded mods/watched/init.luau and replayed");
    out.wait_for("version 2");

    // So with the bag: tiles added to it, and then a count changed.
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/template/tiles.toml");
    std::fs::copy(template, dir.join("mods/watched/tiles.toml")).unwrap();
    let with_tiles = MANIFEST.replace("[editions.default]", "[editions.default]\ntileset = \"tiles.toml\"");
    edit(&dir.join("mods/watched/expansion.toml"), &with_tiles);
    let said = out.wait_for("reloaded mods/watched/expansion.toml");
    assert_eq!(said, new_game("mods/watched/expansion.toml", "the tiles in the bag changed (template:chapel: 0 → 2)"));
    // Each replaced game has a name of its own: none is written over.
    assert_eq!(out.next(), "the replay of the game that ended: game.replaced-2.json");
    out.wait_for("meeple · ");
    let tiles = std::fs::read_to_string(dir.join("mods/watched/tiles.toml")).unwrap();
    edit(&dir.join("mods/watched/tiles.toml"), &tiles.replace("count = 2", "count = 3"));
    let said = out.wait_for("reloaded mods/watched/tiles.toml");
    assert_eq!(said, new_game("mods/watched/tiles.toml", "the tiles in the bag changed (template:chapel: 2 → 3)"));
    assert_eq!(out.next(), "the replay of the game that ended: game.replaced-3.json");
    out.wait_for("meeple · ");
    edit(&script_file, &script("version 3"));
    out.wait_for("reloaded mods/watched/init.luau and replayed");
    out.wait_for("version 3");

    // A new game whose setup fails is not started: the game goes on until a fix comes.
    let failing =
        format!("meeple.on(\"setup\", function(view, out)\n    error(\"setup boom\")\nend)\n{}", script("version 4"));
    edit(&script_file, &failing);
    out.wait_for("not reloaded (mods/watched/init.luau): the game so far does not replay");
    edit(&dir.join("game.toml"), &config(5, "3"));
    let refused = out.wait_for("not reloaded (");
    assert!(
        refused.starts_with("not reloaded (mods/watched/init.luau, game.toml): the players in game.toml changed, which only a new game takes: ")
            && refused.ends_with("setup boom"),
        "{refused}"
    );
    assert_eq!(out.wait_for("the failing line"), "the failing line: mods/watched/init.luau:2");
    edit(&script_file, &script("version 4"));
    assert_eq!(
        out.wait_for("reloaded "),
        new_game("mods/watched/init.luau, game.toml", "the players in game.toml changed")
    );
    assert_eq!(out.next(), "the replay of the game that ended: game.replaced-4.json");
    let header = out.wait_for("meeple · ");
    assert!(header.contains("Player 3 (greedy)"), "{header}");
    out.wait_for("version 4");

    assert!(child.0.wait().unwrap().success());
    out.wait_for("Winner");
    let replay = read_replay(&dir.join("game.json"));
    assert_eq!(replay["config"]["players"].as_array().map(Vec::len), Some(3), "the last game's own config");
    assert_eq!(replay["config"]["seed"], 5);
    assert_eq!(read_replay(&dir.join("game.replaced-1.json")), ended, "the replaced games are left as they were");
    assert_eq!(read_replay(&dir.join("game.replaced-4.json"))["config"]["players"], serde_json::json!(["Ann", "Bob"]));
}

#[test]
fn a_seed_changed_in_the_config_under_a_seed_given_on_the_command_line_is_told_and_played_on() {
    let tmp = scratch("seed-held");
    let dir = tmp.path();
    // The game is ended when `_child` is dropped.
    let (_child, mut out) = play_with(dir, &["--seed", "9"]);
    assert!(out.wait_for("meeple · ").ends_with(" · seed 9"), "the command line's seed");
    out.wait_for("turn");
    edit(&dir.join("game.toml"), &config(5, "[\"Ann\", \"Bob\"]"));
    let reloaded = out.wait_for("reloaded game.toml");
    assert!(
        reloaded.starts_with("reloaded game.toml and replayed ")
            && reloaded.ends_with(" actions (the config's seed is now 5, but `--seed 9` chose this game's)"),
        "{reloaded}"
    );
}

#[test]
fn a_changed_start_tile_starts_a_new_game() {
    let tmp = scratch("start-tile");
    let dir = tmp.path();
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/template/tiles.toml");
    std::fs::copy(template, dir.join("mods/watched/tiles.toml")).unwrap();
    let with_tiles = MANIFEST.replace("[editions.default]", "[editions.default]\ntileset = \"tiles.toml\"");
    edit(&dir.join("mods/watched/expansion.toml"), &with_tiles);
    let (mut child, mut out) = play(dir);
    assert!(out.wait_for("setup: ").contains("start tile base:D at "), "the base's start tile");
    out.wait_for("version 1");

    // The expansion lays its own tile first: the game so far was played around another one.
    let with_start = format!("{with_tiles}\n[draw]\nstart = \"chapel\"\nreplaced_start = \"shuffle-in\"\n");
    edit(&dir.join("mods/watched/expansion.toml"), &with_start);
    let said = out.wait_for("reloaded ");
    assert_eq!(said, new_game("mods/watched/expansion.toml", "the start tile changed (base:D → template:chapel)"));
    assert_eq!(out.next(), "the replay of the game that ended: game.replaced-1.json");
    out.wait_for("meeple · ");
    assert!(out.wait_for("setup: ").contains("start tile template:chapel at "), "the new game starts on it");
    // Edits that keep it reload into the new game.
    edit(&dir.join("mods/watched/init.luau"), &script("version 2"));
    out.wait_for("reloaded mods/watched/init.luau and replayed");
    out.wait_for("version 2");

    assert!(child.0.wait().unwrap().success());
    let ended = read_replay(&dir.join("game.replaced-1.json"));
    let last = read_replay(&dir.join("game.json"));
    assert_eq!(ended["config"], last["config"], "the same config: only the files changed");
    assert_ne!(ended["actions"], last["actions"]);
}

#[test]
fn a_handler_that_fails_in_play_holds_the_game_until_it_is_fixed() {
    let tmp = scratch("fails");
    let dir = tmp.path();
    let script_file = dir.join("mods/watched/init.luau");
    let failing =
        "meeple.on(\"turn_end\", function(view, ev, out)\n    if ev.turn >= 4 then error(\"late boom\") end\nend)\n";
    edit(&script_file, failing);
    let (mut child, mut out) = play(dir);
    let error = out.wait_for("late boom");
    // The action that set it off is named with its turn and player (Bob passes, ending turn 4),
    // after what the turn did before it.
    assert_eq!(
        error,
        "turn   4 · Bob: place base:M-garden at (1, -1) turned 270° (FFCC); pass, not taken: watched: turn_end: \
         watched/init.luau:2: late boom"
    );
    assert_eq!(out.wait_for("the game waits"), "the game waits as it was; save a fix to go on (Ctrl-C to stop)");
    // Turn 4 never ended: the game so far is three turns and the fourth's actions before its end.
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.0.try_wait().unwrap().is_none(), "the game waits rather than ending");

    // A fix that fails earlier in the game so far is refused, and its line named on disk.
    edit(&script_file, &failing.replace("ev.turn >= 4", "ev.turn >= 2").replace("late", "early"));
    let refused = out.wait_for("not reloaded");
    assert!(refused.contains("does not replay on the new rules") && refused.ends_with("early boom"), "{refused}");
    assert_eq!(out.wait_for("the failing line"), "the failing line: mods/watched/init.luau:2");

    edit(&script_file, &script("fixed"));
    out.wait_for("reloaded mods/watched/init.luau and replayed");
    let fourth = out.wait_for("fixed");
    assert!(fourth.starts_with("turn   4 · "), "the game goes on from the turn that failed: {fourth}");
    let status = child.0.wait().unwrap();
    out.wait_for("Winner");
    assert!(status.success());
    // The bot whose action failed took it again, rather than drawing another choice: the game is
    // the one the fixed rules play unwatched.
    let unwatched = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["play", "game.toml", "--mods", "mods", "-q", "-o", "unwatched.json"])
        .output()
        .unwrap();
    assert!(unwatched.status.success(), "{}", String::from_utf8_lossy(&unwatched.stderr));
    let actions = |file: &str| read_replay(&dir.join(file))["actions"].as_array().unwrap().clone();
    let (watched, unwatched) = (actions("game.json"), actions("unwatched.json"));
    let same = watched.iter().zip(&unwatched).take_while(|(a, b)| a == b).count();
    assert!(same == watched.len() && same == unwatched.len(), "the games part after {same} actions");
}

#[test]
fn a_reload_names_every_change_it_applies_even_those_refused_before() {
    let tmp = scratch("pending");
    let dir = tmp.path();
    let (mut child, mut out) = play(dir);
    let script_file = dir.join("mods/watched/init.luau");
    out.wait_for("version 1");

    edit(&script_file, "local x = = 1\n");
    out.wait_for("not reloaded (mods/watched/init.luau): ");
    // The manifest's change is not applied either while the script does not load: it is named.
    let with_option =
        format!("{MANIFEST}\n[options.word]\ntype = \"enum\"\nvalues = [\"three\"]\ndefault = \"three\"\n");
    edit(&dir.join("mods/watched/expansion.toml"), &with_option);
    let refused = out.wait_for("not reloaded (");
    assert!(refused.starts_with("not reloaded (mods/watched/init.luau, mods/watched/expansion.toml): "), "{refused}");

    edit(&script_file, &script("version \" .. meeple.options.word .. \""));
    let reloaded = out.wait_for("reloaded mods/");
    assert!(
        reloaded.starts_with("reloaded mods/watched/init.luau, mods/watched/expansion.toml and replayed "),
        "both changes are applied, and said: {reloaded}"
    );
    out.wait_for("version three");
    // What was applied is not named again.
    edit(&script_file, &script("version 4"));
    let reloaded = out.wait_for("reloaded mods/");
    assert!(reloaded.starts_with("reloaded mods/watched/init.luau and replayed "), "{reloaded}");

    assert!(child.0.wait().unwrap().success());
}

#[test]
fn rules_broken_at_the_start_are_told_and_waited_on() {
    let tmp = scratch("start");
    let dir = tmp.path();
    let script_file = dir.join("mods/watched/init.luau");
    edit(&script_file, "local x = = 1\n");
    // Without --watch, the mistake ends the command, as bad input.
    let once = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["play", "game.toml", "--mods", "mods", "-q", "-o", "game.json"])
        .output()
        .unwrap();
    assert_eq!(once.status.code(), Some(2));

    let (mut child, mut out) = play(dir);
    let error = out.wait_for("init.luau");
    assert!(error.starts_with("mods/watched/init.luau:1: "), "the problem is located: {error}");
    assert_eq!(out.wait_for("the game waits"), "the game waits to start; save a fix to go on (Ctrl-C to stop)");
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.0.try_wait().unwrap().is_none(), "the game waits rather than ending");

    // A script that loads but whose setup fails does not start the game either.
    let failing = format!("meeple.on(\"setup\", function(view, out)\n    error(\"setup boom\")\nend)\n{}", script("v"));
    edit(&script_file, &failing);
    let refused = out.wait_for("not started");
    assert_eq!(refused, "not started (mods/watched/init.luau): watched: setup: watched/init.luau:2: setup boom");
    assert_eq!(out.wait_for("the failing line"), "the failing line: mods/watched/init.luau:2");

    edit(&script_file, &script("fixed"));
    assert!(out.wait_for("meeple · ").ends_with(" · seed 4"), "the game starts");
    let first = out.wait_for("fixed");
    assert!(first.starts_with("turn   1 · "), "{first}");
    // It is watched as any game is.
    edit(&script_file, &script("fixed again"));
    out.wait_for("reloaded mods/watched/init.luau and replayed");
    out.wait_for("fixed again");
    assert!(child.0.wait().unwrap().success());
}

/// A folder holding the panicking fixture, built as the workspace's tests build it and copied
/// into `mods/`, and a game of it with these options; with the fixture's folder and its
/// library's file name.
fn native_fixture_game(name: &str, options: &str) -> (TempDir, PathBuf, String) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    support::build_fixture("meeple-fixture-panicking");
    let lib = std::env::consts::DLL_PREFIX.to_string() + "meeple_fixture_panicking" + std::env::consts::DLL_SUFFIX;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo.join("target"), PathBuf::from);
    let built = target.join(if cfg!(debug_assertions) { "debug" } else { "release" }).join(&lib);
    let tmp = scratch(name);
    let plugin = tmp.path().join("mods/native-panicking");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::copy(repo.join("plugins/fixtures/panicking/expansion.toml"), plugin.join("expansion.toml")).unwrap();
    std::fs::copy(&built, plugin.join(&lib)).unwrap();
    let game = format!(
        "players = [\"Ann\", \"Bob\"]\nseed = 4\ntile_limit = {TILES}\n\n[[expansions]]\nid = \"native-panicking\"\n{options}"
    );
    std::fs::write(tmp.path().join("game.toml"), game).unwrap();
    (tmp, plugin, lib)
}

/// What `play --watch` says when the panicking fixture fails: a saved file cannot fix a plugin.
const REBUILD: &str = "`native-panicking` is a native plugin: a running meeple does not load a new build of its \
                       library, so rebuild it and start `meeple play` again (Ctrl-C to stop)";

#[test]
fn a_native_plugin_that_fails_holds_the_game_and_a_new_build_of_it_is_told_not_played() {
    let (tmp, plugin, lib) = native_fixture_game("native", "");
    let (mut child, mut out) = play(tmp.path());
    // Its first figure placed panics; a fix of it is a new build, which saving does not bring.
    assert_eq!(out.wait_for("the game waits"), format!("the game waits as it was; {REBUILD}"));
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options().write(true).open(plugin.join(&lib)).unwrap().set_modified(later).unwrap();
    assert_eq!(
        out.wait_for("changed"),
        format!(
            "mods/native-panicking/{lib} changed: a running meeple keeps the build of a native library it loaded, \
             and plays on with it; start `meeple play` again to play the new one"
        )
    );
    assert!(child.0.try_wait().unwrap().is_none(), "the game still waits");
    drop(child);
}

#[test]
fn a_native_plugin_whose_setup_fails_says_a_saved_fix_cannot_start_the_game() {
    let (tmp, _, _) = native_fixture_game("native-setup", "options = { mode = \"setup\" }\n");
    let (mut child, mut out) = play(tmp.path());
    assert_eq!(out.wait_for("is a native plugin"), REBUILD);
    assert!(child.0.try_wait().unwrap().is_none(), "it waits");
    drop(child);
}

#[test]
fn a_library_refused_at_the_start_says_a_saved_manifest_is_taken_and_a_rebuild_is_not() {
    // The manifest says another version than the library declares: refused once opened.
    let (tmp, plugin, lib) = native_fixture_game("native-version", "");
    let manifest = plugin.join("expansion.toml");
    let right = std::fs::read_to_string(&manifest).unwrap();
    let version = right.lines().find(|l| l.starts_with("version = ")).unwrap().to_string();
    edit(&manifest, &right.replace(&version, "version = \"9.9.9\""));
    let (mut child, mut out) = play(tmp.path());
    assert_eq!(
        out.wait_for("the game waits to start"),
        format!(
            "the game waits to start; a fix saved to a manifest or the config is taken, but this meeple keeps the \
             build of mods/native-panicking/{lib} it opened: after rebuilding it, start `meeple play` again \
             (Ctrl-C to stop)"
        )
    );
    // The manifest put right, the game starts.
    edit(&manifest, &right);
    out.wait_for("meeple · Carcassonne C3 + ");
    assert!(child.0.try_wait().unwrap().is_none(), "it plays");
    drop(child);
}

#[test]
fn a_game_with_an_action_the_new_rules_do_not_allow_ends_and_a_new_one_starts() {
    let tmp = scratch("disallowed");
    let dir = tmp.path();
    let script_file = dir.join("mods/watched/init.luau");
    let bell = "meeple.on(\"figure_actions\", function(view, out)\n    out:offer(1, { kind = \"none\" }, \"ring the bell\")\nend)\n\
                meeple.on(\"on_action\", function(view, offer, out)\n    out:log(\"rang\")\nend)\n";
    edit(&script_file, bell);
    let (_child, mut out) = play(dir);
    out.wait_for("rang");
    // The bell is gone: the game so far rang it, which no save of the new rules will take.
    edit(&script_file, &script("version 2"));
    let said = out.wait_for("reloaded mods/watched/init.luau");
    let why =
        said.strip_prefix("reloaded mods/watched/init.luau; the game so far has an action of turn ").unwrap_or("");
    assert!(
        why.contains(
            " (`Watched: ring the bell`) that the new rules refuse: illegal action: no expansion offers an action now"
        ),
        "{said}"
    );
    assert!(said.ends_with(", which only a new game takes: this game ends here and a new one starts"), "{said}");
    assert_eq!(out.next(), "the replay of the game that ended: game.replaced-1.json");
    out.wait_for("version 2");
}
