//! The Luau host: every protection of the sandbox at work, errors that name expansion, hook and
//! `file:line`, games left unchanged and still playable, deterministic randomness, load-time
//! errors located in the script.

use meeple_core::{Action, ActionError, Event, Game, Pos, Rotation, SegmentKind};
use meeple_tests::{line_of, load_toml, repo};
use std::path::{Path, PathBuf};

/// The line of `tests/mods/lua-sandbox/init.luau` that contains `needle`.
fn sandbox_game(attack: &str) -> Game {
    let config = format!(
        "players = 2\ndraw = [\"U\", \"U\", \"U\"]\n[[expansions]]\nid = \"lua-sandbox\"\noptions = {{ attack = \"{attack}\" }}\n"
    );
    let loaded = load_toml("sandbox.toml", &config).unwrap_or_else(|r| panic!("{r}"));
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    game
}

/// Placing a meeple triggers the attack: the action fails with a located error, the game is
/// unchanged, and passing instead lets the game go on to its end.
fn attack_fails(attack: &str, message: &str, line_needle: &str) {
    attack_fails_in(attack, "figure_placed", message, line_needle)
}

/// As [`attack_fails`], for an attack made in `hook`.
fn attack_fails_in(attack: &str, hook: &str, message: &str, line_needle: &str) {
    let mut game = sandbox_game(attack);
    let before = game.state().hash();
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    let ActionError::Hook(e) = &err else { panic!("{attack}: expected a hook error, got {err}") };
    assert_eq!(e.expansion, "lua-sandbox", "{attack}");
    assert_eq!(e.hook, hook, "{attack}");
    assert_eq!(
        e.location.as_deref(),
        Some(
            format!("lua-sandbox/init.luau:{}", line_of(&repo().join("tests/mods/lua-sandbox/init.luau"), line_needle))
                .as_str()
        ),
        "{attack}: {err}"
    );
    assert!(e.message.contains(message), "{attack}: `{}` should mention `{message}`", e.message);
    assert_eq!(game.state().hash(), before, "{attack}: the game is unchanged");
    game.apply(Action::Pass).unwrap();
    while !game.is_over() {
        let a = *game.legal_actions().last().unwrap();
        game.apply(a).unwrap();
    }
}

#[test]
fn a_file_outside_the_mod_cannot_be_required() {
    attack_fails("read-outside", "may only require files inside their own expansion's folder", "../lua-noop/init");
    attack_fails("read-absolute", "may only require files inside their own expansion's folder", "/etc/passwd");
}

#[test]
fn os_and_loadstring_do_not_exist() {
    let kept = "scripts have the libraries table, string, math, utf8, bit32 and buffer, with print and require";
    attack_fails("os", &format!("`os` is not available in the sandbox; {kept}"), "os.time()");
    attack_fails("loadstring", "`loadstring` is not available in the sandbox", "loadstring(\"return 1\")");
}

#[test]
fn a_name_the_sandbox_removed_says_so_and_what_there_is() {
    for (call, name) in [
        ("os.exit()", "os"),
        ("io.write(\"x\")", "io"),
        ("debug.traceback()", "debug"),
        ("coroutine.wrap(print)", "coroutine"),
        ("local f = load(\"return 1\")", "load"),
        ("dofile(\"init.luau\")", "dofile"),
        ("local env = getfenv(1)", "getfenv"),
        ("setfenv(1, {})", "setfenv"),
        ("collectgarbage()", "collectgarbage"),
        ("local kb = gcinfo()", "gcinfo"),
        // Read, not called: the name itself is the mistake.
        ("if debug then out:log(\"debugging\") end", "debug"),
    ] {
        let needle = format!(
            "`{name}` is not available in the sandbox; scripts have the libraries table, string, math, utf8, \
             bit32 and buffer, with print and require (of the expansion's own files)"
        );
        call_fails_at_its_line("removed", call, &needle);
    }
    // A global of the script's own that shadows one works.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   debug = true\n\
                  \x20   if event.player and debug then out:add_points(1, 1) end\n\
                  end)\n";
    let mut game = mod_game("shadow", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    assert_eq!(game.state().scores(), vec![1, 0]);
}

#[test]
fn a_name_of_a_million_letters_is_refused_at_once_and_quoted_by_its_start() {
    // No slip of a known name is looked for in it, which took seconds; the message quotes its
    // start alone.
    let needle = format!("no tile `{}…` in this ruleset", "k".repeat(79));
    call_fails_at_its_line("long-name", "local t = meeple.tile(string.rep(\"k\", 1e6))", &needle);
    let needle = format!("unknown score category `{}…`; known: ", "c".repeat(79));
    call_fails_at_its_line("long-category", "out:add_points(1, 1, string.rep(\"c\", 1e6))", &needle);
}

#[test]
fn sorted_pairs_walks_keys_in_an_order_that_replays_and_refuses_keys_that_have_none() {
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if not event.player then return end\n\
                  \x20   local order = \"\"\n\
                  \x20   for k, v in meeple.sorted_pairs({b = 1, [2] = 1, a = 1, [true] = 1, [1] = 1, [false] = 1}) do\n\
                  \x20       order ..= tostring(k) .. \" \"\n\
                  \x20   end\n\
                  \x20   if order == \"false true 1 2 a b \" then out:add_points(1, 1) end\n\
                  end)\n";
    let mut game = mod_game("sorted", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    assert_eq!(game.state().scores(), vec![1, 0]);
    // A table as a key: told at the script's line, not inside the library.
    call_fails_at_its_line(
        "sorted-table-key",
        "for k in meeple.sorted_pairs({[{}] = 1, [{}] = 2}) do end",
        "meeple.sorted_pairs: a key that is a table has no order that replays; key by numbers or strings",
    );
    call_fails_at_its_line("sorted-nil", "for k in meeple.sorted_pairs(nil) do end", "expected a table, got nil");
}

#[test]
fn a_runaway_table_move_is_stopped_at_its_line() {
    // One C call over a range of nils: no memory, no interrupt; it would hold the game half a
    // minute. A move of a real table's size still works.
    call_fails_at_its_line(
        "move",
        "table.move({}, 1, 2^31 - 2, 2)",
        "table.move of 2147483646 elements: at most 2097152 (more than a script's memory holds)",
    );
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   local moved = table.move({1, 2, 3}, 1, 3, 2, {})\n\
                  \x20   if event.player then out:add_points(1, moved[4]) end\n\
                  end)\n";
    let mut game = mod_game("move-ok", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    assert_eq!(game.state().scores(), vec![3, 0]);
}

#[test]
fn reading_a_global_that_is_not_defined_is_an_error_at_its_line() {
    // A name that is a slip of none is told how to ask whether a global is set.
    let unset = |name: &str| {
        format!(
            "`{name}` is not defined (a global is defined once assigned; `rawget(_G, \"{name}\")` asks whether it is)"
        )
    };
    for (call, needle) in [
        ("local n = undefined_name", unset("undefined_name")),
        ("if DEBUG then out:log(\"on\") end", unset("DEBUG")),
        ("if DEBUG == nil then out:log(\"on\") end", unset("DEBUG")),
        ("prnt(\"x\")", "`prnt` is not defined; did you mean `print`?".to_string()),
        ("local s = strng.rep(\"x\", 2)", "`strng` is not defined; did you mean `string`?".to_string()),
        ("meepel.tile(\"U\")", "`meepel` is not defined; did you mean `meeple`?".to_string()),
        // Keywords, the script's locals and parameters are names meant too.
        ("if event.index == nill then end", "`nill` is not defined; did you mean `nil`?".to_string()),
        ("local i = evnt.index", "`evnt` is not defined; did you mean `event`?".to_string()),
        // Only a slip of a letter or two is offered, not a name that holds this one.
        ("local c = context", unset("context")),
    ] {
        call_fails_at_its_line("undefined", call, &needle);
        let mut game = mod_game(
            "undefined",
            "",
            &format!(
                "meeple.on(\"tile_placed\", function(view, event, out)\n    if event.player then {call} end\nend)\n"
            ),
            "\"U\", \"U\"",
            2,
        );
        let err = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap_err();
        assert!(err.to_string().ends_with(&needle), "no more than the name meant: {err}");
    }
    attack_fails("undefined-global", "`undefined_global` is not defined", "return undefined_global");
    // While the script loads too, where it names the file and line.
    let root = write_mod("load-undefined", &[("init.luau", "-- hooks\nmeepel.on(\"turn_end\", function() end)\n")]);
    let err = load_mod(&root, "load-undefined").unwrap_err();
    assert!(err.contains("load-undefined/init.luau:2: `meepel` is not defined; did you mean `meeple`?"), "{err}");
}

#[test]
fn a_local_read_where_it_is_not_seen_is_named_with_its_declaration() {
    // A local function called above its declaration, a parameter read in another function, a
    // loop's variable read after it: each reads as a global that is not defined.
    for (script, needle) in [
        (
            "local function helper() return later() end\nlocal function later() return 1 end\n\
             meeple.on(\"tile_placed\", function(view, event, out) if event.player then helper() end end)\n",
            "local-later/init.luau:1: `later` is not defined here; local-later/init.luau:2 declares a local `later`, \
             which is seen only below its declaration, inside its block",
        ),
        (
            "local function give(player) out:add_points(player, 1) end\n\
             meeple.on(\"tile_placed\", function(view, event, out: Out) if event.player then give(1) end end)\n",
            "local-param/init.luau:1: `out` is not defined here; `out` is a parameter of the function at \
             local-param/init.luau:2, seen only inside that function: pass it on as an argument",
        ),
        (
            "meeple.on(\"tile_placed\", function(view, event, out)\n\
             \x20   for k, v in { 1 } do end\n\
             \x20   if event.player then local n = v end\n\
             end)\n",
            "local-loop/init.luau:3: `v` is not defined here; `v` is a variable of the loop at local-loop/init.luau:2, \
             seen only inside that loop",
        ),
    ] {
        let name = needle.split('/').next().unwrap();
        let mut game = mod_game(name, "", script, "\"U\", \"U\"", 2);
        placing_fails(&mut game, needle);
    }
}

#[test]
fn a_local_of_another_file_is_named_as_that_files_own() {
    // `util.luau` keeps `helper` local and returns it in its table: `init.luau` does not see it
    // by its name, wherever it is declared there. A name `init.luau` declares too (below its
    // use) is told by that declaration.
    let script = "local util = require(\"util\")\n\
                  meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then local n = helper(1) + later end\n\
                  end)\n\
                  local later = 1\n";
    let root = meeple_tests::write_mods("other-file", &[("other-file", "depends = [\"base\"]", script)]);
    let util = "local later = 2\nlocal function helper(n) return n + later end\nreturn { helper = helper }\n";
    std::fs::write(root.join("other-file/util.luau"), util).unwrap();
    let config = "players = 2\ndraw = [\"U\", \"U\"]\n[[expansions]]\nid = \"other-file\"\n";
    let config = meeple_host::GameConfig::parse("t.toml", config).unwrap();
    let loaded =
        meeple_host::load::from_config_with(&config, std::slice::from_ref(&root), &meeple_tests::TestCode).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    placing_fails(
        &mut game,
        "other-file/init.luau:3: `helper` is not defined here; other-file/util.luau:2 declares a local `helper`, \
         which is seen only in that file: a file gives what others use in the table it returns, which they `require`",
    );
    std::fs::write(root.join("other-file/init.luau"), script.replace("helper(1)", "util.helper(1)")).unwrap();
    let loaded = meeple_host::load::from_config_with(&config, &[root], &meeple_tests::TestCode).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    placing_fails(
        &mut game,
        "other-file/init.luau:3: `later` is not defined here; other-file/init.luau:5 declares a local `later`, \
         which is seen only below its declaration, inside its block",
    );
}

#[test]
fn a_scripts_own_globals_are_defined_and_named_when_misspelt() {
    // Globals the script sets while it loads, and in a hook before it reads them, are defined;
    // whether one exists is asked with `rawget`.
    let script = "function bonus(n) return n + 1 end\n\
                  LIMIT = 3\n\
                  meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   seen = (rawget(_G, \"seen\") or 0) + 1\n\
                  \x20   if event.player and rawget(_G, \"absent\") == nil then out:add_points(1, bonus(LIMIT) + seen) end\n\
                  end)\n";
    let mut game = mod_game("own-globals", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    assert_eq!(game.state().scores(), vec![6, 0], "bonus(3) and the second call of the hook");
    // A slip of one of them is named with it.
    let script = "function bonus(n) return n + 1 end\n\
                  meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then out:add_points(1, bonsu(1)) end\n\
                  end)\n";
    let mut game = mod_game("own-slip", "", script, "\"U\", \"U\"", 2);
    let err = placing_fails(&mut game, "`bonsu` is not defined; did you mean `bonus`?");
    assert!(err.contains("own-slip/init.luau:3"), "{err}");
}

#[test]
fn a_handler_that_returns_a_value_is_told_that_handlers_return_nothing() {
    // The `return` itself is not known to the engine: the error points at the function that
    // holds it, here the one written in the handler's `meeple.on`.
    attack_fails(
        "return-points",
        "the handler that starts here returned a table, but handlers return nothing: they change the game only through `out`",
        "meeple.on(\"figure_placed\"",
    );
}

#[test]
fn a_value_returned_by_a_handler_defined_apart_is_shown_at_its_function() {
    // The function that holds the `return` is nearer to it than the `meeple.on` that names it.
    let script = "local function placed(view, event, out)\n    if event.player then return true end\nend\n\n\
                  meeple.on(\"tile_placed\", placed)\n";
    let mut game = mod_game("returning-apart", "", script, "\"U\", \"U\"", 2);
    let before = game.state().hash();
    let err = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap_err();
    let ActionError::Hook(e) = &err else { panic!("{err}") };
    assert_eq!(e.location.as_deref(), Some("returning-apart/init.luau:1"), "{err}");
    assert!(
        e.message.starts_with("the handler that starts here returned a boolean, but handlers return nothing"),
        "{err}"
    );
    assert_eq!(game.state().hash(), before);
}

#[test]
fn a_value_returned_by_on_action_is_refused_as_one_by_figure_placed_is() {
    // `on_action` is called through mlua, the event hooks straight through Luau's C API: the
    // same error, naming the value's type alike, at the handler's `meeple.on`.
    let script = "meeple.on(\"figure_actions\", function(view, out)\n    out:offer(1, { kind = \"none\" }, \"take\")\nend)\n\
                  meeple.on(\"on_action\", function(view, offer, out)\n    return 5\nend)\n";
    let mut game = mod_game("returning", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let take = *game.legal_actions().iter().find(|a| matches!(a, Action::Expansion { .. })).expect("the offer");
    let before = game.state().hash();
    let err = game.apply(take).unwrap_err();
    let ActionError::Hook(e) = &err else { panic!("{err}") };
    assert_eq!((e.hook.as_str(), e.location.as_deref()), ("on_action", Some("returning/init.luau:4")), "{err}");
    assert!(
        e.message.starts_with("the handler that starts here returned a number, but handlers return nothing"),
        "{err}"
    );
    assert_eq!(game.state().hash(), before);
}

#[test]
fn an_endless_loop_is_stopped_by_the_step_budget() {
    attack_fails("loop", "ran for more than 5000000 steps without returning", "while true do end");
}

#[test]
fn a_runaway_pattern_match_is_stopped() {
    attack_fails("find", "ran for more than", "string.find(string.rep");
}

#[test]
fn a_memory_bomb_hits_the_memory_limit() {
    attack_fails("memory", "ran out of memory", "s = s .. s");
}

#[test]
fn a_runtime_error_names_the_line() {
    attack_fails("error", "attempt to index nil with 'field'", "nothing.field");
}

#[test]
fn a_command_of_another_hook_is_refused_at_the_call() {
    attack_fails("set-score", "out:set_score is only available in modify_score", "out:set_score(1, 5)");
}

#[test]
fn an_error_raised_with_a_table_says_so() {
    attack_fails("error-table", "error() was given a table, not a message", "error({ code = 1 })");
}

#[test]
fn a_bad_command_argument_is_reported_at_the_call() {
    attack_fails("bad-command", "player 9 does not exist; players are 1 to 2", "out:add_points(9, 1)");
}

#[test]
fn a_bad_view_query_is_reported_at_the_call() {
    attack_fails("bad-query", "segment 99999 does not exist", "view:feature_id(99999)");
    attack_fails("bad-kind", "unknown figure kind `dragon`; known: meeple", "view:supply(1, \"dragon\")");
    // Said once, without mlua's "runtime error: " in front, once or twice.
    let mut game = sandbox_game("bad-kind");
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    assert!(!err.to_string().contains("runtime error"), "{err}");
}

#[test]
fn math_random_follows_the_game_seed() {
    let play = |seed: u64| {
        let config = "players = 2\n[[expansions]]\nid = \"lua-sandbox\"\noptions = { attack = \"random\" }\n";
        let loaded = load_toml("random.toml", config).unwrap();
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
        game.record_checkpoints();
        meeple_tests::play_randomly(&mut game, seed);
        let cat = game.rules().category("lua-sandbox").unwrap();
        let points: Vec<i32> = (0..2).map(|p| game.state().points(p, cat)).collect();
        (points, game.replay(), loaded)
    };
    let (a, replay, loaded) = play(5);
    let (b, _, _) = play(5);
    assert_eq!(a, b, "same seed, same rolls");
    assert!(a.iter().sum::<i32>() > 0, "the rolls scored");
    let again = Game::from_replay(loaded.rules.clone(), &replay).unwrap();
    assert_eq!(
        again.state().hash(),
        u64::from_str_radix(&replay.state_hash, 16).unwrap(),
        "the replay reproduces the rolls"
    );
}

/// A throwaway mod with just an entry script.
fn write_mod(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let script = files.iter().find(|(f, _)| *f == "init.luau").map_or("", |(_, t)| *t);
    meeple_tests::write_mods(name, &[(name, "depends = [\"base\"]", script)])
}

fn load_mod(root: &Path, name: &str) -> Result<meeple_host::Loaded, String> {
    let config =
        meeple_host::GameConfig::parse("t.toml", &format!("players = 2\n[[expansions]]\nid = \"{name}\"\n")).unwrap();
    meeple_host::load::from_config_with(&config, &[root.to_path_buf()], &meeple_tests::TestCode)
        .map_err(|r| r.to_string())
}

#[test]
fn a_mod_whose_scripts_hold_more_than_a_vm_can_load_is_refused_before_they_are_read() {
    // Three files of 12 MiB, none of them required: each would be read and kept. Sparse files
    // (holes, no data written), which nothing reads.
    let root = write_mod("bulky", &[("init.luau", "-- small\n")]);
    for i in 0..3 {
        let file = std::fs::File::create(root.join(format!("bulky/data{i}.luau"))).unwrap();
        file.set_len(12 << 20).unwrap();
    }
    let err = load_mod(&root, "bulky").unwrap_err();
    assert!(err.contains("bulky/expansion.toml:"), "{err}");
    assert!(err.ends_with("hold 37 MiB together: at most 32 MiB (more than a script's VM can load)"), "{err}");
}

#[test]
fn load_time_errors_name_file_and_line() {
    let root = write_mod(
        "syntax-slip",
        &[("init.luau", "-- fine\nmeeple.on(\"turn_end\", function(view, ev, out)\n    out:log(\"x\"\nend)\n")],
    );
    let err = load_mod(&root, "syntax-slip").unwrap_err();
    // Luau's compiler gives the line only: no column is made up.
    assert!(err.contains("syntax-slip/init.luau:4: "), "{err}");

    let root = write_mod("bad-hook", &[("init.luau", "\n\nmeeple.on(\"tile_drawn\", function() end)\n")]);
    let err = load_mod(&root, "bad-hook").unwrap_err();
    assert!(err.contains("bad-hook/init.luau:3:"), "{err}");
    assert!(err.contains("unknown hook `tile_drawn`; hooks are: setup, can_place_tile"), "{err}");
    let root = write_mod("near-hook", &[("init.luau", "meeple.on(\"modify_scores\", function() end)\n")]);
    let err = load_mod(&root, "near-hook").unwrap_err();
    assert!(err.contains("unknown hook `modify_scores`; did you mean `modify_score`? (while loading)"), "{err}");

    // Every registration mistake is reported, each at its line, then the error that stopped the script.
    let script = "meeple.on(\"tile_drawn\", function() end)\nmeeple.on(\"turn_end\", function() end)\n\
                  meeple.on(\"turn_end\", function() end)\nmeeple.on(\"game_over\", function() end)\nlocal x = nil + 1\n";
    let root = write_mod("many-slips", &[("init.luau", script)]);
    let err = load_mod(&root, "many-slips").unwrap_err();
    let at =
        |line: usize, what: &str| err.lines().any(|l| l.contains(&format!("init.luau:{line}:")) && l.contains(what));
    assert!(at(1, "unknown hook `tile_drawn`"), "{err}");
    assert!(at(3, "a handler for `turn_end` is already registered, at init.luau:2"), "{err}");
    assert!(at(4, "unknown hook `game_over`"), "{err}");
    assert!(at(5, "attempt to perform arithmetic"), "{err}");

    // A misspelt name of the API is named, with what there is, rather than being a nil.
    let root = write_mod("wrong-case", &[("init.luau", "-- hooks\nmeeple.On(\"turn_end\", function() end)\n")]);
    let err = load_mod(&root, "wrong-case").unwrap_err();
    assert!(err.contains("wrong-case/init.luau:2:"), "{err}");
    assert!(
        err.contains(
            "meeple.On does not exist; did you mean `on`? meeple has edition, id, on, options, sorted_pairs, tile"
        ),
        "{err}"
    );
    let root = write_mod("no-option", &[("init.luau", "local bonus = meeple.options.bonus + 1\n")]);
    let err = load_mod(&root, "no-option").unwrap_err();
    assert!(err.contains("no-option/init.luau:1:"), "{err}");
    assert!(
        err.contains(
            "meeple.options.bonus does not exist; meeple.options has nothing; an option is declared in \
             expansion.toml, as [options.bonus]"
        ),
        "{err}"
    );
    // A slip of a declared option's name is named as one, without advice to declare the slip.
    let extra = "depends = [\"base\"]\n\n[options.bonus]\ntype = \"int\"\ndefault = 2\nhelp = \"Extra\"\n";
    let script = "local bonus = meeple.options.bouns + 1\n";
    let root = meeple_tests::write_mods("option-slip", &[("option-slip", extra, script)]);
    let err = load_mod(&root, "option-slip").unwrap_err();
    assert!(
        err.contains("meeple.options.bouns does not exist; did you mean `bonus`? meeple.options has bonus"),
        "{err}"
    );
    assert!(!err.contains("[options.bouns]"), "{err}");

    // Arguments of the wrong type say what was expected, in the script's words.
    let script = "-- a number where the handler goes\nmeeple.on(\"turn_end\", 3)\n";
    let root = write_mod("wrong-types", &[("init.luau", script)]);
    let err = load_mod(&root, "wrong-types").unwrap_err();
    assert!(err.contains("wrong-types/init.luau:2:"), "{err}");
    assert!(err.contains("bad argument #2 to `meeple.on`: expected a function (the handler), got number"), "{err}");
    let root = write_mod("wrong-only", &[("init.luau", "meeple.on(\"setup\", function() end, \"road\")\n")]);
    let err = load_mod(&root, "wrong-only").unwrap_err();
    assert!(err.contains("bad argument #3 to `meeple.on`: expected a table (`only`) or nothing, got string"), "{err}");

    let root = write_mod("early-random", &[("init.luau", "local r = math.random(6)\n")]);
    let err = load_mod(&root, "early-random").unwrap_err();
    assert!(err.contains("early-random/init.luau:1:") && err.contains("only available during a hook call"), "{err}");
}

#[test]
fn hooks_cannot_be_registered_late_and_globals_are_read_only() {
    let root = write_mod(
        "late",
        &[(
            "init.luau",
            "meeple.on(\"turn_end\", function(view, ev, out)\n    meeple.on(\"setup\", function() end)\nend)\n",
        )],
    );
    let loaded = load_mod(&root, "late").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    let a = game.legal_actions()[0];
    game.apply(a).unwrap();
    let err = game.apply(Action::Pass).unwrap_err().to_string();
    assert!(
        err.contains("late: turn_end: late/init.luau:2: meeple.on may only be called while the script loads"),
        "{err}"
    );

    let root = write_mod("tamper", &[("init.luau", "string.rep = nil\n")]);
    let err = load_mod(&root, "tamper").unwrap_err();
    assert!(err.contains("tamper/init.luau:1:") && err.contains("readonly"), "{err}");
    // Options come from the game config; a script cannot change them, even one level down.
    for (i, write) in ["meeple.newthing = 1", "meeple.options.bonus = 5"].into_iter().enumerate() {
        let name = format!("tamper{i}");
        let root = write_mod(&name, &[("init.luau", &format!("{write}\n"))]);
        let err = load_mod(&root, &name).unwrap_err();
        assert!(err.contains(&format!("{name}/init.luau:1:")) && err.contains("readonly"), "{write}: {err}");
    }
    let root = write_mod("handler", &[("init.luau", "meeple.on(\"setup\", 5)\n")]);
    let err = load_mod(&root, "handler").unwrap_err();
    assert!(err.contains("handler/init.luau:1: bad argument #2 to `meeple.on`"), "{err}");
    let root = write_mod("early", &[("init.luau", "local a = meeple.tile(\"base:A\")\n")]);
    let err = load_mod(&root, "early").unwrap_err();
    assert!(err.contains("early/init.luau:1: meeple.tile can only be called during a hook call"), "{err}");
}

#[test]
fn a_players_name_is_read_for_log_lines() {
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then out:log(view:player_name(event.player) .. \" placed a tile\") end\n\
                  end)\n\
                  meeple.on(\"turn_end\", function(view, event, out)\n    view:player_name(3)\nend)\n";
    let root = meeple_tests::write_mods("names", &[("names", "depends = [\"base\"]", script)]);
    let config = "players = [\"Ann\", \"Ben\"]\ndraw = [\"U\", \"U\"]\n[[expansions]]\nid = \"names\"\n";
    let config = meeple_host::GameConfig::parse("t.toml", config).unwrap();
    let loaded = meeple_host::load::from_config_with(&config, &[root], &meeple_tests::TestCode).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    let events = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let logged: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Log { message, .. } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(logged, ["Ann placed a tile"]);
    // A player the game lacks is an error, as for every function that takes a player.
    let err = game.apply(Action::Pass).unwrap_err().to_string();
    assert!(err.contains("player 3 does not exist; players are 1 to 2"), "{err}");
}

#[test]
fn the_score_before_final_scoring_is_the_same_whichever_expansion_runs_first() {
    // `mm-toll` adds 7 points at the final scoring; `aa-reader` runs before it and `zz-reader`
    // after it (load order is by id), and both read the same score before the final scoring.
    let reader = r#"
meeple.on("turn_end", function(view, ev, out)
    assert(view:score_before_final(1) == view:score(1), "the same score during the game")
end)
meeple.on("final_scoring", function(view, out)
    out:set_storage("before", view:score_before_final(1))
    out:set_storage("now", view:score(1))
end)
"#;
    let toll = "meeple.on(\"final_scoring\", function(view, out) out:add_points(1, 7) end)\n";
    let base = "depends = [\"base\"]";
    let root = meeple_tests::write_mods(
        "final-order",
        &[("aa-reader", base, reader), ("mm-toll", base, toll), ("zz-reader", base, reader)],
    );
    let config = "players = 2\n[[expansions]]\nid = \"aa-reader\"\n[[expansions]]\nid = \"mm-toll\"\n[[expansions]]\nid = \"zz-reader\"\n";
    let config = meeple_host::GameConfig::parse("t.toml", config).unwrap();
    let loaded = meeple_host::load::from_config_with(&config, &[root], &meeple_tests::TestCode).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(5)).unwrap();
    let mut bot = meeple_core::bots::RandomBot::new(5);
    while !game.is_over() {
        let action = meeple_core::bots::Bot::choose(&mut bot, &game);
        game.apply(action).unwrap();
    }
    let stored = |id: &str, key: &str| {
        let e = loaded.rules.expansions().iter().position(|x| x.id() == id).unwrap() as u16;
        match game.state().storage(e, key) {
            Some(meeple_core::Value::Int(n)) => *n,
            other => panic!("{id} stored {other:?} as {key}"),
        }
    };
    let final_score = game.state().score(0) as i64;
    assert_eq!(stored("aa-reader", "before"), final_score - 7);
    assert_eq!(stored("zz-reader", "before"), final_score - 7);
    assert_eq!(stored("aa-reader", "now"), final_score - 7, "aa-reader runs before the toll");
    assert_eq!(stored("zz-reader", "now"), final_score, "zz-reader runs after it");
}

#[test]
fn only_the_calls_a_handler_can_act_on_are_made() {
    // Counts its calls in storage: with `only`, road completions and the turn ends before the
    // first city never reach the script.
    let script = r#"
local function count(view, out, key)
    out:set_storage(key, (view:storage(key) or 0) + 1)
end
meeple.on("feature_completed", function(view, ev, out) count(view, out, ev.kind) end, { kinds = { "city" } })
meeple.on("turn_end", function(view, ev, out) count(view, out, "turns") end, { stored = { "city" } })
meeple.on("tile_placed", function(view, ev, out) count(view, out, "tiles") end, { on_board = { "meeple" } })
"#;
    let root = write_mod("picky", &[("init.luau", script)]);
    let loaded = load_mod(&root, "picky").unwrap();
    let e = loaded.rules.expansions().iter().position(|x| x.id() == "picky").unwrap() as u16;
    let stored = |game: &Game, key: &str| match game.state().storage(e, key) {
        Some(meeple_core::Value::Int(n)) => *n as usize,
        _ => 0,
    };
    let mut bot = meeple_core::bots::RandomBot::new(3);
    for seed in 0..10 {
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).unwrap();
        let (mut cities, mut turns_with_city, mut tiles_with_meeple) = (0, 0, 0);
        let meeple = loaded.rules.figure_by_name("meeple").unwrap();
        while !game.is_over() {
            // A tile is laid before any figure of its turn moves.
            let on_board = game.state().figures_of_kind(meeple).any(|(_, f)| f.at.is_on_board());
            let action = meeple_core::bots::Bot::choose(&mut bot, &game);
            game.apply(action).unwrap();
            for ev in game.events() {
                match ev {
                    Event::FeatureCompleted { kind: SegmentKind::City, .. } => cities += 1,
                    Event::TurnEnd { .. } if cities > 0 => turns_with_city += 1,
                    Event::TilePlaced { .. } if on_board => tiles_with_meeple += 1,
                    _ => {}
                }
            }
        }
        assert_eq!(stored(&game, "road"), 0, "no road completion reached the script");
        assert_eq!(stored(&game, "city"), cities);
        assert_eq!(stored(&game, "turns"), turns_with_city);
        assert_eq!(stored(&game, "tiles"), tiles_with_meeple);
        assert!(tiles_with_meeple > 0 && tiles_with_meeple < game.state().board().tiles().len(), "{tiles_with_meeple}");
    }

    for (hook, only, message) in [
        ("turn_end", "{ kinds = { \"city\" } }", "`kinds` is only for feature_completed"),
        ("feature_completed", "{ kinds = { \"castle\" } }", "unknown feature kind `castle`"),
        ("on_action", "{ stored = { \"x\" } }", "this hook is always called"),
        ("setup", "{ on_board = { \"meeple\" } }", "this hook is always called; `on_board` is not for it"),
        ("turn_end", "{ when = {} }", "unknown key `when`"),
        // Figure kinds are known once the ruleset is: a misspelt one fails the load all the same.
        (
            "turn_end",
            "{ on_board = { \"meeple\", \"meple\" } }",
            "meeple.on `turn_end`: `on_board`: unknown figure kind `meple`; did you mean `meeple`? known: meeple (while loading)",
        ),
    ] {
        let bad = format!("meeple.on(\"{hook}\", function() end, {only})\n");
        let root = write_mod("bad-only", &[("init.luau", &bad)]);
        let err = load_mod(&root, "bad-only").unwrap_err();
        assert!(err.contains("bad-only/init.luau:1:") && err.contains(message), "{err}");
    }
    // Each mistaken `only` is reported, at its line, with the name meant.
    let script = "meeple.on(\"feature_scored\", function() end, { kinds = { \"rood\" } })\n\
                  meeple.on(\"turn_end\", function() end, { stord = { \"x\" } })\n";
    let root = write_mod("bad-onlies", &[("init.luau", script)]);
    let err = load_mod(&root, "bad-onlies").unwrap_err();
    assert!(
        err.contains("init.luau:1: meeple.on `feature_scored`: unknown feature kind `rood`; did you mean `road`?"),
        "{err}"
    );
    assert!(
        err.contains("init.luau:2: meeple.on `turn_end`: unknown key `stord` in `only`; did you mean `stored`?"),
        "{err}"
    );
}

#[test]
fn the_generated_api_docs_are_up_to_date() {
    use meeple_host::luau::docs::{lua_api_markdown, luau_definitions};
    for (file, text) in [("docs/lua-api.md", lua_api_markdown()), ("docs/meeple.d.luau", luau_definitions())] {
        let committed = std::fs::read_to_string(repo().join(file)).unwrap_or_default();
        assert!(committed == text, "{file} is stale: run `cargo run --bin meeple -- api-docs` and commit it");
    }
}

#[test]
fn every_function_of_the_registry_exists_for_scripts() {
    use meeple_host::luau::api::{API, Scope};
    let mut checks = String::new();
    for e in API {
        let (table, name) = match e.scope {
            Scope::Meeple => ("meeple", e.name),
            Scope::View => ("view", e.name),
            Scope::Out => ("out", e.name),
        };
        checks += &format!("    assert(type({table}.{name}) == \"function\", \"{table}.{name} is missing\")\n");
    }
    let script =
        format!("meeple.on(\"setup\", function(view, out)\n{checks}    out:log(\"all {} present\")\nend)\n", API.len());
    let root = meeple_tests::write_mods("registry", &[("registry", "depends = [\"base\"]", &script)]);
    let cfg = meeple_host::GameConfig::parse("t.toml", "players = 2\n[[expansions]]\nid = \"registry\"\n").unwrap();
    let loaded =
        meeple_host::load::from_config_with(&cfg, &[root], &meeple_tests::TestCode).unwrap_or_else(|r| panic!("{r}"));
    let game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap_or_else(|e| panic!("{e}"));
    let logged = game.events().iter().any(
        |e| matches!(e, meeple_core::Event::Log { message, .. } if message == &format!("all {} present", API.len())),
    );
    assert!(logged, "{:?}", game.events());
}

#[test]
fn can_place_tile_reads_candidates_and_forbids_some() {
    let script = "meeple.on(\"can_place_tile\", function(view, tile, candidates, out)\n    assert(#candidates >= 1 and candidates[1].x ~= nil)\n    for i, c in candidates do\n        if i > 1 then out:forbid(i) end\n    end\nend)\n";
    let root = write_mod("only-first", &[("init.luau", script)]);
    let loaded = load_mod(&root, "only-first").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(4)).unwrap();
    for _ in 0..10 {
        let legal = game.legal_actions();
        assert_eq!(legal.len(), 1, "only the first candidate is left");
        game.apply(legal[0]).unwrap();
        game.apply(Action::Pass).unwrap();
    }
}

#[test]
fn what_one_call_allocates_at_once_is_refused_at_the_allocator() {
    // Two buffers of a GiB each, made by C functions between two interrupts: the allocator's
    // hard limit refuses the first.
    attack_fails("huge-alloc", "ran out of memory (its VM's hard limit", "buffer.create(2 ^ 30 - 1)");
}

#[test]
fn garbage_does_not_count_against_the_memory_limit() {
    let mut game = sandbox_game("garbage");
    game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).expect("garbage is collected, not held");
}

#[test]
fn math_random_refuses_a_range_it_cannot_draw_from() {
    attack_fails("wide-random", "empty or too wide interval", "math.random(-2 ^ 62, 2 ^ 62)");
}

#[test]
fn slow_c_functions_are_stopped_by_the_clock() {
    // A sort of 200 000 numbers takes milliseconds and costs one interrupt: the step budget
    // would take hours to run out, the wall clock stops it.
    attack_fails("slow-c", "ran for more than 2.0 s without returning", "while true do table.sort(t) end");
}

#[test]
fn event_tables_cannot_be_changed_or_frozen() {
    attack_fails("write-event", "the figure_placed event cannot be changed (field 'at')", "event.at = { kind");
    let mut game = sandbox_game("write-event");
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    let ActionError::Hook(e) = &err else { panic!("expected a hook error, got {err}") };
    assert_eq!(e.message, format!("the figure_placed event cannot be changed (field 'at'): {INSTEAD_OF_EVENT}"));
    attack_fails("freeze-event", "table is already frozen", "table.freeze(event)");
}

/// What a script is told to do instead of changing an event.
const INSTEAD_OF_EVENT: &str =
    "copy what you need into a table of your own; the game changes only through commands (out:…)";
/// What a script is told to do instead of changing the candidates.
const INSTEAD_OF_CANDIDATES: &str = "copy what you need into a table of your own; out:forbid(i) rules candidate i out";
/// What a script is told to do instead of changing the scoring.
const INSTEAD_OF_SCORING: &str =
    "copy what you need into a table of your own; out:set_score(player, points) changes a player's points";

#[test]
fn a_field_of_an_event_overwritten_or_set_raw_names_the_event() {
    // Luau refuses both without naming the table; the message names the event and its field.
    let named =
        |field: &str| format!("the figure_placed event cannot be changed (field '{field}'): {INSTEAD_OF_EVENT}");
    attack_fails("overwrite-event", &named("figure"), "event.figure = event.figure + 1");
    attack_fails("rawset-event", &named("player"), "rawset(event, \"player\", 2)");
}

#[test]
fn a_candidate_set_raw_or_an_insert_into_the_candidates_names_them() {
    attack_fails_in(
        "rawset-candidate",
        "can_place_tile",
        &format!("a candidate cannot be changed (field 'x'): {INSTEAD_OF_CANDIDATES}"),
        "rawset(candidates[1], \"x\", 99)",
    );
    attack_fails_in(
        "insert-candidates",
        "can_place_tile",
        &format!("the candidate list cannot be changed (table.insert): {INSTEAD_OF_CANDIDATES}"),
        "table.insert(candidates, { x = 0",
    );
}

#[test]
fn stored_values_nest_at_most_32_levels_deep() {
    attack_fails("deep-storage", "a stored value may nest at most 32 levels deep", "[\"deep-storage\"]");
    let mut game = sandbox_game("deep-enough");
    game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).expect("32 levels are stored");
    let e = game.rules().expansions().iter().position(|x| x.id() == "lua-sandbox").unwrap() as u16;
    let stored = game.state().storage_of(e).and_then(|s| s.get("deep")).expect("stored");
    assert!(stored.nests_deeper_than(31) && !stored.nests_deeper_than(32));
}

#[test]
fn storage_is_bounded() {
    attack_fails("storage-bomb", "an expansion's storage holds at most 64 KiB", "out:set_storage(\"k\"");
}

#[test]
fn a_stored_table_is_a_list_or_a_map_and_the_key_that_is_neither_is_named() {
    let gap = "a stored table is a list (keys 1, 2, 3, … with no gap) or a map with string keys: key 2 is \
               neither (for a value per player, use string keys: `tostring(player)`)";
    attack_fails("storage-gap", gap, "out:set_storage(\"by-player\"");
    attack_fails("storage-hole", "key 3 is missing", "out:set_storage(\"holed\"");
    let mixed = "a stored table is a list or a map with string keys, not both: this one has number and string keys";
    attack_fails("storage-mixed", mixed, "out:set_storage(\"mixed\"");
}

#[test]
fn points_beyond_a_million_are_refused() {
    for (attack, points) in [("points-overflow", "2147483647"), ("points-underflow", "-2147483648")] {
        let mut game = sandbox_game(attack);
        let before = game.state().hash();
        let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
        let ActionError::Hook(e) = &err else { panic!("expected a hook error, got {err}") };
        assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("lua-sandbox", "figure_placed"));
        let why = format!("the points: expected a whole number, at most 1000000 either way, not {points}");
        assert!(e.message.contains(&why), "{err}");
        assert_eq!(game.state().hash(), before, "{attack}: the game is unchanged");
    }
}

#[test]
fn storage_holds_64_kib_in_all() {
    // Fourteen values of 5 000 bytes, each allowed on its own: the fourteenth is one too many.
    let mut game = sandbox_game("storage-fill");
    let before = game.state().hash();
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    let line = line_of(&repo().join("tests/mods/lua-sandbox/init.luau"), "for i = 1, 14");
    let refused = format!("lua-sandbox/init.luau:{line}: invalid command: store `k14`");
    assert!(err.to_string().contains(&refused), "the line that stored it: {err}");
    assert!(err.to_string().contains("an expansion's storage holds at most 64 KiB"), "{err}");
    assert_eq!(game.state().hash(), before, "the game is unchanged");
}

#[cfg(unix)]
#[test]
fn links_out_of_the_mod_are_not_followed_and_loops_end() {
    let root = write_mod("linked", &[("init.luau", "local secret = require(\"secret\")\n")]);
    let dir = root.join("linked");
    let outside = root.join("outside.luau");
    std::fs::write(&outside, "return 1\n").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("secret.luau")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("again")).unwrap();
    std::os::unix::fs::symlink(&root, dir.join("up")).unwrap();
    let err = load_mod(&root, "linked").unwrap_err();
    assert!(err.contains("linked/init.luau:1") && err.contains("secret"), "{err}");
    assert!(err.contains("`secret.luau` is a link out of expansion `linked`'s folder"), "{err}");
    // The same file, linked from inside the mod, is the mod's own.
    std::fs::rename(&outside, dir.join("kept.luau")).unwrap();
    std::fs::remove_file(dir.join("secret.luau")).unwrap();
    std::os::unix::fs::symlink(dir.join("kept.luau"), dir.join("secret.luau")).unwrap();
    load_mod(&root, "linked").unwrap();
    // An entry file linked from outside is told as a link, not as missing.
    let entry = root.join("entry.luau");
    std::fs::rename(dir.join("init.luau"), &entry).unwrap();
    std::os::unix::fs::symlink(&entry, dir.join("init.luau")).unwrap();
    let err = load_mod(&root, "linked").unwrap_err();
    let told = "the entry script `init.luau` is a link out of expansion `linked`'s folder; links out of a mod are \
                not followed";
    assert!(err.contains(told), "{err}");
    // Nor is one that is not a plain file: a pipe is not opened.
    std::fs::remove_file(dir.join("init.luau")).unwrap();
    let made = std::process::Command::new("mkfifo").arg(dir.join("init.luau")).status().unwrap();
    assert!(made.success());
    let err = load_mod(&root, "linked").unwrap_err();
    assert!(err.contains("the entry script `init.luau` is not a plain file (a device, a pipe or a socket)"), "{err}");
}

#[test]
fn a_require_cycle_is_named() {
    let root = write_mod("cycle", &[("init.luau", "local a = require(\"a\")\n")]);
    std::fs::write(root.join("cycle/a.luau"), "return require(\"b\")\n").unwrap();
    std::fs::write(root.join("cycle/b.luau"), "return require(\"a\")\n").unwrap();
    let err = load_mod(&root, "cycle").unwrap_err();
    assert!(
        err.contains("cycle/init.luau:1:") && err.contains("a require cycle: init.luau → a.luau → b.luau → a.luau"),
        "{err}"
    );
}

#[test]
fn the_questions_take_no_commands_and_far_positions_hold_no_tile() {
    // `can_place_tile` answers which placements are allowed: points given there would be lost.
    let script = "meeple.on(\"can_place_tile\", function(view, tile, candidates, out)\n    \
                  assert(view:tile_at(2 ^ 32, 0) == nil and view:neighbours(2 ^ 40, 1) == 0)\n    \
                  out:add_points(1, 1)\nend)\n";
    let root = write_mod("questions", &[("init.luau", script)]);
    let loaded = load_mod(&root, "questions").unwrap();
    let err = match Game::new(loaded.rules.clone(), loaded.setup(1)) {
        Ok(mut game) => game.apply(game.legal_actions()[0]).map(|_| ()).unwrap_err().to_string(),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("questions/init.luau:3: `can_place_tile` changes nothing: of the commands, only out:forbid"),
        "{err}"
    );
}

#[test]
fn an_error_raised_with_a_table_while_loading_says_so() {
    for (name, script, kind) in [("load-table", "error({ 1, 2 })\n", "table"), ("load-nil", "error()\n", "nil")] {
        let root = write_mod(name, &[("init.luau", script)]);
        let err = load_mod(&root, name).unwrap_err();
        assert!(err.contains(&format!("error() was given a {kind}, not a message: pass a string")), "{err}");
    }
}

/// A mod with a figure of two faces (a lantern) that, when a meeple is placed, turns the
/// placer's lantern (or, with `turn = "meeple"`, a meeple) to the face its option names.
fn faces_game(turn: &str, face: u8) -> Game {
    let manifest = "depends = [\"base\"]\n[[figures]]\nid = \"lantern\"\nper_player = 1\nstands_on = [\"city\"]\n\
                    faces = [1, 2]\n[options.face]\ntype = \"int\"\ndefault = 2\nmin = 0\nmax = 9\n\
                    [options.turn]\ntype = \"enum\"\nvalues = [\"lantern\", \"meeple\"]\ndefault = \"lantern\"\n";
    let script = "meeple.on(\"figure_placed\", function(view, event, out)\n\
                  \x20   local kind = if meeple.options.turn == \"lantern\" then \"faces:lantern\" else \"meeple\"\n\
                  \x20   for _, f in ipairs(view:figures()) do\n\
                  \x20       if f.kind == kind and f.owner == event.player and f.id ~= event.figure then\n\
                  \x20           out:set_face(f.id, meeple.options.face)\n\
                  \x20           return\n\
                  \x20       end\n\
                  \x20   end\n\
                  end)\n";
    let root = meeple_tests::write_mods(&format!("faces-{turn}-{face}"), &[("faces", manifest, script)]);
    let config = format!(
        "players = 2\ndraw = [\"U\", \"U\", \"U\"]\n[[expansions]]\nid = \"faces\"\noptions = {{ turn = \"{turn}\", face = {face} }}\n"
    );
    let config = meeple_host::GameConfig::parse("faces.toml", &config).unwrap();
    let loaded = meeple_host::load::from_config_with(&config, &[root], &meeple_tests::TestCode)
        .unwrap_or_else(|r| panic!("{r}"));
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    game
}

/// Places one of Red's meeples on the road, which makes the mod turn a figure.
fn place_a_meeple(game: &mut Game) -> Result<Vec<Event>, ActionError> {
    let meeple = game.rules().figures().iter().position(|k| k.id == "meeple").unwrap() as u8;
    game.apply(Action::PlaceFigure { figure: meeple, segment: 0, with: None }).map(<[Event]>::to_vec)
}

#[test]
fn a_figure_turns_only_to_the_faces_its_manifest_declares() {
    let mut game = faces_game("lantern", 2);
    let events = place_a_meeple(&mut game).expect("face 2 is one of the lantern's");
    let lantern = game.rules().figures().iter().position(|k| k.id == "faces:lantern").unwrap() as u8;
    let (id, red) = game.state().figures_of_kind(lantern).find(|(_, f)| f.owner == 0).unwrap();
    assert_eq!(red.face, 2, "Red's lantern shows face 2");
    assert!(events.contains(&Event::FigureTurned { figure: id, face: 2 }), "{events:?}");

    for (turn, face, why) in [
        ("lantern", 3, "a faces:lantern has no face 3; its faces are 1, 2"),
        ("lantern", 0, "a faces:lantern has no face 0; its faces are 1, 2"),
        ("meeple", 1, "a meeple has no faces to turn to (its manifest declares none)"),
    ] {
        let mut game = faces_game(turn, face);
        let before = game.state().hash();
        let err = place_a_meeple(&mut game).unwrap_err();
        let ActionError::Hook(e) = &err else { panic!("expected a hook error, got {err}") };
        assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("faces", "figure_placed"));
        assert!(e.message.contains(why), "{turn} {face}: {err}");
        assert_eq!(game.state().hash(), before, "{turn} {face}: the game is unchanged");
    }
}

#[test]
fn numbers_and_values_from_scripts_are_checked_before_they_are_used() {
    // Point 0 of a tile: an error, where it once overflowed in the host.
    attack_fails("point-zero", "has no point 0", "point = 0 })");
    // A table holding the same table twice stands for far more than the VM holds: it is
    // measured while it is copied, and refused at the storage's limit.
    attack_fails(
        "shared-tables",
        "out:set_storage: an expansion's storage holds at most 64 KiB",
        "out:set_storage(\"k\", v)",
    );
    // Words a player reads are short: they are not copied out whole first.
    attack_fails("long-options", "out:ask: an option has at most 256 bytes", "out:ask(1, \"pick\"");
}

#[test]
fn hooks_that_set_each_other_off_without_end_are_stopped() {
    // Two moves per move, 30 levels down: a billion events, stopped at the action's limit (by
    // the core, which applies the commands: no script line is to blame).
    let mut game = sandbox_game("fan-out");
    let before = game.state().hash();
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    let ActionError::Hook(e) = &err else { panic!("expected a hook error, got {err}") };
    assert_eq!((e.expansion.as_str(), e.hook.as_str()), ("lua-sandbox", "figure_placed"));
    assert!(e.message.contains("one action set off more than 20000 events"), "{err}");
    assert_eq!(game.state().hash(), before, "the game is unchanged");
    game.apply(Action::Pass).expect("and goes on");

    // An answer that asks again: past the turn's limit of questions, the answer fails as any
    // failing hook does, and the game waits on it, unchanged (a script whose every answer fails
    // leaves nothing else to play).
    let mut game = sandbox_game("ask-again");
    game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap();
    let mut answered = 0;
    let err = loop {
        match game.apply(Action::Choose { option: 0 }) {
            Ok(_) => answered += 1,
            Err(e) => break e,
        }
        assert!(answered < 2000, "the questions never end");
    };
    assert_eq!(answered, 999, "1 000 questions in the turn, the last unanswerable: {err}");
    assert!(err.to_string().contains("a turn asks at most 1000 decisions"), "{err}");
    let before = game.state().hash();
    let again = game.apply(Action::Choose { option: 1 }).unwrap_err();
    assert!(again.to_string().contains("a turn asks at most 1000 decisions"), "{again}");
    assert_eq!(game.state().hash(), before, "the game is unchanged");
    assert_eq!(game.legal_actions().len(), 2, "the question is still open");
}

/// A game of a throwaway mod, with `draw` as the tiles drawn.
fn mod_game(name: &str, manifest_extra: &str, script: &str, draw: &str, players: usize) -> Game {
    let root = meeple_tests::write_mods(name, &[(name, &format!("depends = [\"base\"]\n{manifest_extra}"), script)]);
    let config = format!("players = {players}\ndraw = [{draw}]\n[[expansions]]\nid = \"{name}\"\n");
    let config = meeple_host::GameConfig::parse("t.toml", &config).unwrap();
    let loaded = meeple_host::load::from_config_with(&config, &[root], &meeple_tests::TestCode)
        .unwrap_or_else(|r| panic!("{r}"));
    Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap()
}

/// Places the first tile of a `mod_game`, which must fail with `needle` in its error and leave
/// the game as it was; the error, for more checks.
fn placing_fails(game: &mut Game, needle: &str) -> String {
    let before = game.state().hash();
    let err = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap_err();
    assert!(err.to_string().contains(needle), "{err}");
    assert_eq!(game.state().hash(), before, "the game is unchanged");
    err.to_string()
}

#[test]
fn a_command_cannot_put_a_figure_where_its_manifest_says_it_may_not_stand() {
    // The garden of a U tile: the base meeple stands on cities, roads, fields and monasteries.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   for _, s in view:segments(event.index) do\n\
                  \x20       if s.kind == \"garden\" then out:place_figure(1, \"meeple\", { kind = \"segment\", seg = s.seg }) end\n\
                  \x20   end\n\
                  end)\n";
    let mut game = mod_game("gardener", "", script, "\"U-garden\", \"U\"", 2);
    placing_fails(&mut game, "a meeple may not stand on a garden");
    assert_eq!(hook_error_place(&mut game).as_deref(), Some("gardener/init.luau:3"), "the line of the command");
}

/// Where the hook error of placing the first tile of a `mod_game` says it happened.
fn hook_error_place(game: &mut Game) -> Option<String> {
    match game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }) {
        Err(ActionError::Hook(e)) => e.location,
        other => panic!("expected a hook error, got {other:?}"),
    }
}

#[test]
fn a_command_the_core_refuses_names_the_line_that_gave_it() {
    // Three tokens are given from a supply of two: the core refuses the second command after
    // the hook has returned, and the error still points at the line that gave it.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player == nil then return end -- the start tile\n\
                  \x20   out:give_tokens(1, \"coin\", 1)\n\
                  \x20   out:log(\"one given\")\n\
                  \x20   out:give_tokens(2, \"coin\", 2)\n\
                  end)\n";
    let mut game = mod_game("mint", "[[tokens]]\nid = \"coin\"\nsupply = 2\n", script, "\"U\", \"U\"", 2);
    placing_fails(
        &mut game,
        "invalid command: give 2 mint:coin to player 2: not enough tokens: the supply holds 1 of 2 (`supply` of \
         `mint:coin` in its expansion.toml's `[[tokens]]`)",
    );
    assert_eq!(hook_error_place(&mut game).as_deref(), Some("mint/init.luau:5"), "the line of the second command");
}

#[test]
fn a_scripts_globals_do_not_reach_the_hosts_own_code() {
    // A careless `table` and a hostile `error` of the script's own: the host's event tables
    // still refuse to be changed, with the host's message.
    let script = "table = { insert = function(t, v) t[#t + 1] = v end }\n\
                  function error(message) end\n\
                  meeple.on(\"figure_placed\", function(view, event, out)\n\
                  \x20   event.at = { kind = \"supply\" }\n\
                  end)\n";
    let mut game = mod_game("globals", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).expect("it loads and plays");
    let err = game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap_err();
    assert!(err.to_string().contains("the figure_placed event cannot be changed (field 'at')"), "{err}");
}

#[test]
fn a_view_answer_the_vm_has_no_room_for_is_a_script_error() {
    // Sixty kinds of thirty figures for six players: a list of 10 800 figures, asked for with
    // the VM a little below its hard limit of 64 MiB (a 61 MiB buffer and the script's own
    // few hundred KiB; a 50 MiB buffer leaves room for the list).
    let figures: String =
        (0..60).map(|i| format!("[[figures]]\nid = \"f{i}\"\nper_player = 30\nstands_on = [\"road\"]\n")).collect();
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if not event.player then return end -- the start tile\n\
                  \x20   local room = buffer.create(61 * 2 ^ 20)\n\
                  \x20   local all = view:figures()\n\
                  end)\n";
    let mut game = mod_game("crowd", &figures, script, "\"U\", \"U\"", 6);
    // The view's own check, not the interrupt's or the allocator's.
    placing_fails(&mut game, "the script ran out of memory (its VM holds");
}

#[test]
fn a_bad_argument_is_counted_as_the_script_wrote_it() {
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then out:give_tokens(1, {}, 1) end\n\
                  end)\n";
    let mut game = mod_game("counted", "", script, "\"U\", \"U\"", 2);
    let err = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap_err();
    assert!(err.to_string().contains("counted/init.luau:2: bad argument #2 to `out:give_tokens`"), "{err}");
}

#[test]
fn a_target_or_option_list_of_the_wrong_shape_says_what_is_expected() {
    for (i, (call, needle)) in [
        ("out:place_figure(1, \"meeple\", 5)", "bad argument #3 to `out:place_figure`: expected a target such as { kind = \"segment\", seg = … }, got number"),
        ("out:place_figure(1, \"meeple\", { seg = 0 })", "target.kind: expected \"segment\", \"point\", \"figure\" or \"none\", got nil"),
        ("out:move_figure(\"x\", { kind = \"segment\", seg = 1 })", "bad argument #1 to `out:move_figure`: expected an integer, got string"),
        ("out:move_figure(1, { kind = \"figure\" })", "target.figure: expected an integer, got nil"),
        // A field of another name is said, and a figure that does not exist is refused when given.
        ("out:move_figure(1, { kind = \"figure\", id = 3 })", "target.figure: expected an integer, got nil (the target gives `id`)"),
        ("out:move_figure(1, { kind = \"figure\", figure = 9999 })", "target.figure: no figure 9999"),
        ("out:ask(1, \"k\", \"yes\")", "bad argument #3 to `out:ask`: expected a list of option strings such as { \"yes\", \"no\" }, got string"),
        ("out:ask(1, \"k\", { \"a\", 3 })", "out:ask: option 2: expected a string, got number"),
    ]
    .into_iter()
    .enumerate()
    {
        call_fails_at_its_line(&format!("shape{i}"), call, needle);
    }
}

#[test]
fn a_misspelt_category_or_figure_kind_names_the_one_meant() {
    call_fails_at_its_line(
        "category",
        "out:add_points(1, 1, \"roadz\")",
        "unknown score category `roadz`; did you mean `roads`? known: roads, cities, monasteries, fields",
    );
    call_fails_at_its_line(
        "kind",
        "out:place_figure(1, \"meple\", { kind = \"segment\", seg = 1 })",
        "unknown figure kind `meple`; did you mean `meeple`? known: meeple",
    );
}

/// Line 2 of a throwaway mod's script makes `call` when a player places a tile: placing the
/// first tile fails with `needle` in its error, located at that line.
fn call_fails_at_its_line(name: &str, call: &str, needle: &str) {
    let script =
        format!("meeple.on(\"tile_placed\", function(view, event, out)\n    if event.player then {call} end\nend)\n");
    let mut game = mod_game(name, "", &script, "\"U\", \"U\"", 2);
    placing_fails(&mut game, needle);
    assert_eq!(hook_error_place(&mut game).as_deref(), Some(format!("{name}/init.luau:2").as_str()), "{call}");
}

#[test]
fn a_misspelt_method_names_the_ones_meant() {
    for (call, needle) in [
        ("view:token(1, \"x\")", "view has no method or field 'token'; did you mean `tokens`?"),
        ("out:set_scroe(1, 2)", "out has no method or field 'set_scroe'; did you mean `set_score`?"),
        ("out:give(1, \"x\", 1)", "out has no method or field 'give'; did you mean `give_tokens`?"),
        ("out:zzz()", "out has no method or field 'zzz'; it has add_points, ask, extra_turn,"),
        // A dot for a colon moves every argument one place: the call is named as the slip.
        ("out.add_points(1, 2)", "out.add_points was called with a dot: call it with a colon, as `out:add_points(…)`"),
        ("local f = view.feature(1)", "view.feature was called with a dot: call it with a colon"),
        // A field an event lacks is named, with the one meant.
        ("local p = event.playr", "the tile_placed event has no field 'playr'; did you mean `player`? it has index,"),
        // And one a record of the view lacks, built in Rust's fast path or through mlua.
        (
            "local c = view:feature(1).complted",
            "a Feature has no field 'complted'; did you mean `completed`? it has arms, completed, id, kind, open, scored, tiles",
        ),
        ("local s = view:turn().stag", "a Turn has no field 'stag'; did you mean `stage`?"),
        ("local r = view:tile(event.index).rotaton", "a Tile has no field 'rotaton'; did you mean `rotation`?"),
        ("local k = view:segment(1).knd", "a Segment has no field 'knd'; did you mean `kind`?"),
        ("local p = meeple.tile(\"U\").segmnts", "a TileKind has no field 'segmnts'; did you mean `segments`?"),
    ] {
        call_fails_at_its_line("misspelt", call, needle);
    }
    // Nor can a script change how they answer: their metatables are frozen too.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then getmetatable(view).__index = function() return 1 end end\n\
                  end)\n";
    let mut game = mod_game("meta", "", script, "\"U\", \"U\"", 2);
    placing_fails(&mut game, "readonly");
}

#[test]
fn a_records_optional_fields_read_nil_and_a_script_may_add_its_own() {
    // A segment of the start tile: no goods (`goods` is optional); a field the script sets reads
    // back; a record can be copied (`table.clone` keeps the strict metatable) and given a
    // metatable of the script's own.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   local turn = view:turn()\n\
                  \x20   turn.seen = true\n\
                  \x20   local segment = view:segment(1)\n\
                  \x20   local copy = table.clone(segment)\n\
                  \x20   local own = setmetatable(view:turn(), {})\n\
                  \x20   local fine = turn.seen and segment.tile == 0 and copy.tile == 0 and own.anything == nil\n\
                  \x20   if event.player and fine and (segment.goods == nil) then out:add_points(1, 1) end\n\
                  end)\n";
    let mut game = mod_game("optional", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    assert_eq!(game.state().scores(), vec![1, 0], "every check in the handler held");
    // The copy is as strict as the record; the shared metatable cannot be changed.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then local k = table.clone(view:segment(1)).knd end\n\
                  end)\n";
    let mut game = mod_game("copied", "", script, "\"U\", \"U\"", 2);
    placing_fails(&mut game, "a Segment has no field 'knd'");
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then getmetatable(view:turn()).__index = nil end\n\
                  end)\n";
    let mut game = mod_game("swap", "", script, "\"U\", \"U\"", 2);
    placing_fails(&mut game, "readonly");
}

#[test]
fn a_player_written_as_a_string_is_refused_not_read_as_a_number() {
    for (call, needle) in [
        (
            "out:add_points(\"1\", 2)",
            "bad argument #1 to `out:add_points`: the player: expected an integer, got string",
        ),
        ("out:extra_turn(\"2\")", "bad argument #1 to `out:extra_turn`: the player: expected an integer, got string"),
        (
            "out:add_points(1, \"2\")",
            "bad argument #2 to `out:add_points`: the points: expected a whole number, at most 1000000 either way, \
             got string",
        ),
        (
            "out:add_points(1, 2.5)",
            "bad argument #2 to `out:add_points`: the points: expected a whole number, at most 1000000 either way, \
             got 2.5",
        ),
        ("local s = view:score(\"1\")", "view:score: the player must be an integer, got string"),
        // Nor are other numbers and texts converted from the other kind.
        ("out:set_aside(\"1\")", "bad argument #1 to `out:set_aside`: expected an integer, got string"),
        ("out:set_face(1, 1.5)", "bad argument #2 to `out:set_face`: expected an integer, got 1.5"),
        ("out:set_face(1, 300)", "bad argument #2 to `out:set_face`: expected an integer from 0 to 255, got 300"),
        ("out:log(42)", "bad argument #1 to `out:log`: expected a string, got number"),
        ("local s = view:storage(1)", "bad argument #1 to `view:storage`: expected a string, got number"),
    ] {
        call_fails_at_its_line("stringly", call, needle);
    }
}

#[test]
fn each_refused_command_says_why_and_the_action_is_undone() {
    // Each line is what a handler commands when the first tile (a U: a road between two fields)
    // is placed; `road` targets that road. The API refuses some commands at the call (a player,
    // category, token or figure kind, or segment that does not exist), and the core checks the
    // others after the hook returns ("invalid command: …"): either way the placement fails, the
    // error names the script's line and what was wrong, and the whole action is undone.
    let manifest = "[[tokens]]\nid = \"coin\"\nsupply = 2\n\
                    [[figures]]\nid = \"wisp\"\nper_player = 1\nstands_on = [\"road\", \"field\"]\nfaces = [1, 2]\n";
    let cases = [
        ("out:add_points(3, 1)", "player 3 does not exist; players are 1 to 2"),
        (
            "out:add_points(1, 1, \"gold\")",
            "unknown score category `gold`; known: roads, cities, monasteries, fields, refuse",
        ),
        (
            "out:give_tokens(1, \"coin\", -1)",
            "invalid command: give -1 refuse:coin to player 1: not enough tokens: the player holds 0",
        ),
        (
            "out:give_tokens(1, \"coin\", 3)",
            "invalid command: give 3 refuse:coin to player 1: not enough tokens: the supply holds 2 of 2 (`supply` of \
             `refuse:coin` in its expansion.toml's `[[tokens]]`)",
        ),
        ("out:give_tokens(1, \"ruby\", 1)", "unknown token `ruby`; known: refuse:coin"),
        ("out:place_figure(1, \"dragon\", road)", "unknown figure kind `dragon`; known: meeple, refuse:wisp"),
        ("out:place_figure(1, \"wisp\", { kind = \"segment\", seg = 99999 })", "segment 99999 does not exist"),
        (
            "out:place_figure(1, \"wisp\", road) out:place_figure(1, \"wisp\", road)",
            "invalid command: place a refuse:wisp of player 1 on the road at (1, 0): none left in the player's supply",
        ),
        (
            "out:move_figure(0, road)",
            "invalid command: move the meeple of player 1 to the road at (1, 0): the figure is in its supply; use place_figure",
        ),
        ("out:return_figure(9999)", "invalid command: return figure 9999: no such figure"),
        ("out:set_aside(9999)", "invalid command: set figure 9999 aside: no such figure"),
        (
            "out:set_face(view:figures()[#view:figures()].id, 3)",
            "invalid command: turn the refuse:wisp of player 2 to face 3: a refuse:wisp has no face 3; its faces are 1, 2",
        ),
        ("out:extra_turn(5)", "player 5 does not exist; players are 1 to 2"),
        (
            "out:ask(1, \"pick\", {})",
            "invalid command: ask player 1 `pick`: a decision needs an existing player and at least one option",
        ),
    ];
    for (command, why) in cases {
        let script = format!(
            "meeple.on(\"tile_placed\", function(view, event, out)\n\
             \x20   if event.player == nil then return end -- the start tile\n\
             \x20   local road\n\
             \x20   for _, s in view:segments(event.index) do\n\
             \x20       if s.kind == \"road\" then road = {{ kind = \"segment\", seg = s.seg }} end\n\
             \x20   end\n\
             \x20   {command}\n\
             end)\n"
        );
        let mut game = mod_game("refuse", manifest, &script, "\"U\", \"U\"", 2);
        let err = placing_fails(&mut game, why);
        assert_eq!(err, format!("refuse: tile_placed: refuse/init.luau:7: {why}"), "{command}");
    }
}

#[test]
fn a_question_or_an_offer_nothing_would_answer_is_refused() {
    // Without `on_decision`, an answer would change nothing: the question is refused at its line.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then out:ask(1, \"tip\", { \"keep\", \"drop\" }) end\n\
                  end)\n";
    let mut game = mod_game("mute", "", script, "\"U\", \"U\"", 2);
    let why = "the expansion has no `on_decision` handler: nothing would take the answer";
    let err = placing_fails(&mut game, why);
    assert!(err.starts_with("mute: tile_placed: mute/init.luau:2: invalid command: ask player 1 `tip`"), "{err}");
    // Without `on_action`, taking the offer would do nothing: the figure phase does not open.
    let script = "meeple.on(\"figure_actions\", function(view, out)\n\
                  \x20   out:offer(1, { kind = \"none\" }, \"ring the bell\")\n\
                  end)\n";
    let mut game = mod_game("deaf", "", script, "\"U\", \"U\"", 2);
    let err = placing_fails(&mut game, "offers an action but has no `on_action` handler: taking it would do nothing");
    assert!(err.starts_with("deaf: figure_actions: "), "{err}");
}

#[test]
fn a_token_in_a_game_without_tokens_says_where_tokens_are_declared() {
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then out:give_tokens(1, \"gold\", 1) end\n\
                  end)\n";
    let mut game = mod_game("tokenless", "", script, "\"U\", \"U\"", 2);
    let why = "unknown token `gold`: this game has no tokens (an expansion declares its own in its expansion.toml, \
               as `[[tokens]]`)";
    assert_eq!(placing_fails(&mut game, why), format!("tokenless: tile_placed: tokenless/init.luau:2: {why}"));
}

#[test]
fn figures_of_a_kind_are_every_players_wherever_they_are() {
    let manifest = "[[figures]]\nid = \"lantern\"\nper_player = 1\nstands_on = [\"city\"]\n";
    let script = "meeple.on(\"figure_placed\", function(view, event, out)\n\
                  \x20   local lanterns = view:figures_of_kind(\"lantern\")\n\
                  \x20   for _, f in lanterns do\n\
                  \x20       if f.kind ~= \"kinds:lantern\" then error(`a {f.kind} among the lanterns`) end\n\
                  \x20   end\n\
                  \x20   local on_board = 0\n\
                  \x20   for _, f in view:figures_of_kind(\"meeple\") do\n\
                  \x20       if f.at.kind == \"segment\" then on_board += 1 end\n\
                  \x20   end\n\
                  \x20   out:add_points(event.player, #lanterns * 100 + #view:figures_of_kind(\"meeple\") * 10 + on_board)\n\
                  end)\n";
    let mut game = mod_game("kinds", manifest, script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    game.apply(Action::PlaceFigure { figure: 0, segment: 0, with: None }).unwrap();
    // Two lanterns (one each, both in supply), fourteen meeples, one of them on the board.
    assert_eq!(game.state().score(0), 200 + 140 + 1);
}

#[test]
fn a_worker_thread_keeps_no_vm_of_a_dropped_ruleset() {
    // A pool of workers playing ruleset after ruleset, each loaded and dropped elsewhere.
    let (jobs, inbox) = std::sync::mpsc::channel::<meeple_host::Loaded>();
    let (done, counts) = std::sync::mpsc::channel::<usize>();
    let worker = std::thread::spawn(move || {
        for loaded in inbox {
            let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
            let mut bot = meeple_core::bots::RandomBot::new(1);
            while !game.is_over() {
                let action = meeple_core::bots::Bot::choose(&mut bot, &game);
                game.apply(action).unwrap();
            }
            drop((game, loaded));
            done.send(meeple_host::luau::vms_on_this_thread()).unwrap();
        }
    });
    let config = repo().join("configs/traders-builders.toml");
    let mut held = Vec::new();
    for _ in 0..4 {
        let loaded = meeple_host::load::from_config_file(&config, &[]).unwrap();
        // The main thread holds a handle too, and lets the previous ruleset go.
        held = vec![loaded.rules.clone()];
        jobs.send(loaded).unwrap();
        // One VM: this ruleset's, alive through `held`; none of the rulesets dropped before.
        assert_eq!(counts.recv().unwrap(), 1, "the worker's VMs");
    }
    drop((held, jobs));
    worker.join().unwrap();
}

#[test]
fn what_a_handler_does_to_an_event_is_not_seen_by_a_later_call() {
    // Each handler reads its event against the view and then tries to change it: raw writes
    // over its fields (lazy ones too), a field of its own, a cleared or replaced table. Every
    // attempt that succeeds and every field that reads otherwise than the view is counted in
    // storage: none may, in a whole game.
    let script = r#"
local function count(view, out, key)
    out:set_storage(key, (view:storage(key) or 0) + 1)
end
local function tamper(view, out, e, field)
    local attempts = {
        function() rawset(e, field, "nope") end,
        function() rawset(e, "x", 77) end,
        function() e.mine = 1 end,
        function() e[field] = "nope" end,
        function() table.clear(e) end,
        function() setmetatable(e, nil) end,
    }
    for _, attempt in attempts do
        if pcall(attempt) then count(view, out, "changed") end
    end
end
meeple.on("tile_placed", function(view, event, out)
    count(view, out, "tiles")
    local tile = view:tile(event.index)
    if event.x ~= tile.x or event.tile ~= tile.tile or event.index ~= tile.index then count(view, out, "stale") end
    if rawget(event, "mine") ~= nil or rawget(event, "x") ~= nil then count(view, out, "stale") end
    tamper(view, out, event, "tile")
end)
meeple.on("modify_score", function(view, scoring, out)
    count(view, out, "scorings")
    if scoring.kind ~= view:segment_kind(scoring.feature) or #scoring.points ~= view:players() then
        count(view, out, "stale")
    end
    tamper(view, out, scoring, "points")
end)
"#;
    let root = write_mod("tamperer", &[("init.luau", script)]);
    let loaded = load_mod(&root, "tamperer").unwrap();
    let e = loaded.rules.expansions().iter().position(|x| x.id() == "tamperer").unwrap() as u16;
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(2)).unwrap();
    meeple_tests::play_randomly(&mut game, 2);
    let stored = |key: &str| match game.state().storage(e, key) {
        Some(meeple_core::Value::Int(n)) => *n,
        _ => 0,
    };
    assert!(
        stored("tiles") > 10 && stored("scorings") > 2,
        "{} tiles, {} scorings",
        stored("tiles"),
        stored("scorings")
    );
    assert_eq!((stored("changed"), stored("stale")), (0, 0), "attempts that changed an event, fields read stale");
}

#[test]
fn a_write_to_an_event_is_refused_at_its_line() {
    let named = |how: &str| format!("the tile_placed event cannot be changed ({how}): {INSTEAD_OF_EVENT}");
    for (call, how) in [
        ("event.mine = event.index", "field 'mine'"),
        ("event.x = 3", "field 'x'"),
        ("rawset(event, \"x\", 77)", "field 'x'"),
        ("event.index = 3", "field 'index'"),
        ("event[\"player\"] = 2", "field 'player'"),
        ("table.insert(event, 1)", "table.insert"),
        ("table.clear(event)", "table.clear"),
        ("table.move({ 1 }, 1, 1, 1, event)", "table.move"),
    ] {
        call_fails_at_its_line("event-write", call, &named(how));
    }
    // Caught, the refusal reads the same.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player then out:log(select(2, pcall(function() event.index = 3 end))) end\n\
                  end)\n";
    let mut game = mod_game("event-caught", "", script, "\"U\", \"U\"", 2);
    let events = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let logged =
        events.iter().find_map(|e| if let Event::Log { message, .. } = e { Some(message.clone()) } else { None });
    assert_eq!(logged, Some(format!("event-caught/init.luau:2: {}", named("field 'index'"))));
    // A read-only table the call did not lend is refused as Luau refuses it.
    call_fails_at_its_line("library-write", "string.rep = nil", "attempt to modify a readonly table");
    call_fails_at_its_line("library-rawset", "rawset(string, \"rep\", 1)", "attempt to modify a readonly table");
    let script = "meeple.on(\"modify_score\", function(view, scoring, out)\n\
                  \x20   scoring.mine = true\n\
                  end)\n";
    let root = write_mod("scoring-write", &[("init.luau", script)]);
    let loaded = load_mod(&root, "scoring-write").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(2)).unwrap();
    let mut bot = meeple_core::bots::RandomBot::new(2);
    let err = loop {
        let action = meeple_core::bots::Bot::choose(&mut bot, &game);
        if let Err(e) = game.apply(action) {
            break e.to_string();
        }
        assert!(!game.is_over(), "nothing was scored");
    };
    assert!(
        err.contains(
            "scoring-write/init.luau:2: modify_score's scoring cannot be changed (field 'mine'): copy what you need \
             into a table of your own; out:set_score(player, points) changes a player's points"
        ),
        "{err}"
    );
}

/// Plays a game with a random bot until an action fails: its error.
fn first_error(game: &mut Game, seed: u64) -> String {
    let mut bot = meeple_core::bots::RandomBot::new(seed);
    loop {
        assert!(!game.is_over(), "no action failed");
        let action = meeple_core::bots::Bot::choose(&mut bot, game);
        if let Err(e) = game.apply(action) {
            return e.to_string();
        }
    }
}

#[test]
fn a_list_of_a_scoring_or_an_event_cannot_be_changed() {
    // A list is made for the read: a write to it would change no points, silently.
    let scoring = |how: &str, list: &str| {
        format!("`{list}` of modify_score's scoring cannot be changed ({how}): {INSTEAD_OF_SCORING}")
    };
    for (hook, call, needle) in [
        ("modify_score", "scoring.points[1] = 9", scoring("points[1]", "points")),
        ("modify_score", "scoring.points[1] += 9", scoring("points[1]", "points")),
        ("modify_score", "table.insert(scoring.cities, 1)", scoring("table.insert", "cities")),
        ("modify_score", "rawset(scoring.strength, 1, 0)", scoring("field '1'", "strength")),
        (
            "feature_scored",
            "scoring.points[1] = 9",
            format!("`points` of the feature_scored event cannot be changed (points[1]): {INSTEAD_OF_EVENT}"),
        ),
    ] {
        let name = format!("list-write-{}", hook.len() + call.len());
        let script = format!("meeple.on(\"{hook}\", function(view, scoring, out)\n    {call}\nend)\n");
        let root = write_mod(&name, &[("init.luau", &script)]);
        let loaded = load_mod(&root, &name).unwrap();
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(2)).unwrap();
        let err = first_error(&mut game, 2);
        assert!(err.contains(&format!("{name}/init.luau:2: {needle}")), "{call}: {err}");
    }
    // A copy is the script's own.
    let script = "meeple.on(\"modify_score\", function(view, scoring, out)\n\
                  \x20   local p = table.clone(scoring.points)\n\
                  \x20   p[1] += 1\n\
                  \x20   table.insert(p, 0)\n\
                  end)\n";
    let root = write_mod("list-copy", &[("init.luau", script)]);
    let loaded = load_mod(&root, "list-copy").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(2)).unwrap();
    meeple_tests::play_randomly(&mut game, 2);
    assert!(game.is_over());
}

#[test]
fn the_candidate_list_and_its_candidates_cannot_be_changed() {
    let list = |how: &str| format!("the candidate list cannot be changed ({how}): {INSTEAD_OF_CANDIDATES}");
    let one = |how: &str| format!("a candidate cannot be changed ({how}): {INSTEAD_OF_CANDIDATES}");
    for (call, needle) in [
        ("table.insert(candidates, { x = 0, y = 0, rotation = 0 })", list("table.insert")),
        ("rawset(candidates, 1, {})", list("field '1'")),
        ("table.remove(candidates)", list("table.remove")),
        ("table.sort(candidates, function(a, b) return a.x < b.x end)", list("table.sort")),
        ("candidates[#candidates + 1] = {}", "the candidate list cannot be changed (field '".to_string()),
        ("candidates[1].x = 99", one("field 'x'")),
        ("candidates[1].mine = true", one("field 'mine'")),
        ("rawset(candidates[1], \"y\", 1)", one("field 'y'")),
        ("setmetatable(candidates[1], nil)", one("setmetatable")),
    ] {
        let name = "candidates";
        let script = format!("meeple.on(\"can_place_tile\", function(view, tile, candidates, out)\n    {call}\nend)\n");
        let root = write_mod(name, &[("init.luau", &script)]);
        let loaded = load_mod(&root, name).unwrap();
        // The first tile is drawn, and its candidates asked about, as the game starts.
        let err = match Game::new(loaded.rules.clone(), loaded.setup(1)) {
            Ok(_) => panic!("{call}: the game started"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(&format!("{name}/init.luau:2: {needle}")), "{call}: {err}");
    }
    // A copy of a candidate is the script's own: it takes fields, new and old.
    let script = "meeple.on(\"can_place_tile\", function(view, tile, candidates, out)\n\
                  \x20   local c = table.clone(candidates[1])\n\
                  \x20   c.mine, c.x = true, c.x + 1\n\
                  \x20   if not (c.mine and c.x == candidates[1].x + 1) then out:forbid(1) end\n\
                  end)\n";
    let root = write_mod("copies", &[("init.luau", script)]);
    let loaded = load_mod(&root, "copies").unwrap();
    let game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap_or_else(|e| panic!("{e}"));
    assert!(game.legal_actions().len() > 1, "no candidate was forbidden");
}

#[test]
fn an_error_caught_with_pcall_reads_as_the_hook_error_would() {
    // Errors of API functions made through mlua, of the view's C functions and of Luau itself:
    // caught with pcall or xpcall, each is the one line `file:line: message` that the hook's
    // error would report, not mlua's "runtime error: …" with a traceback.
    for call in [
        "local k = meeple.tile(\"base:ZZ\")",
        "local p = view:points(1, \"bogus\")",
        "out:add_points(7, 1)",
        "out:set_storage(\"k\", 1.5)",
        "out:give_tokens(1, {}, 1)",
        "local f = view:feature_id(99999)",
        "local s = view:supply(1, \"dragon\")",
        "local n = nil + 1",
    ] {
        let script = |line: &str| {
            format!(
                "meeple.on(\"tile_placed\", function(view, event, out)\n    if event.player then {line} end\nend)\n"
            )
        };
        let mut game = mod_game("caught", "", &script(call), "\"U\", \"U\"", 2);
        let err = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap_err();
        let ActionError::Hook(e) = &err else { panic!("{call}: expected a hook error, got {err}") };
        let expected = format!("{}: {}", e.location.as_deref().unwrap_or("?"), e.message);
        assert!(expected.starts_with("caught/init.luau:2: "), "{call}: {expected}");
        for caught in [
            format!("local ok, e = pcall(function() {call} end) out:log(tostring(e))"),
            format!("local ok, e = xpcall(function() {call} end, function(e) return e end) out:log(tostring(e))"),
        ] {
            let mut game = mod_game("caught", "", &script(&caught), "\"U\", \"U\"", 2);
            let events = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
            let logged: Vec<&str> = events
                .iter()
                .filter_map(|e| if let Event::Log { message, .. } = e { Some(message.as_str()) } else { None })
                .collect();
            assert_eq!(logged, [expected.as_str()], "{caught}");
        }
    }
}

#[test]
fn a_feature_tells_the_tags_of_its_segments() {
    // A straight road with an inn, as a mod of Inns & Cathedrals would mark it.
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n    \
                  local road = view:segments(event.index)[1].seg\n    \
                  local tags = view:feature_tags(road)\n    \
                  out:log(`inns {tags.inn or 0} river {tags.river or 0}`)\nend)\n";
    let manifest = "depends = [\"base\"]\n[editions.default]\ntileset = \"tiles.toml\"\n";
    let root = meeple_tests::write_mods("inns", &[("inns", manifest, script)]);
    let tiles = "[tileset]\nid = \"inns\"\nname = \"Inns\"\n\n[[tiles]]\nid = \"inn\"\n\
                 name = \"straight road with an inn\"\ncount = 2\nsides = \"FRFR\"\nsegments = [\n  \
                 { id = \"road\", kind = \"road\", ends = [\"W\", \"E\"], tags = [\"inn\"] },\n  \
                 { id = \"north\", kind = \"field\", halves = [\"WR\", \"NL\", \"NR\", \"EL\"] },\n  \
                 { id = \"south\", kind = \"field\", halves = [\"ER\", \"SL\", \"SR\", \"WL\"] },\n]\n";
    std::fs::write(root.join("inns/tiles.toml"), tiles).unwrap();
    let config = "players = 2\ndraw = [\"inns:inn\", \"inns:inn\", \"U\"]\n[[expansions]]\nid = \"inns\"\n";
    let config = meeple_host::GameConfig::parse("t.toml", config).unwrap();
    let loaded = meeple_host::load::from_config_with(&config, &[root], &meeple_tests::TestCode).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(1)).unwrap();
    let mut logged = Vec::new();
    // East of the start tile's road, then further east, then a plain road west of it.
    for x in [1, 2, -1] {
        let events = game.apply(Action::PlaceTile { pos: Pos::new(x, 0), rotation: Rotation::new(0) }).unwrap();
        logged.extend(events.iter().filter_map(|e| match e {
            Event::Log { message, .. } => Some(message.clone()),
            _ => None,
        }));
        game.apply(Action::Pass).unwrap();
    }
    assert_eq!(logged, ["inns 1 river 0", "inns 2 river 0", "inns 2 river 0"]);
}

#[test]
fn a_segment_reads_the_same_from_the_board_and_from_its_tile_kind() {
    // Segment ids relative to the tile's first (1 for its first segment), so that the board's
    // records and the tile kind's read alike.
    let script = "local function show(s, first)\n\
                  \x20   local function rel(list)\n\
                  \x20       local out = {}\n\
                  \x20       for _, c in list do table.insert(out, tostring(c - first + 1)) end\n\
                  \x20       return table.concat(out, \",\")\n\
                  \x20   end\n\
                  \x20   return `{s.index} {s.id} {s.kind} arms={s.arms} goods={s.goods or \"-\"} tags={table.concat(s.tags, \",\")} \
                  ends={table.concat(s.ends, \",\")} sides={table.concat(s.sides, \",\")} cities={rel(s.cities)} \
                  field={if s.field then s.field - first + 1 else \"-\"} flanks={rel(s.flanks)}`\n\
                  end\n\
                  meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player == nil then return end -- the start tile\n\
                  \x20   local ids = view:segment_ids(event.index)\n\
                  \x20   local board, kind = view:segments(event.index), meeple.tile(event.tile).segments\n\
                  \x20   for i, s in board do\n\
                  \x20       assert(s.seg == ids[i] and s.tile == event.index and view:segment(ids[i]).id == s.id)\n\
                  \x20       out:log(show(s, ids[1]) .. \" | \" .. show(kind[i], 1))\n\
                  \x20   end\n\
                  \x20   for _, key in { \"base:A\", \"base:D\" } do\n\
                  \x20       for _, s in meeple.tile(key).segments do\n\
                  \x20           assert(rawget(s, \"seg\") == nil and rawget(s, \"tile\") == nil, \"on no board\")\n\
                  \x20           out:log(key .. \" \" .. show(s, 1))\n\
                  \x20       end\n\
                  \x20   end\n\
                  end)\n";
    let mut game = mod_game("segments", "", script, "\"U-garden\", \"U\"", 2);
    let events = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let logged: Vec<&str> = events
        .iter()
        .filter_map(|e| if let Event::Log { message, .. } = e { Some(message.as_str()) } else { None })
        .collect();
    let (kinds, logged): (Vec<&str>, Vec<&str>) = logged.into_iter().partition(|l| l.starts_with("base:"));
    let lines: Vec<(&str, &str)> = logged.iter().map(|l| l.split_once(" | ").unwrap()).collect();
    assert!(lines.iter().all(|(board, kind)| board == kind), "{logged:#?}");
    let board: Vec<&str> = lines.iter().map(|(b, _)| *b).collect();
    // U-garden: a road west–east, the fields north and south of it, a garden in the north one
    // beside the road.
    assert_eq!(
        board,
        [
            "1 road road arms=0 goods=- tags= ends=W,E sides=W,E cities= field=- flanks=",
            "2 north field arms=0 goods=- tags= ends= sides= cities= field=- flanks=",
            "3 south field arms=0 goods=- tags= ends= sides= cities= field=- flanks=",
            "4 garden garden arms=0 goods=- tags= ends= sides= cities= field=2 flanks=1",
        ],
        "{logged:#?}"
    );
    // A: a road from the south stopping at the monastery; D: the field north of the road
    // touches the city.
    assert_eq!(
        kinds,
        [
            "base:A 1 monastery monastery arms=0 goods=- tags= ends= sides= cities= field=- flanks=",
            "base:A 2 road road arms=0 goods=- tags= ends=S,monastery sides=S cities= field=- flanks=",
            "base:A 3 field field arms=0 goods=- tags= ends= sides= cities= field=- flanks=",
            "base:D 1 city city arms=0 goods=- tags= ends= sides=N cities= field=- flanks=",
            "base:D 2 road road arms=0 goods=- tags= ends=W,E sides=W,E cities= field=- flanks=",
            "base:D 3 north field arms=0 goods=- tags= ends= sides= cities=1 field=- flanks=",
            "base:D 4 south field arms=0 goods=- tags= ends= sides= cities= field=- flanks=",
        ]
    );
}

#[test]
fn an_action_not_on_offer_is_refused_naming_the_offers_that_are() {
    let script = "meeple.on(\"figure_actions\", function(view, out)\n\
                  \x20   out:offer(1, { kind = \"none\" }, \"ring the bell\")\n\
                  end)\n\
                  meeple.on(\"on_action\", function(view, offer, out) end)\n";
    let mut game = mod_game("bell", "", script, "\"U\", \"U\"", 2);
    game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let bell = game.rules().expansions().iter().position(|x| x.id() == "bell").unwrap() as u16;
    let before = game.state().hash();
    let wrong = Action::Expansion { expansion: bell, code: 2, target: meeple_core::action::Target::None };
    let err = game.apply(wrong).unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal action: `bell` offers no action 2 on that target now (open: action 1 of `bell` (ring the bell))"
    );
    assert_eq!(game.state().hash(), before, "the game is as it was");
}

#[test]
fn a_figure_is_found_by_its_id() {
    let script = "meeple.on(\"tile_placed\", function(view, event, out)\n\
                  \x20   if event.player == nil then return end -- the start tile\n\
                  \x20   local last = view:figures()[#view:figures()]\n\
                  \x20   local found = view:figure(last.id)\n\
                  \x20   out:log(`{found.id} {found.kind} {found.owner} {found.at.kind} {view:figure(last.id + 1) == nil}`)\n\
                  end)\n";
    let mut game = mod_game("finder", "", script, "\"U\", \"U\"", 2);
    let events = game.apply(Action::PlaceTile { pos: Pos::new(1, 0), rotation: Rotation::new(0) }).unwrap();
    let logged =
        events.iter().find_map(|e| if let Event::Log { message, .. } = e { Some(message.clone()) } else { None });
    // Seven meeples each, all in their supplies: the last is player 2's fourteenth figure.
    assert_eq!(logged.as_deref(), Some("13 meeple 2 supply true"));
}
