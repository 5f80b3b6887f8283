//! All the state of one game. Plain data: cloning it forks the game (AI search), and nothing of
//! a game lives anywhere else (expansions keep theirs in [`GameState::storage`]).

use crate::action::{Decision, Offer};
use crate::board::{Board, Placement};
use crate::features::{FeatureGraph, SegId};
use crate::figures::{Figure, FigureId, FigureKindId, Location};
use crate::geometry::Pos;
use crate::hash::StableHasher;
use crate::reuse::clone_by_field;
use crate::rng::GameRng;
use crate::rules::{Rules, TileId};
use crate::tileset::SegmentKind;
use crate::value::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where the turn machine stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// A tile is to be drawn.
    Draw,
    /// The drawn tile waits to be placed.
    PlaceTile,
    /// The figure phase: place a figure, take an expansion action, or pass.
    Figure,
    /// Features completed this part are being scored.
    Score,
    /// The end of a part of the turn.
    PartEnd,
    /// The end of the turn.
    TurnEnd,
    /// Final scoring.
    Final,
    /// The game is over.
    Over,
}

impl Stage {
    /// Every stage, in declaration order (`Stage::ALL[s as usize] == s`).
    pub const ALL: [Stage; 8] = [
        Stage::Draw,
        Stage::PlaceTile,
        Stage::Figure,
        Stage::Score,
        Stage::PartEnd,
        Stage::TurnEnd,
        Stage::Final,
        Stage::Over,
    ];
}

/// The source of storage versions: one counter for every game of the process, so that a
/// version names one content of one expansion's storage.
static STORAGE_VERSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A storage version never handed out before.
pub(crate) fn next_storage_version() -> u64 {
    STORAGE_VERSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The current turn.
#[derive(Debug, PartialEq, Eq)]
pub struct Turn {
    /// Turn number, from 1.
    pub number: u32,
    /// Whose turn it is.
    pub player: u8,
    /// Part of the turn, from 1 (a double turn has two).
    pub part: u8,
    /// Where the machine stands.
    pub stage: Stage,
    /// The drawn tile, until placed.
    pub tile: Option<TileId>,
    /// Its legal placements.
    pub placements: Vec<Placement>,
    /// The tile placed in this part.
    pub placed: Option<u16>,
    /// Features completed by that tile, to be scored in order.
    pub completed: Vec<SegId>,
    /// How many of them have been scored.
    pub scored: usize,
    /// Actions expansions offer in this figure phase: (expansion, offer).
    pub offers: Vec<(u16, Offer)>,
    /// Another part of this turn was granted.
    pub extra_part: bool,
    /// A whole extra turn was granted to this player.
    pub extra_turn: Option<u8>,
    /// Decisions asked since the turn began: bounded, as a question whose answer asks it again
    /// would never let the game move on.
    pub decisions: u16,
    /// The actions taken instead of a meeple in this figure phase, when a phase may hold several
    /// (`Rules::alternatives_exclusive` false): each is offered once, and a meeple no more.
    pub taken: Vec<Taken>,
}

clone_by_field!(Turn {
    number,
    player,
    part,
    stage,
    tile,
    placements,
    placed,
    completed,
    scored,
    offers,
    extra_part,
    extra_turn,
    decisions,
    taken,
});

/// An action taken instead of a meeple in a figure phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// A figure of this kind placed `joins-own-follower`.
    Figure(FigureKindId),
    /// An offer of this expansion.
    Offer(u16),
}

impl Turn {
    pub(crate) fn first() -> Turn {
        Turn {
            number: 1,
            player: 0,
            part: 1,
            stage: Stage::Draw,
            tile: None,
            placements: Vec::new(),
            placed: None,
            completed: Vec::new(),
            scored: 0,
            offers: Vec::new(),
            extra_part: false,
            extra_turn: None,
            decisions: 0,
            taken: Vec::new(),
        }
    }
}

/// The state of one game.
#[derive(Debug)]
pub struct GameState {
    pub(crate) players: u8,
    /// The players' names, in turn order, as the game's setup gives them: for messages only
    /// (not in the hash; nothing the rules decide depends on them).
    pub(crate) names: Arc<[String]>,
    pub(crate) board: Board,
    pub(crate) features: FeatureGraph,
    pub(crate) figures: Vec<Figure>,
    /// First figure of each (player, kind), then one past the last.
    pub(crate) figure_index: Vec<u16>,
    /// Figures in supply per (player, kind).
    pub(crate) supply: Vec<u8>,
    /// Points per (player, category).
    pub(crate) points: Vec<i32>,
    /// Tokens per (player, token kind).
    pub(crate) tokens: Vec<i32>,
    /// Tokens left in the general supply.
    pub(crate) token_supply: Vec<i32>,
    /// Per expansion: its stored values.
    pub(crate) storage: Vec<BTreeMap<String, Value>>,
    /// Per expansion: the size of its storage, keys and values (see [`Value::size`]).
    pub(crate) storage_bytes: Vec<usize>,
    /// Per expansion: the version of its storage (see [`GameState::storage_version`]).
    pub(crate) storage_versions: Vec<u64>,
    /// Tiles still to draw; drawn from the back when the order is fixed.
    pub(crate) bag: Vec<TileId>,
    /// Stacks drawn before the bag, first one first (The River's tiles); empty in most games.
    pub(crate) first: Vec<Vec<TileId>>,
    pub(crate) fixed_order: bool,
    pub(crate) drawn: u32,
    pub(crate) tile_limit: Option<u32>,
    pub(crate) discarded: Vec<TileId>,
    pub(crate) rng: GameRng,
    pub(crate) expansion_rngs: Vec<GameRng>,
    /// The seed given by [`crate::Game::reseed`], if any: in the hash, since the streams' word
    /// positions alone would not tell a reseeded game from the one it was copied from.
    pub(crate) reseeded: Option<u64>,
    pub(crate) turn: Turn,
    pub(crate) pending: Vec<Decision>,
    pub(crate) categories: u16,
    pub(crate) figure_kinds: u16,
    pub(crate) token_kinds: u16,
    /// Every player's score when the expansions' final scoring began (after the unfinished
    /// features and fields); empty until then. Not in [`GameState::hash`]: it only exists in
    /// a finished game, whose history the hash already follows, and replays saved before it
    /// was kept must still check.
    pub(crate) final_base: Vec<i32>,
}

clone_by_field!(GameState {
    players,
    names,
    board,
    features,
    figures,
    figure_index,
    supply,
    points,
    tokens,
    token_supply,
    storage,
    storage_bytes,
    storage_versions,
    bag,
    first,
    fixed_order,
    drawn,
    tile_limit,
    discarded,
    rng,
    expansion_rngs,
    reseeded,
    turn,
    pending,
    categories,
    figure_kinds,
    token_kinds,
    final_base,
});

/// Facts about a feature, for views and clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FeatureInfo {
    /// The root segment naming the feature.
    pub id: SegId,
    /// Its kind.
    pub kind: SegmentKind,
    /// Completed (closed or surrounded).
    pub completed: bool,
    /// Already scored during the game.
    pub scored: bool,
    /// Distinct tiles (monasteries: the tile itself).
    pub tiles: u16,
    /// Coats of arms.
    pub arms: u16,
    /// Edges still open.
    pub open: u16,
}

impl GameState {
    /// Number of players.
    pub fn players(&self) -> u8 {
        self.players
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The feature graph.
    pub fn features(&self) -> &FeatureGraph {
        &self.features
    }

    /// Every figure of every player.
    pub fn figures(&self) -> &[Figure] {
        &self.figures
    }

    /// The figures of one kind, every player's, by id (each player's figures of a kind are
    /// numbered together).
    pub fn figures_of_kind(&self, kind: FigureKindId) -> impl Iterator<Item = (FigureId, &Figure)> {
        let kinds = self.figure_kinds as usize;
        let players = if (kind as usize) < kinds { self.players as usize } else { 0 };
        (0..players).flat_map(move |p| {
            let i = p * kinds + kind as usize;
            let range = match (self.figure_index.get(i), self.figure_index.get(i + 1)) {
                (Some(&a), Some(&b)) => a as usize..b as usize,
                _ => 0..0,
            };
            range.map(|f| (f as FigureId, &self.figures[f]))
        })
    }

    /// One figure.
    pub fn figure(&self, id: FigureId) -> &Figure {
        &self.figures[id as usize]
    }

    /// The current turn.
    pub fn turn(&self) -> &Turn {
        &self.turn
    }

    /// Decisions waiting for an answer, the first one next.
    pub fn pending(&self) -> &[Decision] {
        &self.pending
    }

    /// Figures of a kind in a player's supply.
    pub fn supply(&self, player: u8, kind: FigureKindId) -> u8 {
        self.supply[player as usize * self.figure_kinds as usize + kind as usize]
    }

    /// A player's points in one category.
    pub fn points(&self, player: u8, category: u16) -> i32 {
        self.points[player as usize * self.categories as usize + category as usize]
    }

    /// A player's points in every category, in the ruleset's category order.
    pub fn breakdown(&self, player: u8) -> &[i32] {
        let n = self.categories as usize;
        &self.points[player as usize * n..(player as usize + 1) * n]
    }

    /// A player's total score.
    pub fn score(&self, player: u8) -> i32 {
        // Saturating, as the categories are: no rule scores near 2^31, a buggy script might.
        self.breakdown(player).iter().fold(0i32, |sum, &n| sum.saturating_add(n))
    }

    /// The players with the highest score, by seat: several on a tie, which the rules leave a
    /// shared win (no tie-breaker in any edition).
    pub fn winners(&self) -> Vec<u8> {
        let best = (0..self.players()).map(|p| self.score(p)).max().unwrap_or(0);
        (0..self.players()).filter(|&p| self.score(p) == best).collect()
    }

    /// A player's score once the base game's end scoring is done: the score, until the other
    /// expansions' final scoring begins; from then on, the score it began with, the base game's
    /// end scoring done (unfinished features, fields, and the final scoring of expansions that are part of
    /// it, [`crate::rules::RulesBuilder::final_scoring_with_base`]). A house rule that scores
    /// "before any other end scoring" reads this, whatever order the expansions run in.
    pub fn score_before_final(&self, player: u8) -> i32 {
        self.final_base.get(player as usize).copied().unwrap_or_else(|| self.score(player))
    }

    /// Every player's total score.
    pub fn scores(&self) -> Vec<i32> {
        (0..self.players).map(|p| self.score(p)).collect()
    }

    /// A player's tokens of one kind.
    pub fn tokens(&self, player: u8, token: u16) -> i32 {
        self.tokens[player as usize * self.token_kinds as usize + token as usize]
    }

    /// Tokens of a kind left in the general supply.
    pub fn token_supply(&self, token: u16) -> i32 {
        self.token_supply[token as usize]
    }

    /// A value from an expansion's storage.
    pub fn storage(&self, expansion: u16, key: &str) -> Option<&Value> {
        self.storage.get(expansion as usize)?.get(key)
    }

    /// The version of an expansion's storage: 0 until its first change, and a number drawn from a
    /// counter shared by every game of the process at each change. Two equal versions therefore
    /// mean equal storage, in this game, in a copy of it or in any other, so a plugin may keep
    /// what it derived from its storage for as long as the version stays the same.
    pub fn storage_version(&self, expansion: u16) -> u64 {
        self.storage_versions.get(expansion as usize).copied().unwrap_or(0)
    }

    /// All stored values of an expansion, in key order.
    pub fn storage_of(&self, expansion: u16) -> Option<&BTreeMap<String, Value>> {
        self.storage.get(expansion as usize)
    }

    /// A player's name, as the game's setup gives it (`None` for a player the game lacks).
    pub fn player_name(&self, player: u8) -> Option<&str> {
        self.names.get(player as usize).map(String::as_str)
    }

    /// Tiles left to draw.
    pub fn tiles_left(&self) -> u32 {
        let left = self.bag.len() as u32 + self.first.iter().map(|s| s.len() as u32).sum::<u32>();
        match self.tile_limit {
            Some(limit) => left.min(limit.saturating_sub(self.drawn)),
            None => left,
        }
    }

    /// The tiles no player has seen yet, sorted by id (the order they come in is hidden): what
    /// a player knows by counting, and what a search may deal out in any order. With a tile
    /// limit, not all of them will be drawn ([`GameState::tiles_left`]).
    pub fn unseen_tiles(&self) -> Vec<TileId> {
        let mut tiles: Vec<TileId> = self.bag.iter().chain(self.first.iter().flatten()).copied().collect();
        tiles.sort_unstable();
        tiles
    }

    /// Tiles that fitted nowhere and left the game.
    pub fn discarded(&self) -> &[TileId] {
        &self.discarded
    }

    /// True once the game is over.
    pub fn is_over(&self) -> bool {
        self.turn.stage == Stage::Over
    }

    /// The feature a segment belongs to.
    pub fn feature(&self, rules: &Rules, seg: SegId) -> FeatureInfo {
        let root = self.features.find(seg);
        let d = self.features.data(root);
        let kind = self.features.info(root).kind;
        let tiles = if kind.closes_by_surrounding() { 1 } else { self.features.tile_count(root) };
        let _ = rules;
        FeatureInfo { id: root, kind, completed: d.completed, scored: d.scored, tiles, arms: d.arms, open: d.open }
    }

    /// The segment id of a tile's local segment.
    pub fn segment_of(&self, tile: u16, local: u8) -> SegId {
        self.board.tile(tile).first_segment + local as SegId
    }

    /// The segment at a square, by local index.
    pub fn segment_at(&self, pos: Pos, local: u8) -> Option<SegId> {
        let t = self.board.index_at(pos)?;
        Some(self.segment_of(t, local))
    }

    /// Figures standing on the feature of `seg`.
    pub fn figures_on(&self, seg: SegId) -> impl Iterator<Item = (FigureId, &Figure)> + '_ {
        let root = self.features.find(seg);
        self.figures.iter().enumerate().filter_map(move |(i, f)| match f.at {
            Location::Segment { segment } if self.features.find(segment) == root => Some((i as FigureId, f)),
            _ => None,
        })
    }

    /// Number of tiles on the 8 squares around a position.
    pub fn neighbours(&self, pos: Pos) -> u16 {
        pos.ring().iter().filter(|p| self.board.index_at(**p).is_some()).count() as u16
    }

    /// The completed cities a field touches (their roots, sorted, each once).
    pub fn field_cities(&self, rules: &Rules, field: SegId) -> Vec<SegId> {
        let mut cities = Vec::new();
        for m in self.features.members(field) {
            let info = self.features.info(m);
            let placed = self.board.tile(info.tile);
            let def = &rules.tile(placed.tile).def;
            for &c in &def.segments[info.local as usize].cities {
                let root = self.features.find(placed.first_segment + c as SegId);
                if self.features.data(root).completed {
                    cities.push(root);
                }
            }
        }
        cities.sort_unstable();
        cities.dedup();
        cities
    }

    /// A stable hash of everything that decides the rest of the game, hidden parts included:
    /// the order of the tiles still to draw and the positions of the random streams.
    pub fn hash(&self) -> u64 {
        self.hash_with(true)
    }

    /// A stable hash of what the players can know: as [`GameState::hash`] without the order of
    /// the tiles still to draw (they count as a set, [`GameState::unseen_tiles`]) nor the random
    /// streams, and with what the turn holds besides (a second part or an extra turn granted,
    /// the decisions asked, the actions taken instead of a meeple, the options of pending
    /// decisions), which a replay's history implies but a search's table of positions needs.
    /// Two games that differ only in what comes next hash the same. Expansions' storage counts
    /// as seen.
    pub fn public_hash(&self) -> u64 {
        self.hash_with(false)
    }

    fn hash_with(&self, hidden: bool) -> u64 {
        let mut h = StableHasher::new();
        h.u64(self.players as u64);
        for t in self.board.tiles() {
            h.u64(t.tile as u64);
            h.i64(t.pos.x as i64);
            h.i64(t.pos.y as i64);
            h.u64(t.rotation.quarter_turns() as u64);
        }
        for f in &self.figures {
            h.u64(f.kind as u64 | (f.owner as u64) << 8 | (f.face as u64) << 16);
            h.u64(f.attached_to.map_or(u64::MAX, |a| a as u64));
            match f.at {
                Location::Supply => h.u64(0),
                Location::Segment { segment } => h.u64(1 << 32 | segment as u64),
                Location::Point { tile, point } => h.u64(2 << 32 | (tile as u64) << 8 | point as u64),
                Location::Aside => h.u64(3 << 32),
            }
        }
        for list in [&self.points, &self.tokens, &self.token_supply] {
            h.u64(list.len() as u64);
            list.iter().for_each(|&n| h.i64(n as i64));
        }
        for store in &self.storage {
            h.u64(store.len() as u64);
            for (k, v) in store {
                h.str(k);
                v.hash_into(&mut h);
            }
        }
        if hidden {
            h.u64(self.bag.len() as u64);
            self.bag.iter().for_each(|&t| h.u64(t as u64));
            for stack in self.first.iter().filter(|s| !s.is_empty()) {
                h.u64(stack.len() as u64);
                stack.iter().for_each(|&t| h.u64(t as u64));
            }
        } else {
            let unseen = self.unseen_tiles();
            h.u64(unseen.len() as u64);
            unseen.iter().for_each(|&t| h.u64(t as u64));
        }
        h.u64(self.drawn as u64);
        if hidden {
            h.u64(self.rng.word_pos() as u64);
            for r in &self.expansion_rngs {
                h.u64(r.word_pos() as u64);
            }
            // Only when reseeded: the hashes of replays saved before it existed still check.
            if let Some(seed) = self.reseeded {
                h.u64(seed);
            }
        }
        let t = &self.turn;
        h.u64(t.number as u64);
        h.u64(t.player as u64 | (t.part as u64) << 8 | (t.stage as u64) << 16);
        h.u64(t.tile.map_or(u64::MAX, |x| x as u64));
        h.u64(self.pending.len() as u64);
        for d in &self.pending {
            h.u64(d.player as u64 | (d.expansion as u64) << 8);
            h.str(&d.kind);
            if !hidden {
                h.u64(d.options.len() as u64);
                d.options.iter().for_each(|o| h.str(o));
                d.data.hash_into(&mut h);
                // Only when given: the public hashes of earlier games still hold.
                if let Some(about) = d.about {
                    about.words().into_iter().for_each(|w| h.u64(w as u32 as u64));
                }
            }
        }
        // Not in `hash`: the hashes of saved replays must still check.
        if !hidden {
            h.u64(t.extra_part as u64 | (t.extra_turn.map_or(0xff, u64::from) << 8) | (t.decisions as u64) << 16);
            h.u64(t.taken.len() as u64);
            for taken in &t.taken {
                h.u64(match *taken {
                    Taken::Figure(k) => k as u64,
                    Taken::Offer(e) => 1 << 32 | e as u64,
                });
            }
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::game::Game;
    use crate::rules::Rules;
    use crate::tileset::Tileset;

    #[test]
    fn the_public_hash_leaves_out_the_order_of_the_unseen_tiles_and_nothing_seen() {
        let tileset = Tileset::parse("base.toml", include_str!("../../../tilesets/base.toml")).unwrap();
        let rules = std::sync::Arc::new(Rules::base(&tileset, "C3").unwrap());
        let game = Game::new(
            rules,
            crate::Setup { players: vec!["a".into(), "b".into()], seed: 3, draw: None, tile_limit: None },
        )
        .unwrap();
        let mut other = game.state().clone();
        other.bag.reverse();
        assert_ne!(other.hash(), game.state().hash());
        assert_eq!(other.public_hash(), game.state().public_hash());
        let mut granted = game.state().clone();
        granted.turn.extra_part = true;
        assert_eq!(granted.hash(), game.state().hash(), "a replay's hash, as it was");
        assert_ne!(granted.public_hash(), game.state().public_hash());
        let mut fewer = game.state().clone();
        fewer.bag.pop();
        assert_ne!(fewer.public_hash(), game.state().public_hash());
    }
}
