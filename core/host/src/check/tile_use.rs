//! How a mod's own tiles fare in random games: how often each kind is drawn and placed. A kind
//! drawn but never placed fits nowhere on the board, which no single tile's checks can tell: a
//! side letter that no other tile matches, a river that cannot continue.

use crate::ruleset::Loaded;
use meeple_core::bots::{Bot, RandomBot, seat_seed};
use meeple_core::{Event, Game};
use std::collections::BTreeSet;

/// One of a mod's tile kinds in the random games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileUse {
    /// The kind, `tileset:tile`.
    pub tile: String,
    /// Times it was drawn (the start tile counts, placed undrawn).
    pub drawn: u64,
    /// Times it was placed.
    pub placed: u64,
}

/// Plays `games` random games (seeds 1 to `games`, seated as `meeple play --bots random` seats
/// them) and counts the draws and placements of the tile kinds of the tilesets `own`, in the
/// order of the ruleset. A game a hook stops is counted as far as it went: the check's own
/// games tell that failure.
pub fn count(loaded: &Loaded, own: &BTreeSet<String>, games: u64) -> Vec<TileUse> {
    let tiles = loaded.rules.tiles();
    let is_own = |key: &str| key.split_once(':').is_some_and(|(tileset, _)| own.contains(tileset));
    let mut uses: Vec<Option<TileUse>> = tiles
        .iter()
        .map(|t| is_own(&t.key).then(|| TileUse { tile: t.key.to_string(), drawn: 0, placed: 0 }))
        .collect();
    for seed in 1..=games {
        let Ok(mut game) = Game::new(loaded.rules.clone(), loaded.setup(seed)) else { continue };
        tally(&mut uses, game.events());
        let players = game.state().players() as usize;
        let mut bots: Vec<RandomBot> = (0..players).map(|p| RandomBot::new(seat_seed(seed, p))).collect();
        while let Some(p) = game.to_act() {
            let action = bots[p as usize].choose(&game);
            match game.apply(action) {
                Ok(events) => tally(&mut uses, events),
                Err(_) => break,
            }
        }
    }
    uses.into_iter().flatten().collect()
}

fn tally(uses: &mut [Option<TileUse>], events: &[Event]) {
    for e in events {
        // The start tile is placed undrawn: it counts as drawn too.
        let (tile, drawn, placed) = match *e {
            Event::TileDrawn { tile, .. } => (tile, 1, 0),
            Event::TilePlaced { tile, player: None, .. } => (tile, 1, 1),
            Event::TilePlaced { tile, .. } => (tile, 0, 1),
            _ => continue,
        };
        if let Some(Some(u)) = uses.get_mut(tile as usize) {
            u.drawn += drawn;
            u.placed += placed;
        }
    }
}

/// The warning for kinds drawn in the games but never placed.
pub fn never_placed(uses: &[TileUse], games: u64) -> Option<String> {
    let stuck: Vec<String> =
        uses.iter().filter(|u| u.drawn > 0 && u.placed == 0).map(|u| format!("{} ({}×)", u.tile, u.drawn)).collect();
    (!stuck.is_empty()).then(|| {
        format!(
            "tiles drawn in {} and never placed: {}: no place on the board fits them, and each was \
             discarded (a side letter no other tile matches?)",
            crate::check::random_games(games),
            stuck.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn used(tile: &str, drawn: u64, placed: u64) -> TileUse {
        TileUse { tile: tile.to_string(), drawn, placed }
    }

    #[test]
    fn only_a_kind_drawn_and_never_placed_is_warned_of() {
        let uses = [used("m:fits", 20, 19), used("m:stuck", 7, 0), used("m:undrawn", 0, 0)];
        let warning = never_placed(&uses, 10).expect("one kind never placed");
        assert!(warning.starts_with("tiles drawn in 10 random games and never placed: m:stuck (7×): "), "{warning}");
        assert_eq!(never_placed(&uses[..1], 10), None);
    }
}
