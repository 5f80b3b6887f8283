//! The wire form of a view's queries and of the host's answers (ABI minor 3). A plugin asks
//! some forty questions a game; in MessagePack each cost a few thousand instructions to encode
//! and decode on both sides, in words a few hundred.
//!
//! Layouts (word offsets), in the [`crate::wire`] format:
//! - query: its number (`Players` 0 … `PlayerName` 22, in the order of [`Query`]) and its
//!   fields (a position as x, y; the storage key as a string)
//! - answer: its number (`Int` 0 … `Parts` 8, in the order of [`Answer`]) and its contents: an
//!   integer as two words (low, high); a turn as number, player, part, stage, placed tile (-1:
//!   none), tiles left; a tile as a presence flag and index, kind, x, y, rotation, first
//!   segment; a segment as tile, local index, kind; a feature as id, kind, completed, scored,
//!   tiles, arms, open edges; ids as a counted list; figures as in answers; a stored value as a
//!   presence flag and the value; parts as a count and per part segment, local index and tile.
//!   Pending decisions have no wire form and stay MessagePack.

use crate::wire::{Reader, Writer};
use meeple_core::Pos;
use meeple_core::state::{FeatureInfo, Stage};
use meeple_core::view::{Answer, FeaturePart, Query, TileInfo, TurnInfo};
use meeple_core::{Rotation, SegmentKind};

impl Writer {
    /// Appends a query.
    pub fn query(&mut self, q: &Query) {
        match q {
            Query::Players => self.put(0),
            Query::Turn => self.put(1),
            Query::TileCount => self.put(2),
            Query::Placed(i) => self.words(&[3, *i as i64]),
            Query::TileAt(p) => self.words(&[4, p.x as i64, p.y as i64]),
            Query::Segment(s) => self.words(&[5, *s as i64]),
            Query::Feature(s) => self.words(&[6, *s as i64]),
            Query::FeatureSegments(s) => self.words(&[7, *s as i64]),
            Query::FeatureParts(s) => self.words(&[8, *s as i64]),
            Query::FieldCities(s) => self.words(&[9, *s as i64]),
            Query::Figures => self.put(10),
            Query::FiguresOn(s) => self.words(&[11, *s as i64]),
            Query::Supply(p, k) => self.words(&[12, *p as i64, *k as i64]),
            Query::Points(p, c) => self.words(&[13, *p as i64, *c as i64]),
            Query::Tokens(p, t) => self.words(&[14, *p as i64, *t as i64]),
            Query::TokenSupply(t) => self.words(&[15, *t as i64]),
            Query::Storage(key) => {
                self.put(16);
                self.str(key);
            }
            Query::Neighbours(p) => self.words(&[17, p.x as i64, p.y as i64]),
            Query::Pending => self.put(18),
            Query::StorageVersion => self.put(19),
            Query::FiguresOfKind(k) => self.words(&[20, *k as i64]),
            Query::ScoreBeforeFinal(p) => self.words(&[21, *p as i64]),
            Query::PlayerName(p) => self.words(&[22, *p as i64]),
        }
    }

    /// Appends an answer; false for an answer without a wire form (pending decisions).
    pub fn answer(&mut self, a: &Answer) -> bool {
        match a {
            Answer::Int(n) => self.words(&[0, n & 0xffff_ffff, n >> 32]),
            Answer::Turn(t) => self.words(&[
                1,
                t.number as i64,
                t.player as i64,
                t.part as i64,
                t.stage as i64,
                t.placed.map_or(-1, i64::from),
                t.tiles_left as i64,
            ]),
            Answer::Tile(t) => {
                self.put(2);
                self.tile(t.as_ref());
            }
            Answer::Segment(s) => self.words(&[3, s.tile as i64, s.local as i64, s.kind as i64]),
            Answer::Feature(f) => self.words(&[
                4,
                f.id as i64,
                f.kind as i64,
                f.completed as i64,
                f.scored as i64,
                f.tiles as i64,
                f.arms as i64,
                f.open as i64,
            ]),
            Answer::Ids(ids) => {
                self.put(5);
                self.list(ids.iter().map(|&i| i as i64));
            }
            Answer::Figures(figures) => {
                self.put(6);
                self.figures(figures);
            }
            Answer::Value(v) => {
                self.put(7);
                match v {
                    None => self.put(0),
                    Some(v) => {
                        self.put(1);
                        self.value(v);
                    }
                }
            }
            Answer::Parts(parts) => {
                self.0.reserve(8 + 36 * parts.len());
                self.words(&[8, parts.len() as i64]);
                for p in parts {
                    self.words(&[p.seg as i64, p.local as i64]);
                    self.tile(Some(&p.tile));
                }
            }
            Answer::Decisions(_) => return false,
        }
        true
    }

    /// A placed tile or none: a presence flag, then six words.
    fn tile(&mut self, t: Option<&TileInfo>) {
        match t {
            None => self.words(&[0, 0, 0, 0, 0, 0, 0]),
            Some(t) => self.words(&[
                1,
                t.index as i64,
                t.tile as i64,
                t.pos.x as i64,
                t.pos.y as i64,
                t.rotation.quarter_turns() as i64,
                t.first_segment as i64,
            ]),
        }
    }
}

/// A word that must fit the field's type.
fn fit<T: TryFrom<i64>>(n: Option<i64>) -> Option<T> {
    T::try_from(n?).ok()
}

impl Reader<'_> {
    /// Decodes a query.
    pub fn query(&mut self) -> Option<Query> {
        Some(match self.get()? {
            0 => Query::Players,
            1 => Query::Turn,
            2 => Query::TileCount,
            3 => Query::Placed(fit(self.get())?),
            4 => Query::TileAt(self.pos()?),
            5 => Query::Segment(fit(self.get())?),
            6 => Query::Feature(fit(self.get())?),
            7 => Query::FeatureSegments(fit(self.get())?),
            8 => Query::FeatureParts(fit(self.get())?),
            9 => Query::FieldCities(fit(self.get())?),
            10 => Query::Figures,
            11 => Query::FiguresOn(fit(self.get())?),
            12 => Query::Supply(fit(self.get())?, fit(self.get())?),
            13 => Query::Points(fit(self.get())?, fit(self.get())?),
            14 => Query::Tokens(fit(self.get())?, fit(self.get())?),
            15 => Query::TokenSupply(fit(self.get())?),
            16 => Query::Storage(self.str()?),
            17 => Query::Neighbours(self.pos()?),
            18 => Query::Pending,
            19 => Query::StorageVersion,
            20 => Query::FiguresOfKind(fit(self.get())?),
            21 => Query::ScoreBeforeFinal(fit(self.get())?),
            22 => Query::PlayerName(fit(self.get())?),
            _ => return None,
        })
    }

    /// Decodes an answer.
    pub fn answer(&mut self) -> Option<Answer> {
        Some(match self.get()? {
            0 => Answer::Int((self.get()? & 0xffff_ffff) | (self.get()? << 32)),
            1 => Answer::Turn(TurnInfo {
                number: self.get()? as u32,
                player: fit(self.get())?,
                part: fit(self.get())?,
                stage: *Stage::ALL.get(fit::<usize>(self.get())?)?,
                placed: u16::try_from(self.get()?).ok(),
                tiles_left: self.get()? as u32,
            }),
            2 => Answer::Tile(self.tile()?),
            3 => Answer::Segment(meeple_core::features::SegInfo {
                tile: fit(self.get())?,
                local: fit(self.get())?,
                kind: self.segment_kind()?,
            }),
            4 => Answer::Feature(FeatureInfo {
                id: fit(self.get())?,
                kind: self.segment_kind()?,
                completed: self.get()? != 0,
                scored: self.get()? != 0,
                tiles: fit(self.get())?,
                arms: fit(self.get())?,
                open: fit(self.get())?,
            }),
            5 => {
                let n = self.count()?;
                Answer::Ids((0..n).map(|_| fit(self.get())).collect::<Option<_>>()?)
            }
            6 => Answer::Figures(self.figures()?),
            7 => Answer::Value(match self.get()? {
                0 => None,
                _ => Some(self.value(0)?),
            }),
            8 => {
                let n = self.count()?;
                let mut parts = Vec::with_capacity(n.min(crate::wire::MAX_RESERVED));
                for _ in 0..n {
                    let (seg, local) = (fit(self.get())?, fit(self.get())?);
                    parts.push(FeaturePart { seg, local, tile: self.tile()?? });
                }
                Answer::Parts(parts)
            }
            _ => return None,
        })
    }

    fn pos(&mut self) -> Option<Pos> {
        Some(Pos::new(fit(self.get())?, fit(self.get())?))
    }

    fn segment_kind(&mut self) -> Option<SegmentKind> {
        SegmentKind::ALL.get(fit::<usize>(self.get())?).copied()
    }

    /// A placed tile or none (`None` when malformed, `Some(None)` when absent).
    fn tile(&mut self) -> Option<Option<TileInfo>> {
        let present = self.get()? != 0;
        let info = TileInfo {
            index: fit(self.get())?,
            tile: fit(self.get())?,
            pos: self.pos()?,
            rotation: Rotation::new(fit(self.get())?),
            first_segment: fit(self.get())?,
        };
        Some(present.then_some(info))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meeple_core::Value;
    use meeple_core::features::SegInfo;
    use meeple_core::figures::{Figure, Location};

    #[test]
    fn every_query_survives_the_round_trip() {
        let p = Pos::new(-4, 7);
        let queries = [
            Query::Players,
            Query::Turn,
            Query::TileCount,
            Query::Placed(70),
            Query::TileAt(p),
            Query::Segment(901),
            Query::Feature(3),
            Query::FeatureSegments(4),
            Query::FeatureParts(5),
            Query::FieldCities(6),
            Query::Figures,
            Query::FiguresOn(7),
            Query::Supply(1, 2),
            Query::Points(3, 4),
            Query::Tokens(5, 6),
            Query::TokenSupply(7),
            Query::Storage("villages é".into()),
            Query::Neighbours(p),
            Query::Pending,
            Query::StorageVersion,
            Query::FiguresOfKind(9),
            Query::ScoreBeforeFinal(1),
            Query::PlayerName(1),
        ];
        for q in queries {
            let mut w = Writer::default();
            w.query(&q);
            let mut r = Reader::new(&w.0);
            assert_eq!(r.query(), Some(q));
            assert!(r.at_end());
        }
    }

    #[test]
    fn every_answer_but_decisions_survives_the_round_trip() {
        let tile = TileInfo { index: 3, tile: 17, pos: Pos::new(2, -9), rotation: Rotation::new(3), first_segment: 40 };
        let figure =
            Figure { kind: 2, owner: 1, at: Location::Point { tile: 3, point: 1 }, face: 2, attached_to: None };
        let answers = [
            Answer::Int(-5),
            Answer::Int(u64::MAX as i64 - 7),
            Answer::Int(1 << 40),
            Answer::Turn(TurnInfo {
                number: 31,
                player: 2,
                part: 2,
                stage: Stage::Figure,
                placed: Some(30),
                tiles_left: 41,
            }),
            Answer::Turn(TurnInfo { number: 1, player: 0, part: 1, stage: Stage::Draw, placed: None, tiles_left: 71 }),
            Answer::Tile(Some(tile)),
            Answer::Tile(None),
            Answer::Segment(SegInfo { tile: 5, local: 3, kind: SegmentKind::Road }),
            Answer::Feature(FeatureInfo {
                id: 12,
                kind: SegmentKind::City,
                completed: true,
                scored: false,
                tiles: 4,
                arms: 1,
                open: 0,
            }),
            Answer::Ids(vec![1, 2, 300]),
            Answer::Figures(vec![(9, figure)]),
            Answer::Value(None),
            Answer::Value(Some(Value::Str("3 0 -1 2;4 1 1 0".into()))),
            Answer::Parts(vec![FeaturePart { seg: 41, local: 1, tile }, FeaturePart { seg: 7, local: 0, tile }]),
        ];
        for a in answers {
            let mut w = Writer::default();
            assert!(w.answer(&a));
            let mut r = Reader::new(&w.0);
            assert_eq!(r.answer(), Some(a));
            assert!(r.at_end());
        }
        assert!(!Writer::default().answer(&Answer::Decisions(Vec::new())));
    }

    #[test]
    fn a_host_answers_each_plugin_in_the_form_it_asked() {
        use crate::proto::{
            answer, decode_answer, decode_query, encode, encode_answer, encode_wire_answer_into, query,
        };
        // Plugins before ABI minor 3 ask in MessagePack; later ones in words, marked.
        let q = Query::Storage("villages".into());
        assert_eq!(decode_query(&encode(&q)), Ok((q.clone(), false)));
        let mut w = Writer(vec![query::WIRE]);
        w.query(&q);
        assert_eq!(decode_query(&w.0), Ok((q, true)));
        let a = Answer::Value(Some(Value::Int(3)));
        let mut w = Writer::default();
        encode_wire_answer_into(&a, &mut w);
        assert_eq!(w.0[0], answer::WIRE);
        assert_eq!(decode_answer(&w.0), Ok(a.clone()));
        assert_eq!(decode_answer(&encode_answer(&a)), Ok(a));
        // Pending decisions have no wire form: MessagePack even to a wire query.
        let d = Answer::Decisions(Vec::new());
        let mut w = Writer::default();
        encode_wire_answer_into(&d, &mut w);
        assert_eq!(w.0[0], answer::MESSAGE);
        assert_eq!(decode_answer(&w.0), Ok(d));
    }

    #[test]
    fn out_of_range_fields_are_malformed() {
        let mut w = Writer::default();
        w.words(&[3, 70_000]);
        assert_eq!(Reader::new(&w.0).query(), None, "a placed-tile index beyond u16");
        assert_eq!(Reader::new(&[]).query(), None);
        assert_eq!(Reader::new(&21i32.to_le_bytes()).query(), None, "an unknown query");
    }
}
