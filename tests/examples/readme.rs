//! The README's "From Rust" example, word for word between the markers (a test checks that the
//! two agree), so that the example a library user copies first compiles against the crates as
//! they are: `cargo run --release -p meeple-tests --example readme` (from the repository root).

use meeple_core::{
    Game,
    bots::{Bot, RandomBot},
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // README begin
    let loaded = meeple_host::load::from_config_file("configs/base.toml".as_ref(), &[])?;
    let mut game = Game::new(loaded.rules.clone(), loaded.setup(42))?;
    let mut bot = RandomBot::new(1);
    while !game.is_over() {
        let action = bot.choose(&game); // or pick from game.legal_actions()
        game.apply(action)?; // transactional: an error changes nothing; returns the events
    }
    println!("{:?}", game.state().scores());
    // README end
    Ok(())
}
