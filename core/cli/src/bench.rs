//! `meeple bench`: quick speed figures for a config (criterion benches: `cargo bench`).

use crate::common::{CliError, load_config, ruleset_title, say};
use meeple_core::bots::{Bot, RandomBot};
use meeple_core::rng::GameRng;
use meeple_core::{Game, Stage};
use meeple_protocol::{Detail, Session, StateView};
use serde_json::{Value, json};
use std::hint::black_box;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `meeple bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Game config (TOML). Without one: two players, the base game.
    config: Option<PathBuf>,
    /// Seconds to spend on the games-per-second figure.
    #[arg(long, default_value_t = 3.0, value_parser = crate::common::seconds)]
    seconds: f64,
}

/// Prints games/s, legal-placement times at several board sizes, apply and clone times, and the
/// protocol's costs.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    // Loading: discovery, manifests, tilesets, scripts (a VM per Luau expansion), libraries.
    let mut load_ms = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        black_box(load_config(args.config.as_deref(), mods)?);
        load_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    load_ms.sort_by(f64::total_cmp);
    let loaded = load_config(args.config.as_deref(), mods)?;
    let players = loaded.config.players.len();
    say!("meeple bench · {} · {players} players, random play, one thread", ruleset_title(&loaded));
    say!("loading the ruleset: median {:.1} ms (of 5)", load_ms[2]);
    let rules = loaded.rules.clone();
    let new_game = |seed: u64| -> Result<Game, CliError> { Ok(Game::new(rules.clone(), loaded.setup_seeded(seed))?) };

    // Games per second: uniform random play, one thread.
    let start = Instant::now();
    let (mut games, mut actions) = (0u64, 0u64);
    while start.elapsed().as_secs_f64() < args.seconds {
        let mut game = new_game(games)?;
        let mut bot = RandomBot::new(games);
        while !game.is_over() {
            let a = bot.choose(&game);
            game.apply(a)?;
            actions += 1;
        }
        games += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    say!(
        "random playouts: {games} games in {secs:.2} s = {:.0} games/s ({:.0} ns per action, bot included)",
        games as f64 / secs,
        secs * 1e9 / actions as f64
    );

    // Legal placements of the drawn tile after n tiles.
    for n in [5usize, 15, 30, 50, 70] {
        let mut samples = Vec::new();
        for seed in 0..200u64 {
            let Some(game) = position_with(new_game(seed)?, n, seed) else { continue };
            let tile = game.state().turn().tile.expect("a drawn tile");
            let sides = &game.rules().tile(tile).sides;
            let mut buf = Vec::with_capacity(128);
            let reps = 2000;
            let t = Instant::now();
            for _ in 0..reps {
                buf.clear();
                game.state().board().placements_into(black_box(sides), &mut buf);
                black_box(&buf);
            }
            samples.push(t.elapsed().as_nanos() as f64 / reps as f64);
        }
        samples.sort_by(f64::total_cmp);
        if !samples.is_empty() {
            say!(
                "legal placements at {n:>2} tiles: median {:.0} ns (over {} positions)",
                samples[samples.len() / 2],
                samples.len()
            );
        }
    }

    // Clone and apply, at 30 tiles.
    if let Some(game) = position_with(new_game(7)?, 30, 7) {
        let reps = 20_000;
        let t = Instant::now();
        for _ in 0..reps {
            black_box(game.clone());
        }
        say!("clone a game at 30 tiles: {:.0} ns", t.elapsed().as_nanos() as f64 / reps as f64);
        // A search's copy: the root into a scratch game that already holds a position, whose
        // buffers are reused (`clone_from`).
        let mut scratch = game.clone();
        let t = Instant::now();
        for _ in 0..reps {
            scratch.clone_from(black_box(&game));
        }
        let copy_only = t.elapsed().as_nanos() as f64 / reps as f64;
        say!("copy a game at 30 tiles into a used one (clone_from): {copy_only:.0} ns");
        // Apply on a fresh copy each time; the copy's cost is measured above and taken off.
        let action = game.legal_actions()[0];
        let t = Instant::now();
        for _ in 0..reps {
            scratch.clone_from(&game);
            black_box(scratch.apply(action).is_ok());
        }
        let with_copy = t.elapsed().as_nanos() as f64 / reps as f64;
        say!("apply a tile placement at 30 tiles: {:.0} ns", with_copy - copy_only);
    }
    protocol_figures(&args, mods, new_game(11)?)
}

/// The protocol's costs: a whole state as JSON, and whole random games driven by JSON lines,
/// in the program and through `meeple serve --stdio`.
fn protocol_figures(args: &Args, mods: &[PathBuf], game: Game) -> Result<(), CliError> {
    if let Some(game) = position_with(game, 50, 11) {
        for (detail, which) in [(Detail::Whole, ""), (Detail::AllFeatures, ", all features")] {
            // The median of 21 batches: on a shared machine a mean over one batch mostly
            // measures whoever else ran meanwhile.
            let mut batches: Vec<f64> = (0..21)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..100 {
                        black_box(meeple_protocol::to_json(&StateView::build("g1", black_box(&game), 0, detail)));
                    }
                    t.elapsed().as_secs_f64() * 1e6 / 100.0
                })
                .collect();
            batches.sort_by(f64::total_cmp);
            say!("state snapshot as JSON at 50 tiles{which}: median {:.1} µs (of 21 batches of 100)", batches[10]);
        }
    }
    let create = match &args.config {
        Some(path) => json!({"cmd": "create", "path": path}),
        None => json!({"cmd": "create"}),
    };
    let games = 20;
    let mut session = Session::new(mods.to_vec());
    let t = Instant::now();
    for seed in 0..games {
        play_over_json(|line| session.handle_line(line), &create, seed, false)?;
    }
    say!("a random game over JSON (in the program): {:.1} ms", t.elapsed().as_secs_f64() * 1e3 / games as f64);
    fork_figures(Session::new(mods.to_vec()), &create)?;

    let mut child = std::process::Command::new(std::env::current_exe().map_err(|e| io_error("meeple", e))?)
        .args(["serve", "--stdio"])
        .args(mods.iter().flat_map(|m| [std::ffi::OsStr::new("--mods"), m.as_os_str()]))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| io_error("meeple serve", e))?;
    let (mut stdin, stdout) = (child.stdin.take().expect("piped"), child.stdout.take().expect("piped"));
    let mut lines = std::io::BufReader::new(stdout).lines();
    let mut ask = move |line: &str| -> String {
        let sent = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
        match (sent, lines.next()) {
            (Ok(()), Some(Ok(reply))) => reply,
            _ => String::new(),
        }
    };
    for (brief, what) in [(false, "whole states"), (true, "brief states")] {
        let t = Instant::now();
        for seed in 0..games {
            play_over_json(&mut ask, &create, seed, brief)?;
        }
        let ms = t.elapsed().as_secs_f64() * 1e3 / games as f64;
        say!("a random game over stdio JSON lines, {what}: {ms:.1} ms");
    }
    drop(ask);
    let _ = child.wait();
    Ok(())
}

/// A search's copy over JSON in the program: `fork` (reseeded, brief state) of a game 40 actions
/// in, against the `save` and `load` it spares a client.
fn fork_figures(mut session: Session, create: &Value) -> Result<(), CliError> {
    let mut send = |request: &str| session.handle_line(request);
    let first = send(&create.to_string());
    let game = serde_json::from_str::<Glance>(&first).ok().and_then(|g| g.result?.game);
    let Some(game) = game else { return Err(CliError::Usage(format!("the protocol game stopped: {first}"))) };
    for _ in 0..40 {
        send(&json!({"cmd": "act", "game": game, "index": 0, "brief": true}).to_string());
    }
    let fork = |send: &mut dyn FnMut(&str) -> String, seed: u64| {
        send(&json!({"cmd": "fork", "game": game, "reseed": seed, "brief": true}).to_string())
    };
    let save = json!({"cmd": "save", "game": game}).to_string();
    let reload = |send: &mut dyn FnMut(&str) -> String| {
        // The replay as the client got it, sent back as it is: `{…"result":{"replay":{…}}}`.
        let saved = send(&save);
        let replay = saved.split_once("\"replay\":").map_or("", |(_, r)| &r[..r.len().saturating_sub(2)]);
        send(&format!("{{\"cmd\":\"load\",\"replay\":{replay}}}"))
    };
    // Each copy closed again, so that the session holds one game throughout.
    let close = |send: &mut dyn FnMut(&str) -> String, reply: &str| -> Result<(), CliError> {
        let copy = serde_json::from_str::<Glance>(reply).ok().filter(|g| g.ok).and_then(|g| g.result?.game);
        let Some(copy) = copy else { return Err(CliError::Usage(format!("the protocol game stopped: {reply}"))) };
        send(&json!({"cmd": "close", "game": copy}).to_string());
        Ok(())
    };
    // Once each, checked, before they are timed.
    let (forked, loaded) = (fork(&mut send, 0), reload(&mut send));
    close(&mut send, &forked)?;
    close(&mut send, &loaded)?;
    let fork = median_us(|i| {
        let reply = fork(&mut send, i);
        let _ = close(&mut send, &reply);
    });
    let reload = median_us(|_| {
        let reply = reload(&mut send);
        let _ = close(&mut send, &reply);
    });
    say!("a copy of a game 40 actions in, over JSON in the program: fork {fork:.0} µs, save and load {reload:.0} µs");
    Ok(())
}

/// The median time of `step` in µs, over 21 batches of 20 calls (given the call's number).
fn median_us(mut step: impl FnMut(u64)) -> f64 {
    let mut batches: Vec<f64> = (0..21u64)
        .map(|b| {
            let t = Instant::now();
            for i in 0..20 {
                step(b * 20 + i);
            }
            t.elapsed().as_secs_f64() * 1e6 / 20.0
        })
        .collect();
    batches.sort_by(f64::total_cmp);
    batches[10]
}

/// What the benchmark's client reads of a reply: enough to choose, skipping the rest unparsed.
#[derive(serde::Deserialize)]
struct Glance {
    ok: bool,
    result: Option<GlanceResult>,
}

#[derive(serde::Deserialize)]
struct GlanceResult {
    game: Option<String>,
    state: Option<GlanceState>,
}

#[derive(serde::Deserialize)]
struct GlanceState {
    over: bool,
    legal: Vec<serde::de::IgnoredAny>,
}

/// Creates a game with `create` and plays it to the end, choosing pseudo-randomly among the
/// legal actions of each state (asking for brief states if `brief`); `send` takes a request
/// line and gives the reply line.
fn play_over_json(
    mut send: impl FnMut(&str) -> String,
    create: &Value,
    seed: u64,
    brief: bool,
) -> Result<(), CliError> {
    let glance = |line: String| -> Result<(Option<String>, bool, u64), CliError> {
        let g: Glance = serde_json::from_str(&line).map_err(|e| CliError::Usage(format!("{e}: {line}")))?;
        match g.result.and_then(|r| Some((r.game, r.state?))) {
            Some((game, state)) if g.ok => Ok((game, state.over, state.legal.len() as u64)),
            _ => Err(CliError::Usage(format!("the protocol game stopped: {line}"))),
        }
    };
    let mut request = create.clone();
    request["seed"] = json!(seed);
    let (game, mut over, mut n) = glance(send(&request.to_string()))?;
    let mut rng = GameRng::new(seed, GameRng::stream_for("bench client"));
    while !over {
        let act = json!({"cmd": "act", "game": game, "index": rng.below(n.max(1) as u32), "brief": brief});
        (_, over, n) = glance(send(&act.to_string()))?;
    }
    send(&json!({"cmd": "close", "game": game}).to_string());
    Ok(())
}

fn io_error(what: &str, source: std::io::Error) -> CliError {
    CliError::Io { path: what.into(), source }
}

/// Plays randomly until `n` tiles lie on the board and a tile waits to be placed.
fn position_with(mut game: Game, n: usize, seed: u64) -> Option<Game> {
    let mut bot = RandomBot::new(seed);
    while !game.is_over() {
        if game.state().board().tiles().len() >= n
            && game.state().turn().stage == Stage::PlaceTile
            && game.state().pending().is_empty()
        {
            return Some(game);
        }
        let a = bot.choose(&game);
        game.apply(a).ok()?;
    }
    None
}
