//! `meeple replay`: play a saved game back and check its hashes.

use crate::common::{CliError, replay_config, say, score_table};
use meeple_core::{Game, Replay};
use std::path::PathBuf;

/// Arguments of `meeple replay`.
#[derive(clap::Args)]
pub struct Args {
    /// The replay file (JSON, as written by `meeple play`).
    file: PathBuf,
}

/// Replays a game; fails if any recorded hash differs.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let io = |source| CliError::Io { path: args.file.clone(), source };
    let text = std::fs::read_to_string(&args.file).map_err(io)?;
    let replay: Replay = serde_json::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{}: not a replay: {e}", args.file.display())))?;
    let (_, loaded) = replay_config(&replay, &args.file, mods)?;
    let game = Game::from_replay(loaded.rules.clone(), &replay)?;
    say!(
        "{}: {} actions, {} checkpoints, final state hash {} — verified",
        args.file.display(),
        replay.actions.len(),
        replay.checkpoints.len(),
        replay.state_hash
    );
    say!("{}", score_table(game.rules(), game.state(), &replay.setup.players));
    Ok(())
}
