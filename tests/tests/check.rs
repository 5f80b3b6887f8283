//! `meeple check DIR` (`meeple_host::check::check_mod`): every problem of a mod at once, each at
//! the file and line that causes it, including those only a game loading the mod would find.

use meeple_tests::{line_of, repo};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A copy of the template mod under a fresh folder of mods, renamed to `id`, with `edit` applied
/// to each file's text (by file name); the folder of mods lasts as long as the `TempDir`.
fn template_copy(test: &str, id: &str, edit: impl Fn(&str, String) -> String) -> (TempDir, PathBuf) {
    let mods = tempfile::Builder::new().prefix(&format!("meeple-check-{test}-")).tempdir().unwrap();
    let dir = mods.path().join(id);
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    for name in ["expansion.toml", "tiles.toml", "init.luau"] {
        let text = std::fs::read_to_string(repo().join("scripts/template").join(name)).unwrap();
        let text = text.replace("id = \"template\"", &format!("id = \"{id}\""));
        std::fs::write(dir.join(name), edit(name, text)).unwrap();
    }
    (mods, dir)
}

/// The problems `check_mod` reports, as `file-name:line: message` (folders left out).
fn problems(dir: &Path) -> Vec<String> {
    let report = meeple_host::check::check_mod(dir, &[]).expect_err("the mod has problems");
    report
        .diagnostics
        .iter()
        .map(|d| {
            let file = Path::new(&d.file).file_name().unwrap().to_string_lossy().into_owned();
            format!("{file}:{}: {}", d.line, d.message)
        })
        .collect()
}

#[test]
fn a_sound_mod_is_described_with_its_editions_options_and_hooks() {
    let (_mods, dir) = template_copy("sound", "chapels", |_, text| text);
    let checked = meeple_host::check::check_mod(&dir, &[]).unwrap();
    assert_eq!(checked.manifest.id, "chapels");
    assert_eq!(checked.tiles, vec![("default".to_string(), 2)]);
    assert_eq!(checked.hooks, Some(vec!["modify_score"]));
    assert_eq!(checked.games, meeple_host::check::CHECK_GAMES);
    // Played too with its one option at each end of its range (its default is 2, from 0 to 10).
    assert_eq!(checked.variants, vec!["bonus = 0", "bonus = 10"]);
    // Code may register hooks by its options: base-c1 registers none with its defaults.
    let base_c1 = meeple_host::check::check_mod(&repo().join("scripts/base-c1"), &[]).unwrap();
    assert_eq!(base_c1.hooks, Some(vec![]));
    assert!(base_c1.warnings.is_empty(), "no hook with its defaults is no mistake: {:?}", base_c1.warnings);
    // The hooks of its other settings are named with them, and their calls counted.
    let settings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let modify = settings(&["tiny_city_scoring = \"2\"", "farm_rules = \"c1ed1\"", "farm_rules = \"c1ed2\""]);
    let other = vec![("modify_score", modify), ("final_scoring", settings(&["farm_rules = \"c1ed1\""]))];
    assert_eq!(base_c1.other_hooks, other);
    let used: Vec<_> = base_c1.hook_use.iter().map(|u| u.hook.name()).collect();
    assert_eq!(used, ["modify_score", "final_scoring"]);
    let finals = &base_c1.hook_use[1];
    assert_eq!(finals.calls, base_c1.variant_games, "final scoring once a game, in its one setting");
    assert!(base_c1.hook_use[0].acted > 0, "{:?}", base_c1.hook_use);
    assert!(checked.other_hooks.is_empty(), "the template registers its hook whatever its option");
    // Its two chapels are drawn and placed in each random game.
    let chapels = meeple_host::check::TileUse { tile: "chapels:chapel".into(), drawn: 200, placed: 200 };
    assert_eq!((checked.tile_use, checked.tile_games), (vec![chapels], 100));
}

#[test]
fn a_draw_tag_no_tile_of_the_game_carries_is_a_warning() {
    // A tag none of the tiles of the game carries (misspelt, say): nothing is drawn first.
    let (_mods, dir) = template_copy("draw-tag", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("[script]", "[draw]\nfirst = \"brige\"\n\n[script]"),
        _ => text,
    });
    let checked = meeple_host::check::check_mod(&dir, &[]).unwrap();
    let line = line_of(&dir.join("expansion.toml"), "first = ");
    assert_eq!(checked.warnings.len(), 1, "{:?}", checked.warnings);
    assert!(
        checked.warnings[0].ends_with(&format!(
            "expansion.toml:{line}:9: no tile of this game is tagged `brige`, so no tiles are drawn first"
        )),
        "{:?}",
        checked.warnings
    );
    // The template as it is warns of nothing.
    let (_mods, sound) = template_copy("draw-tag-sound", "chapels", |_, text| text);
    assert!(meeple_host::check::check_mod(&sound, &[]).unwrap().warnings.is_empty());
}

#[test]
fn a_hook_that_never_acts_in_the_games_played_is_a_warning() {
    // The template's rule acts in some of the games: a monastery beside a completed city.
    let (_mods, sound) = template_copy("acting", "chapels", |_, text| text);
    let checked = meeple_host::check::check_mod(&sound, &[]).unwrap();
    let [u] = checked.hook_use.as_slice() else { panic!("{:?}", checked.hook_use) };
    assert_eq!(u.hook, meeple_core::HookKind::ModifyScore);
    assert!(0 < u.acted && u.acted < u.calls, "{u:?}");
    assert!(checked.warnings.is_empty(), "{:?}", checked.warnings);
    // A misspelt kind: the handler runs at every scoring and never finds a "monastry".
    // Its tile's monastery carries a tag, which the warning names beside the misspelling.
    let (_mods, misspelt) = template_copy("idle", "chapels", |name, text| match name {
        "init.luau" => text.replace("~= \"monastery\"", "~= \"monastry\""),
        "tiles.toml" => text.replace("kind = \"monastery\" }", "kind = \"monastery\", tags = [\"chapel\"] }"),
        _ => text,
    });
    let checked = meeple_host::check::check_mod(&misspelt, &[]).unwrap();
    assert_eq!(checked.hook_use[0].acted, 0);
    assert!(checked.hook_use[0].calls > 0);
    assert_eq!(
        checked.warnings,
        ["`modify_score` was called in 140 random games and never gave a command, offered an action or forbade a \
          placement: does a handler look for a tag, kind or option value that is misspelt? (for comparison, the \
          tags its game's tiles carry: chapel)"]
    );
}

#[test]
fn code_that_registers_no_hook_is_a_warning() {
    let (_mods, silent) = template_copy("silent", "chapels", |name, text| match name {
        "init.luau" => "-- the rule is still to be written\n".to_string(),
        _ => text,
    });
    let checked = meeple_host::check::check_mod(&silent, &[]).unwrap();
    assert_eq!(checked.hooks.as_deref(), Some(&[][..]));
    assert_eq!(
        checked.warnings,
        ["its script registers no hook (with `meeple.on`): none of its code is ever called (a mod that only adds \
          tiles needs no `[script]` or `[native]`)"]
    );
}

#[test]
fn a_hook_never_called_in_the_games_played_is_a_warning() {
    // An `only` that waits for a storage key the mod never stores.
    let (_mods, waiting) = template_copy("waiting", "chapels", |name, text| match name {
        "init.luau" => text.replace("\nend)\n", "\nend, { stored = { \"chapels\" } })\n"),
        _ => text,
    });
    let checked = meeple_host::check::check_mod(&waiting, &[]).unwrap();
    assert_eq!(checked.hook_use[0].calls, 0);
    assert_eq!(
        checked.warnings,
        ["`modify_score` was never called in 140 random games: does an `only` name a storage key never stored or a \
          figure kind never placed, or does the call wait for an offer, a question or a second part of a turn that \
          never comes? (a rare rule may need `--games 1000`)"]
    );
}

#[test]
fn a_broken_manifest_does_not_hide_the_tileset_and_the_scripts() {
    let (_mods, dir) = template_copy("three-files", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("api = 1", "api = 1\ncolour = \"red\""),
        "tiles.toml" => text.replace("count = 2", "count = \"two\""),
        _ => format!("local x = = 1\n{text}"),
    });
    let found = problems(&dir);
    assert_eq!(found.len(), 3, "{found:#?}");
    let manifest_line = line_of(&dir.join("expansion.toml"), "colour");
    assert!(found[0].starts_with(&format!("expansion.toml:{manifest_line}: unknown key `colour`")), "{found:#?}");
    let tiles_line = line_of(&dir.join("tiles.toml"), "count");
    assert!(found[1].starts_with(&format!("tiles.toml:{tiles_line}: ")), "{found:#?}");
    assert!(found[2].starts_with("init.luau:1: "), "{found:#?}");
}

#[test]
fn a_misspelt_hook_is_told_with_the_problems_that_keep_the_script_from_running() {
    let misspelt = |text: String| text.replace("meeple.on(\"modify_score\"", "meeple.on( 'modify_scor'");
    // Behind a manifest problem, a tileset problem, and a syntax error in a file of its own.
    let blocked_by = [
        ("manifest", "expansion.toml", "api = 1", "api = 1\ncolour = \"red\""),
        ("tileset", "tiles.toml", "count = 2", "count = \"two\""),
        ("syntax", "init.luau", "-- ", "local helper = require(\"helper\")\n-- "),
    ];
    for (test, file, from, to) in blocked_by {
        let (_mods, dir) = template_copy(&format!("hook-behind-{test}"), "chapels", |name, text| {
            let text = if name == file { text.replacen(from, to, 1) } else { text };
            if name == "init.luau" { misspelt(text) } else { text }
        });
        std::fs::write(dir.join("helper.luau"), "return x +\nend\n").unwrap();
        let found = problems(&dir);
        let line = line_of(&dir.join("init.luau"), "'modify_scor'");
        let hook =
            format!("init.luau:{line}: unknown hook `modify_scor`; did you mean `modify_score`? (while loading)");
        assert!(found.contains(&hook), "{test}: {found:#?}");
        // The syntax error of the helper is told whether or not it is required.
        assert!(found.iter().any(|p| p.starts_with("helper.luau:2: ")), "{test}: {found:#?}");
        assert_eq!(found.len(), if test == "syntax" { 2 } else { 3 }, "{test}: {found:#?}");
    }
}

#[test]
fn missing_files_are_reported_at_the_keys_that_name_them() {
    let (_mods, dir) = template_copy("missing", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("\"tiles.toml\"", "\"tile.toml\"").replace("\"init.luau\"", "\"main.luau\""),
        _ => text,
    });
    let tileset = line_of(&dir.join("expansion.toml"), "tile.toml");
    let entry = line_of(&dir.join("expansion.toml"), "main.luau");
    let found = problems(&dir);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with(&format!("expansion.toml:{tileset}: tileset `")), "{found:#?}");
    assert!(found[0].ends_with("tile.toml` does not exist; tilesets in its folder: `tiles.toml`"), "{found:#?}");
    assert!(found[1].starts_with(&format!("expansion.toml:{entry}: the entry script `main.luau` does not exist")));
}

#[test]
fn ids_versions_and_ranges_are_checked_where_they_are_written() {
    let (_mods, dir) = template_copy("values", "chapels", |name, text| match name {
        "expansion.toml" => {
            text.replace("version = \"0.1.0\"", "version = \"one.two\"")
                .replace("max = 10", "max = -1")
                .replace("depends = [\"base\"]", "depends = [\"base\"]\nconflicts = [\"chapels\"]")
                + "\n[[tokens]]\nid = \"wine\"\nsupply = 9\n\n[[tokens]]\nid = \"wine\"\nsupply = 9\n\n[[figures]]\nid = \"Big Guy\"\n"
        }
        _ => text,
    });
    let at = |needle: &str| line_of(&dir.join("expansion.toml"), needle);
    let found = problems(&dir);
    let expected = [
        format!("expansion.toml:{}: `version = \"one.two\"`: expected numbers joined by dots", at("one.two")),
        format!("expansion.toml:{}: `max = -1` is below `min = 0`", at("max = -1")),
        format!("expansion.toml:{}: token `wine` is declared twice", at("id = \"wine\"") + 4),
        format!("expansion.toml:{}: figure id `Big Guy` must use only", at("Big Guy")),
        format!("expansion.toml:{}: `conflicts` names the expansion itself", at("conflicts")),
    ];
    for e in &expected {
        assert!(found.iter().any(|f| f.starts_with(e.as_str())), "missing {e} in {found:#?}");
    }
}

#[test]
fn what_only_a_game_would_refuse_is_found_too() {
    // A start tile that its own tileset does not hold.
    let (_mods, dir) = template_copy("start", "chapels", |name, text| match name {
        "expansion.toml" => text + "\n[draw]\nstart = \"nothere\"\n",
        _ => text,
    });
    let line = line_of(&dir.join("expansion.toml"), "nothere");
    assert_eq!(
        problems(&dir),
        vec![format!("expansion.toml:{line}: start tile `nothere` is not in tileset `chapels`")]
    );
    // An edition that brings along an expansion that is not installed.
    let (_mods, dir) = template_copy("with", "chapels", |name, text| match name {
        "expansion.toml" => {
            text.replacen("tileset = \"tiles.toml\"", "tileset = \"tiles.toml\"\nwith = [\"spectre\"]", 1)
        }
        _ => text,
    });
    let line = line_of(&dir.join("expansion.toml"), "spectre");
    assert_eq!(
        problems(&dir),
        vec![format!(
            "expansion.toml:{line}: edition `default` brings along `spectre` (`with`), which is not installed"
        )]
    );
    // A copy of an installed expansion that kept its id.
    let (_mods, dir) = template_copy("clash", "template", |_, text| text);
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    let line = line_of(&dir.join("expansion.toml"), "id = \"template\"");
    assert!(
        found[0].starts_with(&format!("expansion.toml:{line}: expansion `template` is installed more than once")),
        "{found:#?}"
    );
    assert!(
        found[0].ends_with("; keep one, or give a copy an id of its own (`id` in its expansion.toml)"),
        "{found:#?}"
    );
}

#[test]
fn a_tileset_id_another_installed_expansion_uses_is_refused() {
    // A copy of the template renamed in its manifest only: its tiles are still `template:…`.
    let (_mods, dir) = template_copy("tileset-id", "chapels", |name, text| match name {
        "tiles.toml" => text.replace("id = \"chapels\"", "id = \"template\""),
        _ => text,
    });
    let line = line_of(&dir.join("expansion.toml"), "tileset = ");
    let theirs = meeple_host::paths::display_path(&repo().join("scripts/template/tiles.toml"));
    assert_eq!(
        problems(&dir),
        vec![format!(
            "expansion.toml:{line}: tileset `template` ({}) has the id of `template`'s tileset {theirs}: the two \
             cannot be played together, as the id names their tiles (`template:…`); give it an id of its own",
            meeple_host::paths::display_path(&dir.join("tiles.toml"))
        )]
    );
    // Unless it says it conflicts with that one: the two are then never played together.
    let (_mods, dir) = template_copy("tileset-id-conflict", "chapels", |name, text| match name {
        "tiles.toml" => text.replace("id = \"chapels\"", "id = \"template\""),
        _ => text.replace("depends = [\"base\"]", "depends = [\"base\"]\nconflicts = [\"template\"]"),
    });
    assert!(meeple_host::check::check_mod(&dir, &[]).is_ok());
}

#[test]
fn a_mod_is_checked_with_the_expansions_it_depends_on() {
    let (_mods, dir) = template_copy("depends", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("depends = [\"base\"]", "depends = [\"base\", \"river\"]"),
        _ => text,
    });
    assert!(meeple_host::check::check_mod(&dir, &[]).is_ok(), "The River is installed");
    let (_mods, dir) = template_copy("depends-missing", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("depends = [\"base\"]", "depends = [\"base\", \"nosuch\"]"),
        _ => text,
    });
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains("unknown expansion `nosuch`"), "{found:#?}");
}

#[test]
fn a_mod_is_found_once_however_it_is_reached() {
    // Given itself as a folder of mods, it is still one expansion.
    let (_mods, dir) = template_copy("given", "chapels", |_, text| text);
    assert!(meeple_host::check::check_mod(&dir, std::slice::from_ref(&dir)).is_ok());
    assert!(meeple_host::check::check_mod(&dir, &[dir.parent().unwrap().to_path_buf()]).is_ok());
    // A built-in expansion, reached through a path with `..` in it.
    let river = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/river");
    assert_eq!(meeple_host::check::check_mod(&river, &[]).unwrap().manifest.id, "river");
}

#[test]
fn a_mod_of_rust_code_held_by_another_program_is_checked_without_it() {
    let checked = meeple_host::check::check_mod(&repo().join("tests/mods/hook-demo"), &[]).unwrap();
    assert_eq!(checked.manifest.figures.len(), 1);
    assert_eq!(checked.hooks, None, "this program cannot tell its hooks");
}

#[test]
fn the_tilesets_an_edition_adds_beside_another_expansion_are_checked() {
    let (_mods, dir) = template_copy("if-chosen", "chapels", |name, text| {
        match name {
        "expansion.toml" => text.replace(
            "tileset = \"tiles.toml\"         # tiles of its own, beside this file\n",
            "tileset = \"tiles.toml\"\n[[editions.default.if_chosen]]\nexpansion = \"river\"\ntileset = \"notthere.toml\"\n\
             [[editions.default.if_chosen]]\nexpansion = \"river\"\ntileset = \"tiles.toml\"\ntileset_edition = \"C9\"\n",
        ),
        _ => text,
    }
    });
    let problems = problems(&dir);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems[0].starts_with("expansion.toml:15: tileset `") && problems[0].contains("notthere.toml"),
        "{problems:#?}"
    );
    assert!(
        problems[1]
            .starts_with("expansion.toml:19: edition `default` beside `river` uses tileset edition `C9`, which ")
            && problems[1].ends_with("tiles.toml does not have (it has: default)"),
        "{problems:#?}"
    );
}

#[test]
fn code_that_keeps_state_between_calls_is_found() {
    // A count kept in a local of the file: the second game starts where the first left off.
    let (_mods, dir) = template_copy("stateful", "chapels", |name, text| match name {
        "init.luau" => "local n = 0\nmeeple.on(\"tile_placed\", function(view, event, out)\n    n += 1\n    \
                        if n == 30 then out:add_points(1, 1) end\nend)\n"
            .to_string(),
        _ => text,
    });
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("expansion.toml:22: the same random game (seed 1), played twice, went otherwise"),
        "{found:#?}"
    );
    assert!(found[0].contains("keeps state between hook calls"), "{found:#?}");
    // And one kept in a global, asked for with `rawget` until it is set (reading a global that is
    // not defined is an error).
    let (_mods, dir) = template_copy("stateful-global", "chapels", |name, text| match name {
        "init.luau" => {
            "meeple.on(\"tile_placed\", function(view, event, out)\n    count = (rawget(_G, \"count\") or 0) + 1\n    \
                        if count == 30 then out:add_points(1, 1) end\nend)\n"
                .to_string()
        }
        _ => text,
    });
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains("went otherwise") && found[0].contains("keeps state"), "{found:#?}");
    // Or a rule that reads memory addresses, which differ from load to load.
    assert!(found[0].contains("or reads where its tables lie in memory (`tostring` of a table"), "{found:#?}");
    // A hook that fails in play is found too.
    let (_mods, dir) = template_copy("failing", "chapels", |name, text| {
        match name {
        "init.luau" => "meeple.on(\"turn_end\", function(view, event, out)\n    if event.turn == 5 then error(\"boom\") end\nend)\n".to_string(),
        _ => text,
    }
    });
    let found = problems(&dir);
    assert!(found[0].starts_with("init.luau:2: a random game (seed 1) stopped: chapels: turn_end: "), "{found:#?}");
    assert!(found[0].contains("boom"), "{found:#?}");
    // So is one that fails only where a single game may not go: a monastery scored.
    let (_mods, dir) = template_copy("rare", "chapels", |name, text| match name {
        "init.luau" => text.replace(
            "    for player, points in scoring.points do",
            "    error(\"monastery boom\")\n    for player, points in scoring.points do",
        ),
        _ => text,
    });
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    let line = line_of(&dir.join("init.luau"), "monastery boom");
    assert!(found[0].starts_with(&format!("init.luau:{line}: a random game (seed ")), "{found:#?}");
    assert!(found[0].contains("stopped: chapels: modify_score: ") && found[0].contains("monastery boom"), "{found:#?}");
}

/// The template, counting the monasteries it scores in a local of its file and doing `then` once
/// it has counted 20: game 1, played twice, never gets there, and the later games all do.
fn counting_monasteries(then: &'static str) -> impl Fn(&str, String) -> String {
    move |name, text| match name {
        "init.luau" => text.replace("local SIDES", "local scored = 0\nlocal SIDES").replace(
            "    for player, points in scoring.points do",
            &format!(
                "    scored += 1\n    if scored > 20 then {then} end\n    for player, points in scoring.points do"
            ),
        ),
        _ => text,
    }
}

#[test]
fn state_kept_from_game_to_game_is_found_by_playing_games_again_on_their_own() {
    let (_mods, dir) = template_copy("leaky", "chapels", counting_monasteries("out:set_storage(\"scored\", scored)"));
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("expansion.toml:22: random game "), "{found:#?}");
    assert!(
        found[0].contains(" others on the same load of the mod, went otherwise than played on its own"),
        "{found:#?}"
    );
    assert!(found[0].contains("keeps state between hook calls"), "{found:#?}");
    // A failure that comes only after other games is told as such, not only as the failure.
    let (_mods, dir) = template_copy("leaky-failing", "chapels", counting_monasteries("error(\"too many\")"));
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("expansion.toml:22: a random game (seed "), "{found:#?}");
    assert!(found[0].contains("fails only after other games (seeds 1 to "), "{found:#?}");
    assert!(found[0].contains("plays through on its own: the code keeps state"), "{found:#?}");
    assert!(found[0].ends_with("too many"), "{found:#?}");
}

#[test]
fn state_no_game_shows_is_found_in_the_variables_that_keep_it() {
    // A count that would change the game only past a million monasteries: every game goes
    // alike, but the local changed, and is named at the line that declares it.
    let (_mods, dir) = template_copy("unseen", "chapels", move |name, text| {
        counting_monasteries("return")(name, text).replace("scored > 20", "scored > 1000000")
    });
    let found = problems(&dir);
    let line = line_of(&dir.join("init.luau"), "local scored = 0");
    let handler = line_of(&dir.join("init.luau"), "meeple.on(\"modify_score\"");
    assert_eq!(
        found,
        [format!(
            "init.luau:{line}: `scored`, a local that the `modify_score` handler (init.luau:{handler}) uses, changed \
             while the random games were played: the code keeps state between hook calls (in a local of its file, a \
             global or a module's table?); keep what a game needs in its storage"
        )]
    );
    // A global, set by a hook and read by none.
    let (_mods, dir) = template_copy("unseen-global", "chapels", |name, text| match name {
        "init.luau" => text.replace(
            "    for player, points in scoring.points do",
            "    SCORED = (rawget(_G, \"SCORED\") or 0) + 1\n    for player, points in scoring.points do",
        ),
        _ => text,
    });
    let found = problems(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("expansion.toml:22: the global `SCORED` was set while the random games were played: ")
    );
}

#[test]
fn empty_and_repeated_names_in_lists_are_refused() {
    let (_mods, dir) = template_copy("lists", "chapels", |name, text| match name {
        "expansion.toml" => {
            text.replace("api = 1\n", "api = 1\ncategories = [\"\", \"chapels\", \"chapels\"]\n").replace(
                "tileset = \"tiles.toml\"         # tiles of its own, beside this file\n",
                "tileset = \"tiles.toml\"\nwith = [\"chapels\"]\n",
            ) + "\n[options.colour]\ntype = \"enum\"\nvalues = [\"red\", \"red\"]\ndefault = \"red\"\n"
        }
        _ => text,
    });
    let found = problems(&dir);
    assert_eq!(
        found,
        [
            "expansion.toml:9: `categories` holds an empty name",
            "expansion.toml:9: `categories` names `chapels` twice",
            "expansion.toml:14: `with` names the expansion itself",
            "expansion.toml:28: `values` names `red` twice",
        ]
    );
}

#[test]
fn a_missing_dependency_shows_with_the_mods_own_problems() {
    let (_mods, dir) = template_copy("missing-dependency", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("depends = [\"base\"]", "depends = [\"base\", \"nothere\"]").replacen(
            "tileset = \"tiles.toml\"",
            "tileset = \"tiles.toml\"\nwith = [\"spectre\"]",
            1,
        ),
        _ => format!("local x = = 1\n{text}"),
    });
    let found = problems(&dir);
    let depends = line_of(&dir.join("expansion.toml"), "nothere");
    assert!(
        found.contains(&format!("expansion.toml:{depends}: `chapels` depends on `nothere`, which is not installed")),
        "{found:#?}"
    );
    let with = line_of(&dir.join("expansion.toml"), "spectre");
    assert!(
        found.contains(&format!(
            "expansion.toml:{with}: edition `default` brings along `spectre` (`with`), which is not installed"
        )),
        "{found:#?}"
    );
    assert!(found.iter().any(|f| f.starts_with("init.luau:1: ")), "{found:#?}");
}

#[test]
fn a_missing_library_shows_with_the_manifests_own_problems() {
    let (_mods, dir) = template_copy("missing-library", "chapels", |name, text| match name {
        "expansion.toml" => text
            .replace("api = 1", "api = 1\ncolour = \"red\"")
            .replace("[script]\nentry = \"init.luau\"", "[native]\nlibrary = \"chapels_nowhere\""),
        _ => text,
    });
    let found = problems(&dir);
    let manifest = dir.join("expansion.toml");
    let (colour, library) = (line_of(&manifest, "colour"), line_of(&manifest, "chapels_nowhere"));
    assert!(
        found.iter().any(|f| f.starts_with(&format!("expansion.toml:{colour}: unknown key `colour`"))),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|f| f.starts_with(&format!("expansion.toml:{library}: native library `libchapels_nowhere"))
            || f.starts_with(&format!("expansion.toml:{library}: native library `chapels_nowhere"))),
        "{found:#?}"
    );
}

#[test]
fn code_named_as_it_cannot_be_is_told_so_and_not_also_missing() {
    // A library given as a file is not then looked for under a name made of the file's.
    let (_mods, dir) = template_copy("library-as-file", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("[script]\nentry = \"init.luau\"", "[native]\nlibrary = \"libchapels.so\""),
        _ => text,
    });
    let library = line_of(&dir.join("expansion.toml"), "libchapels.so");
    assert_eq!(
        problems(&dir),
        [format!(
            "expansion.toml:{library}: `library = \"libchapels.so\"`: give the bare name, as `library = \"chapels\"` \
             for libchapels.so or chapels.dll"
        )]
    );
    // Only `.luau` files are scripts: `init.lua` is not told missing when it is there.
    let (_mods, dir) = template_copy("entry-lua", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("entry = \"init.luau\"", "entry = \"init.lua\""),
        _ => text,
    });
    std::fs::rename(dir.join("init.luau"), dir.join("init.lua")).unwrap();
    let entry = line_of(&dir.join("expansion.toml"), "init.lua");
    assert_eq!(
        problems(&dir),
        [format!(
            "expansion.toml:{entry}: `entry = \"init.lua\"`: a script is a Luau file, whose name ends in `.luau`"
        )]
    );
}

#[test]
fn an_edition_made_for_one_the_other_expansion_lacks_is_refused() {
    let (_mods, dir) = template_copy("made-for", "chapels", |name, text| match name {
        "expansion.toml" => text.replace(
            "tileset = \"tiles.toml\"",
            "tileset = \"tiles.toml\"\nmade_for = [{ expansion = \"base\", editions = [\"C2\", \"c3\"] }, \
             { expansion = \"not-yet-written\", editions = [\"X\"] }]",
        ),
        _ => text,
    });
    let line = line_of(&dir.join("expansion.toml"), "made_for");
    // An expansion that is not installed may come later: its editions are not known.
    assert_eq!(
        problems(&dir),
        [format!(
            "expansion.toml:{line}: `made_for`: `base` has no edition `c3`; did you mean `C3`? expected one of: C1, C2, C3"
        )]
    );
}

#[test]
fn option_values_made_for_that_the_other_expansion_lacks_are_refused() {
    let (_mods, dir) = template_copy("made-for-options", "chapels", |name, text| match name {
        "expansion.toml" => text.replace(
            "tileset = \"tiles.toml\"",
            "tileset = \"tiles.toml\"\nmade_for = [{ expansion = \"base-c1\", options = { farm_rule = [\"current\"], \
             tiny_city_scoring = [\"4\", \"3\"] } }, \
             { expansion = \"base\", options = { phase2_alternatives_exclusive = [\"true\"] } }]",
        ),
        _ => text,
    });
    let line = line_of(&dir.join("expansion.toml"), "made_for");
    assert_eq!(
        problems(&dir),
        [
            format!(
                "expansion.toml:{line}: `made_for`: `base-c1` has no option `farm_rule`; did you mean `farm_rules`? \
                 it has: tiny_city_scoring, farm_rules"
            ),
            format!(
                "expansion.toml:{line}: `made_for`: option `tiny_city_scoring` of `base-c1` has no value 3; it has: 2, 4"
            ),
            format!(
                "expansion.toml:{line}: `made_for`: option `phase2_alternatives_exclusive` of `base` is not an enum: \
                 `made_for` names values of enum options"
            ),
        ]
    );
}

#[test]
fn an_unknown_option_type_is_one_problem_with_the_type_meant() {
    let (_mods, dir) = template_copy("option-type", "chapels", |name, text| match name {
        "expansion.toml" => text.replace("type = \"int\"", "type = \"integer\""),
        _ => text,
    });
    let file = dir.join("expansion.toml");
    let line = line_of(&file, "type = \"integer\"");
    assert_eq!(
        problems(&dir),
        [format!("expansion.toml:{line}: option type `integer`: expected bool, int or enum; did you mean `int`?")],
        "its `min` and `max` are not also unknown"
    );
}

#[test]
fn names_are_given_once_and_an_impossible_option_is_one_problem() {
    let (_mods, dir) = template_copy("names", "chapels", |name, text| match name {
        "expansion.toml" => text
            .replace("depends = [\"base\"]", "depends = [\"base\"]\neditions = [\"\", \"default\"]")
            .replace("min = 0\nmax = 10", "min = 5\nmax = 1")
            .replace(
                "[script]",
                "[options.mode]\ntype = \"enum\"\nvalues = []\ndefault = \"x\"\n\n\
                 [[figures]]\nid = \"lamp\"\nstands_on = [\"city\", \"city\"]\n\n[script]",
            ),
        _ => text,
    });
    let found = problems(&dir);
    let file = dir.join("expansion.toml");
    let expect = [
        format!("expansion.toml:{}: `editions` holds an empty name", line_of(&file, "editions = [")),
        format!("expansion.toml:{}: `max = 1` is below `min = 5`", line_of(&file, "max = 1")),
        format!(
            "expansion.toml:{}: `values` is empty: an enum needs at least one value",
            line_of(&file, "values = []")
        ),
        format!("expansion.toml:{}: `stands_on` names `city` twice", line_of(&file, "stands_on")),
    ];
    assert_eq!(found, expect, "one problem each, no echo of a default that cannot fit");
}

#[test]
fn a_folder_where_a_file_is_named_is_called_a_folder() {
    let (_mods, dir) = template_copy("folders", "chapels", |_, text| text);
    for name in ["tiles.toml", "init.luau"] {
        std::fs::remove_file(dir.join(name)).unwrap();
        std::fs::create_dir(dir.join(name)).unwrap();
    }
    let found = problems(&dir);
    assert!(found.iter().any(|f| f.contains("tiles.toml` is a folder, not a file")), "{found:#?}");
    assert!(found.iter().any(|f| f.contains("the entry script `init.luau` is a folder")), "{found:#?}");
}

#[test]
fn an_entry_script_kept_under_lua_is_told_to_be_renamed() {
    let (_mods, dir) = template_copy("dot-lua", "chapels", |_, text| text);
    std::fs::rename(dir.join("init.luau"), dir.join("init.lua")).unwrap();
    let found = problems(&dir);
    let told = "the entry script `init.luau` does not exist in ";
    let hint = "; `init.lua` is there, but scripts are read only from `.luau` files: rename it";
    assert!(found.iter().any(|f| f.contains(told) && f.ends_with(hint)), "{found:#?}");
}

#[test]
fn more_games_reach_a_rare_failure_and_name_its_seed() {
    // A slip in one game of some two hundred: the default hundred games miss it more often than not.
    let script = "meeple.on(\"setup\", function(view, out)\n    if math.random(1000) <= 5 then\n        \
                  error(\"a rare slip\")\n    end\nend)\n";
    let root = meeple_tests::write_mods("check-games", &[("rare-slip", "depends = [\"base\"]", script)]);
    let dir = root.join("rare-slip");
    let report = meeple_host::check::check_mod_playing(&dir, &[], 5_000).expect_err("some game meets the slip");
    let message = &report.diagnostics[0].message;
    assert!(message.contains("a rare slip"), "{message}");
    assert_eq!(report.diagnostics[0].line, 3, "at the script's line: {message}");
    // The first game that fails is named: one game fewer passes.
    let seed: u64 = message
        .split("(seed ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no seed in: {message}"));
    assert!(seed > 1, "the first game already fails; pick a rarer slip");
    meeple_host::check::check_mod_playing(&dir, &[], seed - 1).expect("the games before it pass");
    let again = meeple_host::check::check_mod_playing(&dir, &[], seed).expect_err("its game fails");
    assert_eq!(again.diagnostics[0].message, *message);
}

#[test]
fn code_that_fails_only_with_another_option_value_or_edition_is_found() {
    // A slip in a branch that only a value other than the default takes.
    let manifest = "depends = [\"base\"]\neditions = [\"one\", \"two\"]\ndefault_edition = \"one\"\n\n\
                    [options.lenient]\ntype = \"bool\"\ndefault = false\n\n\
                    [options.style]\ntype = \"enum\"\nvalues = [\"plain\", \"fancy\", \"odd\"]\ndefault = \"plain\"\n";
    let script = "meeple.on(\"turn_end\", function(view, event, out)\n    \
                  if meeple.options.style == \"odd\" then error(\"an odd slip\") end\nend)\n";
    let root = meeple_tests::write_mods("check-variants", &[("styled", manifest, script)]);
    let report = meeple_host::check::check_mod(&root.join("styled"), &[]).expect_err("the odd style fails");
    let message = &report.diagnostics[0].message;
    assert!(message.contains("(seed 1, with style = \"odd\") stopped") && message.contains("an odd slip"), "{message}");
    assert_eq!(report.diagnostics[0].line, 2, "at the script's line: {message}");
    // The command that plays it again sets the option.
    let printed = message.split("printf '").nth(1).and_then(|r| r.split("' > styled-game.toml").next());
    let config = printed.unwrap_or_else(|| panic!("{message}")).replace("\\n", "\n");
    assert_eq!(config, "players = 2\n[[expansions]]\nid = \"styled\"\noptions = { style = \"odd\" }\n");
    let loaded = meeple_host::load::from_config_text("styled-game.toml", &config, std::slice::from_ref(&root)).unwrap();
    assert!(meeple_core::Game::new(loaded.rules.clone(), loaded.setup(1)).is_ok());

    // Every other setting is played: the other edition, then each option's other values.
    let fixed = script.replace("\"odd\"", "\"none\"");
    let root = meeple_tests::write_mods("check-variants-fixed", &[("styled", manifest, &fixed)]);
    let checked = meeple_host::check::check_mod(&root.join("styled"), &[]).unwrap();
    assert_eq!(checked.variants, vec!["edition two", "lenient = true", "style = \"fancy\"", "style = \"odd\""]);
}

#[test]
fn an_edition_is_played_with_the_editions_it_was_made_for() {
    // Edition `first` is made for the first base game, which is not the base game's default, and
    // for the first River, which the game does not play and so does not concern it.
    let manifest = "depends = [\"base\"]\neditions = [\"later\", \"first\"]\ndefault_edition = \"later\"\n\n\
                    [editions.first]\nmade_for = [{ expansion = \"base\", editions = [\"C1\"] }, \
                    { expansion = \"river\", editions = [\"C1\"] }]\n";
    let script = "meeple.on(\"turn_end\", function(view, event, out)\n    \
                  if meeple.edition == \"first\" then error(\"a first-edition slip\") end\nend)\n";
    let root = meeple_tests::write_mods("check-made-for", &[("old-rule", manifest, script)]);
    let report = meeple_host::check::check_mod(&root.join("old-rule"), &[]).expect_err("edition first fails");
    let message = &report.diagnostics[0].message;
    assert!(message.contains("(seed 1, with edition first) stopped"), "{message}");
    // Not told that it played with an edition it was not made for: its game is base C1's.
    assert!(!message.contains("made for"), "{message}");
    let printed = message.split("printf '").nth(1).and_then(|r| r.split("' > old-rule-game.toml").next());
    let config = printed.unwrap_or_else(|| panic!("{message}")).replace("\\n", "\n");
    assert_eq!(
        config,
        "players = 2\n[base]\nedition = \"C1\"\n[[expansions]]\nid = \"old-rule\"\nedition = \"first\"\n"
    );
    let loaded =
        meeple_host::load::from_config_text("old-rule-game.toml", &config, std::slice::from_ref(&root)).unwrap();
    assert!(loaded.warnings().is_empty(), "{:?}", loaded.warnings());
}

#[test]
fn a_failed_game_is_named_with_the_command_that_plays_it_again() {
    // A slip that only some games reach: a road of more than five tiles scored.
    let script = "meeple.on(\"modify_score\", function(view, scoring, out)\n    \
                  if scoring.kind == \"road\" and scoring.tiles > 5 then error(\"a long road\") end\nend)\n";
    let root = meeple_tests::write_mods("check-again", &[("long-road", "depends = [\"base\"]", script)]);
    let report = meeple_host::check::check_mod_playing(&root.join("long-road"), &[], 200)
        .expect_err("some game has a long road");
    let message = &report.diagnostics[0].message;
    let seed: u64 = message.split("(seed ").nth(1).and_then(|r| r.split(')').next()?.parse().ok()).unwrap();
    let command = format!("--seed {seed} --bots random long-road-game.toml");
    assert!(message.contains(&command) && message.contains("&& meeple play --mods "), "{message}");
    // What that command does: the config it writes, the seed, a random bot in each seat seeded
    // as `meeple play` seats them. It meets the same slip.
    let printed = message.split("printf '").nth(1).and_then(|r| r.split("' > long-road-game.toml").next());
    let config = printed.unwrap_or_else(|| panic!("{message}")).replace("\\n", "\n");
    assert_eq!(config, "players = 2\n[[expansions]]\nid = \"long-road\"\n");
    // In a folder named otherwise than the mod, which a script's own places do not show.
    let renamed = root.join("renamed");
    std::fs::rename(root.join("long-road"), &renamed).unwrap();
    let loaded =
        meeple_host::load::from_config_text("long-road-game.toml", &config, std::slice::from_ref(&root)).unwrap();
    let mut game = meeple_core::Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
    let mut bots: Vec<_> =
        (0..2).map(|p| meeple_core::bots::RandomBot::new(meeple_core::bots::seat_seed(seed, p))).collect();
    let stopped = loop {
        let Some(p) = game.to_act() else { panic!("the game played again did not fail") };
        let action = meeple_core::bots::Bot::choose(&mut bots[p as usize], &game);
        if let Err(e) = game.apply(action) {
            break e;
        }
    };
    let text = stopped.to_string();
    assert!(text.contains("a long road") && message.contains(&text), "{text}\nagainst\n{message}");
    // What `meeple play` shows beside it: the line as a path an editor opens.
    let meeple_core::ActionError::Hook(hook) = &stopped else { panic!("{stopped:?}") };
    assert_eq!(hook.location.as_deref(), Some("long-road/init.luau:2"));
    let file = loaded.file_of(hook).expect("a file");
    assert!(file.ends_with("renamed/init.luau:2"), "{file}");
}

#[test]
fn a_folder_that_is_no_mod_is_told_so_with_the_mods_inside_it() {
    let root = meeple_tests::write_mods("check-not-a-mod", &[("one", "", ""), ("two", "", "")]);
    let (one, two) = (root.join("one"), root.join("two"));
    let said = format!(
        "check-not-a-mod:0: not a mod folder: it has no expansion.toml; the mods in it: {}, {}",
        one.display(),
        two.display()
    );
    assert_eq!(problems(&root), [said]);
    assert_eq!(problems(&root.join("three")), ["three:0: no such folder"]);
    // A file beside a manifest (the manifest itself, a game config) is checked with its mod.
    let said = format!(
        "expansion.toml:0: not a folder: a mod is a folder with an expansion.toml (`meeple check {}` checks the \
         mod and the game configs beside its manifest)",
        one.display()
    );
    assert_eq!(problems(&root.join("one/expansion.toml")), [said]);
}

#[cfg(unix)]
#[test]
fn a_manifest_linked_to_a_file_that_is_gone_is_told_as_the_link_it_is() {
    let root = meeple_tests::write_mods("check-dangling-link", &[]);
    let linked = root.join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(root.join("gone.toml"), linked.join("expansion.toml")).unwrap();
    assert_eq!(
        problems(&linked),
        [format!(
            "expansion.toml:0: its expansion.toml is a link to {}, which does not exist",
            root.join("gone.toml").display()
        )]
    );
}

/// A fresh folder of mods for `meeple new` (`new_mod::create`), lasting as long as the `TempDir`.
fn new_mods_folder(test: &str) -> (TempDir, PathBuf) {
    let tmp = tempfile::Builder::new().prefix(&format!("meeple-new-{test}-")).tempdir().unwrap();
    let mods = tmp.path().to_path_buf();
    (tmp, mods)
}

#[test]
fn a_new_mod_from_the_template_checks_passes_its_test_and_plays_its_rule() {
    use meeple_host::new_mod;
    let (_tmp, mods) = new_mods_folder("sound");
    let dir = mods.join("chapels");
    let made = new_mod::create(&new_mod::template_dir(), &dir, None, &[]).unwrap();
    assert_eq!(made.id, "chapels", "the id is the folder's name");
    let names: Vec<String> =
        made.files.iter().map(|f| f.strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/")).collect();
    assert_eq!(names, ["expansion.toml", "init.luau", "tests/chapel-beside-city.toml", "tiles.toml", "game.toml"]);
    // The manifest's comment on the id keeps its column, as in the template.
    let column = |text: &str| text.lines().find(|l| l.starts_with("id = ")).and_then(|l| l.find('#'));
    let template = std::fs::read_to_string(new_mod::template_dir().join("expansion.toml")).unwrap();
    let manifest = std::fs::read_to_string(dir.join("expansion.toml")).unwrap();
    assert_eq!(column(&manifest), column(&template), "{manifest}");
    // It is an expansion of its own: it checks without clashing with the built-in template.
    let checked = meeple_host::check::check_mod(&dir, &[]).unwrap();
    assert_eq!(checked.manifest.id, "chapels");
    assert_eq!(checked.hooks, Some(vec!["modify_score"]));
    assert_eq!(checked.configs, [made.game()], "its game config is loaded with it");
    // Its scenario plays the copy (a monastery beside a completed city: 5 points, not 3).
    let scenario = dir.join("tests/chapel-beside-city.toml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    assert!(text.contains("id = \"chapels\"") && !text.contains("template"), "{text}");
    let with_copy = |c: &meeple_host::GameConfig| meeple_host::load::from_config(c, std::slice::from_ref(&mods));
    meeple_host::scenario::run_scenario(&scenario, &with_copy).unwrap();
    // Its game config plays the base game with it.
    let loaded = meeple_host::load::from_config_file(&made.game(), std::slice::from_ref(&mods)).unwrap();
    let ids: Vec<&str> = loaded.selected.iter().map(|s| s.manifest.id.as_str()).collect();
    assert_eq!(ids, ["base", "chapels"]);
}

#[test]
fn a_game_config_beside_the_manifest_is_checked_as_play_would_load_it() {
    use meeple_host::new_mod;
    let (_tmp, mods) = new_mods_folder("configs");
    let dir = mods.join("chapels");
    let made = new_mod::create(&new_mod::template_dir(), &dir, None, &[]).unwrap();
    let game = std::fs::read_to_string(made.game()).unwrap();
    // A config that misspells a key and names an option the mod lacks: both at their lines.
    let broken =
        game.replace("seed = 3", "sed = 3").replace("id = \"chapels\"", "id = \"chapels\"\noptions = { bonsu = 3 }");
    std::fs::write(made.game(), &broken).unwrap();
    // A second config, and a native crate's Cargo.toml, which is no config and is left alone.
    std::fs::write(dir.join("three.toml"), "players = [\"Ann\", \"Bob\", \"Cy\", \"Di\", \"Ed\", \"Flo\", \"Gus\"]\n")
        .unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"chapels\"\n").unwrap();
    let found = problems(&dir);
    let at = |file: &str, text: &str| line_of(&dir.join(file), text);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[0].starts_with(&format!("game.toml:{}: unknown key `sed`", at("game.toml", "sed = 3"))),
        "{found:#?}"
    );
    assert!(found[1].starts_with(&format!("game.toml:{}: ", at("game.toml", "bonsu"))), "{found:#?}");
    assert!(found[1].contains("bonsu") && found[1].contains("bonus"), "the option meant is named: {found:#?}");
    assert!(found[2].starts_with("three.toml:1: "), "{found:#?}");
    // With a broken script too, the mod cannot load, but the config's own slips are told with it.
    let script = std::fs::read_to_string(dir.join("init.luau")).unwrap();
    std::fs::write(dir.join("init.luau"), format!("local x = = 1\n{script}")).unwrap();
    let found = problems(&dir);
    assert!(found.iter().any(|f| f.starts_with("init.luau:1: ")), "{found:#?}");
    assert!(found.iter().any(|f| f.contains("unknown key `sed`")), "{found:#?}");
    std::fs::write(dir.join("init.luau"), script).unwrap();
    // Mended, both load and are listed; the Cargo.toml is not.
    std::fs::write(made.game(), &game).unwrap();
    std::fs::write(dir.join("three.toml"), "players = [\"Ann\", \"Bob\", \"Cy\"]\n[[expansions]]\nid = \"chapels\"\n")
        .unwrap();
    let checked = meeple_host::check::check_mod(&dir, &[]).unwrap();
    assert_eq!(checked.configs, [made.game(), dir.join("three.toml")]);
}

#[test]
fn a_new_mod_is_refused_for_a_used_folder_or_a_taken_or_bad_id_and_nothing_is_written() {
    use meeple_host::new_mod::{create, template_dir};
    let (_tmp, mods) = new_mods_folder("refused");
    let used = mods.join("used");
    std::fs::create_dir_all(&used).unwrap();
    std::fs::write(used.join("notes.txt"), "mine").unwrap();
    let why = create(&template_dir(), &used, None, &[]).unwrap_err();
    assert!(why.ends_with("used exists and is not an empty folder: give a new one"), "{why}");
    assert_eq!(std::fs::read_dir(&used).unwrap().count(), 1, "the folder is as it was");
    assert_eq!(std::fs::read_to_string(used.join("notes.txt")).unwrap(), "mine");

    let why = create(&template_dir(), &mods.join("My Mod"), None, &[]).unwrap_err();
    assert!(why.starts_with("`My Mod` (the folder's name) cannot be an expansion's id"), "{why}");
    for taken in ["traders-builders", "template"] {
        let why = create(&template_dir(), &mods.join("x"), Some(taken), &[]).unwrap_err();
        assert!(why.starts_with(&format!("an expansion `{taken}` is installed already")), "{why}");
    }
    // A mod beside the new folder counts as installed: `check` and `test` would find both.
    create(&template_dir(), &mods.join("first"), None, &[]).unwrap();
    let why = create(&template_dir(), &mods.join("second"), Some("first"), &[]).unwrap_err();
    assert!(why.starts_with("an expansion `first` is installed already"), "{why}");
    let mut left: Vec<String> =
        std::fs::read_dir(&mods).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["first", "used"], "no folder was made for a refused mod");

    // A template without an id line to replace gives no copy.
    let bad = mods.join("bad-template");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("expansion.toml"), "[expansion]\nid=\"template\"\n").unwrap();
    let why = create(&bad, &mods.join("other"), None, &[]).unwrap_err();
    assert!(why.contains("has no line `id = \"template\"`"), "{why}");
    assert!(!mods.join("other").exists());
    // One whose copy does not read is taken away again, with the folders made for it.
    std::fs::write(bad.join("expansion.toml"), "[expansion]\nid = \"template\"\n").unwrap();
    let why = create(&bad, &mods.join("deep/er/other"), None, &[]).unwrap_err();
    assert!(why.starts_with("the template's copy does not read"), "{why}");
    assert!(!mods.join("deep").exists(), "the folders made for it are gone");

    // A folder named as `.` is the folder itself: its name is the id, and the mods beside it
    // are those of the folder above.
    let dots = mods.join("dots");
    std::fs::create_dir_all(&dots).unwrap();
    let why = create(&template_dir(), &dots.join("."), Some("first"), &[]).unwrap_err();
    assert!(why.starts_with("an expansion `first` is installed already"), "{why}");
    assert_eq!(create(&template_dir(), &dots.join("."), None, &[]).unwrap().id, "dots");
}

#[test]
fn a_new_native_plugin_is_the_guides_under_its_own_id_in_a_crate_of_its_own() {
    use meeple_host::new_mod::{create_native, native_template_dir};
    let (_tmp, mods) = new_mods_folder("native");
    let dir = mods.join("bridges");
    let made = create_native(&native_template_dir(), &dir, None, &[]).unwrap();
    let names: Vec<String> =
        made.files.iter().map(|f| f.strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/")).collect();
    assert_eq!(names, ["expansion.toml", "src/lib.rs", "tests/six-tile-road.toml", "Cargo.toml", "game.toml"]);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    // The crate names the id, builds on this tree's SDK, and is a workspace of its own.
    let cargo: toml::Table = read("Cargo.toml").parse().unwrap();
    assert_eq!(cargo["package"]["name"].as_str(), Some("bridges"));
    let sdk = cargo["dependencies"]["meeple-plugin-sdk"]["path"].as_str().unwrap();
    assert!(std::path::Path::new(sdk).join("Cargo.toml").is_file(), "{sdk}");
    assert!(cargo.contains_key("workspace"));
    // The manifest names the library the crate makes; the code and the scenario the new id.
    let manifest =
        meeple_host::manifest::Manifest::parse(&dir.join("expansion.toml"), &read("expansion.toml")).unwrap();
    assert_eq!(
        (manifest.id.as_str(), &manifest.entry),
        ("bridges", &meeple_host::manifest::Entry::Native("bridges".into()))
    );
    let code = read("src/lib.rs");
    assert_eq!(code.matches("\"bridges\"").count(), 2, "fn id and declare_plugin!");
    assert!(!code.contains("long-roads") && !code.starts_with("//!"), "{code}");
    assert!(read("tests/six-tile-road.toml").contains("id = \"bridges\""));
    // A dash in the id is an underscore in the library's name; a leading digit names no crate.
    let made = create_native(&native_template_dir(), &mods.join("rope-bridges"), None, &[]).unwrap();
    assert!(std::fs::read_to_string(made.dir.join("expansion.toml")).unwrap().contains("library = \"rope_bridges\""));
    let why = create_native(&native_template_dir(), &mods.join("2nd"), None, &[]).unwrap_err();
    assert!(why.contains("must start with a letter"), "{why}");
    assert!(!mods.join("2nd").exists());
}

#[test]
fn a_misspelt_dependency_gets_a_hint_and_problems_come_in_line_order() {
    let (_mods, dir) = template_copy("depends-slip", "chapels", |name, text| match name {
        "expansion.toml" => {
            text.replace("depends = [\"base\"]", "depends = [\"bsae\"]").replace("type = \"int\"", "type = \"str\"")
        }
        _ => text,
    });
    let found = problems(&dir);
    let (depends, ty) = (line_of(&dir.join("expansion.toml"), "bsae"), line_of(&dir.join("expansion.toml"), "\"str\""));
    assert!(depends < ty);
    assert_eq!(
        found,
        [
            format!(
                "expansion.toml:{depends}: `chapels` depends on `bsae`, which is not installed; did you mean `base`?"
            ),
            format!("expansion.toml:{ty}: option type `str`: expected bool, int or enum; did you mean `enum`?"),
        ]
    );
}

#[test]
fn a_hook_registered_only_under_an_option_is_counted_in_the_games_of_that_setting() {
    let manifest = "depends = [\"base\"]\n\n[options.extra]\ntype = \"bool\"\ndefault = false\n";
    let script = "meeple.on(\"turn_end\", function(view, event, out) end)\n\
                  if meeple.options.extra then\n    meeple.on(\"feature_scored\", function(view, event, out) end)\nend\n";
    let root = meeple_tests::write_mods("check-option-hooks", &[("sometimes", manifest, script)]);
    let checked = meeple_host::check::check_mod(&root.join("sometimes"), &[]).unwrap();
    let games: Vec<_> = checked.hook_use.iter().map(|u| (u.hook.name(), u.games)).collect();
    assert_eq!(games, [("feature_scored", 20), ("turn_end", 120)], "{:?}", checked.hook_use);
    let idle = checked.warnings.iter().find(|w| w.contains("never gave a command")).expect("both idle");
    assert!(
        idle.starts_with("`feature_scored` (in 20 random games) and `turn_end` (in 120 random games) were called and"),
        "{idle}"
    );
}

#[test]
fn a_mod_without_code_is_loaded_in_each_of_its_editions() {
    // Tiles alone, in two editions, the second of which has no tileset for the start tile.
    let (_mods, dir) = template_copy("codeless", "chapels", |name, text| match name {
        "expansion.toml" => {
            text.replace("[script]\nentry = \"init.luau\"\n", "")
                .replace("depends = [\"base\"]", "depends = [\"base\"]\neditions = [\"A\", \"B\"]")
                .replace("[editions.default]", "[editions.A]")
                .replace("tileset = \"tiles.toml\"", "tileset = \"tiles.toml\"\ntileset_edition = \"default\"")
                + "\n[draw]\nstart = \"chapel\"\n"
        }
        _ => text,
    });
    let line = line_of(&dir.join("expansion.toml"), "start = \"chapel\"");
    assert_eq!(
        problems(&dir),
        [format!("expansion.toml:{line}: with edition B: start tile `chapel`: edition `B` has no tileset of its own")]
    );
    // With the draw left alone, every setting loads; none is played, as there is no code.
    let manifest = std::fs::read_to_string(dir.join("expansion.toml")).unwrap();
    std::fs::write(dir.join("expansion.toml"), manifest.replace("\n[draw]\nstart = \"chapel\"\n", "")).unwrap();
    let checked = meeple_host::check::check_mod(&dir, &[]).unwrap();
    assert_eq!((checked.games, checked.variant_games), (0, 0));
    assert_eq!(checked.variants, ["edition B", "bonus = 0", "bonus = 10"]);
}
