//! `meeple serve --listen`: protocol v1 over HTTP and WebSocket for many games at once
//! (`docs/protocol.md`, "Over HTTP and WebSocket").
//!
//! Each game is a room ([`rooms`]) with one token per seat; nobody can act for a seat without its
//! token. Every step is committed to an SQLite log ([`store`]) before it is acknowledged, and
//! a server that starts on an existing log plays every game back to exactly where it was.
//! One thread per connection: a game is a few microseconds of work per action, so the threads
//! mostly wait on their sockets.

mod http;
pub mod rooms;
mod routes;
pub mod store;
mod ws;

use crate::rooms::{Room, lock, storage_failed};
use crate::store::Step;
use crate::store::{Store, StoreError, StoredGame};
use meeple_protocol::messages::{ActArgs, CreateArgs};
use meeple_protocol::{Code, ProtocolError, session};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The games of a server and their log.
pub struct Server {
    mods: Vec<PathBuf>,
    rooms: Mutex<BTreeMap<String, Arc<Mutex<Room>>>>,
    store: Mutex<Store>,
    /// The number in the last game id handed out (`g<n>`).
    last: AtomicU64,
}

/// What opening a server found in its log.
#[derive(Debug, Default)]
pub struct Restored {
    /// Games played back to where they were.
    pub games: usize,
    /// Games that could not be played back (another ruleset, a log that does not replay), with
    /// why; they stay in the file, untouched, and are not served.
    pub failed: Vec<(String, String)>,
}

/// A game just created, with its tokens.
pub struct Created {
    /// The room.
    pub room: Arc<Mutex<Room>>,
    /// The owner's token (may close the game).
    pub owner: String,
    /// One token per seat.
    pub seats: Vec<String>,
}

impl Server {
    /// Opens the log at `db` (creating it if needed) and plays back every game in it.
    pub fn open(db: &Path, mods: Vec<PathBuf>) -> Result<(Server, Restored), StoreError> {
        let store = Store::open(db)?;
        let last = store.last_number()?;
        let mut restored = Restored::default();
        let mut rooms = BTreeMap::new();
        for stored in store.games()? {
            match Room::restore(&stored, &mods) {
                Ok(room) => {
                    rooms.insert(stored.id.clone(), Arc::new(Mutex::new(room)));
                    restored.games += 1;
                }
                Err(why) => restored.failed.push((stored.id.clone(), why)),
            }
        }
        let server = Server { mods, rooms: Mutex::new(rooms), store: Mutex::new(store), last: AtomicU64::new(last) };
        Ok((server, restored))
    }

    /// Creates a game, logs it, and hands out its tokens.
    pub fn create(&self, args: &CreateArgs) -> Result<Created, ProtocolError> {
        let table = session::create(args, &self.mods)?;
        let players = table.game().setup().players.len();
        let owner = token()?;
        let seats = (0..players).map(|_| token()).collect::<Result<Vec<_>, _>>()?;
        let id = format!("g{}", self.last.fetch_add(1, Ordering::Relaxed) + 1);
        let stored = StoredGame {
            id: id.clone(),
            config: table.config().to_value(),
            seed: table.game().setup().seed,
            ruleset: table.game().replay().ruleset,
            owner: owner.clone(),
            seats: seats.clone(),
            log: Vec::new(),
        };
        lock(&self.store).add_game(&stored).map_err(|e| storage_failed(&e))?;
        let room = Arc::new(Mutex::new(Room::new(id.clone(), table, owner.clone(), seats.clone())));
        lock(&self.rooms).insert(id, room.clone());
        Ok(Created { room, owner, seats })
    }

    /// A game's room.
    pub fn room(&self, id: &str) -> Result<Arc<Mutex<Room>>, ProtocolError> {
        let room = lock(&self.rooms).get(id).cloned();
        room.ok_or_else(|| {
            ProtocolError::new(Code::UnknownGame, format!("no game `{id}` on this server"), Some("game"))
        })
    }

    /// Every game's id.
    pub fn game_ids(&self) -> Vec<String> {
        lock(&self.rooms).keys().cloned().collect()
    }

    /// `act` for the seat of `token`: the fields of the protocol's `act` (`action` or `index`,
    /// `brief`), the game and seat coming from the route and the token.
    pub fn act(&self, id: &str, token: Option<&str>, mut fields: Value) -> Result<Value, ProtocolError> {
        let room = self.room(id)?;
        let mut room = lock(&room);
        let seat = room.seat_of(token)?;
        session::only_known(&fields, session::command_fields("act"), "`act`")?;
        agrees(&fields, "game", room.id(), "the game is the one of the route")?;
        agrees(&fields, "player", seat, &format!("the token is seat {seat}'s"))?;
        if let Value::Object(map) = &mut fields {
            map.insert("game".into(), room.id().into());
            map.insert("player".into(), seat.into());
        }
        let args: ActArgs = session::fields(&fields)?;
        let action = session::chosen(room.table(), &args)?;
        let update = room.step(&self.store, seat, Step::Act(action))?;
        let (seq, events) = (update.seq, update.events.clone());
        Ok(json!({"seq": seq, "events": events, "state": room.view(args.brief)}))
    }

    /// `undo` for the seat of `token`: only its own last action, since the last draw.
    pub fn undo(&self, id: &str, token: Option<&str>, brief: bool) -> Result<Value, ProtocolError> {
        let room = self.room(id)?;
        let mut room = lock(&room);
        let seat = room.seat_of(token)?;
        let seq = room.step(&self.store, seat, Step::Undo)?.seq;
        Ok(json!({"seq": seq, "state": room.view(brief)}))
    }

    /// Closes a game for good: only its owner may.
    pub fn close(&self, id: &str, token: Option<&str>) -> Result<(), ProtocolError> {
        let room = self.room(id)?;
        // Under the room's lock (then the store's, the order `step` takes them): no step or new
        // watcher slips in between the log's removal and the room's closing.
        let mut guard = lock(&room);
        if !guard.is_owner(token) {
            return Err(ProtocolError::new(Code::BadToken, "only the game's owner token closes it", Some("token")));
        }
        lock(&self.store).remove_game(id).map_err(|e| storage_failed(&e))?;
        guard.close();
        drop(guard);
        lock(&self.rooms).remove(id);
        Ok(())
    }
}

/// The `brief` field of a request's fields: absent or `null` is `false`.
pub fn brief_field(fields: &Value) -> Result<bool, ProtocolError> {
    match fields.get("brief") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(ProtocolError::bad_field("brief", "true or false")),
    }
}

/// A field the route or the token already decides may be given, but only with the same value:
/// a request that says otherwise is refused rather than quietly overridden.
pub fn agrees(fields: &Value, name: &str, expected: impl Into<Value>, why: &str) -> Result<(), ProtocolError> {
    let expected = expected.into();
    match fields.get(name) {
        // `null` is "not given", as the stdio protocol reads it.
        Some(given) if !given.is_null() && *given != expected => {
            let message = format!("`{name}` is {given}, but {why} ({expected})");
            Err(ProtocolError::new(Code::BadRequest, message, Some(name)))
        }
        _ => Ok(()),
    }
}

/// Serves connections on `listener` until the process ends, one thread each.
pub fn serve(listener: TcpListener, server: Arc<Server>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let server = server.clone();
        std::thread::spawn(move || connection(&server, stream));
    }
}

fn connection(server: &Server, stream: TcpStream) {
    // An idle keep-alive connection is closed after a while; WebSockets set their own timeout.
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(120)));
    let _ = stream.set_nodelay(true);
    routes::serve_connection(server, http::Connection::new(stream));
}

/// A seat or owner token: 128 random bits in hex.
fn token() -> Result<String, ProtocolError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ProtocolError::new(Code::StorageFailed, format!("no randomness for a seat token: {e}"), None))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
