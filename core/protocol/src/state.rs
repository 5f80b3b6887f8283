//! A game's state as clients see it: everything on the table, the scores with their breakdown,
//! and what can be done next, described so that a client needs no rules of its own. The order
//! of the draw pile is never in it: only how many tiles are left, and which.

use meeple_core::describe::ActionInfo;
use meeple_core::figures::Location;
use meeple_core::tileset::SideLetters;
use meeple_core::{Action, Game, Pos, Rotation, SegmentKind, Stage, Target};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The state of one game.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct StateView {
    /// The game's id in the session.
    pub game: String,
    /// The steps taken in the game so far, actions and undos (a loaded game starts at its
    /// replay's actions): `act` takes it back as `seq` to refuse an action chosen from a state
    /// the game has left. Over HTTP, the same as the reply's `seq`.
    pub seq: u64,
    /// The position's hash, 16 hex digits: of what the players can know (as
    /// `GameState::public_hash`: not the order of the tiles still to draw), so two games that
    /// differ only in what comes next hash alike; for a client's cache or a search's table of
    /// positions. Not a replay's `state_hash`, which covers the draw order too.
    pub hash: String,
    /// Whether final scoring is done.
    pub over: bool,
    /// Once the game is over: the seats with the highest score (several on a tie, a shared
    /// win: the rules have no tie-breaker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winners: Option<Vec<u8>>,
    /// Who acts next (0-based seat), if anybody.
    pub to_act: Option<u8>,
    /// The turn.
    pub turn: TurnView,
    /// Each seat's score, in brief states too (a search's playout reads its outcome here).
    pub scores: Vec<i32>,
    /// Per seat: name, score, breakdown, tokens, figures in supply (not in brief states).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub players: Option<Vec<PlayerView>>,
    /// Placed tiles, in placement order (not in brief states).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<Vec<TileView>>,
    /// Features completed or holding a figure; every one, open and empty ones too, in a state
    /// asked for with all features ([`Detail::AllFeatures`]). Not in brief states.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<FeatureView>>,
    /// Figures that are not in a supply (not in brief states).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<Vec<FigureView>>,
    /// The tiles no player has seen yet, by kind (`tileset:tile`) with their number: what a
    /// player knows by counting, for a search that deals them out (the order they come in is
    /// hidden). The drawn tile is not among them. With a tile limit, not all of them will be
    /// drawn (`turn.tiles_left`). Not in brief states.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unseen: Option<BTreeMap<Arc<str>, u32>>,
    /// The question waiting for an answer, if any.
    pub pending: Option<PendingView>,
    /// The seat whose action `undo` would take back now, when there is one: absent when no
    /// action was taken since the last tile was drawn (the action that draws cannot be taken
    /// back), and once the game is over. For a UI's undo button.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undo: Option<u8>,
    /// Every legal action, with its description; act with `index` or `action`.
    pub legal: Vec<LegalAction>,
}

/// The turn.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct TurnView {
    /// Turn number, from 1.
    pub number: u32,
    /// Whose turn it is.
    pub player: u8,
    /// Part of the turn, from 1.
    pub part: u8,
    /// Where the turn stands.
    pub stage: Stage,
    /// The drawn tile (`tileset:tile`), until placed.
    pub tile: Option<Arc<str>>,
    /// Tiles still to draw.
    pub tiles_left: u32,
}

/// One seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PlayerView {
    /// The player's name.
    pub name: String,
    /// Total points.
    pub score: i32,
    /// Points per category (roads, cities, …, an expansion's own), non-zero ones.
    pub breakdown: BTreeMap<String, i32>,
    /// Tokens held per kind, non-zero ones.
    pub tokens: BTreeMap<String, i32>,
    /// Figures in supply per kind.
    pub supply: BTreeMap<String, u8>,
}

/// A placed tile.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct TileView {
    /// `tileset:tile`.
    pub tile: Arc<str>,
    /// Where it stands.
    pub pos: Pos,
    /// Quarter turns clockwise.
    pub rotation: Rotation,
    /// Its sides on the board, N E S W (`C` city, `R` road, `F` field, `W` river).
    pub sides: SideLetters,
}

/// A feature.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct FeatureView {
    /// Its id (the root segment; changes when features join).
    pub id: u16,
    /// City, road, field, monastery, …
    pub kind: SegmentKind,
    /// Completed.
    pub completed: bool,
    /// The tiles it spans (a monastery: its own).
    pub tiles: u16,
    /// Its coats of arms.
    pub arms: u16,
    /// Of a city, road or river: the tile edges it still runs off the board through (0 once
    /// completed). Always 0 for fields and monasteries, which no edge closes.
    pub open: u16,
    /// The ids of the figures standing on it (in `figures`), in id order.
    pub figures: Vec<u16>,
    /// Its segments: the square and the segment's id in its tile.
    pub parts: Vec<(Pos, Arc<str>)>,
}

/// A figure on the board or set aside.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct FigureView {
    /// Its id.
    pub id: u16,
    /// Its owner's seat.
    pub owner: u8,
    /// Its kind (`meeple`, `traders-builders:builder`, …).
    pub kind: String,
    /// Where it is.
    pub at: FigurePlace,
    /// The face up (a tollhouse's 1 or 2), 0 for figures without faces.
    pub face: u8,
}

/// Where a figure is.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FigurePlace {
    /// On a segment of a tile.
    Segment {
        /// The square.
        pos: Pos,
        /// The segment's id in its tile.
        segment: Arc<str>,
    },
    /// On a named point of a tile (a village).
    Point {
        /// The square.
        pos: Pos,
        /// The point's id in its tile.
        point: String,
    },
    /// Set aside (a C3.1 builder beside the stacks).
    Aside,
}

/// The question waiting for an answer.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PendingView {
    /// Who answers.
    pub player: u8,
    /// The expansion asking, by id: two expansions may ask questions of one `kind`.
    pub expansion: String,
    /// What players call that expansion (`Traders & Builders`), for a UI's heading.
    pub name: String,
    /// The question, as the expansion names it.
    pub kind: String,
    /// The answers.
    pub options: Vec<String>,
    /// What the question is about (the figure, segment or point it concerns), when its
    /// expansion says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub about: Option<Target>,
    /// The same in words (`Ann's meeple on the field at (1, 2)`), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// A legal action.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct LegalAction {
    /// Its index, for `act`.
    pub index: usize,
    /// The action itself, as `act` takes it.
    pub action: Action,
    /// What it does, described (not in brief states).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<ActionInfo>,
    /// The same in words (in brief states only for an expansion's offer, whose words no table
    /// of names holds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// How much of a game a state shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Only what a player that keeps its own picture of the game needs to choose: whose turn,
    /// the pending question, and the legal actions without their descriptions.
    Brief,
    /// Everything, with the features that are completed or hold a figure.
    Whole,
    /// Everything, with every feature: open and empty ones too, for a client that weighs where
    /// to stand (a state half as big again, or twice as big, in mid-game: so asked for apart).
    AllFeatures,
}

impl Detail {
    /// As a command's `brief` and `all_features` say: brief wins, as a brief state has no
    /// features to list.
    pub fn asked(brief: bool, all_features: bool) -> Detail {
        match (brief, all_features) {
            (true, _) => Detail::Brief,
            (false, true) => Detail::AllFeatures,
            (false, false) => Detail::Whole,
        }
    }
}

impl StateView {
    /// The state of a game, whole.
    pub fn of(id: &str, game: &Game, seq: u64) -> StateView {
        StateView::build(id, game, seq, Detail::Whole)
    }

    /// The state of a game, brief ([`Detail::Brief`]).
    pub fn brief(id: &str, game: &Game, seq: u64) -> StateView {
        StateView::build(id, game, seq, Detail::Brief)
    }

    /// The state of a game with as much as `detail` says.
    pub fn build(id: &str, game: &Game, seq: u64, detail: Detail) -> StateView {
        let brief = detail == Detail::Brief;
        let (rules, st) = (game.rules(), game.state());
        let names = &game.setup().players;
        let turn = st.turn();
        StateView {
            game: id.to_string(),
            seq,
            hash: format!("{:016x}", st.public_hash()),
            over: game.is_over(),
            winners: game.is_over().then(|| game.state().winners()),
            to_act: game.to_act(),
            turn: TurnView {
                number: turn.number,
                player: turn.player,
                part: turn.part,
                stage: turn.stage,
                tile: turn.tile.map(|t| rules.tile(t).key.clone()),
                tiles_left: st.tiles_left(),
            },
            scores: st.scores(),
            players: (!brief).then(|| (0..st.players()).map(|p| player(game, p, names)).collect()),
            board: (!brief).then(|| board(game)),
            features: (!brief).then(|| features(game, detail == Detail::AllFeatures)),
            figures: (!brief).then(|| figures(game)),
            unseen: (!brief).then(|| unseen(game)),
            undo: None,
            pending: st.pending().first().map(|d| {
                // A question is only ever asked by an expansion of the game.
                let (id, name) = rules.expansion_id_and_name(d.expansion).unwrap_or_default();
                PendingView {
                    player: d.player,
                    expansion: id.to_string(),
                    name: name.to_string(),
                    kind: d.kind.clone(),
                    options: d.options.clone(),
                    about: d.about,
                    at: d.about.map(|_| game.decision_about(d)),
                }
            }),
            legal: match brief {
                true => game
                    .legal_actions()
                    .into_iter()
                    .enumerate()
                    .map(|(index, action)| {
                        // An expansion's offer is worded by its own label, which no table of
                        // names holds: its words stay.
                        let offer = matches!(action, Action::Expansion { .. });
                        let text = offer.then(|| text(&game.describe(&action)));
                        LegalAction { index, action, info: None, text }
                    })
                    .collect(),
                false => game
                    .legal_actions_described()
                    .into_iter()
                    .enumerate()
                    .map(|(index, (action, info))| LegalAction {
                        index,
                        action,
                        text: Some(text(&info)),
                        info: Some(info),
                    })
                    .collect(),
            },
        }
    }
}

/// The tiles not drawn yet, counted by kind.
fn unseen(game: &Game) -> BTreeMap<Arc<str>, u32> {
    let mut counts = BTreeMap::new();
    for t in game.state().unseen_tiles() {
        *counts.entry(game.rules().tile(t).key.clone()).or_insert(0) += 1;
    }
    counts
}

/// An action's description for people, written once into a string of about its final size (a
/// state holds one per legal action, and growing each string step by step cost more than
/// the rest of its text).
fn text(info: &ActionInfo) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(96);
    let _ = write!(text, "{info}");
    text
}

fn player(game: &Game, p: u8, names: &[String]) -> PlayerView {
    let (rules, st) = (game.rules(), game.state());
    let breakdown = rules
        .categories()
        .iter()
        .zip(st.breakdown(p))
        .filter(|(_, n)| **n != 0)
        .map(|(c, n)| (c.clone(), *n))
        .collect();
    let tokens = (0..rules.tokens().len() as u16)
        .filter(|&t| st.tokens(p, t) != 0)
        .map(|t| (rules.tokens()[t as usize].id.clone(), st.tokens(p, t)))
        .collect();
    let supply = rules.figures().iter().enumerate().map(|(k, f)| (f.id.clone(), st.supply(p, k as u8))).collect();
    PlayerView {
        name: names.get(p as usize).cloned().unwrap_or_else(|| format!("player {}", p + 1)),
        score: st.score(p),
        breakdown,
        tokens,
        supply,
    }
}

fn board(game: &Game) -> Vec<TileView> {
    let rules = game.rules();
    let tiles = game.state().board().tiles().iter();
    tiles
        .map(|t| TileView {
            tile: rules.tile(t.tile).key.clone(),
            pos: t.pos,
            rotation: t.rotation,
            sides: rules.tile(t.tile).def.board_sides(t.rotation),
        })
        .collect()
}

/// The features of the board: every one with `all`, else those completed or held.
fn features(game: &Game, all: bool) -> Vec<FeatureView> {
    let (rules, st) = (game.rules(), game.state());
    let g = st.features();
    // The figures of each feature, found in one pass rather than one per feature.
    let mut held: BTreeMap<u16, Vec<u16>> = BTreeMap::new();
    for (id, f) in st.figures().iter().enumerate() {
        if let Location::Segment { segment } = f.at {
            held.entry(g.find(segment)).or_default().push(id as u16);
        }
    }
    let mut out = Vec::new();
    for root in g.roots() {
        let info = st.feature(rules, root);
        let figures = held.remove(&root).unwrap_or_default();
        if !all && !info.completed && figures.is_empty() {
            continue;
        }
        let parts = g
            .members(root)
            .map(|s| {
                let seg = g.info(s);
                let placed = st.board().tile(seg.tile);
                (placed.pos, rules.tile(placed.tile).def.segments[seg.local as usize].id.clone())
            })
            .collect();
        out.push(FeatureView {
            id: root,
            kind: info.kind,
            completed: info.completed,
            tiles: info.tiles,
            arms: info.arms,
            open: info.open,
            figures,
            parts,
        });
    }
    out
}

fn figures(game: &Game) -> Vec<FigureView> {
    let (rules, st) = (game.rules(), game.state());
    let mut out = Vec::new();
    for (id, f) in st.figures().iter().enumerate() {
        let at = match f.at {
            Location::Supply => continue,
            Location::Segment { segment } => {
                let seg = st.features().info(segment);
                let placed = st.board().tile(seg.tile);
                let def = &rules.tile(placed.tile).def;
                FigurePlace::Segment { pos: placed.pos, segment: def.segments[seg.local as usize].id.clone() }
            }
            Location::Point { tile, point } => {
                let placed = st.board().tile(tile);
                let def = &rules.tile(placed.tile).def;
                FigurePlace::Point { pos: placed.pos, point: def.points[point as usize].id.clone() }
            }
            Location::Aside => FigurePlace::Aside,
        };
        out.push(FigureView { id: id as u16, owner: f.owner, kind: rules.figure(f.kind).id.clone(), at, face: f.face });
    }
    out
}
