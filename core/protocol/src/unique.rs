//! JSON read into a [`Value`] as serde_json reads it, but an object that gives a key twice is
//! refused. serde_json keeps the last of the two: `{"cmd": "act", "player": 1, "player": 0}`
//! would run the turn check with seat 0, and a client that checks its request another way
//! (its own reader keeping the first) would see a different request from the one run.

use crate::fields::{Step, dotted};
use serde::de::{DeserializeSeed, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// Why [`read`] failed: the text is not JSON, or it repeats a key (at this path).
pub enum Refused {
    /// serde_json's own error: not JSON, too deep, trailing characters.
    Json(serde_json::Error),
    /// The path of the first repeated key, as the protocol names fields (`action.type`).
    Repeated(String),
}

/// Reads one JSON value from `bytes`, in the one pass serde_json makes, refusing a repeated key
/// at any depth.
pub fn read(bytes: &[u8]) -> Result<Value, Refused> {
    let repeated = RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let read = Strict { repeated: &repeated }.deserialize(&mut reader).and_then(|value| {
        reader.end()?;
        Ok(value)
    });
    match (read, repeated.into_inner()) {
        (_, Some(path)) => Err(Refused::Repeated(dotted(&path))),
        (Ok(value), None) => Ok(value),
        (Err(e), None) => Err(Refused::Json(e)),
    }
}

/// Builds a [`Value`]; on a repeated key, notes its path in `repeated` and fails. The path is
/// put together on the way out, each enclosing object or array adding its step in front, so a
/// request without repeats pays nothing for it.
#[derive(Clone, Copy)]
struct Strict<'a> {
    repeated: &'a RefCell<Option<Vec<Step>>>,
}

impl Strict<'_> {
    /// Puts `step` in front of the noted path, if a repeat is what failed.
    fn within<E>(self, step: impl FnOnce() -> Step) -> impl FnOnce(E) -> E {
        move |e| {
            if let Some(path) = self.repeated.borrow_mut().as_mut() {
                path.insert(0, step());
            }
            e
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        // JSON text holds no NaN or infinity: every float it gives is a number.
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            let at = items.len();
            match seq.next_element_seed(self).map_err(self.within(|| Step::Index(at)))? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self).map_err(self.within(|| Step::Key(key.clone())))?;
            match fields.entry(key) {
                serde_json::map::Entry::Vacant(place) => {
                    place.insert(value);
                }
                serde_json::map::Entry::Occupied(taken) => {
                    *self.repeated.borrow_mut() = Some(vec![Step::Key(taken.key().clone())]);
                    return Err(A::Error::custom("a key is repeated"));
                }
            }
        }
        Ok(Value::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeated(text: &str) -> Option<String> {
        match read(text.as_bytes()) {
            Err(Refused::Repeated(path)) => Some(path),
            _ => None,
        }
    }

    #[test]
    fn values_are_read_as_serde_json_reads_them() {
        for text in [
            r#"{"id": [1, -2, 3.5, 18446744073709551615, 1e400], "s": "\u00e9\n", "t": true, "n": null, "o": {}}"#,
            "[]",
            "\"x\"",
            "123456789012345678901234567890",
        ] {
            let ours = read(text.as_bytes()).ok();
            assert_eq!(ours, serde_json::from_str::<Value>(text).ok(), "{text}");
        }
        assert!(matches!(read(b"{} x"), Err(Refused::Json(_))), "trailing characters");
        assert!(matches!(read(b"{\"a\": }"), Err(Refused::Json(_))));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let Err(Refused::Json(e)) = read(deep.as_bytes()) else { panic!("too deep") };
        assert!(e.to_string().starts_with("recursion limit exceeded"), "{e}");
    }

    #[test]
    fn a_repeated_key_is_named_by_its_path() {
        assert_eq!(repeated(r#"{"cmd": "version", "cmd": "expansions"}"#).as_deref(), Some("cmd"));
        let inside = r#"{"action": {"type": "pass", "type": "choose"}}"#;
        assert_eq!(repeated(inside).as_deref(), Some("action.type"));
        let listed = r#"{"replay": {"actions": [{}, {"pos": {"x": 1, "x": 2}}]}}"#;
        assert_eq!(repeated(listed).as_deref(), Some("replay.actions[1].pos.x"));
        assert_eq!(repeated(r#"[{"a": 1, "a": 1}]"#).as_deref(), Some("[0].a"), "the same value twice too");
        assert_eq!(repeated(r#"{"a": {"b": 1}, "c": {"b": 1}}"#), None, "the same key in two objects");
    }
}
