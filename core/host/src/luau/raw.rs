//! Calls into a VM through Luau's C API, for the hook calls.
//!
//! `mlua::Function::call` costs about 330 instructions before Luau runs anything: it upgrades a
//! weak reference to the VM, guards the stack, and copies its message handler, the function and
//! each argument from its reference thread. A [`Caller`] runs its calls on a Lua thread of its
//! own, whose stack holds the message handler and every function and argument it passes: a call
//! copies the function and its arguments to the top of that stack and calls `lua_pcall`. (Values
//! kept in the registry would cost 60 instructions each to fetch.) The message handler does what
//! mlua's does, and errors come back as the same `mlua::Error` values `Function::call` returns.

use mlua::ffi::{self, lua_State};
use mlua::{IntoLua, Lua, Value};
use std::cell::Cell;
use std::ffi::{c_int, c_void};

/// A value kept by a [`Caller`]: its slot on the caller's stack.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ref(c_int);

/// Calls functions in one VM on a thread of its own.
pub(crate) struct Caller {
    /// The thread the calls run on. Slot 1 holds the message handler, [`traceback`]; the
    /// following slots the values kept with [`Caller::keep`].
    thread: *mut lua_State,
    /// The number of slots in use between calls.
    kept: Cell<c_int>,
}

impl Caller {
    /// A caller for the VM of `lua`, which must outlive it.
    pub fn new(lua: &Lua) -> mlua::Result<Caller> {
        // SAFETY: makes the thread and keeps it in the registry (so that it lives as long as the
        // VM); pushes an error value to learn the metatable mlua gives errors and pops it; puts
        // the handler on the new thread. The main stack is as before when this returns.
        #[allow(unsafe_code)]
        lua.exec_raw_lua(|raw| unsafe {
            let state = raw.state();
            reserve(state, 2)?;
            let thread = ffi::lua_newthread(state);
            ffi::lua_ref(state, -1);
            ffi::lua_pop(state, 1);
            raw.push_value(&Value::Error(Box::new(mlua::Error::runtime("probe"))))?;
            let wrapped = ffi::lua_getmetatablepointer(state, -1);
            ffi::lua_pop(state, 1);
            reserve(thread, 2)?;
            ffi::lua_pushlightuserdata(thread, wrapped.cast_mut());
            ffi::lua_pushcclosurek(thread, traceback, c"meeple.traceback".as_ptr(), 1, None);
            reserve(thread, MAX_ARGS + 1)?;
            Ok(Caller { thread, kept: Cell::new(1) })
        })
    }

    /// Keeps `value` on the caller's stack. Not to be called during a call.
    pub fn keep(&self, lua: &Lua, value: impl IntoLua) -> mlua::Result<Ref> {
        let value = value.into_lua(lua)?;
        // SAFETY: pushes the value on the current thread and moves it to the caller's, just
        // above the values kept before.
        #[allow(unsafe_code)]
        lua.exec_raw_lua(|raw| unsafe {
            let state = raw.state();
            reserve(state, 1)?;
            reserve(self.thread, 1)?;
            if ffi::lua_gettop(self.thread) != self.kept.get() {
                return Err(mlua::Error::runtime("values can only be kept between calls"));
            }
            raw.push_value(&value)?;
            ffi::lua_xmove(state, self.thread, 1);
            reserve(self.thread, MAX_ARGS + 1)?;
            self.kept.set(self.kept.get() + 1);
            Ok(Ref(self.kept.get()))
        })
    }

    /// Calls the handler `f` with at most [`MAX_ARGS`] `args` in protected mode; a value it
    /// returns is an error ([`returns_nothing`]).
    pub fn call(&self, lua: &Lua, f: Ref, args: &[Ref]) -> mlua::Result<()> {
        if args.len() > MAX_ARGS {
            return Err(mlua::Error::runtime("too many arguments for a hook call"));
        }
        let thread = self.thread;
        // SAFETY: the thread is alive while `lua` is (see `new`). The function and its arguments
        // are pushed above the kept values, in the room reserved when they were kept (the
        // collector shrinks no stack below what `lua_checkstack` reserved, and `lua_pushvalue`
        // would grow it anyway). `lua_pcall` pops them, and leaves either the results, as many
        // as were returned (none, for a handler, and then nothing is looked at; any are popped
        // here), or the error, which `pop_error` moves off: the top is as before.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_pushvalue(thread, f.0);
            for a in args {
                ffi::lua_pushvalue(thread, a.0);
            }
            match ffi::lua_pcall(thread, args.len() as c_int, ffi::LUA_MULTRET, 1) {
                ffi::LUA_OK => {
                    let kept = self.kept.get();
                    if ffi::lua_gettop(thread) == kept {
                        return Ok(());
                    }
                    let returned = type_name(ffi::lua_type(thread, kept + 1));
                    ffi::lua_settop(thread, kept);
                    returns_nothing(returned)
                }
                status => Err(pop_error(lua, thread, status)),
            }
        }
    }
}

impl Caller {
    /// Makes the kept table `table` read-only to scripts, or writable again.
    pub fn set_readonly(&self, table: Ref, readonly: bool) {
        // SAFETY: `table` is a slot of the caller's stack holding a table (kept by `keep`);
        // the flag is all that changes.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_setreadonly(self.thread, table.0, readonly as c_int)
        }
    }

    /// Sets fields of the kept, read-only table `table` (each a kept key and its value), lifting
    /// its read-only flag for the writes only. Every key must be one the table holds with a value
    /// that is not nil, as `values` are: Luau then finds the slot in place, so that nothing is
    /// allocated and no error can be raised here, outside any protected call. (A nil would let
    /// the collector take the key away.)
    pub fn fill(&self, table: Ref, values: &[(Ref, Plain)]) {
        let thread = self.thread;
        // SAFETY: as in `call`: the slots are the caller's, and every push (two at a time) is
        // within the room reserved above the kept values; `lua_rawset` pops both.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_setreadonly(thread, table.0, 0);
            for (key, value) in values {
                ffi::lua_pushvalue(thread, key.0);
                match *value {
                    Plain::Int(n) => ffi::lua_pushinteger(thread, n as ffi::lua_Integer),
                    Plain::Bool(b) => ffi::lua_pushboolean(thread, b as c_int),
                    Plain::Kept(r) => ffi::lua_pushvalue(thread, r.0),
                }
                ffi::lua_rawset(thread, table.0);
            }
            ffi::lua_setreadonly(thread, table.0, 1);
        }
    }
}

/// A value [`Caller::fill`] sets: none of them needs an allocation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Plain {
    Int(i64),
    Bool(bool),
    /// A value the caller keeps (a name).
    Kept(Ref),
}

/// The most arguments [`Caller::call`] passes.
pub(crate) const MAX_ARGS: usize = 4;

/// Makes room for `n` more values on the stack.
#[allow(unsafe_code)]
unsafe fn reserve(state: *mut lua_State, n: usize) -> mlua::Result<()> {
    // SAFETY: the caller passes a live state.
    if unsafe { ffi::lua_checkstack(state, n as c_int) } == 0 {
        return Err(mlua::Error::StackError);
    }
    Ok(())
}

/// Restores the stack's top when dropped.
struct Top {
    state: *mut lua_State,
    top: c_int,
}

impl Drop for Top {
    fn drop(&mut self) {
        // SAFETY: the state outlives this value, and its top was at least `top` at creation.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_settop(self.state, self.top)
        }
    }
}

/// A handler returned a value (of the type named): the engine reads nothing a handler returns,
/// so a rule written as a `return` (of new points, of `false` to forbid) would silently never
/// happen. A type of its own, so that the error can be placed near the `return` (at the
/// handler's function, else its `meeple.on`) when Luau names no line.
#[derive(Debug)]
pub(crate) struct Returned(pub &'static str);

impl std::fmt::Display for Returned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the handler returned a {}, but handlers return nothing: they change the game only through `out` \
             (out:set_score, out:add_points, out:forbid, out:offer …; docs/lua-api.md)",
            self.0
        )
    }
}

impl std::error::Error for Returned {}

impl Returned {
    /// True when `e` is this error.
    pub(crate) fn is(e: &mlua::Error) -> bool {
        e.downcast_ref::<Returned>().is_some()
    }
}

/// Refuses a value a handler returned (`None`: nil, or nothing), as [`Returned`].
#[cold]
pub(crate) fn returns_nothing(returned: Option<&'static str>) -> mlua::Result<()> {
    match returned {
        None => Ok(()),
        Some(t) => Err(mlua::Error::external(Returned(t))),
    }
}

/// The name of a Luau type, as `typeof` and [`super::api::luau_type`] give it; `None` for nil.
fn type_name(t: c_int) -> Option<&'static str> {
    Some(match t {
        ffi::LUA_TNIL | ffi::LUA_TNONE => return None,
        ffi::LUA_TBOOLEAN => "boolean",
        ffi::LUA_TNUMBER | ffi::LUA_TINTEGER => "number",
        ffi::LUA_TSTRING => "string",
        ffi::LUA_TTABLE => "table",
        ffi::LUA_TFUNCTION => "function",
        ffi::LUA_TVECTOR => "vector",
        ffi::LUA_TBUFFER => "buffer",
        ffi::LUA_TTHREAD => "thread",
        _ => "userdata",
    })
}

/// The error on top of `thread`'s stack as mlua reports it: the error of a Rust callback as it
/// was returned (a panic resumes), anything else as a message.
fn pop_error(lua: &Lua, thread: *mut lua_State, status: c_int) -> mlua::Error {
    // SAFETY: a failed `lua_pcall` left its error on top of the thread's stack; it is moved to
    // the current thread, where mlua pops it.
    #[allow(unsafe_code)]
    let value = lua.exec_raw_lua(|raw| unsafe {
        let state = raw.state();
        if state != thread {
            ffi::lua_xmove(thread, state, 1);
        }
        let _top = Top { state, top: ffi::lua_gettop(state) - 1 };
        raw.pop_value()
    });
    let message = match value {
        Value::Error(e) => return *e,
        Value::String(s) => s.to_string_lossy(),
        other => format!("{other:?}"),
    };
    match status {
        ffi::LUA_ERRMEM => mlua::Error::MemoryError(message),
        _ => mlua::Error::RuntimeError(message),
    }
}

/// Whether the error value on top of the stack reads as a message: a string, a number, or a
/// value with `__tostring`.
///
/// # Safety
/// `state` is a live Luau state with a value on top and room for one more.
#[allow(unsafe_code)]
unsafe fn printable(state: *mut lua_State) -> bool {
    // SAFETY: as the caller promises; `luaL_getmetafield` pushes the field only when found.
    unsafe {
        match ffi::lua_type(state, -1) {
            ffi::LUA_TSTRING | ffi::LUA_TNUMBER => true,
            _ if ffi::luaL_getmetafield(state, -1, c"__tostring".as_ptr()) != ffi::LUA_TNIL => {
                ffi::lua_pop(state, 1);
                true
            }
            _ => false,
        }
    }
}

/// What a script that raised an error with a value of this kind, not a message, is told.
pub(crate) fn not_a_message(kind: &str) -> String {
    format!("error() was given a {kind}, not a message: pass a string")
}

/// Luau's message for an allocation its allocator refused.
pub(crate) const LUAU_OUT_OF_MEMORY: &str = "not enough memory";

/// The message handler: as mlua's, leaves the errors of Rust callbacks (which carry their own
/// traceback) as they are and turns anything else into its message followed by a traceback.
/// Its upvalue is the metatable of mlua's error values.
#[allow(unsafe_code)]
unsafe extern "C-unwind" fn traceback(state: *mut lua_State) -> c_int {
    // SAFETY: Luau calls the handler with the error on top of the stack; `lua_checkstack` makes
    // room for what is pushed.
    unsafe {
        if ffi::lua_checkstack(state, 2) == 0 {
            return 1;
        }
        // Out of memory (the allocator's hard limit): what garbage there is goes first, so that
        // the traceback, which says where, has room.
        if ffi::lua_type(state, -1) == ffi::LUA_TSTRING {
            let text = std::ffi::CStr::from_ptr(ffi::lua_tolstring(state, -1, std::ptr::null_mut()));
            if text.to_bytes() == LUAU_OUT_OF_MEMORY.as_bytes() {
                ffi::lua_gc(state, ffi::LUA_GCCOLLECT, 0);
            }
        }
        let wrapped = ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)) as *const c_void;
        if ffi::lua_type(state, -1) == ffi::LUA_TUSERDATA && ffi::lua_getmetatablepointer(state, -1) == wrapped {
            return 1;
        }
        let message = if printable(state) {
            ffi::luaL_tolstring(state, -1, std::ptr::null_mut())
        } else {
            // `tostring` would give `table: 0x…`, which tells a modder nothing.
            let kind = std::ffi::CStr::from_ptr(ffi::luaL_typename(state, -1)).to_string_lossy();
            let text = not_a_message(&kind);
            ffi::lua_pushlstring(state, text.as_ptr().cast(), text.len());
            ffi::lua_tolstring(state, -1, std::ptr::null_mut())
        };
        if ffi::lua_checkstack(state, ffi::LUA_TRACEBACK_STACK) != 0 {
            ffi::luaL_traceback(state, state, message, 0);
            ffi::lua_remove(state, -2);
        }
        1
    }
}
