//! The coarse clock of the wall-clock backstop: milliseconds that a thread advances every 10 ms
//! while scripts run, and that stand still while none has started a call for a while.
//!
//! The interrupt reads the clock every 8th time, where `Instant::now` would cost more than the
//! rest of its checks, and the backstop needs no finer time. A thread that woke every 10 ms for
//! the life of the process would keep an idle server busy, so the thread sleeps once no call
//! has started for longer than any call may run (the backstop of a call started before then
//! has fired, or will at its next check: the clock is already past its limit), and the next
//! call's start wakes it. Time asleep is not counted: the clock goes on from where it stopped,
//! so a call that starts while it sleeps is not charged for the sleep.
//!
//! Invariant: while a call runs, the clock advances (after at most [`NAP`] if the call's start
//! raced with the thread going to sleep and did not see it asleep).

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How often the clock advances while scripts run.
const TICK: Duration = Duration::from_millis(10);

/// The longest the clock sleeps without looking for calls: it bounds how long a start that did
/// not see the thread go to sleep waits for the clock.
const NAP: Duration = Duration::from_secs(1);

/// What every call start reads, on a cache line of its own: the time, and whether the clock
/// sleeps. Both change at most once a tick.
#[repr(align(64))]
struct Shared {
    /// Milliseconds of running time, as the thread last wrote them.
    now_ms: AtomicU64,
    /// Whether the thread sleeps (or is about to).
    asleep: AtomicBool,
}

static SHARED: Shared = Shared { now_ms: AtomicU64::new(0), asleep: AtomicBool::new(false) };

/// Starts noted, on a line of its own: each thread notes at most one a tick, so that threads
/// running scripts side by side do not write to a line all of them read at every call.
#[repr(align(64))]
struct Starts(AtomicU64);

static STARTS: Starts = Starts(AtomicU64::new(0));

/// The longest wall-clock limit of any VM made so far, in ms: how long the clock must keep
/// running after the last start.
static LONGEST_MS: AtomicU64 = AtomicU64::new(0);
/// The clock's thread, to wake it.
static THREAD: OnceLock<Option<Thread>> = OnceLock::new();

thread_local! {
    /// The clock's time when this thread last noted a start.
    static NOTED_AT: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// The clock's time in ms: only differences between two readings mean anything.
#[inline]
pub(super) fn now_ms() -> u64 {
    SHARED.now_ms.load(Ordering::Relaxed)
}

/// Starts the clock's thread if it is not running, for VMs whose calls may take `wall`.
/// Without a thread the clock stands still, and the step budget alone stops scripts.
pub(super) fn start(wall: Duration) {
    LONGEST_MS.fetch_max(wall.as_millis() as u64, Ordering::Relaxed);
    THREAD.get_or_init(|| {
        std::thread::Builder::new().name("meeple-luau-clock".into()).spawn(run).ok().map(|h| h.thread().clone())
    });
}

/// Notes that a call starts (once a tick per thread), waking the clock if it sleeps. Called
/// before the call reads the clock.
///
/// A start noted in tick `n` is seen by the clock at the end of that tick, and keeps it running
/// for longer than any call may run from then; a call that starts later in the same tick is
/// covered by the same note.
#[inline]
pub(super) fn call_starts() {
    if SHARED.asleep.load(Ordering::Relaxed) {
        wake();
    } else if NOTED_AT.get() != now_ms() {
        note();
    }
}

#[cold]
#[inline(never)]
fn note() {
    NOTED_AT.set(now_ms());
    STARTS.0.fetch_add(1, Ordering::Relaxed);
}

#[cold]
#[inline(never)]
fn wake() {
    // Counted before the thread is woken, so that it finds a start when it looks.
    STARTS.0.fetch_add(1, Ordering::SeqCst);
    if SHARED.asleep.swap(false, Ordering::SeqCst)
        && let Some(Some(thread)) = THREAD.get()
    {
        thread.unpark();
    }
}

/// The thread: ticks while calls start, sleeps when they have stopped.
fn run() {
    let mut ticker = Ticker::default();
    let mut last = Instant::now();
    loop {
        std::thread::sleep(TICK);
        let now = Instant::now();
        let awake_for = now - last;
        last = now;
        let longest = LONGEST_MS.load(Ordering::Relaxed);
        let going_on = ticker.tick(awake_for.as_micros() as u64, STARTS.0.load(Ordering::Relaxed), longest);
        SHARED.now_ms.store(ticker.now_ms(), Ordering::Relaxed);
        if going_on {
            continue;
        }
        SHARED.asleep.store(true, Ordering::SeqCst);
        // A start between the last tick and the line above went unseen by both sides; this
        // look catches most of them, and the nap's end the rest.
        if STARTS.0.load(Ordering::SeqCst) == ticker.starts_seen {
            std::thread::park_timeout(NAP);
        }
        SHARED.asleep.store(false, Ordering::SeqCst);
        // The sleep is not counted.
        last = Instant::now();
    }
}

/// The clock's bookkeeping, apart from the thread so that it can be tested without waiting.
#[derive(Default, Debug)]
struct Ticker {
    /// Running time in µs.
    now_us: u64,
    /// The starts noted, at the last tick.
    starts_seen: u64,
    /// Running time, in µs, when a start was last seen.
    active_at: u64,
}

impl Ticker {
    /// Counts `elapsed_us` of running time; says whether to keep ticking (false: no call has
    /// started for longer than `longest_ms`, plus a margin, so nothing needs the clock).
    fn tick(&mut self, elapsed_us: u64, starts: u64, longest_ms: u64) -> bool {
        self.now_us += elapsed_us;
        if starts != self.starts_seen {
            self.starts_seen = starts;
            self.active_at = self.now_us;
            return true;
        }
        // Still idle after a nap: straight back to sleep.
        (self.now_us - self.active_at) / 1000 <= longest_ms + NAP.as_millis() as u64
    }

    fn now_ms(&self) -> u64 {
        self.now_us / 1000
    }
}

#[cfg(test)]
mod tests {
    use super::Ticker;

    #[test]
    fn the_clock_sleeps_only_once_no_call_can_still_need_it() {
        let mut t = Ticker::default();
        // A call starts; for as long as a call may run, and the nap after, the clock ticks.
        assert!(t.tick(10_000, 1, 2_000));
        for _ in 0..300 {
            assert!(t.tick(10_000, 1, 2_000), "at {} ms", t.now_ms());
        }
        assert_eq!(t.now_ms(), 3_010);
        assert!(!t.tick(10_000, 1, 2_000), "3 s after the last start it may sleep");
        // Time asleep is not given to it: it goes on from where it stopped.
        assert_eq!(t.now_ms(), 3_020);
        assert!(!t.tick(10_000, 1, 2_000), "woken by its nap's end with no call started: back to sleep");
        assert!(t.tick(10_000, 2, 2_000), "a start keeps it awake");
        assert_eq!(t.now_ms(), 3_040);
        // Each start puts the sleep off again.
        for starts in 3..400 {
            assert!(t.tick(10_000, starts, 2_000));
        }
    }
}
