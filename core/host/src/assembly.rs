//! Putting a ruleset together from the expansions a config selects, in load order: their
//! tilesets with the config's tile numbers, their `[draw]`, figures, tokens and code, and a hash
//! of everything that went in.
//!
//! Every expansion's tilesets are read before any is added, so that a tile number given to the
//! wrong expansion can be told which one has the tile.

use crate::manifest::{DrawDef, Entry, Manifest, ReplacedStartDef};
use crate::paths::display_path;
use crate::ruleset::{Instantiate, Selected, collect_files, tileset_named};
use crate::tile_mix::{EditionTiles, Elsewhere, LeftOut};
use meeple_core::hash::StableHasher;
use meeple_core::rules::{FirstStack, ReplacedStart, RulesBuilder};
use meeple_core::{Rules, Tileset, Value};
use meeple_toml::{Diagnostic, Report};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A ruleset put together, with what the config's tile numbers did to it.
pub(crate) struct Assembled {
    pub rules: Rules,
    /// Numbers that play but may not be meant, each at its place.
    pub tile_warnings: Vec<Diagnostic>,
    /// The tiles the numbers leave out.
    pub left_out: Vec<LeftOut>,
    /// The tiles of the game's tilesets that only other editions have.
    pub other_editions: Vec<OtherEdition>,
}

/// A tile kind of a tileset the game plays that the edition played does not have (and the
/// config's numbers do not let in): a draw order naming it is told how to.
pub(crate) struct OtherEdition {
    /// The expansion whose `tiles` would let it in.
    pub expansion: String,
    /// Its key in a ruleset (`base:A-highwaymen`) and its id in its tileset.
    pub key: String,
    pub id: String,
    /// How the expansion's `tiles` name it: by id, or by key where two of its tilesets share the id.
    pub written: String,
    /// The editions of its tileset that have it, and the one played.
    pub editions: Vec<String>,
    pub played: String,
}

impl OtherEdition {
    /// Whether a tile name of a draw order (a key, or an id alone) names this tile.
    pub fn is_named(&self, name: &str) -> bool {
        crate::tile_mix::names_tile(name, &self.key, &self.id)
    }

    /// Why a draw order's `name` for it finds nothing, and what lets it in.
    pub fn why(&self, name: &str) -> String {
        let (tileset, _) = self.key.split_once(':').unwrap_or((&self.key, ""));
        let editions = if self.editions.len() == 1 { "edition" } else { "editions" };
        format!(
            "no tile `{name}` in this ruleset: it is a tile of {editions} {} of tileset `{tileset}`, and this game \
             plays its edition {} (add `{} = 1` to the `tiles` of `{}` to let it in)",
            self.editions.join(", "),
            self.played,
            meeple_toml::key(&self.written),
            self.expansion
        )
    }
}

/// The ruleset of the selected expansions; `config_file` names the config in its problems.
pub(crate) fn assemble(selected: &[Selected], config_file: &str, code: &dyn Instantiate) -> Result<Assembled, Report> {
    let mut a = Assembly::new(selected, config_file);
    let read = read_tilesets(selected, &mut a.report);
    for (s, tilesets) in selected.iter().zip(&read) {
        a.add(s, tilesets, &read, code);
    }
    a.finish()
}

/// The problems of the config's tile numbers alone, for a config some of whose expansions could
/// not be found: those of the expansions that were are still worth telling with the rest. Only
/// sure ones: a missing expansion may lay the start tile (then the base game's may be left out)
/// or bring tiles of an expansion along (`if_chosen`), so those checks wait for it.
pub(crate) fn tile_number_problems(selected: &[Selected], config_file: &str) -> Report {
    let mut a = Assembly::new(selected, config_file);
    a.laid_by_draw = true;
    let read = read_tilesets(selected, &mut a.report);
    let has = |id: &str| selected.iter().any(|x| x.manifest.id == id);
    for (s, tilesets) in selected.iter().zip(&read) {
        let edition = s.manifest.edition(&s.edition).expect("selected edition exists");
        if edition.if_chosen.iter().all(|c| has(&c.expansion)) {
            a.add_tiles(s, tilesets, &read);
        }
    }
    a.report
}

/// One tileset an expansion plays, as read.
struct ReadTileset {
    tileset: Tileset,
    /// The file's text, for the hash.
    text: String,
    /// The edition of the tileset the expansion's edition plays.
    edition: String,
    /// The manifest key that names it, where its problems are told.
    key: String,
    /// Whether it is the edition's own tileset (not one added beside another expansion): a
    /// `[draw]` start tile comes from it.
    own: bool,
}

/// One expansion's tilesets as read: its edition's own first, then those it adds beside other
/// expansions of the game (`if_chosen`).
#[derive(Default)]
struct ExpansionTilesets {
    read: Vec<ReadTileset>,
    /// A tileset failed to read: the numbers have nothing to be checked against.
    unread: bool,
}

impl ExpansionTilesets {
    fn own(&self) -> Option<&ReadTileset> {
        self.read.first().filter(|r| r.own)
    }
}

/// The tilesets of every selected expansion, in their order; each file's problems, and ids
/// that two tilesets share, go to `report`.
fn read_tilesets(selected: &[Selected], report: &mut Report) -> Vec<ExpansionTilesets> {
    // Each tileset's id, with its file and the expansion that added it: a second one of an id
    // would define its tiles again, under the same names.
    let mut ids: HashMap<String, (PathBuf, String)> = HashMap::new();
    let mut all = Vec::new();
    for s in selected {
        let m = &s.manifest;
        let edition = m.edition(&s.edition).expect("selected edition exists");
        let chosen = |id: &str| selected.iter().any(|x| x.manifest.id == id);
        let key = |k: String| format!("editions.{}.{k}", s.edition);
        let extra = edition.if_chosen.iter().enumerate().filter(|(_, c)| chosen(&c.expansion));
        let extra = extra.map(|(i, c)| (&c.tileset, &c.tileset_edition, key(format!("if_chosen.{i}.tileset"))));
        let own = edition.tileset.iter().map(|p| (p, &edition.tileset_edition, key("tileset".into())));
        let mut tilesets = ExpansionTilesets::default();
        for (i, (path, inner, at)) in own.chain(extra).enumerate() {
            let (tileset, text) = match tileset_named(m, &at, path) {
                Ok(read) => read,
                Err(r) => {
                    report.extend(r);
                    tilesets.unread = true;
                    continue;
                }
            };
            if let Some((file, by)) = ids.get(&tileset.id) {
                let why = format!(
                    "tileset `{}` ({}) has the id of `{by}`'s tileset {}: tilesets played together need ids of \
                     their own, as the id names their tiles (`{}:…`)",
                    tileset.id,
                    display_path(path),
                    display_path(file),
                    tileset.id
                );
                report.diagnostics.push(m.problem_at(&at, why));
                tilesets.unread = true;
                continue;
            }
            ids.insert(tileset.id.clone(), (path.clone(), m.id.clone()));
            let own = i == 0 && edition.tileset.is_some();
            tilesets.read.push(ReadTileset { tileset, text, edition: inner.clone(), key: at, own });
        }
        all.push(tilesets);
    }
    all
}

/// A ruleset being put together, one expansion after another.
struct Assembly<'a> {
    selected: &'a [Selected],
    config_file: &'a str,
    builder: RulesBuilder,
    hash: StableHasher,
    /// The part of `hash` of the expansion being added: fed what `hash` is fed meanwhile.
    part: StableHasher,
    report: Report,
    tile_warnings: Vec<Diagnostic>,
    left_out: Vec<LeftOut>,
    other_editions: Vec<OtherEdition>,
    /// An expansion's `[draw] start` is laid instead of the tilesets' own start tiles.
    laid_by_draw: bool,
    /// The expansions that chose the start tile and the stack drawn first, so far.
    start_by: Option<&'a str>,
    first_by: Option<&'a str>,
    /// Whether a tileset added so far names the game's start tile: the first one whose start
    /// tile is in its played edition does (the base game's D); a later tileset's start tile is
    /// one of its tiles like the others, and the engine is given it so. Where an expansion's
    /// `[draw] start` is laid instead, the named one is the tile it replaces, and the config may
    /// leave it out (then nothing is replaced).
    start_named: bool,
}

impl<'a> Assembly<'a> {
    fn new(selected: &'a [Selected], config_file: &'a str) -> Assembly<'a> {
        Assembly {
            selected,
            config_file,
            builder: Rules::builder(),
            hash: StableHasher::new(),
            part: StableHasher::new(),
            report: Report::default(),
            tile_warnings: Vec::new(),
            left_out: Vec::new(),
            other_editions: Vec::new(),
            laid_by_draw: selected.iter().any(|x| x.manifest.draw.as_ref().is_some_and(|d| d.start.is_some())),
            start_by: None,
            first_by: None,
            start_named: false,
        }
    }

    /// Adds one expansion: `tilesets` are its own, `all` every expansion's (for hints).
    fn add(
        &mut self,
        s: &'a Selected,
        tilesets: &ExpansionTilesets,
        all: &[ExpansionTilesets],
        code: &dyn Instantiate,
    ) {
        let m = &s.manifest;
        self.part = StableHasher::new();
        self.feed(|h| h.str(&m.id));
        self.feed(|h| h.str(&s.edition));
        let manifest = file_input(&m.path);
        self.feed(|h| hash_file(h, &manifest));
        for (k, v) in &s.options {
            self.feed(|h| h.str(k));
            self.feed(|h| v.hash_into(h));
        }
        self.add_tiles(s, tilesets, all);
        if let Some(draw) = &m.draw {
            let own = tilesets.own();
            self.report.diagnostics.extend(start_problem(s, draw, own.map(|r| (&r.tileset, r.edition.as_str()))));
            self.report.diagnostics.extend(draw_clash(s, draw, &mut self.start_by, &mut self.first_by));
            apply_draw(&mut self.builder, draw, s, own.map(|r| r.tileset.id.as_str()));
        }
        if m.id == "base"
            && let Some(Value::Bool(exclusive)) = s.options.get("phase2_alternatives_exclusive")
        {
            self.builder.alternatives_exclusive(*exclusive);
        }
        self.add_figures_and_tokens(s);
        for c in &m.categories {
            self.builder.category(c);
        }
        if m.entry != Entry::None {
            self.builder.category(&m.id);
        }
        self.builder.expansion_name(&m.id, &m.name);
        match code.instantiate(s) {
            Ok(Some(x)) => {
                self.builder.expansion(x);
                if m.final_scoring_with_base {
                    self.builder.final_scoring_with_base();
                }
            }
            Ok(None) => {}
            Err(r) => self.report.extend(r),
        }
        let code: Vec<FileInput> = code_files(m).iter().map(|f| file_input(f)).collect();
        self.feed(|h| code.iter().for_each(|f| hash_file(h, f)));
        self.builder.hash_part(&m.id, format!("{:016x}", self.part.finish()));
    }

    /// Feeds the ruleset's hash and the expansion's own part the same.
    fn feed(&mut self, f: impl Fn(&mut StableHasher)) {
        f(&mut self.hash);
        f(&mut self.part);
    }

    /// Adds an expansion's tilesets with the config's numbers for them.
    fn add_tiles(&mut self, s: &Selected, tilesets: &ExpansionTilesets, all: &[ExpansionTilesets]) {
        let m = &s.manifest;
        for r in &tilesets.read {
            self.feed(|h| h.str(&r.text));
        }
        let names_start: Vec<bool> = tilesets.read.iter().map(|r| self.names_start(r)).collect();
        let own_start = m.draw.as_ref().and_then(|d| d.start.as_deref()).filter(|_| tilesets.own().is_some());
        let sets: Vec<EditionTiles<'_>> = (tilesets.read.iter().zip(&names_start).enumerate())
            .map(|(i, (r, &names))| {
                let start = match own_start.filter(|_| i == 0) {
                    Some(id) => r.tileset.tiles.iter().position(|t| t.id == id),
                    None if names && !self.laid_by_draw => r.tileset.start,
                    None => None,
                };
                EditionTiles { tileset: &r.tileset, edition: &r.edition, start }
            })
            .collect();
        if tilesets.unread {
            return;
        }
        let elsewhere = self.elsewhere(s, all);
        let mut mixed = match s.tiles.apply(&m.id, self.config_file, &sets, &elsewhere) {
            Ok(mixed) => mixed,
            Err(problems) => return self.report.diagnostics.extend(problems),
        };
        for ((ts, r), names) in mixed.tilesets.iter_mut().zip(&tilesets.read).zip(names_start) {
            if !names {
                ts.start = None;
            }
            let sharing = |id: &str| tilesets.read.iter().filter(|r| r.tileset.tile(id).is_some()).count();
            self.note_other_editions(&m.id, ts, &r.edition, &sharing);
            if let Err(e) = self.builder.tileset(ts, &r.edition) {
                self.report.diagnostics.push(m.problem_at(&r.key, e.to_string()));
            }
        }
        // The numbers as played, however written: other numbers are another ruleset.
        for (key, n) in &mixed.changed {
            self.feed(|h| h.str(&format!("tile {key} {n}")));
        }
        self.tile_warnings.extend(mixed.warnings);
        self.left_out.extend(mixed.left_out);
    }

    /// Notes the tiles of `ts` that its edition `played` has none of but another edition has;
    /// `sharing` counts the expansion's tilesets that have a tile id.
    fn note_other_editions(&mut self, expansion: &str, ts: &Tileset, played: &str, sharing: &dyn Fn(&str) -> usize) {
        let Some(ed) = ts.edition(played) else { return };
        for def in ts.tiles.iter().filter(|t| t.counts[ed] == 0) {
            let editions: Vec<String> =
                ts.editions.iter().zip(&def.counts).filter(|(_, n)| **n > 0).map(|(e, _)| e.clone()).collect();
            if !editions.is_empty() {
                let key = format!("{}:{}", ts.id, def.id);
                self.other_editions.push(OtherEdition {
                    expansion: expansion.to_string(),
                    written: if sharing(&def.id) > 1 { key.clone() } else { def.id.clone() },
                    key,
                    id: def.id.clone(),
                    editions,
                    played: played.to_string(),
                });
            }
        }
    }

    /// Whether a tileset names the game's start tile (see `start_named`), noting it if so.
    fn names_start(&mut self, r: &ReadTileset) -> bool {
        let ts = &r.tileset;
        let in_edition = |t: &usize| ts.edition(&r.edition).is_some_and(|e| ts.tiles[*t].counts[e] > 0);
        let names = !self.start_named && ts.start.filter(in_edition).is_some();
        self.start_named |= names;
        names
    }

    /// The tilesets of the game's other expansions, where a tile given to `s` may be.
    fn elsewhere<'t>(&self, s: &Selected, all: &'t [ExpansionTilesets]) -> Vec<Elsewhere<'t>>
    where
        'a: 't,
    {
        let others = self.selected.iter().zip(all).filter(|(x, _)| x.manifest.id != s.manifest.id);
        others
            .flat_map(|(x, t)| t.read.iter().map(|r| Elsewhere { expansion: &x.manifest.id, tileset: &r.tileset }))
            .collect()
    }

    /// The figure kinds and token supplies of the edition played.
    fn add_figures_and_tokens(&mut self, s: &Selected) {
        let m = &s.manifest;
        for f in m.figures.iter().filter(|f| in_edition(&f.editions, &s.edition)) {
            let mut kind = f.kind.clone();
            if m.id == "base" && kind.id == "meeple" {
                if let Some(Value::Int(n)) = s.options.get("meeples") {
                    kind.per_player = *n as u8;
                }
                self.builder.meeple(kind);
            } else if let Err(e) = self.builder.figure(kind) {
                self.report.diagnostics.push(Diagnostic::of_file(m.path.display().to_string(), e.to_string()));
            }
        }
        for t in m.tokens.iter().filter(|t| in_edition(&t.editions, &s.edition)) {
            if let Err(e) = self.builder.token(meeple_core::rules::TokenKind {
                id: t.id.clone(),
                supply: t.supply,
                name: t.name.clone(),
            }) {
                self.report.diagnostics.push(Diagnostic::of_file(m.path.display().to_string(), e.to_string()));
            }
        }
    }

    fn finish(mut self) -> Result<Assembled, Report> {
        if !self.report.is_empty() {
            return Err(self.report);
        }
        self.builder.hash(format!("{:016x}", self.hash.finish()));
        let rules = self
            .builder
            .build()
            .map_err(|e| Report { diagnostics: vec![Diagnostic::of_file("<ruleset>", e.to_string())] })?;
        let misfits = misfits(&rules, self.selected);
        if !misfits.is_empty() {
            return Err(misfits);
        }
        Ok(Assembled {
            rules,
            tile_warnings: self.tile_warnings,
            left_out: self.left_out,
            other_editions: self.other_editions,
        })
    }
}

/// What the expansions' code names that the built ruleset lacks, each at its file and line.
fn misfits(rules: &Rules, selected: &[Selected]) -> Report {
    let mut report = Report::default();
    for x in rules.expansions() {
        let Some(m) = selected.iter().map(|s| &s.manifest).find(|m| m.id == x.id()) else { continue };
        let entry = match &m.entry {
            Entry::Script(entry) => entry.to_string_lossy().into_owned(),
            _ => String::new(),
        };
        let located = |e: &meeple_core::HookError| match (&m.entry, &e.location) {
            // A plugin's own place, if it has one, is in its message: told at its library.
            (Entry::Native(_), None) => m.problem_at("native.library", format!("{} ({})", e.message, e.hook)),
            _ => crate::luau::diagnostic(&m.id, m.dir(), &entry, e),
        };
        report.diagnostics.extend(x.misfits(rules).iter().map(located));
    }
    report
}

/// Why an expansion's `[draw]` start tile cannot be had from its edition's own tileset, if so.
fn start_problem(s: &Selected, draw: &DrawDef, own: Option<(&Tileset, &str)>) -> Option<Diagnostic> {
    let start = draw.start.as_ref()?;
    let why = match own {
        Some((ts, inner)) => match (ts.tile(start), ts.edition(inner)) {
            (Some(tile), Some(i)) if tile.counts[i] > 0 => return None,
            (Some(_), _) => format!("start tile `{start}` has no copy in edition `{inner}` of tileset `{}`", ts.id),
            (None, _) => format!("start tile `{start}` is not in tileset `{}`", ts.id),
        },
        None => format!("start tile `{start}`: edition `{}` has no tileset of its own", s.edition),
    };
    Some(s.manifest.problem_at("draw.start", why))
}

/// A game has one start tile and one stack drawn first: a second expansion choosing either
/// would silently override the first one's, so the two cannot be played together. `start_by`
/// and `first_by` name the expansions that chose them so far.
fn draw_clash<'a>(
    s: &'a Selected,
    draw: &DrawDef,
    start_by: &mut Option<&'a str>,
    first_by: &mut Option<&'a str>,
) -> Vec<Diagnostic> {
    let id = s.manifest.id.as_str();
    let mut clashes = Vec::new();
    let mut clash = |key: &str, what: &str, by: &mut Option<&'a str>| match by {
        Some(earlier) => {
            let why = format!(
                "`{id}` and `{earlier}` both choose {what}, and a game has one: play them apart, or declare them \
                 in each other's `conflicts`"
            );
            clashes.push(s.manifest.problem_at(key, why));
        }
        None => *by = Some(id),
    };
    if draw.start.is_some() {
        clash("draw.start", "the start tile", start_by);
    }
    if draw.first.is_some() {
        clash("draw.first", "the tiles drawn first", first_by);
    }
    clashes
}

/// An expansion's `[draw]`: its start tile (from its own tileset) and the stack drawn first.
fn apply_draw(b: &mut RulesBuilder, draw: &DrawDef, s: &Selected, tileset: Option<&str>) {
    if let (Some(start), Some(tileset)) = (&draw.start, tileset) {
        let replaced = match &draw.replaced_start {
            ReplacedStartDef::Fixed(r) => *r,
            ReplacedStartDef::Option(name) => s
                .options
                .get(name)
                .and_then(|v| v.as_str())
                .and_then(crate::manifest::replaced_start)
                .unwrap_or(ReplacedStart::Discard),
        };
        b.start_tile(&format!("{tileset}:{start}"), replaced);
    }
    if let Some(tag) = &draw.first {
        b.first_stack(FirstStack { tag: tag.clone(), last: draw.last.clone() });
    }
}

fn hash_file(hash: &mut StableHasher, (name, bytes): &FileInput) {
    hash.str(name);
    hash.bytes(bytes);
}

/// A file as the ruleset hash takes it: its name and its bytes.
type FileInput = (String, Vec<u8>);

fn file_input(path: &Path) -> FileInput {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    (name, std::fs::read(path).unwrap_or_default())
}

/// The files of the expansion's code the hash covers: every `.luau` file of a script's folder,
/// in name order.
fn code_files(m: &Manifest) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Entry::Script(_) = m.entry {
        collect_files(m.dir(), "luau", &mut files);
        files.sort();
    }
    files
}

fn in_edition(editions: &Option<Vec<String>>, edition: &str) -> bool {
    editions.as_ref().is_none_or(|list| list.iter().any(|e| e == edition))
}
