//! Just enough HTTP/1.1 for a JSON API: requests with a `Content-Length` body, keep-alive, and
//! the WebSocket upgrade handshake. Headers are parsed by `httparse`.

use crate::timed::Timed;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Longest head (request line and headers) accepted.
const MAX_HEAD: usize = 16 * 1024;
/// Longest body accepted.
pub const MAX_BODY: usize = meeple_protocol::MAX_MESSAGE;
/// How long a kept-alive connection may wait for its next request.
const IDLE: Duration = Duration::from_secs(120);
/// The most the large bodies being read and handled at once may hold, over all connections:
/// sixteen of the largest. Without it, every connection could hold a body of `MAX_BODY` at once.
const BODY_BUDGET: usize = 16 * MAX_BODY;
/// Bodies up to this size (every `act`, most configs) do not count against [`BODY_BUDGET`]:
/// clients that fill it with large bodies then keep no one from playing.
const SMALL_BODY: usize = 64 * 1024;
/// The bytes of the bodies held at once.
static BODIES: AtomicUsize = AtomicUsize::new(0);

/// A body's share of [`BODY_BUDGET`], given back when the request it belongs to is dropped.
#[derive(Debug)]
struct BodyShare(usize);

impl BodyShare {
    fn take(bytes: usize) -> Option<BodyShare> {
        BODIES
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|&total| total <= BODY_BUDGET)
            })
            .ok()?;
        Some(BodyShare(bytes))
    }
}

impl Drop for BodyShare {
    fn drop(&mut self) {
        BODIES.fetch_sub(self.0, Ordering::AcqRel);
    }
}

/// One request.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query's parameters, in order.
    pub query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    /// HTTP/1.0 closes a connection after each reply unless asked to keep it.
    http10: bool,
    /// The body.
    pub body: Vec<u8>,
    /// The body's share of what all bodies may hold at once.
    _share: Option<BodyShare>,
}

impl Request {
    /// A header's value (names compare without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// A query parameter's value.
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The seat token: `Authorization: Bearer …`, or `?token=…` for clients that cannot set
    /// headers (a browser's WebSocket).
    pub fn token(&self) -> Option<&str> {
        self.header("authorization").and_then(bearer_token).or_else(|| self.query("token"))
    }

    /// Whether the request gives two different tokens, one as `Authorization: Bearer …` and
    /// one as `?token=…`: which seat it acts for is then not for the server to guess.
    pub fn tokens_differ(&self) -> bool {
        let header = self.header("authorization").and_then(bearer_token);
        matches!((header, self.query("token")), (Some(h), Some(q)) if h != q)
    }

    /// Whether the client asks for a WebSocket: only a `GET` can be upgraded (RFC 6455 §4.1);
    /// another method is answered as the request it is.
    pub fn is_upgrade(&self) -> bool {
        self.method == "GET" && self.header("upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"))
    }

    /// Whether the connection closes after the reply: asked for, or HTTP/1.0 not asking to keep it.
    pub fn wants_close(&self) -> bool {
        let says = |option: &str| {
            self.headers
                .iter()
                .filter(|(n, _)| n.eq_ignore_ascii_case("connection"))
                .flat_map(|(_, v)| v.split(','))
                .any(|o| o.trim().eq_ignore_ascii_case(option))
        };
        says("close") || (self.http10 && !says("keep-alive"))
    }

    /// The body's length: no `Content-Length` is none, and every one given must agree (a request
    /// with two lengths could be read as two different requests by a proxy in front).
    fn content_length(&self) -> Result<usize, ReadError> {
        let mut lengths = self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("content-length"));
        let Some((_, first)) = lengths.next() else { return Ok(0) };
        if lengths.any(|(_, v)| v.trim() != first.trim()) {
            return Err(ReadError::Malformed("conflicting Content-Length headers".into()));
        }
        let digits = first.trim();
        // Digits only (RFC 9110 §8.6): `+0` or `0x10` would be read otherwise by some other reader.
        match digits.bytes().all(|b| b.is_ascii_digit()) {
            true => digits.parse().map_err(|_| ReadError::Malformed("bad Content-Length".into())),
            false => Err(ReadError::Malformed("bad Content-Length".into())),
        }
    }
}

/// The token of `Bearer TOKEN` credentials. The scheme's name is matched without case (RFC 7235
/// §2.1: `bearer` and `BEARER` are `Bearer`), and is followed by one or more spaces.
fn bearer_token(credentials: &str) -> Option<&str> {
    let (scheme, token) = credentials.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// A reply.
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body, JSON.
    pub body: String,
    /// For a 405, the methods the route takes (its `Allow` header).
    pub allow: &'static [&'static str],
}

impl Response {
    /// The reply's status line and headers, up to the blank line. Any origin may call the API
    /// (it is guarded by tokens, not cookies).
    pub fn head(&self, close: bool) -> String {
        format!(
            "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: Authorization, Content-Type\r\n\
             Access-Control-Allow-Methods: GET, POST, DELETE, OPTIONS\r\n{}{}Connection: {}\r\n\r\n",
            self.status,
            reason(self.status),
            self.body.len(),
            // A server too busy for a request now will have room again soon.
            if self.status == 503 { "Retry-After: 1\r\n" } else { "" },
            if self.allow.is_empty() { String::new() } else { format!("Allow: {}\r\n", self.allow.join(", ")) },
            if close { "close" } else { "keep-alive" },
        )
    }
}

/// Why a request could not be read. After any of them the connection is closed: where the next
/// request would start is not known.
#[derive(Debug)]
pub enum ReadError {
    /// The connection failed, or stayed idle too long.
    Gone,
    /// Not a request this server understands (400); the message says why.
    Malformed(String),
    /// A request that began did not arrive in full in time (408).
    TooSlow(Duration),
    /// A body sent in a way this server does not read (501); the message says which.
    Unsupported(String),
    /// A body the server has no room for now (503): other clients' bodies fill its budget.
    Busy(usize),
}

impl ReadError {
    /// The protocol's code for it.
    pub fn code(&self) -> meeple_protocol::Code {
        match self {
            ReadError::Busy(_) => meeple_protocol::Code::Busy,
            _ => meeple_protocol::Code::BadRequest,
        }
    }

    /// The HTTP status a client gets for it, and why, if it gets a reply at all.
    pub fn status(&self) -> Option<(u16, String)> {
        match self {
            ReadError::Gone => None,
            ReadError::Malformed(why) => Some((400, why.clone())),
            ReadError::TooSlow(limit) => {
                Some((408, format!("the request did not arrive in full within {} s", limit.as_secs_f64())))
            }
            ReadError::Unsupported(why) => Some((501, why.clone())),
            ReadError::Busy(bytes) => Some((
                503,
                format!("the server holds as many bodies as it can; a body of {bytes} bytes must wait: try again"),
            )),
        }
    }
}

/// A client connection: the stream and whatever was read past the last request.
pub struct Connection {
    stream: Timed,
    buf: Vec<u8>,
    /// How long a request may take to arrive, from its first byte to its last.
    request_time: Duration,
    /// When the request being read must be in.
    deadline: Instant,
    /// Whether a request has been answered: a new connection has `request_time`, not the idle
    /// wait, to send its first one (a connection opened and left silent holds no place for long).
    answered: bool,
}

impl Connection {
    /// Wraps an accepted stream; each request must arrive within `request_time` of its first
    /// byte (a client trickling a byte at a time holds no connection for long).
    pub fn new(stream: Timed, request_time: Duration) -> Connection {
        Connection { stream, buf: Vec::new(), request_time, deadline: Instant::now(), answered: false }
    }

    /// The stream once HTTP is done with it (after a WebSocket handshake), with the bytes the
    /// client sent after the handshake, already read.
    pub fn into_parts(self) -> (Timed, Vec<u8>) {
        (self.stream, self.buf)
    }

    /// Closes the connection after a reply that ends it: stops writing, then reads and drops
    /// what the client is still sending for a moment. A socket closed on unread bytes is reset,
    /// and the reset can overtake the reply, leaving the client without it.
    pub fn linger(mut self) {
        linger(self.stream.get_mut());
    }

    /// The next request, or `None` when the client has closed the connection.
    pub fn read_request(&mut self) -> Result<Option<Request>, ReadError> {
        // Blank lines between requests are ignored (RFC 9112 §2.2): some clients send one after
        // a body. Bytes of the next request already read start its clock; otherwise its first
        // byte does, or, on a new connection, the accept.
        self.skip_blank_lines();
        let waiting = self.buf.is_empty() && self.answered;
        self.deadline = Instant::now() + if waiting { IDLE } else { self.request_time };
        let mut searched: usize = 0;
        let head_len = loop {
            // Only the new bytes (and the three before them) can complete the blank line.
            if let Some(end) = find(&self.buf[searched.saturating_sub(3)..], b"\r\n\r\n") {
                break searched.saturating_sub(3) + end + 4;
            }
            searched = self.buf.len();
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Malformed(format!("request head over {MAX_HEAD} bytes")));
            }
            if !self.fill()? {
                return if self.buf.is_empty() { Ok(None) } else { Err(ReadError::Malformed("cut short".into())) };
            }
            if searched == 0 {
                self.skip_blank_lines();
            }
        };
        if head_len > MAX_HEAD {
            return Err(ReadError::Malformed(format!("request head over {MAX_HEAD} bytes")));
        }
        self.answered = true;
        let mut request = parse_head(&self.buf[..head_len])?;
        if let Some(coding) = request.header("transfer-encoding") {
            let why = format!("Transfer-Encoding `{coding}` is not read here: send the body with a Content-Length");
            return Err(ReadError::Unsupported(why));
        }
        let length = request.content_length()?;
        if length > MAX_BODY {
            return Err(ReadError::Malformed(format!("body over {MAX_BODY} bytes")));
        }
        if length > SMALL_BODY {
            request._share = Some(BodyShare::take(length).ok_or(ReadError::Busy(length))?);
        }
        // Room for the whole request at once, and the body taken out of the buffer, not copied:
        // a large body is held once, not three times.
        self.buf.reserve((head_len + length).saturating_sub(self.buf.len()));
        while self.buf.len() < head_len + length {
            if !self.fill()? {
                return Err(ReadError::Malformed("body cut short".into()));
            }
        }
        let rest = self.buf.split_off(head_len + length);
        let mut body = std::mem::replace(&mut self.buf, rest);
        body.drain(..head_len);
        request.body = body;
        Ok(Some(request))
    }

    /// Drops the line ends in front of the next request.
    fn skip_blank_lines(&mut self) {
        let blank = self.buf.iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
        self.buf.drain(..blank);
    }

    /// Reads more, before the deadline; false at the end of the stream.
    fn fill(&mut self) -> Result<bool, ReadError> {
        let started = !self.buf.is_empty();
        let late = || if started { ReadError::TooSlow(self.request_time) } else { ReadError::Gone };
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(late());
        }
        self.stream.get_ref().set_read_timeout(Some(left)).map_err(|_| ReadError::Gone)?;
        let mut chunk = [0u8; 8192];
        let n = match self.stream.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => return Err(late()),
            Err(_) => return Err(ReadError::Gone),
        };
        if !started && chunk[..n].iter().any(|&b| b != b'\r' && b != b'\n') {
            // A request has begun: from now on it has `request_time` to arrive.
            self.deadline = Instant::now() + self.request_time;
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n > 0)
    }

    /// Writes a JSON reply.
    pub fn respond(&mut self, response: &Response, close: bool) -> io::Result<()> {
        self.stream.write_all(response.head(close).as_bytes())?;
        self.stream.write_all(response.body.as_bytes())?;
        self.stream.flush()
    }

    /// Accepts a WebSocket upgrade (RFC 6455 §4.2.2).
    pub fn accept_websocket(&mut self, request: &Request) -> io::Result<()> {
        let key = request.header("sec-websocket-key").unwrap_or_default();
        let accept = tungstenite::handshake::derive_accept_key(key.trim().as_bytes());
        let head = format!(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Accept: {accept}\r\n\r\n"
        );
        self.stream.write_all(head.as_bytes())?;
        self.stream.flush()
    }
}

/// Stops writing, then reads and drops what the client still sends, for [`LINGER`] at most.
pub fn linger(stream: &mut TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let until = Instant::now() + LINGER;
    let mut sink = [0u8; 64 * 1024];
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        if stream.set_read_timeout(Some(left.max(Duration::from_millis(1)))).is_err() {
            return;
        }
        match stream.read(&mut sink) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// How long a connection closed by the server still takes the client's bytes.
const LINGER: Duration = Duration::from_secs(2);

fn parse_head(head: &[u8]) -> Result<Request, ReadError> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(ReadError::Malformed("incomplete request head".into())),
        Err(e) => return Err(ReadError::Malformed(format!("not an HTTP request: {e}"))),
    }
    let target = parsed.path.unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Ok(Request {
        http10: parsed.version == Some(0),
        method: parsed.method.unwrap_or("GET").to_string(),
        path: path.to_string(),
        query: query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_string(), v.to_string())
            })
            .collect(),
        headers: parsed
            .headers
            .iter()
            .map(|h| (h.name.to_string(), String::from_utf8_lossy(h.value).into_owned()))
            .collect(),
        body: Vec::new(),
        _share: None,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_scheme_is_named_in_any_case() {
        for credentials in ["Bearer abc", "bearer abc", "BEARER abc", "bEaReR   abc "] {
            assert_eq!(bearer_token(credentials), Some("abc"), "{credentials}");
        }
        for credentials in ["Basic abc", "Bearerabc", "Bearer", "abc"] {
            assert_eq!(bearer_token(credentials), None, "{credentials}");
        }
    }
}
