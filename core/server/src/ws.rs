//! A WebSocket on one game: a welcome with the state, then every update as it happens, and the
//! seat's commands (`state`, `act`, `undo`) answered in between.

use crate::Server;
use crate::rooms::{Room, lock};
use meeple_protocol::messages::Names;
use meeple_protocol::{Code, ProtocolError, session};
use serde_json::{Value, json};
use std::net::TcpStream;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tungstenite::protocol::Role;
use tungstenite::{Message, WebSocket};

/// How long a read waits before the connection looks for updates to push: the most an update
/// waits behind a quiet client.
const POLL: Duration = Duration::from_millis(10);

/// Who joined a game's WebSocket, and how.
pub struct Joined {
    /// The seat of the token; `None` for a spectator.
    pub seat: Option<u8>,
    /// Updates carry brief states (`?brief=true`).
    pub brief: bool,
}

/// Runs the connection until the client closes it.
pub fn run(server: &Server, room: &Arc<Mutex<Room>>, joined: Joined, stream: TcpStream) {
    if stream.set_read_timeout(Some(POLL)).is_err() {
        return;
    }
    let seat = joined.seat;
    let mut ws = WebSocket::from_raw_socket(stream, Role::Server, None);
    let (tx, rx) = mpsc::channel();
    // Welcome and subscription under one lock: no update is missed or seen twice. The welcome
    // has the whole state and the names, from which a brief watcher follows the events.
    let welcome = {
        let mut room = lock(room);
        room.watch(tx, joined.brief);
        let names = Names::of(room.table().game().rules());
        json!({"type": "welcome", "game": room.id(), "seat": seat, "seq": room.seq(), "state": room.view(false),
               "names": names})
    };
    if send(&mut ws, &welcome.to_string()).is_err() {
        return;
    }
    let token = seat.map(|s| lock(room).token_of(s).to_string());
    loop {
        match ws.read() {
            // A binary frame is read as text too, so that such a client gets replies, not silence.
            Ok(message @ (Message::Text(_) | Message::Binary(_))) => {
                let reply = match std::str::from_utf8(&message.into_data()) {
                    Ok(text) => answer(server, room, token.as_deref(), text),
                    Err(e) => {
                        reply(Value::Null, Err(ProtocolError::new(Code::BadJson, format!("not UTF-8: {e}"), None)))
                    }
                };
                if send(&mut ws, &reply.to_string()).is_err() {
                    return;
                }
            }
            Ok(Message::Close(_)) => {}
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return,
        }
        if push(&mut ws, &rx).is_err() {
            return;
        }
    }
}

/// Sends the updates waiting for this connection; once the game is closed (the room let its
/// watchers go), closes the connection.
fn push(ws: &mut WebSocket<TcpStream>, rx: &Receiver<Arc<str>>) -> tungstenite::Result<()> {
    loop {
        match rx.try_recv() {
            Ok(update) => send(ws, &update)?,
            Err(TryRecvError::Empty) => break,
            Err(TryRecvError::Disconnected) => {
                ws.close(None)?;
                ws.flush()?;
                return Err(tungstenite::Error::ConnectionClosed);
            }
        }
    }
    // Also sends what tungstenite queued itself (a pong, the reply to a close).
    ws.flush()
}

fn send(ws: &mut WebSocket<TcpStream>, text: &str) -> tungstenite::Result<()> {
    ws.send(Message::text(text))
}

/// One command from the client: `{"id": …, "cmd": "state" | "act" | "undo", …}`, answered as
/// `{"type": "reply", "id": …, "ok": …, "result" | "error": …}`.
fn answer(server: &Server, room: &Arc<Mutex<Room>>, token: Option<&str>, text: &str) -> Value {
    let request: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return reply(Value::Null, Err(ProtocolError::new(Code::BadJson, format!("not JSON: {e}"), None))),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    reply(id, command(server, room, token, request))
}

fn command(
    server: &Server,
    room: &Arc<Mutex<Room>>,
    token: Option<&str>,
    request: Value,
) -> Result<Value, ProtocolError> {
    let game = lock(room).id().to_string();
    let cmd = request.get("cmd").and_then(Value::as_str).map(str::to_string);
    if let Some(cmd @ ("state" | "undo")) = cmd.as_deref() {
        session::only_known(&request, session::command_fields(cmd), &format!("`{cmd}`"))?;
        crate::agrees(&request, "game", game.as_str(), "this WebSocket is the game's")?;
    }
    let brief = crate::brief_field(&request)?;
    match cmd.as_deref() {
        Some("state") => {
            // The game may have been closed since this connection opened.
            let room = server.room(&game)?;
            let room = lock(&room);
            Ok(json!({"seq": room.seq(), "state": room.view(brief)}))
        }
        Some("act") => server.act(&game, token, without_id(request)),
        Some("undo") => server.undo(&game, token, brief),
        Some(other) => Err(ProtocolError::new(
            Code::UnknownCommand,
            format!("no command `{other}` on a game's WebSocket (known: state, act, undo)"),
            Some("cmd"),
        )),
        None => Err(ProtocolError::bad_field("cmd", "a string")),
    }
}

/// The request's own fields, for `act` (`id` and `cmd` are not its fields).
fn without_id(mut request: Value) -> Value {
    if let Value::Object(map) = &mut request {
        map.remove("id");
        map.remove("cmd");
    }
    request
}

fn reply(id: Value, result: Result<Value, ProtocolError>) -> Value {
    match result {
        Ok(result) => json!({"type": "reply", "id": id, "ok": true, "result": result}),
        Err(error) => json!({"type": "reply", "id": id, "ok": false, "error": error}),
    }
}
