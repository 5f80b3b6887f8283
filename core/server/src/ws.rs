//! A WebSocket on one game: a welcome with the state, then every update as it happens, and the
//! seat's commands (`state`, `act`, `undo`) answered in between.

use crate::Server;
use crate::rooms::{Room, lock};
use crate::timed::Timed;
use meeple_protocol::network::{Snapshot, SocketMessage, SocketResult};
use meeple_protocol::{Code, Detail, ProtocolError, session};
use serde_json::Value;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tungstenite::protocol::frame::CloseFrame;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{Role, WebSocketConfig};
use tungstenite::{Message, WebSocket};

/// How long a read waits before the connection looks for updates to push, while the client or
/// the game is busy: the most an update then waits behind a quiet client.
const POLL_BUSY: Duration = Duration::from_millis(10);
/// The same once neither the client nor the game has done anything for [`IDLE_AFTER`]: a
/// connection costs a wake-up per poll, and a server holds hundreds of idle watchers.
const POLL_IDLE: Duration = Duration::from_millis(100);
const IDLE_AFTER: Duration = Duration::from_secs(2);

/// The longest message a client may send. Its commands (`state`, `act`, `undo`) take a few
/// hundred bytes; a socket that could send request bodies' 8 MiB would let every connection hold
/// that much at once, outside the budget of HTTP bodies.
const MAX_MESSAGE: usize = 64 * 1024;

/// Who joined a game's WebSocket, and how.
pub struct Joined {
    /// The seat of the token; `None` for a spectator.
    pub seat: Option<u8>,
    /// Updates carry brief states (`?brief=true`).
    pub brief: bool,
    /// The step the client saw last (`?since=N`): the welcome holds the steps after it.
    pub since: Option<u64>,
}

/// Tells a client whose socket cannot join its game why, then closes it: a `reply` without an
/// `id` holding the error, and the close code 4000 + the HTTP status the refusal would have had
/// (4401 for a wrong token, 4404 for an unknown game, 4400 for a bad query), with the message.
pub fn refuse(error: &ProtocolError, status: u16, (stream, read): (Timed, Vec<u8>)) {
    let mut ws = WebSocket::from_partially_read(stream, read, Role::Server, None);
    let reply = SocketMessage::reply(Value::Null, Err(error.clone()));
    if send(&mut ws, &crate::sorted_json(&reply)).is_ok() {
        close(&mut ws, CloseCode::from(4000 + status), &error.message);
    }
}

/// Runs the connection until the client closes it; `read` is what the client sent after its
/// handshake, already read.
pub fn run(server: &Server, room: &Arc<Mutex<Room>>, joined: Joined, (stream, read): (Timed, Vec<u8>)) {
    let mut poll = Poll::new();
    if stream.get_ref().set_read_timeout(Some(POLL_BUSY)).is_err() {
        return;
    }
    let seat = joined.seat;
    let config = WebSocketConfig::default().max_message_size(Some(MAX_MESSAGE)).max_frame_size(Some(MAX_MESSAGE));
    let mut ws = WebSocket::from_partially_read(stream, read, Role::Server, Some(config));
    let (tx, rx) = mpsc::sync_channel(crate::rooms::QUEUE);
    // Welcome and subscription under one lock: no update is missed or seen twice. The welcome
    // has the whole state and the names, from which a brief watcher follows the events.
    let welcome = {
        let mut room = lock(room);
        room.watch(tx, joined.brief);
        let names = room.table().names();
        SocketMessage::Welcome {
            game: room.id().to_string(),
            seat,
            seq: room.seq(),
            state: Box::new(room.view(false)),
            names: Box::new(names),
            missed: joined.since.map(|since| room.updates_since(since).to_vec()),
        }
    };
    if send(&mut ws, &crate::sorted_json(&welcome)).is_err() {
        return;
    }
    let token = seat.map(|s| lock(room).token_of(s).to_string());
    let mut heard = Liveness::new();
    loop {
        let read = ws.read();
        let mut busy = read.is_ok();
        if busy {
            heard.heard();
        }
        match read {
            // A binary frame is read as text too, so that such a client gets replies, not silence.
            Ok(message @ (Message::Text(_) | Message::Binary(_))) => {
                let reply = match std::str::from_utf8(&message.into_data()) {
                    Ok(text) => answer(server, room, token.as_deref(), text),
                    Err(e) => SocketMessage::reply(
                        Value::Null,
                        Err(ProtocolError::new(Code::BadJson, format!("not UTF-8: {e}"), None)),
                    ),
                };
                if send(&mut ws, &crate::sorted_json(&reply)).is_err() {
                    return;
                }
            }
            Ok(Message::Close(_)) => {}
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            // A message the protocol cannot take ends the connection with the close code that
            // says why (RFC 6455 §7.4.1), not a dropped socket.
            Err(tungstenite::Error::Utf8(_)) => return close(&mut ws, CloseCode::Invalid, "a text message is UTF-8"),
            Err(tungstenite::Error::Capacity(_)) => {
                let why = format!("a message is at most {MAX_MESSAGE} bytes");
                return close(&mut ws, CloseCode::Size, &why);
            }
            Err(tungstenite::Error::Protocol(e)) => return close(&mut ws, CloseCode::Protocol, &e.to_string()),
            Err(_) => return,
        }
        match heard.check() {
            Check::Fine => {}
            Check::Ping => {
                if ws.write(Message::Ping(Default::default())).is_err() {
                    return;
                }
            }
            Check::Gone => {
                let why = format!("nothing heard for {} s, not even a pong", SILENT.as_secs());
                return close(&mut ws, CloseCode::Policy, &why);
            }
        }
        match push(&mut ws, room, &rx) {
            Ok(pushed) => busy |= pushed,
            Err(_) => return,
        }
        if let Some(wait) = poll.next(busy, std::time::Instant::now())
            && ws.get_ref().get_ref().set_read_timeout(Some(wait)).is_err()
        {
            return;
        }
    }
}

/// How long reads wait: [`POLL_BUSY`], or [`POLL_IDLE`] once the connection has been idle for
/// [`IDLE_AFTER`].
struct Poll {
    busy_at: std::time::Instant,
    wait: Duration,
}

impl Poll {
    fn new() -> Poll {
        Poll { busy_at: std::time::Instant::now(), wait: POLL_BUSY }
    }

    /// The new wait after a round of the loop (`busy`: something was read or pushed), if it
    /// changes.
    fn next(&mut self, busy: bool, now: std::time::Instant) -> Option<Duration> {
        if busy {
            self.busy_at = now;
        }
        let wait = if now.duration_since(self.busy_at) >= IDLE_AFTER { POLL_IDLE } else { POLL_BUSY };
        (wait != self.wait).then(|| {
            self.wait = wait;
            wait
        })
    }
}

/// A client quiet this long is pinged; its WebSocket library answers for it.
const PING_AFTER: Duration = Duration::from_secs(30);
/// A client quiet this long, pings unanswered, is gone: its connection is closed, and its
/// place given to another.
const SILENT: Duration = Duration::from_secs(75);

/// When the client was last heard from, and whether it has been pinged since.
struct Liveness {
    last: std::time::Instant,
    pinged: bool,
}

/// What a quiet client calls for.
enum Check {
    Fine,
    Ping,
    Gone,
}

impl Liveness {
    fn new() -> Liveness {
        Liveness { last: std::time::Instant::now(), pinged: false }
    }

    fn heard(&mut self) {
        *self = Liveness::new();
    }

    fn check(&mut self) -> Check {
        let quiet = self.last.elapsed();
        if quiet >= SILENT {
            Check::Gone
        } else if quiet >= PING_AFTER && !self.pinged {
            self.pinged = true;
            Check::Ping
        } else {
            Check::Fine
        }
    }
}

/// Sends the updates waiting for this connection. Once the room has let it go, closes it:
/// normally if the game was closed, as a policy matter if it fell too far behind.
/// Whether there were any.
fn push(ws: &mut WebSocket<Timed>, room: &Mutex<Room>, rx: &Receiver<Arc<str>>) -> tungstenite::Result<bool> {
    let mut pushed = false;
    loop {
        match rx.try_recv() {
            Ok(update) => {
                send(ws, &update)?;
                pushed = true;
            }
            Err(TryRecvError::Empty) => break,
            Err(TryRecvError::Disconnected) => {
                // A closed game is the end of what the connection was for (1000, RFC 6455
                // §7.4.1); the client has had `closed` already, and the code tells a client
                // library that reads only close frames the same.
                if lock(room).is_closed() {
                    close(ws, CloseCode::Normal, "the game was closed");
                } else {
                    let why = format!(
                        "fell {} updates behind the game; reconnect, or catch up with GET …/updates?since=",
                        crate::rooms::QUEUE
                    );
                    close(ws, CloseCode::Policy, &why);
                }
                return Err(tungstenite::Error::ConnectionClosed);
            }
        }
    }
    // Also sends what tungstenite queued itself (a pong, the reply to a close).
    ws.flush()?;
    Ok(pushed)
}

/// Closes the connection with a code and a reason (at most 123 bytes, as a close frame holds),
/// then takes what the client is still sending (the rest of a message too large) for a moment,
/// so that the close frame reaches it.
fn close(ws: &mut WebSocket<Timed>, code: CloseCode, reason: &str) {
    let cut = (0..=reason.len().min(123)).rev().find(|&i| reason.is_char_boundary(i)).unwrap_or(0);
    let _ = ws.close(Some(CloseFrame { code, reason: reason[..cut].to_string().into() }));
    let _ = ws.flush();
    crate::http::linger(ws.get_mut().get_mut());
}

fn send(ws: &mut WebSocket<Timed>, text: &str) -> tungstenite::Result<()> {
    ws.send(Message::text(text))
}

/// One command from the client: `{"id": …, "cmd": "state" | "act" | "undo", …}`, answered as
/// `{"type": "reply", "id": …, "ok": …, "result" | "error": …}`.
fn answer(server: &Server, room: &Arc<Mutex<Room>>, token: Option<&str>, text: &str) -> SocketMessage {
    let request = match meeple_protocol::read_json(text.as_bytes(), "not JSON") {
        Ok(v) => v,
        Err(e) => return SocketMessage::reply(Value::Null, Err(e)),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    SocketMessage::reply(id, command(server, room, token, request))
}

fn command(
    server: &Server,
    room: &Arc<Mutex<Room>>,
    token: Option<&str>,
    request: Value,
) -> Result<SocketResult, ProtocolError> {
    let game = lock(room).id().to_string();
    let cmd = session::command_of(&request)?.to_string();
    if let cmd @ ("state" | "undo") = cmd.as_str() {
        session::only_known(&request, session::command_fields(cmd), &format!("`{cmd}`"))?;
        crate::agrees(&request, "game", game.as_str(), "this WebSocket is the game's")?;
    }
    let brief = crate::brief_field(&request)?;
    match cmd.as_str() {
        "state" => {
            let detail = Detail::asked(brief, crate::flag_field(&request, "all_features")?);
            // The game may have been closed since this connection opened.
            let room = server.room(&game)?;
            let room = lock(&room);
            Ok(SocketResult::Snapshot(Snapshot { seq: room.seq(), state: Box::new(room.view_in(detail)) }))
        }
        "act" => server.act(&game, token, without_id(request), false).map(SocketResult::Played),
        "undo" => server.undo(&game, token, crate::seq_field(&request)?, brief).map(SocketResult::Snapshot),
        other => Err(ProtocolError::new(
            Code::UnknownCommand,
            format!("no command `{other}` on a game's WebSocket (known: state, act, undo)"),
            Some("cmd"),
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wait_longer_once_the_connection_is_idle_and_short_again_when_it_is_not() {
        let mut poll = Poll::new();
        let start = poll.busy_at;
        assert_eq!(poll.next(false, start + Duration::from_millis(500)), None, "still busy-short");
        assert_eq!(poll.next(false, start + IDLE_AFTER), Some(POLL_IDLE));
        assert_eq!(poll.next(false, start + IDLE_AFTER * 3), None, "already idle-long");
        assert_eq!(poll.next(true, start + IDLE_AFTER * 4), Some(POLL_BUSY), "an update or a message");
        assert_eq!(poll.next(false, start + IDLE_AFTER * 4 + Duration::from_millis(1)), None);
    }
}
