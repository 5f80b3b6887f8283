//! The shipped tilesets hold what the rules digests say, and a broken tileset is reported with
//! its file, line and column.

use meeple_core::tileset::End;
use meeple_core::{SegmentKind, Tileset};
use meeple_tests::repo;
use std::collections::BTreeMap;

fn base() -> Tileset {
    let text = std::fs::read_to_string(repo().join("tilesets/base.toml")).unwrap();
    Tileset::parse("tilesets/base.toml", &text).unwrap_or_else(|r| panic!("{r}"))
}

/// The letter a tile copies (`U-garden` → `U`).
fn letter(id: &str) -> &str {
    id.split('-').next().unwrap()
}

#[test]
fn base_has_72_tiles_of_24_kinds_in_every_edition() {
    let ts = base();
    assert_eq!(ts.editions, ["C1", "C2", "C3"]);
    assert_eq!(ts.tiles[ts.start.unwrap()].id, "D");
    // base.md §9: counts per letter.
    let expected: BTreeMap<&str, u32> = [
        ("A", 2),
        ("B", 4),
        ("C", 1),
        ("D", 4),
        ("E", 5),
        ("F", 2),
        ("G", 1),
        ("H", 3),
        ("I", 2),
        ("J", 3),
        ("K", 3),
        ("L", 3),
        ("M", 2),
        ("N", 3),
        ("O", 2),
        ("P", 3),
        ("Q", 1),
        ("R", 3),
        ("S", 2),
        ("T", 1),
        ("U", 8),
        ("V", 9),
        ("W", 4),
        ("X", 1),
    ]
    .into_iter()
    .collect();
    for (ed, name) in ts.editions.iter().enumerate() {
        let mut per_letter: BTreeMap<&str, u32> = BTreeMap::new();
        let mut arms = 0;
        for (t, n) in ts.contents(ed) {
            *per_letter.entry(letter(&t.id)).or_default() += n;
            arms += n * t.segments.iter().map(|s| s.arms as u32).sum::<u32>();
        }
        assert_eq!(per_letter, expected, "{name}: tiles per letter");
        assert_eq!(ts.total(ed), 72, "{name}");
        assert_eq!(arms, 10, "{name}: coats of arms");
    }
}

#[test]
fn sides_follow_the_digest() {
    let ts = base();
    let sides = [
        ("A", "FFRF"),
        ("B", "FFFF"),
        ("C", "CCCC"),
        ("D", "CRFR"),
        ("E", "CFFF"),
        ("F", "FCFC"),
        ("G", "FCFC"),
        ("H", "CFCF"),
        ("I", "CFFC"),
        ("J", "CRRF"),
        ("K", "CFRR"),
        ("L", "CRRR"),
        ("M", "CFFC"),
        ("N", "CFFC"),
        ("O", "CRRC"),
        ("P", "CRRC"),
        ("Q", "CCFC"),
        ("R", "CCFC"),
        ("S", "CCRC"),
        ("T", "CCRC"),
        ("U", "FRFR"),
        ("V", "FFRR"),
        ("W", "FRRR"),
        ("X", "RRRR"),
    ];
    for (id, want) in sides {
        assert_eq!(ts.tile(id).unwrap().side_letters(), want, "tile {id}");
    }
    // J and K are mirror images: J's road runs E–S, K's S–W (ambiguities.md B7).
    let road_sides = |id: &str| {
        ts.tile(id).unwrap().segments.iter().find(|s| s.kind == SegmentKind::Road).unwrap().open_sides.clone()
    };
    assert_eq!(format!("{:?}", road_sides("J")), "[E, S]");
    assert_eq!(format!("{:?}", road_sides("K")), "[S, W]");
}

#[test]
fn gardens_and_illustrations_exist_only_from_c2() {
    let ts = base();
    for (ed, name) in ts.editions.iter().enumerate() {
        let mut pictures: BTreeMap<String, u32> = BTreeMap::new();
        for (t, n) in ts.contents(ed) {
            for s in t.segments.iter().filter(|s| s.kind == SegmentKind::Garden) {
                assert!(s.field.is_some(), "{}: a garden lies in a field", t.id);
                *pictures.entry("garden".into()).or_default() += n;
            }
            for i in &t.illustrations {
                *pictures.entry(i.kind.clone()).or_default() += n;
            }
        }
        let want: BTreeMap<String, u32> = if name == "C1" {
            BTreeMap::new()
        } else {
            [
                ("cowshed", 3),
                ("donkey-stable", 2),
                ("farmhouse", 8),
                ("garden", 8),
                ("highwaymen", 8),
                ("pigsty", 3),
                ("water-tower", 8),
            ]
            .into_iter()
            .map(|(k, n)| (k.to_string(), n))
            .collect()
        };
        assert_eq!(pictures, want, "{name}");
    }
}

#[test]
fn a_broken_tileset_names_file_line_and_column() {
    let text = std::fs::read_to_string(repo().join("tilesets/base.toml")).unwrap();
    let broken = text.replacen("sides = \"FFRF\"", "sides = \"FFRX\"", 1).replacen(
        "halves = [\"WL\", \"WR\", \"SL\", \"SR\", \"EL\", \"ER\"]",
        "halves = [\"WL\", \"WR\", \"SL\", \"SR\", \"EL\"]",
        1,
    );
    let line_of = |needle: &str| broken.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let err = Tileset::parse("tilesets/base.toml", &broken).unwrap_err();
    let messages: Vec<String> = err.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        messages.iter().any(|m| m.starts_with(&format!(
            "tilesets/base.toml:{}:9: `sides = \"FFRX\"` must be four letters",
            line_of("FFRX")
        ))),
        "{messages:#?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("tile `E`: side E is F, so one field segment must cover both EL and ER")),
        "{messages:#?}"
    );
    // The ports that problem leaves uncovered are not reported again, one by one.
    assert!(!messages.iter().any(|m| m.contains("tile `E`: port")), "{messages:#?}");
}

fn load(name: &str) -> Tileset {
    let path = format!("tilesets/{name}.toml");
    let text = std::fs::read_to_string(repo().join(&path)).unwrap();
    Tileset::parse(&path, &text).unwrap_or_else(|r| panic!("{r}"))
}

/// Goods symbols per type in an edition, each tile's count included.
fn goods(ts: &Tileset, edition: &str) -> BTreeMap<String, u32> {
    let ed = ts.edition(edition).unwrap();
    let mut out = BTreeMap::new();
    for (t, n) in ts.contents(ed) {
        for s in t.segments.iter().filter_map(|s| s.goods.as_ref()) {
            *out.entry(s.clone()).or_default() += n;
        }
    }
    out
}

#[test]
fn traders_and_builders_has_24_tiles_and_20_goods_symbols() {
    let ts = load("traders-builders");
    let want: BTreeMap<String, u32> =
        [("cloth", 5), ("grain", 6), ("wine", 9)].into_iter().map(|(k, n)| (k.to_string(), n)).collect();
    for ed in ["C1", "C2", "C3"] {
        assert_eq!(ts.total(ts.edition(ed).unwrap()), 24, "{ed}");
        assert_eq!(goods(&ts, ed), want, "{ed}");
    }
    // The special tiles of traders_builders.md §6.
    let bridge = ts.tile("B").unwrap();
    assert_eq!(bridge.segments.iter().filter(|s| s.kind == SegmentKind::Road).count(), 2);
    assert_eq!(bridge.segments.iter().filter(|s| s.kind == SegmentKind::Field).count(), 4);
    let m = ts.tile("M").unwrap();
    assert_eq!(m.segments.iter().filter(|s| s.kind == SegmentKind::City).count(), 3);
    assert!(m.segments.iter().any(|s| s.kind == SegmentKind::Field && s.ports.is_empty() && s.cities.len() == 3));
    let c31 = load("traders-builders-c3.1");
    assert_eq!(c31.total(0), 23);
    let want31: BTreeMap<String, u32> =
        [("chicken", 8), ("cloth", 5), ("grain", 6)].into_iter().map(|(k, n)| (k.to_string(), n)).collect();
    assert_eq!(goods(&c31, "C3.1"), want31);
    assert_eq!(goods(&load("traders-builders-c3.1-river"), "C3.1")["chicken"], 1);
    // C3.1's special tiles (seed 004): the bridge; the monastery where one road ends at it and the
    // other in the field, with one field; the outhouse that closes a road in the field.
    let kinds = |id: &str, kind: SegmentKind| c31.tile(id).unwrap().segments.iter().filter(|s| s.kind == kind).count();
    assert_eq!((kinds("02", SegmentKind::Road), kinds("02", SegmentKind::Field)), (2, 4));
    assert_eq!((kinds("10", SegmentKind::Road), kinds("10", SegmentKind::Field)), (2, 1));
    let stops = |id: &str| -> Vec<String> {
        c31.tile(id)
            .unwrap()
            .segments
            .iter()
            .flat_map(|s| &s.ends)
            .filter_map(|e| match e {
                End::Stop { kind, .. } => Some(kind.clone()),
                End::Side(_) => None,
            })
            .collect()
    };
    assert_eq!(stops("10"), ["monastery", "dead-end"]);
    assert!(stops("01").contains(&"house".to_string()), "the outhouse closes a road");
    assert!(c31.tile("01").unwrap().tags.contains(&"outhouse".to_string()));
}

#[test]
fn the_river_has_12_tiles_with_a_spring_and_a_lake() {
    let ts = load("river");
    for ed in ["C1", "C2", "C3"] {
        let e = ts.edition(ed).unwrap();
        assert_eq!(ts.total(e), 12, "{ed}");
        let gardens: u32 = ts
            .contents(e)
            .filter(|(t, _)| t.segments.iter().any(|s| s.kind == SegmentKind::Garden))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(gardens, if ed == "C1" { 0 } else { 1 }, "{ed}");
    }
    assert!(ts.tile("spring").unwrap().tags.contains(&"spring".to_string()));
    assert!(ts.tile("lake").unwrap().tags.contains(&"lake".to_string()));
}

#[test]
fn the_tollkeepers_have_10_tiles_8_traveller_groups_and_4_villages() {
    let ts = load("tollkeepers");
    for ed in ["C2", "C3"] {
        let e = ts.edition(ed).unwrap();
        assert_eq!(ts.total(e), 10, "{ed}");
        let travellers: u32 = ts
            .contents(e)
            .map(|(t, n)| n * t.illustrations.iter().filter(|i| i.kind == "travellers").count() as u32)
            .sum();
        assert_eq!(travellers, 8, "{ed}");
        let villages: u32 =
            ts.contents(e).map(|(t, n)| n * t.points.iter().filter(|p| p.kind == "village").count() as u32).sum();
        assert_eq!(villages, 4, "{ed}");
    }
    // Tile 05: four roads in C3, three roads and a field in C2 (tollkeepers.md §7).
    let sides = |ed: &str| {
        let e = ts.edition(ed).unwrap();
        ts.contents(e).find(|(t, _)| t.id.starts_with("05")).map(|(t, _)| t.side_letters()).unwrap()
    };
    assert_eq!(sides("C3"), "RRRR");
    assert_eq!(sides("C2").chars().filter(|c| *c == 'R').count(), 3);
}

#[test]
fn a_tile_looks_the_same_turned_only_when_all_it_holds_lands_alike() {
    let ts = base();
    let turns = |id: &str| -> Vec<u8> {
        let tile = ts.tiles.iter().find(|t| t.id == id).unwrap_or_else(|| panic!("no tile {id}"));
        (1..4).filter(|&k| tile.looks_the_same_turned(meeple_core::Rotation::new(k))).collect()
    };
    // A monastery alone, a city all round, the crossroads: any turn.
    for id in ["B", "B-farmhouse", "C", "X"] {
        assert_eq!(turns(id), [1, 2, 3], "{id}");
    }
    // A straight road, a city band, two caps across: half a turn, a garden in the one field too.
    for id in ["U", "F", "G", "H", "H-garden"] {
        assert_eq!(turns(id), [2], "{id}");
    }
    // A garden or a picture in one of the two fields beside the road, a curve, a monastery's road.
    for id in ["U-garden", "U-highwaymen", "V", "A"] {
        assert_eq!(turns(id), [] as [u8; 0], "{id}");
    }
}
