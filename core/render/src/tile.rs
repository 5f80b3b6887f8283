//! One tile kind, north up, in a 100 × 100 square.

use meeple_core::Side;
use meeple_core::tileset::{End, SegmentKind, TileDef};
use std::fmt::Write;

const CENTRE: (f64, f64) = (50.0, 50.0);

/// Where a port meets the tile's edge: sides clockwise from the north, each with its left,
/// centre and right port at 1/6, 1/2 and 5/6 of the side, clockwise.
fn port_point(port: usize) -> (f64, f64) {
    let t = [100.0 / 6.0, 50.0, 500.0 / 6.0][port % 3];
    match port / 3 {
        0 => (t, 0.0),
        1 => (100.0, t),
        2 => (100.0 - t, 100.0),
        _ => (0.0, 100.0 - t),
    }
}

/// A side's two corners, clockwise.
fn corners(side: usize) -> [(f64, f64); 2] {
    let c = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)];
    [c[side], c[(side + 1) % 4]]
}

fn side_index(s: Side) -> usize {
    s as usize
}

/// The sides whose centre port a segment covers, clockwise from the north.
fn covered_sides(ports: &[meeple_core::Port]) -> Vec<usize> {
    (0..4).filter(|&s| ports.iter().any(|p| p.index() == s * 3 + 1)).collect()
}

/// The point a segment is marked at (its figures stand there): the middle of its ports pulled
/// towards the centre; the centre for monasteries, gardens and segments without ports.
pub fn anchor(def: &TileDef, segment: usize) -> (f64, f64) {
    let seg = &def.segments[segment];
    if matches!(seg.kind, SegmentKind::Monastery | SegmentKind::Garden) || seg.ports.is_empty() {
        return CENTRE;
    }
    let n = seg.ports.len() as f64;
    let (sx, sy) = seg.ports.iter().map(|p| port_point(p.index())).fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let (mx, my) = (sx / n, sy / n);
    let pull = if seg.kind == SegmentKind::Road { 0.45 } else { 0.3 };
    (mx + (CENTRE.0 - mx) * pull, my + (CENTRE.1 - my) * pull)
}

/// Where each small illustration's name is written: at the field it lies in (or the road it
/// flanks), a second one a line lower.
pub fn illustration_points(def: &TileDef) -> Vec<(f64, f64)> {
    let at = |(i, ill): (usize, &meeple_core::tileset::Illustration)| {
        let (x, y) = match (ill.field, ill.flanks.first()) {
            (Some(f), _) => anchor(def, f as usize),
            (None, Some(&r)) => anchor(def, r as usize),
            _ => (50.0, 85.0),
        };
        (x, y + 9.0 * i as f64 % 18.0)
    };
    def.illustrations.iter().enumerate().map(at).collect()
}

/// The drawing of a tile kind (without a surrounding `<g>`), for a tile the surrounding `<g>` turns
/// clockwise by `quarters`: its labels are turned back so that they read upright on the board.
pub fn tile_body(def: &TileDef, quarters: u8) -> String {
    let upright = |x: f64, y: f64| match quarters % 4 {
        0 => String::new(),
        q => format!(r#" transform="rotate({},{x:.1},{y:.1})""#, -90 * i32::from(q)),
    };
    let mut out = String::from(r#"<rect class="field" width="100" height="100"/>"#);
    for seg in def.segments.iter().filter(|s| s.kind == SegmentKind::City) {
        out.push_str(&city(&covered_sides(&seg.ports)));
    }
    for (class, kind) in [("river", SegmentKind::River), ("road", SegmentKind::Road)] {
        for seg in def.segments.iter().filter(|s| s.kind == kind) {
            let path = line_path(&seg.ends);
            if class == "road" {
                let _ = write!(out, r#"<path class="road-edge" d="{path}"/>"#);
            }
            let _ = write!(out, r#"<path class="{class}" d="{path}"/>"#);
        }
    }
    for (i, seg) in def.segments.iter().enumerate() {
        let (x, y) = anchor(def, i);
        match seg.kind {
            SegmentKind::Monastery => {
                let _ = write!(out, r#"<rect class="monastery" x="38" y="36" width="24" height="28" rx="3"/>"#);
            }
            SegmentKind::Garden => {
                let _ = write!(out, r#"<circle class="garden" cx="50" cy="50" r="12"/>"#);
            }
            SegmentKind::City => {
                for a in 0..seg.arms {
                    let _ = write!(
                        out,
                        r#"<circle class="arms" cx="{:.1}" cy="{:.1}" r="5"/>"#,
                        x + 12.0 * a as f64 - 6.0,
                        y - 8.0
                    );
                }
                if let Some(g) = &seg.goods {
                    let _ = write!(
                        out,
                        r#"<text class="goods" x="{x:.1}" y="{:.1}"{}>{}</text>"#,
                        y + 10.0,
                        upright(x, y + 10.0),
                        short(g)
                    );
                }
            }
            _ => {}
        }
    }
    if def.points.iter().any(|p| p.kind == "village") {
        out.push_str(r#"<circle class="village" cx="50" cy="50" r="6"/>"#);
    }
    // Any other named point (a mod's shrine, say) where the roads that stop at it meet: a mark
    // and its id, one below the other when a tile has several.
    for (i, p) in def.points.iter().filter(|p| p.kind != "village").enumerate() {
        let y = 50.0 + 14.0 * i as f64;
        let _ = write!(
            out,
            r#"<rect class="point" x="45" y="{:.1}" width="10" height="10"/><text class="pic" x="50" y="{:.1}"{}>{}</text>"#,
            y - 5.0,
            y - 8.0,
            upright(50.0, y - 8.0),
            p.id
        );
    }
    for (ill, (x, y)) in def.illustrations.iter().zip(illustration_points(def)) {
        let _ = write!(out, r#"<text class="pic" x="{x:.1}" y="{y:.1}"{}>{}</text>"#, upright(x, y), short(&ill.kind));
    }
    out.push_str(r#"<rect class="border" width="100" height="100"/>"#);
    out
}

/// A city: the sides it covers, joined by curves bending towards the centre.
fn city(sides: &[usize]) -> String {
    let Some(&first) = sides.first() else { return String::new() };
    let [start, _] = corners(first);
    let mut d = format!("M{:.1},{:.1}", start.0, start.1);
    for (i, &s) in sides.iter().enumerate() {
        let [_, end] = corners(s);
        let _ = write!(d, " L{:.1},{:.1}", end.0, end.1);
        let next = sides[(i + 1) % sides.len()];
        let [to, _] = corners(next);
        if to != end {
            // Across an uncovered stretch: bend in; a single side bends deeper, a cap.
            let depth = if sides.len() == 1 { 0.8 } else { 0.55 };
            let mid = ((end.0 + to.0) / 2.0, (end.1 + to.1) / 2.0);
            let ctrl = (mid.0 + (CENTRE.0 - mid.0) * depth * 2.0, mid.1 + (CENTRE.1 - mid.1) * depth * 2.0);
            let _ = write!(d, " Q{:.1},{:.1} {:.1},{:.1}", ctrl.0, ctrl.1, to.0, to.1);
        }
    }
    format!(r#"<path class="city" d="{d} Z"/>"#)
}

/// A road or river: from each side it leaves by to the centre, where its stops are.
fn line_path(ends: &[End]) -> String {
    let points: Vec<(f64, f64)> = ends
        .iter()
        .map(|e| match e {
            End::Side(s) => port_point(side_index(*s) * 3 + 1),
            End::Stop { .. } => CENTRE,
        })
        .collect();
    match points[..] {
        [a, b] if a != CENTRE && b != CENTRE => {
            format!("M{:.1},{:.1} Q50,50 {:.1},{:.1}", a.0, a.1, b.0, b.1)
        }
        _ => points.iter().map(|p| format!("M{:.1},{:.1} L50,50", p.0, p.1)).collect::<Vec<_>>().join(" "),
    }
}

/// A short label for a picture or goods kind (`donkey-stable` → `donkey`).
fn short(kind: &str) -> &str {
    kind.split(['-', ':']).next().unwrap_or(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_lie_on_their_sides_clockwise() {
        assert_eq!(port_point(1), (50.0, 0.0), "N");
        assert_eq!(port_point(4), (100.0, 50.0), "E");
        assert_eq!(port_point(7), (50.0, 100.0), "S");
        assert_eq!(port_point(10), (0.0, 50.0), "W");
        assert!(port_point(0).0 < port_point(2).0, "NL is west of NR");
        assert!(port_point(3).1 < port_point(5).1, "EL is north of ER");
    }

    #[test]
    fn a_named_point_is_drawn_with_its_id_and_a_village_as_a_village() {
        let text = "[tileset]\nid = \"t\"\neditions = [\"C3\"]\n[[tiles]]\nid = \"S\"\ncount = 1\nsides = \"FFRF\"\npoints = [{ id = \"shrine\", kind = \"shrine\" }]\nsegments = [\n  { id = \"r\", kind = \"road\", ends = [\"S\", \"shrine\"] },\n  { id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] },\n]\n";
        let tileset = meeple_core::Tileset::parse("t.toml", text).unwrap();
        let body = tile_body(&tileset.tiles[0], 0);
        assert!(body.contains(r#"<rect class="point" x="45" y="45.0""#), "{body}");
        assert!(body.contains(">shrine</text>"), "{body}");
        assert!(!body.contains("village"), "{body}");
        let mut def = tileset.tiles[0].clone();
        def.points[0].kind = "village".into();
        let village = tile_body(&def, 0);
        assert!(village.contains(r#"class="village""#) && !village.contains(r#"class="point""#), "{village}");
    }

    #[test]
    fn a_one_sided_city_is_a_cap_and_a_road_runs_side_to_side() {
        assert_eq!(city(&[0]), r#"<path class="city" d="M0.0,0.0 L100.0,0.0 Q50.0,80.0 0.0,0.0 Z"/>"#);
        let road = line_path(&[End::Side(Side::E), End::Side(Side::W)]);
        assert_eq!(road, "M100.0,50.0 Q50,50 0.0,50.0");
    }
}
