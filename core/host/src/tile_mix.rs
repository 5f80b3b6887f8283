//! The numbers of its tiles a game config asks of an expansion (`copies`, `tiles`,
//! `docs/config.md`): several boxes of a set, a tile kind left out or played more often, a tile
//! of another edition of the same tileset let in.
//!
//! A config names tiles by their id in the expansion's tilesets, so whether a name exists is
//! known only once those are read; the problems are told at the config's lines, as its other
//! mistakes are.

use crate::config::{ExpansionChoice, Location};
use meeple_core::Tileset;
use meeple_core::hash::StableHasher;
use meeple_toml::Diagnostic;
use std::collections::BTreeMap;

/// The tile numbers chosen for one expansion; the default changes nothing.
#[derive(Clone, Debug, Default)]
pub struct TileMix {
    /// Each tile kind's count times this (1: as the edition has it).
    copies: u32,
    /// Counts by tile name (`V`, or `tileset:V`), after `copies`.
    counts: BTreeMap<String, u32>,
    /// Where each name and its count were written.
    at: BTreeMap<String, (Location, Location)>,
}

/// A tileset as read for an expansion, with the edition of it played.
pub struct EditionTiles<'a> {
    /// The tileset.
    pub tileset: &'a Tileset,
    /// The edition of the tileset the expansion's edition plays.
    pub edition: &'a str,
    /// Whether its start tile is the game's start tile (the tileset's, or the expansion's
    /// `[draw] start`).
    pub start: Option<usize>,
}

impl TileMix {
    /// The mix a config's choice asks for.
    pub fn of(choice: &ExpansionChoice) -> TileMix {
        TileMix { copies: choice.copies.unwrap_or(1), counts: choice.tiles.clone(), at: choice.tiles_at.clone() }
    }

    /// True when the edition's own numbers are played.
    pub fn is_none(&self) -> bool {
        self.copies <= 1 && self.counts.is_empty()
    }

    /// The mix as a config writes it, for a game's title: `copies = 2`, `tiles.U = 12`.
    pub fn shown(&self) -> Vec<String> {
        let copies = (self.copies > 1).then(|| format!("copies = {}", self.copies));
        copies.into_iter().chain(self.counts.iter().map(|(name, n)| format!("tiles.{name} = {n}"))).collect()
    }

    /// Adds the mix to a ruleset's hash: the same files with other numbers are another ruleset.
    pub fn hash_into(&self, hash: &mut StableHasher) {
        if self.is_none() {
            return;
        }
        hash.str(&format!("copies {}", self.copies));
        for (name, n) in &self.counts {
            hash.str(&format!("tile {name} {n}"));
        }
    }

    /// The tilesets with their counts in the played edition changed as the mix says, or every
    /// name that fits no tile, or more than one, and every start tile left out, each at its
    /// place in the config (`id` names the expansion in the messages; `file` is the config's,
    /// for a mix made in code).
    pub fn apply(&self, id: &str, file: &str, sets: &[EditionTiles<'_>]) -> Result<Vec<Tileset>, Vec<Diagnostic>> {
        let mut mixed: Vec<Tileset> = sets.iter().map(|s| s.tileset.clone()).collect();
        if self.is_none() {
            return Ok(mixed);
        }
        let editions: Vec<Option<usize>> = sets.iter().map(|s| s.tileset.edition(s.edition)).collect();
        for (ts, ed) in mixed.iter_mut().zip(&editions) {
            let Some(ed) = *ed else { continue };
            for def in &mut ts.tiles {
                def.counts[ed] = def.counts[ed].saturating_mul(self.copies);
            }
        }
        let mut problems = Vec::new();
        for (name, &count) in &self.counts {
            let (name_at, count_at) = &self.at.get(name).cloned().unzip();
            match self.find(name, sets) {
                Ok((set, tile)) if count == 0 && sets[set].start == Some(tile) => problems.push(problem(
                    count_at.as_ref(),
                    file,
                    format!(
                        "`{name}` is the start tile of `{id}`: its count holds the start tile, so it is at least 1"
                    ),
                )),
                Ok((set, tile)) => match editions[set] {
                    Some(ed) => mixed[set].tiles[tile].counts[ed] = count,
                    None => continue,
                },
                Err(why) => problems.push(problem(name_at.as_ref(), file, format!("`{id}`: {why}"))),
            }
        }
        if problems.is_empty() {
            return Ok(mixed);
        }
        problems.sort_by_key(|d| (d.line, d.col));
        Err(problems)
    }

    /// The tileset and tile a name stands for: `V` when one of the tilesets has it, else
    /// `tileset:V`.
    fn find(&self, name: &str, sets: &[EditionTiles<'_>]) -> Result<(usize, usize), String> {
        let (set_id, tile_id) = name.split_once(':').map_or((None, name), |(s, t)| (Some(s), t));
        let found: Vec<(usize, usize)> = sets
            .iter()
            .enumerate()
            .filter(|(_, s)| set_id.is_none_or(|id| s.tileset.id == id))
            .filter_map(|(i, s)| s.tileset.tiles.iter().position(|t| t.id == tile_id).map(|t| (i, t)))
            .collect();
        match found[..] {
            [one] => Ok(one),
            [] => {
                let known: Vec<String> =
                    sets.iter().flat_map(|s| s.tileset.tiles.iter().map(|t| t.id.clone())).collect();
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                Err(format!(
                    "no tile `{name}` in its tilesets; {}its tiles: {}",
                    meeple_toml::did_you_mean(tile_id, &known),
                    known.join(", ")
                ))
            }
            _ => {
                let sets: Vec<String> =
                    found.iter().map(|(s, _)| format!("`{}:{tile_id}`", sets[*s].tileset.id)).collect();
                Err(format!("tile `{name}` is in more than one of its tilesets: write {}", sets.join(" or ")))
            }
        }
    }
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
        let text = format!(
            "[tileset]\nid = \"{id}\"\nname = \"x\"\n\n[[tiles]]\nid = \"chapel\"\nname = \"x\"\ncount = 2\n\
             sides = \"FFFF\"\nsegments = [\n  {{ id = \"m\", kind = \"monastery\" }},\n  \
             {{ id = \"f\", kind = \"field\", halves = [\"NL\", \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }},\n]\n"
        );
        Tileset::parse(id, &text).unwrap()
    }

    fn mix(counts: &[(&str, u32)]) -> TileMix {
        let counts = counts.iter().map(|(n, c)| (n.to_string(), *c)).collect();
        TileMix { copies: 1, counts, at: BTreeMap::new() }
    }

    #[test]
    fn a_name_two_tilesets_share_is_written_with_its_tileset() {
        let (a, b) = (tileset("hills"), tileset("dales"));
        let sets = [
            EditionTiles { tileset: &a, edition: "default", start: None },
            EditionTiles { tileset: &b, edition: "default", start: None },
        ];
        let err = mix(&[("chapel", 0)]).apply("vale", "g.toml", &sets).unwrap_err();
        assert_eq!(
            err[0].to_string(),
            "g.toml: `vale`: tile `chapel` is in more than one of its tilesets: write `hills:chapel` or `dales:chapel`"
        );
        let mixed = mix(&[("dales:chapel", 5)]).apply("vale", "g.toml", &sets).unwrap();
        let counts: Vec<u32> = mixed.iter().map(|ts| ts.tiles[0].counts[0]).collect();
        assert_eq!(counts, [2, 5]);
    }

    #[test]
    fn copies_multiply_before_a_tile_is_given_its_own_number() {
        let a = tileset("hills");
        let sets = [EditionTiles { tileset: &a, edition: "default", start: None }];
        let three = TileMix { copies: 3, ..mix(&[]) };
        assert_eq!(three.apply("vale", "g.toml", &sets).unwrap()[0].tiles[0].counts[0], 6);
        let own = TileMix { copies: 3, ..mix(&[("chapel", 1)]) };
        assert_eq!(own.apply("vale", "g.toml", &sets).unwrap()[0].tiles[0].counts[0], 1);
    }
}
