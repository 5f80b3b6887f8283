//! Native plugins: a panic inside a hook becomes an error and the game goes on unchanged; a
//! library for another ABI, or without the entry symbol, is refused with a clear message; the
//! remote view answers the plugin's questions.

use meeple_core::{Action, ActionError, Game, Pos, Rotation};
use meeple_tests::{build_plugins, load_toml, play_randomly};

fn config(id: &str) -> String {
    format!("players = 2\n[[expansions]]\nid = \"{id}\"\n")
}

#[test]
fn a_panic_in_a_plugin_hook_is_an_error_and_the_game_goes_on() {
    build_plugins();
    let text = "players = 2\ndraw = [\"U\", \"U\", \"U\"]\n[[expansions]]\nid = \"native-panicking\"\n";
    // With every log line wanted: the plugin logs while it takes the ruleset (at its first hook
    // call), outside any hook, and the host must drop that line rather than look for a call
    // that is not there.
    let logs = tracing_subscriber::fmt().with_max_level(tracing::Level::TRACE).with_writer(std::io::sink).finish();
    let _logging = tracing::subscriber::set_default(logs);
    let loaded = load_toml("panicking.toml", text).unwrap_or_else(|r| panic!("{r}"));
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let before = game.state().hash();
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    let ActionError::Hook(e) = &err else { panic!("expected a hook error, got {err}") };
    assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("native-panicking", "figure_placed"));
    assert!(e.message.contains("panicked: a figure was placed and this plugin cannot stand it"), "{err}");
    assert!(e.message.contains("(at plugins/fixtures/panicking/src/lib.rs:"), "where it panicked: {err}");
    assert_eq!(game.state().hash(), before, "the game is unchanged");
    game.apply(Action::Pass).unwrap();
    // The turn ended: the plugin asked the host how many tiles surround the start tile (1).
    let cat = game.rules().category("native-panicking").unwrap();
    assert_eq!(game.state().points(0, cat), 1);
    while !game.is_over() {
        let a = *game.legal_actions().last().unwrap();
        game.apply(a).unwrap();
    }
    assert_eq!(game.state().points(1, cat), 2, "Blue's turn ended with 2 tiles around the start tile");
}

#[test]
fn a_plugin_for_another_abi_is_refused() {
    build_plugins();
    let err = load_toml("wrong.toml", &config("native-wrong-abi")).unwrap_err().to_string();
    assert!(err.contains("built for plugin ABI v2; this meeple speaks ABI v1"), "{err}");
    // At the manifest's `library` line.
    let line =
        meeple_tests::line_of(&meeple_tests::repo().join("plugins/fixtures/wrong-abi/expansion.toml"), "library =");
    assert!(err.contains(&format!("plugins/fixtures/wrong-abi/expansion.toml:{line}:11")), "{err}");
}

#[test]
fn a_library_without_the_entry_symbol_is_refused() {
    build_plugins();
    let err = load_toml("none.toml", &config("native-no-entry")).unwrap_err().to_string();
    assert!(err.contains("not a meeple plugin: it lacks the entry symbol `meeple_plugin_v1`"), "{err}");
}

#[test]
fn a_no_op_plugin_on_every_hook_plays_whole_games() {
    build_plugins();
    let loaded = load_toml("noop.toml", &config("native-noop")).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(loaded.rules.expansions()[0].id(), "native-noop");
    for seed in 0..20 {
        play_randomly(&mut Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap(), seed);
    }
}

#[test]
fn a_library_named_as_a_file_or_with_dashes_gets_the_name_it_needs() {
    build_plugins();
    let root = meeple_tests::write_mods("native-names", &[]);
    let write = |id: &str, library: &str| {
        let dir = root.join(id);
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = format!(
            "[expansion]\nid = \"{id}\"\nname = \"x\"\nversion = \"1.0.0\"\napi = 1\ndepends = [\"base\"]\n\n[native]\nlibrary = \"{library}\"\n"
        );
        std::fs::write(dir.join("expansion.toml"), manifest).unwrap();
    };
    let load = |id: &str| {
        let config = meeple_host::GameConfig::parse("t.toml", &config(id)).unwrap();
        meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_err().to_string()
    };
    write("as-file", "libmeeple_fixture_noop.so");
    let err = load("as-file");
    assert!(err.contains("give the bare name, as `library = \"meeple_fixture_noop\"`"), "{err}");
    write("with-dashes", "meeple-fixture-noop");
    let err = load("with-dashes");
    assert!(err.contains("did you mean `library = \"meeple_fixture_noop\"`?"), "{err}");
}

#[test]
fn a_library_declaring_another_id_than_its_manifest_is_refused() {
    build_plugins();
    // The no-op library under another manifest: the host would know it as `renamed-noop`, its
    // `declare_plugin!` says `native-noop`. Refused at the `library` line, before the plugin runs.
    let root = meeple_tests::write_mods("native-renamed", &[("renamed-noop", "depends = [\"base\"]", "")]);
    let manifest = root.join("renamed-noop/expansion.toml");
    let text = std::fs::read_to_string(&manifest).unwrap() + "\n[native]\nlibrary = \"meeple_fixture_noop\"\n";
    std::fs::write(&manifest, text).unwrap();
    let config = meeple_host::GameConfig::parse("t.toml", &config("renamed-noop")).unwrap();
    let err = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_err().to_string();
    assert!(err.contains("renamed-noop/expansion.toml:9:11: "), "at the library line: {err}");
    assert!(err.contains("the library declares expansion `native-noop`, the manifest `renamed-noop`"), "{err}");
}
