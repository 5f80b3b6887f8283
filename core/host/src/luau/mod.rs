//! Expansions written in Luau.
//!
//! A script is loaded from its expansion's folder: every `.luau` file is read at load time, the
//! entry file runs once in a probe VM to learn which hooks it registers (and to report syntax and
//! load-time errors with `file:line`), and then each thread that plays the game builds its own VM
//! on first use (one VM per thread serves every game of that ruleset). VMs are sandboxed
//! ([`vm`]): no `os`, no `loadstring`, a `require` that only sees the expansion's own files,
//! `math.random` drawn from the game's random stream, a memory limit, and a deterministic budget
//! of interrupts per hook call with a wall-clock backstop.
//!
//! The API scripts see (`meeple`, the view, the command sink) is defined once in [`api::API`];
//! `docs/lua-api.md` and `docs/meeple.d.luau` are generated from it.

pub mod api;
mod clock;
pub mod docs;
mod events;
mod fast;
mod kept;
mod lent;
mod raw;
mod records;
mod vm;
pub(crate) mod written;

use crate::paths::display_path;
use crate::ruleset::{Selected, collect_files};
use meeple_core::action::{Decision, Offer};
use meeple_core::{
    Commands, Event, Expansion, HookError, HookKind, HookResult, HookSet, Interest, Placement, Scoring, TileId, Value,
    View,
};
use meeple_toml::{Diagnostic, Report};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Limits every script VM runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Memory a VM may hold, in bytes, garbage aside; it may allocate twice this
    /// ([`Limits::hard_memory`]).
    pub memory: usize,
    /// Interrupts (function calls and loop iterations, counted by Luau) one hook call may take.
    /// Deterministic: a script that exceeds it fails at the same point on every machine.
    pub steps: u64,
    /// Wall-clock backstop for one hook call, for work that interrupts cannot see.
    pub wall: Duration,
}

impl Limits {
    /// What the allocator lets a VM have at most, garbage included: twice what it may hold.
    pub fn hard_memory(&self) -> usize {
        self.memory * 2
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { memory: 32 << 20, steps: 5_000_000, wall: Duration::from_secs(2) }
    }
}

/// The most bytes the `.luau` files of one expansion's folder may hold together: each file is
/// read whether it is required or not, and a VM holds 32 MiB.
pub const MAX_SCRIPTS: u64 = 32 << 20;

/// A script's source files and settings, shared by every VM that runs it.
#[derive(Debug)]
pub struct Script {
    /// The expansion's id (chunk names are `<id>/<file>`).
    pub id: String,
    /// The expansion's folder.
    pub dir: PathBuf,
    /// The entry file, relative to `dir`.
    pub entry: String,
    /// Every `.luau` file of the folder, by path relative to it (with `/` separators).
    pub files: BTreeMap<String, String>,
    /// The options chosen in the config (defaults filled in).
    pub options: BTreeMap<String, Value>,
    /// The edition played.
    pub edition: String,
    /// Resource limits.
    pub limits: Limits,
}

impl Script {
    /// Reads the script files of a selected expansion.
    pub fn read(sel: &Selected, entry: &Path, limits: Limits) -> Result<Script, Report> {
        let dir = sel.manifest.dir().to_path_buf();
        let mut paths = Vec::new();
        collect_files(&dir, "luau", &mut paths);
        paths.sort();
        // Told before anything is read: every file is kept, required or not.
        let total: u64 = paths.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
        if total > MAX_SCRIPTS {
            let why = format!(
                "the `.luau` files in {} hold {} MiB together: at most {} MiB (more than a script's VM can load)",
                display_path(&dir),
                total.div_ceil(1 << 20),
                MAX_SCRIPTS >> 20
            );
            return Err(Report { diagnostics: vec![sel.manifest.problem_at("script.entry", why)] });
        }
        let mut files = BTreeMap::new();
        for p in paths {
            let rel = p.strip_prefix(&dir).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            let text = crate::ruleset::read_text(&p)?;
            files.insert(rel, text);
        }
        let entry = entry.to_string_lossy().replace('\\', "/");
        if !files.contains_key(&entry) {
            let there = std::fs::symlink_metadata(dir.join(&entry)).is_ok();
            let what = match there.then(|| api::unread_link(&dir, &entry, &sel.manifest.id)).flatten() {
                Some(link) => link,
                None if dir.join(&entry).is_dir() => format!("is a folder in {}", display_path(&dir)),
                // Only plain files are read as scripts.
                None if there => format!("{} in {}", crate::ruleset::NOT_A_PLAIN_FILE, display_path(&dir)),
                None => format!("does not exist in {}", display_path(&dir)),
            };
            let mut why = format!("the entry script `{entry}` {what}");
            // A script written for plain Lua keeps its `.lua` name, which is never read.
            if let Some(lua) = entry.strip_suffix(".luau").map(|stem| format!("{stem}.lua"))
                && dir.join(&lua).is_file()
            {
                why.push_str(&format!("; `{lua}` is there, but scripts are read only from `.luau` files: rename it"));
            }
            return Err(Report { diagnostics: vec![sel.manifest.problem_at("script.entry", why)] });
        }
        Ok(Script {
            id: sel.manifest.id.clone(),
            dir,
            entry,
            files,
            options: sel.options.clone(),
            edition: sel.edition.clone(),
            limits,
        })
    }
}

static NEXT_INSTANCE: AtomicU64 = AtomicU64::new(1);

/// Hashes instance numbers for [`VMS`], which is searched at every hook call: the numbers are
/// distinct, so a multiplication spreads them enough, where SipHash costs a hundred instructions.
#[derive(Default)]
struct InstanceHasher(u64);

impl Hasher for InstanceHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(self.0 ^ u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type InstanceMap<V> = HashMap<u64, V, BuildHasherDefault<InstanceHasher>>;

thread_local! {
    /// This thread's VMs, by expansion instance.
    static VMS: RefCell<InstanceMap<Rc<vm::Vm>>> =
        const { RefCell::new(HashMap::with_hasher(BuildHasherDefault::new())) };
}

/// The instances not dropped yet. A dropped expansion can remove only the dropping thread's VM
/// of it (a VM is not `Send`); each thread frees its VMs of dropped instances when it builds a
/// VM, which a thread does for each new ruleset it plays, so a pool of workers that plays ruleset
/// after ruleset keeps only the VMs of rulesets still alive. The hook calls never look here.
static LIVE: Mutex<BTreeSet<u64>> = Mutex::new(BTreeSet::new());

/// Adds a VM to this thread's, first dropping those of expansions that are gone.
fn keep_vm(instance: u64, vm: Rc<vm::Vm>) {
    let live = LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    // Dropped once the map is let go: a VM's drop runs no code of ours, but needs no borrow.
    let gone: Vec<Rc<vm::Vm>> = VMS.with(|m| {
        let mut m = m.borrow_mut();
        let dead: Vec<u64> = m.keys().copied().filter(|i| !live.contains(i)).collect();
        m.insert(instance, vm);
        dead.iter().filter_map(|i| m.remove(i)).collect()
    });
    drop(gone);
}

/// How many Luau VMs this thread holds: one per Luau expansion of each ruleset it has played
/// that is still alive, and of those dropped since it last built a VM (freed when it next
/// builds one; a thread that never does keeps them until it ends). For a server or a pool of
/// workers to watch its memory.
pub fn vms_on_this_thread() -> usize {
    VMS.with(|m| m.borrow().len())
}

/// A Luau expansion: implements the hook interface by calling the script's handlers.
pub struct LuauExpansion {
    instance: u64,
    script: Arc<Script>,
    hooks: HookSet,
    interest: Interest,
    /// The figure kinds of `on_board`, by name: resolved against each ruleset.
    on_board: vm::OnBoard,
    categories: Vec<String>,
}

impl LuauExpansion {
    /// Loads a script: runs its entry file in a probe VM to collect the hooks it registers.
    /// Syntax and load-time errors come back as a report with `file:line`.
    pub fn load(script: Script, categories: Vec<String>) -> Result<LuauExpansion, Report> {
        let script = Arc::new(script);
        let vm = vm::Vm::new(&script).map_err(|e| error_report(&script, &e.0))?;
        let hooks = vm.hooks();
        let (interest, on_board) = vm.interest();
        let instance = NEXT_INSTANCE.fetch_add(1, Ordering::Relaxed);
        LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(instance);
        keep_vm(instance, Rc::new(vm));
        Ok(LuauExpansion { instance, script, hooks, interest, on_board, categories })
    }

    /// The script's files and settings.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// The figure kinds of an `on_board`, by the names the script gives them.
    fn figure_kinds(&self, rules: &meeple_core::Rules, names: &[String]) -> Result<Vec<u8>, String> {
        let ids = || rules.figures().iter().map(|f| f.id.as_str());
        let kind = |n: &String| api::resolve(ids(), &self.script.id, n, "figure kind").map(|k| k as u8);
        names.iter().map(kind).collect::<mlua::Result<_>>().map_err(|e| match e {
            mlua::Error::RuntimeError(message) => message,
            other => other.to_string(),
        })
    }

    // Inlined into each hook: the lookup is on every call, and whether the compiler inlined it
    // on its own changed with unrelated code (10 000 instructions a game).
    #[inline]
    fn with_vm<R>(&self, hook: HookKind, f: impl FnOnce(&vm::Vm) -> Result<R, HookError>) -> Result<R, HookError> {
        let found = VMS.with(|m| m.borrow().get(&self.instance).cloned());
        let vm = match found {
            Some(vm) => vm,
            None => {
                let vm = Rc::new(vm::Vm::new(&self.script).map_err(vm::LoadErrors::first)?);
                keep_vm(self.instance, vm.clone());
                vm
            }
        };
        // A panic of the host's own code while a script runs is a bug of ours, but it should cost
        // the call, not every game of a server: it becomes the call's error, and the VM, which
        // it may have left half-way, is dropped below.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&vm))).unwrap_or_else(|panic| {
            let what = panic_message(panic.as_ref());
            Err(HookError::new(&self.script.id, hook, format!("the host failed while running the script: {what}")))
        });
        if result.is_err() {
            // A failed call may leave the VM short of memory or half-way through a module:
            // start the next call from a fresh one (scripts keep no state of their own).
            VMS.with(|m| m.borrow_mut().remove(&self.instance));
        }
        result
    }
}

impl Drop for LuauExpansion {
    fn drop(&mut self) {
        LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&self.instance);
        let _ = VMS.try_with(|m| m.borrow_mut().remove(&self.instance));
    }
}

/// Script errors as a report (for load time).
fn error_report(script: &Script, errors: &[HookError]) -> Report {
    Report { diagnostics: errors.iter().map(|e| diagnostic(&script.id, &script.dir, &script.entry, e)).collect() }
}

/// A script error at load time as a problem of the file and line it names (`chunk:line`, the
/// chunk named `expansion/file`), or else of the entry file.
pub(crate) fn diagnostic(id: &str, dir: &Path, entry: &str, e: &HookError) -> Diagnostic {
    let (file, line) = match e.location.as_deref().and_then(|l| l.rsplit_once(':')) {
        Some((chunk, line)) => {
            let rel = chunk.strip_prefix(&format!("{id}/")).unwrap_or(chunk);
            (display_path(&dir.join(rel)), line.parse().unwrap_or(1))
        }
        None => (display_path(&dir.join(entry)), 1),
    };
    Diagnostic { file, line, col: 0, message: format!("{} ({})", e.message, e.hook) }
}

impl Expansion for LuauExpansion {
    fn id(&self) -> &str {
        &self.script.id
    }

    fn hooks(&self) -> HookSet {
        self.hooks
    }

    fn interest(&self, rules: &meeple_core::Rules) -> Interest {
        let mut interest = self.interest.clone();
        for (hook, names, _) in &self.on_board {
            // A name that resolves to nothing is one of the ruleset's misfits, which the host
            // refuses; a hook whose kinds are not all known is simply always called.
            if let Ok(kinds) = self.figure_kinds(rules, names) {
                interest.when_on_board.push((*hook, kinds));
            }
        }
        interest
    }

    fn misfits(&self, rules: &meeple_core::Rules) -> Vec<HookError> {
        let unknown = |(hook, names, at): &(HookKind, Vec<String>, Option<String>)| -> Option<HookError> {
            let why = self.figure_kinds(rules, names).err()?;
            let mut e =
                HookError::new(&self.script.id, *hook, format!("meeple.on `{}`: `on_board`: {why}", hook.name()));
            e.hook = "while loading".into();
            e.location = at.clone();
            Some(e)
        };
        self.on_board.iter().filter_map(unknown).collect()
    }

    fn categories(&self) -> Vec<String> {
        self.categories.clone()
    }

    /// The locals its handlers use and the globals it set, as this thread's VM holds them (the
    /// one `check`'s games were played on).
    fn kept_values(&self) -> Vec<meeple_core::KeptValue> {
        self.with_vm(HookKind::Setup, |vm| {
            vm.kept_values().map_err(|e| HookError::new(&self.script.id, HookKind::Setup, e.to_string()))
        })
        .unwrap_or_default()
    }

    fn setup(&self, view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        self.with_vm(HookKind::Setup, |vm| vm.call(HookKind::Setup, view, out, vm::Args::None))
    }

    fn can_place_tile(
        &self,
        view: &View<'_>,
        tile: TileId,
        candidates: &[Placement],
        allowed: &mut [bool],
    ) -> HookResult {
        let mut out = Commands::new(None);
        let forbidden =
            self.with_vm(HookKind::CanPlaceTile, |vm| vm.call_can_place(view, &mut out, tile, candidates))?;
        for i in forbidden {
            if let Some(a) = allowed.get_mut(i) {
                *a = false;
            }
        }
        Ok(())
    }

    fn figure_actions(&self, view: &View<'_>, offers: &mut Vec<Offer>) -> HookResult {
        let mut out = Commands::new(None);
        let made = self.with_vm(HookKind::FigureActions, |vm| vm.call_figure_actions(view, &mut out))?;
        offers.extend(made);
        Ok(())
    }

    fn on_action(&self, view: &View<'_>, offer: &Offer, out: &mut Commands<'_>) -> HookResult {
        self.with_vm(HookKind::OnAction, |vm| vm.call(HookKind::OnAction, view, out, vm::Args::Offer(offer)))
    }

    fn on_decision(&self, view: &View<'_>, decision: &Decision, option: u16, out: &mut Commands<'_>) -> HookResult {
        self.with_vm(HookKind::OnDecision, |vm| {
            vm.call(HookKind::OnDecision, view, out, vm::Args::Decision(decision, option))
        })
    }

    fn on_event(&self, view: &View<'_>, event: &Event, out: &mut Commands<'_>) -> HookResult {
        let Some(hook) = HookKind::for_event(event) else { return Ok(()) };
        self.with_vm(hook, |vm| vm.call(hook, view, out, vm::Args::Event(event)))
    }

    fn modify_score(&self, view: &View<'_>, scoring: &Scoring, out: &mut Commands<'_>) -> HookResult {
        self.with_vm(HookKind::ModifyScore, |vm| vm.call(HookKind::ModifyScore, view, out, vm::Args::Scoring(scoring)))
    }

    fn final_scoring(&self, view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        self.with_vm(HookKind::FinalScoring, |vm| vm.call(HookKind::FinalScoring, view, out, vm::Args::None))
    }
}

/// What a caught panic said, if it said it with a string.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}
