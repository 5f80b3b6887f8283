//! Reading a command's fields from JSON. A field that does not fit is named by its path
//! (`action.pos.x`, `replay.actions[3].rotation`), and the message says what the protocol
//! expects there in its own terms (`a seat number`), not in Rust's (`u8`).

use crate::error::{Code, ProtocolError};
use meeple_core::figures::{FigureId, FigureKindId};
use meeple_core::{Action, Pos, Rotation, Target};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One step of a path into a request.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// A command's fields, with the path of one that does not fit.
pub fn fields<T: DeserializeOwned>(request: &Value) -> Result<T, ProtocolError> {
    // Serde would read an array as the fields in order: `["g1", null, 0]` would act.
    if !request.is_object() {
        let message = format!("expected a JSON object with named fields; got {}", json_kind(request));
        return Err(ProtocolError::new(Code::BadRequest, message, None));
    }
    let fields = serde_path_to_error::deserialize::<_, T>(request).map_err(|e| {
        let mut path = steps(e.path());
        let action = action_at(request, &path);
        let mut refused = match action.map(inner_fault) {
            Some(Some((inner, error))) => {
                path.extend(inner);
                fault(path, &error)
            }
            _ => fault(path, e.inner()),
        };
        // A whole entry of a state's `legal`, sent where its `action` goes.
        if action.is_some_and(|a| a.get("type").is_none() && a.get("action").is_some_and(Value::is_object)) {
            refused.message.push_str(" (this is an entry of `legal`: send its `action`, or its `index` as `index`)");
        }
        refused
    })?;
    extra_in_actions(request)?;
    Ok(fields)
}

/// The most faults [`all_faults`] names: past that, the rest are much the same.
const MAX_FAULTS: usize = 50;

/// `value` read as `T`, or every field that does not fit, not only the first that serde meets:
/// each fault's field is taken out of a copy, which is then read again. An element of a list
/// takes its list along (the indices after it would shift); a field taken out is not also
/// reported missing. For data other than commands: actions need the care of [`fields`].
pub fn all_faults<T: DeserializeOwned>(value: &Value) -> Result<T, Vec<ProtocolError>> {
    let mut copy = value.clone();
    let (mut faults, mut taken) = (Vec::new(), Vec::new());
    loop {
        let error = match serde_path_to_error::deserialize::<_, T>(&copy) {
            Ok(read) if faults.is_empty() => return Ok(read),
            Ok(_) => return Err(faults),
            Err(error) => error,
        };
        let mut path = steps(error.path());
        if let Some(name) = missing_field(&error.inner().to_string()) {
            let mut missing = path.clone();
            missing.push(Step::Key(name));
            if taken.contains(&missing) {
                return Err(faults);
            }
        }
        faults.push(fault(path.clone(), error.inner()));
        while matches!(path.last(), Some(Step::Index(_))) {
            path.pop();
        }
        if faults.len() >= MAX_FAULTS || !take_out(&mut copy, &path) {
            return Err(faults);
        }
        taken.push(path);
    }
}

/// Removes the field at `path` (which ends in a key); false when there is none.
fn take_out(value: &mut Value, path: &[Step]) -> bool {
    let Some((Step::Key(last), parents)) = path.split_last() else { return false };
    let mut at = value;
    for step in parents {
        let next = match step {
            Step::Key(k) => at.get_mut(k.as_str()),
            Step::Index(i) => at.get_mut(*i),
        };
        let Some(next) = next else { return false };
        at = next;
    }
    at.as_object_mut().is_some_and(|o| o.remove(last).is_some())
}

/// Refuses a field that serde let through in an action it read: `deny_unknown_fields` does not
/// reach the variants without fields of an internally tagged enum, so `{"type": "pass",
/// "player": 1}` would pass, skipping the turn check `player` asks for. The externally tagged
/// mirror reads those variants as structs and names the field.
fn extra_in_actions(request: &Value) -> Result<(), ProtocolError> {
    let single = request.get("action").map(|a| (vec![Step::Key("action".into())], a));
    let replayed = request.get("replay").and_then(|r| r.get("actions")).and_then(Value::as_array);
    let listed = replayed.into_iter().flatten().enumerate().map(|(i, a)| {
        let path = vec![Step::Key("replay".into()), Step::Key("actions".into()), Step::Index(i)];
        (path, a)
    });
    for (mut path, action) in single.into_iter().chain(listed) {
        if let Some((inner, error)) = inner_fault(action) {
            let tag = if inner.first() == Some(&Step::Key("target".into())) { "kind" } else { "type" };
            path.extend(inner);
            let mut refused = fault(path, &error);
            // serde's words for a variant without fields.
            refused.message = refused.message.replace(", there are no fields", &format!(": only `{tag}` goes here"));
            return Err(refused);
        }
    }
    Ok(())
}

/// The names of the fields of `T`, a command's arguments, read from its JSON Schema so that the
/// list follows the type.
pub fn names_of<T: schemars::JsonSchema>() -> Vec<String> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

/// Refuses fields not among `known` (those of `what`): a misspelt field would otherwise be
/// ignored, and `palyer` would silently skip the turn check that `player` asks for.
pub fn only_known(request: &Value, known: &[String], what: &str) -> Result<(), ProtocolError> {
    let Some(object) = request.as_object() else { return Ok(()) };
    // A field given as `null` is not given, known or not.
    let unknown: Vec<&String> =
        object.iter().filter(|(k, v)| !v.is_null() && !known.contains(k)).map(|(k, _)| k).collect();
    let Some(first) = unknown.first() else { return Ok(()) };
    let names: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
    let s = if unknown.len() == 1 { "" } else { "s" };
    let message = format!("unknown field{s} {} for {what}; expected one of: {}", names.join(", "), known.join(", "));
    Err(ProtocolError::new(Code::BadRequest, message, Some(first)))
}

/// What kind of JSON value this is, for messages.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The steps of a serde path. Enum variants are left out: in the retagged copy of an action
/// they stand where the JSON has a `type` or `kind` field, not an object.
fn steps(path: &serde_path_to_error::Path) -> Vec<Step> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|s| match s {
            Segment::Map { key } => Some(Step::Key(key.clone())),
            Segment::Seq { index } => Some(Step::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}

/// The action at `path` in the request, when the path leads to one (`action`, or an action of
/// `replay.actions`): serde stops its paths there.
fn action_at<'v>(request: &'v Value, path: &[Step]) -> Option<&'v Value> {
    match path {
        [Step::Key(a)] if a == "action" => request.get("action"),
        [Step::Key(r), Step::Key(a), Step::Index(i)] if r == "replay" && a == "actions" => {
            request.get("replay")?.get("actions")?.get(*i)
        }
        _ => None,
    }
}

/// A request error at `path`: a missing field adds its name to the path.
fn fault(mut path: Vec<Step>, error: &serde_json::Error) -> ProtocolError {
    let text = error.to_string();
    if let Some(name) = missing_field(&text) {
        path.push(Step::Key(name));
    }
    let message = plain(&text, &path);
    let field = (!path.is_empty()).then(|| dotted(&path));
    ProtocolError { code: Code::BadRequest, message, field, problems: Vec::new() }
}

/// A path as the protocol writes it: `action.pos.x`, `replay.actions[3]`.
pub(crate) fn dotted(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The field a "missing field `x`" error names.
fn missing_field(text: &str) -> Option<String> {
    let rest = text.strip_prefix("missing field `")?;
    Some(rest[..rest.find('`')?].to_string())
}

// Actions are internally tagged (`{"type": "place-tile", "pos": …}`): serde reads such an
// object whole before it knows the variant, and reports any fault inside it at the object. So
// when a request fails at an action, the action is read again, turned externally tagged
// (`{"place-tile": {"pos": …}}`), which serde reads field by field, to find the path inside.
// The mirrors below are remote derives: they stop compiling when `Action` or `Target` changes.

/// [`Action`], externally tagged.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Action", rename_all = "kebab-case", deny_unknown_fields)]
enum ActionFields {
    PlaceTile {
        pos: Pos,
        rotation: Rotation,
    },
    PlaceFigure {
        figure: FigureKindId,
        segment: u8,
        #[serde(default)]
        with: Option<FigureKindId>,
    },
    Expansion {
        expansion: u16,
        code: u32,
        #[serde(with = "TargetFields")]
        target: Target,
    },
    Pass {},
    Choose {
        option: u16,
    },
}

/// [`Target`], externally tagged.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Target", rename_all = "kebab-case", deny_unknown_fields)]
enum TargetFields {
    None {},
    Point { pos: Pos, point: u8 },
    Segment { pos: Pos, segment: u8 },
    Figure { figure: FigureId },
}

/// Where inside `action` it does not fit, and why; `None` if the mirror reads it after all.
fn inner_fault(action: &Value) -> Option<(Vec<Step>, serde_json::Error)> {
    let mut retagged = match retag(action, "type") {
        Ok(retagged) => retagged?,
        Err(fault) => return Some(fault),
    };
    if let Some(target) = retagged.as_object_mut()?.values_mut().next()?.get_mut("target") {
        // The mirror would read a string as a kind without fields, and name it "unknown
        // variant"; a target is an object, and `null` is no target at all.
        if let Some(fault) = not_a_target(target) {
            return Some(fault);
        }
        match retag(target, "kind") {
            Ok(Some(t)) => *target = t,
            Ok(None) => {}
            Err((mut path, error)) => {
                path.insert(0, Step::Key("target".into()));
                return Some((path, error));
            }
        }
    }
    let mut track = serde_path_to_error::Track::new();
    let error = ActionFields::deserialize(serde_path_to_error::Deserializer::new(&retagged, &mut track)).err()?;
    let mut path = steps(&track.path());
    if error.to_string().starts_with("unknown variant") {
        // Only a target's kind can be unknown here: serde names an unknown `type` itself.
        path.push(Step::Key("kind".into()));
    }
    Some((path, error))
}

/// The fault of a target that is no object, with its path inside the action.
fn not_a_target(target: &Value) -> Option<(Vec<Step>, serde_json::Error)> {
    use serde::de::Error;
    match target {
        Value::Object(_) => None,
        Value::Null => Some((Vec::new(), Error::missing_field("target"))),
        other => Some((
            vec![Step::Key("target".into())],
            Error::invalid_type(unexpected(other), &"internally tagged enum Target"),
        )),
    }
}

/// `{tag: variant, …fields}` as `{variant: {…fields}}`; `None` when `value` is no object (serde
/// said so already); an error, with its path, when the tag is missing or no string.
fn retag(value: &Value, tag: &'static str) -> Result<Option<Value>, (Vec<Step>, serde_json::Error)> {
    use serde::de::Error;
    let Value::Object(object) = value else { return Ok(None) };
    let variant = match object.get(tag) {
        Some(Value::String(variant)) => variant.clone(),
        Some(other) => {
            return Err((vec![Step::Key(tag.into())], Error::invalid_type(unexpected(other), &"a string")));
        }
        None => return Err((Vec::new(), Error::missing_field(tag))),
    };
    let mut fields = object.clone();
    fields.remove(tag);
    Ok(Some(Value::Object([(variant, Value::Object(fields))].into_iter().collect())))
}

/// What a JSON value is, in serde's words (for the same messages as serde's own).
fn unexpected(value: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Unexpected::Signed(i),
            (None, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("a number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// What a `seed` is, wherever a request gives one.
pub const SEED: &str = "a seed, a whole number from 0 to 9223372036854775807";

/// What `playout`'s `count` is.
pub const COUNT: &str = "a number of playouts from 1 to 10000";

/// What `playout`'s `threads` is.
pub const THREADS: &str = "a number of threads from 1 to 64";

/// What the fields of requests mean, by path (array indexes left out, but for an item of a
/// list, `bots[]`; an action of a replay as `action`): what a message says is expected there.
const MEANINGS: [(&str, &str); 25] = [
    ("game", "a game's id, such as \"g1\""),
    ("bots", "a list of bots' names, one for each seat or fewer: [\"random\", \"greedy\"]"),
    ("bots[]", "a bot's name, \"random\" or \"greedy\""),
    ("brief", "true or false"),
    ("config", "a game config: TOML text, or an object with a config file's keys"),
    ("path", "the path of a config file"),
    ("seed", SEED),
    ("reseed", "a seed, a whole number from 0 to 18446744073709551615"),
    ("count", COUNT),
    ("threads", THREADS),
    ("player", "a seat number, 0 for the first player"),
    ("index", "an index into the state's `legal` list, 0 for the first action"),
    ("action.type", "the action's type as a string"),
    ("action.pos.x", "a column, a whole number growing east (-2147483648 to 2147483647)"),
    ("action.pos.y", "a row, a whole number growing north (-2147483648 to 2147483647)"),
    ("action.rotation", "quarter turns clockwise, 0 to 3"),
    ("action.figure", "a figure kind's number as the state's `legal` actions give it (0 to 255)"),
    ("action.with", "a figure kind's number as the state's `legal` actions give it (0 to 255)"),
    ("action.segment", "a segment's number in the tile as the state's `legal` actions give it (0 to 255)"),
    ("action.expansion", "an expansion's number as the state's `legal` actions give it (0 to 65535)"),
    ("action.code", "the expansion's code for the action as the state's `legal` actions give it"),
    ("action.option", "an option's index in the pending question's `options`, 0 for the first"),
    ("action.target.kind", "the target's kind as a string"),
    ("action.target.point", "a point's number in the tile as the state's `legal` actions give it (0 to 255)"),
    ("action.target.figure", "a figure's id as the state's `figures` give it (0 to 65535)"),
];

/// serde's "invalid type: X, expected Y" as "expected MEANING; got X".
fn plain(text: &str, path: &[Step]) -> String {
    if let Some(words) = unknown_field(text) {
        return words;
    }
    let Some(rest) = text.strip_prefix("invalid type: ").or_else(|| text.strip_prefix("invalid value: ")) else {
        return text.to_string();
    };
    let Some((got, expected)) = rest.rsplit_once(", expected ") else { return text.to_string() };
    let words = meaning(path).map_or_else(|| rust_words(expected).to_string(), str::to_string);
    format!("expected {words}; got {}", json_words(got))
}

/// Serde's "unknown field `x`, expected one of `a`, `b`" (or "expected `a` or `b`") worded as
/// a command's unknown field is: "unknown field `x`; expected one of: a, b".
fn unknown_field(text: &str) -> Option<String> {
    let rest = text.strip_prefix("unknown field `")?;
    let (name, expected) = rest.split_once("`, expected ")?;
    let expected = expected.strip_prefix("one of ").unwrap_or(expected);
    let names: Vec<&str> = expected.split(", ").flat_map(|n| n.split(" or ")).map(|n| n.trim_matches('`')).collect();
    Some(format!("unknown field `{name}`; expected one of: {}", names.join(", ")))
}

/// What the field at `path` means, from [`MEANINGS`].
fn meaning(path: &[Step]) -> Option<&'static str> {
    let keys: Vec<&str> = path
        .iter()
        .filter_map(|s| match s {
            Step::Key(k) => Some(k.as_str()),
            Step::Index(_) => None,
        })
        .collect();
    let mut key = keys.join(".");
    // An item of a list means something else than the list.
    if matches!(path.last(), Some(Step::Index(_))) {
        key.push_str("[]");
    }
    if let Some(rest) = key.strip_prefix("replay.actions") {
        key = format!("action{rest}");
    }
    // A target's square is read like the action's own.
    let key = key.replace("action.target.pos", "action.pos");
    let key = if key == "action.target.segment" { "action.segment" } else { key.as_str() };
    MEANINGS.iter().find(|(k, _)| *k == key).map(|(_, m)| *m)
}

/// Rust's names of types in the protocol's words; anything else as serde wrote it.
fn rust_words(expected: &str) -> &str {
    match expected {
        "internally tagged enum Action" => "an action as the state's `legal` list gives it, {\"type\": …}",
        "internally tagged enum Target" => "a target as the state's `legal` actions give it, {\"kind\": …}",
        "struct Pos" => "a square, {\"x\": …, \"y\": …}",
        "struct Replay" => "a replay as `save` gives it",
        "struct Setup" => "a setup as `save` writes it, {\"players\": […], \"seed\": …}",
        "struct Checkpoint" => "a checkpoint as `save` writes it, {\"actions\": …, \"hash\": …}",
        "struct GameConfig" => "a game config as `save` writes it",
        "struct ExpansionChoice" => "an expansion as `save` writes it, {\"id\": …, \"edition\": …, \"options\": {…}}",
        "struct OptionValue" => "an option as `save` writes it, {\"value\": …}",
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65535",
        "u32" => "a whole number from 0 to 4294967295",
        "u64" | "usize" => "a whole number from 0",
        "i32" => "a whole number from -2147483648 to 2147483647",
        "i64" | "isize" => "a whole number",
        "a boolean" => "true or false",
        "a sequence" => "a list",
        other => other,
    }
}

/// serde's names of JSON values as JSON's.
fn json_words(got: &str) -> String {
    // serde reads a number too large for an integer as a float, and says so.
    let float = got.strip_prefix("floating point `").and_then(|r| r.strip_suffix('`'));
    match (got, float.and_then(|n| n.parse::<f64>().ok())) {
        // A whole number a 64-bit float holds exactly was written with a point (`1.0`).
        (_, Some(f)) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
            format!("{}, written with a decimal point (write it as {})", float.unwrap_or(got), f as i64)
        }
        (_, Some(f)) if f.fract() == 0.0 => format!("{}, a number too large for it", float.unwrap_or(got)),
        (_, Some(_)) => format!("{}, which is not a whole number", float.unwrap_or(got)),
        // A field given as null is not given, which is what was wrong.
        ("unit value" | "null", _) => "null, which counts as not given".into(),
        ("map", _) => "an object".into(),
        ("sequence", _) => "a list".into(),
        (other, _) => other.into(),
    }
}
