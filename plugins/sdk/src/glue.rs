//! The plugin side of the ABI: instances, panics caught at every entry point, and a view whose
//! questions go to the host. `declare_plugin!` wires a plugin's factory to these functions.

use crate::abi::{Bytes, ERROR, Facts, HostV1, OK, PANICKED, Sink, vec_sink};
use crate::proto::{
    self, Call, Created, PROTO, Reply, decode, decode_answer, encode, encode_commands_at_into, encode_reply_into,
    reply, tag, tagged_message,
};
use crate::wire::{OwnFigures, Reader, Writer};
use meeple_core::Value;
use meeple_core::action::Offer;
use meeple_core::board::Placement;
use meeple_core::game::MAX_NESTING;
use meeple_core::view::{Answer, Query, ViewSource};
use meeple_core::{Command, Commands, Expansion, HookError, HookKind, HookResult, Interest, Rules, View};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{OnceLock, RwLock};

pub use crate::proto::Settings;

/// One expansion made by the factory, and the ruleset it plays in once the host sent it.
struct Instance {
    expansion: Box<dyn Expansion>,
    rules: OnceLock<(Rules, u16)>,
}

/// An instance the plugin made, owned by the table below (made by `Box::into_raw`).
struct Kept(std::ptr::NonNull<Instance>);

// SAFETY: an `Instance` is `Send + Sync` (an `Expansion` is); the pointer is only its owner.
unsafe impl Send for Kept {}
// SAFETY: as above.
unsafe impl Sync for Kept {}

/// The instances the host holds, by number; a released one leaves its slot free for the next.
/// A call borrows its instance without counting references: the host releases an instance only
/// once no call of it can come (its ruleset is gone).
static INSTANCES: RwLock<Vec<Option<Kept>>> = RwLock::new(Vec::new());

/// Keeps an instance and returns its number.
fn keep(instance: Instance) -> Result<u32, String> {
    let mut all = INSTANCES.write().map_err(|_| "instance table poisoned".to_string())?;
    let kept = Some(Kept(std::ptr::NonNull::from(Box::leak(Box::new(instance)))));
    Ok(match all.iter().position(Option::is_none) {
        Some(free) => {
            all[free] = kept;
            free
        }
        None => {
            all.push(kept);
            all.len() - 1
        }
    } as u32)
}

/// The instance with a number, lent for one call of it.
///
/// # Safety
/// The reference must not outlive the call: the host releases an instance only when no call
/// of it can come, and the instance is then freed.
#[inline(always)]
unsafe fn instance<'call>(number: u32) -> Result<&'call Instance, String> {
    let all = INSTANCES.read().map_err(|_| "instance table poisoned".to_string())?;
    match all.get(number as usize) {
        // SAFETY: a kept instance is alive until `release` takes it out of the table.
        Some(Some(kept)) => Ok(unsafe { kept.0.as_ref() }),
        _ => Err(format!("no plugin instance {number}")),
    }
}

/// Drops an instance the host is done with.
fn release(number: u32) -> Result<(), String> {
    let mut all = INSTANCES.write().map_err(|_| "instance table poisoned".to_string())?;
    let slot = all.get_mut(number as usize).ok_or_else(|| format!("no plugin instance {number}"))?;
    let released = slot.take().ok_or_else(|| format!("plugin instance {number} was released already"))?;
    drop(all);
    // SAFETY: the pointer came from `Box::leak` in `keep` and is out of the table now; the host
    // calls no instance it released, so no reference to it is left.
    drop(unsafe { Box::from_raw(released.0.as_ptr()) });
    Ok(())
}

thread_local! {
    /// What the calls on this thread reuse. One thread-local for all of it: in a library, each
    /// access to one is a call into the dynamic linker.
    static STATE: CallState = const {
        CallState {
            host: Cell::new(std::ptr::null()),
            panic_at: Cell::new(None),
            guarding: Cell::new(false),
            scratch: RefCell::new(Scratch::new()),
        }
    };
}

/// A thread's state between and during calls.
struct CallState {
    /// The host of the call in progress (for logging), or null.
    host: Cell<*const HostV1>,
    /// Where the last panic on this thread happened, noted by the panic hook for its report.
    panic_at: Cell<Option<String>>,
    /// True while a call's panics are caught and reported to the host: the panic hook then
    /// prints nothing, since the host's error says the same (a bot that tries each action
    /// would otherwise print one panic per try).
    guarding: Cell<bool>,
    /// Borrowed in place by one call at a time: a call never starts another on its thread (the
    /// host answers queries itself), and one that tried would get an error, not a second borrow.
    scratch: RefCell<Scratch>,
}

/// Reused between calls: the reply being written, the expansion's own figures, the offers of
/// `figure_actions`, and the candidates of `can_place_tile` with their verdicts.
struct Scratch {
    reply: Writer,
    own: OwnFigures,
    offers: Vec<Offer>,
    candidates: Vec<Placement>,
    allowed: Vec<bool>,
    /// Where each command of a call was given, sent to hosts that read it.
    places: Vec<&'static std::panic::Location<'static>>,
}

impl Scratch {
    const fn new() -> Scratch {
        Scratch {
            reply: Writer(Vec::new()),
            own: OwnFigures { kinds: Vec::new(), figures: Vec::new() },
            offers: Vec::new(),
            candidates: Vec::new(),
            allowed: Vec::new(),
            places: Vec::new(),
        }
    }
}

/// Runs an entry point with the thread's scratch buffers; its reply (written into the scratch
/// reply) goes to the sink, and an error or a panic becomes a status.
fn guarded(
    host: *const HostV1,
    sink: *mut c_void,
    write: Sink,
    f: impl FnOnce(&mut Scratch) -> Result<(), String>,
) -> u32 {
    // `try_with`: a host may drop a ruleset (and so call the plugin) while its thread ends,
    // after this thread's state is gone; `with` would panic here, where a panic aborts.
    let done = STATE.try_with(|state| {
        let Ok(mut scratch) = state.scratch.try_borrow_mut() else {
            return send(sink, write, ERROR, b"a plugin call started inside another on the same thread");
        };
        scratch.reply.0.clear();
        // Logging goes to the host only during a hook call: outside one (making the expansion,
        // taking the ruleset) the host has no context to log with.
        // SAFETY: a non-null `host` is the table the host passed to this call.
        let logs = !host.is_null() && !unsafe { (*host).ctx }.is_null();
        state.host.set(if logs { host } else { std::ptr::null() });
        note_panic_locations();
        // A panic the plugin caught itself earlier left its place here.
        state.panic_at.set(None);
        state.guarding.set(true);
        let outcome = catch_unwind(AssertUnwindSafe(|| f(&mut scratch)));
        state.host.set(std::ptr::null());
        let status = match outcome {
            Ok(Ok(())) => send(sink, write, OK, &scratch.reply.0),
            Ok(Err(message)) => send(sink, write, ERROR, message.as_bytes()),
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".into());
                let message = match state.panic_at.take() {
                    Some(at) => format!("{message} (at {at})"),
                    None => message,
                };
                // Dropping the payload runs the plugin's code, which may panic again; out here
                // that would abort the host.
                if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
                    std::mem::forget(again);
                }
                send(sink, write, PANICKED, message.as_bytes())
            }
        };
        state.guarding.set(false);
        status
    });
    done.unwrap_or_else(|_| send(sink, write, ERROR, b"the plugin's thread is ending"))
}

/// Installs, once, a panic hook that notes where a panic happens: the payload caught at the
/// boundary holds only the message, and the host's report should say where, as a script's does.
/// The plugin's previous hook (by default, the line on stderr) runs for panics no call catches
/// (in a thread of the plugin's own, say).
fn note_panic_locations() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
            let caught = STATE.try_with(|state| {
                state.panic_at.set(at);
                state.guarding.get()
            });
            if !caught.unwrap_or(false) {
                previous(info);
            }
        }));
    });
}

/// Hands a reply or message to the host's sink and returns the status.
fn send(sink: *mut c_void, write: Sink, status: u32, bytes: &[u8]) -> u32 {
    // An empty reply needs no copy: the host's buffer is empty already.
    if !bytes.is_empty() {
        // SAFETY: the caller passed `sink` and `write` together for this call.
        unsafe { write(sink, Bytes::from_slice(bytes)) };
    }
    status
}

/// `create`: makes an expansion for one ruleset.
///
/// # Safety
/// The arguments must be those the host passed to the plugin's `create`.
pub unsafe fn create<F>(_host: *const HostV1, settings: Bytes, sink: *mut c_void, write: Sink, factory: F) -> u32
where
    F: Fn(&Settings) -> Result<Box<dyn Expansion>, String>,
{
    // SAFETY: the host keeps the settings bytes alive for the call.
    let input = unsafe { settings.as_slice() };
    // No host for logging while the expansion is made: the table has no context yet.
    guarded(std::ptr::null(), sink, write, |scratch| {
        let settings: Settings = decode(input)?;
        if settings.proto != PROTO {
            return Err(format!("the host speaks message schema {}, this plugin {PROTO}", settings.proto));
        }
        let expansion = factory(&settings)?;
        // The host knows the expansion by its manifest's id (errors, storage, logs): an `id()`
        // that says otherwise is a slip that would show up far from here.
        if expansion.id() != settings.id {
            return Err(format!("`Expansion::id()` says `{}`, the manifest `{}`", expansion.id(), settings.id));
        }
        let hooks =
            HookKind::ALL.iter().filter(|h| expansion.hooks().contains(**h)).map(|h| h.name().to_string()).collect();
        let categories = expansion.categories();
        let instance = keep(Instance { expansion, rules: OnceLock::new() })?;
        scratch.reply.0 = encode(&Created { instance, hooks, categories });
        Ok(())
    })
}

/// `call`: runs one hook of an instance.
///
/// # Safety
/// The arguments must be those the host passed to the plugin's `call`.
pub unsafe fn call(host: *const HostV1, instance: u32, call: Bytes, sink: *mut c_void, write: Sink) -> u32 {
    // SAFETY: the host keeps the call bytes alive for the call.
    let input = unsafe { call.as_slice() };
    guarded(host, sink, write, |scratch| run(host, instance, input, scratch))
}

/// Runs one call of an instance, writing its reply into the scratch reply. The hot calls are
/// decoded straight into the scratch buffers and answered from them; MessagePack calls (the
/// ruleset, setup, decisions, final scoring) go through [`Call`].
// Inlined into `call`, as the compiler did on its own until `run` grew: a function call and
// moves per hook call otherwise (35 000 instructions a no-op game).
#[inline(always)]
fn run(host: *const HostV1, number: u32, input: &[u8], s: &mut Scratch) -> Result<(), String> {
    let (&t, rest) = input.split_first().ok_or("an empty call")?;
    if t == tag::MESSAGE {
        return run_message(host, number, decode(rest)?, s);
    }
    // SAFETY: used only during this call of the instance.
    let inst = unsafe { instance(number)? };
    let (rules, index) = inst.rules.get().ok_or("the host called a hook before sending the ruleset")?;
    let bad = || format!("a malformed call (tag {t})");
    let e = inst.expansion.as_ref();
    let mut r = Reader::new(rest);
    let mut out = Commands::noting_places(None, &mut s.places);
    let (hook, done) = match t {
        tag::EVENT => {
            let (&hook, words) = rest.split_first().ok_or_else(bad)?;
            let hook = *HookKind::ALL.get(hook as usize).ok_or_else(bad)?;
            r = Reader::new(words);
            let event = r.event(hook).ok_or_else(bad)?;
            // An event ends here from hosts older than ABI minor 2, and for an expansion that
            // declares no figure kinds.
            let brought = !r.at_end();
            if brought {
                read_own(&mut r, &mut s.own).ok_or_else(bad)?;
            }
            let source = HostSource::new(host, brought.then_some(&s.own));
            (hook, e.on_event(&View::remote(rules, &source, *index), &event, &mut out))
        }
        tag::SCORING => {
            let scoring = r.scoring().filter(|_| r.at_end()).ok_or_else(bad)?;
            let source = HostSource::new(host, None);
            (HookKind::ModifyScore, e.modify_score(&View::remote(rules, &source, *index), &scoring, &mut out))
        }
        tag::ACTION => {
            let mut offers = r.offers().ok_or_else(bad)?;
            let offer = offers.pop().filter(|_| offers.is_empty()).ok_or_else(bad)?;
            read_own(&mut r, &mut s.own).ok_or_else(bad)?;
            let source = HostSource::new(host, Some(&s.own));
            (HookKind::OnAction, e.on_action(&View::remote(rules, &source, *index), &offer, &mut out))
        }
        tag::FIGURE_ACTIONS => {
            read_own(&mut r, &mut s.own).ok_or_else(bad)?;
            let source = HostSource::new(host, Some(&s.own));
            s.offers.clear();
            let done = e.figure_actions(&View::remote(rules, &source, *index), &mut s.offers);
            let reply = done.map(|()| Reply { offers: std::mem::take(&mut s.offers), ..Reply::default() });
            encode_reply_into(&reply, &mut s.reply);
            if let Ok(reply) = reply {
                s.offers = reply.offers;
            }
            return Ok(());
        }
        tag::CANDIDATES => {
            let tile = r.candidates_into(&mut s.candidates).filter(|_| r.at_end()).ok_or_else(bad)?;
            let source = HostSource::new(host, None);
            s.allowed.clear();
            s.allowed.resize(s.candidates.len(), true);
            let done = e.can_place_tile(&View::remote(rules, &source, *index), tile, &s.candidates, &mut s.allowed);
            let reply = done.map(|()| Reply { forbidden: forbidden(&s.allowed), ..Reply::default() });
            encode_reply_into(&reply, &mut s.reply);
            return Ok(());
        }
        _ => return Err(bad()),
    };
    encode_commands_into(host, e, hook, done, out, &mut s.reply);
    Ok(())
}

/// Encodes the reply of a hook that answers with commands: with the place each was given at,
/// to a host that reads it.
fn encode_commands_into(
    host: *const HostV1,
    e: &dyn Expansion,
    hook: HookKind,
    done: HookResult,
    out: Commands<'_>,
    w: &mut Writer,
) {
    let done = done.and_then(|()| if out.is_empty() { Ok(()) } else { storable(e, hook, out.commands()) });
    match done {
        // Most calls command nothing: an empty reply.
        Ok(()) if out.is_empty() => {}
        Ok(()) if reads_places(host) => encode_commands_at_into(out.commands(), places(&out), w),
        done => encode_reply_into(&done.map(|()| Reply { commands: out.into_parts().0, ..Reply::default() }), w),
    }
}

/// Whether the host reads where each command was given (ABI minor 7 or later): it names the
/// line when it refuses the command, as it names a script's.
fn reads_places(host: *const HostV1) -> bool {
    // SAFETY: the table the host passed to this call.
    unsafe { HostV1::minor(host) >= 7 }
}

/// The file and line of each command's `push`.
fn places<'a>(out: &'a Commands<'_>) -> impl ExactSizeIterator<Item = (&'a str, u32)> {
    out.pushed_at().iter().map(|at| (at.file(), at.line()))
}

/// Refuses a stored value nested deeper than the host takes, which would otherwise arrive as
/// a reply the host cannot read.
fn storable(e: &dyn Expansion, hook: HookKind, commands: &[Command]) -> HookResult {
    let deep = |c: &Command| matches!(c, Command::SetStorage { value, .. } if value.nests_deeper_than(MAX_NESTING));
    match commands.iter().find(|c| deep(c)) {
        Some(Command::SetStorage { key, .. }) => {
            Err(HookError::new(e.id(), hook, format!("set_storage(\"{key}\"): {}", meeple_core::game::too_deep())))
        }
        _ => Ok(()),
    }
}

/// Reads the expansion's own figures, which must end the call.
fn read_own(r: &mut Reader<'_>, own: &mut OwnFigures) -> Option<()> {
    r.own_figures_into(own).filter(|_| r.at_end())
}

/// The indices of the candidates a `can_place_tile` hook forbade.
fn forbidden(allowed: &[bool]) -> Vec<u32> {
    if meeple_core::expansion::forbids_nothing(allowed) {
        return Vec::new();
    }
    (0..allowed.len() as u32).filter(|&i| !allowed[i as usize]).collect()
}

/// Runs a MessagePack call: the ruleset (answered with what the expansion wants of it), or a
/// hook (from a host that sends every call as a message).
// Kept out of `run`: the hot calls are compiled better without it.
#[inline(never)]
fn run_message(host: *const HostV1, number: u32, call: Call, s: &mut Scratch) -> Result<(), String> {
    if let Call::Release = call {
        return release(number);
    }
    // SAFETY: used only during this call of the instance.
    let inst = unsafe { instance(number)? };
    if let Call::Rules { rules, expansion } = call {
        let _ = inst.rules.set((rules.build()?, expansion));
        // SAFETY: the table the host passed to this call.
        let minor = unsafe { HostV1::minor(host) };
        if minor < 2 {
            return Ok(());
        }
        let rules = &inst.rules.get().expect("just set").0;
        let mut interest = inst.expansion.interest(rules);
        if minor < 3 {
            // Unknown to those hosts; without it they call more often, which is always right.
            interest.when_on_board.clear();
        }
        if interest != Interest::ALL {
            s.reply.0 = tagged_message(reply::INTEREST, &interest);
        }
        return Ok(());
    }
    let (rules, index) = inst.rules.get().ok_or("the host called a hook before sending the ruleset")?;
    let source = HostSource::new(host, None);
    dispatch(host, inst.expansion.as_ref(), &View::remote(rules, &source, *index), call, s);
    Ok(())
}

/// Runs a hook given as a [`Call`], writing its reply. The hot hooks come this way only from
/// a host that sends every call as a message; they are kept for it.
fn dispatch(host: *const HostV1, e: &dyn Expansion, view: &View<'_>, call: Call, s: &mut Scratch) {
    let mut out = Commands::noting_places(None, &mut s.places);
    let mut reply = Reply::default();
    let Some(hook) = call.hook() else { return };
    let done: HookResult = match call {
        Call::Rules { .. } | Call::Release => Ok(()),
        Call::Setup => e.setup(view, &mut out),
        Call::CanPlaceTile { tile, candidates } => {
            let mut allowed = vec![true; candidates.len()];
            let r = e.can_place_tile(view, tile, &candidates, &mut allowed);
            reply.forbidden = forbidden(&allowed);
            r
        }
        Call::FigureActions => e.figure_actions(view, &mut reply.offers),
        Call::OnAction { offer } => e.on_action(view, &offer, &mut out),
        Call::OnDecision { decision, option } => e.on_decision(view, &decision, option, &mut out),
        Call::Event { event } => e.on_event(view, &event, &mut out),
        Call::ModifyScore { scoring } => e.modify_score(view, &scoring, &mut out),
        Call::FinalScoring => e.final_scoring(view, &mut out),
    };
    if matches!(hook, HookKind::CanPlaceTile | HookKind::FigureActions) {
        encode_reply_into(&done.map(|()| reply), &mut s.reply);
    } else {
        encode_commands_into(host, e, hook, done, out, &mut s.reply);
    }
}

/// The view's questions, asked of the host; those the call's facts and own figures answer,
/// and stored values already seen at the same storage version, are answered here.
struct HostSource<'a> {
    host: *const HostV1,
    /// The call's facts, from a host that sends them.
    facts: Option<Facts>,
    /// The expansion's own figures, when the call brought them.
    own: Option<&'a OwnFigures>,
    /// Whether the host takes queries in the wire format (ABI minor 3).
    wire: bool,
}

thread_local! {
    /// Stored values by key, with the storage version they were read at. A version names one
    /// content of one expansion's storage in any game (`GameState::storage_version`), so an
    /// entry stays right for every call that brings the same version.
    /// A list, not a map: an expansion reads a handful of keys, and hashing each would cost more
    /// than comparing them.
    static STORED: RefCell<Vec<(String, u64, Option<Value>)>> = const { RefCell::new(Vec::new()) };
}

impl<'a> HostSource<'a> {
    fn new(host: *const HostV1, own: Option<&'a OwnFigures>) -> HostSource<'a> {
        // SAFETY: `host` is the table the host passed to this call; `facts` is read only when
        // the table is long enough to hold it (minor 1).
        let minor = unsafe { HostV1::minor(host) };
        // SAFETY: as above.
        let facts = (minor >= 1).then(|| unsafe { (*host).facts });
        HostSource { host, facts, own, wire: minor >= 3 }
    }

    /// A stored value, from the cache when the storage has not changed since it was read.
    fn storage(&self, key: &str, version: u64) -> Answer {
        let cached = STORED.with(|c| match c.borrow().iter().find(|(k, ..)| k == key) {
            Some((_, v, value)) if *v == version => Some(value.clone()),
            _ => None,
        });
        if let Some(value) = cached {
            return Answer::Value(value);
        }
        let answer = self.ask_host(&Query::Storage(key.to_string()));
        if let Answer::Value(value) = &answer {
            STORED.with(|c| {
                let mut c = c.borrow_mut();
                match c.iter_mut().find(|(k, ..)| k == key) {
                    Some(entry) => (entry.1, entry.2) = (version, value.clone()),
                    None => c.push((key.to_string(), version, value.clone())),
                }
            });
        }
        answer
    }

    fn ask_host(&self, query: &Query) -> Answer {
        ASKED.with(|asked| {
            let (question, answer) = &mut *asked.borrow_mut();
            question.0.clear();
            answer.clear();
            if self.wire {
                question.0.push(proto::query::WIRE);
                question.query(query);
            } else {
                question.0 = encode(query);
            }
            // SAFETY: `host` is the table the host passed to this call, alive until it returns.
            let status = unsafe {
                let host = &*self.host;
                let sink = answer as *mut Vec<u8> as *mut c_void;
                (host.query)(host.ctx, Bytes::from_slice(&question.0), sink, vec_sink)
            };
            if status != OK {
                panic!("the host could not answer {query:?}: {}", String::from_utf8_lossy(answer));
            }
            decode_answer(answer).unwrap_or_else(|e| panic!("{e}"))
        })
    }
}

thread_local! {
    /// Reused for a query and its answer.
    static ASKED: RefCell<(Writer, Vec<u8>)> = RefCell::new((Writer::default(), Vec::new()));
}

impl ViewSource for HostSource<'_> {
    fn ask(&self, query: &Query) -> Answer {
        if let (Query::FiguresOfKind(kind), Some(own)) = (query, &self.own)
            && own.kinds.contains(kind)
        {
            return Answer::Figures(own.figures.iter().filter(|(_, f)| f.kind == *kind).copied().collect());
        }
        let Some(facts) = self.facts else { return self.ask_host(query) };
        match query {
            Query::Players => Answer::Int(facts.players as i64),
            Query::Turn => facts.turn().map_or_else(|| self.ask_host(query), Answer::Turn),
            Query::StorageVersion => Answer::Int(facts.storage_version as i64),
            Query::Storage(key) => self.storage(key, facts.storage_version),
            _ => self.ask_host(query),
        }
    }
}

/// Writes a line to the host's log (only during a hook call; otherwise it is dropped).
pub fn log(level: u32, message: &str) {
    let host = STATE.with(|s| s.host.get());
    if !host.is_null() {
        // SAFETY: set for the duration of a call by `call`, which the host keeps alive.
        unsafe { ((*host).log)((*host).ctx, level, Bytes::from_slice(message.as_bytes())) }
    }
}

/// A [`HookError`] for a plugin's own failures.
pub fn error(expansion: &str, hook: HookKind, message: impl Into<String>) -> HookError {
    HookError::new(expansion, hook, message)
}

#[allow(dead_code)]
const _: () = assert!(ERROR != PANICKED);
