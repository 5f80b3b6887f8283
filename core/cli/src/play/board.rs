//! The board in text for the terminal, three characters a square.
//!
//! Each square shows its four sides (`#` city, `-` or `|` road, `~` river, `.` field) around a
//! middle that names a monastery (`M`), a road that crosses or bends there (`+`), a straight
//! road (`-`, `|`) or a city's heart (`#`); a corner is `#` where one city reaches both its
//! sides. A figure is its owner's number (1–6) where it stands: on the side its city or road
//! leaves by, in the corner of its field, in the middle on a monastery or a village. The squares
//! where the drawn tile fits carry a letter, which the placements listed below the board repeat.

use meeple_core::tileset::TileDef;
use meeple_core::{Game, Location, Port, Pos, Rotation, SegmentKind, Side};
use std::collections::BTreeMap;

/// Letters for the squares a tile fits: a–z but b and q, then A–Z, then `*` for any beyond.
pub(super) fn labels() -> impl Iterator<Item = char> {
    // Not `b` and `q`, which the prompt takes as commands: a square is never mistaken for one.
    ('a'..='z').filter(|c| !matches!(c, 'b' | 'q')).chain('A'..='Z').chain(std::iter::repeat('*'))
}

/// The board in text, with `labels` in the middle of those empty squares.
pub(super) fn board(game: &Game, labels: &[(Pos, char)]) -> String {
    let state = game.state();
    let tiles = state.board().tiles();
    let Some((min, max)) = state.board().bounds() else { return String::new() };
    // The lettered squares lie next to the tiles, one square beyond the bounds at most.
    let (x0, x1, y0, y1) = (min.x - 1, max.x + 1, min.y - 1, max.y + 1);
    let figures = figures_by_tile(game);
    let header = format!("     {}", (x0..=x1).map(column_label).collect::<String>());
    let mut rows = vec![header.trim_end().to_string()];
    for y in (y0..=y1).rev() {
        let mut lines = [String::from("     "), format!("{y:>4} "), String::from("     ")];
        for x in x0..=x1 {
            let pos = Pos { x, y };
            let glyph = match state.board().index_at(pos) {
                Some(i) => square(game, &tiles[i as usize], figures.get(&i).map_or(&[][..], Vec::as_slice)),
                None => {
                    let label = labels.iter().find(|(p, _)| *p == pos).map_or(' ', |(_, l)| *l);
                    [[' '; 3], [' ', label, ' '], [' '; 3]]
                }
            };
            for (line, chars) in lines.iter_mut().zip(glyph) {
                line.extend(chars);
                line.push(' ');
            }
        }
        // A blank line between rows, as a space between columns: each square stands apart.
        // A row of empty squares needs only its middle line, for its letters and its number.
        rows.push(String::new());
        let [top, middle, bottom] = lines.map(|l| l.trim_end().to_string());
        rows.extend(
            [top, middle, bottom].into_iter().enumerate().filter(|(i, l)| *i == 1 || !l.is_empty()).map(|(_, l)| l),
        );
    }
    let others = others_on_board(game);
    if !others.is_empty() {
        rows.push(format!("\nnot meeples: {}", others.join(", ")));
    }
    rows.join("\n")
}

/// The figures on the board that are not meeples, which the board draws as their owners'
/// numbers all the same: `Ann's builder at (0, 1)`.
fn others_on_board(game: &Game) -> Vec<String> {
    let (state, rules, names) = (game.state(), game.rules(), &game.setup().players);
    let tile_of = |at: Location| match at {
        Location::Segment { segment } => Some(state.features().info(segment).tile),
        Location::Point { tile, .. } => Some(tile),
        _ => None,
    };
    (state.figures().iter().filter(|f| f.kind != meeple_core::figures::MEEPLE))
        .filter_map(|f| {
            let pos = state.board().tiles()[tile_of(f.at)? as usize].pos;
            Some(format!("{}'s {} at {pos}", names[f.owner as usize], rules.figure(f.kind).name.one))
        })
        .collect()
}

/// The figures on each placed tile that holds any: their owners (from 1) and the segment each
/// stands on (none on a point, such as a village).
fn figures_by_tile(game: &Game) -> BTreeMap<u16, Vec<(u8, Option<u8>)>> {
    let state = game.state();
    let mut figures: BTreeMap<u16, Vec<(u8, Option<u8>)>> = BTreeMap::new();
    for f in state.figures() {
        let at = match f.at {
            Location::Segment { segment } => {
                let info = state.features().info(segment);
                Some((info.tile, Some(info.local)))
            }
            Location::Point { tile, .. } => Some((tile, None)),
            _ => None,
        };
        if let Some((tile, segment)) = at {
            figures.entry(tile).or_default().push((f.owner + 1, segment));
        }
    }
    figures
}

/// The cells of a square (row, column) where a figure on `segment` may be drawn, the best first:
/// the middle of a side its feature leaves by (a city, a road), the corner of a field's first
/// half side, the middle for a monastery, a garden or a point.
fn cells(def: &TileDef, rotation: Rotation, segment: Option<u8>) -> Vec<(usize, usize)> {
    let ports = segment.and_then(|s| def.segments.get(s as usize)).map_or(&[][..], |s| &s.ports[..]);
    let cell = |p: Port| {
        let p = p.rotated(rotation);
        // Seen from the middle, a side's first half is on its left: NL is the north-west corner.
        match (p.side(), p.position()) {
            (Side::N, 1) => (0, 1),
            (Side::E, 1) => (1, 2),
            (Side::S, 1) => (2, 1),
            (Side::W, 1) => (1, 0),
            (Side::N, 0) | (Side::W, 2) => (0, 0),
            (Side::N, _) | (Side::E, 0) => (0, 2),
            (Side::E, _) | (Side::S, 0) => (2, 2),
            _ => (2, 0),
        }
    };
    let mut cells: Vec<(usize, usize)> = ports.iter().filter(|p| p.is_centre()).map(|&p| cell(p)).collect();
    cells.extend(ports.iter().filter(|p| !p.is_centre()).map(|&p| cell(p)));
    cells.push((1, 1));
    cells
}

/// A placed tile, three characters by three.
pub(super) fn square(
    game: &Game,
    placed: &meeple_core::board::PlacedTile,
    figures: &[(u8, Option<u8>)],
) -> [[char; 3]; 3] {
    let def = &game.rules().tile(placed.tile).def;
    let sides: Vec<char> = def.board_sides(placed.rotation).as_str().chars().collect();
    let [n, e, s, w] = [sides[0], sides[1], sides[2], sides[3]];
    let edge = |side: char, across: char| match side {
        'C' => '#',
        'R' => across,
        'W' => '~',
        _ => '.',
    };
    // The board sides each city reaches: one city drawn through a corner or the middle, two
    // cities apart (two caps, a cloth corner beside two caps) drawn apart.
    let cities: Vec<Vec<Side>> = def
        .segments
        .iter()
        .filter(|seg| seg.kind == SegmentKind::City)
        .map(|seg| seg.ports.iter().map(|p| p.rotated(placed.rotation).side()).collect())
        .collect();
    let one_city = |a: Side, b: Side| cities.iter().any(|c| c.contains(&a) && c.contains(&b));
    let corner = |a: Side, b: Side| if one_city(a, b) { '#' } else { '.' };
    let through = cities.iter().any(|c| Side::ALL.iter().filter(|s| c.contains(s)).count() >= 3)
        || one_city(Side::N, Side::S)
        || one_city(Side::E, Side::W);
    let count = |letter: char| sides.iter().filter(|c| **c == letter).count();
    let middle = match () {
        _ if def.segments.iter().any(|seg| seg.kind == SegmentKind::Monastery) => 'M',
        _ if count('R') >= 3 => '+',
        _ if through => '#',
        _ if count('W') == 2 => '~',
        _ if n == 'R' && s == 'R' => '|',
        _ if e == 'R' && w == 'R' => '-',
        _ if count('R') == 2 => '+',
        _ => '.',
    };
    let mut glyph = [
        [corner(Side::W, Side::N), edge(n, '|'), corner(Side::N, Side::E)],
        [edge(w, '-'), middle, edge(e, '-')],
        [corner(Side::S, Side::W), edge(s, '|'), corner(Side::E, Side::S)],
    ];
    // Each figure by its owner's number where it stands, in a cell no other figure took.
    let mut taken = Vec::new();
    for &(owner, segment) in figures {
        let free = cells(def, placed.rotation, segment).into_iter().find(|c| !taken.contains(c));
        if let Some((row, column)) = free {
            glyph[row][column] = char::from_digit(owner as u32, 10).unwrap_or('?');
            taken.push((row, column));
        }
    }
    glyph
}

/// A column's number over its squares, four characters wide: its last digit over the square's
/// middle (`-1` over the square, not half past it), while it has at most two characters.
fn column_label(x: i32) -> String {
    let label = x.to_string();
    if label.len() <= 2 { format!("{label:>2}  ") } else { format!("{label:<4}") }
}

#[cfg(test)]
mod tests {
    use super::{column_label, labels};

    #[test]
    fn a_column_number_ends_over_the_middle_of_its_squares() {
        let header: String = (-2..=1).map(column_label).collect();
        assert_eq!(header, "-2  -1   0   1  ");
        assert_eq!(column_label(-10), "-10 ", "as near as three characters go, and four wide");
    }

    #[test]
    fn squares_beyond_fifty_share_a_star_and_none_is_a_command() {
        let all: Vec<char> = labels().take(52).collect();
        assert_eq!((all[0], all[1], all[14], all[23], all[24], all[49], all[51]), ('a', 'c', 'p', 'z', 'A', 'Z', '*'));
        assert!(!all.contains(&'b') && !all.contains(&'q'), "b and q are the prompt's");
    }
}
