//! Why an action is refused: the message of [`ActionError::Illegal`](super::ActionError), and
//! the part of the action it is about.
//!
//! `Game::is_legal` answers yes or no as cheaply as it can; only a refused action comes here,
//! so these checks may walk the rules again to name the first thing that stands in its way.

use super::Game;
use crate::action::Action;
use crate::describe::a;
use crate::features::SegId;
use crate::figures::{FigureKindId, Placement as FigurePlacement};
use crate::geometry::{Pos, Rotation, Side};
use crate::rules::{TileId, side_code};
use crate::state::Stage;

/// Why an action is refused, and which of its fields that is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The field at fault, or the action as a whole.
    pub part: Part,
    /// Why, in words (the message of [`super::ActionError::Illegal`]).
    pub why: String,
}

/// The part of an action a refusal is about: a field naming something the game does not have
/// or that may not be used so, or the action as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The action as a whole (not now, not here).
    Whole,
    /// `option` of a `choose`.
    Option,
    /// `figure` of a `place-figure`.
    Figure,
    /// `segment` of a `place-figure`.
    Segment,
    /// `with` of a `place-figure`.
    With,
    /// `expansion` of an expansion's action.
    Expansion,
}

impl Part {
    /// The field's name in the action, as serialized (`None` for the whole action).
    pub fn field(self) -> Option<&'static str> {
        match self {
            Part::Whole => None,
            Part::Option => Some("option"),
            Part::Figure => Some("figure"),
            Part::Segment => Some("segment"),
            Part::With => Some("with"),
            Part::Expansion => Some("expansion"),
        }
    }
}

/// A refusal of the action as a whole.
fn whole(why: impl Into<String>) -> Refusal {
    Refusal { part: Part::Whole, why: why.into() }
}

impl Game {
    /// Why `action` would be refused now, or `None` when it is legal.
    pub fn refusal(&self, action: &Action) -> Option<Refusal> {
        if self.is_over() {
            return Some(whole("the game is over"));
        }
        (!self.is_legal(action)).then(|| self.refused(action))
    }

    /// Says why `action` is not legal now (it is not).
    pub(super) fn refused(&self, action: &Action) -> Refusal {
        let st = &self.state;
        // An expansion the ruleset lacks is named at any moment: no stage would take its action.
        if let Action::Expansion { expansion, code, .. } = action
            && *expansion as usize >= self.rules.expansions().len()
        {
            return self.why_no_offer(*expansion, *code);
        }
        if let Some(d) = st.pending.first() {
            let last = d.options.len().saturating_sub(1);
            if let Action::Choose { option } = action {
                let why = format!("option {option} is out of range: `{}` has options 0 to {last}", d.kind);
                return Refusal { part: Part::Option, why };
            }
            return whole(format!("seat {} must first answer `{}` (options 0 to {last})", d.player, d.kind));
        }
        match (st.turn.stage, action) {
            (Stage::PlaceTile, Action::PlaceTile { pos, rotation }) => {
                let at = format!("the drawn tile cannot be placed at {pos} with rotation {}", rotation.quarter_turns());
                whole(format!("{at}: {}", self.why_tile_cannot_go(*pos, *rotation)))
            }
            (Stage::PlaceTile, Action::Choose { .. }) => {
                whole("no decision is pending: the drawn tile is to be placed")
            }
            (Stage::PlaceTile, _) => whole("the drawn tile must be placed first"),
            (Stage::Figure, Action::PlaceTile { .. }) => whole("the tile is already placed; place a figure or pass"),
            (Stage::Figure, Action::Choose { .. }) => whole("no decision is pending"),
            (Stage::Figure, Action::PlaceFigure { figure, segment, with }) => {
                self.why_figure_cannot_stand(*figure, *segment, *with)
            }
            (Stage::Figure, Action::Expansion { expansion, code, .. }) => self.why_no_offer(*expansion, *code),
            (Stage::Figure, Action::Pass) => whole("passing is not possible here"),
            _ => whole("no action is expected now"),
        }
    }

    /// Why the drawn tile may not go at `pos` turned by `rotation`: the square, the sides that
    /// would meet sides of another kind, or else an expansion's veto.
    fn why_tile_cannot_go(&self, pos: Pos, rotation: Rotation) -> String {
        let board = &self.state.board;
        if board.at(pos).is_some() {
            return format!("{pos} already holds a tile");
        }
        let Some(drawn) = self.state.turn.tile else { return "no tile is drawn".to_string() };
        if board.tiles().is_empty() && pos != Pos::new(0, 0) {
            return "the first tile is placed at (0, 0)".to_string();
        }
        // The side of a tile turned by `r` that faces `toward` is its own side turned back.
        let showing =
            |tile: TileId, r: Rotation, toward: Side| self.rules.tile(tile).def.side(toward.rotated(r.inverse()));
        let mut touches = false;
        let mut clashes = Vec::new();
        for side in Side::ALL {
            let Some(other) = board.at(pos.step(side)) else { continue };
            touches = true;
            let (mine, theirs) = (showing(drawn, rotation, side), showing(other.tile, other.rotation, side.opposite()));
            if side_code(mine) != side_code(theirs) {
                let (mine, theirs) = (mine.segment_kind().name(), theirs.segment_kind().name());
                let toward = ["north", "east", "south", "west"][side.index()];
                let other = pos.step(side);
                clashes.push(format!(
                    "its {toward} side ({mine}) would meet {} {theirs} side of the tile at {other}",
                    a(theirs)
                ));
            }
        }
        match (touches || board.tiles().is_empty(), clashes.is_empty()) {
            (false, _) => format!("{pos} is not next to a placed tile"),
            (true, false) => clashes.join("; "),
            // The sides agree: what refuses it is a rule of the ruleset's expansions.
            (true, true) => "its sides fit, but an expansion's rule forbids it there (`can_place_tile`)".to_string(),
        }
    }

    /// Why an expansion's action is not on offer: no such expansion, or none of its offers.
    fn why_no_offer(&self, expansion: u16, code: u32) -> Refusal {
        let Some(x) = self.rules.expansions().get(expansion as usize) else {
            let why = format!("no expansion {expansion}: this ruleset has {}", self.rules.expansions().len());
            return Refusal { part: Part::Expansion, why };
        };
        let offers = &self.state.turn.offers;
        if offers.is_empty() {
            return whole("no expansion offers an action now");
        }
        // The open ones, as they would be taken: a script's author sees what it did offer.
        const SHOWN: usize = 5;
        let mut open: Vec<String> = (offers.iter().take(SHOWN))
            .map(|(e, o)| {
                let id = self.rules.expansions()[*e as usize].id();
                let at = self.describe(&Action::Expansion { expansion: *e, code: o.code, target: o.target });
                let words = match at {
                    crate::describe::ActionInfo::Expansion { at, .. } if !at.is_empty() => format!("{} {at}", o.label),
                    _ => o.label.to_string(),
                };
                format!("action {} of `{id}` ({words})", o.code)
            })
            .collect();
        if offers.len() > SHOWN {
            open.push(format!("and {} more", offers.len() - SHOWN));
        }
        let open = open.join("; ");
        whole(format!("`{}` offers no action {code} on that target now (open: {open})", x.id()))
    }

    /// The first rule a figure placement breaks, or `None` when it is legal: the one statement
    /// of the rules of a `place-figure`. `is_legal` asks only whether there is one (no message
    /// is made there); a refusal says it in words ([`Game::why_figure_cannot_stand`]).
    /// `figure_actions_into` lists the placements these rules allow, and a test ties the two.
    pub(super) fn figure_fault(&self, figure: FigureKindId, segment: u8, with: Option<FigureKindId>) -> Option<Fault> {
        let st = &self.state;
        let kinds = self.rules.figures();
        let Some(kind) = kinds.get(figure as usize) else { return Some(Fault::NoSuchKind(Part::Figure, figure)) };
        let Some(ti) = st.turn.placed else { return Some(Fault::NoTilePlaced) };
        let placed = st.board.tile(ti);
        let Some(seg) = self.rules.tile(placed.tile).def.segments.get(segment as usize) else {
            return Some(Fault::NoSuchSegment);
        };
        let sid = placed.first_segment + segment as SegId;
        let player = st.turn.player;
        let cannot_stand = |k: FigureKindId, part: Part| {
            if !self.rules.figure(k).may_stand_on(seg.kind) {
                Some(Fault::CannotStand(part, k))
            } else if st.supply(player, k) == 0 {
                Some(Fault::NoneLeft(part, k))
            } else {
                None
            }
        };
        // A kind never placed alone is told so before where it could stand.
        match kind.placement {
            FigurePlacement::WithFollower => return Some(Fault::OnlyWithFollower),
            FigurePlacement::ByExpansion => return Some(Fault::ByExpansion),
            FigurePlacement::Unoccupied | FigurePlacement::JoinsOwnFollower => {}
        }
        if let Some(fault) = cannot_stand(figure, Part::Whole) {
            return Some(fault);
        }
        if !self.still_open(figure) {
            return Some(Fault::TurnTaken);
        }
        if kind.placement == FigurePlacement::JoinsOwnFollower {
            return match with {
                None => (!self.has_own_follower(sid, player)).then_some(Fault::NoOwnFollower),
                Some(_) => Some(Fault::PlacedAlone),
            };
        }
        // Placed on an unoccupied feature, perhaps with a figure that comes with it.
        if st.features.data(sid).followers > 0 {
            return Some(Fault::Occupied);
        }
        // Alone on an unoccupied feature is legal: no fault.
        let w = with?;
        match kinds.get(w as usize) {
            None => Some(Fault::NoSuchKind(Part::With, w)),
            Some(wk) if wk.placement != FigurePlacement::WithFollower => Some(Fault::NotWithFollower(w)),
            Some(_) => cannot_stand(w, Part::With),
        }
    }

    /// The first rule a figure placement breaks, in words, with the part of the action it is about.
    fn why_figure_cannot_stand(&self, figure: FigureKindId, segment: u8, with: Option<FigureKindId>) -> Refusal {
        let Some(fault) = self.figure_fault(figure, segment, with) else {
            return whole("that figure placement is not possible here");
        };
        let st = &self.state;
        let kinds = self.rules.figures();
        let player = st.turn.player;
        let id = |k: FigureKindId| kinds[k as usize].id.as_str();
        // "a `meeple`", "an `abbot:abbot`": the kind refused, as the messages name it.
        let named = |k: FigureKindId| format!("{} `{}`", a(id(k)), id(k));
        // The faults past the first three know the tile and the segment exist.
        let placed = st.turn.placed.map(|ti| st.board.tile(ti).tile);
        let segments = placed.map_or(&[][..], |t| &self.rules.tile(t).def.segments[..]);
        let on = || format!("segment {segment} (a {})", segments[segment as usize].kind.name());
        let (part, why) = match fault {
            Fault::NoSuchKind(part, k) => (part, no_such_kind(kinds.iter().map(|k| k.id.as_str()), k)),
            Fault::NoTilePlaced => (Part::Whole, "no tile was placed this turn".to_string()),
            Fault::NoSuchSegment => {
                let last = segments.len().saturating_sub(1);
                (Part::Segment, format!("the placed tile has segments 0 to {last}, not {segment}"))
            }
            Fault::CannotStand(part, k) => (part, format!("{} cannot stand on {}", named(k), on())),
            Fault::NoneLeft(part, k) => (part, format!("seat {player} has no `{}` left in supply", id(k))),
            Fault::TurnTaken => (
                Part::Whole,
                "an action instead of a meeple was taken this turn: only a figure that joins an own follower, each \
                 kind once, may still be placed"
                    .to_string(),
            ),
            Fault::Occupied => (Part::Whole, format!("the feature of {} already holds a follower", on())),
            Fault::NotWithFollower(w) => {
                (Part::With, format!("`{}` is not placed together with a follower, so it cannot be `with`", id(w)))
            }
            Fault::NoOwnFollower => {
                (Part::Whole, format!("{} needs a follower of seat {player} on the feature of {}", named(figure), on()))
            }
            Fault::PlacedAlone => (
                Part::With,
                format!("{} is placed alone: `with` goes with a follower placed in the same action", named(figure)),
            ),
            Fault::OnlyWithFollower => (
                Part::Figure,
                format!("{} comes only together with a follower: name it in that follower's `with`", named(figure)),
            ),
            Fault::ByExpansion => (Part::Figure, format!("{} is placed only by its expansion's rules", named(figure))),
        };
        Refusal { part, why }
    }
}

/// The first rule a figure placement breaks ([`Game::figure_fault`]): small and without words,
/// so that checking an action makes no message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// The ruleset has no figure kind of that number (in the part named).
    NoSuchKind(Part, FigureKindId),
    /// No tile was placed this turn.
    NoTilePlaced,
    /// The placed tile has no segment of that number.
    NoSuchSegment,
    /// The kind (in the part named) may not stand on the segment's feature kind.
    CannotStand(Part, FigureKindId),
    /// The player has none of the kind (in the part named) in supply.
    NoneLeft(Part, FigureKindId),
    /// An action instead of a meeple was taken, and the kind is not one that may still follow.
    TurnTaken,
    /// The feature already holds a follower.
    Occupied,
    /// The `with` kind is not one placed together with a follower.
    NotWithFollower(FigureKindId),
    /// The kind joins an own follower, and the player has none on the feature.
    NoOwnFollower,
    /// The kind joins an own follower, so it takes no `with`.
    PlacedAlone,
    /// The kind comes only as another figure's `with`.
    OnlyWithFollower,
    /// The kind is placed only by its expansion's commands.
    ByExpansion,
}

/// "no figure kind 9: this ruleset has 0 `meeple`, 1 `abbot:abbot`".
fn no_such_kind<'a>(ids: impl Iterator<Item = &'a str>, kind: FigureKindId) -> String {
    let list: Vec<String> = ids.enumerate().map(|(i, id)| format!("{i} `{id}`")).collect();
    format!("no figure kind {kind}: this ruleset has {}", list.join(", "))
}

#[cfg(test)]
mod tests {
    use crate::Setup;
    use crate::action::Action;
    use crate::bots::{Bot, RandomBot};
    use crate::figures::MEEPLE;
    use crate::game::{ActionError, Game, Part};
    use crate::rules::Rules;
    use crate::state::Stage;
    use crate::tileset::Tileset;
    use std::sync::Arc;

    fn refusal(game: &mut Game, action: Action) -> String {
        match game.apply(action) {
            Err(ActionError::Illegal(why)) => why,
            other => panic!("{action:?} was not refused as illegal: {other:?}"),
        }
    }

    /// Every meeple placement the rules refuse in a random game is refused for its real reason.
    #[test]
    fn a_refused_figure_placement_names_what_stands_in_its_way() {
        let tileset = Tileset::parse("base.toml", include_str!("../../../../tilesets/base.toml")).unwrap();
        let rules = Arc::new(Rules::base(&tileset, "C3").unwrap());
        let mut game = Game::new(rules, Setup::players(2, 7)).unwrap();
        let mut bot = RandomBot::new(5);
        let (mut occupied, mut empty_supply, mut no_stand) = (0, 0, 0);
        while !game.is_over() {
            if game.state().turn.stage == Stage::Figure {
                let nothing = Action::PlaceFigure { figure: 99, segment: 0, with: None };
                assert_eq!(refusal(&mut game, nothing), "no figure kind 99: this ruleset has 0 `meeple`");
                assert_eq!(game.refusal(&nothing).map(|r| r.part), Some(Part::Figure));
                let far = Action::PlaceFigure { figure: MEEPLE, segment: 40, with: None };
                assert!(refusal(&mut game, far).starts_with("the placed tile has segments 0 to "));
                assert_eq!(game.refusal(&far).map(|r| r.part), Some(Part::Segment));
                let both = Action::PlaceFigure { figure: MEEPLE, segment: 40, with: Some(99) };
                assert_eq!(game.refusal(&both).map(|r| r.part), Some(Part::Segment), "the first fault only");
                assert_eq!(game.refusal(&Action::Pass), None);
                let legal = game.legal_actions();
                let placed = game.state().board().tile(game.state().turn.placed.unwrap()).tile;
                let segments = game.rules().tile(placed).def.segments.len() as u8;
                let player = game.state().turn.player;
                for segment in 0..segments {
                    let meeple = Action::PlaceFigure { figure: MEEPLE, segment, with: None };
                    if legal.contains(&meeple) {
                        continue;
                    }
                    let why = refusal(&mut game, meeple);
                    let kind = game.rules().tile(placed).def.segments[segment as usize].kind;
                    if !game.rules().figure(MEEPLE).may_stand_on(kind) {
                        assert_eq!(why, format!("a `meeple` cannot stand on segment {segment} (a {})", kind.name()));
                        no_stand += 1;
                    } else if game.state().supply(player, MEEPLE) == 0 {
                        assert_eq!(why, format!("seat {player} has no `meeple` left in supply"));
                        empty_supply += 1;
                    } else {
                        assert!(why.starts_with(&format!("the feature of segment {segment} (a ")), "{why}");
                        assert!(why.ends_with(") already holds a follower"), "{why}");
                        occupied += 1;
                    }
                }
            }
            let action = bot.choose(&game);
            game.apply(action).unwrap();
        }
        assert!(occupied * empty_supply * no_stand > 0, "each reason seen: {occupied}, {empty_supply}, {no_stand}");
    }
}
