//! Which roads end at which intersections, and what stands beside a road (tollkeepers.md §4.2,
//! §4.3). Pure functions of the tile definitions and a road's parts.

use meeple_plugin_sdk::meeple_core::rules::Rules;
use meeple_plugin_sdk::meeple_core::tileset::{End, SegmentKind, TileDef};
use meeple_plugin_sdk::meeple_core::view::FeaturePart;
use std::collections::BTreeSet;

/// The small pictures a toll counts besides traveller groups: farmhouses, stables (cowshed,
/// pigsty, donkey stable), gardens and highwaymen. Water towers and the Traders & Builders
/// cottage are not on the list (ambiguities K2, traders_builders.md footnote 23).
const COUNTED: [&str; 6] = ["farmhouse", "cowshed", "pigsty", "donkey-stable", "garden", "highwaymen"];

/// The pictures beside a road.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beside {
    /// Farmhouses, stables, gardens and highwaymen.
    pub pictures: u32,
    /// Traveller groups.
    pub travellers: u32,
}

/// The pictures that flank a road's segments. Only those beside a segment of this road count,
/// not those beside other roads of the same tile (FAQ 01/2021); each counts once even when it
/// flanks two segments of the road.
pub fn beside(rules: &Rules, parts: &[FeaturePart]) -> Beside {
    let mut pictures = BTreeSet::new();
    let mut gardens = BTreeSet::new();
    let mut travellers = BTreeSet::new();
    for part in parts {
        let def = &rules.tile(part.tile.tile).def;
        for (i, ill) in def.illustrations.iter().enumerate() {
            if !ill.flanks.contains(&part.local) {
                continue;
            }
            if ill.kind == "travellers" {
                travellers.insert((part.tile.index, i));
            } else if COUNTED.contains(&ill.kind.as_str()) {
                pictures.insert((part.tile.index, i));
            }
        }
        // Gardens are segments (an abbot may stand on one), flanking roads like pictures do.
        for (i, seg) in def.segments.iter().enumerate() {
            if seg.kind == SegmentKind::Garden && seg.flanks.contains(&part.local) {
                gardens.insert((part.tile.index, i));
            }
        }
    }
    Beside { pictures: (pictures.len() + gardens.len()) as u32, travellers: travellers.len() as u32 }
}

/// The villages a road's ends stop at, as (placed tile index, point index), one per end: a
/// road that loops through a village names it twice.
pub fn village_ends(rules: &Rules, parts: &[FeaturePart]) -> Vec<(u16, u8)> {
    let mut ends = Vec::new();
    for part in parts {
        let def = &rules.tile(part.tile.tile).def;
        for end in &def.segments[part.local as usize].ends {
            if let End::Stop { point: Some(p), .. } = end
                && def.points[*p as usize].kind == "village"
            {
                ends.push((part.tile.index, *p));
            }
        }
    }
    ends
}

/// The intersections of a tile kind: its villages where two to four roads end. A village with a
/// single road (a road's dead end) is none; cities and monasteries are not villages.
pub fn intersections(def: &TileDef) -> Vec<u8> {
    (0..def.points.len() as u8)
        .filter(|&p| def.points[p as usize].kind == "village")
        .filter(|&p| (2..=4).contains(&road_segments_at(def, p).len()))
        .collect()
}

/// The road segments of a tile kind that end at point `p`, by index.
pub fn road_segments_at(def: &TileDef, p: u8) -> Vec<u8> {
    (0..def.segments.len() as u8)
        .filter(|&i| {
            let s = &def.segments[i as usize];
            s.kind == SegmentKind::Road
                && s.ends.iter().any(|e| matches!(e, End::Stop { point: Some(q), .. } if *q == p))
        })
        .collect()
}
