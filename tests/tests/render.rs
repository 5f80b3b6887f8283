//! SVG drawings: a tileset sheet shows every tile kind, a board every tile and every figure in
//! its owner's colour.

use meeple_core::Game;
use meeple_core::bots::{Bot, RandomBot};
use meeple_core::figures::Location;
use meeple_core::tileset::Tileset;
use meeple_tests::{load_toml, repo};

#[test]
fn a_tileset_sheet_draws_every_tile_kind_and_marks_reconstructions() {
    let text = std::fs::read_to_string(repo().join("tilesets/tollkeepers.toml")).unwrap();
    let ts = Tileset::parse("tollkeepers.toml", &text).unwrap();
    let svg = meeple_render::tileset_sheet(&ts);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches(r#"class="border""#).count(), ts.tiles.len(), "one tile drawing per kind");
    for def in &ts.tiles {
        assert!(svg.contains(&format!(">{}", def.id)), "tile {} is labelled", def.id);
    }
    // Every segment is named, where its figures would stand.
    let segments: usize = ts.tiles.iter().map(|t| t.segments.len()).sum();
    assert_eq!(svg.matches(r#"class="seg""#).count(), segments, "one label per segment");
    // The first segment of a tile is named where its figures would stand.
    let first = &ts.tiles[0];
    let (x, y) = meeple_render::anchor(first, 0);
    let label = format!(r#"<text x="{x:.1}" y="{:.1}" class="seg">{}</text>"#, y + 3.0, first.segments[0].id);
    assert!(svg.contains(&label), "{label}");
    let reconstructed = ts.tiles.iter().filter(|t| t.reconstructed).count();
    assert!(reconstructed > 0);
    assert_eq!(svg.matches(">(reconstructed)</text>").count(), reconstructed, "each reconstruction is marked");
    assert!(svg.contains("(reconstructed): no source gives"), "and the mark is explained");
    assert_eq!(svg.matches(r#"class="village""#).count(), ts.tiles.iter().filter(|t| !t.points.is_empty()).count());
}

#[test]
fn a_tileset_sheet_writes_the_tags_of_tiles_and_segments_beside_their_ids() {
    let text = "[tileset]\nid = \"inns\"\nname = \"Inns\"\n\n[[tiles]]\nid = \"inn-road\"\ncount = 1\n\
                sides = \"FRFR\"\ntags = [\"lakeside\"]\nsegments = [\n  { id = \"road\", kind = \"road\", \
                ends = [\"W\", \"E\"], tags = [\"inn\"] },\n  { id = \"north\", kind = \"field\", \
                halves = [\"WR\", \"NL\", \"NR\", \"EL\"] },\n  { id = \"south\", kind = \"field\", \
                halves = [\"ER\", \"SL\", \"SR\", \"WL\"] },\n]\n";
    let ts = Tileset::parse("inns.toml", text).unwrap_or_else(|e| panic!("{e}"));
    let svg = meeple_render::tileset_sheet(&ts);
    assert!(svg.contains(r#"class="seg">road: inn</text>"#), "{svg}");
    assert!(svg.contains(r#"class="seg">north</text>"#), "a segment without tags is named alone");
    assert!(svg.contains(r#"class="id">inn-road (lakeside)</text>"#), "{svg}");
}

#[test]
fn a_board_draws_every_tile_and_every_figure_in_its_owners_colour() {
    let loaded = load_toml("r.toml", "players = 3\nseed = 4\n[[expansions]]\nid = \"traders-builders\"\n").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(4)).unwrap();
    let mut bot = RandomBot::new(4);
    for _ in 0..120 {
        let a = bot.choose(&game);
        game.apply(a).unwrap();
    }
    let svg = meeple_render::board(&game);
    let st = game.state();
    assert_eq!(svg.matches(r#"class="border""#).count(), st.board().tiles().len());
    let on_board: Vec<_> =
        st.figures().iter().filter(|f| matches!(f.at, Location::Segment { .. } | Location::Point { .. })).collect();
    assert!(!on_board.is_empty());
    assert_eq!(svg.matches(r#"class="figure""#).count(), on_board.len());
    for p in 0..3u8 {
        let colour = meeple_render::COLOURS[p as usize];
        let figures = on_board.iter().filter(|f| f.owner == p).count();
        assert_eq!(svg.matches(&format!(r#"r="9" fill="{colour}""#)).count(), figures, "seat {p}");
        assert!(svg.contains(&format!(": {}</text>", st.score(p))), "seat {p}'s score");
    }
}

#[test]
fn labels_on_a_turned_tile_are_turned_back_to_read_upright() {
    let loaded = load_toml("r.toml", "players = 2\nseed = 9\n[[expansions]]\nid = \"traders-builders\"\n").unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(9)).unwrap();
    let mut bot = RandomBot::new(9);
    while !game.is_over() {
        let a = bot.choose(&game);
        game.apply(a).unwrap();
    }
    let svg = meeple_render::board(&game);
    // Goods on cities and field illustrations are the tiles' labels.
    let labels = |def: &meeple_core::tileset::TileDef| {
        def.segments.iter().filter(|s| s.goods.is_some()).count() + def.illustrations.len()
    };
    for quarters in 1..4u8 {
        let expected: usize = game
            .state()
            .board()
            .tiles()
            .iter()
            .filter(|t| t.rotation.quarter_turns() == quarters)
            .map(|t| labels(&game.rules().tile(t.tile).def))
            .sum();
        let turned_back = svg.matches(&format!(r#" transform="rotate(-{},"#, 90 * u32::from(quarters))).count();
        assert_eq!(turned_back, expected, "labels on tiles turned {quarters} quarters");
    }
    assert!(svg.matches(r#"class="goods""#).count() > 3, "the game drew goods to check");
}

/// The numbers of `x="…"` and `y="…"` in each tag of a class, in one tile's drawing.
fn text_places(tile: &str, tag_start: &str) -> Vec<(f64, f64)> {
    let number = |tag: &str, key: &str| -> f64 {
        let from = tag.find(key).expect("a coordinate") + key.len();
        tag[from..].split('"').next().unwrap().parse().unwrap()
    };
    tile.split("<text").filter(|t| t.contains(tag_start)).map(|t| (number(t, "x=\""), number(t, "y=\""))).collect()
}

#[test]
fn segment_names_on_a_sheet_keep_clear_of_the_illustrations_names() {
    for file in ["tilesets/tollkeepers.toml", "tilesets/base.toml"] {
        let ts = Tileset::parse(file, &std::fs::read_to_string(repo().join(file)).unwrap()).unwrap();
        let svg = meeple_render::tileset_sheet(&ts);
        let mut pictures = 0;
        for tile in svg.split("<g ").skip(1) {
            let names = text_places(tile, r#"class="seg">"#);
            for (px, py) in text_places(tile, r#"class="pic""#) {
                pictures += 1;
                let clash = names.iter().find(|(x, y)| (x - px).abs() < 20.0 && (y - py).abs() < 8.0);
                assert!(clash.is_none(), "{file}: a segment's name over an illustration's at ({px}, {py})");
            }
        }
        assert!(pictures >= 8, "{file}: the illustrations are drawn ({pictures})");
    }
}

#[test]
fn a_figure_with_faces_shows_the_one_it_is_turned_to() {
    let config = "players = 3\nseed = 9\n[[expansions]]\nid = \"tollkeepers\"\n";
    let loaded = load_toml("r.toml", config).unwrap();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(9)).unwrap();
    let mut bot = RandomBot::new(9);
    let rules = loaded.rules.clone();
    let turned = |game: &Game| {
        game.state()
            .figures()
            .iter()
            .filter(|f| !rules.figure(f.kind).faces.is_empty() && !matches!(f.at, Location::Supply))
            .map(|f| (f.owner, f.face))
            .collect::<Vec<_>>()
    };
    while !game.is_over() && !turned(&game).iter().any(|(_, face)| *face == 2) {
        let a = bot.choose(&game);
        game.apply(a).unwrap();
    }
    let on_board = turned(&game);
    assert!(on_board.iter().any(|(_, face)| *face == 2), "a tollhouse was turned to its face 2");
    let svg = meeple_render::board(&game);
    for (owner, face) in on_board {
        let name = &game.setup().players[owner as usize];
        assert!(svg.contains(&format!("<title>{name}'s tollhouse, face {face}</title>")), "{svg}");
        assert!(svg.contains(&format!(r#"class="fig">T{face}</text>"#)));
    }
}
