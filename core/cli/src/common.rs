//! What the commands share: loading a config, making bots, printing scores, errors.

use meeple_core::bots::{Bot, BotKind};
use meeple_core::{Game, GameState, Replay, ReplayRules, Rules};
use meeple_host::{GameConfig, Loaded, load};
use meeple_toml::Report;
use std::path::{Path, PathBuf};
use unicode_width::UnicodeWidthStr;

/// Prints a line to stdout. Once stdout cannot be written, nothing more is printed but the
/// command still does its work (a replay it was asked to write is written): when the reader
/// went away (`meeple play | head`) quietly, otherwise (a full disk) the program ends with the
/// error once done ([`stdout_failure`]).
macro_rules! say {
    ($($t:tt)*) => {
        $crate::common::write_line(format_args!($($t)*))
    };
}
pub(crate) use say;

/// Why stdout stopped taking lines: `None` while it works.
static STDOUT_FAILED: std::sync::Mutex<Option<std::io::Error>> = std::sync::Mutex::new(None);

/// See [`say!`].
pub fn write_line(args: std::fmt::Arguments<'_>) {
    write_out(format_args!("{args}\n"));
}

/// Writes a question to stdout, without ending the line, and shows it at once.
pub fn ask(args: std::fmt::Arguments<'_>) {
    write_out(args);
}

/// Writes to stdout, and flushes: nothing once a write failed (a reader gone away is no reason
/// to panic, as `print!` would).
fn write_out(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut failed = STDOUT_FAILED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if failed.is_none() {
        let mut out = std::io::stdout().lock();
        *failed = out.write_fmt(args).and_then(|()| out.flush()).err();
    }
}

/// A failure to write stdout other than its reader going away, to be reported at the end.
pub fn stdout_failure() -> Option<String> {
    let failed = STDOUT_FAILED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let e = failed.as_ref().filter(|e| e.kind() != std::io::ErrorKind::BrokenPipe)?;
    Some(format!("<stdout>: {e}"))
}

/// Prints to stderr; a stderr that cannot be written is no reason to fail (or panic).
pub fn tell(text: &dyn std::fmt::Display) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Writes a file whole or not at all: into a temporary file beside it, synced, then renamed over
/// it, so that a full disk or a power cut leaves no half-written replay or drawing. A link is
/// followed to the file it names; what is not a file (`/dev/stdout`, a pipe) is written as it
/// is. Creates the folder.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write;
    let io = |source| CliError::Io { path: path.to_path_buf(), source };
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if std::fs::metadata(&target).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(&target, bytes).map_err(io);
    }
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let name = target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&temp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&temp, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.map_err(io)
}

/// Refuses, before any work is done, a path to write to that cannot be a file: a folder, or a
/// path under a file (a missing folder is made when the file is written). A game played to its
/// end, or by a person turn by turn, is not to be lost at the last step.
pub fn check_output(path: &Path, flag: &str) -> Result<(), CliError> {
    let shown = path.display();
    if path.is_dir() {
        return Err(CliError::Usage(format!("{flag} {shown}: is a folder; give the file to write")));
    }
    let existing = path.ancestors().skip(1).find(|a| !a.as_os_str().is_empty() && a.exists());
    match existing.filter(|a| !a.is_dir()) {
        Some(file) => Err(CliError::Usage(format!("{flag} {shown}: {} is a file, not a folder", file.display()))),
        None => Ok(()),
    }
}

/// Whether a file can be written at `path`, tried before a long job whose result goes there (a
/// game played to its end, then lost to a folder that takes no files): a file made beside it and
/// removed, its folders made if missing. What is not a plain file (a device) is left to the
/// write.
pub fn check_writable(path: &Path, what: &str) -> Result<(), CliError> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Ok(());
    }
    let cannot = |e: std::io::Error| CliError::Usage(format!("{}: cannot write {what} there: {e}", path.display()));
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(cannot)?;
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let probe = dir.join(format!(".{name}.{}.probe", std::process::id()));
    std::fs::File::create(&probe).map_err(cannot)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Every folder of mods named (`--mods`, `$MEEPLE_MODS`) must be one, and one holding no
/// expansion is warned of: a mistyped folder would otherwise only show as "unknown expansion".
pub fn check_mod_folders(mods: &[PathBuf]) -> Result<(), CliError> {
    let from_env = meeple_host::paths::mods_from_env();
    let named = || mods.iter().map(|m| ("--mods", m)).chain(from_env.iter().map(|m| ("MEEPLE_MODS", m)));
    let missing: Vec<String> = named()
        .filter(|(_, dir)| !dir.as_os_str().is_empty() && !dir.is_dir())
        .map(|(from, dir)| {
            let what = if dir.exists() { "not a folder (give the folder that holds mods)" } else { "no such folder" };
            format!("{from}: {}: {what}", dir.display())
        })
        .collect();
    if !missing.is_empty() {
        return Err(CliError::Usage(missing.join("\n")));
    }
    // An empty folder may be on its way to holding mods: a warning, not a refusal.
    for (from, dir) in named().filter(|(_, dir)| dir.is_dir() && meeple_host::ruleset::expansion_dirs(dir).is_empty()) {
        eprintln!(
            "warning: {from}: {}: holds no expansion (no expansion.toml in it or in a folder directly inside it)",
            dir.display()
        );
    }
    Ok(())
}

/// A count of at least 1 (for clap).
pub fn at_least_one<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        // Digits that do not fit are a number too large, not a slip of the hand.
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!("expected a whole number, at least 1; {text} is too large"))
        }
        _ => Err("expected a whole number, at least 1".into()),
    }
}

/// A length of time in seconds, more than 0 and at most a day (for clap).
pub fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err("expected a number of seconds, more than 0 and at most 86400".into()),
    }
}

/// A number of things in words: `1 tile`, `0 tiles`, `3 tiles`.
pub fn how_many(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    /// An error a hook made, with its line as a path an editor opens from here.
    #[error("{error}\nthe failing line: {line}")]
    AtLine {
        /// The error.
        error: Box<CliError>,
        /// The hook's file and line.
        line: String,
    },
    /// An action failed during play (an expansion error).
    #[error("the game stopped: {0}")]
    Action(#[from] meeple_core::ActionError),
    /// One of many games stopped: which one, and the command that plays it again.
    #[error("the game of seed {seed} stopped: {error}{}\nto play it again, turn by turn: {again}",
        failing.as_deref().map(|f| format!("\nthe failing line: {f}")).unwrap_or_default())]
    GameStopped {
        /// The game's seed.
        seed: u64,
        /// Why it stopped (boxed: an error is large, and this one is rare).
        error: Box<meeple_core::ActionError>,
        /// The file and line of the hook that failed, as a path from here, if known.
        failing: Option<String>,
        /// A `meeple play` command line that plays the same game.
        again: String,
    },
    /// A replay did not play back.
    #[error("{}: {source}{}", path.display(), other_rules_hint(source, path))]
    Replay {
        /// The replay file.
        path: PathBuf,
        /// Why.
        source: Box<meeple_core::ReplayError>,
    },
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

/// What a game plays, for its header: each expansion's name and edition (`Carcassonne C3 +
/// Traders & Builders C3`); an expansion without editions of its own shows its name alone.
pub fn ruleset_title(loaded: &Loaded) -> String {
    let shown = |s: &meeple_host::ruleset::Selected| {
        let one_unnamed = s.manifest.editions.len() == 1 && s.edition == "default";
        let name = if one_unnamed { s.manifest.name.clone() } else { format!("{} {}", s.manifest.name, s.edition) };
        // The rules and tiles played are the edition's unless an option or the config's tile
        // numbers say otherwise: said.
        let changed: Vec<String> = s
            .manifest
            .options
            .iter()
            .filter_map(|o| {
                let value = s.options.get(&o.name).filter(|v| *v != o.default_in(&s.edition))?;
                Some(match value {
                    meeple_core::Value::Str(text) => format!("{} = {text}", o.name),
                    other => format!("{} = {}", o.name, serde_json::to_string(other).unwrap_or_default()),
                })
            })
            .chain(s.tiles.shown())
            .collect();
        if changed.is_empty() { name } else { format!("{name} ({})", changed.join(", ")) }
    };
    loaded.selected.iter().map(shown).collect::<Vec<_>>().join(" + ")
}

/// Loads the ruleset of a config file, or of the built-in default (2 players, base game).
/// Editions that were not made for each other, and native libraries that look out of date, are
/// told on stderr, and played.
pub fn load_config(path: Option<&Path>, mods: &[PathBuf]) -> Result<Loaded, CliError> {
    let loaded = match path {
        Some(p) => load::from_config_file(p, mods).map_err(|report| with_replay_hint(p, report))?,
        None => load::from_config(&GameConfig::default(), mods)?,
    };
    for warning in loaded.warnings().into_iter().chain(loaded.stale_libraries()) {
        eprintln!("warning: {warning}");
    }
    Ok(loaded)
}

/// A saved game given where a config goes (`meeple simulate replays/game-7.json`) is named as
/// one.
fn with_replay_hint(path: &Path, report: meeple_toml::Report) -> CliError {
    let replay =
        || meeple_host::ruleset::read_text(path).is_ok_and(|text| serde_json::from_str::<Replay>(&text).is_ok());
    if report.diagnostics.len() == 1 && report.diagnostics[0].message.starts_with("this is JSON") && replay() {
        let p = path.display();
        return CliError::Usage(format!(
            "{report}\n{p} is a saved game: `meeple play {p}` goes on with it, `meeple replay {p}` plays it back"
        ));
    }
    report.into()
}

/// Whether a file holds a saved game (a replay, as `meeple play` writes it) rather than a config:
/// JSON, which a TOML config never is. A broken one is then told as a replay is.
pub fn is_saved_game(path: &Path) -> bool {
    meeple_host::ruleset::read_text(path).is_ok_and(|text| text.trim_start().starts_with('{'))
}

/// A replay file played back: its config checked as a config file is, its ruleset built, every
/// recorded hash checked. Each problem names the file (and, in the config, the field).
pub fn play_back(file: &Path, mods: &[PathBuf]) -> Result<(Replay, Game), CliError> {
    play_back_on(file, mods, ReplayRules::Recorded).map(|(replay, _, game)| (replay, game))
}

/// [`play_back`], with the ruleset the game plays; `on` other rules, on files that differ
/// from those the game was recorded with, every recorded state still checked.
pub fn play_back_on(file: &Path, mods: &[PathBuf], on: ReplayRules) -> Result<(Replay, Loaded, Game), CliError> {
    // A replay that cannot be read is bad input, as a config that cannot be read is.
    let text = meeple_host::ruleset::read_text(file)?;
    let replay: Replay =
        serde_json::from_str(&text).map_err(|e| CliError::Usage(format!("{}: not a replay: {e}", file.display())))?;
    let (_, loaded) = meeple_protocol::replay_config::load(&replay, mods).map_err(|faults| {
        let lines: Vec<String> = faults.iter().map(|f| format!("{}: {f}", file.display())).collect();
        CliError::Usage(lines.join("\n"))
    })?;
    let game = Game::from_replay_on(loaded.rules.clone(), &replay, on)
        .map_err(|e| CliError::Replay { path: file.to_path_buf(), source: Box::new(e) })?;
    Ok((replay, loaded, game))
}

/// For a replay refused for its ruleset, how to play it back all the same: files that changed may
/// leave the game as it was (a tile renamed), which its recorded states tell.
fn other_rules_hint(e: &meeple_core::ReplayError, path: &Path) -> String {
    match e {
        meeple_core::ReplayError::Ruleset { .. } => {
            format!(
                "; with `--other-rules`, {} plays back on these rules all the same, every recorded state checked",
                path.display()
            )
        }
        _ => String::new(),
    }
}

/// `--bots`' values: the engine's bot kinds by name, each with its help line.
pub fn bot_kind() -> impl clap::builder::TypedValueParser<Value = BotKind> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let kinds = BotKind::ALL.map(|k| PossibleValue::new(k.name()).help(k.about()));
    // Only the names offered reach the map.
    PossibleValuesParser::new(kinds).map(|name| BotKind::parse(&name).expect("one of the names offered"))
}

/// One bot per player, cycling through the kinds given.
pub fn make_bots(kinds: &[BotKind], players: usize, seed: u64) -> Result<Vec<Box<dyn Bot + Send>>, CliError> {
    // More bots than seats is a mistake worth saying: the extra ones would be silently unused.
    if kinds.len() > players {
        return Err(CliError::Usage(format!("--bots names {} bots, but the game has {players} players", kinds.len())));
    }
    Ok(meeple_core::bots::seat_bots(kinds, players, seed))
}

/// Plays a game to its end with one bot per player.
pub fn play_out(game: &mut Game, bots: &mut [Box<dyn Bot + Send>]) -> Result<(), CliError> {
    Ok(meeple_core::bots::play_out(game, bots)?)
}

/// The score table with a column per category that anyone scored in, lined up by the columns
/// each name takes on a terminal.
pub fn score_table(rules: &Rules, st: &GameState, names: &[String]) -> String {
    // Headed as players read them: an expansion's own category by the expansion's name.
    let cats: Vec<&str> = (0..rules.categories().len()).map(|c| rules.category_name(c as u16)).collect();
    let used: Vec<usize> =
        (0..cats.len()).filter(|&c| c < 4 || (0..st.players()).any(|p| st.breakdown(p)[c] != 0)).collect();
    let width = names.iter().map(|n| n.width()).max().unwrap_or(6).max(6);
    let column = |c: usize| cats[c].width().max(5);
    let mut out = " ".repeat(width);
    for &c in &used {
        out += &" ".repeat(1 + column(c) - cats[c].width());
        out += cats[c];
    }
    out += " | total\n";
    for p in 0..st.players() {
        let name = &names[p as usize];
        out += name;
        out += &" ".repeat(width - name.width());
        for &c in &used {
            out += &format!(" {:>w$}", st.breakdown(p)[c], w = column(c));
        }
        out += &format!(" | {:>5}\n", st.score(p));
    }
    out + &tokens_held(rules, st, names)
}

/// What each player holds of an expansion's tokens (goods), which the score table does not show:
/// a line under it, none in a game without tokens.
fn tokens_held(rules: &Rules, st: &GameState, names: &[String]) -> String {
    if rules.tokens().is_empty() {
        return String::new();
    }
    let held = |p: u8| format!("{} {}", names[p as usize], tokens_of(rules, st, p).unwrap_or_else(|| "none".into()));
    let when = if st.is_over() { "at the end" } else { "so far" };
    format!("Held {when}: {}\n", (0..st.players()).map(held).collect::<Vec<_>>().join("; "))
}

/// The tokens (goods) a player holds, counted (`2 wine, 1 cloth`); `None` when none.
pub fn tokens_of(rules: &Rules, st: &GameState, player: u8) -> Option<String> {
    let held: Vec<String> = (rules.tokens().iter().enumerate())
        .map(|(t, kind)| (st.tokens(player, t as u16), &kind.name))
        .filter(|(n, _)| *n > 0)
        .map(|(n, name)| name.counted(n.into()))
        .collect();
    (!held.is_empty()).then(|| held.join(", "))
}

/// The scores of a game and who won it (or how far it got, if it is not over).
pub fn outcome(game: &Game, names: &[String]) -> String {
    let table = score_table(game.rules(), game.state(), names);
    if !game.is_over() {
        return format!("Scores after {} actions (the game is not over)\n{table}", game.history().len());
    }
    let won: Vec<&str> = game.state().winners().iter().map(|&p| names[p as usize].as_str()).collect();
    let title = if won.len() > 1 { "Shared win" } else { "Winner" };
    format!("Final scores\n{table}\n{title}: {}", won.join(", "))
}

#[cfg(test)]
mod tests {
    use super::write_file;

    #[test]
    fn a_file_is_written_whole_or_not_at_all() {
        let scratch = tempfile::Builder::new().prefix("meeple-write-file-").tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("sub/out.json");
        write_file(&path, b"first").unwrap();
        write_file(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        // A write that cannot finish (here: a folder stands where the file goes) leaves nothing.
        let blocked = dir.join("blocked");
        std::fs::create_dir_all(blocked.join("inside")).unwrap();
        assert!(write_file(&blocked, b"x").is_err());
        let left: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 2, "only `sub` and `blocked`: {left:?}");
        // A link is followed: the file it names gets the bytes, and the link stays a link.
        #[cfg(unix)]
        {
            let link = dir.join("link.json");
            std::os::unix::fs::symlink(&path, &link).unwrap();
            write_file(&link, b"third").unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read(&path).unwrap(), b"third");
        }
        // What is not a file is written as it is.
        if std::path::Path::new("/dev/null").exists() {
            write_file(std::path::Path::new("/dev/null"), b"gone").unwrap();
            assert!(!std::fs::metadata("/dev/null").unwrap().is_file(), "still the device");
        }
    }
}
