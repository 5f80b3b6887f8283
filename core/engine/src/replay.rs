//! Replays: the setup plus every action, with state hashes to prove that replaying reproduces
//! the game exactly. Saving a game means writing its replay; loading means replaying it.

use crate::action::Action;
use crate::game::{ActionError, Checkpoint, Game, Setup, SetupError};
use crate::rng::RNG_NAME;
use crate::rules::Rules;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The format tag written into every replay.
pub const REPLAY_FORMAT: &str = "meeple-replay/1";

/// A recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Replay {
    /// Always [`REPLAY_FORMAT`].
    pub format: String,
    /// The random generator ([`RNG_NAME`]).
    pub rng: String,
    /// Hash of the manifests, tilesets and scripts the game was played with.
    pub ruleset: String,
    /// Each expansion's part of `ruleset`, by id ([`crate::Rules::hash_parts`]): when the
    /// ruleset differs, the replay names the expansions whose part does.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub expansion_hashes: BTreeMap<String, String>,
    /// The game config the ruleset was built from (filled in by whoever loads rulesets).
    #[serde(default)]
    pub config: Value,
    /// Players, seed, draw order.
    pub setup: Setup,
    /// Every action in order.
    pub actions: Vec<Action>,
    /// State hashes at the end of turns.
    pub checkpoints: Vec<Checkpoint>,
    /// State hash after the last action.
    pub state_hash: String,
    /// Who played each seat, as the program that played the game names them (`meeple play`
    /// writes `human`, `random` or `greedy`), so that a stopped game goes on with the same
    /// players. The engine does not read it, nor does any hash cover it.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "any_seats")]
    pub seats: Vec<String>,
}

/// Reads `seats` as a list of names and anything else as none: what they say is only a
/// program's default for going on, and a replay is not refused for it.
fn any_seats<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Seats {
        Names(Vec<String>),
        Other(serde::de::IgnoredAny),
    }
    Ok(match Seats::deserialize(d)? {
        Seats::Names(names) => names,
        Seats::Other(_) => Vec::new(),
    })
}

/// Which rules a replay may be played back on ([`Game::from_replay_on`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReplayRules {
    /// Only those it was recorded with: its ruleset hash must be theirs.
    #[default]
    Recorded,
    /// Rules whose files may have changed since (a tile renamed, a comment edited): the
    /// ruleset hash is not compared, every recorded state hash still is.
    Other,
}

impl ReplayRules {
    /// [`ReplayRules::Other`] when asked for, else [`ReplayRules::Recorded`].
    pub fn other_if(other: bool) -> ReplayRules {
        if other { ReplayRules::Other } else { ReplayRules::Recorded }
    }
}

/// Why a replay could not be played back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// Not a replay of this engine.
    #[error("not a {REPLAY_FORMAT} replay (format `{0}`)")]
    Format(String),
    /// Made with another random generator.
    #[error("replay uses random generator `{0}`, this engine has {RNG_NAME}")]
    Rng(String),
    /// Made with other rules files.
    #[error(
        "the replay was recorded with ruleset {recorded}, these rules hash to {current} ({})",
        what_differs(differing)
    )]
    Ruleset {
        /// Hash in the replay.
        recorded: String,
        /// Hash of the rules given.
        current: String,
        /// The expansions whose part of the hash differs, by id (none known for a replay
        /// written without its parts).
        differing: Vec<String>,
    },
    /// The game could not start.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// An action was refused.
    #[error("actions[{index}] (turn {turn}: `{described}`) was refused: {error}")]
    Action {
        /// Index of the action.
        index: usize,
        /// The turn it was taken in, as the game tells turns (from 1).
        turn: u32,
        /// The action.
        action: Action,
        /// The action in words, in the state that refused it.
        described: String,
        /// Why.
        error: Box<ActionError>,
    },
    /// A checkpoint that the actions never reach (past the last one, or out of order).
    #[error(
        "the checkpoint after {} is never reached: the replay has {}, and checkpoints come in order",
        actions_word(*actions),
        actions_word(*total)
    )]
    Unreached {
        /// The checkpoint's action count.
        actions: usize,
        /// Actions in the replay.
        total: usize,
    },
    /// The game went another way than when it was recorded.
    #[error("after {} the state hash is {found}, the replay recorded {expected}", actions_word(*actions))]
    Diverged {
        /// Actions applied.
        actions: usize,
        /// Recorded hash.
        expected: String,
        /// Hash found now.
        found: String,
    },
}

/// Formats a state hash for files (hex, so JSON readers never round it).
pub fn hash_hex(h: u64) -> String {
    format!("{h:016x}")
}

/// Whether `rules` are other than those a game was recorded on, whose ruleset hash was
/// `recorded` and each expansion's part of it `parts`: `None` when they hash alike (or either
/// hash is empty: a hand-written replay, rules built in code), else the ids of the expansions
/// whose part differs (none known when `parts` is empty), for [`what_differs`].
pub fn rules_differ(recorded: &str, parts: &BTreeMap<String, String>, rules: &Rules) -> Option<Vec<String>> {
    let differ = !recorded.is_empty() && !rules.hash().is_empty() && recorded != rules.hash();
    differ.then(|| differing_parts(parts, rules.hash_parts()))
}

/// The expansions whose part of the ruleset hash differs between a replay and the rules: in one
/// and not the other, or another hash; none when the replay has no parts to compare.
fn differing_parts(recorded: &BTreeMap<String, String>, current: &BTreeMap<String, String>) -> Vec<String> {
    if recorded.is_empty() {
        return Vec::new();
    }
    let ids: std::collections::BTreeSet<&String> = recorded.keys().chain(current.keys()).collect();
    ids.into_iter().filter(|id| recorded.get(*id) != current.get(*id)).cloned().collect()
}

/// What a ruleset mismatch is told to come from, given the expansions [`rules_differ`] names.
pub fn what_differs(differing: &[String]) -> String {
    let what = "files, edition, options or tile numbers";
    match differing {
        [] => format!("an expansion's {what} differ"),
        ids => format!("the {what} of {} differ", crate::describe::quoted_list(ids)),
    }
}

impl Game {
    /// The game so far as a replay (record checkpoints from the start to include them).
    pub fn replay(&self) -> Replay {
        Replay {
            format: REPLAY_FORMAT.to_string(),
            rng: RNG_NAME.to_string(),
            ruleset: self.rules().hash().to_string(),
            expansion_hashes: self.rules().hash_parts().clone(),
            config: Value::Null,
            setup: self.setup().clone(),
            actions: self.history().to_vec(),
            checkpoints: self.checkpoints().to_vec(),
            state_hash: hash_hex(self.state().hash()),
            seats: Vec::new(),
        }
    }

    /// Plays actions from the start on a ruleset, without checking hashes (hot reload: the same
    /// actions on changed rules).
    pub fn from_actions(rules: Arc<Rules>, setup: Setup, actions: &[Action]) -> Result<Game, ReplayError> {
        let mut game = Game::new(rules, setup)?;
        game.record_checkpoints();
        for (index, &action) in actions.iter().enumerate() {
            game.apply_recorded(index, action)?;
        }
        Ok(game)
    }

    /// Applies the action recorded at `index`; a refusal says which action, in words.
    fn apply_recorded(&mut self, index: usize, action: Action) -> Result<(), ReplayError> {
        self.apply(action).map(drop).map_err(|error| {
            // A refused action changes nothing, so it is described in the state that refused it.
            let described = self.describe(&action).to_string();
            let turn = self.state().turn().number;
            ReplayError::Action { index, turn, action, described, error: Box::new(error) }
        })
    }

    /// Plays a replay back on the rules it was recorded with, or, with [`ReplayRules::Other`],
    /// on rules whose files changed since ([`Game::from_replay_on_other_rules`]).
    pub fn from_replay_on(rules: Arc<Rules>, replay: &Replay, on: ReplayRules) -> Result<Game, ReplayError> {
        match on {
            ReplayRules::Recorded => Game::from_replay(rules, replay),
            ReplayRules::Other => Game::from_replay_on_other_rules(rules, replay),
        }
    }

    /// Plays a replay back, checking every recorded hash.
    pub fn from_replay(rules: Arc<Rules>, replay: &Replay) -> Result<Game, ReplayError> {
        if let Some(differing) = rules_differ(&replay.ruleset, &replay.expansion_hashes, &rules) {
            return Err(ReplayError::Ruleset {
                recorded: replay.ruleset.clone(),
                current: rules.hash().to_string(),
                differing,
            });
        }
        Game::from_replay_on_other_rules(rules, replay)
    }

    /// Plays a replay back on rules whose files may differ from those it was recorded with (a
    /// tile renamed, a comment changed): the ruleset hash is not compared, but every recorded
    /// state hash still is, so a game that goes otherwise on them is refused at its first
    /// difference.
    pub fn from_replay_on_other_rules(rules: Arc<Rules>, replay: &Replay) -> Result<Game, ReplayError> {
        if replay.format != REPLAY_FORMAT {
            return Err(ReplayError::Format(replay.format.clone()));
        }
        if replay.rng != RNG_NAME {
            return Err(ReplayError::Rng(replay.rng.clone()));
        }
        let mut game = Game::new(rules, replay.setup.clone())?;
        game.record_checkpoints();
        let mut expected = replay.checkpoints.iter().peekable();
        for (index, &action) in replay.actions.iter().enumerate() {
            game.apply_recorded(index, action)?;
            while let Some(cp) = expected.next_if(|cp| cp.actions == index + 1) {
                let found = hash_hex(game.state().hash());
                if found != cp.hash {
                    return Err(ReplayError::Diverged { actions: cp.actions, expected: cp.hash.clone(), found });
                }
            }
        }
        if let Some(cp) = expected.next() {
            return Err(ReplayError::Unreached { actions: cp.actions, total: replay.actions.len() });
        }
        let found = hash_hex(game.state().hash());
        if found != replay.state_hash {
            return Err(ReplayError::Diverged {
                actions: replay.actions.len(),
                expected: replay.state_hash.clone(),
                found,
            });
        }
        Ok(game)
    }
}

/// "1 action", "3 actions".
fn actions_word(n: usize) -> String {
    if n == 1 { "1 action".to_string() } else { format!("{n} actions") }
}
