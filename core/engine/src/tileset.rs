//! Tile kinds and tilesets: the validated model of `tilesets/*.toml` (format: `docs/tilesets.md`).
//!
//! A [`Tileset`] is read from text with [`Tileset::parse`], which checks the whole file and
//! reports every problem with its `file:line:col`. The engine only ever sees validated tiles: a
//! segment's ports are known, every port of every side is covered exactly once, and references
//! between segments point at segments of the right kind.

mod parse;

use crate::geometry::{Port, Side};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What the edge of a side shows; two tiles may touch only where their sides agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SideKind {
    /// `C`: a city wall spans the side.
    City,
    /// `R`: a road leaves through the centre, fields on both halves.
    Road,
    /// `F`: field only.
    Field,
    /// `W`: a river leaves through the centre, fields on both halves.
    River,
}

impl SideKind {
    /// The letter used in tileset files.
    pub fn letter(self) -> char {
        match self {
            SideKind::City => 'C',
            SideKind::Road => 'R',
            SideKind::Field => 'F',
            SideKind::River => 'W',
        }
    }

    /// The kind of segment a side of this kind shows: what runs through its centre.
    pub fn segment_kind(self) -> SegmentKind {
        match self {
            SideKind::City => SegmentKind::City,
            SideKind::Road => SegmentKind::Road,
            SideKind::Field => SegmentKind::Field,
            SideKind::River => SegmentKind::River,
        }
    }

    /// The side kind that shows a segment of `kind`, if a segment of that kind reaches a side.
    pub fn showing(kind: SegmentKind) -> Option<SideKind> {
        [SideKind::City, SideKind::Road, SideKind::Field, SideKind::River]
            .into_iter()
            .find(|s| s.segment_kind() == kind)
    }

    fn from_letter(c: char) -> Option<SideKind> {
        match c {
            'C' => Some(SideKind::City),
            'R' => Some(SideKind::Road),
            'F' => Some(SideKind::Field),
            'W' => Some(SideKind::River),
            _ => None,
        }
    }
}

/// The kinds of segment a tile can hold.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SegmentKind {
    /// Part of a city.
    City,
    /// Part of a road.
    Road,
    /// Part of a field (a farm).
    Field,
    /// A monastery: complete when surrounded by 8 tiles.
    Monastery,
    /// Part of a river.
    River,
    /// A garden (The Abbot): completes like a monastery; no base figure may stand on it.
    Garden,
}

impl SegmentKind {
    /// All kinds, in a fixed order.
    pub const ALL: [SegmentKind; 6] = [
        SegmentKind::City,
        SegmentKind::Road,
        SegmentKind::Field,
        SegmentKind::Monastery,
        SegmentKind::River,
        SegmentKind::Garden,
    ];

    /// The name used in files and messages.
    pub fn name(self) -> &'static str {
        match self {
            SegmentKind::City => "city",
            SegmentKind::Road => "road",
            SegmentKind::Field => "field",
            SegmentKind::Monastery => "monastery",
            SegmentKind::River => "river",
            SegmentKind::Garden => "garden",
        }
    }

    /// Parses a kind name.
    pub fn parse(s: &str) -> Option<SegmentKind> {
        SegmentKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// What to say of a word that names no kind: the kind it is likely a slip for, and the kinds.
    pub fn unknown(word: &str) -> String {
        let names: Vec<&str> = SegmentKind::ALL.iter().map(|k| k.name()).collect();
        let hint = meeple_toml::did_you_mean(word, &names);
        format!("unknown segment kind `{word}`; {hint}expected one of: {}", names.join(", "))
    }

    /// Features of this kind close when no side is left open (cities, roads, rivers).
    pub fn closes_by_sides(self) -> bool {
        matches!(self, SegmentKind::City | SegmentKind::Road | SegmentKind::River)
    }

    /// Features of this kind close when the 8 squares around are filled (monastery, garden).
    pub fn closes_by_surrounding(self) -> bool {
        matches!(self, SegmentKind::Monastery | SegmentKind::Garden)
    }

    /// A bit for sets of kinds.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// Where one end of a road or river goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum End {
    /// Leaves the tile through the centre of this side.
    Side(Side),
    /// Stops on the tile: at a city, a monastery, a house, a dead end, a spring, a lake, or a
    /// named point (then `point` is its index in [`TileDef::points`]).
    Stop {
        /// `city`, `monastery`, `house`, `dead-end`, `spring`, `lake`, or the point's kind.
        kind: String,
        /// The named point the end stops at, if any.
        point: Option<u8>,
    },
}

/// What a road end may stop at without a named point.
pub const ROAD_STOPS: [&str; 4] = ["city", "monastery", "house", "dead-end"];
/// What a river end may stop at.
pub const RIVER_STOPS: [&str; 2] = ["spring", "lake"];

/// One segment of a tile, in the tile's own orientation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// Unique within the tile.
    pub id: Arc<str>,
    /// What it is.
    pub kind: SegmentKind,
    /// Every port it covers (for fields, the centre of a field side too).
    pub ports: Vec<Port>,
    /// The sides through which the feature continues onto neighbours (cities, roads, rivers).
    pub open_sides: Vec<Side>,
    /// Road and river ends.
    pub ends: Vec<End>,
    /// Coats of arms (cities).
    pub arms: u8,
    /// Goods symbol (cities).
    pub goods: Option<String>,
    /// Field: indices of the city segments of this tile that it touches.
    pub cities: Vec<u8>,
    /// Garden: the field it lies in.
    pub field: Option<u8>,
    /// Garden: road segments beside it.
    pub flanks: Vec<u8>,
    /// Free-form words.
    pub tags: Vec<String>,
}

/// A named place on a tile that is not a segment, such as a village.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// Unique within the tile.
    pub id: String,
    /// e.g. `village`.
    pub kind: String,
}

/// A small picture in a field (farmhouse, cowshed, highwaymen, travellers …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Illustration {
    /// What it shows.
    pub kind: String,
    /// The field segment it lies in, if any.
    pub field: Option<u8>,
    /// Road segments it stands beside.
    pub flanks: Vec<u8>,
    /// Its position comes from a documented reconstruction, not from a source.
    pub reconstructed: bool,
}

/// One kind of tile, validated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TileDef {
    /// Unique within the tileset.
    pub id: String,
    /// A description for people.
    pub name: String,
    /// Copies per edition of the tileset (`counts[i]` for `Tileset::editions[i]`; 0 = absent).
    pub counts: Vec<u32>,
    /// Side kinds N, E, S, W.
    pub sides: [SideKind; 4],
    /// The segments.
    pub segments: Vec<Segment>,
    /// Named points.
    pub points: Vec<Point>,
    /// Small pictures.
    pub illustrations: Vec<Illustration>,
    /// Free-form words.
    pub tags: Vec<String>,
    /// The geometry is a reconstruction.
    pub reconstructed: bool,
    /// For each port, the index of the segment covering it.
    pub port_segment: [u8; 12],
}

impl TileDef {
    /// The segment with this id.
    pub fn segment(&self, id: &str) -> Option<usize> {
        self.segments.iter().position(|s| *s.id == *id)
    }

    /// The kind of the side, in the tile's own orientation.
    pub fn side(&self, side: Side) -> SideKind {
        self.sides[side.index()]
    }

    /// The sides as a string such as `CRFR`.
    pub fn side_letters(&self) -> String {
        self.sides.iter().map(|s| s.letter()).collect()
    }

    /// Whether the tile turned by `r` is the tile itself: every side, segment and picture
    /// lands where one just like it was (a monastery turned any way, a straight road turned
    /// twice). Two placements on one square that differ by such a turn make the same board for
    /// every rule that reads features, sides and pictures, as the shipped ones do; only a rule
    /// reading the recorded rotation or a segment's id could tell them apart. Where it is unsure
    /// it answers no: a choice is never hidden, at most one shown twice.
    pub fn looks_the_same_turned(&self, r: crate::geometry::Rotation) -> bool {
        if Side::ALL.iter().any(|&s| self.side(s.rotated(r)) != self.side(s)) {
            return false;
        }
        let Some(image) = self.segment_images(r) else { return false };
        let mapped = |list: &[u8]| sorted(list.iter().map(|&i| image[i as usize]));
        let end = |e: &End| match e {
            End::Side(s) => End::Side(s.rotated(r)),
            stop => stop.clone(),
        };
        let same_segment = |(i, seg): (usize, &Segment)| {
            let to = &self.segments[image[i] as usize];
            (to.kind, to.arms, &to.goods, &to.tags) == (seg.kind, seg.arms, &seg.goods, &seg.tags)
                && sorted(to.open_sides.iter().map(|s| s.index()))
                    == sorted(seg.open_sides.iter().map(|s| s.rotated(r).index()))
                && same_items(&seg.ends.iter().map(end).collect::<Vec<_>>(), &to.ends)
                && sorted(to.cities.iter().copied()) == mapped(&seg.cities)
                && sorted(to.flanks.iter().copied()) == mapped(&seg.flanks)
                && to.field == seg.field.map(|f| image[f as usize])
        };
        // Pictures in a field or beside a road land on the pictures of the segments they go to.
        let picture = |p: &Illustration| (p.kind.clone(), p.field, sorted(p.flanks.iter().copied()));
        let pictures = sorted(self.illustrations.iter().map(picture));
        let turned = sorted(
            self.illustrations.iter().map(|p| (p.kind.clone(), p.field.map(|f| image[f as usize]), mapped(&p.flanks))),
        );
        self.segments.iter().enumerate().all(same_segment) && pictures == turned
    }

    /// Where each segment goes when the tile is turned by `r`: to the segment covering its ports
    /// turned; one without ports (a monastery, a garden) lies in the middle and stays. `None`
    /// when a segment's ports turned are not exactly another's.
    fn segment_images(&self, r: crate::geometry::Rotation) -> Option<Vec<u8>> {
        let images = self.segments.iter().enumerate().map(|(i, seg)| {
            let Some(first) = seg.ports.first() else { return Some(i as u8) };
            let to = self.port_segment[first.rotated(r).index()];
            let ports = |s: &Segment| sorted(s.ports.iter().map(|p| p.index()));
            let turned = sorted(seg.ports.iter().map(|p| p.rotated(r).index()));
            (ports(&self.segments[to as usize]) == turned).then_some(to)
        });
        images.collect()
    }

    /// The side letters as seen on the board after turning the tile (N E S W, e.g. `RCRF`).
    pub fn board_sides(&self, r: crate::geometry::Rotation) -> SideLetters {
        let k = r.quarter_turns() as usize;
        SideLetters(std::array::from_fn(|d| self.sides[(d + 4 - k) % 4].letter() as u8))
    }
}

/// Whether two lists hold the same items as often each, in any order.
fn same_items<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    let times = |list: &[T], x: &T| list.iter().filter(|y| *y == x).count();
    a.len() == b.len() && a.iter().all(|x| times(a, x) == times(b, x))
}

/// The items in order, for comparing lists whose order means nothing.
fn sorted<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.collect();
    v.sort();
    v
}

/// A tile's four sides as letters, north, east, south, west (`CRFR`): a string without the
/// allocation, as states list one for every tile on the board and every placement.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SideLetters([u8; 4]);

impl SideLetters {
    /// The letters.
    pub fn as_str(&self) -> &str {
        // Always ASCII: built from `SideKind::letter`.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::fmt::Display for SideLetters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for SideLetters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl Serialize for SideLetters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl schemars::JsonSchema for SideLetters {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SideLetters".into()
    }

    /// Four letters: `C` city, `R` road, `F` field, `W` river.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": "^[CRFW]{4}$" })
    }
}

/// A validated tileset file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tileset {
    /// Unique among tilesets.
    pub id: String,
    /// For people.
    pub name: String,
    /// The editions the file can produce.
    pub editions: Vec<String>,
    /// The tile laid face up before the game, if the tileset has one.
    pub start: Option<usize>,
    /// Tile kinds in file order.
    pub tiles: Vec<TileDef>,
}

impl Tileset {
    /// Parses and validates a tileset; `name` is used in error locations (usually the path).
    pub fn parse(name: &str, text: &str) -> Result<Tileset, meeple_toml::Report> {
        parse::parse(name, text)
    }

    /// The index of an edition, if the tileset has it.
    pub fn edition(&self, edition: &str) -> Option<usize> {
        self.editions.iter().position(|e| e == edition)
    }

    /// The tile kind with this id.
    pub fn tile(&self, id: &str) -> Option<&TileDef> {
        self.tiles.iter().find(|t| t.id == id)
    }

    /// Tile kinds and their counts in an edition, in file order, leaving out absent ones.
    pub fn contents(&self, edition: usize) -> impl Iterator<Item = (&TileDef, u32)> {
        self.tiles.iter().filter_map(move |t| {
            let n = t.counts[edition];
            (n > 0).then_some((t, n))
        })
    }

    /// Total number of tiles in an edition, the start tile included.
    pub fn total(&self, edition: usize) -> u32 {
        self.contents(edition).map(|(_, n)| n).sum()
    }
}
