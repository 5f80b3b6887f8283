//! `meeple play --watch`: the files a game's rules come from, watched between turns, and the
//! game replayed on them when they change.

use super::failing_line;
use crate::common::{load_config, say};
use meeple_core::{Game, Rules, Setup};
use std::path::PathBuf;

/// The files a game's rules come from, and when they last changed: the config, and each
/// expansion's manifest, tilesets and (for a script) Luau files. A native library is not among
/// them: it stays loaded once loaded.
pub(super) struct Watch {
    /// The game's config file, if it has one.
    config: Option<PathBuf>,
    /// Whether `--seed` chose the seed: the config's then plays no part.
    seed_given: bool,
    files: Vec<(PathBuf, Option<std::time::SystemTime>)>,
    /// The files changed since the rules were last reloaded, in the order seen: a reload reads
    /// every file, so it applies the changes a refused one left, and names them.
    pending: Vec<String>,
}

impl Watch {
    pub(super) fn new(config: Option<&std::path::Path>, seed_given: bool, loaded: &meeple_host::Loaded) -> Watch {
        let config = config.map(PathBuf::from);
        let files = files_of(config.as_deref(), loaded).into_iter().map(|p| (p.clone(), modified(&p))).collect();
        Watch { files, config, seed_given, pending: Vec::new() }
    }

    /// Rebuilds the ruleset and replays the game on it when one of the files changed. Rules that
    /// no longer load, or no longer replay the game, are reported and the old ones stay; so does
    /// a config that changes what only a new game can take (players, seed, draw, tile limit).
    /// Whether the game now runs on reloaded rules.
    pub(super) fn reload_if_changed(
        &mut self,
        mods: &[PathBuf],
        loaded: &mut meeple_host::Loaded,
        game: &mut Game,
    ) -> bool {
        let changed: Vec<String> = self
            .files
            .iter_mut()
            .filter(|(p, t)| modified(p) != *t)
            .map(|(p, t)| {
                *t = modified(p);
                p.display().to_string()
            })
            .collect();
        if changed.is_empty() {
            return false;
        }
        for file in changed {
            if !self.pending.contains(&file) {
                self.pending.push(file);
            }
        }
        let changed = self.pending.join(", ");
        let config = self.config.as_deref();
        match load_config(config, mods).map_err(|e| e.to_string()).and_then(|new| {
            if let Some(what) = self.setup_change(&new, loaded, game.setup()) {
                let file = config.map_or_else(|| "the config".to_string(), |p| p.display().to_string());
                return Err(format!("{file}: its {what} changed, which only a new game takes"));
            }
            // The bag decides the draws: with other tiles in it, the game so far would be another
            // game, even where its actions still fit.
            let bag = |r: &Rules| r.tiles().iter().map(|t| t.key.clone()).zip(r.counts().to_vec()).collect::<Vec<_>>();
            if bag(&new.rules) != bag(&loaded.rules) {
                return Err(
                    "the tiles in the bag changed (which kinds, or how many of each), which only a new game takes"
                        .into(),
                );
            }
            let again = Game::from_actions(new.rules.clone(), game.setup().clone(), game.history()).map_err(|e| {
                let at = match &e {
                    meeple_core::ReplayError::Action { error, .. } => failing_line(&new, error),
                    _ => None,
                };
                let at = at.map(|f| format!("\nthe failing line: {f}")).unwrap_or_default();
                format!("the game so far does not replay on the new rules: {e}{at}")
            })?;
            Ok((new, again))
        }) {
            Ok((new, again)) => {
                say!("reloaded {changed} and replayed {} actions", game.history().len());
                self.pending.clear();
                *loaded = new;
                *game = again;
                // The new rules may come from other files (an expansion added, a module required).
                // Known files keep the times read before loading: one changed since is still new.
                let known: std::collections::HashMap<PathBuf, _> =
                    std::mem::take(&mut self.files).into_iter().collect();
                self.files = files_of(config, loaded)
                    .into_iter()
                    .map(|p| {
                        let time = known.get(&p).copied().unwrap_or_else(|| modified(&p));
                        (p, time)
                    })
                    .collect();
                true
            }
            Err(e) => {
                say!("not reloaded ({changed}): {e}");
                false
            }
        }
    }

    /// What a reloaded config changes of the running game's setup, if anything.
    fn setup_change(
        &self,
        new: &meeple_host::Loaded,
        old: &meeple_host::Loaded,
        setup: &Setup,
    ) -> Option<&'static str> {
        let now = new.setup(setup.seed);
        if now.players != setup.players {
            Some("players")
        } else if !self.seed_given && new.config.seed != old.config.seed {
            Some("seed")
        } else if now.draw != setup.draw {
            Some("draw")
        } else if now.tile_limit != setup.tile_limit {
            Some("tile limit")
        } else {
            None
        }
    }
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
