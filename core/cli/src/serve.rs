//! `meeple serve --stdio`: protocol v1 as JSON lines on stdin and stdout (`docs/protocol.md`),
//! for a program that embeds meeple as its engine.

use crate::common::CliError;
use meeple_protocol::Session;
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Arguments of `meeple serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Speak the protocol on stdin and stdout, one JSON request per line, one reply per line.
    #[arg(long)]
    stdio: bool,
}

/// Serves one session until stdin closes.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    if !args.stdio {
        return Err(CliError::Usage("meeple serve: give --stdio (the only transport so far)".into()));
    }
    let mut session = Session::new(mods.to_vec());
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line.map_err(|source| CliError::Io { path: "<stdin>".into(), source })?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = session.handle_line(&line);
        if writeln!(stdout, "{reply}").and_then(|()| stdout.flush()).is_err() {
            break;
        }
    }
    Ok(())
}
