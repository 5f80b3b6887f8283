//! Protocol errors: a stable code for programs, a message for people, and the request field at
//! fault when there is one.

use schemars::JsonSchema;
use serde::Serialize;

/// The stable error codes of protocol v1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// The line is not JSON.
    BadJson,
    /// A field is missing or of the wrong type.
    BadRequest,
    /// `cmd` names no command.
    UnknownCommand,
    /// `game` names no game of this session.
    UnknownGame,
    /// The config, or an expansion it chooses, has problems (the message lists them with file,
    /// line and column; for a replay's config, with their fields, such as `replay.config.players`).
    BadConfig,
    /// The action is not among the legal ones (or the game is over).
    IllegalAction,
    /// `player` is not the seat to act.
    NotYourTurn,
    /// `seq` is not the game's: the action was chosen from a state the game has moved on from
    /// (or been taken back to before).
    Stale,
    /// An expansion failed while carrying the action out, setting a game up or playing a replay
    /// back; the game is as it was, and no game is created.
    ExpansionFailed,
    /// No action to take back since the last tile was drawn.
    NothingToUndo,
    /// `undo` by a seat that did not take the last action: a seat takes back only its own.
    NotYourAction,
    /// `save` of a game forked with `reseed`: its draws are not its seed's, so it has no replay.
    NoReplay,
    /// A replay does not play back on the installed expansions (another ruleset, or a hash
    /// that differs).
    ReplayMismatch,
    /// `meeple serve --listen`: the seat token is missing or is not one of this game's.
    BadToken,
    /// `meeple serve --listen`: the game log could not be written; the game is as it was.
    StorageFailed,
    /// `meeple serve --listen`: the server has as many connections open as it serves
    /// (`--max-connections`), or the client's address as many as one may hold
    /// (`--max-per-address`), or large bodies fill what the server holds at once; try again
    /// shortly (`Retry-After: 1`).
    Busy,
}

/// A failed request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ProtocolError {
    /// What kind of failure.
    pub code: Code,
    /// For people.
    #[serde(serialize_with = "bounded_message")]
    pub message: String,
    /// The request field at fault, if one is (a path such as `action.pos.x` inside it).
    #[serde(serialize_with = "bounded_field")]
    pub field: Option<String>,
    /// A config's problems one by one, when it has several (`bad-config`): each with its field,
    /// for a form to mark each (the message holds them too, a line each).
    #[serde(default, skip_serializing_if = "Vec::is_empty", serialize_with = "bounded_problems")]
    pub problems: Vec<Problem>,
}

/// One problem of a config given as data: its field and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Problem {
    /// The field's path (`config.expansions[1].edition`; `config` for the config as a whole).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// The most problems a reply lists one by one (the message is bounded as well).
const MAX_PROBLEMS: usize = 100;

fn bounded_problems<S: serde::Serializer>(problems: &[Problem], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let shown = &problems[..problems.len().min(MAX_PROBLEMS)];
    let mut seq = s.serialize_seq(Some(shown.len()))?;
    for p in shown {
        let field = bounded(&p.field, MAX_FIELD);
        let message = bounded(&p.message, MAX_ERROR_MESSAGE / 16);
        seq.serialize_element(&Problem { field: field.into_owned(), message: message.into_owned() })?;
    }
    seq.end()
}

/// The longest message a reply carries. A request of up to 8 MiB could otherwise be answered
/// with many times its size: every problem of a config of 200 000 unknown keys (each listing
/// the keys it could be), an unknown field name of a megabyte echoed twice.
pub const MAX_ERROR_MESSAGE: usize = 16 * 1024;

/// The longest field path a reply carries (a path is a few names; an unknown one is echoed).
const MAX_FIELD: usize = 256;

/// `text` cut to at most `limit` bytes: at the end of a line where it has lines (one problem
/// each), else at a character, with what was left out counted.
fn bounded(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= limit {
        return text.into();
    }
    // Room for the count of what was left out, within the limit.
    let room = limit.saturating_sub(40);
    let at_char = meeple_toml::floor_char_boundary(text, room);
    let cut = text[..at_char].rfind('\n').filter(|&i| i > 0).unwrap_or(at_char);
    let (kept, rest) = text.split_at(cut);
    match rest.trim_start_matches('\n').lines().count() {
        more if rest.starts_with('\n') => format!("{kept}\n… and {more} more lines").into(),
        _ => format!("{kept}… ({} more bytes)", rest.len()).into(),
    }
}

fn bounded_message<S: serde::Serializer>(message: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&bounded(message, MAX_ERROR_MESSAGE))
}

fn bounded_field<S: serde::Serializer>(field: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match field {
        Some(f) => s.serialize_some(&*bounded(f, MAX_FIELD)),
        None => s.serialize_none(),
    }
}

impl ProtocolError {
    /// An error.
    pub fn new(code: Code, message: impl Into<String>, field: Option<&str>) -> ProtocolError {
        ProtocolError { code, message: message.into(), field: field.map(str::to_string), problems: Vec::new() }
    }

    /// A config, or an expansion it chooses, with problems.
    pub fn config(report: meeple_toml::Report) -> ProtocolError {
        ProtocolError::new(Code::BadConfig, report.to_string(), Some("config"))
    }

    /// An expansion failed; `why` says which, in which hook, and where.
    pub fn expansion_failed(why: String) -> ProtocolError {
        ProtocolError::new(Code::ExpansionFailed, why, None)
    }

    /// Two fields of which a request gives one at most, both given.
    pub fn either(first: &str, second: &str) -> ProtocolError {
        let message = format!("give `{first}` or `{second}`, not both");
        ProtocolError::new(Code::BadRequest, message, Some(first))
    }

    /// The same error at another request field.
    pub fn at(self, field: &str) -> ProtocolError {
        ProtocolError { field: Some(field.to_string()), ..self }
    }

    /// A field that is not what was expected.
    pub fn bad_field(field: &str, expected: &str) -> ProtocolError {
        ProtocolError::new(Code::BadRequest, format!("`{field}`: expected {expected}"), Some(field))
    }

    /// A field of the right type whose value is out of its range, which the message repeats.
    pub fn out_of_range(field: &str, expected: &str, got: impl std::fmt::Display) -> ProtocolError {
        ProtocolError::new(Code::BadRequest, format!("`{field}`: expected {expected}; got {got}"), Some(field))
    }
}
