//! `meeple new DIR`: a new mod, copied from the template mod (`scripts/template`: a tile, a rule
//! and a scenario test) under an id of its own, with a game config that plays it.
//!
//! The copy is the template with its id replaced wherever the template names itself (the
//! manifest's and the tileset's `id`, the scenario's expansion and `source`), then read back as
//! a manifest: a template that named itself somewhere else would make a copy that installs a
//! second `template`, and is refused rather than written.

use crate::manifest::{Manifest, is_id};
use crate::paths::{data_root, display_path, mod_roots, normalise};
use crate::ruleset::Catalog;
use std::path::{Path, PathBuf};

/// The template's id, which the copy replaces.
const TEMPLATE: &str = "template";

/// A mod made by [`create`].
#[derive(Debug)]
pub struct NewMod {
    /// Its id.
    pub id: String,
    /// Its folder.
    pub dir: PathBuf,
    /// The files written, in the order written.
    pub files: Vec<PathBuf>,
}

impl NewMod {
    /// The game config that plays it (`game.toml` in its folder).
    pub fn game(&self) -> PathBuf {
        self.dir.join(GAME)
    }

    /// The command that plays that game, from the working folder.
    pub fn play_command(&self) -> String {
        play_command(&self.dir)
    }
}

/// The name of the game config a new mod comes with.
const GAME: &str = "game.toml";

/// `meeple play` with the folder above the mod's as a mod folder, and the mod's game config.
fn play_command(dir: &Path) -> String {
    let mods = dir.parent().map_or_else(|| ".".into(), display_path);
    format!("meeple play --mods {mods} {}", display_path(&dir.join(GAME)))
}

/// The template mod shipped with meeple.
pub fn template_dir() -> PathBuf {
    data_root().join("scripts").join(TEMPLATE)
}

/// Makes a mod in `dir`, a folder that does not exist yet or is empty, from the template at
/// `template`; its id is `id`, else the folder's name. `mods` are the extra mod folders, whose
/// expansions the id may not repeat (nor those beside `dir`). On an error nothing is written.
pub fn create(template: &Path, dir: &Path, id: Option<&str>, mods: &[PathBuf]) -> Result<NewMod, String> {
    make(dir, id, mods, SCRIPT_GAME_SEED, |dir, id| {
        let sources = template_files(template)?;
        sources.iter().map(|(rel, text)| Ok((dir.join(rel), renamed(rel, text, id, dir)?))).collect()
    })
}

/// The plugin of the modding guide, `plugins/fixtures/long-roads`: the template of a native
/// plugin.
pub fn native_template_dir() -> PathBuf {
    data_root().join("plugins").join("fixtures").join(NATIVE_TEMPLATE)
}

/// The native template's id, which the copy replaces.
const NATIVE_TEMPLATE: &str = "long-roads";

/// The seed of the game config a new script mod comes with: a game in which the template's rule
/// shows (a monastery beside a completed city), as the modding guide says. A test plays it.
const SCRIPT_GAME_SEED: u64 = 3;

/// The seed of the game config a new native plugin comes with: a game in which the native
/// template's rule shows (a completed road of five tiles). A test plays it.
const NATIVE_GAME_SEED: u64 = 2;

/// Makes a native plugin in `dir`, as [`create`] makes a script mod, from the native template
/// at `template` ([`native_template_dir`]): a Rust crate of its own (its `Cargo.toml` names the
/// SDK of this source tree), its manifest, its scenario, and a game config. Its id names the
/// crate too, so it starts with a letter.
pub fn create_native(template: &Path, dir: &Path, id: Option<&str>, mods: &[PathBuf]) -> Result<NewMod, String> {
    make(dir, id, mods, NATIVE_GAME_SEED, |dir, id| {
        if !id.starts_with(|c: char| c.is_ascii_lowercase()) {
            return Err(format!("`{id}` cannot name a native plugin: its Rust crate's name must start with a letter"));
        }
        let mut files = Vec::new();
        for (rel, text) in template_files(template)? {
            // The template's Cargo.toml is a member of meeple's workspace: the copy gets its own.
            if rel != Path::new("Cargo.toml") {
                files.push((dir.join(&rel), native_renamed(&rel, &text, id)?));
            }
        }
        files.push((dir.join("Cargo.toml"), native_cargo_toml(id)));
        Ok(files)
    })
}

/// What [`create`] and [`create_native`] share: the folder and the id checked, the files that
/// `files` makes for them written with a game config, and the copy read back.
fn make(
    dir: &Path,
    id: Option<&str>,
    mods: &[PathBuf],
    seed: u64,
    files: impl FnOnce(&Path, &str) -> Result<Vec<(PathBuf, String)>, String>,
) -> Result<NewMod, String> {
    // Absolute and folded, so that `.` and `mods/..` have a name and the folder above them.
    let dir = &normalise(&std::path::absolute(dir).map_err(|e| format!("{}: {e}", display_path(dir)))?);
    let id = choose_id(dir, id)?;
    refuse_used(dir)?;
    refuse_taken(&id, dir, mods)?;
    let mut files = files(dir, &id)?;
    files.push((dir.join(GAME), game_config(&id, dir, seed)));
    let made = write_new(dir, &files)?;
    // Read back: the copy must be an expansion of the new id and nothing else.
    let manifest = dir.join("expansion.toml");
    let read = std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", display_path(&manifest)));
    let parsed = read.and_then(|text| Manifest::parse(&manifest, &text).map_err(|r| r.to_string()));
    match parsed {
        Ok(m) if m.id == id => {}
        Ok(m) => return Err(undo(dir, made, format!("the template's copy has the id `{}`, not `{id}`", m.id))),
        Err(why) => return Err(undo(dir, made, format!("the template's copy does not read: {why}"))),
    }
    Ok(NewMod { id, dir: dir.to_path_buf(), files: files.into_iter().map(|(p, _)| p).collect() })
}

/// A native template's file as the new plugin's: its id (and its library's name, the id with
/// `_` for `-`) replaced where it names itself, and the comments that say it is the guide's
/// left out. Each place must be found, or the template has changed under this code.
fn native_renamed(rel: &Path, text: &str, id: &str) -> Result<String, String> {
    let library = id.replace('-', "_");
    let old_library = NATIVE_TEMPLATE.replace('-', "_");
    let quoted = |s: &str| format!("\"{s}\"");
    let (replace, comment): (Vec<(String, String, usize)>, &str) = match rel.to_str() {
        Some("expansion.toml") => (
            vec![
                (format!("id = {}", quoted(NATIVE_TEMPLATE)), format!("id = {}", quoted(id)), 1),
                (format!("library = {}", quoted(&old_library)), format!("library = {}", quoted(&library)), 1),
            ],
            "#",
        ),
        Some("src/lib.rs") => (vec![(quoted(NATIVE_TEMPLATE), quoted(id), 2)], "//!"),
        _ if rel.extension().is_some_and(|e| e == "toml") => {
            (vec![(format!("id = {}", quoted(NATIVE_TEMPLATE)), format!("id = {}", quoted(id)), 1)], "#")
        }
        _ => return Ok(text.to_string()),
    };
    // The header comment is the template's own story.
    let body: String =
        text.lines().skip_while(|l| l.starts_with(comment) || l.is_empty()).map(|l| format!("{l}\n")).collect();
    let mut out = body;
    for (from, to, times) in replace {
        let found = out.matches(&from).count();
        if found != times {
            return Err(format!("the native template's {} has {found} `{from}`, not {times}", rel.display()));
        }
        out = out.replace(&from, &to);
    }
    Ok(out)
}

/// The new plugin's `Cargo.toml`: a crate of its own, built on this source tree's SDK.
fn native_cargo_toml(id: &str) -> String {
    let sdk = normalise(&data_root().join("plugins").join("sdk")).display().to_string().replace('\\', "/");
    format!(
        "[package]\nname = \"{id}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n\
         [dependencies]\nmeeple-plugin-sdk = {{ path = {} }}\n\n\
         # A crate of its own, not a member of meeple's workspace.\n[workspace]\n",
        toml::Value::String(sdk)
    )
}

/// The id asked for, or the folder's name; either must be one an expansion may have.
fn choose_id(dir: &Path, id: Option<&str>) -> Result<String, String> {
    let (id, from) = match id {
        Some(id) => (id.to_string(), "--id"),
        None => {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (name, "the folder's name")
        }
    };
    if !is_id(&id) {
        return Err(format!(
            "`{id}` ({from}) cannot be an expansion's id: it may use only a-z, 0-9, '-' and '_'; give one with --id"
        ));
    }
    Ok(id)
}

/// Refuses an id an installed expansion has, or one beside the new folder (where `meeple check`
/// and `meeple test` look too): two installed expansions may not share one.
fn refuse_taken(id: &str, dir: &Path, mods: &[PathBuf]) -> Result<(), String> {
    let mut roots = mod_roots(mods);
    roots.extend(dir.parent().map(Path::to_path_buf));
    let catalog = Catalog::discover(&roots);
    if id == TEMPLATE || catalog.has(id) {
        let at = catalog.manifests.get(id).map(|m| format!(" ({})", display_path(&m.path))).unwrap_or_default();
        return Err(format!("an expansion `{id}` is installed already{at}; give another id with --id"));
    }
    Ok(())
}

/// Every file of the template, by its path inside it, with its text.
fn template_files(template: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    if !template.join("expansion.toml").is_file() {
        return Err(format!(
            "no template mod at {}: set MEEPLE_HOME to a copy of meeple's source tree",
            display_path(template)
        ));
    }
    let mut files = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(rel) = folders.pop() {
        let here = template.join(&rel);
        let entries = std::fs::read_dir(&here).map_err(|e| format!("{}: {e}", display_path(&here)))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", display_path(&here)))?;
            let (path, inner) = (entry.path(), rel.join(entry.file_name()));
            if path.is_dir() {
                folders.push(inner);
            } else {
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", display_path(&path)))?;
                files.push((inner, text));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// What follows a value that grew by `grown` characters: a comment after it keeps its column
/// where the spaces before it allow (`id = "chapels"   # rename`).
fn aligned(after: &str, grown: isize) -> String {
    let spaces = after.len() - after.trim_start_matches(' ').len();
    if !after.trim_start().starts_with('#') || spaces == 0 {
        return after.to_string();
    }
    let kept = (spaces as isize - grown).max(1) as usize;
    format!("{}{}", " ".repeat(kept), after.trim_start_matches(' '))
}

/// A template file as the new mod's: in TOML files, an `id = "template"` becomes the new id and
/// a `source` in the template's folder one in the new folder. The manifest must have had its id
/// replaced.
fn renamed(rel: &Path, text: &str, id: &str, dir: &Path) -> Result<String, String> {
    if rel.extension().is_none_or(|e| e != "toml") {
        return Ok(text.to_string());
    }
    let (old_id, new_id) = (format!("id = \"{TEMPLATE}\""), format!("id = \"{id}\""));
    let old_source = format!("source = \"scripts/{TEMPLATE}/");
    // The new folder's path may hold a quote: the value is written as TOML writes a string.
    let new_source = |file: &str| {
        let path = format!("{}/{file}", display_path(dir).replace('\\', "/"));
        format!("source = {}", toml::Value::String(path))
    };
    let mut replaced = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let indent = &line[..line.len() - line.trim_start().len()];
            let rest = line.trim_start();
            if let Some(after) = rest.strip_prefix(&old_id) {
                replaced += 1;
                format!("{indent}{new_id}{}", aligned(after, new_id.len() as isize - old_id.len() as isize))
            } else if let Some((file, after)) = rest.strip_prefix(&old_source).and_then(|r| r.split_once('"')) {
                format!("{indent}{}{after}", new_source(file))
            } else {
                line.to_string()
            }
        })
        .collect();
    if rel == Path::new("expansion.toml") && replaced == 0 {
        return Err(format!("the template's expansion.toml has no line `{old_id}` to give the new id"));
    }
    Ok(lines.join("\n") + "\n")
}

/// A config that plays the base game with the new mod.
fn game_config(id: &str, dir: &Path, seed: u64) -> String {
    format!(
        "# A game with `{id}`: {}\nplayers = [\"Ann\", \"Bob\"]\nseed = {seed}\n\n[[expansions]]\nid = \"{id}\"\n",
        play_command(dir)
    )
}

/// Refuses a folder that holds anything, or a file: the copy overwrites nothing.
fn refuse_used(dir: &Path) -> Result<(), String> {
    if !dir.exists() {
        return Ok(());
    }
    let shown = display_path(dir);
    let empty = dir.is_dir() && std::fs::read_dir(dir).map_err(|e| format!("{shown}: {e}"))?.next().is_none();
    if empty { Ok(()) } else { Err(format!("{shown} exists and is not an empty folder: give a new one")) }
}

/// Writes the files into `dir` (checked by [`refuse_used`]); returns the outermost folder it
/// made for it (`dir`, or a folder above it that was missing too), if any. On an error, what it
/// wrote is taken away again.
fn write_new(dir: &Path, files: &[(PathBuf, String)]) -> Result<Option<PathBuf>, String> {
    let shown = display_path(dir);
    let made = dir.ancestors().take_while(|a| !a.exists()).last().map(Path::to_path_buf);
    if let Err(e) = std::fs::create_dir_all(dir) {
        return Err(undo(dir, made, format!("{shown}: {e}")));
    }
    for (path, text) in files {
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(path, text))
            .map_err(|e| format!("{}: {e}", display_path(path)));
        if let Err(why) = written {
            return Err(undo(dir, made, why));
        }
    }
    Ok(made)
}

/// Takes away what [`write_new`] wrote into `dir` (the folders it made too: `made`, the
/// outermost), and passes `why` on.
fn undo(dir: &Path, made: Option<PathBuf>, why: String) -> String {
    if let Some(made) = made {
        let _ = std::fs::remove_dir_all(made);
    } else if let Ok(entries) = std::fs::read_dir(dir) {
        // The folder was empty before: everything in it is the copy's.
        for entry in entries.flatten() {
            let p = entry.path();
            let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        }
    }
    why
}
