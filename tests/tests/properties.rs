//! Properties that hold in every game, checked over thousands of random games: figures are
//! conserved, every completed feature is scored exactly once, final scores are the sum of the
//! score events, replays reproduce the state hash, and refused actions change nothing.

use meeple_core::bots::{Bot, RandomBot};
use meeple_core::figures::Location;
use meeple_core::{Action, Event, Game, Pos, Rotation};
use meeple_tests::load_toml;
use std::collections::BTreeSet;

/// Plays `games` random games of a config and checks every property after every action.
fn check_config(name: &str, config: &str, games: u64) {
    let loaded = load_toml(name, config).unwrap_or_else(|r| panic!("{r}"));
    let total_tiles: u32 = loaded.rules.counts().iter().sum::<u32>() + loaded.rules.start().map_or(0, |_| 1);
    for seed in 0..games {
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
        game.record_checkpoints();
        let mut bot = RandomBot::new(seed ^ 0x5eed);
        let mut events: Vec<Event> = game.events().to_vec();
        while !game.is_over() {
            refused_actions_change_nothing(&mut game);
            let action = bot.choose(&game);
            let step = game
                .apply(action)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: legal action {action:?} refused: {e}"));
            events.extend_from_slice(step);
            figures_are_conserved(&game, name, seed);
        }
        let st = game.state();
        assert_eq!(
            st.board().tiles().len() as u32 + st.discarded().len() as u32,
            total_tiles,
            "{name} seed {seed}: every tile is placed or discarded"
        );
        completed_features_score_once(&events, name, seed);
        scores_are_the_sum_of_events(&game, &events, name, seed);
        if seed.is_multiple_of(25) {
            let replay = game.replay();
            let again =
                Game::from_replay(loaded.rules.clone(), &replay).unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            assert_eq!(again.state().hash(), st.hash(), "{name} seed {seed}: replay reproduces the state");
            let json = serde_json::to_string(&replay).unwrap();
            let back: meeple_core::Replay = serde_json::from_str(&json).unwrap();
            assert_eq!(back, replay, "replays survive JSON");
        }
    }
}

fn figures_are_conserved(game: &Game, name: &str, seed: u64) {
    let st = game.state();
    for p in 0..st.players() {
        for (k, kind) in game.rules().figures().iter().enumerate() {
            let mine = st.figures().iter().filter(|f| f.owner == p && f.kind as usize == k);
            let (mut in_supply, mut out) = (0, 0);
            for f in mine {
                match f.at {
                    Location::Supply => in_supply += 1,
                    _ => out += 1,
                }
            }
            assert_eq!(
                in_supply + out,
                kind.per_player as usize,
                "{name} seed {seed}: player {p} owns every {}",
                kind.id
            );
            assert_eq!(in_supply, st.supply(p, k as u8) as usize, "{name} seed {seed}: supply count of {}", kind.id);
        }
    }
    // A feature's follower counter matches the followers standing on it.
    for root in st.features().roots() {
        let standing = st.figures_on(root).filter(|(_, f)| game.rules().figure(f.kind).follower).count();
        assert_eq!(
            st.features().data(root).followers as usize,
            standing,
            "{name} seed {seed}: follower count of feature {root}"
        );
    }
}

fn completed_features_score_once(events: &[Event], name: &str, seed: u64) {
    let completed: Vec<u16> = events
        .iter()
        .filter_map(|e| if let Event::FeatureCompleted { feature, .. } = e { Some(*feature) } else { None })
        .collect();
    let scored: Vec<u16> = events
        .iter()
        .filter_map(
            |e| if let Event::FeatureScored { feature, completed: true, .. } = e { Some(*feature) } else { None },
        )
        .collect();
    assert_eq!(completed, scored, "{name} seed {seed}: each completion is followed by its scoring");
    let unique: BTreeSet<u16> = scored.iter().copied().collect();
    assert_eq!(unique.len(), scored.len(), "{name} seed {seed}: no feature scored twice during play");
}

fn scores_are_the_sum_of_events(game: &Game, events: &[Event], name: &str, seed: u64) {
    let st = game.state();
    let mut sums = vec![0i32; st.players() as usize];
    for e in events {
        match e {
            Event::FeatureScored { points, .. } => points.iter().for_each(|(p, n)| sums[*p as usize] += n),
            Event::PointsAdded { player, points, .. } => sums[*player as usize] += points,
            _ => {}
        }
    }
    assert_eq!(sums, st.scores(), "{name} seed {seed}: final scores equal the score events");
}

fn refused_actions_change_nothing(game: &mut Game) {
    let before = game.state().hash();
    let legal = game.legal_actions();
    for bogus in [
        Action::PlaceTile { pos: Pos::new(1000, 1000), rotation: Rotation::new(0) },
        Action::PlaceFigure { figure: 0, segment: 200, with: None },
        Action::Choose { option: 99 },
    ] {
        if !legal.contains(&bogus) {
            assert!(game.apply(bogus).is_err());
            assert_eq!(game.state().hash(), before);
        }
    }
}

#[test]
fn base_game_c3_two_players() {
    check_config("base C3", "players = 2\n", 1500);
}

#[test]
fn base_game_c1_with_more_players() {
    for n in 3..=6 {
        check_config(&format!("base C1, {n} players"), &format!("players = {n}\n[base]\nedition = \"C1\"\n"), 150);
    }
}

#[test]
fn with_a_rust_expansion_using_every_hook_path() {
    let config = "players = 3\n[[expansions]]\nid = \"hook-demo\"\noptions = { monastery_bonus = 2, tiny_city = true, field_points = 4 }\n";
    check_config("hook-demo", config, 300);
}

#[test]
fn traders_and_builders_in_every_edition() {
    for (base, edition) in [("C1", "C1"), ("C1", "C1-revised"), ("C2", "C2"), ("C3", "C3"), ("C3", "C3.1")] {
        let config = format!(
            "players = 3\n[base]\nedition = \"{base}\"\n[[expansions]]\nid = \"traders-builders\"\nedition = \"{edition}\"\n"
        );
        check_config(&format!("traders-builders {edition}"), &config, 80);
    }
}

#[test]
fn traders_and_builders_with_its_house_rules() {
    let config = "players = 4\n[[expansions]]\nid = \"traders-builders\"\noptions = { builder_chain_unlimited = true, builder_double_turn_optional = false, goods_scoring = \"kissybooboo\", kissybooboo_minority_tokens = true }\n";
    check_config("traders-builders house rules", config, 80);
}

#[test]
fn the_river_is_played_first_from_the_spring_to_the_lake() {
    for (edition, start_tile, land) in [("C1", "discard", 71), ("C3", "discard", 71), ("C3", "shuffle-in", 72)] {
        let config = format!(
            "players = 2\n[[expansions]]\nid = \"river\"\nedition = \"{edition}\"\noptions = {{ start_tile = \"{start_tile}\" }}\n"
        );
        let name = format!("river {edition} {start_tile}");
        check_config(&name, &config, 60);
        let loaded = load_toml(&name, &config).unwrap();
        let rules = &loaded.rules;
        let is = |t: meeple_core::TileId, tag: &str| rules.tile(t).def.tags.iter().any(|x| x == tag);
        assert_eq!(&*rules.tile(rules.start().unwrap()).key, "river:spring", "{name}: the spring is laid first");
        let count = |river: bool| -> u32 {
            (0..rules.tiles().len()).filter(|&t| is(t as _, "river") == river).map(|t| rules.counts()[t]).sum()
        };
        assert_eq!((count(true), count(false)), (11, land), "{name}: river tiles to draw, land tiles");
        for seed in 0..100 {
            let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
            meeple_tests::play_randomly(&mut game, seed);
            let laid: Vec<_> = game.state().board().tiles().iter().map(|t| t.tile).collect();
            let rivers = laid.iter().take_while(|&&t| is(t, "river")).count();
            assert!(laid[rivers..].iter().all(|&t| !is(t, "river")), "{name} seed {seed}: river tiles come first");
            // Curves turning left and right by turns, the river never comes back to itself:
            // every river tile fits, and the lake ends it.
            assert_eq!(rivers, 12, "{name} seed {seed}: all twelve river tiles are laid");
            let lake = laid.iter().position(|&t| is(t, "lake"));
            assert_eq!(lake, Some(11), "{name} seed {seed}: the lake is the last river tile");
        }
    }
}

#[test]
fn the_river_with_traders_and_builders_c3_1() {
    let config =
        "players = 3\n[[expansions]]\nid = \"river\"\n[[expansions]]\nid = \"traders-builders\"\nedition = \"C3.1\"\n";
    check_config("river + traders-builders C3.1", config, 80);
    let loaded = load_toml("river + C3.1", config).unwrap();
    let tile = loaded.rules.tile_by_name("traders-builders-c3.1-river:river").unwrap();
    assert_eq!(loaded.rules.stack_of(tile), 1, "the C3.1 river tile is drawn with The River's tiles");
    let alone =
        load_toml("C3.1", "players = 2\n[[expansions]]\nid = \"traders-builders\"\nedition = \"C3.1\"\n").unwrap();
    assert!(alone.rules.tile_by_name("traders-builders-c3.1-river:river").is_err(), "without The River it is left out");
}

#[test]
fn the_tollkeepers_with_traders_and_builders_in_every_edition_pairing() {
    for tb in ["C1", "C1-revised", "C2", "C3", "C3.1"] {
        for tk in ["C2", "C3"] {
            let config = format!(
                "players = 3\n[[expansions]]\nid = \"traders-builders\"\nedition = \"{tb}\"\n[[expansions]]\nid = \"tollkeepers\"\nedition = \"{tk}\"\n"
            );
            check_config(&format!("traders-builders {tb} + tollkeepers {tk}"), &config, 30);
        }
    }
}

#[test]
fn the_abbot_alone_and_with_every_expansion_that_prints_gardens() {
    check_config("abbot", "players = 2\n[[expansions]]\nid = \"abbot\"\n", 100);
    let all = "players = 4\n[[expansions]]\nid = \"abbot\"\n[[expansions]]\nid = \"river\"\n\
               [[expansions]]\nid = \"traders-builders\"\nedition = \"C3.1\"\n[[expansions]]\nid = \"tollkeepers\"\n";
    check_config("abbot + river + traders-builders C3.1 + tollkeepers", all, 20);
}

/// The tiles a game draws from here on, with random bots.
fn draws_ahead(mut game: Game, bot_seed: u64) -> Vec<u16> {
    let mut bot = RandomBot::new(bot_seed);
    let mut drawn = Vec::new();
    while !game.is_over() {
        let action = bot.choose(&game);
        let events = game.apply(action).unwrap();
        drawn.extend(events.iter().filter_map(|e| match e {
            Event::TileDrawn { tile, .. } => Some(*tile),
            _ => None,
        }));
    }
    drawn
}

#[test]
fn a_reseeded_copy_deals_the_unseen_tiles_anew() {
    let loaded = load_toml("search.toml", "players = 2\n[[expansions]]\nid = \"traders-builders\"\n").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(5)).unwrap();
    let mut bot = RandomBot::new(9);
    for _ in 0..30 {
        game.apply(bot.choose(&game)).unwrap();
    }
    let unseen = game.state().unseen_tiles();
    let mut counted = BTreeSet::new();
    assert!(unseen.windows(2).all(|w| w[0] <= w[1]), "sorted");
    assert_eq!(unseen.len() as u32, game.state().tiles_left(), "no tile limit: every unseen tile comes");

    // A copy as it is draws what the game will draw, whatever its players do.
    let ahead = draws_ahead(game.clone(), 1);
    assert_eq!(draws_ahead(game.clone(), 2), ahead, "a plain copy sees the hidden future");

    let reseeded = |seed: u64| {
        let mut copy = game.clone();
        copy.reseed(seed);
        assert_eq!(copy.state().public_hash(), game.state().public_hash(), "what players see is unchanged");
        assert_ne!(copy.state().hash(), game.state().hash(), "what comes next is not");
        assert_eq!(copy.legal_actions(), game.legal_actions());
        copy
    };
    let (a, b) = (draws_ahead(reseeded(100), 1), draws_ahead(reseeded(200), 1));
    assert_ne!(a, ahead, "another future");
    assert_ne!(a, b, "a seed's own future");
    assert_eq!(draws_ahead(reseeded(100), 1), a, "the same seed, the same future");
    // Every future deals exactly the unseen tiles (the drawn tile of the moment is seen).
    for future in [&ahead, &a, &b] {
        let mut dealt = future.clone();
        dealt.sort_unstable();
        assert_eq!(dealt, unseen);
        counted.insert(future.clone());
    }
    assert_eq!(counted.len(), 3);
}

#[test]
fn a_reseeded_copy_whose_hook_fails_is_left_as_it_was() {
    // A rule that fails late in the game: a search's play-out of a reseeded copy meets it.
    let root = meeple_tests::write_mods(
        "reseed-fails",
        &[(
            "late",
            "depends = [\"base\"]",
            "meeple.on(\"turn_end\", function(view, e) if e.turn >= 12 then error(\"late\") end end)\n",
        )],
    );
    let config = meeple_host::GameConfig::parse("late.toml", "players = 2\n[[expansions]]\nid = \"late\"\n").unwrap();
    let loaded = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(5)).unwrap();
    let mut bot = RandomBot::new(3);
    for _ in 0..8 {
        game.apply(bot.choose(&game)).unwrap();
    }
    let mut copy = game.clone();
    copy.reseed(77);
    let failed = (0..200).find_map(|_| {
        let before = (copy.state().hash(), copy.state().public_hash(), copy.history().len());
        match copy.apply(bot.choose(&copy)) {
            Ok(_) => None,
            Err(e) => Some((before, e)),
        }
    });
    let (before, error) = failed.expect("turn 12 ends within 200 actions");
    assert!(error.to_string().contains("late"), "{error}");
    let after = (copy.state().hash(), copy.state().public_hash(), copy.history().len());
    assert_eq!(after, before, "the reseeded copy is as it was, reseed included");
}

/// Plays a game to its end with a random bot; returns its state hash and scores.
fn play_out(mut game: Game, bot_seed: u64) -> (u64, Vec<i32>) {
    play_out_in_place(&mut game, bot_seed);
    (game.state().hash(), game.state().scores())
}

#[test]
fn a_game_copied_into_a_used_one_is_the_same_game() {
    // A search copies its root into one scratch game per play-out (`clone_from`): the copy
    // must be the root, whatever the scratch held before, expansions' storage and tokens too.
    let config = "players = 3\n[[expansions]]\nid = \"traders-builders\"\n[[expansions]]\nid = \"tollkeepers\"\n";
    let loaded = load_toml("search.toml", config).unwrap();
    let mut root = Game::new(loaded.rules.clone(), loaded.setup(5)).unwrap();
    let mut bot = RandomBot::new(9);
    for _ in 0..40 {
        root.apply(bot.choose(&root)).unwrap();
    }
    let mut finished = Game::new(loaded.rules.clone(), loaded.setup(6)).unwrap();
    play_out_in_place(&mut finished, 4);
    let fresh = Game::new(loaded.rules.clone(), loaded.setup(7)).unwrap();
    let base = load_toml("base.toml", "players = 2\n").unwrap();
    let other_rules = Game::new(base.rules.clone(), base.setup(8)).unwrap();
    for (what, mut scratch) in [("a finished game", finished), ("a new game", fresh), ("a base game", other_rules)] {
        scratch.clone_from(&root);
        assert_eq!(format!("{:?}", scratch.state()), format!("{:?}", root.state()), "copied into {what}");
        assert_eq!(scratch.state().hash(), root.state().hash(), "copied into {what}");
        assert_eq!(scratch.history(), root.history(), "copied into {what}");
        assert_eq!(scratch.legal_actions(), root.legal_actions(), "copied into {what}");
        assert_eq!(play_out(scratch, 1), play_out(root.clone(), 1), "played on from {what}");
    }
}

/// Plays a game to its end in place, so that its buffers are as large as a game's get.
fn play_out_in_place(game: &mut Game, bot_seed: u64) {
    let mut bot = RandomBot::new(bot_seed);
    while !game.is_over() {
        game.apply(bot.choose(game)).unwrap();
    }
}

/// Every way the rules refuse a figure placement, met in random games of figures placed in
/// each of the four ways: each refusal names the rule of its figure kind's way and the action's
/// part it is about, and changes nothing.
#[test]
fn a_refused_figure_placement_names_the_rule_of_its_kind() {
    use meeple_core::figures::Placement as Way;
    use meeple_core::game::Part;
    use std::collections::BTreeMap;
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    for edition in ["C3", "C3.1"] {
        let config = format!(
            "players = 2\n[[expansions]]\nid = \"traders-builders\"\nedition = \"{edition}\"\n\
             [[expansions]]\nid = \"tollkeepers\"\n"
        );
        let loaded = load_toml(edition, &config).unwrap_or_else(|r| panic!("{r}"));
        let kinds = loaded.rules.figures().len() as u8;
        for seed in 0..4 {
            let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
            let mut bot = RandomBot::new(seed);
            while !game.is_over() {
                if game.state().turn().stage == meeple_core::Stage::Figure {
                    let legal = game.legal_actions();
                    let before = game.state().hash();
                    for (figure, segment, with) in (0..kinds)
                        .flat_map(|f| (0..4u8).map(move |s| (f, s)))
                        .flat_map(|(f, s)| std::iter::once(None).chain((0..kinds).map(Some)).map(move |w| (f, s, w)))
                    {
                        let action = Action::PlaceFigure { figure, segment, with };
                        if legal.contains(&action) {
                            continue;
                        }
                        let refusal = game.refusal(&action).expect("an action not listed as legal is refused");
                        let (way, with_way) =
                            (loaded.rules.figure(figure).placement, with.map(|w| loaded.rules.figure(w).placement));
                        let rule = [
                            ("is placed alone", Part::With, way == Way::JoinsOwnFollower && with.is_some()),
                            ("needs a follower of seat", Part::Whole, way == Way::JoinsOwnFollower && with.is_none()),
                            ("comes only together with a follower", Part::Figure, way == Way::WithFollower),
                            ("is placed only by its expansion's rules", Part::Figure, way == Way::ByExpansion),
                            ("cannot be `with`", Part::With, with_way.is_some_and(|w| w != Way::WithFollower)),
                        ]
                        .into_iter()
                        .find(|(words, ..)| refusal.why.contains(words));
                        if let Some((words, part, fits)) = rule {
                            assert!(fits, "{action:?} refused for a rule not of its kind: {}", refusal.why);
                            assert_eq!(refusal.part, part, "{action:?}: {}", refusal.why);
                            *seen.entry(words).or_default() += 1;
                        }
                    }
                    assert_eq!(game.state().hash(), before);
                }
                let action = bot.choose(&game);
                game.apply(action).unwrap();
            }
        }
    }
    assert_eq!(seen.len(), 5, "every rule met at least once: {seen:?}");
}
