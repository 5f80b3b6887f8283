//! The durable game log: every game's config, seed and seat tokens, and every step taken in it,
//! in an SQLite file. A step is committed (write-ahead log, `synchronous = FULL`) before the
//! client hears that it was taken, so whatever was acknowledged survives `kill -9` and a power
//! cut alike; a restart plays each log back ([`crate::rooms`]).

use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// The layout of the database; a file of another version is refused, not rewritten.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id      TEXT PRIMARY KEY,
    config  TEXT NOT NULL,  -- the game config as JSON (GameConfig::to_value)
    seed    TEXT NOT NULL,  -- u64 in decimal (SQLite integers are signed)
    ruleset TEXT NOT NULL,  -- hash of the manifests, tilesets and scripts it started with
    owner   TEXT NOT NULL,  -- token that may close the game
    seats   TEXT NOT NULL   -- JSON array of seat tokens, seat 0 first
);
CREATE TABLE IF NOT EXISTS steps (
    game       TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,  -- 1, 2, … within the game
    seat       INTEGER,           -- who took it (null: nobody was to act)
    step       TEXT NOT NULL,     -- JSON: {\"act\": action} or \"undo\"
    state_hash TEXT NOT NULL,     -- the state's hash after it, checked when played back
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
";

/// Added to layout 1 without changing its version: a file without it gets it on opening, and an
/// older meeple ignores it.
const COUNTERS: &str = "
CREATE TABLE IF NOT EXISTS counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL  -- 'last_game': the number of the last game id handed out (g<n>)
);
";

/// Added to layout 1 without changing its version, as `counters` was: each expansion's part of
/// the ruleset hash, so that a game refused for its rules names the expansion whose files
/// changed. A file without the column gets it on opening (its games with `{}`: none named).
const EXPANSION_HASHES: &str = "ALTER TABLE games ADD COLUMN expansion_hashes TEXT NOT NULL DEFAULT '{}'";

/// What the store could not do, with the file.
#[derive(Debug, thiserror::Error)]
#[error("game database {path}: {message}")]
pub struct StoreError {
    path: PathBuf,
    message: String,
}

/// One step of a game's log (kept as the JSON that updates carry).
pub use meeple_protocol::network::Step;

/// A logged step with its place in the game.
#[derive(Clone, Debug, PartialEq)]
pub struct Logged {
    /// 1, 2, … within the game.
    pub seq: u64,
    /// The seat that took it, if anybody was to act.
    pub seat: Option<u8>,
    /// The step.
    pub step: Step,
    /// The state's hash after it (hex).
    pub state_hash: String,
}

/// A game as stored: how to start it again, and its log.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// Its id.
    pub id: String,
    /// The config (`GameConfig::to_value`).
    pub config: meeple_core::Value,
    /// The seed it was created with.
    pub seed: u64,
    /// The ruleset hash it started with.
    pub ruleset: String,
    /// Each expansion's part of that hash, by id (empty for a game stored before they were).
    pub expansion_hashes: BTreeMap<String, String>,
    /// The token that may close it.
    pub owner: String,
    /// Seat tokens, seat 0 first.
    pub seats: Vec<String>,
    /// Every step, in order.
    pub log: Vec<Logged>,
}

/// The open database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Held while the store is open, so that a second server cannot serve the same games
    /// (the kernel lets go of it when the process ends, however it ends).
    _lock: File,
}

/// Takes the lock file beside the database (`games.sqlite.lock`).
fn lock_beside(path: &Path) -> Result<File, StoreError> {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let err = |message: String| StoreError { path: path.to_path_buf(), message };
    let file = File::create(&name).map_err(|e| err(format!("cannot create its lock file: {e}")))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(err("another meeple server is using it".into())),
        Err(TryLockError::Error(e)) => Err(err(format!("cannot lock it: {e}"))),
    }
}

impl Store {
    /// Opens (or creates) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let err = |e: rusqlite::Error| StoreError { path: path.to_path_buf(), message: e.to_string() };
        let lock = lock_beside(path)?;
        let conn = Connection::open(path).map_err(err)?;
        // WAL: a commit is one append and an fsync; FULL: the fsync happens at every commit.
        conn.pragma_update(None, "journal_mode", "WAL").map_err(err)?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(err)?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(err)?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(err)?;
        let store = Store { conn, path: path.to_path_buf(), _lock: lock };
        match version {
            0 => {
                store.conn.execute_batch(SCHEMA).map_err(err)?;
                store.conn.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(err)?;
            }
            SCHEMA_VERSION => {}
            v => return Err(store.error(format!("database layout {v}, this meeple reads {SCHEMA_VERSION}"))),
        }
        store.conn.execute_batch(COUNTERS).map_err(err)?;
        if !store.has_column("games", "expansion_hashes").map_err(err)? {
            store.conn.execute_batch(EXPANSION_HASHES).map_err(err)?;
        }
        Ok(store)
    }

    fn has_column(&self, table: &str, column: &str) -> rusqlite::Result<bool> {
        let mut query = self.conn.prepare(&format!("PRAGMA table_info({table})"))?;
        let names = query.query_map([], |r| r.get::<_, String>(1))?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(names.iter().any(|n| n == column))
    }

    fn error(&self, message: impl std::fmt::Display) -> StoreError {
        StoreError { path: self.path.clone(), message: message.to_string() }
    }

    /// Records a new game (without steps), and its id's number as the last handed out: an id
    /// is never handed out twice, even after its game is closed and the server restarted.
    pub fn add_game(&mut self, game: &StoredGame) -> Result<(), StoreError> {
        let seats = serde_json::to_string(&game.seats).map_err(|e| self.error(e))?;
        let config = serde_json::to_string(&game.config).map_err(|e| self.error(e))?;
        let parts = serde_json::to_string(&game.expansion_hashes).map_err(|e| self.error(e))?;
        let number = game.id.strip_prefix('g').and_then(|n| n.parse::<i64>().ok());
        let tx = self.conn.transaction().map_err(|e| StoreError { path: self.path.clone(), message: e.to_string() })?;
        tx.execute(
            "INSERT INTO games (id, config, seed, ruleset, owner, seats, expansion_hashes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![game.id, config, game.seed.to_string(), game.ruleset, game.owner, seats, parts],
        )
        .and_then(|_| match number {
            Some(n) => tx.execute(
                "INSERT INTO counters (name, value) VALUES ('last_game', ?1)
                 ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)",
                params![n],
            ),
            None => Ok(0),
        })
        .and_then(|_| tx.commit())
        .map_err(|e| self.error(e))
    }

    /// Records that a game now plays on rules of another hash (served on files that changed
    /// since it started, every logged step checked): the next start compares with these.
    pub fn set_ruleset(
        &mut self,
        game: &str,
        ruleset: &str,
        expansion_hashes: &BTreeMap<String, String>,
    ) -> Result<(), StoreError> {
        let parts = serde_json::to_string(expansion_hashes).map_err(|e| self.error(e))?;
        self.conn
            .execute(
                "UPDATE games SET ruleset = ?2, expansion_hashes = ?3 WHERE id = ?1",
                params![game, ruleset, parts],
            )
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Appends a step to a game's log; when this returns, the step is on disk.
    pub fn append(&mut self, game: &str, logged: &Logged) -> Result<(), StoreError> {
        let step = serde_json::to_string(&logged.step).map_err(|e| self.error(e))?;
        let seq = i64::try_from(logged.seq).map_err(|e| self.error(e))?;
        self.conn
            .execute(
                "INSERT INTO steps (game, seq, seat, step, state_hash) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![game, seq, logged.seat, step, logged.state_hash],
            )
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Forgets a game and its log.
    pub fn remove_game(&mut self, game: &str) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM games WHERE id = ?1", params![game]).map_err(|e| self.error(e))?;
        Ok(())
    }

    /// The number of the last game id handed out (ids are `g<n>`), so that new ids never repeat
    /// old ones: the counter, or the largest id in a file written before it was kept.
    pub fn last_number(&self) -> Result<u64, StoreError> {
        let last: Option<i64> = self
            .conn
            .query_row(
                "SELECT max(coalesce((SELECT value FROM counters WHERE name = 'last_game'), 0),
                            coalesce((SELECT max(CAST(substr(id, 2) AS INTEGER)) FROM games WHERE id GLOB 'g[0-9]*'), 0))",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.error(e))?
            .flatten();
        Ok(last.map_or(0, |n| n.max(0).unsigned_abs()))
    }

    /// Every game with its log, by id.
    pub fn games(&self) -> Result<Vec<StoredGame>, StoreError> {
        let mut games = self.read_games()?;
        for game in &mut games {
            game.log = self.read_log(&game.id)?;
        }
        Ok(games)
    }

    fn read_games(&self) -> Result<Vec<StoredGame>, StoreError> {
        let mut query = self
            .conn
            .prepare("SELECT id, config, seed, ruleset, owner, seats, expansion_hashes FROM games ORDER BY id")
            .map_err(|e| self.error(e))?;
        let rows = query
            .query_map([], |r| {
                let texts: [String; 7] = [r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?];
                Ok(texts)
            })
            .map_err(|e| self.error(e))?;
        let mut games = Vec::new();
        for row in rows {
            let [id, config, seed, ruleset, owner, seats, parts] = row.map_err(|e| self.error(e))?;
            let bad = |what: &str| self.error(format!("game {id}: unreadable {what}"));
            games.push(StoredGame {
                config: serde_json::from_str(&config).map_err(|_| bad("config"))?,
                seed: seed.parse().map_err(|_| bad("seed"))?,
                seats: serde_json::from_str(&seats).map_err(|_| bad("seats"))?,
                expansion_hashes: serde_json::from_str(&parts).map_err(|_| bad("expansion hashes"))?,
                id,
                ruleset,
                owner,
                log: Vec::new(),
            });
        }
        Ok(games)
    }

    fn read_log(&self, game: &str) -> Result<Vec<Logged>, StoreError> {
        let mut query = self
            .conn
            .prepare("SELECT seq, seat, step, state_hash FROM steps WHERE game = ?1 ORDER BY seq")
            .map_err(|e| self.error(e))?;
        let rows = query
            .query_map(params![game], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get::<_, String>(2)?, r.get(3)?)))
            .map_err(|e| self.error(e))?;
        let mut log = Vec::new();
        for row in rows {
            let (seq, seat, step, state_hash) = row.map_err(|e| self.error(e))?;
            let step = serde_json::from_str(&step)
                .map_err(|e| self.error(format!("game {game}, step {seq}: unreadable ({e})")))?;
            log.push(Logged { seq: seq.unsigned_abs(), seat, step, state_hash });
        }
        Ok(log)
    }
}
