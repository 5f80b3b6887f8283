//! The least a Luau hook call can cost on this machine, with nothing of meeple's around it: a
//! bare VM set up as the host sets up its own (sandboxed, optimisation level 2, debug level 2,
//! a raw C interrupt), and the cheapest ways to enter it from Rust. What any hook contract pays
//! per call and per event before it does anything; docs/performance.md draws the bounds.
//!
//! `cargo build --release -p meeple-tests --example luau_floor`, then count instructions at two
//! numbers of calls and take the difference, e.g.
//! `valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/luau_floor
//! dispatch 120000 4` minus the same with `20000`, divided by 100 000.
//!
//! Usage: `luau_floor VARIANT CALLS [EVENTS] [--check]`
//! - `call`: `Function::call` of `function() end` (mlua's own path)
//! - `pcall`: `lua_pcall` of `function() end` on a thread of its own (the host's path)
//! - `dispatch`: one `lua_pcall` of a Lua function that reads EVENTS events (1 to 4) from a
//!   buffer Rust wrote, and calls an empty handler per event with two numbers
//! - `tables`: as `dispatch`, but each handler gets a new table `{kind, a, b}`, as hooks get
//!   their events today
//!
//! `--check` makes the handlers add up what they are given and compares the sum with Rust's.

// The raw calls are what is measured: the host makes the same ones (`core/host/src/luau/raw.rs`).
#![allow(unsafe_code)]

use mlua::chunk::Compiler;
use mlua::{Function, Lua, LuaOptions, StdLib, ffi};
use std::ffi::{CStr, c_int};
use std::sync::atomic::{AtomicI64, Ordering};

/// Interrupts seen, as the host's budget counts them.
static INTERRUPTS: AtomicI64 = AtomicI64::new(0);

/// The host installs its interrupt as a raw callback too (`luau/vm.rs`): mlua's wrapper costs
/// about 90 instructions more each time it runs.
extern "C-unwind" fn interrupt(_state: *mut ffi::lua_State, gc: c_int) {
    if gc < 0 {
        INTERRUPTS.fetch_add(1, Ordering::Relaxed);
    }
}

/// The dispatcher chunk: returns the dispatch function and one that reads the handlers' sum.
fn dispatcher(tables: bool, check: bool) -> String {
    let (params, body) = match (tables, check) {
        (false, false) => ("kind, a", ""),
        (false, true) => ("kind, a", "sum = sum + kind * 1000 + a"),
        (true, false) => ("e", ""),
        (true, true) => ("e", "sum = sum + e.kind * 1000 + e.a + e.b * 1000000"),
    };
    // Eight handlers of their own, as eight hooks would be.
    let handlers: Vec<String> = (0..8).map(|_| format!("function({params}) {body} end")).collect();
    let call = if tables {
        "h({kind = kind, a = buffer.readu32(buf, i * 16 + 4), b = buffer.readu32(buf, i * 16 + 8)})"
    } else {
        "h(kind, buffer.readu32(buf, i * 16 + 4))"
    };
    format!(
        "local sum = 0\n\
         local handlers = {{ {} }}\n\
         return function(buf, n)\n\
           for i = 0, n - 1 do\n\
             local kind = buffer.readu32(buf, i * 16)\n\
             local h = handlers[kind]\n\
             if h then {call} end\n\
           end\n\
         end, function() return sum end\n",
        handlers.join(",\n")
    )
}

fn main() -> mlua::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let check = args.iter().any(|a| a == "--check");
    let args: Vec<&str> = args.iter().skip(1).map(String::as_str).filter(|a| *a != "--check").collect();
    let (variant, calls, events) = match args.as_slice() {
        [v, c] => (*v, c.parse::<u64>(), Ok(1)),
        [v, c, n] => (*v, c.parse::<u64>(), n.parse::<u32>()),
        _ => usage(),
    };
    let (Ok(calls), Ok(events @ 1..=4)) = (calls, events) else { usage() };

    let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::BUFFER;
    let lua = Lua::new_with(libs, LuaOptions::new())?;
    lua.set_compiler(Compiler::new().set_optimization_level(2).set_debug_level(2));
    lua.sandbox(true)?;
    let tables = variant == "tables";
    let (function, sum): (Function, Option<Function>) = match variant {
        "call" | "pcall" => (lua.load("return function() end").set_name("=empty").eval()?, None),
        "dispatch" | "tables" => {
            let (d, s) = lua.load(dispatcher(tables, check)).set_name("=dispatcher").eval()?;
            (d, Some(s))
        }
        _ => usage(),
    };

    // A thread of its own holds the function (slot 1) and the event buffer (slot 2).
    let thread = lua.create_thread(function.clone())?;
    let ts = thread.state();
    let buffer = lua.create_buffer_with_capacity(4 * 16)?;
    // SAFETY: `ts` is the state of `thread`, alive as long as `lua`; the buffer is moved onto
    // its stack, which keeps it alive, and its bytes stay where they are (buffers never move).
    let words: *mut u32 = unsafe {
        lua.exec_raw::<()>(&buffer, |s| ffi::lua_xmove(s, ts, 1))?;
        assert!(ffi::lua_gettop(ts) == 2 && ffi::lua_checkstack(ts, 8) != 0);
        let mut len = 0usize;
        let p = ffi::lua_tobuffer(ts, 2, &mut len) as *mut u32;
        assert!(!p.is_null() && len == 64);
        (*ffi::lua_callbacks(ts)).interrupt = Some(interrupt);
        p
    };

    let mut expected = 0i64;
    match variant {
        "call" => {
            for _ in 0..calls {
                function.call::<()>(())?;
            }
        }
        "pcall" => {
            for _ in 0..calls {
                // SAFETY: slot 1 holds the function; the stack has room (checked above).
                unsafe {
                    ffi::lua_pushvalue(ts, 1);
                    succeeded(ts, ffi::lua_pcall(ts, 0, 0, 0));
                }
            }
        }
        _ => {
            for call in 0..calls {
                for i in 0..events as usize {
                    let (kind, a, b) = ((call as usize + i) % 8 + 1, (call as usize + i) & 0xffff, i + 1);
                    // SAFETY: 16 bytes an event, 4 events fit in the buffer's 64.
                    unsafe {
                        words.add(i * 4).write(kind as u32);
                        words.add(i * 4 + 1).write(a as u32);
                        words.add(i * 4 + 2).write(b as u32);
                    }
                    expected += (kind * 1000 + a + if tables { b * 1_000_000 } else { 0 }) as i64;
                }
                // SAFETY: slots 1 and 2 hold the function and the buffer.
                unsafe {
                    ffi::lua_pushvalue(ts, 1);
                    ffi::lua_pushvalue(ts, 2);
                    ffi::lua_pushnumber(ts, events as f64);
                    succeeded(ts, ffi::lua_pcall(ts, 2, 0, 0));
                }
            }
        }
    }
    if let (true, Some(sum)) = (check, sum) {
        let got: f64 = sum.call(())?;
        assert_eq!(got as i64, expected, "the handlers were given other events than Rust wrote");
        eprintln!("checked: the handlers were given every event");
    }
    let per_call = INTERRUPTS.load(Ordering::Relaxed) as f64 / calls.max(1) as f64;
    eprintln!("{variant}: {calls} calls, {events} events each, {per_call:.2} interrupts a call");
    Ok(())
}

/// Stops on a failed call: a measurement of calls that fail would measure something else.
///
/// # Safety
/// `state` is a live Luau state with the error message on top when `status` is not 0.
unsafe fn succeeded(state: *mut ffi::lua_State, status: c_int) {
    if status != 0 {
        // SAFETY: as the caller promises.
        let message = unsafe { CStr::from_ptr(ffi::lua_tostring(state, -1)) };
        panic!("lua_pcall failed ({status}): {}", message.to_string_lossy());
    }
}

fn usage() -> ! {
    eprintln!("usage: luau_floor call|pcall|dispatch|tables CALLS [EVENTS 1-4] [--check]");
    std::process::exit(2)
}
