//! The messages that cross the ABI, encoded as MessagePack (`rmp-serde`, structs as arrays), so
//! that the core's types travel as they are.

use crate::abi::Facts;
use crate::wire::{Reader, Writer};
use meeple_core::action::{Decision, Offer};
use meeple_core::figures::FigureKind;
use meeple_core::rules::TokenKind;
use meeple_core::state::Stage;
use meeple_core::tileset::TileDef;
use meeple_core::view::{Answer, Query, TurnInfo};
use meeple_core::{Command, Event, HookError, HookKind, Interest, Placement, Rules, Scoring, Value, View};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The message schema version; host and plugin must agree.
pub const PROTO: u32 = 1;

/// Encodes a message.
pub fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    rmp_serde::to_vec(v).expect("meeple messages always encode")
}

/// Decodes a message.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    rmp_serde::from_slice(bytes).map_err(|e| format!("cannot decode a message: {e}"))
}

impl Facts {
    /// The facts a view gives.
    pub fn of(view: &View<'_>) -> Facts {
        let t = view.turn();
        Facts {
            players: view.players() as u32,
            turn: t.number,
            player: t.player as u32,
            part: t.part as u32,
            stage: t.stage as u32,
            placed: t.placed.map_or(-1, |i| i as i32),
            tiles_left: t.tiles_left,
            storage_version: view.storage_version(),
        }
    }

    /// The turn they describe, if the stage is one this SDK knows.
    pub fn turn(&self) -> Option<TurnInfo> {
        Some(TurnInfo {
            number: self.turn,
            player: self.player as u8,
            part: self.part as u8,
            stage: *Stage::ALL.get(self.stage as usize)?,
            placed: u16::try_from(self.placed).ok(),
            tiles_left: self.tiles_left,
        })
    }
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
                .map(|(i, t)| (t.key.to_string(), t.def.clone(), rules.counts()[i], start == Some(i as u16)))
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
    /// Once a ruleset is built, before any game of it: the ruleset, and the expansion's index in it.
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
    /// The host is done with the instance (its ruleset is gone): the plugin drops it, and the
    /// instance's number may be given to a new one. Sent by hosts from ABI minor 4 to plugins
    /// built with it.
    Release,
}

impl Call {
    /// The hook a call runs, if it runs one.
    pub fn hook(&self) -> Option<HookKind> {
        Some(match self {
            Call::Rules { .. } | Call::Release => return None,
            Call::Setup => HookKind::Setup,
            Call::CanPlaceTile { .. } => HookKind::CanPlaceTile,
            Call::FigureActions => HookKind::FigureActions,
            Call::OnAction { .. } => HookKind::OnAction,
            Call::OnDecision { .. } => HookKind::OnDecision,
            Call::Event { event } => return HookKind::for_event(event),
            Call::ModifyScore { .. } => HookKind::ModifyScore,
            Call::FinalScoring => HookKind::FinalScoring,
        })
    }
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

/// The reply of `call`: the hook's result. An empty reply means `Ok(Reply::default())`;
/// otherwise its first byte is a [`reply`] tag.
pub type CallResult = Result<Reply, HookError>;

/// The first byte of a non-empty reply says how the rest is encoded.
pub mod reply {
    /// A MessagePack [`super::CallResult`] follows.
    pub const MESSAGE: u8 = 0;
    /// Wire offers follow: `Ok` with offers and nothing else (every `figure_actions` reply).
    pub const OFFERS: u8 = 1;
    /// Wire commands follow: `Ok` with commands and nothing else (most replies).
    pub const COMMANDS: u8 = 2;
    /// A MessagePack `Interest` follows: the reply to the ruleset, to hosts of ABI minor 2 or
    /// later, from an expansion that does not want every call (an empty reply means every call).
    pub const INTEREST: u8 = 3;
    /// Wire commands follow, then the file and line each was given at in the plugin's sources
    /// ([`super::encode_commands_at_into`]): as [`COMMANDS`], to hosts of ABI minor 7 or later,
    /// which name the line when they refuse a command.
    pub const COMMANDS_AT: u8 = 4;
}

/// The first byte of a query's answer says how the rest is encoded.
pub mod answer {
    /// A MessagePack `Answer` follows.
    pub const MESSAGE: u8 = 0;
    /// Wire figures follow (`Answer::Figures`: every figure, those on a feature or of a kind).
    pub const FIGURES: u8 = 1;
    /// A wire answer follows ([`crate::wire_view`]): the answer to a wire query.
    pub const WIRE: u8 = 2;
}

/// The first byte of a query says how it is encoded.
pub mod query {
    /// A wire query follows ([`crate::wire_view`]), to be answered in wire form; sent to hosts
    /// of ABI minor 3 or later. Any other first byte starts a MessagePack `Query` (0xc1 is a
    /// byte MessagePack never uses).
    pub const WIRE: u8 = 0xc1;
}

/// A tag byte, then a MessagePack message.
pub fn tagged_message<T: Serialize>(tag: u8, v: &T) -> Vec<u8> {
    let mut bytes = vec![tag];
    rmp_serde::encode::write(&mut bytes, v).expect("meeple messages always encode");
    bytes
}

/// A tag byte, then what `fill` writes in the wire format.
fn tagged_wire(tag: u8, fill: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer(vec![tag]);
    fill(&mut w);
    w.0
}

/// Reads bytes that hold exactly one wire value (`what` names it in the error).
fn read_whole<'a, T>(
    bytes: &'a [u8],
    what: &str,
    read: impl FnOnce(&mut Reader<'a>) -> Option<T>,
) -> Result<T, String> {
    let mut r = Reader::new(bytes);
    read(&mut r).filter(|_| r.at_end()).ok_or_else(|| format!("a malformed {what}"))
}

/// Encodes the answer to a query.
pub fn encode_answer(a: &Answer) -> Vec<u8> {
    match a {
        Answer::Figures(figures) => tagged_wire(answer::FIGURES, |w| w.figures(figures)),
        other => tagged_message(answer::MESSAGE, other),
    }
}

/// Encodes the answer to a wire query, after what the writer holds (a reused buffer).
pub fn encode_wire_answer_into(a: &Answer, w: &mut Writer) {
    let start = w.0.len();
    w.0.push(answer::WIRE);
    if !w.answer(a) {
        w.0.truncate(start);
        w.0.push(answer::MESSAGE);
        rmp_serde::encode::write(&mut w.0, a).expect("meeple messages always encode");
    }
}

/// Decodes a query: a wire query (true) or a MessagePack one.
pub fn decode_query(bytes: &[u8]) -> Result<(Query, bool), String> {
    match bytes.split_first() {
        Some((&query::WIRE, rest)) => read_whole(rest, "query", Reader::query).map(|q| (q, true)),
        _ => decode(bytes).map(|q| (q, false)),
    }
}

/// Decodes the answer to a query.
pub fn decode_answer(bytes: &[u8]) -> Result<Answer, String> {
    match bytes.split_first() {
        Some((&answer::MESSAGE, rest)) => decode(rest),
        Some((&answer::WIRE, rest)) => read_whole(rest, "wire answer", Reader::answer),
        Some((&answer::FIGURES, rest)) => read_whole(rest, "figures answer", Reader::figures).map(Answer::Figures),
        Some((t, _)) => Err(format!("an answer with unknown tag {t}")),
        None => Err("an empty answer".into()),
    }
}

/// Encodes a hook's result as a reply.
pub fn encode_reply(result: &CallResult) -> Vec<u8> {
    let mut w = Writer::default();
    encode_reply_into(result, &mut w);
    w.0
}

/// Encodes a hook's result as a reply, after what the writer holds (a reused buffer).
pub fn encode_reply_into(result: &CallResult, w: &mut Writer) {
    match result {
        Ok(r) if r.is_empty() => {}
        Ok(r) if r.commands.is_empty() && r.forbidden.is_empty() => {
            w.0.push(reply::OFFERS);
            w.offers(&r.offers);
        }
        Ok(r) if r.offers.is_empty() && r.forbidden.is_empty() => {
            w.0.push(reply::COMMANDS);
            w.commands(&r.commands);
        }
        other => {
            w.0.push(reply::MESSAGE);
            rmp_serde::encode::write(&mut w.0, other).expect("meeple messages always encode");
        }
    }
}

/// Encodes commands with the file and line each was given at (reply tag `COMMANDS_AT`), after
/// what the writer holds. The places are written as the plugin has them, so a call that gives
/// a command allocates nothing for its place.
pub fn encode_commands_at_into<'a>(
    commands: &[Command],
    at: impl ExactSizeIterator<Item = (&'a str, u32)>,
    w: &mut Writer,
) {
    w.0.push(reply::COMMANDS_AT);
    w.commands(commands);
    w.put(at.len() as i64);
    for (file, line) in at {
        w.put(line as i64);
        w.str(file);
    }
}

/// A file and a line, as a reply gives them: the file's name as bytes, not yet checked to be
/// UTF-8, so that a host can look up the names it has seen before without checking them again.
pub type RawPlace<'a> = (&'a [u8], u32);

/// Decodes a reply of tag `COMMANDS_AT`: the commands, and the file and line each was given
/// at, the files borrowed from the bytes.
pub fn decode_commands_at(bytes: &[u8]) -> Result<(Vec<Command>, Vec<RawPlace<'_>>), String> {
    let rest = bytes.strip_prefix(&[reply::COMMANDS_AT]).ok_or("not a reply of commands with their places")?;
    read_whole(rest, "commands reply", |r| {
        let commands = r.commands()?;
        let at = (0..r.count()?)
            .map(|_| Some((u32::try_from(r.get()?).ok()?, r.str_bytes()?)))
            .map(|place| place.map(|(line, file)| (file, line)))
            .collect::<Option<Vec<_>>>()?;
        Some((commands, at))
    })
}

/// Decodes the reply to the ruleset: what the expansion wants (empty: every call).
pub fn decode_interest(bytes: &[u8]) -> Result<Interest, String> {
    match bytes.split_first() {
        None => Ok(Interest::ALL),
        Some((&reply::INTEREST, rest)) => decode(rest),
        Some((t, _)) => Err(format!("a reply to the ruleset with unknown tag {t}")),
    }
}

/// Decodes a reply.
pub fn decode_reply(bytes: &[u8]) -> Result<CallResult, String> {
    match bytes.split_first() {
        None => Ok(Ok(Reply::default())),
        Some((&reply::MESSAGE, rest)) => decode(rest),
        Some((&reply::OFFERS, rest)) => {
            read_whole(rest, "offers reply", Reader::offers).map(|offers| Ok(Reply { offers, ..Reply::default() }))
        }
        Some((&reply::COMMANDS, rest)) => read_whole(rest, "commands reply", Reader::commands)
            .map(|commands| Ok(Reply { commands, ..Reply::default() })),
        // Read without the places, which only the host's own reading of commands keeps.
        Some((&reply::COMMANDS_AT, _)) => {
            decode_commands_at(bytes).map(|(commands, _)| Ok(Reply { commands, ..Reply::default() }))
        }
        Some((t, _)) => Err(format!("a reply with unknown tag {t}")),
    }
}

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
    /// The expansion's own figures follow (`figure_actions`).
    pub const FIGURE_ACTIONS: u8 = 4;
    /// One wire offer follows, the one taken, then the expansion's own figures (`on_action`).
    pub const ACTION: u8 = 5;
}

impl Reply {
    /// True when the hook produced nothing (sent as an empty reply).
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty() && self.forbidden.is_empty() && self.offers.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_survive_the_round_trip_in_each_form() {
        let add = |points| Command::AddPoints { player: 1, points, category: "inns".into() };
        let replies = [
            Reply::default(),
            Reply { commands: vec![add(2), add(3)], ..Reply::default() },
            Reply { forbidden: vec![0, 4], ..Reply::default() },
        ];
        for r in replies {
            let bytes = encode_reply(&Ok(r.clone()));
            assert_eq!(decode_reply(&bytes), Ok(Ok(r)));
        }
        let refused = Err(HookError::new("inns", HookKind::TurnEnd, "no"));
        assert_eq!(decode_reply(&encode_reply(&refused)), Ok(refused));
    }

    #[test]
    fn commands_keep_the_places_they_were_given_at() {
        let commands = [Command::ExtraTurnPart, Command::Log { message: "hi".into() }];
        let mut w = Writer::default();
        encode_commands_at_into(&commands, [("src/lib.rs", 7), ("src/roads.rs", 40)].into_iter(), &mut w);
        let (read, at) = decode_commands_at(&w.0).unwrap();
        assert_eq!(read, commands);
        assert_eq!(at, [(&b"src/lib.rs"[..], 7), (&b"src/roads.rs"[..], 40)]);
        // Read as any reply: the commands alone.
        assert_eq!(decode_reply(&w.0), Ok(Ok(Reply { commands: commands.to_vec(), ..Reply::default() })));
    }
}
