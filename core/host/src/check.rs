//! `meeple check DIR`: everything that can be wrong with a mod, found without playing it — the
//! manifest, the tileset of every edition, the syntax of every script and the hooks it
//! registers, a native library's entry table, and what a game would refuse when it loads the
//! mod beside the base game and the other installed expansions.

use crate::config::{ExpansionChoice, GameConfig, Location};
use crate::load::Builtin;
use crate::luau::{Limits, LuauExpansion, Script};
use crate::manifest::{Entry, Manifest};
use crate::paths::{display_path, mod_roots};
use crate::ruleset::{Catalog, Instantiate, Selected, build, io_report, tileset_named};
use meeple_core::tileset::Tileset;
use meeple_core::{Expansion, HookKind};
use meeple_toml::{Diagnostic, Report};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a mod that passed the checks contains.
#[derive(Debug)]
pub struct Checked {
    /// The manifest.
    pub manifest: Manifest,
    /// Tiles per edition.
    pub tiles: Vec<(String, u32)>,
    /// The hooks its code registers.
    pub hooks: Vec<&'static str>,
}

/// Checks the mod in `dir` (a folder with an `expansion.toml`); reports every problem at once.
/// Besides its own files, it is loaded as a game would load it (the base game and it, in its
/// default edition, with the expansions found in the built-in folders, `mods` and the mod's own
/// parent folder), which finds what only shows with the others: a missing dependency, an id
/// installed twice, a start tile not in the ruleset.
pub fn check_mod(dir: &Path, mods: &[PathBuf]) -> Result<Checked, Report> {
    let path = dir.join("expansion.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| io_report(&path, &e))?;
    let (manifest, mut report) = Manifest::parse_lenient(&path, &text);
    let tiles = edition_tiles(&manifest, &mut report);
    let mut hooks = match &manifest.entry {
        Entry::Script(entry) => script_hooks(&manifest, entry, report.is_empty()).unwrap_or_else(|r| {
            report.extend(r);
            Vec::new()
        }),
        Entry::Native(_) | Entry::Builtin(_) | Entry::None => Vec::new(),
    };
    if report.is_empty() {
        match load_with_others(&manifest, mods) {
            Ok(loaded) => hooks = loaded,
            Err(r) => report.extend(r),
        }
    }
    if !report.is_empty() {
        report.diagnostics.dedup();
        return Err(report);
    }
    Ok(Checked { manifest, tiles, hooks })
}

/// The tiles of each edition, reading each tileset file once (editions may share one).
fn edition_tiles(manifest: &Manifest, report: &mut Report) -> Vec<(String, u32)> {
    let mut read: BTreeMap<&Path, Option<Tileset>> = BTreeMap::new();
    let mut tiles = Vec::new();
    for ed in &manifest.editions {
        let Some(ts_path) = &ed.tileset else {
            tiles.push((ed.name.clone(), 0));
            continue;
        };
        let key = format!("editions.{}.tileset", ed.name);
        let ts = read.entry(ts_path).or_insert_with(|| match tileset_named(manifest, &key, ts_path) {
            Ok((ts, _)) => Some(ts),
            Err(r) => {
                report.extend(r);
                None
            }
        });
        let Some(ts) = ts else { continue };
        match ts.edition(&ed.tileset_edition) {
            Some(i) => tiles.push((ed.name.clone(), ts.total(i))),
            None => {
                // At `tileset_edition` when it is written, else at `tileset`.
                let inner = format!("editions.{}.tileset_edition", ed.name);
                let at = if manifest.places.iter().any(|(k, _)| *k == inner) { inner } else { key };
                report.diagnostics.push(manifest.problem_at(
                    &at,
                    format!(
                        "edition `{}` uses tileset edition `{}`, which {} does not have (it has: {})",
                        ed.name,
                        ed.tileset_edition,
                        display_path(ts_path),
                        ts.editions.join(", ")
                    ),
                ));
            }
        }
    }
    tiles
}

/// Loads the base game with this mod as a game would; the hooks its code registers.
fn load_with_others(manifest: &Manifest, mods: &[PathBuf]) -> Result<Vec<&'static str>, Report> {
    let catalog = catalog_with(manifest, mods);
    let mut config = GameConfig { file: display_path(&manifest.path), ..GameConfig::default() };
    // The mod and what it depends on, transitively (a missing one is reported as unknown).
    let mut ids = vec![manifest.id.clone()];
    let mut i = 0;
    while i < ids.len() {
        let depends = catalog.manifests.get(&ids[i]).map_or(&manifest.depends, |m| &m.depends);
        for d in depends.clone() {
            if !ids.contains(&d) {
                ids.push(d);
            }
        }
        i += 1;
    }
    config.expansions = ids.iter().filter(|id| *id != "base").map(|id| ExpansionChoice::new(id)).collect();
    // Problems with the mod's own choice (installed twice, say) are the mod's `id` line's.
    if let Some(own) = config.expansions.iter_mut().find(|c| c.id == manifest.id) {
        let (line, col) = manifest.place("id");
        own.id_at = Some(Location { file: display_path(&manifest.path), line, col });
    }
    let loaded = build(&catalog, &config, &Checking)?;
    let x = loaded.rules.expansions().iter().find(|x| x.id() == manifest.id);
    Ok(x.map_or_else(Vec::new, |x| names(x.as_ref())))
}

/// The installed expansions with the mod among them once: found in the usual folders, else in
/// its own folder of mods (its neighbours may be its dependencies), else on its own.
fn catalog_with(manifest: &Manifest, mods: &[PathBuf]) -> Catalog {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let own = canonical(&manifest.path);
    let holds = |c: &Catalog| {
        c.manifests.values().any(|m| canonical(&m.path) == own)
            || c.duplicates.values().flatten().any(|p| canonical(p) == own)
    };
    let mut roots = mod_roots(mods);
    let catalog = Catalog::discover(&roots);
    if holds(&catalog) {
        return catalog;
    }
    // Canonical, so that `.` or a bare folder name has a parent.
    roots.extend(canonical(manifest.dir()).and_then(|d| d.parent().map(Path::to_path_buf)));
    let mut catalog = Catalog::discover(&roots);
    if !holds(&catalog) {
        catalog.add(&manifest.path);
    }
    catalog
}

/// The program's expansion code, except that a `[builtin]` expansion whose Rust code this
/// program lacks is checked without it (its code lives in another program, such as the tests).
struct Checking;

impl Instantiate for Checking {
    fn instantiate(&self, sel: &Selected) -> Result<Option<Arc<dyn Expansion>>, Report> {
        match (&sel.manifest.entry, Builtin.instantiate(sel)) {
            (Entry::Builtin(_), Err(_)) => Ok(None),
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
    let sel = Selected {
        manifest: manifest.clone(),
        edition: manifest.default_edition.clone(),
        options: manifest.default_options(),
    };
    let script = Script::read(&sel, entry, Limits::default())?;
    let mut report = Report::default();
    let compiler = mlua::chunk::Compiler::new();
    for (rel, text) in &script.files {
        if let Err(e) = compiler.compile(text) {
            let (line, message) = syntax_error(&e.to_string());
            report.diagnostics.push(Diagnostic { file: display_path(&script.dir.join(rel)), line, col: 1, message });
        }
    }
    if !report.is_empty() {
        return Err(report);
    }
    if !run {
        return Ok(Vec::new());
    }
    let x = LuauExpansion::load(script, vec![sel.manifest.id.clone()])?;
    Ok(names(&x))
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
