//! `meeple render` and `meeple tiles`: SVG drawings of a saved game's board and of a tileset.

use crate::common::{CliError, play_back, say};
use std::path::{Path, PathBuf};

/// Arguments of `meeple render`.
#[derive(clap::Args)]
pub struct RenderArgs {
    /// A saved game (a replay, as `meeple play` writes it).
    game: PathBuf,
    /// Where to write the SVG (`-`: the standard output).
    #[arg(short, long, default_value = "board.svg")]
    output: PathBuf,
}

/// Arguments of `meeple tiles`.
#[derive(clap::Args)]
pub struct TilesArgs {
    /// A tileset file (TOML).
    tileset: PathBuf,
    /// Where to write the SVG (`-`: the standard output).
    #[arg(short, long, default_value = "sheet.svg")]
    output: PathBuf,
}

/// Draws a saved game at its last action.
pub fn render(args: RenderArgs, mods: &[PathBuf]) -> Result<(), CliError> {
    let (_, game) = play_back(&args.game, mods)?;
    write(&args.output, &meeple_render::board(&game))
}

/// Draws every tile of a tileset.
pub fn tiles(args: TilesArgs) -> Result<(), CliError> {
    let (tileset, _) = meeple_host::ruleset::load_tileset(&args.tileset)?;
    write(&args.output, &meeple_render::tileset_sheet(&tileset))
}

/// Writes the drawing to `path`, or to the standard output for `-`, as other tools take it.
fn write(path: &Path, svg: &str) -> Result<(), CliError> {
    if path == Path::new("-") {
        say!("{svg}");
        return Ok(());
    }
    crate::common::check_output(path, "-o")?;
    crate::common::write_file(path, svg.as_bytes())?;
    say!("wrote {}", path.display());
    Ok(())
}
