//! `meeple serve --listen` as its clients see it: real HTTP requests and real WebSocket
//! connections to the program, and a `kill -9` in the middle of games.

mod support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tempfile::TempDir;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// A running server and the address it bound.
struct Server {
    child: Child,
    addr: String,
    banner: String,
}

impl Server {
    /// Starts `meeple serve --listen 127.0.0.1:0` on `db`, from the repository's root (so that
    /// configs can be named by path).
    fn start(db: &Path) -> Server {
        Server::start_with(db, &[])
    }

    /// The same, with more arguments.
    fn start_with(db: &Path, args: &[&str]) -> Server {
        Server::spawn(db, args, Stdio::inherit())
    }

    /// The same, keeping what the server writes to stderr for [`Server::kill_telling`] (only
    /// for a server that says little there: a full pipe would stop it).
    fn start_telling(db: &Path, args: &[&str]) -> Server {
        Server::spawn(db, args, Stdio::piped())
    }

    fn spawn(db: &Path, args: &[&str], stderr: Stdio) -> Server {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(db)
            .args(args)
            .current_dir(repo)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("meeple starts");
        let mut banner = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut banner).unwrap();
        let addr = banner.split("http://").nth(1).and_then(|s| s.split_whitespace().next()).unwrap_or_default();
        assert!(!addr.is_empty(), "the first line names the address: {banner:?}");
        Server { addr: addr.to_string(), child, banner }
    }

    /// `kill -9`: no chance to flush or close anything.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// [`Server::kill`], then what it wrote to stderr ([`Server::start_telling`]).
    fn kill_telling(mut self) -> String {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let mut told = String::new();
        self.child.stderr.take().expect("started telling").read_to_string(&mut told).unwrap();
        told
    }

    /// One HTTP request on a fresh connection: the status and the JSON body.
    fn http(&self, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let body = body.unwrap_or("");
        let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{auth}Content-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        let status = reply.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
        let json = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
        (status, serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {reply}")))
    }

    fn get(&self, path: &str) -> Value {
        let (status, reply) = self.http("GET", path, None, None);
        assert_eq!(status, 200, "{reply}");
        reply["result"].clone()
    }

    /// Acts by index and returns the result; panics unless it succeeded.
    fn act(&self, game: &str, token: &str, index: usize) -> Value {
        let body = json!({ "index": index }).to_string();
        let (status, reply) = self.http("POST", &format!("/games/{game}/act"), Some(token), Some(&body));
        assert_eq!(status, 200, "{reply}");
        reply["result"].clone()
    }

    /// Creates a game; returns its id and seat tokens.
    fn create(&self, request: Value) -> (String, Vec<String>, String) {
        let (status, reply) = self.http("POST", "/games", None, Some(&request.to_string()));
        assert_eq!(status, 201, "{reply}");
        let r = &reply["result"];
        let seats = r["seats"].as_array().unwrap().iter().map(|s| s["token"].as_str().unwrap().to_string()).collect();
        (r["game"].as_str().unwrap().to_string(), seats, r["owner"].as_str().unwrap().to_string())
    }
}

/// Writes `bytes` on a fresh connection and reads until the server closes it (or 10 s pass).
fn raw(server: &Server, bytes: &[u8]) -> String {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(bytes).unwrap();
    read_to_close(&mut stream)
}

fn read_to_close(stream: &mut TcpStream) -> String {
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

/// The status and the error code of each reply in `text`.
fn statuses(text: &str) -> Vec<(u16, String)> {
    text.split("HTTP/1.1 ")
        .skip(1)
        .map(|reply| {
            let status = reply[..3].parse().unwrap();
            let code = reply.split("\"code\":\"").nth(1).and_then(|c| c.split('"').next()).unwrap_or("");
            (status, code.to_string())
        })
        .collect()
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A database file of its own for each test, in a folder removed when the `TempDir` is dropped:
/// bound before the server, it outlives the server, which is stopped first.
fn fresh_db(name: &str) -> (TempDir, PathBuf) {
    let dir = support::scratch(&format!("listen-{name}"));
    let db = dir.path().join("games.sqlite");
    (dir, db)
}

/// A server on a database of its own ([`fresh_db`]) with one game: the base game for two,
/// seed 3. Returns the folder, the server and the game's id, seat tokens and owner's token.
fn a_server_with_a_game(name: &str) -> (TempDir, Server, (String, Vec<String>, String)) {
    let (dir, db) = fresh_db(name);
    let server = Server::start(&db);
    let game = server.create(json!({"config": "players = 2\nseed = 3\n"}));
    (dir, server, game)
}

/// Plays `n` actions (or to the end) by the seat to act, choosing by a fixed rule.
fn play(server: &Server, game: &str, seats: &[String], n: usize) -> Value {
    let mut state = server.get(&format!("/games/{game}"))["state"].clone();
    for k in 0..n {
        if state["over"] == json!(true) {
            break;
        }
        let seat = state["to_act"].as_u64().unwrap() as usize;
        let legal = state["legal"].as_array().unwrap().len();
        state = server.act(game, &seats[seat], (k * 7 + 3) % legal)["state"].clone();
    }
    state
}

type Socket = WebSocket<MaybeTlsStream<TcpStream>>;

fn connect(server: &Server, game: &str, token: Option<&str>) -> Socket {
    connect_with(server, game, &token.map(|t| format!("token={t}")).unwrap_or_default())
}

/// A spectator's socket with a query (`brief=true`).
fn connect_with(server: &Server, game: &str, query: &str) -> Socket {
    let (ws, _) = tungstenite::connect(format!("ws://{}/games/{game}/ws?{query}", server.addr)).expect("connects");
    if let MaybeTlsStream::Plain(s) = ws.get_ref() {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    }
    ws
}

fn receive(ws: &mut Socket) -> Value {
    loop {
        match ws.read().expect("a message") {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            _ => continue,
        }
    }
}

fn send(ws: &mut Socket, request: Value) -> Value {
    ws.send(Message::text(request.to_string())).unwrap();
    let reply = receive(ws);
    assert_eq!(reply["type"], json!("reply"), "a reply comes before the update it causes: {reply}");
    reply
}

#[test]
fn every_player_receives_the_same_updates_over_websockets() {
    let (_dir, db) = fresh_db("ws");
    let server = Server::start(&db);
    let (game, seats, _) = server.create(json!({"config": "players = [\"Ann\", \"Ben\"]\nseed = 5\n"}));
    let mut sockets = [connect(&server, &game, Some(&seats[0])), connect(&server, &game, Some(&seats[1]))];
    let mut spectator = connect(&server, &game, None);
    for (seat, ws) in sockets.iter_mut().enumerate() {
        let welcome = receive(ws);
        assert_eq!(
            (welcome["type"].clone(), welcome["seat"].clone(), welcome["seq"].clone()),
            (json!("welcome"), json!(seat), json!(0))
        );
    }
    let mut state = receive(&mut spectator)["state"].clone();
    // A socket that cannot join is opened and refused on it, as a browser can read: the error,
    // then the close code 4000 + the HTTP status.
    for (query, code, close) in [("token=0000", "bad-token", 4401), ("tokn=0", "bad-request", 4400)] {
        let mut refused = connect_with(&server, &game, query);
        let reply = receive(&mut refused);
        assert_eq!(
            (&reply["type"], &reply["ok"], &reply["error"]["code"]),
            (&json!("reply"), &json!(false), &json!(code))
        );
        let closed = loop {
            match refused.read() {
                Ok(tungstenite::Message::Close(frame)) => break frame,
                Ok(_) => continue,
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(closed.map(|f| u16::from(f.code)), Some(close), "{query}");
    }
    let refused = |query: &str, on: &str| {
        let mut refused = connect_with(&server, on, query);
        let reply = receive(&mut refused);
        let closed = loop {
            match refused.read() {
                Ok(tungstenite::Message::Close(frame)) => break frame.map(|f| u16::from(f.code)),
                Ok(_) => continue,
                Err(e) => panic!("{e}"),
            }
        };
        (reply["error"]["code"].clone(), closed)
    };
    assert_eq!(refused("", "g99"), (json!("unknown-game"), Some(4404)));
    assert_eq!(refused("since=99", &game), (json!("stale"), Some(4409)));

    let mut seen: [Vec<Value>; 3] = Default::default();
    let mut k = 0;
    while state["over"] == json!(false) {
        let seat = state["to_act"].as_u64().unwrap() as usize;
        if k % 10 == 0 {
            let wrong = send(&mut sockets[1 - seat], json!({"id": k, "cmd": "act", "index": 0}));
            assert_eq!(wrong["error"]["code"], json!("not-your-turn"), "{wrong}");
            assert_eq!(wrong["error"]["field"], json!("token"), "the seat came with the socket's token: {wrong}");
            let watcher = send(&mut spectator, json!({"cmd": "act", "index": 0}));
            assert_eq!(watcher["error"]["code"], json!("bad-token"), "{watcher}");
        }
        let legal = state["legal"].as_array().unwrap().len();
        let reply = send(&mut sockets[seat], json!({"id": k, "cmd": "act", "index": (k * 13) % legal, "brief": true}));
        assert_eq!((reply["ok"].clone(), reply["id"].clone()), (json!(true), json!(k)), "{reply}");
        for (i, ws) in sockets.iter_mut().chain([&mut spectator]).enumerate() {
            let update = receive(ws);
            assert_eq!((update["type"].clone(), update["seq"].clone()), (json!("update"), json!(k + 1)), "{update}");
            seen[i].push(update);
        }
        state = seen[2].last().unwrap()["state"].clone();
        k += 1;
    }
    assert!(k > 72, "a whole game ({k} steps)");
    assert_eq!(seen[0], seen[1], "both players saw the same updates");
    assert_eq!(seen[0], seen[2], "and so did the spectator");
    let last = &seen[0][k - 1];
    assert!(last["events"].as_array().unwrap().iter().any(|e| e["event"] == json!("game-end")), "{last}");
    assert_eq!(server.get(&format!("/games/{game}"))["state"], state, "the pushed state is the game's");
    let log = server.get(&format!("/games/{game}/updates?since={}", k - 2));
    assert_eq!(log["updates"].as_array().unwrap().len(), 2, "the last two updates, for a client that reconnects");
}

/// What a client can see of each game: its state, its updates and (with the owner token) its replay.
fn snapshot(server: &Server, games: &[(&str, &str)]) -> Vec<Value> {
    let mut seen = Vec::new();
    for (game, owner) in games {
        seen.push(server.get(&format!("/games/{game}")));
        seen.push(server.get(&format!("/games/{game}/updates")));
        let (status, replay) = server.http("GET", &format!("/games/{game}/replay"), Some(owner), None);
        assert_eq!(status, 200, "{replay}");
        seen.push(replay);
    }
    seen
}

#[test]
fn a_killed_server_restarts_with_every_game_as_it_was() {
    let (_dir, db) = fresh_db("restart");
    let server = Server::start(&db);
    let (base, base_seats, base_owner) = server.create(json!({"config": "players = 2\nseed = 7\n"}));
    let (tb, tb_seats, tb_owner) = server.create(json!({"path": "configs/traders-builders-tollkeepers.toml"}));
    play(&server, &base, &base_seats, 25);
    play(&server, &tb, &tb_seats, 40);
    // An undo is a step too: place a tile, take it back, place another.
    let mut state = server.get(&format!("/games/{base}"))["state"].clone();
    while state["turn"]["stage"] != json!("place-tile") {
        state = play(&server, &base, &base_seats, 1);
    }
    let seat = state["to_act"].as_u64().unwrap() as usize;
    server.act(&base, &base_seats[seat], 0);
    let (status, undone) = server.http("POST", &format!("/games/{base}/undo"), Some(&base_seats[seat]), None);
    assert_eq!(status, 200, "{undone}");
    let step = |state: &Value| state["seq"].as_u64().unwrap();
    let (mut back, mut was) = (undone["result"]["state"].clone(), state.clone());
    assert_eq!((step(&back), undone["result"]["seq"].as_u64().unwrap()), (step(&was) + 2, step(&was) + 2));
    back.as_object_mut().unwrap().remove("seq");
    was.as_object_mut().unwrap().remove("seq");
    assert!(back == was, "the tile is back in hand");
    server.act(&base, &base_seats[seat], 1);

    let before = snapshot(&server, &[(&base, &base_owner), (&tb, &tb_owner)]);
    server.kill();

    let server = Server::start(&db);
    assert!(server.banner.contains("(2 games from"), "{}", server.banner);
    let after = snapshot(&server, &[(&base, &base_owner), (&tb, &tb_owner)]);
    assert!(before == after, "every game, its updates and its replay are as they were");

    // The old tokens still hold, new ids do not repeat old ones, and the games play on.
    let (third, _, _) = server.create(json!({}));
    assert_eq!(third, "g3");
    let end = play(&server, &base, &base_seats, 1000);
    assert_eq!(end["over"], json!(true));
    play(&server, &tb, &tb_seats, 10);
    let (status, _) = server.http("DELETE", &format!("/games/{tb}"), Some(&tb_owner), None);
    assert_eq!(status, 200);
    server.kill();

    let server = Server::start(&db);
    assert!(server.banner.contains("(2 games from"), "a closed game stays closed: {}", server.banner);
    assert_eq!(server.get(&format!("/games/{base}"))["state"], end);
    server.kill();

    // Rules files changed since a game started (as the database says): not served, unless
    // `--other-rules` is given and every step still leads to its logged state.
    let file = rusqlite::Connection::open(&db).unwrap();
    file.execute_batch(&format!("UPDATE games SET ruleset = 'feedfeedfeedfeed' WHERE id = '{base}'")).unwrap();
    drop(file);
    let server = Server::start_telling(&db, &[]);
    assert!(server.banner.contains("(1 game from"), "{}", server.banner);
    let told = server.kill_telling();
    assert!(
        told.contains(&format!("warning: game {base} is not served: it was started with ruleset feedfeedfeedfeed"))
    );
    assert!(
        told.contains("note: with `--other-rules`, games started on files that changed since are served"),
        "{told}"
    );
    let server = Server::start_telling(&db, &["--other-rules"]);
    assert!(server.banner.contains("(2 games from"), "{}", server.banner);
    assert_eq!(server.get(&format!("/games/{base}"))["state"], end);
    let told = server.kill_telling();
    assert!(told.contains(&format!("every logged step checked: {base}")), "{told}");
    // From then on, the game is recorded as playing on these rules.
    let server = Server::start_telling(&db, &[]);
    assert!(server.banner.contains("(2 games from"), "{}", server.banner);
    assert_eq!(server.kill_telling(), "");
}

#[test]
fn http_errors_carry_their_codes_and_change_nothing() {
    let (_dir, server, (game, seats, owner)) = a_server_with_a_game("errors");
    let url = format!("/games/{game}");
    let act = format!("/games/{game}/act");
    let before = server.get(&url);
    let expect = |(status, reply): (u16, Value), want_status: u16, code: &str| {
        assert_eq!((status, reply["error"]["code"].clone()), (want_status, json!(code)), "{reply}");
        assert_eq!(server.get(&url), before, "{code}: the game is as it was");
    };
    expect(server.http("POST", "/games", None, Some("{\"config\": ")), 400, "bad-json");
    expect(server.http("POST", &act, Some(&seats[0]), Some("{\"index\": \"x\"}")), 400, "bad-request");
    expect(server.http("GET", "/nowhere", None, None), 404, "unknown-command");
    expect(server.http("GET", "/games/g99", None, None), 404, "unknown-game");
    expect(server.http("POST", "/games", None, Some("{\"config\": \"players = 9\"}")), 400, "bad-config");
    expect(server.http("POST", "/games", None, Some("{\"path\": \"/etc/hostname\"}")), 400, "bad-request");
    expect(server.http("POST", "/games", None, Some("{\"path\": \"configs/../../x.toml\"}")), 400, "bad-request");
    expect(server.http("POST", &act, Some(&seats[0]), Some("{\"index\": 9999}")), 409, "illegal-action");
    expect(server.http("POST", &act, Some(&seats[1]), Some("{\"index\": 0}")), 409, "not-your-turn");
    expect(server.http("POST", &act, Some(&seats[0]), Some("{\"index\": 0, \"seq\": 5}")), 409, "stale");
    // The seat came with the token: the error blames it, not a `player` the client never sent.
    let (_, reply) = server.http("POST", &act, Some(&seats[1]), Some("{\"index\": 0}"));
    assert_eq!(reply["error"]["field"], json!("token"), "{reply}");
    let (_, reply) = server.http("POST", &act, Some(&seats[1]), Some("{\"index\": 0, \"player\": 1}"));
    assert_eq!(reply["error"]["field"], json!("player"), "{reply}");
    expect(server.http("POST", &act, None, Some("{\"index\": 0}")), 401, "bad-token");
    expect(server.http("POST", &act, Some("feed"), Some("{\"index\": 0}")), 401, "bad-token");
    expect(server.http("POST", &format!("{url}/undo"), Some(&seats[0]), None), 409, "nothing-to-undo");
    // A misspelt field is refused, not ignored; so is a field that contradicts the route or token.
    let bad = |body: &str, field: &str| {
        let (status, reply) = server.http("POST", &act, Some(&seats[0]), Some(body));
        assert_eq!((status, reply["error"]["field"].clone()), (400, json!(field)), "{body}: {reply}");
        assert_eq!(server.get(&url), before, "{body}: the game is as it was");
    };
    bad("{\"index\": 0, \"palyer\": 0}", "palyer");
    bad("{\"index\": 0, \"player\": 1}", "player");
    bad("{\"index\": 0, \"game\": \"g7\"}", "game");
    bad("{\"index\": 0, \"cmd\": \"fly\"}", "cmd");
    let (status, reply) = server.http("POST", &format!("{url}/undo"), Some(&seats[0]), Some("{\"game\": \"g7\"}"));
    assert_eq!((status, reply["error"]["field"].clone()), (400, json!("game")), "{reply}");
    let (status, reply) = server.http("POST", &format!("{url}/undo"), Some(&seats[0]), Some("{\"cmd\": \"close\"}"));
    assert_eq!((status, reply["error"]["field"].clone()), (400, json!("cmd")), "{reply}");
    let (status, reply) = server.http("POST", "/games", None, Some("{\"cmd\": \"verify\"}"));
    assert_eq!((status, reply["error"]["field"].clone()), (400, json!("cmd")), "{reply}");
    // Fields are named: an array is not read as the fields in order.
    expect(server.http("POST", &act, Some(&seats[0]), Some("[\"g1\", null, 0, null, false]")), 400, "bad-request");
    expect(server.http("POST", "/games", None, Some("[\"players = 3\"]")), 400, "bad-request");
    expect(server.http("POST", "/games", None, Some("{\"players\": 3}")), 400, "bad-request");
    expect(server.http("GET", &format!("{url}?brief=yes"), None, None), 400, "bad-request");
    expect(server.http("GET", &format!("{url}?all_features=yes"), None, None), 400, "bad-request");
    expect(
        server.http("POST", &format!("{act}?all_features=true"), Some(&seats[0]), Some("{\"index\": 0}")),
        400,
        "bad-request",
    );
    // Every feature on asking, the open and empty ones of the start tile too.
    let every = server.get(&format!("{url}?all_features=true"))["state"]["features"].clone();
    let kinds: Vec<&str> = every.as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["city", "road", "field", "field"], "the start tile's features: {every}");
    assert_eq!(before["state"]["features"], json!([]), "by default only those completed or held");
    expect(server.http("DELETE", &url, Some(&seats[0]), None), 401, "bad-token");
    expect(server.http("GET", &format!("{url}/replay"), Some(&seats[0]), None), 401, "bad-token");
    let (status, listed) = server.http("GET", "/games", None, None);
    assert_eq!((status, listed["result"]["games"][0]["game"].clone()), (200, json!(game)));
    // `null` is "not given", as over stdio.
    let (status, reply) = server.http("POST", &act, Some(&seats[0]), Some("{\"index\": 0, \"player\": null}"));
    assert_eq!((status, reply["result"]["seq"].clone()), (200, json!(1)), "{reply}");
    assert_eq!(reply["result"]["state"]["seq"], json!(1), "the state's step is the reply's");
    // A body that is not an object of fields takes nothing back; a misspelt query is refused.
    let acted = server.get(&url);
    let (status, reply) = server.http("POST", &format!("{url}/undo"), Some(&seats[0]), Some("[1]"));
    assert_eq!((status, reply["error"]["code"].clone()), (400, json!("bad-request")), "{reply}");
    assert_eq!(server.get(&url), acted, "nothing was taken back");
    let (status, reply) = server.http("GET", &format!("{url}?breif=true"), None, None);
    assert_eq!((status, reply["error"]["field"].clone()), (400, json!("breif")), "{reply}");
    // A parameter given twice is refused: which of the two would count is not for a reader to guess.
    for query in ["brief=true&brief=false", "since=0&since=1", &format!("token={}&token={}", seats[1], seats[0])] {
        let (status, reply) = server.http("POST", &format!("{act}?{query}"), Some(&seats[0]), Some("{\"index\": 0}"));
        let field = query.split('=').next().unwrap();
        assert_eq!((status, reply["error"]["field"].clone()), (400, json!(field)), "{query}: {reply}");
        assert_eq!(server.get(&url), acted, "{query}: the game is as it was");
    }
    // So is a token in the query that is not the header's; the same token twice is one token.
    let query = format!("{act}?token={}", seats[1]);
    let (status, reply) = server.http("POST", &query, Some(&seats[0]), Some("{\"index\": 0}"));
    assert_eq!((status, reply["error"]["field"].clone()), (400, json!("token")), "{reply}");
    assert_eq!(server.get(&url), acted, "two tokens: the game is as it was");
    let query = format!("{url}/replay?token={owner}");
    assert_eq!(server.http("GET", &query, Some(&owner), None).0, 200, "the same token twice");
    // `?brief=true` on act, as on every route that replies with a state.
    let (status, undone) = server.http("POST", &format!("{url}/undo?brief=true"), Some(&seats[0]), None);
    assert_eq!((status, undone["result"]["seq"].clone()), (200, json!(2)), "{undone}");
    let (_, acted) = server.http("POST", &format!("{act}?brief=true"), Some(&seats[0]), Some("{\"index\": 0}"));
    let state = &acted["result"]["state"];
    assert!(state["legal"].is_array() && state.get("board").is_none(), "a brief state: {acted}");
    // The route's own command may be named.
    let (status, reply) = server.http("POST", &act, Some(&seats[0]), Some("{\"index\": 0, \"cmd\": \"act\"}"));
    assert_eq!(status, 200, "{reply}");
    let (_, reply) = server.http("POST", &format!("{url}/undo"), Some(&seats[0]), Some("{\"cmd\": \"undo\"}"));
    assert_ne!(reply["error"]["field"], json!("cmd"), "{reply}");
    assert_eq!(server.http("DELETE", &url, Some(&owner), None).0, 200);
    assert_eq!(server.http("GET", &url, None, None).0, 404, "closed");
}

#[test]
fn websocket_commands_are_checked_and_a_closed_game_ends_its_sockets() {
    let (_dir, db) = fresh_db("ws-checks");
    let server = Server::start(&db);
    let (game, seats, owner) = server.create(json!({"config": "players = 2\nseed = 3\n", "seed": 5}));
    let replay = |server: &Server| {
        let (_, reply) = server.http("GET", &format!("/games/{game}/replay"), Some(&owner), None);
        reply["result"]["replay"]["setup"]["seed"].clone()
    };
    assert_eq!(replay(&server), json!(5), "a seed given with `create` wins over the config's");
    let names = server.get(&format!("/games/{game}/names"))["names"].clone();
    assert_eq!(names["figures"][0], json!("meeple"), "{names}");
    let start = server.get(&format!("/games/{game}"))["state"]["board"][0]["tile"].clone();
    assert!(names["tiles"].as_array().unwrap().iter().any(|t| t["tile"] == start), "{start} is named: {names}");
    let mut ws = connect(&server, &game, Some(&seats[0]));
    assert_eq!(receive(&mut ws)["type"], json!("welcome"));
    let refused = |ws: &mut Socket, request: Value, field: &str| {
        let reply = send(ws, request.clone());
        assert_eq!((reply["ok"].clone(), reply["error"]["field"].clone()), (json!(false), json!(field)), "{request}");
    };
    refused(&mut ws, json!({"id": 1, "cmd": "act", "index": 0, "player": 1}), "player");
    refused(&mut ws, json!({"id": 2, "cmd": "act", "index": 0, "palyer": 0}), "palyer");
    refused(&mut ws, json!({"id": 3, "cmd": "state", "brief": "yes"}), "brief");
    refused(&mut ws, json!({"id": 3, "cmd": "state", "all_features": 1}), "all_features");
    let every = send(&mut ws, json!({"id": 4, "cmd": "state", "all_features": true}));
    assert_eq!(every["result"]["state"]["features"].as_array().map(Vec::len), Some(4), "{every}");
    // In the words of stdio's replies, whatever the command.
    for mut request in [json!({"cmd": "state"}), json!({"cmd": "act", "index": 0}), json!({"cmd": "undo"})] {
        request["brief"] = json!("yes");
        let reply = send(&mut ws, request.clone());
        let message = &reply["error"]["message"];
        assert_eq!(message, &json!("expected true or false; got string \"yes\""), "{request}: {reply}");
    }
    refused(&mut ws, json!({"id": 4, "cmd": "state", "game": "g9"}), "game");
    // A binary frame is read as text.
    ws.send(Message::binary(json!({"id": 5, "cmd": "state"}).to_string().into_bytes())).unwrap();
    let reply = receive(&mut ws);
    assert_eq!((reply["id"].clone(), reply["ok"].clone()), (json!(5), json!(true)), "{reply}");

    // A brief watcher: the whole state and the names to start with, then brief updates.
    let (brief, full) = {
        let mut brief = connect_with(&server, &game, "brief=true");
        let welcome = receive(&mut brief);
        assert!(welcome["state"]["board"].is_array() && welcome["names"]["figures"][0] == json!("meeple"));
        server.act(&game, &seats[0], 0);
        let update = receive(&mut brief);
        assert_eq!(update["type"], json!("update"));
        (update["state"].clone(), receive(&mut ws)["state"].clone())
    };
    assert!(brief.get("board").is_none() && full["board"].is_array(), "{brief}");
    assert_eq!(
        (&brief["legal"].as_array().unwrap().len(), &brief["to_act"]),
        (&full["legal"].as_array().unwrap().len(), &full["to_act"])
    );

    assert_eq!(server.http("DELETE", &format!("/games/{game}"), Some(&owner), None).0, 200);
    assert_eq!(receive(&mut ws), json!({"type": "closed", "game": game}));
    let frame = loop {
        match ws.read() {
            Ok(Message::Close(frame)) => break frame,
            Ok(_) => continue,
            Err(e) => panic!("closed without a close frame: {e}"),
        }
    };
    let frame = frame.expect("the close frame has a code");
    let normal = tungstenite::protocol::frame::coding::CloseCode::Normal;
    assert_eq!((frame.code, frame.reason.as_str()), (normal, "the game was closed"), "a normal closure");
}

#[test]
fn requests_the_server_cannot_read_are_answered_and_end_their_connection() {
    let (_dir, db) = fresh_db("raw");
    let server = Server::start_with(&db, &["--request-timeout", "1"]);
    let games = || server.get("/games")["games"].as_array().unwrap().len();
    // A chunked body is not read: refused before anything is done, not taken for an empty one.
    let chunked = "POST /games HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"x\":\r\n0\r\n\r\n";
    assert_eq!(statuses(&raw(&server, chunked.as_bytes())), [(501, "bad-request".to_string())]);
    let twice = "POST /games HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}";
    assert_eq!(statuses(&raw(&server, twice.as_bytes())), [(400, "bad-request".to_string())]);
    assert_eq!(games(), 0, "no game was created");
    // HTTP/1.0 closes after the reply unless asked to keep the connection.
    let reply = raw(&server, b"GET /version HTTP/1.0\r\n\r\n");
    assert!(reply.starts_with("HTTP/1.1 200") && reply.contains("Connection: close"), "{reply}");
    // Only a GET becomes a WebSocket: a POST asking for one is answered as a POST.
    let upgrade =
        "POST /games HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
    assert_eq!(statuses(&raw(&server, upgrade.as_bytes())), [(201, String::new())]);
    assert_eq!(games(), 1);
    // Digits only in a length; a head longer than 16 KiB is refused as such.
    let plus = "POST /games HTTP/1.1\r\nHost: t\r\nContent-Length: +0\r\n\r\n";
    assert_eq!(statuses(&raw(&server, plus.as_bytes())), [(400, "bad-request".to_string())]);
    let long = format!("GET /{} HTTP/1.1\r\nHost: t\r\n\r\n", "x".repeat(20_000));
    let reply = raw(&server, long.as_bytes());
    assert!(reply.starts_with("HTTP/1.1 400") && reply.contains("request head over 16384 bytes"), "{reply}");
    // A WebSocket handshake without its key is refused, not upgraded.
    let keyless = "GET /games/g1/ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    assert_eq!(statuses(&raw(&server, keyless.as_bytes())), [(400, "bad-request".to_string())]);
    // A new connection that says nothing is let go when a request's time is up.
    let mut silent = TcpStream::connect(&server.addr).unwrap();
    silent.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = std::time::Instant::now();
    assert_eq!(read_to_close(&mut silent), "", "closed without a word");
    assert!(started.elapsed() < Duration::from_secs(5), "after about a second: {:?}", started.elapsed());
    // A blank line after a request (some clients send one) is not the start of a slow request:
    // the kept-alive connection waits for the next one as long as it would without it.
    let mut kept = TcpStream::connect(&server.addr).unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    kept.write_all(b"GET /version HTTP/1.1\r\nHost: t\r\n\r\n\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    kept.write_all(b"GET /version HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").unwrap();
    assert_eq!(statuses(&read_to_close(&mut kept)), [(200, String::new()), (200, String::new())]);
    // A request trickled in a byte at a time is cut off when its time is up, idle or not.
    let mut slow = TcpStream::connect(&server.addr).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = std::time::Instant::now();
    for byte in b"GET /version HTTP/1.1\r\nHost: t\r\n".iter().take(8) {
        if slow.write_all(&[*byte]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let reply = read_to_close(&mut slow);
    assert_eq!(statuses(&reply), [(408, "bad-request".to_string())], "{reply}");
    assert!(started.elapsed() < Duration::from_secs(5), "cut off after about a second: {:?}", started.elapsed());
}

#[test]
fn connections_past_the_limit_are_told_to_come_back() {
    let (_dir, db) = fresh_db("busy");
    let server = Server::start_with(&db, &["--max-connections", "2"]);
    let idle: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(&server.addr).unwrap()).collect();
    let reply = raw(&server, b"GET /version HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(statuses(&reply), [(503, "busy".to_string())], "{reply}");
    assert!(reply.contains("Retry-After: 1"), "{reply}");
    // A connection that closes gives its place back.
    drop(idle);
    let served = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        raw(&server, b"GET /version HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 200")
    });
    assert!(served, "served again once the idle connections closed");

    // One address holds at most its share of them.
    let (_dir, db) = fresh_db("share");
    let server = Server::start_with(&db, &["--max-connections", "10", "--max-per-address", "2"]);
    let idle: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(&server.addr).unwrap()).collect();
    let reply = raw(
        &server,
        b"GET /version HTTP/1.1
Host: t

",
    );
    assert_eq!(statuses(&reply), [(503, "busy".to_string())], "{reply}");
    assert!(reply.contains("your address holds as many connections as one client may"), "{reply}");
    drop(idle);
}

#[test]
fn bodies_held_at_once_are_bounded() {
    let (_dir, db) = fresh_db("bodies");
    let server = Server::start_with(&db, &[]);
    // Sixteen of the largest bodies announced and coming slowly fill what bodies may hold.
    let head = format!("POST /games HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n{{", 8 << 20);
    let slow: Vec<TcpStream> = (0..16)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(head.as_bytes()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let reply = raw(&server, head.as_bytes());
    assert_eq!(statuses(&reply), [(503, "busy".to_string())], "{reply}");
    assert!(reply.contains("Retry-After: 1") && reply.contains("a body of 8388608 bytes must wait"), "{reply}");
    // Small bodies are still served, and the room for large ones comes back when the bodies go.
    let small = "POST /games HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
    assert_eq!(statuses(&raw(&server, small.as_bytes())), [(201, String::new())]);
    drop(slow);
    let large = format!("{}{}}}", head.replace("Host: t", "Host: t\r\nConnection: close"), " ".repeat((8 << 20) - 2));
    let created = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        raw(&server, large.as_bytes()).starts_with("HTTP/1.1 201")
    });
    assert!(created, "a large body is taken again once the slow ones were dropped");
}

#[test]
fn a_websocket_message_the_protocol_cannot_take_closes_with_its_code() {
    use tungstenite::protocol::frame::Frame;
    use tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
    let (_dir, server, (game, _, _)) = a_server_with_a_game("ws-close");
    let close_code = |message: Message| {
        let mut ws = connect(&server, &game, None);
        assert_eq!(receive(&mut ws)["type"], json!("welcome"));
        // The server may close before it has read all of a message too large.
        let _ = ws.send(message);
        loop {
            match ws.read() {
                Ok(Message::Close(frame)) => return frame.map(|f| f.code),
                Ok(_) => continue,
                Err(e) => panic!("closed without a close frame: {e}"),
            }
        }
    };
    let not_utf8 = Frame::message(vec![b'{', 0xff, b'}'], OpCode::Data(Data::Text), true);
    assert_eq!(close_code(Message::Frame(not_utf8)), Some(CloseCode::Invalid));
    let huge = "x".repeat(64 * 1024 + 1); // docs/protocol.md: a WebSocket message holds 64 KiB
    assert_eq!(close_code(Message::text(huge)), Some(CloseCode::Size));
}

#[test]
fn a_field_given_twice_is_refused_over_http_and_websocket() {
    let (_dir, server, (game, seats, _)) = a_server_with_a_game("twice");
    let url = format!("/games/{game}");
    let before = server.get(&url);
    let twice = |field: &str| {
        json!({"code": "bad-request", "message": format!("`{field}` is given more than once; give each field once"),
               "field": field})
    };
    let body = r#"{"index": 0, "player": 1, "player": 0}"#;
    let (status, reply) = server.http("POST", &format!("{url}/act"), Some(&seats[0]), Some(body));
    assert_eq!((status, &reply["error"]), (400, &twice("player")), "{reply}");
    let (status, reply) = server.http("POST", "/games", None, Some(r#"{"seed": 1, "seed": 2}"#));
    assert_eq!((status, &reply["error"]), (400, &twice("seed")), "{reply}");
    let mut ws = connect(&server, &game, Some(&seats[0]));
    assert_eq!(receive(&mut ws)["type"], json!("welcome"));
    ws.send(Message::text(r#"{"id": 1, "cmd": "act", "index": 0, "index": 1}"#)).unwrap();
    let reply = receive(&mut ws);
    assert_eq!((&reply["type"], &reply["error"]), (&json!("reply"), &twice("index")), "{reply}");
    assert_eq!(server.get(&url), before, "the game is as it was");
    assert_eq!(server.get("/games")["games"].as_array().unwrap().len(), 1, "no game was created");
}

#[test]
fn a_seat_out_of_turn_is_told_so_whatever_index_it_sends() {
    let (_dir, server, (game, seats, _)) = a_server_with_a_game("index-turn");
    let act = format!("/games/{game}/act");
    let not_yours = json!({"code": "not-your-turn", "message": "seat 0 is to act, not seat 1", "field": "token"});
    for index in [999, 0] {
        let body = json!({ "index": index }).to_string();
        let (status, reply) = server.http("POST", &act, Some(&seats[1]), Some(&body));
        assert_eq!((status, &reply["error"]), (409, &not_yours), "index {index}: {reply}");
    }
    let mut ws = connect(&server, &game, Some(&seats[1]));
    assert_eq!(receive(&mut ws)["type"], json!("welcome"));
    let reply = send(&mut ws, json!({"id": 1, "cmd": "act", "index": 999}));
    assert_eq!(reply["error"], not_yours, "{reply}");
    let (status, reply) = server.http("POST", &act, Some(&seats[0]), Some("{\"index\": 999}"));
    assert_eq!(
        (status, &reply["error"]["code"], &reply["error"]["field"]),
        (409, &json!("illegal-action"), &json!("index"))
    );
}

#[test]
fn an_undo_refused_to_a_seat_blames_its_token() {
    let (_dir, server, (game, seats, _)) = a_server_with_a_game("undo-token");
    server.act(&game, &seats[0], 0);
    let undo = format!("/games/{game}/undo");
    let not_yours =
        json!({"code": "not-your-action", "message": "the last action is not seat 1's to take back", "field": "token"});
    let (status, reply) = server.http("POST", &undo, Some(&seats[1]), None);
    assert_eq!((status, &reply["error"]), (409, &not_yours), "{reply}");
    let mut ws = connect(&server, &game, Some(&seats[1]));
    assert_eq!(receive(&mut ws)["type"], json!("welcome"));
    assert_eq!(send(&mut ws, json!({"id": 1, "cmd": "undo"}))["error"], not_yours);
    // An undo meant for an earlier step is stale, over HTTP and on the socket.
    let (status, reply) = server.http("POST", &undo, Some(&seats[0]), Some("{\"seq\": 0}"));
    assert_eq!((status, &reply["error"]["code"]), (409, &json!("stale")), "{reply}");
    let mut mine = connect(&server, &game, Some(&seats[0]));
    assert_eq!(receive(&mut mine)["type"], json!("welcome"));
    assert_eq!(send(&mut mine, json!({"id": 2, "cmd": "undo", "seq": 0}))["error"]["code"], json!("stale"));
    let (status, reply) = server.http("POST", &undo, Some(&seats[0]), Some("{\"seq\": 1}"));
    assert_eq!((status, &reply["result"]["seq"]), (200, &json!(2)), "the seat that acted takes it back: {reply}");
}

#[test]
fn a_websocket_reads_a_request_as_stdio_does() {
    let (_dir, server, (game, seats, _)) = a_server_with_a_game("ws-as-stdio");
    let mut ws = connect(&server, &game, Some(&seats[0]));
    assert_eq!(receive(&mut ws)["type"], json!("welcome"));
    let mut stdio = meeple_protocol::Session::new(Vec::new());
    for text in ["[]", "7", r#"{"id": 1}"#, r#"{"id": 2, "cmd": null}"#, r#"{"id": 3, "cmd": 5}"#, "{oops"] {
        ws.send(Message::text(text)).unwrap();
        let over_ws = receive(&mut ws);
        let over_stdio: Value = serde_json::from_str(&stdio.handle_line(text)).unwrap();
        assert_eq!((&over_ws["id"], &over_ws["error"]), (&over_stdio["id"], &over_stdio["error"]), "{text}");
    }
}

#[test]
fn the_bearer_scheme_is_read_in_any_case() {
    let (_dir, server, (game, _, owner)) = a_server_with_a_game("bearer");
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let request = format!(
            "GET /games/{game}/replay HTTP/1.1\r\nHost: t\r\nConnection: close\r\nAuthorization: {scheme} {owner}\r\n\r\n"
        );
        assert_eq!(statuses(&raw(&server, request.as_bytes())), [(200, String::new())], "{scheme}");
    }
    let basic = format!(
        "GET /games/{game}/replay HTTP/1.1\r\nHost: t\r\nConnection: close\r\nAuthorization: Basic {owner}\r\n\r\n"
    );
    let reply = raw(&server, basic.as_bytes());
    assert_eq!(statuses(&reply), [(401, "bad-token".to_string())], "another scheme");
    let told = "(the Authorization header given is `Basic …`: a token is sent as `Authorization: Bearer TOKEN` or `?token=TOKEN`)";
    assert!(reply.contains(told), "{reply}");
    let (status, reply) = server.http("POST", &format!("/games/{game}/act"), None, Some("{\"index\": 0}"));
    assert_eq!((status, reply["error"]["message"].clone()), (401, json!("this needs a seat token")), "no header");
}

/// `docs/protocol.schema.json`, read once.
fn schema() -> &'static Value {
    static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.schema.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })
}

/// Where `value` breaks the schema's definition `name`: the JSON Schema keywords the generated
/// schema uses, checked as JSON Schema 2020-12 reads them (`$ref` within the document, `type`,
/// `const`, `enum`, `properties`, `required`, `additionalProperties`, `items`, `prefixItems`,
/// `minItems`, `maxItems`, `minimum`, `maximum`, `allOf`, `anyOf`, `oneOf`, `not`), but for
/// `pattern`, `format` and `unevaluatedProperties` (only requests have it), which are passed over.
fn breaks(name: &str, value: &Value) -> Vec<String> {
    let definition = &schema()["$defs"][name];
    assert!(definition.is_object(), "the schema defines `{name}`");
    let mut found = Vec::new();
    check(definition, value, "", &mut found);
    found
}

/// Adds to `found` each way `value`, at `at`, breaks `rule`.
fn check(rule: &Value, value: &Value, at: &str, found: &mut Vec<String>) {
    let Some(rule) = rule.as_object() else { return };
    let mut fail = |why: String| found.push(format!("at `{at}`: {why}"));
    if let Some(Value::String(target)) = rule.get("$ref") {
        let name = target.strip_prefix("#/$defs/").expect("references within the document");
        check(&schema()["$defs"][name], value, at, found);
        return;
    }
    if let Some(kinds) = rule.get("type") {
        let kinds: Vec<&str> = match kinds {
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            one => one.as_str().into_iter().collect(),
        };
        if !kinds.iter().any(|kind| is_a(kind, value)) {
            fail(format!("expected {kinds:?}, got {value}"));
        }
    }
    if rule.get("const").is_some_and(|c| c != value) {
        fail(format!("expected {}, got {value}", rule["const"]));
    }
    if let Some(Value::Array(allowed)) = rule.get("enum")
        && !allowed.contains(value)
    {
        fail(format!("expected one of {allowed:?}, got {value}"));
    }
    if let (Some(n), Some(min)) = (value.as_f64(), rule.get("minimum").and_then(Value::as_f64))
        && n < min
    {
        fail(format!("{n} is below {min}"));
    }
    if let (Some(n), Some(max)) = (value.as_f64(), rule.get("maximum").and_then(Value::as_f64))
        && n > max
    {
        fail(format!("{n} is above {max}"));
    }
    if let Some(object) = value.as_object() {
        let properties = rule.get("properties").and_then(Value::as_object);
        for key in rule.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !object.contains_key(key.as_str().unwrap()) {
                fail(format!("lacks `{key}`"));
            }
        }
        for (key, field) in object {
            let at = format!("{at}/{key}");
            match (properties.and_then(|p| p.get(key)), rule.get("additionalProperties")) {
                (Some(property), _) => check(property, field, &at, found),
                (None, Some(Value::Bool(false))) => found.push(format!("at `{at}`: a field the definition lacks")),
                (None, Some(other)) => check(other, field, &at, found),
                (None, None) => {}
            }
        }
    }
    if let Some(items) = value.as_array() {
        let prefix = rule.get("prefixItems").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (i, item) in items.iter().enumerate() {
            let item_rule = prefix.get(i).or_else(|| rule.get("items"));
            if let Some(item_rule) = item_rule {
                check(item_rule, item, &format!("{at}/{i}"), found);
            }
        }
        let count = items.len() as u64;
        if rule.get("minItems").and_then(Value::as_u64).is_some_and(|min| count < min)
            || rule.get("maxItems").and_then(Value::as_u64).is_some_and(|max| count > max)
        {
            found.push(format!("at `{at}`: {count} items, out of the definition's bounds"));
        }
    }
    let passing = |rules: &Value| -> usize {
        let holds = |r: &&Value| {
            let mut own = Vec::new();
            check(r, value, at, &mut own);
            own.is_empty()
        };
        rules.as_array().map_or(0, |list| list.iter().filter(holds).count())
    };
    for rules in rule.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        check(rules, value, at, found);
    }
    if let Some(any) = rule.get("anyOf")
        && passing(any) == 0
    {
        found.push(format!("at `{at}`: none of `anyOf` holds for {}", short(value)));
    }
    if let Some(one) = rule.get("oneOf") {
        let holding = passing(one);
        if holding != 1 {
            found.push(format!("at `{at}`: {holding} of `oneOf` hold for {}, not one", short(value)));
        }
    }
    if let Some(not) = rule.get("not") {
        let mut own = Vec::new();
        check(not, value, at, &mut own);
        if own.is_empty() {
            found.push(format!("at `{at}`: `not` holds for {}", short(value)));
        }
    }
}

/// Whether `value` is of the JSON Schema type `kind`.
fn is_a(kind: &str, value: &Value) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        other => panic!("a type the schema does not use: {other}"),
    }
}

/// The start of a value, for messages.
fn short(value: &Value) -> String {
    value.to_string().chars().take(300).collect()
}

/// Panics unless `value` follows the schema's definition `name`.
fn follows(name: &str, value: &Value) {
    let found = breaks(name, value);
    assert!(found.is_empty(), "not a `{name}`: {found:#?}\n{}", short(value));
}

#[test]
fn every_reply_and_message_the_server_sends_follows_its_schema_definition() {
    let (_dir, db) = fresh_db("schema");
    let server = Server::start(&db);
    // One HTTP request: the body is an `HttpReply`, and its result the route's definition.
    let call = |method: &str, path: &str, token: Option<&str>, body: Option<&str>, result: &str| {
        let (status, reply) = server.http(method, path, token, body);
        follows("HttpReply", &reply);
        if reply["ok"] == json!(true) {
            follows(result, &reply["result"]);
        }
        (status, reply)
    };
    assert_eq!(call("OPTIONS", "/games", None, None, "HttpResult").1, json!({"ok": true, "result": null}));
    for path in ["/", "/version", "/expansions"] {
        assert_eq!(call("GET", path, None, None, "Outcome").0, 200, "{path}");
    }
    let config = json!({"config": "players = [\"Ann\", \"Ben\"]\nseed = 5\n"}).to_string();
    let (status, created) = call("POST", "/games", None, Some(&config), "GameCreated");
    assert_eq!(status, 201, "{created}");
    let created = &created["result"];
    let game = created["game"].as_str().unwrap();
    let owner = created["owner"].as_str().unwrap();
    let seats: Vec<&str> = created["seats"].as_array().unwrap().iter().map(|s| s["token"].as_str().unwrap()).collect();
    // The objects are closed: a field the definition does not name is refused.
    let mut extra = created.clone();
    extra["colour"] = json!("red");
    assert_eq!(breaks("GameCreated", &extra), ["at `/colour`: a field the definition lacks"]);
    let mut unseated = created.clone();
    unseated["seats"][0]["seat"] = json!(-1);
    assert_eq!(breaks("GameCreated", &unseated), ["at `/seats/0/seat`: -1 is below 0"]);
    let mut both = json!({"ok": true, "result": null, "error": {"code": "bad-json", "message": "?"}});
    assert!(!breaks("HttpReply", &both).is_empty(), "`result` and `error` together: {both}");
    both["ok"] = json!("yes");
    assert!(breaks("HttpReply", &both).iter().any(|b| b.contains("at `/ok`: expected")), "{both}");

    let mut ws = connect(&server, game, Some(seats[0]));
    let mut spectator = connect_with(&server, game, "brief=true");
    // One WebSocket message, and the result of a reply as the command's definition.
    let message = |ws: &mut Socket, result: &str| {
        let message = receive(ws);
        follows("SocketMessage", &message);
        if message["type"] == json!("reply") && message["ok"] == json!(true) {
            follows(result, &message["result"]);
        }
        message
    };
    assert_eq!(message(&mut ws, "")["type"], json!("welcome"));
    assert_eq!(message(&mut spectator, "")["type"], json!("welcome"));

    call("GET", "/games", None, None, "GameList");
    call("GET", &format!("/games/{game}"), None, None, "Snapshot");
    call("GET", &format!("/games/{game}?brief=true"), None, None, "Snapshot");
    call("GET", &format!("/games/{game}/names"), None, None, "Outcome");
    let act = json!({"index": 0}).to_string();
    let (status, played) = call("POST", &format!("/games/{game}/act"), Some(seats[0]), Some(&act), "Played");
    assert_eq!(status, 200, "{played}");
    assert_eq!(call("POST", &format!("/games/{game}/undo"), Some(seats[0]), None, "Snapshot").0, 200);
    for ws in [&mut ws, &mut spectator] {
        assert_eq!(message(ws, "")["step"]["act"]["type"], json!("place-tile"));
        assert_eq!(message(ws, "")["step"], json!("undo"));
    }
    let (_, updates) = call("GET", &format!("/games/{game}/updates"), None, None, "UpdateList");
    assert_eq!(updates["result"]["updates"].as_array().unwrap().len(), 2, "{updates}");

    // Each command, the definition of its result (none: it fails), and whether a step follows.
    for (request, result, step) in [
        (json!({"id": "s", "cmd": "state", "brief": true}), "Snapshot", false),
        (json!({"id": 1, "cmd": "act", "index": 0}), "Played", true),
        (json!({"id": [2], "cmd": "undo"}), "Snapshot", true),
        (json!({"id": null, "cmd": "act", "index": 0, "player": 1}), "", false),
        (json!({"cmd": "save"}), "", false),
    ] {
        ws.send(Message::text(request.to_string())).unwrap();
        let reply = message(&mut ws, result);
        assert_eq!((&reply["type"], reply["ok"] == json!(true)), (&json!("reply"), !result.is_empty()), "{reply}");
        if step {
            assert_eq!(message(&mut ws, "")["type"], json!("update"));
        }
    }
    ws.send(Message::text("not json")).unwrap();
    assert_eq!(message(&mut ws, "")["error"]["code"], json!("bad-json"));
    for _ in 0..2 {
        assert_eq!(message(&mut spectator, "")["type"], json!("update"));
    }

    let (_, replay) = call("GET", &format!("/games/{game}/replay"), Some(owner), None, "Outcome");
    let verify = json!({"replay": replay["result"]["replay"]}).to_string();
    assert_eq!(call("POST", "/verify", None, Some(&verify), "Outcome").0, 200);
    // On files that changed since, with `other_rules`: every state is still checked.
    let mut edited = replay["result"]["replay"].clone();
    edited["ruleset"] = json!("0");
    let refused = json!({"replay": edited}).to_string();
    assert_eq!(call("POST", "/verify", None, Some(&refused), "").0, 400);
    let other = json!({"replay": edited, "other_rules": true}).to_string();
    assert_eq!(call("POST", "/verify", None, Some(&other), "Outcome").0, 200);
    // Failures: an unknown game, a wrong token, a route that is none.
    assert_eq!(call("GET", "/games/g99", None, None, "").0, 404);
    assert_eq!(call("POST", &format!("/games/{game}/act"), Some("0000"), Some(&act), "").0, 401);
    assert_eq!(call("PUT", "/nothing", None, None, "").0, 404);
    assert_eq!(call("DELETE", &format!("/games/{game}"), Some(owner), None, "Outcome").1["result"], json!({}));
    for ws in [&mut ws, &mut spectator] {
        assert_eq!(message(ws, "")["type"], json!("closed"));
    }
}

#[test]
fn a_route_reads_only_its_own_query_and_is_told_apart_from_a_wrong_method() {
    let (_dir, server, (game, seats, owner)) = a_server_with_a_game("route-query");
    server.act(&game, &seats[0], 0);
    // `brief` where no state is sent back, `since` where no steps are listed: refused, named.
    let (status, reply) = server.http("GET", "/version?brief=true", None, None);
    assert_eq!((status, &reply["error"]["field"]), (400, &json!("brief")), "{reply}");
    assert_eq!(reply["error"]["message"], json!("GET /version takes no query parameter `brief` (it takes: token)"));
    // A token may come with every request; where none is read, it is ignored.
    assert_eq!(server.http("GET", &format!("/games?token={owner}"), None, None).0, 200);
    let (status, created) = server.http("POST", "/games?brief=true", None, Some("{}"));
    let state = &created["result"]["state"];
    assert!(status == 201 && state["legal"].is_array() && state.get("board").is_none(), "brief: {created}");
    // A WebSocket's route asked without its handshake.
    let (status, reply) = server.http("GET", &format!("/games/{game}/ws"), None, None);
    assert_eq!((status, &reply["error"]["code"]), (400, &json!("bad-request")), "{reply}");
    // A `since` past the game's steps is another game's, or another copy's.
    let (status, reply) = server.http("GET", &format!("/games/{game}/updates?since=99"), None, None);
    assert_eq!((status, &reply["error"]["field"]), (409, &json!("since")), "{reply}");
    let (status, reply) = server.http("GET", &format!("/games/{game}/names?since=1"), None, None);
    assert_eq!((status, &reply["error"]["field"]), (400, &json!("since")), "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().ends_with("(it takes: token)"), "{reply}");
    // A token given where none is needed must still be the game's.
    let (status, reply) = server.http("GET", &format!("/games/{game}?token=bogus"), None, None);
    assert_eq!((status, &reply["error"]["code"]), (401, &json!("bad-token")), "{reply}");
    assert_eq!(server.http("GET", &format!("/games/{game}"), Some(&seats[1]), None).0, 200);
    assert_eq!(server.http("GET", &format!("/games/{game}/updates"), Some(&owner), None).0, 200);
    // A route asked with another method: 405, naming the one it takes; a path that is none: 404.
    let (status, reply) = server.http("GET", &format!("/games/{game}/act"), None, None);
    assert_eq!((status, &reply["error"]["code"]), (405, &json!("unknown-command")), "{reply}");
    assert_eq!(reply["error"]["message"], json!(format!("GET /games/{game}/act: this route takes POST")));
    assert_eq!(server.http("PUT", "/games", None, None).0, 405);
    assert_eq!(server.http("GET", "/nothing?brief=true", None, None).0, 404);
    // A browser's preflight carries the query of the request it asks for.
    assert_eq!(server.http("OPTIONS", &format!("/games/{game}/ws?token={}&since=1", seats[0]), None, None).0, 200);

    // A socket reconnecting with `since` finds the steps it missed in its welcome.
    server.act(&game, &seats[0], 0);
    let mut ws = connect_with(&server, &game, "since=1");
    let welcome = receive(&mut ws);
    let missed = welcome["missed"].as_array().unwrap_or_else(|| panic!("{welcome}"));
    let seqs: Vec<_> = missed.iter().map(|u| u["seq"].as_u64().unwrap()).collect();
    assert_eq!((seqs, &welcome["seq"]), (vec![2], &json!(2)), "{welcome}");
    let updates = server.get(&format!("/games/{game}/updates?since=1"))["updates"].clone();
    assert_eq!(&json!(missed), &updates, "as the updates route lists them");
    let mut plain = connect(&server, &game, None);
    assert!(receive(&mut plain).get("missed").is_none(), "none without `since`");
    // The owner's token watches as a spectator.
    let mut owners = connect(&server, &game, Some(&owner));
    let welcome = receive(&mut owners);
    assert_eq!((&welcome["type"], &welcome["seat"]), (&json!("welcome"), &Value::Null), "{welcome}");
}
