//! `meeple check DIR`: everything that can be wrong with a mod, found without playing it — the
//! manifest, the tileset of every edition, the syntax of every script and the hooks it
//! registers, a native library's entry table.

use crate::luau::{Limits, LuauExpansion, Script};
use crate::manifest::{Entry, Manifest};
use crate::paths::display_path;
use crate::ruleset::{Selected, io_report, load_tileset};
use meeple_core::{Expansion, HookKind};
use meeple_toml::{Diagnostic, Report};
use std::path::Path;

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
pub fn check_mod(dir: &Path) -> Result<Checked, Report> {
    let path = dir.join("expansion.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| io_report(&path, &e))?;
    let manifest = Manifest::parse(&path, &text)?;
    let mut report = Report::default();
    let mut tiles = Vec::new();
    for ed in &manifest.editions {
        let Some(ts_path) = &ed.tileset else {
            tiles.push((ed.name.clone(), 0));
            continue;
        };
        match load_tileset(ts_path) {
            Ok((ts, _)) => match ts.edition(&ed.tileset_edition) {
                Some(i) => tiles.push((ed.name.clone(), ts.total(i))),
                None => report.diagnostics.push(Diagnostic {
                    file: display_path(&path),
                    line: 1,
                    col: 1,
                    message: format!(
                        "edition `{}` uses tileset edition `{}`, which {} does not have (it has: {})",
                        ed.name,
                        ed.tileset_edition,
                        display_path(ts_path),
                        ts.editions.join(", ")
                    ),
                }),
            },
            Err(r) => report.extend(r),
        }
    }
    let sel = Selected {
        manifest: manifest.clone(),
        edition: manifest.default_edition.clone(),
        options: manifest.options.iter().map(|o| (o.name.clone(), o.default.clone())).collect(),
    };
    let hooks = match &manifest.entry {
        Entry::Script(entry) => match script_hooks(&sel, entry) {
            Ok(h) => h,
            Err(r) => {
                report.extend(r);
                Vec::new()
            }
        },
        Entry::Native(library) => match crate::native::NativeExpansion::load(&sel, library) {
            Ok(x) => names(&x),
            Err(message) => {
                report.diagnostics.push(Diagnostic { file: display_path(&path), line: 1, col: 1, message });
                Vec::new()
            }
        },
        Entry::None | Entry::Builtin(_) => Vec::new(),
    };
    if !report.is_empty() {
        return Err(report);
    }
    Ok(Checked { manifest, tiles, hooks })
}

fn names(x: &dyn Expansion) -> Vec<&'static str> {
    HookKind::ALL.iter().filter(|h| x.hooks().contains(**h)).map(|h| h.name()).collect()
}

/// Compiles every script file (syntax errors with `file:line`), then runs the entry file to
/// collect the hooks it registers.
fn script_hooks(sel: &Selected, entry: &Path) -> Result<Vec<&'static str>, Report> {
    let script = Script::read(sel, entry, Limits::default())?;
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
