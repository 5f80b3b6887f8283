//! `commander`: gives one bad command that only the core refuses (the Luau API refuses the
//! others at the call), chosen by its `case` option. Its manifest is
//! `tests/mods/commander/expansion.toml`.
//!
//! - `set-score`: `set_score` when a tile is placed, outside `modify_score`;
//! - `ask-in-setup`: a decision asked during setup;
//! - `ask-forever`: a decision asked when a tile is placed, and asked again at every answer;
//! - `face-of-nobody`, `move-nobody`: a figure that does not exist turned or moved;
//! - `move-off-limits`: its roadman, which stands on roads only, put on the start tile's road at
//!   the first tile and moved into the start tile's city at the second.

use meeple_core::{
    Command, Commands, Decision, Event, Expansion, HookKind, HookResult, HookSet, Pos, Target, Value, View,
};
use std::collections::BTreeMap;

/// The expansion with the case it plays.
pub struct Commander {
    case: String,
}

impl Commander {
    /// Reads the `case` option.
    pub fn new(options: &BTreeMap<String, Value>) -> Commander {
        let case = options.get("case").and_then(Value::as_str).unwrap_or("set-score");
        Commander { case: case.to_string() }
    }

    /// The roadman onto the start tile's road (segment 1) if it is in the supply, else from
    /// there into the start tile's city (segment 0), where it may not stand.
    fn roadman_to_the_city(view: &View<'_>) -> Command {
        let kind = view.rules().figure_named_by("commander", "roadman").expect("the manifest declares it");
        let on_board = view.figures_of_kind(kind).into_iter().find(|(_, f)| !f.in_supply());
        match on_board {
            None => Command::PlaceFigure {
                player: 0,
                kind: "roadman".into(),
                at: Target::Segment { pos: Pos::new(0, 0), segment: 1 },
            },
            Some((figure, _)) => {
                Command::MoveFigure { figure, to: Target::Segment { pos: Pos::new(0, 0), segment: 0 } }
            }
        }
    }

    fn ask() -> Command {
        Command::ask(0, "again", vec!["yes".into()], Value::Null)
    }
}

impl Expansion for Commander {
    fn id(&self) -> &str {
        "commander"
    }

    fn hooks(&self) -> HookSet {
        HookSet::of(&[HookKind::Setup, HookKind::TilePlaced, HookKind::OnDecision])
    }

    fn setup(&self, _view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        if self.case == "ask-in-setup" {
            out.push(Commander::ask());
        }
        Ok(())
    }

    fn on_event(&self, view: &View<'_>, event: &Event, out: &mut Commands<'_>) -> HookResult {
        let Event::TilePlaced { player: Some(_), .. } = event else { return Ok(()) };
        let start = Target::Segment { pos: Pos::new(0, 0), segment: 0 };
        if self.case == "move-off-limits" {
            out.push(Commander::roadman_to_the_city(view));
            return Ok(());
        }
        if self.case == "zero-points" {
            out.push(Command::AddPoints { player: 1, points: 2, category: "commander".into() });
        }
        out.push(match self.case.as_str() {
            "set-score" => Command::SetScore { player: 0, points: 1 },
            "ask-forever" => Commander::ask(),
            "face-of-nobody" => Command::SetFigureFace { figure: 999, face: 1 },
            "move-nobody" => Command::MoveFigure { figure: 999, to: start },
            "zero-points" => Command::AddPoints { player: 0, points: 0, category: "commander".into() },
            _ => return Ok(()),
        });
        Ok(())
    }

    fn on_decision(&self, _view: &View<'_>, _d: &Decision, _option: u16, out: &mut Commands<'_>) -> HookResult {
        out.push(Commander::ask());
        Ok(())
    }
}
