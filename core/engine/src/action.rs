//! What players do ([`Action`]), what happens as a result ([`Event`]), and the choices an
//! expansion can put to a player ([`Decision`], [`Offer`]). All are plain serialisable data.

use crate::features::SegId;
use crate::figures::{FigureId, FigureKindId, Location};
use crate::geometry::{Pos, Rotation};
use crate::rules::TileId;
use crate::tileset::SegmentKind;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A player's move. Replays are lists of actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// Place the drawn tile.
    PlaceTile {
        /// The square.
        pos: Pos,
        /// The rotation.
        rotation: Rotation,
    },
    /// Place a figure from the supply on a segment of the tile just placed.
    PlaceFigure {
        /// The figure kind.
        figure: FigureKindId,
        /// The segment's index in the tile kind.
        segment: u8,
        /// A second figure assigned to the first in the same action (C3.1 builder or pig).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        with: Option<FigureKindId>,
    },
    /// Take an action an expansion offers in the figure phase.
    Expansion {
        /// Index of the expansion in the ruleset.
        expansion: u16,
        /// The expansion's code for the action.
        code: u32,
        /// What it applies to.
        target: Target,
    },
    /// Place nothing in the figure phase.
    Pass,
    /// Answer the pending decision with one of its options.
    Choose {
        /// Index of the chosen option.
        option: u16,
    },
}

/// What an expansion action applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Target {
    /// Nothing in particular.
    #[default]
    None,
    /// A named point of a placed tile (a village).
    Point {
        /// Where the tile stands.
        pos: Pos,
        /// Index of the point in the tile kind.
        point: u8,
    },
    /// A segment of a placed tile.
    Segment {
        /// Where the tile stands.
        pos: Pos,
        /// Index of the segment in the tile kind.
        segment: u8,
    },
    /// A figure.
    Figure {
        /// The figure.
        figure: FigureId,
    },
}

impl Target {
    /// The target as four words: its kind (0 none, 1 point, 2 segment, 3 figure) and its
    /// fields, as a plugin's wire and the public hash write it.
    #[inline]
    pub fn words(&self) -> [i32; 4] {
        match *self {
            Target::None => [0, 0, 0, 0],
            Target::Point { pos, point } => [1, pos.x, pos.y, point as i32],
            Target::Segment { pos, segment } => [2, pos.x, pos.y, segment as i32],
            Target::Figure { figure } => [3, figure as i32, 0, 0],
        }
    }
}

/// An action an expansion offers in the figure phase, with a label for people. The label says
/// what the action does and the core names the target after it
/// ([`crate::describe::ActionInfo`]): `move the tollhouse to` + `the village at (2, 1)`. One
/// label per kind of offer keeps the many offers of a figure phase cheap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    /// The expansion's code for it.
    pub code: u32,
    /// What it applies to.
    pub target: Target,
    /// What it does, e.g. "move the tollhouse to" (the target's name follows). Shared: the
    /// offers of one kind usually carry the same label.
    pub label: Arc<str>,
}

/// A question an expansion puts to a player; answered with [`Action::Choose`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Who answers.
    pub player: u8,
    /// The expansion asking (index in the ruleset).
    pub expansion: u16,
    /// The expansion's name for the question.
    pub kind: String,
    /// The possible answers, described for people.
    pub options: Vec<String>,
    /// Whatever the expansion needs to remember about the question.
    pub data: Value,
    /// What the question is about, for a player to find on the board (the farmer a pig leaves),
    /// if the expansion says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<Target>,
}

/// Something that happened. `apply` returns the events of an action, hooks react to them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A tile was drawn.
    TileDrawn {
        /// The player who drew it.
        player: u8,
        /// Its kind.
        tile: TileId,
    },
    /// A drawn tile fitted nowhere and left the game.
    TileDiscarded {
        /// Its kind.
        tile: TileId,
    },
    /// A tile was placed (the start tile has no player).
    TilePlaced {
        /// Who placed it.
        player: Option<u8>,
        /// Its kind.
        tile: TileId,
        /// Its index among placed tiles.
        index: u16,
        /// The square.
        pos: Pos,
        /// The rotation.
        rotation: Rotation,
    },
    /// A figure went onto the board.
    FigurePlaced {
        /// The figure.
        figure: FigureId,
        /// Its owner.
        player: u8,
        /// Its kind.
        kind: FigureKindId,
        /// Where it went.
        at: Location,
    },
    /// A figure moved on the board.
    FigureMoved {
        /// The figure.
        figure: FigureId,
        /// Where it was.
        from: Location,
        /// Where it is now.
        to: Location,
    },
    /// A figure went back to its owner's supply.
    FigureReturned {
        /// The figure.
        figure: FigureId,
        /// Its owner.
        player: u8,
        /// Its kind.
        kind: FigureKindId,
        /// Where it was.
        from: Location,
    },
    /// A figure's face changed.
    FigureTurned {
        /// The figure.
        figure: FigureId,
        /// The face now up.
        face: u8,
    },
    /// A feature was completed by the player who placed the last tile.
    FeatureCompleted {
        /// The feature (its root segment).
        feature: SegId,
        /// Its kind.
        kind: SegmentKind,
        /// The player who completed it.
        completer: u8,
    },
    /// A feature was scored, during the game or at its end.
    FeatureScored {
        /// The feature (its root segment).
        feature: SegId,
        /// Its kind.
        kind: SegmentKind,
        /// Completed (during play) or incomplete (final scoring).
        completed: bool,
        /// Points per player who scored (players with most strength, after modifiers).
        points: Vec<(u8, i32)>,
    },
    /// Points added by an expansion.
    PointsAdded {
        /// Who scored.
        player: u8,
        /// How many.
        points: i32,
        /// Index of the score category.
        category: u16,
    },
    /// A player's tokens changed.
    TokensChanged {
        /// Whose.
        player: u8,
        /// Index of the token kind.
        token: u16,
        /// By how many.
        delta: i32,
    },
    /// An expansion asked a player to decide.
    DecisionRequested {
        /// Who decides.
        player: u8,
        /// The expansion asking (index in the ruleset, as `Log`'s): two may ask questions of
        /// one kind.
        expansion: u16,
        /// The expansion's name for the question.
        // Boxed: with `about` beside it, a `String` would make every event a word larger.
        kind: Box<str>,
        /// What the question is about, when the expansion said (the pending decision has it
        /// too): a UI can point at the figure or feature as the question comes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        about: Option<Target>,
    },
    /// A decision was answered.
    DecisionMade {
        /// Who decided.
        player: u8,
        /// The chosen option.
        option: u16,
    },
    /// A message from an expansion.
    Log {
        /// Index of the expansion.
        expansion: u16,
        /// The message.
        message: String,
    },
    /// A part of a turn ended and another part of the same turn follows (a builder's double
    /// turn). The last part of a turn ends with `TurnEnd` alone.
    TurnPartEnd {
        /// Whose turn.
        player: u8,
        /// The turn number (from 1).
        turn: u32,
        /// The part that ended (from 1).
        part: u8,
    },
    /// A turn ended.
    TurnEnd {
        /// Whose turn.
        player: u8,
        /// The turn number.
        turn: u32,
    },
    /// No tile is left and the last turn is over: the final scoring begins (unfinished features,
    /// then the expansions' `final_scoring`). Everything until `GameEnd` belongs to it.
    FinalScoring,
    /// The last tile was played and the final scoring is done.
    GameEnd,
}

#[cfg(test)]
mod tests {
    /// Every action pushes, moves and drops events: a larger one cost the base game 1 % of its
    /// instructions (`docs/performance.md`, "Events that say what a question is about").
    #[test]
    fn an_event_takes_four_words() {
        assert_eq!(std::mem::size_of::<super::Event>(), 32);
    }
}
