//! The config a replay carries, checked as `create` checks a config, and the setup the replay
//! is played from, checked against it. A replay holds its config as data (`GameConfig` as serde
//! writes it), which reads back without the checks of a config file (two to six players, a
//! positive `tile_limit`, options in range), so it is written out as TOML and read back by the
//! reader of config files: a replay starts only a game that a config could start, and every
//! problem is named by its field in the replay (`config.players`, `setup.players`).

pub use crate::config_text::ConfigFault;
use crate::config_text::{self, Text};
use crate::error::ProtocolError;
use meeple_core::{Replay, Setup};
use meeple_host::config::ExpansionChoice;
use meeple_host::{GameConfig, Loaded};
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// The name the config's TOML text goes by in the reader's reports.
const TEXT: &str = "the replay's config";

/// The config of a replay and its ruleset, checked as a config file would be, and the replay's
/// setup checked against it; every problem if not. A replay without a config (`null`) plays the
/// base game with the players, seed, draw and tile limit of its setup.
pub fn load(replay: &Replay, mods: &[PathBuf]) -> Result<(GameConfig, Loaded), Vec<ConfigFault>> {
    let stored = match &replay.config {
        meeple_core::Value::Null => from_setup(&replay.setup),
        value => read(value)?,
    };
    let loaded = text_of(&stored)?.load(mods, PREFIX)?;
    // The loaded config names the editions played; its file name stays the replay's own.
    let mut checked = loaded.config.clone();
    checked.file = stored.file;
    setup_agrees(&replay.setup, &loaded.setup(replay.setup.seed))?;
    Ok((checked, loaded))
}

/// The base game's config for a setup.
fn from_setup(setup: &Setup) -> GameConfig {
    GameConfig {
        players: setup.players.clone(),
        seed: Some(setup.seed),
        draw: setup.draw.clone(),
        tile_limit: setup.tile_limit,
        ..GameConfig::default()
    }
}

/// The game is played from the setup, so it must be the one the config makes: a setup edited
/// on its own (one player, eight) would start a game that `create` refuses. The seed may differ
/// (`meeple play --seed` over a config's own, before the config carried it): any seed is sound.
fn setup_agrees(setup: &Setup, made: &Setup) -> Result<(), Vec<ConfigFault>> {
    let fault = |field: &str, what: String| ConfigFault { field: format!("setup.{field}"), message: what };
    let mut faults = Vec::new();
    if setup.players != made.players {
        let what = format!("{:?}, but its config's players are {:?}", setup.players, made.players);
        faults.push(fault("players", what));
    }
    if setup.draw != made.draw {
        faults.push(fault("draw", "differs from its config's `draw`".to_string()));
    }
    if setup.tile_limit != made.tile_limit {
        let shown = |n: Option<u32>| n.map_or_else(|| "none".to_string(), |n| n.to_string());
        let what = format!("{}, but its config's `tile_limit` is {}", shown(setup.tile_limit), shown(made.tile_limit));
        faults.push(fault("tile_limit", what));
    }
    if faults.is_empty() { Ok(()) } else { Err(faults) }
}

/// Where a replay's config is in a request: its faults' and warnings' fields are below it.
const PREFIX: &str = "replay.";

/// The faults as one protocol error at `replay.config` (or the one field at fault).
pub fn protocol_error(faults: &[ConfigFault]) -> ProtocolError {
    config_text::protocol_error(faults, PREFIX)
}

/// The stored config as serde reads it; every field that does not fit, if any.
fn read(value: &meeple_core::Value) -> Result<GameConfig, Vec<ConfigFault>> {
    let json = serde_json::to_value(value).unwrap_or_default();
    if !json.is_object() {
        let message = "expected a JSON object with named fields, or null".to_string();
        return Err(vec![ConfigFault { field: "config".into(), message }]);
    }
    crate::fields::all_faults(&json).map_err(|faults| {
        let fault = |e: ProtocolError| {
            let field = e.field.map_or_else(|| "config".to_string(), |f| format!("config.{f}"));
            ConfigFault { field, message: e.message }
        };
        faults.into_iter().map(fault).collect()
    })
}

/// The stored config written out as a config file, with the field each line holds: its fields
/// as a config file's keys, written as `create` writes a config given as an object. An option
/// holding a null, which no config file can, is refused first, at its stored `value`.
fn text_of(config: &GameConfig) -> Result<Text, Vec<ConfigFault>> {
    let mut object = Map::new();
    object.insert("players".into(), json!(config.players));
    object.insert("seed".into(), json!(config.seed));
    object.insert("draw".into(), json!(config.draw));
    object.insert("tile_limit".into(), json!(config.tile_limit));
    object.insert("base".into(), choice(&config.base, "base", false)?);
    let expansions = config.expansions.iter().enumerate().map(|(i, c)| choice(c, &format!("expansions[{i}]"), true));
    object.insert("expansions".into(), Value::Array(expansions.collect::<Result<_, _>>()?));
    Ok(Text::of_object(TEXT, &object))
}

/// `base` or an entry of `expansions` as a config file's keys (`field` names it in a fault).
fn choice(choice: &ExpansionChoice, field: &str, listed: bool) -> Result<Value, Vec<ConfigFault>> {
    let mut options = Map::new();
    for (name, option) in &choice.options {
        let value = serde_json::to_value(&option.value).unwrap_or_default();
        if config_text::inline(&value, &mut String::new()).is_err() {
            let message = "expected a boolean, a number or a string; got null".to_string();
            return Err(vec![ConfigFault::at(&format!("{field}.options.{name}.value"), message)]);
        }
        options.insert(name.clone(), value);
    }
    let mut keys = Map::new();
    if listed {
        keys.insert("id".into(), json!(choice.id));
    }
    keys.insert("edition".into(), json!(choice.edition));
    keys.insert("options".into(), Value::Object(options));
    keys.insert("copies".into(), json!(choice.copies));
    if !choice.tiles.is_empty() {
        keys.insert("tiles".into(), json!(choice.tiles));
    }
    Ok(Value::Object(keys))
}

/// A config object with a config file's keys, taken from one in the shape a replay stores its
/// config (`save`'s `replay.config`): the file it was read from (`file`), the base game's `id`
/// in `base`, each option as `{"value": …}`. So `create` takes a replay's `config` as it is, to
/// start another game of the same rules; an object written with a config file's keys comes
/// back unchanged. The faults are those of the stored shape's own keys (a `file` that is not a
/// name, a `base.id` other than the base game's); anything else is left for the reader of
/// config files to judge.
pub fn with_config_keys(object: &Map<String, Value>) -> (Map<String, Value>, Vec<ConfigFault>) {
    let mut object = object.clone();
    let mut faults = Vec::new();
    match object.remove("file") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(other) => {
            let message = format!("expected the name of the file the config was read from, or null; got {other}");
            faults.push(ConfigFault::at("file", message));
        }
    }
    if let Some(Value::Object(base)) = object.get_mut("base") {
        match base.remove("id") {
            None | Some(Value::Null) => {}
            Some(Value::String(id)) if id == BASE => {}
            Some(other) => {
                let message =
                    format!("expected \"{BASE}\" (the base game; expansions go in `expansions`); got {other}");
                faults.push(ConfigFault::at("base.id", message));
            }
        }
        unwrap_stored_options(base);
    }
    if let Some(Value::Array(expansions)) = object.get_mut("expansions") {
        expansions.iter_mut().filter_map(Value::as_object_mut).for_each(unwrap_stored_options);
    }
    (object, faults)
}

/// The id a replay stores for the base game.
const BASE: &str = "base";

/// Each option stored as `{"value": …}` (and nothing else) as its value.
fn unwrap_stored_options(choice: &mut Map<String, Value>) {
    let Some(Value::Object(options)) = choice.get_mut("options") else { return };
    for value in options.values_mut() {
        if let Value::Object(stored) = value
            && stored.len() == 1
            && let Some(inner) = stored.remove("value")
        {
            *value = inner;
        }
    }
}
