//! `docs/lua-api.md` and `docs/meeple.d.luau`, generated from the API registry.

use super::api::{API, ApiEntry, HOOKS, Scope, TYPES, stage_name};
use meeple_core::state::Stage;
use std::fmt::Write;

fn returns(e: &ApiEntry) -> &str {
    if e.returns == "()" { "" } else { e.returns }
}

/// The Luau API reference in Markdown.
pub fn lua_api_markdown() -> String {
    let mut s = String::new();
    s += "# Luau API reference\n\n";
    s += "<!-- Generated from the registry in core/host/src/luau/api.rs by `meeple api-docs`; do not edit. -->\n\n";
    s += "A script registers handlers with `meeple.on(hook, handler)` while it loads. Each handler receives a\n";
    s += "read-only **view** of the game and a command sink **out**; it changes the game only through `out`.\n";
    s += "Players are numbered from 1. Segments, features, figures and placed tiles are ids. Figure kinds\n";
    s += "and tokens are names: a bare name is the script's own expansion's (or the base game's, `meeple`),\n";
    s += "`expansion:name` any expansion's; the view gives them back in full (`abbots:abbot`, `meeple`), so\n";
    s += "compare with the full name. Score categories are plain names: the base game's `roads`, `cities`,\n";
    s += "`monasteries` and `fields`, each expansion's id and the `categories` its manifest declares.\n";
    s += "A command the core refuses (more tokens than the supply holds, a figure where its kind may not\n";
    s += "stand) fails the hook: the action is undone and the error names the script's line.\n";
    s += "Editor support: point luau-lsp at `docs/meeple.d.luau` (see `docs/modding.md`).\n";
    s += "A third argument, `meeple.on(hook, handler, { kinds = {\"city\"} })`, `{ stored = {\"key\"} }` or\n";
    s += "`{ on_board = {\"builder\"} }`, says which calls can matter (features of those kinds; while the\n";
    s += "storage holds one of the keys; while a figure of one of the kinds, anybody's, stands on the board),\n";
    s += "and the engine skips the others: a promise that the handler would do nothing in them.\n\n";
    s += "## Hooks\n\n| hook | handler | called |\n|---|---|---|\n";
    for h in HOOKS {
        let _ = writeln!(s, "| `{}` | `function({})` | {} |", h.name, h.params, h.doc);
    }
    for (scope, title, prefix) in [
        (
            Scope::Meeple,
            "## `meeple`\n\nAlso: `meeple.id` (the expansion's id), `meeple.edition`, `meeple.options` (option values chosen in the game config). Reading a name that `meeple` or `meeple.options` lacks is an error that names it, and so is calling a method that `view` or `out` lacks; none of them can be written to.\n",
            "meeple.",
        ),
        (
            Scope::View,
            "## `view`\n\nThe game as it is during the hook call it was given to: don't keep it for later (outside a hook call it fails, and in a later one it reads that call's game).\n",
            "view:",
        ),
        (
            Scope::Out,
            "## `out`\n\nCommands are checked by the engine and applied, in order, after the handler returns: until then the `view` shows the game without them (a handler giving tokens twice counts the supply itself). A handler returns nothing: the game changes only through `out`, and a value returned is an error.\n",
            "out:",
        ),
    ] {
        let _ = writeln!(s, "\n{title}");
        for e in API.iter().filter(|e| e.scope == scope) {
            let ret = returns(e);
            let arrow = if ret.is_empty() { String::new() } else { format!(" → `{ret}`") };
            let _ = writeln!(s, "- `{prefix}{}({})`{arrow}: {}", e.name, e.params, e.doc);
        }
    }
    s += "\n## Types\n\n```luau\n";
    s += TYPES;
    s += "\n```\n\n";
    s += "A `Target` is `{ kind = \"segment\", seg = … }` (a segment id of the view), `{ kind = \"point\", tile = …,\n";
    s += "point = … }` (a placed tile's index, and its named point by id or by number from 1) or `{ kind = \"figure\",\n";
    s += "figure = … }`, or `{ kind = \"none\" }` for an offer that acts on nothing on the board (paying for\n";
    s += "something); an offer without a target reads back as `{ kind = \"none\" }` too.\n";
    s += "A `Location` is where a figure is: `supply`, `aside`, or on a segment or a point as a target names them (a point by number; one read from the view also has its `id`, one in an event does not: `view:tile(at.tile)` names it).\n";
    s += "A feature is named by one of its segments: the `feature` of an event or a scoring and a `Feature`'s `id` are\n";
    s += "segment ids, so `view:segment(scoring.feature)` gives a segment of it (and its tile), and `view:feature`,\n";
    s +=
        "`view:figures_on` and the other functions that take a `seg` take them too. A `Feature`'s `tiles` counts the\n";
    s += "tiles it lies on: 1 for a monastery or a garden (`1 + view:neighbours(x, y)` is what one scores unfinished).\n";
    s += "A `Tile` is a placed tile: `index` its place in the order tiles were laid (0, the start tile, first),\n";
    s += "`tile` its kind's key (`base:U`, what `meeple.tile` takes, whose `TileKind` has its `tags` and\n";
    s += "`illustrations`) and `id` the kind's id in its tileset (`U`); a `TileKind`'s `key` and `id` are the same two.\n";
    s += "A `Turn` is where the game stands: `number` counts turns from 1, `player` is whose turn it is, `part`\n";
    s += "counts from 1 (a double turn has two), `placed` is the index of the tile placed in this part, nil until\n";
    s += "it is placed (in `figure_actions`, `view:segments(view:turn().placed)` are the segments of the tile just\n";
    s += "laid), `tiles_left` the tiles still to draw, and `stage` one of ";
    // Named as the view names them, so that the list cannot fall behind the stages.
    let stages: Vec<String> = Stage::ALL.iter().map(|&st| format!("`\"{}\"`", stage_name(st))).collect();
    s += &stages.join(", ");
    s += " (`\"figure\"`: the figure phase; `\"final\"`: the final scoring).\n";
    s += "A `Segment` is one part of a tile kind, as its tileset declares it (`docs/tilesets.md`): `index` counts\n";
    s += "from 1 on its tile kind, `seg` is its id on the board (on a placed tile only). A road or a river has two\n";
    s += "`ends`, each a side it leaves the tile by (`\"N\"`, `\"E\"`, `\"S\"`, `\"W\"`) or what it stops at on the tile\n";
    s += "(`\"city\"`, `\"monastery\"`, `\"house\"`, `\"dead-end\"`, `\"spring\"`, `\"lake\"`, or `\"KIND:ID\"` for a named\n";
    s += "point, as `\"village:village\"`): a road that stops on a tile still has two ends, one of them the stop.\n";
    s += "`sides` are the sides it leaves the tile by: a city's sides, the sides among a road's or river's ends.\n";
    s += "A `ScoringInfo` is a feature about to score: `tiles` counts its tiles (a monastery's or garden's: its own\n";
    s += "and those around it), `arms` its coats of arms, `cities` the completed cities a field touches (feature ids),\n";
    s += "`strength` each player's strength on it and `points` what each player is to score, both indexed by player\n";
    s += "with zeros included; `points` holds the changes of the expansions that ran `modify_score` before this one.\n";
    s += "`final` is true in the final scoring. A `FeatureScored` has no tile count: `view:feature(event.feature).tiles`.\n";
    s += "Reading a field that an event, a `ScoringInfo` or a record the view returns (a `Tile`, a `Feature`, any\n";
    s += "type above) does not have is an error that names it, with the field meant; a field its type marks optional\n";
    s += "(`placed: number?`) reads as nil. A script may add fields of its own to a record the view returns, copy\n";
    s += "one (`table.clone`) or give it a metatable of its own; its type's metatable is read-only. An event, a\n";
    s += "`ScoringInfo` and a candidate are read-only, fields of one's own and their lists (`scoring.points`)\n";
    s += "included (each call gets them as the engine made them): copy what you need into locals or a table of\n";
    s += "your own.\n";
    s += "Give a handler's parameters their types\n";
    s += "(`function(view: View, scoring: ScoringInfo, out: Out)`) and luau-lsp, with `docs/meeple.d.luau`, flags\n";
    s += "a misspelt field before the game does.\n";
    s += "\n## The sandbox\n\n";
    s += "Available: `table`, `string`, `math`, `utf8`, `bit32`, `buffer`, `print` (to the log), and `require(\"file\")`\n";
    s += &format!(
        "for files of the expansion's own folder (each of its `.luau` files is read as the game loads, at most {} MiB in all). `math.random`",
        super::MAX_SCRIPTS >> 20
    );
    s += " draws from the game's random stream (the same on every\n";
    s += "replay) and works only inside hooks (`math.randomseed` is refused: the game seeds every stream). Not available, and an error that says so where a script reads one:\n";
    s += "`os`, `io`, `debug`, `coroutine`, `package`, `loadstring`, `load`, `loadfile`, `dofile`, `getfenv`, `setfenv`,\n";
    s += &format!(
        "`collectgarbage`, `gcinfo`. `table.move` moves at most {} elements. Reading",
        thousands(super::lent::MAX_MOVED as u64)
    );
    s += " a global that is not defined is an error that names it (with the name, global\n";
    s += "or local, it is a likely slip of, or the local of that name declared where this line does not see it:\n";
    s += "a local function called above its declaration), not a nil; `rawget(_G, name)` asks whether the script\n";
    s += "has set one. An error caught with `pcall` or `xpcall`, the API's own included, is the one line\n";
    s += "`file:line: message` that the hook's error would report. Every hook call has a budget of interrupts\n";
    let limits = super::Limits::default();
    s += &format!(
        "(function calls and loop iterations: {}) and a wall-clock backstop ({} s); each VM",
        thousands(limits.steps),
        limits.wall.as_secs()
    );
    s += " has a memory limit (32 MiB held,\n";
    s += "garbage aside; 64 MiB allocated); and a hook call gives at most 10 000 commands (`can_place_tile` only\n";
    s += "`out:forbid`, `figure_actions` only `out:offer`, both also `out:log`, whose line goes to the `-v` log as\n";
    s += "`print`'s does, not to the game;\n";
    s += "`modify_score` only `out:set_score`, `out:set_storage` and `out:log`; the other hooks any command but\n";
    s += "`forbid`, `offer` and `set_score`, except that `setup` cannot `ask`, and nothing during the final scoring\n";
    s += "can `ask` or grant an extra turn or turn part) and 4 MiB of values, log lines and labels (each value stored counts, an overwritten one\n";
    s += "too; a stored value holds at most 64 KiB, a label, a decision's kind or option 256 bytes, a decision 1 000\n";
    s +=
        "options). One action sets off at most 20 000 events, and a turn asks at most 1 000 decisions (past that, an\n";
    s += "answer that asks again fails, as a failing hook does). Events, a `ScoringInfo`, the candidate list and its\n";
    s += "candidates are read-only: a write to one, with `rawset` and the `table` functions too, is an error that\n";
    s += "names the table and what to do instead. Scripts keep no state between calls (`meeple check` plays a game twice to find\n";
    s += "some that do): use `out:set_storage` and `view:storage`. Iterate with `meeple.sorted_pairs` where order\n";
    s += "matters.\n";
    s
}

/// luau-lsp definitions for editors.
pub fn luau_definitions() -> String {
    let mut s = String::new();
    s += "-- meeple Luau API definitions for luau-lsp. Generated by `meeple api-docs`; do not edit.\n\n";
    s += TYPES;
    s += "\n\n";
    for (scope, class) in [(Scope::View, "View"), (Scope::Out, "Out")] {
        let _ = writeln!(s, "declare class {class}");
        for e in API.iter().filter(|e| e.scope == scope) {
            let comma = if e.params.is_empty() { "" } else { ", " };
            let ret = if e.returns == "()" { "()".to_string() } else { e.returns.to_string() };
            let _ = writeln!(s, "    function {}(self{comma}{}): {ret}", e.name, e.params);
        }
        s += "end\n\n";
    }
    s += "declare meeple: {\n    id: string,\n    edition: string,\n    options: {[string]: any},\n";
    for e in API.iter().filter(|e| e.scope == Scope::Meeple) {
        let _ = writeln!(s, "    {}: ({}) -> {},", e.name, e.params, e.returns);
    }
    s += "}\n";
    s
}

/// A number with a space between thousands, as the docs write them (`5 000 000`).
fn thousands(n: impl std::fmt::Display) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}
