//! One sandboxed Luau VM running one expansion's script, and the calls into its handlers.
//!
//! The sandbox: only `table string math utf8 bit32 buffer` are loaded; `os`, `loadstring`,
//! `getfenv`, `setfenv`, `collectgarbage`, `debug` and the others of [`REMOVED`] are removed, and
//! reading one is an error that says so, as is reading any other global that is not defined
//! ([`NAME_THE_UNDEFINED`]); `require` is ours and resolves
//! only inside the expansion's folder; `math.random` draws from the expansion's random stream in
//! the game state (so replays reproduce it) and fails outside hooks; `print` goes to the log;
//! `sandbox(true)` makes every library and global read-only. Each hook call gets a budget of
//! interrupts (deterministic) and a wall-clock backstop. Memory has two limits: every 8
//! interrupts, a script whose VM still holds more than its limit once garbage is collected is
//! stopped; and the allocator refuses to go past twice the limit, which stops what one C function
//! allocates at once (`buffer.create`, `string.rep`) or a script keeps between calls.
//!
//! How the view reaches scripts: `view` and `out` are frozen tables of API functions, made once
//! per VM by the prelude. For the length of a hook call, a thread-local points at the VM's
//! context, which holds pointers to the call's `View` and `Commands`; the functions read them
//! through [`current`], [`with_view`] and [`with_out`]. This costs nothing per call, where
//! `Lua::scope` would cost about half a microsecond.

use super::events::{self, EventTables, Names};
use super::fast::LastName;
use super::lent;
use super::raw::{self, Caller, Ref};
use super::records::{self, Record};
use super::{Limits, Script};
use super::{api, clock};
use meeple_core::action::{Decision, Offer};
use meeple_core::{Commands, Event, HookError, HookKind, HookSet, Interest, Placement, Scoring, TileId, View};
use meeple_plugin_sdk::wire::Writer;
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, LuaOptions, StdLib, Table, Value as LuaValue};
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

/// What a hook handler receives besides the view and the sink.
pub(crate) enum Args<'a> {
    None,
    Event(&'a Event),
    Scoring(&'a Scoring),
    Offer(&'a Offer),
    Decision(&'a Decision, u16),
}

/// Counts interrupts against the per-call budget.
struct Budget {
    limits: Limits,
    /// Interrupts left in this call; `limits.steps - left` have been charged.
    left: Cell<u64>,
    /// When the call started, on the [`clock`].
    started_ms: Cell<u64>,
    /// Bytes the VM held after the last collection the checks made.
    collected: Cell<usize>,
}

impl Budget {
    fn new(limits: Limits) -> Budget {
        clock::start(limits.wall);
        Budget { limits, left: Cell::new(limits.steps), started_ms: Cell::new(0), collected: Cell::new(0) }
    }

    /// A fresh budget for one call, charged by the interrupt while the result lives.
    fn start(&self) -> Running {
        self.left.set(self.limits.steps);
        clock::call_starts();
        self.started_ms.set(clock::now_ms());
        Running::new(self)
    }
}

/// The state a VM's Rust callbacks reach through the Lua app data.
pub(crate) struct Ctx {
    pub script: Arc<Script>,
    view: Cell<*const ()>,
    out: Cell<*mut ()>,
    hook: Cell<Option<HookKind>>,
    loading: Cell<bool>,
    /// Indices of placements forbidden by a `can_place_tile` handler.
    pub forbidden: RefCell<Vec<usize>>,
    /// Offers made by a `figure_actions` handler.
    pub offers: RefCell<Vec<Offer>>,
    /// Bytes of values (stored, asked, offered) the call in progress has given: Rust memory,
    /// which the VM's limit does not see.
    pub given: Cell<usize>,
    /// The candidates of the `can_place_tile` call in progress (see `with_candidates`).
    candidates: Cell<(*const Placement, usize)>,
    /// Numbers `can_place_tile` calls.
    calls: Cell<u32>,
    /// The registry references of the records' metatables, by [`Record`], for the view's
    /// functions that build records on the Lua stack (`fast`).
    pub records: Cell<[std::ffi::c_int; Record::ALL.len()]>,
    /// The figure kind the view's functions resolved last.
    pub figure_kind: LastName,
    /// The token the view's functions resolved last.
    pub token: LastName,
    /// The modules being loaded, outermost first (to find a require cycle).
    pub requiring: RefCell<Vec<String>>,
    /// Registration mistakes met while the script loads, kept so that all of them are reported
    /// together once the entry file has run rather than only the first.
    registration: RefCell<Vec<HookError>>,
}

impl Ctx {
    /// The context of a VM that is loading `script`.
    fn new(script: Arc<Script>) -> Ctx {
        Ctx {
            script,
            view: Cell::new(std::ptr::null()),
            out: Cell::new(std::ptr::null_mut()),
            hook: Cell::new(None),
            loading: Cell::new(true),
            forbidden: RefCell::new(Vec::new()),
            offers: RefCell::new(Vec::new()),
            given: Cell::new(0),
            candidates: Cell::new((std::ptr::null(), 0)),
            calls: Cell::new(0),
            records: Cell::new([0; Record::ALL.len()]),
            figure_kind: LastName::default(),
            token: LastName::default(),
            registration: RefCell::new(Vec::new()),
            requiring: RefCell::new(Vec::new()),
        }
    }

    pub fn hook(&self) -> Option<HookKind> {
        self.hook.get()
    }

    /// How many candidates the `can_place_tile` call in progress has (0 outside one).
    pub fn candidate_count(&self) -> usize {
        self.candidates.get().1
    }

    pub fn loading(&self) -> bool {
        self.loading.get()
    }

    /// Records a registration mistake at the script line that called into the API.
    pub fn registration_problem(&self, lua: &Lua, message: String) {
        let mut e = HookError::new(&self.script.id, HookKind::Setup, message);
        e.hook = "while loading".into();
        e.location = caller_place(lua);
        self.registration.borrow_mut().push(e);
    }
}

/// The `file:line` of the script line that called the Rust function running now.
pub(crate) fn caller_place(lua: &Lua) -> Option<String> {
    lua.inspect_stack(1, |d| {
        let source = d.source().source?.trim_start_matches('@').to_string();
        Some(format!("{source}:{}", d.current_line()?))
    })
    .flatten()
}

thread_local! {
    /// The context of the hook call running on this thread (set by [`Enter`]); null between
    /// calls. Read by every API function, so it is a plain pointer rather than Lua app data,
    /// whose lookup costs a hash and a borrow.
    static CALL: Cell<*const Ctx> = const { Cell::new(std::ptr::null()) };
}

/// Runs `f` with the view of the hook call in progress.
pub(crate) fn with_view<R>(_lua: &Lua, f: impl FnOnce(&View<'_>, &Ctx) -> mlua::Result<R>) -> mlua::Result<R> {
    current(f)
}

/// Whether a hook call with a view is running on this thread.
pub(crate) fn in_hook_call() -> bool {
    current(|_, _| Ok(())).is_ok()
}

/// Runs `f` with the view and context of the hook call running on this thread.
pub(crate) fn current<R>(f: impl FnOnce(&View<'_>, &Ctx) -> mlua::Result<R>) -> mlua::Result<R> {
    let ctx = CALL.with(Cell::get);
    if ctx.is_null() {
        return Err(mlua::Error::runtime("the view can only be used during a hook call"));
    }
    // SAFETY: `Enter::new` points CALL at the context of the VM whose hook is running and
    // `Enter::drop` restores it before that call returns.
    #[allow(unsafe_code)]
    let ctx = unsafe { &*ctx };
    let p = ctx.view.get();
    if p.is_null() {
        return Err(mlua::Error::runtime("the view can only be used during a hook call"));
    }
    // SAFETY: `Enter::new` stores a pointer to the `View` of the hook call in progress and
    // `Enter::drop` clears it before that call returns; Lua runs the call on this thread, so the
    // view is alive and unchanged for the whole of `f`.
    #[allow(unsafe_code)]
    let view = unsafe { &*(p as *const View<'_>) };
    f(view, ctx)
}

/// Runs `f` with the command sink of the hook call in progress.
pub(crate) fn with_out<R>(
    lua: &Lua,
    f: impl FnOnce(&mut Commands<'_>, &View<'_>, &Ctx) -> mlua::Result<R>,
) -> mlua::Result<R> {
    with_view(lua, |view, ctx| {
        let p = ctx.out.get();
        if p.is_null() {
            return Err(mlua::Error::runtime("commands can only be given during a hook call"));
        }
        // SAFETY: as for the view: the sink outlives the hook call that `Enter` brackets, and
        // only one Rust callback runs at a time, so this is the only reference to it.
        #[allow(unsafe_code)]
        let out = unsafe { &mut *(p as *mut Commands<'_>) };
        f(out, view, ctx)
    })
}

/// The context of a VM, from its Lua state (for functions called outside hook calls too).
pub(crate) fn context(lua: &Lua) -> mlua::Result<Rc<Ctx>> {
    lua.app_data_ref::<Rc<Ctx>>().map(|c| Rc::clone(&c)).ok_or_else(|| mlua::Error::runtime("meeple context missing"))
}

/// Runs `f` with the candidate placements of the `can_place_tile` call in progress.
pub(crate) fn with_candidates<R>(lua: &Lua, f: impl FnOnce(&[Placement]) -> mlua::Result<R>) -> mlua::Result<R> {
    let ctx = context(lua)?;
    let (p, n) = ctx.candidates.get();
    if p.is_null() {
        return Err(mlua::Error::runtime("the candidates can only be read during can_place_tile"));
    }
    // SAFETY: `call_can_place` stores the slice of the call in progress and clears it before
    // returning; the slice outlives that call.
    #[allow(unsafe_code)]
    let list = unsafe { std::slice::from_raw_parts(p, n) };
    f(list)
}

/// Brackets a hook call: points the context at its view and sink, starts the budget.
struct Enter<'a> {
    ctx: &'a Ctx,
    previous: *const Ctx,
    _running: Running,
}

impl<'a> Enter<'a> {
    fn new(ctx: &'a Ctx, budget: &Budget, view: &View<'_>, out: &mut Commands<'_>, hook: HookKind) -> Self {
        ctx.view.set(view as *const View<'_> as *const ());
        ctx.out.set(out as *mut Commands<'_> as *mut ());
        ctx.hook.set(Some(hook));
        ctx.given.set(0);
        let previous = CALL.with(|c| c.replace(ctx as *const Ctx));
        Enter { ctx, previous, _running: budget.start() }
    }
}

impl Drop for Enter<'_> {
    fn drop(&mut self) {
        self.ctx.view.set(std::ptr::null());
        self.ctx.out.set(std::ptr::null_mut());
        self.ctx.hook.set(None);
        CALL.with(|c| c.set(self.previous));
    }
}

/// The Lua side of the API, loaded before the script so that the script's globals cannot reach
/// it. Rust writes an event's fields as 32-bit words into the VM's mail buffer, sets the plain
/// ones in the hook's event table ([`EventTables`]) and calls the handler with it; lists and
/// locations are read from the mail only if the handler asks for them. No Lua table is built
/// per event: building one through mlua costs ten times more than in Lua, and even in Lua,
/// making and collecting it costs more than the rest of the call. Event tables and the candidate
/// list are valid during the call only. The prelude also makes the `view` and `out` tables (see
/// [`api::raw_view`]).
const PRELUDE: &str = r#"
local mail, fetch_candidates, raw_view, raw_out, suggest, record_fields, plain, instead = ...
local rd = buffer.readi32
local names = { tiles = {} }
local view, out = {}, {} -- filled below
-- Per record type of the view (a `Tile`, a `Feature`), the metatable of its records: a field
-- the type lacks is an error that names it, one it has but this record does not (an optional
-- one) reads as nil. Frozen: a VM serves many games, and a changed metatable would be state kept
-- between them. Not hidden behind `__metatable`, which `table.clone` refuses: a script may copy
-- a record, or give one a metatable of its own.
local records = {}
for name, fields in record_fields do
    local known = table.clone(fields)
    table.sort(known)
    local has = {}
    for _, k in known do has[k] = true end
    local what = if string.find("AEIOU", string.sub(name, 1, 1), 1, true) then `an {name}` else `a {name}`
    records[name] = {
        __index = function(_, key)
            if has[key] then return nil end
            local k = tostring(key)
            error(`{what} has no field '{k}'; {suggest(k, known)}it has {table.concat(known, ", ")}`, 2)
        end,
    }
end
-- A candidate is lent read-only: a field of its own is refused with what to do instead; its
-- copies (`table.clone`) share the metatable and take any field.
records.Candidate.__readonly, records.Candidate.__instead = "a candidate", instead.candidates
records.Candidate.__newindex = function(t, key, value)
    if not table.isfrozen(t) then return rawset(t, key, value) end
    error(`a candidate cannot be changed (field '{tostring(key)}'): {instead.candidates}`, 2)
end
for _, meta in records do table.freeze(meta) end
local location = records.Location
local function loc(o)
    local k = rd(mail, o)
    if k == 0 then return setmetatable({ kind = "supply" }, location)
    elseif k == 1 then return setmetatable({ kind = "segment", seg = rd(mail, o + 4) }, location)
    elseif k == 2 then
        return setmetatable({ kind = "point", tile = rd(mail, o + 4), point = rd(mail, o + 8) + 1 }, location)
    end
    return setmetatable({ kind = "aside" }, location)
end
local function list(o)
    local n, t = rd(mail, o), {}
    for i = 1, n do t[i] = rd(mail, o + 4 * i) end
    return t
end
-- Per event hook, the table its events reach the handler in, and its metatable. One table
-- serves every call of its hook, so it is read-only to scripts (Rust sets its plain fields before
-- each call, lifting the flag for the writes): whatever a handler did to it would otherwise be
-- seen by the next call. `plain` names the fields Rust sets, `lazy` those read from the mail
-- only if the handler asks for them (lists, locations). A field the event does not have is an
-- error that names it: a misspelt `e.complted` would otherwise be a nil that fails later, or
-- never. `also` are fields of the event's type that this hook never has (a `turn_end`'s part, a
-- `figure_returned`'s place), read as nil, as is a plain field this table lacks (the start
-- tile's player).
-- A list a lazy field reads (a scoring's `points`, `cities`, `strength`; a `feature_scored`'s
-- `points`) is made for the read, so a write to it would change nothing, silently: it is lent
-- read-only too, with a metatable that names it (a copy, `table.clone`, is the script's own).
local function event_meta(what, lazy, plain, also, advice)
    local known = {}
    for k in lazy do table.insert(known, k) end
    for _, k in plain do table.insert(known, k) end
    for _, k in also or {} do table.insert(known, k) end
    table.sort(known)
    local has = {}
    for _, k in known do has[k] = true end
    local noun = if what == "modify_score's scoring" then "a scoring" else "an event"
    advice = advice or instead.event
    local lists = {}
    for k in lazy do
        lists[k] = table.freeze({ __readonly = `\`{k}\` of {what}`, __instead = advice })
    end
    return {
        __index = function(_, key)
            local read = lazy[key]
            if read then
                local v = read()
                if type(v) == "table" and getmetatable(v) == nil then
                    return table.freeze(setmetatable(v, lists[key]))
                end
                return v
            end
            if has[key] then return nil end
            local k = tostring(key)
            error(`{what} has no field '{k}'; {suggest(k, known)}it has {table.concat(known, ", ")}`, 2)
        end,
        __newindex = function(_, key)
            error(`{what} cannot be changed (field '{tostring(key)}'): {advice}`, 2)
        end,
        __metatable = noun,
        __readonly = what,
        __instead = advice,
    }
end
-- A table holding `plain`'s fields (Rust only ever overwrites them, with values that are not nil).
local function event_table(plain, meta)
    local e = {}
    for _, k in plain do e[k] = 0 end
    return setmetatable(e, meta)
end
local metas = {
    [HOOK_TILE_PLACED] = event_meta("the tile_placed event", {
        tile = function() return names.tiles[rd(mail, 4)] end,
        x = function() return rd(mail, 12) end,
        y = function() return rd(mail, 16) end,
        rotation = function() return rd(mail, 20) end,
    }, plain[HOOK_TILE_PLACED]),
    [HOOK_FIGURE_PLACED] = event_meta("the figure_placed event", {
        at = function() return loc(12) end,
        from = function() if rd(mail, 24) == 1 then return loc(28) end return nil end,
    }, plain[HOOK_FIGURE_PLACED]),
    [HOOK_FIGURE_RETURNED] = event_meta(
        "the figure_returned event", { from = function() return loc(12) end }, plain[HOOK_FIGURE_RETURNED], { "at" }
    ),
    [HOOK_FEATURE_COMPLETED] = event_meta("the feature_completed event", {}, plain[HOOK_FEATURE_COMPLETED]),
    [HOOK_FEATURE_SCORED] = event_meta("the feature_scored event", {
        points = function()
            local n, points = rd(mail, 12), {}
            for i = 0, n - 1 do points[rd(mail, 16 + 8 * i) + 1] = rd(mail, 20 + 8 * i) end
            return points
        end,
    }, plain[HOOK_FEATURE_SCORED]),
    [HOOK_TURN_PART_END] = event_meta("the turn_part_end event", {}, plain[HOOK_TURN_PART_END]),
    [HOOK_TURN_END] = event_meta("the turn_end event", {}, plain[HOOK_TURN_END], { "part" }),
    [HOOK_MODIFY_SCORE] = event_meta("modify_score's scoring", {
        cities = function() return list(24) end,
        strength = function() return list(28 + 4 * rd(mail, 24)) end,
        points = function()
            local o = 28 + 4 * rd(mail, 24)
            return list(o + 4 + 4 * rd(mail, o))
        end,
    }, plain[HOOK_MODIFY_SCORE], nil, instead.scoring),
}
local events = { start = event_table(plain.start, metas[HOOK_TILE_PLACED]) }
for hook, meta in metas do events[hook] = event_table(plain[hook], meta) end
-- can_place_tile's candidates come from Rust only when the handler looks at them: most
-- handlers never do. The mail's first word numbers the calls, so a list is never reused. Rust
-- makes the list read-only, and each candidate.
local list, list_call = nil, -1
local function fetched()
    local call = rd(mail, 0)
    if call ~= list_call then list, list_call = fetch_candidates(), call end
    return list
end
local candidates = setmetatable({}, {
    __index = function(_, i) return fetched()[i] end,
    __len = function() return #fetched() end,
    __iter = function() return next, fetched() end,
    __newindex = function(_, key)
        error(`the candidate list cannot be changed (field '{tostring(key)}'): {instead.candidates}`, 2)
    end,
    __metatable = "the candidate list",
    __readonly = "the candidate list",
    __instead = instead.candidates,
})
local function set_names(t) names = t end

-- The view and the command sink: tables of the API functions, which take them as `self`.
for name, f in raw_view do view[name] = f end
for name, f in raw_out do out[name] = f end
-- A misspelt method names the table and the methods it may have meant, rather than Luau's
-- "attempt to call missing method"; methods that exist never reach `__index`.
local function strict_methods(t, what)
    local methods = {}
    for k in t do table.insert(methods, k) end
    table.sort(methods)
    -- Frozen, as the table is: a VM serves many games, and a changed metatable would be state
    -- kept between them.
    setmetatable(t, table.freeze({
        __index = function(_, key)
            local k = tostring(key)
            local hint = suggest(k, methods)
            hint = if hint == "" then `it has {table.concat(methods, ", ")}` else string.sub(hint, 1, -2)
            error(`{what} has no method or field '{k}'; {hint}`, 2)
        end,
    }))
end
strict_methods(view, "view")
strict_methods(out, "out")
table.freeze(view)
table.freeze(out)

return events, candidates, set_names, view, out, records
"#;

/// Room for the largest event (a scoring of a feature touching many cities).
const MAIL_BYTES: usize = 64 * 1024;

/// The VM's mail buffer, written from Rust through a pointer to its bytes: Luau never moves or
/// resizes a buffer, and `buffer` keeps this one alive for as long as the VM. Writing through
/// `mlua::Buffer` costs a hundred instructions a call, for a copy of a few words.
struct Mailbox {
    buffer: mlua::Buffer,
    bytes: *mut u8,
}

impl Mailbox {
    fn new(lua: &Lua) -> mlua::Result<Mailbox> {
        let buffer = lua.create_buffer_with_capacity(MAIL_BYTES)?;
        // SAFETY: pushes the buffer, reads the address of its bytes and pops it again.
        #[allow(unsafe_code)]
        let bytes = lua.exec_raw_lua(|raw| unsafe {
            let state = raw.state();
            if mlua::ffi::lua_checkstack(state, 1) == 0 {
                return Err(mlua::Error::runtime("no Lua stack left for the mailbox"));
            }
            raw.push(&buffer)?;
            let mut len = 0;
            let bytes = mlua::ffi::lua_tobuffer(state, -1, &mut len).cast::<u8>();
            mlua::ffi::lua_pop(state, 1);
            if bytes.is_null() || len < MAIL_BYTES {
                return Err(mlua::Error::runtime("the mailbox is not a buffer"));
            }
            Ok(bytes)
        })?;
        Ok(Mailbox { buffer, bytes })
    }

    /// Copies `data` to the start of the buffer.
    fn write(&self, data: &[u8]) -> mlua::Result<()> {
        if data.len() > MAIL_BYTES {
            return Err(mlua::Error::runtime("an event is too large for the script mailbox"));
        }
        // SAFETY: `bytes` points at MAIL_BYTES live bytes (see the type), no Lua code runs during
        // the copy, and `data` is Rust memory, so the two do not overlap.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.bytes, data.len())
        };
        Ok(())
    }
}

/// A VM with the script loaded and its handlers collected.
pub(crate) struct Vm {
    /// What the script's `meeple.on` calls said can matter …
    interest: Interest,
    /// … and the figure kinds of their `on_board`, by name.
    on_board: OnBoard,
    handlers: Vec<Option<Function>>,
    /// Per hook with a handler, the handler as the caller keeps it.
    targets: Vec<Option<Ref>>,
    /// The tables the events of the hooks with handlers reach them in.
    events: EventTables,
    caller: Caller,
    /// The `view` and `out` tables the prelude made.
    view: Table,
    out: Table,
    view_ref: Ref,
    out_ref: Ref,
    candidates: Ref,
    mail: Mailbox,
    scratch: RefCell<Writer>,
    set_names: Function,
    /// The names of tile kinds, feature kinds and figure kinds, once [`Vm::ensure_names`] ran.
    names: OnceCell<Names>,
    budget: Budget,
    ctx: Rc<Ctx>,
    lua: Lua,
}

/// Everything that stopped a script from loading, in the order met.
#[derive(Debug)]
pub(crate) struct LoadErrors(pub Vec<HookError>);

impl LoadErrors {
    /// The first error, for callers that report one.
    pub fn first(self) -> HookError {
        self.0.into_iter().next().expect("a load failure has at least one error")
    }
}

impl From<HookError> for LoadErrors {
    fn from(e: HookError) -> LoadErrors {
        LoadErrors(vec![e])
    }
}

impl Vm {
    /// Builds the sandbox, runs the entry file and collects the handlers it registered.
    pub fn new(script: &Arc<Script>) -> Result<Vm, LoadErrors> {
        let fail = |e: mlua::Error| to_hook_error(script, HookKind::Setup, "while loading", e);
        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8 | StdLib::BIT | StdLib::BUFFER;
        let lua = Lua::new_with(libs, LuaOptions::new()).map_err(fail)?;
        // Level 2 inlines small local functions and lets builtins be called directly.
        // Debug level 2 names the locals handlers use, for `check` to tell which one a hook wrote.
        lua.set_compiler(mlua::chunk::Compiler::new().set_optimization_level(2).set_debug_level(2));
        let ctx = Rc::new(Ctx::new(script.clone()));
        lua.set_app_data(ctx.clone());
        let budget = Budget::new(script.limits);
        install_interrupt(&lua).map_err(fail)?;
        harden(&lua).map_err(fail)?;
        api::install(&lua, script).map_err(fail)?;
        // The globals as the host made them: sandboxing makes this table read-only and gives
        // scripts one of their own that reads through to it. The prelude is loaded first, in
        // this one: what it reads of the globals is bound then, so that a script's globals (a
        // `table` or an `error` of its own) cannot reach it.
        let host_globals = lua.globals();
        lua.sandbox(true).map_err(fail)?;
        let set_script_globals: Function = lua.named_registry_value(SET_SCRIPT_GLOBALS).map_err(fail)?;
        set_script_globals.call::<()>(lua.globals()).map_err(fail)?;
        // `_G` is the script's globals, not the host's (which Luau's sandbox leaves it): so that
        // `rawget(_G, name)` asks whether the script has set a global.
        lua.globals().raw_set("_G", lua.globals()).map_err(fail)?;
        let mail = Mailbox::new(&lua).map_err(fail)?;
        let (event_tables, candidates, set_names, view, out, metatables) =
            load_prelude(&lua, host_globals, &mail).map_err(fail)?;
        records::keep_metatables(&lua, &metatables).map_err(fail)?;
        ctx.records.set(metatable_refs(&lua, &metatables).map_err(fail)?);
        // The hard limit: what one C function allocates at once (`buffer.create`,
        // `string.rep`) is refused there. The interrupt holds scripts to half of it. It is
        // lifted while the VM is set up below, whose calls are not protected.
        lua.set_memory_limit(script.limits.hard_memory()).map_err(fail)?;

        let entry = &script.entry;
        let chunk =
            lua.load(&script.files[entry]).set_name(format!("@{}/{entry}", script.id)).set_mode(ChunkMode::Text);
        let ran = {
            let _running = budget.start();
            chunk.exec().map_err(fail)
        };
        ctx.loading.set(false);
        let mut problems = ctx.registration.take();
        problems.extend(ran.err());
        if !problems.is_empty() {
            return Err(LoadErrors(problems));
        }
        lua.set_memory_limit(0).map_err(fail)?;

        let (interest, on_board) = read_interest(&lua).map_err(fail)?;
        let handlers = registered_handlers(&lua).map_err(fail)?;
        let caller = Caller::new(&lua).map_err(fail)?;
        let targets = call_targets(&lua, &caller, &handlers).map_err(fail)?;
        let with_handlers: Vec<HookKind> =
            HookKind::ALL.into_iter().filter(|h| handlers[*h as usize].is_some()).collect();
        let events = EventTables::keep(&lua, &caller, &event_tables, &with_handlers).map_err(fail)?;
        let (view_ref, out_ref) = (caller.keep(&lua, &view).map_err(fail)?, caller.keep(&lua, &out).map_err(fail)?);
        // Read-only, as the prelude cannot make it (its metatable is protected): `table.insert`
        // and `rawset` write past `__newindex`, and one list serves every call.
        candidates.set_readonly(true);
        let candidates = caller.keep(&lua, &candidates).map_err(fail)?;
        // What the script keeps once loaded counts against what it may hold.
        lua.gc_collect().map_err(fail)?;
        if lua.used_memory() > script.limits.memory {
            let why = format!("the script holds more than {} MiB once loaded", script.limits.memory >> 20);
            return Err(LoadErrors(vec![fail(mlua::Error::runtime(why))]));
        }
        lua.set_memory_limit(script.limits.hard_memory()).map_err(fail)?;
        Ok(Vm {
            interest,
            on_board,
            handlers,
            targets,
            events,
            view_ref,
            out_ref,
            candidates,
            caller,
            view,
            out,
            mail,
            scratch: RefCell::new(Writer::default()),
            set_names,
            names: OnceCell::new(),
            budget,
            ctx,
            lua,
        })
    }

    /// Which calls of its hooks can matter (the `only` arguments of `meeple.on`), and the
    /// figure kinds named by their `on_board`.
    pub fn interest(&self) -> (Interest, OnBoard) {
        (self.interest.clone(), self.on_board.clone())
    }

    /// What the script keeps between hook calls ([`super::kept`]): each local a handler uses,
    /// and each global it set.
    pub fn kept_values(&self) -> mlua::Result<Vec<meeple_core::KeptValue>> {
        let mut kept = Vec::new();
        for hook in HookKind::ALL {
            if let Some(handler) = &self.handlers[hook as usize] {
                let named = format!("the `{}` handler", hook.name());
                kept.extend(super::kept::upvalues(&self.lua, handler, &named, &self.ctx.script.files)?);
            }
        }
        kept.extend(super::kept::globals(&self.lua)?);
        Ok(kept)
    }

    /// The hooks the script registered.
    pub fn hooks(&self) -> HookSet {
        HookKind::ALL.iter().filter(|h| self.handlers[**h as usize].is_some()).fold(HookSet::NONE, |s, h| s.with(*h))
    }

    fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    /// Makes the names of tile kinds, figure kinds and segment kinds that events carry (once per
    /// VM: a script's expansion belongs to one ruleset).
    #[inline]
    fn ensure_names(&self, view: &View<'_>) -> mlua::Result<()> {
        match self.names.get() {
            Some(_) => Ok(()),
            None => self.give_names(view),
        }
    }

    fn give_names(&self, view: &View<'_>) -> mlua::Result<()> {
        let rules = view.rules();
        let (tiles, tile_refs) = self.name_list(rules.tiles().iter().map(|k| k.key.as_bytes()))?;
        let (_, figure_refs) = self.name_list(rules.figures().iter().map(|f| f.id.as_bytes()))?;
        let (_, kind_refs) = self.name_list(meeple_core::SegmentKind::ALL.iter().map(|k| k.name().as_bytes()))?;
        // The prelude reads a tile kind's name for `event.tile`; the other names are Rust's to set.
        let t = self.lua.create_table()?;
        t.raw_set("tiles", tiles)?;
        self.set_names.call::<()>(t)?;
        let _ = self.names.set(Names { tiles: tile_refs, kinds: kind_refs, figures: figure_refs });
        Ok(())
    }

    /// Names by number from 0, as a Lua table for the prelude and as values the caller keeps.
    fn name_list<'n>(&self, names: impl Iterator<Item = &'n [u8]>) -> mlua::Result<(Table, Vec<Ref>)> {
        let (table, mut kept) = (self.lua.create_table()?, Vec::new());
        for (i, name) in names.enumerate() {
            let name = self.lua.create_string(name)?;
            kept.push(self.caller.keep(&self.lua, &name)?);
            table.raw_set(i as i64, name)?;
        }
        Ok((table, kept))
    }

    /// Copies the encoded fields into the VM's mail buffer.
    fn post(&self) -> mlua::Result<()> {
        self.mail.write(&self.scratch.borrow().0)
    }

    /// Calls the handler of `hook`, if any.
    pub fn call(
        &self,
        hook: HookKind,
        view: &View<'_>,
        out: &mut Commands<'_>,
        args: Args<'_>,
    ) -> Result<(), HookError> {
        let Some(target) = self.targets[hook as usize] else { return Ok(()) };
        let ctx = self.ctx();
        let _in = Enter::new(ctx, &self.budget, view, out, hook);
        let lua = &self.lua;
        let result = (|| -> mlua::Result<()> {
            self.ensure_names(view)?;
            match args {
                Args::None => self.caller.call(lua, target, &[self.view_ref, self.out_ref]),
                Args::Event(e) => {
                    let figure = |id| view.figure(id).map(|f| (f.owner, f.kind));
                    let encoded = {
                        let mut w = self.scratch.borrow_mut();
                        w.0.clear();
                        w.event(e, figure)
                    };
                    if !encoded {
                        return Ok(());
                    }
                    self.call_with_event(hook, target)
                }
                Args::Scoring(s) => {
                    {
                        let mut w = self.scratch.borrow_mut();
                        w.0.clear();
                        w.scoring(s);
                    }
                    self.call_with_event(hook, target)
                }
                // Rare calls, with tables built through mlua: called through it too.
                Args::Offer(o) => {
                    let offer = api::offer_table(lua, view, o)?;
                    nothing_returned(self.handler(hook)?.call((&self.view, offer, &self.out))?)
                }
                Args::Decision(d, option) => {
                    let decision = api::decision_table(lua, d)?;
                    nothing_returned(self.handler(hook)?.call((&self.view, decision, option as i64 + 1, &self.out))?)
                }
            }
        })();
        result.map_err(|e| self.error(&ctx.script, hook, e))
    }

    /// Calls `handler` with the event (or scoring) encoded in the scratch buffer: posted to the
    /// mail for the fields read when asked for, set in the hook's table for the others.
    fn call_with_event(&self, hook: HookKind, handler: Ref) -> mlua::Result<()> {
        self.post()?;
        let names = self.names.get().expect("set by ensure_names");
        let event = self.events.fill(&self.caller, hook, &self.scratch.borrow().0, names)?;
        self.caller.call(&self.lua, handler, &[self.view_ref, event, self.out_ref])
    }

    /// Where the handler of `hook` is defined (`chapels/init.luau:12`), when it is a function of
    /// the script's own files.
    fn handler_defined(&self, script: &Script, hook: HookKind) -> Option<String> {
        let info = self.handler(hook).ok()?.info();
        let chunk = info.source?.strip_prefix('@')?.to_string();
        let line = info.line_defined?;
        chunk.starts_with(&format!("{}/", script.id)).then(|| format!("{chunk}:{line}"))
    }

    /// Where the script registered the handler of `hook` (`chapels/init.luau:37`).
    fn handler_place(&self, hook: HookKind) -> Option<String> {
        let places: Table = self.lua.named_registry_value(api::HANDLER_AT).ok()?;
        places.raw_get(hook.name()).ok().flatten()
    }

    fn handler(&self, hook: HookKind) -> mlua::Result<&Function> {
        self.handlers[hook as usize].as_ref().ok_or_else(|| mlua::Error::runtime("the hook has no handler"))
    }

    fn error(&self, script: &Script, hook: HookKind, e: mlua::Error) -> HookError {
        let returned = raw::Returned::is(&e);
        let mut error = to_hook_error(script, hook, hook.name(), e);
        if returned && error.location.is_none() {
            // The value's `return` is not known: the function that holds it is the next best
            // place, else the handler's `meeple.on`; the message says which it is.
            let (at, whose) = match self.handler_defined(script, hook) {
                Some(at) => (Some(at), "the handler that starts here"),
                None => (self.handler_place(hook), "the handler registered here"),
            };
            if at.is_some() {
                error.message = error.message.replacen("the handler", whose, 1);
            }
            error.location = at;
        }
        if let Some(explained) =
            error.location.as_deref().and_then(|at| lent::explain(script, hook, at, &error.message))
        {
            error.message = explained;
        }
        error
    }

    /// `can_place_tile(view, tile, candidates, out)`: returns the indices the handler forbade.
    pub fn call_can_place(
        &self,
        view: &View<'_>,
        out: &mut Commands<'_>,
        tile: TileId,
        candidates: &[Placement],
    ) -> Result<Vec<usize>, HookError> {
        let hook = HookKind::CanPlaceTile;
        let Some(handler) = self.targets[hook as usize] else { return Ok(Vec::new()) };
        let ctx = self.ctx();
        ctx.forbidden.borrow_mut().clear();
        let _in = Enter::new(ctx, &self.budget, view, out, hook);
        let call = ctx.calls.get().wrapping_add(1);
        ctx.calls.set(call);
        ctx.candidates.set((candidates.as_ptr(), candidates.len()));
        let result = (|| -> mlua::Result<()> {
            self.ensure_names(view)?;
            self.mail.write(&call.to_le_bytes())?;
            let names = &self.names.get().expect("set by ensure_names").tiles;
            let tile_name = *names.get(tile as usize).ok_or_else(|| mlua::Error::runtime("unknown tile kind"))?;
            self.caller.call(&self.lua, handler, &[self.view_ref, tile_name, self.candidates, self.out_ref])
        })();
        ctx.candidates.set((std::ptr::null(), 0));
        result.map_err(|e| self.error(&ctx.script, hook, e))?;
        Ok(std::mem::take(&mut *ctx.forbidden.borrow_mut()))
    }

    /// `figure_actions(view, out)`: returns the offers the handler made.
    pub fn call_figure_actions(&self, view: &View<'_>, out: &mut Commands<'_>) -> Result<Vec<Offer>, HookError> {
        let hook = HookKind::FigureActions;
        if self.handlers[hook as usize].is_none() {
            return Ok(Vec::new());
        }
        self.ctx().offers.borrow_mut().clear();
        self.call(hook, view, out, Args::None)?;
        Ok(std::mem::take(&mut *self.ctx().offers.borrow_mut()))
    }
}

/// The figure kinds, by name, that the `on_board` of a hook's `only` names, with the `file:line`
/// of its `meeple.on`.
pub(crate) type OnBoard = Vec<(HookKind, Vec<String>, Option<String>)>;

/// What the prelude gives back: the event tables by hook number (see [`EventTables::keep`]), the
/// candidate list, the function that sets the names of tile kinds, the `view` and `out`
/// tables, and the records' metatables by type name.
type Prelude = (Table, Table, Function, Table, Table, Table);

/// Runs the prelude in the host's globals, with the hooks' numbers written into it.
fn load_prelude(lua: &Lua, host_globals: Table, mail: &Mailbox) -> mlua::Result<Prelude> {
    let mut prelude = PRELUDE.to_string();
    // Longest names first, so that no name is replaced inside a longer one.
    let mut hooks = HookKind::ALL.to_vec();
    hooks.sort_by_key(|h| std::cmp::Reverse(h.name().len()));
    for hook in hooks {
        prelude = prelude.replace(&format!("HOOK_{}", hook.name().to_uppercase()), &(hook as i64).to_string());
    }
    lua.load(prelude).set_name("=meeple.prelude").set_mode(ChunkMode::Text).set_environment(host_globals).call((
        mail.buffer.clone(),
        lua.create_function(api::candidates)?,
        api::raw_view(lua)?,
        api::raw_out(lua)?,
        lua.create_function(api::suggest)?,
        records::fields_table(lua)?,
        events::fields_table(lua)?,
        lua.create_table_from([
            ("event", lent::INSTEAD_OF_EVENT),
            ("scoring", lent::INSTEAD_OF_SCORING),
            ("candidates", lent::INSTEAD_OF_CANDIDATES),
        ])?,
    ))
}

/// A registry reference to each record type's metatable, in the order of [`Record::ALL`]. The
/// references live as long as the VM.
fn metatable_refs(lua: &Lua, metatables: &Table) -> mlua::Result<[std::ffi::c_int; Record::ALL.len()]> {
    let mut refs = [0; Record::ALL.len()];
    for (slot, r) in refs.iter_mut().zip(Record::ALL) {
        let mt: Table = metatables.raw_get(r.name())?;
        // SAFETY: pushes the metatable, takes a reference to it, and pops it: the stack is as
        // before.
        #[allow(unsafe_code)]
        let made = lua.exec_raw_lua(|raw| unsafe {
            let state = raw.state();
            if mlua::ffi::lua_checkstack(state, 1) == 0 {
                return Err(mlua::Error::StackError);
            }
            raw.push(&mt)?;
            let reference = mlua::ffi::lua_ref(state, -1);
            mlua::ffi::lua_pop(state, 1);
            Ok(reference)
        })?;
        *slot = made;
    }
    Ok(refs)
}

/// Which calls of its hooks the loaded script said can matter (the `only` arguments of
/// `meeple.on`), and the figure kinds named by their `on_board`.
fn read_interest(lua: &Lua) -> mlua::Result<(Interest, OnBoard)> {
    let only: Table = lua.named_registry_value(api::ONLY)?;
    let only_at: Table = lua.named_registry_value(api::HANDLER_AT)?;
    let (mut interest, mut on_board) = (Interest::ALL, Vec::new());
    for hook in HookKind::ALL {
        if let Some(t) = only.raw_get::<Option<Table>>(hook.name())? {
            let only = api::read_only(hook, &t)?;
            interest.features.extend(only.kinds.map(|k| (hook, k)));
            interest.when_stored.extend(only.stored.map(|k| (hook, k)));
            let at = only_at.raw_get::<Option<String>>(hook.name())?;
            on_board.extend(only.on_board.map(|k| (hook, k, at)));
        }
    }
    Ok((interest, on_board))
}

/// The handlers the loaded script registered, by hook.
fn registered_handlers(lua: &Lua) -> mlua::Result<Vec<Option<Function>>> {
    let registered: Table = lua.named_registry_value(api::HANDLERS)?;
    HookKind::ALL.iter().map(|hook| registered.raw_get::<Option<Function>>(hook.name())).collect()
}

/// Per hook with a handler, the handler as the caller keeps it.
fn call_targets(lua: &Lua, caller: &Caller, handlers: &[Option<Function>]) -> mlua::Result<Vec<Option<Ref>>> {
    handlers.iter().map(|h| h.as_ref().map(|h| caller.keep(lua, h)).transpose()).collect()
}

/// The globals the sandbox removes (or never loads) that a Lua programmer would reach for.
const REMOVED: [&str; 13] = [
    "os",
    "io",
    "debug",
    "coroutine",
    "package",
    "loadstring",
    "load",
    "loadfile",
    "dofile",
    "getfenv",
    "setfenv",
    "collectgarbage",
    // The heap's size differs from game to game in a VM that serves many: a rule that read it
    // would not replay.
    "gcinfo",
];

/// The `__index` of the host's globals, which the script's globals read through to: only a name
/// defined nowhere gets here, so the names that are there cost nothing more. Reading one is an
/// error at the script's line rather than a nil that fails later as "attempt to call a nil
/// value", or never (a misspelt `if DEBGU then`): a name of `REMOVED` says that the sandbox
/// removed it, any other that it is not defined, with what [`undefined_hint`] says of it. A
/// script that asks whether a global of its own exists reads it with `rawget(_G, name)`.
const NAME_THE_UNDEFINED: &str = r#"local removed, suggest = ...
local script_globals = {}
local function defined(host)
    local names = {}
    for _, globals in { host, script_globals } do
        for k in globals do
            if type(k) == "string" then table.insert(names, k) end
        end
    end
    return names
end
return function(host, name)
    if removed[name] then
        error(`\`{name}\` is not available in the sandbox; scripts have the libraries table, string, math, utf8, \z
            bit32 and buffer, with print and require (of the expansion's own files)`, 2)
    end
    local k = tostring(name)
    error(`\`{k}\` is not defined{suggest(k, defined(host))}`, 2)
end, function(t)
    script_globals = t
end"#;

/// What follows "`word` is not defined", given the defined globals `names` (the host's and the
/// script's own): that the script declares a local `word` where this line does not see it (a
/// local function called above its declaration, a local of another file, a parameter of another
/// function); else the
/// name, global, local or `nil`, `true` or `false`, that `word` is a slip of a letter or two of
/// (not [`api::suggest`], which also offers a name that holds `word`: a global `context` is no
/// slip of `next`); else how to ask whether a global is set. Runs only for a name that is not
/// defined, so reading the script's files here costs the calls that succeed nothing.
fn undefined_hint(lua: &Lua, (word, mut names): (String, Vec<String>)) -> mlua::Result<String> {
    let locals = context(lua).map(|ctx| script_locals(&ctx.script)).unwrap_or_default();
    // The file of the line that reads the name (the caller of `__index`), whose own declaration
    // of it is the one meant.
    let reading =
        lua.inspect_stack(2, |d| d.source().source.map(|s| s.trim_start_matches(['@', '=']).to_string())).flatten();
    let named = |(name, _, at): &&(String, Declared, String)| {
        *name == word && reading.as_ref().is_none_or(|file| file_of(at) == file)
    };
    let declaration = locals.iter().find(named).or_else(|| locals.iter().find(|(name, ..)| *name == word));
    if let Some((_, how, at)) = declaration {
        return Ok(match how {
            Declared::Local if reading.as_ref().is_some_and(|file| file != file_of(at)) => format!(
                " here; {at} declares a local `{word}`, which is seen only in that file: a file gives what \
                 others use in the table it returns, which they `require`"
            ),
            Declared::Local => format!(
                " here; {at} declares a local `{word}`, which is seen only below its declaration, inside its block"
            ),
            Declared::Parameter => format!(
                " here; `{word}` is a parameter of the function at {at}, seen only inside that function: pass it \
                 on as an argument"
            ),
            Declared::LoopVariable => {
                format!(" here; `{word}` is a variable of the loop at {at}, seen only inside that loop")
            }
        });
    }
    names.extend(locals.into_iter().map(|(name, ..)| name));
    names.extend(["nil", "true", "false"].map(String::from));
    names.sort();
    names.dedup();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let meant = meeple_toml::did_you_mean(&word, &names);
    Ok(match meant.strip_suffix(' ') {
        Some(meant) => format!("; {meant}"),
        None => format!(" (a global is defined once assigned; `rawget(_G, \"{word}\")` asks whether it is)"),
    })
}

/// The names a script's files declare as locals (`local x, y`, `local function f`), function
/// parameters and loop variables included, each with where it is first declared in each file
/// (`expansion/file:line`). Read from the text, comments aside, as a hint needs: a string that
/// holds `local x` counts too.
fn script_locals(script: &Script) -> Vec<(String, Declared, String)> {
    let mut found: Vec<(String, Declared, String)> = Vec::new();
    for (file, text) in &script.files {
        for (i, line) in text.lines().enumerate() {
            let code = line.split("--").next().unwrap_or(line);
            for (name, how) in declared(code) {
                let here = format!("{}/{file}", script.id);
                if !found.iter().any(|(n, _, at)| *n == name && file_of(at) == here) {
                    found.push((name, how, format!("{here}:{}", i + 1)));
                }
            }
        }
    }
    found
}

/// The file of a place `expansion/file:line`.
fn file_of(at: &str) -> &str {
    at.rsplit_once(':').map_or(at, |(file, _)| file)
}

/// How a line declares a name of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Declared {
    Local,
    Parameter,
    LoopVariable,
}

/// The names a line of Luau declares: after `local` (and `local function`), in a function's
/// parentheses, and between `for` and `in` or `=`.
fn declared(code: &str) -> Vec<(String, Declared)> {
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in code.char_indices().chain([(code.len(), ' ')]) {
        match (c.is_alphanumeric() || c == '_', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s, &code[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    let mut names = Vec::new();
    for (i, &(at, word)) in words.iter().enumerate() {
        let rest = &code[at + word.len()..];
        match word {
            "local" if words.get(i + 1).is_some_and(|(_, w)| *w == "function") => {
                names.extend(words.get(i + 2).map(|(_, w)| (w.to_string(), Declared::Local)));
            }
            "local" => names.extend(list(rest, &["="]).into_iter().map(|n| (n, Declared::Local))),
            "function" => {
                if let Some(open) = rest.find('(') {
                    names.extend(list(&rest[open + 1..], &[")"]).into_iter().map(|n| (n, Declared::Parameter)));
                }
            }
            "for" => names.extend(list(rest, &["=", " in "]).into_iter().map(|n| (n, Declared::LoopVariable))),
            _ => {}
        }
    }
    names
}

/// The names of a list that `text` starts with, up to the first of `ends`: each item's leading
/// name, its type annotation aside (`a: {number}, b`).
fn list(text: &str, ends: &[&str]) -> Vec<String> {
    let end = ends.iter().filter_map(|e| text.find(e)).min().unwrap_or(text.len());
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text[..end].char_indices() {
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..end]);
    items
        .into_iter()
        .filter_map(|item| {
            let name: String = item.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
        })
        .collect()
}

/// The registry key of the function that tells [`NAME_THE_UNDEFINED`] the script's globals.
const SET_SCRIPT_GLOBALS: &str = "meeple.set_script_globals";

/// Removes what the sandbox must not offer and replaces `require`, `print` and `math.random`.
fn harden(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    for name in REMOVED.into_iter().chain(["require"]) {
        g.raw_set(name, LuaValue::Nil)?;
    }
    let removed = lua.create_table_from(REMOVED.map(|name| (name, true)))?;
    let (index, set_script_globals): (Function, Function) = lua
        .load(NAME_THE_UNDEFINED)
        .set_name("=meeple.sandbox")
        .call((removed, lua.create_function(undefined_hint)?))?;
    lua.set_named_registry_value(SET_SCRIPT_GLOBALS, set_script_globals)?;
    let metatable = lua.create_table_from([("__index", index)])?;
    // A script reaches the globals' metatable through `getmetatable(_G).__index`: it must not
    // change it.
    metatable.set_readonly(true);
    g.set_metatable(Some(metatable))?;
    let math: Table = g.raw_get("math")?;
    math.raw_set("random", lua.create_function(api::random)?)?;
    math.raw_set(
        "randomseed",
        lua.create_function(|_, _: mlua::MultiValue| -> mlua::Result<()> {
            Err(mlua::Error::runtime("math.randomseed is not available: the game seeds every random stream"))
        })?,
    )?;
    lent::guard_writers(lua)?;
    g.raw_set("require", lua.create_function(api::require)?)?;
    g.raw_set("print", lua.create_function(api::print)?)?;
    let (pcall, xpcall): (Function, Function) = lua.load(CAUGHT).set_name("=meeple.pcall").call((
        g.raw_get::<Function>("pcall")?,
        g.raw_get::<Function>("xpcall")?,
        lua.create_function(caught)?,
    ))?;
    g.raw_set("pcall", pcall)?;
    g.raw_set("xpcall", xpcall)?;
    Ok(())
}

/// What a handler called through mlua returned, refused unless nil, as
/// [`raw::returns_nothing`] refuses it for the calls made through Luau's C API.
fn nothing_returned(returned: LuaValue) -> mlua::Result<()> {
    raw::returns_nothing((!returned.is_nil()).then(|| api::luau_type(&returned)))
}

/// `pcall` and `xpcall` as scripts see them: an error an API function made through mlua raised
/// is a value of mlua's (a userdata that prints as "runtime error: …" and a traceback), which
/// [`caught`] turns into the line the hook's error would report, as it does Luau's refusal to
/// write to a read-only table, which it names if it is one lent to the call. Other errors pass
/// as they are;
/// the cost is an extra call per `pcall`, which the hot calls never make.
const CAUGHT: &str = r#"local pcall, xpcall, caught = ...
local function is_readonly(e)
    return type(e) == "string" and string.find(e, "attempt to modify a readonly table", 1, true) ~= nil
end
local function result(ok, ...)
    if ok then return ok, ... end
    local e = ...
    if type(e) == "userdata" or is_readonly(e) then e = caught(e) end
    return false, e
end
return function(f, ...)
    return result(pcall(f, ...))
end, function(f, handler, ...)
    return xpcall(f, function(e)
        if type(e) == "userdata" or is_readonly(e) then e = caught(e) end
        return handler(e)
    end, ...)
end"#;

/// An error value of mlua's, or a message of Luau's, as the script line and message the hook's
/// error would report (`init.luau:12: unknown token`); any other value as it is.
fn caught(lua: &Lua, error: LuaValue) -> mlua::Result<LuaValue> {
    let ctx = context(lua)?;
    let script = ctx.script.clone();
    let (location, mut message, _) = match error {
        LuaValue::Error(e) => locate(&script, *e, None),
        LuaValue::String(s) => locate(&script, mlua::Error::RuntimeError(s.to_string_lossy()), None),
        other => return Ok(other),
    };
    if let (Some(at), Some(hook)) = (&location, ctx.hook()) {
        message = lent::explain(&script, hook, at, &message).unwrap_or(message);
    }
    let line = match location {
        Some(at) => format!("{at}: {message}"),
        None => message,
    };
    Ok(LuaValue::String(lua.create_string(line)?))
}

thread_local! {
    /// The budget of the VM running on this thread (set by [`Running`]); null when none is.
    static RUNNING: Cell<*const Budget> = const { Cell::new(std::ptr::null()) };
}

/// Makes a budget the one the interrupt charges, for as long as this value lives.
struct Running {
    previous: *const Budget,
}

impl Running {
    fn new(budget: &Budget) -> Running {
        Running { previous: RUNNING.with(|r| r.replace(budget as *const Budget)) }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(self.previous));
    }
}

/// Why the budget stops the script now, if it does. Kept small, as it runs at every interrupt:
/// the rare checks are in [`check`], the messages in [`overrun`].
#[inline]
fn charge(budget: &Budget, heap: impl FnOnce() -> Heap) -> Option<String> {
    let left = budget.left.get();
    if left == 0 {
        return Some(overrun(budget, Overrun::Steps));
    }
    budget.left.set(left - 1);
    let ticks = budget.limits.steps - (left - 1);
    // Memory and the clock are read every 8th interrupt: an allocation between two reads is
    // bounded by the allocator's hard limit.
    if !ticks.is_multiple_of(8) {
        return None;
    }
    check(budget, heap())
}

/// The VM's heap, as the interrupt sees it.
struct Heap {
    /// KiB allocated, garbage included.
    used_kib: usize,
    /// The running state, whose garbage [`collect`] can free.
    state: *mut mlua::lua_State,
}

/// The checks of every 8th interrupt: memory and the clock.
#[cold]
#[inline(never)]
fn check(budget: &Budget, heap: Heap) -> Option<String> {
    // What the script holds, not what it has dropped and the collector has not yet freed: a
    // script that makes much garbage fails only if collecting it does not help, so whether it
    // fails does not depend on how far the collector happened to get (a replay runs on
    // another VM). The allocator's hard limit, twice this, bounds what is held in between.
    // A script that holds nearly the limit would be collected at every check: once collected,
    // it is collected again only when it has grown by a quarter of the limit.
    let (used, limit) = (heap.used_kib << 10, budget.limits.memory);
    if used > limit && used > budget.collected.get() + limit / 4 {
        let held = collect(heap.state) << 10;
        budget.collected.set(held);
        if held > limit {
            return Some(overrun(budget, Overrun::Memory));
        }
    }
    // The clock is a backstop for work interrupts cannot count, such as C functions that run
    // long between two interrupts (`table.sort` of a million items takes 0.1 s).
    if clock::now_ms().saturating_sub(budget.started_ms.get()) > budget.limits.wall.as_millis() as u64 {
        return Some(overrun(budget, Overrun::Wall));
    }
    None
}

/// Which limit a script went past.
enum Overrun {
    Steps,
    Memory,
    Wall,
}

#[cold]
#[inline(never)]
fn overrun(budget: &Budget, what: Overrun) -> String {
    let limits = &budget.limits;
    match what {
        Overrun::Steps => {
            format!("the script ran for more than {} steps without returning (an endless loop?)", limits.steps)
        }
        Overrun::Memory => format!("the script ran out of memory (more than {} MiB)", limits.memory >> 20),
        Overrun::Wall => format!("the script ran for more than {:.1} s without returning", limits.wall.as_secs_f64()),
    }
}

/// A full garbage collection from the interrupt; the KiB still allocated. The interrupt runs at
/// the VM's safe points, where the VM itself steps the collector (`VM_PROTECT(luaC_checkGC)`).
#[allow(unsafe_code)]
fn collect(state: *mut mlua::lua_State) -> usize {
    // SAFETY: `state` is the running state, at a safe point (above).
    unsafe {
        mlua::ffi::lua_gc(state, mlua::ffi::LUA_GCCOLLECT, 0);
        mlua::ffi::lua_gc(state, mlua::ffi::LUA_GCCOUNT, 0) as usize
    }
}

/// Luau calls this at every function call, return and loop back edge. It is a plain C callback
/// rather than `Lua::set_interrupt`, whose wrapper costs about 50 ns a call, a third of a cheap
/// hook. The error it raises carries no location; the traceback added by the message handler
/// gives it.
#[allow(unsafe_code)]
extern "C-unwind" fn interrupt(state: *mut mlua::lua_State, gc: std::ffi::c_int) {
    if gc >= 0 {
        return; // a garbage-collector step: errors are not allowed here
    }
    let budget = RUNNING.with(Cell::get);
    if budget.is_null() {
        return;
    }
    // SAFETY: Luau passes the state it runs; asking its allocated size has no effect on it.
    #[allow(unsafe_code)]
    let heap = || Heap { used_kib: unsafe { mlua::ffi::lua_gc(state, mlua::ffi::LUA_GCCOUNT, 0) } as usize, state };
    // SAFETY: `Running` points RUNNING at a budget that outlives it, and clears it on drop.
    #[allow(unsafe_code)]
    if let Some(why) = charge(unsafe { &*budget }, heap) {
        stop(state, why)
    }
}

/// Stops the script with an error.
#[cold]
#[inline(never)]
fn stop(state: *mut mlua::lua_State, why: String) -> ! {
    // SAFETY: raising a Lua error from an interrupt is how Luau stops a script; the message is
    // copied into Lua before the Rust string is dropped, so nothing of ours is left to unwind.
    #[allow(unsafe_code)]
    unsafe {
        mlua::ffi::lua_pushlstring(state, why.as_ptr().cast(), why.len());
        drop(why);
        mlua::ffi::lua_error(state)
    }
}

fn install_interrupt(lua: &Lua) -> mlua::Result<()> {
    // SAFETY: sets a C callback of the VM; the closure touches nothing else.
    #[allow(unsafe_code)]
    unsafe {
        lua.exec_raw::<()>((), |state| (*mlua::ffi::lua_callbacks(state)).interrupt = Some(interrupt))
    }
}

/// Turns an mlua error into a hook error naming the expansion, the hook and `file:line`.
pub(crate) fn to_hook_error(script: &Script, hook: HookKind, hook_name: &str, e: mlua::Error) -> HookError {
    to_hook_error_near(script, hook, hook_name, e, None)
}

/// As [`to_hook_error`]; `near` is where the script last was, for errors without a location.
fn to_hook_error_near(
    script: &Script,
    hook: HookKind,
    hook_name: &str,
    e: mlua::Error,
    near: Option<String>,
) -> HookError {
    let (location, message, traceback) = locate(script, e, near);
    let _ = hook;
    HookError { expansion: script.id.clone(), hook: hook_name.to_string(), location, message, traceback }
}

/// The script line an error names (`near` if it names none), its message without that line,
/// and its traceback.
fn locate(script: &Script, e: mlua::Error, near: Option<String>) -> (Option<String>, String, Option<String>) {
    let (message, traceback) = describe(&e);
    let prefix = format!("{}/", script.id);
    let location = find_location(&message, &prefix)
        .or_else(|| traceback.as_deref().and_then(|t| find_location(t, &prefix)))
        .or(near);
    let message = match &location {
        Some(loc) => message.replacen(&format!("{loc}: "), "", 1),
        None => message,
    };
    (location, message, traceback)
}

/// What a script that went past its VM's hard memory limit is told.
const OUT_OF_MEMORY: &str = "the script ran out of memory (its VM's hard limit, twice its limit, was reached)";

/// The message and traceback of an mlua error, callback causes unwrapped.
fn describe(e: &mlua::Error) -> (String, Option<String>) {
    match e {
        mlua::Error::CallbackError { traceback, cause } => {
            let (m, _) = describe(cause);
            (m, Some(traceback.clone()))
        }
        // The allocator's refusal: a `MemoryError` when the message handler could not run,
        // else a runtime error whose message is Luau's, followed by the handler's traceback.
        mlua::Error::RuntimeError(m) | mlua::Error::MemoryError(m) | mlua::Error::SyntaxError { message: m, .. } => {
            let (msg, tb) = match m.split_once("\nstack traceback:") {
                Some((msg, tb)) => (msg.trim(), Some(format!("stack traceback:{tb}"))),
                None => (m.trim(), None),
            };
            // The allocator's refusal, with the traceback the message handler could add.
            let out_of_memory =
                matches!(e, mlua::Error::MemoryError(_)) || msg.ends_with(super::raw::LUAU_OUT_OF_MEMORY);
            let msg = if out_of_memory { OUT_OF_MEMORY.to_string() } else { message_of(msg) };
            (msg, tb)
        }
        mlua::Error::WithContext { context, cause } => {
            let (m, tb) = describe(cause);
            (format!("{context}: {m}"), tb)
        }
        other => (other.to_string(), None),
    }
}

/// An error raised with a value that is no message, as mlua shows it while a script loads
/// (`table: 0x2000…`, `nil`), said as the message handler says it during hooks.
fn message_of(msg: &str) -> String {
    let kind = match msg.split_once(": 0x") {
        Some((kind, address)) if address.chars().all(|c| c.is_ascii_hexdigit()) => kind,
        _ => msg,
    };
    match kind {
        "nil" | "table" | "function" | "userdata" | "thread" | "buffer" => super::raw::not_a_message(kind),
        _ => msg.to_string(),
    }
}

/// The first `<expansion>/<file>:<line>` in a text.
fn find_location(text: &str, prefix: &str) -> Option<String> {
    let start = text.find(prefix)?;
    let rest = &text[start..];
    let colon = rest.find(':')?;
    let digits: String = rest[colon + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
    (!digits.is_empty()).then(|| format!("{}:{digits}", &rest[..colon]))
}

#[cfg(test)]
mod tests {
    use super::find_location;

    #[test]
    fn locations_are_found_in_messages_and_tracebacks() {
        assert_eq!(
            find_location("demo/init.luau:12: attempt to index nil", "demo/").as_deref(),
            Some("demo/init.luau:12")
        );
        assert_eq!(
            find_location("[C]: in ?\n  demo/lib/x.luau:3: in function", "demo/").as_deref(),
            Some("demo/lib/x.luau:3")
        );
        assert_eq!(find_location("no location here", "demo/"), None);
    }
}
