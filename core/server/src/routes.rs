//! The HTTP routes (`docs/protocol.md`, "Over HTTP and WebSocket"): each one is a protocol
//! command on the server's games, with the same results and error codes as over stdio.

use crate::http::{Connection, Request, Response};
use crate::rooms::lock;
use crate::{Server, ws};
use meeple_protocol::messages::{CreateArgs, Outcome, ReplayArgs};
use meeple_protocol::network::{
    GameCreated, GameList, GameSummary, HttpReply, HttpResult, SeatToken, Snapshot, UpdateList,
};
use meeple_protocol::{Code, Detail, ProtocolError, session};
use serde_json::{Value, json};

type Result<T> = std::result::Result<T, ProtocolError>;

/// Answers requests on one connection until it closes or becomes a WebSocket.
pub fn serve_connection(server: &Server, mut conn: Connection) {
    loop {
        let request = match conn.read_request() {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(error) => {
                if let Some((status, why)) = error.status() {
                    let error = ProtocolError::new(error.code(), why, None);
                    if conn.respond(&Response { status, ..failure(&error) }, true).is_ok() {
                        conn.linger();
                    }
                }
                return;
            }
        };
        if request.is_upgrade() {
            return upgrade(server, conn, &request);
        }
        let response = match route(server, &request) {
            Ok((status, result)) => {
                Response { status, body: crate::sorted_json(&HttpReply::success(result)), allow: &[] }
            }
            Err(error) => with_allowed(failure(&other_scheme(error, &request)), &request),
        };
        let close = request.wants_close();
        if conn.respond(&response, close).is_err() || close {
            return;
        }
    }
}

/// A token asked for when the request has an Authorization header that is not `Bearer TOKEN`
/// (`Basic …`, `Token …`): the error says too what the header should be, for a client that
/// sent a token and is told that none came.
fn other_scheme(error: ProtocolError, request: &Request) -> ProtocolError {
    let given = request.header("authorization").map(str::trim).filter(|h| !h.is_empty());
    match given {
        Some(header) if error.code == Code::BadToken && request.token().is_none() => {
            let scheme = header.split_whitespace().next().unwrap_or(header);
            let message = format!(
                "{} (the Authorization header given is `{scheme} …`: a token is sent as \
                 `Authorization: Bearer TOKEN` or `?token=TOKEN`)",
                error.message
            );
            ProtocolError { message, ..error }
        }
        _ => error,
    }
}

/// `GET /games/{id}/ws`: the game's updates pushed, and its commands taken, over a WebSocket.
/// A sound handshake that cannot join (a wrong token, an unknown game, a bad query) is still
/// opened, then refused on the socket: a browser's `WebSocket` sees neither the status nor the
/// body of an HTTP reply, only that it failed. A handshake that is none is answered over HTTP.
fn upgrade(server: &Server, mut conn: Connection, request: &Request) {
    let Some(id) = websocket_path(&request.path) else {
        let message = format!("a WebSocket opens at GET /games/{{id}}/ws, not {} {}", request.method, request.path);
        let _ = conn.respond(&failure(&ProtocolError::new(Code::UnknownCommand, message, None)), true);
        return;
    };
    if let Err(error) = handshake(request) {
        let _ = conn.respond(&failure(&error), true);
        return;
    }
    let joined = known_query(request, SOCKET_QUERY).and_then(|()| server.room(id)).and_then(|room| {
        let since = since(request)?;
        let seat = {
            let room = lock(&room);
            not_ahead(&room, since)?;
            // The owner's token watches, as a spectator does: it is no seat's.
            match request.token() {
                Some(t) if room.is_owner(Some(t)) => None,
                token => token.map(|t| room.seat_of(Some(t))).transpose()?,
            }
        };
        Ok((room, seat, brief(request)?, since))
    });
    if conn.accept_websocket(request).is_err() {
        return;
    }
    match joined {
        Ok((room, seat, brief, since)) => ws::run(server, &room, ws::Joined { seat, brief, since }, conn.into_parts()),
        Err(error) => ws::refuse(&error, status(error.code), conn.into_parts()),
    }
}

/// What RFC 6455 §4.2.1 asks of an opening handshake beyond `Upgrade: websocket`.
fn handshake(request: &Request) -> Result<()> {
    let key = request.header("sec-websocket-key").map(str::trim).unwrap_or_default();
    if key.len() != 24 {
        return Err(ProtocolError::new(Code::BadRequest, "a WebSocket handshake needs a Sec-WebSocket-Key", None));
    }
    if request.header("sec-websocket-version").map(str::trim) != Some("13") {
        return Err(ProtocolError::new(Code::BadRequest, "a WebSocket handshake here is version 13", None));
    }
    Ok(())
}

fn websocket_path(path: &str) -> Option<&str> {
    match segments(path).as_slice() {
        ["games", id, "ws"] => Some(id),
        _ => None,
    }
}

fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

fn route(server: &Server, request: &Request) -> Result<(u16, HttpResult)> {
    // A CORS preflight comes with the URL of the request it asks for, query and all.
    if request.method == "OPTIONS" {
        return Ok((200, HttpResult::Preflight));
    }
    let path = segments(&request.path);
    if !methods_of(&path).contains(&request.method.as_str()) {
        return Err(no_route(request));
    }
    known_query(request, query_of(&request.method, &path))?;
    if let ["games", id, ..] = path.as_slice() {
        given_token_is_the_games(server, id, request)?;
    }
    let brief = brief(request)?;
    let ok = |result: HttpResult| Ok((200, result));
    let command = |outcome: Outcome| Ok((200, HttpResult::Command(outcome)));
    match (request.method.as_str(), path.as_slice()) {
        ("GET", [] | ["version"]) => command(session::version()),
        ("GET", ["expansions"]) => command(session::expansions(&server.mods)),
        ("POST", ["verify"]) => {
            let args: ReplayArgs = command_body(request, "verify")?;
            command(session::verify(&args, &server.mods)?)
        }
        ("GET", ["games"]) => ok(HttpResult::Games(list(server))),
        ("POST", ["games"]) => create(server, request, brief).map(|created| (201, HttpResult::Created(created))),
        ("GET", ["games", id]) => {
            let detail = Detail::asked(brief, flag(request, "all_features")?);
            let room = server.room(id)?;
            let room = lock(&room);
            ok(HttpResult::Snapshot(Snapshot { seq: room.seq(), state: Box::new(room.view_in(detail)) }))
        }
        ("GET", ["games", id, "names"]) => {
            let room = server.room(id)?;
            let names = lock(&room).table().names();
            command(Outcome::Named { names: Box::new(names) })
        }
        ("DELETE", ["games", id]) => server.close(id, request.token()).and_then(|()| command(Outcome::Closed {})),
        ("POST", ["games", id, "act"]) => {
            ok(HttpResult::Played(server.act(id, request.token(), body(request)?, brief)?))
        }
        ("POST", ["games", id, "undo"]) => {
            // No fields are needed, but those given are checked as `act`'s are.
            let fields = body(request)?;
            session::only_known(&fields, session::command_fields("undo"), "`undo`")?;
            crate::agrees(&fields, "cmd", "undo", ROUTE_CMD)?;
            crate::agrees(&fields, "game", *id, "the game is the one of the route")?;
            let seq = crate::seq_field(&fields)?;
            ok(HttpResult::Snapshot(server.undo(id, request.token(), seq, brief || crate::brief_field(&fields)?)?))
        }
        ("GET", ["games", id, "replay"]) => {
            let room = server.room(id)?;
            let room = lock(&room);
            // The seed in a replay tells the draw order: players get it once the game is over.
            if !room.table().game().is_over() && !room.is_owner(request.token()) {
                let message = "a replay reveals the draw order: until the game is over, only the owner token gets it";
                return Err(ProtocolError::new(Code::BadToken, message, Some("token")));
            }
            command(Outcome::Saved { replay: Box::new(room.table().replay()) })
        }
        ("GET", ["games", id, "updates"]) => {
            let since = since(request)?;
            let room = server.room(id)?;
            let room = lock(&room);
            not_ahead(&room, since)?;
            let since = since.unwrap_or(0);
            ok(HttpResult::Updates(UpdateList { seq: room.seq(), updates: room.updates_since(since).to_vec() }))
        }
        ("GET", ["games", _, "ws"]) => {
            let message = "GET /games/{id}/ws is a WebSocket: it opens with an `Upgrade: websocket` handshake";
            Err(ProtocolError::new(Code::BadRequest, message, None))
        }
        _ => Err(no_route(request)),
    }
}

/// The query parameters a game's WebSocket reads.
const SOCKET_QUERY: &[&str] = &["brief", "since", "token"];

/// The query parameters a route reads: `brief` where it replies with a state, `since` where it
/// lists steps, and `token` on every route (a client may send its token with every request;
/// where none is read it is ignored). Another is refused, not quietly ignored (a misspelt one,
/// or `?brief=true` on a route that has no state to make brief).
fn query_of(method: &str, path: &[&str]) -> &'static [&'static str] {
    match (method, path) {
        ("GET", ["games", _]) => &["brief", "all_features", "token"],
        ("POST", ["games"] | ["games", _, "act" | "undo"]) => &["brief", "token"],
        ("GET", ["games", _, "updates"]) => &["since", "token"],
        ("GET", ["games", _, "ws"]) => SOCKET_QUERY,
        _ => &["token"],
    }
}

/// Refuses a `since` past the game's last step: a client ahead of the game (a server restored
/// from an older copy of its file, a step number of another game) missed nothing it can be told.
fn not_ahead(room: &crate::rooms::Room, since: Option<u64>) -> Result<()> {
    match since {
        Some(since) if since > room.seq() => {
            let message = format!(
                "the game is at step {}, not {since}: a `since` past it is of another game or copy",
                room.seq()
            );
            Err(ProtocolError::new(Code::Stale, message, Some("since")))
        }
        _ => Ok(()),
    }
}

/// Refuses a query parameter the route does not read, one given twice (`?brief=true&brief=false`,
/// as a field given twice in a body is: readers differ on which of the two counts), and a
/// `?token=` that is not the token of the Authorization header.
fn known_query(request: &Request, known: &[&str]) -> Result<()> {
    if let Some((name, _)) = request.query.iter().find(|(name, _)| !known.contains(&name.as_str())) {
        let takes = match known {
            [] => "none".to_string(),
            names => names.join(", "),
        };
        let message =
            format!("{} {} takes no query parameter `{name}` (it takes: {takes})", request.method, request.path);
        return Err(ProtocolError::new(Code::BadRequest, message, Some(name)));
    }
    let twice =
        request.query.iter().enumerate().find(|(i, (name, _))| request.query[..*i].iter().any(|(n, _)| n == name));
    if let Some((_, (name, _))) = twice {
        let message = format!("the query parameter `{name}` is given more than once; give each parameter once");
        return Err(ProtocolError::new(Code::BadRequest, message, Some(name)));
    }
    if request.tokens_differ() {
        let message = "the Authorization header and `?token=` give two different tokens; give one";
        return Err(ProtocolError::new(Code::BadRequest, message, Some("token")));
    }
    Ok(())
}

/// A token given on a route about a game must be one of its own (a seat's or the owner's),
/// though reading the game needs none: a client sending another game's token is told so at
/// once, not when it first acts.
fn given_token_is_the_games(server: &Server, id: &str, request: &Request) -> Result<()> {
    let Some(token) = request.token() else { return Ok(()) };
    let Ok(room) = server.room(id) else { return Ok(()) };
    let room = lock(&room);
    if room.is_owner(Some(token)) || room.seat_of(Some(token)).is_ok() {
        return Ok(());
    }
    let message = format!("not a token of game `{id}` (neither a seat's nor its owner's)");
    Err(ProtocolError::new(Code::BadToken, message, Some("token")))
}

/// `?since=N`: the steps after step N.
fn since(request: &Request) -> Result<Option<u64>> {
    let read = |s: &str| s.parse().map_err(|_| ProtocolError::bad_field("since", "a step number"));
    request.query("since").map(read).transpose()
}

/// `?brief=`: brief states in the reply (or, on a WebSocket, in the updates).
fn brief(request: &Request) -> Result<bool> {
    flag(request, "brief")
}

/// A true-or-false query parameter, false when absent.
fn flag(request: &Request, name: &str) -> Result<bool> {
    match request.query(name) {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(_) => Err(ProtocolError::bad_field(name, "true or false (or 1 or 0)")),
    }
}

fn no_route(request: &Request) -> ProtocolError {
    let methods = methods_of(&segments(&request.path));
    let message = match methods {
        [] => format!("no route {} {} (docs/protocol.md lists them)", request.method, request.path),
        _ => format!("{} {}: this route takes {}", request.method, request.path, methods.join(" or ")),
    };
    ProtocolError::new(Code::UnknownCommand, message, None)
}

/// A route asked with a method it does not take is 405, with the methods it takes: the path
/// is right, which a 404 would leave in doubt.
fn with_allowed(response: Response, request: &Request) -> Response {
    let allow = methods_of(&segments(&request.path));
    let wrong_method = response.status == 404 && !allow.is_empty() && !allow.contains(&request.method.as_str());
    match wrong_method {
        true => Response { status: 405, allow, ..response },
        false => response,
    }
}

/// The methods a route's path is served with (none: no such route).
fn methods_of(path: &[&str]) -> &'static [&'static str] {
    match path {
        [] | ["version" | "expansions"] | ["games", _, "names" | "replay" | "updates" | "ws"] => &["GET"],
        ["verify"] | ["games", _, "act" | "undo"] => &["POST"],
        ["games"] => &["GET", "POST"],
        ["games", _] => &["GET", "DELETE"],
        _ => &[],
    }
}

/// `POST /games`: a game from a config, with the owner's token and one token per seat.
fn create(server: &Server, request: &Request, brief: bool) -> Result<GameCreated> {
    let args: CreateArgs = command_body(request, "create")?;
    if let Some(path) = &args.path {
        check_config_path(path)?;
    }
    let created = server.create(&args)?;
    let room = lock(&created.room);
    let names = &room.table().game().setup().players;
    let seats = (created.seats.iter().zip(names).enumerate())
        .map(|(seat, (token, name))| SeatToken { seat, name: name.clone(), token: token.clone() })
        .collect();
    Ok(GameCreated {
        game: room.id().to_string(),
        owner: created.owner.clone(),
        seats,
        seq: 0,
        state: Box::new(room.view(brief)),
        names: Box::new(room.table().names()),
        warnings: room.table().warnings().to_vec(),
    })
}

/// A config named by path must lie below the server's working directory: a client on the
/// network must not make the server read (and quote problems from) any file it can reach.
fn check_config_path(path: &str) -> Result<()> {
    use std::path::Component;
    let inside = std::path::Path::new(path).components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if inside {
        Ok(())
    } else {
        Err(ProtocolError::bad_field("path", "a relative path below the server's working directory (no `..`)"))
    }
}

fn list(server: &Server) -> GameList {
    let games = server
        .game_ids()
        .iter()
        .filter_map(|id| server.room(id).ok())
        .map(|room| {
            let room = lock(&room);
            // The room counts its steps itself (a seat's undo among them).
            GameSummary { seq: room.seq(), ..room.table().summary(room.id()) }
        })
        .collect();
    GameList { games }
}

/// A body holding the fields of the protocol's command `cmd`.
fn command_body<T: serde::de::DeserializeOwned>(request: &Request, cmd: &str) -> Result<T> {
    let body = body(request)?;
    session::only_known(&body, session::command_fields(cmd), &format!("{} {}", request.method, request.path))?;
    crate::agrees(&body, "cmd", cmd, ROUTE_CMD)?;
    session::fields(&body)
}

/// Why a body's `cmd` must be the route's: the route says which command runs, and a body that
/// names another was meant for another route.
pub(crate) const ROUTE_CMD: &str = "the route is the command's";

/// A request body: a JSON object of the command's fields; an empty body is `{}`.
fn body(request: &Request) -> Result<Value> {
    if meeple_protocol::is_blank(&request.body) {
        return Ok(json!({}));
    }
    let body = meeple_protocol::read_json(&request.body, "the body is not JSON")?;
    if !body.is_object() {
        let message = "the body is a JSON object of the command's fields";
        return Err(ProtocolError::new(Code::BadRequest, message, None));
    }
    Ok(body)
}

/// The reply to a request that failed: `{"ok": false, "error": …}` with the error's status.
pub(crate) fn failure(error: &ProtocolError) -> Response {
    Response { status: status(error.code), body: crate::sorted_json(&HttpReply::failure(error.clone())), allow: &[] }
}

/// The HTTP status of each error code.
fn status(code: Code) -> u16 {
    match code {
        Code::BadJson | Code::BadRequest | Code::BadConfig | Code::ReplayMismatch => 400,
        Code::BadToken => 401,
        Code::UnknownCommand | Code::UnknownGame => 404,
        Code::IllegalAction
        | Code::NotYourTurn
        | Code::Stale
        | Code::NothingToUndo
        | Code::NotYourAction
        | Code::NoReplay => 409,
        Code::ExpansionFailed => 500,
        Code::StorageFailed | Code::Busy => 503,
    }
}
