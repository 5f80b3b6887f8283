//! The numbers of its tiles a game config asks of an expansion (`copies`, `tiles`,
//! `docs/config.md`): several boxes of a set, a tile kind left out or played more often, a tile
//! of another edition of the same tileset let in.
//!
//! A config names tiles by their id in the expansion's tilesets, so whether a name exists is
//! known only once those are read; the problems are told at the config's lines, as its other
//! mistakes are.

use crate::config::{ExpansionChoice, Location};
use meeple_core::Tileset;
use meeple_toml::Diagnostic;
use std::collections::BTreeMap;

/// The tile numbers chosen for one expansion; the default changes nothing.
#[derive(Clone, Debug)]
pub struct TileMix {
    /// Each tile kind's count times this (1: as the edition has it).
    copies: u32,
    /// Where `copies` was written.
    copies_at: Option<Location>,
    /// Counts by tile name (`V`, or `tileset:V`), after `copies`.
    counts: BTreeMap<String, u32>,
    /// Where each name and its count were written.
    at: BTreeMap<String, (Location, Location)>,
}

impl Default for TileMix {
    fn default() -> TileMix {
        TileMix { copies: 1, copies_at: None, counts: BTreeMap::new(), at: BTreeMap::new() }
    }
}

/// A tileset as read for an expansion, with the edition of it played.
pub struct EditionTiles<'a> {
    /// The tileset.
    pub tileset: &'a Tileset,
    /// The edition of the tileset the expansion's edition plays.
    pub edition: &'a str,
    /// The index of its tile laid at the start in this game, if it has one: the expansion's
    /// `[draw] start`, else the tileset's own when the game lays it: no expansion's `[draw]`
    /// replaces it and no tileset before it in the game lays one.
    pub start: Option<usize>,
}

/// A tileset another expansion of the game plays: where a tile given to the wrong expansion is.
pub struct Elsewhere<'a> {
    /// The expansion that plays it.
    pub expansion: &'a str,
    /// The tileset.
    pub tileset: &'a Tileset,
}

/// What a mix makes of an expansion's tilesets.
#[derive(Debug)]
pub struct Mixed {
    /// The tilesets, their counts in the played edition changed.
    pub tilesets: Vec<Tileset>,
    /// Numbers that play, but likely not as meant (a tile the edition lacks given 0, a start
    /// tile in several copies), each at its place in the config.
    pub warnings: Vec<Diagnostic>,
    /// The tiles of the played edition the config gives 0, in the order written.
    pub left_out: Vec<LeftOut>,
    /// Every tile whose number the mix changed (`tileset:id`) with its new number, in tileset
    /// order: what makes the ruleset another, however the config wrote it.
    pub changed: Vec<(String, u32)>,
}

/// A tile kind of the played edition that a config's numbers leave out.
#[derive(Clone, Debug)]
pub struct LeftOut {
    /// The expansion whose `tiles` give it 0.
    pub expansion: String,
    /// The name the config gives it (`lake`, `river:lake`).
    pub written: String,
    /// Its key in the ruleset (`river:lake`).
    pub key: String,
    /// Its id in its tileset (`lake`).
    pub id: String,
    /// Its tags, which a `[draw]` may have looked for.
    pub tags: Vec<String>,
}

impl LeftOut {
    /// Whether a tile name of a draw order (a key, or an id alone) names this tile.
    pub fn is_named(&self, name: &str) -> bool {
        names_tile(name, &self.key, &self.id)
    }

    /// How a hint names it: the expansion and the name as the config wrote it.
    pub fn shown(&self) -> String {
        format!("`{}` {}", self.expansion, meeple_toml::key(&self.written))
    }
}

/// Whether a tile name of a draw order names the tile of this key (`river:lake`) and id (`lake`):
/// it is its key, or its id alone (`Rules::tile_by_name` reads names so).
pub(crate) fn names_tile(name: &str, key: &str, id: &str) -> bool {
    name == key || name == id
}

impl TileMix {
    /// The mix a config's choice asks for.
    pub fn of(choice: &ExpansionChoice) -> TileMix {
        TileMix {
            // At least 1, for a choice made in code or read without the config's checks.
            copies: choice.copies.unwrap_or(1).max(1),
            copies_at: choice.copies_at.clone(),
            counts: choice.tiles.clone(),
            at: choice.tiles_at.clone(),
        }
    }

    /// True when the edition's own numbers are played.
    pub fn is_none(&self) -> bool {
        self.copies <= 1 && self.counts.is_empty()
    }

    /// The mix as a config writes it, for a game's title: `copies = 2`, `tiles.U = 12`; past a
    /// few tiles, how many more.
    pub fn shown(&self) -> Vec<String> {
        const SHOWN: usize = 5;
        let copies = (self.copies > 1).then(|| format!("copies = {}", self.copies));
        let tiles = self.counts.iter().take(SHOWN).map(|(name, n)| format!("tiles.{} = {n}", meeple_toml::key(name)));
        let more = (self.counts.len() > SHOWN).then(|| format!("{} more tiles", self.counts.len() - SHOWN));
        copies.into_iter().chain(tiles).chain(more).collect()
    }

    /// The tilesets with their counts in the played edition changed as the mix says; or every
    /// name that fits no tile of the expansion, or more than one, or a tile named before, and
    /// every start tile given 0, each at its place in the config (`id` names the expansion in
    /// the messages; `file` is the config's, for a mix made in code). A name that is a tile of
    /// another expansion's tilesets (`elsewhere`) is told which.
    pub fn apply(
        &self,
        id: &str,
        file: &str,
        sets: &[EditionTiles<'_>],
        elsewhere: &[Elsewhere<'_>],
    ) -> Result<Mixed, Vec<Diagnostic>> {
        let tilesets = sets.iter().map(|s| s.tileset.clone()).collect();
        let mut mixed = Mixed { tilesets, warnings: Vec::new(), left_out: Vec::new(), changed: Vec::new() };
        if self.is_none() {
            return Ok(mixed);
        }
        if sets.is_empty() {
            let at = self.copies_at.as_ref().or_else(|| self.at.values().next().map(|(name, _)| name));
            let why = format!("`{id}` has no tiles of its own: `copies` and `tiles` have nothing to change");
            return Err(vec![problem(at, file, why)]);
        }
        let editions: Vec<Option<usize>> = sets.iter().map(|s| s.tileset.edition(s.edition)).collect();
        for (ts, ed) in mixed.tilesets.iter_mut().zip(&editions) {
            let Some(ed) = *ed else { continue };
            for def in &mut ts.tiles {
                def.counts[ed] = def.counts[ed].saturating_mul(self.copies);
            }
        }
        let mut problems = Vec::new();
        let mut named: BTreeMap<(usize, usize), &str> = BTreeMap::new();
        // In the order written, so that a tile named twice is told at its second name.
        let mut written: Vec<(&String, &u32)> = self.counts.iter().collect();
        written.sort_by_key(|(name, _)| self.at.get(*name).map(|(l, _)| (l.line, l.col)));
        for (name, &count) in written {
            let (name_at, count_at) = self.at.get(name).cloned().unzip();
            let (set, tile) = match self.find(name, sets, elsewhere) {
                Ok(found) => found,
                Err(why) => {
                    problems.push(problem(name_at.as_ref(), file, format!("`{id}`: {why}")));
                    continue;
                }
            };
            if let Some(earlier) = named.insert((set, tile), name) {
                let why = format!("`{name}` is the tile `{earlier}` names: give each tile one number");
                problems.push(problem(name_at.as_ref(), file, why));
                continue;
            }
            let Some(ed) = editions[set] else { continue };
            let (ts, before) = (&sets[set].tileset, sets[set].tileset.tiles[tile].counts[ed]);
            if count == 0 && before == 0 {
                let why = format!(
                    "`{name} = 0` changes nothing: edition {} of tileset `{}` has none",
                    sets[set].edition, ts.id
                );
                mixed.warnings.push(problem(count_at.as_ref(), file, why));
            }
            if count == 0 && sets[set].start == Some(tile) {
                let why = format!(
                    "`{name}` is the start tile of `{id}`: its count holds the start tile, so it is at least 1"
                );
                problems.push(problem(count_at.as_ref(), file, why));
                continue;
            }
            if count == 0 && before > 0 {
                let def = &ts.tiles[tile];
                mixed.left_out.push(LeftOut {
                    expansion: id.to_string(),
                    written: name.clone(),
                    key: format!("{}:{}", ts.id, def.id),
                    id: def.id.clone(),
                    tags: def.tags.clone(),
                });
            }
            mixed.tilesets[set].tiles[tile].counts[ed] = count;
        }
        // A tile the edition has only to lay at the start (The River's spring) is drawn with
        // the others in every further copy, unless the config gives it a number of its own.
        for (i, set) in sets.iter().enumerate() {
            let Some(ed) = editions[i] else { continue };
            let Some(start) = set.start.filter(|&t| !named.contains_key(&(i, t))) else { continue };
            if self.copies > 1 && set.tileset.tiles[start].counts[ed] == 1 {
                let tile = &set.tileset.tiles[start].id;
                let why = format!(
                    "`copies = {}` makes {} of `{tile}`, which `{id}` has only to lay at the start: the others are \
                     drawn with its other tiles (to keep one, add `{tile} = 1` to its `tiles`)",
                    self.copies, self.copies
                );
                mixed.warnings.push(problem(self.copies_at.as_ref(), file, why));
            }
        }
        if problems.is_empty() {
            mixed.changed = changed(sets, &editions, &mixed.tilesets);
            return Ok(mixed);
        }
        problems.sort_by_key(|d| (d.line, d.col));
        Err(problems)
    }

    /// The tileset and tile a name stands for: `tileset:V`, else `V` when one of the tilesets
    /// has it (a tile's id may hold a `:` itself); the order a draw order's names are read in
    /// (`Rules::tile_by_name`).
    fn find(
        &self,
        name: &str,
        sets: &[EditionTiles<'_>],
        elsewhere: &[Elsewhere<'_>],
    ) -> Result<(usize, usize), String> {
        let split = name.split_once(':');
        let in_set = |set: &str, tile: &str| {
            let i = sets.iter().position(|s| s.tileset.id == set)?;
            Some((i, sets[i].tileset.tiles.iter().position(|t| t.id == tile)?))
        };
        if let Some(found) = split.and_then(|(set, tile)| in_set(set, tile)) {
            return Ok(found);
        }
        let found: Vec<(usize, usize)> = sets
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.tileset.tiles.iter().position(|t| t.id == name).map(|t| (i, t)))
            .collect();
        match found[..] {
            [one] => Ok(one),
            [] => Err(not_found(name, split, sets, elsewhere)),
            _ => {
                let sets: Vec<String> =
                    found.iter().map(|(s, _)| format!("`{}:{name}`", sets[*s].tileset.id)).collect();
                Err(format!("tile `{name}` is in more than one of its tilesets: write {}", sets.join(" or ")))
            }
        }
    }
}

/// Why no tile of the expansion has a name: a tileset it lacks, or a tile none of its have;
/// and, where the name is another expansion's, which one to give it to.
fn not_found(
    name: &str,
    split: Option<(&str, &str)>,
    sets: &[EditionTiles<'_>],
    elsewhere: &[Elsewhere<'_>],
) -> String {
    if let Some((other, _)) = split.filter(|(set, _)| !sets.iter().any(|x| x.tileset.id == *set)) {
        let players = expansions(elsewhere.iter().filter(|e| e.tileset.id == other));
        if !players.is_empty() {
            return format!(
                "`{name}` is a tile of tileset `{other}`; give its number in the `tiles` of {players}, which plays it"
            );
        }
        let own: Vec<String> = sets.iter().map(|s| format!("`{}`", s.tileset.id)).collect();
        return format!(
            "`{name}` names tileset `{other}`, which no expansion of this game plays; its tilesets are {}",
            own.join(", ")
        );
    }
    let tile_id = split.map_or(name, |(_, tile)| tile);
    let has = |e: &&Elsewhere<'_>| e.tileset.tiles.iter().any(|t| t.id == name);
    let players = expansions(elsewhere.iter().filter(has));
    if !players.is_empty() {
        return format!("no tile `{name}` in its tilesets; give its number in the `tiles` of {players}, which has it");
    }
    let known: Vec<&str> = sets.iter().flat_map(|s| s.tileset.tiles.iter().map(|t| t.id.as_str())).collect();
    format!(
        "no tile `{name}` in its tilesets; {}its tiles: {}",
        meeple_toml::did_you_mean(tile_id, &known),
        known.join(", ")
    )
}

/// The expansions of some tilesets, each once: "`river`", "`a` or `b`".
fn expansions<'a>(tilesets: impl Iterator<Item = &'a Elsewhere<'a>>) -> String {
    let mut ids: Vec<String> = Vec::new();
    for e in tilesets {
        let id = format!("`{}`", e.expansion);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids.join(" or ")
}

/// A tile kind of an expansion's edition, as a config names it in `tiles`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileNumber {
    /// Its id in its tileset (`V`).
    pub id: String,
    /// Its tileset's id (`base`): `tileset:id` names it where two tilesets share the id.
    pub tileset: String,
    /// A description for people.
    pub name: String,
    /// Copies in the edition's box (0: a tile of another edition of the tileset, which a config
    /// may let in), the start tile included.
    pub count: u32,
}

/// The tiles of an expansion's edition, from its own tileset (tiles it adds beside another
/// expansion, `if_chosen`, depend on the game); every tile of that file, so that those of its
/// other editions can be let in.
pub fn edition_tiles(m: &crate::manifest::Manifest, edition: &str) -> Result<Vec<TileNumber>, meeple_toml::Report> {
    let Some(e) = m.edition(edition) else { return Ok(Vec::new()) };
    let Some(path) = &e.tileset else { return Ok(Vec::new()) };
    let (ts, _) = crate::ruleset::tileset_named(m, &format!("editions.{edition}.tileset"), path)?;
    let ed = ts.edition(&e.tileset_edition);
    let number = |t: &meeple_core::tileset::TileDef| TileNumber {
        id: t.id.clone(),
        tileset: ts.id.clone(),
        name: t.name.clone(),
        count: ed.map_or(0, |i| t.counts[i]),
    };
    Ok(ts.tiles.iter().map(number).collect())
}

/// The tiles whose number in the played edition differs after the mix, by key, in tileset order.
fn changed(sets: &[EditionTiles<'_>], editions: &[Option<usize>], mixed: &[Tileset]) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for ((set, ed), ts) in sets.iter().zip(editions).zip(mixed) {
        let Some(ed) = *ed else { continue };
        for (before, after) in set.tileset.tiles.iter().zip(&ts.tiles) {
            if before.counts[ed] != after.counts[ed] {
                out.push((format!("{}:{}", ts.id, after.id), after.counts[ed]));
            }
        }
    }
    out
}

fn problem(at: Option<&Location>, file: &str, message: String) -> Diagnostic {
    match at {
        Some(l) => Diagnostic { file: l.file.clone(), line: l.line, col: l.col, message },
        None => Diagnostic::of_file(file, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tileset `id` of one tile kind `chapel` (two copies).
    fn tileset(id: &str) -> Tileset {
        tileset_of(id, "chapel")
    }

    /// A tileset `id` of one tile kind `tile` (two copies).
    fn tileset_of(id: &str, tile: &str) -> Tileset {
        let text = format!(
            "[tileset]\nid = \"{id}\"\nname = \"x\"\n\n[[tiles]]\nid = \"{tile}\"\nname = \"x\"\ncount = 2\n\
             sides = \"FFFF\"\nsegments = [\n  {{ id = \"m\", kind = \"monastery\" }},\n  \
             {{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }},\n]\n"
        );
        Tileset::parse(id, &text).unwrap()
    }

    fn mix(counts: &[(&str, u32)]) -> TileMix {
        let counts = counts.iter().map(|(n, c)| (n.to_string(), *c)).collect();
        TileMix { counts, ..TileMix::default() }
    }

    #[test]
    fn a_name_two_tilesets_share_is_written_with_its_tileset() {
        let (a, b) = (tileset("hills"), tileset("dales"));
        let sets = [
            EditionTiles { tileset: &a, edition: "default", start: None },
            EditionTiles { tileset: &b, edition: "default", start: None },
        ];
        let err = mix(&[("chapel", 0)]).apply("vale", "g.toml", &sets, &[]).unwrap_err();
        assert_eq!(
            err[0].to_string(),
            "g.toml: `vale`: tile `chapel` is in more than one of its tilesets: write `hills:chapel` or `dales:chapel`"
        );
        let mixed = mix(&[("dales:chapel", 5)]).apply("vale", "g.toml", &sets, &[]).unwrap();
        let counts: Vec<u32> = mixed.tilesets.iter().map(|ts| ts.tiles[0].counts[0]).collect();
        assert_eq!(counts, [2, 5]);
    }

    #[test]
    fn a_tileset_key_is_read_before_an_id_that_holds_a_colon() {
        let a = tileset("hills");
        let odd = tileset_of("dales", "hills:chapel");
        let sets = [
            EditionTiles { tileset: &a, edition: "default", start: None },
            EditionTiles { tileset: &odd, edition: "default", start: None },
        ];
        let counts = |m: TileMix| -> Vec<u32> {
            m.apply("vale", "g.toml", &sets, &[]).unwrap().tilesets.iter().map(|ts| ts.tiles[0].counts[0]).collect()
        };
        assert_eq!(counts(mix(&[("hills:chapel", 5)])), [5, 2], "the key, as a draw order reads it");
        assert_eq!(counts(mix(&[("dales:hills:chapel", 5)])), [2, 5]);
    }

    #[test]
    fn a_choice_of_no_copies_plays_one() {
        let choice = ExpansionChoice { copies: Some(0), ..ExpansionChoice::new("base") };
        assert!(TileMix::of(&choice).is_none());
    }

    #[test]
    fn copies_multiply_before_a_tile_is_given_its_own_number() {
        let a = tileset("hills");
        let sets = [EditionTiles { tileset: &a, edition: "default", start: None }];
        let three = TileMix { copies: 3, ..mix(&[]) };
        assert_eq!(three.apply("vale", "g.toml", &sets, &[]).unwrap().tilesets[0].tiles[0].counts[0], 6);
        let own = TileMix { copies: 3, ..mix(&[("chapel", 1)]) };
        assert_eq!(own.apply("vale", "g.toml", &sets, &[]).unwrap().tilesets[0].tiles[0].counts[0], 1);
    }
}
