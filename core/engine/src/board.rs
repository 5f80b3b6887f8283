//! The board: placed tiles on unbounded coordinates, and the frontier of squares where a tile
//! could go next.
//!
//! Squares live in a dense grid that grows when a tile lands near its border, so looking a square
//! up is index arithmetic, and cloning a board copies a few kilobytes. Each frontier square keeps
//! what its neighbours demand as a `(mask, want)` pair over packed side codes, so testing a tile
//! in one rotation is a single AND and compare.

use crate::geometry::{Pos, Rotation, Side};
use crate::reuse::clone_by_field;
use crate::rules::TileId;
use serde::{Deserialize, Serialize};

/// A tile on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PlacedTile {
    /// Where it stands.
    pub pos: Pos,
    /// Its kind.
    pub tile: TileId,
    /// How it is turned.
    pub rotation: Rotation,
    /// The [`crate::features::SegId`] of its first segment; the others follow in tile order.
    pub first_segment: u16,
    /// Side codes on the board (N E S W, a byte each).
    pub sides: u32,
}

/// A square and rotation where a tile may be placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Placement {
    /// The square.
    pub pos: Pos,
    /// The rotation.
    pub rotation: Rotation,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FrontierSquare {
    pos: Pos,
    /// 0xFF in the byte of each side that has a neighbour.
    mask: u32,
    /// The side code each neighbour demands, in the same bytes.
    want: u32,
}

const EMPTY: u16 = 0;
const FRONTIER: u16 = 0x8000;

/// Placed tiles and the frontier.
#[derive(Debug, PartialEq, Eq)]
pub struct Board {
    origin: Pos,
    width: i32,
    height: i32,
    /// `EMPTY`, a placed tile's index + 1, or `FRONTIER | index into frontier`.
    cells: Vec<u16>,
    tiles: Vec<PlacedTile>,
    frontier: Vec<FrontierSquare>,
}

clone_by_field!(Board { origin, width, height, cells, tiles, frontier });

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// An empty board.
    pub fn new() -> Board {
        let size = 16;
        Board {
            origin: Pos::new(-size / 2, -size / 2),
            width: size,
            height: size,
            cells: vec![EMPTY; (size * size) as usize],
            tiles: Vec::with_capacity(96),
            frontier: Vec::with_capacity(64),
        }
    }

    /// Tiles in the order they were placed.
    pub fn tiles(&self) -> &[PlacedTile] {
        &self.tiles
    }

    /// The placed tile with this index.
    pub fn tile(&self, index: u16) -> &PlacedTile {
        &self.tiles[index as usize]
    }

    fn cell(&self, pos: Pos) -> u16 {
        let (x, y) = (pos.x - self.origin.x, pos.y - self.origin.y);
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return EMPTY;
        }
        self.cells[(y * self.width + x) as usize]
    }

    fn set_cell(&mut self, pos: Pos, v: u16) {
        let (x, y) = (pos.x - self.origin.x, pos.y - self.origin.y);
        self.cells[(y * self.width + x) as usize] = v;
    }

    /// The index of the tile at `pos`, if any.
    pub fn index_at(&self, pos: Pos) -> Option<u16> {
        let c = self.cell(pos);
        (c != EMPTY && c & FRONTIER == 0).then(|| c - 1)
    }

    /// The tile at `pos`, if any.
    pub fn at(&self, pos: Pos) -> Option<&PlacedTile> {
        self.index_at(pos).map(|i| &self.tiles[i as usize])
    }

    /// Squares next to placed tiles that hold no tile.
    pub fn frontier(&self) -> impl Iterator<Item = Pos> + '_ {
        self.frontier.iter().map(|f| f.pos)
    }

    /// Every placement of a tile with the given side codes (one `u32` per rotation) that agrees
    /// with all its neighbours, in frontier order then rotation order.
    pub fn placements_into(&self, sides_by_rotation: &[u32; 4], out: &mut Vec<Placement>) {
        for f in &self.frontier {
            for r in Rotation::ALL {
                if sides_by_rotation[r.quarter_turns() as usize] & f.mask == f.want {
                    out.push(Placement { pos: f.pos, rotation: r });
                }
            }
        }
    }

    /// True when a tile with these side codes fits anywhere.
    pub fn fits_somewhere(&self, sides_by_rotation: &[u32; 4]) -> bool {
        self.frontier.iter().any(|f| sides_by_rotation.iter().any(|s| s & f.mask == f.want))
    }

    /// True when the placement agrees with the neighbours and touches at least one.
    pub fn fits(&self, sides: u32, pos: Pos) -> bool {
        let c = self.cell(pos);
        if c & FRONTIER == 0 {
            return false;
        }
        let f = &self.frontier[(c & !FRONTIER) as usize];
        sides & f.mask == f.want
    }

    /// Puts a tile on the board (the caller has checked that it fits); returns its index.
    pub fn place(&mut self, mut tile: PlacedTile) -> u16 {
        self.make_room(tile.pos);
        let index = self.tiles.len() as u16;
        let c = self.cell(tile.pos);
        if c & FRONTIER != 0 {
            self.remove_frontier((c & !FRONTIER) as usize);
        }
        tile.sides = tile.sides.to_le();
        self.set_cell(tile.pos, index + 1);
        self.tiles.push(tile);
        for side in Side::ALL {
            let npos = tile.pos.step(side);
            let nc = self.cell(npos);
            if nc != EMPTY && nc & FRONTIER == 0 {
                continue;
            }
            let fi = if nc == EMPTY {
                self.frontier.push(FrontierSquare { pos: npos, mask: 0, want: 0 });
                let fi = self.frontier.len() - 1;
                self.set_cell(npos, FRONTIER | fi as u16);
                fi
            } else {
                (nc & !FRONTIER) as usize
            };
            // The neighbour's side facing the new tile must show what the new tile shows.
            let facing = side.opposite().index() as u32 * 8;
            let code = (tile.sides >> (side.index() as u32 * 8)) & 0xFF;
            let f = &mut self.frontier[fi];
            f.mask |= 0xFF << facing;
            f.want |= code << facing;
        }
        index
    }

    fn remove_frontier(&mut self, i: usize) {
        self.frontier.swap_remove(i);
        if i < self.frontier.len() {
            let moved = self.frontier[i].pos;
            self.set_cell(moved, FRONTIER | i as u16);
        }
    }

    /// Grows the grid so that `pos` and its neighbours are inside it.
    fn make_room(&mut self, pos: Pos) {
        let (x, y) = (pos.x - self.origin.x, pos.y - self.origin.y);
        if x >= 1 && y >= 1 && x < self.width - 1 && y < self.height - 1 {
            return;
        }
        let (w, h) = (self.width * 2, self.height * 2);
        let origin = Pos::new(self.origin.x - self.width / 2, self.origin.y - self.height / 2);
        let mut cells = vec![EMPTY; (w * h) as usize];
        for row in 0..self.height {
            let from = (row * self.width) as usize;
            let to = ((row + self.height / 2) * w + self.width / 2) as usize;
            cells[to..to + self.width as usize].copy_from_slice(&self.cells[from..from + self.width as usize]);
        }
        self.origin = origin;
        self.width = w;
        self.height = h;
        self.cells = cells;
        // Tiles may have been placed at the old border; keep growing until there is room.
        self.make_room(pos);
    }

    /// The smallest and largest coordinates holding tiles.
    pub fn bounds(&self) -> Option<(Pos, Pos)> {
        let first = self.tiles.first()?.pos;
        Some(self.tiles.iter().fold((first, first), |(lo, hi), t| {
            (Pos::new(lo.x.min(t.pos.x), lo.y.min(t.pos.y)), Pos::new(hi.x.max(t.pos.x), hi.y.max(t.pos.y)))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(pos: Pos, sides: u32) -> PlacedTile {
        PlacedTile { pos, tile: 0, rotation: Rotation::new(0), first_segment: 0, sides }
    }

    #[test]
    fn frontier_demands_matching_sides() {
        let mut b = Board::new();
        // N=city(1) E=road(2) S=field(3) W=road(2)
        let d = 1 | 2 << 8 | 3 << 16 | 2 << 24;
        b.place(tile(Pos::new(0, 0), d));
        assert_eq!(b.frontier().count(), 4);
        // Above the tile, the new tile's south side must be a city.
        let south_city = 1 << 16;
        assert!(b.fits(south_city | 3 | 3 << 8 | 3 << 24, Pos::new(0, 1)));
        assert!(!b.fits(3 << 16, Pos::new(0, 1)));
        assert!(!b.fits(d, Pos::new(5, 5)));
    }

    #[test]
    fn the_grid_grows_in_every_direction() {
        let mut b = Board::new();
        for i in 0..40 {
            b.place(tile(Pos::new(i, -i), 0));
            b.place(tile(Pos::new(-i - 1, i), 0));
        }
        assert_eq!(b.index_at(Pos::new(39, -39)), Some(78));
        assert_eq!(b.index_at(Pos::new(-40, 39)), Some(79));
        assert_eq!(b.at(Pos::new(100, 100)), None);
        assert_eq!(b.bounds(), Some((Pos::new(-40, -39), Pos::new(39, 39))));
    }
}
