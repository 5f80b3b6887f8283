//! `meeple play`: one game with bots (or people at the terminal), told turn by turn.

use crate::common::{CliError, how_many, load_config, make_bots, outcome, ruleset_title, say};
use human::{Stopped, Terminal};
use meeple_core::bots::{Bot, BotKind};
use meeple_core::describe::ActionInfo;
use meeple_core::{Action, ActionError, Event, Game, Replay, ReplayRules, SetupError};
use std::path::{Path, PathBuf};
use watch::{Reloaded, Watch};

mod board;
mod human;
mod watch;

/// Arguments of `meeple play`.
#[derive(clap::Args)]
pub struct Args {
    /// Game config (TOML), or a saved game to go on with (a replay `meeple play` wrote, as when
    /// a game was stopped with q: its replay is written back there unless `-o` says otherwise,
    /// and its seats are played as they were; `--human` names the seats people play instead,
    /// `--bots` the bots, and without `--human` hands every seat to a bot).
    /// Without one: two players, the base game.
    config: Option<PathBuf>,
    /// Seed of the draws (overrides the config's; default: from the clock).
    #[arg(long, value_parser = clap::value_parser!(u64).range(..=meeple_host::config::MAX_SEED))]
    seed: Option<u64>,
    /// Bots for the players in turn order, repeated as needed (a seat you play yourself:
    /// `--human`) [default: greedy,random]
    #[arg(long, value_delimiter = ',', value_parser = crate::common::bot_kind())]
    bots: Option<Vec<BotKind>>,
    /// Play seat SEAT yourself (1: the first player), at the terminal: the board drawn in text,
    /// the legal actions numbered, your choice typed (q, or the end of the input, stops the game
    /// and keeps its replay so far). Repeat for more seats.
    #[arg(long, value_name = "SEAT", value_parser = clap::value_parser!(u8).range(1..=6))]
    human: Vec<u8>,
    /// Where to write the replay (default: replays/game-SEED.json, or game-SEED-2.json, … when
    /// that holds another game of the seed).
    #[arg(long, short = 'o', value_name = "FILE")]
    replay: Option<PathBuf>,
    /// No turn log: only the game's header, the final scores and the winner.
    #[arg(long, short)]
    quiet: bool,
    /// Reload changed scripts, manifests, tilesets and config between turns, and replay the game
    /// so far on them (or start a new game, when they change its players, seed, draw, tile limit,
    /// start tile or bag, or refuse an action it took: the replay of the game it replaces is kept
    /// beside, as NAME.replaced-N.json).
    #[arg(long)]
    watch: bool,
    /// Wait this many milliseconds after each turn (to follow a game, or edit scripts meanwhile;
    /// at most 600000, ten minutes).
    #[arg(long, value_name = "MS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    delay: u64,
    /// With a saved game: go on with it on these rules though their files differ from those it
    /// was played with (a tile renamed); every recorded state hash is still checked.
    #[arg(long)]
    other_rules: bool,
}

/// Plays and narrates one game (with `--watch`, the last of those its edits started).
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    if let Some(path) = &args.replay {
        crate::common::check_output(path, "-o")?;
    }
    let humans = args.human.iter().map(|seat| seat - 1).collect();
    let bots = args.bots.clone().unwrap_or_else(|| DEFAULT_BOTS.to_vec());
    let deal = Deal { seed: args.seed, clock: clock_seed(), bots, humans };
    let stdin = std::io::stdin();
    let mut terminal = Terminal::new(stdin.lock(), !std::io::IsTerminal::is_terminal(&stdin));
    let saved = args.config.as_deref().filter(|p| crate::common::is_saved_game(p));
    if args.other_rules && saved.is_none() {
        return Err(CliError::Usage("--other-rules: only for a saved game to go on with".to_string()));
    }
    let (mut table, mut watched) = if let Some(saved) = saved {
        (resumed(saved, &args, &deal, mods)?, None)
    } else if args.watch {
        let (watch, table) = Watch::start(args.config.as_deref(), deal, mods)?;
        (table, Some(watch))
    } else {
        (deal.table(load_config(args.config.as_deref(), mods)?).map_err(NotStarted::into_error)?, None)
    };
    // A saved game that is over has nothing to go on with: it is told, and left as it was.
    if let Some(file) = saved.filter(|_| table.game.is_over()) {
        Story::new(table.names.clone(), args.quiet).resume(&table, file);
        say!("\n{}", outcome(&table.game, &table.names));
        return Ok(());
    }
    // A saved game goes back where it came from.
    let out = args.replay.clone().or(saved.map(Path::to_path_buf));
    // Checked before the game: a replay that cannot be written at its end loses the game.
    crate::common::check_writable(&replay_path(out.as_deref(), table.seed), "the replay")?;
    let mut story = Story::new(table.names.clone(), args.quiet);
    match saved {
        Some(file) => story.resume(&table, file),
        None => story.begin(&table),
    }
    keep_on_interrupt(out.clone());

    // A bot's action a hook failed on, taken again once the rules are fixed: asking the bot
    // again would draw another choice, and the game would go otherwise than unwatched.
    let mut retry: Option<(u8, Action)> = None;
    while let Some(p) = table.game.to_act() {
        let Table { game, bots, humans, names, loaded, .. } = &mut table;
        let again = retry.take().filter(|(seat, action)| *seat == p && game.legal_actions().contains(action));
        let action = if let Some((_, action)) = again {
            action
        } else if humans.contains(&p) {
            // Asked in another player's turn: what that turn did so far comes first.
            let turn = game.state().turn();
            if turn.player != p {
                story.flush_so_far(turn.player, turn.number);
            }
            match terminal.choose(game, names, p) {
                Ok(action) => action,
                Err(why) => return stop(&mut table, &mut story, why, out.as_deref()),
            }
        } else {
            bots[p as usize].choose(game)
        };
        let told = !matches!(action, Action::Pass);
        story.action(game, p, &action);
        // A failing action of a person's is chosen again only if there is another choice.
        let another = humans.contains(&p) && game.legal_actions().len() > 1;
        let events = match (game.apply(action), &mut watched) {
            (Ok(events), _) => events.to_vec(),
            // A person chose it: the game is as it was before, and they choose again (a figure
            // phase with nothing but a pass, which they were not even asked, stops as a bot's).
            (Err(e), None) if another => {
                not_taken(&mut story, game, loaded, told, &e);
                say!("the game is as it was: choose again (q stops it and keeps the replay)");
                continue;
            }
            // What led up to it is saved, to be replayed and looked into.
            (Err(e), None) => {
                if !told {
                    story.lines.push("pass".into());
                }
                let heading = format!("{}, whose last action stopped the game", names[p as usize]);
                let kept = keep_so_far(&mut table, &mut story, &heading, out.as_deref())?;
                // Told in the order it is read: what stopped, where, and what was kept.
                crate::common::tell(&CliError::from(e.clone()));
                say_failing_line(&table.loaded, &e);
                say!("the replay up to it: {kept}");
                return Err(CliError::Reported);
            }
            // The game is as it was before the action: wait for the rules to be fixed, then go on.
            (Err(e), Some(w)) => {
                not_taken(&mut story, game, loaded, told, &e);
                let native = match &e {
                    ActionError::Hook(hook) => native_expansion(loaded, hook),
                    _ => None,
                };
                match native {
                    // Its fix is a new build, which this program cannot load.
                    Some(id) => say!("the game waits as it was; {}", rebuild_advice(id)),
                    None => say!("the game waits as it was; save a fix to go on (Ctrl-C to stop)"),
                }
                if !humans.contains(&p) {
                    retry = Some((p, action));
                }
                while !reload(w, mods, &mut table, &mut story, out.as_deref()) {
                    std::thread::sleep(std::time::Duration::from_millis(250));
                }
                // Replayed on the new rules, or a new game: what Ctrl-C keeps from now on.
                note_so_far(&mut table);
                continue;
            }
        };
        story.events(game, &events);
        note_so_far(&mut table);
        if events.iter().any(|e| matches!(e, Event::TurnEnd { .. })) {
            if args.delay > 0 {
                std::thread::sleep(std::time::Duration::from_millis(args.delay));
            }
            if let Some(w) = &mut watched
                && reload(w, mods, &mut table, &mut story, out.as_deref())
            {
                note_so_far(&mut table);
            }
        }
    }

    // Written below: Ctrl-C from now on has nothing more to keep.
    SO_FAR.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    say!("\n{}", outcome(&table.game, &table.names));

    let (path, note) = save_replay(&mut table, out.as_deref())?;
    say!("Replay written to {}{note}", path.display());
    Ok(())
}

/// The bots of `meeple play` without `--bots`, in turn order, repeated as needed.
const DEFAULT_BOTS: [BotKind; 2] = [BotKind::Greedy, BotKind::Random];

/// The table of a saved game, at its last action, to go on with: its players and seed are the
/// saved ones, its seats too unless this command names them (`--human` the people's, `--bots`
/// the bots, and every seat a bot's without `--human`). The bots start afresh.
fn resumed(file: &Path, args: &Args, deal: &Deal, mods: &[PathBuf]) -> Result<Table, CliError> {
    let refused = |flag: &str, why: &str| CliError::Usage(format!("{flag}: {} is a saved game, {why}", file.display()));
    if args.seed.is_some() {
        return Err(refused("--seed", "dealt from its own seed"));
    }
    if args.watch {
        return Err(refused("--watch", "whose rules are those it was played with; watch a config"));
    }
    let (replay, loaded, game) = crate::common::play_back_on(file, mods, ReplayRules::other_if(args.other_rules))?;
    let names = replay.setup.players.clone();
    let seed = replay.setup.seed;
    let saved = |p: usize| replay.seats.get(p).map(String::as_str);
    deal.check_humans(names.len())?;
    let humans = if args.human.is_empty() && args.bots.is_none() {
        (0..names.len()).filter(|&p| saved(p) == Some(HUMAN)).map(|p| p as u8).collect()
    } else {
        deal.humans.clone()
    };
    // A seat's saved bot, else the default one of its place in turn order (a seat saved as a
    // person's and played by a bot now, or a replay that does not say).
    let kinds: Vec<BotKind> = match &args.bots {
        Some(given) => given.clone(),
        None => (0..names.len())
            .map(|p| {
                let kind = BotKind::ALL.into_iter().find(|k| saved(p) == Some(k.name()));
                kind.unwrap_or(DEFAULT_BOTS[p % DEFAULT_BOTS.len()])
            })
            .collect(),
    };
    let bots = make_bots(&kinds, names.len(), seed)?;
    Ok(Table { loaded, seed, names, bots, humans, game })
}

/// Tells a saved game turn by turn, as `meeple play` told it (`meeple replay --log`).
pub fn retell(replay: &meeple_core::Replay, loaded: &meeple_host::Loaded) -> Result<(), CliError> {
    let mut story = Story::new(replay.setup.players.clone(), false);
    let game = story.play_again(loaded, replay.setup.clone(), &replay.actions)?;
    // A game stopped before its end: what its last turn did so far.
    let turn = game.state().turn();
    story.flush_so_far(turn.player, turn.number);
    Ok(())
}

/// Tells an action a hook failed on, which the game did not take: named with its turn and
/// player, as the story would have told it (`told`: the story has its line, else a pass), and
/// the failing line.
fn not_taken(story: &mut Story, game: &Game, loaded: &meeple_host::Loaded, told: bool, e: &ActionError) {
    let tried = if told { story.lines.pop().unwrap_or_default() } else { "pass".to_string() };
    // After what the turn did so far (the tile whose completed road a pass scores, say), which
    // stays the story's to tell when the turn goes on.
    let mut lines = story.lines.clone();
    lines.push(tried);
    // Under the turn's player, as the story tells turns: an answer from another player names
    // who gave it.
    let turn = game.state().turn();
    say!("{}: {}, not taken: {e}", story.title(turn.player, turn.number), joined(&lines));
    say_failing_line(loaded, e);
}

/// Ends a game a person stopped, or whose input ended, keeping its replay so far.
fn stop(table: &mut Table, story: &mut Story, why: Stopped, given: Option<&Path>) -> Result<(), CliError> {
    let turn = table.game.state().turn();
    let (number, heading) = (turn.number, format!("{}, so far", table.names[turn.player as usize]));
    let kept = keep_so_far(table, story, &heading, given)?;
    let why = match why {
        Stopped::Quit => "stopped",
        Stopped::InputEnded => "the input ended",
    };
    say!("{why} at turn {number}; the replay so far: {kept}");
    Ok(())
}

/// Tells the turn so far under `heading` (after the turn's number) and saves the replay of a
/// game that ends before its end; where it went, as said to people.
fn keep_so_far(table: &mut Table, story: &mut Story, heading: &str, given: Option<&Path>) -> Result<String, CliError> {
    // Told even under `--quiet`: the turn where the game ended early is where to look.
    story.tell(&format!("turn {:>3} · {heading}", table.game.state().turn().number));
    let (path, note) = save_replay(table, given)?;
    Ok(format!("{}{note}", path.display()))
}

/// What to do about a native plugin's failing hook: a saved file cannot fix it.
fn rebuild_advice(id: &str) -> String {
    format!(
        "`{id}` is a native plugin: a running meeple does not load a new build of its library, so rebuild it and \
         start `meeple play` again (Ctrl-C to stop)"
    )
}

/// The id of the expansion whose hook failed, if it is a native plugin.
fn native_expansion<'a>(loaded: &'a meeple_host::Loaded, hook: &meeple_core::HookError) -> Option<&'a str> {
    loaded.native_libraries().map(|(m, _)| m.id.as_str()).find(|id| *id == hook.expansion)
}

/// Reloads the rules when their files changed; a new game is told from its start, after the
/// replay of the game it replaced is kept (`given`: `-o`). Whether the game now runs on reloaded
/// rules.
fn reload(watch: &mut Watch, mods: &[PathBuf], table: &mut Table, story: &mut Story, given: Option<&Path>) -> bool {
    match watch.reload_if_changed(mods, table) {
        Reloaded::No => false,
        Reloaded::Replayed => true,
        Reloaded::NewGame(mut ended) => {
            keep_replaced(&mut ended, given);
            *story = Story::new(table.names.clone(), story.quiet);
            story.begin(table);
            true
        }
    }
}

/// A game in play, with what it was started from: its rules, seed, players and their bots.
struct Table {
    loaded: meeple_host::Loaded,
    seed: u64,
    names: Vec<String>,
    bots: Vec<Box<dyn Bot + Send>>,
    /// The players a person plays (from 0); their bots are not asked.
    humans: Vec<u8>,
    game: Game,
}

impl Table {
    /// Who plays each seat, as a replay keeps it: `human`, or the bot's name.
    fn seats(&self) -> Vec<String> {
        let seat = |p: usize, bot: &dyn Bot| {
            if self.humans.contains(&(p as u8)) { HUMAN.to_string() } else { bot.name().to_string() }
        };
        self.bots.iter().enumerate().map(|(p, bot)| seat(p, bot.as_ref())).collect()
    }

    /// The game so far as a replay, in the JSON written to its file.
    fn replay_json(&mut self) -> String {
        replay_text(&self.replay())
    }

    /// The game's replay, with its config and seats.
    fn replay(&mut self) -> Replay {
        let mut replay = self.game.replay();
        // The seed played, `--seed` over the config's, so that the config in the replay is the game's.
        self.loaded.config.seed = Some(self.seed);
        replay.config = self.loaded.config.to_value();
        replay.seats = self.seats();
        replay
    }

    /// Brings a replay of this game made earlier up to date, and says so; false when it is not
    /// one of this game (another game, or this one replayed on changed rules).
    fn bring_up_to_date(&self, replay: &mut Replay, seed: u64) -> bool {
        let (game, kept) = (&self.game, replay.actions.len());
        let history = game.history();
        let same = seed == self.seed
            && kept <= history.len()
            && replay.actions.last() == kept.checked_sub(1).map(|i| &history[i])
            && replay.checkpoints.len() <= game.checkpoints().len()
            && replay.ruleset == game.rules().hash()
            && replay.setup == *game.setup();
        if same {
            replay.actions.extend_from_slice(&history[kept..]);
            replay.checkpoints.extend_from_slice(&game.checkpoints()[replay.checkpoints.len()..]);
            replay.state_hash = meeple_core::replay::hash_hex(game.state().hash());
        }
        same
    }
}

/// A question's kind as people read it: `pig-farmer` is the pig farmer question.
fn question_name(kind: &str) -> String {
    kind.replace(['-', '_'], " ")
}

/// A seat a person plays, in a replay's `seats`.
const HUMAN: &str = "human";

/// What a game starts from besides its config: `--seed`, a seed from the clock for a config
/// without one (drawn once, so that a new game under `--watch` keeps it), and `--bots`.
#[derive(Clone)]
struct Deal {
    seed: Option<u64>,
    clock: u64,
    bots: Vec<BotKind>,
    /// The players a person plays, from 0 (`--human`, less one).
    humans: Vec<u8>,
}

/// Why a game could not start, with the failing line (as a path from here) when a hook failed.
struct NotStarted {
    /// Boxed: an error is large, and this one is rare.
    error: Box<CliError>,
    line: Option<String>,
    /// The native plugin whose `setup` failed, if one did: a saved file cannot fix it.
    native: Option<String>,
    /// The library the rules could not load with that this program keeps open (as shown), if
    /// one: a new build of it is not read until the program starts again.
    kept_library: Option<String>,
}

impl NotStarted {
    /// The error, with the failing line when there is one.
    fn into_error(self) -> CliError {
        match self.line {
            Some(line) => CliError::AtLine { error: self.error, line },
            None => *self.error,
        }
    }
}

impl Deal {
    /// The seed a game of these rules plays: `--seed`, else the config's, else the clock's.
    fn seed_for(&self, loaded: &meeple_host::Loaded) -> u64 {
        self.seed.or(loaded.config.seed).unwrap_or(self.clock)
    }

    /// Seats the bots and starts a game on these rules.
    fn table(&self, loaded: meeple_host::Loaded) -> Result<Table, NotStarted> {
        let seed = self.seed_for(&loaded);
        let setup = loaded.setup_seeded(seed);
        let names = setup.players.clone();
        let bots =
            make_bots(&self.bots, names.len(), seed).and_then(|bots| self.check_humans(names.len()).map(|()| bots));
        let bots =
            bots.map_err(|error| NotStarted { error: Box::new(error), line: None, native: None, kept_library: None })?;
        let mut game = Game::new(loaded.rules.clone(), setup).map_err(|e| {
            let (line, native) = match &e {
                SetupError::Hook(hook) => (loaded.file_of(hook), native_expansion(&loaded, hook).map(str::to_string)),
                _ => (None, None),
            };
            NotStarted { error: Box::new(e.into()), line, native, kept_library: None }
        })?;
        game.record_checkpoints();
        Ok(Table { loaded, seed, names, bots, humans: self.humans.clone(), game })
    }

    /// A seat a person plays must be one of the game's.
    fn check_humans(&self, players: usize) -> Result<(), CliError> {
        match self.humans.iter().find(|&&p| p as usize >= players) {
            Some(p) => Err(CliError::Usage(format!("--human {}: the game has {players} players", p + 1))),
            None => Ok(()),
        }
    }
}

/// The replay of the game so far and its seed, as [`note_so_far`] last kept it: what Ctrl-C
/// writes before the program ends.
static SO_FAR: std::sync::Mutex<Option<(Replay, u64)>> = std::sync::Mutex::new(None);

/// Keeps the replay of the game so far after each action, for Ctrl-C: the actions since the
/// last are added to it, and it is written out only when needed. (Made anew and written out
/// after each action, it took time in the square of the actions: minutes for a rule that asks
/// thousands of questions a turn.)
fn note_so_far(table: &mut Table) {
    let mut kept = SO_FAR.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let current = kept.as_mut().is_some_and(|(replay, seed)| table.bring_up_to_date(replay, *seed));
    if !current {
        *kept = Some((table.replay(), table.seed));
    }
}

/// A replay as `meeple play` writes it.
fn replay_text(replay: &Replay) -> String {
    serde_json::to_string_pretty(replay).expect("replays serialise") + "\n"
}

/// Makes Ctrl-C end the program as `q` ends a game: the replay so far is written where the
/// game's would go (`-o FILE`, else under `replays/`) and named, and the program exits with the
/// status a shell gives an interrupt (130). People press it to stop a game, `--watch` waiting
/// for a fix among them.
fn keep_on_interrupt(given: Option<PathBuf>) {
    let handler = move || {
        let kept = SO_FAR.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some((replay, seed)) = kept {
            match write_replay(&replay_text(&replay), seed, given.as_deref()) {
                Ok((path, note)) => eprintln!("\nstopped (Ctrl-C); the replay so far: {}{note}", path.display()),
                Err(e) => eprintln!("\nstopped (Ctrl-C); the replay so far could not be written: {e}"),
            }
        }
        std::process::exit(130);
    };
    // Without a handler (one already set), Ctrl-C ends the program as it always does.
    if let Err(e) = ctrlc::set_handler(handler) {
        tracing::debug!("no Ctrl-C handler: {e}");
    }
}

/// Where the replay goes: `-o FILE`, or `replays/game-SEED.json`.
fn replay_path(given: Option<&Path>, seed: u64) -> PathBuf {
    given.map_or_else(|| PathBuf::from(format!("replays/game-{seed}.json")), PathBuf::from)
}

/// Writes the replay of a game that ended or stopped where `meeple play` keeps it, and returns
/// the path with a note for the player. `-o FILE` is written as given. The default name is the
/// seed's, which another config or other bots play too: a file holding another game is kept,
/// and this one goes to the first of `game-SEED-2.json`, `-3`, … that is free or holds this very
/// game (the same command again writes over its own game, losing nothing).
fn save_replay(table: &mut Table, given: Option<&Path>) -> Result<(PathBuf, String), CliError> {
    write_replay(&table.replay_json(), table.seed, given)
}

/// Writes a replay's text as [`save_replay`] does.
fn write_replay(text: &str, seed: u64, given: Option<&Path>) -> Result<(PathBuf, String), CliError> {
    let first = replay_path(given, seed);
    let path = if given.is_some() {
        first.clone()
    } else {
        std::iter::once(first.clone())
            .chain((2..).map(|n| PathBuf::from(format!("replays/game-{seed}-{n}.json"))))
            .find(|p| !holds_other_game(p, text.as_bytes()))
            .expect("some number is free")
    };
    crate::common::write_file(&path, text.as_bytes())?;
    let note =
        if path == first { String::new() } else { format!(" ({} holds another game of seed {seed})", first.display()) };
    Ok((path, note))
}

/// Whether `path` holds something other than the replay `text`, to be kept. A file that cannot
/// be read is passed over too: what it holds is not known. A path where nothing can be found
/// (in a folder that cannot be read, or under a file) holds nothing: every name would be passed
/// over, and writing there tells why it cannot be.
fn holds_other_game(path: &Path, text: &[u8]) -> bool {
    match meeple_host::ruleset::read_bounded(path) {
        Ok(bytes) => bytes != text,
        // Read only as far as it is a file of a replay's size: anything else is not this game.
        Err(_) => std::fs::symlink_metadata(path).is_ok(),
    }
}

/// Writes the replay of a game a new one replaced, where its own would go but under a name of
/// its own ([`replaced_path`]): a player testing a rule keeps what happened, and the new game's
/// replay, written at its end, does not replace it. A file that cannot be written is told, and
/// the new game plays on.
fn keep_replaced(ended: &mut Table, given: Option<&Path>) {
    let path = replaced_path(&replay_path(given, ended.seed));
    let text = ended.replay_json();
    match crate::common::write_file(&path, text.as_bytes()) {
        Ok(()) => say!("the replay of the game that ended: {}", path.display()),
        Err(e) => say!("the replay of the game that ended is not kept: {e}"),
    }
}

/// The first name not taken beside `path` for a replaced game: `replays/game-4.json` gives
/// `replays/game-4.replaced-1.json`, then `-2`, and so on, so that no replay is written over,
/// from this game or an earlier one. What is not a file (`-o /dev/null`) is written to as is.
fn replaced_path(path: &Path) -> PathBuf {
    if path.exists() && !path.is_file() {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map_or_else(|| "game".into(), |s| s.to_string_lossy());
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    (1..)
        .map(|n| path.with_file_name(format!("{stem}.replaced-{n}{ext}")))
        .find(|p| !p.exists())
        .expect("some number is free")
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64 % 1_000_000_000)
}

/// What a feature's points are counted from, as players count them: a city's or road's tiles
/// and coats of arms (` (3 tiles, 1 coat of arms)`), a field's completed cities (` (2 completed
/// cities)`); empty for a monastery or garden, whose points the rules count otherwise.
fn size(game: &Game, feature: meeple_core::features::SegId) -> String {
    let features = game.state().features();
    let root = features.find(feature);
    match features.info(root).kind {
        meeple_core::SegmentKind::City | meeple_core::SegmentKind::Road => {}
        meeple_core::SegmentKind::Field => {
            return match game.state().field_cities(game.rules(), root).len() {
                0 => " (no completed city)".to_string(),
                n => format!(" ({})", how_many(n, "completed city", "completed cities")),
            };
        }
        _ => return String::new(),
    }
    let tiles = how_many(features.tile_count(root) as usize, "tile", "tiles");
    match features.data(root).arms {
        0 => format!(" ({tiles})"),
        n => format!(" ({tiles}, {})", how_many(n as usize, "coat of arms", "coats of arms")),
    }
}

/// Collects what happens in a turn and prints one paragraph per turn.
struct Story {
    names: Vec<String>,
    lines: Vec<String>,
    quiet: bool,
    /// The title of a turn that ended, told once what its `turn_end` handlers did is known.
    ended: Option<String>,
    /// A part of a turn that ended (its player, turn and part): told on a line of its own once
    /// another part begins, else with the turn's.
    part_ended: Option<(u8, u32, u8)>,
    /// The part of the turn being told, from 2 once an earlier one was told.
    part: u8,
}

impl Story {
    fn new(names: Vec<String>, quiet: bool) -> Story {
        Story { names, lines: Vec::new(), quiet, ended: None, part_ended: None, part: 1 }
    }

    /// A turn's title, with the part being told when it is not the first (`turn  4 · Ann, part
    /// 2`): the line of part 1 was told when part 2 began.
    fn title(&self, player: u8, turn: u32) -> String {
        let name = &self.names[player as usize];
        match self.part {
            1 => format!("turn {turn:>3} · {name}"),
            part => format!("turn {turn:>3} · {name}, part {part}"),
        }
    }

    /// Tells the turn so far (`turn  4 · Ann, so far: …`): a game stopped in it, or a question
    /// asked of another player in it.
    fn flush_so_far(&mut self, player: u8, turn: u32) {
        let title = format!("{}, so far", self.title(player, turn));
        self.flush(&title);
    }

    /// Tells who plays with which bot, on what and with which seed, and what the setup did.
    fn begin(&mut self, table: &Table) {
        self.header(table);
        self.setup(&table.game);
    }

    /// Tells what a game's setup did.
    fn setup(&mut self, game: &Game) {
        // A game whose bag is empty ends in its setup: the setup is told before its final scoring.
        let events = game.events();
        let end = events.iter().position(|e| matches!(e, Event::FinalScoring)).unwrap_or(events.len());
        self.events(game, &events[..end]);
        self.flush("setup");
        self.events(game, &events[end..]);
    }

    /// Notes an action player `p` chose, before it is taken (a pass is told by what follows).
    fn action(&mut self, game: &Game, p: u8, action: &Action) {
        if matches!(action, Action::Pass) {
            return;
        }
        // An answer may come from another player than the turn's (pig owners in turn): it then
        // names who gave it.
        let who = if game.state().turn().player != p { format!("{} ", self.names[p as usize]) } else { String::new() };
        self.lines.push(match game.describe(action) {
            // The question by its name as the prompt says it (`pig farmer`), not its id.
            ActionInfo::Choose { decision, option, .. } => {
                format!("{who}chose: {option} ({})", question_name(&decision))
            }
            said => said.to_string(),
        });
    }

    /// The game's rules, seats and seed, and how to read the board for a person at the table.
    fn header(&self, table: &Table) {
        let seats: Vec<String> = (self.names.iter().zip(&table.bots).enumerate())
            .map(|(p, (n, b))| format!("{n} ({})", if table.humans.contains(&(p as u8)) { "you" } else { b.name() }))
            .collect();
        say!("meeple · {} · {} · seed {}", ruleset_title(&table.loaded), seats.join(", "), table.seed);
        if !table.humans.is_empty() {
            say!("{}", human::LEGEND);
        }
    }

    /// Opens a saved game gone on with: where it stands.
    fn resume(&mut self, table: &Table, file: &Path) {
        self.header(table);
        let (game, turn) = (&table.game, table.game.state().turn());
        let actions = game.history().len();
        if game.is_over() {
            say!("{}: the game is over ({actions} actions)", file.display());
            return;
        }
        let player = &self.names[turn.player as usize];
        let actions = how_many(actions, "action", "actions");
        say!("{}: {actions} in, going on at turn {} ({player}'s)", file.display(), turn.number);
        self.recall_turn(table);
    }

    /// Takes up the lines of the turn a saved game stands in, as they were told when it was
    /// played, so that the turn is told whole once it ends: the game is played again from its
    /// setup, quietly. A game that does not play back as it did (it did a moment ago) tells the
    /// turn from here.
    fn recall_turn(&mut self, table: &Table) {
        let quiet = std::mem::replace(&mut self.quiet, true);
        if self.play_again(&table.loaded, table.game.setup().clone(), table.game.history()).is_err() {
            self.lines.clear();
        }
        self.quiet = quiet;
    }

    /// Plays a game again from its setup on `loaded`'s rules, telling its setup and each of
    /// `actions` as `meeple play` told them; the game once they are all taken.
    fn play_again(
        &mut self,
        loaded: &meeple_host::Loaded,
        setup: meeple_core::Setup,
        actions: &[Action],
    ) -> Result<Game, CliError> {
        let mut game = Game::new(loaded.rules.clone(), setup)?;
        self.setup(&game);
        for &action in actions {
            let p = game.to_act().unwrap_or_default();
            self.action(&game, p, &action);
            let events = game.apply(action)?.to_vec();
            self.events(&game, &events);
        }
        Ok(game)
    }

    fn who(&self, players: impl IntoIterator<Item = u8>) -> String {
        players.into_iter().map(|p| self.names[p as usize].as_str()).collect::<Vec<_>>().join(" & ")
    }

    /// Tells the events of `game` (its state after them names the figures they name).
    fn events(&mut self, game: &Game, events: &[Event]) {
        let rules = game.rules();
        for e in events {
            // What follows a turn's end until the game moves on is what handlers of `turn_end`
            // did: it belongs to the turn's line.
            let moves_on = matches!(
                e,
                Event::TileDrawn { .. }
                    | Event::TileDiscarded { .. }
                    | Event::TilePlaced { .. }
                    | Event::FeatureCompleted { .. }
                    | Event::FeatureScored { .. }
                    | Event::TurnPartEnd { .. }
                    | Event::TurnEnd { .. }
                    | Event::FinalScoring
            );
            if moves_on && let Some(title) = self.ended.take() {
                self.flush(&title);
            }
            // Another part begins: the one that ended gets its line now, before the player
            // chooses for the next.
            if moves_on
                && !matches!(e, Event::TurnEnd { .. })
                && let Some((player, turn, part)) = self.part_ended.take()
            {
                self.flush(&self.title(player, turn));
                self.part = part + 1;
            }
            match e {
                Event::TilePlaced { player: None, tile, pos, .. } => {
                    self.lines.push(format!("start tile {} at {pos}", rules.tile(*tile).key))
                }
                Event::TileDiscarded { tile } => {
                    self.lines.push(format!("{} fits nowhere and leaves the game", rules.tile(*tile).key))
                }
                // Nothing stands on a river: its completion is no scoring to tell.
                Event::FeatureScored { kind: meeple_core::SegmentKind::River, .. } => {}
                Event::FeatureScored { feature, kind, completed, points } => {
                    let what = match (kind, completed) {
                        (meeple_core::SegmentKind::Field, _) => format!("field{}", size(game, *feature)),
                        (_, true) => format!("completed {}{}", kind.name(), size(game, *feature)),
                        (_, false) => format!("unfinished {}{}", kind.name(), size(game, *feature)),
                    };
                    if points.is_empty() {
                        // A feature completed for no points is told too: its completer may get
                        // something for it (Traders & Builders' goods), told beside it.
                        self.lines.push(format!("{what}: no points"));
                    } else {
                        let each: Vec<String> =
                            points.iter().map(|(p, n)| format!("{n} to {}", self.who([*p]))).collect();
                        self.lines.push(format!("{what}: {}", each.join(", ")));
                    }
                }
                // An expansion may add nothing (a pig on a field without cities): not worth a line.
                Event::PointsAdded { points: 0, .. } => {}
                // As a feature's scoring reads ("field: 4 to Ben"), with the category for a name.
                Event::PointsAdded { player, points, category } => {
                    let (cat, who) = (rules.category_name(*category), &self.names[*player as usize]);
                    self.lines.push(if *points > 0 {
                        format!("{cat}: {points} to {who}")
                    } else {
                        format!("{cat}: {} taken from {who}", -points)
                    })
                }
                Event::TokensChanged { player, token, delta } => {
                    let (name, who) = (&rules.tokens()[*token as usize].name, &self.names[*player as usize]);
                    self.lines.push(if *delta >= 0 {
                        format!("{who} gets {}", name.counted(*delta as i64))
                    } else {
                        format!("{who} gives up {}", name.counted(-(*delta as i64)))
                    })
                }
                Event::Log { message, .. } => self.lines.push(message.clone()),
                // A face changes what the figure does (a tollhouse's toll): worth a line.
                Event::FigureTurned { figure, face } => {
                    let f = &game.state().figures()[*figure as usize];
                    let (kind, who) = (&rules.figure(f.kind).name.one, &self.names[f.owner as usize]);
                    self.lines.push(format!("{who}'s {kind} now shows face {face}"));
                }
                Event::TurnPartEnd { player, turn, part } => self.part_ended = Some((*player, *turn, *part)),
                Event::TurnEnd { player, turn } => {
                    self.part_ended = None;
                    self.ended = Some(self.title(*player, *turn));
                    self.part = 1;
                }
                Event::GameEnd => self.flush_block("final scoring"),
                _ => {}
            }
        }
        if let Some(title) = self.ended.take() {
            self.flush(&title);
        }
    }

    /// Tells the turn so far under `title` unless the story is quiet, and forgets it.
    fn flush(&mut self, title: &str) {
        if self.quiet {
            self.lines.clear();
        } else {
            self.tell(title);
        }
    }

    /// Tells what was told since under `title` as [`Story::flush`] does, a line for each: the
    /// final scoring, too long for one line.
    fn flush_block(&mut self, title: &str) {
        if !self.quiet && !self.lines.is_empty() {
            let items: Vec<String> = counted(&self.lines).iter().map(|line| format!("\n  {line}")).collect();
            say!("{title}:{}", items.concat());
        }
        self.lines.clear();
    }

    /// Tells the turn so far under `title`, quiet or not, and forgets it.
    fn tell(&mut self, title: &str) {
        if !self.lines.is_empty() {
            say!("{title}: {}", joined(&self.lines));
        }
        self.lines.clear();
    }
}

/// A turn's lines as one: repeats counted, `; ` between them.
fn joined(lines: &[String]) -> String {
    counted(lines).join("; ")
}

/// The lines with each run of equal ones told once, with its count: a final scoring's many
/// fields without points read `field: no points (×5)`.
fn counted(lines: &[String]) -> Vec<String> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for line in lines {
        match out.last_mut() {
            Some((last, n)) if last == line => *n += 1,
            _ => out.push((line.clone(), 1)),
        }
    }
    out.into_iter().map(|(line, n)| if n > 1 { format!("{line} (×{n})") } else { line }).collect()
}

/// Where a failing hook's line is, as a path an editor opens from here.
pub(crate) fn say_failing_line(loaded: &meeple_host::Loaded, e: &ActionError) {
    if let Some(file) = failing_line(loaded, e) {
        say!("the failing line: {file}");
    }
}

/// The file and line of the hook that refused an action, as a path from here.
pub(crate) fn failing_line(loaded: &meeple_host::Loaded, e: &ActionError) -> Option<String> {
    match e {
        ActionError::Hook(hook) => loaded.file_of(hook),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{counted, holds_other_game, replaced_path};
    use std::path::Path;

    #[test]
    fn a_name_under_a_file_holds_no_other_game() {
        let scratch = tempfile::Builder::new().prefix("meeple-holds-").tempdir().unwrap();
        let dir = scratch.path();
        std::fs::create_dir_all(dir.join("folder")).unwrap();
        std::fs::write(dir.join("replays"), "not a folder").unwrap();
        std::fs::write(dir.join("game.json"), "{}").unwrap();
        assert!(holds_other_game(&dir.join("game.json"), b"[]"));
        assert!(!holds_other_game(&dir.join("game.json"), b"{}"), "the same game");
        assert!(!holds_other_game(&dir.join("free.json"), b"{}"));
        assert!(holds_other_game(&dir.join("folder"), b"{}"), "a folder is not written over");
        // No name under a file is free to read: each is not there, else the search never ends.
        assert!(!holds_other_game(&dir.join("replays/game-5.json"), b"{}"));
    }

    #[test]
    fn a_replaced_game_takes_the_first_name_free_beside_its_replay() {
        let scratch = tempfile::Builder::new().prefix("meeple-replaced-").tempdir().unwrap();
        let dir = scratch.path();
        let game = dir.join("game-4.json");
        assert_eq!(replaced_path(&game), dir.join("game-4.replaced-1.json"));
        std::fs::write(dir.join("game-4.replaced-1.json"), "{}").unwrap();
        assert_eq!(replaced_path(&game), dir.join("game-4.replaced-2.json"));
        assert_eq!(replaced_path(&dir.join("out")), dir.join("out.replaced-1"));
        // `-o /dev/null` keeps no replay: nor of a replaced game.
        assert_eq!(replaced_path(Path::new("/dev/null")), Path::new("/dev/null"));
    }

    #[test]
    fn runs_of_equal_lines_are_told_once_with_their_count() {
        let lines: Vec<String> = [
            "field: 3 to Ann",
            "field: no points",
            "field: no points",
            "field: no points",
            "fields: 4 to Ben",
            "field: no points",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            counted(&lines),
            ["field: 3 to Ann", "field: no points (×3)", "fields: 4 to Ben", "field: no points"]
        );
    }
}
