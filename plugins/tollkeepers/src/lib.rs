//! The Tollkeepers (C2, C3) as a native plugin (shared/rules/tollkeepers.md).
//!
//! - **Tollhouse**: in the figure phase, instead of a meeple, a player may place the tollhouse
//!   (showing 1) on any free intersection of the board, or move it there keeping its face. It
//!   never leaves the board. Offers: code [`PLACE`] or [`MOVE`], on the village's point.
//! - **Toll**: when anybody completes a road that ends at the intersection of a tollhouse, its
//!   owner scores the face (1 or 2) per farmhouse, stable, garden and highwaymen beside the road,
//!   and three times the face per traveller group. A tollhouse that collected from travellers
//!   turns over at the end of the turn (or of its owner's turn: option `flip`); tolls taken
//!   during a turn all use the face shown at its start. A road looping through the village of
//!   a tollhouse pays it once (or once per end: option `loop_toll`). In a builder's double turn
//!   the tollhouse may act in each part (or once: option `tollhouse_once_a_turn`).
//! - **Final scoring**: 1 per picture and per traveller group beside every unfinished road that
//!   ends at a tollhouse, whatever its face.
//!
//! Everything the plugin needs between calls is in the game: the tollhouse figures, and the
//! intersections and pending flips in its storage ([`ledger`]).

mod ledger;
mod roads;

use ledger::{House, Houses, Village};
use meeple_plugin_sdk::meeple_core::action::{Offer, Target};
use meeple_plugin_sdk::meeple_core::figures::{FigureKindId, Location};
use meeple_plugin_sdk::meeple_core::game::MAX_PLAYERS;
use meeple_plugin_sdk::meeple_core::{
    Command, Commands, Event, Expansion, HookError, HookKind, HookResult, HookSet, Interest, Pos, Rules, SegmentKind,
    TileId, View,
};
use meeple_plugin_sdk::{Settings, declare_plugin};
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

/// Offer code: place the tollhouse from the supply.
pub const PLACE: u32 = 1;
/// Offer code: move the tollhouse already on the board.
pub const MOVE: u32 = 2;

const ID: &str = "tollkeepers";
const TOLLHOUSE: &str = "tollkeepers:tollhouse";

/// When a tollhouse that collected from travellers turns over (ambiguities K1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flip {
    /// At the end of the turn in which it collected, whoever's turn it is (the official example).
    EndOfTurn,
    /// At the end of its owner's turn (the rule's wording, "at the end of your turn").
    OwnerTurn,
}

/// How often a road whose two ends are at the same tollhouse pays it (ambiguities K7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopToll {
    /// Once: it is one road (the default).
    Once,
    /// Once per end, as "each tollhouse at an end of the road" read end by end.
    Twice,
}

struct Tollkeepers {
    flip: Flip,
    loop_toll: LoopToll,
    /// The tollhouse placed or moved at most once a turn, though a builder's double turn has
    /// two figure phases (ambiguities U14; by default once in each).
    once_a_turn: bool,
    /// The tollhouse's figure kind, found at the first call (an instance plays one ruleset).
    kind: OnceLock<FigureKindId>,
    /// The labels of the offers, made once.
    labels: OnceLock<[Arc<str>; 2]>,
}

impl Tollkeepers {
    fn new(settings: &Settings) -> Result<Tollkeepers, String> {
        let flip = match settings.options.get("flip").and_then(|v| v.as_str()) {
            None | Some("end-of-turn") => Flip::EndOfTurn,
            Some("owner-turn") => Flip::OwnerTurn,
            Some(other) => return Err(format!("option flip: unknown value `{other}`")),
        };
        let loop_toll = match settings.options.get("loop_toll").and_then(|v| v.as_str()) {
            None | Some("once") => LoopToll::Once,
            Some("twice") => LoopToll::Twice,
            Some(other) => return Err(format!("option loop_toll: unknown value `{other}`")),
        };
        let once_a_turn = match settings.options.get("tollhouse_once_a_turn") {
            None => false,
            Some(v) => v.as_bool().ok_or("option tollhouse_once_a_turn: expected true or false")?,
        };
        Ok(Tollkeepers { flip, loop_toll, once_a_turn, kind: OnceLock::new(), labels: OnceLock::new() })
    }

    /// A tile with intersections adds them to the ledger.
    fn tile_placed(&self, view: &View<'_>, tile: u16, index: u16, pos: Pos, out: &mut Commands<'_>) {
        let def = &view.rules().tile(tile).def;
        let points = roads::intersections(def);
        if points.is_empty() {
            return;
        }
        let new: Vec<Village> = points.into_iter().map(|point| Village { tile: index, pos, point }).collect();
        ledger::add_villages(view, &new, out);
    }

    /// The toll of a completed road, for every tollhouse at one of its ends.
    fn road_completed(&self, view: &View<'_>, feature: u16, out: &mut Commands<'_>) {
        let houses = Houses::read(view, self.kind(view));
        if houses.none_placed() {
            return;
        }
        let parts = view.feature_parts(feature);
        let ends = roads::village_ends(view.rules(), &parts);
        // One toll per end, in player order; a loop's two ends at one tollhouse pay once unless
        // the option says otherwise. Two tollhouses at the two ends each collect (K8).
        let mut tolled: Vec<(u8, House)> = ends.iter().filter_map(|&(t, p)| houses.at(t, p)).collect();
        if tolled.is_empty() {
            return;
        }
        tolled.sort();
        if self.loop_toll == LoopToll::Once {
            tolled.dedup();
        }
        let beside = roads::beside(view.rules(), &parts);
        let mut flips = ledger::flips(view);
        let flipped = flips.len();
        for (player, house) in tolled {
            let face = house.face as i32;
            let points = face * beside.pictures as i32 + 3 * face * beside.travellers as i32;
            if points > 0 {
                out.push(Command::Log { message: toll_counted(view, player, house.face, &beside) });
                out.push(Command::AddPoints { player, points, category: ID.into() });
            }
            if beside.travellers > 0 && !flips.contains(&player) {
                flips.push(player);
            }
        }
        if flips.len() != flipped {
            ledger::set_flips(&flips, out);
        }
    }

    /// Turns over the tollhouses due at the end of this turn.
    fn turn_end(&self, view: &View<'_>, player: u8, out: &mut Commands<'_>) {
        let mut flips = ledger::flips(view);
        let due = |p: &u8| self.flip == Flip::EndOfTurn || *p == player;
        if !flips.iter().any(due) {
            return;
        }
        let houses = Houses::read(view, self.kind(view));
        for &p in flips.iter().filter(|p| due(p)) {
            if let Some(house) = houses.0[p as usize] {
                out.push(Command::SetFigureFace { figure: house.figure, face: 3 - house.face });
            }
        }
        flips.retain(|p| !due(p));
        ledger::set_flips(&flips, out);
    }

    /// The tollhouse's figure kind (the manifest declares it).
    fn kind(&self, view: &View<'_>) -> FigureKindId {
        *self.kind.get_or_init(|| view.rules().figure_by_name(TOLLHOUSE).expect("the manifest declares the tollhouse"))
    }
}

impl Expansion for Tollkeepers {
    fn id(&self) -> &str {
        ID
    }

    fn hooks(&self) -> HookSet {
        [
            HookKind::TilePlaced,
            HookKind::FigureActions,
            HookKind::OnAction,
            HookKind::FeatureCompleted,
            HookKind::TurnEnd,
            HookKind::FinalScoring,
        ]
        .into_iter()
        .fold(HookSet::NONE, |s, h| s.with(h))
    }

    /// Only the tiles with intersections, completed roads once a tollhouse stands, turn ends
    /// with a tollhouse to turn over, and figure phases once an intersection is on the board:
    /// every other call does nothing.
    fn interest(&self, rules: &Rules) -> Interest {
        let tiles = (0..rules.tiles().len() as TileId)
            .filter(|&t| !roads::intersections(&rules.tile(t).def).is_empty())
            .collect();
        Interest {
            tiles: Some(tiles),
            features: vec![(HookKind::FeatureCompleted, vec![SegmentKind::Road])],
            when_stored: vec![
                (HookKind::TurnEnd, vec![ledger::FLIPS.into()]),
                (HookKind::FigureActions, vec![ledger::VILLAGES.into()]),
            ],
            // A road completed before any tollhouse stands pays no toll.
            when_on_board: rules
                .figure_by_name(TOLLHOUSE)
                .map(|kind| vec![(HookKind::FeatureCompleted, vec![kind])])
                .unwrap_or_default(),
        }
    }

    fn on_event(&self, view: &View<'_>, event: &Event, out: &mut Commands<'_>) -> HookResult {
        match *event {
            Event::TilePlaced { tile, index, pos, .. } => self.tile_placed(view, tile, index, pos, out),
            Event::FeatureCompleted { feature, kind: SegmentKind::Road, .. } => self.road_completed(view, feature, out),
            Event::TurnEnd { player, .. } => self.turn_end(view, player, out),
            _ => {}
        }
        Ok(())
    }

    /// Every free intersection, as a place for the player's tollhouse.
    fn figure_actions(&self, view: &View<'_>, offers: &mut Vec<Offer>) -> HookResult {
        let villages = ledger::villages(view);
        if villages.is_empty() {
            return Ok(());
        }
        if self.once_a_turn && ledger::acted_this_turn(view) {
            return Ok(());
        }
        let houses = Houses::read(view, self.kind(view));
        let player = view.turn().player;
        let [place, move_to] =
            self.labels.get_or_init(|| ["place the tollhouse on".into(), "move the tollhouse to".into()]);
        let (code, label) = match houses.0[player as usize] {
            Some(_) => (MOVE, move_to),
            None => (PLACE, place),
        };
        offers.reserve(villages.len());
        let (mut taken, mut n) = ([(0, 0); MAX_PLAYERS], 0);
        for h in houses.0.iter().flatten() {
            (taken[n], n) = ((h.tile, h.point), n + 1);
        }
        for v in villages.iter().filter(|v| !taken[..n].contains(&(v.tile, v.point))) {
            let target = Target::Point { pos: v.pos, point: v.point };
            offers.push(Offer { code, target, label: label.clone() });
        }
        Ok(())
    }

    /// Places or moves the tollhouse (the core lets only this turn's offers through).
    fn on_action(&self, view: &View<'_>, offer: &Offer, out: &mut Commands<'_>) -> HookResult {
        let player = view.turn().player;
        let (figure, tollhouse) = view
            .figures_of_kind(self.kind(view))
            .into_iter()
            .find(|(_, f)| f.owner == player)
            .ok_or_else(|| HookError::here(ID, HookKind::OnAction, "this player has no tollhouse"))?;
        match (offer.code, tollhouse.at) {
            (PLACE, Location::Supply) => {
                out.push(Command::PlaceFigure { player, kind: TOLLHOUSE.into(), at: offer.target });
                out.push(Command::SetFigureFace { figure, face: 1 });
            }
            (MOVE, Location::Point { .. }) => out.push(Command::MoveFigure { figure, to: offer.target }),
            _ => return Err(HookError::here(ID, HookKind::OnAction, "this offer does not fit where the tollhouse is")),
        }
        if self.once_a_turn {
            ledger::set_acted(view, out);
        }
        Ok(())
    }

    /// 1 per picture and traveller group beside each unfinished road ending at a tollhouse.
    fn final_scoring(&self, view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        for (player, house) in Houses::read(view, self.kind(view)).0.iter().enumerate() {
            let Some(house) = house else { continue };
            let placed = view.placed(house.tile).expect("a tollhouse's tile");
            let def = &view.rules().tile(placed.tile).def;
            let mut roads = BTreeSet::new();
            for seg in roads::road_segments_at(def, house.point) {
                let feature = view.feature(placed.first_segment + seg as u16);
                if !feature.completed {
                    roads.insert(feature.id);
                }
            }
            let points: u32 = roads
                .into_iter()
                .map(|road| {
                    let b = roads::beside(view.rules(), &view.feature_parts(road));
                    b.pictures + b.travellers
                })
                .sum();
            if points > 0 {
                out.push(Command::AddPoints { player: player as u8, points: points as i32, category: ID.into() });
            }
        }
        Ok(())
    }
}

/// What a toll was counted from, for the log: the points alone do not say what stood beside
/// the road, nor the face that multiplied it.
fn toll_counted(view: &View<'_>, player: u8, face: u8, beside: &roads::Beside) -> String {
    let counted = |n: u32, one: &str, many: &str, each: u32| match n {
        0 => None,
        1 => Some(format!("1 {one} for {each}")),
        n => Some(format!("{n} {many} at {each} each")),
    };
    let face = u32::from(face);
    let parts: Vec<String> = [
        counted(beside.travellers, "traveller group", "traveller groups", 3 * face),
        counted(beside.pictures, "picture", "pictures", face),
    ]
    .into_iter()
    .flatten()
    .collect();
    format!("toll at {}'s tollhouse, face {face}: {}", view.player_name(player), parts.join(", "))
}

declare_plugin!("tollkeepers", "1.0.0", |settings: &Settings| Ok(Box::new(Tollkeepers::new(settings)?)));
