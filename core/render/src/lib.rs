//! SVG drawings from the tiles' own geometry: one tile, a whole tileset as a sheet (to check a
//! tileset by eye), and a game's board with its figures in player colours and the scores.
//!
//! A tile is drawn in a 100 × 100 square, north up, in its own orientation, then turned. Fields
//! are the background; each city segment is the sides it covers joined by curves bending to the
//! centre; roads and rivers run from the sides they leave by to where they stop; monasteries,
//! gardens, villages, coats of arms, goods and the small illustrations are marked on top.

mod tile;

use meeple_core::figures::Location;
use meeple_core::tileset::Tileset;
use meeple_core::{Game, Pos};
use std::fmt::Write;

pub use tile::{anchor, tile_body};

/// Player colours, by seat.
pub const COLOURS: [&str; 6] = ["#d62728", "#1f77b4", "#2ca02c", "#e6b800", "#111111", "#9467bd"];

/// Every tile of a tileset in a grid, with its id, its segments' ids and counts per edition.
pub fn tileset_sheet(ts: &Tileset) -> String {
    let cols = 8usize;
    let rows = ts.tiles.len().div_ceil(cols);
    let (cw, ch) = (120.0, 150.0);
    let mut body = String::new();
    for (i, def) in ts.tiles.iter().enumerate() {
        let (x, y) = ((i % cols) as f64 * cw + 10.0, (i / cols) as f64 * ch + 40.0);
        let _ = write!(body, r#"<g transform="translate({x},{y})">{}"#, tile_body(def, 0));
        // Each segment's id where its figures would stand: the names scenarios and scripts use.
        // The illustrations' names are there already: a segment's id goes below them.
        let pictures = tile::illustration_points(def);
        let mut placed: Vec<(f64, f64)> = pictures.iter().map(|&(x, y)| (x, y - 3.0)).collect();
        for (i, seg) in def.segments.iter().enumerate() {
            let (sx, mut sy) = anchor(def, i);
            // Segments marked at one point (a monastery and the field around it, both at the
            // centre) are named one under the other.
            while placed.iter().any(|&(px, py)| (px - sx).abs() < 20.0 && (py - sy).abs() < 8.0) {
                sy += 10.0;
            }
            placed.push((sx, sy));
            // A white halo drawn under the name (not `paint-order`, which some renderers lack).
            // Its tags beside it: what a script reads there (`road: inn`).
            let label =
                if seg.tags.is_empty() { seg.id.to_string() } else { format!("{}: {}", seg.id, seg.tags.join(", ")) };
            let (y, id) = (sy + 3.0, esc(&label));
            let _ = write!(
                body,
                r#"<text x="{sx:.1}" y="{y:.1}" class="seg-halo">{id}</text><text x="{sx:.1}" y="{y:.1}" class="seg">{id}</text>"#
            );
        }
        let counts: Vec<String> = ts.editions.iter().zip(&def.counts).map(|(e, n)| format!("{e}:{n}")).collect();
        // On a line of its own: beside the id it ran into the next tile's label.
        let mark = if def.reconstructed { r#"<text x="50" y="143" class="n">(reconstructed)</text>"# } else { "" };
        let _ = write!(
            body,
            r#"<text x="50" y="115" class="id">{}</text><text x="50" y="130" class="n">{}</text>{mark}</g>"#,
            esc(&if def.tags.is_empty() { def.id.clone() } else { format!("{} ({})", def.id, def.tags.join(", ")) }),
            esc(&counts.join(" "))
        );
    }
    let title = format!("{} ({} tile kinds)", ts.name, ts.tiles.len());
    let _ = write!(body, r#"<text x="10" y="20" class="score">{}</text>"#, esc(&title));
    if ts.tiles.iter().any(|t| t.reconstructed) {
        let note = "(reconstructed): no source gives this tile's geometry; it is drawn as a likely guess";
        let _ = write!(body, r#"<text x="10" y="33" class="n" style="text-anchor: start">{note}</text>"#);
    }
    document(cols as f64 * cw + 20.0, rows as f64 * ch + 50.0, &title, &body)
}

/// A game's board: every tile, the figures in their owners' colours, and the scores.
pub fn board(game: &Game) -> String {
    let (rules, st) = (game.rules(), game.state());
    let tiles = st.board().tiles();
    let (min, max) = st.board().bounds().unwrap_or((Pos::new(0, 0), Pos::new(0, 0)));
    // Screen y grows downwards and the board's y grows to the north.
    let origin = |p: Pos| ((p.x - min.x) as f64 * 100.0 + 10.0, (max.y - p.y) as f64 * 100.0 + 90.0);
    let mut body = String::new();
    for t in tiles {
        let (x, y) = origin(t.pos);
        let quarters = t.rotation.quarter_turns();
        let turn = u32::from(quarters) * 90;
        let def = &rules.tile(t.tile).def;
        let _ =
            write!(body, r#"<g transform="translate({x},{y}) rotate({turn},50,50)">{}</g>"#, tile_body(def, quarters));
    }
    for (id, f) in st.figures().iter().enumerate() {
        let (tile, at) = match f.at {
            Location::Segment { segment } => {
                let seg = st.features().info(segment);
                (seg.tile, Some(seg.local))
            }
            Location::Point { tile, .. } => (tile, None),
            _ => continue,
        };
        let placed = st.board().tile(tile);
        let def = &rules.tile(placed.tile).def;
        let (ax, ay) = at.map_or((50.0, 50.0), |s| anchor(def, s as usize));
        let (cx, cy) = turn_point((ax, ay), placed.rotation.quarter_turns());
        let (ox, oy) = origin(placed.pos);
        let colour = COLOURS[f.owner as usize % COLOURS.len()];
        let kind = rules.figure(f.kind);
        let letter = kind.name.one.chars().next().unwrap_or('?').to_ascii_uppercase();
        // A figure with faces shows the one it is turned to (a tollhouse's toll: T1, T2).
        let (label, face) = if kind.faces.is_empty() {
            (letter.to_string(), String::new())
        } else {
            (format!("{letter}{}", f.face), format!(", face {}", f.face))
        };
        let owner =
            game.setup().players.get(f.owner as usize).cloned().unwrap_or_else(|| format!("player {}", f.owner + 1));
        let title = esc(&format!("{owner}'s {}{face}", kind.name.one));
        let _ = write!(
            body,
            r#"<g class="figure" data-id="{id}"><title>{title}</title><circle cx="{:.1}" cy="{:.1}" r="9" fill="{colour}" stroke="white" stroke-width="2"/><text x="{:.1}" y="{:.1}" class="fig">{label}</text></g>"#,
            ox + cx,
            oy + cy,
            ox + cx,
            oy + cy + 4.0
        );
    }
    let names = &game.setup().players;
    let mut y = 20.0;
    for p in 0..st.players() {
        let colour = COLOURS[p as usize % COLOURS.len()];
        let name = names.get(p as usize).cloned().unwrap_or_else(|| format!("player {}", p + 1));
        let _ = write!(
            body,
            r#"<text x="10" y="{y}" class="score" fill="{colour}">{}: {}</text>"#,
            esc(&name),
            st.score(p)
        );
        y += 18.0;
    }
    let width = (max.x - min.x + 1) as f64 * 100.0 + 20.0;
    let height = (max.y - min.y + 1) as f64 * 100.0 + 100.0;
    document(width.max(300.0), height.max(90.0 + 18.0 * st.players() as f64), "meeple", &body)
}

/// A point of a tile drawn north up, after turning the tile clockwise by quarter turns.
fn turn_point((x, y): (f64, f64), quarters: u8) -> (f64, f64) {
    (0..quarters).fold((x, y), |(x, y), _| (100.0 - y, x))
}

fn document(width: f64, height: f64, title: &str, body: &str) -> String {
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">
<title>{}</title>
<style>
.field {{ fill: #9fd36b; }} .city {{ fill: #c8a26a; stroke: #7a5a2e; stroke-width: 1.5; }}
.road {{ stroke: #f4f1e8; stroke-width: 7; fill: none; stroke-linecap: butt; }}
.road-edge {{ stroke: #6b6b6b; stroke-width: 9; fill: none; stroke-linecap: butt; }}
.river {{ stroke: #3d8fd6; stroke-width: 10; fill: none; stroke-linecap: butt; }}
.monastery {{ fill: #b5523b; stroke: #5b2a1e; }} .garden {{ fill: #4f9a3a; stroke: #2e5e22; }}
.village {{ fill: #444; }} .point {{ fill: #8a5a2b; stroke: white; }} .arms {{ fill: #2356a8; stroke: white; }} .border {{ fill: none; stroke: #55752f; stroke-width: 1; }}
text {{ font-family: sans-serif; text-anchor: middle; }} .id {{ font-size: 12px; }} .n {{ font-size: 9px; fill: #555; }}
.pic {{ font-size: 8px; fill: #333; }} .goods {{ font-size: 10px; font-weight: bold; fill: #5a2d82; }}
.seg {{ font-size: 8px; fill: #222; }} .seg-halo {{ font-size: 8px; fill: white; stroke: white; stroke-width: 2.5px; opacity: 0.8; }}
.fig {{ font-size: 10px; fill: white; font-weight: bold; }} .score {{ font-size: 14px; text-anchor: start; font-weight: bold; }}
</style>
{}
</svg>
"##,
        esc(title),
        body
    )
}

/// Escapes text for SVG.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
