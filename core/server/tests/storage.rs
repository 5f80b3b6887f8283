//! A game log that cannot be written: the client hears `storage-failed` and the game is exactly
//! as it was, in memory and on disk; once the log can be written again, play goes on.

use meeple_protocol::messages::CreateArgs;
use meeple_server::Server;
use serde_json::json;

/// An empty folder of this test's own, removed when the value is dropped.
fn scratch(what: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("meeple-{what}-")).tempdir().unwrap()
}

#[test]
fn a_step_that_cannot_be_logged_is_not_taken() {
    let dir = scratch("storage");
    let db = dir.path().join("games.sqlite");
    let (server, _) = Server::open(&db, Vec::new()).unwrap();
    let second = Server::open(&db, Vec::new()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(second.contains("another meeple server is using it"), "one server per file: {second}");
    let created = server.create(&CreateArgs { seed: Some(4), ..CreateArgs::default() }).unwrap();
    let seat0 = created.seats[0].clone();
    let id = created.room.lock().unwrap().id().to_string();
    server.act(&id, Some(&seat0), json!({"index": 0}), false).unwrap();
    let before = created.room.lock().unwrap().view(false);

    // Another program breaks the file under the server's feet.
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("ALTER TABLE steps RENAME TO steps_away").unwrap();
    let err = server.act(&id, Some(&seat0), json!({"index": 0}), false).unwrap_err();
    assert_eq!(err.code, meeple_protocol::Code::StorageFailed, "{err:?}");
    assert!(err.message.contains("games.sqlite"), "the message names the file: {}", err.message);
    assert_eq!(created.room.lock().unwrap().view(false), before, "the game is as it was");
    assert_eq!(created.room.lock().unwrap().seq(), 1);

    other.execute_batch("ALTER TABLE steps_away RENAME TO steps").unwrap();
    let taken = server.act(&id, Some(&seat0), json!({"index": 0}), false).unwrap();
    assert_eq!(taken.seq, 2);
    drop(server);
    let (reopened, restored) = Server::open(&db, Vec::new()).unwrap();
    assert_eq!((restored.games, restored.failed.len()), (1, 0));
    let room = reopened.room(&id).unwrap();
    assert_eq!(room.lock().unwrap().seq(), 2, "the refused step was never logged");

    drop(reopened);

    // A log that no longer plays back (here: a hash that differs) is reported, kept, not served.
    other.execute_batch("UPDATE steps SET state_hash = '0' WHERE seq = 2").unwrap();
    let (server, restored) = Server::open(&db, Vec::new()).unwrap();
    assert_eq!(restored.games, 0);
    let logged = meeple_server::Refused::Log("step 2: the game differs from the one logged".to_string());
    assert_eq!(restored.failed, vec![(id.clone(), logged)]);
    assert!(server.room(&id).is_err());
    let kept: i64 = other.query_row("SELECT count(*) FROM steps", [], |r| r.get(0)).unwrap();
    assert_eq!(kept, 2, "the log stays in the file");
}

#[test]
fn a_closed_game_takes_no_step_and_tells_a_late_watcher_at_once() {
    let dir = scratch("closing");
    let (server, _) = Server::open(&dir.path().join("games.sqlite"), Vec::new()).unwrap();
    let created = server.create(&CreateArgs::default()).unwrap();
    let id = created.room.lock().unwrap().id().to_string();
    server.close(&id, Some(&created.owner)).unwrap();

    // A WebSocket that was opening while the game closed: it holds the room, and watches late.
    let (tx, rx) = std::sync::mpsc::sync_channel(meeple_server::rooms::QUEUE);
    created.room.lock().unwrap().watch(tx, false);
    assert_eq!(&*rx.recv().unwrap(), json!({"type": "closed", "game": id}).to_string());
    assert!(rx.recv().is_err(), "and is let go, so that its connection ends");
    let store = std::sync::Mutex::new(meeple_server::store::Store::open(&dir.path().join("other.sqlite")).unwrap());
    let mut room = created.room.lock().unwrap();
    let step = room.step(&store, 0, meeple_server::store::Step::Undo).err().map(|e| e.code);
    assert_eq!(step, Some(meeple_protocol::Code::UnknownGame), "no step once closed");
}

/// A database in `dir` holding one new game, the server that made it gone: the file and the id.
fn one_game_stored(dir: &tempfile::TempDir) -> (std::path::PathBuf, String) {
    let db = dir.path().join("games.sqlite");
    let (server, _) = Server::open(&db, Vec::new()).unwrap();
    let created = server.create(&CreateArgs::default()).unwrap();
    let id = created.room.lock().unwrap().id().to_string();
    (db, id)
}

#[test]
fn a_game_started_with_other_rules_is_not_served() {
    let dir = scratch("other-rules");
    let (db, id) = one_game_stored(&dir);
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("UPDATE games SET ruleset = 'feedfeedfeedfeed'").unwrap();
    let (server, restored) = Server::open(&db, Vec::new()).unwrap();
    assert_eq!(restored.games, 0);
    let why = restored.failed[0].1.to_string();
    assert!(why.starts_with("it was started with ruleset feedfeedfeedfeed"), "{restored:?}");
    assert!(why.ends_with("(an expansion's files, edition, options or tile numbers differ)"), "{why}");
    assert!(server.room(&id).is_err());
    drop(server);
    // Each expansion's part is kept: the one whose files changed is named.
    other.execute_batch("UPDATE games SET expansion_hashes = '{\"base\": \"feed\"}'").unwrap();
    let (server, restored) = Server::open(&db, Vec::new()).unwrap();
    let why = restored.failed[0].1.to_string();
    assert!(why.ends_with("(the files, edition, options or tile numbers of `base` differ)"), "{why}");
    assert!(matches!(restored.failed[0].1, meeple_server::Refused::Ruleset(_)));
    drop(server);
    // On other rules, served, and from now on recorded as played on them: a start without the
    // option serves it too.
    let (server, restored) = Server::open_on(&db, Vec::new(), meeple_core::ReplayRules::Other).unwrap();
    assert_eq!((restored.games, restored.failed.len()), (1, 0));
    assert_eq!(restored.on_other_rules, vec![id.clone()]);
    let seat = server.room(&id).unwrap().lock().unwrap().token_of(0).to_string();
    server.act(&id, Some(&seat), json!({"index": 0}), false).unwrap();
    drop(server);
    let (server, restored) = Server::open(&db, Vec::new()).unwrap();
    assert_eq!((restored.games, restored.on_other_rules.len()), (1, 0), "{restored:?}");
    drop(server);
    // Still every logged step is checked: one that went otherwise is refused.
    other.execute_batch("UPDATE games SET ruleset = 'feedfeedfeedfeed'; UPDATE steps SET state_hash = '0'").unwrap();
    let (server, restored) = Server::open_on(&db, Vec::new(), meeple_core::ReplayRules::Other).unwrap();
    assert_eq!(restored.failed[0].1.to_string(), "step 1: the game differs from the one logged");
    assert!(server.room(&id).is_err());
}

#[test]
fn a_file_written_before_expansion_hashes_were_kept_gets_them() {
    let dir = scratch("no-expansion-hashes");
    let (db, id) = one_game_stored(&dir);
    let old = rusqlite::Connection::open(&db).unwrap();
    old.execute_batch("ALTER TABLE games DROP COLUMN expansion_hashes").unwrap();
    drop(old);
    let (server, restored) = Server::open(&db, Vec::new()).unwrap();
    assert_eq!(restored.games, 1, "{restored:?}");
    assert!(server.room(&id).is_ok());
    server.create(&CreateArgs::default()).unwrap();
    drop(server);
    let file = rusqlite::Connection::open(&db).unwrap();
    let read = |id: &str| -> String {
        file.query_row("SELECT expansion_hashes FROM games WHERE id = ?1", [id], |r| r.get(0)).unwrap()
    };
    assert_eq!(read(&id), "{}", "a game stored before has none");
    assert!(read("g2").contains("\"base\":"), "a new game is stored with them: {}", read("g2"));
}

#[test]
fn a_game_id_is_never_handed_out_twice() {
    let dir = scratch("ids");
    let db = dir.path().join("games.sqlite");
    let id_of = |c: &meeple_server::Created| c.room.lock().unwrap().id().to_string();
    let (server, _) = Server::open(&db, Vec::new()).unwrap();
    let first = server.create(&CreateArgs::default()).unwrap();
    let second = server.create(&CreateArgs::default()).unwrap();
    assert_eq!((id_of(&first), id_of(&second)), ("g1".to_string(), "g2".to_string()));
    // The newest game closed, then the server restarted: its id stays used.
    server.close("g2", Some(&second.owner)).unwrap();
    drop((first, second, server));
    let (server, restored) = Server::open(&db, Vec::new()).unwrap();
    assert_eq!(restored.games, 1);
    assert_eq!(id_of(&server.create(&CreateArgs::default()).unwrap()), "g3");

    // A file written before the counter was kept: the largest id there.
    let other = rusqlite::Connection::open(&db).unwrap();
    drop(server);
    other.execute_batch("DROP TABLE counters").unwrap();
    let (server, _) = Server::open(&db, Vec::new()).unwrap();
    assert_eq!(id_of(&server.create(&CreateArgs::default()).unwrap()), "g4");
}

#[test]
fn a_watcher_that_falls_too_far_behind_is_let_go() {
    let dir = scratch("behind");
    let (server, _) = Server::open(&dir.path().join("games.sqlite"), Vec::new()).unwrap();
    let created = server.create(&CreateArgs { seed: Some(7), ..CreateArgs::default() }).unwrap();
    let id = created.room.lock().unwrap().id().to_string();
    let (tx, rx) = std::sync::mpsc::sync_channel(2);
    created.room.lock().unwrap().watch(tx, true);
    // Three steps by whoever is to act, the watcher reading none of them.
    for _ in 0..3 {
        let seat = created.room.lock().unwrap().table().game().to_act().unwrap();
        server.act(&id, Some(&created.seats[usize::from(seat)]), json!({"index": 0}), false).unwrap();
    }
    let pushed: Vec<u64> =
        rx.iter().map(|t| serde_json::from_str::<serde_json::Value>(&t).unwrap()["seq"].as_u64().unwrap()).collect();
    assert_eq!(pushed, [1, 2], "the two that fit, then the queue is closed");
    assert!(!created.room.lock().unwrap().is_closed(), "the game goes on without it");
}
