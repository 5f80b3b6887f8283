//! `meeple serve --listen`: protocol v1 over HTTP and WebSocket for many games at once
//! (`docs/protocol.md`, "Over HTTP and WebSocket").
//!
//! Each game is a room ([`rooms`]) with one token per seat; nobody can act for a seat without its
//! token. Every step is committed to an SQLite log ([`store`]) before it is acknowledged, and
//! a server that starts on an existing log plays every game back to exactly where it was.
//! One thread per connection, up to [`Limits::max_connections`]: a game is a few microseconds
//! of work per action, so the threads mostly wait on their sockets.

mod http;
pub mod rooms;
mod routes;
pub mod store;
mod timed;
mod ws;

pub use crate::rooms::{OnRules, Refused};
use crate::rooms::{Room, lock, storage_failed};
use crate::store::Step;
use crate::store::{Store, StoreError, StoredGame};
use meeple_core::ReplayRules;
use meeple_protocol::messages::{ActArgs, CreateArgs};
use meeple_protocol::network::{Played, Snapshot};
use meeple_protocol::{Code, ProtocolError, session};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    pub failed: Vec<(String, Refused)>,
    /// Games started on rules whose files have changed since, served on these
    /// ([`ReplayRules::Other`]) and from now on recorded as playing on them.
    pub on_other_rules: Vec<String>,
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
        Server::open_on(db, mods, ReplayRules::Recorded)
    }

    /// [`Server::open`], playing back `on` other rules too: games started on files that have
    /// changed since (a tile renamed) are served when every step's state is as logged.
    pub fn open_on(db: &Path, mods: Vec<PathBuf>, on: ReplayRules) -> Result<(Server, Restored), StoreError> {
        let mut store = Store::open(db)?;
        let last = store.last_number()?;
        let mut restored = Restored::default();
        let mut rooms = BTreeMap::new();
        for stored in store.games()? {
            match Room::restore(&stored, &mods, on) {
                Ok((room, on_rules)) => {
                    if on_rules == OnRules::Other {
                        let rules = room.table().game().rules();
                        store.set_ruleset(&stored.id, rules.hash(), rules.hash_parts())?;
                        restored.on_other_rules.push(stored.id.clone());
                    }
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
            ruleset: table.game().rules().hash().to_string(),
            expansion_hashes: table.game().rules().hash_parts().clone(),
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
    ///
    /// `brief` asks for a brief state as the field does (the route's `?brief=true`).
    pub fn act(&self, id: &str, token: Option<&str>, mut fields: Value, brief: bool) -> Result<Played, ProtocolError> {
        let room = self.room(id)?;
        let mut room = lock(&room);
        let seat = room.seat_of(token)?;
        session::only_known(&fields, session::command_fields("act"), "`act`")?;
        agrees(&fields, "cmd", "act", routes::ROUTE_CMD)?;
        agrees(&fields, "game", room.id(), "the game is the one of the route")?;
        agrees(&fields, "player", seat, &format!("the token is seat {seat}'s"))?;
        // The seat comes from the token unless the body names it too: an error about it blames
        // the field the client sent.
        let seat_field = if fields.get("player").is_some_and(|p| !p.is_null()) { "player" } else { "token" };
        if let Value::Object(map) = &mut fields {
            map.insert("game".into(), room.id().into());
            map.insert("player".into(), seat.into());
        }
        let args: ActArgs = session::fields(&fields)?;
        let action = session::chosen(room.table(), &args).map_err(blame_seat(seat_field))?;
        let update = room.step(&self.store, seat, Step::Act(action)).map_err(blame_seat(seat_field))?;
        let (seq, events) = (update.seq, update.events.clone());
        Ok(Played { seq, events, state: Box::new(room.view(args.brief || brief)) })
    }

    /// `undo` for the seat of `token`: only its own last action, since the last draw.
    pub fn undo(
        &self,
        id: &str,
        token: Option<&str>,
        seq: Option<u64>,
        brief: bool,
    ) -> Result<Snapshot, ProtocolError> {
        let room = self.room(id)?;
        let mut room = lock(&room);
        let seat = room.seat_of(token)?;
        room.table().check_seq(seq)?;
        // The body names no seat: the token gave it.
        let seq = room.step(&self.store, seat, Step::Undo).map_err(blame_seat("token"))?.seq;
        Ok(Snapshot { seq, state: Box::new(room.view(brief)) })
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

/// An error the table blames on the seat (`player`), blamed on the request field that gave
/// it: the token, or the body's `player` when it named the seat too.
fn blame_seat(field: &'static str) -> impl Fn(ProtocolError) -> ProtocolError {
    move |e| match e.field.as_deref() {
        Some("player") => e.at(field),
        _ => e,
    }
}

/// A reply or a message as JSON text with the keys of every object in sorted order, as the
/// server has always written its HTTP bodies and WebSocket messages (other than updates).
pub(crate) fn sorted_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).map(|v| v.to_string()).unwrap_or_default()
}

/// The `brief` field of a request's fields: absent or `null` is `false`.
pub fn brief_field(fields: &Value) -> Result<bool, ProtocolError> {
    flag_field(fields, "brief")
}

/// A true-or-false field of a command (`brief`, `all_features`), read as the session reads its
/// commands' fields, for the same message ("got string …"): false when not given.
pub fn flag_field(fields: &Value, name: &str) -> Result<bool, ProtocolError> {
    let given = fields.get(name).cloned().unwrap_or(Value::Null);
    let read: std::collections::BTreeMap<String, Option<bool>> = session::fields(&serde_json::json!({ name: given }))?;
    Ok(read.get(name).copied().flatten().unwrap_or(false))
}

/// An `undo`'s `seq`, read as the session reads it: `None` when not given.
pub fn seq_field(fields: &Value) -> Result<Option<u64>, ProtocolError> {
    #[derive(serde::Deserialize)]
    struct Seq {
        seq: Option<u64>,
    }
    let given = fields.get("seq").cloned().unwrap_or(Value::Null);
    let read: Seq = session::fields(&serde_json::json!({ "seq": given }))?;
    Ok(read.seq)
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

/// What one client may hold of a server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once (each has a thread); past it a new one is answered 503
    /// `busy` and closed.
    pub max_connections: u32,
    /// Connections one client address may hold of them; past it a new one from that address is
    /// answered 503 `busy`. (Behind a reverse proxy every client has the proxy's address.)
    pub max_per_address: u32,
    /// How long a request may take to arrive, from its first byte to its last (a client that
    /// trickles it is answered 408 and closed), and a reply to be read by the client (one that
    /// takes it a little at a time is closed).
    pub request_time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_connections: 512, max_per_address: 128, request_time: Duration::from_secs(30) }
    }
}

/// Serves connections on `listener` until the process ends, one thread each, at most
/// `limits.max_connections` at once.
pub fn serve(listener: TcpListener, server: Arc<Server>, limits: Limits) {
    no_huge_pages();
    let open = Arc::new(Mutex::new(Open::default()));
    let mut backoff = Backoff::default();
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            // One connection's failure (reset or aborted before it was accepted): the next one.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                continue;
            }
            Err(_) => {
                // Out of file descriptors or memory: the connection stays queued, and accepting
                // again at once would fail again at once, at full speed. Wait for one to close.
                std::thread::sleep(backoff.next());
                continue;
            }
        };
        backoff = Backoff::default();
        let address = stream.peer_addr().map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
        let slot = match Slot::take(&open, address, &limits) {
            Ok(slot) => slot,
            Err(why) => {
                refuse(stream, why);
                continue;
            }
        };
        let server = server.clone();
        // A thread that cannot be had drops the stream (the client sees it closed) and the slot.
        let _ = std::thread::Builder::new().name("meeple-connection".into()).spawn(move || {
            let _slot = slot;
            connection(&server, stream, limits);
        });
    }
}

/// The wait after a failed accept: 5 ms, doubling to a second; back to 5 ms after a success.
#[derive(Debug, Default)]
struct Backoff {
    last: Option<Duration>,
}

impl Backoff {
    fn next(&mut self) -> Duration {
        let wait = self.last.map_or(Duration::from_millis(5), |d| (d * 2).min(Duration::from_secs(1)));
        self.last = Some(wait);
        wait
    }
}

/// The connections open, in all and per client address.
#[derive(Debug, Default)]
struct Open {
    all: u32,
    by_address: HashMap<IpAddr, u32>,
}

/// One of the connections a server serves at once; given back when dropped.
struct Slot {
    open: Arc<Mutex<Open>>,
    address: IpAddr,
}

impl Slot {
    /// A place for a connection from `address`, or why there is none.
    fn take(open: &Arc<Mutex<Open>>, address: IpAddr, limits: &Limits) -> Result<Slot, &'static str> {
        let mut o = open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if o.all >= limits.max_connections {
            return Err("the server is serving as many connections as it can; try again");
        }
        let mine = o.by_address.entry(address).or_default();
        if *mine >= limits.max_per_address {
            return Err("your address holds as many connections as one client may; close one, or try again");
        }
        *mine += 1;
        o.all += 1;
        Ok(Slot { open: open.clone(), address })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut o = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        o.all -= 1;
        if let Some(mine) = o.by_address.get_mut(&self.address) {
            *mine -= 1;
            if *mine == 0 {
                o.by_address.remove(&self.address);
            }
        }
    }
}

/// Tells a connection past the limit so, without waiting on it: the reply fits in a new
/// socket's buffer, and a client that does not read it only loses it.
fn refuse(stream: TcpStream, why: &str) {
    let response = routes::failure(&ProtocolError::new(Code::Busy, why, None));
    let reply = response.head(true) + &response.body;
    if stream.set_nonblocking(true).is_ok() {
        let _ = (&stream).write_all(reply.as_bytes());
    }
}

/// Keeps the process's memory in small pages. The allocator gives every thread a heap of its
/// own and asks for transparent huge pages: each connection's thread then held 2 MiB or more
/// for a quiet WebSocket (500 of them: 1.8 GB; in small pages 0.2 GB).
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours; it applies
    // to the pages the process touches from now on.
    #[allow(unsafe_code)]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn connection(server: &Server, stream: TcpStream, limits: Limits) {
    // Reads wait as long as the request may take (WebSockets set their own timeout); a client
    // that does not read a reply, or reads it slowly, holds a thread for as long at most.
    let _ = stream.set_nodelay(true);
    let stream = timed::Timed::new(stream, limits.request_time);
    routes::serve_connection(server, http::Connection::new(stream, limits.request_time));
}

/// A seat or owner token: 128 random bits in hex.
fn token() -> Result<String, ProtocolError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ProtocolError::new(Code::StorageFailed, format!("no randomness for a seat token: {e}"), None))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_accepts_wait_longer_each_time_up_to_a_second() {
        let mut backoff = Backoff::default();
        let waits: Vec<u128> = (0..10).map(|_| backoff.next().as_millis()).collect();
        assert_eq!(waits, [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    }

    #[test]
    fn slots_are_given_back_when_dropped() {
        let open = Arc::new(Mutex::new(Open::default()));
        let limits = Limits { max_connections: 2, ..Limits::default() };
        let here = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let a = Slot::take(&open, here, &limits).expect("a first slot");
        let b = Slot::take(&open, here, &limits).expect("a second slot");
        assert!(Slot::take(&open, here, &limits).is_err(), "two at most");
        drop(a);
        let c = Slot::take(&open, here, &limits).expect("the first one's, given back");
        drop((b, c));
        let o = open.lock().unwrap();
        assert_eq!((o.all, o.by_address.len()), (0, 0), "nothing left counted");
    }

    #[test]
    fn one_address_holds_at_most_its_share() {
        let open = Arc::new(Mutex::new(Open::default()));
        let limits = Limits { max_connections: 10, max_per_address: 2, ..Limits::default() };
        let (one, other) = (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));
        let held = [Slot::take(&open, one, &limits).unwrap(), Slot::take(&open, one, &limits).unwrap()];
        let refused = Slot::take(&open, one, &limits).err().expect("a third from one address");
        assert!(refused.starts_with("your address holds as many connections"), "{refused}");
        assert!(Slot::take(&open, other, &limits).is_ok(), "another address is served");
        drop(held);
        assert!(Slot::take(&open, one, &limits).is_ok(), "places given back");
    }
}
