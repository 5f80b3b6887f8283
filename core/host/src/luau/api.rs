//! The Luau API: one registry ([`API`], [`HOOKS`], [`TYPES`]) that the bindings below implement
//! and from which `docs/lua-api.md` and `docs/meeple.d.luau` are generated.
//!
//! Conventions for scripts: players are numbered from 1; segments, features, figures and placed
//! tiles are ids (numbers) that only mean something to the view; tile kinds are `tileset:tile`
//! keys; figure kinds, tokens and categories are names (a bare name means the script's own
//! expansion, e.g. `"builder"` → `"traders-builders:builder"`).

use super::records::{self, Record};
use super::vm::{Ctx, caller_place, context, with_out, with_view};
use super::{Script, fast};
use meeple_core::action::{Decision, Offer, Target};
use meeple_core::game::{MAX_NESTING, MAX_OFFERS, MAX_OPTIONS, MAX_POINTS, MAX_TEXT, log_line, too_deep};
use meeple_core::state::Stage;
use meeple_core::tileset::{SegmentKind, TileDef};
use meeple_core::{Command, Commands, HookKind, Interest, Question, TileInfo, Value, View};
use meeple_toml::clipped;
use mlua::{Lua, MultiValue, Table, Value as LuaValue};
use std::collections::BTreeMap;
use std::path::Path;

/// Where an API function lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The global `meeple` table.
    Meeple,
    /// Methods of the view (`view:players()`), valid during a hook call.
    View,
    /// Methods of the command sink (`out:add_points(…)`), valid during a hook call.
    Out,
}

/// One function of the API.
#[derive(Clone, Copy, Debug)]
pub struct ApiEntry {
    /// Where it lives.
    pub scope: Scope,
    /// Its name.
    pub name: &'static str,
    /// Luau parameter list, without `self`.
    pub params: &'static str,
    /// Luau return type.
    pub returns: &'static str,
    /// What it does.
    pub doc: &'static str,
}

/// One hook a script can register with `meeple.on`.
#[derive(Clone, Copy, Debug)]
pub struct HookDoc {
    /// The hook's name.
    pub name: &'static str,
    /// The handler's parameters.
    pub params: &'static str,
    /// When it is called and what it may do.
    pub doc: &'static str,
}

const fn e(
    scope: Scope,
    name: &'static str,
    params: &'static str,
    returns: &'static str,
    doc: &'static str,
) -> ApiEntry {
    ApiEntry { scope, name, params, returns, doc }
}

use Scope::{Meeple as M, Out as O, View as V};

/// Every function scripts can call.
pub const API: &[ApiEntry] = &[
    e(
        M,
        "on",
        "hook: HookName, handler: (...any) -> (), only: Only?",
        "()",
        "Registers the handler of a hook (one per hook: for several rules on one hook, give each rule a function, in a module of its own if you like, and call them from the one handler). Only while the script loads. A mistake (an unknown hook, a second handler) does not stop the script: every one is reported, each at its line, once the entry file has run. `only` narrows the calls that can matter (`kinds`: feature kinds, for `feature_completed`, `feature_scored` and `modify_score`; `stored`: storage keys, one of which must be held; `on_board`: figure kinds, one of which must stand on the board, anybody's); the others are skipped, so the handler must do nothing in them.",
    ),
    e(M, "tile", "key: string", "TileKind", "The definition of a tile kind (`tileset:tile`). Only during a hook call."),
    e(
        M,
        "sorted_pairs",
        "t: {[any]: any}",
        "() -> (any, any)",
        "Iterates a table in key order (booleans, false first, then numbers, then strings; a key of another type is an error, as its order would not replay); use it wherever order matters.",
    ),
    e(V, "players", "", "number", "Number of players."),
    e(V, "turn", "", "Turn", "The current turn."),
    e(V, "tile_count", "", "number", "Number of tiles on the board."),
    e(V, "tile", "index: number", "Tile?", "A placed tile by its index (0 is the first tile placed)."),
    e(V, "tile_at", "x: number, y: number", "Tile?", "The tile on a square; north is y + 1."),
    e(V, "segments", "index: number", "{Segment}", "The segments of a placed tile, with their ids on the board."),
    e(V, "segment", "seg: number", "Segment", "One segment of the board."),
    e(V, "segment_ids", "index: number", "{number}", "The segment ids of a placed tile (cheaper than `segments`)."),
    e(
        V,
        "tile_features",
        "index: number",
        "{number}",
        "The feature ids of a placed tile's segments, in segment order (a feature may repeat).",
    ),
    e(
        V,
        "segment_kind",
        "seg: number",
        "string",
        "The kind of a segment: city, road, field, monastery, river, garden.",
    ),
    e(V, "feature_id", "seg: number", "number", "The id of the feature a segment belongs to (cheaper than `feature`)."),
    e(V, "goods", "seg: number", "{[string]: number}", "Goods symbols on the feature `seg` belongs to, by goods."),
    e(
        V,
        "feature_tags",
        "seg: number",
        "{[string]: number}",
        "The tags of the segments of the feature `seg` belongs to (`docs/tilesets.md`), each with how many of its segments carry it: `view:feature_tags(seg).inn`.",
    ),
    e(V, "tile_points", "index: number", "{NamedPoint}", "The named points (villages) of a placed tile."),
    e(
        V,
        "illustrations",
        "index: number",
        "{Illustration}",
        "The small pictures of a placed tile, with the segments they lie in and flank.",
    ),
    e(V, "feature", "seg: number", "Feature", "The feature a segment belongs to; its `id` names the feature."),
    e(V, "feature_segments", "seg: number", "{number}", "The segments of the feature `seg` belongs to."),
    e(V, "field_cities", "seg: number", "{number}", "The completed cities (feature ids) the field of `seg` touches."),
    e(V, "figures", "", "{Figure}", "Every figure of every player."),
    e(
        V,
        "figure",
        "id: number",
        "Figure?",
        "The figure with this id (a `Figure`'s `id`, a target's `figure`), or nil if there is none.",
    ),
    e(V, "figures_on", "seg: number", "{Figure}", "The figures on the feature `seg` belongs to."),
    e(
        V,
        "figures_of_kind",
        "kind: string",
        "{Figure}",
        "Every figure of a kind, of every player, wherever it is (cheaper than `figures` and a filter).",
    ),
    e(V, "supply", "player: number, kind: string", "number", "Figures of a kind in a player's supply."),
    e(
        V,
        "figure_segments",
        "player: number, kind: string",
        "{number}",
        "The segments where a player's figures of a kind stand.",
    ),
    e(
        V,
        "points",
        "player: number, category: string?",
        "number",
        "A player's points in a category (default: this expansion's).",
    ),
    e(V, "score", "player: number", "number", "A player's total score."),
    e(
        V,
        "score_before_final",
        "player: number",
        "number",
        "A player's score once the base game's end scoring is done: the score until the other expansions' final scoring begins, then the score it began with (unfinished features and fields scored, also by an expansion whose manifest says `final_scoring_with_base`). For rules that score \"before any other end scoring\", whichever order the expansions run in.",
    ),
    e(V, "tokens", "player: number, token: string", "number", "A player's tokens of a kind."),
    e(
        V,
        "player_name",
        "player: number",
        "string",
        "A player's name, as the game's config gives it: for log lines (`out:log(view:player_name(p) .. \" scores a big city\")`); no rule may depend on it.",
    ),
    e(
        V,
        "token_supply",
        "token: string",
        "number",
        "Tokens of a kind left in the general supply, before this handler's own `out:give_tokens` (commands apply when it returns): count what you give yourself.",
    ),
    e(V, "storage", "key: string", "any", "A value this expansion stored with `out:set_storage`."),
    e(V, "neighbours", "x: number, y: number", "number", "Tiles on the 8 squares around a square."),
    e(V, "pending", "", "{DecisionInfo}", "Decisions waiting for an answer, the next one first."),
    e(
        O,
        "add_points",
        "player: number, points: number, category: string?",
        "()",
        "Adds points (negative: removes), at most a million either way, in a category (default: this expansion's id).",
    ),
    e(
        O,
        "give_tokens",
        "player: number, token: string, count: number",
        "()",
        "Gives tokens from the general supply (negative: takes them back). Applied when the handler returns: `view:token_supply` does not see it meanwhile, and a give past what the supply holds fails the hook.",
    ),
    e(
        O,
        "place_figure",
        "player: number, kind: string, target: Target",
        "()",
        "Puts a figure from the player's supply on a segment or point.",
    ),
    e(O, "move_figure", "figure: number, target: Target", "()", "Moves a figure already on the board."),
    e(O, "set_aside", "figure: number", "()", "Takes a figure off the board without returning it to the supply."),
    e(O, "return_figure", "figure: number", "()", "Sends a figure back to its owner's supply."),
    e(O, "set_face", "figure: number, face: number", "()", "Turns a figure to one of the faces its manifest declares."),
    e(
        O,
        "extra_turn_part",
        "",
        "()",
        "When this part of the turn ends, the active player plays another part (double turn), if a tile is left to draw: with none (`view:turn().tiles_left == 0`), the game ends as it would have, without a word unless the script logs one.",
    ),
    e(O, "extra_turn", "player: number", "()", "After this turn, the player plays a whole extra turn."),
    e(
        O,
        "set_storage",
        "key: string, value: any",
        "()",
        "Stores a value (nil removes it); booleans, integers, strings and tables of them, each a list (keys 1 to n) or a map with string keys (for a value per player, `tostring(player)`), at most 64 KiB in all.",
    ),
    e(
        O,
        "set_score",
        "player: number, points: number",
        "()",
        "In `modify_score`: the player's points for this feature, at most a million either way (0: none).",
    ),
    e(
        O,
        "ask",
        "player: number, kind: string, options: {string}, data: any?, about: Target?",
        "()",
        "Asks a player to choose one of the options (strings: a number is not turned into one); the answer reaches `on_decision` (a script without that handler is refused the question). `kind` is both the question's id, which `on_decision` and scenarios read (`Red decides wish`), and what players see under the expansion's name (`Wishing well asks: wish`): a short word or phrase that reads as a question's title. `about` says what the question is about (the figure, segment or point it concerns): people see it named with the question, and a frontend can show it on the board.",
    ),
    e(O, "log", "message: string", "()", "A message for the game log (its first 4 KiB)."),
    e(O, "forbid", "candidate: number", "()", "In `can_place_tile`: forbids the candidate placement with this index."),
    e(
        O,
        "offer",
        "code: number, target: Target, label: string",
        "()",
        "In `figure_actions`: offers an action; choosing it calls `on_action` (a script without that handler is refused the offer). The label says what it does, ending where the target goes (`\"move the tollhouse to\"`): people see it followed by the target's name (`the village at (2, 1)`).",
    ),
];

/// The hooks, in [`HookKind`] order.
pub const HOOKS: &[HookDoc] = &[
    HookDoc { name: "setup", params: "view: View, out: Out", doc: "Once, when a game starts (after the start tile)." },
    HookDoc {
        name: "can_place_tile",
        params: "view: View, tile: string, candidates: {Candidate}, out: Out",
        doc: "Once per drawn tile with all its legal placements; `out:forbid(i)` removes the i-th.",
    },
    HookDoc {
        name: "figure_actions",
        params: "view: View, out: Out",
        doc: "When the figure phase opens (and, with the base option `phase2_alternatives_exclusive = false`, again after an action taken instead of a meeple, for the expansions not yet taken); `out:offer(…)` adds actions beside the figure placements.",
    },
    HookDoc {
        name: "on_action",
        params: "view: View, offer: OfferInfo, out: Out",
        doc: "The player took one of this expansion's offers (the player to act: `view:turn().player`).",
    },
    HookDoc {
        name: "on_decision",
        params: "view: View, decision: DecisionInfo, option: number, out: Out",
        doc: "A player answered one of this expansion's decisions (options count from 1).",
    },
    HookDoc {
        name: "tile_placed",
        params: "view: View, event: TilePlaced, out: Out",
        doc: "A tile was placed: the start tile too, before `setup`, with `player` nil.",
    },
    HookDoc {
        name: "figure_placed",
        params: "view: View, event: FigureEvent, out: Out",
        doc: "A figure went onto the board or moved on it.",
    },
    HookDoc {
        name: "figure_returned",
        params: "view: View, event: FigureEvent, out: Out",
        doc: "A figure went back to its owner's supply.",
    },
    HookDoc {
        name: "feature_completed",
        params: "view: View, event: FeatureCompleted, out: Out",
        doc: "A tile completed a feature (before it is scored).",
    },
    HookDoc {
        name: "feature_scored",
        params: "view: View, event: FeatureScored, out: Out",
        doc: "A feature was scored, during the game or at its end (`view:turn().stage` is `\"final\"` then). Its figures still stand on it while this hook runs.",
    },
    HookDoc {
        name: "turn_part_end",
        params: "view: View, event: TurnEvent, out: Out",
        doc: "A part of a turn ended and another part of the same turn follows.",
    },
    HookDoc {
        name: "turn_end",
        params: "view: View, event: TurnEvent, out: Out",
        doc: "A turn ended (once, however many parts it had).",
    },
    HookDoc {
        name: "modify_score",
        params: "view: View, scoring: ScoringInfo, out: Out",
        doc: "A feature is about to be scored; `out:set_score` replaces a player's points.",
    },
    HookDoc {
        name: "final_scoring",
        params: "view: View, out: Out",
        doc: "After the base game's final scoring; an expansion whose manifest says `final_scoring_with_base` is part of it and runs before the others.",
    },
];

/// Luau declarations of the tables the API passes around.
pub const TYPES: &str = r#"type HookName = "setup" | "can_place_tile" | "figure_actions" | "on_action" | "on_decision" | "tile_placed" | "figure_placed" | "figure_returned" | "feature_completed" | "feature_scored" | "turn_part_end" | "turn_end" | "modify_score" | "final_scoring"
type Turn = { number: number, player: number, part: number, stage: string, placed: number?, tiles_left: number }
type Tile = { index: number, tile: string, id: string, x: number, y: number, rotation: number }
type Segment = { seg: number, tile: number, index: number, id: string, kind: string, arms: number, goods: string?, tags: {string}, ends: {string}, sides: {string}, cities: {number}, field: number?, flanks: {number} }
type NamedPoint = { point: number, id: string, kind: string }
type Illustration = { kind: string, field: number?, flanks: {number} }
type Feature = { id: number, kind: string, completed: boolean, scored: boolean, tiles: number, arms: number, open: number }
type Location = { kind: "supply" | "aside" | "segment" | "point", seg: number?, tile: number?, point: number?, id: string? }
type Figure = { id: number, kind: string, owner: number, at: Location, face: number, attached_to: number? }
type Target = { kind: "segment" | "point" | "figure" | "none", seg: number?, tile: number?, point: (number | string)?, figure: number? }
type Candidate = { x: number, y: number, rotation: number }
type Only = { kinds: {string}?, stored: {string}?, on_board: {string}? }
type TileKind = { key: string, id: string, name: string, sides: string, segments: {Segment}, points: {NamedPoint}, illustrations: {Illustration}, tags: {string} }
type OfferInfo = { code: number, target: Target, label: string }
type DecisionInfo = { player: number, kind: string, options: {string}, data: any }
type TilePlaced = { player: number?, tile: string, index: number, x: number, y: number, rotation: number }
type FigureEvent = { figure: number, player: number, kind: string, at: Location?, from: Location? }
type FeatureCompleted = { feature: number, kind: string, completer: number }
type FeatureScored = { feature: number, kind: string, completed: boolean, points: {[number]: number} }
type TurnEvent = { player: number, turn: number, part: number? }
type ScoringInfo = { feature: number, kind: string, completed: boolean, final: boolean, tiles: number, arms: number, cities: {number}, strength: {number}, points: {number} }"#;

/// The registry key of the table of handlers registered by `meeple.on`.
pub(crate) const HANDLERS: &str = "meeple.handlers";
/// The registry key of the table of `only` arguments given to `meeple.on`, by hook name.
pub(crate) const ONLY: &str = "meeple.only";
/// Where each handler was registered (`file:line`), by hook name: a second registration names
/// the first, and the figure kinds of an `on_board` are checked there once the ruleset is known.
pub(crate) const HANDLER_AT: &str = "meeple.handler_at";
const MODULES: &str = "meeple.modules";

fn rt(msg: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::runtime(msg)
}

/// Installs the `meeple` table and the registries a VM needs.
pub(crate) fn install(lua: &Lua, script: &Script) -> mlua::Result<()> {
    lua.set_named_registry_value(HANDLERS, lua.create_table()?)?;
    lua.set_named_registry_value(ONLY, lua.create_table()?)?;
    lua.set_named_registry_value(HANDLER_AT, lua.create_table()?)?;
    lua.set_named_registry_value(MODULES, lua.create_table()?)?;
    let m = lua.create_table()?;
    for entry in API.iter().filter(|e| e.scope == Scope::Meeple) {
        let f = match entry.name {
            // Named in their bad arguments, as the methods are (`meeple.on("setup", 5)`).
            "on" => named(lua, "meeple.on".into(), 1, on)?,
            "tile" => named(lua, "meeple.tile".into(), 1, |lua, Text(key)| {
                // The tile kinds are the ruleset's, which a script meets first in a hook call.
                if !super::vm::in_hook_call() {
                    return Err(rt("meeple.tile can only be called during a hook call, not while the script loads"));
                }
                with_view(lua, |view, ctx| tile_kind_table(lua, view, ctx, &key))
            })?,
            "sorted_pairs" => lua.load(SORTED_PAIRS).set_name("=meeple.sorted_pairs").eval()?,
            other => panic!("API entry meeple.{other} has no binding"),
        };
        m.raw_set(entry.name, f)?;
    }
    m.raw_set("id", script.id.as_str())?;
    m.raw_set("edition", script.edition.as_str())?;
    let options = lua.create_table()?;
    for (k, v) in &script.options {
        options.raw_set(k.as_str(), to_lua(lua, v)?)?;
    }
    let strict: mlua::Function = lua.load(STRICT).set_name("=meeple").call(lua.create_function(suggest)?)?;
    let declared: mlua::Function = lua.load(OPTION_DECLARED).set_name("=meeple.options").eval()?;
    strict.call::<()>((&options, "meeple.options", declared))?;
    // The sandbox freezes the globals' own tables only: a write here would change nothing the
    // game config says, and be lost without a word.
    options.set_readonly(true);
    m.raw_set("options", options)?;
    strict.call::<()>((&m, "meeple"))?;
    lua.globals().raw_set("meeple", m)?;
    Ok(())
}

/// Makes reading a name a table lacks an error that names it and lists the names it has: a
/// misspelt `meeple.On` or `meeple.options.Bonus` would otherwise be a nil that fails later,
/// as "attempt to call a nil value" or arithmetic on nil, without the name.
const STRICT: &str = r#"local suggest = ...
return function(t, name, declared)
    local keys = {}
    for k in pairs(t) do table.insert(keys, tostring(k)) end
    table.sort(keys)
    local known = if #keys == 0 then "nothing" else table.concat(keys, ", ")
    setmetatable(t, { __index = function(_, k)
        local meant = suggest(tostring(k), keys)
        -- Where a name is declared helps with one not declared yet, not with a slip.
        local where = if declared and meant == "" then `; {declared(tostring(k))}` else ""
        error(`{name}.{tostring(k)} does not exist; {meant}{name} has {known}{where}`, 2)
    end })
end"#;

/// Where options are declared: said when a script reads an option `meeple.options` lacks,
/// which its manifest may not declare yet.
const OPTION_DECLARED: &str =
    "return function(k) return `an option is declared in expansion.toml, as [options.{k}]` end";

/// `suggest(word, names)`: "did you mean `x`? " for a name of `names` that `word` is a likely
/// slip of, else "". The same judgement as the messages about configs and manifests, for the
/// names a script misspells (a method, an event's field); called only once a name is missing.
pub(crate) fn suggest(_: &Lua, (word, names): (String, Vec<String>)) -> mlua::Result<String> {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut near = meeple_toml::near(&word, &names);
    // A name cut short or run on (`give` for `give_tokens`) is no slip of a letter or two.
    if near.is_empty() && word.len() >= 3 {
        near = names.iter().copied().filter(|n| n.contains(word.as_str()) || word.contains(n)).take(3).collect();
    }
    Ok(meeple_toml::meant(&near))
}

const SORTED_PAIRS: &str = r#"return function(t)
    if type(t) ~= "table" then
        error(`meeple.sorted_pairs: expected a table, got {type(t)}`, 2)
    end
    local keys = {}
    for k in pairs(t) do
        local kind = type(k)
        if kind ~= "number" and kind ~= "string" and kind ~= "boolean" then
            -- A table's or a function's place in memory differs from load to load.
            error(`meeple.sorted_pairs: a key that is a {kind} has no order that replays; key by numbers or strings`, 2)
        end
        table.insert(keys, k)
    end
    table.sort(keys, function(a, b)
        local ta, tb = type(a), type(b)
        if ta ~= tb then return ta < tb end
        if ta == "boolean" then return not a and b end
        return a < b
    end)
    local i = 0
    return function()
        i += 1
        local k = keys[i]
        if k ~= nil then return k, t[k] end
        return nil
    end
end"#;

/// The handler argument of `meeple.on`, named as such when it is not a function.
struct Handler(mlua::Function);

impl mlua::FromLua for Handler {
    fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
        match value {
            LuaValue::Function(f) => Ok(Handler(f)),
            other => Err(cause(format!("expected a function (the handler), got {}", luau_type(&other)))),
        }
    }
}

/// The `only` argument of `meeple.on`: a table, or nothing.
struct OnlyArg(Option<Table>);

impl mlua::FromLua for OnlyArg {
    fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
        match value {
            LuaValue::Nil => Ok(OnlyArg(None)),
            LuaValue::Table(t) => Ok(OnlyArg(Some(t))),
            other => Err(cause(format!("expected a table (`only`) or nothing, got {}", luau_type(&other)))),
        }
    }
}

/// What is wrong with a hook name no hook has, with the names it is likely a slip of.
pub(crate) fn unknown_hook(hook: &str) -> String {
    let names: Vec<&str> = HookKind::ALL.iter().map(|h| h.name()).collect();
    let hint = match meeple_toml::near(hook, &names).as_slice() {
        [] => format!("hooks are: {}", names.join(", ")),
        near => meeple_toml::meant(near).trim_end().to_string(),
    };
    format!("unknown hook `{hook}`; {hint}")
}

fn on(lua: &Lua, (Text(hook), Handler(handler), OnlyArg(only)): (Text, Handler, OnlyArg)) -> mlua::Result<()> {
    let ctx = context(lua)?;
    if !ctx.loading() {
        return Err(rt("meeple.on may only be called while the script loads, not from a hook"));
    }
    // A mistake in registering is noted and loading goes on, so that every one is reported.
    let Some(kind) = HookKind::parse(&hook) else {
        ctx.registration_problem(lua, unknown_hook(&hook));
        return Ok(());
    };
    let handlers: Table = lua.named_registry_value(HANDLERS)?;
    let places: Table = lua.named_registry_value(HANDLER_AT)?;
    if !handlers.raw_get::<LuaValue>(hook.as_str())?.is_nil() {
        let first: Option<String> = places.raw_get(hook.as_str())?;
        // Named in the mod's folder: the chunk's `expansion/file` is not a path when the folder
        // is named otherwise.
        let own = format!("{}/", ctx.script.id);
        let first = first.map(|at| format!(", at {}", at.strip_prefix(&own).unwrap_or(&at))).unwrap_or_default();
        ctx.registration_problem(lua, format!("a handler for `{hook}` is already registered{first}"));
        return Ok(());
    }
    places.raw_set(hook.as_str(), caller_place(lua))?;
    if let Some(only) = only {
        // Noted like the mistakes above, so that every `only` is checked in one load; the
        // handler is registered all the same, or its hook would be reported as missing too.
        match read_only(kind, &only) {
            Ok(_) => lua.named_registry_value::<Table>(ONLY)?.raw_set(hook.as_str(), only)?,
            Err(e) => ctx.registration_problem(lua, super::fast::message(e)),
        }
    }
    handlers.raw_set(hook, handler)
}

/// What the `only` argument of `meeple.on` asks for.
#[derive(Default)]
pub(crate) struct Only {
    /// Feature kinds.
    pub kinds: Option<Vec<SegmentKind>>,
    /// Storage keys.
    pub stored: Option<Vec<String>>,
    /// Figure kinds, as the script names them (resolved once the ruleset is known).
    pub on_board: Option<Vec<String>>,
}

/// Reads the `only` argument of `meeple.on`.
pub(crate) fn read_only(hook: HookKind, only: &Table) -> mlua::Result<Only> {
    let name = hook.name();
    let mut read = Only::default();
    for pair in only.pairs::<String, LuaValue>() {
        let (key, value) = pair?;
        let list = |value: LuaValue| -> mlua::Result<Vec<String>> {
            let LuaValue::Table(t) = value else {
                return Err(rt(format!("meeple.on `{name}`: `{key}` must be a list")));
            };
            t.sequence_values::<String>().collect()
        };
        match key.as_str() {
            "kinds" => {
                let feature_hooks = [HookKind::FeatureCompleted, HookKind::FeatureScored, HookKind::ModifyScore];
                if !feature_hooks.contains(&hook) {
                    let why = "`kinds` is only for feature_completed, feature_scored and modify_score";
                    return Err(rt(format!("meeple.on `{name}`: {why}")));
                }
                let parse = |n: &String| {
                    SegmentKind::parse(n).ok_or_else(|| {
                        let kinds: Vec<&str> = SegmentKind::ALL.iter().map(|k| k.name()).collect();
                        let hint = meeple_toml::did_you_mean(n, &kinds);
                        rt(format!(
                            "meeple.on `{name}`: unknown feature kind `{n}`; {hint}kinds are: {}",
                            kinds.join(", ")
                        ))
                    })
                };
                read.kinds = Some(list(value)?.iter().map(parse).collect::<mlua::Result<Vec<_>>>()?);
            }
            "stored" | "on_board" => {
                if Interest::ALWAYS_CALLED.contains(&hook) {
                    return Err(rt(format!("meeple.on `{name}`: this hook is always called; `{key}` is not for it")));
                }
                let names = Some(list(value)?);
                if key == "stored" { read.stored = names } else { read.on_board = names }
            }
            other => {
                let known = ["kinds", "stored", "on_board"];
                let hint = meeple_toml::did_you_mean(other, &known);
                return Err(rt(format!(
                    "meeple.on `{name}`: unknown key `{other}` in `only`; {hint}it may hold {}",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(read)
}

/// `math.random` over the expansion's random stream.
pub(crate) fn random(lua: &Lua, args: MultiValue) -> mlua::Result<LuaValue> {
    let args: Vec<i64> = args.into_iter().map(|v| int_arg(&v, "math.random")).collect::<mlua::Result<_>>()?;
    let Some(hook) = context(lua).ok().and_then(|c| c.hook()) else {
        return Err(rt("math.random is only available during a hook call"));
    };
    with_out(lua, |out, _, _| {
        // Questions (`can_place_tile`, `figure_actions`) are asked again and again, so their
        // answers may not depend on chance.
        let no_rng =
            || rt(format!("math.random is not available in `{}`: its answers may not depend on chance", hook.name()));
        let rng = out.rng().ok_or_else(no_rng)?;
        let (lo, hi) = match args.as_slice() {
            [] => return Ok(LuaValue::Number((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)),
            [n] => (1, *n),
            [m, n] => (*m, *n),
            _ => return Err(rt("math.random takes at most two arguments")),
        };
        // At most 2^32 - 1 values, as `GameRng::below` draws them.
        let Some(width) = hi.checked_sub(lo).filter(|w| (0..u32::MAX as i64).contains(w)) else {
            return Err(rt(format!("math.random({lo}, {hi}): empty or too wide interval (at most 2^32 - 1 values)")));
        };
        Ok(LuaValue::Integer(lo + rng.below((width + 1) as u32) as i64))
    })
}

/// Why `path` is not among the files a script may require: the files were read when the
/// script loaded, and what is on disk there now says why this one was not.
fn missing_module(script: &Script, path: &str) -> String {
    let there = script.dir.join(path);
    let id = &script.id;
    if std::fs::symlink_metadata(&there).is_err() {
        return format!("no file `{path}` in expansion `{id}`");
    }
    match unread_link(&script.dir, path, id) {
        Some(link) => format!("`{path}` {link}"),
        _ if there.is_dir() => format!("`{path}` is a folder in expansion `{id}`, not a file"),
        _ => format!("`{path}` was not in expansion `{id}` when its scripts were read"),
    }
}

/// Why a file that is there was not read with a mod's scripts, when it is a link: out of the
/// mod's folder (not followed), or one that leads nowhere.
pub(crate) fn unread_link(dir: &Path, path: &str, id: &str) -> Option<String> {
    match (dir.join(path).canonicalize(), dir.canonicalize()) {
        (Ok(real), Ok(root)) if !real.starts_with(&root) => {
            Some(format!("is a link out of expansion `{id}`'s folder; links out of a mod are not followed"))
        }
        (Err(_), _) => Some("is a link that leads nowhere (or around in a loop)".to_string()),
        _ => None,
    }
}

/// `require(name)`: a module of the expansion's own folder, loaded once per VM.
pub(crate) fn require(lua: &Lua, name: String) -> mlua::Result<LuaValue> {
    let ctx = context(lua)?;
    let mut path = name.trim_start_matches("./").to_string();
    if !path.ends_with(".luau") {
        path.push_str(".luau");
    }
    if path.contains("..") || path.starts_with('/') || path.contains('\\') || path.contains(':') {
        return Err(rt(format!(
            "require(\"{name}\"): scripts may only require files inside their own expansion's folder"
        )));
    }
    let cache: Table = lua.named_registry_value(MODULES)?;
    if let Some(v) = cache.raw_get::<Option<LuaValue>>(path.as_str())? {
        return Ok(v);
    }
    let script = ctx.script.clone();
    let Some(source) = script.files.get(&path) else {
        return Err(rt(format!("require(\"{name}\"): {}", missing_module(&script, &path))));
    };
    // A module being loaded is not cached yet: requiring it again would load it forever.
    let mut loading = ctx.requiring.borrow_mut();
    if loading.contains(&path) || path == script.entry {
        let chain: Vec<&str> =
            std::iter::once(script.entry.as_str()).chain(loading.iter().map(String::as_str)).collect();
        return Err(rt(format!("require(\"{name}\"): a require cycle: {} → {path}", chain.join(" → "))));
    }
    loading.push(path.clone());
    drop(loading);
    drop(ctx);
    let chunk =
        lua.load(source.as_str()).set_name(format!("@{}/{path}", script.id)).set_mode(mlua::chunk::ChunkMode::Text);
    let value: mlua::Result<LuaValue> = chunk.call(());
    context(lua)?.requiring.borrow_mut().pop();
    let value = value?;
    let value = if value.is_nil() { LuaValue::Boolean(true) } else { value };
    cache.raw_set(path, value.clone())?;
    Ok(value)
}

/// `print(...)`: to the log, with the expansion's id.
pub(crate) fn print(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    let text: Vec<String> = args.iter().map(|v| v.to_string().unwrap_or_else(|_| format!("{v:?}"))).collect();
    let id = context(lua).map(|c| c.script.id.clone()).unwrap_or_default();
    tracing::info!(target: "meeple::script", expansion = %id, "{}", log_line(text.join("\t").as_bytes()));
    Ok(())
}

/// The candidate placements of a `can_place_tile` call, as a list of read-only `{x, y, rotation}`.
pub(crate) fn candidates(lua: &Lua, _: ()) -> mlua::Result<Table> {
    super::vm::with_candidates(lua, |list| {
        let t = lua.create_table_with_capacity(list.len(), 0)?;
        for (i, p) in list.iter().enumerate() {
            let c = records::new(lua, Record::Candidate)?;
            c.raw_set("x", p.pos.x)?;
            c.raw_set("y", p.pos.y)?;
            c.raw_set("rotation", p.rotation.quarter_turns())?;
            // A changed candidate would change nothing: the script is told so.
            c.set_readonly(true);
            t.raw_set(i + 1, c)?;
        }
        Ok(t)
    })
}

/// The integer in `v`, or an error naming `what` (a field, or a position of the call).
fn int_arg(v: &LuaValue, what: &str) -> mlua::Result<i64> {
    whole(v).map_err(|why| match v {
        LuaValue::Number(f) => rt(format!("{what}: expected a whole number from -2^63 to 2^63, got {f}")),
        _ => rt(format!("{what}: {why}")),
    })
}

/// An integer argument: a number that is whole and in `T`'s range, never a string that reads
/// as one (which Lua would convert without a word).
struct Int<T>(T);

/// A text argument: a string, never a number (which Lua would turn into one).
struct Text(String);

/// A text argument kept as Lua's bytes (a log line, a key), checked as [`Text`] is.
struct Bytes(mlua::LuaString);

/// The integer in an argument, or what is wrong with it, in the words of a bad argument's cause.
fn whole(value: &LuaValue) -> Result<i64, String> {
    match value {
        LuaValue::Integer(n) => Ok(*n),
        // Whole numbers that fit: `as` would clamp 1e300 to i64::MAX without a word.
        LuaValue::Number(f) if f.fract() == 0.0 && f.abs() < 2f64.powi(63) => Ok(*f as i64),
        LuaValue::Number(f) => Err(format!("expected an integer, got {f}")),
        other => Err(format!("expected an integer, got {}", luau_type(other))),
    }
}

/// A value's type as Luau's `typeof` names it (mlua tells integers from other numbers).
pub(crate) fn luau_type(value: &LuaValue) -> &'static str {
    match value {
        LuaValue::Integer(_) | LuaValue::Number(_) => "number",
        other => other.type_name(),
    }
}

/// The cause of a bad argument, shown after "bad argument #n to `f`: " as it is (a runtime
/// error would add "runtime error: ").
fn cause(message: String) -> mlua::Error {
    mlua::Error::external(message)
}

macro_rules! int_argument {
    ($($t:ty),*) => {$(
        impl mlua::FromLua for Int<$t> {
            fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
                let n = whole(&value).map_err(cause)?;
                <$t>::try_from(n).map(Int).map_err(|_| {
                    cause(format!("expected an integer from {} to {}, got {n}", <$t>::MIN, <$t>::MAX))
                })
            }
        }
    )*};
}
int_argument!(u8, u16, u32, i32, i64);

impl mlua::FromLua for Text {
    fn from_lua(value: LuaValue, lua: &Lua) -> mlua::Result<Self> {
        Ok(Text(Bytes::from_lua(value, lua)?.0.to_str()?.to_string()))
    }
}

impl mlua::FromLua for Bytes {
    fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
        match value {
            LuaValue::String(s) => Ok(Bytes(s)),
            other => Err(cause(format!("expected a string, got {}", luau_type(&other)))),
        }
    }
}

/// A target argument (`{ kind = "segment", seg = … }`): a table, whose fields [`target_from`]
/// reads.
struct TargetArg(Table);

/// The options of a decision: a list of strings, each read by [`option_texts`].
struct OptionList(Table);

/// A table argument, or the cause of a bad argument saying what was `expected`.
fn table_arg(value: LuaValue, expected: &str) -> mlua::Result<Table> {
    match value {
        LuaValue::Table(t) => Ok(t),
        other => Err(cause(format!("expected {expected}, got {}", luau_type(&other)))),
    }
}

impl mlua::FromLua for TargetArg {
    fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
        table_arg(value, "a target such as { kind = \"segment\", seg = … }").map(TargetArg)
    }
}

impl mlua::FromLua for OptionList {
    fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
        table_arg(value, "a list of option strings such as { \"yes\", \"no\" }").map(OptionList)
    }
}

/// A player as a script numbers them, from 1: a number, never a string that reads as one
/// (which Lua would turn into a number without a word).
struct PlayerNo(i64);

impl mlua::FromLua for PlayerNo {
    fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
        whole(&value).map(PlayerNo).map_err(|why| cause(format!("the player: {why}")))
    }
}

/// Points a command gives: a whole number within the core's bound (`MAX_POINTS` either way).
struct Points(i32);

impl mlua::FromLua for Points {
    fn from_lua(value: LuaValue, _: &Lua) -> mlua::Result<Self> {
        let expected = format!("the points: expected a whole number, at most {MAX_POINTS} either way");
        match whole(&value) {
            Ok(n) if n.unsigned_abs() <= MAX_POINTS as u64 => Ok(Points(n as i32)),
            Ok(n) => Err(cause(format!("{expected}, not {n}"))),
            Err(_) => Err(cause(format!("{expected}, got {}", shown(&value)))),
        }
    }
}

/// A wrong argument as a message shows it: a number as it is, anything else by its type.
fn shown(value: &LuaValue) -> String {
    match value {
        LuaValue::Number(f) => f.to_string(),
        other => luau_type(other).to_string(),
    }
}

fn player_in(view: &View<'_>, PlayerNo(p): PlayerNo) -> mlua::Result<u8> {
    let n = view.players() as i64;
    if p < 1 || p > n {
        return Err(rt(format!("player {p} does not exist; players are 1 to {n}")));
    }
    Ok((p - 1) as u8)
}

fn seg_in(view: &View<'_>, seg: i64) -> mlua::Result<u16> {
    if seg < 0 || seg > u16::MAX as i64 || !view.has_segment(seg as u16) {
        return Err(rt(format!("segment {seg} does not exist")));
    }
    Ok(seg as u16)
}

fn tile_index_in(view: &View<'_>, index: i64) -> mlua::Result<TileInfo> {
    u16::try_from(index)
        .ok()
        .and_then(|i| view.placed(i))
        .ok_or_else(|| rt(format!("no placed tile has index {index}")))
}

/// A name of this expansion (`builder`) or a fully qualified one (`traders-builders:builder`):
/// its index in a list of ids. Compares in place: this runs on hot paths.
pub(crate) fn resolve<'a>(
    ids: impl Iterator<Item = &'a str> + Clone,
    own: &str,
    name: &str,
    what: &str,
) -> mlua::Result<usize> {
    if let Some(i) = ids.clone().position(|id| meeple_core::rules::is_named(id, own, name)) {
        return Ok(i);
    }
    let known: Vec<&str> = ids.collect();
    if known.is_empty() {
        // Tokens, as every game has the meeple: where they come from is worth saying.
        let declared = if what == "token" {
            " (an expansion declares its own in its expansion.toml, as `[[tokens]]`)"
        } else {
            ""
        };
        return Err(rt(format!("unknown {what} `{}`: this game has no {what}s{declared}", clipped(name, 80))));
    }
    let shown = clipped(name, 80);
    Err(rt(format!("unknown {what} `{shown}`; {}known: {}", hint(name, &known, own), known.join(", "))))
}

/// "did you mean `…`? " for a name near one of `known` as the script `own` may write it: a whole
/// id, or the part after `own:` of one of its own (`is_named`); else near the part after another
/// expansion's `id:`, which is then told whole, as it must be written. Empty otherwise.
fn hint(name: &str, known: &[&str], own: &str) -> String {
    let prefix = format!("{own}:");
    let mut writable: Vec<&str> = known.to_vec();
    writable.extend(known.iter().filter_map(|id| id.strip_prefix(prefix.as_str())));
    let near = meeple_toml::near(name, &writable);
    if !near.is_empty() {
        return meeple_toml::meant(&near);
    }
    let others: Vec<(&str, &str)> = known
        .iter()
        .filter(|id| !id.starts_with(prefix.as_str()))
        .filter_map(|id| id.split_once(':').map(|(_, short)| (short, *id)))
        .collect();
    let shorts: Vec<&str> = others.iter().map(|(short, _)| *short).collect();
    let whole: Vec<&str> = meeple_toml::near(name, &shorts)
        .into_iter()
        .filter_map(|near| others.iter().find(|(short, _)| *short == near).map(|(_, id)| *id))
        .collect();
    meeple_toml::meant(&whole)
}

fn figure_kind(view: &View<'_>, ctx: &Ctx, name: &str) -> mlua::Result<u8> {
    resolve(view.rules().figures().iter().map(|f| f.id.as_str()), &ctx.script.id, name, "figure kind").map(|i| i as u8)
}

fn token_index(view: &View<'_>, ctx: &Ctx, name: &str) -> mlua::Result<u16> {
    resolve(view.rules().tokens().iter().map(|t| t.id.as_str()), &ctx.script.id, name, "token").map(|i| i as u16)
}

fn category_index(view: &View<'_>, ctx: &Ctx, name: Option<String>) -> mlua::Result<u16> {
    let name = name.unwrap_or_else(|| ctx.script.id.clone());
    view.rules().category(&name).ok_or_else(|| {
        let known: Vec<&str> = view.rules().categories().iter().map(String::as_str).collect();
        rt(format!(
            "unknown score category `{}`; {}known: {}",
            clipped(&name, 80),
            hint(&name, &known, &ctx.script.id),
            known.join(", ")
        ))
    })
}

/// The name scripts see for a stage of the turn: the protocol's name, so that a frontend and a
/// script speak of a stage alike.
pub(crate) fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Draw => "draw",
        Stage::PlaceTile => "place-tile",
        Stage::Figure => "figure",
        Stage::Score => "score",
        Stage::PartEnd => "part-end",
        Stage::TurnEnd => "turn-end",
        Stage::Final => "final",
        Stage::Over => "over",
    }
}

/// A view or sink function made with mlua. Its argument errors count the arguments as the
/// script wrote them, from the first after `self`, and name it: `bad argument #2 to
/// `out:give_tokens``, not mlua's `bad argument #3`.
fn method<A, R, F>(lua: &Lua, scope: &'static str, name: &'static str, f: F) -> mlua::Result<mlua::Function>
where
    A: mlua::FromLuaMulti,
    R: mlua::IntoLuaMulti,
    F: Fn(&Lua, A) -> mlua::Result<R> + mlua::MaybeSend + 'static,
{
    // Numbered from 0, `self` being the 0th.
    let to = format!("{scope}:{name}");
    lua.create_function(move |lua, args: MultiValue| {
        let dotted_call = !matches!(args.front(), Some(LuaValue::Table(_)));
        A::from_lua_args(args, 0, Some(&to), lua)
            .and_then(|a| f(lua, a))
            .map_err(|e| if dotted_call { rt(dotted(scope, name)) } else { e })
    })
}

/// The message for a view or sink method called with a dot (`out.add_points(p, 2)`): its
/// arguments then come one place early, and what fails is not where the mistake is.
pub(crate) fn dotted(scope: &str, name: &str) -> String {
    format!("{scope}.{name} was called with a dot: call it with a colon, as `{scope}:{name}(…)`")
}

/// A function made with mlua whose argument errors name it (`to`) and count its arguments from
/// `first`: what mlua's own callbacks do, numbering from 1 and naming nothing.
fn named<A, R, F>(lua: &Lua, to: String, first: usize, f: F) -> mlua::Result<mlua::Function>
where
    A: mlua::FromLuaMulti,
    R: mlua::IntoLuaMulti,
    F: Fn(&Lua, A) -> mlua::Result<R> + mlua::MaybeSend + 'static,
{
    lua.create_function(move |lua, args: MultiValue| f(lua, A::from_lua_args(args, first, Some(&to), lua)?))
}

/// The Rust side of the view's methods, keyed by API name. The prelude wraps each in a method
/// of the `view` table handed to handlers, resolves figure kind and token names to the
/// 0-based ids these take, and builds the records (`turn`, `tile`, `feature`) from the several
/// values these return: a table built in Lua costs a tenth of one built through mlua.
pub(crate) fn raw_view(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for entry in API.iter().filter(|e| e.scope == Scope::View) {
        let name = entry.name;
        let f = if let Some(c) = fast::function(name) {
            // SAFETY: `fast` functions follow the C function protocol (see there).
            #[allow(unsafe_code)]
            unsafe {
                lua.create_c_function(c)?
            }
        } else {
            match name {
                "goods" => method(lua, "view", name, |lua, (_self, Int(seg)): (LuaValue, Int<i64>)| {
                    with_view(lua, |v, _| lua.create_table_from(v.goods(seg_in(v, seg)?)))
                })?,
                "feature_tags" => method(lua, "view", name, |lua, (_self, Int(seg)): (LuaValue, Int<i64>)| {
                    with_view(lua, |v, _| lua.create_table_from(v.feature_tags(seg_in(v, seg)?)))
                })?,
                "tile_points" => method(lua, "view", name, |lua, (_self, Int(index)): (LuaValue, Int<i64>)| {
                    with_view(lua, |v, _| points_table(lua, &v.rules().tile(tile_index_in(v, index)?.tile).def))
                })?,
                "illustrations" => method(lua, "view", name, |lua, (_self, Int(index)): (LuaValue, Int<i64>)| {
                    with_view(lua, |v, _| {
                        let t = tile_index_in(v, index)?;
                        illustrations_table(lua, &v.rules().tile(t.tile).def, Some(t.first_segment))
                    })
                })?,
                "points" => method(lua, "view", name, |lua, (_self, p, cat): (LuaValue, PlayerNo, Option<Text>)| {
                    with_view(lua, |v, ctx| {
                        Ok(v.points(player_in(v, p)?, category_index(v, ctx, cat.map(|Text(c)| c))?) as i64)
                    })
                })?,
                "storage" => method(lua, "view", name, |lua, (_self, Text(key)): (LuaValue, Text)| {
                    with_view(lua, |v, _| v.storage(&key).map_or(Ok(LuaValue::Nil), |val| to_lua(lua, &val)))
                })?,
                "pending" => method(lua, "view", name, |lua, _self: LuaValue| {
                    with_view(lua, |v, _| {
                        lua.create_sequence_from(
                            v.pending().iter().map(|d| decision_table(lua, d)).collect::<mlua::Result<Vec<_>>>()?,
                        )
                    })
                })?,
                other => panic!("API entry view:{other} has no binding"),
            }
        };
        t.raw_set(name, f)?;
    }
    Ok(t)
}

/// The command sink's methods, keyed by API name (see [`raw_view`]).
pub(crate) fn raw_out(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for entry in API.iter().filter(|e| e.scope == Scope::Out) {
        let name = entry.name;
        let f = match name {
            "add_points" => method(
                lua,
                "out",
                name,
                |lua, (_self, p, Points(points), cat): (LuaValue, PlayerNo, Points, Option<Text>)| {
                    with_out(lua, |out, v, ctx| {
                        let category =
                            v.rules().categories()[category_index(v, ctx, cat.map(|Text(c)| c))? as usize].clone();
                        give(lua, out, ctx, Command::AddPoints { player: player_in(v, p)?, points, category })
                    })
                },
            )?,
            "give_tokens" => method(
                lua,
                "out",
                name,
                |lua, (_self, p, Text(token), Int(count)): (LuaValue, PlayerNo, Text, Int<i32>)| {
                    with_out(lua, |out, v, ctx| {
                        let token = v.rules().tokens()[token_index(v, ctx, &token)? as usize].id.clone();
                        give(lua, out, ctx, Command::GiveTokens { player: player_in(v, p)?, token, count })
                    })
                },
            )?,
            "place_figure" => method(
                lua,
                "out",
                name,
                |lua, (_self, p, Text(kind), TargetArg(target)): (LuaValue, PlayerNo, Text, TargetArg)| {
                    with_out(lua, |out, v, ctx| {
                        let kind = v.rules().figure(figure_kind(v, ctx, &kind)?).id.clone();
                        give(
                            lua,
                            out,
                            ctx,
                            Command::PlaceFigure { player: player_in(v, p)?, kind, at: target_from(v, &target)? },
                        )
                    })
                },
            )?,
            "move_figure" => method(
                lua,
                "out",
                name,
                |lua, (_self, Int(figure), TargetArg(target)): (LuaValue, Int<u16>, TargetArg)| {
                    with_out(lua, |out, v, ctx| {
                        give(lua, out, ctx, Command::MoveFigure { figure, to: target_from(v, &target)? })
                    })
                },
            )?,
            "set_aside" => method(lua, "out", name, |lua, (_self, Int(figure)): (LuaValue, Int<u16>)| {
                push(lua, Command::SetAside { figure })
            })?,
            "return_figure" => method(lua, "out", name, |lua, (_self, Int(figure)): (LuaValue, Int<u16>)| {
                push(lua, Command::ReturnFigure { figure })
            })?,
            "set_face" => {
                method(lua, "out", name, |lua, (_self, Int(figure), Int(face)): (LuaValue, Int<u16>, Int<u8>)| {
                    push(lua, Command::SetFigureFace { figure, face })
                })?
            }
            "extra_turn_part" => method(lua, "out", name, |lua, _self: LuaValue| push(lua, Command::ExtraTurnPart))?,
            "extra_turn" => method(lua, "out", name, |lua, (_self, p): (LuaValue, PlayerNo)| {
                with_out(lua, |out, v, ctx| give(lua, out, ctx, Command::ExtraTurn { player: player_in(v, p)? }))
            })?,
            "set_storage" => {
                method(lua, "out", name, |lua, (_self, Bytes(key), value): (LuaValue, Bytes, LuaValue)| {
                    // Refused here as the core would refuse it, before it is copied on; a value is
                    // measured while it is copied (a table may hold the same table twice, and so
                    // stand for far more than the VM holds).
                    let too_big = || {
                        let max = meeple_core::game::MAX_STORAGE >> 10;
                        rt(format!("out:set_storage: an expansion's storage holds at most {max} KiB"))
                    };
                    let left = meeple_core::game::MAX_STORAGE.checked_sub(key.as_bytes().len()).ok_or_else(too_big)?;
                    let value = copy_value(&value, left, too_big)?;
                    let key = key.to_str()?.to_string();
                    charge(lua, key.len() + value.size())?;
                    push(lua, Command::SetStorage { key, value })
                })?
            }
            "set_score" => {
                method(lua, "out", name, |lua, (_self, p, Points(points)): (LuaValue, PlayerNo, Points)| {
                    with_out(lua, |out, v, ctx| {
                        // Refused here, not after the hook by the core: the error then names this
                        // line, and the player as the script numbers them.
                        if ctx.hook() != Some(HookKind::ModifyScore) {
                            return Err(rt("out:set_score is only available in modify_score"));
                        }
                        give(lua, out, ctx, Command::SetScore { player: player_in(v, p)?, points })
                    })
                })?
            }
            "ask" => method(
                lua,
                "out",
                name,
                |lua,
                 (_self, p, Bytes(kind), OptionList(options), data, about): (
                    LuaValue,
                    PlayerNo,
                    Bytes,
                    OptionList,
                    Option<LuaValue>,
                    Option<TargetArg>,
                )| {
                    let kind = short_text(&kind, "out:ask: the kind")?;
                    let options = option_texts(&options)?;
                    let too_big = || rt("out:ask: the data holds at most 64 KiB");
                    let data = match data {
                        Some(d) => copy_value(&d, meeple_core::game::MAX_STORAGE, too_big)?,
                        None => Value::Null,
                    };
                    charge(lua, kind.len() + options.iter().map(String::len).sum::<usize>() + data.size())?;
                    with_out(lua, |out, v, ctx| {
                        let about = about.as_ref().map(|TargetArg(t)| target_from(v, t)).transpose()?;
                        let question = Question { player: player_in(v, p)?, kind, options, data, about };
                        give(lua, out, ctx, Command::Ask(Box::new(question)))
                    })
                },
            )?,
            "log" => method(lua, "out", name, |lua, (_self, Bytes(text)): (LuaValue, Bytes)| {
                // Only the start of a long message is copied out of the VM.
                let message = log_line(&text.as_bytes());
                charge(lua, message.len())?;
                push(lua, Command::Log { message })
            })?,
            "forbid" => method(lua, "out", name, |lua, (_self, Int(i)): (LuaValue, Int<i64>)| {
                with_out(lua, |_, _, ctx| {
                    if ctx.hook() != Some(HookKind::CanPlaceTile) {
                        return Err(rt("out:forbid is only available in can_place_tile"));
                    }
                    let n = ctx.candidate_count();
                    if i < 1 || i as usize > n {
                        return Err(rt(format!("out:forbid({i}): the candidates are 1 to {n}")));
                    }
                    ctx.forbidden.borrow_mut().push(i as usize - 1);
                    Ok(())
                })
            })?,
            "offer" => method(
                lua,
                "out",
                name,
                |lua, (_self, Int(code), TargetArg(target), Bytes(label)): (LuaValue, Int<u32>, TargetArg, Bytes)| {
                    with_out(lua, |_, v, ctx| {
                        if ctx.hook() != Some(HookKind::FigureActions) {
                            return Err(rt("out:offer is only available in figure_actions"));
                        }
                        if ctx.offers.borrow().len() >= MAX_OFFERS {
                            return Err(rt(format!("a hook call may make at most {MAX_OFFERS} offers")));
                        }
                        let label = short_text(&label, "out:offer: the label")?;
                        charge(lua, label.len())?;
                        let target = target_from(v, &target)?;
                        ctx.offers.borrow_mut().push(Offer { code, target, label: label.into() });
                        Ok(())
                    })
                },
            )?,
            other => panic!("API entry out:{other} has no binding"),
        };
        t.raw_set(name, f)?;
    }
    Ok(t)
}

/// The most bytes one hook call may give in values, log lines and labels (each stored value
/// counts, an overwritten one too): Rust memory, which the VM's limit does not see.
const MAX_GIVEN: usize = 4 << 20;

/// A short text (a label, a decision's kind or option), checked before it is copied out.
fn short_text(s: &mlua::LuaString, what: &str) -> mlua::Result<String> {
    let bytes = s.as_bytes();
    if bytes.len() > MAX_TEXT {
        return Err(rt(format!("{what} has at most {MAX_TEXT} bytes, not {}", bytes.len())));
    }
    Ok(s.to_str()?.to_string())
}

/// A decision's options: a list of short texts.
fn option_texts(t: &Table) -> mlua::Result<Vec<String>> {
    let n = t.raw_len();
    if n > MAX_OPTIONS {
        return Err(rt(format!("out:ask: a decision has at most {MAX_OPTIONS} options, not {n}")));
    }
    let option = |i: usize| match t.raw_get::<LuaValue>(i)? {
        LuaValue::String(s) => short_text(&s, "out:ask: an option"),
        other => Err(rt(format!("out:ask: option {i}: expected a string, got {}", luau_type(&other)))),
    };
    (1..=n).map(option).collect()
}

/// Counts `bytes` against what the hook call may give.
fn charge(lua: &Lua, bytes: usize) -> mlua::Result<()> {
    let ctx = context(lua)?;
    let given = ctx.given.get().saturating_add(bytes);
    if given > MAX_GIVEN {
        return Err(rt(format!(
            "a hook call may give at most {} MiB of values, log lines and labels",
            MAX_GIVEN >> 20
        )));
    }
    ctx.given.set(given);
    Ok(())
}

fn push(lua: &Lua, c: Command) -> mlua::Result<()> {
    with_out(lua, |out, _, ctx| give(lua, out, ctx, c))
}

/// Adds a command to the sink, if the hook takes commands and has room for one more.
fn give(lua: &Lua, out: &mut Commands<'_>, ctx: &Ctx, c: Command) -> mlua::Result<()> {
    // The questions change nothing: what they are given would be dropped without a word.
    let only = match ctx.hook() {
        Some(HookKind::CanPlaceTile) => Some("out:forbid"),
        Some(HookKind::FigureActions) => Some("out:offer"),
        _ => None,
    };
    if let (Some(only), Some(hook)) = (only, ctx.hook()) {
        // A log line changes nothing either, and is what one debugs a question with.
        if let Command::Log { message } = &c {
            tracing::info!(target: "meeple::script", expansion = %ctx.script.id, "{message}");
            return Ok(());
        }
        return Err(rt(format!(
            "`{}` changes nothing: of the commands, only {only} is available there (and out:log, to the -v log)",
            hook.name()
        )));
    }
    // Commands are Rust memory, which the VM's memory limit does not see.
    if out.len() >= MAX_COMMANDS {
        return Err(rt(format!("a hook call may give at most {MAX_COMMANDS} commands")));
    }
    // A log line is never refused; any other command may be, after the hook has returned,
    // and the error then names this line.
    let refusable = !matches!(c, Command::Log { .. });
    out.push(c);
    if let Some(place) = refusable.then(|| caller_place(lua)).flatten() {
        out.given_at(place);
    }
    Ok(())
}

/// The most commands one hook call may give.
const MAX_COMMANDS: usize = 10_000;

/// Reads a target table: `{kind="segment", seg=…}`, `{kind="point", tile=…, point=…}`, `{kind="figure", figure=…}`,
/// `{kind="none"}` (an offer on nothing in particular).
fn target_from(view: &View<'_>, t: &Table) -> mlua::Result<Target> {
    let field = |key: &str| target_field(t, key);
    let kind = match t.raw_get::<LuaValue>("kind")? {
        LuaValue::String(s) => s.to_str()?.to_string(),
        other => {
            let got = luau_type(&other);
            return Err(rt(format!("target.kind: expected \"segment\", \"point\", \"figure\" or \"none\", got {got}")));
        }
    };
    match kind.as_str() {
        "segment" => {
            let seg = seg_in(view, int_arg(&field("seg")?, "target.seg")?)?;
            let info = view.segment(seg);
            let pos = view.placed(info.tile).expect("segment's tile").pos;
            Ok(Target::Segment { pos, segment: info.local })
        }
        "point" => {
            let tile = tile_index_in(view, int_arg(&field("tile")?, "target.tile")?)?;
            let def = &view.rules().tile(tile.tile).def;
            let point = match field("point")? {
                LuaValue::String(s) => {
                    let s = s.to_str()?.to_string();
                    def.points
                        .iter()
                        .position(|p| p.id == s)
                        .ok_or_else(|| rt(format!("tile {} has no point `{s}`", def.id)))?
                }
                // Numbered from 1, checked before it becomes an index.
                v => match int_arg(&v, "target.point")? {
                    n if (1..=def.points.len() as i64).contains(&n) => (n - 1) as usize,
                    n => return Err(rt(format!("tile {} has no point {n}", def.id))),
                },
            };
            Ok(Target::Point { pos: tile.pos, point: point as u8 })
        }
        "figure" => {
            let figure = int_arg(&field("figure")?, "target.figure")?;
            // Checked when given, not when an offer of it is taken.
            match u16::try_from(figure).ok().filter(|&f| view.figure(f).is_some()) {
                Some(figure) => Ok(Target::Figure { figure }),
                None => Err(rt(format!("target.figure: no figure {figure}"))),
            }
        }
        "none" => Ok(Target::None),
        other => Err(rt(format!("target kind `{other}`: expected segment, point, figure or none"))),
    }
}

/// A field a target's kind needs, read raw; its absence is told with the fields given instead
/// (`id` where `figure` belongs).
fn target_field(t: &Table, key: &str) -> mlua::Result<LuaValue> {
    let v: LuaValue = t.raw_get(key)?;
    if !v.is_nil() {
        return Ok(v);
    }
    let mut given: Vec<String> = (t.clone().pairs::<LuaValue, LuaValue>())
        .filter_map(|kv| match kv.ok()?.0 {
            LuaValue::String(k) if k.to_str().ok()? != "kind" => Some(format!("`{}`", k.to_str().ok()?)),
            _ => None,
        })
        .collect();
    given.sort();
    let expected = if key == "point" { "a point's id or number" } else { "an integer" };
    let instead = if given.is_empty() { String::new() } else { format!(" (the target gives {})", given.join(", ")) };
    Err(rt(format!("target.{key}: expected {expected}, got nil{instead}")))
}

fn target_table(lua: &Lua, view: &View<'_>, target: &Target) -> mlua::Result<Table> {
    let t = records::new(lua, Record::Target)?;
    match *target {
        Target::None => t.raw_set("kind", "none")?,
        Target::Segment { pos, segment } => {
            t.raw_set("kind", "segment")?;
            if let Some(tile) = view.tile_at(pos) {
                t.raw_set("seg", tile.first_segment + segment as u16)?;
            }
        }
        Target::Point { pos, point } => {
            t.raw_set("kind", "point")?;
            if let Some(tile) = view.tile_at(pos) {
                t.raw_set("tile", tile.index)?;
            }
            t.raw_set("point", point as i64 + 1)?;
        }
        Target::Figure { figure } => {
            t.raw_set("kind", "figure")?;
            t.raw_set("figure", figure)?;
        }
    }
    Ok(t)
}

/// The named points of a tile kind, as `NamedPoint` records numbered from 1.
fn points_table(lua: &Lua, def: &TileDef) -> mlua::Result<Table> {
    let list = lua.create_table()?;
    for (i, p) in def.points.iter().enumerate() {
        let t = records::new(lua, Record::NamedPoint)?;
        t.raw_set("point", i + 1)?;
        t.raw_set("id", p.id.as_str())?;
        t.raw_set("kind", p.kind.as_str())?;
        list.raw_set(i + 1, t)?;
    }
    Ok(list)
}

fn illustrations_table(lua: &Lua, def: &TileDef, first: Option<u16>) -> mlua::Result<Table> {
    let id = |i: u8| first.map_or(i as i64 + 1, |f| f as i64 + i as i64);
    let list = lua.create_table()?;
    for (i, ill) in def.illustrations.iter().enumerate() {
        let t = records::new(lua, Record::Illustration)?;
        t.raw_set("kind", ill.kind.as_str())?;
        t.raw_set("field", ill.field.map(id))?;
        t.raw_set("flanks", lua.create_sequence_from(ill.flanks.iter().map(|&c| id(c)))?)?;
        list.raw_set(i + 1, t)?;
    }
    Ok(list)
}

fn tile_kind_table(lua: &Lua, view: &View<'_>, ctx: &Ctx, key: &str) -> mlua::Result<Table> {
    let id = view.rules().tile_by_name(key).map_err(rt)?;
    let kind = view.rules().tile(id);
    let def = &kind.def;
    let t = records::new(lua, Record::TileKind)?;
    t.raw_set("key", &*kind.key)?;
    t.raw_set("id", def.id.as_str())?;
    t.raw_set("name", def.name.as_str())?;
    t.raw_set("sides", def.side_letters())?;
    t.raw_set("segments", fast::tile_kind_segments(lua, ctx, def)?)?;
    t.raw_set("points", points_table(lua, def)?)?;
    t.raw_set("illustrations", illustrations_table(lua, def, None)?)?;
    t.raw_set("tags", lua.create_sequence_from(def.tags.iter().map(String::as_str))?)?;
    Ok(t)
}

pub(crate) fn offer_table(lua: &Lua, view: &View<'_>, o: &Offer) -> mlua::Result<Table> {
    let t = records::new(lua, Record::OfferInfo)?;
    t.raw_set("code", o.code)?;
    t.raw_set("target", target_table(lua, view, &o.target)?)?;
    t.raw_set("label", &*o.label)?;
    Ok(t)
}

pub(crate) fn decision_table(lua: &Lua, d: &Decision) -> mlua::Result<Table> {
    let t = records::new(lua, Record::DecisionInfo)?;
    t.raw_set("player", d.player as i64 + 1)?;
    t.raw_set("kind", d.kind.as_str())?;
    t.raw_set("options", lua.create_sequence_from(d.options.iter().map(String::as_str))?)?;
    t.raw_set("data", to_lua(lua, &d.data)?)?;
    Ok(t)
}

/// A stored value as a Lua value.
pub(crate) fn to_lua(lua: &Lua, v: &Value) -> mlua::Result<LuaValue> {
    Ok(match v {
        Value::Null => LuaValue::Nil,
        Value::Bool(b) => LuaValue::Boolean(*b),
        Value::Int(n) => LuaValue::Integer(*n),
        Value::Str(s) => LuaValue::String(lua.create_string(s)?),
        Value::List(l) => LuaValue::Table(
            lua.create_sequence_from(l.iter().map(|x| to_lua(lua, x)).collect::<mlua::Result<Vec<_>>>()?)?,
        ),
        Value::Map(m) => {
            let t = lua.create_table()?;
            for (k, x) in m {
                t.raw_set(k.as_str(), to_lua(lua, x)?)?;
            }
            LuaValue::Table(t)
        }
    })
}

/// What [`from_lua`] says of a value larger than it may spend.
const TOO_LARGE: &str = "the value is too large to store";

/// Copies a Lua value out of the VM as a stored value of at most `budget` bytes; a larger one
/// is the error `too_big` makes.
fn copy_value(v: &LuaValue, budget: usize, too_big: impl Fn() -> mlua::Error) -> mlua::Result<Value> {
    let mut left = budget;
    from_lua(v, 0, &mut left).map_err(|e| match e {
        mlua::Error::RuntimeError(m) if m == TOO_LARGE => too_big(),
        other => other,
    })
}

/// A Lua value as a storable value: booleans, integers, strings, and tables of them (arrays
/// become lists, tables with string keys maps), copied out of the VM `depth` tables down,
/// spending `left` bytes (as [`Value::size`] counts them) on the way: a value that would need
/// more is the error [`TOO_LARGE`] as soon as that is known.
pub(crate) fn from_lua(v: &LuaValue, depth: u32, left: &mut usize) -> mlua::Result<Value> {
    // A table `depth` tables down nests `depth + 1` levels (the core's count).
    if matches!(v, LuaValue::Table(_)) && depth >= MAX_NESTING {
        return Err(rt(too_deep()));
    }
    let spend = |left: &mut usize, bytes: usize| match left.checked_sub(bytes) {
        Some(rest) => {
            *left = rest;
            Ok(())
        }
        None => Err(rt(TOO_LARGE)),
    };
    spend(left, 8)?;
    Ok(match v {
        LuaValue::Nil => Value::Null,
        LuaValue::Boolean(b) => Value::Bool(*b),
        LuaValue::Integer(_) | LuaValue::Number(_) => Value::Int(int_arg(v, "a stored number")?),
        LuaValue::String(s) => {
            spend(left, s.as_bytes().len())?;
            Value::Str(s.to_str()?.to_string())
        }
        LuaValue::Table(t) => {
            let len = t.raw_len();
            let (mut map, mut numbers) = (BTreeMap::new(), 0);
            // A number key that is not one of a list's (1 to its length), to name in the error.
            let mut off_list = None;
            for pair in t.pairs::<LuaValue, LuaValue>() {
                let (k, val) = pair?;
                let n = match &k {
                    LuaValue::String(s) => {
                        spend(left, s.as_bytes().len())?;
                        map.insert(s.to_str()?.to_string(), from_lua(&val, depth + 1, left)?);
                        continue;
                    }
                    LuaValue::Integer(i) => *i as f64,
                    LuaValue::Number(n) => *n,
                    _ => return Err(rt("stored tables may only have string keys or be lists")),
                };
                numbers += 1;
                if !(n.fract() == 0.0 && (1.0..=len as f64).contains(&n)) {
                    off_list = off_list.or(Some(n));
                }
            }
            if numbers > 0 && !map.is_empty() {
                return Err(rt("a stored table is a list or a map with string keys, not both: this one has number \
                     and string keys"));
            }
            if !map.is_empty() {
                return Ok(Value::Map(map));
            }
            // Every key a number from 1 to the length: a list if none is missing.
            let missing = (1..=len).find(|&i| t.raw_get::<LuaValue>(i).is_ok_and(|v| v.is_nil()));
            let wrong = match (off_list, missing) {
                (Some(key), _) => format!("key {key} is neither"),
                (None, Some(i)) => format!("key {i} is missing"),
                (None, None) => {
                    let items = t.sequence_values::<LuaValue>().map(|x| from_lua(&x?, depth + 1, left));
                    return Ok(Value::List(items.collect::<mlua::Result<_>>()?));
                }
            };
            return Err(rt(format!(
                "a stored table is a list (keys 1, 2, 3, … with no gap) or a map with string keys: {wrong} (for a \
                 value per player, use string keys: `tostring(player)`)"
            )));
        }
        other => {
            return Err(rt(format!(
                "a {} cannot be stored; store booleans, integers, strings and tables",
                luau_type(other)
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{Stage, hint, stage_name};

    #[test]
    fn a_script_names_each_stage_as_the_protocol_does() {
        for stage in Stage::ALL {
            let protocol = serde_json::to_value(stage).unwrap();
            assert_eq!(protocol.as_str(), Some(stage_name(stage)), "{stage:?}");
        }
    }

    #[test]
    fn a_hint_offers_a_name_as_the_script_may_write_it() {
        let known = ["meeple", "traders-builders:builder", "traders-builders:pig"];
        // Its own kinds by their short names, others' whole: `builder` alone is not theirs to use.
        assert_eq!(hint("buildr", &known, "traders-builders"), "did you mean `builder`? ");
        assert_eq!(hint("builder", &known, "chapels"), "did you mean `traders-builders:builder`? ");
        assert_eq!(hint("traders-builders:pg", &known, "chapels"), "did you mean `traders-builders:pig`? ");
        assert_eq!(hint("meple", &known, "chapels"), "did you mean `meeple`? ");
        assert_eq!(hint("dragon", &known, "chapels"), "");
    }
}
