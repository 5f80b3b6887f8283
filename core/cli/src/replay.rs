//! `meeple replay`: play a saved game back and check its hashes.

use crate::common::{CliError, outcome, play_back_on, say};
use meeple_core::ReplayRules;
use std::path::PathBuf;

/// Arguments of `meeple replay`.
#[derive(clap::Args)]
pub struct Args {
    /// The replay file (JSON, as written by `meeple play`).
    file: PathBuf,
    /// Tell the game turn by turn, as `meeple play` did.
    #[arg(long)]
    log: bool,
    /// Play it back on these rules though their files differ from those it was recorded with
    /// (a tile renamed, a comment changed): every recorded state hash is still checked.
    #[arg(long)]
    other_rules: bool,
}

/// Replays a game; fails if any recorded hash differs.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let (replay, loaded, game) = play_back_on(&args.file, mods, ReplayRules::other_if(args.other_rules))?;
    if args.log {
        crate::play::retell(&replay, &loaded)?;
    }
    // Verified on other files, which the user asked for, is said so.
    let other = meeple_core::replay::rules_differ(&replay.ruleset, &replay.expansion_hashes, &loaded.rules).is_some();
    let on = if other { " on these rules, whose files differ from those it was recorded with" } else { "" };
    say!(
        "{}: {} actions, {} checkpoints, final state hash {} — verified{on}",
        args.file.display(),
        replay.actions.len(),
        replay.checkpoints.len(),
        replay.state_hash
    );
    say!("{}", outcome(&game, &replay.setup.players));
    Ok(())
}
