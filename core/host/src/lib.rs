//! # meeple-host
//!
//! Everything between files and a playable game: game configs, expansion manifests and their
//! discovery, tilesets on disk, and the ruleset they make together. The Luau host and the
//! native-plugin loader plug in here as [`ruleset::Instantiate`] implementations.
//!
//! ```no_run
//! use meeple_host::{load, paths};
//! let loaded = load::from_config_file(std::path::Path::new("configs/base.toml"), &[]).unwrap();
//! let game = meeple_core::Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
//! # let _ = game;
//! ```

mod assembly;
pub mod check;
pub mod config;
pub mod hook_use;
pub mod load;
pub mod luau;
pub mod manifest;
pub mod native;
pub mod new_mod;
pub mod paths;
mod plugin_files;
pub mod ruleset;
pub mod scenario;
pub mod tile_mix;

pub use config::GameConfig;
pub use manifest::Manifest;
pub use ruleset::{Catalog, Loaded};
