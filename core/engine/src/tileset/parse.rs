//! Reading and validating a tileset file. Every problem is collected; see `docs/tilesets.md`.

use super::*;
use meeple_toml::{At, DeValue, Doc, Report, Span, Spanned, Table, integer, type_name};

const TILE_KEYS: &[&str] = &[
    "id",
    "name",
    "count",
    "editions",
    "sides",
    "like",
    "segments",
    "points",
    "illustrations",
    "tags",
    "reconstructed",
    "note",
];

/// A segment as written, before cross-references are resolved.
struct RawSegment<'t> {
    id: At<&'t str>,
    kind: SegmentKind,
    span: Span,
    sides: Vec<At<&'t str>>,
    ends: Vec<At<&'t str>>,
    halves: Vec<At<&'t str>>,
    cities: Vec<At<&'t str>>,
    field: Option<At<&'t str>>,
    flanks: Vec<At<&'t str>>,
    arms: u8,
    goods: Option<String>,
    tags: Vec<String>,
}

struct RawIllustration<'t> {
    kind: String,
    field: Option<At<&'t str>>,
    flanks: Vec<At<&'t str>>,
    reconstructed: bool,
}

/// Geometry a `like` tile can inherit, with the name it keeps unless it gives its own.
#[derive(Clone)]
struct Geometry<'t> {
    name: String,
    sides: Option<[SideKind; 4]>,
    segments: Vec<RawSegmentRef<'t>>,
    points: Vec<(At<&'t str>, String)>,
    /// The ids of segments whose kind is unknown (left out of `segments`) or that have a key
    /// they cannot have (a misspelt one): the geometry is then incomplete, and only what they
    /// cannot have caused is checked.
    unknown: Vec<&'t str>,
}

type RawSegmentRef<'t> = std::rc::Rc<RawSegment<'t>>;

pub(super) fn parse(name: &str, text: &str) -> Result<Tileset, Report> {
    let mut doc = Doc::parse(name, text);
    let root = doc.root();
    let mut top = doc.table(&root, "the tileset file");

    let header = top.get("tileset");
    let (id, title, editions, start) = match header {
        Some(h) => read_header(&mut doc, h),
        None => {
            doc.error(top.span(), "a tileset file needs a [tileset] table (id, name, editions)");
            (String::new(), String::new(), Vec::new(), None)
        }
    };

    let mut tiles: Vec<TileDef> = Vec::new();
    let mut geometries: Vec<(String, Geometry)> = Vec::new();
    if let Some(list) = top.array(&mut doc, "tiles") {
        for item in list.value.iter() {
            if let Some(tile) = read_tile(&mut doc, item, &editions, &mut geometries) {
                tiles.push(tile);
            }
        }
    } else if !doc.has_errors() {
        doc.error(top.span(), "a tileset needs at least one [[tiles]] entry");
    }
    top.finish(&mut doc);

    let start = start.and_then(|s: At<&str>| {
        // A start tile with problems of its own is reported there, not as missing.
        if !geometries.iter().any(|(id, _)| id == s.value) {
            doc.error(s.span.clone(), format!("start tile `{}` is not defined in this file", s.value));
        }
        tiles.iter().position(|t| t.id == s.value)
    });
    doc.finish()?;
    let editions = editions.into_iter().map(|e| e.value.to_string()).collect();
    Ok(Tileset { id, name: title, editions, start, tiles })
}

type Header<'t> = (String, String, Vec<At<&'t str>>, Option<At<&'t str>>);

fn read_header<'t>(doc: &mut Doc<'_>, v: &'t Spanned<DeValue<'_>>) -> Header<'t> {
    let Some(mut t) = doc.table_in(v, "[tileset]") else {
        return (String::new(), String::new(), Vec::new(), None);
    };
    let id = t.req_str(doc, "id").map(|s| s.value.to_string()).unwrap_or_default();
    let name = t.str(doc, "name").map(|s| s.value.to_string()).unwrap_or_else(|| id.clone());
    let editions = match t.str_list(doc, "editions") {
        Some(list) if !list.is_empty() => list,
        Some(_) => {
            doc.error(t.span(), "[tileset] `editions` must list at least one edition");
            Vec::new()
        }
        None => vec![At { value: "default", span: t.span() }],
    };
    let start = t.str(doc, "start");
    t.finish(doc);
    (id, name, editions, start)
}

fn read_tile<'t>(
    doc: &mut Doc<'_>,
    item: &'t Spanned<DeValue<'_>>,
    editions: &[At<&str>],
    geometries: &mut Vec<(String, Geometry<'t>)>,
) -> Option<TileDef> {
    let errors_before = doc.error_count();
    let mut t = doc.table_in(item, "a [[tiles]] entry")?;
    t.allow(TILE_KEYS);
    let id = t.req_str(doc, "id")?;
    let what = format!("tile `{}`", id.value);
    // Still read to its end, so that its other problems are reported too.
    if geometries.iter().any(|(g, _)| g == id.value) {
        doc.error(id.span.clone(), format!("tile id `{}` is used twice", id.value));
    }

    let like_given = t.str(doc, "like");
    let like = like_given.clone().and_then(|l| {
        let g = geometries.iter().find(|(gid, _)| gid == l.value).map(|(_, g)| g.clone());
        // A tile without sides has problems of its own, told at it: its copy is not told as
        // lacking sides too.
        if g.as_ref().is_some_and(|g| g.sides.is_none()) {
            doc.error(l.span, format!("`like = \"{}\"` names a tile whose own problems leave it no sides", l.value));
            return None;
        }
        if g.is_none() {
            let earlier: Vec<&str> = geometries.iter().map(|(gid, _)| gid.as_str()).collect();
            let hint = meeple_toml::did_you_mean(l.value, &earlier);
            let hint = hint.strip_suffix(' ').map_or(String::new(), |h| format!("; {h}"));
            doc.error(l.span, format!("`like = \"{}\"` names no tile defined earlier in the file{hint}", l.value));
        }
        g
    });
    // A `like` that names no tile is the one problem: the geometry it would have given is not
    // missing as well.
    let like_missing = like_given.is_some() && like.is_none();
    let mut geometry = like.unwrap_or(Geometry {
        name: String::new(),
        sides: None,
        segments: Vec::new(),
        points: Vec::new(),
        unknown: Vec::new(),
    });

    // A side that does not match its segments is reported at this tile's `sides`, if it has one.
    let mut sides_at = item.span();
    if let Some(s) = t.str(doc, "sides") {
        sides_at = s.span.clone();
        if geometry.sides.is_some() {
            doc.error(s.span.clone(), format!("{what} takes its sides from `like`; remove `sides`"));
        }
        geometry.sides = read_sides(doc, &s);
    } else if geometry.sides.is_none() && !like_missing {
        doc.error(t.span(), format!("{what} needs `sides` (four letters N E S W from C R F W), or `like`"));
    }
    if let Some(list) = t.array(doc, "segments") {
        for v in list.value.iter() {
            if let Some(seg) = read_segment(doc, v, &what, &mut geometry.unknown) {
                geometry.segments.push(std::rc::Rc::new(seg));
            }
        }
    }
    if let Some(list) = t.array(doc, "points") {
        for v in list.value.iter() {
            if let Some(mut p) = doc.table_in(v, &format!("a point of {what}")) {
                let pid = p.req_str(doc, "id");
                let kind = p.req_str(doc, "kind");
                p.finish(doc);
                if let (Some(pid), Some(kind)) = (pid, kind) {
                    geometry.points.push((pid, kind.value.to_string()));
                }
            }
        }
    }
    let raw_illustrations = read_illustrations(doc, &mut t, &what);
    let counts = read_counts(doc, &mut t, editions, &what);
    let tags = t.str_list(doc, "tags").unwrap_or_default().iter().map(|s| s.value.to_string()).collect();
    if let Some(own) = t.str(doc, "name") {
        geometry.name = own.value.to_string();
    }
    let reconstructed = t.bool(doc, "reconstructed").is_some_and(|b| b.value);
    t.str(doc, "note");
    t.finish(doc);
    geometries.push((id.value.to_string(), geometry.clone()));

    if like_missing {
        return None;
    }
    // Each check runs whatever the others found, so that one run reports all of a tile's problems.
    let (segments, points, port_segment) = resolve_geometry(doc, &what, sides_at, geometry.sides, &geometry);
    if !geometry.unknown.is_empty() {
        // Illustrations stand on segments: one of the unknown might be the one they name.
        return None;
    }
    let illustrations = resolve_illustrations(doc, &what, &segments, raw_illustrations);
    if doc.error_count() > errors_before {
        return None;
    }
    let (Some(sides), Some(counts), Some(illustrations)) = (geometry.sides, counts, illustrations) else {
        return None;
    };
    Some(TileDef {
        id: id.value.to_string(),
        name: geometry.name.clone(),
        counts,
        sides,
        segments,
        points,
        illustrations,
        tags,
        reconstructed,
        port_segment,
    })
}

fn read_sides(doc: &mut Doc<'_>, s: &At<&str>) -> Option<[SideKind; 4]> {
    let letters: Vec<char> = s.value.chars().collect();
    let kinds: Vec<Option<SideKind>> = letters.iter().map(|c| SideKind::from_letter(*c)).collect();
    if letters.len() != 4 || kinds.iter().any(Option::is_none) {
        doc.error(
            s.span.clone(),
            format!(
                "`sides = \"{}\"` must be four letters for N, E, S, W, each C (city), R (road), F (field) or W (river)",
                s.value
            ),
        );
        return None;
    }
    Some([kinds[0]?, kinds[1]?, kinds[2]?, kinds[3]?])
}

fn read_counts(doc: &mut Doc<'_>, t: &mut Table<'_, '_>, editions: &[At<&str>], what: &str) -> Option<Vec<u32>> {
    let allowed: Option<Vec<At<&str>>> = t.str_list(doc, "editions");
    let mut in_tile = vec![true; editions.len()];
    if let Some(list) = &allowed {
        in_tile = vec![false; editions.len()];
        for e in list {
            match editions.iter().position(|x| x.value == e.value) {
                Some(i) => in_tile[i] = true,
                None => doc.error(e.span.clone(), unknown_edition(e.value, editions)),
            }
        }
    }
    let Some(v) = t.get("count") else {
        doc.error(t.span(), format!("{what} needs `count` (a positive integer, or a table per edition)"));
        return None;
    };
    let mut counts = vec![0u32; editions.len()];
    match v.get_ref() {
        DeValue::Table(_) => {
            let per = doc.table_in(v, "`count`")?;
            if per.entries().next().is_none() {
                doc.error(v.span(), format!("{what}: `count = {{ }}` names no edition; give one, as `{{ C3 = 2 }}`"));
            }
            for (ed, n) in per.entries() {
                let Some(i) = editions.iter().position(|x| x.value == ed.value) else {
                    doc.error(ed.span.clone(), unknown_edition(ed.value, editions));
                    continue;
                };
                if !in_tile[i] {
                    doc.error(
                        ed.span.clone(),
                        format!("{what} has a count for `{}` but is not in that edition", ed.value),
                    );
                }
                counts[i] = positive(doc, n, what)?;
            }
        }
        _ => {
            let n = positive(doc, v, what)?;
            for (i, c) in counts.iter_mut().enumerate() {
                if in_tile[i] {
                    *c = n;
                }
            }
        }
    }
    Some(counts)
}

/// A count of `what` (a tile).
fn positive(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>, what: &str) -> Option<u32> {
    match integer(v.get_ref()) {
        Some(n) if n > 0 && n <= u16::MAX as i64 => Some(n as u32),
        Some(n) => {
            let at_most = u16::MAX;
            doc.error(v.span(), format!("{what}: a count must be a positive integer, at most {at_most}, found {n}"));
            None
        }
        None => {
            // An integer past 64 bits is told by its digits: "found an integer" would read as
            // a contradiction.
            let found = match v.get_ref() {
                DeValue::Integer(i) => i.as_str().to_string(),
                other => type_name(other).to_string(),
            };
            let at_most = u16::MAX;
            doc.error(
                v.span(),
                format!("{what}: a count must be a positive integer, at most {at_most}, found {found}"),
            );
            None
        }
    }
}

fn unknown_edition(e: &str, editions: &[At<&str>]) -> String {
    let known: Vec<&str> = editions.iter().map(|e| e.value).collect();
    format!("unknown edition `{e}`; the tileset declares: {}", known.join(", "))
}

/// Reads a segment; one whose kind is none of the known ones is left out, its id added to
/// `unknown`, as is the id of one with a key it cannot have (kept, as far as it reads).
fn read_segment<'t>(
    doc: &mut Doc<'_>,
    v: &'t Spanned<DeValue<'_>>,
    tile: &str,
    unknown: &mut Vec<&'t str>,
) -> Option<RawSegment<'t>> {
    let mut t = doc.table_in(v, &format!("a segment of {tile}"))?;
    let id = t.req_str(doc, "id");
    let kind_at = t.req_str(doc, "kind");
    let kind = kind_at.as_ref().and_then(|k| {
        let kind = SegmentKind::parse(k.value);
        if kind.is_none() {
            doc.error(k.span.clone(), SegmentKind::unknown(k.value));
        }
        kind
    });
    if kind_at.is_some() && kind.is_none() {
        // Which keys a segment may have depends on its kind: none is checked.
        unknown.push(id.map_or("", |id| id.value));
        return None;
    }
    let tags = t.str_list(doc, "tags").unwrap_or_default().iter().map(|s| s.value.to_string()).collect();
    let mut seg = RawSegment {
        id: id.clone().unwrap_or(At { value: "", span: v.span() }),
        kind: kind.unwrap_or(SegmentKind::Field),
        span: v.span(),
        sides: Vec::new(),
        ends: Vec::new(),
        halves: Vec::new(),
        cities: Vec::new(),
        field: None,
        flanks: Vec::new(),
        arms: 0,
        goods: None,
        tags,
    };
    match kind {
        Some(SegmentKind::City) => {
            seg.sides = required_list(doc, &mut t, "sides", "the sides the city covers");
            if let Some(a) = t.int(doc, "arms") {
                if !(0..=9).contains(&a.value) {
                    doc.error(a.span, "`arms` must be between 0 and 9");
                }
                seg.arms = a.value.clamp(0, 9) as u8;
            }
            seg.goods = t.str(doc, "goods").map(|g| g.value.to_string());
        }
        Some(SegmentKind::Road | SegmentKind::River) => {
            seg.ends = required_list(doc, &mut t, "ends", "its two ends");
            if seg.ends.len() != 2 {
                doc.error(
                    seg.span.clone(),
                    format!("{tile}: a {} needs exactly two `ends`, found {}", seg.kind.name(), seg.ends.len()),
                );
            }
        }
        Some(SegmentKind::Field) => {
            seg.halves = t.str_list(doc, "halves").unwrap_or_default();
            seg.cities = t.str_list(doc, "cities").unwrap_or_default();
        }
        Some(SegmentKind::Garden) => {
            seg.field = t.str(doc, "field");
            seg.flanks = t.str_list(doc, "flanks").unwrap_or_default();
        }
        Some(SegmentKind::Monastery) | None => {}
    }
    let before = doc.error_count();
    t.finish(doc);
    if doc.error_count() > before {
        // A misspelt key (`halfs`) leaves the ports it meant uncovered: the sides are not
        // checked, which would only repeat it as problems of every side it touches.
        unknown.push(seg.id.value);
    }
    (id.is_some() && kind.is_some()).then_some(seg)
}

fn required_list<'t>(doc: &mut Doc<'_>, t: &mut Table<'t, '_>, key: &'static str, what: &str) -> Vec<At<&'t str>> {
    match t.str_list(doc, key) {
        Some(l) => l,
        None => {
            if t.get(key).is_none() {
                doc.error(t.span(), format!("{} needs `{key}` ({what})", t.what()));
            }
            Vec::new()
        }
    }
}

fn read_illustrations<'t>(doc: &mut Doc<'_>, t: &mut Table<'t, '_>, tile: &str) -> Vec<RawIllustration<'t>> {
    let mut out = Vec::new();
    let Some(list) = t.array(doc, "illustrations") else { return out };
    for v in list.value.iter() {
        let Some(mut it) = doc.table_in(v, &format!("an illustration of {tile}")) else { continue };
        let kind = it.req_str(doc, "kind");
        let field = it.str(doc, "field");
        let flanks = it.str_list(doc, "flanks").unwrap_or_default();
        let reconstructed = it.bool(doc, "reconstructed").is_some_and(|b| b.value);
        it.str(doc, "note");
        it.finish(doc);
        if let Some(kind) = kind {
            out.push(RawIllustration { kind: kind.value.to_string(), field, flanks, reconstructed });
        }
    }
    out
}

type Resolved = (Vec<Segment>, Vec<Point>, [u8; 12]);

/// Works out which ports each segment covers and checks them against the sides (when they could
/// be read). Problems are reported; what is returned is sound only if none were.
fn resolve_geometry(
    doc: &mut Doc<'_>,
    what: &str,
    sides_at: Span,
    sides: Option<[SideKind; 4]>,
    g: &Geometry<'_>,
) -> Resolved {
    let mut points = Vec::new();
    for (pid, kind) in &g.points {
        if points.iter().any(|p: &Point| p.id == pid.value) {
            doc.error(pid.span.clone(), format!("{what}: point id `{}` is used twice", pid.value));
        }
        points.push(Point { id: pid.value.to_string(), kind: kind.clone() });
    }

    let ids: Vec<&str> = g.segments.iter().map(|s| s.id.value).collect();
    let mut segments = Vec::with_capacity(g.segments.len());
    let mut owner: [Option<usize>; 12] = [None; 12];
    for (i, raw) in g.segments.iter().enumerate() {
        if ids[..i].contains(&raw.id.value) {
            doc.error(raw.id.span.clone(), format!("{what}: segment id `{}` is used twice", raw.id.value));
        }
        let mut seg = Segment {
            id: raw.id.value.into(),
            kind: raw.kind,
            ports: Vec::new(),
            open_sides: Vec::new(),
            ends: Vec::new(),
            arms: raw.arms,
            goods: raw.goods.clone(),
            cities: Vec::new(),
            field: None,
            flanks: Vec::new(),
            tags: raw.tags.clone(),
        };
        let mut claim = |doc: &mut Doc<'_>, port: Port, at: &Span, seg: &mut Segment| match owner[port.index()] {
            Some(prev) if prev == i => {
                doc.error(at.clone(), format!("{what}: `{}` covers port {port} twice", raw.id.value))
            }
            Some(prev) => doc.error(
                at.clone(),
                format!("{what}: port {port} is covered by both `{}` and `{}`", ids[prev], raw.id.value),
            ),
            None => {
                owner[port.index()] = Some(i);
                seg.ports.push(port);
            }
        };
        for s in &raw.sides {
            match Side::parse(s.value) {
                // Its three ports would each be told covered twice.
                Some(side) if seg.open_sides.contains(&side) => {
                    doc.error(s.span.clone(), format!("{what}: `{}` names side {} twice", raw.id.value, s.value))
                }
                Some(side) => {
                    for k in 0..3 {
                        claim(doc, Port::of(side, k), &s.span, &mut seg);
                    }
                    seg.open_sides.push(side);
                }
                None => {
                    doc.error(s.span.clone(), format!("{what}: `{}` is not a side; expected N, E, S or W", s.value))
                }
            }
        }
        for h in &raw.halves {
            match Port::parse(h.value).filter(|p| !p.is_centre()) {
                Some(port) => claim(doc, port, &h.span, &mut seg),
                None => doc.error(
                    h.span.clone(),
                    format!("{what}: `{}` is not a half side; expected one of NL NR EL ER SL SR WL WR", h.value),
                ),
            }
        }
        let stops: &[&str] = if raw.kind == SegmentKind::River { &RIVER_STOPS } else { &ROAD_STOPS };
        for e in &raw.ends {
            if let Some(side) = Side::parse(e.value) {
                if seg.open_sides.contains(&side) {
                    doc.error(
                        e.span.clone(),
                        format!("{what}: both ends of `{}` leave through {}", raw.id.value, e.value),
                    );
                    continue;
                }
                claim(doc, Port::centre(side), &e.span, &mut seg);
                seg.open_sides.push(side);
                seg.ends.push(End::Side(side));
            } else if let Some(p) = points.iter().position(|p| p.id == e.value) {
                seg.ends.push(End::Stop { kind: points[p].kind.clone(), point: Some(p as u8) });
            } else if stops.contains(&e.value) {
                if e.value == "monastery" && !g.segments.iter().any(|s| s.kind == SegmentKind::Monastery) {
                    let why = format!("{what}: `{}` ends at a monastery, but the tile has none", raw.id.value);
                    doc.error(e.span.clone(), why);
                }
                seg.ends.push(End::Stop { kind: e.value.to_string(), point: None });
            } else {
                let mut known: Vec<&str> = stops.to_vec();
                known.extend(points.iter().map(|p| p.id.as_str()));
                let points: Vec<String> = points.iter().map(|p| format!("`{}`", p.id)).collect();
                let points = if points.is_empty() { String::new() } else { format!(": {}", points.join(", ")) };
                let hint = match meeple_toml::did_you_mean(e.value, &known) {
                    hint if hint.is_empty() => hint,
                    hint => format!("; {}", hint.trim_end()),
                };
                doc.error(
                    e.span.clone(),
                    format!(
                        "{what}: end `{}` of `{}` is neither a side (N E S W), a stop ({}) nor a point of the \
                         tile{points}{hint}",
                        e.value,
                        raw.id.value,
                        stops.join(", "),
                    ),
                );
            }
        }
        seg.cities = references(doc, what, g, &raw.cities, SegmentKind::City, "cities");
        seg.flanks = references(doc, what, g, &raw.flanks, SegmentKind::Road, "flanks");
        if let Some(f) = &raw.field {
            seg.field = references(doc, what, g, std::slice::from_ref(f), SegmentKind::Field, "field").first().copied();
        }
        segments.push(seg);
    }
    // A side left without its segment may be the unknown segment's: not told.
    if let Some(sides) = sides.filter(|_| g.unknown.is_empty()) {
        check_sides(doc, what, &sides_at, sides, &mut segments, &mut owner);
        check_fields_stay_on_their_side(doc, what, g, &segments);
    }
    let mut port_segment = [0u8; 12];
    for (p, o) in owner.iter().enumerate() {
        port_segment[p] = o.unwrap_or(0) as u8;
    }
    for seg in &mut segments {
        seg.ports.sort();
    }
    (segments, points, port_segment)
}

/// Each side must show what its letter says; a field side's centre is given to its field. A port
/// left uncovered is reported once: by its side's problem, else on its own.
fn check_sides(
    doc: &mut Doc<'_>,
    what: &str,
    span: &Span,
    sides: [SideKind; 4],
    segments: &mut [Segment],
    owner: &mut [Option<usize>; 12],
) {
    let mut named = [false; 12];
    for side in Side::ALL {
        let [first, centre, second] = [0, 1, 2].map(|k| Port::of(side, k));
        let mut name = |ports: &[Port]| ports.iter().for_each(|p| named[p.index()] = true);
        let kind_at = |p: Port| owner[p.index()].map(|i| segments[i].kind);
        let letter = sides[side.index()].letter();
        let instead = |expected: SegmentKind| other_cover(segments, owner, side, expected);
        match sides[side.index()].segment_kind() {
            SegmentKind::City => {
                if kind_at(centre) != Some(SegmentKind::City) {
                    name(&[first, centre, second]);
                    let why = format!("{what}: side {} is C but no city segment covers it", side.name());
                    doc.error(span.clone(), why + &instead(SegmentKind::City));
                }
            }
            SegmentKind::Field => match (owner[first.index()], owner[second.index()]) {
                (Some(a), Some(b)) if a == b && segments[a].kind == SegmentKind::Field => {
                    if owner[centre.index()].is_some() {
                        doc.error(
                            span.clone(),
                            format!("{what}: side {} is F but something else covers its centre", side.name()),
                        );
                    } else {
                        owner[centre.index()] = Some(a);
                        segments[a].ports.push(centre);
                    }
                }
                _ => {
                    name(&[first, centre, second]);
                    doc.error(
                        span.clone(),
                        format!(
                            "{what}: side {} is F, so one field segment must cover both {first} and {second}{}",
                            side.name(),
                            match instead(SegmentKind::Field) {
                                other if other.is_empty() => halves_apart(segments, owner, [first, second]),
                                other => other,
                            }
                        ),
                    )
                }
            },
            k => {
                if kind_at(centre) != Some(k) {
                    name(&[centre]);
                    doc.error(
                        span.clone(),
                        format!(
                            "{what}: side {} is {letter} but no {} ends there{}",
                            side.name(),
                            k.name(),
                            instead(k)
                        ),
                    );
                }
                for half in [first, second] {
                    if kind_at(half) != Some(SegmentKind::Field) {
                        name(&[half]);
                        doc.error(
                            span.clone(),
                            format!(
                                "{what}: half {half} beside the {} on side {} must be covered by a field",
                                k.name(),
                                side.name()
                            ),
                        );
                    }
                }
            }
        }
    }
    for (p, o) in owner.iter().enumerate() {
        if o.is_none() && !named[p] {
            doc.error(span.clone(), format!("{what}: port {} is covered by no segment", Port::new(p as u8)));
        }
    }
}

/// A road, river or city that leaves the tile by two sides or more cuts its edge into stretches,
/// and no field can reach from one stretch to another across it (a field covering both halves of
/// a road's side would join the farms on either side of the road).
/// Told at the field's id.
fn check_fields_stay_on_their_side(doc: &mut Doc<'_>, what: &str, g: &Geometry<'_>, segments: &[Segment]) {
    for cutting in segments.iter().filter(|s| s.kind != SegmentKind::Field) {
        let cut = |p: usize| cutting.ports.iter().any(|q| q.index() == p);
        let sides = Side::ALL.iter().filter(|&&side| cutting.ports.iter().any(|p| p.side() == side)).count();
        let Some(start) = (0..12).find(|&p| cut(p)).filter(|_| sides >= 2) else { continue };
        // The stretch of each port not cut, counted round the edge from a cut one.
        let mut stretch = [None; 12];
        let mut n = 0;
        for p in (start..start + 12).map(|p| p % 12) {
            if cut(p) {
                n += 1;
            } else {
                stretch[p] = Some(n);
            }
        }
        for (field, raw) in segments.iter().zip(&g.segments).filter(|(s, _)| s.kind == SegmentKind::Field) {
            // A port both cover is another problem, told already.
            let mut ports = field.ports.iter().filter(|p| stretch[p.index()].is_some());
            let Some(first) = ports.next() else { continue };
            let across = ports.find(|p| stretch[p.index()] != stretch[first.index()]);
            if let Some(other) = across {
                doc.error(
                    raw.id.span.clone(),
                    format!(
                        "{what}: field `{}` covers {first} and {other}, on either side of the {} `{}`, which no \
                         field crosses: make it two fields",
                        field.id,
                        cutting.kind.name(),
                        cutting.id
                    ),
                );
            }
        }
    }
}

/// What to say of a side whose letter does not fit what covers it: the segment of another kind
/// that covers it, and the letter `sides` gives a side it covers (empty when there is none).
fn other_cover(segments: &[Segment], owner: &[Option<usize>; 12], side: Side, expected: SegmentKind) -> String {
    // The centre first: a road or river ends there, with fields on either half.
    let covering = [1, 0, 2].map(|k| Port::of(side, k)).into_iter().filter_map(|p| owner[p.index()]);
    let Some(other) = covering.map(|i| &segments[i]).find(|s| s.kind != expected) else { return String::new() };
    let Some(letter) = SideKind::showing(other.kind).map(SideKind::letter) else { return String::new() };
    let n = side.index() + 1;
    format!(
        "; `{}`, a {}, covers side {}: write {letter} as letter {n} of `sides` (N E S W), or let it cover another side",
        other.id,
        other.kind.name(),
        side.name()
    )
}

/// What keeps a field side's two halves from one field, when no other kind covers them: a half
/// no segment covers, or two fields that share the side.
fn halves_apart(segments: &[Segment], owner: &[Option<usize>; 12], halves: [Port; 2]) -> String {
    match halves.map(|p| owner[p.index()]) {
        [Some(a), Some(b)] => {
            format!("; `{}` covers {} and `{}` {}", segments[a].id, halves[0], segments[b].id, halves[1])
        }
        [None, None] => "; no segment covers either".to_string(),
        [None, _] => format!("; no segment covers {}", halves[0]),
        [_, None] => format!("; no segment covers {}", halves[1]),
    }
}

fn references(
    doc: &mut Doc<'_>,
    what: &str,
    g: &Geometry<'_>,
    names: &[At<&str>],
    kind: SegmentKind,
    key: &str,
) -> Vec<u8> {
    let mut out = Vec::new();
    for n in names {
        match g.segments.iter().position(|s| s.id.value == n.value) {
            Some(i) if out.contains(&(i as u8)) => {
                doc.error(n.span.clone(), format!("{what}: `{key}` names `{}` twice", n.value))
            }
            Some(i) if g.segments[i].kind == kind => out.push(i as u8),
            Some(i) => doc.error(
                n.span.clone(),
                format!(
                    "{what}: `{key}` names `{}`, a {}, but expects a {} segment",
                    n.value,
                    g.segments[i].kind.name(),
                    kind.name()
                ),
            ),
            // It may name a segment of an unknown kind, whose problem is told.
            None if g.unknown.contains(&n.value) => {}
            None => {
                let of_kind: Vec<&str> = g.segments.iter().filter(|s| s.kind == kind).map(|s| s.id.value).collect();
                let its = match of_kind.as_slice() {
                    [] => format!("it has no {} segment", kind.name()),
                    ids => format!("its {} segments: {}", kind.name(), crate::describe::quoted_list(ids)),
                };
                doc.error(
                    n.span.clone(),
                    format!("{what}: `{key}` names `{}`, which is no segment of this tile ({its})", n.value),
                )
            }
        }
    }
    out
}

fn resolve_illustrations(
    doc: &mut Doc<'_>,
    what: &str,
    segments: &[Segment],
    raw: Vec<RawIllustration<'_>>,
) -> Option<Vec<Illustration>> {
    let mut ok = true;
    let mut find = |doc: &mut Doc<'_>, n: &At<&str>, kind: SegmentKind, key: &str| -> Option<u8> {
        match segments.iter().position(|s| *s.id == *n.value) {
            Some(i) if segments[i].kind == kind => Some(i as u8),
            _ => {
                ok = false;
                doc.error(
                    n.span.clone(),
                    format!(
                        "{what}: illustration `{key}` names `{}`, which is no {} segment of this tile",
                        n.value,
                        kind.name()
                    ),
                );
                None
            }
        }
    };
    let mut out = Vec::new();
    for r in raw {
        let field = r.field.as_ref().and_then(|f| find(doc, f, SegmentKind::Field, "field"));
        let flanks = r.flanks.iter().filter_map(|f| find(doc, f, SegmentKind::Road, "flanks")).collect();
        out.push(Illustration { kind: r.kind, field, flanks, reconstructed: r.reconstructed });
    }
    ok.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<String> {
        match Tileset::parse("t.toml", text) {
            Ok(_) => Vec::new(),
            Err(r) => r.diagnostics.iter().map(|d| d.to_string()).collect(),
        }
    }

    const HEADER: &str = "[tileset]\nid = \"t\"\neditions = [\"C1\", \"C2\"]\n";

    #[test]
    fn a_valid_tile_resolves_its_ports() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"D\"\ncount = {{ C1 = 4, C2 = 2 }}\nsides = \"CRFR\"\nsegments = [\n  {{ id = \"city\", kind = \"city\", sides = [\"N\"] }},\n  {{ id = \"road\", kind = \"road\", ends = [\"W\", \"E\"] }},\n  {{ id = \"north\", kind = \"field\", halves = [\"EL\", \"WR\"], cities = [\"city\"] }},\n  {{ id = \"south\", kind = \"field\", halves = [\"ER\", \"SL\", \"SR\", \"WL\"] }},\n]\n"
        );
        let ts = Tileset::parse("t.toml", &text).unwrap();
        let d = &ts.tiles[0];
        assert_eq!(d.counts, vec![4, 2]);
        let south = &d.segments[3];
        // The south side is a field side, so its centre belongs to the south field.
        assert!(south.ports.contains(&Port::parse("S").unwrap()));
        assert_eq!(d.segments[2].cities, vec![0]);
        assert_eq!(d.port_segment[Port::parse("E").unwrap().index()], 1);
    }

    #[test]
    fn one_problem_of_a_tile_hides_none_of_the_others() {
        // Line 4: start; 6-11: tile A with a count of 0, a bad sides string, a bad half and an
        // unknown city; 12-16: a second A whose city overlaps its field.
        let text = format!(
            "{HEADER}start = \"A\"\n[[tiles]]\nid = \"A\"\ncount = 0\nsides = \"CFF\"\nsegments = [{{ id = \"f\", kind = \"field\", halves = [\"ZZ\"], cities = [\"nope\"] }}]\nillustrations = [{{ kind = \"farmhouse\", field = \"x\" }}]\n[[tiles]]\nid = \"A\"\ncount = 1\nsides = \"CFFF\"\nsegments = [{{ id = \"c\", kind = \"city\", sides = [\"N\", \"E\"] }}, {{ id = \"f\", kind = \"field\", halves = [\"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }}]\n"
        );
        let errs = errors(&text);
        let at = |prefix: &str| errs.iter().any(|e| e.starts_with(prefix));
        assert!(at("t.toml:7:9: tile `A`: a count must be a positive integer"), "{errs:#?}");
        assert!(at("t.toml:8:9: "), "the sides: {errs:#?}");
        assert!(at("t.toml:9:51: tile `A`: `ZZ` is not a half side"), "{errs:#?}");
        assert!(at("t.toml:9:68: tile `A`: `cities` names `nope`"), "{errs:#?}");
        assert!(at("t.toml:10:48: tile `A`: illustration `field` names `x`"), "{errs:#?}");
        assert!(at("t.toml:12:6: tile id `A` is used twice"), "{errs:#?}");
        assert!(at("t.toml:15:100: tile `A`: port EL is covered by both `c` and `f`"), "{errs:#?}");
        assert!(!errs.iter().any(|e| e.contains("start tile")), "A is defined, with problems: {errs:#?}");
    }

    #[test]
    fn a_side_named_twice_a_road_to_no_monastery_and_a_third_end_are_told_once_each() {
        // Lines 4-8: tile K, up to its `segments`; then one segment a line, from line 9.
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"K\"\ncount = 1\nsides = \"CRFR\"\nsegments = [\n  {{ id = \"c\", kind = \"city\", sides = [\"N\", \"N\"] }},\n  {{ id = \"r\", kind = \"road\", ends = [\"W\", \"monastery\"] }},\n  {{ id = \"s\", kind = \"road\", ends = [\"E\", \"city\", \"house\"] }},\n  {{ id = \"f\", kind = \"field\", halves = [\"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"], cities = [\"town\"] }},\n]\n"
        );
        let errs = errors(&text);
        let expected = [
            "t.toml:9:44: tile `K`: `c` names side N twice",
            "t.toml:10:43: tile `K`: `r` ends at a monastery, but the tile has none",
            "t.toml:11:3: tile `K`: a road needs exactly two `ends`, found 3",
            "t.toml:12:88: tile `K`: `cities` names `town`, which is no segment of this tile (its city segments: `c`)",
        ];
        assert_eq!(errs, expected, "{errs:#?}");
    }

    #[test]
    fn a_field_that_crosses_a_road_or_a_city_is_refused() {
        // A straight road west–east whose north field reaches round to the south-east half.
        let tile = |fields: &str| {
            format!(
                "{HEADER}[[tiles]]\nid = \"U\"\ncount = 1\nsides = \"FRFR\"\nsegments = [\n  {{ id = \"road\", kind = \"road\", ends = [\"W\", \"E\"] }},\n{fields}]\n"
            )
        };
        let crossing = "  { id = \"north\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"WL\", \"WR\"] },\n  { id = \"south\", kind = \"field\", halves = [\"SL\", \"SR\"] },\n";
        let errs = errors(&tile(crossing));
        assert_eq!(
            errs,
            [
                "t.toml:10:10: tile `U`: field `north` covers NL and ER, on either side of the road `road`, which no field \
              crosses: make it two fields"
            ],
            "{errs:#?}"
        );
        let apart = crossing
            .replace("\"EL\", \"ER\", \"WL\", \"WR\"", "\"EL\", \"WR\"")
            .replace("\"SL\", \"SR\"", "\"ER\", \"SL\", \"SR\", \"WL\"");
        assert_eq!(errors(&tile(&apart)), Vec::<String>::new());
        // A city band west–east keeps its fields apart too.
        let band = "[[tiles]]\nid = \"Q\"\ncount = 1\nsides = \"FCFC\"\nsegments = [\n  { id = \"c\", kind = \"city\", sides = [\"E\", \"W\"] },\n  { id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"SL\", \"SR\"], cities = [\"c\"] },\n]\n";
        let errs = errors(&format!("{HEADER}{band}"));
        assert!(
            errs.iter().any(|e| e.contains("field `f` covers NL and SL, on either side of the city `c`")),
            "{errs:#?}"
        );
        // A road that ends on the tile cuts nothing: the field goes round its end.
        let dead_end = "[[tiles]]\nid = \"V\"\ncount = 1\nsides = \"FFRF\"\nsegments = [\n  { id = \"m\", kind = \"monastery\" },\n  { id = \"r\", kind = \"road\", ends = [\"S\", \"monastery\"] },\n  { id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] },\n]\n";
        assert_eq!(errors(&format!("{HEADER}{dead_end}")), Vec::<String>::new());
    }

    #[test]
    fn a_road_end_with_a_slip_is_told_the_point_it_may_mean() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"S\"\ncount = 1\nsides = \"FFRF\"\npoints = [{{ id = \"shrine\", kind = \"shrine\" }}]\nsegments = [\n  {{ id = \"r\", kind = \"road\", ends = [\"S\", \"shrin\"] }},\n  {{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }},\n]\n"
        );
        let errs = errors(&text);
        assert_eq!(errs.len(), 1, "{errs:#?}");
        assert!(errs[0].ends_with("nor a point of the tile: `shrine`; did you mean `shrine`?"), "{errs:#?}");
    }

    #[test]
    fn a_count_past_any_integer_is_told_by_its_digits() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"H\"\ncount = 99999999999999999999\nsides = \"FFFF\"\nsegments = [{{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }}]\n"
        );
        let errs = errors(&text);
        assert_eq!(
            errs,
            ["t.toml:6:9: tile `H`: a count must be a positive integer, at most 65535, found 99999999999999999999"],
            "{errs:#?}"
        );
        let errs = errors(&text.replace("99999999999999999999", "\"two\""));
        assert_eq!(
            errs,
            ["t.toml:6:9: tile `H`: a count must be a positive integer, at most 65535, found a string"],
            "{errs:#?}"
        );
    }

    #[test]
    fn an_empty_count_and_a_city_named_twice_are_refused() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"E\"\ncount = {{ }}\nsides = \"CFFF\"\nsegments = [{{ id = \"c\", kind = \"city\", sides = [\"N\"] }}, {{ id = \"f\", kind = \"field\", halves = [\"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"], cities = [\"c\", \"c\"] }}]\n"
        );
        let errs = errors(&text);
        assert_eq!(errs.len(), 2, "{errs:#?}");
        assert!(errs[0].starts_with("t.toml:6:9: tile `E`: `count = { }` names no edition"), "{errs:#?}");
        assert!(errs[1].contains("tile `E`: `cities` names `c` twice"), "{errs:#?}");
    }

    #[test]
    fn a_side_letter_that_does_not_fit_its_segment_names_the_letter_that_would() {
        // The template's chapel with its city side written as a field.
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"E\"\ncount = 1\nsides = \"FFFF\"\nsegments = [{{ id = \"town\", kind = \"city\", sides = [\"N\"] }}, {{ id = \"m\", kind = \"monastery\" }}, {{ id = \"f\", kind = \"field\", halves = [\"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }}]\n"
        );
        let errs = errors(&text);
        assert_eq!(
            errs,
            ["t.toml:7:9: tile `E`: side N is F, so one field segment must cover both NL and NR; `town`, a city, \
              covers side N: write C as letter 1 of `sides` (N E S W), or let it cover another side"],
        );
        // A half left out, or given to a second field.
        let bare = text.replace("FFFF", "CFFF").replace("\"WL\", \"WR\"", "\"WL\"");
        assert_eq!(
            errors(&bare),
            ["t.toml:7:9: tile `E`: side W is F, so one field segment must cover both WL and WR; no segment covers WR"]
        );
        let split = text
            .replace("FFFF", "CFFF")
            .replace("\"WL\", \"WR\"] }", "\"WL\"] }, { id = \"g\", kind = \"field\", halves = [\"WR\"] }");
        assert_eq!(
            errors(&split),
            [
                "t.toml:7:9: tile `E`: side W is F, so one field segment must cover both WL and WR; `f` covers WL and `g` WR"
            ]
        );
        // A road where `sides` says city, on the third side.
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"E\"\ncount = 1\nsides = \"FFCF\"\nsegments = [{{ id = \"m\", kind = \"monastery\" }}, {{ id = \"r\", kind = \"road\", ends = [\"S\", \"monastery\"] }}, {{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }}]\n"
        );
        let errs = errors(&text);
        assert_eq!(
            errs,
            ["t.toml:7:9: tile `E`: side S is C but no city segment covers it; `r`, a road, covers side S: \
              write R as letter 3 of `sides` (N E S W), or let it cover another side"],
        );
    }

    #[test]
    fn a_misspelt_key_of_a_segment_is_told_alone_not_as_the_sides_it_leaves_bare() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"E\"\ncount = 1\nsides = \"CFFF\"\nsegments = [{{ id = \"c\", kind = \"city\", sides = [\"N\"] }}, {{ id = \"f\", kind = \"field\", halfs = [\"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"], cities = [\"c\"] }}]\n"
        );
        let errs = errors(&text);
        assert_eq!(errs.len(), 1, "{errs:#?}");
        assert!(errs[0].contains("unknown key `halfs` in a segment of tile `E`; did you mean `halves`?"), "{errs:#?}");
    }

    #[test]
    fn every_problem_is_reported_with_its_location() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"X\"\ncount = 0\nsides = \"CRFQ\"\ncolour = \"red\"\nsegments = [\n  {{ id = \"c\", kind = \"castle\" }},\n]\n"
        );
        let errs = errors(&text);
        assert!(
            errs.contains(
                &"t.toml:6:9: tile `X`: a count must be a positive integer, at most 65535, found 0".to_string()
            ),
            "{errs:?}"
        );
        assert!(errs.iter().any(|e| e.starts_with("t.toml:7:9: `sides = \"CRFQ\"` must be four letters")), "{errs:?}");
        assert!(errs.iter().any(|e| e.starts_with("t.toml:8:1: unknown key `colour`")), "{errs:?}");
        assert!(errs.iter().any(|e| e.starts_with("t.toml:10:22: unknown segment kind `castle`")), "{errs:?}");
    }

    #[test]
    fn side_kinds_must_agree_with_segments() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"Y\"\ncount = 1\nsides = \"RFFF\"\nsegments = [\n  {{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"], cities = [\"nope\"] }},\n]\n"
        );
        let errs = errors(&text);
        // At the tile's `sides` (line 7), not its [[tiles]] header.
        assert!(
            errs.iter().any(|e| e.starts_with("t.toml:7:9: tile `Y`: side N is R but no road ends there")),
            "{errs:?}"
        );
        assert!(errs.iter().any(|e| e.contains("`cities` names `nope`, which is no segment")), "{errs:?}");
    }

    #[test]
    fn a_misspelt_segment_kind_is_the_one_problem_of_its_tile() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"R\"\ncount = 1\nsides = \"FRFR\"\nsegments = [\n  {{ id = \"r\", kind = \"rood\", ends = [\"E\", \"W\"] }},\n  {{ id = \"n\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"WR\"] }},\n  {{ id = \"s\", kind = \"field\", halves = [\"SL\", \"SR\", \"ER\", \"WL\"] }},\n]\n"
        );
        // Not `ends` as an unknown key, nor the road sides with no road.
        assert_eq!(
            errors(&text),
            [
                "t.toml:9:22: unknown segment kind `rood`; did you mean `road`? expected one of: city, road, field, monastery, river, garden"
            ]
        );
    }

    #[test]
    fn a_misspelt_segment_kind_hides_no_problem_it_cannot_cause() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"R\"\ncount = 1\nsides = \"CRFR\"\nsegments = [\n  {{ id = \"c\", kind = \"cty\", sides = [\"N\"] }},\n  {{ id = \"r\", kind = \"road\", ends = [\"E\", \"W\"] }},\n  {{ id = \"n\", kind = \"field\", halves = [\"EL\", \"WR\", \"EL\"], cities = [\"c\", \"town\"] }},\n  {{ id = \"s\", kind = \"field\", halves = [\"SL\", \"SR\", \"ER\", \"WL\"] }},\n]\n"
        );
        // Not side N without its city, nor `cities` naming the city of the misspelt kind: the
        // port covered twice and the city that is nowhere are told with it.
        assert_eq!(
            errors(&text),
            [
                "t.toml:9:22: unknown segment kind `cty`; did you mean `city`? expected one of: city, road, field, monastery, river, garden",
                "t.toml:11:53: tile `R`: `n` covers port EL twice",
                "t.toml:11:75: tile `R`: `cities` names `town`, which is no segment of this tile (it has no city segment)",
            ]
        );
    }

    #[test]
    fn ports_may_not_be_covered_twice() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"Z\"\ncount = 1\nsides = \"CFFF\"\nsegments = [\n  {{ id = \"a\", kind = \"city\", sides = [\"N\"] }},\n  {{ id = \"b\", kind = \"city\", sides = [\"N\"] }},\n  {{ id = \"f\", kind = \"field\", halves = [\"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }},\n]\n"
        );
        let errs = errors(&text);
        assert!(errs.iter().any(|e| e.contains("port NL is covered by both `a` and `b`")), "{errs:?}");
    }

    #[test]
    fn a_like_tile_keeps_the_name_of_its_model_unless_it_gives_its_own() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"B\"\nname = \"Monastery\"\ncount = 1\nsides = \"FFFF\"\nsegments = [{{ id = \"m\", kind = \"monastery\" }}, {{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }}]\n\
             [[tiles]]\nid = \"B2\"\nlike = \"B\"\ncount = 1\n\
             [[tiles]]\nid = \"B3\"\nlike = \"B2\"\nname = \"Monastery by a pond\"\ncount = 1\n\
             [[tiles]]\nid = \"B4\"\nlike = \"B3\"\ncount = 1\n"
        );
        let ts = Tileset::parse("t.toml", &text).unwrap();
        let names: Vec<&str> = ts.tiles.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Monastery", "Monastery", "Monastery by a pond", "Monastery by a pond"]);
    }

    #[test]
    fn like_copies_geometry_and_unknown_references_are_reported() {
        let text = format!(
            "{HEADER}start = \"nope\"\n[[tiles]]\nid = \"B\"\ncount = 1\nsides = \"FFFF\"\nsegments = [{{ id = \"m\", kind = \"monastery\" }}, {{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }}]\n[[tiles]]\nid = \"B2\"\nlike = \"B\"\ncount = {{ C2 = 1 }}\neditions = [\"C2\"]\nillustrations = [{{ kind = \"farmhouse\", field = \"f\" }}]\n"
        );
        let errs = errors(&text);
        assert_eq!(errs, vec!["t.toml:4:9: start tile `nope` is not defined in this file".to_string()]);
        let fixed = text.replace("start = \"nope\"", "start = \"B\"");
        let ts = Tileset::parse("t.toml", &fixed).unwrap();
        assert_eq!(ts.tiles[1].segments.len(), 2);
        assert_eq!(ts.tiles[1].counts, vec![0, 1]);
        assert_eq!(ts.tiles[1].illustrations[0].field, Some(1));
        let misspelt = fixed.replace("like = \"B\"", "like = \"b\"");
        assert_eq!(
            errors(&misspelt),
            ["t.toml:12:8: `like = \"b\"` names no tile defined earlier in the file; did you mean `B`?".to_string()]
        );
    }

    #[test]
    fn a_like_that_names_no_tile_is_the_only_problem_of_its_tile() {
        let text = format!(
            "{HEADER}[[tiles]]\nid = \"B2\"\nlike = \"B\"\ncount = 1\n[[tiles]]\nid = \"C\"\ncount = 1\n\
             [[tiles]]\nid = \"B3\"\nlike = \"B2\"\ncount = 1\n"
        );
        assert_eq!(
            errors(&text),
            [
                "t.toml:6:8: `like = \"B\"` names no tile defined earlier in the file".to_string(),
                "t.toml:8:1: tile `C` needs `sides` (four letters N E S W from C R F W), or `like`".to_string(),
                "t.toml:13:8: `like = \"B2\"` names a tile whose own problems leave it no sides".to_string(),
            ]
        );
    }
}
