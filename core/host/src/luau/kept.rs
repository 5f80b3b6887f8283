//! What a script keeps between hook calls, for `meeple check` to compare before and after games.
//!
//! A script must keep nothing of a game in its own variables (a game can be copied, replayed or
//! played beside another on the same VM); `check` plays games to catch one that does, which a
//! counter read only in rare positions escapes. This looks at the variables themselves: each
//! local of a file that a handler uses (its upvalues, with the functions and tables they reach)
//! and each global the script set, summed up as a fingerprint of what they hold. A variable
//! whose fingerprint changed over games was written by a hook.

use meeple_core::KeptValue;
use mlua::ffi::{self, lua_State};
use mlua::{Function, Lua, Value};
use std::collections::{BTreeMap, HashSet};
use std::ffi::{CStr, c_int, c_void};
use std::hash::{DefaultHasher, Hash, Hasher};

/// How deep a value is followed: deeper tables count by their size only.
const DEPTH: u32 = 16;

/// The locals `handler` uses, each with its fingerprint and, when its file declares it in so
/// many words (`local count`), the line that does; `named` says which handler it is, and
/// `files` are the script's, by path.
pub(crate) fn upvalues(
    lua: &Lua,
    handler: &Function,
    named: &str,
    files: &BTreeMap<String, String>,
) -> mlua::Result<Vec<KeptValue>> {
    let info = handler.info();
    // The chunk is named `expansion/file`: the message names the file as its folder has it.
    let (chunk, line) = (info.short_src.unwrap_or_default(), info.line_defined.unwrap_or(0));
    let file = chunk.split_once('/').map_or(chunk.as_str(), |(_, f)| f);
    let at = if line > 0 { format!(" ({file}:{line})") } else { String::new() };
    // SAFETY: the handler is pushed on the current thread, its upvalues read one at a time
    // above it and popped, and the stack is set back as it was before returning.
    #[allow(unsafe_code)]
    lua.exec_raw_lua(|raw| unsafe {
        let state = raw.state();
        let top = ffi::lua_gettop(state);
        if ffi::lua_checkstack(state, 4) == 0 {
            return Err(mlua::Error::StackError);
        }
        raw.push(handler)?;
        let f = ffi::lua_gettop(state);
        let mut kept = Vec::new();
        for n in 1.. {
            let name = ffi::lua_getupvalue(state, f, n);
            if name.is_null() {
                break;
            }
            let name = CStr::from_ptr(name).to_string_lossy().into_owned();
            let fingerprint = fingerprint(state, ffi::lua_gettop(state), &mut HashSet::new(), DEPTH);
            ffi::lua_settop(state, f);
            let declared = files.get(file).and_then(|text| declaration(text, &name, line));
            let place = declared.or((line > 0).then_some(line)).map(|l| format!("{chunk}:{l}"));
            let name = if name.is_empty() { format!("upvalue {n}") } else { format!("`{name}`") };
            let what = format!("{name}, a local that {named}{at} uses,");
            kept.push(KeptValue { what, fingerprint, place });
        }
        ffi::lua_settop(state, top);
        Ok(kept)
    })
}

/// The line that declares the local `name` (`local name`, `local function name`, or `name`
/// among others in one `local`), the last one at or above `before`, the line of the function
/// that uses it.
fn declaration(text: &str, name: &str, before: usize) -> Option<usize> {
    let declares = |line: &str| {
        let rest = line.trim_start().strip_prefix("local ")?;
        let rest = rest.trim_start().strip_prefix("function ").unwrap_or(rest);
        let names = rest.split('=').next()?;
        names.split(',').any(|n| n.split(':').next().is_some_and(|n| n.trim() == name)).then_some(())
    };
    let lines = text.lines().enumerate().take(before.max(1));
    lines.filter(|(_, line)| declares(line).is_some()).map(|(i, _)| i + 1).last()
}

/// The globals the script set, each with its fingerprint.
pub(crate) fn globals(lua: &Lua) -> mlua::Result<Vec<KeptValue>> {
    let mut kept = Vec::new();
    for pair in lua.globals().pairs::<Value, Value>() {
        let (name, value) = pair?;
        // `_G` is the globals themselves, which the lines below look at one by one.
        let Value::String(name) = name else { continue };
        let name = name.to_string_lossy();
        if name == "_G" {
            continue;
        }
        // SAFETY: as in `upvalues`: one value pushed and popped, the stack as it was.
        #[allow(unsafe_code)]
        let fingerprint = lua.exec_raw_lua(|raw| unsafe {
            let state = raw.state();
            let top = ffi::lua_gettop(state);
            if ffi::lua_checkstack(state, 4) == 0 {
                return Err(mlua::Error::StackError);
            }
            raw.push(&value)?;
            let fingerprint = fingerprint(state, ffi::lua_gettop(state), &mut HashSet::new(), DEPTH);
            ffi::lua_settop(state, top);
            Ok(fingerprint)
        })?;
        kept.push(KeptValue { what: format!("the global `{name}`"), fingerprint, place: None });
    }
    kept.sort_by(|a, b| a.what.cmp(&b.what));
    Ok(kept)
}

/// A fingerprint of the value at `idx` (an absolute index): its contents, down through tables
/// (each entry summed, so that the order `next` walks them in does not count) and through the
/// upvalues of Lua functions. What was met already on the way (a table that holds itself) counts
/// as one mark, so the same contents give the same fingerprint.
///
/// # Safety
/// `idx` must be a valid absolute index of `state`, which must have room for 3 more values.
#[allow(unsafe_code)]
unsafe fn fingerprint(state: *mut lua_State, idx: c_int, seen: &mut HashSet<*const c_void>, depth: u32) -> u64 {
    let mut h = DefaultHasher::new();
    // SAFETY: the caller's promise; each branch reads the value at `idx` as its type allows, and
    // leaves the stack as it found it.
    unsafe {
        let kind = ffi::lua_type(state, idx);
        kind.hash(&mut h);
        match kind {
            ffi::LUA_TBOOLEAN => ffi::lua_toboolean(state, idx).hash(&mut h),
            ffi::LUA_TNUMBER => ffi::lua_tonumber(state, idx).to_bits().hash(&mut h),
            ffi::LUA_TSTRING => {
                bytes(ffi::lua_tolstring(state, idx, std::ptr::null_mut()).cast(), state, idx).hash(&mut h)
            }
            ffi::LUA_TBUFFER => {
                let mut len = 0;
                let data = ffi::lua_tobuffer(state, idx, &mut len).cast::<u8>();
                if !data.is_null() {
                    std::slice::from_raw_parts(data, len).hash(&mut h);
                }
            }
            ffi::LUA_TTABLE | ffi::LUA_TFUNCTION => {
                if !seen.insert(ffi::lua_topointer(state, idx)) || depth == 0 || ffi::lua_checkstack(state, 3) == 0 {
                    return h.finish();
                }
                if kind == ffi::LUA_TTABLE {
                    table(state, idx, seen, depth).hash(&mut h);
                } else if ffi::lua_iscfunction(state, idx) == 0 {
                    function(state, idx, seen, depth).hash(&mut h);
                }
            }
            // Userdata and threads are the host's (the view, the sink): nothing of the game.
            _ => {}
        }
    }
    h.finish()
}

/// The bytes of the string at `idx`.
///
/// # Safety
/// `s` must be what `lua_tolstring` returned for the string at `idx`.
#[allow(unsafe_code)]
unsafe fn bytes<'a>(s: *const u8, state: *mut lua_State, idx: c_int) -> &'a [u8] {
    // SAFETY: the caller's promise; `lua_objlen` is a string's length in bytes.
    unsafe { if s.is_null() { &[] } else { std::slice::from_raw_parts(s, ffi::lua_objlen(state, idx)) } }
}

/// A table's entries, summed.
///
/// # Safety
/// As [`fingerprint`], for a table at `idx`.
#[allow(unsafe_code)]
unsafe fn table(state: *mut lua_State, idx: c_int, seen: &mut HashSet<*const c_void>, depth: u32) -> u64 {
    let mut sum = 0u64;
    // SAFETY: `lua_next` walks the table with a key and a value above it, popped here.
    unsafe {
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            let top = ffi::lua_gettop(state);
            let key = fingerprint(state, top - 1, seen, depth - 1);
            let value = fingerprint(state, top, seen, depth - 1);
            sum = sum.wrapping_add(key.rotate_left(17) ^ value);
            ffi::lua_pop(state, 1);
        }
    }
    sum
}

/// A Lua function's upvalues, in order.
///
/// # Safety
/// As [`fingerprint`], for a Lua function at `idx`.
#[allow(unsafe_code)]
unsafe fn function(state: *mut lua_State, idx: c_int, seen: &mut HashSet<*const c_void>, depth: u32) -> u64 {
    let mut h = DefaultHasher::new();
    // SAFETY: each upvalue is pushed by `lua_getupvalue` and popped after it is read.
    unsafe {
        for n in 1.. {
            if ffi::lua_getupvalue(state, idx, n).is_null() {
                break;
            }
            fingerprint(state, ffi::lua_gettop(state), seen, depth - 1).hash(&mut h);
            ffi::lua_pop(state, 1);
        }
    }
    h.finish()
}
