//! Any line a client sends: one reply, no panic, and the session's game still plays.
#![no_main]

use libfuzzer_sys::fuzz_target;
use meeple_protocol::Session;

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static SESSION: std::cell::RefCell<Session> = std::cell::RefCell::new({
            let mut s = Session::new(Vec::new());
            s.handle_line(r#"{"cmd":"create","seed":1}"#);
            s
        });
    }
    let line = String::from_utf8_lossy(data);
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        let reply = s.handle_line(&line);
        assert!(reply.starts_with('{'), "every line gets a JSON reply");
        let state = s.handle_line(r#"{"cmd":"state","game":"g1"}"#);
        assert!(state.contains(r#""ok":true"#), "the game survives: {state}");
    });
});
