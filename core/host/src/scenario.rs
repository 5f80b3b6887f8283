//! Scenario files: a game config with a fixed draw order, the actions to play, and what must be
//! true after each of them (format: `docs/scenarios.md`). `cargo test` runs the project's
//! scenarios; `meeple test` runs a mod's.

use crate::{GameConfig, Loaded};
use meeple_core::figures::{FigureId, Location};
use meeple_core::{Action, Event, Game, Pos, Rotation, Rules, Target};
use meeple_toml::{DeValue, Report, type_name};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An event as one line of text, the form scenario files use.
pub fn event_text(game: &Game, names: &[String], e: &Event) -> String {
    let rules = game.rules();
    let who = |p: u8| names.get(p as usize).cloned().unwrap_or_else(|| format!("player {p}"));
    let tile = |t: u16| rules.tile(t).def.id.clone();
    match e {
        Event::TileDrawn { tile: t, .. } => format!("drew {}", tile(*t)),
        Event::TileDiscarded { tile: t } => format!("discarded {}", tile(*t)),
        Event::TilePlaced { tile: t, pos, rotation, .. } => {
            format!("placed {} at {},{} r{}", tile(*t), pos.x, pos.y, rotation.quarter_turns())
        }
        Event::FigurePlaced { player, kind, at, .. } => {
            format!("{} put {} on {}", who(*player), rules.figure(*kind).id, location_text(game, at))
        }
        Event::FigureMoved { to, figure, .. } => {
            format!("{} moved to {}", figure_name(game, names, *figure), location_text(game, to))
        }
        Event::FigureReturned { player, kind, .. } => format!("{} got back {}", who(*player), rules.figure(*kind).id),
        Event::FigureTurned { figure, face } => format!("{} turned to {face}", figure_name(game, names, *figure)),
        Event::FeatureCompleted { kind, completer, .. } => format!("{} completed by {}", kind.name(), who(*completer)),
        Event::FeatureScored { kind, completed, points, .. } => {
            let what = if *completed || *kind == meeple_core::SegmentKind::Field {
                kind.name().to_string()
            } else {
                format!("unfinished {}", kind.name())
            };
            if points.is_empty() {
                format!("scored {what}: nobody")
            } else {
                let list: Vec<String> = points.iter().map(|(p, n)| format!("{} {n}", who(*p))).collect();
                format!("scored {what}: {}", list.join(", "))
            }
        }
        Event::PointsAdded { player, points, category } => {
            format!("{} {points:+} {}", who(*player), rules.categories()[*category as usize])
        }
        Event::TokensChanged { player, token, delta } => {
            format!("{} {delta:+} {}", who(*player), rules.tokens()[*token as usize].id)
        }
        Event::DecisionRequested { player, kind, .. } => format!("{} decides {kind}", who(*player)),
        Event::DecisionMade { player, option } => format!("{} chose {option}", who(*player)),
        Event::Log { message, .. } => format!("log: {message}"),
        Event::TurnPartEnd { part, .. } => format!("end of part {part}"),
        Event::TurnEnd { player, .. } => format!("end of turn of {}", who(*player)),
        Event::FinalScoring => "final scoring".to_string(),
        Event::GameEnd => "game over".to_string(),
    }
}

fn figure_name(game: &Game, names: &[String], id: u16) -> String {
    let f = game.state().figure(id);
    format!("{}'s {}", names.get(f.owner as usize).map_or("?", String::as_str), game.rules().figure(f.kind).id)
}

fn location_text(game: &Game, at: &Location) -> String {
    let st = game.state();
    match *at {
        Location::Segment { segment } => {
            let info = st.features().info(segment);
            let placed = st.board().tile(info.tile);
            let seg = &game.rules().tile(placed.tile).def.segments[info.local as usize];
            format!("{} at {},{}", seg.id, placed.pos.x, placed.pos.y)
        }
        Location::Point { tile, point } => {
            let placed = st.board().tile(tile);
            format!(
                "{} at {},{}",
                game.rules().tile(placed.tile).def.points[point as usize].id,
                placed.pos.x,
                placed.pos.y
            )
        }
        Location::Supply => "supply".into(),
        Location::Aside => "aside".into(),
    }
}

/// A scenario file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    description: String,
    #[serde(default)]
    source: Option<String>,
    /// The game config: read from the file's text by [`GameConfig::parse_table`], so that its
    /// problems carry their own lines.
    #[serde(rename = "game")]
    _game: toml::Table,
    /// Editions to play the scenario in, by expansion id (`base` for the base game): once for
    /// each, in place of the edition `[game]` gives; a rule that holds in several editions is
    /// tested in each from one file.
    #[serde(default)]
    editions: BTreeMap<String, Vec<String>>,
    #[serde(default, rename = "step")]
    steps: Vec<toml::Spanned<Step>>,
    #[serde(default)]
    end: Option<toml::Spanned<Expect>>,
}

/// One action (or a placement followed by a figure action) and what must hold afterwards.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    #[serde(default)]
    player: Option<String>,
    #[serde(default)]
    place: Option<String>,
    #[serde(default)]
    figure: Option<String>,
    #[serde(default)]
    offer: Option<String>,
    #[serde(default)]
    choose: Option<u16>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    expect: Option<Expect>,
}

/// What must be true.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    scores: Option<Vec<i32>>,
    #[serde(default)]
    breakdown: Option<BTreeMap<String, Vec<i32>>>,
    #[serde(default)]
    supply: Option<BTreeMap<String, Vec<u8>>>,
    #[serde(default)]
    tokens: Option<BTreeMap<String, Vec<i32>>>,
    #[serde(default)]
    events: Option<Vec<String>>,
    #[serde(default)]
    no_events: Option<Vec<String>>,
    #[serde(default)]
    over: Option<bool>,
    #[serde(default)]
    to_act: Option<String>,
    #[serde(default)]
    drawn: Option<String>,
    #[serde(default)]
    discarded: Option<Vec<String>>,
    #[serde(default)]
    figure_actions: Option<usize>,
    #[serde(default)]
    offers: Option<usize>,
}

/// The keys of a scenario's top level, of a `[[step]]` and of an `expect` (or `[end]`): the
/// fields of [`Scenario`], [`Step`] and [`Expect`], kept equal to them by a test.
const SCENARIO_KEYS: &[&str] = &["description", "source", "game", "editions", "step", "end"];
const STEP_KEYS: &[&str] = &["player", "place", "figure", "offer", "choose", "error", "expect"];
const EXPECT_KEYS: &[&str] = &[
    "scores",
    "breakdown",
    "supply",
    "tokens",
    "events",
    "no_events",
    "over",
    "to_act",
    "drawn",
    "discarded",
    "figure_actions",
    "offers",
];

/// Every key a scenario misspells and every value of the wrong type or out of range, each at
/// its line and in words (serde would stop at the first, and name Rust's types). The `[game]`
/// table is the config reader's; a file with a syntax error is left to it too.
fn shape_problems(file: &str, text: &str) -> Report {
    let mut doc = meeple_toml::Doc::parse(file, text);
    if doc.has_errors() {
        return Report::default();
    }
    let root = doc.root();
    let mut top = doc.table(&root, "the scenario");
    // Keys not read here are read by serde, which judges them.
    top.allow(SCENARIO_KEYS);
    top.req_str(&mut doc, "description");
    top.str(&mut doc, "source");
    if let Some(v) = top.table(&mut doc, "editions")
        && let Some(t) = doc.table_in(v, "`editions`")
    {
        for (id, list) in t.entries() {
            match list.get_ref() {
                DeValue::Array(a) => {
                    meeple_toml::str_items(&mut doc, "editions", a);
                }
                other => doc.error(
                    list.span(),
                    format!("`editions.{}` must be a list of editions, found {}", id.value, type_name(other)),
                ),
            }
        }
    }
    let steps = match top.get("step") {
        Some(v) if v.get_ref().is_table() => {
            doc.error(v.span(), "each step is a `[[step]]` table, with two brackets: they are a list");
            None
        }
        _ => top.array(&mut doc, "step"),
    };
    for (i, step) in steps.iter().flat_map(|a| a.value.iter()).enumerate() {
        let what = format!("[[step]] {}", i + 1);
        let Some(mut t) = doc.table_in(step, &what) else { continue };
        t.allow(STEP_KEYS);
        for key in ["player", "place", "figure", "offer", "error"] {
            t.str(&mut doc, key);
        }
        in_range(&mut doc, &mut t, "choose", 0, u16::MAX.into());
        if let Some(expect) = t.get("expect") {
            expect_shape(&mut doc, expect, &format!("the expect of {what}"));
        }
        t.finish(&mut doc);
    }
    if let Some(end) = top.get("end") {
        expect_shape(&mut doc, end, "[end]");
    }
    top.finish(&mut doc);
    doc.finish().err().unwrap_or_default()
}

fn expect_shape(doc: &mut meeple_toml::Doc<'_>, value: &toml::Spanned<DeValue<'_>>, what: &str) {
    let Some(mut t) = doc.table_in(value, what) else { return };
    t.allow(EXPECT_KEYS);
    let i32_range = (i32::MIN.into(), i32::MAX.into());
    if let Some(v) = t.get("scores") {
        integers(doc, "`scores`", v, i32_range);
    }
    for (key, range) in [("breakdown", i32_range), ("tokens", i32_range), ("supply", (0, u8::MAX.into()))] {
        if let Some(v) = t.table(doc, key)
            && let Some(per) = doc.table_in(v, &format!("`{key}`"))
        {
            for (name, list) in per.entries() {
                integers(doc, &format!("`{key}.{}`", name.value), list, range);
            }
        }
    }
    for key in ["events", "no_events", "discarded"] {
        t.str_list(doc, key);
    }
    t.bool(doc, "over");
    for key in ["to_act", "drawn"] {
        t.str(doc, key);
    }
    for key in ["figure_actions", "offers"] {
        // Counts of any size (`usize`): only a negative one is out of range.
        in_range(doc, &mut t, key, 0, i64::MAX);
    }
    t.finish(doc);
}

/// An optional integer from `min` to `max`.
fn in_range(doc: &mut meeple_toml::Doc<'_>, t: &mut meeple_toml::Table<'_, '_>, key: &'static str, min: i64, max: i64) {
    if let Some(n) = t.int(doc, key)
        && !(min..=max).contains(&n.value)
    {
        let expected =
            if min == 0 && max == i64::MAX { "a count, 0 or more".to_string() } else { format!("from {min} to {max}") };
        doc.error(n.span, format!("`{key}` must be {expected}, found {}", n.value));
    }
}

/// A list of integers from `min` to `max`, one per player.
fn integers(doc: &mut meeple_toml::Doc<'_>, what: &str, v: &toml::Spanned<DeValue<'_>>, (min, max): (i64, i64)) {
    let DeValue::Array(list) = v.get_ref() else {
        let found = type_name(v.get_ref());
        doc.error(v.span(), format!("{what} must be a list of integers, one per player, found {found}"));
        return;
    };
    for item in list.iter() {
        match (meeple_toml::integer(item.get_ref()), item.get_ref()) {
            (Some(n), _) if (min..=max).contains(&n) => {}
            (_, DeValue::Integer(n)) => {
                let n = n.as_str();
                doc.error(item.span(), format!("{what} holds {n}; expected integers from {min} to {max}"));
            }
            (_, other) => doc.error(item.span(), format!("{what} must hold integers, found {}", type_name(other))),
        }
    }
}

/// Runs one scenario file; `load` builds the ruleset of its `[game]` config. The error names
/// the first step whose expectations failed, and every expectation of it that failed.
pub fn run_scenario(path: &Path, load: &dyn Fn(&GameConfig) -> Result<Loaded, Report>) -> Result<(), String> {
    let bytes = crate::ruleset::read_bounded(path)?;
    let text = String::from_utf8(bytes).map_err(|_| "cannot read: not UTF-8 text".to_string())?;
    let file = path.display().to_string();
    let (config, problems) = GameConfig::parse_table(&file, &text, "game");
    let mut keys = shape_problems(&file, &text);
    if !keys.is_empty() {
        // Reported with the `[game]` table's, in file order.
        keys.extend(problems);
        keys.diagnostics.sort_by_key(|d| (d.line, d.col));
        return Err(keys.to_string());
    }
    // The `[game]` table's problems are reported with the rest's, not one run later.
    let sc: Scenario = toml::from_str(&text).map_err(|e| {
        let game = if problems.is_empty() { String::new() } else { format!("{problems}\n") };
        // As `file:line:col: message`, the form of every other problem.
        let (line, column) = meeple_toml::Doc::parse("", &text).line_col(e.span().map_or(0, |span| span.start));
        format!("{game}{}:{line}:{column}: {}", path.display(), e.message().trim_end())
    })?;
    for (label, config) in in_editions(config, &sc.editions)? {
        let loaded = crate::load::with_problems(problems.clone(), load(&config)).map_err(|r| format!("{label}{r}"))?;
        play(path, &text, &sc, &loaded).map_err(|e| format!("{label}{e}"))?;
    }
    Ok(())
}

/// The configs a scenario is played in, each with a label for its errors: its own, or one for
/// each edition its `editions` lists.
fn in_editions(
    config: GameConfig,
    editions: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<(String, GameConfig)>, String> {
    if editions.is_empty() {
        return Ok(vec![(String::new(), config)]);
    }
    let mut out = Vec::new();
    for (id, listed) in editions {
        for edition in listed {
            let mut c = config.clone();
            let choice = std::iter::once(&mut c.base).chain(c.expansions.iter_mut()).find(|x| x.id == *id);
            let Some(choice) = choice else {
                return Err(format!("{}: `editions`: `{id}` is not among the `[game]`'s expansions", config.file));
            };
            choice.edition = Some(edition.clone());
            out.push((format!("[{id} {edition}] "), c));
        }
    }
    Ok(out)
}

/// Plays a scenario's steps in a ruleset and checks what they expect.
fn play(path: &Path, text: &str, sc: &Scenario, loaded: &Loaded) -> Result<(), String> {
    let names = loaded.config.players.clone();
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(0)).map_err(|e| e.to_string())?;
    let mut all: Vec<String> = game.events().iter().map(|e| event_text(&game, &names, e)).collect();
    for (i, step) in sc.steps.iter().enumerate() {
        let start = step.span().start;
        let at = format!("{}:{}: ", path.display(), line_at(text, start));
        let step = step.get_ref();
        let ctx = |msg: String| format!("{}\n{at}step {}: {msg}", sc.description, i + 1);
        let events = run_step(&mut game, loaded, step).map_err(ctx)?;
        all.extend(events.iter().cloned());
        if let Some(expect) = &step.expect {
            check(&game, &names, expect, &events).map_err(|(key, m)| {
                let line = key_line(text, start, "step", key);
                format!("{}\n{}:{line}: step {}: {m}", sc.description, path.display(), i + 1)
            })?;
        }
    }
    if let Some(end) = &sc.end {
        check(&game, &names, end.get_ref(), &all).map_err(|(key, m)| {
            let line = key_line(text, end.span().start, "end", key);
            let source = sc.source.as_deref().unwrap_or("-");
            format!("{}\n{}:{line}: at the end: {m}\nsource: {source}", sc.description, path.display())
        })?;
    }
    Ok(())
}

/// The line (from 1) of a byte offset in a scenario's text.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// The line of what a table says about `key`: the table is `[[step]]` or `[end]` (`section`),
/// starting at byte `offset`; the first of its lines that sets `key` (`key = …`, `key.x = …`,
/// `expect = { key = … }`, `[end.key]`), else the table's own first line. A failed expectation
/// is so shown at the line that states it.
fn key_line(text: &str, offset: usize, section: &str, key: &str) -> usize {
    let first = line_at(text, offset);
    let sets_key = |line: &str| {
        line.match_indices(key).any(|(at, _)| {
            let before = line[..at].trim_end().chars().last();
            let after = line[at + key.len()..].trim_start().chars().next();
            matches!(before, None | Some('{' | ',' | '.')) && matches!(after, Some('=' | '.' | ']'))
        })
    };
    // The table's own text runs to the next header of another table.
    let own = |line: &str| {
        let header = line.trim_start().trim_start_matches('[');
        !line.trim_start().starts_with('[') || header.split(['.', ']']).next() == Some(section)
    };
    let lines = text[offset..].lines().enumerate();
    let mut in_table = lines.take_while(|(i, line)| *i == 0 || own(line));
    in_table.find(|(_, line)| sets_key(line)).map_or(first, |(i, _)| first + i)
}

/// Reads one action of a step in the game as it stands.
type ActionReader<'a> = Box<dyn Fn(&Game) -> Result<Action, String> + 'a>;

fn run_step(game: &mut Game, loaded: &Loaded, step: &Step) -> Result<Vec<String>, String> {
    let names = &loaded.config.players;
    if let Some(p) = &step.player
        && game.to_act() != Some(player_index(names, p)?)
    {
        return Err(format!("expected {p} to act, but {}", acting(game, names)));
    }
    // Each action is read just before it is applied: an offer may name the tile placed by the
    // same step.
    let mut parts: Vec<ActionReader<'_>> = Vec::new();
    if let Some(place) = &step.place {
        parts.push(Box::new(move |g: &Game| parse_place(g, place)));
    }
    if let Some(fig) = &step.figure {
        parts.push(Box::new(move |g: &Game| parse_figure(g, fig)));
    }
    if let Some(offer) = &step.offer {
        parts.push(Box::new(move |g: &Game| parse_offer(g, offer)));
    }
    if let Some(option) = step.choose {
        parts.push(Box::new(move |_: &Game| Ok(Action::Choose { option })));
    }
    if parts.is_empty() {
        return Err("a step needs `place`, `figure`, `offer` or `choose`".into());
    }
    let mut texts = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let action = part(game)?;
        let described = game.describe(&action).to_string();
        let before = game.state().hash();
        match (game.apply(action), &step.error) {
            (Ok(events), None) => {
                let events = events.to_vec();
                texts.extend(events.iter().map(|e| event_text(game, names, e)));
            }
            (Ok(_), Some(kind)) => {
                return Err(format!("`{described}` was accepted, expected an error: `{kind}`"));
            }
            (Err(e), Some(kind)) => {
                let got = match e {
                    meeple_core::ActionError::Illegal(_) => "illegal",
                    meeple_core::ActionError::GameOver => "game-over",
                    meeple_core::ActionError::Hook(_) => "hook",
                };
                if got != kind {
                    return Err(format!("expected an error: `{kind}`, got: {e}"));
                }
                if game.state().hash() != before {
                    return Err("a refused action changed the game".into());
                }
                if i == 0 {
                    return Ok(texts);
                }
            }
            // A failing hook is the rule's code, not the move: said so, or it reads as a slip in
            // the scenario.
            // The line is also given as a path from here, which an editor opens.
            (Err(meeple_core::ActionError::Hook(e)), None) => {
                let on_disk = loaded.file_of(&e).map(|f| format!("\nthe failing line: {f}")).unwrap_or_default();
                return Err(format!("`{described}` stopped: a hook failed: {e}{on_disk}"));
            }
            (Err(e), None) => return Err(format!("`{described}` was refused: {e}")),
        }
    }
    Ok(texts)
}

/// `"E at 0,1 r2"`: tile id, square, quarter turns clockwise.
fn parse_place(game: &Game, s: &str) -> Result<Action, String> {
    let bad = || format!("`place = \"{s}\"`: expected \"<tile> at <x>,<y> r<0-3>\"");
    let words: Vec<&str> = s.split_whitespace().collect();
    let [tile, "at", xy, r] = words[..] else { return Err(bad()) };
    let (x, y) = xy.split_once(',').ok_or_else(bad)?;
    let pos = Pos::new(x.parse().map_err(|_| bad())?, y.parse().map_err(|_| bad())?);
    let quarter_turns = r.strip_prefix('r').and_then(|n| n.parse::<u8>().ok()).filter(|n| *n < 4);
    let rotation = Rotation::new(quarter_turns.ok_or_else(bad)?);
    let drawn = game.state().turn().tile.map(|t| game.rules().tile(t));
    if !drawn.is_some_and(|d| d.def.id == tile || *d.key == *tile) {
        return Err(match drawn {
            Some(d) => format!("expected to place {tile}, but the drawn tile is {}", d.key),
            None if game.is_over() => format!(
                "expected to place {tile}, but the game is over: the draw order has no tile left for this step \
                 (a game with `draw` ends when its last tile is played)"
            ),
            None => format!(
                "expected to place {tile}, but no tile is drawn: the turn is in its figure phase (a step that \
                 places a tile also needs `figure`, \"pass\" at least)"
            ),
        });
    }
    Ok(Action::PlaceTile { pos, rotation })
}

/// `"tollkeepers 1 at 1,0 village"`: an expansion's action by its code, on a point (by id) or a
/// segment (by id) of the tile at a square, on the figure of a kind standing there
/// (`"abbot 1 on abbot at 0,1 monastery"`), or on nothing (`"tollkeepers 3"`). Built whether or
/// not it is on offer, so that a step can check it is refused.
fn parse_offer(game: &Game, s: &str) -> Result<Action, String> {
    let bad = || {
        format!(
            "`offer = \"{s}\"`: expected \"<expansion> <code>[ at <x>,<y> <point or segment>]\" or \
             \"<expansion> <code> on <figure> at <x>,<y> <point or segment>\""
        )
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    let (id, code, figure, at) = match words[..] {
        [id, code] => (id, code, None, None),
        [id, code, "at", xy, part] => (id, code, None, Some((xy, part))),
        [id, code, "on", figure, "at", xy, part] => (id, code, Some(figure), Some((xy, part))),
        _ => return Err(bad()),
    };
    let rules = game.rules();
    let expansion = rules.expansions().iter().position(|e| e.id() == id).ok_or_else(|| {
        let ids: Vec<&str> = rules.expansions().iter().map(|e| e.id()).collect();
        let meant = meeple_toml::did_you_mean(id, &ids);
        format!("no expansion `{id}` in this game; {meant}the expansions are: {}", ids.join(", "))
    })? as u16;
    let code: u32 = code.parse().map_err(|_| bad())?;
    let target = match at {
        None => Target::None,
        Some((xy, part)) => {
            let (x, y) = xy.split_once(',').ok_or_else(bad)?;
            let pos = Pos::new(x.parse().map_err(|_| bad())?, y.parse().map_err(|_| bad())?);
            let target = target_on_tile(game, pos, xy, part)?;
            match figure {
                None => target,
                Some(kind) => figure_at(game, kind, target, &format!("{part} at {xy}"))?,
            }
        }
    };
    Ok(Action::Expansion { expansion, code, target })
}

/// A point (by id) or a segment (by id) of the tile at `pos`, as a target.
fn target_on_tile(game: &Game, pos: Pos, xy: &str, part: &str) -> Result<Target, String> {
    let rules = game.rules();
    let placed = game.state().board().index_at(pos).ok_or_else(|| format!("no tile at {xy}"))?;
    let def = &rules.tile(game.state().board().tile(placed).tile).def;
    if let Some(point) = def.points.iter().position(|p| p.id == part) {
        Ok(Target::Point { pos, point: point as u8 })
    } else if let Some(segment) = def.segment(part) {
        Ok(Target::Segment { pos, segment: segment as u8 })
    } else {
        Err(format!("tile {} at {xy} has no point or segment `{part}`", def.id))
    }
}

/// The figure of a kind that stands on a point or segment, as a target: exactly one must.
fn figure_at(game: &Game, kind: &str, place: Target, written: &str) -> Result<Target, String> {
    let kind = figure_id(game.rules(), kind)?;
    let state = game.state();
    let board = state.board();
    let at = match place {
        Target::Point { pos, point } => board.index_at(pos).map(|tile| Location::Point { tile, point }),
        Target::Segment { pos, segment } => state.segment_at(pos, segment).map(|segment| Location::Segment { segment }),
        Target::None | Target::Figure { .. } => None,
    };
    let mut there = state.figures().iter().enumerate().filter(|(_, f)| f.kind == kind && Some(f.at) == at);
    let name = &game.rules().figure(kind).id;
    match (there.next(), there.next()) {
        (Some((figure, _)), None) => Ok(Target::Figure { figure: figure as FigureId }),
        (None, _) => Err(format!("no {name} stands on {written}")),
        (Some(_), Some(_)) => Err(format!("more than one {name} stands on {written}")),
    }
}

/// `"meeple on city"`, `"meeple on road with builder"`, `"pass"`.
fn parse_figure(game: &Game, s: &str) -> Result<Action, String> {
    if s == "pass" {
        return Ok(Action::Pass);
    }
    let bad = || format!("`figure = \"{s}\"`: expected \"<figure> on <segment>[ with <figure>]\" or \"pass\"");
    let words: Vec<&str> = s.split_whitespace().collect();
    let (kind, seg, with) = match words[..] {
        [k, "on", seg] => (k, seg, None),
        [k, "on", seg, "with", w] => (k, seg, Some(w)),
        _ => return Err(bad()),
    };
    let rules = game.rules();
    let figure = figure_id(rules, kind)?;
    let with = with.map(|w| figure_id(rules, w)).transpose()?;
    // The segment is looked up on the tile just placed.
    let tile = game.state().turn().placed.map(|i| game.state().board().tile(i).tile);
    let tile = tile.ok_or("no tile to place a figure on")?;
    let segment = rules.tile(tile).def.segment(seg).ok_or_else(|| {
        let def = &rules.tile(tile).def;
        let known: Vec<&str> = def.segments.iter().map(|s| &*s.id).collect();
        let meant = meeple_toml::did_you_mean(seg, &known);
        format!("tile {} has no segment `{seg}`; {meant}it has: {}", def.id, known.join(", "))
    })?;
    Ok(Action::PlaceFigure { figure, segment: segment as u8, with })
}

/// The index of `name` among `ids`: a full id first, else an id whose short name (after the
/// expansion's `id:`) it is. A scenario names figures and tokens either way.
fn full_or_short<'a>(ids: impl Iterator<Item = &'a str> + Clone, name: &str) -> Option<usize> {
    ids.clone().position(|id| id == name).or_else(|| ids.into_iter().position(|id| id.rsplit(':').next() == Some(name)))
}

/// Full ids (`expansion:name`) as `name` is written: in full when it is, else their short names.
fn as_written<'a>(ids: &[&'a str], name: &str) -> Vec<&'a str> {
    if name.contains(':') { ids.to_vec() } else { ids.iter().filter_map(|id| id.rsplit(':').next()).collect() }
}

fn figure_id(rules: &Rules, name: &str) -> Result<u8, String> {
    let ids = rules.figures().iter().map(|f| f.id.as_str());
    full_or_short(ids.clone(), name).map(|i| i as u8).ok_or_else(|| {
        let known: Vec<&str> = ids.collect();
        let meant = meeple_toml::did_you_mean(name, &as_written(&known, name));
        format!("no figure `{name}`; {meant}the figures are: {}", known.join(", "))
    })
}

fn token_id(rules: &Rules, name: &str) -> Result<u16, String> {
    let ids = rules.tokens().iter().map(|t| t.id.as_str());
    full_or_short(ids.clone(), name).map(|i| i as u16).ok_or_else(|| {
        let known: Vec<&str> = ids.collect();
        let meant = meeple_toml::did_you_mean(name, &as_written(&known, name));
        let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
        format!("no token `{name}`; {meant}the tokens are: {known}")
    })
}

/// Who acts, for a message: "it is Bob's turn", or that nobody does.
fn acting(game: &Game, names: &[String]) -> String {
    match game.to_act() {
        Some(p) => format!("it is {}'s turn", names.get(p as usize).map_or("?", String::as_str)),
        None => "nobody acts: the game is over".to_string(),
    }
}

fn player_index(names: &[String], name: &str) -> Result<u8, String> {
    names.iter().position(|n| n == name).map(|i| i as u8).ok_or_else(|| format!("no player `{name}`"))
}

/// Every way the game differs from what the scenario expects, not only the first: one run
/// shows all that a change broke.
/// An expectation that does not hold: the key that states it, and what is wrong.
type Wrong = (&'static str, String);

/// Checks an `expect` (or `[end]`); on failure, the key of the first wrong expectation and every
/// wrong one in words.
fn check(game: &Game, names: &[String], e: &Expect, events: &[String]) -> Result<(), Wrong> {
    let mut wrong = Vec::new();
    check_counts(game, e, &mut wrong)?;
    check_events(game, names, e, events, &mut wrong);
    check_position(game, names, e, &mut wrong)?;
    let Some(&(key, _)) = wrong.first() else { return Ok(()) };
    let mut lines: Vec<String> = wrong.into_iter().map(|(_, w)| w).collect();
    if !lines.iter().any(|w| w.starts_with("missing event")) {
        lines.push(format!("events were:\n  {}", events.join("\n  ")));
    }
    Err((key, lines.join("\n")))
}

/// Notes `what` (stated by `key`) as wrong when `got` is not what was wanted.
fn differ<T: PartialEq + std::fmt::Debug>(
    wrong: &mut Vec<Wrong>,
    key: &'static str,
    what: impl std::fmt::Display,
    want: &T,
    got: &T,
) {
    if want != got {
        wrong.push((key, format!("{what}: expected {want:?}, got {got:?}")));
    }
}

/// Scores, points per category, figures in supply and tokens, per player.
fn check_counts(game: &Game, e: &Expect, wrong: &mut Vec<Wrong>) -> Result<(), Wrong> {
    let (st, rules) = (game.state(), game.rules());
    let players = 0..st.players();
    if let Some(want) = &e.scores {
        differ(wrong, "scores", "scores", want, &players.clone().map(|p| st.score(p)).collect());
    }
    for (cat, want) in e.breakdown.iter().flatten() {
        let c = rules.category(cat).ok_or_else(|| {
            let known: Vec<&str> = rules.categories().iter().map(String::as_str).collect();
            let hint = meeple_toml::did_you_mean(cat, &known);
            let why =
                format!("no score category `{cat}` in `breakdown`; {hint}the categories are {}", known.join(", "));
            ("breakdown", why)
        })?;
        differ(wrong, "breakdown", format!("{cat} points"), want, &players.clone().map(|p| st.points(p, c)).collect());
    }
    for (fig, want) in e.supply.iter().flatten() {
        let k = figure_id(rules, fig).map_err(|why| ("supply", why))?;
        differ(wrong, "supply", format!("{fig} in supply"), want, &players.clone().map(|p| st.supply(p, k)).collect());
    }
    for (tok, want) in e.tokens.iter().flatten() {
        let t = token_id(rules, tok).map_err(|why| ("tokens", why))?;
        differ(wrong, "tokens", format!("{tok} tokens"), want, &players.clone().map(|p| st.tokens(p, t)).collect());
    }
    Ok(())
}

/// The events that must happen, in order, and those that must not; a line that must not
/// happen must be one that could, else it would pass whatever the game did.
fn check_events(game: &Game, names: &[String], e: &Expect, events: &[String], wrong: &mut Vec<Wrong>) {
    for line in e.no_events.iter().flatten() {
        if let Some(why) = not_an_event(game.rules(), names, line) {
            let forms =
                "the forms of event lines are in docs/scenarios.md, and the events of a failing step are listed";
            wrong.push(("no_events", format!("`{line}` is no event line of this game: {why}; {forms}")));
        }
    }
    if let Some(want) = &e.events {
        let mut rest = events.iter();
        for w in want {
            if !rest.any(|g| g == w) {
                let events = events.join("\n  ");
                wrong.push(("events", format!("missing event (in this order) `{w}`; events were:\n  {events}")));
                break; // The events after it were passed by in the search.
            }
        }
    }
    let happened = |line: &String| match line.strip_suffix('…') {
        Some(start) => events.iter().any(|e| e.starts_with(start)),
        None => events.contains(line),
    };
    if let Some(found) = e.no_events.iter().flatten().find(|n| happened(n)) {
        wrong.push(("no_events", format!("unexpected event `{found}`")));
    }
}

/// Why `line` cannot be an event line ([`event_text`]) of a game with these rules and players:
/// it has none of their forms, or names a player, figure, token or category the game lacks. A
/// line that ends in `…` stands for the lines that start with what comes before it: what it
/// has must fit.
fn not_an_event(rules: &Rules, names: &[String], line: &str) -> Option<String> {
    let (line, partial) = match line.strip_suffix('…') {
        Some(start) => (start.trim_end(), true),
        None => (line, false),
    };
    let starts = ["drew", "discarded", "placed", "scored", "log:", "end of part"];
    let fixed = ["final scoring", "game over"];
    let cut_short = |form: &str| partial && form.starts_with(line);
    if fixed.contains(&line)
        || starts.iter().any(|s| line.starts_with(&format!("{s} ")) || cut_short(s))
        || cut_short("end of turn of")
    {
        return None;
    }
    if let Some(p) = line.strip_prefix("end of turn of ").or_else(|| line.split_once(" completed by ").map(|(_, p)| p))
    {
        return player_index(names, p).err();
    }
    let Some(who) = names.iter().filter(|n| line.starts_with(n.as_str())).max_by_key(|n| n.len()) else {
        return Some(format!("it starts with no player's name ({})", names.join(", ")));
    };
    let rest = &line[who.len()..];
    let forms = ["'s", " put", " got back", " decides", " chose"];
    let cut_short = forms.iter().any(|f| f.starts_with(rest)) || rest.trim().parse::<i64>().is_ok();
    if partial && cut_short {
        return None;
    }
    let figure_then = |rest: &str, then: &[&str]| {
        // Up to the words that follow the figure (the first of them, in a partial line).
        let word = |t: &&str| if partial { t.split_inclusive(' ').take(2).collect::<String>() } else { t.to_string() };
        let ends = then.iter().map(word).map(|t| t.trim_end().to_string()).collect::<Vec<_>>();
        let figure = ends.iter().find_map(|t| rest.split_once(t.as_str()).map(|(f, _)| f)).unwrap_or(rest);
        let ids = || rules.figures().iter().map(|f| f.id.as_str());
        match figure_id(rules, figure) {
            _ if ids().any(|id| id == figure) => None,
            // A short name is read elsewhere in a scenario, but events write the whole id.
            Ok(k) => Some(format!("events name a figure by its whole id: `{}`", rules.figure(k).id)),
            Err(why) => Some(why),
        }
    };
    if let Some(rest) = rest.strip_prefix("'s ") {
        return figure_then(rest, &[" moved to ", " turned to "]);
    }
    if let Some(rest) = rest.strip_prefix(" put ") {
        return figure_then(rest, &[" on "]);
    }
    if let Some(rest) = rest.strip_prefix(" got back ") {
        return figure_then(rest, &[]);
    }
    if rest.starts_with(" decides ") || rest.starts_with(" chose ") {
        return None;
    }
    // `Red +2 traders-builders:wine`, `Blue -1 tollkeepers`: a token or a category.
    let signed = rest.strip_prefix(' ').and_then(|r| r.split_once(' ')).filter(|(n, _)| n.parse::<i64>().is_ok());
    let Some((_, name)) = signed else {
        return Some(format!(
            "after `{who}` comes none of `'s`, `put`, `got back`, `decides`, `chose` or a signed number"
        ));
    };
    if rules.tokens().iter().any(|t| t.id == name) || rules.category(name).is_some() {
        return None;
    }
    if let Ok(t) = token_id(rules, name) {
        return Some(format!("events name a token by its whole id: `{}`", rules.tokens()[t as usize].id));
    }
    let mut known: Vec<&str> = rules.tokens().iter().map(|t| t.id.as_str()).collect();
    known.extend(rules.categories().iter().map(String::as_str));
    let meant = meeple_toml::did_you_mean(name, &known);
    Some(format!("`{name}` is neither a token nor a score category; {meant}they are: {}", known.join(", ")))
}

/// Where the game stands: over or not, who acts, the drawn and discarded tiles, what is offered.
fn check_position(game: &Game, names: &[String], e: &Expect, wrong: &mut Vec<Wrong>) -> Result<(), Wrong> {
    let (st, rules) = (game.state(), game.rules());
    if let Some(over) = e.over
        && game.is_over() != over
    {
        wrong.push(("over", format!("game over: expected {over}")));
    }
    if let Some(who) = &e.to_act {
        let p = player_index(names, who).map_err(|why| ("to_act", why))?;
        if game.to_act() != Some(p) {
            wrong.push(("to_act", format!("expected {who} to act next, but {}", acting(game, names))));
        }
    }
    if let Some(t) = &e.drawn {
        let got = st.turn().tile.map(|t| rules.tile(t).def.id.clone());
        if got.as_deref() != Some(t.as_str()) {
            wrong.push(("drawn", format!("drawn tile: expected {t}, got {}", got.as_deref().unwrap_or("none"))));
        }
    }
    if let Some(want) = &e.discarded {
        differ(
            wrong,
            "discarded",
            "discarded",
            want,
            &st.discarded().iter().map(|&t| rules.tile(t).def.id.clone()).collect(),
        );
    }
    let count = |f: fn(&Action) -> bool| game.legal_actions().iter().filter(|a| f(a)).count();
    if let Some(n) = e.offers {
        differ(wrong, "offers", "expansion actions on offer", &n, &count(|a| matches!(a, Action::Expansion { .. })));
    }
    if let Some(n) = e.figure_actions {
        differ(
            wrong,
            "figure_actions",
            "figure placements on offer",
            &n,
            &count(|a| matches!(a, Action::PlaceFigure { .. })),
        );
    }
    Ok(())
}

/// Every scenario file under a folder, sorted. Inside an expansion (a folder with an
/// `expansion.toml`) only its `tests/` folder holds scenarios; its manifest and tilesets do not.
pub fn scenario_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect_scenarios(dir, &mut out);
    out.sort();
    out
}

fn collect_scenarios(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("expansion.toml").is_file() {
        crate::ruleset::collect_files(&dir.join("tests"), "toml", out);
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        // A plugin's crate sits beside its scenarios: its manifest and build output are not ones.
        let name = path.file_name().unwrap_or_default();
        if path.is_dir() && name != "target" {
            collect_scenarios(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") && name != "Cargo.toml" {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields serde expects of `T`, as its error for an unknown field lists them.
    fn serde_fields<T: for<'de> Deserialize<'de>>(text: &str) -> Vec<String> {
        let err = toml::from_str::<T>(text).err().expect("an unknown field is refused").message().to_string();
        let (_, listed) = err.split_once("expected one of ").unwrap_or_else(|| panic!("no field list in: {err}"));
        listed.split(", ").map(|f| f.trim().trim_matches('`').to_string()).collect()
    }

    #[test]
    fn the_key_lists_are_the_fields_serde_reads() {
        assert_eq!(serde_fields::<Scenario>("zz = 1"), SCENARIO_KEYS);
        assert_eq!(serde_fields::<Step>("zz = 1"), STEP_KEYS);
        assert_eq!(serde_fields::<Expect>("zz = 1"), EXPECT_KEYS);
    }
}
