//! `meeple serve`: protocol v1 (`docs/protocol.md`) as JSON lines on stdin and stdout, for a
//! program that embeds meeple as its engine, or over HTTP and WebSocket for many games and
//! players at once, every game kept in an SQLite file.

use crate::common::{CliError, say};
use meeple_protocol::Session;
use meeple_server::Server;
use std::io::{BufRead, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `meeple serve`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "listen"])))]
pub struct Args {
    /// Speak the protocol on stdin and stdout, one JSON request per line, one reply per line.
    #[arg(long)]
    stdio: bool,
    /// Serve HTTP and WebSocket on this address, e.g. 127.0.0.1:8080 (port 0: any free port).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// With --listen: the SQLite file that keeps every game (created if missing).
    #[arg(long, value_name = "FILE", default_value = "meeple-games.sqlite")]
    db: PathBuf,
}

/// Serves until stdin closes (`--stdio`) or the process is stopped (`--listen`).
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    match &args.listen {
        Some(addr) => listen(addr, &args.db, mods),
        None => stdio(mods),
    }
}

fn stdio(mods: &[PathBuf]) -> Result<(), CliError> {
    let mut session = Session::new(mods.to_vec());
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    // Bytes, not `String`s: a line that is not UTF-8 gets an error reply instead of ending the
    // session and every game in it.
    let mut line = Vec::new();
    loop {
        line.clear();
        let read =
            stdin.read_until(b'\n', &mut line).map_err(|source| CliError::Io { path: "<stdin>".into(), source })?;
        if read == 0 {
            break;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let reply = session.handle_bytes(text);
        match writeln!(stdout, "{reply}").and_then(|()| stdout.flush()) {
            Ok(()) => {}
            // The client went away: the session is over.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
            Err(source) => return Err(CliError::Io { path: "<stdout>".into(), source }),
        }
    }
    Ok(())
}

/// Opens the database, plays its games back, and serves. The first line on stdout names the
/// address actually bound (useful with port 0).
fn listen(addr: &str, db: &Path, mods: &[PathBuf]) -> Result<(), CliError> {
    // The address first: a port that cannot be had leaves no database file behind.
    let listener = TcpListener::bind(addr).map_err(|source| CliError::Io { path: addr.into(), source })?;
    let bound = listener.local_addr().map_err(|source| CliError::Io { path: addr.into(), source })?;
    let (server, restored) = Server::open(db, mods.to_vec())?;
    for (game, why) in &restored.failed {
        crate::common::tell(&format!("warning: game {game} is not served: {why} (it stays in {})", db.display()));
    }
    say!("listening on http://{bound} ({} games from {})", restored.games, db.display());
    // The line names the port taken: a server whose address cannot be written out (a full
    // disk) is no use. A reader that went away after reading it (`| head -1`) is fine.
    if let Some(why) = crate::common::stdout_failure() {
        return Err(CliError::Usage(why));
    }
    meeple_server::serve(listener, Arc::new(server));
    Ok(())
}
