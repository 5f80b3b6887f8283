//! A table: one game as clients drive it, with the config it was made from (for its replay) and
//! what undo needs. A session keeps its games as tables; `meeple serve --listen` keeps one per
//! room and replays its stored log through the same methods, so a restored game is the game.

use crate::error::{Code, ProtocolError};
use crate::messages::{Names, PlayedExpansion};
use crate::replay_config;
use crate::state::{Detail, StateView};
use meeple_core::{Action, ActionError, Event, Game, Replay, ReplayError, ReplayRules, SetupError};
use meeple_host::{GameConfig, Loaded, load};
use std::path::PathBuf;

type Result<T> = std::result::Result<T, ProtocolError>;

/// One game and its undo record.
///
/// Invariant: `game` is `anchor` with every action of `since` applied in order, and no tile was
/// drawn after `anchor` (undo replays from there, so it never draws again).
#[derive(Clone)]
pub struct Table {
    game: Game,
    config: GameConfig,
    anchor: Game,
    /// Actions since the anchor, with the seat that took each.
    since: Vec<(Action, Option<u8>)>,
    /// Editions played together that were not made for each other ([`Loaded::warnings`]).
    warnings: Vec<String>,
    /// The steps taken, actions and undos: the state's `seq`.
    seq: u64,
    /// The seed a fork dealt its tiles anew from ([`Table::fork`]): its replay would not play
    /// back, as the draws since are not its setup seed's.
    reseeded: Option<u64>,
    /// The id of the game this one is a fork of, if it is one.
    fork_of: Option<String>,
    /// Each expansion played, with its edition and every option's value ([`Table::names`]).
    played: Vec<PlayedExpansion>,
}

impl Table {
    /// A new game from a config, with `seed` when the config names none.
    pub fn create(config: GameConfig, seed: u64, mods: &[PathBuf]) -> Result<Table> {
        Table::start(load::from_config(&config, mods).map_err(ProtocolError::config)?, seed)
    }

    /// A new game of a loaded ruleset, with `seed` when its config names none.
    pub fn start(loaded: Loaded, seed: u64) -> Result<Table> {
        let game = Game::new(loaded.rules.clone(), loaded.setup(seed)).map_err(setup_failed)?;
        let (warnings, played) = (loaded.warnings(), PlayedExpansion::all(&loaded));
        Ok(Table { warnings, played, ..Table::new(game, loaded.config) })
    }

    /// A replay played back on the installed expansions, with the config it names, on the
    /// rules it was recorded with or on `on` others. The config is checked as `create` checks
    /// one.
    pub fn from_replay(replay: &Replay, mods: &[PathBuf], on: ReplayRules) -> Result<Table> {
        let (config, loaded) =
            replay_config::load(replay, mods).map_err(|faults| replay_config::protocol_error(&faults))?;
        let game = Game::from_replay_on(loaded.rules.clone(), replay, on).map_err(|e| replay_failed(e, replay))?;
        Ok(Table { warnings: loaded.warnings(), played: PlayedExpansion::all(&loaded), ..Table::new(game, config) })
    }

    /// A table for a game at hand; undo starts from its current state.
    pub fn new(mut game: Game, config: GameConfig) -> Table {
        game.record_checkpoints();
        let seq = game.history().len() as u64;
        Table {
            anchor: game.clone(),
            game,
            config,
            since: Vec::new(),
            warnings: Vec::new(),
            seq,
            reseeded: None,
            fork_of: None,
            played: Vec::new(),
        }
    }

    /// What the numbers in the game's events stand for, and the expansions played with their
    /// editions and options (`names`).
    pub fn names(&self) -> Names {
        Names { played: self.played.clone(), ..Names::of(self.game.rules()) }
    }

    /// What its config plays that was not made to go together, one sentence each (empty for a
    /// table made with [`Table::new`], which has no ruleset to ask).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The config the game was made from.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// The game's state as clients see it, whole or brief.
    pub fn view(&self, id: &str, brief: bool) -> StateView {
        self.view_in(id, Detail::asked(brief, false))
    }

    /// The game's state as clients see it, with as much as `detail` says.
    pub fn view_in(&self, id: &str, detail: Detail) -> StateView {
        let mut view = StateView::build(id, &self.game, self.seq, detail);
        view.undo = self.undoable_by();
        view
    }

    /// The seat whose action [`Table::undo`] would take back now, if any.
    fn undoable_by(&self) -> Option<u8> {
        if self.game.is_over() {
            return None;
        }
        self.since.last().and_then(|&(_, actor)| actor)
    }

    /// The steps taken so far, actions and undos.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Refuses a request made from another step than the game's (when `seq` is given): its
    /// `index` or `action` was chosen from a state the game has left.
    pub fn check_seq(&self, seq: Option<u64>) -> Result<()> {
        match seq {
            Some(s) if s != self.seq => {
                let message = format!(
                    "the game is at step {}, not {s}: the action was chosen from a state it has left; read the \
                     state again",
                    self.seq
                );
                Err(ProtocolError::new(Code::Stale, message, Some("seq")))
            }
            _ => Ok(()),
        }
    }

    /// A copy of this game (whose id is `id`) to play on apart from it, at the same step; with
    /// `reseed`, its tiles still to draw dealt anew ([`Game::reseed`]), and undo cannot take it
    /// back past the copy (the actions before it were played on the old draws).
    pub fn fork(&self, id: &str, reseed: Option<u64>) -> Table {
        let fork_of = Some(id.to_string());
        let Some(seed) = reseed else { return Table { fork_of, ..self.clone() } };
        let mut game = self.game.clone();
        game.reseed(seed);
        let copy = Table::new(game, self.config.clone());
        let (warnings, played) = (self.warnings.clone(), self.played.clone());
        Table { warnings, played, seq: self.seq, reseeded: Some(seed), fork_of, ..copy }
    }

    /// Refuses to make a replay of a game forked with a new seed: it would not play back.
    pub fn check_replayable(&self) -> Result<()> {
        match self.reseeded {
            Some(seed) => Err(ProtocolError::new(
                Code::NoReplay,
                format!(
                    "this game is a fork dealt anew from seed {seed}: its tiles since are not its own seed's, so \
                     no replay plays it back"
                ),
                Some("game"),
            )),
            None => Ok(()),
        }
    }

    /// The game as a replay, with its config.
    pub fn replay(&self) -> Replay {
        let mut replay = self.game.replay();
        replay.config = self.config.to_value();
        replay
    }

    /// The game as `games` (and `GET /games`) lists it, under its id.
    pub fn summary(&self, id: &str) -> crate::network::GameSummary {
        crate::network::GameSummary {
            game: id.to_string(),
            players: self.game.setup().players.clone(),
            to_act: self.game.to_act(),
            over: self.game.is_over(),
            seq: self.seq,
            fork_of: self.fork_of.clone(),
            reseeded: self.reseeded,
        }
    }

    /// The action a request names: `action` itself, or the legal action at `index`; not both,
    /// `None` for neither (`act` and `playout` read the two fields alike).
    pub fn named(&self, action: Option<Action>, index: Option<usize>) -> Result<Option<Action>> {
        match (action, index) {
            (Some(a), None) => Ok(Some(a)),
            (None, Some(i)) => self.action_at(i).map(Some),
            (Some(_), Some(_)) => Err(ProtocolError::either("action", "index")),
            (None, None) => Ok(None),
        }
    }

    /// The legal action at `index`.
    pub fn action_at(&self, index: usize) -> Result<Action> {
        if self.game.is_over() {
            return Err(ProtocolError::new(Code::IllegalAction, "the game is over", Some("index")));
        }
        let legal = self.game.legal_actions();
        legal.get(index).copied().ok_or_else(|| {
            let message = format!("no legal action {index} (there are {})", legal.len());
            ProtocolError::new(Code::IllegalAction, message, Some("index"))
        })
    }

    /// A seat the game has: one it lacks is a mistake in the request, not a seat out of turn.
    fn seat_exists(&self, seat: Option<u8>) -> Result<()> {
        let players = self.game.state().players();
        match seat {
            Some(p) if p >= players => {
                let message = format!("no seat {p}: the game's seats are 0 to {}", players - 1);
                Err(ProtocolError::new(Code::BadRequest, message, Some("player")))
            }
            _ => Ok(()),
        }
    }

    /// Refuses `seat` (when given) unless it is the one to act. Checked before anything about
    /// the action itself, so that a seat out of turn learns nothing of another seat's choices
    /// (how many legal actions it has). Once the game is over, whose turn it is does not arise:
    /// nobody's action is legal any more, which the action's own check says.
    pub fn check_turn(&self, seat: Option<u8>) -> Result<()> {
        if self.game.is_over() {
            return Ok(());
        }
        self.seat_exists(seat)?;
        let actor = self.game.to_act();
        match seat {
            Some(p) if actor != Some(p) => {
                let who = actor.map_or("nobody".to_string(), |p| format!("seat {p}"));
                Err(ProtocolError::new(Code::NotYourTurn, format!("{who} is to act, not seat {p}"), Some("player")))
            }
            _ => Ok(()),
        }
    }

    /// Refuses an action the game would refuse, at the field the refusal is about, as the engine
    /// tells it (any action, once the game is over).
    pub fn check_legal(&self, action: &Action) -> Result<()> {
        if self.game.is_over() {
            return Err(ProtocolError::new(Code::IllegalAction, "the game is over", Some("action")));
        }
        match self.game.refusal(action) {
            Some(refusal) => {
                let field = refusal.part.field().map_or_else(|| "action".to_string(), |f| format!("action.{f}"));
                let message = ActionError::Illegal(refusal.why).to_string();
                Err(ProtocolError::new(Code::IllegalAction, message, Some(&field)))
            }
            None => Ok(()),
        }
    }

    /// Takes `action`; with `seat`, only if that seat is to act. On error nothing changes.
    pub fn act(&mut self, action: Action, seat: Option<u8>) -> Result<Vec<Event>> {
        // Whose turn it is does not arise once the game is over: the legality check says so.
        self.check_turn(seat)?;
        self.check_legal(&action)?;
        let actor = self.game.to_act();
        let mark = draw_mark(&self.game);
        let events = match self.game.apply(action) {
            Ok(events) => events.to_vec(),
            Err(ActionError::Hook(h)) => return Err(ProtocolError::expansion_failed(h.to_string())),
            Err(err) => return Err(ProtocolError::new(Code::IllegalAction, err.to_string(), Some("action"))),
        };
        if draw_mark(&self.game) == mark {
            self.since.push((action, actor));
        } else {
            self.anchor.clone_from(&self.game);
            self.since.clear();
        }
        self.seq += 1;
        Ok(events)
    }

    /// Takes back the last action since the last draw: the game at that draw, with every action
    /// since but the last played again. With `seat`, only that seat's own action.
    pub fn undo(&mut self, seat: Option<u8>) -> Result<()> {
        self.seat_exists(seat)?;
        // A finished game stays finished: its result may already have been taken as final.
        if self.game.is_over() {
            return Err(ProtocolError::new(Code::NothingToUndo, "nothing to undo: the game is over", Some("game")));
        }
        let Some(((_, actor), kept)) = self.since.split_last() else {
            let why = match self.reseeded {
                Some(_) => "nothing to undo since the last draw or, before it, the fork that dealt the tiles anew",
                None => "nothing to undo since the last draw",
            };
            return Err(ProtocolError::new(Code::NothingToUndo, why, Some("game")));
        };
        if let Some(p) = seat
            && *actor != Some(p)
        {
            let message = format!("the last action is not seat {p}'s to take back");
            return Err(ProtocolError::new(Code::NotYourAction, message, Some("player")));
        }
        let mut game = self.anchor.clone();
        for &(a, _) in kept {
            game.apply(a).map_err(|err| ProtocolError::expansion_failed(err.to_string()))?;
        }
        self.since.pop();
        self.game = game;
        self.seq += 1;
        Ok(())
    }
}

/// Why a game could not start: an expansion's setup hook failed, or the config cannot be played.
fn setup_failed(e: SetupError) -> ProtocolError {
    match e {
        SetupError::Hook(h) => ProtocolError::expansion_failed(h.to_string()),
        other => ProtocolError::new(Code::BadConfig, other.to_string(), Some("config")),
    }
}

/// Why a replay did not play back: an expansion failed (at setup or in an action), or the
/// replay does not fit the installed expansions. The error names the replay's field at fault:
/// `replay.actions[12]`, `replay.checkpoints[3].hash`, `replay.state_hash`, …
fn replay_failed(e: ReplayError, replay: &Replay) -> ProtocolError {
    let field = match &e {
        ReplayError::Format(_) => "replay.format".to_string(),
        ReplayError::Rng(_) => "replay.rng".to_string(),
        ReplayError::Ruleset { .. } => "replay.ruleset".to_string(),
        ReplayError::Action { index, .. } => format!("replay.actions[{index}]"),
        // The first checkpoint of that count that the playback did not get past.
        ReplayError::Unreached { actions, .. } => match replay.checkpoints.iter().position(|cp| cp.actions == *actions)
        {
            Some(i) => format!("replay.checkpoints[{i}].actions"),
            None => "replay.checkpoints".to_string(),
        },
        ReplayError::Diverged { actions, expected, .. } => {
            let checkpoint = replay.checkpoints.iter().position(|cp| cp.actions == *actions && cp.hash == *expected);
            match checkpoint {
                Some(i) => format!("replay.checkpoints[{i}].hash"),
                None => "replay.state_hash".to_string(),
            }
        }
        ReplayError::Setup(_) => "replay.setup".to_string(),
    };
    match e {
        ReplayError::Setup(SetupError::Hook(h)) => ProtocolError::expansion_failed(h.to_string()),
        ReplayError::Action { index, error, .. } if matches!(*error, ActionError::Hook(_)) => {
            ProtocolError::expansion_failed(format!("replay.actions[{index}]: {error}"))
        }
        ruleset @ ReplayError::Ruleset { .. } => {
            let hint =
                "; with `other_rules: true`, it plays back on these rules all the same, every recorded state checked";
            ProtocolError::new(Code::ReplayMismatch, format!("{ruleset}{hint}"), Some(&field))
        }
        other => ProtocolError::new(Code::ReplayMismatch, other.to_string(), Some(&field)),
    }
}

/// What changes when a tile is drawn: undo never goes back past it.
fn draw_mark(game: &Game) -> (u32, u8, u32, usize) {
    let st = game.state();
    (st.turn().number, st.turn().part, st.tiles_left(), st.discarded().len())
}
