//! A session: the games one client holds, and the handling of each request. Every request gets
//! exactly one reply; a bad request changes nothing, and the session and its games stay usable.

use crate::config_text::{self, Text};
use crate::error::{Code, ProtocolError};
pub use crate::fields::{fields, only_known};
use crate::messages::{
    ActArgs, COMMANDS, ConfigSource, CreateArgs, ExpansionInfo, ForkArgs, GameArgs, OptionInfo, Outcome, PlayoutArgs,
    ReplayArgs, Reply, Request, SuggestArgs, TileInfo, TryArgs, UndoArgs, ViewArgs,
};
use crate::replay_config;
use crate::table::Table;
use meeple_core::ReplayRules;
use meeple_host::ruleset::Catalog;
use meeple_host::{GameConfig, load, paths};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The protocol version this session speaks.
pub const PROTOCOL: u32 = 1;

/// The games of one client, by id (`g1`, `g2`, …).
pub struct Session {
    mods: Vec<PathBuf>,
    games: BTreeMap<String, Table>,
    next: u64,
}

type Result<T> = std::result::Result<T, ProtocolError>;

impl Session {
    /// A session that finds expansions in the built-in folders plus `mods`.
    pub fn new(mods: Vec<PathBuf>) -> Session {
        Session { mods, games: BTreeMap::new(), next: 1 }
    }

    /// Handles one line of bytes as read from a stream: a line that is not UTF-8 is refused like
    /// one that is not JSON, and the session goes on.
    pub fn handle_bytes(&mut self, line: &[u8]) -> String {
        match std::str::from_utf8(line) {
            Ok(text) => self.handle_line(text),
            Err(e) => {
                let why = format!("not UTF-8: invalid byte at offset {}", e.valid_up_to());
                crate::to_json(&failure(Value::Null, ProtocolError::new(Code::BadJson, why, None)))
            }
        }
    }

    /// The reply to a request longer than [`crate::MAX_MESSAGE`], which is not read.
    pub fn too_long() -> String {
        let why = format!("a request is at most {} bytes; this one was not read", crate::MAX_MESSAGE);
        crate::to_json(&failure(Value::Null, ProtocolError::new(Code::BadRequest, why, None)))
    }

    /// Handles one line of JSON and returns one line of JSON (without the newline).
    pub fn handle_line(&mut self, line: &str) -> String {
        let reply = match crate::read_json(line.as_bytes(), "not JSON") {
            Ok(request) => self.reply(&request),
            Err(e) => failure(Value::Null, e),
        };
        crate::to_json(&reply)
    }

    /// Handles one request given as JSON: `{"id": …, "cmd": "…", …}`.
    pub fn handle(&mut self, request: &Value) -> Value {
        serde_json::to_value(self.reply(request)).unwrap_or_default()
    }

    /// Handles one request; the reply echoes its `id`.
    pub fn reply(&mut self, request: &Value) -> Reply {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        match parse(request).and_then(|r| self.run(r)) {
            Ok(outcome) => Reply { id, ok: true, result: Some(outcome), error: None },
            Err(e) => failure(id, e),
        }
    }

    fn run(&mut self, request: Request) -> Result<Outcome> {
        match request {
            Request::Version => Ok(version()),
            Request::Expansions => Ok(expansions(&self.mods)),
            Request::Create(args) => {
                let table = create(&args, &self.mods)?;
                Ok(self.insert(table))
            }
            Request::State(args) => {
                let t = self.table(&args.game)?;
                Ok(Outcome::State { state: Box::new(t.view_in(&args.game, args.detail())) })
            }
            Request::Act(args) => {
                let t = self.table(&args.game)?;
                let events = act(t, &args)?;
                Ok(Outcome::Acted { events, state: Box::new(t.view(&args.game, args.brief)) })
            }
            Request::Undo(UndoArgs { game, brief, seq }) => {
                let t = self.table(&game)?;
                t.check_seq(seq)?;
                t.undo(None)?;
                Ok(Outcome::State { state: Box::new(t.view(&game, brief)) })
            }
            Request::Save(GameArgs { game }) => {
                let t = self.table(&game)?;
                t.check_replayable()?;
                Ok(Outcome::Saved { replay: Box::new(t.replay()) })
            }
            Request::Load(args) => {
                let table = Table::from_replay(&args.replay, &self.mods, ReplayRules::other_if(args.other_rules))?;
                Ok(self.insert(table))
            }
            Request::Verify(args) => verify(&args, &self.mods),
            Request::Names(GameArgs { game }) => Ok(Outcome::Named { names: Box::new(self.table(&game)?.names()) }),
            Request::Fork(ForkArgs { game, reseed, brief }) => {
                let copy = self.table(&game)?.fork(&game, reseed);
                let id = self.next_id();
                let state = Box::new(copy.view(&id, brief));
                self.games.insert(id.clone(), copy);
                Ok(Outcome::Forked { game: id, state })
            }
            Request::Playout(args) => crate::playout::playout(self.table(&args.game)?, &args),
            Request::Suggest(args) => crate::playout::suggest(self.table(&args.game)?, &args),
            Request::Try(args) => crate::playout::try_actions(self.table(&args.game)?, &args),
            Request::Games => Ok(Outcome::Games { games: self.games.iter().map(|(id, t)| t.summary(id)).collect() }),
            Request::Close(GameArgs { game }) => {
                self.games.remove(&game).ok_or_else(|| unknown_game(&game))?;
                Ok(Outcome::Closed {})
            }
        }
    }

    fn next_id(&mut self) -> String {
        let id = format!("g{}", self.next);
        self.next += 1;
        id
    }

    fn insert(&mut self, table: Table) -> Outcome {
        let id = self.next_id();
        let state = Box::new(table.view(&id, false));
        let names = Box::new(table.names());
        let warnings = table.warnings().to_vec();
        self.games.insert(id.clone(), table);
        Outcome::Created { game: id, state, names, warnings }
    }

    fn table(&mut self, id: &str) -> Result<&mut Table> {
        self.games.get_mut(id).ok_or_else(|| unknown_game(id))
    }
}

/// `version`.
pub fn version() -> Outcome {
    Outcome::Version { protocol: PROTOCOL, meeple: env!("CARGO_PKG_VERSION").to_string() }
}

/// `expansions`: every installed expansion with its editions and options.
pub fn expansions(mods: &[PathBuf]) -> Outcome {
    let catalog = Catalog::discover(&paths::mod_roots(mods));
    let expansions = catalog
        .manifests
        .values()
        .map(|m| ExpansionInfo {
            id: m.id.clone(),
            name: m.name.clone(),
            version: m.version.clone(),
            editions: m.editions.iter().map(|e| e.name.clone()).collect(),
            default_edition: m.default_edition.clone(),
            depends: m.depends.clone(),
            options: m
                .options
                .iter()
                .map(|o| OptionInfo {
                    name: o.name.clone(),
                    ty: meeple_host::manifest::describe_type(&o.ty),
                    default: o.default.clone(),
                    edition_defaults: o.edition_defaults.clone(),
                    editions: o.editions.clone(),
                    help: o.help.clone(),
                })
                .collect(),
            tiles: m.editions.iter().map(|e| (e.name.clone(), edition_tiles(m, &e.name))).collect(),
        })
        .collect();
    Outcome::Expansions { expansions, broken: catalog.broken.keys().cloned().collect() }
}

/// The tiles of an edition for `expansions`; none when its tileset does not read (`create`
/// tells why).
fn edition_tiles(m: &meeple_host::manifest::Manifest, edition: &str) -> Vec<TileInfo> {
    let tiles = meeple_host::tile_mix::edition_tiles(m, edition).unwrap_or_default();
    let info =
        |t: meeple_host::tile_mix::TileNumber| TileInfo { id: t.id, tileset: t.tileset, name: t.name, count: t.count };
    tiles.into_iter().map(info).collect()
}

/// `create`: the config given inline or by path (neither: the default config).
pub fn create(args: &CreateArgs, mods: &[PathBuf]) -> Result<Table> {
    // Every problem of the config at once, its own and those of resolving it, as `meeple play`
    // reports them; those of a config file are the `path` field's.
    let mut loaded = match (&args.config, &args.path) {
        (Some(ConfigSource::Text(text)), None) => {
            load::from_config_text("config", text, mods).map_err(ProtocolError::config)
        }
        (Some(ConfigSource::Object(object)), None) => from_object(object, mods),
        // An empty path would be read as the working directory, and told as a missing `.`.
        (None, Some(path)) if path.is_empty() => {
            let message = "expected the path of a config file; got an empty string";
            return Err(ProtocolError::new(Code::BadRequest, message, Some("path")));
        }
        (None, Some(path)) => {
            load::from_config_file(path.as_ref(), mods).map_err(|r| ProtocolError::config(r).at("path"))
        }
        (None, None) => load::from_config(&GameConfig::default(), mods).map_err(ProtocolError::config),
        (Some(_), Some(_)) => return Err(ProtocolError::either("config", "path")),
    }?;
    // A seed given with the request wins over the config's, as `meeple play --seed` does; it
    // goes into the config so that the game's replay carries it.
    if let Some(seed) = args.seed {
        if seed > meeple_host::config::MAX_SEED {
            let why = format!("expected a seed from 0 to {}; got {seed}", meeple_host::config::MAX_SEED);
            return Err(ProtocolError::new(Code::BadRequest, why, Some("seed")));
        }
        loaded.config.seed = Some(seed);
    }
    Table::start(loaded, 1)
}

/// A config given as a JSON object, checked as a file is; each problem named by its field. A
/// replay's stored config is taken as it is (`replay_config::with_config_keys`).
fn from_object(object: &serde_json::Map<String, Value>, mods: &[PathBuf]) -> Result<meeple_host::Loaded> {
    let (object, mut faults) = replay_config::with_config_keys(object);
    let text = Text::of_object("config", &object);
    match text.load(mods, "") {
        Ok(loaded) if faults.is_empty() => Ok(loaded),
        Ok(_) => Err(config_text::protocol_error(&faults, "")),
        Err(more) => {
            faults.extend(more);
            Err(config_text::protocol_error(&faults, ""))
        }
    }
}

/// `act`: the action given, or the one at `index` in the legal list; with `player`, only if
/// that seat is to act.
pub fn act(table: &mut Table, args: &ActArgs) -> Result<Vec<meeple_core::Event>> {
    let action = chosen(table, args)?;
    table.act(action, args.player)
}

/// The action `act` names: `action` itself, or the legal action at `index`. An index is looked
/// up only for the seat to act (`player`): one out of turn is told so, not how many actions
/// the seat to act has.
pub fn chosen(table: &Table, args: &ActArgs) -> Result<meeple_core::Action> {
    table.check_seq(args.seq)?;
    if args.action.is_none() && args.index.is_some() {
        table.check_turn(args.player)?;
    }
    table.named(args.action, args.index)?.ok_or_else(|| {
        ProtocolError::new(Code::BadRequest, "missing `action` or `index`: give one of them", Some("action"))
    })
}

/// `verify`: plays a replay back, checking every recorded hash (but its ruleset's, with
/// `other_rules`).
pub fn verify(args: &ReplayArgs, mods: &[PathBuf]) -> Result<Outcome> {
    let table = Table::from_replay(&args.replay, mods, ReplayRules::other_if(args.other_rules))?;
    let game = table.game();
    Ok(Outcome::Verified {
        actions: game.history().len(),
        state_hash: meeple_core::replay::hash_hex(game.state().hash()),
        scores: game.state().scores(),
    })
}

/// Reads a request: its `cmd` first (so that an unknown one is named as such), then its
/// fields, with the path of a field that does not fit.
fn parse(request: &Value) -> Result<Request> {
    let cmd = command_of(request)?;
    if COMMANDS.contains(&cmd) {
        crate::fields::only_known(request, command_fields(cmd), &format!("`{cmd}`"))?;
    }
    Ok(match cmd {
        "version" => Request::Version,
        "expansions" => Request::Expansions,
        "create" => Request::Create(fields(request)?),
        "state" => Request::State(fields(request)?),
        "act" => Request::Act(fields(request)?),
        "undo" => Request::Undo(fields(request)?),
        "save" => Request::Save(fields(request)?),
        "load" => Request::Load(fields(request)?),
        "verify" => Request::Verify(fields(request)?),
        "close" => Request::Close(fields(request)?),
        "names" => Request::Names(fields(request)?),
        "fork" => Request::Fork(fields(request)?),
        "playout" => Request::Playout(fields(request)?),
        "suggest" => Request::Suggest(fields(request)?),
        "try" => Request::Try(fields(request)?),
        "games" => Request::Games,
        _ => {
            let known = COMMANDS.join(", ");
            return Err(ProtocolError::new(
                Code::UnknownCommand,
                format!("no command `{cmd}` (known: {known})"),
                Some("cmd"),
            ));
        }
    })
}

/// A request's `cmd`, or why there is none: a request that is not an object, a `cmd` not given
/// (absent or `null`), or not a string. Every transport reads it here, so the same request gets
/// the same error on each.
pub fn command_of(request: &Value) -> Result<&str> {
    let Value::Object(object) = request else {
        return Err(ProtocolError::new(Code::BadRequest, "a request is a JSON object", None));
    };
    match object.get("cmd") {
        Some(Value::String(cmd)) => Ok(cmd),
        None | Some(Value::Null) => Err(ProtocolError::new(Code::BadRequest, "missing `cmd`", Some("cmd"))),
        Some(_) => Err(ProtocolError::bad_field("cmd", "a string")),
    }
}

fn failure(id: Value, e: ProtocolError) -> Reply {
    Reply { id, ok: false, result: None, error: Some(e) }
}

fn unknown_game(id: &str) -> ProtocolError {
    ProtocolError::new(Code::UnknownGame, format!("no game `{id}` in this session"), Some("game"))
}

/// The fields a command takes, `id` and `cmd` among them (none for an unknown command).
pub fn command_fields(cmd: &str) -> &'static [String] {
    use crate::fields::names_of;
    static FIELDS: OnceLock<BTreeMap<&'static str, Vec<String>>> = OnceLock::new();
    let all = FIELDS.get_or_init(|| {
        let with = |args: Vec<String>| [vec!["id".to_string(), "cmd".to_string()], args].concat();
        let on_game = with(names_of::<GameArgs>());
        let viewed = with(names_of::<ViewArgs>());
        BTreeMap::from([
            ("version", with(Vec::new())),
            ("expansions", with(Vec::new())),
            ("create", with(names_of::<CreateArgs>())),
            ("state", viewed.clone()),
            ("act", with(names_of::<ActArgs>())),
            ("undo", with(names_of::<UndoArgs>())),
            ("save", on_game.clone()),
            ("load", with(names_of::<ReplayArgs>())),
            ("verify", with(names_of::<ReplayArgs>())),
            ("close", on_game.clone()),
            ("names", on_game),
            ("fork", with(names_of::<ForkArgs>())),
            ("playout", with(names_of::<PlayoutArgs>())),
            ("suggest", with(names_of::<SuggestArgs>())),
            ("try", with(names_of::<TryArgs>())),
            ("games", with(Vec::new())),
        ])
    });
    all.get(cmd).map_or(&[], Vec::as_slice)
}
