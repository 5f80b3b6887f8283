//! `meeple simulate`: many games, on one thread or several.

use crate::common::{CliError, load_config, make_bots, play_out, ruleset_title, say};
use meeple_core::Game;
use meeple_core::bots::BotKind;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Arguments of `meeple simulate`.
#[derive(clap::Args)]
pub struct Args {
    /// Game config (TOML). Without one: two players, the base game.
    config: Option<PathBuf>,
    /// How many games.
    #[arg(long, short = 'n', default_value_t = 1000, value_parser = crate::common::at_least_one::<u64>)]
    games: u64,
    /// Seed of the first game; game i uses seed + i.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(..=meeple_host::config::MAX_SEED))]
    seed: u64,
    /// Bots for the players in turn order, repeated as needed.
    #[arg(long, value_delimiter = ',', default_value = "random", value_parser = crate::common::bot_kind())]
    bots: Vec<BotKind>,
    /// Worker threads.
    #[arg(long, short = 'j', default_value_t = 1, value_parser = crate::common::at_least_one::<usize>)]
    jobs: usize,
    /// Print one JSON object instead of a report.
    #[arg(long)]
    json: bool,
}

#[derive(Default, Clone)]
struct Tally {
    scores: Vec<i64>,
    wins: Vec<u64>,
    shared: Vec<u64>,
    /// By score category, the points of all players.
    points: Vec<i64>,
    /// By score category, the games in which someone ended with points in it other than 0.
    scored_in: Vec<u64>,
}

impl Tally {
    fn new(players: usize, categories: usize) -> Tally {
        let (scores, wins, shared) = (vec![0; players], vec![0; players], vec![0; players]);
        Tally { scores, wins, shared, points: vec![0; categories], scored_in: vec![0; categories] }
    }

    /// Counts the final scores of a game.
    fn count(&mut self, st: &meeple_core::GameState) {
        for p in 0..self.scores.len() {
            self.scores[p] += st.score(p as u8) as i64;
        }
        let won = st.winners();
        for &w in &won {
            if won.len() == 1 { self.wins[w as usize] += 1 } else { self.shared[w as usize] += 1 }
        }
        for c in 0..self.points.len() {
            let mut scored = false;
            for p in 0..self.scores.len() {
                let n = st.breakdown(p as u8)[c];
                self.points[c] += n as i64;
                scored |= n != 0;
            }
            self.scored_in[c] += u64::from(scored);
        }
    }

    fn add(&mut self, other: &Tally) {
        for (a, b) in self.points.iter_mut().zip(&other.points) {
            *a += b;
        }
        for (a, b) in self.scored_in.iter_mut().zip(&other.scored_in) {
            *a += b;
        }
        for (a, b) in self.scores.iter_mut().zip(&other.scores) {
            *a += b;
        }
        for (a, b) in self.wins.iter_mut().zip(&other.wins) {
            *a += b;
        }
        for (a, b) in self.shared.iter_mut().zip(&other.shared) {
            *a += b;
        }
    }
}

/// The `--json` report.
#[derive(Serialize)]
struct Summary {
    games: u64,
    seconds: f64,
    games_per_sec: f64,
    jobs: usize,
    players: Vec<String>,
    bots: Vec<String>,
    mean_scores: Vec<f64>,
    wins: Vec<u64>,
    shared_wins: Vec<u64>,
    /// By score category, in the ruleset's order (the base game's four first).
    categories: Vec<CategorySummary>,
}

/// How much a score category gave: what a rule of a mod is worth, and how often it comes up.
#[derive(Serialize)]
struct CategorySummary {
    category: String,
    /// Points a game, all players together.
    mean_points: f64,
    /// Games in which someone ended with points in it other than 0 (net: a player who won and
    /// lost as many there counts as not scored).
    games_scored: u64,
}

/// Runs the games and reports.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    // Game i plays seed + i: the last must still be a seed that `play --seed` takes.
    let max = meeple_host::config::MAX_SEED;
    if args.seed.checked_add(args.games - 1).is_none_or(|last| last > max) {
        let why = format!("--seed {} with --games {}: the last game's seed would pass {max}", args.seed, args.games);
        return Err(CliError::Usage(why));
    }
    let loaded = load_config(args.config.as_deref(), mods)?;
    let players = loaded.config.players.len();
    let categories = loaded.rules.categories();
    // No more threads than games: one left without a game would be told as working.
    let jobs = args.jobs.min(usize::try_from(args.games).unwrap_or(usize::MAX));
    let next = AtomicU64::new(0);
    let bar = if args.json { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(args.games) };
    let start = Instant::now();
    let results: Vec<Result<Tally, CliError>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut tally = Tally::new(players, categories.len());
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= args.games {
                            return Ok(tally);
                        }
                        let seed = args.seed.wrapping_add(i);
                        let mut game = Game::new(loaded.rules.clone(), loaded.setup_seeded(seed))?;
                        let mut bots = make_bots(&args.bots, players, seed)?;
                        if let Err(e) = play_out(&mut game, &mut bots) {
                            // The other workers stop too: the games after a broken one tell
                            // nothing more.
                            next.store(args.games, Ordering::Relaxed);
                            return Err(stopped(&args, mods, seed, e, &loaded));
                        }
                        tracing::debug!(game = i, seed, scores = ?game.state().scores(), "game over");
                        tally.count(game.state());
                        if i.is_multiple_of(64) {
                            bar.set_position(i);
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker panicked")).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let mut total = Tally::new(players, categories.len());
    for r in results {
        total.add(&r?);
    }
    let summary = Summary {
        games: args.games,
        seconds,
        games_per_sec: args.games as f64 / seconds,
        jobs,
        players: loaded.config.players.clone(),
        bots: (0..players).map(|p| format!("{:?}", args.bots[p % args.bots.len()]).to_lowercase()).collect(),
        mean_scores: total.scores.iter().map(|&s| s as f64 / args.games as f64).collect(),
        wins: total.wins,
        shared_wins: total.shared,
        categories: (categories.iter().enumerate())
            .map(|(c, name)| CategorySummary {
                category: name.clone(),
                mean_points: total.points[c] as f64 / args.games as f64,
                games_scored: total.scored_in[c],
            })
            .collect(),
    };
    if args.json {
        say!("{}", serde_json::to_string(&summary).expect("summary serialises"));
    } else {
        say!(
            "{} games of {} in {:.2} s on {} thread(s): {:.0} games/s",
            summary.games,
            ruleset_title(&loaded),
            seconds,
            jobs,
            summary.games_per_sec
        );
        for p in 0..players {
            say!(
                "  {:<12} {:<7} mean score {:>6.1}   wins alone {:>6} ({:.1} %)   wins shared {:>5}",
                summary.players[p],
                summary.bots[p],
                summary.mean_scores[p],
                summary.wins[p],
                100.0 * summary.wins[p] as f64 / summary.games as f64,
                summary.shared_wins[p]
            );
        }
        let percent = |n: u64| 100.0 * n as f64 / summary.games as f64;
        // Categories that never scored are named apart: a rule of another edition, or one that
        // these games never reached, which a modder wants to know and a player can pass over.
        let (scored, never): (Vec<_>, Vec<_>) = summary.categories.iter().partition(|c| c.games_scored > 0);
        let by_category: Vec<String> = (scored.iter())
            .map(|c| format!("{} {:.1} ({:.1} %)", c.category, c.mean_points, percent(c.games_scored)))
            .collect();
        let never: Vec<&str> = never.iter().map(|c| c.category.as_str()).collect();
        let never = if never.is_empty() { String::new() } else { format!("; never: {}", never.join(", ")) };
        say!(
            "  points a game, all players, by category (and the games it scored in): {}{never}",
            by_category.join(", ")
        );
    }
    Ok(())
}

/// The error of a game that stopped, with the `meeple play` command that plays it again: the
/// same seed gives the same setup and bots there.
fn stopped(args: &Args, mods: &[PathBuf], seed: u64, e: CliError, loaded: &meeple_host::Loaded) -> CliError {
    let CliError::Action(error) = e else { return e };
    // Told with the error, once, on the error stream: every thread may stop a game.
    let failing = crate::play::failing_line(loaded, &error);
    let mut again = String::from("meeple play");
    if let Some(config) = &args.config {
        again += &format!(" {}", config.display());
    }
    for dir in mods {
        again += &format!(" --mods {}", dir.display());
    }
    let bots: Vec<String> = args.bots.iter().map(|b| format!("{b:?}").to_lowercase()).collect();
    again += &format!(" --seed {seed} --bots {}", bots.join(","));
    CliError::GameStopped { seed, error: Box::new(error), failing, again }
}
