//! Protocol v1 conformance: every command and every error code, through a session as a client
//! sees it (JSON in, JSON out). After any bad request the session and its games go on.

use meeple_protocol::Session;
use serde_json::{Value, json};

fn session() -> Session {
    Session::new(meeple_tests::test_mods())
}

fn ok(s: &mut Session, request: Value) -> Value {
    let reply = s.handle(&request);
    assert_eq!(reply["ok"], json!(true), "{request} → {reply}");
    assert_eq!(reply["id"], request.get("id").cloned().unwrap_or(Value::Null), "the id is echoed");
    reply["result"].clone()
}

fn err(s: &mut Session, request: Value, code: &str, field: Option<&str>) -> Value {
    let reply = s.handle(&request);
    assert_eq!(reply["ok"], json!(false), "{request} → {reply}");
    assert_eq!(reply["error"]["code"], json!(code), "{request} → {reply}");
    assert_eq!(reply["error"]["field"], json!(field), "{request} → {reply}");
    assert!(!reply["error"]["message"].as_str().unwrap_or("").is_empty());
    reply
}

/// A state without its `seq`, which every step moves on (an undo too).
fn without_seq(state: &Value) -> Value {
    let mut state = state.clone();
    state.as_object_mut().expect("a state").remove("seq");
    state
}

const TB: &str = "players = [\"Ann\", \"Ben\"]\nseed = 5\n[[expansions]]\nid = \"traders-builders\"\n";

#[test]
fn version_and_installed_expansions() {
    let mut s = session();
    assert_eq!(ok(&mut s, json!({"id": 1, "cmd": "version"}))["protocol"], json!(1));
    let list = ok(&mut s, json!({"cmd": "expansions"}));
    let tb = list["expansions"].as_array().unwrap().iter().find(|e| e["id"] == "traders-builders").unwrap().clone();
    assert_eq!(tb["editions"], json!(["C1", "C1-revised", "C2", "C3", "C3.1"]));
    let option = tb["options"].as_array().unwrap().iter().find(|o| o["name"] == "goods_scoring").unwrap().clone();
    assert_eq!(option["default"], json!("majority"));
    // Each edition's tiles, as a config's `tiles` names them: another edition's with 0.
    let tile = |edition: &str, id: &str| {
        let tiles = tb["tiles"][edition].as_array().unwrap();
        tiles.iter().find(|t| t["id"] == id).cloned().unwrap_or_else(|| panic!("{id} in {edition}"))
    };
    assert_eq!((tile("C3", "A-cowshed")["count"].clone(), tile("C3", "A")["count"].clone()), (json!(1), json!(0)));
    assert_eq!((tile("C1", "A-cowshed")["count"].clone(), tile("C1", "A")["count"].clone()), (json!(0), json!(1)));
    assert_eq!(tile("C3", "A")["tileset"], json!("traders-builders"));
    let tk = list["expansions"].as_array().unwrap().iter().find(|e| e["id"] == "tollkeepers").unwrap().clone();
    assert_eq!(tk["editions"], json!(["C2", "C3"]));
}

#[test]
fn a_game_is_created_inline_or_from_a_file_and_shows_its_state() {
    let mut s = session();
    let created = ok(&mut s, json!({"id": "a", "cmd": "create", "config": TB}));
    assert_eq!(created["game"], json!("g1"));
    let state = &created["state"];
    assert_eq!(state["players"][0]["name"], json!("Ann"));
    assert_eq!(state["board"][0]["tile"], json!("base:D"), "the start tile");
    assert_eq!(state["turn"]["stage"], json!("place-tile"));
    assert_eq!(state["turn"]["tiles_left"], json!(71 + 24 - 1), "base and T&B tiles, one drawn");
    assert!(state.get("bag").is_none() && !state.to_string().contains("\"bag\""), "the draw order stays hidden");
    let legal = state["legal"].as_array().unwrap();
    assert!(!legal.is_empty());
    assert_eq!(legal[0]["index"], json!(0));
    assert_eq!(legal[0]["action"]["type"], json!("place-tile"));
    assert!(legal[0]["text"].as_str().unwrap().starts_with("place "));

    let path = meeple_tests::repo().join("configs/traders-builders-tollkeepers.toml");
    let from_file = ok(&mut s, json!({"cmd": "create", "path": path, "seed": 9}));
    assert_eq!(from_file["game"], json!("g2"));
    let seeded = ok(&mut s, json!({"cmd": "create", "config": "players = 2\nseed = 3\n", "seed": 9}));
    let saved = ok(&mut s, json!({"cmd": "save", "game": seeded["game"]}));
    assert_eq!(saved["replay"]["setup"]["seed"], json!(9), "a seed given with `create` wins over the config's");
    assert_eq!(from_file["state"]["players"].as_array().unwrap().len(), 3);
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"]["game"], json!("g1"));
    assert_eq!(from_file["warnings"], json!([]));

    // Editions not made for each other are played, and said so, by `create` and by `load`.
    let c1 = "players = 2
[base]
edition = \"C1\"
[[expansions]]
id = \"tollkeepers\"
";
    let mixed = ok(&mut s, json!({"cmd": "create", "config": c1}));
    let warned = mixed["warnings"].as_array().unwrap();
    assert_eq!(warned.len(), 1, "{mixed}");
    assert!(warned[0].as_str().unwrap().starts_with("The Tollkeepers C3 is made for Carcassonne C2 or C3, not C1: "));
    let saved = ok(&mut s, json!({"cmd": "save", "game": mixed["game"]}));
    assert_eq!(ok(&mut s, json!({"cmd": "load", "replay": saved["replay"]}))["warnings"], mixed["warnings"]);
}

#[test]
fn a_whole_game_is_played_by_index_and_scored() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let mut state = ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"].clone();
    let mut turns = 0;
    while state["over"] == json!(false) {
        assert!(state.get("winners").is_none(), "no winners before the end: {state}");
        let n = state["legal"].as_array().unwrap().len() as u64;
        let seat = state["to_act"].clone();
        let reply = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": (turns * 7) % n, "player": seat}));
        state = reply["state"].clone();
        turns += 1;
    }
    assert!(state["legal"].as_array().unwrap().is_empty());
    // Over is over, whoever asks: nobody's action is legal, and no seat is blamed.
    let pass = json!({"type": "pass"});
    err(&mut s, json!({"cmd": "act", "game": "g1", "action": pass, "player": 0}), "illegal-action", Some("action"));
    let by_index =
        err(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "player": 1}), "illegal-action", Some("index"));
    assert_eq!(by_index["error"]["message"], json!("the game is over"), "{by_index}");
    let undo = err(&mut s, json!({"cmd": "undo", "game": "g1"}), "nothing-to-undo", Some("game"));
    assert!(undo["error"]["message"].as_str().unwrap().contains("the game is over"), "{undo}");
    // A field given as null is not given, even one the command does not take.
    ok(&mut s, json!({"cmd": "version", "game": null}));
    let total: i64 = state["players"][0]["breakdown"].as_object().unwrap().values().map(|v| v.as_i64().unwrap()).sum();
    assert_eq!(json!(total), state["players"][0]["score"], "the breakdown adds up to the score");
    // The winners are the seats with the best score, every one of them on a tie.
    let scores: Vec<i64> = (0..2).map(|p| state["players"][p]["score"].as_i64().unwrap()).collect();
    let best = *scores.iter().max().unwrap();
    let winners: Vec<usize> = (0..2).filter(|&p| scores[p] == best).collect();
    assert_eq!(state["winners"], json!(winners), "{scores:?}");
    assert_eq!(state["scores"], json!(scores), "the scores are the players'");
    let saved = ok(&mut s, json!({"cmd": "save", "game": "g1"}));
    let verified = ok(&mut s, json!({"cmd": "verify", "replay": saved["replay"]}));
    assert_eq!(verified["scores"], json!([state["players"][0]["score"], state["players"][1]["score"]]));
    let loaded = ok(&mut s, json!({"cmd": "load", "replay": saved["replay"]}));
    assert_eq!(loaded["state"]["players"], state["players"], "the loaded game is the same game");
    assert_eq!(loaded["state"]["over"], json!(true));
    ok(&mut s, json!({"cmd": "close", "game": "g1"}));
    err(&mut s, json!({"cmd": "state", "game": "g1"}), "unknown-game", Some("game"));
}

#[test]
fn an_unknown_field_of_an_action_is_told_as_a_commands_is() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create"}));
    let action = json!({"type": "place-tile", "pos": {"x": 1, "y": 0}, "rotation": 0, "foo": 1});
    let reply = err(&mut s, json!({"cmd": "act", "game": "g1", "action": action}), "bad-request", Some("action.foo"));
    assert_eq!(reply["error"]["message"], json!("unknown field `foo`; expected one of: pos, rotation"));
    let command = err(&mut s, json!({"cmd": "state", "game": "g1", "foo": 1}), "bad-request", Some("foo"));
    assert!(
        command["error"]["message"].as_str().unwrap().starts_with("unknown field `foo` for `state`; expected one of: ")
    );
}

#[test]
fn names_tell_the_rules_played_every_option_with_its_value() {
    let mut s = session();
    let config = format!("{TB}edition = \"C2\"\noptions = {{ goods_scoring = \"kissybooboo\" }}\n");
    ok(&mut s, json!({"cmd": "create", "config": config}));
    let played = ok(&mut s, json!({"cmd": "names", "game": "g1"}))["names"]["played"].clone();
    assert_eq!(
        played[0],
        json!({"id": "base", "edition": "C3", "options": {"meeples": 7, "phase2_alternatives_exclusive": true}})
    );
    assert_eq!((&played[1]["id"], &played[1]["edition"]), (&json!("traders-builders"), &json!("C2")));
    // The one set, and the defaults of the others.
    assert_eq!(played[1]["options"]["goods_scoring"], json!("kissybooboo"));
    assert_eq!(played[1]["options"]["pig_ties_count"], json!(true));
    // A copy plays the same rules, and says so.
    let fork = ok(&mut s, json!({"cmd": "fork", "game": "g1", "reseed": 3}))["game"].clone();
    assert_eq!(ok(&mut s, json!({"cmd": "names", "game": fork}))["names"]["played"], played);
}

#[test]
fn the_unseen_tiles_are_the_box_less_the_tiles_drawn() {
    // Counted from the tiles drawn (placed, discarded, in hand), as a player counts them, the
    // unseen tiles are what the box holds besides; their number is `tiles_left`.
    let mut s = session();
    let names = |s: &mut Session| ok(s, json!({"cmd": "names", "game": "g1"}))["names"].clone();
    let mut state = ok(&mut s, json!({"cmd": "create", "config": TB}))["state"].clone();
    let tiles = names(&mut s)["tiles"].clone();
    let key = |t: &Value| tiles[t.as_u64().unwrap() as usize]["tile"].as_str().unwrap().to_string();
    let count = |unseen: &Value| unseen.as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum::<u64>();
    let first = state["unseen"].clone();
    assert_eq!(json!(count(&first)), state["turn"]["tiles_left"], "{first}");
    let mut drawn: std::collections::BTreeMap<String, u64> = Default::default();
    let mut turns = 0;
    while state["over"] == json!(false) && turns < 60 {
        let reply = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
        for e in reply["events"].as_array().unwrap() {
            if e["event"] == json!("tile-drawn") {
                *drawn.entry(key(&e["tile"])).or_default() += 1;
            }
        }
        state = reply["state"].clone();
        turns += 1;
    }
    let unseen = &state["unseen"];
    assert_eq!(json!(count(unseen)), state["turn"]["tiles_left"]);
    assert!(!drawn.is_empty());
    for (kind, n) in first.as_object().unwrap() {
        let now = unseen.get(kind).map_or(0, |n| n.as_u64().unwrap());
        let taken = drawn.get(kind).copied().unwrap_or(0);
        assert_eq!(n.as_u64().unwrap(), now + taken, "{kind}: unseen at first = unseen now + drawn since");
    }
}

#[test]
fn a_state_lists_the_held_features_or_with_all_features_every_one() {
    let mut s = session();
    let config = "players = 2\ndraw = [\"base:U\", \"base:E\"]\n";
    let created = ok(&mut s, json!({"cmd": "create", "config": config}))["state"].clone();
    assert_eq!(created["features"], json!([]), "nothing is completed or held yet");
    let all = json!({"cmd": "state", "game": "g1", "all_features": true});
    let state = ok(&mut s, all.clone())["state"].clone();
    // The start tile (base D: a city cap north, a road west to east): open and empty, all listed.
    let brief = |f: &Value| (f["kind"].clone(), f["tiles"].clone(), f["open"].clone(), f["figures"].clone());
    let start: Vec<_> = state["features"].as_array().unwrap().iter().map(brief).collect();
    let (one, none) = (json!(1), json!([]));
    assert_eq!(
        start,
        [
            (json!("city"), one.clone(), json!(1), none.clone()),
            (json!("road"), one.clone(), json!(2), none.clone()),
            (json!("field"), one.clone(), json!(0), none.clone()),
            (json!("field"), one, json!(0), none),
        ]
    );

    // A straight road east of it, then Ann's meeple on the road: two tiles, both ends still open.
    let east = json!({"type": "place-tile", "pos": {"x": 1, "y": 0}, "rotation": 0});
    ok(&mut s, json!({"cmd": "act", "game": "g1", "action": east}));
    let act = json!({"cmd": "act", "game": "g1", "action": {"type": "place-figure", "figure": 0, "segment": 0}});
    let after = ok(&mut s, act)["state"].clone();
    let held = after["features"].as_array().unwrap();
    assert_eq!(held.len(), 1, "only the road holds a figure: {held:?}");
    assert_eq!(brief(&held[0]), (json!("road"), json!(2), json!(2), json!([0])), "{}", held[0]);
    assert_eq!(after["figures"][0]["id"], json!(0), "the id `figures` lists it under");
    assert_eq!(held[0]["parts"], json!([[{"x": 1, "y": 0}, "road"], [{"x": 0, "y": 0}, "road"]]));
    let every = ok(&mut s, all)["state"]["features"].as_array().unwrap().len();
    assert_eq!(every, 4, "the city, the road, and the two fields joined across the new tile");
    let brief_state = ok(&mut s, json!({"cmd": "state", "game": "g1", "all_features": true, "brief": true}));
    assert!(brief_state["state"].get("features").is_none(), "a brief state has no features");
}

#[test]
fn actions_are_taken_as_given_and_undone_back_to_the_draw() {
    let mut s = session();
    let state = ok(&mut s, json!({"cmd": "create", "config": TB}))["state"].clone();
    let place = state["legal"][0]["action"].clone();
    let placed = ok(&mut s, json!({"cmd": "act", "game": "g1", "action": place}));
    assert_eq!(placed["events"][0]["event"], json!("tile-placed"));
    assert_eq!(placed["state"]["turn"]["stage"], json!("figure"));
    assert_eq!(placed["state"]["board"].as_array().unwrap().len(), 2);
    assert!(state.get("undo").is_none(), "nothing to take back at the start: {state}");
    assert_eq!(placed["state"]["undo"], json!(0), "seat 0's placement can be taken back");

    // An undo may name the step it means, as an action may: one seen before is stale.
    err(&mut s, json!({"cmd": "undo", "game": "g1", "seq": 0}), "stale", Some("seq"));
    let undone = ok(&mut s, json!({"cmd": "undo", "game": "g1", "seq": 1}));
    assert_eq!(without_seq(&undone["state"]), without_seq(&state), "back to the state before the placement");
    assert_eq!((&state["seq"], &undone["state"]["seq"]), (&json!(0), &json!(2)), "two steps later");
    err(&mut s, json!({"cmd": "undo", "game": "g1"}), "nothing-to-undo", Some("game"));

    // Placing again and passing ends the turn: the next tile is drawn and undo stops there.
    ok(&mut s, json!({"cmd": "act", "game": "g1", "action": place}));
    let passed = ok(&mut s, json!({"cmd": "act", "game": "g1", "action": {"type": "pass"}}));
    assert_eq!(passed["state"]["turn"]["number"], json!(2));
    assert!(passed["state"].get("undo").is_none(), "the pass drew a tile: {}", passed["state"]);
    err(&mut s, json!({"cmd": "undo", "game": "g1"}), "nothing-to-undo", Some("game"));

    // A game of one tile: placing it leaves something to undo, passing ends the game, and a game
    // that is over has nothing to undo.
    let one = ok(&mut s, json!({"cmd": "create", "config": "players = 2\nseed = 2\ntile_limit = 1\n"}));
    let game = one["game"].clone();
    let placed = ok(&mut s, json!({"cmd": "act", "game": game, "index": 0}));
    assert_eq!(placed["state"]["undo"], json!(0), "{}", placed["state"]);
    let over = ok(&mut s, json!({"cmd": "act", "game": game, "action": {"type": "pass"}}));
    assert_eq!(over["state"]["over"], json!(true));
    assert!(over["state"].get("undo").is_none(), "{}", over["state"]);
}

#[test]
fn brief_states_leave_out_the_table_and_the_descriptions() {
    let mut s = session();
    let full = ok(&mut s, json!({"cmd": "create", "config": TB}))["state"].clone();
    let brief = ok(&mut s, json!({"cmd": "state", "game": "g1", "brief": true}))["state"].clone();
    for gone in ["players", "board", "features", "figures", "unseen"] {
        assert!(brief.get(gone).is_none(), "no `{gone}` in a brief state");
    }
    assert_eq!((&brief["turn"], &brief["to_act"], &brief["over"]), (&full["turn"], &full["to_act"], &full["over"]));
    let scores: Vec<Value> = full["players"].as_array().unwrap().iter().map(|p| p["score"].clone()).collect();
    assert_eq!((&brief["scores"], &full["scores"]), (&json!(scores), &json!(scores)), "scores in both");
    let (b, f) = (brief["legal"].as_array().unwrap(), full["legal"].as_array().unwrap());
    assert_eq!(b.len(), f.len());
    for (b, f) in b.iter().zip(f) {
        assert_eq!(b["action"], f["action"]);
        assert!(b.get("info").is_none() && b.get("text").is_none());
    }
    let acted = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "brief": true}));
    assert!(acted["state"].get("board").is_none() && acted["events"].as_array().is_some());
    let undone = ok(&mut s, json!({"cmd": "undo", "game": "g1", "brief": true}));
    assert_eq!(without_seq(&undone["state"]), without_seq(&brief), "undo back to the same brief state");
}

#[test]
fn a_brief_state_keeps_the_words_of_an_expansions_offers() {
    let mut s = session();
    let config = "players = 2\nseed = 4\n[[expansions]]\nid = \"tollkeepers\"\n";
    ok(&mut s, json!({"cmd": "create", "config": config}));
    for _ in 0..200 {
        let brief = ok(&mut s, json!({"cmd": "state", "game": "g1", "brief": true}))["state"].clone();
        let full = ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"].clone();
        let offers: Vec<(&Value, &Value)> = brief["legal"]
            .as_array()
            .unwrap()
            .iter()
            .zip(full["legal"].as_array().unwrap())
            .filter(|(b, _)| b["action"]["type"] == "expansion")
            .collect();
        if let Some((b, f)) = offers.first() {
            // The Tollkeepers offers its tollhouse: worded as in the whole state, without `info`.
            assert_eq!(b["text"], f["text"]);
            assert!(b["text"].as_str().unwrap().contains("tollhouse"), "{b}");
            assert!(b.get("info").is_none(), "{b}");
            let others = brief["legal"].as_array().unwrap().iter().filter(|a| a["action"]["type"] != "expansion");
            assert!(others.clone().count() > 0 && others.clone().all(|a| a.get("text").is_none()), "{brief}");
            return;
        }
        ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    }
    panic!("no offer of The Tollkeepers in 200 actions");
}

#[test]
fn every_bad_request_gets_its_code_and_changes_nothing() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));

    assert_eq!(serde_json::from_str::<Value>(&s.handle_line("{not json")).unwrap()["error"]["code"], json!("bad-json"));
    // As `meeple serve --stdio` reads them: bytes that are not UTF-8, alone or inside a string.
    for line in [&b"\xff"[..], &b"{\"cmd\":\"version\",\"id\":\"\xc3\x28\"}"[..]] {
        let reply: Value = serde_json::from_str(&s.handle_bytes(line)).unwrap();
        assert_eq!(reply["error"]["code"], json!("bad-json"), "{reply}");
        assert!(reply["error"]["message"].as_str().unwrap().starts_with("not UTF-8"), "{reply}");
    }
    let version: Value = serde_json::from_str(&s.handle_bytes(br#"{"cmd":"version","id":2}"#)).unwrap();
    assert_eq!((&version["ok"], &version["id"]), (&json!(true), &json!(2)));
    // A byte-order mark before the JSON, as some Windows tools write one, is skipped.
    let version: Value = serde_json::from_str(&s.handle_line("\u{feff}{\"cmd\":\"version\",\"id\":3}")).unwrap();
    assert_eq!((&version["ok"], &version["id"]), (&json!(true), &json!(3)), "{version}");
    err(&mut s, json!([1, 2]), "bad-request", None);
    // Bounded in values, not only in bytes: a parsed value takes far more room than its text.
    let code = |s: &mut Session, request: Value| {
        let reply: Value = serde_json::from_str(&s.handle_line(&request.to_string())).unwrap();
        (reply["error"]["code"].clone(), reply["error"]["field"].clone())
    };
    let many = json!({"cmd": "version", "x": vec![0; meeple_protocol::MAX_VALUES]});
    assert_eq!(code(&mut s, many), (json!("bad-request"), Value::Null), "too many values, not read");
    let commas_in_a_string = json!({"cmd": "version", "x": ",[{".repeat(meeple_protocol::MAX_VALUES)});
    assert_eq!(code(&mut s, commas_in_a_string), (json!("bad-request"), json!("x")), "read: one string");
    err(&mut s, json!({"id": 3}), "bad-request", Some("cmd"));
    err(&mut s, json!({"cmd": 7}), "bad-request", Some("cmd"));
    err(&mut s, json!({"cmd": "teleport"}), "unknown-command", Some("cmd"));
    err(&mut s, json!({"cmd": "state"}), "bad-request", Some("game"));
    err(&mut s, json!({"cmd": "state", "game": "g7"}), "unknown-game", Some("game"));
    let bad = err(
        &mut s,
        json!({"cmd": "create", "config": "players = 2\n[[expansions]]\nid = \"nope\"\n"}),
        "bad-config",
        Some("config"),
    );
    assert!(bad["error"]["message"].as_str().unwrap().contains("nope"), "{bad}");
    err(&mut s, json!({"cmd": "create", "path": "/no/such/config.toml"}), "bad-config", Some("path"));
    let folder = err(&mut s, json!({"cmd": "create", "path": "."}), "bad-config", Some("path"));
    assert_eq!(folder["error"]["message"], json!(".: is a folder, not a file"), "{folder}");
    // A device would never end, a pipe would wait for a writer: neither is opened.
    #[cfg(unix)]
    {
        let device = err(&mut s, json!({"cmd": "create", "path": "/dev/zero"}), "bad-config", Some("path"));
        let why = "/dev/zero: is not a plain file (a device, a pipe or a socket): meeple reads text files";
        assert_eq!(device["error"]["message"], json!(why), "{device}");
    }
    let large = meeple_tests::repo().join("target/test-mods/large-config.toml");
    std::fs::create_dir_all(large.parent().unwrap()).unwrap();
    std::fs::File::create(&large).unwrap().set_len(meeple_host::ruleset::MAX_TEXT_FILE + 1).unwrap();
    let huge = err(&mut s, json!({"cmd": "create", "path": large}), "bad-config", Some("path"));
    let message = huge["error"]["message"].as_str().unwrap();
    assert!(
        message.ends_with("large-config.toml: is larger than 16 MiB: meeple reads text files of at most that"),
        "{huge}"
    );
    let _ = std::fs::remove_file(&large);
    // Replies stay short whatever the request: every problem of 20 000 unknown keys would be a
    // few megabytes, and an unknown field's name is echoed.
    let keys: String = (0..20_000).map(|i| format!("unknown_{i} = 1\n")).collect();
    let many = err(&mut s, json!({"cmd": "create", "config": keys}), "bad-config", Some("config"));
    let message = many["error"]["message"].as_str().unwrap();
    assert!(message.len() <= 16 * 1024, "{} bytes", message.len());
    assert!(message.starts_with("config:1:1: unknown key `unknown_0`"), "{message:.200}");
    let more = message.rsplit_once('\n').unwrap().1;
    assert!(more.starts_with("… and ") && more.ends_with(" more lines"), "{more}");
    let name = "x".repeat(100_000);
    let echoed = s.handle(&json!({"cmd": "version", name.clone(): 1})).to_string();
    assert!(echoed.len() < 20 * 1024 && echoed.contains("\"bad-request\""), "{echoed:.300}");
    assert!(echoed.contains("xxx… (99784 more bytes)\""), "the field cut short: {echoed:.300}");
    let empty = err(&mut s, json!({"cmd": "create", "path": ""}), "bad-request", Some("path"));
    assert_eq!(empty["error"]["message"], json!("expected the path of a config file; got an empty string"));
    err(&mut s, json!({"cmd": "create", "config": 5}), "bad-request", Some("config"));
    err(&mut s, json!({"cmd": "create", "seed": "x"}), "bad-request", Some("seed"));
    // `brief` shapes a state: commands that reply with none refuse it rather than ignore it.
    for cmd in ["save", "names", "close"] {
        let reply = err(&mut s, json!({"cmd": cmd, "game": "g1", "brief": true}), "bad-request", Some("brief"));
        let message = reply["error"]["message"].as_str().unwrap();
        assert_eq!(message, format!("unknown field `brief` for `{cmd}`; expected one of: id, cmd, game"), "{reply}");
    }
    err(&mut s, json!({"cmd": "act", "game": "g1"}), "bad-request", Some("action"));
    err(&mut s, json!({"cmd": "act", "game": "g1", "action": {"type": "fly"}}), "bad-request", Some("action.type"));
    err(
        &mut s,
        json!({"cmd": "act", "game": "g1", "action": {"type": "place-tile", "pos": {"x": "a", "y": 0}, "rotation": 0}}),
        "bad-request",
        Some("action.pos.x"),
    );
    err(&mut s, json!({"cmd": "act", "game": "g1", "action": {"type": "pass"}}), "illegal-action", Some("action"));
    err(&mut s, json!({"cmd": "act", "game": "g1", "index": 100000}), "illegal-action", Some("index"));
    err(&mut s, json!({"cmd": "act", "game": "g1", "index": -1}), "bad-request", Some("index"));
    err(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "player": 1}), "not-your-turn", Some("player"));
    // A seat the game does not have is a bad request, whoever's turn it is.
    let reply =
        err(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "player": 7}), "bad-request", Some("player"));
    assert!(reply["error"]["message"].as_str().unwrap().contains("no seat 7: the game's seats are 0 to 1"), "{reply}");
    err(&mut s, json!({"cmd": "load", "replay": {"format": "x"}}), "bad-request", Some("replay.rng"));
    err(&mut s, json!({"cmd": "verify"}), "bad-request", Some("replay"));
    err(&mut s, json!({"cmd": "state", "game": "g1", "brief": "yes"}), "bad-request", Some("brief"));
    // `null` is "not given", for `brief` as for every optional field.
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1", "brief": null})), before);
    err(&mut s, json!({"cmd": "act", "game": "g1", "index": 100000, "brief": null}), "illegal-action", Some("index"));
    // A misspelt field is refused: ignored, `palyer` would skip the turn check `player` asks for.
    let typo = err(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "palyer": 1}), "bad-request", Some("palyer"));
    assert!(typo["error"]["message"].as_str().unwrap().contains("unknown field `palyer` for `act`"), "{typo}");
    err(&mut s, json!({"cmd": "version", "verbose": true}), "bad-request", Some("verbose"));

    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game is untouched");
}

#[test]
fn a_figure_action_naming_what_the_game_lacks_is_refused_at_that_field() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": "players = [\"Ann\", \"Ben\"]\nseed = 3\n"}));
    // An expansion the game lacks is named before the stage, which would refuse any other action.
    let early = json!({"cmd": "act", "game": "g1", "action": {"type": "expansion", "expansion": 9, "code": 1, "target": {"kind": "none"}}});
    let early = err(&mut s, early, "illegal-action", Some("action.expansion"));
    assert_eq!(early["error"]["message"], "illegal action: no expansion 9: this ruleset has 0");
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let figure = |figure: u8, segment: u8, with: Option<u8>| json!({"cmd": "act", "game": "g1", "action": {"type": "place-figure", "figure": figure, "segment": segment, "with": with}});
    let message = |reply: Value| reply["error"]["message"].as_str().unwrap().to_string();
    let kind = message(err(&mut s, figure(99, 0, None), "illegal-action", Some("action.figure")));
    assert_eq!(kind, "illegal action: no figure kind 99: this ruleset has 0 `meeple`");
    let segment = message(err(&mut s, figure(0, 99, None), "illegal-action", Some("action.segment")));
    assert!(segment.starts_with("illegal action: the placed tile has segments 0 to "), "{segment}");
    let with = message(err(&mut s, figure(0, 0, Some(99)), "illegal-action", Some("action.with")));
    assert_eq!(with, "illegal action: no figure kind 99: this ruleset has 0 `meeple`");
    let offer = json!({"cmd": "act", "game": "g1", "action": {"type": "expansion", "expansion": 9, "code": 1, "target": {"kind": "none"}}});
    let offer = message(err(&mut s, offer, "illegal-action", Some("action.expansion")));
    assert_eq!(offer, "illegal action: no expansion 9: this ruleset has 0");
    // A fault the message does not name is not put on a field: a segment past the tile's, with
    // a `with` that does not exist either, is about the segment.
    let reply = err(&mut s, figure(0, 99, Some(99)), "illegal-action", Some("action.segment"));
    assert!(message(reply).contains("segments 0 to "));
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game is untouched");
}

#[test]
fn a_saved_game_names_the_editions_it_took_by_default() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": {"players": ["Ann", "Ben"], "expansions": [{"id": "tollkeepers"}]}}));
    let replay = ok(&mut s, json!({"cmd": "save", "game": "g1"}))["replay"].clone();
    assert_eq!(replay["config"]["base"]["edition"], json!("C3"), "{replay}");
    assert_eq!(replay["config"]["expansions"][0]["edition"], json!("C3"), "{replay}");
    ok(&mut s, json!({"cmd": "verify", "replay": replay}));
}

#[test]
fn an_action_chosen_from_a_state_the_game_has_left_is_refused() {
    let mut s = session();
    let created = ok(&mut s, json!({"cmd": "create", "config": TB}));
    assert_eq!(created["state"]["seq"], json!(0));
    let placed = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "seq": 0}));
    assert_eq!(placed["state"]["seq"], json!(1));
    // The same index again, from the state before: another action now, so it is refused.
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let stale = err(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "seq": 0}), "stale", Some("seq"));
    let message = stale["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("the game is at step 1, not 0"), "{stale}");
    err(&mut s, json!({"cmd": "act", "game": "g1", "action": {"type": "pass"}, "seq": 0}), "stale", Some("seq"));
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game is untouched");
    // An undo is a step too: the state it brings back is not the one read before the action.
    assert_eq!(ok(&mut s, json!({"cmd": "undo", "game": "g1", "brief": true}))["state"]["seq"], json!(2));
    err(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "seq": 1}), "stale", Some("seq"));
    assert_eq!(ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0, "seq": 2}))["state"]["seq"], json!(3));
    // A loaded game is at its replay's number of actions.
    let replay = ok(&mut s, json!({"cmd": "save", "game": "g1"}))["replay"].clone();
    let loaded = ok(&mut s, json!({"cmd": "load", "replay": replay}));
    assert_eq!(loaded["state"]["seq"], json!(1));
}

/// A state as its game's players see it: without the game's id, which a fork changes.
fn without_id(state: &Value) -> Value {
    let mut state = state.clone();
    state.as_object_mut().expect("a state").remove("game");
    state
}

#[test]
fn a_fork_plays_on_apart_from_its_game_and_a_reseeded_one_draws_anew() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"].clone();
    // A plain copy is the game: the same state, step and legal actions, and the same draws.
    let copy = ok(&mut s, json!({"cmd": "fork", "game": "g1"}));
    assert_eq!((copy["game"].clone(), copy["state"]["game"].clone()), (json!("g2"), json!("g2")));
    assert_eq!(without_id(&copy["state"]), without_id(&before));
    let pass = json!({"type": "pass"});
    let drawn = |s: &mut Session, game: &str| {
        ok(s, json!({"cmd": "act", "game": game, "action": pass}))["state"]["turn"]["tile"].clone()
    };
    assert_eq!(drawn(&mut s, "g2"), drawn(&mut s, "g1"));
    // Playing the copy on leaves the game where it was, and undo takes the copy back too.
    ok(&mut s, json!({"cmd": "act", "game": "g2", "index": 0}));
    ok(&mut s, json!({"cmd": "undo", "game": "g2"}));
    let (g1, g2) =
        (ok(&mut s, json!({"cmd": "state", "game": "g1"})), ok(&mut s, json!({"cmd": "state", "game": "g2"})));
    assert_eq!(without_seq(&without_id(&g2["state"])), without_seq(&without_id(&g1["state"])));
    // Its replay is the game's.
    let replay = ok(&mut s, json!({"cmd": "save", "game": "g2"}))["replay"].clone();
    assert_eq!(ok(&mut s, json!({"cmd": "verify", "replay": replay}))["actions"], json!(2));

    // Reseeded copies show the same game, with the same tiles left to draw, dealt anew: some
    // of them draw another tile next than the game does.
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    let at = ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"].clone();
    let mut copies = Vec::new();
    for seed in 1..=8u64 {
        let forked = ok(&mut s, json!({"cmd": "fork", "game": "g1", "reseed": seed}));
        // Undo does not take a reseeded copy back past the fork: only the game has an action to undo.
        let (mut copy, mut game) = (without_id(&forked["state"]), without_id(&at));
        assert_eq!((copy.as_object_mut().unwrap().remove("undo"), game["undo"].clone()), (None, json!(1)));
        game.as_object_mut().unwrap().remove("undo");
        assert_eq!(copy, game, "seed {seed}");
        copies.push(forked["game"].as_str().unwrap().to_string());
    }
    let next = drawn(&mut s, "g1");
    let tiles: Vec<Value> = copies.iter().map(|g| drawn(&mut s, g)).collect();
    assert!(tiles.iter().any(|t| *t != next), "{next} {tiles:?}");
    // The position's hash left out the draw order: equal until the draws differ, then not.
    let hash = |s: &mut Session, g: &str| ok(s, json!({"cmd": "state", "game": g}))["state"]["hash"].clone();
    for (g, tile) in copies.iter().zip(&tiles) {
        assert_eq!(hash(&mut s, g) == hash(&mut s, "g1"), *tile == next, "{g}");
    }
    let left =
        |s: &mut Session, g: &str| ok(s, json!({"cmd": "state", "game": g}))["state"]["turn"]["tiles_left"].clone();
    assert_eq!(left(&mut s, &copies[0]), left(&mut s, "g1"));
    // Its draws are not its seed's: no replay of it, and no undo back past the fork.
    let refused = err(&mut s, json!({"cmd": "save", "game": copies[0]}), "no-replay", Some("game"));
    assert!(refused["error"]["message"].as_str().unwrap().contains("seed 1"), "{refused}");
    let fresh = ok(&mut s, json!({"cmd": "fork", "game": "g1", "reseed": 9}))["game"].clone();
    let refused = err(&mut s, json!({"cmd": "undo", "game": fresh}), "nothing-to-undo", Some("game"));
    assert!(refused["error"]["message"].as_str().unwrap().contains("the fork"), "{refused}");
    err(&mut s, json!({"cmd": "fork", "game": "g99"}), "unknown-game", Some("game"));
    err(&mut s, json!({"cmd": "fork", "game": "g1", "reseed": -1}), "bad-request", Some("reseed"));
}

#[test]
fn a_playout_plays_copies_to_the_end_as_the_engine_would_and_leaves_the_game() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let played = ok(&mut s, json!({"cmd": "playout", "game": "g1", "count": 3, "reseed": 40, "seed": 7}));
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game does not move");

    // Playout i: the game's copy dealt anew from reseed + i, its random bots seeded from seed + i.
    let loaded = meeple_tests::load_toml("tb", TB).unwrap();
    let mut game = meeple_core::Game::new(loaded.rules.clone(), loaded.setup(5)).unwrap();
    game.apply(game.legal_actions()[0]).unwrap();
    let random = [meeple_core::bots::BotKind::Random];
    let engine = |reseed: Option<u64>, seed: u64| {
        let mut copy = game.clone();
        if let Some(r) = reseed {
            copy.reseed(r);
        }
        meeple_core::bots::play_out(&mut copy, &mut meeple_core::bots::seat_bots(&random, 2, seed)).unwrap();
        assert!(copy.is_over());
        json!(copy.state().scores())
    };
    let scores: Vec<Value> = (0..3).map(|i| engine(Some(40 + i), 7 + i)).collect();
    assert_eq!(played["scores"], json!(scores));
    // On three threads, the same playouts in the same order.
    let threaded = json!({"cmd": "playout", "game": "g1", "count": 3, "reseed": 40, "seed": 7, "threads": 3});
    assert_eq!(ok(&mut s, threaded), played);
    assert_ne!(scores[0], scores[1], "each playout deals and plays anew");
    // The wins (a shared first place counts for each) and means are those of the scores.
    let (a, b): (Vec<i64>, Vec<i64>) = scores.iter().map(|s| (s[0].as_i64().unwrap(), s[1].as_i64().unwrap())).unzip();
    let wins = [a.iter().zip(&b).filter(|(a, b)| a >= b).count(), a.iter().zip(&b).filter(|(a, b)| b >= a).count()];
    assert_eq!(played["wins"], json!(wins));
    assert_eq!(played["mean"], json!([a.iter().sum::<i64>() as f64 / 3.0, b.iter().sum::<i64>() as f64 / 3.0]));
    // Without reseed, the tiles the game will draw; the defaults: one playout, bots seeded 0.
    let known = ok(&mut s, json!({"cmd": "playout", "game": "g1"}));
    assert_eq!(known["scores"], json!([engine(None, 0)]));
    // A greedy seat and a random one: the seats cycle through the bots given.
    let mixed = ok(&mut s, json!({"cmd": "playout", "game": "g1", "bots": ["greedy", "random"], "reseed": 3}));
    let mut copy = game.clone();
    copy.reseed(3);
    let kinds = [meeple_core::bots::BotKind::Greedy, meeple_core::bots::BotKind::Random];
    meeple_core::bots::play_out(&mut copy, &mut meeple_core::bots::seat_bots(&kinds, 2, 0)).unwrap();
    assert_eq!(mixed["scores"], json!([copy.state().scores()]));
    // After an action: each copy dealt anew, then the action taken, then played out.
    let after = |action: meeple_core::Action, reseed: u64, seed: u64| {
        let mut copy = game.clone();
        copy.reseed(reseed);
        copy.apply(action).unwrap();
        meeple_core::bots::play_out(&mut copy, &mut meeple_core::bots::seat_bots(&random, 2, seed)).unwrap();
        json!(copy.state().scores())
    };
    let legal = game.legal_actions();
    let by_index = ok(&mut s, json!({"cmd": "playout", "game": "g1", "index": 1, "count": 2, "reseed": 50}));
    assert_eq!(by_index["scores"], json!([after(legal[1], 50, 0), after(legal[1], 51, 1)]));
    let by_action = json!({"cmd": "playout", "game": "g1", "action": legal[1], "count": 2, "reseed": 50});
    assert_eq!(ok(&mut s, by_action)["scores"], by_index["scores"]);
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game does not move");
}

#[test]
fn a_suggestion_is_the_bots_next_action_and_leaves_the_game() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let greedy = ok(&mut s, json!({"cmd": "suggest", "game": "g1"}));
    let random = ok(&mut s, json!({"cmd": "suggest", "game": "g1", "bot": "random", "seed": 7}));
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game does not move");
    // What the engine's bots choose in the same state, the random one seeded as playout seeds
    // the seat to act.
    let loaded = meeple_tests::load_toml("tb", TB).unwrap();
    let game = meeple_core::Game::new(loaded.rules.clone(), loaded.setup(5)).unwrap();
    let legal = game.legal_actions();
    let index_of = |kind: meeple_core::bots::BotKind, seed: u64| {
        let chosen = kind.make(meeple_core::bots::seat_seed(seed, 0)).choose(&game);
        legal.iter().position(|a| *a == chosen).unwrap()
    };
    let greedy_index = index_of(meeple_core::bots::BotKind::Greedy, 0);
    assert_eq!(greedy["index"], json!(greedy_index));
    assert_eq!(greedy["action"], before["state"]["legal"][greedy_index]["action"]);
    assert_eq!(random["index"], json!(index_of(meeple_core::bots::BotKind::Random, 7)));
    // Mistakes are refused at their field; a finished game has nothing to suggest.
    err(&mut s, json!({"cmd": "suggest", "game": "g1", "bot": "clever"}), "bad-request", Some("bot"));
    err(&mut s, json!({"cmd": "suggest", "game": "g1", "seed": -1}), "bad-request", Some("seed"));
    err(&mut s, json!({"cmd": "suggest", "game": "g9"}), "unknown-game", Some("game"));
    ok(&mut s, json!({"cmd": "create", "config": "players = 2\ntile_limit = 1\n"}));
    let mut state = ok(&mut s, json!({"cmd": "state", "game": "g2"}))["state"].clone();
    while state["over"] == json!(false) {
        let next = ok(&mut s, json!({"cmd": "suggest", "game": "g2"}))["index"].clone();
        state = ok(&mut s, json!({"cmd": "act", "game": "g2", "index": next}))["state"].clone();
    }
    err(&mut s, json!({"cmd": "suggest", "game": "g2"}), "illegal-action", Some("game"));
    err(&mut s, json!({"cmd": "try", "game": "g2"}), "illegal-action", Some("game"));
}

#[test]
fn trying_actions_tells_where_each_leads_and_leaves_the_game() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let legal = before["state"]["legal"].as_array().unwrap().len();
    let tried = ok(&mut s, json!({"cmd": "try", "game": "g1", "brief": true}))["tried"].clone();
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game does not move");
    assert_eq!(tried.as_array().unwrap().len(), legal, "every legal action by default");
    // Each is what a fork that acts would tell.
    for i in [0, legal - 1] {
        let fork = ok(&mut s, json!({"cmd": "fork", "game": "g1"}))["game"].clone();
        let acted = ok(&mut s, json!({"cmd": "act", "game": fork, "index": i, "brief": true}));
        assert_eq!(tried[i]["index"], json!(i));
        assert_eq!(tried[i]["events"], acted["events"]);
        assert_eq!(tried[i]["state"]["hash"], acted["state"]["hash"]);
        ok(&mut s, json!({"cmd": "close", "game": fork}));
    }
    // Some, in the order asked.
    let some = ok(&mut s, json!({"cmd": "try", "game": "g1", "indices": [2, 0]}))["tried"].clone();
    assert_eq!((&some[0]["index"], &some[1]["index"]), (&json!(2), &json!(0)));
    assert_eq!(some[1]["state"]["hash"], tried[0]["state"]["hash"]);
    assert!(some[0]["state"]["players"].is_array(), "whole states unless brief");
    let refused =
        err(&mut s, json!({"cmd": "try", "game": "g1", "indices": [0, 999]}), "illegal-action", Some("indices[1]"));
    assert!(refused["error"]["message"].as_str().unwrap().contains("no legal action 999"), "{refused}");
    err(&mut s, json!({"cmd": "try", "game": "g1", "indices": "all"}), "bad-request", Some("indices"));
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game is as it was");
}

#[test]
fn a_bad_playout_is_refused_at_its_field_and_a_finished_game_plays_out_as_it_ended() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": "players = [\"Ann\", \"Ben\"]\nseed = 2\ntile_limit = 3\n"}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let cases = [
        (json!({"count": 0}), "count"),
        (json!({"count": 10_001}), "count"),
        (json!({"count": -1}), "count"),
        (json!({"bots": []}), "bots"),
        (json!({"bots": ["random", "random", "random"]}), "bots"),
        (json!({"bots": ["random", "clever"]}), "bots[1]"),
        (json!({"reseed": "x"}), "reseed"),
        (json!({"seeds": 1}), "seeds"),
        (json!({"seed": 9_223_372_036_854_775_808u64}), "seed"),
        (json!({"threads": 0}), "threads"),
        (json!({"threads": 65}), "threads"),
        (json!({"index": 0, "action": {"type": "pass"}}), "action"),
    ];
    for (fields, field) in cases {
        let mut request = json!({"cmd": "playout", "game": "g1"});
        request.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        err(&mut s, request, "bad-request", Some(field));
    }
    // A value of the right type out of its range is repeated, as a value of the wrong type is.
    for (field, value, got) in
        [("count", json!(0), "; got 0"), ("threads", json!(65), "; got 65"), ("bots", json!([]), "; got 0 bots")]
    {
        let reply = err(&mut s, json!({"cmd": "playout", "game": "g1", field: value}), "bad-request", Some(field));
        assert!(reply["error"]["message"].as_str().unwrap().ends_with(got), "{reply}");
    }
    let bot =
        err(&mut s, json!({"cmd": "playout", "game": "g1", "bots": ["random", 5]}), "bad-request", Some("bots[1]"));
    assert_eq!(bot["error"]["message"], json!("expected a bot's name, \"random\" or \"greedy\"; got integer `5`"));
    // A bot is its name, not the map serde would read a unit variant from.
    let map = json!({"cmd": "playout", "game": "g1", "bots": [{"random": null}]});
    let bot = err(&mut s, map, "bad-request", Some("bots[0]"));
    assert!(bot["error"]["message"].as_str().unwrap().starts_with("expected a bot's name"), "{bot}");
    err(&mut s, json!({"cmd": "playout", "game": "g9"}), "unknown-game", Some("game"));
    err(&mut s, json!({"cmd": "playout", "game": "g1", "index": 999}), "illegal-action", Some("index"));
    let pass = json!({"cmd": "playout", "game": "g1", "action": {"type": "pass"}});
    err(&mut s, pass, "illegal-action", Some("action"));
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game is as it was");
    // Played to its end, the game plays out to its own final scores.
    let mut state = before["state"].clone();
    while state["over"] == json!(false) {
        state = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}))["state"].clone();
    }
    let done = ok(&mut s, json!({"cmd": "playout", "game": "g1", "count": 2, "reseed": 1}));
    assert_eq!(done["scores"], json!([state["scores"], state["scores"]]));
    err(&mut s, json!({"cmd": "playout", "game": "g1", "index": 0}), "illegal-action", Some("index"));
}

#[test]
fn games_lists_the_sessions_games_with_their_steps() {
    let mut s = session();
    assert_eq!(ok(&mut s, json!({"cmd": "games"})), json!({"games": []}));
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    ok(&mut s, json!({"cmd": "fork", "game": "g1"}));
    ok(&mut s, json!({"cmd": "act", "game": "g2", "index": 0}));
    let listed = ok(&mut s, json!({"cmd": "games"}));
    let game = |id: &str, seq: u64, to_act: u8| json!({"game": id, "players": ["Ann", "Ben"], "to_act": to_act, "over": false, "seq": seq});
    // The copy has passed Ann's figure phase: Ben is to act there. A copy says whose it is,
    // and the seed it was dealt anew from.
    let mut copy = game("g2", 2, 1);
    copy["fork_of"] = json!("g1");
    assert_eq!(listed, json!({"games": [game("g1", 1, 0), copy.clone()]}));
    ok(&mut s, json!({"cmd": "fork", "game": "g2", "reseed": 8}));
    ok(&mut s, json!({"cmd": "close", "game": "g1"}));
    let mut dealt = game("g3", 2, 1);
    dealt["fork_of"] = json!("g2");
    dealt["reseeded"] = json!(8);
    assert_eq!(ok(&mut s, json!({"cmd": "games"}))["games"], json!([copy, dealt]));
    err(&mut s, json!({"cmd": "games", "game": "g2"}), "bad-request", Some("game"));
}

#[test]
fn a_fault_inside_an_action_is_named_by_its_path() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let pos = json!({"x": 1, "y": 0});
    let cases = [
        (json!({"type": "place-tile", "pos": pos, "rotation": 7}), "action.rotation"),
        (json!({"type": "place-tile", "pos": pos}), "action.rotation"),
        (json!({"type": "place-tile", "pos": {"x": 1}, "rotation": 0}), "action.pos.y"),
        (json!({"pos": pos, "rotation": 0}), "action.type"),
        (json!({"type": 3}), "action.type"),
        (json!({"type": "place-figure", "figure": 0, "segment": 0, "with": "pig"}), "action.with"),
        (json!({"type": "choose", "option": -1}), "action.option"),
        (
            json!({"type": "expansion", "expansion": 0, "code": 1, "target": {"kind": "point", "pos": {"x": 0, "y": "q"}, "point": 0}}),
            "action.target.pos.y",
        ),
        (
            json!({"type": "expansion", "expansion": 0, "code": 1, "target": {"kind": "segment", "pos": pos}}),
            "action.target.segment",
        ),
        (json!({"type": "expansion", "expansion": 0, "code": 1, "target": {"kind": "village"}}), "action.target.kind"),
        (json!({"type": "expansion", "expansion": 0, "code": 1, "target": {"pos": pos}}), "action.target.kind"),
        (json!({"type": "expansion", "expansion": 0, "code": 1}), "action.target"),
        // A field an action does not have is refused, not ignored: a `player` in the wrong
        // place would skip the turn check it asks for.
        (json!({"type": "place-tile", "pos": pos, "rotation": 0, "player": 1}), "action.player"),
        (json!({"type": "place-tile", "pos": {"x": 1, "y": 0, "z": 9}, "rotation": 0}), "action.pos.z"),
        (json!({"type": "pass", "player": 1}), "action.player"),
        (
            json!({"type": "expansion", "expansion": 0, "code": 1, "target": {"kind": "none", "x": 1}}),
            "action.target.x",
        ),
    ];
    for (action, field) in cases {
        err(&mut s, json!({"cmd": "act", "game": "g1", "action": action}), "bad-request", Some(field));
    }
    let reply = err(
        &mut s,
        json!({"cmd": "act", "game": "g1", "action": {"type": "place-tile", "pos": pos, "rotation": 7}}),
        "bad-request",
        Some("action.rotation"),
    );
    assert!(reply["error"]["message"].as_str().unwrap().contains("7"), "{reply}");
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game is untouched");

    // The actions of a replay too.
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    let replay = ok(&mut s, json!({"cmd": "save", "game": "g1"}))["replay"].clone();
    let mut bad = replay.clone();
    bad["actions"][0]["pos"]["x"] = json!(1.5);
    err(&mut s, json!({"cmd": "load", "replay": bad}), "bad-request", Some("replay.actions[0].pos.x"));
    // Nor does a replay carry fields of its own.
    let unknown = [("comment", None), ("zzz", Some("setup")), ("bogus", Some("actions"))];
    for (name, inside) in unknown {
        let mut bad = replay.clone();
        let field = match inside {
            None => {
                bad[name] = json!("x");
                format!("replay.{name}")
            }
            Some("actions") => {
                bad["actions"][0][name] = json!(1);
                format!("replay.actions[0].{name}")
            }
            Some(part) => {
                bad[part][name] = json!(1);
                format!("replay.{part}.{name}")
            }
        };
        err(&mut s, json!({"cmd": "load", "replay": bad}), "bad-request", Some(&field));
    }
}

#[test]
fn messages_say_what_is_expected_in_the_protocols_terms() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let cases = [
        (
            json!({"index": 0, "player": "Ann"}),
            "player",
            "expected a seat number, 0 for the first player; got string \"Ann\"",
        ),
        (json!({"index": 1.0}), "index", "expected an index into the state's `legal` list"),
        (
            json!({"action": {"type": "place-figure", "figure": "meeple", "segment": 0}}),
            "action.figure",
            "a figure kind's number",
        ),
        (
            json!({"action": {"type": "place-figure", "figure": 0, "segment": -2}}),
            "action.segment",
            "a segment's number",
        ),
        (
            json!({"action": {"type": "expansion", "expansion": "nobody", "code": 0, "target": {"kind": "none"}}}),
            "action.expansion",
            "an expansion's number",
        ),
        (
            json!({"action": {"type": "place-tile", "pos": {"x": 1, "y": 0}, "rotation": -1}}),
            "action.rotation",
            "quarter turns clockwise, 0 to 3",
        ),
        (json!({"action": 5}), "action", "an action as the state's `legal` list gives it"),
        // A target is an object: a string is not a kind without fields, and `null` is none.
        (
            json!({"action": {"type": "expansion", "expansion": 0, "code": 0, "target": "none"}}),
            "action.target",
            "expected a target as the state's `legal` actions give it, {\"kind\": …}; got string \"none\"",
        ),
        (
            json!({"action": {"type": "expansion", "expansion": 0, "code": 0, "target": 5}}),
            "action.target",
            "expected a target as the state's `legal` actions give it, {\"kind\": …}; got integer `5`",
        ),
        (
            json!({"action": {"type": "expansion", "expansion": 0, "code": 0, "target": null}}),
            "action.target",
            "missing field `target`",
        ),
    ];
    for (fields, field, expected) in cases {
        let mut request = json!({"cmd": "act", "game": "g1"});
        request.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        let reply = err(&mut s, request, "bad-request", Some(field));
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{reply}");
        let rust = ["u8", "u16", "u32", "u64", "usize", "i32", "i64", "enum", "struct"];
        assert!(!message.split(|c: char| !c.is_alphanumeric()).any(|w| rust.contains(&w)), "{reply}");
    }
    let reply = err(&mut s, json!({"cmd": "create", "seed": -1}), "bad-request", Some("seed"));
    assert!(reply["error"]["message"].as_str().unwrap().contains("a whole number from 0"), "{reply}");
    // Its replay carries the seed in its config, which holds a TOML integer: no larger.
    let reply = err(&mut s, json!({"cmd": "create", "seed": 9223372036854775808u64}), "bad-request", Some("seed"));
    let message = reply["error"]["message"].as_str().unwrap();
    assert_eq!(message, "expected a seed from 0 to 9223372036854775807; got 9223372036854775808", "{reply}");
    let top = ok(&mut s, json!({"cmd": "create", "seed": 9223372036854775807u64}));
    let game = top["game"].clone();
    let saved = ok(&mut s, json!({"cmd": "save", "game": game}));
    ok(&mut s, json!({"cmd": "load", "replay": saved["replay"]}));
}

#[test]
fn fields_that_exclude_each_other_say_so() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let both = err(
        &mut s,
        json!({"cmd": "act", "game": "g1", "index": 0, "action": {"type": "pass"}}),
        "bad-request",
        Some("action"),
    );
    assert_eq!(both["error"]["message"], json!("give `action` or `index`, not both"));
    let neither = err(&mut s, json!({"cmd": "act", "game": "g1"}), "bad-request", Some("action"));
    assert!(neither["error"]["message"].as_str().unwrap().contains("`action` or `index`"), "{neither}");
    let both = err(&mut s, json!({"cmd": "create", "config": TB, "path": "x.toml"}), "bad-request", Some("config"));
    assert_eq!(both["error"]["message"], json!("give `config` or `path`, not both"));

    // A config file's problems, read or resolved, are the `path` field's.
    let missing = err(&mut s, json!({"cmd": "create", "path": "/no/such/config.toml"}), "bad-config", Some("path"));
    assert!(missing["error"]["message"].as_str().unwrap().contains("/no/such/config.toml"), "{missing}");
    let dir = meeple_tests::repo().join("target/test-configs");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("unknown-expansion.toml");
    std::fs::write(&file, "[[expansions]]\nid = \"nope\"\n").unwrap();
    err(&mut s, json!({"cmd": "create", "path": file}), "bad-config", Some("path"));
}

#[test]
fn a_replay_whose_config_create_would_refuse_is_refused() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": "players = [\"Ann\", \"Ben\"]\nseed = 3\n"}));
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    let saved = ok(&mut s, json!({"cmd": "save", "game": "g1"}))["replay"].clone();
    let cases = [
        ("/players", json!(["Ann"]), "replay.config.players", "a game needs 2 to 6 players, not 1"),
        ("/tile_limit", json!(0), "replay.config.tile_limit", "`tile_limit` must be a positive integer"),
        ("/base/options", json!({"meeples": {"value": 99}}), "replay.config.base.options.meeples", "from 1 to 30"),
        ("/base/options", json!({"meeples": 99}), "replay.config.base.options.meeples", "{\"value\": …}"),
        ("/base/edition", json!("C9"), "replay.config.base.edition", "C9"),
        ("/players", json!("Ann"), "replay.config.players", "got string \"Ann\""),
    ];
    for (at, value, field, problem) in cases {
        let mut replay = saved.clone();
        *replay["config"].pointer_mut(at).unwrap() = value;
        for cmd in ["load", "verify"] {
            let reply = err(&mut s, json!({"cmd": cmd, "replay": replay}), "bad-config", Some(field));
            assert!(reply["error"]["message"].as_str().unwrap().contains(problem), "{reply}");
        }
    }
    // The game is played from the setup, which must be the one the config makes.
    let setups = [
        ("players", json!(["solo"]), "[\"solo\"], but its config's players are [\"Ann\", \"Ben\"]"),
        ("tile_limit", json!(5), "5, but its config's `tile_limit` is none"),
    ];
    for (key, value, problem) in setups {
        let mut replay = saved.clone();
        replay["setup"][key] = value;
        let field = format!("replay.setup.{key}");
        let reply = err(&mut s, json!({"cmd": "load", "replay": replay}), "bad-config", Some(&field));
        assert!(reply["error"]["message"].as_str().unwrap().contains(problem), "{reply}");
    }
    // Without a config, the setup's players are checked as a config's would be.
    let mut bare = saved.clone();
    bare["config"] = json!(null);
    bare["setup"]["players"] = json!(["solo"]);
    err(&mut s, json!({"cmd": "load", "replay": bare}), "bad-config", Some("replay.config.players"));

    let mut two = saved.clone();
    two["config"]["players"] = json!(["Ann"]);
    two["config"]["tile_limit"] = json!(0);
    let reply = err(&mut s, json!({"cmd": "load", "replay": two}), "bad-config", Some("replay.config"));
    assert_eq!(reply["error"]["message"].as_str().unwrap().lines().count(), 2, "{reply}");
    // The config's own problems do not hide those of resolving it.
    two["config"]["base"]["edition"] = json!("C9");
    let reply = err(&mut s, json!({"cmd": "load", "replay": two}), "bad-config", Some("replay.config"));
    let message = reply["error"]["message"].as_str().unwrap();
    assert_eq!(message.lines().count(), 3, "{reply}");
    assert!(message.contains("replay.config.base.edition: `base` has no edition `C9`"), "{reply}");
    // A field the config does not have is a mistake, not something to ignore.
    for (at, field) in [("", "replay.config.colour"), ("/base", "replay.config.base.colour")] {
        let mut replay = saved.clone();
        replay["config"].pointer_mut(at).unwrap()["colour"] = json!(1);
        let reply = err(&mut s, json!({"cmd": "load", "replay": replay}), "bad-config", Some(field));
        assert!(reply["error"]["message"].as_str().unwrap().contains("unknown field `colour`"), "{reply}");
    }
    // Fields that serde cannot read are named all at once too, each once: a field taken out
    // to read on is not also missing.
    let mut three = saved.clone();
    three["config"]["colour"] = json!(1);
    three["config"]["players"] = json!("Ann");
    three["config"]["base"]["edition"] = json!(3);
    let reply = err(&mut s, json!({"cmd": "load", "replay": three}), "bad-config", Some("replay.config"));
    let message = reply["error"]["message"].as_str().unwrap();
    let fields: Vec<&str> = message.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(fields, ["replay.config.base.edition", "replay.config.colour", "replay.config.players"], "{reply}");

    assert_eq!(ok(&mut s, json!({"cmd": "load", "replay": saved}))["game"], json!("g2"), "nothing was created before");
}

#[test]
fn a_failing_setup_hook_is_an_expansion_failure() {
    let script = "meeple.on(\"setup\", function(view, out)\n    error(\"no setup today\")\nend)\n";
    let root = meeple_tests::write_mods("protocol-setup", &[("setup-fails", "depends = [\"base\"]", script)]);
    let mut s = Session::new(vec![root]);
    let config = "[[expansions]]\nid = \"setup-fails\"\n";
    let reply = err(&mut s, json!({"cmd": "create", "config": config}), "expansion-failed", None);
    assert!(reply["error"]["message"].as_str().unwrap().contains("no setup today"), "{reply}");
    assert_eq!(ok(&mut s, json!({"cmd": "create"}))["game"], json!("g1"), "nothing was created before");
}

/// A session with game `g1` of Traders & Builders after its first turn, and the game's replay.
fn one_turn_saved() -> (Session, Value) {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}));
    ok(&mut s, json!({"cmd": "act", "game": "g1", "action": {"type": "pass"}}));
    let replay = ok(&mut s, json!({"cmd": "save", "game": "g1"}))["replay"].clone();
    (s, replay)
}

#[test]
fn a_replay_that_does_not_play_back_is_a_mismatch() {
    let (mut s, replay) = one_turn_saved();
    // The error names the replay's field at fault.
    let wrong = |change: &dyn Fn(&mut Value)| {
        let mut wrong = replay.clone();
        change(&mut wrong);
        wrong
    };
    let cases: [(Value, &str); 6] = [
        (wrong(&|r| r["state_hash"] = json!("0000000000000000")), "replay.state_hash"),
        (wrong(&|r| r["checkpoints"][0]["hash"] = json!("0000000000000000")), "replay.checkpoints[0].hash"),
        (wrong(&|r| r["checkpoints"][0]["actions"] = json!(9)), "replay.checkpoints[0].actions"),
        (wrong(&|r| r["actions"][0]["pos"] = json!({"x": 50, "y": 50})), "replay.actions[0]"),
        (wrong(&|r| r["ruleset"] = json!("0")), "replay.ruleset"),
        (wrong(&|r| r["format"] = json!("meeple-replay/0")), "replay.format"),
    ];
    for (wrong, field) in cases {
        err(&mut s, json!({"cmd": "verify", "replay": wrong.clone()}), "replay-mismatch", Some(field));
        err(&mut s, json!({"cmd": "load", "replay": wrong}), "replay-mismatch", Some(field));
    }
    assert_eq!(ok(&mut s, json!({"cmd": "verify", "replay": replay}))["actions"], json!(2));
}

#[test]
fn other_rules_play_a_replay_back_on_changed_files_checking_every_state() {
    let (mut s, replay) = one_turn_saved();
    // Recorded with other files of Traders & Builders: refused, naming it and the way round.
    let mut edited = replay.clone();
    edited["ruleset"] = json!("0");
    edited["expansion_hashes"]["traders-builders"] = json!("0");
    let refused =
        err(&mut s, json!({"cmd": "load", "replay": edited.clone()}), "replay-mismatch", Some("replay.ruleset"));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("the files, edition, options or tile numbers of `traders-builders` differ"), "{message}");
    assert!(
        message.ends_with(
            "with `other_rules: true`, it plays back on these rules all the same, every recorded state checked"
        ),
        "{message}"
    );
    // With `other_rules` it plays back, to the same state.
    let verified = ok(&mut s, json!({"cmd": "verify", "replay": edited.clone(), "other_rules": true}));
    assert_eq!(verified["actions"], json!(2));
    assert_eq!(verified["state_hash"], replay["state_hash"]);
    let loaded = ok(&mut s, json!({"cmd": "load", "replay": edited.clone(), "other_rules": true}));
    let original = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    assert_eq!(loaded["state"]["scores"], original["state"]["scores"], "{loaded}");
    // Still every state is checked: one that went otherwise is refused at its hash.
    edited["checkpoints"][0]["hash"] = json!("0000000000000000");
    let request = json!({"cmd": "verify", "replay": edited, "other_rules": true});
    err(&mut s, request, "replay-mismatch", Some("replay.checkpoints[0].hash"));
    err(&mut s, json!({"cmd": "verify", "replay": replay, "other_rules": "yes"}), "bad-request", Some("other_rules"));
}

#[test]
fn an_expansion_failure_leaves_the_game_as_it_was() {
    meeple_tests::build_plugins();
    let mut s = session();
    let config = "players = 2\n[[expansions]]\nid = \"native-panicking\"\n";
    ok(&mut s, json!({"cmd": "create", "config": config}));
    let placed = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": 0}))["state"].clone();
    let figure = placed["legal"].as_array().unwrap().iter().find(|a| a["action"]["type"] == "place-figure").unwrap();
    let reply = err(&mut s, json!({"cmd": "act", "game": "g1", "action": figure["action"]}), "expansion-failed", None);
    assert!(reply["error"]["message"].as_str().unwrap().contains("cannot stand it"), "{reply}");
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"], placed, "the game is as it was");
    // So does one in a playout: the first to fail is named, on any number of threads.
    for threads in [1, 2] {
        let request =
            json!({"cmd": "playout", "game": "g1", "action": figure["action"], "count": 4, "threads": threads});
        let reply = err(&mut s, request, "expansion-failed", None);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("playout 1: ") && message.contains("cannot stand it"), "{reply}");
    }
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"], placed, "the game is as it was");
    ok(&mut s, json!({"cmd": "act", "game": "g1", "action": {"type": "pass"}}));
}

#[test]
fn the_committed_json_schema_is_generated_from_the_types() {
    let committed = std::fs::read_to_string(meeple_tests::repo().join("docs/protocol.schema.json")).unwrap_or_default();
    assert!(
        committed == meeple_protocol::messages::schema(),
        "docs/protocol.schema.json is stale: run `cargo run --bin meeple -- api-docs` and commit it"
    );
    let schema: Value = serde_json::from_str(&committed).unwrap();
    let request = schema["$defs"]["Request"].to_string();
    for cmd in meeple_protocol::messages::COMMANDS {
        assert!(request.contains(&format!("\"{cmd}\"")), "the schema has `{cmd}`");
    }
    // Each request form takes `id` and no field it does not name, as the session does.
    for form in schema["$defs"]["Request"]["oneOf"].as_array().unwrap() {
        assert!(form["properties"]["id"].is_object() && form["unevaluatedProperties"] == json!(false), "{form}");
    }
    for code in ["bad-json", "unknown-command", "not-your-turn", "replay-mismatch"] {
        assert!(committed.contains(&format!("\"{code}\"")), "the schema has error code `{code}`");
    }
    // Every reference resolves from the document's root, as a validator reads it.
    let refs: Vec<&str> = committed.split("\"$ref\": \"").skip(1).filter_map(|r| r.split('"').next()).collect();
    assert!(refs.len() > 20, "{refs:?}");
    for r in refs {
        let name = r.strip_prefix("#/$defs/").unwrap_or_else(|| panic!("a reference outside $defs: {r}"));
        assert!(schema["$defs"][name].is_object(), "`{r}` resolves to nothing");
    }
    // Fields that go together as the session takes them: `act` one of `action` and `index`
    // (each form requires its own field and takes the other only as null), `create` not both
    // `config` and `path`.
    let forms = schema["$defs"]["ActArgs"]["oneOf"].as_array().unwrap();
    let required: Vec<&Value> = forms.iter().map(|f| &f["allOf"][0]["required"][0]).collect();
    assert_eq!(required, [&json!("action"), &json!("index")]);
    assert_eq!(forms[0]["allOf"][1]["properties"]["index"], json!({"type": "null"}));
    let both = &schema["$defs"]["CreateArgs"]["not"]["allOf"];
    assert_eq!([&both[0]["required"][0], &both[1]["required"][0]], [&json!("config"), &json!("path")]);
    // A rotation is 0 to 3 quarter turns, as the server reads it.
    assert_eq!(schema["$defs"]["Rotation"]["maximum"], json!(3));
    // A seed is at most what a config holds, as `create` takes it.
    assert_eq!(schema["$defs"]["CreateArgs"]["properties"]["seed"]["maximum"], json!(i64::MAX));
    // `close`'s result has no fields: an open object would match every result.
    let results = schema["$defs"]["Outcome"]["anyOf"].as_array().unwrap();
    let closed = results.iter().find(|r| r["description"] == json!("`close`.")).unwrap();
    assert_eq!(closed["additionalProperties"], json!(false), "{closed}");
    // `ok` says which of `result` and `error` a reply holds: one of them, never null.
    let forms = schema["$defs"]["Reply"]["oneOf"].as_array().unwrap();
    let parts: Vec<[&Value; 3]> = forms
        .iter()
        .map(|f| {
            [
                &f["allOf"][0]["properties"]["ok"]["const"],
                &f["allOf"][1]["required"][0],
                &f["allOf"][2]["not"]["required"][0],
            ]
        })
        .collect();
    assert_eq!(
        parts,
        [[&json!(true), &json!("result"), &json!("error")], [&json!(false), &json!("error"), &json!("result")]]
    );
}

#[test]
fn create_reports_every_problem_of_a_config_at_once() {
    let mut s = session();
    let config = "players = 2\ncolour = 1\n[base]\nedition = \"C9\"\n[[expansions]]\nid = \"nope\"\n";
    let bad = err(&mut s, json!({"cmd": "create", "config": config}), "bad-config", Some("config"));
    let message = bad["error"]["message"].as_str().unwrap();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "config:2:1: unknown key `colour` in the game config; expected one of: base, draw, expansions, players, seed, tile_limit, version",
            "config:4:11: `base` has no edition `C9`; expected one of: C1, C2, C3",
        ],
        "{bad}"
    );
    assert!(lines[2].starts_with("config:6:6: unknown expansion `nope`; installed: abbot, base, "), "{bad}");
    assert_eq!(lines.len(), 3, "{bad}");
}

/// A config object with three players and an option of the base game and of an expansion.
fn three_players_with_options() -> Value {
    json!({
        "players": ["Ann", "Ben", "Cy"],
        "seed": 5,
        "base": {"edition": "C2", "options": {"meeples": 4}},
        "expansions": [{"id": "traders-builders", "edition": "C1", "options": {"goods_scoring": "majority"}}],
    })
}

#[test]
fn a_config_given_as_an_object_plays_the_game_its_keys_choose() {
    let mut s = session();
    let object = three_players_with_options();
    let created = ok(&mut s, json!({"cmd": "create", "config": object}));
    let state = &created["state"];
    let names: Vec<&Value> = state["players"].as_array().unwrap().iter().map(|p| &p["name"]).collect();
    assert_eq!(names, [&json!("Ann"), &json!("Ben"), &json!("Cy")]);
    assert_eq!(state["players"][0]["supply"]["meeple"], json!(4), "the base game's option");
    assert_eq!(state["players"][0]["supply"]["traders-builders:builder"], json!(1));
    // The same game as from the same config written as a file.
    let text = "players = [\"Ann\", \"Ben\", \"Cy\"]\nseed = 5\n[base]\nedition = \"C2\"\noptions = { meeples = 4 }\n\
                [[expansions]]\nid = \"traders-builders\"\nedition = \"C1\"\n";
    let from_text = ok(&mut s, json!({"cmd": "create", "config": text}));
    assert_eq!(from_text["state"]["turn"], state["turn"]);
    assert_eq!(from_text["state"]["legal"], state["legal"]);
    let saved = ok(&mut s, json!({"cmd": "save", "game": created["game"]}));
    assert_eq!(saved["replay"]["config"]["expansions"][0]["edition"], json!("C1"));
    ok(&mut s, json!({"cmd": "verify", "replay": saved["replay"]}));
    // Keys left out, or null, take their defaults: two players, the base game.
    let plain = ok(&mut s, json!({"cmd": "create", "config": {"seed": null}}));
    assert_eq!(plain["state"]["players"].as_array().unwrap().len(), 2);
    assert_eq!(plain["state"]["turn"]["tiles_left"], json!(70), "the base game's 71 tiles, one drawn");
}

#[test]
fn a_replays_config_starts_another_game_of_the_same_rules() {
    let mut s = session();
    let object = three_players_with_options();
    let first = ok(&mut s, json!({"cmd": "create", "config": object}));
    let saved = ok(&mut s, json!({"cmd": "save", "game": first["game"]}));
    // As a replay stores it: where it came from, the base game's id, each option's value.
    let stored = saved["replay"]["config"].clone();
    assert_eq!(stored["base"]["id"], json!("base"), "{stored}");
    assert_eq!(stored["base"]["options"]["meeples"], json!({"value": 4}), "{stored}");
    let again = ok(&mut s, json!({"cmd": "create", "config": stored, "seed": 9}));
    let state = &again["state"];
    assert_eq!(state["players"].as_array().unwrap().len(), 3);
    assert_eq!(state["players"][0]["supply"]["meeple"], json!(4), "the base game's option, as stored");
    assert_eq!(state["players"][0]["supply"]["traders-builders:builder"], json!(1));
    let resaved = ok(&mut s, json!({"cmd": "save", "game": again["game"]}));
    let config = &resaved["replay"]["config"];
    assert_eq!(config["expansions"][0]["options"]["goods_scoring"], json!({"value": "majority"}), "{config}");
    assert_eq!(config["seed"], json!(9), "the request's seed over the stored one");
    // The stored shape's own keys are checked too, among the config's other problems.
    let mut broken = stored.clone();
    broken["file"] = json!(3);
    broken["base"]["id"] = json!("river");
    broken["players"] = json!(["Ann"]);
    let bad = err(&mut s, json!({"cmd": "create", "config": broken}), "bad-config", Some("config"));
    let lines: Vec<&str> = bad["error"]["message"].as_str().unwrap().lines().collect();
    let fields: Vec<&str> = lines.iter().map(|l| l.split_once(": ").unwrap().0).collect();
    assert_eq!(fields, ["config.file", "config.base.id", "config.players"], "{bad}");
    assert!(lines[1].contains("expected \"base\""), "{bad}");
}

#[test]
fn every_problem_of_a_config_object_is_named_by_its_field() {
    let mut s = session();
    let object = json!({
        "players": 1,
        "sed": 5,
        "base": {"edition": "C4", "options": {"meples": 3}},
        "expansions": [{"id": "traders-builders", "options": {"goods_scoring": 2}}, {"id": "trader-builders"}],
        "draw": ["U", null],
    });
    let bad = err(&mut s, json!({"cmd": "create", "config": object}), "bad-config", Some("config"));
    let lines: Vec<&str> = bad["error"]["message"].as_str().unwrap().lines().collect();
    let fields: Vec<&str> = lines.iter().map(|l| l.split_once(": ").unwrap().0).collect();
    // In the order of the config as written out: plain keys first, then the tables.
    assert_eq!(
        fields,
        [
            "config.draw[1]",
            "config.players",
            "config.sed",
            "config.base.edition",
            "config.base.options.meples",
            "config.expansions[0].options.goods_scoring",
            "config.expansions[1].id",
        ],
        "{bad}"
    );
    // A null inside a list has no TOML form: it is left out, and said so among the rest.
    assert_eq!(lines[0], "config.draw[1]: expected a value; got null, which has no place inside a list or table");
    assert_eq!(lines[1], "config.players: a game needs 2 to 6 players, not 1");
    assert!(lines[2].contains("did you mean `seed`?"), "{bad}");
    assert!(lines[6].contains("did you mean `traders-builders`?"), "{bad}");
    // A value no TOML line holds (a null in a list) is one fault among the others, in order.
    let nulls = json!({"players": ["Ann", null], "seed": -1});
    let bad = err(&mut s, json!({"cmd": "create", "config": nulls}), "bad-config", Some("config"));
    let lines: Vec<&str> = bad["error"]["message"].as_str().unwrap().lines().collect();
    assert_eq!(lines.len(), 2, "{bad}");
    assert!(lines[0].starts_with("config.players[1]: expected a value; got null"), "{bad}");
    assert!(lines[1].starts_with("config.seed: "), "{bad}");
    // A name holding a newline (refused) stays on its line: the fields after it are named right.
    let newline = json!({"players": ["Ann\nBen", "Cy"], "seed": -1, "base": {"edition": "C1"}});
    let bad = err(&mut s, json!({"cmd": "create", "config": newline}), "bad-config", Some("config"));
    let lines: Vec<&str> = bad["error"]["message"].as_str().unwrap().lines().collect();
    assert_eq!(lines.len(), 2, "{bad}");
    assert!(lines[0].starts_with("config.players[0]: a player name must not hold control"), "{bad}");
    assert!(lines[1].starts_with("config.seed: "), "{bad}");
    // An item of a list is named by its place in the list.
    let long = json!({"players": ["Ann", "B".repeat(41), "Cy"]});
    let reply = err(&mut s, json!({"cmd": "create", "config": long}), "bad-config", Some("config.players[1]"));
    assert!(reply["error"]["message"].as_str().unwrap().contains("40 characters"), "{reply}");
    // One fault: the error's field is that field.
    let one = json!({"expansions": [{"id": "tollkeepers", "edition": "C1"}]});
    err(&mut s, json!({"cmd": "create", "config": one}), "bad-config", Some("config.expansions[0].edition"));
    // A list where a table belongs is the list's fault, not its first item's.
    let listed = json!({"base": [{"edition": "C3"}]});
    let reply = err(&mut s, json!({"cmd": "create", "config": listed}), "bad-config", Some("config.base"));
    assert_eq!(reply["error"]["message"], json!("config.base: `base` must be a table, found an array"));
    // Several problems are listed one by one as well, each with its field.
    let several =
        json!({"players": 1, "expansions": [{"id": "trader-builders"}, {"id": "tollkeepers", "edition": "C9"}]});
    let reply = err(&mut s, json!({"cmd": "create", "config": several}), "bad-config", Some("config"));
    let problems = reply["error"]["problems"].as_array().expect("a list of problems");
    let fields: Vec<&str> = problems.iter().map(|p| p["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["config.players", "config.expansions[0].id", "config.expansions[1].edition"], "{reply}");
    assert!(problems[1]["message"].as_str().unwrap().contains("did you mean `traders-builders`?"), "{reply}");
    // One problem: its field is the error's, and no list.
    let one = err(&mut s, json!({"cmd": "create", "config": {"players": 1}}), "bad-config", Some("config.players"));
    assert!(one["error"].get("problems").is_none(), "{one}");
    // A whole entry of `legal` sent as the action is told so.
    let entry = json!({"index": 0, "action": {"type": "pass"}, "text": "pass"});
    let reply = err(&mut s, json!({"cmd": "act", "game": "nope", "action": entry}), "bad-request", Some("action.type"));
    assert!(reply["error"]["message"].as_str().unwrap().contains("an entry of `legal`: send its `action`"), "{reply}");
    // So is a misspelt key that holds a list of tables.
    let misspelt = json!({"expansion": [{"id": "traders-builders"}]});
    let reply = err(&mut s, json!({"cmd": "create", "config": misspelt}), "bad-config", Some("config.expansion"));
    assert!(reply["error"]["message"].as_str().unwrap().contains("did you mean `expansions`?"), "{reply}");
    let huge = json!({"seed": u64::MAX});
    let reply = err(&mut s, json!({"cmd": "create", "config": huge}), "bad-config", Some("config.seed"));
    assert!(reply["error"]["message"].as_str().unwrap().contains("is too large"), "{reply}");
    // Past 64 bits a JSON reader holds a whole number as a float: it is still told as too large.
    for (huge, field) in [(json!({"players": 1e20}), "config.players"), (json!({"seed": -1e20}), "config.seed")] {
        let reply = err(&mut s, json!({"cmd": "create", "config": huge}), "bad-config", Some(field));
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("is too large: whole numbers go up to") || message.contains("is too small"),
            "{reply}"
        );
    }
    let reply = err(&mut s, json!({"cmd": "create", "config": 7}), "bad-request", Some("config"));
    assert_eq!(
        reply["error"]["message"],
        json!("expected a game config: TOML text, or an object with a config file's keys; got integer `7`")
    );
    // Nothing was created: the next game is the first.
    assert_eq!(ok(&mut s, json!({"cmd": "create"}))["game"], json!("g1"));
}

/// The placed tiles as a client following the events sees them through the names.
#[derive(Default)]
struct Followed {
    /// Squares by placed-tile index.
    squares: Vec<Value>,
    /// Every segment number's (square, segment id): the placed tiles' segments in placement order.
    segments: Vec<(Value, Value)>,
    /// Point ids by placed-tile index.
    points: Vec<Vec<Value>>,
}

impl Followed {
    fn lay(&mut self, pos: &Value, kind: &Value) {
        self.squares.push(pos.clone());
        let ids = kind["segments"].as_array().unwrap();
        self.segments.extend(ids.iter().map(|id| (pos.clone(), id.clone())));
        self.points.push(kind["points"].as_array().unwrap().clone());
    }

    /// Where the state shows a figure that an event put at `at`.
    fn place(&self, at: &Value) -> Value {
        let n = |key: &str| at[key].as_u64().unwrap() as usize;
        match at["at"].as_str().unwrap() {
            "segment" => {
                let (pos, id) = &self.segments[n("segment")];
                json!({"kind": "segment", "pos": pos, "segment": id})
            }
            "point" => {
                json!({"kind": "point", "pos": self.squares[n("tile")], "point": self.points[n("tile")][n("point")]})
            }
            _ => json!({"kind": "aside"}),
        }
    }
}

#[test]
fn the_names_say_what_every_number_in_the_events_stands_for() {
    let mut s = session();
    let config =
        "players = 3\nseed = 11\n[[expansions]]\nid = \"traders-builders\"\n[[expansions]]\nid = \"tollkeepers\"\n";
    let created = ok(&mut s, json!({"cmd": "create", "config": config}));
    let names = created["names"].clone();
    assert_eq!(ok(&mut s, json!({"cmd": "names", "game": "g1"}))["names"], names);
    let name = |table: &str, n: &Value| names[table][n.as_u64().unwrap() as usize].clone();
    let start = &created["state"]["board"][0];
    let start_kind = names["tiles"].as_array().unwrap().iter().find(|t| t["tile"] == start["tile"]).unwrap();
    let mut followed = Followed::default();
    followed.lay(&start["pos"], start_kind);

    let (mut state, mut figures_seen, mut k) = (created["state"].clone(), 0, 0);
    while state["over"] == json!(false) {
        let n = state["legal"].as_array().unwrap().len();
        let reply = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": (k * 5 + 1) % n}));
        state = reply["state"].clone();
        k += 1;
        for event in reply["events"].as_array().unwrap() {
            match event["event"].as_str().unwrap() {
                "tile-placed" => {
                    let kind = name("tiles", &event["tile"]);
                    assert_eq!(state["board"][event["index"].as_u64().unwrap() as usize]["tile"], kind["tile"]);
                    followed.lay(&event["pos"], &kind);
                }
                "figure-placed" => {
                    let figure = state["figures"].as_array().unwrap().iter().find(|f| f["id"] == event["figure"]);
                    let Some(figure) = figure else { continue }; // scored and back in the same action
                    assert_eq!(figure["kind"], name("figures", &event["kind"]), "{event}");
                    if figure["at"]["kind"] != json!("aside") {
                        assert_eq!(figure["at"], followed.place(&event["at"]), "{event}");
                    }
                    figures_seen += 1;
                }
                "points-added" => assert!(name("categories", &event["category"]).is_string(), "{event}"),
                "tokens-changed" => assert!(name("tokens", &event["token"]).as_str().unwrap().contains(':'), "{event}"),
                _ => {}
            }
        }
    }
    assert!(figures_seen > 10, "figures were placed and followed: {figures_seen}");
    // The shapes draw every placed tile: its kind's sides, turned by its rotation, are the board's.
    for placed in state["board"].as_array().unwrap() {
        let kind = names["tiles"].as_array().unwrap().iter().find(|t| t["tile"] == placed["tile"]).unwrap();
        let (unturned, r) = (kind["sides"].as_str().unwrap().as_bytes(), placed["rotation"].as_u64().unwrap() as usize);
        let turned: String = (0..4).map(|i| unturned[(i + 4 - r) % 4] as char).collect();
        assert_eq!(json!(turned), placed["sides"], "{kind}");
    }
    // Each segment's ports lie on sides of its kind (a field's beside a road, too).
    let letter = |kind: &str| match kind {
        "city" => "C",
        "road" => "R",
        "river" => "W",
        _ => "CRFW",
    };
    for kind in names["tiles"].as_array().unwrap() {
        let shapes = kind["shapes"].as_array().unwrap();
        assert_eq!(shapes.len(), kind["segments"].as_array().unwrap().len(), "{kind}");
        let sides = kind["sides"].as_str().unwrap();
        for shape in shapes {
            for port in shape["ports"].as_array().unwrap() {
                let side = "NESW".find(&port.as_str().unwrap()[..1]).unwrap();
                assert!(letter(shape["kind"].as_str().unwrap()).contains(&sides[side..=side]), "{kind}");
            }
        }
    }
    // The pictures The Tollkeepers counts are on the tiles that print them, by segment index:
    // the highwaymen of base tile A lie in its field, beside its road (tilesets/base.toml).
    let tile = |key: &str| names["tiles"].as_array().unwrap().iter().find(|t| t["tile"] == key).unwrap().clone();
    let a = tile("base:A-highwaymen");
    let segment = |id: &str| a["segments"].as_array().unwrap().iter().position(|s| s == id).unwrap();
    assert_eq!(a["pictures"], json!([{"kind": "highwaymen", "field": segment("field"), "beside": [segment("road")]}]));
    assert!(tile("base:A").get("pictures").is_none(), "a tile without pictures has no list");
    let pictured = names["tiles"].as_array().unwrap().iter().filter(|t| t.get("pictures").is_some()).count();
    assert!(pictured > 10, "{pictured} tile kinds have pictures");
}

#[test]
fn every_command_knows_its_fields() {
    // A command missing from the table of fields would refuse even its own `cmd`.
    for cmd in meeple_protocol::messages::COMMANDS {
        let fields = meeple_protocol::session::command_fields(cmd);
        assert!(fields.iter().any(|f| f == "cmd") && fields.iter().any(|f| f == "id"), "{cmd}: {fields:?}");
        let mut s = session();
        let reply = s.handle(&json!({"cmd": cmd, "id": 1}));
        assert_ne!(
            reply["error"]["message"].as_str().map(|m| m.contains("unknown field")),
            Some(true),
            "{cmd}: {reply}"
        );
    }
}

#[test]
fn numbers_out_of_reach_and_nulls_are_named_for_what_they_are() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create"}));
    let mut message = |request: Value, field: &str| {
        err(&mut s, request, "bad-request", Some(field))["error"]["message"].as_str().unwrap().to_string()
    };
    // serde reads 1e30 as a float: it is a number too large, not "a floating point".
    let m = message(json!({"cmd": "act", "game": "g1", "index": 1e30}), "index");
    assert!(m.ends_with("got 1e+30, a number too large for it"), "{m}");
    let m = message(json!({"cmd": "act", "game": "g1", "index": 1.5}), "index");
    assert!(m.ends_with("got 1.5, which is not a whole number"), "{m}");
    // A whole number written with a point is told so, not called too large.
    let m = message(json!({"cmd": "act", "game": "g1", "index": 1.0}), "index");
    assert!(m.ends_with("got 1.0, written with a decimal point (write it as 1)"), "{m}");
    // A field given as null is not given: that is what a required one lacks.
    let m = message(json!({"cmd": "state", "game": null}), "game");
    assert!(m.ends_with("got null, which counts as not given"), "{m}");
}

/// A line as `meeple serve --stdio` reads it, and its reply.
fn line(s: &mut Session, text: &str) -> Value {
    serde_json::from_str(&s.handle_line(text)).expect("a JSON reply")
}

#[test]
fn a_field_given_twice_is_refused_rather_than_the_last_one_winning() {
    let mut s = session();
    ok(&mut s, json!({"cmd": "create", "config": TB}));
    let before = ok(&mut s, json!({"cmd": "state", "game": "g1"}));
    let twice = |field: &str| {
        json!({"code": "bad-request", "message": format!("`{field}` is given more than once; give each field once"),
               "field": field})
    };
    let reply = line(&mut s, r#"{"id":1,"cmd":"version","cmd":"expansions"}"#);
    assert_eq!((&reply["ok"], &reply["error"]), (&json!(false), &twice("cmd")), "{reply}");
    // Seat 1 is not to act: the last `player` must not stand in for the first.
    let reply = line(&mut s, r#"{"cmd":"act","game":"g1","index":0,"player":1,"player":0}"#);
    assert_eq!(reply["error"], twice("player"), "{reply}");
    let reply = line(&mut s, r#"{"cmd":"act","game":"g1","action":{"type":"place-tile","type":"pass"}}"#);
    assert_eq!(reply["error"], twice("action.type"), "{reply}");
    let reply = line(&mut s, r#"{"cmd":"create","config":{"players":2,"players":3}}"#);
    assert_eq!(reply["error"], twice("config.players"), "{reply}");
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"})), before, "the game is untouched");
    assert_eq!(ok(&mut s, json!({"cmd": "create"}))["game"], json!("g2"), "no game was created");
}

#[test]
fn a_seat_out_of_turn_is_told_so_before_its_index_is_looked_up() {
    let mut s = session();
    let state = ok(&mut s, json!({"cmd": "create", "config": TB}))["state"].clone();
    let n = state["legal"].as_array().unwrap().len();
    assert_eq!(state["to_act"], json!(0));
    let reply =
        err(&mut s, json!({"cmd": "act", "game": "g1", "index": 999, "player": 1}), "not-your-turn", Some("player"));
    assert_eq!(
        reply["error"]["message"],
        json!("seat 0 is to act, not seat 1"),
        "nothing of seat 0's actions: {reply}"
    );
    let reply =
        err(&mut s, json!({"cmd": "act", "game": "g1", "index": 999, "player": 7}), "bad-request", Some("player"));
    assert!(reply["error"]["message"].as_str().unwrap().starts_with("no seat 7"), "{reply}");
    // The seat to act, or a request that names none, hears what is wrong with the index.
    for seat in [json!(0), Value::Null] {
        let request = json!({"cmd": "act", "game": "g1", "index": 999, "player": seat});
        let reply = err(&mut s, request, "illegal-action", Some("index"));
        assert_eq!(reply["error"]["message"], json!(format!("no legal action 999 (there are {n})")), "{reply}");
    }
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"], state, "the game is untouched");
}

#[test]
fn a_request_that_names_no_command_is_told_why() {
    let mut s = session();
    let refused =
        |message: &str, field: Option<&str>| json!({"code": "bad-request", "message": message, "field": field});
    for text in ["[]", "[1, 2]", "\"version\"", "7", "null"] {
        assert_eq!(line(&mut s, text)["error"], refused("a request is a JSON object", None), "{text}");
    }
    // `null` is not given, for `cmd` as for every field.
    for request in [json!({"id": 1}), json!({"id": 1, "cmd": null})] {
        let reply = err(&mut s, request.clone(), "bad-request", Some("cmd"));
        assert_eq!(reply["error"], refused("missing `cmd`", Some("cmd")), "{request}");
    }
    let reply = err(&mut s, json!({"id": 1, "cmd": ["version"]}), "bad-request", Some("cmd"));
    assert_eq!(reply["error"]["message"], json!("`cmd`: expected a string"));
}

#[test]
fn an_answer_past_the_options_of_the_question_is_named_as_such() {
    let mut s = session();
    let created = ok(&mut s, json!({"cmd": "create", "config": TB}));
    let builder = created["names"]["figures"].as_array().unwrap().iter().position(|f| f == "traders-builders:builder");
    let mut state = created["state"].clone();
    let mut events = json!([]);
    // The builder out, tiles placed until one extends its feature: its owner is asked.
    for k in 0.. {
        assert!(k < 400 && state["over"] == json!(false), "no question was asked");
        if state["pending"]["kind"] == json!("builder-double-turn") {
            break;
        }
        let legal = state["legal"].as_array().unwrap();
        let places_builder = |a: &&Value| a["action"]["figure"].as_u64().map(|f| f as usize) == builder;
        let index =
            legal.iter().find(places_builder).map_or(k * 7 % legal.len(), |a| a["index"].as_u64().unwrap() as usize);
        let reply = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": index}));
        (state, events) = (reply["state"].clone(), reply["events"].clone());
    }
    // The event that asked says what about, as the pending question does: a segment target.
    let asked = events.as_array().unwrap().iter().find(|e| e["event"] == json!("decision-requested")).unwrap();
    assert_eq!(asked["about"]["kind"], json!("segment"), "{asked}");
    assert_eq!(asked["about"], state["pending"]["about"]);
    // The question names the expansion asking: the event by its number in `names`, the state by
    // id and as players know it.
    let expansions = created["names"]["expansions"].as_array().unwrap();
    assert_eq!(expansions[asked["expansion"].as_u64().unwrap() as usize], json!("traders-builders"), "{asked}");
    assert_eq!(
        (&state["pending"]["expansion"], &state["pending"]["name"]),
        (&json!("traders-builders"), &json!("Traders & Builders"))
    );
    let seat = state["pending"]["player"].clone();
    let choose = |option: u16| json!({"cmd": "act", "game": "g1", "player": seat, "action": {"type": "choose", "option": option}});
    let reply = err(&mut s, choose(99), "illegal-action", Some("action.option"));
    assert_eq!(
        reply["error"]["message"],
        json!("illegal action: option 99 is out of range: `builder-double-turn` has options 0 to 1")
    );
    assert_eq!(ok(&mut s, json!({"cmd": "state", "game": "g1"}))["state"], state, "the game is as it was");
    ok(&mut s, choose(1));
}

#[test]
fn figures_and_goods_are_told_by_what_players_call_them() {
    let mut s = session();
    let created = ok(&mut s, json!({"cmd": "create", "config": TB}));
    let names = &created["names"];
    let builder = names["figures"].as_array().unwrap().iter().position(|f| f == "traders-builders:builder").unwrap();
    assert_eq!(names["figure_names"][0], json!({"one": "meeple", "many": "meeples"}));
    assert_eq!(names["figure_names"][builder], json!({"one": "builder", "many": "builders"}));
    let wine = names["tokens"].as_array().unwrap().iter().position(|t| t == "traders-builders:wine").unwrap();
    assert_eq!(
        names["token_names"][wine],
        json!({"one": "wine", "many": "wine"}),
        "goods are counted as the manifest says"
    );
    let own = names["categories"].as_array().unwrap().iter().position(|c| c == "traders-builders").unwrap();
    assert_eq!(names["category_names"][own], json!("Traders & Builders"), "its own category, by its name");
    assert_eq!(names["category_names"][0], names["categories"][0], "a base category is its own name");
    // The first builder on offer: its text names it as players do, its action by number.
    let mut state = created["state"].clone();
    for k in 0..400 {
        let legal = state["legal"].as_array().unwrap();
        if let Some(offer) = legal.iter().find(|a| a["action"]["figure"] == json!(builder)) {
            assert!(offer["text"].as_str().unwrap().starts_with("put a builder on the "), "{offer}");
            return;
        }
        let index = k * 7 % legal.len();
        state = ok(&mut s, json!({"cmd": "act", "game": "g1", "index": index}))["state"].clone();
    }
    panic!("no builder was ever offered");
}

#[test]
fn an_id_comes_back_as_the_docs_say() {
    let mut s = session();
    let cases = [
        ("\"a-1\"", "\"a-1\""),
        ("18446744073709551615", "18446744073709551615"),
        ("-9223372036854775808", "-9223372036854775808"),
        // Past 64-bit integers, or with a fraction or exponent: the nearest 64-bit float.
        ("123456789012345678901234567890", "1.2345678901234568e+29"),
        ("1e2", "100.0"),
        ("-0", "-0.0"),
        ("\"\\u0041\"", "\"A\""),
        ("{\"b\": 1, \"a\": [2]}", "{\"a\":[2],\"b\":1}"),
    ];
    for (sent, back) in cases {
        let reply = s.handle_line(&format!("{{\"id\": {sent}, \"cmd\": \"version\"}}"));
        assert!(reply.starts_with(&format!("{{\"id\":{back},\"ok\":true,")), "{sent}: {reply}");
    }
}

#[test]
fn a_config_object_may_give_its_own_tile_numbers_and_a_wrong_one_is_named_by_its_field() {
    let mut s = session();
    let config = json!({"players": 2, "base": {"copies": 2, "tiles": {"V": 0}}});
    let created = ok(&mut s, json!({"cmd": "create", "config": config}));
    assert_eq!(created["state"]["turn"]["tiles_left"], json!(2 * 72 - 1 - 6 - 1), "two boxes but their 6 V, one drawn");
    let saved = ok(&mut s, json!({"cmd": "save", "game": created["game"]}));
    assert_eq!(saved["replay"]["config"]["base"]["tiles"], json!({"V": 0}));
    let loaded = ok(&mut s, json!({"cmd": "load", "replay": saved["replay"]}));
    assert_eq!(loaded["state"]["turn"]["tiles_left"], created["state"]["turn"]["tiles_left"]);

    let unknown = json!({"players": 2, "base": {"tiles": {"Vee": 1}}});
    let reply = err(&mut s, json!({"cmd": "create", "config": unknown}), "bad-config", Some("config.base.tiles.Vee"));
    assert!(reply["error"]["message"].as_str().unwrap().contains("no tile `Vee`"), "{reply}");
    let many = json!({"players": 2, "expansions": [{"id": "traders-builders", "copies": 11}]});
    err(&mut s, json!({"cmd": "create", "config": many}), "bad-config", Some("config.expansions[0].copies"));

    // A number that plays but may not be meant is named by its field too: C3 has no plain C.
    let nothing = json!({"players": 2, "base": {"tiles": {"C": 0}}});
    let created = ok(&mut s, json!({"cmd": "create", "config": nothing}));
    assert_eq!(
        created["warnings"],
        json!(["config.base.tiles.C: `C = 0` changes nothing: edition C3 of tileset `base` has none"])
    );
    // And, in a replay, by its field below the replay.
    let saved = ok(&mut s, json!({"cmd": "save", "game": created["game"]}));
    let loaded = ok(&mut s, json!({"cmd": "load", "replay": saved["replay"]}));
    assert_eq!(
        loaded["warnings"],
        json!(["replay.config.base.tiles.C: `C = 0` changes nothing: edition C3 of tileset `base` has none"])
    );
}
