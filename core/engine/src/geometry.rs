//! Sides, ports, rotations and board positions.
//!
//! A tile has 4 sides and each side 3 ports, numbered clockwise from the west half of the north
//! side: `NL N NR EL E ER SL S SR WL W WR` = 0..12. Turning a tile by `r` quarter turns clockwise
//! moves port `p` to `(p + 3r) % 12`, so rotation is plain arithmetic on port numbers.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A side of a tile or a direction on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Side {
    /// North: towards `y + 1`.
    N = 0,
    /// East: towards `x + 1`.
    E = 1,
    /// South: towards `y - 1`.
    S = 2,
    /// West: towards `x - 1`.
    W = 3,
}

impl Side {
    /// The four sides in clockwise order from north.
    pub const ALL: [Side; 4] = [Side::N, Side::E, Side::S, Side::W];

    /// The side with index `i % 4`.
    pub fn from_index(i: usize) -> Side {
        Side::ALL[i % 4]
    }

    /// 0 for N up to 3 for W.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The side across an edge: N↔S, E↔W.
    pub fn opposite(self) -> Side {
        Side::from_index(self.index() + 2)
    }

    /// This side after turning the tile by `r`.
    pub fn rotated(self, r: Rotation) -> Side {
        Side::from_index(self.index() + r.quarter_turns() as usize)
    }

    /// The board offset of the neighbour on this side.
    pub fn offset(self) -> (i32, i32) {
        match self {
            Side::N => (0, 1),
            Side::E => (1, 0),
            Side::S => (0, -1),
            Side::W => (-1, 0),
        }
    }

    /// The side's letter.
    pub fn name(self) -> &'static str {
        ["N", "E", "S", "W"][self.index()]
    }

    /// Parses `N`, `E`, `S` or `W`.
    pub fn parse(s: &str) -> Option<Side> {
        Side::ALL.into_iter().find(|side| side.name() == s)
    }
}

/// One of the 12 ports of a tile (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Port(u8);

impl Port {
    /// Port names in index order.
    pub const NAMES: [&'static str; 12] = ["NL", "N", "NR", "EL", "E", "ER", "SL", "S", "SR", "WL", "W", "WR"];

    /// The port with index `i` (0..12).
    pub fn new(i: u8) -> Port {
        debug_assert!(i < 12);
        Port(i % 12)
    }

    /// The centre port of a side.
    pub fn centre(side: Side) -> Port {
        Port(side as u8 * 3 + 1)
    }

    /// The first (k = 0), centre (1) or second (2) port of a side.
    pub fn of(side: Side, k: u8) -> Port {
        Port(side as u8 * 3 + k)
    }

    /// 0..12.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The side the port lies on.
    pub fn side(self) -> Side {
        Side::from_index(self.0 as usize / 3)
    }

    /// 0 first half, 1 centre, 2 second half.
    pub fn position(self) -> u8 {
        self.0 % 3
    }

    /// True for the centre port of a side.
    pub fn is_centre(self) -> bool {
        self.position() == 1
    }

    /// The port of the neighbouring tile that this port touches: first half meets second half.
    pub fn across(self) -> Port {
        Port::of(self.side().opposite(), 2 - self.position())
    }

    /// This port after turning the tile by `r`.
    pub fn rotated(self, r: Rotation) -> Port {
        Port((self.0 + 3 * r.quarter_turns()) % 12)
    }

    /// The port's name, e.g. `NL`.
    pub fn name(self) -> &'static str {
        Port::NAMES[self.index()]
    }

    /// Parses a port name such as `NL` or `E`.
    pub fn parse(s: &str) -> Option<Port> {
        Port::NAMES.iter().position(|n| *n == s).map(|i| Port(i as u8))
    }
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rotation by 0–3 quarter turns clockwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Rotation(u8);

/// Written by hand: derived, it would be any `u8`, which the protocol refuses past 3.
impl schemars::JsonSchema for Rotation {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rotation".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A rotation by 0–3 quarter turns clockwise.",
            "type": "integer",
            "minimum": 0,
            "maximum": 3
        })
    }
}

impl Rotation {
    /// The four rotations.
    pub const ALL: [Rotation; 4] = [Rotation(0), Rotation(1), Rotation(2), Rotation(3)];

    /// `r % 4` quarter turns.
    pub fn new(r: u8) -> Rotation {
        Rotation(r % 4)
    }

    /// 0..4.
    pub fn quarter_turns(self) -> u8 {
        self.0
    }

    /// The rotation that undoes this one.
    pub fn inverse(self) -> Rotation {
        Rotation((4 - self.0) % 4)
    }
}

impl TryFrom<u8> for Rotation {
    type Error = String;
    fn try_from(r: u8) -> Result<Self, String> {
        if r < 4 { Ok(Rotation(r)) } else { Err(format!("a rotation is 0 to 3 quarter turns clockwise, not {r}")) }
    }
}

impl From<Rotation> for u8 {
    fn from(r: Rotation) -> u8 {
        r.0
    }
}

/// A square of the board. The start tile stands at (0, 0); north is `y + 1`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Pos {
    /// Column, growing east.
    pub x: i32,
    /// Row, growing north.
    pub y: i32,
}

impl Pos {
    /// The square at (x, y).
    pub const fn new(x: i32, y: i32) -> Pos {
        Pos { x, y }
    }

    /// The neighbouring square on `side`.
    pub fn step(self, side: Side) -> Pos {
        let (dx, dy) = side.offset();
        Pos::new(self.x + dx, self.y + dy)
    }

    /// The 8 squares around this one (orthogonal and diagonal).
    pub fn ring(self) -> [Pos; 8] {
        let Pos { x, y } = self;
        [
            Pos::new(x - 1, y + 1),
            Pos::new(x, y + 1),
            Pos::new(x + 1, y + 1),
            Pos::new(x + 1, y),
            Pos::new(x + 1, y - 1),
            Pos::new(x, y - 1),
            Pos::new(x - 1, y - 1),
            Pos::new(x - 1, y),
        ]
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_meet_their_mirror_across_an_edge() {
        let p = |s| Port::parse(s).unwrap();
        assert_eq!(p("NL").across(), p("SR"));
        assert_eq!(p("NR").across(), p("SL"));
        assert_eq!(p("EL").across(), p("WR"));
        assert_eq!(p("ER").across(), p("WL"));
        assert_eq!(p("N").across(), p("S"));
        for i in 0..12 {
            assert_eq!(Port::new(i).across().across(), Port::new(i));
        }
    }

    #[test]
    fn a_quarter_turn_moves_north_to_east() {
        let r = Rotation::new(1);
        assert_eq!(Port::parse("NL").unwrap().rotated(r).name(), "EL");
        assert_eq!(Port::parse("WR").unwrap().rotated(r).name(), "NR");
        assert_eq!(Side::W.rotated(r), Side::N);
        assert_eq!(Rotation::new(3).inverse(), Rotation::new(1));
    }
}
