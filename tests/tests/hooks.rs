//! The hook interface seen from the library: transactional apply when a hook fails, the tile
//! limit, setup errors, and actions described for clients.

use meeple_core::bots::Bot;
use meeple_core::{Action, ActionError, Event, Game, Stage};
use meeple_tests::load_toml;

#[test]
fn a_failing_hook_leaves_the_game_exactly_as_it_was() {
    let config = "players = 2\ndraw = [\"U\", \"U\", \"U\"]\n[[expansions]]\nid = \"hook-demo\"\noptions = { fail_at_turn = 2 }\n";
    let loaded = load_toml("fail.toml", config).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    let place = |x| Action::PlaceTile { pos: meeple_core::Pos::new(x, 0), rotation: meeple_core::Rotation::new(0) };
    game.apply(place(1)).unwrap();
    game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap();
    game.apply(place(-1)).unwrap();

    let before = game.state().hash();
    let legal = game.legal_actions();
    let history = game.history().len();
    let err = game.apply(Action::Pass).unwrap_err();
    let ActionError::Hook(e) = &err else { panic!("expected a hook error, got {err}") };
    assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("hook-demo", "turn_end"));
    assert_eq!(err.to_string(), "hook-demo: turn_end: failing on purpose at turn 2");
    assert_eq!(game.state().hash(), before, "the state is untouched");
    assert_eq!(game.legal_actions(), legal, "the same choices are open");
    assert_eq!(game.history().len(), history);
    assert_eq!(game.state().turn().stage, Stage::Figure);
    assert_eq!(game.state().supply(0, 0), 6, "Red's meeple is still on the road");
    // The game is still usable: a fork without the failing hook's trigger goes on.
    assert!(game.clone().apply(Action::PlaceFigure { figure: 0, segment: 1, with: None }).is_err());
}

/// A failure deep into a game goes back exactly: the game rebuilds its start and replays every
/// action since. A reseeded game goes back to where it was reseeded instead, since its start
/// would deal other tiles.
#[test]
fn a_failure_late_in_a_game_or_after_a_reseed_goes_back_exactly() {
    let config = "players = 2\n[[expansions]]\nid = \"hook-demo\"\noptions = { fail_at_turn = 50 }\n";
    let loaded = load_toml("late.toml", config).unwrap();
    for reseed in [None, Some(77)] {
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(3)).unwrap();
        let mut bot = meeple_core::bots::RandomBot::new(5);
        let mut reseeded = false;
        let (error, action) = loop {
            if let Some(seed) = reseed.filter(|_| !reseeded && game.state().turn().number == 20) {
                game.reseed(seed);
                reseeded = true;
            }
            let before = game.clone();
            let action = bot.choose(&game);
            match game.apply(action) {
                Ok(_) => continue,
                Err(e) => {
                    assert_eq!(game.state().hash(), before.state().hash(), "{reseed:?}: the state is as before");
                    assert_eq!(game.history(), before.history());
                    assert_eq!(game.legal_actions(), before.legal_actions());
                    break (e, action);
                }
            }
        };
        assert_eq!(error.to_string(), "hook-demo: turn_end: failing on purpose at turn 50", "{reseed:?}");
        assert!(game.history().len() > 96, "{reseed:?}: {} actions replayed", game.history().len());
        assert_eq!(reseeded, reseed.is_some());
        // The same action fails the same way again: the game went back to where it was.
        let before = game.state().hash();
        assert_eq!(game.apply(action).unwrap_err(), error, "{reseed:?}");
        assert_eq!(game.state().hash(), before);
    }
}

#[test]
fn the_tile_limit_ends_the_game() {
    let loaded = load_toml("limit.toml", "players = 2\ntile_limit = 5\n").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(9)).unwrap();
    meeple_tests::play_randomly(&mut game, 9);
    let st = game.state();
    assert_eq!(st.board().tiles().len() + st.discarded().len(), 1 + 5);
}

#[test]
fn an_unknown_tile_in_the_draw_order_is_a_config_error_and_a_setup_error() {
    // Loading a config names every unknown tile where it is written.
    let report = load_toml("draw.toml", "players = 2\ndraw = [\"Q\", \"ZZ\", \"E\", \"base:YY\"]\n").err().unwrap();
    assert_eq!(
        report.to_string().lines().collect::<Vec<_>>(),
        [
            "draw.toml:2:14: draw order: no tile `ZZ` in this ruleset",
            "draw.toml:2:25: draw order: no tile `base:YY` in this ruleset",
        ]
    );
    // A game set up in code is refused too.
    let loaded = load_toml("draw.toml", "players = 2\n").unwrap();
    let setup = meeple_core::Setup { draw: Some(vec!["Q".into(), "ZZ".into()]), ..loaded.setup(1) };
    let err = Game::new(loaded.rules.clone(), setup).err().unwrap();
    assert_eq!(err.to_string(), "draw order: no tile `ZZ` in this ruleset");
}

#[test]
fn figure_actions_are_described_with_board_ports() {
    let loaded = load_toml("d.toml", "players = 2\ndraw = [\"E\"]\n").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    let place = Action::PlaceTile { pos: meeple_core::Pos::new(0, 1), rotation: meeple_core::Rotation::new(2) };
    assert_eq!(game.describe(&place).to_string(), "place base:E at (0, 1) turned 180° (FFCF)");
    game.apply(place).unwrap();
    let on_city = Action::PlaceFigure { figure: 0, segment: 0, with: None };
    let info = serde_json::to_value(game.describe(&on_city)).unwrap();
    assert_eq!(info["feature"], "city");
    assert_eq!(info["ports"], serde_json::json!(["SL", "S", "SR"]));
    assert_eq!(info["pos"], serde_json::json!({"x": 0, "y": 1}));
    // In words, by the board's sides only: the tileset's id (`city`, or `sw` on a turned
    // tile) names the tile as printed.
    assert_eq!(game.describe(&on_city).to_string(), "put a meeple on the city [SL S SR]");
}

#[test]
fn an_offer_on_a_figure_names_the_figure_and_where_it_stands() {
    let config = "players = [\"Ann\", \"Bob\"]\ndraw = [\"B\", \"B\", \"B\"]\n[[expansions]]\nid = \"abbot\"\n";
    let loaded = load_toml("abbot.toml", config).unwrap();
    // For people: under the expansion's name, the figure by its owner's name and by its kind's
    // own name, which no other kind shares.
    assert_eq!(offers_on_an_abbot(&loaded), ["The Abbot: take back and score Ann's abbot on the monastery at (0, -1)"]);

    // Beside another kind of that name, by its id, which tells the two apart.
    let twin = "depends = [\"base\"]\n[[figures]]\nid = \"abbot\"\nper_player = 1\nstrength = 1\n\
                stands_on = [\"monastery\"]\nplacement = \"unoccupied\"\nstays = \"until-scored\"\n";
    let root = meeple_tests::write_mods("twin-abbots", &[("twin", twin, "")]);
    let config = format!("{config}[[expansions]]\nid = \"twin\"\n");
    let cfg = meeple_host::GameConfig::parse("twins.toml", &config).unwrap();
    let mods = [meeple_tests::test_mods(), vec![root]].concat();
    let loaded = meeple_host::load::from_config_with(&cfg, &mods, &meeple_tests::TestCode).unwrap();
    assert_eq!(
        offers_on_an_abbot(&loaded),
        ["The Abbot: take back and score Ann's abbot:abbot on the monastery at (0, -1)"]
    );
}

/// The expansions' offers, in words, once Ann's abbot stands on a monastery and Ann's turn
/// comes again (tiles `B` drawn).
fn offers_on_an_abbot(loaded: &meeple_host::Loaded) -> Vec<String> {
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    let place = |x, y| Action::PlaceTile { pos: meeple_core::Pos::new(x, y), rotation: meeple_core::Rotation::new(0) };
    let abbot = loaded.rules.figures().iter().position(|f| f.id == "abbot:abbot").unwrap() as u8;
    game.apply(place(0, -1)).unwrap();
    game.apply(Action::PlaceFigure { figure: abbot, segment: 0, with: None }).unwrap();
    game.apply(place(1, -1)).unwrap();
    game.apply(Action::Pass).unwrap();
    game.apply(place(-1, -1)).unwrap();
    let offers = game.legal_actions().into_iter().filter(|a| matches!(a, Action::Expansion { .. }));
    offers.map(|a| game.describe(&a).to_string()).collect()
}

/// Plugins keep what they derive from storage by its version; that is only right if equal
/// versions always mean equal storage, in a game, in its copies and in other games.
#[test]
fn equal_storage_versions_mean_equal_storage() {
    use std::collections::HashMap;
    let config = "players = 3\n[[expansions]]\nid = \"traders-builders\"\n[[expansions]]\nid = \"tollkeepers\"\n";
    let loaded = load_toml("versions.toml", config).unwrap();
    let expansions = loaded.rules.expansions().len() as u16;
    let mut seen: HashMap<(u16, u64), String> = HashMap::new();
    let mut changes = 0;
    for seed in 1..4 {
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
        let mut bot = meeple_core::bots::RandomBot::new(seed);
        while !game.is_over() {
            let before: Vec<u64> = (0..expansions).map(|e| game.state().storage_version(e)).collect();
            game.apply(bot.choose(&game)).unwrap();
            let copy = game.clone();
            for e in 0..expansions {
                let (version, store) = (game.state().storage_version(e), game.state().storage_of(e));
                assert_eq!(copy.state().storage_version(e), version, "a copy keeps the version");
                if version == 0 {
                    assert!(store.is_none_or(|s| s.is_empty()), "version 0 is the empty storage");
                }
                changes += (version != before[e as usize]) as u32;
                let text = format!("{store:?}");
                if let Some(earlier) = seen.insert((e, version), text.clone()) {
                    assert_eq!(earlier, text, "expansion {e} at version {version}");
                }
            }
        }
    }
    assert!(changes > 30, "the expansions wrote their storage ({changes} changes)");
}

#[test]
fn the_greedy_bot_does_not_play_around_a_failing_hook() {
    // Scoring a road fails. A bot that dropped the moves whose hooks fail would play on, roads
    // never completed, and meet the error only at the final scoring of its unfinished roads.
    let root = meeple_tests::write_mods(
        "greedy-hook-error",
        &[(
            "broken-roads",
            "depends = [\"base\"]",
            "meeple.on(\"modify_score\", function(view, scoring, out)\n  if scoring.kind == \"road\" then error(\"roads are broken\") end\nend)\n",
        )],
    );
    let config =
        meeple_host::GameConfig::parse("g.toml", "players = 2\n[[expansions]]\nid = \"broken-roads\"\n").unwrap();
    let loaded = meeple_host::load::from_config(&config, &[root]).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(3)).unwrap();
    let mut bot = meeple_core::bots::GreedyBot::new();
    let error = loop {
        assert!(!game.is_over(), "the game ended without the hook's error");
        let action = bot.choose(&game);
        if let Err(e) = game.apply(action) {
            break e;
        }
    };
    assert!(error.to_string().contains("roads are broken"), "{error}");
    assert!(game.state().tiles_left() > 0, "the error came only at the end of the game");
}

#[test]
fn the_final_scoring_asks_nothing_and_grants_no_extra_turn() {
    // The game ends with the final scoring: a decision or an extra turn given there could never
    // be played, so it is refused, not dropped.
    for (command, says) in [
        ("out:ask(1, \"late\", { \"a\", \"b\" })", "no decisions during the final scoring: the game ends with it"),
        ("out:extra_turn(1)", "no extra turns during the final scoring: the game ends with it"),
        ("out:extra_turn_part()", "no extra turn parts during the final scoring: the game ends with it"),
    ] {
        let script = format!("meeple.on(\"final_scoring\", function(view, out)\n  {command}\nend)\n");
        let root = meeple_tests::write_mods("late-asker", &[("late-asker", "depends = [\"base\"]", &script)]);
        let config = meeple_host::GameConfig::parse(
            "g.toml",
            "players = 2\ndraw = [\"U\"]\n[[expansions]]\nid = \"late-asker\"\n",
        )
        .unwrap();
        let loaded = meeple_host::load::from_config(&config, &[root]).unwrap();
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
        game.apply(Action::PlaceTile { pos: meeple_core::Pos::new(1, 0), rotation: meeple_core::Rotation::new(0) })
            .unwrap();
        let before = game.state().hash();
        let err = game.apply(Action::Pass).unwrap_err().to_string();
        assert!(err.ends_with(says), "{command}: {err}");
        assert!(err.starts_with("late-asker: final_scoring"), "{command}: {err}");
        assert_eq!(game.state().hash(), before, "{command}: the game is as it was");
        assert!(!game.is_over(), "{command}");
    }
}

#[test]
fn no_points_added_is_no_event() {
    // A pig beside no completed city scores 0: a change of nothing, not worth a line in a log.
    let mut game = commanded("zero-points").unwrap();
    let place = Action::PlaceTile { pos: meeple_core::Pos::new(1, 0), rotation: meeple_core::Rotation::new(0) };
    let added: Vec<(u8, i32)> = game
        .apply(place)
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            Event::PointsAdded { player, points, .. } => Some((*player, *points)),
            _ => None,
        })
        .collect();
    assert_eq!(added, [(1, 2)]);
    assert_eq!(game.state().score(0), 0);
    assert_eq!(game.state().score(1), 2);
}

#[test]
fn a_question_says_what_it_is_about() {
    // The builder's question names the road or city where the builder stands, in the state and
    // in the event that asks it and in the words of each answer; random games until one asks it.
    let config = "players = 2\n[[expansions]]\nid = \"traders-builders\"\nedition = \"C2\"\n";
    let loaded = load_toml("builder.toml", config).unwrap();
    for seed in 1..40 {
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
        let mut bot = meeple_core::bots::RandomBot::new(seed);
        let mut events = Vec::new();
        while !game.is_over() {
            if let Some(d) = game.state().pending().first() {
                assert_eq!(d.kind, "builder-double-turn");
                let asked = events.iter().find_map(|e| match e {
                    Event::DecisionRequested { kind, about, .. } if **kind == *d.kind => Some(*about),
                    _ => None,
                });
                assert_eq!(asked, Some(d.about), "the event that asked: {events:?}");
                let Some(meeple_core::Target::Segment { pos, .. }) = d.about else { panic!("about a segment: {d:?}") };
                let about = game.decision_about(d);
                assert!(about == format!("the road at {pos}") || about == format!("the city at {pos}"), "{about}");
                let answer = game.describe(&Action::Choose { option: 0 }).to_string();
                assert_eq!(answer, format!("builder-double-turn ({about}): draw a second tile after this one"));
                return;
            }
            let action = bot.choose(&game);
            events = game.apply(action).unwrap().to_vec();
        }
    }
    panic!("no game asked the builder's question");
}

/// A base game with `commander` giving the bad command of `case`, at its first tile.
fn commanded(case: &str) -> Result<Game, meeple_core::SetupError> {
    let config = format!(
        "players = 2\ndraw = [\"U\", \"U\", \"U\"]\n[[expansions]]\nid = \"commander\"\noptions = {{ case = \"{case}\" }}\n"
    );
    let loaded = load_toml("commander.toml", &config).unwrap();
    Game::new(loaded.rules.clone(), loaded.setup(1))
}

#[test]
fn the_core_refuses_the_commands_only_it_can_check() {
    // Commands a Rust expansion gives, which the Luau API never lets through: each fails the
    // action with the command in words and why, and the game is as it was.
    let place = Action::PlaceTile { pos: meeple_core::Pos::new(1, 0), rotation: meeple_core::Rotation::new(0) };
    let cases = [
        (
            "set-score",
            "commander: tile_placed: invalid command: set the points of player 1 to 1: set_score is only allowed in modify_score",
        ),
        ("face-of-nobody", "commander: tile_placed: invalid command: turn figure 999 to face 1: no such figure"),
        ("move-nobody", "commander: tile_placed: invalid command: move figure 999 to "),
    ];
    for (case, says) in cases {
        let mut game = commanded(case).unwrap();
        let before = game.state().hash();
        let err = game.apply(place).unwrap_err().to_string();
        assert!(err.starts_with(says), "{case}: {err}");
        assert_eq!(game.state().hash(), before, "{case}: the game is unchanged");
    }
    // A figure moved onto a feature its kind may not stand on: the roadman, put on the start
    // tile's road at the first tile, is moved into its city at the second.
    let mut game = commanded("move-off-limits").unwrap();
    game.apply(place).unwrap();
    let roadman = game.state().figures().iter().position(|f| !f.in_supply()).expect("the roadman is placed");
    let on_the_road = game.state().figures()[roadman].at;
    game.apply(Action::Pass).unwrap();
    let before = game.state().hash();
    let second = Action::PlaceTile { pos: meeple_core::Pos::new(-1, 0), rotation: meeple_core::Rotation::new(0) };
    let err = game.apply(second).unwrap_err().to_string();
    assert_eq!(
        err,
        "commander: tile_placed: invalid command: move the commander:roadman of player 1 to the city at (0, 0): \
         a commander:roadman may not stand on a city"
    );
    assert_eq!(game.state().hash(), before, "the game is unchanged");
    assert_eq!(game.state().figures()[roadman].at, on_the_road, "the roadman is still on the road");

    let err = commanded("ask-in-setup").err().expect("setup refuses a decision").to_string();
    assert!(err.ends_with("no decisions during setup"), "{err}");

    // A decision asked again at every answer: the turn's thousandth is refused.
    let mut game = commanded("ask-forever").unwrap();
    game.apply(place).unwrap();
    // An answer past the question's options is refused by what is wrong with it.
    let before = game.state().hash();
    let err = game.apply(Action::Choose { option: 1 }).unwrap_err().to_string();
    assert_eq!(err, "illegal action: option 1 is out of range: `again` has options 0 to 0");
    assert_eq!(game.state().hash(), before, "the game is unchanged");
    // Any other action waits for the answer, whose seat is counted from 0 as the protocol counts.
    let err = game.apply(Action::Pass).unwrap_err().to_string();
    assert_eq!(err, "illegal action: seat 0 must first answer `again` (options 0 to 0)");
    let mut answers = 0;
    let err = loop {
        match game.apply(Action::Choose { option: 0 }) {
            Ok(_) => answers += 1,
            Err(e) => break e.to_string(),
        }
    };
    assert_eq!(answers, 999, "the first decision and 999 asked again by answers make 1 000: {err}");
    assert!(err.ends_with("a turn asks at most 1000 decisions (does an answer ask again?)"), "{err}");
}
