//! A session: the games one client holds, and the handling of each request. Every request gets
//! exactly one reply; a bad request changes nothing, and the session and its games stay usable.

use crate::error::{Code, ProtocolError};
use crate::messages::{
    ActArgs, COMMANDS, CreateArgs, ExpansionInfo, GameArgs, OptionInfo, Outcome, ReplayArgs, Reply, Request,
};
use crate::state::StateView;
use meeple_core::{Action, ActionError, Game};
use meeple_host::ruleset::Catalog;
use meeple_host::{GameConfig, load, paths};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The protocol version this session speaks.
pub const PROTOCOL: u32 = 1;

/// One game, the config it was made from (for its replay), and what undo needs: the game as
/// it was at its last random draw, and the actions taken since.
struct Entry {
    game: Game,
    config: GameConfig,
    anchor: Game,
    since: Vec<Action>,
}

/// The games of one client, by id (`g1`, `g2`, …).
pub struct Session {
    mods: Vec<PathBuf>,
    games: BTreeMap<String, Entry>,
    next: u64,
}

type Result<T> = std::result::Result<T, ProtocolError>;

impl Session {
    /// A session that finds expansions in the built-in folders plus `mods`.
    pub fn new(mods: Vec<PathBuf>) -> Session {
        Session { mods, games: BTreeMap::new(), next: 1 }
    }

    /// Handles one line of JSON and returns one line of JSON (without the newline).
    pub fn handle_line(&mut self, line: &str) -> String {
        let reply = match serde_json::from_str::<Value>(line) {
            Ok(request) => self.reply(&request),
            Err(e) => failure(Value::Null, ProtocolError::new(Code::BadJson, format!("not JSON: {e}"), None)),
        };
        serde_json::to_string(&reply).unwrap_or_default()
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
            Request::Version => {
                Ok(Outcome::Version { protocol: PROTOCOL, meeple: env!("CARGO_PKG_VERSION").to_string() })
            }
            Request::Expansions => Ok(self.expansions()),
            Request::Create(args) => self.create(args),
            Request::State(GameArgs { game, brief }) => {
                let e = self.entry(&game)?;
                Ok(Outcome::State { state: Box::new(view(&game, &e.game, brief)) })
            }
            Request::Act(args) => self.act(args),
            Request::Undo(GameArgs { game, brief }) => self.undo(&game, brief),
            Request::Save(GameArgs { game, .. }) => {
                let e = self.entry(&game)?;
                let mut replay = e.game.replay();
                replay.config = e.config.to_value();
                Ok(Outcome::Saved { replay: Box::new(replay) })
            }
            Request::Load(args) => {
                let (game, config) = self.replayed(&args)?;
                Ok(self.insert(game, config))
            }
            Request::Verify(args) => {
                let (game, _) = self.replayed(&args)?;
                Ok(Outcome::Verified {
                    actions: game.history().len(),
                    state_hash: meeple_core::replay::hash_hex(game.state().hash()),
                    scores: game.state().scores(),
                })
            }
            Request::Close(GameArgs { game, .. }) => {
                self.games.remove(&game).ok_or_else(|| unknown_game(&game))?;
                Ok(Outcome::Closed {})
            }
        }
    }

    /// Every installed expansion with its editions and options.
    fn expansions(&self) -> Outcome {
        let catalog = Catalog::discover(&paths::mod_roots(&self.mods));
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
                        help: o.help.clone(),
                    })
                    .collect(),
            })
            .collect();
        Outcome::Expansions { expansions, broken: catalog.broken.keys().cloned().collect() }
    }

    fn create(&mut self, args: CreateArgs) -> Result<Outcome> {
        let config = match (&args.config, &args.path) {
            (Some(text), None) => GameConfig::parse("config", text).map_err(config_error)?,
            (None, Some(path)) => load::read_config(path.as_ref()).map_err(config_error)?,
            (None, None) => GameConfig::default(),
            (Some(_), Some(_)) => return Err(bad_field("config", "`config` or `path`, not both")),
        };
        let loaded = load::from_config(&config, &self.mods).map_err(config_error)?;
        let game = Game::new(loaded.rules.clone(), loaded.setup(args.seed.unwrap_or(1)))
            .map_err(|e| ProtocolError::new(Code::BadConfig, e.to_string(), Some("config")))?;
        Ok(self.insert(game, config))
    }

    fn insert(&mut self, mut game: Game, config: GameConfig) -> Outcome {
        let id = format!("g{}", self.next);
        self.next += 1;
        game.record_checkpoints();
        let state = Box::new(StateView::of(&id, &game));
        self.games.insert(id.clone(), Entry { anchor: game.clone(), game, config, since: Vec::new() });
        Outcome::Created { game: id, state }
    }

    fn entry(&mut self, id: &str) -> Result<&mut Entry> {
        self.games.get_mut(id).ok_or_else(|| unknown_game(id))
    }

    /// `act`: the action given, or the one at `index` in the legal list; with `player`, only if
    /// that seat is to act.
    fn act(&mut self, args: ActArgs) -> Result<Outcome> {
        let e = self.entry(&args.game)?;
        let action = match (args.action, args.index) {
            (Some(a), None) => a,
            (None, Some(i)) => {
                let legal = e.game.legal_actions();
                *legal.get(i).ok_or_else(|| {
                    let message = format!("no legal action {i} (there are {})", legal.len());
                    ProtocolError::new(Code::IllegalAction, message, Some("index"))
                })?
            }
            _ => return Err(bad_field("action", "`action` or `index`")),
        };
        if let Some(p) = args.player
            && e.game.to_act() != Some(p)
        {
            let who = e.game.to_act().map_or("nobody".to_string(), |p| format!("seat {p}"));
            return Err(ProtocolError::new(
                Code::NotYourTurn,
                format!("{who} is to act, not seat {p}"),
                Some("player"),
            ));
        }
        let mark = draw_mark(&e.game);
        let events = match e.game.apply(action) {
            Ok(events) => events.to_vec(),
            Err(ActionError::Hook(h)) => return Err(ProtocolError::new(Code::ExpansionFailed, h.to_string(), None)),
            Err(err) => return Err(ProtocolError::new(Code::IllegalAction, err.to_string(), Some("action"))),
        };
        if draw_mark(&e.game) == mark {
            e.since.push(action);
        } else {
            e.anchor = e.game.clone();
            e.since.clear();
        }
        Ok(Outcome::Acted { events, state: Box::new(view(&args.game, &e.game, args.brief)) })
    }

    /// `undo`: the game at its last draw, with every action since but the last played again.
    fn undo(&mut self, id: &str, brief: bool) -> Result<Outcome> {
        let e = self.entry(id)?;
        let Some((_, kept)) = e.since.split_last() else {
            return Err(ProtocolError::new(Code::NothingToUndo, "nothing to undo since the last draw", Some("game")));
        };
        let mut game = e.anchor.clone();
        for &a in kept {
            game.apply(a).map_err(|err| ProtocolError::new(Code::ExpansionFailed, err.to_string(), None))?;
        }
        e.since.pop();
        e.game = game;
        Ok(Outcome::State { state: Box::new(view(id, &e.game, brief)) })
    }

    fn replayed(&self, args: &ReplayArgs) -> Result<(Game, GameConfig)> {
        let config = GameConfig::from_value(&args.replay.config).unwrap_or_default();
        let loaded = load::from_config(&config, &self.mods).map_err(config_error)?;
        let game = Game::from_replay(loaded.rules.clone(), &args.replay)
            .map_err(|e| ProtocolError::new(Code::ReplayMismatch, e.to_string(), Some("replay")))?;
        Ok((game, config))
    }
}

/// Reads a request: its `cmd` first (so that an unknown one is named as such), then its
/// fields, with the path of a field that does not fit.
fn parse(request: &Value) -> Result<Request> {
    let Value::Object(fields) = request else {
        return Err(ProtocolError::new(Code::BadRequest, "a request is a JSON object", None));
    };
    let cmd = match fields.get("cmd") {
        Some(Value::String(cmd)) => cmd.as_str(),
        Some(_) => return Err(bad_field("cmd", "a string")),
        None => return Err(ProtocolError::new(Code::BadRequest, "missing `cmd`", Some("cmd"))),
    };
    Ok(match cmd {
        "version" => Request::Version,
        "expansions" => Request::Expansions,
        "create" => Request::Create(args(request)?),
        "state" => Request::State(args(request)?),
        "act" => Request::Act(args(request)?),
        "undo" => Request::Undo(args(request)?),
        "save" => Request::Save(args(request)?),
        "load" => Request::Load(args(request)?),
        "verify" => Request::Verify(args(request)?),
        "close" => Request::Close(args(request)?),
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

/// A command's fields, with the path of one that does not fit.
fn args<T: serde::de::DeserializeOwned>(request: &Value) -> Result<T> {
    serde_path_to_error::deserialize::<_, T>(request).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { missing_field(e.inner()) } else { Some(path) };
        ProtocolError { code: Code::BadRequest, message: e.inner().to_string(), field }
    })
}

/// The field a "missing field `x`" error names.
fn missing_field(e: &serde_json::Error) -> Option<String> {
    let text = e.to_string();
    let rest = text.strip_prefix("missing field `")?;
    Some(rest[..rest.find('`')?].to_string())
}

fn view(id: &str, game: &Game, brief: bool) -> StateView {
    if brief { StateView::brief(id, game) } else { StateView::of(id, game) }
}

/// What changes when a tile is drawn: undo never goes back past it.
fn draw_mark(game: &Game) -> (u32, u8, u32, usize) {
    let st = game.state();
    (st.turn().number, st.turn().part, st.tiles_left(), st.discarded().len())
}

fn failure(id: Value, e: ProtocolError) -> Reply {
    Reply { id, ok: false, result: None, error: Some(e) }
}

fn bad_field(field: &str, expected: &str) -> ProtocolError {
    ProtocolError::new(Code::BadRequest, format!("`{field}`: expected {expected}"), Some(field))
}

fn unknown_game(id: &str) -> ProtocolError {
    ProtocolError::new(Code::UnknownGame, format!("no game `{id}` in this session"), Some("game"))
}

fn config_error(report: meeple_toml::Report) -> ProtocolError {
    ProtocolError::new(Code::BadConfig, report.to_string(), Some("config"))
}
