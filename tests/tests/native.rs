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
    // Where it panicked: a file of the plugin's folder, named as a script's line is, and so
    // found on disk as one (`the failing line`).
    let at = e.location.as_deref().unwrap_or_default();
    assert!(at.starts_with("native-panicking/src/lib.rs:"), "where it panicked: {err}");
    assert!(!e.message.contains("(at "), "the place is not told twice: {err}");
    let file = loaded.file_of(e).expect("the failing line is a file");
    assert!(file.ends_with(&format!("plugins/fixtures/panicking/{}", &at["native-panicking/".len()..])), "{file}");
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
    assert!(err.contains("set the id in its `declare_plugin!` to the manifest's"), "{err}");
    // Another version as well: both are told at once.
    let text = std::fs::read_to_string(&manifest).unwrap().replace("version = \"0.1.0\"", "version = \"0.3.0\"");
    std::fs::write(&manifest, text).unwrap();
    let err = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_err().to_string();
    assert!(
        err.contains(
            "declares expansion `native-noop`, the manifest `renamed-noop`, and version 0.1.0, the manifest 0.3.0"
        ),
        "{err}"
    );
    assert!(err.contains("set the id and version in its `declare_plugin!`"), "{err}");
}

/// A game with the panicking plugin in one of its modes, its tile placed, and the error of
/// placing a figure on it (the game unchanged by it).
fn figure_placed_error(mode: &str) -> meeple_core::HookError {
    build_plugins();
    let text = format!(
        "players = 2\ndraw = [\"U\", \"U\", \"U\"]\n[[expansions]]\nid = \"native-panicking\"\noptions = {{ mode = \"{mode}\" }}\n"
    );
    let loaded = load_toml("panicking.toml", &text).unwrap_or_else(|r| panic!("{r}"));
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let before = game.state().hash();
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    assert_eq!(game.state().hash(), before, "the game is unchanged");
    let ActionError::Hook(e) = err else { panic!("expected a hook error, got {err}") };
    e
}

#[test]
fn a_panic_payload_that_panics_when_dropped_is_still_an_error() {
    let e = figure_placed_error("bad-payload");
    assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("native-panicking", "figure_placed"));
    assert_eq!(e.message, "the plugin panicked: a panic without a message", "{e}");
    assert!(e.location.as_deref().is_some_and(|l| l.starts_with("native-panicking/src/lib.rs:")), "{e}");
}

#[test]
fn an_error_a_plugin_places_with_here_is_named_at_its_line_in_the_plugins_folder() {
    let e = figure_placed_error("error");
    assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("native-panicking", "figure_placed"));
    assert_eq!(e.message, "this plugin refuses every figure", "{e}");
    let source = std::fs::read_to_string(meeple_tests::repo().join("plugins/fixtures/panicking/src/lib.rs")).unwrap();
    let line =
        source.lines().position(|l| l.contains("this plugin refuses every figure")).expect("the line that makes it")
            + 1;
    assert_eq!(e.location.as_deref(), Some(format!("native-panicking/src/lib.rs:{line}").as_str()), "{e}");
}

#[test]
fn a_command_the_host_refuses_is_named_at_the_plugins_line_that_gave_it() {
    let e = figure_placed_error("bad-command");
    assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("native-panicking", "figure_placed"));
    assert!(e.message.starts_with("invalid command: "), "{e}");
    assert!(e.message.contains("no-such-token"), "{e}");
    let source = std::fs::read_to_string(meeple_tests::repo().join("plugins/fixtures/panicking/src/lib.rs")).unwrap();
    let line =
        source.lines().position(|l| l.contains("out.push(Command::GiveTokens")).expect("the line that gives it") + 1;
    assert_eq!(e.location.as_deref(), Some(format!("native-panicking/src/lib.rs:{line}").as_str()), "{e}");
}

#[test]
fn a_panic_is_not_given_the_place_of_an_earlier_one() {
    // The plugin caught a panic of its own while taking the ruleset; the one it resumes later
    // has no place of its own to report.
    let e = figure_placed_error("resumed");
    assert_eq!(e.message, "the plugin panicked: resumed without the panic hook", "{e}");
}

#[test]
fn a_plugin_that_cannot_take_the_ruleset_keeps_the_game_from_starting() {
    build_plugins();
    let text = "players = 2\n[[expansions]]\nid = \"native-panicking\"\noptions = { mode = \"taking-rules\" }\n";
    let err = load_toml("panicking.toml", text).map(|_| ()).unwrap_err().to_string();
    // Told once, at the manifest's library, with the place of the panic.
    assert_eq!(err.lines().count(), 1, "{err}");
    let manifest = meeple_tests::repo().join("plugins/fixtures/panicking/expansion.toml");
    let line = meeple_tests::line_of(&manifest, "library = ");
    assert!(err.contains(&format!("panicking/expansion.toml:{line}:")), "{err}");
    let said = "the plugin panicked while taking the ruleset: this plugin cannot take a ruleset (attempt ";
    assert!(err.contains(said) && err.contains("(at plugins/fixtures/panicking/src/lib.rs:"), "{err}");
    assert!(err.ends_with("(while loading)"), "{err}");
}

#[test]
fn a_plugin_storing_a_value_nested_too_deep_is_told_the_limit() {
    let e = figure_placed_error("deep-storage");
    assert_eq!(
        e.message,
        "set_storage(\"deep\"): a stored value may nest at most 32 levels deep; this one nests deeper"
    );
}

#[test]
fn a_plugin_log_line_is_cut_at_4_kib() {
    build_plugins();
    let text =
        "players = 2\ndraw = [\"U\"]\n[[expansions]]\nid = \"native-panicking\"\noptions = { mode = \"long-log\" }\n";
    let loaded = load_toml("panicking.toml", text).unwrap_or_else(|r| panic!("{r}"));
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let events = game.apply(Action::Pass).unwrap();
    let line = events.iter().find_map(|e| match e {
        meeple_core::Event::Log { message, .. } => Some(message.clone()),
        _ => None,
    });
    assert_eq!(line, Some(format!("{}…", "x".repeat(4096))));
}

#[test]
fn a_plugin_releases_the_instance_of_a_ruleset_that_is_gone() {
    build_plugins();
    // A server makes a ruleset per game: each makes an instance in the plugin, which must go
    // with its ruleset. Other tests may hold instances meanwhile, so the bound is loose.
    let loaded = load_toml("noop.toml", &config("native-noop")).unwrap_or_else(|r| panic!("{r}"));
    let selected = loaded.selected.iter().find(|s| s.manifest.id == "native-noop").unwrap();
    let mut highest = 0;
    for _ in 0..200 {
        let made = meeple_host::native::NativeExpansion::load(selected, "meeple_fixture_noop").unwrap();
        highest = highest.max(made.instance());
    }
    assert!(highest < 50, "instances are numbered up to {highest}: released ones are not reused");
}

#[test]
fn a_library_of_another_version_than_its_manifest_is_refused() {
    build_plugins();
    let root = meeple_tests::write_mods("native-version", &[]);
    let dir = root.join("native-noop");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = std::fs::read_to_string(meeple_tests::repo().join("plugins/fixtures/noop/expansion.toml")).unwrap();
    std::fs::write(dir.join("expansion.toml"), manifest.replace("version = \"0.1.0\"", "version = \"0.2.0\"")).unwrap();
    let config = meeple_host::GameConfig::parse("t.toml", &config("native-noop")).unwrap();
    let err = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_err().to_string();
    assert!(err.contains("the library is version 0.1.0, the manifest 0.2.0"), "{err}");
}

#[test]
fn a_library_file_cut_short_or_not_a_library_is_refused_with_the_reason() {
    build_plugins();
    let root = meeple_tests::write_mods("native-files", &[]);
    let lib = std::env::consts::DLL_PREFIX.to_string() + "meeple_fixture_noop" + std::env::consts::DLL_SUFFIX;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| meeple_tests::repo().join("target"), Into::into);
    let built = target.join(if cfg!(debug_assertions) { "debug" } else { "release" });
    let whole = std::fs::read(built.join(&lib)).expect("the no-op plugin is built");
    let manifest = std::fs::read_to_string(meeple_tests::repo().join("plugins/fixtures/noop/expansion.toml")).unwrap();
    let load = |name: &str, bytes: &[u8]| {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let id = format!("noop-{name}");
        std::fs::write(dir.join("expansion.toml"), manifest.replace("\"native-noop\"", &format!("\"{id}\""))).unwrap();
        std::fs::write(dir.join(&lib), bytes).unwrap();
        let config = meeple_host::GameConfig::parse("t.toml", &config(&id)).unwrap();
        meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_err().to_string()
    };
    // Cut where the loader would read past the end of the file and crash the program.
    if cfg!(target_os = "linux") {
        // 100 000 bytes: into the segments the loader maps (the debug sections at the end are not).
        let err = load("cut", &whole[..100_000]);
        assert!(err.contains("the library is cut short: its headers describe "), "{err}");
    }
    let err = load("text", b"not a library\n");
    assert!(err.contains("cannot open: "), "{err}");
    assert!(!err.trim_end().ends_with("dlopen failed"), "the system's reason is given: {err}");
}

#[test]
fn an_expansion_whose_id_is_not_its_manifests_is_refused() {
    build_plugins();
    let text = "players = 2\n[[expansions]]\nid = \"native-panicking\"\noptions = { mode = \"wrong-id\" }\n";
    let err = load_toml("wrong-id.toml", text).unwrap_err().to_string();
    assert!(err.contains("`Expansion::id()` says `someone-else`, the manifest `native-panicking`"), "{err}");
}

#[test]
fn the_modding_guides_native_plugin_is_the_fixture_that_is_built_and_tested() {
    // The guide's plugin is `plugins/fixtures/long-roads`, below its header comment: built with
    // the other fixtures, and played by its scenario (`tests/scenarios.rs` runs it: a six-tile
    // road scores 6 and the bonus).
    let guide = std::fs::read_to_string(meeple_tests::repo().join("docs/modding.md")).unwrap();
    let from = guide.find("`mods/long-roads/src/lib.rs`").expect("the guide shows the whole plugin");
    let start = from + guide[from..].find("```rust\n").unwrap() + "```rust\n".len();
    let shown = &guide[start..start + guide[start..].find("```").unwrap()];
    let file = meeple_tests::repo().join("plugins/fixtures/long-roads/src/lib.rs");
    let fixture = std::fs::read_to_string(file).unwrap();
    let code: String =
        fixture.lines().skip_while(|l| l.starts_with("//!") || l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(shown, code, "docs/modding.md's native plugin differs from plugins/fixtures/long-roads/src/lib.rs");
}

/// A mod folder holding a manifest with `[native] library = "{library}"` and a crate whose
/// `Cargo.toml` names package `{package}`, as `meeple new --native` makes one.
fn mod_with_crate(root: &str, id: &str, library: &str, package: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = meeple_tests::write_mods(root, &[]);
    let dir = root.join(id);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = std::fs::read_to_string(meeple_tests::repo().join("plugins/fixtures/noop/expansion.toml")).unwrap();
    let manifest = manifest
        .replace("\"native-noop\"", &format!("\"{id}\""))
        .replace("library = \"meeple_fixture_noop\"", &format!("library = \"{library}\""));
    std::fs::write(dir.join("expansion.toml"), manifest).unwrap();
    let cargo = format!("[package]\nname = \"{package}\"\nversion = \"0.1.0\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n");
    std::fs::write(dir.join("Cargo.toml"), cargo).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "// the plugin\n").unwrap();
    (root, dir)
}

#[test]
fn a_library_not_found_is_named_from_the_crate_beside_the_manifest() {
    build_plugins();
    let load = |root: &std::path::Path, id: &str| {
        let config = meeple_host::GameConfig::parse("t.toml", &config(id)).unwrap();
        meeple_host::load::from_config(&config, &[root.to_path_buf()]).unwrap_err().to_string()
    };
    // The crate builds `bridges`, the manifest names another library.
    let (root, _) = mod_with_crate("native-crate-name", "bridges", "bridge", "bridges");
    let err = load(&root, "bridges");
    assert!(err.contains("bridges/Cargo.toml, builds `"), "{err}");
    assert!(err.contains("did you mean `library = \"bridges\"`?"), "{err}");
    // The names agree, and it is not built yet: the command that builds it, with its path.
    let (root, _) = mod_with_crate("native-unbuilt", "my-rule", "my_rule", "my-rule");
    let err = load(&root, "my-rule");
    assert!(err.contains("build it (`cargo build --release --manifest-path "), "{err}");
    assert!(err.contains("my-rule/Cargo.toml`)"), "{err}");
}

#[test]
fn a_library_older_than_its_crates_sources_or_hiding_a_newer_copy_is_told() {
    build_plugins();
    let lib = std::env::consts::DLL_PREFIX.to_string() + "meeple_fixture_noop" + std::env::consts::DLL_SUFFIX;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| meeple_tests::repo().join("target"), Into::into);
    let built = target.join(if cfg!(debug_assertions) { "debug" } else { "release" }).join(&lib);
    // A copy beside the manifest, an hour older than the build (and than the crate's sources).
    // Dated from the build, not the clock: Cargo leaves a build that is up to date as old as it is.
    let (root, dir) = mod_with_crate("native-stale", "native-noop", "meeple_fixture_noop", "meeple-fixture-noop");
    std::fs::copy(&built, dir.join(&lib)).unwrap();
    let built_at = std::fs::metadata(&built).and_then(|m| m.modified()).unwrap();
    let hour_before = built_at - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(dir.join(&lib)).unwrap().set_modified(hour_before).unwrap();
    let config = meeple_host::GameConfig::parse("t.toml", &config("native-noop")).unwrap();
    let loaded = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_or_else(|r| panic!("{r}"));
    // The copy beside the manifest is the one played, and the one named.
    let [(id, file)] = loaded.library_files().try_into().unwrap_or_else(|f| panic!("{f:?}"));
    assert_eq!((id, file.unwrap()), ("native-noop", dir.join(&lib)));
    let warnings = loaded.stale_libraries().join("\n");
    assert!(
        warnings.contains("was built before ") && warnings.contains("native-noop/src/lib.rs last changed"),
        "{warnings}"
    );
    assert!(warnings.contains("rebuild it (`cargo build --release --manifest-path "), "{warnings}");
    assert!(warnings.contains(&format!("{lib} is newer: the first folder of the search")), "{warnings}");
    // `meeple check` says so too, with the library it played.
    let checked = meeple_host::check::check_mod(&dir, &[]).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(checked.library.as_deref(), Some(dir.join(&lib).as_path()));
    assert!(checked.library_stale);
    // (after them, that some of the no-op's hooks are never called, there being no offers,
    // questions or turn parts, and the others never act, which is all it is made to do)
    let (stale, idle) = checked.warnings.split_at(2);
    assert_eq!(stale, loaded.stale_libraries());
    assert!(idle.len() == 2 && idle[0].contains("were never called"), "{idle:?}");
    assert!(idle[1].contains("never gave a command"), "{idle:?}");
    // Rebuilt after its sources last changed, into the later folder: only the copy is told
    // (rebuilding again would not reach the copy played).
    for source in [dir.join("src/lib.rs"), dir.join("Cargo.toml")] {
        let half_hour_before = built_at - std::time::Duration::from_secs(1800);
        std::fs::File::options().write(true).open(source).unwrap().set_modified(half_hour_before).unwrap();
    }
    let loaded = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_or_else(|r| panic!("{r}"));
    let [newer] = loaded.stale_libraries().try_into().unwrap_or_else(|w| panic!("{w:?}"));
    assert!(newer.contains(&format!("{lib} is newer: the first folder of the search")), "{newer}");
    // Rebuilt (a copy as new as its sources, and as the build): nothing to tell.
    std::fs::File::options()
        .write(true)
        .open(dir.join(&lib))
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    let loaded = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(loaded.stale_libraries(), Vec::<String>::new());
    assert!(!meeple_host::check::check_mod(&dir, &[]).unwrap_or_else(|r| panic!("{r}")).library_stale);
}

#[test]
fn a_manifest_keeps_the_library_it_first_found_though_a_newer_copy_appears() {
    build_plugins();
    let file = |name: &str| std::env::consts::DLL_PREFIX.to_string() + name + std::env::consts::DLL_SUFFIX;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| meeple_tests::repo().join("target"), Into::into);
    let build = target.join(if cfg!(debug_assertions) { "debug" } else { "release" });
    let (root, dir) = mod_with_crate("native-pinned", "native-noop", "meeple_fixture_noop", "meeple-fixture-noop");
    let lib = file("meeple_fixture_noop");
    std::fs::copy(build.join(&lib), dir.join(&lib)).unwrap();
    let config = meeple_host::GameConfig::parse("t.toml", &config("native-noop")).unwrap();
    meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_or_else(|r| panic!("{r}"));
    // A newer copy in `deps/`, which a search now finds first, and which is another plugin (it
    // declares `native-panicking`): a second load still plays the library it loaded.
    std::fs::create_dir_all(dir.join("deps")).unwrap();
    std::fs::copy(build.join(file("meeple_fixture_panicking")), dir.join("deps").join(&lib)).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(dir.join("deps").join(&lib)).unwrap().set_modified(later).unwrap();
    assert_eq!(meeple_host::native::locate("meeple_fixture_noop", &dir).unwrap(), dir.join("deps").join(&lib));
    let loaded = meeple_host::load::from_config(&config, std::slice::from_ref(&root)).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(loaded.rules.expansions().last().unwrap().id(), "native-noop");
}
