//! `meeple check DIR`: everything that can be wrong with a mod, found without playing it — the
//! manifest, the tileset of every edition, the syntax of every script and the hooks it
//! registers, a native library's entry table, and what a game would refuse when it loads the
//! mod beside the base game and the other installed expansions.

use crate::config::{ExpansionChoice, GameConfig, Location};
use crate::hook_use::{Counted, HookCounts, HookUse};
use crate::load::Builtin;
use crate::luau::api::unknown_hook;
use crate::luau::{Limits, LuauExpansion, Script};
use crate::manifest::{Edition, Entry, Manifest, OptionType};
use crate::paths::{display_path, mod_roots, normalise};
use crate::ruleset::{Catalog, Instantiate, Loaded, Selected, build, read_text, tileset_named};
use meeple_core::bots::{Bot, RandomBot, seat_seed};
use meeple_core::tileset::Tileset;
use meeple_core::{ActionError, Expansion, Game, HookError, HookKind, HookSet, KeptValue, SetupError};
use meeple_toml::{Diagnostic, Report};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use variants::Variant;

mod tile_use;
mod variants;

pub use tile_use::TileUse;

/// What a mod that passed the checks contains.
#[derive(Debug)]
pub struct Checked {
    /// The manifest.
    pub manifest: Manifest,
    /// Tiles per edition.
    pub tiles: Vec<(String, u32)>,
    /// The hooks its code registers; `None` for a `[builtin]` expansion whose Rust code this
    /// program lacks (a game would refuse it).
    pub hooks: Option<Vec<&'static str>>,
    /// Hooks its code registers only in other settings than the defaults (code that registers
    /// hooks by its options), each with the settings that register it.
    pub other_hooks: Vec<(&'static str, Vec<String>)>,
    /// How often each of those hooks, with the defaults or in another setting, was called in the
    /// random games, and acted.
    pub hook_use: Vec<HookUse>,
    /// Random games played with its code (none for a mod without a script or a library).
    pub games: u64,
    /// Its own tile kinds in [`Checked::tile_games`] random games with its defaults: how often
    /// each was drawn and placed.
    pub tile_use: Vec<TileUse>,
    /// The random games its tiles were counted in (none for a mod without tiles of its own).
    pub tile_games: u64,
    /// The other settings it was played in too: each other edition, and each option at each of
    /// its other values (`lenient = true`).
    pub variants: Vec<String>,
    /// Random games played in each of those settings (none for a mod without code: each was
    /// only loaded).
    pub variant_games: u64,
    /// The file of its native library, as found (none for a mod without one).
    pub library: Option<PathBuf>,
    /// Whether that library may not be the build its author means: built before its crate's
    /// sources last changed, or hiding a newer copy (told in `warnings`).
    pub library_stale: bool,
    /// The game configs beside its manifest, each of which loaded as a game would load it.
    pub configs: Vec<PathBuf>,
    /// What passed but may not be what its author means: what a game of it warns of (a `[draw]`
    /// tag no tile carries, an edition played with one it is not made for), a native library
    /// built before its crate's sources last changed, or one that hides a newer copy.
    pub warnings: Vec<String>,
}

/// Checks the mod in `dir` (a folder with an `expansion.toml`); reports every problem at once.
/// Besides its own files, it is loaded as a game would load it (the base game and it, in its
/// default edition, with the expansions found in the built-in folders, `mods` and the mod's own
/// parent folder), which finds what only shows with the others: a missing dependency, an id
/// installed twice, a start tile not in the ruleset.
pub fn check_mod(dir: &Path, mods: &[PathBuf]) -> Result<Checked, Report> {
    check_mod_playing(dir, mods, CHECK_GAMES)
}

/// The folders directly inside `dir` that hold an `expansion.toml`, as paths from here.
fn mods_inside(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<String> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("expansion.toml").is_file())
        .map(|p| display_path(&p))
        .collect();
    found.sort();
    found
}

/// [`check_mod`], playing `games` random games (at least one) rather than ten: more reach the
/// positions a handler rarely meets, and the first game that fails is named by its seed.
pub fn check_mod_playing(dir: &Path, mods: &[PathBuf], games: u64) -> Result<Checked, Report> {
    let path = dir.join("expansion.toml");
    if !dir.exists() {
        let message = format!("no such folder{}", crate::paths::hint_for_missing(dir));
        return Err(Report { diagnostics: vec![Diagnostic::of_file(display_path(dir), message)] });
    }
    if !dir.is_dir() {
        // A game config beside a manifest is checked with its mod.
        let beside = dir.parent().filter(|p| p.join("expansion.toml").is_file());
        let hint = beside.map_or(String::new(), |m| {
            format!(" (`meeple check {}` checks the mod and the game configs beside its manifest)", display_path(m))
        });
        let why = format!("not a folder: a mod is a folder with an expansion.toml{hint}");
        return Err(Report { diagnostics: vec![Diagnostic::of_file(display_path(dir), why)] });
    }
    if let (false, Ok(target)) = (path.exists(), std::fs::read_link(&path)) {
        let why = format!("its expansion.toml is a link to {}, which does not exist", target.display());
        return Err(Report { diagnostics: vec![Diagnostic::of_file(display_path(&path), why)] });
    }
    if !path.exists() {
        let mods = mods_inside(dir);
        let hint = if mods.is_empty() { String::new() } else { format!("; the mods in it: {}", mods.join(", ")) };
        let why = format!("not a mod folder: it has no expansion.toml{hint}");
        return Err(Report { diagnostics: vec![Diagnostic::of_file(display_path(dir), why)] });
    }
    let text = read_text(&path)?;
    let (manifest, mut report) = Manifest::parse_lenient(&path, &text);
    let tiles = edition_tiles(&manifest, &mut report);
    made_for_others(&manifest, mods, &mut report);
    if report.is_empty() {
        tileset_ids_taken(&manifest, mods, &mut report);
    }
    let hooks = match &manifest.entry {
        Entry::Script(entry) => Some(script_hooks(&manifest, entry, report.is_empty()).unwrap_or_else(|r| {
            report.extend(r);
            Vec::new()
        })),
        Entry::Native(_) | Entry::Builtin(_) | Entry::None => Some(Vec::new()),
    };
    let mut played = Played { hooks, ..Played::default() };
    if report.is_empty() {
        match load_with_others(&manifest, mods, games.max(1)) {
            Ok(p) => played = p,
            Err(r) => report.extend(r),
        }
    } else {
        // Its own problems keep it from loading with the others; what it depends on is looked
        // for all the same.
        let catalog = catalog_with(&manifest, mods);
        for d in manifest.depends.iter().filter(|d| !catalog.has(d)) {
            let why = format!("`{}` depends on `{d}`{}", manifest.id, catalog.not_installed(d));
            report.diagnostics.push(manifest.problem_at(&format!("depends.{d}"), why));
        }
        // As are the expansions its editions bring along.
        for edition in &manifest.editions {
            for id in edition.with.iter().filter(|id| !catalog.has(id)) {
                report.diagnostics.push(catalog.not_brought(&manifest, &edition.name, id));
            }
        }
        // And so is its library, which loading would have looked for.
        if let Entry::Native(library) = &manifest.entry
            && let Err(why) = crate::plugin_files::locate(library, manifest.dir())
        {
            report.diagnostics.push(manifest.problem_at("native.library", why));
        }
    }
    let configs = game_configs(&manifest);
    if !report.is_empty() {
        // A library older than its sources may be the reason: a fix not yet built.
        if let Entry::Native(library) = &manifest.entry {
            for why in crate::plugin_files::stale(library, manifest.dir()) {
                report.diagnostics.push(manifest.problem_at("native.library", why));
            }
        }
        // The configs beside it are read all the same, for their own slips; a broken mod
        // cannot load with them.
        for config in &configs {
            report.extend(config_beside(&manifest, mods, config, false).err().unwrap_or_default());
        }
        return Err(in_file_order(report));
    }
    for config in &configs {
        report.extend(config_beside(&manifest, mods, config, true).err().unwrap_or_default());
    }
    if !report.is_empty() {
        return Err(in_file_order(report));
    }
    let tile_games = if played.tile_use.is_empty() { 0 } else { games.max(1) };
    let games = if matches!(manifest.entry, Entry::Script(_) | Entry::Native(_)) { games.max(1) } else { 0 };
    let Played { hooks, other_hooks, hook_use, mut warnings, variants, tags, tile_use } = played;
    warnings.extend(tile_use::never_placed(&tile_use, tile_games));
    let (library, library_stale) = match &manifest.entry {
        Entry::Native(library) => {
            let stale = crate::plugin_files::stale(library, manifest.dir());
            let library_stale = !stale.is_empty();
            warnings.extend(stale);
            (crate::plugin_files::played(library, manifest.dir()).ok(), library_stale)
        }
        _ => (None, false),
    };
    warnings.extend(no_hooks(&manifest, hooks.as_deref()));
    // The hooks' calls are counted in every game played with them, in the other settings too.
    let games_each = variant_games(games);
    if games > 0 {
        warnings.extend(never_called(&hook_use, &manifest.entry));
        warnings.extend(never_acted(&hook_use, &tags));
    }
    let variant_games = if variants.is_empty() || games == 0 { 0 } else { games_each };
    Ok(Checked {
        manifest,
        tiles,
        hooks,
        other_hooks,
        hook_use,
        games,
        tile_use,
        tile_games,
        variants,
        variant_games,
        library,
        library_stale,
        warnings,
        configs,
    })
}

/// The game configs beside a mod's manifest (`game.toml`, which `meeple new` writes, and any
/// other): those of its folder's TOML files that hold a config's keys, but for the manifest
/// (whose `[draw]` is one) and the tilesets it names; a native mod's `Cargo.toml` holds none.
fn game_configs(manifest: &Manifest) -> Vec<PathBuf> {
    let same = crate::paths::same_file;
    let named = |p: &Path| manifest.editions.iter().flat_map(edition_tilesets).any(|t| same(t.path, p));
    let Ok(entries) = std::fs::read_dir(manifest.dir()) else { return Vec::new() };
    let toml = |p: &Path| p.is_file() && p.extension().is_some_and(|x| x == "toml");
    let config = |p: &Path| std::fs::read_to_string(p).is_ok_and(|t| crate::config::looks_like_config(&t));
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| toml(p) && !same(p, &manifest.path) && !named(p) && config(p))
        .collect();
    found.sort();
    found
}

/// Reads a config beside the mod and, with `load`, loads it as `meeple play` would, finding the
/// mod where it is.
fn config_beside(manifest: &Manifest, mods: &[PathBuf], path: &Path, load: bool) -> Result<(), Report> {
    let text = read_text(path)?;
    let (config, problems) = GameConfig::parse_lenient(&display_path(path), &text);
    if !load {
        return if problems.is_empty() { Ok(()) } else { Err(problems) };
    }
    let built = build(&catalog_with(manifest, mods), &config, &Builtin);
    crate::load::with_problems(problems, built).map(drop)
}

/// Problems by file, the files in the order they were first told, each file's in line order
/// (the manifest is read in passes: its problems are found out of order); repeats dropped.
fn in_file_order(mut report: Report) -> Report {
    let mut files: Vec<String> = Vec::new();
    for d in &report.diagnostics {
        if !files.contains(&d.file) {
            files.push(d.file.clone());
        }
    }
    let rank = |file: &String| files.iter().position(|f| f == file);
    report.diagnostics.sort_by_key(|d| (rank(&d.file), d.line, d.col));
    report.diagnostics.dedup();
    report
}

/// The tiles of each edition, reading each tileset file once (editions may share one). The
/// tilesets an edition adds beside another expansion are read and checked too, though they do
/// not count here.
fn edition_tiles(manifest: &Manifest, report: &mut Report) -> Vec<(String, u32)> {
    let mut read: BTreeMap<&Path, Option<Tileset>> = BTreeMap::new();
    let mut tiles = Vec::new();
    for ed in &manifest.editions {
        // `None`: the edition has no tileset of its own; `Some(None)`: it could not be read.
        let mut own = None;
        for named in edition_tilesets(ed) {
            let what = match named.beside {
                Some(other) => format!("edition `{}` beside `{other}`", ed.name),
                None => format!("edition `{}`", ed.name),
            };
            let found = tileset_edition(manifest, &mut read, (named.path, named.inner), (&named.key, &what), report);
            if named.beside.is_none() {
                own = Some(found.map(|(ts, i)| ts.total(i)));
            }
        }
        match own {
            None => tiles.push((ed.name.clone(), 0)),
            Some(Some(total)) => tiles.push((ed.name.clone(), total)),
            Some(None) => {}
        }
    }
    tiles
}

/// A tileset an edition names.
struct NamedTileset<'m> {
    path: &'m Path,
    /// The edition inside the tileset file.
    inner: &'m str,
    /// The manifest's key that names it.
    key: String,
    /// The other expansion it is added beside, for one added only beside it.
    beside: Option<&'m str>,
}

/// The tilesets an edition names: those it adds beside another expansion, then its own.
fn edition_tilesets(ed: &Edition) -> Vec<NamedTileset<'_>> {
    let extra = ed.if_chosen.iter().enumerate().map(|(i, c)| NamedTileset {
        path: &c.tileset,
        inner: &c.tileset_edition,
        key: format!("editions.{}.if_chosen.{i}.tileset", ed.name),
        beside: Some(&c.expansion),
    });
    let own = ed.tileset.as_deref().map(|path| NamedTileset {
        path,
        inner: &ed.tileset_edition,
        key: format!("editions.{}.tileset", ed.name),
        beside: None,
    });
    extra.chain(own).collect()
}

/// The editions and option values a `made_for` entry names that its installed expansion does
/// not have: played with any edition or value of it, the game would warn that it is not the one
/// the mod was made for. An expansion that is not installed may be one to come, and is left
/// alone.
fn made_for_others(manifest: &Manifest, mods: &[PathBuf], report: &mut Report) {
    if manifest.editions.iter().all(|e| e.made_for.is_empty()) {
        return;
    }
    let catalog = catalog_with(manifest, mods);
    for ed in &manifest.editions {
        for (i, made_for) in ed.made_for.iter().enumerate() {
            let other = if made_for.expansion == manifest.id {
                Some(manifest)
            } else {
                catalog.manifests.get(&made_for.expansion)
            };
            let Some(other) = other else { continue };
            let has: Vec<&str> = other.editions.iter().map(|e| e.name.as_str()).collect();
            for name in made_for.editions.iter().filter(|n| !has.contains(&n.as_str())) {
                let why = format!(
                    "`made_for`: `{}` has no edition `{name}`; {}expected one of: {}",
                    other.id,
                    meeple_toml::did_you_mean(name, &has),
                    has.join(", ")
                );
                report
                    .diagnostics
                    .push(manifest.problem_at(&format!("editions.{}.made_for.{i}.editions.{name}", ed.name), why));
            }
            for (name, values) in &made_for.options {
                let Some(why) = not_among_values(other, name, values) else { continue };
                let at = format!("editions.{}.made_for.{i}.options.{name}", ed.name);
                report.diagnostics.push(manifest.problem_at(&at, format!("`made_for`: {why}")));
            }
        }
    }
}

/// Why `values` are not values of `other`'s enum option `name`, if they are not.
fn not_among_values(other: &Manifest, name: &str, values: &[String]) -> Option<String> {
    let Some(option) = other.option(name) else {
        let names: Vec<&str> = other.options.iter().map(|o| o.name.as_str()).collect();
        let meant = meeple_toml::did_you_mean(name, &names);
        return Some(format!("`{}` has no option `{name}`; {meant}it has: {}", other.id, names.join(", ")));
    };
    let OptionType::Enum(has) = &option.ty else {
        return Some(format!(
            "option `{name}` of `{}` is not an enum: `made_for` names values of enum options",
            other.id
        ));
    };
    let unknown: Vec<&str> = values.iter().filter(|v| !has.contains(v)).map(String::as_str).collect();
    (!unknown.is_empty()).then(|| {
        format!("option `{name}` of `{}` has no value {}; it has: {}", other.id, unknown.join(", "), has.join(", "))
    })
}

/// A tileset of the mod whose id another installed expansion's tileset has: the two could not
/// be played together (the id names the tiles), so it is said now rather than in a game. An
/// expansion the mod conflicts with is never played with it.
fn tileset_ids_taken(manifest: &Manifest, mods: &[PathBuf], report: &mut Report) {
    let catalog = catalog_with(manifest, mods);
    let others = catalog.manifests.values().filter(|m| m.id != manifest.id && !manifest.conflicts.contains(&m.id));
    let mut taken: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
    for other in others {
        for NamedTileset { path, .. } in other.editions.iter().flat_map(edition_tilesets) {
            if let Ok((ts, _)) = crate::ruleset::load_tileset(path) {
                taken.entry(ts.id).or_insert_with(|| (normalise(path), other.id.clone()));
            }
        }
    }
    let mut told = BTreeSet::new();
    for NamedTileset { path, key, .. } in manifest.editions.iter().flat_map(edition_tilesets) {
        let Ok((ts, _)) = crate::ruleset::load_tileset(path) else { continue };
        if let Some((file, by)) = taken.get(&ts.id).filter(|(file, _)| *file != normalise(path))
            && told.insert(path)
        {
            let why = format!(
                "tileset `{}` ({}) has the id of `{by}`'s tileset {}: the two cannot be played together, \
                 as the id names their tiles (`{}:…`); give it an id of its own",
                ts.id,
                display_path(path),
                display_path(file),
                ts.id
            );
            report.diagnostics.push(manifest.problem_at(&key, why));
        }
    }
}

/// Reads a tileset file a manifest names at `key` (each file once) and finds in it the edition
/// `inner`; reports what is wrong with either, naming the edition that uses it (`what`).
fn tileset_edition<'m, 'r>(
    manifest: &Manifest,
    read: &'r mut BTreeMap<&'m Path, Option<Tileset>>,
    (path, inner): (&'m Path, &str),
    (key, what): (&str, &str),
    report: &mut Report,
) -> Option<(&'r Tileset, usize)> {
    let ts = read.entry(path).or_insert_with(|| match tileset_named(manifest, key, path) {
        Ok((ts, _)) => Some(ts),
        Err(r) => {
            report.extend(r);
            None
        }
    });
    let ts = ts.as_ref()?;
    if let Some(i) = ts.edition(inner) {
        return Some((ts, i));
    }
    // At `tileset_edition` when it is written, else at the tileset.
    let written = format!("{key}_edition");
    let at = if manifest.places.iter().any(|(k, _)| *k == written) { written.as_str() } else { key };
    let message = format!(
        "{what} uses tileset edition `{inner}`, which {} does not have (it has: {})",
        display_path(path),
        ts.editions.join(", ")
    );
    report.diagnostics.push(manifest.problem_at(at, message));
    None
}

/// What loading a mod with the others and playing it found.
#[derive(Default)]
struct Played {
    /// The hooks its code registers (`None` when it is a `[builtin]` expansion this program has
    /// no code for).
    hooks: Option<Vec<&'static str>>,
    /// The hooks registered only in other settings, each with those settings.
    other_hooks: Vec<(&'static str, Vec<String>)>,
    hook_use: Vec<HookUse>,
    /// What such a game warns of.
    warnings: Vec<String>,
    /// The settings other than the defaults it was played in too.
    variants: Vec<String>,
    /// The tags the tiles of its games and their segments carry, in order.
    tags: BTreeSet<String>,
    /// Its own tiles in random games with its defaults.
    tile_use: Vec<TileUse>,
}

/// A script or a library that registers no hook: nothing of its code is ever called, which is
/// what a mod that only adds tiles means, and that one needs no code at all. A script that
/// registers hooks by its options (`base-c1`, none with its defaults) writes `meeple.on`
/// somewhere: it is not told.
fn no_hooks(manifest: &Manifest, hooks: Option<&[&str]>) -> Option<String> {
    let how = match &manifest.entry {
        Entry::Script(entry) if !writes_a_hook(manifest, entry) => "its script registers no hook (with `meeple.on`)",
        Entry::Native(_) => "its library's `hooks()` lists no hook",
        Entry::Script(_) | Entry::Builtin(_) | Entry::None => return None,
    };
    hooks.is_some_and(<[_]>::is_empty).then(|| {
        format!("{how}: none of its code is ever called (a mod that only adds tiles needs no `[script]` or `[native]`)")
    })
}

/// The mod alone in its default edition with its default options, as its script is read.
fn default_selection(manifest: &Manifest) -> Selected {
    Selected {
        manifest: manifest.clone(),
        edition: manifest.default_edition.clone(),
        options: manifest.default_options(&manifest.default_edition),
        tiles: Default::default(),
    }
}

/// Whether a file of the script calls `meeple.on`, whatever the options it runs with.
fn writes_a_hook(manifest: &Manifest, entry: &Path) -> bool {
    let sel = default_selection(manifest);
    let Ok(script) = Script::read(&sel, entry, Limits::default()) else { return true };
    script.files.iter().any(|(_, text)| !crate::luau::written::hook_names(text).is_empty())
}

/// The hooks the games never called, told in one warning: what a script's `only` (or a plugin's
/// `interest`) waits for never came (a storage key never stored, a figure kind never on the
/// board), or the call waits for what the mod never brings (an offer, a question, a second part
/// of a turn).
fn never_called(uses: &[HookUse], entry: &Entry) -> Option<String> {
    let (hooks, was, games) = hooks_where(uses, |u| u.calls == 0)?;
    let narrowed = if matches!(entry, Entry::Native(_)) { "its `interest`" } else { "an `only`" };
    Some(format!(
        "{hooks} {was} never called{games}: does {narrowed} name a storage key never stored or a figure \
         kind never placed, or does the call wait for an offer, a question or a second part of a turn that \
         never comes? (a rare rule may need `--games 1000`)"
    ))
}

/// The hooks the games called without them ever doing anything (a command, an action offered,
/// a placement forbidden), told in one warning: a handler runs, and whatever it looks for (a
/// tile's tag, a feature's kind, an option's value) never holds, as when misspelt.
///
/// The tags the game's tiles carry are named, to compare with the one a handler looks for.
fn never_acted(uses: &[HookUse], tags: &BTreeSet<String>) -> Option<String> {
    let (hooks, were, games) = hooks_where(uses, |u| u.calls > 0 && u.acted == 0)?;
    let tags = if tags.is_empty() {
        "for comparison: no tile of its game carries a tag".to_string()
    } else {
        format!(
            "for comparison, the tags its game's tiles carry: {}",
            tags.iter().map(String::as_str).collect::<Vec<_>>().join(", ")
        )
    };
    Some(format!(
        "{hooks} {were} called{games} and never gave a command, offered an action or forbade a placement: \
         does a handler look for a tag, kind or option value that is misspelt? ({tags})"
    ))
}

/// The hooks whose use matches, as a warning names them (`` `a`, `b` and `c` ``), with the verb
/// that fits their number and the games they were played in (` in 100 random games`); each
/// with its own games when they differ (a hook registered only under some options: `` `a` (in
/// 100 random games) and `b` (in 20) ``). `None` when there are none.
fn hooks_where(uses: &[HookUse], matches: impl Fn(&HookUse) -> bool) -> Option<(String, &'static str, String)> {
    let found: Vec<&HookUse> = uses.iter().filter(|u| matches(u)).collect();
    let verb = if found.len() == 1 { "was" } else { "were" };
    let first = found.first()?;
    if found.iter().all(|u| u.games == first.games) {
        let names: Vec<&str> = found.iter().map(|u| u.hook.name()).collect();
        let games = format!(" in {}", random_games(first.games));
        return Some((meeple_core::describe::quoted_list(&names), verb, games));
    }
    let each: Vec<String> =
        found.iter().map(|u| format!("`{}` (in {})", u.hook.name(), random_games(u.games))).collect();
    Some((meeple_core::describe::sentence_list(&each), verb, String::new()))
}

/// "1 random game", "100 random games".
pub fn random_games(n: u64) -> String {
    if n == 1 { "1 random game".to_string() } else { format!("{n} random games") }
}

/// Loads the base game with this mod as a game would, and plays it (its defaults, then each
/// other setting).
fn load_with_others(manifest: &Manifest, mods: &[PathBuf], games: u64) -> Result<Played, Report> {
    let catalog = catalog_with(manifest, mods);
    let mut config = GameConfig { file: display_path(&manifest.path), ..GameConfig::default() };
    // The mod and what it depends on, transitively (a missing one is reported as unknown). Each
    // is located where it is named: the mod's own choice (installed twice, say) at its `id`
    // line, a dependency at the `depends` entry that asks for it.
    let at = |m: &Manifest, key: &str| {
        let (line, col) = m.place(key);
        Some(Location { file: display_path(&m.path), line, col })
    };
    let mut own = ExpansionChoice::new(&manifest.id);
    own.id_at = at(manifest, "id");
    let mut choices = vec![own];
    let mut i = 0;
    while i < choices.len() {
        let dependant = catalog.manifests.get(&choices[i].id).unwrap_or(manifest);
        for d in &dependant.depends {
            if !choices.iter().any(|c| c.id == *d) {
                let mut choice = ExpansionChoice::new(d);
                choice.id_at = at(dependant, &format!("depends.{d}"));
                choices.push(choice);
            }
        }
        i += 1;
    }
    config.expansions = choices.into_iter().filter(|c| c.id != "base").collect();
    let checking = Checking { counted: manifest.id.clone(), counts: Arc::default() };
    let loaded = build(&catalog, &config, &checking)?;
    let x = loaded.rules.expansions().iter().find(|x| x.id() == manifest.id);
    let (variants, mut tags) = if x.is_some() {
        // The same ruleset loaded anew: its scripts in VMs of their own, which no game has run in.
        let fresh = || build(&catalog, &config, &Checking { counted: String::new(), counts: Arc::default() });
        let acted = || checking.counts.acted();
        plays_alike(&loaded, &fresh, &acted, manifest, games)?;
        play_variants(&catalog, &config, &checking, manifest, games)?
    } else {
        // No code to play, but each other edition and option must still make a game.
        play_variants(&catalog, &config, &checking, manifest, 0)?
    };
    let hooks = match x {
        Some(x) => Some(names(x.as_ref())),
        None if matches!(manifest.entry, Entry::Builtin(_)) => None,
        None => Some(Vec::new()),
    };
    let default_hooks = x.map_or(HookSet::NONE, |x| x.hooks());
    let other_hooks = hooks_elsewhere(default_hooks, &variants);
    let every = variants.iter().fold(default_hooks, |all, v| all.union(v.hooks));
    let mut hook_use = x.map(|_| checking.counts.of(every)).unwrap_or_default();
    for u in &mut hook_use {
        let in_default = if default_hooks.contains(u.hook) { games } else { 0 };
        let elsewhere = variants.iter().filter(|v| v.hooks.contains(u.hook)).count() as u64;
        u.games = in_default + elsewhere * variant_games(games);
    }
    tags.extend(tile_tags(&loaded));
    let variants = variants.into_iter().map(|v| v.label).collect();
    let tile_use = tile_use::count(&loaded, &own_tilesets(manifest), games);
    Ok(Played { hooks, other_hooks, hook_use, warnings: loaded.warnings(), variants, tags, tile_use })
}

/// The ids of the tilesets a mod's default edition adds to a game.
fn own_tilesets(manifest: &Manifest) -> BTreeSet<String> {
    let Some(edition) = manifest.editions.iter().find(|e| e.name == manifest.default_edition) else {
        return BTreeSet::new();
    };
    let read = edition_tilesets(edition).into_iter().filter_map(|named| crate::ruleset::load_tileset(named.path).ok());
    read.map(|(tileset, _)| tileset.id).collect()
}

/// How many random games [`check_mod`] plays in each setting other than the default one, out of
/// the `games` it plays in that one: a fifth, at least one.
fn variant_games(games: u64) -> u64 {
    (games / 5).max(1)
}

/// A setting other than the defaults that a mod was played in, and the hooks its code
/// registered there.
struct PlayedIn {
    label: String,
    hooks: HookSet,
}

/// The hooks registered in some of the other settings but not with the defaults, in the
/// documented order, each with the settings that register it.
fn hooks_elsewhere(default: HookSet, variants: &[PlayedIn]) -> Vec<(&'static str, Vec<String>)> {
    let only_elsewhere = HookKind::ALL.into_iter().filter(|&h| !default.contains(h));
    only_elsewhere
        .map(|h| (h.name(), variants.iter().filter(|v| v.hooks.contains(h)).map(|v| v.label.clone()).collect()))
        .filter(|(_, settings): &(_, Vec<String>)| !settings.is_empty())
        .collect()
}

/// Plays [`variant_games`] random games in each [`variants`] setting, on a load of its own; the
/// first that fails is told with its setting, and how to play it again. With no `games` (a mod
/// without code) each setting is only loaded. Returns the settings played or loaded with the
/// hooks registered in each, and the tags their games' tiles carry.
fn play_variants(
    catalog: &Catalog,
    config: &GameConfig,
    checking: &Checking,
    manifest: &Manifest,
    games: u64,
) -> Result<(Vec<PlayedIn>, BTreeSet<String>), Report> {
    let (mut played, mut tags) = (Vec::new(), BTreeSet::new());
    let in_game = |id: &str| id == "base" || config.expansions.iter().any(|c| c.id == id);
    let default_edition =
        |id: &str| catalog.manifests.get(id).filter(|_| in_game(id)).map(|m| m.default_edition.clone());
    for variant in variants::variants(manifest, default_edition) {
        let mut config = config.clone();
        if !variant.apply(&mut config, &manifest.id) {
            continue;
        }
        let loaded = build(catalog, &config, checking).map_err(|mut r| {
            for d in &mut r.diagnostics {
                d.message = format!("with {}: {}", variant.label, d.message);
            }
            r
        })?;
        // A fresh load of this setting, as the default games have theirs (no game asks for it).
        let fresh = || build(catalog, &config, &Checking { counted: String::new(), counts: Arc::default() });
        if let Some(at) = entry_key(manifest).filter(|_| games > 0) {
            let trial = Trial { manifest, at, fresh: &fresh, variant: Some(&variant) };
            for seed in 1..=variant_games(games) {
                trial.play(&loaded, seed)?;
            }
        }
        tags.extend(tile_tags(&loaded));
        let own = loaded.rules.expansions().iter().find(|x| x.id() == manifest.id);
        played.push(PlayedIn { label: variant.label, hooks: own.map_or(HookSet::NONE, |x| x.hooks()) });
    }
    Ok((played, tags))
}

/// The tags the tiles of a game and their segments carry.
fn tile_tags(loaded: &Loaded) -> BTreeSet<String> {
    let tiles = loaded.rules.tiles().iter();
    tiles.flat_map(|t| t.def.tags.iter().chain(t.def.segments.iter().flat_map(|s| &s.tags))).cloned().collect()
}

/// The manifest key a mod's code is named at, where its problems in play are shown; none for
/// code of this program's own (`[builtin]`) and for a mod without code.
fn entry_key(manifest: &Manifest) -> Option<&'static str> {
    match manifest.entry {
        Entry::Script(_) => Some("script.entry"),
        Entry::Native(_) => Some("native.library"),
        Entry::Builtin(_) | Entry::None => None,
    }
}

/// How many random games [`check_mod`] plays (the first of them twice). One game leaves many
/// handlers' branches untried (a whole game may score no monastery), and ten missed a branch
/// that a road of five tiles and more reaches; a hundred take some 50 ms with a Luau mod.
pub const CHECK_GAMES: u64 = 100;

/// Plays `games` random games with the mod (seeds 1 to `games`), as `meeple simulate` would, the
/// first of them twice: a hook that fails in one is reported, and so is code that plays the same
/// game differently the second time. Such code keeps state between hook calls (in a local of its
/// file, a global, a module's table), so replays, the look-ahead of bots and games played side by
/// side would go wrong with it. State that shows only in some games is caught by playing again,
/// each on a `fresh` load of the ruleset, a game that fails and the last few games in which the
/// mod acted (the `acted` count of its hooks grew): a game that goes otherwise there went wrong
/// for what the games before it left behind.
fn plays_alike(
    loaded: &Loaded,
    fresh: &dyn Fn() -> Result<Loaded, Report>,
    acted: &dyn Fn() -> u64,
    manifest: &Manifest,
    games: u64,
) -> Result<(), Report> {
    let Some(at) = entry_key(manifest) else { return Ok(()) };
    let trial = Trial { manifest, at, fresh, variant: None };
    trial.twice(loaded)?;
    let early = trial.kept(loaded);
    let acting = trial.each(loaded, acted, games)?;
    trial.alone(acting)?;
    trial.kept_alike(loaded, &early)
}

/// What the games of [`plays_alike`] share: the mod, the manifest key its problems are shown at,
/// and a fresh load of its ruleset.
struct Trial<'a> {
    manifest: &'a Manifest,
    at: &'a str,
    fresh: &'a dyn Fn() -> Result<Loaded, Report>,
    /// The setting played, when not the defaults.
    variant: Option<&'a Variant>,
}

/// What a mod whose variables changed while games were played is told.
const KEEPS_STATE: &str = "the code keeps state between hook calls (in a local of its file, a global or a module's \
                           table?); keep what a game needs in its storage";

/// What a mod whose games go otherwise when played again is told: kept state, or a rule that
/// reads where tables lie in memory, which differs from load to load.
const GOES_OTHERWISE: &str = "the code keeps state between hook calls (in a local of its file, a global or a \
                              module's table?), or reads where its tables lie in memory (`tostring` of a table, the \
                              order `pairs` walks keys that are tables); keep what a game needs in its storage";

/// The state hashes of one game, after each action.
type Hashes = Vec<u64>;

impl Trial<'_> {
    /// A problem shown at the manifest's entry.
    fn problem(&self, message: String) -> Report {
        Report { diagnostics: vec![self.manifest.problem_at(self.at, message)] }
    }

    /// A failing hook, shown at its own line when it is the mod's, else at the manifest.
    fn failed(&self, message: String, hook: Option<&HookError>) -> Report {
        let diagnostic = hook.and_then(|hook| in_own_file(self.manifest, hook, &message));
        diagnostic.map_or_else(|| self.problem(message), |d| Report { diagnostics: vec![d] })
    }

    /// Plays the random game `seed` on `loaded` to its end.
    fn play(&self, loaded: &Loaded, seed: u64) -> Result<Hashes, Report> {
        let with = self.variant.map_or(String::new(), |v| format!(", with {}", v.label));
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).map_err(|e| {
            let hook = if let SetupError::Hook(hook) = &e { Some(hook) } else { None };
            self.failed(format!("a random game (seed {seed}{with}) could not start: {e}"), hook)
        })?;
        // Seated as `meeple play --bots random` seats them, so that the command `again` gives
        // plays the same game.
        let mut bots: Vec<RandomBot> =
            (0..game.state().players() as usize).map(|p| RandomBot::new(seat_seed(seed, p))).collect();
        let mut hashes = Vec::new();
        while let Some(p) = game.to_act() {
            let action = bots[p as usize].choose(&game);
            game.apply(action).map_err(|e| {
                let hook = if let ActionError::Hook(hook) = &e { Some(hook) } else { None };
                let again = again(self.manifest, self.variant, seed);
                self.failed(format!("a random game (seed {seed}{with}) stopped: {e}\n{again}"), hook)
            })?;
            hashes.push(game.state().hash());
        }
        Ok(hashes)
    }

    /// The first game, played twice on the same load, must go alike.
    fn twice(&self, loaded: &Loaded) -> Result<(), Report> {
        let (first, second) = (self.play(loaded, 1)?, self.play(loaded, 1)?);
        if first == second {
            return Ok(());
        }
        let i = first_difference(&first, &second);
        Err(self.problem(format!(
            "the same random game (seed 1), played twice, went otherwise the second time (from action {i}): {GOES_OTHERWISE}"
        )))
    }

    /// Plays games 2 to `games` on the same load; a game that fails is played again on a fresh
    /// load, to tell state left behind from a plain failure. Returns the last games in which the
    /// mod acted, with their states.
    fn each(&self, loaded: &Loaded, acted: &dyn Fn() -> u64, games: u64) -> Result<Vec<(u64, Hashes)>, Report> {
        let mut acting = std::collections::VecDeque::new();
        for seed in 2..=games {
            let before = acted();
            match self.play(loaded, seed) {
                Ok(hashes) if acted() > before => {
                    if acting.len() == REPLAYED_ALONE {
                        acting.pop_front();
                    }
                    acting.push_back((seed, hashes));
                }
                Ok(_) => {}
                Err(failed) if self.play(&(self.fresh)()?, seed).is_ok() => {
                    let before = if seed == 2 { "seed 1".to_string() } else { format!("seeds 1 to {}", seed - 1) };
                    let message = failed.diagnostics.first().and_then(|d| d.message.lines().next()).unwrap_or_default();
                    return Err(self.problem(format!(
                        "a random game (seed {seed}) fails only after other games ({before}) were played on the \
                         same load of the mod, and plays through on its own: {GOES_OTHERWISE}. It failed with: {message}"
                    )));
                }
                Err(failed) => return Err(failed),
            }
        }
        Ok(acting.into())
    }

    /// Each game of `acting` (each costs a load and a game), played on a fresh load, must go as
    /// it went after the others.
    fn alone(&self, acting: Vec<(u64, Hashes)>) -> Result<(), Report> {
        for (seed, hashes) in acting {
            let alone = self.play(&(self.fresh)()?, seed)?;
            if alone != hashes {
                let i = first_difference(&hashes, &alone);
                return Err(self.problem(format!(
                    "random game {seed}, played after {} others on the same load of the mod, went otherwise than \
                     played on its own (from action {i}): {GOES_OTHERWISE}",
                    seed - 1
                )));
            }
        }
        Ok(())
    }

    /// What the mod's code keeps between hook calls (its handlers' locals, its globals).
    fn kept(&self, loaded: &Loaded) -> Vec<KeptValue> {
        let own = loaded.rules.expansions().iter().find(|x| x.id() == self.manifest.id);
        own.map(|x| x.kept_values()).unwrap_or_default()
    }

    /// What the mod's code keeps between hook calls must hold after the games what a fresh load
    /// holds, and what it held after the first games: a value a hook wrote keeps state, even
    /// one that playing the games again does not show (a counter read only in rare positions).
    /// A table may gain entries: a cache of what does not change in a game.
    fn kept_alike(&self, loaded: &Loaded, early: &[KeptValue]) -> Result<(), Report> {
        let (fresh, late) = (self.kept(&(self.fresh)()?), self.kept(loaded));
        fn find<'a>(values: &'a [KeptValue], v: &KeptValue) -> Option<&'a KeptValue> {
            values.iter().find(|x| x.what == v.what)
        }
        let changed = late.iter().find_map(|v| match find(&fresh, v) {
            None => Some((v, "was set".to_string())),
            Some(first) => {
                let then = find(early, v).unwrap_or(first);
                let at = first.changed_in(then).or_else(|| then.changed_in(v))?;
                Some((v, if at.is_empty() { "changed".to_string() } else { format!("changed (at `{at}`)") }))
            }
        });
        let Some((value, how)) = changed else { return Ok(()) };
        let message = format!("{} {how} while the random games were played: {KEEPS_STATE}", value.what);
        let at = HookError { location: value.place.clone(), ..HookError::new(&self.manifest.id, HookKind::Setup, "") };
        Err(self.failed(message, Some(&at)))
    }
}

/// The number of the first action (from 1) after which two games' states differ.
fn first_difference(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).take_while(|(a, b)| a == b).count() + 1
}

/// How many of the games in which a mod acted `check` plays again on their own, the last ones.
const REPLAYED_ALONE: usize = 8;

/// How to play a game `check` names again, step by step: the config it plays is two players, the
/// base game and this mod, with its defaults or in the setting `variant`, which `meeple play`
/// gets from a config file. Told as one command line that writes that file and plays it.
fn again(manifest: &Manifest, variant: Option<&Variant>, seed: u64) -> String {
    let mods = folder_above(manifest.dir()).map(|d| format!(" --mods {}", display_path(&d))).unwrap_or_default();
    let (id, file) = (&manifest.id, format!("{}-game.toml", manifest.id));
    let config = variants::printf_format(&variants::config_text(id, variant));
    format!("  to play it again: printf '{config}' > {file} && meeple play{mods} --seed {seed} --bots random {file}")
}

/// A hook error of the mod's own code, located at its file and line (`id/file:line`, as scripts
/// name their chunks) rather than at the manifest: where an editor should jump.
fn in_own_file(manifest: &Manifest, e: &HookError, message: &str) -> Option<Diagnostic> {
    let (path, line) = manifest.script_line(e)?;
    Some(Diagnostic { file: display_path(&path), line, col: 0, message: message.to_string() })
}

/// The installed expansions with the mod among them once: found in the usual folders, else in
/// its own folder of mods (its neighbours may be its dependencies), else on its own.
fn catalog_with(manifest: &Manifest, mods: &[PathBuf]) -> Catalog {
    let mut roots = mod_roots(mods);
    let catalog = Catalog::discover(&roots);
    if holds(&catalog, &manifest.path) {
        return catalog;
    }
    roots.extend(folder_above(manifest.dir()));
    let mut catalog = Catalog::discover(&roots);
    if !holds(&catalog, &manifest.path) {
        catalog.add(&manifest.path);
    }
    catalog
}

/// True when the catalog found the manifest at `path` (as an expansion, or as a duplicate).
fn holds(c: &Catalog, path: &Path) -> bool {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let own = canonical(path);
    c.manifests.values().any(|m| canonical(&m.path) == own)
        || c.duplicates.values().flatten().any(|p| canonical(p) == own)
}

/// The folder that holds `dir`, from its absolute path with `.` and `..` folded (so that `.`
/// has one too), not its canonical one: a mod linked into a folder of mods is found among them.
fn folder_above(dir: &Path) -> Option<PathBuf> {
    let absolute = normalise(&std::path::absolute(dir).ok()?);
    absolute.parent().map(Path::to_path_buf)
}

/// The folder of the mod a scenario file belongs to: the nearest folder above the file that has an
/// `expansion.toml` (`tests/`, `tests-fail/` or any other folder of the mod holds its scenarios).
pub fn mod_holding(file: &Path) -> Option<PathBuf> {
    let file = normalise(&std::path::absolute(file).ok()?);
    file.ancestors().skip(1).find(|d| d.join("expansion.toml").is_file()).map(Path::to_path_buf)
}

/// A warning for a scenario in a mod's folder whose game does not play that mod: a copy
/// of the template whose scenario still names `template` would pass while testing the original.
pub fn scenario_misses_its_mod(file: &Path) -> Option<String> {
    let dir = mod_holding(file)?;
    let manifest_path = dir.join("expansion.toml");
    let (manifest, _) = Manifest::parse_lenient(&manifest_path, &std::fs::read_to_string(&manifest_path).ok()?);
    let text = std::fs::read_to_string(file).ok()?;
    let (config, _) = GameConfig::parse_table(&file.display().to_string(), &text, "game");
    let played: Vec<&str> = std::iter::once(&config.base).chain(&config.expansions).map(|c| c.id.as_str()).collect();
    if manifest.id.is_empty() || played.contains(&manifest.id.as_str()) {
        return None;
    }
    let others: Vec<String> = played.iter().filter(|id| **id != "base").map(|id| format!("`{id}`")).collect();
    let plays = if others.is_empty() { "only the base game".to_string() } else { others.join(", ") };
    let (file, id) = (file.display(), &manifest.id);
    Some(format!(
        "{file}: this scenario is in the folder of expansion `{id}` but its game plays {plays}, so it does not \
         test `{id}`: name it in `[[game.expansions]]` (`id = \"{id}\"`)"
    ))
}

/// `mods`, and the folder above each mod that holds one of the scenario `files` ([`mod_holding`])
/// when the mods found otherwise do not include it: `meeple test mods/chapels/tests` finds
/// `chapels` (and the mods beside it) as `meeple check mods/chapels` does.
pub fn mods_holding(files: &[PathBuf], mods: &[PathBuf]) -> Vec<PathBuf> {
    let holding: std::collections::BTreeSet<PathBuf> = files.iter().filter_map(|f| mod_holding(f)).collect();
    let mut mods = mods.to_vec();
    for dir in holding {
        if !holds(&Catalog::discover(&mod_roots(&mods)), &dir.join("expansion.toml")) {
            mods.extend(folder_above(&dir));
        }
    }
    mods
}

/// The program's expansion code, except that a `[builtin]` expansion whose Rust code this
/// program lacks is checked without it (its code lives in another program, such as the tests),
/// and that the hooks of the one checked (`counted`) are counted.
struct Checking {
    counted: String,
    counts: Arc<HookCounts>,
}

impl Instantiate for Checking {
    fn instantiate(&self, sel: &Selected) -> Result<Option<Arc<dyn Expansion>>, Report> {
        match (&sel.manifest.entry, Builtin.instantiate(sel)) {
            (Entry::Builtin(_), Err(_)) => Ok(None),
            (_, Ok(Some(x))) if sel.manifest.id == self.counted => {
                Ok(Some(Arc::new(Counted { inner: x, counts: self.counts.clone() })))
            }
            (_, made) => made,
        }
    }
}

fn names(x: &dyn Expansion) -> Vec<&'static str> {
    HookKind::ALL.iter().filter(|h| x.hooks().contains(**h)).map(|h| h.name()).collect()
}

/// Compiles every script file (syntax errors with `file:line`), then, if `run` (the manifest is
/// sound), runs the entry file to collect the hooks it registers.
fn script_hooks(manifest: &Manifest, entry: &Path, run: bool) -> Result<Vec<&'static str>, Report> {
    let sel = default_selection(manifest);
    let script = Script::read(&sel, entry, Limits::default())?;
    let mut report = Report::default();
    let compiler = mlua::chunk::Compiler::new();
    for (rel, text) in &script.files {
        if let Err(e) = compiler.compile(text) {
            let (line, message) = syntax_error(&e.to_string());
            report.diagnostics.push(Diagnostic { file: display_path(&script.dir.join(rel)), line, col: 0, message });
        }
    }
    if !report.is_empty() || !run {
        // The entry file cannot run yet: the hook names it would register are read from the
        // text, so that a misspelt one is told with the problems that stop it.
        report.diagnostics.extend(unknown_hooks_written(&script));
        return if report.is_empty() { Ok(Vec::new()) } else { Err(report) };
    }
    let x = LuauExpansion::load(script, vec![sel.manifest.id.clone()])?;
    Ok(names(&x))
}

/// The names no hook has that a script's files give `meeple.on` as a literal
/// (`meeple.on("modify_scor", …)`), each at its line and worded as running the entry file
/// would report them. A name computed while the script runs is left to that run.
fn unknown_hooks_written(script: &Script) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (rel, text) in &script.files {
        for (line, name) in crate::luau::written::hook_names(text) {
            if HookKind::parse(name).is_none() {
                let file = display_path(&script.dir.join(rel));
                found.push(Diagnostic {
                    file,
                    line,
                    col: 0,
                    message: format!("{} (while loading)", unknown_hook(name)),
                });
            }
        }
    }
    found
}

/// Luau compile errors read `:LINE: message`.
fn syntax_error(text: &str) -> (usize, String) {
    let trimmed = text.trim_start_matches("syntax error: ").trim_start_matches(':');
    match trimmed.split_once(':') {
        Some((line, rest)) if line.chars().all(|c| c.is_ascii_digit()) => {
            (line.parse().unwrap_or(1), rest.trim().to_string())
        }
        _ => (1, text.to_string()),
    }
}
