//! `meeple play --human SEAT`: a person plays a seat from the terminal.

mod support;

use serde_json::json;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

/// Plays `args` in a fresh folder holding `files` (path, text) and `game.toml`, with `typed` as
/// standard input; the folder is removed when the returned `TempDir` is dropped.
fn play(name: &str, config: &str, args: &[&str], typed: &[u8]) -> (Output, String, TempDir) {
    play_with(name, &[], config, args, typed)
}

fn play_with(
    name: &str,
    files: &[(&str, &str)],
    config: &str,
    args: &[&str],
    typed: &[u8],
) -> (Output, String, TempDir) {
    let tmp = support::scratch(&format!("human-{name}"));
    let dir = tmp.path();
    for (path, text) in files {
        std::fs::create_dir_all(dir.join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.join(path), text).unwrap();
    }
    std::fs::write(dir.join("game.toml"), config).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["play", "game.toml", "-o", "game.json"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(typed).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, text, tmp)
}

const SHORT: &str = "players = [\"Ann\", \"Bob\"]\nseed = 3\ntile_limit = 6\n";

#[test]
fn a_person_plays_a_whole_game_by_numbers_and_its_replay_plays_back() {
    // Always the first choice: the first square in reading order, its first rotation, and then
    // the first figure action listed.
    let (out, text, dir) = play("whole", SHORT, &["--human", "1"], "1\n".repeat(40).as_bytes());
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

    let replayed =
        Command::new(env!("CARGO_BIN_EXE_meeple")).current_dir(dir.path()).args(["replay", "game.json"]).output();
    let replayed = replayed.unwrap();
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stdout));
}

#[test]
fn a_wrong_answer_is_asked_again_and_q_stops_with_the_replay_kept() {
    let (out, text, dir) = play("quit", SHORT, &["--human", "1"], b"north\n99\nb\nq\n");
    assert!(out.status.success(), "{text}");
    assert!(text.contains("`north`: type a number from 1 to"), "{text}");
    assert!(text.contains("`99`: type a number from 1 to"), "{text}");
    assert!(text.contains("stopped at turn 1; the replay so far: game.json"), "{text}");
    assert!(dir.path().join("game.json").exists());
}

/// `meeple play ARGS…` in `dir`, with nothing typed.
fn run_in(dir: &std::path::Path, args: &[&str]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple")).current_dir(dir).args(args).stdin(Stdio::null()).output();
    let out = out.unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out, text)
}

/// The number of actions a replay file holds.
fn actions_in(file: &std::path::Path) -> usize {
    let replay: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    replay["actions"].as_array().unwrap().len()
}

#[test]
fn a_stopped_game_goes_on_from_its_replay_and_is_saved_back_there() {
    let (out, text, dir) = play("resume", SHORT, &["--human", "1", "--bots", "greedy"], b"1\n1\nq\n");
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("meeple · Carcassonne C3 · Ann (you), Bob (greedy) · seed 3"), "{text}");
    let saved = dir.path().join("game.json");
    let before = actions_in(&saved);
    assert!(before >= 2, "{text}");

    // Without seats named, the game goes on with those it was played with: Ann is asked again
    // (and the input has ended), Bob is greedy still (the default for a second seat is random).
    let (out, text) = run_in(dir.path(), &["play", "game.json"]);
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("meeple · Carcassonne C3 · Ann (you), Bob (greedy) · seed 3"), "{text}");
    assert!(text.contains("the input ended at turn 3"), "{text}");
    assert_eq!(actions_in(&saved), before, "nobody acted");

    // Given where a config goes, the saved game is played on, by bots this time, to its end.
    let (out, text) = run_in(dir.path(), &["play", "game.json", "--bots", "random"]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("game.json: {before} actions in, going on at turn 3 (Ann's)")), "{text}");
    assert!(text.contains("Replay written to game.json"), "{text}");
    assert!(actions_in(&saved) > before, "the replay holds the whole game now");
    let (out, text) = run_in(dir.path(), &["replay", "game.json"]);
    assert!(out.status.success() && text.contains("verified"), "{text}");

    // A game that is over is told and left as it was, whoever is named to play it.
    let whole = std::fs::read(&saved).unwrap();
    let (out, text) = run_in(dir.path(), &["play", "game.json", "--human", "1"]);
    assert!(out.status.success() && text.contains("the game is over"), "{text}");
    assert_eq!(std::fs::read(&saved).unwrap(), whole, "the file is as it was");
    // Seats that say nothing a program knows do not stop the replay from playing back.
    let mut odd: serde_json::Value = serde_json::from_slice(&whole).unwrap();
    for seats in [json!(null), json!([1, 2]), json!("random")] {
        odd["seats"] = seats;
        std::fs::write(&saved, odd.to_string()).unwrap();
        let (out, text) = run_in(dir.path(), &["replay", "game.json"]);
        assert!(out.status.success() && text.contains("verified"), "{}: {text}", odd["seats"]);
    }

    // A saved game is dealt from its own seed.
    let (out, text) = run_in(dir.path(), &["play", "game.json", "--seed", "9"]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("--seed: game.json is a saved game, dealt from its own seed"), "{text}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_replay_that_could_not_be_written_is_told_before_the_game() {
    let dir = support::scratch("human-unwritable");
    std::fs::write(dir.path().join("game.toml"), SHORT).unwrap();
    let (out, text) = run_in(dir.path(), &["play", "game.toml", "-o", "/proc/meeple.json"]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("/proc/meeple.json: cannot write the replay there"), "{text}");
    assert!(!text.contains("turn   1"), "no turn is played: {text}");
}

#[test]
fn input_that_ends_ends_the_game_where_it_stands() {
    let (out, text, _) = play("eof", SHORT, &["--human", "2"], b"");
    assert!(out.status.success(), "{text}");
    // Bob's first turn is turn 2: Ann's bot played turn 1.
    assert!(text.contains("turn   1 · Ann: place"), "{text}");
    assert!(text.contains("the input ended at turn 2; the replay so far: game.json"), "{text}");
}

#[test]
fn a_seat_beyond_the_players_is_refused() {
    let (out, text, _) = play("seat", SHORT, &["--human", "3"], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--human 3: the game has 2 players"), "{text}{err}");
}

/// Asks Ann at the end of turn 1 whether to keep a tip: she answers in Bob's turn 2.
const TELLER: &str = "meeple.on(\"turn_end\", function(view, ev, out)\n\
                      \x20   if ev.turn == 1 then\n\
                      \x20       out:ask(1, \"tip\", { \"keep it\", \"drop it\" })\n\
                      \x20   end\nend)\n\
                      meeple.on(\"on_decision\", function(view, decision, option, out) end)\n";

#[test]
fn a_question_in_another_players_turn_says_whose_turn_it_is() {
    let manifest = "[expansion]\nid = \"teller\"\nname = \"Teller\"\nversion = \"0.1.0\"\napi = 1\n\
                    depends = [\"base\"]\n\n[script]\nentry = \"init.luau\"\n";
    let files = [("mods/teller/expansion.toml", manifest), ("mods/teller/init.luau", TELLER)];
    // Two monasteries (base:B, all field): one square for Ann's, its four turns one choice; then
    // her figure phase (monastery, field, pass); then the question, once after the board.
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"B\", \"B\"]\n\n[[expansions]]\nid = \"teller\"\n";
    let (out, text, _dir) = play_with("ask", &files, config, &["--mods", "mods", "--human", "1"], b"1\n3\nb\n2\n");
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("  a (0, -1):  [1] 0° FFFF\nAnn, your choice"), "one turn of a monastery: {text}");
    assert!(text.contains("scores: Ann 0, Bob 0 · yours to place: 7 meeples · 1 tile left"), "{text}");
    assert!(text.contains("  [1] put a meeple on the monastery inside the tile\n"), "{text}");
    assert!(text.contains("  [3] pass\n"), "{text}");
    let question = "in Bob's turn 2, a question for Ann:\nTeller asks: tip\n  [1] keep it\n  [2] drop it\n";
    assert_eq!(text.matches(question).count(), 2, "asked, and asked again under the board: {text}");
    // The board again: the monastery Ann laid, south of the start tile.
    assert!(text.contains("  -1     .M.\n"), "{text}");
    assert!(text.contains("turn   2 · Bob: Ann chose: drop it (tip); place base:B"), "{text}");
}

#[test]
fn answers_that_are_not_utf8_are_asked_again_not_taken_for_the_end() {
    // Latin-1 `é`, from a terminal set to that encoding.
    let (out, text, _dir) = play("latin1", SHORT, &["--human", "1"], b"\xe9\nq\n");
    assert!(out.status.success(), "{text}");
    assert!(text.contains("`\u{fffd}`: type a number from 1 to"), "{text}");
    assert!(text.contains("stopped at turn 1"), "{text}");
}

#[test]
fn turns_that_read_the_same_sides_are_told_apart_by_what_differs() {
    // Traders & Builders C1's X: two city corners, the north–west one with wine, all sides C.
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"traders-builders:X\", \"base:U\", \"base:U\"]\n\n\
                  [[expansions]]\nid = \"traders-builders\"\nedition = \"C1\"\n";
    let (out, text, _dir) = play("told-apart", config, &["--human", "1"], b"1\n1\n1\n1\n");
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let square = "  a (0, 1):  [1] 0° CCCC (city N+W wine, city E+S)  [2] 90° CCCC (city N+E wine, city S+W)  \
                  [3] 180° CCCC (city E+S wine, city N+W)  [4] 270° CCCC (city S+W wine, city N+E)\n";
    assert!(text.contains(square), "{text}");
    // Drawn as two cities, each through its own corner, an inner field between them.
    assert!(text.contains("  ##.\n  #.# ← your tile at (0, 1), sides CCCC\n  .##\n"), "{text}");
    // Ann's straight road in turn 3: its turns read FRFR and RFRF, nothing to tell apart.
    let road = text.split("your tile: base:U").nth(1).expect("Ann draws a straight road");
    let menu = road.split("Ann, your choice").next().unwrap();
    assert!(menu.contains("° FRFR") && !menu.contains("FRFR (") && !menu.contains("RFRF ("), "{menu}");
}

#[test]
fn the_status_line_counts_what_each_player_keeps() {
    // A mod that gives Bob two coins at the end of turn 1.
    let manifest = "[expansion]\nid = \"mint\"\nname = \"Mint\"\nversion = \"0.1.0\"\napi = 1\ndepends = [\"base\"]\n\n\
                    [[tokens]]\nid = \"coin\"\nsupply = 5\n\n[script]\nentry = \"init.luau\"\n";
    let script = "meeple.on(\"turn_end\", function(view, ev, out)\n\
                  \x20   if ev.turn == 1 then out:give_tokens(2, \"coin\", 2) end\nend)\n";
    let files = [("mods/mint/expansion.toml", manifest), ("mods/mint/init.luau", script)];
    let config =
        "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"B\", \"U\", \"U\"]\n\n[[expansions]]\nid = \"mint\"\n";
    let (out, text, _dir) = play_with("keeps", &files, config, &["--mods", "mods", "--human", "1"], b"1\n3\n1\n1\n");
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("yours to place: 7 meeples · yours to keep: nothing · 2 tiles left"), "{text}");
    assert!(text.contains("Bob gets 2 coins"), "{text}");
    assert!(text.contains(" · yours to keep: nothing · Bob keeps 2 coins · 0 tiles left"), "{text}");
}

#[test]
fn a_figure_is_drawn_where_it_stands_on_its_tile() {
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"E\", \"U\", \"U\"]\n";
    let (out, text, _dir) = play("stands", config, &["--human", "1"], b"1\n1\n1\n1\n");
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    // Bob's farmer on the straight road's north field (turned 180°: the field covers the north
    // side's middle): drawn there, above the road, not in the tile's middle.
    assert!(
        text.contains(
            "turn   2 · Bob: place base:U at (0, 2) turned 180° (FRFR); put a meeple on the field [WR NL N NR EL]"
        ),
        "{text}"
    );
    assert!(text.contains("         .2.\n   2  c  ---  d\n         ...\n"), "{text}");
    // Ann's city cap closes the start tile's: two tiles, two points each.
    assert!(text.contains("put a meeple on the city [SL S SR]; completed city (2 tiles): 4 to Ann"), "{text}");
    // At the end, Ann's road on one tile and Bob's field, which touches no completed city.
    let last = "final scoring:\n  unfinished road (1 tile): 1 to Ann\n  field (no completed city): no points\n";
    assert!(text.contains(last), "{text}");
}

#[test]
fn a_second_part_of_the_turn_is_said_with_its_tile() {
    // A mod that grants the first turn a second part, as a builder does.
    let manifest = "[expansion]\nid = \"twice\"\nname = \"Twice\"\nversion = \"0.1.0\"\napi = 1\n\
                    depends = [\"base\"]\n\n[script]\nentry = \"init.luau\"\n";
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n    \
                  if view:turn().number == 1 and view:turn().part == 1 then out:extra_turn_part() end\nend)\n\
                  meeple.on(\"figure_placed\", function(view, event, out)\n    \
                  if view:turn().part == 2 then error(\"not in part two\") end\nend)\n";
    let files = [("mods/twice/expansion.toml", manifest), ("mods/twice/init.luau", script)];
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"B\", \"B\"]\n\n[[expansions]]\nid = \"twice\"\n";
    // The first place, then pass (the third choice); in part 2, the first place and a meeple
    // on the monastery, which the mod refuses; then stop.
    let typed = b"1\n3\n1\n1\nq\n";
    let (out, text, _dir) = play_with("second-part", &files, config, &["--mods", "mods", "--human", "1"], typed);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(text.matches("your tile: base:B").count(), 1, "{text}");
    assert!(text.contains("your tile for part 2 of this turn: base:B"), "{text}");
    // Part 1 is told on its own line as part 2 begins, before Ann chooses for it.
    let first = text.find("turn   1 · Ann: place base:B at ").unwrap_or_else(|| panic!("{text}"));
    assert!(first < text.find("your tile for part 2").unwrap(), "{text}");
    // The refusal tells the part so far as the part's own line would.
    let refused = text.lines().find(|l| l.contains("not taken")).unwrap_or_else(|| panic!("{text}"));
    assert!(refused.starts_with("turn   1 · Ann, part 2: place base:B at "), "{refused}");
    assert!(refused.contains("; put a meeple on the monastery inside the tile, not taken: "), "{refused}");
}

#[test]
fn an_action_a_hook_fails_on_is_not_taken_and_the_person_chooses_again() {
    // A mod whose script fails whenever a figure is placed.
    let manifest = "[expansion]\nid = \"grumpy\"\nname = \"Grumpy\"\nversion = \"0.1.0\"\napi = 1\n\
                    depends = [\"base\"]\n\n[script]\nentry = \"init.luau\"\n";
    let script = "meeple.on(\"figure_placed\", function(view, event, out)\n    error(\"no figures here\")\nend)\n";
    let files = [("mods/grumpy/expansion.toml", manifest), ("mods/grumpy/init.luau", script)];
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"B\"]\n\n[[expansions]]\nid = \"grumpy\"\n";
    // The monastery, a meeple on it (refused), then the third choice: pass.
    let typed = b"1\n1\n3\n";
    let (out, text, _dir) = play_with("refused", &files, config, &["--mods", "mods", "--human", "1"], typed);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    // After the tile the turn placed, which the refusal leaves placed.
    let refused = "turn   1 · Ann: place base:B at (0, -1) turned 0° (FFFF); put a meeple on the monastery inside the \
                   tile, not taken: grumpy: figure_placed: grumpy/init.luau:2: no figures here\n";
    assert!(text.contains(refused), "{text}");
    assert!(text.contains("the failing line: mods/grumpy/init.luau:2"), "{text}");
    assert!(text.contains("the game is as it was: choose again (q stops it and keeps the replay)"), "{text}");
    // Asked again with the same choices, Ann passes: the turn is told without the meeple.
    let asked = text.matches("  [3] pass\n").count();
    assert_eq!(asked, 2, "{text}");
    assert!(text.contains("turn   1 · Ann: place base:B at (0, -1) turned 0° (FFFF)\n"), "{text}");
    assert!(text.contains("Replay written to game.json"), "{text}");
}

#[test]
fn a_failing_action_that_was_the_only_one_stops_the_game_as_a_bots_does() {
    // Ann's last meeple stands on her monastery: in turn 3 she can only pass, and the turn's end
    // fails. Choosing again could change nothing; the game stops with its replay kept.
    let manifest = "[expansion]\nid = \"grumpy\"\nname = \"Grumpy\"\nversion = \"0.1.0\"\napi = 1\n\
                    depends = [\"base\"]\n\n[script]\nentry = \"init.luau\"\n";
    let script = "meeple.on(\"turn_end\", function(view, event, out)\n    \
                  if event.turn == 3 then error(\"not in turn 3\") end\nend)\n";
    let files = [("mods/grumpy/expansion.toml", manifest), ("mods/grumpy/init.luau", script)];
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"B\", \"B\", \"B\"]\n\
                  [base]\noptions = { meeples = 1 }\n\n[[expansions]]\nid = \"grumpy\"\n";
    let typed = "1\n".repeat(20);
    let (out, text, dir) = play_with("only", &files, config, &["--mods", "mods", "--human", "1"], typed.as_bytes());
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("Ann: no figure of yours can go anywhere now: you pass"), "told, not asked: {text}");
    assert!(text.contains("turn   3 · Ann, whose last action stopped the game"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("grumpy/init.luau:2: not in turn 3"), "{err}");
    assert!(!text.contains("choose again"), "{text}");
    assert_eq!(actions_in(&dir.path().join("game.json")), 5, "the actions before the pass: {text}");
}

#[test]
fn a_turn_stopped_halfway_is_told_whole_when_it_ends_after_going_on() {
    // Ann places her tile and stops before her figure: going on, the turn's line tells the tile
    // she placed before the stop as well as what was done after it.
    let (out, text, dir) = play("halfway", SHORT, &["--human", "1"], b"1\nq\n");
    assert!(out.status.success(), "{text}");
    let so_far = text.lines().find_map(|l| l.strip_prefix("turn   1 · Ann, so far: ")).expect("the turn so far");
    let (out, text) = run_in(dir.path(), &["play", "game.json", "--bots", "random"]);
    assert!(out.status.success(), "{text}");
    let told = text.lines().find_map(|l| l.strip_prefix("turn   1 · Ann: ")).expect("turn 1 told");
    assert!(told.starts_with(&format!("{so_far}; ")), "{so_far} / {told}");
}

#[test]
fn figures_that_are_not_meeples_are_named_under_the_board() {
    // A lantern stands on roads; on the board it is its owner's number, as a meeple would be.
    let manifest = "[expansion]\nid = \"lantern\"\nname = \"Lantern\"\nversion = \"0.1.0\"\napi = 1\n\
                    depends = [\"base\"]\n\n[script]\nentry = \"init.luau\"\n\n\
                    [[figures]]\nid = \"lantern\"\nper_player = 1\nstands_on = [\"road\"]\n";
    let files = [("mods/lantern/expansion.toml", manifest), ("mods/lantern/init.luau", "")];
    let config =
        "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"U\", \"U\", \"U\"]\n\n[[expansions]]\nid = \"lantern\"\n";
    // The first square, then the second choice: the lantern on the road.
    let (out, text, _dir) = play_with("lantern", &files, config, &["--mods", "mods", "--human", "1"], b"1\n2\n1\n1\n");
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("turn   1 · Ann: place base:U at (-1, 0) turned 0° (FRFR); put a lantern on the road"),
        "{text}"
    );
    assert!(text.contains("\nnot meeples: Ann's lantern at (-1, 0)\n"), "shown at her next turn: {text}");
}

#[test]
fn a_feature_completed_for_no_points_and_goods_held_so_far_are_told() {
    // Ann closes the start tile's city and passes: a city of nobody's, told all the same.
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ndraw = [\"E\", \"U\", \"U\"]\n";
    let (out, text, _dir) = play("nobody", config, &["--human", "1"], b"1\n3\n1\n1\n");
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(
            "turn   1 · Ann: place base:E at (0, 1) turned 180° (FFCF); completed city (2 tiles): no points\n"
        ),
        "{text}"
    );
    // A game with goods stopped early: what each holds is so far, not at the end.
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\n[[expansions]]\nid = \"traders-builders\"\n";
    let (out, text, dir) = play("held", config, &["--human", "1"], b"1\nq\n");
    assert!(out.status.success(), "{text}");
    let (out, text) = run_in(dir.path(), &["replay", "game.json"]);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("\nHeld so far: Ann ") && !text.contains("Held at the end"), "{text}");
}
