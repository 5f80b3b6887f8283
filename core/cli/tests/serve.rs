//! `meeple serve --stdio` as another program sees it: a whole game over JSON lines, with bad
//! lines in between that get their errors while the game goes on.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn a_whole_game_over_stdio_survives_bad_lines() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .args(["serve", "--stdio"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("meeple starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |line: String| -> Value {
        writeln!(stdin, "{line}").unwrap();
        serde_json::from_str(&lines.next().expect("a reply").unwrap()).expect("replies are JSON")
    };

    let created = ask(json!({"id": 1, "cmd": "create", "config": "players = 2\nseed = 11\n"}).to_string());
    assert_eq!(created["ok"], json!(true), "{created}");
    let mut state = created["result"]["state"].clone();
    let mut actions = 0;
    while state["over"] == json!(false) {
        if actions % 10 == 0 {
            let bad = ask("{\"cmd\": \"act\", \"game\": \"g1\", \"index\": ".to_string());
            assert_eq!(bad["error"]["code"], json!("bad-json"));
            let wrong = ask(json!({"cmd": "act", "game": "g1", "action": {"type": "choose", "option": 9}}).to_string());
            assert_eq!(wrong["error"]["code"], json!("illegal-action"));
        }
        let n = state["legal"].as_array().unwrap().len();
        let reply = ask(json!({"id": actions, "cmd": "act", "game": "g1", "index": (actions * 13) % n}).to_string());
        assert_eq!(reply["ok"], json!(true), "{reply}");
        assert_eq!(reply["id"], json!(actions));
        state = reply["result"]["state"].clone();
        actions += 1;
    }
    assert!(actions > 72, "every tile was placed ({actions} actions)");
    let scores: Vec<i64> = state["players"].as_array().unwrap().iter().map(|p| p["score"].as_i64().unwrap()).collect();
    assert!(scores.iter().any(|&s| s > 0), "{scores:?}");

    // A line longer than any request is refused without being kept, and the next one is read.
    let long = format!("{{\"cmd\": \"version\", \"x\": \"{}\"}}", "y".repeat(meeple_protocol::MAX_MESSAGE));
    let refused = ask(long);
    assert_eq!(refused["error"]["code"], json!("bad-request"), "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().starts_with("a request is at most"), "{refused}");
    let version = ask(json!({"id": "after", "cmd": "version"}).to_string());
    assert_eq!((&version["ok"], &version["id"]), (&json!(true), &json!("after")), "{version}");

    // A field given twice is refused, not settled by the last one.
    let twice = ask(r#"{"id": 1, "cmd": "version", "cmd": "expansions"}"#.to_string());
    assert_eq!((&twice["error"]["code"], &twice["error"]["field"]), (&json!("bad-request"), &json!("cmd")), "{twice}");
    let version = ask(json!({"id": "after", "cmd": "version"}).to_string());
    assert_eq!((&version["ok"], &version["id"]), (&json!(true), &json!("after")), "{version}");

    // A line of blanks is no request, after a byte-order mark too: the next line is the answered one.
    let version = ask(format!("{}  \n{}", "\u{feff}", json!({"id": "bom", "cmd": "version"})));
    assert_eq!((&version["ok"], &version["id"]), (&json!(true), &json!("bom")), "{version}");

    drop(stdin);
    assert!(child.wait().unwrap().success(), "meeple ends when its input closes");
}
