//! Plain data that expansions keep in the game state (their storage) and put in decisions.

use crate::hash::StableHasher;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A JSON-like value. Maps are ordered by key, so iteration never depends on hashing.
///
/// Serialised untagged (`3`, `"wine"`, `[1, 2]`, `{"a": true}`); read back by a visitor of its
/// own, as serde's untagged reading buffers and retries every variant (a hundred times slower,
/// and storage crosses the plugin boundary on every hook call that reads it).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// Nothing.
    #[default]
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Value>),
    /// A map with string keys.
    Map(BTreeMap<String, Value>),
}

impl Value {
    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// About how many bytes the value takes: 8 for each scalar, and the bytes of its strings and
    /// keys. What bounds an expansion's storage.
    pub fn size(&self) -> usize {
        match self {
            Value::Null | Value::Bool(_) | Value::Int(_) => 8,
            Value::Str(s) => 8 + s.len(),
            Value::List(l) => 8 + l.iter().map(Value::size).sum::<usize>(),
            Value::Map(m) => 8 + m.iter().map(|(k, v)| k.len() + v.size()).sum::<usize>(),
        }
    }

    /// Whether lists and maps nest more than `levels` deep in it (a scalar nests 0 levels, a list
    /// of scalars 1). Looks no deeper than that.
    pub fn nests_deeper_than(&self, levels: u32) -> bool {
        let inner = |v: &Value| v.nests_deeper_than(levels - 1);
        match self {
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Str(_) => false,
            Value::List(l) => levels == 0 || l.iter().any(inner),
            Value::Map(m) => levels == 0 || m.values().any(inner),
        }
    }

    /// Feeds the value into a stable hash.
    pub fn hash_into(&self, h: &mut StableHasher) {
        match self {
            Value::Null => h.u64(0),
            Value::Bool(b) => h.u64(1 + *b as u64),
            Value::Int(n) => {
                h.u64(3);
                h.i64(*n);
            }
            Value::Str(s) => {
                h.u64(4);
                h.str(s);
            }
            Value::List(l) => {
                h.u64(5);
                h.u64(l.len() as u64);
                l.iter().for_each(|v| v.hash_into(h));
            }
            Value::Map(m) => {
                h.u64(6);
                h.u64(m.len() as u64);
                for (k, v) in m {
                    h.str(k);
                    v.hash_into(h);
                }
            }
        }
    }
}

impl schemars::JsonSchema for Value {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Value".into()
    }

    /// Null, a boolean, an integer, a string, a list or a map with string keys.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["null", "boolean", "integer", "string", "array", "object"] })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null, a boolean, an integer, a string, a list or a map with string keys")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Int(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        i64::try_from(n).map(Value::Int).map_err(|_| E::custom(format!("integer {n} is too large")))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Value, E> {
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            Ok(Value::Int(x as i64))
        } else {
            Err(E::custom(format!("{x}: only integers are stored")))
        }
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::Str(s.to_string()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            out.insert(k, v);
        }
        Ok(Value::Map(out))
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}
