//! A config's own tile numbers (`copies`, `tiles`; `docs/config.md`): several boxes of a set, a
//! tile left out or played more often, checked against the expansion's tilesets and told at the
//! config's lines; the numbers make another ruleset and travel with the replay.

use meeple_core::bots::{Bot, RandomBot};
use meeple_core::{Game, Rules};
use meeple_tests::load_toml;

/// The number of copies of a tile in the bag (the start tile not counted), 0 when absent.
fn in_bag(rules: &Rules, name: &str) -> u32 {
    rules.tile_by_name(name).map_or(0, |t| rules.counts()[t as usize])
}

fn bag(rules: &Rules) -> u32 {
    rules.counts().iter().sum()
}

#[test]
fn two_boxes_double_every_tile_but_the_start_tile() {
    let one = load_toml("one.toml", "players = 2\n").unwrap();
    let two = load_toml("two.toml", "players = 2\n[base]\ncopies = 2\n").unwrap();
    // C3: 72 tiles, one of them the start tile.
    assert_eq!(bag(&one.rules), 71);
    assert_eq!(bag(&two.rules), 143);
    assert_eq!((in_bag(&one.rules, "base:V"), in_bag(&two.rules, "base:V")), (3, 6));
    // D: two in the box, one of them laid at the start.
    assert_eq!((in_bag(&one.rules, "base:D"), in_bag(&two.rules, "base:D")), (1, 3));
    assert_ne!(one.rules.hash(), two.rules.hash(), "other numbers are another ruleset");
}

#[test]
fn a_tile_is_left_out_or_played_more_often_and_the_game_draws_what_the_bag_holds() {
    let text = "players = 2\nseed = 5\n[base]\ntiles = { V = 0, U = 10, D = 1 }\n\
                [[expansions]]\nid = \"traders-builders\"\ncopies = 2\ntiles = { A-cowshed = 0, A = 2 }\n";
    let loaded = load_toml("mix.toml", text).unwrap();
    let rules = &loaded.rules;
    assert!(rules.tile_by_name("base:V").is_err(), "a count of 0 leaves the kind out");
    assert_eq!(in_bag(rules, "base:U"), 10);
    assert_eq!(in_bag(rules, "base:D"), 0, "the one D is the start tile");
    assert_eq!(rules.tile_by_name(&rules.tiles()[rules.start().unwrap() as usize].key), rules.tile_by_name("base:D"));
    assert!(rules.tile_by_name("traders-builders:A-cowshed").is_err());
    // A tile of another edition of the tileset is let in: C1's A, where C3 has A-cowshed.
    assert_eq!(in_bag(rules, "traders-builders:A"), 2);
    // Traders & Builders: 24 tiles, A-cowshed left out, the rest twice, and two A.
    let tb: u32 = rules
        .tiles()
        .iter()
        .zip(rules.counts())
        .filter(|(t, _)| t.key.starts_with("traders-builders:"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(tb, 23 * 2 + 2);
    // Base C3 without the 3 V, with 10 U instead of 3, and no D beside the start tile.
    assert_eq!(bag(rules), 48 + 71 - 3 + 7 - 1);

    let game = play_out(&loaded, 5);
    let st = game.state();
    assert_eq!(st.board().tiles().len() as u32 + st.discarded().len() as u32, bag(rules) + 1, "every tile is drawn");
    let v = |t: &meeple_core::board::PlacedTile| rules.tiles()[t.tile as usize].key.as_ref() == "base:V";
    assert!(!st.board().tiles().iter().any(v));
}

/// A game of the ruleset played to its end by random bots.
fn play_out(loaded: &meeple_host::Loaded, seed: u64) -> Game {
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
    let mut bot = RandomBot::new(seed);
    while !game.is_over() {
        let action = bot.choose(&game);
        game.apply(action).unwrap();
    }
    game
}

#[test]
fn every_mistake_in_the_numbers_is_told_at_its_line() {
    let text = "players = 2\n[base]\ncopies = 0\ntiles = { Q = 2, Y = 1, D = 0, U = \"many\", V = 101, E = -1 }\n\
                [[expansions]]\nid = \"traders-builders\"\ntiles = { Z = 1 }\n";
    let (config, report) = meeple_host::GameConfig::parse_lenient("mix.toml", text);
    assert_eq!(
        report.to_string().lines().collect::<Vec<_>>(),
        [
            "mix.toml:3:10: `copies` must be an integer from 1 to 10, not 0",
            "mix.toml:4:36: a tile's count must be an integer from 0 to 100, found a string",
            "mix.toml:4:48: a tile's count must be an integer from 0 to 100 (0 leaves the tile out), not 101",
            "mix.toml:4:57: a tile's count must be an integer from 0 to 100 (0 leaves the tile out), not -1",
        ]
    );
    // The names are known once the tilesets are read: told at theirs.
    let err = meeple_tests::load_config(&config).unwrap_err().to_string();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].starts_with("mix.toml:4:18: `base`: no tile `Y` in its tilesets; its tiles: A, A-highwaymen, B,"),
        "{err}"
    );
    assert_eq!(
        lines[1],
        "mix.toml:4:29: `D` is the start tile of `base`: its count holds the start tile, so it is at least 1"
    );
    assert!(
        lines[2]
            .starts_with("mix.toml:7:11: `traders-builders`: no tile `Z` in its tilesets; its tiles: A, A-cowshed, B,"),
        "{err}"
    );
}

#[test]
fn an_unknown_expansion_hides_no_mistake_in_the_numbers_of_the_others() {
    // `D = 0` is left alone: were `rivr` The River, its spring would start the game instead.
    let text = "players = 2\n[base]\ntiles = { D = 0, XX = 1 }\n[[expansions]]\nid = \"rivr\"\n\
                [[expansions]]\nid = \"traders-builders\"\ncopies = 2\ntiles = { \"U-gardn\" = 1 }\n";
    let err = load_toml("two.toml", text).unwrap_err().to_string();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    let doubled = "two.toml:3:18: `base`: no tile `XX` in its tilesets; did you mean `X`? its tiles: A,";
    assert!(lines[0].starts_with(doubled), "{err}");
    assert!(lines[1].starts_with("two.toml:5:6: unknown expansion `rivr`; did you mean `river`?"), "{err}");
    assert!(
        lines[2].starts_with(
            "two.toml:9:11: `traders-builders`: no tile `U-gardn` in its tilesets; did you mean `U-garden`?"
        ),
        "{err}"
    );
}

#[test]
fn a_slip_in_a_tile_name_is_pointed_out() {
    let err = load_toml("slip.toml", "players = 2\n[base]\ntiles = { \"V-gardne\" = 2 }\n").unwrap_err().to_string();
    assert!(
        err.starts_with("slip.toml:3:11: `base`: no tile `V-gardne` in its tilesets; did you mean `V-garden`?"),
        "{err}"
    );
}

#[test]
fn the_numbers_travel_with_the_replay() {
    let text = "players = 2\nseed = 9\ntile_limit = 8\n[base]\ncopies = 3\ntiles = { \"base:U\" = 12 }\n";
    let loaded = load_toml("mix.toml", text).unwrap();
    let game = play_out(&loaded, 9);
    let mut replay = game.replay();
    replay.config = loaded.config.to_value();
    let (config, again) = meeple_protocol::replay_config::load(&replay, &meeple_tests::test_mods()).unwrap();
    assert_eq!((config.base.copies, config.base.tiles.get("base:U")), (Some(3), Some(&12)));
    assert_eq!(again.rules.hash(), loaded.rules.hash());
    assert_eq!(in_bag(&again.rules, "base:U"), 12);

    // The hash is of the numbers played, however the config writes them.
    let hash =
        |text: &str| load_toml("h.toml", &format!("players = 2\n[base]\n{text}\n")).unwrap().rules.hash().to_string();
    assert_eq!(hash("tiles = { V = 0 }"), hash("tiles = { \"base:V\" = 0 }"));
    assert_eq!(hash("tiles = { V = 3 }"), hash(""), "C3 has 3 V");
    assert_ne!(hash("tiles = { V = 4 }"), hash(""));
}

#[test]
fn a_tile_left_out_is_no_tile_to_draw() {
    let text = "players = 2\ndraw = [\"U\", \"base:V\"]\n[base]\ntiles = { V = 0 }\n";
    let err = load_toml("draw.toml", text).unwrap_err().to_string();
    assert_eq!(
        err,
        "draw.toml:2:14: draw order: no tile `base:V` in this ruleset (the config's `tiles` for `base` leave it out)"
    );
    // Only the tile the config leaves out is said to be: The River has no `V` to leave out.
    let other = "players = 2
draw = [\"river:V\"]\n[base]\ntiles = { V = 0 }\n[[expansions]]\nid = \"river\"\n";
    let err = load_toml("other.toml", other).unwrap_err().to_string();
    assert_eq!(err, "other.toml:2:9: draw order: no tile `river:V` in this ruleset");
}

#[test]
fn a_tile_of_another_edition_is_drawn_once_the_config_lets_it_in() {
    // Traders & Builders' first-edition `A` (traders_builders.md §7.2) and the base game's later
    // `A-highwaymen`: neither is in the editions played, and each is told what lets it in.
    let text = "players = 2\ndraw = [\"traders-builders:A\", \"A-highwaymen\"]\n[base]\nedition = \"C1\"\n\
                [[expansions]]\nid = \"traders-builders\"\nedition = \"C3\"\n";
    let err = load_toml("edition.toml", text).unwrap_err().to_string();
    assert_eq!(
        err,
        "edition.toml:2:9: draw order: no tile `traders-builders:A` in this ruleset: it is a tile of edition C1 of \
         tileset `traders-builders`, and this game plays its edition C3 (add `A = 1` to the `tiles` of \
         `traders-builders` to let it in)\n\
         edition.toml:2:31: draw order: no tile `A-highwaymen` in this ruleset: it is a tile of editions C2, C3 of \
         tileset `base`, and this game plays its edition C1 (add `A-highwaymen = 1` to the `tiles` of `base` to let \
         it in)"
    );
    let fixed = text.replace("C1\"\n", "C1\"\ntiles = { A-highwaymen = 1 }\n") + "tiles = { A = 1 }\n";
    let loaded = load_toml("edition.toml", &fixed).unwrap();
    assert_eq!((in_bag(&loaded.rules, "traders-builders:A"), in_bag(&loaded.rules, "base:A-highwaymen")), (1, 1));
}

#[test]
fn a_tile_is_given_one_number_by_the_expansion_that_has_it() {
    let twice = "players = 2\n[base]\ntiles = { V = 0, \"base:V\" = 5 }\n";
    let err = load_toml("twice.toml", twice).unwrap_err().to_string();
    assert_eq!(err, "twice.toml:3:18: `base:V` is the tile `V` names: give each tile one number");
    // Told at the second name as written, whichever form comes first.
    let twice = "players = 2\n[base]\ntiles = { \"base:V\" = 5, V = 0 }\n";
    let err = load_toml("twice.toml", twice).unwrap_err().to_string();
    assert_eq!(err, "twice.toml:3:25: `V` is the tile `base:V` names: give each tile one number");

    let elsewhere = "players = 2\n[[expansions]]\nid = \"traders-builders\"\ntiles = { \"base:E\" = 2 }\n";
    let err = load_toml("elsewhere.toml", elsewhere).unwrap_err().to_string();
    assert_eq!(
        err,
        "elsewhere.toml:4:11: `traders-builders`: `base:E` is a tile of tileset `base`; give its number in the \
         `tiles` of `base`, which plays it"
    );
    let bare = "players = 2\n[base]\ntiles = { spring = 0 }\n[[expansions]]\nid = \"river\"\n";
    let err = load_toml("bare.toml", bare).unwrap_err().to_string();
    assert_eq!(
        err,
        "bare.toml:3:11: `base`: no tile `spring` in its tilesets; give its number in the `tiles` of `river`, \
         which has it"
    );
    let absent = "players = 2\n[[expansions]]\nid = \"traders-builders\"\ntiles = { \"river:lake\" = 2 }\n";
    let err = load_toml("absent.toml", absent).unwrap_err().to_string();
    assert_eq!(
        err,
        "absent.toml:4:11: `traders-builders`: `river:lake` names tileset `river`, which no expansion of this \
         game plays; its tilesets are `traders-builders`"
    );

    let none = "players = 2\n[[expansions]]\nid = \"abbot\"\ncopies = 2\n";
    let err = load_toml("none.toml", none).unwrap_err().to_string();
    assert_eq!(err, "none.toml:4:10: `abbot` has no tiles of its own: `copies` and `tiles` have nothing to change");
}

#[test]
fn numbers_that_play_but_may_not_be_meant_are_warned_of() {
    // C3 has C-water-tower, not the plain C of C1 and C2.
    let loaded = load_toml("c.toml", "players = 2\n[base]\ntiles = { C = 0 }\n").unwrap();
    assert_eq!(loaded.warnings(), ["c.toml:3:15: `C = 0` changes nothing: edition C3 of tileset `base` has none"]);

    // The River has its spring only to lay at the start: a second box draws one mid-river.
    let river = "players = 2\n[[expansions]]\nid = \"river\"\ncopies = 2\n";
    let loaded = load_toml("river.toml", river).unwrap();
    assert_eq!(
        loaded.warnings(),
        ["river.toml:4:10: `copies = 2` makes 2 of `spring`, which `river` has only to lay at the start: the \
             others are drawn with its other tiles (to keep one, add `spring = 1` to its `tiles`)"]
    );
    assert_eq!(in_bag(&loaded.rules, "river:spring"), 1);
    let kept = load_toml("kept.toml", &format!("{river}tiles = {{ spring = 1 }}\n")).unwrap();
    assert_eq!((kept.warnings().len(), in_bag(&kept.rules, "river:spring")), (0, 0));

    // Its lake ends the river: without it, the warning about the tag says why (and names no
    // other tile left out).
    let lakeless = "players = 2\n[base]\ntiles = { V = 0 }\n[[expansions]]\nid = \"river\"\ntiles = { lake = 0 }\n";
    let lakeless = load_toml("lake.toml", lakeless).unwrap();
    let warnings = lakeless.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].ends_with("no tile of this game is tagged `lake`, so none of the tiles drawn first waits for the others (the config gives 0 to: `river` lake)"),
        "{warnings:?}"
    );
}

#[test]
fn the_base_start_tile_may_be_left_out_where_the_river_lays_its_spring() {
    let text = "players = 2\n[base]\ntiles = { D = 0 }\n[[expansions]]\nid = \"river\"\n";
    let loaded = load_toml("river.toml", text).unwrap();
    assert!(loaded.rules.tile_by_name("base:D").is_err());
    assert_eq!(loaded.rules.tiles()[loaded.rules.start().unwrap() as usize].key.as_ref(), "river:spring");
    let spring = "players = 2\n[[expansions]]\nid = \"river\"\ntiles = { spring = 0 }\n";
    let err = load_toml("spring.toml", spring).unwrap_err().to_string();
    assert_eq!(
        err,
        "spring.toml:4:20: `spring` is the start tile of `river`: its count holds the start tile, so it is at least 1"
    );
}

#[test]
fn the_start_tile_of_a_tileset_played_after_the_base_game_is_a_tile_like_any_other() {
    // A mod whose tileset names a start tile of its own: the game lays the base game's D, so the
    // mod's chapel is only drawn, and its numbers are the config's to change.
    let manifest = "depends = [\"base\"]\neditions = [\"one\"]\ndefault_edition = \"one\"\n\
                    [editions.one]\ntileset = \"tiles.toml\"\n";
    let root = meeple_tests::write_mods("tile-mix-start", &[("hamlets", manifest, "")]);
    let tileset = "[tileset]\nid = \"hamlets\"\nname = \"x\"\neditions = [\"one\"]\nstart = \"chapel\"\n\n\
                   [[tiles]]\nid = \"chapel\"\nname = \"x\"\ncount = 1\nsides = \"FFFF\"\nsegments = [\n  \
                   { id = \"m\", kind = \"monastery\" },\n  \
                   { id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] },\n]\n";
    std::fs::write(root.join("hamlets/tiles.toml"), tileset).unwrap();
    let load = |name: &str, text: &str| load_with(&root, name, text);
    let plain = load("plain.toml", "players = 2\n[[expansions]]\nid = \"hamlets\"\n").unwrap();
    assert_eq!(plain.rules.tiles()[plain.rules.start().unwrap() as usize].key.as_ref(), "base:D");
    assert_eq!(in_bag(&plain.rules, "hamlets:chapel"), 1, "the chapel is drawn");

    let none = load("none.toml", "players = 2\n[[expansions]]\nid = \"hamlets\"\ntiles = { chapel = 0 }\n").unwrap();
    assert!(none.rules.tile_by_name("hamlets:chapel").is_err());
    let two = load("two.toml", "players = 2\n[[expansions]]\nid = \"hamlets\"\ncopies = 2\n").unwrap();
    assert_eq!((two.warnings().len(), in_bag(&two.rules, "hamlets:chapel")), (0, 2), "{:?}", two.warnings());

    // Where The River lays its spring and the config leaves D out, no start tile is replaced:
    // the chapel is not taken for one and discarded.
    let river = "players = 2\n[base]\ntiles = { D = 0 }\n[[expansions]]\nid = \"river\"\n\
                 [[expansions]]\nid = \"hamlets\"\n";
    let river = load("river.toml", river).unwrap();
    assert_eq!(river.rules.tiles()[river.rules.start().unwrap() as usize].key.as_ref(), "river:spring");
    assert_eq!(in_bag(&river.rules, "hamlets:chapel"), 1);
    assert!(river.rules.tile_by_name("base:D").is_err());
}

#[test]
fn numbers_for_a_tileset_that_cannot_be_read_add_no_second_error() {
    let manifest = "depends = [\"base\"]\n[editions.default]\ntileset = \"missing.toml\"\n";
    let root = meeple_tests::write_mods("tile-mix-unread", &[("hamlets", manifest, "")]);
    let err = load_with(&root, "g.toml", "players = 2\n[[expansions]]\nid = \"hamlets\"\ncopies = 2\n");
    let err = err.unwrap_err().to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing.toml"), "{err}");
}

/// Builds a config's ruleset with the test expansions and the mods under `root`.
fn load_with(root: &std::path::Path, name: &str, text: &str) -> Result<meeple_host::Loaded, meeple_toml::Report> {
    let (cfg, report) = meeple_host::GameConfig::parse_lenient(name, text);
    assert!(report.is_empty(), "{report}");
    let mut mods = meeple_tests::test_mods();
    mods.push(root.to_path_buf());
    meeple_host::load::from_config_with(&cfg, &mods, &meeple_tests::TestCode)
}
