//! `meeple play --watch`: the files a game's rules come from, watched between turns, and the
//! game replayed on them when they change.

use super::{Deal, Table, failing_line};
use crate::common::{load_config, say};
use meeple_core::{Game, Rules};
use std::path::PathBuf;

/// The files a game's rules come from, and when they last changed: the config, and each
/// expansion's manifest, tilesets and (for a script) Luau files. A native library is not among
/// them: it stays loaded once loaded.
pub(super) struct Watch {
    /// The game's config file, if it has one.
    config: Option<PathBuf>,
    /// What a new game starts from besides its config.
    deal: Deal,
    files: Vec<(PathBuf, Option<std::time::SystemTime>)>,
    /// The files changed since the rules were last reloaded, in the order seen: a reload reads
    /// every file, so it applies the changes a refused one left, and names them.
    pending: Vec<String>,
}

/// What a look at the watched files did to the game.
pub(super) enum Reloaded {
    /// Nothing: no file changed, or the rules did not reload (which was told).
    No,
    /// The game so far was replayed on the reloaded rules.
    Replayed,
    /// The reloaded rules changed what only a new game takes, and a new game started on them.
    NewGame,
}

/// The game on reloaded rules: the game so far replayed, or a new one and why it was needed.
enum Next {
    Replayed(meeple_host::Loaded, Game),
    New(Table, String),
}

impl Watch {
    pub(super) fn new(config: Option<&std::path::Path>, deal: Deal, loaded: &meeple_host::Loaded) -> Watch {
        let config = config.map(PathBuf::from);
        let files = files_of(config.as_deref(), loaded).into_iter().map(|p| (p.clone(), modified(&p))).collect();
        Watch { files, config, deal, pending: Vec::new() }
    }

    /// Rebuilds the ruleset when one of the files changed, and replays the game on it. When the
    /// game so far cannot be the same game on the new files (other players, seed, draw, tile
    /// limit or bag), a new game starts on them instead: a modder who changed those wants to see
    /// them played, and `--watch` would never reach another game. Rules that no longer load, no
    /// longer replay the game or cannot start one are told, and the old ones play on.
    pub(super) fn reload_if_changed(&mut self, mods: &[PathBuf], table: &mut Table) -> Reloaded {
        let changed = self.changed_files();
        if changed.is_empty() {
            return Reloaded::No;
        }
        for file in changed {
            if !self.pending.contains(&file) {
                self.pending.push(file);
            }
        }
        let files = self.pending.join(", ");
        let next =
            load_config(self.config.as_deref(), mods).map_err(|e| e.to_string()).and_then(|new| self.next(new, table));
        let reloaded = match next {
            Err(e) => {
                say!("not reloaded ({files}): {e}");
                return Reloaded::No;
            }
            Ok(Next::Replayed(loaded, game)) => {
                say!("reloaded {files} and replayed {} actions", table.game.history().len());
                (table.loaded, table.game) = (loaded, game);
                Reloaded::Replayed
            }
            Ok(Next::New(new, why)) => {
                say!("reloaded {files}; {why}, which only a new game takes: this game ends here and a new one starts");
                *table = new;
                Reloaded::NewGame
            }
        };
        self.pending.clear();
        self.refresh(&table.loaded);
        reloaded
    }

    /// The watched files whose time changed since last looked at, with their new times noted.
    fn changed_files(&mut self) -> Vec<String> {
        self.files
            .iter_mut()
            .filter(|(p, t)| modified(p) != *t)
            .map(|(p, t)| {
                *t = modified(p);
                p.display().to_string()
            })
            .collect()
    }

    /// Watches the files of newly loaded rules, which may come from other files (an expansion
    /// added, a module required). Known files keep the times read before loading: one changed
    /// since is still new.
    fn refresh(&mut self, loaded: &meeple_host::Loaded) {
        let known: std::collections::HashMap<PathBuf, _> = std::mem::take(&mut self.files).into_iter().collect();
        self.files = files_of(self.config.as_deref(), loaded)
            .into_iter()
            .map(|p| {
                let time = known.get(&p).copied().unwrap_or_else(|| modified(&p));
                (p, time)
            })
            .collect();
    }

    /// The game on the new rules, or why there is none.
    fn next(&self, new: meeple_host::Loaded, table: &Table) -> Result<Next, String> {
        let why = self.setup_change(&new, table).or_else(|| bag_change(&table.loaded.rules, &new.rules));
        if let Some(why) = why {
            return match self.deal.table(new) {
                Ok(next) => Ok(Next::New(next, why)),
                Err(no) => {
                    let at = no.line.map(|f| format!("\nthe failing line: {f}")).unwrap_or_default();
                    Err(format!("{why}, which only a new game takes: {}{at}", no.error))
                }
            };
        }
        let game = &table.game;
        let again = Game::from_actions(new.rules.clone(), game.setup().clone(), game.history()).map_err(|e| {
            let at = match &e {
                meeple_core::ReplayError::Action { error, .. } => failing_line(&new, error),
                _ => None,
            };
            let at = at.map(|f| format!("\nthe failing line: {f}")).unwrap_or_default();
            format!("the game so far does not replay on the new rules: {e}{at}")
        })?;
        Ok(Next::Replayed(new, again))
    }

    /// What a reloaded config changes of the running game's setup, if anything.
    fn setup_change(&self, new: &meeple_host::Loaded, table: &Table) -> Option<String> {
        let setup = table.game.setup();
        let now = new.setup_seeded(self.deal.seed_for(new));
        let what = if now.players != setup.players {
            "players"
        } else if now.seed != setup.seed {
            "seed"
        } else if now.draw != setup.draw {
            "draw"
        } else if now.tile_limit != setup.tile_limit {
            "tile limit"
        } else {
            return None;
        };
        let file = self.config.as_deref().map_or_else(|| "the config".to_string(), |p| p.display().to_string());
        Some(format!("the {what} in {file} changed"))
    }
}

/// How the bag of new rules differs from the old one's, if it does. The bag decides the draws:
/// with other tiles in it, the game so far would be another game, even where its actions still
/// fit.
fn bag_change(old: &Rules, new: &Rules) -> Option<String> {
    let bag = |r: &Rules| r.tiles().iter().map(|t| t.key.clone()).zip(r.counts().to_vec()).collect::<Vec<_>>();
    let (old, new) = (bag(old), bag(new));
    if old == new {
        return None;
    }
    let count =
        |bag: &[(std::sync::Arc<str>, u32)], key: &str| bag.iter().find(|(k, _)| &**k == key).map_or(0, |t| t.1);
    let keys: std::collections::BTreeSet<&str> = old.iter().chain(&new).map(|(k, _)| &**k).collect();
    let counts: Vec<String> = keys
        .into_iter()
        .filter_map(|k| {
            let (was, is) = (count(&old, k), count(&new, k));
            (was != is).then(|| format!("{k}: {was} → {is}"))
        })
        .collect();
    // A tileset added or removed changes many kinds at once: the first few say which.
    const SHOWN: usize = 3;
    let what = match counts.len() {
        0 => "the order of their kinds".to_string(),
        n if n <= SHOWN => counts.join(", "),
        n => format!("{}, and {} more", counts[..SHOWN].join(", "), n - SHOWN),
    };
    Some(format!("the tiles in the bag changed ({what})"))
}

/// The files [`Watch`] watches.
fn files_of(config: Option<&std::path::Path>, loaded: &meeple_host::Loaded) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = config.map(PathBuf::from).into_iter().collect();
    for s in &loaded.selected {
        let m = &s.manifest;
        paths.push(m.path.clone());
        if let Some(edition) = m.edition(&s.edition) {
            paths.extend(edition.tileset.iter().cloned());
            paths.extend(edition.if_chosen.iter().map(|c| c.tileset.clone()));
        }
        if matches!(m.entry, meeple_host::manifest::Entry::Script(_)) {
            meeple_host::ruleset::collect_files(m.dir(), "luau", &mut paths);
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

fn modified(p: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}
