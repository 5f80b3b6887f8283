//! The messages of `meeple serve --listen` (`docs/protocol.md`, "Over HTTP and WebSocket") as
//! Rust types: every HTTP reply body ([`HttpReply`]) and every WebSocket message the server
//! sends ([`SocketMessage`]). The server builds its replies from these, and the JSON Schema in
//! `docs/protocol.schema.json` holds them beside the stdio protocol's ([`crate::messages::schema`]).

use crate::error::ProtocolError;
use crate::messages::{Names, Outcome};
use crate::state::StateView;
use meeple_core::{Action, Event};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One step of a game: `{"act": action}` or `"undo"`, as updates carry it and the game log
/// keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// An action taken.
    Act(Action),
    /// The last action taken back.
    Undo,
}

/// What happened at one step of a game (`GET /games/{id}/updates`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = seat_sent)]
pub struct Update {
    /// 1, 2, … within the game.
    pub seq: u64,
    /// The seat that took the step.
    pub seat: Option<u8>,
    /// The step.
    pub step: Step,
    /// What the engine reported (none for an undo).
    pub events: Vec<Event>,
}

/// The body of every HTTP reply: `result` when `ok`, `error` otherwise.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = result_or_error)]
pub struct HttpReply {
    /// Whether the request succeeded.
    pub ok: bool,
    /// The route's result (one of [`HttpResult`]'s forms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<HttpResult>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ProtocolError>,
}

impl HttpReply {
    /// A reply to a request that succeeded.
    pub fn success(result: HttpResult) -> HttpReply {
        HttpReply { ok: true, result: Some(result), error: None }
    }

    /// A reply to a request that failed.
    pub fn failure(error: ProtocolError) -> HttpReply {
        HttpReply { ok: false, result: None, error: Some(error) }
    }
}

/// What an HTTP route gives back.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum HttpResult {
    /// `POST /games`.
    Created(GameCreated),
    /// `GET /games`.
    Games(GameList),
    /// `POST /games/{id}/act`.
    Played(Played),
    /// `GET /games/{id}` and `POST /games/{id}/undo`.
    Snapshot(Snapshot),
    /// `GET /games/{id}/updates`.
    Updates(UpdateList),
    /// The routes that are a stdio command's: `GET /` and `GET /version` (`version`),
    /// `GET /expansions`, `POST /verify`, `GET /games/{id}/names`, `GET /games/{id}/replay`
    /// (`save`), `DELETE /games/{id}` (`close`).
    Command(Outcome),
    /// `OPTIONS` (a CORS preflight): `null`.
    Preflight,
}

/// `POST /games`: the new game, with the owner's token and one token per seat.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameCreated {
    /// The new game's id.
    pub game: String,
    /// The owner's token (closes the game, gets its replay before the end).
    pub owner: String,
    /// Each seat's name and token, seat 0 first.
    pub seats: Vec<SeatToken>,
    /// The number of steps taken so far (0).
    pub seq: u64,
    /// Its state.
    pub state: Box<StateView>,
    /// What the numbers in its events stand for.
    pub names: Box<Names>,
    /// Editions played together that were not made for each other, one sentence each.
    pub warnings: Vec<String>,
}

/// A seat of a new game and the token that plays it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatToken {
    /// The seat (0-based).
    pub seat: usize,
    /// The player's name.
    pub name: String,
    /// The seat's token (`Authorization: Bearer …` or `?token=`).
    pub token: String,
}

/// `GET /games`: every game on the server.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameList {
    /// The games.
    pub games: Vec<GameSummary>,
}

/// A game as `GET /games` lists it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = to_act_sent)]
pub struct GameSummary {
    /// Its id.
    pub game: String,
    /// The players' names, by seat.
    pub players: Vec<String>,
    /// The seat to act, if any.
    pub to_act: Option<u8>,
    /// Whether the game is over.
    pub over: bool,
    /// The number of steps taken so far.
    pub seq: u64,
    /// The game it is a copy of (`fork`, over stdio), if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork_of: Option<String>,
    /// The seed its tiles still to draw were dealt anew from (`fork`'s `reseed`), if they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reseeded: Option<u64>,
}

/// A game's state and the number of steps that led to it (`GET /games/{id}`, `undo`, a
/// WebSocket's `state`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// The number of steps taken so far.
    pub seq: u64,
    /// The state.
    pub state: Box<StateView>,
}

/// `act` over HTTP or a WebSocket: the step's number, what happened, and the state after it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Played {
    /// The step's number.
    pub seq: u64,
    /// What happened, in order.
    pub events: Vec<Event>,
    /// The state after it.
    pub state: Box<StateView>,
}

/// `GET /games/{id}/updates?since=`: the updates after `since`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateList {
    /// The number of steps taken so far.
    pub seq: u64,
    /// The updates, in order.
    pub updates: Vec<Update>,
}

/// A message the server sends on a game's WebSocket (`GET /games/{id}/ws`), told apart by
/// `type`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SocketMessage {
    /// The first message: the whole state and the names.
    #[schemars(transform = seat_sent)]
    Welcome {
        /// The game's id.
        game: String,
        /// The seat of the token given, or null for a spectator.
        seat: Option<u8>,
        /// The number of steps taken so far.
        seq: u64,
        /// The state (whole, even with `?brief=true`).
        state: Box<StateView>,
        /// What the numbers in the game's events stand for.
        names: Box<Names>,
        /// With `?since=N`: every step after step N up to this state, for a client that
        /// reconnects to follow on from where it was (absent without `since`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        missed: Option<Vec<Update>>,
    },
    /// The answer to a command the client sent: `result` when `ok`, `error` otherwise.
    #[schemars(transform = result_or_error)]
    Reply {
        /// The command's `id` as read, or null.
        id: serde_json::Value,
        /// Whether the command succeeded.
        ok: bool,
        /// The command's result.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<SocketResult>,
        /// Why it failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ProtocolError>,
    },
    /// A step taken in the game, by any seat.
    #[schemars(transform = seat_sent)]
    Update {
        /// The game's id.
        game: String,
        /// The step's number (1, 2, …).
        seq: u64,
        /// The seat that took it.
        seat: Option<u8>,
        /// The step.
        step: Step,
        /// What the engine reported (none for an undo).
        events: Vec<Event>,
        /// The state after it (brief with `?brief=true`).
        state: Box<StateView>,
    },
    /// The game was closed by its owner; the connection closes after it.
    Closed {
        /// The game's id.
        game: String,
    },
}

impl SocketMessage {
    /// A reply to a command.
    pub fn reply(id: serde_json::Value, result: Result<SocketResult, ProtocolError>) -> SocketMessage {
        match result {
            Ok(result) => SocketMessage::Reply { id, ok: true, result: Some(result), error: None },
            Err(error) => SocketMessage::Reply { id, ok: false, result: None, error: Some(error) },
        }
    }
}

/// What a WebSocket command gives back.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SocketResult {
    /// `act`.
    Played(Played),
    /// `state` and `undo`.
    Snapshot(Snapshot),
}

/// A reply holds `result` when `ok` is true and `error` when it is false, never both; a result
/// may be null (`OPTIONS`).
fn result_or_error(schema: &mut schemars::Schema) {
    crate::messages::reply_forms(schema, |field| serde_json::json!({ "required": [field] }));
}

/// `seat` is always sent, null when nobody holds one (an optional field otherwise reads as one
/// that may be left out).
fn seat_sent(schema: &mut schemars::Schema) {
    always_sent(schema, "seat");
}

/// `to_act` is always sent, null when nobody is to act.
fn to_act_sent(schema: &mut schemars::Schema) {
    always_sent(schema, "to_act");
}

fn always_sent(schema: &mut schemars::Schema, field: &str) {
    if let Some(serde_json::Value::Array(required)) = schema.get_mut("required")
        && !required.iter().any(|r| r == field)
    {
        required.push(field.into());
    }
}
