//! `meeple replay`: play a saved game back and check its hashes.

use crate::common::{CliError, outcome, play_back_with_rules, say};
use std::path::PathBuf;

/// Arguments of `meeple replay`.
#[derive(clap::Args)]
pub struct Args {
    /// The replay file (JSON, as written by `meeple play`).
    file: PathBuf,
    /// Tell the game turn by turn, as `meeple play` did.
    #[arg(long)]
    log: bool,
}

/// Replays a game; fails if any recorded hash differs.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let (replay, loaded, game) = play_back_with_rules(&args.file, mods)?;
    if args.log {
        crate::play::retell(&replay, &loaded)?;
    }
    say!(
        "{}: {} actions, {} checkpoints, final state hash {} — verified",
        args.file.display(),
        replay.actions.len(),
        replay.checkpoints.len(),
        replay.state_hash
    );
    say!("{}", outcome(&game, &replay.setup.players));
    Ok(())
}
