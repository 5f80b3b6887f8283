//! meeple's protocol v1 (`docs/protocol.md`): JSON requests and replies over the games of a
//! session, for frontends and AIs that drive meeple from another program. [`Session`] handles
//! one request at a time; `meeple serve --stdio` puts it on stdin and stdout as JSON lines.
//! The messages are Rust types ([`messages`], and [`network`] for HTTP and WebSocket), and the
//! JSON Schema is generated from them.

mod config_text;
mod error;
mod fields;
pub mod messages;
pub mod network;
mod playout;
pub mod replay_config;
pub mod session;
mod state;
mod table;
mod unique;

pub use error::{Code, ProtocolError};
pub use session::{PROTOCOL, Session};
pub use state::{
    Detail, FeatureView, FigurePlace, FigureView, LegalAction, PendingView, PlayerView, StateView, TileView, TurnView,
};
pub use table::Table;

/// The longest request taken, in bytes, over any transport: a stdio line, an HTTP body, a
/// WebSocket message (a replay of a long game is well under it). Longer ones are refused unread.
pub const MAX_MESSAGE: usize = 8 * 1024 * 1024;

/// The most JSON values (numbers, strings, items, fields…) a request may hold. A replay of a
/// long game holds a few thousand, a config is one string; what a parsed request takes in memory
/// grows with its values (some 50 bytes each), not its bytes, so this bounds it: 8 MiB of `[0,0,…`
/// would take 300 MB.
pub const MAX_VALUES: usize = 100_000;

/// Refuses a request holding more than [`MAX_VALUES`] JSON values, before it is parsed: counts
/// the commas, brackets and braces outside strings (an upper bound on the values, give or take
/// one), in one pass over the bytes.
pub fn check_values(bytes: &[u8]) -> Result<(), ProtocolError> {
    let (mut count, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b',' | b'[' | b'{' => count += 1,
                _ => {}
            }
        }
    }
    if count > MAX_VALUES {
        let why = format!("a request holds at most {MAX_VALUES} JSON values; this one was not read");
        return Err(ProtocolError::new(Code::BadRequest, why, None));
    }
    Ok(())
}

/// Whether a message holds no request: blanks only, after a byte-order mark if there is one
/// (a blank line on stdio is skipped, an empty HTTP body is `{}`).
pub fn is_blank(bytes: &[u8]) -> bool {
    bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes).iter().all(u8::is_ascii_whitespace)
}

/// Reads one request's JSON, after [`check_values`]; `what` starts the message of text that is
/// not JSON ("not JSON", "the body is not JSON"). A leading UTF-8 byte-order mark, which some
/// Windows tools write and RFC 8259 lets a reader ignore, is skipped. A key given twice in an
/// object is refused (`bad-request`, naming it), not settled by the last one.
pub fn read_json(bytes: &[u8], what: &str) -> Result<serde_json::Value, ProtocolError> {
    check_values(bytes)?;
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    unique::read(bytes).map_err(|refused| match refused {
        unique::Refused::Json(e) => ProtocolError::new(Code::BadJson, format!("{what}: {e}"), None),
        unique::Refused::Repeated(field) => {
            let message = format!("`{field}` is given more than once; give each field once");
            ProtocolError::new(Code::BadRequest, message, Some(&field))
        }
    })
}

/// A reply or state as JSON text, written into a buffer sized for a whole state (about 20 KB at
/// the middle of a game), so that it is not grown and copied a dozen times on the way.
pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    let mut out = Vec::with_capacity(24 * 1024);
    if serde_json::to_writer(&mut out, value).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}
