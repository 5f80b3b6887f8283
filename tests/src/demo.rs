//! `hook-demo`: a small expansion written in Rust that exercises the hook interface the way real
//! expansions do. Its manifest is `tests/mods/hook-demo/expansion.toml`.
//!
//! - `monastery_bonus`: completed monasteries score that many extra points;
//! - `tiny_city`: a completed city of two tiles scores 1 per tile and coat of arms (the old C1
//!   rule), replacing the city's score;
//! - `field_points`: points per completed city for fields, replacing the 3;
//! - the squire (manifest figure, strength 0) may only join a road or city holding one of its
//!   owner's meeples; when a later tile of its owner extends that feature, the owner plays a
//!   second part of the turn (once per turn);
//! - `ask_on_city`: when a city is completed, the next player clockwise from the completer is
//!   asked whether to take 1 point (a decision that is not the active player's);
//! - `fail_at_turn`: the `turn_end` hook fails on purpose at that turn (transactional `apply`);
//! - `tile_points`: whoever places a tile scores that many points (a large score in a few turns,
//!   for rules that depend on one).

use meeple_core::{
    Command, Commands, Decision, Event, Expansion, HookError, HookKind, HookResult, HookSet, Scoring, SegmentKind,
    Value, View,
};
use std::collections::BTreeMap;

/// The demo expansion with its options.
pub struct HookDemo {
    monastery_bonus: i32,
    tiny_city: bool,
    field_points: i32,
    ask_on_city: bool,
    fail_at_turn: u32,
    tile_points: i32,
}

impl HookDemo {
    /// Reads the options chosen in the game config.
    pub fn new(options: &BTreeMap<String, Value>) -> HookDemo {
        let int = |k: &str, d: i64| options.get(k).and_then(Value::as_int).unwrap_or(d) as i32;
        HookDemo {
            monastery_bonus: int("monastery_bonus", 0),
            tiny_city: options.get("tiny_city").and_then(Value::as_bool).unwrap_or(false),
            field_points: int("field_points", 3),
            ask_on_city: options.get("ask_on_city").and_then(Value::as_bool).unwrap_or(false),
            fail_at_turn: int("fail_at_turn", 0) as u32,
            tile_points: int("tile_points", 0),
        }
    }
}

impl Expansion for HookDemo {
    fn id(&self) -> &str {
        "hook-demo"
    }

    fn hooks(&self) -> HookSet {
        HookSet::of(&[
            HookKind::ModifyScore,
            HookKind::TilePlaced,
            HookKind::FeatureCompleted,
            HookKind::TurnEnd,
            HookKind::OnDecision,
        ])
    }

    fn modify_score(&self, _view: &View<'_>, s: &Scoring, out: &mut Commands<'_>) -> HookResult {
        for (player, &points) in s.points.iter().enumerate() {
            if points == 0 {
                continue;
            }
            let new = match s.kind {
                SegmentKind::Monastery if s.completed => points + self.monastery_bonus,
                SegmentKind::City if s.completed && s.tiles == 2 && self.tiny_city => (s.tiles + s.arms) as i32,
                SegmentKind::Field => self.field_points * s.cities.len() as i32,
                _ => continue,
            };
            out.push(Command::SetScore { player: player as u8, points: new });
        }
        Ok(())
    }

    fn on_decision(&self, _view: &View<'_>, d: &Decision, option: u16, out: &mut Commands<'_>) -> HookResult {
        if option == 0 {
            out.push(Command::AddPoints { player: d.player, points: 1, category: "hook-demo".into() });
        }
        Ok(())
    }

    fn on_event(&self, view: &View<'_>, event: &Event, out: &mut Commands<'_>) -> HookResult {
        match *event {
            Event::FeatureCompleted { kind: SegmentKind::City, completer, .. } if self.ask_on_city => {
                let player = (completer + 1) % view.players();
                out.push(Command::ask(
                    player,
                    "hook-demo:tip",
                    vec!["take 1 point".into(), "decline".into()],
                    Value::Null,
                ));
                Ok(())
            }
            Event::TurnEnd { turn, .. } if turn == self.fail_at_turn => {
                Err(HookError::new("hook-demo", HookKind::TurnEnd, format!("failing on purpose at turn {turn}")))
            }
            Event::TilePlaced { player: Some(player), .. } if self.tile_points > 0 => {
                out.push(Command::AddPoints { player, points: self.tile_points, category: "hook-demo".into() });
                self.squire_extends(view, event, out)
            }
            Event::TilePlaced { .. } => self.squire_extends(view, event, out),
            _ => Ok(()),
        }
    }
}

impl HookDemo {
    fn squire_extends(&self, view: &View<'_>, event: &Event, out: &mut Commands<'_>) -> HookResult {
        let Event::TilePlaced { player: Some(player), index, tile, .. } = *event else { return Ok(()) };
        if view.turn().part != 1 {
            return Ok(());
        }
        let squire = view.rules().figure_by_name("hook-demo:squire");
        let first = view.placed(index).expect("the placed tile").first_segment;
        let segments = &view.rules().tile(tile).def.segments;
        let extends_own_squire = segments.iter().enumerate().any(|(i, seg)| {
            matches!(seg.kind, SegmentKind::Road | SegmentKind::City)
                && view.figures_on(first + i as u16).iter().any(|(_, f)| Some(f.kind) == squire && f.owner == player)
        });
        if extends_own_squire {
            out.push(Command::ExtraTurnPart);
            out.push(Command::Log { message: "the squire grants a second part of the turn".into() });
        }
        Ok(())
    }
}
