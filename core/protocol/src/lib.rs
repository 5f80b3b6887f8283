//! meeple's protocol v1 (`docs/protocol.md`): JSON requests and replies over the games of a
//! session, for frontends and AIs that drive meeple from another program. [`Session`] handles
//! one request at a time; `meeple serve --stdio` puts it on stdin and stdout as JSON lines.
//! The messages are Rust types ([`messages`]), and the JSON Schema is generated from them.

mod error;
mod fields;
pub mod messages;
pub mod replay_config;
pub mod session;
mod state;
mod table;

pub use error::{Code, ProtocolError};
pub use session::{PROTOCOL, Session};
pub use state::{
    FeatureView, FigurePlace, FigureView, LegalAction, PendingView, PlayerView, StateView, TileView, TurnView,
};
pub use table::Table;

/// The longest request taken, in bytes, over any transport: a stdio line, an HTTP body, a
/// WebSocket message (a replay of a long game is well under it). Longer ones are refused unread.
pub const MAX_MESSAGE: usize = 8 * 1024 * 1024;

/// A reply or state as JSON text, written into a buffer sized for a whole state (about 20 KB at
/// the middle of a game), so that it is not grown and copied a dozen times on the way.
pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    let mut out = Vec::with_capacity(24 * 1024);
    if serde_json::to_writer(&mut out, value).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}
