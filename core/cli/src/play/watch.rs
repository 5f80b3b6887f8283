//! `meeple play --watch`: the files a game's rules come from, watched between turns, and the
//! game replayed on them when they change (or a new game started, when they change what only a
//! new game takes); rules broken at the start are waited on as those broken mid-game are.

use super::{Deal, NotStarted, Table, failing_line};
use crate::common::{CliError, load_config, say};
use meeple_core::{ActionError, Game, ReplayError, Rules};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Files and when they last changed (`None`: not there).
type Times = BTreeMap<PathBuf, Option<SystemTime>>;

/// How long a rebuilt library is left alone before its change is told.
const SETTLED: std::time::Duration = std::time::Duration::from_millis(500);

/// The files a game's rules come from, and when they last changed: the config, and each
/// expansion's manifest, tilesets and (for a script) Luau files. A native library is not among
/// them: it stays loaded once loaded; a new build of it is told, once, and not played.
pub(super) struct Watch {
    /// The game's config file, if it has one.
    config: Option<PathBuf>,
    /// What a new game starts from besides its config.
    deal: Deal,
    files: Times,
    /// The native libraries of the rules, and when they changed as last told.
    libraries: Times,
    /// The files changed since the rules were last (re)loaded, in the order seen: a reload reads
    /// every file, so it applies the changes a refused one left, and names them.
    pending: Vec<String>,
}

/// What a look at the watched files did to the game.
pub(super) enum Reloaded {
    /// Nothing: no file changed, or the rules did not reload (which was told).
    No,
    /// The game so far was replayed on the reloaded rules.
    Replayed,
    /// The reloaded rules changed what only a new game takes, and a new game started on them:
    /// here is the game it replaced, whose replay is still to be kept.
    NewGame(Box<Table>),
}

/// The game on reloaded rules: the game so far replayed, or a new one and why it was needed.
enum Next {
    Replayed(meeple_host::Loaded, Game),
    New(Table, String),
}

impl Watch {
    /// Starts the first game, to be watched. Rules that do not load, or whose setup fails, are
    /// told with their line, and the game waits for a change that lets it start: a mistake is
    /// fixed the same way before the first turn as after it. Other errors (a config file that is
    /// not there, bots for more players than the game has) end the command.
    pub(super) fn start(config: Option<&Path>, deal: Deal, mods: &[PathBuf]) -> Result<(Watch, Table), CliError> {
        let mut watch = Watch {
            config: config.map(PathBuf::from),
            deal,
            files: Times::new(),
            libraries: Times::new(),
            pending: Vec::new(),
        };
        loop {
            // Read before loading: a file saved while the rules load is seen as changed after.
            let before = times(every_file(config, mods));
            let started = load_config(config, mods)
                .map_err(|e| {
                    let kept = meeple_host::native::kept_library_named_in(&e.to_string());
                    NotStarted { error: Box::new(e), line: None, native: None, kept_library: kept }
                })
                .and_then(|loaded| watch.deal.table(loaded));
            let no = match started {
                Ok(table) => {
                    watch.files = before;
                    watch.refresh(&table.loaded);
                    watch.pending.clear();
                    return Ok((watch, table));
                }
                Err(no) if !waits_for_fix(&no.error, config) => return Err(*no.error),
                Err(no) => no,
            };
            watch.tell_not_started(&no);
            watch.wait_for_change(before, || times(every_file(config, mods)));
        }
    }

    /// Tells why the first game did not start: at first as `meeple play` would, then after each
    /// change, with the files changed.
    fn tell_not_started(&self, no: &NotStarted) {
        if self.pending.is_empty() {
            say!("{}", no.error);
        } else {
            // "cannot start the game" was said once: the setup's error alone says what is new.
            let why = match &*no.error {
                CliError::Setup(e) => e.to_string(),
                e => e.to_string(),
            };
            say!("not started ({}): {why}", self.pending.join(", "));
        }
        if let Some(line) = &no.line {
            say!("the failing line: {line}");
        }
        match (&no.native, &no.kept_library, self.pending.is_empty()) {
            (Some(id), _, _) => say!("{}", super::rebuild_advice(id)),
            // A library refused after it was opened: only its manifest can be fixed by saving.
            (None, Some(library), _) => say!(
                "the game waits to start; a fix saved to a manifest or the config is taken, but this meeple keeps \
                 the build of {library} it opened: after rebuilding it, start `meeple play` again (Ctrl-C to stop)"
            ),
            (None, None, true) => say!("the game waits to start; save a fix to go on (Ctrl-C to stop)"),
            (None, None, false) => {}
        }
    }

    /// Waits until the files differ from `before`, and notes those that changed.
    fn wait_for_change(&mut self, before: Times, now: impl Fn() -> Times) {
        loop {
            std::thread::sleep(std::time::Duration::from_millis(250));
            let now = now();
            let keys: std::collections::BTreeSet<&PathBuf> = before.keys().chain(now.keys()).collect();
            let changed: Vec<String> =
                keys.into_iter().filter(|p| before.get(*p) != now.get(*p)).map(|p| p.display().to_string()).collect();
            if !changed.is_empty() {
                self.note(changed);
                return;
            }
        }
    }

    /// Adds files to those changed since the rules were last (re)loaded.
    fn note(&mut self, changed: Vec<String>) {
        for file in changed {
            if !self.pending.contains(&file) {
                self.pending.push(file);
            }
        }
    }

    /// Rebuilds the ruleset when one of the files changed, and replays the game on it. When the
    /// game so far cannot be the same game on the new files (other players, seed, draw, tile
    /// limit, start tile or bag, or an action taken that they refuse), a new game starts on them
    /// instead: a modder who changed those wants to see them played, and `--watch` would never
    /// reach another game. Rules that no longer load, fail on the game so far or cannot start
    /// one are told, and the old ones play on.
    pub(super) fn reload_if_changed(&mut self, mods: &[PathBuf], table: &mut Table) -> Reloaded {
        self.tell_rebuilt_libraries();
        let changed = self.changed_files();
        if changed.is_empty() {
            return Reloaded::No;
        }
        self.note(changed);
        let files = self.pending.join(", ");
        let next =
            load_config(self.config.as_deref(), mods).map_err(|e| e.to_string()).and_then(|new| self.next(new, table));
        let reloaded = match next {
            Err(e) => {
                say!("not reloaded ({files}): {e}");
                return Reloaded::No;
            }
            Ok(Next::Replayed(loaded, game)) => {
                say!(
                    "reloaded {files} and replayed {} actions{}",
                    table.game.history().len(),
                    self.seed_held(&loaded, table)
                );
                (table.loaded, table.game) = (loaded, game);
                Reloaded::Replayed
            }
            Ok(Next::New(new, why)) => {
                say!("reloaded {files}; {why}, which only a new game takes: this game ends here and a new one starts");
                Reloaded::NewGame(Box::new(std::mem::replace(table, new)))
            }
        };
        self.pending.clear();
        self.refresh(&table.loaded);
        reloaded
    }

    /// Tells of each native library rebuilt since last looked at that this game does not play
    /// it: a library stays loaded once loaded (a reload of the manifest keeps the old build too).
    /// A change is told once the file has been left alone for a moment: a linker writes a
    /// library in many steps, each of which would be told.
    fn tell_rebuilt_libraries(&mut self) {
        for (path, time) in self.libraries.iter_mut() {
            let now = modified(path);
            if settled(now, SystemTime::now()) && now != *time {
                *time = now;
                say!(
                    "{} changed: a running meeple keeps the build of a native library it loaded, and \
                     plays on with it; start `meeple play` again to play the new one",
                    meeple_host::paths::display_path(path)
                );
            }
        }
    }

    /// The watched files whose time changed since last looked at, with their new times noted.
    fn changed_files(&mut self) -> Vec<String> {
        self.files
            .iter_mut()
            .filter(|(p, t)| modified(p) != **t)
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
        self.files = kept_times(std::mem::take(&mut self.files), files_of(self.config.as_deref(), loaded));
        self.libraries = kept_times(std::mem::take(&mut self.libraries), libraries_of(loaded));
    }

    /// The game on the new rules, or why there is none.
    fn next(&self, new: meeple_host::Loaded, table: &Table) -> Result<Next, String> {
        let (old_rules, new_rules) = (&table.loaded.rules, &new.rules);
        // The start tile before the bag: a new one is a copy out of the bag, whose count changes
        // with it, but the start is what was changed.
        let why = self
            .setup_change(&new, table)
            .or_else(|| start_change(old_rules, new_rules))
            .or_else(|| bag_change(old_rules, new_rules));
        if let Some(why) = why {
            return self.new_game(new, why);
        }
        let game = &table.game;
        match Game::from_actions(new.rules.clone(), game.setup().clone(), game.history()) {
            Ok(again) => Ok(Next::Replayed(new, again)),
            // An action the new rules do not offer (a rule changed what may be done): the game
            // so far is not one of theirs, and will not become one by a later save.
            Err(ReplayError::Action { index, error, .. }) if matches!(*error, ActionError::Illegal(_)) => {
                // Told as it was taken: its turn and its words, from the game up to it on the
                // rules it was played on (their scripts keep nothing between calls, so replaying
                // on them leaves the running game as it is).
                let rules = table.loaded.rules.clone();
                let taken = Game::from_actions(rules, game.setup().clone(), &game.history()[..index]).ok().map(|g| {
                    format!(" of turn {} (`{}`)", g.state().turn().number, g.describe(&game.history()[index]))
                });
                let why = format!(
                    "the game so far has an action{} that the new rules refuse: {error}",
                    taken.unwrap_or_default()
                );
                self.new_game(new, why)
            }
            // A hook failing on the way is a fault to fix: the game waits for the fix.
            Err(e) => {
                let at = match &e {
                    ReplayError::Action { error, .. } => failing_line(&new, error),
                    _ => None,
                };
                Err(format!("the game so far does not replay on the new rules: {e}{}", below(at)))
            }
        }
    }

    /// A new game on the new rules, which `why` says only a new game takes; or why none starts.
    fn new_game(&self, new: meeple_host::Loaded, why: String) -> Result<Next, String> {
        match self.deal.table(new) {
            Ok(next) => Ok(Next::New(next, why)),
            Err(no) => Err(format!("{why}, which only a new game takes: {}{}", no.error, below(no.line))),
        }
    }

    /// Why a seed changed in the config did not start a new game: `--seed` chose the seed.
    fn seed_held(&self, new: &meeple_host::Loaded, table: &Table) -> String {
        match (self.deal.seed, new.config.seed) {
            (Some(seed), Some(now)) if new.config.seed != table.loaded.config.seed => {
                format!(" (the config's seed is now {now}, but `--seed {seed}` chose this game's)")
            }
            _ => String::new(),
        }
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

/// How the start tile of new rules differs from the old one's, if it does. It is laid before the
/// first turn: the game so far was played around the old one.
fn start_change(old: &Rules, new: &Rules) -> Option<String> {
    let key = |r: &Rules| r.start().map_or_else(|| "none".to_string(), |t| r.tile(t).key.to_string());
    let (was, is) = (key(old), key(new));
    (was != is).then(|| format!("the start tile changed ({was} → {is})"))
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

/// The failing line, if known, on a line of its own below the error it follows.
fn below(failing_line: Option<String>) -> String {
    failing_line.map(|f| format!("\nthe failing line: {f}")).unwrap_or_default()
}

/// Whether an error at the start is one to wait on a fix of: rules that do not load or whose
/// setup fails. A config file that is not there is a mistyped argument, not a file being edited.
fn waits_for_fix(error: &CliError, config: Option<&Path>) -> bool {
    matches!(error, CliError::Load(_) | CliError::Setup(_)) && config.is_none_or(Path::exists)
}

/// The files that rules which do not load may come from: the config, and the manifests,
/// tilesets and scripts of every expansion found (a fix may be in any of them, or make one).
fn every_file(config: Option<&Path>, mods: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = config.map(PathBuf::from).into_iter().collect();
    for root in meeple_host::paths::mod_roots(mods) {
        for dir in meeple_host::ruleset::expansion_dirs(&root) {
            meeple_host::ruleset::collect_files(&dir, "toml", &mut paths);
            meeple_host::ruleset::collect_files(&dir, "luau", &mut paths);
        }
    }
    paths
}

fn times(paths: Vec<PathBuf>) -> Times {
    paths
        .into_iter()
        .map(|p| {
            let time = modified(&p);
            (p, time)
        })
        .collect()
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

/// The files of the native libraries the rules play.
fn libraries_of(loaded: &meeple_host::Loaded) -> Vec<PathBuf> {
    loaded.native_libraries().filter_map(|(m, library)| meeple_host::native::played(library, m.dir()).ok()).collect()
}

/// The times of `paths`: those already known keep theirs (a change since is still new), the
/// others are read now.
fn kept_times(known: Times, paths: Vec<PathBuf>) -> Times {
    paths
        .into_iter()
        .map(|p| {
            let time = known.get(&p).copied().unwrap_or_else(|| modified(&p));
            (p, time)
        })
        .collect()
}

/// Whether a file last changed at `changed` (`None`: not there) has been left alone long enough
/// at `now` for its change to be told. A time after `now` (clocks set apart) is as settled as
/// can be.
fn settled(changed: Option<SystemTime>, now: SystemTime) -> bool {
    changed.is_some_and(|t| now.duration_since(t).map_or(true, |age| age >= SETTLED))
}

fn modified(p: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::{SETTLED, settled};
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_library_being_written_is_told_once_left_alone() {
        let now = SystemTime::now();
        assert!(!settled(Some(now - Duration::from_millis(100)), now), "still being written");
        assert!(settled(Some(now - SETTLED), now));
        assert!(settled(Some(now + Duration::from_secs(5)), now), "a clock set apart");
        assert!(!settled(None, now), "gone for the moment, as between a build's steps");
    }
}
