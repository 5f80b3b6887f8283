//! What the plugin keeps track of: the intersections laid so far, where each tollhouse stands
//! and which face it shows, and which tollhouses turn over at the end of the turn.
//!
//! Where the tollhouses stand and which face they show is read from the figures themselves.
//! The rest lives under two storage keys, each one string of integers, so that it crosses the
//! plugin boundary as a single string rather than a tree of values; the intersections, read in
//! every figure phase, are parsed again only when the storage version changed. A third key, an
//! integer, holds the turn of the tollhouse's last action when it may act once a turn only.

use meeple_plugin_sdk::meeple_core::expansion::{Command, Commands};
use meeple_plugin_sdk::meeple_core::figures::{FigureKindId, Location};
use meeple_plugin_sdk::meeple_core::game::MAX_PLAYERS;
use meeple_plugin_sdk::meeple_core::{Pos, Value, View};
use std::cell::RefCell;
use std::rc::Rc;

/// Storage key of the intersections: `tile x y point` per village, `;`-separated.
pub const VILLAGES: &str = "villages";
/// Storage key of the players whose tollhouse turns over: `;`-separated.
pub const FLIPS: &str = "flips";
/// Storage key of the turn in which a tollhouse was last placed or moved (its number), kept
/// only when the tollhouse may act once a turn.
pub const ACTED: &str = "acted";

/// An intersection on the board: a village where two to four roads end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Village {
    /// The placed tile's index.
    pub tile: u16,
    /// Where the tile stands.
    pub pos: Pos,
    /// The village's point index in the tile kind.
    pub point: u8,
}

/// A tollhouse on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct House {
    /// The figure.
    pub figure: u16,
    /// The placed tile of its village.
    pub tile: u16,
    /// The village's point index.
    pub point: u8,
    /// 1 or 2.
    pub face: u8,
}

/// Per player (0-based), the tollhouse if it is on the board. Read from the figures
/// themselves: where a tollhouse stands and its face are the core's to keep.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Houses(pub [Option<House>; MAX_PLAYERS]);

impl Houses {
    /// The tollhouses, of figure kind `kind`.
    pub fn read(view: &View<'_>, kind: FigureKindId) -> Houses {
        let mut houses = Houses([None; MAX_PLAYERS]);
        for (figure, f) in view.figures_of_kind(kind) {
            if let (Location::Point { tile, point }, Some(slot)) = (f.at, houses.0.get_mut(f.owner as usize)) {
                *slot = Some(House { figure, tile, point, face: f.face });
            }
        }
        houses
    }

    /// The tollhouse standing on a village, with its owner, if any.
    pub fn at(&self, tile: u16, point: u8) -> Option<(u8, House)> {
        self.0.iter().enumerate().find_map(|(p, h)| match h {
            Some(h) if h.tile == tile && h.point == point => Some((p as u8, *h)),
            _ => None,
        })
    }

    /// Whether no tollhouse is on the board yet.
    pub fn none_placed(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

thread_local! {
    /// The intersections last read, by storage version: they change only when a tile with a
    /// village is laid, and are read in every figure phase.
    static VILLAGES_SEEN: RefCell<(u64, Rc<Vec<Village>>)> = RefCell::new((0, Rc::new(Vec::new())));
}

/// Every intersection, in the order its tile was laid.
pub fn villages(view: &View<'_>) -> Rc<Vec<Village>> {
    let version = view.storage_version();
    if let Some(seen) = VILLAGES_SEEN.with(|s| (s.borrow().0 == version).then(|| s.borrow().1.clone())) {
        return seen;
    }
    let list: Rc<Vec<Village>> = Rc::new(
        groups(view, VILLAGES)
            .filter_map(|(g, len)| match g[..len] {
                [tile, x, y, point] => Some(Village { tile: tile as u16, pos: Pos::new(x, y), point: point as u8 }),
                _ => None,
            })
            .collect(),
    );
    VILLAGES_SEEN.with(|s| *s.borrow_mut() = (version, list.clone()));
    list
}

/// Adds intersections after those stored.
pub fn add_villages(view: &View<'_>, new: &[Village], out: &mut Commands<'_>) {
    let mut text = match view.storage(VILLAGES) {
        Some(Value::Str(s)) => s,
        _ => String::new(),
    };
    for v in new {
        if !text.is_empty() {
            text.push(';');
        }
        text.push_str(&format!("{} {} {} {}", v.tile, v.pos.x, v.pos.y, v.point));
    }
    store(out, VILLAGES, text);
}

/// Players whose tollhouse turns over at a turn's end.
pub fn flips(view: &View<'_>) -> Vec<u8> {
    groups(view, FLIPS).filter(|&(_, len)| len == 1).map(|(g, _)| g[0] as u8).collect()
}

/// Stores who turns over; nobody removes the key, so that most turns' ends read nothing.
pub fn set_flips(flips: &[u8], out: &mut Commands<'_>) {
    let value = match flips {
        [] => Value::Null,
        _ => Value::Str(flips.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(";")),
    };
    out.push(Command::SetStorage { key: FLIPS.into(), value });
}

/// Whether a tollhouse was placed or moved earlier in this turn (in the first part of a double
/// turn: one figure phase cannot offer it twice).
pub fn acted_this_turn(view: &View<'_>) -> bool {
    view.storage(ACTED) == Some(Value::Int(i64::from(view.turn().number)))
}

/// Notes that a tollhouse was placed or moved in this turn.
pub fn set_acted(view: &View<'_>, out: &mut Commands<'_>) {
    out.push(Command::SetStorage { key: ACTED.into(), value: Value::Int(i64::from(view.turn().number)) });
}

fn store(out: &mut Commands<'_>, key: &str, text: String) {
    out.push(Command::SetStorage { key: key.into(), value: Value::Str(text) });
}

/// The `;`-separated groups of up to four space-separated integers under a key (a `-` group
/// is empty).
fn groups(view: &View<'_>, key: &str) -> std::vec::IntoIter<Group> {
    match view.storage(key) {
        Some(Value::Str(s)) => parse(&s),
        _ => Vec::new(),
    }
    .into_iter()
}

/// Up to four integers (the longest record is four).
type Group = ([i32; 4], usize);

/// Reads the groups byte by byte: this runs in every figure phase, over every intersection.
fn parse(text: &str) -> Vec<Group> {
    let mut out = Vec::new();
    if text.is_empty() {
        return out;
    }
    let (mut group, mut n, mut neg, mut digits): (Group, i32, bool, bool) = (([0; 4], 0), 0, false, false);
    for &b in text.as_bytes().iter().chain(b";") {
        match b {
            b'0'..=b'9' => (n, digits) = (n * 10 + (b - b'0') as i32, true),
            b'-' => neg = true,
            _ => {
                if digits && group.1 < 4 {
                    group.0[group.1] = if neg { -n } else { n };
                    group.1 += 1;
                }
                (n, neg, digits) = (0, false, false);
                if b == b';' {
                    out.push(group);
                    group = ([0; 4], 0);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_read_back_as_written() {
        assert_eq!(parse("3 -1 2 0;7 0 0 1"), vec![([3, -1, 2, 0], 4), ([7, 0, 0, 1], 4)]);
        assert_eq!(parse("-;17 3 0 2"), vec![([0; 4], 0), ([17, 3, 0, 2], 4)]);
        assert_eq!(parse("1;0"), vec![([1, 0, 0, 0], 1), ([0; 4], 1)]);
        assert_eq!(parse(""), Vec::<Group>::new());
    }

    #[test]
    fn a_tollhouse_is_found_on_its_village() {
        let mut houses = Houses::default();
        houses.0[1] = Some(House { figure: 17, tile: 3, point: 0, face: 2 });
        assert_eq!(houses.at(3, 0).map(|(p, _)| p), Some(1));
        assert_eq!(houses.at(3, 1), None);
        assert!(!houses.none_placed());
    }
}
