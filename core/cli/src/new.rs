//! `meeple new DIR`: a new mod from the template, ready to check, test and play.

use crate::common::{CliError, say};
use meeple_host::new_mod;
use meeple_host::paths::display_path;
use std::path::PathBuf;

/// Arguments of `meeple new`.
#[derive(clap::Args)]
pub struct Args {
    /// The new mod's folder (it must not exist, or be empty), such as mods/chapels.
    dir: PathBuf,
    /// The expansion's id (default: the folder's name).
    #[arg(long)]
    id: Option<String>,
}

/// Copies the template into the new folder and says what to run next.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let made =
        new_mod::create(&new_mod::template_dir(), &args.dir, args.id.as_deref(), mods).map_err(CliError::Usage)?;
    let dir = display_path(&made.dir);
    let parent = made.dir.parent().map(display_path).filter(|p| !p.is_empty()).unwrap_or_else(|| ".".into());
    say!("made {dir}: the expansion `{}`, copied from the template (a tile, a rule, a scenario test)", made.id);
    for file in &made.files {
        say!("  {}", display_path(file));
    }
    say!("next:");
    say!("  meeple check {dir}                  # manifest, tiles and script; plays ten games with it");
    say!("  meeple test {dir}                   # its scenario test");
    say!("  meeple play --mods {parent} {}   # a game with it", display_path(&made.game));
    say!("then change the rule in {dir}/init.luau (docs/modding.md; the API: docs/lua-api.md)");
    Ok(())
}
