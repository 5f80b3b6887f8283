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
            ("loner", "depends = [\"absent\"]", ""),
            ("rival", "conflicts = [\"loner\"]", ""),
            ("solo", "", ""),
            ("needy", "depends = [\"solo\"]", ""),
        ],
    );
    let err =
        resolve(&root, "players = 2\n[[expansions]]\nid = \"ping\"\n[[expansions]]\nid = \"pong\"\n").unwrap_err();
    assert_eq!(err, "game.toml:3:6: dependency cycle among: ping → pong");

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
    let err = resolve(&root, "players = 2\n[[expansions]]\nid = \"needy\"\n").unwrap_err();
    assert_eq!(err, "game.toml:3:6: `needy` depends on `solo`; add it to the config's [[expansions]]");
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
    assert!(lines[4].starts_with("game.toml:7:6: unknown expansion `knob`; installed: base, "), "{err}");
    assert!(lines[4].contains(", knobs, "), "{err}");
    lines.remove(4);
    assert_eq!(
        lines,
        [
            "game.toml:4:11: `knobs` has no edition `C`; expected one of: A, B",
            "game.toml:5:21: option `level` expects an integer from 1 to 3",
            "game.toml:5:31: option `mode` expects one of: \"fast\", \"slow\"",
            "game.toml:5:50: unknown option `colour` for `knobs`; it has: level (an integer from 1 to 3), mode (one of: \"fast\", \"slow\")",
            "game.toml:9:6: expansion `knobs` is chosen twice",
            "game.toml:10:11: `knobs` has no edition `D`; expected one of: A, B",
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
}
