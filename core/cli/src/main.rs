//! `meeple`: play, simulate and benchmark Carcassonne games with expansions.

mod api_docs;
mod bench;
mod check;
mod common;
mod new;
mod play;
mod render;
mod replay;
mod serve;
mod simulate;
mod test;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

// Games allocate many small short-lived objects (event lists, Lua tables); mimalloc serves them
// in about half the instructions of the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// meeple — a Carcassonne rules engine with expansions in Luau and native plugins.
#[derive(Parser)]
#[command(name = "meeple", version, about, long_about = None)]
struct Cli {
    /// More log output (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Extra folder with expansions (may be repeated; also $MEEPLE_MODS).
    #[arg(long = "mods", value_name = "DIR", global = true)]
    mods: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play one game with bots (or play seats yourself), print every turn and the final scores, write the replay.
    Play(play::Args),
    /// Play many games and report wins, mean scores and games per second.
    Simulate(simulate::Args),
    /// Play a replay back and check that it reproduces the recorded game.
    Replay(replay::Args),
    /// Measure games per second, legal placements, apply and clone.
    Bench(bench::Args),
    /// Check a mod folder: manifest, tilesets, scripts, native library.
    Check(check::Args),
    /// Run scenario files: a game, its actions, and the points, figures and events expected.
    Test(test::Args),
    /// Start a mod: copy the template (a tile, a rule, a scenario test) under a new id.
    New(new::Args),
    /// Write the Luau API reference and editor definitions (docs/lua-api.md, docs/meeple.d.luau)
    /// and the protocol's JSON Schema (docs/protocol.schema.json).
    ApiDocs(api_docs::Args),
    /// Serve the protocol (docs/protocol.md): JSON lines on stdin/stdout, or HTTP and WebSocket.
    Serve(serve::Args),
    /// Draw a saved game's board, figures and scores as SVG.
    Render(render::RenderArgs),
    /// Draw every tile of a tileset as SVG, to check its geometry by eye.
    Tiles(render::TilesArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    if let Err(e) = common::check_mod_folders(&cli.mods) {
        common::tell(&e);
        return ExitCode::from(e.exit_code());
    }
    let result = match cli.command {
        Command::Play(a) => play::run(a, &cli.mods),
        Command::Simulate(a) => simulate::run(a, &cli.mods),
        Command::Replay(a) => replay::run(a, &cli.mods),
        Command::Bench(a) => bench::run(a, &cli.mods),
        Command::Check(a) => check::run(a, &cli.mods),
        Command::Test(a) => test::run(a, &cli.mods),
        Command::New(a) => new::run(a, &cli.mods),
        Command::ApiDocs(a) => api_docs::run(a),
        Command::Serve(a) => serve::run(a, &cli.mods),
        Command::Render(a) => render::render(a, &cli.mods),
        Command::Tiles(a) => render::tiles(a),
    };
    match (result, common::stdout_failure()) {
        (Ok(()), None) => ExitCode::SUCCESS,
        (Ok(()), Some(why)) => {
            common::tell(&why);
            ExitCode::FAILURE
        }
        (Err(e), _) => {
            if !matches!(e, common::CliError::Reported) {
                common::tell(&e);
            }
            ExitCode::from(e.exit_code())
        }
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Colours only on a terminal: a log piped to a file or a pager stays plain text.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(colour)
        .init();
}
