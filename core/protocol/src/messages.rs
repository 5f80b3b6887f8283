//! The messages of protocol v1 as Rust types: what each command takes and gives back. The JSON
//! Schema in `docs/protocol.schema.json` is generated from these ([`schema`]).

use crate::error::ProtocolError;
use crate::network::{HttpReply, SocketMessage};
use crate::state::{Detail, StateView};
use meeple_core::rules::Noun;
use meeple_core::{Action, Event, Replay};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A request: `cmd` names the command, `id` (any JSON) comes back in the reply as read (a
/// number past 64-bit integers, or with a fraction or exponent, as a 64-bit float).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(tag = "cmd", rename_all = "kebab-case")]
pub enum Request {
    /// The protocol and program versions.
    Version,
    /// Every installed expansion with its editions and options.
    Expansions,
    /// A new game.
    Create(CreateArgs),
    /// A game's state.
    State(ViewArgs),
    /// Takes an action.
    Act(ActArgs),
    /// Takes back the last action of the turn part (never past a tile draw).
    Undo(UndoArgs),
    /// The game as a replay.
    Save(GameArgs),
    /// A replay played back into a new game.
    Load(ReplayArgs),
    /// Plays a replay back and checks its hashes.
    Verify(ReplayArgs),
    /// Forgets a game.
    Close(GameArgs),
    /// What the numbers in a game's events stand for.
    Names(GameArgs),
    /// A copy of a game under a new id, its tiles still to draw dealt anew if asked.
    Fork(ForkArgs),
    /// Games played on from a game's state to their end by bots, the game left as it is.
    Playout(PlayoutArgs),
    /// The action a built-in bot would take in a game's state, the game left as it is.
    Suggest(SuggestArgs),
    /// Legal actions each taken on a copy of a game: the events and state each leads to.
    Try(TryArgs),
    /// The session's games.
    Games,
}

/// The command names, in [`Request`] order.
pub const COMMANDS: [&str; 16] = [
    "version",
    "expansions",
    "create",
    "state",
    "act",
    "undo",
    "save",
    "load",
    "verify",
    "close",
    "names",
    "fork",
    "playout",
    "suggest",
    "try",
    "games",
];

/// `create`: a config given inline or by path (neither: two players, base game).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[schemars(transform = not_config_and_path)]
pub struct CreateArgs {
    /// The config: TOML text, or an object with a config file's keys (`docs/config.md`).
    #[serde(default)]
    pub config: Option<ConfigSource>,
    /// A config file.
    #[serde(default)]
    pub path: Option<String>,
    /// The seed of the draws, over the config's own (default: the config's, else 1). At most
    /// what a config's TOML integer holds, as the game's replay carries it there.
    #[serde(default)]
    #[schemars(range(max = meeple_host::config::MAX_SEED))]
    pub seed: Option<u64>,
}

/// A config given in a request: a config file's text, or the same keys as a JSON object
/// (`{"players": 3, "expansions": [{"id": "traders-builders"}]}`), which a program writes more
/// easily than TOML. A replay's `config` is taken as it is stored (its `file`, the base game's
/// `id`, options as `{"value": …}`), to start another game of the same rules.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(untagged)]
pub enum ConfigSource {
    /// The text of a config file.
    Text(String),
    /// A config file's keys as a JSON object.
    Object(serde_json::Map<String, serde_json::Value>),
}

impl<'de> Deserialize<'de> for ConfigSource {
    /// A string or an object; anything else is named as the field's meaning (serde's untagged
    /// enums only say that no variant matched).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ConfigSource, D::Error> {
        use serde::de::{Error, Unexpected};
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(text) => Ok(ConfigSource::Text(text)),
            serde_json::Value::Object(object) => Ok(ConfigSource::Object(object)),
            other => {
                let got = match &other {
                    serde_json::Value::Bool(b) => Unexpected::Bool(*b),
                    serde_json::Value::Number(n) => {
                        n.as_i64().map_or(Unexpected::Other("a number"), Unexpected::Signed)
                    }
                    serde_json::Value::Array(_) => Unexpected::Seq,
                    _ => Unexpected::Unit,
                };
                Err(D::Error::invalid_type(got, &"a game config"))
            }
        }
    }
}

/// A command on one game.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct GameArgs {
    /// The game's id (`g1`, …).
    pub game: String,
}

/// `state`: the state of a game.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct ViewArgs {
    /// The game's id (`g1`, …).
    pub game: String,
    /// Reply with a brief state (see `ActArgs::brief`).
    #[serde(default, deserialize_with = "null_is_false")]
    #[schemars(with = "Option<bool>")]
    pub brief: bool,
    /// List every feature, open and empty ones too, not only those completed or holding a
    /// figure (a whole state's `features`; a brief state has none).
    #[serde(default, deserialize_with = "null_is_false")]
    #[schemars(with = "Option<bool>")]
    pub all_features: bool,
}

impl ViewArgs {
    /// How much of the game the reply shows.
    pub fn detail(&self) -> Detail {
        Detail::asked(self.brief, self.all_features)
    }
}

/// `undo`: takes back the last action since the last draw.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct UndoArgs {
    /// The game's id (`g1`, …).
    pub game: String,
    /// Reply with a brief state (see `ActArgs::brief`).
    #[serde(default, deserialize_with = "null_is_false")]
    #[schemars(with = "Option<bool>")]
    pub brief: bool,
    /// Refuse unless the game is at this step (the state's `seq`), as `act`'s: an undo meant
    /// for the last action seen does not take back one taken since.
    #[serde(default)]
    pub seq: Option<u64>,
}

/// `playout`: games played on from a game's state to their end by bots, for a search that
/// wants outcomes rather than states; the game itself does not move.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct PlayoutArgs {
    /// The game's id.
    pub game: String,
    /// How many playouts, 1 to 10 000 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1, max = crate::playout::MAX_PLAYOUTS))]
    pub count: Option<u32>,
    /// Deal the tiles still to draw anew for each playout, the first from this seed, the next
    /// from the seed after it, and so on (as `fork`'s `reseed`). Without it every playout draws
    /// the tiles the game will, which its players cannot know.
    #[serde(default)]
    pub reseed: Option<u64>,
    /// The bots' seed: the first playout's bots choose from it, the next's from the seed after
    /// it, and so on (default 0; at most what a config's seed may be).
    #[serde(default)]
    #[schemars(range(max = meeple_host::config::MAX_SEED))]
    pub seed: Option<u64>,
    /// The bots, cycled through the seats (`["greedy", "random"]` for three seats: greedy,
    /// random, greedy); default `["random"]`.
    #[serde(default)]
    pub bots: Option<Vec<meeple_core::bots::BotKind>>,
    /// An action each copy takes first, after its new deal: the playouts then tell what the
    /// action leads to, without a fork of one's own (`act`'s `action`).
    #[serde(default)]
    pub action: Option<Action>,
    /// The same as the legal action at this index (`act`'s `index`); not with `action`.
    #[serde(default)]
    pub index: Option<usize>,
    /// Threads to play on, 1 to 64 (default 1): the answer is the same on any number, sooner
    /// on as many as the machine has cores.
    #[serde(default)]
    #[schemars(range(min = 1, max = crate::playout::MAX_THREADS))]
    pub threads: Option<u32>,
}

/// `suggest`: the action a built-in bot would take now, for a client that leaves a seat to it
/// or measures a bot of its own against it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct SuggestArgs {
    /// The game's id.
    pub game: String,
    /// The bot (default `"greedy"`).
    #[serde(default)]
    pub bot: Option<meeple_core::bots::BotKind>,
    /// The bot's seed, from which the random bot chooses (default 0; at most what a config's
    /// seed may be). The bot is seeded as `playout`'s bot of the seat to act is.
    #[serde(default)]
    #[schemars(range(max = meeple_host::config::MAX_SEED))]
    pub seed: Option<u64>,
}

/// `try`: legal actions each taken on a copy of a game, for a search that looks one step ahead
/// in one request rather than a fork, an act, a state and a close for each.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct TryArgs {
    /// The game's id.
    pub game: String,
    /// The actions, by their indices in `legal` (default: every legal action).
    #[serde(default)]
    pub indices: Option<Vec<usize>>,
    /// Deal the tiles still to draw anew from this seed in each copy, as `fork`'s `reseed`: the
    /// tile an action that ends the turn draws is then not the one the game will draw, which its
    /// players cannot know.
    #[serde(default)]
    pub reseed: Option<u64>,
    /// Reply with brief states (see `ActArgs::brief`).
    #[serde(default, deserialize_with = "null_is_false")]
    #[schemars(with = "Option<bool>")]
    pub brief: bool,
}

/// `fork`: a copy of a game to play on apart from it (a search trying moves out).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct ForkArgs {
    /// The game's id.
    pub game: String,
    /// Deal the tiles still to draw anew from this seed (and give the expansions' random
    /// streams a new one): the copy no longer draws what the game will, which its players
    /// cannot know. Without it the copy draws the same tiles as the game.
    #[serde(default)]
    pub reseed: Option<u64>,
    /// Reply with a brief state (see `ActArgs::brief`).
    #[serde(default, deserialize_with = "null_is_false")]
    #[schemars(with = "Option<bool>")]
    pub brief: bool,
}

/// `act`: an action as the state's `legal` list gives it, or its index there.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[schemars(transform = one_of_action_or_index)]
pub struct ActArgs {
    /// The game's id.
    pub game: String,
    /// The action.
    #[serde(default)]
    pub action: Option<Action>,
    /// The action's index in `legal`.
    #[serde(default)]
    pub index: Option<usize>,
    /// Refuse unless this seat (0-based) is to act.
    #[serde(default)]
    pub player: Option<u8>,
    /// Refuse unless the game is at this step (the state's `seq`): an `index` or `action`
    /// chosen from a state the game has left is refused, never applied to another.
    #[serde(default)]
    pub seq: Option<u64>,
    /// Reply with a brief state: no players, board, features or figures, and the legal
    /// actions without descriptions (for a client that keeps its own picture of the game).
    #[serde(default, deserialize_with = "null_is_false")]
    #[schemars(with = "Option<bool>")]
    pub brief: bool,
}

/// A field given, in a schema: present and not null (null counts as not given).
fn given(field: &str) -> serde_json::Value {
    serde_json::json!({"required": [field], "properties": {field: {"not": {"type": "null"}}}})
}

/// A field not given, in a schema: absent or null.
fn not_given(field: &str) -> serde_json::Value {
    serde_json::json!({"properties": {field: {"type": "null"}}})
}

/// `act` takes `action` or `index`, one of them, as the session does.
fn one_of_action_or_index(schema: &mut schemars::Schema) {
    let forms = serde_json::json!([
        {"allOf": [given("action"), not_given("index")]},
        {"allOf": [given("index"), not_given("action")]},
    ]);
    schema.insert("oneOf".into(), forms);
}

/// `create` takes `config` or `path`, or neither, not both.
fn not_config_and_path(schema: &mut schemars::Schema) {
    schema.insert("not".into(), serde_json::json!({"allOf": [given("config"), given("path")]}));
}

/// `load` and `verify`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct ReplayArgs {
    /// A replay, as `save` gives it.
    pub replay: Replay,
    /// Plays the replay back on rules whose files changed since it was recorded (a tile
    /// renamed, a comment edited): its ruleset hash is not compared, but every recorded state
    /// hash still is, so a game that goes otherwise is refused at its first differing state.
    #[serde(default)]
    pub other_rules: bool,
}

/// A reply: `result` when `ok`, `error` otherwise.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(transform = result_or_error)]
pub struct Reply {
    /// The request's `id` as read (a number past 64-bit integers as a 64-bit float), or null.
    pub id: serde_json::Value,
    /// Whether the request succeeded.
    pub ok: bool,
    /// The command's result (one of [`Outcome`]'s forms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Outcome>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ProtocolError>,
}

/// What a command gives back.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Outcome {
    /// `version`.
    Version {
        /// The protocol version (1).
        protocol: u32,
        /// meeple's version.
        meeple: String,
    },
    /// `expansions`.
    Expansions {
        /// Every valid manifest found.
        expansions: Vec<ExpansionInfo>,
        /// Folders whose manifest has problems.
        broken: Vec<String>,
    },
    /// `create` and `load`.
    Created {
        /// The new game's id.
        game: String,
        /// Its state.
        state: Box<StateView>,
        /// What the numbers in its events stand for.
        names: Box<Names>,
        /// Editions played together that were not made for each other (The Tollkeepers with
        /// the base game's C1 tiles): the game is played; one sentence each, usually none.
        warnings: Vec<String>,
    },
    /// `fork`.
    Forked {
        /// The copy's id.
        game: String,
        /// Its state (the game's, with the copy's id).
        state: Box<StateView>,
    },
    /// `act`.
    Acted {
        /// What happened, in order.
        events: Vec<Event>,
        /// The state after it.
        state: Box<StateView>,
    },
    /// `save`.
    Saved {
        /// The replay.
        replay: Box<Replay>,
    },
    /// `verify`.
    Verified {
        /// Actions played back.
        actions: usize,
        /// The final state's hash.
        state_hash: String,
        /// Final scores per seat.
        scores: Vec<i32>,
    },
    /// `state` and `undo`.
    State {
        /// The state.
        state: Box<StateView>,
    },
    /// `names`.
    Named {
        /// What the numbers in the game's events stand for.
        names: Box<Names>,
    },
    /// `playout`.
    PlayedOut {
        /// The final scores of each playout, by seat, in the order played.
        scores: Vec<Vec<i32>>,
        /// By seat, the playouts it ended with the highest score in, shared or not.
        wins: Vec<u32>,
        /// By seat, the mean final score.
        mean: Vec<f64>,
    },
    /// `suggest`.
    Suggested {
        /// The action's index in the state's `legal`.
        index: usize,
        /// The action, as `act` takes it.
        action: Action,
    },
    /// `try`.
    Tried {
        /// For each action tried, in the order asked: its index, what happened and the state
        /// after it.
        tried: Vec<TriedAction>,
    },
    /// `games`.
    Games {
        /// The session's games, by id.
        games: Vec<crate::network::GameSummary>,
    },
    /// `close`.
    #[schemars(transform = no_fields)]
    Closed {},
}

/// A reply holds `result` when `ok` is true and `error` when it is false, never both, as the
/// session writes it (a result is never null).
fn result_or_error(schema: &mut schemars::Schema) {
    reply_forms(schema, given);
}

/// The two forms of a reply, over stdio, HTTP or a WebSocket: `ok` true with `result` (present
/// as `result_there` says), or `ok` false with `error`; never both.
pub(crate) fn reply_forms(schema: &mut schemars::Schema, result_there: fn(&str) -> serde_json::Value) {
    let form = |ok: bool, with: serde_json::Value, without: &str| serde_json::json!({"allOf": [{"properties": {"ok": {"const": ok}}}, with, {"not": {"required": [without]}}]});
    let forms = [form(true, result_there("result"), "error"), form(false, given("error"), "result")];
    schema.insert("oneOf".into(), serde_json::json!(forms));
}

/// An object without fields (`close`'s `{}`): the results are told apart by their fields, and an
/// open object would be every one of them.
fn no_fields(schema: &mut schemars::Schema) {
    schema.insert("additionalProperties".into(), false.into());
}

/// The ruleset's tables: what the numbers in events stand for. Events carry indices, as the
/// engine keeps them; these name them.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Names {
    /// Tile kinds, by the `tile` number of `tile-drawn`, `tile-placed` and `tile-discarded`.
    pub tiles: Vec<TileNames>,
    /// Figure kinds, by the `kind` number of figure events (0 is the meeple).
    pub figures: Vec<String>,
    /// Token kinds, by the `token` number of `tokens-changed`.
    pub tokens: Vec<String>,
    /// What players call the figure kinds, in the order of `figures`.
    pub figure_names: Vec<Noun>,
    /// What players call the token kinds, in the order of `tokens`.
    pub token_names: Vec<Noun>,
    /// Score categories, by the `category` number of `points-added`.
    pub categories: Vec<String>,
    /// What players call the categories, in the order of `categories` (an expansion's own by
    /// the expansion's name).
    pub category_names: Vec<String>,
    /// Expansions in hook order, by the `expansion` number of `log` events and expansion actions.
    pub expansions: Vec<String>,
    /// The base game and each expansion played, in load order, with its edition and the
    /// value of each of its options (defaults filled in): the rules a game plays by.
    pub played: Vec<PlayedExpansion>,
}

/// One action of `try`, taken on a copy of the game.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TriedAction {
    /// Its index in the game's `legal`.
    pub index: usize,
    /// What happened, in order, as `act` tells it.
    pub events: Vec<Event>,
    /// The copy's state after it (its `game` is the game's id: the copy is not kept).
    pub state: Box<StateView>,
}

/// An expansion as a game plays it ([`Names::played`]).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlayedExpansion {
    /// Its id.
    pub id: String,
    /// The edition played.
    pub edition: String,
    /// Every option, with its value.
    pub options: std::collections::BTreeMap<String, meeple_core::Value>,
}

impl PlayedExpansion {
    /// The expansions of a ruleset as loaded.
    pub fn all(loaded: &meeple_host::Loaded) -> Vec<PlayedExpansion> {
        let played = |s: &meeple_host::ruleset::Selected| PlayedExpansion {
            id: s.manifest.id.clone(),
            edition: s.edition.clone(),
            options: s.options.clone(),
        };
        loaded.selected.iter().map(played).collect()
    }
}

/// A tile kind and the ids of its parts. A segment number in events (`feature`, a figure's
/// `segment`) counts the segments of the placed tiles in placement order: the start tile's are
/// 0, 1, …, in its kind's `segments` order, and each placed tile's follow on from the tile
/// before. A figure's `point` is the index in its tile's `points`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TileNames {
    /// `tileset:tile`.
    pub tile: Arc<str>,
    /// Its segments' ids, in order.
    pub segments: Vec<String>,
    /// Its points' ids (villages and the like), in order.
    pub points: Vec<String>,
    /// Its edges unturned, N E S W: `C` city, `R` road, `F` field, `W` river.
    pub sides: String,
    /// What each segment is and where it lies, in the order of `segments`: enough to draw the
    /// tile as a diagram and to know where a figure on a segment stands.
    pub shapes: Vec<SegmentShape>,
    /// Its points' kinds (`village`), in the order of `points`. A village lies in the tile's
    /// middle, where the roads that stop at it meet.
    pub point_kinds: Vec<String>,
    /// The small pictures printed on it (farmhouse, highwaymen, travellers, …), which some
    /// expansions count (The Tollkeepers' tolls); none on most tiles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pictures: Vec<Picture>,
}

/// A small picture on a tile kind.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Picture {
    /// What it shows: `farmhouse`, `cowshed`, `pigsty`, `donkey-stable`, `garden`, `highwaymen`,
    /// `water-tower`, `travellers`, or another a tileset names.
    pub kind: String,
    /// The field it lies in, as an index in the tile's `segments`, if it lies in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<u8>,
    /// The roads it stands beside, as indexes in the tile's `segments`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beside: Vec<u8>,
}

/// A segment of a tile kind as a client draws it, unturned.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SegmentShape {
    /// `city`, `road`, `field`, `monastery`, `river` or `garden`.
    pub kind: &'static str,
    /// The ports it covers, of `NL N NR EL E ER SL S SR WL W WR` (the three places of each side,
    /// left to right as seen from the tile's centre); none for a monastery or garden, or a
    /// field a city closes in on every side: they lie in the middle.
    pub ports: Vec<&'static str>,
    /// Coats of arms (cities).
    pub arms: u8,
    /// A goods symbol (cities of Traders & Builders), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goods: Option<String>,
}

impl Names {
    /// The tables of a ruleset.
    pub fn of(rules: &meeple_core::Rules) -> Names {
        let ids = |items: &mut dyn Iterator<Item = &str>| items.map(str::to_string).collect::<Vec<_>>();
        Names {
            tiles: rules
                .tiles()
                .iter()
                .map(|t| TileNames {
                    tile: t.key.clone(),
                    segments: ids(&mut t.def.segments.iter().map(|s| &*s.id)),
                    points: ids(&mut t.def.points.iter().map(|p| p.id.as_str())),
                    sides: t.def.side_letters(),
                    shapes: t
                        .def
                        .segments
                        .iter()
                        .map(|s| SegmentShape {
                            kind: s.kind.name(),
                            ports: s.ports.iter().map(|p| p.name()).collect(),
                            arms: s.arms,
                            goods: s.goods.clone(),
                        })
                        .collect(),
                    point_kinds: ids(&mut t.def.points.iter().map(|p| p.kind.as_str())),
                    pictures: t
                        .def
                        .illustrations
                        .iter()
                        .map(|p| Picture { kind: p.kind.clone(), field: p.field, beside: p.flanks.clone() })
                        .collect(),
                })
                .collect(),
            figures: ids(&mut rules.figures().iter().map(|f| f.id.as_str())),
            tokens: ids(&mut rules.tokens().iter().map(|t| t.id.as_str())),
            figure_names: rules.figures().iter().map(|f| f.name.clone()).collect(),
            token_names: rules.tokens().iter().map(|t| t.name.clone()).collect(),
            categories: rules.categories().to_vec(),
            category_names: (0..rules.categories().len()).map(|c| rules.category_name(c as u16).to_string()).collect(),
            expansions: ids(&mut rules.expansions().iter().map(|x| x.id())),
            played: Vec::new(),
        }
    }
}

/// An installed expansion.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ExpansionInfo {
    /// Its id, as configs name it.
    pub id: String,
    /// Its name for people.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its editions.
    pub editions: Vec<String>,
    /// The edition played when a config names none.
    pub default_edition: String,
    /// Expansions it needs.
    pub depends: Vec<String>,
    /// Its options.
    pub options: Vec<OptionInfo>,
    /// The tiles of each edition's own tileset, by edition, as a config's `tiles` names them
    /// (`docs/config.md`); an edition without tiles of its own, or whose tileset does not read,
    /// has none.
    pub tiles: std::collections::BTreeMap<String, Vec<TileInfo>>,
}

/// A tile kind of an expansion's edition.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TileInfo {
    /// Its id in its tileset: the name a config's `tiles` gives it.
    pub id: String,
    /// Its tileset's id; `tileset:id` names the tile where two tilesets share its id.
    pub tileset: String,
    /// A description for people.
    pub name: String,
    /// Copies in the edition's box, the start tile included; 0 for a tile of another edition
    /// of the same tileset, which a config may let in.
    pub count: u32,
}

/// An expansion's option.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OptionInfo {
    /// Its name.
    pub name: String,
    /// Its type, in words: `a boolean (true or false)`, `an integer from 1 to 30`, `one of: "a", "b"`.
    #[serde(rename = "type")]
    pub ty: String,
    /// Its default.
    pub default: meeple_core::Value,
    /// The defaults of editions whose own differs from `default`, by edition.
    pub edition_defaults: std::collections::BTreeMap<String, meeple_core::Value>,
    /// The editions it plays in, when not all (set in another, it changes nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub editions: Option<Vec<String>>,
    /// What it does.
    pub help: String,
}

/// The JSON Schema of requests and replies, as a pretty JSON document.
pub fn schema() -> String {
    let mut doc = serde_json::Map::new();
    doc.insert("$schema".into(), "https://json-schema.org/draft/2020-12/schema".into());
    doc.insert("title".into(), "meeple protocol v1".into());
    doc.insert(
        "description".into(),
        "A request is valid against `#/$defs/Request`, a reply against `#/$defs/Reply`; over HTTP \
        (`meeple serve --listen`), a reply body against `#/$defs/HttpReply`, and a WebSocket message the \
        server sends against `#/$defs/SocketMessage`."
            .into(),
    );
    let mut request = serde_json::to_value(schemars::schema_for!(Request)).unwrap_or_default();
    close_requests(&mut request);
    let reply = serde_json::to_value(schemars::schema_for!(Reply)).unwrap_or_default();
    let http = serde_json::to_value(schemars::schema_for!(HttpReply)).unwrap_or_default();
    let socket = serde_json::to_value(schemars::schema_for!(SocketMessage)).unwrap_or_default();
    // One document whose `$defs` hold them all and the types they share, so that the `#/$defs/…`
    // references of each resolve from its root, as validators read them.
    let mut defs = serde_json::Map::new();
    let tops = [("Request", request), ("Reply", reply), ("HttpReply", http), ("SocketMessage", socket)];
    let refs: Vec<serde_json::Value> =
        tops.iter().map(|(name, _)| serde_json::json!({ "$ref": format!("#/$defs/{name}") })).collect();
    for (name, mut schema) in tops {
        if let Some(form) = schema.as_object_mut() {
            form.remove("$schema");
            if let Some(serde_json::Value::Object(own)) = form.remove("$defs") {
                defs.extend(own);
            }
        }
        defs.insert(name.into(), schema);
    }
    doc.insert("anyOf".into(), refs.into());
    doc.insert("$defs".into(), defs.into());
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// Adds the envelope's `id` to every request form and closes it to other fields, as the
/// session does (`only_known`): the fields of each command come from its arguments' `$ref`, so
/// the closing is `unevaluatedProperties`, which sees them, not `additionalProperties`.
fn close_requests(request: &mut serde_json::Value) {
    let Some(forms) = request.get_mut("oneOf").and_then(serde_json::Value::as_array_mut) else { return };
    for form in forms {
        let Some(form) = form.as_object_mut() else { continue };
        if let Some(properties) = form.get_mut("properties").and_then(serde_json::Value::as_object_mut) {
            let id = serde_json::json!({"description": "Any JSON value; it comes back in the reply as read: a \
                number past 64-bit integers, or with a fraction or exponent, as the nearest 64-bit float."});
            properties.insert("id".into(), id);
        }
        form.insert("unevaluatedProperties".into(), false.into());
    }
}

/// A flag given as `null` is not given, as every optional field of the protocol reads it.
fn null_is_false<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(d)?.unwrap_or(false))
}
