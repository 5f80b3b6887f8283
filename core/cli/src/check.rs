//! `meeple check DIR`: validate a mod and print every problem with file and line.

use crate::common::{CliError, say};
use std::path::PathBuf;

/// Arguments of `meeple check`.
#[derive(clap::Args)]
pub struct Args {
    /// The mod's folder (holding expansion.toml).
    dir: PathBuf,
    /// Random games to play with the mod (seeds 1 to N, the first twice), and a fifth as many in
    /// each other edition and with each option at each other value: more reach the positions a
    /// handler rarely meets.
    #[arg(long, default_value_t = meeple_host::check::CHECK_GAMES, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
}

/// Checks a mod; exit code 2 when it has problems.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let c = meeple_host::check::check_mod_playing(&args.dir, mods, args.games)?;
    let m = &c.manifest;
    // A library older than its sources passes as the build it is: said at once, not only last.
    let but =
        if c.library_stale { ", but played on a library that may be out of date (see the warning below)" } else { "" };
    say!("{} {} ({}): ok{but}", m.id, m.version, m.name);
    for (ed, n) in &c.tiles {
        let default = if *ed == m.default_edition { " (default)" } else { "" };
        say!("  edition {ed}{default}: {n} tiles");
    }
    if !m.figures.is_empty() {
        let mut ids: Vec<&str> = m.figures.iter().map(|f| f.kind.id.as_str()).collect();
        ids.dedup();
        say!("  figures: {}", ids.join(", "));
    }
    if !m.tokens.is_empty() {
        let tokens: Vec<String> = m.tokens.iter().map(|t| format!("{} ({})", t.id, t.supply)).collect();
        say!("  tokens (supply): {}", tokens.join(", "));
    }
    if !c.configs.is_empty() {
        let shown: Vec<String> = c.configs.iter().map(|p| meeple_host::paths::display_path(p)).collect();
        say!("  game configs (load): {}", shown.join(", "));
    }
    if let Some(library) = &c.library {
        say!("  library: {}", meeple_host::paths::display_path(library));
    }
    if !m.options.is_empty() {
        say!("  options: {}", m.options.iter().map(|o| o.name.as_str()).collect::<Vec<_>>().join(", "));
    }
    // Code may register hooks by its options, and the check runs it with the defaults.
    let with = if m.options.is_empty() { "" } else { " (with the default options)" };
    match &c.hooks {
        Some(hooks) if hooks.is_empty() => say!("  hooks{with}: none"),
        Some(hooks) => say!("  hooks{with}: {}", hooks.join(", ")),
        None => say!(
            "  hooks: unknown: its Rust code (`[builtin] name`) is not in this program, which cannot play it; \
             checked without it"
        ),
    }
    if !c.other_hooks.is_empty() {
        let other: Vec<String> =
            c.other_hooks.iter().map(|(hook, settings)| format!("{hook} (with {})", settings.join(", "))).collect();
        say!("  hooks in other settings: {}", other.join("; "));
    }
    match c.games {
        0 => {}
        1 => say!("  played 1 random game twice: no hook failed, and it went alike"),
        n => say!(
            "  played {n} random games, the first twice and some again on a fresh load: no hook failed, and those \
             played again went alike"
        ),
    }
    match c.variant_games {
        _ if c.variants.is_empty() => {}
        0 => say!("  loads in each other setting too: {}", c.variants.join("; ")),
        n => {
            let games = meeple_host::check::random_games(n);
            say!("  and {games} in each other setting, without a hook failing: {}", c.variants.join("; "));
        }
    }
    if !c.tile_use.is_empty() {
        say!("  {}", tiles_line(&c));
    }
    if !c.hook_use.is_empty() {
        let uses: Vec<String> =
            c.hook_use.iter().map(|u| format!("{} {}/{}", u.hook.name(), u.acted, u.calls)).collect();
        say!("  hook calls in those games that acted / all: {}", uses.join(", "));
    }
    for warning in &c.warnings {
        say!("warning: {warning}");
    }
    Ok(())
}

/// How a mod's own tiles fared in the random games: the draws placed, and the kinds not placed
/// at every draw (a tileset of 72 kinds would make a line of each one unreadable).
fn tiles_line(c: &meeple_host::check::Checked) -> String {
    let games = meeple_host::check::random_games(c.tile_games);
    let kinds = format!("its {}", crate::common::how_many(c.tile_use.len(), "tile kind", "tile kinds"));
    let drawn: u64 = c.tile_use.iter().map(|u| u.drawn).sum();
    let placed: u64 = c.tile_use.iter().map(|u| u.placed).sum();
    let short: Vec<String> = c
        .tile_use
        .iter()
        .filter(|u| u.placed < u.drawn)
        .map(|u| format!("{} {}/{}", u.tile, u.placed, u.drawn))
        .collect();
    match short.as_slice() {
        [] => format!("{kinds} in {games} with its defaults: all {drawn} draws placed"),
        _ => format!(
            "{kinds} in {games} with its defaults: {placed} of {drawn} draws placed; placed / drawn of those not \
             placed at every draw: {}",
            short.join(", ")
        ),
    }
}
