//! One sandboxed Luau VM running one expansion's script, and the calls into its handlers.
//!
//! The sandbox: only `table string math utf8 bit32 buffer` are loaded; `os`, `loadstring`,
//! `getfenv`, `setfenv`, `collectgarbage` and `debug` are removed; `require` is ours and resolves
//! only inside the expansion's folder; `math.random` draws from the expansion's random stream in
//! the game state (so replays reproduce it) and fails outside hooks; `print` goes to the log;
//! `sandbox(true)` makes every library and global read-only. Each hook call gets a budget of
//! interrupts (deterministic) and a wall-clock backstop; the VM has a memory limit.
//!
//! How the view reaches scripts: the view and command sink are single userdata objects created
//! with the VM. For the length of a hook call, the VM's context holds pointers to the call's
//! `View` and `Commands`; the userdata methods read them through [`with_view`] and [`with_out`].
//! This costs nothing per call, where `Lua::scope` would cost about half a microsecond.

use super::api;
use super::{Limits, Script};
use meeple_core::action::{Decision, Offer};
use meeple_core::{Commands, Event, HookError, HookKind, HookSet, Placement, Scoring, TileId, View};
use meeple_plugin_sdk::wire::Writer;
use mlua::chunk::ChunkMode;
use mlua::{AnyUserData, Function, Lua, LuaOptions, StdLib, Table, Value as LuaValue, VmState};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

/// What a hook handler receives besides the view and the sink.
pub(crate) enum Args<'a> {
    None,
    Event(&'a Event),
    Scoring(&'a Scoring),
    Offer(&'a Offer),
    Decision(&'a Decision, u16),
}

/// Counts interrupts against the per-call budget.
#[derive(Default)]
struct Budget {
    left: Cell<u64>,
    ticks: Cell<u32>,
    started: Cell<Option<Instant>>,
    /// Where the script was when its memory use last came near the limit: an out-of-memory
    /// error carries no location of its own.
    near_limit_at: RefCell<Option<String>>,
}

/// `<expansion>/<file>:<line>` of the innermost script function running now.
fn where_now(lua: &Lua, prefix: &str) -> Option<String> {
    (0..12).find_map(|level| {
        lua.inspect_stack(level, |d| {
            let src = d.source().short_src.map(|s| s.into_owned())?;
            let line = d.current_line()?;
            src.starts_with(prefix).then(|| format!("{src}:{line}"))
        })
        .flatten()
    })
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
    /// The candidates of the `can_place_tile` call in progress (see `with_candidates`).
    candidates: Cell<(*const Placement, usize)>,
    /// Numbers `can_place_tile` calls.
    calls: Cell<u32>,
}

impl Ctx {
    pub fn hook(&self) -> Option<HookKind> {
        self.hook.get()
    }

    pub fn loading(&self) -> bool {
        self.loading.get()
    }
}

/// Runs `f` with the view of the hook call in progress.
pub(crate) fn with_view<R>(lua: &Lua, f: impl FnOnce(&View<'_>, &Ctx) -> mlua::Result<R>) -> mlua::Result<R> {
    let ctx = lua.app_data_ref::<Ctx>().ok_or_else(|| mlua::Error::runtime("meeple context missing"))?;
    let p = ctx.view.get();
    if p.is_null() {
        return Err(mlua::Error::runtime("the view can only be used during a hook call"));
    }
    // SAFETY: `Enter::new` stores a pointer to the `View` of the hook call in progress and
    // `Enter::drop` clears it before that call returns; Lua runs the call on this thread, so the
    // view is alive and unchanged for the whole of `f`.
    #[allow(unsafe_code)]
    let view = unsafe { &*(p as *const View<'_>) };
    f(view, &ctx)
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

/// Runs `f` with the candidate placements of the `can_place_tile` call in progress.
pub(crate) fn with_candidates<R>(lua: &Lua, f: impl FnOnce(&[Placement]) -> mlua::Result<R>) -> mlua::Result<R> {
    let ctx = lua.app_data_ref::<Ctx>().ok_or_else(|| mlua::Error::runtime("meeple context missing"))?;
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

/// Brackets a hook call: points the context at its view and sink, resets the budget.
struct Enter<'a> {
    ctx: &'a Ctx,
}

impl<'a> Enter<'a> {
    fn new(
        ctx: &'a Ctx,
        budget: &Budget,
        limits: &Limits,
        view: &View<'_>,
        out: &mut Commands<'_>,
        hook: HookKind,
    ) -> Self {
        ctx.view.set(view as *const View<'_> as *const ());
        ctx.out.set(out as *mut Commands<'_> as *mut ());
        ctx.hook.set(Some(hook));
        budget.left.set(limits.steps);
        budget.ticks.set(0);
        budget.started.set(None);
        budget.near_limit_at.borrow_mut().take();
        Enter { ctx }
    }
}

impl Drop for Enter<'_> {
    fn drop(&mut self) {
        self.ctx.view.set(std::ptr::null());
        self.ctx.out.set(std::ptr::null_mut());
        self.ctx.hook.set(None);
    }
}

/// The Lua side of event delivery. Rust writes an event's fields as 32-bit words into the VM's
/// mail buffer and calls the handler with the hook's event table; that table reads its fields
/// from the mail only when the handler looks at them (a handler that reads nothing costs
/// nothing), so no Lua table is built from Rust per event (mlua protects every table write, which
/// costs a closure). Event tables and the candidate list are valid during the call only.
const PRELUDE: &str = r#"
local mail, fetch_candidates = ...
local rd = buffer.readi32
local names = { tiles = {}, figures = {}, kinds = {} }
local function player(p) if p < 0 then return nil end return p + 1 end
local function loc(o)
    local k = rd(mail, o)
    if k == 0 then return { kind = "supply" }
    elseif k == 1 then return { kind = "segment", seg = rd(mail, o + 4) }
    elseif k == 2 then return { kind = "point", tile = rd(mail, o + 4), point = rd(mail, o + 8) + 1 }
    end
    return { kind = "aside" }
end
local function list(o)
    local n, t = rd(mail, o), {}
    for i = 1, n do t[i] = rd(mail, o + 4 * i) end
    return t
end
local function int(o) return function() return rd(mail, o) end end
local function flag(o) return function() return rd(mail, o) == 1 end end
local function who(o) return function() return player(rd(mail, o)) end end
local function kind(o) return function() return names.kinds[rd(mail, o)] end end
local figure_fields = {
    figure = int(0), player = who(4),
    kind = function() return names.figures[rd(mail, 8)] end,
}
local fields = {
    [HOOK_TILE_PLACED] = {
        player = who(0), tile = function() return names.tiles[rd(mail, 4)] end,
        index = int(8), x = int(12), y = int(16), rotation = int(20),
    },
    [HOOK_FIGURE_PLACED] = setmetatable({
        at = function() return loc(12) end,
        from = function() if rd(mail, 24) == 1 then return loc(28) end return nil end,
    }, { __index = figure_fields }),
    [HOOK_FIGURE_RETURNED] = setmetatable({ from = function() return loc(12) end }, { __index = figure_fields }),
    [HOOK_FEATURE_COMPLETED] = { feature = int(0), kind = kind(4), completer = who(8) },
    [HOOK_FEATURE_SCORED] = {
        feature = int(0), kind = kind(4), completed = flag(8),
        points = function()
            local n, points = rd(mail, 12), {}
            for i = 0, n - 1 do points[rd(mail, 16 + 8 * i) + 1] = rd(mail, 20 + 8 * i) end
            return points
        end,
    },
    [HOOK_TURN_PART_END] = { player = who(0), turn = int(4), part = int(8) },
    [HOOK_TURN_END] = { player = who(0), turn = int(4) },
    [HOOK_MODIFY_SCORE] = {
        feature = int(0), kind = kind(4), completed = flag(8), final = flag(12), tiles = int(16), arms = int(20),
        cities = function() return list(24) end,
        strength = function() return list(28 + 4 * rd(mail, 24)) end,
        points = function()
            local o = 28 + 4 * rd(mail, 24)
            return list(o + 4 + 4 * rd(mail, o))
        end,
    },
}
local events = {}
for hook, readers in fields do
    events[hook] = setmetatable({}, {
        __index = function(_, key)
            local read = readers[key]
            if read then return read() end
            return nil
        end,
    })
end
-- can_place_tile's candidates come from Rust only when the handler looks at them: most
-- handlers never do. The mail's first word numbers the calls, so a list is never reused.
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
})
local function set_names(t) names = t end
return events, candidates, set_names
"#;

/// Room for the largest event (a scoring of a feature touching many cities).
const MAIL_BYTES: usize = 64 * 1024;

/// A VM with the script loaded and its handlers collected.
pub(crate) struct Vm {
    handlers: Vec<Option<Function>>,
    view: AnyUserData,
    out: AnyUserData,
    mail: mlua::Buffer,
    scratch: RefCell<Writer>,
    /// Per hook, the lazy event table the prelude made.
    events: Vec<Option<Table>>,
    candidates: Table,
    set_names: Function,
    tile_names: RefCell<Vec<mlua::LuaString>>,
    budget: Rc<Budget>,
    limits: Limits,
    lua: Lua,
}

impl Vm {
    /// Builds the sandbox, runs the entry file and collects the handlers it registered.
    pub fn new(script: &Arc<Script>) -> Result<Vm, HookError> {
        let fail = |e: mlua::Error| to_hook_error(script, HookKind::Setup, "while loading", e);
        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8 | StdLib::BIT | StdLib::BUFFER;
        let lua = Lua::new_with(libs, LuaOptions::new()).map_err(fail)?;
        lua.set_app_data(Ctx {
            script: script.clone(),
            view: Cell::new(std::ptr::null()),
            out: Cell::new(std::ptr::null_mut()),
            hook: Cell::new(None),
            loading: Cell::new(true),
            forbidden: RefCell::new(Vec::new()),
            offers: RefCell::new(Vec::new()),
            candidates: Cell::new((std::ptr::null(), 0)),
            calls: Cell::new(0),
        });
        let budget = Rc::new(Budget::default());
        budget.left.set(script.limits.steps);
        install_interrupt(&lua, budget.clone(), script.limits, format!("{}/", script.id));
        harden(&lua).map_err(fail)?;
        api::install(&lua, script).map_err(fail)?;
        lua.set_memory_limit(script.limits.memory).map_err(fail)?;
        lua.sandbox(true).map_err(fail)?;

        let entry = &script.entry;
        let chunk =
            lua.load(&script.files[entry]).set_name(format!("@{}/{entry}", script.id)).set_mode(ChunkMode::Text);
        chunk.exec().map_err(fail)?;
        lua.app_data_ref::<Ctx>().expect("context").loading.set(false);

        let registered: Table = lua.named_registry_value(api::HANDLERS).map_err(fail)?;
        let mut handlers = vec![None; HookKind::ALL.len()];
        for hook in HookKind::ALL {
            handlers[hook as usize] = registered.raw_get::<Option<Function>>(hook.name()).map_err(fail)?;
        }
        let view = lua.create_userdata(api::ViewHandle).map_err(fail)?;
        let out = lua.create_userdata(api::OutHandle).map_err(fail)?;
        let mail = lua.create_buffer_with_capacity(MAIL_BYTES).map_err(fail)?;
        let mut prelude = PRELUDE.to_string();
        for hook in HookKind::ALL {
            prelude = prelude.replace(&format!("HOOK_{}]", hook.name().to_uppercase()), &format!("{}]", hook as i64));
        }
        let (event_tables, candidates, set_names): (Table, Table, Function) = lua
            .load(prelude)
            .set_name("=meeple.prelude")
            .set_mode(ChunkMode::Text)
            .call((mail.clone(), lua.create_function(api::candidates).map_err(fail)?))
            .map_err(fail)?;
        let mut events = vec![None; HookKind::ALL.len()];
        for hook in HookKind::ALL {
            events[hook as usize] = event_tables.raw_get::<Option<Table>>(hook as i64).map_err(fail)?;
        }
        Ok(Vm {
            handlers,
            view,
            out,
            mail,
            scratch: RefCell::new(Writer::default()),
            events,
            candidates,
            set_names,
            tile_names: RefCell::new(Vec::new()),
            budget,
            limits: script.limits,
            lua,
        })
    }

    /// The hooks the script registered.
    pub fn hooks(&self) -> HookSet {
        HookKind::ALL.iter().filter(|h| self.handlers[**h as usize].is_some()).fold(HookSet::NONE, |s, h| s.with(*h))
    }

    fn ctx(&self) -> mlua::AppDataRef<'_, Ctx> {
        self.lua.app_data_ref::<Ctx>().expect("context")
    }

    /// Gives the prelude the names of tile kinds, figure kinds and segment kinds (once per VM:
    /// a script's expansion belongs to one ruleset).
    fn ensure_names(&self, view: &View<'_>) -> mlua::Result<()> {
        if !self.tile_names.borrow().is_empty() {
            return Ok(());
        }
        let rules = view.rules();
        let t = self.lua.create_table()?;
        let tiles = self.lua.create_table()?;
        let mut tile_names = Vec::with_capacity(rules.tiles().len());
        for (i, k) in rules.tiles().iter().enumerate() {
            let name = self.lua.create_string(&k.key)?;
            tiles.raw_set(i as i64, name.clone())?;
            tile_names.push(name);
        }
        let figures = self.lua.create_table()?;
        for (i, f) in rules.figures().iter().enumerate() {
            figures.raw_set(i as i64, f.id.as_str())?;
        }
        let kinds = self.lua.create_table()?;
        for k in meeple_core::SegmentKind::ALL {
            kinds.raw_set(k as i64, k.name())?;
        }
        t.raw_set("tiles", tiles)?;
        t.raw_set("figures", figures)?;
        t.raw_set("kinds", kinds)?;
        self.set_names.call::<()>(t)?;
        *self.tile_names.borrow_mut() = tile_names;
        Ok(())
    }

    /// Copies the encoded fields into the VM's mail buffer.
    fn post(&self, view: &View<'_>) -> mlua::Result<()> {
        self.ensure_names(view)?;
        let mail = self.scratch.borrow();
        if mail.0.len() > MAIL_BYTES {
            return Err(mlua::Error::runtime("an event is too large for the script mailbox"));
        }
        self.mail.write_bytes(0, &mail.0);
        Ok(())
    }

    /// Calls the handler of `hook`, if any.
    pub fn call(
        &self,
        hook: HookKind,
        view: &View<'_>,
        out: &mut Commands<'_>,
        args: Args<'_>,
    ) -> Result<(), HookError> {
        let Some(h) = &self.handlers[hook as usize] else { return Ok(()) };
        let ctx = self.ctx();
        let _in = Enter::new(&ctx, &self.budget, &self.limits, view, out, hook);
        let lua = &self.lua;
        let result = (|| -> mlua::Result<()> {
            match args {
                Args::None => h.call((&self.view, &self.out)),
                Args::Event(e) => {
                    let figure =
                        |id| view.figures().into_iter().find(|(f, _)| *f == id).map(|(_, f)| (f.owner, f.kind));
                    let encoded = {
                        let mut w = self.scratch.borrow_mut();
                        w.0.clear();
                        w.event(e, figure)
                    };
                    if !encoded {
                        return Ok(());
                    }
                    self.post(view)?;
                    h.call((&self.view, self.events[hook as usize].as_ref(), &self.out))
                }
                Args::Scoring(s) => {
                    {
                        let mut w = self.scratch.borrow_mut();
                        w.0.clear();
                        w.scoring(s);
                    }
                    self.post(view)?;
                    h.call((&self.view, self.events[hook as usize].as_ref(), &self.out))
                }
                Args::Offer(o) => h.call((&self.view, api::offer_table(lua, view, o)?, &self.out)),
                Args::Decision(d, option) => {
                    h.call((&self.view, api::decision_table(lua, d)?, option as i64 + 1, &self.out))
                }
            }
        })();
        result.map_err(|e| self.error(&ctx.script, hook, e))
    }

    fn error(&self, script: &Script, hook: HookKind, e: mlua::Error) -> HookError {
        let near = self.budget.near_limit_at.borrow_mut().take();
        to_hook_error_near(script, hook, hook.name(), e, near)
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
        if self.handlers[hook as usize].is_none() {
            return Ok(Vec::new());
        }
        let ctx = self.ctx();
        ctx.forbidden.borrow_mut().clear();
        let _in = Enter::new(&ctx, &self.budget, &self.limits, view, out, hook);
        let call = ctx.calls.get().wrapping_add(1);
        ctx.calls.set(call);
        ctx.candidates.set((candidates.as_ptr(), candidates.len()));
        let result = (|| -> mlua::Result<()> {
            self.ensure_names(view)?;
            self.mail.write_bytes(0, &call.to_le_bytes());
            let tile_name = self.tile_names.borrow()[tile as usize].clone();
            let h = self.handlers[hook as usize].as_ref().expect("checked above");
            h.call((&self.view, tile_name, &self.candidates, &self.out))
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

/// Removes what the sandbox must not offer and replaces `require`, `print` and `math.random`.
fn harden(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    for name in
        ["os", "loadstring", "getfenv", "setfenv", "collectgarbage", "debug", "require", "dofile", "loadfile", "load"]
    {
        g.raw_set(name, LuaValue::Nil)?;
    }
    let math: Table = g.raw_get("math")?;
    math.raw_set("random", lua.create_function(api::random)?)?;
    math.raw_set(
        "randomseed",
        lua.create_function(|_, _: mlua::MultiValue| -> mlua::Result<()> {
            Err(mlua::Error::runtime("math.randomseed is not available: the game seeds every random stream"))
        })?,
    )?;
    g.raw_set("require", lua.create_function(api::require)?)?;
    g.raw_set("print", lua.create_function(api::print)?)?;
    Ok(())
}

fn install_interrupt(lua: &Lua, budget: Rc<Budget>, limits: Limits, prefix: String) {
    lua.set_interrupt(move |lua| {
        let stop = |why: String| {
            let at = where_now(lua, &prefix).map(|l| format!("{l}: ")).unwrap_or_default();
            Err(mlua::Error::runtime(format!("{at}{why}")))
        };
        let left = budget.left.get();
        if left == 0 {
            return stop(format!(
                "the script ran for more than {} steps in one hook call (an endless loop?)",
                limits.steps
            ));
        }
        budget.left.set(left - 1);
        if lua.used_memory() > limits.memory / 8 {
            *budget.near_limit_at.borrow_mut() = where_now(lua, &prefix);
        }
        // The clock is read rarely: it is a backstop for work interrupts cannot count.
        let ticks = budget.ticks.get().wrapping_add(1);
        budget.ticks.set(ticks);
        if ticks.is_multiple_of(4096) {
            match budget.started.get() {
                None => budget.started.set(Some(Instant::now())),
                Some(t0) if t0.elapsed() > limits.wall => {
                    return stop(format!(
                        "the script ran for more than {:.1} s in one hook call",
                        limits.wall.as_secs_f64()
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(VmState::Continue)
    });
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
    let (message, traceback) = describe(&e);
    let prefix = format!("{}/", script.id);
    let location = find_location(&message, &prefix)
        .or_else(|| traceback.as_deref().and_then(|t| find_location(t, &prefix)))
        .or(near);
    let message = match &location {
        Some(loc) => message.replacen(&format!("{loc}: "), "", 1),
        None => message,
    };
    let _ = hook;
    HookError { expansion: script.id.clone(), hook: hook_name.to_string(), location, message, traceback }
}

/// The message and traceback of an mlua error, callback causes unwrapped.
fn describe(e: &mlua::Error) -> (String, Option<String>) {
    match e {
        mlua::Error::CallbackError { traceback, cause } => {
            let (m, _) = describe(cause);
            (m, Some(traceback.clone()))
        }
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => {
            match m.split_once("\nstack traceback:") {
                Some((msg, tb)) => (msg.trim().to_string(), Some(format!("stack traceback:{tb}"))),
                None => (m.trim().to_string(), None),
            }
        }
        mlua::Error::MemoryError(_) => ("the script ran out of memory (its VM's limit was reached)".into(), None),
        mlua::Error::WithContext { context, cause } => {
            let (m, tb) = describe(cause);
            (format!("{context}: {m}"), tb)
        }
        other => (other.to_string(), None),
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
