//! Test support: loading configs with the test expansions, building the test plugins, and the
//! Rust test expansions `hook-demo`, `commander` and `rust-noop`. The scenario runner itself is
//! `meeple_host::scenario`.

pub mod commander;
pub mod demo;

use meeple_core::Expansion;
use meeple_host::ruleset::{Instantiate, Selected};
use meeple_host::{GameConfig, Loaded, load};
use meeple_toml::Report;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use meeple_host::scenario::{event_text, scenario_files};

/// Plays a game to its end with a random bot seeded with `seed`; any refused action fails the
/// test.
pub fn play_randomly(game: &mut meeple_core::Game, seed: u64) {
    use meeple_core::bots::Bot;
    let mut bot = meeple_core::bots::RandomBot::new(seed);
    while !game.is_over() {
        let a = bot.choose(game);
        game.apply(a).unwrap_or_else(|e| panic!("seed {seed}: legal action {a:?} refused: {e}"));
    }
}

/// Writes throwaway mods under the build folder: `(id, extra manifest lines, init.luau or "")`.
/// Returns the folder to pass as a mod root.
pub fn write_mods(root_name: &str, mods: &[(&str, &str, &str)]) -> PathBuf {
    let root = repo().join("target/test-mods").join(root_name);
    let _ = std::fs::remove_dir_all(&root);
    for (id, extra, script) in mods {
        let dir = root.join(id);
        std::fs::create_dir_all(&dir).unwrap();
        let mut manifest =
            format!("[expansion]\nid = \"{id}\"\nname = \"{id}\"\nversion = \"0.1.0\"\napi = 1\n{extra}\n");
        if !script.is_empty() {
            manifest.push_str("\n[script]\nentry = \"init.luau\"\n");
            std::fs::write(dir.join("init.luau"), script).unwrap();
        }
        std::fs::write(dir.join("expansion.toml"), manifest).unwrap();
    }
    root
}

/// Runs one scenario file with the test expansions available.
pub fn run_scenario(path: &Path) -> Result<(), String> {
    meeple_host::scenario::run_scenario(path, &load_config)
}

/// The repository's root folder.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The 1-based line of the first line of a file that contains `needle`: where a located error
/// must point.
pub fn line_of(file: &Path, needle: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let index = text.lines().position(|l| l.contains(needle));
    index.unwrap_or_else(|| panic!("`{needle}` is not in {}", file.display())) + 1
}

/// Folders of test-only expansions.
pub fn test_mods() -> Vec<PathBuf> {
    vec![repo().join("tests/mods"), repo().join("plugins/fixtures")]
}

/// Builds the plugin crates the tests load (once per test process), in this build's profile,
/// so that a fresh clone needs nothing but `cargo test`.
pub fn build_plugins() {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        let mut cmd = std::process::Command::new(env!("CARGO"));
        cmd.current_dir(repo()).args(["build", "--quiet"]);
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        for p in [
            "meeple-fixture-noop",
            "meeple-fixture-panicking",
            "meeple-fixture-wrong-abi",
            "meeple-fixture-no-entry",
            "meeple-fixture-long-roads",
        ] {
            cmd.args(["-p", p]);
        }
        let status = cmd.status().expect("cargo runs");
        assert!(status.success(), "building the plugins failed");
    });
}

/// The program's expansion code plus the Rust test expansions.
pub struct TestCode;

impl Instantiate for TestCode {
    fn instantiate(&self, sel: &Selected) -> Result<Option<Arc<dyn Expansion>>, Report> {
        match &sel.manifest.entry {
            meeple_host::manifest::Entry::Builtin(name) if name == "hook-demo" => {
                Ok(Some(Arc::new(demo::HookDemo::new(&sel.options))))
            }
            meeple_host::manifest::Entry::Builtin(name) if name == "rust-noop" => Ok(Some(Arc::new(NoOp))),
            meeple_host::manifest::Entry::Builtin(name) if name == "commander" => {
                Ok(Some(Arc::new(commander::Commander::new(&sel.options))))
            }
            _ => load::Builtin.instantiate(sel),
        }
    }
}

/// `rust-noop`: subscribed to every hook, does nothing. With it, a game measures what the core
/// itself spends on calling hooks, the floor under any Luau or native expansion's cost.
pub struct NoOp;

impl Expansion for NoOp {
    fn id(&self) -> &str {
        "rust-noop"
    }

    fn hooks(&self) -> meeple_core::HookSet {
        meeple_core::HookKind::ALL.iter().fold(meeple_core::HookSet::NONE, |s, h| s.with(*h))
    }
}

/// Builds the ruleset of a config with the test expansions available.
pub fn load_config(config: &GameConfig) -> Result<Loaded, Report> {
    load::from_config_with(config, &test_mods(), &TestCode)
}

/// Reads a config from TOML text and builds its ruleset.
pub fn load_toml(name: &str, text: &str) -> Result<Loaded, Report> {
    load_config(&GameConfig::parse(name, text)?)
}
