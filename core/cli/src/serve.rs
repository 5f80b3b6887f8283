//! `meeple serve`: protocol v1 (`docs/protocol.md`) as JSON lines on stdin and stdout, for a
//! program that embeds meeple as its engine, or over HTTP and WebSocket for many games and
//! players at once, every game kept in an SQLite file.

use crate::common::{CliError, say};
use meeple_core::ReplayRules;
use meeple_protocol::Session;
use meeple_server::{Refused, Server};
use std::io::{BufRead, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `meeple serve`. The options of `--listen` are refused with `--stdio`, which keeps
/// no games and holds one connection: `--stdio --db games.sqlite` would otherwise seem to keep them.
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
    #[arg(long, value_name = "FILE", default_value = "meeple-games.sqlite", conflicts_with = "stdio")]
    db: PathBuf,
    /// With --listen: connections served at once; past it a new one is answered 503 `busy`.
    #[arg(long, value_name = "N", default_value_t = meeple_server::Limits::default().max_connections,
          value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "stdio")]
    max_connections: u32,
    /// With --listen: connections one client address may hold (behind a reverse proxy, all
    /// clients have its address: raise this to --max-connections).
    #[arg(long, value_name = "N", default_value_t = meeple_server::Limits::default().max_per_address,
          value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "stdio")]
    max_per_address: u32,
    /// With --listen: seconds a request may take to arrive, from its first byte to its last; and
    /// a reply to be read by the client.
    #[arg(long, value_name = "SECS", default_value_t = meeple_server::Limits::default().request_time.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600), conflicts_with = "stdio")]
    request_timeout: u64,
    /// With --listen: serve stored games started on files that have changed since (a tile
    /// renamed), when every step still leads to the state logged.
    #[arg(long, conflicts_with = "stdio")]
    other_rules: bool,
}

/// Serves until stdin closes (`--stdio`) or the process is stopped (`--listen`).
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    match &args.listen {
        Some(addr) => {
            let limits = meeple_server::Limits {
                max_connections: args.max_connections,
                max_per_address: args.max_per_address,
                request_time: std::time::Duration::from_secs(args.request_timeout),
            };
            listen(addr, &args.db, limits, ReplayRules::other_if(args.other_rules), mods)
        }
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
    let stdin_failed = |source| CliError::Io { path: "<stdin>".into(), source };
    loop {
        line.clear();
        // One byte past the limit tells a line that is too long from one that just fits.
        let limit = meeple_protocol::MAX_MESSAGE as u64 + 2;
        let read = (&mut stdin).take(limit).read_until(b'\n', &mut line).map_err(stdin_failed)?;
        if read == 0 {
            break;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let reply = if text.len() > meeple_protocol::MAX_MESSAGE {
            if !line.ends_with(b"\n") {
                skip_line(&mut stdin).map_err(stdin_failed)?;
            }
            Session::too_long()
        } else if meeple_protocol::is_blank(text) {
            continue;
        } else {
            session.handle_bytes(text)
        };
        match writeln!(stdout, "{reply}").and_then(|()| stdout.flush()) {
            Ok(()) => {}
            // The client went away: the session is over.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
            Err(source) => return Err(CliError::Io { path: "<stdout>".into(), source }),
        }
    }
    Ok(())
}

/// Reads to the end of the line without keeping it.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// Opens the database, plays its games back, and serves. The first line on stdout names the
/// address actually bound (useful with port 0).
fn listen(
    addr: &str,
    db: &Path,
    limits: meeple_server::Limits,
    on: ReplayRules,
    mods: &[PathBuf],
) -> Result<(), CliError> {
    // The address first: a port that cannot be had leaves no database file behind.
    let listener = TcpListener::bind(addr).map_err(|source| CliError::Io { path: addr.into(), source })?;
    let bound = listener.local_addr().map_err(|source| CliError::Io { path: addr.into(), source })?;
    let (server, restored) = Server::open_on(db, mods.to_vec(), on)?;
    for (game, why) in &restored.failed {
        crate::common::tell(&format!("warning: game {game} is not served: {why} (it stays in {})", db.display()));
    }
    if !restored.on_other_rules.is_empty() {
        let games = restored.on_other_rules.join(", ");
        let why = "started on rules whose files have changed since, every logged step checked";
        crate::common::tell(&format!("note: served on these rules, {why}: {games}"));
    }
    if restored.failed.iter().any(|(_, why)| matches!(why, Refused::Ruleset(_))) {
        let hint = "with `--other-rules`, games started on files that changed since are served all the same, every step's state checked";
        crate::common::tell(&format!("note: {hint}"));
    }
    let games = crate::common::how_many(restored.games, "game", "games");
    say!("listening on http://{bound} ({games} from {})", db.display());
    // The line names the port taken: a server whose address cannot be written out (a full
    // disk) is no use. A reader that went away after reading it (`| head -1`) is fine.
    if let Some(why) = crate::common::stdout_failure() {
        return Err(CliError::Usage(why));
    }
    meeple_server::serve(listener, Arc::new(server), limits);
    Ok(())
}
