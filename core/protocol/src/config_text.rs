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
    let mut error = ProtocolError::new(Code::BadConfig, lines.join("\n"), Some(&field));
    if faults.len() > 1 {
        error.problems = faults
            .iter()
            .map(|f| crate::error::Problem { field: format!("{prefix}{}", f.field), message: f.message.clone() })
            .collect();
    }
    error
}

/// A config as TOML text, with the field each line holds.
pub struct Text {
    /// The name the text goes by in the reader's reports.
    name: &'static str,
    /// The text. Every value is written on one line, strings included (with `\n` escaped), and a
    /// list's items each on a line of their own, so that a line's number names its field.
    toml: String,
    /// `fields[n]`: the field on line n + 1, below `config` (empty: the config as a whole).
    fields: Vec<String>,
    /// The first line of each list of tables, with the list's key: a problem the reader finds
    /// with the list as a whole (`base` given as a list) is the list's, not its first item's.
    lists: Vec<(usize, String)>,
    /// Values no TOML line can hold (a null in a list), left out of the text: each with the
    /// line it would have had, so that they are told in order among the reader's problems.
    unwritten: Vec<(usize, ConfigFault)>,
}

impl Text {
    /// An empty text, named `name` in the reader's reports; its first line says so.
    fn new(name: &'static str) -> Text {
        let mut t = Text { name, toml: String::new(), fields: Vec::new(), lists: Vec::new(), unwritten: Vec::new() };
        t.line("", format!("# {name}"));
        t
    }

    /// A JSON object with the keys of a config file (`docs/config.md`), written out as the file
    /// would be: the plain keys first, then each object as a table and each list of objects as
    /// a list of tables, their own objects (options) as tables below them. A field set to null
    /// is not given, as everywhere in the protocol.
    pub fn of_object(name: &'static str, object: &Map<String, Value>) -> Text {
        let mut t = Text::new(name);
        // TOML holds a table's plain keys before its tables.
        for (key, value) in object.iter().filter(|(_, v)| !v.is_object() && !is_table_list(v)) {
            t.entry("", key, value);
        }
        for (key, value) in object {
            match value {
                Value::Object(table) => t.table(&meeple_toml::key(key), key, table, false),
                Value::Array(items) if is_table_list(value) => {
                    t.lists.push((t.fields.len() + 1, key.clone()));
                    for (i, item) in items.iter().enumerate() {
                        let table = item.as_object().expect("a list of tables holds objects");
                        t.table(&meeple_toml::key(key), &format!("{key}[{i}]"), table, true);
                    }
                }
                _ => {}
            }
        }
        t
    }

    /// `[header]` (or `[[header]]`, one of a list) and its keys, at the field `field`; its own
    /// objects as tables `[header.key]` below it, anything deeper inline.
    fn table(&mut self, header: &str, field: &str, table: &Map<String, Value>, listed: bool) {
        self.line(field, if listed { format!("[[{header}]]") } else { format!("[{header}]") });
        for (key, value) in table.iter().filter(|(_, v)| !v.is_object()) {
            self.entry(field, key, value);
        }
        for (key, value) in table {
            let Value::Object(inner) = value else { continue };
            let at = format!("{field}.{key}");
            self.line(&at, format!("[{header}.{}]", meeple_toml::key(key)));
            for (key, value) in inner {
                self.entry(&at, key, value);
            }
        }
    }

    /// `key = value` at the field `parent.key`; nothing for a null.
    fn entry(&mut self, parent: &str, key: &str, value: &Value) {
        let field = if parent.is_empty() { key.to_string() } else { format!("{parent}.{key}") };
        if value.is_null() {
            return;
        }
        match value {
            Value::Array(items) if !items.is_empty() => self.list(&field, key, items),
            _ => self.value(&field, key, value),
        }
    }

    /// `key = [`, each item on a line of its own at the field `field[i]`, and `]`: a problem
    /// with one item (a name too long) is then named by that item. A list with an item no line
    /// can hold (a null) is left out whole, each such item told: the rest would read as a
    /// shorter list, wrong for another reason.
    fn list(&mut self, field: &str, key: &str, items: &[Value]) {
        let fields: Vec<String> = (0..items.len()).map(|i| format!("{field}[{i}]")).collect();
        let written: Vec<Result<String, String>> = items.iter().map(inline_text).collect();
        if written.iter().any(Result::is_err) {
            let at = self.fields.len() + 1;
            for (field, why) in fields.iter().zip(written).filter_map(|(f, w)| Some((f, w.err()?))) {
                self.unwritten.push((at, ConfigFault::at(field, why)));
            }
            return;
        }
        self.line(field, format!("{} = [", meeple_toml::key(key)));
        for (field, item) in fields.iter().zip(written) {
            self.line(field, item.unwrap_or_default() + ",");
        }
        self.line(field, "]".to_string());
    }

    /// `key = value` at `field`; or, for a value no line can hold, the reason, told at the line
    /// it would have had.
    fn value(&mut self, field: &str, key: &str, value: &Value) {
        match inline_text(value) {
            Ok(written) => self.line(field, format!("{} = {written}", meeple_toml::key(key))),
            Err(why) => self.unwritten.push((self.fields.len() + 1, ConfigFault::at(field, why))),
        }
    }

    /// Adds a line holding `field`.
    fn line(&mut self, field: &str, line: String) {
        debug_assert!(!line.contains('\n'), "one line: {line}");
        self.toml.push_str(&line);
        self.toml.push('\n');
        self.fields.push(field.to_string());
    }

    /// The ruleset of the config the text holds (with `Loaded::config` that config, editions
    /// filled in); every problem of either, and of the values left out of the text, as faults.
    /// The ruleset's warnings about the config name their field under `prefix`, as
    /// [`protocol_error`] names a fault's.
    pub fn load(&self, mods: &[PathBuf], prefix: &str) -> Result<Loaded, Vec<ConfigFault>> {
        // Problems of the config itself and of resolving it, together (as for a config file).
        let (config, problems) = GameConfig::parse_lenient(self.name, &self.toml);
        match load::with_problems(problems, load::from_config(&config, mods)) {
            Ok(mut loaded) if self.unwritten.is_empty() => {
                let by_field = |d: &meeple_toml::Diagnostic| {
                    let f = self.fault(d.clone()).1;
                    meeple_toml::Diagnostic::of_file(format!("{prefix}{}", f.field), f.message)
                };
                loaded.relocate_config_warnings(by_field);
                Ok(loaded)
            }
            Ok(_) => Err(self.faults(meeple_toml::Report::default())),
            Err(report) => Err(self.faults(report)),
        }
    }

    /// A report on the text, and the values left out of it, as faults of their fields in line
    /// order; a problem in another file (a manifest) keeps its place there, at the config as a
    /// whole, after the config's own.
    fn faults(&self, report: meeple_toml::Report) -> Vec<ConfigFault> {
        // A value left out would have had the line the next value took: it goes first there.
        let mut faults = self.unwritten.clone();
        faults.extend(report.diagnostics.into_iter().map(|d| self.fault(d)));
        // Stable: problems of one line keep the reader's order.
        faults.sort_by_key(|(line, _)| *line);
        let mut faults: Vec<ConfigFault> = faults.into_iter().map(|(_, f)| f).collect();
        // Two items of a list inside a list share a line: both wrong alike, they are one fault.
        faults.dedup();
        faults
    }

    /// A problem found in the text as a fault of its field, with its line; one of another file
    /// is a fault of the config as a whole, after the config's own.
    fn fault(&self, d: meeple_toml::Diagnostic) -> (usize, ConfigFault) {
        let own = d.file == self.name;
        // Line 0: the text as a whole.
        let field = if d.line == 0 { Some("") } else { self.fields.get(d.line - 1).map(String::as_str) };
        match field.filter(|_| own) {
            Some(field) => {
                let field = self.list_as_a_whole(&d).unwrap_or(field);
                (d.line, ConfigFault::at(field, d.message))
            }
            None => (usize::MAX, ConfigFault::at("", d.to_string())),
        }
    }

    /// The key of the list a diagnostic is about, when it is about a list of tables as a whole
    /// (of the wrong type, or a key the config does not know): on the list's first line, naming
    /// the list's key.
    fn list_as_a_whole(&self, d: &meeple_toml::Diagnostic) -> Option<&str> {
        let (_, key) = self.lists.iter().find(|(line, _)| *line == d.line)?;
        let whole =
            d.message.starts_with(&format!("`{key}` ")) || d.message.starts_with(&format!("unknown key `{key}`"));
        whole.then_some(key.as_str())
    }
}

/// A list of objects, and nothing else: a list of tables (`[[expansions]]`).
fn is_table_list(value: &Value) -> bool {
    matches!(value, Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object))
}

/// A JSON value as an inline TOML value on one line, or what keeps it from being one.
fn inline_text(value: &Value) -> Result<String, String> {
    let mut out = String::new();
    inline(value, &mut out).map(|()| out)
}

/// Writes a JSON value as an inline TOML value on one line, or says what keeps it from being one
/// (a null inside it, a number past TOML's integers).
pub(crate) fn inline(value: &Value, out: &mut String) -> Result<(), String> {
    match value {
        Value::Null => return Err("expected a value; got null, which has no place inside a list or table".into()),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => out.push_str(&i.to_string()),
            (None, Some(u), _) => return Err(format!("{u} is too large: whole numbers go up to {}", i64::MAX)),
            // A whole number past 64 bits, which JSON readers take as a float: it was written as
            // a whole number, and is told as one too large ("found a float" would puzzle).
            (None, None, Some(f)) if f.fract() == 0.0 && f >= 2f64.powi(63) => {
                return Err(format!("{n} is too large: whole numbers go up to {}", i64::MAX));
            }
            (None, None, Some(f)) if f.fract() == 0.0 && f < -(2f64.powi(63)) => {
                return Err(format!("{n} is too small: whole numbers go down to {}", i64::MIN));
            }
            (None, None, Some(f)) => out.push_str(&toml::Value::Float(f).to_string()),
            _ => return Err(format!("{n} is no number a config can hold")),
        },
        Value::String(s) => meeple_toml::push_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(item, out)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                out.push_str(if i > 0 { ", " } else { " " });
                out.push_str(&meeple_toml::key(k));
                out.push_str(" = ");
                inline(v, out)?;
            }
            out.push_str(if map.is_empty() { "}" } else { " }" });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_and_list_item_is_written_on_a_line_of_its_own_and_reads_back_as_given() {
        let object = serde_json::json!({
            "players": ["Ann\nBen \"the\" \\ 2", "tab\there", "bell\u{7}"],
            "a\nb": {"x.y": [1, -2, 2.5, true, {"k": "v"}, []], "empty": {}},
        });
        let t = Text::of_object("t", object.as_object().unwrap());
        assert_eq!(t.toml.lines().count(), t.fields.len(), "{}", t.toml);
        let line_of = |field: &str| t.fields.iter().position(|f| f == field).map(|n| t.toml.lines().nth(n).unwrap());
        assert_eq!(line_of("players[2]"), Some("\"bell\\u0007\","), "{}", t.toml);
        let read: toml::Table = t.toml.parse().unwrap_or_else(|e| panic!("{e}\n{}", t.toml));
        let back = serde_json::to_value(read).unwrap();
        assert_eq!(back["players"], object["players"]);
        assert_eq!(back["a\nb"]["x.y"], object["a\nb"]["x.y"]);
    }
}
