//! What the commands share: loading a config, making bots, printing scores, errors.

use meeple_core::bots::{Bot, GreedyBot, RandomBot};
use meeple_core::{Game, GameState, Rules};
use meeple_host::{GameConfig, Loaded, load};
use meeple_toml::Report;
use std::path::{Path, PathBuf};

/// Prints a line to stdout; when stdout is closed (`meeple play | head`) the program ends quietly.
macro_rules! say {
    ($($t:tt)*) => {
        $crate::common::write_line(format_args!($($t)*))
    };
}
pub(crate) use say;

/// See [`say!`].
pub fn write_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if writeln!(std::io::stdout().lock(), "{args}").is_err() {
        std::process::exit(0);
    }
}

/// What can go wrong in a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A config, manifest, tileset or script has problems.
    #[error("{0}")]
    Load(#[from] Report),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The game could not start.
    #[error("cannot start the game: {0}")]
    Setup(#[from] meeple_core::SetupError),
    /// An action failed during play (an expansion error).
    #[error("the game stopped: {0}")]
    Action(#[from] meeple_core::ActionError),
    /// A replay did not play back.
    #[error("replay: {0}")]
    Replay(#[from] meeple_core::ReplayError),
    /// The game database of `meeple serve --listen` could not be opened.
    #[error("{0}")]
    Store(#[from] meeple_server::store::StoreError),
    /// Bad command-line input.
    #[error("{0}")]
    Usage(String),
    /// The command has already told what failed (`meeple test`'s summary): nothing more to say.
    #[error("")]
    Reported,
}

impl CliError {
    /// 2 for bad input, 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Load(_) | CliError::Usage(_) => 2,
            _ => 1,
        }
    }
}

/// Loads the ruleset of a config file, or of the built-in default (2 players, base game).
pub fn load_config(path: Option<&Path>, mods: &[PathBuf]) -> Result<Loaded, CliError> {
    Ok(match path {
        Some(p) => load::from_config_file(p, mods)?,
        None => load::from_config(&GameConfig::default(), mods)?,
    })
}

/// The config of a replay read from `file` and its ruleset, checked as a config file is; each
/// problem is named by its field in the replay (`config.players`).
pub fn replay_config(
    replay: &meeple_core::Replay,
    file: &Path,
    mods: &[PathBuf],
) -> Result<(GameConfig, Loaded), CliError> {
    meeple_protocol::replay_config::load(replay, mods).map_err(|faults| {
        let lines: Vec<String> = faults.iter().map(|f| format!("{}: {f}", file.display())).collect();
        CliError::Usage(lines.join("\n"))
    })
}

/// The bot kinds on offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BotKind {
    /// Uniformly random over all legal actions.
    Random,
    /// Largest immediate score gain.
    Greedy,
}

/// A bot of a kind, seeded.
pub fn make_bot(kind: BotKind, seed: u64) -> Box<dyn Bot + Send> {
    match kind {
        BotKind::Random => Box::new(RandomBot::new(seed)),
        BotKind::Greedy => Box::new(GreedyBot::new()),
    }
}

/// One bot per player, cycling through the kinds given.
pub fn make_bots(kinds: &[BotKind], players: usize, seed: u64) -> Vec<Box<dyn Bot + Send>> {
    (0..players).map(|p| make_bot(kinds[p % kinds.len()], seed.wrapping_mul(31).wrapping_add(p as u64))).collect()
}

/// Plays a game to its end with one bot per player.
pub fn play_out(game: &mut Game, bots: &mut [Box<dyn Bot + Send>]) -> Result<(), CliError> {
    while let Some(p) = game.to_act() {
        let action = bots[p as usize].choose(game);
        game.apply(action)?;
    }
    Ok(())
}

/// The score table with a column per category that anyone scored in.
pub fn score_table(rules: &Rules, st: &GameState, names: &[String]) -> String {
    let cats = rules.categories();
    let used: Vec<usize> =
        (0..cats.len()).filter(|&c| c < 4 || (0..st.players()).any(|p| st.breakdown(p)[c] != 0)).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(6).max(6);
    let mut out = format!("{:width$}", "");
    for &c in &used {
        out += &format!(" {:>w$}", cats[c], w = cats[c].len().max(5));
    }
    out += " | total\n";
    for p in 0..st.players() {
        out += &format!("{:width$}", names[p as usize]);
        for &c in &used {
            out += &format!(" {:>w$}", st.breakdown(p)[c], w = cats[c].len().max(5));
        }
        out += &format!(" | {:>5}\n", st.score(p));
    }
    out
}

/// Indices of the players with the highest score (several on a tie: a shared win).
pub fn winners(st: &GameState) -> Vec<u8> {
    let best = (0..st.players()).map(|p| st.score(p)).max().unwrap_or(0);
    (0..st.players()).filter(|&p| st.score(p) == best).collect()
}
