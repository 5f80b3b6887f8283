//! One-call loading for the CLI and tests: config file → catalog → ruleset.

use crate::config::GameConfig;
use crate::paths::{display_path, mod_roots};
use crate::ruleset::{Catalog, Instantiate, Loaded, Selected, build, read_text};
use meeple_core::Expansion;
use meeple_toml::Report;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The expansion code this build of meeple can run.
pub struct Builtin;

impl Instantiate for Builtin {
    fn instantiate(&self, sel: &Selected) -> Result<Option<Arc<dyn Expansion>>, Report> {
        match &sel.manifest.entry {
            crate::manifest::Entry::None => Ok(None),
            crate::manifest::Entry::Script(entry) => {
                let script = crate::luau::Script::read(sel, entry, crate::luau::Limits::default())?;
                let mut categories = vec![sel.manifest.id.clone()];
                categories.extend(sel.manifest.categories.iter().cloned());
                Ok(Some(Arc::new(crate::luau::LuauExpansion::load(script, categories)?)))
            }
            crate::manifest::Entry::Native(library) => match crate::native::NativeExpansion::load(sel, library) {
                Ok(x) => Ok(Some(Arc::new(x))),
                Err(message) => Err(Report { diagnostics: vec![sel.manifest.problem_at("native.library", message)] }),
            },
            crate::manifest::Entry::Builtin(name) => Err(Report {
                diagnostics: vec![sel.manifest.problem_at(
                    "builtin.name",
                    format!(
                        "`{}`: its code (`[builtin] name = \"{name}\"`) is Rust compiled into another program; this meeple does not contain it",
                        sel.manifest.id
                    ),
                )],
            }),
        }
    }
}

/// Reads a config file and builds its ruleset, searching the built-in folders plus `mods`.
/// Problems in the file and problems resolving it are reported together.
pub fn from_config_file(path: &Path, mods: &[PathBuf]) -> Result<Loaded, Report> {
    let text = read_text(path)?;
    from_config_text(&display_path(path), &text, mods)
}

/// Reads a config from text (`name` locates it in errors) and builds its ruleset; problems in
/// the text and problems resolving it are reported together.
pub fn from_config_text(name: &str, text: &str, mods: &[PathBuf]) -> Result<Loaded, Report> {
    let (config, report) = GameConfig::parse_lenient(name, text);
    with_problems(report, from_config(&config, mods))
}

/// A ruleset built from a config that was read with `problems`: those and the ruleset's own
/// problems together, in file order, or the ruleset when there are none.
pub fn with_problems(mut problems: Report, built: Result<Loaded, Report>) -> Result<Loaded, Report> {
    match built {
        Ok(loaded) if problems.is_empty() => Ok(loaded),
        Ok(_) => Err(problems),
        Err(more) => {
            problems.extend(more);
            problems.diagnostics.sort_by(|a, b| (&a.file, a.line, a.col).cmp(&(&b.file, b.line, b.col)));
            Err(problems)
        }
    }
}

/// Reads a config file.
pub fn read_config(path: &Path) -> Result<GameConfig, Report> {
    let text = read_text(path)?;
    GameConfig::parse(&display_path(path), &text)
}

/// Builds the ruleset of a config with this program's expansion code.
pub fn from_config(config: &GameConfig, mods: &[PathBuf]) -> Result<Loaded, Report> {
    from_config_with(config, mods, &Builtin)
}

/// Builds the ruleset of a config, instantiating expansion code with `code`.
pub fn from_config_with(config: &GameConfig, mods: &[PathBuf], code: &dyn Instantiate) -> Result<Loaded, Report> {
    let catalog = Catalog::discover(&mod_roots(mods));
    build(&catalog, config, code)
}
