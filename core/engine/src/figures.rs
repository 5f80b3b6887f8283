//! Figures as data: kinds (meeple, builder, pig, tollhouse …) and the figures of a game.
//!
//! A figure kind says how strong a figure is, how many each player has, where it may stand and
//! when it leaves. The core checks all of that natively, so expansions declare figures instead
//! of coding them.

use crate::features::SegId;
use crate::tileset::SegmentKind;
use serde::{Deserialize, Serialize};

/// Index of a figure kind in [`crate::Rules::figures`]; 0 is always the meeple.
pub type FigureKindId = u8;

/// Index of a figure in [`crate::GameState::figures`].
pub type FigureId = u16;

/// The kind id of the base game's meeple.
pub const MEEPLE: FigureKindId = 0;

/// How a figure gets onto the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// As the turn's figure action, on a segment of the tile just placed whose feature holds
    /// no follower (the meeple).
    Unoccupied,
    /// As the turn's figure action (instead of a meeple), on a segment of the tile just placed
    /// whose feature holds at least one follower of the same player (C2/C3 builder and pig).
    JoinsOwnFollower,
    /// Together with a follower placed in the same action, assigned to it (C3.1 builder, pig).
    WithFollower,
    /// Only by expansion commands (a tollhouse moved by its own rules).
    ByExpansion,
}

/// When a figure on the board goes back to its owner's supply, besides the scoring of its feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stays {
    /// Until its feature is scored (farmers: to the end of the game).
    UntilScored,
    /// Also returns as soon as its owner has no follower left on its feature.
    WhileOwnFollower,
    /// Also returns when the follower it is assigned to leaves.
    WhileAttached,
}

/// A kind of figure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FigureKind {
    /// Namespaced id: `meeple`, `traders-builders:builder`.
    pub id: String,
    /// What players call it (`builder`). Not sent to native plugins, which have no use for it,
    /// so that the ruleset they read is laid out as before it (their ABI is unchanged).
    #[serde(skip)]
    pub name: crate::rules::Noun,
    /// How many each player has.
    pub per_player: u8,
    /// Weight in majorities; 0 never wins a feature.
    pub strength: u8,
    /// Followers occupy features: no meeple may join a feature holding one, and they count for
    /// majorities.
    pub follower: bool,
    /// Segment kinds it may stand on (bits of [`SegmentKind::bit`]).
    pub stands_on: u8,
    /// How it is placed.
    pub placement: Placement,
    /// When it leaves.
    pub stays: Stays,
    /// The faces it can be turned to (a tollhouse: 1 and 2); empty for figures without faces.
    /// A figure shows face 0 until an expansion turns it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faces: Vec<u8>,
}

impl FigureKind {
    /// The base game's meeple: 7 per player, strength 1, on cities, roads, fields, monasteries.
    pub fn meeple() -> FigureKind {
        FigureKind {
            id: "meeple".into(),
            name: crate::rules::Noun::from_id("meeple"),
            per_player: 7,
            strength: 1,
            follower: true,
            stands_on: kinds(&[SegmentKind::City, SegmentKind::Road, SegmentKind::Field, SegmentKind::Monastery]),
            placement: Placement::Unoccupied,
            stays: Stays::UntilScored,
            faces: Vec::new(),
        }
    }

    /// True when it may stand on a segment of this kind.
    pub fn may_stand_on(&self, kind: SegmentKind) -> bool {
        self.stands_on & kind.bit() != 0
    }
}

/// A set of segment kinds as bits.
pub fn kinds(list: &[SegmentKind]) -> u8 {
    list.iter().fold(0, |acc, k| acc | k.bit())
}

/// Where a figure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "at")]
pub enum Location {
    /// In its owner's supply.
    Supply,
    /// On a segment of a placed tile.
    Segment {
        /// The segment.
        segment: SegId,
    },
    /// On a named point of a placed tile (a village).
    Point {
        /// Index of the placed tile.
        tile: u16,
        /// Index of the point in the tile kind.
        point: u8,
    },
    /// Off the board but out of the supply (set aside by an expansion).
    Aside,
}

impl Location {
    /// Whether the figure stands on the board (on a segment or a point).
    pub fn is_on_board(self) -> bool {
        matches!(self, Location::Segment { .. } | Location::Point { .. })
    }
}

/// One figure of one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Figure {
    /// Its kind.
    pub kind: FigureKindId,
    /// Its owner.
    pub owner: u8,
    /// Where it is.
    pub at: Location,
    /// Which face is up (tollhouse 1 or 2): one of its kind's faces, or 0 before an expansion
    /// turns it (and always for figures without faces).
    pub face: u8,
    /// The follower it is assigned to, if any.
    pub attached_to: Option<FigureId>,
}

impl Figure {
    /// The segment it stands on, if it stands on one.
    pub fn segment(&self) -> Option<SegId> {
        match self.at {
            Location::Segment { segment } => Some(segment),
            _ => None,
        }
    }

    /// True when it is in its owner's supply.
    pub fn in_supply(&self) -> bool {
        self.at == Location::Supply
    }
}
