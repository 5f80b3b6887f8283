//! `meeple play`: one game with bots, told turn by turn.

use crate::common::{BotKind, CliError, load_config, make_bots, say, score_table, winners};
use meeple_core::{Action, Event, Game, Rules};
use std::path::PathBuf;

/// Arguments of `meeple play`.
#[derive(clap::Args)]
pub struct Args {
    /// Game config (TOML). Without one: two players, the base game.
    config: Option<PathBuf>,
    /// Seed of the draws (overrides the config's; default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Bots for the players in turn order, repeated as needed.
    #[arg(long, value_delimiter = ',', default_value = "greedy,random")]
    bots: Vec<BotKind>,
    /// Where to write the replay (default: replays/game-SEED.json).
    #[arg(long, short = 'o', value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Print only the final scores.
    #[arg(long, short)]
    quiet: bool,
}

/// Plays and narrates one game.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let loaded = load_config(args.config.as_deref(), mods)?;
    let seed = args.seed.or(loaded.config.seed).unwrap_or_else(clock_seed);
    let mut setup = loaded.setup(seed);
    setup.seed = seed;
    let names = setup.players.clone();
    let mut bots = make_bots(&args.bots, names.len(), seed);
    let mut game = Game::new(loaded.rules.clone(), setup)?;
    game.record_checkpoints();

    let editions: Vec<String> = loaded.selected.iter().map(|s| format!("{} {}", s.manifest.name, s.edition)).collect();
    let seats: Vec<String> = names.iter().zip(&bots).map(|(n, b)| format!("{n} ({})", b.name())).collect();
    say!("meeple · {} · {} · seed {seed}", editions.join(" + "), seats.join(", "));
    let mut story = Story { names: &names, lines: Vec::new(), quiet: args.quiet };
    story.events(game.rules(), game.events());
    story.flush("setup");

    while let Some(p) = game.to_act() {
        let action = bots[p as usize].choose(&game);
        if !matches!(action, Action::Pass) {
            story.lines.push(format!("{}", game.describe(&action)));
        }
        let events = game.apply(action)?.to_vec();
        story.events(game.rules(), &events);
    }

    say!("\nFinal scores\n{}", score_table(game.rules(), game.state(), &names));
    let won: Vec<&str> = winners(game.state()).iter().map(|&p| names[p as usize].as_str()).collect();
    say!("{}: {}", if won.len() > 1 { "Shared win" } else { "Winner" }, won.join(", "));

    let path = args.replay.unwrap_or_else(|| PathBuf::from(format!("replays/game-{seed}.json")));
    let mut replay = game.replay();
    replay.config = loaded.config.to_value();
    write_json(&path, &replay)?;
    say!("Replay written to {}", path.display());
    Ok(())
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64 % 1_000_000_000)
}

/// Writes pretty JSON, creating the folder.
pub fn write_json<T: serde::Serialize>(path: &std::path::Path, value: &T) -> Result<(), CliError> {
    let io = |source| CliError::Io { path: path.to_path_buf(), source };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let text = serde_json::to_string_pretty(value).expect("replays serialise");
    std::fs::write(path, text + "\n").map_err(io)
}

/// Collects what happens in a turn and prints one paragraph per turn.
struct Story<'a> {
    names: &'a [String],
    lines: Vec<String>,
    quiet: bool,
}

impl Story<'_> {
    fn who(&self, players: impl IntoIterator<Item = u8>) -> String {
        players.into_iter().map(|p| self.names[p as usize].as_str()).collect::<Vec<_>>().join(" & ")
    }

    fn events(&mut self, rules: &Rules, events: &[Event]) {
        for e in events {
            match e {
                Event::TilePlaced { player: None, tile, pos, .. } => {
                    self.lines.push(format!("start tile {} at {pos}", rules.tile(*tile).key))
                }
                Event::TileDiscarded { tile } => {
                    self.lines.push(format!("{} fits nowhere and leaves the game", rules.tile(*tile).key))
                }
                Event::FeatureScored { kind, completed, points, .. } => {
                    let what = if *completed {
                        format!("completed {}", kind.name())
                    } else {
                        format!("unfinished {}", kind.name())
                    };
                    match points.first() {
                        Some((_, n)) => {
                            self.lines.push(format!("{what}: {n} to {}", self.who(points.iter().map(|(p, _)| *p))))
                        }
                        None => self.lines.push(format!("{what}: nobody scores")),
                    }
                }
                Event::PointsAdded { player, points, category } => self.lines.push(format!(
                    "{}: {points} {} points",
                    self.names[*player as usize],
                    rules.categories()[*category as usize]
                )),
                Event::TokensChanged { player, token, delta } => self.lines.push(format!(
                    "{} gets {delta} {}",
                    self.names[*player as usize],
                    rules.tokens()[*token as usize].id
                )),
                Event::Log { message, .. } => self.lines.push(message.clone()),
                Event::TurnEnd { player, turn } => {
                    self.flush(&format!("turn {turn:>3} · {}", self.names[*player as usize]))
                }
                Event::GameEnd => self.flush("final scoring"),
                _ => {}
            }
        }
    }

    fn flush(&mut self, title: &str) {
        if !self.quiet && !self.lines.is_empty() {
            say!("{title}: {}", self.lines.join("; "));
        }
        self.lines.clear();
    }
}
