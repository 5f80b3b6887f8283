//! A game config given as data rather than as a file: `create`'s `config` as a JSON object, a
//! replay's stored config. Either is written out as TOML, one field a line, and read by the
//! reader of config files, so that it gets every check a file gets; each problem is then named
//! by the field on its line (`config.expansions[0].edition`) rather than by a line nobody wrote.

use crate::error::{Code, ProtocolError};
use meeple_host::{GameConfig, Loaded, load};
use serde_json::{Map, Value};
use std::fmt;
use std::path::PathBuf;

/// A problem of a config given as data: the field, as a path (`config.players`,
/// `config.base.options.meeples`), and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigFault {
    /// The field's path.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl ConfigFault {
    /// A fault of the field at `path` below `config` (`""`: the config as a whole).
    pub fn at(path: &str, message: String) -> ConfigFault {
        let field = if path.is_empty() { "config".to_string() } else { format!("config.{path}") };
        ConfigFault { field, message }
    }
}

/// The faults as one protocol error: every fault a line, each field under `prefix` (`""` for a
/// request's own `config`, `"replay."` for a replay's); the error's field is the one at fault,
/// or the config as a whole when there are several.
pub fn protocol_error(faults: &[ConfigFault], prefix: &str) -> ProtocolError {
    let field = match faults {
        [one] => format!("{prefix}{}", one.field),
        _ => format!("{prefix}config"),
    };
    let lines: Vec<String> = faults.iter().map(|f| format!("{prefix}{f}")).collect();
    ProtocolError::new(Code::BadConfig, lines.join("\n"), Some(&field))
}

/// A config as TOML text, with the field each line holds.
pub struct Text {
    /// The name the text goes by in the reader's reports.
    name: &'static str,
    /// The text.
    pub toml: String,
    /// `fields[n]`: the field on line n + 1, below `config` (empty: the config as a whole).
    fields: Vec<String>,
}

impl Text {
    /// An empty text, named `name` in the reader's reports; its first line says so.
    pub fn new(name: &'static str) -> Text {
        let mut t = Text { name, toml: String::new(), fields: Vec::new() };
        t.line("", format!("# {name}"));
        t
    }

    /// A JSON object with the keys of a config file (`docs/config.md`), written out as the file
    /// would be: the plain keys first, then each object as a table and each list of objects as
    /// a list of tables, their own objects (options) as tables below them. A field set to null
    /// is not given, as everywhere in the protocol.
    pub fn of_object(name: &'static str, object: &Map<String, Value>) -> Result<Text, Vec<ConfigFault>> {
        let mut t = Text::new(name);
        let mut faults = Vec::new();
        // TOML holds a table's plain keys before its tables.
        for (key, value) in object.iter().filter(|(_, v)| !is_table(v) && !is_table_list(v)) {
            t.entry("", key, value, &mut faults);
        }
        for (key, value) in object {
            match value {
                Value::Object(table) => t.table(&toml_key(key), key, table, false, &mut faults),
                Value::Array(items) if is_table_list(value) => {
                    for (i, item) in items.iter().enumerate() {
                        let table = item.as_object().expect("a list of tables holds objects");
                        t.table(&toml_key(key), &format!("{key}[{i}]"), table, true, &mut faults);
                    }
                }
                _ => {}
            }
        }
        if faults.is_empty() { Ok(t) } else { Err(faults) }
    }

    /// `[header]` (or `[[header]]`, one of a list) and its keys, at the field `field`; its own
    /// objects as tables `[header.key]` below it, anything deeper inline.
    fn table(
        &mut self,
        header: &str,
        field: &str,
        table: &Map<String, Value>,
        listed: bool,
        faults: &mut Vec<ConfigFault>,
    ) {
        self.line(field, if listed { format!("[[{header}]]") } else { format!("[{header}]") });
        for (key, value) in table.iter().filter(|(_, v)| !is_table(v)) {
            self.entry(field, key, value, faults);
        }
        for (key, value) in table {
            let Value::Object(inner) = value else { continue };
            let at = format!("{field}.{key}");
            self.line(&at, format!("[{header}.{}]", toml_key(key)));
            for (key, value) in inner {
                self.entry(&at, key, value, faults);
            }
        }
    }

    /// `key = value` at the field `parent.key`; nothing for a null.
    fn entry(&mut self, parent: &str, key: &str, value: &Value, faults: &mut Vec<ConfigFault>) {
        let field = if parent.is_empty() { key.to_string() } else { format!("{parent}.{key}") };
        if value.is_null() {
            return;
        }
        match toml_of_json(value) {
            Ok(v) => self.line(&field, format!("{} = {v}", toml_key(key))),
            Err(why) => faults.push(ConfigFault::at(&field, why)),
        }
    }

    /// Adds a line holding `field`.
    pub fn line(&mut self, field: &str, line: String) {
        self.toml.push_str(&line);
        self.toml.push('\n');
        self.fields.push(field.to_string());
    }

    /// The config the text holds and its ruleset; every problem of either, as faults.
    pub fn load(&self, mods: &[PathBuf]) -> Result<(GameConfig, Loaded), Vec<ConfigFault>> {
        // Problems of the config itself and of resolving it, together (as for a config file).
        let (config, problems) = GameConfig::parse_lenient(self.name, &self.toml);
        let loaded = load::with_problems(problems, load::from_config(&config, mods)).map_err(|r| self.faults(r))?;
        Ok((config, loaded))
    }

    /// A report on the text as faults of its fields; a problem in another file (a manifest)
    /// keeps its place there, at the config as a whole.
    fn faults(&self, report: meeple_toml::Report) -> Vec<ConfigFault> {
        let fault = |d: meeple_toml::Diagnostic| match self.fields.get(d.line.wrapping_sub(1)) {
            Some(field) if d.file == self.name => ConfigFault::at(field, d.message),
            _ => ConfigFault::at("", d.to_string()),
        };
        let mut faults: Vec<ConfigFault> = report.diagnostics.into_iter().map(fault).collect();
        // Two items of one list on one line, both wrong alike, are one fault of its field.
        faults.dedup();
        faults
    }
}

/// An object: a table of its own.
fn is_table(value: &Value) -> bool {
    value.is_object()
}

/// A list of objects, and nothing else: a list of tables (`[[expansions]]`).
fn is_table_list(value: &Value) -> bool {
    matches!(value, Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object))
}

/// A quoted TOML string.
pub fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A key, quoted unless it is bare.
pub fn toml_key(key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_string() } else { toml_string(key) }
}

/// A JSON value as an inline TOML value, or what keeps it from being one (a null inside it, a
/// number past TOML's integers).
fn toml_of_json(value: &Value) -> Result<toml::Value, String> {
    Ok(match value {
        Value::Null => return Err("expected a value; got null, which has no place inside a list or table".into()),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => toml::Value::Integer(i),
            (None, Some(u), _) => return Err(format!("{u} is too large: whole numbers go up to {}", i64::MAX)),
            (None, None, Some(f)) => toml::Value::Float(f),
            _ => return Err(format!("{n} is no number a config can hold")),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(items) => toml::Value::Array(items.iter().map(toml_of_json).collect::<Result<_, _>>()?),
        Value::Object(map) => toml::Value::Table(
            map.iter().map(|(k, v)| Ok((k.clone(), toml_of_json(v)?))).collect::<Result<toml::Table, String>>()?,
        ),
    })
}
