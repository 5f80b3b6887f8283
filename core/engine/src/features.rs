//! The feature graph: which segments of the board form one city, road, field or monastery.
//!
//! Every segment of every placed tile gets a [`SegId`]. A union–find joins segments that touch
//! across an edge; each root keeps counters that make completion a constant-time question:
//! `open` counts the edges through which a city, road or river still continues off the board.
//! Members of a feature are kept on a circular list so they can be listed without a scan.
//!
//! Invariants:
//! - `data[root]` is meaningful only for roots; merging adds the counters of both roots.
//! - Union by size keeps trees shallow (depth ≤ log₂ n), so `find` needs no path compression
//!   and works on `&self`, which read-only views rely on.
//! - A feature's `open` only decreases; once 0 it stays 0 (only a new tile can touch it, and a
//!   closed feature has no free edge).

use crate::reuse::clone_by_field;
use crate::tileset::SegmentKind;
use serde::{Deserialize, Serialize};

/// A segment of a placed tile: the index of the tile's first segment plus the segment's index.
pub type SegId = u16;

/// Per-segment facts that never change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegInfo {
    /// Index of the placed tile.
    pub tile: u16,
    /// Index of the segment within its tile kind.
    pub local: u8,
    /// Kind of the segment.
    pub kind: SegmentKind,
}

/// Counters kept at each root.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FeatureData {
    /// Edges through which the feature still continues onto empty squares.
    pub open: u16,
    /// Number of member segments.
    pub size: u16,
    /// Coats of arms on member segments.
    pub arms: u16,
    /// Followers standing on member segments.
    pub followers: u8,
    /// Completed (by closing or by being surrounded); set once.
    pub completed: bool,
    /// Scored during the game (its figures then went home).
    pub scored: bool,
}

/// Union–find over all segments on the board.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FeatureGraph {
    parent: Vec<SegId>,
    next: Vec<SegId>,
    info: Vec<SegInfo>,
    data: Vec<FeatureData>,
}

clone_by_field!(FeatureGraph { parent, next, info, data });

impl FeatureGraph {
    /// Number of segments on the board.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// True before any tile is placed.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// Adds a segment as a feature of its own.
    pub fn add(&mut self, info: SegInfo, open: u16, arms: u16) -> SegId {
        let id = self.parent.len() as SegId;
        self.parent.push(id);
        self.next.push(id);
        self.info.push(info);
        self.data.push(FeatureData { open, size: 1, arms, ..FeatureData::default() });
        id
    }

    /// The facts of a segment.
    pub fn info(&self, s: SegId) -> SegInfo {
        self.info[s as usize]
    }

    /// The root segment of the feature `s` belongs to; it names the feature.
    pub fn find(&self, mut s: SegId) -> SegId {
        while self.parent[s as usize] != s {
            s = self.parent[s as usize];
        }
        s
    }

    /// The counters of the feature `s` belongs to.
    pub fn data(&self, s: SegId) -> &FeatureData {
        &self.data[self.find(s) as usize]
    }

    /// Mutable counters of the feature `s` belongs to.
    pub fn data_mut(&mut self, s: SegId) -> &mut FeatureData {
        let r = self.find(s);
        &mut self.data[r as usize]
    }

    /// Joins the features of `a` and `b`; returns the new root.
    pub fn union(&mut self, a: SegId, b: SegId) -> SegId {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return ra;
        }
        let (big, small) = if self.data[ra as usize].size >= self.data[rb as usize].size { (ra, rb) } else { (rb, ra) };
        self.parent[small as usize] = big;
        self.next.swap(big as usize, small as usize);
        let s = self.data[small as usize];
        let d = &mut self.data[big as usize];
        d.open += s.open;
        d.size += s.size;
        d.arms += s.arms;
        d.followers += s.followers;
        d.completed |= s.completed;
        d.scored |= s.scored;
        big
    }

    /// Joins two segments that meet across an edge where their feature continues: both lose
    /// that open edge.
    pub fn join_edge(&mut self, a: SegId, b: SegId) {
        let r = self.union(a, b);
        let d = &mut self.data[r as usize];
        d.open = d.open.saturating_sub(2);
    }

    /// The member segments of the feature `s` belongs to (in list order, starting at `s`).
    pub fn members(&self, s: SegId) -> Members<'_> {
        Members { graph: self, start: s, at: Some(s) }
    }

    /// Every feature root, in segment order.
    pub fn roots(&self) -> impl Iterator<Item = SegId> + '_ {
        (0..self.parent.len() as SegId).filter(|&s| self.parent[s as usize] == s)
    }

    /// Distinct placed tiles among the members (a feature may hold two segments of one tile).
    pub fn tile_count(&self, s: SegId) -> u16 {
        // Most features are small: dedupe on the stack, fall back to a sort for big ones.
        let mut small = [0u16; 48];
        let mut n = 0;
        for m in self.members(s) {
            let t = self.info(m).tile;
            if n == small.len() {
                let mut all: Vec<u16> = self.members(s).map(|m| self.info(m).tile).collect();
                all.sort_unstable();
                all.dedup();
                return all.len() as u16;
            }
            if !small[..n].contains(&t) {
                small[n] = t;
                n += 1;
            }
        }
        n as u16
    }
}

/// Iterator over the members of a feature.
pub struct Members<'a> {
    graph: &'a FeatureGraph,
    start: SegId,
    at: Option<SegId>,
}

impl Iterator for Members<'_> {
    type Item = SegId;
    fn next(&mut self) -> Option<SegId> {
        let cur = self.at?;
        let nxt = self.graph.next[cur as usize];
        self.at = (nxt != self.start).then_some(nxt);
        Some(cur)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(tile: u16) -> SegInfo {
        SegInfo { tile, local: 0, kind: SegmentKind::Road }
    }

    #[test]
    fn joining_edges_closes_a_road_and_lists_members() {
        let mut g = FeatureGraph::default();
        let a = g.add(seg(0), 1, 0);
        let b = g.add(seg(1), 2, 0);
        let c = g.add(seg(2), 1, 0);
        g.join_edge(a, b);
        assert_eq!(g.data(a).open, 1);
        g.join_edge(b, c);
        assert_eq!(g.data(c).open, 0);
        let mut m: Vec<SegId> = g.members(c).collect();
        m.sort();
        assert_eq!(m, vec![a, b, c]);
        assert_eq!(g.tile_count(a), 3);
        assert_eq!(g.roots().count(), 1);
    }

    #[test]
    fn two_segments_of_one_tile_count_as_one_tile() {
        let mut g = FeatureGraph::default();
        let a = g.add(seg(0), 1, 0);
        let b = g.add(seg(0), 1, 0);
        let c = g.add(seg(1), 2, 0);
        g.join_edge(a, c);
        g.join_edge(b, c);
        assert_eq!(g.data(a).size, 3);
        assert_eq!(g.tile_count(a), 2);
        assert_eq!(g.data(a).open, 0);
    }
}
