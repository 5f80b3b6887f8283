//! `playout`: copies of a game played to their end by bots, for a search that wants outcomes
//! rather than states. Playout `i` is the same whatever the number of threads: dealt anew from
//! `reseed + i`, its bots seeded from `seed + i`. And `suggest`, one bot's next action, and
//! `try`, where each of some actions leads.

use crate::error::{Code, ProtocolError};
use crate::messages::{Outcome, PlayoutArgs, SuggestArgs, TriedAction, TryArgs};
use crate::table::Table;
use meeple_core::bots::{BotKind, play_out, seat_bots, seat_seed};
use meeple_core::{Action, Game};
use std::sync::atomic::{AtomicU64, Ordering};

type Result<T> = std::result::Result<T, ProtocolError>;

/// The most playouts one request plays: a search asks again for more, and the session answers
/// its other requests meanwhile.
pub const MAX_PLAYOUTS: u32 = 10_000;

/// The most threads one request plays on.
pub const MAX_THREADS: u32 = 64;

/// A checked request: what every playout does.
struct Plan<'a> {
    game: &'a Game,
    count: u64,
    reseed: Option<u64>,
    seed: u64,
    bots: Vec<BotKind>,
    first: Option<Action>,
    /// Threads to play on, no more than there are playouts.
    threads: u64,
}

/// `playout`: the request checked, its playouts played, their scores tallied.
pub fn playout(table: &Table, args: &PlayoutArgs) -> Result<Outcome> {
    let plan = plan(table, args)?;
    let scores = play_all(&plan)?;
    Ok(tally(scores, table.game().state().players() as usize))
}

/// `suggest`: the action the bot would take in the game's state, seeded as `playout`'s bot of
/// the seat to act (its first action is the one `playout` with the same bot and seed takes).
pub fn suggest(table: &Table, args: &SuggestArgs) -> Result<Outcome> {
    let seed = checked_seed(args.seed)?;
    let game = table.game();
    let Some(seat) = game.to_act() else { return Err(over()) };
    let mut bot = args.bot.unwrap_or(BotKind::Greedy).make(seat_seed(seed, seat as usize));
    let action = bot.choose(game);
    // A bot chooses among the legal actions; were it not so, the answer would be a wrong index.
    let index = game.legal_actions().iter().position(|a| *a == action).ok_or_else(|| {
        ProtocolError::expansion_failed(format!("the bot chose an action that is not among the legal ones: {action:?}"))
    })?;
    Ok(Outcome::Suggested { index, action })
}

/// `try`: each action asked for, taken on a copy of the game (dealt anew from `reseed`, when
/// given), with what happened and the copy's state; the game is left as it is.
pub fn try_actions(table: &Table, args: &TryArgs) -> Result<Outcome> {
    if table.game().is_over() {
        return Err(over());
    }
    let every = || (0..table.game().legal_actions().len()).collect();
    let indices: Vec<usize> = args.indices.clone().unwrap_or_else(every);
    // Every index checked before any copy is made: a mistake costs nothing.
    let actions = (indices.iter().enumerate())
        .map(|(k, &i)| {
            table.action_at(i).map_err(|mut e| {
                e.field = Some(format!("indices[{k}]"));
                e
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let tried = indices.iter().zip(actions).map(|(&index, action)| {
        let mut copy = table.fork(&args.game, args.reseed);
        let events = copy.act(action, None)?;
        Ok(TriedAction { index, events, state: Box::new(copy.view(&args.game, args.brief)) })
    });
    Ok(Outcome::Tried { tried: tried.collect::<Result<_>>()? })
}

/// What `suggest` and `try` answer for a finished game: it has no action to suggest or try.
fn over() -> ProtocolError {
    ProtocolError::new(Code::IllegalAction, "the game is over", Some("game"))
}

/// A bots' seed, 0 when not given.
fn checked_seed(seed: Option<u64>) -> Result<u64> {
    let seed = seed.unwrap_or(0);
    if seed > meeple_host::config::MAX_SEED {
        return Err(ProtocolError::out_of_range("seed", crate::fields::SEED, seed));
    }
    Ok(seed)
}

/// Every field checked against the game, before anything is played.
fn plan<'a>(table: &'a Table, args: &PlayoutArgs) -> Result<Plan<'a>> {
    let count = args.count.unwrap_or(1);
    if !(1..=MAX_PLAYOUTS).contains(&count) {
        return Err(ProtocolError::out_of_range("count", crate::fields::COUNT, count));
    }
    let seed = checked_seed(args.seed)?;
    let players = table.game().state().players() as usize;
    let bots = args.bots.clone().unwrap_or_else(|| vec![BotKind::Random]);
    if bots.is_empty() || bots.len() > players {
        let expected = format!("1 to {players} bots, one for each seat or fewer");
        return Err(ProtocolError::out_of_range("bots", &expected, format!("{} bots", bots.len())));
    }
    let first = table.named(args.action, args.index)?;
    if let Some(action) = &first {
        table.check_legal(action)?;
    }
    let threads = args.threads.unwrap_or(1);
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(ProtocolError::out_of_range("threads", crate::fields::THREADS, threads));
    }
    let count = u64::from(count);
    Ok(Plan {
        game: table.game(),
        count,
        reseed: args.reseed,
        seed,
        bots,
        first,
        threads: u64::from(threads).min(count),
    })
}

/// Playout `i`: its final scores.
fn play_one(plan: &Plan<'_>, i: u64) -> Result<Vec<i32>> {
    let failed = |e: meeple_core::ActionError| ProtocolError::expansion_failed(format!("playout {}: {e}", i + 1));
    let mut game = plan.game.clone();
    if let Some(r) = plan.reseed {
        game.reseed(r.wrapping_add(i));
    }
    if let Some(action) = plan.first {
        game.apply(action).map_err(failed)?;
    }
    let mut bots = seat_bots(&plan.bots, game.state().players() as usize, plan.seed.wrapping_add(i));
    play_out(&mut game, &mut bots).map_err(failed)?;
    Ok(game.state().scores())
}

/// Every playout's scores, in order, played on the plan's threads, each taking the next playout
/// in turn. A failure stops them all; the first playout that failed is told, as one thread would.
fn play_all(plan: &Plan<'_>) -> Result<Vec<Vec<i32>>> {
    if plan.threads <= 1 {
        return (0..plan.count).map(|i| play_one(plan, i)).collect();
    }
    let next = AtomicU64::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= plan.count {
                return done;
            }
            let result = play_one(plan, i);
            if result.is_err() {
                next.store(plan.count, Ordering::Relaxed);
            }
            done.push((i, result));
        }
    };
    let mut done: Vec<(u64, Result<Vec<i32>>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..plan.threads).map(|_| s.spawn(worker)).collect();
        workers.into_iter().flat_map(|w| w.join().expect("a playout thread panicked")).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, result)| result).collect()
}

/// The reply: the scores, and by seat the wins (a shared first place counting for each) and
/// the mean.
fn tally(scores: Vec<Vec<i32>>, players: usize) -> Outcome {
    let best = |s: &Vec<i32>| s.iter().copied().max().unwrap_or(0);
    let wins = (0..players).map(|p| scores.iter().filter(|s| s[p] == best(s)).count() as u32).collect();
    let count = scores.len().max(1) as f64;
    let mean = (0..players).map(|p| scores.iter().map(|s| f64::from(s[p])).sum::<f64>() / count).collect();
    Outcome::PlayedOut { scores, wins, mean }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ranges_told_are_the_ranges_kept() {
        assert!(crate::fields::COUNT.ends_with(&format!("from 1 to {}", super::MAX_PLAYOUTS)));
        assert!(crate::fields::THREADS.ends_with(&format!("from 1 to {}", super::MAX_THREADS)));
    }
}
