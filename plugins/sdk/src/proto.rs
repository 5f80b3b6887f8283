//! The messages that cross the ABI, encoded as MessagePack with field names (`rmp-serde`), so
//! that the core's types travel as they are.

use meeple_core::action::{Decision, Offer};
use meeple_core::figures::FigureKind;
use meeple_core::rules::TokenKind;
use meeple_core::tileset::TileDef;
use meeple_core::{Command, Event, HookError, Placement, Rules, Scoring, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The message schema version; host and plugin must agree.
pub const PROTO: u32 = 1;

/// Encodes a message.
pub fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    rmp_serde::to_vec_named(v).expect("meeple messages always encode")
}

/// Decodes a message.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    rmp_serde::from_slice(bytes).map_err(|e| format!("cannot decode a message: {e}"))
}

/// How the game config set an expansion up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The message schema the host speaks.
    pub proto: u32,
    /// The expansion's id.
    pub id: String,
    /// The edition played.
    pub edition: String,
    /// Every option with its value.
    pub options: BTreeMap<String, Value>,
}

/// The plugin's answer to `create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Created {
    /// The instance to pass to `call`.
    pub instance: u32,
    /// Names of the hooks it implements.
    pub hooks: Vec<String>,
    /// Its score categories.
    pub categories: Vec<String>,
}

/// The ruleset, for the plugin's own copy (tile kinds, figures, tokens, categories).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RulesData {
    /// `(key, definition, count, is the start tile)` per tile kind, in ruleset order.
    pub tiles: Vec<(String, TileDef, u32, bool)>,
    /// Figure kinds, in ruleset order.
    pub figures: Vec<FigureKind>,
    /// Token kinds, in ruleset order.
    pub tokens: Vec<TokenKind>,
    /// Score categories, in ruleset order.
    pub categories: Vec<String>,
}

impl RulesData {
    /// Describes a ruleset.
    pub fn of(rules: &Rules) -> RulesData {
        let start = rules.start();
        RulesData {
            tiles: rules
                .tiles()
                .iter()
                .enumerate()
                .map(|(i, t)| (t.key.clone(), t.def.clone(), rules.counts()[i], start == Some(i as u16)))
                .collect(),
            figures: rules.figures().to_vec(),
            tokens: rules.tokens().to_vec(),
            categories: rules.categories().to_vec(),
        }
    }

    /// Builds the same ruleset (without expansions).
    pub fn build(&self) -> Result<Rules, String> {
        let mut b = Rules::builder();
        for (key, def, count, start) in &self.tiles {
            b.tile_kind(key, def.clone(), *count, *start).map_err(|e| e.to_string())?;
        }
        for f in &self.figures {
            if f.id == "meeple" {
                b.meeple(f.clone());
            } else {
                b.figure(f.clone()).map_err(|e| e.to_string())?;
            }
        }
        for t in &self.tokens {
            b.token(t.clone()).map_err(|e| e.to_string())?;
        }
        for c in &self.categories {
            b.category(c);
        }
        b.build().map_err(|e| e.to_string())
    }
}

/// A hook call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Call {
    /// Before the first hook call of a ruleset: the ruleset, and the expansion's index in it.
    Rules {
        /// The ruleset.
        rules: RulesData,
        /// The expansion's index (for its storage).
        expansion: u16,
    },
    /// `setup`.
    Setup,
    /// `can_place_tile`.
    CanPlaceTile {
        /// The drawn tile.
        tile: u16,
        /// Its legal placements.
        candidates: Vec<Placement>,
    },
    /// `figure_actions`.
    FigureActions,
    /// `on_action`.
    OnAction {
        /// The offer taken.
        offer: Offer,
    },
    /// `on_decision`.
    OnDecision {
        /// The decision.
        decision: Decision,
        /// The answer.
        option: u16,
    },
    /// An event hook.
    Event {
        /// The event.
        event: Event,
    },
    /// `modify_score`.
    ModifyScore {
        /// The scoring.
        scoring: Scoring,
    },
    /// `final_scoring`.
    FinalScoring,
}

/// What a hook call produced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// Commands, in order.
    pub commands: Vec<Command>,
    /// `can_place_tile`: indices of forbidden candidates.
    pub forbidden: Vec<u32>,
    /// `figure_actions`: the offers.
    pub offers: Vec<Offer>,
}

/// The reply of `call`: the hook's result. An empty reply means `Ok(Reply::default())`.
pub type CallResult = Result<Reply, HookError>;

/// The first byte of a call's bytes says how the rest is encoded: the hot calls use the
/// compact [`crate::wire`] format, everything else a MessagePack [`Call`].
pub mod tag {
    /// A MessagePack `Call` follows.
    pub const MESSAGE: u8 = 0;
    /// The hook's number (`HookKind as u8`) and a wire event follow.
    pub const EVENT: u8 = 1;
    /// A wire scoring follows (`modify_score`).
    pub const SCORING: u8 = 2;
    /// Wire candidates follow (`can_place_tile`).
    pub const CANDIDATES: u8 = 3;
    /// Nothing follows (`figure_actions`).
    pub const FIGURE_ACTIONS: u8 = 4;
}

impl Reply {
    /// True when the hook produced nothing (sent as an empty reply).
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty() && self.forbidden.is_empty() && self.offers.is_empty()
    }
}
