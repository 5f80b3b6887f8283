//! Just enough HTTP/1.1 for a JSON API: requests with a `Content-Length` body, keep-alive, and
//! the WebSocket upgrade handshake. Headers are parsed by `httparse`.

use std::io::{self, Read, Write};
use std::net::TcpStream;

/// Longest head (request line and headers) accepted.
const MAX_HEAD: usize = 16 * 1024;
/// Longest body accepted (a replay of a long game is well under this).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// One request.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, without the query.
    pub path: String,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
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
        let bearer = self.header("authorization").and_then(|h| h.strip_prefix("Bearer ")).map(str::trim);
        bearer.or_else(|| self.query("token"))
    }

    /// Whether the client asks for a WebSocket.
    pub fn is_upgrade(&self) -> bool {
        self.header("upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"))
    }

    /// Whether the client wants the connection closed after the reply.
    pub fn wants_close(&self) -> bool {
        self.header("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"))
    }
}

/// A reply.
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body, JSON.
    pub body: String,
}

/// Why a request could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The connection failed or timed out.
    Gone,
    /// Not a request this server understands; the message says why.
    Malformed(String),
}

/// A client connection: the stream and whatever was read past the last request.
pub struct Connection {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Connection {
    /// Wraps an accepted stream.
    pub fn new(stream: TcpStream) -> Connection {
        Connection { stream, buf: Vec::new() }
    }

    /// The stream, once HTTP is done with it (after a WebSocket handshake).
    pub fn into_stream(self) -> TcpStream {
        self.stream
    }

    /// The next request, or `None` when the client has closed the connection.
    pub fn read_request(&mut self) -> Result<Option<Request>, ReadError> {
        let head_len = loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                break end + 4;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Malformed(format!("request head over {MAX_HEAD} bytes")));
            }
            if !self.fill()? {
                return if self.buf.is_empty() { Ok(None) } else { Err(ReadError::Malformed("cut short".into())) };
            }
        };
        let mut request = parse_head(&self.buf[..head_len])?;
        let length = match request.header("content-length") {
            Some(v) => v.trim().parse::<usize>().map_err(|_| ReadError::Malformed("bad Content-Length".into()))?,
            None => 0,
        };
        if length > MAX_BODY {
            return Err(ReadError::Malformed(format!("body over {MAX_BODY} bytes")));
        }
        while self.buf.len() < head_len + length {
            if !self.fill()? {
                return Err(ReadError::Malformed("body cut short".into()));
            }
        }
        request.body = self.buf[head_len..head_len + length].to_vec();
        self.buf.drain(..head_len + length);
        Ok(Some(request))
    }

    /// Reads more; false at the end of the stream.
    fn fill(&mut self) -> Result<bool, ReadError> {
        let mut chunk = [0u8; 8192];
        let n = self.stream.read(&mut chunk).map_err(|_| ReadError::Gone)?;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n > 0)
    }

    /// Writes a JSON reply. Any origin may call the API (it is guarded by tokens, not cookies).
    pub fn respond(&mut self, response: &Response, close: bool) -> io::Result<()> {
        let head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: Authorization, Content-Type\r\n\
             Access-Control-Allow-Methods: GET, POST, DELETE, OPTIONS\r\nConnection: {}\r\n\r\n",
            response.status,
            reason(response.status),
            response.body.len(),
            if close { "close" } else { "keep-alive" },
        );
        self.stream.write_all(head.as_bytes())?;
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
        409 => "Conflict",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}
