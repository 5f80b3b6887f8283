//! Writes to the read-only tables the host lends a hook call (an event, `modify_score`'s
//! scoring, the lists they read, `can_place_tile`'s candidate list and its candidates), refused
//! with a message that names the table and says what to do instead.
//!
//! A write reaches a lent table in three ways, each named at no cost to the calls that do not
//! fail:
//! - a new field, through the `__newindex` of the table's metatable (the prelude's);
//! - `rawset`, `setmetatable` and the `table` functions that write, which Luau refuses on a
//!   read-only table with "attempt to modify a readonly table", naming nothing. They are
//!   replaced by [`guarded`] C functions that look at the table first. Calls the compiler turns
//!   into Luau's builtins (`table.insert(t, v)`, `rawset(t, k, v)`) still run the builtin, which
//!   falls back to the function only for a read-only table: they cost nothing more;
//! - a field the table has, assigned in Luau (`event.index = 3`): Luau raises the same message
//!   from inside its VM, where no metatable is asked and the table is not known. The host
//!   rewrites that error once the call has failed ([`explain`]), from the line it names: if the
//!   line assigns a field the lent table has (or an entry of a list it reads,
//!   `scoring.points[p] = …`), it names the table. Keeping the tables' fields out of them
//!   (behind `__index`) would tell the table for sure, but would cost every read of a field a
//!   metamethod, on every call.
//!
//! The metatables of lent tables carry `__readonly` (the table, as the message names it) and
//! `__instead` (what to do instead).

use super::Script;
use super::fast::raise;
use meeple_core::HookKind;
use mlua::ffi::{self, lua_State};
use mlua::{Lua, Table};
use std::ffi::{CStr, c_int};

/// What to do instead of changing an event (or the scoring).
pub(crate) const INSTEAD_OF_EVENT: &str =
    "copy what you need into a table of your own; the game changes only through commands (out:…)";
/// What to do instead of changing `modify_score`'s scoring.
pub(crate) const INSTEAD_OF_SCORING: &str =
    "copy what you need into a table of your own; out:set_score(player, points) changes a player's points";
/// What to do instead of changing the candidates.
pub(crate) const INSTEAD_OF_CANDIDATES: &str =
    "copy what you need into a table of your own; out:forbid(i) rules candidate i out";

/// Luau's message for a write to a read-only table.
const LUAU_READONLY: &str = "attempt to modify a readonly table";

/// The message for a write to a lent table.
pub(crate) fn refusal(what: &str, how: &str, instead: &str) -> String {
    format!("{what} cannot be changed ({how}): {instead}")
}

/// The functions that write to a table given as an argument: the library, the function, and
/// the argument that is the table written to (`table.move` writes to its fifth, if given).
const WRITERS: [(Option<&str>, &CStr, c_int); 7] = [
    (None, c"rawset", 1),
    (None, c"setmetatable", 1),
    (Some("table"), c"insert", 1),
    (Some("table"), c"remove", 1),
    (Some("table"), c"clear", 1),
    (Some("table"), c"sort", 1),
    (Some("table"), c"move", 5),
];

/// Replaces the functions of [`WRITERS`] with [`guarded`] ones, before the sandbox freezes the
/// libraries.
pub(crate) fn guard_writers(lua: &Lua) -> mlua::Result<()> {
    let globals = lua.globals();
    for (i, (library, name, _)) in WRITERS.into_iter().enumerate() {
        let table: Table = match library {
            Some(library) => globals.raw_get(library)?,
            None => globals.clone(),
        };
        let key = name.to_str().map_err(mlua::Error::external)?;
        let original: mlua::Function = table.raw_get(key)?;
        // SAFETY: pushes the original, reads its C function, pops it; pushes the wrapper with
        // its two upvalues (which it pops) and moves it into mlua, which pops it: the stack is
        // as before.
        #[allow(unsafe_code)]
        let wrapped = lua.exec_raw_lua(|raw| unsafe {
            let state = raw.state();
            if ffi::lua_checkstack(state, 3) == 0 {
                return Err(mlua::Error::StackError);
            }
            raw.push(&original)?;
            let f = ffi::lua_tocfunction(state, -1);
            ffi::lua_pop(state, 1);
            let f = f.ok_or_else(|| mlua::Error::runtime(format!("{key} is not a C function")))?;
            ffi::lua_pushlightuserdata(state, f as *mut std::ffi::c_void);
            ffi::lua_pushinteger(state, i as ffi::lua_Integer);
            ffi::lua_pushcclosurek(state, guarded, name.as_ptr(), 2, None);
            Ok(raw.pop_value())
        })?;
        table.raw_set(key, wrapped)?;
    }
    Ok(())
}

/// A writer of [`WRITERS`]: refuses to write to a lent table, with its message, and otherwise is
/// the library's function (its upvalue 1), called on the same stack. It keeps the library
/// function's name, which the errors of its arguments give.
#[allow(unsafe_code)]
unsafe extern "C-unwind" fn guarded(state: *mut lua_State) -> c_int {
    // SAFETY: upvalue 1 is the library's C function and upvalue 2 the writer's place in
    // `WRITERS`, as `guard_writers` made them; the function runs as if called itself, on this
    // stack.
    unsafe {
        let writer = ffi::lua_tointeger(state, ffi::lua_upvalueindex(2)) as usize;
        let (library, name, arg) = WRITERS[writer.min(WRITERS.len() - 1)];
        let target = if arg > 1 && ffi::lua_type(state, arg) == ffi::LUA_TTABLE { arg } else { 1 };
        if ffi::lua_type(state, target) == ffi::LUA_TTABLE && ffi::lua_getreadonly(state, target) != 0 {
            let how = match library {
                Some(library) => format!("{library}.{}", name.to_string_lossy()),
                // `rawset` writes a field, `setmetatable` the metatable.
                None if arg == 1 && name == c"rawset" => format!("field '{}'", key_text(state, 2)),
                None => name.to_string_lossy().into_owned(),
            };
            if let Some(message) = refusal_of(state, target, how) {
                raise(state, message);
            }
        }
        if name == c"move" {
            bound_move(state);
        }
        let f: ffi::lua_CFunction = std::mem::transmute(ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)));
        f(state)
    }
}

/// The most elements one `table.move` moves. The library's own walks any range of indices in one
/// C call, which neither the interrupt budget nor the wall clock can stop, and a range of nils
/// takes no memory: `table.move({}, 1, 2^31 - 2, 2)` would hold the game for half a minute. A
/// VM holds at most some two million values (32 MiB at 16 bytes each), so a longer move can
/// only be such a runaway.
pub(crate) const MAX_MOVED: f64 = 2_097_152.0;

/// Refuses a `table.move` of more than [`MAX_MOVED`] elements (its arguments 2 and 3 are the
/// first and last index; others than numbers are left to the library to refuse).
#[allow(unsafe_code)]
unsafe fn bound_move(state: *mut lua_State) {
    // SAFETY: reads two arguments of the running C function.
    let (first, last) = unsafe { (ffi::lua_tonumber(state, 2), ffi::lua_tonumber(state, 3)) };
    if last - first >= MAX_MOVED {
        let message = format!(
            "table.move of {} elements: at most {MAX_MOVED} (more than a script's memory holds)",
            last - first + 1.0
        );
        raise(state, message);
    }
}

/// The refusal of a write (`how`) to the lent table at `target`; `None` for any other read-only
/// table, which the library's function then refuses as Luau does.
#[cold]
#[allow(unsafe_code)]
unsafe fn refusal_of(state: *mut lua_State, target: c_int, how: String) -> Option<String> {
    // SAFETY: reads two fields of the table's metatable, each pushed and popped.
    unsafe {
        if ffi::lua_checkstack(state, 2) == 0 {
            return None;
        }
        let what = meta_string(state, target, c"__readonly")?;
        let instead = meta_string(state, target, c"__instead").unwrap_or_default();
        Some(refusal(&what, &how, &instead))
    }
}

/// The string in the field `field` of the metatable of the value at `index`, if it is one.
#[allow(unsafe_code)]
unsafe fn meta_string(state: *mut lua_State, index: c_int, field: &CStr) -> Option<String> {
    // SAFETY: `luaL_getmetafield` pushes the field only when there is one; it is popped.
    unsafe {
        if ffi::luaL_getmetafield_(state, index, field.as_ptr()) == 0 {
            return None;
        }
        let text = (ffi::lua_type(state, -1) == ffi::LUA_TSTRING).then(|| text_at(state, -1));
        ffi::lua_pop(state, 1);
        text
    }
}

/// The string at `index`, which must be one.
#[allow(unsafe_code)]
unsafe fn text_at(state: *mut lua_State, index: c_int) -> String {
    // SAFETY: as the caller promises; the bytes are copied before anything is popped.
    unsafe {
        let mut len = 0;
        let p = ffi::lua_tolstring(state, index, &mut len);
        String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
    }
}

/// A key as the message shows it.
#[allow(unsafe_code)]
unsafe fn key_text(state: *mut lua_State, index: c_int) -> String {
    // SAFETY: `luaL_tolstring` pushes the text, which is copied and popped.
    unsafe {
        if ffi::lua_checkstack(state, 1) == 0 {
            return "?".into();
        }
        ffi::luaL_tolstring(state, index, std::ptr::null_mut());
        let key = text_at(state, -1);
        ffi::lua_pop(state, 1);
        key
    }
}

/// What a hook call lends a script that Luau refuses to change, as the refusal names it: the
/// table, what to do instead, and the fields it has.
fn lent(hook: HookKind) -> Option<(String, &'static str, Vec<&'static str>)> {
    match hook {
        HookKind::ModifyScore => {
            Some(("modify_score's scoring".into(), INSTEAD_OF_SCORING, super::events::field_names(hook)))
        }
        HookKind::CanPlaceTile => Some(("a candidate".into(), INSTEAD_OF_CANDIDATES, vec!["x", "y", "rotation"])),
        _ => {
            let fields = super::events::field_names(hook);
            (!fields.is_empty()).then(|| (format!("the {} event", hook.name()), INSTEAD_OF_EVENT, fields))
        }
    }
}

/// Luau's refusal of a write to a read-only table during a call of `hook`, at `location`
/// (`expansion/file:line`), as the refusal of the lent table the line assigns a field of; `None`
/// for any other error, or a line that assigns none of the lent table's fields.
pub(crate) fn explain(script: &Script, hook: HookKind, location: &str, message: &str) -> Option<String> {
    if message != LUAU_READONLY {
        return None;
    }
    let (what, instead, fields) = lent(hook)?;
    let (chunk, line) = location.rsplit_once(':')?;
    let file = chunk.strip_prefix(&format!("{}/", script.id))?;
    let text = script.files.get(file)?.lines().nth(line.parse::<usize>().ok()?.checked_sub(1)?)?;
    if let Some(field) = fields.into_iter().find(|f| assigns(text, f).is_some_and(|entry| entry.is_empty())) {
        return Some(refusal(&what, &format!("field '{field}'"), instead));
    }
    // An entry of a list the table lends (`scoring.points[player] = …`).
    lists(hook).iter().find_map(|list| {
        let entry = assigns(text, list).filter(|entry| !entry.is_empty())?;
        Some(refusal(&format!("`{list}` of {what}"), &format!("{list}{entry}"), instead))
    })
}

/// The fields of a hook's table that read as lists, which the prelude lends read-only too.
fn lists(hook: HookKind) -> &'static [&'static str] {
    match hook {
        HookKind::ModifyScore => &["points", "cities", "strength"],
        HookKind::FeatureScored => &["points"],
        _ => &[],
    }
}

/// Whether a line of Luau assigns a field called `field` (`t.field = …`, `t["field"] = …`, `+=`
/// and the other compound assignments too), or an entry of it (`t.field[i] = …`): `Some("")`
/// for the field, `Some("[i]")` for an entry.
fn assigns<'a>(line: &'a str, field: &str) -> Option<&'a str> {
    let code = line.split("--").next().unwrap_or(line);
    let forms = [format!(".{field}"), format!("[\"{field}\"]"), format!("['{field}']")];
    forms.iter().find_map(|form| {
        code.match_indices(form.as_str()).find_map(|(at, _)| {
            let rest = &code[at + form.len()..];
            if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let entry = &rest[..bracketed(rest)];
            let rest = rest[entry.len()..].trim_start();
            let ops = ["=", "+=", "-=", "*=", "/=", "//=", "%=", "^=", "..="];
            (ops.iter().any(|op| rest.starts_with(op)) && !rest.starts_with("==")).then_some(entry)
        })
    })
}

/// The length of the bracketed index that `text` starts with (`[i]`, `[t[1]]`), 0 if none.
fn bracketed(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ if depth == 0 => return 0,
            _ => {}
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::assigns;

    #[test]
    fn a_field_assigned_on_a_line_is_found() {
        assert_eq!(assigns("    event.index = 3", "index"), Some(""));
        assert_eq!(assigns("if x then candidates[1].x=99 end", "x"), Some(""));
        assert_eq!(assigns("event[\"player\"] = 2", "player"), Some(""));
        assert_eq!(assigns("event.index += 1", "index"), Some(""));
        assert_eq!(assigns("scoring.points[player] = 3", "points"), Some("[player]"));
        assert_eq!(assigns("scoring.points[t[1]] ..= 3", "points"), Some("[t[1]]"));
        assert_eq!(assigns("if event.index == 3 then", "index"), None);
        assert_eq!(assigns("event.indexes = 3", "index"), None);
        assert_eq!(assigns("string.rep = nil", "index"), None);
        assert_eq!(assigns("local a = 1 -- event.index = 3", "index"), None);
        assert_eq!(assigns("t[scoring.points[1]] = 2", "points"), None);
        assert_eq!(assigns("if scoring.points[1] == 2 then", "points"), None);
    }
}
