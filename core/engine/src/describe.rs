//! Actions described for people and for clients that do not know the rules: which tile, which
//! feature, which ports on the board.

use crate::action::{Action, Decision, Target};
use crate::expansion::Command;
use crate::figures::Location;
use crate::game::Game;
use crate::geometry::{Pos, Rotation};
use crate::tileset::{SegmentKind, SideLetters};
use serde::Serialize;
use std::sync::Arc;

/// An action with everything a client needs to show it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ActionInfo {
    /// Place the drawn tile.
    PlaceTile {
        /// `tileset:tile`.
        tile: Arc<str>,
        /// The square.
        pos: Pos,
        /// Quarter turns clockwise.
        rotation: Rotation,
        /// The tile's sides on the board after turning, N E S W (e.g. `RCRF`).
        sides: SideLetters,
    },
    /// Place a figure on the tile just placed.
    PlaceFigure {
        /// The figure kind's id.
        figure: String,
        /// A figure assigned to it in the same action.
        with: Option<String>,
        /// What players call the figure's kind, for the text (the ids are for programs).
        #[serde(skip)]
        figure_name: String,
        /// What players call the kind of the figure placed with it.
        #[serde(skip)]
        with_name: Option<String>,
        /// Where the tile stands.
        pos: Pos,
        /// The segment's id in the tileset.
        segment: String,
        /// What the segment is part of.
        feature: SegmentKind,
        /// The ports the segment covers, as seen on the board.
        ports: Vec<String>,
    },
    /// An expansion's action.
    Expansion {
        /// The expansion's id.
        expansion: String,
        /// What players call it, for the text.
        #[serde(skip)]
        name: String,
        /// What it does, as the expansion says it (e.g. `move the tollhouse to`).
        label: String,
        /// What it applies to.
        target: Target,
        /// The target for people (e.g. `the village at (2, 1)`); empty without a target.
        at: String,
    },
    /// Place nothing.
    Pass,
    /// Answer a decision.
    Choose {
        /// The question.
        decision: String,
        /// The answer.
        option: String,
        /// What the question is about, for people (`Ann's meeple on the field at (1, 2)`);
        /// empty when the expansion does not say.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        about: String,
    },
}

impl std::fmt::Display for ActionInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // No tile drawn: a refused action, told without one.
            ActionInfo::PlaceTile { tile, pos, rotation, .. } if tile.is_empty() => {
                write!(f, "place a tile at ({}, {}) turned {}°", pos.x, pos.y, rotation.quarter_turns() as u32 * 90)
            }
            ActionInfo::PlaceTile { tile, pos, rotation, sides } => {
                // Strings written as they are rather than through `{}`: a state describes every
                // placement, and the formatting machinery cost more than the text.
                f.write_str("place ")?;
                f.write_str(tile)?;
                write!(f, " at ({}, {}) turned {}° (", pos.x, pos.y, rotation.quarter_turns() as u32 * 90)?;
                f.write_str(sides.as_str())?;
                f.write_str(")")
            }
            // Named by the board's sides it covers: the segment's id in the tileset names it
            // on the tile as printed (`sw`, `city-s`), which a turned tile contradicts.
            ActionInfo::PlaceFigure { figure_name: figure, with_name: with, feature, ports, .. } => {
                write!(f, "put {} {figure} on the {}", a(figure), feature.name())?;
                if ports.is_empty() {
                    f.write_str(" inside the tile")?;
                } else {
                    write!(f, " [{}]", ports.join(" "))?;
                }
                if let Some(w) = with {
                    write!(f, " with {} {w}", a(w))?;
                }
                Ok(())
            }
            ActionInfo::Expansion { name, label, at, .. } if at.is_empty() => write!(f, "{name}: {label}"),
            ActionInfo::Expansion { name, label, at, .. } => write!(f, "{name}: {label} {at}"),
            ActionInfo::Pass => write!(f, "pass"),
            ActionInfo::Choose { decision, option, about } if about.is_empty() => write!(f, "{decision}: {option}"),
            ActionInfo::Choose { decision, option, about } => write!(f, "{decision} ({about}): {option}"),
        }
    }
}

impl Game {
    /// A target in words: the named point's or segment's kind and the square, or the figure
    /// (named for people, or as scripts number players: see [`Game::figure_name`]).
    fn target_name(&self, target: Target, for_people: bool) -> String {
        let (rules, st) = (self.rules(), self.state());
        let def = |pos| st.board().at(pos).map(|t| &rules.tile(t.tile).def);
        match target {
            Target::None => String::new(),
            Target::Point { pos, point } => {
                let kind = def(pos).and_then(|d| d.points.get(point as usize)).map_or("point", |p| p.kind.as_str());
                format!("the {kind} at {pos}")
            }
            Target::Segment { pos, segment } => {
                let kind = def(pos).and_then(|d| d.segments.get(segment as usize)).map_or("segment", |s| s.kind.name());
                format!("the {kind} at {pos}")
            }
            // Where it stands too: an offer on a figure is told apart from one on another of
            // the same player (two abbots, a monastery's and a garden's).
            Target::Figure { figure } => match self.figure_place(figure) {
                Some(place) => {
                    format!("{} on {}", self.figure_name(figure, for_people), self.target_name(place, for_people))
                }
                None => self.figure_name(figure, for_people),
            },
        }
    }

    /// What a decision is about, for people (`Ann's meeple on the field at (1, 2)`); empty when
    /// its expansion does not say.
    pub fn decision_about(&self, d: &Decision) -> String {
        d.about.map(|t| self.target_name(t, true)).unwrap_or_default()
    }

    /// A figure by its kind and owner. For people, by its owner's name and its kind's name
    /// (`Ann's abbot`; a name two kinds would share is already each one's id, see
    /// `RulesBuilder::build`); else as scripts know them, players numbered from 1 and kinds by
    /// id (`the abbot:abbot of player 1`).
    fn figure_name(&self, figure: crate::figures::FigureId, for_people: bool) -> String {
        let Some(f) = self.state().figures().get(figure as usize) else { return format!("figure {figure}") };
        let kind = self.rules().figure(f.kind);
        match self.setup().players.get(f.owner as usize) {
            Some(name) if for_people => format!("{name}'s {}", kind.name.one),
            _ => format!("the {} of player {}", kind.id, f.owner + 1),
        }
    }

    /// The segment or point a figure stands on, as a target; `None` off the board.
    fn figure_place(&self, figure: crate::figures::FigureId) -> Option<Target> {
        let st = self.state();
        let pos = |tile| st.board().tile(tile).pos;
        match st.figures().get(figure as usize)?.at {
            Location::Segment { segment } => {
                let info = st.features().info(segment);
                Some(Target::Segment { pos: pos(info.tile), segment: info.local })
            }
            Location::Point { tile, point } => Some(Target::Point { pos: pos(tile), point }),
            Location::Supply | Location::Aside => None,
        }
    }

    /// A command in words, for the error that refuses it. Players are numbered from 1, as in
    /// scripts and in [`Game::target_name`].
    pub(crate) fn command_text(&self, c: &Command) -> String {
        let figure = |figure| self.figure_name(figure, false);
        let place = |t: &Target| if *t == Target::None { "nothing".to_string() } else { self.target_name(*t, false) };
        match c {
            Command::AddPoints { player, points, category } => {
                format!("add {points} {category} points for player {}", player + 1)
            }
            Command::GiveTokens { player, token, count } => format!("give {count} {token} to player {}", player + 1),
            Command::PlaceFigure { player, kind, at } => {
                format!("place {} {kind} of player {} on {}", a(kind), player + 1, place(at))
            }
            Command::MoveFigure { figure: f, to } => format!("move {} to {}", figure(*f), place(to)),
            Command::SetAside { figure: f } => format!("set {} aside", figure(*f)),
            Command::ReturnFigure { figure: f } => format!("return {}", figure(*f)),
            Command::SetFigureFace { figure: f, face } => format!("turn {} to face {face}", figure(*f)),
            Command::ExtraTurnPart => "another part of this turn".to_string(),
            Command::ExtraTurn { player } => format!("an extra turn for player {}", player + 1),
            Command::SetStorage { key, .. } => format!("store `{key}`"),
            Command::SetScore { player, points } => format!("set the points of player {} to {points}", player + 1),
            Command::Ask(q) => format!("ask player {} `{}`", q.player + 1, q.kind),
            Command::Log { .. } => "a log line".to_string(),
        }
    }

    /// Every legal action with its description, for clients that do not know the rules.
    pub fn legal_actions_described(&self) -> Vec<(Action, ActionInfo)> {
        self.legal_actions().into_iter().map(|a| (a, self.describe(&a))).collect()
    }

    /// Describes an action in the current state (call before applying it).
    pub fn describe(&self, action: &Action) -> ActionInfo {
        let rules = self.rules();
        let st = self.state();
        match *action {
            Action::PlaceTile { pos, rotation } => {
                let tile = st.turn().tile.map(|t| rules.tile(t));
                ActionInfo::PlaceTile {
                    tile: tile.map(|t| t.key.clone()).unwrap_or_default(),
                    pos,
                    rotation,
                    sides: tile.map(|t| t.def.board_sides(rotation)).unwrap_or_default(),
                }
            }
            Action::PlaceFigure { figure, segment, with } => {
                // Any action can be described, a refused one too (numbers out of range included).
                let placed = st.turn().placed.map(|i| *st.board().tile(i));
                let seg = placed.and_then(|p| Some((p, rules.tile(p.tile).def.segments.get(segment as usize)?)));
                let (pos, seg_id, feature, ports) = match seg {
                    Some((p, seg)) => {
                        let ports = seg.ports.iter().map(|port| port.rotated(p.rotation).name().to_string()).collect();
                        (p.pos, seg.id.to_string(), seg.kind, ports)
                    }
                    None => (Pos::default(), format!("segment {segment}"), SegmentKind::Field, Vec::new()),
                };
                let kind = |k: crate::figures::FigureKindId| rules.figures().get(k as usize);
                let id = |k| kind(k).map_or_else(|| format!("figure kind {k}"), |f| f.id.clone());
                let name = |k| kind(k).map_or_else(|| format!("figure kind {k}"), |f| f.name.one.clone());
                ActionInfo::PlaceFigure {
                    figure: id(figure),
                    with: with.map(id),
                    figure_name: name(figure),
                    with_name: with.map(name),
                    pos,
                    segment: seg_id,
                    feature,
                    ports,
                }
            }
            Action::Expansion { expansion, code, target } => {
                let label = st
                    .turn()
                    .offers
                    .iter()
                    .find(|(e, o)| *e == expansion && o.code == code && o.target == target)
                    .map(|(_, o)| o.label.to_string())
                    // Not offered: a refused action, told by its numbers.
                    .unwrap_or_else(|| format!("action {code}"));
                let (id, name) = match rules.expansion_id_and_name(expansion) {
                    Some((id, name)) => (id.to_string(), name.to_string()),
                    None => (format!("expansion {expansion}"), format!("expansion {expansion}")),
                };
                ActionInfo::Expansion { expansion: id, name, label, target, at: self.target_name(target, true) }
            }
            Action::Pass => ActionInfo::Pass,
            Action::Choose { option } => {
                let d = st.pending().first();
                ActionInfo::Choose {
                    decision: d.map_or_else(|| "no question".to_string(), |d| d.kind.clone()),
                    option: d
                        .and_then(|d| d.options.get(option as usize))
                        .cloned()
                        .unwrap_or_else(|| format!("option {option}")),
                    about: d.map(|d| self.decision_about(d)).unwrap_or_default(),
                }
            }
        }
    }
}

/// Names as a sentence lists them: `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` `` (each in
/// backticks); empty for none.
pub fn quoted_list(names: &[impl std::fmt::Display]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    sentence_list(&quoted)
}

/// Items as a sentence lists them: `a`, `a and b`, `a, b and c`; empty for none.
pub fn sentence_list(items: &[String]) -> String {
    match items {
        [first @ .., last] if !first.is_empty() => format!("{} and {last}", first.join(", ")),
        _ => items.concat(),
    }
}

/// "a" or "an" before a word, by its first letter (`an abbot`).
pub(crate) fn a(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_listed_as_a_sentence_lists_them() {
        let list = |names: &[&str]| super::quoted_list(names);
        assert_eq!((list(&[]), list(&["a"]), list(&["a", "b"])), (String::new(), "`a`".into(), "`a` and `b`".into()));
        assert_eq!(list(&["a", "b", "c"]), "`a`, `b` and `c`");
    }

    #[test]
    fn a_figure_kind_gets_its_article() {
        assert_eq!(super::a("abbots:abbot"), "an");
        assert_eq!(super::a("meeple"), "a");
        assert_eq!(super::a("traders-builders:pig"), "a");
    }
}
