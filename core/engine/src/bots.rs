//! Simple players: uniformly random, and greedy for the largest immediate score gain.

use crate::action::Action;
use crate::game::Game;
use crate::rng::GameRng;
use crate::state::Stage;

/// Something that picks actions.
pub trait Bot {
    /// A short name for output.
    fn name(&self) -> &'static str;
    /// Picks one of the legal actions (the game must not be over).
    fn choose(&mut self, game: &Game) -> Action;
}

/// The seed of the bot in seat `seat` of a game played from `seed`. `meeple play`, `simulate` and
/// `check` seat their bots alike, so that a game one of them names by its seed is the same game
/// in another.
pub fn seat_seed(seed: u64, seat: usize) -> u64 {
    seed.wrapping_mul(31).wrapping_add(seat as u64)
}

/// The bots a program can seat, by name (`random`, `greedy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BotKind {
    /// [`RandomBot`].
    Random,
    /// [`GreedyBot`].
    Greedy,
}

impl BotKind {
    /// Every kind, in the order they are offered.
    pub const ALL: [BotKind; 2] = [BotKind::Random, BotKind::Greedy];

    /// Every kind's name, in the order of [`BotKind::ALL`].
    pub const NAMES: [&'static str; 2] = ["random", "greedy"];

    /// The kind's name in command lines and messages.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// What the kind plays, in a few words (for a command line's help).
    pub fn about(self) -> &'static str {
        match self {
            BotKind::Random => "Uniformly random over all legal actions",
            BotKind::Greedy => "Largest immediate score gain",
        }
    }

    /// Finds a kind by name.
    pub fn parse(name: &str) -> Option<BotKind> {
        BotKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A bot of this kind, seeded (a greedy bot has no use for the seed).
    pub fn make(self, seed: u64) -> Box<dyn Bot + Send> {
        match self {
            BotKind::Random => Box::new(RandomBot::new(seed)),
            BotKind::Greedy => Box::new(GreedyBot::new()),
        }
    }
}

/// Read from its name only: serde's own reading of a unit variant also takes the map
/// `{"random": null}`, which no one writing a bot's name means.
impl<'de> serde::Deserialize<'de> for BotKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<BotKind, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = BotKind;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a bot's name")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<BotKind, E> {
                BotKind::parse(name).ok_or_else(|| E::unknown_variant(name, &BotKind::NAMES))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

/// One bot per seat, cycling through `kinds` (which must not be empty), seat `p`'s seeded by
/// [`seat_seed`]`(seed, p)`.
pub fn seat_bots(kinds: &[BotKind], players: usize, seed: u64) -> Vec<Box<dyn Bot + Send>> {
    assert!(!kinds.is_empty(), "seat_bots needs at least one kind of bot");
    (0..players).map(|p| kinds[p % kinds.len()].make(seat_seed(seed, p))).collect()
}

/// Plays a game to its end, each seat's bot choosing its actions. On an error (an expansion's
/// hook failing) the game is where the failing action found it.
pub fn play_out(game: &mut Game, bots: &mut [Box<dyn Bot + Send>]) -> Result<(), crate::ActionError> {
    while let Some(p) = game.to_act() {
        let action = bots[p as usize].choose(game);
        game.apply(action)?;
    }
    Ok(())
}

/// Picks uniformly among all legal actions, from its own seeded generator.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: GameRng,
    buf: Vec<Action>,
}

impl RandomBot {
    /// A random bot with its own seed.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: GameRng::new(seed, u64::from_le_bytes(*b"randobot")), buf: Vec::with_capacity(128) }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &'static str {
        "random"
    }

    fn choose(&mut self, game: &Game) -> Action {
        game.legal_actions_into(&mut self.buf);
        assert!(!self.buf.is_empty(), "no legal action: is the game over?");
        self.buf[self.rng.below(self.buf.len() as u32) as usize]
    }
}

/// Picks the action that gains its player the most points right away: for a tile placement,
/// the best figure action that could follow it in the same turn part is counted. Ties go to the
/// first action in legal order, so the bot is deterministic.
#[derive(Clone, Default)]
pub struct GreedyBot {
    /// Copies of the game to try actions on, one for each step looked ahead: each try copies the
    /// position into one (`clone_from`), which allocates nothing once it has held a game as far
    /// along. A fresh copy for each of the hundreds of tries a turn took a third of the time.
    scratch: Vec<Game>,
}

impl std::fmt::Debug for GreedyBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GreedyBot")
    }
}

impl GreedyBot {
    /// A greedy bot.
    pub fn new() -> GreedyBot {
        GreedyBot::default()
    }

    /// Points `player` gains by `action`, looking one figure phase ahead after a placement;
    /// tried on the first game of `scratch`, the figure phase on the rest.
    ///
    /// An action during which an expansion's hook fails gains the most: skipping it would hide the
    /// expansion's error and play on a game that differs from the one its author expects, while
    /// choosing it shows the error at the turn where it happens.
    fn gain(scratch: &mut [Game], game: &Game, player: u8, action: Action) -> i32 {
        let (g, deeper) = scratch.split_first_mut().expect("a scratch game for each step looked ahead");
        let before = game.state().score(player);
        g.clone_from(game);
        match g.apply(action) {
            Ok(_) => {}
            Err(crate::ActionError::Hook(_)) => return i32::MAX,
            Err(_) => return i32::MIN,
        }
        let mut best = g.state().score(player) - before;
        if matches!(action, Action::PlaceTile { .. })
            && g.state().turn().stage == Stage::Figure
            && g.state().pending().is_empty()
        {
            let follow = GreedyBot::first_best(g.legal_actions(), |a| GreedyBot::gain(deeper, g, player, a));
            best = best.saturating_add(follow.map_or(0, |(gain, _)| gain));
        }
        best
    }

    /// The first of `actions` that gains the most, with its gain. A failing hook gains the most
    /// there is (`i32::MAX`, see [`GreedyBot::gain`]): the search stops there, since nothing can
    /// gain more and a slow hook would be waited for again at every other action (each call may
    /// take the whole of its wall-clock backstop).
    fn first_best(actions: Vec<Action>, mut gain: impl FnMut(Action) -> i32) -> Option<(i32, Action)> {
        let mut best: Option<(i32, Action)> = None;
        for a in actions {
            let g = gain(a);
            if best.is_none_or(|(b, _)| g > b) {
                best = Some((g, a));
            }
            if g == i32::MAX {
                break;
            }
        }
        best
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn choose(&mut self, game: &Game) -> Action {
        let player = game.to_act().expect("the game is not over");
        let actions = game.legal_actions();
        // A tile placement, then the figure action after it.
        if self.scratch.len() < 2 {
            self.scratch = vec![game.clone(), game.clone()];
        }
        let scratch = &mut self.scratch;
        let best = GreedyBot::first_best(actions, |a| GreedyBot::gain(scratch, game, player, a));
        best.expect("a game not over has a legal action").1
    }
}

#[cfg(test)]
mod tests {
    use super::{Bot, GreedyBot};
    use crate::expansion::{Commands, Expansion, HookError, HookKind, HookResult, HookSet, View};
    use crate::{Event, Game, Rules, Setup, Tileset};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// An expansion whose `tile_placed` fails for every tile a player places, counting its calls.
    #[derive(Default)]
    struct Failing(AtomicUsize);

    impl Expansion for Failing {
        fn id(&self) -> &str {
            "failing"
        }
        fn hooks(&self) -> HookSet {
            HookSet::of(&[HookKind::TilePlaced])
        }
        fn on_event(&self, _: &View<'_>, event: &Event, _: &mut Commands<'_>) -> HookResult {
            match event {
                Event::TilePlaced { player: Some(_), .. } => {
                    self.0.fetch_add(1, Ordering::Relaxed);
                    Err(HookError::new("failing", HookKind::TilePlaced, "no"))
                }
                _ => Ok(()),
            }
        }
    }

    #[test]
    fn a_greedy_bot_chooses_the_first_action_a_hook_fails_on_without_trying_the_rest() {
        let tileset = Tileset::parse("base.toml", include_str!("../../../tilesets/base.toml")).unwrap();
        let failing = Arc::new(Failing::default());
        let mut b = Rules::builder();
        b.tileset(&tileset, "C3").unwrap();
        b.expansion(failing.clone());
        let game = Game::new(Arc::new(b.build().unwrap()), Setup::players(2, 7)).unwrap();
        let first = game.legal_actions()[0];
        assert!(game.legal_actions().len() > 1, "a choice to make");
        // The failing action is chosen, so that the game shows the hook's error where it happens;
        // each other placement would take a slow hook's whole time again.
        assert_eq!(GreedyBot::new().choose(&game), first);
        assert_eq!(failing.0.load(Ordering::Relaxed), 1);
    }
}
