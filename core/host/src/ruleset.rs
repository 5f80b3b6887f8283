//! From files to a ruleset: discover manifests, resolve a game config against them (editions,
//! options, dependencies, conflicts, load order), load the tilesets, instantiate the expansions'
//! code, and hash everything that went in.

use crate::assembly::{Assembled, assemble, tile_number_problems};
use crate::config::{ExpansionChoice, GameConfig, Location};
use crate::manifest::{Entry, Manifest, OptionDef, OptionType};
use crate::paths::display_path;
use crate::tile_mix::{LeftOut, TileMix};
use meeple_core::{Expansion, Rules, Setup, Tileset, Value};
use meeple_toml::{Diagnostic, Report};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Every manifest found under the mod roots, valid or not.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Valid manifests, by id.
    pub manifests: BTreeMap<String, Manifest>,
    /// Manifests that failed to load, by the folder name (their problems).
    pub broken: BTreeMap<String, Report>,
    /// The ids read from manifests that failed to load, with their folder names (keys of
    /// `broken`): a config names an expansion by its id, which need not be its folder's name.
    pub broken_ids: BTreeMap<String, String>,
    /// Ids found in more than one place.
    pub duplicates: BTreeMap<String, Vec<PathBuf>>,
}

/// The expansions' folders in a folder of mods: the folder itself if it is one, and each folder
/// directly inside it that holds an `expansion.toml`, in name order.
pub fn expansion_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if root.join("expansion.toml").is_file() {
        dirs.push(root.to_path_buf());
    }
    if let Ok(entries) = std::fs::read_dir(root) {
        let mut found: Vec<PathBuf> =
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("expansion.toml").is_file()).collect();
        found.sort();
        dirs.extend(found);
    }
    dirs
}

impl Catalog {
    /// True when an expansion with this id is installed, sound or not.
    pub fn has(&self, id: &str) -> bool {
        self.manifests.contains_key(id) || self.broken_manifest(id).is_some() || self.duplicates.contains_key(id)
    }

    /// The problems of a manifest that failed to load, found by the id written in it, or else by
    /// its folder's name (its id could not be read).
    pub fn broken_manifest(&self, id: &str) -> Option<&Report> {
        self.broken_ids.get(id).and_then(|dir| self.broken.get(dir)).or_else(|| self.broken.get(id))
    }

    /// The problem of an edition of `m` that brings along (`with`) an expansion not installed,
    /// at its `with` line.
    pub fn not_brought(&self, m: &Manifest, edition: &str, id: &str) -> Diagnostic {
        let why = format!("edition `{edition}` brings along `{id}` (`with`){}", self.not_installed(id));
        m.problem_at(&format!("editions.{edition}.with"), why)
    }

    /// The problems of manifests so broken that their id could not be read (a syntax error):
    /// any of them may be the expansion a config names.
    pub fn unnamed_broken(&self) -> impl Iterator<Item = &Report> {
        let named: BTreeSet<&String> = self.broken_ids.values().collect();
        self.broken.iter().filter(move |(dir, _)| !named.contains(dir)).map(|(_, report)| report)
    }

    /// ", which is not installed" for an id the catalog lacks, with the installed id it is
    /// likely a slip of, if any.
    pub fn not_installed(&self, id: &str) -> String {
        let known: Vec<&str> = self.manifests.keys().map(String::as_str).collect();
        let hint = meeple_toml::did_you_mean(id, &known);
        format!(
            ", which is not installed{}",
            if hint.is_empty() { String::new() } else { format!("; {}", hint.trim_end()) }
        )
    }

    /// Reads `*/expansion.toml` in each root folder (a root may itself hold an `expansion.toml`).
    pub fn discover(roots: &[PathBuf]) -> Catalog {
        let mut cat = Catalog::default();
        // One folder reached twice (`--mods` and `MEEPLE_MODS` naming it, a link to it) is one
        // installation, read once.
        let mut seen = std::collections::HashSet::new();
        for root in roots {
            for dir in expansion_dirs(root) {
                if seen.insert(dir.canonicalize().unwrap_or_else(|_| dir.clone())) {
                    cat.add(&dir.join("expansion.toml"));
                }
            }
        }
        tracing::debug!(found = cat.manifests.len(), broken = cat.broken.len(), "discovered expansions");
        cat
    }

    /// Reads one manifest into the catalog.
    pub fn add(&mut self, path: &Path) {
        let key = path
            .parent()
            .and_then(|d| d.file_name())
            .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let text = match read_text(path) {
            Ok(t) => t,
            Err(r) => {
                self.broken.insert(key, r);
                return;
            }
        };
        let (m, report) = Manifest::parse_lenient(path, &text);
        if !report.is_empty() {
            if !m.id.is_empty() {
                self.broken_ids.insert(m.id, key.clone());
            }
            self.broken.insert(key, report);
        } else if let Some(prev) = self.manifests.get(&m.id) {
            self.duplicates.entry(m.id.clone()).or_insert_with(|| vec![prev.path.clone()]).push(m.path.clone());
        } else {
            self.manifests.insert(m.id.clone(), m);
        }
    }
}

/// Reads a text file (a config, manifest, tileset or script) as UTF-8, without a byte-order
/// mark, which editors on some systems write; a byte that is not UTF-8 is reported at its line
/// and column.
pub fn read_text(path: &Path) -> Result<String, Report> {
    let mut bytes = read_bounded(path)
        .map_err(|message| Report { diagnostics: vec![Diagnostic::of_file(display_path(path), message)] })?;
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let valid = e.utf8_error().valid_up_to();
        let before = std::str::from_utf8(&bytes[..valid]).expect("valid up to there");
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let message = format!("byte 0x{:02X} is not UTF-8 (files are read as UTF-8)", bytes[valid]);
        Report { diagnostics: vec![Diagnostic { file: display_path(path), line, col, message }] }
    })
}

/// What a path names that is there but is no file meeple reads.
pub(crate) const NOT_A_PLAIN_FILE: &str = "is not a plain file (a device, a pipe or a socket)";

/// The largest text file meeple reads: many times any config, manifest, tileset or script,
/// and a bound on what a path a client of `meeple serve` names can make it read.
pub const MAX_TEXT_FILE: u64 = 16 << 20;

/// A file's bytes, or why they cannot be had, in words. What is not a plain file is refused
/// before it is opened (a pipe would wait for a writer, a device such as `/dev/zero` never
/// ends), and so is a file larger than [`MAX_TEXT_FILE`]: every file meeple reads (a replay, a
/// scenario too) is read so, since any may be named by mistake.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let failed = |e: std::io::Error| io_message(path, &e);
    let meta = std::fs::metadata(path).map_err(failed)?;
    if meta.is_dir() {
        return Err("is a folder, not a file".to_string());
    }
    if !meta.is_file() {
        return Err(format!("{NOT_A_PLAIN_FILE}: meeple reads text files"));
    }
    let too_large = || format!("is larger than {} MiB: meeple reads text files of at most that", MAX_TEXT_FILE >> 20);
    if meta.len() > MAX_TEXT_FILE {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One that grows while it is read is cut at the limit, and refused.
    std::fs::File::open(path).and_then(|f| f.take(MAX_TEXT_FILE + 1).read_to_end(&mut bytes)).map_err(failed)?;
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(too_large());
    }
    Ok(bytes)
}

/// A report with one problem about a file that could not be read.
pub fn io_report(path: &Path, e: &std::io::Error) -> Report {
    Report { diagnostics: vec![Diagnostic::of_file(display_path(path), io_message(path, e))] }
}

/// Why a file could not be read, in words.
fn io_message(path: &Path, e: &std::io::Error) -> String {
    if path.is_dir() {
        "is a folder, not a file".to_string()
    } else {
        format!("cannot read: {e}{}", crate::paths::hint_for_missing(path))
    }
}

/// One expansion as it takes part in a game.
#[derive(Clone, Debug)]
pub struct Selected {
    /// Its manifest.
    pub manifest: Manifest,
    /// The edition played.
    pub edition: String,
    /// Every option with its value (defaults filled in).
    pub options: BTreeMap<String, Value>,
    /// The numbers of its tiles the config asks for.
    pub tiles: TileMix,
}

/// Makes the code of an expansion into a hook implementation. `meeple-host` provides the Luau and
/// native ones; tests may add their own.
pub trait Instantiate {
    /// `Ok(None)` for expansions without code.
    fn instantiate(&self, sel: &Selected) -> Result<Option<Arc<dyn Expansion>>, Report>;
}

/// A ruleset ready to play, with what it was built from.
#[derive(Debug)]
pub struct Loaded {
    /// The rules.
    pub rules: Arc<Rules>,
    /// The config, with the edition each choice plays written in where it took the default.
    pub config: GameConfig,
    /// The expansions in load order (the base game first).
    pub selected: Vec<Selected>,
    /// The config's tile numbers that play but may not be meant, each at its place.
    tile_warnings: Vec<Diagnostic>,
    /// The tiles the config's numbers leave out, which may explain a warning.
    left_out: Vec<LeftOut>,
}

impl Loaded {
    /// The file and line of a failing hook as a path from here (`mods/chapels/init.luau:38`),
    /// where an editor can open it: a script names its place by its expansion's id
    /// (`chapels/init.luau:38`), which is a path only when the mod's folder has that name.
    pub fn file_of(&self, e: &meeple_core::HookError) -> Option<String> {
        let manifest = &self.selected.iter().find(|s| s.manifest.id == e.expansion)?.manifest;
        let (path, line) = manifest.script_line(e)?;
        Some(format!("{}:{line}", display_path(&path)))
    }

    /// The native libraries of the game that may not be the builds their authors mean: built
    /// before their crate's sources last changed, or hiding a newer copy further down the search
    /// (`docs/modding.md`). One sentence each, saying what to do.
    pub fn stale_libraries(&self) -> Vec<String> {
        self.native_libraries().flat_map(|(m, library)| crate::plugin_files::stale(library, m.dir())).collect()
    }

    /// The file of each native plugin the game plays, by expansion id: the build this process
    /// opened (or would open), found as `docs/modding.md` describes.
    pub fn library_files(&self) -> Vec<(&str, Result<PathBuf, String>)> {
        self.native_libraries()
            .map(|(m, library)| (m.id.as_str(), crate::plugin_files::played(library, m.dir())))
            .collect()
    }

    /// The native plugins of the game: each one's manifest and its `[native] library`.
    pub fn native_libraries(&self) -> impl Iterator<Item = (&Manifest, &str)> {
        self.selected.iter().filter_map(|s| match &s.manifest.entry {
            Entry::Native(library) => Some((&s.manifest, library.as_str())),
            _ => None,
        })
    }

    /// Editions played together that an edition was not made for (its manifest's `made_for`):
    /// the game runs, but not as its rules were written; tags of a `[draw]` that no tile of
    /// the game carries; tile numbers of the config that may not be meant; options the config
    /// sets that do nothing in the edition played. One sentence each.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = self.unmatched_draw_tags();
        out.extend(self.tile_warnings.iter().map(Diagnostic::to_string));
        out.extend(self.options_out_of_edition());
        for s in &self.selected {
            let Some(edition) = s.manifest.edition(&s.edition) else { continue };
            for m in &edition.made_for {
                let Some(other) = self.selected.iter().find(|o| o.manifest.id == m.expansion) else { continue };
                let why = m.why.as_deref().map(|w| format!(": {w}")).unwrap_or_default();
                let made_for = |what: String, not: &str| {
                    format!(
                        "{} {} is made for {} {what}, not {not}{why}",
                        s.manifest.name, s.edition, other.manifest.name
                    )
                };
                if !m.editions.is_empty() && !m.editions.contains(&other.edition) {
                    out.push(made_for(m.editions.join(" or "), &other.edition));
                }
                for (name, values) in &m.options {
                    let Some(Value::Str(set)) = other.options.get(name) else { continue };
                    if !values.contains(set) {
                        let with = |v: &String| format!("{name} = {v}");
                        let what = format!("with {}", values.iter().map(with).collect::<Vec<_>>().join(" or "));
                        out.push(made_for(what, &with(set)));
                    }
                }
            }
        }
        out
    }

    /// The options the config sets that the manifest says play only in other editions than
    /// the one chosen: set there, they change nothing.
    fn options_out_of_edition(&self) -> Vec<String> {
        let mut out = Vec::new();
        let choices = std::iter::once(&self.config.base).chain(&self.config.expansions);
        for s in &self.selected {
            let Some(choice) = choices.clone().find(|c| c.id == s.manifest.id) else { continue };
            for (name, set) in &choice.options {
                let def = s.manifest.options.iter().find(|o| &o.name == name);
                let Some(editions) = def.and_then(|o| o.editions.as_ref()) else { continue };
                if editions.contains(&s.edition) {
                    continue;
                }
                let why = format!(
                    "option `{name}` of {} plays only in {}: in {} it changes nothing",
                    s.manifest.name,
                    editions.join(", "),
                    s.edition
                );
                out.push(match &set.name_at {
                    Some(at) => format!("{at}: {why}"),
                    None => why,
                });
            }
        }
        out
    }

    /// Names the places in the config of its own warnings (its tile numbers) anew: a config
    /// made from other text than a file's (the protocol's JSON objects) names them by field.
    pub fn relocate_config_warnings(&mut self, place: impl Fn(&Diagnostic) -> Diagnostic) {
        self.tile_warnings = self.tile_warnings.iter().map(place).collect();
    }

    /// The tags of a `[draw]` (`first`, `last`) that no tile in the game carries, each at its
    /// line. Not errors: a stack drawn first takes tiles of any expansion by their tag, and a
    /// game without them simply has none (yet a misspelt tag reads the same, hence the warning).
    fn unmatched_draw_tags(&self) -> Vec<String> {
        let in_game = |tag: &str| {
            let tiles = self.rules.tiles().iter().zip(self.rules.counts());
            tiles.filter(|(_, n)| **n > 0).any(|(t, _)| t.def.tags.iter().any(|x| x == tag))
        };
        let mut out = Vec::new();
        for s in &self.selected {
            let Some(draw) = &s.manifest.draw else { continue };
            for (key, tag, what) in [
                ("draw.first", &draw.first, "no tiles are drawn first"),
                ("draw.last", &draw.last, "none of the tiles drawn first waits for the others"),
            ] {
                if let Some(tag) = tag.as_deref().filter(|t| !in_game(t)) {
                    let why = format!("no tile of this game is tagged `{tag}`, so {what}{}", self.left_out_with(tag));
                    out.push(s.manifest.problem_at(key, why).to_string());
                }
            }
        }
        out
    }

    /// The tiles tagged `tag` that the config's own numbers leave out, as said after a warning
    /// they explain.
    fn left_out_with(&self, tag: &str) -> String {
        let tagged = self.left_out.iter().filter(|t| t.tags.iter().any(|x| x == tag));
        let zero: Vec<String> = tagged.map(LeftOut::shown).collect();
        if zero.is_empty() { String::new() } else { format!(" (the config gives 0 to: {})", zero.join(", ")) }
    }

    /// Players, seed and draw order for `Game::new`; `seed` is used only when the config has
    /// none, so that a config's own seed gives its one game. For many games of one config
    /// (a simulation, a search), [`Loaded::setup_seeded`].
    pub fn setup(&self, seed: u64) -> Setup {
        self.setup_seeded(self.config.seed_or(seed))
    }

    /// Players and draw order for `Game::new`, with this seed whatever the config says.
    pub fn setup_seeded(&self, seed: u64) -> Setup {
        Setup {
            players: self.config.players.clone(),
            seed,
            draw: self.config.draw.clone(),
            tile_limit: self.config.tile_limit,
        }
    }
}

struct Problems<'a> {
    config: &'a GameConfig,
    report: Report,
}

impl Problems<'_> {
    fn at(&mut self, loc: Option<&Location>, message: String) {
        self.report.diagnostics.push(match loc {
            Some(l) => Diagnostic { file: l.file.clone(), line: l.line, col: l.col, message },
            None => Diagnostic::of_file(self.config.file.clone(), message),
        });
    }
}

/// Resolves a config against the catalog and builds the ruleset; every problem at once.
pub fn build(catalog: &Catalog, config: &GameConfig, code: &dyn Instantiate) -> Result<Loaded, Report> {
    let mut p = Problems { config, report: Report::default() };
    let choices: Vec<&ExpansionChoice> = std::iter::once(&config.base).chain(&config.expansions).collect();
    let mut selected: Vec<Selected> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for choice in &choices {
        let twice = !seen.insert(choice.id.as_str());
        if twice && choice.id == config.base.id {
            let what =
                format!("`{}` is the base game, chosen by `[base]` (or by default): not an expansion", choice.id);
            p.at(choice.id_at.as_ref(), what);
        } else if twice {
            p.at(choice.id_at.as_ref(), format!("expansion `{}` is chosen twice", choice.id));
        }
        // A second choice is still read, so that its own mistakes show with the first report.
        if let Some(sel) = select(catalog, choice, &mut p).filter(|_| !twice) {
            selected.push(sel);
        }
    }
    add_companions(catalog, &mut selected, &choices, &mut p);
    check_relations(catalog, &selected, &choices, &mut p);
    // Ordered even when other problems were found, so that a cycle is reported with them.
    let selected = load_order(selected, &choices, &mut p);
    if !p.report.is_empty() {
        // The expansions are still put together when every one chosen could be (its options
        // aside) and nothing they depend on is missing, so that their own files' problems and
        // the draw order's show with the config's. Without one of them they would only add
        // false ones (no base game: no tiles); the tile numbers of those found are still checked.
        let complete = choices.iter().all(|c| selected.iter().any(|s| s.manifest.id == c.id));
        if complete && closed(&selected) {
            match assemble(&selected, &config.file, code) {
                Ok(a) => check_draw(&a, &mut p),
                Err(r) => p.report.extend(r),
            }
        } else {
            p.report.extend(tile_number_problems(&selected, &config.file));
        }
        return Err(sorted(p.report));
    }
    let assembled = assemble(&selected, &config.file, code)?;
    check_draw(&assembled, &mut p);
    let Assembled { rules, tile_warnings, left_out, .. } = assembled;
    if !p.report.is_empty() {
        return Err(sorted(p.report));
    }
    let order: Vec<String> = selected.iter().map(|s| format!("{} {}", s.manifest.id, s.edition)).collect();
    tracing::info!(expansions = %order.join(", "), hash = rules.hash(), "ruleset built");
    let config = with_editions(config, &selected);
    Ok(Loaded { rules: Arc::new(rules), config, selected, tile_warnings, left_out })
}

/// The config with the edition each choice plays written in where it took the default, so
/// that a replay names what was played even should a later version change a default.
fn with_editions(config: &GameConfig, selected: &[Selected]) -> GameConfig {
    let mut config = config.clone();
    for choice in std::iter::once(&mut config.base).chain(&mut config.expansions) {
        if choice.edition.is_none() {
            choice.edition = selected.iter().find(|s| s.manifest.id == choice.id).map(|s| s.edition.clone());
        }
    }
    config
}

/// Whether every expansion's dependencies are among the expansions.
fn closed(selected: &[Selected]) -> bool {
    let has = |id: &String| selected.iter().any(|s| s.manifest.id == *id);
    selected.iter().all(|s| s.manifest.depends.iter().all(has))
}

/// Every tile of a fixed draw order must name one tile kind of the ruleset; one the config's
/// numbers leave out is said to be.
fn check_draw(a: &Assembled, p: &mut Problems<'_>) {
    let Some(draw) = &p.config.draw else { return };
    for (i, name) in draw.iter().enumerate() {
        if let Err(why) = a.rules.tile_by_name(name) {
            let why = if let Some(t) = a.left_out.iter().find(|t| t.is_named(name)) {
                format!("{why} (the config's `tiles` for `{}` leave it out)", t.expansion)
            } else if let Some(t) = a.other_editions.iter().find(|t| t.is_named(name)) {
                t.why(name)
            } else {
                why
            };
            p.at(p.config.draw_at.get(i), format!("draw order: {why}"));
        }
    }
}

/// Problems of one file in file order (problems of other files stay where they are).
fn sorted(mut r: Report) -> Report {
    r.diagnostics.sort_by(|a, b| (&a.file, a.line, a.col).cmp(&(&b.file, b.line, b.col)));
    r
}

fn select(catalog: &Catalog, choice: &ExpansionChoice, p: &mut Problems<'_>) -> Option<Selected> {
    if let Some(paths) = catalog.duplicates.get(&choice.id) {
        let list: Vec<String> = paths.iter().map(|x| x.display().to_string()).collect();
        p.at(
            choice.id_at.as_ref(),
            format!(
                "expansion `{}` is installed more than once: {}; keep one, or give a copy an id of its own (`id` \
                 in its expansion.toml)",
                choice.id,
                list.join(", ")
            ),
        );
        return None;
    }
    // One problem, its manifest's listed inside it: sorting by file keeps them together.
    let listed = |report: &Report| report.diagnostics.iter().map(|d| format!("\n  {d}")).collect::<String>();
    // A copy that does not load is a copy all the same (the one being edited, likely): which
    // of the two a game would play is not for meeple to guess.
    if let (Some(m), Some(report)) =
        (catalog.manifests.get(&choice.id), catalog.broken_ids.get(&choice.id).and_then(|d| catalog.broken.get(d)))
    {
        let why = format!(
            "expansion `{}` is installed more than once: {}, and a copy whose manifest has problems:{}",
            choice.id,
            m.path.display(),
            listed(report)
        );
        p.at(choice.id_at.as_ref().or(choice.at.as_ref()), why);
        return None;
    }
    let Some(m) = catalog.manifests.get(&choice.id) else {
        match catalog.broken_manifest(&choice.id) {
            Some(report) => {
                p.at(
                    choice.id_at.as_ref().or(choice.at.as_ref()),
                    format!("expansion `{}` cannot be loaded; its manifest has problems:{}", choice.id, listed(report)),
                );
            }
            None => {
                let known: Vec<&str> = catalog.manifests.keys().map(String::as_str).collect();
                // A manifest whose id could not be read may be the one meant: its problems are
                // the likely answer, and nothing else would show them.
                let unread: String = catalog.unnamed_broken().map(listed).collect();
                let unread = if unread.is_empty() {
                    unread
                } else {
                    format!("; manifests whose id could not be read (is it one of them?):{unread}")
                };
                p.at(
                    choice.id_at.as_ref(),
                    format!(
                        "unknown expansion `{}`; {}installed: {} (expansions elsewhere are found with \
                         `--mods DIR` or the folders in `MEEPLE_MODS`){unread}",
                        choice.id,
                        meeple_toml::did_you_mean(&choice.id, &known),
                        known.join(", ")
                    ),
                );
            }
        }
        return None;
    };
    let edition = match &choice.edition {
        Some(e) if m.edition(e).is_some() => Some(e.clone()),
        Some(e) => {
            let names: Vec<&str> = m.editions.iter().map(|x| x.name.as_str()).collect();
            p.at(
                choice.edition_at.as_ref(),
                format!(
                    "`{}` has no edition `{e}`; {}expected one of: {}",
                    m.id,
                    meeple_toml::did_you_mean(e, &names),
                    names.join(", ")
                ),
            );
            None
        }
        None => Some(m.default_edition.clone()),
    };
    let mut options = m.default_options(edition.as_deref().unwrap_or(&m.default_edition));
    for (name, given) in &choice.options {
        match m.option(name) {
            Some(def) => match def.check(&given.value) {
                Ok(()) => {
                    options.insert(name.clone(), given.value.clone());
                }
                Err(e) => p.at(given.at.as_ref(), e),
            },
            None => p.at(given.name_at.as_ref().or(given.at.as_ref()), unknown_option(m, name)),
        }
    }
    let edition = edition?;
    Some(Selected { manifest: m.clone(), edition, options, tiles: TileMix::of(choice) })
}

/// Adds the expansions an edition brings along (`with`), with their defaults, unless chosen.
fn add_companions(catalog: &Catalog, selected: &mut Vec<Selected>, choices: &[&ExpansionChoice], p: &mut Problems<'_>) {
    let mut i = 0;
    while i < selected.len() {
        let with = selected[i].manifest.edition(&selected[i].edition).map(|e| e.with.clone()).unwrap_or_default();
        for id in with {
            if selected.iter().any(|s| s.manifest.id == id) {
                continue;
            }
            if !catalog.has(&id) {
                // The manifest's mistake, not the config's.
                p.report.diagnostics.push(catalog.not_brought(&selected[i].manifest, &selected[i].edition, &id));
                continue;
            }
            let choice = ExpansionChoice {
                id_at: choices
                    .iter()
                    .find(|c| c.id == selected[i].manifest.id)
                    .and_then(|c| c.edition_at.clone().or(c.at.clone())),
                ..ExpansionChoice::new(&id)
            };
            if let Some(sel) = select(catalog, &choice, p) {
                selected.push(sel);
            }
        }
        i += 1;
    }
}

fn unknown_option(m: &Manifest, name: &str) -> String {
    if m.options.is_empty() {
        return format!("`{}` has no options (found `{name}`)", m.id);
    }
    // The values in short: the full `describe_type` of each, in one list, nests brackets.
    let values = |ty: &OptionType| match ty {
        OptionType::Bool => "true | false".to_string(),
        OptionType::Int { min, max } => {
            crate::manifest::range_words(*min, *max).unwrap_or_else(|| "an integer".to_string())
        }
        OptionType::Enum(values) => values.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(" | "),
    };
    let list: Vec<String> = m.options.iter().map(|o: &OptionDef| format!("{} ({})", o.name, values(&o.ty))).collect();
    let names: Vec<&str> = m.options.iter().map(|o| o.name.as_str()).collect();
    format!(
        "unknown option `{name}` for `{}`; {}it has: {}",
        m.id,
        meeple_toml::did_you_mean(name, &names),
        list.join(", ")
    )
}

fn check_relations(catalog: &Catalog, selected: &[Selected], choices: &[&ExpansionChoice], p: &mut Problems<'_>) {
    // A choice that could not be selected (an unknown edition, say) still counts as chosen: its
    // own problem is reported, and its dependants should not get a second, false one.
    let chosen: BTreeSet<&str> =
        selected.iter().map(|s| s.manifest.id.as_str()).chain(choices.iter().map(|c| c.id.as_str())).collect();
    // What an expansion not chosen depends on is missing too: told now, not once it is added.
    let direct: BTreeSet<&str> = selected.iter().flat_map(|s| s.manifest.depends.iter().map(String::as_str)).collect();
    let mut told_indirect: BTreeSet<&str> = BTreeSet::new();
    for s in selected {
        let at = choices.iter().find(|c| c.id == s.manifest.id).and_then(|c| c.id_at.as_ref().or(c.at.as_ref()));
        // Each manifest whose dependencies are looked at, and the one that led to it (none for
        // the chosen one itself).
        let mut queue: Vec<(&Manifest, Option<&str>)> = vec![(&s.manifest, None)];
        let mut seen: BTreeSet<&str> = BTreeSet::from([s.manifest.id.as_str()]);
        while let Some((m, via)) = queue.pop() {
            for d in m.depends.iter().filter(|d| !chosen.contains(d.as_str())) {
                if !seen.insert(d) || (via.is_some() && (direct.contains(d.as_str()) || !told_indirect.insert(d))) {
                    continue;
                }
                let through = via.map(|_| format!(" through `{}`", m.id)).unwrap_or_default();
                if !catalog.has(d) {
                    let (line, _) = m.place(&format!("depends.{d}"));
                    let file = crate::paths::display_path(&m.path);
                    let why = format!(
                        "`{}` depends on `{d}`{through} ({file}:{line}){}",
                        s.manifest.id,
                        catalog.not_installed(d)
                    );
                    p.at(at, why);
                    continue;
                }
                let why =
                    format!("`{}` depends on `{d}`{through}; add it to the config's [[expansions]]", s.manifest.id);
                p.at(at, why);
                // A manifest that does not load, or is installed twice, is told once it is added.
                if let Some(next) = catalog.manifests.get(d).filter(|_| catalog.broken_manifest(d).is_none()) {
                    queue.push((next, Some(d)));
                }
            }
        }
        for c in &s.manifest.conflicts {
            // Two that name each other are one conflict, told once: at the later of the two.
            let told_at_other = || {
                let mut later = selected.iter().skip_while(|o| o.manifest.id != s.manifest.id).skip(1);
                later.any(|o| o.manifest.id == *c && o.manifest.conflicts.contains(&s.manifest.id))
            };
            if chosen.contains(c.as_str()) && !told_at_other() {
                p.at(at, format!("`{}` conflicts with `{c}`; they cannot be played together", s.manifest.id));
            }
        }
    }
}

/// Dependencies first, then by id; a cycle is an error naming the expansions on it.
fn load_order(mut selected: Vec<Selected>, choices: &[&ExpansionChoice], p: &mut Problems<'_>) -> Vec<Selected> {
    let ids: BTreeSet<String> = selected.iter().map(|s| s.manifest.id.clone()).collect();
    let needs = |s: &Selected| -> BTreeSet<String> {
        s.manifest.depends.iter().chain(&s.manifest.optional_depends).filter(|d| ids.contains(*d)).cloned().collect()
    };
    let mut done: Vec<String> = Vec::new();
    let mut order = Vec::new();
    while !selected.is_empty() {
        let ready: Option<usize> = selected
            .iter()
            .enumerate()
            .filter(|(_, s)| needs(s).iter().all(|d| done.contains(d)))
            .min_by_key(|(_, s)| (s.manifest.id != "base", s.manifest.id.clone()))
            .map(|(i, _)| i);
        match ready {
            Some(i) => {
                let s = selected.remove(i);
                done.push(s.manifest.id.clone());
                order.push(s);
            }
            None => {
                let cycle = a_cycle(&selected, |s| needs(s).into_iter().filter(|d| !done.contains(d)).collect());
                let at = choices.iter().find(|c| c.id == cycle[0]).and_then(|c| c.id_at.as_ref());
                p.at(at, format!("dependency cycle: {}", cycle.join(" → ")));
                break;
            }
        }
    }
    order
}

/// A dependency cycle among expansions none of which is ready (each waits on another of them,
/// `waits_on` giving the ids): followed from the first one until an id comes round again, and
/// told from there, closed (`a → b → a`). An expansion that only waits on the cycle is left out.
fn a_cycle(waiting: &[Selected], waits_on: impl Fn(&Selected) -> Vec<String>) -> Vec<String> {
    let by_id = |id: &str| waiting.iter().find(|s| s.manifest.id == id);
    let mut path: Vec<String> = vec![waiting[0].manifest.id.clone()];
    loop {
        let last = by_id(path.last().expect("the path starts with one id")).expect("a waiting expansion");
        // Each waits on at least one other waiting expansion, or it would be ready.
        let next = waits_on(last).into_iter().next().expect("a waiting expansion waits on another");
        if let Some(start) = path.iter().position(|id| *id == next) {
            let mut cycle = path.split_off(start);
            cycle.push(next);
            return cycle;
        }
        path.push(next);
    }
}

/// The regular files with an extension under a folder, recursively, as paths under `dir`. A
/// link is followed only to a place inside `dir`: a mod's scripts are its own files, and links
/// that loop are walked once. Pipes and devices are left alone (reading one could wait forever).
pub fn collect_files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(root) = dir.canonicalize() else { return };
    let mut seen = std::collections::HashSet::from([root.clone()]);
    walk(dir, &root, ext, &mut seen, out);
}

fn walk(dir: &Path, root: &Path, ext: &str, seen: &mut std::collections::HashSet<PathBuf>, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(real) = path.canonicalize() else { continue };
        let Ok(meta) = std::fs::metadata(&real) else { continue };
        if !real.starts_with(root) {
            continue;
        }
        if meta.is_dir() {
            if seen.insert(real) {
                walk(&path, root, ext, seen, out);
            }
        } else if meta.is_file() && path.extension().is_some_and(|x| x == ext) {
            out.push(path);
        }
    }
}

/// A tileset a manifest names at `key`, with its text; a file that cannot be read is reported at
/// that key.
pub fn tileset_named(manifest: &Manifest, key: &str, path: &Path) -> Result<(Tileset, String), Report> {
    if !path.is_file() {
        let what = if path.is_dir() { "is a folder, not a file" } else { "does not exist" };
        let beside = tilesets_beside(path);
        let hint = match beside.as_slice() {
            [] => String::new(),
            names => format!("; tilesets in its folder: {}", meeple_core::describe::quoted_list(names)),
        };
        let why = format!("tileset `{}` {what}{hint}", display_path(path));
        return Err(Report { diagnostics: vec![manifest.problem_at(key, why)] });
    }
    load_tileset(path)
}

/// The names of the tileset files (TOML with a `[tileset]` table) in the folder `path` names a
/// file of, for a misspelt tileset path.
fn tilesets_beside(path: &Path) -> Vec<String> {
    let Some(Ok(entries)) = path.parent().map(std::fs::read_dir) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| crate::config::is_tileset(&t)))
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// Reads and validates a tileset file; returns its text too (for the ruleset hash).
pub fn load_tileset(path: &Path) -> Result<(Tileset, String), Report> {
    let text = read_text(path)?;
    let name = display_path(path);
    let ts = Tileset::parse(&name, &text)?;
    Ok((ts, text))
}
