//! `meeple play`'s story: one line per turn, with what the turn's hooks did on it.

mod support;

use std::process::Command;

const MANIFEST: &str = "[expansion]\nid = \"teller\"\nname = \"Teller\"\nversion = \"0.1.0\"\napi = 1\n\
                        depends = [\"base\"]\n\n[script]\nentry = \"init.luau\"\n";

/// Logs at every turn's end and at the final scoring; at the first turn's end, moves points and
/// asks its player a question, answered in the next player's turn.
const SCRIPT: &str = "meeple.on(\"turn_end\", function(view, ev, out)\n    out:log(\"end of turn \" .. ev.turn)\n\
                      \x20   if ev.turn == 1 then\n\
                      \x20       out:add_points(1, 2)\n\
                      \x20       out:add_points(2, -1)\n\
                      \x20       out:ask(1, \"tip\", { \"keep it\" })\n\
                      \x20   end\nend)\n\
                      meeple.on(\"on_decision\", function(view, decision, option, out) end)\n\
                      meeple.on(\"final_scoring\", function(view, out)\n    out:log(\"counted\")\nend)\n";

#[test]
fn the_last_turn_keeps_its_own_lines_apart_from_the_final_scoring() {
    let tmp = support::scratch("story");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("mods/teller")).unwrap();
    std::fs::write(dir.join("mods/teller/expansion.toml"), MANIFEST).unwrap();
    std::fs::write(dir.join("mods/teller/init.luau"), SCRIPT).unwrap();
    let config = "players = [\"Ann\", \"Bob\"]\nseed = 4\ntile_limit = 3\n\n[[expansions]]\nid = \"teller\"\n";
    std::fs::write(dir.join("game.toml"), config).unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["play", "game.toml", "--mods", "mods", "-o", "game.json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let line = |start: &str| text.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{start}: {text}"));
    for turn in 1..=3 {
        assert!(line(&format!("turn {turn:>3} · ")).contains(&format!("end of turn {turn}")), "{text}");
    }
    // Points an expansion moves read as a feature's scoring does, under the expansion's name;
    // an answer names who gave it when that is not the turn's player.
    let first = line("turn   1 · ");
    assert!(first.contains("Teller: 2 to Ann; Teller: 1 taken from Bob"), "{first}");
    assert!(text.contains("Ann chose: keep it (tip)"), "{text}");
    // The final scoring, a line for each thing scored.
    let last = &text[text.find("\nfinal scoring:\n").expect("the final scoring")..];
    let block = &last[..last.find("\n\n").unwrap_or(last.len())];
    assert!(block.contains("\n  counted") && !block.contains("end of turn"), "{text}");
}

#[test]
fn the_title_names_each_option_and_tile_number_played_otherwise_than_its_editions_default() {
    let tmp = support::scratch("title");
    let dir = tmp.path();
    let title = |config: &str| {
        let out = play_quietly(dir, config);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines().next().unwrap_or_default().to_string()
    };
    // C1 plays the later prints' scoring by default: nothing to add.
    let plain = title("players = 2\nseed = 1\n[base]\nedition = \"C1\"\n");
    assert!(plain.starts_with("meeple · Carcassonne C1 + C1 scoring rules · "), "{plain}");
    let early = title(
        "players = 2\nseed = 1\n[base]\nedition = \"C1\"\n[[expansions]]\nid = \"base-c1\"\n\
         options = { farm_rules = \"c1ed1\", tiny_city_scoring = \"4\" }\n",
    );
    assert!(early.starts_with("meeple · Carcassonne C1 + C1 scoring rules (farm_rules = c1ed1) · "), "{early}");
    // So are tile numbers of the config's own.
    let mixed = title("players = 2\nseed = 1\n[base]\ncopies = 2\ntiles = { V = 0 }\n");
    assert!(mixed.starts_with("meeple · Carcassonne C3 (copies = 2, tiles.V = 0) · "), "{mixed}");
}

#[test]
fn another_game_of_a_seed_is_kept_beside_the_earlier_one_and_the_same_game_replaces_itself() {
    let tmp = support::scratch("over");
    let dir = tmp.path();
    let last_line = |bots: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
            .current_dir(dir)
            .args(["play", "--seed", "5", "-q", "--bots", bots])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_string()
    };
    let read = |name: &str| std::fs::read_to_string(dir.join("replays").join(name)).unwrap();
    assert_eq!(last_line("greedy"), "Replay written to replays/game-5.json");
    let first = read("game-5.json");
    // The same command plays the same game: written over itself, nothing is lost.
    assert_eq!(last_line("greedy"), "Replay written to replays/game-5.json");
    assert_eq!(read("game-5.json"), first);
    // Other bots play another game of the seed: both are kept.
    let other = "Replay written to replays/game-5-2.json (replays/game-5.json holds another game of seed 5)";
    assert_eq!(last_line("random"), other);
    assert_eq!(read("game-5.json"), first);
    assert_ne!(read("game-5-2.json"), first);
    assert_eq!(last_line("random"), other, "and it is found again");
    assert_eq!(std::fs::read_dir(dir.join("replays")).unwrap().count(), 2);
    // What is not a replay is not written over either.
    std::fs::remove_file(dir.join("replays/game-5.json")).unwrap();
    std::fs::create_dir(dir.join("replays/game-5.json")).unwrap();
    assert_eq!(
        last_line("greedy"),
        "Replay written to replays/game-5-3.json (replays/game-5.json holds another game of seed 5)"
    );
}

/// What `meeple play` prints of a game of Traders & Builders and The Tollkeepers of `seed`.
fn expansions_game(seed: u64) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["play", "configs/traders-builders-tollkeepers.toml", "--seed", &seed.to_string(), "-o", "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    text
}

#[test]
fn a_figure_turned_to_another_face_is_told_with_its_owner() {
    let text = expansions_game(9);
    // A tollhouse collects by its face: placed on 1, turned over at the end of a turn in which
    // it scored a traveller group.
    let turned: Vec<&str> = text.lines().filter(|l| l.contains("'s tollhouse now shows face 2")).collect();
    assert!(!turned.is_empty(), "{text}");
    assert!(turned.iter().all(|l| l.contains("The Tollkeepers: ") && l.starts_with("turn ")), "{turned:#?}");
}

#[test]
fn a_game_whose_bag_is_empty_tells_its_setup_before_its_final_scoring() {
    let tmp = support::scratch("empty-bag");
    let dir = tmp.path();
    // Every base tile left out but the start tile.
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tilesets/base.toml")).unwrap();
    let ids = base.lines().filter_map(|l| l.strip_prefix("id = \"")?.strip_suffix('"')).filter(|id| *id != "base");
    let counts: Vec<String> = ids.map(|id| format!("\"{id}\" = {}", u8::from(id == "D"))).collect();
    let config = format!("players = 2\nseed = 1\n[base]\ntiles = {{ {} }}\n", counts.join(", "));
    std::fs::write(dir.join("game.toml"), config).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["play", "game.toml", "-o", "game.json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "setup: start tile base:D at (0, 0)", "{text}");
    assert!(lines[0].contains(", tiles.B-farmhouse = 0, 57 more tiles) · "), "a long list is cut: {text}");
    assert!(!text.contains("turn "), "{text}");
}

#[test]
fn the_goods_each_player_keeps_are_told_under_the_scores() {
    let text = expansions_game(3);
    let held = text.lines().find_map(|l| l.strip_prefix("Held at the end: ")).expect("a line of what is held");
    let of = |player: &str| held.split("; ").find_map(|h| h.strip_prefix(&format!("{player} "))).unwrap();
    // Traders & Builders says who has the most of each kind at the final scoring (`the most wine
    // (2): Ann`): those players keep that many.
    // (The final scoring tells a thing a line.)
    let most: Vec<&str> =
        text.split([';', '\n']).filter_map(|part| part.trim_start().strip_prefix("the most ")).collect();
    assert!(!most.is_empty(), "{text}");
    for m in most {
        let (good, rest) = m.split_once(" (").unwrap();
        let (n, players) = rest.split_once("): ").unwrap();
        // A tie reads `the most wine (1): tied: Ann, Cy`.
        let players = players.strip_prefix("tied: ").unwrap_or(players);
        for player in players.split(", ") {
            let player = player.split_whitespace().next().unwrap();
            assert!(of(player).split(", ").any(|h| h == format!("{n} {good}")), "{player} holds {n} {good}: {held}");
        }
    }
    // A player without any is said to have none.
    assert!(held.split("; ").any(|h| h.ends_with(" none")), "{held}");
}

#[test]
fn the_score_table_lines_up_names_by_the_columns_they_take() {
    let tmp = support::scratch("widths");
    let dir = tmp.path();
    // Each CJK character takes two columns on a terminal: 山田太郎 takes eight, as many as Bartholo.
    let out = play_quietly(dir, "players = [\"山田太郎\", \"Bartholo\", \"Cy\"]\nseed = 4\ntile_limit = 4\n");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Final scores")).skip(1).take(4).collect();
    let bar = |row: &str| unicode_width::UnicodeWidthStr::width(row.split(" | ").next().unwrap());
    assert!(table.iter().all(|row| row.contains(" | ") && bar(row) == bar(table[0])), "{text}");
    assert!(table[1].starts_with("山田太郎 "), "{text}");
}

/// Plays `config` as `game.toml` in `dir` with `-q`, its replay to `game.json`.
fn play_quietly(dir: &std::path::Path, config: &str) -> std::process::Output {
    std::fs::write(dir.join("game.toml"), config).unwrap();
    Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(dir)
        .args(["play", "game.toml", "-q", "-o", "game.json"])
        .output()
        .unwrap()
}
