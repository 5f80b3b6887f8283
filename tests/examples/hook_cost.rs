//! Plays random games of a config with the test expansions available, `rust-noop` among them,
//! and prints a checksum of the scores. Run under callgrind, it gives what the core itself spends
//! on calling hooks (`configs/bench/rust-noop.toml` against the base game; see
//! docs/performance.md): `cargo run --release -p meeple-tests --example hook_cost -- CONFIG GAMES`.

use meeple_core::Game;
use meeple_core::bots::{Bot, RandomBot};
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, config, games] = args.as_slice() else {
        eprintln!("usage: hook_cost CONFIG GAMES");
        std::process::exit(2);
    };
    let config = meeple_host::load::read_config(Path::new(config)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let games: u64 = games.parse().expect("GAMES is a number");
    let loaded = meeple_tests::load_config(&config).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut checksum = 0i64;
    for seed in 0..games {
        let mut game = Game::new(loaded.rules.clone(), loaded.setup(seed)).expect("a game of a loaded ruleset");
        let mut bot = RandomBot::new(seed);
        while !game.is_over() {
            let action = bot.choose(&game);
            game.apply(action).expect("a legal action");
        }
        checksum += (0..game.state().players()).map(|p| i64::from(game.state().score(p))).sum::<i64>();
    }
    println!("{games} games, scores summing to {checksum}");
}
