//! The compact wire format of the hot hook calls: events, scorings and candidate placements as
//! little-endian 32-bit words. Hundreds of these cross per game, so they skip the general
//! message encoding. Luau scripts read the same layout from their mail buffer.
//!
//! Layouts (word offsets):
//! - `tile_placed`: player (-1: start tile), tile, index, x, y, rotation
//! - `figure_placed`, `figure_returned`: figure, owner, kind, location (3 words: kind 0 supply,
//!   1 segment, 2 point, 3 aside; then segment or tile, point); `figure_placed` then has a flag
//!   (1: the figure moved) and the location it came from.
//! - `feature_completed`: feature, kind, completer
//! - `feature_scored`: feature, kind, completed, n, then n pairs (player, points)
//! - `turn_part_end`: player, turn, part; `turn_end`: player, turn
//! - scoring: feature, kind, completed, final, tiles, arms, then three counted lists (cities,
//!   strength, points)
//! - candidates: tile, n, then n triples (x, y, rotation)

use meeple_core::figures::{FigureId, FigureKindId, Location};
use meeple_core::{Event, Placement, Pos, Rotation, Scoring, SegmentKind};

/// Writes words into a byte buffer.
#[derive(Default, Debug)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    /// Appends one word.
    pub fn put(&mut self, n: i64) {
        self.0.extend_from_slice(&(n as i32).to_le_bytes());
    }

    /// Appends words.
    pub fn words(&mut self, ns: &[i64]) {
        ns.iter().for_each(|&n| self.put(n));
    }

    fn location(&mut self, at: &Location) {
        match *at {
            Location::Supply => self.words(&[0, 0, 0]),
            Location::Segment { segment } => self.words(&[1, segment as i64, 0]),
            Location::Point { tile, point } => self.words(&[2, tile as i64, point as i64]),
            Location::Aside => self.words(&[3, 0, 0]),
        }
    }

    fn list(&mut self, items: impl ExactSizeIterator<Item = i64>) {
        self.put(items.len() as i64);
        items.for_each(|n| self.put(n));
    }

    /// Appends an event; false for events no hook receives. `figure` gives the owner and kind
    /// of a figure (a move event does not carry them).
    pub fn event(&mut self, e: &Event, figure: impl Fn(FigureId) -> Option<(u8, FigureKindId)>) -> bool {
        match e {
            Event::TilePlaced { player, tile, index, pos, rotation } => self.words(&[
                player.map_or(-1, |p| p as i64),
                *tile as i64,
                *index as i64,
                pos.x as i64,
                pos.y as i64,
                rotation.quarter_turns() as i64,
            ]),
            Event::FigurePlaced { figure, player, kind, at } => {
                self.words(&[*figure as i64, *player as i64, *kind as i64]);
                self.location(at);
                self.put(0);
            }
            Event::FigureMoved { figure: id, from, to } => {
                let Some((owner, kind)) = figure(*id) else { return false };
                self.words(&[*id as i64, owner as i64, kind as i64]);
                self.location(to);
                self.put(1);
                self.location(from);
            }
            Event::FigureReturned { figure, player, kind, from } => {
                self.words(&[*figure as i64, *player as i64, *kind as i64]);
                self.location(from);
            }
            Event::FeatureCompleted { feature, kind, completer } => {
                self.words(&[*feature as i64, *kind as i64, *completer as i64])
            }
            Event::FeatureScored { feature, kind, completed, points } => {
                self.words(&[*feature as i64, *kind as i64, *completed as i64, points.len() as i64]);
                for (p, n) in points {
                    self.words(&[*p as i64, *n as i64]);
                }
            }
            Event::TurnPartEnd { player, turn, part } => self.words(&[*player as i64, *turn as i64, *part as i64]),
            Event::TurnEnd { player, turn } => self.words(&[*player as i64, *turn as i64]),
            _ => return false,
        }
        true
    }

    /// Appends a scoring.
    pub fn scoring(&mut self, s: &Scoring) {
        self.words(&[
            s.feature as i64,
            s.kind as i64,
            s.completed as i64,
            s.final_scoring as i64,
            s.tiles as i64,
            s.arms as i64,
        ]);
        self.list(s.cities.iter().map(|&c| c as i64));
        self.list(s.strength.iter().map(|&c| c as i64));
        self.list(s.points.iter().map(|&c| c as i64));
    }

    /// Appends a drawn tile and its candidate placements.
    pub fn candidates(&mut self, tile: u16, candidates: &[Placement]) {
        self.0.reserve(8 + 12 * candidates.len());
        self.words(&[tile as i64, candidates.len() as i64]);
        for p in candidates {
            for n in [p.pos.x, p.pos.y, p.rotation.quarter_turns() as i32] {
                self.0.extend_from_slice(&n.to_le_bytes());
            }
        }
    }
}

/// Reads words from a byte buffer.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Reads from the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// The next word.
    pub fn get(&mut self) -> Option<i64> {
        let w = self.bytes.get(self.at..self.at + 4)?;
        self.at += 4;
        Some(i32::from_le_bytes([w[0], w[1], w[2], w[3]]) as i64)
    }

    fn location(&mut self) -> Option<Location> {
        let (k, a, b) = (self.get()?, self.get()?, self.get()?);
        Some(match k {
            0 => Location::Supply,
            1 => Location::Segment { segment: a as u16 },
            2 => Location::Point { tile: a as u16, point: b as u8 },
            _ => Location::Aside,
        })
    }

    fn list(&mut self) -> Option<Vec<i64>> {
        let n = self.get()?;
        (0..n).map(|_| self.get()).collect()
    }

    /// Decodes the event of a hook.
    pub fn event(&mut self, hook: meeple_core::HookKind) -> Option<Event> {
        use meeple_core::HookKind as H;
        Some(match hook {
            H::TilePlaced => {
                let p = self.get()?;
                Event::TilePlaced {
                    player: (p >= 0).then_some(p as u8),
                    tile: self.get()? as u16,
                    index: self.get()? as u16,
                    pos: Pos::new(self.get()? as i32, self.get()? as i32),
                    rotation: Rotation::new(self.get()? as u8),
                }
            }
            H::FigurePlaced => {
                let (figure, player, kind) = (self.get()? as u16, self.get()? as u8, self.get()? as u8);
                let at = self.location()?;
                if self.get()? == 1 {
                    Event::FigureMoved { figure, from: self.location()?, to: at }
                } else {
                    Event::FigurePlaced { figure, player, kind, at }
                }
            }
            H::FigureReturned => Event::FigureReturned {
                figure: self.get()? as u16,
                player: self.get()? as u8,
                kind: self.get()? as u8,
                from: self.location()?,
            },
            H::FeatureCompleted => Event::FeatureCompleted {
                feature: self.get()? as u16,
                kind: segment_kind(self.get()?)?,
                completer: self.get()? as u8,
            },
            H::FeatureScored => {
                let (feature, kind, completed) = (self.get()? as u16, segment_kind(self.get()?)?, self.get()? == 1);
                let n = self.get()?;
                let points = (0..n).map(|_| Some((self.get()? as u8, self.get()? as i32))).collect::<Option<_>>()?;
                Event::FeatureScored { feature, kind, completed, points }
            }
            H::TurnPartEnd => {
                Event::TurnPartEnd { player: self.get()? as u8, turn: self.get()? as u32, part: self.get()? as u8 }
            }
            H::TurnEnd => Event::TurnEnd { player: self.get()? as u8, turn: self.get()? as u32 },
            _ => return None,
        })
    }

    /// Decodes a scoring.
    pub fn scoring(&mut self) -> Option<Scoring> {
        let (feature, kind) = (self.get()? as u16, segment_kind(self.get()?)?);
        let (completed, final_scoring) = (self.get()? == 1, self.get()? == 1);
        let (tiles, arms) = (self.get()? as u16, self.get()? as u16);
        Some(Scoring {
            feature,
            kind,
            completed,
            final_scoring,
            tiles,
            arms,
            cities: self.list()?.into_iter().map(|c| c as u16).collect(),
            strength: self.list()?.into_iter().map(|c| c as u32).collect(),
            points: self.list()?.into_iter().map(|c| c as i32).collect(),
        })
    }

    /// Decodes a drawn tile and its candidates.
    pub fn candidates(&mut self) -> Option<(u16, Vec<Placement>)> {
        let (tile, n) = (self.get()? as u16, self.get()?);
        let mut list = Vec::with_capacity(n.clamp(0, 4096) as usize);
        for _ in 0..n {
            let pos = Pos::new(self.get()? as i32, self.get()? as i32);
            list.push(Placement { pos, rotation: Rotation::new(self.get()? as u8) });
        }
        Some((tile, list))
    }
}

fn segment_kind(n: i64) -> Option<SegmentKind> {
    SegmentKind::ALL.get(usize::try_from(n).ok()?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use meeple_core::HookKind;

    #[test]
    fn events_survive_the_round_trip() {
        let events = [
            Event::TilePlaced { player: None, tile: 3, index: 0, pos: Pos::new(-2, 5), rotation: Rotation::new(3) },
            Event::FigurePlaced { figure: 9, player: 1, kind: 2, at: Location::Point { tile: 4, point: 1 } },
            Event::FigureMoved { figure: 9, from: Location::Segment { segment: 7 }, to: Location::Aside },
            Event::FigureReturned { figure: 2, player: 0, kind: 0, from: Location::Segment { segment: 40 } },
            Event::FeatureCompleted { feature: 12, kind: SegmentKind::City, completer: 1 },
            Event::FeatureScored {
                feature: 12,
                kind: SegmentKind::Field,
                completed: false,
                points: vec![(0, 6), (2, 6)],
            },
            Event::TurnPartEnd { player: 1, turn: 30, part: 1 },
            Event::TurnEnd { player: 1, turn: 30 },
        ];
        for e in events {
            let mut w = Writer::default();
            assert!(w.event(&e, |_| Some((1, 2))));
            let hook = HookKind::for_event(&e).unwrap();
            assert_eq!(Reader::new(&w.0).event(hook), Some(e));
        }
    }

    #[test]
    fn scorings_and_candidates_survive_the_round_trip() {
        let s = Scoring {
            feature: 5,
            kind: SegmentKind::Monastery,
            completed: true,
            final_scoring: false,
            tiles: 9,
            arms: 0,
            cities: vec![3, 8],
            strength: vec![1, 0],
            points: vec![9, 0],
        };
        let mut w = Writer::default();
        w.scoring(&s);
        assert_eq!(Reader::new(&w.0).scoring(), Some(s));
        let c = vec![Placement { pos: Pos::new(1, -1), rotation: Rotation::new(2) }];
        w.0.clear();
        w.candidates(7, &c);
        assert_eq!(Reader::new(&w.0).candidates(), Some((7, c)));
    }
}
