//! The least a native hook call can cost on this machine, with nothing of meeple's around it:
//! an `extern "C"` entry point reached through a function pointer (what `dlsym` hands the host),
//! the event written as bytes into a buffer the host owns and reuses, and on the other side the
//! cheapest plugin the ABI allows: `catch_unwind`, the bytes read back into an event, a trait
//! object's empty handler, an empty reply. What any hook contract that sends bytes across pays
//! per crossing before it does anything; docs/performance.md draws the bounds.
//!
//! `cargo build --release -p meeple-tests --example native_floor`, then count instructions at
//! two numbers of calls and take the difference, e.g.
//! `valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/native_floor
//! event 1200000` minus the same with `200000`, divided by 1 000 000.
//!
//! Usage: `native_floor VARIANT CALLS [--check]`
//! - `none`: the loop alone, writing and calling nothing (to subtract from the others)
//! - `call`: the entry point called with nothing, returning at once (the C call alone)
//! - `event`: an event of five words written, sent, read and handed to an empty handler
//!
//! `--check` makes the handler add up what it is given and compares the sum with the host's.
//!
//! The entry point lives in this program, not in a library: a call through the pointer
//! `dlsym` returns is the same indirect call, and loading a library adds nothing per call.

// The raw bytes are what is measured: the host lends a plugin its buffer the same way.
#![allow(unsafe_code)]

use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the handler was given, summed, for `--check`.
static SUM: AtomicU64 = AtomicU64::new(0);

/// An event as a plugin reads it: the hook and four words (a figure, a player, a segment…).
struct Event {
    hook: u8,
    words: [u32; 4],
}

/// The trait a plugin author implements, as the SDK's `Expansion`.
trait Hooks: Sync {
    fn on_event(&self, event: &Event) -> Result<(), String>;
}

/// The no-op: a handler that does nothing.
struct Empty;

impl Hooks for Empty {
    fn on_event(&self, _: &Event) -> Result<(), String> {
        Ok(())
    }
}

/// The same, adding up what it is given.
struct Summing;

impl Hooks for Summing {
    fn on_event(&self, e: &Event) -> Result<(), String> {
        let sum = e.words.iter().fold(u64::from(e.hook), |s, &w| s * 31 + u64::from(w));
        SUM.fetch_add(sum, Ordering::Relaxed);
        Ok(())
    }
}

/// The plugin's instance, as the SDK keeps it.
static PLUGIN: OnceLock<&'static dyn Hooks> = OnceLock::new();

/// The entry point that returns at once.
extern "C" fn bare(_: *const u8, _: usize) -> u32 {
    0
}

/// The entry point of a call that carries an event: 0 when the handler succeeded.
extern "C" fn on_event(bytes: *const u8, len: usize) -> u32 {
    let run = || {
        // SAFETY: the host keeps its buffer alive and unchanged for the call.
        let input = unsafe { std::slice::from_raw_parts(bytes, len) };
        let event = read(input).ok_or("a malformed call")?;
        let plugin = PLUGIN.get().ok_or("no instance")?;
        plugin.on_event(&event)
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(())) => 0,
        Ok(Err(_)) => 1,
        Err(_) => 2,
    }
}

/// Reads an event: a hook byte, then four little-endian words.
fn read(input: &[u8]) -> Option<Event> {
    let (&hook, rest) = input.split_first()?;
    let word = |i: usize| Some(u32::from_le_bytes(rest.get(i * 4..i * 4 + 4)?.try_into().ok()?));
    Some(Event { hook, words: [word(0)?, word(1)?, word(2)?, word(3)?] })
}

/// Writes an event into the host's buffer, reused from call to call: its length.
fn write(buf: &mut [u8; EVENT_BYTES], hook: u8, words: [u32; 4]) -> usize {
    buf[0] = hook;
    for (i, w) in words.into_iter().enumerate() {
        buf[1 + i * 4..5 + i * 4].copy_from_slice(&w.to_le_bytes());
    }
    EVENT_BYTES
}

/// The bytes of an event.
const EVENT_BYTES: usize = 17;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let check = args.iter().any(|a| a == "--check");
    let args: Vec<&str> = args.iter().skip(1).map(String::as_str).filter(|a| *a != "--check").collect();
    let [variant, calls] = args.as_slice() else { usage() };
    let Ok(calls) = calls.parse::<u64>() else { usage() };
    let plugin: &'static dyn Hooks = if check { &Summing } else { &Empty };
    PLUGIN.get_or_init(|| black_box(plugin));

    let entry: Option<extern "C" fn(*const u8, usize) -> u32> = match *variant {
        "none" => None,
        "call" => Some(bare),
        "event" => Some(on_event),
        _ => usage(),
    };
    let entry = black_box(entry);
    let sends_event = *variant == "event";
    let mut buf = [0u8; EVENT_BYTES];
    let mut len = 0;
    let mut expected = 0u64;
    for call in 0..calls {
        let (hook, words) = ((call % 7) as u8, [call as u32, (call % 6) as u32, (call >> 3) as u32, 1]);
        if sends_event {
            len = write(&mut buf, hook, words);
        }
        if check {
            expected += words.iter().fold(u64::from(hook), |s, &w| s * 31 + u64::from(w));
        }
        let status = entry.map_or(0, |f| f(buf.as_ptr(), len));
        assert_eq!(status, 0, "a call failed: a measurement of failing calls would measure something else");
    }
    if check && sends_event {
        assert_eq!(SUM.load(Ordering::Relaxed), expected, "the handler was given other events than the host wrote");
        eprintln!("checked: the handler was given every event");
    }
    eprintln!("{variant}: {calls} calls");
}

fn usage() -> ! {
    eprintln!("usage: native_floor none|call|event CALLS [--check]");
    std::process::exit(2)
}
