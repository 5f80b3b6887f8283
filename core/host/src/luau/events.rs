//! The tables events (and `modify_score`'s scoring) reach handlers in.
//!
//! Each event hook has one table, made by the prelude and kept by the [`Caller`]; before a call,
//! Rust sets its plain fields from the event's words and calls the handler with it. The table is
//! read-only to scripts: a new table per call would cost some 500 instructions (allocating it and
//! collecting it), and a shared one that a handler could write to would carry what it wrote into
//! the next call. The fields read less often (lists, locations) are read from the mail by the
//! prelude when asked for.

use super::raw::{Caller, Plain, Ref};
use meeple_core::HookKind;
use mlua::{Lua, Table};
use std::cell::Cell;

/// How a plain field's value is made from a word of its event.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Conv {
    Int,
    /// A player, numbered from 1 as scripts number them.
    Player,
    Bool,
    /// A feature kind's name.
    Kind,
    /// A figure kind's name.
    Figure,
}

/// A plain field of an event table: its name, and the word and conversion its value comes from.
#[derive(Debug)]
pub(crate) struct Field {
    pub name: &'static str,
    word: usize,
    conv: Conv,
}

const fn field(name: &'static str, word: usize, conv: Conv) -> Field {
    Field { name, word, conv }
}

use Conv::{Bool, Figure, Int, Kind, Player};

const TILE_PLACED: &[Field] = &[field("player", 0, Player), field("index", 2, Int)];
/// The start tile's event, which no player placed: its `player` reads as nil.
const START_TILE: &[Field] = &[field("index", 2, Int)];
const FIGURE: &[Field] = &[field("figure", 0, Int), field("player", 1, Player), field("kind", 2, Figure)];
const FEATURE_COMPLETED: &[Field] = &[field("feature", 0, Int), field("kind", 1, Kind), field("completer", 2, Player)];
const FEATURE_SCORED: &[Field] = &[field("feature", 0, Int), field("kind", 1, Kind), field("completed", 2, Bool)];
const TURN_PART_END: &[Field] = &[field("player", 0, Player), field("turn", 1, Int), field("part", 2, Int)];
const TURN_END: &[Field] = &[field("player", 0, Player), field("turn", 1, Int)];
const SCORING: &[Field] = &[
    field("feature", 0, Int),
    field("kind", 1, Kind),
    field("completed", 2, Bool),
    field("final", 3, Bool),
    field("tiles", 4, Int),
    field("arms", 5, Int),
];

/// The plain fields of a hook's table; `None` for a hook whose handler gets no event.
fn plain_fields(hook: HookKind) -> Option<&'static [Field]> {
    Some(match hook {
        HookKind::TilePlaced => TILE_PLACED,
        HookKind::FigurePlaced | HookKind::FigureReturned => FIGURE,
        HookKind::FeatureCompleted => FEATURE_COMPLETED,
        HookKind::FeatureScored => FEATURE_SCORED,
        HookKind::TurnPartEnd => TURN_PART_END,
        HookKind::TurnEnd => TURN_END,
        HookKind::ModifyScore => SCORING,
        _ => return None,
    })
}

/// The names of the plain fields of a hook's table (none for a hook whose handler gets no event).
pub(crate) fn field_names(hook: HookKind) -> Vec<&'static str> {
    plain_fields(hook).unwrap_or_default().iter().map(|f| f.name).collect()
}

/// The plain fields' names for the prelude: `{ [hook] = { "player", "index" }, start = … }`.
pub(crate) fn fields_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let names = |fields: &[Field]| lua.create_sequence_from(fields.iter().map(|f| f.name));
    for hook in HookKind::ALL {
        if let Some(fields) = plain_fields(hook) {
            t.raw_set(hook as i64, names(fields)?)?;
        }
    }
    t.raw_set("start", names(START_TILE)?)?;
    Ok(t)
}

/// The names Rust gives fields, kept by the caller: tile kinds, feature kinds and figure kinds,
/// each by its number in the rules.
pub(crate) struct Names {
    pub tiles: Vec<Ref>,
    pub kinds: Vec<Ref>,
    pub figures: Vec<Ref>,
}

/// The most plain fields an event table has.
const MAX_FIELDS: usize = 6;

/// An event table the caller keeps, with the keys of its plain fields.
struct Kept {
    table: Ref,
    keys: Vec<(Ref, &'static Field)>,
    /// The words its fields were last set from (`None`: not set yet). Consecutive events share
    /// many (a kind, a player, whether the game is in its final scoring), and a field costs
    /// about 150 instructions to set; the table cannot change in between, being read-only.
    words: Cell<Option<[i32; MAX_FIELDS]>>,
}

impl Kept {
    /// Keeps `table` read-only, with `fields`, which it must hold.
    fn new(lua: &Lua, caller: &Caller, table: &Table, fields: &'static [Field]) -> mlua::Result<Kept> {
        if fields.len() > MAX_FIELDS {
            return Err(mlua::Error::runtime("an event table with too many fields"));
        }
        let mut keys = Vec::with_capacity(fields.len());
        for f in fields {
            // `Caller::fill` may only overwrite fields that are there (see there).
            if table.raw_get::<mlua::Value>(f.name)?.is_nil() {
                return Err(mlua::Error::runtime(format!("the prelude's event table lacks `{}`", f.name)));
            }
            keys.push((caller.keep(lua, lua.create_string(f.name)?)?, f));
        }
        let table = caller.keep(lua, table)?;
        caller.set_readonly(table, true);
        Ok(Kept { table, keys, words: Cell::new(None) })
    }
}

/// The event tables of the hooks a script has handlers for.
pub(crate) struct EventTables {
    by_hook: Vec<Option<Kept>>,
    /// `tile_placed`'s table for the start tile.
    start: Option<Kept>,
}

impl EventTables {
    /// Keeps the prelude's tables (`{ [hook] = table, start = table }`) of the hooks in `hooks`.
    pub fn keep(lua: &Lua, caller: &Caller, tables: &Table, hooks: &[HookKind]) -> mlua::Result<EventTables> {
        let mut by_hook: Vec<Option<Kept>> = (0..HookKind::ALL.len()).map(|_| None).collect();
        let mut start = None;
        for &hook in hooks {
            let Some(fields) = plain_fields(hook) else { continue };
            by_hook[hook as usize] = Some(Kept::new(lua, caller, &tables.raw_get(hook as i64)?, fields)?);
            if hook == HookKind::TilePlaced {
                start = Some(Kept::new(lua, caller, &tables.raw_get("start")?, START_TILE)?);
            }
        }
        Ok(EventTables { by_hook, start })
    }

    /// The table of `hook`'s event, its plain fields set from the event's `words` (as the wire
    /// format encodes them, little-endian).
    pub fn fill(&self, caller: &Caller, hook: HookKind, words: &[u8], names: &Names) -> mlua::Result<Ref> {
        let word = |i: usize| -> mlua::Result<i32> {
            let bytes = words.get(4 * i..4 * i + 4).ok_or_else(|| mlua::Error::runtime("an event is cut short"))?;
            Ok(i32::from_le_bytes(bytes.try_into().expect("four bytes")))
        };
        let kept = match (hook, &self.start) {
            (HookKind::TilePlaced, Some(start)) if word(0)? < 0 => start,
            _ => self.by_hook[hook as usize].as_ref().ok_or_else(|| mlua::Error::runtime("no event table"))?,
        };
        let mut now = [0; MAX_FIELDS];
        for (w, (_, f)) in now.iter_mut().zip(&kept.keys) {
            *w = word(f.word)?;
        }
        let before = kept.words.get();
        let mut values = [(kept.table, Plain::Bool(false)); MAX_FIELDS];
        let mut changed = 0;
        for (i, (key, f)) in kept.keys.iter().enumerate() {
            if before.is_some_and(|b| b[i] == now[i]) {
                continue;
            }
            values[changed] = (*key, value(f.conv, now[i], names)?);
            changed += 1;
        }
        if changed > 0 {
            caller.fill(kept.table, &values[..changed]);
            kept.words.set(Some(now));
        }
        Ok(kept.table)
    }
}

/// A plain field's value, made from its word.
fn value(conv: Conv, w: i32, names: &Names) -> mlua::Result<Plain> {
    let name = |list: &[Ref]| {
        let found = usize::try_from(w).ok().and_then(|i| list.get(i));
        found.copied().map(Plain::Kept).ok_or_else(|| mlua::Error::runtime("an event names an unknown kind"))
    };
    Ok(match conv {
        Int => Plain::Int(w as i64),
        Player => Plain::Int(w as i64 + 1),
        Bool => Plain::Bool(w == 1),
        Kind => name(&names.kinds)?,
        Figure => name(&names.figures)?,
    })
}
