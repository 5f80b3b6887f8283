//! What a script keeps between hook calls, for `meeple check` to compare before and after games.
//!
//! A script must keep nothing of a game in its own variables (a game can be copied, replayed or
//! played beside another on the same VM); `check` plays games to catch one that does, which a
//! counter read only in rare positions escapes. This looks at the variables themselves: each
//! local of a file that a handler uses (its upvalues) and each global the script set, down
//! through the tables and the functions' locals they reach, as the values found at the end of
//! each path (`["base:A"]`, `.count`). A value that differs at the same path after more games was
//! written by a hook; a path that only appears is a cache filling up (the tags of each tile kind,
//! learnt as they come), which is no state of a game.

use meeple_core::KeptValue;
use mlua::ffi::{self, lua_State};
use mlua::{Function, Lua, Value};
use std::collections::{BTreeMap, HashSet};
use std::ffi::{CStr, c_int, c_void};
use std::hash::{DefaultHasher, Hash, Hasher};

/// How deep a value is followed.
const DEPTH: u32 = 16;

/// The most values looked at under one variable: a script's tables of data are far smaller.
const MOST_LEAVES: usize = 100_000;

/// The locals `handler` uses, each with what it holds and, when its file declares it in so
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
            let leaves = leaves_of(state, ffi::lua_gettop(state));
            ffi::lua_settop(state, f);
            let declared = files.get(file).filter(|_| !name.is_empty()).and_then(|text| declaration(text, &name, line));
            let place = declared.or((line > 0).then_some(line)).map(|l| format!("{chunk}:{l}"));
            let name = if name.is_empty() { format!("upvalue {n}") } else { format!("`{name}`") };
            let what = format!("{name}, a local that {named}{at} uses,");
            kept.push(KeptValue { what, leaves, place });
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

/// The globals the script set, each with what it holds.
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
        let leaves = lua.exec_raw_lua(|raw| unsafe {
            let state = raw.state();
            let top = ffi::lua_gettop(state);
            if ffi::lua_checkstack(state, 4) == 0 {
                return Err(mlua::Error::StackError);
            }
            raw.push(&value)?;
            let leaves = leaves_of(state, ffi::lua_gettop(state));
            ffi::lua_settop(state, top);
            Ok(leaves)
        })?;
        kept.push(KeptValue { what: format!("the global `{name}`"), leaves, place: None });
    }
    kept.sort_by(|a, b| a.what.cmp(&b.what));
    Ok(kept)
}

/// The values at the ends of the paths from the value at `idx` (an absolute index), sorted by
/// path.
///
/// # Safety
/// `idx` must be a valid absolute index of `state`.
#[allow(unsafe_code)]
unsafe fn leaves_of(state: *mut lua_State, idx: c_int) -> Vec<(String, u64)> {
    let mut walk = Walk { seen: HashSet::new(), path: String::new(), leaves: Vec::new() };
    // SAFETY: the caller's promise.
    unsafe { walk.value(state, idx, DEPTH) };
    walk.leaves.sort();
    walk.leaves
}

/// A walk from one variable down through what it reaches.
struct Walk {
    /// Tables and functions met already: a table that holds itself is followed once.
    seen: HashSet<*const c_void>,
    /// The path to the value being looked at.
    path: String,
    leaves: Vec<(String, u64)>,
}

impl Walk {
    /// Notes the value at `idx`, or the values it reaches.
    ///
    /// # Safety
    /// `idx` must be a valid absolute index of `state`.
    #[allow(unsafe_code)]
    unsafe fn value(&mut self, state: *mut lua_State, idx: c_int, depth: u32) {
        if self.leaves.len() >= MOST_LEAVES {
            return;
        }
        let mut h = DefaultHasher::new();
        // SAFETY: each branch reads the value at `idx` as its type allows, and leaves the stack
        // as it found it.
        unsafe {
            let kind = ffi::lua_type(state, idx);
            kind.hash(&mut h);
            match kind {
                ffi::LUA_TBOOLEAN => ffi::lua_toboolean(state, idx).hash(&mut h),
                ffi::LUA_TNUMBER => ffi::lua_tonumber(state, idx).to_bits().hash(&mut h),
                ffi::LUA_TSTRING => string(state, idx).hash(&mut h),
                ffi::LUA_TBUFFER => {
                    let mut len = 0;
                    let data = ffi::lua_tobuffer(state, idx, &mut len).cast::<u8>();
                    if !data.is_null() {
                        std::slice::from_raw_parts(data, len).hash(&mut h);
                    }
                }
                ffi::LUA_TTABLE | ffi::LUA_TFUNCTION if ffi::lua_iscfunction(state, idx) == 0 => {
                    let followed = depth > 0
                        && self.seen.insert(ffi::lua_topointer(state, idx))
                        && ffi::lua_checkstack(state, 3) != 0;
                    // A table or a function is what it reaches: one that gains entries later
                    // only grows (an empty table reaches nothing yet).
                    if followed {
                        if kind == ffi::LUA_TTABLE {
                            self.table(state, idx, depth);
                        } else {
                            self.function(state, idx, depth);
                        }
                        return;
                    }
                }
                // Userdata, threads and the host's functions: what they are, not what they hold
                // (the view, the sink, the API).
                _ => {}
            }
        }
        self.leaves.push((self.path.clone(), h.finish()));
    }

    /// Each entry of the table at `idx`, at the path of its key.
    ///
    /// # Safety
    /// As [`Walk::value`], for a table with room for 3 more values on the stack.
    #[allow(unsafe_code)]
    unsafe fn table(&mut self, state: *mut lua_State, idx: c_int, depth: u32) {
        let at = self.path.len();
        // SAFETY: `lua_next` walks the table with a key and a value above it, popped here; the
        // key is read without `lua_tolstring` turning a number into a string, which would
        // confuse `lua_next`.
        unsafe {
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, idx) != 0 {
                let top = ffi::lua_gettop(state);
                match ffi::lua_type(state, top - 1) {
                    ffi::LUA_TSTRING => {
                        let key = String::from_utf8_lossy(string(state, top - 1)).into_owned();
                        self.path.push_str(&format!("[{key:?}]"));
                    }
                    ffi::LUA_TNUMBER => self.path.push_str(&format!("[{}]", ffi::lua_tonumber(state, top - 1))),
                    ffi::LUA_TBOOLEAN => self.path.push_str(&format!("[{}]", ffi::lua_toboolean(state, top - 1) != 0)),
                    // A table or a function as a key: the same in any VM only by what it is.
                    ffi::LUA_TTABLE => self.path.push_str("[a table]"),
                    _ => self.path.push_str("[a value]"),
                }
                self.value(state, top, depth - 1);
                self.path.truncate(at);
                ffi::lua_pop(state, 1);
            }
        }
    }

    /// Each upvalue of the Lua function at `idx`, at the path of its name.
    ///
    /// # Safety
    /// As [`Walk::value`], for a Lua function with room for 3 more values on the stack.
    #[allow(unsafe_code)]
    unsafe fn function(&mut self, state: *mut lua_State, idx: c_int, depth: u32) {
        let at = self.path.len();
        // SAFETY: each upvalue is pushed by `lua_getupvalue` and popped after it is read.
        unsafe {
            for n in 1.. {
                let name = ffi::lua_getupvalue(state, idx, n);
                if name.is_null() {
                    break;
                }
                let name = CStr::from_ptr(name).to_string_lossy();
                self.path.push_str(&if name.is_empty() { format!(".#{n}") } else { format!(".{name}") });
                self.value(state, ffi::lua_gettop(state), depth - 1);
                self.path.truncate(at);
                ffi::lua_pop(state, 1);
            }
        }
    }
}

/// The bytes of the string at `idx`.
///
/// # Safety
/// The value at `idx` must be a string.
#[allow(unsafe_code)]
unsafe fn string<'a>(state: *mut lua_State, idx: c_int) -> &'a [u8] {
    let mut len = 0;
    // SAFETY: the caller's promise: `lua_tolstring` of a string changes nothing.
    unsafe {
        let s = ffi::lua_tolstring(state, idx, &mut len).cast::<u8>();
        if s.is_null() { &[] } else { std::slice::from_raw_parts(s, len) }
    }
}
