//! `meeple replay`: play a saved game back and check its hashes.

use crate::common::{CliError, outcome, play_back, say};
use std::path::PathBuf;

/// Arguments of `meeple replay`.
#[derive(clap::Args)]
pub struct Args {
    /// The replay file (JSON, as written by `meeple play`).
    file: PathBuf,
}

/// Replays a game; fails if any recorded hash differs.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let (replay, game) = play_back(&args.file, mods)?;
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
