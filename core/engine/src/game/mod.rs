//! A game in progress: the turn machine, legal actions, transactional `apply`, and the calls
//! into expansion hooks.
//!
//! The machine advances on its own through draws, scoring and turn ends, and stops where a
//! player must act: placing the drawn tile, the figure phase, or a pending decision (which may
//! belong to any player). See [`Stage`].

mod commands;
mod illegal;

pub use illegal::{Part, Refusal};

use crate::action::{Action, Event, Offer};
use crate::board::{PlacedTile, Placement};
use crate::describe::a;
use crate::expansion::{Command, Commands, HookError, HookKind, HookResult, Scoring, View};
use crate::features::{SegId, SegInfo};
use crate::figures::{FigureId, FigureKind, FigureKindId, Location, Placement as FigurePlacement, Stays};
use crate::geometry::{Port, Pos, Rotation, Side};
use crate::rng::GameRng;
use crate::rules::{CITIES, FIELDS, MONASTERIES, ROADS, Rules, TileId};
use crate::state::{GameState, Stage, Taken, Turn};
use crate::tileset::SegmentKind;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most players a game can have.
pub const MAX_PLAYERS: usize = 8;

/// How hooks may call back into commands before the engine assumes a loop.
const MAX_DEPTH: u8 = 32;

/// The most events one action may set off while expansions react to them: far above any rule
/// (a final scoring sets off a few hundred), and low enough that hooks which set each other off
/// twice over (a tree of events 32 deep) end in an error, not in hours of work.
const MAX_EVENTS: usize = 20_000;

/// The most decisions a turn may ask (see [`crate::state::Turn::decisions`]).
const MAX_DECISIONS: u16 = 1_000;

/// The longest label of an offer, kind of a decision or option of one, in bytes: words a player
/// reads, kept in every copy of the game.
pub const MAX_TEXT: usize = 256;

/// The most options a decision may have.
pub const MAX_OPTIONS: usize = 1_000;

/// The most offers one expansion may make in a figure phase.
pub const MAX_OFFERS: usize = 10_000;

/// The most an expansion's storage may hold, in bytes (as [`crate::value::Value::size`] counts
/// them): a game is cloned for every look ahead, storage with it.
pub const MAX_STORAGE: usize = 64 << 10;

/// How many bytes of a log line are kept: the rest is cut and marked `…` (a line is for people
/// to read, and an expansion could otherwise fill the game's events with one).
pub const MAX_LOG: usize = 4096;

/// A log line from bytes: at most [`MAX_LOG`] of them, cut before a character, read as UTF-8,
/// and `…` if cut.
pub fn log_line(bytes: &[u8]) -> String {
    if bytes.len() <= MAX_LOG {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    // Back off over continuation bytes (`10xxxxxx`) so that no character is split.
    let cut = (MAX_LOG - 3..=MAX_LOG).rev().find(|&i| bytes[i] & 0xC0 != 0x80).unwrap_or(MAX_LOG);
    let mut line = String::from_utf8_lossy(&bytes[..cut]).into_owned();
    line.push('…');
    line
}

/// How deep lists and maps may nest in a stored value: far more than rules need, and little
/// enough that reading, hashing and copying one never runs deep.
pub const MAX_NESTING: u32 = 32;

/// What an expansion that stores a value nested deeper than [`MAX_NESTING`] is told.
pub fn too_deep() -> String {
    format!("a stored value may nest at most {MAX_NESTING} levels deep; this one nests deeper")
}

/// What is wrong with the offers of one expansion's figure phase, if anything.
fn offers_problem(offers: &[Offer]) -> Option<String> {
    if offers.len() > MAX_OFFERS {
        return Some(format!("a figure phase holds at most {MAX_OFFERS} offers of an expansion, not {}", offers.len()));
    }
    let long = offers.iter().find(|o| o.label.len() > MAX_TEXT)?;
    Some(format!("an offer's label has at most {MAX_TEXT} bytes, not {}", long.label.len()))
}

/// Why a figure cannot be turned to `face`: its kind declares other faces, or none.
fn no_face(kind: &FigureKind, face: u8) -> String {
    if kind.faces.is_empty() {
        return format!("{} {} has no faces to turn to (its manifest declares none)", a(&kind.id), kind.id);
    }
    let faces: Vec<String> = kind.faces.iter().map(u8::to_string).collect();
    format!("{} {} has no face {face}; its faces are {}", a(&kind.id), kind.id, faces.join(", "))
}

/// The most points one command may add or set, either way: far above any rule, and low enough
/// that scores (which saturate besides) stay readable.
pub const MAX_POINTS: i32 = 1_000_000;

/// What a game starts from: players, seed, and optionally a fixed draw order and tile limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Player names, in turn order (the first starts).
    pub players: Vec<String>,
    /// The seed of every random draw.
    pub seed: u64,
    /// Draw exactly these tiles in this order (after the start tile), then end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<Vec<String>>,
    /// End the game after this many tiles have been drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_limit: Option<u32>,
}

impl Setup {
    /// Players named "Player 1" … with a seed.
    pub fn players(n: usize, seed: u64) -> Setup {
        Setup { players: (1..=n).map(|i| format!("Player {i}")).collect(), seed, draw: None, tile_limit: None }
    }
}

/// Why a game could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// Too few or too many players.
    #[error("a game needs 1 to {MAX_PLAYERS} players, not {0}")]
    Players(usize),
    /// A tile in the draw order is not in the ruleset.
    #[error("draw order: {0}")]
    UnknownTile(String),
    /// A setup hook failed.
    #[error(transparent)]
    Hook(#[from] HookError),
}

/// Why an action was refused. The game is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ActionError {
    /// Nothing more can happen.
    #[error("the game is over")]
    GameOver,
    /// Not among the legal actions.
    #[error("illegal action: {0}")]
    Illegal(String),
    /// An expansion failed while the action was carried out.
    #[error(transparent)]
    Hook(#[from] HookError),
}

/// A game: shared rules, its own state, the actions so far.
pub struct Game {
    rules: Arc<Rules>,
    state: GameState,
    setup: Arc<Setup>,
    history: Vec<Action>,
    checkpoints: Option<Vec<Checkpoint>>,
    events: Vec<Event>,
    depth: u8,
    /// The expansion whose commands are being applied: the one to blame for the events they
    /// set off past a limit.
    commanding: Option<u16>,
    /// Where the command being applied was given (a script's `file:line`), if known: the
    /// place its error names.
    given_at: Option<Cow<'static, str>>,
    has_dependents: bool,
    restore_point: Option<Arc<RestorePoint>>,
    /// Reused for the verdicts of `can_place_tile` on the candidate placements.
    verdicts: Vec<bool>,
}

/// The state a reseeded game was reseeded in. When a hook fails, the game goes back to its
/// start (or to this point, once reseeded: its start no longer leads where its draws went) and
/// replays the actions since. Hooks are deterministic and keep no state of their own, so this
/// makes `apply` transactional without copying anything before an action: a failure, which is
/// rare, pays for it instead.
#[derive(Debug)]
struct RestorePoint {
    state: GameState,
    actions: usize,
}

impl Clone for Game {
    /// Forks the game (for AI search); the event buffer starts empty.
    fn clone(&self) -> Game {
        Game {
            rules: Arc::clone(&self.rules),
            state: self.state.clone(),
            setup: Arc::clone(&self.setup),
            history: self.history.clone(),
            checkpoints: self.checkpoints.clone(),
            events: Vec::new(),
            depth: 0,
            commanding: None,
            given_at: None,
            has_dependents: self.has_dependents,
            restore_point: self.restore_point.clone(),
            verdicts: Vec::new(),
        }
    }

    /// Makes this game a fork of `source`, as `*self = source.clone()` would, keeping this
    /// game's buffers: the copy a search makes of its root into a scratch game for each playout
    /// allocates nothing once the scratch has held a game as far along.
    fn clone_from(&mut self, source: &Game) {
        // Destructured without `..`: a field added to `Game` must be added here too.
        let Game {
            rules,
            state,
            setup,
            history,
            checkpoints,
            events,
            depth,
            commanding,
            given_at,
            has_dependents,
            restore_point,
            verdicts: _, // scratch, cleared before each use: its buffer is kept
        } = self;
        rules.clone_from(&source.rules);
        state.clone_from(&source.state);
        setup.clone_from(&source.setup);
        history.clone_from(&source.history);
        checkpoints.clone_from(&source.checkpoints);
        events.clear();
        *depth = 0;
        *commanding = None;
        *given_at = None;
        *has_dependents = source.has_dependents;
        restore_point.clone_from(&source.restore_point);
    }
}

/// The state hash after a number of actions, recorded at the end of each turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// Actions applied so far.
    pub actions: usize,
    /// [`GameState::hash`] at that point, in hex.
    pub hash: String,
}

impl Game {
    /// Starts a game: lays the start tile, runs setup hooks, draws the first tile.
    pub fn new(rules: Arc<Rules>, setup: Setup) -> Result<Game, SetupError> {
        let n = setup.players.len();
        if n == 0 || n > MAX_PLAYERS {
            return Err(SetupError::Players(n));
        }
        let state = initial_state(&rules, &setup)?;
        let has_dependents = rules.figures().iter().any(|k| k.stays != Stays::UntilScored);
        let mut game = Game {
            rules,
            state,
            setup: Arc::new(setup),
            history: Vec::new(),
            checkpoints: None,
            events: Vec::new(),
            depth: 0,
            commanding: None,
            given_at: None,
            has_dependents,
            restore_point: None,
            verdicts: Vec::new(),
        };
        game.begin()?;
        Ok(game)
    }

    fn begin(&mut self) -> HookResult {
        if let Some(start) = self.rules.start() {
            let p = Placement { pos: Pos::new(0, 0), rotation: Rotation::new(0) };
            let index = self.lay_tile(start, p);
            self.emit(Event::TilePlaced { player: None, tile: start, index, pos: p.pos, rotation: p.rotation })?;
        }
        for &e in self.rules.clone().subscribers(HookKind::Setup) {
            self.call(e, HookKind::Setup, |x, view, _, out| x.setup(view, out))?;
        }
        self.advance()
    }

    /// The ruleset.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The shared ruleset.
    pub fn rules_arc(&self) -> &Arc<Rules> {
        &self.rules
    }

    /// Gives the game's random streams, the tile draws' and each expansion's, a new seed, so
    /// that what comes next is no longer what the game's own seed would give. A copy
    /// ([`Clone`]) draws the same tiles as the game it was copied from: a search that plays out
    /// copies as they are plays with foresight of the hidden tiles; reseeded copies deal the
    /// unseen tiles ([`GameState::unseen_tiles`]) anew (determinization). A draw order fixed by
    /// the setup stays fixed. The game seen by the players is unchanged
    /// ([`GameState::public_hash`]); its replay no longer plays back, since the draws after the
    /// reseed are not the setup seed's.
    pub fn reseed(&mut self, seed: u64) {
        let st = &mut self.state;
        st.rng = GameRng::new(seed, 0);
        for (r, x) in st.expansion_rngs.iter_mut().zip(self.rules.expansions()) {
            *r = GameRng::new(seed, GameRng::stream_for(x.id()));
        }
        st.reseeded = Some(seed);
        // From its start, a failed action's replay would draw on the old streams.
        self.restore_point = self
            .rules
            .has_hooks()
            .then(|| Arc::new(RestorePoint { state: self.state.clone(), actions: self.history.len() }));
    }

    /// The state.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// What the game started from.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Actions applied so far.
    pub fn history(&self) -> &[Action] {
        &self.history
    }

    /// Events of the last successful `apply` (or of the start of the game).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// True once the game is over.
    pub fn is_over(&self) -> bool {
        self.state.is_over()
    }

    /// The player who must act now: the owner of the first pending decision, or the player whose
    /// turn it is. `None` when the game is over.
    pub fn to_act(&self) -> Option<u8> {
        if self.is_over() {
            return None;
        }
        Some(self.state.pending.first().map_or(self.state.turn.player, |d| d.player))
    }

    /// Starts recording a state hash at the end of every turn (for replays).
    pub fn record_checkpoints(&mut self) {
        if self.checkpoints.is_none() {
            self.checkpoints = Some(Vec::new());
        }
    }

    /// The recorded checkpoints.
    pub fn checkpoints(&self) -> &[Checkpoint] {
        self.checkpoints.as_deref().unwrap_or(&[])
    }

    /// Every legal action now.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut v = Vec::new();
        self.legal_actions_into(&mut v);
        v
    }

    /// Every legal action now, appended to `out` (cleared first). Order: placements in frontier
    /// then rotation order; figure placements by segment then figure kind, expansion offers,
    /// then `Pass`; or the options of the pending decision.
    pub fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.is_over() {
            return;
        }
        if let Some(d) = self.state.pending.first() {
            out.extend((0..d.options.len() as u16).map(|option| Action::Choose { option }));
            return;
        }
        match self.state.turn.stage {
            Stage::PlaceTile => out.extend(
                self.state.turn.placements.iter().map(|p| Action::PlaceTile { pos: p.pos, rotation: p.rotation }),
            ),
            Stage::Figure => self.figure_actions_into(out),
            _ => {}
        }
    }

    fn figure_actions_into(&self, out: &mut Vec<Action>) {
        let st = &self.state;
        let player = st.turn.player;
        if let Some(ti) = st.turn.placed {
            let placed = *st.board.tile(ti);
            let def = &self.rules.tile(placed.tile).def;
            let kinds = self.rules.figures();
            for (local, seg) in def.segments.iter().enumerate() {
                let sid = placed.first_segment + local as SegId;
                let data = *st.features.data(sid);
                for (k, kind) in kinds.iter().enumerate() {
                    let k = k as FigureKindId;
                    if !kind.may_stand_on(seg.kind) || st.supply(player, k) == 0 {
                        continue;
                    }
                    let segment = local as u8;
                    match kind.placement {
                        FigurePlacement::Unoccupied if data.followers == 0 => {
                            out.push(Action::PlaceFigure { figure: k, segment, with: None });
                            for (w, wk) in kinds.iter().enumerate() {
                                let w = w as FigureKindId;
                                if wk.placement == FigurePlacement::WithFollower
                                    && wk.may_stand_on(seg.kind)
                                    && st.supply(player, w) > 0
                                {
                                    out.push(Action::PlaceFigure { figure: k, segment, with: Some(w) });
                                }
                            }
                        }
                        FigurePlacement::JoinsOwnFollower if self.has_own_follower(sid, player) => {
                            out.push(Action::PlaceFigure { figure: k, segment, with: None });
                        }
                        _ => {}
                    }
                }
            }
        }
        if !st.turn.taken.is_empty() {
            // After an action taken instead of a meeple, only the other such actions (filtered
            // here, so that the loop above stays as lean as the base game needs it).
            out.retain(|a| matches!(*a, Action::PlaceFigure { figure, .. } if self.still_open(figure)));
        }
        for (e, offer) in &st.turn.offers {
            out.push(Action::Expansion { expansion: *e, code: offer.code, target: offer.target });
        }
        out.push(Action::Pass);
    }

    fn has_own_follower(&self, seg: SegId, player: u8) -> bool {
        let kinds = self.rules.figures();
        self.state.figures_on(seg).any(|(_, f)| f.owner == player && kinds[f.kind as usize].follower)
    }

    fn is_legal(&self, action: &Action) -> bool {
        let st = &self.state;
        match (action, st.pending.first()) {
            (Action::Choose { option }, Some(d)) => (*option as usize) < d.options.len(),
            (_, Some(_)) => false,
            (Action::PlaceTile { pos, rotation }, None) => {
                st.turn.stage == Stage::PlaceTile
                    && st.turn.placements.contains(&Placement { pos: *pos, rotation: *rotation })
            }
            (Action::PlaceFigure { figure, segment, with }, None) if st.turn.stage == Stage::Figure => {
                self.figure_fault(*figure, *segment, *with).is_none()
            }
            (Action::Expansion { expansion, code, target }, None) if st.turn.stage == Stage::Figure => {
                st.turn.offers.iter().any(|(e, o)| e == expansion && o.code == *code && o.target == *target)
            }
            (Action::Pass, None) => st.turn.stage == Stage::Figure,
            _ => false,
        }
    }

    /// Carries out an action. On any error the game is exactly as before.
    pub fn apply(&mut self, action: Action) -> Result<&[Event], ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        if !self.is_legal(&action) {
            return Err(ActionError::Illegal(self.refused(&action).why));
        }
        self.events.clear();
        self.history.push(action);
        match self.perform(action) {
            Ok(()) => {
                if let Some(cps) = &mut self.checkpoints
                    && self.events.iter().any(|e| matches!(e, Event::TurnEnd { .. } | Event::GameEnd))
                {
                    cps.push(Checkpoint {
                        actions: self.history.len(),
                        hash: crate::replay::hash_hex(self.state.hash()),
                    });
                }
                Ok(&self.events)
            }
            Err(e) => {
                self.history.pop();
                self.depth = 0;
                let restored = self.restore();
                self.events.clear();
                Err(ActionError::Hook(restored.err().unwrap_or(e)))
            }
        }
    }

    /// Puts the state back to where it was after the last successful action: rebuilds the
    /// game's start (or takes its reseed point) and replays the actions since.
    fn restore(&mut self) -> HookResult {
        let replayed_from = match self.restore_point.clone() {
            Some(point) => {
                self.state = point.state.clone();
                point.actions
            }
            None => {
                // The same rules and setup built it when the game started.
                let start = initial_state(&self.rules, &self.setup);
                self.state = start.map_err(|e| {
                    not_restored("the game's start", HookError::new("core", HookKind::Setup, e.to_string()))
                })?;
                self.events.clear();
                self.begin().map_err(|e| not_restored("the game's start", e))?;
                0
            }
        };
        for i in replayed_from..self.history.len() {
            let action = self.history[i];
            // Each action's events are its own, as when it was first applied: the failed one's
            // must not count against the limit of those replayed.
            self.events.clear();
            self.perform(action).map_err(|e| not_restored(&format!("action {i}"), e))?;
        }
        Ok(())
    }

    fn perform(&mut self, action: Action) -> HookResult {
        match action {
            Action::PlaceTile { pos, rotation } => {
                self.place_drawn_tile(Placement { pos, rotation })?;
                self.open_figure_phase()?;
            }
            Action::PlaceFigure { figure, segment, with } => {
                let placed = self.state.turn.placed.expect("figure phase without a tile");
                let seg = self.state.segment_of(placed, segment);
                let player = self.state.turn.player;
                let host = self.put_figure(player, figure, Location::Segment { segment: seg })?;
                if let Some(w) = with {
                    let f = self.put_figure(player, w, Location::Segment { segment: seg })?;
                    self.state.figures[f as usize].attached_to = Some(host);
                }
                if !self.rules.alternatives_exclusive()
                    && self.rules.figure(figure).placement == FigurePlacement::JoinsOwnFollower
                {
                    self.take_another(Taken::Figure(figure))?;
                } else {
                    self.state.turn.stage = Stage::Score;
                }
            }
            Action::Expansion { expansion, code, target } => {
                let offer = self
                    .state
                    .turn
                    .offers
                    .iter()
                    .find(|(e, o)| *e == expansion && o.code == code && o.target == target);
                let offer = offer.map(|(_, o)| o.clone()).expect("validated offer");
                self.call(expansion, HookKind::OnAction, |x, view, _, out| x.on_action(view, &offer, out))?;
                if self.rules.alternatives_exclusive() {
                    self.state.turn.stage = Stage::Score;
                } else {
                    self.take_another(Taken::Offer(expansion))?;
                }
            }
            Action::Pass => self.state.turn.stage = Stage::Score,
            Action::Choose { option } => {
                let d = self.state.pending.remove(0);
                self.emit(Event::DecisionMade { player: d.player, option })?;
                self.call(d.expansion, HookKind::OnDecision, |x, view, _, out| x.on_decision(view, &d, option, out))?;
            }
        }
        self.advance()
    }

    /// Runs the machine until a player must act or the game is over.
    fn advance(&mut self) -> HookResult {
        loop {
            if !self.state.pending.is_empty() {
                return Ok(());
            }
            match self.state.turn.stage {
                Stage::PlaceTile | Stage::Figure | Stage::Over => return Ok(()),
                Stage::Draw => {
                    self.state.turn.stage = if self.draw()? { Stage::PlaceTile } else { Stage::Final };
                }
                Stage::Score => {
                    let t = &self.state.turn;
                    if t.scored < t.completed.len() {
                        let feature = t.completed[t.scored];
                        self.state.turn.scored += 1;
                        self.score_completed(feature)?;
                    } else {
                        self.state.turn.stage = Stage::PartEnd;
                    }
                }
                Stage::PartEnd => self.end_part()?,
                Stage::TurnEnd => self.end_turn()?,
                Stage::Final => {
                    self.emit(Event::FinalScoring)?;
                    self.final_scoring()?;
                    self.state.turn.stage = Stage::Over;
                    self.emit(Event::GameEnd)?;
                }
            }
        }
    }

    /// The end of a part: another part of the same turn follows if one was granted during this
    /// part (and a tile is left, ambiguities U10); `TurnPartEnd` marks that. Otherwise the turn ends.
    fn end_part(&mut self) -> HookResult {
        let tiles_left = self.state.tiles_left();
        let t = &mut self.state.turn;
        let another = std::mem::take(&mut t.extra_part) && tiles_left > 0;
        if !another {
            t.stage = Stage::TurnEnd;
            return Ok(());
        }
        let (player, turn, part) = (t.player, t.number, t.part);
        self.emit(Event::TurnPartEnd { player, turn, part })?;
        let t = &mut self.state.turn;
        t.part += 1;
        reset_part(t);
        t.stage = Stage::Draw;
        Ok(())
    }

    fn end_turn(&mut self) -> HookResult {
        let t = &self.state.turn;
        self.emit(Event::TurnEnd { player: t.player, turn: t.number })?;
        let players = self.state.players;
        let t = &mut self.state.turn;
        t.player = t.extra_turn.take().unwrap_or((t.player + 1) % players);
        t.number += 1;
        t.part = 1;
        t.decisions = 0;
        reset_part(t);
        t.stage = Stage::Draw;
        Ok(())
    }

    /// Draws until a tile fits somewhere; false when no tile is left.
    fn draw(&mut self) -> Result<bool, HookError> {
        loop {
            if self.state.tiles_left() == 0 {
                return Ok(false);
            }
            let st = &mut self.state;
            let tile = if st.fixed_order {
                st.bag.pop().expect("tiles left")
            } else {
                let stack = match st.first.iter_mut().find(|s| !s.is_empty()) {
                    Some(stack) => stack,
                    None => &mut st.bag,
                };
                let i = st.rng.below(stack.len() as u32) as usize;
                stack.swap_remove(i)
            };
            st.drawn += 1;
            let player = st.turn.player;
            self.emit(Event::TileDrawn { player, tile })?;
            let placements = self.placements_for(tile)?;
            if placements.is_empty() {
                self.state.turn.placements = placements;
                self.state.discarded.push(tile);
                self.emit(Event::TileDiscarded { tile })?;
                continue;
            }
            self.state.turn.placements = placements;
            self.state.turn.tile = Some(tile);
            return Ok(true);
        }
    }

    /// Legal placements of a tile: matching sides, then the expansions' vetoes.
    fn placements_for(&mut self, tile: TileId) -> Result<Vec<Placement>, HookError> {
        let mut v = std::mem::take(&mut self.state.turn.placements);
        v.clear();
        let kind = self.rules.tile(tile);
        if self.state.board.tiles().is_empty() {
            v.extend(Rotation::ALL.map(|rotation| Placement { pos: Pos::new(0, 0), rotation }));
        } else {
            self.state.board.placements_into(&kind.sides, &mut v);
        }
        // Borrowed field by field: a copy of the shared rules' handle is an atomic increment.
        let rules = &self.rules;
        let subs = rules.subscribers(HookKind::CanPlaceTile);
        if !subs.is_empty() && !v.is_empty() {
            let mut allowed = std::mem::take(&mut self.verdicts);
            allowed.clear();
            allowed.resize(v.len(), true);
            for &e in subs {
                if !rules.wants(e).hook(HookKind::CanPlaceTile, &self.state, e) {
                    continue;
                }
                let view = View::local(rules, &self.state, e);
                if let Err(error) = rules.expansions()[e as usize].can_place_tile(&view, tile, &v, &mut allowed) {
                    self.verdicts = allowed;
                    return Err(error);
                }
            }
            // Most turns forbid nothing, and keep the list as it is.
            if !crate::expansion::forbids_nothing(&allowed) {
                let mut verdicts = allowed.iter();
                v.retain(|_| verdicts.next().copied().unwrap_or(true));
            }
            self.verdicts = allowed;
        }
        Ok(v)
    }

    fn place_drawn_tile(&mut self, p: Placement) -> HookResult {
        let tile = self.state.turn.tile.take().expect("a drawn tile");
        self.state.turn.placements.clear();
        let index = self.lay_tile(tile, p);
        self.state.turn.placed = Some(index);
        let player = Some(self.state.turn.player);
        self.emit(Event::TilePlaced { player, tile, index, pos: p.pos, rotation: p.rotation })
    }

    /// Puts a tile on the board, joins its segments to the neighbours' and notes the features it
    /// completes. Returns the tile's index.
    fn lay_tile(&mut self, tile: TileId, p: Placement) -> u16 {
        let kind = self.rules.tile(tile);
        let st = &mut self.state;
        let index = st.board.tiles().len() as u16;
        let first = st.features.len() as SegId;
        for (i, seg) in kind.def.segments.iter().enumerate() {
            let info = SegInfo { tile: index, local: i as u8, kind: seg.kind };
            st.features.add(info, seg.open_sides.len() as u16, seg.arms as u16);
        }
        let sides = kind.sides[p.rotation.quarter_turns() as usize];
        st.board.place(PlacedTile { pos: p.pos, tile, rotation: p.rotation, first_segment: first, sides });
        for side in Side::ALL {
            let Some(n) = st.board.at(p.pos.step(side)).copied() else { continue };
            let other = self.rules.tile(n.tile);
            for k in 0..3 {
                let port = Port::of(side, k);
                let a = first + kind.segment_at(p.rotation, port) as SegId;
                let b = n.first_segment + other.segment_at(n.rotation, port.across()) as SegId;
                if k == 1 && st.features.info(a).kind.closes_by_sides() {
                    st.features.join_edge(a, b);
                } else {
                    st.features.union(a, b);
                }
            }
        }
        let completed = &mut st.turn.completed;
        completed.clear();
        st.turn.scored = 0;
        for i in 0..kind.def.segments.len() as SegId {
            let s = first + i;
            if st.features.info(s).kind.closes_by_sides() {
                let d = st.features.data_mut(s);
                if d.open == 0 && !d.completed {
                    d.completed = true;
                    completed.push(st.features.find(s));
                }
            }
        }
        for pos in std::iter::once(p.pos).chain(p.pos.ring()) {
            let Some(t) = st.board.at(pos).copied() else { continue };
            let def = &self.rules.tile(t.tile);
            if !def.surrounded || st.neighbours(pos) < 8 {
                continue;
            }
            for (i, seg) in def.def.segments.iter().enumerate() {
                let s = t.first_segment + i as SegId;
                if seg.kind.closes_by_surrounding() && !st.features.data(s).completed {
                    st.features.data_mut(s).completed = true;
                    st.turn.completed.push(st.features.find(s));
                }
            }
        }
        index
    }

    /// Whether this figure phase still allows a figure of `kind`: any while nothing has been
    /// taken; after an action taken instead of a meeple (where a phase may hold several), only
    /// another figure placed so, of a kind not placed yet in it, and no meeple.
    fn still_open(&self, kind: FigureKindId) -> bool {
        let taken = &self.state.turn.taken;
        taken.is_empty()
            || (self.rules.figure(kind).placement == FigurePlacement::JoinsOwnFollower
                && !taken.contains(&Taken::Figure(kind)))
    }

    /// After an action taken instead of a meeple, where a figure phase may hold several: the
    /// phase goes on, with the other expansions' offers asked again. (Out of line: most rules
    /// never come here, and the base game's figure phase stays as lean as before.)
    #[cold]
    #[inline(never)]
    fn take_another(&mut self, action: Taken) -> HookResult {
        self.state.turn.taken.push(action);
        self.open_figure_phase()
    }

    fn open_figure_phase(&mut self) -> HookResult {
        self.state.turn.stage = Stage::Figure;
        self.state.turn.offers.clear();
        // Borrowed field by field: a copy of the shared rules' handle is an atomic increment.
        let rules = &self.rules;
        for &e in rules.subscribers(HookKind::FigureActions) {
            if !rules.wants(e).hook(HookKind::FigureActions, &self.state, e)
                || self.state.turn.taken.contains(&Taken::Offer(e))
            {
                continue;
            }
            let mut offers = Vec::new();
            let view = View::local(rules, &self.state, e);
            rules.expansions()[e as usize].figure_actions(&view, &mut offers)?;
            let expansion = &rules.expansions()[e as usize];
            if let Some(why) = offers_problem(&offers) {
                return Err(HookError::new(expansion.id(), HookKind::FigureActions, why));
            }
            if !offers.is_empty() && !expansion.hooks().contains(HookKind::OnAction) {
                let why = "offers an action but has no `on_action` handler: taking it would do nothing";
                return Err(HookError::new(expansion.id(), HookKind::FigureActions, why));
            }
            self.state.turn.offers.extend(offers.into_iter().map(|o| (e, o)));
        }
        Ok(())
    }

    /// Takes a figure of a kind from a player's supply and puts it somewhere.
    fn put_figure(&mut self, player: u8, kind: FigureKindId, at: Location) -> Result<FigureId, HookError> {
        let st = &mut self.state;
        let i = player as usize * st.figure_kinds as usize + kind as usize;
        let range = st.figure_index[i] as usize..st.figure_index[i + 1] as usize;
        let Some(id) = range.clone().find(|&f| st.figures[f].in_supply()) else {
            let name = &self.rules.figure(kind).id;
            return Err(HookError::new(
                "core",
                HookKind::FigurePlaced,
                format!("seat {player} has no {name} in supply"),
            ));
        };
        st.figures[id].at = at;
        st.supply[i] -= 1;
        if let Location::Segment { segment } = at
            && self.rules.figure(kind).follower
        {
            st.features.data_mut(segment).followers += 1;
        }
        let id = id as FigureId;
        self.emit(Event::FigurePlaced { figure: id, player, kind, at })?;
        Ok(id)
    }

    /// Sends a figure home, with the figures assigned to it.
    fn return_figure(&mut self, id: FigureId) -> HookResult {
        let f = self.state.figures[id as usize];
        if f.in_supply() {
            return Ok(());
        }
        self.lift(id);
        let st = &mut self.state;
        st.figures[id as usize].at = Location::Supply;
        st.figures[id as usize].attached_to = None;
        st.supply[f.owner as usize * st.figure_kinds as usize + f.kind as usize] += 1;
        self.emit(Event::FigureReturned { figure: id, player: f.owner, kind: f.kind, from: f.at })?;
        self.return_attached(id)
    }

    /// Sends home the figures assigned to a figure that left where it stood (returned, moved
    /// or set aside): they stay only with it (`Stays::WhileAttached`).
    fn return_attached(&mut self, id: FigureId) -> HookResult {
        let attached: Vec<FigureId> = (0..self.state.figures.len() as FigureId)
            .filter(|&o| self.state.figures[o as usize].attached_to == Some(id))
            .collect();
        for o in attached {
            self.return_figure(o)?;
        }
        Ok(())
    }

    /// Removes a figure's weight from the feature it stands on.
    fn lift(&mut self, id: FigureId) {
        let f = self.state.figures[id as usize];
        if let Location::Segment { segment } = f.at
            && self.rules.figure(f.kind).follower
        {
            self.state.features.data_mut(segment).followers -= 1;
        }
    }

    /// Sends home figures that stay only while their owner has a follower on their feature.
    fn release_dependents(&mut self) -> HookResult {
        if !self.has_dependents {
            return Ok(());
        }
        for id in 0..self.state.figures.len() as FigureId {
            let f = self.state.figures[id as usize];
            let Some(seg) = f.segment() else { continue };
            if self.rules.figure(f.kind).stays == Stays::WhileOwnFollower && !self.has_own_follower(seg, f.owner) {
                self.return_figure(id)?;
            }
        }
        Ok(())
    }

    fn score_completed(&mut self, feature: SegId) -> HookResult {
        let kind = self.state.features.info(feature).kind;
        let completer = self.state.turn.player;
        self.emit(Event::FeatureCompleted { feature, kind, completer })?;
        self.score_feature(feature, true)?;
        let root = self.state.features.find(feature);
        self.state.features.data_mut(root).scored = true;
        let on: Vec<FigureId> = self.state.figures_on(root).map(|(i, _)| i).collect();
        for id in on {
            self.return_figure(id)?;
        }
        self.release_dependents()
    }

    /// Lets `modify_score` change a scoring's points (each subscriber in turn).
    fn modify_score(&mut self, scoring: &mut Scoring) -> HookResult {
        // A copy of the shared rules' handle (an atomic increment) only for calls to make.
        if self.rules.subscribers(HookKind::ModifyScore).is_empty() {
            return Ok(());
        }
        let rules = Arc::clone(&self.rules);
        for &e in rules.subscribers(HookKind::ModifyScore) {
            let wants = rules.wants(e);
            if !wants.feature(HookKind::ModifyScore, scoring.kind) || !wants.hook(HookKind::ModifyScore, &self.state, e)
            {
                continue;
            }
            let (cmds, mut origins) = self.run_hook(e, |x, view, _, out| x.modify_score(view, scoring, out))?;
            let apply = || -> HookResult {
                for (i, c) in cmds.into_iter().enumerate() {
                    self.given_at = origin(&mut origins, i);
                    match c {
                        Command::SetScore { points, .. } if points.unsigned_abs() > MAX_POINTS.unsigned_abs() => {
                            let why = format!("at most {MAX_POINTS} points either way, not {points}");
                            return Err(self.command_error(e, HookKind::ModifyScore, &c, &why));
                        }
                        Command::SetScore { player, points } if (player as usize) < scoring.points.len() => {
                            scoring.points[player as usize] = points;
                        }
                        Command::SetStorage { .. } | Command::Log { .. } => {
                            self.apply_command(e, HookKind::ModifyScore, c)?
                        }
                        Command::SetScore { .. } => {
                            let why = format!("no such player: this scoring has {}", scoring.points.len());
                            return Err(self.command_error(e, HookKind::ModifyScore, &c, &why));
                        }
                        other => {
                            return Err(self.command_error(
                                e,
                                HookKind::ModifyScore,
                                &other,
                                "only set_score, set_storage and log are allowed in modify_score",
                            ));
                        }
                    }
                }
                Ok(())
            };
            let applied = apply();
            self.given_at = None;
            applied?;
        }
        Ok(())
    }

    /// Works out a feature's points (base rules, then `modify_score`), adds them, and emits
    /// `FeatureScored`.
    fn score_feature(&mut self, feature: SegId, completed: bool) -> HookResult {
        let mut scoring = self.base_scoring(feature, completed);
        self.modify_score(&mut scoring)?;
        let category = match scoring.kind {
            SegmentKind::Road | SegmentKind::River => ROADS,
            SegmentKind::City => CITIES,
            SegmentKind::Monastery | SegmentKind::Garden => MONASTERIES,
            SegmentKind::Field => FIELDS,
        };
        let mut points = Vec::new();
        for (p, &n) in scoring.points.iter().enumerate() {
            if n != 0 {
                let st = &mut self.state;
                let sum = &mut st.points[p * st.categories as usize + category as usize];
                *sum = sum.saturating_add(n);
                points.push((p as u8, n));
            }
        }
        self.emit(Event::FeatureScored { feature: scoring.feature, kind: scoring.kind, completed, points })
    }

    /// The facts and base points of a feature.
    pub fn base_scoring(&self, feature: SegId, completed: bool) -> Scoring {
        let st = &self.state;
        let root = st.features.find(feature);
        let kind = st.features.info(root).kind;
        let data = *st.features.data(root);
        let mut strength = vec![0u32; st.players as usize];
        for (_, f) in st.figures_on(root) {
            strength[f.owner as usize] += self.rules.figure(f.kind).strength as u32;
        }
        let best = strength.iter().copied().max().unwrap_or(0);
        let mut cities = Vec::new();
        let (tiles, value) = match kind {
            SegmentKind::Road | SegmentKind::River => {
                let tiles = st.features.tile_count(root);
                (tiles, if kind == SegmentKind::Road { tiles as i32 } else { 0 })
            }
            SegmentKind::City => {
                let tiles = st.features.tile_count(root);
                let per = if completed { 2 } else { 1 };
                (tiles, per * (tiles as i32 + data.arms as i32))
            }
            SegmentKind::Monastery | SegmentKind::Garden => {
                let pos = st.board.tile(st.features.info(root).tile).pos;
                let tiles = 1 + st.neighbours(pos);
                let value = if kind == SegmentKind::Garden {
                    0
                } else if completed {
                    9
                } else {
                    tiles as i32
                };
                (tiles, value)
            }
            SegmentKind::Field => {
                cities = st.field_cities(&self.rules, root);
                (st.features.tile_count(root), 3 * cities.len() as i32)
            }
        };
        let points = strength.iter().map(|&s| if best > 0 && s == best { value } else { 0 }).collect();
        Scoring {
            feature: root,
            kind,
            completed,
            final_scoring: !completed || self.state.turn.stage == Stage::Final,
            tiles,
            arms: data.arms,
            cities,
            strength,
            points,
        }
    }

    /// Scores everything left on the board — roads, cities, monasteries, then fields — and
    /// calls the expansions' final scoring: first those that are part of the base game's end
    /// scoring, then, the score so far kept for `score_before_final`, the others.
    fn final_scoring(&mut self) -> HookResult {
        let rank = |k: SegmentKind| match k {
            SegmentKind::Road => 0,
            SegmentKind::City => 1,
            SegmentKind::Monastery => 2,
            SegmentKind::Garden => 3,
            SegmentKind::River => 4,
            SegmentKind::Field => 5,
        };
        let f = &self.state.features;
        let mut left: Vec<(u8, SegId)> = f
            .roots()
            .filter(|&r| !f.data(r).scored && f.data(r).followers > 0)
            .map(|r| (rank(f.info(r).kind), r))
            .collect();
        left.sort_unstable();
        for (rank, r) in left {
            let completed = rank != 5 && self.state.features.data(r).completed;
            self.score_feature(r, completed)?;
        }
        let rules = self.rules.clone();
        let (with_base, others) = rules.final_scoring_parts();
        for &e in with_base {
            self.call(e, HookKind::FinalScoring, |x, view, _, out| x.final_scoring(view, out))?;
        }
        self.state.final_base = self.state.scores();
        for &e in others {
            self.call(e, HookKind::FinalScoring, |x, view, _, out| x.final_scoring(view, out))?;
        }
        Ok(())
    }

    /// Why a figure of this kind may not stand at `loc`: a segment of a kind its manifest's
    /// `stands_on` leaves out. Commands are held to it as players are.
    fn may_not_stand(&self, kind: FigureKindId, loc: Location) -> Option<String> {
        let Location::Segment { segment } = loc else { return None };
        let (figure, on) = (self.rules.figure(kind), self.state.features.info(segment).kind);
        (!figure.may_stand_on(on)).then(|| format!("{} {} may not stand on a {}", a(&figure.id), figure.id, on.name()))
    }

    /// Records an event and lets subscribed expansions react.
    fn emit(&mut self, event: Event) -> HookResult {
        let hook = HookKind::for_event(&event);
        self.events.push(event);
        let Some(hook) = hook else { return Ok(()) };
        // A copy of the shared rules' handle (an atomic increment) only for a call to make.
        if self.rules.subscribers(hook).is_empty() {
            return Ok(());
        }
        let rules = Arc::clone(&self.rules);
        let subs = rules.subscribers(hook);
        // Past a limit, the expansion whose commands set the event off is to blame (else the
        // first that would hear it).
        let blamed = || rules.expansions()[self.commanding.unwrap_or(subs[0]) as usize].id();
        if self.depth >= MAX_DEPTH {
            return Err(HookError::new(
                blamed(),
                hook,
                "events triggered each other too deeply (a loop between hooks?)",
            ));
        }
        if self.events.len() > MAX_EVENTS {
            let why = format!("one action set off more than {MAX_EVENTS} events (hooks that trigger each other?)");
            return Err(HookError::new(blamed(), hook, why));
        }
        self.depth += 1;
        // Read in place by index: the events the hooks set off land after it.
        let at = self.events.len() - 1;
        let result = subs.iter().try_for_each(|&e| {
            let wants = rules.wants(e);
            if !wants.event(&self.events[at]) || !wants.hook(hook, &self.state, e) {
                return Ok(());
            }
            self.call(e, hook, |x, view, events, out| x.on_event(view, &events[at], out))
        });
        self.depth -= 1;
        result
    }

    /// Calls one expansion's hook with a view, the action's events so far and a command sink,
    /// then applies its commands.
    fn call<F>(&mut self, e: u16, hook: HookKind, f: F) -> HookResult
    where
        F: FnOnce(&dyn crate::expansion::Expansion, &View<'_>, &[Event], &mut Commands<'_>) -> HookResult,
    {
        let (cmds, mut origins) = self.run_hook(e, f)?;
        // Most calls command nothing.
        if cmds.is_empty() {
            return Ok(());
        }
        let outer = self.commanding.replace(e);
        let applied = cmds.into_iter().enumerate().try_for_each(|(i, c)| {
            let outer = std::mem::replace(&mut self.given_at, origin(&mut origins, i));
            let applied = self.apply_command(e, hook, c);
            self.given_at = outer;
            applied
        });
        self.commanding = outer;
        applied
    }

    /// Runs one expansion's hook on a view, the action's events so far and a command sink, and
    /// keeps what it drew from its random stream. Returns its commands, not applied yet, with
    /// where each was given (when the sink noted it).
    #[inline]
    fn run_hook<F>(&mut self, e: u16, f: F) -> Result<(Vec<Command>, Origins), HookError>
    where
        F: FnOnce(&dyn crate::expansion::Expansion, &View<'_>, &[Event], &mut Commands<'_>) -> HookResult,
    {
        let (cmds, rng, origins) = {
            let rules = &self.rules;
            let view = View::local(rules, &self.state, e);
            let mut out = Commands::new(Some(&self.state.expansion_rngs[e as usize]));
            f(rules.expansions()[e as usize].as_ref(), &view, &self.events, &mut out)?;
            let origins = out.take_origins();
            let (cmds, rng) = out.into_parts();
            (cmds, rng, origins)
        };
        if let Some(rng) = rng {
            self.state.expansion_rngs[e as usize] = *rng;
        }
        Ok((cmds, origins))
    }

    /// The id of expansion `e`, or `core` for the core's own commands.
    fn expansion_id(&self, e: u16) -> &str {
        self.rules.expansions().get(e as usize).map_or("core", |x| x.id())
    }

    fn command_error(&self, e: u16, hook: HookKind, c: &Command, why: impl std::fmt::Display) -> HookError {
        let id = self.expansion_id(e);
        // A command may carry a long string.
        let text = self.command_text(c);
        let shown = meeple_toml::clipped(&text, 158);
        let mut error = HookError::new(id, hook, format!("invalid command: {shown}: {why}"));
        error.location = self.given_at.as_deref().map(str::to_string);
        error
    }
}

/// The error of a restore whose replay failed again, differently from the action it undoes.
fn not_restored(what: &str, e: HookError) -> HookError {
    let message = format!("the game could not be restored: replaying {what} failed again differently: {}", e.message);
    HookError { message, ..e }
}

fn reset_part(t: &mut Turn) {
    t.placed = None;
    t.tile = None;
    t.completed.clear();
    t.scored = 0;
    t.offers.clear();
    t.taken.clear();
}

/// Where a hook's commands were given, by index, as its sink noted them.
type Origins = Vec<(usize, Cow<'static, str>)>;

/// Where command `i` was given, if the sink noted it. Taken out, as each command is applied
/// once; the sink notes commands in the order given, so the list is sorted.
fn origin(origins: &mut [(usize, Cow<'static, str>)], i: usize) -> Option<Cow<'static, str>> {
    let at = origins.binary_search_by_key(&i, |(at, _)| *at).ok()?;
    Some(std::mem::take(&mut origins[at].1))
}

fn initial_state(rules: &Rules, setup: &Setup) -> Result<GameState, SetupError> {
    let players = setup.players.len() as u8;
    let kinds = rules.figures();
    let mut figures = Vec::new();
    let mut figure_index = Vec::new();
    let mut supply = Vec::new();
    for owner in 0..players {
        for (k, kind) in kinds.iter().enumerate() {
            figure_index.push(figures.len() as u16);
            supply.push(kind.per_player);
            for _ in 0..kind.per_player {
                figures.push(crate::figures::Figure {
                    kind: k as FigureKindId,
                    owner,
                    at: Location::Supply,
                    face: 0,
                    attached_to: None,
                });
            }
        }
    }
    figure_index.push(figures.len() as u16);
    let mut first = Vec::new();
    let (bag, fixed_order) = match &setup.draw {
        Some(names) => {
            let mut bag = names
                .iter()
                .map(|n| rules.tile_by_name(n))
                .collect::<Result<Vec<_>, _>>()
                .map_err(SetupError::UnknownTile)?;
            bag.reverse();
            (bag, true)
        }
        None => {
            let mut stacks = vec![Vec::new(); rules.stacks() as usize];
            for (id, &n) in rules.counts().iter().enumerate() {
                let stack = &mut stacks[rules.stack_of(id as TileId) as usize];
                stack.extend(std::iter::repeat_n(id as TileId, n as usize));
            }
            let bag = stacks.remove(0);
            first = stacks;
            (bag, false)
        }
    };
    let n_exp = rules.expansions().len();
    Ok(GameState {
        players,
        names: setup.players.iter().cloned().collect(),
        board: Default::default(),
        features: Default::default(),
        figures,
        figure_index,
        supply,
        points: vec![0; players as usize * rules.categories().len()],
        tokens: vec![0; players as usize * rules.tokens().len()],
        token_supply: rules.tokens().iter().map(|t| t.supply as i32).collect(),
        storage: vec![BTreeMap::new(); n_exp],
        storage_bytes: vec![0; n_exp],
        storage_versions: vec![0; n_exp],
        bag,
        first,
        fixed_order,
        drawn: 0,
        tile_limit: setup.tile_limit,
        discarded: Vec::new(),
        rng: GameRng::new(setup.seed, 0),
        expansion_rngs: rules
            .expansions()
            .iter()
            .map(|x| GameRng::new(setup.seed, GameRng::stream_for(x.id())))
            .collect(),
        reseeded: None,
        turn: Turn::first(),
        pending: Vec::new(),
        categories: rules.categories().len() as u16,
        figure_kinds: kinds.len() as u16,
        token_kinds: rules.tokens().len() as u16,
        final_base: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::{MAX_LOG, MAX_OFFERS, MAX_TEXT, log_line, offers_problem};
    use crate::action::{Offer, Target};

    #[test]
    fn offers_are_bounded_in_number_and_label() {
        let offer = |label: &str| Offer { code: 1, target: Target::None, label: label.into() };
        assert_eq!(offers_problem(&[offer("move the tollhouse to")]), None);
        let long = offer(&"x".repeat(MAX_TEXT + 1));
        assert_eq!(offers_problem(&[long]), Some("an offer's label has at most 256 bytes, not 257".into()));
        let many = vec![offer("pass"); MAX_OFFERS + 1];
        assert!(offers_problem(&many).is_some_and(|m| m.starts_with("a figure phase holds at most 10000 offers")));
    }

    #[test]
    fn a_long_log_line_is_cut_before_a_character() {
        let line = log_line("é".repeat(MAX_LOG).as_bytes());
        assert_eq!(line, format!("{}…", "é".repeat(MAX_LOG / 2)));
        let line = log_line(format!("x{}", "é".repeat(MAX_LOG)).as_bytes());
        assert_eq!(line, format!("x{}…", "é".repeat(MAX_LOG / 2 - 1)), "no half character");
        assert_eq!(log_line(b"short"), "short");
    }
}
