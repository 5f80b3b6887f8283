//! The C ABI between meeple and a native plugin, version 1.
//!
//! - The plugin exports `meeple_plugin_v1`, returning a pointer to a static [`PluginV1`]. A
//!   plugin built for another major version exports another symbol, so a mismatch is found
//!   before anything is called.
//! - Tables only grow at the end; `struct_size` tells the reader how much of a table exists, and
//!   `abi_minor` which additions to expect.
//! - Every call passes its input as [`Bytes`] owned by the caller for the length of the call, and
//!   returns output by calling a [`Sink`] that copies the bytes into the receiver's own buffer.
//! - Return codes: [`OK`], [`ERROR`] (the sink got a UTF-8 message), [`PANICKED`] (the sink got
//!   the panic message).
//! - Minor versions, each readable by the other side's older builds: 1 added the call's facts to
//!   [`HostV1`]; 2 added [`HostV1::abi_minor`], the expansion's `Interest` in the reply to the
//!   ruleset (only to hosts that announce 2) and the expansion's own figures after each event
//!   (older plugins stop reading after the event; an expansion that declares no figure kinds
//!   gets none, as from older hosts); 3 added queries and answers in the wire
//!   format (a plugin sends them only to hosts that announce 3, see [`crate::proto::query`])
//!   and `Interest::when_on_board` (sent only to hosts that announce 3); 4 added the
//!   `Release` call, which a host sends only to plugins built with 4, when it is done with an
//!   instance (older plugins keep every instance); 5 added the query `ScoreBeforeFinal`, which
//!   an older host refuses (the call that asked it fails), so a plugin that asks it needs a
//!   host of 5 or later; 6 added the query `PlayerName`, likewise; 7 added where each command was given
//!   (reply tag `COMMANDS_AT`), sent only to hosts that announce 7; 8 added what a question is
//!   about (`Command::Ask`'s `about`), which an older host cannot read (the call that asks it
//!   fails), so a plugin that gives it needs a host of 8 or later.

use std::ffi::c_void;

/// The major version; it is part of the entry symbol's name.
pub const ABI_MAJOR: u32 = 1;
/// The minor version of this SDK's tables.
pub const ABI_MINOR: u32 = 8;
/// The entry symbol of ABI version 1.
pub const ENTRY: &str = "meeple_plugin_v1";

/// The call succeeded; the sink holds the reply.
pub const OK: u32 = 0;
/// The call failed; the sink holds a message.
pub const ERROR: u32 = 1;
/// The plugin panicked; the sink holds the panic message.
pub const PANICKED: u32 = 2;

/// Borrowed bytes: valid for the length of the call they are passed to.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Bytes {
    /// First byte (may dangle when `len` is 0).
    pub ptr: *const u8,
    /// Length.
    pub len: usize,
}

impl Bytes {
    /// Borrows a slice.
    pub fn from_slice(s: &[u8]) -> Bytes {
        Bytes { ptr: s.as_ptr(), len: s.len() }
    }

    /// Borrows a static string (for the plugin table).
    pub const fn from_static(s: &'static str) -> Bytes {
        Bytes { ptr: s.as_ptr(), len: s.len() }
    }

    /// The bytes as a slice.
    ///
    /// # Safety
    /// `ptr` must point at `len` readable bytes that stay alive and unchanged for `'a`.
    pub unsafe fn as_slice<'a>(&self) -> &'a [u8] {
        if self.len == 0 { &[] } else { unsafe { std::slice::from_raw_parts(self.ptr, self.len) } }
    }
}

/// Copies bytes into the buffer behind `sink` (which belongs to the side that passed it).
pub type Sink = unsafe extern "C" fn(sink: *mut c_void, data: Bytes);

/// What the host offers the plugin during a call.
#[repr(C)]
pub struct HostV1 {
    /// Size of this table.
    pub struct_size: u32,
    /// The host's context for this call.
    pub ctx: *mut c_void,
    /// Writes a log line (level: 1 error, 2 warn, 3 info, 4 debug, 5 trace).
    pub log: unsafe extern "C" fn(ctx: *mut c_void, level: u32, message: Bytes),
    /// Answers a view query (a [`crate::proto`] `Query`) into the sink; returns a status.
    pub query: unsafe extern "C" fn(ctx: *mut c_void, query: Bytes, sink: *mut c_void, write: Sink) -> u32,
    /// Minor 1: what nearly every hook asks first, so that it needs no query.
    pub facts: Facts,
    /// Minor 2: the host's [`ABI_MINOR`]. From 2 the host takes the expansion's `Interest` in
    /// the reply to the ruleset (see [`crate::proto::reply::INTEREST`]).
    pub abi_minor: u32,
}

impl HostV1 {
    /// The host's minor version, from the table's size for hosts older than minor 2.
    ///
    /// # Safety
    /// `host` must point at a host table at least `struct_size` bytes long.
    pub unsafe fn minor(host: *const HostV1) -> u32 {
        // SAFETY: each field is read only when the table is long enough to hold it.
        unsafe {
            if (*host).struct_size as usize >= std::mem::size_of::<HostV1>() {
                (*host).abi_minor
            } else if (*host).struct_size as usize >= std::mem::offset_of!(HostV1, abi_minor) {
                1
            } else {
                0
            }
        }
    }
}

/// Facts about the game at the moment of a call (all zero outside a hook call).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Number of players.
    pub players: u32,
    /// Turn number, from 1.
    pub turn: u32,
    /// Whose turn it is.
    pub player: u32,
    /// Part of the turn, from 1.
    pub part: u32,
    /// Where the turn machine stands (`Stage as u32`).
    pub stage: u32,
    /// The index of the tile placed in this part, or -1.
    pub placed: i32,
    /// Tiles still to draw.
    pub tiles_left: u32,
    /// The version of the calling expansion's storage.
    pub storage_version: u64,
}

/// What a plugin exports.
#[repr(C)]
pub struct PluginV1 {
    /// Size of this table.
    pub struct_size: u32,
    /// [`ABI_MINOR`] of the SDK the plugin was built with.
    pub abi_minor: u32,
    /// The message schema version ([`crate::proto::PROTO`]).
    pub proto: u32,
    /// The plugin's expansion id.
    pub id: Bytes,
    /// The plugin's version.
    pub version: Bytes,
    /// What built it, for error reports.
    pub built_with: Bytes,
    /// Makes an expansion from `Settings`; replies `Created`.
    pub create: unsafe extern "C" fn(host: *const HostV1, settings: Bytes, sink: *mut c_void, write: Sink) -> u32,
    /// Calls a hook of an instance; replies `Result<Reply, HookError>`.
    pub call:
        unsafe extern "C" fn(host: *const HostV1, instance: u32, call: Bytes, sink: *mut c_void, write: Sink) -> u32,
}

// SAFETY: the table is immutable static data: pointers to static strings and functions.
unsafe impl Sync for PluginV1 {}

/// A [`Sink`] that appends to a `Vec<u8>`.
///
/// # Safety
/// `sink` must point at a live `Vec<u8>` owned by the caller of the function that received it.
pub unsafe extern "C" fn vec_sink(sink: *mut c_void, data: Bytes) {
    let v = unsafe { &mut *(sink as *mut Vec<u8>) };
    v.extend_from_slice(unsafe { data.as_slice() });
}
