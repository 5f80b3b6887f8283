//! The records the view gives (a `Tile`, a `Feature`, …) read a field they lack as an error that
//! names it, as events do: a misspelt `feature.complted` would otherwise be a nil that fails
//! later, or never. Each record type's fields are those of its `type` in the API registry's
//! [`TYPES`], so the reference, the editor definitions and the check are one list; an optional
//! field (`placed: number?`) reads as nil. A record gets its type's metatable, made once per VM
//! by the prelude; a script may still add fields of its own to a record.

use super::api::TYPES;
use mlua::{Lua, Table};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A record type of the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    Turn,
    Tile,
    Segment,
    NamedPoint,
    Illustration,
    Feature,
    Location,
    Figure,
    Target,
    Candidate,
    TileKind,
    OfferInfo,
    DecisionInfo,
}

impl Record {
    /// Every record type, in the order of their metatables' references.
    pub const ALL: [Record; 13] = [
        Record::Turn,
        Record::Tile,
        Record::Segment,
        Record::NamedPoint,
        Record::Illustration,
        Record::Feature,
        Record::Location,
        Record::Figure,
        Record::Target,
        Record::Candidate,
        Record::TileKind,
        Record::OfferInfo,
        Record::DecisionInfo,
    ];

    /// The type's name in [`TYPES`].
    pub fn name(self) -> &'static str {
        match self {
            Record::Turn => "Turn",
            Record::Tile => "Tile",
            Record::Segment => "Segment",
            Record::NamedPoint => "NamedPoint",
            Record::Illustration => "Illustration",
            Record::Feature => "Feature",
            Record::Location => "Location",
            Record::Figure => "Figure",
            Record::Target => "Target",
            Record::Candidate => "Candidate",
            Record::TileKind => "TileKind",
            Record::OfferInfo => "OfferInfo",
            Record::DecisionInfo => "DecisionInfo",
        }
    }

    /// The registry key of the type's metatable, for records built through mlua.
    fn key(self) -> String {
        format!("meeple.record.{}", self.name())
    }

    /// The type's fields, from [`TYPES`].
    pub fn fields(self) -> &'static [&'static str] {
        static FIELDS: OnceLock<HashMap<&'static str, Vec<&'static str>>> = OnceLock::new();
        let all = FIELDS.get_or_init(|| declared_fields(TYPES));
        all.get(self.name()).map_or(&[], Vec::as_slice)
    }
}

/// The fields of each table type declared in `types` (`type Tile = { index: number, … }`).
fn declared_fields(types: &'static str) -> HashMap<&'static str, Vec<&'static str>> {
    let mut all = HashMap::new();
    for line in types.lines() {
        let Some((name, body)) = line.strip_prefix("type ").and_then(|l| l.split_once(" = {")) else { continue };
        let Some(body) = body.strip_suffix('}') else { continue };
        let fields = top_level(body).filter_map(|field| Some(field.split_once(':')?.0.trim())).collect();
        all.insert(name.trim(), fields);
    }
    all
}

/// The parts of a table type's body between commas outside any brackets.
fn top_level(body: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in body.char_indices() {
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts.into_iter()
}

/// The record types' fields as a Lua table (`{ Tile = { "index", … }, … }`), for the prelude.
pub(crate) fn fields_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for r in Record::ALL {
        t.raw_set(r.name(), lua.create_sequence_from(r.fields().iter().copied())?)?;
    }
    Ok(t)
}

/// Keeps the prelude's metatables, by type name, where records built through mlua find them.
pub(crate) fn keep_metatables(lua: &Lua, metatables: &Table) -> mlua::Result<()> {
    for r in Record::ALL {
        let mt: Table = metatables.raw_get(r.name())?;
        lua.set_named_registry_value(&r.key(), mt)?;
    }
    Ok(())
}

/// A new record of type `r` (built through mlua: the view's rarer calls).
pub(crate) fn new(lua: &Lua, r: Record) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set_metatable(Some(lua.named_registry_value::<Table>(&r.key())?))?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_type_is_declared_with_its_fields() {
        for r in Record::ALL {
            assert!(!r.fields().is_empty(), "`type {}` is not in TYPES", r.name());
        }
        assert_eq!(Record::Turn.fields(), ["number", "player", "part", "stage", "placed", "tiles_left"]);
        // Brackets inside a field's type do not split it.
        assert_eq!(Record::Target.fields(), ["kind", "seg", "tile", "point", "figure"]);
        assert_eq!(Record::Segment.fields().len(), 13);
    }
}
