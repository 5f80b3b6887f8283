//! The config a replay carries, checked as `create` checks a config, and the setup the replay
//! is played from, checked against it. A replay holds its config as data (`GameConfig` as serde
//! writes it), which reads back without the checks of a config file (two to six players, a
//! positive `tile_limit`, options in range), so it is written out as TOML and read back by the
//! reader of config files: a replay starts only a game that a config could start, and every
//! problem is named by its field in the replay (`config.players`, `setup.players`).

use crate::error::{Code, ProtocolError};
use meeple_core::{Replay, Setup};
use meeple_host::{GameConfig, Loaded, load};
use std::fmt;
use std::path::PathBuf;

/// The name the config's TOML text goes by in the reader's reports.
const TEXT: &str = "the replay's config";

/// A problem of a replay's config: the field, as a path in the replay (`config.players`,
/// `config.base.options.meeples`), and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigFault {
    /// The field's path in the replay.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// The config of a replay and its ruleset, checked as a config file would be, and the replay's
/// setup checked against it; every problem if not. A replay without a config (`null`) plays the
/// base game with the players, seed, draw and tile limit of its setup.
pub fn load(replay: &Replay, mods: &[PathBuf]) -> Result<(GameConfig, Loaded), Vec<ConfigFault>> {
    let stored = match &replay.config {
        meeple_core::Value::Null => from_setup(&replay.setup),
        value => read(value)?,
    };
    let text = Text::of(&stored)?;
    // Problems of the config itself and of resolving it, together (as for a config file).
    let (mut checked, problems) = GameConfig::parse_lenient(TEXT, &text.toml);
    let loaded = load::with_problems(problems, load::from_config(&checked, mods)).map_err(|r| text.faults(r))?;
    // Only the file name differs; it stays the replay's own.
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

/// The faults as one protocol error at `replay.config` (or the one field at fault).
pub fn protocol_error(faults: &[ConfigFault]) -> ProtocolError {
    let field = match faults {
        [one] => format!("replay.{}", one.field),
        _ => "replay.config".to_string(),
    };
    let lines: Vec<String> = faults.iter().map(|f| format!("replay.{f}")).collect();
    ProtocolError::new(Code::BadConfig, lines.join("\n"), Some(&field))
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

/// A config as TOML text, with the field each line holds.
struct Text {
    toml: String,
    /// `fields[n]`: the field on line n + 1 (empty: the config as a whole).
    fields: Vec<String>,
}

impl Text {
    /// The config written out; a value TOML cannot hold (a null option) is a fault.
    fn of(config: &GameConfig) -> Result<Text, Vec<ConfigFault>> {
        // Problems the ruleset cannot place are reported at line 1: the config as a whole.
        let mut t = Text { toml: String::new(), fields: Vec::new() };
        t.line("", format!("# {TEXT}"));
        t.line("players", format!("players = {}", strings(&config.players)));
        if let Some(seed) = config.seed {
            t.line("seed", format!("seed = {seed}"));
        }
        if let Some(draw) = &config.draw {
            t.line("draw", format!("draw = {}", strings(draw)));
        }
        if let Some(n) = config.tile_limit {
            t.line("tile_limit", format!("tile_limit = {n}"));
        }
        t.choice(&config.base, "base", "base", false)?;
        for (i, choice) in config.expansions.iter().enumerate() {
            t.choice(choice, "expansions", &format!("expansions[{i}]"), true)?;
        }
        Ok(t)
    }

    /// `[base]` or an `[[expansions]]` entry, with its options as a table of their own (one
    /// option a line, so that a problem is placed at the option).
    fn choice(
        &mut self,
        choice: &meeple_host::config::ExpansionChoice,
        table: &str,
        field: &str,
        listed: bool,
    ) -> Result<(), Vec<ConfigFault>> {
        self.line(field, if listed { format!("[[{table}]]") } else { format!("[{table}]") });
        if listed {
            self.line(&format!("{field}.id"), format!("id = {}", toml_string(&choice.id)));
        }
        if let Some(edition) = &choice.edition {
            self.line(&format!("{field}.edition"), format!("edition = {}", toml_string(edition)));
        }
        if !choice.options.is_empty() {
            self.line(&format!("{field}.options"), format!("[{table}.options]"));
        }
        for (name, option) in &choice.options {
            let at = format!("{field}.options.{name}");
            let Some(value) = toml_value(&option.value) else {
                let message = "expected a boolean, a number or a string; got null".to_string();
                return Err(vec![ConfigFault { field: format!("config.{at}.value"), message }]);
            };
            self.line(&at, format!("{} = {value}", toml_key(name)));
        }
        Ok(())
    }

    fn line(&mut self, field: &str, line: String) {
        self.toml.push_str(&line);
        self.toml.push('\n');
        self.fields.push(field.to_string());
    }

    /// A report on the text as faults of the replay's fields; a problem in another file (a
    /// manifest) keeps its place there.
    fn faults(&self, report: meeple_toml::Report) -> Vec<ConfigFault> {
        let fault = |d: meeple_toml::Diagnostic| match self.fields.get(d.line.wrapping_sub(1)) {
            Some(field) if d.file == TEXT => {
                let field = if field.is_empty() { "config".to_string() } else { format!("config.{field}") };
                ConfigFault { field, message: d.message }
            }
            _ => ConfigFault { field: "config".to_string(), message: d.to_string() },
        };
        report.diagnostics.into_iter().map(fault).collect()
    }
}

fn strings(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| toml_string(s)).collect();
    format!("[{}]", items.join(", "))
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A key, quoted unless it is bare.
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_string() } else { toml_string(key) }
}

/// A value as TOML; `None` for a null, which TOML cannot hold.
fn toml_value(value: &meeple_core::Value) -> Option<String> {
    toml_of(value).map(|v| v.to_string())
}

fn toml_of(value: &meeple_core::Value) -> Option<toml::Value> {
    use meeple_core::Value as V;
    Some(match value {
        V::Null => return None,
        V::Bool(b) => toml::Value::Boolean(*b),
        V::Int(n) => toml::Value::Integer(*n),
        V::Str(s) => toml::Value::String(s.clone()),
        V::List(items) => toml::Value::Array(items.iter().map(toml_of).collect::<Option<_>>()?),
        V::Map(map) => toml::Value::Table(
            map.iter().map(|(k, v)| Some((k.clone(), toml_of(v)?))).collect::<Option<toml::Table>>()?,
        ),
    })
}
