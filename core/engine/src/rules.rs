//! A ruleset: the tile kinds in play with their counts, the figure kinds, token supplies, score
//! categories and the expansions whose hooks run. Built once, shared by every game (`Arc`).

use crate::expansion::{Expansion, HookKind, Wants};
use crate::figures::{FigureKind, FigureKindId};
use crate::geometry::{Port, Rotation, Side};
use crate::tileset::{SegmentKind, SideKind, TileDef, Tileset};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// Index of a tile kind in [`Rules::tiles`].
pub type TileId = u16;

/// The base game's score categories, in this order.
pub const BASE_CATEGORIES: [&str; 4] = ["roads", "cities", "monasteries", "fields"];

/// Category index of roads.
pub const ROADS: u16 = 0;
/// Category index of cities.
pub const CITIES: u16 = 1;
/// Category index of monasteries.
pub const MONASTERIES: u16 = 2;
/// Category index of fields.
pub const FIELDS: u16 = 3;

/// A tile kind ready for play: its definition plus lookup tables per rotation.
#[derive(Clone, Debug)]
pub struct TileKind {
    /// `tileset:tile`, e.g. `base:D`.
    pub key: Arc<str>,
    /// The definition from the tileset file.
    pub def: TileDef,
    /// Packed side codes on the board for each rotation (N E S W, one byte each).
    pub sides: [u32; 4],
    /// For each rotation, the local segment at each board port.
    pub port_segment: [[u8; 12]; 4],
    /// The tile has a segment that completes when surrounded (monastery, garden).
    pub surrounded: bool,
}

/// The code of a side kind inside packed side words.
pub fn side_code(kind: SideKind) -> u32 {
    match kind {
        SideKind::City => 1,
        SideKind::Road => 2,
        SideKind::Field => 3,
        SideKind::River => 4,
    }
}

impl TileKind {
    /// Compiles a definition from tileset `set`.
    pub fn new(set: &str, def: TileDef) -> TileKind {
        let mut sides = [0u32; 4];
        let mut port_segment = [[0u8; 12]; 4];
        for r in Rotation::ALL {
            let ri = r.quarter_turns() as usize;
            for side in Side::ALL {
                sides[ri] |= side_code(def.side(side)) << (side.rotated(r).index() * 8);
            }
            for p in 0..12u8 {
                let port = Port::new(p);
                port_segment[ri][port.rotated(r).index()] = def.port_segment[port.index()];
            }
        }
        let surrounded = def.segments.iter().any(|s| s.kind.closes_by_surrounding());
        TileKind { key: format!("{set}:{}", def.id).into(), def, sides, port_segment, surrounded }
    }

    /// The local segment at a board port for a rotation.
    pub fn segment_at(&self, rotation: Rotation, port: Port) -> u8 {
        self.port_segment[rotation.quarter_turns() as usize][port.index()]
    }
}

/// A kind of token kept by players (goods).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenKind {
    /// Namespaced id, e.g. `traders-builders:wine`.
    pub id: String,
    /// How many exist in the general supply.
    pub supply: u32,
    /// What players call it (`wine`); not sent to native plugins, as for figures.
    #[serde(skip)]
    pub name: Noun,
}

/// What players call a kind of figure or token, one and several (`1 meeple`, `4 meeples`):
/// text for people says this, never the namespaced id.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Noun {
    /// One of them (`builder`).
    pub one: String,
    /// Several (`builders`; goods are often the same: `wine`).
    pub many: String,
}

impl Noun {
    /// The name an id gives when its manifest gives none: its own part, dashes and underscores
    /// read as spaces, and an `s` for several (`traders-builders:big_builder` → big builder).
    pub fn from_id(id: &str) -> Noun {
        let one = id.rsplit(':').next().unwrap_or(id).replace(['-', '_'], " ");
        Noun { many: format!("{one}s"), one }
    }

    /// Whether players could take one kind for the other: the same word for one or for several.
    pub fn clashes_with(&self, other: &Noun) -> bool {
        self.one == other.one || self.many == other.many
    }

    /// A number of them in words (`1 pig`, `0 pigs`).
    pub fn counted(&self, n: i64) -> String {
        format!("{n} {}", if n == 1 { &self.one } else { &self.many })
    }
}

/// The kinds' names, those that players could not tell apart from another kind's (two
/// expansions' `guard`) replaced by the ids, which can be.
fn distinct_names<'a>(kinds: impl Iterator<Item = (&'a str, &'a Noun)> + Clone) -> Vec<Noun> {
    let clashes = |(id, name): (&str, &Noun)| kinds.clone().any(|(other, n)| other != id && n.clashes_with(name));
    let named = |(id, name): (&str, &Noun)| {
        if clashes((id, name)) { Noun { one: id.to_string(), many: id.to_string() } } else { name.clone() }
    };
    kinds.clone().map(named).collect()
}

/// An error while putting a ruleset together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// Two things share an id.
    #[error("{what} `{id}` is defined twice")]
    Duplicate {
        /// "figure", "token", "tile" …
        what: &'static str,
        /// The id.
        id: String,
    },
    /// An edition the tileset does not have.
    #[error("tileset `{tileset}` has no edition `{edition}`; it has: {available}")]
    UnknownEdition {
        /// The tileset.
        tileset: String,
        /// The edition asked for.
        edition: String,
        /// The editions it has.
        available: String,
    },
    /// No start tile and no tile at all.
    #[error("the ruleset has no tiles")]
    NoTiles,
    /// More than the engine can index.
    #[error("too many {0}")]
    TooMany(&'static str),
    /// A start tile that is not in the ruleset, or has no copy to lay.
    #[error("start tile `{0}`: no copy of it is in the ruleset")]
    StartTile(String),
}

/// What becomes of the base game's start tile when an expansion lays its own first (The River).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplacedStart {
    /// It leaves the game.
    Discard,
    /// It is shuffled into the tiles to draw.
    ShuffleIn,
}

/// Tiles drawn before all others, chosen by tag (The River's: `river`, the lake last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstStack {
    /// Tiles with this tag are drawn first, in random order…
    pub tag: String,
    /// … except those with this tag, drawn after the rest of the stack.
    pub last: Option<String>,
}

/// Everything fixed for the length of a game.
pub struct Rules {
    tiles: Vec<TileKind>,
    counts: Vec<u32>,
    /// Per tile kind, the stack it is drawn from: 0 is the main one, drawn last.
    stack_of: Vec<u8>,
    stacks: u8,
    start: Option<TileId>,
    figures: Vec<FigureKind>,
    tokens: Vec<TokenKind>,
    categories: Vec<String>,
    expansions: Vec<Arc<dyn Expansion>>,
    subscribers: Vec<Vec<u16>>,
    /// How many of `final_scoring`'s subscribers, at the front of its list, score with the base
    /// game's end scoring ([`RulesBuilder::final_scoring_with_base`]).
    final_with_base: usize,
    /// Per expansion, which calls of its hooks it can act on (asked at the first call).
    wants: Vec<OnceLock<Wants>>,
    hash: String,
    /// Each expansion's part of `hash`, by id.
    hash_parts: BTreeMap<String, String>,
    /// What players call each expansion, by id.
    expansion_names: BTreeMap<String, String>,
    /// Whether a figure phase holds one action at most (see [`RulesBuilder::alternatives_exclusive`]).
    alternatives_exclusive: bool,
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("tiles", &self.tiles.len())
            .field("figures", &self.figures)
            .field("expansions", &self.expansions.iter().map(|e| e.id().to_string()).collect::<Vec<_>>())
            .finish()
    }
}

impl Rules {
    /// Starts building a ruleset.
    pub fn builder() -> RulesBuilder {
        RulesBuilder::default()
    }

    /// What players call the expansion `id` (`The Tollkeepers`), or the id when none was given.
    pub fn expansion_name<'a>(&'a self, id: &'a str) -> &'a str {
        self.expansion_names.get(id).map_or(id, String::as_str)
    }

    /// The id of expansion number `e` (as events, actions and questions number them) and what
    /// players call it; `None` past the ruleset's expansions.
    pub fn expansion_id_and_name(&self, e: u16) -> Option<(&str, &str)> {
        let id = self.expansions().get(e as usize)?.id();
        Some((id, self.expansion_name(id)))
    }

    /// A score category as players read it: an expansion's own category by its name.
    pub fn category_name(&self, category: u16) -> &str {
        self.categories.get(category as usize).map_or("", |c| self.expansion_name(c))
    }

    /// The base game alone, from a tileset and one of its editions.
    pub fn base(tileset: &Tileset, edition: &str) -> Result<Rules, RulesError> {
        let mut b = Rules::builder();
        b.tileset(tileset, edition)?;
        b.build()
    }

    /// All tile kinds.
    pub fn tiles(&self) -> &[TileKind] {
        &self.tiles
    }

    /// One tile kind.
    pub fn tile(&self, id: TileId) -> &TileKind {
        &self.tiles[id as usize]
    }

    /// Copies of each tile kind in the bag (the start tile not counted).
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// The start tile, if any.
    pub fn start(&self) -> Option<TileId> {
        self.start
    }

    /// The stack a tile kind is drawn from: stacks 1, 2, … are drawn in turn before the main
    /// stack 0 (each in random order).
    pub fn stack_of(&self, tile: TileId) -> u8 {
        self.stack_of[tile as usize]
    }

    /// Number of stacks, the main one included.
    pub fn stacks(&self) -> u8 {
        self.stacks
    }

    /// Finds a tile kind by `tileset:tile` key, or by tile id alone when only one tileset has it.
    pub fn tile_by_name(&self, name: &str) -> Result<TileId, String> {
        if let Some(i) = self.tiles.iter().position(|t| *t.key == *name) {
            return Ok(i as TileId);
        }
        let hits: Vec<usize> = (0..self.tiles.len()).filter(|&i| self.tiles[i].def.id == name).collect();
        match hits.as_slice() {
            [one] => Ok(*one as TileId),
            [] => Err(format!("no tile `{}` in this ruleset{}", meeple_toml::clipped(name, 80), self.tile_meant(name))),
            many => Err(format!(
                "tile `{name}` is ambiguous: {}",
                many.iter().map(|&i| &*self.tiles[i].key).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// "; did you mean `…`?" for a tile name with a slip, named as it was: by `tileset:tile`
    /// key, or by id alone, an id several tilesets share given back as their keys (each names
    /// one tile); else nothing.
    fn tile_meant(&self, name: &str) -> String {
        let meant = if name.contains(':') {
            let keys: Vec<&str> = self.tiles.iter().map(|t| &*t.key).collect();
            meeple_toml::near(name, &keys)
        } else {
            let ids: Vec<&str> = self.tiles.iter().map(|t| t.def.id.as_str()).collect();
            let keys_of = |id: &str| self.tiles.iter().filter(|t| t.def.id == id).map(|t| &*t.key).collect::<Vec<_>>();
            let near = meeple_toml::near(name, &ids);
            near.into_iter()
                .flat_map(|id| {
                    let keys = keys_of(id);
                    if keys.len() > 1 { keys } else { vec![id] }
                })
                .collect()
        };
        meeple_toml::meant(&meant).strip_suffix(' ').map(|m| format!("; {m}")).unwrap_or_default()
    }

    /// All figure kinds; index 0 is the meeple.
    pub fn figures(&self) -> &[FigureKind] {
        &self.figures
    }

    /// One figure kind.
    pub fn figure(&self, id: FigureKindId) -> &FigureKind {
        &self.figures[id as usize]
    }

    /// Finds a figure kind by id.
    pub fn figure_by_name(&self, name: &str) -> Option<FigureKindId> {
        self.figures.iter().position(|f| f.id == name).map(|i| i as FigureKindId)
    }

    /// Finds a figure kind by id, or by its short name among expansion `own`'s ([`is_named`]).
    pub fn figure_named_by(&self, own: &str, name: &str) -> Option<FigureKindId> {
        self.figures.iter().position(|f| is_named(&f.id, own, name)).map(|i| i as FigureKindId)
    }

    /// Token kinds.
    pub fn tokens(&self) -> &[TokenKind] {
        &self.tokens
    }

    /// Finds a token kind by id.
    pub fn token_by_name(&self, name: &str) -> Option<u16> {
        self.tokens.iter().position(|t| t.id == name).map(|i| i as u16)
    }

    /// Finds a token kind by id, or by its short name among expansion `own`'s ([`is_named`]).
    pub fn token_named_by(&self, own: &str, name: &str) -> Option<u16> {
        self.tokens.iter().position(|t| is_named(&t.id, own, name)).map(|i| i as u16)
    }

    /// Score categories; the base game's four come first.
    pub fn categories(&self) -> &[String] {
        &self.categories
    }

    /// Finds a score category by name.
    pub fn category(&self, name: &str) -> Option<u16> {
        self.categories.iter().position(|c| c == name).map(|i| i as u16)
    }

    /// Whether a figure phase holds one action at most (see [`RulesBuilder::alternatives_exclusive`]).
    pub fn alternatives_exclusive(&self) -> bool {
        self.alternatives_exclusive
    }

    /// Expansions in hook order.
    pub fn expansions(&self) -> &[Arc<dyn Expansion>] {
        &self.expansions
    }

    /// Indices of the expansions subscribed to a hook, in hook order.
    pub fn subscribers(&self, hook: HookKind) -> &[u16] {
        &self.subscribers[hook as usize]
    }

    /// `final_scoring`'s subscribers in two parts: those that score with the base game's end
    /// scoring, and the others, each part in load order.
    pub fn final_scoring_parts(&self) -> (&[u16], &[u16]) {
        self.subscribers[HookKind::FinalScoring as usize].split_at(self.final_with_base)
    }

    /// Which calls of its hooks an expansion can act on ([`Expansion::interest`], asked once).
    pub(crate) fn wants(&self, e: u16) -> &Wants {
        self.wants[e as usize].get_or_init(|| Wants::new(self.expansions[e as usize].interest(self), self.tiles.len()))
    }

    /// True when some expansion has hooks at all (a reseeded game then keeps a point to roll back to).
    pub fn has_hooks(&self) -> bool {
        self.subscribers.iter().any(|s| !s.is_empty())
    }

    /// The ruleset hash given by whoever loaded the files (empty for rulesets built in code).
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// Each expansion's own part of the ruleset hash, by id: its manifest, tilesets and scripts,
    /// its edition, options and tile numbers (empty for rulesets built in code). A replay keeps
    /// them, to name the expansion whose files changed when it no longer plays.
    pub fn hash_parts(&self) -> &BTreeMap<String, String> {
        &self.hash_parts
    }
}

/// Collects the parts of a ruleset.
#[derive(Default)]
pub struct RulesBuilder {
    tiles: Vec<TileKind>,
    counts: Vec<u32>,
    start: Option<TileId>,
    new_start: Option<(String, ReplacedStart)>,
    first: Option<FirstStack>,
    figures: Vec<FigureKind>,
    tokens: Vec<TokenKind>,
    categories: Vec<String>,
    expansions: Vec<Arc<dyn Expansion>>,
    /// Per expansion, whether its final scoring is part of the base game's.
    with_base: Vec<bool>,
    hash: String,
    hash_parts: BTreeMap<String, String>,
    expansion_names: BTreeMap<String, String>,
    several_alternatives: bool,
}

impl RulesBuilder {
    /// Adds the tiles of one edition of a tileset; its start tile becomes the start tile if none
    /// was set yet.
    pub fn tileset(&mut self, tileset: &Tileset, edition: &str) -> Result<&mut Self, RulesError> {
        let ed = tileset.edition(edition).ok_or_else(|| RulesError::UnknownEdition {
            tileset: tileset.id.clone(),
            edition: edition.to_string(),
            available: tileset.editions.join(", "),
        })?;
        for (i, def) in tileset.tiles.iter().enumerate() {
            let mut n = def.counts[ed];
            if n == 0 {
                continue;
            }
            let kind = TileKind::new(&tileset.id, def.clone());
            if self.tiles.iter().any(|t| t.key == kind.key) {
                return Err(RulesError::Duplicate { what: "tile", id: kind.key.to_string() });
            }
            if tileset.start == Some(i) && self.start.is_none() {
                self.start = Some(self.tiles.len() as TileId);
                n -= 1;
            }
            self.tiles.push(kind);
            self.counts.push(n);
        }
        if self.tiles.len() > u16::MAX as usize / 2 {
            return Err(RulesError::TooMany("tile kinds"));
        }
        Ok(self)
    }

    /// Adds one tile kind with its count (for rulesets rebuilt from another process's data).
    pub fn tile_kind(&mut self, key: &str, def: TileDef, count: u32, start: bool) -> Result<&mut Self, RulesError> {
        let set = key.rsplit_once(':').map_or(key, |(set, _)| set);
        let kind = TileKind::new(set, def);
        if self.tiles.iter().any(|t| t.key == kind.key) {
            return Err(RulesError::Duplicate { what: "tile", id: kind.key.to_string() });
        }
        if start {
            self.start = Some(self.tiles.len() as TileId);
        }
        self.tiles.push(kind);
        self.counts.push(count);
        Ok(self)
    }

    /// Leaves the start tile out: the first tile is then drawn and placed by the first player…
    /// or set by an expansion (The River's spring).
    pub fn no_start_tile(&mut self) -> &mut Self {
        if let Some(s) = self.start.take() {
            self.counts[s as usize] += 1;
        }
        self
    }

    /// Lays this tile (`tileset:tile`) first instead of the start tile so far; one of its copies
    /// is taken from the bag when the ruleset is built.
    pub fn start_tile(&mut self, key: &str, replaced: ReplacedStart) -> &mut Self {
        self.new_start = Some((key.to_string(), replaced));
        self
    }

    /// Draws the tiles with a tag before all others (whatever tileset they come from).
    pub fn first_stack(&mut self, stack: FirstStack) -> &mut Self {
        self.first = Some(stack);
        self
    }

    /// Adds a figure kind.
    pub fn figure(&mut self, kind: FigureKind) -> Result<&mut Self, RulesError> {
        if self.figures.iter().any(|f| f.id == kind.id) {
            return Err(RulesError::Duplicate { what: "figure", id: kind.id });
        }
        if self.figures.len() >= 255 {
            return Err(RulesError::TooMany("figure kinds"));
        }
        self.figures.push(kind);
        Ok(self)
    }

    /// Whether a figure phase holds one action at most (the default): a meeple, or one action
    /// taken instead of a meeple (a figure placed `joins-own-follower`, an expansion's offer).
    /// With `false`, after such an action the phase goes on with the others, each once, and no
    /// meeple (ambiguities B9: each says "if you do not place a meeple, you may …").
    pub fn alternatives_exclusive(&mut self, exclusive: bool) -> &mut Self {
        self.several_alternatives = !exclusive;
        self
    }

    /// Replaces the meeple's definition (count or strength set by a config or an edition).
    pub fn meeple(&mut self, kind: FigureKind) -> &mut Self {
        self.ensure_meeple();
        self.figures[0] = kind;
        self
    }

    fn ensure_meeple(&mut self) {
        if self.figures.first().is_none_or(|f| f.id != "meeple") {
            self.figures.insert(0, FigureKind::meeple());
        }
    }

    /// Adds a token supply.
    pub fn token(&mut self, kind: TokenKind) -> Result<&mut Self, RulesError> {
        if self.tokens.iter().any(|t| t.id == kind.id) {
            return Err(RulesError::Duplicate { what: "token", id: kind.id });
        }
        self.tokens.push(kind);
        Ok(self)
    }

    /// Adds a score category (ignored when it exists).
    pub fn category(&mut self, name: &str) -> &mut Self {
        if !self.categories.iter().any(|c| c == name) {
            self.categories.push(name.to_string());
        }
        self
    }

    /// Adds an expansion; hooks run in the order expansions are added.
    pub fn expansion(&mut self, e: Arc<dyn Expansion>) -> &mut Self {
        self.expansions.push(e);
        self.with_base.push(false);
        self
    }

    /// Makes the final scoring of the expansion added last part of the base game's end scoring
    /// (the first rules' farms of an edition variant): it runs before the other expansions'
    /// final scoring, whatever the load order, and its points count in
    /// [`crate::GameState::score_before_final`].
    pub fn final_scoring_with_base(&mut self) -> &mut Self {
        if let Some(last) = self.with_base.last_mut() {
            *last = true;
        }
        self
    }

    /// Records what players call an expansion (its manifest's `name`), for text about it.
    pub fn expansion_name(&mut self, id: &str, name: &str) -> &mut Self {
        self.expansion_names.insert(id.to_string(), name.to_string());
        self
    }

    /// Sets the ruleset hash (computed by the host over manifests, tilesets and scripts).
    pub fn hash(&mut self, hash: impl Into<String>) -> &mut Self {
        self.hash = hash.into();
        self
    }

    /// Sets an expansion's own part of the ruleset hash ([`Rules::hash_parts`]).
    pub fn hash_part(&mut self, expansion: impl Into<String>, hash: impl Into<String>) -> &mut Self {
        self.hash_parts.insert(expansion.into(), hash.into());
        self
    }

    /// Finishes the ruleset.
    pub fn build(mut self) -> Result<Rules, RulesError> {
        if self.tiles.is_empty() {
            return Err(RulesError::NoTiles);
        }
        self.ensure_meeple();
        self.apply_start()?;
        let figure_names = distinct_names(self.figures.iter().map(|f| (f.id.as_str(), &f.name)));
        self.figures.iter_mut().zip(figure_names).for_each(|(f, name)| f.name = name);
        let token_names = distinct_names(self.tokens.iter().map(|t| (t.id.as_str(), &t.name)));
        self.tokens.iter_mut().zip(token_names).for_each(|(t, name)| t.name = name);
        let (stack_of, stacks) = self.stack_of();
        let mut categories: Vec<String> = BASE_CATEGORIES.iter().map(|s| s.to_string()).collect();
        for c in self.categories {
            if !categories.contains(&c) {
                categories.push(c);
            }
        }
        for e in &self.expansions {
            for c in e.categories() {
                if !categories.contains(&c) {
                    categories.push(c);
                }
            }
        }
        let mut subscribers = vec![Vec::new(); HookKind::ALL.len()];
        for (i, e) in self.expansions.iter().enumerate() {
            for hook in HookKind::ALL {
                if e.hooks().contains(hook) {
                    subscribers[hook as usize].push(i as u16);
                }
            }
        }
        let finals = &mut subscribers[HookKind::FinalScoring as usize];
        // Stable: each part keeps the load order.
        finals.sort_by_key(|&e| !self.with_base[e as usize]);
        let final_with_base = finals.iter().filter(|&&e| self.with_base[e as usize]).count();
        Ok(Rules {
            tiles: self.tiles,
            counts: self.counts,
            stack_of,
            stacks,
            start: self.start,
            figures: self.figures,
            tokens: self.tokens,
            categories,
            wants: self.expansions.iter().map(|_| OnceLock::new()).collect(),
            expansions: self.expansions,
            subscribers,
            final_with_base,
            hash: self.hash,
            hash_parts: self.hash_parts,
            expansion_names: self.expansion_names,
            alternatives_exclusive: !self.several_alternatives,
        })
    }
}

impl RulesBuilder {
    fn apply_start(&mut self) -> Result<(), RulesError> {
        let Some((key, replaced)) = self.new_start.take() else { return Ok(()) };
        let id = self.tiles.iter().position(|t| *t.key == *key).filter(|&i| self.counts[i] > 0);
        let Some(id) = id else { return Err(RulesError::StartTile(key)) };
        if let Some(old) = self.start
            && replaced == ReplacedStart::ShuffleIn
        {
            self.counts[old as usize] += 1;
        }
        self.counts[id] -= 1;
        self.start = Some(id as TileId);
        Ok(())
    }

    fn stack_of(&self) -> (Vec<u8>, u8) {
        let Some(first) = &self.first else { return (vec![0; self.tiles.len()], 1) };
        let has = |t: &TileKind, tag: &str| t.def.tags.iter().any(|x| x == tag);
        let stack_of = self
            .tiles
            .iter()
            .map(|t| match &first.last {
                Some(last) if has(t, last) => 2,
                _ if has(t, &first.tag) => 1,
                _ => 0,
            })
            .collect();
        (stack_of, if first.last.is_some() { 3 } else { 2 })
    }
}

/// True when the segment kind is scored by the base rules.
pub fn base_scored(kind: SegmentKind) -> bool {
    matches!(kind, SegmentKind::City | SegmentKind::Road | SegmentKind::Monastery | SegmentKind::Field)
}

/// Whether `id` (a figure's or a token's) is what expansion `own` calls `name`: the id itself,
/// or `name` in `own`'s namespace, since an expansion may leave its own id off its own names
/// (`pig` for `traders-builders:pig`), in every kind of code alike.
pub fn is_named(id: &str, own: &str, name: &str) -> bool {
    id == name || id.strip_prefix(own).and_then(|rest| rest.strip_prefix(':')) == Some(name)
}

#[cfg(test)]
mod tests {
    use super::Rules;
    use crate::expansion::{Expansion, HookKind, HookSet};
    use crate::tileset::Tileset;
    use std::sync::Arc;

    /// An expansion that only scores at the end.
    struct Finale(&'static str);

    impl Expansion for Finale {
        fn id(&self) -> &str {
            self.0
        }

        fn hooks(&self) -> HookSet {
            HookSet::NONE.with(HookKind::FinalScoring)
        }
    }

    #[test]
    fn names_stay_out_of_what_native_plugins_are_sent() {
        // Plugins read figure and token kinds as a list of fields: a field more would shift the
        // ones after it for every plugin built before it.
        let meeple = serde_json::to_value(crate::FigureKind::meeple()).unwrap();
        assert!(meeple.get("name").is_none(), "{meeple}");
        let wine = super::TokenKind { id: "t:wine".into(), supply: 9, name: super::Noun::from_id("t:wine") };
        assert_eq!(serde_json::to_value(wine).unwrap(), serde_json::json!({"id": "t:wine", "supply": 9}));
    }

    #[test]
    fn kinds_that_share_a_name_are_called_by_their_ids() {
        let noun = |one: &str, many: &str| super::Noun { one: one.into(), many: many.into() };
        let kinds = [
            ("meeple", noun("meeple", "meeples")),
            ("a:guard", noun("guard", "guards")),
            ("b:guard", noun("guard", "guards")),
            ("c:watch", noun("watch", "meeples")),
        ];
        let names = super::distinct_names(kinds.iter().map(|(id, n)| (*id, n)));
        let called: Vec<(&str, &str)> = names.iter().map(|n| (n.one.as_str(), n.many.as_str())).collect();
        assert_eq!(
            called,
            [("meeple", "meeple"), ("a:guard", "a:guard"), ("b:guard", "b:guard"), ("c:watch", "c:watch")],
            "the meeple's plural is another's: both by their ids"
        );
    }

    #[test]
    fn a_kind_without_a_name_is_called_by_its_ids_own_part() {
        let builder = super::Noun::from_id("traders-builders:big_builder");
        assert_eq!((builder.one.as_str(), builder.many.as_str()), ("big builder", "big builders"));
        assert_eq!(builder.counted(1), "1 big builder");
        assert_eq!(builder.counted(0), "0 big builders");
        assert_eq!(super::Noun::from_id("meeple").counted(7), "7 meeples");
    }

    #[test]
    fn the_final_scoring_of_the_base_games_part_comes_first_each_part_in_load_order() {
        let tileset = Tileset::parse("base.toml", include_str!("../../../tilesets/base.toml")).unwrap();
        let mut b = Rules::builder();
        b.tileset(&tileset, "C3").unwrap();
        b.expansion(Arc::new(Finale("goods")));
        b.expansion(Arc::new(Finale("farms"))).final_scoring_with_base();
        b.expansion(Arc::new(Finale("tolls")));
        b.expansion(Arc::new(Finale("old-cities"))).final_scoring_with_base();
        let rules = b.build().unwrap();
        assert_eq!(rules.final_scoring_parts(), (&[1, 3][..], &[0, 2][..]));
        assert_eq!(rules.subscribers(HookKind::FinalScoring), [1, 3, 0, 2]);
    }
}
