//! The compact wire format of the hot hook calls: events, scorings and candidate placements as
//! little-endian 32-bit words. Hundreds of these cross per game, so they skip the general
//! message encoding. Luau scripts read the same layout from their mail buffer.
//!
//! Layouts (word offsets):
//! - `tile_placed`: player (-1: start tile), tile, index, x, y, rotation
//! - `figure_placed`, `figure_returned`: figure, owner, kind, location (3 words: kind 0 supply,
//!   1 segment, 2 point, 3 aside; then segment or tile, point); `figure_placed` then has a flag
//!   (1: the figure moved) and the location it came from.
//! - `feature_completed`: feature, kind, completer
//! - `feature_scored`: feature, kind, completed, n, then n pairs (player, points)
//! - `turn_part_end`: player, turn, part; `turn_end`: player, turn
//! - scoring: feature, kind, completed, final, tiles, arms, then three counted lists (cities,
//!   strength, points)
//! - candidates: tile, n, then n triples (x, y, rotation)
//! - figures (an answer): n, then per figure id, owner, kind, location (3 words), face, and
//!   the follower it is attached to or -1
//! - commands (a reply): n, then per command its number (`AddPoints` 0 … `Log` 12 in the order
//!   of [`Command`]) and its fields; a string is a byte count and its UTF-8 bytes, a stored
//!   value a kind (null, bool, int as two words, string, list, map) and its contents
//! - own figures (after `figure_actions` and `on_action` calls, and after events from hosts of
//!   ABI minor 2 when the expansion declares figure kinds; an event that ends without them
//!   leaves the plugin to ask the host): the expansion's figure kinds as a counted list, then the
//!   figures of those kinds
//! - offers (the reply of `figure_actions`; `on_action` sends the one taken): n, then per offer code, target (kind 0 none,
//!   1 point, 2 segment, 3 figure; then x, y, point or segment, or the figure and two zeros),
//!   and the label as a byte count and its UTF-8 bytes, or -1 for the label of the offer before

use meeple_core::action::{Offer, Target};
use meeple_core::figures::{Figure, FigureId, FigureKindId, Location};
use meeple_core::{Command, Event, Placement, Pos, Question, Rotation, Scoring, SegmentKind, Value};
use std::sync::Arc;

/// The most items a count read from the bytes reserves room for at once: the count could lie,
/// and a list that long grows as its items are read.
pub(crate) const MAX_RESERVED: usize = 4096;

/// The figure kinds an expansion declares, and every figure of those kinds: sent with the
/// calls in which an expansion decides about its figures, so that it need not ask for them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnFigures {
    /// The kinds.
    pub kinds: Vec<FigureKindId>,
    /// Their figures, of every player.
    pub figures: Vec<(FigureId, Figure)>,
}

/// Writes words into a byte buffer.
#[derive(Default, Debug)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    /// Appends one word.
    pub fn put(&mut self, n: i64) {
        self.0.extend_from_slice(&(n as i32).to_le_bytes());
    }

    /// Appends words.
    pub fn words(&mut self, ns: &[i64]) {
        ns.iter().for_each(|&n| self.put(n));
    }

    /// Appends a record of `N` words with one copy (the hot lists: figures, offers, candidates).
    fn record<const N: usize>(&mut self, words: [i32; N]) {
        let mut bytes = [[0u8; 4]; N];
        for (b, n) in bytes.iter_mut().zip(words) {
            *b = n.to_le_bytes();
        }
        self.0.extend_from_slice(bytes.as_flattened());
    }

    pub(crate) fn location(&mut self, at: &Location) {
        location_words(at).into_iter().for_each(|n| self.put(n as i64));
    }

    pub(crate) fn list(&mut self, items: impl ExactSizeIterator<Item = i64>) {
        self.put(items.len() as i64);
        items.for_each(|n| self.put(n));
    }

    fn target(&mut self, t: &Target) {
        t.words().into_iter().for_each(|n| self.put(n as i64));
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.put(s.len() as i64);
        self.0.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.put(0),
            Value::Bool(b) => self.words(&[1, *b as i64]),
            Value::Int(n) => self.words(&[2, *n & 0xffff_ffff, *n >> 32]),
            Value::Str(s) => {
                self.put(3);
                self.str(s);
            }
            Value::List(items) => {
                self.words(&[4, items.len() as i64]);
                items.iter().for_each(|item| self.value(item));
            }
            Value::Map(map) => {
                self.words(&[5, map.len() as i64]);
                for (k, item) in map {
                    self.str(k);
                    self.value(item);
                }
            }
        }
    }

    /// Appends commands.
    pub fn commands(&mut self, commands: &[Command]) {
        self.put(commands.len() as i64);
        for c in commands {
            match c {
                Command::AddPoints { player, points, category } => {
                    self.words(&[0, *player as i64, *points as i64]);
                    self.str(category);
                }
                Command::GiveTokens { player, token, count } => {
                    self.words(&[1, *player as i64, *count as i64]);
                    self.str(token);
                }
                Command::PlaceFigure { player, kind, at } => {
                    self.words(&[2, *player as i64]);
                    self.target(at);
                    self.str(kind);
                }
                Command::MoveFigure { figure, to } => {
                    self.words(&[3, *figure as i64]);
                    self.target(to);
                }
                Command::SetAside { figure } => self.words(&[4, *figure as i64]),
                Command::ReturnFigure { figure } => self.words(&[5, *figure as i64]),
                Command::SetFigureFace { figure, face } => self.words(&[6, *figure as i64, *face as i64]),
                Command::ExtraTurnPart => self.put(7),
                Command::ExtraTurn { player } => self.words(&[8, *player as i64]),
                Command::SetStorage { key, value } => {
                    self.put(9);
                    self.str(key);
                    self.value(value);
                }
                Command::SetScore { player, points } => self.words(&[10, *player as i64, *points as i64]),
                Command::Ask(q) => {
                    // A question about something has a tag of its own (ABI minor 8): older hosts
                    // read the other form, word for word as before.
                    self.words(&[if q.about.is_some() { 13 } else { 11 }, q.player as i64]);
                    self.str(&q.kind);
                    self.put(q.options.len() as i64);
                    q.options.iter().for_each(|o| self.str(o));
                    self.value(&q.data);
                    if let Some(about) = &q.about {
                        self.target(about);
                    }
                }
                Command::Log { message } => {
                    self.put(12);
                    self.str(message);
                }
            }
        }
    }

    /// Appends an event; false for events no hook receives. `figure` gives the owner and kind
    /// of a figure (a move event does not carry them).
    #[inline]
    pub fn event(&mut self, e: &Event, figure: impl Fn(FigureId) -> Option<(u8, FigureKindId)>) -> bool {
        match e {
            Event::TilePlaced { player, tile, index, pos, rotation } => self.words(&[
                player.map_or(-1, |p| p as i64),
                *tile as i64,
                *index as i64,
                pos.x as i64,
                pos.y as i64,
                rotation.quarter_turns() as i64,
            ]),
            Event::FigurePlaced { figure, player, kind, at } => {
                self.words(&[*figure as i64, *player as i64, *kind as i64]);
                self.location(at);
                self.put(0);
            }
            Event::FigureMoved { figure: id, from, to } => {
                let Some((owner, kind)) = figure(*id) else { return false };
                self.words(&[*id as i64, owner as i64, kind as i64]);
                self.location(to);
                self.put(1);
                self.location(from);
            }
            Event::FigureReturned { figure, player, kind, from } => {
                self.words(&[*figure as i64, *player as i64, *kind as i64]);
                self.location(from);
            }
            Event::FeatureCompleted { feature, kind, completer } => {
                self.words(&[*feature as i64, *kind as i64, *completer as i64])
            }
            Event::FeatureScored { feature, kind, completed, points } => {
                self.words(&[*feature as i64, *kind as i64, *completed as i64, points.len() as i64]);
                for (p, n) in points {
                    self.words(&[*p as i64, *n as i64]);
                }
            }
            Event::TurnPartEnd { player, turn, part } => self.words(&[*player as i64, *turn as i64, *part as i64]),
            Event::TurnEnd { player, turn } => self.words(&[*player as i64, *turn as i64]),
            _ => return false,
        }
        true
    }

    /// Appends a scoring.
    pub fn scoring(&mut self, s: &Scoring) {
        self.words(&[
            s.feature as i64,
            s.kind as i64,
            s.completed as i64,
            s.final_scoring as i64,
            s.tiles as i64,
            s.arms as i64,
        ]);
        self.list(s.cities.iter().map(|&c| c as i64));
        self.list(s.strength.iter().map(|&c| c as i64));
        self.list(s.points.iter().map(|&c| c as i64));
    }

    /// Appends figures with their ids.
    pub fn figures(&mut self, figures: &[(FigureId, Figure)]) {
        self.0.reserve(4 + FIGURE_BYTES * figures.len());
        self.put(figures.len() as i64);
        figures.iter().for_each(|(id, f)| self.figure(*id, f));
    }

    /// One figure's eight words at once.
    fn figure(&mut self, id: FigureId, f: &Figure) {
        let [at, a, b] = location_words(&f.at);
        self.record([
            id as i32,
            f.owner as i32,
            f.kind as i32,
            at,
            a,
            b,
            f.face as i32,
            f.attached_to.map_or(-1, i32::from),
        ]);
    }

    /// Appends an expansion's own figure kinds and their figures.
    pub fn own_figures(&mut self, own: &OwnFigures) {
        self.own_figures_of(&own.kinds, &own.figures);
    }

    /// Appends own figure kinds and their figures, given apart.
    pub fn own_figures_of(&mut self, kinds: &[FigureKindId], figures: &[(FigureId, Figure)]) {
        self.list(kinds.iter().map(|&k| k as i64));
        self.figures(figures);
    }

    /// Appends own figure kinds and their figures, as they come (the count is written last).
    pub fn own_figures_from<'f>(
        &mut self,
        kinds: &[FigureKindId],
        figures: impl Iterator<Item = (FigureId, &'f Figure)>,
    ) {
        self.list(kinds.iter().map(|&k| k as i64));
        let count_at = self.0.len();
        self.put(0);
        let mut n = 0i32;
        for (id, f) in figures {
            self.figure(id, f);
            n += 1;
        }
        self.0[count_at..count_at + 4].copy_from_slice(&n.to_le_bytes());
    }

    /// Appends offers.
    pub fn offers(&mut self, offers: &[Offer]) {
        self.0.reserve(4 + offers.iter().map(|o| 28 + o.label.len()).sum::<usize>());
        self.put(offers.len() as i64);
        let mut previous: Option<&Arc<str>> = None;
        for o in offers {
            let same = previous.is_some_and(|p| Arc::ptr_eq(p, &o.label) || *p == o.label);
            // Code, target and the label's length (-1: the label before) as six words at once.
            let [kind, a, b, c] = o.target.words();
            let label = if same { -1 } else { o.label.len() as i32 };
            self.record([o.code as i32, kind, a, b, c, label]);
            if !same {
                self.0.extend_from_slice(o.label.as_bytes());
            }
            previous = Some(&o.label);
        }
    }

    /// Appends a drawn tile and its candidate placements.
    pub fn candidates(&mut self, tile: u16, candidates: &[Placement]) {
        self.words(&[tile as i64, candidates.len() as i64]);
        // Sized once and filled in place: a turn has a hundred candidates and more.
        let start = self.0.len();
        self.0.resize(start + CANDIDATE_BYTES * candidates.len(), 0);
        for (bytes, p) in self.0[start..].chunks_exact_mut(CANDIDATE_BYTES).zip(candidates) {
            bytes[0..4].copy_from_slice(&p.pos.x.to_le_bytes());
            bytes[4..8].copy_from_slice(&p.pos.y.to_le_bytes());
            bytes[8..12].copy_from_slice(&i32::from(p.rotation.quarter_turns()).to_le_bytes());
        }
    }
}

/// Bytes of one candidate placement: three words (x, y, quarter turns).
const CANDIDATE_BYTES: usize = 12;

/// Bytes of one figure: eight words.
const FIGURE_BYTES: usize = 32;

/// A location as three words: its kind (0 supply, 1 segment, 2 point, 3 aside) and its fields.
fn location_words(at: &Location) -> [i32; 3] {
    match *at {
        Location::Supply => [0, 0, 0],
        Location::Segment { segment } => [1, segment as i32, 0],
        Location::Point { tile, point } => [2, tile as i32, point as i32],
        Location::Aside => [3, 0, 0],
    }
}

/// Reads words from a byte buffer.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Reads from the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// The next `N` words, with one bounds check.
    fn record<const N: usize>(&mut self) -> Option<[i32; N]> {
        let bytes = self.bytes.get(self.at..self.at.checked_add(4 * N)?)?;
        self.at += 4 * N;
        let mut words = [0i32; N];
        for (w, b) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Some(words)
    }

    /// The next word.
    pub fn get(&mut self) -> Option<i64> {
        let w = self.bytes.get(self.at..self.at + 4)?;
        self.at += 4;
        Some(i32::from_le_bytes([w[0], w[1], w[2], w[3]]) as i64)
    }

    pub(crate) fn location(&mut self) -> Option<Location> {
        Some(location_of(self.get()? as i32, self.get()? as i32, self.get()? as i32))
    }

    pub(crate) fn list(&mut self) -> Option<Vec<i64>> {
        let n = self.get()?;
        (0..n).map(|_| self.get()).collect()
    }

    pub(crate) fn count(&mut self) -> Option<usize> {
        usize::try_from(self.get()?).ok().filter(|&n| n <= self.bytes.len())
    }

    fn target(&mut self) -> Option<Target> {
        target_of(self.get()?, self.get()?, self.get()?, self.get()?)
    }

    pub(crate) fn str(&mut self) -> Option<String> {
        self.str_ref().map(str::to_string)
    }

    /// A string, borrowed from the bytes.
    pub(crate) fn str_ref(&mut self) -> Option<&'a str> {
        let len = self.count()?;
        self.text(len)
    }

    /// The next `len` bytes as UTF-8.
    fn text(&mut self, len: usize) -> Option<&'a str> {
        std::str::from_utf8(self.raw(len)?).ok()
    }

    /// A string's bytes, not yet checked to be UTF-8 (for a reader that looks them up first).
    pub(crate) fn str_bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.count()?;
        self.raw(len)
    }

    /// The next `len` bytes.
    fn raw(&mut self, len: usize) -> Option<&'a [u8]> {
        let bytes = self.bytes.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        Some(bytes)
    }

    pub(crate) fn value(&mut self, depth: u32) -> Option<Value> {
        if depth > 64 {
            return None;
        }
        Some(match self.get()? {
            0 => Value::Null,
            1 => Value::Bool(self.get()? != 0),
            2 => Value::Int((self.get()? & 0xffff_ffff) | (self.get()? << 32)),
            3 => Value::Str(self.str()?),
            4 => {
                let n = self.count()?;
                Value::List((0..n).map(|_| self.value(depth + 1)).collect::<Option<_>>()?)
            }
            5 => {
                let n = self.count()?;
                Value::Map((0..n).map(|_| Some((self.str()?, self.value(depth + 1)?))).collect::<Option<_>>()?)
            }
            _ => return None,
        })
    }

    /// Decodes commands.
    pub fn commands(&mut self) -> Option<Vec<Command>> {
        let n = self.count()?;
        let mut list = Vec::with_capacity(n.min(MAX_RESERVED));
        for _ in 0..n {
            list.push(match self.get()? {
                0 => {
                    Command::AddPoints { player: self.get()? as u8, points: self.get()? as i32, category: self.str()? }
                }
                1 => Command::GiveTokens { player: self.get()? as u8, count: self.get()? as i32, token: self.str()? },
                2 => Command::PlaceFigure { player: self.get()? as u8, at: self.target()?, kind: self.str()? },
                3 => Command::MoveFigure { figure: self.get()? as FigureId, to: self.target()? },
                4 => Command::SetAside { figure: self.get()? as FigureId },
                5 => Command::ReturnFigure { figure: self.get()? as FigureId },
                6 => Command::SetFigureFace { figure: self.get()? as FigureId, face: self.get()? as u8 },
                7 => Command::ExtraTurnPart,
                8 => Command::ExtraTurn { player: self.get()? as u8 },
                9 => Command::SetStorage { key: self.str()?, value: self.value(0)? },
                10 => Command::SetScore { player: self.get()? as u8, points: self.get()? as i32 },
                tag @ (11 | 13) => {
                    let (player, kind, n) = (self.get()? as u8, self.str()?, self.count()?);
                    let options = (0..n).map(|_| self.str()).collect::<Option<_>>()?;
                    let data = self.value(0)?;
                    let about = if tag == 13 { Some(self.target()?) } else { None };
                    Command::Ask(Box::new(Question { player, kind, options, data, about }))
                }
                12 => Command::Log { message: self.str()? },
                _ => return None,
            });
        }
        Some(list)
    }

    /// Decodes the event of a hook.
    pub fn event(&mut self, hook: meeple_core::HookKind) -> Option<Event> {
        use meeple_core::HookKind as H;
        Some(match hook {
            H::TilePlaced => {
                let p = self.get()?;
                Event::TilePlaced {
                    player: (p >= 0).then_some(p as u8),
                    tile: self.get()? as u16,
                    index: self.get()? as u16,
                    pos: Pos::new(self.get()? as i32, self.get()? as i32),
                    rotation: Rotation::new(self.get()? as u8),
                }
            }
            H::FigurePlaced => {
                let (figure, player, kind) = (self.get()? as u16, self.get()? as u8, self.get()? as u8);
                let at = self.location()?;
                if self.get()? == 1 {
                    Event::FigureMoved { figure, from: self.location()?, to: at }
                } else {
                    Event::FigurePlaced { figure, player, kind, at }
                }
            }
            H::FigureReturned => Event::FigureReturned {
                figure: self.get()? as u16,
                player: self.get()? as u8,
                kind: self.get()? as u8,
                from: self.location()?,
            },
            H::FeatureCompleted => Event::FeatureCompleted {
                feature: self.get()? as u16,
                kind: segment_kind(self.get()?)?,
                completer: self.get()? as u8,
            },
            H::FeatureScored => {
                let (feature, kind, completed) = (self.get()? as u16, segment_kind(self.get()?)?, self.get()? == 1);
                let n = self.get()?;
                let points = (0..n).map(|_| Some((self.get()? as u8, self.get()? as i32))).collect::<Option<_>>()?;
                Event::FeatureScored { feature, kind, completed, points }
            }
            H::TurnPartEnd => {
                Event::TurnPartEnd { player: self.get()? as u8, turn: self.get()? as u32, part: self.get()? as u8 }
            }
            H::TurnEnd => Event::TurnEnd { player: self.get()? as u8, turn: self.get()? as u32 },
            _ => return None,
        })
    }

    /// Decodes a scoring.
    pub fn scoring(&mut self) -> Option<Scoring> {
        let (feature, kind) = (self.get()? as u16, segment_kind(self.get()?)?);
        let (completed, final_scoring) = (self.get()? == 1, self.get()? == 1);
        let (tiles, arms) = (self.get()? as u16, self.get()? as u16);
        Some(Scoring {
            feature,
            kind,
            completed,
            final_scoring,
            tiles,
            arms,
            cities: self.list()?.into_iter().map(|c| c as u16).collect(),
            strength: self.list()?.into_iter().map(|c| c as u32).collect(),
            points: self.list()?.into_iter().map(|c| c as i32).collect(),
        })
    }

    /// Decodes figures with their ids.
    pub fn figures(&mut self) -> Option<Vec<(FigureId, Figure)>> {
        let mut list = Vec::new();
        self.figures_into(&mut list)?;
        Some(list)
    }

    /// Decodes figures with their ids into a list (emptied first).
    pub fn figures_into(&mut self, list: &mut Vec<(FigureId, Figure)>) -> Option<()> {
        let n = self.get()?;
        list.clear();
        list.reserve(n.clamp(0, MAX_RESERVED as i64) as usize);
        for _ in 0..n {
            let [id, owner, kind, at, a, b, face, attached] = self.record()?;
            let (at, attached_to) = (location_of(at, a, b), u16::try_from(attached).ok());
            let (id, owner, kind, face) = (id as FigureId, owner as u8, kind as FigureKindId, face as u8);
            list.push((id, Figure { kind, owner, at, face, attached_to }));
        }
        Some(())
    }

    /// Decodes an expansion's own figure kinds and their figures.
    pub fn own_figures(&mut self) -> Option<OwnFigures> {
        let mut own = OwnFigures::default();
        self.own_figures_into(&mut own)?;
        Some(own)
    }

    /// Decodes an expansion's own figure kinds and their figures into `own` (a reused buffer).
    pub fn own_figures_into(&mut self, own: &mut OwnFigures) -> Option<()> {
        let n = self.count()?;
        own.kinds.clear();
        for _ in 0..n {
            own.kinds.push(self.get()? as FigureKindId);
        }
        self.figures_into(&mut own.figures)
    }

    /// Decodes offers.
    pub fn offers(&mut self) -> Option<Vec<Offer>> {
        let n = self.get()?;
        let mut list = Vec::with_capacity(n.clamp(0, MAX_RESERVED as i64) as usize);
        let mut previous: Option<Arc<str>> = None;
        for _ in 0..n {
            // Code, target and the label's length at once (-1: the label before).
            let [code, kind, a, b, c, len] = self.record()?;
            let code = u32::try_from(code).ok()?;
            let target = target_of(kind as i64, a as i64, b as i64, c as i64)?;
            // The label before is shared, not copied: one reference more per offer.
            let label = match len {
                -1 => previous.clone()?,
                _ => {
                    let label: Arc<str> = Arc::from(self.text(usize::try_from(len).ok()?)?);
                    previous = Some(label.clone());
                    label
                }
            };
            list.push(Offer { code, target, label });
        }
        Some(list)
    }

    /// Whether every byte was read.
    pub fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// Decodes a drawn tile's candidates into a list (emptied first), and returns the tile.
    pub fn candidates_into(&mut self, list: &mut Vec<Placement>) -> Option<u16> {
        list.clear();
        let (tile, n) = (self.get()? as u16, self.count()?);
        let bytes = self.bytes.get(self.at..self.at.checked_add(n.checked_mul(CANDIDATE_BYTES)?)?)?;
        self.at += bytes.len();
        let word = |b: &[u8]| i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        list.extend(
            bytes
                .chunks_exact(CANDIDATE_BYTES)
                .map(|b| Placement { pos: Pos::new(word(&b[0..4]), word(&b[4..8])), rotation: Rotation::new(b[8]) }),
        );
        Some(tile)
    }
}

/// A target from its four words.
fn target_of(kind: i64, a: i64, b: i64, c: i64) -> Option<Target> {
    let pos = Pos::new(a as i32, b as i32);
    Some(match kind {
        0 => Target::None,
        1 => Target::Point { pos, point: u8::try_from(c).ok()? },
        2 => Target::Segment { pos, segment: u8::try_from(c).ok()? },
        3 => Target::Figure { figure: FigureId::try_from(a).ok()? },
        _ => return None,
    })
}

/// A location from its three words.
fn location_of(kind: i32, a: i32, b: i32) -> Location {
    match kind {
        0 => Location::Supply,
        1 => Location::Segment { segment: a as u16 },
        2 => Location::Point { tile: a as u16, point: b as u8 },
        _ => Location::Aside,
    }
}

fn segment_kind(n: i64) -> Option<SegmentKind> {
    SegmentKind::ALL.get(usize::try_from(n).ok()?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use meeple_core::HookKind;

    #[test]
    fn events_survive_the_round_trip() {
        let events = [
            Event::TilePlaced { player: None, tile: 3, index: 0, pos: Pos::new(-2, 5), rotation: Rotation::new(3) },
            Event::FigurePlaced { figure: 9, player: 1, kind: 2, at: Location::Point { tile: 4, point: 1 } },
            Event::FigureMoved { figure: 9, from: Location::Segment { segment: 7 }, to: Location::Aside },
            Event::FigureReturned { figure: 2, player: 0, kind: 0, from: Location::Segment { segment: 40 } },
            Event::FeatureCompleted { feature: 12, kind: SegmentKind::City, completer: 1 },
            Event::FeatureScored {
                feature: 12,
                kind: SegmentKind::Field,
                completed: false,
                points: vec![(0, 6), (2, 6)],
            },
            Event::TurnPartEnd { player: 1, turn: 30, part: 1 },
            Event::TurnEnd { player: 1, turn: 30 },
        ];
        for e in events {
            let mut w = Writer::default();
            assert!(w.event(&e, |_| Some((1, 2))));
            let hook = HookKind::for_event(&e).unwrap();
            assert_eq!(Reader::new(&w.0).event(hook), Some(e));
        }
    }

    #[test]
    fn scorings_and_candidates_survive_the_round_trip() {
        let s = Scoring {
            feature: 5,
            kind: SegmentKind::Monastery,
            completed: true,
            final_scoring: false,
            tiles: 9,
            arms: 0,
            cities: vec![3, 8],
            strength: vec![1, 0],
            points: vec![9, 0],
        };
        let mut w = Writer::default();
        w.scoring(&s);
        assert_eq!(Reader::new(&w.0).scoring(), Some(s));
        let c: Vec<Placement> = [(1, -1), (i32::MIN, i32::MAX), (0, 0)]
            .into_iter()
            .flat_map(|(x, y)| Rotation::ALL.map(|rotation| Placement { pos: Pos::new(x, y), rotation }))
            .collect();
        w.0.clear();
        w.candidates(7, &c);
        let mut read = vec![Placement { pos: Pos::new(9, 9), rotation: Rotation::new(1) }];
        let mut r = Reader::new(&w.0);
        assert_eq!(r.candidates_into(&mut read), Some(7));
        assert!(r.at_end());
        assert_eq!(read, c, "the list is emptied first");
        assert_eq!(Reader::new(&w.0[..w.0.len() - 1]).candidates_into(&mut read), None, "a cut list is refused");
        let negative: Vec<u8> = [7i32, -1].iter().flat_map(|n| n.to_le_bytes()).collect();
        assert_eq!(Reader::new(&negative).candidates_into(&mut read), None, "a negative count is refused");
    }

    #[test]
    fn figures_survive_the_round_trip() {
        let figures = vec![
            (0, Figure { kind: 0, owner: 1, at: Location::Segment { segment: 40 }, face: 0, attached_to: None }),
            (31, Figure { kind: 4, owner: 2, at: Location::Point { tile: 7, point: 1 }, face: 2, attached_to: None }),
            (5, Figure { kind: 2, owner: 0, at: Location::Supply, face: 0, attached_to: Some(3) }),
        ];
        let mut w = Writer::default();
        w.figures(&figures);
        let mut r = Reader::new(&w.0);
        assert_eq!(r.figures(), Some(figures));
        assert!(r.at_end());
    }

    #[test]
    fn offers_survive_the_round_trip() {
        let offers = vec![
            Offer { code: 1, target: Target::Point { pos: Pos::new(-3, 2), point: 1 }, label: "à (−3, 2)".into() },
            Offer { code: 7, target: Target::Segment { pos: Pos::new(0, 0), segment: 4 }, label: "".into() },
            Offer { code: 2, target: Target::Figure { figure: 300 }, label: "move".into() },
            Offer { code: 2, target: Target::Figure { figure: 301 }, label: "move".into() },
            Offer { code: 0, target: Target::None, label: "x".into() },
        ];
        let mut w = Writer::default();
        w.offers(&offers);
        let mut r = Reader::new(&w.0);
        assert_eq!(r.offers(), Some(offers));
        assert!(r.at_end());
        assert_eq!(Reader::new(&w.0[..w.0.len() - 1]).offers(), None, "a cut label is refused");
    }

    #[test]
    fn commands_survive_the_round_trip() {
        let mut map = std::collections::BTreeMap::new();
        map.insert("wine".to_string(), Value::List(vec![Value::Int(-3), Value::Int(1 << 40), Value::Null]));
        map.insert("ok".to_string(), Value::Bool(true));
        let commands = vec![
            Command::AddPoints { player: 1, points: -4, category: "tollkeepers".into() },
            Command::GiveTokens { player: 0, token: "wine".into(), count: 2 },
            Command::PlaceFigure {
                player: 2,
                kind: "tollkeepers:tollhouse".into(),
                at: Target::Point { pos: Pos::new(-1, 3), point: 0 },
            },
            Command::MoveFigure { figure: 40, to: Target::Segment { pos: Pos::new(2, 2), segment: 5 } },
            Command::SetAside { figure: 3 },
            Command::ReturnFigure { figure: 4 },
            Command::SetFigureFace { figure: 5, face: 2 },
            Command::ExtraTurnPart,
            Command::ExtraTurn { player: 1 },
            Command::SetStorage { key: "villages".into(), value: Value::Map(map.clone()) },
            Command::SetStorage { key: "gone".into(), value: Value::Null },
            Command::SetScore { player: 0, points: 12 },
            Command::ask(1, "pig-farmer", vec!["yes".into(), "no".into()], Value::Str("é".into())),
            Command::Ask(Box::new(Question {
                player: 0,
                kind: "builder-extra-turn".into(),
                options: vec!["take it".into()],
                data: Value::Null,
                about: Some(Target::Figure { figure: 7 }),
            })),
            Command::Log { message: "hello".into() },
        ];
        let mut w = Writer::default();
        w.commands(&commands);
        let mut r = Reader::new(&w.0);
        assert_eq!(r.commands(), Some(commands));
        assert!(r.at_end());
        for cut in [1, 5, w.0.len() / 2] {
            assert_eq!(Reader::new(&w.0[..w.0.len() - cut]).commands(), None, "cut by {cut}");
        }
    }

    #[test]
    fn own_figures_survive_the_round_trip() {
        let own = OwnFigures {
            kinds: vec![4],
            figures: vec![(31, Figure { kind: 4, owner: 2, at: Location::Supply, face: 1, attached_to: None })],
        };
        let mut w = Writer::default();
        w.own_figures(&own);
        let mut r = Reader::new(&w.0);
        assert_eq!(r.own_figures(), Some(own));
        assert!(r.at_end());
    }
}
