//! Rooms: the games a server holds. A room is a table with its seat tokens, every update so far
//! and the connections watching it. A step is taken, logged and announced under the room's
//! lock, so every watcher receives the same updates in the same order as the log.

use crate::store::{Logged, Step, Store, StoreError, StoredGame};
use meeple_core::ReplayRules;
use meeple_protocol::network::SocketMessage;
use meeple_protocol::{Code, ProtocolError, StateView, Table};
use std::path::PathBuf;
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

type Result<T> = std::result::Result<T, ProtocolError>;

/// Updates waiting for one watcher at most: a watcher further behind (a client that stopped
/// reading) is let go rather than kept in memory without end.
pub const QUEUE: usize = 256;

/// What happened at one step of a game, as watchers receive it.
pub use meeple_protocol::network::Update;

/// One game on the server.
pub struct Room {
    id: String,
    table: Table,
    owner: String,
    seats: Vec<String>,
    updates: Vec<Update>,
    watchers: Vec<Watcher>,
    /// Closed by its owner: no more steps, and a watcher that comes late is told at once.
    closed: bool,
}

/// Why a stored game is not served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// It was started on rules whose files have changed since; [`ReplayRules::Other`] plays it
    /// back all the same, every step's state checked.
    Ruleset(String),
    /// Its log does not play back (or cannot be read).
    Log(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Ruleset(why) | Refused::Log(why) => f.write_str(why),
        }
    }
}

/// Which rules a restored game plays on ([`Room::restore`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnRules {
    /// Those it was started with.
    Recorded,
    /// Rules whose files changed since: it is to be recorded as playing on these.
    Other,
}

/// A connection receiving a game's updates, with whole states or brief ones.
struct Watcher {
    tx: SyncSender<Arc<str>>,
    brief: bool,
}

impl Room {
    /// A new game's room.
    pub fn new(id: String, table: Table, owner: String, seats: Vec<String>) -> Room {
        Room { id, table, owner, seats, updates: Vec::new(), watchers: Vec::new(), closed: false }
    }

    /// A stored game played back step by step, each state checked against its logged hash, on
    /// the rules it was started with or on `on` others; with whether its rules' files changed
    /// since it was started (it then plays on the new ones).
    pub fn restore(
        stored: &StoredGame,
        mods: &[PathBuf],
        on: ReplayRules,
    ) -> std::result::Result<(Room, OnRules), Refused> {
        let config =
            meeple_host::GameConfig::from_value(&stored.config).ok_or(Refused::Log("unreadable config".into()))?;
        let table = Table::create(config, stored.seed, mods).map_err(|e| Refused::Log(e.message))?;
        // Other rules could play the log back for a while and then differ without a word,
        // unless every step's state is checked, which it is below.
        let rules = table.game().rules();
        let differing = meeple_core::replay::rules_differ(&stored.ruleset, &stored.expansion_hashes, rules);
        if let Some(differing) = &differing
            && on == ReplayRules::Recorded
        {
            return Err(Refused::Ruleset(format!(
                "it was started with ruleset {}, these rules hash to {} ({})",
                stored.ruleset,
                rules.hash(),
                meeple_core::replay::what_differs(differing)
            )));
        }
        let on_rules = if differing.is_some() { OnRules::Other } else { OnRules::Recorded };
        let mut room = Room::new(stored.id.clone(), table, stored.owner.clone(), stored.seats.clone());
        for logged in &stored.log {
            let events = room
                .play(logged.step, None)
                .map_err(|e| Refused::Log(format!("step {}: {}", logged.seq, e.message)))?;
            if room.state_hash() != logged.state_hash {
                return Err(Refused::Log(format!("step {}: the game differs from the one logged", logged.seq)));
            }
            room.updates.push(Update { seq: logged.seq, seat: logged.seat, step: logged.step, events });
        }
        Ok((room, on_rules))
    }

    /// The game's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The number of steps taken so far.
    pub fn seq(&self) -> u64 {
        self.updates.len() as u64
    }

    /// The updates after `since`.
    pub fn updates_since(&self, since: u64) -> &[Update] {
        let from = usize::try_from(since).unwrap_or(usize::MAX).min(self.updates.len());
        &self.updates[from..]
    }

    /// The game's state as clients see it.
    pub fn view(&self, brief: bool) -> StateView {
        self.table.view(&self.id, brief)
    }

    /// The game's state with as much as `detail` says.
    pub fn view_in(&self, detail: meeple_protocol::Detail) -> StateView {
        self.table.view_in(&self.id, detail)
    }

    /// The seat a token belongs to.
    pub fn seat_of(&self, token: Option<&str>) -> Result<u8> {
        let token =
            token.ok_or_else(|| ProtocolError::new(Code::BadToken, "this needs a seat token", Some("token")))?;
        let seat = self.seats.iter().position(|t| t == token);
        seat.and_then(|s| u8::try_from(s).ok()).ok_or_else(|| {
            ProtocolError::new(Code::BadToken, format!("not a seat token of game `{}`", self.id), Some("token"))
        })
    }

    /// A seat's token.
    pub fn token_of(&self, seat: u8) -> &str {
        &self.seats[usize::from(seat)]
    }

    /// Whether `token` is the owner's (who may close the game).
    pub fn is_owner(&self, token: Option<&str>) -> bool {
        token == Some(self.owner.as_str())
    }

    /// Takes a step for `seat`: plays it, logs it (on disk before this returns), and pushes the
    /// update to every watcher. On any error the game is as it was.
    pub fn step(&mut self, store: &Mutex<Store>, seat: u8, step: Step) -> Result<&Update> {
        if self.closed {
            let message = format!("game `{}` was closed", self.id);
            return Err(ProtocolError::new(Code::UnknownGame, message, Some("game")));
        }
        let before = self.table.clone();
        let events = self.play(step, Some(seat))?;
        let logged = Logged { seq: self.seq() + 1, seat: Some(seat), step, state_hash: self.state_hash() };
        if let Err(e) = lock(store).append(&self.id, &logged) {
            self.table = before;
            return Err(storage_failed(&e));
        }
        self.updates.push(Update { seq: logged.seq, seat: logged.seat, step, events });
        self.announce();
        Ok(&self.updates[self.updates.len() - 1])
    }

    fn play(&mut self, step: Step, seat: Option<u8>) -> Result<Vec<meeple_core::Event>> {
        match step {
            Step::Act(action) => self.table.act(action, seat),
            Step::Undo => self.table.undo(seat).map(|()| Vec::new()),
        }
    }

    fn state_hash(&self) -> String {
        meeple_core::replay::hash_hex(self.table.game().state().hash())
    }

    /// Adds a watcher; it receives every update after the current one, with a brief state if
    /// `brief`.
    pub fn watch(&mut self, tx: SyncSender<Arc<str>>, brief: bool) {
        if self.closed {
            // Closed between the handshake and now: told at once, and let go.
            let _ = tx.try_send(self.closed_message());
            return;
        }
        self.watchers.push(Watcher { tx, brief });
    }

    /// Whether its owner closed the game.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Closes the game: tells every watcher, and lets them go (their connections end).
    pub fn close(&mut self) {
        self.closed = true;
        let text = self.closed_message();
        for w in self.watchers.drain(..) {
            // A watcher with a full queue is let go all the same; it learns why from the room.
            let _ = w.tx.try_send(text.clone());
        }
    }

    fn closed_message(&self) -> Arc<str> {
        crate::sorted_json(&SocketMessage::Closed { game: self.id.clone() }).into()
    }

    /// Pushes the last update to every watcher, forgetting those that have gone or fallen
    /// [`QUEUE`] updates behind.
    fn announce(&mut self) {
        let Some(update) = self.updates.last() else { return };
        // Each form is written once, and only if somebody watches with it.
        let mut texts: [Option<Arc<str>>; 2] = [None, None];
        let (id, table) = (&self.id, &self.table);
        self.watchers.retain(|w| {
            let text = texts[usize::from(w.brief)].get_or_insert_with(|| {
                let pushed = SocketMessage::Update {
                    game: id.clone(),
                    seq: update.seq,
                    seat: update.seat,
                    step: update.step,
                    events: update.events.clone(),
                    state: Box::new(table.view(id, w.brief)),
                };
                serde_json::to_string(&pushed).unwrap_or_default().into()
            });
            match w.tx.try_send(text.clone()) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            }
        });
    }
}

/// A lock that a panicking holder does not poison for everyone else: every room change either
/// completes or is rolled back before anything can panic, so the data stays consistent.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The error a client gets when the log could not be written.
pub fn storage_failed(e: &StoreError) -> ProtocolError {
    ProtocolError::new(Code::StorageFailed, format!("{e}; nothing was changed"), None)
}
