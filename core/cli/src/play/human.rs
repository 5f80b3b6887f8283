//! A seat for the person at the terminal (`meeple play --human SEAT`): the board drawn in text
//! (`board`), the legal actions numbered, and an answer read from standard input.

use super::board::{board, labels, square};
use crate::common::{ask, how_many, say, tokens_of};
use meeple_core::rules::Noun;
use meeple_core::tileset::TileDef;
use meeple_core::{Action, Game, Placement, Port, Pos, Rotation, SegmentKind, Side};
use std::collections::BTreeMap;
use std::io::BufRead;

/// Why a person's seat gave no action: they stopped the game, or their input ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stopped {
    /// `q` was typed.
    Quit,
    /// Standard input ended (or could not be read).
    InputEnded,
}

/// How to read the menus, told once when the game starts.
pub(super) const LEGEND: &str = "How to read it: a tile's sides are listed north, east, south, west, each C (city),\n\
R (road), F (field) or W (river). Where a figure goes is named by the edges it reaches: N, E, S, W\n\
the middle of a side, NL and NR the north side's left and right of it as seen from the tile's middle,\n\
and so on round. On the board a square shows its sides (# city, - or | road, ~ river, . field) around\n\
its middle (M a monastery, + roads that meet or bend); a figure is its owner's number, 1 for the\n\
first player, where it stands: a meeple and a builder or pig on one feature show as two numbers\n\
(the figures that are not meeples are named under the board).";

/// Reads a person's choices from `input`.
pub(super) struct Terminal<R> {
    input: R,
    echo: bool,
}

impl<R: BufRead> Terminal<R> {
    /// A terminal reading from `input`; with `echo`, each line read is written after its prompt
    /// (input from a pipe or a file, which no terminal shows), so the output reads as a session.
    pub(super) fn new(input: R, echo: bool) -> Terminal<R> {
        Terminal { input, echo }
    }

    /// Shows player `player`, named `names[player]`, what they may do and asks which.
    pub(super) fn choose(&mut self, game: &Game, names: &[String], player: u8) -> Result<Action, Stopped> {
        let name = &names[player as usize];
        let actions = game.legal_actions();
        // A figure phase offering nothing but a pass, or a question with one answer, is no choice.
        if let [only] = actions.as_slice()
            && !matches!(only, Action::PlaceTile { .. })
        {
            if matches!(only, Action::Pass) {
                say!("{name}: no figure of yours can go anywhere now: you pass");
            }
            return Ok(*only);
        }
        let placing = matches!(actions.first(), Some(Action::PlaceTile { .. }));
        let menu = if placing { placements_menu(game) } else { actions_menu(game, names, player, &actions) };
        if placing {
            say!("{}", status(game, names, player));
        }
        say!("{}", menu.text);
        loop {
            let range = match menu.actions.len() {
                1 => "1".to_string(),
                n => format!("1-{n}"),
            };
            ask(format_args!("{name}, your choice ({range}; b: the board, q: stop): "));
            let Some(line) = self.read_line() else {
                say!("");
                return Err(Stopped::InputEnded);
            };
            match parse(line.trim(), menu.actions.len()) {
                Answer::Choice(i) => return Ok(menu.actions[i]),
                // The placements name the board's letters: the board comes with them.
                Answer::Board if placing => say!("{}", menu.text),
                Answer::Board => say!("{}\n{}", board(game, &[]), menu.text),
                Answer::Quit => return Err(Stopped::Quit),
                Answer::Again(why) => say!("{why}"),
            }
        }
    }

    /// The next line typed, `None` once the input ends (or fails). Bytes that are not UTF-8 (a
    /// terminal set to another encoding) are read as replacement characters, not as an end.
    fn read_line(&mut self) -> Option<String> {
        let mut bytes = Vec::new();
        match self.input.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let line = String::from_utf8_lossy(&bytes).into_owned();
                if self.echo {
                    say!("{}", line.trim_end());
                }
                Some(line)
            }
        }
    }
}

/// What a person typed, understood.
#[derive(Debug, PartialEq, Eq)]
enum Answer {
    /// The action of this index in the menu.
    Choice(usize),
    /// Show the board again.
    Board,
    /// Stop the game.
    Quit,
    /// Not understood: ask again, saying this.
    Again(String),
}

fn parse(typed: &str, choices: usize) -> Answer {
    // Commands in any case: `Q` with Caps Lock on stops as `q` does.
    match typed.to_lowercase().as_str() {
        "b" | "board" => Answer::Board,
        "q" | "quit" | "exit" => Answer::Quit,
        "" => Answer::Again(String::new()),
        "?" | "h" | "help" => Answer::Again(format!(
            "{LEGEND}\ntype the number of a choice (1 to {choices}), b to see the board again, or q to stop (the \
             replay so far is kept)"
        )),
        _ => match typed.parse::<usize>() {
            Ok(n) if (1..=choices).contains(&n) => Answer::Choice(n - 1),
            _ => Answer::Again(format!("`{typed}`: type a number from 1 to {choices}, b or q")),
        },
    }
}

/// The actions on offer, as shown and in the order of their numbers.
struct Menu {
    text: String,
    actions: Vec<Action>,
}

/// The board with the squares the drawn tile fits lettered, then each square's rotations.
fn placements_menu(game: &Game) -> Menu {
    let turn = game.state().turn();
    let rules = game.rules();
    let Some(tile) = turn.tile else {
        return Menu { text: String::new(), actions: Vec::new() };
    };
    let kind = rules.tile(tile);
    // The squares in board order: top row first, then left to right, as they are read.
    // A turn that gives the same board as one listed (a monastery turned) is not another choice.
    let mut squares: BTreeMap<(i32, i32), Vec<Placement>> = BTreeMap::new();
    for p in &turn.placements {
        let listed = squares.entry((-p.pos.y, p.pos.x)).or_default();
        let turn_from = |q: &Placement| Rotation::new(4 + p.rotation.quarter_turns() - q.rotation.quarter_turns());
        if !listed.iter().any(|q| kind.def.looks_the_same_turned(turn_from(q))) {
            listed.push(*p);
        }
    }
    let labelled: Vec<(Pos, char)> =
        squares.values().zip(labels()).map(|(placements, label)| (placements[0].pos, label)).collect();
    let mut text = board(game, &labelled);
    let name = tile_name(&kind.def);
    // A second part (a builder's, or one a rule granted) is said: nothing else shows it began.
    let part = if turn.part > 1 { format!(" for part {} of this turn", turn.part) } else { String::new() };
    text.push_str(&format!(
        "\n\nyour tile{part}: {}{name}; its sides, north east south west, where it fits:\n",
        kind.key
    ));
    let mut actions = Vec::new();
    for (placements, (pos, label)) in squares.values().zip(&labelled) {
        text.push_str(&format!("  {label} {pos}:"));
        for p in placements {
            actions.push(Action::PlaceTile { pos: p.pos, rotation: p.rotation });
            let degrees = p.rotation.quarter_turns() as u32 * 90;
            let sides = kind.def.board_sides(p.rotation);
            text.push_str(&format!("  [{}] {degrees}° {sides}", actions.len()));
            // Turns that read the same sides but differ (which corner the cloth city is in):
            // each told by what it has that the others lack.
            let alike: Vec<Rotation> =
                placements.iter().map(|q| q.rotation).filter(|&r| kind.def.board_sides(r) == sides).collect();
            if alike.len() > 1 {
                let all = alike.iter().map(|&r| parts(&kind.def, r));
                let common = all.reduce(|a, b| a.into_iter().filter(|x| b.contains(x)).collect()).unwrap_or_default();
                let own: Vec<String> =
                    parts(&kind.def, p.rotation).into_iter().filter(|x| !common.contains(x)).collect();
                text.push_str(&format!(" ({})", own.join(", ")));
            }
        }
        text.push('\n');
    }
    text.pop();
    Menu { text, actions }
}

/// What a tile turned by `r` holds, in the board's directions: its cities, roads and rivers by
/// the sides they reach (`city N+W cloth`), its gardens and pictures by the side of the field
/// they lie in (`highwaymen S`, `garden middle`).
fn parts(def: &TileDef, r: Rotation) -> Vec<String> {
    let sides = |ports: &[Port]| {
        let mut sides: Vec<Side> = ports.iter().map(|p| p.rotated(r).side()).collect();
        sides.sort();
        sides.dedup();
        sides.iter().map(|s| s.name()).collect::<Vec<_>>().join("+")
    };
    // A field by the sides most of its ports are on: `N` for a field along the north side, `NW`
    // for a corner's (north and south first, as compass points are named); `middle` without any.
    let field_side = |field: Option<u8>| {
        let ports = field.and_then(|f| def.segments.get(f as usize)).map_or(&[][..], |f| &f.ports[..]);
        let on = |s: Side| ports.iter().filter(|p| p.rotated(r).side() == s).count();
        let most = Side::ALL.into_iter().map(on).max().unwrap_or(0);
        if most == 0 {
            return "middle".to_string();
        }
        [Side::N, Side::S, Side::E, Side::W].into_iter().filter(|&s| on(s) == most).map(Side::name).collect()
    };
    let mut parts = Vec::new();
    for seg in &def.segments {
        match seg.kind {
            SegmentKind::City | SegmentKind::Road | SegmentKind::River => {
                let arms = if seg.arms > 0 { " arms" } else { "" };
                let goods = seg.goods.as_deref().map_or(String::new(), |g| format!(" {g}"));
                parts.push(format!("{} {}{arms}{goods}", seg.kind.name(), sides(&seg.ports)));
            }
            SegmentKind::Garden => parts.push(format!("garden {}", field_side(seg.field))),
            _ => {}
        }
    }
    parts.extend(def.illustrations.iter().map(|p| format!("{} {}", p.kind, field_side(p.field))));
    parts
}

/// The scores, the player's figures and goods, and the tiles left.
fn status(game: &Game, names: &[String], player: u8) -> String {
    let (state, rules) = (game.state(), game.rules());
    let scores: Vec<String> = names.iter().enumerate().map(|(p, n)| format!("{n} {}", state.score(p as u8))).collect();
    // Those of which there are any, counted; `None` for none at all.
    let listed = |counts: Vec<(i64, &Noun)>| {
        let listed: Vec<String> = counts.into_iter().filter(|(n, _)| *n > 0).map(|(n, name)| name.counted(n)).collect();
        (!listed.is_empty()).then(|| listed.join(", "))
    };
    let counted = |counts| listed(counts).unwrap_or_else(|| "nothing".to_string());
    let figures = rules.figures().iter().enumerate().map(|(k, f)| (state.supply(player, k as _) as i64, &f.name));
    let mut status = format!("\nscores: {} · yours to place: {}", scores.join(", "), counted(figures.collect()));
    if !rules.tokens().is_empty() {
        let yours = tokens_of(rules, state, player).unwrap_or_else(|| "nothing".to_string());
        status += &format!(" · yours to keep: {yours}");
        // What the others keep counts too (the majorities of goods): those who keep any.
        for (p, name) in names.iter().enumerate().filter(|&(p, _)| p as u8 != player) {
            if let Some(kept) = tokens_of(rules, state, p as u8) {
                status += &format!(" · {name} keeps {kept}");
            }
        }
    }
    format!("{status} · {} left", how_many(state.tiles_left() as usize, "tile", "tiles"))
}

/// One line per action, as the game describes it, under the tile they are about (just placed),
/// or under whose turn it is when the question comes in another player's.
fn actions_menu(game: &Game, names: &[String], player: u8, actions: &[Action]) -> Menu {
    let mut text = String::new();
    let state = game.state();
    let turn = state.turn();
    if turn.player != player {
        let whose = &names[turn.player as usize];
        text.push_str(&format!("in {whose}'s turn {}, a question for {}:\n", turn.number, names[player as usize]));
    }
    if let Some(i) = state.turn().placed
        && state.pending().is_empty()
    {
        let placed = &state.board().tiles()[i as usize];
        let glyph = square(game, placed, &[]);
        let sides = game.rules().tile(placed.tile).def.board_sides(placed.rotation);
        // Beside the drawing's middle row: beside its top one, a row of fields read as `...`.
        let about = [String::new(), format!("← your tile at {}, sides {sides}", placed.pos), String::new()];
        for (line, chars) in about.iter().zip(glyph) {
            let line = format!("  {} {line}", chars.iter().collect::<String>());
            text.push_str(line.trim_end());
            text.push('\n');
        }
    }
    // A question: asked once by its expansion, its answers listed as they read.
    if let Some(d) = state.pending().first() {
        let rules = game.rules();
        let (_, name) = rules.expansion_id_and_name(d.expansion).unwrap_or_default();
        let question = super::question_name(&d.kind);
        let about = game.decision_about(d);
        let about = if about.is_empty() { about } else { format!(", about {about}") };
        text.push_str(&format!("{name} asks: {question}{about}\n"));
    }
    for (i, a) in actions.iter().enumerate() {
        let said = match (a, state.pending().first()) {
            (Action::Choose { option }, Some(d)) => d.options.get(*option as usize).cloned().unwrap_or_default(),
            _ => game.describe(a).to_string(),
        };
        text.push_str(&format!("  [{}] {said}\n", i + 1));
    }
    text.pop();
    Menu { text, actions: actions.to_vec() }
}

/// A tile's name in brackets, with the pictures it does not name (a farmhouse, highwaymen):
/// The Tollkeepers count them along a road, and nothing else on the board shows them.
fn tile_name(def: &meeple_core::tileset::TileDef) -> String {
    let unnamed: Vec<String> = def
        .illustrations
        .iter()
        .map(|p| p.kind.replace('-', " "))
        .filter(|kind| !def.name.contains(kind.as_str()))
        .collect();
    let pictures = if unnamed.is_empty() { String::new() } else { format!("pictures: {}", unnamed.join(", ")) };
    match (def.name.is_empty(), pictures.is_empty()) {
        (true, true) => String::new(),
        (false, true) => format!(" ({})", def.name),
        (true, false) => format!(" ({pictures})"),
        (false, false) => format!(" ({}; {pictures})", def.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corner_fields_picture_is_told_by_its_corner() {
        let text = include_str!("../../../../tilesets/traders-builders.toml");
        let tileset = meeple_core::Tileset::parse("traders-builders.toml", text).unwrap();
        let bridge = tileset.tiles.iter().find(|t| t.id == "B-highwaymen").unwrap();
        // Highwaymen in the north–west field, between the two roads of the bridge.
        let picture = |r: u8| parts(bridge, Rotation::new(r)).pop().unwrap();
        let turned: Vec<String> = (0..4).map(picture).collect();
        assert_eq!(turned, ["highwaymen NW", "highwaymen NE", "highwaymen SE", "highwaymen SW"]);
    }

    #[test]
    fn a_tile_is_named_with_the_pictures_its_name_leaves_out() {
        let text = include_str!("../../../../tilesets/base.toml");
        let tileset = meeple_core::Tileset::parse("base.toml", text).unwrap();
        let named = |id: &str| tile_name(tileset.tiles.iter().find(|t| t.id == id).unwrap());
        assert_eq!(named("E"), " (city cap north, field elsewhere)");
        assert_eq!(named("E-farmhouse"), " (city cap north, field elsewhere; pictures: farmhouse)");
        assert_eq!(named("S-water-tower").split("; ").last(), Some("pictures: water tower)"));
        let text = include_str!("../../../../tilesets/tollkeepers.toml");
        let tileset = meeple_core::Tileset::parse("tollkeepers.toml", text).unwrap();
        let travellers = tileset.tiles.iter().find(|t| t.id == "01").unwrap();
        assert_eq!(tile_name(travellers), " (straight road west–east, travellers north of it)", "named already");
    }

    #[test]
    fn answers_are_numbers_in_range_or_a_command() {
        assert_eq!(parse("3", 5), Answer::Choice(2));
        assert_eq!(parse("b", 5), Answer::Board);
        assert_eq!(parse("q", 5), Answer::Quit);
        assert_eq!(parse("Q", 5), Answer::Quit);
        let help = |why: &str| why.starts_with("How to read it:") && why.contains("b to see the board again");
        assert!(matches!(parse("help", 5), Answer::Again(why) if help(&why)));
        assert!(matches!(parse("0", 5), Answer::Again(why) if why.contains("from 1 to 5")));
        assert!(matches!(parse("6", 5), Answer::Again(_)));
        assert!(matches!(parse("north", 5), Answer::Again(_)));
    }
}
