//! Plain data that expansions keep in the game state (their storage) and put in decisions.

use crate::hash::StableHasher;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A JSON-like value. Maps are ordered by key, so iteration never depends on hashing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
