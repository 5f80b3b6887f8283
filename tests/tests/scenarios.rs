//! Runs every scenario in `tests/scenarios/` (format: `docs/scenarios.md`), in each shipped
//! expansion's `tests/` and in each test expansion's (`tests/mods/*/tests`).

use meeple_tests::{repo, run_scenario, scenario_files};

#[test]
fn every_scenario_holds() {
    // The fixture plugins some scenarios play (the guide's `long-roads`).
    meeple_tests::build_plugins();
    let mut files = scenario_files(&repo().join("tests/scenarios"));
    // Each expansion's own scenarios: the shipped ones (the template's among them), the test
    // expansions, whose Rust code only this crate holds, and the fixture plugins.
    for root in ["scripts", "plugins", "tests/mods", "plugins/fixtures"] {
        for dir in std::fs::read_dir(repo().join(root)).unwrap().flatten() {
            files.extend(scenario_files(&dir.path().join("tests")));
        }
    }
    assert!(files.len() >= 10, "scenario files are missing");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            run_scenario(f).err().map(|e| format!("{}:\n{e}", f.strip_prefix(repo()).unwrap_or(f).display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// Writes a scenario file under the build folder and runs it; the error it fails with.
fn failure_of(name: &str, text: &str) -> String {
    let dir = meeple_tests::repo().join("target/test-scenarios");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    run_scenario(&path).expect_err("the scenario fails")
}

#[test]
fn problems_in_a_scenarios_game_are_reported_at_their_lines_all_at_once() {
    let text = "description = \"x\"\n\n[game]\nplayers = [\"Red\"]\ncolour = 2\n[game.base]\nedition = \"C9\"\n\n[[step]]\nplace = \"E at 0,1 r2\"\n";
    let err = failure_of("bad.toml", text);
    let lines: Vec<&str> = err.lines().map(|l| l.rsplit_once("bad.toml:").map_or(l, |(_, rest)| rest)).collect();
    assert_eq!(
        lines,
        [
            "4:11: a game needs 2 to 6 players, not 1",
            "5:1: unknown key `colour` in [game]; expected one of: base, draw, expansions, players, seed, tile_limit, version",
            "7:11: `base` has no edition `C9`; expected one of: C1, C2, C3",
        ]
    );
}

#[test]
fn misspelt_keys_of_a_scenario_are_reported_all_at_once_with_its_games_problems() {
    let text = "description = \"x\"\nsorce = \"y\"\n[game]\nplayers = 2\ncolour = 2\n\n[[step]]\nplaec = \"E at 0,1 r2\"\n\
                figure = \"pass\"\nexpect = { scorez = [0, 0] }\n\n[[step]]\nfigur = \"pass\"\n\n[end]\nover = true\nevnts = []\n";
    let err = failure_of("keys.toml", text);
    let lines: Vec<&str> = err.lines().map(|l| l.rsplit_once("keys.toml:").map_or(l, |(_, rest)| rest)).collect();
    assert_eq!(lines.len(), 6, "{err}");
    assert!(
        lines[0].starts_with("2:1: unknown key `sorce` in the scenario; did you mean `source`? expected one of: "),
        "{err}"
    );
    assert!(lines[1].starts_with("5:1: unknown key `colour` in [game]"), "{err}");
    assert!(
        lines[2].starts_with(
            "8:1: unknown key `plaec` in [[step]] 1; did you mean `place`? expected one of: choose, error,"
        ),
        "{err}"
    );
    assert!(
        lines[3].starts_with(
            "10:12: unknown key `scorez` in the expect of [[step]] 1; did you mean `scores`? expected one of: "
        ),
        "{err}"
    );
    assert!(lines[3].contains(" scores, "), "{err}");
    assert!(lines[4].starts_with("13:1: unknown key `figur` in [[step]] 2"), "{err}");
    assert!(lines[5].starts_with("17:1: unknown key `evnts` in [end]"), "{err}");
}

#[test]
fn values_of_the_wrong_type_are_reported_all_at_once_in_words() {
    let text = "description = 3\n[game]\nplayers = 1\n\n[[step]]\nplace = \"E at 0,1 r2\"\nchoose = -1\n\
                expect = { scores = [1, \"x\"], over = \"no\", events = \"one\" }\n\n[end]\nfigure_actions = -3\n\
                supply = { meeple = [7, 300] }\n";
    let err = failure_of("types.toml", text);
    let lines: Vec<&str> = err.lines().map(|l| l.rsplit_once("types.toml:").map_or(l, |(_, rest)| rest)).collect();
    assert_eq!(
        lines,
        [
            "1:15: `description` must be a string, found an integer",
            "3:11: a game needs 2 to 6 players, not 1",
            "7:10: `choose` must be from 0 to 65535, found -1",
            "8:25: `scores` must hold integers, found a string",
            "8:38: `over` must be a boolean (true or false), found a string",
            "8:53: `events` must be an array, found a string",
            "11:18: `figure_actions` must be a count, 0 or more, found -3",
            "12:25: `supply.meeple` holds 300; expected integers from 0 to 255",
        ]
    );
    // A count of any size is one: only a negative one is refused.
    let text = "description = \"x\"\n[game]\nplayers = 2\n\n[end]\nfigure_actions = 5000000000\noffers = -1\n";
    let err = failure_of("counts.toml", text);
    assert!(err.ends_with("counts.toml:7:10: `offers` must be a count, 0 or more, found -1"), "{err}");
    assert!(!err.contains("figure_actions"), "{err}");
    // A step written with one pair of brackets is a table, not the list of steps.
    let err =
        failure_of("one-step.toml", "description = \"x\"\n[game]\nplayers = 2\n[step]\nplace = \"E at 0,1 r2\"\n");
    assert!(
        err.ends_with("one-step.toml:4:1: each step is a `[[step]]` table, with two brackets: they are a list"),
        "{err}"
    );
}

#[test]
fn a_step_placing_a_tile_when_none_is_drawn_says_why() {
    let head = "description = \"x\"\n[game]\nplayers = [\"Red\", \"Blue\"]\ndraw = [\"E\"]\n\n";
    let text =
        format!("{head}[[step]]\nplace = \"E at 0,1 r2\"\nfigure = \"pass\"\n\n[[step]]\nplace = \"U at 0,2 r0\"\n");
    let err = failure_of("over.toml", &text);
    assert!(err.contains("expected to place U, but the game is over: the draw order has no tile left"), "{err}");
    let text = format!("{head}[[step]]\nplace = \"E at 0,1 r2\"\n\n[[step]]\nplace = \"E at 0,2 r0\"\n");
    let err = failure_of("figure-phase.toml", &text);
    assert!(
        err.contains("expected to place E, but no tile is drawn: the turn is in its figure phase (a step that"),
        "{err}"
    );
}

#[test]
fn who_acts_is_told_by_name() {
    let text = "description = \"x\"\n[game]\nplayers = [\"Red\", \"Blue\"]\ndraw = [\"E\", \"U\"]\n\n[[step]]\n\
                player = \"Blue\"\nplace = \"E at 0,1 r2\"\nfigure = \"pass\"\n";
    let err = failure_of("who.toml", text);
    assert!(err.ends_with("who.toml:6: step 1: expected Blue to act, but it is Red's turn"), "{err}");
    let text = text
        .replace("player = \"Blue\"\n", "")
        .replace("figure = \"pass\"\n", "figure = \"pass\"\nexpect = { to_act = \"Red\", drawn = \"E\" }\n");
    let err = failure_of("who-next.toml", &text);
    assert!(
        err.contains("step 1: expected Red to act next, but it is Blue's turn\ndrawn tile: expected E, got U\n"),
        "{err}"
    );
}

#[test]
fn a_scenario_with_editions_is_played_in_each_and_a_failure_names_its_edition() {
    // The farmhouse start tile is a C2/C3 tile: the scenario holds in C3 and fails in C1 alone.
    let text = "description = \"x\"\neditions = { base = [\"C3\", \"C1\"] }\n[game]\nplayers = 2\ndraw = [\"D-farmhouse\"]\n\n[[step]]\nplace = \"D-farmhouse at 1,0 r0\"\nfigure = \"pass\"\n\n[end]\nover = true\n";
    let err = failure_of("editions.toml", text);
    assert!(err.starts_with("[base C1] ") && err.contains("D-farmhouse"), "{err}");
    assert!(!err.contains("C3]"), "{err}");
    let dir = repo().join("target/test-scenarios");
    std::fs::write(dir.join("editions-c3.toml"), text.replace("\"C3\", \"C1\"", "\"C2\", \"C3\"")).unwrap();
    run_scenario(&dir.join("editions-c3.toml")).expect("the tile is in C2 and C3");

    let err = failure_of("editions-nobody.toml", &text.replace("base =", "river ="));
    assert!(err.ends_with("`editions`: `river` is not among the `[game]`'s expansions"), "{err}");
}

#[test]
fn a_failed_scenario_says_every_expectation_it_missed_and_where_its_step_is() {
    let text = "description = \"x\"\n[game]\nplayers = 2\ndraw = [\"E\"]\n\n[[step]]\nplace = \"E at 0,1 r2\"\nfigure = \"meeple on city\"\n\n[end]\nscores = [5, 0]\nsupply = { meeple = [6, 7] }\n";
    let err = failure_of("end.toml", text);
    assert!(err.contains("scores: expected [5, 0], got [4, 0]"), "{err}");
    assert!(err.contains("meeple in supply: expected [6, 7], got [7, 7]"), "{err}");
    assert!(err.contains("events were:\n  "), "{err}");
    assert!(err.contains("end.toml:11: at the end: "), "shown at the line of the first one missed: {err}");
    let err = failure_of("supply.toml", &text.replace("scores = [5, 0]", "scores = [4, 0]"));
    assert!(err.contains("supply.toml:12: at the end: meeple in supply"), "at its own line: {err}");
    let err = failure_of(
        "end-table.toml",
        &text
            .replace("supply = { meeple = [6, 7] }", "[end.supply]\nmeeple = [6, 7]")
            .replace("scores = [5, 0]", "scores = [4, 0]"),
    );
    assert!(err.contains("end-table.toml:12: at the end: meeple in supply"), "at its table's header: {err}");

    let err = failure_of("category.toml", &text.replace("scores = [5, 0]", "breakdown = { road = [0, 0] }"));
    assert!(
        err.contains(
            "category.toml:11: at the end: no score category `road` in `breakdown`; did you mean `roads`? the \
             categories are roads, cities, monasteries, fields"
        ),
        "{err}"
    );

    let text = "description = \"x\"\n[game]\nplayers = 2\ndraw = [\"E\"]\n\n[[step]]\nplace = \"E at 5,5 r0\"\nfigure = \"pass\"\n";
    let err = failure_of("refused.toml", text);
    let step = err.lines().nth(1).unwrap();
    assert!(step.ends_with("refused.toml:6: step 1: `place base:E at (5, 5) turned 0° (CFFF)` was refused: illegal action: the drawn tile cannot be placed at (5, 5) with rotation 0: (5, 5) is not next to a placed tile"), "{err}");
    // Why a placement is refused, beside the start tile (base:D: city north, road west to
    // east, field south).
    for (place, why) in [
        ("E at 0,0 r0", "(0, 0) already holds a tile"),
        ("E at 1,0 r0", "its west side (field) would meet a road side of the tile at (0, 0)"),
        ("E at 1,0 r3", "its west side (city) would meet a road side of the tile at (0, 0)"),
    ] {
        let err = failure_of("refused.toml", &text.replace("E at 5,5 r0", place));
        let step = err.lines().nth(1).unwrap();
        assert!(step.ends_with(&format!(": {why}")), "{place}: {err}");
    }
    // A placement whose sides fit but that an expansion forbids: the river's second curve the
    // same way as the first (`scripts/river/tests/no-u-turn.toml`).
    let river = "description = \"x\"\n[game]\nplayers = 2\ndraw = [\"river:curve\", \"river:curve\"]\n\
                 [[game.expansions]]\nid = \"river\"\nedition = \"C1\"\n\n\
                 [[step]]\nplace = \"curve at 1,0 r0\"\nfigure = \"pass\"\n\n[[step]]\nplace = \"curve at 1,-1 r1\"\n";
    let err = failure_of("u-turn.toml", river);
    let step = err.lines().nth(1).unwrap();
    let why = ": its sides fit, but an expansion's rule forbids it there (`can_place_tile`)";
    assert!(step.ends_with(why), "{err}");

    // A hook that fails is said to be one, not a refused move.
    let root = meeple_tests::write_mods(
        "scenario-hook-fails",
        &[(
            "slips",
            "depends = [\"base\"]",
            "meeple.on(\"tile_placed\", function(view, e) if e.player then error(\"a slip\") end end)\n",
        )],
    );
    let text = "description = \"x\"\n[game]\nplayers = 2\ndraw = [\"E\"]\n[[game.expansions]]\nid = \"slips\"\n\n[[step]]\nplace = \"E at 0,1 r2\"\n";
    let path = meeple_tests::repo().join("target/test-scenarios/hook-fails.toml");
    std::fs::write(&path, text).unwrap();
    let load = |c: &meeple_host::GameConfig| meeple_host::load::from_config(c, std::slice::from_ref(&root));
    let err = meeple_host::scenario::run_scenario(&path, &load).expect_err("the hook fails");
    assert!(err.contains("step 1: `place base:E at (0, 1) turned 180° (FFCF)` stopped: a hook failed: slips: tile_placed: slips/init.luau:1: a slip"), "{err}");
    // And where that line is on disk, for an editor.
    let on_disk = err.lines().last().unwrap();
    assert!(
        on_disk.starts_with("the failing line: ") && on_disk.ends_with("scenario-hook-fails/slips/init.luau:1"),
        "{err}"
    );

    // A misspelt segment or token is told with the names there are.
    let text = "description = \"x\"\n[game]\nplayers = 2\ndraw = [\"E\"]\n\n[[step]]\nplace = \"E at 0,1 r2\"\nfigure = \"meeple on cty\"\n";
    let err = failure_of("segment.toml", text);
    assert!(err.contains("tile E has no segment `cty`; did you mean `city`? it has: city, field"), "{err}");

    // A rotation past r3 is a mistake in the file, not a turn the other way round.
    let text = "description = \"x\"\n[game]\nplayers = 2\ndraw = [\"E\"]\n\n[[step]]\nplace = \"E at 0,1 r6\"\n";
    let err = failure_of("rotation.toml", text);
    assert!(err.contains("`place = \"E at 0,1 r6\"`: expected \"<tile> at <x>,<y> r<0-3>\""), "{err}");
}

#[test]
fn a_broken_step_does_not_hide_the_game_tables_problems() {
    let err = failure_of(
        "broken-step.toml",
        "description = \"x\"\n[game]\nplayers = 1\ncolour = \"red\"\n[[step]]\nbogus = 1\n",
    );
    assert!(err.contains("broken-step.toml:3:11: a game needs 2 to 6 players, not 1"), "{err}");
    assert!(err.contains("broken-step.toml:4:1: unknown key `colour`"), "{err}");
    assert!(err.contains("broken-step.toml:6:1: unknown key `bogus` in [[step]] 1; expected one of"), "{err}");
}

#[test]
fn a_misspelt_figure_tile_or_token_names_the_one_meant() {
    let text = "description = \"x\"\n[game]\nplayers = 2\ndraw = [\"U\"]\n\n[[step]]\nplace = \"U at 1,0 r0\"\nfigure = \"meple on road\"\n";
    let err = failure_of("figure-slip.toml", text);
    assert!(err.contains("no figure `meple`; did you mean `meeple`? the figures are: meeple"), "{err}");
    let err = failure_of("tile-slip.toml", &text.replace("draw = [\"U\"]", "draw = [\"base:u\"]"));
    assert!(err.contains("no tile `base:u` in this ruleset; did you mean `base:U`?"), "{err}");
    // An id two tilesets share is given back as their keys; a token by its short name.
    let tb = "[[game.expansions]]\nid = \"traders-builders\"\n\n[[step]]";
    let err = failure_of(
        "shared-id-slip.toml",
        &text.replace("draw = [\"U\"]", "draw = [\"U-gardn\"]").replacen("\n[[step]]", tb, 1),
    );
    assert!(err.contains("did you mean `base:U-garden` or `traders-builders:U-garden`?"), "{err}");
    let token =
        text.replace("figure = \"meple on road\"", "figure = \"pass\"\nexpect = { tokens = { wien = [0, 0] } }");
    let err = failure_of("token-slip.toml", &token.replacen("\n[[step]]", tb, 1));
    assert!(err.contains("no token `wien`; did you mean `wine`? the tokens are: traders-builders:wine"), "{err}");
    let offer = text.replace("figure = \"meple on road\"", "offer = \"traders-builder 1\"");
    let err = failure_of("expansion-slip.toml", &offer.replacen("\n[[step]]", tb, 1));
    assert!(
        err.contains(
            "no expansion `traders-builder` in this game; did you mean `traders-builders`? the expansions are: "
        ),
        "{err}"
    );
}

#[test]
fn a_line_no_event_could_be_is_refused_in_no_events() {
    // Lines of the play log, a token by its short name, a misspelt category: none could ever
    // appear, so each would pass whatever the game did.
    let text = "description = \"x\"\n[game]\nplayers = [\"Red\", \"Blue\"]\ndraw = [\"U\"]\n[[game.expansions]]\nid = \"traders-builders\"\n\n[[step]]\nplace = \"U at 1,0 r0\"\nfigure = \"pass\"\nexpect = { no_events = [LINES] }\n";
    let refused = [
        ("Red gets 2 wine", "after `Red` comes none of"),
        ("Red +1 wine", "events name a token by its whole id: `traders-builders:wine`"),
        (
            "Red +1 traders-builders:wien",
            "`traders-builders:wien` is neither a token nor a score category; did you mean `traders-builders:wine`?",
        ),
        ("Red put builder on road at 1,0", "events name a figure by its whole id: `traders-builders:builder`"),
        ("Green got back meeple", "it starts with no player's name (Red, Blue)"),
        ("end of turn of Bleu", "no player `Bleu`"),
    ];
    for (line, why) in refused {
        let err = failure_of("no-event.toml", &text.replace("LINES", &format!("{line:?}")));
        assert!(err.contains(&format!("`{line}` is no event line of this game: {why}")), "{err}");
    }
    // A line ending in `…` stands for those that start with the rest.
    let err = failure_of("no-event-start.toml", &text.replace("LINES", "\"placed U …\""));
    assert!(err.contains("unexpected event `placed U …`"), "{err}");
    let err = failure_of("no-event-start.toml", &text.replace("LINES", "\"Red's builder moved …\""));
    assert!(err.contains("events name a figure by its whole id: `traders-builders:builder`"), "{err}");
    // Lines that could be events pass when they did not happen.
    let could = [
        "Red +1 traders-builders:wine",
        "Blue +3 roads",
        "Red put traders-builders:pig on field at 1,0",
        "Red's traders-builders:builder moved …",
        "Blue …",
        "scored road: Red 2",
        "end of turn of Blue",
        "log: anything",
    ];
    let lines = could.iter().map(|l| format!("{l:?}")).collect::<Vec<_>>().join(", ");
    let path = meeple_tests::repo().join("target/test-scenarios/could-be.toml");
    std::fs::write(&path, text.replace("LINES", &lines)).unwrap();
    run_scenario(&path).unwrap();
}

#[test]
fn a_scenario_in_a_mods_folder_that_does_not_play_the_mod_is_warned_about() {
    // Every shipped one plays its own.
    for root in ["scripts", "plugins", "tests/mods"] {
        for dir in std::fs::read_dir(repo().join(root)).unwrap().flatten() {
            for f in scenario_files(&dir.path().join("tests")) {
                let warning = meeple_host::check::scenario_misses_its_mod(&f);
                assert_eq!(warning, None, "{}", f.display());
            }
        }
    }
    // A copy of the template whose scenario still names `template` tests the original.
    let root = meeple_tests::write_mods("scenario-own-mod", &[("chapels", "depends = [\"base\"]", "")]);
    let tests = root.join("chapels/tests");
    std::fs::create_dir_all(&tests).unwrap();
    let copied = tests.join("copied.toml");
    std::fs::copy(repo().join("scripts/template/tests/chapel-beside-city.toml"), &copied).unwrap();
    let warning = meeple_host::check::scenario_misses_its_mod(&copied).expect("a warning");
    assert!(warning.contains("expansion `chapels` but its game plays `template`"), "{warning}");
    let own = std::fs::read_to_string(&copied).unwrap().replace("id = \"template\"", "id = \"chapels\"");
    std::fs::write(&copied, own).unwrap();
    assert_eq!(meeple_host::check::scenario_misses_its_mod(&copied), None);
    // A scenario in another folder of the mod is the mod's too (`meeple test` finds the mod).
    let elsewhere = root.join("chapels/failing-ones/x.toml");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    std::fs::copy(&copied, &elsewhere).unwrap();
    let holding = meeple_host::check::mod_holding(&elsewhere).expect("its mod");
    assert!(holding.ends_with("scenario-own-mod/chapels"), "{}", holding.display());
    assert_eq!(meeple_host::check::mods_holding(&[elsewhere], &[]), vec![root.clone()]);
}
