//! The read-only view of a game that every hook receives.
//!
//! A view answers questions about the game — tiles, features, figures, scores, tokens, the
//! expansion's storage — through methods. In the host they read the game state directly. In a
//! native plugin, which runs in its own library with its own copy of the rules, the same methods
//! send a [`Query`] to the host and read its [`Answer`]; the plugin's hooks are therefore written
//! against exactly the same API as built-in ones.

use crate::action::Decision;
use crate::board::PlacedTile;
use crate::features::{SegId, SegInfo};
use crate::figures::{Figure, FigureId, FigureKindId};
use crate::geometry::{Pos, Rotation};
use crate::rules::{Rules, TileId};
use crate::state::{FeatureInfo, GameState, Stage};
use crate::value::Value;
use serde::{Deserialize, Serialize};

/// The current turn, as hooks see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnInfo {
    /// Turn number, from 1.
    pub number: u32,
    /// Whose turn it is.
    pub player: u8,
    /// Part of the turn, from 1.
    pub part: u8,
    /// Where the turn machine stands.
    pub stage: Stage,
    /// The index of the tile placed in this part, once placed.
    pub placed: Option<u16>,
    /// Tiles still to draw.
    pub tiles_left: u32,
}

/// A placed tile, as hooks see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileInfo {
    /// Index among placed tiles (placement order).
    pub index: u16,
    /// Its kind.
    pub tile: TileId,
    /// Where it stands.
    pub pos: Pos,
    /// How it is turned.
    pub rotation: Rotation,
    /// The segment id of its first segment; segment `i` of the kind is `first_segment + i`.
    pub first_segment: SegId,
}

impl TileInfo {
    fn of(index: u16, t: &PlacedTile) -> TileInfo {
        TileInfo { index, tile: t.tile, pos: t.pos, rotation: t.rotation, first_segment: t.first_segment }
    }
}

/// A question a remote view sends to the host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Query {
    /// Number of players.
    Players,
    /// The current turn.
    Turn,
    /// Number of placed tiles.
    TileCount,
    /// A placed tile by index.
    Placed(u16),
    /// The tile at a square.
    TileAt(Pos),
    /// A segment's facts.
    Segment(SegId),
    /// The feature a segment belongs to.
    Feature(SegId),
    /// The segments of a feature.
    FeatureSegments(SegId),
    /// The segments of a feature with their tiles.
    FeatureParts(SegId),
    /// The completed cities a field touches.
    FieldCities(SegId),
    /// Every figure.
    Figures,
    /// Figures on a feature.
    FiguresOn(SegId),
    /// Figures of a kind in a player's supply.
    Supply(u8, FigureKindId),
    /// A player's points in a category.
    Points(u8, u16),
    /// A player's tokens of a kind.
    Tokens(u8, u16),
    /// Tokens of a kind left in the general supply.
    TokenSupply(u16),
    /// A value from the calling expansion's storage.
    Storage(String),
    /// Tiles on the 8 squares around a square.
    Neighbours(Pos),
    /// Decisions waiting for an answer.
    Pending,
    /// The version of the calling expansion's storage.
    StorageVersion,
    /// Every figure of a kind, in and out of supply.
    FiguresOfKind(FigureKindId),
    /// A player's score before any expansion's final scoring.
    ScoreBeforeFinal(u8),
    /// A player's name.
    PlayerName(u8),
}

/// The host's answer to a [`Query`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// A number.
    Int(i64),
    /// The turn.
    Turn(TurnInfo),
    /// A placed tile, if any.
    Tile(Option<TileInfo>),
    /// A segment.
    Segment(SegInfo),
    /// A feature.
    Feature(FeatureInfo),
    /// Segment or feature ids.
    Ids(Vec<SegId>),
    /// Figures with their ids.
    Figures(Vec<(FigureId, Figure)>),
    /// A stored value, if any.
    Value(Option<Value>),
    /// Pending decisions.
    Decisions(Vec<Decision>),
    /// Segments with their tiles.
    Parts(Vec<FeaturePart>),
}

/// One segment of a feature and the placed tile it lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeaturePart {
    /// The segment.
    pub seg: SegId,
    /// Its index within the tile kind (`TileDef::segments`).
    pub local: u8,
    /// The tile.
    pub tile: TileInfo,
}

/// Where a remote view gets its answers (implemented by the native-plugin SDK).
pub trait ViewSource {
    /// Answers a query about the game being played.
    fn ask(&self, query: &Query) -> Answer;
}

#[derive(Clone, Copy)]
enum Source<'a> {
    Local(&'a GameState),
    Remote(&'a dyn ViewSource),
}

/// A read-only view of a game for the length of one hook call.
#[derive(Clone, Copy)]
pub struct View<'a> {
    rules: &'a Rules,
    source: Source<'a>,
    expansion: u16,
}

macro_rules! ask {
    ($self:ident, $query:expr, $pat:pat => $out:expr) => {
        match $self.source {
            Source::Remote(r) => match r.ask(&$query) {
                $pat => $out,
                other => panic!("the host answered {:?} with {other:?}", $query),
            },
            Source::Local(_) => unreachable!(),
        }
    };
}

impl<'a> View<'a> {
    /// A view of a game state in this process.
    pub fn local(rules: &'a Rules, state: &'a GameState, expansion: u16) -> View<'a> {
        View { rules, source: Source::Local(state), expansion }
    }

    /// A view whose answers come from elsewhere (a native plugin's view of the host's game).
    pub fn remote(rules: &'a Rules, source: &'a dyn ViewSource, expansion: u16) -> View<'a> {
        View { rules, source: Source::Remote(source), expansion }
    }

    /// The ruleset: tile kinds, figure kinds, tokens, score categories.
    pub fn rules(&self) -> &'a Rules {
        self.rules
    }

    /// Index of the expansion being called.
    pub fn expansion(&self) -> u16 {
        self.expansion
    }

    /// The whole state, when the view is local (built-in expansions may read it directly; code
    /// meant to run as a plugin too should use the methods).
    pub fn state(&self) -> Option<&'a GameState> {
        match self.source {
            Source::Local(s) => Some(s),
            Source::Remote(_) => None,
        }
    }

    /// Number of players.
    #[inline]
    pub fn players(&self) -> u8 {
        match self.source {
            Source::Local(s) => s.players(),
            _ => ask!(self, Query::Players, Answer::Int(n) => n as u8),
        }
    }

    /// The current turn.
    #[inline]
    pub fn turn(&self) -> TurnInfo {
        match self.source {
            Source::Local(s) => {
                let t = s.turn();
                TurnInfo {
                    number: t.number,
                    player: t.player,
                    part: t.part,
                    stage: t.stage,
                    placed: t.placed,
                    tiles_left: s.tiles_left(),
                }
            }
            _ => ask!(self, Query::Turn, Answer::Turn(t) => t),
        }
    }

    /// Number of placed tiles.
    pub fn tile_count(&self) -> u16 {
        match self.source {
            Source::Local(s) => s.board().tiles().len() as u16,
            _ => ask!(self, Query::TileCount, Answer::Int(n) => n as u16),
        }
    }

    /// A placed tile by its index.
    pub fn placed(&self, index: u16) -> Option<TileInfo> {
        match self.source {
            Source::Local(s) => s.board().tiles().get(index as usize).map(|t| TileInfo::of(index, t)),
            _ => ask!(self, Query::Placed(index), Answer::Tile(t) => t),
        }
    }

    /// The tile at a square.
    pub fn tile_at(&self, pos: Pos) -> Option<TileInfo> {
        match self.source {
            Source::Local(s) => s.board().index_at(pos).map(|i| TileInfo::of(i, s.board().tile(i))),
            _ => ask!(self, Query::TileAt(pos), Answer::Tile(t) => t),
        }
    }

    /// The facts of a segment: its tile, index in the tile kind, kind.
    pub fn segment(&self, seg: SegId) -> SegInfo {
        match self.source {
            Source::Local(s) => s.features().info(seg),
            _ => ask!(self, Query::Segment(seg), Answer::Segment(i) => i),
        }
    }

    /// The feature a segment belongs to.
    pub fn feature(&self, seg: SegId) -> FeatureInfo {
        match self.source {
            Source::Local(s) => s.feature(self.rules, seg),
            _ => ask!(self, Query::Feature(seg), Answer::Feature(f) => f),
        }
    }

    /// The segments of the feature `seg` belongs to, in ascending order.
    pub fn feature_segments(&self, seg: SegId) -> Vec<SegId> {
        match self.source {
            Source::Local(s) => {
                let mut v: Vec<SegId> = s.features().members(seg).collect();
                v.sort_unstable();
                v
            }
            _ => ask!(self, Query::FeatureSegments(seg), Answer::Ids(v) => v),
        }
    }

    /// The segments of the feature `seg` belongs to with their tiles, in ascending segment order
    /// (one question for what `feature_segments`, `segment` and `placed` answer one by one).
    pub fn feature_parts(&self, seg: SegId) -> Vec<FeaturePart> {
        match self.source {
            Source::Local(s) => {
                let mut v: Vec<FeaturePart> = s
                    .features()
                    .members(seg)
                    .map(|m| {
                        let info = s.features().info(m);
                        let tile = TileInfo::of(info.tile, s.board().tile(info.tile));
                        FeaturePart { seg: m, local: info.local, tile }
                    })
                    .collect();
                v.sort_unstable_by_key(|p| p.seg);
                v
            }
            _ => ask!(self, Query::FeatureParts(seg), Answer::Parts(v) => v),
        }
    }

    /// The tileset's definitions of the segments of the feature `seg` belongs to, in ascending
    /// segment order: where a rule reads what the tiles mark on it (`tags`, `goods`).
    pub fn feature_segment_defs(&self, seg: SegId) -> Vec<&'a crate::tileset::Segment> {
        let rules = self.rules;
        let parts = self.feature_parts(seg);
        parts.iter().map(|p| &rules.tile(p.tile.tile).def.segments[p.local as usize]).collect()
    }

    /// The tags of the segments of the feature `seg` belongs to, each with how many of its
    /// segments carry it, in name order (`{"inn": 2}`: two inns on a road).
    pub fn feature_tags(&self, seg: SegId) -> std::collections::BTreeMap<&'a str, u32> {
        counted(self.feature_segment_defs(seg).into_iter().flat_map(|d| d.tags.iter().map(String::as_str)))
    }

    /// The goods symbols on the feature `seg` belongs to, each with how many, in name order.
    pub fn goods(&self, seg: SegId) -> std::collections::BTreeMap<&'a str, u32> {
        counted(self.feature_segment_defs(seg).into_iter().filter_map(|d| d.goods.as_deref()))
    }

    /// The completed cities a field touches (their feature ids, ascending).
    pub fn field_cities(&self, field: SegId) -> Vec<SegId> {
        match self.source {
            Source::Local(s) => s.field_cities(self.rules, field),
            _ => ask!(self, Query::FieldCities(field), Answer::Ids(v) => v),
        }
    }

    /// Every figure with its id.
    pub fn figures(&self) -> Vec<(FigureId, Figure)> {
        match self.source {
            Source::Local(s) => s.figures().iter().enumerate().map(|(i, f)| (i as FigureId, *f)).collect(),
            _ => ask!(self, Query::Figures, Answer::Figures(v) => v),
        }
    }

    /// The figure with this id, if there is one.
    pub fn figure(&self, id: FigureId) -> Option<Figure> {
        match self.source {
            Source::Local(s) => s.figures().get(id as usize).copied(),
            _ => self.figures().into_iter().find(|(i, _)| *i == id).map(|(_, f)| f),
        }
    }

    /// Every figure of a kind, of every player, wherever it is.
    pub fn figures_of_kind(&self, kind: FigureKindId) -> Vec<(FigureId, Figure)> {
        match self.source {
            Source::Local(s) => s.figures_of_kind(kind).map(|(i, f)| (i, *f)).collect(),
            _ => ask!(self, Query::FiguresOfKind(kind), Answer::Figures(v) => v),
        }
    }

    /// The version of the calling expansion's storage: equal versions mean equal storage (see
    /// [`GameState::storage_version`]), so what was derived from it may be kept meanwhile.
    #[inline]
    pub fn storage_version(&self) -> u64 {
        match self.source {
            Source::Local(s) => s.storage_version(self.expansion),
            _ => ask!(self, Query::StorageVersion, Answer::Int(n) => n as u64),
        }
    }

    /// The figures standing on the feature `seg` belongs to.
    pub fn figures_on(&self, seg: SegId) -> Vec<(FigureId, Figure)> {
        match self.source {
            Source::Local(s) => s.figures_on(seg).map(|(i, f)| (i, *f)).collect(),
            _ => ask!(self, Query::FiguresOn(seg), Answer::Figures(v) => v),
        }
    }

    /// Figures of a kind in a player's supply.
    pub fn supply(&self, player: u8, kind: FigureKindId) -> u8 {
        match self.source {
            Source::Local(s) => s.supply(player, kind),
            _ => ask!(self, Query::Supply(player, kind), Answer::Int(n) => n as u8),
        }
    }

    /// A player's points in one category.
    pub fn points(&self, player: u8, category: u16) -> i32 {
        match self.source {
            Source::Local(s) => s.points(player, category),
            _ => ask!(self, Query::Points(player, category), Answer::Int(n) => n as i32),
        }
    }

    /// A player's total score.
    pub fn score(&self, player: u8) -> i32 {
        (0..self.rules.categories().len() as u16).map(|c| self.points(player, c)).sum()
    }

    /// A player's score once the base game's end scoring is done (see
    /// [`crate::GameState::score_before_final`]).
    pub fn score_before_final(&self, player: u8) -> i32 {
        match self.source {
            Source::Local(s) => s.score_before_final(player),
            _ => ask!(self, Query::ScoreBeforeFinal(player), Answer::Int(n) => n as i32),
        }
    }

    /// A player's tokens of one kind.
    pub fn tokens(&self, player: u8, token: u16) -> i32 {
        match self.source {
            Source::Local(s) => s.tokens(player, token),
            _ => ask!(self, Query::Tokens(player, token), Answer::Int(n) => n as i32),
        }
    }

    /// Tokens of a kind left in the general supply.
    pub fn token_supply(&self, token: u16) -> i32 {
        match self.source {
            Source::Local(s) => s.token_supply(token),
            _ => ask!(self, Query::TokenSupply(token), Answer::Int(n) => n as i32),
        }
    }

    /// A value from the calling expansion's storage.
    pub fn storage(&self, key: &str) -> Option<Value> {
        match self.source {
            Source::Local(s) => s.storage(self.expansion, key).cloned(),
            _ => ask!(self, Query::Storage(key.to_string()), Answer::Value(v) => v),
        }
    }

    /// Number of tiles on the 8 squares around a square.
    pub fn neighbours(&self, pos: Pos) -> u16 {
        match self.source {
            Source::Local(s) => s.neighbours(pos),
            _ => ask!(self, Query::Neighbours(pos), Answer::Int(n) => n as u16),
        }
    }

    /// A player's name, as the game's setup gives it (for messages: the rules never depend on
    /// it); empty for a player the game lacks.
    pub fn player_name(&self, player: u8) -> String {
        match self.source {
            Source::Local(s) => s.player_name(player).unwrap_or_default().to_string(),
            _ => ask!(self, Query::PlayerName(player), Answer::Value(Some(Value::Str(name))) => name),
        }
    }

    /// Decisions waiting for an answer, the next one first.
    pub fn pending(&self) -> Vec<Decision> {
        match self.source {
            Source::Local(s) => s.pending().to_vec(),
            _ => ask!(self, Query::Pending, Answer::Decisions(d) => d),
        }
    }

    /// Answers a query from this view (the host side of a remote view).
    pub fn answer(&self, q: &Query) -> Answer {
        match q {
            Query::Players => Answer::Int(self.players() as i64),
            Query::Turn => Answer::Turn(self.turn()),
            Query::TileCount => Answer::Int(self.tile_count() as i64),
            Query::Placed(i) => Answer::Tile(self.placed(*i)),
            Query::TileAt(p) => Answer::Tile(self.tile_at(*p)),
            Query::Segment(s) => Answer::Segment(self.segment(*s)),
            Query::Feature(s) => Answer::Feature(self.feature(*s)),
            Query::FeatureSegments(s) => Answer::Ids(self.feature_segments(*s)),
            Query::FeatureParts(s) => Answer::Parts(self.feature_parts(*s)),
            Query::FieldCities(s) => Answer::Ids(self.field_cities(*s)),
            Query::Figures => Answer::Figures(self.figures()),
            Query::FiguresOn(s) => Answer::Figures(self.figures_on(*s)),
            Query::Supply(p, k) => Answer::Int(self.supply(*p, *k) as i64),
            Query::Points(p, c) => Answer::Int(self.points(*p, *c) as i64),
            Query::Tokens(p, t) => Answer::Int(self.tokens(*p, *t) as i64),
            Query::TokenSupply(t) => Answer::Int(self.token_supply(*t) as i64),
            Query::Storage(k) => Answer::Value(self.storage(k)),
            Query::Neighbours(p) => Answer::Int(self.neighbours(*p) as i64),
            Query::Pending => Answer::Decisions(self.pending()),
            Query::StorageVersion => Answer::Int(self.storage_version() as i64),
            Query::FiguresOfKind(k) => Answer::Figures(self.figures_of_kind(*k)),
            Query::ScoreBeforeFinal(p) => Answer::Int(self.score_before_final(*p) as i64),
            Query::PlayerName(p) => Answer::Value(Some(Value::Str(self.player_name(*p)))),
        }
    }

    /// Whether segment `seg` is valid in this game (a query with a bad id from a script must
    /// fail cleanly, not panic).
    pub fn has_segment(&self, seg: SegId) -> bool {
        match self.source {
            Source::Local(s) => (seg as usize) < s.features().len(),
            Source::Remote(_) => true,
        }
    }
}

/// How many times each word comes, in name order.
fn counted<'w>(words: impl Iterator<Item = &'w str>) -> std::collections::BTreeMap<&'w str, u32> {
    let mut counts = std::collections::BTreeMap::new();
    for w in words {
        *counts.entry(w).or_default() += 1;
    }
    counts
}
