//! Native plugins: expansions built as dynamic libraries against `meeple-plugin-sdk`.
//!
//! A library is opened once per process and never unloaded (a function pointer or static of an
//! unloaded library would dangle; several platforms cannot unload libraries anyway). The entry
//! symbol names the ABI major version; a library without it, or built for another version or
//! message schema, is refused with a message that says what to rebuild.

use crate::paths::display_path;
pub use crate::plugin_files::{find, locate, played, search_dirs};
use crate::ruleset::Selected;
use libloading::Library;
use meeple_core::action::{Decision, Offer};
use meeple_core::figures::FigureKindId;
use meeple_core::view::Query;
use meeple_core::{
    Commands, Event, Expansion, HookError, HookKind, HookResult, HookSet, Interest, Placement, Rules, Scoring, TileId,
    View,
};
use meeple_plugin_sdk::abi::{self, Bytes, HostV1, PluginV1, vec_sink};
use meeple_plugin_sdk::proto::{
    Call, Created, PROTO, Reply, RulesData, Settings, decode, decode_commands_at, decode_interest, decode_query,
    decode_reply, encode, encode_answer, encode_wire_answer_into, reply, tag, tagged_message,
};
use meeple_plugin_sdk::wire::Writer;
use std::collections::HashMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// A place a plugin gave (its file's name as bytes, a line) and the place the host names.
type KnownPlace = (Box<[u8]>, u32, &'static str);

/// A text that lasts as long as the program, made once per distinct text: the places plugins
/// give their commands at, a few lines each, never freed (as plugin libraries never are). Past
/// a bound (a plugin giving a new place at every command), `None`.
fn lasting(text: String) -> Option<&'static str> {
    const MOST: usize = 10_000;
    static TEXTS: Mutex<std::collections::BTreeSet<&'static str>> = Mutex::new(std::collections::BTreeSet::new());
    let mut texts = TEXTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(&kept) = texts.get(text.as_str()) {
        return Some(kept);
    }
    if texts.len() >= MOST {
        return None;
    }
    let kept: &'static str = Box::leak(text.into_boxed_str());
    texts.insert(kept);
    Some(kept)
}

/// An opened plugin library.
pub struct PluginLib {
    /// Where it was loaded from.
    pub path: PathBuf,
    table: &'static PluginV1,
    /// The id it declares.
    pub id: String,
    /// The version it declares.
    pub version: String,
}

static OPENED: Mutex<Option<HashMap<PathBuf, &'static PluginLib>>> = Mutex::new(None);

/// Every library file this process opened, refused ones too: the system keeps each one open
/// under its path, so a new build there is not read again until the program restarts.
static KEPT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The library this process keeps open (see [`open`]) that `message` names by its path as
/// messages show it, if any: a rebuild of it takes a new start of the program to be read.
pub fn kept_library_named_in(message: &str) -> Option<String> {
    let kept = KEPT.lock().ok()?;
    kept.iter().map(|p| display_path(p)).find(|shown| message.contains(shown.as_str()))
}

/// Opens a plugin library (once per process) and checks its entry table.
pub fn open(path: &Path) -> Result<&'static PluginLib, String> {
    let mut opened = OPENED.lock().map_err(|_| "plugin table poisoned".to_string())?;
    let opened = opened.get_or_insert_with(HashMap::new);
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if let Some(lib) = opened.get(&key) {
        return Ok(lib);
    }
    let shown = display_path(path);
    crate::plugin_files::check_complete(path).map_err(|why| format!("{shown}: {why}"))?;
    // SAFETY: opening a library runs its initialisers. Plugins are trusted code named by
    // manifests the user installed; this is the documented risk of native plugins.
    #[allow(unsafe_code)]
    let library = unsafe { Library::new(path) }.map_err(|e| format!("{shown}: cannot open: {}", with_causes(&e)))?;
    if let Ok(mut kept) = KEPT.lock()
        && !kept.iter().any(|p| p == path)
    {
        kept.push(path.to_path_buf());
    }
    // Never unloaded: pointers into it live as long as the process.
    let library: &'static Library = Box::leak(Box::new(library));
    let table = entry_table(library, &shown)?;
    let text = |b: Bytes| {
        // SAFETY: the table's strings are static data of the library, which is never unloaded.
        #[allow(unsafe_code)]
        String::from_utf8_lossy(unsafe { b.as_slice() }).into_owned()
    };
    if text(table.built_with).ends_with("; panic=abort") {
        return Err(format!(
            "{shown}: built with `panic = \"abort\"`: a panic in it would end the whole program instead of \
             being reported; build it with Cargo's default, `panic = \"unwind\"`"
        ));
    }
    if table.proto != PROTO {
        return Err(format!(
            "{shown}: built with {} for message schema {}; this meeple speaks schema {PROTO}. Rebuild the plugin against this meeple's SDK",
            text(table.built_with),
            table.proto
        ));
    }
    let lib = Box::leak(Box::new(PluginLib {
        path: path.to_path_buf(),
        table,
        id: text(table.id),
        version: text(table.version),
    }));
    opened.insert(key, lib);
    Ok(lib)
}

/// An error with the causes it carries (libloading keeps the system's reason in its source).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

fn entry_table(library: &'static Library, shown: &str) -> Result<&'static PluginV1, String> {
    type Entry = extern "C" fn() -> *const PluginV1;
    // SAFETY: the symbol, if present, is the SDK's entry function with this signature.
    #[allow(unsafe_code)]
    let entry = unsafe { library.get::<Entry>(abi::ENTRY.as_bytes()) };
    let Ok(entry) = entry else {
        let other = (2..10).find(|v| {
            // SAFETY: only looked up, never called.
            #[allow(unsafe_code)]
            unsafe {
                library.get::<Entry>(format!("meeple_plugin_v{v}").as_bytes()).is_ok()
            }
        });
        return Err(match other {
            Some(v) => format!(
                "{shown}: built for plugin ABI v{v}; this meeple speaks ABI v{}. Rebuild the plugin for this meeple, or update meeple",
                abi::ABI_MAJOR
            ),
            None => format!("{shown}: not a meeple plugin: it lacks the entry symbol `{}`", abi::ENTRY),
        });
    };
    let table = entry();
    if table.is_null() {
        return Err(format!("{shown}: the entry `{}` returned no table", abi::ENTRY));
    }
    // SAFETY: a non-null table returned by the entry point is static data of the library.
    #[allow(unsafe_code)]
    let table: &'static PluginV1 = unsafe { &*table };
    if (table.struct_size as usize) < std::mem::size_of::<PluginV1>() {
        return Err(format!(
            "{shown}: its plugin table is smaller than ABI v{}.{} needs; rebuild the plugin",
            abi::ABI_MAJOR,
            abi::ABI_MINOR
        ));
    }
    Ok(table)
}

/// What the host hands the plugin during one call.
struct CallCtx<'a> {
    view: &'a View<'a>,
    expansion: &'a str,
}

/// The host's side of a call: its callbacks, this ABI minor, and the call's context and facts
/// (a null context when no view backs the call: queries then go unanswered, logs are dropped).
fn host_table(ctx: *mut c_void, facts: abi::Facts) -> HostV1 {
    HostV1 {
        struct_size: size_of::<HostV1>() as u32,
        ctx,
        log: host_log,
        query: host_query,
        facts,
        abi_minor: abi::ABI_MINOR,
    }
}

#[allow(unsafe_code)]
unsafe extern "C" fn host_log(ctx: *mut c_void, level: u32, message: Bytes) {
    // Outside a hook call (making the expansion, sending the ruleset) there is no context, and
    // the line is dropped.
    if ctx.is_null() {
        return;
    }
    // SAFETY: `ctx` is the `CallCtx` of the call in progress; the message is valid for this call.
    let (ctx, text) = unsafe { (&*(ctx as *const CallCtx<'_>), meeple_core::game::log_line(message.as_slice())) };
    match level {
        1 => tracing::error!(target: "meeple::plugin", expansion = ctx.expansion, "{text}"),
        2 => tracing::warn!(target: "meeple::plugin", expansion = ctx.expansion, "{text}"),
        3 => tracing::info!(target: "meeple::plugin", expansion = ctx.expansion, "{text}"),
        4 => tracing::debug!(target: "meeple::plugin", expansion = ctx.expansion, "{text}"),
        _ => tracing::trace!(target: "meeple::plugin", expansion = ctx.expansion, "{text}"),
    }
}

#[allow(unsafe_code)]
unsafe extern "C" fn host_query(ctx: *mut c_void, query: Bytes, sink: *mut c_void, write: abi::Sink) -> u32 {
    if ctx.is_null() {
        let message = b"no query is answered outside a hook call";
        // SAFETY: the plugin passed `sink` and `write` together for this query.
        unsafe { write(sink, Bytes::from_slice(message)) };
        return abi::ERROR;
    }
    // SAFETY: `ctx` is the `CallCtx` of the call in progress; `query` is valid for this call.
    let (ctx, input) = unsafe { (&*(ctx as *const CallCtx<'_>), query.as_slice()) };
    ANSWER.with(|out| {
        let mut out = out.borrow_mut();
        out.0.clear();
        let status = match decode_query(input) {
            Ok((q, wire)) if query_is_valid(ctx.view, &q) => {
                let answer = ctx.view.answer(&q);
                if wire {
                    encode_wire_answer_into(&answer, &mut out);
                } else {
                    out.0 = encode_answer(&answer);
                }
                abi::OK
            }
            Ok((q, _)) => {
                out.0 = format!("invalid query {q:?}").into_bytes();
                abi::ERROR
            }
            Err(e) => {
                out.0 = e.into_bytes();
                abi::ERROR
            }
        };
        // SAFETY: the plugin passed `sink` and `write` together for this query.
        unsafe { write(sink, Bytes::from_slice(&out.0)) };
        status
    })
}

/// A plugin's query must not make the host index out of range.
fn query_is_valid(view: &View<'_>, q: &Query) -> bool {
    let rules = view.rules();
    let player = |p: u8| p < view.players();
    match q {
        Query::Segment(s)
        | Query::Feature(s)
        | Query::FeatureSegments(s)
        | Query::FeatureParts(s)
        | Query::FieldCities(s)
        | Query::FiguresOn(s) => view.has_segment(*s),
        Query::Supply(p, k) => player(*p) && (*k as usize) < rules.figures().len(),
        Query::FiguresOfKind(k) => (*k as usize) < rules.figures().len(),
        Query::Points(p, c) => player(*p) && (*c as usize) < rules.categories().len(),
        Query::ScoreBeforeFinal(p) | Query::PlayerName(p) => player(*p),
        Query::Tokens(p, t) => player(*p) && (*t as usize) < rules.tokens().len(),
        Query::TokenSupply(t) => (*t as usize) < rules.tokens().len(),
        _ => true,
    }
}

/// An expansion implemented by a native plugin.
pub struct NativeExpansion {
    lib: &'static PluginLib,
    id: String,
    instance: u32,
    hooks: HookSet,
    categories: Vec<String>,
    /// Set once the plugin was sent the ruleset (when the ruleset is built, see
    /// [`Expansion::misfits`]): what it said it wants, or why it could not take the ruleset.
    interest: OnceLock<Result<Interest, String>>,
    /// The figure kinds its manifest declares (`id:…`), found at the first call that needs them.
    own_kinds: OnceLock<Vec<FigureKindId>>,
    /// The folder of its manifest, where its crate's files are: a panic's place is found there.
    dir: PathBuf,
    /// The places its commands were given at, as it gives them (a file's name as bytes, a
    /// line), each with the place the host names ([`NativeExpansion::own_place`]): found once
    /// per place, not per command, since finding a file looks at the file system.
    places: Mutex<Vec<KnownPlace>>,
}

impl NativeExpansion {
    /// Opens the library of a selected expansion and makes its instance for this config.
    pub fn load(sel: &Selected, library: &str) -> Result<NativeExpansion, String> {
        let lib = find(library, sel.manifest.dir())?;
        // The manifest's version goes into replays and `check`; the library must be that build.
        // Both told at once: a plugin renamed from a template usually differs in both.
        let id =
            (lib.id != sel.manifest.id).then(|| format!("expansion `{}`, the manifest `{}`", lib.id, sel.manifest.id));
        let version = (lib.version != sel.manifest.version)
            .then(|| format!("version {}, the manifest {}", lib.version, sel.manifest.version));
        if id.is_some() || version.is_some() {
            let (what, declared) = match (&id, &version) {
                (Some(id), Some(version)) => (format!("declares {id}, and {version}"), "id and version"),
                (Some(id), None) => (format!("declares {id}"), "id"),
                _ => (format!("is {}", version.as_deref().unwrap_or_default()), "version"),
            };
            return Err(format!(
                "{}: the library {what}: set the {declared} in its `declare_plugin!` to the manifest's \
                 (`[expansion]` `id` and `version`) and rebuild it",
                display_path(&lib.path),
            ));
        }
        let settings = Settings {
            proto: PROTO,
            id: sel.manifest.id.clone(),
            edition: sel.edition.clone(),
            options: sel.options.clone(),
        };
        let bytes = encode(&settings);
        let mut reply = Vec::new();
        let host = host_table(std::ptr::null_mut(), abi::Facts::default());
        // SAFETY: the table comes from a checked plugin; every pointer passed lives for the call.
        #[allow(unsafe_code)]
        let status = unsafe {
            (lib.table.create)(&host, Bytes::from_slice(&bytes), &mut reply as *mut Vec<u8> as *mut c_void, vec_sink)
        };
        let created: Created = match status {
            abi::OK => {
                decode(&reply).map_err(|e| format!("{}: could not start: its reply cannot be read: {e}", lib.id))?
            }
            abi::PANICKED => {
                return Err(format!("{}: panicked while starting: {}", lib.id, String::from_utf8_lossy(&reply)));
            }
            _ => return Err(format!("{}: could not start: {}", lib.id, String::from_utf8_lossy(&reply))),
        };
        // Made before its hooks are read: dropped on an error, it releases the plugin's instance.
        let mut made = NativeExpansion {
            lib,
            id: sel.manifest.id.clone(),
            instance: created.instance,
            hooks: HookSet::NONE,
            categories: created.categories,
            interest: OnceLock::new(),
            own_kinds: OnceLock::new(),
            dir: sel.manifest.dir().to_path_buf(),
            places: Mutex::new(Vec::new()),
        };
        for name in &created.hooks {
            let hook = HookKind::parse(name).ok_or_else(|| format!("{}: unknown hook `{name}`", lib.id))?;
            made.hooks = made.hooks.with(hook);
        }
        Ok(made)
    }

    /// The library it runs in.
    pub fn library(&self) -> &PluginLib {
        self.lib
    }

    /// The plugin's number for this instance; a released instance's number is given again.
    pub fn instance(&self) -> u32 {
        self.instance
    }

    /// Calls the plugin with a tagged call (sending the ruleset first if it has not got it yet)
    /// and hands the reply's bytes to `read`. An empty reply means the hook produced nothing,
    /// which is most calls: they decode nothing.
    fn call<R>(
        &self,
        view: &View<'_>,
        hook: HookKind,
        bytes: &[u8],
        read: impl FnOnce(&[u8]) -> Result<R, HookError>,
    ) -> Result<R, HookError> {
        self.send_rules(view.rules(), view.expansion(), hook)?;
        REPLY.with(|buffer| {
            // The thread's buffer, unless a call is already using it (none does today: a plugin
            // cannot start a hook call from inside one).
            let mut own = Vec::new();
            let mut shared = buffer.try_borrow_mut();
            let reply = shared.as_deref_mut().unwrap_or(&mut own);
            reply.clear();
            self.exchange(view, hook, bytes, reply)?;
            read(reply)
        })
    }

    /// The reply of a call whose hook answers with commands.
    fn commands(&self, hook: HookKind, reply: &[u8], out: &mut Commands<'_>) -> HookResult {
        // Checked here as well as in `reply`: most calls come this way, and an empty `Reply`
        // made and dropped for each costs 40 instructions.
        if reply.is_empty() {
            return Ok(());
        }
        if reply.first() != Some(&reply::COMMANDS_AT) {
            self.reply(hook, reply)?.commands.into_iter().for_each(|c| out.push(c));
            return Ok(());
        }
        let (commands, places) = decode_commands_at(reply).map_err(|m| HookError::new(&self.id, hook, m))?;
        for (i, c) in commands.into_iter().enumerate() {
            out.push(c);
            if let Some(place) = places.get(i).and_then(|&(file, line)| self.place(file, line)) {
                out.given_at_lasting(place);
            }
        }
        Ok(())
    }

    /// A place the plugin gives, as `id/src/lib.rs:24` when the file is in the manifest's
    /// folder, else as the plugin gives it (`None` for a name that is not UTF-8).
    fn place(&self, file: &[u8], line: u32) -> Option<&'static str> {
        let mut places = self.places.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&(_, _, place)) = places.iter().find(|(f, l, _)| *l == line && **f == *file) {
            return Some(place);
        }
        let file_text = std::str::from_utf8(file).ok()?;
        let named = self.own_place(file_text, &line.to_string()).unwrap_or_else(|| format!("{file_text}:{line}"));
        let place = lasting(named)?;
        places.push((file.into(), line, place));
        Some(place)
    }

    /// The decoded reply of a call, or an empty one without decoding anything.
    fn reply(&self, hook: HookKind, reply: &[u8]) -> Result<Reply, HookError> {
        if reply.is_empty() {
            return Ok(Reply::default());
        }
        decode_reply(reply).map_err(|m| HookError::new(&self.id, hook, m))?.map_err(|mut e| {
            // A place the plugin gave (`HookError::here`) named as a panic's is.
            if let Some((file, line)) = e.location.as_deref().and_then(|at| at.rsplit_once(':')) {
                e.location = self.own_place(file, line).or(e.location.take());
            }
            e
        })
    }

    /// Sends the ruleset unless the plugin has it, and keeps what the plugin wants of it. A
    /// plugin that could not take it is not asked again: each hook call reports why.
    fn send_rules(&self, rules: &Rules, expansion: u16, hook: HookKind) -> Result<&Interest, HookError> {
        let taken = self.interest.get_or_init(|| self.take_rules(rules, expansion));
        taken.as_ref().map_err(|m| HookError::new(&self.id, hook, m.clone()))
    }

    /// Hands the plugin the ruleset; its reply says what it wants of it.
    fn take_rules(&self, rules: &Rules, expansion: u16) -> Result<Interest, String> {
        let (status, reply) = self.call_outside_hooks(&Call::Rules { rules: RulesData::of(rules), expansion });
        let outcome = match status {
            abi::OK => {
                return decode_interest(&reply).map_err(|m| format!("its reply to the ruleset cannot be read: {m}"));
            }
            abi::PANICKED => "panicked",
            _ => "failed",
        };
        Err(format!("the plugin {outcome} while taking the ruleset: {}", String::from_utf8_lossy(&reply)))
    }

    /// Makes a call that no view backs (a null context: no query is answered, and logs are
    /// dropped); returns the status and the reply.
    fn call_outside_hooks(&self, call: &Call) -> (u32, Vec<u8>) {
        let mut reply = Vec::new();
        let status =
            self.raw_call(&host_table(std::ptr::null_mut(), abi::Facts::default()), &message(call), &mut reply);
        (status, reply)
    }

    /// Calls the plugin's `call` entry for this instance: the only place the host crosses into a
    /// plugin's hooks. Returns the status; the reply lands in `reply`.
    #[inline]
    fn raw_call(&self, host: &HostV1, bytes: &[u8], reply: &mut Vec<u8>) -> u32 {
        // SAFETY: a checked plugin table; `host` (and the context it points to), the bytes and
        // the reply buffer all live until the call returns, and the plugin writes only through
        // `vec_sink`.
        #[allow(unsafe_code)]
        unsafe {
            (self.lib.table.call)(
                host,
                self.instance,
                Bytes::from_slice(bytes),
                reply as *mut Vec<u8> as *mut c_void,
                vec_sink,
            )
        }
    }

    /// Passes a call to the plugin; its reply lands in `reply`. A failed or panicking call is
    /// the hook's error.
    fn exchange(&self, view: &View<'_>, hook: HookKind, bytes: &[u8], reply: &mut Vec<u8>) -> HookResult {
        let ctx = CallCtx { view, expansion: &self.id };
        let host = host_table(&ctx as *const CallCtx<'_> as *mut c_void, abi::Facts::of(view));
        let status = self.raw_call(&host, bytes, reply);
        let fail = |message: String| HookError::new(&self.id, hook, message);
        match status {
            abi::OK => Ok(()),
            abi::PANICKED => Err(self.panicked(hook, reply)),
            _ => Err(fail(format!("the plugin failed: {}", String::from_utf8_lossy(reply)))),
        }
    }

    /// The error of a hook that panicked. The SDK tells where (`… (at src/lib.rs:24)`), as a
    /// path from the plugin's Cargo workspace; when that is a file of the manifest's folder, it
    /// becomes the error's place, `id/src/lib.rs:24`, as a script's line is, so that `play`,
    /// `test` and `check` name the file from where they run.
    #[cold]
    fn panicked(&self, hook: HookKind, reply: &[u8]) -> HookError {
        let text = String::from_utf8_lossy(reply);
        let mut e = HookError::new(&self.id, hook, format!("the plugin panicked: {text}"));
        if let Some((message, file, line)) = text
            .strip_suffix(')')
            .and_then(|t| t.rsplit_once(" (at "))
            .and_then(|(message, at)| at.rsplit_once(':').map(|(file, line)| (message, file, line)))
            && let Some(place) = self.own_place(file, line)
        {
            e.message = format!("the plugin panicked: {message}");
            e.location = Some(place);
        }
        e
    }

    /// A source line the plugin names (a path from its Cargo workspace, its crate or absolute),
    /// as `id/src/lib.rs:24` when the file is in the manifest's folder.
    fn own_place(&self, file: &str, line: &str) -> Option<String> {
        line.parse::<u32>().ok()?;
        let own = crate::plugin_files::in_folder(Path::new(file), &self.dir)?;
        // With `/` on every system, as a script's place is written.
        let own: Vec<String> = own.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        Some(format!("{}/{}:{line}", self.id, own.join("/")))
    }

    fn call_commands(&self, view: &View<'_>, hook: HookKind, bytes: &[u8], out: &mut Commands<'_>) -> HookResult {
        self.call(view, hook, bytes, |reply| self.commands(hook, reply, out))
    }
}

impl Drop for NativeExpansion {
    /// Tells the plugin the instance is gone, so that it drops what it holds for it (a server
    /// makes one per game). Plugins built before ABI minor 4 do not know the call, and keep it.
    fn drop(&mut self) {
        if self.lib.table.abi_minor < 4 {
            return;
        }
        // No call of this instance can follow: it is being dropped.
        let (status, reply) = self.call_outside_hooks(&Call::Release);
        if status != abi::OK {
            let why = String::from_utf8_lossy(&reply);
            tracing::warn!(target: "meeple::plugin", expansion = %self.id, "releasing its instance failed: {why}");
        }
    }
}

thread_local! {
    /// Reused buffers: the call being written and the reply being read.
    static CALL: std::cell::RefCell<Writer> = const { std::cell::RefCell::new(Writer(Vec::new())) };
    static REPLY: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Reused for the answers to a plugin's queries.
    static ANSWER: std::cell::RefCell<Writer> = const { std::cell::RefCell::new(Writer(Vec::new())) };
}

impl NativeExpansion {
    /// The figure kinds the expansion declares.
    fn own_kinds(&self, view: &View<'_>) -> &[FigureKindId] {
        self.own_kinds.get_or_init(|| {
            let prefix = format!("{}:", self.id);
            let figures = view.rules().figures();
            (0..figures.len() as FigureKindId).filter(|&k| figures[k as usize].id.starts_with(&prefix)).collect()
        })
    }

    /// Writes the figures of the kinds the expansion declares, sent with the calls in which it
    /// decides about them. Straight from the game state: this runs at nearly every call.
    fn write_own_figures(&self, view: &View<'_>, w: &mut Writer) {
        let kinds = self.own_kinds(view);
        match view.state() {
            Some(state) => w.own_figures_from(kinds, kinds.iter().flat_map(|&k| state.figures_of_kind(k))),
            None => {
                let figures: Vec<_> = kinds.iter().flat_map(|&k| view.figures_of_kind(k)).collect();
                w.own_figures_of(kinds, &figures)
            }
        }
    }
}

/// Encodes a hot call with the thread's reused buffer: the tag, an optional hook number, and
/// the words `fill` writes (it returns false when there is nothing to send).
fn with_call<R>(
    t: u8,
    hook: Option<u8>,
    fill: impl FnOnce(&mut Writer) -> bool,
    send: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    CALL.with(|c| {
        let mut w = c.borrow_mut();
        w.0.clear();
        w.0.push(t);
        w.0.extend(hook);
        if !fill(&mut w) {
            return None;
        }
        Some(send(&w.0))
    })
}

/// A call as a MessagePack message.
fn message(call: &Call) -> Vec<u8> {
    tagged_message(tag::MESSAGE, call)
}

impl Expansion for NativeExpansion {
    fn id(&self) -> &str {
        &self.id
    }

    fn interest(&self, rules: &Rules) -> Interest {
        // A ruleset the plugin cannot take was refused when it was built (`misfits`).
        let index = rules.expansions().iter().position(|x| x.id() == self.id);
        index.and_then(|i| self.send_rules(rules, i as u16, HookKind::Setup).ok().cloned()).unwrap_or(Interest::ALL)
    }

    fn hooks(&self) -> HookSet {
        self.hooks
    }

    fn misfits(&self, rules: &Rules) -> Vec<HookError> {
        // The ruleset is handed over as soon as it is built: a plugin that cannot take it keeps
        // the game from starting, rather than failing whichever hook is called first.
        let Some(index) = rules.expansions().iter().position(|x| x.id() == self.id) else { return Vec::new() };
        match self.send_rules(rules, index as u16, HookKind::Setup) {
            Ok(_) => Vec::new(),
            Err(mut e) => {
                e.hook = "while loading".into();
                vec![e]
            }
        }
    }

    fn categories(&self) -> Vec<String> {
        self.categories.clone()
    }

    fn setup(&self, view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        self.call_commands(view, HookKind::Setup, &message(&Call::Setup), out)
    }

    fn can_place_tile(
        &self,
        view: &View<'_>,
        tile: TileId,
        candidates: &[Placement],
        allowed: &mut [bool],
    ) -> HookResult {
        let fill = |w: &mut Writer| {
            w.candidates(tile, candidates);
            true
        };
        let hook = HookKind::CanPlaceTile;
        let forbid = |reply: &[u8]| {
            for i in self.reply(hook, reply)?.forbidden {
                if let Some(a) = allowed.get_mut(i as usize) {
                    *a = false;
                }
            }
            Ok(())
        };
        with_call(tag::CANDIDATES, None, fill, |b| self.call(view, hook, b, forbid)).expect("always sent")
    }

    fn figure_actions(&self, view: &View<'_>, offers: &mut Vec<Offer>) -> HookResult {
        let fill = |w: &mut Writer| {
            self.write_own_figures(view, w);
            true
        };
        let hook = HookKind::FigureActions;
        let add = |reply: &[u8]| {
            offers.extend(self.reply(hook, reply)?.offers);
            Ok(())
        };
        with_call(tag::FIGURE_ACTIONS, None, fill, |b| self.call(view, hook, b, add)).expect("always sent")
    }

    fn on_action(&self, view: &View<'_>, offer: &Offer, out: &mut Commands<'_>) -> HookResult {
        let fill = |w: &mut Writer| {
            w.offers(std::slice::from_ref(offer));
            self.write_own_figures(view, w);
            true
        };
        let hook = HookKind::OnAction;
        with_call(tag::ACTION, None, fill, |b| self.call_commands(view, hook, b, out)).expect("always sent")
    }

    fn on_decision(&self, view: &View<'_>, decision: &Decision, option: u16, out: &mut Commands<'_>) -> HookResult {
        let call = Call::OnDecision { decision: decision.clone(), option };
        self.call_commands(view, HookKind::OnDecision, &message(&call), out)
    }

    fn on_event(&self, view: &View<'_>, event: &Event, out: &mut Commands<'_>) -> HookResult {
        let Some(hook) = HookKind::for_event(event) else { return Ok(()) };
        let figure = |id| view.figure(id).map(|f| (f.owner, f.kind));
        let fill = |w: &mut Writer| {
            let known = w.event(event, figure);
            // An expansion without figure kinds has none to bring; its event then ends here,
            // as events from hosts before ABI minor 2 did, and the plugin reads it that way.
            if known && !self.own_kinds(view).is_empty() {
                self.write_own_figures(view, w);
            }
            known
        };
        with_call(tag::EVENT, Some(hook as u8), fill, |b| self.call_commands(view, hook, b, out)).unwrap_or(Ok(()))
    }

    fn modify_score(&self, view: &View<'_>, scoring: &Scoring, out: &mut Commands<'_>) -> HookResult {
        let fill = |w: &mut Writer| {
            w.scoring(scoring);
            true
        };
        let hook = HookKind::ModifyScore;
        with_call(tag::SCORING, None, fill, |b| self.call_commands(view, hook, b, out)).expect("always sent")
    }

    fn final_scoring(&self, view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        self.call_commands(view, HookKind::FinalScoring, &message(&Call::FinalScoring), out)
    }
}
