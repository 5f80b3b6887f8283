//! The hook interface every expansion implements: built-in Rust, Luau scripts and native plugins
//! alike. The core cannot tell them apart.
//!
//! A hook receives a read-only [`View`] of the game and a [`Commands`] sink. It never changes the
//! game itself: the core validates each [`Command`] and applies it after the hook returns, so an
//! expansion cannot leave the state half-changed, and any error rolls the whole action back.
//! Only hooks an expansion subscribes to (see [`Expansion::hooks`]) are ever called.

use crate::action::Target;
use crate::action::{Decision, Event, Offer};
use crate::board::Placement;
use crate::features::SegId;
use crate::figures::{FigureId, FigureKindId};
use crate::rng::GameRng;
use crate::rules::TileId;
use crate::state::GameState;
use crate::tileset::SegmentKind;
use crate::value::Value;
pub use crate::view::View;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The hooks, in the order they are documented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookKind {
    /// Once, when a game starts.
    Setup = 0,
    /// Once per drawn tile: may forbid some of its legal placements.
    CanPlaceTile,
    /// When the figure phase starts: extra actions to offer.
    FigureActions,
    /// When a player takes one of the expansion's offers.
    OnAction,
    /// When a player answers one of the expansion's decisions.
    OnDecision,
    /// Event `TilePlaced`.
    TilePlaced,
    /// Event `FigurePlaced` (also `FigureMoved`).
    FigurePlaced,
    /// Event `FigureReturned`.
    FigureReturned,
    /// Event `FeatureCompleted`.
    FeatureCompleted,
    /// Event `FeatureScored`.
    FeatureScored,
    /// Event `TurnPartEnd`.
    TurnPartEnd,
    /// Event `TurnEnd`.
    TurnEnd,
    /// Before a feature's points are added: may change them.
    ModifyScore,
    /// After the base game's final scoring.
    FinalScoring,
}

impl HookKind {
    /// Every hook.
    pub const ALL: [HookKind; 14] = [
        HookKind::Setup,
        HookKind::CanPlaceTile,
        HookKind::FigureActions,
        HookKind::OnAction,
        HookKind::OnDecision,
        HookKind::TilePlaced,
        HookKind::FigurePlaced,
        HookKind::FigureReturned,
        HookKind::FeatureCompleted,
        HookKind::FeatureScored,
        HookKind::TurnPartEnd,
        HookKind::TurnEnd,
        HookKind::ModifyScore,
        HookKind::FinalScoring,
    ];

    /// The hook's name in scripts and messages.
    pub fn name(self) -> &'static str {
        match self {
            HookKind::Setup => "setup",
            HookKind::CanPlaceTile => "can_place_tile",
            HookKind::FigureActions => "figure_actions",
            HookKind::OnAction => "on_action",
            HookKind::OnDecision => "on_decision",
            HookKind::TilePlaced => "tile_placed",
            HookKind::FigurePlaced => "figure_placed",
            HookKind::FigureReturned => "figure_returned",
            HookKind::FeatureCompleted => "feature_completed",
            HookKind::FeatureScored => "feature_scored",
            HookKind::TurnPartEnd => "turn_part_end",
            HookKind::TurnEnd => "turn_end",
            HookKind::ModifyScore => "modify_score",
            HookKind::FinalScoring => "final_scoring",
        }
    }

    /// Finds a hook by name.
    pub fn parse(name: &str) -> Option<HookKind> {
        HookKind::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The hook that reacts to an event, if any.
    pub fn for_event(e: &Event) -> Option<HookKind> {
        Some(match e {
            Event::TilePlaced { .. } => HookKind::TilePlaced,
            Event::FigurePlaced { .. } | Event::FigureMoved { .. } => HookKind::FigurePlaced,
            Event::FigureReturned { .. } => HookKind::FigureReturned,
            Event::FeatureCompleted { .. } => HookKind::FeatureCompleted,
            Event::FeatureScored { .. } => HookKind::FeatureScored,
            Event::TurnPartEnd { .. } => HookKind::TurnPartEnd,
            Event::TurnEnd { .. } => HookKind::TurnEnd,
            _ => return None,
        })
    }
}

/// A set of hooks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HookSet(u32);

impl HookSet {
    /// No hooks.
    pub const NONE: HookSet = HookSet(0);

    /// The set of the given hooks.
    pub fn of(hooks: &[HookKind]) -> HookSet {
        HookSet(hooks.iter().fold(0, |acc, h| acc | 1 << (*h as u32)))
    }

    /// Adds a hook.
    pub fn with(self, hook: HookKind) -> HookSet {
        HookSet(self.0 | 1 << (hook as u32))
    }

    /// The hooks of either set.
    pub fn union(self, other: HookSet) -> HookSet {
        HookSet(self.0 | other.0)
    }

    /// True when the hook is in the set.
    pub fn contains(self, hook: HookKind) -> bool {
        self.0 & (1 << hook as u32) != 0
    }
}

/// Which calls of its hooks an expansion can act on, in one ruleset ([`Expansion::interest`]).
/// The core skips every other call: it is a promise that the expansion would neither emit a
/// command nor offer anything there, so skipping changes nothing but the time spent. The
/// default is every call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interest {
    /// `tile_placed` only for these tile kinds (`None`: every tile).
    pub tiles: Option<Vec<TileId>>,
    /// `feature_completed`, `feature_scored` or `modify_score` only for features of the kinds
    /// listed with it (a hook not listed: every kind).
    pub features: Vec<(HookKind, Vec<SegmentKind>)>,
    /// Hooks called only while the expansion's storage holds one of the keys (in any hook but
    /// `setup`, `on_action`, `on_decision` and `final_scoring`, which are always called).
    pub when_stored: Vec<(HookKind, Vec<String>)>,
    /// Hooks called only while a figure of one of the kinds, anybody's, stands on the board
    /// (in the same hooks as `when_stored`). Absent from the messages of older plugins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when_on_board: Vec<(HookKind, Vec<FigureKindId>)>,
}

impl Interest {
    /// Every call.
    pub const ALL: Interest =
        Interest { tiles: None, features: Vec::new(), when_stored: Vec::new(), when_on_board: Vec::new() };

    /// The hooks that are called whatever an expansion says it wants.
    pub const ALWAYS_CALLED: [HookKind; 4] =
        [HookKind::Setup, HookKind::OnAction, HookKind::OnDecision, HookKind::FinalScoring];
}

/// An [`Interest`] ready for the turn machine's questions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Wants {
    /// Per tile kind, whether `tile_placed` is wanted (`None`: every tile).
    tiles: Option<Vec<bool>>,
    /// Per hook, a bit per [`SegmentKind`] of the features wanted.
    features: [u32; HookKind::ALL.len()],
    /// Per hook, the storage keys one of which must be held.
    stored: Vec<(HookKind, Vec<String>)>,
    /// Per hook, the figure kinds one of which must stand on the board.
    on_board: Vec<(HookKind, Vec<FigureKindId>)>,
    /// The hooks `stored` or `on_board` name: every other one is wanted without looking at the
    /// state, which is the common case and is checked at every hook call.
    conditional: HookSet,
}

impl Wants {
    pub(crate) fn new(interest: Interest, tile_kinds: usize) -> Wants {
        let tiles = interest.tiles.map(|list| {
            let mut wanted = vec![false; tile_kinds];
            for t in list {
                if let Some(w) = wanted.get_mut(t as usize) {
                    *w = true;
                }
            }
            wanted
        });
        let mut features = [u32::MAX; HookKind::ALL.len()];
        for (hook, kinds) in interest.features {
            features[hook as usize] = kinds.iter().fold(0, |m, &k| m | 1 << k as u32);
        }
        let always = Interest::ALWAYS_CALLED;
        let stored: Vec<(HookKind, Vec<String>)> =
            interest.when_stored.into_iter().filter(|(h, _)| !always.contains(h)).collect();
        let on_board: Vec<(HookKind, Vec<FigureKindId>)> =
            interest.when_on_board.into_iter().filter(|(h, _)| !always.contains(h)).collect();
        let hooks = stored.iter().map(|(h, _)| *h).chain(on_board.iter().map(|(h, _)| *h));
        let conditional = hooks.fold(HookSet::NONE, HookSet::with);
        Wants { tiles, features, stored, on_board, conditional }
    }

    /// Whether an event is one the expansion wants.
    pub(crate) fn event(&self, event: &Event) -> bool {
        match *event {
            Event::TilePlaced { tile, .. } => {
                self.tiles.as_ref().is_none_or(|w| w.get(tile as usize).copied().unwrap_or(true))
            }
            Event::FeatureCompleted { kind, .. } => self.feature(HookKind::FeatureCompleted, kind),
            Event::FeatureScored { kind, .. } => self.feature(HookKind::FeatureScored, kind),
            _ => true,
        }
    }

    /// Whether a hook is wanted for features of a kind (`feature_completed`, `feature_scored`,
    /// `modify_score`).
    pub(crate) fn feature(&self, hook: HookKind, kind: SegmentKind) -> bool {
        self.features[hook as usize] & 1 << kind as u32 != 0
    }

    /// Whether a hook of expansion `e` is wanted in this state (its storage, its figures).
    #[inline]
    pub(crate) fn hook(&self, hook: HookKind, state: &GameState, e: u16) -> bool {
        !self.conditional.contains(hook) || self.hook_in(hook, state, e)
    }

    /// [`Wants::hook`] for a hook whose interest depends on the state.
    fn hook_in(&self, hook: HookKind, state: &GameState, e: u16) -> bool {
        let storage = || state.storage_of(e);
        let stored = self
            .stored
            .iter()
            .all(|(h, keys)| *h != hook || storage().is_some_and(|s| keys.iter().any(|k| s.contains_key(k.as_str()))));
        stored
            && self.on_board.iter().all(|(h, kinds)| {
                *h != hook || kinds.iter().any(|&k| state.figures_of_kind(k).any(|(_, f)| f.at.is_on_board()))
            })
    }
}

/// A change an expansion asks for. Names are resolved and everything is checked by the core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Add (or, negative, remove) points in a score category.
    AddPoints {
        /// Who.
        player: u8,
        /// How many.
        points: i32,
        /// A category of the ruleset (the expansion's id is always one).
        category: String,
    },
    /// Give tokens from the general supply (negative: take them back).
    GiveTokens {
        /// To whom.
        player: u8,
        /// The token kind's id.
        token: String,
        /// How many.
        count: i32,
    },
    /// Put a figure from a player's supply onto the board.
    PlaceFigure {
        /// Whose.
        player: u8,
        /// The figure kind's id.
        kind: String,
        /// Where: a segment or a point.
        at: Target,
    },
    /// Move a figure already on the board.
    MoveFigure {
        /// Which.
        figure: FigureId,
        /// Where to.
        to: Target,
    },
    /// Set a figure aside: off the board, not in the supply (the C3.1 builder by the stacks).
    SetAside {
        /// Which.
        figure: FigureId,
    },
    /// Send a figure back to its owner's supply.
    ReturnFigure {
        /// Which.
        figure: FigureId,
    },
    /// Turn a figure to another face.
    SetFigureFace {
        /// Which.
        figure: FigureId,
        /// The face (e.g. 1 or 2).
        face: u8,
    },
    /// When this part of the turn ends, the active player plays another part (double turn).
    /// Must be given during the part (at `tile_placed`, a figure event or scoring).
    ExtraTurnPart,
    /// After this turn the given player plays a whole extra turn.
    ExtraTurn {
        /// Who.
        player: u8,
    },
    /// Store a value in the expansion's own storage (`Null` removes the key).
    SetStorage {
        /// The key.
        key: String,
        /// The value.
        value: Value,
    },
    /// Replace a player's points for the feature being scored (only in `modify_score`).
    SetScore {
        /// Who.
        player: u8,
        /// The new points.
        points: i32,
    },
    /// Ask a player to choose; the answer reaches `on_decision`. Boxed: questions are rare, and
    /// every command takes the room of the largest.
    Ask(Box<Question>),
    /// A message for the game log.
    Log {
        /// The message.
        message: String,
    },
}

/// A question for a player ([`Command::Ask`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Who answers.
    pub player: u8,
    /// The expansion's name for the question.
    pub kind: String,
    /// The answers, for people.
    pub options: Vec<String>,
    /// Anything the expansion wants back with the answer.
    pub data: Value,
    /// What the question is about (a figure, a segment, a point), shown with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<Target>,
}

impl Command {
    /// [`Command::Ask`] a question that says nothing of what it is about.
    pub fn ask(player: u8, kind: impl Into<String>, options: Vec<String>, data: Value) -> Command {
        Command::Ask(Box::new(Question { player, kind: kind.into(), options, data, about: None }))
    }
}

/// Where a hook writes its commands. Also hands out the expansion's own random stream, copied
/// out of the game state only if the hook asks for it.
#[derive(Debug, Default)]
pub struct Commands<'a> {
    list: Vec<Command>,
    stream: Option<&'a GameRng>,
    /// Boxed: a generator is some 300 bytes, and a sink is made and taken apart at every hook
    /// call, most of which never draw a number.
    rng: Option<Box<GameRng>>,
    /// Where commands were given, when the code knows (a script's `file:line`), by index: a
    /// command the core refuses is applied after the hook returned, far from its line.
    origins: Vec<(usize, Cow<'static, str>)>,
    /// The source line of each [`Commands::push`], when the sink notes them
    /// ([`Commands::noting_places`]), in a list the caller lends (a native plugin's SDK reuses
    /// one, and sends the lines to its host).
    pushed_at: Option<&'a mut Vec<&'static std::panic::Location<'static>>>,
}

impl<'a> Commands<'a> {
    /// A sink; `stream` is the expansion's random stream in the game state.
    pub fn new(stream: Option<&'a GameRng>) -> Commands<'a> {
        Commands { list: Vec::new(), stream, rng: None, origins: Vec::new(), pushed_at: None }
    }

    /// A sink that notes the source line of each [`Commands::push`] ([`Commands::pushed_at`])
    /// in `places`, which it empties first.
    pub fn noting_places(
        stream: Option<&'a GameRng>,
        places: &'a mut Vec<&'static std::panic::Location<'static>>,
    ) -> Commands<'a> {
        places.clear();
        Commands { pushed_at: Some(places), ..Commands::new(stream) }
    }

    /// Adds a command (noting the line that adds it, in a sink made with
    /// [`Commands::noting_places`]).
    #[track_caller]
    pub fn push(&mut self, c: Command) {
        self.list.push(c);
        if let Some(places) = self.pushed_at.as_deref_mut() {
            places.push(std::panic::Location::caller());
        }
    }

    /// The source line of each command's [`Commands::push`], by index (none unless the sink
    /// was made with [`Commands::noting_places`]).
    pub fn pushed_at(&self) -> &[&'static std::panic::Location<'static>] {
        self.pushed_at.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Notes where the last command was given (`file:line`), for the error if it is refused.
    pub fn given_at(&mut self, place: impl Into<String>) {
        self.note_origin(Cow::Owned(place.into()));
    }

    /// Notes where the last command was given, as [`Commands::given_at`] does, with a place
    /// that lasts (a native plugin's host names each of its lines once, not each command).
    pub fn given_at_lasting(&mut self, place: &'static str) {
        self.note_origin(Cow::Borrowed(place));
    }

    fn note_origin(&mut self, place: Cow<'static, str>) {
        if let Some(last) = self.list.len().checked_sub(1) {
            self.origins.push((last, place));
        }
    }

    /// Where the commands were given, by index, as [`Commands::given_at`] and
    /// [`Commands::given_at_lasting`] noted it.
    pub(crate) fn take_origins(&mut self) -> Vec<(usize, Cow<'static, str>)> {
        std::mem::take(&mut self.origins)
    }

    /// How many commands were given.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when no command was given.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The expansion's deterministic random stream (`None` outside a game).
    pub fn rng(&mut self) -> Option<&mut GameRng> {
        if self.rng.is_none() {
            self.rng = self.stream.map(|r| Box::new(r.clone()));
        }
        self.rng.as_deref_mut()
    }

    /// Takes the commands, and the random stream if the hook used it.
    pub fn into_parts(self) -> (Vec<Command>, Option<Box<GameRng>>) {
        (self.list, self.rng)
    }

    /// The commands so far.
    pub fn commands(&self) -> &[Command] {
        &self.list
    }
}

/// The facts of a feature being scored, given to `modify_score`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scoring {
    /// The feature (its root segment).
    pub feature: SegId,
    /// Its kind.
    pub kind: SegmentKind,
    /// Completed during play (true) or scored incomplete at the end (false).
    pub completed: bool,
    /// Scored at the end of the game.
    pub final_scoring: bool,
    /// Distinct tiles (monasteries: 1 + tiles around).
    pub tiles: u16,
    /// Coats of arms.
    pub arms: u16,
    /// Fields: the completed cities it touches (their root segments).
    pub cities: Vec<SegId>,
    /// Strength of each player on the feature.
    pub strength: Vec<u32>,
    /// Points the base rules give each player (0 for players without the majority).
    pub points: Vec<i32>,
}

/// An error raised by an expansion's hook, or by a command it emitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{expansion}: {hook}: {}{message}", location.as_deref().map(|l| format!("{l}: ")).unwrap_or_default())]
pub struct HookError {
    /// The expansion's id.
    pub expansion: String,
    /// The hook's name.
    pub hook: String,
    /// `file:line` in the expansion, when known.
    pub location: Option<String>,
    /// What went wrong.
    pub message: String,
    /// A stack trace, when the runtime gives one.
    pub traceback: Option<String>,
}

impl HookError {
    /// An error without location.
    pub fn new(expansion: &str, hook: HookKind, message: impl Into<String>) -> HookError {
        HookError {
            expansion: expansion.to_string(),
            hook: hook.name().to_string(),
            location: None,
            message: message.into(),
            traceback: None,
        }
    }

    /// An error placed at the line that makes it, as the compiler names its file
    /// (`src/lib.rs:24`): for native plugins, whose host names that file in the plugin's folder
    /// (`id/src/lib.rs:24`), as a script's line is named.
    #[track_caller]
    pub fn here(expansion: &str, hook: HookKind, message: impl Into<String>) -> HookError {
        let at = std::panic::Location::caller();
        HookError { location: Some(format!("{}:{}", at.file(), at.line())), ..HookError::new(expansion, hook, message) }
    }
}

/// What hooks return.
pub type HookResult = Result<(), HookError>;

/// A value an expansion's code keeps between hook calls ([`Expansion::kept_values`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptValue {
    /// The value as a modder would name it: `` `count`, a local that the `feature_completed`
    /// handler (init.luau:12) uses `` or `` the global `TOTAL` ``.
    pub what: String,
    /// What the value holds: the value at the end of each path down through what it reaches
    /// (`""` for the value itself, `["base:A"]` for a table's entry, `.count` for a local of a
    /// function), each by a fingerprint, sorted by path.
    pub leaves: Vec<(String, u64)>,
    /// Where the code that uses it is, as a hook error's `location` (`expansion/file:line`),
    /// when known.
    pub place: Option<String>,
}

impl KeptValue {
    /// The first path (from `""`, the value itself) at which `later`, the same value after more
    /// games, holds something else; paths that only one of them has are left out, so that a
    /// cache that fills up (what each tile kind is, learnt as tiles come) is no change.
    pub fn changed_in(&self, later: &KeptValue) -> Option<&str> {
        let mut then = later.leaves.iter().peekable();
        for (path, value) in &self.leaves {
            while then.next_if(|(p, _)| p < path).is_some() {}
            if let Some((p, v)) = then.peek()
                && p == path
                && v != value
            {
                return Some(path);
            }
        }
        None
    }
}

/// True when `can_place_tile`'s verdicts forbid no placement, as on most turns. One scan
/// without an early exit, which the compiler vectorises: cheaper than walking the verdicts for
/// the ones cleared.
#[inline]
pub fn forbids_nothing(allowed: &[bool]) -> bool {
    allowed.iter().fold(true, |all, &a| all & a)
}

/// An expansion: rules added to the base game through hooks.
///
/// Every method but [`id`](Expansion::id) and [`hooks`](Expansion::hooks) has a default that
/// does nothing; an expansion implements the hooks it lists in `hooks()`.
pub trait Expansion: Send + Sync {
    /// The expansion's id; the namespace of its figures, tokens and storage.
    fn id(&self) -> &str;

    /// The hooks to call: a method whose hook is not listed here is never called.
    fn hooks(&self) -> HookSet;

    /// Which calls of its hooks can matter to it in this ruleset; the core skips the others
    /// (asked once per ruleset, before the first hook call that it could skip).
    fn interest(&self, _rules: &crate::rules::Rules) -> Interest {
        Interest::ALL
    }

    /// Why the expansion cannot play this ruleset, asked once it is built: what the expansion
    /// names that the ruleset lacks (a figure kind of another expansion that is not in it), or
    /// a ruleset it could not take (a native plugin is handed it here). The host refuses the
    /// ruleset with these.
    fn misfits(&self, _rules: &crate::rules::Rules) -> Vec<HookError> {
        Vec::new()
    }

    /// Extra score categories (the expansion's id is added for it when it scores).
    fn categories(&self) -> Vec<String> {
        vec![self.id().to_string()]
    }

    /// The values the expansion's code keeps between hook calls, each with a fingerprint of
    /// what it holds, for `meeple check` to compare before and after games: code should keep
    /// nothing of a game there (a game is copied, replayed and played beside others), and a
    /// value whose fingerprint changed was written by a hook. Empty for code that cannot be
    /// looked into (native plugins, built-in Rust).
    fn kept_values(&self) -> Vec<KeptValue> {
        Vec::new()
    }

    /// Once at the start of a game, after the start tile.
    fn setup(&self, _view: &View<'_>, _out: &mut Commands<'_>) -> HookResult {
        Ok(())
    }

    /// Clears `allowed[i]` for placements of the drawn tile that the expansion forbids.
    fn can_place_tile(
        &self,
        _view: &View<'_>,
        _tile: TileId,
        _candidates: &[Placement],
        _allowed: &mut [bool],
    ) -> HookResult {
        Ok(())
    }

    /// Adds actions to offer in this figure phase.
    fn figure_actions(&self, _view: &View<'_>, _offers: &mut Vec<Offer>) -> HookResult {
        Ok(())
    }

    /// A player took one of the expansion's offers.
    fn on_action(&self, _view: &View<'_>, _offer: &Offer, _out: &mut Commands<'_>) -> HookResult {
        Ok(())
    }

    /// A player answered one of the expansion's decisions.
    fn on_decision(&self, _view: &View<'_>, _decision: &Decision, _option: u16, _out: &mut Commands<'_>) -> HookResult {
        Ok(())
    }

    /// Something happened (only events whose hook the expansion subscribes to).
    fn on_event(&self, _view: &View<'_>, _event: &Event, _out: &mut Commands<'_>) -> HookResult {
        Ok(())
    }

    /// A feature is being scored; `SetScore` commands replace a player's points.
    fn modify_score(&self, _view: &View<'_>, _scoring: &Scoring, _out: &mut Commands<'_>) -> HookResult {
        Ok(())
    }

    /// The end of the game, after the base game's final scoring (of which the final scoring of
    /// an expansion made part with [`crate::RulesBuilder::final_scoring_with_base`] is a part:
    /// those run first).
    fn final_scoring(&self, _view: &View<'_>, _out: &mut Commands<'_>) -> HookResult {
        Ok(())
    }
}
