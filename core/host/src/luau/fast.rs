//! The view's most used functions as plain Luau C functions.
//!
//! A function made with `Lua::create_function` goes through mlua's callback machinery: about a
//! thousand instructions a call, more than most of these functions do. Scripts call them many
//! times per hook (`view:feature_id` in a loop over a tile's segments), so they read their
//! arguments from and push their results onto the Lua stack directly, as Luau's own libraries
//! do, records included. The rest of the API stays on mlua, where convenience matters more.
//!
//! Every function runs its body inside `catch_unwind`, drops everything it owns, and only then
//! raises a Lua error: no Rust value is alive when Luau unwinds the stack.

use super::api::{resolve, stage_name};
use super::records::Record;
use super::vm::{Ctx, current};
use meeple_core::features::SegId;
use meeple_core::figures::{Figure, FigureId, Location};
use meeple_core::tileset::{End, TileDef};
use meeple_core::{Pos, TileInfo, View};
use mlua::ffi::{self, lua_State};
use mlua::{Lua, Table};
use std::cell::Cell;
use std::ffi::{CStr, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A function's stack: argument `n` (counting from 1 after the view) and the results pushed.
struct Stack {
    state: *mut lua_State,
    name: &'static str,
    pushed: c_int,
    /// The VM's hard memory limit.
    limit: usize,
    /// The registry references of the records' metatables (`Ctx::records`).
    records: [c_int; Record::ALL.len()],
}

type Body = fn(&mut Stack, &View<'_>, &Ctx) -> Result<(), String>;

/// A field of a record pushed by [`Stack::record_out`].
enum Field<'a> {
    Int(i64),
    Bool(bool),
    Str(&'a str),
    Nil,
}

impl Stack {
    fn int(&self, n: c_int, what: &str) -> Result<i64, String> {
        let mut ok = 0;
        // SAFETY: reading a stack slot of the running C function; any index is valid to read.
        // A string that reads as a number is refused: Lua would convert it without a word.
        #[allow(unsafe_code)]
        let v = unsafe {
            let number = ffi::lua_type(self.state, n + 1) == ffi::LUA_TNUMBER;
            if number { ffi::lua_tointegerx(self.state, n + 1, &mut ok) } else { 0 }
        };
        if ok == 0 {
            return Err(format!("view:{}: {what} must be an integer, got {}", self.name, self.type_name(n + 1)));
        }
        Ok(v)
    }

    /// The position given as the first two arguments; `None` for one no board reaches (`as`
    /// would fold 2^32 onto 0, and a neighbour of i32::MAX overflows).
    fn pos(&self) -> Result<Option<Pos>, String> {
        const FAR: i64 = 1 << 20;
        let (x, y) = (self.int(1, "x")?, self.int(2, "y")?);
        Ok(((-FAR..=FAR).contains(&x) && (-FAR..=FAR).contains(&y)).then(|| Pos::new(x as i32, y as i32)))
    }

    fn type_name(&self, index: c_int) -> String {
        // SAFETY: as in `int`; the type name is a static C string.
        #[allow(unsafe_code)]
        unsafe {
            let t = ffi::lua_type(self.state, index);
            std::ffi::CStr::from_ptr(ffi::lua_typename(self.state, t)).to_string_lossy().into_owned()
        }
    }

    fn player(&self, n: c_int, view: &View<'_>) -> Result<u8, String> {
        let p = self.int(n, "the player")?;
        let count = view.players() as i64;
        if p < 1 || p > count {
            return Err(format!("player {p} does not exist; players are 1 to {count}"));
        }
        Ok((p - 1) as u8)
    }

    fn seg(&self, n: c_int, view: &View<'_>) -> Result<u16, String> {
        let seg = self.int(n, "the segment")?;
        if seg < 0 || seg > u16::MAX as i64 || !view.has_segment(seg as u16) {
            return Err(format!("segment {seg} does not exist"));
        }
        Ok(seg as u16)
    }

    fn placed(&self, n: c_int, view: &View<'_>) -> Result<TileInfo, String> {
        let index = self.int(n, "the tile index")?;
        u16::try_from(index)
            .ok()
            .and_then(|i| view.placed(i))
            .ok_or_else(|| format!("no placed tile has index {index}"))
    }

    fn str(&self, n: c_int, what: &str) -> Result<&str, String> {
        let Some(bytes) = self.bytes(n) else {
            return Err(format!("view:{}: {what} must be a string, got {}", self.name, self.type_name(n + 1)));
        };
        std::str::from_utf8(bytes).map_err(|_| format!("view:{}: {what} is not UTF-8", self.name))
    }

    /// The bytes of a string argument, not yet checked as UTF-8 (`None`: not a string).
    fn bytes(&self, n: c_int) -> Option<&[u8]> {
        // SAFETY: the string stays on the stack, unchanged, until the function returns, which
        // outlives the borrow of `self`; `lua_tolstring` is only called on a string, so it does
        // not convert the slot in place.
        #[allow(unsafe_code)]
        unsafe {
            if ffi::lua_type(self.state, n + 1) != ffi::LUA_TSTRING {
                return None;
            }
            let mut len = 0;
            let p = ffi::lua_tolstring(self.state, n + 1, &mut len);
            Some(std::slice::from_raw_parts(p.cast::<u8>(), len))
        }
    }

    /// A figure kind by name (`builder` or `traders-builders:builder`).
    fn figure_kind(&self, n: c_int, view: &View<'_>, ctx: &Ctx) -> Result<u8, String> {
        let ids = view.rules().figures().iter().map(|f| f.id.as_str());
        self.named(n, &ctx.figure_kind, ids, ctx, ("the figure kind", "figure kind")).map(|i| i as u8)
    }

    /// A token by name (`wine` or `traders-builders:wine`).
    fn token(&self, n: c_int, view: &View<'_>, ctx: &Ctx) -> Result<u16, String> {
        let ids = view.rules().tokens().iter().map(|t| t.id.as_str());
        self.named(n, &ctx.token, ids, ctx, ("the token", "token")).map(|i| i as u16)
    }

    /// The index among `ids` of the name in argument `n`: `last`'s if it is the name resolved
    /// last, else what `resolve` says (remembered in `last`). `what` names the argument and the
    /// kind of name in errors.
    fn named<'i>(
        &self,
        n: c_int,
        last: &LastName,
        ids: impl Iterator<Item = &'i str> + Clone,
        ctx: &Ctx,
        what: (&str, &str),
    ) -> Result<usize, String> {
        if let Some(index) = self.bytes(n).and_then(|b| last.get(b)) {
            return Ok(index);
        }
        let name = self.str(n, what.0)?;
        let index = resolve(ids, &ctx.script.id, name, what.1).map_err(message)?;
        last.set(name.as_bytes(), index);
        Ok(index)
    }

    fn int_out(&mut self, v: i64) -> Result<(), String> {
        // SAFETY: pushes onto the stack of the running C function; Luau gives every C function
        // LUA_MINSTACK (20) free slots, and none of these pushes more than 7 values.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_pushinteger(self.state, v)
        };
        self.pushed += 1;
        Ok(())
    }

    fn str_out(&mut self, v: &str) -> Result<(), String> {
        // SAFETY: as in `int_out`; Luau copies the bytes.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_pushlstring(self.state, v.as_ptr().cast(), v.len())
        };
        self.pushed += 1;
        Ok(())
    }

    fn nil_out(&mut self) -> Result<(), String> {
        // SAFETY: as in `int_out`.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_pushnil(self.state)
        };
        self.pushed += 1;
        Ok(())
    }

    /// Makes sure the VM has room for an answer of about `bytes` (see [`ROOM`]).
    fn reserve(&self, bytes: usize) -> Result<(), String> {
        room(self.state, self.limit, bytes)
    }

    /// A list of numbers, as a Lua array.
    fn list_out(&mut self, items: impl ExactSizeIterator<Item = i64>) -> Result<(), String> {
        let n = items.len();
        // A slot of the array part takes 16 bytes.
        self.reserve(n.saturating_mul(16))?;
        // SAFETY: as in `int_out`: a new table, then each item pushed and stored in it.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_createtable(self.state, n as c_int, 0);
            for (i, v) in items.enumerate() {
                ffi::lua_pushinteger(self.state, v);
                ffi::lua_rawseti(self.state, -2, i as i64 + 1);
            }
        }
        self.pushed += 1;
        Ok(())
    }
}

impl Stack {
    /// A record of type `r`.
    fn record_out(&mut self, r: Record, fields: &[(&CStr, Field<'_>)]) -> Result<(), String> {
        self.record_push(r, fields);
        self.pushed += 1;
        Ok(())
    }

    /// Pushes a record of type `r`: a table with string keys and its type's metatable (counted
    /// by the caller).
    fn record_push(&self, r: Record, fields: &[(&CStr, Field<'_>)]) {
        self.record_push_with_room(r, fields, 0);
    }

    /// [`Stack::record_push`], with room for `more` fields the caller sets next (its lists):
    /// a table grown past its room is rehashed.
    fn record_push_with_room(&self, r: Record, fields: &[(&CStr, Field<'_>)], more: usize) {
        // SAFETY: as in `int_out`: a new table, then each value pushed and stored in it.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_createtable(self.state, 0, (fields.len() + more) as c_int);
            for (key, value) in fields {
                match *value {
                    Field::Int(v) => ffi::lua_pushinteger(self.state, v),
                    Field::Bool(v) => ffi::lua_pushboolean(self.state, v as c_int),
                    Field::Str(v) => {
                        ffi::lua_pushlstring(self.state, v.as_ptr().cast(), v.len());
                    }
                    Field::Nil => ffi::lua_pushnil(self.state),
                }
                ffi::lua_rawsetfield(self.state, -2, key.as_ptr());
            }
            ffi::lua_rawgeti(self.state, ffi::LUA_REGISTRYINDEX, self.records[r as usize] as ffi::lua_Integer);
            ffi::lua_setmetatable(self.state, -2);
        }
    }

    /// Stores the value on top of the stack in the table below it, under `key`.
    fn set_field(&self, key: &CStr) {
        // SAFETY: the caller pushed a table and then a value.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_rawsetfield(self.state, -2, key.as_ptr())
        }
    }

    /// A list of `Figure` records.
    fn figures_out(&mut self, view: &View<'_>, figures: &[(FigureId, Figure)]) -> Result<(), String> {
        // A figure's record and its location's take some 600 bytes.
        self.reserve(figures.len().saturating_mul(1024))?;
        // SAFETY: as in `list_out`; every record is stored in the list as soon as it is built, so
        // the stack never holds more than four values of ours.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_createtable(self.state, figures.len() as c_int, 0);
        }
        for (i, (id, f)) in figures.iter().enumerate() {
            self.figure_push(view, *id, f);
            // SAFETY: the record is on top, the list below it.
            #[allow(unsafe_code)]
            unsafe {
                ffi::lua_rawseti(self.state, -2, i as i64 + 1)
            };
        }
        self.pushed += 1;
        Ok(())
    }

    /// Pushes a `Figure` record, its `Location` in it.
    fn figure_push(&self, view: &View<'_>, id: FigureId, f: &Figure) {
        let attached = f.attached_to.map_or(Field::Nil, |a| Field::Int(a as i64));
        let fields = [
            (c"id", Field::Int(id as i64)),
            (c"kind", Field::Str(&view.rules().figure(f.kind).id)),
            (c"owner", Field::Int(f.owner as i64 + 1)),
            (c"face", Field::Int(f.face as i64)),
            (c"attached_to", attached),
        ];
        self.record_push_with_room(Record::Figure, &fields, 1);
        self.location_push(view, &f.at);
        self.set_field(c"at");
    }

    /// Pushes a `Location` record.
    fn location_push(&self, view: &View<'_>, at: &Location) {
        match *at {
            Location::Supply => self.record_push(Record::Location, &[(c"kind", Field::Str("supply"))]),
            Location::Aside => self.record_push(Record::Location, &[(c"kind", Field::Str("aside"))]),
            Location::Segment { segment } => self.record_push(
                Record::Location,
                &[(c"kind", Field::Str("segment")), (c"seg", Field::Int(segment as i64))],
            ),
            Location::Point { tile, point } => {
                let id = view.placed(tile).map(|t| view.rules().tile(t.tile).def.points[point as usize].id.clone());
                self.record_push(
                    Record::Location,
                    &[
                        (c"kind", Field::Str("point")),
                        (c"tile", Field::Int(tile as i64)),
                        (c"point", Field::Int(point as i64 + 1)),
                        (c"id", id.as_deref().map_or(Field::Nil, Field::Str)),
                    ],
                )
            }
        }
    }
}

impl Stack {
    /// Room for one `Segment` record and its lists.
    const SEGMENT_BYTES: usize = 2048;

    /// The segments of a tile as a list of `Segment` records: a placed tile's with their ids
    /// on the board (`placed`: its first segment and its index), a tile kind's without.
    fn segments_out(&mut self, def: &TileDef, placed: Option<(SegId, u16)>) -> Result<(), String> {
        let n = def.segments.len();
        self.reserve(n.saturating_mul(Self::SEGMENT_BYTES))?;
        self.segments_push(def, placed);
        self.pushed += 1;
        Ok(())
    }

    /// Pushes the list [`Stack::segments_out`] answers.
    fn segments_push(&self, def: &TileDef, placed: Option<(SegId, u16)>) {
        // SAFETY: as in `list_out`; each record is stored in the list as soon as it is built.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_createtable(self.state, def.segments.len() as c_int, 0)
        };
        for local in 0..def.segments.len() {
            self.segment_push(def, local, placed);
            // SAFETY: the record is on top, the list below it.
            #[allow(unsafe_code)]
            unsafe {
                ffi::lua_rawseti(self.state, -2, local as i64 + 1)
            };
        }
    }

    /// Pushes segment `local` of a tile as a `Segment` record (`placed` as in `segments_out`).
    /// Its other segments are named by their ids on the board, or from 1 on a tile kind.
    fn segment_push(&self, def: &TileDef, local: usize, placed: Option<(SegId, u16)>) {
        let s = &def.segments[local];
        let id = |i: u8| placed.map_or(i as i64 + 1, |(first, _)| first as i64 + i as i64);
        let mut fields = vec![
            (c"index", Field::Int(local as i64 + 1)),
            (c"id", Field::Str(&s.id)),
            (c"kind", Field::Str(s.kind.name())),
            (c"arms", Field::Int(s.arms as i64)),
            (c"goods", s.goods.as_deref().map_or(Field::Nil, Field::Str)),
            (c"field", s.field.map_or(Field::Nil, |f| Field::Int(id(f)))),
        ];
        if let Some((first, tile)) = placed {
            fields.push((c"seg", Field::Int(first as i64 + local as i64)));
            fields.push((c"tile", Field::Int(tile as i64)));
        }
        // Its five lists follow.
        self.record_push_with_room(Record::Segment, &fields, 5);
        self.strs_set(c"tags", s.tags.iter().map(String::as_str));
        let ends: Vec<String> = (s.ends.iter())
            .map(|e| match e {
                End::Side(side) => side.name().to_string(),
                End::Stop { kind, point: Some(p) } => format!("{kind}:{}", def.points[*p as usize].id),
                End::Stop { kind, point: None } => kind.clone(),
            })
            .collect();
        self.strs_set(c"ends", ends.iter().map(String::as_str));
        self.strs_set(c"sides", s.open_sides.iter().map(|side| side.name()));
        self.ints_set(c"cities", s.cities.iter().map(|&c| id(c)));
        self.ints_set(c"flanks", s.flanks.iter().map(|&c| id(c)));
    }

    /// Stores a list of strings in the table on top, under `key`.
    fn strs_set<'a>(&self, key: &CStr, items: impl ExactSizeIterator<Item = &'a str>) {
        // SAFETY: the caller's table is on top; a new list is pushed on it, filled and stored.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_createtable(self.state, items.len() as c_int, 0);
            for (i, v) in items.enumerate() {
                ffi::lua_pushlstring(self.state, v.as_ptr().cast(), v.len());
                ffi::lua_rawseti(self.state, -2, i as i64 + 1);
            }
        }
        self.set_field(key);
    }

    /// Stores a list of numbers in the table on top, under `key`.
    fn ints_set(&self, key: &CStr, items: impl ExactSizeIterator<Item = i64>) {
        // SAFETY: as in `strs_set`.
        #[allow(unsafe_code)]
        unsafe {
            ffi::lua_createtable(self.state, items.len() as c_int, 0);
            for (i, v) in items.enumerate() {
                ffi::lua_pushinteger(self.state, v);
                ffi::lua_rawseti(self.state, -2, i as i64 + 1);
            }
        }
        self.set_field(key);
    }
}

/// A tile kind's segments as a list of `Segment` records, for `meeple.tile`: built as the
/// view's are, in one protected call.
pub(crate) fn tile_kind_segments(lua: &Lua, ctx: &Ctx, def: &TileDef) -> mlua::Result<Table> {
    let limit = ctx.script.limits.hard_memory();
    let more = def.segments.len().saturating_mul(Stack::SEGMENT_BYTES);
    room_below(lua.used_memory(), limit, more).map_err(mlua::Error::runtime)?;
    let records = ctx.records.get();
    // SAFETY: `exec_raw` runs the closure as a C function inside a protected call. Nothing in
    // it raises a Lua error (the room for the records was made sure of above), and a panic is
    // caught before it could unwind into Luau: the closure then answers nil.
    #[allow(unsafe_code)]
    let list: Option<Table> = unsafe {
        lua.exec_raw((), |state| {
            let s = Stack { state, name: "tile", pushed: 0, limit, records };
            if catch_unwind(AssertUnwindSafe(|| s.segments_push(def, None))).is_err() {
                ffi::lua_settop(state, 0);
                ffi::lua_pushnil(state);
            }
        })?
    };
    list.ok_or_else(|| mlua::Error::runtime("meeple.tile: internal error"))
}

/// The last name (of a figure kind or a token) a view function resolved, and its index. Scripts
/// ask for the same one over and over (`view:supply(player, "builder")` at every tile), and
/// resolving it (checking the UTF-8, comparing it with every id) costs more than the rest of
/// the call. The rules of a VM do not change, so neither does the index of a name.
#[derive(Default)]
pub(crate) struct LastName(Cell<Option<(usize, [u8; LastName::BYTES], usize)>>);

impl LastName {
    /// The longest name remembered.
    const BYTES: usize = 48;

    fn get(&self, name: &[u8]) -> Option<usize> {
        let (len, bytes, index) = self.0.get()?;
        (bytes[..len] == *name).then_some(index)
    }

    fn set(&self, name: &[u8], index: usize) {
        if name.len() <= Self::BYTES {
            let mut bytes = [0; Self::BYTES];
            bytes[..name.len()].copy_from_slice(name);
            self.0.set(Some((name.len(), bytes, index)));
        }
    }
}

/// Runs a body for the C function `name` and returns its result count, or raises its error.
fn run(state: *mut lua_State, name: &'static str, body: Body) -> c_int {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut stack = Stack { state, name, pushed: 0, limit: 0, records: [0; Record::ALL.len()] };
        current(|view, ctx| {
            stack.limit = ctx.script.limits.hard_memory();
            stack.records = ctx.records.get();
            room(state, stack.limit, 0).map_err(mlua::Error::runtime)?;
            body(&mut stack, view, ctx).map_err(mlua::Error::runtime)
        })
        .map(|()| stack.pushed)
        .map_err(message)
    }));
    let message = match outcome {
        Ok(Ok(pushed)) => return pushed,
        // Looked at only once the call failed: `view.feature(id)` fails for its missing `self`.
        // SAFETY: reads the type of a stack slot of the running C function.
        #[allow(unsafe_code)]
        Ok(Err(_)) if unsafe { ffi::lua_type(state, 1) } != ffi::LUA_TTABLE => super::api::dotted("view", name),
        Ok(Err(message)) => message,
        Err(_) => format!("view:{name}: internal error"),
    };
    raise(state, message)
}

/// An error's message without mlua's "runtime error: " in front: the script is told only
/// what went wrong, once.
pub(crate) fn message(e: mlua::Error) -> String {
    match e {
        mlua::Error::RuntimeError(m) => m,
        other => other.to_string(),
    }
}

/// The allocator must not refuse what a view function pushes: a refusal is a Luau error, a C++
/// exception, and one that reaches `catch_unwind` aborts the process. So a function runs only
/// with this much room below the VM's hard limit, enough for any answer of a few records, and
/// one that answers with a list first makes sure of room for the whole list
/// ([`Stack::reserve`]).
const ROOM: usize = 1 << 20;

/// Whether the VM has room for `more` bytes besides [`ROOM`] below its hard limit.
fn room(state: *mut lua_State, limit: usize, more: usize) -> Result<(), String> {
    // SAFETY: asks the running state its size; allocates nothing.
    #[allow(unsafe_code)]
    let used = unsafe { ffi::lua_gc(state, ffi::LUA_GCCOUNT, 0) } as usize * 1024;
    room_below(used, limit, more)
}

/// Whether a VM holding `used` bytes has room for `more` besides [`ROOM`] below `limit`.
fn room_below(used: usize, limit: usize, more: usize) -> Result<(), String> {
    if used.saturating_add(ROOM).saturating_add(more) > limit {
        return Err(format!("the script ran out of memory (its VM holds {} MiB)", used >> 20));
    }
    Ok(())
}

/// Raises `message` after the script line that called the function (`init.luau:12: …`), as
/// Luau's own errors read: the message a `pcall` gets is the one the hook's error reports.
pub(crate) fn raise(state: *mut lua_State, message: String) -> ! {
    // SAFETY: the message is copied into Lua and dropped before the error unwinds the stack;
    // the caller owns nothing else. The two pushes are within the C function's free slots.
    #[allow(unsafe_code)]
    unsafe {
        ffi::luaL_where(state, 1);
        ffi::lua_pushlstring(state, message.as_ptr().cast(), message.len());
        drop(message);
        ffi::lua_concat(state, 2);
        ffi::lua_error(state)
    }
}

macro_rules! fast_functions {
    ($($name:ident => $body:expr,)*) => {
        /// The C function for an API name, if it has one.
        pub(crate) fn function(name: &str) -> Option<ffi::lua_CFunction> {
            $(
                #[allow(unsafe_code)]
                extern "C-unwind" fn $name(state: *mut lua_State) -> c_int {
                    run(state, stringify!($name), $body)
                }
            )*
            match name {
                $(stringify!($name) => Some($name as ffi::lua_CFunction),)*
                _ => None,
            }
        }
    };
}

fast_functions! {
    players => |s, v, _| s.int_out(v.players() as i64),
    tile_count => |s, v, _| s.int_out(v.tile_count() as i64),
    turn => |s, v, _| {
        let t = v.turn();
        s.record_out(Record::Turn, &[
            (c"number", Field::Int(t.number as i64)),
            (c"player", Field::Int(t.player as i64 + 1)),
            (c"part", Field::Int(t.part as i64)),
            (c"stage", Field::Str(stage_name(t.stage))),
            (c"placed", t.placed.map_or(Field::Nil, |i| Field::Int(i as i64))),
            (c"tiles_left", Field::Int(t.tiles_left as i64)),
        ])
    },
    tile => |s, v, _| {
        let index = s.int(1, "the tile index")?;
        tile_out(s, v, u16::try_from(index).ok().and_then(|i| v.placed(i)))
    },
    tile_at => |s, v, _| {
        let pos = s.pos()?;
        tile_out(s, v, pos.and_then(|pos| v.tile_at(pos)))
    },
    segment_ids => |s, v, _| {
        let t = s.placed(1, v)?;
        let n = v.rules().tile(t.tile).def.segments.len() as u16;
        s.list_out((t.first_segment..t.first_segment + n).map(i64::from))
    },
    tile_features => |s, v, _| {
        let t = s.placed(1, v)?;
        let n = v.rules().tile(t.tile).def.segments.len() as u16;
        s.list_out((t.first_segment..t.first_segment + n).map(|seg| feature_root(v, seg) as i64))
    },
    segments => |s, v, _| {
        let t = s.placed(1, v)?;
        s.segments_out(&v.rules().tile(t.tile).def, Some((t.first_segment, t.index)))
    },
    segment => |s, v, _| {
        let info = v.segment(s.seg(1, v)?);
        let t = v.placed(info.tile).expect("a segment's tile is placed");
        s.reserve(Stack::SEGMENT_BYTES)?;
        s.segment_push(&v.rules().tile(t.tile).def, info.local as usize, Some((t.first_segment, t.index)));
        s.pushed += 1;
        Ok(())
    },
    segment_kind => |s, v, _| {
        let seg = s.seg(1, v)?;
        s.str_out(v.segment(seg).kind.name())
    },
    feature_id => |s, v, _| {
        let seg = s.seg(1, v)?;
        s.int_out(feature_root(v, seg) as i64)
    },
    feature => |s, v, _| {
        let f = v.feature(s.seg(1, v)?);
        s.record_out(Record::Feature, &[
            (c"id", Field::Int(f.id as i64)),
            (c"kind", Field::Str(f.kind.name())),
            (c"completed", Field::Bool(f.completed)),
            (c"scored", Field::Bool(f.scored)),
            (c"tiles", Field::Int(f.tiles as i64)),
            (c"arms", Field::Int(f.arms as i64)),
            (c"open", Field::Int(f.open as i64)),
        ])
    },
    feature_segments => |s, v, _| {
        let segs = v.feature_segments(s.seg(1, v)?);
        s.list_out(segs.into_iter().map(i64::from))
    },
    field_cities => |s, v, _| {
        let cities = v.field_cities(s.seg(1, v)?);
        s.list_out(cities.into_iter().map(i64::from))
    },
    supply => |s, v, ctx| {
        let player = s.player(1, v)?;
        let kind = s.figure_kind(2, v, ctx)?;
        s.int_out(v.supply(player, kind) as i64)
    },
    figure_segments => |s, v, ctx| {
        let player = s.player(1, v)?;
        let kind = s.figure_kind(2, v, ctx)?;
        // The figures of a kind come in ascending ids, as in `figures()`.
        let figures = v.figures_of_kind(kind);
        let segs: Vec<i64> = figures
            .iter()
            .filter(|(_, f)| f.owner == player)
            .filter_map(|(_, f)| f.segment())
            .map(i64::from)
            .collect();
        s.list_out(segs.into_iter())
    },
    score => |s, v, _| {
        let player = s.player(1, v)?;
        s.int_out(v.score(player) as i64)
    },
    score_before_final => |s, v, _| {
        let player = s.player(1, v)?;
        s.int_out(v.score_before_final(player) as i64)
    },
    player_name => |s, v, _| {
        let player = s.player(1, v)?;
        s.str_out(&v.player_name(player))
    },
    tokens => |s, v, ctx| {
        let player = s.player(1, v)?;
        let token = s.token(2, v, ctx)?;
        s.int_out(v.tokens(player, token) as i64)
    },
    token_supply => |s, v, ctx| {
        let token = s.token(1, v, ctx)?;
        s.int_out(v.token_supply(token) as i64)
    },
    figures => |s, v, _| {
        let figures = v.figures();
        s.figures_out(v, &figures)
    },
    figure => |s, v, _| {
        let id = s.int(1, "the figure id")?;
        match FigureId::try_from(id).ok().and_then(|id| Some((id, v.figure(id)?))) {
            Some((id, f)) => {
                s.figure_push(v, id, &f);
                s.pushed += 1;
                Ok(())
            }
            None => s.nil_out(),
        }
    },
    figures_of_kind => |s, v, ctx| {
        let kind = s.figure_kind(1, v, ctx)?;
        s.figures_out(v, &v.figures_of_kind(kind))
    },
    figures_on => |s, v, _| {
        let figures = v.figures_on(s.seg(1, v)?);
        s.figures_out(v, &figures)
    },
    neighbours => |s, v, _| {
        let pos = s.pos()?;
        s.int_out(pos.map_or(0, |pos| v.neighbours(pos)) as i64)
    },
}

/// The id of the feature a segment belongs to (its root segment): asked of the game state when
/// the view has one, as `View::feature` also counts the feature's tiles, which a field has many.
fn feature_root(view: &View<'_>, seg: SegId) -> SegId {
    match view.state() {
        Some(state) => state.features().find(seg),
        None => view.feature(seg).id,
    }
}

/// A placed tile as a `Tile` record, or nothing.
fn tile_out(s: &mut Stack, view: &View<'_>, tile: Option<TileInfo>) -> Result<(), String> {
    let Some(t) = tile else { return s.nil_out() };
    let kind = view.rules().tile(t.tile);
    s.record_out(
        Record::Tile,
        &[
            (c"index", Field::Int(t.index as i64)),
            (c"tile", Field::Str(&kind.key)),
            (c"id", Field::Str(&kind.def.id)),
            (c"x", Field::Int(t.pos.x as i64)),
            (c"y", Field::Int(t.pos.y as i64)),
            (c"rotation", Field::Int(t.rotation.quarter_turns() as i64)),
        ],
    )
}
