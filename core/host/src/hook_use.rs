//! How often an expansion's hooks are called in play, and how often a call does something:
//! `meeple check` plays random games with a mod through [`Counted`] and tells a hook that is
//! called but never acts, which is what a misspelt tag, kind or option in a handler looks like
//! (the handler runs, its test never holds, and the rule silently never happens).

use meeple_core::action::{Decision, Event, Offer};
use meeple_core::board::Placement;
use meeple_core::expansion::{Interest, Scoring};
use meeple_core::{Commands, Expansion, HookError, HookKind, HookResult, HookSet, Rules, TileId, View};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The calls of one hook, and those that acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookUse {
    /// The hook.
    pub hook: HookKind,
    /// How many times the core called it.
    pub calls: u64,
    /// How many of those calls gave a command, offered an action or forbade a placement.
    pub acted: u64,
    /// The games played with the hook registered (code may register a hook only under some
    /// options); 0 until the caller that played them sets it.
    pub games: u64,
}

/// The counts of every hook of one expansion, shared between the wrapper and whoever reads them.
#[derive(Default)]
pub struct HookCounts {
    calls: [AtomicU64; HookKind::ALL.len()],
    acted: [AtomicU64; HookKind::ALL.len()],
}

impl HookCounts {
    fn note(&self, hook: HookKind, acted: bool) {
        self.calls[hook as usize].fetch_add(1, Ordering::Relaxed);
        if acted {
            self.acted[hook as usize].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many calls of any hook acted so far.
    pub fn acted(&self) -> u64 {
        self.acted.iter().map(|a| a.load(Ordering::Relaxed)).sum()
    }

    /// The counts of the hooks in `hooks`, in the documented order.
    pub fn of(&self, hooks: HookSet) -> Vec<HookUse> {
        let count = |c: &[AtomicU64], h: HookKind| c[h as usize].load(Ordering::Relaxed);
        HookKind::ALL
            .into_iter()
            .filter(|h| hooks.contains(*h))
            .map(|hook| HookUse { hook, calls: count(&self.calls, hook), acted: count(&self.acted, hook), games: 0 })
            .collect()
    }
}

/// An expansion that counts its hooks' calls into `counts` and otherwise is `inner`: every
/// method is passed on, the ones that answer the core's questions about it unchanged.
pub struct Counted {
    /// The expansion counted.
    pub inner: Arc<dyn Expansion>,
    /// Where the counts go.
    pub counts: Arc<HookCounts>,
}

impl Counted {
    /// Runs one hook call that acted if it gave commands.
    fn commands(
        &self,
        hook: HookKind,
        out: &mut Commands<'_>,
        call: impl FnOnce(&mut Commands<'_>) -> HookResult,
    ) -> HookResult {
        let before = out.len();
        let result = call(out);
        self.counts.note(hook, out.len() > before);
        result
    }
}

impl Expansion for Counted {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn hooks(&self) -> HookSet {
        self.inner.hooks()
    }

    fn interest(&self, rules: &Rules) -> Interest {
        self.inner.interest(rules)
    }

    fn misfits(&self, rules: &Rules) -> Vec<HookError> {
        self.inner.misfits(rules)
    }

    fn categories(&self) -> Vec<String> {
        self.inner.categories()
    }

    fn kept_values(&self) -> Vec<meeple_core::KeptValue> {
        self.inner.kept_values()
    }

    fn setup(&self, view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        self.commands(HookKind::Setup, out, |out| self.inner.setup(view, out))
    }

    fn can_place_tile(
        &self,
        view: &View<'_>,
        tile: TileId,
        candidates: &[Placement],
        allowed: &mut [bool],
    ) -> HookResult {
        let before = allowed.iter().filter(|a| **a).count();
        let result = self.inner.can_place_tile(view, tile, candidates, allowed);
        self.counts.note(HookKind::CanPlaceTile, allowed.iter().filter(|a| **a).count() < before);
        result
    }

    fn figure_actions(&self, view: &View<'_>, offers: &mut Vec<Offer>) -> HookResult {
        let before = offers.len();
        let result = self.inner.figure_actions(view, offers);
        self.counts.note(HookKind::FigureActions, offers.len() > before);
        result
    }

    fn on_action(&self, view: &View<'_>, offer: &Offer, out: &mut Commands<'_>) -> HookResult {
        self.commands(HookKind::OnAction, out, |out| self.inner.on_action(view, offer, out))
    }

    fn on_decision(&self, view: &View<'_>, decision: &Decision, option: u16, out: &mut Commands<'_>) -> HookResult {
        self.commands(HookKind::OnDecision, out, |out| self.inner.on_decision(view, decision, option, out))
    }

    fn on_event(&self, view: &View<'_>, event: &Event, out: &mut Commands<'_>) -> HookResult {
        let Some(hook) = HookKind::for_event(event) else { return self.inner.on_event(view, event, out) };
        self.commands(hook, out, |out| self.inner.on_event(view, event, out))
    }

    fn modify_score(&self, view: &View<'_>, scoring: &Scoring, out: &mut Commands<'_>) -> HookResult {
        self.commands(HookKind::ModifyScore, out, |out| self.inner.modify_score(view, scoring, out))
    }

    fn final_scoring(&self, view: &View<'_>, out: &mut Commands<'_>) -> HookResult {
        self.commands(HookKind::FinalScoring, out, |out| self.inner.final_scoring(view, out))
    }
}
