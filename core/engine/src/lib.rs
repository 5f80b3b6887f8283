//! # meeple-core
//!
//! The rules engine of meeple: tiles and tilesets, the board, the feature graph, figures,
//! scoring, the turn machine, and the [`Expansion`] hook interface through which every
//! expansion — built-in, Luau or native — changes the game.
//!
//! This crate does no IO, runs no VM, loads no library and contains no `unsafe`. Files are read
//! by `meeple-host`; this crate parses text it is given.
//!
//! ```
//! use meeple_core::{Game, Rules, Setup, Tileset, bots::{Bot, RandomBot}};
//! use std::sync::Arc;
//! let text = include_str!("../../../tilesets/base.toml");
//! let tileset = Tileset::parse("tilesets/base.toml", text).unwrap();
//! let rules = Arc::new(Rules::base(&tileset, "C3").unwrap());
//! let mut game = Game::new(rules, Setup::players(2, 7)).unwrap();
//! let mut bot = RandomBot::new(1);
//! while !game.is_over() {
//!     let action = bot.choose(&game);
//!     game.apply(action).unwrap();
//! }
//! assert_eq!(game.state().board().tiles().len() + game.state().discarded().len(), 72);
//! ```

#![forbid(unsafe_code)]

pub mod action;
pub mod board;
pub mod bots;
pub mod describe;
pub mod expansion;
pub mod features;
pub mod figures;
pub mod game;
pub mod geometry;
pub mod hash;
pub mod replay;
mod reuse;
pub mod rng;
pub mod rules;
pub mod state;
pub mod tileset;
pub mod value;
pub mod view;

pub use action::{Action, Decision, Event, Offer, Target};
pub use board::Placement;
pub use expansion::{
    Command, Commands, Expansion, HookError, HookKind, HookResult, HookSet, Interest, KeptValue, Question, Scoring,
    View,
};
pub use figures::{Figure, FigureKind, Location};
pub use game::{ActionError, Game, Setup, SetupError};
pub use geometry::{Port, Pos, Rotation, Side};
pub use replay::{Replay, ReplayError, ReplayRules};
pub use rules::{Rules, RulesBuilder, TileId};
pub use state::{GameState, Stage};
pub use tileset::{SegmentKind, Tileset};
pub use value::Value;
pub use view::{Answer, Query, TileInfo, TurnInfo, ViewSource};
