//! Game configs resolved against installed expansions: every problem at once, located in the
//! config; dependency order; the ruleset hash in replays.

use meeple_host::GameConfig;
use meeple_host::load::from_config_with;
use meeple_tests::{TestCode, write_mods};

fn resolve(root: &std::path::Path, config: &str) -> Result<meeple_host::Loaded, String> {
    let (cfg, report) = GameConfig::parse_lenient("game.toml", config);
    assert!(report.is_empty(), "{report}");
    from_config_with(&cfg, &[root.to_path_buf()], &TestCode).map_err(|r| r.to_string())
}

#[test]
fn expansions_load_in_dependency_order_then_by_id() {
    let root = write_mods(
        "order",
        &[
            ("zeta", "depends = [\"base\"]", ""),
            ("alpha", "depends = [\"zeta\"]", ""),
            ("mid", "depends = [\"base\"]\noptional_depends = [\"alpha\"]", ""),
        ],
    );
    let cfg =
        "players = 2\n[[expansions]]\nid = \"mid\"\n[[expansions]]\nid = \"alpha\"\n[[expansions]]\nid = \"zeta\"\n";
    let loaded = resolve(&root, cfg).unwrap();
    let order: Vec<&str> = loaded.selected.iter().map(|s| s.manifest.id.as_str()).collect();
    assert_eq!(order, ["base", "zeta", "alpha", "mid"]);
}

#[test]
fn cycles_conflicts_and_missing_dependencies_are_located_errors() {
    let root = write_mods(
        "relations",
        &[
            ("ping", "depends = [\"pong\"]", ""),
            ("pong", "depends = [\"ping\"]", ""),
            ("tail", "depends = [\"ping\"]", ""),
            ("loner", "depends = [\"absent\"]", ""),
            ("rival", "conflicts = [\"loner\"]", ""),
            ("left", "conflicts = [\"right\"]", ""),
            ("right", "conflicts = [\"left\"]", ""),
            ("solo", "", ""),
            ("needy", "depends = [\"solo\"]", ""),
            ("needier", "depends = [\"needy\", \"base\"]", ""),
            ("lost", "depends = [\"loner\"]", ""),
        ],
    );
    let err =
        resolve(&root, "players = 2\n[[expansions]]\nid = \"ping\"\n[[expansions]]\nid = \"pong\"\n").unwrap_err();
    assert_eq!(err, "game.toml:3:6: dependency cycle: ping → pong → ping");
    // One that only waits on the cycle is not on it; the cycle is told where it is chosen.
    let tail =
        "players = 2\n[[expansions]]\nid = \"tail\"\n[[expansions]]\nid = \"pong\"\n[[expansions]]\nid = \"ping\"\n";
    assert_eq!(resolve(&root, tail).unwrap_err(), "game.toml:7:6: dependency cycle: ping → pong → ping");

    let err =
        resolve(&root, "players = 2\n[[expansions]]\nid = \"loner\"\n[[expansions]]\nid = \"rival\"\n").unwrap_err();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "game.toml:3:6: `loner` depends on `absent` ({}:6), which is not installed",
                meeple_host::paths::display_path(&root.join("loner/expansion.toml"))
            )
            .as_str(),
            "game.toml:5:6: `rival` conflicts with `loner`; they cannot be played together",
        ]
    );
    // Two that name each other are one conflict, told once.
    let err =
        resolve(&root, "players = 2\n[[expansions]]\nid = \"right\"\n[[expansions]]\nid = \"left\"\n").unwrap_err();
    assert_eq!(err, "game.toml:5:6: `left` conflicts with `right`; they cannot be played together");
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"needy\"\n").unwrap_err();
    assert_eq!(err, "game.toml:3:6: `needy` depends on `solo`; add it to the config's [[expansions]]");
    // What a dependency not chosen depends on is told with it, not once it is added.
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"needier\"\n").unwrap_err();
    assert_eq!(
        err,
        "game.toml:3:6: `needier` depends on `needy`; add it to the config's [[expansions]]\n\
         game.toml:3:6: `needier` depends on `solo` through `needy`; add it to the config's [[expansions]]"
    );
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"lost\"\n").unwrap_err();
    assert_eq!(
        err,
        format!(
            "game.toml:3:6: `lost` depends on `loner`; add it to the config's [[expansions]]\n\
             game.toml:3:6: `lost` depends on `absent` through `loner` ({}:6), which is not installed",
            meeple_host::paths::display_path(&root.join("loner/expansion.toml"))
        )
    );
    // One chosen already, or told as another's own dependency, is not told again.
    let both = "players = 2\n[[expansions]]\nid = \"needier\"\n[[expansions]]\nid = \"needy\"\n";
    assert_eq!(
        resolve(&root, both).unwrap_err(),
        "game.toml:5:6: `needy` depends on `solo`; add it to the config's [[expansions]]"
    );
}

#[test]
fn unknown_expansions_editions_and_options_are_reported_together() {
    let root = write_mods(
        "options",
        &[(
            "knobs",
            "depends = [\"base\"]\neditions = [\"A\", \"B\"]\n[options.level]\ntype = \"int\"\nmin = 1\nmax = 3\ndefault = 2\n[options.mode]\ntype = \"enum\"\nvalues = [\"fast\", \"slow\"]\ndefault = \"fast\"",
            "",
        )],
    );
    let cfg = "players = 2\n[[expansions]]\nid = \"knobs\"\nedition = \"C\"\noptions = { level = 5, mode = \"medium\", colour = true }\n[[expansions]]\nid = \"knob\"\n[[expansions]]\nid = \"knobs\"\nedition = \"D\"\n";
    let err = resolve(&root, cfg).unwrap_err();
    let mut lines: Vec<&str> = err.lines().collect();
    // The installed list also names every shipped expansion, which grows; check its start.
    // A likely slip is named; a far one (`colour`) is not.
    assert!(
        lines[4].starts_with("game.toml:7:6: unknown expansion `knob`; did you mean `knobs`? installed: abbot, base, "),
        "{err}"
    );
    assert!(lines[4].contains(", knobs, "), "{err}");
    lines.remove(4);
    assert_eq!(
        lines,
        [
            "game.toml:4:11: `knobs` has no edition `C`; expected one of: A, B",
            "game.toml:5:21: option `level` expects an integer from 1 to 3, not 5",
            "game.toml:5:31: option `mode` expects one of: \"fast\", \"slow\", not \"medium\"",
            "game.toml:5:41: unknown option `colour` for `knobs`; it has: level (1 to 3), mode (\"fast\" | \"slow\")",
            "game.toml:9:6: expansion `knobs` is chosen twice",
            "game.toml:10:11: `knobs` has no edition `D`; expected one of: A, B",
        ]
    );
}

#[test]
fn an_option_of_another_type_is_told_what_it_got_and_an_open_range_in_words() {
    let root = write_mods(
        "open-options",
        &[(
            "open",
            "depends = [\"base\"]\n[options.bonus]\ntype = \"int\"\nmin = 0\ndefault = 1\n[options.malus]\ntype = \"int\"\nmax = -1\ndefault = -1\n[options.on]\ntype = \"bool\"\ndefault = false",
            "",
        )],
    );
    let cfg =
        "players = 2\n[[expansions]]\nid = \"open\"\noptions = { bonus = \"3\", malus = 2, on = \"yes\", off = 1 }\n";
    let err = resolve(&root, cfg).unwrap_err();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            "game.toml:4:21: option `bonus` expects an integer, 0 or more, not \"3\"",
            "game.toml:4:34: option `malus` expects an integer, -1 or less, not 2",
            "game.toml:4:42: option `on` expects a boolean (true or false), not \"yes\"",
            "game.toml:4:49: unknown option `off` for `open`; it has: bonus (0 or more), malus (-1 or less), on (true | false)",
        ]
    );
}

#[test]
fn a_broken_manifest_is_reported_when_chosen() {
    let root = write_mods("broken", &[("cracked", "depends = [\"base\"]\nrequires = 3", "")]);
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"cracked\"\n").unwrap_err();
    // The manifest's problems come right under the config's line that chose it.
    let lines: Vec<&str> = err.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("game.toml:3:6: expansion `cracked` cannot be loaded; its manifest has problems:"));
    let next = lines.get(at.expect("the header") + 1).copied().unwrap_or_default();
    assert!(next.starts_with("  "), "{err}");
    assert!(
        next.contains(
            "cracked/expansion.toml:7:1: unknown key `requires` in [expansion]; expected one of: api, categories"
        ),
        "{err}"
    );
}

#[test]
fn a_broken_manifest_is_found_by_its_id_whatever_its_folder_is_named() {
    let root = write_mods("broken-by-id", &[("sound", "depends = [\"base\"]", "")]);
    // The id need not be the folder's name; and a copy of `sound` that does not load is a copy.
    for (folder, id) in [("my-work", "renamed"), ("sound-fork", "sound")] {
        let dir = root.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = format!("[expansion]\nid = \"{id}\"\nname = \"x\"\nversion = 1\napi = 1\n");
        std::fs::write(dir.join("expansion.toml"), manifest).unwrap();
    }
    let version = "/expansion.toml:4:11: `version` must be a string, found an integer";
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"renamed\"\n").unwrap_err();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert_eq!(lines[0], "game.toml:3:6: expansion `renamed` cannot be loaded; its manifest has problems:");
    assert!(lines[1].starts_with("  ") && lines[1].ends_with(&format!("my-work{version}")), "{err}");

    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"sound\"\n").unwrap_err();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("game.toml:3:6: expansion `sound` is installed more than once: "), "{err}");
    assert!(lines[0].ends_with("sound/expansion.toml, and a copy whose manifest has problems:"), "{err}");
    assert!(lines[1].starts_with("  ") && lines[1].ends_with(&format!("sound-fork{version}")), "{err}");
}

#[test]
fn a_manifest_whose_id_cannot_be_read_is_shown_when_an_unknown_expansion_is_chosen() {
    // A syntax error before the id: the manifest names no expansion, and its folder is not the id.
    let root = write_mods("unreadable-id", &[]);
    let dir = root.join("y");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("expansion.toml"), "[expansion\nid = \"x\"\n").unwrap();
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"x\"\n").unwrap_err();
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with("game.toml:3:6: unknown expansion `x`; "), "{err}");
    assert!(lines[0].ends_with("; manifests whose id could not be read (is it one of them?):"), "{err}");
    assert!(
        lines.iter().any(|l| l.ends_with("y/expansion.toml:1:11: TOML syntax: unclosed table, expected `]`")),
        "{err}"
    );
}

#[test]
fn one_folder_of_mods_reached_twice_installs_each_mod_once() {
    let root = write_mods("reached-twice", &[("sound", "depends = [\"base\"]", "")]);
    let dotted = root.join(".");
    let link = root.with_file_name("reached-twice-link");
    let _ = std::fs::remove_file(&link);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&root, &link).unwrap();
    let roots = [root.clone(), root.clone(), dotted, link];
    let (cfg, _) = GameConfig::parse_lenient("game.toml", "players = 2\n[[expansions]]\nid = \"sound\"\n");
    let loaded = from_config_with(&cfg, &roots, &TestCode).map_err(|r| r.to_string()).unwrap();
    let ids: Vec<&str> = loaded.selected.iter().map(|s| s.manifest.id.as_str()).collect();
    assert_eq!(ids, ["base", "sound"]);

    // Two folders that are not one stay two copies.
    let other = write_mods("reached-twice-other", &[("sound", "depends = [\"base\"]", "")]);
    let err = from_config_with(&cfg, &[root, other], &TestCode).map(|_| ()).unwrap_err().to_string();
    assert!(err.starts_with("game.toml:3:6: expansion `sound` is installed more than once: "), "{err}");
}

#[test]
fn rust_code_another_program_holds_is_a_located_error() {
    // The program's own loader knows no `[builtin]` code; the test crate's knows `hook-demo`.
    let config = GameConfig::parse("game.toml", "players = 2\n[[expansions]]\nid = \"hook-demo\"\n").unwrap();
    let mods = meeple_tests::test_mods();
    let err = meeple_host::load::from_config(&config, &mods).map(|_| ()).unwrap_err().to_string();
    // At the line that names the code.
    let line = meeple_tests::line_of(
        &meeple_tests::repo().join("tests/mods/hook-demo/expansion.toml"),
        "name = \"hook-demo\"",
    );
    assert!(
        err.contains(&format!(
            "hook-demo/expansion.toml:{line}:8: `hook-demo`: its code (`[builtin] name = \"hook-demo\"`) is Rust compiled into another program; this meeple does not contain it"
        )),
        "{err}"
    );
    assert!(from_config_with(&config, &mods, &TestCode).is_ok());
}

#[test]
fn the_ruleset_hash_changes_with_scripts_and_options_and_goes_into_replays() {
    let root = write_mods(
        "hashing",
        &[(
            "scripted",
            "depends = [\"base\"]\n[options.n]\ntype = \"int\"\ndefault = 1",
            "meeple.on(\"turn_end\", function() end)\n",
        )],
    );
    let cfg = |n: i64| format!("players = 2\n[[expansions]]\nid = \"scripted\"\noptions = {{ n = {n} }}\n");
    let a = resolve(&root, &cfg(1)).unwrap().rules.hash().to_string();
    let b = resolve(&root, &cfg(2)).unwrap().rules.hash().to_string();
    assert_ne!(a, b, "options are part of the ruleset");
    std::fs::write(root.join("scripted/init.luau"), "meeple.on(\"turn_end\", function(v, e, o) end)\n").unwrap();
    let c = resolve(&root, &cfg(1)).unwrap();
    assert_ne!(a, c.rules.hash(), "scripts are part of the ruleset");
    let game = meeple_core::Game::new(c.rules.clone(), c.setup(1)).unwrap();
    assert_eq!(game.replay().ruleset, c.rules.hash());
    // The replay keeps each expansion's part; the base game's did not change with the script.
    let parts = &game.replay().expansion_hashes;
    assert_eq!(parts.keys().collect::<Vec<_>>(), ["base", "scripted"]);
    let before = resolve(&root, &cfg(2)).unwrap();
    assert_eq!(before.rules.hash_parts()["base"], parts["base"]);
    assert_ne!(before.rules.hash_parts()["scripted"], parts["scripted"]);
    // A replay on rules whose script changed names the expansion.
    let err = meeple_core::Game::from_replay(before.rules.clone(), &game.replay()).err().expect("refused");
    assert!(err.to_string().ends_with("(the files, edition, options or tile numbers of `scripted` differ)"), "{err}");
    // A replay written without the parts is told as before.
    let mut old = game.replay();
    old.expansion_hashes.clear();
    let err = meeple_core::Game::from_replay(before.rules.clone(), &old).err().expect("refused");
    assert!(err.to_string().ends_with("(an expansion's files, edition, options or tile numbers differ)"), "{err}");
}

#[test]
fn one_bad_value_does_not_hide_the_rest_of_the_config() {
    let root = write_mods("bad-values", &[]);
    // A value of no option's type: its entry's edition and other options are still read, and an
    // unknown option is shown at its name.
    let cfg =
        "players = 2\n\n[[expansions]]\nid = \"river\"\nedition = \"C9\"\noptions = { u_turns = 1.5, nope = true }\n";
    let (cfg, report) = GameConfig::parse_lenient("game.toml", cfg);
    let mut lines: Vec<String> = report.to_string().lines().map(str::to_string).collect();
    lines.extend(
        from_config_with(&cfg, std::slice::from_ref(&root), &TestCode)
            .unwrap_err()
            .to_string()
            .lines()
            .map(str::to_string),
    );
    let at = |place: &str, what: &str| lines.iter().any(|l| l.starts_with(place) && l.contains(what));
    assert!(at("game.toml:5:11:", "has no edition `C9`"), "{lines:#?}");
    assert!(
        at("game.toml:6:23:", "option `u_turns`: a value is a boolean, an integer or a string, not a float"),
        "{lines:#?}"
    );
    assert!(at("game.toml:6:28:", "unknown option `nope`"), "{lines:#?}");

    // A problem with the chosen expansions does not hide the draw order's.
    let err = resolve(&root, "players = 2\ndraw = [\"nope\"]\n[base]\noptions = { meeples = 0 }\n").unwrap_err();
    assert!(err.contains("game.toml:2:9: draw order: no tile `nope`"), "{err}");
    assert!(err.contains("game.toml:4:23: "), "{err}");
}

#[test]
fn numbers_names_and_bytes_are_judged_each_on_its_own() {
    let parse = |text: &str| GameConfig::parse("game.toml", text).unwrap_err().to_string();
    // The smallest integer is read as what it is: a negative seed.
    let err = parse("seed = -9223372036854775808\n");
    assert!(err.starts_with("game.toml:1:8: ") && err.contains("negative"), "{err}");
    let err = parse("seed = 9223372036854775808\n");
    assert_eq!(err, "game.toml:1:8: `seed` is too large: at most 9223372036854775807");
    // Too few players, and a name that is no name: both.
    let err = parse("players = [1]\n");
    assert!(err.contains("game.toml:1:11: a game needs 2 to 6 players, not 1"), "{err}");
    assert!(err.contains("game.toml:1:12: `players` must hold names (strings), found an integer"), "{err}");

    // A byte-order mark is no column; a byte that is not UTF-8 is shown where it is.
    let dir = tempfile::Builder::new().prefix("meeple-bytes-").tempdir().unwrap();
    let bom = dir.path().join("bom.toml");
    std::fs::write(&bom, b"\xEF\xBB\xBFplayers = 1\n").unwrap();
    let err = meeple_host::load::read_config(&bom).unwrap_err().to_string();
    assert!(err.ends_with("bom.toml:1:11: a game needs 2 to 6 players, not 1"), "{err}");
    let latin1 = dir.path().join("latin1.toml");
    std::fs::write(&latin1, b"players = 2\nseed = 1\n[base]\nedition = \"C\xe9\"\n").unwrap();
    let err = meeple_host::load::read_config(&latin1).unwrap_err().to_string();
    assert!(err.ends_with("latin1.toml:4:13: byte 0xE9 is not UTF-8 (files are read as UTF-8)"), "{err}");
}

#[test]
fn a_start_tile_missing_from_the_chosen_edition_is_the_manifests_mistake() {
    let root = write_mods("start-edition", &[]);
    let dir = root.join("spring");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = "[expansion]\nid = \"spring\"\nname = \"Spring\"\nversion = \"0.1.0\"\napi = 1\n\
                    depends = [\"base\"]\neditions = [\"E1\", \"E2\"]\n\n[editions.E1]\ntileset = \"tiles.toml\"\n\
                    [editions.E2]\ntileset = \"tiles.toml\"\n\n[draw]\nstart = \"spring\"\n";
    let tiles = "[tileset]\nid = \"spring\"\nname = \"Spring\"\neditions = [\"E1\", \"E2\"]\n\n[[tiles]]\n\
                 id = \"spring\"\ncount = { E1 = 1 }\nsides = \"FFFF\"\nsegments = [\n  { id = \"f\", kind = \"field\", \
                 halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] },\n]\n";
    std::fs::write(dir.join("expansion.toml"), manifest).unwrap();
    std::fs::write(dir.join("tiles.toml"), tiles).unwrap();
    resolve(&root, "players = 2\n[[expansions]]\nid = \"spring\"\nedition = \"E1\"\n").expect("E1 has the spring");
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"spring\"\nedition = \"E2\"\n").unwrap_err();
    let file = meeple_host::paths::display_path(&dir.join("expansion.toml"));
    assert_eq!(err, format!("{file}:15:9: start tile `spring` has no copy in edition `E2` of tileset `spring`"));
}

#[test]
fn a_configs_own_seed_gives_its_game_and_setup_seeded_overrides_it() {
    let loaded = meeple_tests::load_toml("seeded.toml", "players = 2\nseed = 2000\n").unwrap();
    assert_eq!(loaded.setup(5).seed, 2000, "the config's seed");
    assert_eq!(loaded.setup_seeded(5).seed, 5, "the caller's seed");
    let unseeded = meeple_tests::load_toml("unseeded.toml", "players = 2\n").unwrap();
    assert_eq!(unseeded.setup(5).seed, 5);
}

#[test]
fn editions_not_made_for_each_other_are_played_with_a_warning() {
    let with_base = |edition: &str| {
        let text = format!("players = 2\n[base]\nedition = \"{edition}\"\n[[expansions]]\nid = \"tollkeepers\"\n");
        meeple_tests::load_toml("made-for.toml", &text).unwrap().warnings()
    };
    assert_eq!(
        with_base("C1"),
        ["The Tollkeepers C3 is made for Carcassonne C2 or C3, not C1: its tolls count the small illustrations of \
         the C2 and C3 tiles, which C1 tiles do not show; The Tollkeepers has no C1 edition"]
    );
    assert!(with_base("C2").is_empty() && with_base("C3").is_empty());
}

#[test]
fn the_pig_under_the_first_farm_rules_is_played_with_a_warning() {
    let with_farms = |rules: &str| {
        let text = format!(
            "players = 2\n[[expansions]]\nid = \"traders-builders\"\n[[expansions]]\nid = \"base-c1\"\n\
             options = {{ farm_rules = \"{rules}\" }}\n"
        );
        meeple_tests::load_toml("farms.toml", &text).unwrap().warnings()
    };
    let warned = with_farms("c1ed1");
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].starts_with(
            "Traders & Builders C3 is made for C1 scoring rules with farm_rules = current, not farm_rules = c1ed1: "
        ),
        "{warned:?}"
    );
    assert_eq!(with_farms("c1ed2").len(), 1);
    assert!(with_farms("current").is_empty());
}

#[test]
fn an_option_set_in_an_edition_it_does_not_play_in_is_a_warning_at_its_name() {
    let with = |edition: &str| {
        let text = format!(
            "players = 2\n[[expansions]]\nid = \"traders-builders\"\nedition = \"{edition}\"\n\
             options = {{ builder_chain_unlimited = true }}\n"
        );
        meeple_tests::load_toml("options.toml", &text).unwrap().warnings()
    };
    assert_eq!(
        with("C3.1"),
        ["options.toml:5:13: option `builder_chain_unlimited` of Traders & Builders plays only in C1, C1-revised, \
          C2, C3: in C3.1 it changes nothing"]
    );
    assert!(with("C3").is_empty() && with("C1").is_empty());
    // An option left at its default says nothing.
    let text = "players = 2\n[[expansions]]\nid = \"traders-builders\"\nedition = \"C3.1\"\n";
    assert!(meeple_tests::load_toml("options.toml", text).unwrap().warnings().is_empty());
}

#[test]
fn two_tilesets_of_one_id_are_named_both() {
    let tileset = "[editions.default]\ntileset = \"tiles.toml\"";
    let root = write_mods("tileset-ids", &[("chapels", tileset, ""), ("copy", tileset, "")]);
    let template = meeple_tests::repo().join("scripts/template/tiles.toml");
    for id in ["chapels", "copy"] {
        std::fs::copy(&template, root.join(id).join("tiles.toml")).unwrap();
    }
    let config = "players = 2\n[[expansions]]\nid = \"chapels\"\n[[expansions]]\nid = \"copy\"\n";
    let shown = |id: &str, file: &str| meeple_host::paths::display_path(&root.join(id).join(file));
    assert_eq!(
        resolve(&root, config).unwrap_err(),
        format!(
            "{}:7:11: tileset `template` ({}) has the id of `chapels`'s tileset {}: tilesets played together \
             need ids of their own, as the id names their tiles (`template:…`)",
            shown("copy", "expansion.toml"),
            shown("copy", "tiles.toml"),
            shown("chapels", "tiles.toml"),
        )
    );
}

#[test]
fn two_expansions_that_choose_the_tiles_drawn_first_cannot_be_played_together() {
    // A second river: its stack drawn first would silently replace The River's.
    let root = write_mods("second-river", &[("second-river", "depends = [\"base\"]\n\n[draw]\nfirst = \"river\"", "")]);
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"river\"\n[[expansions]]\nid = \"second-river\"\n")
        .unwrap_err();
    let manifest = root.join("second-river/expansion.toml");
    let line = meeple_tests::line_of(&manifest, "first = ");
    assert!(err.contains(&format!("expansion.toml:{line}:9: ")), "{err}");
    assert!(
        err.ends_with(
            "`second-river` and `river` both choose the tiles drawn first, and a game has one: play them apart, \
             or declare them in each other's `conflicts`"
        ),
        "{err}"
    );
    // Each alone is a game.
    resolve(&root, "players = 2\n[[expansions]]\nid = \"second-river\"\n").unwrap();
    resolve(&root, "players = 2\n[[expansions]]\nid = \"river\"\n").unwrap();
}

#[test]
fn a_draw_tag_no_tile_of_the_game_carries_is_a_warning_at_its_line() {
    // Drawn first by a tag, which may name other expansions' tiles: without them (or misspelt)
    // the game has no stack drawn first, and is told so.
    let draw = "depends = [\"base\"]\n\n[draw]\nfirst = \"rivr\"\nlast = \"lake\"";
    let root = write_mods("draw-tags", &[("misspelt", draw, "")]);
    let loaded = resolve(&root, "players = 2\n[[expansions]]\nid = \"misspelt\"\n").unwrap();
    let manifest = root.join("misspelt/expansion.toml");
    let shown = meeple_host::paths::display_path(&manifest);
    let (first, last) = (meeple_tests::line_of(&manifest, "first = "), meeple_tests::line_of(&manifest, "last = "));
    assert_eq!(
        loaded.warnings(),
        [
            format!("{shown}:{first}:9: no tile of this game is tagged `rivr`, so no tiles are drawn first"),
            format!(
                "{shown}:{last}:8: no tile of this game is tagged `lake`, so none of the tiles drawn first waits \
                 for the others"
            ),
        ]
    );
    // The River's own tags match its tiles: nothing to say.
    let river = meeple_tests::load_toml("river.toml", "players = 2\n[[expansions]]\nid = \"river\"\n").unwrap();
    assert!(river.warnings().is_empty(), "{:?}", river.warnings());
}
